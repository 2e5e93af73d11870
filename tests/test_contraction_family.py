"""Issue 13: ``X(i,l)=B(i,j,k)*C(j,k,l) -f=X:ss -f=B:sss -f=C:sss`` deadlocked, and its family:
products of two operands of order 2-3 contracting one or two indices (sparse accumulators of
order 1-2 after nested reductions), random level formats and loop orders, compiled, written
as DOT text and read back, simulated on both engines against numpy.einsum."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import custard
from formats.tensor import Tensor
from sam.errors import CompileError
from sam.graph import dot
from sam.sim.engine import simulate


def _run(expr: str, formats: dict[str, str], order, arrays: dict[str, np.ndarray], spec: str):
    graph = dot.loads(dot.dumps(custard.compile(expr, formats, order)))
    bound = {k: Tensor.from_dense(v, graph.formats.get(k)) for k, v in arrays.items()}
    gold = np.einsum(spec, *arrays.values())
    ref = simulate(graph, bound, engine="reference")
    fast = simulate(graph, bound, engine="fast")
    for result in (ref, fast):
        np.testing.assert_array_equal(result.outputs["X"].to_dense(), gold, err_msg=expr)
    assert ref.cycles == fast.cycles


@pytest.mark.parametrize("seed", range(4))
def test_issue13_deadlock(seed):
    rng = np.random.default_rng(seed)
    b = rng.integers(1, 9, (4, 3, 5)) * (rng.random((4, 3, 5)) < 0.4)
    c = rng.integers(1, 9, (3, 5, 2)) * (rng.random((3, 5, 2)) < 0.4)
    _run("X(i,l)=B(i,j,k)*C(j,k,l)", {"X": "ss", "B": "sss", "C": "sss"}, None,
         {"B": b, "C": c}, "ijk,jkl->il")


FAMILY = [  # (expression, einsum)
    ("X(i,l)=B(i,j,k)*C(j,k,l)", "ijk,jkl->il"),
    ("X(i,l)=B(i,j,k)*C(k,j,l)", "ijk,kjl->il"),
    ("X(i,l)=B(j,i,k)*C(j,k,l)", "jik,jkl->il"),
    ("X(i,k)=B(i,j)*C(j,k)", "ij,jk->ik"),
    ("X(i,k)=B(i,j,l)*C(j,l,k)", "ijl,jlk->ik"),
    ("X(i,j,l)=B(i,j,k)*C(k,l)", "ijk,kl->ijl"),
    ("X(i,l)=B(i,j,k)*C(j,l)", "ijk,jl->il"),
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_contraction_family(data):
    expr, spec = data.draw(st.sampled_from(FAMILY))
    ins, out = spec.split("->")
    ops = ins.split(",")
    names = ["B", "C"]
    variables = sorted(set(ins) - {','})
    sizes = {v: data.draw(st.integers(1, 4), label=f"size {v}") for v in variables}
    formats = {"X": "".join(data.draw(st.sampled_from("sd")) for _ in out)}
    for name, idx in zip(names, ops, strict=True):
        levels = "".join(data.draw(st.sampled_from("sd")) for _ in idx)
        perm = data.draw(st.permutations(range(len(idx))))
        formats[name] = f"{levels}:{','.join(map(str, perm))}"
    order = data.draw(st.none() | st.permutations(variables).map(list))
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    density = data.draw(st.sampled_from([0.2, 0.5, 1.0]))
    arrays = {}
    for name, idx in zip(names, ops, strict=True):
        shape = tuple(sizes[v] for v in idx)
        arrays[name] = rng.integers(1, 9, shape) * (rng.random(shape) < density)
    try:
        custard.compile(expr, formats, order)
    except CompileError:
        return  # a documented refusal (discordant formats, loop order)
    _run(expr, formats, order, arrays, spec)


def test_crddrop_outer_edge_is_not_a_held_stream():
    """Found by the family test: a coordinate dropper's ``outer-i`` output into an order-2
    accumulator was taken for the original's held point stream (only a crdhold's is)."""
    b = np.array([[[7, 6]]])
    c = np.array([[[0, 1, 0, 0]], [[6, 0, 5, 0]]])
    _run("X(i,l)=B(i,j,k)*C(k,j,l)", {"X": "ss", "B": "sss:1,0,2", "C": "sss:1,0,2"}, None,
         {"B": b, "C": c}, "ijk,kjl->il")
