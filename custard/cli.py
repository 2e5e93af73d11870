"""The ``custard`` command line: compile tensor index notation to SAM dataflow graphs (DOT).

Takes the original TACO/Custard spellings (``-f=B:ss:1,0``, ``-s=reorder(k,i,j)``), so the
command lines of the standard kernel suite (``dot_graphs/kernel-suite.tsv``) run unchanged:
:func:`graph_from_command_line` is the one parsing path used by the command and by
``scripts/compile_suite.py``.

``custard compile ... --run -t B=west0479 -t C=B --check`` also simulates the compiled graph,
as ``sam-sim run`` does (:func:`sam.cli.run_graphs`), and prints its report instead of the DOT
text (which goes to ``-o FILE`` when given). A compilation that needs temporaries (``precompute``)
is a program of graphs, written as one DOT file of several digraphs and run phase by phase.
What the compiler accepted but did not carry out (schedule commands with no dataflow meaning,
TACO's ``-prefix``) is printed on stderr as ``custard: notice: ...`` lines.

Every user error prints one line ``custard: error: ...`` on stderr and exits 1; usage errors
(unknown option, missing argument) exit 2 as argparse does; with ``--run``, a wrong result under
``--check`` exits 3 and Ctrl-C 130 (partial statistics), as in ``sam-sim``; a bug in the toolkit
exits 4.
"""

from __future__ import annotations

import argparse
import importlib.util
import shlex
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from formats.format import Format
from sam.cli import TENSOR_SPECS, add_run_options, run_graphs
from sam.command.entry import Parser, UsageError
from sam.command.files import write_text
from sam.errors import CompileError

_SYNTAX = """\
expression (tensor index notation, quote it for the shell):
  X(i,j)=B(i,k)*C(k,j)        the result on the left; index variables missing from it are
                              summed (here k); operators + - * / and parentheses; a scalar is a
                              bare name: x=B(i,j,k)*C(i,j,k), x(i)=a*B(j,i)*c(j)+b*d(i);
                              constants: y(i)=B(i,j)*x(j)+1.5e-3; the result on the right is
                              its old value: y(i)=A(i,j)*x(j)+y(i); a division iterates like
                              a product (the quotient exists where both operands do)

formats (-f / --format, one per tensor, repeatable):
  -f=NAME:LEVELS[:MODEORDER]  one letter per level, s = compressed, d = dense (uncompressed),
                              u = compressed non-unique, q = singleton, c = singleton
                              non-unique (COO: uq, ucq);
                              MODEORDER lists the stored modes outermost first:
                              -f=B:ss (DCSR), -f=B:ds (CSR), -f=B:ss:1,0 (DCSC, column-major)
  default: every level compressed, stored in mode order (ss, sss, ...)

schedule (-s / --schedule, repeatable; TACO's scheduling commands, applied in order):
  -s=reorder(k,i,j)           the loop (dataflow) order; a partial list reorders only the
                              listed variables among themselves; also -s kij, -s k,i,j
  -s=fuse(i,j,f)  -s=pos(i,ip,B)    compiled as the nested (coordinate) iteration they equal
  -s=split(i,i0,i1,32)  -s=divide(i,i0,i1,4)   tiling included: i is iterated whole (the
                              result is the same) and the splits recorded (split=...), a notice
  -s=parallelize(i,CPUThread,NoRaces)  recorded in the graph (parallelize=...), a notice
  -s=parallelize(i,4[,range])  SAM lanes (Sec. 4.4): the sub-graph below i over 4 lanes
  -s=precompute(B(i,k)*C(k,j),j,j[,ws])  ws computed first by a graph of its own (a program)
  -s=bound(...) -s=unroll(...) -s=assemble(...) -s=mergeby(...)  ignored, with a notice
  -s=locate(c)  -s=coiterate(c)   iterate-locate (Sec. 4.2): locate c into the leader's
                              coordinates (a compressed level by search) / never locate c;
                              default: operands stored dense where intersected are located;
                              -s=coiterate() or --no-locate: every intersection coiterates
  -s=skip(B,c)  --skip        coordinate skipping (Sec. 4.2): the intersecters of B and c (or,
                              --skip, all) send their compressed scanners skips (back edges
                              type="crd" comment="skip-B")
  default: order of first appearance (result first), adjusted so that every tensor is read
           in its mode order (custard.api.default_order); with the default formats
           X(i,j)=B(i,k)*C(k,j) loops i,k,j. A tensor stored against the loop order is
           stored in loop order by the graph (sam-sim re-stores it; a result is converted
           back), with a notice

sizes (-d / --dims, repeatable): -d=j:100 or --dims j=100 (an index variable), -d=A:10,20 (a
  tensor's modes): the size of a result index that no operand has (A(i,j)=b(i) repeats b
  along j; TACO's default is 42)
"""

_EXAMPLES = """\
examples:
  custard compile "X(i,j)=B(i,k)*C(k,j)" -f=X:ss -f=B:ss:1,0 -f=C:ss -s="reorder(k,i,j)" \\
      -o matmul.dot
  custard compile "x(i)=B(i,j)*c(j)" --draw spmv.svg --counts > spmv.dot
  custard compile "x(i)=B(i,j)*c(j)" --run -t B=west0479 -t c=random:0.1 --check
  custard counts "X(i,j)=B(i,j)*C(i,k)*D(j,k)" -s="reorder(i,j,k)"
  custard table1
"""


def _add_compile_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("expression", nargs="+", metavar="EXPRESSION",
                   help='tensor index notation, e.g. "X(i,j)=B(i,k)*C(k,j)" (several words '
                   "are joined with spaces)")
    p.add_argument("-f", "--format", action="append", default=[], metavar="NAME:LEVELS[:ORDER]",
                   help="format of one tensor, e.g. -f=B:ss:1,0 (repeatable; default: all "
                   "levels compressed, in mode order)")
    p.add_argument("--bv-width", type=int, metavar="N",
                   help="word width of the bitvector levels written b without a width: "
                   "-f=x:b --bv-width 16 is -f=x:b16 (default 64; b4 keeps its 4; "
                   "docs/bitvectors.md)")
    p.add_argument("-s", "--schedule", action="append", default=[], metavar="COMMANDS",
                   help="TACO scheduling commands, e.g. -s=reorder(k,i,j) or -s kij "
                   "(repeatable; default loop order: first appearance, adjusted to the formats)")
    p.add_argument("--skip", action="store_true",
                   help="coordinate skipping (SAM Sec. 4.2): every intersecter sends its "
                   "compressed scanners skip streams (feedback edges; same as -s=skip())")
    p.add_argument("-d", "--dims", action="append", default=[], metavar="VAR:SIZE",
                   help="size of an index variable (-d=j:100, --dims j=100) or of a tensor's "
                   "modes (-d=A:10,20), for result indices that no operand has")
    p.add_argument("--no-locate", action="store_true",
                   help="no automatic iterate-locate into dense levels: coiterate every "
                   "intersection (as -s=coiterate())")
    p.add_argument("--nonempty-dims", action="store_true",
                   help="assume every dimension has size >= 1, as the original Custard does: "
                   "no coordinate dropper guards a dense level and a sum over one is a plain "
                   "reducer (sam-sim refuses operands with a dimension of size 0)")
    p.add_argument("-prefix", "--prefix", metavar="NAME",
                   help="TACO's prefix for generated C function names: accepted and ignored")
    p.add_argument("--split-mode", choices=("stored", "online"),
                   help="carry out -s=split(i,i0,i1,S) (SAM Sec. 4.1): stored = operands "
                   "reformatted pre-split by phases of their own, online = split blocks in the "
                   "graph; needs -d=i:N (docs/bitvectors.md)")
    p.add_argument("--shared", action="append", default=[], metavar="A,B",
                   help="operands that share raggedness (one scanner drives them; "
                   "docs/ragged.md; repeatable)")


#: Subcommands that need no Ember parser (start-up time, docs/performance.md).
CORE_COMMANDS = ("compile", "counts", "table1", "tile")


def build_parser(ember: bool = True) -> argparse.ArgumentParser:
    parser = Parser(
        prog="custard",
        description="Compile tensor index notation, with tensor formats and a loop order, to a "
        "SAM dataflow graph in the Custard DOT schema.",
        epilog=_SYNTAX + "\n" + _EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser(
        "compile", help="compile an expression to a SAM graph (DOT), optionally simulate it",
        description="Compile an expression to a SAM graph and write it as DOT (to stdout "
        "without -o).", epilog=_SYNTAX + "\n" + TENSOR_SPECS + "\n" + _EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_compile_options(p)
    p.add_argument("-o", "--output", dest="output_dot", metavar="FILE",
                   help="write the DOT graph to FILE (default: stdout; '-' is stdout)")
    p.add_argument("--draw", metavar="FILE.svg|FILE.png",
                   help="also render the graph as a picture; the suffix picks the format "
                   "(svg, png, pdf)")
    p.add_argument("--counts", action="store_true",
                   help="also print the SAM paper Table 1 primitive counts (to stdout with -o, "
                   "else to stderr, after the DOT)")
    p.add_argument("--name", help="graph name in the DOT file (default: SAM, as Custard writes)")
    run = p.add_argument_group(
        "simulating (--run)", "With --run, simulate the compiled graph as `sam-sim run` does "
        "and print its report instead of the DOT text (which then goes only to -o FILE). Exit "
        "status 3 when --check finds a wrong result, 130 when interrupted.")
    run.add_argument("--run", action="store_true",
                     help="simulate the graph on the tensors bound with -t")
    add_run_options(run, output=("--result",), output_metavar="FILE", expr=False)
    p.set_defaults(func=_cmd_compile, compile_parser=p)

    p = sub.add_parser(
        "counts", help="print an expression's SAM primitive counts (a Table 1 row)",
        description="Compile an expression and print its SAM primitive counts in the layout "
        "of the SAM paper's Table 1.", epilog=_SYNTAX,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_compile_options(p)
    p.add_argument("--by-type", action="store_true",
                   help="also print the count of every DOT node type")
    p.set_defaults(func=_cmd_counts)

    p = sub.add_parser(
        "table1", help="print the SAM paper's Table 1 with our counts",
        description="Compile the twelve expressions of the SAM paper's Table 1 and print our "
        "primitive counts next to the paper's; exits 1 when any differs.",
    )
    p.set_defaults(func=_cmd_table1)

    if ember:  # xDSL takes about 1 s to import: only for `custard ember` (or no command)
        from custard.ember.cli import add_parser as add_ember_parser

        add_ember_parser(sub)

    from custard.tile_cli import register as register_tile

    register_tile(sub)

    from custard.dag.cli import register as register_dag

    register_dag(sub)

    from custard.mlir.cli import register as register_mlir

    register_mlir(sub)
    return parser


# ---------------------------------------------------------------------------- compiling
def formats_from_options(options: Sequence[str], bv_width: int | None = None
                         ) -> dict[str, Format]:
    """``["B:ss:1,0", "-f=C:ss"]`` -> formats by tensor name (a bitvector level ``b`` of word
    width ``bv_width``, default 64); a tensor given twice is an error."""
    from custard.parser import parse_format_option

    out: dict[str, Format] = {}
    given: dict[str, str] = {}
    for text in options:
        name, fmt = parse_format_option(text, bv_width)
        if name in out:
            raise CompileError(
                f"format of {name} given twice (-f={given[name]} and -f={text}); give one"
            )
        out[name] = fmt
        given[name] = text
    return out


def dims_from_options(options: Sequence[str], expression: str) -> dict[str, int]:
    """``["j:100", "A:10,20", "k=5"]`` -> index variable sizes (a tensor's sizes go to its
    index variables in ``expression``)."""
    from sam.notation.parse import parse_expression

    out: dict[str, int] = {}
    tensors: dict[str, tuple[str, ...]] | None = None
    for text in options:
        spec = text[3:] if text.startswith("-d=") else text
        name, sep, sizes = spec.replace("=", ":", 1).partition(":")
        name = name.strip()
        try:
            values = [int(x) for x in sizes.split(",")]
        except ValueError:
            values = []
        if not sep or not name or not values or min(values) < 1:
            raise CompileError(f"dimension {text!r}: write VAR:SIZE or TENSOR:SIZE,SIZE,... with "
                               "positive sizes, e.g. -d=j:100 or -d=A:10,20")
        if tensors is None:
            assign = parse_expression(expression)
            tensors = {a.name: a.indices for a in [assign.lhs, *assign.rhs.accesses()]}
        if name in tensors:
            if len(values) != len(tensors[name]):
                raise CompileError(f"dimension {text!r}: {name} has {len(tensors[name])} "
                                   f"mode(s), {len(values)} size(s) given")
            pairs = list(zip(tensors[name], values, strict=True))
        elif len(values) == 1:
            pairs = [(name, values[0])]
        else:
            raise CompileError(f"dimension {text!r}: {name} is not a tensor of the expression, "
                               "and an index variable takes one size")
        for var, size in pairs:
            if out.setdefault(var, size) != size:
                raise CompileError(f"dimension {text!r}: {var} is given sizes {out[var]} and "
                                   f"{size}")
    return out


def result_from_args(args: argparse.Namespace):
    """Compile the expression, formats, schedule and sizes of parsed ``compile``/``counts``
    arguments: a graph, or a program of graphs (:func:`custard.compile`)."""
    from custard.api import compile as compile_expr

    expression = " ".join(args.expression)
    formats = formats_from_options(args.format, getattr(args, "bv_width", None))
    dims = dims_from_options(args.dims, expression) if args.dims else None
    if getattr(args, "split_mode", None):  # split(i,i0,i1,s) stored or online (Sec. 4.1)
        from custard.splitting import compile_with_split_mode

        return compile_with_split_mode(expression, formats, list(args.schedule), dims,
                                       args.split_mode)
    skip = ["skip()"] if getattr(args, "skip", False) else []
    result = compile_expr(expression, formats, schedule=list(args.schedule) + skip, dims=dims,
                          name=getattr(args, "name", None),
                          shared=getattr(args, "shared", None) or None,
                          locate=not getattr(args, "no_locate", False),
                          nonempty_dims=getattr(args, "nonempty_dims", False))
    if args.prefix is not None:
        from custard.api import graphs_of

        graphs_of(result)[-1].notices.append(
            f"-prefix={args.prefix} ignored: it names TACO's generated C functions")
    return result


def graph_from_command_line(line: str | Sequence[str]):
    """Compile a Custard command line without the program name, as in kernel-suite.tsv:
    ``X(i,j)=B(i,k)*C(k,j) -f=X:ss -f=B:ss:1,0 -f=C:ss -s=reorder(k,i,j)``: a graph, or a
    program of graphs.

    Raises :class:`CompileError` for a bad expression, format or schedule and for a malformed
    command line (an unbalanced quote included)."""
    if isinstance(line, str):
        try:
            words = shlex.split(line)
        except ValueError as err:  # shlex: "No closing quotation", "No escaped character"
            raise CompileError(f"command line {line.strip()!r}: {err} (unbalanced quote)"
                               ) from None
    else:
        words = list(line)
    parser = build_parser()
    try:
        args = parser.parse_args(["compile", *words])
    except UsageError as err:
        raise CompileError(f"command line {' '.join(words)!r}: {err}") from None
    return result_from_args(args)


def print_notices(result) -> None:
    """Every notice of a compilation, one ``custard: notice: ...`` line each, on stderr."""
    from custard.api import notices_of

    for notice in notices_of(result):
        print(f"custard: notice: {' '.join(notice.split())}", file=sys.stderr)


# ---------------------------------------------------------------------------- commands
#: what ``custard compile -o`` writes: DOT text
DOT_SUFFIXES = (".gv", ".dot")


def _picture_format(path: str) -> str:
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in ("svg", "png", "pdf"):
        raise CompileError(
            f"--draw {path}: the file name must end in .svg, .png or .pdf (the picture format)"
        )
    return suffix


def draw(graph, path: str) -> None:
    """Render ``graph`` as a picture at ``path`` (format from the suffix): with
    ``sam.graph.draw.render`` when that module exists, else with graphviz ``dot``."""
    suffix = _picture_format(path)
    if importlib.util.find_spec("sam.graph.draw") is not None:
        from sam.graph.draw import render  # type: ignore[import-not-found]

        try:
            render(graph, path)
        except OSError as err:
            raise CompileError(f"cannot write picture {path}: {err.strerror or err}") from None
        return
    from sam.graph.dot import dumps

    exe = shutil.which("dot")
    if exe is None:
        raise CompileError("--draw needs graphviz's `dot` program, which is not on the PATH "
                           "(install graphviz, e.g. apt-get install graphviz)")
    try:
        proc = subprocess.run([exe, f"-T{suffix}", "-o", path], input=dumps(graph).encode(),
                              capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise CompileError(f"graphviz dot failed to draw {path}: {err}") from None
    if proc.returncode != 0:
        msg = proc.stderr.decode(errors="replace").strip().splitlines()
        detail = msg[0] if msg else f"exit status {proc.returncode}"
        raise CompileError(f"graphviz dot could not draw {path}: {detail}")


#: ``compile`` options that only mean something with ``--run`` (dest -> option).
_RUN_ONLY = {"tensor": "-t", "check": "--check", "json": "--json", "report": "--report",
             "engine": "--engine", "fifo_depth": "--fifo-depth", "latency": "--latency",
             "seed": "--seed", "no_progress": "--no-progress", "output": "--result"}


def _check_run_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Simulation options without ``--run`` are a usage error (they would do nothing)."""
    if args.run:
        if args.output_dot == "-":
            raise UsageError(parser, "-o - (the DOT text on stdout) cannot be combined with "
                             "--run, which prints the report there; give -o FILE")
        return
    given = [opt for dest, opt in _RUN_ONLY.items()
             if getattr(args, dest, None) != parser.get_default(dest)]
    if given:
        raise UsageError(parser, f"{', '.join(given)}: simulation options, they need --run "
                         "(simulate the compiled graph)")


def _cmd_compile(args: argparse.Namespace) -> int:
    from custard.api import graphs_of
    from custard.counts import format_table, row
    from sam.graph.dot import dumps_all

    _check_run_options(args.compile_parser, args)
    if args.draw:
        _picture_format(args.draw)
    from sam.bind import parse_bindings
    from sam.command.outputs import check_outputs, input_files

    check_outputs({"-o": args.output_dot, "--draw": args.draw,
                   "--result": getattr(args, "output", None),
                   "--report": getattr(args, "report", None)},
                  input_files(parse_bindings(getattr(args, "tensor", None) or [])),
                  {"-o": DOT_SUFFIXES, "--report": (".json",)})
    result = result_from_args(args)
    print_notices(result)
    graphs = graphs_of(result)
    text = dumps_all(graphs)
    # with --run, stdout carries the simulation report: the DOT text goes only to -o FILE
    to_stdout = args.output_dot in (None, "-") and not args.run
    if to_stdout:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    elif args.output_dot not in (None, "-"):
        write_text(args.output_dot, text)
    if args.draw:
        if len(graphs) == 1:
            draw(graphs[0], args.draw)
        else:  # one picture per graph of the program: plan-1.svg, plan-2.svg, ...
            path = Path(args.draw)
            for k, graph in enumerate(graphs, 1):
                draw(graph, str(path.with_name(f"{path.stem}-{k}{path.suffix}")))
    if args.counts:
        label = " ".join(args.expression)
        rows = [(label if len(graphs) == 1 else f"{label} [{k}: {g.contract.expression}]",
                 row(g)) for k, g in enumerate(graphs, 1)]
        print(format_table(rows), file=sys.stderr if to_stdout or args.run else sys.stdout)
    if args.run:
        where = args.output_dot if args.output_dot not in (None, "-") else "the compiled graph"
        return run_graphs(graphs, args, graph_path=where, prog="custard")
    return 0


def _cmd_counts(args: argparse.Namespace) -> int:
    from custard.api import graphs_of
    from custard.counts import format_table, row

    result = result_from_args(args)
    print_notices(result)
    graphs = graphs_of(result)
    label = " ".join(args.expression)
    print(format_table([(label if len(graphs) == 1 else
                         f"{label} [{k}: {g.contract.expression}]", row(g))
                        for k, g in enumerate(graphs, 1)]))
    for graph in graphs:
        print(f"loop order: {','.join(graph.contract.order)}")
        if args.by_type:
            counts = graph.count()
            width = max(map(len, counts), default=0)
            for dot_type in sorted(counts):
                print(f"  {dot_type.ljust(width)}  {counts[dot_type]}")
    return 0


def _cmd_table1(args: argparse.Namespace) -> int:
    from custard.counts import table1_report

    text, mismatches = table1_report()
    print(text)
    if mismatches:
        print(f"custard: error: {len(mismatches)} row(s) differ from the SAM paper's Table 1",
              file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    from sam.command.entry import run_main

    words = sys.argv[1:] if argv is None else argv
    command = next((a for a in words if not a.startswith("-")), None)
    return run_main("custard", lambda: build_parser(ember=command not in CORE_COMMANDS), argv,
                    debug_env="CUSTARD_DEBUG")


if __name__ == "__main__":
    sys.exit(main())
