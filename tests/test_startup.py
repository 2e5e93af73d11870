"""Start-up cost (issue 22): the fast engine interprets its kernels for a short budget before
loading the compiled ones, and the command-line entry points import only what they use.

Switching from the Python to the compiled form of the kernels between two kernel calls must
change nothing: the same tokens, cycles, block and stream statistics and outputs as either
engine alone (the kernels are one definition, the state is numpy arrays both forms share).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import custard
from formats.io import load_tensor
from formats.synthetic import random_tensor
from sam.sim import engine as E
from sam.sim.engine import Simulation

ROOT = Path(__file__).resolve().parent.parent


def _summary(r: E.SimResult) -> tuple:
    outs = {}
    for name, t in r.outputs.items():
        coords, vals = t.to_coo()
        outs[name] = (coords.tobytes(), vals.tobytes(), t.shape)
    blocks = {b: (s.tokens_in, s.tokens_out, s.busy, s.idle, s.stalled, s.started, s.finished)
              for b, s in r.blocks.items()}
    streams = [(s.src, s.src_port, s.dst, s.dst_port, s.tokens) for s in r.streams]
    return r.cycles, r.tokens, blocks, streams, outs


def _run(sim: Simulation, engine: str, budget: str, monkeypatch: pytest.MonkeyPatch
         ) -> tuple[E.SimResult, list[bool]]:
    """Run ``sim``; also which kernel calls ran compiled code (in order)."""
    compiled: list[bool] = []
    call = E.BlockRun.call

    def spy(self: E.BlockRun, fn, w):  # noqa: ANN001
        compiled.append(fn is not self.block.kernel.py)
        return call(self, fn, w)

    monkeypatch.setenv("SAM_INTERPRET_SECONDS", budget)
    monkeypatch.setattr(E.BlockRun, "call", spy)
    monkeypatch.setattr(Simulation, "_compiled_loaded", lambda self: False)
    r = sim.run(engine)
    monkeypatch.setattr(E.BlockRun, "call", call)
    return r, compiled


CASES = {
    "spmv west0479": ("x(i)=B(i,j)*c(j)", None,
                      lambda: {"B": load_tensor("west0479", "ds"),
                               "c": random_tensor((479,), 0.5, 3)}),
    "spmspm ikj random": ("X(i,j)=B(i,k)*C(k,j)", "ikj",
                          lambda: {"B": random_tensor((120, 120), 0.05, 1),
                                   "C": random_tensor((120, 120), 0.05, 2)}),
    "ttv --skip": ("X(i,j)=B(i,j,k)*c(k)", None,
                   lambda: {"B": random_tensor((20, 20, 300), 0.002, 4),
                            "c": random_tensor((300,), 0.3, 5)}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_switching_mid_run_changes_nothing(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    expr, order, make = CASES[case]
    tensors = make()
    graph = custard.compile(expr, None, order, schedule="skip()" if "skip" in case else None)
    sim = Simulation(graph, tensors)
    ref, _ = _run(sim, "reference", "0", monkeypatch)
    jit, calls_jit = _run(sim, "fast", "0", monkeypatch)
    py, calls_py = _run(sim, "fast", "1000", monkeypatch)
    # A budget that runs out after a few Python kernel calls: a run that switches mid-way.
    t0 = time.process_time()
    sim.run("reference")
    budget = max((time.process_time() - t0) / 20, 1e-5)
    mixed, calls_mixed = _run(sim, "fast", f"{budget:.6f}", monkeypatch)
    assert all(calls_jit) and not any(calls_py)
    assert calls_mixed[0] is False and calls_mixed[-1] is True, "the run did not switch"
    assert py.jit_time == 0.0
    want = _summary(ref)
    assert want[0] > 0 and want[1] > 0
    for r in (jit, py, mixed):
        assert _summary(r) == want
    # the result is right, not only the same
    got = next(iter(ref.outputs.values()))
    coords, vals = got.to_coo()
    assert len(vals) > 0 and np.all(np.isfinite(vals))


def test_loaded_kernels_run_compiled_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second run in the same process (a sweep's next point) does not interpret first."""
    graph = custard.compile("x(i)=B(i,j)*c(j)")
    sim = Simulation(graph, {"B": random_tensor((30, 30), 0.2, 0), "c": random_tensor((30,), 1, 0)})
    monkeypatch.setenv("SAM_INTERPRET_SECONDS", "0")
    sim.run("fast")
    monkeypatch.setenv("SAM_INTERPRET_SECONDS", "1000")
    compiled: list[bool] = []
    call = E.BlockRun.call

    def spy(self: E.BlockRun, fn, w):  # noqa: ANN001
        compiled.append(fn is not self.block.kernel.py)
        return call(self, fn, w)

    monkeypatch.setattr(E.BlockRun, "call", spy)
    sim.run("fast")
    assert compiled and all(compiled)


def test_large_inputs_run_compiled_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inputs too big to finish within the budget skip the interpreting."""
    B = random_tensor((200, 200), (E.INTERPRET_MAX_VALUES + 1000) / 40_000, 0)
    c = random_tensor((200,), 1, 1)
    sim = Simulation(custard.compile("x(i)=B(i,j)*c(j)"), {"B": B, "c": c})
    r, calls = _run(sim, "fast", "1000", monkeypatch)
    assert calls and all(calls) and r.tokens > E.INTERPRET_MAX_VALUES


def test_bad_budget_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAM_INTERPRET_SECONDS", "soon")
    graph = custard.compile("x(i)=B(i,j)*c(j)")
    sim = Simulation(graph, {"B": random_tensor((5, 5), 0.5, 0), "c": random_tensor((5,), 1, 0)})
    with pytest.raises(E.SimulationError, match="SAM_INTERPRET_SECONDS must be a number"):
        sim.run("fast")


def _fresh(code: str, **env: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT), **env}, check=True)
    return out.stdout.strip()


def test_small_run_never_loads_numba() -> None:
    code = ("import sys; from sam.sim.engine import simulate; import custard; "
            "from formats.synthetic import random_tensor as R; "
            "r = simulate(custard.compile('x(i)=B(i,j)*c(j)'), "
            "{'B': R((8, 8), 0.3, 0), 'c': R((8,), 0.5, 1)}); "
            "print(r.tokens > 0, r.jit_time, 'numba' in sys.modules)")
    assert _fresh(code, SAM_INTERPRET_SECONDS="30") == "True 0.0 False"


def test_command_line_imports_are_lazy() -> None:
    """Parsing ``sam-sim run`` and ``custard compile`` arguments needs neither scipy, numba,
    matplotlib nor the other package's compiler."""
    code = ("import sys; import sam.cli; sam.cli.build_parser(plugins=False); "
            "import custard.cli; "
            "print(sorted(m for m in ('scipy', 'numba', 'matplotlib', 'dask', 'xdsl', 'pydot') "
            "if m in sys.modules))")
    assert _fresh(code) == "[]"


def test_custard_compile_loads_no_simulator_nor_heavy_modules(tmp_path: Path) -> None:
    """``custard compile`` writes the graph without scipy, numba, the simulator's engine, the
    sweeps (``custard.reproduce``), the Ember front end or the drawing modules; the graph is
    the one :func:`custard.compile` gives."""
    out = tmp_path / "x.gv"
    code = ("import sys, custard.cli; "
            "rc = custard.cli.main(['compile', 'X(i,j)=B(i,k)*C(k,j)', '-f=B:ds', '-f=C:ds', "
            f"'-s=reorder(i,k,j)', '-o', {str(out)!r}]); "
            "heavy = ('scipy', 'numba', 'matplotlib', 'dask', 'xdsl', 'pydot', 'sam.sim.engine', "
            "'sam.sim.assemble', 'custard.reproduce', 'custard.ember', 'sam.graph.draw'); "
            "print(rc, sorted(m for m in sys.modules if m.startswith(heavy)))")
    assert _fresh(code) == "0 []"
    from formats.format import Format
    from sam.graph.dot import dumps

    want = custard.compile("X(i,j)=B(i,k)*C(k,j)", {"B": Format.parse("ds"),
                                                    "C": Format.parse("ds")},
                           schedule=["reorder(i,k,j)"])
    assert out.read_text().strip() == dumps(want).strip()


def test_reference_engine_never_runs_compiled_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loaded compiled kernels (an earlier fast run) and large inputs switch only the fast
    engine to them: the reference engine stays the Python kernels (the differential tests
    compare the two)."""
    B = random_tensor((200, 200), (E.INTERPRET_MAX_VALUES + 1000) / 40_000, 0)
    c = random_tensor((200,), 1, 1)
    sim = Simulation(custard.compile("x(i)=B(i,j)*c(j)"), {"B": B, "c": c})
    fast, calls_fast = _run(sim, "fast", "0", monkeypatch)
    monkeypatch.setattr(Simulation, "_compiled_loaded", lambda self: True)
    compiled: list[bool] = []
    call = E.BlockRun.call

    def spy(self: E.BlockRun, fn, w):  # noqa: ANN001
        compiled.append(fn is not self.block.kernel.py)
        return call(self, fn, w)

    monkeypatch.setattr(E.BlockRun, "call", spy)
    ref = sim.run("reference")
    assert calls_fast and all(calls_fast)
    assert compiled and not any(compiled)
    assert _summary(ref) == _summary(fast)


def test_a_run_shorter_than_a_compile_never_compiles(tmp_path: Path) -> None:
    """Kernels not on disk: the run interprets up to SAM_COMPILE_AFTER before compiling, so a
    small one finishes interpreted, loads no numba and compiles nothing."""
    code = ("import sys; from sam.sim.engine import simulate; import custard; "
            "from formats.synthetic import random_tensor as R; "
            "r = simulate(custard.compile('x(i)=B(i,j)*c(j)'), "
            "{'B': R((8, 8), 0.3, 0), 'c': R((8,), 0.5, 1)}); "
            "print(r.tokens > 0, r.compiled_kernels, 'numba' in sys.modules)")
    assert _fresh(code, SAM_INTERPRET_SECONDS="0.000001", SAM_COMPILE_AFTER="30",
                  SAM_CACHE_DIR=str(tmp_path)) == "True [] False"
    assert not (tmp_path / "kernels").exists()


def test_report_separates_import_kernels_and_simulation(tmp_path: Path) -> None:
    import json

    from sam import cli

    report = tmp_path / "r.json"
    rc = cli.main(["run", str(ROOT / "dot_graphs" / "vec_identity.gv"), "-t",
                   "b=random:0.5:1:10", "--engine", "reference", "--report", str(report)])
    assert rc == 0
    r = json.loads(report.read_text())
    assert r["import_time_s"] is None or 0 <= r["import_time_s"] < 600
    assert r["jit_time_s"] == 0 and r["compile_time_s"] == 0 and r["compiled_kernels"] == []
    assert r["wall_time_s"] > 0
    sim = Simulation(custard.compile("x(i)=b(i)"), {"b": random_tensor((10,), 0.5, 1)})
    fast = sim.run("fast")  # kernels on disk or loaded: nothing compiled, no compile time
    assert fast.compiled_kernels == [] or fast.compile_time > 0
    assert fast.compiled_kernels or fast.compile_time == 0
