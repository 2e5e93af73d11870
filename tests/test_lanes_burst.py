"""The lane blocks' burst paths (``sam.blocks.lanes``: ``parallelize_burst``,
``serialize_burst``, ``serialize_crd_burst``, ``lanereduce_burst``) change nothing. Block by
block on random fibertrees split at any level (and random lane groups for the reducer), with
random arrival cycles, streams cut short (the rest not there yet) and malformed order streams:
bursts on and off (and the compiled kernel) give the same tokens, arrival cycles, state,
memories and error. Whole graphs with lanes (Gustavson and SpMV, ``-s=parallelize(i,n)``;
Gamma, whose lanes join in the n-input reducer) with bursts on and off: every token and the
state after every kernel call (as tests/test_burst.py).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import custard
import sam.graph.registry  # noqa: F401  (fills the block types)
from formats.synthetic import random_tensor
from sam.blocks import lanes as lane_blocks
from sam.blocks.lanes import LaneReducer, Parallelizer, Serializer
from sam.errors import SimulationError
from sam.runtime.paths import FastPaths
from sam.sim.harness import run_block

from helpers.engine_trace import Outcome, assert_same, check_trace_complete, run_engine
from helpers.paths import path_free
from helpers.streamtrees import level_stream


@st.composite
def trees(draw, depth: int):
    """A random fibertree of ``depth`` levels (coordinates < 12, some fibers empty)."""

    def fiber(lvl: int):
        crds = sorted(draw(st.sets(st.integers(0, 11), max_size=5)))
        if lvl == depth - 1:
            return [(c, float(draw(st.integers(1, 9)))) for c in crds]
        return [(c, fiber(lvl + 1)) for c in crds]

    return fiber(0)


def _arrivals(draw, inputs: dict[str, str]) -> dict[str, list[int]]:
    out = {}
    for name, text in inputs.items():
        n = len(text.split(", "))
        gaps = draw(st.lists(st.sampled_from([0, 0, 0, 1, 3]), min_size=n, max_size=n))
        out[name] = [int(a) for a in np.cumsum(gaps)]
    return out


def _run(block, inputs, arrivals, engine: str = "reference", bursts: bool = True):
    try:
        out = run_block(block, inputs, arrivals=arrivals, engine=engine,
                        paths=FastPaths(burst=bursts))
    except SimulationError as err:
        return ("error", str(err))
    return (out.tokens, out.times, path_free(out.st).tolist(),
            [a.tolist() for a in out.mem.args()], out.rc)


def _same(draw, block, inputs, engines) -> tuple:
    """Run ``block`` on ``inputs`` (random arrivals; maybe one input cut short or its order
    broken) with bursts on and off (and compiled): all equal; the bursts-on outcome."""
    inputs = dict(inputs)
    bad = draw(st.sampled_from(["", "", "", "cut", "lane"]))
    if bad == "cut":
        name = draw(st.sampled_from(sorted(inputs)))
        toks = inputs[name].split(", ")
        inputs[name] = ", ".join(toks[:draw(st.integers(1, len(toks)))])
    elif bad == "lane" and "crd:order" in inputs:
        toks = inputs["crd:order"].split(", ")
        at = [k for k, x in enumerate(toks) if x.isdigit()]
        if at:
            toks[draw(st.sampled_from(at))] = "99"
        inputs["crd:order"] = ", ".join(toks)
    arrivals = _arrivals(draw, inputs)
    on = _run(block, inputs, arrivals)
    assert _run(block, inputs, arrivals, bursts=False) == on
    for engine in engines:
        assert _run(block, inputs, arrivals, engine=engine) == on
    return on


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_lane_blocks_bursts_change_nothing(data) -> None:
    draw = data.draw
    depth = draw(st.integers(1, 3))
    tree = draw(trees(depth))
    split = draw(st.integers(0, depth - 1))
    lanes = draw(st.sampled_from([1, 2, 3, 4, 8]))
    mode = draw(st.sampled_from(["rr", "range"]))
    engines = ["fast"] if draw(st.integers(0, 3)) == 0 else []
    key_text = level_stream(tree, split)
    key = Parallelizer("p", {"lanes": lanes, "mode": mode, "size": 12})
    _same(draw, key, {"crd:in": key_text}, engines)
    dealt = run_block(key, {"crd:in": key_text})
    order = dealt["crd:order"]
    key_lanes = {f"crd:lane{k}": dealt[f"crd:lane{k}"] for k in range(lanes)}
    merge = Serializer("m", {"lanes": lanes, "mode": "crd"})
    on = _same(draw, merge, key_lanes, engines)
    assert on[0] == "error" or run_block(merge, key_lanes)["crd:out"] == key_text
    for target in range(split, depth):
        for values in (False, True) if target == depth - 1 else (False,):
            d = target - split
            kind = "val" if values else "crd"
            text = level_stream(tree, target, values=values)
            follow = Parallelizer("q", {"lanes": lanes, "mode": "order", "depth": d,
                                        "kind": kind})
            ins = {f"{kind}:in": text, "crd:order": order}
            _same(draw, follow, ins, engines)
            parts = run_block(follow, ins)
            ser = Serializer("s", {"lanes": lanes, "mode": "order", "depth": d, "kind": kind})
            ser_in = {f"{kind}:lane{k}": parts[f"{kind}:lane{k}"] for k in range(lanes)}
            ser_in["crd:order"] = order
            _same(draw, ser, ser_in, engines)
            assert run_block(ser, ser_in)[f"{kind}:out"] == text


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_lane_reducer_bursts_change_nothing(data) -> None:
    """Random fibers per lane and group (as tests/test_block_lanes.py), random arrivals."""
    draw = data.draw
    lanes = draw(st.integers(1, 4))
    crd_in: list[list[str]] = [[] for _ in range(lanes)]
    val_in: list[list[str]] = [[] for _ in range(lanes)]
    for _ in range(draw(st.integers(1, 4))):
        for lane in range(lanes):
            n_fibers = draw(st.integers(0, 2))
            for f in range(n_fibers):
                for c in sorted(draw(st.sets(st.integers(0, 20), max_size=6))):
                    crd_in[lane].append(str(c))
                    val_in[lane].append(repr(float(draw(st.integers(1, 5)))))
                if f < n_fibers - 1:
                    crd_in[lane].append("S0")
                    val_in[lane].append("S0")
            crd_in[lane].append("S1")
            val_in[lane].append("S1")
    ins = {}
    for lane in range(lanes):
        crd_in[lane][-1] = val_in[lane][-1] = "S2"
        ins[f"crd:in{lane}"] = ", ".join([*crd_in[lane], "D"])
        ins[f"val:in{lane}"] = ", ".join([*val_in[lane], "D"])
    engines = ["fast"] if draw(st.integers(0, 3)) == 0 else []
    _same(draw, LaneReducer("r", {"lanes": lanes}), ins, engines)


def test_serializer_firings_are_the_bursts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: with bursts the serializer of a depth-1 stream makes every firing but the
    order's stops and done token in a burst (counted through the general path's ``fire``)."""
    calls = {"n": 0}

    def counting(*args):
        calls["n"] += 1
        return real_fire(*args)

    real_fire = lane_blocks.fire
    monkeypatch.setattr(lane_blocks, "fire", counting)
    ser = Serializer("s", {"lanes": 2, "mode": "order", "depth": 1})
    ins = {"crd:lane0": "1, 2, S0, 5, S1, D", "crd:lane1": "3, 4, S1, D",
           "crd:order": "0, 1, 0, S0, D"}
    on = run_block(ser, ins)
    assert on["crd:out"] == "1, 2, S0, 3, 4, S0, 5, S1, D"
    assert calls["n"] == 2
    calls["n"] = 0
    off = run_block(ser, ins, paths=FastPaths(burst=False))
    assert off.tokens == on.tokens and off.times == on.times
    assert calls["n"] == on.st[2]  # every firing (BUSY) through fire


def _run_two_channels(block, inputs: dict[str, str], bursts: bool):
    """Run ``block`` as :func:`sam.sim.harness.run_block` does, with every output port feeding
    two channels (a burst writes the first channel's rows and copies them to the second):
    (tokens per channel as kind, payload, arrival; state; return code)."""
    from sam.runtime import wires as W
    from sam.runtime.tokens import encode, parse_stream

    in_ports, out_ports = block.inputs(), block.outputs()
    n_in = len(in_ports)
    w = W.allocate(n_in + 2 * len(out_ports), 256)
    ins = np.arange(n_in, dtype=np.int64)
    for c, port in enumerate(in_ports):
        kinds, data = encode(parse_stream(inputs[port.name], port.kind), port.kind)
        for j in range(len(kinds)):
            W.push(w, np.array([0, 1]), np.array([c]), 0, int(kinds[j]), int(data[j]), j)
    optr = np.arange(0, 2 * len(out_ports) + 1, 2, dtype=np.int64)
    ochan = np.arange(n_in, n_in + 2 * len(out_ports), dtype=np.int64)
    st, fst, mem = block.initial_state({})
    st[W.LAT] = 1
    st[W.PATHS_OFF] = FastPaths(burst=bursts).off()
    rc = block.kernel.py(w, st, fst, ins, optr, ochan, *mem.args())
    chans = [[a.tolist() for a in W.drain(w, c)] for c in ochan]
    return chans, path_free(st).tolist(), int(rc), w.count[ochan].tolist()


@pytest.mark.parametrize("depth, kind", [(1, "crd"), (2, "val")])
def test_serializer_burst_writes_every_channel_of_its_output(depth: int, kind: str) -> None:
    tree = [(c, [(d, [(e, float(c + d + e)) for e in range(c % 3 + 1)]) for d in range(3)])
            for c in range(9)]
    split = 2 - depth
    key = run_block(Parallelizer("p", {"lanes": 3}), {"crd:in": level_stream(tree, split)})
    text = level_stream(tree, 2, values=kind == "val")
    follow = Parallelizer("q", {"lanes": 3, "mode": "order", "depth": depth, "kind": kind})
    parts = run_block(follow, {f"{kind}:in": text, "crd:order": key["crd:order"]})
    ser = Serializer("s", {"lanes": 3, "mode": "order", "depth": depth, "kind": kind})
    ins = {f"{kind}:lane{k}": parts[f"{kind}:lane{k}"] for k in range(3)}
    ins["crd:order"] = key["crd:order"]
    on = _run_two_channels(ser, ins, True)
    assert on == _run_two_channels(ser, ins, False)
    assert on[0][0] == on[0][1] and len(on[0][0][0]) == len(text.split(", "))


def _path_free(o: Outcome) -> Outcome:
    """``o`` with the fast-path slots of its recorded block states cleared."""
    calls = [(b, rc, path_free(np.frombuffer(st, np.int64)).tobytes(), fst)
             for b, rc, st, fst in o.trace.calls]
    return dataclasses.replace(o, trace=dataclasses.replace(o.trace, calls=calls))


@pytest.mark.parametrize("capacity", [16, 1 << 14])
@pytest.mark.parametrize("expr, order, schedule", [
    ("X(i,j)=B(i,k)*C(k,j)", "ikj", "parallelize(i,4)"),
    ("X(i,j)=B(i,k)*C(k,j)", "ikj", "parallelize(i,3,range)"),
    ("x(i)=B(i,j)*c(j)", None, "parallelize(i,5)"),
    ("X(i,j)=B(i,k)*C(k,j)", "ikj", "parallelize(k,4)"),  # Gamma: the lanes' reducer
])
def test_lane_graphs_bursts_change_nothing(expr: str, order, schedule: str,
                                           capacity: int) -> None:
    """Graphs with lanes, rings of 16 slots (bursts cut short) and 16 k: bursts on and off give
    the same tokens, state after every call, statistics and numpy's result; the compiled
    kernels too."""
    B = random_tensor((40, 40), 0.15, 3)
    tensors = {"B": B, "C": random_tensor((40, 40), 0.2, 4)} if "C" in expr else \
        {"B": B, "c": random_tensor((40,), 0.6, 5)}
    graph = custard.compile(expr, None, order, schedule=[schedule])
    what = f"{expr} {schedule}, capacity {capacity}"
    on = run_engine(graph, tensors, "reference", capacity=capacity)
    off = run_engine(graph, tensors, "reference", capacity=capacity,
                     paths=FastPaths(burst=False))
    assert_same(_path_free(on), _path_free(off), what)
    check_trace_complete(on)
    assert_same(on, run_engine(graph, tensors, "fast", capacity=capacity), f"{what}: fast")
    if "C" in expr:
        want = B.to_dense() @ tensors["C"].to_dense()
    else:
        want = B.to_dense() @ tensors["c"].to_dense()
    assert np.allclose(next(iter(on.result.outputs.values())).to_dense(), want)
