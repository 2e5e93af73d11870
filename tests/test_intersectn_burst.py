"""The intersecter of three or more operands in bursts (``sam.blocks.merges.intersectn_burst``):
matches, drops behind the largest coordinate, drops facing another input's stop and the stops
themselves in one loop. Against the general path (bursts off) and the compiled kernel: the same
output tokens, arrival cycles, state and statistics, the same error on malformed streams;
against numpy: the coordinates are each fiber's intersection. Whole graphs (elementwise
products of three and four operands) with bursts on and off: every token and the state after
every kernel call (as tests/test_burst.py).
"""

from __future__ import annotations

import dataclasses
from functools import reduce

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import custard
from formats.synthetic import random_tensor
from sam.blocks import merges
from sam.blocks.merges import Intersecter
from sam.errors import SimulationError
from sam.runtime.paths import FastPaths
from sam.sim.harness import run_block

from helpers.engine_trace import Outcome, assert_same, check_trace_complete, run_engine
from helpers.paths import path_free


def _fibers(draw, n: int, top: int) -> list[list[int]]:
    coords = st.lists(st.integers(0, top), max_size=20, unique=True).map(sorted)
    return [draw(coords) for _ in range(n)]


def _streams(fibers: list[list[int]], base: int) -> tuple[str, str]:
    crd, ref = [], []
    r = base
    for fib in fibers:
        for x in fib:
            crd.append(str(x))
            ref.append(str(r))
            r += 1
        crd.append("S0")
        ref.append("S0")
    crd[-1] = ref[-1] = "S1"  # the last fiber also closes the level above
    return ", ".join(crd + ["D"]), ", ".join(ref + ["D"])


def _arrivals(draw, n: int) -> list[int]:
    gaps = draw(st.lists(st.sampled_from([0, 0, 0, 1, 2, 7]), min_size=n, max_size=n))
    return [int(a) for a in np.cumsum(gaps)]


def _run(names, inputs, arrivals, engine: str = "reference", bursts: bool = True):
    block = Intersecter("x", {"index": "k"}, operands=list(names))
    try:
        out = run_block(block, inputs, arrivals=arrivals, engine=engine,
                        paths=FastPaths(burst=bursts))
    except SimulationError as err:
        return ("error", str(err))
    return (out.tokens, out.times, path_free(out.st).tolist(),
            [a.tolist() for a in out.mem.args()[:2]], out.rc)


@st.composite
def cases(draw):
    m = draw(st.integers(3, 4))
    names = "bcde"[:m]
    n = draw(st.integers(1, 4))
    top = draw(st.sampled_from([8, 30, 60]))  # dense (many matches) to sparse (many drops)
    fibers = [_fibers(draw, n, top) for _ in names]
    inputs = {}
    for k, (t, fib) in enumerate(zip(names, fibers, strict=True)):
        inputs[f"crd:in-{t}"], inputs[f"ref:in-{t}"] = _streams(fib, 100 * k)
        if draw(st.integers(0, 3)) == 0:
            del inputs[f"ref:in-{t}"]  # an operand without a reference stream
    bad = draw(st.sampled_from(["", "", "", "order", "stop-level", "ref-kind", "done",
                                "cut"]))
    if bad:  # break one stream after the first fiber's stop of one input
        name = draw(st.sampled_from(sorted(inputs)))
        toks = inputs[name].split(", ")
        at = next(i for i, x in enumerate(toks) if x[0] == "S")
        if bad == "order" and name.startswith("crd") and at > 0:
            toks.insert(at, toks[at - 1])  # a repeated coordinate
        elif bad == "stop-level":
            toks[at] = "S2"
        elif bad == "ref-kind" and name.startswith("ref"):
            toks[at] = "7"
        elif bad == "done":
            toks = toks[:at] + ["D"]  # ends early
        elif bad == "cut":
            toks = toks[:at + draw(st.integers(0, 3))]  # the rest not there yet: RC_IN
        inputs[name] = ", ".join(toks)
    arrivals = {name: _arrivals(draw, len(s.split(", "))) for name, s in inputs.items()}
    return names, fibers, inputs, arrivals, bad


@settings(max_examples=80, deadline=None)
@given(cases())
def test_burst_equals_general_path_and_compiled(case) -> None:
    names, fibers, inputs, arrivals, bad = case
    on = _run(names, inputs, arrivals)
    off = _run(names, inputs, arrivals, bursts=False)
    assert on == off
    assert _run(names, inputs, arrivals, engine="fast") == on
    if not bad:
        want = []
        for fibs in zip(*fibers, strict=True):
            want += [str(x) for x in reduce(np.intersect1d, fibs).tolist()] + ["S0"]
        want[-1] = "S1"
        assert [str(t) for t in on[0]["crd"]] == [*want, "D"]


def test_only_the_done_token_takes_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: with bursts every firing but the done token's (matches, drops, drops facing
    a stop, the stops) is a burst's; without, each is the general path's (``fire``)."""
    calls = {"n": 0}

    def counting(*args):
        calls["n"] += 1
        return real_fire(*args)

    real_fire = merges.fire
    monkeypatch.setattr(merges, "fire", counting)
    fibers = [[[3, 9, 40], [], [0, 1, 2, 50, 58], [7]],
              [list(range(0, 60, 2)), list(range(30)), [2, 3], list(range(60))],
              [list(range(0, 60, 4)), [5], [2, 50], list(range(7, 9))]]
    inputs = {}
    for k, (t, fib) in enumerate(zip("bcd", fibers, strict=True)):
        inputs[f"crd:in-{t}"], inputs[f"ref:in-{t}"] = _streams(fib, 100 * k)
    del inputs["ref:in-c"]
    arrivals = {name: list(range(len(s.split(", ")))) for name, s in inputs.items()}
    on = _run("bcd", inputs, arrivals)
    assert calls["n"] == 1
    assert [str(t) for t in on[0]["crd"]] == "40 S0 S0 2 S0 7 S1 D".split()
    assert [str(t) for t in on[0]["ref:out-c"]] == "N S0 S0 N S0 N S1 D".split()
    calls["n"] = 0
    assert _run("bcd", inputs, arrivals, bursts=False) == on
    assert calls["n"] == on[2][2]  # every firing (BUSY) through fire


def _path_free(o: Outcome) -> Outcome:
    """``o`` with the fast-path slots of its recorded block states cleared."""
    calls = [(b, rc, path_free(np.frombuffer(st, np.int64)).tobytes(), fst)
             for b, rc, st, fst in o.trace.calls]
    return dataclasses.replace(o, trace=dataclasses.replace(o.trace, calls=calls))


def _both(graph, tensors, what: str, **kw):
    on = run_engine(graph, tensors, "reference", **kw)
    off = run_engine(graph, tensors, "reference", paths=FastPaths(burst=False), **kw)
    assert_same(_path_free(on), _path_free(off), what)
    return on


@pytest.mark.parametrize("capacity", [16, 1 << 14])
@pytest.mark.parametrize("expr, shape", [
    ("X(i,j)=B(i,j)*C(i,j)*D(i,j)", (30, 40)),
    ("x(i)=b(i)*c(i)*d(i)*e(i)", (400,)),
])
def test_graphs_bursts_change_nothing(expr: str, shape, capacity: int) -> None:
    """Elementwise products of three and four operands (3- and 4-input intersecters at every
    level), rings of 16 slots (bursts cut short) and 16 k: bursts on and off give the same
    tokens, state after every call, statistics and numpy's result; the compiled kernels too."""
    names = [t for t in "BCDbcde" if f"{t}(" in expr]
    tensors = {t: random_tensor(shape, 0.3 + 0.15 * k, 10 + k) for k, t in enumerate(names)}
    graph = custard.compile(expr)
    on = _both(graph, tensors, f"{expr}, capacity {capacity}", capacity=capacity)
    check_trace_complete(on)
    fast = run_engine(graph, tensors, "fast", capacity=capacity)
    assert_same(on, fast, f"{expr}: fast engine")
    want = reduce(np.multiply, [tensors[t].to_dense() for t in names])
    assert np.count_nonzero(want) > 5
    assert np.allclose(next(iter(on.result.outputs.values())).to_dense(), want)
