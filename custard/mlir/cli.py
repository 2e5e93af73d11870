"""``custard mlir FILE.mlir``: Linalg + SparseTensor MLIR compiled to a SAM program, run.

Without ``--run``/``--entry`` it prints the program of index-notation statements the kernel
function lowers to; ``-o G.gv`` writes the SAM program (one digraph per graph; its sizes come
from ``-t`` or from static types). ``--run`` simulates it on the ``-t`` arguments, fused and
(when fusion joined statements) unfused, and prints the cycles of both; ``--result OUT`` writes
the returned tensor, ``--report R.json`` the numbers. ``--entry [NAME]`` runs the file's own
driver (``@entry``/``@main``): a host interpreter calls the SAM programs for the kernels and
prints what the MLIR runner would (docs/mlir.md).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

EPILOG = """\
examples:
  custard mlir custard/mlir/examples/spmm.mlir                  # the lowered statements
  custard mlir custard/mlir/examples/spmm.mlir --run -t A=bcsstm02 -t B=random:1:1:66x8 \\
      --result c.tns -o spmm.gv                                 # simulate, write result + graphs
  custard mlir custard/mlir/examples/sddmm_spmm.mlir --run -t arg0=... --no-fuse
  TENSOR0=wide.mtx custard mlir sparse_matvec.mlir --entry      # run the test's driver

Arguments bind by SSA name without '%' (-t arga=...) or by position (-t arg0=...). Formats come
from the types' #sparse_tensor.encoding (dense without one). --entry reads the files named by
TENSOR0, TENSOR1, ... (environment variables, as the MLIR tests' RUN lines set them).
"""

#: what the outputs may be
SUFFIXES = {"-o": (".gv", ".dot"), "--report": (".json",)}


def register(sub: Any) -> None:
    """Add ``mlir`` to ``custard``'s subcommands."""
    from sam.cli import TENSOR_SPECS

    p = sub.add_parser(
        "mlir", help="MLIR (linalg + sparse_tensor) to a fused SAM program; run it or the "
        "file's driver", description="Read an MLIR file of linalg and sparse_tensor ops, lower a "
        "function of linalg ops to Custard statements (formats from #sparse_tensor.encoding), "
        "compile them to a SAM program with the pipelineable producer/consumer chains fused, "
        "and run it, or run the file's own driver function.",
        epilog=EPILOG + "\n" + TENSOR_SPECS, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE.mlir", help="the MLIR file")
    p.add_argument("--func", dest="function", metavar="NAME", help="the kernel function "
                   "(default: the only function with linalg ops)")
    p.add_argument("-t", "--tensor", action="append", default=[], metavar="ARG=SPEC",
                   help="bind an argument by SSA name (arga) or position (arg0); repeatable")
    p.add_argument("--run", action="store_true", help="simulate the program on the -t tensors")
    p.add_argument("--entry", nargs="?", const="", metavar="NAME",
                   help="run the driver function NAME (default @entry or @main) on the host, "
                   "its kernels on SAM, printing what it prints")
    p.add_argument("--no-fuse", action="store_true", help="compile every op alone (through "
                   "memory)")
    p.add_argument("--result", metavar="OUT", help="--run: write the returned tensor (.tns, "
                   ".mtx, .npy, .npz)")
    p.add_argument("-o", "--output", metavar="G.gv", help="write the SAM program (DOT)")
    p.add_argument("--report", metavar="R.json", help="--run/--entry: write cycles (fused "
                   "and unfused) and the program as JSON")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast",
                   help="simulator engine (default: fast)")
    p.add_argument("--seed", type=int, default=0, help="seed of random tensor specs")
    p.set_defaults(func=cmd_mlir)


def cmd_mlir(args: argparse.Namespace) -> int:
    from custard.dag.progress import bars
    from sam.bind import parse_bindings
    from sam.command.outputs import check_outputs, input_files
    from sam.errors import CompileError

    specs = parse_bindings(args.tensor)
    result_suffixes = {"--result": (".tns", ".mtx", ".npy", ".npz")}
    check_outputs({"-o": args.output, "--report": args.report, "--result": args.result},
                  [args.file, *input_files(specs)], {**SUFFIXES, **result_suffixes})
    if args.result and not args.run:
        raise CompileError("--result needs --run (it writes the simulated result)")
    if args.entry is not None and (args.run or specs):
        raise CompileError("--entry runs the file's driver, which makes its own inputs; drop "
                           "--run and -t")
    with bars():
        return _mlir(args, specs)


def _mlir(args: argparse.Namespace, specs: dict[str, str]) -> int:
    from custard.mlir.program import lower_function
    from custard.mlir.syntax import parse_module
    from sam.command.files import read_text

    module = parse_module(read_text(args.file), args.file)
    if args.entry is not None:
        return _entry(args, module)
    low = lower_function(module, args.function or _kernel_name(module, args.file))
    out = sys.stdout
    print(f"@{low.func.name} lowers to {len(low.statements)} statement(s):", file=out)
    for line in low.text().splitlines()[1:]:
        print(f"  {line}", file=out)
    if not (args.run or args.output or args.report):
        return 0
    from formats.errors import ToolkitError

    try:
        tensors = _bind(low, specs, args)
        units = low.compile(tensors, fuse=not args.no_fuse)
    except ToolkitError as err:
        raise type(err)(low.located(err)) from None
    report: dict[str, Any] = {"file": args.file, "function": low.func.name,
                              "program": low.text()}
    print("SAM program:", file=out)
    for u in units[1]:
        what = (f"fused: {u.fused_tensor} streamed" if u.kind == "fused"
                else f"{len(u.program.phases)} graph(s)" if u.program else "host")
        print(f"  {u.label(units[0])}: {what}" + (f"  [{u.note}]" if u.note else ""), file=out)
    if args.output:
        from custard.dag.run import graphs_of
        from sam.command.files import write_text
        from sam.graph.dot import dumps

        write_text(args.output, "".join(dumps(g) for g in graphs_of(units[1])))
    if args.run:
        _run(low, tensors, units, args, report)
    if args.report:
        from sam.command.files import write_json

        write_json(args.report, report)
    return 0


def _kernel_name(module, file: str) -> str:
    """The function with linalg ops, when there is exactly one."""
    from custard.mlir.syntax import Loc, error

    kernels = [f.name for f in module.funcs.values() if f.body is not None and any(
        op.name.startswith("linalg.") for top in f.body.ops for op in top.walk())]
    if len(kernels) == 1:
        return kernels[0]
    if not kernels:
        raise error(Loc(file, 1, 1), "no function with linalg ops; name one with --func")
    raise error(Loc(file, 1, 1), f"several functions with linalg ops ({', '.join(kernels)}); "
                                 "pick one with --func")


def _bind(low, specs: dict[str, str], args: argparse.Namespace):
    """The program's input tensors from -t (by SSA name or position)."""
    from custard.dag.bind import bind_inputs
    from custard.mlir.program import static_inputs
    from sam.errors import CompileError

    by_name: dict[str, str] = {}
    for key, spec in specs.items():
        hit = [name for k, (ssa, name, _) in enumerate(low.inputs)
               if key in (ssa.lstrip("%"), f"arg{k}", name)]
        if not hit:
            raise CompileError(f"-t {key}: @{low.func.name} has no argument {key} (its "
                               f"arguments: {', '.join(s for s, _, _ in low.inputs)}, or arg0.."
                               f"arg{len(low.inputs) - 1})")
        by_name[hit[0]] = spec
    prog = low.dag_program()
    if not by_name:
        if args.run:
            raise CompileError(f"--run: bind @{low.func.name}'s arguments with -t ARG=SPEC "
                               f"({', '.join(s.lstrip('%') for s, _, _ in low.inputs)})")
        return static_inputs(low)
    tensors = bind_inputs(prog, by_name, seed=args.seed)
    low.check_shapes(tensors)
    return tensors


def _run(low, tensors, units, args: argparse.Namespace, report: dict[str, Any]) -> None:
    from custard.dag.run import run_units
    from sam.errors import CompileError

    dag, compiled = units
    fused = run_units(dag, compiled, tensors, engine=args.engine)
    rows = [("fused" if not args.no_fuse else "op by op", fused)]
    if not args.no_fuse and any(u.kind == "fused" for u in compiled):
        udag, ucompiled = low.compile(tensors, fuse=False)
        rows.append(("unfused", run_units(udag, ucompiled, tensors, engine=args.engine)))
    names = [n for n, _ in low.outputs]
    print(f"simulation ({args.engine} engine):")
    for label, run in rows:
        print(f"  {label:<9} {run.cycles:>12,} cycles in {len(run.units)} unit(s)")
        report[f"cycles_{label.replace(' ', '_')}"] = run.cycles
    if len(rows) == 2:
        import numpy as np

        for n in names:
            a, b = (r.tensors[n].to_dense() for _, r in rows)
            if a.shape != b.shape or not np.allclose(a, b, rtol=1e-9, atol=1e-12):
                raise CompileError(f"fused and unfused results of {n} differ (a bug: please "
                                   "report it with the file)")
        ratio = rows[1][1].cycles / max(1, rows[0][1].cycles)
        print(f"  unfused/fused: {ratio:.3f}x; results equal")
        report["unfused_over_fused"] = ratio
    for n in names:
        t = fused.tensors[n]
        print(f"  {t.describe().splitlines()[0]}")
    if args.result:
        from formats.io import save_tensor

        if len(names) != 1:
            raise CompileError(f"--result: @{low.func.name} returns {len(names)} tensors; "
                               "--result writes one")
        save_tensor(fused.tensors[names[0]], args.result)
        print(f"wrote {args.result}")


def _entry(args: argparse.Namespace, module) -> int:
    from custard.mlir.interp import run_entry

    run = run_entry(module, args.entry or None, env=dict(os.environ), out=sys.stdout,
                    engine=args.engine, fuse=not args.no_fuse)
    print(f"custard mlir: {run.calls} SAM call(s), {run.cycles:,} cycles", file=sys.stderr)
    if args.report:
        from sam.command.files import write_json

        write_json(args.report, {"file": args.file, "calls": run.calls, "cycles": run.cycles})
    return 0
