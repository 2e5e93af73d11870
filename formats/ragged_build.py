"""Ragged tensors from and to nested Python lists (CoRa's ragged tensors as fibertrees).

A nested list of depth n (lists, tuples or numpy arrays, numbers at the bottom) is an order-n
tensor: the outer list is a dense level, each deeper list a fiber of the next level. A level
stored ``r`` (:class:`~formats.levels.RaggedLevel`) takes its lengths from the data, one per
parent position; a level stored ``d`` below the root needs every list at its depth to have one
length. Levels are in mode order (a ragged tensor is stored in the order it is nested).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from formats.errors import FormatError
from formats.levels import IDX, DenseLevel, Level, RaggedLevel, level_type
from formats.raggedness import Raggedness

VAL = np.float64


def _depth(data: object) -> int:
    depth = 0
    while isinstance(data, (list, tuple, np.ndarray)):
        if isinstance(data, np.ndarray):
            return depth + data.ndim
        depth += 1
        if not len(data):
            break
        data = data[0]
    return depth


def build_nested(data: Sequence, letters: str | None, pad: int, spad: int | None,
                 like: Mapping[int, Raggedness] | None, shape: Sequence[int] | None = None
                 ) -> tuple[tuple[int, ...], list[Level], np.ndarray]:
    """Shape, levels and values of the nested list ``data`` stored with level ``letters``
    (default ``d`` then ``r`` for every deeper level). ``like`` maps levels to the
    :class:`Raggedness` they reuse (shared raggedness; the lengths must agree); other ragged
    levels get their own, padded by ``pad`` and ``spad``.
    ``shape`` gives the mode sizes (default: each ragged mode's longest padded fiber)."""
    depth = _depth(data)
    if depth < 1:
        raise FormatError("ragged data must be a (nested) list of numbers, e.g. [[1, 2], [3]]")
    letters = letters or "d" + "r" * (depth - 1)
    if len(letters) != depth:
        raise FormatError(f"format {letters!r} has {len(letters)} levels but the data is nested "
                          f"{depth} deep; give one level letter per depth")
    if shape is not None and len(shape) != depth:
        raise FormatError(f"shape {tuple(shape)} has {len(shape)} modes but the data is nested "
                          f"{depth} deep")
    nodes: list = [data]
    npos = 1
    node_pos = np.zeros(1, dtype=IDX)
    levels: list[Level] = []
    sizes: list[int] = []
    for lvl, letter in enumerate(letters):
        cls = level_type(letter)
        lens = np.fromiter((_length(x, lvl) for x in nodes), dtype=IDX, count=len(nodes))
        children: list = [c for x in nodes for c in x] if lvl + 1 < depth else []
        offsets = np.arange(int(lens.sum()), dtype=IDX) - np.repeat(np.cumsum(lens) - lens, lens)
        owner_pos = np.repeat(node_pos, lens)
        if cls is RaggedLevel:
            by_pos = np.zeros(npos, dtype=IDX)
            by_pos[node_pos] = lens
            if like is not None and lvl in like:
                rag = like[lvl]
                if not np.array_equal(rag.lengths, by_pos):
                    raise FormatError(f"level {lvl} of the data does not have the lengths of the "
                                      "ragged level it should share; share only equal raggedness")
            else:
                rag = Raggedness(by_pos, pad, spad)
            size = rag.max_loop if shape is None else int(shape[lvl])
            level: Level = RaggedLevel(size, rag)
            pos = rag.seg[owner_pos] + offsets
        elif cls is DenseLevel:
            size = int(lens[0]) if len(lens) else (0 if shape is None else int(shape[lvl]))
            if shape is not None and size != shape[lvl]:
                raise FormatError(f"level {lvl} is dense with {size} entries per list but the "
                                  f"shape gives {shape[lvl]}")
            if np.any(lens != size):
                bad = int(np.flatnonzero(lens != size)[0])
                raise FormatError(
                    f"level {lvl} is dense ({letter}) but its lists have lengths {size} and "
                    f"{int(lens[bad])}; store it ragged (r)")
            level = DenseLevel(size)
            pos = owner_pos * size + offsets
        else:
            raise FormatError(f"ragged data is stored with dense (d) and ragged (r) levels, not "
                              f"{cls.name} ({letter}); convert afterwards with with_format")
        levels.append(level)
        sizes.append(level.size)
        npos = level.num_positions(npos)
        node_pos, nodes = pos, children
    vals = np.zeros(npos, dtype=VAL)
    flat = _leaves(data, depth)
    vals[node_pos] = flat
    return tuple(sizes), levels, vals


def _length(x: object, lvl: int) -> int:
    if not isinstance(x, (list, tuple, np.ndarray)):
        raise FormatError(f"ragged data: a number where a list was expected at depth {lvl}; "
                          "nest every entry equally deep")
    return len(x)


def _leaves(data: Sequence, depth: int) -> np.ndarray:
    nodes: list = [data]
    for _ in range(depth - 1):
        nodes = [c for x in nodes for c in x]
    parts = []
    for x in nodes:
        try:
            arr = np.asarray(x, dtype=VAL)
        except (TypeError, ValueError):
            arr = None
        if arr is None or arr.ndim != 1:
            raise FormatError("ragged data: the innermost lists must hold numbers, every entry "
                              "nested equally deep")
        parts.append(arr)
    flat = np.concatenate(parts) if parts else np.zeros(0, dtype=VAL)
    if np.iscomplexobj(flat):
        raise FormatError("complex values are not supported")
    return flat


def nested_of(levels: Sequence[Level], vals: np.ndarray) -> list:
    """The nested lists of a tensor stored in mode order: a ragged level gives each fiber its true
    (unpadded) length, any other level its stored coordinates."""

    def fiber(lvl: int, p: int) -> list:
        level = levels[lvl]
        last = lvl + 1 == len(levels)
        rag = getattr(level, "raggedness", None)
        if rag is not None:
            start = int(rag.seg[p])
            if last:
                return vals[start:start + int(rag.lengths[p])].tolist()
            pos = range(start, start + int(rag.lengths[p]))
        elif last and isinstance(level, DenseLevel):
            return vals[p * level.size:(p + 1) * level.size].tolist()
        else:
            crd, positions = level.fiber(p)
            out = [0.0] * level.size
            for c, q in zip(crd.tolist(), positions.tolist(), strict=True):
                out[c] = fiber(lvl + 1, q) if lvl + 1 < len(levels) else float(vals[q])
            return out
        if lvl + 1 == len(levels):
            return [float(vals[q]) for q in pos]
        return [fiber(lvl + 1, q) for q in pos]

    return fiber(0, 0)


def stored_mask(shape: tuple[int, ...], levels: Sequence[Level], mode_order: Sequence[int]
                ) -> np.ndarray:
    """Boolean array of ``shape``: True where a coordinate is stored (inside a fiber's loop)."""
    mask = np.zeros(shape, dtype=bool)
    pos = np.zeros(1, dtype=IDX)
    cols: list[np.ndarray] = []
    for level in levels:
        owner, crd, pos = level.expand(pos)
        cols = [c[owner] for c in cols] + [crd]
    if not shape:
        return np.ones((), dtype=bool)
    perm = np.stack(cols, axis=1)
    coords = np.empty_like(perm)
    coords[:, list(mode_order)] = perm
    mask[tuple(coords.T)] = True
    return mask


def lengths_of_mask(mask: np.ndarray) -> list[int]:
    """Fiber lengths of a 2-D prefix mask (each row True then False); ``FormatError`` if a row
    has a gap."""
    if mask.ndim < 2:
        raise FormatError("a mask for ragged data needs at least two dimensions")
    rows = mask.reshape(mask.shape[0], mask.shape[1], -1).any(axis=2)
    lens = rows.sum(axis=1)
    expect = np.arange(rows.shape[1])[None, :] < lens[:, None]
    if not np.array_equal(rows, expect):
        bad = int(np.flatnonzero((rows != expect).any(axis=1))[0])
        raise FormatError(f"mask row {bad} is not a prefix (True then False); a ragged fiber "
                          "holds coordinates 0..L-1")
    return lens.tolist()
