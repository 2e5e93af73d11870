"""Run a SAM graph on input tensors: :func:`simulate`, and :class:`Simulation` to run one graph
many times.

Timing model (SAM paper Sec. 6; written out in ``docs/timing-model.md``): each block fires at
most once per cycle, taking at most one token from each input and emitting at most one token on
each output; a token emitted in cycle t (by a block of latency L, default 1) can be taken in cycle
t + L; memory reads are part of that one cycle; FIFOs are unbounded unless ``fifo_depth`` is set.
The cycle count is one more than the cycle in which the last level writer takes its done token.

A simulation is built in layers, one module each: :mod:`sam.sim.elaborate` (the graph made
ready: channels and one runtime per block), :mod:`sam.sim.schedule` (the sweeps that run the
kernels), :mod:`sam.sim.compiled` (the fast engine's compiled kernels and driver) and
:mod:`sam.sim.stats` (what a run reports). This module puts them together.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

from formats.tensor import Tensor
from sam.errors import Deadlock, GraphError, SimulationError
from sam.graph.model import Graph
from sam.runtime import wires as W
from sam.runtime.paths import ALL, FastPaths
from sam.sim.activity import Activity, choose_streams
from sam.sim.activity import with_compounds as activity_with_compounds
from sam.sim.compiled import (
    INTERPRET_MAX_VALUES,
    CompiledTier,
    compile_after_seconds,
    interpret_seconds,
)
from sam.sim.elaborate import TIMINGS, BlockRun, Channel
from sam.sim.stats import (
    BlockStats,
    SimResult,
    StreamStats,
    block_stats,
    stream_stats,
    with_compounds,
)

__all__ = [
    "INTERPRET_MAX_VALUES", "TIMINGS", "BlockRun", "BlockStats", "Channel", "Deadlock",
    "FastPaths", "GraphError", "SimResult", "Simulation", "SimulationError", "StreamStats",
    "interpret_seconds", "simulate",
]


#: A run recording activity that emitted at most this many tokens, whose median block has fewer
#: than :data:`RERUN_POINTS` samples, is run again on smaller rings for a finer activity
#: (:meth:`Simulation._refine`).
RERUN_TOKENS = 4_000_000
RERUN_POINTS = 256


class Simulation(CompiledTier):
    """A graph elaborated once: compounds expanded, channels, block runtimes, schedule.

    :meth:`run` simulates from a fresh state each time (state, channels and memories reset);
    :meth:`rebind` binds new input tensors without elaborating the graph again, so one
    Simulation runs a graph on many inputs (tiles, the phases of a :mod:`sam.program`).
    ``paths`` names the fast paths the kernels may take (:class:`~sam.runtime.paths.FastPaths`,
    all by default); set :attr:`paths` between runs to compare them. ``activity=True`` records
    what each block did over time (:mod:`sam.sim.activity`): :meth:`run`'s result then holds
    the folded buckets in ``SimResult.activity``; the tokens and cycles are the same.
    ``streams`` (``"auto"`` or ``["SRC:PORT", ...]``) adds those channels' FIFO occupancy.
    """

    def __init__(
        self,
        graph: Graph,
        tensors: Mapping[str, Tensor],
        *,
        fifo_depth: int | None = None,
        latencies: Mapping[str, int] | None = None,
        capacity: int = 1 << 14,
        timing: str = "sam",
        paths: FastPaths = ALL,
        activity: bool = False,
        streams: str | Sequence[str] | None = None,
    ) -> None:
        super().__init__(graph, tensors, fifo_depth=fifo_depth, latencies=latencies,
                         capacity=capacity, timing=timing)
        #: the fast paths the kernels may take in the next run
        self.paths = paths
        #: whether :meth:`run` records each block's activity over time (``SimResult.activity``,
        #: :mod:`sam.sim.activity`; :meth:`run_cycles` never does)
        self.activity = activity
        #: the streams whose FIFO occupancy a recording run watches: None, "auto" or a list of
        #: ``SRC`` / ``SRC:PORT`` (:func:`sam.sim.activity.choose_streams`)
        self.streams = streams
        #: whether a stream named in :attr:`streams` must exist (a program's phases: not each)
        self.strict_streams = True
        if activity:  # a stream that does not exist is an error now, not after the run
            self._watched()
        #: whether a short run recording activity is run again on smaller rings (_refine)
        self.refine = True

    def run(
        self,
        engine: str = "fast",
        progress: Callable[[int], None] | None = None,
    ) -> SimResult:
        """Run to completion (or Ctrl-C: partial statistics, ``interrupted`` set).

        ``progress`` is called now and then with the number of tokens emitted so far.
        """
        self._start(engine)
        if self.activity:
            self.recorder = Activity(self.runs, streams=self._watched(),
                                     channels=len(self.channels))
        self._fns = {bid: r.block.kernel.py for bid, r in self.runs.items()}
        # The fast engine interprets until this clock reading, then loads the compiled kernels.
        large = sum(len(t.vals) for t in self.tensors.values()) > INTERPRET_MAX_VALUES
        budget = interpret_seconds()
        if engine == "fast" and budget > 0 and not large and self.missing_kernels():
            budget = max(budget, compile_after_seconds())  # compiling costs more than loading
        self._tier_at = (time.process_time() + budget if engine == "fast" else float("inf"))
        if engine == "fast" and (self._tier_at <= time.process_time() or large
                                 or self._compiled_loaded()):
            self._use_compiled()  # never for the reference engine: it is Python throughout
        start = time.perf_counter()
        jit0 = self.jit_time  # compile time after the clock started is not simulation time
        interrupted = False
        try:
            self._loop(progress)
        except KeyboardInterrupt:
            interrupted = True
        except SimulationError as err:  # a deadlock or a malformed stream: keep the statistics
            err.partial = self._result(
                engine, time.perf_counter() - start - (self.jit_time - jit0), True)
            err.partial.error = str(err)
            raise
        wall = time.perf_counter() - start - (self.jit_time - jit0)
        result = self._result(engine, wall, interrupted)
        if self.recorder is not None and self.refine and not interrupted:
            self._refine(engine, result)
        return result

    def _refine(self, engine: str, result: SimResult) -> None:
        """Give a short run's ``result`` a finer activity. A kernel call moves up to a ring of
        tokens, so a run of few sweeps has few samples (the demo: 15 per block over 230k
        cycles). The rings are a simulator detail (tokens and cycles do not depend on them),
        so a run of at most :data:`RERUN_TOKENS` tokens whose median block has fewer than
        :data:`RERUN_POINTS` samples runs again in a fresh Simulation (``_reset`` keeps grown
        rings) on rings of ``capacity * points / 512`` slots (a power of two, at least 64),
        and its activity replaces this one's; its tokens and cycles must be this run's."""
        import numpy as np

        assert self.recorder is not None
        count = self.recorder.count
        points = int(np.median(count)) if count.size else 0
        cap = self.capacity
        if result.tokens > RERUN_TOKENS or points >= RERUN_POINTS:
            return
        small = max(64, 1 << max(0, (cap * max(points, 1) // 512).bit_length() - 1))
        if small >= cap:
            return
        sim = Simulation(self.source, self.tensors, fifo_depth=self.fifo_depth,
                         latencies=self.latencies, capacity=small, timing=self.timing,
                         paths=self.paths, activity=True, streams=self.streams)
        sim.refine = False
        finer = sim.run(engine)
        if (finer.tokens, finer.cycles) != (result.tokens, result.cycles):
            raise SimulationError(
                f"internal error: the re-run on rings of {small} slots gave {finer.tokens} "
                f"tokens in {finer.cycles} cycles, not {result.tokens} in {result.cycles}")
        result.activity = finer.activity

    def _watched(self) -> list[Channel]:
        families = {bid: r.block.family for bid, r in self.runs.items()}
        return choose_streams(self.channels, self.streams, families, self.strict_streams)

    def _repr_svg_(self) -> str | None:
        """The graph's picture in a notebook (Graphviz; None without it: text instead)."""
        from sam.graph.draw import to_svg

        return to_svg(self.source)

    def run_cycles(self, engine: str = "fast") -> int:
        """Run to completion and return only the cycle count (no statistics, no outputs
        assembled): the lean path for many small runs of one graph (tiles, sweeps)."""
        return self._run_only(engine)

    def _run_only(self, engine: str) -> int:
        self._start(engine)
        if engine == "fast":
            self._use_compiled()
        else:
            self._fns = {bid: r.block.kernel.py for bid, r in self.runs.items()}
            self._tier_at = float("inf")  # no switch of kernels mid-run
        self._loop(None)
        return self._cycles()

    def _start(self, engine: str) -> None:
        """Check the engine's name, reset the state a previous run left (and its JIT time) and
        tell every block which fast paths are off (``st[PATHS_OFF]``)."""
        if engine not in ("reference", "fast"):
            raise SimulationError(f"unknown engine {engine!r}; use reference or fast")
        if not self._fresh:
            self._reset()
        self._fresh = False
        off = self.paths.off()
        for run in self.runs.values():
            run.st[W.PATHS_OFF] = off
        self._driver = None  # set when the compiled kernels are (sam.sim.loops)
        self.recorder = None  # set by run() when recording activity (sam.sim.activity)
        #: kernel calls the compiled loop made in the last run
        self.driver_calls = 0
        self.jit_time = 0.0
        self.compile_time = 0.0
        self.compiled_kernels = []

    def _result(self, engine: str, wall: float, interrupted: bool) -> SimResult:
        from sam.sim.assemble import assemble_outputs

        cycles = self._cycles()
        stats = block_stats(self.runs, self.wires)
        if self.expansion.compounds:
            stats = with_compounds(stats, self, self.wires)
        streams = stream_stats(self.channels, self.wires)
        outputs = {} if interrupted else assemble_outputs(self.graph, self.runs, self.tensors)
        folded = None
        if self.recorder is not None:
            folded = self.recorder.fold(cycles, self.wires)
            if self.expansion.compounds:
                folded = activity_with_compounds(folded, self)
        return SimResult(outputs, cycles, stats, streams, wall, engine, self.fifo_depth,
                         interrupted, jit_time=self.jit_time, compile_time=self.compile_time,
                         compiled_kernels=list(self.compiled_kernels), activity=folded)


def simulate(
    graph: Graph,
    tensors: Mapping[str, Tensor],
    *,
    engine: str = "fast",
    fifo_depth: int | None = None,
    latencies: Mapping[str, int] | None = None,
    progress: Callable[[int], None] | None = None,
    timing: str = "sam",
    paths: FastPaths = ALL,
    activity: bool = False,
    streams: str | Sequence[str] | None = None,
) -> SimResult:
    """Simulate ``graph`` with its input ``tensors`` (by name); see module docstring.

    ``engine`` is ``"fast"`` (the default, as on the command line: the block kernels compiled
    with numba, about 20-40 s once, then cached on disk) or ``"reference"`` (the same kernels
    in plain Python: no compilation, 100-300 times slower).
    ``timing="original"`` selects the original SAM simulator's costs where ours differ
    (docs/timing-model.md). ``paths`` turns fast paths off (:class:`FastPaths`; the tokens,
    cycles and statistics are the same, only the time differs). ``activity=True`` records each
    block's activity over time (``SimResult.activity``, :mod:`sam.sim.activity`), and the FIFO
    occupancy of ``streams`` (None, ``"auto"`` or ``["SRC:PORT", ...]``)."""
    if fifo_depth is not None and fifo_depth < 1:
        raise SimulationError(f"FIFO depth must be at least 1, got {fifo_depth}")
    sim = Simulation(graph, tensors, fifo_depth=fifo_depth, latencies=latencies, timing=timing,
                     paths=paths, activity=activity, streams=streams)
    return sim.run(engine, progress)
