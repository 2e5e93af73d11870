"""The bitvector level format (SAM paper Sec. 4.3, Def. 4.2, Figure 6): letter ``b``.

A bitvector level of size N and word width b stores, for every parent position, one fiber as
``W = ceil(N / b)`` words of b bits: bit ``k`` of word ``j`` is set when coordinate ``j*b + k``
is present (the least significant bit is the lowest coordinate). The words of all fibers are one
array ``words`` (fiber p is ``words[p*W : p*W + W]``, zero words included), so the level is
*pseudo-dense*: a scanner reads W words per fiber whatever the fiber's length.

Positions are compact: the i-th set bit of the level, counted over all fibers in order, is
position i. A scanner's reference for a word is the running popcount before it (the position of
its lowest set bit), so the next level (or the value array) is indexed by ``ref + popcount of the
word's bits below the coordinate``. Figure 6's ``b``: coordinates ``0, 2, 6, 8, 9`` with b = 4 are
the words ``0101, 0100, 0011`` (printed most significant bit first) with references ``0, 2, 3``.

The width is part of the letter: ``b4``, ``b64``; ``b`` alone is ``b64`` (:data:`DEFAULT_WIDTH`).
Words are held in int64 (bit 63 is the sign bit), so b is 1..64. Registered in
:data:`formats.levels.LEVEL_TYPES` when :mod:`formats` is imported.
"""

from __future__ import annotations

from functools import cache
from typing import ClassVar

import numpy as np

from formats.errors import FormatError
from formats.levels import IDX, LEVEL_NAMES, LEVEL_TYPES, Level

#: Word width of ``b`` without a number (the paper's Figure 13 uses b = 64).
DEFAULT_WIDTH = 64
#: Widest word an int64 token payload holds.
MAX_WIDTH = 64


def popcounts(words: np.ndarray) -> np.ndarray:
    """Number of set bits of each int64 word (bit 63 included)."""
    return np.bitwise_count(np.asarray(words, dtype=np.int64).view(np.uint64)).astype(IDX)


def format_word(word: int, width: int) -> str:
    """A word as ``width`` binary digits, most significant first (``0101`` for bits 0 and 2)."""
    return format(int(word) & ((1 << width) - 1), f"0{width}b")


class BitvectorLevel(Level):
    """Bitvector level: ``W = ceil(size / width)`` words per fiber (module docstring)."""

    letter = "b"
    name = "bitvector"
    width: ClassVar[int] = DEFAULT_WIDTH
    #: Scanners emit ``bv`` streams (words), not coordinate streams.
    stream: ClassVar[str] = "bv"
    positions = "bitvector"
    coordinates = "bitvector"

    def __init__(self, size: int, words: np.ndarray) -> None:
        super().__init__(size)
        self.words = np.asarray(words, dtype=IDX)
        if self.words.ndim != 1 or len(self.words) % max(1, self.words_per_fiber) != 0:
            raise FormatError(f"a bitvector level of size {size} and width {self.width} stores "
                              f"{self.words_per_fiber} words per fiber; got {len(self.words)}")
        rest = self.size - (self.words_per_fiber - 1) * self.width
        if self.words_per_fiber and rest < self.width:
            last = self.words[self.words_per_fiber - 1:: self.words_per_fiber]
            if np.any(last.view(np.uint64) >> np.uint64(rest)):
                raise FormatError(f"a bitvector level of size {size} has bits set past "
                                  f"coordinate {size - 1}")
        counts = popcounts(self.words)
        #: Running popcount before each word (the scanner's reference for it).
        self.ranks = np.zeros(len(self.words) + 1, dtype=IDX)
        np.cumsum(counts, out=self.ranks[1:])

    @classmethod
    def with_width(cls, width: int) -> type[BitvectorLevel]:
        """The bitvector level class of word width ``width`` (letter ``b<width>``)."""
        return bitvector_level(width)

    @property
    def words_per_fiber(self) -> int:
        return -(-self.size // self.width)

    @classmethod
    def build(cls, parent, crd, n_parents, size):
        w = -(-int(size) // cls.width)
        words = np.zeros(n_parents * w, dtype=np.uint64)
        parent = np.asarray(parent, dtype=IDX)
        crd = np.asarray(crd, dtype=IDX)
        if len(crd):
            np.bitwise_or.at(words, parent * w + crd // cls.width,
                             np.left_shift(np.uint64(1), (crd % cls.width).astype(np.uint64)))
        return cls(size, words.view(np.int64)), np.arange(len(crd), dtype=IDX)

    def num_positions(self, n_parents: int) -> int:
        return int(self.ranks[min(n_parents * self.words_per_fiber, len(self.words))])

    def expand(self, parents):
        w = self.words_per_fiber
        parents = np.asarray(parents, dtype=IDX)
        word_idx = (parents[:, None] * w + np.arange(w, dtype=IDX)[None, :]).reshape(-1)
        bits = (self.words[word_idx].view(np.uint64)[:, None]
                >> np.arange(self.width, dtype=np.uint64)[None, :]) & np.uint64(1)
        wi, bit = np.nonzero(bits)
        owner = wi // max(1, w)
        crd = (wi % max(1, w)) * self.width + bit
        below = bits.astype(IDX).cumsum(axis=1) - bits.astype(IDX)
        pos = self.ranks[word_idx[wi]] + below[wi, bit]
        return owner.astype(IDX), crd.astype(IDX), pos.astype(IDX)

    def arrays(self):
        return {"words": self.words}

    def memories(self) -> dict[str, np.ndarray]:
        """The words and the running popcount before each word (``ranks``)."""
        return {"words": self.words, "ranks": self.ranks}

    def show_words(self) -> list[str]:
        """The words in binary, most significant bit first (as the paper prints them)."""
        return [format_word(x, self.width) for x in self.words]


@cache
def bitvector_level(width: int) -> type[BitvectorLevel]:
    """The bitvector level class of word width ``width`` (1..64)."""
    if not 1 <= width <= MAX_WIDTH:
        raise FormatError(f"bitvector word width {width} is outside 1..{MAX_WIDTH}; "
                          "write e.g. b4 or b64")
    if width == DEFAULT_WIDTH:
        return BitvectorLevel
    return type(f"BitvectorLevel{width}", (BitvectorLevel,),
                {"width": width, "letter": f"b{width}", "__doc__": BitvectorLevel.__doc__,
                 "__module__": __name__})


LEVEL_TYPES.setdefault("b", BitvectorLevel)
LEVEL_NAMES.setdefault(BitvectorLevel.name, BitvectorLevel)
