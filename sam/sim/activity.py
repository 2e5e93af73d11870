"""What each block did over time: cumulative samples at kernel-call boundaries, folded into
buckets.

Every block keeps its own clock and counters (``st[T]``, ``st[BUSY]``, ``st[IDLE]``,
``st[STALL]``: :mod:`sam.runtime.wires`), which only ever grow. A sample ``(T, busy, idle,
stalled, tokens_out)`` taken between two kernel calls is therefore a point of the block's
cumulative curves, exact at that point. The scheduler samples every block after each Python
sweep (:meth:`Activity.append`, one vectorised append) and the compiled driver samples a block
after each of its kernel calls (:func:`record`; :mod:`sam.sim.loops`). Samples live in one
point buffer per block, ``M`` points long; when a buffer is full every other point is dropped,
so memory is constant (``S x M x 5`` int64) and the points thin out evenly over the run. No
kernel is changed: inside one call, the cycles are spread evenly (linear interpolation), so the
resolution is the cycles between samples (about one simulator ring of tokens per call). Where
the samples fall depends on who dispatches the calls (a Python sweep or the driver, and when the
fast engine switches between them), so two runs agree exactly on the sums, and bucket by bucket
only when they switch alike (always: the reference engine, or a fixed ``SAM_INTERPRET_SECONDS``
of 0).

:meth:`Activity.fold` turns the curves into ``buckets`` equal spans of ``bucket_cycles``
cycles (``np.interp`` of each curve at the bucket edges, rounded, then differenced), so the sum
over the buckets of a block's busy (idle, stalled, tokens) cycles equals its
:class:`~sam.sim.stats.BlockStats` ``busy`` (``idle``, ``stalled``, the sum of
``tokens_out``) exactly. The folded activity is a plain dict (JSON-ready)::

    {"bucket_cycles": w,            # cycles per bucket
     "buckets": n,                  # buckets per series (1024 by default)
     "resolution_cycles": r,        # median cycles between a block's samples
     "blocks": {block_id: {"busy": [n ints], "idle": [...], "stalled": [...],
                           "tokens": [...]}},   # tokens: emitted (all outputs, once each)
     "streams": [{"src": id, "src_port": port, "dst": id, "dst_port": port,
                  "occupancy": [n ints]}]}  # watched streams only (see below)

Bucket ``j`` covers cycles ``[j*w, (j+1)*w)``. A watched stream (a channel: ``Simulation(...,
streams=["SRC:PORT", ...])`` or ``"auto"``, :func:`choose_streams`) is sampled by its producer
(pushes) and its consumer (pops); its occupancy in a bucket is pushes minus pops at the
bucket's middle cycle, interpolated, so it is exact only at samples (off by at most the tokens
one kernel call moves: with bounded FIFOs it can exceed the depth by a few tokens).

A compound block's arrays are the sums of its primitive parts' (:func:`with_compounds`), as
its busy, idle and stalled cycles are (its ``tokens`` too: the parts' emitted tokens, not
only those leaving the compound).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from sam.errors import SimulationError
from sam.runtime import wires as W
from sam.runtime.jit import jitable

if TYPE_CHECKING:
    from sam.sim.elaborate import BlockRun, Channel, Elaboration

#: Fields of a sample, in order.
FIELDS = ("T", "busy", "idle", "stalled", "tokens")
#: Points kept per block (at most; every other point is dropped when full).
POINTS = 2048
#: The recorder's buffers stay under this many bytes (fewer points per block on big graphs).
MAX_BYTES = 16 << 20
#: Buckets of a folded activity.
BUCKETS = 1024
#: Streams ``"auto"`` watches at most.
AUTO_STREAMS = 8


@jitable(inline=True)
def record(tp, tn, s, x, a, b, c, d):
    """Append the sample ``(x, a, b, c, d)`` to series ``s`` of the buffers ``tp`` (int64[S, M,
    5]) with ``tn[s]`` points; skipped when it equals the last point; a full series keeps
    every other point (the odd ones, so the last point stays)."""
    if s < 0 or s >= tn.shape[0]:
        return
    k = tn[s]
    if (k > 0 and tp[s, k - 1, 0] == x and tp[s, k - 1, 1] == a and tp[s, k - 1, 2] == b
            and tp[s, k - 1, 3] == c and tp[s, k - 1, 4] == d):
        return
    tp[s, k, 0] = x
    tp[s, k, 1] = a
    tp[s, k, 2] = b
    tp[s, k, 3] = c
    tp[s, k, 4] = d
    k += 1
    if k == tp.shape[1]:
        for j in range(k // 2):
            for f in range(5):
                tp[s, j, f] = tp[s, 2 * j + 1, f]
        k //= 2
    tn[s] = k


@jitable(inline=True)
def pushed(w, optr, ochan):
    """Tokens a block has emitted: over its output ports, the pushes on the port's first
    channel (a port copied to several consumers counts once)."""
    total = 0
    for p in range(optr.shape[0] - 1):
        if optr[p + 1] > optr[p]:
            total += w.tail[ochan[optr[p]]]
    return total


@jitable(inline=True)
def record_streams(w, tp, tn, cin, cout, t, ins, ochan):
    """Sample the watched channels of a block whose clock reads ``t``: its inputs' pops
    (series ``cin[c]``) and its outputs' pushes (series ``cout[c]``)."""
    for c in ins:
        if c >= 0 and cin[c] >= 0:
            record(tp, tn, cin[c], t, w.head[c], 0, 0, 0)
    for c in ochan:
        if cout[c] >= 0:
            record(tp, tn, cout[c], t, w.tail[c], 0, 0, 0)


def off() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Buffers of no series and no watched channel (the recorder off): what the compiled
    driver takes then."""
    none = np.zeros(0, np.int64)
    return np.zeros((0, 2, 5), np.int64), none, none, none


def choose_streams(channels: Sequence[Channel], wanted: str | Sequence[str] | None,
                   families: Mapping[str, str], strict: bool = True) -> list[Channel]:
    """The channels whose occupancy to record: none for None; ``"auto"``: the inputs of merge,
    reducer and writer blocks (``families``: block id -> family), at most
    :data:`AUTO_STREAMS`; else the channels out of each ``SRC`` or ``SRC:PORT`` named (all
    their consumers; a name matching none is an error when ``strict``)."""
    inner = [ch for ch in channels if ch.src is not None]
    if wanted is None:
        return []
    if isinstance(wanted, str) and wanted == "auto":
        return [ch for ch in inner
                if families.get(ch.dst) in ("merge", "reduce", "write")][:AUTO_STREAMS]
    names = [wanted] if isinstance(wanted, str) else list(wanted)
    chosen: list[Channel] = []
    for name in names:
        hit = [ch for ch in inner if name in (ch.src, f"{ch.src}:{ch.src_port.name}")]
        if not hit and strict:
            known = ", ".join(dict.fromkeys(f"{ch.src}:{ch.src_port.name}" for ch in inner))
            raise SimulationError(f"no stream {name!r} to record; streams: {known}")
        chosen += [ch for ch in hit if ch not in chosen]
    return chosen


class Activity:
    """The point buffers of a run's blocks (series ``k`` is the ``k``-th run of ``runs``).

    Made after the runs' states are reset, before the run: it moves every block's state
    array into a row of one array (same values, same kernel argument type), which the
    per-sweep sample reads at once."""

    def __init__(self, runs: Mapping[str, BlockRun], points: int | None = None,
                 streams: Sequence[Channel] = (), channels: int = 0) -> None:
        self.ids = list(runs)
        n = len(self.ids)
        #: the watched channels (``channels``: how many the run has)
        self.streams = list(streams)
        total = n + 2 * len(self.streams)
        cap = max(64, min(POINTS if points is None else points,
                          MAX_BYTES // (40 * max(total, 1))))
        #: the samples: int64[S, M, 5] (fields :data:`FIELDS`), ``count[s]`` used per series;
        #: series n + 2q and n + 2q + 1 are the pushes and pops of watched stream q
        #: (fields T and the count)
        self.points = np.zeros((total, cap, 5), np.int64)
        self.count = np.zeros(total, np.int64)
        index = {bid: k for k, bid in enumerate(self.ids)}
        #: channel -> series of its pops / pushes (-1: not watched; empty: none watched)
        self.cin = np.full(channels if self.streams else 0, -1, np.int64)
        self.cout = np.full(channels if self.streams else 0, -1, np.int64)
        for q, ch in enumerate(self.streams):
            self.cout[ch.index] = n + 2 * q
            self.cin[ch.index] = n + 2 * q + 1
        self._chan = np.array([ch.index for ch in self.streams], np.int64)
        self._src = np.array([index[ch.src] for ch in self.streams], np.int64)
        self._dst = np.array([index[ch.dst] for ch in self.streams], np.int64)
        rs = list(runs.values())
        self._rows: np.ndarray | None = None
        if rs and all(r.st.shape == rs[0].st.shape and r.st.dtype == np.int64 for r in rs):
            # the blocks' states become rows of one array (each row a 1-D C-contiguous int64
            # array, as the kernels take it): a sweep's sample is then one slice, not a stack
            self._rows = np.stack([r.st for r in rs])
            for k, r in enumerate(rs):
                r.st = self._rows[k]
        self._st = [r.st for r in rs]
        owner: list[int] = []
        first: list[int] = []
        for k, r in enumerate(rs):
            for p in range(len(r.optr) - 1):
                if r.optr[p + 1] > r.optr[p]:
                    owner.append(k)
                    first.append(int(r.ochan[r.optr[p]]))
        self._owner = np.array(owner, np.int64)
        self._first = np.array(first, np.int64)
        self._cols = np.array([W.T, W.BUSY, W.IDLE, W.STALL], np.int64)
        self._series = np.arange(total)
        self._last = np.full((total, 5), -1, np.int64)  # each series' last point (none: -1)

    def sample(self, wires: W.Wires) -> np.ndarray:
        """Every series' current point: each block's ``(T, busy, idle, stalled, tokens)``,
        then each watched stream's ``(producer's T, pushes, 0, 0, 0)`` and ``(consumer's T,
        pops, 0, 0, 0)``: int64[S, 5]."""
        n = len(self.ids)
        out = np.zeros((self.count.shape[0], 5), np.int64)
        if n == 0:
            return out
        rows = self._rows if self._rows is not None else np.stack(self._st)
        out[:n, :4] = rows[:, self._cols]
        tok = np.zeros(n, np.int64)
        if self._first.size:
            np.add.at(tok, self._owner, wires.tail[self._first])
        out[:n, 4] = tok
        if self.streams:
            out[n::2, 0] = rows[self._src, W.T]
            out[n::2, 1] = wires.tail[self._chan]
            out[n + 1::2, 0] = rows[self._dst, W.T]
            out[n + 1::2, 1] = wires.head[self._chan]
        return out

    def append(self, wires: W.Wires) -> None:
        """Sample every block (after a Python sweep): one vectorised append, as :func:`record`
        does per block."""
        self.add(self.sample(wires))

    def add(self, vals: np.ndarray) -> None:
        """Append sample ``vals[s]`` (int64[S, 5]) to each series ``s``, as :func:`record`
        would one by one."""
        tp, tn = self.points, self.count
        new = (vals != self._last).any(axis=1)
        if new.all():
            tp[self._series, tn] = vals
            tn += 1
            self._last = vals
        else:
            idx = np.flatnonzero(new)
            if idx.size == 0:
                return
            tp[idx, tn[idx]] = vals[idx]
            tn[idx] += 1
            self._last[idx] = vals[idx]
        m = tp.shape[1]
        if (tn == m).any():
            for s in np.flatnonzero(tn == m):  # full: keep every other point (the odd ones)
                tp[s, : m // 2] = tp[s, 1::2]
                tn[s] = m // 2

    def fold(self, cycles: int, wires: W.Wires, buckets: int = BUCKETS) -> dict:
        """The folded activity (see module docstring), the blocks' final states closing
        their curves."""
        final = self.sample(wires)
        curves = []
        for s in range(self.count.shape[0]):
            pts = np.concatenate([np.zeros((1, 5), np.int64), self.points[s, : self.count[s]],
                                  final[s : s + 1]])
            # the clock only grows; keep the last point of each clock reading
            keep = np.ones(len(pts), bool)
            keep[:-1] = pts[1:, 0] != pts[:-1, 0]
            curves.append(pts[keep])
        top = max([int(cycles), *(int(c[-1, 0]) for c in curves), 1])
        width = -(-top // buckets)
        edges = np.arange(buckets + 1, dtype=np.float64) * width
        blocks: dict[str, dict[str, list[int]]] = {}
        gaps: list[float] = []
        for bid, c in zip(self.ids, curves[: len(self.ids)], strict=True):
            x = c[:, 0].astype(np.float64)
            entry: dict[str, list[int]] = {}
            for f, name in ((1, "busy"), (2, "idle"), (3, "stalled"), (4, "tokens")):
                at = np.rint(np.interp(edges, x, c[:, f].astype(np.float64))).astype(np.int64)
                at[0] = 0
                at[-1] = c[-1, f]
                entry[name] = np.diff(at).tolist()
            blocks[bid] = entry
            if len(x) > 2:
                gaps.append(float(np.median(np.diff(x[1:]))))
        resolution = int(round(float(np.median(gaps)))) if gaps else int(top)
        mids = edges[:-1] + width / 2
        streams = []
        n = len(self.ids)
        for q, ch in enumerate(self.streams):
            push, pop = curves[n + 2 * q], curves[n + 2 * q + 1]
            occ = (np.interp(mids, push[:, 0].astype(np.float64), push[:, 1].astype(np.float64))
                   - np.interp(mids, pop[:, 0].astype(np.float64), pop[:, 1].astype(np.float64)))
            streams.append({"src": ch.src, "src_port": ch.src_port.name, "dst": ch.dst,
                            "dst_port": ch.dst_port.name,
                            "occupancy": np.maximum(np.rint(occ), 0).astype(np.int64).tolist()})
        return {"bucket_cycles": int(width), "buckets": int(buckets),
                "resolution_cycles": resolution, "blocks": blocks, "streams": streams}


def with_compounds(activity: dict, el: Elaboration) -> dict:
    """``activity`` with an entry for every compound block: the sums of its primitive parts'
    arrays (as :func:`sam.sim.stats.with_compounds` rolls up their cycles)."""
    exp = el.expansion
    blocks = activity["blocks"]
    n = int(activity["buckets"])
    out: dict[str, dict[str, list[int]]] = {}
    for cid in exp.compounds:
        parts = [blocks[p] for p in exp.primitives(cid) if p in blocks]
        out[cid] = {f: _sum([p[f] for p in parts], n) for f in ("busy", "idle", "stalled",
                                                                 "tokens")}
    out.update(blocks)
    return {**activity, "blocks": out}


def _sum(arrays: Sequence[list[int]], n: int) -> list[int]:
    total = np.zeros(n, np.int64)
    for a in arrays:
        total += np.asarray(a, np.int64)
    return total.tolist()
