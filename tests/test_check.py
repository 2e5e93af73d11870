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


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["X(i,j)=B(i,j)*C(i,k)*D(k,j)", "X(i,j)=C(i,k)*B(i,j)*D(k,j)",
                        "X(i,j)=B(i,j)*C(i,k)*D(k,j)*E(i,j)"]),
       st.integers(1, 9), st.integers(1, 9), st.integers(1, 9), st.floats(0.0, 1.0),
       st.integers(0, 10_000))
def test_sampled_products_use_scipy(expr: str, m: int, n: int, k: int, density: float,
                                    seed: int) -> None:
    """SDDMM's sum over k of a product with factors lacking k: those factors times a matrix
    product, with scipy, equal to numpy's."""
    ops = {"B": random_tensor((m, n), density, seed), "C": random_tensor((m, k), 1.0, seed + 1),
           "D": random_tensor((k, n), 1.0, seed + 2), "E": random_tensor((m, n), 0.5, seed + 3)}
    if "E(" not in expr:
        del ops["E"]
    gold = check._expected_sparse(expr, parse_expression(expr), ops)
    assert sp.issparse(gold)
    d = {name: t.to_dense() for name, t in ops.items()}
    want = d["B"] * (d["C"] @ d["D"]) * (d["E"] if "E" in d else 1.0)
    np.testing.assert_allclose(gold.toarray(), want, rtol=1e-12, atol=1e-9)


EINSUM_EXPRESSIONS = ["X(i,j)=B(i,j)*C(i,k)*D(k,j)", "X(i,j)=2*B(i,j)*C(j,i)*D(i,j)",
                      "a=B(i,k)*C(k,j)*D(i,j)", "X(i,j)=T(i,j,k)*c(k)",
                      "X(i,j)=T(i,k,l)*C(k,j)*D(l,j)", "x(i)=T(i,j,k)"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(EINSUM_EXPRESSIONS), st.integers(1, 6), st.floats(0.0, 1.0),
       st.integers(0, 10_000))
def test_sums_of_products_with_einsum_equal_the_dense_gold(expr: str, n: int, density: float,
                                                          seed: int) -> None:
    names = {a.name: len(a.indices) for a in parse_expression(expr).rhs.accesses()}
    ops = {name: random_tensor((n,) * order, density, seed + k)
           for k, (name, order) in enumerate(sorted(names.items()))}
    assign = parse_expression(expr)
    sizes = check._index_sizes(assign, ops, None)
    got = check._expected_einsum(assign, ops, sizes)
    assert got is not None
    want = check.expected(expr, ops)  # small: the dense evaluation
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)


def test_einsum_is_not_for_sums_matrix_products_or_large_operands(
        monkeypatch: pytest.MonkeyPatch) -> None:
    ops = _operands("X(i,j)=B(i,j)+C(i,j)", 4, 0.5, 1)
    ops["D"] = random_tensor((4, 4), 0.5, 9)
    sizes = {"i": 4, "j": 4, "k": 4}
    for expr in ("X(i,j)=B(i,j)+C(i,j)", "X(i,j)=B(i,k)*C(k,j)", "X(i,j)=B(i,j)*C(i,j)"):
        assert check._expected_einsum(parse_expression(expr), ops, sizes) is None
    sddmm = parse_expression("X(i,j)=B(i,j)*C(i,k)*D(k,j)")
    assert check._expected_einsum(sddmm, ops, sizes) is not None
    monkeypatch.setattr(check, "SPARSE_FROM", 10)
    assert check._expected_einsum(sddmm, ops, sizes) is None


def test_scipy_cannot_do_it_follows_the_nonzeros(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past SPARSE_FROM, an expression scipy cannot evaluate takes the COO evaluation: no dense
    array of the operands' size, and no "too large to check" any more."""
    monkeypatch.setattr(check, "SPARSE_FROM", 10)
    B = random_tensor((3, 4, 5), 0.5, 1)
    gold = check.expected("x(i)=B(i,j,k)", {"B": B})
    assert isinstance(gold, check.SparseGold)
    np.testing.assert_allclose(gold.to_dense(), B.to_dense().sum(axis=(1, 2)))


COO_EXPRESSIONS = [
    "x(i)=B(i,j,k)",
    "X(i,j)=B(i,j,k)*c(k)",
    "X(i,l)=B(i,j,k)*C(j,k,l)",
    "X(i,j)=B(i,k,l)*C(k,j)*D(l,j)",
    "X(i,j,k)=B(i,j,k)+C(i,j,k)",
    "X(i,j,k)=B(i,j,k)-c(k)",
    "x=B(i,j,k)*C(i,j,k)",
    "X(i,j)=B(i,j)+c(i)",
    "X(k,i)=B(i,j,k)*c(j)+D(i,k)",
]


def _random_operands(expr: str, n: int, density: float, seed: int) -> dict[str, Tensor]:
    assign = parse_expression(expr)
    sizes = {v: n + ord(v) % 3 for a in assign.rhs.accesses() for v in a.indices}
    ops: dict[str, Tensor] = {}
    for k, acc in enumerate(assign.rhs.accesses()):
        shape = tuple(sizes[v] for v in acc.indices)
        ops[acc.name] = (random_tensor(shape, density, seed + k) if shape
                         else Tensor.scalar(1.5 + k, acc.name))
    return ops


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(COO_EXPRESSIONS), st.integers(0, 6), st.floats(0.0, 1.0),
       st.integers(0, 10_000))
def test_coo_gold_equals_dense_gold(expr: str, n: int, density: float, seed: int) -> None:
    ops = _random_operands(expr, n, density, seed)
    dense = check.expected(expr, ops)
    assert isinstance(dense, np.ndarray)
    coo = check._expected_coo(parse_expression(expr), ops)
    np.testing.assert_allclose(coo.to_dense(), dense, rtol=1e-12, atol=1e-12)
    # and the comparison agrees with itself on both forms
    result = Tensor.from_dense(dense) if dense.ndim else Tensor.scalar(float(dense), "x")
    assert check.compare(result, coo).passed
    assert check.compare(result, dense).passed


def test_coo_gold_refuses_too_many_products(monkeypatch: pytest.MonkeyPatch) -> None:
    import sam.gold

    monkeypatch.setattr(sam.gold, "MAX_ENTRIES", 5)
    monkeypatch.setattr(check, "SPARSE_FROM", 1)
    ops = _random_operands("X(i,l)=B(i,j,k)*C(j,k,l)", 4, 1.0, 0)
    with pytest.raises(check.CheckError, match="products"):
        check.expected("X(i,l)=B(i,j,k)*C(j,k,l)", ops)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_values_compare_equal_to_themselves(bad: float, recwarn) -> None:
    """A NaN or infinity in an operand gives the same one in the result: PASS, no warning."""
    b = np.array([[1.0, 0.0, 2.0], [0.0, bad, 0.0]])
    c = np.array([[0.0, 3.0], [1.0, 0.0], [0.0, 4.0]])
    ops = {"B": Tensor.from_dense(b), "C": Tensor.from_dense(c)}
    for expr in ("X(i,j)=B(i,j)+B(i,j)", "X(i,j)=B(i,k)*C(k,j)", "x(i)=B(i,j)"):
        gold = check.expected(expr, ops)
        assert isinstance(gold, check.SparseGold)
        # what SAM computes: structural zeros never meet the non-finite value
        want = gold.to_dense()
        res = check.compare(Tensor.from_dense(want), gold)
        assert res.passed, (expr, res.line())
        wrong = want.copy()
        wrong.flat[0] += 1.0
        assert not check.compare(Tensor.from_dense(wrong), gold).passed
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


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
