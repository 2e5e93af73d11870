"""One run on an engine with every kernel call and every channel's token sequence recorded
(:func:`tracing`, described in tests/test_engines_agree.py); two runs compared bit for bit; the
suite graphs' small inputs (:data:`SUITE_CASES`) and random Custard cases (:func:`random_case`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache

import numpy as np
import scipy.sparse as sp
from hypothesis import note

import custard
from custard import CompileError
from formats.errors import ToolkitError
from formats.tensor import Tensor
from sam.graph.model import Graph
from sam.runtime import wires as W
from sam.runtime.paths import ALL, FastPaths
from sam.sim.engine import BlockRun, SimResult, Simulation

from helpers.custard_cases import HypDraw, draw_arrays, draw_case, expected_refusal
from helpers.kernel_suite import (
    GV_FILES,
    MATRIX_KERNELS,
    TENSOR_KERNELS,
    VECTOR_KERNELS,
    operands,
    real_matrix,
    real_tensor,
    rng_for,
    suite_expression,
)

ENGINES = ("reference", "fast")
DEFAULT_CAPACITY = 1 << 14  # Simulation's default ring capacity


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


ORIGINAL_CALL = BlockRun.call
ACTIVE: list[Trace] = []


def recording_call(self: BlockRun, fn, w: W.Wires) -> int:
    rc = ORIGINAL_CALL(self, fn, w)
    if ACTIVE:
        ACTIVE[-1].snapshot(self, rc, w)
    return rc


@contextmanager
def tracing(trace: Trace) -> Iterator[Trace]:
    """Record every kernel call into ``trace`` (wraps ``BlockRun.call``)."""
    BlockRun.call = recording_call
    ACTIVE.append(trace)
    try:
        yield trace
    finally:
        ACTIVE.pop()
        BlockRun.call = ORIGINAL_CALL


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
    assign = suite_expression(name)
    if data.startswith("vector-"):
        n = int(data.removeprefix("vector-"))
        values = operands(assign, None, rng_for(name, n), free=n)
    elif data in SMALL_MATRICES:
        values = operands(assign, real_matrix(data), rng_for(name, data))
    else:
        _, source, how = next(t for t in SMALL_TENSORS if t[0] == data)
        values = operands(assign, real_tensor(source, how), rng_for(name, data))
    return bind(values)


def random_case(data):
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
