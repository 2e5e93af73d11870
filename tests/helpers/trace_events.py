"""A validator of Chrome Trace Event files (the fields Perfetto and ``chrome://tracing`` read),
and a synthetic ``activity`` dict for tests (the shape :mod:`sam.sim` folds a run into).

:func:`problems` lists what is wrong with a trace's text (empty when it is valid): JSON without
NaN or Infinity; a dict with a list ``traceEvents`` and ``displayTimeUnit`` ms or ns; each event
a dict with ``ph`` in X, B, E, C, M, i, a non-empty ``name``, int (not bool) ``pid``/``tid``,
``cat`` a str and ``args`` a dict when present; X with ``ts``, ``dur`` >= 0; B/E balanced per
track; C with numeric args; M of the four metadata names with their arg; X spans on one track
disjoint or nested; every track with slices named by a ``thread_name``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

PHASES = {"X", "B", "E", "C", "M", "i"}
META = {"process_name": ("name", str), "thread_name": ("name", str),
        "process_sort_index": ("sort_index", int), "thread_sort_index": ("sort_index", int)}


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return (isinstance(v, int | float) and not isinstance(v, bool)) and math.isfinite(v)


def load(text: str) -> dict[str, Any]:
    """The trace's JSON; NaN and Infinity refused (Perfetto refuses them)."""
    def fail(name: str) -> None:
        raise ValueError(f"{name} in a trace")

    return json.loads(text, parse_constant=fail)


def problems(text: str) -> list[str]:
    """What is wrong with the trace ``text`` (empty when valid)."""
    try:
        data = load(text)
    except ValueError as err:
        return [f"not JSON: {err}"]
    return problems_of(data)


def problems_of(data: Any) -> list[str]:
    """What is wrong with a trace's parsed JSON (see :func:`problems`)."""
    if not isinstance(data, dict) or not isinstance(data.get("traceEvents"), list):
        return ["no list 'traceEvents'"]
    if "displayTimeUnit" in data and data["displayTimeUnit"] not in ("ms", "ns"):
        return [f"displayTimeUnit {data['displayTimeUnit']!r}"]
    out: list[str] = []
    spans: dict[tuple[int, int], list[tuple[float, float]]] = {}
    open_b: dict[tuple[int, int], list[float]] = {}
    named: set[tuple[int, int]] = set()
    for k, ev in enumerate(data["traceEvents"]):
        where = f"event {k}"
        if not isinstance(ev, dict):
            out.append(f"{where}: not an object")
            continue
        ph = ev.get("ph")
        if ph not in PHASES:
            out.append(f"{where}: ph {ph!r}")
            continue
        if not isinstance(ev.get("name"), str) or not ev["name"]:
            out.append(f"{where}: no name")
        if not _is_int(ev.get("pid")):
            out.append(f"{where}: pid {ev.get('pid')!r}")
        if "tid" in ev and not _is_int(ev["tid"]):
            out.append(f"{where}: tid {ev['tid']!r}")
        if ph in ("X", "B", "E", "i") and not _is_int(ev.get("tid")):
            out.append(f"{where}: {ph} without an int tid")
        if "cat" in ev and not isinstance(ev["cat"], str):
            out.append(f"{where}: cat {ev['cat']!r}")
        if "args" in ev and not isinstance(ev["args"], dict):
            out.append(f"{where}: args not an object")
        track = (ev.get("pid"), ev.get("tid"))
        if ph != "M" and not _is_num(ev.get("ts")):
            out.append(f"{where}: ts {ev.get('ts')!r}")
            continue
        if ph == "X":
            if not _is_num(ev.get("dur")) or ev["dur"] < 0 or ev["ts"] < 0:
                out.append(f"{where}: X ts/dur {ev.get('ts')!r}/{ev.get('dur')!r}")
                continue
            spans.setdefault(track, []).append((ev["ts"], ev["ts"] + ev["dur"]))
        elif ph == "B":
            open_b.setdefault(track, []).append(ev["ts"])
        elif ph == "E":
            stack = open_b.get(track)
            if not stack:
                out.append(f"{where}: E without B")
            elif stack.pop() > ev["ts"]:
                out.append(f"{where}: E before its B")
        elif ph == "C":
            args = ev.get("args")
            if not isinstance(args, dict) or not args or not all(map(_is_num, args.values())):
                out.append(f"{where}: counter args {args!r}")
        elif ph == "M":
            want = META.get(ev.get("name"))
            args = ev.get("args") if isinstance(ev.get("args"), dict) else {}
            if want is None:
                out.append(f"{where}: metadata {ev.get('name')!r}")
            elif not (_is_int(args.get(want[0])) if want[1] is int
                      else isinstance(args.get(want[0]), str)):
                out.append(f"{where}: {ev['name']} without args.{want[0]}")
            elif ev["name"] == "thread_name":
                named.add(track)
    for track, stack in open_b.items():
        if stack:
            out.append(f"track {track}: {len(stack)} B without E")
    for track, rows in spans.items():
        out += _overlaps(track, rows)
    for track in set(spans) | set(open_b):
        if track not in named:
            out.append(f"track {track}: slices but no thread_name")
    return out


def _overlaps(track: Any, rows: list[tuple[float, float]]) -> list[str]:
    """X spans on one track that overlap without nesting."""
    rows = sorted(rows, key=lambda r: (r[0], -r[1]))
    stack: list[float] = []
    for a, z in rows:
        while stack and stack[-1] <= a:
            stack.pop()
        if stack and z > stack[-1]:
            return [f"track {track}: span [{a}, {z}] overlaps one ending at {stack[-1]}"]
        stack.append(z)
    return []


def synthetic_activity(report: Mapping[str, Any], buckets: int = 1024, *, seed: int = 0,
                       streams: int = 0) -> dict[str, Any]:
    """An ``activity`` dict for ``report``'s blocks whose bucket sums equal the blocks' busy,
    idle and stalled cycles (spread at random over their active buckets)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    cycles = max(int(report["cycles"]), 1)
    w = -(-cycles // buckets)
    out: dict[str, Any] = {"bucket_cycles": w, "buckets": buckets, "resolution_cycles": w,
                           "blocks": {}, "streams": []}
    for b in report["blocks"]:
        lo = min(int(b["started"]) // w, buckets - 1)
        hi = max(lo + 1, min(-(-int(b["finished"]) // w), buckets))
        entry = {}
        for field in ("busy", "idle", "stalled"):
            entry[field] = _spread(rng, int(b[field]), buckets, lo, hi)
        entry["tokens"] = _spread(rng, sum(b["tokens_out"].values()), buckets, lo, hi)
        out["blocks"][str(b["id"])] = entry
    for s in report["streams"][:streams]:
        out["streams"].append({"src": s["src"], "src_port": s["src_port"], "dst": s["dst"],
                               "dst_port": s["dst_port"],
                               "occupancy": rng.integers(0, 50, buckets).tolist()})
    return out


def _spread(rng: Any, total: int, n: int, lo: int, hi: int) -> list[int]:
    """``total`` split at random over buckets lo..hi-1 of n."""
    import numpy as np

    counts = np.zeros(n, dtype=np.int64)
    if total:
        counts[lo:hi] = rng.multinomial(total, np.full(hi - lo, 1.0 / (hi - lo)))
    return counts.tolist()
