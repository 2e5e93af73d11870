"""``sam-sim reproduce``: the subcommand, registered with ``sam-sim`` through the entry point
group ``sam_sim.commands`` (pyproject.toml), since ``sam`` never imports this package."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from custard.reproduce import reproduce

    reproduce(args.name, Path(args.output), quick=args.quick, engine=args.engine,
              scheduler=args.scheduler, workers=args.workers,
              cache=Path(args.cache) if args.cache else None, use_cache=not args.no_cache,
              matrices=Path(args.matrices) if args.matrices else None, data=args.data,
              progress=not args.no_progress)
    return 0


REPRODUCE_EPILOG = """experiments:
  table1   SAM primitive counts of Table 1's expressions (Sec. 6.1)
  table2   Table 2's ablation: which TACO-website algorithms use each primitive (Sec. 6.2)
  fig11    SDDMM unfused, fused coiteration and fused iterate-locate (Sec. 6.3), on the
           artifact's data (--data artifact, default: vs the original's counts) or the
           paper's text (--data paper)
  fig12    SpM*SpM in six dataflow orders on Figure 12's data, vs the original (Sec. 6.3)
  fig13    coordinate skipping on x(i)=b(i)*c(i): urandom, runs, blocks (Sec. 6.5)
  fig14    stream token breakdown of X(i,j)=B(i,j) (Sec. 6.4) and the Sec. 3.8 token bound
  ragged   CoRa's ragged tensors: ragged vs padded dense vs compressed, loop/storage padding
  ember-opt  Ember's emb-opt0..3 on SLS for DLRM RM1-RM3 (Ember paper Sec. 8.1, Table 3)
  gogeta   GOGETA: DRAM traffic of block CG and GCN, op-by-op vs inter-operation reuse
  lanes    parallel lanes: Gustavson SpM*SpM (bcsstk13) and SpMV over 1-16 lanes (Sec. 4.4)
  mlir-fusion  the MLIR examples (SpMM, SDDMM+SpMM, GCN, BigBird attention): fused vs
           unfused cycles and memory traffic; BigBird beside FuseFlow's ~2.7x
  fig15    tiled Gustavson SpM*SpM on an ExTensor-like memory hierarchy (Sec. 6.4); by name
           only, not part of all: 3-4 minutes on 2 cores (the first run also draws the
           original's matrices once, a few minutes more), --quick seconds
  all      every experiment above but fig15

Each writes DIR/NAME.csv, DIR/NAME.png and DIR/NAME-claims.md (every claim of the paper's text
with our measured value and PASS/FAIL); DIR's parent folder must exist. Points run on a local
Dask cluster (one worker process per core, on 127.0.0.1) or on --scheduler ADDRESS, whose
workers must run this toolkit's code (checked before any point runs); each point's result is
cached under DIR/.cache, so an interrupted run (Ctrl-C, a lost scheduler) resumes. Times on a
2-core machine: docs/reproduce.md.

examples:
  sam-sim reproduce all -o results
  sam-sim reproduce fig14 --matrices ~/suitesparse      # the paper's 15 Table 3 matrices
  sam-sim reproduce fig12 --scheduler tcp://head:8786   # an existing Dask cluster
"""


def register(subparsers: Any) -> None:
    """Add ``reproduce`` to ``sam-sim``'s subcommands (``subparsers`` of argparse)."""
    p = subparsers.add_parser("reproduce", help="run one of the SAM paper's experiments (tables, "
                       "figures) and check its claims",
                       description="Reproduce an experiment of the SAM paper: write its data "
                       "(CSV), its picture (PNG) and its claims with our measured values and "
                       "PASS/FAIL (Markdown).",
                       epilog=REPRODUCE_EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    from custard.reproduce import BY_NAME, EXPERIMENTS

    p.add_argument("name", metavar="NAME", help=f"an experiment: {', '.join(EXPERIMENTS)}, "
                   f"{', '.join(BY_NAME)} (not part of all), or all (listed below)")
    p.add_argument("-o", "--output", default="reproduce-out", metavar="DIR",
                   help="folder for the results (default: reproduce-out)")
    p.add_argument("--quick", action="store_true",
                   help="a small version of each experiment (seconds; for tests and CI)")
    p.add_argument("--matrices", metavar="DIR", help="fig14: the .mtx files to analyse "
                   "(default: the shipped SuiteSparse matrices)")
    p.add_argument("--data", choices=("artifact", "paper"), help="fig11: the operands of the "
                   "original artifact's fusion study, whose counts the paper plots (B 250x100, "
                   "all-ones C and D; default), or of the paper's text (B 250x250, random C "
                   "and D)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler to run the points "
                   "on (e.g. tcp://host:8786); 'sync' runs them in this process (default: a "
                   "local cluster)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="workers of the local cluster (default: one per core)")
    p.add_argument("--cache", metavar="DIR", help="where results are cached per point "
                   "(default: DIR/.cache)")
    p.add_argument("--no-cache", action="store_true", help="compute every point again")
    p.add_argument("--engine", choices=("fast", "reference"), default="fast",
                   help="simulator engine (default: fast)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_reproduce)
