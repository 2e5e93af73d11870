"""TMU and execute blocks (issue 14; Ember paper Sec. 3-4, Figures 9, 10, 14; docs/tmu.md).

Figure 10's EmbeddingBag in both output modes and both engines: in ``sam`` mode the TMU's streams
equal, token for token, those of the SAM chain of scanners, a locator, repeaters and array loads
(written out below in the paper's notation), also with an empty segment; in ``dae`` mode the
scalar (O0) marshaling of Figure 10b/d gives 12 ``ite`` tokens + done and 36 data entries. Every
Table 1 operation equals numpy/scipy on random CSR inputs and on west0479; bounded queues give
the same results and report stalls; bad configurations are one-line errors.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import sam.graph.registry  # noqa: F401
from formats import Tensor
from formats.io import load_tensor
from sam.blocks.arrays import ArrayLoad
from sam.blocks.locators import Locator
from sam.blocks.repeaters import Repeater, RepeatSignalGenerator
from sam.blocks.scanners import LevelScanner
from sam.blocks.tmu import Tmu, queue_trace
from sam.blocks.tmu_config import (
    Alu,
    DenseTU,
    Layer,
    Mem,
    Operand,
    RangeTU,
    TmuConfig,
    Token,
)
from sam.errors import GraphError
from sam.graph.dot import dumps, loads
from sam.sim.engine import simulate
from sam.sim.harness import run_block
from sam.tmu_ops import OPS, build_op, reference, sam_graph, sls_config, tmu_graph

ENGINES = ("reference", "fast")
TABLE = np.arange(1, 25, dtype=float).reshape(6, 4)  # rows A-D, E-H, ..., U-X of Figure 10
FIG10 = [[10, 12, 14, 16], [21, 22, 23, 24]]


def fig10(ptrs=(0, 2, 3), idxs=(0, 2, 5)) -> dict[str, Tensor]:
    A = sp.csr_matrix((np.ones(len(idxs)), idxs, ptrs), shape=(len(ptrs) - 1, 6))
    return {"A": Tensor.from_scipy(A, "ds"), "B": Tensor.from_dense(TABLE, "dd")}


# ---------------------------------------------------------------------- sam mode
#: The TMU's streams for Figure 10 (ptrs=[0,2,3]) and with an empty segment (ptrs=[0,2,2,3]):
#: b (batch TU: a dense scanner's coordinates), s / idx (segment TU: a compressed scanner's
#: references / coordinates), w (A's values: an array load), e / pos (element TU: a dense
#: scanner's coordinates / references), v (the table: an array load), bs / be (b forwarded into
#: the segment and element layers: repeaters).
EXPECTED = {
    (0, 2, 3): {
        "crd:b": "0, 1, S0, D",
        "ref:s": "0, 1, S0, 2, S1, D",
        "crd:idx": "0, 2, S0, 5, S1, D",
        "val:w": "1, 1, S0, 1, S1, D",
        "crd:e": "0, 1, 2, 3, S0, 0, 1, 2, 3, S1, 0, 1, 2, 3, S2, D",
        "ref:pos": "0, 1, 2, 3, S0, 8, 9, 10, 11, S1, 20, 21, 22, 23, S2, D",
        "val:v": "1, 2, 3, 4, S0, 9, 10, 11, 12, S1, 21, 22, 23, 24, S2, D",
        "ref:bs": "0, 0, S0, 1, S1, D",
        "ref:be": "0, 0, 0, 0, S0, 0, 0, 0, 0, S1, 1, 1, 1, 1, S2, D",
    },
    (0, 2, 2, 3): {
        "crd:b": "0, 1, 2, S0, D",
        "ref:s": "0, 1, S0, S0, 2, S1, D",
        "crd:idx": "0, 2, S0, S0, 5, S1, D",
        "val:w": "1, 1, S0, S0, 1, S1, D",
        "crd:e": "0, 1, 2, 3, S0, 0, 1, 2, 3, S1, S1, 0, 1, 2, 3, S2, D",
        "ref:pos": "0, 1, 2, 3, S0, 8, 9, 10, 11, S1, S1, 20, 21, 22, 23, S2, D",
        "val:v": "1, 2, 3, 4, S0, 9, 10, 11, 12, S1, S1, 21, 22, 23, 24, S2, D",
        "ref:bs": "0, 0, S0, S0, 2, S1, D",
        "ref:be": "0, 0, 0, 0, S0, 0, 0, 0, 0, S1, S1, 2, 2, 2, 2, S2, D",
    },
}


def sam_chain(tensors: dict[str, Tensor], engine: str) -> dict[str, str]:
    """The SAM chain the sam-mode SLS TMU stands for, block by block (SAM paper Defs. 3.1,
    3.4, 3.5, 4.1): A's dense row scanner, A's compressed scanner, a locator of its coordinates
    into the table's rows, the table's dense element scanner, two array loads, repeaters."""
    def run(block, inputs):
        return run_block(block, inputs, tensors, engine=engine)

    s0 = run(LevelScanner("0", {"tensor": "A", "mode": "0", "format": "dense", "root": "true"}),
             {})
    s1 = run(LevelScanner("1", {"tensor": "A", "mode": "1", "format": "compressed"}),
             {"ref": s0["ref"]})
    loc = run(Locator("2", {"tensor": "B", "mode": "0", "format": "dense"}), {"crd": s1["crd"]})
    s2 = run(LevelScanner("3", {"tensor": "B", "mode": "1", "format": "dense"}),
             {"ref": loc["ref:out-B"]})
    v = run(ArrayLoad("4", {"tensor": "B"}), {"ref": s2["ref"]})
    w = run(ArrayLoad("5", {"tensor": "A"}), {"ref": s1["ref"]})
    sig1 = run(RepeatSignalGenerator("6", {}), {"crd": s1["crd"]})
    bs = run(Repeater("7", {}), {"ref": s0["ref"], "repsig": sig1["repsig"]})
    sig2 = run(RepeatSignalGenerator("8", {}), {"crd": s2["crd"]})
    be = run(Repeater("9", {}), {"ref": bs["ref"], "repsig": sig2["repsig"]})
    return {"crd:b": s0["crd"], "ref:s": s1["ref"], "crd:idx": s1["crd"], "val:w": w["val"],
            "crd:e": s2["crd"], "ref:pos": s2["ref"], "val:v": v["val"], "ref:bs": bs["ref"],
            "ref:be": be["ref"]}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("ptrs", [(0, 2, 3), (0, 2, 2, 3)])
def test_sam_mode_streams_equal_the_sam_chain(engine, ptrs):
    tensors = fig10(ptrs)
    tmu = run_block(Tmu.of("t", sls_config("sam")), {}, tensors, engine=engine)
    chain = sam_chain(tensors, engine)
    for port, expected in EXPECTED[ptrs].items():
        assert tmu[port] == expected, port
        assert chain[port] == expected, port


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("ptrs", [(0, 2, 3), (0, 2, 2, 3)])
def test_sam_mode_feeds_a_sam_graph(engine, ptrs):
    want = np.array(FIG10) if len(ptrs) == 3 else np.array([FIG10[0], [0] * 4, FIG10[1]])
    free = simulate(sam_graph((len(ptrs) - 1, 4)), fig10(ptrs), engine=engine)
    bounded = simulate(sam_graph((len(ptrs) - 1, 4)), fig10(ptrs), engine=engine, fifo_depth=1)
    for res in (free, bounded):
        np.testing.assert_array_equal(res.outputs["Z"].to_dense(), want)
    assert bounded.blocks["0"].stalled > 0 and bounded.cycles > free.cycles


# ---------------------------------------------------------------------- dae mode
FIG10_DATA = [0, 0, 1, 0, 1, 2, 0, 2, 3, 0, 3, 4,          # b, e, v: A B C D
              0, 0, 9, 0, 1, 10, 0, 2, 11, 0, 3, 12,       # I J K L
              1, 0, 21, 1, 1, 22, 1, 2, 23, 1, 3, 24]      # U V W X


@pytest.mark.parametrize("engine", ENGINES)
def test_dae_mode_figure10_queues_and_result(engine):
    tensors = fig10()
    trace = queue_trace(sls_config(), tensors, engine=engine)
    assert trace.ctrl == ["ite"] * 12 + ["done"]
    assert trace.data == FIG10_DATA
    graph, tensors = build_op("sls", tensors["A"], tensors["B"])
    res = simulate(graph, tensors, engine=engine)
    np.testing.assert_array_equal(res.outputs["Z"].to_dense(), FIG10)
    tmu = res.blocks["0"].details
    assert tmu["queue.ctrl.entries"] == 13 and tmu["queue.data.entries"] == 36
    assert (tmu["tu.b.iterations"], tmu["tu.s.iterations"], tmu["tu.e.iterations"]) == (2, 3, 12)
    assert (tmu["tu.s.fibers"], tmu["tu.e.fibers"]) == (2, 3)
    ex = res.blocks["1"].details
    assert ex["token.ite.count"] == 12 and ex["token.ite.pops"] == 36
    assert res.blocks["0"].stalled == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_fifo_depth_one_same_result_with_stalls(engine):
    graph, tensors = build_op("sls", **{k: v for k, v in fig10().items()})
    free = simulate(graph, tensors, engine=engine)
    bounded = simulate(graph, tensors, engine=engine, fifo_depth=1)
    np.testing.assert_array_equal(bounded.outputs["Z"].to_dense(), FIG10)
    assert bounded.blocks["0"].stalled > 0
    assert bounded.blocks["0"].details["queue.data.stalls"] > 0
    assert bounded.blocks["1"].details["queue.data.max_occupancy"] == 1
    assert bounded.cycles > free.cycles


@pytest.mark.parametrize("engine", ENGINES)
def test_vectorized_figure14b(engine):
    """Two lanes (Figure 14b): per ``ite`` the scalars b, e and a vector of two values; a
    three-lane layer masks the tail of each 4-element row."""
    tensors = fig10()
    trace = queue_trace(sls_config(lanes=2), tensors, engine=engine)
    assert trace.ctrl == ["ite"] * 6 + ["done"]
    on = (True, True)
    assert trace.data[:6] == [0, 0, ((1, 2), on), 0, 2, ((3, 4), on)]
    trace3 = queue_trace(sls_config(lanes=3), tensors, engine=engine)
    assert trace3.data[:6] == [0, 0, ((1, 2, 3), (True,) * 3),
                               0, 3, ((4, 0, 0), (True, False, False))]
    for lanes in (2, 3, 4, 5):
        graph, t = build_op("sls", tensors["A"], tensors["B"], lanes=lanes)
        res = simulate(graph, t, engine=engine)
        np.testing.assert_array_equal(res.outputs["Z"].to_dense(), FIG10)
        assert res.blocks["0"].details["lane.0.active"] > 0


# ---------------------------------------------------------------------- Table 1 operations
def random_inputs(op: str, seed: int, rows: int, cols: int, dim: int, density: float,
                  blk: int = 1):
    rng = np.random.default_rng(seed)
    A = sp.random(rows, cols, density=density, format="csr", random_state=rng)
    A.data = np.round(rng.uniform(-2, 2, A.nnz), 3)
    B = np.round(rng.uniform(-3, 3, (cols * (blk if op == "gather" else 1), dim)), 3)
    X = np.round(rng.uniform(-3, 3, (rows, dim)), 3)
    if op == "kg":  # triples: head = row, tail = column, relation = value (a row of X)
        A.data = rng.integers(0, rows, A.nnz).astype(float)
        B = np.round(rng.uniform(-3, 3, (max(rows, cols), dim)), 3)
    return A, B, X


def run_op(op: str, A, B, X, engine: str, blk: int = 1, lanes: int = 1, fifo=None):
    graph, tensors = build_op(op, Tensor.from_scipy(A, "ds"), Tensor.from_dense(B, "dd"),
                              Tensor.from_dense(X, "dd") if op in ("mp", "kg") else None,
                              lanes=lanes, blk=blk)
    return simulate(graph, tensors, engine=engine, fifo_depth=fifo)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("op", OPS)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), rows=st.integers(1, 6), cols=st.integers(1, 7),
       dim=st.integers(1, 5), density=st.floats(0.0, 0.8), blk=st.integers(1, 3),
       lanes=st.integers(1, 3))
def test_table1_operations_equal_numpy(engine, op, seed, rows, cols, dim, density, blk, lanes):
    A, B, X = random_inputs(op, seed, rows, cols, dim, density, blk)
    res = run_op(op, A, B, X, engine, blk=blk, lanes=lanes if op != "mp" else 1)
    got = res.outputs["Z"].to_dense()
    want = reference(op, A, B, X, blk=blk)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("op", OPS)
def test_table1_on_west0479(op):
    A = load_tensor("west0479", "ds").to_scipy().tocsr()
    rng = np.random.default_rng(479)
    B = rng.uniform(-1, 1, (479, 32))
    X = rng.uniform(-1, 1, (479, 32))
    if op == "kg":
        A.data = rng.integers(0, 479, A.nnz).astype(float)
    res = run_op(op, A, B, X, "fast", lanes=8 if op != "mp" else 1)
    np.testing.assert_allclose(res.outputs["Z"].to_dense(), reference(op, A, B, X),
                               rtol=1e-9, atol=1e-9)


def test_west0479_sls_reference_engine_and_bounded_queues():
    A = load_tensor("west0479", "ds").to_scipy().tocsr()
    B = np.random.default_rng(7).uniform(-1, 1, (479, 32))
    want = reference("sls", A, B)
    free = run_op("sls", A, B, None, "reference", lanes=16)
    bounded = run_op("sls", A, B, None, "fast", lanes=16, fifo=16)
    for res in (free, bounded):
        np.testing.assert_allclose(res.outputs["Z"].to_dense(), want, rtol=1e-9, atol=1e-9)
    assert bounded.blocks["0"].details["queue.data.stalls"] > 0


@pytest.mark.parametrize("engine", ENGINES)
def test_engines_agree_on_cycles(engine):
    A, B, X = random_inputs("spmm", 3, 9, 11, 6, 0.4)
    ref = run_op("spmm", A, B, X, "reference", fifo=2)
    res = run_op("spmm", A, B, X, engine, fifo=2)
    assert res.cycles == ref.cycles
    assert res.blocks["0"].details == ref.blocks["0"].details


# ---------------------------------------------------------------------- DOT, errors
def test_dot_round_trip_runs_the_same():
    tensors = fig10()
    graph, t = build_op("spmm", tensors["A"], tensors["B"])
    text = dumps(graph)
    assert 'type="tmu"' in text and 'type="execute"' in text
    back = loads(text)
    assert back.blocks["0"].config == graph.blocks["0"].config
    assert dumps(back) == text
    a = simulate(graph, t, engine="reference")
    b = simulate(back, t, engine="reference")
    np.testing.assert_array_equal(a.outputs["Z"].to_dense(), b.outputs["Z"].to_dense())
    assert a.cycles == b.cycles
    sam_text = dumps(sam_graph())
    assert loads(sam_text).blocks["0"].config == sls_config("sam")


def base_layers() -> list[Layer]:
    return [Layer("single", [DenseTU("b", 0, 2)]),
            Layer("single", [RangeTU("s", "beg", "end")])]


BAD = {
    "TU bounded by a stream of a layer that does not exist": (
        TmuConfig(base_layers(), [Mem("beg", "b", "A.1.seg", "b"),
                                  Mem("end", "x", "A.1.seg", "b")]),
        "stream end is on TU x, which no layer holds"),
    "TU bounded by a stream of its own layer": (
        TmuConfig(base_layers(), [Mem("beg", "b", "A.1.seg", "b"),
                                  Alu("end", "s", "+", "s", 1)]),
        "range TU s (layer 1) is bounded by stream end of layer 1"),
    "operand on an unknown event": (
        TmuConfig([Layer("single", [DenseTU("b", 0, 2)])], [],
                  [Operand("b", "b", "iter")]),
        "operand b is pushed on unknown event 'iter' of TU b"),
    "lanes < 1": (
        TmuConfig([Layer("single", [DenseTU("b", 0, 2)], lanes=0)]),
        "layer 0 has 0 lanes; a layer needs lanes >= 1"),
    "token on an unknown TU": (
        TmuConfig([Layer("single", [DenseTU("b", 0, 2)])], tokens=[Token("t", "q", "ite")]),
        "token t is pushed on an event of TU q, which no layer holds"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_configurations_are_one_line_errors(case):
    cfg, message = BAD[case]
    with pytest.raises(GraphError) as err:
        cfg.check()
    assert message in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(GraphError) as err:
        tmu_graph(cfg, out="Z", shape=(2, 2), program="0: x = pop")
    assert "\n" not in str(err.value)


def test_bad_dot_attributes_are_one_line_errors():
    good = dumps(build_op("sls", **fig10())[0])
    for old, new, message in [
        ("single:e:1", "single:e:0", "lanes >= 1"),
        ("v:e:ite", "v:e:during", "unknown event 'during'"),
        ("s=range(beg,end)", "s=range(beg,zz)", "bounded by 'zz', which is not a stream"),
        ("out[b, e] += v", "out[b, e] += q", "register q is read before it is set"),
    ]:
        assert old in good
        with pytest.raises(GraphError) as err:
            loads(good.replace(old, new))
        assert message in str(err.value) and "\n" not in str(err.value)


def test_execute_errors_at_run_time_name_the_problem():
    tensors = fig10()
    cfg = sls_config()
    short = tmu_graph(cfg, out="Z", shape=(2, 4), program="ite: b = pop; e = pop",
                      formats={"A": "ds", "B": "dd"})
    with pytest.raises(Exception) as err:
        simulate(short, tensors, engine="reference")
    assert "pops fewer operands" in str(err.value)
    small = tmu_graph(cfg, out="Z", shape=(1, 4), program="ite: b = pop; e = pop; v = pop; "
                      "out[b, e] += v", formats={"A": "ds", "B": "dd"})
    with pytest.raises(Exception) as err:
        simulate(small, tensors, engine="reference")
    assert "outside the output's shape" in str(err.value)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("lanes", [1, 3])
def test_core_arrays_workspace_and_input_reads(engine, lanes):
    """``array W[N]`` (zeros), ``input B`` (read-only), scalar and vector loads (``W[k..]``: a
    lane past the array is off and 0) and stores into the workspace: Figure 10 accumulated in
    a workspace row by row, then each row of the output is the workspace plus B's row b."""
    tensors = fig10()
    vec = ".." if lanes > 1 else ""
    program = (f"array w[4] | input B | ite: b = pop; e = pop; v = pop; w[e] += v; "
               f"q = w[e{vec}]; y = B[b, e{vec}]; z = q + y; out[b, e] = z")
    graph = tmu_graph(sls_config("dae", lanes), out="Z", shape=(2, 4), program=program,
                      formats={"A": "ds", "B": "dd"})
    res = simulate(graph, tensors, engine=engine)
    w0 = TABLE[0] + TABLE[2]
    assert res.outputs["Z"].to_dense().tolist() == [list(w0 + TABLE[0]),
                                                     list(w0 + TABLE[5] + TABLE[1])]


def test_core_array_errors_are_one_line():
    cfg = sls_config()
    for program, message in [
        ("ite: b = pop; x = w[b]", "w is not a declared array"),
        ("input B | ite: b = pop; B[b, 0] = b", "input B is read-only"),
        ("array w[2] | ite: b = pop; w[b, 0] = b", "w takes 1 index(es)"),
        ("array w | ite: b = pop", "is not 'array NAME[SIZE]'"),
        ("array w[2] | ite: b = pop; w[b..] = b", "drop '..'"),
    ]:
        with pytest.raises(GraphError) as err:
            tmu_graph(cfg, out="Z", shape=(2, 4), program=program, formats={"A": "ds"})
        assert message in str(err.value) and "\n" not in str(err.value)
    tensors = fig10()
    for engine in ENGINES:
        small = tmu_graph(cfg, out="Z", shape=(2, 4), program="array w[2] | ite: b = pop; "
                          "e = pop; v = pop; w[e] += v", formats={"A": "ds", "B": "dd"})
        with pytest.raises(Exception) as err:
            simulate(small, tensors, engine=engine)
        assert "a core array index is outside the array's shape" in str(err.value)


# ---------------------------------------------------------------------- layers, timing, tools
@pytest.mark.parametrize("engine", ENGINES)
def test_lockstep_and_broadcast_layers(engine):
    """A lockstep layer runs its TUs together until the longest ends (the shorter masked); a
    broadcast layer copies each value of its TU to every lane."""
    tensors = fig10()
    lock = TmuConfig(
        [Layer("single", [DenseTU("b", 0, 2)]),
         Layer("lockstep", [DenseTU("x", 0, 3), RangeTU("y", "zero", "b1")])],
        [Alu("zero", "b", "*", "b", 0), Alu("b1", "b", "+", "b", 1)],
        [Operand("x", "x", "ite", vector=True), Operand("y", "y", "ite", vector=True)],
        [Token("go", "x", "ite"), Token("row", "b", "end")])
    trace = queue_trace(lock, tensors, engine=engine)
    on, off = (True,), (False,)
    assert trace.ctrl == ["go"] * 6 + ["row", "done"]
    assert trace.data == [((0,), on), ((0,), on), ((1,), on), ((0,), off), ((2,), on),
                          ((0,), off),
                          ((0,), on), ((0,), on), ((1,), on), ((1,), on), ((2,), on),
                          ((0,), off)]
    bcast = TmuConfig([Layer("single", [DenseTU("b", 0, 2)]),
                       Layer("bcast", [DenseTU("e", 0, 2)], lanes=3)],
                      [Alu("be", "e", "+", "b", "e")],
                      [Operand("be", "e", "ite", vector=True)], [Token(7, "e", "ite")])
    trace = queue_trace(bcast, tensors, engine=engine)
    assert trace.ctrl == [7] * 4 + ["done"]
    assert [values for values, _ in trace.data] == [(0,) * 3, (1,) * 3, (1,) * 3, (2,) * 3]
    assert all(mask == (True,) * 3 for _, mask in trace.data)


@pytest.mark.parametrize("engine", ENGINES)
def test_figure10_cycles_and_memory_latency(engine):
    """Figure 10 by the timing rules: the TMU fires 36 times (one data entry each) plus once for
    done; the execute block takes 12 tokens and 36 pops (one cycle each, starting when the
    first entry arrives in cycle 1) and done: done in cycle 49, 50 cycles. A table load of
    latency 5 delays its entries (and, the queue being in order, every later one) by 4 cycles:
    the first value arrives in cycle 7 instead of 3; the core, which popped it in cycle 4, pops
    it in cycle 7 and stays 3 cycles behind: 53 cycles. Five empty segments cost the batch layer
    a step (a firing) each: 23 cycles (docs/timing-model.md)."""
    tensors = fig10()
    res = simulate(build_op("sls", **tensors)[0], tensors, engine=engine)
    assert res.cycles == 50
    assert (res.blocks["0"].busy, res.blocks["1"].busy, res.blocks["1"].idle) == (37, 49, 1)
    cfg = sls_config()
    cfg.streams[-1] = Mem("v", "e", array="B.vals", index="pos", latency=5)
    slow = tmu_graph(cfg, out="Z", shape=(2, 4), program="ite: b = pop; e = pop; v = pop; "
                     "out[b, e] += v", formats={"A": "ds", "B": "dd"})
    res5 = simulate(slow, tensors, engine=engine)
    np.testing.assert_array_equal(res5.outputs["Z"].to_dense(), FIG10)
    assert res5.cycles == 53
    empty = fig10((0, 0, 0, 0, 0, 0, 1), (3,))
    res = simulate(build_op("sls", **empty)[0], empty, engine=engine)
    assert (res.cycles, res.blocks["0"].busy) == (23, 18)  # a cycle per empty segment
    np.testing.assert_array_equal(res.outputs["Z"].to_dense()[5], [13, 14, 15, 16])


def test_cli_runs_every_operation_and_checks(tmp_path, capsys):
    from sam.cli import main

    for op in OPS:
        code = main(["tmu", "--op", op, "-A", "random:0.3:2:6x5", "--dim", "3", "--blk", "2",
                     "--lanes", "2", "--engine", "reference", "--fifo-depth", "3"])
        out = capsys.readouterr().out
        assert code == 0 and "check: passed" in out and "queue.data.stalls" in out, op
    assert main(["tmu", "--op", "sls", "--queues", "4", "-A", "random:0.5:1:3x6", "--dim", "2",
                 "--engine", "reference"]) == 0
    out = capsys.readouterr().out
    assert "ctrl: ite, ite, ite, ite" in out
    assert main(["tmu", "--op", "sls", "--mode", "sam", "-A", "random:0.5:1:3x6", "--dim", "2",
                 "--engine", "reference"]) == 0
    assert "check: passed" in capsys.readouterr().out
    dot_file = tmp_path / "mp.gv"
    assert main(["tmu", "--op", "mp", "--dot", str(dot_file), "-A", "random:0.5:1:3x6"]) == 0
    assert loads(dot_file.read_text()).blocks["0"].dot_type == "tmu"
    for bad, message in ((["--lanes", "0"], "--lanes 0: give 1 or more"),
                         (["--lanes", "100000000"], "--lanes 100,000,000: at most 1,024 ("),
                         (["--mode", "sam", "--op", "kg"], "--mode sam is built for --op sls"),
                         (["-A", "nosuchmatrix"], "nosuchmatrix")):
        argv = ["tmu", "--op", "sls", *bad]
        if "--op" in bad:
            argv = ["tmu", *bad]
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err


def test_picture_draws_a_tmu_as_one_node_with_its_layers():
    from sam.graph.draw import to_dot

    graph = build_op("sls", **fig10(), lanes=4)[0]
    text = to_dot(graph)
    tmu_lines = [line for line in text.splitlines() if line.strip().startswith("0 [")]
    assert len(tmu_lines) == 1
    assert "TMU (dae)" in tmu_lines[0] and "L2 single x4 lanes: e in [0, B.dim1)" in tmu_lines[0]
    assert "control queue" in text and "data queue" in text


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31), rows=st.integers(1, 5), cols=st.integers(1, 6),
       dim=st.integers(1, 4), density=st.floats(0.0, 0.9))
def test_sam_mode_equals_the_sam_chain_on_random_csr(engine, seed, rows, cols, dim, density):
    A, B, _ = random_inputs("sls", seed, rows, cols, dim, density)
    tensors = {"A": Tensor.from_scipy(A, "ds"), "B": Tensor.from_dense(B, "dd")}
    tmu = run_block(Tmu.of("t", sls_config("sam")), {}, tensors, engine=engine)
    chain = sam_chain(tensors, engine)
    for port, stream in chain.items():
        assert tmu[port] == stream, port
    res = simulate(sam_graph((rows, dim)), tensors, engine=engine)
    np.testing.assert_allclose(res.outputs["Z"].to_dense(), reference("sls", A, B),
                               rtol=1e-12, atol=1e-12)


def test_bad_graph_file_and_out_of_range_load_are_one_line_errors(tmp_path, capsys):
    from sam.cli import main
    from sam.errors import SimulationError

    good = dumps(build_op("sls", **fig10())[0])
    bad = tmp_path / "bad.gv"
    bad.write_text(good.replace("single:e:1", "single:e:0"))
    assert main(["run", str(bad), "-t", "A=west0479", "-t", "B=random:1.0:0:479x4"]) == 1
    err = capsys.readouterr().err
    assert "layer 2 has 0 lanes; a layer needs lanes >= 1" in err and err.count("\n") == 1
    cfg = sls_config()
    cfg.streams[-2] = Alu("pos", "e", "+", "row", 100)  # past the table's 24 values
    graph = tmu_graph(cfg, out="Z", shape=(2, 4), program=SLS, formats={"A": "ds", "B": "dd"})
    tensors = fig10()
    with pytest.raises(SimulationError) as info:
        simulate(graph, tensors, engine="reference")
    text = str(info.value)
    assert "mem stream v reads B.vals at an index outside the array" in text
    assert "\n" not in text


SLS = "ite: b = pop; e = pop; v = pop; out[b, e] += v"


@pytest.mark.parametrize("op", OPS)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), rows=st.integers(1, 6), cols=st.integers(1, 6),
       dim=st.integers(1, 4), density=st.floats(0.0, 0.8), lanes=st.integers(1, 3),
       fifo=st.sampled_from([None, 3, 4, 7]))
def test_engines_agree_token_for_token_and_cycle_for_cycle(op, seed, rows, cols, dim, density,
                                                          lanes, fifo):
    A, B, X = random_inputs(op, seed, rows, cols, dim, density, 2)
    lanes = 1 if op == "mp" else lanes
    if op == "mp" and fifo is not None:
        fifo = max(fifo, dim)
    runs = [run_op(op, A, B, X, engine, blk=2, lanes=lanes, fifo=fifo) for engine in ENGINES]
    ref, fast = runs
    assert ref.cycles == fast.cycles
    for bid in ref.blocks:
        a, b = ref.blocks[bid], fast.blocks[bid]
        assert (a.busy, a.idle, a.stalled, a.details) == (b.busy, b.idle, b.stalled, b.details)
    assert [s.tokens for s in ref.streams] == [s.tokens for s in fast.streams]
    np.testing.assert_array_equal(ref.outputs["Z"].to_dense(), fast.outputs["Z"].to_dense())
    np.testing.assert_allclose(ref.outputs["Z"].to_dense(), reference(op, A, B, X, blk=2),
                               rtol=1e-12, atol=1e-12)


def test_fifo_shallower_than_a_vector_is_a_one_line_error():
    from sam.errors import SimulationError

    tensors = fig10()
    graph, t = build_op("sls", tensors["A"], tensors["B"], lanes=4)
    with pytest.raises(SimulationError) as info:
        simulate(graph, t, engine="reference", fifo_depth=2)
    text = str(info.value)
    assert "raise --fifo-depth to at least the lane count" in text and "\n" not in text


@pytest.mark.parametrize("engine", ENGINES)
def test_gather_keeps_a_block_per_stored_entry_explicit_zeros_included(engine):
    """An index matrix with an explicitly stored zero: the gather selects its key block too
    (the output has a block per stored entry, as ``reference`` counts them)."""
    A = sp.csr_matrix((np.array([1.0, 0.0, 2.0]), np.array([0, 2, 1]), np.array([0, 2, 3])),
                      shape=(2, 3))
    assert A.nnz == 3 and np.count_nonzero(A.data) == 2
    B = np.arange(3 * 2 * 4, dtype=float).reshape(6, 4)
    res = run_op("gather", A, B, None, engine, blk=2)
    np.testing.assert_array_equal(res.outputs["Z"].to_dense(), reference("gather", A, B, blk=2))
