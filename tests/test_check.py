"""``sam.check``: the scipy.sparse gold agrees with the dense numpy one; compare() can fail."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from formats.synthetic import random_tensor
from formats.tensor import Tensor
from sam import check
from sam.notation.parse import parse_expression

EXPRESSIONS = [
    "x(i)=B(i,j)*c(j)",
    "X(i,j)=B(i,k)*C(k,j)",
    "X(i,j)=B(i,j)+C(i,j)",
    "X(i,j)=B(i,j)-C(j,i)",
    "X(i,j)=B(i,j)*C(i,j)",
    "X(j,i)=B(i,k)*C(k,j)",
    "x(i)=B(i,j)",
]


def _operands(expr: str, n: int, density: float, seed: int) -> dict[str, Tensor]:
    ops = {"B": random_tensor((n, n), density, seed), "C": random_tensor((n, n), density, seed + 1)}
    if "c(" in expr:
        ops = {"B": ops["B"], "c": random_tensor((n,), density, seed + 2)}
    elif "C(" not in expr:
        ops = {"B": ops["B"]}
    return ops


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(EXPRESSIONS), st.integers(1, 12), st.floats(0.0, 1.0),
       st.integers(0, 10_000))
def test_sparse_gold_equals_dense_gold(expr: str, n: int, density: float, seed: int) -> None:
    ops = _operands(expr, n, density, seed)
    dense = check.expected(expr, ops)
    assert isinstance(dense, np.ndarray)
    gold = check._expected_sparse(expr, parse_expression(expr), ops)
    assert sp.issparse(gold)
    want = dense.reshape(gold.shape)
    np.testing.assert_allclose(gold.toarray(), want, rtol=1e-12, atol=1e-12)


def test_large_problems_use_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check, "SPARSE_FROM", 10)
    ops = _operands("X(i,j)=B(i,k)*C(k,j)", 6, 0.4, 3)
    gold = check.expected("X(i,j)=B(i,k)*C(k,j)", ops)
    assert sp.issparse(gold)
    want = ops["B"].to_dense() @ ops["C"].to_dense()
    np.testing.assert_allclose(gold.toarray(), want)


def test_scipy_cannot_do_it_falls_back_to_dense(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check, "SPARSE_FROM", 10)
    B = random_tensor((3, 4, 5), 0.5, 1)
    gold = check.expected("x(i)=B(i,j,k)", {"B": B})
    np.testing.assert_allclose(gold, B.to_dense().sum(axis=(1, 2)))
    monkeypatch.setattr(check, "DENSE_LIMIT", 10)
    with pytest.raises(check.CheckError, match="too large to check densely"):
        check.expected("x(i)=B(i,j,k)", {"B": B})


@pytest.mark.parametrize("sparse_gold", [False, True])
def test_compare_passes_and_fails(sparse_gold: bool) -> None:
    A = random_tensor((5, 7), 0.5, 4)
    gold = A.to_scipy() if sparse_gold else A.to_dense()
    assert check.compare(A, gold).passed
    wrong = A.to_dense().copy()
    wrong[np.nonzero(wrong)[0][0], np.nonzero(wrong)[1][0]] += 1.0
    res = check.compare(Tensor.from_dense(wrong), gold)
    assert not res.passed and res.max_abs_diff == pytest.approx(1.0)
    with pytest.raises(check.CheckError, match="differs from the expected"):
        check.compare(random_tensor((7, 5), 0.5, 4), gold)
