"""``--check``: compute a graph's expression with numpy/scipy and compare the simulated result.

Small problems are evaluated densely (:func:`sam.notation.reference.evaluate`). For real matrices
that is slow or too big, so expressions over matrices and vectors whose sums contract two
operands (SpMV, SpM*SpM in any order, element-wise sums and products, transposes) are evaluated
with scipy.sparse, and everything else (any order, any expression) by following the nonzeros
(:mod:`sam.gold`), which never builds an array of the operands' full size. Operands with NaN or
inf values always take the sparse route: a structural zero times inf is no entry in SAM, as
there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

import numpy as np

from formats.errors import ToolkitError
from formats.format import Format
from formats.tensor import Tensor
from sam.gold import Coo, Evaluator, GoldError, coordinate_keys
from sam.notation.expr import (
    Access,
    Add,
    Assignment,
    Div,
    Literal,
    Mul,
    Neg,
    Node,
    Sum,
    children,
    deep_recursion,
    place_reductions,
)
from sam.notation.parse import broadcast_indices, parse_expression
from sam.notation.reference import evaluate

SPARSE_FROM = 1_000_000  # from this many dense elements on, prefer scipy.sparse when it applies


class CheckError(ToolkitError):
    """The expression cannot be checked (too large to evaluate, unsupported shape)."""


class ExpressionMismatch(CheckError):
    """The expression to check reads a tensor the graph does not (a mistake in ``--expr``)."""


@dataclass
class SparseGold:
    """A gold result as coordinates (``crd[k]`` in output mode order) and values."""

    shape: tuple[int, ...]
    crd: np.ndarray
    vals: np.ndarray

    def to_dense(self) -> np.ndarray:
        if not self.shape:
            return np.array(self.vals.sum() if len(self.vals) else 0.0)
        out = np.zeros(self.shape)
        if len(self.vals):
            np.add.at(out, tuple(self.crd.T), self.vals)
        return out


if TYPE_CHECKING:
    import scipy.sparse as sp

#: The gold result (scipy is imported only where a check uses it: about 0.15 s)
Gold = Union[np.ndarray, "sp.spmatrix", SparseGold]


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


def _index_sizes(assign: Assignment, tensors: Mapping[str, Tensor],
                 given: Mapping[str, int] | None) -> dict[str, int]:
    sizes: dict[str, int] = dict(given or {})
    for acc in assign.rhs.accesses():
        for v, n in zip(acc.indices, tensors[acc.name].shape, strict=False):
            sizes[v] = int(n)
    return sizes


def _dense_size(sizes: Mapping[str, int]) -> int:
    total = 1
    for n in sizes.values():
        total *= max(n, 1)
    return total


def expected(expression: str, tensors: Mapping[str, Tensor],
             sizes: Mapping[str, int] | None = None,
             formats: Mapping[str, Format] | None = None) -> Gold:
    """The gold result: a dense array for small problems with finite values, a scipy sparse
    matrix/column where scipy applies, else a sparse COO evaluation (:mod:`sam.gold`).
    ``sizes`` gives the sizes of result index variables that no operand has (``j`` in
    ``A(i,j)=b(i)``; a graph records them, :func:`sam.graph.implicit.index_sizes`).
    ``formats`` (a graph's) stores each tensor as the simulator does before evaluating: a
    quotient depends on which zeros are stored (a dense level stores them).

    Raises :class:`CheckError` (one line) when it cannot be computed: call it before a long
    simulation so that a run never ends in "cannot check"."""
    if formats:
        tensors = {n: t.with_format(formats[n]) if n in formats and t.order and
                   formats[n].order == t.order and formats[n] != t.format else t
                   for n, t in tensors.items()}
    assign = parse_expression(expression)
    unbound = [a.name for a in assign.rhs.accesses() if a.name not in tensors]
    if unbound:
        raise ExpressionMismatch(f"cannot check {expression}: it reads {unbound[0]}, which is "
                                 "not an input of the graph (inputs: "
                                 f"{', '.join(tensors) or 'none'})")
    index_sizes = _index_sizes(assign, tensors, sizes)
    unknown = [v for v in broadcast_indices(assign) if v not in index_sizes]
    if unknown:
        raise CheckError(f"cannot check {expression}: the size of index {unknown[0]} (on no "
                         "operand) is not known")
    finite = all(np.isfinite(t.vals).all() for t in tensors.values())
    # a quotient depends on which zeros are stored (a dense level stores them: x/0 = inf), which
    # dense arrays cannot tell: divisions follow the stored entries
    division = _has_division(assign.rhs)
    with deep_recursion():
        if _dense_size(index_sizes) <= SPARSE_FROM and finite and not division:
            return evaluate(assign, {n: t.to_dense() for n, t in tensors.items()}, index_sizes)
        if finite and not division:
            gold = _expected_einsum(assign, tensors, index_sizes)
            if gold is not None:
                return gold
        if finite and not broadcast_indices(assign) and not division \
                and _index_arrays_fit(tensors):
            try:
                return _expected_sparse(expression, assign, tensors)
            except CheckError:
                pass
        try:
            return _expected_coo(assign, tensors, index_sizes)
        except GoldError as err:
            raise CheckError(f"cannot check {expression}: {err}") from None


def _expected_einsum(assign: Assignment, tensors: Mapping[str, Tensor],
                     sizes: Mapping[str, int]) -> np.ndarray | None:
    """A sum of products of three or more operands or of tensors (SDDMM, TTV, MTTKRP...) with
    numpy's ``einsum``, when every operand and the result are at most :data:`SPARSE_FROM`
    dense entries: its intermediates are bounded by that too, whatever the iteration space
    (SDDMM on lp_scsd1 iterates over 15 M points: B .* (C @ D) is 58 k), and no scipy import
    (0.1-0.2 s). None for other expressions, and for products of two matrices or vectors,
    which scipy computes summing in the simulator's order (exactly equal results)."""
    placed = place_reductions(assign)
    product = placed.rhs.child if isinstance(placed.rhs, Sum) else placed.rhs
    factors = _factors(product)
    if not all(isinstance(f, (Access, Literal)) for f in factors):
        return None
    accesses = [f for f in factors if isinstance(f, Access)]
    if len(accesses) <= 2 and all(len(a.indices) <= 2 for a in accesses):
        return None  # scipy's sparse products sum in the simulator's order: exact
    out = placed.lhs.indices
    used = {v for a in accesses for v in a.indices}
    if not set(out) <= used or len(set(out)) != len(out):
        return None
    if _dense_size({v: sizes[v] for v in out}) > SPARSE_FROM or any(
            t.order and _dense_size(dict(enumerate(t.shape))) > SPARSE_FROM
            for t in tensors.values()):
        return None
    letter = {v: chr(ord("a") + k) for k, v in enumerate(sorted(used))}
    if len(letter) > 26:
        return None
    scale = 1.0
    for f in factors:
        if isinstance(f, Literal):
            scale *= f.value
    spec = (",".join("".join(letter[v] for v in a.indices) for a in accesses) + "->"
            + "".join(letter[v] for v in out))
    arrays = [tensors[a.name].to_dense() for a in accesses]
    with np.errstate(all="ignore"):
        return scale * np.einsum(spec, *arrays, optimize=("greedy", SPARSE_FROM))


#: scipy's compressed matrices hold an index pointer per row (or column): used only up to this
#: dimension (or 4 per stored entry), beyond it the gold follows the nonzeros alone
SCIPY_DIMENSION = 1 << 24


def _index_arrays_fit(tensors: Mapping[str, Tensor]) -> bool:
    """Whether scipy's index pointers for every operand stay small (a 10^11 x 10^11 matrix of
    one nonzero would ask for a 745 GiB row pointer)."""
    nnz = sum(t.nnz for t in tensors.values())
    return all(max(t.shape, default=0) <= max(SCIPY_DIMENSION, 4 * nnz)
               for t in tensors.values())


def _has_division(node: Node) -> bool:
    return isinstance(node, Div) or any(_has_division(c) for c in children(node))


def _expected_coo(assign: Assignment, tensors: Mapping[str, Tensor],
                  sizes: Mapping[str, int] | None = None) -> SparseGold:
    """Evaluate with :class:`sam.gold.Evaluator`, following the nonzeros (``sizes``: of every
    index variable; by default from the operands)."""
    if sizes is None:
        sizes = _index_sizes(assign, tensors, None)
    ev = Evaluator(tensors, sizes)
    placed = place_reductions(assign)

    def walk(node: Node) -> Coo:
        if isinstance(node, Access):
            return ev.access(node.name, node.indices)
        if isinstance(node, Literal):
            return ev.constant(node.value)
        if isinstance(node, Neg):
            return ev.neg(walk(node.child))
        if isinstance(node, Sum):
            return ev.sum(walk(node.child), tuple(node.vars_))
        if isinstance(node, Mul):
            return ev.mul(walk(node.left), walk(node.right), divide=isinstance(node, Div))
        if isinstance(node, Add):
            return ev.add(walk(node.left), walk(node.right), node.sub)
        raise GoldError(f"cannot evaluate {type(node).__name__} nodes")

    out = walk(placed.rhs)
    lhs = tuple(placed.lhs.indices)
    out = ev.broadcast(out, lhs)
    shape = tuple(sizes.get(v, 1) for v in lhs)
    return SparseGold(shape, out.crd, out.vals)


def _expected_sparse(expression: str, assign: Assignment,
                     tensors: Mapping[str, Tensor]) -> sp.spmatrix:
    import scipy.sparse as sp

    placed = place_reductions(assign)
    mat, idx = _sparse(placed.rhs, tensors)
    out = placed.lhs.indices
    if len(out) == 2 and idx == (out[1], out[0]):
        mat = mat.T
    elif tuple(idx) != tuple(out):
        raise CheckError(f"cannot check {expression} with scipy: result indices {idx}")
    return sp.csr_matrix(mat)


def _factors(node: Node) -> list[Node]:
    """The factors of a product (a quotient is one factor)."""
    if isinstance(node, Mul) and not isinstance(node, Div):
        return _factors(node.left) + _factors(node.right)
    return [node]


def _contraction(k: str, product: Mul) -> tuple[Mul, Node] | None:
    """A product of factors of which exactly two hold ``k`` and at least one does not: (the
    two, the product of the others), so that summing over ``k`` is a matrix product times the
    others; None otherwise."""
    factors = _factors(product)
    with_k = [f for f in factors if k in f.vars()]
    rest = [f for f in factors if k not in f.vars()]
    if len(with_k) != 2 or not rest:
        return None
    others = rest[0]
    for f in rest[1:]:
        others = Mul(others, f)
    return Mul(with_k[0], with_k[1]), others


def _sparse(node: Node, tensors: Mapping[str, Tensor]) -> tuple[sp.spmatrix, tuple[str, ...]]:
    """Evaluate with scipy.sparse; vectors are n x 1 matrices, scalars 1 x 1."""
    import scipy.sparse as sp

    if isinstance(node, Div):
        raise CheckError("divisions are checked by following the stored entries")
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
    if isinstance(node, Literal):
        return sp.csr_matrix(np.array([[node.value]])), ()
    if isinstance(node, Neg):
        m, idx = _sparse(node.child, tensors)
        return -m, idx
    if isinstance(node, Sum) and isinstance(node.child, Mul) and len(node.vars_) == 1:
        split = _contraction(node.vars_[0], node.child)
        if split is not None:  # sum_k(B(i,j) * C(i,k) * D(k,j)) = B .* (C @ D): SDDMM
            pair, rest = split
            return _sparse(Mul(Sum(node.vars_, pair), rest), tensors)
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


def compare(result: Tensor, gold: Gold, rtol: float = 1e-9) -> CheckResult:
    """Compare a simulated tensor with the gold result (relative to the largest finite value).

    Entries compare on the union of both sides' nonzeros (a missing entry is 0). NaN equals NaN
    and an infinity equals the same infinity; numpy never warns."""
    if isinstance(gold, SparseGold):
        shape = gold.shape
        g_crd, g_vals = gold.crd, gold.vals
    elif type(gold).__module__.startswith("scipy."):  # a scipy sparse matrix
        import scipy.sparse as sp

        shape = gold.shape if result.order == 2 or gold.shape[1] != 1 else gold.shape[:1]
        coo = sp.coo_matrix(gold)
        g_crd = np.stack([coo.row, coo.col], axis=1)[:, : len(shape)]
        g_vals = coo.data
    else:
        gold = np.asarray(gold, dtype=np.float64)
        shape = gold.shape
        g_crd = np.argwhere(gold != 0) if gold.ndim else np.zeros((1, 0), np.int64)
        g_vals = gold[tuple(g_crd.T)] if gold.ndim else gold.reshape(1)
    if tuple(result.shape) != tuple(shape):
        raise CheckError(f"result shape {tuple(result.shape)} differs from the expected "
                         f"{tuple(shape)}")
    r_crd, r_vals = result.to_coo()
    r_crd = np.asarray(r_crd, np.int64).reshape(len(r_vals), len(shape))
    got, want = _aligned(shape, r_crd, np.asarray(r_vals, np.float64), g_crd,
                         np.asarray(g_vals, np.float64))
    with np.errstate(all="ignore"):
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        diff = np.where(same, 0.0, np.abs(got - want))
        finite = want[np.isfinite(want)]
        scale = float(np.abs(finite).max()) if finite.size else 0.0
        max_diff = float(np.nan_to_num(diff, nan=np.inf).max()) if diff.size else 0.0
    nnz = int(np.count_nonzero(want))
    ok = max_diff <= rtol * max(scale, 1.0)
    return CheckResult(ok, max_diff, scale, nnz)


def _aligned(shape: tuple[int, ...], a_crd: np.ndarray, a_vals: np.ndarray,
             b_crd: np.ndarray, b_vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both sides' values on the union of their coordinates (duplicates summed, missing 0)."""
    dims = tuple(max(int(n), 1) for n in shape)
    if not shape:
        return (np.array([a_vals.sum() if a_vals.size else 0.0]),
                np.array([b_vals.sum() if b_vals.size else 0.0]))
    ka = coordinate_keys(a_crd, dims)
    kb = coordinate_keys(b_crd, dims)
    if ka.dtype != kb.dtype:  # one side empty: its keys are int64, the other's objects
        ka, kb = ka.astype(object), kb.astype(object)
    keys, inverse = np.unique(np.concatenate([ka, kb]), return_inverse=True)
    inverse = inverse.ravel()
    a = np.zeros(len(keys))
    b = np.zeros(len(keys))
    with np.errstate(all="ignore"):
        np.add.at(a, inverse[: len(ka)], a_vals)
        np.add.at(b, inverse[len(ka):], b_vals)
    return a, b
