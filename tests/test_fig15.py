"""Figure 15's experiment (custard.reproduce.fig15): data, canonical tile cache, variants."""

from __future__ import annotations

import numpy as np
import pytest

from custard.reproduce import fig15
from formats.tensor import Tensor
from sam.sim.engine import simulate


@pytest.mark.parametrize(("dim", "nnz"), [(300, 900), (211, 5000), (1024, 100)])
def test_matrices_as_the_original(dim: int, nnz: int) -> None:
    import scipy.sparse as sp

    br, bc, cr, cc = fig15.matrices(dim, nnz)
    ref = sp.random(dim, dim, density=nnz / dim**2, random_state=0, format="coo")
    assert np.array_equal(br, ref.row) and np.array_equal(bc, ref.col)
    assert len(br) == nnz
    # C = B with columns shifted by one, transposed
    b = {(int(r), int(c)) for r, c in zip(br, bc, strict=True)}
    c = {(int(r), int(c)) for r, c in zip(cr, cc, strict=True)}
    assert c == {((j + 1) % dim, i) for i, j in b}


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_canonical_tiles_simulate_alike(engine: str) -> None:
    """The cache key drops only what Gustavson over compressed levels cannot see."""
    rng = np.random.default_rng(3)
    graph = fig15._graph()
    for _ in range(6):
        nb, nc = rng.integers(1, 12, 2)
        b = np.unique(rng.integers(0, 32, (nb, 2)), axis=0)
        c = np.unique(rng.integers(0, 32, (nc, 2)), axis=0)
        full = simulate(graph, {"B": Tensor.from_coo(b, np.ones(len(b)), (32, 32), "ss"),
                                "C": Tensor.from_coo(c, np.ones(len(c)), (32, 32), "ss")},
                        engine=engine).cycles
        _, cb, cc = fig15._canonical(b[:, 0], b[:, 1], c[:, 0], c[:, 1])
        assert fig15._simulate(cb, cc, engine) == full


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
