"""Per-tile simulations on Dask (custard.tiling with a Sweeper): same result and cycles as one
process, cached by tile content."""

from __future__ import annotations

import numpy as np
import pytest

from custard.sweeps.sweep import Sweeper
from custard.tiling import memory_steps, run_tiled
from formats.io import load_tensor
from sam.memory_model import extensor, run_memory

MATMUL = "X(i,j)=B(i,k)*C(k,j)"
FMTS = {"X": "ss", "B": "ss", "C": "ss"}


@pytest.fixture(scope="module")
def sweeper():
    with Sweeper(None, workers=2, progress=False) as s:
        yield s


def _same(a, b) -> None:
    assert [r.key for r in a.runs] == [r.key for r in b.runs]
    assert [r.cycles for r in a.runs] == [r.cycles for r in b.runs]
    np.testing.assert_array_equal(a.outputs["X"].to_dense(), b.outputs["X"].to_dense())


def test_dask_equals_single_process_west0479(sweeper) -> None:
    b = load_tensor("west0479", "ss")
    one = run_tiled(MATMUL, {"B": b, "C": b}, FMTS, "ikj", tile=128, engine="reference")
    many = run_tiled(MATMUL, {"B": b, "C": b}, FMTS, "ikj", tile=128, engine="reference",
                     sweeper=sweeper)
    assert sweeper.mode == "dask", sweeper.warnings
    _same(one, many)
    np.testing.assert_allclose(many.outputs["X"].to_dense(),
                               (b.to_scipy() @ b.to_scipy()).toarray(), rtol=1e-12)


def test_tile_cache_by_content(tmp_path) -> None:
    b = load_tensor("west0067", "ss")
    with Sweeper(tmp_path, scheduler="sync", progress=False) as s:
        first = run_tiled(MATMUL, {"B": b, "C": b}, FMTS, "ikj", tile=16, engine="reference",
                          sweeper=s)
        assert s.ran == len(first.runs) and s.cached == 0
        again = run_tiled(MATMUL, {"B": b, "C": b}, FMTS, "ikj", tile=16, engine="reference",
                          sweeper=s)
        assert s.cached == len(first.runs)
    _same(first, again)


def test_pushpull_gustavson_parallel_same_cycles(sweeper) -> None:
    """The issue's check: Gustavson (ikj) on pushpull x pushpull, tile-parallel on the local
    cluster, gives the single-process cycles (per tile and with the memory model)."""
    b = load_tensor("pushpull", "ss")
    tensors = {"B": b, "C": b}
    one = run_tiled(MATMUL, tensors, FMTS, "ikj", tile=1024, engine="fast")
    many = run_tiled(MATMUL, tensors, FMTS, "ikj", tile=1024, engine="fast", sweeper=sweeper)
    _same(one, many)
    hier = extensor()
    cyc = [run_memory(hier, memory_steps(MATMUL, tensors, r, hier)).total_cycles
           for r in (one, many)]
    assert cyc[0] == cyc[1] > one.compute_cycles
