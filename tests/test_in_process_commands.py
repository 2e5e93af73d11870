"""Command code the CLI tests reach only through subprocesses, run in this process (so the fast
tier, which starts no process, runs it too): ``python -m sam`` and ``python -m custard``
(``__main__``), and ``sam-sim plot`` (:mod:`sam.plot`) on a report ``sam-sim run`` wrote."""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path

import pytest

from sam.cli import main as sam_main

ROOT = Path(__file__).resolve().parent.parent
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("package, prog", [("sam", "sam-sim"), ("custard", "custard")])
def test_python_m_package_is_the_command(package: str, prog: str, monkeypatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", [prog, "--help"])
    with pytest.raises(SystemExit) as exit_:
        runpy.run_module(package, run_name="__main__")
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: {prog}")


def test_plot_a_report_in_process(tmp_path: Path, monkeypatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert sam_main(["run", str(ROOT / "dot_graphs" / "mat_vecmul_ij.gv"), "-t", "B=west0067",
                     "-t", "c=random:0.5", "--engine", "reference", "--report",
                     "report.json"]) == 0
    report = json.loads(Path("report.json").read_text())
    assert report["cycles"] > 0
    capsys.readouterr()
    assert sam_main(["plot", "report.json", "-o", "tokens.png"]) == 0
    assert capsys.readouterr().out.splitlines() == ["wrote tokens.png",
                                                    "wrote tokens-timeline.png"]
    for name in ("tokens.png", "tokens-timeline.png"):
        assert Path(name).read_bytes()[:8] == PNG_MAGIC
