"""The memory hierarchy model (sam.memory_model) on tiled runs (custard.tiling)."""

from __future__ import annotations

import math

import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from custard.tiling import memory_steps, run_tiled
from formats.errors import ToolkitError
from formats.io import load_tensor
from formats.tensor import Tensor
from sam.errors import SimulationError
from sam.memory_model import (
    Step,
    TileUse,
    extensor,
    hierarchy_from,
    load_hierarchy,
    run_memory,
)

SMALL = hierarchy_from({"name": "small", "bytes_per_element": 2, "level": [
    {"name": "LLB", "capacity_bytes": 1e6, "bandwidth": 68.256, "latency": 200, "tile": [64, 64]},
    {"name": "PE", "capacity_bytes": 7e4, "bandwidth": 256, "latency": 1, "tile": [16, 16]}]})
MATMUL = "X(i,j)=B(i,k)*C(k,j)"
FMTS = {"X": "ss", "B": "ss", "C": "ss"}


def test_shipped_extensor_config() -> None:
    h = extensor()
    llb, pe = h.level("LLB"), h.level("PE")
    assert (llb.capacity_bytes, llb.bandwidth, llb.latency, llb.tile) == (
        17_100_000, 68.256, 200, (2048, 2048))
    assert (pe.capacity_bytes, pe.bandwidth, pe.latency, pe.tile) == (70_000, 256, 1, (128, 128))
    assert h.bytes_per_element == 2 and h.clock_ghz == 1.0


def test_load_cost_reuse_and_writeback() -> None:
    t = TileUse("a", 1000, 10)
    steps = [Step({"PE": {"B": t}}, 5, {"PE": TileUse("o", 512, 3)}),
             Step({"PE": {"B": t}}, 7, {"PE": TileUse("o", 512, 3)})]
    rep = run_memory(SMALL, steps, buffers=1)
    load = 1 + math.ceil(1000 / 256)
    assert rep.levels["PE"].loads == 1 and rep.levels["PE"].reused == 1
    assert rep.total_cycles == load + 5 + 7 + math.ceil(512 / 256)


def test_empty_tiles_skipped() -> None:
    steps = [Step({"PE": {"B": TileUse(k, 50, 0 if k % 2 else 4)}}, 3) for k in range(6)]
    on = run_memory(SMALL, steps, skip_empty=True, buffers=1)
    off = run_memory(SMALL, steps, skip_empty=False, buffers=1)
    assert all(key % 2 == 0 for _, key in on.loaded["PE"])
    assert on.levels["PE"].skipped_empty == 3 and off.levels["PE"].loads == 6
    assert on.total_cycles < off.total_cycles


def _run(engine: str, name: str = "west0479"):
    b = load_tensor(name, "ss")
    c = Tensor.from_scipy(sp.csr_matrix(b.to_scipy().T), "ss")
    tensors = {"B": b, "C": c}
    res = run_tiled(MATMUL, tensors, FMTS, "ikj", tile=16, engine=engine)
    return tensors, res


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_tiled_matmul_bounds(engine: str) -> None:
    tensors, res = _run(engine)
    for dense in (False, True):
        steps = memory_steps(MATMUL, tensors, res, SMALL, dense=dense)
        for skip in (True, False):
            for buffers in (1, 2, 3):
                rep = run_memory(SMALL, steps, skip_empty=skip, buffers=buffers)
                # each level's channel moves its bytes at its bandwidth (channels run side by
                # side, so the bound is the busiest channel's)
                bound = max((r.bytes_loaded + r.bytes_written) / SMALL.level(n).bandwidth
                            for n, r in rep.levels.items())
                assert rep.total_cycles >= bound
                assert rep.total_cycles >= rep.compute_cycles == res.compute_cycles
                if skip:
                    for name in rep.loaded:
                        nz = {(op, u.key) for s in steps for op, u in s.tiles[name].items()
                              if u.nnz == 0}
                        assert not nz & set(rep.loaded[name])
        one = run_memory(SMALL, steps, buffers=1)
        two = run_memory(SMALL, steps, buffers=2)
        assert two.total_cycles < one.total_cycles and two.overlap > 0
        # without n-buffering no load overlaps compute: loads and compute alternate
        loads = sum(r.load_cycles for r in one.levels.values())
        assert one.total_cycles >= one.compute_cycles + loads


def test_engines_agree_on_memory_cycles() -> None:
    totals = []
    for engine in ("reference", "fast"):
        tensors, res = _run(engine)
        totals.append(run_memory(SMALL, memory_steps(MATMUL, tensors, res, SMALL)).total_cycles)
    assert totals[0] == totals[1]


def test_bad_config(tmp_path) -> None:
    p = tmp_path / "m.yaml"
    p.write_text("level:\n  - name: PE\n    bandwidth: 2\n")
    with pytest.raises(SimulationError, match="level 1: missing or bad field"):
        load_hierarchy(p)
    with pytest.raises(ToolkitError, match="nope.yaml: no such memory configuration"):
        load_hierarchy(tmp_path / "nope.yaml")


def test_llb_tile_loaded_once_per_use() -> None:
    """Two-level tiling: the PE tuples inside one LLB tile tuple share its LLB tiles (loaded
    once), each PE tile is loaded from the LLB."""
    llb = {"B": TileUse(("b", 0), 4000, 100), "C": TileUse(("c", 0), 4000, 100)}
    steps = [Step({"LLB": llb, "PE": {"B": TileUse(("b", k), 300, 5),
                                      "C": TileUse(("c", k), 300, 5)}}, 20) for k in range(8)]
    rep = run_memory(SMALL, steps, buffers=2)
    assert rep.levels["LLB"].loads == 2 and rep.levels["LLB"].reused == 14
    assert rep.levels["PE"].loads == 16
    # the LLB latency is paid once, up front: later PE loads overlap compute
    first = 200 + 2 * math.ceil(4000 / 68.256) + 1 + math.ceil(300 / 256)
    assert rep.total_cycles <= first + 8 * 20 + 8 * 2


def test_pipelined_requests_and_buffers() -> None:
    """Hand-computed timelines (sam.memory_model docstring): 3 LLB tiles of 682 bytes
    (latency 200, 10 transfer cycles each), 5 compute cycles per step."""
    steps = [Step({"LLB": {"B": TileUse(k, 682, 9)}}, 5) for k in range(3)]
    # filling the capacity: all requests in flight, latency hidden behind the first
    assert run_memory(SMALL, steps, buffers=None).total_cycles == 235
    # double buffering: the third load waits for the first step's compute (215)
    assert run_memory(SMALL, steps, buffers=2).total_cycles == 430
    # none: load (210), compute (5), three times
    assert run_memory(SMALL, steps, buffers=1).total_cycles == 3 * 215


@st.composite
def _steps(draw: st.DrawFn) -> list[Step]:
    n = draw(st.integers(1, 30))
    out = []
    for _ in range(n):
        lk = draw(st.integers(0, 2))
        pk = draw(st.integers(0, 3))
        tiles = {"LLB": {op: TileUse((op, lk, draw(st.integers(0, 1))),
                                     draw(st.integers(6, 50_000)), draw(st.integers(0, 3)))
                         for op in ("B", "C")},
                 "PE": {op: TileUse((op, lk, pk, draw(st.integers(0, 1))),
                                    draw(st.integers(6, 5000)), draw(st.integers(0, 3)))
                        for op in ("B", "C")}}
        ok = draw(st.integers(0, 2))
        out.append(Step(tiles, draw(st.integers(0, 300)),
                        {"LLB": TileUse(("x", ok // 2), 900, 2), "PE": TileUse(("x", ok), 90, 1)}))
    return out


@settings(max_examples=40, deadline=None)
@given(_steps(), st.booleans())
def test_timeline_compiled_and_python_agree_and_buffers_help(steps: list[Step], skip: bool
                                                             ) -> None:
    totals = {}
    for buffers in (1, 2, 3, None):
        py = run_memory(SMALL, steps, skip_empty=skip, buffers=buffers, fast=False)
        jit = run_memory(SMALL, steps, skip_empty=skip, buffers=buffers, fast=True)
        assert py.total_cycles == jit.total_cycles
        assert py.total_cycles >= py.compute_cycles
        for name, r in py.levels.items():
            assert py.total_cycles >= (r.bytes_loaded + r.bytes_written) / \
                SMALL.level(name).bandwidth
        totals[buffers] = py.total_cycles
    # more buffering never costs cycles (SMALL's capacity holds every tile group here)
    assert totals[None] <= totals[3] <= totals[2] <= totals[1]
