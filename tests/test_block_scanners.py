"""Level scanner (SAM paper Def. 3.1, Sec. 3.3, Figures 1-3): ``sam.blocks.scanners``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from formats import Tensor
from sam.blocks.arrays import ArrayLoad
from sam.blocks.scanners import LevelScanner
from sam.errors import GraphError, SimulationError

from helpers.streamtrees import bench, level_stream, positions, same_on_both_engines, scan_chain
from helpers.streamtrees import tree_from_dense as tree_of

#: Figure 1a.
FIG1 = np.array([[0, 1, 0, 0], [2, 0, 3, 0], [0, 0, 0, 0], [0, 4, 0, 5]], dtype=float)


def scanner(mode: int, *, root: bool = False, dense: bool = False, tensor: str = "B"):
    attrs = {"tensor": tensor, "mode": str(mode), "format": "dense" if dense else "compressed"}
    if root:
        attrs["root"] = "true"
    return LevelScanner(f"scan{mode}", attrs)


@pytest.fixture
def dcsr():
    return {"B": Tensor.from_dense(FIG1, "ss01")}


def test_figure1_dcsr_arrays(dcsr):
    """Figure 1c: the DCSR arrays the scanners read."""
    i, j = dcsr["B"].levels
    assert i.seg.tolist() == [0, 3] and i.crd.tolist() == [0, 1, 3]
    assert j.seg.tolist() == [0, 1, 3, 5] and j.crd.tolist() == [1, 0, 2, 1, 3]


def test_figure1d_streams(dcsr):
    """Figure 1d: scanner i -> scanner j -> array load over the DCSR matrix."""
    i = bench(scanner(0, root=True), {}, dcsr)
    assert i["crd"] == "0, 1, 3, S0, D"
    j = bench(scanner(1), {"ref": i["ref"]}, dcsr)
    assert j["crd"] == "1, S0, 0, 2, S0, 1, 3, S1, D"
    vals = bench(ArrayLoad("vals", {"tensor": "B"}), {"ref": j["ref"]}, dcsr)
    assert vals == {"val": "1, S0, 2, 3, S0, 4, 5, S1, D"}


def test_figure2_chained_scanners_with_references(dcsr):
    """Figure 2: the root scanner reads the root reference ``0, D``; each scanner's reference
    stream locates the next level's fibers, and stop tokens grow by one per level."""
    i = bench(scanner(0, root=True), {"ref": "0, D"}, dcsr)
    assert i == {"crd": "0, 1, 3, S0, D", "ref": "0, 1, 2, S0, D"}
    j = bench(scanner(1), {"ref": i["ref"]}, dcsr)
    assert j == {"crd": "1, S0, 0, 2, S0, 1, 3, S1, D", "ref": "0, S0, 1, 2, S0, 3, 4, S1, D"}


def test_root_scanner_defaults_to_root_reference(dcsr):
    assert bench(scanner(0, root=True), {}, dcsr) == bench(scanner(0, root=True),
                                                           {"ref": "0, D"}, dcsr)


def test_figure3_dense_rows_same_interface():
    """Figure 3: a dense level has the same interface; it streams every coordinate, so the
    empty row 2 appears as an empty j fiber (``S0, S0``)."""
    tensors = {"B": Tensor.from_dense(FIG1, "ds01")}
    i = bench(scanner(0, root=True, dense=True), {}, tensors)
    assert i == {"crd": "0, 1, 2, 3, S0, D", "ref": "0, 1, 2, 3, S0, D"}
    j = bench(scanner(1), {"ref": i["ref"]}, tensors)
    assert j == {"crd": "1, S0, 0, 2, S0, S0, 1, 3, S1, D",
                 "ref": "0, S0, 1, 2, S0, S0, 3, 4, S1, D"}


def test_dense_dense_references_are_row_major_positions():
    tensors = {"B": Tensor.from_dense(FIG1[:2, :3], "dd01")}
    j = bench(scanner(1, dense=True), {"ref": "0, 1, S0, D"}, tensors)
    assert j == {"crd": "0, 1, 2, S0, 0, 1, 2, S1, D", "ref": "0, 1, 2, S0, 3, 4, 5, S1, D"}
    # A reference picks its row: p * N + c.
    assert bench(scanner(1, dense=True), {"ref": "1, S0, D"}, tensors)["ref"] == "3, 4, 5, S1, D"


def test_column_major_scan_dcsc():
    """Mode order 10 (DCSC): the root scanner streams mode 1 (columns)."""
    tensors = {"B": Tensor.from_dense(FIG1, "ss10")}
    j = bench(scanner(1, root=True), {}, tensors)
    assert j == {"crd": "0, 1, 2, 3, S0, D", "ref": "0, 1, 2, 3, S0, D"}
    i = bench(scanner(0), {"ref": j["ref"]}, tensors)
    assert i == {"crd": "1, S0, 0, 3, S0, 1, S0, 3, S1, D",
                 "ref": "0, S0, 1, 2, S0, 3, S0, 4, S1, D"}


def test_empty_tensor_root_fiber_empty():
    tensors = {"B": Tensor.from_dense(np.zeros((3, 3)), "ss01")}
    i = bench(scanner(0, root=True), {}, tensors)
    assert i == {"crd": "S0, D", "ref": "S0, D"}
    # The next level sees an empty outer fiber: just the stop, one level up.
    assert bench(scanner(1), {"ref": i["ref"]}, tensors) == {"crd": "S1, D", "ref": "S1, D"}


def test_empty_tensor_dense_rows():
    tensors = {"B": Tensor.from_dense(np.zeros((3, 2)), "ds01")}
    i = bench(scanner(0, root=True, dense=True), {}, tensors)
    assert i["crd"] == "0, 1, 2, S0, D"
    assert bench(scanner(1), {"ref": i["ref"]}, tensors) == {"crd": "S0, S0, S1, D",
                                                             "ref": "S0, S0, S1, D"}


def test_zero_sized_dimension():
    tensors = {"B": Tensor.from_dense(np.zeros((0, 4)), "ds01")}
    assert bench(scanner(0, root=True, dense=True), {}, tensors) == {"crd": "S0, D",
                                                                    "ref": "S0, D"}


def test_empty_fibers_in_the_middle_and_at_the_end(dcsr):
    """An empty fiber (row 2 of a dense traversal) is a bare stop; a trailing one merges the
    outer stop after it: ``..., S0, S1``."""
    tensors = {"B": Tensor.from_dense(FIG1, "ds01")}
    assert bench(scanner(1), {"ref": "2, 0, 2, S0, D"}, tensors)["crd"] == "S0, 1, S0, S1, D"
    assert bench(scanner(1), {"ref": "0, 2, S0, D"}, tensors)["crd"] == "1, S0, S1, D"


def test_empty_reference_gives_empty_fiber(dcsr):
    out = bench(scanner(1), {"ref": "0, N, 2, S0, D"}, dcsr)
    assert out == {"crd": "1, S0, S0, 1, 3, S1, D", "ref": "0, S0, S0, 3, 4, S1, D"}
    assert bench(scanner(1), {"ref": "N, S0, D"}, dcsr) == {"crd": "S1, D", "ref": "S1, D"}
    tensors = {"B": Tensor.from_dense(FIG1, "dd01")}
    out = bench(scanner(1, dense=True), {"ref": "N, 1, S0, D"}, tensors)
    assert out == {"crd": "S0, 0, 1, 2, 3, S1, D", "ref": "S0, 4, 5, 6, 7, S1, D"}


def test_multi_level_stop_tokens(dcsr):
    """Input stops S1, S2 come out raised by one and merged with the fiber's closing stop;
    a stop right after another (an empty outer fiber) is raised without a fiber stop."""
    out = bench(scanner(1), {"ref": "0, S0, 1, S1, 2, S0, S2, D"}, dcsr)
    assert out == {"crd": "1, S1, 0, 2, S2, 1, 3, S1, S3, D",
                   "ref": "0, S1, 1, 2, S2, 3, 4, S1, S3, D"}
    out = bench(scanner(1), {"ref": "0, S0, S0, 2, S1, D"}, dcsr)
    assert out["crd"] == "1, S1, S1, 1, 3, S2, D"


def test_references_in_any_order(dcsr):
    out = bench(scanner(1), {"ref": "2, 0, 1, S0, D"}, dcsr)
    assert out == {"crd": "1, 3, S0, 1, S0, 0, 2, S1, D", "ref": "3, 4, S0, 0, S0, 1, 2, S1, D"}


def test_done_only(dcsr):
    assert bench(scanner(1), {"ref": "D"}, dcsr) == {"crd": "D", "ref": "D"}


def test_order3_chain():
    arr = np.zeros((2, 3, 2))
    arr[0, 1, 1] = 1
    arr[0, 2, 0] = 2
    arr[1, 0, 0] = 3
    arr[1, 0, 1] = 4
    outs = scan_chain(Tensor.from_dense(arr, "sss"))
    assert [o["crd"] for o in outs] == [
        "0, 1, S0, D",
        "1, 2, S0, 0, S1, D",
        "1, S0, 0, S1, 0, 1, S2, D",
    ]
    assert outs[2]["ref"] == "0, S0, 1, S1, 2, 3, S2, D"


def test_order3_dense_middle_level():
    arr = np.zeros((2, 2, 2))
    arr[1, 1, 0] = 5
    outs = scan_chain(Tensor.from_dense(arr, "sds"))
    assert [o["crd"] for o in outs] == ["1, S0, D", "0, 1, S1, D", "S0, 0, S2, D"]
    assert [o["ref"] for o in outs] == ["0, S0, D", "0, 1, S1, D", "S0, 0, S2, D"]


# --------------------------------------------------------------------------- malformed input
@pytest.mark.parametrize("ref", ["4, S0, D", "3, 7, S0, D", "-1, S0, D"])
def test_compressed_reference_out_of_range(dcsr, ref):
    with pytest.raises(SimulationError, match="reference out of range"):
        bench(scanner(1), {"ref": ref}, dcsr)


@pytest.mark.parametrize("ref", ["-1, S0, D", "0, -2, S0, D"])
def test_dense_negative_reference(ref):
    tensors = {"B": Tensor.from_dense(FIG1, "dd01")}
    with pytest.raises(SimulationError, match="reference out of range"):
        bench(scanner(1, dense=True), {"ref": ref}, tensors)


def test_dense_level_is_a_counter():
    """A dense level knows only its size N (Figure 3): reference r streams positions
    r*N .. r*N+N-1 whatever r is (Custard's dense iteration feeds a stand-in reference);
    the array load behind it range-checks real positions."""
    tensors = {"B": Tensor.from_dense(FIG1, "dd01")}
    out = bench(scanner(1, dense=True), {"ref": "7, S0, D"}, tensors)
    assert out == {"crd": "0, 1, 2, 3, S1, D", "ref": "28, 29, 30, 31, S1, D"}
    with pytest.raises(SimulationError, match="out of range of the value array"):
        bench(ArrayLoad("v", {"tensor": "B"}), {"ref": out["ref"]}, tensors)


def test_dense_iteration_over_a_compressed_mode(dcsr):
    """Format ``dense`` over a compressed level iterates the mode's whole range."""
    out = bench(scanner(1, dense=True), {"ref": "0, S0, D"}, dcsr)
    assert out == {"crd": "0, 1, 2, 3, S1, D", "ref": "0, 1, 2, 3, S1, D"}


def test_root_reference_out_of_range(dcsr):
    with pytest.raises(SimulationError):
        bench(scanner(0, root=True), {"ref": "1, D"}, dcsr)


def test_configuration_errors(dcsr):
    with pytest.raises(GraphError, match="stored dense"):
        bench(scanner(1), {"ref": "0, S0, D"}, {"B": Tensor.from_dense(FIG1, "dd01")})
    with pytest.raises(GraphError, match="scans mode 2 of B, which has order 2"):
        bench(scanner(2), {"ref": "0, S0, D"}, dcsr)
    bad = LevelScanner("s", {"tensor": "B", "mode": "i"})
    with pytest.raises(GraphError, match=r"node s \(fiberlookup\): mode='i' is not a tensor mode"):
        bench(bad, {"ref": "0, S0, D"}, dcsr)
    with pytest.raises(GraphError, match="lacks attribute"):
        LevelScanner("s", {"tensor": "B"})
    with pytest.raises(SimulationError, match="no input"):
        bench(scanner(1), {"crd": "0, D"}, dcsr)


# --------------------------------------------------------------------------- properties
def _arrays(order: int):
    shapes = hnp.array_shapes(min_dims=order, max_dims=order, min_side=0, max_side=4)
    return hnp.arrays(np.float64, shapes, elements=st.sampled_from([0.0, 0.0, 0.0, 1.0, -2.5]))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_scanner_chain_reproduces_the_tensor(data):
    """Any tensor in any level-format combination: each level's coordinate and reference
    streams, and the values loaded through the last references, are the fibertree's."""
    order = data.draw(st.sampled_from([1, 2, 3]))
    arr = data.draw(_arrays(order))
    letters = data.draw(st.text("ds", min_size=order, max_size=order))
    tensor = Tensor.from_dense(arr, letters)
    tree = tree_of(arr, letters)
    refs = positions(tree, order)
    outs = scan_chain(tensor)
    for lvl, out in enumerate(outs):
        assert out["crd"] == level_stream(tree, lvl)
        assert out["ref"] == level_stream(refs[lvl], lvl)
    vals = bench(ArrayLoad("v", {"tensor": "B"}), {"ref": outs[-1]["ref"]}, {"B": tensor})
    assert vals["val"] == level_stream(tree, order - 1, values=True)


def test_fast_engine_agrees():
    tensors = {"B": Tensor.from_dense(FIG1, "ss01")}
    dense = {"B": Tensor.from_dense(FIG1, "dd01")}
    same_on_both_engines(lambda: scanner(0, root=True), {}, tensors)
    same_on_both_engines(lambda: scanner(1), {"ref": "0, N, 2, S0, 1, S1, S1, D"}, tensors)
    same_on_both_engines(lambda: scanner(1, dense=True), {"ref": "0, S0, 3, N, S1, D"}, dense)
    with pytest.raises(SimulationError):
        bench(scanner(1, dense=True), {"ref": "0, -4, S0, D"}, dense, engine="fast")
