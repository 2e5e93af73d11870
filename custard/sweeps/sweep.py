"""Sweeps: run an experiment's points on Dask, cache each point's result on disk, resume.

A *point* is a JSON-able dict of parameters; a point function (a module-level function, so Dask
can ship it) maps it to a JSON-able dict of results. :class:`Sweeper` runs a list of points:

* a point whose result is in the cache is not run again, so an interrupted sweep (Ctrl-C, a
  killed client, worker or scheduler) resumes where it stopped. The cache file of a point is
  keyed by the function's name, the point's parameters, a hash of the toolkit's files (code,
  memory configurations, shipped data: :func:`custard.sweeps.identity.code_hash`) and of
  the files the point names by absolute path, so a changed toolkit or input recomputes. Files
  are written atomically under unique temporary names (two processes may share a cache); an
  entry that fails validation (unreadable, another shape, a checksum that does not match) is
  computed again, with one notice line;
* the other points run on Dask (``dask.distributed``): by default a local cluster of one
  single-threaded worker process per core on 127.0.0.1, started once and shared by all
  experiments of one command; ``scheduler="tcp://host:8786"`` uses an existing cluster after
  checking it (:mod:`custard.sweeps.cluster`: a non-Dask address fails within seconds, and
  workers running other code than this process are refused, naming them); results come back to
  this process, which writes the cache. Every point checks again on its worker, before it
  computes, that the worker runs this process's code (a worker that joined later, or whose
  files changed since it loaded them). A lost scheduler or cluster is one error line, the
  cache kept. ``scheduler="sync"`` runs the points in this process, one after the other. When
  the local cluster cannot start, the points run in this process and a warning says why;
* a tqdm progress bar counts the points (on a terminal).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from custard.sweeps import cluster
from custard.sweeps.errors import SweepError
from custard.sweeps.identity import (
    changed_since_load,
    code_hash,
    identity,
    named_files,
    problems,
)
from sam.command.bounds import check_size

Point = dict[str, Any]
PointFn = Callable[[Point], dict[str, Any]]

#: version of the cache files' layout
CACHE_VERSION = 2
#: seconds between checks of the cluster while no point finishes
POLL = 1.0


def _fn_name(fn: PointFn) -> str:
    return f"{fn.__module__}:{fn.__qualname__}"


def point_key(fn: PointFn, point: Point) -> str:
    """The cache key of ``fn(point)`` with the current code and the files the point names."""
    text = json.dumps({"fn": _fn_name(fn), "point": point, "code": code_hash(),
                       "files": named_files(point)}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _plain(value: Any) -> Any:
    """JSON for what ``json`` cannot write: numpy scalars and arrays as numbers and lists."""
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def _result_text(result: Mapping[str, Any]) -> str:
    return json.dumps(result, default=_plain)


def _checksum(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _call(name: str, point: Point, code: str, files: dict[str, str]) -> dict[str, Any]:
    """Run a point function given by name (what a Dask worker executes), after checking that
    this worker computes with the client's code and files."""
    why = problems(identity(files), code, files)
    if why:
        where = "a worker"
        with contextlib.suppress(ImportError, ValueError):
            from distributed import get_worker

            where = f"worker {get_worker().address}"
        raise SweepError(f"{where} would compute with other code than this command: {why}; "
                             "restart it with this toolkit (its point was not computed)")
    module, _, qual = name.partition(":")
    return getattr(importlib.import_module(module), qual)(point)


#: Most worker processes of a local cluster, and what each costs (a Python process with numpy,
#: numba and the toolkit loaded: about 200 MB)
MAX_WORKERS = 256
WORKER_BYTES = 250_000_000


class Sweeper:
    """Runs points with a disk cache, on Dask or in this process (see module docstring).

    Use as a context manager, or call :meth:`close`: it shuts down the cluster it started."""

    def __init__(self, cache_dir: Path | None, scheduler: str | None = None,
                 workers: int | None = None, progress: bool = True,
                 connect_timeout: float = 20.0, prog: str = "sam-sim reproduce") -> None:
        check_size("--workers", workers, high=MAX_WORKERS, bytes_each=WORKER_BYTES,
                   why="worker processes of this machine", what="a local cluster of that many "
                   "worker processes", error=SweepError)
        self.cache_dir = cache_dir
        self.scheduler = scheduler
        self.workers = workers
        self.progress = progress
        self.connect_timeout = connect_timeout
        #: seconds a scheduler has to greet (:data:`cluster.HANDSHAKE_TIMEOUT`)
        self.handshake_timeout = cluster.HANDSHAKE_TIMEOUT
        #: seconds a cluster may have no worker (at the start, or mid-sweep) before giving up
        self.worker_wait = 60.0
        self.prog = prog
        self._client: Any = None
        self._cluster: Any = None
        self._quiet: cluster.QuietLogs | None = None
        self.mode = "sync" if scheduler == "sync" else "dask"  # "sync" after a fallback too
        self.warnings: list[str] = []
        self.notices: list[str] = []
        self.ran = 0  # points computed (not taken from the cache)
        self.cached = 0  # points taken from the cache

    # ------------------------------------------------------------------ cluster
    def _connect(self) -> Any:
        if self._client is not None or self.mode == "sync":
            return self._client
        self._quiet = self._quiet or cluster.QuietLogs()
        if self.scheduler:
            self._client = cluster.connect(self.scheduler, self.connect_timeout,
                                           self.worker_wait, self.handshake_timeout,
                                           lambda msg: self._say("notice", msg))
            return self._client
        try:
            self._cluster, self._client = cluster.start_local(self._n_local())
        except Exception as err:  # noqa: BLE001 - any failure to start: run here instead
            self._fallback(f"the local Dask cluster could not start ({type(err).__name__}: "
                           f"{' '.join(str(err).split())})")
        return self._client

    def _n_local(self) -> int:
        return self.workers or os.cpu_count() or 1

    def _fallback(self, why: str) -> None:
        msg = f"{why}; running the points in this process"
        self.warnings.append(msg)
        self._say("warning", msg)
        self.close()
        self.mode = "sync"

    def _say(self, kind: str, msg: str) -> None:
        print(f"{self.prog}: {kind}: {msg}", file=sys.stderr, flush=True)

    def close(self) -> None:
        client, self._client = self._client, None
        local, self._cluster = self._cluster, None
        lost = client is not None and client.status != "running"
        cluster.close(client)
        cluster.close(local)
        if self._quiet is not None and not lost:  # a lost client logs after it is closed
            self._quiet.restore()
            self._quiet = None

    def __enter__(self) -> Sweeper:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def describe(self) -> str:
        if self.mode == "sync":
            return "in this process"
        if self.scheduler:
            return f"on the Dask cluster at {self.scheduler}"
        return f"on a local Dask cluster of {self._n_local()} worker(s)"

    def _where(self) -> str:
        return f"--scheduler {self.scheduler}" if self.scheduler else "the local Dask cluster"

    def _kept(self) -> str:
        if self.cache_dir is None:
            return "no cache: the points computed so far are lost"
        return (f"the {self.ran} point(s) computed so far are cached in {self.cache_dir}: run "
                "the command again to resume")

    # ------------------------------------------------------------------ cache
    def _path(self, fn: PointFn, point: Point) -> Path | None:
        if self.cache_dir is None:
            return None
        return self.cache_dir / fn.__module__.rsplit(".", 1)[-1] / f"{point_key(fn, point)}.json"

    def _load(self, fn: PointFn, point: Point, path: Path) -> tuple[dict[str, Any] | None,
                                                                     str | None]:
        """The cached result at ``path`` and, when the entry is there but unusable, why."""
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None, None
        except (OSError, UnicodeDecodeError) as err:
            return None, f"unreadable ({getattr(err, 'strerror', None) or err})"
        try:
            data = json.loads(text)
        except ValueError:
            return None, "not JSON (an interrupted write?)"
        if not isinstance(data, dict):
            return None, f"a JSON {type(data).__name__}, not an entry"
        missing = [k for k in ("version", "fn", "point", "result", "checksum") if k not in data]
        if missing:
            return None, f"no {', '.join(missing)}"
        result = data["result"]
        if data["version"] != CACHE_VERSION or data["fn"] != _fn_name(fn) \
                or data["point"] != json.loads(json.dumps(point, default=str)):
            return None, "another point's entry"
        if not isinstance(result, dict):
            return None, f"its result is a JSON {type(result).__name__}, not an object"
        if data["checksum"] != _checksum(_result_text(result)):
            return None, "its result does not match its checksum"
        return result, None

    def _store(self, fn: PointFn, point: Point, result: Mapping[str, Any]) -> dict[str, Any]:
        """Write ``result`` to the cache (atomically, under a unique temporary name); what the
        cache holds is returned, so a computed point and a cached one give the same values."""
        path = self._path(fn, point)
        if path is None:
            return dict(result)
        text = _result_text(result)
        stored = json.loads(text)
        entry = json.dumps({"version": CACHE_VERSION, "fn": _fn_name(fn), "point": point,
                            "checksum": _checksum(text), "result": stored}, default=str)
        from formats.atomic import write_bytes
        from formats.errors import ToolkitError

        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_bytes(path, entry.encode())
        except (OSError, ToolkitError) as err:
            reason = getattr(err, "strerror", None) or str(err).rsplit(": ", 1)[-1]
            raise SweepError(f"cannot write the sweep cache {path}: {reason}") from None
        return stored

    def todo(self, fn: PointFn, points: Sequence[Point]) -> list[Point]:
        """The points :meth:`run` would compute (not validly cached), e.g. to prepare their
        data first."""
        return [p for p in points
                if (path := self._path(fn, p)) is None or self._load(fn, p, path)[0] is None]

    # ------------------------------------------------------------------ run
    def run(self, fn: PointFn, points: Sequence[Point], label: str = "points"
            ) -> list[dict[str, Any]]:
        """``[fn(p) for p in points]``, from the cache where possible."""
        results: list[dict[str, Any] | None] = []
        bad: list[tuple[Path, str]] = []
        for p in points:
            path = self._path(fn, p)
            result, why = self._load(fn, p, path) if path is not None else (None, None)
            results.append(result)
            if why and path is not None:
                bad.append((path, why))
        if bad:
            path, why = bad[0]
            more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
            msg = (f"cache entry {path} is {why}{more}; computing "
                   f"{'it' if len(bad) == 1 else 'them'} again")
            self.notices.append(msg)
            self._say("notice", msg)
        todo = [k for k, r in enumerate(results) if r is None]
        self.cached += len(points) - len(todo)
        if todo:
            from tqdm import tqdm

            bar = tqdm(total=len(points), initial=len(points) - len(todo), desc=label,
                       unit="pt", disable=None if self.progress else True, file=sys.stderr,
                       leave=False)
            try:
                if self._connect() is None:
                    self._check_here()
                    for k in todo:
                        results[k] = self._finish(fn, points[k], fn(points[k]), bar)
                else:
                    self._run_dask(fn, points, todo, results, bar)
            finally:
                bar.close()
        return [r for r in results if r is not None]

    def _check_here(self) -> None:
        """Refuse to compute and cache points in this process if its toolkit files changed
        after it loaded them (its code is not the code the keys name)."""
        changed = changed_since_load()
        if changed:
            raise SweepError(f"the toolkit's files changed while this command ran "
                                 f"({', '.join(changed[:3])}); run the command again")

    def _finish(self, fn: PointFn, point: Point, result: dict[str, Any], bar: Any
                ) -> dict[str, Any]:
        result = self._store(fn, point, result)
        self.ran += 1
        bar.update(1)
        return result

    def _run_dask(self, fn: PointFn, points: Sequence[Point], todo: list[int],
                  results: list[dict[str, Any] | None], bar: Any) -> None:
        client, code = self._client, code_hash()
        named = {k: named_files(points[k]) for k in todo}  # each point's files, digested
        files = {path: digest for one in named.values() for path, digest in one.items()}
        try:
            cluster.check_workers(client, self._where(), code, files)
        except SweepError:
            raise
        except Exception as err:  # noqa: BLE001 - the cluster went away while checking
            raise self._lost(err) from None
        import queue

        name = _fn_name(fn)
        finished: queue.Queue[Any] = queue.Queue()
        futures = {}
        for k in todo:
            fut = client.submit(_call, name, points[k], code, named[k], pure=False)
            futures[fut] = k
            fut.add_done_callback(finished.put)
        left, idle_since = len(futures), None
        try:
            while left:
                try:
                    fut = finished.get(timeout=POLL)
                except queue.Empty:
                    idle_since = self._check_cluster(idle_since)
                    continue
                left -= 1
                k = futures[fut]
                results[k] = self._finish(fn, points[k], self._outcome(fut, points[k]), bar)
        finally:
            if getattr(client, "status", None) == "running":
                with contextlib.suppress(Exception):
                    client.cancel(list(futures))

    def _outcome(self, fut: Any, point: Point) -> dict[str, Any]:
        """The result of a finished future; its task's error as raised; a lost cluster as one
        line. A result lost with its worker before it was fetched is computed again by Dask:
        waited for (the cluster checked meanwhile)."""
        idle_since = None
        while fut.status in ("pending", "lost"):
            try:
                fut.result(timeout=POLL)
            except TimeoutError:
                idle_since = self._check_cluster(idle_since)
            except Exception:  # noqa: BLE001, S110 - an error or a cancellation: see below
                break
        if fut.status == "finished":
            try:
                return fut.result()
            except Exception as err:  # noqa: BLE001 - fetching it failed: the cluster is gone
                raise self._lost(err) from None
        if fut.status == "error":
            from distributed.scheduler import KilledWorker

            try:
                err = fut.exception()
            except Exception as lost:  # noqa: BLE001
                raise self._lost(lost) from None
            if isinstance(err, KilledWorker):
                if self._cluster is not None:  # let the nanny's restart end: a quiet shutdown
                    with contextlib.suppress(Exception):
                        self._client.wait_for_workers(self._n_local(), timeout=10)
                raise SweepError(f"{self._where()}: workers died again and again while "
                                     f"running point {json.dumps(point, default=str)} (out of "
                                     f"memory? a crash?); {self._kept()}") from None
            fut.result()  # raises the point function's own error, as it raised it
        raise self._lost(None)

    def _lost(self, err: BaseException | None) -> SweepError:
        why = f" ({type(err).__name__}: {' '.join(str(err).split())})" if err else ""
        return SweepError(f"{self._where()}: lost the Dask scheduler mid-sweep{why}; "
                              f"{self._kept()}")

    def _check_cluster(self, idle_since: float | None) -> float | None:
        """While no point finishes: refuse a lost scheduler and a cluster without workers for
        :attr:`worker_wait` seconds; the time since when it has had none."""
        client = self._client
        if client.status != "running":
            raise self._lost(None)
        try:
            workers = client.scheduler_info().get("workers", {})
        except Exception as err:  # noqa: BLE001 - the scheduler went away
            raise self._lost(err) from None
        if workers:
            return None
        now = time.monotonic()
        if idle_since is None:
            return now
        if now - idle_since > self.worker_wait:
            raise SweepError(f"{self._where()}: no Dask worker left for "
                                 f"{self.worker_wait:g} s; start some, then run the command "
                                 f"again ({self._kept()})")
        return idle_since

