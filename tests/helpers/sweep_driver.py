"""The sweep the Dask fault tests drive (tests/test_sweep_faults.py): :data:`POINTS` through
:func:`slow_point` (each point sleeps ``SWEEP_TEST_SLEEP`` seconds on the workers, so there is
a "mid-sweep"), run by :func:`main`, a command that goes through the toolkit's top-level error
handler like ``sam-sim``. Workers import it as ``helpers.sweep_driver`` (``tests/`` on their
``PYTHONPATH``)."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

from custard.reproduce.common import write_csv
from custard.sweeps.sweep import Sweeper

POINTS = [{"k": k} for k in range(10)]


def slow_point(p: dict[str, Any]) -> dict[str, Any]:
    """A point: a few values of ``k`` after ``SWEEP_TEST_SLEEP`` seconds."""
    time.sleep(float(os.environ.get("SWEEP_TEST_SLEEP", "0")))
    k = p["k"]
    return {"square": k * k, "ratio": k / 7, "name": f"p{k}"}


def crashing_point(p: dict[str, Any]) -> dict[str, Any]:
    """A point whose ``k == 1`` kills the process computing it (a segfault, the OOM killer)."""
    if p["k"] == 1:
        os._exit(3)
    return slow_point(p)


def _sweep(args: argparse.Namespace) -> int:
    fn = crashing_point if args.crash else slow_point
    with Sweeper(Path(args.cache), args.scheduler, args.workers, progress=False,
                 prog="sweep-test") as s:
        results = s.run(fn, POINTS, "test")
    rows = [{"series": "test", "x": p["k"], "cycles": r["square"], "ratio": r["ratio"],
             "name": r["name"]} for p, r in zip(POINTS, results, strict=True)]
    write_csv(Path(args.out), rows)
    print(f"computed {s.ran}, cached {s.cached}")
    return 0


def _parser() -> argparse.ArgumentParser:
    from sam.command.entry import Parser

    p = Parser(prog="sweep-test")
    p.add_argument("--scheduler")
    p.add_argument("--cache", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--workers", type=int)
    p.add_argument("--crash", action="store_true", help="point 1 kills its worker")
    p.set_defaults(func=_sweep)
    return p


def main(argv: list[str] | None = None) -> int:
    """The sweep as a command (``python -c 'import helpers.sweep_driver as t; t.main()'``)."""
    from sam.command.entry import run_main

    return run_main("sweep-test", _parser, argv, debug_env="SWEEP_TEST_DEBUG")
