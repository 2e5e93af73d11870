"""Cycles of the original Custard's graphs under ``--timing original`` against the original
simulator's recorded counts: Figure 12 (SpM*SpM in six orders, docs/fidelity.md), the
final-apps runs of ``tests/data/original-final-apps.json`` (the smallest matrices first) and,
for a record set with a ``simulated.json`` (taco edc4195a), the original simulator's runs of
that set's own graphs through its code generator on the harness's random inputs
(:func:`simulated_cycles`)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from custard.reproduce import fig12
from scripts.differential.expressions import ROOT

#: Figure 12's counts of the original simulator (tests/test_fidelity.py, issue 13).
FIG12 = fig12.ORIGINAL
#: Harness name -> the original's final-apps kernel (tests/helpers/final_apps.py).
FINAL_APPS = {"mat_elemadd": "mat_elemadd", "mat_elemadd3": "mat_elemadd3",
              "mat_vecmul_ji": "mat_vecmul", "mat_residual": "mat_residual",
              "mat_mattransmul": "mat_mattransmul", "matmul_kij": "matmul_kij",
              "matmul_ikj": "matmul_ikj", "mat_sddmm": "mat_sddmm"}
TOLERANCE = 0.05


def has_cycles(name: str, records: Path | None = None) -> bool:
    return name in FINAL_APPS or name.removeprefix("matmul_") in FIG12 or bool(
        records is not None and simulated_runs(records, name))


def simulated_runs(records: Path, name: str | None = None) -> list[dict]:
    """The original simulator's recorded runs of ``records``' graphs (``simulated.json``; none
    when the set has no such file), of graph ``name`` or all."""
    import json

    path = records / "simulated.json"
    if not path.exists():
        return []
    runs = json.loads(path.read_text())["runs"]
    return [r for r in runs if name is None or r["name"] == name]


def run_inputs(run: dict, formats) -> dict:
    """A recorded run's input tensors (nonzeros, shape; stored in the graph's formats)."""
    from formats.tensor import Tensor

    out = {}
    for t, v in run["inputs"].items():
        if not v["shape"]:
            out[t] = Tensor.scalar(v["vals"][0] if v["vals"] else 0.0)
            continue
        dense = np.zeros(v["shape"])
        for c, x in zip(v["coords"], v["vals"], strict=True):
            dense[tuple(c)] = x
        out[t] = Tensor.from_dense(dense, formats[t])
    return out


def simulated_cycles(records: Path, name: str,
                     verdicts: tuple[str, ...] = ("pass",)) -> list[tuple[str, int, int]]:
    """(point, original's cycles, ours) for each recorded run of the original simulator whose
    verdict is in ``verdicts`` (by default only runs whose result is right: a wrong one counts
    the cycles of another computation), our simulator on the same graph and inputs under
    ``timing="original"`` (fast engine), each result checked against numpy (AssertionError
    otherwise)."""
    from sam.check import compare, expected
    from sam.graph import dot
    from sam.graph.implicit import index_sizes
    from sam.graph.validate import output_tensors
    from sam.sim.engine import simulate
    from scripts.differential.expressions import split_line

    runs = [r for r in simulated_runs(records, name)
            if "original_cycles" in r and r["verdict"] in verdicts]
    if not runs:
        return []
    graph = dot.loads(dot.dumps(dot.load(records / f"{name}.gv")))
    (out,) = output_tensors(graph)
    points = []
    for run in runs:
        tensors = run_inputs(run, graph.formats)
        gold = expected(split_line(run["line"])[0], tensors, index_sizes(graph), graph.formats)
        result = simulate(graph, tensors, engine="fast", timing="original")
        assert compare(result.outputs[out], gold).passed, (name, run["seed"])
        points.append((f"seed {run['seed']}", run["original_cycles"], result.cycles))
    return points


def _final_apps():
    tests = str(ROOT / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    from helpers import final_apps

    return final_apps


def original_cycles(name: str, path: Path, matrices: int = 3) -> list[tuple[str, int, int]]:
    """(point, original's cycles, ours) for the graph at ``path`` under ``timing="original"``
    on the fast engine, each result checked against numpy (AssertionError otherwise)."""
    from sam.check import compare, expected
    from sam.graph import dot
    from sam.graph.validate import output_tensors
    from sam.sim.engine import simulate

    graph = dot.loads(dot.dumps(dot.load(path)))
    (out,) = output_tensors(graph)
    points = []
    order = name.removeprefix("matmul_")
    if order in FIG12:
        from formats.synthetic import figure12_matrices

        bt, ct = figure12_matrices(graph.formats["B"], graph.formats["C"])
        b, c = bt.to_dense(), ct.to_dense()
        tensors = {"B": bt, "C": ct}
        result = simulate(graph, tensors, engine="fast", timing="original")
        assert np.allclose(result.outputs[out].to_dense(), b @ c), (name, "Figure 12")
        points.append(("Figure 12", FIG12[order], result.cycles))
    if name in FINAL_APPS:
        fa = _final_apps()
        kernel = FINAL_APPS[name]
        expr = fa.KERNELS[kernel][2]
        runs = sorted((r for r in fa.record()["runs"] if r["kernel"] == kernel),
                      key=lambda r: r["cycles"])[:matrices]
        for run in runs:
            tensors = fa.operands(kernel, run["matrix"], run.get("vectors", {}), graph.formats)
            result = simulate(graph, tensors, engine="fast", timing="original")
            assert compare(result.outputs[out], expected(expr, tensors)).passed, \
                (name, run["matrix"])
            points.append((run["matrix"], run["cycles"], result.cycles))
    return points


def within(original: int, ours: int, tolerance: float = TOLERANCE) -> bool:
    return abs(ours - original) <= tolerance * original
