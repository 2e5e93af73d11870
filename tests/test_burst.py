"""Burst paths (:mod:`sam.runtime.burst`) change nothing: the Python kernels with bursts on and off
give the same tokens (kind, payload, arrival cycle, per channel), the same state after every
kernel call (but for its fast-path slots: ``tests/test_paths.py``), cycles, statistics and
outputs. The differential tests (tests/test_engines_agree.py) check that the compiled kernels
equal the Python ones.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import custard
from formats.io import load_tensor
from formats.synthetic import random_tensor
from sam.runtime import burst
from sam.runtime.paths import FastPaths

from helpers.engine_trace import (
    SUITE_CASES,
    Outcome,
    assert_same,
    check_trace_complete,
    run_engine,
    suite_inputs,
)
from helpers.engine_trace import random_case as _random_case
from helpers.kernel_suite import graph_file
from helpers.paths import path_free


def _path_free(o: Outcome) -> Outcome:
    """``o`` with the fast-path slots of its recorded block states cleared."""
    if o.trace is None:
        return o
    calls = [(b, rc, path_free(np.frombuffer(st, np.int64)).tobytes(), fst)
             for b, rc, st, fst in o.trace.calls]
    return dataclasses.replace(o, trace=dataclasses.replace(o.trace, calls=calls))


def _both(graph, tensors, what: str, **kw):
    """Reference engine with bursts, then without; assert identical; the burst outcome."""
    on = run_engine(graph, tensors, "reference", **kw)
    off = run_engine(graph, tensors, "reference", paths=FastPaths(burst=False), **kw)
    assert_same(_path_free(on), _path_free(off), what)
    return on


#: one input per suite graph (the first the differential tests use)
FIRST_CASES = sorted({name: (name, data) for name, data in reversed(SUITE_CASES)}.values())


@pytest.mark.parametrize("name, data", FIRST_CASES)
def test_suite_graph_bursts_change_nothing(name: str, data: str) -> None:
    on = _both(graph_file(name), suite_inputs(name, data), f"{name} on {data}")
    if on.error is None:
        check_trace_complete(on)


@pytest.mark.parametrize("capacity", [16, 64])
def test_small_rings_cut_bursts_short(capacity: int) -> None:
    """Rings that fill up in the middle of a fiber: bursts stop at the room left."""
    B = load_tensor("bcsstm02", "ds")
    graph = custard.compile("X(i,j)=B(i,k)*C(k,j)", None, "ikj")
    on = _both(graph, {"B": B, "C": B}, f"capacity {capacity}", capacity=capacity)
    want = (B.to_scipy() @ B.to_scipy()).toarray()
    got = on.result.outputs["X"].to_dense()
    assert np.allclose(got, want)


def test_feedback_and_bounded_fifos() -> None:
    """Skip streams (scanners on a cycle take the general path) and bounded FIFOs (no burst
    at all) next to bursting blocks."""
    B = random_tensor((12, 12, 200), 0.004, 4)
    c = random_tensor((200,), 0.3, 5)
    graph = custard.compile("X(i,j)=B(i,j,k)*c(k)", schedule="skip()")
    _both(graph, {"B": B, "c": c}, "ttv --skip")
    _both(graph, {"B": B, "c": c}, "ttv --skip, depth 2", fifo_depth=2)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_random_expressions(data) -> None:
    graph, tensors, case = _random_case(data)
    assume(graph is not None)
    _both(graph, tensors, str(case))


def test_bursts_carry_most_firings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: in SpM*SpM most firings of scanners, repeaters and array loads are made by
    bursts (counted through the Python kernels' ``account`` calls)."""
    from sam.blocks import alus, arrays, merges, reducers, repeaters, scanners

    counted = {"n": 0}
    original = burst.account

    def counting(st, t_first, t_last, idle, m):
        counted["n"] += m
        return original(st, t_first, t_last, idle, m)

    # kernels call it directly or through burst.close_run
    for mod in (burst, alus, arrays, merges, reducers, repeaters, scanners):
        if hasattr(mod, "account"):
            monkeypatch.setattr(mod, "account", counting)
    B = load_tensor("bcsstm02", "ds")
    graph = custard.compile("X(i,j)=B(i,k)*C(k,j)", None, "ikj")
    r = run_engine(graph, {"B": B, "C": B}, "reference", trace=False).result
    fired = sum(s.busy for s in r.blocks.values()
                if s.type in ("fiberlookup", "repeat", "repsiggen", "arrayvals", "intersect",
                              "spaccumulator", "mul"))
    assert counted["n"] > fired / 2


def _fan_out_graph():
    """``x(i) = 2*b(i)*c(i) + b(i)*b(i)`` over the coordinates b and c share, written so that
    the array load of b feeds three ALU inputs and the product ``b*c`` both inputs of an adder:
    bursts that write an output port of several channels (:func:`sam.runtime.burst.fan_out`)."""
    from sam.graph.dot import dumps, loads

    text = dumps(custard.compile("x(i)=b(i)*c(i)"))
    head, _, _ = text.rpartition("}")
    head = head.replace('    5 -> 7 [label="val" type="val" comment=""]\n', "")
    extra = """
    100 [type="mul"]
    101 [type="add"]
    102 [type="add"]
    3 -> 100 [type="val"]
    3 -> 100 [type="val"]
    5 -> 101 [type="val"]
    5 -> 101 [type="val"]
    101 -> 102 [type="val"]
    100 -> 102 [type="val"]
    102 -> 7 [type="val"]
}
"""
    return loads(head + extra)


@pytest.mark.parametrize("capacity", [16, 16384])
def test_bursts_fan_out_to_every_channel_of_a_port(capacity: int) -> None:
    graph = _fan_out_graph()
    b = random_tensor((300,), 0.4, 1)
    c = random_tensor((300,), 0.5, 2)
    on = _both(graph, {"b": b, "c": c}, "fan-out", capacity=capacity)
    fast = run_engine(graph, {"b": b, "c": c}, "fast", capacity=capacity)
    assert_same(on, fast, "fan-out, fast engine")
    bd, cd = b.to_dense(), c.to_dense()
    want = np.where((bd != 0) & (cd != 0), 2 * bd * cd + bd * bd, 0.0)
    got = on.result.outputs["x"].to_dense()
    assert np.count_nonzero(want) > 50
    assert np.allclose(got, want)
