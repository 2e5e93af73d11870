"""Locator (SAM paper Def. 4.1, Sec. 4.2, iterate-locate): ``sam.blocks.locators``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from formats import Tensor
from sam.blocks.arrays import ArrayLoad
from sam.blocks.locators import Locator
from sam.blocks.scanners import LevelScanner
from sam.errors import GraphError, SimulationError

from helpers.streamtrees import bench, level_stream, same_on_both_engines
from helpers.streamtrees import tree_from_dense as tree_of

FIG1 = np.array([[0, 1, 0, 0], [2, 0, 3, 0], [0, 0, 0, 0], [0, 4, 0, 5]], dtype=float)
VEC = np.array([0.0, 7.0, 0.0, 9.0, 0.0, 0.5])


def locator(tensor: str = "c", mode: int = 0) -> Locator:
    return Locator(f"locate_{tensor}", {"tensor": tensor, "mode": str(mode), "index": "j"})


def test_ports():
    loc = locator("C", 1)
    assert [p.name for p in loc.inputs()] == ["crd", "ref:in", "ref:parent"]
    assert [p.name for p in loc.outputs()] == ["crd", "ref:out", "ref:out-C"]


def test_inner_product_spmv_locates_into_dense_vector():
    """Sec. 4.2: stream each row of B (Figure 1) and locate its coordinates in a dense vector
    c; every coordinate is found at reference c (a root level: parent 0), so only the c values
    under B's nonzeros are loaded."""
    tensors = {"B": Tensor.from_dense(FIG1, "ss01"),
               "c": Tensor.from_dense(np.array([1.0, 2.0, 3.0, 4.0]), "d")}
    i = bench(LevelScanner("i", {"tensor": "B", "mode": "0", "root": "true"}), {}, tensors)
    j = bench(LevelScanner("j", {"tensor": "B", "mode": "1"}), {"ref": i["ref"]}, tensors)
    out = bench(locator("c"), {"crd": j["crd"], "ref:in": j["ref"]}, tensors)
    assert out == {"crd": "1, S0, 0, 2, S0, 1, 3, S1, D",
                   "ref:out": "0, S0, 1, 2, S0, 3, 4, S1, D",
                   "ref:out-c": "1, S0, 0, 2, S0, 1, 3, S1, D"}
    vals = bench(ArrayLoad("c_vals", {"tensor": "c"}), {"ref": out["ref:out-c"]}, tensors)
    assert vals == {"val": "2, S0, 1, 3, S0, 2, 4, S1, D"}


def test_compressed_vector_drops_missing_coordinates():
    tensors = {"c": Tensor.from_dense(VEC, "s")}
    out = bench(locator(), {"crd": "0, 1, 3, 5, S0, D", "ref:in": "0, 1, 2, 3, S0, D"}, tensors)
    assert out == {"crd": "1, 3, 5, S0, D", "ref:out": "1, 2, 3, S0, D",
                   "ref:out-c": "0, 1, 2, S0, D"}
    out = bench(locator(), {"crd": "0, 2, 4, S0, D", "ref:in": "0, 1, 2, S0, D"}, tensors)
    assert out == {"crd": "S0, D", "ref:out": "S0, D", "ref:out-c": "S0, D"}


def test_dense_vector_drops_coordinates_outside_its_dimension():
    tensors = {"c": Tensor.from_dense(VEC, "d")}
    out = bench(locator(), {"crd": "0, 3, 6, 9, S0, D", "ref:in": "0, 1, 2, 3, S0, D"}, tensors)
    assert out == {"crd": "0, 3, S0, D", "ref:out": "0, 1, S0, D", "ref:out-c": "0, 3, S0, D"}
    out = bench(locator(), {"crd": "-1, 2, S0, D", "ref:in": "0, 1, S0, D"}, tensors)
    assert out == {"crd": "2, S0, D", "ref:out": "1, S0, D", "ref:out-c": "2, S0, D"}


def test_without_leader_references():
    """No reference input: the leader's reference output carries N, shaped like crd."""
    tensors = {"c": Tensor.from_dense(VEC, "s")}
    out = bench(locator(), {"crd": "0, 1, 3, 5, S0, D"}, tensors)
    assert out == {"crd": "1, 3, 5, S0, D", "ref:out": "N, N, N, S0, D",
                   "ref:out-c": "0, 1, 2, S0, D"}


def test_leader_empty_reference_passes():
    tensors = {"c": Tensor.from_dense(VEC, "s")}
    out = bench(locator(), {"crd": "0, 1, 3, S0, D", "ref:in": "0, N, 2, S0, D"}, tensors)
    assert out == {"crd": "1, 3, S0, D", "ref:out": "N, 2, S0, D", "ref:out-c": "0, 1, S0, D"}


def test_second_level_with_parent_references():
    """Locating into level j of the DCSR matrix of Figure 1: the parent references (rows at
    positions 0, 1, 2 hold rows 0, 1, 3) say which fiber to search."""
    tensors = {"C": Tensor.from_dense(FIG1, "ss01")}
    ins = {"crd": "0, 1, S0, 1, 2, 3, S0, S0, 1, S1, D",
           "ref:in": "0, 1, S0, 2, 3, 4, S0, S0, 5, S1, D",
           "ref:parent": "0, 0, S0, 1, 1, 1, S0, S0, 2, S1, D"}
    assert bench(locator("C", 1), ins, tensors) == {
        "crd": "1, S0, 2, S0, S0, 1, S1, D",
        "ref:out": "1, S0, 3, S0, S0, 5, S1, D",
        "ref:out-C": "0, S0, 2, S0, S0, 3, S1, D",
    }


def test_second_level_dense():
    """A dense located level: reference p * N + c for parent p."""
    tensors = {"C": Tensor.from_dense(FIG1, "dd01")}
    ins = {"crd": "0, 3, S0, 1, S0, 2, S1, D", "ref:parent": "0, 0, S0, 2, S0, 3, S1, D"}
    assert bench(locator("C", 1), ins, tensors) == {
        "crd": "0, 3, S0, 1, S0, 2, S1, D",
        "ref:out": "N, N, S0, N, S0, N, S1, D",
        "ref:out-C": "0, 3, S0, 9, S0, 14, S1, D",
    }


def test_empty_parent_reference_finds_nothing():
    """A parent N (e.g. from a union where the located tensor lacks the row) holds nothing."""
    tensors = {"C": Tensor.from_dense(FIG1, "ss01")}
    out = bench(locator("C", 1), {"crd": "0, 1, S0, 3, S1, D",
                                  "ref:parent": "N, N, S0, 2, S1, D"}, tensors)
    assert out == {"crd": "S0, 3, S1, D", "ref:out": "S0, N, S1, D", "ref:out-C": "S0, 4, S1, D"}
    dense = {"C": Tensor.from_dense(FIG1, "dd01")}
    out = bench(locator("C", 1), {"crd": "0, S0, D", "ref:parent": "N, S0, D"}, dense)
    assert out["crd"] == "S0, D"


def test_empty_tensor_and_empty_fibers():
    tensors = {"c": Tensor.from_dense(np.zeros(4), "s")}
    out = bench(locator(), {"crd": "0, 1, S0, S0, 2, S1, D",
                            "ref:in": "0, 1, S0, S0, 2, S1, D"}, tensors)
    assert out == {"crd": "S0, S0, S1, D", "ref:out": "S0, S0, S1, D",
                   "ref:out-c": "S0, S0, S1, D"}
    assert bench(locator(), {"crd": "S0, D", "ref:in": "S0, D"}, tensors) == {
        "crd": "S0, D", "ref:out": "S0, D", "ref:out-c": "S0, D"}
    assert bench(locator(), {"crd": "D", "ref:in": "D"}, tensors) == {
        "crd": "D", "ref:out": "D", "ref:out-c": "D"}


def test_multi_level_stops():
    tensors = {"c": Tensor.from_dense(VEC, "s")}
    out = bench(locator(), {"crd": "1, S1, 2, 3, S2, S2, D", "ref:in": "0, S1, 1, 2, S2, S2, D"},
                tensors)
    assert out == {"crd": "1, S1, 3, S2, S2, D", "ref:out": "0, S1, 2, S2, S2, D",
                   "ref:out-c": "0, S1, 1, S2, S2, D"}


# --------------------------------------------------------------------------- malformed input
@pytest.mark.parametrize(
    "ins, message",
    [
        ({"crd": "0, 1, S0, D", "ref:parent": "0, S0, D"}, "not aligned"),
        ({"crd": "0, 1, S0, D", "ref:parent": "0, 0, S1, D"}, "not aligned"),
        ({"crd": "0, N, S0, D", "ref:parent": "0, 0, S0, D"}, "not aligned"),
        ({"crd": "0, 1, S0, D", "ref:in": "0, 1, 2, S0, D", "ref:parent": "0, 0, S0, D"},
         "not aligned"),
        ({"crd": "0, S0, D", "ref:in": "0, D", "ref:parent": "0, S0, D"}, "not aligned"),
        ({"crd": "N, S0, D"}, "not aligned"),
        ({"crd": "0, S0, D", "ref:parent": "-1, S0, D"}, "out of range"),
    ],
)
@pytest.mark.parametrize("letters", ["ss01", "dd01"])
def test_malformed(ins, message, letters):
    tensors = {"C": Tensor.from_dense(FIG1[:3], letters)}
    with pytest.raises(SimulationError, match=message):
        bench(locator("C", 1), ins, tensors)


def test_compressed_parent_out_of_range():
    """A compressed level has one fiber per parent position; a dense one is a counter (any
    parent p >= 0 names positions p*N + c)."""
    with pytest.raises(SimulationError, match="out of range"):
        bench(locator("C", 1), {"crd": "0, 1, S0, D", "ref:parent": "3, 0, S0, D"},
              {"C": Tensor.from_dense(FIG1[:3], "ss01")})
    out = bench(locator("C", 1), {"crd": "0, 1, S0, D", "ref:parent": "3, 0, S0, D"},
                {"C": Tensor.from_dense(FIG1[:3], "dd01")})
    assert out["ref:out-C"] == "12, 1, S0, D"


def test_configuration_errors():
    tensors = {"c": Tensor.from_dense(VEC, "s")}
    with pytest.raises(GraphError, match="node locate_c locates into mode 1 of c, which has "
                       "order 1"):
        bench(locator("c", 1), {"crd": "0, S0, D"}, tensors)
    with pytest.raises(GraphError, match="lacks attribute"):
        Locator("l", {"tensor": "c"})
    bad = Locator("l", {"tensor": "c", "mode": "j", "index": "j"})
    with pytest.raises(GraphError, match=r"node l \(locate\): mode='j' is not a tensor mode"):
        bench(bad, {"crd": "0, S0, D"}, tensors)


# --------------------------------------------------------------------------- properties
@settings(max_examples=50, deadline=None)
@given(st.data())
def test_locate_equals_membership(data):
    """Leader fibers of random column coordinates, each searched in one row of a random matrix
    (any level formats): kept exactly when the row's level stores the coordinate, with its
    position in that level."""
    letters = data.draw(st.sampled_from(["ss", "sd", "ds", "dd"]))
    arr = data.draw(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=5),
                               elements=st.sampled_from([0.0, 0.0, 1.0, 2.0])))
    tensors = {"C": Tensor.from_dense(arr, letters)}
    rows, n = {}, 0  # row coordinate -> (row position, {column: position in level 1})
    for p, (i, fiber) in enumerate(tree_of(arr, letters)):
        rows[i] = (p, {}) if i not in rows else rows[i]
        for j, _ in fiber:
            rows[i][1][j] = n
            n += 1
    if not rows:
        return
    picks = data.draw(st.lists(st.sampled_from(sorted(rows)), max_size=4))
    fibers = [sorted(data.draw(st.sets(st.integers(0, arr.shape[1] + 1), max_size=5)))
              for _ in picks]
    lead = [(k, [(j, None) for j in f]) for k, f in enumerate(fibers)]
    parent = [(k, [(rows[picks[k]][0], None) for _ in f]) for k, f in enumerate(fibers)]
    pos, lead_refs = 0, []
    for k, f in enumerate(fibers):
        lead_refs.append((k, [(pos + x, None) for x in range(len(f))]))
        pos += len(f)
    ins = {"crd": level_stream(lead, 1), "ref:in": level_stream(lead_refs, 1),
           "ref:parent": level_stream(parent, 1)}
    out = bench(locator("C", 1), ins, tensors)
    kept = [(k, [(j, r) for (j, _), (r, _) in zip(lf, rf, strict=True) if j in rows[picks[k]][1]])
            for (k, lf), (_, rf) in zip(lead, lead_refs, strict=True)]
    assert out["crd"] == level_stream([(k, [(j, None) for j, _ in f]) for k, f in kept], 1)
    assert out["ref:out"] == level_stream([(k, [(r, None) for _, r in f]) for k, f in kept], 1)
    located = [(k, [(rows[picks[k]][1][j], None) for j, _ in f]) for k, f in kept]
    assert out["ref:out-C"] == level_stream(located, 1)


def test_fast_engine_agrees():
    sparse = {"C": Tensor.from_dense(FIG1, "ss01")}
    dense = {"C": Tensor.from_dense(FIG1, "dd01")}
    ins = {"crd": "0, 1, S0, 1, 2, 3, S0, S0, 1, S1, D",
           "ref:in": "0, 1, S0, 2, N, 4, S0, S0, 5, S1, D",
           "ref:parent": "0, 0, S0, 1, 1, 1, S0, S0, N, S1, D"}
    same_on_both_engines(lambda: locator("C", 1), ins, sparse)
    same_on_both_engines(lambda: locator("C", 1), ins, dense)
    same_on_both_engines(lambda: locator("C", 0), {"crd": "0, 3, 4, -1, S0, D"}, dense)
    with pytest.raises(SimulationError):
        bench(locator("C", 1), {"crd": "0, S0, D", "ref:parent": "-4, S0, D"}, dense,
              engine="fast")
