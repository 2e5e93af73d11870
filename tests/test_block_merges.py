"""Intersecter and unioner (SAM paper Defs. 3.2, 3.3, Sec. 3.5, Figure 5):
``sam.blocks.merges``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats import Tensor
from sam.blocks.alus import ALU_TYPES
from sam.blocks.arrays import ArrayLoad
from sam.blocks.merges import Intersecter, Unioner
from sam.blocks.scanners import LevelScanner
from sam.errors import SimulationError
from sam.runtime.tokens import N

from helpers.streamtrees import bench, level_stream, same_on_both_engines


def union(*ops: str) -> Unioner:
    return Unioner("union_i", {"index": "i"}, operands=list(ops or "bc"))


def intersect(*ops: str) -> Intersecter:
    return Intersecter("intersect_i", {"index": "i"}, operands=list(ops or "bc"))


def pair(b_crd: str, b_ref: str | None, c_crd: str, c_ref: str | None) -> dict[str, str]:
    ins = {"crd:in-b": b_crd, "crd:in-c": c_crd}
    if b_ref is not None:
        ins["ref:in-b"] = b_ref
    if c_ref is not None:
        ins["ref:in-c"] = c_ref
    return ins


def test_ports():
    u = union("b", "c", "d")
    assert [p.name for p in u.inputs()] == ["crd:in-b", "ref:in-b", "crd:in-c", "ref:in-c",
                                            "crd:in-d", "ref:in-d"]
    assert [p.name for p in u.outputs()] == ["crd", "ref:out-b", "ref:out-c", "ref:out-d"]
    x = Intersecter("x", {"index": "i"})
    x.declare_port("in", "crd", "in-B")
    x.declare_port("in", "ref", "in-B")
    x.declare_port("out", "ref", "out-C")
    assert x.operands == ["B", "C"]


# --------------------------------------------------------------------------- Figure 5
B_VEC = np.array([1.0, 0, 2.0, 3.0, 0, 0])
C_VEC = np.array([10.0, 20.0, 0, 30.0, 0, 40.0])


def _scan(name: str, tensors) -> dict[str, str]:
    return bench(LevelScanner(f"{name}_i", {"tensor": name, "mode": "0", "root": "true"}), {},
                 tensors)


def test_figure5_union_of_two_vectors():
    """Figure 5: b_i + c_i. The union emits every coordinate of either vector and pads each
    reference stream with N where its vector lacks the coordinate; loading and adding gives
    b + c."""
    tensors = {"b": Tensor.from_dense(B_VEC, "s"), "c": Tensor.from_dense(C_VEC, "s")}
    b, c = _scan("b", tensors), _scan("c", tensors)
    assert (b["crd"], b["ref"]) == ("0, 2, 3, S0, D", "0, 1, 2, S0, D")
    assert (c["crd"], c["ref"]) == ("0, 1, 3, 5, S0, D", "0, 1, 2, 3, S0, D")
    out = bench(union(), pair(b["crd"], b["ref"], c["crd"], c["ref"]))
    assert out == {
        "crd": "0, 1, 2, 3, 5, S0, D",
        "ref:out-b": "0, N, 1, 2, N, S0, D",
        "ref:out-c": "0, 1, N, 2, 3, S0, D",
    }
    bv = bench(ArrayLoad("bv", {"tensor": "b"}), {"ref": out["ref:out-b"]}, tensors)["val"]
    cv = bench(ArrayLoad("cv", {"tensor": "c"}), {"ref": out["ref:out-c"]}, tensors)["val"]
    assert (bv, cv) == ("1, N, 2, 3, N, S0, D", "10, 20, N, 30, 40, S0, D")
    total = bench(ALU_TYPES["add"]("add", {}), {"val:in0": bv, "val:in1": cv})
    assert total == {"val": "11, 20, 2, 33, 40, S0, D"}


def test_intersection_of_the_figure5_vectors():
    ins = pair("0, 2, 3, S0, D", "0, 1, 2, S0, D", "0, 1, 3, 5, S0, D", "0, 1, 2, 3, S0, D")
    assert bench(intersect(), ins) == {
        "crd": "0, 3, S0, D",
        "ref:out-b": "0, 2, S0, D",
        "ref:out-c": "0, 2, S0, D",
    }


# --------------------------------------------------------------------------- edge cases
def test_one_empty_fiber():
    ins = pair("S0, D", "S0, D", "0, 1, S0, D", "0, 1, S0, D")
    assert bench(union(), ins) == {"crd": "0, 1, S0, D", "ref:out-b": "N, N, S0, D",
                                   "ref:out-c": "0, 1, S0, D"}
    assert bench(intersect(), ins) == {"crd": "S0, D", "ref:out-b": "S0, D",
                                       "ref:out-c": "S0, D"}


def test_both_empty_and_disjoint():
    ins = pair("S0, D", "S0, D", "S0, D", "S0, D")
    empty = {"crd": "S0, D", "ref:out-b": "S0, D", "ref:out-c": "S0, D"}
    assert bench(union(), ins) == empty
    assert bench(intersect(), ins) == empty
    ins = pair("0, 2, S0, D", "0, 1, S0, D", "1, 3, S0, D", "0, 1, S0, D")
    assert bench(intersect(), ins) == empty
    assert bench(union(), ins) == {"crd": "0, 1, 2, 3, S0, D", "ref:out-b": "0, N, 1, N, S0, D",
                                   "ref:out-c": "N, 0, N, 1, S0, D"}


def test_done_only():
    ins = pair("D", "D", "D", "D")
    done = {"crd": "D", "ref:out-b": "D", "ref:out-c": "D"}
    assert bench(union(), ins) == done
    assert bench(intersect(), ins) == done


def test_multi_level_fibers():
    """Two fibers (a matrix level): merged fiber by fiber; S1 ends both."""
    ins = pair("0, 2, S0, 1, S1, D", "0, 1, S0, 2, S1, D", "2, S0, 0, 1, S1, D",
               "5, S0, 6, 7, S1, D")
    assert bench(union(), ins) == {"crd": "0, 2, S0, 0, 1, S1, D",
                                   "ref:out-b": "0, 1, S0, N, 2, S1, D",
                                   "ref:out-c": "N, 5, S0, 6, 7, S1, D"}
    assert bench(intersect(), ins) == {"crd": "2, S0, 1, S1, D", "ref:out-b": "1, S0, 2, S1, D",
                                       "ref:out-c": "5, S0, 7, S1, D"}


def test_stops_s1_s2_and_empty_outer_fibers():
    ins = pair("1, S1, S1, 4, S0, 2, S2, D", "0, S1, S1, 1, S0, 2, S2, D",
               "1, 3, S1, S1, S0, 2, S2, D", "0, 1, S1, S1, S0, 2, S2, D")
    assert bench(intersect(), ins) == {"crd": "1, S1, S1, S0, 2, S2, D",
                                       "ref:out-b": "0, S1, S1, S0, 2, S2, D",
                                       "ref:out-c": "0, S1, S1, S0, 2, S2, D"}
    assert bench(union(), ins) == {"crd": "1, 3, S1, S1, 4, S0, 2, S2, D",
                                   "ref:out-b": "0, N, S1, S1, 1, S0, 2, S2, D",
                                   "ref:out-c": "0, 1, S1, S1, N, S0, 2, S2, D"}


def test_empty_references_pass_through():
    """An N on a reference input (e.g. from an upstream union) is carried like a reference."""
    ins = pair("0, 1, S0, D", "N, 1, S0, D", "0, 1, S0, D", "0, N, S0, D")
    out = {"crd": "0, 1, S0, D", "ref:out-b": "N, 1, S0, D", "ref:out-c": "0, N, S0, D"}
    assert bench(union(), ins) == out
    assert bench(intersect(), ins) == out


def test_without_reference_inputs():
    """Coordinate-only operands (no reference edge) give N references."""
    ins = pair("0, 2, S0, 1, S1, D", None, "2, S0, 0, 1, S1, D", "5, S0, 6, 7, S1, D")
    assert bench(intersect(), ins) == {"crd": "2, S0, 1, S1, D", "ref:out-b": "N, S0, N, S1, D",
                                       "ref:out-c": "5, S0, 7, S1, D"}
    assert bench(union(), ins)["ref:out-b"] == "N, N, S0, N, N, S1, D"


def test_three_way_union():
    ins = {"crd:in-a": "0, 1, 4, 5, S0, D", "ref:in-a": "0, 1, 2, 3, S0, D",
           "crd:in-b": "1, 2, 5, S0, D", "ref:in-b": "0, 1, 2, S0, D",
           "crd:in-c": "1, 5, 7, S0, D", "ref:in-c": "0, 1, 2, S0, D"}
    assert bench(union("a", "b", "c"), ins) == {
        "crd": "0, 1, 2, 4, 5, 7, S0, D",
        "ref:out-a": "0, 1, N, 2, 3, N, S0, D",
        "ref:out-b": "N, 0, 1, N, 2, N, S0, D",
        "ref:out-c": "N, 0, N, N, 1, 2, S0, D",
    }


def test_three_way_intersection():
    ins = {"crd:in-a": "0, 1, 4, 5, S0, 3, S1, D", "ref:in-a": "0, 1, 2, 3, S0, 4, S1, D",
           "crd:in-b": "1, 2, 5, S0, 3, S1, D", "ref:in-b": "0, 1, 2, S0, 3, S1, D",
           "crd:in-c": "1, 5, 7, S0, S1, D", "ref:in-c": "0, 1, 2, S0, S1, D"}
    assert bench(intersect("a", "b", "c"), ins) == {
        "crd": "1, 5, S0, S1, D",
        "ref:out-a": "1, 3, S0, S1, D",
        "ref:out-b": "0, 2, S0, S1, D",
        "ref:out-c": "0, 1, S0, S1, D",
    }


# --------------------------------------------------------------------------- malformed input
MALFORMED = [
    (pair("0, S1, D", "0, S1, D", "0, S0, D", "0, S0, D"), "stop tokens of different levels"),
    (pair("0, S0, D", "0, S0, D", "0, S0, 1, S0, D", "0, S0, 1, S0, D"), "ended at different"),
    (pair("0, N, S0, D", "0, 1, S0, D", "0, 1, S0, D", "0, 1, S0, D"), "empty token"),
    (pair("0, 1, S0, D", "0, S0, D", "0, 1, S0, D", "0, 1, S0, D"), "reference stream"),
    (pair("0, 1, S0, D", "0, 1, 2, S0, D", "0, 1, S0, D", "0, 1, S0, D"), "reference stream"),
    (pair("0, S0, D", "0, S1, D", "0, S0, D", "0, S0, D"), "reference stream"),
    (pair("0, S0, D", "0, S0, 1, D", "0, S0, D", "0, S0, D"), "reference stream"),
    (pair("3, 1, S0, D", "0, 1, S0, D", "1, 3, S0, D", "0, 1, S0, D"), "strictly increasing"),
    (pair("1, 1, S0, D", "0, 1, S0, D", "1, 3, S0, D", "0, 1, S0, D"), "strictly increasing"),
    (pair("2, 5, S0, D", None, "1, 3, 2, S0, D", None), "strictly increasing"),
    (pair("-1, S0, D", None, "0, S0, D", None), "strictly increasing"),
]


@pytest.mark.parametrize("make", [union, intersect])
@pytest.mark.parametrize("ins, message", MALFORMED)
def test_malformed(make, ins, message):
    with pytest.raises(SimulationError, match=message):
        bench(make(), ins)


def test_sorted_again_after_a_stop():
    """The order check restarts with every fiber."""
    ins = pair("3, S0, 1, S1, D", "0, S0, 1, S1, D", "3, S0, 0, 1, S1, D", "0, S0, 1, 2, S1, D")
    assert bench(intersect(), ins)["crd"] == "3, S0, 1, S1, D"


# --------------------------------------------------------------------------- properties
def _operands(m: int):
    fibers = st.lists(st.integers(0, 12), max_size=6, unique=True).map(sorted)
    return st.integers(0, 4).flatmap(
        lambda n: st.lists(st.lists(fibers, min_size=n, max_size=n), min_size=m, max_size=m))


def _streams(fibers: list[list[int]]) -> tuple[str, str, dict[tuple[int, int], int]]:
    tree = [(o, [(c, None) for c in f]) for o, f in enumerate(fibers)]
    pos: dict[tuple[int, int], int] = {}
    for o, f in enumerate(fibers):
        for c in f:
            pos[o, c] = len(pos)
    refs = [(o, [(pos[o, c], None) for c in f]) for o, f in enumerate(fibers)]
    return level_stream(tree, 1), level_stream(refs, 1), pos


@settings(max_examples=50, deadline=None)
@given(st.sampled_from([2, 3]).flatmap(_operands), st.booleans())
def test_merge_equals_set_operations(operands, is_union):
    """Random sorted fibers on m = 2 or 3 inputs: the coordinates are the per-fiber set
    intersection or union, and each reference stream holds the input's position of every
    emitted coordinate (N where it lacks it)."""
    names = "abc"[: len(operands)]
    ins, positions = {}, []
    for name, fibers in zip(names, operands, strict=True):
        crd, ref, pos = _streams(fibers)
        ins[f"crd:in-{name}"], ins[f"ref:in-{name}"] = crd, ref
        positions.append(pos)
    n_fibers = len(operands[0])
    merged = []
    for o in range(n_fibers):
        sets = [set(fibers[o]) for fibers in operands]
        merged.append(sorted(set.union(*sets) if is_union else set.intersection(*sets)))
    block = union(*names) if is_union else intersect(*names)
    out = bench(block, ins)
    assert out["crd"] == level_stream([(o, [(c, None) for c in f]) for o, f in enumerate(merged)],
                                      1)
    for name, pos in zip(names, positions, strict=True):
        expected = [(o, [(pos.get((o, c), N), None) for c in f]) for o, f in enumerate(merged)]
        assert out[f"ref:out-{name}"] == level_stream(expected, 1)


def test_fast_engine_agrees():
    cases = [
        pair("0, 2, 3, S0, D", "0, 1, 2, S0, D", "0, 1, 3, 5, S0, D", "0, 1, 2, 3, S0, D"),
        pair("1, S1, S1, 4, S0, 2, S2, D", "0, S1, S1, 1, S0, 2, S2, D",
             "1, 3, S1, S1, S0, 2, S2, D", "0, 1, S1, S1, S0, 2, S2, D"),
        pair("0, 2, S0, 1, S1, D", None, "2, S0, 0, 1, S1, D", "5, S0, 6, 7, S1, D"),
    ]
    for ins in cases:
        same_on_both_engines(union, ins)
        same_on_both_engines(intersect, ins)
    for make in (union, intersect):
        for ins, _ in MALFORMED[::3]:
            with pytest.raises(SimulationError):
                bench(make(), ins, engine="fast")
