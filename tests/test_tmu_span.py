"""The TMU's chunks that span fibers (``sam.blocks.tmu.burst_inner``: the innermost layer's
next fiber begun inside a chunk): an outer layer's load that fails at such a crossing is the
same error, at the same cycle, on the per-element path, the burst and the compiled kernel; and
rows of many short fibers (empty ones among them) give the same tokens, cycles and statistics.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import sam.graph.registry  # noqa: F401
from formats import Tensor
from sam.blocks.tmu_config import Alu, DenseTU, Layer, Mem, Operand, RangeTU, TmuConfig, Token
from sam.errors import SimulationError
from sam.sim.engine import FastPaths, simulate
from sam.tmu_ops import _segments, tmu_graph

PROGRAM = "ite: b = pop; e = pop; v = pop; out[b, e] += v"


def config(far: int) -> TmuConfig:
    """SLS plus a segment-layer load at ``idx * far`` of ``A.vals`` (out of range for a large
    ``far`` once ``idx`` > 0: at the crossing into that fiber)."""
    streams = _segments([
        Mem("idx", "s", array="A.1.crd", index="s"),
        Alu("row", "s", "*", "idx", "B.dim1"),
        Alu("far", "s", "*", "idx", far),
        Mem("w", "s", array="A.vals", index="far"),
        Alu("pos", "e", "+", "row", "e"),
        Mem("v", "e", array="B.vals", index="pos"),
    ])
    return TmuConfig(
        layers=[Layer("single", [DenseTU("b", 0, "A.dim0")]),
                Layer("single", [RangeTU("s", "beg", "end")]),
                Layer("single", [DenseTU("e", 0, "B.dim1")])],
        streams=streams,
        operands=[Operand("b", "e", "ite"), Operand("e", "e", "ite"), Operand("v", "e", "ite")],
        tokens=[Token("ite", "e", "ite")], mode="dae")


def run(graph, tensors, engine: str, burst: bool):
    try:
        return simulate(graph, tensors, engine=engine, paths=FastPaths(tmu_burst=burst))
    except SimulationError as err:
        return str(err)


def three_ways(graph, tensors):
    off = run(graph, tensors, "reference", False)
    for res in (run(graph, tensors, "reference", True), run(graph, tensors, "fast", True)):
        if isinstance(off, str):
            assert res == off
            continue
        assert not isinstance(res, str), res
        assert (res.tokens, res.cycles) == (off.tokens, off.cycles)
        assert res.blocks == off.blocks
        np.testing.assert_array_equal(res.outputs["Z"].to_dense(), off.outputs["Z"].to_dense())
    return off


@pytest.mark.parametrize("dim", [1, 5, 40])
def test_a_load_failing_at_a_crossing_is_the_same_error(dim):
    A = sp.csr_matrix(np.ones((2, 4)))
    B = np.arange(4 * dim, dtype=float).reshape(4, dim)
    graph = tmu_graph(config(1000), out="Z", shape=(2, dim), program=PROGRAM)
    err = three_ways(graph, {"A": Tensor.from_scipy(A, "ds"), "B": Tensor.from_dense(B, "dd")})
    assert isinstance(err, str)
    assert "mem stream w reads A.vals at an index outside the array" in err


@pytest.mark.parametrize(("dim", "seed"), [(0, 1), (1, 2), (3, 3), (90, 4)])
def test_many_short_fibers_same_on_every_path(dim, seed):
    rng = np.random.default_rng(seed)
    A = sp.random(30, 40, density=0.5, format="csr", random_state=rng)
    B = np.round(rng.uniform(-3, 3, (40, dim)), 3)
    graph = tmu_graph(config(0), out="Z", shape=(30, max(dim, 1)), program=PROGRAM)
    tensors = {"A": Tensor.from_scipy(A, "ds"), "B": Tensor.from_dense(B, "dd")}
    res = three_ways(graph, tensors)
    if dim:
        np.testing.assert_allclose(res.outputs["Z"].to_dense(), (A != 0).astype(float) @ B,
                                   rtol=1e-12, atol=1e-12)
