"""Simulation.run_cycles: the cycles-only run of an elaborated graph, rebound to new inputs."""

from __future__ import annotations

import numpy as np
import pytest

from custard.api import compile as compile_expr
from formats.io import load_tensor
from formats.tensor import Tensor
from sam.errors import SimulationError
from sam.sim.engine import Simulation, simulate


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_rebound_cycles_equal_simulate(engine: str) -> None:
    graph = compile_expr("X(i,j)=B(i,k)*C(k,j)", {"X": "ss", "B": "ss", "C": "ss"}, "ikj")
    rng = np.random.default_rng(5)
    w = load_tensor("west0479", "ss").to_scipy().tocsr()[:120, :120]  # a real matrix's corner
    pairs = [(Tensor.from_scipy(w, "ss"), Tensor.from_scipy(w.T.tocsr(), "ss"))]
    for _ in range(4):
        m = [np.unique(rng.integers(0, 20, (int(rng.integers(0, 40)), 2)), axis=0)
             for _ in range(2)]
        pairs.append(tuple(Tensor.from_coo(c, rng.random(len(c)), (20, 20), "ss") for c in m))
    sim = Simulation(graph, {"B": pairs[0][0], "C": pairs[0][1]}, capacity=64)
    for tb, tc in pairs:
        sim.rebind({"B": tb, "C": tc})
        assert sim.run_cycles(engine) == simulate(graph, {"B": tb, "C": tc},
                                                  engine=engine).cycles
    with pytest.raises(SimulationError, match="unknown engine"):
        sim.run_cycles("nope")
