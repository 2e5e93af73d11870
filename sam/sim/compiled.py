"""The compiled tier: the fast engine's switch from Python kernels to compiled ones, and the
marshalling of a run's arrays for the compiled driver (:mod:`sam.sim.loops`).

The fast engine interprets first: it runs the kernels as Python for its first
:func:`interpret_seconds` of CPU time and loads the compiled kernels (numba, cached on disk)
only if the graph is still running. Both forms of a kernel compute the same thing on the same
state arrays, so the switch, made between two kernel calls, changes no token, cycle or
statistic. Graphs with cycles or bounded FIFOs, whose kernel calls move few tokens each, then
run the scheduler's sweeps in compiled code too (:meth:`CompiledTier._use_driver`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import numpy as np

from sam.errors import SimulationError
from sam.sim import activity
from sam.sim.elaborate import PLAIN_CALL, BlockRun
from sam.sim.schedule import Scheduler

#: Inputs with more stored values than this run compiled from the start (they will not finish
#: within the interpreting budget; the budget would only add to their simulation time).
INTERPRET_MAX_VALUES = 20_000


def interpret_seconds() -> float:
    """How much CPU time the fast engine spends running the kernels as Python before it loads
    the compiled ones (``SAM_INTERPRET_SECONDS``, default 0.05): a graph that finishes within
    it never loads numba (about 0.7 s in a cold process). Both forms of a kernel compute the
    same thing on the same state, so switching between kernel calls changes no token, cycle or
    statistic; 0 compiles before the first call."""
    try:
        return float(os.environ.get("SAM_INTERPRET_SECONDS", "0.05"))
    except ValueError:
        raise SimulationError("SAM_INTERPRET_SECONDS must be a number of seconds, got "
                              f"{os.environ['SAM_INTERPRET_SECONDS']!r}") from None


def _typeof(a: object, seen: dict[tuple, object]) -> object:
    """``numba.typeof(a)``, looked up in ``seen`` for arrays of a kind typed before (numba's
    own typing of an array costs about 15 us; a graph of many blocks has thousands)."""
    import numba

    if type(a) is not np.ndarray:
        return numba.typeof(a)
    f = a.flags
    key = (a.dtype, a.ndim, f.c_contiguous, f.f_contiguous, f.writeable, f.aligned)
    t = seen.get(key)
    if t is None:
        t = seen[key] = numba.typeof(a)
    return t


def compile_after_seconds() -> float:
    """How much CPU time the fast engine interprets before it *compiles* kernels that are not
    on disk yet (``SAM_COMPILE_AFTER``, default 1.0): compiling costs seconds per kernel, so a
    run that would finish interpreted within this time never waits for it (at most this
    much is spent before compiling: ski rental). Inputs too large to finish interpreting
    (:data:`INTERPRET_MAX_VALUES`) compile from the start."""
    try:
        return float(os.environ.get("SAM_COMPILE_AFTER", "1.0"))
    except ValueError:
        raise SimulationError("SAM_COMPILE_AFTER must be a number of seconds, got "
                              f"{os.environ['SAM_COMPILE_AFTER']!r}") from None


class CompiledTier(Scheduler):
    """The scheduler with the fast engine's compiled kernels and compiled driver."""

    #: seconds spent compiling kernels or loading them from the disk cache in the last run
    jit_time = 0.0
    #: of which compiling kernels that were not on disk (:mod:`sam.sim.warm`)
    compile_time = 0.0
    #: the kernels the last run compiled (not on disk before), by name
    compiled_kernels: list[str] = []

    def _compiled_loaded(self) -> bool:
        """Whether this process has loaded every compiled kernel of the graph already (an
        earlier run, a sweep's earlier point): then there is nothing to save by interpreting."""
        return all(r.block.kernel.loaded for r in self.runs.values())

    def _needs_driver(self) -> bool:
        """Whether the compiled tier runs the sweeps in compiled code (:meth:`_use_driver`)."""
        return bool(self.feedback) or bool((self.depths > 0).any())

    def _driver_ready(self) -> bool:
        from sam.sim import loops

        return loops.driver_ready()

    def missing_kernels(self) -> list[str]:
        """The kernels (and the driver) this run's compiled tier needs that are neither loaded
        in this process nor compiled on disk: the switch would compile them."""
        from sam.sim import warm

        names = sorted({r.block.kernel.name for r in self.runs.values()
                        if not r.block.kernel.loaded and not r.block.kernel.cached})
        if self._needs_driver() and not self._driver_ready():
            names.append(warm.DRIVER)
        return names

    def _use_compiled(self) -> None:
        """Switch every block to its compiled kernel (compiled or loaded from the disk cache;
        the time goes to ``jit_time``, not the simulation's wall time). Kernels not on disk
        yet are compiled first, in parallel worker processes (:mod:`sam.sim.warm`)."""
        from sam.sim import warm

        self._tier_at = float("inf")
        start = time.perf_counter()  # numba's import (first switch of the process) counts too
        if not getattr(self, "_compiled", False):
            self.compiled_kernels = warm.compile_missing(self.missing_kernels())
            if self.compiled_kernels:
                self.compile_time = time.perf_counter() - start
        fns = {bid: r.block.kernel.jit for bid, r in self.runs.items()}
        if not getattr(self, "_compiled", False):
            # once per Simulation: a rebound run reuses the kernels (a new signature, if any,
            # is compiled by numba on its first call)
            self._compile(fns)
            self._compiled = True
        self._fns = fns
        if self._needs_driver():
            self._use_driver()
        self.jit_time += time.perf_counter() - start

    def _use_driver(self) -> None:
        """Run the scheduler's sweeps in compiled code (:mod:`sam.sim.loops`): for graphs with
        cycles (feedback edges) or bounded FIFOs, whose kernel calls move few tokens each.
        A graph with a kernel of other argument types keeps the Python loop, and so does a
        run whose ``BlockRun.call`` is wrapped (a tracer recording every kernel call, as
        ``tests/test_engines_agree.py`` does)."""
        from sam.blocks import skiploop
        from sam.sim import loops

        if BlockRun.call is not PLAIN_CALL:  # a tracer watches every kernel call
            return
        want = loops.uniform_signature(self.wires)
        sigs = getattr(self, "_sigs", {})
        if any(sigs.get(bid) != want for bid in self.order):
            return
        for r in self.runs.values():  # the arrays of this run (rebound inputs) qualify too
            m = r.mem.args()
            if not (loops.plain(np.int64, r.st, r.ins, r.optr, r.ochan, *m[:4])
                    and loops.plain(np.float64, r.fst, *m[4:])):
                return
        order = self.order
        pos = {bid: i for i, bid in enumerate(order)}
        uptr, ublk, fuse = [0], [], []
        seen: set[str] = set()
        for bid in order:
            if bid in seen:
                continue
            unit = self.cycle_of.get(bid, [bid])
            seen.update(unit)
            ublk += [pos[b] for b in unit]
            uptr.append(len(ublk))
            # coordinate skipping's cycle, two scanners and an intersecter: one loop
            three = skiploop.component([self.runs[b] for b in unit])
            fuse.append([pos[unit[j]] for j in three] if three else [-1, -1, -1])
        isfb = np.zeros(len(self.channels), np.int8)
        isfb[self.feedback] = 1
        addr = np.array([loops.kernel_address(self.runs[b].block.kernel.jit, want)
                         for b in order], np.int64)
        self._drive_static = (isfb, np.int64(1 if self.feedback else 0), addr,
                              np.array(uptr, np.int64), np.array(ublk, np.int64),
                              np.array(fuse, np.int64).reshape(-1, 3))
        fn = loops.driver()
        if not fn.overloads:  # compiled once, or loaded from the disk cache
            fn.compile(loops.signature_of(self._driver_args(np.zeros(3, np.int64))))
        self._driver = fn

    def _driver_args(self, out: np.ndarray) -> tuple:
        """Arguments of :func:`sam.sim.loops.drive_py` for the current state (the arrays
        described by address: the runs keep them alive during the call)."""
        from sam.sim.loops import CALL_BUDGET, describe

        runs = list(self.runs.values())
        done = np.array([r.done for r in runs], np.int64)
        ints: list[np.ndarray] = []
        floats: list[np.ndarray] = []
        for r in runs:
            m = r.mem.args()
            ints += [r.st, r.ins, r.optr, r.ochan, *m[:4]]
            floats += [r.fst, *m[4:]]
        isfb, horizons, addr, uptr, ublk, fuse = self._drive_static
        last = getattr(self, "_described", None)
        if last is None or len(last[0]) != len(ints) or len(last[1]) != len(floats):
            last = (ints, floats, describe(ints), describe(floats))
        else:  # arrays keep their addresses: describe again only those replaced (grown)
            for old, new, table in ((last[0], ints, last[2]), (last[1], floats, last[3])):
                for k, (x, y) in enumerate(zip(old, new, strict=True)):
                    if x is not y:
                        table[k] = (y.ctypes.data, y.shape[0])
            last = (ints, floats, last[2], last[3])
        self._described = last
        rec = self.recorder
        series = ((rec.points, rec.count, rec.cin, rec.cout) if rec is not None
                  else activity.off())
        return (self.wires, isfb, done, out, np.int64(CALL_BUDGET), horizons, addr, uptr, ublk,
                last[2], last[3], fuse, *series)

    def _drive(self) -> tuple[bool, bool]:
        """One call of the compiled driver, then what it left to the engine: (whether a block
        moved, whether a ring is full)."""
        from sam.sim import loops

        out = np.zeros(3, np.int64)
        args = self._driver_args(out)
        status = self._driver(*args)
        self.driver_calls += int(out[2])
        done = args[2]
        runs = list(self.runs.values())
        for k, run in enumerate(runs):
            run.done = bool(done[k])
        if status == loops.STALLED:
            return False, bool(out[0])
        if status == loops.NEED:  # a memory to grow or a malformed stream: as _step does
            run = runs[int(out[0])]
            rc = self._settle(run, self._fns[run.block.id], int(out[1]))
            if self.feedback:
                self._publish(run, rc)
        return True, False

    def _compile(self, fns: dict[str, Callable[..., int]]) -> float:
        """Compile (or load from the disk cache) every kernel before the clock starts, and put
        in ``fns`` each block's compiled entry point for its argument types: a call then
        skips numba's dispatch (typing a dozen arguments, the ``Wires`` record's ten arrays
        among them, on every call). The types never change during a run: memories and rings
        grow with their dtypes."""
        import numba

        start = time.perf_counter()
        done: dict[tuple[int, ...], Callable[..., int]] = {}
        #: each block's kernel argument types (sam.sim.loops calls kernels of uniform types)
        self._sigs = {}
        types: dict[tuple, object] = {}  # the numba type of each kind of array, typed once
        wires_type = numba.typeof(self.wires)
        for bid, fn in fns.items():
            run = self.runs[bid]
            args = (run.st, run.fst, run.ins, run.optr, run.ochan, *run.mem.args())
            sig = (wires_type, *(_typeof(a, types) for a in args))
            key = (id(fn), *map(id, sig))  # numba's types are interned: cheaper than hashing
            if key not in done:
                done[key] = fn.compile(sig)
            fns[bid] = done[key]
            self._sigs[bid] = sig
        return time.perf_counter() - start
