"""Run a SAM graph on input tensors: elaborate it into channels and block kernels, then schedule.

Timing model (SAM paper Sec. 6; written out in ``docs/timing-model.md``): each block fires at
most once per cycle, taking at most one token from each input and emitting at most one token on
each output; a token emitted in cycle t (by a block of latency L, default 1) can be taken in cycle
t + L; memory reads are part of that one cycle; FIFOs are unbounded unless ``fifo_depth`` is set.
The cycle count is one more than the cycle in which the last level writer takes its done token.

Scheduling never steps idle blocks: every block keeps its own clock, and a block is only run
while it has tokens to work on, so the cost follows the tokens processed. With unbounded FIFOs a
block's output tokens and their cycles depend only on its input tokens and their cycles, so any
order of running blocks gives the same result; we sweep the blocks in dataflow order.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from formats.tensor import Tensor
from sam.blocks.base import Block, Memories, Port
from sam.errors import Deadlock, GraphError, SimulationError
from sam.graph.fifos import input_bounds, stream_depth
from sam.graph.model import Graph
from sam.runtime import wires as W
from sam.runtime.tokens import DATA, DONE, KIND_NAMES, describe_token
from sam.sim.widths import block_widths


@dataclass
class Channel:
    """One stream copy: from a producer port (or the root reference) to one consumer port."""

    index: int
    kind: str
    src: str | None  # producer block id; None for a root reference stream
    src_port: Port | None
    dst: str
    dst_port: Port


@dataclass
class BlockRun:
    """Runtime of one block: state, port wiring and memories."""

    block: Block
    st: np.ndarray
    fst: np.ndarray
    ins: np.ndarray
    optr: np.ndarray
    ochan: np.ndarray
    mem: Memories
    done: bool = False

    def call(self, fn: Callable[..., int], w: W.Wires) -> int:
        return fn(w, self.st, self.fst, self.ins, self.optr, self.ochan, *self.mem.args())


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


#: ``BlockRun.call`` as defined here (tests wrap it to trace kernel calls)
_PLAIN_CALL = BlockRun.call


@dataclass
class BlockStats:
    """What one block did: tokens by kind on its inputs and outputs, and its cycles.

    For a compound block (``parts`` non-empty: the ids of its direct parts, whose own
    statistics are reported too) the fields are rolled up from its parts:

    * ``tokens_in``/``tokens_out``: tokens on its external ports, each port counted once (an
      external input feeding several inner ports is one stream; an external output counts only
      when a block outside the compound consumes it);
    * ``busy``, ``idle``, ``stalled``: sums over its primitive parts (at any depth) of their
      cycles, so ``busy`` may exceed the compound's span and ``utilisation`` may exceed 1;
    * ``started``: the first firing of any part; ``finished``: the cycle after the last firing of
      any part.
    """

    id: str
    type: str
    label: str
    family: str
    tokens_in: dict[str, int]
    tokens_out: dict[str, int]
    busy: int
    idle: int
    stalled: int
    started: int  # cycle of its first firing
    finished: int  # cycle after its last firing
    #: ids of the direct parts of a compound block; empty for a primitive block
    parts: tuple[str, ...] = ()
    #: block-specific statistics by name (a TMU's per TU, queue and lane; ``Block.details``)
    details: dict[str, int] = field(default_factory=dict)

    def utilisation(self, cycles: int) -> float:
        return self.busy / cycles if cycles else 0.0


@dataclass
class StreamStats:
    """Tokens that crossed one edge of the graph, by kind."""

    src: str
    src_port: str
    dst: str
    dst_port: str
    kind: str
    tokens: dict[str, int]


@dataclass
class SimResult:
    """Outputs, cycle count and statistics of one simulation."""

    outputs: dict[str, Tensor]
    cycles: int
    blocks: dict[str, BlockStats]
    streams: list[StreamStats]
    wall_time: float
    engine: str
    fifo_depth: int | None = None
    interrupted: bool = False
    notes: list[str] = field(default_factory=list)
    #: why the run stopped early (a deadlock, a malformed stream); None when it finished
    error: str | None = None
    #: seconds spent compiling the fast engine's kernels or loading them from the disk cache
    #: (not part of ``wall_time``)
    jit_time: float = 0.0

    @property
    def tokens(self) -> int:
        """Tokens emitted by all primitive blocks (a stream copied to several consumers counts
        once)."""
        return sum(sum(b.tokens_out.values()) for b in self.blocks.values() if not b.parts)


# --------------------------------------------------------------------------- elaboration
def _resolve_broadcasts(graph: Graph) -> list[tuple[str, Port, str, Port]]:
    """Edges with ``broadcast`` fan-out points removed: (src, src port, dst, dst port)."""
    feeds: dict[str, tuple[str, Port]] = {}
    for e in graph.edges:
        if graph.blocks[e.dst].dot_type == "broadcast":
            feeds[e.dst] = (e.src, e.src_port)

    def origin(node: str, port: Port, seen: tuple[str, ...] = ()) -> tuple[str, Port]:
        while graph.blocks[node].dot_type == "broadcast":
            if node in seen or node not in feeds:
                raise GraphError(f"broadcast node {node} has no input stream; connect one")
            seen = (*seen, node)
            node, port = feeds[node]
        return node, port

    out = []
    for e in graph.edges:
        if graph.blocks[e.dst].dot_type == "broadcast":
            continue
        src, port = origin(e.src, e.src_port)
        out.append((src, port, e.dst, e.dst_port))
    return out


def _dataflow_order(ids: list[str], links: list[tuple[str, Port, str, Port]]) -> list[str]:
    """Blocks with producers before consumers (feedback edges do not count)."""
    succ: dict[str, list[str]] = {i: [] for i in ids}
    indeg = dict.fromkeys(ids, 0)
    for src, _, dst, dport in links:
        if dport.feedback:
            continue
        succ[src].append(dst)
        indeg[dst] += 1
    ready = [i for i in ids if indeg[i] == 0]
    order: list[str] = []
    while ready:
        node = ready.pop(0)
        order.append(node)
        for nxt in succ[node]:
            indeg[nxt] -= 1
            if indeg[nxt] == 0:
                ready.append(nxt)
    order += [i for i in ids if i not in order]
    return order


def _cycles(order: list[str], links: list[tuple[str, Port, str, Port]]) -> list[list[str]]:
    """The blocks of each cycle of the graph (strongly connected components of more than one
    block, feedback edges included), each in dataflow order."""
    succ: dict[str, list[str]] = {i: [] for i in order}
    for src, _, dst, _ in links:
        succ[src].append(dst)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    comps: list[set[str]] = []
    for root in order:  # Tarjan's algorithm, iteratively
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on.add(node)
            if i < len(succ[node]):
                work.append((node, i + 1))
                nxt = succ[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                comp = set()
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.add(x)
                    if x == node:
                        break
                if len(comp) > 1:
                    comps.append(comp)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return [[b for b in order if b in comp] for comp in comps]


#: Timing models: ours (``sam``, the default) and the original SAM simulator's (``original``).
TIMINGS = ("sam", "original")


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


class Simulation:
    """A graph elaborated once: compounds expanded, channels, block runtimes, schedule.

    :meth:`run` simulates from a fresh state each time (state, channels and memories reset);
    :meth:`rebind` binds new input tensors without elaborating the graph again, so one
    Simulation runs a graph on many inputs (tiles, the phases of a :mod:`sam.program`).
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
    ) -> None:
        from sam.graph.expand import expand
        from sam.graph.validate import bind, check_structure

        if timing not in TIMINGS:
            raise SimulationError(f"unknown timing {timing!r}; use {' or '.join(TIMINGS)}")
        #: the timing model (docs/timing-model.md): "sam" (ours) or "original"
        self.timing = timing

        check_structure(graph)
        #: the graph as given (compound blocks as single nodes)
        self.source = graph
        self.expansion = expand(graph)
        #: the graph simulated: compounds replaced by their parts
        self.graph = self.expansion.graph
        if self.graph is not graph:
            check_structure(self.graph)
        self.tensors = bind(self.graph, tensors)
        #: blocks of stream width > 1 (SAM Sec. 4.4; sam/sim/widths.py)
        self.widths = block_widths(graph, self.graph)
        self.fifo_depth = fifo_depth
        self.latencies = dict(latencies or {})
        links = _resolve_broadcasts(self.graph)
        ids = [b for b, blk in self.graph.blocks.items() if blk.dot_type != "broadcast"]
        self.order = _dataflow_order(ids, links)

        self.channels: list[Channel] = []
        by_input: dict[tuple[str, str], int] = {}
        by_output: dict[tuple[str, str], list[int]] = {}
        for src, sport, dst, dport in links:
            ch = Channel(len(self.channels), sport.kind, src, sport, dst, dport)
            self.channels.append(ch)
            by_input[(dst, dport.name)] = ch.index
            by_output.setdefault((src, sport.name), []).append(ch.index)
        #: channels into a declared feedback input (they close the graph's cycles)
        self.feedback = [c.index for c in self.channels if c.dst_port.feedback]
        #: blocks on a cycle: each block's cycle (its blocks in dataflow order)
        self.cycle_of: dict[str, list[str]] = {}
        for comp in _cycles(self.order, links):
            for bid in comp:
                self.cycle_of[bid] = comp
        self.roots: list[int] = []
        for bid in self.order:
            block = self.graph.blocks[bid]
            for port in block.inputs():
                if (bid, port.name) not in by_input and block.is_root and port.kind == "ref":
                    ch = Channel(len(self.channels), "ref", None, None, bid, port)
                    self.channels.append(ch)
                    by_input[(bid, port.name)] = ch.index
                    self.roots.append(ch.index)
        self.by_input, self.by_output = by_input, by_output

        depths = np.full(len(self.channels), fifo_depth or 0, np.int64)
        for (dst, dport), bounds in input_bounds(self.graph).items():  # per-edge depths
            depths[by_input[(dst, dport)]] = stream_depth(fifo_depth, bounds)
        for c in self.roots:
            depths[c] = 0
        for ch in self.channels:  # streams a block discards are never a source of backpressure
            if ch.dst_port.name in self.graph.blocks[ch.dst].unbounded_inputs():
                depths[ch.index] = 0
        for c in self.feedback:  # nor are skip streams (a skip only saves work)
            depths[c] = 0
        self.depths = depths
        self.capacity = max(capacity, 16)

        self.runs: dict[str, BlockRun] = {}
        for bid in self.order:
            block = self.graph.blocks[bid]
            ins = np.array([by_input.get((bid, p.name), -1) for p in block.inputs()], np.int64)
            optr = [0]
            ochan: list[int] = []
            for p in block.outputs():
                ochan += by_output.get((bid, p.name), [])
                optr.append(len(ochan))
            self.runs[bid] = BlockRun(
                block, np.zeros(W.STATE_SLOTS, np.int64), np.zeros(8, np.float64), ins,
                np.array(optr, np.int64), np.array(ochan, np.int64), Memories(()),
            )
        self._reset()

    def rebind(self, tensors: Mapping[str, Tensor]) -> None:
        """Bind new input tensors (checked and converted as at construction); the next
        :meth:`run` simulates the same elaborated graph on them."""
        from sam.graph.validate import bind

        self.tensors = bind(self.graph, tensors)
        self._reset()

    def _reset(self) -> None:
        """Fresh state: empty channels holding the root streams, every block's parameters,
        latency and memories from the bound tensors."""
        cap = self.wires.kind.shape[1] if hasattr(self, "wires") else self.capacity
        self.wires = W.allocate(len(self.channels), cap, self.depths)
        for c in self.roots:  # the root reference stream "0, D", there from cycle 0
            W.push(self.wires, np.array([0, 1]), np.array([c]), 0, DATA, 0, 0)
            W.push(self.wires, np.array([0, 1]), np.array([c]), 0, DONE, 0, 0)
        if self.feedback:  # horizons: nothing is known yet of what blocks will emit
            self.wires.horizon[:] = 0
            self.wires.horizon[self.roots] = W.NEVER
        lat = self.latencies
        for run in self.runs.values():
            block = run.block
            st, fst, mem = block.initial_state(self.tensors)
            for name, value in block.timing_params(self.timing).items():
                st[block.state[name]] = value
            st[W.LAT] = int(lat.get(block.dot_type,
                                    lat.get("default", block.timing_latency(self.timing))))
            if st[W.LAT] < 1:
                raise SimulationError(
                    f"latency of {block.dot_type} must be at least 1 cycle, got {st[W.LAT]}"
                )
            st[W.WIDTH] = self.widths.get(block.id, 1)
            run.st = st
            run.fst = fst
            run.mem = mem
            run.done = False
        self._fresh = True

    # ----------------------------------------------------------------------- running
    def run(
        self,
        engine: str = "fast",
        progress: Callable[[int], None] | None = None,
    ) -> SimResult:
        """Run to completion (or Ctrl-C: partial statistics, ``interrupted`` set).

        ``progress`` is called now and then with the number of tokens emitted so far.
        """
        self._start(engine)
        self._fns = {bid: r.block.kernel.py for bid, r in self.runs.items()}
        # The fast engine interprets until this clock reading, then loads the compiled kernels.
        self._tier_at = (time.process_time() + interpret_seconds() if engine == "fast"
                         else float("inf"))
        large = sum(len(t.vals) for t in self.tensors.values()) > INTERPRET_MAX_VALUES
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
        return self._result(engine, wall, interrupted)

    def _compiled_loaded(self) -> bool:
        """Whether this process has loaded every compiled kernel of the graph already (an
        earlier run, a sweep's earlier point): then there is nothing to save by interpreting."""
        return all(r.block.kernel.loaded for r in self.runs.values())

    def _use_compiled(self) -> None:
        """Switch every block to its compiled kernel (compiled or loaded from the disk cache;
        the time goes to ``jit_time``, not the simulation's wall time)."""
        self._tier_at = float("inf")
        fns = {bid: r.block.kernel.jit for bid, r in self.runs.items()}
        if not getattr(self, "_compiled", False):
            # once per Simulation: a rebound run reuses the kernels (a new signature, if any,
            # is compiled by numba on its first call)
            self.jit_time += self._compile(fns)
            self._compiled = True
        self._fns = fns
        if self.feedback or bool((self.depths > 0).any()):
            self._use_driver()

    def _use_driver(self) -> None:
        """Run the scheduler's sweeps in compiled code (:mod:`sam.sim.loops`): for graphs with
        cycles (feedback edges) or bounded FIFOs, whose kernel calls move few tokens each.
        A graph with a kernel of other argument types keeps the Python loop, and so does a
        run whose ``BlockRun.call`` is wrapped (a tracer recording every kernel call, as
        ``tests/test_engines_agree.py`` does)."""
        from sam.blocks import skiploop
        from sam.sim import loops

        if BlockRun.call is not _PLAIN_CALL:  # a tracer watches every kernel call
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
        start = time.perf_counter()
        fn = loops.driver()
        if not fn.overloads:  # compiled once, or loaded from the disk cache
            fn.compile(loops.signature_of(self._driver_args(np.zeros(3, np.int64))))
        self.jit_time += time.perf_counter() - start
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
        return (self.wires, isfb, done, out, np.int64(CALL_BUDGET), horizons, addr, uptr, ublk,
                last[2], last[3], fuse)

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
            fn = self._fns[run.block.id]
            rc = int(out[1])
            while rc == W.RC_GROW:
                run.block.grow_memory(run.mem, int(run.st[W.WAIT]))
                rc = run.call(fn, self.wires)
            if rc == W.RC_ERR:
                raise SimulationError(self._error_message(run))
            if rc == W.RC_DONE:
                run.done = True
            if self.feedback:
                self._publish(run, rc)
        return True, False

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
        """Check the engine's name and reset the state a previous run left (and its JIT
        time)."""
        if engine not in ("reference", "fast"):
            raise SimulationError(f"unknown engine {engine!r}; use reference or fast")
        if not self._fresh:
            self._reset()
        self._fresh = False
        self._driver = None  # set when the compiled kernels are (sam.sim.loops)
        #: kernel calls the compiled loop made in the last run
        self.driver_calls = 0
        self.jit_time = 0.0

    def _loop(self, progress: Callable[[int], None] | None) -> None:
        """Step every unfinished block (a cycle of blocks in lock steps) until all are done;
        grow the rings when only full rings hold the run up, else stop at a deadlock."""
        pending = [bid for bid in self.order if not self.runs[bid].done]
        while pending:
            if self._driver is not None:  # compiled kernels, few tokens per call: sam.sim.loops
                progressed, buf_full = self._drive()
            else:
                progressed, buf_full = self._sweep(pending)
            pending = [bid for bid in pending if not self.runs[bid].done]
            if progress is not None:
                progress(int(self.wires.count.sum()))
            if pending and not progressed:
                if buf_full:
                    self.wires = W.grow(self.wires)
                else:
                    raise Deadlock(self._deadlock_message(pending))

    def _sweep(self, pending: list[str]) -> tuple[bool, bool]:
        """One pass over the unfinished blocks in dataflow order, from Python: whether any
        moved, and whether a full ring held one up."""
        progressed = False
        buf_full = False
        swept: set[str] = set()
        for bid in pending:
            if bid in swept:
                continue
            if bid in self.cycle_of:  # a cycle runs in lock steps, all its blocks
                moved, full = self._run_cycle(self.cycle_of[bid])
                swept.update(self.cycle_of[bid])
            else:
                moved, full = self._step(bid)
            progressed |= moved
            buf_full |= full
        return progressed, buf_full

    def _cycles(self) -> int:
        """The run's cycle count: one past the last writer's done token (else the latest
        block clock)."""
        done = [int(r.st[W.DONE_T]) for r in self.runs.values()
                if r.block.family == "write" and r.done]
        return (max(done) + 1) if done else max((int(r.st[W.T]) for r in self.runs.values()),
                                                default=0)

    def _step(self, bid: str) -> tuple[bool, bool]:
        """Run one block as far as it goes: (whether it fired or published a later horizon,
        whether a simulator ring is full)."""
        run = self.runs[bid]
        if run.done:
            return False, False
        if time.process_time() >= self._tier_at:
            self._use_compiled()
        fn = self._fns[bid]
        busy = run.st[W.BUSY]
        rc = run.call(fn, self.wires)
        while rc == W.RC_GROW:
            run.block.grow_memory(run.mem, int(run.st[W.WAIT]))
            rc = run.call(fn, self.wires)
        if rc == W.RC_ERR:
            raise SimulationError(self._error_message(run))
        if rc == W.RC_DONE:
            run.done = True
        moved = bool(run.st[W.BUSY] != busy)
        if self.feedback:
            moved |= self._publish(run, rc)
        return moved, rc == W.RC_BUF

    def _publish(self, run: BlockRun, rc: int) -> bool:
        """Publish the horizon of ``run``'s output channels (conservative discrete-event
        simulation): its next firing is no earlier than its clock, nor than the arrival of the
        token it waits for (a feedback input is never waited for: its horizon is a question the
        block asks, not a token it needs). True when a horizon moved."""
        st = run.st
        w = self.wires
        if run.done:
            h = W.NEVER
        else:  # ndarray.item: a Python int without a numpy scalar (this runs once per call)
            lb = st.item(W.T)
            if rc == W.RC_IN:
                x = st.item(W.WAIT)
                if 0 <= x < len(self.channels) and not self.channels[x].dst_port.feedback:
                    head = w.head.item(x)
                    if head < w.tail.item(x):
                        arrival = w.time.item(x, head & (w.time.shape[1] - 1))
                    else:
                        arrival = w.horizon.item(x)
                    lb = max(lb, arrival)
            h = min(lb + st.item(W.LAT), W.NEVER)
        moved = False
        horizon = w.horizon
        for c in run.ochan.tolist():
            if horizon.item(c) < h:
                horizon[c] = h
                moved = True
        return moved

    def _run_cycle(self, blocks: list[str]) -> tuple[bool, bool]:
        """Run the blocks of one cycle of the graph round and round, each as far as the horizons
        of its feedback inputs allow, until none of them moves."""
        progressed = buf_full = False
        while True:
            moved = False
            for bid in blocks:
                m, full = self._step(bid)
                moved |= m
                buf_full |= full
            if not moved:
                return progressed, buf_full
            progressed = True

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

    # ----------------------------------------------------------------------- reporting
    def _describe(self, bid: str) -> str:
        return f"node {bid} ({self.graph.blocks[bid].label()})"

    def _error_message(self, run: BlockRun) -> str:
        st = run.st
        code = int(st[W.ERR])
        block = run.block
        what = block.error_text(code, st)
        port_idx = int(st[W.ERR_PORT])
        ports = block.inputs()
        port = ports[port_idx] if 0 <= port_idx < len(ports) else None
        tok = ""
        if st[W.ERR_KIND] >= 0 and port is not None:
            tok = f" (token {describe_token(int(st[W.ERR_KIND]), int(st[W.ERR_DATA]), port.kind)}"
            tok += f" on input {port.name})"
        return (f"{self._describe(block.id)}: {what}{tok} at cycle {int(st[W.T])}; the graph "
                "feeds it a malformed stream")

    def _deadlock_message(self, pending: list[str]) -> str:
        parts = []
        for bid in pending:
            run = self.runs[bid]
            what = self._waiting_for(run)
            parts.append(f"{self._describe(bid)} {what}")
        hint = ("; raise --fifo-depth" if self.fifo_depth else
                "; the graph is malformed (a block waits for a stream that never comes)")
        return "simulation cannot progress: " + "; ".join(parts[:8]) + (
            f"; and {len(parts) - 8} more" if len(parts) > 8 else "") + hint

    def _waiting_for(self, run: BlockRun) -> str:
        w = self.wires
        waits = int(run.st[W.WAIT])
        # Which input is empty?
        for k, c in enumerate(run.ins):
            if c == waits and c >= 0 and w.head[c] >= w.tail[c]:
                ch = self.channels[c]
                src = self._describe(ch.src) if ch.src else "the root"
                return f"waits for a token on input {run.block.inputs()[k].name} from {src}"
        outs = run.block.outputs()
        if 0 <= waits < len(outs):
            return f"waits for room on output {outs[waits].name} (FIFO full)"
        return "cannot fire"

    def _count(self, into: dict[str, int], channel: int) -> None:
        """Add the tokens pushed on ``channel``, by kind, to ``into``."""
        for k, name in enumerate(KIND_NAMES):
            into[name] += int(self.wires.count[channel, k])

    def _with_compounds(self, stats: dict[str, BlockStats]) -> dict[str, BlockStats]:
        """``stats`` with a rolled-up entry for every compound before its parts (see
        :class:`BlockStats`)."""
        exp = self.expansion
        rolled: dict[str, BlockStats] = {}
        for cid, info in exp.compounds.items():
            parts = [stats[p] for p in exp.primitives(cid) if p in stats]
            tin = dict.fromkeys(KIND_NAMES, 0)
            tout = dict.fromkeys(KIND_NAMES, 0)
            for targets in info.inputs.values():
                chans = [self.by_input[t] for t in targets if t in self.by_input]
                if chans:
                    self._count(tin, chans[0])
            inside = cid + "/"
            for src in info.outputs.values():
                leaving = [c for c in self.by_output.get(src, [])
                           if not self.channels[c].dst.startswith(inside)]
                if leaving:
                    self._count(tout, leaving[0])
            fired = [b for b in parts if b.busy] or parts
            rolled[cid] = BlockStats(
                cid, info.block.dot_type, info.block.label(), info.block.family, tin, tout,
                sum(b.busy for b in parts), sum(b.idle for b in parts),
                sum(b.stalled for b in parts), min((b.started for b in fired), default=0),
                max((b.finished for b in parts), default=0), tuple(info.children),
            )
        groups: dict[str, list[str]] = {}  # by outermost compound (or the block itself)
        for bid in stats:
            groups.setdefault((exp.enclosing(bid) or [bid])[0], []).append(bid)
        out: dict[str, BlockStats] = {}
        for members in groups.values():
            for bid in members:
                for cid in exp.enclosing(bid):
                    out.setdefault(cid, rolled[cid])
                out[bid] = stats[bid]
        return out

    def _result(self, engine: str, wall: float, interrupted: bool) -> SimResult:
        from sam.sim.assemble import assemble_outputs

        w = self.wires
        stats: dict[str, BlockStats] = {}
        cycles = self._cycles()
        for bid, run in self.runs.items():
            tin = dict.fromkeys(KIND_NAMES, 0)
            tout = dict.fromkeys(KIND_NAMES, 0)
            for c in run.ins:
                if c >= 0:
                    self._count(tin, c)
            for p in range(len(run.optr) - 1):
                if run.optr[p + 1] > run.optr[p]:
                    self._count(tout, run.ochan[run.optr[p]])
            stats[bid] = BlockStats(
                bid, run.block.dot_type, run.block.label(), run.block.family, tin, tout,
                int(run.st[W.BUSY]), int(run.st[W.IDLE]), int(run.st[W.STALL]),
                int(run.st[W.FIRST_T]), int(run.st[W.T]),
                details=run.block.details(run.st, run.mem),
            )
        if self.expansion.compounds:
            stats = self._with_compounds(stats)
        streams = []
        for ch in self.channels:
            if ch.src is None:
                continue
            streams.append(StreamStats(
                ch.src, ch.src_port.name, ch.dst, ch.dst_port.name, ch.kind,
                {name: int(w.count[ch.index, k]) for k, name in enumerate(KIND_NAMES)},
            ))
        outputs = {} if interrupted else assemble_outputs(self.graph, self.runs, self.tensors)
        return SimResult(outputs, cycles, stats, streams, wall, engine, self.fifo_depth,
                         interrupted, jit_time=getattr(self, "jit_time", 0.0))


def simulate(
    graph: Graph,
    tensors: Mapping[str, Tensor],
    *,
    engine: str = "fast",
    fifo_depth: int | None = None,
    latencies: Mapping[str, int] | None = None,
    progress: Callable[[int], None] | None = None,
    timing: str = "sam",
) -> SimResult:
    """Simulate ``graph`` with its input ``tensors`` (by name); see module docstring.

    ``engine`` is ``"fast"`` (the default, as on the command line: the block kernels compiled
    with numba, about 20-40 s once, then cached on disk) or ``"reference"`` (the same kernels
    in plain Python: no compilation, 100-300 times slower).
    ``timing="original"`` selects the original SAM simulator's costs where ours differ
    (docs/timing-model.md)."""
    if fifo_depth is not None and fifo_depth < 1:
        raise SimulationError(f"FIFO depth must be at least 1, got {fifo_depth}")
    sim = Simulation(graph, tensors, fifo_depth=fifo_depth, latencies=latencies, timing=timing)
    return sim.run(engine, progress)
