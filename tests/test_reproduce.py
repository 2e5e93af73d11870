"""``sam-sim reproduce``: the experiments' files and claims (``--quick``), the sweep cache and
resume, Dask (a local cluster of one worker) and the fallback to this process."""

from __future__ import annotations

import csv
import json
import shlex
from pathlib import Path

import numpy as np
import pytest

from custard.reproduce import EXPERIMENTS, reproduce
from custard.reproduce import fig14 as fig14_mod
from custard.reproduce.common import ReproduceError
from custard.reproduce.table2 import canonical, chunk_point, logged_commands, primitive_flags
from custard.sweeps import sweep
from custard.sweeps.errors import SweepError
from custard.sweeps.sweep import Sweeper
from formats.io import load_tensor, save_tensor
from formats.synthetic import random_tensor
from sam.cli import main

LINES = ['"y(i)=A(i,j)*x(j)" -f=y:d:0 -f=A:ds:0,1 -f=x:d:0',
         '"A(i,j)=B(i,j)+C(i,j)" -f=A:ss:0,1 -f=B:ss:0,1 -f=C:ss:0,1',
         '"a(i)=b(i)*c(i)" -f=a:s:0 -f=b:s:0 -f=c:d:0', "not an expression"]


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open() as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def quick_all(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("reproduce")
    assert main(["reproduce", "all", "-o", str(out), "--quick", "--scheduler", "sync",
                 "--engine", "reference", "--no-progress"]) == 0
    return out


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_quick_writes_csv_png_and_claims(quick_all: Path, name: str) -> None:
    rows = read_csv(quick_all / f"{name}.csv")
    assert rows and list(rows[0])[:3] == ["series", "x", "cycles"]
    assert (quick_all / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    claims = (quick_all / f"{name}-claims.md").read_text()
    assert "| # | Sec. | the paper says | we measured | verdict |" in claims
    assert "**PASS**" in claims and "took" in claims


def test_fig12_quick_values(quick_all: Path) -> None:
    """Every order's product was checked against numpy; the CSV's cycles are the simulator's."""
    from custard.reproduce.fig12 import point

    rows = [r for r in read_csv(quick_all / "fig12.csv") if r["series"] == "ours"]
    assert [r["x"] for r in rows] == ["ijk", "jik", "ikj", "jki", "kij", "kji"]
    assert all(r["correct"] == "True" for r in read_csv(quick_all / "fig12.csv")
               if r["correct"])
    again = point({"order": "kij", "sparsity": float(rows[0]["sparsity"]),
                   "shape_b": [40, 16], "shape_c": [16, 40], "engine": "fast"})
    assert int(next(r for r in rows if r["x"] == "kij")["cycles"]) == again["cycles"]
    assert again["correct"]


def test_fig14_counts_match_the_matrix(quick_all: Path) -> None:
    """B_i carries one coordinate per nonempty row, B_j one per nonzero and a stop per row."""
    rows = read_csv(quick_all / "fig14.csv")
    for name in fig14_mod.QUICK_MATRICES:
        coords, _ = load_tensor(name).to_coo()
        nnr = len(np.unique(coords[:, 0]))
        got = {r["series"]: int(r["cycles"]) for r in rows if r["x"] == name and r["cycles"]}
        assert got["Bi:data"] == nnr and got["Bi:stop"] == 1 and got["Bi:done"] == 1
        assert got["Bj:data"] == len(coords) and got["Bj:stop"] == nnr


def test_fig14_matrices_folder(tmp_path: Path) -> None:
    mats = tmp_path / "mats"
    mats.mkdir()
    save_tensor(random_tensor((30, 20), 0.2, 1), mats / "a.mtx")
    save_tensor(load_tensor("LFAT5"), mats / "LFAT5.mtx")
    done = reproduce("fig14", tmp_path / "out", quick=True, engine="reference",
                     scheduler="sync", matrices=mats, log=False)
    xs = {r["x"] for r in read_csv(done[0].files[0]) if r["series"] == "Bi:data"}
    assert xs == {"a", "LFAT5"}
    (tmp_path / "empty").mkdir()
    with pytest.raises(ReproduceError, match="no .mtx"):
        reproduce("fig14", tmp_path / "out", quick=True, scheduler="sync",
                  matrices=tmp_path / "empty", log=False)


def test_table2_classification_and_canonical_forms() -> None:
    from custard.cli import graph_from_command_line

    # Table 2 counts core SAM (every intersection a coiteration), as chunk_point compiles it
    flags = primitive_flags(graph_from_command_line([*shlex.split(LINES[0]), "--no-locate"]))
    assert {"scan", "scan_c", "repeat", "inter", "mul", "reduce", "write"} <= set(flags)
    assert "inter2" not in flags and "write_c" not in flags  # A's j against a dense x
    assert "union" in primitive_flags(graph_from_command_line(LINES[1]))
    res = chunk_point({"lines": LINES})["results"]
    assert [st for st, _ in res] == ["compiled", "compiled", "compiled", "refused"]
    # canonical forms: equal up to renaming tensors and index variables, formats kept
    assert canonical('"y(i)=A(i,j)*x(j)" -f=y:d:0 -f=A:ds:0,1') == canonical(
        '"z(k)=M(k,l)*v(l)" -f=M:ds:0,1 -f=z:d:0')
    assert canonical(LINES[0]) != canonical(LINES[0].replace("A:ds", "A:ss"))
    assert canonical("a(i)=b*c(i)") == canonical("x(j)=s*y(j)") != canonical("a(i)=b(i)*c(i)")
    assert len(logged_commands()) == 23_794


def test_sweep_cache_resume_and_code_hash(tmp_path: Path, monkeypatch) -> None:
    points = [{"lines": LINES[:2]}, {"lines": LINES[2:]}]
    with Sweeper(tmp_path, "sync") as s:
        first = s.run(chunk_point, points)
        assert (s.ran, s.cached) == (2, 0)
    files = sorted((tmp_path / "table2").glob("*.json"))
    assert len(files) == 2
    with Sweeper(tmp_path, "sync") as s:  # everything from the cache
        assert s.run(chunk_point, points) == first and (s.ran, s.cached) == (0, 2)
    files[0].write_text("{ half a fi")  # an interrupted write: computed again
    with Sweeper(tmp_path, "sync") as s:
        assert s.run(chunk_point, points) == first and (s.ran, s.cached) == (1, 1)
    monkeypatch.setattr(sweep, "code_hash", lambda: "changed-code")
    with Sweeper(tmp_path, "sync") as s:  # other code: other keys
        s.run(chunk_point, points)
        assert (s.ran, s.cached) == (2, 0)
    stored = json.loads(files[1].read_text())
    assert stored["point"] in points


def test_interrupted_sweep_resumes(tmp_path: Path, monkeypatch) -> None:
    """A sweep stopped after its first point keeps that point; the next run computes only the
    rest."""
    calls = []

    def flaky(p):
        if len(calls) == 1:
            raise KeyboardInterrupt
        calls.append(p)
        return chunk_point(p)

    flaky.__module__, flaky.__qualname__ = chunk_point.__module__, chunk_point.__qualname__
    points = [{"lines": LINES[:1]}, {"lines": LINES[1:2]}, {"lines": LINES[2:]}]
    with Sweeper(tmp_path, "sync") as s, pytest.raises(KeyboardInterrupt):
        s.run(flaky, points)
    with Sweeper(tmp_path, "sync") as s:
        s.run(chunk_point, points)
        assert (s.ran, s.cached) == (2, 1)


def test_dask_local_cluster_gives_the_same_results(tmp_path: Path) -> None:
    points = [{"lines": LINES[:2]}, {"lines": LINES[2:]}]
    want = [chunk_point(p) for p in points]
    with Sweeper(tmp_path / "c", workers=1, progress=False) as s:
        got = s.run(chunk_point, points)
        assert s.mode == "dask", s.warnings
        assert "local Dask cluster of 1 worker" in s.describe()
    assert got == want
    assert len(list((tmp_path / "c" / "table2").glob("*.json"))) == 2


def test_falls_back_when_the_cluster_cannot_start(tmp_path: Path, monkeypatch, capsys) -> None:
    import distributed

    def broken(*a, **k):
        raise OSError("no sockets here")

    monkeypatch.setattr(distributed, "LocalCluster", broken)
    with Sweeper(None, workers=2) as s:
        assert s.run(chunk_point, [{"lines": LINES[:1]}]) == [chunk_point({"lines": LINES[:1]})]
        assert s.mode == "sync"
    assert "could not start (OSError: no sockets here); running the points in this process" \
        in capsys.readouterr().err


def test_bad_requests_are_one_line_errors(tmp_path: Path, capsys) -> None:
    assert main(["reproduce", "fig99", "-o", str(tmp_path)]) == 1
    assert "unknown experiment 'fig99'" in capsys.readouterr().err
    assert main(["reproduce", "fig14", "-o", str(tmp_path), "--matrices",
                 str(tmp_path / "nope")]) == 1
    assert "not a folder" in capsys.readouterr().err
    assert main(["reproduce", "fig12", "-o", str(tmp_path), "--workers", "0"]) == 1
    assert "--workers 0" in capsys.readouterr().err
    err = capsys.readouterr().err
    assert "Traceback" not in err
    with pytest.raises(SweepError, match="cannot connect"):
        with Sweeper(None, "tcp://127.0.0.1:9", connect_timeout=1) as s:
            s.run(chunk_point, [{"lines": LINES[:1]}])


def test_fig12_full_compares_both_timings_with_the_original(tmp_path: Path) -> None:
    """At full size each default-timing claim that fails names the `--timing original` count,
    and every order under `--timing original` is within 5% of the original simulator."""
    from custard.reproduce import fig12

    with Sweeper(tmp_path, "sync", progress=False) as s:
        out = fig12.run(s, quick=False, engine="fast")
    timed = {r["x"]: r["cycles"] for r in out.rows if r["series"] == "ours, --timing original"}
    assert set(timed) == set(fig12.ORDERS)
    for o in fig12.ORDERS:
        assert abs(timed[o] / fig12.ORIGINAL[o] - 1) <= 0.05
    original_claims = [c for c in out.claims if "under `--timing original`:" in c.text]
    assert len(original_claims) == 6 and all(c.verdict == "PASS" for c in original_claims)
    for c in out.claims:
        if c.verdict == "FAIL":
            assert f"under `--timing original` {timed[c.text[:3]]:,}" in c.measured


def test_fig14_threshold_failure_names_the_control_share() -> None:
    """A case below 3.98 rows where level streams win is explained by its own control share."""
    from custard.reproduce.fig14 import _why_below_bound

    # 10 nonempty rows, 30 nonzeros: data tokens 10 + 2*30 = 70; 7 control tokens: c = 0.1
    r = {"nnr": 10, "nnz": 30, "Bi_data": 10, "Bi_stop": 1, "Bi_done": 1, "Bi_empty": 0,
         "Bj_data": 30, "Bj_stop": 2, "Bj_done": 1, "Bj_empty": 0, "vals_data": 30,
         "vals_stop": 1, "vals_done": 1, "vals_empty": 0}
    text = _why_below_bound([("m", r)], ["m"])
    assert "at most 0.100" in text and f"is {1.1 / 0.8:.2f} nonzeros" in text
    assert _why_below_bound([("m", r)], []) == ""


def test_gogeta_ecology_gap_is_the_missing_saving() -> None:
    """The failing ecology1 claim states how many MB short of the paper's 18% GOGETA is."""
    from custard.dag.traffic import BYTES_PER_WORD, MB
    from custard.reproduce.gogeta import _ecology_gap

    mb = MB // BYTES_PER_WORD  # words in a megabyte
    v = {"seq_flex": 1000 * mb, "seq_overflow": 900 * mb, "gogeta": 810 * mb}  # 10% gain
    assert "save 72 MB more (of 900 MB)" in _ecology_gap([v], [0.10])
    assert _ecology_gap([v], [0.2]) == ""


def test_table1_original_custard_rows_are_recorded_and_compared() -> None:
    """The original Custard's graphs of Table 1's expressions (recorded node counts) give our
    rows; the scanner/writer claim names the row that fails in the original's graphs too."""
    import json

    from custard.counts import TABLE1, table1
    from custard.reproduce import table1 as mod

    record = json.loads(mod.ORIGINAL.read_text())
    assert record["commit"] and record["branch"] == "sam"
    assert set(record["entries"]) == {e.name for e in TABLE1}
    original = mod.original_rows()
    for entry, ours in table1():
        assert original[entry.name] == ours, entry.name
    with Sweeper(None, "sync", progress=False) as s:
        out = mod.run(s)
    claim = next(c for c in out.claims if "scanners and writers are higher" in c.text)
    assert "original Custard's own graphs (not: MatTransMul, whose largest is Array 5)" \
        in claim.measured
    assert any(c.verdict == "PASS" and "14 of 14 rows equal" in c.measured for c in out.claims)
    assert len([r for r in out.rows if r["series"] == "original Custard"]) == 14 * 9
