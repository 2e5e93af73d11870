"""Issue 31: every subcommand keeps the command layer's promises (:mod:`sam.command`).

One table, every subcommand of ``sam-sim`` and ``custard`` x the hostile inputs a new or a
hostile user gives: an output that is an input, an output in a missing folder, an undecodable
input, an empty input, an absurd size option, and Ctrl-C in the middle of the work. Each must
end in one line on stderr, a non-zero exit, no traceback, and every input byte for byte as it
was (and no output file left behind). A cell that does not apply (``table1`` reads no file) is
``None`` with the reason in :data:`NOT_APPLICABLE`; the table must name every subcommand the
parsers have (:func:`test_the_table_covers_every_subcommand`).

The five file cases run in this process (``main(argv)``); Ctrl-C runs each command in a child
process that sends itself SIGINT half-way through the command's own function calls (counted in
a first run), so the interrupt lands in the middle of the work, deterministically.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from formats.io import save_tensor
from formats.synthetic import random_tensor

ROOT = Path(__file__).resolve().parent.parent
SPMV = ROOT / "dot_graphs" / "mat_vecmul_ij.gv"
GCN = ROOT / "custard" / "dag" / "examples" / "gcn.dag"
MEMORY = ROOT / "sam" / "memory_configs" / "extensor_17M_llb.yaml"

SAM, CUSTARD = "sam-sim", "custard"
CASES = ("clobber", "missing_folder", "undecodable", "empty", "absurd_size")
#: bytes no UTF-8 decoder accepts, and no tensor, graph or program reader either
BAD_BYTES = b"\xff\xfe\x00\x81 not text \xc3\x28\n"

SPMV_RUN = ["g.gv", "-t", "B=in.mtx", "-t", "c=random:0.5"]
TABLE1_SCF = ["--op", "sls"]
DAG_BIND = ["-t", "A=in.mtx", "-t", "X0=random:1:0:6x3", "-t", "W0=random:1:1:3x2",
            "-t", "W1=random:1:2:2x2"]
TILE = ["X(i,j)=B(i,k)*C(k,j)", "-t", "B=in.mtx", "-t", "C=B", "--tile", "2"]
MLIR_BIND = ["-t", "A=in.mtx", "-t", "b=random:0.5"]

#: subcommand -> case -> argv (after the program name), or None where the case does not apply
TABLE: dict[tuple[str, str], dict[str, list[str] | None]] = {
    (SAM, "run"): {
        "clobber": ["run", *SPMV_RUN, "-o", "in.mtx"],
        "missing_folder": ["run", *SPMV_RUN, "-o", "missing/x.mtx"],
        "undecodable": ["run", "bad.gv", "-t", "B=in.mtx", "-t", "c=random:0.5"],
        "empty": ["run", "g.gv", "-t", "B=empty.mtx", "-t", "c=random:0.5"],
        "absurd_size": ["run", *SPMV_RUN, "--fifo-depth", str(10**15)],
    },
    (SAM, "draw"): {
        "clobber": ["draw", "g.gv", "-o", "g.gv"],
        "missing_folder": ["draw", "g.gv", "-o", "missing/g.svg"],
        "undecodable": ["draw", "bad.gv", "-o", "g.svg"],
        "empty": ["draw", "empty.gv", "-o", "g.svg"],
        "absurd_size": ["draw", "g.gv", "-o", "g.svg", "--phase", str(10**12)],
    },
    (SAM, "plot"): {
        "clobber": ["plot", "report.json", "-o", "report.json"],
        "missing_folder": ["plot", "report.json", "-o", "missing/t.png"],
        "undecodable": ["plot", "bad.json", "-o", "t.png"],
        "empty": ["plot", "empty.json", "-o", "t.png"],
        "absurd_size": ["plot", "report.json", "-o", "t.png", "--phase", str(10**12)],
    },
    (SAM, "trace"): {
        "clobber": ["trace", "report.json", "-o", "report.json"],
        "missing_folder": ["trace", "report.json", "-o", "missing/t.json"],
        "undecodable": ["trace", "bad.json", "-o", "t.json"],
        "empty": ["trace", "empty.json", "-o", "t.json"],
        "absurd_size": ["trace", "report.json", "-o", "t.json", "--max-events", str(10**12)],
    },
    (SAM, "report"): {
        "clobber": ["report", "report.json", "-o", "report.json"],
        "missing_folder": ["report", "report.json", "-o", "missing/r.html"],
        "undecodable": ["report", "bad.json", "-o", "r.html"],
        "empty": ["report", "empty.json", "-o", "r.html"],
        "absurd_size": ["report", "absurd.json", "-o", "r.html"],  # 10^12 activity buckets
    },
    (SAM, "tmu"): {
        "clobber": ["tmu", "--op", "sls", "-A", "in.mtx", "--dot", "in.mtx"],
        "missing_folder": ["tmu", "--op", "sls", "-A", "in.mtx", "--dot", "missing/t.gv"],
        "undecodable": ["tmu", "--op", "sls", "-A", "bad.mtx"],
        "empty": ["tmu", "--op", "sls", "-A", "empty.mtx"],
        "absurd_size": ["tmu", "--op", "sls", "-A", "in.mtx", "--lanes", str(10**8)],
    },
    (SAM, "tensor"): {
        "clobber": None, "missing_folder": None,
        "undecodable": ["tensor", "bad.mtx"],
        "empty": ["tensor", "empty.mtx"],
        "absurd_size": ["tensor", "random:0.5:1:100000000x100000000"],
    },
    (SAM, "data"): {"clobber": None, "missing_folder": None, "undecodable": None,
                    "empty": None, "absurd_size": None},
    (SAM, "warm"): {"clobber": None, "missing_folder": None,
                    "undecodable": ["warm", "bad.gv"],
                    "empty": ["warm", "empty.gv"],
                    "absurd_size": ["warm", "g.gv", "-j", str(10**9)]},
    (SAM, "reproduce"): {
        "clobber": ["reproduce", "fig14", "--quick", "--scheduler", "sync", "--matrices",
                    "mats", "-o", "mats"],
        "missing_folder": ["reproduce", "table1", "--scheduler", "sync", "-o", "missing/out"],
        "undecodable": ["reproduce", "fig14", "--quick", "--scheduler", "sync", "--matrices",
                        "badmats", "-o", "out"],
        "empty": ["reproduce", "fig14", "--quick", "--scheduler", "sync", "--matrices",
                  "emptymats", "-o", "out"],
        "absurd_size": ["reproduce", "table1", "--workers", str(10**6), "-o", "out"],
    },
    (CUSTARD, "compile"): {
        "clobber": ["compile", "x(i)=B(i,j)*c(j)", "--run", "-t", "B=in.mtx", "-t",
                    "c=random:0.5", "--result", "in.mtx"],
        "missing_folder": ["compile", "x(i)=B(i,j)*c(j)", "-o", "missing/g.gv"],
        "undecodable": ["compile", "x(i)=B(i,j)*c(j)", "--run", "-t", "B=bad.mtx", "-t",
                        "c=random:0.5"],
        "empty": ["compile", ""],
        "absurd_size": ["compile", "x(i)=B(i,j)*c(j)", "-s=parallelize(i,100000)"],
    },
    (CUSTARD, "counts"): {
        "clobber": None, "missing_folder": None,
        "undecodable": ["counts", "x(i)=B(i,j)*\udcff(j)"],  # argv bytes that are not UTF-8
        "empty": ["counts", " "],
        "absurd_size": ["counts", "x(i)=B(i,j)*c(j)", "-s=parallelize(i,100000)"],
    },
    (CUSTARD, "table1"): {"clobber": None, "missing_folder": None, "undecodable": None,
                          "empty": None, "absurd_size": None},
    (CUSTARD, "ember"): {
        "clobber": ["ember", "in.mlir", "-O3", "-o", "in.mlir"],
        "missing_folder": ["ember", "in.mlir", "-O3", "-o", "missing/x.mlir"],
        "undecodable": ["ember", "bad.mlir"],
        "empty": ["ember", "empty.mlir"],
        "absurd_size": ["ember", "in.mlir", "-O3", "--vlen", str(10**8)],
    },
    (CUSTARD, "tile"): {
        "clobber": ["tile", *TILE, "-o", "in.mtx"],
        "missing_folder": ["tile", *TILE, "-o", "missing/x.mtx"],
        "undecodable": [*(["tile"] + TILE), "--memory", "bad.yaml"],
        "empty": [*(["tile"] + TILE), "--memory", "empty.yaml"],
        "absurd_size": ["tile", *TILE[:-1], "0"],
    },
    (CUSTARD, "mlir"): {
        "clobber": ["mlir", "k.mlir", *MLIR_BIND, "--run", "--result", "in.mtx"],
        "missing_folder": ["mlir", "k.mlir", *MLIR_BIND, "-o", "missing/g.gv"],
        "undecodable": ["mlir", "bad.mlir"],
        "empty": ["mlir", "empty.mlir"],
        "absurd_size": ["mlir", "k.mlir", "--run", "-t", "A=random:0.5:1:100000000000x100000",
                        "-t", "b=random:0.5"],
    },
    (CUSTARD, "dag"): {
        "clobber": ["dag", "p.dag", *DAG_BIND, "-o", "p.dag"],
        "missing_folder": ["dag", "p.dag", *DAG_BIND, "-o", "missing/d.dot"],
        "undecodable": ["dag", "bad.dag", *DAG_BIND],
        "empty": ["dag", "empty.dag", *DAG_BIND],
        "absurd_size": ["dag", "p.dag", *DAG_BIND, "--iterations", str(10**12)],
    },
}

#: why a cell is None
NOT_APPLICABLE = {
    ("tensor", "clobber"): "prints the level arrays; writes no file",
    ("tensor", "missing_folder"): "writes no file",
    ("data", "clobber"): "lists the shipped data; reads and writes no file of the user's",
    ("data", "missing_folder"): "writes no file",
    ("data", "undecodable"): "reads no file of the user's",
    ("data", "empty"): "reads no file of the user's",
    ("data", "absurd_size"): "has no size option",
    ("warm", "clobber"): "writes only the kernel cache, never a file the user names",
    ("warm", "missing_folder"): "writes only the kernel cache, never a file the user names",
    ("counts", "clobber"): "prints counts; writes no file",
    ("counts", "missing_folder"): "writes no file",
    ("table1", "clobber"): "prints Table 1; writes no file",
    ("table1", "missing_folder"): "writes no file",
    ("table1", "undecodable"): "reads no input",
    ("table1", "empty"): "reads no input",
    ("table1", "absurd_size"): "has no size option",
}

#: for Ctrl-C: a run of each subcommand that does real work (small, to stay fast)
INTERRUPT = {
    (SAM, "run"): ["run", *SPMV_RUN, "--engine", "reference", "-o", "x.tns",
                   "--report", "r.json", "--no-progress"],
    (SAM, "draw"): ["draw", "g.gv", "-o", "g.svg", "--stats", "report.json"],
    (SAM, "plot"): ["plot", "report.json", "-o", "t.png"],
    (SAM, "trace"): ["trace", "act.json", "-o", "t.json"],
    (SAM, "report"): ["report", "act.json", "-o", "r.html"],
    (SAM, "tmu"): ["tmu", "--op", "sls", "-A", "in.mtx", "--engine", "reference"],
    (SAM, "tensor"): ["tensor", "in.mtx", "-f", "ds"],
    (SAM, "data"): ["data"],
    (SAM, "warm"): ["warm", "g.gv"],
    (SAM, "reproduce"): ["reproduce", "table1", "--scheduler", "sync", "-o", "out",
                         "--no-progress"],
    (CUSTARD, "compile"): ["compile", "X(i,j)=B(i,k)*C(k,j)", "--run", "-t", "B=in.mtx",
                           "-t", "C=B", "--engine", "reference", "--result", "x.mtx",
                           "--no-progress"],
    (CUSTARD, "counts"): ["counts", "X(i,j)=B(i,j)*C(i,k)*D(j,k)"],
    (CUSTARD, "table1"): ["table1"],
    (CUSTARD, "ember"): ["ember", "in.mlir", "-O3", "-o", "out.mlir"],
    (CUSTARD, "tile"): ["tile", *TILE, "--engine", "reference", "-o", "x.mtx"],
    (CUSTARD, "mlir"): ["mlir", "k.mlir", *MLIR_BIND, "--run", "--engine", "reference",
                        "--result", "x.tns", "-o", "k.gv"],
    (CUSTARD, "dag"): ["dag", "p.dag", *DAG_BIND, "--run", "--engine", "reference",
                       "--graphs", "p.gv"],
}


def _write_inputs(where: Path) -> None:
    """The files the table's command lines read."""
    save_tensor(random_tensor((6, 6), 0.5, 1), where / "in.mtx")
    shutil.copy(SPMV, where / "g.gv")
    shutil.copy(GCN, where / "p.dag")
    shutil.copy(MEMORY, where / "mem.yaml")
    from custard.ember.ops import scf_text

    (where / "in.mlir").write_text(scf_text("sls"))
    from helpers.mlir_text import mlir_kernel

    (where / "k.mlir").write_text(mlir_kernel("x(i)=A(i,j)*b(j)", {"A": "ds", "x": "d"},
                                              ["i", "j"]))
    for suffix in (".gv", ".mtx", ".json", ".mlir", ".dag", ".yaml"):
        (where / f"bad{suffix}").write_bytes(BAD_BYTES)
        (where / f"empty{suffix}").write_bytes(b"")
    for name, content in (("mats", None), ("badmats", BAD_BYTES), ("emptymats", b"")):
        (where / name).mkdir()
        if content is None:
            save_tensor(random_tensor((8, 8), 0.3, 2), where / name / "m.mtx")
        else:
            (where / name / "m.mtx").write_bytes(content)
    from sam.cli import main

    assert main(["run", *SPMV_RUN, "--report", "report.json", "--no-progress"]) == 0
    from helpers.trace_events import synthetic_activity

    report = json.loads((where / "report.json").read_text())
    report["activity"] = synthetic_activity(report, 256, streams=2)  # a trace of some size
    (where / "act.json").write_text(json.dumps(report))
    report["activity"] = {"bucket_cycles": 1, "buckets": 10**12, "blocks": {}}
    (where / "absurd.json").write_text(json.dumps(report))
    (where / "out").mkdir()  # reproduce's output folder (a folder of results may exist)


def _fingerprint(where: Path) -> dict[str, str]:
    return {str(p.relative_to(where)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(where.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("inputs")
    old = os.getcwd()
    os.chdir(where)
    try:
        _write_inputs(where)
    finally:
        os.chdir(old)
    return where


@pytest.fixture
def work(inputs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the inputs as the current folder."""
    where = tmp_path / "w"
    shutil.copytree(inputs, where)
    monkeypatch.chdir(where)
    monkeypatch.setenv("SAM_INTERPRET_SECONDS", "1000")  # small runs: no kernel compiling
    return where


def _main(prog: str):
    if prog == SAM:
        from sam.cli import main
    else:
        from custard.cli import main
    return main


def _cells() -> list[tuple[str, str, str]]:
    return [(prog, cmd, case) for (prog, cmd), row in TABLE.items() for case in CASES
            if row[case] is not None]


def _assert_refused(code: int, err: str, before: dict[str, str], after: dict[str, str]
                    ) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code not in (0, 4), err
    assert len(lines) == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    changed = sorted(k for k in before if after.get(k) != before[k])
    assert not changed, f"inputs changed: {changed}"
    new = sorted(set(after) - set(before))
    assert not new, f"files left behind: {new}"


@pytest.mark.parametrize("prog,cmd,case", _cells())
def test_hostile_input_is_one_line_and_changes_nothing(prog: str, cmd: str, case: str,
                                                       work: Path,
                                                       capsys: pytest.CaptureFixture) -> None:
    argv = TABLE[(prog, cmd)][case]
    assert argv is not None
    before = _fingerprint(work)
    capsys.readouterr()
    code = _main(prog)(list(argv))
    err = capsys.readouterr().err
    _assert_refused(code, err, before, _fingerprint(work))
    assert code == 1, err
    words = {"clobber": "input", "missing_folder": "does not exist",
             "undecodable": None, "empty": None, "absurd_size": None}[case]
    if words:
        assert words in err, err


def test_the_table_covers_every_subcommand() -> None:
    """Every subcommand of both parsers has a row, and every None cell a reason."""
    import argparse

    from custard.cli import build_parser as custard_parser
    from sam.cli import build_parser as sam_parser

    def commands(parser: argparse.ArgumentParser) -> set[str]:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return set(sub.choices)

    assert {c for p, c in TABLE if p == SAM} == commands(sam_parser())
    assert {c for p, c in TABLE if p == CUSTARD} == commands(custard_parser())
    assert set(INTERRUPT) == set(TABLE)
    for (_, cmd), row in TABLE.items():
        for case in CASES:
            assert (row[case] is None) == ((cmd, case) in NOT_APPLICABLE), (cmd, case)


#: The child of the Ctrl-C test: counts the calls into the toolkit's own code made by the
#: command's ``main`` (argv[1] = "count"), or sends itself SIGINT at call number argv[1].
DRIVER = r"""
import json, os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # as on a terminal, even in background
mode, prog, argv = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
if prog == "sam-sim":
    from sam.cli import main
else:
    from custard.cli import main
OURS = ("sam", "custard", "formats")
calls = 0
target = None if mode == "count" else int(mode)

def profile(frame, event, arg):
    global calls
    if event != "call" or frame.f_globals.get("__name__", "").split(".")[0] not in OURS:
        return
    calls += 1
    # not in a generator: a generator's "call" may be its close(), where Python ignores the
    # KeyboardInterrupt ("Exception ignored in: <generator ...>"); take the next call then
    if target is not None and calls >= target and not frame.f_code.co_flags & 0x2a0:
        sys.setprofile(None)
        os.kill(os.getpid(), signal.SIGINT)

sys.setprofile(profile)
code = main(argv)
sys.setprofile(None)
if mode == "count":
    sys.stdout.flush()
    os.write(2, f"CALLS {calls}\n".encode())
sys.exit(code)
"""


def _child(mode: str, prog: str, argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, SAM_INTERPRET_SECONDS="1000", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", DRIVER, mode, prog, json.dumps(argv)],
                          cwd=cwd, capture_output=True, text=True, timeout=300, env=env)


@pytest.mark.parametrize("prog,cmd", sorted(INTERRUPT))
def test_ctrl_c_in_the_middle_is_one_line(prog: str, cmd: str, work: Path, inputs: Path
                                          ) -> None:
    if (prog, cmd) == (SAM, "report") and importlib.util.find_spec("sam.html") is None:
        pytest.skip("sam/html.py (the page's writer) is not on this branch")
    argv = INTERRUPT[(prog, cmd)]
    full = _child("count", prog, argv, work)
    assert full.returncode == 0, full.stderr
    calls = int(full.stderr.rsplit("CALLS ", 1)[1])
    assert calls > 100, calls  # the command does real work in our code
    shutil.rmtree(work)
    shutil.copytree(inputs, work)
    before = _fingerprint(work)
    run = _child(str(calls // 2), prog, argv, work)
    assert run.returncode == 130, run.stderr
    lines = [ln for ln in run.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "interrupted" in lines[0], run.stderr
    assert "Traceback" not in run.stderr
    after = _fingerprint(work)
    assert {k: v for k, v in after.items() if k in before} == before
    # outputs are written whole or not at all: what exists is what a finished run writes
    for name in set(after) - set(before):
        assert not name.endswith(".part") and not Path(name).name.startswith("."), name


# ---------------------------------------------------------------- rows of the table
HUGE_MTX = "%%MatrixMarket matrix coordinate real general\n100000000000 100000000000 2\n" \
           "1 1 2.0\n99999999999 5 -3.5\n"


@pytest.fixture
def huge(work: Path) -> Path:
    """A 10^11 x 10^11 matrix of two nonzeros, and X(i,j)=B(i,j)*C(i,j) compiled."""
    (work / "huge.mtx").write_text(HUGE_MTX)
    from custard.cli import main

    assert main(["compile", "X(i,j)=B(i,j)*C(i,j)", "-o", "ew.gv"]) == 0
    assert main(["compile", "X(i,j)=B(i,j)*C(i,j)", "-f=X:dd", "-o", "ewd.gv"]) == 0
    return work


def _no_simulation(monkeypatch: pytest.MonkeyPatch) -> None:
    import sam.sim.engine

    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("simulated before refusing")

    monkeypatch.setattr(sam.sim.engine, "simulate", refuse)


def test_a_dense_npy_of_a_huge_result_is_refused_before_simulating(
        huge: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    from sam.cli import main

    _no_simulation(monkeypatch)
    assert main(["run", "ew.gv", "-t", "B=huge.mtx", "-t", "C=B", "-o", "X.npy"]) == 1
    err = capsys.readouterr().err
    assert "-o X.npy: result X is 100,000,000,000 x 100,000,000,000" in err
    assert "write .mtx or .tns" in err and err.count("\n") == 1
    assert main(["run", "ewd.gv", "-t", "B=huge.mtx", "-t", "C=B"]) == 1
    err = capsys.readouterr().err
    assert "result X (100,000,000,000 x 100,000,000,000) in format dd01" in err
    assert "-f=X:ss" in err
    assert not (huge / "X.npy").exists()


def test_a_huge_result_with_two_nonzeros_runs_checks_and_writes(
        huge: Path, capsys: pytest.CaptureFixture) -> None:
    """The gold and the comparison follow the nonzeros: no 745 GiB row pointer."""
    from formats.io import load_tensor
    from sam.cli import main

    assert main(["run", "ew.gv", "-t", "B=huge.mtx", "-t", "C=B", "-o", "X.mtx", "--check",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "PASS" in out
    x = load_tensor(str(huge / "X.mtx"))
    assert x.shape == (10**11, 10**11)
    coo = sorted(zip(*[c.tolist() for c in x.to_coo()[0].T], x.to_coo()[1].tolist(),
                     strict=True))
    assert coo == [(0, 0, 4.0), (99999999998, 4, 12.25)]


def test_compare_tells_a_wrong_huge_result() -> None:
    import numpy as np

    from formats.tensor import Tensor
    from sam.check import SparseGold, compare

    shape = (10**11, 10**11)
    crd = np.array([[0, 0], [99999999998, 4]])
    got = Tensor.from_coo(crd, np.array([4.0, 12.25]), shape, "ss")
    assert compare(got, SparseGold(shape, crd, np.array([4.0, 12.25]))).passed
    assert not compare(got, SparseGold(shape, crd, np.array([4.0, 12.0]))).passed
    assert not compare(got, SparseGold(shape, crd[:1], np.array([4.0]))).passed


def test_lane_ports_are_found_without_listing_them() -> None:
    """``port_named`` of lane blocks (constant time) agrees with their port lists."""
    from sam.blocks.base import make_block

    for dot_type, attrs in (("parallelize", {"lanes": "7", "kind": "ref"}),
                            ("serialize", {"lanes": "7", "kind": "crd", "mode": "crd"}),
                            ("lanereduce", {"lanes": "7"})):
        block = make_block("0", dot_type, attrs)
        for direction, ports in (("in", block.inputs()), ("out", block.outputs())):
            for port in ports:
                assert block.port_named(direction, port.name) == port
            for name in ("ref:lane7", "crd:lane7", "crd:in7", "val:in07", "ref:lane-1"):
                assert block.port_named(direction, name) is None, (dot_type, name)


def test_many_lanes_compile_and_simulate_right(monkeypatch: pytest.MonkeyPatch) -> None:
    """parallelize(i,200): the graph is 200 copies, the rings start small, the result right."""
    import numpy as np

    import custard
    from sam.graph.dot import dumps, loads
    from sam.runtime import wires
    from sam.sim.engine import simulate

    b, c = random_tensor((30, 30), 0.2, 3), random_tensor((30, 30), 0.2, 4)
    g = custard.compile("X(i,j)=B(i,k)*C(k,j)", order="ikj", schedule=["parallelize(i,200)"])
    assert g.count()["parallelize"] >= 1 and g.attrs["lanes"] == "i:200:rr"
    shapes = []
    real = wires.allocate
    monkeypatch.setattr(wires, "allocate",
                        lambda *a, **k: shapes.append(real(*a, **k).data.shape) or real(*a, **k))
    res = simulate(g, {"B": b.with_format("ss"), "C": c.with_format("ss")}, engine="reference")
    want = b.to_dense() @ c.to_dense()
    assert np.allclose(res.outputs["X"].to_dense(), want)
    n, cap = shapes[0]
    assert n * cap * 17 <= wires.START_BUDGET and cap >= 16
    # what `custard compile -o G.gv` then `sam-sim run G.gv` does: the same graph and cycles
    again = loads(dumps(g))
    assert again.count() == g.count()
    res2 = simulate(again, {"B": b.with_format("ss"), "C": c.with_format("ss")},
                    engine="reference")
    assert res2.cycles == res.cycles
    assert np.allclose(res2.outputs["X"].to_dense(), want)


def test_rings_beyond_memory_are_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import formats.memory
    from sam.errors import SimulationError
    from sam.runtime import wires

    monkeypatch.setattr(formats.memory, "available_bytes", lambda: 100 * 2**20)
    w = wires.allocate(1000, 1 << 12)
    with pytest.raises(SimulationError, match=r"1,000 streams with rings of 8,192 tokens needs"):
        while True:
            w = wires.grow(w)


@pytest.mark.parametrize("schedule,words", [
    ("split(i,i0,i1,4)", "add --split-mode stored|online, to run tile by tile use custard tile"),
    ("parallelize(i,CPUThread,NoRaces)", "for SAM lanes (parallelizer and serializer blocks, "
                                         "paper Sec. 4.4) write parallelize(i,N)"),
])
def test_notices_say_what_to_do(schedule: str, words: str,
                                capsys: pytest.CaptureFixture) -> None:
    from custard.cli import main

    assert main(["compile", "x(i)=B(i,j)*c(j)", f"-s={schedule}"]) == 0
    err = capsys.readouterr().err
    assert words in err and "not compiled yet" not in err and "tiling issue" not in err
