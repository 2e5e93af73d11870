"""Tensors stored level by level as fibertrees (SAM paper Sec. 3.1).

A :class:`Tensor` of order n has a shape (in tensor-mode order), a :class:`~formats.format.Format`
(one level format per level and the mode each level stores), the n stored levels (root first)
and a value array indexed by the positions of the last level. An order-0 tensor (a scalar) has
no levels and one value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from formats import memory
from formats.errors import FormatError
from formats.format import Format, as_format
from formats.levels import IDX, Level, RaggedLevel, walk_levels
from formats.ragged_build import build_nested, lengths_of_mask, nested_of, stored_mask
from formats.raggedness import Raggedness

if TYPE_CHECKING:
    import scipy.sparse as sp

VAL = np.float64


@dataclass(eq=False)
class Tensor:
    """A fibertree tensor: shape, format, stored levels and values."""

    shape: tuple[int, ...]
    format: Format
    levels: list[Level]
    vals: np.ndarray
    name: str | None = field(default=None)

    def __post_init__(self) -> None:
        self.shape = tuple(int(s) for s in self.shape)
        self.vals = np.asarray(self.vals, dtype=VAL)
        if self.format.order != len(self.shape) or len(self.levels) != len(self.shape):
            raise FormatError(
                f"tensor of shape {self.shape} needs {len(self.shape)} levels, format "
                f"{self.format} has {self.format.order} and {len(self.levels)} were given"
            )
        n = 1
        for level in self.levels:
            n = level.num_positions(n)
        if len(self.vals) != n:
            raise FormatError(f"value array has {len(self.vals)} entries, the levels need {n}")

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_coo(
        cls,
        coords: np.ndarray | Sequence[Sequence[int]],
        vals: np.ndarray | Sequence[float],
        shape: Sequence[int],
        fmt: Format | str | None = None,
        *,
        name: str | None = None,
        sum_duplicates: bool = True,
    ) -> Tensor:
        """Build from coordinates (nnz x order, tensor-mode order) and values.

        Explicit zeros in ``vals`` are stored. Duplicate coordinates are summed, or refused when
        ``sum_duplicates`` is False.
        """
        shape = tuple(int(s) for s in shape)
        order = len(shape)
        fmt = as_format(fmt, order)
        vals = np.asarray(vals, dtype=VAL).reshape(-1)
        coords = np.asarray(coords, dtype=IDX).reshape(len(vals), order)
        if np.iscomplexobj(vals):
            raise FormatError("complex values are not supported")
        if any(s < 0 for s in shape):
            raise FormatError(f"shape {shape} has a negative dimension")
        if len(vals):
            bad = (coords < 0) | (coords >= np.array(shape, dtype=IDX))
            if bad.any():
                row, mode = np.argwhere(bad)[0]
                raise FormatError(
                    f"coordinate {tuple(coords[row].tolist())} is outside shape {shape} "
                    f"(mode {mode})"
                )
        check_memory(shape, fmt, len(vals))
        if order == 0:
            return cls((), fmt, [], np.array([vals.sum() if len(vals) else 0.0]), name)

        perm = coords[:, list(fmt.mode_order)]  # storage (level) order
        sort = np.lexsort(perm.T[::-1]) if len(vals) else np.zeros(0, dtype=IDX)
        perm, vals = perm[sort], vals[sort]

        levels: list[Level] = []
        n_parents = 1
        point_parent = np.zeros(len(vals), dtype=IDX)  # parent position of each point
        # new[d]: the points whose coordinate prefix through level d differs from the previous
        new = [np.zeros(len(vals), dtype=bool) for _ in fmt.level_types]
        for lvl in range(order):
            if len(vals):
                new[lvl][0] = True
            if lvl:
                new[lvl] |= new[lvl - 1]
            if len(vals) > 1:
                new[lvl][1:] |= perm[1:, lvl] != perm[:-1, lvl]
        deep = 0
        for lvl, level_cls in enumerate(fmt.level_types):
            # A non-unique level stores a coordinate for every distinct prefix through the
            # singleton levels below it (COO: one per point), which tell its repeats apart; a
            # singleton level has one entry per parent position, so it follows its parent.
            deep = max(lvl, deep) if level_cls.branchless else lvl
            if not level_cls.unique:
                while deep + 1 < order and fmt.level_types[deep + 1].branchless:
                    deep += 1
            group = np.cumsum(new[deep]) - 1  # id of each point's distinct prefix
            first = np.flatnonzero(new[deep])
            size = shape[fmt.mode_order[lvl]]
            level, prefix_pos = level_cls.build(
                point_parent[first], perm[first, lvl], n_parents, size
            )
            levels.append(level)
            n_parents = level.num_positions(n_parents)
            point_parent = prefix_pos[group]
        if len(vals) and not sum_duplicates and len(np.unique(point_parent)) != len(point_parent):
            raise FormatError("duplicate coordinates; sum them or remove them")
        out = np.zeros(n_parents, dtype=VAL)
        np.add.at(out, point_parent, vals)
        return cls(shape, fmt, levels, out, name)

    @classmethod
    def from_dense(
        cls, array: np.ndarray | float, fmt: Format | str | None = None, *, name: str | None = None
    ) -> Tensor:
        """Build from a dense numpy array, storing its nonzeros."""
        arr = np.asarray(array)
        if np.iscomplexobj(arr):
            raise FormatError("complex values are not supported")
        coords = np.argwhere(arr != 0)
        return cls.from_coo(coords, arr[arr != 0], arr.shape, fmt, name=name)

    @classmethod
    def from_scipy(
        cls, matrix: sp.spmatrix | sp.sparray, fmt: Format | str | None = None, *,
        name: str | None = None,
    ) -> Tensor:
        """Build from any scipy.sparse matrix or array (explicit zeros are kept)."""
        import scipy.sparse as sp  # lazily: 0.1-0.2 s of start-up

        coo = sp.coo_matrix(matrix)
        if np.iscomplexobj(coo.data):
            raise FormatError("complex values are not supported")
        coords = np.stack([coo.row, coo.col], axis=1)
        return cls.from_coo(coords, coo.data, coo.shape, fmt, name=name)

    @classmethod
    def scalar(cls, value: float, name: str | None = None) -> Tensor:
        """An order-0 tensor."""
        return cls((), Format((), ()), [], np.array([value], dtype=VAL), name)

    @classmethod
    def from_ragged(
        cls, data: Sequence, fmt: str | None = None, *, pad: int = 1, spad: int | None = None,
        like: Tensor | Mapping[int, Raggedness] | None = None,
        shape: Sequence[int] | None = None, name: str | None = None,
    ) -> Tensor:
        """A ragged tensor from nested lists (``[[1, 2, 3], [4], ...]``; CoRa's ragged tensors).

        ``fmt`` gives one level letter per depth, ``d`` or ``r`` (default ``d`` then ``r``);
        ragged levels get loop padding ``pad`` and storage padding ``spad`` (a multiple of
        ``pad``; default ``pad``), or share the raggedness of ``like``: a tensor (each of its
        ragged levels shared at the same depth) or ``{level: Raggedness}``
        (:mod:`formats.ragged_build`). Each mode's size is ``shape``'s, else its longest padded
        fiber.
        """
        if isinstance(like, Tensor):
            like = {k: lv.raggedness for k, lv in enumerate(like.levels)
                    if isinstance(lv, RaggedLevel)}
        shape, levels, vals = build_nested(data, fmt, pad, spad, like, shape)
        letters = "".join(type(lv).letter for lv in levels)
        return cls(shape, Format(tuple(letters), tuple(range(len(letters)))), levels, vals, name)

    @classmethod
    def from_padded(
        cls, array: np.ndarray, mask: np.ndarray, *, pad: int = 1, spad: int | None = None,
        like: Tensor | Mapping[int, Raggedness] | None = None, name: str | None = None,
    ) -> Tensor:
        """A ragged tensor (``dr`` then ``d`` levels) from a padded dense array and its mask
        (True inside each row's prefix; shape ``array.shape[:k]``, k >= 2)."""
        arr = np.asarray(array)
        mask = np.asarray(mask, dtype=bool)
        if arr.ndim < 2 or mask.shape != arr.shape[: mask.ndim]:
            raise FormatError(f"mask of shape {mask.shape} does not cover the leading dimensions "
                              f"of the padded array of shape {arr.shape}")
        lens = lengths_of_mask(mask)
        data = [arr[b, :n] for b, n in enumerate(lens)]
        return cls.from_ragged(data, "dr" + "d" * (arr.ndim - 2), pad=pad, spad=spad, like=like,
                               name=name)

    def to_ragged(self) -> list:
        """Nested lists: each ragged fiber at its true (unpadded) length."""
        if list(self.format.mode_order) != list(range(self.order)) or not self.order:
            raise FormatError("to_ragged needs a tensor of order >= 1 stored in mode order")
        return nested_of(self.levels, self.vals)

    def to_padded(self) -> tuple[np.ndarray, np.ndarray]:
        """The padded dense form and its mask (True at the coordinates the levels store)."""
        return self.to_dense(), stored_mask(self.shape, self.levels, self.format.mode_order)

    # ------------------------------------------------------------------ conversion
    def to_coo(self, *, drop_zeros: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """All stored points: coordinates (nnz x order, tensor-mode order) and values.

        Dense levels store every coordinate, so their zero values appear here unless
        ``drop_zeros`` is set.
        """
        order = len(self.shape)
        pos = np.zeros(1, dtype=IDX)
        cols: list[np.ndarray] = []
        for level in self.levels:
            owner, crd, pos = level.expand(pos)
            cols = [c[owner] for c in cols] + [crd]
        vals = self.vals[pos] if order else self.vals.copy()
        perm = np.stack(cols, axis=1) if cols else np.zeros((len(vals), 0), dtype=IDX)
        coords = np.empty_like(perm)
        coords[:, list(self.format.mode_order)] = perm
        if drop_zeros:
            keep = vals != 0
            coords, vals = coords[keep], vals[keep]
        return coords, vals

    def to_dense(self) -> np.ndarray:
        """A dense numpy array of the tensor's shape."""
        out = np.zeros(self.shape, dtype=VAL)
        coords, vals = self.to_coo()
        if len(self.shape) == 0:
            return np.array(vals[0] if len(vals) else 0.0)
        np.add.at(out, tuple(coords.T), vals)
        return out

    def to_scipy(self) -> sp.csr_matrix:
        """A scipy CSR matrix (order-2 tensors only); stored zeros of compressed levels stay."""
        if len(self.shape) != 2:
            raise FormatError(f"only order-2 tensors convert to scipy, this one has order "
                              f"{len(self.shape)}")
        coords, vals = self.to_coo()
        if any(lv.full for lv in self.levels):
            keep = vals != 0
            coords, vals = coords[keep], vals[keep]
        import scipy.sparse as sp

        return sp.csr_matrix((vals, (coords[:, 0], coords[:, 1])), shape=self.shape)

    def with_format(self, fmt: Format | str) -> Tensor:
        """The same tensor stored in another format."""
        coords, vals = self.to_coo()
        keep = np.ones(len(vals), dtype=bool)
        if any(lv.full for lv in self.levels):
            keep = vals != 0
        return Tensor.from_coo(coords[keep], vals[keep], self.shape, fmt, name=self.name)

    # ------------------------------------------------------------------ inspection
    @property
    def order(self) -> int:
        return len(self.shape)

    @property
    def nnz(self) -> int:
        """Number of nonzero values stored."""
        return int(np.count_nonzero(self.vals))

    def level_of_mode(self, mode: int) -> Level:
        """The stored level holding tensor mode ``mode``."""
        return self.levels[self.format.level_of_mode(mode)]

    def walked_level_of_mode(self, mode: int) -> Level:
        """The level a scanner or locator walks for tensor mode ``mode``: the stored one, or for
        a non-unique level and the singletons below it their deduplicated view
        (:func:`formats.levels.walk_levels`)."""
        lvl = self.format.level_of_mode(mode)
        if all(lv.unique for lv in self.levels[: lvl + 1]):
            return self.levels[lvl]
        return walk_levels(self.levels)[lvl]

    def describe(self) -> str:
        """A short multi-line summary with every level's arrays."""
        name = self.name or "tensor"
        lines = [
            f"{name}: shape {'x'.join(map(str, self.shape)) or 'scalar'}, format {self.format} "
            f"({self.format.taco()}), {len(self.vals)} stored values, {self.nnz} nonzero"
        ]
        for lvl, level in enumerate(self.levels):
            mode = self.format.mode_order[lvl]
            lines.append(f"  level {lvl} (mode {mode}, {level.name}, size {level.size}):")
            for key, arr in level.arrays().items():
                if isinstance(arr, np.ndarray):
                    lines.append(f"    {key} = {_short(arr)}")
            if hasattr(level, "show_words"):  # a bitvector level: its words in binary
                shown = level.show_words()
                more = f", ... ({len(shown)} words)" if len(shown) > 8 else ""
                lines.append(f"    words (binary, lowest coordinate rightmost) = "
                             f"[{', '.join(shown[:8])}{more}]")
        lines.append(f"  vals = {_short(self.vals)}")
        return "\n".join(lines)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tensor):
            return NotImplemented
        return (
            self.shape == other.shape
            and self.format == other.format
            and self.levels == other.levels
            and np.array_equal(self.vals, other.vals)
        )

    def __repr__(self) -> str:
        return f"Tensor(name={self.name!r}, shape={self.shape}, format={self.format})"


def check_memory(shape: tuple[int, ...], fmt: Format, nnz: int) -> None:
    """Refuse (``FormatError``) to build a tensor that would not fit in the available memory
    (:mod:`formats.memory`), naming the cause: dense levels, or the number of points."""
    need = memory.stored_bytes(shape, fmt, nnz) + memory.build_bytes(len(shape), nnz)
    problem = memory.too_large(need)
    if problem is None:
        return
    if 2 * memory.dense_bytes(shape, fmt, nnz) >= need:
        hint = "its dense levels hold every coordinate; store the large modes compressed (s)"
    else:
        hint = "it has too many points for this machine"
    raise FormatError(f"storing a {'x'.join(map(str, shape))} tensor with {nnz:,} "
                      f"point{'s' if nnz != 1 else ''} as {fmt} {problem}: {hint}")


def _short(arr: np.ndarray, limit: int = 16) -> str:
    """Print an array, eliding the middle of long ones."""
    vals = arr.tolist()
    fmt = (lambda v: f"{v:g}") if arr.dtype.kind == "f" else str
    if len(vals) <= limit:
        return "[" + ", ".join(fmt(v) for v in vals) + "]"
    head = ", ".join(fmt(v) for v in vals[: limit // 2])
    tail = ", ".join(fmt(v) for v in vals[-limit // 4:])
    return f"[{head}, ... {tail}] ({len(vals)} entries)"
