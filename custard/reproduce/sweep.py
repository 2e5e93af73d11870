"""Sweeps: run an experiment's points on Dask, cache each point's result on disk, resume.

A *point* is a JSON-able dict of parameters; a point function (a module-level function, so Dask
can ship it) maps it to a JSON-able dict of results. :class:`Sweeper` runs a list of points:

* a point whose result is in the cache is not run again, so an interrupted sweep resumes where
  it stopped. The cache file of a point is keyed by the function's name, the point's parameters
  and a hash of the toolkit's code (every ``.py`` file of ``formats``, ``sam`` and ``custard``:
  graphs are compiled and simulated by that code), so a changed toolkit recomputes everything;
* the other points run on Dask (``dask.distributed``): by default a local cluster of one
  single-threaded worker process per core, started once and shared by all experiments of one
  command; ``scheduler="tcp://host:8786"`` uses an existing cluster (its workers must have this
  toolkit installed; results come back to this process, which writes the cache);
  ``scheduler="sync"`` runs the points in this process, one after the other. When the local
  cluster cannot start, the points run in this process and a warning says why;
* a tqdm progress bar counts the points (on a terminal).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from custard.reproduce.common import ReproduceError

Point = dict[str, Any]
PointFn = Callable[[Point], dict[str, Any]]

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("formats", "sam", "custard")


@cache
def code_hash() -> str:
    """A hash of every ``.py`` file of the toolkit's packages (paths and contents)."""
    h = hashlib.sha256()
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            h.update(str(path.relative_to(ROOT)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _fn_name(fn: PointFn) -> str:
    return f"{fn.__module__}:{fn.__qualname__}"


def point_key(fn: PointFn, point: Point) -> str:
    """The cache key of ``fn(point)`` with the current code."""
    text = json.dumps({"fn": _fn_name(fn), "point": point, "code": code_hash()},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _call(name: str, point: Point) -> dict[str, Any]:
    """Run a point function given by name (what a Dask worker executes)."""
    module, _, qual = name.partition(":")
    return getattr(importlib.import_module(module), qual)(point)


class Sweeper:
    """Runs points with a disk cache, on Dask or in this process (see module docstring).

    Use as a context manager, or call :meth:`close`: it shuts down the cluster it started."""

    def __init__(self, cache_dir: Path | None, scheduler: str | None = None,
                 workers: int | None = None, progress: bool = True,
                 connect_timeout: float = 20.0) -> None:
        if workers is not None and workers < 1:
            raise ReproduceError(f"--workers {workers}: give 1 or more")
        self.cache_dir = cache_dir
        self.scheduler = scheduler
        self.workers = workers
        self.progress = progress
        self.connect_timeout = connect_timeout
        self._client: Any = None
        self._cluster: Any = None
        self.mode = "sync" if scheduler == "sync" else "dask"  # "sync" after a fallback too
        self.warnings: list[str] = []
        self.ran = 0  # points computed (not taken from the cache)
        self.cached = 0  # points taken from the cache

    # ------------------------------------------------------------------ cluster
    def _connect(self) -> Any:
        if self._client is not None or self.mode == "sync":
            return self._client
        from distributed import Client

        if self.scheduler:
            try:
                self._client = Client(self.scheduler, timeout=f"{self.connect_timeout}s")
            except (OSError, TimeoutError, ValueError) as err:
                raise ReproduceError(f"--scheduler {self.scheduler}: cannot connect "
                                     f"({' '.join(str(err).split()) or type(err).__name__})"
                                     ) from None
            return self._client
        from distributed import LocalCluster

        n = self.workers or os.cpu_count() or 1
        try:
            self._cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                         dashboard_address=None, silence_logs=logging.ERROR)
            self._client = Client(self._cluster)
        except Exception as err:  # noqa: BLE001 - any failure to start: run here instead
            self._fallback(f"the local Dask cluster could not start ({type(err).__name__}: "
                           f"{' '.join(str(err).split())})")
        return self._client

    def _fallback(self, why: str) -> None:
        msg = f"{why}; running the points in this process"
        self.warnings.append(msg)
        print(f"sam-sim reproduce: warning: {msg}", file=sys.stderr)
        self.close()
        self.mode = "sync"

    def close(self) -> None:
        for thing in (self._client, self._cluster):
            if thing is not None:
                try:
                    thing.close()
                except Exception:  # noqa: BLE001, S110 - shutting down: nothing to report
                    pass
        self._client = self._cluster = None

    def __enter__(self) -> Sweeper:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def describe(self) -> str:
        if self.mode == "sync":
            return "in this process"
        if self.scheduler:
            return f"on the Dask cluster at {self.scheduler}"
        return f"on a local Dask cluster of {self.workers or os.cpu_count() or 1} worker(s)"

    # ------------------------------------------------------------------ cache
    def _path(self, fn: PointFn, point: Point) -> Path | None:
        if self.cache_dir is None:
            return None
        return self.cache_dir / fn.__module__.rsplit(".", 1)[-1] / f"{point_key(fn, point)}.json"

    def _load(self, fn: PointFn, point: Point) -> dict[str, Any] | None:
        path = self._path(fn, point)
        if path is None or not path.is_file():
            return None
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return None  # a half-written file: compute the point again
        return data.get("result") if data.get("point") == point else None

    def _store(self, fn: PointFn, point: Point, result: dict[str, Any]) -> None:
        path = self._path(fn, point)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"point": point, "result": result}, default=str))
            tmp.replace(path)  # atomic: an interrupted write leaves no half file
        except OSError as err:
            raise ReproduceError(f"cannot write the sweep cache {path}: "
                                 f"{err.strerror or err}") from None

    # ------------------------------------------------------------------ run
    def run(self, fn: PointFn, points: Sequence[Point], label: str = "points"
            ) -> list[dict[str, Any]]:
        """``[fn(p) for p in points]``, from the cache where possible."""
        results: list[dict[str, Any] | None] = [self._load(fn, p) for p in points]
        todo = [k for k, r in enumerate(results) if r is None]
        self.cached += len(points) - len(todo)
        if todo:
            from tqdm import tqdm

            bar = tqdm(total=len(points), initial=len(points) - len(todo), desc=label,
                       unit="pt", disable=None if self.progress else True, file=sys.stderr,
                       leave=False)
            try:
                if self._connect() is None:
                    for k in todo:
                        results[k] = self._finish(fn, points[k], fn(points[k]), bar)
                else:
                    self._run_dask(fn, points, todo, results, bar)
            finally:
                bar.close()
        return [r for r in results if r is not None]

    def _finish(self, fn: PointFn, point: Point, result: dict[str, Any], bar: Any
                ) -> dict[str, Any]:
        self._store(fn, point, result)
        self.ran += 1
        bar.update(1)
        return result

    def _run_dask(self, fn: PointFn, points: Sequence[Point], todo: list[int],
                  results: list[dict[str, Any] | None], bar: Any) -> None:
        from distributed import as_completed

        name = _fn_name(fn)
        futures = {self._client.submit(_call, name, points[k], pure=False): k for k in todo}
        try:
            for fut in as_completed(futures):
                k = futures[fut]
                results[k] = self._finish(fn, points[k], fut.result(), bar)
        finally:
            for fut in futures:
                fut.cancel()
