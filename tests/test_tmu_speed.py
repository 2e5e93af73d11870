"""The TMU and execute kernels' fast paths (docs/performance.md, "Features at full speed"):
the execute block counts its queues' occupancy from a forward cursor instead of a binary
search, and the TMU kernel's per-token helpers are inlined. Same outputs, tokens, cycles and
statistics as before: the cursor's count equals the binary search's at every call, and both
engines agree on every block's statistics, on random and shipped inputs.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sam.blocks.execute as ex
from formats.io import load_tensor
from formats.synthetic import random_tensor
from formats.tensor import Tensor
from sam.sim.engine import FastPaths, simulate
from sam.tmu_ops import build_op, reference


def sls_inputs(seed: int, rows: int, cols: int, dim: int, density: float):
    A = random_tensor((rows, cols), density, seed).with_format("ds")
    table = np.round(np.random.default_rng(seed).uniform(-1, 1, (cols, dim)), 6)
    return A, table


def check_against_binary_search(monkeypatch) -> list[int]:
    """Make the Python execute kernel check every cursor count against :func:`ex.occupancy`;
    returns the list the counts are appended to."""
    seen: list[int] = []
    cursor = ex.occupancy_at

    def checked(w, c, t, state, cur, cur_t):
        want = ex.occupancy(w, c, t)
        got = cursor(w, c, t, state, cur, cur_t)
        assert got == want, (c, t, got, want)
        seen.append(got)
        return got

    monkeypatch.setattr(ex, "occupancy_at", checked)
    return seen


@pytest.mark.parametrize("op,lanes,fifo", [("sls", 1, None), ("spmm", 4, None),
                                           ("sls", 2, 3), ("spmm", 1, 5)])
def test_cursor_occupancy_equals_binary_search(monkeypatch, op, lanes, fifo):
    A, table = sls_inputs(3, 30, 40, 6, 0.2)
    graph, tensors = build_op(op, A, Tensor.from_dense(table, "dd"), lanes=lanes)
    seen = check_against_binary_search(monkeypatch)
    # the interpreter's steps only (the scalar loop's counts equal the interpreter's:
    # tests/test_execute_fast.py)
    res = simulate(graph, tensors, engine="reference", fifo_depth=fifo,
                   paths=FastPaths(execute_fast=False))
    assert seen and max(seen) > (1 if fifo is None else 0)
    want = reference(op, A.to_scipy(), table)
    np.testing.assert_allclose(res.outputs["Z"].to_dense(), want, rtol=1e-12, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), rows=st.integers(1, 12), cols=st.integers(1, 12),
       dim=st.integers(1, 9), density=st.floats(0.0, 0.9), lanes=st.integers(1, 4),
       fifo=st.sampled_from([None, 4, 7]), op=st.sampled_from(["sls", "spmm"]))
def test_engines_agree_on_random_tmu_graphs(seed, rows, cols, dim, density, lanes, fifo, op):
    A, table = sls_inputs(seed, rows, cols, dim, density)
    graph, tensors = build_op(op, A, Tensor.from_dense(table, "dd"), lanes=lanes)
    ref = simulate(graph, tensors, engine="reference", fifo_depth=fifo)
    fast = simulate(graph, tensors, engine="fast", fifo_depth=fifo)
    assert (fast.tokens, fast.cycles) == (ref.tokens, ref.cycles)
    for bid, stats in ref.blocks.items():
        assert fast.blocks[bid] == stats, bid
    want = reference(op, A.to_scipy(), table)
    for res in (ref, fast):
        np.testing.assert_allclose(res.outputs["Z"].to_dense(), want, rtol=1e-12, atol=1e-12)


def test_west0479_sls_deep_queues_engines_agree():
    """A shipped matrix: the TMU runs thousands of tokens ahead of the execute block (the
    cursor's case), both engines give scipy's result and the same statistics."""
    A_csr = load_tensor("west0479", "ds").to_scipy().tocsr()
    A = Tensor.from_scipy(A_csr, "ds")
    table = np.round(np.random.default_rng(479).uniform(-1, 1, (479, 16)), 6)
    graph, tensors = build_op("sls", A, Tensor.from_dense(table, "dd"))
    ref = simulate(graph, tensors, engine="reference")
    fast = simulate(graph, tensors, engine="fast")
    assert (fast.tokens, fast.cycles) == (ref.tokens, ref.cycles)
    assert fast.blocks == ref.blocks
    assert ref.blocks["1"].details["queue.data.max_occupancy"] > 1000
    want = reference("sls", A_csr, table)
    np.testing.assert_allclose(fast.outputs["Z"].to_dense(), want, rtol=1e-12, atol=1e-12)
