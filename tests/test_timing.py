"""Cycle counts derived by hand from docs/timing-model.md, and scheduling-independence."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from formats import Tensor
from sam.errors import Deadlock, SimulationError
from sam.sim.engine import Simulation, simulate

from helpers.small_graphs import accumulate_then_intersect as _accumulate_then_intersect
from helpers.small_graphs import elemmul_graph, identity_graph

B_VEC = Tensor.from_coo([[1], [4]], [3.0, 5.0], (6,), "s")


def test_identity_cycles_by_hand():
    r = simulate(identity_graph(), {"b": B_VEC})
    assert r.cycles == 6
    assert r.outputs["x"].to_dense().tolist() == [0, 3, 0, 0, 5, 0]
    busy_idle = {k: (b.busy, b.idle, b.stalled) for k, b in r.blocks.items()}
    assert busy_idle == {"0": (4, 0, 0), "1": (4, 1, 0), "2": (4, 1, 0), "3": (4, 2, 0)}


def test_identity_cycles_with_fifo_depth_one():
    r = simulate(identity_graph(), {"b": B_VEC}, fifo_depth=1)
    assert r.cycles == 9
    assert r.blocks["0"].stalled == 3
    assert r.outputs["x"].to_dense().tolist() == [0, 3, 0, 0, 5, 0]


def test_intersect_cycles_by_hand():
    b = Tensor.from_coo([[1], [3]], [2.0, 3.0], (5,), "s")
    c = Tensor.from_coo([[3]], [4.0], (5,), "s")
    r = simulate(elemmul_graph(), {"b": b, "c": c})
    # intersecter fires in cycles 1 (skip b's 1), 2 (emit 3), 3 (S0), 4 (D); arrays 3..5,
    # multiplier 4..6, value writer 5..7: last writer takes D in cycle 7.
    assert r.cycles == 8
    assert r.blocks["2"].busy == 4
    assert r.outputs["x"].to_dense().tolist() == [0, 0, 0, 12, 0]


def test_latency_option_delays_by_hand():
    b = Tensor.from_coo([[1], [3]], [2.0, 3.0], (5,), "s")
    c = Tensor.from_coo([[3]], [4.0], (5,), "s")
    r = simulate(elemmul_graph(), {"b": b, "c": c}, latencies={"arrayvals": 2})
    assert r.cycles == 9
    with pytest.raises(SimulationError, match="latency"):
        simulate(elemmul_graph(), {"b": b, "c": c}, latencies={"mul": 0})


def test_bounded_fifos_deadlock_is_reported():
    B = Tensor.from_scipy(sp.random(6, 8, 0.6, random_state=3, format="csr"))
    with pytest.raises(Deadlock) as err:
        simulate(_accumulate_then_intersect(), {"B": B}, fifo_depth=1)
    msg = str(err.value)
    assert "cannot progress" in msg and "node 4" in msg and "waits for" in msg
    with pytest.raises(SimulationError, match="malformed stream"):
        simulate(_accumulate_then_intersect(), {"B": B})


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(4, 40), st.sampled_from([None, 1, 2, 3]))
def test_schedule_and_ring_size_do_not_change_results(seed, n, depth):
    rng = np.random.default_rng(seed)
    b = rng.random(n) * (rng.random(n) < 0.5)
    c = rng.random(n) * (rng.random(n) < 0.5)
    tensors = {"b": Tensor.from_dense(b), "c": Tensor.from_dense(c)}
    small = Simulation(elemmul_graph(), tensors, fifo_depth=depth, capacity=16).run()
    large = Simulation(elemmul_graph(), tensors, fifo_depth=depth, capacity=4096).run()
    assert small.cycles == large.cycles
    assert np.array_equal(small.outputs["x"].to_dense(), b * c)
    assert np.array_equal(large.outputs["x"].to_dense(), b * c)
    for k in small.blocks:
        assert (small.blocks[k].busy, small.blocks[k].idle, small.blocks[k].stalled) == (
            large.blocks[k].busy, large.blocks[k].idle, large.blocks[k].stalled)
