"""Seeded synthetic tensors: exact counts, reproducibility, and the runs/blocks structure."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats import FormatError, Tensor
from formats.synthetic import blocks, random_tensor, runs


def stretches(crd: np.ndarray) -> list[tuple[int, int]]:
    """Maximal runs of consecutive coordinates as (start, length)."""
    if not len(crd):
        return []
    breaks = np.flatnonzero(np.diff(crd) != 1) + 1
    starts = np.concatenate([[0], breaks])
    ends = np.concatenate([breaks, [len(crd)]])
    return [(int(crd[s]), int(e - s)) for s, e in zip(starts, ends, strict=True)]


def crd_of(v: Tensor) -> np.ndarray:
    coords, vals = v.to_coo(drop_zeros=True)
    assert np.all(vals != 0)
    return np.sort(coords[:, 0])


@settings(max_examples=60, deadline=None)
@given(
    shape=st.lists(st.integers(0, 7), min_size=0, max_size=4).map(tuple),
    density=st.floats(0, 1),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_tensor_exact_count_and_reproducible(shape, density, seed) -> None:
    t = random_tensor(shape, density, seed)
    size = int(np.prod(shape)) if shape else 1
    assert t.shape == shape
    assert t.nnz == round(density * size)
    assert len(t.vals) == (t.nnz if shape else 1)
    assert set(np.unique(t.vals[t.vals != 0]).tolist()) <= set(range(1, 10))
    again = random_tensor(shape, density, seed)
    assert again == t
    assert random_tensor(shape, sparsity=1 - density, seed=seed).nnz == t.nnz


def test_random_tensor_details() -> None:
    t = random_tensor((250, 250), 0.05, seed=3, fmt="ds")
    assert t.nnz == 3125 and t.format.levels == ("d", "s")
    assert random_tensor((250, 250), 0.05, seed=4) != random_tensor((250, 250), 0.05, seed=3)
    assert random_tensor((250, 250), sparsity=0.95, seed=3).with_format("ds") == t
    dense = random_tensor((10, 10), 1.0).to_dense()
    assert np.all(dense >= 1)
    huge = random_tensor((10**6, 10**6), 1e-9, seed=1)  # positions are sampled, not enumerated
    assert huge.nnz == 1000
    with pytest.raises(FormatError, match="exactly one"):
        random_tensor((3,), 0.5, sparsity=0.5)
    with pytest.raises(FormatError, match=r"\[0, 1\]"):
        random_tensor((3,), 1.5)


@settings(max_examples=80, deadline=None)
@given(
    size=st.integers(0, 400), frac=st.floats(0, 0.5), run=st.integers(1, 40),
    seed=st.integers(0, 1000),
)
def test_runs_structure(size, frac, run, seed) -> None:
    nnz = int(size * frac)
    b, c = runs(size, nnz, run, seed)
    bc, cc = crd_of(b), crd_of(c)
    assert b.shape == c.shape == (size,)
    assert len(bc) == len(cc) == nnz
    assert not set(bc.tolist()) & set(cc.tolist()), "runs of b and c never overlap"
    want = [run] * (nnz // run) + ([nnz % run] if nnz % run else [])
    assert [n for _, n in stretches(bc)] == want
    assert [n for _, n in stretches(cc)] == want
    # along the vector the stretches alternate b, c, b, c, ...
    merged = sorted([(s, "b") for s, _ in stretches(bc)] + [(s, "c") for s, _ in stretches(cc)])
    assert [who for _, who in merged] == ["b", "c"] * len(want)
    assert runs(size, nnz, run, seed)[0] == b


def test_runs_paper_setting() -> None:
    """Sec. 6.3: size 2000, 400 nonzeros (20%) each."""
    b, c = runs(2000, 400, 100, seed=7)
    assert b.nnz == c.nnz == 400
    assert len(stretches(crd_of(b))) == 4
    assert (b.to_dense() * c.to_dense()).sum() == 0
    with pytest.raises(FormatError, match="2\\*nnz"):
        runs(100, 51, 5)
    with pytest.raises(FormatError, match="run_length"):
        runs(100, 10, 0)


@settings(max_examples=80, deadline=None)
@given(
    nnz=st.integers(0, 120), block=st.integers(1, 30), slack=st.integers(0, 300),
    seed=st.integers(0, 1000),
)
def test_blocks_structure(nnz, block, slack, seed) -> None:
    pieces = [block] * (nnz // block) + ([nnz % block] if nnz % block else [])
    size = sum(n + n // 4 + n // 2 for n in pieces) + len(pieces) + slack
    b, c = blocks(size, nnz, block, seed)
    bc, cc = crd_of(b), crd_of(c)
    assert len(bc) == len(cc) == nnz
    sb, sc = stretches(bc), stretches(cc)
    assert [n for _, n in sb] == pieces and [n for _, n in sc] == pieces
    for (start_b, n), (start_c, _) in zip(sb, sc, strict=True):
        shift = start_c - start_b
        assert n // 4 <= shift <= n // 4 + n // 2
        assert shift < n, "each c block overlaps its b block"
    assert blocks(size, nnz, block, seed)[1] == c


def test_blocks_paper_setting() -> None:
    b, c = blocks(2000, 400, 20, seed=0)
    assert b.nnz == c.nnz == 400
    assert len(stretches(crd_of(b))) == 20
    overlap = np.count_nonzero(b.to_dense() * c.to_dense())
    assert 20 * (20 - 15) <= overlap <= 20 * (20 - 5)  # shifts are 5..15 for blocks of 20
    assert blocks(2000, 400, 20, seed=1)[0] != b
    with pytest.raises(FormatError, match="need"):
        blocks(100, 100, 10)
