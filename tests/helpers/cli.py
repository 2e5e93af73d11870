"""The two commands run as subprocesses (``python -m sam.cli``, ``python -m custard.cli``) with
this checkout on ``PYTHONPATH`` and no debug tracebacks; :func:`ok` asserts a clean exit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.pop("SAM_SIM_DEBUG", None)
    env.pop("CUSTARD_DEBUG", None)
    return env


def _cli(module: str, args: tuple, cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], cwd=cwd,
                          env=cli_env(), capture_output=True, text=True, timeout=timeout)


def sam_sim(cwd: Path, *args, timeout: float = 600) -> subprocess.CompletedProcess:
    return _cli("sam.cli", args, cwd, timeout)


def custard(cwd: Path, *args, timeout: float = 600) -> subprocess.CompletedProcess:
    return _cli("custard.cli", args, cwd, timeout)


def ok(proc: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr
    return proc
