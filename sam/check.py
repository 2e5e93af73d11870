"""``--check``: compute a graph's expression with numpy/scipy and compare the simulated result.

Small problems are evaluated densely (:func:`sam.notation.reference.evaluate`). For real matrices
that is slow or too big, so expressions over matrices and vectors whose sums contract two
operands (SpMV, SpM*SpM in any order, element-wise sums and products, transposes) are evaluated
with scipy.sparse instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from formats.errors import ToolkitError
from formats.tensor import Tensor
from sam.notation.expr import Access, Add, Assignment, Mul, Neg, Node, Sum, place_reductions
from sam.notation.parse import parse_expression
from sam.notation.reference import evaluate

DENSE_LIMIT = 20_000_000  # elements of the largest dense intermediate we are willing to build
SPARSE_FROM = 1_000_000  # from this many dense elements on, prefer scipy.sparse when it applies


class CheckError(ToolkitError):
    """The expression cannot be checked (too large to evaluate densely, unsupported shape)."""


@dataclass
class CheckResult:
    passed: bool
    max_abs_diff: float
    max_abs_value: float
    expected_nnz: int

    def line(self) -> str:
        verdict = "PASS" if self.passed else "FAIL"
        return (f"{verdict}: largest difference {self.max_abs_diff:.3g} (largest value "
                f"{self.max_abs_value:.3g}, {self.expected_nnz} expected nonzeros)")


def _dense_size(assign: Assignment, tensors: Mapping[str, Tensor]) -> int:
    sizes: dict[str, int] = {}
    for acc in assign.rhs.accesses():
        for v, n in zip(acc.indices, tensors[acc.name].shape, strict=False):
            sizes[v] = n
    total = 1
    for n in sizes.values():
        total *= max(n, 1)
    return total


def expected(expression: str, tensors: Mapping[str, Tensor]) -> np.ndarray | sp.spmatrix:
    """The gold result: a dense array, or a scipy sparse matrix/column for large inputs."""
    assign = parse_expression(expression)
    unbound = [a.name for a in assign.rhs.accesses() if a.name not in tensors]
    if unbound:
        raise CheckError(f"cannot check {expression}: it reads {unbound[0]}, which is not an "
                         f"input of the graph (inputs: {', '.join(tensors) or 'none'})")
    size = _dense_size(assign, tensors)
    if size > SPARSE_FROM:
        try:
            return _expected_sparse(expression, assign, tensors)
        except CheckError:
            if size > DENSE_LIMIT:
                raise
    return evaluate(assign, {n: t.to_dense() for n, t in tensors.items()})


def _expected_sparse(expression: str, assign: Assignment,
                     tensors: Mapping[str, Tensor]) -> sp.spmatrix:
    placed = place_reductions(assign)
    mat, idx = _sparse(placed.rhs, tensors)
    out = placed.lhs.indices
    if len(out) == 2 and idx == (out[1], out[0]):
        mat = mat.T
    elif tuple(idx) != tuple(out):
        raise CheckError(f"cannot check {expression} with scipy: result indices {idx}")
    return sp.csr_matrix(mat)


def _sparse(node: Node, tensors: Mapping[str, Tensor]) -> tuple[sp.spmatrix, tuple[str, ...]]:
    """Evaluate with scipy.sparse; vectors are n x 1 matrices, scalars 1 x 1."""
    if isinstance(node, Access):
        t = tensors[node.name]
        if t.order == 2:
            return t.to_scipy(), node.indices
        if t.order == 1:
            coords, vals = t.to_coo()
            return sp.csr_matrix((vals, (coords[:, 0], np.zeros(len(vals), int))),
                                 shape=(t.shape[0], 1)), node.indices
        if t.order == 0:
            return sp.csr_matrix(np.array([[t.vals[0]]])), ()
    if isinstance(node, Neg):
        m, idx = _sparse(node.child, tensors)
        return -m, idx
    if isinstance(node, Sum) and isinstance(node.child, Mul):
        a, ia = _sparse(node.child.left, tensors)
        b, ib = _sparse(node.child.right, tensors)
        if len(node.vars_) == 1 and node.vars_[0] in ia and node.vars_[0] in ib:
            k = node.vars_[0]
            a = a if ia[-1] == k else a.T
            b = b if ib[0] == k else b.T
            keep_a = tuple(v for v in ia if v != k)
            keep_b = tuple(v for v in ib if v != k)
            if len(ia) <= 2 and len(ib) <= 2:
                if len(ia) == 1:
                    a = a.T  # row vector
                return a @ b, keep_a + keep_b
    if isinstance(node, Sum) and isinstance(node.child, Access):
        m, idx = _sparse(node.child, tensors)
        axis = idx.index(node.vars_[0])
        rest = tuple(v for v in idx if v not in node.vars_)
        summed = sp.csr_matrix(m.sum(axis=axis))
        return (summed.T if axis == 0 else summed), rest
    if isinstance(node, (Add, Mul)):
        a, ia = _sparse(node.left, tensors)
        b, ib = _sparse(node.right, tensors)
        if ia == ib or (len(ia) == 2 and ia == ib[::-1]):
            b = b if ia == ib else b.T
            if isinstance(node, Mul):
                return a.multiply(b), ia
            return (a - b if node.sub else a + b), ia
        if isinstance(node, Mul) and (ia == () or ib == ()):
            s, m, idx = (a, b, ib) if ia == () else (b, a, ia)
            return m * s.toarray()[0, 0], idx
    raise CheckError(
        "the operands are too large to check densely and the expression is not one scipy can "
        "evaluate; check on smaller inputs"
    )


def compare(result: Tensor, gold: np.ndarray | sp.spmatrix, rtol: float = 1e-9) -> CheckResult:
    """Compare a simulated tensor with the gold result (relative to the largest value)."""
    if sp.issparse(gold):
        got = result.to_scipy() if result.order == 2 else sp.csr_matrix(
            result.to_dense().reshape(-1, 1))
        if result.order > 2 or got.shape != gold.shape:
            want = gold.shape if result.order == 2 or gold.shape[1] != 1 else gold.shape[:1]
            raise CheckError(f"result shape {result.shape} differs from the expected {want}")
        diff = abs(got - gold)
        max_diff = float(diff.max()) if diff.nnz else 0.0
        scale = float(abs(gold).max()) if gold.nnz else 0.0
        nnz = int((gold != 0).sum())
    else:
        got = result.to_dense()
        gold = np.asarray(gold, dtype=np.float64)
        if got.shape != gold.shape:
            raise CheckError(f"result shape {got.shape} differs from the expected {gold.shape}")
        max_diff = float(np.abs(got - gold).max()) if gold.size else 0.0
        scale = float(np.abs(gold).max()) if gold.size else 0.0
        nnz = int(np.count_nonzero(gold))
    ok = max_diff <= rtol * max(scale, 1.0)
    return CheckResult(ok, max_diff, scale, nnz)
