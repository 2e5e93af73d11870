"""Coordinate dropper (SAM paper Def. 3.9, Sec. 3.7, Figure 8): ``sam.blocks.droppers``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats import Tensor
from sam.blocks.droppers import CoordinateDropper
from sam.blocks.scanners import LevelScanner
from sam.errors import SimulationError

from helpers.streamtrees import bench, level_stream, same_on_both_engines, trees

FIG1 = np.array([[0, 1, 0, 0], [2, 0, 3, 0], [0, 0, 0, 0], [0, 4, 0, 5]], dtype=float)


def dropper() -> CoordinateDropper:
    return CoordinateDropper("crddrop", {"outer": "i", "inner": "j"})


def drop(outer: str, inner: str, **kw) -> dict[str, str]:
    out = bench(dropper(), {"crd:i": outer, "crd:in-j": inner}, **kw)
    return {"outer": out["crd:outer-i"], "inner": out["crd:inner-j"]}


def test_ports():
    d = dropper()
    assert [p.name for p in d.inputs()] == ["crd:i", "crd:in-j"]
    assert [p.name for p in d.outputs()] == ["crd:outer-i", "crd:inner-j"]
    assert d.find_port("in", "crd", "outer-i").name == "crd:i"
    assert d.find_port("in", "crd", "inner-j").name == "crd:in-j"


def test_figure8_drop_coordinate_2():
    """Figure 8: a dense-row traversal of the Figure 1 matrix streams row 2 with an empty j
    fiber; the dropper removes coordinate 2 and its empty fiber, giving Figure 1d's DCSR
    streams."""
    tensors = {"B": Tensor.from_dense(FIG1, "ds01")}
    i = bench(LevelScanner("i", {"tensor": "B", "mode": "0", "format": "dense", "root": "true"}),
              {}, tensors)
    j = bench(LevelScanner("j", {"tensor": "B", "mode": "1"}), {"ref": i["ref"]}, tensors)
    assert (i["crd"], j["crd"]) == ("0, 1, 2, 3, S0, D", "1, S0, 0, 2, S0, S0, 1, 3, S1, D")
    assert drop(i["crd"], j["crd"]) == {"outer": "0, 1, 3, S0, D",
                                        "inner": "1, S0, 0, 2, S0, 1, 3, S1, D"}


def test_nothing_to_drop():
    assert drop("0, 1, 3, S0, D", "1, S0, 0, 2, S0, 1, 3, S1, D") == {
        "outer": "0, 1, 3, S0, D", "inner": "1, S0, 0, 2, S0, 1, 3, S1, D"}


def test_drop_first_and_last_fibers():
    """Removing the last fiber merges its closing stop into the previous one: ``2, S0, S1``
    becomes ``2, S1``."""
    assert drop("0, 1, 2, 3, S0, D", "S0, 0, 2, S0, S0, S1, D") == {
        "outer": "1, S0, D", "inner": "0, 2, S1, D"}
    assert drop("0, 1, S0, D", "5, S0, S1, D") == {"outer": "0, S0, D", "inner": "5, S1, D"}


def test_all_fibers_empty():
    """Every inner fiber empty: the outer fiber becomes empty (S0) and the inner stream only
    marks it (S1)."""
    assert drop("0, 1, S0, D", "S0, S1, D") == {"outer": "S0, D", "inner": "S1, D"}
    assert drop("4, S0, D", "S1, D") == {"outer": "S0, D", "inner": "S1, D"}


def test_empty_tensor():
    """The outer fiber itself is empty: it stays (a dropper one level up removes it)."""
    assert drop("S0, D", "S1, D") == {"outer": "S0, D", "inner": "S1, D"}
    assert drop("D", "D") == {"outer": "D", "inner": "D"}


def test_multi_level_stops():
    """Three levels: outer fibers [0, 1], [2] and an empty one; coordinate 1 is dropped."""
    assert drop("0, 1, S0, 2, S0, S1, D", "5, S0, S1, 6, S1, S2, D") == {
        "outer": "0, S0, 2, S0, S1, D", "inner": "5, S1, 6, S1, S2, D"}
    # Both outer fibers lose every coordinate.
    assert drop("0, 1, S0, 2, S1, D", "S0, S1, S2, D") == {"outer": "S0, S1, D",
                                                          "inner": "S1, S2, D"}
    # An empty inner fiber closing an outer fiber in the middle of the stream.
    assert drop("0, 1, S0, 2, 3, S1, D", "7, S0, S1, S0, 8, S2, D") == {
        "outer": "0, S0, 3, S1, D", "inner": "7, S1, 8, S2, D"}


def test_chained_droppers_clean_two_levels():
    """A dropper one level up removes the outer coordinate whose fiber became empty."""
    first = drop("0, 1, S0, 2, S1, D", "S0, S1, 3, S2, D")  # levels j (outer), k (inner)
    assert first == {"outer": "S0, 2, S1, D", "inner": "S1, 3, S2, D"}
    second = drop("5, 6, S0, D", first["outer"])  # levels i (outer), j (inner)
    assert second == {"outer": "6, S0, D", "inner": "2, S1, D"}


# --------------------------------------------------------------------------- malformed input
@pytest.mark.parametrize(
    "outer, inner, message",
    [
        ("0, 1, S0, D", "1, S0, D", "unexpected token"),
        ("0, S0, D", "1, S0, 2, S1, D", "does not line up"),
        ("0, N, S0, D", "1, S0, 2, S1, D", "unexpected token"),
        ("0, S0, D", "1, N, S1, D", "unexpected token"),
        ("S0, D", "S0, D", "does not line up"),
        ("0, S0, D", "1, D", "unexpected token"),
        ("0, S0, D", "1, S1, 2, S0, D", "does not line up"),
        ("S0, S1, D", "S1, S1, D", "does not line up"),
    ],
)
def test_malformed(outer, inner, message):
    with pytest.raises(SimulationError, match=message):
        drop(outer, inner)


# --------------------------------------------------------------------------- properties
def _reference_drop(tree, o: int):
    """Remove every level-o coordinate whose level-(o+1) fiber is empty."""
    if o == 0:
        return [(c, child) for c, child in tree if child]
    return [(c, _reference_drop(child, o - 1)) for c, child in tree]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([0, 1, 2]).flatmap(lambda o: st.tuples(st.just(o), trees(o + 2))))
def test_drop_equals_reference(o_tree):
    """Trees with 0-2 levels above the outer one and empty fibers anywhere: the dropper's
    streams are those of the tree without the outer coordinates that hold empty fibers."""
    o, tree = o_tree
    expected = _reference_drop(tree, o)
    assert drop(level_stream(tree, o), level_stream(tree, o + 1)) == {
        "outer": level_stream(expected, o), "inner": level_stream(expected, o + 1)}


def test_fast_engine_agrees():
    for outer, inner in [("0, 1, 2, 3, S0, D", "1, S0, 0, 2, S0, S0, 1, 3, S1, D"),
                         ("0, 1, S0, 2, 3, S1, D", "7, S0, S1, S0, 8, S2, D"),
                         ("0, 1, S0, 2, S1, D", "S0, S1, S2, D")]:
        same_on_both_engines(dropper, {"crd:i": outer, "crd:in-j": inner})
    with pytest.raises(SimulationError):
        drop("0, S0, D", "1, S0, 2, S1, D", engine="fast")


# --------------------------------------------------------------------------- value mode
def value_dropper() -> CoordinateDropper:
    return CoordinateDropper("crddrop_vals", {"outer": "j", "inner": "vals"})


def drop_zeros(crd: str, vals: str, **kw) -> dict[str, str]:
    out = bench(value_dropper(), {"crd:j": crd, "val:in-vals": vals}, **kw)
    return {"crd": out["crd:outer-j"], "val": out["val:inner-vals"]}


def test_value_mode_ports():
    d = value_dropper()
    assert [p.name for p in d.inputs()] == ["crd:j", "val:in-vals"]
    assert [p.name for p in d.outputs()] == ["crd:outer-j", "val:inner-vals"]


def test_value_mode_drops_explicit_zeros():
    """Def. 3.9 with a value input: coordinates whose value is zero (or N) go, with the value;
    stops pass, so a fiber may become empty (a coordinate dropper above removes it)."""
    assert drop_zeros("0, 1, 2, S0, 3, S1, D", "1, 0, 2, S0, 0, S1, D") == {
        "crd": "0, 2, S0, S1, D", "val": "1, 2, S0, S1, D"}
    assert drop_zeros("0, 1, S0, D", "N, -2, S0, D") == {"crd": "1, S0, D", "val": "-2, S0, D"}
    assert drop_zeros("S0, D", "S0, D") == {"crd": "S0, D", "val": "S0, D"}
    assert drop_zeros("D", "D") == {"crd": "D", "val": "D"}


@pytest.mark.parametrize("crd, vals", [("0, 1, S0, D", "1, S0, D"), ("0, N, S0, D", "1, 2, S0, D"),
                                       ("0, S0, D", "1, S1, D"), ("0, S0, D", "1, S0, 2, D")])
def test_value_mode_malformed(crd, vals):
    with pytest.raises(SimulationError, match="does not line up"):
        drop_zeros(crd, vals)


@settings(max_examples=40, deadline=None)
@given(trees(2, leaf=st.sampled_from([0.0, 0.0, 1.0, -2.5])))
def test_value_mode_equals_filter(tree):
    kept = [(c, [(j, v) for j, v in f if v != 0]) for c, f in tree]
    assert drop_zeros(level_stream(tree, 1), level_stream(tree, 1, values=True)) == {
        "crd": level_stream(kept, 1), "val": level_stream(kept, 1, values=True)}


def test_value_mode_fast_engine_agrees():
    same_on_both_engines(value_dropper, {"crd:j": "0, 1, 2, S0, 3, S1, D",
                                         "val:in-vals": "1, 0, N, S0, 0, S1, D"})
    with pytest.raises(SimulationError):
        drop_zeros("0, 1, S0, D", "1, S0, D", engine="fast")
