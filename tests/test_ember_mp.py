"""Message passing (Ember paper Table 1, Sec. 6.2) end to end on the TMU simulation: its workspace
loop runs on the core (execute-program workspace ``array tmp[N]`` and core reads ``input table``),
the result equals numpy on both engines at -O0..-O3, on random inputs and on a shipped graph, and
the sam-side TMU graph (``sam.tmu_ops.build_op("mp")``) gives the same numbers."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from custard.ember.errors import EmberError
from custard.ember.ops import random_inputs, reference, scf_text
from custard.ember.pipeline import compile_module, run_module
from custard.ember.to_tmu import lower_to_tmu, simulate_tmu, tmu_trace
from formats.tensor import Tensor
from sam.tmu_ops import build_op
from sam.tmu_ops import reference as sam_reference

ENGINES = ("reference", "fast")


@functools.cache
def compiled(level: int, vlen: int):
    return compile_module(scf_text("mp"), level, vlen)


def same_trace(a: dict, b: dict) -> bool:
    return a["control"] == b["control"] and len(a["data"]) == len(b["data"]) and all(
        np.allclose(x, y) for x, y in zip(a["data"], b["data"], strict=True))


def test_mp_program_declares_its_workspace_and_reads_the_vertex_vector_on_the_core():
    ins = random_inputs("mp", np.random.default_rng(1), segments=2, emb=3)
    low = lower_to_tmu(compiled(3, 2).dlc, ins)
    assert low.program.startswith("array tmp[3] | input table | 2: var0 = 0 | ee: r1 = pop; ")
    assert "r16 = tmp[2]; r17 = table[var0, 2]; r18 = r16 * r17; out[var0, 2] += r18; " \
           "tmp[2] = 0.0; var0 = var0 + 1" in low.program
    assert "table" in low.tensors


@settings(max_examples=20, deadline=None)
@given(segments=st.integers(1, 4), emb=st.integers(1, 6), lookups=st.integers(0, 4),
       level=st.sampled_from([0, 1, 2, 3]), vlen=st.sampled_from([1, 2, 3, 4]),
       seed=st.integers(0, 2**31))
def test_mp_on_the_tmu_equals_numpy_and_the_dlc_interpreter(segments, emb, lookups, level,
                                                            vlen, seed):
    ins = random_inputs("mp", np.random.default_rng(seed), segments=segments, emb=emb,
                        max_lookups=lookups)
    dlc = compiled(level, vlen).dlc
    _, trace = run_module(dlc, ins)
    low = lower_to_tmu(dlc, ins)
    assert same_trace(tmu_trace(low), trace)
    out, _ = simulate_tmu(low, "reference")
    np.testing.assert_allclose(out, reference("mp", ins), atol=1e-9)


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_mp_on_karate_equals_numpy_on_both_engines(level):
    """The shipped graph of ``reproduce ember-opt``'s MP (karate, 34 vertices, 156 edges)."""
    from formats.io import load_tensor

    a = load_tensor("karate", "ds").to_scipy().tocsr()
    rng = np.random.default_rng(7)
    emb = 16
    ins = {"ptrs": a.indptr.astype(np.int64), "idxs": a.indices.astype(np.int64),
           "vals": rng.uniform(-1, 1, a.nnz), "table": rng.uniform(-1, 1, (a.shape[0], emb)),
           "tmp": np.zeros(emb)}
    low = lower_to_tmu(compiled(level, 8).dlc, ins)
    fast, rf = simulate_tmu(low, "fast")
    ref, rr = simulate_tmu(low, "reference")
    np.testing.assert_allclose(fast, reference("mp", ins), atol=1e-9)
    np.testing.assert_array_equal(fast, ref)
    assert rf.cycles == rr.cycles


@pytest.mark.parametrize("engine", ENGINES)
def test_sam_graph_and_ember_lowering_agree_on_the_same_inputs(engine):
    """``build_op("mp")`` (X = B = the table) and Ember's -O0 and -O3 lowerings: same numbers,
    both equal to the one numpy definition (``sam.tmu_ops.message_passing``)."""
    rng = np.random.default_rng(3)
    ins = random_inputs("mp", rng, segments=5, emb=4, max_lookups=3)
    a = sp.csr_matrix((ins["vals"], ins["idxs"], ins["ptrs"]), shape=(5, 5))
    table = Tensor.from_dense(ins["table"], "dd")
    graph, tensors = build_op("mp", Tensor.from_scipy(a, "ds"), table, table)
    from sam.program import Program

    sam_out = Program.of(graph).run(tensors, engine=engine).phases[0].outputs["Z"].to_dense()
    want = reference("mp", ins)
    np.testing.assert_allclose(sam_reference("mp", a, ins["table"], ins["table"]), want)
    np.testing.assert_allclose(sam_out, want, atol=1e-9)
    for level in (0, 3):
        out, _ = simulate_tmu(lower_to_tmu(compiled(level, 2).dlc, ins), engine)
        np.testing.assert_allclose(out, sam_out, atol=1e-9)


def test_a_workspace_that_does_not_start_at_zero_is_a_one_line_refusal():
    ins = random_inputs("mp", np.random.default_rng(1))
    ins["tmp"] = np.ones_like(ins["tmp"])
    with pytest.raises(EmberError, match="workspace tmp must be a 1-d or 2-d memref starting as "
                                         "zeros"):
        lower_to_tmu(compiled(0, 2).dlc, ins)
