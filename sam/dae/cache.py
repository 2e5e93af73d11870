"""A set-associative LRU cache on numpy arrays, for the DAE machine's L2 and LLC.

A cache is two ``(sets, ways)`` int64 arrays: ``tags`` (the line held by each way, ``-1``:
empty) and ``ages`` (each way's LRU rank in its set: ``0`` the most recently used,
``ways - 1`` the least). Line ``n`` maps to set ``n % sets``. Empty ways always hold the
oldest ranks, so a set fills before it evicts. The functions are plain Python on numpy arrays
and compile unchanged with numba (marked :func:`~sam.runtime.jit.jitable`).
"""

from __future__ import annotations

import numpy as np

from sam.runtime.jit import jitable


def new_cache(sets: int, ways: int) -> tuple[np.ndarray, np.ndarray]:
    """An empty cache: ``(tags, ages)``."""
    tags = np.full((sets, ways), -1, np.int64)
    ages = np.tile(np.arange(ways, dtype=np.int64), (sets, 1))
    return tags, ages


@jitable
def _touch(ages: np.ndarray, s: int, way: int) -> None:
    """Make ``way`` of set ``s`` the most recently used."""
    age = ages[s, way]
    for w in range(ages.shape[1]):
        if ages[s, w] < age:
            ages[s, w] += 1
    ages[s, way] = 0


@jitable
def lookup(tags: np.ndarray, ages: np.ndarray, line: int) -> int:
    """The way holding ``line`` (made most recently used), or ``-1`` on a miss (no change)."""
    s = line % tags.shape[0]
    for w in range(tags.shape[1]):
        if tags[s, w] == line:
            _touch(ages, s, w)
            return w
    return -1


@jitable
def fill(tags: np.ndarray, ages: np.ndarray, line: int) -> int:
    """Put ``line`` (not held) in the least recently used way of its set, evicting what it
    held; return that way."""
    s = line % tags.shape[0]
    ways = tags.shape[1]
    victim = 0
    for w in range(ways):
        if ages[s, w] == ways - 1:
            victim = w
    tags[s, victim] = line
    _touch(ages, s, victim)
    return victim


@jitable
def access(tags: np.ndarray, ages: np.ndarray, line: int) -> bool:
    """Look ``line`` up and fill it on a miss; whether it hit."""
    if lookup(tags, ages, line) >= 0:
        return True
    fill(tags, ages, line)
    return False
