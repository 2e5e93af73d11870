"""``sam-sim tmu``: run one of Ember's Table 1 embedding operations on a TMU + execute graph
(:mod:`sam.tmu_ops`), print the report and compare the result with numpy/scipy.

::

    sam-sim tmu --op sls -A west0479 --dim 32 --lanes 8 --fifo-depth 8
    sam-sim tmu --op gather -A random:0.1:3:20x30 --blk 2 --queues 12
    sam-sim tmu --op sls --dot sls.gv          # write the graph; run it with sam-sim run
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
    p.set_defaults(func=run_tmu_command)


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
    inputs = [args.index] if Path(args.index).is_file() else []
    check_outputs({"--dot": args.dot}, inputs, {"--dot": (".gv", ".dot")})


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
