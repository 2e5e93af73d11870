"""Coordinate skipping (SAM paper Sec. 4.2): the scanner's side of a skip stream.

An intersecter sends each trailing compressed scanner, on a feedback edge (DOT ``type="crd"
comment="skip-B"``), the coordinate it needs next; a stop token on that stream ends the
scanner's current fiber (another input of the intersection has no more coordinates in it), and
the stream's stops also say which fiber its coordinates belong to: the scanner counts the stop
tokens it has emitted (``fib``) and the ones it took from the skip stream (``sfib``); a skip
applies only while the two agree (a skip from an earlier fiber is ignored), and only when it
lies ahead of the scanner (a skip behind it is ignored). The scanner then jumps to the first
coordinate ``>=`` the skip in its current fiber, its position found by search in the same cycle
(docs/timing-model.md, "Coordinate skipping"), and never emits the ones in between.

The helpers here are inlined into the level scanner kernel (:mod:`sam.blocks.scanners`); the
intersecter's side is in :mod:`sam.blocks.merges`.
"""

from __future__ import annotations

import numpy as np

from sam.runtime.jit import jitable
from sam.runtime.kernel import settled
from sam.runtime.tokens import DATA, STOP
from sam.runtime.wires import hdata, hkind, htime, pop, ready

#: ``told[k]`` of an intersecter once it has sent input k's scanner the stop of this fiber.
TOLD_STOP = -2


#: A skipping scanner's level gets a :func:`rank_index` when it has at most this many entries
#: beyond four per stored coordinate (memory and set-up time follow the level's size).
RANK_SLACK = 1 << 16


def rank_index(seg: np.ndarray, crd: np.ndarray, size: int) -> np.ndarray:
    """For a compressed level (segments ``seg``, coordinates ``crd`` below ``size``): the
    position of the first coordinate ``>= x`` in fiber r (the fiber's end when none) at
    ``[r * size + x]``, so that a skip finds its position in one read instead of a binary
    search; empty when that would take more than ``4 * len(crd) + RANK_SLACK`` entries."""
    fibers = seg.shape[0] - 1
    if fibers <= 0 or size <= 0 or fibers * size > 4 * crd.shape[0] + RANK_SLACK:
        return np.zeros(0, np.int64)
    owner = np.repeat(np.arange(fibers, dtype=np.int64), np.diff(seg[: fibers + 1]))
    inside = crd[: owner.shape[0]]
    if inside.size and (inside.min() < 0 or inside.max() >= size):
        return np.zeros(0, np.int64)  # coordinates out of range: the scanner searches
    keys = owner * size + inside
    # the first position >= x is the number of (ascending) keys below x: a running count
    below = np.zeros(fibers * size + 1, np.int64)
    np.cumsum(np.bincount(keys, minlength=fibers * size)[: fibers * size], out=below[1:])
    return seg[0] + below[:-1]


@jitable(inline=True)
def rank_start(rank, size, r):
    """Where fiber ``r``'s row of a :func:`rank_index` starts (-1 when there is none)."""
    return r * size if rank.shape[0] > 0 else -1


@jitable(inline=True)
def first_at_least(stored, crd, pos, end, base, s, rank, rank_at, size):
    """First position in ``[pos, end)`` whose coordinate is ``>= s`` (``end`` when none), for
    ``s`` above the coordinate at ``pos``: arithmetic for an offset (dense) level; for a stored
    one, read from the level's :func:`rank_index` (row ``rank_at``, -1: none), else a binary
    search over ``crd``. The search halves a window ``[first, first + n]`` known to hold the
    answer, moving its start by ``half`` masked by the sign of ``crd - s`` (arithmetic, not a
    branch: a skip's search would mispredict about half its steps), with unsigned positions
    (no negative-index wrap-around on the chain of dependent loads). Coordinates are below
    2**62, so the difference cannot overflow."""
    if not stored:
        q = base + s
        return q if q < end else end
    if rank_at >= 0:
        if s >= size:
            return end
        q = rank[np.uint64(rank_at + s)]
        return end if q > end else pos if q < pos else q
    n = end - pos
    if n <= 0:
        return end
    first = pos
    while n > 1:
        half = n >> 1
        first += half & ((crd[np.uint64(first + half)] - s) >> 63)
        n -= half
    return first + (((crd[np.uint64(first)] - s) >> 63) & 1)


@jitable(inline=True)
def drop_stale(w, st, c, t, fib, sfib):
    """Before a firing in cycle ``t``, a scanner drops the tokens of skip channel ``c`` left
    from its earlier fibers (``sfib < fib``: they would be ignored) that arrived by ``t``,
    once every token that can arrive by ``t`` is known (rule 10). Returns (whether the scanner
    may fire, the new ``sfib``); False means it waits, as for a missing input."""
    while True:
        if not settled(w, st, c, t):
            return False, sfib
        if sfib >= fib or not ready(w, c) or htime(w, c) > t:
            return True, sfib
        if hkind(w, c) == STOP:
            sfib += 1
        pop(w, c, t)


@jitable(inline=True)
def take_skip(w, c, t, stored, crd, pos, end, base, fib, sfib, rank, rank_at, size):
    """Take the head token of skip channel ``c`` in cycle ``t``; what it does to a scanner at
    position ``pos`` of the fiber ``[base, end)`` (its :func:`rank_index` row ``rank_at`` of a
    level of ``size``), having emitted ``fib`` stop tokens and taken ``sfib`` from the skip
    stream: ``(new position, sfib)``. The new position is ``end`` when the fiber ends (a stop,
    or no coordinate ``>=`` the skip)."""
    k = hkind(w, c)
    s = hdata(w, c)
    pop(w, c, t)
    if k == STOP:
        if sfib == fib:
            pos = end
        return pos, sfib + 1
    if k == DATA and sfib == fib:
        here = crd[pos] if stored else pos - base
        if s > here:
            pos = first_at_least(stored, crd, pos, end, base, s, rank, rank_at, size)
    return pos, sfib
