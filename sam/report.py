"""Simulation reports: the text table ``sam-sim run`` prints and the JSON it writes.

The JSON report is what ``sam-sim draw --stats`` and ``sam-sim plot`` read back. One builder,
:func:`build_report`, makes it from a :class:`~sam.program.ProgramResult`: a single graph (a
program of one phase) has one graph's report; a program of several holds one such report per
phase under ``phases`` and, at the top, ``phase_cycles`` and the total ``cycles`` (their sum:
phases run one after another); the tools that read a report pick a phase (``--phase N``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from formats.errors import ToolkitError
from formats.tensor import Tensor
from sam.runtime.tokens import KIND_NAMES

if TYPE_CHECKING:
    from sam.program import Program, ProgramResult
    from sam.sim.engine import BlockStats, SimResult

REPORT_VERSION = 1


def tensor_summary(t: Tensor, source: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"shape": list(t.shape), "format": str(t.format), "nnz": t.nnz,
                           "stored": int(len(t.vals))}
    if source is not None:
        out["source"] = source
    return out


def build_report(
    result: ProgramResult,
    program: Program,
    *,
    graph_path: str,
    inputs: Mapping[str, Tensor],
    sources: Mapping[str, str],
    latencies: Mapping[str, int] | None = None,
    checks: Sequence[dict[str, Any] | None] = (),
    expression: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A JSON-ready dict with every figure ``sam-sim run`` prints.

    ``options`` (how the run was made: timing, width, ...) is recorded when given; a phase
    whose result carries ``activity`` (the engine's folded per-block buckets) records it.

    A program of one phase (a graph) is reported as its graph: ``expression`` is the one to
    record (the graph's, or ``--expr``). A program of several has totals, then each phase's
    report with ``name`` and ``index`` (its inputs are the tensors it read, temporaries
    included; its expression the one its graph records)."""
    if len(program.phases) == 1:
        return _with_options(
            _graph_report(result.phases[0], graph_path=graph_path, expression=expression,
                          inputs=inputs, sources=sources, latencies=latencies,
                          check=checks[0] if checks else None), options)
    phases = []
    for k, (phase, res) in enumerate(zip(program.phases, result.phases, strict=False)):
        rep = _graph_report(res, graph_path=f"{graph_path} phase {k + 1}",
                            expression=phase.graph.contract.expression,
                            inputs=result.inputs[k],
                            sources=sources, latencies=latencies,
                            check=checks[k] if k < len(checks) else None)
        phases.append({"name": phase.name, "index": k + 1, **rep})
    wall = result.wall_time
    ran = [c for c in checks if c]
    check = None
    if ran:
        failed = [f"{k + 1} ({program.phases[k].name})" for k, c in enumerate(checks)
                  if c and not c["passed"]]
        check = {"passed": not failed,
                 "line": f"FAIL: phase {', '.join(failed)} differs from numpy/scipy" if failed
                 else f"PASS: all {len(ran)} phases equal numpy/scipy"}
    return _with_options({
        "version": REPORT_VERSION,
        "graph": graph_path,
        "program": [p.name for p in program.phases],
        "engine": result.phases[0].engine if result.phases else None,
        "fifo_depth": result.phases[0].fifo_depth if result.phases else None,
        "latencies": dict(latencies or {}),
        "interrupted": result.interrupted,
        "error": next((r.error for r in result.phases if r.error), None),
        "cycles": result.cycles,
        "phase_cycles": result.phase_cycles,
        "wall_time_s": wall,
        **_times(result),
        "tokens": result.tokens,
        "tokens_per_s": result.tokens / wall if wall > 0 else None,
        "inputs": {n: tensor_summary(t, sources.get(n)) for n, t in inputs.items()},
        "outputs": {n: tensor_summary(t) for n, t in result.outputs.items()},
        "check": check,
        "phases": phases,
    }, options)


def _with_options(report: dict[str, Any], options: Mapping[str, Any] | None) -> dict[str, Any]:
    if options is not None:
        report["options"] = dict(options)
    return report


def _times(result: SimResult | ProgramResult) -> dict[str, Any]:
    """Where the time went besides the simulation (``wall_time_s``): the process's start-up
    and imports before the command began (None outside a command), importing numba and
    loading or compiling kernels (``jit_time_s``), of which compiling kernels not on disk
    (``compile_time_s``, with their names)."""
    from sam.command import entry

    return {"import_time_s": entry.IMPORT_SECONDS, "jit_time_s": result.jit_time,
            "compile_time_s": result.compile_time,
            "compiled_kernels": list(result.compiled_kernels)}


def _graph_report(
    result: SimResult,
    *,
    graph_path: str,
    expression: str | None,
    inputs: Mapping[str, Tensor],
    sources: Mapping[str, str],
    latencies: Mapping[str, int] | None,
    check: dict[str, Any] | None,
) -> dict[str, Any]:
    """The report of one graph's run (a program's phase)."""
    wall = result.wall_time
    report = {
        "version": REPORT_VERSION,
        "graph": graph_path,
        "expression": expression,
        "engine": result.engine,
        "fifo_depth": result.fifo_depth,
        "latencies": dict(latencies or {}),
        "interrupted": result.interrupted,
        "error": result.error,
        "cycles": result.cycles,
        "wall_time_s": wall,
        **_times(result),
        "tokens": result.tokens,
        "tokens_per_s": result.tokens / wall if wall > 0 else None,
        "inputs": {n: tensor_summary(t, sources.get(n)) for n, t in inputs.items()},
        "outputs": {n: tensor_summary(t) for n, t in result.outputs.items()},
        "check": check,
        "notes": list(result.notes),
        "blocks": [_block_entry(b, result.cycles) for b in result.blocks.values()],
        "streams": [
            {"src": s.src, "src_port": s.src_port, "dst": s.dst, "dst_port": s.dst_port,
             "kind": s.kind, "tokens": s.tokens}
            for s in result.streams
        ],
    }
    activity = getattr(result, "activity", None)  # the recorder's buckets, when it ran
    if activity is not None:
        report["activity"] = activity
    return report


def _block_entry(b: BlockStats, cycles: int) -> dict[str, Any]:
    """One block's statistics; a compound block also lists its direct ``parts`` (whose own
    entries follow it) and its fields are rolled up from them (see
    :class:`~sam.sim.engine.BlockStats`)."""
    entry: dict[str, Any] = {
        "id": b.id, "type": b.type, "label": b.label, "family": b.family,
        "tokens_in": b.tokens_in, "tokens_out": b.tokens_out,
        "busy": b.busy, "idle": b.idle, "stalled": b.stalled,
        "started": b.started, "finished": b.finished,
        "utilisation": b.utilisation(cycles),
    }
    if b.parts:
        entry["parts"] = list(b.parts)
    if b.details:
        entry["details"] = dict(b.details)
    return entry


def _read_json(path: str | Path) -> Any:
    from formats.text import read_text

    text = read_text(path, "report")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (json.JSONDecodeError, ValueError) as err:
        raise ToolkitError(f"{path}: not a JSON report ({err})") from None


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def read_report(path: str | Path) -> dict[str, Any]:
    """Read a whole JSON report (every phase of a program's), each graph's report checked as
    :func:`load_report` checks it: for ``sam-sim trace`` and ``sam-sim report``."""
    data = _read_json(path)
    if not isinstance(data, dict):
        raise ToolkitError(f"{path}: not a sam-sim report (write one with sam-sim run --report)")
    phases = data.get("phases")
    if isinstance(phases, list):
        if not phases:
            raise ToolkitError(f"{path}: not a valid sam-sim report: a program of no phases")
        for k in range(len(phases)):
            _checked(phases[k], path, f"phase {k + 1}: ")
        if not isinstance(data.get("cycles"), int):
            raise ToolkitError(f"{path}: not a valid sam-sim report: 'cycles' must be a count")
        return data
    return _checked(data, path)


def _checked(data: Any, path: str | Path, where: str = "") -> dict[str, Any]:
    if not isinstance(data, dict) or "blocks" not in data or "streams" not in data:
        raise ToolkitError(f"{path}: {where}not a sam-sim report (write one with sam-sim run "
                           "--report)")
    problem = _report_problem(data)
    if problem:
        raise ToolkitError(f"{path}: {where}not a valid sam-sim report: {problem}")
    return data


def load_report(path: str | Path, phase: int | None = None) -> dict[str, Any]:
    """Read a JSON report written by ``sam-sim run --json``; of a program's report, phase
    ``phase`` (1-based; needed when the program has several phases)."""
    data = _read_json(path)
    if isinstance(data, dict) and isinstance(data.get("phases"), list):
        data = _phase_of(data, path, phase)
    elif phase is not None and phase != 1:
        raise ToolkitError(f"{path}: the report is of one graph; there is no phase {phase}")
    return _checked(data, path)


def _phase_of(data: dict[str, Any], path: str | Path, phase: int | None) -> Any:
    phases = data["phases"]
    names = ", ".join(f"{k + 1} ({p.get('name')})" if isinstance(p, dict) else str(k + 1)
                      for k, p in enumerate(phases))
    if phase is None and len(phases) != 1:
        raise ToolkitError(f"{path}: a program report of {len(phases)} phases; choose one with "
                           f"--phase N (phases: {names})")
    k = 1 if phase is None else phase
    if not 1 <= k <= len(phases):
        raise ToolkitError(f"{path}: the program report has no phase {k} (phases: {names})")
    return phases[k - 1]


_BLOCK_FIELDS = {"id": str, "type": str, "label": str, "family": str, "tokens_in": dict,
                 "tokens_out": dict, "busy": int, "idle": int, "stalled": int, "started": int,
                 "finished": int}
_STREAM_FIELDS = {"src": str, "src_port": str, "dst": str, "dst_port": str, "kind": str,
                  "tokens": dict}


def _report_problem(data: Mapping[str, Any]) -> str | None:
    """The first field that ``sam-sim draw --stats`` and ``sam-sim plot`` cannot use."""
    def count(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0

    if not count(data.get("cycles")):
        return "'cycles' must be a count"
    for what, rows, fields in (("blocks", data["blocks"], _BLOCK_FIELDS),
                               ("streams", data["streams"], _STREAM_FIELDS)):
        if not isinstance(rows, list):
            return f"'{what}' must be a list"
        for k, row in enumerate(rows):
            if not isinstance(row, dict):
                return f"{what}[{k}] must be an object"
            for field, kind in fields.items():
                value = row.get(field)
                ok = count(value) if kind is int else isinstance(value, kind)
                if ok and kind is dict:
                    ok = all(count(value.get(t)) for t in KIND_NAMES)
                if not ok:
                    want = {int: "a count", str: "a string",
                            dict: "token counts by kind (" + ", ".join(KIND_NAMES) + ")"}[kind]
                    return f"{what}[{k}].{field} must be {want}"
    if "activity" in data:
        return _activity_problem(data["activity"], data["blocks"])
    return None


#: the most activity buckets a report may hold (the recorder folds into 1024)
MAX_BUCKETS = 1 << 16
_ACTIVITY_SERIES = ("busy", "idle", "stalled", "tokens")
_STREAM_KEYS = ("src", "src_port", "dst", "dst_port")


def _activity_problem(act: Any, blocks: Sequence[Mapping[str, Any]]) -> str | None:
    """What is wrong with the shape of a report's ``activity`` (optional; see
    :mod:`sam.trace`): bucket counts, and per block and recorded stream a series of
    non-negative numbers per bucket."""
    if not isinstance(act, dict):
        return "'activity' must be an object"
    for key in ("bucket_cycles", "buckets"):
        v = act.get(key)
        if not (isinstance(v, int) and not isinstance(v, bool) and v >= 1):
            return f"activity.{key} must be a positive count"
    n = act["buckets"]
    if n > MAX_BUCKETS:
        return f"activity.buckets is {n:,}; a report holds at most {MAX_BUCKETS:,}"
    res = act.get("resolution_cycles")
    if res is not None and not _series_ok([res], 1):
        return "activity.resolution_cycles must be a non-negative number"
    per_block = act.get("blocks")
    if not isinstance(per_block, dict):
        return "activity.blocks must be an object (block id -> series)"
    ids = {str(b["id"]) for b in blocks}
    for bid, entry in per_block.items():
        if bid not in ids:
            return f"activity.blocks[{bid!r}]: no such block in the report"
        if not isinstance(entry, dict):
            return f"activity.blocks[{bid!r}] must be an object"
        for series in _ACTIVITY_SERIES:
            if series in entry and not _series_ok(entry[series], n):
                return (f"activity.blocks[{bid!r}].{series} must be {n} non-negative numbers "
                        "(one per bucket)")
    streams = act.get("streams", [])
    if not isinstance(streams, list):
        return "activity.streams must be a list"
    for k, st in enumerate(streams):
        if not isinstance(st, dict) or not all(isinstance(st.get(f), str) for f in _STREAM_KEYS):
            return f"activity.streams[{k}] must name its src, src_port, dst and dst_port"
        if not _series_ok(st.get("occupancy"), n):
            return f"activity.streams[{k}].occupancy must be {n} non-negative numbers"
    return None


def _series_ok(values: Any, n: int) -> bool:
    """``values`` is a list of ``n`` finite non-negative numbers (not booleans)."""
    import numpy as np

    if not isinstance(values, list) or len(values) != n:
        return False
    arr = np.asarray(values) if values else np.zeros(0)
    if arr.dtype.kind not in "iuf" or arr.ndim != 1:
        return False
    if arr.dtype.kind == "i" and bool in set(map(type, values)):
        return False
    return bool(np.isfinite(arr).all() and (arr >= 0).all())


_LIST_OF_NUMBERS = re.compile(r"\[\n\s*(?:-?[0-9.eE+]+,\n\s*)*-?[0-9.eE+]+\n\s*\]")


def dumps_report(report: Mapping[str, Any]) -> str:
    """The report as JSON text, indented, lists of numbers (shapes, activity buckets) on one
    line each: an activity of 17 blocks x 4 x 1024 buckets stays a few hundred kB."""
    text = json.dumps(report, indent=1)
    return _LIST_OF_NUMBERS.sub(lambda m: "[" + "".join(m.group(0)[1:-1].split()) + "]", text)


def _fmt_count(n: int) -> str:
    return f"{n:,}"


def text_table(rows: Sequence[Sequence[str]], left: int = 1) -> list[str]:
    """Lines of a plain-text table: the first row is the header, underlined with dashes; the
    first ``left`` columns are left-aligned, the others right-aligned."""
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = []
    for k, row in enumerate(rows):
        cells = [v.ljust(widths[c]) if c < left else v.rjust(widths[c])
                 for c, v in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def format_text(report: Mapping[str, Any]) -> str:
    """The human-readable report: summary lines, then one table row per block; for a program,
    each phase's report under a heading, then the cycles per phase and in total."""
    if "phases" in report:
        return _format_program(report)
    lines = []
    for name, t in report["outputs"].items():
        shape = "x".join(map(str, t["shape"])) or "scalar"
        lines.append(f"result {name}: shape {shape}, {_fmt_count(t['nnz'])} nonzeros "
                     f"(format {t['format']})")
    rate = report["tokens_per_s"]
    lines.append(f"cycles: {_fmt_count(report['cycles'])}")
    lines.append(
        f"wall time: {report['wall_time_s']:.3f} s ({report['engine']} engine), "
        f"{_fmt_count(report['tokens'])} tokens"
        + (f", {rate / 1e6:.2f} M tokens/s" if rate else "")
    )
    if report.get("jit_time_s"):
        compiled = report.get("compiled_kernels") or []
        how = (f"compiling {len(compiled)} of them took {report['compile_time_s']:.2f} s"
               if compiled else "loaded from the disk cache")
        lines.append(f"JIT: {report['jit_time_s']:.2f} s to import numba and get the block "
                     f"kernels ({how}; not in the wall time)")
    if report.get("fifo_depth"):
        lines.append(f"FIFO depth: {report['fifo_depth']}")
    if report.get("interrupted"):
        lines.append("INTERRUPTED: statistics are partial")
    header = ["id", "block", *[f"in:{k}" for k in KIND_NAMES], *[f"out:{k}" for k in KIND_NAMES],
              "busy", "idle", "stalled", "util%"]
    rows = [header]
    depth: dict[str, int] = {}  # parts of compound blocks are indented under them
    for b in report["blocks"]:
        for part in b.get("parts") or []:
            depth[str(part)] = depth.get(str(b["id"]), 0) + 1
        rows.append([
            str(b["id"]), "  " * depth.get(str(b["id"]), 0) + str(b["label"]),
            *[_fmt_count(b["tokens_in"][k]) for k in KIND_NAMES],
            *[_fmt_count(b["tokens_out"][k]) for k in KIND_NAMES],
            _fmt_count(b["busy"]), _fmt_count(b["idle"]), _fmt_count(b["stalled"]),
            f"{100 * b['utilisation']:.1f}",
        ])
    lines.append("")
    lines += text_table(rows, left=2)
    for b in report["blocks"]:  # block-specific statistics (a TMU's TUs, queues, lanes)
        if b.get("details"):
            lines.append("")
            lines.append(f"node {b['id']} ({b['type']}): " + ", ".join(
                f"{k} {_fmt_count(v)}" for k, v in b["details"].items()))
    if report.get("check"):
        lines.append("")
        lines.append(report["check"]["line"])
    return "\n".join(lines)


def _format_program(report: Mapping[str, Any]) -> str:
    lines = []
    for p in report["phases"]:
        expr = f": {p['expression']}" if p.get("expression") else ""
        lines.append(f"=== phase {p['index']} ({p['name']}){expr}")
        lines.append(format_text(p))
        lines.append("")
    lines.append(f"program {report['graph']}: {len(report['phases'])} phases, run one after "
                 "another")
    rows = [["phase", "graph", "cycles"]]
    rows += [[str(p["index"]), str(p["name"]), _fmt_count(p["cycles"])] for p in report["phases"]]
    rows.append(["total", "", _fmt_count(report["cycles"])])
    lines += text_table(rows, left=2)
    for name, t in report["outputs"].items():
        shape = "x".join(map(str, t["shape"])) or "scalar"
        lines.append(f"result {name}: shape {shape}, {_fmt_count(t['nnz'])} nonzeros "
                     f"(format {t['format']})")
    rate = report["tokens_per_s"]
    lines.append(
        f"wall time: {report['wall_time_s']:.3f} s ({report['engine']} engine), "
        f"{_fmt_count(report['tokens'])} tokens"
        + (f", {rate / 1e6:.2f} M tokens/s" if rate else "")
    )
    if report.get("interrupted"):
        lines.append("INTERRUPTED: statistics are partial")
    if report.get("check"):
        lines.append(report["check"]["line"])
    return "\n".join(lines)
