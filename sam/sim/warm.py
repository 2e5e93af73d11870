"""Compiling the fast engine's kernels ahead of time, in parallel, with progress.

A kernel compiles in 0.5-8 s (numba types and lowers it with every helper it calls), once per
version of its code (:mod:`sam.runtime.jitcache`). :func:`compile_kernels` compiles the
kernels a run needs that are not on disk yet in worker processes, one per core, longest
first, each kernel for the uniform signature every graph's blocks share
(:func:`sam.sim.loops.uniform_signature`); the run then loads them from the disk cache. A
worker compiles its kernels one after the other, so the helpers they share are compiled once
per worker. ``sam-sim warm`` calls it for a graph's kernels or for all of them.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from sam.runtime.kernel import KERNELS

#: The compiled scheduler loop (:mod:`sam.sim.loops`), compiled like a kernel.
DRIVER = "sam.sim.loops.drive_py"


@dataclass(frozen=True)
class Compiled:
    """One kernel compiled by a worker: its name and the seconds it took."""

    name: str
    seconds: float


def all_kernels() -> list[str]:
    """The name of every kernel of the simulator (every block family) and of the driver."""
    import sam.graph.registry  # noqa: F401  (imports every block family)

    return [*KERNELS, DRIVER]


def graph_kernels(graph: object) -> list[str]:
    """The kernels a graph's blocks run (compound blocks expanded), and the driver when the
    graph has feedback edges (SAM Sec. 4.2's skips: it runs compiled sweeps)."""
    from sam.graph.expand import expand
    from sam.graph.model import Graph

    assert isinstance(graph, Graph)
    flat = expand(graph).graph
    names = {b.kernel.name for b in flat.blocks.values() if b.kernel is not None}
    ordered = sorted(names)
    if any(e.dst_port.feedback for e in flat.edges):
        ordered.append(DRIVER)
    return ordered


def is_cached(name: str) -> bool:
    """Whether kernel ``name``'s code of this version is compiled on disk."""
    if name == DRIVER:
        from sam.sim import loops

        return loops.driver_cached()
    return KERNELS[name].cached


def _size(name: str) -> int:
    """How much code compiling ``name`` types (bytecode of it and the functions it calls,
    counted once): the order in which workers take kernels, largest first."""
    from sam.runtime.jitcache import functions_called

    if name == DRIVER:
        return 1 << 30
    return sum(len(f.__code__.co_code) for f in functions_called(KERNELS[name].py))


def compile_one(name: str) -> Compiled:
    """Compile kernel ``name`` (or the driver) for the uniform signature and save it to the
    disk cache (run in a worker process; importing its module registers it)."""
    import importlib

    from sam.runtime import wires as W
    from sam.sim import loops

    start = time.perf_counter()
    if name == DRIVER:
        fn = loops.driver()
        fn.compile(loops.driver_signature())
    else:
        importlib.import_module(name.rpartition(".")[0])
        KERNELS[name].jit.compile(loops.uniform_signature(W.allocate(1, 4)))
    return Compiled(name, time.perf_counter() - start)


def jobs_default() -> int:
    """Worker processes: the CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


Progress = Callable[[int, int, str], None]


def compile_kernels(names: Iterable[str], *, jobs: int | None = None,
                    progress: Progress | None = None) -> list[Compiled]:
    """Compile the kernels ``names`` in ``jobs`` worker processes (default: one per CPU),
    largest first; ``progress(done, total, name)`` after each. Returns what each took."""
    todo = sorted(dict.fromkeys(names), key=_size, reverse=True)
    if not todo:
        return []
    jobs = max(1, min(jobs or jobs_default(), len(todo)))
    if jobs == 1:
        out = []
        for k, name in enumerate(todo):
            out.append(compile_one(name))
            if progress:
                progress(k + 1, len(todo), name)
        return out
    return _in_workers(todo, jobs, progress)


def _in_workers(todo: list[str], jobs: int, progress: Progress | None) -> list[Compiled]:
    """Compile ``todo`` in ``jobs`` worker processes (``python -m sam.sim.warm``), handing
    each the next kernel of the list when it reports the last one done."""
    import json
    import selectors
    import subprocess

    from sam.errors import SimulationError

    env = dict(os.environ, PYTHONWARNINGS="ignore")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    workers = [subprocess.Popen([sys.executable, "-m", "sam.sim.warm"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env) for _ in range(jobs)]
    sel = selectors.DefaultSelector()
    queue = list(todo)
    out: list[Compiled] = []

    busy: dict[int, str] = {}  # worker pid -> the kernel it compiles

    def hand(proc: subprocess.Popen) -> None:
        assert proc.stdin is not None
        if queue:
            busy[proc.pid] = queue.pop(0)
            proc.stdin.write(busy[proc.pid] + "\n")
            proc.stdin.flush()
        else:
            busy.pop(proc.pid, None)
            proc.stdin.close()
            sel.unregister(proc.stdout)

    try:
        for proc in workers:
            sel.register(proc.stdout, selectors.EVENT_READ, proc)
            hand(proc)
        while len(out) < len(todo):
            events = sel.select()
            for key, _ in events:
                proc = key.data
                line = proc.stdout.readline()
                if not line:
                    err = (proc.stderr.read() or "").strip().splitlines()
                    raise SimulationError(f"compiling kernel {busy.get(proc.pid)}: its worker "
                                          "process stopped" + (f": {err[-1]}" if err else ""))
                msg = json.loads(line)
                if "error" in msg:
                    raise SimulationError(f"compiling kernel {msg['name']}: {msg['error']}")
                out.append(Compiled(msg["name"], msg["seconds"]))
                if progress:
                    progress(len(out), len(todo), msg["name"])
                hand(proc)
    finally:
        sel.close()
        for proc in workers:
            if proc.stdin and not proc.stdin.closed:
                proc.stdin.close()
            if proc.poll() is None:  # stopped early (an error, Ctrl-C): its kernel is lost
                proc.kill()
            proc.wait()
    return out


def _worker() -> None:
    """A compile worker: compiles each kernel named on stdin, one JSON line per kernel."""
    import json

    import sam.graph.registry  # noqa: F401  (every block family's kernel)

    for line in sys.stdin:
        name = line.strip()
        try:
            done = compile_one(name)
            print(json.dumps({"name": done.name, "seconds": done.seconds}), flush=True)
        except Exception as exc:  # reported by the parent in one line
            print(json.dumps({"name": name, "error": f"{type(exc).__name__}: {exc}"}),
                  flush=True)


def say_progress(prog: str, stream=None) -> Progress:
    """A progress callback printing ``PROG: compiled k/n: NAME`` on ``stream`` (stderr), over
    the same line on a terminal."""
    out = stream or sys.stderr
    tty = out.isatty()

    def report(done: int, total: int, name: str) -> None:
        short = name.rpartition(".")[2]
        line = f"{prog}: compiled {done}/{total} kernels ({short})"
        if tty:
            out.write("\r\x1b[K" + line + ("\n" if done == total else ""))
        else:
            out.write(line + "\n")
        out.flush()

    return report


def jobs_setting() -> int:
    """Worker processes for compiling: ``SAM_COMPILE_JOBS`` (1: in this process), else one
    per CPU."""
    from sam.errors import SimulationError

    value = os.environ.get("SAM_COMPILE_JOBS")
    if not value:
        return jobs_default()
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise SimulationError(f"SAM_COMPILE_JOBS must be a number of processes >= 1, got "
                              f"{value!r}")
    return jobs


def compile_missing(names: Sequence[str]) -> list[str]:
    """Compile the kernels ``names`` (not on disk) before a run switches to compiled code:
    one line saying so and a progress count on stderr; returns the names compiled."""
    if not names:
        return []
    from sam.runtime.jitcache import program_name, where

    jobs = min(jobs_setting(), len(names))
    prog = program_name()
    place = f"{jobs} processes" if jobs > 1 else "this process"
    print(f"{prog}: compiling {len(names)} kernel{'s' * (len(names) > 1)} with numba in "
          f"{place} (once per version of their code; {where()})",
          file=sys.stderr, flush=True)
    compile_kernels(names, jobs=jobs, progress=say_progress(prog))
    return list(names)


def stale_files(name: str) -> list:
    """Cache files of older versions of kernel ``name``'s code."""
    from sam.runtime.jitcache import stale_entries

    if name == DRIVER:
        from sam.sim import loops

        return stale_entries(loops.drive_py, loops.driver_key())
    return stale_entries(KERNELS[name].py, KERNELS[name].key)


def missing(names: Sequence[str]) -> list[str]:
    """Those of ``names`` not compiled on disk for this version of their code."""
    return [n for n in names if not is_cached(n)]


if __name__ == "__main__":
    _worker()
