"""``custard tile``: run a kernel tile by tile (:mod:`custard.tiling`), optionally on Dask, and
cost it on a memory hierarchy (:mod:`sam.memory_model`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

EPILOG = """examples:
  custard tile "X(i,j)=B(i,k)*C(k,j)" -f=X:ss -f=B:ss -f=C:ss -s=reorder(i,k,j) --tile 128 \\
      -t B=west0479 -t C=west0479 --memory extensor
  custard tile "y(i)=B(i,j)*x(j)" -s="split(i,i0,i1,64)" -t B=pushpull -t x=random --parallel
"""


def register(sub: Any) -> None:
    """Add ``tile`` to custard's subcommands."""
    p = sub.add_parser("tile", help="run an expression tile by tile (split / --tile), with a "
                       "memory hierarchy model", epilog=EPILOG,
                       description="Tile the operands, find the tile tuples that meet with a "
                       "SAM tile-sequencing graph, simulate the per-tile graph on each, and "
                       "print the result check and the cycles (docs/tiling.md).",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("expression", metavar="EXPRESSION")
    p.add_argument("-f", "--format", action="append", default=[], metavar="NAME:LEVELS[:ORDER]")
    p.add_argument("-s", "--schedule", action="append", default=[], metavar="COMMANDS",
                   help="reorder(...) and split(i,i0,i1,SIZE) commands")
    p.add_argument("--tile", type=int, metavar="SIZE", help="split every index variable by SIZE")
    p.add_argument("-t", "--tensor", action="append", default=[], metavar="NAME=SPEC",
                   help="operand binding, as sam-sim run -t")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast")
    p.add_argument("--memory", metavar="extensor|FILE",
                   help="cost the run on a memory hierarchy (YAML/TOML; 'extensor' = the "
                   "paper's Sec. 6.4 configuration)")
    p.add_argument("--no-skip", action="store_true", help="no sparse tile skipping")
    p.add_argument("--buffers", type=int, default=2,
                   help="n-buffering depth (1: none; 0: as many tile groups as fit each level)")
    p.add_argument("--parallel", action="store_true",
                   help="simulate the tiles on a local Dask cluster")
    p.add_argument("--scheduler", metavar="ADDRESS", help="an existing Dask scheduler")
    p.set_defaults(func=_cmd_tile)


def _cmd_tile(args: argparse.Namespace) -> int:
    import numpy as np

    from custard.api import compile as compile_expr
    from custard.api import graphs_of
    from custard.reproduce.sweep import Sweeper
    from custard.tiling import memory_steps, run_tiled
    from sam.bind import bind_tensors, parse_bindings
    from sam.errors import CompileError
    from sam.memory_model import extensor, load_hierarchy, run_memory
    from sam.notation.parse import parse_expression
    from sam.notation.reference import evaluate

    fmts: dict[str, str] = {}
    for item in args.format:
        name, _, spec = item.removeprefix("-f=").partition(":")
        if not name or not spec:
            raise CompileError(f"-f {item}: write NAME:LEVELS[:ORDER], e.g. -f=B:ss:1,0")
        fmts[name] = spec
    graphs = graphs_of(compile_expr(args.expression, fmts))
    tensors = bind_tensors(graphs[0], parse_bindings(args.tensor))
    sweeper = (Sweeper(None, args.scheduler, progress=False)
               if args.parallel or args.scheduler else None)
    try:
        res = run_tiled(args.expression, tensors, fmts, schedule=args.schedule, tile=args.tile,
                        engine=args.engine, sweeper=sweeper)
    finally:
        if sweeper is not None:
            sweeper.close()
    for note in res.notices:
        print(f"custard: notice: {note}", file=sys.stderr)
    assign = parse_expression(args.expression)
    out = res.outputs[assign.lhs.name]
    print(f"tiles: {res.sizes or 'none'}; {len(res.runs)} tile tuples meet; "
          f"sequencing {res.sequence_cycles:,} cycles, compute {res.compute_cycles:,} cycles")
    if all(t.nnz < 2_000_000 and np.prod(t.shape or (1,)) < 50_000_000
           for t in tensors.values()):
        want = evaluate(assign, {n: t.to_dense() for n, t in tensors.items()})
        ok = bool(np.allclose(out.to_dense(), want))
        print(f"result {assign.lhs.name}: {out.nnz:,} entries; equals the untiled value: {ok}")
    if args.memory:
        hier = extensor() if args.memory == "extensor" else load_hierarchy(args.memory)
        steps = memory_steps(args.expression, tensors, res, hier, dense=args.no_skip)
        rep = run_memory(hier, steps, skip_empty=not args.no_skip, buffers=args.buffers or None)
        print(rep.table())
    return 0
