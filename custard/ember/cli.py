"""``custard ember``: the Ember front end on the command line."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

from custard.ember.errors import EmberError
from sam.blocks.tmu_config import LANES_WHY, MAX_LANES
from sam.command.bounds import check_size
from sam.command.outputs import check_outputs
from sam.tmu_cli import add_machine_options, machine_of, machine_options_given

#: Largest --vlen: the TMU's vector (sam.blocks.tmu_config.MAX_LANES and why)
MAX_VLEN, VLEN_WHY = MAX_LANES, LANES_WHY
#: Largest --block: rows of the key table gathered as one block (BigBird's blocks are 64).
MAX_BLOCK = 4096
BLOCK_WHY = "a block is that many consecutive rows of the key table; BigBird's blocks are 64"
#: Bytes one vector lane costs in a queue trace kept in memory and written as JSON (measured
#: 33 B for --at tmu and 49 B for --at dlc: SLS, 2,107 lookups, --vlen 1024).
LANE_BYTES = 64

EPILOG = """\
examples:
  custard ember --op sls > sls.mlir                    # the scf code of a Table 1 operation
  custard ember eb_scf.mlir -O3 --vlen 8 --emit slc    # optimized SLC (emb-opt3)
  custard ember eb_scf.mlir -O3 --emit dlc             # decoupled DLC code
  custard ember eb_scf.mlir -O3 --vlen 2 --run -t arg0=ptrs.npy -t arg1=idxs.npy \\
      -t arg4=table.npy -o out.npy --trace trace.json  # run it, write the queue trace
  custard ember eb_scf.mlir -O2 --run -t ... --cores 8 --machine my_dae.yaml
                                                       # time it on 8 cores of a DAE machine

Inputs bind to the function's arguments by name without '%'; the sizes struct and outputs
that are not bound are derived from the operands (docs/ember.md). FILE may be scf, SLC or
DLC code (the pipeline starts at its level). --emit defaults to FILE's level without -O and
to dlc with it. --run simulates the TMU graph (--at tmu, default) or interprets
a level (--at scf|slc|dlc); the trace needs dlc or tmu. At tmu the run is also timed
on the decoupled access-execute machine of the Ember paper (Sec. 3.1, Figure 5; --machine,
--cores, --queue-entries; docs/tmu.md): its access trace, one core's work, on one core of
the machine, or the same trace on each of --cores N cores sharing the LLC and the HBM.
"""


def add_parser(sub: Any) -> None:
    """Register ``ember`` among ``custard``'s subcommands."""
    p = sub.add_parser(
        "ember", help="Ember: compile embedding operations (scf MLIR) to SLC/DLC decoupled "
        "access-execute code, run them", description="Read scf MLIR (a file or --op), lower it "
        "to SLC, optimize it (-O0..-O3: vectorization, bufferization, queue alignment), lower it "
        "to DLC, print any level or run it.", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", nargs="?", metavar="FILE.mlir", help="MLIR input: scf code, or SLC "
                   "(slc/slcvec ops: optimized with -O, lowered, run) or DLC code (emitted, "
                   "run), detected from its operations")
    p.add_argument("--op", choices=("sls", "spmm", "spattn", "mp", "kg"),
                   help="use the scf code of this Table 1 operation instead of FILE")
    p.add_argument("--block", type=int, help=f"--op spattn: block size (default 2, at most "
                   f"{MAX_BLOCK})")
    p.add_argument("-O", dest="level", type=int, choices=(0, 1, 2, 3),
                   help="optimization level (emb-opt0..3 of the paper's Table 4)")
    p.add_argument("--vlen", type=int, default=8, help="vector length of -O1 and up (default 8, "
                   f"at most {MAX_VLEN})")
    p.add_argument("--emit", choices=("scf", "slc", "dlc", "dot"),
                   help="which IR to print (default: scf without -O, dlc with it); dot: the "
                   "TMU graph (dae mode) for the -t inputs' shapes")
    p.add_argument("--run", action="store_true", help="run the code on the -t inputs")
    p.add_argument("--at", choices=("scf", "slc", "dlc", "tmu"),
                   help="--run: interpret the scf, slc or dlc level, or simulate the TMU graph "
                   "(default tmu; it prints the token-level cycles and the DAE machine's)")
    p.add_argument("--engine", choices=("fast", "reference"),
                   help="--at tmu: simulator engine (default fast)")
    p.add_argument("-t", "--tensor", action="append", default=[], metavar="NAME=FILE.npy",
                   help="--run, --emit dot: bind an argument (repeat)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the printed IR (.mlir; --emit dot: .dot or .gv) or, with --run, "
                   "the result (.npy) to FILE")
    p.add_argument("--trace", metavar="TRACE.json",
                   help="--run: write the queue trace {\"control\": [...], \"data\": [...]} "
                   "(--at tmu: and \"machine\": the DAE machine's result)")
    add_machine_options(p, "--run at tmu")
    p.set_defaults(func=cmd_ember)


def _spec(spec: str) -> tuple[str, str]:
    """``NAME=FILE.npy`` as (name without ``%``, path)."""
    name, sep, path = spec.partition("=")
    name = name.strip().lstrip("%")
    if not sep or not name or not path:
        raise EmberError(f"-t {spec}: write NAME=FILE.npy (e.g. -t arg0=ptrs.npy)")
    return name, path


def _check_options(args: argparse.Namespace) -> list[tuple[str, str]]:
    """Refuse option combinations that would be ignored or fail late; the -t specs."""
    if (args.file is None) == (args.op is None):
        raise EmberError("give either FILE.mlir or --op NAME (e.g. custard ember --op sls)")
    if args.block is not None and args.op != "spattn":
        raise EmberError("--block is the block size of --op spattn; drop it or add --op spattn")
    specs = [_spec(s) for s in args.tensor]
    names = [name for name, _ in specs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise EmberError(f"-t {twice[0]} is given more than once; bind each argument once")
    if args.run:
        if args.emit:
            raise EmberError("--emit prints code and --run runs it; give one of them (--run "
                             "--at scf|slc|dlc|tmu chooses the level that runs)")
        if args.trace and args.at in ("scf", "slc"):
            raise EmberError(f"--trace needs --at dlc or --at tmu (the {args.at} level has no "
                             "queues)")
        if args.engine and args.at not in (None, "tmu"):
            raise EmberError("--engine chooses the simulator of --at tmu; drop it with "
                             f"--at {args.at}")
        given = machine_options_given(args)
        if given and args.at not in (None, "tmu"):
            raise EmberError(f"{given[0]} times the TMU run on the DAE machine; drop it with "
                             f"--at {args.at}")
    else:
        for opt, value in (("--trace", args.trace), ("--at", args.at),
                           ("--engine", args.engine),
                           *((opt, True) for opt in machine_options_given(args))):
            if value:
                raise EmberError(f"{opt} applies to a --run; add --run or drop {opt}")
        if args.emit == "dot" and not specs:
            raise EmberError("--emit dot builds the TMU graph for given input shapes: bind "
                             "the inputs with -t NAME=FILE.npy")
        if specs and args.emit != "dot":
            raise EmberError("-t binds inputs for --run or --emit dot; add one of them or "
                             "drop -t")
    return specs


def _output_suffixes(args: argparse.Namespace) -> tuple[str, ...]:
    if args.run:
        return (".npy",)
    return (".dot", ".gv") if args.emit == "dot" else (".mlir",)


def _trace_vectors(tensors: dict[str, np.ndarray], vlen: int) -> int:
    """Vectors a queue trace holds, estimated for an embedding operation: a fiber of
    ``ceil(C / vlen)`` vectors per lookup, with ``C`` the columns of the widest table and as
    many lookups as the longest 1-d input has entries (without a table: that input's vectors).
    Every Table 1 operation pushes at least that many."""
    lookups = max((a.size for a in tensors.values() if a.ndim == 1), default=1)
    cols = [a.shape[1] for a in tensors.values() if a.ndim == 2]
    if cols:
        return lookups * -(-max(cols) // vlen)
    return -(-lookups // vlen)


def cmd_ember(args: argparse.Namespace) -> int:
    from formats.numpyfile import read_npy_array
    from sam.command.files import read_text

    specs = _check_options(args)
    check_outputs({"-o": args.output, "--trace": args.trace},
                  [args.file, args.machine, *(path for _, path in specs)],
                  {"-o": _output_suffixes(args), "--trace": (".json",)})
    check_size("--vlen", args.vlen, high=MAX_VLEN, why=VLEN_WHY)
    check_size("--block", args.block, high=MAX_BLOCK, why=BLOCK_WHY)
    level = 0 if args.level is None else args.level
    at = args.at or "tmu"
    machine = machine_of(args) if args.run and at == "tmu" else None
    tensors = {name: read_npy_array(path) for name, path in specs}
    if args.run and level >= 1 and (at == "dlc" or args.trace):
        vectors = _trace_vectors(tensors, args.vlen)
        check_size("--vlen", args.vlen, fixed_bytes=LANE_BYTES * vectors * args.vlen,
                   what=f"the queue trace ({vectors:,} vectors of {args.vlen} lanes at least)")
    if args.op:
        from custard.ember.ops import scf_text

        text, path = scf_text(args.op, 2 if args.block is None else args.block), \
            f"<--op {args.op}>"
    else:
        text, path = read_text(args.file, "MLIR file"), args.file
    return _ember(args, text, path, level, at, tensors, machine)


def _ember(args: argparse.Namespace, text: str, path: str, level: int, at: str,
           tensors: dict[str, np.ndarray], machine: Any = None) -> int:
    from custard.ember.context import parse_module, print_module
    from custard.ember.pipeline import (
        compile_module,
        input_level,
        require_function,
        run_module,
        with_outputs,
    )
    from sam.command.files import write_json, write_npy, write_text

    mod = parse_module(text, path)
    require_function(mod, path)
    start = input_level(mod)
    if args.level is None and not args.run and args.emit in (None, start):
        write_text(args.output or "-", print_module(mod))
        return 0
    compiled = compile_module(mod, level, args.vlen, path)
    if args.run or args.emit == "dot":  # outputs derived once, on the earliest level
        tensors = with_outputs(compiled.at(start), tensors)
    if args.emit == "dot":
        from custard.ember.to_tmu import lower_to_tmu
        from sam.graph.dot import dumps

        write_text(args.output or "-", dumps(lower_to_tmu(compiled.dlc, tensors).graph))
        return 0
    if not args.run:
        write_text(args.output or "-", print_module(compiled.at(args.emit or "dlc")))
        return 0
    if at == "tmu":
        from custard.ember.to_tmu import lower_to_tmu, simulate_tmu, tmu_trace

        try:
            low = lower_to_tmu(compiled.dlc, tensors)
        except EmberError as err:
            if not str(err).startswith("TMU lowering"):
                raise
            raise EmberError(f"{err} (use --at dlc to interpret the DLC code instead)"
                             ) from None
        engine = args.engine or "fast"
        out, res = simulate_tmu(low, engine)
        trace = tmu_trace(low, engine) if args.trace else None
        print(f"ember: -O{level} --vlen {args.vlen}: {res.cycles} cycles on the TMU graph",
              file=sys.stderr)
        timed = _time_on_machine(low, machine, args.cores, engine, level, args.vlen)
        if trace is not None:
            trace = {**trace, "machine": timed.to_dict()}
    else:
        out, trace = run_module(compiled.at(at), tensors)
    if args.output not in (None, "-"):
        write_npy(args.output, out)
    else:
        print(np.array2string(out, threshold=50))
    if args.trace and trace is not None:
        write_json(args.trace, trace, indent=None)
    if trace is not None:
        print(f"ember: -O{level} --vlen {args.vlen}: {len(trace['control'])} control "
              f"tokens, {len(trace['data'])} data entries", file=sys.stderr)
    return 0


def _time_on_machine(low: Any, machine: Any, cores: int | None, engine: str, level: int,
                     vlen: int) -> Any:
    """The lowered TMU's access trace (:func:`custard.ember.to_tmu.access_trace`) timed on
    ``machine`` (:func:`sam.tmu_cli.time_on_machine`); its summary printed to stderr."""
    from custard.ember.to_tmu import access_trace
    from sam.tmu_cli import machine_summary, time_on_machine

    result = time_on_machine(access_trace(low, engine=engine), machine, cores, engine)
    print(f"ember: -O{level} --vlen {vlen}: {machine_summary(result, machine)}",
          file=sys.stderr)
    return result
