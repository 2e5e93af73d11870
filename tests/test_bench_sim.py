"""scripts/bench_sim.py's issue 22 suite: every feature row has a comparable core row that runs
before it, ``--only`` picks a feature's rows with their core, and a lanes row splits the work."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("bench_sim", ROOT / "scripts" / "bench_sim.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def test_every_feature_row_has_a_core_row_before_it():
    labels = [label for label, _, _ in bench.SUITE]
    kinds = {label: kind for label, kind, _ in bench.SUITE}
    for feature, core in bench.CORE_OF.items():
        assert labels.index(core) < labels.index(feature), feature
        assert kinds[feature] != "cli" and kinds[core] != "cli"
    for needed in ("TMU sls", "lanes 4", "lanes 16", "db64", "dr (ragged)"):
        assert any(needed in f for f in bench.CORE_OF), needed


def test_only_picks_the_rows_and_their_core():
    picked = [label for label, _, _ in bench.select_rows("lanes 16")]
    assert picked == ["Gustavson bcsstk13^2", "Gustavson bcsstk13^2 lanes 16",
                      "SpMV bcsstk13 (lanes 1)", "SpMV bcsstk13 lanes 16"]
    assert [r[0] for r in bench.select_rows("TMU")] == ["SpMM bcsstk13 x T(dd) dim 32",
                                                        "TMU sls bcsstk13 dim 32"]
    assert [r[0] for r in bench.select_rows("splatt")] == ["TTV splatt-med coiterated"]
    assert bench.select_rows(None) == bench.SUITE


def test_spmv_lanes_row_splits_the_cycles():
    one = json.loads(bench.run_child(bench.FEATURE, ["spmv-lanes-1"])[0].splitlines()[-1])
    four = json.loads(bench.run_child(bench.FEATURE, ["spmv-lanes-4"])[0].splitlines()[-1])
    assert one["tokens"] == 8_727_152 and one["cycles"] == 4_014_022
    assert four["cycles"] * 3 < one["cycles"] and four["tokens"] >= one["tokens"]
