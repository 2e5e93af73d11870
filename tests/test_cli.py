"""The ``sam-sim tensor`` command, run as a user would (a subprocess)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from formats.io import load_tensor

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(
    not (ROOT / "sam" / "cli.py").exists(), reason="sam/cli.py has not landed in this checkout"
)


def sam_sim(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sam.cli", *args], cwd=ROOT, capture_output=True, text=True,
        timeout=120,
    )


def test_tensor_prints_level_arrays() -> None:
    run = sam_sim("tensor", "west0479", "-f", "ds")
    assert run.returncode == 0, run.stderr
    t = load_tensor("west0479", "ds")
    seg, crd = t.levels[1].seg.tolist(), t.levels[1].crd.tolist()
    lines = run.stdout.splitlines()
    assert lines[0].startswith("west0479: shape 479x479, format ds01 (ds:0,1), 1910 stored values")
    assert "  level 0 (mode 0, dense, size 479):" in lines
    assert "  level 1 (mode 1, compressed, size 479):" in lines
    assert f"    seg = [{', '.join(map(str, seg[:8]))}, ..." in run.stdout
    assert f"    crd = [{', '.join(map(str, crd[:8]))}, ..." in run.stdout
    assert "(480 entries)" in run.stdout and "(1910 entries)" in run.stdout


def test_tensor_dcsr_small() -> None:
    run = sam_sim("tensor", "splatt-small", "-f", "sss")
    assert run.returncode == 0, run.stderr
    assert "    crd = [1, 0, 0, 0, 1, 0]" in run.stdout
    assert "  vals = [3, 1, 2, 4, 6, 5]" in run.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["tensor", "/no/such/file.mtx"], "sam-sim: error: /no/such/file.mtx: no such file"),
        (["tensor", "no-such-name"], "sam-sim: error: unknown tensor 'no-such-name'"),
        (["tensor", "west0479", "-f", "sss"], "sam-sim: error: format sss012 describes"),
        (["tensor", str(ROOT / "tests/data/bad-input/mangled13.mtx")],
         "mangled13.mtx:7: column index 9999 is outside 1..4"),
    ],
)
def test_errors_are_one_line(args: list[str], message: str) -> None:
    run = sam_sim(*args)
    assert run.returncode == 1
    assert run.stdout == ""
    assert "Traceback" not in run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("sam-sim: error: ")
    assert message in lines[0]
