"""Fusion of a pipelineable producer -> consumer edge (``custard.dag.fusion``, GOGETA Sec. 5):
the fused graph, simulated on both engines after a DOT round trip, equals numpy's result of the
two statements composed (random inputs and shipped matrices); it has no level writer, level
scanner or value load of the intermediate; discordant orders are refused in one line; the GCN
chain's cycles fused vs as a program of two graphs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import custard
from custard.dag.fusion import FUSED_TENSOR_ATTR, fuse_edge, fusion_refusal
from formats.data import names
from formats.io import load_tensor
from formats.tensor import Tensor
from sam.blocks.aligners import FiberAligner
from sam.blocks.retype import Retype
from sam.blocks.scanners import LevelScanner
from sam.blocks.streamscan import StreamScanner
from sam.errors import CompileError, GraphError, SimulationError
from sam.graph.dot import dumps, loads
from sam.graph.model import Graph
from sam.graph.validate import input_tensors, output_tensors
from sam.program import Program
from sam.runtime.tokens import format_stream
from sam.sim.engine import simulate
from sam.sim.harness import run_block

ENGINES = ["reference", "fast"]


@dataclass
class Pair:
    """A supported producer -> consumer pair, its operands' orders and numpy's composition."""

    producer: str
    consumer: str
    tensor: str
    operands: dict[str, int]  # name -> number of modes
    gold: Callable[[dict[str, np.ndarray]], np.ndarray]
    formats: dict[str, str] = field(default_factory=dict)
    schedules: dict[str, list[str]] | None = None

    def fuse(self) -> Graph:
        return fused(next(k for k, p in PAIRS.items() if p is self))


@cache
def fused(name: str) -> Graph:
    """The fused graph of ``PAIRS[name]`` (compiled once; simulations do not change it)."""
    pair = PAIRS[name]
    return fuse_edge(pair.producer, pair.consumer, pair.tensor, pair.formats, pair.schedules)


PAIRS = {
    "gustavson-chain": Pair(
        "T(i,k)=A(i,j)*B(j,k)", "Y(i,l)=T(i,k)*C(k,l)", "T", {"A": 2, "B": 2, "C": 2},
        lambda d: d["A"] @ d["B"] @ d["C"]),
    "spmv-chain": Pair(
        "t(i)=A(i,j)*x(j)", "y(i)=t(i)*d(i)", "t", {"A": 2, "x": 1, "d": 1},
        lambda d: (d["A"] @ d["x"]) * d["d"]),
    "elementwise": Pair(
        "T(i,j)=A(i,k)*B(k,j)", "Y(i,j)=T(i,j)*C(i,j)", "T", {"A": 2, "B": 2, "C": 2},
        lambda d: (d["A"] @ d["B"]) * d["C"], formats={"C": "ds"}),
    "spmv-plus": Pair(
        "t(i)=A(i,j)*x(j)", "y(i)=t(i)+d(i)", "t", {"A": 2, "x": 1, "d": 1},
        lambda d: d["A"] @ d["x"] + d["d"]),
    "bias-chain": Pair(
        "t(i)=A(i,j)*x(j)+b(i)", "y(i)=t(i)*d(i)", "t", {"A": 2, "x": 1, "b": 1, "d": 1},
        lambda d: (d["A"] @ d["x"] + d["b"]) * d["d"]),
    "ttv-chain": Pair(
        "T(i,j,k)=A(i,j,k)*B(i,j,k)", "Y(i,j)=T(i,j,k)*c(k)", "T", {"A": 3, "B": 3, "c": 1},
        lambda d: np.einsum("ijk,k->ij", d["A"] * d["B"], d["c"])),
    "elementwise-located": Pair(
        "T(i,j)=A(i,j)*B(i,j)", "Y(i,j)=T(i,j)*C(i,j)", "T", {"A": 2, "B": 2, "C": 2},
        lambda d: d["A"] * d["B"] * d["C"], formats={"C": "dd"}),
    "gcn-xw-first": Pair(
        "XW(n,h)=X(n,f)*W(f,h)", "Y(i,h)=A(i,n)*XW(n,h)", "XW", {"X": 2, "W": 2, "A": 2},
        lambda d: d["A"] @ (d["X"] @ d["W"]), formats={"A": "ds:1,0"},
        schedules={"consumer": ["reorder(n,h,i)"]}),
    "elementwise-streamed": Pair(
        "T(i,j)=A(i,k)*B(k,j)", "Y(i,j)=T(i,j)*C(i,j)", "T", {"A": 2, "B": 2, "C": 2},
        lambda d: (d["A"] @ d["B"]) * d["C"]),
    "union-streamed": Pair(
        "T(i,j)=A(i,k)*B(k,j)", "Y(i,j)=T(i,j)+C(i,j)", "T", {"A": 2, "B": 2, "C": 2},
        lambda d: d["A"] @ d["B"] + d["C"]),
    "transposed-product": Pair(
        "T(i,k)=A(i,j)*B(j,k)", "Y(k,l)=T(i,k)*C(i,l)", "T", {"A": 2, "B": 2, "C": 2},
        lambda d: (d["A"] @ d["B"]).T @ d["C"]),
    "outer-product-producer": Pair(
        "T(i,j)=A(i,k)*B(k,j)", "Y(i,j)=T(i,j)*C(i,j)", "T", {"A": 2, "B": 2, "C": 2},
        lambda d: (d["A"] @ d["B"]) * d["C"], schedules={"producer": ["reorder(k,i,j)"]}),
    "order3-streamed": Pair(
        "T(i,j,k)=A(i,j,k)*B(i,j,k)", "Y(i,j,k)=T(i,j,k)*C(i,j,k)", "T",
        {"A": 3, "B": 3, "C": 3}, lambda d: d["A"] * d["B"] * d["C"]),
    "gcn-xw-first-csc": Pair(
        "XW(n,h)=X(n,f)*W(f,h)", "Y(i,h)=A(i,n)*XW(n,h)", "XW", {"X": 2, "W": 2, "A": 2},
        lambda d: d["A"] @ (d["X"] @ d["W"]), formats={"A": "ss:1,0"},
        schedules={"consumer": ["reorder(n,h,i)"]}),
    "ata-chain": Pair(  # y = A^T (A x): the consumer reads A too
        "t(i)=A(i,j)*x(j)", "y(j)=t(i)*A(i,j)", "t", {"A": 2, "x": 1},
        lambda d: d["A"].T @ (d["A"] @ d["x"])),
    "constants": Pair(  # both statements name their constant const0: renamed apart
        "T(i,j)=2*A(i,j)", "Y(i,j)=T(i,j)*3*C(i,j)", "T", {"A": 2, "C": 2},
        lambda d: 6 * d["A"] * d["C"]),
    "gcn-ax-first": Pair(
        "AX(i,f)=A(i,n)*X(n,f)", "Y(i,h)=AX(i,f)*W(f,h)", "AX", {"A": 2, "X": 2, "W": 2},
        lambda d: d["A"] @ d["X"] @ d["W"]),
}


#: pairs whose consumer merges the intermediate above its last level (besides ``*-streamed``)
STREAMED = {"transposed-product", "outer-product-producer", "gcn-xw-first-csc", "constants"}


def shapes(pair: Pair, sizes: dict[str, int]) -> dict[str, tuple[int, ...]]:
    """Operand shapes from the statements' index variables and ``sizes`` (per variable)."""
    out = {}
    for text in (pair.producer, pair.consumer):
        for acc in custard.api.parse_expression(text).rhs.accesses():
            if acc.name in pair.operands:
                out[acc.name] = tuple(sizes[v] for v in acc.indices)
    return out


def bind(graph: Graph, dense: dict[str, np.ndarray]) -> dict[str, Tensor]:
    return {n: Tensor.from_dense(dense[n], graph.formats.get(n)) for n in input_tensors(graph)}


def run_fused(graph: Graph, dense: dict[str, np.ndarray], engine: str):
    again = loads(dumps(graph))  # through DOT text: what sam-sim runs
    assert again.signature() == graph.signature()
    return simulate(again, bind(again, dense), engine=engine)


def random_dense(shape: tuple[int, ...], density: float, rng: np.random.Generator
                 ) -> np.ndarray:
    return np.where(rng.random(shape) < density, rng.integers(1, 9, shape), 0).astype(float)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", list(PAIRS))
@settings(max_examples=10, deadline=None, database=None)
@given(sizes=st.lists(st.integers(1, 5), min_size=4, max_size=4),
       density=st.sampled_from([0.0, 0.3, 0.7, 1.0]), seed=st.integers(0, 2**16))
def test_fused_equals_numpy_on_random_inputs(name, engine, sizes, density, seed):
    pair = PAIRS[name]
    graph = pair.fuse()
    variables = sorted({v for t in (pair.producer, pair.consumer)
                        for a in custard.api.parse_expression(t).rhs.accesses()
                        for v in a.indices})
    size = dict(zip(variables, sizes * 2, strict=False))
    rng = np.random.default_rng(seed)
    dense = {n: random_dense(s, density, rng) for n, s in shapes(pair, size).items()}
    result = run_fused(graph, dense, engine)
    (out,) = result.outputs.values()
    assert np.allclose(out.to_dense(), pair.gold(dense))


@pytest.mark.parametrize("name", list(PAIRS))
def test_no_writer_scanner_or_load_of_the_intermediate(name):
    pair = PAIRS[name]
    graph = pair.fuse()
    t = pair.tensor
    assert not [b for b in graph.blocks.values() if b.tensor == t]
    assert t not in input_tensors(graph) and t not in graph.formats
    consumer = custard.compile(pair.consumer, {k: v for k, v in pair.formats.items()
                                               if k in pair.consumer},
                               schedule=(pair.schedules or {}).get("consumer"))
    assert output_tensors(graph) == [consumer.attrs["expression"].split("(")[0]]
    counts = graph.count()
    order = len(custard.api.parse_expression(pair.producer).lhs.indices)
    assert counts["retype"] == 2 and counts["fiberalign"] == order
    # T merged with other operands above its last level: every level read by a stream scanner
    streamed = counts.get("fiberstream", 0)
    assert streamed == (order if "streamed" in name or name in STREAMED else 0)
    assert graph.attrs[FUSED_TENSOR_ATTR] == t
    # the unfused graphs do have T's writers, scanners and load: fusion removed exactly those
    # and added the two retype nodes and an aligner per level
    producer = custard.compile(pair.producer, {k: v for k, v in pair.formats.items()
                                               if k in pair.producer},
                               schedule=(pair.schedules or {}).get("producer"))
    written = [b for b in producer.blocks.values() if b.tensor == t]
    read = [b for b in consumer.blocks.values()
            if b.tensor == t and b.dot_type in ("fiberlookup", "arrayvals")]
    assert {b.dot_type for b in written} == {"fiberwrite"} and len(written) == len(read)

    def blocks(g: Graph) -> int:
        return sum(n for k, n in g.count().items() if k != "broadcast")

    assert blocks(graph) == blocks(producer) + blocks(consumer) - len(written) - len(read) \
        + 2 + order + streamed


def test_shipped_matrices():
    """west0067 for the matrix chains, karate for GCN (both associations), the order-4
    sttid-Rnd1 (its first three modes summed over the fourth) for the order-3 chain."""
    assert {"west0067", "karate", "sttid-Rnd1-zerobased"} <= set(names())
    rng = np.random.default_rng(7)
    west = load_tensor("west0067", "ss").to_dense()
    karate = load_tensor("karate", "ss").to_dense()
    n = karate.shape[0]
    rnd4 = load_tensor("sttid-Rnd1-zerobased", "ssss").to_dense().sum(axis=3)
    cases = {
        "gustavson-chain": {"A": west, "B": west.T.copy(), "C": random_dense((67, 3), .5, rng)},
        "spmv-chain": {"A": west, "x": random_dense((67,), .8, rng),
                       "d": random_dense((67,), .8, rng)},
        "elementwise": {"A": west, "B": west, "C": west.T.copy()},
        "spmv-plus": {"A": west, "x": random_dense((67,), .8, rng),
                      "d": random_dense((67,), .5, rng)},
        "bias-chain": {"A": west, "x": random_dense((67,), .8, rng),
                       "b": random_dense((67,), .5, rng), "d": random_dense((67,), .5, rng)},
        "elementwise-located": {"A": west, "B": west.T.copy(), "C": random_dense(west.shape, .5,
                                                                                  rng)},
        "ttv-chain": {"A": rnd4, "B": np.where(rnd4 != 0, rnd4 + 1, 0),
                      "c": random_dense((10,), .6, rng)},
        "elementwise-streamed": {"A": west, "B": west, "C": west.T.copy()},
        "union-streamed": {"A": west, "B": west, "C": west.T.copy()},
        "transposed-product": {"A": west, "B": west.T.copy(),
                               "C": random_dense((67, 3), .5, rng)},
        "outer-product-producer": {"A": west, "B": west, "C": west.T.copy()},
        "order3-streamed": {"A": rnd4, "B": np.where(rnd4 > 1, rnd4, 0), "C": rnd4.T.copy()},
        "gcn-xw-first-csc": {"A": karate, "X": random_dense((n, 6), .3, rng),
                             "W": random_dense((6, 4), .8, rng)},
        "constants": {"A": west, "C": west.T.copy()},
        "ata-chain": {"A": west, "x": random_dense((67,), .7, rng)},
        "gcn-xw-first": {"A": karate, "X": random_dense((n, 6), .3, rng),
                         "W": random_dense((6, 4), .8, rng)},
        "gcn-ax-first": {"A": karate, "X": random_dense((n, 6), .3, rng),
                         "W": random_dense((6, 4), .8, rng)},
    }
    assert set(cases) == set(PAIRS)
    for name, dense in cases.items():
        pair = PAIRS[name]
        for engine in ENGINES:
            (out,) = run_fused(pair.fuse(), dense, engine).outputs.values()
            assert np.allclose(out.to_dense(), pair.gold(dense)), (name, engine)


REFUSED = [
    (("T(i,k)=A(i,j)*B(j,k)", "Y(i,l)=T(i,k)*C(k,l)", "T", None,
      {"consumer": ["reorder(k,i,l)"]}),
     "cannot fuse T: consumer iterates k before i (swizzle); run it sequentially through "
     "memory"),
    (("T(i,j)=A(i,k)*B(k,j)", "Y(i,j)=T(i,j)*C(i,j)", "T", {"T": "ss:1,0"}, None),
     "cannot fuse T: consumer iterates i before j (swizzle); run it sequentially through "
     "memory"),
    (("XW(n,h)=X(n,f)*W(f,h)", "Y(i,h)=A(i,n)*XW(n,h)", "XW", None, None),
     "cannot fuse XW: the consumer's loop i (not an index of XW) encloses XW's loops, so XW "
     "would be read again for each i; put n,h outermost or run it sequentially through memory"),
    (("T(i,j)=A(i,k)*B(k,j)", "Y(i,j)=T(i,j)*C(i,j)", "T", {"T": "ds"}, None),
     "cannot fuse T: its level 0 (ds:0,1) is dense, whose scan visits every coordinate while "
     "the producer streams only those it computes; give T compressed levels (-f=T:ss)"),
    (("T(i,j)=A(i,k)*B(k,j)", "Y(i,j)=T(i,j)*T(i,j)", "T", None, None),
     "cannot fuse T: the consumer reads it 2 times; one stream feeds one read, run it "
     "sequentially through memory"),
    (("T(i,j)=2*A(i,j)", "Y(i,j)=T(i,j)*C(i,j)+3", "T", {"C": "ds"}, None),
     "cannot fuse T: the consumer reads T's level at i twice (its streams feed two merges); "
     "one stream feeds one read, run it sequentially through memory"),
    (("T(i,j)=A(i,k)*B(k,j)", "Y(i,j)=U(i,j)*C(i,j)", "T", None, None),
     "cannot fuse T: the consumer Y does not read T"),
    (("T(i,j)=A(i,k)*B(k,j)", "Y(i,j)=T(i,j)*C(i,j)", "T", None, ["reorder(i,j)"]),
     "schedules must map 'producer' and/or 'consumer' to -s commands, e.g. "
     "{'consumer': ['reorder(n,h,i)']}"),
    (("T(i,j)=A(i,k)*B(k,j)", "Y(i,j)=T(i,j)*C(i,j)", "T", None, {"consumer": ["skip()"]}),
     "cannot fuse T: the consumer's intersecters skip ahead in T's levels (-s skip), which a "
     "stream cannot do; leave T out of skip(...) or run it sequentially through memory"),
    (("T(i,j)=A(i,k)*B(k,j)", "Y(i,j)=T(i,j)*C(i,j)", "T", {"Z": "ss"}, None),
     "format given for Z, which is in neither statement (tensors: A, B, C, T, Y)"),
    (("T(i,j)=A(i,k)*B(k,j", "Y(i,j)=T(i,j)*C(i,j)", "T", None, None),
     "producer T(i,j)=A(i,k)*B(k,j: column 20: expected ')' after index 'j' of B, found the "
     "end in 'T(i,j)=A(i,k)*B(k,j'"),
    (("T(i,j)=A(i,k)*B(k,j)", "Y(i,j)=T(i,j)*C(i,j)", "T", None, {"producer": "bogus(i)"}),
     "producer T(i,j)=A(i,k)*B(k,j): bogus(i): unknown scheduling command 'bogus'; TACO's are "
     "reorder, split, divide, fuse, pos, parallelize, precompute, bound, unroll, assemble, "
     "mergeby, skip"),
    (("t=A(i)*x(i)", "y(i)=t*d(i)", "t", None, None),
     "cannot fuse t: it is a scalar (no index variables); run it sequentially through memory"),
]


@pytest.mark.parametrize(("args", "reason"), REFUSED)
def test_refusals_are_one_line(args, reason):
    with pytest.raises(CompileError) as info:
        fuse_edge(*args)
    assert str(info.value) == reason and "\n" not in reason
    assert fusion_refusal(*args) == reason


def test_fusion_refusal_is_none_for_supported_pairs():
    for pair in PAIRS.values():
        assert fusion_refusal(pair.producer, pair.consumer, pair.tensor, pair.formats,
                              pair.schedules) is None


def test_retype_rejects_unknown_kinds():
    with pytest.raises(GraphError, match="is not a stream kind"):
        loads('digraph SAM { 0 [type="retype" from="val" to="foo"] }')


def gcn_cycles(engine: str) -> tuple[int, int, int]:
    """Cycles of the GCN layer Y = A (X W) on karate: fused, and as a program of two graphs
    (the producer's phase, the consumer's phase)."""
    pair = PAIRS["gcn-xw-first"]
    rng = np.random.default_rng(3)
    karate = load_tensor("karate", "ss").to_dense()
    dense = {"A": karate, "X": random_dense((karate.shape[0], 8), .25, rng),
             "W": random_dense((8, 4), .8, rng)}
    fused = run_fused(pair.fuse(), dense, engine)
    first = custard.compile(pair.producer)
    second = custard.compile(pair.consumer, pair.formats, schedule=pair.schedules["consumer"])
    first.name, second.name = "XW", "Y"
    program = Program([first, second])
    tensors = {n: Tensor.from_dense(dense[n], g.formats.get(n))
               for g in (first, second) for n in input_tensors(g) if n in dense}
    seq = program.run(tensors, engine=engine)
    gold = pair.gold(dense)
    assert np.allclose(fused.outputs["Y"].to_dense(), gold)
    assert np.allclose(seq.outputs["Y"].to_dense(), gold)
    return fused.cycles, seq.phase_cycles[0], seq.phase_cycles[1]


def test_gcn_cycles_fused_vs_unfused():
    fused, producer, consumer = gcn_cycles("fast")
    assert gcn_cycles("reference") == (fused, producer, consumer)
    # the fused graph overlaps the two operations: fewer cycles than running them in turn,
    # and at least as many as the longer of the two
    assert max(producer, consumer) <= fused < producer + consumer


# ------------------------------------------------------------------ the two blocks fusion adds
ALIGNED = [
    # (level above in scanner form, the stream to align, the stream a scanner would give)
    ("0, 1, S0, D", "3, 4, S0, 5, S1, D", "3, 4, S0, 5, S1, D"),
    ("0, S0, 2, S1, D", "5, S1, S2, 6, S2, D", "5, S1, 6, S2, D"),  # a lone mark skipped
    ("0, S0, S1, D", "4, S1, D", "4, S1, S2, D"),  # an empty fiber above: a lone S2
    ("S0, D", "S1, D", "S1, D"),  # nothing at all
    ("S0, D", "D", "S1, D"),
]


ROOT_ALIGNED = [("3, 5, S0, D", "3, 5, S0, D"), ("S0, D", "S0, D"), ("D", "S0, D")]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("outer", "inner", "want"), ALIGNED)
def test_aligner_gives_scanner_form(outer, inner, want, engine):
    block = FiberAligner("0", {})
    out = run_block(block, {"crd:outer": outer, "crd:inner": inner}, engine=engine)
    assert out["crd"] == want


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("inner", "want"), ROOT_ALIGNED)
def test_root_aligner(inner, want, engine):
    out = run_block(FiberAligner("0", {"root": "true"}), {"crd:inner": inner}, engine=engine)
    assert out["crd"] == want


@pytest.mark.parametrize(("outer", "inner"), [("0, 1, S0, D", "3, S0, D"),
                                              ("0, S0, D", "3, S0, 4, S0, D")])
def test_aligner_refuses_misaligned_streams(outer, inner):
    with pytest.raises(SimulationError, match="fewer fibers than the level above"):
        run_block(FiberAligner("0", {}), {"crd:outer": outer, "crd:inner": inner})


@pytest.mark.parametrize("engine", ENGINES)
def test_retype_shaped_and_plain(engine):
    shaped = run_block(Retype("0", {"from": "val", "to": "ref"}),
                       {"val": "1.5, S0, S0, 2.5, -3.0, S1, D", "crd": "3, S0, 4, 7, S1, D"},
                       engine=engine)
    words = [t for t in shaped.tokens["ref"] if isinstance(t, int)]
    assert np.array(words, np.int64).view(np.float64).tolist() == [1.5, 2.5, -3.0]
    shape = [0 if isinstance(t, int) else t for t in shaped.tokens["ref"]]
    assert format_stream(shape) == "0, S0, 0, 0, S1, D"  # the coordinates' stops, not the values'
    back = run_block(Retype("1", {"from": "ref", "to": "val"}), {"ref": shaped.tokens["ref"]},
                     engine=engine)
    assert back["val"] == "1.5, S0, 2.5, -3, S1, D"
    with pytest.raises(SimulationError, match="one value per coordinate"):
        run_block(Retype("2", {"from": "val", "to": "ref"}),
                  {"val": "1.5, D", "crd": "3, 4, S0, D"})


def test_sam_sim_checks_a_fused_graph(tmp_path, capsys):
    """The fused graph's ``expression`` is the composed statement: ``sam-sim run --check``
    computes it with numpy and compares."""
    from sam.cli import main

    path = tmp_path / "fused.gv"
    path.write_text(dumps(PAIRS["gustavson-chain"].fuse()))
    assert PAIRS["gustavson-chain"].fuse().attrs["expression"] == "Y(i,l)=A(i,j)*B(j,k)*C(k,l)"
    code = main(["run", str(path), "-t", "A=west0067", "-t", "B=A^T", "-t",
                 "C=random:0.5:1:67x5", "--check", "--engine", "reference", "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0 and "PASS" in out


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=25, deadline=None, database=None)
@given(data=st.data())
def test_stream_scanner_equals_level_scanner(engine, data):
    """For any increasing references (with empty references and stops), a stream scanner over
    a level's full scan gives what the level scanner gives (coordinates and positions); over the
    root stream, what the root scanner gives."""
    rows, cols = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 5))
    mask = data.draw(st.lists(st.booleans(), min_size=rows * cols, max_size=rows * cols))
    dense = np.array(mask, float).reshape(rows, cols) * np.arange(1, rows * cols + 1).reshape(
        rows, cols)
    tensors = {"T": Tensor.from_dense(dense, "ss")}
    root = run_block(LevelScanner("0", {"tensor": "T", "mode": "0", "root": "true"}), {},
                     tensors)
    streamed_root = run_block(StreamScanner("1", {"root": "true"}), {"crd": root.tokens["crd"]},
                              engine=engine)
    assert (streamed_root["crd"], streamed_root["ref"]) == (root["crd"], root["ref"])
    n = sum(1 for t in root.tokens["crd"] if isinstance(t, int))
    full = run_block(LevelScanner("2", {"tensor": "T", "mode": "1"}),
                     {"ref": ", ".join([*map(str, range(n)), "S0", "D"])}, tensors)
    refs: list[str] = []
    for r in range(n):
        pick = data.draw(st.sampled_from(["ref", "ref", "skip", "N"]))
        refs += [str(r)] if pick == "ref" else (["N"] if pick == "N" else [])
        if data.draw(st.booleans()):
            refs.append("S0")
    refs += [data.draw(st.sampled_from(["S0", "S1"])), "D"]
    text = ", ".join(refs)
    want = run_block(LevelScanner("3", {"tensor": "T", "mode": "1"}), {"ref": text}, tensors)
    got = run_block(StreamScanner("4", {}), {"ref": text, "crd": full.tokens["crd"]},
                    engine=engine)
    assert (got["crd"], got["ref"]) == (want["crd"], want["ref"])


def test_stream_scanner_refuses_going_back_or_past_the_end():
    with pytest.raises(SimulationError, match="below one already passed"):
        run_block(StreamScanner("0", {}), {"ref": "1, 0, S0, D", "crd": "4, S0, 5, S0, 6, S1, D"})
    with pytest.raises(SimulationError, match="past the end of the stream"):
        run_block(StreamScanner("0", {}), {"ref": "3, S0, D", "crd": "4, S0, 5, S1, D"})


def test_implicit_inputs_renamed_apart():
    """Each statement names its constants const0, const1, ...: the consumer's that clash with
    the producer's (another value) are renamed; equal ones are shared."""
    assert PAIRS["constants"].fuse().attrs["constants"] == "const0=2.0,const0_c=3.0"
    same = fuse_edge("T(i,j)=2*A(i,j)", "Y(i,j)=T(i,j)*2*C(i,j)", "T")
    assert same.attrs["constants"] == "const0=2.0"
