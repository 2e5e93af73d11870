"""``sam-sim tmu``: run one of Ember's Table 1 embedding operations on a TMU + execute graph
(:mod:`sam.tmu_ops`), print the report and compare the result with numpy/scipy.

::

    sam-sim tmu --op sls -A west0479 --dim 32 --lanes 8 --fifo-depth 8
    sam-sim tmu --op gather -A random:0.1:3:20x30 --blk 2 --queues 12
    sam-sim tmu --op sls --dot sls.gv          # write the graph; run it with sam-sim run
    sam-sim tmu --op sls --cores 8 --machine my_dae.yaml   # time it on a DAE machine

Every dae-mode run is also timed on the decoupled access-execute machine of the Ember paper
(:mod:`sam.dae`, Sec. 3.1, Figure 5): the TMU run's access trace (:func:`sam.dae.record.record`)
on the machine of ``--machine`` (default ``memory_configs/ember_dae.yaml``). The machine options
and the summary are shared with ``custard ember --run`` (:func:`add_machine_options`,
:func:`machine_of`, :func:`time_on_machine`, :func:`machine_summary`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from formats.errors import ToolkitError

#: Table 1 operations (``sam.tmu_ops.OPS``; spelled out so that building the ``sam-sim`` parser
#: does not import the TMU graphs: start-up time, docs/performance.md)
OPS = ("sls", "spmm", "gather", "mp", "kg")


def add_tmu_command(sub: Any) -> None:
    """Add the ``tmu`` subcommand to ``sam-sim``'s subparsers."""
    p = sub.add_parser(
        "tmu", help="run an Ember Table 1 embedding operation on a TMU (decoupled access)",
        description="Build one of Ember's Table 1 embedding operations as a TMU (access unit) "
        "whose control and data queues feed an execute block (the core), simulate it and "
        "compare the result with numpy/scipy. A is the CSR index matrix (segments x table "
        "rows); the tables B (and X for mp) are random with --dim columns. See docs/tmu.md.")
    p.add_argument("--op", required=True, choices=OPS,
                   help="sls (EmbeddingBag), spmm (weighted), gather (sparse attention), mp "
                   "(message passing, Table 1), kg (knowledge graph: TransE L1 norm per entry of "
                   "A)")
    p.add_argument("-A", "--index", default="west0479", metavar="SPEC",
                   help="the index matrix: a shipped matrix name, a .mtx/.npz file or "
                   "random:DENSITY[:SEED]:ROWSxCOLS (default west0479)")
    p.add_argument("--dim", type=int, default=32, help="embedding length (default 32)")
    p.add_argument("--blk", type=int, default=1, help="gather: table rows per key block")
    p.add_argument("--lanes", type=int, default=1,
                   help="lanes of the element layer: vector operands of LANES values (mp always "
                   "uses --dim lanes)")
    p.add_argument("--mode", choices=("dae", "sam"), default="dae",
                   help="dae (queues to an execute block, default) or sam (sls only: the TMU's "
                   "SAM streams feed a SAM reducer and writers)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random tables")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast")
    p.add_argument("--fifo-depth", type=int, default=None, metavar="D",
                   help="bound every queue/stream to D entries (backpressure stalls the TMU)")
    p.add_argument("--token-cost", type=int, default=1, help="execute cycles per control token")
    p.add_argument("--pop-cost", type=int, default=1, help="execute cycles per popped entry")
    p.add_argument("--queues", type=int, default=0, metavar="N",
                   help="also print the first N control tokens and data entries")
    p.add_argument("--dot", metavar="FILE", help="write the graph to FILE and stop")
    add_machine_options(p, "the dae-mode run")
    p.set_defaults(func=run_tmu_command)


# ----------------------------------------------------------------------------- the DAE machine
#: Most ``--cores``: one access trace per core (the shipped machine has 8; a --machine may have
#: more), each core's trace held in memory
MAX_CORES = 1024
#: Most ``--queue-entries`` (each entry is a slot of the bounded queues' occupancy arrays)
MAX_QUEUE_ENTRIES = 2**31 - 1
MACHINE_OPTIONS = ("--machine", "--cores", "--queue-entries")
#: Bytes :func:`sam.dae.simulate.simulate` holds per load and per push of each core's trace
#: (about 14 int64/float64 arrays over loads and pushes, and their per-core copies)
SIM_BYTES_PER_ITEM = 256


def add_machine_options(p: Any, run: str) -> None:
    """``--machine``, ``--cores`` and ``--queue-entries``: the DAE machine (:mod:`sam.dae`)
    that times ``run`` after its token-level simulation."""
    p.add_argument("--machine", metavar="PATH.yaml",
                   help=f"{run}: time the access trace on this decoupled access-execute "
                   "machine (default: the Ember paper's, sam/memory_configs/ember_dae.yaml; "
                   "docs/tmu.md)")
    p.add_argument("--cores", type=int, metavar="N",
                   help=f"{run}: cores of the machine that run it (default 1: the run is one "
                   "core's work; N > 1 runs the same access trace on each of N cores, sharing "
                   "the LLC and the HBM; at most the machine's cores)")
    p.add_argument("--queue-entries", type=int, metavar="N",
                   help=f"{run}: bound the machine's control and data queue to N entries each "
                   "(default: the machine's; too few for a callback's pops is an error)")


def machine_options_given(args: argparse.Namespace) -> list[str]:
    """The machine options given on the command line (to refuse them where ignored)."""
    return [opt for opt in MACHINE_OPTIONS
            if getattr(args, opt.lstrip("-").replace("-", "_")) is not None]


def machine_of(args: argparse.Namespace) -> Any:
    """The :class:`~sam.dae.machine.DaeMachine` of ``--machine`` (read and checked, one-line
    errors) with ``--queue-entries``, and ``--cores`` checked against it; before any work."""
    from sam.command.bounds import check_size
    from sam.dae.machine import load_machine, paper_machine
    from sam.errors import SimulationError

    check_size("--cores", args.cores, high=MAX_CORES, why="one access trace per core")
    check_size("--queue-entries", args.queue_entries, high=MAX_QUEUE_ENTRIES)
    machine = load_machine(args.machine) if args.machine else paper_machine()
    if args.queue_entries is not None:
        machine = machine.replace(control_entries=args.queue_entries,
                                  data_entries=args.queue_entries)
    if (args.cores or 1) > machine.cores:
        raise SimulationError(f"--cores {args.cores}: the machine {machine.name} has "
                              f"{machine.cores} cores; give at most {machine.cores}")
    return machine


def time_on_machine(trace: Any, machine: Any, cores: int | None, engine: str) -> Any:
    """The :class:`~sam.dae.simulate.DaeResult` of ``trace`` run on each of ``cores`` (default
    1) cores of ``machine``; a trace that deadlocks on the bounded queues is one line
    (:func:`sam.dae.simulate.check_queues`)."""
    from sam.command.bounds import check_size
    from sam.dae.simulate import check_queues, queue_needs, simulate
    from sam.errors import SimulationError

    check_size("--cores", cores, high=MAX_CORES, what="the DAE machine's simulation",
               bytes_each=SIM_BYTES_PER_ITEM * (trace.loads + trace.pushes))
    if machine.bounded:
        try:
            check_queues(trace, machine)
        except SimulationError as err:
            need = max(n for n, _ in queue_needs(trace).values())
            raise SimulationError(f"{err}, or --queue-entries {need} or more") from None
    return simulate([trace] * (cores or 1), machine, engine)


def machine_summary(result: Any, machine: Any) -> str:
    """A few lines of ``result`` on ``machine``: cycles at the core clock, when the access side
    finished, the cores' busy and stalled cycles, the L2/LLC hit rates, the HBM bytes and the
    queues' largest occupancy (the busiest core's where per core)."""
    cs = result.cores
    n = len(cs)
    ghz = machine.clocks.core_ghz
    lines = sum(c.lines for c in cs)
    l2, llc = sum(c.l2_hits for c in cs), sum(c.llc_hits for c in cs)
    hbm = sum(c.hbm_bytes for c in cs)

    def rate(hits: int, of: int) -> str:
        return f"{hits:,}/{of:,} ({100 * hits / of:.0f}%)" if of else "0/0"

    def most(field: str) -> str:
        return f"{max(getattr(c, field) for c in cs):,.0f}"

    per = "" if n == 1 else " (the most of any core)"
    return (f"DAE machine {result.machine}, {n} core{'s' if n > 1 else ''}: {result.cycles:,} "
            f"cycles at {ghz:g} GHz ({result.cycles / ghz:,.0f} ns); access side done at "
            f"{most('access_finish')}{per}\n"
            f"  core: busy {most('busy')}, stalled {most('stall_empty')} on an empty queue, "
            f"TMU stalled {most('stall_full')} on a full one, {most('stall_mshr')} on MSHRs"
            f"{per}\n"
            f"  memory: {lines:,} lines; L2 hits {rate(l2, lines)}, LLC hits "
            f"{rate(llc, lines - l2)}; HBM {hbm:,} bytes\n"
            f"  queues: at most {most('max_control_occupancy')} control and "
            f"{most('max_data_occupancy')} data entries")


#: Cost per lane (``--lanes``) of the TMU program and the execute block's registers (measured:
#: about 500 bytes and 12 us per lane); the most lanes: sam.blocks.tmu_config.MAX_LANES
LANE_BYTES = 600
#: Largest embedding row (``--dim``) and key block (``--blk``)
MAX_DIM = 1 << 20


def _check_options(args: argparse.Namespace) -> None:
    """Every size-like option, before any work (:mod:`sam.command.bounds`)."""
    from sam.blocks.tmu_config import LANES_WHY, MAX_LANES
    from sam.command.bounds import check_size
    from sam.command.outputs import check_outputs
    from sam.errors import GraphError

    check_size("--lanes", args.lanes, high=MAX_LANES, bytes_each=LANE_BYTES, why=LANES_WHY,
               what="the TMU program's vector registers")
    check_size("--dim", args.dim, high=MAX_DIM, why="an embedding row; DLRM's are 16 to 256")
    check_size("--blk", args.blk, high=MAX_DIM, why="table rows per key block")
    check_size("--token-cost", args.token_cost, high=2**31 - 1)
    check_size("--pop-cost", args.pop_cost, high=2**31 - 1)
    check_size("--fifo-depth", args.fifo_depth, high=2**31 - 1)
    check_size("--queues", args.queues, low=0, high=2**31 - 1)
    if args.mode == "sam" and args.op != "sls":
        raise GraphError(f"--mode sam is built for --op sls only, not {args.op}; use --mode dae")
    given = machine_options_given(args)
    if given and (args.mode == "sam" or args.dot):
        why = "--mode sam has no queues" if args.mode == "sam" else "--dot only writes the graph"
        raise GraphError(f"{given[0]} times a dae-mode run on the DAE machine and {why}; drop "
                         f"{given[0]}")
    inputs = [args.index] if Path(args.index).is_file() else []
    check_outputs({"--dot": args.dot}, [*inputs, args.machine], {"--dot": (".gv", ".dot")})


def _check_tables(args: argparse.Namespace, rows: int) -> None:
    """The random tables (B and X: ``rows`` in all) must fit in memory."""
    from sam.command.bounds import check_size

    check_size("--dim", args.dim, high=MAX_DIM, bytes_each=3 * 8 * rows,
               what=f"tables of {rows:,} rows")


def _index_matrix(spec: str) -> Any:
    from formats.io import load_tensor
    from sam.bind import synthetic_tensor

    if spec.startswith("random:"):
        t = synthetic_tensor(spec, "A")
    else:
        t = load_tensor(spec, "ds")
    if t.order != 2:
        raise ToolkitError(f"-A {spec}: the index matrix must have order 2, got {t.order}")
    return t.to_scipy().tocsr()


def run_tmu_command(args: argparse.Namespace) -> int:
    import numpy as np

    from formats.tensor import Tensor
    from sam.blocks.tmu import queue_trace
    from sam.command.entry import EXIT_CHECK_FAILED, EXIT_INTERRUPTED
    from sam.command.files import write_text
    from sam.graph.dot import dumps
    from sam.program import Program
    from sam.report import build_report, format_text
    from sam.tmu_ops import (
        build_op,
        gather_config,
        kg_config,
        mp_config,
        reference,
        sam_graph,
        sls_config,
    )

    _check_options(args)
    machine = machine_of(args) if args.mode == "dae" and not args.dot else None
    A = _index_matrix(args.index)
    rows = A.shape[1] * (args.blk if args.op == "gather" else 1)  # of the table B
    if args.op == "kg":  # B holds the entities: heads (A's rows) and tails (its columns)
        rows = max(A.shape)
    _check_tables(args, rows + A.shape[0])
    rng = np.random.default_rng(args.seed)
    B = np.round(rng.uniform(-1, 1, (rows, args.dim)), 6)
    X = np.round(rng.uniform(-1, 1, (A.shape[0], args.dim)), 6)
    if args.op == "kg":  # the triples: head = row, tail = column, relation = value (X's row)
        A.data = rng.integers(0, A.shape[0], A.nnz).astype(float)
    At = Tensor.from_scipy(A, "ds")
    Bt, Xt = Tensor.from_dense(B, "dd"), Tensor.from_dense(X, "dd")
    if args.mode == "sam":
        graph, tensors = sam_graph((A.shape[0], args.dim)), {"A": At, "B": Bt}
    else:
        graph, tensors = build_op(args.op, At, Bt, Xt if args.op in ("mp", "kg") else None,
                                  lanes=args.lanes, blk=args.blk, token_cost=args.token_cost,
                                  pop_cost=args.pop_cost)
    if args.dot:
        write_text(args.dot, dumps(graph))
        print(f"wrote {args.dot}")
        return 0
    if args.queues and args.mode == "dae":
        cfg = {"gather": lambda: gather_config(args.blk, args.lanes),
               "mp": lambda: mp_config(args.dim), "kg": lambda: kg_config(args.lanes)}.get(
            args.op, lambda: sls_config("dae", args.lanes, weighted=args.op == "spmm"))()
        trace = queue_trace(cfg, tensors, engine=args.engine)
        print("ctrl:", ", ".join(map(str, trace.ctrl[: args.queues])),
              "..." if len(trace.ctrl) > args.queues else "")
        print("data:", ", ".join(_entry(e) for e in trace.data[: args.queues]),
              "..." if len(trace.data) > args.queues else "")
    program = Program.of(graph)
    result = program.run(tensors, engine=args.engine, fifo_depth=args.fifo_depth)
    check = None if result.interrupted else _check(args, result.outputs["Z"].to_dense(),
                                                   reference(args.op, A, B, X, blk=args.blk))
    report = build_report(result, program, graph_path=f"tmu --op {args.op}", inputs=tensors,
                          sources={"A": args.index}, checks=[check])
    print(format_text(report))
    if machine is not None and check is not None:
        from sam.dae.record import record

        tmu = next(b for b in graph.blocks.values() if b.dot_type == "tmu")
        ex = next(b for b in graph.blocks.values() if b.dot_type == "execute")
        trace = record(tmu.config, tensors, ex.program, engine=args.engine)
        print(machine_summary(time_on_machine(trace, machine, args.cores, args.engine),
                              machine))
    if check is None:  # Ctrl-C: the statistics so far, no check
        print("sam-sim: interrupted; the statistics above are partial", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0 if check["passed"] else EXIT_CHECK_FAILED


def _check(args: argparse.Namespace, got: Any, want: Any) -> dict[str, Any]:
    """The TMU's result against numpy/scipy's, as the report records it."""
    import numpy as np

    ok = got.shape == want.shape and np.allclose(got, want, rtol=1e-9, atol=1e-9)
    err = float(np.max(np.abs(np.where(np.isinf(want), 0, got - want)))) if ok and got.size \
        else None
    line = (f"check: passed (numpy/scipy {args.op}, max abs error {err or 0:.3g})" if ok
            else f"check: FAILED: the result differs from numpy/scipy {args.op}")
    return {"passed": ok, "line": line}


def _entry(e: Any) -> str:
    if isinstance(e, tuple):
        vals, mask = e
        return "[" + " ".join(f"{v:g}" if m else "_" for v, m in zip(vals, mask, strict=True)) + "]"
    return f"{e:g}"
