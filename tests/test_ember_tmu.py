"""Ember DLC lowered to TMU graphs (dae mode, issues 14-15): the simulated queue traces equal
the DLC interpreter's, results equal numpy on both engines, and the optimizations cut cycles
(Ember paper Sec. 8.1)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custard.ember.ops import random_inputs, reference, scf_text
from custard.ember.pipeline import compile_module, run_module
from custard.ember.to_tmu import lower_to_tmu, simulate_tmu, tmu_trace

DATA = Path(__file__).resolve().parents[1] / "custard" / "ember" / "data"
FIG10 = {"arg0": np.array([0, 2, 3]), "arg1": np.array([0, 2, 5]),
         "arg4": np.arange(1, 25, dtype=float).reshape(6, 4)}
FIG10_OUT = [[10, 12, 14, 16], [21, 22, 23, 24]]
ENGINES = ("reference", "fast")


@functools.cache
def compiled(source: str, level: int, vlen: int):
    text = (DATA / f"{source}.mlir").read_text() if source.startswith("eb_") \
        else scf_text(source)
    return compile_module(text, level, vlen)


def same_trace(a: dict, b: dict) -> bool:
    return a["control"] == b["control"] and len(a["data"]) == len(b["data"]) and all(
        np.allclose(x, y) for x, y in zip(a["data"], b["data"], strict=True))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_figure_10_on_the_tmu_equals_the_dlc_interpreter(level, engine):
    dlc = compiled("eb_scf", level, 2).dlc
    out, trace = run_module(dlc, FIG10)
    low = lower_to_tmu(dlc, FIG10)
    assert same_trace(tmu_trace(low, engine), trace)
    result, res = simulate_tmu(low, engine)
    assert result.tolist() == FIG10_OUT
    tmu = res.blocks["0"].details
    assert tmu["queue.ctrl.entries"] == len(trace["control"])
    assert tmu["queue.data.entries"] == len(trace["data"])


def test_figure_10_o3_program_and_cycles_fall_with_each_level():
    low = lower_to_tmu(compiled("eb_scf", 3, 2).dlc, FIG10)
    assert low.program == ("2: var0 = 0 | ee: r1 = pop; out[var0, 0] += r1; r2 = pop; "
                           "out[var0, 2] += r2 | se: var0 = var0 + 1")
    cycles = [simulate_tmu(lower_to_tmu(compiled("eb_scf", lv, 2).dlc, FIG10),
                           "reference")[1].cycles for lv in range(4)]
    assert cycles[0] > cycles[1] > cycles[2] > cycles[3], cycles


def test_empty_segment_on_the_tmu():
    inputs = dict(FIG10, arg0=np.array([0, 2, 2, 3]))
    low = lower_to_tmu(compiled("eb_scf", 3, 2).dlc, inputs)
    assert tmu_trace(low)["control"] == ["ee", "ee", "se", "se", "ee", "se", "done"]
    out, _ = simulate_tmu(low, "reference")
    assert out.tolist() == [[10, 12, 14, 16], [0, 0, 0, 0], [21, 22, 23, 24]]


@settings(max_examples=25, deadline=None)
@given(op=st.sampled_from(["sls", "spmm", "spattn", "kg"]), segments=st.integers(0, 4),
       emb=st.integers(1, 7), lookups=st.integers(0, 4), level=st.sampled_from([0, 1, 2, 3]),
       vlen=st.sampled_from([1, 2, 3, 4]), seed=st.integers(0, 2**31))
def test_tmu_agrees_with_numpy_and_the_interpreter(op, segments, emb, lookups, level, vlen,
                                                   seed):
    if op in ("kg", "spattn") and segments == 0:
        segments = 1
    ins = random_inputs(op, np.random.default_rng(seed), segments=segments, emb=emb,
                        max_lookups=lookups)
    dlc = compiled(op, level, vlen).dlc
    _, trace = run_module(dlc, ins)
    low = lower_to_tmu(dlc, ins)
    assert same_trace(tmu_trace(low), trace)
    out, _ = simulate_tmu(low, "reference")
    np.testing.assert_allclose(out, reference(op, ins), atol=1e-9)


@pytest.mark.parametrize("op", ["sls", "spmm", "spattn", "kg"])
def test_fast_engine_agrees(op):
    ins = random_inputs(op, np.random.default_rng(7), segments=3, emb=5, max_lookups=3)
    for level in (0, 3):
        low = lower_to_tmu(compiled(op, level, 2).dlc, ins)
        fast, rf = simulate_tmu(low, "fast")
        ref, rr = simulate_tmu(low, "reference")
        np.testing.assert_allclose(fast, reference(op, ins), atol=1e-9)
        np.testing.assert_array_equal(fast, ref)
        assert rf.cycles == rr.cycles


def test_sls_on_a_shipped_matrix():
    from formats.io import load_tensor

    A = load_tensor("west0479", "ds").to_scipy().tocsr()
    rng = np.random.default_rng(0)
    ins = {"ptrs": A.indptr.astype(np.int64), "idxs": A.indices.astype(np.int64),
           "table": rng.uniform(-1, 1, (A.shape[1], 12))}
    want = np.stack([ins["table"][A.indices[A.indptr[i]:A.indptr[i + 1]]].sum(axis=0)
                     for i in range(A.shape[0])])
    for level in (0, 3):
        out, _ = simulate_tmu(lower_to_tmu(compiled("sls", level, 8).dlc, ins), "fast")
        np.testing.assert_allclose(out, want, atol=1e-9)
