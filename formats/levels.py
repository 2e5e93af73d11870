"""Level formats: how one fibertree level is stored in memory (SAM paper Sec. 3.1, Fig. 1c).

A level holds, for every *parent position* (a position of the level above; the root level has
one parent position, 0), one fiber of coordinates. Each coordinate gets a *position* in the level,
which is the reference the next level (or the value array) is indexed by.

* :class:`DenseLevel` (uncompressed, letter ``d``): stores only the size N; the fiber of parent
  position p holds every coordinate 0..N-1 at positions ``p*N + c``.
* :class:`CompressedLevel` (letter ``s``): a segment array and a coordinate array; the fiber of
  parent position p holds ``crd[seg[p]:seg[p+1]]`` at positions ``seg[p]..seg[p+1]-1``.

Every level class declares its *capabilities* (TACO's mode-format properties) and how a SAM
scanner, locator or writer uses it; code outside ``formats/`` asks these, never the letter or the
class. New level formats (bitvector, ragged) subclass :class:`Level` and register their letter in
:data:`LEVEL_TYPES`; callers only use the interface below.

========================  =========  ============  =============================================
property                  dense      compressed    meaning
========================  =========  ============  =============================================
``full``                  yes        no            every coordinate 0..N-1 of a fiber is present
``ordered``               yes        yes           coordinates of a fiber ascend
``unique``                yes        yes           no coordinate repeats within a fiber
``branchless``            no         no            one coordinate per parent position
``compact``               yes        yes           positions are 0..n-1 with no gaps
``has_locate``            yes        no            position of coordinate c found in O(1)
``has_append``            no         yes           built by appending coordinates in order
``positions``             stride     segment       fiber p's positions: p*N.., seg[p]..seg[p+1]
``coordinates``           offset     stored        coordinate at position q: q - start, crd[q]
========================  =========  ============  =============================================
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from formats.errors import FormatError

IDX = np.int64


class Level(ABC):
    """One stored fibertree level."""

    letter: ClassVar[str]
    #: The name used by the Custard DOT schema's ``format`` attribute.
    name: ClassVar[str]

    # Capabilities (TACO mode-format properties; see the module docstring's table).
    #: Every coordinate 0..N-1 is present in every fiber (a counter; empty only when N = 0).
    full: ClassVar[bool] = False
    #: Coordinates within a fiber ascend.
    ordered: ClassVar[bool] = True
    #: No coordinate repeats within a fiber.
    unique: ClassVar[bool] = True
    #: Exactly one coordinate per parent position.
    branchless: ClassVar[bool] = False
    #: Positions are numbered 0..n-1 without gaps.
    compact: ClassVar[bool] = True
    #: The position of a coordinate can be computed in O(1) (Def. 4.1, locate).
    has_locate: ClassVar[bool] = False
    #: The level is built by appending coordinates in order (a level writer, Def. 3.8).
    has_append: ClassVar[bool] = False

    # How a level scanner / locator walks it (the scanner kernel's two rules).
    #: Positions of fiber p: ``"stride"`` (p*N .. p*N+N-1), ``"segment"`` (seg[p] .. seg[p+1]-1)
    #: or ``"single"`` (p only).
    positions: ClassVar[str]
    #: Coordinate at position q: ``"offset"`` (q minus the fiber's first position) or
    #: ``"stored"`` (crd[q]).
    coordinates: ClassVar[str]

    def __init__(self, size: int) -> None:
        self.size = int(size)

    @classmethod
    @abstractmethod
    def build(
        cls, parent: np.ndarray, crd: np.ndarray, n_parents: int, size: int
    ) -> tuple[Level, np.ndarray]:
        """Store the sorted, distinct (parent position, coordinate) pairs of this level.

        Returns the level and the position of each pair.
        """

    @abstractmethod
    def num_positions(self, n_parents: int) -> int:
        """How many positions the level has below ``n_parents`` parent positions."""

    @abstractmethod
    def expand(self, parents: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Iterate the fibers of ``parents``: (index into ``parents``, coordinate, position)."""

    @abstractmethod
    def arrays(self) -> dict[str, np.ndarray | int]:
        """The level's storage, as named arrays (for printing and writers)."""

    def memories(self) -> dict[str, np.ndarray]:
        """The arrays a scanner or locator reads (``seg``, ``crd``; none for a dense level)."""
        return {k: v for k, v in self.arrays().items() if isinstance(v, np.ndarray)}

    def fiber(self, parent: int) -> tuple[np.ndarray, np.ndarray]:
        """Coordinates and positions of the fiber of one parent position."""
        _, crd, pos = self.expand(np.array([parent], dtype=IDX))
        return crd, pos

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        mine, theirs = self.arrays(), other.arrays()  # type: ignore[attr-defined]
        return self.size == other.size and all(  # type: ignore[attr-defined]
            np.array_equal(mine[k], theirs[k]) for k in mine
        )

    def __repr__(self) -> str:
        parts = ", ".join(
            f"{k}={v.tolist() if isinstance(v, np.ndarray) else v}"
            for k, v in self.arrays().items()
        )
        return f"{type(self).__name__}({parts})"


class DenseLevel(Level):
    """Uncompressed level: only its size is stored."""

    letter = "d"
    name = "dense"
    full = True
    has_locate = True
    positions = "stride"
    coordinates = "offset"

    @classmethod
    def build(cls, parent, crd, n_parents, size):
        return cls(size), parent.astype(IDX) * size + crd.astype(IDX)

    def num_positions(self, n_parents: int) -> int:
        return n_parents * self.size

    def expand(self, parents):
        n = self.size
        owner = np.repeat(np.arange(len(parents), dtype=IDX), n)
        crd = np.tile(np.arange(n, dtype=IDX), len(parents))
        pos = parents[owner] * n + crd
        return owner, crd, pos

    def arrays(self):
        return {"size": self.size}


class CompressedLevel(Level):
    """Compressed level: segment array (fiber bounds) and coordinate array."""

    letter = "s"
    name = "compressed"
    has_append = True
    positions = "segment"
    coordinates = "stored"

    def __init__(self, size: int, seg: np.ndarray, crd: np.ndarray) -> None:
        super().__init__(size)
        self.seg = np.asarray(seg, dtype=IDX)
        self.crd = np.asarray(crd, dtype=IDX)
        if self.seg.ndim != 1 or len(self.seg) < 1 or self.seg[0] != 0:
            raise FormatError("a compressed level's segment array must start with 0")
        if np.any(np.diff(self.seg) < 0) or self.seg[-1] != len(self.crd):
            raise FormatError(
                "a compressed level's segment array must be nondecreasing and end at "
                f"len(crd)={len(self.crd)}, got {self.seg.tolist()[:10]}..."
            )

    @classmethod
    def build(cls, parent, crd, n_parents, size):
        counts = np.bincount(parent.astype(IDX), minlength=n_parents) if len(parent) else np.zeros(
            n_parents, dtype=IDX
        )
        seg = np.zeros(n_parents + 1, dtype=IDX)
        np.cumsum(counts, out=seg[1:])
        return cls(size, seg, crd), np.arange(len(crd), dtype=IDX)

    def num_positions(self, n_parents: int) -> int:
        return int(self.seg[n_parents]) if n_parents < len(self.seg) else len(self.crd)

    def expand(self, parents):
        starts = self.seg[parents]
        lens = self.seg[parents + 1] - starts
        owner = np.repeat(np.arange(len(parents), dtype=IDX), lens)
        offsets = np.arange(int(lens.sum()), dtype=IDX) - np.repeat(np.cumsum(lens) - lens, lens)
        pos = starts[owner] + offsets
        return owner, self.crd[pos], pos

    def arrays(self):
        return {"seg": self.seg, "crd": self.crd}


#: Level format letter -> class. A new level format is one class plus one line here.
LEVEL_TYPES: dict[str, type[Level]] = {"d": DenseLevel, "s": CompressedLevel}
#: DOT ``format`` attribute (``dense``, ``compressed``) -> class.
LEVEL_NAMES: dict[str, type[Level]] = {cls.name: cls for cls in LEVEL_TYPES.values()}


def level_type(letter: str) -> type[Level]:
    """The level class of a format letter (``FormatError`` naming the known letters)."""
    try:
        return LEVEL_TYPES[letter]
    except KeyError:
        raise FormatError(f"unknown level format {letter!r}; use one of "
                          f"{', '.join(LEVEL_TYPES)}") from None


def level_named(name: str) -> type[Level]:
    """The level class of a DOT ``format`` attribute (``FormatError`` naming the known ones)."""
    try:
        return LEVEL_NAMES[name]
    except KeyError:
        raise FormatError(f"unknown level format {name!r}; use one of "
                          f"{', '.join(LEVEL_NAMES)}") from None
