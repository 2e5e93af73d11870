"""Knowledge-graph scoring with the paper's full norm (Ember paper Table 1, "compute
head-rel-tail norm"; the L1 norm of OGB's TransE): O1 vectorizes the norm's sum over the vector
into a horizontal add (``vector.reduction <add>``, the execute statement ``x = sum(v)``), every
level equals numpy on the TMU on both engines, and the sam-side TMU graph
(``sam.tmu_ops.build_op("kg")``) gives the same numbers."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from custard.ember.context import print_module
from custard.ember.ops import random_inputs, reference, scf_text
from custard.ember.pipeline import compile_module, run_module
from custard.ember.to_tmu import lower_to_tmu, simulate_tmu, tmu_trace
from formats.tensor import Tensor
from sam.program import Program
from sam.tmu_ops import build_op, transe_l1

ENGINES = ("reference", "fast")


@functools.cache
def compiled(level: int, vlen: int, text: str | None = None):
    return compile_module(text or scf_text("kg"), level, vlen)


def same_trace(a: dict, b: dict) -> bool:
    return a["control"] == b["control"] and len(a["data"]) == len(b["data"]) and all(
        np.allclose(x, y) for x, y in zip(a["data"], b["data"], strict=True))


def test_kg_reference_is_the_l1_norm_per_sample():
    ins = {"heads": np.array([0, 1]), "rels": np.array([1, 0]), "tails": np.array([1, 1]),
           "table": np.array([[1.0, -2.0], [0.5, 0.5]]),
           "relations": np.array([[0.0, 1.0], [3.0, -1.0]])}
    # |[1,-2]+[3,-1]-[.5,.5]|_1 = 3.5 + 3.5; |[.5,.5]+[0,1]-[.5,.5]|_1 = 0 + 1
    assert reference("kg", ins).tolist() == [[7.0], [1.0]]


def test_o1_vectorizes_the_norm_into_a_horizontal_add():
    text = print_module(compiled(1, 4).slc)
    assert "slcvec.for<4>" in text and "vector.reduction <add>" in text
    ins = random_inputs("kg", np.random.default_rng(2), segments=2, emb=6)
    low = lower_to_tmu(compiled(3, 4).dlc, ins)
    # one section per sample (O2's buffer loop unrolled: 2 vectors of 4 lanes, the second half
    # masked), the norm accumulated by sums of the lanes
    assert low.program.count("sum(") == 2 and "out[var0, 0] += " in low.program


def test_a_reduction_that_does_not_keep_masked_lanes_zero_stays_scalar():
    """``|d| + 1`` is 1 on masked lanes: summing them would add the padding; O1 leaves it."""
    text = scf_text("kg").replace(
        "%acc = memref.load", "%one = arith.constant 1.0 : f64\n"
        "        %ad1 = arith.addf %ad, %one : f64\n        %acc = memref.load").replace(
        "%sum = arith.addf %acc, %ad : f64", "%sum = arith.addf %acc, %ad1 : f64")
    c = compiled(1, 4, text)
    assert "slcvec.for" not in print_module(c.slc)
    ins = random_inputs("kg", np.random.default_rng(3), segments=3, emb=5)
    out, _ = simulate_tmu(lower_to_tmu(c.dlc, ins), "reference")
    np.testing.assert_allclose(out, reference("kg", ins) + 5, atol=1e-9)


@settings(max_examples=25, deadline=None)
@given(segments=st.integers(1, 4), emb=st.integers(1, 7), level=st.sampled_from([0, 1, 2, 3]),
       vlen=st.sampled_from([1, 2, 3, 4, 8]), seed=st.integers(0, 2**31))
def test_kg_on_the_tmu_equals_numpy_and_the_dlc_interpreter(segments, emb, level, vlen, seed):
    ins = random_inputs("kg", np.random.default_rng(seed), segments=segments, emb=emb)
    dlc = compiled(level, vlen).dlc
    out_dlc, trace = run_module(dlc, ins)
    low = lower_to_tmu(dlc, ins)
    assert same_trace(tmu_trace(low), trace)
    out, _ = simulate_tmu(low, "reference")
    np.testing.assert_allclose(out, reference("kg", ins), atol=1e-9)
    np.testing.assert_allclose(out_dlc, reference("kg", ins), atol=1e-9)


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_kg_both_engines_equal_numpy(level):
    ins = random_inputs("kg", np.random.default_rng(11), segments=40, rows=30, emb=20)
    low = lower_to_tmu(compiled(level, 8).dlc, ins)
    fast, rf = simulate_tmu(low, "fast")
    ref, rr = simulate_tmu(low, "reference")
    np.testing.assert_allclose(fast, reference("kg", ins), atol=1e-9)
    np.testing.assert_array_equal(fast, ref)
    assert rf.cycles == rr.cycles


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("lanes", [1, 3])
def test_sam_graph_and_ember_lowering_agree_on_the_same_triples(engine, lanes):
    """The triples as A's stored entries (head = row, tail = column, relation = value, in CSR
    order) for ``build_op("kg")``, and as the arrays of Ember's code: the same norms, equal to
    the one numpy definition (``sam.tmu_ops.transe_l1``)."""
    rng = np.random.default_rng(5)
    n_ent, n_rel, emb = 6, 3, 5
    pairs = sorted({(int(h), int(t)) for h, t in rng.integers(0, n_ent, (12, 2))})
    heads, tails = (np.array(x) for x in zip(*pairs, strict=True))
    rels = rng.integers(0, n_rel, heads.size)
    ent = rng.uniform(-1, 1, (n_ent, emb)).round(3)
    rel = rng.uniform(-1, 1, (n_rel, emb)).round(3)
    a = sp.csr_matrix((rels.astype(float), (heads, tails)), shape=(n_ent, n_ent))
    a.data = rels.astype(float)  # keep relation 0 entries (explicit zeros) in order
    graph, tensors = build_op("kg", Tensor.from_scipy(a, "ds"), Tensor.from_dense(ent, "dd"),
                              Tensor.from_dense(rel, "dd"), lanes=lanes)
    sam_out = Program.of(graph).run(tensors, engine=engine).phases[0].outputs["Z"].to_dense()
    want = transe_l1(heads, rels, tails, ent, rel)
    np.testing.assert_allclose(sam_out, want, atol=1e-9)
    ins = {"heads": heads, "rels": rels, "tails": tails, "table": ent, "relations": rel,
           "out": np.zeros((heads.size, 1))}
    for level in (0, 3):
        out, _ = simulate_tmu(lower_to_tmu(compiled(level, 2).dlc, ins), engine)
        np.testing.assert_allclose(out, sam_out, atol=1e-9)
