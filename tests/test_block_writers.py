"""Level writers (SAM paper Def. 3.8, Sec. 3.7): ``sam.blocks.writers``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from formats import Tensor
from sam.blocks.arrays import ArrayLoad
from sam.blocks.droppers import CoordinateDropper
from sam.blocks.writers import LevelWriter
from sam.errors import GraphError, SimulationError
from sam.runtime.wires import RC_IN
from sam.sim.assemble import level_segments
from sam.sim.harness import run_block

from helpers.streamtrees import bench, level_stream, scan_chain, trees

FIG1 = np.array([[0, 1, 0, 0], [2, 0, 3, 0], [0, 0, 0, 0], [0, 4, 0, 5]], dtype=float)


def writer(mode: str) -> LevelWriter:
    return LevelWriter(f"write_{mode}", {"tensor": "X", "mode": mode})


def record(mode: str, stream: str, engine: str = "reference") -> dict[str, np.ndarray]:
    """Run a writer; return what it recorded."""
    block = writer(mode)
    port = "val" if mode == "vals" else "crd"
    res = run_block(block, {port: stream}, engine=engine)
    assert dict(res) == {}  # a writer has no output streams
    return block.recorded(res.st, res.mem)


def write(mode: str, stream: str, engine: str = "reference", parent: str | None = None
          ) -> dict[str, list]:
    """Run a writer; return its coordinates and segment array (the fibers read against the
    ``parent`` level's stream, as the simulator assembles an output), or its values."""
    rec = record(mode, stream, engine)
    if mode == "vals":
        return {"vals": rec["vals"].tolist()}
    up = record(str(int(mode) - 1), parent) if parent is not None else None
    return {"crd": rec["crd"].tolist(), "seg": level_segments(rec, up).tolist()}


def test_ports():
    assert [p.name for p in writer("0").inputs()] == ["crd"]
    assert [p.name for p in writer("vals").inputs()] == ["val"]
    assert writer("0").outputs() == []
    assert writer("vals").writes_values and not writer("1").writes_values


def test_figure1c_dcsr_from_figure1d_streams():
    """Figure 1: writing the streams of Figure 1d rebuilds the DCSR arrays of Figure 1c."""
    assert write("0", "0, 1, 3, S0, D") == {"crd": [0, 1, 3], "seg": [0, 3]}
    assert write("1", "1, S0, 0, 2, S0, 1, 3, S1, D", parent="0, 1, 3, S0, D") == {
        "crd": [1, 0, 2, 1, 3], "seg": [0, 1, 3, 5]}
    assert record("1", "1, S0, 0, 2, S0, 1, 3, S1, D")["stop_level"].tolist() == [0, 0, 1]
    assert write("vals", "1, S0, 2, 3, S0, 4, 5, S1, D") == {"vals": [1, 2, 3, 4, 5]}
    B = Tensor.from_dense(FIG1, "ss01")
    assert B.levels[1].seg.tolist() == [0, 1, 3, 5]


def test_empty_fibers_are_recorded():
    """An empty fiber (S0 after S0) is a fiber of its own: row 2 of a dense-row traversal."""
    rows = "0, 1, 2, 3, S0, D"
    assert write("1", "1, S0, 0, 2, S0, S0, 1, 3, S1, D", parent=rows) == {
        "crd": [1, 0, 2, 1, 3], "seg": [0, 1, 3, 3, 5]}
    assert write("1", "S0, 4, S1, D", parent="0, 1, S0, D") == {"crd": [4], "seg": [0, 0, 1]}
    assert write("1", "4, S0, S1, D", parent="0, 1, S0, D") == {"crd": [4], "seg": [0, 1, 1]}


def test_empty_root():
    assert write("0", "S0, D") == {"crd": [], "seg": [0, 0]}
    assert write("0", "D") == {"crd": [], "seg": [0, 0]}
    assert write("vals", "D") == {"vals": []}
    assert write("vals", "S0, D") == {"vals": []}


def test_empty_outer_fibers_hold_no_fiber():
    """A lone stop (no coordinate before it) in a stream that droppers cleaned marks an empty
    fiber of a level above: no fiber of this level."""
    # An all-zero matrix result: i holds no coordinate, so j holds no fiber.
    assert write("0", "S0, D") == {"crd": [], "seg": [0, 0]}
    assert write("1", "S1, D", parent="S0, D") == {"crd": [], "seg": [0]}
    # Figure 8 after the dropper, one level down: k fibers only under the surviving j's.
    assert write("2", "S1, 3, S2, D", parent="7, S1, D") == {"crd": [3], "seg": [0, 1]}
    assert write("2", "3, S1, S1, 4, S2, D", parent="5, S0, 6, S1, D") == {
        "crd": [3, 4], "seg": [0, 1, 2]}
    assert write("2", "3, S1, S2, D", parent="5, S1, D") == {"crd": [3], "seg": [0, 1]}


def test_empty_fibers_read_against_the_level_above():
    """Where a level keeps empty fibers, the level above tells a lone S1 that closes an empty
    fiber from one that marks an empty outer fiber."""
    # j under i = (0: [4], 1: [], 2: []) with i's fiber (0, 1, 2): three fibers, two empty.
    assert write("1", "4, S0, S0, S1, D", parent="0, 1, 2, S0, D") == {
        "crd": [4], "seg": [0, 1, 1, 1]}


def test_values_with_empty_tokens_store_zero():
    assert write("vals", "1, N, 2.5, S0, N, S1, D") == {"vals": [1, 0, 2.5, 0]}


def test_memory_grows():
    crd = ", ".join(str(c) for c in range(200))
    assert write("0", f"{crd}, S0, D") == {"crd": list(range(200)), "seg": [0, 200]}
    fibers = ", ".join(f"{c}, S0" for c in range(100))
    rec = write("1", f"{fibers[:-4]}, S1, D", parent=f"{', '.join(map(str, range(100)))}, S0")
    assert rec == {"crd": list(range(100)), "seg": list(range(101))}
    assert write("vals", f"{crd}, S0, D") == {"vals": list(range(200))}


def test_malformed():
    with pytest.raises(SimulationError, match=r"empty token \(N\) reached a coordinate"):
        write("0", "0, N, S0, D")
    with pytest.raises(SimulationError):
        write("1", "N, S1, D")


def test_value_writer_takes_any_value_stream():
    """A value stream has no malformed tokens for a value writer (N stores 0, stops only
    separate fibers); a stream that never ends leaves it waiting for input, unfinished."""
    block = writer("vals")
    res = run_block(block, {"val": "1, S0"})
    assert res.rc == RC_IN and block.recorded(res.st, res.mem)["vals"].tolist() == [1]


def test_configuration_errors():
    with pytest.raises(GraphError, match="lacks attribute"):
        LevelWriter("w", {"tensor": "X"})
    with pytest.raises(GraphError, match="mode number or vals"):
        writer("x").mode  # noqa: B018


# --------------------------------------------------------------------------- properties
@settings(max_examples=40, deadline=None)
@given(st.sampled_from([1, 2, 3]).flatmap(
    lambda n: hnp.arrays(np.float64, hnp.array_shapes(min_dims=n, max_dims=n, min_side=0,
                                                      max_side=4),
                         elements=st.sampled_from([0.0, 0.0, 1.0, -2.0]))))
def test_scan_then_write_round_trip(arr):
    """Scanning a compressed tensor and writing every level back stores its arrays."""
    tensor = Tensor.from_dense(arr, "s" * arr.ndim)
    outs = scan_chain(tensor)
    for lvl, out in enumerate(outs):
        rec = write(str(lvl), out["crd"], parent=outs[lvl - 1]["crd"] if lvl else None)
        assert rec["seg"] == tensor.levels[lvl].seg.tolist()
        assert rec["crd"] == tensor.levels[lvl].crd.tolist()
    loaded = bench(ArrayLoad("v", {"tensor": "B"}), {"ref": outs[-1]["ref"]}, {"B": tensor})
    assert write("vals", loaded["val"]) == {"vals": tensor.vals.tolist()}


def _clean(tree, depth: int):
    """Remove, bottom-up, every coordinate whose fiber below is empty (what the droppers of a
    Custard graph do)."""
    def rec(fiber, lvl):
        if lvl == depth - 1:
            return fiber
        out = []
        for c, child in fiber:
            sub = rec(child, lvl + 1)
            if sub:
                out.append((c, sub))
        return out
    return rec(tree, 0)


def _arrays(tree, depth: int):
    """seg/crd arrays of every level of a fibertree (compressed everywhere)."""
    levels, fibers = [], [tree]
    for _ in range(depth):
        seg, crd, nxt = [0], [], []
        for f in fibers:
            for c, child in f:
                crd.append(c)
                nxt.append(child)
            seg.append(len(crd))
        levels.append({"seg": seg, "crd": crd})
        fibers = nxt
    return levels


@settings(max_examples=60, deadline=None)
@given(trees(3, max_crd=4))
def test_write_dropper_cleaned_streams(tree):
    """Random i -> j -> k trees with empty fibers anywhere, cleaned by crddrop(j, k) then
    crddrop(i, j) as a graph does: the writers store exactly the cleaned tree. (The k stream
    keeps the marks of j fibers that crddrop(j, k) emptied, whose i was dropped later.)"""
    jk = bench(CoordinateDropper("jk", {"outer": "j", "inner": "k"}),
               {"crd:j": level_stream(tree, 1), "crd:in-k": level_stream(tree, 2)})
    ij = bench(CoordinateDropper("ij", {"outer": "i", "inner": "j"}),
               {"crd:i": level_stream(tree, 0), "crd:in-j": jk["crd:outer-j"]})
    streams = [ij["crd:outer-i"], ij["crd:inner-j"], jk["crd:inner-k"]]
    expected = _arrays(_clean(tree, 3), 3)
    for lvl in range(3):
        got = write(str(lvl), streams[lvl], parent=streams[lvl - 1] if lvl else None)
        assert got == expected[lvl], (lvl, streams)


def test_fast_engine_agrees():
    for mode, stream in [("1", "1, S0, 0, 2, S0, S0, 1, 3, S1, D"), ("2", "3, S1, S1, 4, S2, D"),
                         ("vals", "1, N, 2.5, S0, N, S1, D")]:
        fast, ref = record(mode, stream, "fast"), record(mode, stream)
        assert {k: v.tolist() for k, v in fast.items()} == {k: v.tolist() for k, v in ref.items()}
    with pytest.raises(SimulationError):
        write("0", "0, N, S0, D", "fast")
