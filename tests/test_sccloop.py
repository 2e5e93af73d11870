"""The compiled scheduler loop (``sam.sim.loops``) against the Python one.

Graphs with feedback edges (coordinate skipping, SAM Sec. 4.2) or bounded FIFOs run their sweeps
in compiled code on the fast engine; the reference engine keeps the Python loop. Both must give
the same tokens, cycles and statistics, and the results numpy gives.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import custard
from formats import Tensor
from formats.io import load_tensor
from formats.synthetic import random_tensor
from sam.blocks import base
from sam.sim.engine import Simulation

TTV = "X(i,j)=B(i,j,k)*c(k)"


def _both(graph, tensors, depth, capacity=1 << 14):
    """Reference and fast runs; the fast one must have used the compiled driver."""
    rsim = Simulation(graph, tensors, fifo_depth=depth, capacity=capacity)
    ref = rsim.run("reference")
    sim = Simulation(graph, tensors, fifo_depth=depth, capacity=capacity)
    fast = sim.run("fast")
    assert rsim._driver is None
    assert sim._driver is not None, "the fast engine did not use the compiled loop"
    assert (fast.cycles, fast.tokens) == (ref.cycles, ref.tokens)
    assert fast.blocks == ref.blocks
    assert fast.streams == ref.streams
    # every token (kind, payload, arrival, pop cycle) still in the rings, and the counts
    for name in ("kind", "data", "time", "ptime", "head", "tail", "count", "horizon"):
        assert np.array_equal(getattr(rsim.wires, name), getattr(sim.wires, name)), name
    return ref, fast


def _dense(result, name):
    return result.outputs[name].to_dense()


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_compiled_loop_matches_python_loop_on_random_ttv(data):
    ni, nj, nk = (data.draw(st.integers(1, 8)) for _ in range(3))
    dens = data.draw(st.sampled_from([0.05, 0.3, 0.8]))
    seed = data.draw(st.integers(0, 2**20))
    skip = data.draw(st.booleans())
    depth = data.draw(st.sampled_from([1, 2, 3, None] if skip else [1, 2, 3]))
    B = random_tensor((ni, nj, nk), dens, seed)
    c = random_tensor((nk,), data.draw(st.sampled_from([0.2, 0.6, 1.0])), seed + 1)
    g = custard.compile(TTV, schedule="skip()" if skip else None)
    ref, fast = _both(g, {"B": B, "c": c}, depth)
    want = np.einsum("ijk,k->ij", B.to_dense(), c.to_dense())
    for r in (ref, fast):
        np.testing.assert_allclose(_dense(r, "X"), want)


@pytest.mark.parametrize("skip,depth", [(True, None), (True, 2), (False, 2)])
def test_compiled_loop_on_west0479(skip, depth, monkeypatch):
    grows = []
    grow = base.Memories.grow
    monkeypatch.setattr(base.Memories, "grow", lambda self, w: (grows.append(w), grow(self, w)))
    B = load_tensor("west0479", "ds")
    c = random_tensor((B.shape[1],), 0.3, 5)
    g = custard.compile("x(i)=B(i,j)*c(j)", schedule="skip()" if skip else None)
    ref, fast = _both(g, {"B": B, "c": c}, depth)
    want = B.to_scipy() @ c.to_dense()
    for r in (ref, fast):
        np.testing.assert_allclose(_dense(r, "x"), want)
    assert grows  # the writers' memories grew: the driver handed them to the engine


def test_compiled_loop_grows_the_rings():
    """Rings of 16 slots fill up inside the compiled loop: it stops, the engine grows them."""
    B = random_tensor((6, 6, 200), 0.2, 3)
    c = random_tensor((200,), 0.5, 4)
    g = custard.compile(TTV, schedule="skip()")
    ref, fast = _both(g, {"B": B, "c": c}, None, capacity=16)
    np.testing.assert_allclose(_dense(fast, "X"),
                               np.einsum("ijk,k->ij", B.to_dense(), c.to_dense()))


def test_acyclic_unbounded_graphs_keep_the_python_loop():
    B = Tensor.from_dense(np.eye(4), "ds")
    g = custard.compile("x(i)=B(i,j)*c(j)")
    sim = Simulation(g, {"B": B, "c": Tensor.from_dense(np.ones(4), "s")})
    sim.run("fast")
    assert sim._driver is None
