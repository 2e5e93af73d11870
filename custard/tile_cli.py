"""``custard tile``: run a kernel tile by tile (:mod:`custard.tiling`), optionally on Dask, check
the result and cost it on a memory hierarchy (:mod:`sam.memory_model`).

Everything the options decide is checked before any simulation (:mod:`sam.command`): the
output file, ``--buffers``, the memory configuration, the tile and split sizes (against the
memory their tiles and tile tuples need), and whether the result can be checked (the gold
result follows the nonzeros, :func:`sam.check.expected`; when it cannot be had, ``check
skipped: why`` is said before the run, as ``sam-sim run --check`` does).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from custard.tiling import TiledResult
    from formats.tensor import Tensor
    from sam.check import Gold
    from sam.memory_model import Hierarchy

EPILOG = """examples:
  custard tile "X(i,j)=B(i,k)*C(k,j)" -f=X:ss -f=B:ss -f=C:ss -s="reorder(i,k,j)" --tile 128 \\
      -t B=west0479 -t C=west0479 --memory extensor
  custard tile "y(i)=B(i,j)*x(j)" -s="split(i,i0,i1,64)" -t B=pushpull -t x=random:0.5 --parallel

exit status: 0 ok, 1 error (one line on stderr), 2 usage, 3 the result check failed
"""

#: What ``-o`` writes: sparse files (a dense .npy of a large result would not fit).
OUTPUT_SUFFIXES = (".mtx", ".tns", ".npz")


def register(sub: Any) -> None:
    """Add ``tile`` to custard's subcommands."""
    p = sub.add_parser("tile", help="run an expression tile by tile (split / --tile), with a "
                       "memory hierarchy model", epilog=EPILOG,
                       description="Tile the operands, find the tile tuples that meet with a "
                       "SAM tile-sequencing graph, simulate the per-tile graph on each, check "
                       "the result and print the cycles (docs/tiling.md).",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("expression", metavar="EXPRESSION")
    p.add_argument("-f", "--format", action="append", default=[], metavar="NAME:LEVELS[:ORDER]")
    p.add_argument("-s", "--schedule", action="append", default=[], metavar="COMMANDS",
                   help="reorder(...) and split(i,i0,i1,SIZE) commands")
    p.add_argument("--tile", type=int, metavar="SIZE", help="split every index variable by SIZE")
    p.add_argument("-t", "--tensor", action="append", default=[], metavar="NAME=SPEC",
                   help="operand binding, as sam-sim run -t")
    p.add_argument("-o", "--output", metavar="RESULT",
                   help=f"write the result tensor ({', '.join(OUTPUT_SUFFIXES)})")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast")
    p.add_argument("--no-check", action="store_true",
                   help="do not check the result against the untiled value")
    p.add_argument("--memory", metavar="extensor|FILE",
                   help="cost the run on a memory hierarchy (YAML/TOML; 'extensor' = the "
                   "paper's Sec. 6.4 configuration)")
    p.add_argument("--no-skip", action="store_true", help="no sparse tile skipping")
    p.add_argument("--buffers", type=int, default=2, metavar="N",
                   help="n-buffering depth (1: none; 0: as many tile groups as fit each level)")
    p.add_argument("--parallel", action="store_true",
                   help="simulate the tiles on a local Dask cluster")
    p.add_argument("--scheduler", metavar="ADDRESS", help="an existing Dask scheduler")
    p.set_defaults(func=_cmd_tile, memory_hint="give a larger --tile (fewer tiles and tile "
                   "tuples), --no-check, or smaller inputs")


def _cmd_tile(args: argparse.Namespace) -> int:
    from custard.api import compile as compile_expr
    from custard.api import graphs_of
    from custard.tiling import check_tiling, memory_steps, tile_sizes
    from sam.bind import bind_tensors, parse_bindings
    from sam.cli import gold_for_check
    from sam.command.bounds import check_size
    from sam.command.entry import EXIT_CHECK_FAILED
    from sam.command.outputs import check_result_order
    from sam.errors import CompileError
    from sam.memory_model import run_memory
    from sam.notation.parse import parse_expression

    # 1. what the options decide, before any compile, bind or simulation
    specs = parse_bindings(args.tensor)
    _check_output(args, specs)
    check_size("--buffers", args.buffers, low=0)
    hier = _hierarchy(args.memory) if args.memory else None
    assign = parse_expression(args.expression)
    variables = list(dict.fromkeys(v for a in [assign.lhs, *assign.rhs.accesses()]
                                   for v in a.indices))
    sizes, _ = tile_sizes(args.schedule, args.tile, variables)
    fmts: dict[str, str] = {}
    for item in args.format:
        name, _, spec = item.removeprefix("-f=").partition(":")
        if not name or not spec:
            raise CompileError(f"-f {item}: write NAME:LEVELS[:ORDER], e.g. -f=B:ss:1,0")
        fmts[name] = spec

    # 2. the operands, then what the tiles need and whether the result can be checked
    graph = graphs_of(compile_expr(args.expression, fmts))[0]
    tensors = bind_tensors(graph, specs)
    check_result_order("-o", args.output, assign.lhs.name, len(assign.lhs.indices),
                       ".tns")
    if sizes:
        option, value = _size_option(args, sizes, variables)
        check_tiling(args.expression, tensors, sizes, option, value,
                     memory_levels=len(hier.levels) if hier else 0, dense=args.no_skip)
    gold = None if args.no_check else gold_for_check(args.expression, tensors, "custard",
                                                      graph)

    # 3. the tiled run
    res = _run(args, tensors, fmts)
    for note in res.notices:
        print(f"custard: notice: {note}", file=sys.stderr)
    out = res.outputs[assign.lhs.name]
    print(f"tiles: {res.sizes or 'none'}; {len(res.runs)} tile tuples meet; "
          f"sequencing {res.sequence_cycles:,} cycles, compute {res.compute_cycles:,} cycles")
    status = 0
    if gold is not None:
        line, passed = _verdict(gold, out)
        said = "not checked" if passed is None else str(passed)
        print(f"result {assign.lhs.name}: {out.nnz:,} entries; equals the untiled value: "
              f"{said} ({line})")
        status = 0 if passed is not False else EXIT_CHECK_FAILED
    else:
        print(f"result {assign.lhs.name}: {out.nnz:,} entries")
    if args.output:
        from formats.io import save_tensor

        save_tensor(out, args.output)
    if hier is not None:
        steps = memory_steps(args.expression, tensors, res, hier, dense=args.no_skip)
        rep = run_memory(hier, steps, skip_empty=not args.no_skip, buffers=args.buffers or None)
        print(rep.table())
    return status


def _check_output(args: argparse.Namespace, specs: Mapping[str, str]) -> None:
    """``-o``: not an input (a tensor file, the memory configuration), a writable place, a
    sparse file type (:func:`sam.command.outputs.check_outputs`)."""
    from sam.command.outputs import check_outputs, input_files

    memory = [args.memory] if args.memory and args.memory != "extensor" else []
    check_outputs({"-o": args.output}, [*input_files(specs), *memory],
                  {"-o": OUTPUT_SUFFIXES})


def _hierarchy(memory: str) -> Hierarchy:
    """``--memory``: the shipped configuration or a file, read and checked."""
    from sam.memory_model import extensor, load_hierarchy

    return extensor() if memory == "extensor" else load_hierarchy(memory)


def _size_option(args: argparse.Namespace, sizes: Mapping[str, int], variables: list[str]
                 ) -> tuple[str, int]:
    """The option that set the smallest tile size (for the bound's message)."""
    from custard.schedule import schedule_option

    smallest = min(sizes.values())
    if args.tile is not None and args.tile == smallest:
        return "--tile", args.tile
    for text in args.schedule:
        for d in schedule_option(text, variables):
            if d.name == "split" and len(d.args) == 4 and sizes.get(d.args[0]) == smallest:
                return f"split({','.join(d.args)})", smallest
    return "--tile", smallest


def _verdict(gold: Gold, result: Tensor) -> tuple[str, bool | None]:
    """The check's line and whether it passed (None: skipped)."""
    from sam.cli import check_verdict

    verdict = check_verdict(gold, result)
    return verdict["line"], verdict.get("passed")


def _run(args: argparse.Namespace, tensors: Mapping[str, Tensor], fmts: Mapping[str, str]
         ) -> TiledResult:
    """The tiled run, on Dask with ``--parallel`` / ``--scheduler``."""
    from custard.sweeps.sweep import Sweeper
    from custard.tiling import run_tiled

    sweeper = (Sweeper(None, args.scheduler, progress=False, prog="custard tile")
               if args.parallel or args.scheduler else None)
    try:
        return run_tiled(args.expression, tensors, fmts, schedule=args.schedule,
                         tile=args.tile, engine=args.engine, sweeper=sweeper)
    finally:
        if sweeper is not None:
            sweeper.close()
