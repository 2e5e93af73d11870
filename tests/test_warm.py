"""``sam-sim warm`` and the per-kernel cache across processes (issue 35): kernels compile in
worker processes into the disk cache, a second warm compiles nothing, and after an edit to
one kernel's source only that kernel compiles again; a run then loads every kernel."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GRAPH = ROOT / "dot_graphs" / "vec_identity.gv"


def _tree(tmp: Path) -> Path:
    """A copy of ``sam`` (editable) beside a link to ``formats``."""
    src = tmp / "src"
    shutil.copytree(ROOT / "sam", src / "sam", ignore=shutil.ignore_patterns("__pycache__"))
    (src / "formats").symlink_to(ROOT / "formats")
    return src


def _sam(src: Path, cache: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(src), "SAM_CACHE_DIR": str(cache), **env}
    full.pop("SAM_COMPILE_JOBS", None)
    out = subprocess.run([sys.executable, "-m", "sam", *args], capture_output=True, text=True,
                         env=full, cwd=src, timeout=900)
    assert out.returncode == 0, out.stderr
    return out


def _compiled(out: subprocess.CompletedProcess) -> set[str]:
    """The kernels a ``warm`` says it compiled (its lines ``  1.23 s  NAME``)."""
    return set(re.findall(r"^\s+[\d.]+ s\s+(\S+)$", out.stdout, re.M))


def test_only_the_edited_kernel_compiles_again(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    cache = tmp_path / "cache"
    first = _sam(src, cache, "warm", str(GRAPH), "-j", "2")
    want = {"sam.blocks.scanners.scan", "sam.blocks.arrays.load", "sam.blocks.writers.write_crd",
            "sam.blocks.writers.write_vals"}
    assert _compiled(first) == want
    assert "compiled 4/4 kernels" in first.stderr  # progress
    again = _sam(src, cache, "warm", str(GRAPH))
    assert _compiled(again) == set() and "all 4 kernels are compiled already" in again.stdout

    # an edit to one kernel's code (not a comment): that kernel only
    writers = src / "sam" / "blocks" / "writers.py"
    lines = writers.read_text().splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("def write_vals("))
    doc_end = next(k for k in range(start + 1, len(lines)) if lines[k].rstrip().endswith('"""'))
    lines.insert(doc_end + 1, "    unused = 0  # an edit")
    writers.write_text("\n".join(lines) + "\n")
    (cache / "numba-0123456789abcdef").mkdir()  # an earlier toolkit's cache folder
    edited = _sam(src, cache, "warm", str(GRAPH), "--prune")
    assert _compiled(edited) == {"sam.blocks.writers.write_vals"}
    # the old version's index and code file, and the old folder, are gone
    assert "removed 2 files of older versions of these kernels and 1 folders" in edited.stdout
    assert len(list((cache / "kernels").glob("writers.write_vals-*"))) == 2
    assert not (cache / "numba-0123456789abcdef").exists()
    # a comment alone compiles nothing
    writers.write_text(writers.read_text().replace("# an edit", "# a comment"))
    assert _compiled(_sam(src, cache, "warm", str(GRAPH))) == set()

    # the run loads every kernel: nothing compiles, the result is the input
    run = _sam(src, cache, "run", str(GRAPH), "-t", "b=random:0.5:1:10", "--check",
               SAM_INTERPRET_SECONDS="0")
    assert "compiling" not in run.stderr and "PASS" in run.stdout
    assert "loaded from the disk cache" in run.stdout
