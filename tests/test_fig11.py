"""``sam-sim reproduce fig11`` (SAM paper Figure 11) and the unfused SDDMM program it runs, against
the original simulator's fusion study (tests/data/original-study/fig11.json)."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from custard.reproduce import reproduce
from custard.reproduce.common import ReproduceError
from custard.reproduce.fig11 import (
    FULL,
    ORIGINAL,
    SERIES,
    WITHIN_ORIGINAL,
    fused_graph,
    operands,
    point,
    unfused_program,
)
from formats.synthetic import figure11_operands
from sam.cli import main
from sam.program import Program
from sam.sim.engine import simulate

RECORD = Path(__file__).parent / "data" / "original-study" / "fig11.json"


@pytest.fixture(scope="module")
def record() -> dict:
    return json.loads(RECORD.read_text())


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open() as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_unfused_sddmm_is_a_program_of_two_graphs(engine):
    """T = C * D^T stored dense by the first graph, X = B .* T by the second; the program's
    cycles are the sum of its phases', and X equals numpy's."""
    program = unfused_program()
    assert isinstance(program, Program) and len(program.phases) == 2
    assert program.temporaries() == ["T"] and program.results() == ["X"]
    assert str(program.phases[0].graph.formats["T"]) in ("dd", "dd01")
    tensors = operands((12, 9), 3, 0.8, "paper")
    res = program.run(tensors, engine=engine)
    b, c, d = (tensors[n].to_dense() for n in "BCD")
    np.testing.assert_array_equal(res.written["T"].to_dense(), c @ d.T)
    np.testing.assert_array_equal(res.outputs["X"].to_dense(), b * (c @ d.T))
    assert res.cycles == sum(res.phase_cycles) == sum(r.cycles for r in res.phases)
    fused = {loc: fused_graph(loc) for loc in (True, False)}
    for graph in fused.values():
        x = simulate(graph, tensors, engine=engine).outputs["X"]
        np.testing.assert_array_equal(x.to_dense(), b * (c @ d.T))
    located = [b.attrs["index"] for b in fused[True].blocks.values()
               if b.dot_type == "intersect"]
    assert located == ["k"]  # no intersecter at i and j
    assert Counter(b.dot_type for b in fused[False].blocks.values())["intersect"] == 3
    # the second phase coiterates B with T (i and j), as the original's unfused test does
    second = program.phases[1].graph
    assert sorted(b.attrs["index"] for b in second.blocks.values()
                  if b.dot_type == "intersect") == ["i", "j"]
    # assuming no dimension of size 0, the sum over k needs no coordinate stream
    (red,) = [b for b in fused[True].blocks.values() if b.dot_type == "reduce"]
    assert red.attrs.get("empty", "drop") == "drop"


def test_quick_run_writes_the_three_series(tmp_path: Path):
    (done,) = reproduce("fig11", tmp_path, quick=True, scheduler="sync", progress=False,
                        log=False)
    rows = read_csv(tmp_path / "fig11.csv")
    assert list(rows[0])[:3] == ["series", "x", "cycles"]
    assert {r["series"] for r in rows} == set(SERIES)
    assert sorted({int(r["x"]) for r in rows}) == [1, 4, 16]
    assert all(r["correct"] == "True" for r in rows)
    for r in rows:  # the unfused cycles are its two phases'
        assert int(r["cycles"]) == sum(int(p) for p in r["phase_cycles"].split("+"))
        assert len(r["phase_cycles"].split("+")) == (2 if r["series"] == "unfused" else 1)
    claims = (tmp_path / "fig11-claims.md").read_text()
    assert claims.count("**PASS**") + claims.count("**FAIL**") == 5
    assert "every simulated X equals" in claims
    assert "--data artifact" in claims and "B 30x12" in claims
    assert (tmp_path / "fig11.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert done.passed + done.failed == 5


def test_recorded_original_matches_our_constants_and_data(record):
    """The original's counts in the module are the record's, and the artifact's B (the record
    holds its arrays as the original's generator wrote them) is ours, with all-ones C and D."""
    runs = {(r["series"], r["k"]): r for r in record["runs"]}
    assert {key: r["cycles"] for key, r in runs.items()} == ORIGINAL
    assert record["commit"].startswith("6e477d14")
    assert all(r["gold_check"] == "passed" and r["tensor_B_shape"] == [250, 100]
               and r["tensor_C_shape"] == [250, r["k"]] for r in runs.values())
    rb = record["B"]
    dense = np.zeros(rb["shape"])
    for p, i in enumerate(rb["mode_0_crd"]):
        for q in range(rb["mode_1_seg"][p], rb["mode_1_seg"][p + 1]):
            dense[i, rb["mode_1_crd"][q]] = rb["vals"][q]
    cfg = FULL["artifact"]
    ours = operands(cfg["shape"], 10, cfg["sparsity"], "artifact")
    np.testing.assert_array_equal(ours["B"].to_dense(), dense)
    assert ours["B"].nnz == record["B_nnz"] == 1212
    np.testing.assert_array_equal(ours["C"].to_dense(), np.ones((250, 10)))
    np.testing.assert_array_equal(ours["D"].to_dense(), np.ones((100, 10)))
    for name, t in zip("BCD", figure11_operands(10), strict=True):
        np.testing.assert_array_equal(t.to_dense(), ours[name].to_dense())


def test_artifact_points_within_5_percent_of_the_original():
    """All 9 points (3 series x K = 1, 10, 100) on the artifact's data: X equals numpy's, the
    cycles are within 5% of the original simulator's (measured: within 0.04%), and locate at
    K = 1 costs about 2 cycles per nonzero of B, as the original's (2 * 1212 + 263 = 2687)."""
    cfg = FULL["artifact"]
    got = {}
    for k in cfg["ks"]:
        for s in SERIES:
            r = point({"series": s, "k": k, "shape": list(cfg["shape"]),
                       "sparsity": cfg["sparsity"], "data": "artifact", "engine": "fast"})
            assert r["correct"], (s, k)
            got[(s, k)] = r["cycles"]
    off = {key: got[key] / ORIGINAL[key] - 1 for key in ORIGINAL}
    assert all(abs(d) <= WITHIN_ORIGINAL for d in off.values()), off
    assert got[("locate", 1)] <= 2 * 1212 + 300
    # the unfused program's count is its two phases', as the original's one counter over both
    assert got[("unfused", 1)] > got[("coiteration", 1)] > got[("locate", 1)]


def test_data_option_reaches_the_points_and_is_refused_elsewhere(tmp_path: Path, capsys):
    """``--data paper`` runs the paper's text's operands (B square, random C and D, no
    comparison with the original), and the claims file names the choice; an experiment
    with one data set refuses ``--data`` in one line."""
    (done,) = reproduce("fig11", tmp_path, quick=True, scheduler="sync", progress=False,
                        log=False, data="paper")
    rows = read_csv(tmp_path / "fig11.csv")
    assert all(r["correct"] == "True" for r in rows) and "original" not in rows[0]
    claims = (tmp_path / "fig11-claims.md").read_text()
    assert "--data paper" in claims and "B 30x30" in claims
    with pytest.raises(ReproduceError, match="fig12 has one data set"):
        reproduce("fig12", tmp_path, quick=True, scheduler="sync", progress=False,
                  log=False, data="paper")
    assert main(["reproduce", "fig12", "-o", str(tmp_path), "--data", "paper"]) == 1
    err = capsys.readouterr().err
    assert "--data: fig12 has one data set" in err and "Traceback" not in err
