"""Raggedness: the lengths of a ragged dimension and how they are padded (CoRa, Sec. 3-5).

A ragged dimension (CoRa's *vdim*) has a length per index of the dimension it depends on. Here
that index is a *parent position* of the level above (one length per fiber). CoRa pads in two
ways, both rounded up per fiber:

* **loop padding** ``pad``: the loop over a fiber runs to ``ceil(L / pad) * pad`` (the padded
  coordinates hold zeros, so an unrolled or vectorised body needs no remainder loop);
* **storage padding** ``spad``: each fiber *occupies* ``ceil(L / spad) * spad`` positions, so
  fibers start at multiples of ``spad`` (aligned); ``spad`` must be a multiple of ``pad`` so the
  padded loop never leaves its fiber's storage.

The fiber of parent position p starts at ``seg[p]`` (the prelude CoRa computes from its
dimension graph) and its loop ends at ``seg[p] + loop[p]``. When ``spad == pad`` the loop end is
``seg[p+1]``, so ``seg`` is the only array; otherwise the padded loop lengths are stored too.

A :class:`Raggedness` is described once and shared: levels of several tensors may hold the same
object (CoRa's dimension graph relates them), and their positions then coincide fiber by fiber,
which is what lets one scanner drive all of them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from formats.errors import FormatError

IDX = np.int64


def round_up(lengths: np.ndarray, multiple: int) -> np.ndarray:
    """Each length rounded up to a multiple of ``multiple`` (0 stays 0)."""
    return (lengths + multiple - 1) // multiple * multiple


def check_padding(pad: object, spad: object) -> tuple[int, int]:
    """Validated ``(pad, spad)``; ``spad=None`` means ``spad = pad``. One-line ``FormatError``
    for anything else."""
    if spad is None:
        spad = pad
    for name, v in (("pad", pad), ("spad", spad)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise FormatError(f"ragged {name}={v!r} must be a positive integer (1: no padding)")
    if spad % pad:
        raise FormatError(
            f"storage padding spad={spad} is not a multiple of loop padding pad={pad}: a padded "
            f"loop would run past its fiber's storage; use spad={pad * (spad // pad + 1)} "
            f"or pad={_largest_divisor(spad, pad)}")
    return int(pad), int(spad)


def _largest_divisor(n: int, below: int) -> int:
    return max(d for d in range(1, min(n, below) + 1) if n % d == 0)


class Raggedness:
    """True lengths per parent position, with loop padding ``pad`` and storage padding
    ``spad``; gives the padded loop lengths and the segment array (see module docstring)."""

    def __init__(self, lengths: Sequence[int] | np.ndarray, pad: int = 1,
                 spad: int | None = None) -> None:
        self.pad, self.spad = check_padding(pad, spad)
        lengths = np.asarray(lengths)
        if lengths.ndim != 1 or (len(lengths) and lengths.dtype.kind not in "iu"):
            raise FormatError("ragged lengths must be a one-dimensional list of integers")
        self.lengths = lengths.astype(IDX)
        if np.any(self.lengths < 0):
            p = int(np.flatnonzero(self.lengths < 0)[0])
            raise FormatError(f"ragged length {int(self.lengths[p])} of fiber {p} is negative")
        #: padded loop length of each fiber
        self.loop = round_up(self.lengths, self.pad)
        self.seg = np.zeros(len(self.lengths) + 1, dtype=IDX)
        np.cumsum(round_up(self.lengths, self.spad), out=self.seg[1:])

    @property
    def n_fibers(self) -> int:
        return len(self.lengths)

    @property
    def extent(self) -> bool:
        """Whether a fiber's loop ends before the next fiber's storage starts (``spad > pad``
        with some fiber padded further for storage), so the loop lengths must be stored."""
        return not np.array_equal(self.loop, np.diff(self.seg))

    @property
    def max_loop(self) -> int:
        """The longest padded loop (the smallest size the dimension can have)."""
        return int(self.loop.max()) if len(self.loop) else 0

    def same_lengths(self, other: Raggedness) -> bool:
        return (self.pad, self.spad) == (other.pad, other.spad) and np.array_equal(
            self.lengths, other.lengths)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Raggedness):
            return NotImplemented
        return self.same_lengths(other)

    def __hash__(self) -> int:
        return hash((self.pad, self.spad, self.lengths.tobytes()))

    def __repr__(self) -> str:
        return (f"Raggedness(lengths={self.lengths.tolist()[:8]}"
                f"{'...' if self.n_fibers > 8 else ''}, pad={self.pad}, spad={self.spad})")
