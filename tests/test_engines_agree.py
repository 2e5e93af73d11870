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
3. random Custard expressions (the generators of ``tests/test_custard_random.py``);
4. bounded FIFOs (depths 1, 2, 3, 8) with random block latencies, deadlocks included;
5. SpMV and SpM*SpM on bigger real matrices (west0479, lp_scsd1, bcsstm02);
6. the simulator's ring capacity changes nothing (either engine);
7. the ALUs on IEEE special values (NaN, infinities, signed zeros, subnormals, overflows);
8. miswired suite graphs: the same errors (malformed streams, deadlocks) after the same tokens.
"""

from __future__ import annotations

import copy
import dataclasses
import random
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, assume, event, given, note, settings
from hypothesis import strategies as st
from test_custard_random import HypDraw, draw_arrays, draw_case, expected_refusal
from test_dot_graphs import (
    GV_FILES,
    MATRIX_KERNELS,
    TENSOR_KERNELS,
    VECTOR_KERNELS,
    _expression,
    _rng,
    graph_file,
    operands,
    real_matrix,
    real_tensor,
)
from test_timing import _accumulate_then_intersect, binary_graph, elemmul_graph, scanner

import custard
from custard import CompileError
from formats.errors import ToolkitError
from formats.format import Format
from formats.tensor import Tensor
from sam.blocks.alus import ALU_TYPES, BINARY_OPS, UNARY_OPS
from sam.blocks.arrays import ArrayLoad
from sam.blocks.merges import Intersecter, Unioner
from sam.blocks.writers import LevelWriter
from sam.errors import Deadlock
from sam.graph.model import Edge, Graph
from sam.runtime import wires as W
from sam.runtime.paths import ALL, FastPaths
from sam.sim.engine import BlockRun, SimResult, Simulation

ENGINES = ("reference", "fast")
DEFAULT_CAPACITY = 1 << 14  # Simulation's default ring capacity


# --------------------------------------------------------------------------- recording
@dataclass
class Trace:
    """What one run did, as seen from outside the kernels."""

    channels: list[str] = field(default_factory=list)  # "src.port -> dst.port" per channel
    pushed: dict[int, list[np.ndarray]] = field(default_factory=dict)  # [3, n] chunks
    popped: dict[int, list[np.ndarray]] = field(default_factory=dict)  # pop cycles (bounded)
    calls: list[tuple[str, int, bytes, bytes]] = field(default_factory=list)
    _tail: np.ndarray | None = None
    _head: np.ndarray | None = None

    def snapshot(self, run: BlockRun, rc: int, w: W.Wires) -> None:
        cap = w.kind.shape[1]
        if self._tail is None:
            self._tail = np.zeros_like(w.tail)
            self._head = np.zeros_like(w.head)
        for c in np.flatnonzero(w.tail != self._tail):
            lo, hi = int(self._tail[c]), int(w.tail[c])
            # Tokens [lo, hi) must all still be in the ring: none overwritten since pushed.
            assert hi - lo <= cap and hi - int(w.head[c]) <= cap, "ring wrapped between calls"
            idx = np.arange(lo, hi) & (cap - 1)
            chunk = np.stack([w.kind[c, idx].astype(np.int64), w.data[c, idx], w.time[c, idx]])
            self.pushed.setdefault(int(c), []).append(chunk)
        if w.ptime.shape[1] > 1:  # bounded FIFOs keep the cycle each token was popped
            for c in np.flatnonzero((w.head != self._head) & (w.depth > 0)):
                lo, hi = int(self._head[c]), int(w.head[c])
                assert hi - lo <= cap, "ring wrapped between calls"
                idx = np.arange(lo, hi) & (cap - 1)
                self.popped.setdefault(int(c), []).append(w.ptime[c, idx].copy())
        self._tail[:] = w.tail
        self._head[:] = w.head
        self.calls.append((run.block.id, int(rc), run.st.tobytes(), run.fst.tobytes()))

    def sequences(self) -> dict[str, np.ndarray]:
        """Per channel: its tokens as a [3, n] array of kind, payload bits, arrival cycle."""
        return {name: (np.concatenate(self.pushed[c], axis=1) if c in self.pushed
                       else np.zeros((3, 0), np.int64))
                for c, name in enumerate(self.channels)}

    def pops(self) -> dict[str, np.ndarray]:
        return {name: np.concatenate(self.popped[c]) for c, name in enumerate(self.channels)
                if c in self.popped}


_ACTIVE: list[Trace] = []
_ORIGINAL_CALL = BlockRun.call


def _recording_call(self: BlockRun, fn, w: W.Wires) -> int:
    rc = _ORIGINAL_CALL(self, fn, w)
    if _ACTIVE:
        _ACTIVE[-1].snapshot(self, rc, w)
    return rc


@contextmanager
def tracing(trace: Trace) -> Iterator[Trace]:
    """Record every kernel call into ``trace`` (wraps ``BlockRun.call``)."""
    BlockRun.call = _recording_call
    _ACTIVE.append(trace)
    try:
        yield trace
    finally:
        _ACTIVE.pop()
        BlockRun.call = _ORIGINAL_CALL


# --------------------------------------------------------------------------- running
@dataclass
class Outcome:
    """A run: its result summary, or the ToolkitError it raised; and its trace."""

    summary: dict | None
    error: tuple[str, str] | None
    trace: Trace | None
    result: SimResult | None = None

    def raised(self, kind: type[Exception]) -> bool:
        return self.error is not None and self.error[0] == kind.__name__


def _tensor_bits(t: Tensor) -> dict:
    """Everything stored in a tensor; values as their bit patterns (so -0.0 != 0.0, NaN ok)."""
    levels = []
    for level in t.levels:
        arrays = {k: (v.dtype.str, v.tolist()) if isinstance(v, np.ndarray) else v
                  for k, v in level.arrays().items()}
        levels.append((type(level).__name__, level.size, arrays))
    vals = np.ascontiguousarray(t.vals, dtype=np.float64).view(np.int64)
    return {"shape": t.shape, "format": str(t.format), "name": t.name, "levels": levels,
            "vals": vals.tolist()}


def summarize(r: SimResult) -> dict:
    """Every field of a SimResult except the engine's name and the wall time."""
    return {
        "outputs": {k: _tensor_bits(v) for k, v in sorted(r.outputs.items())},
        "cycles": r.cycles,
        "blocks": {k: dataclasses.asdict(b) for k, b in r.blocks.items()},
        "streams": [dataclasses.asdict(s) for s in r.streams],
        "fifo_depth": r.fifo_depth,
        "interrupted": r.interrupted,
        "notes": list(r.notes),
    }


def run_engine(graph: Graph, tensors: Mapping[str, Tensor], engine: str, *,
               fifo_depth: int | None = None, latencies: Mapping[str, int] | None = None,
               capacity: int = DEFAULT_CAPACITY, trace: bool = True,
               paths: FastPaths = ALL) -> Outcome:
    """Simulate; a ToolkitError becomes part of the outcome, anything else propagates."""
    rec = Trace() if trace else None
    try:
        sim = Simulation(graph, tensors, fifo_depth=fifo_depth, latencies=latencies,
                         capacity=capacity, paths=paths)
        if rec is not None:
            rec.channels = [f"{ch.src or 'root'}.{ch.src_port.name if ch.src_port else 'ref'}"
                            f" -> {ch.dst}.{ch.dst_port.name}" for ch in sim.channels]
            with tracing(rec):
                result = sim.run(engine)
        else:
            result = sim.run(engine)
    except ToolkitError as err:
        return Outcome(None, (type(err).__name__, str(err)), rec)
    assert result.engine == engine and not result.interrupted
    return Outcome(summarize(result), None, rec, result)


def _first_difference(a, b, path: str = "") -> str | None:
    """Where two nested summaries first differ (for a readable failure message)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return f"{path}: keys {sorted(a)} != {sorted(b)}"
        for k in a:
            d = _first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return f"{path}: length {len(a)} != {len(b)}"
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            d = _first_difference(x, y, f"{path}[{k}]")
            if d:
                return d
        return None
    return None if a == b and type(a) is type(b) else f"{path}: {a!r} != {b!r}"


def assert_same_sequences(a: Trace, b: Trace, what: str) -> None:
    assert a.channels == b.channels, what
    sa, sb = a.sequences(), b.sequences()
    for name in a.channels:
        x, y = sa[name], sb[name]
        if x.shape != y.shape or not np.array_equal(x, y):
            n = min(x.shape[1], y.shape[1])
            k = next((i for i in range(n) if not np.array_equal(x[:, i], y[:, i])), n)
            raise AssertionError(
                f"{what}: channel {name} differs at token {k} "
                f"(lengths {x.shape[1]}, {y.shape[1]}): "
                f"{x[:, k].tolist() if k < x.shape[1] else None} vs "
                f"{y[:, k].tolist() if k < y.shape[1] else None}")
    pa, pb = a.pops(), b.pops()
    assert pa.keys() == pb.keys(), what
    for name in pa:
        assert np.array_equal(pa[name], pb[name]), f"{what}: pop cycles of channel {name}"


def assert_same(a: Outcome, b: Outcome, what: str, *, calls: bool = True) -> None:
    """Identical outcomes: result summary or error, token sequences, and (``calls``) the
    kernel-call log (only comparable between runs with the same ring capacity)."""
    assert a.error == b.error, f"{what}: errors differ: {a.error} vs {b.error}"
    if a.summary is not None or b.summary is not None:
        diff = _first_difference(a.summary, b.summary)
        assert diff is None, f"{what}: results differ at {diff}"
    if a.trace is not None and b.trace is not None:
        assert_same_sequences(a.trace, b.trace, what)
        if calls:
            assert len(a.trace.calls) == len(b.trace.calls), f"{what}: number of kernel calls"
            for k, (x, y) in enumerate(zip(a.trace.calls, b.trace.calls, strict=True)):
                if x != y:
                    sx = np.frombuffer(x[2], np.int64)
                    sy = np.frombuffer(y[2], np.int64)
                    raise AssertionError(
                        f"{what}: kernel call {k} differs: block {x[0]} rc {x[1]} vs block "
                        f"{y[0]} rc {y[1]}; int state slots differing: "
                        f"{np.flatnonzero(sx != sy).tolist()}; float state equal: "
                        f"{x[3] == y[3]}")


def check_trace_complete(o: Outcome) -> None:
    """The recorded sequences hold every token the run pushed (counts match the stream
    statistics) and every completed channel ends with its done token."""
    assert o.trace is not None and o.result is not None
    seqs = o.trace.sequences()
    from sam.runtime.tokens import DONE, KIND_NAMES

    kinds = {name: np.bincount(seq[0], minlength=4).tolist() for name, seq in seqs.items()}
    for s in o.result.streams:
        matches = [k for name, k in kinds.items()
                   if name.startswith(f"{s.src}.{s.src_port} -> {s.dst}.{s.dst_port}")]
        assert len(matches) == 1
        assert matches[0] == [s.tokens[k] for k in KIND_NAMES]
    for name, seq in seqs.items():
        assert seq.shape[1] > 0 and seq[0, -1] == DONE, f"{name} does not end with its done"


def compare_engines(graph: Graph, tensors: Mapping[str, Tensor], what: str, **kw) -> Outcome:
    """Run both engines (traced unless ``trace=False``); all must agree. Returns the
    reference outcome."""
    ref = run_engine(graph, tensors, "reference", **kw)
    fast = run_engine(graph, tensors, "fast", **kw)
    assert_same(ref, fast, what)
    return ref


def bind(values: Mapping) -> dict[str, Tensor]:
    return {k: (Tensor.from_scipy(v) if sp.issparse(v) else
                Tensor.scalar(v) if np.ndim(v) == 0 else Tensor.from_dense(v))
            for k, v in values.items()}


# --------------------------------------------------------------------------- 1, 2: the suite
SMALL_MATRICES = ["LFAT5", "bcsstm02", "GD97_b", "lpi_itest6", "karate", "cage5"]
SMALL_TENSORS = [
    ("splatt-small", "splatt-small", None),
    ("splatt-small4-slice", "splatt-small4", "slice"),
    ("sttid-Rnd1-folded", "sttid-Rnd1-zerobased", "fold"),
    ("sttid-Rnd2-folded", "sttid-Rnd2-zerobased", "fold"),
]
SMALL_VECTORS = [0, 1, 7, 40]


def _suite_cases() -> list[tuple[str, str]]:
    cases = []
    for name in GV_FILES:
        if name in MATRIX_KERNELS:
            cases += [(name, m) for m in SMALL_MATRICES]
        elif name in TENSOR_KERNELS:
            cases += [(name, label) for label, _, _ in SMALL_TENSORS]
        else:
            assert name in VECTOR_KERNELS
            cases += [(name, f"vector-{n}") for n in SMALL_VECTORS]
    return cases


SUITE_CASES = _suite_cases()


@cache
def suite_inputs(name: str, data: str) -> dict[str, Tensor]:
    """The inputs tests/test_dot_graphs.py would choose for graph ``name`` on ``data``."""
    assign = _expression(name)
    if data.startswith("vector-"):
        n = int(data.removeprefix("vector-"))
        values = operands(assign, None, _rng(name, n), free=n)
    elif data in SMALL_MATRICES:
        values = operands(assign, real_matrix(data), _rng(name, data))
    else:
        _, source, how = next(t for t in SMALL_TENSORS if t[0] == data)
        values = operands(assign, real_tensor(source, how), _rng(name, data))
    return bind(values)


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


def _random_case(data):
    """A random expression compiled by Custard, with its inputs (graph None if refused)."""
    d = HypDraw(data)
    case = draw_case(d)
    arrays = draw_arrays(d, case.expr)
    note(f"case: {case}")
    note("arrays: " + "; ".join(f"{k} {v.shape} {v.tolist()}" for k, v in arrays.items()))
    try:
        graph = custard.compile(case.expr, formats=case.formats, order=case.order)
    except CompileError:
        assert expected_refusal(case) is not None
        return None, None, case
    if not isinstance(graph, Graph):  # a program (an inner sum first): test_custard_random
        return None, None, case
    return graph, {k: Tensor.from_dense(v) for k, v in arrays.items()}, case


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
