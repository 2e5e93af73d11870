"""``sam-sim reproduce NAME``: the SAM paper's experiments, one module per experiment.

Each module has ``TITLE`` and ``run(sweeper, *, quick, engine, matrices) -> Outcome``; this
package writes what it returns as ``DIR/NAME.csv`` (columns ``series,x,cycles`` and more),
``DIR/NAME.png`` (the paper's layout) and ``DIR/NAME-claims.md`` (each claim of the paper's text
about the experiment, our measured value, PASS/FAIL). Points of sweeps run on Dask with a disk
cache (:mod:`custard.sweeps.sweep`).
"""

from __future__ import annotations

import importlib
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from custard.reproduce.common import (
    FAIL,
    PASS,
    SKIP,
    ReproduceError,
    claims_markdown,
    write_csv,
    write_picture,
)
from custard.sweeps.sweep import Sweeper
from sam.command.files import write_text
from sam.command.outputs import check_output_folder

#: experiment name -> module (``custard.reproduce.NAME``), in the order ``all`` runs them
EXPERIMENTS = ("table1", "table2", "fig11", "fig12", "fig13", "fig14", "ragged",
               "ember-opt", "gogeta", "lanes", "mlir-fusion")
#: experiments run only by name (long: not part of ``all``)
BY_NAME = ("fig15",)


@dataclass
class Done:
    """One experiment's files, claim tally and run time."""

    name: str
    files: list[Path]
    passed: int
    failed: int
    skipped: int
    seconds: float


def names(name: str) -> list[str]:
    """The experiments ``name`` stands for (``all`` is every one)."""
    if name == "all":
        return list(EXPERIMENTS)
    if name not in EXPERIMENTS + BY_NAME:
        raise ReproduceError(f"unknown experiment {name!r}; choose one of "
                             f"{', '.join(EXPERIMENTS + BY_NAME)} or all")
    return [name]


def _module(exp: str) -> Any:
    """The module of experiment ``exp``."""
    return importlib.import_module(f"custard.reproduce.{exp.replace('-', '_')}")


def reproduce(name: str, out: Path, *, quick: bool = False, engine: str = "fast",
              scheduler: str | None = None, workers: int | None = None,
              cache: Path | None = None, use_cache: bool = True,
              matrices: Path | None = None, data: str | None = None, progress: bool = True,
              log: bool = True) -> list[Done]:
    """Run experiment ``name`` (or ``all``) and write its files into ``out`` (a folder whose
    parent exists: it is created, one level, as ``sam-sim run`` creates its outputs).
    ``data`` picks the operands of an experiment that offers a choice (its ``DATA``: the
    first is its default; fig11's ``artifact`` or ``paper``)."""
    todo = names(name)
    choices = {exp: _module(exp).DATA for exp in todo if hasattr(_module(exp), "DATA")}
    if data is not None:
        if not choices:
            raise ReproduceError(f"--data: {name} has one data set (--data is for fig11)")
        bad = [exp for exp, ds in choices.items() if data not in ds]
        if bad:
            raise ReproduceError(f"--data {data}: {bad[0]} offers "
                                 f"{', '.join(choices[bad[0]])}")
    if matrices is not None and not matrices.is_dir():
        raise ReproduceError(f"--matrices {matrices}: not a folder of .mtx files")
    check_output_folder("-o", out, [matrices])  # results beside the data they read: refused
    if cache is not None and use_cache:
        check_output_folder("--cache", cache)
    try:
        out.mkdir(exist_ok=True)
    except OSError as err:
        raise ReproduceError(f"-o {out}: {err.strerror or err}") from None
    cache_dir = (cache or out / ".cache") if use_cache else None
    done: list[Done] = []
    with Sweeper(cache_dir, scheduler, workers, progress) as sweeper:
        for exp in todo:
            module = _module(exp)
            start = time.perf_counter()
            picked = {"data": data} if data is not None and exp in choices else {}
            used = data if picked else (choices[exp][0] if exp in choices else None)
            outcome = module.run(sweeper, quick=quick, engine=engine, matrices=matrices,
                                 **picked)
            files = [out / f"{exp}.csv", out / f"{exp}.png", out / f"{exp}-claims.md"]
            write_csv(files[0], outcome.rows, outcome.columns)
            write_picture(files[1], outcome.draw)
            seconds = time.perf_counter() - start
            setup = (f"`sam-sim reproduce {exp}{' --quick' if quick else ''}"
                     f"{' --matrices ' + str(matrices) if matrices and exp == 'fig14' else ''}"
                     f"{' --data ' + used if used else ''}`"
                     f" ({engine} engine)")
            write_text(files[2], claims_markdown(exp, outcome, seconds, setup))
            tally = [sum(c.verdict == v for c in outcome.claims) for v in (PASS, FAIL, SKIP)]
            done.append(Done(exp, files, *tally, seconds))
            if log:
                print(f"{exp}: {tally[0]} PASS, {tally[1]} FAIL"
                      + (f", {tally[2]} SKIP" if tally[2] else "")
                      + f" in {seconds:.1f} s -> {', '.join(str(f) for f in files)}")
                sys.stdout.flush()
        if log and (sweeper.ran or sweeper.cached):
            print(f"points: {sweeper.ran} computed {sweeper.describe()}, "
                  f"{sweeper.cached} from the cache"
                  + (f" ({cache_dir})" if cache_dir else ""))
    return done
