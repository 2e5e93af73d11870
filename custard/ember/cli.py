"""``custard ember``: the Ember front end on the command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from custard.ember.errors import EmberError

EPILOG = """\
examples:
  custard ember --op sls > sls.mlir                    # the scf code of a Table 1 operation
  custard ember eb_scf.mlir -O3 --vlen 8 --emit slc    # optimized SLC (emb-opt3)
  custard ember eb_scf.mlir -O3 --emit dlc             # decoupled DLC code
  custard ember eb_scf.mlir -O3 --vlen 2 --run -t arg0=ptrs.npy -t arg1=idxs.npy \\
      -t arg4=table.npy -o out.npy --trace trace.json  # run it, write the queue trace

Inputs bind to the function's arguments by name without '%'; the sizes struct and outputs
that are not bound are derived from the operands (docs/ember.md). --emit defaults to scf
without -O and to dlc with it. --run simulates the TMU graph (--at tmu, default) or interprets
a level (--at scf|slc|dlc); the trace needs dlc or tmu.
"""


def add_parser(sub: Any) -> None:
    """Register ``ember`` among ``custard``'s subcommands."""
    p = sub.add_parser(
        "ember", help="Ember: compile embedding operations (scf MLIR) to SLC/DLC decoupled "
        "access-execute code, run them", description="Read scf MLIR (a file or --op), lower it "
        "to SLC, optimize it (-O0..-O3: vectorization, bufferization, queue alignment), lower it "
        "to DLC, print any level or run it.", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", nargs="?", metavar="FILE.mlir", help="scf MLIR input")
    p.add_argument("--op", choices=("sls", "spmm", "spattn", "mp", "kg"),
                   help="use the scf code of this Table 1 operation instead of FILE")
    p.add_argument("--block", type=int, default=2, help="--op spattn: block size (default 2)")
    p.add_argument("-O", dest="level", type=int, choices=(0, 1, 2, 3),
                   help="optimization level (emb-opt0..3 of the paper's Table 4)")
    p.add_argument("--vlen", type=int, default=8, help="vector length of -O1 and up (default 8)")
    p.add_argument("--emit", choices=("scf", "slc", "dlc", "dot"),
                   help="which IR to print (default: scf without -O, dlc with it); dot: the "
                   "TMU graph (dae mode) for the -t inputs' shapes")
    p.add_argument("--run", action="store_true", help="run the code on the -t inputs")
    p.add_argument("--at", choices=("scf", "slc", "dlc", "tmu"), default="tmu",
                   help="--run: interpret the scf, slc or dlc level, or simulate the TMU graph "
                   "(default tmu; it prints the cycles)")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast",
                   help="--at tmu: simulator engine (default fast)")
    p.add_argument("-t", "--tensor", action="append", default=[], metavar="NAME=FILE.npy",
                   help="--run: bind an argument (repeat)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the printed IR (or, with --run, the result as .npy) to FILE")
    p.add_argument("--trace", metavar="TRACE.json",
                   help="--run: write the queue trace {\"control\": [...], \"data\": [...]}")
    p.set_defaults(func=cmd_ember)


def _load(spec: str) -> tuple[str, np.ndarray]:
    if "=" not in spec:
        raise EmberError(f"-t {spec}: write NAME=FILE.npy (e.g. -t arg0=ptrs.npy)")
    name, path = spec.split("=", 1)
    name = name.strip().lstrip("%")
    try:
        arr = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as err:
        raise EmberError(f"-t {spec}: cannot read {path} as .npy ({err})") from None
    return name, arr


def cmd_ember(args: argparse.Namespace) -> int:
    from custard.ember.context import parse_module, print_module
    from custard.ember.ops import scf_text
    from custard.ember.pipeline import compile_module, run_module

    if (args.file is None) == (args.op is None):
        raise EmberError("give either FILE.mlir or --op NAME (e.g. custard ember --op sls)")
    if args.op:
        text, path = scf_text(args.op, args.block), f"<--op {args.op}>"
    else:
        path = args.file
        try:
            text = Path(path).read_text()
        except OSError as err:
            raise EmberError(f"cannot read {path}: {err.strerror}") from None
    mod = parse_module(text, path)
    level = 0 if args.level is None else args.level
    if args.level is None and not args.run and args.emit in (None, "scf"):
        return _write(args.output, print_module(mod))
    compiled = compile_module(mod, level, args.vlen, path)
    tensors = dict(_load(s) for s in args.tensor)
    if args.emit == "dot" and not args.run:
        from custard.ember.to_tmu import lower_to_tmu
        from sam.graph.dot import dumps

        if not tensors:
            raise EmberError("--emit dot builds the TMU graph for given input shapes: bind "
                             "the inputs with -t NAME=FILE.npy")
        return _write(args.output, dumps(lower_to_tmu(compiled.dlc, tensors).graph))
    if args.run:
        if args.at == "tmu":
            from custard.ember.to_tmu import lower_to_tmu, simulate_tmu, tmu_trace

            try:
                low = lower_to_tmu(compiled.dlc, tensors)
            except EmberError as err:
                if not str(err).startswith("TMU lowering"):
                    raise
                raise EmberError(f"{err} (use --at dlc to interpret the DLC code instead)"
                                 ) from None
            out, res = simulate_tmu(low, args.engine)
            trace = tmu_trace(low, args.engine) if args.trace else None
            print(f"ember: -O{level} --vlen {args.vlen}: {res.cycles} cycles on the TMU "
                  f"graph", file=sys.stderr)
        else:
            at = {"scf": compiled.scf, "slc": compiled.slc, "dlc": compiled.dlc}[args.at]
            out, trace = run_module(at, tensors)
        if args.output:
            np.save(args.output, out)
        else:
            print(np.array2string(out, threshold=50))
        if args.trace:
            if trace is None:
                raise EmberError("--trace needs --at dlc or --at tmu (scf and slc code have "
                                 "no queues)")
            Path(args.trace).write_text(json.dumps(trace))
        if trace is not None:
            print(f"ember: -O{level} --vlen {args.vlen}: {len(trace['control'])} control "
                  f"tokens, {len(trace['data'])} data entries", file=sys.stderr)
        return 0
    emit = args.emit or "dlc"
    ir = {"scf": compiled.scf, "slc": compiled.slc, "dlc": compiled.dlc}[emit]
    return _write(args.output, print_module(ir))


def _write(path: str | None, text: str) -> int:
    if path and path != "-":
        Path(path).write_text(text)
    else:
        sys.stdout.write(text)
    return 0
