"""Figure 15 (SAM paper Sec. 6.4, "Modeling Hardware with Finite Constraints"): tiled SpM*SpM
(Gustavson, ``X(i,j) = B(i,k) * C(k,j)`` in ``ikj``) on an ExTensor-like memory hierarchy
(:func:`sam.memory_model.extensor`: LLB tiles 2048x2048, PE tiles 128x128), for nnz in {5k, 10k,
25k, 50k} and dimension 1024..15720 in steps of 1336.

B is ``scipy.sparse.random(dim, dim, nnz / dim**2, random_state=0)`` as the original's script
makes it; C is B with its columns shifted by one (``j -> (j + 1) mod dim``), transposed. The PE
tile tuples ``(i0, k0, j0)`` whose B and C tiles are both nonempty are sequenced LLB tile by LLB
tile (what the tile-sequencing graph of :mod:`custard.tiling` yields); each tuple's compute cycles
come from a SAM simulation of the per-tile Gustavson graph. Simulations are cached by the tile
pair's *canonical content*: Gustavson over compressed levels sees only the order of coordinates,
so the pair with rows, inner coordinates and columns renumbered by rank simulates alike (the
cache turns most of the ~10^6 tuples of a point into look-ups). Variants: no tile skipping
(every tuple of the grid is loaded and scanned) and no n-buffering (``buffers = 1``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
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


def matrices(dim: int, nnz: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """COO rows/cols of B and C (see module docstring)."""
    import scipy.sparse as sp

    b = sp.random(dim, dim, density=nnz / dim**2, random_state=0, format="coo")
    c = sp.coo_matrix((b.data, (b.row, (b.col + 1) % dim)), shape=(dim, dim)).T.tocoo()
    return b.row.astype(np.int64), b.col.astype(np.int64), c.row.astype(np.int64), \
        c.col.astype(np.int64)


@cache
def _graph() -> Any:
    from custard.api import compile as compile_expr

    return compile_expr(MATMUL, {"X": "ss", "B": "ss", "C": "ss"}, "ikj")


def _simulate(b: np.ndarray, c: np.ndarray, engine: str) -> int:
    """Cycles of the per-tile graph on canonical tiles (rows: (i, k) and (k, j))."""
    from formats.tensor import Tensor
    from sam.sim.engine import simulate

    def tensor(coords: np.ndarray) -> Tensor:
        shape = tuple(int(x) + 1 for x in coords.max(axis=0)) if len(coords) else (1, 1)
        return Tensor.from_coo(coords, np.ones(len(coords)), shape, "ss")

    tb, tc = tensor(b), tensor(c)
    k = max(tb.shape[1], tc.shape[0])
    tb = type(tb).from_coo(b, np.ones(len(b)), (tb.shape[0], k), "ss")
    tc = type(tc).from_coo(c, np.ones(len(c)), (k, tc.shape[1]), "ss")
    return int(simulate(_graph(), {"B": tb, "C": tc}, engine=engine).cycles)


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


def point(p: Point) -> dict[str, Any]:
    """One (nnz, dim): the three variants' cycles through the memory model."""
    from sam.memory_model import Step, TileUse, extensor, run_memory

    start = time.perf_counter()
    hier = extensor()
    llb, pe = hier.level("LLB").tile[0], hier.level("PE").tile[0]
    r = llb // pe
    dim, engine = p["dim"], p["engine"]
    br, bc, cr, cc = matrices(dim, p["nnz"])
    bt, ct = _tiles(br, bc, pe), _tiles(cr, cc, pe)
    bl, cl = _tiles(br, bc, llb), _tiles(cr, cc, llb)
    g = -(-dim // pe)
    by_k_b: dict[int, list[int]] = {}
    by_k_c: dict[int, list[int]] = {}
    for i0, k0 in bt:
        by_k_b.setdefault(k0, []).append(i0)
    for k0, j0 in ct:
        by_k_c.setdefault(k0, []).append(j0)
    cycles: dict[bytes, int] = {}
    empty_cycles = _simulate(np.zeros((0, 2), np.int64), np.zeros((0, 2), np.int64), engine)

    def compute(i0: int, k0: int, j0: int) -> int:
        eb, ec = bt.get((i0, k0)), ct.get((k0, j0))
        if eb is None or ec is None:
            return empty_cycles
        key, b, c = _canonical(br[eb] % pe, bc[eb] % pe, cr[ec] % pe, cc[ec] % pe)
        got = cycles.get(key)
        if got is None:
            got = cycles[key] = _simulate(b, c, engine)
        return got

    def use(tiles: dict, key: tuple[int, int], size: int) -> TileUse:
        z = len(tiles.get(key, ()))
        return TileUse(key, hier.tile_bytes(z, size), z)

    def tuples(dense: bool) -> list[tuple[int, int, int]]:
        if dense:
            out = [(i, k, j) for i in range(g) for k in range(g) for j in range(g)]
        else:
            out = [(i, k, j) for k in by_k_b for i in by_k_b[k] for j in by_k_c.get(k, ())]
        out.sort(key=lambda t: (t[0] // r, t[1] // r, t[2] // r, t))
        return out

    def steps(seq: list[tuple[int, int, int]]) -> Iterator[Step]:
        for i0, k0, j0 in seq:
            li, lk, lj = i0 // r, k0 // r, j0 // r
            yield Step({"LLB": {"B": use(bl, (li, lk), llb), "C": use(cl, (lk, lj), llb)},
                        "PE": {"B": use(bt, (i0, k0), pe), "C": use(ct, (k0, j0), pe)}},
                       comp[(i0, k0, j0)],
                       {"LLB": TileUse((li, lj), 0, 0), "PE": TileUse((i0, j0), 0, 0)})

    sparse = tuples(False)
    comp = {t: compute(*t) for t in sparse}
    out: dict[str, Any] = {"tuples": len(sparse), "distinct_tiles": len(cycles)}
    rep = run_memory(hier, steps(sparse), skip_empty=True, buffers=2, record=False)
    out["skip+nbuf"] = rep.total_cycles
    out["compute"] = rep.compute_cycles
    out["llb_bytes"] = rep.levels["LLB"].bytes_loaded
    out["pe_bytes"] = rep.levels["PE"].bytes_loaded
    out["no nbuf"] = run_memory(hier, steps(sparse), skip_empty=True, buffers=1,
                                record=False).total_cycles
    dense = tuples(True) if g**3 <= p.get("max_dense", 2_000_000) else None
    if dense is not None:
        comp.update({t: compute(*t) for t in dense if t not in comp})
        out["no skip"] = run_memory(hier, steps(dense), skip_empty=False, buffers=2,
                                    record=False).total_cycles
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
