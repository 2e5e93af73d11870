"""Long runs of one stream: TTV's shape (``X(i,j)=B(i,j,k)*c(k)``, every fiber of B a few
coordinates against all of c). The scanner writes a fiber's rest in runs of ring slots
(``sam.blocks.scanners.write_run``), the intersecter drops runs of coordinates a chunk at a
time (``sam.blocks.merges.chunk_latest``) and a long acyclic run hands its sweeps to the compiled
driver (``sam.sim.schedule.DRIVER_AFTER_SWEEPS``). Each must give what one firing at a time
gives: the same tokens, arrival cycles, state, statistics and errors.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import custard
from formats.synthetic import random_tensor
from sam.blocks import merges
from sam.blocks.merges import CHUNK, Intersecter
from sam.errors import SimulationError
from sam.runtime.paths import FastPaths
from sam.runtime.tokens import DATA, DONE, EMPTY, STOP
from sam.sim import schedule
from sam.sim.engine import Simulation
from sam.sim.harness import run_block

from helpers.engine_trace import Outcome, assert_same, run_engine
from helpers.paths import path_free


def _path_free(o: Outcome) -> Outcome:
    """``o`` with the fast-path slots of its recorded block states cleared."""
    calls = [(b, rc, path_free(np.frombuffer(s, np.int64)).tobytes(), fs)
             for b, rc, s, fs in o.trace.calls]
    return dataclasses.replace(o, trace=dataclasses.replace(o.trace, calls=calls))


def one_by_one(kc, dc, tc, kr, tr, has, h, e, g, f, lst, stop, t, idle, mask):
    """:func:`sam.blocks.merges.drop_run` as its definition: one firing per loop."""
    n = 0
    first = t
    while h < e:
        s = h & mask
        if kc[s] != DATA:
            break
        x = dc[s]
        if x >= stop or x <= lst:
            break
        tt = tc[s]
        if has:
            if g >= f:
                break
            q = g & mask
            if kr[q] != DATA and kr[q] != EMPTY:
                break
            tt = max(tt, tr[q])
        if tt > t:
            idle += tt - t
            t = tt
        if n == 0:
            first = t
        lst = x
        h += 1
        g += 1
        t += 1
        n += 1
    return h, g, lst, t, idle, n, first


_COMPILED = {}


def _compiled_drop_run():
    if not _COMPILED:
        import numba

        from sam.runtime.jit import register_jitables

        register_jitables()
        run = merges.drop_run

        @numba.njit(boundscheck=True)
        def call(kc, dc, tc, kr, tr, has, h, e, g, f, lst, stop, t, idle, mask):
            return run(kc, dc, tc, kr, tr, has, h, e, g, f, lst, stop, t, idle, mask)

        _COMPILED["fn"] = call
    return _COMPILED["fn"]


DEFECTS = ["", "crd-stop", "crd-done", "crd-empty", "repeat", "past-stop", "ref-stop",
           "ref-empty", "short-ref", "short-crd"]


@st.composite
def rings(draw):
    """Two rings (a coordinate stream and its references) holding a run of up to a few
    chunks from a random head, wrapping round or not, with one defect at a random place."""
    cap = draw(st.sampled_from([64, 128, 512]))
    mask = cap - 1
    n = draw(st.integers(0, min(cap, 6 * CHUNK)))
    h = draw(st.integers(0, 3 * cap))
    g = h + draw(st.sampled_from([0, 0, 5, cap - 3]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kc = rng.integers(0, 4, cap).astype(np.int8)  # slots outside the run: anything
    dc = rng.integers(-5, 10**6, cap)
    tc = rng.integers(0, 10**6, cap)
    kr = rng.integers(0, 4, cap).astype(np.int8)
    tr = rng.integers(0, 10**6, cap)
    lst = draw(st.integers(-1, 20))
    coords = lst + np.cumsum(rng.integers(1, 4, n))
    t0 = draw(st.integers(0, 400))
    wait = draw(st.sampled_from(["none", "rare", "often", "backwards"]))
    p = {"none": 0.0, "rare": 0.02, "often": 0.5, "backwards": 0.3}[wait]
    steps = np.where(rng.random(n) < p, rng.integers(-3 if wait == "backwards" else 1, 9, n), 1)
    arrive = t0 + np.cumsum(steps)
    rarrive = arrive + np.where(rng.random(n) < p, rng.integers(0, 5, n), 0)
    for i in range(n):
        kc[(h + i) & mask] = DATA
        dc[(h + i) & mask] = coords[i]
        tc[(h + i) & mask] = arrive[i]
        kr[(g + i) & mask] = EMPTY if rng.random() < 0.1 else DATA
        tr[(g + i) & mask] = rarrive[i]
    stop = int(coords[-1]) + 1 + draw(st.integers(0, 3)) if n else 10**7
    e, f = h + n, g + n
    defect = draw(st.sampled_from(DEFECTS))
    if n and defect:
        at = draw(st.integers(0, n - 1))
        s, q = (h + at) & mask, (g + at) & mask
        if defect.startswith("crd-"):
            kc[s] = {"crd-stop": STOP, "crd-done": DONE, "crd-empty": EMPTY}[defect]
        elif defect == "repeat" and at > 0:
            dc[s] = dc[(h + at - 1) & mask]
        elif defect == "past-stop":
            stop = int(dc[s])
        elif defect == "ref-stop":
            kr[q] = STOP
        elif defect == "ref-empty":
            kr[q] = EMPTY
        elif defect == "short-ref":
            f = g + at
        elif defect == "short-crd":
            e = h + at
    has = draw(st.booleans())
    t = draw(st.integers(0, 600))
    idle = draw(st.integers(0, 50))
    return (kc, dc, tc, kr, tr, has, h, e, g, f, lst, stop, t, idle, mask)


@settings(max_examples=300, deadline=None)
@given(rings())
def test_drop_run_in_chunks_is_one_firing_at_a_time(args) -> None:
    assert merges.drop_run(*args) == one_by_one(*args)


@settings(max_examples=150, deadline=None)
@given(rings())
def test_drop_run_compiled_is_one_firing_at_a_time(args) -> None:
    """The same, compiled with bounds checks (unsigned slots past a ring's end would raise)."""
    got = _compiled_drop_run()(*args)
    assert tuple(int(x) for x in got) == one_by_one(*args)


def test_whole_chunks_are_taken_at_once() -> None:
    """Not vacuous: a run of many chunks is checked chunk by chunk (``chunk_latest`` called
    once per chunk), with the waits inside a chunk accounted as the firings would."""
    cap = 16 * CHUNK
    n = 10 * CHUNK + 3
    kc = np.zeros(cap, np.int8)
    dc = np.arange(cap, dtype=np.int64) * 2
    tc = np.arange(cap, dtype=np.int64) + 7 + (np.arange(cap) // 5)  # a wait every 5 tokens
    kr = np.zeros(cap, np.int8)
    tr = tc.copy()
    calls = []
    real = merges.chunk_latest

    def counting(*a):
        calls.append(a[6])
        return real(*a)

    args = (kc, dc, tc, kr, tr, True, 0, n, 0, n, -1, 10**9, 3, 0, cap - 1)
    try:
        merges.chunk_latest = counting
        got = merges.drop_run(*args)
    finally:
        merges.chunk_latest = real
    assert got == one_by_one(*args)
    assert len(calls) == 10 and got[5] == n and got[4] > 0


def _fibers(draw, n: int) -> list[list[int]]:
    long = st.lists(st.integers(0, 400), min_size=0, max_size=300, unique=True).map(sorted)
    short = st.lists(st.integers(0, 400), max_size=4, unique=True).map(sorted)
    return [draw(st.one_of(long, short)) for _ in range(n)]


def _streams(fibers: list[list[int]], base: int) -> tuple[list[str], list[str]]:
    crd, ref = [], []
    r = base
    for fib in fibers:
        for x in fib:
            crd.append(str(x))
            ref.append(str(r))
            r += 1
        crd.append("S0")
        ref.append("S0")
    return crd + ["D"], ref + ["D"]


@st.composite
def long_cases(draw):
    n = draw(st.integers(1, 3))
    b_crd, b_ref = _streams(_fibers(draw, n), 0)
    c_crd, c_ref = _streams(_fibers(draw, n), 1000)
    inputs = {"crd:in-b": b_crd, "ref:in-b": b_ref, "crd:in-c": c_crd, "ref:in-c": c_ref}
    bad = draw(st.sampled_from(["", "", "order", "ref-kind", "ref-empty"]))
    if bad:  # a defect anywhere in one stream, inside a long run
        name = draw(st.sampled_from(sorted(inputs)))
        toks = inputs[name]
        at = draw(st.integers(0, len(toks) - 2))
        if bad == "order" and name.startswith("crd") and toks[at] not in ("S0", "D") and at:
            toks[at] = toks[at - 1] if toks[at - 1] != "S0" else "0"
        elif bad == "ref-kind" and name.startswith("ref"):
            toks[at] = "S0"
        elif bad == "ref-empty" and name.startswith("ref") and toks[at] not in ("S0", "D"):
            toks[at] = "N"
    gaps = st.sampled_from([0, 0, 0, 0, 1, 2, 9])
    arrivals = {name: [int(a) for a in np.cumsum(draw(st.lists(gaps, min_size=len(s),
                                                               max_size=len(s))))]
                for name, s in inputs.items()}
    return {k: ", ".join(v) for k, v in inputs.items()}, arrivals


def _run(inputs, arrivals, engine: str = "reference", bursts: bool = True):
    block = Intersecter("x", {"index": "k"}, operands=["b", "c"])
    try:
        out = run_block(block, inputs, arrivals=arrivals, engine=engine,
                        paths=FastPaths(burst=bursts))
    except SimulationError as err:
        return ("error", str(err))
    return (out.tokens, out.times, path_free(out.st).tolist(),
            [a.tolist() for a in out.mem.args()[:2]])


@settings(max_examples=40, deadline=None)
@given(long_cases())
def test_intersecter_long_runs_equal_general_path_and_compiled(case) -> None:
    inputs, arrivals = case
    on = _run(inputs, arrivals)
    assert on == _run(inputs, arrivals, bursts=False)
    assert on == _run(inputs, arrivals, engine="fast")


def _ttv(seed: int):
    B = random_tensor((4, 3, 1000), 20 / (4 * 3 * 1000), seed)
    c = random_tensor((1000,), 0.5, seed + 1)
    return custard.compile("X(i,j)=B(i,j,k)*c(k)"), {"B": B, "c": c}


@pytest.mark.parametrize("capacity", [16, 64, 1 << 14])
def test_ttv_long_fibers_bursts_change_nothing(capacity: int) -> None:
    """Fibers of c (500 coordinates) longer than the rings: the scanner's runs of slots wrap
    round, the intersecter's chunks stop at the ring's end; with bursts and without, every
    token, pop, kernel call and statistic is the same, and the compiled kernels agree."""
    graph, tensors = _ttv(3)
    on = run_engine(graph, tensors, "reference", capacity=capacity)
    off = run_engine(graph, tensors, "reference", capacity=capacity,
                     paths=FastPaths(burst=False))
    assert_same(_path_free(on), _path_free(off), f"capacity {capacity}")
    assert_same(on, run_engine(graph, tensors, "fast", capacity=capacity), "engines")
    want = np.einsum("ijk,k->ij", tensors["B"].to_dense(), tensors["c"].to_dense())
    assert np.allclose(next(iter(on.result.outputs.values())).to_dense(), want)


def test_long_acyclic_run_hands_its_sweeps_to_the_driver(monkeypatch) -> None:
    """A run on compiled kernels still sweeping after DRIVER_AFTER_SWEEPS sweeps goes on in
    the compiled driver, with the result, statistics and rings of the Python sweeps."""
    from sam.sim.compiled import CompiledTier

    graph, tensors = _ttv(5)
    monkeypatch.setattr(schedule, "DRIVER_AFTER_SWEEPS", 8)
    # a driver not on disk is not compiled mid-run (next test); here it is there, or compiled
    monkeypatch.setattr(CompiledTier, "_driver_ready", lambda self: True)
    runs = {}
    for engine in ("reference", "fast"):
        sim = Simulation(graph, tensors, capacity=16)
        runs[engine] = (sim, sim.run(engine))
    (rsim, ref), (fsim, fast) = runs["reference"], runs["fast"]
    assert rsim._driver is None
    assert fsim._driver is not None and fsim.driver_calls > 0
    assert (fast.cycles, fast.tokens) == (ref.cycles, ref.tokens)
    assert fast.blocks == ref.blocks and fast.streams == ref.streams
    for name in ("kind", "data", "time", "head", "tail", "count"):
        assert np.array_equal(getattr(rsim.wires, name), getattr(fsim.wires, name)), name


def test_a_long_run_does_not_stop_to_compile_the_driver(monkeypatch) -> None:
    """The handover happens only when the driver is loaded or on disk: a run does not stop
    to compile it (seconds); it goes on with the Python sweeps, with the same results."""
    from sam.sim.compiled import CompiledTier

    graph, tensors = _ttv(5)
    monkeypatch.setattr(schedule, "DRIVER_AFTER_SWEEPS", 8)
    monkeypatch.setattr(CompiledTier, "_driver_ready", lambda self: False)
    sim = Simulation(graph, tensors, capacity=16)
    fast = sim.run("fast")
    ref = Simulation(graph, tensors, capacity=16).run("reference")
    assert sim._driver is None and sim.driver_calls == 0
    assert (fast.cycles, fast.tokens) == (ref.cycles, ref.tokens)
    assert fast.blocks == ref.blocks
