"""The three graphs written by the original Custard run unchanged in our simulator and compute
what scipy computes: ``vec_elemadd`` (x = b + c), ``mat_vecmul_ij`` (x = B @ c) and
``matmul_ikj`` (X = B @ C), on random small inputs (with empty rows, empty columns and all-zero
operands) and on real SuiteSparse matrices."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats.tensor import Tensor
from sam.graph.dot import load
from sam.sim.engine import SimResult, simulate

DATA = Path(__file__).parent / "data"
GRAPHS = {name: load(DATA / "custard" / f"{name}.gv")
          for name in ("vec_elemadd", "mat_vecmul_ij", "matmul_ikj")}
REAL = ["west0479", "lp_scsd1", "bcsstm02", "LFAT5"]

#: Values with many zeros, so rows, columns and whole operands come out empty.
VALUES = st.sampled_from([0.0, 0.0, 0.0, 0.0, 1.0, -2.0, 0.5, 3.0])


def dense(rows: int, cols: int) -> st.SearchStrategy[np.ndarray]:
    return st.lists(VALUES, min_size=rows * cols, max_size=rows * cols).map(
        lambda v: np.array(v, dtype=float).reshape(rows, cols))


def vector(n: int) -> st.SearchStrategy[np.ndarray]:
    return st.lists(VALUES, min_size=n, max_size=n).map(lambda v: np.array(v, dtype=float))


def run(name: str, engine: str = "reference", **tensors) -> SimResult:
    bound = {k: Tensor.from_scipy(v) if sp.issparse(v) else Tensor.from_dense(v)
             for k, v in tensors.items()}
    return simulate(GRAPHS[name], bound, engine=engine)


def real_matrix(name: str) -> sp.csr_matrix:
    """A shipped SuiteSparse matrix (``formats.data``), else the copy in ``shared/data``."""
    try:
        from formats import data
        path = data.path(name)
    except Exception:  # pragma: no cover - the data package ships these four
        path = Path(__file__).resolve().parents[2] / "shared" / "data" / "suitesparse" / \
            f"{name}.mtx"
    return sp.csr_matrix(scipy.io.mmread(path))


SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


# --------------------------------------------------------------------------- random inputs
@SETTINGS
@given(st.integers(0, 9).flatmap(lambda n: st.tuples(vector(n), vector(n))))
def test_vec_elemadd_random(bc):
    b, c = bc
    r = run("vec_elemadd", b=b, c=c)
    x = r.outputs["x"]
    assert x.shape == b.shape
    np.testing.assert_array_equal(x.to_dense(), b + c)
    assert r.cycles > 0


@SETTINGS
@given(st.tuples(st.integers(0, 6), st.integers(0, 6)).flatmap(
    lambda s: st.tuples(dense(*s), vector(s[1]))))
def test_mat_vecmul_random(Bc):
    B, c = Bc
    r = run("mat_vecmul_ij", B=B, c=c)
    x = r.outputs["x"]
    assert x.shape == (B.shape[0],)
    np.testing.assert_allclose(x.to_dense(), B @ c)


@SETTINGS
@given(st.tuples(st.integers(1, 5), st.integers(1, 5), st.integers(1, 5)).flatmap(
    lambda s: st.tuples(dense(s[0], s[1]), dense(s[1], s[2]))))
def test_matmul_random(BC):
    B, C = BC
    r = run("matmul_ikj", B=B, C=C)
    X = r.outputs["X"]
    assert X.shape == (B.shape[0], C.shape[1])
    np.testing.assert_allclose(X.to_dense(), B @ C)


@pytest.mark.parametrize("b, c", [
    ([0, 0, 0], [0, 0, 0]),
    ([1, 0, 0], [0, 0, 0]),
    ([0, 0, 0], [0, 0, 2]),
    ([], []),
])
def test_vec_elemadd_edge_cases(b, c):
    b, c = np.array(b, float), np.array(c, float)
    np.testing.assert_array_equal(run("vec_elemadd", b=b, c=c).outputs["x"].to_dense(), b + c)


@pytest.mark.parametrize("B, c", [
    (np.zeros((3, 4)), np.ones(4)),
    (np.ones((3, 4)), np.zeros(4)),
    (np.diag([1.0, 0, 2]), np.array([0.0, 5, 0])),          # every product ineffectual
    (np.array([[0, 0], [1, 2], [0, 0]], float), np.array([1.0, 1])),   # empty rows
    (np.zeros((0, 3)), np.ones(3)),
    (np.zeros((3, 0)), np.zeros(0)),
])
def test_mat_vecmul_edge_cases(B, c):
    x = run("mat_vecmul_ij", B=B, c=c).outputs["x"]
    assert x.shape == (B.shape[0],)
    np.testing.assert_allclose(x.to_dense(), B @ c)


@pytest.mark.parametrize("B, C", [
    (np.array([[0, 1, 0], [0, 0, 0], [2, 0, 0]], float), np.eye(3)),   # empty row in B
    (np.eye(3), np.array([[0, 0, 1], [0, 0, 0], [0, 0, 2]], float)),   # empty columns in C
    (np.array([[1, 0], [0, 0]], float), np.array([[1, 0], [1, 1]], float)),
])
def test_matmul_edge_cases(B, C):
    X = run("matmul_ikj", B=B, C=C).outputs["X"]
    np.testing.assert_allclose(X.to_dense(), B @ C)


@pytest.mark.parametrize("B, C", [
    (np.zeros((1, 1)), np.ones((1, 1))),                          # all-zero operand
    (np.zeros((3, 2)), np.zeros((2, 4))),                         # both all-zero
    (np.array([[1.0, 0.0]]), np.array([[0.0], [1.0]])),           # disjoint: product is zero
    (np.zeros((0, 3)), np.ones((3, 2))),                          # no rows at all
])
def test_matmul_all_zero_result(B, C):
    """Was a simulator bug (fixed in 0336676, writers): with no nonzero in B@C, X's mode-1
    writer recorded an empty fiber under a mode-0 level without coordinates."""
    X = run("matmul_ikj", B=B, C=C).outputs["X"]
    np.testing.assert_array_equal(X.to_dense(), B @ C)


# --------------------------------------------------------------------------- real matrices
@pytest.mark.parametrize("name", REAL)
def test_matmul_real_times_transpose(name):
    B = real_matrix(name)
    engine = "fast" if B.nnz > 1000 else "reference"
    r = run("matmul_ikj", engine, B=B, C=B.T.tocsr())
    expect = (B @ B.T).toarray()
    np.testing.assert_allclose(r.outputs["X"].to_dense(), expect, rtol=1e-10, atol=1e-12)
    assert r.cycles > 0


@pytest.mark.parametrize("name", REAL)
def test_matmul_real_times_random(name):
    B = real_matrix(name)
    C = sp.random(B.shape[1], 7, density=0.3, format="csr", random_state=5)
    r = run("matmul_ikj", "fast", B=B, C=C)
    np.testing.assert_allclose(r.outputs["X"].to_dense(), (B @ C).toarray(), rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("name", REAL)
def test_spmv_real(name):
    B = real_matrix(name)
    rng = np.random.default_rng(7)
    c = rng.standard_normal(B.shape[1])
    c[rng.random(B.shape[1]) < 0.2] = 0.0  # dense-ish
    r = run("mat_vecmul_ij", "fast", B=B, c=c)
    np.testing.assert_allclose(r.outputs["x"].to_dense(), B @ c, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", REAL)
def test_vec_elemadd_real_rows(name):
    """x = b + c on two rows of a real matrix (sparse vectors with real sparsity)."""
    B = real_matrix(name).toarray()
    b, c = B[0], B[B.shape[0] // 2]
    r = run("vec_elemadd", b=b, c=c)
    np.testing.assert_allclose(r.outputs["x"].to_dense(), b + c)


def test_engines_agree_on_real_matrix():
    B = real_matrix("LFAT5")
    ref = run("matmul_ikj", "reference", B=B, C=B.T.tocsr())
    fast = run("matmul_ikj", "fast", B=B, C=B.T.tocsr())
    assert ref.cycles == fast.cycles
    np.testing.assert_array_equal(ref.outputs["X"].to_dense(), fast.outputs["X"].to_dense())
