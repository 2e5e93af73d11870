"""Gold results of index notation at any size: a sparse (COO) evaluation with numpy.

The dense reference (``evaluate``) needs arrays of the operands' full size; this one follows the
nonzeros, as SAM does (Sec. 2.1): a product (or a quotient) joins its operands on their shared
index variables and multiplies (divides) every matching pair of stored entries (structural zeros
annihilate, so ``inf * 0`` is never formed); a sum adds the values that agree on the remaining
variables; ``+``/``-`` unite the nonzeros, repeating an operand along variables it lacks (its
value holds for every coordinate of them). Cost and memory follow the number of products formed,
which :func:`estimate` gives before anything is computed, so a caller can refuse early.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from formats.errors import ToolkitError
from formats.tensor import Tensor

#: Largest number of entries (products or repeated values) an evaluation may form. About 40
#: bytes each with coordinates, so 2e8 is at most a few GB.
MAX_ENTRIES = 200_000_000


class GoldError(ToolkitError):
    """The gold result cannot be computed (too many products, unsupported construct)."""


@dataclass
class Coo:
    """Nonzeros of a tensor over named index variables: ``crd[k, d]`` is entry k's coordinate
    of ``indices[d]``; ``sizes`` gives every variable's range."""

    indices: tuple[str, ...]
    crd: np.ndarray  # int64[nnz, len(indices)]
    vals: np.ndarray  # float64[nnz]

    @property
    def nnz(self) -> int:
        return len(self.vals)


def coordinate_keys(crd: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """One int64 (or object, when the product of sizes overflows) key per coordinate row."""
    if not shape:
        return np.zeros(len(crd), np.int64)
    total = 1
    for n in shape:
        total *= max(int(n), 1)
    if total < 2**62:
        return np.ravel_multi_index(tuple(crd.T), tuple(max(int(n), 1) for n in shape))
    keys = np.zeros(len(crd), dtype=object)
    for d, n in enumerate(shape):
        keys = keys * max(int(n), 1) + crd[:, d].astype(object)
    return keys


def _aggregate(indices: tuple[str, ...], crd: np.ndarray, vals: np.ndarray,
               sizes: Mapping[str, int]) -> Coo:
    """Sum the values of equal coordinates (sorted in index order)."""
    if len(vals) == 0 or not indices:
        if not indices:
            with np.errstate(all="ignore"):
                total = np.array([vals.sum()]) if len(vals) else np.zeros(0)
            return Coo((), np.zeros((len(total), 0), np.int64), total)
        return Coo(indices, crd.reshape(0, len(indices)), vals)
    keys = coordinate_keys(crd, tuple(sizes[v] for v in indices))
    uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    with np.errstate(all="ignore"):
        summed = np.zeros(len(uniq))
        np.add.at(summed, inverse.ravel(), vals)
    return Coo(indices, crd[first], summed)


class Evaluator:
    """Evaluates an expression tree over bound tensors (see module docstring)."""

    def __init__(self, tensors: Mapping[str, Tensor], sizes: Mapping[str, int]) -> None:
        self.tensors = tensors
        self.sizes = dict(sizes)

    def access(self, name: str, indices: tuple[str, ...]) -> Coo:
        t = self.tensors[name]
        if t.order == 0:
            return Coo((), np.zeros((1, 0), np.int64), np.asarray(t.vals[:1], np.float64))
        crd, vals = t.to_coo()
        crd = np.asarray(crd, np.int64).reshape(len(vals), t.order)
        vals = np.asarray(vals, np.float64)
        # A repeated variable (B(i,i)) keeps the diagonal only.
        keep = np.ones(len(vals), bool)
        first: dict[str, int] = {}
        cols = []
        for d, v in enumerate(indices):
            if v in first:
                keep &= crd[:, d] == crd[:, first[v]]
            else:
                first[v] = d
                cols.append(d)
        return Coo(tuple(first), crd[keep][:, cols], vals[keep])

    def constant(self, value: float) -> Coo:
        """A numeric constant: a scalar (a zero stays a stored zero: it is a value)."""
        return Coo((), np.zeros((1, 0), np.int64), np.array([value], np.float64))

    def neg(self, a: Coo) -> Coo:
        return Coo(a.indices, a.crd, -a.vals)

    def mul(self, a: Coo, b: Coo, divide: bool = False) -> Coo:
        """Join on the shared variables; one product (or quotient ``a/b``: a division iterates
        like a product) per matching pair of stored entries."""
        shared = [v for v in a.indices if v in b.indices]
        out = a.indices + tuple(v for v in b.indices if v not in a.indices)
        ka = coordinate_keys(a.crd[:, [a.indices.index(v) for v in shared]],
                   tuple(self.sizes[v] for v in shared))
        kb = coordinate_keys(b.crd[:, [b.indices.index(v) for v in shared]],
                   tuple(self.sizes[v] for v in shared))
        order_b = np.argsort(kb, kind="stable")
        kb_sorted = kb[order_b]
        lo = np.searchsorted(kb_sorted, ka, side="left")
        hi = np.searchsorted(kb_sorted, ka, side="right")
        counts = hi - lo
        total = int(counts.sum())
        if total > MAX_ENTRIES:
            raise GoldError(f"the gold result needs {total:,} products (limit {MAX_ENTRIES:,}); "
                            "check on smaller inputs")
        ia = np.repeat(np.arange(a.nnz), counts)
        starts = np.repeat(lo - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
        ib = order_b[np.arange(total) + starts] if total else np.zeros(0, np.int64)
        extra = [b.indices.index(v) for v in b.indices if v not in a.indices]
        crd = np.concatenate([a.crd[ia], b.crd[ib][:, extra]], axis=1) if total else \
            np.zeros((0, len(out)), np.int64)
        with np.errstate(all="ignore"):
            vals = a.vals[ia] / b.vals[ib] if divide else a.vals[ia] * b.vals[ib]
        return Coo(out, crd, vals)

    def sum(self, a: Coo, summed: tuple[str, ...]) -> Coo:
        keep = tuple(v for v in a.indices if v not in summed)
        return _aggregate(keep, a.crd[:, [a.indices.index(v) for v in keep]], a.vals, self.sizes)

    def broadcast(self, a: Coo, want: tuple[str, ...]) -> Coo:
        """Repeat ``a`` along the variables of ``want`` it lacks, in ``want``'s order."""
        missing = [v for v in want if v not in a.indices]
        crd, vals, have = a.crd, a.vals, list(a.indices)
        for v in missing:
            n = self.sizes[v]
            if len(vals) * n > MAX_ENTRIES:
                raise GoldError(f"the gold result repeats {len(vals):,} values {n:,} times along "
                                f"{v} (limit {MAX_ENTRIES:,} entries); check on smaller inputs")
            crd = np.concatenate([np.repeat(crd, n, axis=0),
                                  np.tile(np.arange(n, dtype=np.int64), len(vals))[:, None]],
                                 axis=1)
            vals = np.repeat(vals, n)
            have.append(v)
        return Coo(tuple(want), crd[:, [have.index(v) for v in want]], vals)

    def add(self, a: Coo, b: Coo, sub: bool) -> Coo:
        want = a.indices + tuple(v for v in b.indices if v not in a.indices)
        a, b = self.broadcast(a, want), self.broadcast(b, want)
        crd = np.concatenate([a.crd, b.crd])
        vals = np.concatenate([a.vals, -b.vals if sub else b.vals])
        return _aggregate(want, crd, vals, self.sizes)


def to_dense(gold: Coo, shape: tuple[int, ...]) -> np.ndarray:
    """The gold result as a dense array (for small problems and tests)."""
    out = np.zeros(shape)
    if gold.nnz:
        np.add.at(out, tuple(gold.crd.T), gold.vals)
    return out
