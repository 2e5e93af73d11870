"""The execute block's scalar loop (``sam.blocks.execute.scalar_run``): control tokens and the
scalar statements of callbacks run with the clock in local variables. With it on and off
(``FastPaths(execute_fast=...)``, a simulation option) the tokens, cycles, statistics and
results are the same on both engines, and equal numpy's.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import sam.graph.registry  # noqa: F401
from formats import Tensor
from formats.io import load_tensor
from sam.sim.engine import FastPaths, simulate
from sam.tmu_ops import OPS, build_op, reference, sls_config, tmu_graph


def assert_same(a, b) -> None:
    assert (a.tokens, a.cycles) == (b.tokens, b.cycles)
    assert a.blocks == b.blocks
    np.testing.assert_array_equal(a.outputs["Z"].to_dense(), b.outputs["Z"].to_dense())


def three_ways(graph, tensors, fifo):
    """Reference engine with the scalar loop off and on, and the fast engine (on)."""
    off = simulate(graph, tensors, engine="reference", fifo_depth=fifo,
                   paths=FastPaths(execute_fast=False))
    on = simulate(graph, tensors, engine="reference", fifo_depth=fifo)
    fast = simulate(graph, tensors, engine="fast", fifo_depth=fifo)
    assert_same(on, off)
    assert_same(fast, off)
    return off


def matrices(seed: int, rows: int, cols: int, dim: int, density: float, blk: int = 1,
             op: str = "spmm"):
    rng = np.random.default_rng(seed)
    A = sp.random(rows, cols, density=density, format="csr", random_state=rng)
    A.data = np.round(rng.uniform(-2, 2, A.nnz), 3)
    B = np.round(rng.uniform(-3, 3, (cols * blk, dim)), 3)
    X = np.round(rng.uniform(-3, 3, (rows, dim)), 3)
    if op == "kg":  # triples: head = row, tail = column, relation = value (a row of X)
        A.data = rng.integers(0, rows, A.nnz).astype(float)
        B = np.round(rng.uniform(-3, 3, (max(rows, cols), dim)), 3)
    return A, B, X


@settings(max_examples=25, deadline=None)
@given(op=st.sampled_from(OPS), seed=st.integers(0, 2**31), rows=st.integers(1, 7),
       cols=st.integers(1, 7), dim=st.integers(1, 5), density=st.floats(0.0, 0.9),
       lanes=st.integers(1, 3), fifo=st.sampled_from([None, None, 8]))
def test_table1_operations_same_with_and_without_the_scalar_loop(op, seed, rows, cols, dim,
                                                                  density, lanes, fifo):
    lanes = 1 if op == "mp" else lanes
    A, B, X = matrices(seed, rows, cols, dim, density, 2 if op == "gather" else 1, op)
    graph, tensors = build_op(op, Tensor.from_scipy(A, "ds"), Tensor.from_dense(B, "dd"),
                              Tensor.from_dense(X, "dd") if op in ("mp", "kg") else None,
                              lanes=lanes, blk=2)
    off = three_ways(graph, tensors, fifo)
    np.testing.assert_allclose(off.outputs["Z"].to_dense(), reference(op, A, B, X, blk=2),
                               rtol=1e-12, atol=1e-12)


#: Callback statements after ``b = pop; e = pop; v = pop`` and what they compute per element
#: (numpy), with the output update (``out[b, e] OP= x``) and its numpy reduction.
STATEMENTS = {
    "x = v * 2.5": lambda v: v * 2.5,
    "x = v - 1": lambda v: v - 1,
    "x = v / 4": lambda v: v / 4,
    "x = max(v, 0.5)": lambda v: np.maximum(v, 0.5),
    "x = min(v, -0.5)": lambda v: np.minimum(v, -0.5),
    "x = v": lambda v: v,
    "x = sum(v)": lambda v: v,
    "y = v + v; x = y * v": lambda v: (v + v) * v,
}
UPDATES = {"+=": np.add, "max=": np.maximum, "min=": np.minimum}


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), rows=st.integers(1, 6), cols=st.integers(1, 6),
       dim=st.integers(1, 4), density=st.floats(0.1, 0.9),
       stmt=st.sampled_from(sorted(STATEMENTS)), upd=st.sampled_from(sorted(UPDATES)))
def test_callback_statements_same_and_equal_numpy(seed, rows, cols, dim, density, stmt, upd):
    A, B, _ = matrices(seed, rows, cols, dim, density)
    program = f"ite: b = pop; e = pop; v = pop; {stmt}; out[b, e] {upd} x"
    init = {"+=": 0.0, "max=": -np.inf, "min=": np.inf}[upd]
    graph = tmu_graph(sls_config("dae"), out="Z", shape=(rows, dim), program=program, init=init)
    tensors = {"A": Tensor.from_scipy(A, "ds"), "B": Tensor.from_dense(B, "dd")}
    off = three_ways(graph, tensors, None)
    want = np.full((rows, dim), init)
    f = STATEMENTS[stmt]
    for i in range(rows):
        for j in A.indices[A.indptr[i]:A.indptr[i + 1]]:
            want[i] = UPDATES[upd](want[i], f(B[j]))
    got = off.outputs["Z"].to_dense()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_west0479_sls_same_and_equal_scipy():
    A = load_tensor("west0479", "ds").to_scipy().tocsr()  # (without its explicit zeros)
    tab = np.round(np.random.default_rng(3).uniform(-1, 1, (479, 8)), 6)
    graph, tensors = build_op("sls", Tensor.from_scipy(A, "ds"), Tensor.from_dense(tab, "dd"))
    off = three_ways(graph, tensors, None)
    want = reference("sls", A, tab)
    np.testing.assert_allclose(off.outputs["Z"].to_dense(), want, rtol=1e-12, atol=1e-12)
    assert np.abs(want).sum() > 0
