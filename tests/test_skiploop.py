"""Coordinate skipping's cycle in one loop (``sam.blocks.skiploop``) against the kernel calls.

The fast engine runs a skipping intersecter and its two scanners in one compiled loop; with
the loop off, the compiled driver calls their kernels round by round. Both must give the same
tokens (kind, payload, arrival, pop cycle), cycles and statistics, and numpy's result.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import custard
from formats.io import load_tensor
from formats.synthetic import random_tensor
from sam.blocks.skipping import first_at_least, rank_index, rank_start
from sam.sim.engine import FastPaths, Simulation

TTV = "X(i,j)=B(i,j,k)*c(k)"


def _run(graph, tensors, depth, capacity, fused, timing="sam"):
    sim = Simulation(graph, tensors, fifo_depth=depth, capacity=capacity, timing=timing,
                     paths=FastPaths(skip_loop=fused))
    result = sim.run("fast")
    assert sim._driver is not None
    return sim, result


def _same(graph, tensors, depth=None, capacity=1 << 14, timing="sam"):
    """Loop on and off: identical runs; whether the loop ran (a unit was fused)."""
    off, roff = _run(graph, tensors, depth, capacity, False, timing)
    on, ron = _run(graph, tensors, depth, capacity, True, timing)
    assert (ron.cycles, ron.tokens) == (roff.cycles, roff.tokens)
    assert ron.blocks == roff.blocks
    assert ron.streams == roff.streams
    for name in ("kind", "data", "time", "ptime", "head", "tail", "count", "horizon"):
        assert np.array_equal(getattr(on.wires, name), getattr(off.wires, name)), name
    fuse = on._drive_static[5]
    assert (off._drive_static[5] < 0).all()
    return ron, bool((fuse >= 0).any())


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_loop_matches_kernel_calls_on_random_ttv(data):
    ni, nj, nk = (data.draw(st.integers(1, 7)) for _ in range(3))
    seed = data.draw(st.integers(0, 2**20))
    B = random_tensor((ni, nj, nk), data.draw(st.sampled_from([0.05, 0.3, 0.9])), seed)
    c = random_tensor((nk,), data.draw(st.sampled_from([0.1, 0.5, 1.0])), seed + 1)
    depth = data.draw(st.sampled_from([None, 1, 2, 5]))
    capacity = data.draw(st.sampled_from([16, 1 << 14]))
    g = custard.compile(TTV, schedule="skip()")
    result, fused = _same(g, {"B": B, "c": c}, depth, capacity)
    assert fused
    want = np.einsum("ijk,k->ij", B.to_dense(), c.to_dense())
    np.testing.assert_allclose(result.outputs["X"].to_dense(), want)


@pytest.mark.parametrize("expr,order", [("x(i)=B(i,j)*c(j)", None),
                                        ("X(i,j)=B(i,k)*C(k,j)", "ikj"),
                                        ("X(i,j)=B(i,j)*C(i,j)", None)])
def test_loop_matches_kernel_calls_on_west0479(expr, order):
    B = load_tensor("west0479", "ds")
    sb = B.to_scipy()
    if expr.startswith("x(i)"):
        c = random_tensor((B.shape[1],), 0.3, 5)
        tensors, want = {"B": B, "c": c}, sb @ c.to_dense()
    else:
        tensors = {"B": B, "C": B}
        want = (sb @ sb if order else sb.multiply(sb)).toarray()
    g = custard.compile(expr, schedule="skip()", order=order)
    result, fused = _same(g, tensors, depth=2)
    assert fused
    np.testing.assert_allclose(next(iter(result.outputs.values())).to_dense(), want,
                               rtol=1e-12)


def test_lookahead_scanners_keep_the_kernel_calls(monkeypatch):
    """``--timing original``: scanners with lookahead are not fused (and agree anyway)."""
    B = random_tensor((5, 6, 40), 0.3, 2)
    c = random_tensor((40,), 0.5, 3)
    g = custard.compile(TTV, schedule="skip()")
    _, fused = _same(g, {"B": B, "c": c}, depth=2, timing="original")
    assert not fused


def test_no_skipping_no_loop(monkeypatch):
    B = random_tensor((5, 6, 40), 0.3, 2)
    c = random_tensor((40,), 0.5, 3)
    _, fused = _same(custard.compile(TTV), {"B": B, "c": c}, depth=2)
    assert not fused


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.integers(0, 60), max_size=30, unique=True), min_size=1, max_size=4),
       st.data())
def test_first_at_least_is_a_lower_bound_search(fibers, data):
    """Binary search and rank index both find numpy's lower bound, for a skip ahead of the
    scanner, in any fiber of a level (61 coordinates wide)."""
    crd = np.array([x for f in fibers for x in sorted(f)], np.int64)
    seg = np.cumsum([0] + [len(f) for f in fibers]).astype(np.int64)
    rank = rank_index(seg, crd, 61)
    assert rank.shape[0] == len(fibers) * 61
    r = data.draw(st.integers(0, len(fibers) - 1))
    pos = data.draw(st.integers(int(seg[r]), int(seg[r + 1])))
    end = int(seg[r + 1])
    s = data.draw(st.integers(int(crd[pos]) + 1 if pos < end else 0, 70))
    want = pos + int(np.searchsorted(crd[pos:end], s, side="left"))
    assert first_at_least(True, crd, pos, end, 0, s, rank[:0], -1, 61) == want
    assert first_at_least(True, crd, pos, end, 0, s, rank, rank_start(rank, 61, r), 61) == want


def test_rank_index_only_within_its_budget():
    crd = np.arange(10, dtype=np.int64)
    assert rank_index(np.array([0, 10]), crd, 1 << 20).shape[0] == 0
    assert rank_index(np.array([0, 10]), crd, 100).shape[0] == 100
