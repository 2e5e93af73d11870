"""Ember's TMU graphs through DOT text and back (what ``custard ember --emit dot -o G.gv`` then
``sam-sim run G.gv`` does): the graphs with core memory (MP's workspace, ``input X``) and KG's
vector ``sum`` read back to the same graph and simulate to numpy's result on both engines."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from custard.ember.ops import random_inputs, reference, scf_text
from custard.ember.pipeline import compile_module
from custard.ember.to_tmu import lower_to_tmu
from formats.tensor import Tensor
from sam.graph.dot import dumps, loads
from sam.sim.engine import simulate
from sam.tmu_ops import build_op
from sam.tmu_ops import reference as sam_reference


def dense_result(graph, tensors, out, engine):
    res = simulate(graph, tensors, engine=engine)
    return res.outputs[out].to_dense(), res.cycles


@pytest.mark.parametrize("engine", ["fast", "reference"])
@pytest.mark.parametrize("op", ["mp", "kg"])
@pytest.mark.parametrize("level", [0, 3])
def test_ember_lowering_survives_dot_text(op, level, engine):
    ins = random_inputs(op, np.random.default_rng(5), segments=4, emb=6)
    low = lower_to_tmu(compile_module(scf_text(op), level, 4).dlc, ins)
    text = dumps(low.graph)
    back = loads(text)
    assert dumps(back) == text
    got, cycles = dense_result(back, low.tensors, low.out, engine)
    want, want_cycles = dense_result(low.graph, low.tensors, low.out, engine)
    assert cycles == want_cycles
    np.testing.assert_allclose(got, want, atol=1e-12)
    np.testing.assert_allclose(got, reference(op, ins), atol=1e-9)


@pytest.mark.parametrize("op", ["mp", "kg"])
def test_sam_side_graphs_survive_dot_text(op):
    rng = np.random.default_rng(8)
    A = sp.random(5, 6, density=0.5, format="csr", random_state=rng)
    A.data = (rng.integers(0, 5, A.nnz) if op == "kg" else rng.uniform(-1, 1, A.nnz)).astype(
        float)
    B = rng.uniform(-1, 1, (6, 4))
    X = rng.uniform(-1, 1, (5, 4))
    graph, tensors = build_op(op, Tensor.from_scipy(A, "ds"), Tensor.from_dense(B, "dd"),
                              Tensor.from_dense(X, "dd"), lanes=4 if op == "kg" else 1)
    back = loads(dumps(graph))
    got, cycles = dense_result(back, tensors, "Z", "fast")
    assert cycles == dense_result(graph, tensors, "Z", "fast")[1]
    np.testing.assert_allclose(got, sam_reference(op, A, B, X), atol=1e-12)
