"""Figure 15's experiment (custard.reproduce.fig15): data, the PE pipeline, variants."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custard.reproduce import fig15
from sam.graph.dot import dumps, loads
from sam.sim.engine import simulate


@pytest.mark.parametrize(("dim", "nnz"), [(300, 900), (211, 5000), (1024, 100)])
def test_matrices_off_the_sweep_as_scipy_random(dim: int, nnz: int) -> None:
    """Off the original's sweep (``fig15.SEQUENCE``, whose matrices one generator draws in
    turn: tests/test_fig15_original.py), B is ``scipy.sparse.random(..., random_state=0)``."""
    import scipy.sparse as sp

    assert (nnz, dim) not in fig15.SEQUENCE

    br, bc, cr, cc = fig15.matrices(dim, nnz)
    ref = sp.random(dim, dim, density=nnz / dim**2, random_state=0, format="coo")
    assert np.array_equal(br, ref.row) and np.array_equal(bc, ref.col)
    assert len(br) == nnz
    # C = B with columns shifted by one, transposed
    b = {(int(r), int(c)) for r, c in zip(br, bc, strict=True)}
    c = {(int(r), int(c)) for r, c in zip(cr, cc, strict=True)}
    assert c == {((j + 1) % dim, i) for i, j in b}


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_pe_pipeline_computes_each_tuple(engine: str) -> None:
    """The PE's stream of tile tuples computes, for every tuple, its B tile times its C tile
    (a tuple with an empty tile gives nothing); both engines, the same cycles."""
    rng = np.random.default_rng(5)
    pe, g = 8, 4
    rows, cols = np.divmod(rng.choice(g * pe * g * pe, 60, replace=False), g * pe)
    bt = fig15._Tiles(rows, cols, pe, g)
    ct = fig15._Tiles(cols, rows, pe, g)
    tuples = rng.integers(0, g, (25, 3))
    ops = fig15.pe_operands(tuples, bt, ct, pe)
    res = simulate(fig15._graph(), ops, engine=engine)

    def dense(tiles: fig15._Tiles, a: int, b: int) -> np.ndarray:
        m = np.zeros((pe, pe))
        s, n = tiles.start[a * g + b], tiles.count[a * g + b]
        m[tiles.rows[s:s + n], tiles.cols[s:s + n]] = 1
        return m

    want = np.stack([dense(bt, i, k) @ dense(ct, k, j) for i, k, j in tuples])
    np.testing.assert_allclose(res.outputs["X"].to_dense(), want)
    cycles = fig15.pe_cycles(tuples, bt, ct, pe, engine)
    assert cycles == res.cycles >= len(tuples)
    # the graph as users get it: through DOT text and back
    again = simulate(loads(dumps(fig15._graph())), ops, engine=engine)
    np.testing.assert_allclose(again.outputs["X"].to_dense(), want)
    assert again.cycles == res.cycles


@given(st.integers(0, 10**6), st.lists(st.integers(0, 50), max_size=40))
@settings(max_examples=40, deadline=None)
def test_apportion_sums_to_total(total: int, weights: list[int]) -> None:
    w = np.array(weights, np.int64) + 1
    parts = fig15.apportion(total, w)
    assert len(parts) == len(w) and (parts >= 0).all()
    if len(w):
        assert parts.sum() == total
        # each share is within one cycle of its exact proportion
        assert np.all(np.abs(parts - total * w / w.sum()) <= 1 + 1e-9)


def test_point_variants_and_tuples() -> None:
    p = fig15.point({"nnz": 60, "dim": 1024, "engine": "fast"})
    br, bc, cr, cc = fig15.matrices(1024, 60)
    bt = {(int(r) // 128, int(c) // 128) for r, c in zip(br, bc, strict=True)}
    ct = {(int(r) // 128, int(c) // 128) for r, c in zip(cr, cc, strict=True)}
    meet = {(i, k, j) for i, k in bt for k2, j in ct if k == k2}
    assert p["tuples"] == len(meet)
    assert p["no nbuf"] > p["skip+nbuf"] >= p["compute"]
    assert p["no skip"] > p["skip+nbuf"]
    # the lower bound: bytes over bandwidth of each level
    assert p["skip+nbuf"] >= max(p["llb_bytes"] / 68.256, p["pe_bytes"] / 256)


def test_matrices_beyond_the_papers_dimensions() -> None:
    """Above dim 15720 the positions are drawn with numpy's generator: still nnz distinct
    uniform positions, C still B shifted by one and transposed."""
    dim, nnz = 20_011, 3_000
    br, bc, cr, cc = fig15.matrices(dim, nnz)
    assert len(set(zip(br.tolist(), bc.tolist(), strict=True))) == nnz
    assert br.min() >= 0 and max(br.max(), bc.max()) < dim
    assert np.array_equal(cr, (bc + 1) % dim) and np.array_equal(cc, br)
    # uniform: each half of the rows holds about half the entries
    assert abs(int((br < dim // 2).sum()) - nnz // 2) < 4 * np.sqrt(nnz)
