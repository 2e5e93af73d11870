"""The scheduler: runs an elaborated graph's block kernels until every block is done.

Scheduling never steps idle blocks: every block keeps its own clock, and a block is only run
while it has tokens to work on, so the cost follows the tokens processed. With unbounded FIFOs a
block's output tokens and their cycles depend only on its input tokens and their cycles, so any
order of running blocks gives the same result; we sweep the blocks in dataflow order. The blocks
of a cycle of the graph (skip streams, SAM paper Sec. 4.2) run in lock steps, each as far as the
horizons of its feedback inputs allow (conservative discrete-event simulation,
``docs/timing-model.md``). No progress in a sweep means a full ring (the rings double) or, with
bounded FIFOs, a deadlock, reported with every stuck block and what it waits for.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from sam.errors import Deadlock, SimulationError
from sam.runtime import wires as W
from sam.runtime.tokens import describe_token
from sam.sim.activity import Activity
from sam.sim.elaborate import BlockRun, Elaboration

#: The interpreting budget's end once the compiled kernels run (``_tier_at``).
INF = float("inf")
#: Python sweeps after which a run on compiled kernels hands its sweeps to the compiled driver
#: (:mod:`sam.sim.loops`): a sweep calls every block from Python (about 1.5 us a call), so a
#: graph that streams millions of tokens through one channel, a ring (16k tokens) per sweep,
#: spends seconds dispatching calls that move a few tokens each.
DRIVER_AFTER_SWEEPS = 256


class Scheduler(Elaboration):
    """The sweeps over an elaborated graph's blocks, in Python (the compiled tier,
    :class:`sam.sim.compiled.CompiledTier`, adds compiled kernels and the compiled driver)."""

    #: each block's kernel, by block id (Python, or compiled: ``sam.sim.compiled``)
    _fns: dict[str, Callable[..., int]]
    #: process time at which :meth:`_step` switches to the compiled kernels (never by default)
    _tier_at = float("inf")
    #: the compiled driver running the sweeps (``sam.sim.loops``), when one is in use
    _driver: Callable[..., int] | None = None
    #: the activity recorder's point buffers (:mod:`sam.sim.activity`), None when it is off
    recorder: Activity | None = None

    def _use_compiled(self) -> None:
        """Switch every block to its compiled kernel (:class:`sam.sim.compiled.CompiledTier`)."""
        raise NotImplementedError

    def _drive(self) -> tuple[bool, bool]:
        """One call of the compiled driver (:class:`sam.sim.compiled.CompiledTier`)."""
        raise NotImplementedError

    def _use_driver(self) -> None:
        """Run the sweeps in the compiled driver from now on, if it can run this graph
        (:class:`sam.sim.compiled.CompiledTier`)."""
        raise NotImplementedError

    def _driver_ready(self) -> bool:
        """Whether the compiled driver is loaded or on disk (a run does not stop to compile
        it: :class:`sam.sim.compiled.CompiledTier`)."""
        return False

    def _compiled_in_use(self) -> bool:
        """Whether the blocks run their compiled kernels (not the Python ones)."""
        run = next(iter(self.runs.values()), None)
        return run is not None and self._fns[run.block.id] is not run.block.kernel.py

    def _loop(self, progress: Callable[[int], None] | None) -> None:
        """Step every unfinished block (a cycle of blocks in lock steps) until all are done;
        grow the rings when only full rings hold the run up, else stop at a deadlock. A run on
        compiled kernels still sweeping after :data:`DRIVER_AFTER_SWEEPS` sweeps goes on in
        the compiled driver."""
        pending = [bid for bid in self._sweep_order() if not self.runs[bid].done]
        sweeps = 0  # Python sweeps on compiled kernels
        while pending:
            if self._driver is not None:  # compiled kernels, few tokens per call: sam.sim.loops
                progressed, buf_full = self._drive()  # (it samples the activity itself)
            else:
                progressed, buf_full = self._sweep(pending)
                if self.recorder is not None:  # each block's activity after the sweep
                    self.recorder.append(self.wires)
                if sweeps < DRIVER_AFTER_SWEEPS and self._compiled_in_use():
                    sweeps += 1
                    if sweeps == DRIVER_AFTER_SWEEPS and self._driver_ready():
                        self._use_driver()  # a long run: sweeps in compiled code
            pending = [bid for bid in pending if not self.runs[bid].done]
            if progress is not None:
                progress(int(self.wires.count.sum()))
            if pending and not progressed:
                if buf_full:
                    self.wires = W.grow(self.wires)
                else:
                    raise Deadlock(self._deadlock_message(pending))

    def _sweep_order(self) -> list[str]:
        """The order of a sweep: :attr:`order` (producers first), or for a graph without
        cycles, feedback inputs or bounded FIFOs, a depth-first dataflow order: each block as
        soon after its producers as it can be, so that a lane's blocks run one after another
        while its rings are still in the cache (a breadth-first order runs every lane's copy of
        a block in turn, the rings of all lanes between a producer and its consumer)."""
        if self.cycle_of or self.feedback or self.depths.any():
            return self.order
        cached = getattr(self, "_depth_first", None)
        if cached is not None and cached[0] is self.order:
            return cached[1]
        succ: dict[str, list[str]] = {bid: [] for bid in self.order}
        indeg = dict.fromkeys(self.order, 0)
        for ch in self.channels:
            if ch.src is not None and ch.src in succ and ch.dst in succ:
                succ[ch.src].append(ch.dst)
                indeg[ch.dst] += 1
        ready = [bid for bid in reversed(self.order) if indeg[bid] == 0]
        order: list[str] = []
        while ready:
            bid = ready.pop()
            order.append(bid)
            for nxt in reversed(succ[bid]):
                indeg[nxt] -= 1
                if indeg[nxt] == 0:
                    ready.append(nxt)
        if len(order) != len(self.order):
            order = self.order
        self._depth_first = (self.order, order)
        return order

    def _sweep(self, pending: list[str]) -> tuple[bool, bool]:
        """One pass over the unfinished blocks in dataflow order, from Python: whether any
        moved, and whether a full ring held one up."""
        if not self.cycle_of and not self.feedback and self._tier_at == INF:
            return self._sweep_acyclic(pending)
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

    def _sweep_acyclic(self, pending: list[str]) -> tuple[bool, bool]:
        """:meth:`_sweep` of a graph without cycles or feedback inputs, its kernels chosen
        for good: :meth:`_step` per block, its lookups hoisted out of the loop (a graph of
        lanes makes thousands of calls that move a ring of tokens each)."""
        runs = self.runs
        fns = self._fns
        w = self.wires
        busy_at = W.BUSY
        plain = (W.RC_GROW, W.RC_ERR, W.RC_DONE)
        progressed = False
        buf_full = False
        for bid in pending:
            run = runs[bid]
            if run.done:
                continue
            st = run.st
            busy = st.item(busy_at)
            fn = fns[bid]
            rc = run.call(fn, w)
            if rc in plain:
                rc = self._settle(run, fn, rc)
            if st.item(busy_at) != busy:
                progressed = True
            if rc == W.RC_BUF:
                buf_full = True
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
        if self._tier_at != INF and time.process_time() >= self._tier_at:
            self._use_compiled()  # (no clock read once compiled: about 1 us per call)
        fn = self._fns[bid]
        busy = run.st[W.BUSY]
        rc = self._settle(run, fn, run.call(fn, self.wires))
        moved = bool(run.st[W.BUSY] != busy)
        if self.feedback:
            moved |= self._publish(run, rc)
        return moved, rc == W.RC_BUF

    def _settle(self, run: BlockRun, fn: Callable[..., int], rc: int) -> int:
        """Finish a kernel call that returned ``rc``: grow the memory it asks for and call it
        again while it does; a failure raises with the block's message; done marks the run.
        The code it ends with."""
        while rc == W.RC_GROW:
            run.block.grow_memory(run.mem, int(run.st[W.WAIT]))
            rc = run.call(fn, self.wires)
        if rc == W.RC_ERR:
            raise SimulationError(self._error_message(run))
        if rc == W.RC_DONE:
            run.done = True
        return rc

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

