"""The DAE machine's set-associative LRU cache (sam/dae/cache.py) against a plain model: one
OrderedDict per set, least recently used first; plain Python and numba alike."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sam.dae.cache import access, fill, lookup, new_cache


class ModelLru:
    """Per set an OrderedDict of lines, least recently used first."""

    def __init__(self, sets: int, ways: int) -> None:
        self.sets, self.ways = sets, ways
        self.held = [OrderedDict() for _ in range(sets)]

    def access(self, line: int) -> bool:
        s = self.held[line % self.sets]
        if line in s:
            s.move_to_end(line)
            return True
        if len(s) == self.ways:
            s.popitem(last=False)
        s[line] = None
        return False


def _run_all(tags: np.ndarray, ages: np.ndarray, lines: np.ndarray, hits: np.ndarray) -> None:
    for k in range(lines.shape[0]):
        hits[k] = access(tags, ages, lines[k])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(1, 5),
       st.lists(st.integers(0, 40), min_size=1, max_size=300))
def test_lru_cache_matches_an_ordered_dict_model(sets, ways, lines):
    tags, ages = new_cache(sets, ways)
    model = ModelLru(sets, ways)
    for line in lines:
        assert access(tags, ages, line) == model.access(line)
    for s in range(sets):
        held = [int(t) for t in tags[s] if t >= 0]
        assert sorted(held) == sorted(model.held[s])
        # ranks: the model's most recent line has age 0, its oldest age len - 1
        order = sorted(held, key=lambda t: ages[s, list(tags[s]).index(t)])
        assert order == list(reversed(model.held[s]))
        assert sorted(ages[s].tolist()) == list(range(ways))


def test_lookup_does_not_fill_and_fill_evicts_the_least_recently_used():
    tags, ages = new_cache(1, 2)
    assert lookup(tags, ages, 7) == -1 and (tags == -1).all()
    w7 = fill(tags, ages, 7)
    w8 = fill(tags, ages, 8)
    assert w7 != w8
    assert lookup(tags, ages, 7) == w7  # 7 is now the most recent: 8 goes next
    assert fill(tags, ages, 9) == w8
    assert sorted(tags[0].tolist()) == [7, 9]


_JIT = []


def _compiled():
    if not _JIT:
        import numba

        from sam.runtime.jit import register_jitables

        register_jitables()
        _JIT.append(numba.njit(_run_all))
    return _JIT[0]


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 8), st.integers(1, 8), st.lists(st.integers(0, 100), min_size=1,
                                                      max_size=500))
def test_numba_compiled_cache_gives_the_same_hits(sets, ways, lines):
    run = _compiled()
    arr = np.array(lines, np.int64)
    a_tags, a_ages = new_cache(sets, ways)
    b_tags, b_ages = new_cache(sets, ways)
    a_hits = np.zeros(len(lines), np.bool_)
    b_hits = np.zeros(len(lines), np.bool_)
    _run_all(a_tags, a_ages, arr, a_hits)
    run(b_tags, b_ages, arr, b_hits)
    assert np.array_equal(a_hits, b_hits) and np.array_equal(a_tags, b_tags)
    assert np.array_equal(a_ages, b_ages)
