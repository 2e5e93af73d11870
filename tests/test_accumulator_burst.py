"""The vector accumulator's (order 1) emission burst and its sort by the coordinate index
(``sam.blocks.reducers._emit_burst``, ``_sort_distinct``): against the general path (bursts
off) and the compiled kernel the same tokens, arrival cycles and state; against numpy each
group's distinct coordinates in order with their values summed, for groups whose coordinates
span few slots per point (read from the index in order) and many (sorted by comparison).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sam.blocks.reducers import SCAN_SPAN, SparseAccumulator
from sam.errors import SimulationError
from sam.runtime.paths import FastPaths
from sam.sim.harness import run_block

from helpers.paths import path_free


def _streams(groups: list[list[list[tuple[int, int]]]]) -> dict[str, str]:
    """``crd:j``/``val`` streams of groups of fibers of (coordinate, value) points."""
    crd: list[str] = []
    val: list[str] = []
    for g, fibers in enumerate(groups):
        for f, fiber in enumerate(fibers):
            crd += [str(x) for x, _ in fiber]
            val += [str(v) for _, v in fiber]
            last = f == len(fibers) - 1
            stop = "S0" if not last else ("S1" if g < len(groups) - 1 else "S2")
            crd.append(stop)
            val.append(stop)
    return {"crd:j": ", ".join(crd + ["D"]), "val": ", ".join(val + ["D"])}


def _expected(groups) -> tuple[list[str], list[float]]:
    crd: list[str] = []
    val: list[float] = []
    for fibers in groups:
        pts = [p for fiber in fibers for p in fiber]
        xs = np.array([x for x, _ in pts], np.int64)
        vs = np.array([v for _, v in pts], np.float64)
        uniq, inv = np.unique(xs, return_inverse=True)
        sums = np.zeros(len(uniq))
        np.add.at(sums, inv, vs)
        crd += [str(x) for x in uniq.tolist()] + ["S0"]
        val += sums.tolist()
    crd[-1] = "S1"
    return crd + ["D"], val


def _run(inputs, arrivals, engine: str = "reference", bursts: bool = True):
    block = SparseAccumulator("acc", {"order": "1", "in0": "j"})
    try:
        out = run_block(block, inputs, arrivals=arrivals, engine=engine,
                        paths=FastPaths(burst=bursts))
    except SimulationError as err:
        return ("error", str(err))
    return out.tokens, out.times, path_free(out.st).tolist()


@st.composite
def groups(draw):
    span = draw(st.sampled_from([8, 40, 3000]))
    point = st.tuples(st.integers(0, span), st.integers(-9, 9))
    fiber = st.lists(point, min_size=0, max_size=12, unique_by=lambda p: p[0]).map(sorted)
    group = st.lists(fiber, min_size=1, max_size=4).filter(lambda fs: any(fs))
    return draw(st.lists(group, min_size=1, max_size=4))


def _check(gs, arrivals_of) -> None:
    inputs = _streams(gs)
    arrivals = {name: arrivals_of(len(s.split(", "))) for name, s in inputs.items()}
    on = _run(inputs, arrivals)
    assert on == _run(inputs, arrivals, bursts=False)
    assert on == _run(inputs, arrivals, engine="fast")
    crd, val = _expected(gs)
    tokens = on[0]
    assert [str(t) for t in tokens["crd:out-j"]] == crd
    got = [float(str(t)) for t in tokens["val"] if str(t)[0] not in "SD"]
    assert got == val


@settings(max_examples=50, deadline=None)
@given(groups(), st.data())
def test_emit_and_sort_match_numpy_and_general_path(gs, data) -> None:
    gaps = st.lists(st.sampled_from([0, 0, 1, 5]), min_size=1, max_size=1)

    def arrivals_of(n: int) -> list[int]:
        return [int(a) for a in np.cumsum([data.draw(gaps)[0] for _ in range(n)])]

    _check(gs, arrivals_of)


def test_both_sorts_are_used() -> None:
    """A group spanning fewer than ``SCAN_SPAN`` slots per point (index read in order) and one
    spanning more (comparison sort), with repeated coordinates across its fibers."""
    rng = np.random.default_rng(3)
    narrow = [sorted({(int(x), int(rng.integers(1, 9))) for x in rng.choice(200, 60, False)})
              for _ in range(3)]
    wide = [[(5, 1), (9000, 2)], [(5, 3), (7, 4), (20000, 5)]]
    for g in (narrow, wide):
        pts = {x for fiber in g for x, _ in fiber}
        assert (max(pts) - min(pts) < SCAN_SPAN * len(pts)) == (g is narrow)
    _check([narrow, wide, narrow[:1]], lambda n: list(range(n)))
