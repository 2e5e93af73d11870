"""Reducers (SAM paper Def. 3.7, Figure 7): the scalar reducer (n = 0) and the sparse
accumulator (n = 1, 2, 3): ``sam.blocks.reducers``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sam.blocks.reducers import Reducer, SparseAccumulator
from sam.errors import GraphError, SimulationError

from helpers.streamtrees import bench, level_stream, same_on_both_engines, trees
from helpers.streamtrees import tree_from_dense as tree_of

FIG1 = np.array([[0, 1, 0, 0], [2, 0, 3, 0], [0, 0, 0, 0], [0, 4, 0, 5]], dtype=float)


# --------------------------------------------------------------------------- scalar reducer
def reducer(empty: str | None = None) -> Reducer:
    return Reducer("reduce", {} if empty is None else {"empty": empty})


def reduce(vals: str, empty: str | None = None) -> str:
    return bench(reducer(empty), {"val": vals})["val"]


def test_scalar_ports():
    assert [p.name for p in reducer().inputs()] == ["val"]
    assert [p.name for p in reducer().outputs()] == ["val"]


def test_scalar_sums_each_innermost_fiber():
    """The Figure 1 values, summed per row: x_i = sum_j B_ij; S1 comes out as S0."""
    assert reduce("1, S0, 2, 3, S0, 4, 5, S1, D") == "1, 5, 9, S0, D"


def test_scalar_whole_vector():
    """A vector's only fiber (the root) reduces to one value with no stop left."""
    assert reduce("1, 2.5, 3, S0, D") == "6.5, D"


def test_scalar_empty_fiber_dropped_or_zero():
    """Def. 3.7: an empty fiber (an ineffectual intersection) is removed by default, or
    becomes an explicit 0 with ``empty=zero``."""
    assert reduce("1, 2, S0, S0, 4, 5, S1, D") == "3, 9, S0, D"
    assert reduce("1, 2, S0, S0, 4, 5, S1, D", "zero") == "3, 0, 9, S0, D"
    assert reduce("1, 2, S0, S0, 4, 5, S1, D", "drop") == "3, 9, S0, D"


def test_scalar_empty_tensor():
    assert reduce("S0, D") == "D"
    assert reduce("S0, D", "zero") == "0, D"
    assert reduce("S1, D") == "S0, D"
    assert reduce("S1, D", "zero") == "0, S0, D"
    assert reduce("D") == "D"


def test_scalar_multi_level_stops():
    """An input S(n) closing outer fibers comes out as S(n-1) after the fiber's sum; an empty
    innermost fiber before an outer stop leaves that stop (lowered) on its own."""
    assert reduce("1, 2, S2, 3, S0, S1, D") == "3, S1, 3, S0, D"
    assert reduce("1, 2, S0, 4, 5, S1, S1, D") == "3, 9, S0, S0, D"
    assert reduce("1, 2, S0, 4, 5, S1, S1, D", "zero") == "3, 9, S0, 0, S0, D"
    assert reduce("1, S1, S2, D") == "1, S0, S1, D"
    assert reduce("1, S1, S2, D", "zero") == "1, S0, 0, S1, D"


def test_scalar_empty_values_add_nothing():
    """N stands for 0 in a sum; a fiber holding only N has coordinates (where a union's
    operands are all absent), so it sums to 0 in every mode; a fiber without tokens is
    dropped (or 0 with ``empty=zero``)."""
    assert reduce("1, N, 2, S0, D") == "3, D"
    assert reduce("1, N, S0, N, S0, 2, S1, D") == "1, 0, 2, S0, D"
    assert reduce("1, N, S0, N, S0, 2, S1, D", "zero") == "1, 0, 2, S0, D"
    assert reduce("1, S0, S0, 2, S1, D") == "1, 2, S0, D"


def test_scalar_malformed():
    with pytest.raises(SimulationError, match="never closed"):
        reduce("1, 2, D")
    with pytest.raises(SimulationError, match="never closed"):
        reduce("1, S0, 2, D")
    with pytest.raises(GraphError, match="empty='keep'"):
        reduce("1, S0, D", "keep")


def _reduce_groups(tree, o: int, group, keep: bool):
    """Replace the fibers at level ``o`` by ``group(fiber)``; drop coordinates whose group is
    empty (``None`` or ``[]``) unless ``keep``."""
    def rec(fiber, lvl):
        if lvl == o:
            return group(fiber)
        out = []
        for c, child in fiber:
            g = rec(child, lvl + 1)
            if lvl == o - 1 and not keep and (g is None or g == []):
                continue
            out.append((c, g))
        return out
    return rec(tree, 0)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_scalar_equals_per_fiber_sums(data):
    """Random trees of depth 2-3: each innermost fiber becomes its sum; an empty one is dropped
    or 0. (For ``empty=zero`` only innermost fibers are empty: a stop right after an outer
    stop reads as one empty innermost fiber, as a value stream cannot tell an empty outer
    fiber from an outer fiber holding one empty fiber.)"""
    d = data.draw(st.sampled_from([2, 3]))
    empty = data.draw(st.sampled_from(["drop", "zero"]))
    tree = data.draw(trees(d, empty_above=empty == "drop"))

    def total(fiber):
        if not fiber:
            return 0.0 if empty == "zero" else None
        return sum(v for _, v in fiber)

    expected = _reduce_groups(tree, d - 1, total, keep=True)
    if empty == "drop":
        expected = _reduce_groups(tree, d - 1, total, keep=False)
    vals = level_stream(tree, d - 1, values=True)
    assert reduce(vals, empty) == level_stream(expected, d - 2, values=True)


# --------------------------------------------------------------------------- sparse accumulator
def accumulator(order: int, *kept: str, **attrs) -> SparseAccumulator:
    names = {f"in{d}": v for d, v in enumerate(kept)}
    return SparseAccumulator(f"spacc{order}", {"order": str(order), **names, **attrs})


def test_accumulator_ports():
    acc = accumulator(2, "j", "i")
    assert [p.name for p in acc.inputs()] == ["val", "crd:j", "crd:i"]
    assert [p.name for p in acc.outputs()] == ["val", "crd:out-j", "crd:out-i"]
    # Order 1 in the Custard schema: in1 names the reduced variable, whose stream is ignored.
    acc = accumulator(1, "j", "i")
    assert [p.name for p in acc.inputs()] == ["val", "crd:j", "crd:i"]
    assert acc.ignored_inputs() == ["crd:i"]
    assert [p.name for p in acc.outputs()] == ["val", "crd:out-j"]


FIG7_IN = {"crd:j": "1, S0, 0, 2, S0, 1, 3, S1, D", "val": "1, S0, 2, 3, S0, 4, 5, S1, D"}


def test_figure7_row_reducer():
    """Figure 7: a vector reducer (n = 1) over the Figure 1 matrix streamed i -> j sums its
    rows into x_j = sum_i B_ij."""
    out = bench(accumulator(1, "j"), FIG7_IN)
    assert out == {"crd:out-j": "0, 1, 2, 3, S0, D", "val": "2, 5, 3, 5, S0, D"}
    assert FIG1.sum(axis=0).tolist() == [2, 5, 3, 5]


def test_figure7_with_ignored_reduced_stream():
    out = bench(accumulator(1, "j", "i"), {**FIG7_IN, "crd:i": "0, 1, 3, S0, D"})
    assert out == {"crd:out-j": "0, 1, 2, 3, S0, D", "val": "2, 5, 3, 5, S0, D"}


def test_vector_reducer_several_groups():
    """An outer level o above the reduced one: one accumulated vector per o coordinate."""
    out = bench(accumulator(1, "j"), {"crd:j": "1, S0, 0, 1, S1, 3, S0, 2, 3, S2, D",
                                      "val": "1, S0, 2, 3, S1, 4, S0, 6, 5, S2, D"})
    assert out == {"crd:out-j": "0, 1, S0, 2, 3, S1, D", "val": "2, 4, S0, 6, 9, S1, D"}


def test_vector_reducer_empty_groups_drop_or_keep():
    """An empty group (every fiber of the reduced level empty) disappears by default and is
    an empty fiber with ``empty=keep``."""
    ins = {"crd:j": "S1, 1, S2, D", "val": "S1, 1, S2, D"}
    assert bench(accumulator(1, "j"), ins) == {"crd:out-j": "1, S1, D", "val": "1, S1, D"}
    assert bench(accumulator(1, "j", empty="keep"), ins) == {"crd:out-j": "S0, 1, S1, D",
                                                            "val": "S0, 1, S1, D"}
    ins = {"crd:j": "1, S1, S0, S1, 2, S2, D", "val": "1, S1, S0, S1, 2, S2, D"}
    assert bench(accumulator(1, "j"), ins) == {"crd:out-j": "1, S0, 2, S1, D",
                                               "val": "1, S0, 2, S1, D"}
    assert bench(accumulator(1, "j", empty="keep"), ins) == {
        "crd:out-j": "1, S0, S0, 2, S1, D", "val": "1, S0, S0, 2, S1, D"}


def test_vector_reducer_empty_tensor():
    for ins in ({"crd:j": "S1, D", "val": "S1, D"}, {"crd:j": "S0, S1, D", "val": "S0, S1, D"}):
        assert bench(accumulator(1, "j"), ins) == {"crd:out-j": "D", "val": "D"}
        assert bench(accumulator(1, "j", empty="keep"), ins) == {"crd:out-j": "S0, D",
                                                                "val": "S0, D"}
    assert bench(accumulator(1, "j"), {"crd:j": "S2, D", "val": "S2, D"}) == {
        "crd:out-j": "S1, D", "val": "S1, D"}
    assert bench(accumulator(1, "j"), {"crd:j": "D", "val": "D"}) == {"crd:out-j": "D",
                                                                      "val": "D"}


def test_vector_reducer_empty_values_count_as_zero():
    out = bench(accumulator(1, "j"), {"crd:j": "1, 2, S0, 2, S1, D", "val": "N, 2, S0, N, S1, D"})
    assert out == {"crd:out-j": "1, 2, S0, D", "val": "0, 2, S0, D"}


def test_matrix_reducer_outer_product_spmspm():
    """n = 2: outer-product SpM*SpM, X_ij = sum_k B_ik C_kj streamed k -> i -> j. Every k
    contributes a rank-1 matrix; the matrix reducer merges them into X (rows i, columns j)."""
    B = np.array([[1, 0, 2], [3, 4, 0], [0, 0, 5]], dtype=float)  # i x k
    C = np.array([[1, 2, 0], [0, 0, 3], [4, 0, 5]], dtype=float)  # k x j
    # The k -> i -> j iteration space with the products as values.
    space = np.einsum("ik,kj->kij", B, C)
    tree = tree_of(space, "sss")
    ins = {"crd:i": level_stream(tree, 1), "crd:j": level_stream(tree, 2),
           "val": level_stream(tree, 2, values=True)}
    assert ins["crd:i"] == "0, 1, S0, 1, S0, 0, 2, S1, D"
    assert ins["crd:j"] == "0, 1, S0, 0, 1, S1, 2, S1, 0, 2, S0, 0, 2, S2, D"
    out = bench(accumulator(2, "j", "i"), ins)
    X = B @ C
    assert out == {"crd:out-i": level_stream(tree_of(X, "ss"), 0),
                   "crd:out-j": level_stream(tree_of(X, "ss"), 1),
                   "val": level_stream(tree_of(X, "ss"), 1, values=True)}
    assert out == {"crd:out-i": "0, 1, 2, S0, D",
                   "crd:out-j": "0, 1, 2, S0, 0, 1, 2, S0, 0, 2, S1, D",
                   "val": "9, 2, 10, S0, 3, 6, 12, S0, 20, 25, S1, D"}


def test_matrix_reducer_groups_and_empty_groups():
    ins = {"crd:i": "0, 1, S1, 1, S2, D", "crd:j": "0, 1, S0, 0, 1, S2, 1, S3, D",
           "val": "4, 5, S0, 8, 10, S2, 18, S3, D"}
    assert bench(accumulator(2, "j", "i"), ins) == {
        "crd:out-i": "0, 1, S0, 1, S1, D",
        "crd:out-j": "0, 1, S0, 0, 1, S1, 1, S2, D",
        "val": "4, 5, S0, 8, 10, S1, 18, S2, D"}
    # Group 1 holds one k whose i fiber is [0] with an empty j fiber; group 2 is empty.
    ins = {"crd:i": "0, S1, S1, 1, S2, D", "crd:j": "S2, S2, 2, S3, D",
           "val": "S2, S2, 7, S3, D"}
    assert bench(accumulator(2, "j", "i"), ins) == {"crd:out-i": "1, S1, D",
                                                    "crd:out-j": "2, S2, D", "val": "7, S2, D"}
    assert bench(accumulator(2, "j", "i", empty="keep"), ins) == {
        "crd:out-i": "S0, S0, 1, S1, D", "crd:out-j": "S1, S1, 2, S2, D",
        "val": "S1, S1, 7, S2, D"}


def test_matrix_reducer_empty_and_done_only():
    for ins in ({"crd:i": "S1, D", "crd:j": "S2, D", "val": "S2, D"},
                {"crd:i": "D", "crd:j": "D", "val": "D"}):
        assert bench(accumulator(2, "j", "i"), ins) == {"crd:out-i": "D", "crd:out-j": "D",
                                                        "val": "D"}


def test_order3_reducer():
    ins = {"crd:i": "0, S0, 0, 1, S1, D", "crd:j": "1, S1, 1, S0, 0, S2, D",
           "crd:k": "2, 3, S2, 2, S1, 0, S3, D", "val": "1, 2, S2, 3, S1, 4, S3, D"}
    assert bench(accumulator(3, "k", "j", "i"), ins) == {
        "crd:out-i": "0, 1, S0, D", "crd:out-j": "1, S0, 0, S1, D",
        "crd:out-k": "2, 3, S1, 0, S2, D", "val": "4, 2, S1, 4, S2, D"}


@pytest.mark.parametrize(
    "order, ins, message",
    [
        (1, {"crd:j": "1, 2, S1, D", "val": "1, S1, D"}, "not aligned"),
        (1, {"crd:j": "1, S1, D", "val": "1, 2, S1, D"}, "not aligned"),
        (1, {"crd:j": "1, 2, S1, D", "val": "1, 2, S0, D"}, "not aligned"),
        (1, {"crd:j": "1, N, S1, D", "val": "1, 2, S1, D"}, "not aligned"),
        (1, {"crd:j": "1, 2, S0, D", "val": "1, 2, S0, D"}, "never closed"),
        (1, {"crd:j": "1, S0, 2, D", "val": "1, S0, 2, D"}, "never closed"),
        (2, {"crd:i": "0, 1, S1, D", "crd:j": "0, S0, 1, S1, D", "val": "1, S0, 2, S1, D"},
         "do not line up"),
        (2, {"crd:i": "0, S1, D", "crd:j": "0, S0, 1, S2, D", "val": "1, S0, 2, S2, D"},
         "do not line up"),
        (2, {"crd:i": "0, S1, D", "crd:j": "0, S2, D", "val": "1, S1, D"}, "not aligned"),
    ],
)
def test_accumulator_malformed(order, ins, message):
    kept = ("j",) if order == 1 else ("j", "i")
    with pytest.raises(SimulationError, match=message):
        bench(accumulator(order, *kept), ins)


def test_accumulator_configuration_errors():
    with pytest.raises(GraphError, match="order="):
        accumulator(0, "a")
    with pytest.raises(GraphError, match="order="):
        SparseAccumulator("a", {"order": "four", "in0": "j"})
    with pytest.raises(GraphError, match="lacks attribute in1"):
        SparseAccumulator("a", {"order": "2", "in0": "j"})
    with pytest.raises(GraphError, match="empty='zero'"):
        bench(accumulator(1, "j", empty="zero"), FIG7_IN)


def test_accumulator_grows_its_memory():
    """More points than the initial 64-entry store."""
    crd = ", ".join(str(j) for j in range(150))
    vals = ", ".join("1" for _ in range(150))
    ins = {"crd:j": f"{crd}, S0, {crd}, S1, D", "val": f"{vals}, S0, {vals}, S1, D"}
    out = bench(accumulator(1, "j"), ins)
    assert out == {"crd:out-j": f"{crd}, S0, D", "val": ", ".join("2" * 150) + ", S0, D"}


def _points_tree(points: dict[tuple[int, ...], float]):
    """Sorted n-level fibertree of a point -> value dict."""
    def build(items, k):
        out = []
        for key, val in items:
            if k == len(key) - 1:
                out.append((key[k], val))
            elif out and out[-1][0] == key[k]:
                out[-1][1].append((key, val))
            else:
                out.append((key[k], [(key, val)]))
        if items and k < len(items[0][0]) - 1:
            out = [(c, build(sub, k + 1)) for c, sub in out]
        return out
    return build(sorted(points.items()), 0)


def _accumulate(fiber, n: int):
    points: dict[tuple[int, ...], float] = {}

    def walk(f, prefix):
        for c, child in f:
            if len(prefix) == n - 1:
                points[prefix + (c,)] = points.get(prefix + (c,), 0.0) + child
            else:
                walk(child, prefix + (c,))

    for _, sub in fiber:  # one n-level sub-tensor per coordinate of the reduced level
        walk(sub, ())
    return _points_tree(points)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_accumulator_equals_dict_accumulation(data):
    """Orders 1-3, under 0-2 outer levels, both empty modes: the accumulator emits each group
    (a fiber of the reduced level) as the sorted, duplicate-free sum of its points."""
    n = data.draw(st.sampled_from([1, 2, 3]), "order")
    o = data.draw(st.sampled_from([0, 1, 2] if n < 3 else [0, 1]), "outer levels")
    keep = data.draw(st.booleans(), "keep")
    d = o + 1 + n
    tree = data.draw(trees(d, max_fiber=3 if d <= 3 else 2, max_crd=3), "tree")
    kept = ["k", "j", "i"][:n]
    ins = {"val": level_stream(tree, d - 1, values=True)}
    for lv, var in enumerate(kept):
        ins[f"crd:{var}"] = level_stream(tree, d - 1 - lv)
    out = bench(accumulator(n, *kept, **({"empty": "keep"} if keep else {})), ins)
    expected = _reduce_groups(tree, o, lambda f: _accumulate(f, n), keep)
    if o == 0 and not keep and expected == []:
        want = {"val": "D", **{f"crd:out-{v}": "D" for v in kept}}  # the only group vanished
    else:
        want = {"val": level_stream(expected, o + n - 1, values=True)}
        for lv, var in enumerate(kept):
            want[f"crd:out-{var}"] = level_stream(expected, o + n - 1 - lv)
    assert out == want


def test_fast_engine_agrees():
    same_on_both_engines(reducer, {"val": "1, 2, S0, S0, 4, N, S2, S1, D"})
    same_on_both_engines(lambda: reducer("zero"), {"val": "1, 2, S0, S0, 4, N, S2, S1, D"})
    same_on_both_engines(lambda: accumulator(1, "j", "i"), {**FIG7_IN, "crd:i": "0, 1, 3, S0, D"})
    same_on_both_engines(lambda: accumulator(1, "j", empty="keep"),
                         {"crd:j": "1, S1, S0, S1, 2, S2, D", "val": "1, S1, S0, S1, 2, S2, D"})
    same_on_both_engines(lambda: accumulator(2, "j", "i"),
                         {"crd:i": "0, S1, S1, 1, S2, D", "crd:j": "S2, S2, 2, S3, D",
                          "val": "S2, S2, 7, S3, D"})
    crd = ", ".join(str(j) for j in range(100, 0, -1))
    same_on_both_engines(lambda: accumulator(1, "j"),
                         {"crd:j": f"{crd}, S1, D", "val": f"{crd}, S1, D"})
    with pytest.raises(SimulationError):
        bench(reducer(), {"val": "1, D"}, engine="fast")
    with pytest.raises(SimulationError):
        bench(accumulator(1, "j"), {"crd:j": "1, 2, S1, D", "val": "1, S1, D"}, engine="fast")
