"""The memory hierarchy model (sam.memory_model) on tiled runs (custard.tiling)."""

from __future__ import annotations

import math

import pytest
import scipy.sparse as sp

from custard.tiling import memory_steps, run_tiled
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
                bound = sum((r.bytes_loaded + r.bytes_written) / SMALL.level(n).bandwidth
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
        assert two.total_cycles < one.total_cycles and two.overlap > 0 == one.overlap


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
    with pytest.raises(SimulationError, match="No such file"):
        load_hierarchy(tmp_path / "nope.yaml")
