"""How fast the DAE machine model (sam/dae/simulate.py) times a large trace: a synthetic
SLS-like run (Ember Table 3 shape: random lookups into a 16K-row table, rows of 3 vectors of
16 floats), split over the paper machine's 8 cores.

Per lookup: a load of the index, then 3 dependent row-vector loads; pushes: a ``lookup``
token, the index and the segment as data, per vector an ``accumulate`` token with ``b``,
``e`` and the vector, and an ``end`` token: 4 loads and 16 pushes.

    PYTHONPATH=. python scripts/dae_speed.py [--loads 1000000] [--cores 8] [--engine fast]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sam.dae.machine import paper_machine
from sam.dae.simulate import simulate
from sam.dae.trace import CTRL, DATA, AccessTrace, ArrayInfo, SectionCost

ROWS, VECS, LANES = 16384, 3, 16


def sls_like(lookups: int, seed: int = 0) -> AccessTrace:
    """The trace of one core's ``lookups`` random lookups (module docstring)."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, ROWS, lookups)
    k = np.arange(lookups)
    # loads: [index, row vector 0, 1, 2] per lookup
    la = np.tile(np.array([0, 1, 1, 1], np.int16), lookups)
    lf = np.stack([k, *(idx * VECS * LANES + LANES * j for j in range(VECS))], 1).ravel()
    lc = np.tile(np.array([1, LANES, LANES, LANES], np.int32), lookups)
    ld = np.stack([np.full(lookups, -1), 4 * k, 4 * k, 4 * k], 1).ravel()
    # pushes: [lookup, idx, seg, (acc, b, e, val) x 3, end] per lookup
    per = 16
    pq = np.tile(np.array([CTRL, DATA, DATA] + [CTRL, DATA, DATA, DATA] * VECS + [CTRL],
                          np.int8), lookups)
    sec = np.tile(np.array([0, -1, -1] + [1, -1, -1, -1] * VECS + [2], np.int16), lookups)
    pdep = np.full((lookups, per), -1, np.int64)
    pdep[:, 1] = 4 * k
    for j in range(VECS):
        pdep[:, 3 + 4 * j + 3] = 4 * k + 1 + j
    lp = np.stack([per * k, *(per * k + 3 + 4 * j for j in range(VECS))], 1).ravel()
    pq = np.append(pq, np.int8(CTRL))
    sec = np.append(sec, np.int16(-1))
    pdep = np.append(pdep.ravel(), -1)
    nbytes = np.where(pq == DATA, 4, 1).astype(np.int32)
    nbytes[np.flatnonzero(pq == DATA)[3::4]] = 4 * LANES
    sections = [SectionCost("lookup", pops_scalar=2, alu_scalar=1),
                SectionCost("accumulate", pops_scalar=2, pops_vector=1, rmw_vector=1),
                SectionCost("end", alu_scalar=1)]
    return AccessTrace([ArrayInfo("idxs", 4, lookups, 0),
                        ArrayInfo("vals", 4, ROWS * VECS * LANES, 1 << 30)],
                       la, lf.astype(np.int64), lc, np.repeat(k, 4),
                       ld.astype(np.int32), lp.astype(np.int32), pq, nbytes,
                       pdep.astype(np.int32), sec, sections, vlen=LANES)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--loads", type=int, default=1_000_000, help="loads over all cores")
    ap.add_argument("--cores", type=int, default=8)
    ap.add_argument("--engine", default="fast")
    args = ap.parse_args()
    m = paper_machine().replace(cores=args.cores)
    t0 = time.perf_counter()
    traces = [sls_like(args.loads // 4 // args.cores, seed=c) for c in range(args.cores)]
    t1 = time.perf_counter()
    simulate([sls_like(8)], m, args.engine)  # load (or compile) the kernel
    t2 = time.perf_counter()
    r = simulate(traces, m, args.engine)
    t3 = time.perf_counter()
    loads = sum(t.loads for t in traces)
    pushes = sum(t.pushes for t in traces)
    c = r.cores[0]
    print(f"{args.cores} cores, {loads:,} loads, {pushes:,} pushes: build {t1 - t0:.2f} s, "
          f"kernel load/compile {t2 - t1:.2f} s, simulate {t3 - t2:.2f} s ({args.engine})")
    print(f"cycles {r.cycles:,}; core 0: busy {c.busy:,.0f}, stall-empty {c.stall_empty:,.0f}, "
          f"TMU full {c.stall_full:,.0f}, MSHR {c.stall_mshr:,.0f}; lines {c.lines:,}, L2 "
          f"{c.l2_hits:,}, LLC {c.llc_hits:,}, HBM {c.hbm_lines:,}")


if __name__ == "__main__":
    main()
