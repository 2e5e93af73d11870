"""Every kernel of the suite (``dot_graphs/kernel-suite.tsv``) with ``split(v,v0,v1,4)`` on each
of its index variables, stored and online (SAM paper Sec. 4.1; :mod:`custard.splitting`), gives
numpy's result on both engines, through DOT text; where the split is not legal the compiler
refuses it in one line. The split variable sits at any level (outer, middle, last) of the
tensors it indexes; a reduced variable (SpMV's j, matmul's k) is split as well."""

from __future__ import annotations

import shlex
import zlib

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from custard.cli import graph_from_command_line
from custard.parser import parse_format_option
from formats.tensor import Tensor
from sam.errors import CompileError
from sam.graph.dot import dumps_all, loads_all
from sam.graph.model import Graph
from sam.notation.parse import parse_expression
from sam.program import run_program

from helpers.kernel_suite import SUITE, expected, operands

#: Size of every index variable and the split factor (three chunks, the last one short).
SIZE, FACTOR = 9, 4
#: (kernel, variable) pairs whose split is refused, and why (the error's words): none since
#: splits work at every level position (``test_refusals_are_one_line`` covers refusals).
REFUSED: dict[tuple[str, str], str] = {}


def _cases() -> list[tuple[str, str]]:
    out = []
    for name, line in sorted(SUITE.items()):
        assign = parse_expression(shlex.split(line)[0])
        seen: list[str] = []
        for acc in [assign.lhs, *assign.rhs.accesses()]:
            seen += [v for v in acc.indices if v not in seen]
        out += [(name, v) for v in seen]
    return out


CASES = _cases()


def _bind(values: dict) -> dict[str, Tensor]:
    return {k: (Tensor.from_scipy(v) if sp.issparse(v) else
                Tensor.scalar(v) if np.ndim(v) == 0 else Tensor.from_dense(v))
            for k, v in values.items()}


@pytest.mark.parametrize("mode", ["stored", "online"])
@pytest.mark.parametrize("name, var", CASES)
def test_suite_kernel_split(name: str, var: str, mode: str) -> None:
    line = (f"{SUITE[name]} -s=split({var},{var}0,{var}1,{FACTOR}) -d={var}:{SIZE} "
            f"--split-mode {mode}")
    if (name, var) in REFUSED:
        with pytest.raises(CompileError, match=REFUSED[(name, var)]) as err:
            graph_from_command_line(line)
        assert "\n" not in str(err.value)
        return
    compiled = graph_from_command_line(line)
    graphs = [compiled] if isinstance(compiled, Graph) else [p.graph for p in compiled.phases]
    types = {b.dot_type for g in graphs for b in g.blocks.values()}
    assert "split" in types and (mode == "stored") == (len(graphs) > 1)
    lhs = parse_expression(shlex.split(SUITE[name])[0]).lhs
    compute = {b.dot_type for b in graphs[-1].blocks.values()}
    assert ("flatten" in compute) == (var in lhs.indices)
    given = [parse_format_option(w)[1] for w in shlex.split(SUITE[name])
             if w.startswith(f"-f={lhs.name}:")]
    if var in lhs.indices and given and given[0].mode_order[-1] != lhs.indices.index(var):
        # var above the result's last level: the levels below lose a level of nesting
        assert "flattenstops" in compute
    graphs = loads_all(dumps_all(graphs))
    assign = parse_expression(shlex.split(SUITE[name])[0])
    rng = np.random.default_rng(zlib.crc32(f"{name}{var}".encode()))
    values = operands(assign, None, rng, free=SIZE)
    want = expected(assign, values)
    for engine in ("reference", "fast"):
        result = run_program(graphs, _bind(values), engine=engine)
        got = result.outputs[assign.lhs.name]
        np.testing.assert_allclose(got.to_dense(), want, rtol=1e-9, atol=1e-9,
                                   err_msg=f"{line!r} on the {engine} engine differs from numpy")


def test_stop_flattener_tokens() -> None:
    """``flattenstops`` with depth d lowers ``Sk`` to ``S(k-1)`` for k >= d (one cycle per token):
    the j stream of ``X(i0,i1,j)`` with i0 = {0, 1}, i1 = {0, 1} in chunk 0 and {0} in chunk 1
    becomes the j stream of ``X(i,j)``."""
    from sam.blocks.splits import StopFlattener

    from helpers.streamtrees import same_on_both_engines

    out = same_on_both_engines(lambda: StopFlattener("0", {"depth": "1"}),
                               {"crd": "3, S0, 1, 4, S1, 2, S2, D"})
    assert out["crd"] == "3, S0, 1, 4, S0, 2, S1, D"
    out = same_on_both_engines(lambda: StopFlattener("0", {"depth": "2"}),
                               {"crd": "3, S0, 1, S1, 4, S2, 2, S3, D"})
    assert out["crd"] == "3, S0, 1, S1, 4, S1, 2, S2, D"


def test_refusals_are_one_line() -> None:
    """Splits that cannot be done are refused in one line, naming what to change."""
    bad = {
        "x(i)=B(i,j)*c(j) -s=split(k,k0,k1,4) -d=k:9 --split-mode stored": "k is not an index",
        "x(i)=B(i,j)*c(j) -s=split(i,i0,i1,4) --split-mode online": "needs its size",
        "x(i)=B(i,j)*c(j) -s=split(i,i0,i1,4) -s=reorder(i0,j,i1) -d=i:9 --split-mode online":
            "directly before",
        "x(i)=B(i,j)*c(j) -s=split(i,i0,i1,0) -d=i:9 --split-mode stored": "positive integer",
    }
    for line, words in bad.items():
        with pytest.raises(CompileError, match=words) as err:
            graph_from_command_line(line)
        assert "\n" not in str(err.value)


@pytest.mark.parametrize("engine", ["reference", "fast"])
@pytest.mark.parametrize("mode", ["stored", "online"])
def test_real_matrix_split_at_every_level(mode: str, engine: str) -> None:
    """west0479 (479 x 479; its 96 x 96 corner on the reference engine), s = 32: SpMV split on
    i (B's outer level) and on j (the reduced inner one), the element-wise product split on i
    (the outer level of B, C and X) and matmul split on k (B's inner, C's outer level) equal
    scipy."""
    from formats.io import load_tensor

    b = load_tensor("west0479", "ss").to_scipy().tocsr()
    if engine == "reference":  # the pure-Python engine: its top-left corner (whole: minutes)
        b = b[:96, :96].tocsr()
    n = b.shape[0]
    c = (b.T * 0.5).tocsr()
    vec = np.linspace(-1.0, 1.0, b.shape[1])
    tensors = {"B": Tensor.from_scipy(b), "C": Tensor.from_scipy(c), "c": Tensor.from_dense(vec)}
    cases = [("x(i)=B(i,j)*c(j) -f=x:s -f=B:ss -f=c:s", "i", lambda: b @ vec),
             ("x(i)=B(i,j)*c(j) -f=x:s -f=B:ss -f=c:s", "j", lambda: b @ vec),
             ("X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss", "i",
              lambda: b.multiply(c).toarray()),
             ("X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j)", "k",
              lambda: (b @ c).toarray())]
    for line, var, want in cases:
        compiled = graph_from_command_line(
            f"{line} -s=split({var},{var}0,{var}1,32) -d={var}:{n} --split-mode {mode}")
        assign = parse_expression(line.split()[0])
        names = {a.name for a in assign.rhs.accesses()}
        res = run_program(compiled if mode == "stored" else [compiled],
                          {k: v for k, v in tensors.items() if k in names}, engine=engine)
        np.testing.assert_allclose(res.outputs[assign.lhs.name].to_dense(), want(),
                                   rtol=1e-12, atol=1e-12, err_msg=f"{line} split on {var}")


OUTER_CASES = [
    # i at the outer level of B, C and X (stored i-major: mode order 1,0)
    ("X(j,i)=B(j,i)*C(j,i)", {"X": "ss:1,0", "B": "ss:1,0", "C": "sb3:1,0"}, "i,j",
     lambda a: a["B"] * a["C"]),
    ("X(j,i)=B(j,i)+C(j,i)", {"X": "ss:1,0", "B": "ds:1,0", "C": "ss:1,0"}, "i,j",
     lambda a: a["B"] + a["C"]),
    # i reduced, at B's last level
    ("x(j)=B(j,i)*c(i)", {"x": "s", "B": "ss", "c": "s"}, "j,i", lambda a: a["B"] @ a["c"]),
    # i the result's only index, B's outer level
    ("x(i)=B(j,i)*c(i)", {"x": "s", "B": "ss:1,0", "c": "b4"}, "i,j",
     lambda a: (a["B"] * a["c"]).sum(0)),
]


@pytest.mark.parametrize("mode", ["stored", "online"])
@pytest.mark.parametrize("expr, fmts, order, want", OUTER_CASES)
@settings(max_examples=6, deadline=None)
@given(n=st.integers(1, 30), s=st.integers(1, 9), seed=st.integers(0, 99))
def test_split_outer_and_reduced_levels_random(expr, fmts, order, want, mode, n, s,
                                               seed) -> None:
    """Random sizes, factors and operands: a split of i at an outer or reduced level equals
    numpy on both engines."""
    from custard.splitting import SUFFIX, compile_split

    rng = np.random.default_rng(seed)

    def sparse(*shape: int) -> np.ndarray:
        return np.where(rng.random(shape) < 0.3, rng.integers(1, 9, shape), 0).astype(float)

    arrays = {"B": sparse(4, n), "C": sparse(4, n), "c": sparse(n)}
    compiled = compile_split(expr, fmts, order, ("i", "i0", "i1", s), dims={"i": n}, mode=mode)
    graphs = loads_all(dumps_all([compiled] if mode == "online" else
                                 [p.graph for p in compiled.phases]))
    names = {t for g in graphs for t in g.formats if not t.endswith(SUFFIX)}
    result = expr.split("(")[0]
    tensors = {k: Tensor.from_dense(v, fmts[k]) for k, v in arrays.items()
               if k in names and k != result}
    for engine in ("reference", "fast"):
        res = run_program(graphs, tensors, engine=engine)
        np.testing.assert_array_equal(res.outputs[result].to_dense(), want(arrays))
