"""The TMU's chunked burst (``sam.blocks.tmu.chunk_steps`` and the column pushes of
``burst_inner``): the innermost layer's streams computed up to ``CHUNK`` steps at a time and its
queue tokens written a rule at a time. Against the per-element path
(``FastPaths(tmu_burst=False)``) and the compiled kernel: the same tokens, arrival cycles,
statistics, results (numpy) and errors, across fibers longer than a chunk, memory latencies,
same-layer ALU chains, forwarded streams and loads that leave the table mid-fiber.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import sam.graph.registry  # noqa: F401
from formats import Tensor
from sam.blocks.tmu_config import (
    Alu,
    DenseTU,
    Fwd,
    Layer,
    Mem,
    Operand,
    RangeTU,
    TmuConfig,
    Token,
)
from sam.errors import SimulationError
from sam.graph.dot import dumps, loads
from sam.sim.engine import FastPaths, simulate
from sam.tmu_ops import _segments, tmu_graph

from helpers.tmu_queues import raw_queues

PROGRAM = "ite: b = pop; e = pop; v = pop; out[b, e] += v"


def config(latency: int, scale: int, shift: int) -> TmuConfig:
    """SLS with the row forwarded into the element layer (``be``), the table load of
    ``latency`` cycles at ``row + e + shift`` and the value scaled in the element layer (``x``,
    an ALU reading the load computed before it)."""
    streams = _segments([
        Mem("idx", "s", array="A.1.crd", index="s"),
        Alu("row", "s", "*", "idx", "B.dim1"),
        Alu("pos0", "e", "+", "row", "e"),
        Alu("pos", "e", "+", "pos0", shift),
        Mem("v", "e", array="B.vals", index="pos", latency=latency),
        Alu("x", "e", "*", "v", scale),
        Fwd("bs", "s", "b"),
        Fwd("be", "e", "bs"),
    ])
    return TmuConfig(
        layers=[Layer("single", [DenseTU("b", 0, "A.dim0")]),
                Layer("single", [RangeTU("s", "beg", "end")]),
                Layer("single", [DenseTU("e", 0, "B.dim1")])],
        streams=streams,
        operands=[Operand("be", "e", "ite"), Operand("e", "e", "ite"), Operand("x", "e", "ite")],
        tokens=[Token("ite", "e", "ite")], mode="dae")


def run(graph, tensors, engine: str, burst: bool):
    try:
        return simulate(graph, tensors, engine=engine, paths=FastPaths(tmu_burst=burst))
    except SimulationError as err:
        return str(err)


def three_ways(graph, tensors):
    off = run(graph, tensors, "reference", False)
    on = run(graph, tensors, "reference", True)
    fast = run(graph, tensors, "fast", True)
    for res in (on, fast):
        if isinstance(off, str):
            assert res == off
            continue
        assert (res.tokens, res.cycles) == (off.tokens, off.cycles)
        assert res.blocks == off.blocks
        np.testing.assert_array_equal(res.outputs["Z"].to_dense(), off.outputs["Z"].to_dense())
    return off


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), rows=st.integers(1, 5), cols=st.integers(1, 5),
       dim=st.sampled_from([1, 3, 255, 256, 257, 600]), density=st.floats(0.2, 0.9),
       latency=st.integers(1, 4), scale=st.integers(-2, 3))
def test_chunks_equal_the_per_element_path_and_numpy(seed, rows, cols, dim,
                                                     density, latency, scale):
    rng = np.random.default_rng(seed)
    A = sp.random(rows, cols, density=density, format="csr", random_state=rng)
    B = np.round(rng.uniform(-3, 3, (cols, dim)), 3)
    graph = tmu_graph(config(latency, scale, 0), out="Z", shape=(rows, dim), program=PROGRAM)
    tensors = {"A": Tensor.from_scipy(A, "ds"), "B": Tensor.from_dense(B, "dd")}
    res = three_ways(graph, tensors)
    # the graph as users get it (DOT text and back) runs the same
    again = simulate(loads(dumps(graph)), tensors, engine="fast")
    assert (again.tokens, again.cycles, again.blocks) == (res.tokens, res.cycles, res.blocks)
    np.testing.assert_array_equal(again.outputs["Z"].to_dense(), res.outputs["Z"].to_dense())
    # every queue token's kind, payload and arrival cycle (the execute block, slower, hides
    # arrivals), on rings of 64 slots (chunks cut by full rings) and large ones
    cfg = config(latency, scale, 0)
    for ring in (64, 1 << 16):
        q_off, s_off, w_off, _ = raw_queues(cfg, tensors, ring, False)
        q_on, s_on, w_on, _ = raw_queues(cfg, tensors, ring, True)
        for a, b in zip(q_on, q_off, strict=True):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(s_on, s_off)
        np.testing.assert_array_equal(w_on, w_off)
    pattern = A.copy()
    pattern.data[:] = 1.0
    np.testing.assert_allclose(res.outputs["Z"].to_dense(), scale * (pattern @ B), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("shift", [1, 7, 300])
def test_a_load_past_the_table_mid_fiber_is_the_same_error(shift):
    """The last row's loads leave the table ``shift`` elements before its fiber ends (inside
    the first chunk, or in a later one): the same one-line error at the same cycle."""
    dim = 400
    A = sp.csr_matrix(np.eye(3))
    B = np.arange(3 * dim, dtype=float).reshape(3, dim)
    graph = tmu_graph(config(2, 1, shift), out="Z", shape=(3, dim), program=PROGRAM)
    tensors = {"A": Tensor.from_scipy(A, "ds"), "B": Tensor.from_dense(B, "dd")}
    err = three_ways(graph, tensors)
    assert isinstance(err, str)
    assert "mem stream v reads B.vals at an index outside the array" in err
    assert "\n" not in err
