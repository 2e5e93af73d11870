"""Every kernel of the suite (``dot_graphs/kernel-suite.tsv``) compiled with bitvector levels
(SAM paper Sec. 4.3) gives numpy's result on both engines.

Each compressed level of every tensor (inputs and result) becomes a bitvector level (``b3``,
``b4`` or ``b64``: several words per fiber, one); dense levels stay dense. Where all operands
of a merge are bitvectors the compiler uses the bitvector intersecter/unioner, elsewhere a
``bvlookup`` + ``bvtocrd`` pair (:mod:`custard.bitvectors`); the graph goes through DOT text.
"""

from __future__ import annotations

import re
import shlex
import zlib

import numpy as np
import pytest
import scipy.sparse as sp

from custard.cli import graph_from_command_line
from formats.tensor import Tensor
from sam.graph.dot import dumps_all, loads_all
from sam.graph.model import Graph
from sam.notation.parse import parse_expression
from sam.program import run_program

from helpers.kernel_suite import SUITE, expected, operands

#: (width letter, which levels): every compressed level, or only the last one of each tensor.
VARIANTS = [("b3", "all"), ("b4", "last"), ("b", "all")]


def bitvector_command(command: str, letter: str, which: str) -> str:
    """``command`` with compressed levels (``s``) of its ``-f`` formats made ``letter``."""
    def swap(m: re.Match) -> str:
        name, letters, rest = m.group(1), m.group(2), m.group(3) or ""
        if which == "last":
            new = letters[:-1] + (letter if letters[-1] == "s" else letters[-1])
        else:
            new = "".join(letter if c == "s" else c for c in letters)
        if not rest and len(letters) > 0:
            rest = ":" + ",".join(str(k) for k in range(len(letters)))
        return f"-f={name}:{new}{rest}"

    return re.sub(r"-f=(\w+):([a-z]+)((?::[0-9,]+)?)", swap, command)


def test_bitvector_command() -> None:
    assert bitvector_command("x(i)=b(i) -f=x:s -f=B:ss:1,0", "b4", "all") == \
        "x(i)=b(i) -f=x:b4:0 -f=B:b4b4:1,0"
    assert bitvector_command("X -f=X:ds", "b", "last") == "X -f=X:db:0,1"


@pytest.mark.parametrize("engine", ["reference", "fast"])
@pytest.mark.parametrize("letter, which", VARIANTS)
@pytest.mark.parametrize("name", sorted(SUITE))
def test_suite_kernel_with_bitvector_levels(name: str, letter: str, which: str,
                                            engine: str) -> None:
    command = bitvector_command(SUITE[name], letter, which)
    compiled = graph_from_command_line(command)
    graphs = [compiled] if isinstance(compiled, Graph) else list(compiled.phases)
    graphs = [getattr(g, "graph", g) for g in graphs]
    text = dumps_all(graphs)
    assign = parse_expression(shlex.split(SUITE[name])[0])
    inputs = {a.name for a in assign.rhs.accesses()}
    if any(re.search(rf"-f={t}:[a-z0-9]*b", command) for t in inputs):
        assert any(b.dot_type.startswith("bv") for g in graphs for b in g.blocks.values()), \
            "no bitvector block in a graph with bitvector levels"
    graphs = loads_all(text)
    rng = np.random.default_rng(zlib.crc32(f"{name}{letter}{which}".encode()))
    values = operands(assign, None, rng, free=9)
    bound = {k: (Tensor.from_scipy(v) if sp.issparse(v) else
                 Tensor.scalar(v) if np.ndim(v) == 0 else Tensor.from_dense(v))
             for k, v in values.items()}
    result = run_program(graphs, bound, engine=engine)
    got = result.outputs[assign.lhs.name]
    np.testing.assert_allclose(got.to_dense(), expected(assign, values), rtol=1e-9, atol=1e-9,
                               err_msg=f"{name} with {command!r} differs from numpy")


@pytest.mark.parametrize("engine", ["reference", "fast"])
@pytest.mark.parametrize("name, letter", [("mat_elemmul", "b16"), ("mat_elemadd", "b"),
                                          ("mat_vecmul_ij", "b16"), ("matmul_ikj", "b")])
def test_real_matrix_with_bitvector_levels(name: str, letter: str, engine: str) -> None:
    """A shipped SuiteSparse matrix (west0479) through bitvector levels equals scipy."""
    from formats.io import load_tensor

    b = load_tensor("west0479", "ss").to_scipy().tocsr()
    c = b.T.tocsr() * 0.5
    vec = np.linspace(-1, 1, b.shape[1])
    command = bitvector_command(SUITE[name], letter, "last")
    graph = graph_from_command_line(command)
    tensors = {"B": Tensor.from_scipy(b), "C": Tensor.from_scipy(c), "c": Tensor.from_dense(vec)}
    assign = parse_expression(shlex.split(SUITE[name])[0])
    names = {a.name for a in assign.rhs.accesses()}
    result = run_program([graph], {k: v for k, v in tensors.items() if k in names},
                         engine=engine)
    want = {"mat_elemmul": lambda: b.multiply(c).toarray(),
            "mat_elemadd": lambda: (b + c).toarray(),
            "mat_vecmul_ij": lambda: b @ vec,
            "matmul_ikj": lambda: (b @ c).toarray()}[name]()
    np.testing.assert_allclose(result.outputs[assign.lhs.name].to_dense(), want, rtol=1e-12,
                               atol=1e-12)
