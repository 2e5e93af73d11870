"""The ``sam-sim`` command line: run, draw and plot SAM graphs, inspect tensors.

Exit codes: 0 success, 1 user error (one line on stderr), 2 command-line usage error,
3 ``--check`` found a wrong result, 4 internal error (a bug; one line, ``SAM_SIM_DEBUG=1`` shows
the traceback), 130 interrupted (Ctrl-C; partial statistics are printed).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from formats.errors import ToolkitError

if TYPE_CHECKING:
    from formats.format import Format
    from formats.tensor import Tensor
    from sam.check import Gold
    from sam.graph.model import Graph
    from sam.program import Program

EXIT_ERROR, EXIT_USAGE, EXIT_CHECK_FAILED, EXIT_INTERNAL, EXIT_INTERRUPTED = 1, 2, 3, 4, 130
#: what `sam-sim draw -o` writes: pictures, or the Graphviz text of the picture (.gv/.dot)
PICTURE_FORMATS = ("svg", "png", "pdf", "gv", "dot")
#: what `sam-sim report -o` and `--html` write
HTML_SUFFIXES = (".html", ".htm")
MAX_COUNT = 2**31 - 1  # the largest --latency and --fifo-depth (the simulator counts in int64)

TENSOR_SPECS = """\
tensor specs (-t NAME=SPEC):
  FILE.mtx | FILE.tns | FILE.npy | FILE.npz   a file (by extension)
  west0479 | splatt-small | ...               a shipped data file (see `sam-sim data`)
  2.5                                         a scalar
  random:DENSITY[:SEED[:SHAPE]]               uniform random, e.g. random:0.1:7 or
                                              random:0.05:1:100x200 (shape from the graph
                                              and the other operands when omitted)
  runs:LEN[:NNZ[:SEED[:SIZE]]]                SAM paper Sec. 6.3 vector pairs: the first tensor
  blocks:LEN[:NNZ[:SEED[:SIZE]]]              bound to a spec gets b, the second c
the original SAM artifact's generators (its exact data for a seed; see README):
  orig-random:SPARSITY[:SEED[:SHAPE]]         each element zero with probability SPARSITY,
                                              else 0..254 (Fig. 12: B=orig-random:0.95:0:
                                              250x100, C=orig-random:0.95:1:100x250)
  orig-runs:LEN[:NNZ[:SEED[:SIZE]]]           its runs / blocks vector pairs (NNZ 400, SIZE
  orig-blocks:LEN[:NNZ[:SEED[:SIZE]]]         2000 by default); first tensor b, second c
  B | B^T | transpose(B)                      another bound tensor, or its transpose
"""

RUN_EPILOG = TENSOR_SPECS + """
examples:
  sam-sim run dot_graphs/matmul_ikj.gv -t B=bcsstm02 -t C=B^T --check
  sam-sim run dot_graphs/mat_vecmul_ij.gv -t B=west0479 -t c=random:0.5 --json > report.json
  sam-sim run graph.gv -t B=lp_scsd1 -t C=B^T --fifo-depth 4 --latency arrayvals=2

exit status: 0 ok, 1 error (one line on stderr), 2 usage, 3 --check found a wrong result,
  4 internal error, 130 interrupted (Ctrl-C; the statistics printed are partial)
"""


def _cmd_tensor(args: argparse.Namespace) -> int:
    from formats.io import load_tensor

    kw = {}
    if args.zero_based:
        kw["zero_based"] = True
    if args.shape:
        try:
            kw["shape"] = tuple(int(x) for x in args.shape.lower().split("x"))
        except ValueError:
            raise ToolkitError(f"--shape {args.shape!r}: write the size of every mode, e.g. "
                               "10x20x30") from None
    fmt = _format_option(args.format, args.bv_width)
    if args.source.startswith("random:"):
        from sam.bind import synthetic_tensor

        tensor = synthetic_tensor(args.source)
        tensor = tensor.with_format(fmt) if fmt is not None else tensor
    else:
        tensor = load_tensor(args.source, fmt, **kw)
    print(tensor.describe())
    return 0


def _format_option(text: str | None, bv_width: int | None = None) -> Format | None:
    """``-f ss:1,0``, or Custard's spelling with the tensor's name, ``-f=B:ss:1,0``: the format
    (a bitvector level ``b`` of word width ``bv_width``, ``--bv-width``; default 64)."""
    if text is None:
        return None
    from formats.errors import FormatError
    from formats.format import Format

    try:
        return Format.parse(text, bv_width=bv_width)
    except FormatError:
        name, sep, rest = text.partition(":")
        if sep and name.isidentifier():
            try:
                return Format.parse(rest, bv_width=bv_width)
            except FormatError:
                pass
        raise


def _cmd_warm(args: argparse.Namespace) -> int:
    from sam.graph.dot import load_all
    from sam.runtime.jitcache import root, where
    from sam.sim import warm

    most = 4 * warm.jobs_default()
    if args.jobs is not None and not 1 <= args.jobs <= most:
        raise ToolkitError(f"-j {args.jobs}: give between 1 and {most} processes (4 per CPU; "
                           "each compiles one kernel at a time)")
    if not args.graphs and not args.all:
        raise ToolkitError("name the graphs whose kernels to compile (sam-sim warm G.gv ...), "
                           "or give --all for every kernel")
    names: list[str] = warm.all_kernels() if args.all else []
    for path in args.graphs:
        for graph in load_all(path):
            names += warm.graph_kernels(graph)
    names = list(dict.fromkeys(names))
    todo = warm.missing(names)
    prog = "sam-sim warm"
    if not todo:
        print(f"{prog}: all {len(names)} kernels are compiled already (in {root()})")
        if args.prune:
            _prune(names)
        return 0
    jobs = min(args.jobs or warm.jobs_default(), len(todo))
    print(f"{prog}: compiling {len(todo)} of {len(names)} kernels with numba in {jobs} "
          f"process{'es' * (jobs > 1)} ({where()})", file=sys.stderr, flush=True)
    start = time.perf_counter()
    done = warm.compile_kernels(todo, jobs=jobs, progress=warm.say_progress(prog))
    for item in sorted(done, key=lambda d: -d.seconds):
        print(f"  {item.seconds:6.2f} s  {item.name}")
    print(f"compiled {len(done)} kernels in {time.perf_counter() - start:.1f} s; "
          f"{len(names) - len(todo)} were compiled already")
    if args.prune:
        _prune(names)
    return 0


def _prune(names: Sequence[str]) -> None:
    """Delete cached code of older versions of kernels ``names`` and earlier caches' folders."""
    import shutil

    from sam.runtime.jitcache import legacy_dirs
    from sam.sim import warm

    stale = [p for name in names for p in warm.stale_files(name)]
    for path in stale:
        path.unlink(missing_ok=True)
    old = legacy_dirs()
    for folder in old:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"removed {len(stale)} files of older versions of these kernels and {len(old)} "
          "folders of earlier caches")


def _cmd_data(args: argparse.Namespace) -> int:
    from formats import data
    from formats.io import load_tensor
    from sam.report import text_table

    if args.names:
        for name in data.names():
            print(name)
        return 0
    rows = [["name", "kind", "shape", "nonzeros", "file"]]
    for name in data.names():
        file = data.path(name)
        t = load_tensor(name)
        rows.append([name, file.parent.name, "x".join(map(str, t.shape)), f"{t.nnz:,}",
                     f"{file.stat().st_size / 1024:,.0f} KiB"])
    print("\n".join(text_table(rows, left=3)))
    print("\nUse a name wherever a file goes: sam-sim run G.gv -t B=west0479; sources: "
          f"{data.ROOT / 'README.md'}")
    return 0


def _latencies(items: Sequence[str]) -> dict[str, int]:
    from sam.graph.compound import CompoundBlock
    from sam.graph.registry import BLOCK_TYPES

    out: dict[str, int] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not value.strip().lstrip("-").isdigit():
            raise ToolkitError(f"--latency {item!r}: write TYPE=CYCLES, e.g. arrayvals=2 "
                               "(TYPE is a DOT node type, or 'default')")
        key = key.strip()
        primitives = sorted(t for t, cls in BLOCK_TYPES.items()
                            if not issubclass(cls, CompoundBlock))
        if key != "default" and key not in BLOCK_TYPES:
            raise ToolkitError(f"--latency {item!r}: unknown block type {key!r}; use a DOT node "
                               f"type ({', '.join(primitives)}) or 'default'")
        if key in BLOCK_TYPES and key not in primitives:
            raise ToolkitError(f"--latency {item!r}: {key} is a compound block; give the "
                               "latencies of the block types it is made of")
        if key in out:
            raise ToolkitError(f"--latency {item!r}: the latency of {key} is already given "
                               f"({key}={out[key]}); give each block type once")
        out[key] = int(value)
        if not 1 <= out[key] <= MAX_COUNT:
            raise ToolkitError(f"--latency {item!r}: a latency is 1 to {MAX_COUNT} cycles")
    return out


def add_run_options(p: argparse.ArgumentParser, *, output: Sequence[str] = ("-o", "--output"),
                    output_metavar: str | None = None, expr: bool = True) -> None:
    """The simulation options of ``sam-sim run`` (also ``custard compile --run``): ``output``
    spells the option that writes the result, ``expr`` adds ``--expr``."""
    p.add_argument("-t", "--tensor", action="append", metavar="NAME=SPEC",
                   help="bind an input tensor (repeat for each input; specs below)")
    p.add_argument("--check", action="store_true",
                   help="compute the expression with numpy/scipy and print PASS or FAIL")
    if expr:
        p.add_argument("--expr", help="the graph's expression, for --check when the graph does "
                       "not record it (e.g. 'x(i)=B(i,j)*c(j)')")
    p.add_argument(*output, dest="output", metavar=output_metavar or output[-1].lstrip("-").upper(),
                   help="write the result (.mtx, .tns, .npz, .npy)")
    p.set_defaults(output_option=output[0])
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--report", metavar="FILE", help="also save the JSON report to FILE (for "
                   "`sam-sim draw --stats` and `sam-sim plot`)")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast",
                   help="fast: block kernels compiled with numba (default); reference: the "
                   "same kernels in plain Python")
    p.add_argument("--fifo-depth", type=int, metavar="N",
                   help="bound every FIFO to N tokens (default: unbounded, as in the paper)")
    p.add_argument("--latency", action="append", metavar="TYPE=CYCLES",
                   help="latency of a block type, e.g. arrayvals=2 (default 1 for all)")
    p.add_argument("--timing", choices=("sam", "original"), default="sam",
                   help="timing model: sam (ours, default) or original (the original SAM "
                   "simulator's costs where ours differ; docs/timing-model.md)")
    p.add_argument("--width", type=int, metavar="N",
                   help="stream width: scanners, arrays, ALUs, repeaters and writers move up to "
                   "N tokens per cycle (graph attribute width; docs/timing-model.md, rule 13)")
    p.add_argument("--seed", type=int, default=0, help="seed for random specs without one")
    p.add_argument("--trace-events", metavar="FILE.json",
                   help="also write a Chrome Trace Event file of every block's activity, for "
                   "ui.perfetto.dev or chrome://tracing (1 us = 1 cycle; also `sam-sim trace`)")
    p.add_argument("--trace-stream", action="append", metavar="SRC[:PORT]",
                   help="with --report/--trace-events/--html: record the FIFO occupancy of "
                   "the streams out of block SRC (port PORT); repeatable (default: the inputs "
                   "of merges, reducers and writers, at most 8)")
    p.add_argument("--html", metavar="FILE.html",
                   help="also write the run as one self-contained HTML page (graph, streams, "
                   "timeline; also `sam-sim report`)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def run_graphs(graphs: Graph | Sequence[Graph], args: argparse.Namespace, *, graph_path: str,
               prog: str = "sam-sim") -> int:
    """Simulate a graph, or a program of several run one after another (:mod:`sam.program`; a
    graph is a program of one phase), with the options of :func:`add_run_options` in ``args``
    and print the report; return the exit status (0, :data:`EXIT_CHECK_FAILED`,
    :data:`EXIT_INTERRUPTED`).

    ``--check`` checks every phase against its recorded expression (a single graph's may be
    given with ``--expr``), on the tensors it read; ``-o`` writes the program's result.
    ``graph_path`` names the graph in messages and the report; ``prog`` starts the line printed
    when the run is interrupted. User errors raise :class:`ToolkitError`."""
    from sam.bind import parse_bindings
    from sam.program import Program, bind_program
    from sam.report import build_report
    from sam.sim.widths import set_width

    program = Program.of(graphs)
    graphs = [p.graph for p in program.phases]
    one = len(graphs) == 1
    graph = graphs[0]
    _check_run_args(args)
    if not one and getattr(args, "expr", None):
        raise ToolkitError(f"--expr gives one graph's expression; {graph_path} holds a program "
                           f"of {len(graphs)} graphs, whose phases record their expressions")
    set_width(graphs, getattr(args, "width", None))
    specs = parse_bindings(args.tensor or [])
    _check_no_clobber(args, graph_path, specs)
    latencies = _latencies(args.latency or [])
    expression = getattr(args, "expr", None) or graph.contract.expression
    formats = {t: p.graph.formats[t] for p in program.phases for t in p.writes()
               if t in p.graph.formats}
    _check_output_target(args, program.results(), formats)
    if args.check and one and not expression:
        raise ToolkitError(
            f"{graph_path} does not record its expression; give it with --expr, e.g. "
            "--expr \"x(i)=B(i,j)*c(j)\""
        )
    if args.check and one and not program.results():
        raise ToolkitError("the graph writes no output tensor to check")
    if args.check and not one:
        for k, phase in enumerate(program.phases):
            if not phase.graph.contract.expression:
                raise ToolkitError(f"{program.describe(k)} of {graph_path} does not record its "
                                   "expression; --check needs every phase's")
    resolved = dict(specs)  # each input's full spec (the seed a random one used, its shape)
    tensors = bind_program(program, specs, seed=args.seed, resolved=resolved)
    _check_results_fit(args, graphs, tensors)
    # Whether a graph's result can be checked is decided before simulating, never after; a
    # later phase's inputs exist only once the phases before it ran.
    gold = gold_for_check(expression, tensors, prog, graph) if args.check and one else None

    with _ProgressBar(args) as bar, _keep_partial(args, program, graph_path, expression,
                                                   tensors, resolved, latencies):
        result = program.run(tensors, engine=args.engine, fifo_depth=args.fifo_depth,
                             latencies=latencies, progress=bar.callback,
                             timing=getattr(args, "timing", "sam"),
                             **_recording(args))
        bar.interrupted = result.interrupted

    checks: list[dict | None] = []
    if args.check and not result.interrupted:
        for k, (phase, res) in enumerate(zip(program.phases, result.phases, strict=True)):
            if not res.outputs:
                raise ToolkitError("the graph writes no output tensor to check" if one else
                                   f"{program.describe(k)} writes no output tensor to check")
            if not one:
                gold = gold_for_check(phase.graph.contract.expression, result.inputs[k], prog,
                                      phase.graph)
            checks.append(check_verdict(gold, next(iter(res.outputs.values()))))
    report = build_report(result, program, graph_path=graph_path, expression=expression,
                          inputs=tensors, sources=resolved, latencies=latencies, checks=checks,
                          options=_options(args, latencies))
    report["seed"] = args.seed
    return _finish(args, report, result.outputs, result.interrupted, prog)


def _recording(args: argparse.Namespace) -> dict[str, Any]:
    """Record each block's activity over time (:mod:`sam.sim.activity`) for a run whose report
    is saved, traced or shown as a page, with the FIFO occupancy of the ``--trace-stream``
    streams (default: the inputs of merges, reducers and writers, at most 8)."""
    if any(getattr(args, k, None) for k in ("report", "trace_events", "html")):
        return {"activity": True, "streams": getattr(args, "trace_stream", None) or "auto"}
    return {}


def _options(args: argparse.Namespace, latencies: Mapping[str, int]) -> dict[str, Any]:
    """How the run was made, as the report records it (``options``)."""
    return {"engine": args.engine, "fifo_depth": args.fifo_depth,
            "latencies": dict(latencies), "timing": getattr(args, "timing", "sam"),
            "width": getattr(args, "width", None), "seed": args.seed,
            "check": bool(args.check)}


def _check_run_args(args: argparse.Namespace) -> None:
    if args.fifo_depth is not None and not 1 <= args.fifo_depth <= MAX_COUNT:
        raise ToolkitError(f"--fifo-depth {args.fifo_depth}: a FIFO holds 1 to {MAX_COUNT} "
                           "tokens (leave it out for unbounded FIFOs)")
    if args.seed < 0:
        raise ToolkitError(f"--seed {args.seed}: a seed is a non-negative integer")


def _check_output_target(args: argparse.Namespace, written: Sequence[str],
                         formats: Mapping[str, Format]) -> None:
    """Refuse an output file the result cannot go to, before a long simulation."""
    output = getattr(args, "output", None)
    if not output:
        return
    from formats.io import SUFFIXES
    from sam.command.outputs import check_result_order

    output_option = getattr(args, "output_option", "-o")
    suffix = Path(output).suffix.lower()
    if suffix not in SUFFIXES:
        raise ToolkitError(f"{output_option} {output}: unknown file type "
                           f"{suffix or '(no extension)'!r}; use {', '.join(SUFFIXES)}")
    written = sorted(written)
    fmt = formats.get(written[0]) if len(written) == 1 else None
    if fmt is not None:
        check_result_order(output_option, output, written[0], fmt.order)


def _check_results_fit(args: argparse.Namespace, graphs: Sequence[Graph],
                       tensors: Mapping[str, Tensor]) -> None:
    """Results whose dense levels, or dense ``-o X.npy`` file, cannot fit in memory: refused
    before simulating (:func:`sam.command.outputs.check_result_fits`)."""
    from sam.command.outputs import check_result_fits
    from sam.graph.validate import output_tensors
    from sam.sim.assemble import expected_shape

    output = getattr(args, "output", None)
    last = graphs[-1]
    for graph in graphs:
        converted = graph.contract.output_formats
        for name in output_tensors(graph):
            shape = expected_shape(graph, name, tensors)
            if shape is None:
                continue
            fmts = [graph.formats[name], *([converted[name]] if name in converted else [])]
            check_result_fits(name, shape, fmts, output if graph is last else None,
                              getattr(args, "output_option", "-o"))


class _ProgressBar:
    """A tqdm bar of tokens simulated, on a terminal only (``callback`` is None otherwise)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.bar = None
        self.callback: Callable[[int], None] | None = None
        #: set when the run was interrupted: the bar's line is then cleared on exit
        self.interrupted = False
        if not args.no_progress and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = bar = tqdm(total=None, unit="tok", unit_scale=True, delay=2.0,
                                  leave=False, desc="simulating", file=sys.stderr)

            def progress(tokens: int) -> None:
                bar.update(tokens - bar.n)

            self.callback = progress

    def __enter__(self) -> _ProgressBar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is None:
            return
        self.bar.close()
        if self.interrupted:
            # Ctrl-C can land while tqdm draws the bar, before it notes that it drew it; then
            # close() leaves the bar on the line. Clear the line ourselves.
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


@contextlib.contextmanager
def _keep_partial(args: argparse.Namespace, program: Program, graph_path: str,
                  expression: str | None, tensors: Mapping[str, Tensor],
                  specs: Mapping[str, str], latencies: Mapping[str, int]) -> Iterator[None]:
    """A simulation that stops with an error (a deadlock, a malformed stream) still writes
    ``--report`` with the statistics of the run so far and its ``error``."""
    from sam.errors import SimulationError
    from sam.report import build_report

    try:
        yield
    except SimulationError as err:
        if args.report and err.partial is not None:
            report = build_report(err.partial, program, graph_path=graph_path,
                                  expression=expression, inputs=tensors, sources=specs,
                                  latencies=latencies)
            report["seed"] = args.seed
            _save_report(args.report, report)
            err.args = (f"{err} (the statistics so far are in {args.report})",)
        raise


def _save_report(path: str, report: dict) -> None:
    from sam.command.files import write_text
    from sam.report import dumps_report

    write_text(path, dumps_report(report))


def _save_trace(path: str, report: dict, max_events: int | None = None) -> str:
    """Write ``report``'s trace (:mod:`sam.trace`); the line that says so."""
    from sam.trace import MAX_EVENTS, write_trace

    done = write_trace(report, path, max_events or MAX_EVENTS)
    how = (" (coarse: the report has no activity buckets)" if done.coarse else
           f" (buckets merged {done.merge} to 1 to stay under {max_events or MAX_EVENTS:,} "
           "events)" if done.merge > 1 else "")
    return f"wrote {path}: {done.events:,} trace events, {done.bytes / 1e6:.2f} MB{how}"


def _need_html_writer(path: str) -> None:
    """Refuse, before any work, a page this build cannot write (no :mod:`sam.html`)."""
    import importlib.util

    if importlib.util.find_spec("sam.html") is None:
        raise ToolkitError(f"{path}: this build has no HTML writer (sam/html.py); write the "
                           "trace with --trace-events, or the report with --report")


def _save_html(path: str, report: dict) -> None:
    """Write ``report`` as one HTML page (:mod:`sam.html`, imported only here)."""
    _need_html_writer(path)
    from sam.html import write_html

    write_html(report, path)


def _check_no_clobber(args: argparse.Namespace, graph_path: str, specs: Mapping[str, str]
                      ) -> None:
    """Outputs that would overwrite an input or each other, or cannot be written: refused
    before anything runs (:mod:`sam.command.outputs`)."""
    from sam.command.outputs import check_outputs, input_files

    check_outputs({getattr(args, "output_option", "-o"): getattr(args, "output", None),
                   "--report": args.report,
                   "--trace-events": getattr(args, "trace_events", None),
                   "--html": getattr(args, "html", None)},
                  [graph_path, *input_files(specs)],
                  {"--report": (".json",), "--trace-events": (".json",),
                   "--html": HTML_SUFFIXES})
    if getattr(args, "html", None):
        _need_html_writer(args.html)


def gold_for_check(expression: str, tensors: Mapping[str, Tensor], prog: str, graph: Graph
                   ) -> Gold:
    """The gold result of ``--check`` (``sam-sim run``, ``custard compile --run``, ``custard
    tile``), or the reason it cannot be had (said on stderr now, before the run); the graph
    gives the sizes of result index variables no operand has."""
    from sam.check import CheckError, ExpressionMismatch, expected
    from sam.graph.implicit import index_sizes

    # unary post-ops spliced by Custard (custard.splice: attributes unary, fused_unary) are
    # functions index notation cannot state: the expression alone is not the result
    unary = ",".join(op for key in ("unary", "fused_unary")
                     for op in graph.attrs.get(key, "").replace(";", ",").split(",") if op)
    if unary:
        reason = f"the graph applies unary ALUs ({unary}) that its expression does not state"
        print(f"{prog}: check skipped: {reason}", file=sys.stderr)
        return Skipped(reason)
    try:
        return expected(expression, tensors, index_sizes(graph))
    except ExpressionMismatch:
        raise
    except CheckError as err:
        reason = " ".join(str(err).split())
        print(f"{prog}: check skipped: {reason}", file=sys.stderr)
        return Skipped(reason)


class Skipped(str):
    """A gold result that could not be computed: the reason."""


def check_verdict(gold: Gold, result: Tensor) -> dict:
    """``--check``: the result against the gold one, as the report records it."""
    from sam.check import compare

    if isinstance(gold, Skipped):
        return {"skipped": str(gold), "line": f"check skipped: {gold}"}
    verdict = compare(result, gold)
    return {"passed": verdict.passed, "max_abs_diff": verdict.max_abs_diff,
            "max_abs_value": verdict.max_abs_value, "line": verdict.line()}


def _finish(args: argparse.Namespace, report: dict, outputs: Mapping[str, Tensor],
            interrupted: bool, prog: str) -> int:
    """Write the result and the report, print the report; the exit status."""
    from sam.report import format_text

    output = getattr(args, "output", None)
    output_option = getattr(args, "output_option", "-o")
    if output and not interrupted:
        from formats.io import save_tensor

        if len(outputs) != 1:
            raise ToolkitError(f"{output_option} writes one result; there are {len(outputs)} "
                               f"({', '.join(outputs) or 'none'})")
        save_tensor(next(iter(outputs.values())), output)
    if args.report:
        _save_report(args.report, report)
    written = []
    if getattr(args, "trace_events", None):
        written.append(_save_trace(args.trace_events, report))
    if getattr(args, "html", None):
        _save_html(args.html, report)
        written.append(f"wrote {args.html}")
    if args.json:
        from sam.report import dumps_report

        print(dumps_report(report))
    else:
        print(format_text(report))
    for line in written:
        print(line, file=sys.stderr)
    if interrupted:
        print(f"{prog}: interrupted; the statistics above are partial", file=sys.stderr)
        return EXIT_INTERRUPTED
    check = report.get("check")
    return EXIT_CHECK_FAILED if check and check.get("passed") is False else 0


def _cmd_run(args: argparse.Namespace) -> int:
    from sam.graph.dot import load_all

    return run_graphs(load_all(args.graph), args, graph_path=str(args.graph))


def _check_stats_fit(graph: Graph, report: dict, report_path: str, graph_path: str) -> None:
    """A report of another graph would label the edges with unrelated counts: refuse it."""
    from sam.graph.expand import expand

    blocks = report.get("blocks") or []
    got = {str(b.get("id")): b.get("type") for b in blocks if isinstance(b, dict)}
    want = expand(graph).block_types()
    if got == want:
        return
    where = f" (a report of {report['graph']})" if isinstance(report.get("graph"), str) else ""
    diff = sorted(set(got) ^ set(want)) or sorted(k for k in want if got[k] != want[k])
    node = diff[0]
    detail = (f"node {node} is {got[node]!r} in the report and {want[node]!r} in the graph"
              if node in got and node in want else
              f"node {node} is only in the {'report' if node in got else 'graph'}")
    raise ToolkitError(f"--stats {report_path}{where} does not fit {graph_path}: {detail}")


def _cmd_draw(args: argparse.Namespace) -> int:
    from sam.command.outputs import check_outputs
    from sam.graph.dot import load_all
    from sam.graph.draw import render
    from sam.report import load_report

    suffix = Path(args.output).suffix.lower().lstrip(".")
    if suffix not in PICTURE_FORMATS:
        raise ToolkitError(f"-o {args.output}: unknown picture format {suffix!r}; draw writes "
                           + ", ".join(f".{f}" for f in PICTURE_FORMATS))
    check_outputs({"-o": args.output}, [args.graph, *([args.stats] if args.stats else [])])
    graphs = load_all(args.graph)
    if args.phase is None and len(graphs) > 1:
        names = ", ".join(f"{k + 1} ({g.name})" for k, g in enumerate(graphs))
        raise ToolkitError(f"{args.graph} holds a program of {len(graphs)} graphs; choose one "
                           f"with --phase N (phases: {names})")
    k = 1 if args.phase is None else args.phase
    if not 1 <= k <= len(graphs):
        raise ToolkitError(f"--phase {k}: {args.graph} holds {len(graphs)} graph(s)")
    graph = graphs[k - 1]
    stats = load_report(args.stats, args.phase) if args.stats else None
    if stats is not None:
        _check_stats_fit(graph, stats, args.stats, args.graph)
    render(graph, args.output, stats=stats, expand_compounds=args.expand)
    print(f"wrote {args.output}")
    return 0


def _cmd_plot(args: argparse.Namespace) -> int:
    from sam.command.outputs import check_outputs
    from sam.plot import plot_report
    from sam.report import load_report

    check_outputs({"-o": args.output, "--timeline": args.timeline}, [args.report])
    report = load_report(args.report, args.phase)
    written = plot_report(report, args.output, streams=args.stream, timeline=args.timeline)
    for path in written:
        print(f"wrote {path}")
    return 0


def _cmd_trace(args: argparse.Namespace) -> int:
    from sam.command.outputs import check_outputs
    from sam.report import read_report
    from sam.trace import EVENTS_RANGE

    lo, hi = EVENTS_RANGE
    if args.max_events is not None and not lo <= args.max_events <= hi:
        raise ToolkitError(f"--max-events {args.max_events}: give {lo:,} to {hi:,} events")
    check_outputs({"-o": args.output}, [args.report], {"-o": (".json",)})
    report = read_report(args.report)
    print(_save_trace(args.output, report, args.max_events))
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from sam.command.outputs import check_outputs
    from sam.report import read_report

    check_outputs({"-o": args.output}, [args.report], {"-o": HTML_SUFFIXES})
    report = read_report(args.report)  # a bad report is named first: reading it is quick
    _save_html(args.output, report)
    print(f"wrote {args.output}")
    return 0




#: Entry-point group of ``sam-sim`` subcommands that live in packages above ``sam`` (which
#: never imports them): each entry is a function that adds its subparser.
PLUGIN_GROUP = "sam_sim.commands"


def _plugins() -> list[Callable[[Any], None]]:
    from importlib.metadata import entry_points

    return [ep.load() for ep in sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: e.name)]


#: Subcommands defined in sam itself: running one of them loads no plugin (start-up time).
BUILTIN_COMMANDS = ("run", "draw", "plot", "trace", "report", "tmu", "tensor", "data", "warm")


def build_parser(plugins: bool = True) -> argparse.ArgumentParser:
    from sam.command.entry import Parser
    from sam.tmu_cli import add_tmu_command

    parser = Parser(
        prog="sam-sim",
        description="Simulate SAM dataflow graphs (Custard DOT files) on real and synthetic "
        "tensors, token by token, counting cycles.",
        epilog="Run `sam-sim COMMAND --help` for each command (`sam-sim run --help` lists the "
        "tensor specs of -t NAME=SPEC). Exit codes: 0 ok, 1 error, 2 usage, 3 --check failed, "
        "4 internal error, 130 interrupted.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser(
        "run", help="simulate a graph and report cycles, tokens and per-block statistics",
        description="Bind the graph's input tensors, simulate it, and print the result's shape "
        "and nonzeros, the cycle count, wall time, tokens per second and a per-block table. A "
        "program (a file of several digraphs) runs its graphs one after another, each reading "
        "the tensors earlier ones wrote; it prints every phase's report, the cycles per phase "
        "and the total.",
        epilog=RUN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("graph", help="SAM graph in the Custard DOT schema (.gv/.dot), or a program: "
                   "several digraphs in one file, run one after another")
    add_run_options(p)
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("draw", help="draw a graph (SVG/PNG), optionally with token counts",
                       description="Draw a SAM graph: blocks coloured by family, stream kinds "
                       "by line style; with --stats, edges show their token counts.")
    p.add_argument("graph", help="SAM graph (.gv/.dot)")
    p.add_argument("-o", "--output", required=True,
                   help="picture to write (.svg, .png or .pdf; .gv/.dot for the Graphviz text "
                   "of the picture)")
    p.add_argument("--stats", metavar="REPORT.json", help="report from `sam-sim run --report`")
    p.add_argument("--expand", action="store_true",
                   help="draw each compound block as a cluster of its parts (default: one node)")
    p.add_argument("--phase", type=int, metavar="N",
                   help="of a program (several graphs in one file), draw graph N (1-based)")
    p.set_defaults(func=_cmd_draw)

    p = sub.add_parser("plot", help="plot token breakdowns and block activity from a report",
                       description="Plot, from a JSON report, the token-type breakdown (data, "
                       "stop, empty, done, idle) of streams as in SAM paper Figure 14, and a "
                       "per-block activity timeline.")
    p.add_argument("report", help="REPORT.json from `sam-sim run --report`")
    p.add_argument("-o", "--output", required=True, help="picture to write (.png or .svg)")
    p.add_argument("--stream", action="append", metavar="SRC[:PORT]",
                   help="stream(s) to show, by producing node id (default: every scanner's "
                   "coordinate output)")
    p.add_argument("--phase", type=int, metavar="N",
                   help="of a program's report, plot phase N (1-based)")
    p.add_argument("--timeline", metavar="FILE",
                   help="also write the activity timeline to FILE (default: beside -o)")
    p.set_defaults(func=_cmd_plot)

    p = sub.add_parser("trace", help="write a report's block activity as a Perfetto trace",
                       description="Write, from a JSON report, a Chrome Trace Event file that "
                       "ui.perfetto.dev and chrome://tracing open: a track per block with its "
                       "busy and stalled spans, utilisation and FIFO occupancy counters, a "
                       "process per program phase; 1 us on the time axis is 1 simulated cycle. "
                       "A report without activity buckets gives one span per block.")
    p.add_argument("report", help="REPORT.json from `sam-sim run --report`")
    p.add_argument("-o", "--output", required=True, metavar="TRACE.json",
                   help="trace file to write (.json)")
    p.add_argument("--max-events", type=int, metavar="N",
                   help="at most N events (default 150,000, about 10-15 MB): neighbouring "
                   "time buckets are merged until the trace fits")
    p.set_defaults(func=_cmd_trace)

    p = sub.add_parser("report", help="write a report as one self-contained HTML page",
                       description="Write, from a JSON report, one HTML file that works offline: "
                       "the graph with per-block and per-edge statistics, the stream breakdown, "
                       "a zoomable timeline of block activity, the run's inputs and options.")
    p.add_argument("report", help="REPORT.json from `sam-sim run --report`")
    p.add_argument("-o", "--output", required=True, metavar="RUN.html",
                   help="page to write (.html)")
    p.set_defaults(func=_cmd_report)

    for plugin in _plugins() if plugins else ():  # subcommands of packages above sam
        plugin(sub)
    add_tmu_command(sub)  # sam/tmu_cli.py: Ember's Table 1 operations on a TMU


    p = sub.add_parser("tensor", help="load a tensor and print its fibertree level arrays",
                       description="Load a tensor (a .mtx/.tns/.npy file, or the name of a "
                       "shipped matrix such as west0479) in a chosen format and print its level "
                       "arrays and a summary.")
    p.add_argument("source", help="file path, shipped data name (see `sam-sim data`) or "
                   "random:DENSITY[:SEED]:SHAPE")
    p.add_argument("-f", "--format", default=None,
                   help="level formats and mode order, e.g. ss01 (DCSR, default), ds (CSR), "
                   "ss:1,0 (DCSC), db16 (rows as 16-bit bitvector words)")
    p.add_argument("--bv-width", type=int, metavar="N",
                   help="word width of bitvector levels written b without a width: -f b "
                   "--bv-width 16 is -f b16 (default 64)")
    p.add_argument("--zero-based", action="store_true", help=".tns file with 0-based indices")
    p.add_argument("--shape", help="shape of a .tns tensor, e.g. 10x20x30")
    p.set_defaults(func=_cmd_tensor)

    p = sub.add_parser("warm", help="compile the fast engine's kernels ahead of time",
                       description="Compile the block kernels a graph uses (or all of them) "
                       "with numba, in parallel processes, into the disk cache "
                       "($SAM_CACHE_DIR/kernels, default ~/.cache/sam-toolkit/kernels). Each "
                       "kernel is keyed on its own code and the helpers it calls: after an "
                       "edit only the kernels whose code changed compile again. Runs compile "
                       "what they need by themselves; this only does it ahead.")
    p.add_argument("graphs", nargs="*", metavar="GRAPH", help="SAM graphs (.gv/.dot) or "
                   "programs whose kernels to compile")
    p.add_argument("--all", action="store_true", help="every kernel of the simulator")
    p.add_argument("-j", "--jobs", type=int, metavar="N",
                   help="worker processes (default: one per CPU)")
    p.add_argument("--prune", action="store_true",
                   help="also delete the cached code of older versions of these kernels")
    p.set_defaults(func=_cmd_warm)

    p = sub.add_parser("data", help="list the shipped matrices and tensors",
                       description="List the shipped SuiteSparse matrices and FROSTT tensors "
                       "with their shapes and stored nonzeros.")
    p.add_argument("--names", action="store_true", help="print the names only, one per line")
    p.set_defaults(func=_cmd_data)
    return parser


def main(argv: list[str] | None = None) -> int:
    from sam.command.entry import run_main

    words = sys.argv[1:] if argv is None else argv
    command = next((a for a in words if not a.startswith("-")), None)
    return run_main("sam-sim", lambda: build_parser(plugins=command not in BUILTIN_COMMANDS),
                    argv, debug_env="SAM_SIM_DEBUG")


if __name__ == "__main__":
    sys.exit(main())
