"""A run's report as a Chrome Trace Event file, for Perfetto (ui.perfetto.dev) and
``chrome://tracing``: ``sam-sim run --trace-events T.json`` and ``sam-sim trace R.json -o T.json``.

The time axis is simulated cycles, written as **1 cycle = 1 us** (``ts``/``dur`` are in
microseconds). Every phase of a program is a process (pid k, "phase k: NAME"; a single graph is
pid 1), offset by the cycles of the phases before it; a program also gets pid 0, "program",
whose one track holds a slice per phase. In a phase, every block is a thread (tid = its place in
the report + 1, named "ID LABEL") holding

* ``X`` spans: runs of the report's activity buckets (``report["activity"]``, folded by the
  engine's recorder) in the same state, named ``busy`` (at least half the bucket busy),
  ``busy <50%`` or ``stalled`` (more stalled than busy cycles); idle buckets have no span.
  ``args`` hold the span's ``busy``, ``idle``, ``stalled`` cycles and ``util`` (busy share, %);
  the spans' ``busy`` add up to the block's ``busy`` in the report;
* a ``C`` counter "ID LABEL util %", written only where the rounded percentage changes;

and every recorded stream a counter "fifo SRC:PORT -> DST:PORT" of its occupancy in tokens.

A report without ``activity`` still traces, coarsely: one span per block from its first firing to
its end, with its totals (``cat`` and ``otherData.resolution`` say "coarse").

Size is bounded: when the events would pass ``max_events`` (150,000 by default, about 10-15 MB),
neighbouring buckets are merged pairwise (FIFO occupancy keeps the larger value) until they fit.
Events are streamed one block at a time into :func:`formats.atomic.atomic_write`; no NaN or
Infinity is ever written (Perfetto rejects them).

This module takes the report **dict** (:mod:`sam.report` builds and loads it) and imports
neither the report nor the plotting modules.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from formats.atomic import atomic_write
from formats.errors import ToolkitError

#: default bound on the events of one trace (about 10-15 MB of JSON)
MAX_EVENTS = 150_000
#: the range ``--max-events`` accepts
EVENTS_RANGE = (1_000, 10_000_000)
_SERIES = ("busy", "idle", "stalled", "tokens")
_STATE_NAMES = {1: "busy <50%", 2: "busy", 3: "stalled"}


@dataclass
class TraceSummary:
    """What :func:`write_trace` wrote."""

    events: int
    bytes: int
    #: buckets merged into one (1 = the report's own resolution)
    merge: int
    coarse: bool


class _Phase:
    """One graph's report and where it sits in the program's time."""

    def __init__(self, report: Mapping[str, Any], pid: int, name: str, offset: int) -> None:
        self.report = report
        self.pid = pid
        self.name = name
        self.offset = offset
        self.cycles = int(report.get("cycles") or 0)
        act = report.get("activity")
        self.activity: Mapping[str, Any] | None = act if isinstance(act, Mapping) else None


def _phases(report: Mapping[str, Any]) -> list[_Phase]:
    phases = report.get("phases")
    if isinstance(phases, list) and phases:
        out, offset = [], 0
        for k, p in enumerate(phases):
            out.append(_Phase(p, k + 1, f"phase {k + 1}: {p.get('name', '')}", offset))
            offset += int(p.get("cycles") or 0)
        return out
    what = report.get("expression") or report.get("graph") or "graph"
    return [_Phase(report, 1, str(what), 0)]


def _block_series(act: Mapping[str, Any], bid: str, n: int) -> np.ndarray | None:
    """The block's (4, n) int64 array of busy, idle, stalled, tokens per bucket, or None."""
    entry = (act.get("blocks") or {}).get(bid)
    if not isinstance(entry, Mapping):
        return None
    rows = [np.asarray(entry.get(s) if entry.get(s) is not None else np.zeros(n), dtype=float)
            for s in _SERIES]
    return np.rint(np.stack(rows)).astype(np.int64)


def _merge(a: np.ndarray, f: int, how: str = "sum") -> np.ndarray:
    """Neighbouring groups of ``f`` buckets of the last axis merged (summed, or the max)."""
    if f == 1:
        return a
    n = a.shape[-1]
    pad = (-n) % f
    if pad:
        a = np.concatenate([a, np.zeros(a.shape[:-1] + (pad,), dtype=a.dtype)], axis=-1)
    shaped = a.reshape(a.shape[:-1] + (-1, f))
    return shaped.max(axis=-1) if how == "max" else shaped.sum(axis=-1)


def _states(s: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Per bucket: the state (0 idle, 1 busy <50%, 2 busy, 3 stalled) and the rounded busy
    percentage. A bucket's busy share is busy / max(width, busy + idle + stalled): a compound
    block sums its parts' cycles."""
    busy, idle, stalled = s[0], s[1], s[2]
    span = np.maximum(busy + idle + stalled, w)
    util = np.rint(100.0 * busy / span).astype(np.int64)
    state = np.where(stalled > busy, 3, np.where(2 * busy >= span, 2, np.where(busy > 0, 1, 0)))
    state = np.where((busy == 0) & (stalled == 0), 0, state)
    return state, util


def _runs(state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The starts and ends of the maximal runs of equal non-zero state."""
    if not len(state):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    edges = np.flatnonzero(np.diff(state)) + 1
    starts = np.concatenate([[0], edges])
    ends = np.concatenate([edges, [len(state)]])
    keep = state[starts] != 0
    return starts[keep], ends[keep]


def _changes(values: np.ndarray) -> int:
    """Counter events of a series written on change (plus a final zero)."""
    if not len(values):
        return 0
    n = 1 + int(np.count_nonzero(np.diff(values)))
    return n + (1 if values[-1] != 0 else 0)


def _count_events(phases: Sequence[_Phase], f: int) -> int:
    """How many events the trace has when ``f`` buckets are merged into one."""
    total = 0
    for ph in phases:
        blocks = ph.report.get("blocks") or []
        total += 2 + 2 * len(blocks)
        act = ph.activity
        if act is None:
            total += len(blocks)
            continue
        n, w = int(act["buckets"]), max(1, int(act["bucket_cycles"])) * f
        for b in blocks:
            s = _block_series(act, str(b["id"]), n)
            if s is None:
                continue
            state, util = _states(_merge(s, f), w)
            total += len(_runs(state)[0]) + _changes(util)
        for st in act.get("streams") or []:
            total += _changes(_merge(np.rint(np.asarray(st["occupancy"], dtype=float)), f,
                                     "max"))
    return total + (len(phases) + 2 if len(phases) > 1 else 0)


def plan_merge(report: Mapping[str, Any], max_events: int = MAX_EVENTS) -> int:
    """Buckets to merge into one (a power of two) so the trace has at most ``max_events``
    events (as few as the report's blocks allow)."""
    phases = _phases(report)
    most = max((int(p.activity["buckets"]) for p in phases if p.activity), default=1)
    f = 1
    while f < most and _count_events(phases, f) > max_events:
        f *= 2
    return f


def trace_events(report: Mapping[str, Any], merge: int = 1) -> Iterator[dict[str, Any]]:
    """The trace's events, one block at a time (``merge`` buckets merged into one)."""
    for ev in _events(report, merge):
        yield json.loads(ev) if isinstance(ev, str) else ev


#: an event, or (spans and counters, the bulk) its JSON text
_Event = dict[str, Any] | str


def _events(report: Mapping[str, Any], merge: int) -> Iterator[_Event]:
    phases = _phases(report)
    if len(phases) > 1:
        yield _meta(0, None, "process_name", name="program")
        yield _meta(0, None, "process_sort_index", sort_index=0)
        yield _meta(0, 1, "thread_name", name="phases")
        for ph in phases:
            yield {"ph": "X", "name": ph.name, "cat": "phase", "pid": 0, "tid": 1,
                   "ts": ph.offset, "dur": ph.cycles, "args": {"cycles": ph.cycles}}
    for ph in phases:
        yield from _phase_events(ph, merge)


def _meta(pid: int, tid: int | None, what: str, **args: Any) -> dict[str, Any]:
    ev: dict[str, Any] = {"ph": "M", "name": what, "pid": pid, "args": args}
    if tid is not None:
        ev["tid"] = tid
    return ev


def _phase_events(ph: _Phase, f: int) -> Iterator[_Event]:
    pid, t0 = ph.pid, ph.offset
    yield _meta(pid, None, "process_name", name=ph.name)
    yield _meta(pid, None, "process_sort_index", sort_index=pid)
    act = ph.activity
    n = int(act["buckets"]) if act else 0
    w = max(1, int(act["bucket_cycles"])) * f if act else 0
    for k, b in enumerate(ph.report.get("blocks") or []):
        tid, bid = k + 1, str(b["id"])
        track = f"{bid} {b.get('label', '')}".rstrip()
        yield _meta(pid, tid, "thread_name", name=track)
        yield _meta(pid, tid, "thread_sort_index", sort_index=tid)
        s = _block_series(act, bid, n) if act else None
        if s is None:
            yield from _coarse_span(b, pid, tid, t0)
            continue
        s = _merge(s, f)
        state, util = _states(s, w)
        starts, ends = _runs(state)
        sums = np.concatenate([np.zeros((3, 1), dtype=np.int64), np.cumsum(s[:3], axis=1)],
                              axis=1)
        cut = (sums[:, ends] - sums[:, starts]).T.tolist()
        head = f'"cat":"block","pid":{pid},"tid":{tid},"ts":'
        for a, z, st, (busy, idle, stalled) in zip(starts.tolist(), ends.tolist(),
                                                   state[starts].tolist(), cut, strict=True):
            dur = (z - a) * w  # >= w >= 1: util is finite
            util_pc = round(100.0 * busy / max(dur, busy + idle + stalled), 1)
            yield (f'{{"ph":"X","name":"{_STATE_NAMES[st]}",{head}{t0 + a * w},"dur":{dur},'
                   f'"args":{{"busy":{busy},"idle":{idle},"stalled":{stalled},'
                   f'"util":{util_pc!r}}}}}')
        yield from _counter(pid, f"{track} util %", "util", util, t0, w)
    for st in (act.get("streams") or []) if act else []:
        occ = _merge(np.rint(np.asarray(st["occupancy"], dtype=float)).astype(np.int64), f, "max")
        name = f"fifo {st['src']}:{st['src_port']} -> {st['dst']}:{st['dst_port']}"
        yield from _counter(pid, name, "tokens", occ, t0, w)


def _coarse_span(b: Mapping[str, Any], pid: int, tid: int, t0: int) -> Iterator[dict[str, Any]]:
    """A block without activity buckets: one span from its first firing to its end."""
    busy, idle, stalled = int(b["busy"]), int(b["idle"]), int(b["stalled"])
    start, end = int(b["started"]), int(b["finished"])
    if busy == 0 and stalled == 0 or end <= start:
        return
    dur = end - start
    yield {"ph": "X", "name": "active (coarse)", "cat": "coarse", "pid": pid, "tid": tid,
           "ts": t0 + start, "dur": dur,
           "args": {"busy": busy, "idle": idle, "stalled": stalled,
                    "util": round(100.0 * busy / max(dur, busy + idle + stalled), 1)}}


def _counter(pid: int, name: str, arg: str, values: np.ndarray, t0: int, w: int
             ) -> Iterator[str]:
    """A counter (int ``values`` per bucket) written where its value changes, and back to 0
    after its last bucket."""
    if not len(values):
        return
    head = f'{{"ph":"C","name":{json.dumps(name)},"pid":{pid},"ts":'
    where = np.concatenate([[0], np.flatnonzero(np.diff(values)) + 1])
    for j, v in zip(where.tolist(), values[where].tolist(), strict=True):
        yield f'{head}{t0 + j * w},"args":{{"{arg}":{int(v)}}}}}'
    if values[-1] != 0:
        yield f'{head}{t0 + len(values) * w},"args":{{"{arg}":0}}}}'


def _other_data(report: Mapping[str, Any], phases: Sequence[_Phase], f: int) -> dict[str, Any]:
    acts = [p.activity for p in phases if p.activity]
    other: dict[str, Any] = {"time_unit": "1 us = 1 cycle", "cycles": int(report.get("cycles")
                                                                           or 0),
                             "graph": str(report.get("graph", ""))}
    if report.get("expression"):
        other["expression"] = str(report["expression"])
    if len(acts) == len(phases):
        other["bucket_cycles"] = max(int(a["bucket_cycles"]) for a in acts) * f
        res = [a.get("resolution_cycles") for a in acts]
        if all(isinstance(r, int | float) and np.isfinite(r) for r in res):
            other["resolution_cycles"] = max(res)
        other["merged_buckets"] = f
    else:
        other["resolution"] = ("coarse: the report has no activity buckets; one span per block "
                               "from its first firing to its end")
    return other


def write_trace(report: Mapping[str, Any], path: str | os.PathLike,
                max_events: int = MAX_EVENTS) -> TraceSummary:
    """Write ``report``'s trace to ``path`` atomically (see module docstring)."""
    lo, hi = EVENTS_RANGE
    if not lo <= max_events <= hi:
        raise ToolkitError(f"--max-events {max_events}: give {lo:,} to {hi:,} events")
    phases = _phases(report)
    f = plan_merge(report, max_events)
    dumps = json.JSONEncoder(separators=(",", ":"), allow_nan=False, ensure_ascii=False).encode
    count = size = 0
    with atomic_write(path) as out:
        head = b'{"traceEvents":[\n'
        out.write(head)
        size += len(head)
        for ev in _events(report, f):
            line = (",\n" if count else "") + (ev if isinstance(ev, str) else dumps(ev))
            data = line.encode("utf-8")
            out.write(data)
            size += len(data)
            count += 1
        tail = ('\n],"displayTimeUnit":"ns","otherData":'
                + dumps(_other_data(report, phases, f)) + "}\n").encode("utf-8")
        out.write(tail)
        size += len(tail)
    return TraceSummary(count, size, f, not all(p.activity for p in phases))
