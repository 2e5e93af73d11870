"""The shipped MLIR examples (custard/mlir/examples): each equals numpy fused and op by op, on
both engines, and through DOT text (the compiled graphs written, read back and run as a
program); fused and unfused results agree; the BigBird mask has its blocks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custard.dag.bind import input_infos
from custard.dag.labels import build_dag
from custard.dag.run import compile_dag, graphs_of
from custard.mlir.program import reference_inputs, run_lowered
from custard.mlir.workloads import WORKLOADS, BigBirdMask, measure
from sam.graph.dot import dumps, loads
from sam.program import Program

NAMES = list(WORKLOADS)
#: units (graphs run one after another) fused and op by op: what fusion joins in each example
UNITS = {"spmm": (1, 1), "sddmm_spmm": (1, 2), "gcn": (2, 3), "bigbird": (3, 5)}


def _through_dot(name: str, values: dict, *, fuse: bool, engine: str) -> np.ndarray:
    """The compiled program's graphs as DOT text, read back and run as one program."""
    low = WORKLOADS[name].lowered()
    tensors = low.bind(reference_inputs(low, values))
    prog = low.dag_program()
    units = compile_dag(build_dag(prog, input_infos(prog, tensors)), fuse=fuse)
    graphs = [loads(dumps(g), f"{name}-{k}.gv") for k, g in enumerate(graphs_of(units))]
    result = Program(graphs).run(tensors, engine=engine)
    assert not result.interrupted
    (out, _), = low.outputs
    return result.written[out].to_dense()


def _check(name: str, values: dict, engine: str) -> None:
    work = WORKLOADS[name]
    want = work.reference(**values)
    low = work.lowered()
    args = reference_inputs(low, values)
    fused = run_lowered(low, args, fuse=True, engine=engine)
    unfused = run_lowered(low, args, fuse=False, engine=engine)
    np.testing.assert_allclose(fused.outputs[0].to_dense(), want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(unfused.outputs[0].to_dense(), want, rtol=1e-9, atol=1e-12)
    for fuse in (True, False):
        np.testing.assert_allclose(_through_dot(name, values, fuse=fuse, engine=engine), want,
                                   rtol=1e-9, atol=1e-12)
    assert fused.cycles <= unfused.cycles
    assert (len(fused.units), len(unfused.units)) == UNITS[name]


def test_sddmm_spmm_small_fused_equals_numpy_and_unfused() -> None:
    """The fast tier's case: a 6 x 6 mask, fused into one graph, on the fast engine."""
    work = WORKLOADS["sddmm_spmm"]
    values = work.inputs(1, n=6, d=2, e=2, density=0.4)
    low = work.lowered()
    fused = run_lowered(low, reference_inputs(low, values), fuse=True)
    assert fused.fused == 1 and len(fused.units) == 1
    np.testing.assert_allclose(fused.outputs[0].to_dense(), work.reference(**values),
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("engine", ["fast", "reference"])
@pytest.mark.parametrize("name", NAMES)
def test_example_equals_numpy_fused_unfused_and_through_dot(name: str, engine: str) -> None:
    work = WORKLOADS[name]
    _check(name, work.inputs(0, **work.small), engine)


@settings(max_examples=10, deadline=None, database=None)
@given(name=st.sampled_from(NAMES), seed=st.integers(0, 2**16), n=st.integers(4, 10),
       density=st.sampled_from([0.1, 0.3, 0.6]))
def test_examples_on_random_shapes_and_densities(name: str, seed: int, n: int,
                                                 density: float) -> None:
    work = WORKLOADS[name]
    if name == "spmm":
        values = work.inputs(seed, m=n, k=n + 2, n=3, density=density)
    elif name == "sddmm_spmm":
        values = work.inputs(seed, n=n, d=3, e=2, density=density)
    elif name == "gcn":
        values = work.inputs(seed, n=n, f=3, h=2, density=density)
    else:
        values = work.inputs(seed, n=4 * (n // 2), block=2, d=2, e=2, random=1)
    _check(name, values, "fast")


def test_measured_traffic_fused_is_at_most_unfused() -> None:
    work = WORKLOADS["sddmm_spmm"]
    values = work.inputs(3, n=8, d=2, e=2, density=0.3)
    fused, unfused = (measure(work, values, fuse=f) for f in (True, False))
    np.testing.assert_allclose(fused.outputs[0], unfused.outputs[0], rtol=1e-12)
    assert fused.fused == 1 and unfused.fused == 0
    assert fused.words_written < unfused.words_written  # S is never written when fused
    assert fused.words < unfused.words and fused.cycles < unfused.cycles


def test_bigbird_mask_has_window_global_and_random_blocks() -> None:
    mask = BigBirdMask(64, 8, random=2, window=3, global_blocks=1, seed=5)
    blocks = mask.pattern()
    nb = 8
    assert blocks[0].all() and blocks[:, 0].all()  # global row and column
    for r in range(nb):
        assert blocks[r, max(0, r - 1):r + 2].all()  # window of 3
    # every block row outside the global one has its 2 random blocks beyond window and global
    base = np.zeros_like(blocks)
    for r in range(nb):
        base[r, max(0, r - 1):r + 2] = True
    base[0, :] = base[:, 0] = True
    extra = (blocks & ~base).sum(axis=1)
    assert (extra[1:] == 2).all()
    dense = mask.dense()
    assert dense.shape == (64, 64) and set(np.unique(dense)) == {0.0, 1.0}
    assert np.array_equal(dense[::8, ::8] != 0, blocks)
    assert np.array_equal(BigBirdMask(64, 8, seed=5).pattern(), blocks)  # seeded


def test_reproduce_mlir_fusion_quick(tmp_path) -> None:
    from custard.reproduce import reproduce

    done = reproduce("mlir-fusion", tmp_path, quick=True, scheduler="sync", progress=False,
                     log=False, use_cache=False)
    claims = (tmp_path / "mlir-fusion-claims.md").read_text()
    assert (tmp_path / "mlir-fusion.png").read_bytes()[:4] == b"\x89PNG"
    rows = (tmp_path / "mlir-fusion.csv").read_text().splitlines()
    assert rows[0].startswith("series,x,cycles,words_read,words_written,words")
    assert len(rows) == 1 + 2 * len(WORKLOADS)
    # results equal, fused cycles and traffic <= unfused; FuseFlow's 2.7x is reported as is
    assert done[0].passed >= 3 and "FuseFlow" in claims and "unfused/fused =" in claims
