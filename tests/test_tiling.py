"""Tiling (formats.tiling) and tiled execution of every kernel of the suite (custard.tiling)."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from custard.tiling import run_tiled, tile_sizes
from formats.io import load_tensor
from formats.tensor import Tensor
from formats.tiling import tile_coo
from sam.errors import CompileError
from sam.notation.parse import parse_expression
from sam.notation.reference import evaluate

SUITE = Path(__file__).resolve().parents[1] / "dot_graphs" / "kernel-suite.tsv"
KERNELS = [line.split("\t") for line in SUITE.read_text().splitlines() if line.strip()]


def _parse(cmd: str) -> tuple[str, dict[str, str], list[str]]:
    words = shlex.split(cmd)
    fmts = dict(w[3:].split(":", 1) for w in words[1:] if w.startswith("-f="))
    sched = [w[3:] for w in words[1:] if w.startswith("-s=")]
    return words[0], fmts, sched


def _random(shape: tuple[int, ...], fmt: str | None, seed: int, density: float = 0.3) -> Tensor:
    rng = np.random.default_rng(seed)
    if not shape:
        return Tensor.scalar(float(rng.integers(1, 5)))
    dense = np.where(rng.random(shape) < density, rng.integers(1, 9, shape), 0).astype(float)
    return Tensor.from_dense(dense, fmt)


# ---------------------------------------------------------------------------- the tiler
@settings(max_examples=40, deadline=None)
@given(st.integers(1, 30), st.integers(1, 30), st.integers(1, 8), st.integers(1, 8),
       st.integers(0, 1000))
def test_tiler_roundtrip_and_no_empty_tiles(m: int, n: int, t0: int, t1: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random((m, n)) < 0.15, rng.random((m, n)) + 1, 0)
    coords = np.argwhere(dense)
    top = (t0 * t1, t0 * t1)
    tiled = tile_coo(coords, dense[dense != 0], (m, n), [top, (t1, t1)])
    back = np.zeros((m, n))
    for key, inner in tiled.tiles.items():
        assert inner.nnz() > 0  # empty tiles are not stored
        for k2 in inner.tiles:
            t = inner.tile(k2)
            assert t.nnz > 0
            o = np.array(key) * top + np.array(k2) * (t1, t1)
            ext = t.shape
            back[o[0]:o[0] + ext[0], o[1]:o[1] + ext[1]] += t.to_dense()
    np.testing.assert_array_equal(back, dense)
    occ = tiled.occupancy("ss").to_dense()
    assert occ.shape == tiled.grid
    want = {tuple(int(x) for x in c) for c in coords // top}
    assert {tuple(c) for c in np.argwhere(occ)} == want


def test_split_schedule_sizes() -> None:
    sizes, order = tile_sizes(["reorder(i,k,j)", "split(i,i0,i1,128)"], None, ["i", "k", "j"])
    assert sizes == {"i": 128} and order == ["i", "k", "j"]
    sizes, _ = tile_sizes(None, 64, ["i", "j"])
    assert sizes == {"i": 64, "j": 64}
    with pytest.raises(CompileError, match="split"):
        tile_sizes("split(q,q0,q1,4)", None, ["i"])


# ---------------------------------------------------------------------------- every kernel
@pytest.mark.parametrize("engine", ["reference", "fast"])
@pytest.mark.parametrize(("name", "cmd"), KERNELS, ids=[k[0] for k in KERNELS])
def test_tiled_equals_untiled(name: str, cmd: str, engine: str) -> None:
    expr, fmts, sched = _parse(cmd)
    assign = parse_expression(expr)
    size = {v: 9 + k for k, v in enumerate("ijkl")}
    tensors = {}
    for k, acc in enumerate(assign.rhs.accesses()):
        if acc.name not in tensors:
            tensors[acc.name] = _random(tuple(size[v] for v in acc.indices), fmts.get(acc.name),
                                        k + 7)
    res = run_tiled(expr, tensors, fmts, schedule=sched, tile=4, engine=engine)
    want = evaluate(assign, {n: t.to_dense() for n, t in tensors.items()})
    got = res.outputs[assign.lhs.name].to_dense()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert res.runs or not np.any(want), "no tile was computed"


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_tiled_matmul_real_matrix(engine: str) -> None:
    b = load_tensor("west0479", "ss")
    c = Tensor.from_scipy(sp.csr_matrix(b.to_scipy().T), "ss")
    res = run_tiled("X(i,j)=B(i,k)*C(k,j)", {"B": b, "C": c}, {"X": "ss", "B": "ss", "C": "ss"},
                    "ikj", schedule=["split(i,i0,i1,128)", "split(k,k0,k1,128)",
                                     "split(j,j0,j1,128)"], engine=engine)
    want = (b.to_scipy() @ c.to_scipy()).toarray()
    np.testing.assert_allclose(res.outputs["X"].to_dense(), want, rtol=1e-10)
    # only tiles that meet are computed: each tuple has a nonempty B and C tile
    assert all(r.tiles["B"][1] > 0 and r.tiles["C"][1] > 0 for r in res.runs)


def test_custard_tile_command(capsys: pytest.CaptureFixture[str]) -> None:
    from custard.cli import main

    assert main(["tile", "X(i,j)=B(i,k)*C(k,j)", "-f=X:ss", "-f=B:ss", "-f=C:ss",
                 "-s=reorder(i,k,j)", "--tile", "128", "-t", "B=west0479", "-t", "C=west0479",
                 "--memory", "extensor", "--engine", "reference"]) == 0
    out = capsys.readouterr().out
    assert "equals the untiled value: True" in out and "total" in out
    assert main(["tile", "X(i,j)=B(i,k)*C(k,j)", "-s=split(q,q0,q1,4)", "-t", "B=west0479",
                 "-t", "C=west0479"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "split(i,i0,i1,SIZE)" in err


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 14), st.integers(1, 14), st.integers(1, 14), st.integers(1, 6),
       st.integers(1, 6), st.sampled_from(["ikj", "ijk", "kij"]), st.integers(0, 500))
def test_tiled_matmul_random(m: int, k: int, n: int, ti: int, tk: int, order: str,
                             seed: int) -> None:
    fmt = {"ikj": ("ss", "ss", "ss"), "ijk": ("ss", "ss", "ss:1,0"),
           "kij": ("ss", "ss:1,0", "ss")}[order]
    b = _random((m, k), fmt[1], seed)
    c = _random((k, n), fmt[2], seed + 1)
    res = run_tiled("X(i,j)=B(i,k)*C(k,j)", {"B": b, "C": c},
                    {"X": fmt[0], "B": fmt[1], "C": fmt[2]}, order,
                    schedule=[f"split(i,i0,i1,{ti})", f"split(k,k0,k1,{tk})"],
                    engine="reference")
    np.testing.assert_allclose(res.outputs["X"].to_dense(), b.to_dense() @ c.to_dense())
    # exactly the tuples whose B and C tiles are both nonempty were computed
    bt = {(int(r) // ti, int(q) // tk) for r, q in b.to_coo()[0]}
    ct = {int(r) // tk for r, _ in c.to_coo()[0]}
    want = {(i0, k0) for i0, k0 in bt if k0 in ct}
    assert {(r.key["i"], r.key["k"]) for r in res.runs} == want
