"""Figure 15 (SAM paper Sec. 6.4, "Modeling Hardware with Finite Constraints"): tiled SpM*SpM
(Gustavson, ``X(i,j) = B(i,k) * C(k,j)`` in ``ikj``) on an ExTensor-like memory hierarchy
(:func:`sam.memory_model.extensor`: LLB tiles 2048x2048, PE tiles 128x128), for nnz in {5k, 10k,
25k, 50k} and dimension 1024..15720 in steps of 1336.

B is ``scipy.sparse.random(dim, dim, nnz / dim**2, random_state=0)`` as the original's script
makes it; C is B with its columns shifted by one (``j -> (j + 1) mod dim``), transposed. The PE
tile tuples ``(i0, k0, j0)`` whose B and C tiles are both nonempty are sequenced LLB tile by LLB
tile (what the tile-sequencing graph of :mod:`custard.tiling` yields); each tuple's compute cycles
come from a SAM simulation of the per-tile Gustavson graph (one elaborated simulation rebound
to each pair, cycles only). Simulations are cached by the tile pair's *canonical content*:
Gustavson over compressed levels sees only the order of coordinates, so the pair with rows,
inner coordinates and columns renumbered by rank simulates alike (at large dimensions, where
tiles hold a few nonzeros, most tuples become look-ups; at middle dimensions nearly every pair
is distinct).

The tuples' loads and computations go through the memory model's timeline
(:mod:`sam.memory_model`, :mod:`sam.memory_timeline`): DRAM -> LLB and LLB -> PE buffer are
two channels working beside compute; an LLB tile is loaded once per run of PE tuples that use
it; n-buffering fills each level's capacity, as the original's buffers do, with pipelined
requests. Variants: no tile skipping (every tuple of the grid is loaded and scanned; a tuple
with an empty tile costs the per-tile graph's cycles on empty tiles) and no n-buffering
(``buffers = 1``: load, compute, load).
"""

from __future__ import annotations

import time
from functools import cache
from typing import Any

import numpy as np

from custard.reproduce.common import Claim, Outcome
from custard.reproduce.sweep import Point, Sweeper

TITLE = "Tiled SpM*SpM on an ExTensor-like memory hierarchy (SAM paper Figure 15, Sec. 6.4)"
NNZ = (5_000, 10_000, 25_000, 50_000)
DIMS = tuple(range(1024, 15721, 1336))
QUICK_NNZ = (100, 200)
QUICK_DIMS = DIMS
#: largest tile grid (tuples) of the no-skipping variant in --quick
QUICK_MAX_DENSE = 300_000
MATMUL = "X(i,j)=B(i,k)*C(k,j)"
VARIANTS = ("skip+nbuf", "no skip", "no nbuf")


#: nonzeros of the largest matrix; the positions of any smaller one are a prefix of these
MAX_NNZ = 50_000


@cache
def _positions(dim: int) -> np.ndarray:
    """Flat (column-major) positions of the first :data:`MAX_NNZ` nonzeros that
    ``scipy.sparse.random(dim, dim, density=nnz / dim**2, random_state=0)`` places, for every
    nnz: it draws ``RandomState(0).choice(dim**2, nnz, replace=False)``, which is
    ``permutation(dim**2)[:nnz]`` (the values drawn after it are not needed: Gustavson's cycles
    depend on the positions only). The permutation takes minutes and gigabytes at dim 15720, so
    the prefix is kept on disk (``$XDG_CACHE_HOME/sam-fig15``)."""
    import os
    from pathlib import Path

    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sam-fig15"
    path = root / f"positions-{dim}-{MAX_NNZ}.npy"
    try:
        return np.load(path)
    except (OSError, ValueError):
        pass
    n = min(MAX_NNZ, dim * dim)
    pos = np.random.RandomState(0).permutation(dim * dim)[:n].astype(np.int64)
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(tmp, pos)
        tmp.replace(path)
    except OSError:
        pass
    return pos


def matrices(dim: int, nnz: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """COO rows/cols of B and C (see module docstring): B's nonzeros are where
    ``scipy.sparse.random(dim, dim, nnz / dim**2, random_state=0)`` puts them
    (``tests/test_fig15.py::test_matrices_as_the_original``)."""
    if nnz > MAX_NNZ or nnz > dim * dim:
        import scipy.sparse as sp

        b = sp.random(dim, dim, density=nnz / dim**2, random_state=0, format="coo")
        br, bc = b.row.astype(np.int64), b.col.astype(np.int64)
    else:
        pos = _positions(dim)[:nnz]
        br, bc = pos % dim, pos // dim
    return br, bc, (bc + 1) % dim, br.copy()


@cache
def _graph() -> Any:
    from custard.api import compile as compile_expr

    return compile_expr(MATMUL, {"X": "ss", "B": "ss", "C": "ss"}, "ikj")


_SIMS: dict[str, Any] = {}
#: canonical tile pair -> cycles, kept across the points a process runs
_CACHE: dict[tuple[str, bytes], int] = {}


def _simulate(b: np.ndarray, c: np.ndarray, engine: str) -> int:
    """Cycles of the per-tile graph on canonical tiles (rows: (i, k) and (k, j)). One
    elaborated :class:`~sam.sim.engine.Simulation` per engine is rebound to each pair and run
    for its cycle count only (the same cycles as ``simulate``; no statistics or outputs)."""
    from formats.tensor import Tensor
    from sam.sim.engine import Simulation

    ni = int(b[:, 0].max()) + 1 if len(b) else 1
    nj = int(c[:, 1].max()) + 1 if len(c) else 1
    nk = max(int(b[:, 1].max()) + 1 if len(b) else 1, int(c[:, 0].max()) + 1 if len(c) else 1)
    tensors = {"B": Tensor.from_coo(b, np.ones(len(b)), (ni, nk), "ss"),
               "C": Tensor.from_coo(c, np.ones(len(c)), (nk, nj), "ss")}
    sim = _SIMS.get(engine)
    if sim is None:
        sim = _SIMS[engine] = Simulation(_graph(), tensors, capacity=256)
    else:
        sim.rebind(tensors)
    return sim.run_cycles(engine)


def _canonical(bi: np.ndarray, bk: np.ndarray, ck: np.ndarray, cj: np.ndarray
               ) -> tuple[bytes, np.ndarray, np.ndarray]:
    ks = np.unique(np.concatenate([bk, ck]))
    b = np.stack([np.unique(bi, return_inverse=True)[1], np.searchsorted(ks, bk)], axis=1)
    c = np.stack([np.searchsorted(ks, ck), np.unique(cj, return_inverse=True)[1]], axis=1)
    b = b[np.lexsort(b.T[::-1])]
    c = c[np.lexsort(c.T[::-1])]
    key = len(b).to_bytes(4, "little") + b.astype(np.int32).tobytes() + c.astype(np.int32).tobytes()
    return key, b, c


def _tiles(rows: np.ndarray, cols: np.ndarray, t: int) -> dict[tuple[int, int], np.ndarray]:
    """Entry indices of each nonempty tile."""
    tr, tcl = rows // t, cols // t
    order = np.lexsort((cols, rows, tcl, tr))
    keys = np.stack([tr[order], tcl[order]], axis=1)
    starts = np.flatnonzero(np.r_[True, (keys[1:] != keys[:-1]).any(axis=1)])
    ends = np.r_[starts[1:], len(order)]
    return {(int(keys[a, 0]), int(keys[a, 1])): order[a:e] for a, e in zip(starts, ends,
                                                                          strict=True)}


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
    """One (nnz, dim): the three variants' cycles through the memory model
    (:mod:`sam.memory_model`; its timeline over arrays, :mod:`sam.memory_timeline`)."""
    from sam.memory_model import extensor

    start = time.perf_counter()
    hier = extensor()
    llb, pe = hier.level("LLB").tile[0], hier.level("PE").tile[0]
    r = llb // pe
    dim, engine = p["dim"], p["engine"]
    br, bc, cr, cc = matrices(dim, p["nnz"])
    bt, ct = _tiles(br, bc, pe), _tiles(cr, cc, pe)
    g = -(-dim // pe)
    gl = -(-dim // llb)
    bnnz = np.zeros((g, g), np.int64)
    cnnz = np.zeros((g, g), np.int64)
    np.add.at(bnnz, (br // pe, bc // pe), 1)
    np.add.at(cnnz, (cr // pe, cc // pe), 1)
    bl = np.zeros((gl, gl), np.int64)
    cl = np.zeros((gl, gl), np.int64)
    np.add.at(bl, (br // llb, bc // llb), 1)
    np.add.at(cl, (cr // llb, cc // llb), 1)
    by_k_c: dict[int, list[int]] = {}
    for k0, j0 in sorted(ct):
        by_k_c.setdefault(k0, []).append(j0)
    empty_cycles = _simulate(np.zeros((0, 2), np.int64), np.zeros((0, 2), np.int64), engine)
    sims = 0

    def compute(i0: int, k0: int, j0: int) -> int:
        nonlocal sims
        eb, ec = bt.get((i0, k0)), ct.get((k0, j0))
        if eb is None or ec is None:
            return empty_cycles
        key, b, c = _canonical(br[eb] % pe, bc[eb] % pe, cr[ec] % pe, cc[ec] % pe)
        got = _CACHE.get((engine, key))
        if got is None:
            got = _CACHE[(engine, key)] = _simulate(b, c, engine)
            sims += 1
        return got

    def order(t: np.ndarray) -> np.ndarray:
        return t[np.lexsort((t[:, 2], t[:, 1], t[:, 0], t[:, 2] // r, t[:, 1] // r,
                             t[:, 0] // r))]

    sparse = order(np.array([(i, k, j) for i, k in bt for j in by_k_c.get(k, ())],
                            np.int64).reshape(-1, 3))
    comp = np.array([compute(*map(int, t)) for t in sparse], np.int64)
    out: dict[str, Any] = {"tuples": len(sparse), "simulated": sims}
    arrays, stats = _steps(sparse, r, bnnz, cnnz, bl, cl, True, hier)
    out.update(stats)
    out["compute"] = int(comp.sum())
    out["skip+nbuf"] = _total(hier, comp, arrays, None)
    out["no nbuf"] = _total(hier, comp, arrays, 1)
    if g**3 <= p.get("max_dense", 2_000_000):
        dense = order(np.stack(np.meshgrid(np.arange(g), np.arange(g), np.arange(g),
                                           indexing="ij"), axis=-1).reshape(-1, 3))
        meet = (bnnz[dense[:, 0], dense[:, 1]] > 0) & (cnnz[dense[:, 1], dense[:, 2]] > 0)
        cd = np.full(len(dense), empty_cycles, np.int64)
        cd[meet] = [compute(*map(int, t)) for t in dense[meet]]
        darrays, _ = _steps(dense, r, bnnz, cnnz, bl, cl, False, hier)
        out["no skip"] = _total(hier, cd, darrays, None)
    out["wall_s"] = time.perf_counter() - start
    return out


def run(sweeper: Sweeper, *, quick: bool, engine: str, **_: Any) -> Outcome:
    nnzs, dims = (QUICK_NNZ, QUICK_DIMS) if quick else (NNZ, DIMS)
    points = [{"nnz": n, "dim": d, "engine": engine,
               "max_dense": QUICK_MAX_DENSE if quick else 2_000_000} for n in nnzs for d in dims]
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
    have = [d for d in dims if all(by[(n, d)].get("no skip") is not None for n in nnzs)]
    noskip = [[by[(n, d)]["no skip"] for d in have] for n in nnzs]
    monotone = all(all(b >= a for a, b in zip(c, c[1:], strict=False)) for c in noskip)
    claims.append(Claim.check(
        "6.4", "without tile skipping the curves no longer fall",
        f"dims {have[0] if have else '-'}..{have[-1] if have else '-'} (grids up to the "
        f"no-skipping limit); non-decreasing: {monotone}", len(have) >= 3 and monotone))
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
