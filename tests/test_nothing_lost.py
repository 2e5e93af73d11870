"""Issue 11, the output side: a run's results are never thrown away and no file is clobbered.

One test per row of the issue's table (the reader and DOT-parser rows are in
``test_formats_io.py`` and ``test_dot_limits.py``): clobbering outputs refused before anything
runs, missing folders found before simulating, the check decided before simulating (and a run
that cannot be checked still writes its report and result), NaN/inf inputs check PASS without a
numpy warning, repeated options refused.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from formats.io import load_tensor, save_tensor
from formats.synthetic import random_tensor
from sam import cli as sam_cli

ROOT = Path(__file__).resolve().parent.parent
GRAPHS = ROOT / "dot_graphs"
ELEMADD = GRAPHS / "mat_elemadd.gv"
SPMV = GRAPHS / "mat_vecmul_ij.gv"


def sam_sim(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sam.cli", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def refused(proc: subprocess.CompletedProcess, *words: str) -> str:
    assert proc.returncode == 1, proc.stdout + proc.stderr
    line = proc.stderr.strip()
    assert "\n" not in line and "Traceback" not in line, line
    for w in words:
        assert w in line, line
    return line


@pytest.fixture
def work(tmp_path: Path) -> Path:
    save_tensor(random_tensor((6, 6), 0.5, 1), tmp_path / "in.mtx")
    shutil.copy(SPMV, tmp_path / "g.gv")
    return tmp_path


def test_output_equal_to_an_input_is_refused(work: Path) -> None:
    before = (work / "in.mtx").read_bytes()
    refused(sam_sim(work, "run", "g.gv", "-t", "B=in.mtx", "-t", "c=random:0.5",
                    "-o", "in.mtx"), "-o in.mtx", "input")
    refused(sam_sim(work, "run", "g.gv", "-t", "B=in.mtx", "-t", "c=random:0.5",
                    "--report", "./g.gv"), "--report", "input")
    refused(sam_sim(work, "draw", "g.gv", "-o", "g.gv"), "g.gv")
    assert (work / "in.mtx").read_bytes() == before
    assert (work / "g.gv").read_bytes() == SPMV.read_bytes()


def test_two_outputs_of_one_file_are_refused(work: Path) -> None:
    refused(sam_sim(work, "run", "g.gv", "-t", "B=in.mtx", "-t", "c=random:0.5",
                    "-o", "X.mtx", "--report", "X.mtx"), "same file")
    assert not (work / "X.mtx").exists()


def test_draw_writes_only_pictures(work: Path) -> None:
    refused(sam_sim(work, "draw", "g.gv", "-o", "copy.mtx"), "unknown picture format 'mtx'")
    assert not (work / "copy.mtx").exists()


def _args(**kw) -> argparse.Namespace:
    base = dict(tensor=[], check=False, json=False, report=None, engine="fast",
                fifo_depth=None, latency=[], seed=0, no_progress=True, output=None, expr=None)
    base.update(kw)
    return argparse.Namespace(**base)


def test_missing_output_folder_found_before_simulating(work: Path, monkeypatch) -> None:
    from sam.graph.dot import load

    def no_simulation(*a, **k):
        raise AssertionError("simulated before finding the missing folder")

    monkeypatch.setattr("sam.sim.engine.Simulation.run", no_simulation)
    graph = load(work / "g.gv")
    for kw in ({"output": str(work / "nodir" / "X.mtx")},
               {"report": str(work / "nodir" / "r.json")}):
        with pytest.raises(sam_cli.ToolkitError, match="does not exist"):
            sam_cli.run_graphs(graph, _args(tensor=["B=in.mtx", "c=random:0.5"], **kw),
                               graph_path="g.gv")


def test_check_decided_before_simulating_and_results_kept(work: Path, monkeypatch,
                                                          capsys) -> None:
    """A check that cannot run is said before the simulation; the report and the result are
    still written, with the reason in the report."""
    import sam.gold
    from sam.graph.dot import load

    monkeypatch.chdir(work)
    monkeypatch.setattr(sam.gold, "MAX_ENTRIES", 1)
    monkeypatch.setattr("sam.check.SPARSE_FROM", 0)
    import sam.check

    def no_scipy(expression, *a):
        raise sam.check.CheckError("scipy cannot")

    monkeypatch.setattr(sam.check, "_expected_sparse", no_scipy)
    order: list[str] = []
    import sam.sim.engine as engine

    run = engine.Simulation.run

    def spy(*a, **k):
        if getattr(a[0], "refine", True):  # not the recorder's re-run on smaller rings
            order.append("simulate")
        return run(*a, **k)

    monkeypatch.setattr(engine.Simulation, "run", spy)
    graph = load(work / "g.gv")
    status = sam_cli.run_graphs(
        graph, _args(tensor=["B=in.mtx", "c=random:0.5:3"], check=True, output="X.tns",
                     report="r.json", expr="x(i)=B(i,j)*c(j)"), graph_path="g.gv")
    err = capsys.readouterr().err
    assert status == 0 and order == ["simulate"]
    assert "check skipped" in err
    report = json.loads((work / "r.json").read_text())
    assert "products" in report["check"]["skipped"]
    x = load_tensor(str(work / "X.tns"), "s", shape=(6,)).to_dense().ravel()
    b = load_tensor(str(work / "in.mtx")).to_dense()
    assert x.shape == (6,) and np.isfinite(x).all()
    assert report["cycles"] > 0 and b.shape == (6, 6)


@pytest.mark.parametrize("bad", ["nan", "inf"])
def test_non_finite_inputs_check_pass_without_warnings(work: Path, bad: str) -> None:
    b = random_tensor((6, 6), 0.5, 2).to_dense()
    b[np.nonzero(b)[0][0], np.nonzero(b)[1][0]] = float(bad)
    np.save(work / "b.npy", b)
    proc = sam_sim(work, "run", ELEMADD, "-t", "B=b.npy", "-t", "C=random:0.5:5", "--check",
                   "-o", "X.npy")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASS" in proc.stdout
    assert "Warning" not in proc.stderr and "warn" not in proc.stderr.lower()
    got = np.load(work / "X.npy")
    assert np.isnan(got).sum() + np.isinf(got).sum() == 1


def test_repeated_latency_is_refused(work: Path) -> None:
    refused(sam_sim(work, "run", "g.gv", "-t", "B=in.mtx", "-t", "c=random:0.5",
                    "--latency", "mul=2", "--latency", "mul=3"), "mul", "already given")


def test_deadlock_writes_the_report_with_partial_statistics(tmp_path: Path) -> None:
    """A bounded-FIFO deadlock is one line on stderr, and --report holds the run so far: the
    error, per-block statistics that add up (tokens out of each block = tokens on its streams)."""
    # mat_residual without its mindepth="2" edge attribute (custard.depths) deadlocks at depth 1
    proc = sam_sim(tmp_path, "run", ROOT / "tests" / "data" / "deadlock_mat_residual.gv", "-t",
                   "b=random:0.4:1:7", "-t", "C=random:0.4:2:7x7", "-t", "d=random:0.4:3:7",
                   "--fifo-depth", "1", "--engine", "reference", "--report", "r.json")
    line = refused(proc, "simulation cannot progress", "r.json")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["error"] and "cannot progress" in report["error"] and report["error"] in line
    assert report["interrupted"] is True and report["outputs"] == {}
    blocks = {b["id"]: b for b in report["blocks"]}
    assert sum(b["busy"] for b in blocks.values()) > 0
    emitted = {}
    for s in report["streams"]:
        emitted.setdefault((s["src"], s["src_port"]), sum(s["tokens"].values()))
    by_block = {}
    for (src, _), n in emitted.items():
        by_block[src] = by_block.get(src, 0) + n
    for bid, n in by_block.items():
        assert sum(blocks[bid]["tokens_out"].values()) == n
    # and the report still draws
    from sam.report import load_report

    assert load_report(tmp_path / "r.json")["error"] == report["error"]


def test_each_synthetic_operand_gets_its_own_seed(tmp_path: Path) -> None:
    """(B+C)*(D-E) with D and E random without a seed: D differs from E (the result is not
    zero), and the report records each operand's seed and full spec, enough to rerun it."""
    import custard
    from sam.bind import seed_for
    from sam.graph.dot import dump

    dump(custard.compile("X(i,j)=(B(i,j)+C(i,j))*(D(i,j)-E(i,j))"), tmp_path / "g.gv")
    proc = sam_sim(tmp_path, "run", "g.gv", "-t", "B=random:0.5:1:8x8", "-t", "C=random:0.5:2",
                   "-t", "D=random:0.2", "-t", "E=random:0.2", "--seed", "4", "--check",
                   "--json", "-o", "X.npy")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["check"]["passed"] and report["outputs"]["X"]["nnz"] > 0
    d, e = (report["inputs"][n]["source"] for n in "DE")
    assert d == f"random:0.2:{seed_for(4, 'D')}:8x8" and e == f"random:0.2:{seed_for(4, 'E')}:8x8"
    assert d != e and report["seed"] == 4
    # the recorded specs reproduce the run
    again = sam_sim(tmp_path, "run", "g.gv", "-t", "B=random:0.5:1:8x8", "-t",
                    report["inputs"]["C"]["source"].join(["C=", ""]), "-t", f"D={d}",
                    "-t", f"E={e}", "--json", "-o", "X2.npy")
    assert again.returncode == 0, again.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "X.npy"), np.load(tmp_path / "X2.npy"))


def test_custard_name_names_the_graph(tmp_path: Path) -> None:
    """custard compile --name N writes ``digraph N {``; reading and writing keeps it."""
    from sam.graph.dot import dumps, load

    proc = subprocess.run([sys.executable, "-m", "custard.cli", "compile", "x(i)=B(i,j)*c(j)",
                           "--name", "spmv", "-o", "g.gv"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "g.gv").read_text()
    assert text.startswith("digraph spmv {")
    assert dumps(load(tmp_path / "g.gv")) == text


def test_custard_counts_after_import_custard() -> None:
    import custard

    graph = custard.compile("x(i)=B(i,j)*c(j)")
    assert custard.counts.row(graph) == custard.counts.row(custard.compile("x(i)=B(i,j)*c(j)"))
    assert sum(custard.counts.row(graph)) > 0


def test_first_run_says_it_compiles_kernels(tmp_path: Path) -> None:
    """A cold kernel cache: the fast engine says it compiles (once), and counts the kernels
    as they compile, instead of seconds of silence; the next run, cached, says nothing."""
    import os

    env = dict(os.environ, SAM_CACHE_DIR=str(tmp_path / "cache"))
    args = [sys.executable, "-m", "sam.cli", "run", str(GRAPHS / "vec_identity.gv"), "-t",
            "b=random:0.5:1:10"]
    first = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=600)
    assert first.returncode == 0, first.stderr
    assert "compiling 4 kernels with numba" in first.stderr
    assert "compiled 4/4 kernels" in first.stderr
    again = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=600)
    assert again.returncode == 0 and "compiling" not in again.stderr
    assert again.stdout.splitlines()[0] == first.stdout.splitlines()[0]


def test_sam_sim_tensor_takes_random_specs_and_custard_spelling(tmp_path: Path) -> None:
    from formats.synthetic import random_tensor as rt

    proc = sam_sim(tmp_path, "tensor", "random:0.3:1:4x5", "-f=B:ss:1,0")
    assert proc.returncode == 0, proc.stderr
    want = rt((4, 5), 0.3, 1).with_format("ss:1,0")
    assert proc.stdout.splitlines()[0].startswith("T: shape 4x5, format ss10")
    assert f"crd = {want.levels[1].crd.tolist()}" in proc.stdout
    refused(sam_sim(tmp_path, "tensor", "random:0.3"), "give the shape")
    proc = sam_sim(tmp_path, "tensor", "west0479", "-f=B:ds")
    assert proc.returncode == 0 and "format ds01" in proc.stdout


def test_drawings_group_thousands() -> None:
    from sam.graph import draw

    assert draw._token_label({"data": 12345, "stop": 1000}) == "13,345 = 12,345 data + 1,000 stop"


def test_failed_run_leaves_an_existing_output_intact(work: Path) -> None:
    """-o keep.npy (an existing file) with an input declared 99999999999 x 99999999999: one line
    before anything is allocated, and keep.npy keeps its bytes (was: internal error, 0 bytes)."""
    np.save(work / "keep.npy", np.arange(5.0))
    before = (work / "keep.npy").read_bytes()
    line = refused(sam_sim(work, "run", "g.gv", "-t", "B=random:0.5:1:99999999999x99999999999",
                           "-t", "c=random:0.5", "-o", "keep.npy"))
    assert "99999999999" in line or "positions" in line
    assert (work / "keep.npy").read_bytes() == before
    line = refused(sam_sim(work, "run", "g.gv", "-t", "B=random:0.5:1:30000x30000",
                           "-t", "c=random:0.5", "--check", "-o", "keep.npy"), "memory")
    assert (work / "keep.npy").read_bytes() == before
