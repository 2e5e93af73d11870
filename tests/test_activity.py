"""The activity recorder (``sam.sim.activity``): per-block busy/idle/stalled cycles and tokens
per time bucket.

On SpM*SpM, SpMV, a graph of lanes, a graph with coordinate skipping and bounded FIFOs, on both
engines, with the compiled driver off, on from the start and at its usual switch: the buckets
of every block sum to its statistics exactly, the tokens and cycles are those of a run without
the recorder, and the activity is the same on every run. The buffers keep every other point
when full (the Python append and the driver's ``record`` alike); compounds are the sums of their
parts; a program's phases get their offsets; a short run is sampled again on smaller rings;
watched streams get an occupancy within bounds without changing anything else.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import custard
from custard.skipping import add_skip_edges
from formats.tensor import Tensor
from sam.errors import Deadlock, SimulationError
from sam.graph.builder import GraphBuilder
from sam.program import Program
from sam.sim import activity, schedule
from sam.sim.activity import Activity, record
from sam.sim.engine import Simulation

from helpers.small_graphs import accumulate_then_intersect

FIELDS = ("busy", "idle", "stalled")


def _matrix(seed: int, n: int = 40, density: float = 0.12) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.random((n, n)) < density) * rng.integers(1, 5, (n, n)).astype(float)


def _case(name: str):
    """(graph, tensors, fifo_depth) of a named case."""
    B, C = _matrix(1), _matrix(2)
    mats = {"B": Tensor.from_dense(B, "ss"), "C": Tensor.from_dense(C, "ss")}
    spmspm = ("X(i,j)=B(i,k)*C(k,j)", {"B": "ss", "C": "ss", "X": "ss"})
    if name == "spmspm":
        return custard.compile(*spmspm, "ikj"), mats, None
    if name == "fifo2":
        return custard.compile(*spmspm, "ikj"), mats, 2
    if name == "spmv":
        v = (np.random.default_rng(3).random(40) < 0.3) * 2.0
        g = custard.compile("x(i)=B(i,j)*c(j)", {"B": "ds", "c": "s"})
        return g, {"B": Tensor.from_dense(B, "ds"), "c": Tensor.from_dense(v, "s")}, None
    if name == "lanes":
        return custard.compile(*spmspm, "ikj", schedule=["parallelize(i,4)"]), mats, 5
    if name == "skip":
        g = custard.compile("X(i,j)=B(i,j)*C(i,j)", {"B": "ss", "C": "ss", "X": "ss"})
        assert add_skip_edges(g) >= 2
        return g, mats, None
    raise KeyError(name)


CASES = ("spmspm", "spmv", "lanes", "skip", "fifo2")
#: engine, how the compiled driver is used (fast engine only)
MODES = (("reference", "auto"), ("fast", "auto"), ("fast", "off"), ("fast", "early"))


@pytest.fixture
def mode(request, monkeypatch):
    engine, driver = request.param
    if engine == "fast":
        monkeypatch.setenv("SAM_INTERPRET_SECONDS", "0")  # the compiled tier from the start
    if driver == "off":
        monkeypatch.setattr(Simulation, "_use_driver", lambda self: None)
    elif driver == "early":
        from sam.sim import loops, warm

        if not loops.driver_ready():  # the switch takes the driver only when it is on disk
            warm.compile_missing([warm.DRIVER])
        monkeypatch.setattr(schedule, "DRIVER_AFTER_SWEEPS", 1)
        monkeypatch.setattr(activity, "POINTS", 64)  # the driver's record thins out too
    return engine, driver


def _check_sums(result) -> None:
    act = result.activity
    n = act["buckets"]
    assert act["bucket_cycles"] * n >= result.cycles
    assert act["streams"] == []
    assert set(act["blocks"]) == set(result.blocks)
    for bid, b in result.blocks.items():
        e = act["blocks"][bid]
        for f in FIELDS:
            assert len(e[f]) == n and min(e[f]) >= 0, (bid, f)
            assert sum(e[f]) == getattr(b, f), (bid, f)
        if not b.parts:
            assert sum(e["tokens"]) == sum(b.tokens_out.values()), bid


@pytest.mark.parametrize("mode", MODES, indirect=True, ids=["-".join(m) for m in MODES])
@pytest.mark.parametrize("name", CASES)
def test_buckets_sum_to_the_statistics_and_change_nothing(name, mode):
    engine, driver = mode
    graph, tensors, depth = _case(name)
    # small rings make many sweeps: the early driver takes over after the first
    opts = {"fifo_depth": depth, "capacity": 64 if driver == "early" else 1 << 14}
    plain = Simulation(graph, tensors, **opts).run(engine)
    assert plain.activity is None  # off by default
    sim = Simulation(graph, tensors, activity=True, **opts)
    first = sim.run(engine)
    if engine == "fast" and driver == "off":
        assert sim.driver_calls == 0
    if engine == "fast" and driver == "early" and name != "spmv":
        assert sim.driver_calls > 0
    assert first.cycles == plain.cycles and first.tokens == plain.tokens
    assert first.blocks == plain.blocks
    for k in plain.outputs:
        assert np.array_equal(first.outputs[k].to_dense(), plain.outputs[k].to_dense())
    _check_sums(first)
    again = sim.run(engine)  # the same Simulation again: the same activity
    assert again.activity == first.activity
    fresh = Simulation(graph, tensors, activity=True, **opts).run(engine)
    assert fresh.activity == first.activity


def test_small_buffers_decimate_and_stay_exact(monkeypatch):
    monkeypatch.setattr(activity, "POINTS", 64)
    graph, tensors, _ = _case("spmspm")
    sim = Simulation(graph, tensors, capacity=64, activity=True)
    result = sim.run("reference")
    assert sim.recorder is not None and sim.recorder.points.shape[1] == 64
    assert (sim.recorder.count < 64).all()
    _check_sums(result)
    assert result.activity["resolution_cycles"] < result.cycles


def test_append_and_record_keep_the_same_points():
    """The vectorised append of a sweep and the driver's ``record`` store and thin out alike
    (as the Python function; the driver compiles the same code)."""
    graph, tensors, _ = _case("spmv")
    sim = Simulation(graph, tensors)
    a, b = Activity(sim.runs, points=64), Activity(sim.runs, points=64)
    rng = np.random.default_rng(0)
    state = np.zeros((len(a.ids), 5), np.int64)
    for _ in range(300):
        state += rng.integers(0, 3, state.shape) * (rng.random((len(a.ids), 1)) < 0.7)
        a.add(state.copy())
        for s in range(len(b.ids)):
            record(b.points, b.count, s, *state[s])
    assert np.array_equal(a.count, b.count)
    for s in range(len(a.ids)):
        assert np.array_equal(a.points[s, : a.count[s]], b.points[s, : b.count[s]])
    assert (a.count < 64).all() and (a.count > 0).all()


def _scanload_graph():
    b = GraphBuilder()
    si = b.block("fiberlookup", index="i", tensor="B", mode=0, root="true", format="compressed")
    sl = b.block("scanload", index="j", tensor="B", mode=1, format="compressed")
    b.link((si, "ref"), sl, "ref")
    wi = b.block("fiberwrite", index="i", tensor="X", mode=0)
    wj = b.block("fiberwrite", index="j", tensor="X", mode=1)
    wv = b.block("fiberwrite", tensor="X", mode="vals")
    b.link((si, "crd"), wi, "crd")
    b.link((sl, "crd"), wj, "crd")
    b.link((sl, "val"), wv, "val")
    return b.finish()


@pytest.mark.parametrize("engine", ("reference", "fast"))
def test_compounds_are_the_sums_of_their_parts(engine):
    graph = _scanload_graph()
    result = Simulation(graph, {"B": Tensor.from_dense(_matrix(4), "ss")},
                        activity=True).run(engine)
    _check_sums(result)
    blocks = result.activity["blocks"]
    compounds = [bid for bid, b in result.blocks.items() if b.parts]
    assert compounds
    for cid in compounds:
        parts = [p for p in result.blocks if p.startswith(cid + "/")]
        for f in (*FIELDS, "tokens"):
            assert blocks[cid][f] == np.sum([blocks[p][f] for p in parts], axis=0).tolist()


def test_program_phases_carry_activity_and_offsets():
    graph, tensors, _ = _case("spmv")
    result = Program([graph, graph]).run(tensors, engine="reference", activity=True)
    assert result.phase_offsets == [0, result.phases[0].cycles]
    for phase in result.phases:
        _check_sums(phase)
    assert Program([graph]).run(tensors, engine="reference").phases[0].activity is None


@pytest.mark.parametrize("engine", ("reference", "fast"))
def test_a_short_run_is_sampled_again_on_smaller_rings(engine, monkeypatch):
    monkeypatch.setenv("SAM_INTERPRET_SECONDS", "0")
    graph, tensors, _ = _case("spmspm")
    coarse_sim = Simulation(graph, tensors, activity=True)
    coarse_sim.refine = False
    coarse = coarse_sim.run(engine)
    sim = Simulation(graph, tensors, activity=True)
    fine = sim.run(engine)
    assert int(np.median(sim.recorder.count)) < 256  # this run's own samples: few
    assert (fine.cycles, fine.tokens, fine.blocks) == (coarse.cycles, coarse.tokens,
                                                         coarse.blocks)
    _check_sums(fine)
    assert fine.activity["resolution_cycles"] < coarse.activity["resolution_cycles"]
    assert fine.activity != coarse.activity


@pytest.mark.parametrize("mode", MODES[:2], indirect=True, ids=["-".join(m) for m in MODES[:2]])
@pytest.mark.parametrize("name", ("spmspm", "fifo2", "lanes", "skip"))
def test_watched_streams_occupancy(name, mode):
    engine, _ = mode
    graph, tensors, depth = _case(name)
    blocks_only = Simulation(graph, tensors, fifo_depth=depth, activity=True).run(engine)
    sim = Simulation(graph, tensors, fifo_depth=depth, activity=True, streams="auto")
    result = sim.run(engine)
    assert (result.cycles, result.tokens, result.blocks) == (
        blocks_only.cycles, blocks_only.tokens, blocks_only.blocks)
    assert result.activity["blocks"] == blocks_only.activity["blocks"]
    streams = result.activity["streams"]
    assert 0 < len(streams) <= activity.AUTO_STREAMS
    pushed = {(s.src, s.src_port, s.dst, s.dst_port): sum(s.tokens.values())
              for s in result.streams}
    for s in streams:
        assert result.blocks[s["dst"]].family in ("merge", "reduce", "write")
        occ = s["occupancy"]
        assert len(occ) == result.activity["buckets"] and min(occ) >= 0
        # interpolated between samples: a bounded FIFO may show a few tokens over its depth
        assert max(occ) <= (2 * depth if depth else pushed[s["src"], s["src_port"], s["dst"],
                                                           s["dst_port"]])
    assert Simulation(graph, tensors, fifo_depth=depth, activity=True,
                      streams="auto").run(engine).activity == result.activity


def test_named_streams_and_unknown_ones():
    graph, tensors, _ = _case("spmspm")
    result = Simulation(graph, tensors, activity=True, streams=["3:crd"]).run("reference")
    streams = result.activity["streams"]
    assert [(s["src"], s["src_port"]) for s in streams] == [("3", "crd")] * len(streams)
    assert max(streams[0]["occupancy"]) > 0  # B's k-scanner runs ahead of the intersecter
    with pytest.raises(SimulationError, match=r"no stream '99:crd' to record; streams: 0:"):
        Simulation(graph, tensors, activity=True, streams=["99:crd"])


@pytest.mark.parametrize("engine", ("reference", "fast"))
def test_a_deadlock_keeps_the_activity_so_far(engine):
    B = Tensor.from_scipy(sp.random(6, 8, 0.6, random_state=3, format="csr"))
    with pytest.raises(Deadlock) as info:
        Simulation(accumulate_then_intersect(), {"B": B}, fifo_depth=1,
                   activity=True).run(engine)
    _check_sums(info.value.partial)
