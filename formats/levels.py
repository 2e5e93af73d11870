"""Level formats: how one fibertree level is stored in memory (SAM paper Sec. 3.1, Fig. 1c).

A level holds, for every *parent position* (a position of the level above; the root level has
one parent position, 0), one fiber of coordinates. Each coordinate gets a *position* in the level,
which is the reference the next level (or the value array) is indexed by.

* :class:`DenseLevel` (uncompressed, letter ``d``): stores only the size N; the fiber of parent
  position p holds every coordinate 0..N-1 at positions ``p*N + c``.
* :class:`CompressedLevel` (letter ``s``): a segment array and a coordinate array; the fiber of
  parent position p holds ``crd[seg[p]:seg[p+1]]`` at positions ``seg[p]..seg[p+1]-1``.
* :class:`NonUniqueCompressedLevel` (``u``): a compressed level whose fibers may repeat a
  coordinate (TACO's ``Compressed(not unique)``, the row level of COO ``uq``).
* :class:`RaggedLevel` (``r``): CoRa's ragged dimension; a segment array only (the fiber of p
  holds coordinates 0..loop[p]-1 at positions ``seg[p] + c``), padding and sharing in
  :mod:`formats.raggedness`.
* :class:`SingletonLevel` (``q``) and :class:`NonUniqueSingletonLevel` (``c``): a coordinate array
  only, one coordinate per parent position (the fiber of p is position p); ``c`` may repeat a
  coordinate across the parent positions of one run of the non-unique level above (the middle
  levels of COO ``ucq``).

The letters are TACO's (``tools/taco.cpp``: ``d`` dense, ``s`` compressed, ``u`` compressed
non-unique, ``q`` singleton, ``c`` singleton non-unique).

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

``u`` is ``s`` with ``unique`` false; ``q`` is ``branchless`` with positions ``single``
(fiber p is position p) and stored coordinates; ``c`` is ``q`` with ``unique`` false.

**Non-unique levels as SAM walks them.** SAM's merge blocks need each fiber's coordinates
ascending and distinct (Sec. 3.4), so a scanner never walks a non-unique level as stored:
:func:`walk_levels` gives, for every stored level, the level a scanner or locator walks. A
non-unique level is walked *deduplicated*: one coordinate per *run* (the maximal sequence of
positions of one fiber holding the same coordinate), its references being run numbers; the
singleton level below is then walked as a segment level whose fibers are those runs (its
segment array is the runs' bounds), so its positions, and the values below, are the stored ones.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from formats.errors import FormatError
from formats.raggedness import Raggedness

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
    #: Positions of fiber p: ``"stride"`` (p*N .. p*N+N-1), ``"segment"`` (seg[p] .. seg[p+1]-1),
    #: ``"extent"`` (seg[p] .. seg[p]+lens[p]-1) or ``"single"`` (p only).
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


class NonUniqueCompressedLevel(CompressedLevel):
    """Compressed level whose fibers may repeat a coordinate (TACO ``u``; COO's first level)."""

    letter = "u"
    name = "compressed_nonunique"
    unique = False


class SingletonLevel(Level):
    """Singleton level: one stored coordinate per parent position (TACO ``q``)."""

    letter = "q"
    name = "singleton"
    branchless = True
    has_append = True
    positions = "single"
    coordinates = "stored"

    def __init__(self, size: int, crd: np.ndarray) -> None:
        super().__init__(size)
        self.crd = np.asarray(crd, dtype=IDX)
        if self.crd.ndim != 1:
            raise FormatError(f"a {self.name} level's coordinate array must be one-dimensional")

    @classmethod
    def build(cls, parent, crd, n_parents, size):
        parent = parent.astype(IDX)
        if len(parent) > 1 and np.any(parent[1:] == parent[:-1]):
            p = int(parent[1:][parent[1:] == parent[:-1]][0])
            raise FormatError(
                f"a {cls.name} level ({cls.letter}) stores one coordinate per parent position, "
                f"but position {p} of the level above has several; store that level non-unique "
                "(u), e.g. as COO uq"
            )
        # A parent position without a point (below a dense level) stores coordinate 0, whose
        # value stays an explicit zero.
        full = np.zeros(n_parents, dtype=IDX)
        full[parent] = crd
        return cls(size, full), parent

    def num_positions(self, n_parents: int) -> int:
        if n_parents != len(self.crd):
            raise FormatError(f"a {self.name} level stores one coordinate per parent position: "
                              f"{n_parents} parent positions but {len(self.crd)} coordinates")
        return n_parents

    def expand(self, parents):
        return np.arange(len(parents), dtype=IDX), self.crd[parents], parents.astype(IDX)

    def arrays(self):
        return {"crd": self.crd}


class NonUniqueSingletonLevel(SingletonLevel):
    """Singleton level whose coordinates may repeat within a run of the non-unique level above
    (TACO ``c``; the middle levels of COO ``ucq``)."""

    letter = "c"
    name = "singleton_nonunique"
    unique = False


class RaggedLevel(Level):
    """Ragged level (CoRa's vdim, letter ``r``): fiber p holds coordinates ``0..loop[p]-1`` at
    positions ``seg[p] + c``; no coordinate array (:mod:`formats.raggedness`).

    The coordinate at position q is ``q - seg[p]`` and coordinate c is located at
    ``seg[p] + c`` in O(1). A scanner walks it as a compressed level (the same tokens) reading
    only ``seg`` (and, with storage padding beyond the loop padding, the loop lengths ``lens``).
    Several tensors' levels may share one :class:`~formats.raggedness.Raggedness`.
    """

    letter = "r"
    name = "ragged"
    has_locate = True
    has_append = True
    positions = "segment"
    coordinates = "offset"

    def __init__(self, size: int, raggedness: Raggedness) -> None:
        super().__init__(size)
        self.raggedness = raggedness
        if raggedness.max_loop > self.size:
            raise FormatError(
                f"a ragged fiber of (padded) length {raggedness.max_loop} does not fit the mode "
                f"size {self.size}; give a larger shape or less loop padding")
        if raggedness.extent:
            # The loop of fiber p ends at seg[p] + lens[p], before seg[p+1].
            self.positions = "extent"
            self.compact = False

    @property
    def seg(self) -> np.ndarray:
        return self.raggedness.seg

    @classmethod
    def build(cls, parent, crd, n_parents, size):
        parent = parent.astype(IDX)
        lengths = np.zeros(n_parents, dtype=IDX)
        if len(parent):
            np.maximum.at(lengths, parent, crd.astype(IDX) + 1)
        rag = Raggedness(lengths)
        return cls(size, rag), rag.seg[parent] + crd.astype(IDX)

    def num_positions(self, n_parents: int) -> int:
        if n_parents != self.raggedness.n_fibers:
            raise FormatError(f"a ragged level has one length per parent position: "
                              f"{n_parents} parent positions but "
                              f"{self.raggedness.n_fibers} lengths")
        return int(self.seg[-1])

    def expand(self, parents):
        starts = self.seg[parents]
        lens = self.raggedness.loop[parents]
        owner = np.repeat(np.arange(len(parents), dtype=IDX), lens)
        offsets = np.arange(int(lens.sum()), dtype=IDX) - np.repeat(np.cumsum(lens) - lens, lens)
        return owner, offsets, starts[owner] + offsets

    def arrays(self):
        out: dict[str, np.ndarray | int] = {"seg": self.seg}
        if self.raggedness.extent:
            out["lens"] = self.raggedness.loop
        return out

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.size == other.size and self.raggedness == other.raggedness  # type: ignore

    def __repr__(self) -> str:
        return f"RaggedLevel(size={self.size}, {self.raggedness})"


def walk_levels(levels: list[Level]) -> list[Level]:
    """The level a scanner or locator walks for each stored level (see the module docstring).

    A unique level below a unique one is walked as stored. A non-unique level is walked as a
    compressed level of its runs; a branchless level below it as a compressed level whose fibers
    are those runs. ``FormatError`` when a run cannot be told apart below (a non-branchless level
    or the values below a run of several positions) or a run's singleton coordinates do not
    ascend.
    """
    out: list[Level] = []
    runs: np.ndarray | None = None  # bounds (stored positions) of the runs of the level above
    n_stored = 1  # stored positions of the level above
    for lvl, level in enumerate(levels):
        if runs is not None and not level.branchless:
            if len(runs) - 1 != n_stored:
                raise FormatError(
                    f"level {lvl} ({level.name}) is below a non-unique level that repeats a "
                    "coordinate; only singleton levels (q, c) can tell repeated coordinates apart"
                )
            runs = None  # every run is one position: run numbers are the stored positions
        n = level.num_positions(n_stored)
        if runs is None:
            if level.unique:
                out.append(level)
                n_stored = n
                continue
            owner, crd, pos = level.expand(np.arange(n_stored, dtype=IDX))
            n_owners = n_stored
        else:
            crd = level.expand(np.arange(n, dtype=IDX))[1]
            pos = np.arange(n, dtype=IDX)
            owner = np.repeat(np.arange(len(runs) - 1, dtype=IDX), np.diff(runs))
            same = owner[1:] == owner[:-1]
            step = crd[1:] - crd[:-1]
            if np.any(same & ((step <= 0) if level.unique else (step < 0))):
                raise FormatError(
                    f"level {lvl} ({level.name}): coordinates within a run of the non-unique "
                    "level above must ascend" + (" and be distinct (sum duplicate points)"
                                                 if level.unique else "")
                )
            if level.unique:
                out.append(CompressedLevel(level.size, runs, crd))
                runs = None
                n_stored = n
                continue
            n_owners = len(runs) - 1
        new = np.ones(len(crd), dtype=bool)
        new[1:] = (owner[1:] != owner[:-1]) | (crd[1:] != crd[:-1])
        starts = np.flatnonzero(new)
        seg = np.zeros(n_owners + 1, dtype=IDX)
        np.cumsum(np.bincount(owner[starts], minlength=n_owners), out=seg[1:])
        out.append(CompressedLevel(level.size, seg, crd[starts]))
        runs = np.append(pos[starts], n).astype(IDX)
        n_stored = n
    if runs is not None and len(runs) - 1 != n_stored:
        raise FormatError("the last level is non-unique and repeats a coordinate in a fiber: "
                          "sum the duplicate points")
    return out


#: Level format letter -> class. A new level format is one class plus one line here.
LEVEL_TYPES: dict[str, type[Level]] = {
    "d": DenseLevel, "s": CompressedLevel, "u": NonUniqueCompressedLevel, "q": SingletonLevel,
    "c": NonUniqueSingletonLevel, "r": RaggedLevel,
}
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
