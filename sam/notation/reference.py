"""Evaluate tensor index notation with numpy: the gold result a simulation is checked against.

Sums are placed as Custard places them (:func:`sam.notation.expr.place_reductions`): each summed
index variable is summed over the smallest subexpression that holds all its uses; an operand of
a ``+`` that lacks an index variable is broadcast over it, and so is the whole right-hand side
over result variables it lacks (``A(i,j)=b(i)``; their sizes are given). A constant is its value
everywhere. A quotient exists where both operands are nonzero (a division iterates like a
product, as in TACO), or where the dividend is when the divisor is a scalar; dense arrays cannot
tell a stored zero from an absent one, so :func:`sam.check.expected` checks divisions by
following the stored entries instead (:mod:`sam.gold`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sam.errors import CompileError
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
    deep_recursion,
    place_reductions,
)
from sam.notation.parse import parse_expression


def _sizes(assign: Assignment, arrays: Mapping[str, np.ndarray],
           given: Mapping[str, int] | None = None) -> dict[str, int]:
    sizes: dict[str, int] = dict(given or {})
    for acc in assign.rhs.accesses():
        if acc.name not in arrays:
            raise CompileError(f"no value given for tensor {acc.name}")
        arr = np.asarray(arrays[acc.name])
        if arr.ndim != len(acc.indices):
            raise CompileError(
                f"{acc.name} has {arr.ndim} dimension(s) but is used as {acc} in the expression"
            )
        for v, n in zip(acc.indices, arr.shape, strict=True):
            if sizes.setdefault(v, n) != n:
                raise CompileError(
                    f"index {v} has size {sizes[v]} in one tensor and {n} in {acc.name}"
                )
    missing = [v for v in assign.lhs.indices if v not in sizes]
    if missing:
        raise CompileError(
            f"index {missing[0]} of {assign.lhs.name} is on no operand, so its size is unknown; "
            f"give it (e.g. sizes={{'{missing[0]}': 10}})"
        )
    return sizes


def evaluate(assign: Assignment | str, arrays: Mapping[str, np.ndarray],
             sizes: Mapping[str, int] | None = None) -> np.ndarray:
    """The left-hand side's dense value, as a numpy array in its index order. ``sizes`` gives
    the sizes of result index variables that no operand has."""
    with deep_recursion():
        return _evaluate(assign, arrays, sizes)


def _evaluate(assign: Assignment | str, arrays: Mapping[str, np.ndarray],
              given: Mapping[str, int] | None) -> np.ndarray:
    if isinstance(assign, str):
        assign = parse_expression(assign)
    placed = place_reductions(assign)
    sizes = _sizes(placed, arrays, given)

    def ev(node: Node) -> tuple[np.ndarray, tuple[str, ...]]:
        if isinstance(node, Access):
            return np.asarray(arrays[node.name], dtype=np.float64), node.indices
        if isinstance(node, Literal):
            return np.asarray(node.value, dtype=np.float64), ()
        if isinstance(node, Neg):
            arr, idx = ev(node.child)
            return -arr, idx
        if isinstance(node, Sum):
            arr, idx = ev(node.child)
            axes = tuple(idx.index(v) for v in node.vars_)
            return arr.sum(axis=axes), tuple(v for v in idx if v not in node.vars_)
        left, lidx = ev(node.left)  # type: ignore[attr-defined]
        right, ridx = ev(node.right)  # type: ignore[attr-defined]
        idx = tuple(dict.fromkeys(lidx + ridx))
        a = _expand(left, lidx, idx, sizes)
        b = _expand(right, ridx, idx, sizes)
        if isinstance(node, Div):
            # the quotient exists where both operands do (TACO): a zero divisor gives no entry,
            # unless it is a scalar (always present)
            with np.errstate(all="ignore"):
                if not ridx:
                    return np.where(a != 0, a / b, 0.0), idx
                return np.where(b != 0, a / np.where(b != 0, b, 1.0), 0.0), idx
        if isinstance(node, Mul):
            return a * b, idx
        assert isinstance(node, Add)
        return (a - b if node.sub else a + b), idx

    arr, have = ev(placed.rhs)
    out = placed.lhs.indices
    idx = have + tuple(v for v in out if v not in have)
    arr = _expand(arr, have, idx, sizes)
    return np.transpose(arr, [idx.index(v) for v in out]) if out else np.asarray(arr)


def _expand(arr: np.ndarray, have: tuple[str, ...], want: tuple[str, ...],
            sizes: dict[str, int]) -> np.ndarray:
    """``arr`` over ``have`` broadcast to the full shape over ``want`` (a superset)."""
    order = [have.index(v) for v in want if v in have]
    arr = np.transpose(arr, order) if arr.ndim else arr
    shape = [sizes[v] if v in have else 1 for v in want]
    arr = arr.reshape(shape)
    return np.broadcast_to(arr, [sizes[v] for v in want]).copy()
