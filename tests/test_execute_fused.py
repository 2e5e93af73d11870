"""The execute block's fused sections (``sam.blocks.execute.fused_section``): a callback of one
to three pops and one output update of the popped registers (or constants) runs a token at a
time in the scalar loop. With it and the statement-by-statement paths (``FastPaths(
execute_fast=False)``), on both engines, the tokens, cycles, statistics, results and errors are
the same, for every update, operand order, constant operand and token/pop cost.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import sam.graph.registry  # noqa: F401
from formats import Tensor
from sam.blocks.execute import fused_section
from sam.sim.engine import FastPaths, simulate
from sam.tmu_ops import sls_config, tmu_graph

#: Fused callbacks (after ``b = pop; e = pop; v = pop``) and what they do to ``Z`` per element
#: (row ``b``, column ``e``, value ``v``).
FUSED = {
    "out[b, e] += v": lambda z, b, e, v: z.__setitem__((b, e), z[b, e] + v),
    "out[b, e] = v": lambda z, b, e, v: z.__setitem__((b, e), v),
    "out[b, e] max= v": lambda z, b, e, v: z.__setitem__((b, e), max(z[b, e], v)),
    "out[b, e] min= v": lambda z, b, e, v: z.__setitem__((b, e), min(z[b, e], v)),
    "out[e, b] += v": lambda z, b, e, v: z.__setitem__((e, b), z[e, b] + v),
    "out[b, 1] += v": lambda z, b, e, v: z.__setitem__((b, 1), z[b, 1] + v),
    "out[b, e] += 2.5": lambda z, b, e, v: z.__setitem__((b, e), z[b, e] + 2.5),
    "out[v, e] += b": None,  # a value as a row index: out of the shape (an error) or not
}


def assert_same(a, b) -> None:
    assert (a.tokens, a.cycles) == (b.tokens, b.cycles)
    assert a.blocks == b.blocks
    np.testing.assert_array_equal(a.outputs["Z"].to_dense(), b.outputs["Z"].to_dense())


def run(graph, tensors, engine, fused):
    try:
        return simulate(graph, tensors, engine=engine, paths=FastPaths(execute_fast=fused))
    except Exception as exc:  # noqa: BLE001  (the error must be the same on every path)
        return f"{type(exc).__name__}: {exc}"


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), rows=st.integers(1, 6), cols=st.integers(1, 6),
       dim=st.integers(1, 5), density=st.floats(0.1, 0.9), upd=st.sampled_from(sorted(FUSED)),
       token_cost=st.integers(1, 3), pop_cost=st.integers(1, 3), size=st.integers(0, 6))
def test_fused_sections_same_on_every_path(seed, rows, cols, dim, density, upd, token_cost,
                                           pop_cost, size):
    rng = np.random.default_rng(seed)
    A = sp.random(rows, cols, density=density, format="csr", random_state=rng)
    B = rng.integers(0, 4, (cols, dim)).astype(float)
    side = max(rows, dim, 2) if size == 0 else size  # size > 0: maybe too small (an error)
    graph = tmu_graph(sls_config("dae"), out="Z", shape=(side, side),
                      program=f"ite: b = pop; e = pop; v = pop; {upd}",
                      token_cost=token_cost, pop_cost=pop_cost)
    tensors = {"A": Tensor.from_scipy(A, "ds"), "B": Tensor.from_dense(B, "dd")}
    off = run(graph, tensors, "reference", False)
    for engine in ("reference", "fast"):
        on = run(graph, tensors, engine, True)
        if isinstance(off, str):
            assert on == off
        else:
            assert not isinstance(on, str), on
            assert_same(on, off)
    if isinstance(off, str) or FUSED[upd] is None:
        return
    want = np.zeros((side, side))
    for i in range(rows):
        for j in A.indices[A.indptr[i]:A.indptr[i + 1]]:
            for e in range(dim):
                FUSED[upd](want, i, e, B[j, e])
    np.testing.assert_array_equal(off.outputs["Z"].to_dense(), want)


@pytest.mark.parametrize(("program", "want"), [
    ("ite: b = pop; e = pop; v = pop; out[b, e] += v", (0, 3)),
    ("ite: b = pop; v = pop; out[b, 0] += v", (0, 2)),
    ("ite: v = pop; out[0, 0] += v", (0, 1)),
    ("ite: b = pop; e = pop; v = pop; x = v * 2; out[b, e] += x", (-1, 0)),
    ("ite: b = pop; e = pop; b = pop; out[b, e] += e", (-1, 0)),  # a register popped twice
    ("ite: b = pop; e = pop; v = pop; w = pop; out[b, e] += v", (-1, 0)),  # four pops
])
def test_which_sections_fuse(program, want):
    from sam.blocks.execute import Program

    ids = {"ite": 0}
    prog = Program(program, ids).encode()
    got = fused_section(prog, prog[0])
    assert (int(got[0]), int(got[1])) == want
