"""What a simulation reports: per-block and per-stream statistics, and the result record.

Statistics are read off the block states and the channels' token counts after a run
(:func:`block_stats`, :func:`stream_stats`); a compound block's are rolled up from its parts
(:func:`with_compounds`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from formats.tensor import Tensor
from sam.runtime import wires as W
from sam.runtime.tokens import KIND_NAMES

if TYPE_CHECKING:
    from sam.sim.elaborate import BlockRun, Channel, Elaboration


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
    #: of ``jit_time``, seconds compiling kernels that were not on disk yet
    compile_time: float = 0.0
    #: the kernels compiled for this run (not on disk before), by name
    compiled_kernels: list[str] = field(default_factory=list)
    #: each block's busy/idle/stalled cycles and tokens per time bucket, when the run recorded
    #: them (``Simulation(activity=True)``; the dict is described in :mod:`sam.sim.activity`)
    activity: dict | None = None

    @property
    def tokens(self) -> int:
        """Tokens emitted by all primitive blocks (a stream copied to several consumers counts
        once)."""
        return sum(sum(b.tokens_out.values()) for b in self.blocks.values() if not b.parts)

    def _repr_html_(self) -> str:
        """Jupyter: the cycles and a table of the blocks' busy, idle and stalled cycles."""
        from html import escape

        head = (f"<p><b>{self.cycles:,} cycles</b>, {self.tokens:,} tokens, {self.engine} "
                f"engine, {self.wall_time:.3f} s" + (" (interrupted)" if self.interrupted else "")
                + (f"; {escape(self.error)}" if self.error else "") + "</p>")
        cells = "".join(
            f"<tr><td>{escape(b.id)}</td><td style='text-align:left'>{escape(b.label)}</td>"
            f"<td>{b.busy:,}</td><td>{b.idle:,}</td><td>{b.stalled:,}</td>"
            f"<td>{100 * b.utilisation(self.cycles):.1f}</td></tr>" for b in self.blocks.values())
        return (head + "<table><tr><th>id</th><th>block</th><th>busy</th><th>idle</th>"
                "<th>stalled</th><th>util %</th></tr>" + cells + "</table>")


def count_tokens(into: dict[str, int], wires: W.Wires, channel: int) -> None:
    """Add the tokens pushed on ``channel``, by kind, to ``into``."""
    for k, name in enumerate(KIND_NAMES):
        into[name] += int(wires.count[channel, k])


def block_stats(runs: Mapping[str, BlockRun], wires: W.Wires) -> dict[str, BlockStats]:
    """Every primitive block's statistics, from its state and its channels' token counts."""
    stats: dict[str, BlockStats] = {}
    for bid, run in runs.items():
        tin = dict.fromkeys(KIND_NAMES, 0)
        tout = dict.fromkeys(KIND_NAMES, 0)
        for c in run.ins:
            if c >= 0:
                count_tokens(tin, wires, c)
        for p in range(len(run.optr) - 1):
            if run.optr[p + 1] > run.optr[p]:
                count_tokens(tout, wires, run.ochan[run.optr[p]])
        stats[bid] = BlockStats(
            bid, run.block.dot_type, run.block.label(), run.block.family, tin, tout,
            int(run.st[W.BUSY]), int(run.st[W.IDLE]), int(run.st[W.STALL]),
            int(run.st[W.FIRST_T]), int(run.st[W.T]),
            details=run.block.details(run.st, run.mem),
        )
    return stats


def with_compounds(stats: dict[str, BlockStats], el: Elaboration, wires: W.Wires
                   ) -> dict[str, BlockStats]:
    """``stats`` with a rolled-up entry for every compound before its parts (see
    :class:`BlockStats`)."""
    exp = el.expansion
    rolled: dict[str, BlockStats] = {}
    for cid, info in exp.compounds.items():
        parts = [stats[p] for p in exp.primitives(cid) if p in stats]
        tin = dict.fromkeys(KIND_NAMES, 0)
        tout = dict.fromkeys(KIND_NAMES, 0)
        for targets in info.inputs.values():
            chans = [el.by_input[t] for t in targets if t in el.by_input]
            if chans:
                count_tokens(tin, wires, chans[0])
        inside = cid + "/"
        for src in info.outputs.values():
            leaving = [c for c in el.by_output.get(src, [])
                       if not el.channels[c].dst.startswith(inside)]
            if leaving:
                count_tokens(tout, wires, leaving[0])
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


def stream_stats(channels: list[Channel], wires: W.Wires) -> list[StreamStats]:
    """The tokens of every edge of the graph (root reference streams left out)."""
    streams = []
    for ch in channels:
        if ch.src is None:
            continue
        streams.append(StreamStats(
            ch.src, ch.src_port.name, ch.dst, ch.dst_port.name, ch.kind,
            {name: int(wires.count[ch.index, k]) for k, name in enumerate(KIND_NAMES)},
        ))
    return streams
