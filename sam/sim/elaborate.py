"""Elaboration: a SAM graph made ready to run, once, before any scheduling.

Compound blocks are replaced by their parts (``sam/graph/expand.py``), ``broadcast`` fan-out
points removed (each consumer gets its own copy of the stream), blocks put in dataflow order and
the graph's cycles found (skip streams, SAM paper Sec. 4.2); then one channel per consumer
port plus the root reference streams, each channel's modeled FIFO depth, and one runtime per
block (state, port wiring, memories). :meth:`Elaboration._reset` gives every runtime a fresh
state from the bound tensors; the scheduler (:mod:`sam.sim.schedule`) runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from formats.tensor import Tensor
from sam.blocks.base import Block, Memories, Port
from sam.errors import GraphError, SimulationError
from sam.graph.fifos import input_bounds, stream_depth
from sam.graph.model import Graph
from sam.runtime import wires as W
from sam.runtime.tokens import DATA, DONE
from sam.sim.widths import block_widths

#: Timing models: ours (``sam``, the default) and the original SAM simulator's (``original``).
TIMINGS = ("sam", "original")


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


#: ``BlockRun.call`` as defined here (tests wrap it to trace kernel calls)
PLAIN_CALL = BlockRun.call


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


def _graph_cycles(order: list[str], links: list[tuple[str, Port, str, Port]]) -> list[list[str]]:
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


class Elaboration:
    """A graph elaborated once: compounds expanded, channels, block runtimes, dataflow order.

    :meth:`rebind` binds new input tensors without elaborating the graph again, and
    :meth:`_reset` gives every block a fresh state from them.
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
        for comp in _graph_cycles(self.order, links):
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
