"""The two-operand intersecter's burst (``sam.blocks.merges.intersect2_burst``) drops runs of
one input's coordinates in a tight loop, also when the other input already holds its fiber's
stop. Against the general path (bursts off) and the compiled kernel: the same output tokens,
arrival cycles, state and statistics, the same error on malformed streams; against numpy: the
coordinates are each fiber's intersection.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sam.blocks import merges
from sam.blocks.merges import Intersecter
from sam.errors import SimulationError
from sam.runtime.paths import FastPaths
from sam.sim.harness import run_block

from helpers.paths import path_free


def _fibers(draw, n: int) -> list[list[int]]:
    coords = st.lists(st.integers(0, 60), max_size=25, unique=True).map(sorted)
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
    return ", ".join(crd + ["D"]), ", ".join(ref + ["D"])


def _arrivals(draw, n: int) -> list[int]:
    gaps = draw(st.lists(st.sampled_from([0, 0, 0, 1, 2, 7]), min_size=n, max_size=n))
    return [int(a) for a in np.cumsum(gaps)]


def _run(inputs, arrivals, engine: str = "reference", bursts: bool = True):
    block = Intersecter("x", {"index": "k"}, operands=["b", "c"])
    try:
        out = run_block(block, inputs, arrivals=arrivals, engine=engine,
                        paths=FastPaths(burst=bursts))
    except SimulationError as err:
        return ("error", str(err))
    return (out.tokens, out.times, path_free(out.st).tolist(),
            [a.tolist() for a in out.mem.args()[:2]])


@st.composite
def cases(draw):
    n = draw(st.integers(1, 4))
    b, c = _fibers(draw, n), _fibers(draw, n)
    b_crd, b_ref = _streams(b, 0)
    c_crd, c_ref = _streams(c, 100)
    inputs = {"crd:in-b": b_crd, "ref:in-b": b_ref, "crd:in-c": c_crd, "ref:in-c": c_ref}
    if draw(st.booleans()):
        del inputs["ref:in-c"]  # an operand without a reference stream
    bad = draw(st.sampled_from(["", "", "order", "stop-level", "ref-kind"]))
    if bad:  # break one stream after the first fiber's stop of one input
        name = draw(st.sampled_from(sorted(inputs)))
        toks = inputs[name].split(", ")
        at = toks.index("S0")
        if bad == "order" and name.startswith("crd") and at > 0:
            toks.insert(at, toks[at - 1])  # a repeated coordinate
        elif bad == "stop-level":
            toks[at] = "S1"
        elif bad == "ref-kind" and name.startswith("ref"):
            toks[at] = "7"
        inputs[name] = ", ".join(toks)
    arrivals = {name: _arrivals(draw, len(s.split(", "))) for name, s in inputs.items()}
    return b, c, inputs, arrivals, bad


@settings(max_examples=60, deadline=None)
@given(cases())
def test_burst_equals_general_path_and_compiled(case) -> None:
    b, c, inputs, arrivals, bad = case
    on = _run(inputs, arrivals)
    off = _run(inputs, arrivals, bursts=False)
    assert on == off
    assert _run(inputs, arrivals, engine="fast") == on
    if not bad:
        crd = [str(x) for fb, fc in zip(b, c, strict=True)
               for x in [*np.intersect1d(fb, fc).tolist(), "S0"]]
        assert on[0]["crd"] and [str(t) for t in on[0]["crd"]] == [*crd, "D"]


def test_only_stops_take_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: with bursts, every data firing (matches, drops behind the other input and
    drops facing its stop) is a burst's; the general path (``fire``) takes only the stops and
    the done token."""
    calls = {"n": 0}

    def counting(*args):
        calls["n"] += 1
        return real_fire(*args)

    real_fire = merges.fire
    monkeypatch.setattr(merges, "fire", counting)
    b = [[3, 9, 40], [], [0, 1, 2, 50, 58], [7]]
    c = [list(range(0, 60, 2)), list(range(30)), [2, 3], list(range(60))]
    b_crd, b_ref = _streams(b, 0)
    c_crd, c_ref = _streams(c, 100)
    inputs = {"crd:in-b": b_crd, "ref:in-b": b_ref, "crd:in-c": c_crd, "ref:in-c": c_ref}
    arrivals = {name: list(range(len(s.split(", ")))) for name, s in inputs.items()}
    on = _run(inputs, arrivals)
    assert calls["n"] == len(b) + 1
    assert [str(t) for t in on[0]["crd"]] == "40 S0 S0 2 S0 7 S0 D".split()
    calls["n"] = 0
    assert _run(inputs, arrivals, bursts=False) == on
    firings = sum(len(fb) + len(fc) - len(np.intersect1d(fb, fc)) + 1
                  for fb, fc in zip(b, c, strict=True))
    assert calls["n"] == firings + 1


@pytest.mark.parametrize("expr, fmt", [("x(i)=B(i,j)*c(j)", "s"), ("X(i,j)=B(i,k)*C(k,j)", None)])
def test_real_matrix_both_engines(expr: str, fmt: str | None) -> None:
    """west0479 (SpMV against a half-full vector, and SpM*SpM ``ikj``): both engines give
    scipy's result with the same tokens, cycles and intersecter statistics."""
    import custard
    from formats.io import load_tensor
    from formats.synthetic import random_tensor
    from sam.sim.engine import simulate

    B = load_tensor("west0479", "ds")
    if fmt:
        c = random_tensor((B.shape[1],), 0.5, 7)
        tensors = {"B": B, "c": c}
        want = B.to_scipy() @ c.to_dense()
    else:
        tensors = {"B": B, "C": B}
        want = (B.to_scipy() @ B.to_scipy()).toarray()
    graph = custard.compile(expr, None, None if fmt else "ikj")
    runs = [simulate(graph, tensors, engine=e) for e in ("reference", "fast")]
    for r in runs:
        got = next(iter(r.outputs.values())).to_dense()
        assert np.allclose(got, want)
    ref, fast = runs
    assert (ref.tokens, ref.cycles) == (fast.tokens, fast.cycles)
    stats = [{k: vars(s) for k, s in r.blocks.items() if s.type == "intersect"} for r in runs]
    assert stats[0] and stats[0] == stats[1]
