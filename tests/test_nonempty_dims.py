"""``custard compile --nonempty-dims`` (``compile(nonempty_dims=True)``): Custard assumes no
dimension has size 0, as the original Custard does, so no coordinate dropper guards a dense
level. Every suite kernel compiled so still equals the gold result on both engines, never has
more droppers than the default graph, and sam's binder refuses an operand with a dimension of
size 0 in one line (the simulator refuses it)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import custard
from custard.cli import graph_from_command_line
from formats import Tensor
from formats.format import Format
from sam.bind import bind_tensors
from sam.check import compare, expected
from sam.errors import GraphError
from sam.graph.implicit import NONEMPTY_DIMS, index_sizes
from sam.sim.engine import simulate

from helpers.roundtrip import load_script, through_dot

ROOT = Path(__file__).resolve().parents[1]
SUITE = [line.split("\t") for line in
         (ROOT / "dot_graphs" / "kernel-suite.tsv").read_text().splitlines() if line.strip()]
record_counts = load_script("record_counts")


def droppers(graph) -> int:
    return sum(b.dot_type == "crddrop" for b in graph.blocks.values())


@pytest.mark.parametrize("k, name, line", [(k, n, line) for k, (n, line) in enumerate(SUITE)
                                           if "WRONG" not in n], ids=lambda x: str(x))
def test_suite_kernel_assuming_nonempty_dims(k, name, line):
    default = graph_from_command_line(line)
    graph = through_dot(graph_from_command_line(line + " --nonempty-dims"))
    assert graph.attrs[NONEMPTY_DIMS] == "true"
    assert droppers(graph) <= droppers(default)
    tensors = bind_tensors(graph, record_counts._specs(graph, 0.4, 7 + k))
    gold = expected(graph.attrs["expression"], tensors, index_sizes(graph), graph.formats)
    out = next(b.tensor for b in graph.blocks.values() if b.family == "write")
    engines = ("reference", "fast") if k % 3 == 0 else ("fast",)
    for engine in engines:
        for fifo in (None, 1 + k % 4):
            res = simulate(graph, tensors, engine=engine, fifo_depth=fifo)
            assert compare(res.outputs[out], gold).passed, (engine, fifo)


def test_sddmm_has_no_dropper_and_equals_numpy():
    """The located SDDMM of Figure 11 keeps no dropper (the default keeps one between j and k
    and one above i,j), and its result equals numpy's on random operands, both engines."""
    expr, fmts = "X(i,j)=B(i,j)*C(i,k)*D(j,k)", {"X": "ss", "B": "ss", "C": "dd", "D": "dd"}
    assert droppers(custard.compile(expr, fmts, "ijk")) == 2
    graph = through_dot(custard.compile(expr, fmts, "ijk", nonempty_dims=True))
    assert droppers(graph) == 0
    rng = np.random.default_rng(3)
    b = (rng.random((9, 7)) < 0.3) * rng.random((9, 7))
    c, d = rng.random((9, 2)), rng.random((7, 2))
    tensors = {"B": Tensor.from_dense(b, Format.parse("ss"), name="B"),
               "C": Tensor.from_dense(c, Format.parse("dd"), name="C"),
               "D": Tensor.from_dense(d, Format.parse("dd"), name="D")}
    for engine in ("reference", "fast"):
        res = simulate(graph, tensors, engine=engine)
        assert np.allclose(res.outputs["X"].to_dense(), b * (c @ d.T))


def test_a_dimension_of_size_zero_is_refused():
    graph = custard.compile("X(m,i) = B(l,k) * D(m,i) * E(l,k,m)",
                            {"B": "ss:1,0", "D": "dd", "E": "sss:1,2,0", "X": "ss"}, "kmli",
                            nonempty_dims=True)
    tensors = {"B": Tensor.from_dense(np.ones((1, 1)), Format.parse("ss:1,0"), name="B"),
               "D": Tensor.from_dense(np.ones((2, 0)), Format.parse("dd"), name="D"),
               "E": Tensor.from_dense(np.ones((1, 1, 2)), Format.parse("sss:1,2,0"), name="E")}
    with pytest.raises(GraphError, match=r"tensor D has a dimension of size 0 \(shape 2x0\)"
                       ".*compile it without that option"):
        simulate(graph, tensors)
    # the default graph runs it (and the regression test checks its values)
    res = simulate(custard.compile("X(m,i) = B(l,k) * D(m,i) * E(l,k,m)",
                                   {"B": "ss:1,0", "D": "dd", "E": "sss:1,2,0", "X": "ss"},
                                   "kmli"), tensors)
    assert res.outputs["X"].nnz == 0
