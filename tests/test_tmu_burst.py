"""The TMU kernel's burst path (``sam.blocks.tmu.burst_inner``, docs/performance.md, "TMU burst
path"): with unbounded queues the ``ite`` events of the innermost layer run in one tight loop.
Burst on and off (``FastPaths(tmu_burst=...)``, a simulation option) give the same tokens,
arrival cycles, cycles and statistics on both engines, and numpy's results.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import sam.graph.registry  # noqa: F401
from formats import Tensor
from formats.io import load_tensor
from sam.errors import SimulationError
from sam.runtime.tokens import DATA
from sam.sim.engine import FastPaths, simulate
from sam.tmu_ops import OPS, build_op, reference, sls_config

from helpers.tmu_queues import raw_queues


def inputs(op: str, seed: int, rows: int, cols: int, dim: int, density: float, blk: int):
    rng = np.random.default_rng(seed)
    A = sp.random(rows, cols, density=density, format="csr", random_state=rng)
    A.data = np.round(rng.uniform(-2, 2, A.nnz), 3)
    B = np.round(rng.uniform(-3, 3, (cols * (blk if op == "gather" else 1), dim)), 3)
    X = np.round(rng.uniform(-3, 3, (rows, dim)), 3)
    if op == "kg":  # triples: head = row, tail = column, relation = value (a row of X)
        A.data = rng.integers(0, rows, A.nnz).astype(float)
        B = np.round(rng.uniform(-3, 3, (max(rows, cols), dim)), 3)
    return A, B, X


def run(op, A, B, X, engine, blk, lanes, fifo, burst):
    graph, tensors = build_op(op, Tensor.from_scipy(A, "ds"), Tensor.from_dense(B, "dd"),
                              Tensor.from_dense(X, "dd") if op in ("mp", "kg") else None,
                              lanes=lanes, blk=blk)
    return simulate(graph, tensors, engine=engine, fifo_depth=fifo,
                    paths=FastPaths(tmu_burst=burst))


def assert_same(a, b) -> None:
    assert (a.tokens, a.cycles) == (b.tokens, b.cycles)
    assert a.blocks == b.blocks
    np.testing.assert_array_equal(a.outputs["Z"].to_dense(), b.outputs["Z"].to_dense())


@settings(max_examples=30, deadline=None)
@given(op=st.sampled_from(OPS), seed=st.integers(0, 2**31), rows=st.integers(1, 8),
       cols=st.integers(1, 8), dim=st.integers(1, 6), density=st.floats(0.0, 0.9),
       blk=st.integers(1, 3), lanes=st.integers(1, 4), fifo=st.sampled_from([None, None, 6]))
def test_burst_on_off_and_engines_identical(op, seed, rows, cols, dim, density,
                                             blk, lanes, fifo):
    # (a bounded FIFO is at least as deep as the widest vector token, dim lanes: a shallower
    # one is a user error, test_shallow_fifo_is_one_clear_error)
    lanes = 1 if op == "mp" else lanes
    A, B, X = inputs(op, seed, rows, cols, dim, density, blk)
    off = run(op, A, B, X, "reference", blk, lanes, fifo, False)
    on = run(op, A, B, X, "reference", blk, lanes, fifo, True)
    fast = run(op, A, B, X, "fast", blk, lanes, fifo, True)
    assert_same(on, off)
    assert_same(fast, off)
    np.testing.assert_allclose(off.outputs["Z"].to_dense(), reference(op, A, B, X, blk=blk),
                               rtol=1e-12, atol=1e-12)


def test_shallow_fifo_is_one_clear_error():
    """A vector token of 6 lanes cannot enter a FIFO 5 deep: one error line saying what to
    raise, from either engine."""
    A, B, X = inputs("mp", 0, 1, 1, 6, 0.75, 1)
    for engine in ("reference", "fast"):
        with pytest.raises(SimulationError, match="more lanes than the data queue's FIFO "
                                                  "depth; raise --fifo-depth"):
            run("mp", A, B, X, engine, 1, 1, 5, True)


@pytest.mark.parametrize("lanes", [1, 3])
def test_small_rings_and_west0479_same_tokens_and_times(lanes):
    """A shipped matrix on 16-slot rings: bursts stop at full rings and resume; every token,
    arrival cycle, the clock and the statistics equal the per-element path's."""
    A = load_tensor("west0479", "ds").to_scipy().tocsr()[:60]
    tab = np.round(np.random.default_rng(7).uniform(-1, 1, (479, 5)), 6)
    tensors = {"A": Tensor.from_scipy(A, "ds"), "B": Tensor.from_dense(tab, "dd")}
    cfg = sls_config("dae", lanes=lanes)
    q_off, s_off, w_off, calls = raw_queues(cfg, tensors, 16, False)
    q_on, s_on, w_on, _ = raw_queues(cfg, tensors, 16, True)
    assert calls > 10  # the rings filled up many times
    for a, b in zip(q_on, q_off, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(s_on, s_off)
    np.testing.assert_array_equal(w_on, w_off)
    # the data queue holds b, e, v per element: the v column sums to numpy's SLS
    vals = q_on[1][1].astype(np.int64).view(np.float64)
    kinds = q_on[1][0]
    if lanes == 1:
        ents = vals[kinds == DATA].reshape(-1, 3)
        Z = np.zeros((60, 5))
        np.add.at(Z, (ents[:, 0].astype(int), ents[:, 1].astype(int)), ents[:, 2])
        pattern = A.copy()
        pattern.data[:] = 1.0  # SLS sums the table rows over A's pattern
        np.testing.assert_allclose(Z, pattern @ tab, rtol=1e-12, atol=1e-12)
