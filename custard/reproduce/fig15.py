"""Figure 15 (SAM paper Sec. 6.4, "Modeling Hardware with Finite Constraints"): tiled SpM*SpM
(Gustavson, ``X(i,j) = B(i,k) * C(k,j)`` in ``ikj``) on an ExTensor-like memory hierarchy
(:func:`sam.memory_model.extensor`: LLB tiles 2048x2048, PE tiles 128x128), for nnz in {5k, 10k,
25k, 50k} and dimension 1024..15720 in steps of 1336.

B is ``scipy.sparse.random(dim, dim, nnz / dim**2, random_state=0)`` as the original's script
makes it; C is B with its columns shifted by one (``j -> (j + 1) mod dim``), transposed. The PE
tile tuples ``(i0, k0, j0)`` whose B and C tiles are both nonempty are sequenced LLB tile by LLB
tile (what the tile-sequencing graph of :mod:`custard.tiling` yields). The PE runs them as one
pipeline, as the original's does (its blocks each take the next tile when done with their own,
so tiles overlap in the pipeline instead of filling and draining it one by one): one SAM
simulation of Gustavson over the stream of tuples, ``X(t,i,j) = B(t,i,k) * C(t,k,j)`` with the
tuple ``t`` as an outer dense level, C's rows located at B's coordinates (ExTensor's coordinate
skipping, :data:`PE_SCHEDULE`). Its cycles are shared among the steps in proportion to the
entries of each step's tiles (the split only decides which loads overlap which compute).

The tuples' loads and computations go through the memory model's timeline
(:mod:`sam.memory_model`, :mod:`sam.memory_timeline`): DRAM -> LLB and LLB -> PE buffer are
two channels working beside compute; an LLB tile is loaded once per run of PE tuples that use
it; n-buffering fills each level's capacity, as the original's buffers do, with pipelined
requests. Variants: no tile skipping (every tuple of the grid is loaded and scanned: the PE
pipeline runs every grid tuple, an empty tile as an empty fiber) and no n-buffering
(``buffers = 1``: load, compute, load).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from custard.reproduce.common import Claim, Outcome
from custard.sweeps.sweep import Point, Sweeper
from formats.errors import ToolkitError
from sam.command.files import write_npy

TITLE = "Tiled SpM*SpM on an ExTensor-like memory hierarchy (SAM paper Figure 15, Sec. 6.4)"
NNZ = (5_000, 10_000, 25_000, 50_000)
DIMS = tuple(range(1024, 15721, 1336))
QUICK_NNZ = (100, 200)
QUICK_DIMS = DIMS
#: largest tile grid (tuples) of the no-skipping variant in --quick
QUICK_MAX_DENSE = 300_000
MATMUL = "X(i,j)=B(i,k)*C(k,j)"
VARIANTS = ("skip+nbuf", "no skip", "no nbuf")


#: the largest dimension of the paper's sweep; larger ones are drawn another way (:func:`matrices`)
MAX_PAPER_DIM = DIMS[-1]
#: nonzeros of the largest matrix; the positions of any smaller one are a prefix of these
MAX_NNZ = 50_000


def positions_file(dim: int) -> Path:
    """Where the positions of :func:`_positions` are kept: ``$XDG_CACHE_HOME/sam-fig15`` (else
    ``~/.cache/sam-fig15``)."""
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sam-fig15"
    return root / f"positions-{dim}-{MAX_NNZ}.npy"


def _cached_positions(dim: int) -> np.ndarray | None:
    """The kept positions of ``dim``, or ``None`` when missing or not what they should be."""
    try:
        pos = np.load(positions_file(dim), allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    n = min(MAX_NNZ, dim * dim)
    if pos.shape != (n,) or pos.dtype != np.int64 or (n and not 0 <= pos.min() <=
                                                        pos.max() < dim * dim):
        return None
    return pos


@cache
def _positions(dim: int) -> np.ndarray:
    """Flat (column-major) positions of the first :data:`MAX_NNZ` nonzeros that
    ``scipy.sparse.random(dim, dim, density=nnz / dim**2, random_state=0)`` places, for every
    nnz: it draws ``RandomState(0).choice(dim**2, nnz, replace=False)``, which is
    ``permutation(dim**2)[:nnz]`` (the values drawn after it are not needed: Gustavson's cycles
    depend on the positions only). The permutation takes seconds to a minute and up to 2 GB at
    the paper's dimensions, so the prefix is kept on disk (:func:`positions_file`, written
    atomically; :func:`prepare` draws the missing ones with a progress bar)."""
    pos = _cached_positions(dim)
    if pos is not None:
        return pos
    n = min(MAX_NNZ, dim * dim)
    pos = np.random.RandomState(0).permutation(dim * dim)[:n].astype(np.int64)
    try:
        positions_file(dim).parent.mkdir(parents=True, exist_ok=True)
        write_npy(positions_file(dim), pos)
    except (OSError, ToolkitError):  # no cache: computed again next time
        pass
    return pos


def prepare(dims: Sequence[int], nnzs: Sequence[int], progress: bool = True) -> None:
    """Draw and keep the positions the full-size points need and the cache lacks, in this
    process, one dimension after the other, saying so and showing progress (minutes, once per
    machine), so that the sweep's workers find them."""
    need = [d for d in dims if d <= MAX_PAPER_DIM and any(n <= MAX_NNZ and n <= d * d
                                                          for n in nnzs)]
    missing = [d for d in need if _cached_positions(d) is None]
    if not missing:
        return
    import sys

    from tqdm import tqdm

    print(f"fig15: drawing the original's matrices for {len(missing)} dimension(s) once "
          f"(up to a few minutes; kept in {positions_file(0).parent})", file=sys.stderr,
          flush=True)
    for d in tqdm(missing, desc="fig15 matrices", unit="dim", file=sys.stderr, leave=False,
                  disable=None if progress else True):
        _positions(d)


def matrices(dim: int, nnz: int, exact: bool = True
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """COO rows/cols of B and C (see module docstring): B's nonzeros are where
    ``scipy.sparse.random(dim, dim, nnz / dim**2, random_state=0)`` puts them
    (``tests/test_fig15.py::test_matrices_as_the_original``). Beyond the paper's dimensions
    (``dim >`` :data:`MAX_PAPER_DIM`), where scipy's draw would need ``dim**2`` memory, and
    when not ``exact`` (``--quick``: milliseconds instead of a permutation of ``dim**2``), the
    positions are ``numpy.random.default_rng(0).choice(dim**2, nnz, replace=False)``: the same
    distribution (uniform without replacement), not the original's matrices."""
    if (not exact or dim > MAX_PAPER_DIM) and nnz <= MAX_NNZ and nnz <= dim * dim:
        pos = np.sort(np.random.default_rng(0).choice(dim * dim, nnz, replace=False))
        pos = pos.astype(np.int64)
        return _with_c(pos % dim, pos // dim, dim)
    if nnz > MAX_NNZ or nnz > dim * dim:
        import scipy.sparse as sp

        b = sp.random(dim, dim, density=nnz / dim**2, random_state=0, format="coo")
        br, bc = b.row.astype(np.int64), b.col.astype(np.int64)
    else:
        pos = _positions(dim)[:nnz]
        br, bc = pos % dim, pos // dim
    return _with_c(br, bc, dim)


def _with_c(br: np.ndarray, bc: np.ndarray, dim: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """B's coordinates and C's: B with columns shifted by one, transposed."""
    return br, bc, (bc + 1) % dim, br.copy()


#: The PE's graph: Gustavson over a *stream of tile tuples* ``t`` (an outer level), so one
#: simulation runs every PE tuple of a point through one pipeline, as the original keeps its PE
#: blocks running from tile to tile (each block takes the next tile when done with its own).
PE_EXPRESSION = "X(t,i,j)=B(t,i,k)*C(t,k,j)"
PE_FORMATS = {"X": "dss", "B": "dss", "C": "dss"}
#: ExTensor's coordinate skipping at the PE (Sec. 6.4: "hierarchical coordinate skipping"): B's
#: coordinates lead and C's rows are located (searched) instead of walked for every row of B;
#: ``"coiterate(C)"`` merges them as the original's script does (``Intersect2``; see
#: docs/timing-model.md, "Figure 15's PE")
PE_SCHEDULE = "locate(C)"


@cache
def _graph(schedule: str = PE_SCHEDULE) -> Any:
    from custard.api import compile as compile_expr

    return compile_expr(PE_EXPRESSION, PE_FORMATS, "tikj", schedule=schedule)


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``starts[s], starts[s] + 1, ..., starts[s] + counts[s] - 1`` for every ``s``, one after
    another."""
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    return np.arange(int(counts.sum()), dtype=np.int64) + np.repeat(starts - offsets, counts)


class _Tiles:
    """The nonempty ``pe`` x ``pe`` tiles of a COO matrix: entries sorted tile by tile."""

    def __init__(self, rows: np.ndarray, cols: np.ndarray, pe: int, g: int) -> None:
        tid = (rows // pe) * g + cols // pe
        order = np.lexsort((cols, rows, tid))
        self.rows, self.cols = rows[order] % pe, cols[order] % pe
        self.count = np.bincount(tid, minlength=g * g).astype(np.int64)
        self.start = np.concatenate([[0], np.cumsum(self.count)[:-1]]).astype(np.int64)
        self.g = g

    def entries(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For tile keys ``(a[s], b[s])``: the step of each entry and its index, step by step."""
        tid = a * self.g + b
        counts = self.count[tid]
        step = np.repeat(np.arange(len(tid), dtype=np.int64), counts)
        return step, _ranges(self.start[tid], counts)


def pe_operands(tuples: np.ndarray, bt: _Tiles, ct: _Tiles, pe: int) -> dict[str, Any]:
    """``B(t,i,k)`` and ``C(t,k,j)``: the tiles of PE tuple ``t = (i0, k0, j0)`` under an outer
    dense level ``t`` (a missing tile is an empty fiber, scanned as the PE would scan it).
    Values are 1: Gustavson's cycles depend on the positions only (products of positive values
    are never dropped)."""
    from formats.tensor import Tensor

    n = max(len(tuples), 1)
    sb, eb = bt.entries(tuples[:, 0], tuples[:, 1])
    sc, ec = ct.entries(tuples[:, 1], tuples[:, 2])
    b = np.stack([sb, bt.rows[eb], bt.cols[eb]], axis=1)
    c = np.stack([sc, ct.rows[ec], ct.cols[ec]], axis=1)
    return {"B": Tensor.from_coo(b, np.ones(len(b)), (n, pe, pe), PE_FORMATS["B"]),
            "C": Tensor.from_coo(c, np.ones(len(c)), (n, pe, pe), PE_FORMATS["C"])}


def pe_cycles(tuples: np.ndarray, bt: _Tiles, ct: _Tiles, pe: int, engine: str,
              schedule: str = PE_SCHEDULE) -> int:
    """Cycles of the PE pipeline over ``tuples`` in order (one simulation, cycles only)."""
    from sam.sim.engine import Simulation

    graph = _graph(schedule)
    return Simulation(graph, pe_operands(tuples, bt, ct, pe)).run_cycles(engine)


def apportion(total: int, weights: np.ndarray) -> np.ndarray:
    """``total`` cycles split over steps in proportion to ``weights`` (integers summing to
    ``total``): the memory timeline needs each step's compute, the pipeline gives their sum."""
    cum = np.cumsum(weights.astype(np.int64))
    if len(cum) == 0:
        return np.zeros(0, np.int64)
    edges = (total * cum) // max(int(cum[-1]), 1)
    return np.diff(np.concatenate([[0], edges])).astype(np.int64)


def _steps(tuples: np.ndarray, r: int, bnnz: np.ndarray, cnnz: np.ndarray, bl: np.ndarray,
           cl: np.ndarray, skip: bool, hier: Any) -> tuple:
    """The memory timeline's load arrays for ``tuples`` (PE tile tuples (i0, k0, j0), LLB-major
    order): a tile is loaded when an operand's tile changes (not with ``skip`` if empty)."""
    llb, pe = hier.levels
    i0, k0, j0 = tuples[:, 0], tuples[:, 1], tuples[:, 2]
    li, lk, lj = i0 // r, k0 // r, j0 // r

    def changed(*cols: np.ndarray) -> np.ndarray:
        out = np.zeros(len(tuples), bool)
        out[0:1] = True
        for c in cols:
            out[1:] |= c[1:] != c[:-1]
        return out

    keys = [(llb, (li, lk), bl[li, lk], llb.tile[0]), (llb, (lk, lj), cl[lk, lj], llb.tile[0]),
            (pe, (i0, k0), bnnz[i0, k0], pe.tile[0]), (pe, (k0, j0), cnnz[k0, j0], pe.tile[0])]
    need, cyc, nbytes = [], [], []
    for lv, cols, z, rows in keys:
        m = changed(*cols)
        if skip:
            m &= z > 0
        by = hier.bytes_per_element * (2 * z + 2 * np.minimum(z, rows) + 3)
        need.append(m)
        nbytes.append(by)
        cyc.append(np.ceil(by / lv.bandwidth).astype(np.int64))
    need_a = np.stack(need, axis=1)  # (S, 4): LLB B, LLB C, PE B, PE C
    counts = np.stack([need_a[:, 0].astype(np.int64) + need_a[:, 1],
                       need_a[:, 2].astype(np.int64) + need_a[:, 3]], axis=1).ravel()
    lptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    lop = np.tile(np.array([0, 1, 0, 1]), (len(tuples), 1))[need_a]
    lx = np.stack(cyc, axis=1)[need_a]
    lbytes = np.stack(nbytes, axis=1)[need_a].astype(np.int64)
    group = np.stack([changed(li, lk, lj), changed(i0, k0, j0)]).astype(np.int64)
    outnew = np.stack([changed(li, lj), changed(i0, j0)]).astype(np.int64)
    allb = np.stack(nbytes, axis=1)
    stats = {"llb_bytes": int((allb[:, :2] * need_a[:, :2]).sum()),
             "pe_bytes": int((allb[:, 2:] * need_a[:, 2:]).sum()),
             "llb_loads": int(need_a[:, :2].sum()), "pe_loads": int(need_a[:, 2:].sum())}
    return (group, lptr, lop.astype(np.int64), lx.astype(np.int64), lbytes, outnew), stats


def _total(hier: Any, compute: np.ndarray, arrays: tuple, buffers: int | None) -> int:
    from sam.memory_timeline import timeline_fast

    group, lptr, lop, lx, lbytes, outnew = arrays
    nlev = len(hier.levels)
    return timeline_fast(compute.astype(np.int64), group, lptr, lop, lx, lbytes, outnew,
                         np.zeros_like(outnew), np.zeros(nlev, np.int64),
                         np.array([lv.latency for lv in hier.levels], np.int64),
                         np.array([lv.capacity_bytes for lv in hier.levels], np.int64), 2,
                         0 if buffers is None else buffers)


def point(p: Point) -> dict[str, Any]:
    """One (nnz, dim): the three variants' cycles. The PE tuples of a variant, in LLB-major
    order, run through one PE pipeline (:func:`pe_cycles`); its cycles are shared among the
    steps by the entries each step's tiles hold (:func:`apportion`) and go through the memory
    model's timeline over arrays (:mod:`sam.memory_timeline`) with the loads."""
    from sam.memory_model import extensor

    start = time.perf_counter()
    hier = extensor()
    llb, pe = hier.level("LLB").tile[0], hier.level("PE").tile[0]
    r = llb // pe
    dim, engine = p["dim"], p["engine"]
    br, bc, cr, cc = matrices(dim, p["nnz"], exact=p.get("data") != "quick")
    g = -(-dim // pe)
    gl = -(-dim // llb)
    bt, ct = _Tiles(br, bc, pe, g), _Tiles(cr, cc, pe, g)
    bnnz, cnnz = bt.count.reshape(g, g), ct.count.reshape(g, g)
    bl = np.zeros((gl, gl), np.int64)
    cl = np.zeros((gl, gl), np.int64)
    np.add.at(bl, (br // llb, bc // llb), 1)
    np.add.at(cl, (cr // llb, cc // llb), 1)

    def order(t: np.ndarray) -> np.ndarray:
        return t[np.lexsort((t[:, 2], t[:, 1], t[:, 0], t[:, 2] // r, t[:, 1] // r,
                             t[:, 0] // r))]

    def compute(t: np.ndarray) -> tuple[int, np.ndarray]:
        total = pe_cycles(t, bt, ct, pe, engine, p.get("pe", PE_SCHEDULE))
        return total, apportion(total, 1 + bnnz[t[:, 0], t[:, 1]] + cnnz[t[:, 1], t[:, 2]])

    ib, kb = np.nonzero(bnnz)
    kc, jc = np.nonzero(cnnz)
    crow = np.concatenate([[0], np.cumsum(np.bincount(kc, minlength=g))]).astype(np.int64)
    reps = crow[kb + 1] - crow[kb]
    jidx = _ranges(crow[kb], reps)
    sparse = order(np.stack([np.repeat(ib, reps), np.repeat(kb, reps), jc[jidx]], axis=1)
                   .astype(np.int64).reshape(-1, 3))
    total, comp = compute(sparse)
    out: dict[str, Any] = {"tuples": len(sparse)}
    arrays, stats = _steps(sparse, r, bnnz, cnnz, bl, cl, True, hier)
    out.update(stats)
    out["compute"] = total
    out["skip+nbuf"] = _total(hier, comp, arrays, None)
    out["no nbuf"] = _total(hier, comp, arrays, 1)
    if g**3 <= p.get("max_dense", 2_000_000):
        dense = order(np.stack(np.meshgrid(np.arange(g), np.arange(g), np.arange(g),
                                           indexing="ij"), axis=-1).reshape(-1, 3))
        dtotal, dcomp = compute(dense)
        darrays, _ = _steps(dense, r, bnnz, cnnz, bl, cl, False, hier)
        out["no skip"] = _total(hier, dcomp, darrays, None)
        out["no skip compute"] = dtotal
    out["wall_s"] = time.perf_counter() - start
    return out


def run(sweeper: Sweeper, *, quick: bool, engine: str, **_: Any) -> Outcome:
    nnzs, dims = (QUICK_NNZ, QUICK_DIMS) if quick else (NNZ, DIMS)
    points = [{"nnz": n, "dim": d, "engine": engine, "pe": PE_SCHEDULE,
               "max_dense": QUICK_MAX_DENSE if quick else 2_000_000} for n in nnzs for d in dims]
    if quick:  # quick-sized data: drawn in milliseconds, no matrix cache
        points = [{**p, "data": "quick"} for p in points]
    else:
        prepare(sorted({p["dim"] for p in sweeper.todo(point, points)}), nnzs, sweeper.progress)
    start = time.perf_counter()
    results = sweeper.run(point, points, "fig15")
    wall = time.perf_counter() - start
    by = {(p["nnz"], p["dim"]): r for p, r in zip(points, results, strict=True)}
    rows = [{"series": f"nnz={n} {v}", "x": d, "cycles": by[(n, d)].get(v), "nnz": n,
             "variant": v, "tuples": by[(n, d)]["tuples"], "compute": by[(n, d)]["compute"],
             "llb_bytes": by[(n, d)]["llb_bytes"], "pe_bytes": by[(n, d)]["pe_bytes"]}
            for n in nnzs for d in dims for v in VARIANTS]

    def curve(n: int, v: str = "skip+nbuf") -> list[int]:
        return [by[(n, d)][v] for d in dims]

    claims = []
    for n in nnzs:
        cyc = curve(n)
        peak = int(np.argmax(cyc))
        rises = peak > 0 and cyc[peak] > cyc[0]
        falls = peak < len(cyc) - 1 and cyc[-1] <= 0.9 * cyc[peak]  # a real fall: >= 10%
        tail = cyc[-3:]
        flat = len(tail) == 3 and (max(tail) - min(tail)) <= 0.25 * cyc[peak]
        claims.append(Claim.check(
            "6.4", f"nnz={n}: cycles rise with dimension, then fall (tile skipping), then "
            "flatten", f"peak {cyc[peak]:,} at dim {dims[peak]}; first {cyc[0]:,}, last "
            f"{cyc[-1]:,}; last three within {max(tail) - min(tail):,}",
            rises and falls and flat))
    more = all(by[(a, d)]["skip+nbuf"] <= by[(b, d)]["skip+nbuf"]
               for a, b in zip(nnzs, nnzs[1:], strict=False) for d in dims)
    claims.append(Claim.check("6.4", "at each dimension, more nonzeros take more cycles",
                              "checked at every dimension", more))
    # the falling part is where the skipping curve falls after its peak; before it (every
    # tile nonempty at the first dimensions) both variants are the same runs
    falling = {n: [d for d in dims[int(np.argmax(curve(n))):] if by[(n, d)].get("no skip")
                   is not None] for n in nnzs}
    steps = [(by[(n, a)]["no skip"], by[(n, b)]["no skip"]) for n in nnzs
             for a, b in zip(falling[n], falling[n][1:], strict=False)]
    removed = all(b >= a for a, b in steps)
    shared = [n for n in nnzs if by[(n, dims[1])].get("no skip") is not None
              and by[(n, dims[1])]["no skip"] < by[(n, dims[0])]["no skip"]]
    claims.append(Claim.check(
        "6.4", "turning off tile skipping removes the falling part",
        f"after each skipping curve's peak the no-skipping curve never falls ({len(steps)} "
        f"steps up to the no-skipping grid limit; non-decreasing: {removed})"
        + (f"; both variants dip from dim {dims[0]} to {dims[1]} at nnz "
           f"{', '.join(map(str, shared))} (every tile nonempty: the same runs)" if shared
           else ""), len(steps) >= 2 and removed))
    costs = all(by[k]["no nbuf"] > by[k]["skip+nbuf"] for k in by)
    low = all(r["skip+nbuf"] >= max(r["llb_bytes"] / 68.256, r["pe_bytes"] / 256, r["compute"])
              for r in by.values())
    claims.append(Claim.check("6.4", "cycles >= the bytes/bandwidth bound of each level and "
                              ">= compute", "checked at every point", low))
    claims.append(Claim.check("6.4", "turning off n-buffering costs cycles",
                              "no-n-buffering cycles > n-buffered at every point", costs))
    notes = [f"sweep of {len(points)} points: {wall:.1f} s ({sweeper.describe()})"]

    def draw(path: Any) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4.2))
        for n in nnzs:
            line = ax.plot(dims, curve(n), marker="o", label=f"nnz={n:,}")[0]
            ds = [d for d in dims if by[(n, d)].get("no skip") is not None]
            ax.plot(ds, [by[(n, d)]["no skip"] for d in ds], ls="--", color=line.get_color(),
                    alpha=0.6)
        ax.set_xlabel("matrix dimension")
        ax.set_ylabel("cycles")
        ax.set_yscale("log")
        ax.set_title("Tiled Gustavson SpM*SpM, ExTensor-like hierarchy\n(dashed: no tile "
                     "skipping)", fontsize=10)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)

    return Outcome(TITLE, rows, claims, draw, notes)
