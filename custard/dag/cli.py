"""``custard dag FILE``: a program of statements as a labelled DAG, a SAM program with the
pipelineable edges fused, its intensity and DRAM traffic, and (``--run``) its simulation.

Prints the DAG (each node's dominance and loop order, each edge's GOGETA label), the units
the program compiles to (fused chains named), arithmetic intensity per operation and for the
program (Table 1's two columns), and DRAM words per SRAM size op-by-op / SEQ-Overflow / with
reuse / ideal (:mod:`custard.dag.traffic`). ``-o FILE`` writes the DAG as DOT (``.dot``/``.gv``)
or a picture (``.svg``, ``.png``, ``.pdf``, with graphviz); ``--graphs FILE`` writes the SAM
program (one digraph per graph). ``--run`` simulates the units on the ``-t`` tensors (repeated
``--iterations`` times, each iteration reading the tensors the last one wrote) and prints
cycles and modelled DRAM words per operation.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any

from sam.errors import CompileError

_EPILOG = """program file (custard/dag/program.py):
  S(i,n) = A(i,k)*P(k,n)   -f=A:ds -s=reorder(i,k,n)   a statement, its formats and loop order
  X(i,n) += P(i,j)*L(j,n)                              an update (also -=)
  E(i,j) = S(i,j)   -u=exp                             its values through exp (relu abs neg)
  host: L = solve(D, G)                                a small dense step run in numpy
  out: X R                                             the tensors the program keeps
  # comment
shipped examples: custard/dag/examples/cg.dag (block CG), gcn.dag (two GCN layers)

examples:
  custard dag custard/dag/examples/gcn.dag -t A=karate -t X0=random:1:0:34x16 \\
      -t W0=random:1:1:16x8 -t W1=random:1:2:8x4 --run
  custard dag custard/dag/examples/cg.dag -t A=LFAT5 -t P=random:1:0:14x2 -t R=P \\
      -t X=random:1:1:14x2 -t Gamma=random:1:2:2x2 -o cg.svg
"""


def register(sub: Any) -> None:
    """Add ``dag`` to ``custard``'s subcommands."""
    from sam.cli import TENSOR_SPECS

    p = sub.add_parser(
        "dag", help="a program of statements: labelled DAG (GOGETA), fused SAM program, "
        "traffic model, simulation",
        description="Read a program of index-notation statements, label its DAG of operations "
        "as GOGETA's Alg. 2/3 do, compile it to SAM with the pipelineable edges fused, and "
        "model its DRAM traffic op-by-op and with inter-operation reuse.",
        epilog=_EPILOG + "\n" + TENSOR_SPECS, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE", help="the program (one statement per line)")
    p.add_argument("-t", "--tensor", action="append", default=[], metavar="NAME=SPEC",
                   help="bind an input of the program (sizes the DAG; repeatable)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the DAG as DOT (.dot, .gv) or a picture (.svg, .png, .pdf)")
    p.add_argument("--graphs", metavar="FILE", help="write the SAM program (DOT, one digraph "
                   "per graph)")
    p.add_argument("--sram", action="append", type=float, metavar="MB",
                   help="SRAM size in MB for the traffic model (repeatable; default 1, 4, 16)")
    p.add_argument("--iterations", type=int, default=1, metavar="N",
                   help="run (and model) the program N times in a row (default 1)")
    p.add_argument("--no-fuse", action="store_true", help="compile every statement alone")
    p.add_argument("--run", action="store_true", help="simulate the SAM program")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast",
                   help="simulator engine (default: fast)")
    p.add_argument("--seed", type=int, default=0, help="seed of random tensor specs")
    p.set_defaults(func=cmd_dag)


#: what -o and --graphs write
OUTPUT_SUFFIXES = {"-o": (".dot", ".gv", ".svg", ".png", ".pdf"), "--graphs": (".gv", ".dot")}
#: most statements the model unrolls (--iterations x statements): about a minute of analysis
MAX_UNROLLED = 200_000
#: bytes one unrolled statement costs in the model (node, edges, sizes, SRAM versions; measured
#: about 3 kB on block CG)
STATEMENT_BYTES = 4096
#: bytes one compiled statement keeps (its SAM graph; measured 21-26 kB on chains of products)
COMPILED_BYTES = 32 * 1024
#: largest --sram in MB (a petabyte: beyond it the model's word counts stop meaning anything)
MAX_SRAM_MB = 1e9


def _check_options(args: argparse.Namespace, specs: dict[str, str]) -> None:
    """Everything that can be refused before reading the program (outputs, size options)."""
    import math

    from sam.command.bounds import check_size
    from sam.command.outputs import check_outputs, input_files

    check_outputs({"-o": args.output, "--graphs": args.graphs}, [args.file, *input_files(specs)],
                  OUTPUT_SUFFIXES)
    if args.output and Path(args.output).suffix.lower() in (".svg", ".png", ".pdf") \
            and shutil.which("dot") is None:
        raise CompileError(f"-o {args.output}: a picture needs graphviz's `dot` on the PATH "
                           "(install graphviz); write .dot instead")
    check_size("--iterations", args.iterations, low=1, high=MAX_UNROLLED,
               why=f"the model unrolls the program that many times; at most "
               f"{MAX_UNROLLED:,} statements")
    for mb in args.sram or []:
        if not math.isfinite(mb):
            raise CompileError(f"--sram {mb}: give a size in MB, e.g. --sram 4")
        check_size("--sram", mb, low=0, high=MAX_SRAM_MB, why="a petabyte of SRAM")


def _check_program(args: argparse.Namespace, statements: int) -> None:
    """The memory compiling ``statements`` takes, and --iterations against the work and memory
    of the unrolled program it implies."""
    from formats.memory import too_large
    from sam.command.bounds import check_size

    problem = too_large(statements * COMPILED_BYTES)
    if problem:
        raise CompileError(f"{args.file}: compiling its {statements:,} statements {problem}; "
                           "split the program")
    check_size("--iterations", args.iterations, low=1, high=max(1, MAX_UNROLLED // statements),
               why=f"the model unrolls the program's {statements} statement(s) that many "
               f"times; at most {MAX_UNROLLED:,} statements",
               bytes_each=statements * STATEMENT_BYTES, what="the unrolled program")


def _write_dag(dag, path: str) -> None:
    """The DAG as DOT text or, by suffix, a picture drawn by graphviz; written atomically."""
    from custard.dag.labels import to_dot
    from formats.atomic import atomic_write
    from sam.command.files import write_text
    from sam.graph.draw import render_bytes

    text = to_dot(dag)
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix in ("svg", "png", "pdf"):
        data = render_bytes(text, suffix)
        with atomic_write(path) as out:
            out.write(data)
    else:
        write_text(path, text)


def cmd_dag(args: argparse.Namespace) -> int:
    from custard.dag.progress import bars
    from sam.bind import parse_bindings

    specs = parse_bindings(args.tensor)
    _check_options(args, specs)
    with bars():
        return _dag(args, specs)


def _dag(args: argparse.Namespace, specs: dict[str, str]) -> int:
    from custard.dag.bind import bind_inputs, input_infos
    from custard.dag.intensity import chain_intensity, op_intensity
    from custard.dag.labels import build_dag, describe
    from custard.dag.program import load_program, unroll
    from custard.dag.run import compile_dag, graphs_of
    from custard.dag.traffic import all_configs, words_of_mb
    from sam.command.files import write_text

    prog = load_program(args.file)
    _check_program(args, len(prog.statements))
    if not specs and prog.inputs():
        raise CompileError(f"bind the program's inputs ({', '.join(prog.inputs())}) with -t "
                           "NAME=SPEC: their sizes decide dominance and traffic")
    tensors = bind_inputs(prog, specs, seed=args.seed)
    infos = input_infos(prog, tensors)
    dag = build_dag(prog, infos)
    units = compile_dag(dag, fuse=not args.no_fuse)
    out = sys.stdout
    print(f"DAG of {args.file} ({len(dag.nodes)} operations):", file=out)
    print(describe(dag), file=out)
    print("SAM program:", file=out)
    for u in units:
        what = {"host": "host (numpy)", "graph": f"{len(u.program.phases)} graph(s)"
                if u.program else "", "fused": f"fused, {', '.join(u.fused_tensors)} streamed "
                "(no writer or scanner)"}[u.kind]
        print(f"  {u.label(dag)}: {what}" + (f"  [{u.note}]" if u.note else ""), file=out)
    print("arithmetic intensity (multiplications per word):", file=out)
    for n, op in zip(dag.nodes, dag.sizes, strict=True):
        if n.op == "tensor_mac":
            print(f"  [{n.index + 1}] {n.name}: {op_intensity(op):.4g}", file=out)
    without, with_reuse = chain_intensity(prog, infos)
    print(f"  program: {without:.4g} op-by-op, {with_reuse:.4g} with inter-operation reuse",
          file=out)
    model = build_dag(unroll(prog, args.iterations), infos) if args.iterations > 1 else dag
    print(f"DRAM words ({args.iterations} iteration(s)):", file=out)
    print(f"  {'SRAM MB':>8} {'op-by-op':>12} {'overflow':>12} {'reuse':>12} {'ideal':>12}",
          file=out)
    for mb in args.sram or [1.0, 4.0, 16.0]:
        c = all_configs(model, words_of_mb(mb))
        print(f"  {mb:>8g} {c['seq_flex'].total:>12} {c['seq_overflow'].total:>12} "
              f"{c['gogeta'].total:>12} {c['ideal'].total:>12}", file=out)
    if args.output:
        _write_dag(dag, args.output)
    if args.graphs:
        from sam.graph.dot import dumps

        write_text(args.graphs, "".join(dumps(g) for g in graphs_of(units)))
    if args.run:
        _run(dag, units, tensors, args, words_of_mb((args.sram or [1.0])[0]))
    return 0


def _run(dag, units, tensors, args: argparse.Namespace, capacity: int) -> None:
    from custard.dag.run import run_units
    from custard.dag.traffic import gogeta, seq_flex

    fused = {link for u in units if u.kind == "fused" for link in u.links}
    flex, reuse = seq_flex(dag), gogeta(dag, capacity, streams=fused)
    current = dict(tensors)
    totals: dict[int, int] = {}
    for _ in range(args.iterations):
        result = run_units(dag, units, current, engine=args.engine)
        for k, u in enumerate(result.units):
            totals[k] = totals.get(k, 0) + u.cycles
        current = {n: result.tensors[n] for n in tensors}
    print(f"simulation ({args.engine} engine, {args.iterations} iteration(s)); modelled DRAM "
          f"words per iteration, SRAM {capacity * 4 / (1 << 20):g} MB, streaming only the "
          "fused edges:")
    print(f"  {'unit':<28} {'cycles':>10} {'op-by-op':>10} {'reuse':>10}")
    for k, u in enumerate(units):
        words_f = sum(flex.ops[n].total for n in u.nodes)
        words_r = sum(reuse.ops[n].total for n in u.nodes)
        print(f"  {u.label(dag):<28} {totals[k]:>10} {words_f:>10} {words_r:>10}")
    print(f"  {'total':<28} {sum(totals.values()):>10} {flex.total:>10} {reuse.total:>10}")
    kept = dag.program.outputs()
    for name in kept:
        if name in result.tensors:
            t = result.tensors[name]
            print(f"  {t.describe().splitlines()[0]}")
