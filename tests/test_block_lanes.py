"""Parallelizer, serializer and n-input vector reducer (sam/blocks/lanes.py, SAM Sec. 4.4).

Reference streams come from random fibertrees (tests/helpers/streamtrees.py), built independently of
the kernels: every lane's streams must be those of the tree holding only that lane's elements
(its stop structure valid), and the serializer must give back the input token for token.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sam.graph.registry  # noqa: F401  (fills the block types)
from sam.blocks.lanes import LaneReducer, Parallelizer, Serializer
from sam.errors import GraphError, SimulationError
from sam.runtime.tokens import format_stream
from sam.sim.harness import run_block

from helpers.streamtrees import level_stream


@st.composite
def trees(draw, depth: int):
    """A random fibertree of ``depth`` levels (coordinates < 8, some fibers empty)."""

    def fiber(lvl: int):
        crds = sorted(draw(st.sets(st.integers(0, 7), max_size=4)))
        if lvl == depth - 1:
            return [(c, float(draw(st.integers(1, 9)))) for c in crds]
        return [(c, fiber(lvl + 1)) for c in crds]

    return fiber(0)


def lane_tree(tree, split: int, assign):
    """The tree keeping only the split-level elements ``assign`` gives this lane (fibers kept,
    possibly empty); ``assign`` is called once per element in stream order."""

    def walk(fiber, lvl):
        if lvl == split:
            return [(c, child) for c, child in fiber if assign(c)]
        return [(c, walk(child, lvl + 1)) for c, child in fiber]

    return walk(tree, 0)


def split_levels(tree, depth: int, split: int, lanes: int, mode: str, engine: str):
    """Parallelize every level >= ``split`` of ``tree`` (and the values) over ``lanes``."""
    key = Parallelizer("p", {"lanes": lanes, "mode": mode, "size": 8})
    out = run_block(key, {"crd:in": level_stream(tree, split)}, engine=engine)
    order = out.tokens["crd:order"]
    streams = {0: (level_stream(tree, split), [out.tokens[f"crd:lane{k}"] for k in range(lanes)])}
    wanted = [(t, False) for t in range(split + 1, depth)] + [(depth - 1, True)]
    for target, values in wanted:
        d = target - split
        kind = "val" if values else "crd"
        text = level_stream(tree, target, values=values)
        p = Parallelizer("q", {"lanes": lanes, "mode": "order", "depth": d, "kind": kind})
        res = run_block(p, {f"{kind}:in": text, "crd:order": order}, engine=engine)
        streams[(target, kind)] = (text, [res.tokens[f"{kind}:lane{k}"] for k in range(lanes)],
                                   d, kind)
    return order, streams


@pytest.mark.parametrize("engine", ["reference", "fast"])
@pytest.mark.parametrize("mode", ["rr", "range"])
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_serializer_inverts_parallelizer(engine, mode, data):
    depth = data.draw(st.integers(1, 3))
    tree = data.draw(trees(depth))
    split = data.draw(st.integers(0, depth - 1))
    lanes = data.draw(st.sampled_from([1, 2, 3, 4, 8]))
    order, streams = split_levels(tree, depth, split, lanes, mode, engine)
    # The order names each element's lane: round robin or by coordinate range.
    owners = [t for t in order if isinstance(t, int)]
    crds = [int(x) for x in level_stream(tree, split).split(", ") if x.isdigit()]
    if mode == "rr":
        assert owners == [k % lanes for k in range(len(crds))]
    else:
        assert owners == [c * lanes // 8 for c in crds]
    for key, entry in streams.items():
        text, lane_streams = entry[0], entry[1]
        d, kind = (0, "crd") if key == 0 else entry[2:]
        # Each lane's stream is the stream of the tree holding only its elements.
        for lane in range(lanes):
            it = iter(owners)
            sub = lane_tree(tree, split, lambda c, it=it, lane=lane: next(it) == lane)
            want = level_stream(sub, split + d, values=kind == "val")
            assert format_stream(lane_streams[lane]) == want
        # Serialized by the order: the input again, token for token.
        ser = Serializer("s", {"lanes": lanes, "mode": "order", "depth": d, "kind": kind})
        ins = {f"{kind}:lane{k}": lane_streams[k] for k in range(lanes)}
        ins["crd:order"] = order
        assert run_block(ser, ins, engine=engine)[f"{kind}:out"] == text
    # Merged by coordinate: the split level again, and the same order.
    text, lane_streams = streams[0]
    ser = Serializer("m", {"lanes": lanes, "mode": "crd"})
    res = run_block(ser, {f"crd:lane{k}": lane_streams[k] for k in range(lanes)}, engine=engine)
    assert res["crd:out"] == text
    assert res["crd:order"] == format_stream(order)


def test_empty_lane_sees_stops():
    """Two elements over four lanes: lanes 2 and 3 get only the stops (and terminate)."""
    p = Parallelizer("p", {"lanes": 4, "mode": "rr"})
    out = run_block(p, {"crd:in": "1, 5, S0, S1, D"})
    assert out["crd:lane0"] == "1, S0, S1, D"
    assert out["crd:lane1"] == "5, S0, S1, D"
    assert out["crd:lane2"] == out["crd:lane3"] == "S0, S1, D"
    assert out["crd:order"] == "0, 1, S0, S1, D"
    q = Parallelizer("q", {"lanes": 4, "mode": "order", "depth": 1})
    deep = run_block(q, {"crd:in": "2, 3, S0, 4, S1, S2, D", "crd:order": out["crd:order"]})
    assert deep["crd:lane0"] == "2, 3, S1, S2, D"
    assert deep["crd:lane1"] == "4, S1, S2, D"
    assert deep["crd:lane2"] == "S1, S2, D"


def test_range_mode_by_tensor_dimension():
    from formats import Tensor

    t = Tensor.from_dense(np.zeros((10, 3)))
    p = Parallelizer("p", {"lanes": 2, "mode": "range", "tensor": "B", "dim": 0})
    out = run_block(p, {"crd:in": "0, 4, 5, 9, S0, D"}, {"B": t})
    assert out["crd:lane0"] == "0, 4, S0, D"
    assert out["crd:lane1"] == "5, 9, S0, D"


@pytest.mark.parametrize("engine", ["reference", "fast"])
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_lane_reducer_sums_lanes(engine, data):
    """Random fibers per lane and group: the sum by coordinate, empty groups dropped."""
    lanes = data.draw(st.integers(1, 4))
    groups = data.draw(st.integers(1, 4))
    crd_in = [[] for _ in range(lanes)]
    val_in = [[] for _ in range(lanes)]
    want_c: list[str] = []
    want_v: list[str] = []
    sums = []
    for _ in range(groups):
        total: dict[int, float] = {}
        for lane in range(lanes):
            n_fibers = data.draw(st.integers(0, 2))
            for f in range(n_fibers):
                crds = sorted(data.draw(st.sets(st.integers(0, 9), max_size=3)))
                for c in crds:
                    v = float(data.draw(st.integers(1, 5)))
                    total[c] = total.get(c, 0.0) + v
                    crd_in[lane].append(str(c))
                    val_in[lane].append(repr(v))
                if f < n_fibers - 1:
                    crd_in[lane].append("S0")
                    val_in[lane].append("S0")
            crd_in[lane].append("S1")
            val_in[lane].append("S1")
        sums.append(total)
    for lane in range(lanes):  # the last group closes the outer fiber: S2
        crd_in[lane][-1] = "S2"
        val_in[lane][-1] = "S2"
        crd_in[lane].append("D")
        val_in[lane].append("D")
    kept = [s for s in sums if s]
    for g, total in enumerate(kept):
        for c in sorted(total):
            want_c.append(str(c))
            want_v.append(repr(total[c]))
        want_c.append("S1" if g == len(kept) - 1 else "S0")
        want_v.append(want_c[-1])
    if not kept:
        want_c.append("S1")
        want_v.append("S1")
    want_c.append("D")
    want_v.append("D")
    r = LaneReducer("r", {"lanes": lanes})
    ins = {}
    for lane in range(lanes):
        ins[f"crd:in{lane}"] = ", ".join(crd_in[lane])
        ins[f"val:in{lane}"] = ", ".join(val_in[lane])
    out = run_block(r, ins, engine=engine)
    assert out["crd:out"] == ", ".join(want_c)
    assert [float(x) for x in out["val"].split(", ") if x[0] not in "SD"] == \
        [float(x) for x in want_v if x[0] not in "SD"]


def test_bad_attributes_one_line():
    with pytest.raises(GraphError, match="lanes"):
        Parallelizer("p", {"lanes": "0"}).outputs()
    with pytest.raises(GraphError, match="mode"):
        Serializer("s", {"lanes": "2", "mode": "zigzag"}).inputs()
    with pytest.raises(GraphError, match="depth-0"):
        Parallelizer("p", {"lanes": "2", "depth": "1"}).params({})
    with pytest.raises(SimulationError, match="order stream"):
        run_block(Serializer("s", {"lanes": 2}),
                  {"crd:lane0": "1, S0, D", "crd:lane1": "S0, D", "crd:order": "7, S0, D"})
