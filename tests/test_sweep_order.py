"""The scheduler's depth-first sweep order (``Scheduler._sweep_order``): a dataflow order of
every block, and the same tokens, cycles, statistics and outputs as the breadth-first
elaboration order on graphs of lanes (rings small enough that every block is called many
times, and the rings grow)."""

from __future__ import annotations

import numpy as np
import pytest

import custard
from formats.synthetic import random_tensor
from sam.sim import schedule
from sam.sim.engine import Simulation


def _graphs() -> list[tuple[str, object, dict]]:
    B = random_tensor((40, 30), 0.2, 0)
    C = random_tensor((30, 35), 0.2, 1)
    c = random_tensor((30,), 0.6, 2)
    return [
        ("gustavson lanes 4", custard.compile("X(i,j)=B(i,k)*C(k,j)", None, "ikj",
                                              schedule=["parallelize(i,4)"]), {"B": B, "C": C}),
        ("spmv lanes 3", custard.compile("x(i)=B(i,j)*c(j)", schedule=["parallelize(i,3)"]),
         {"B": B, "c": c}),
        ("elemmul", custard.compile("X(i,j)=B(i,j)*C(i,j)"), {"B": B, "C": B}),
    ]


def _summary(r) -> tuple:
    blocks = {bid: vars(s) for bid, s in r.blocks.items()}
    streams = [vars(s) for s in r.streams]
    outs = {k: (t.to_dense() if hasattr(t, "to_dense") else t) for k, t in r.outputs.items()}
    return r.cycles, r.tokens, blocks, streams, outs


@pytest.mark.parametrize("engine", ["fast", "reference"])
@pytest.mark.parametrize("case", range(3))
def test_depth_first_matches_elaboration_order(case, engine, monkeypatch):
    name, graph, tensors = _graphs()[case]
    sim = Simulation(graph, tensors, capacity=16)
    order = sim._sweep_order()
    assert sorted(order) == sorted(sim.order)
    pos = {bid: k for k, bid in enumerate(order)}
    for ch in sim.channels:  # producers before consumers
        if ch.src is not None:
            assert pos[ch.src] < pos[ch.dst], (name, ch)
    if "lanes" in name:
        assert order != sim.order  # the lanes' blocks are regrouped
    depth_first = _summary(sim.run(engine))
    monkeypatch.setattr(schedule.Scheduler, "_sweep_order", lambda self: self.order)
    breadth_first = _summary(Simulation(graph, tensors, capacity=16).run(engine))
    assert depth_first[:4] == breadth_first[:4]
    for k, v in depth_first[4].items():
        np.testing.assert_array_equal(np.asarray(v), np.asarray(breadth_first[4][k]))


def test_bounded_fifos_keep_elaboration_order():
    _, graph, tensors = _graphs()[1]
    sim = Simulation(graph, tensors, fifo_depth=4)
    assert sim._sweep_order() is sim.order
