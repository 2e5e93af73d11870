"""``custard dag FILE``: a program of statements as a labelled DAG, a SAM program with the
pipelineable edges fused, its intensity and DRAM traffic, and (``--run``) its simulation.

Prints the DAG (each node's dominance and loop order, each edge's GOGETA label), the units
the program compiles to (fused pairs named), arithmetic intensity per operation and for the
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
import subprocess
import sys
from pathlib import Path
from typing import Any

from sam.errors import CompileError

_EPILOG = """program file (custard/dag/program.py):
  S(i,n) = A(i,k)*P(k,n)   -f=A:ds -s=reorder(i,k,n)   a statement, its formats and loop order
  X(i,n) += P(i,j)*L(j,n)                              an update (also -=)
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


def _write_dag(dag, path: str) -> None:
    from custard.dag.labels import to_dot

    text = to_dot(dag)
    suffix = Path(path).suffix.lower().lstrip(".")
    try:
        if suffix in ("svg", "png", "pdf"):
            exe = shutil.which("dot")
            if exe is None:
                raise CompileError(f"-o {path}: a picture needs graphviz's `dot` on the PATH; "
                                   "write .dot instead")
            proc = subprocess.run([exe, f"-T{suffix}", "-o", path], input=text.encode(),
                                  capture_output=True, timeout=120)
            if proc.returncode != 0:
                raise CompileError(f"graphviz dot could not draw {path}")
        else:
            Path(path).write_text(text)
    except OSError as err:
        raise CompileError(f"cannot write {path}: {err.strerror or err}") from None


def cmd_dag(args: argparse.Namespace) -> int:
    from custard.dag.bind import bind_inputs, input_infos
    from custard.dag.intensity import chain_intensity, op_intensity
    from custard.dag.labels import build_dag, describe
    from custard.dag.program import load_program, unroll
    from custard.dag.run import compile_dag, graphs_of
    from custard.dag.traffic import all_configs, words_of_mb
    from sam.bind import parse_bindings

    if args.iterations < 1:
        raise CompileError(f"--iterations must be at least 1, got {args.iterations}")
    if any(mb < 0 for mb in args.sram or []):
        raise CompileError("--sram takes a size in MB, at least 0")
    prog = load_program(args.file)
    specs = parse_bindings(args.tensor)
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
                if u.program else "", "fused": f"fused, {u.fused_tensor} streamed (no writer "
                "or scanner)"}[u.kind]
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

        try:
            Path(args.graphs).write_text("".join(dumps(g) for g in graphs_of(units)))
        except OSError as err:
            raise CompileError(f"cannot write {args.graphs}: {err.strerror or err}") from None
    if args.run:
        _run(dag, units, tensors, args, words_of_mb((args.sram or [1.0])[0]))
    return 0


def _run(dag, units, tensors, args: argparse.Namespace, capacity: int) -> None:
    from custard.dag.run import run_units
    from custard.dag.traffic import gogeta, seq_flex

    fused = {(u.nodes[0], u.nodes[1], u.fused_tensor) for u in units if u.kind == "fused"}
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
