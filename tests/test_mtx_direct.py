"""Coordinate Matrix Market files are built without scipy (start-up time, issue 22): the
tensor must be the one scipy.io.mmread gives, for every shipped matrix and for random files of
every field and symmetry."""

from __future__ import annotations

import io

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from formats import data
from formats.mtx import read_mtx
from formats.tensor import Tensor


def _same(a: Tensor, b: Tensor) -> None:
    assert a.shape == b.shape
    ca, va = a.to_coo()
    cb, vb = b.to_coo()
    assert np.array_equal(ca, cb)
    assert va.tobytes() == vb.tobytes()
    assert a.format == b.format


def _scipy(path: str, fmt: str = "ds") -> Tensor:
    return Tensor.from_scipy(scipy.io.mmread(path), fmt)


MATRICES = [n for n in data.names() if data.path(n).suffix == ".mtx"]


@pytest.mark.parametrize("name", MATRICES)
def test_shipped_matrices_as_scipy_reads_them(name: str) -> None:
    path = str(data.path(name))
    if "coordinate" not in open(path, encoding="latin-1").readline().lower():
        pytest.skip("an array file (read by scipy)")
    got = read_mtx(path, "ds")
    _same(got, _scipy(path))
    assert got.to_scipy().nnz > 0


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 9), m=st.integers(1, 9), seed=st.integers(0, 2**31),
       field=st.sampled_from(["real", "integer", "pattern"]),
       symmetry=st.sampled_from(["general", "symmetric", "skew-symmetric"]),
       density=st.floats(0.0, 1.0))
def test_random_files_as_scipy_reads_them(tmp_path_factory, n, m, seed, field, symmetry,
                                          density) -> None:
    if symmetry != "general":
        m = n
    if field == "pattern" and symmetry == "skew-symmetric":
        symmetry = "symmetric"
    rng = np.random.default_rng(seed)
    mask = rng.random((n, m)) < density
    if symmetry != "general":
        mask = np.tril(mask, -1 if symmetry == "skew-symmetric" else 0)
    rows, cols = np.nonzero(mask)
    vals = rng.integers(-50, 50, len(rows)) if field == "integer" else \
        np.round(rng.normal(size=len(rows)), 4)
    lines = [f"%%MatrixMarket matrix coordinate {field} {symmetry}", f"{n} {m} {len(rows)}"]
    for i, j, v in zip(rows, cols, vals, strict=True):
        lines.append(f"{i + 1} {j + 1}" + ("" if field == "pattern" else f" {v}"))
    path = tmp_path_factory.mktemp("mtx") / "a.mtx"
    path.write_text("\n".join(lines) + "\n")
    got = read_mtx(path, "ss")
    _same(got, _scipy(str(path), "ss"))
    want = sp.coo_matrix(scipy.io.mmread(io.StringIO(path.read_text()))).toarray()
    assert np.array_equal(got.to_dense(), want)
