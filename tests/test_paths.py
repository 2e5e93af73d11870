"""Fast paths as a simulation option (``sam.runtime.paths.FastPaths``), not module switches.

numba freezes a module-level global into a kernel when it compiles it, so a switch flipped after
the kernels compiled would silently do nothing in the fast engine. The option is run-time data
(a bit per path in each block's state), so turning a path off *after* the compiled kernels are
loaded changes the path the compiled code takes: the blocks no longer enter it
(``st[PATH_RUNS]``, counted by ``sam.runtime.paths.enter``, or for bursts each time one may
run) or, for coordinate skipping's loop, the compiled driver calls the kernels instead (more
kernel calls). The tokens, cycles and
statistics stay the same.
"""

from __future__ import annotations

import numpy as np
import pytest

import custard
import sam.graph.registry  # noqa: F401
from formats import Tensor
from formats.io import load_tensor
from formats.synthetic import random_tensor
from sam.runtime import wires as W
from sam.runtime.paths import ALL, BURST, EXECUTE_FAST, SKIP_LOOP, TMU_BURST, FastPaths
from sam.sim.engine import SimResult, Simulation
from sam.tmu_ops import build_op


def _entries(sim: Simulation, dot_type: str) -> int:
    """Fast-path entries of the blocks of ``dot_type`` in the last run."""
    return sum(int(r.st[W.PATH_RUNS]) for r in sim.runs.values()
               if r.block.dot_type == dot_type)


def _run_compiled(sim: Simulation, paths: FastPaths) -> SimResult:
    sim.paths = paths
    res = sim.run("fast")
    assert sim._compiled_loaded()
    assert not any(sim._fns[b] is r.block.kernel.py for b, r in sim.runs.items())
    return res


def _same(a: SimResult, b: SimResult) -> None:
    assert (a.tokens, a.cycles) == (b.tokens, b.cycles)
    assert a.blocks == b.blocks and a.streams == b.streams
    for name, t in a.outputs.items():
        np.testing.assert_array_equal(t.to_dense(), b.outputs[name].to_dense())


def test_options_name_distinct_bits() -> None:
    assert ALL.off() == 0
    assert [FastPaths(burst=False).off(), FastPaths(skip_loop=False).off(),
            FastPaths(tmu_burst=False).off(), FastPaths(execute_fast=False).off()] \
        == [BURST, SKIP_LOOP, TMU_BURST, EXECUTE_FAST]
    assert FastPaths(False, False, False, False).off() == 15


def test_bursts_off_after_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAM_INTERPRET_SECONDS", "0")  # compiled kernels from the first call
    B = load_tensor("bcsstm02", "ds")
    sim = Simulation(custard.compile("X(i,j)=B(i,k)*C(k,j)", None, "ikj"), {"B": B, "C": B})
    on = _run_compiled(sim, ALL)
    assert _entries(sim, "fiberlookup") > 0 and _entries(sim, "repeat") > 0
    off = _run_compiled(sim, FastPaths(burst=False))
    assert sum(int(r.st[W.PATH_RUNS]) for r in sim.runs.values()) == 0
    _same(on, off)
    again = _run_compiled(sim, ALL)  # and on again
    assert _entries(sim, "fiberlookup") > 0
    _same(on, again)


def test_tmu_burst_and_scalar_loop_off_after_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAM_INTERPRET_SECONDS", "0")
    A = random_tensor((40, 60), 0.2, 3).with_format("ds")
    table = np.round(np.random.default_rng(3).uniform(-1, 1, (60, 6)), 6)
    sim = Simulation(*build_op("sls", A, Tensor.from_dense(table, "dd")))
    on = _run_compiled(sim, ALL)
    assert _entries(sim, "tmu") > 0 and _entries(sim, "execute") > 0
    no_tmu = _run_compiled(sim, FastPaths(tmu_burst=False))
    assert _entries(sim, "tmu") == 0 and _entries(sim, "execute") > 0
    no_exec = _run_compiled(sim, FastPaths(execute_fast=False))
    assert _entries(sim, "tmu") > 0 and _entries(sim, "execute") == 0
    _same(on, no_tmu)
    _same(on, no_exec)


def test_skip_loop_off_after_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAM_INTERPRET_SECONDS", "0")
    B = random_tensor((12, 12, 200), 0.02, 4)
    c = random_tensor((200,), 0.3, 5)
    sim = Simulation(custard.compile("X(i,j)=B(i,j,k)*c(k)", schedule="skip()"),
                     {"B": B, "c": c})
    on = _run_compiled(sim, ALL)
    assert sim._driver is not None and (sim._drive_static[5] >= 0).any()
    calls_on = sim.driver_calls
    off = _run_compiled(sim, FastPaths(skip_loop=False))
    assert sim._driver is not None and (sim._drive_static[5] < 0).all()
    assert sim.driver_calls > calls_on  # the kernels do the loop's work, call by call
    _same(on, off)
