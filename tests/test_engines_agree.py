"""Differential tests: the reference and the fast engine give identical results.

Both engines run the same block kernels (plain Python vs numba-compiled), so everything a run
produces must be identical, bit for bit: the output tensors (every level array and the value
bits), the cycle count, every block's statistics (all fields), every stream's token counts,
and, per channel, the whole token sequence (kind, payload bits, arrival cycle; for bounded
FIFOs also the cycle each token was popped). Errors must be identical too (same exception
type and message, e.g. a :class:`~sam.sim.engine.Deadlock` with bounded FIFOs).

The token sequences are recorded without touching the simulator: :func:`tracing` wraps
``BlockRun.call`` (one kernel call) and, after each call, copies the tokens pushed since the
previous call out of the rings (``sim.wires``). Between two calls only the called block
pushes, so its new tokens are all still in the ring (a ring never holds more than its
capacity of unpopped tokens); the recorder checks this rather than assuming it. The recorder
also logs every kernel call (block, return code, the block's whole int and float state
afterwards): the scheduler is shared, so the two engines make the same calls in the same order.

Cases:

1. every graph in ``dot_graphs/`` with inputs chosen as in ``tests/test_dot_graphs.py``:
   matrix kernels on small SuiteSparse matrices, tensor kernels on FROSTT test tensors,
   vector kernels on random vectors;
2. per-channel token sequences (with item 1, and self-checks of the recorder);
3. random Custard expressions (the generators of ``tests/helpers/custard_cases.py``);
4. bounded FIFOs (depths 1, 2, 3, 8) with random block latencies, deadlocks included;
5. SpMV and SpM*SpM on bigger real matrices (west0479, lp_scsd1, bcsstm02);
6. the simulator's ring capacity changes nothing (either engine);
7. the ALUs on IEEE special values (NaN, infinities, signed zeros, subnormals, overflows);
8. miswired suite graphs: the same errors (malformed streams, deadlocks) after the same tokens.
"""

from __future__ import annotations

import copy
import random
import zlib

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, assume, event, given, note, settings
from hypothesis import strategies as st

from formats.errors import ToolkitError
from formats.format import Format
from formats.tensor import Tensor
from sam.blocks.alus import ALU_TYPES, BINARY_OPS, UNARY_OPS
from sam.blocks.arrays import ArrayLoad
from sam.blocks.merges import Intersecter, Unioner
from sam.blocks.writers import LevelWriter
from sam.errors import Deadlock
from sam.graph.model import Edge, Graph
from sam.sim.engine import BlockRun, Simulation

from helpers.engine_trace import ACTIVE as _ACTIVE
from helpers.engine_trace import (
    DEFAULT_CAPACITY,
    ENGINES,
    SUITE_CASES,
    Trace,
    assert_same,
    assert_same_sequences,
    bind,
    check_trace_complete,
    compare_engines,
    run_engine,
    suite_inputs,
    tracing,
)
from helpers.engine_trace import ORIGINAL_CALL as _ORIGINAL_CALL
from helpers.engine_trace import random_case as _random_case
from helpers.engine_trace import recording_call as _recording_call
from helpers.kernel_suite import GV_FILES, graph_file, operands, real_matrix
from helpers.kernel_suite import rng_for as _rng
from helpers.kernel_suite import suite_expression as _expression
from helpers.small_graphs import accumulate_then_intersect as _accumulate_then_intersect
from helpers.small_graphs import binary_graph, elemmul_graph, scanner


# --------------------------------------------------------------------------- 1, 2: the suite
def test_every_graph_is_covered():
    assert sorted({name for name, _ in SUITE_CASES}) == GV_FILES
    assert len(GV_FILES) >= 30


@pytest.mark.parametrize("name, data", SUITE_CASES)
def test_suite_graph(name, data):
    ref = compare_engines(graph_file(name), suite_inputs(name, data), f"{name} on {data}")
    if ref.error is None:
        check_trace_complete(ref)


# --------------------------------------------------------------------------- 2: the recorder
def test_recorder_sees_every_token_and_a_difference():
    """The recorder is complete (counts, done tokens), independent of the ring capacity
    (rings of 16 wrap many times), and not blind: one more cycle of latency on one block
    type shows up in the sequences and the call log."""
    name, data = "matmul_ikj", "GD97_b"
    g, t = graph_file(name), suite_inputs(name, data)
    base = run_engine(g, t, "reference")
    check_trace_complete(base)
    assert sum(s.shape[1] for s in base.trace.sequences().values()) > 5 * 16
    small = run_engine(g, t, "reference", capacity=16)
    assert len(small.trace.calls) > len(base.trace.calls)  # the small rings did wrap
    assert_same(base, small, "capacity 16", calls=False)
    slower = run_engine(g, t, "reference", latencies={"arrayvals": 2})
    with pytest.raises(AssertionError, match="differ"):
        assert_same(base, slower, "latency")
    with pytest.raises(AssertionError, match="channel"):
        assert_same_sequences(base.trace, slower.trace, "latency")


def test_recorder_restores_the_simulator():
    assert BlockRun.call is _ORIGINAL_CALL
    with pytest.raises(RuntimeError), tracing(Trace()):
        assert BlockRun.call is _recording_call
        raise RuntimeError
    assert BlockRun.call is _ORIGINAL_CALL and not _ACTIVE


# --------------------------------------------------------------------------- 3: Custard
RANDOM_SETTINGS = settings(max_examples=50, deadline=None, database=None, print_blob=True,
                           suppress_health_check=[HealthCheck.too_slow,
                                                  HealthCheck.data_too_large])


@RANDOM_SETTINGS
@given(st.data())
def test_random_custard_expressions(data):
    graph, tensors, case = _random_case(data)
    assume(graph is not None)
    ref = compare_engines(graph, tensors, str(case))
    event(ref.error[0] if ref.error else "ran")


# --------------------------------------------------------------------------- 4: bounded FIFOs
DEPTHS = [1, 2, 3, 8]


def random_latencies(graph: Graph, rng: np.random.Generator) -> dict[str, int]:
    """Latencies 1..4 for a random subset of the graph's block types."""
    types = sorted({b.dot_type for b in graph.blocks.values()} - {"broadcast"})
    return {t: int(rng.integers(1, 5)) for t in types if rng.random() < 0.6}


#: Each suite graph on its smallest data (LFAT5, splatt-small, a 7-vector).
BOUNDED_CASES = [(name, data) for name, data in SUITE_CASES
                 if data in ("LFAT5", "splatt-small", "vector-7")]


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("name, data", BOUNDED_CASES)
def test_suite_graph_bounded_fifos(name, data, depth):
    g = graph_file(name)
    lat = random_latencies(g, _rng("latencies", name, data, depth))
    compare_engines(g, suite_inputs(name, data), f"{name} on {data}, depth {depth}, {lat}",
                    fifo_depth=depth, latencies=lat)


@pytest.mark.parametrize("depth", [None, *DEPTHS])
def test_deadlock_is_the_same(depth):
    """The malformed graph of test_timing.py: with small FIFOs it deadlocks, else its stream
    is reported malformed; both engines fail the same way, after the same tokens."""
    B = Tensor.from_scipy(sp.random(6, 8, 0.6, random_state=3, format="csr"))
    ref = compare_engines(_accumulate_then_intersect(), {"B": B}, f"depth {depth}",
                          fifo_depth=depth)
    assert ref.error is not None
    if depth == 1:
        assert ref.raised(Deadlock)
    if depth is None:
        assert "malformed stream" in ref.error[1]


def test_bounded_cases_do_deadlock_somewhere():
    """Some of the cases above end in a deadlock (so the comparison covers that path)."""
    B = Tensor.from_scipy(sp.random(6, 8, 0.6, random_state=3, format="csr"))
    outcomes = [run_engine(_accumulate_then_intersect(), {"B": B}, "fast", fifo_depth=d,
                           trace=False) for d in DEPTHS]
    assert any(o.raised(Deadlock) for o in outcomes)


@RANDOM_SETTINGS
@given(st.data(), st.sampled_from(DEPTHS), st.integers(0, 2**32 - 1))
def test_random_custard_expressions_bounded_fifos(data, depth, seed):
    graph, tensors, case = _random_case(data)
    assume(graph is not None)
    lat = random_latencies(graph, np.random.default_rng(seed))
    note(f"depth {depth}, latencies {lat}")
    ref = compare_engines(graph, tensors, f"{case}, depth {depth}, {lat}", fifo_depth=depth,
                          latencies=lat)
    event(ref.error[0] if ref.error else "ran")


# --------------------------------------------------------------------------- 5: real matrices
REAL = [("mat_vecmul_ij", m) for m in ("west0479", "lp_scsd1", "bcsstm02")] + \
       [("matmul_ikj", m) for m in ("west0479", "lp_scsd1", "bcsstm02")]


@pytest.mark.parametrize("name, matrix", REAL)
def test_real_matrix(name, matrix):
    """SpMV and SpM*SpM (Gustavson) on real matrices; operands as in test_dot_graphs.py
    (lp_scsd1 is 77x760: SpM*SpM multiplies it by a thinned copy of its transpose)."""
    values = operands(_expression(name), real_matrix(matrix), _rng(name, matrix))
    if name == "matmul_ikj" and matrix == "lp_scsd1":
        assert values["C"].shape == values["B"].T.shape
    ref = compare_engines(graph_file(name), bind(values), f"{name} on {matrix}")
    assert ref.error is None


# --------------------------------------------------------------------------- 6: ring capacity
CAPACITY_CASES = [("matmul_ikj", "karate", None), ("mat_sddmm", "LFAT5", None),
                  ("tensor3_mttkrp", "splatt-small", None), ("mat_elemadd3", "GD97_b", 2),
                  ("mat_vecmul_ji", "cage5", 1)]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name, data, depth", CAPACITY_CASES)
def test_ring_capacity_changes_nothing(name, data, depth, engine):
    g, t = graph_file(name), suite_inputs(name, data)
    default = run_engine(g, t, engine, fifo_depth=depth)
    small = run_engine(g, t, engine, fifo_depth=depth, capacity=16)
    assert default.error is None
    assert_same(default, small, f"{name} on {data} ({engine}), capacity 16", calls=False)


def test_ring_capacity_with_a_deadlock():
    B = Tensor.from_scipy(sp.random(6, 8, 0.6, random_state=3, format="csr"))
    for engine in ENGINES:
        outs = [run_engine(_accumulate_then_intersect(), {"B": B}, engine, fifo_depth=1,
                           capacity=cap) for cap in (16, DEFAULT_CAPACITY)]
        assert outs[0].raised(Deadlock)
        assert_same(*outs, f"deadlock ({engine})", calls=False)


def test_small_graph_capacity_and_engines():
    """elemmul of test_timing.py, long vectors: rings of 16 wrap, results do not change."""
    rng = np.random.default_rng(zlib.crc32(b"elemmul"))
    b = rng.random(500) * (rng.random(500) < 0.5)
    c = rng.random(500) * (rng.random(500) < 0.5)
    t = {"b": Tensor.from_dense(b), "c": Tensor.from_dense(c)}
    outs = [run_engine(elemmul_graph(), t, e, capacity=cap)
            for e in ENGINES for cap in (16, DEFAULT_CAPACITY)]
    for o in outs[1:]:
        assert_same(outs[0], o, "elemmul", calls=False)
    assert_same(outs[0], outs[2], "elemmul, capacity 16")
    assert np.array_equal(outs[0].result.outputs["x"].to_dense(), b * c)


# --------------------------------------------------------------------------- 7: special values
#: IEEE special values and extremes, as value operands of the ALUs.
SPECIAL = [1000.0, -1000.0, np.nan, np.inf, -np.inf, -0.0, 0.0, 5e-324, 1e308, -1e308, -3.0,
           2.0]


def unary_graph(op: str) -> Graph:
    """x(i) = op(b(i)): scanner -> crd writer; scanner ref -> array -> ALU -> value writer."""
    g = Graph()
    s = g.add(scanner("0", "b"))
    w = g.add(LevelWriter("1", {"tensor": "x", "mode": "0", "format": "compressed",
                                "index": "i"}))
    a = g.add(ArrayLoad("2", {"tensor": "b"}))
    alu = g.add(ALU_TYPES[op]("3", {}))
    v = g.add(LevelWriter("4", {"tensor": "x", "mode": "vals"}))
    g.connect(s, "crd", w, "crd")
    g.connect(s, "ref", a, "ref")
    g.connect(a, "val", alu, "val")
    g.connect(alu, "val", v, "val")
    g.formats = {"x": Format.parse("s"), "b": Format.parse("s")}
    return g


def _vector(values: list[float], first: int = 0, extra: int = 0) -> Tensor:
    n = len(values)
    return Tensor.from_coo([list(range(first, first + n))], values, (first + n + extra,), "s")


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy scalars overflow to inf, loudly
@pytest.mark.parametrize("merge", [Intersecter, Unioner], ids=["intersect", "union"])
@pytest.mark.parametrize("op", sorted(BINARY_OPS))
def test_binary_alus_on_special_values(op, merge):
    """Every pair of special values (NaN, infinities, signed zeros, subnormals, overflowing
    products), overlapping or (shifted, so the union pairs them with empty tokens) not."""
    pairs = [(x, y) for x in SPECIAL for y in SPECIAL]
    b = _vector([x for x, _ in pairs], extra=5)
    for c in (_vector([y for _, y in pairs], extra=5), _vector([y for _, y in pairs], first=5)):
        ref = compare_engines(binary_graph(op, merge), {"b": b, "c": c}, f"{op} ({merge})")
        assert ref.error is None


@pytest.mark.parametrize("op", sorted(UNARY_OPS))
def test_unary_alus_on_special_values(op):
    ref = compare_engines(unary_graph(op), {"b": _vector(SPECIAL)}, op)
    assert ref.error is None


def test_exp_overflow_same_on_both_engines():
    fast = run_engine(unary_graph("exp"), {"b": _vector([1000.0])}, "fast")
    assert fast.error is None
    assert np.array(fast.summary["outputs"]["x"]["vals"]).view(np.float64).tolist() == [np.inf]
    ref = run_engine(unary_graph("exp"), {"b": _vector([1000.0])}, "reference")
    assert_same(ref, fast, "exp(1000)")


# --------------------------------------------------------------------------- 8: miswired graphs
MUTATION_DATA = ("LFAT5", "lpi_itest6", "splatt-small", "vector-7")
MUTATION_SEEDS = range(150)


def miswired(seed: int) -> tuple[Graph, dict[str, Tensor], int | None, str]:
    """A suite graph with the sources of one or two pairs of same-kind streams swapped (most
    are rejected by validation; the rest mostly feed blocks malformed streams or deadlock),
    its small inputs, and a FIFO depth."""
    rng = random.Random(seed)
    name, data = rng.choice([c for c in SUITE_CASES if c[1] in MUTATION_DATA])
    g = copy.deepcopy(graph_file(name))
    swaps = []
    for _ in range(rng.randint(1, 2)):
        by_kind: dict[str, list[int]] = {}
        for k, e in enumerate(g.edges):
            by_kind.setdefault(e.kind, []).append(k)
        pairs = [v for v in by_kind.values() if len(v) >= 2]
        if not pairs:  # (vec_identity: one stream of each kind) nothing to swap
            break
        a, b = rng.sample(rng.choice(pairs), 2)
        ea, eb = g.edges[a], g.edges[b]
        g.edges[a] = Edge(eb.src, eb.src_port, ea.dst, ea.dst_port, ea.attrs)
        g.edges[b] = Edge(ea.src, ea.src_port, eb.dst, eb.dst_port, eb.attrs)
        swaps.append(f"{ea.src}.{ea.src_port.name}<->{eb.src}.{eb.src_port.name}")
    depth = rng.choice([None, None, 1, 2])
    return g, suite_inputs(name, data), depth, f"{name} on {data}, swapped {swaps}"


@pytest.mark.parametrize("seed", MUTATION_SEEDS)
def test_miswired_graph(seed):
    """Miswired graphs: both engines fail (or not) identically, after the same tokens."""
    g, t, depth, what = miswired(seed)
    compare_engines(g, t, f"{what}, depth {depth}", fifo_depth=depth)


def test_miswired_graphs_reach_the_simulator():
    """Enough of the miswired graphs pass validation for the test above to mean something."""
    reached = 0
    for seed in MUTATION_SEEDS:
        g, t, depth, _ = miswired(seed)
        try:
            Simulation(g, t, fifo_depth=depth)
            reached += 1
        except ToolkitError:
            pass
    assert reached >= 30
