"""Tiling a sparse tensor (SAM paper Sec. 4.1, Figure 9): COO -> multi-level tiles.

A tensor of shape ``S`` tiled with sizes ``[T0, T1, ...]`` (one tuple per level, one entry per
mode; e.g. LLB tiles 2048x2048, then PE tiles 128x128 inside them) becomes a grid of level-0
tiles, each of which is a grid of level-1 tiles, and so on; the last level holds the nonzeros in
tile-local coordinates. Only nonempty tiles are stored (empty tiles are what tile skipping skips).
The *tile-coordinate tensor* of a level (:meth:`Tiled.occupancy`) has one entry per nonempty
tile, so that a SAM graph can iterate the tiles with scanners and intersecters like any tensor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from formats.errors import FormatError
from formats.format import Format
from formats.tensor import Tensor

TileKey = tuple[int, ...]


@dataclass
class Tiled:
    """One tiling level of a tensor region: ``tiles`` maps the coordinate of each nonempty tile
    (in tile units) to the next level (a :class:`Tiled`), or at the last level to the tile's
    ``(coords, vals)`` in tile-local coordinates."""

    shape: tuple[int, ...]
    tile_shape: tuple[int, ...]
    tiles: dict[TileKey, Tiled | tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    @property
    def grid(self) -> tuple[int, ...]:
        """Number of tiles along each mode."""
        return tuple(-(-s // t) for s, t in zip(self.shape, self.tile_shape, strict=True))

    def extent(self, key: TileKey) -> tuple[int, ...]:
        """The shape of tile ``key`` (tiles at the upper edges are clipped to the tensor)."""
        return tuple(min(t, s - k * t)
                     for k, t, s in zip(key, self.tile_shape, self.shape, strict=True))

    def keys(self) -> list[TileKey]:
        """Coordinates of the nonempty tiles, in lexicographic order."""
        return sorted(self.tiles)

    def occupancy(self, fmt: Format | str | None = None, name: str | None = None) -> Tensor:
        """The tile-coordinate tensor: value 1 at every nonempty tile of this level."""
        keys = self.keys()
        coords = np.array(keys, dtype=np.int64).reshape(len(keys), len(self.shape))
        return Tensor.from_coo(coords, np.ones(len(keys)), self.grid, fmt, name=name)

    def tile(self, key: TileKey, fmt: Format | str | None = None,
             name: str | None = None) -> Tensor:
        """The last-level tile ``key`` as a tensor of its (clipped) shape; empty if not stored."""
        got = self.tiles.get(tuple(key))
        if isinstance(got, Tiled):
            raise FormatError(f"tile {key} is not a last-level tile; take .tiles[{key}] first")
        order = len(self.shape)
        coords, vals = got if got is not None else (np.zeros((0, order), np.int64), np.zeros(0))
        return Tensor.from_coo(coords, vals, self.extent(tuple(key)), fmt, name=name)

    def nnz(self) -> int:
        return sum(t.nnz() if isinstance(t, Tiled) else len(t[1]) for t in self.tiles.values())


def tile_coo(coords: np.ndarray, vals: np.ndarray, shape: Sequence[int],
             sizes: Sequence[Sequence[int]]) -> Tiled:
    """Tile COO ``coords`` (nnz x order) / ``vals`` of ``shape`` with one tile shape per level
    (outermost first; each level's tiles should divide the previous level's)."""
    shape = tuple(int(s) for s in shape)
    if not sizes:
        raise FormatError("tiling needs at least one level of tile sizes")
    top = tuple(int(t) for t in sizes[0])
    if len(top) != len(shape):
        raise FormatError(f"tile shape {top} has {len(top)} modes but the tensor has shape "
                          f"{shape}; give one tile size per mode")
    if any(t < 1 for t in top):
        raise FormatError(f"tile shape {top}: every tile size must be at least 1")
    coords = np.asarray(coords, dtype=np.int64).reshape(len(vals), len(shape))
    vals = np.asarray(vals, dtype=np.float64).reshape(-1)
    out = Tiled(shape, top)
    if not len(vals):
        return out
    if not shape:  # a scalar is its own single tile
        out.tiles[()] = (coords, vals)
        return out
    tid = coords // np.array(top, dtype=np.int64)
    order = np.lexsort(tid.T[::-1])
    tid, local, vals = tid[order], coords[order] - tid[order] * top, vals[order]
    starts = np.flatnonzero(np.r_[True, (tid[1:] != tid[:-1]).any(axis=1)])
    ends = np.r_[starts[1:], len(vals)]
    for a, b in zip(starts, ends, strict=True):
        key = tuple(int(x) for x in tid[a])
        if len(sizes) > 1:
            out.tiles[key] = tile_coo(local[a:b], vals[a:b], out.extent(key), sizes[1:])
        else:
            out.tiles[key] = (local[a:b], vals[a:b])
    return out


def tile_tensor(tensor: Tensor, sizes: Sequence[Sequence[int]]) -> Tiled:
    """:func:`tile_coo` of a tensor's stored entries (explicit zeros included)."""
    coords, vals = tensor.to_coo()
    return tile_coo(coords, vals, tensor.shape, sizes)
