"""Arrays (SAM paper Def. 3.5: load and store) and ALUs (Def. 3.6): ``sam.blocks.arrays``,
``sam.blocks.alus``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats import Tensor
from sam.blocks.alus import ALU_TYPES, BinaryALU
from sam.blocks.arrays import ArrayLoad, ArrayStore
from sam.errors import GraphError, SimulationError
from sam.runtime.tokens import D, N, Stop, format_stream
from sam.runtime.wires import RC_IN
from sam.sim.harness import run_block

from helpers.streamtrees import bench, same_on_both_engines

FIG1 = np.array([[0, 1, 0, 0], [2, 0, 3, 0], [0, 0, 0, 0], [0, 4, 0, 5]], dtype=float)
VEC = np.array([0.0, 7.0, 0.0, 9.0, 0.0, 0.5])


# --------------------------------------------------------------------------- array load
def load(tensor: str = "c") -> ArrayLoad:
    return ArrayLoad(f"vals_{tensor}", {"tensor": tensor})


def test_load_ports():
    assert [p.name for p in load().inputs()] == ["ref"]
    assert [p.name for p in load().outputs()] == ["val"]


def test_load_figure1_values():
    """Figure 1d: the last scanner's references load ``1, S0, 2, 3, S0, 4, 5, S1, D``."""
    tensors = {"B": Tensor.from_dense(FIG1, "ss01")}
    out = bench(load("B"), {"ref": "0, S0, 1, 2, S0, 3, 4, S1, D"}, tensors)
    assert out == {"val": "1, S0, 2, 3, S0, 4, 5, S1, D"}


def test_load_empty_reference_and_stops():
    tensors = {"c": Tensor.from_dense(VEC, "s")}
    out = bench(load(), {"ref": "0, N, 2, S0, 1, S1, S0, S2, D"}, tensors)
    assert out == {"val": "7, N, 0.5, S0, 9, S1, S0, S2, D"}
    assert bench(load(), {"ref": "S0, D"}, tensors) == {"val": "S0, D"}
    assert bench(load(), {"ref": "D"}, tensors) == {"val": "D"}


def test_load_dense_tensor_stored_zeros():
    tensors = {"c": Tensor.from_dense(VEC, "d")}
    assert bench(load(), {"ref": "0, 1, 5, S0, D"}, tensors) == {"val": "0, 7, 0.5, S0, D"}


def test_load_scalar():
    tensors = {"s": Tensor.scalar(-2.5)}
    assert bench(load("s"), {"ref": "0, 0, S0, D"}, tensors) == {"val": "-2.5, -2.5, S0, D"}


def test_load_root_scalar():
    """``root=true``: a scalar's array reads the root reference ``0, D`` by itself."""
    block = ArrayLoad("vals_s", {"tensor": "s", "root": "true"})
    assert block.inputs()[0].optional
    assert bench(block, {}, {"s": Tensor.scalar(4.5)}) == {"val": "4.5, D"}


@pytest.mark.parametrize("ref", ["3, S0, D", "0, -1, S0, D", "99, D"])
def test_load_reference_out_of_range(ref):
    tensors = {"c": Tensor.from_dense(VEC, "s")}
    with pytest.raises(SimulationError, match="out of range of the value array"):
        bench(load(), {"ref": ref}, tensors)


# --------------------------------------------------------------------------- array store
def store(ins: dict[str, str]) -> np.ndarray:
    block = ArrayStore("store_x", {"tensor": "x"})
    res = run_block(block, ins)
    assert dict(res) == {}  # no output streams, only the side effect
    return block.recorded(res.st, res.mem)["vals"]


def test_store_ports():
    block = ArrayStore("s", {"tensor": "x"})
    assert [p.name for p in block.inputs()] == ["ref", "val"]
    assert block.outputs() == []


def test_store_scatters_values():
    vals = store({"ref": "0, 2, S0, 5, S1, D", "val": "1.5, 2, S0, 3, S1, D"})
    assert vals.tolist() == [1.5, 0, 2, 0, 0, 3]


def test_store_empty_tokens():
    """An N value stores 0; an N reference (nothing to store at) skips its value."""
    vals = store({"ref": "0, N, 2, S0, D", "val": "1.5, 4, N, S0, D"})
    assert vals.tolist() == [1.5, 0, 0]


def test_store_later_value_wins_and_memory_grows():
    assert store({"ref": "1, 1, D", "val": "1, 2, D"}).tolist() == [0, 2]
    vals = store({"ref": "100, 3, S0, D", "val": "1, 2, S0, D"})
    assert len(vals) == 101 and vals[100] == 1 and vals[3] == 2 and vals.sum() == 3


def test_store_nothing():
    assert store({"ref": "D", "val": "D"}).tolist() == []
    assert store({"ref": "S0, S1, D", "val": "S0, S1, D"}).tolist() == []


@pytest.mark.parametrize(
    "ref, val, message",
    [
        ("0, S0, D", "1, 2, S0, D", "not aligned"),
        ("0, 1, S0, D", "1, S0, D", "not aligned"),
        ("0, S1, D", "1, S0, D", "not aligned"),
        ("0, D", "1, S0, D", "not aligned"),
        ("N, S0, D", "S0, D", "not aligned"),
        ("N, D", "D", "not aligned"),
        ("-1, S0, D", "1, S0, D", "negative reference"),
    ],
)
def test_store_malformed(ref, val, message):
    with pytest.raises(SimulationError, match=message):
        store({"ref": ref, "val": val})


# --------------------------------------------------------------------------- binary ALUs
def alu(op: str, **attrs) -> BinaryALU:
    return ALU_TYPES[op](op, attrs)


A = "1, N, 6, N, S0, -3, 0, S1, D"
B = "2, 5, N, N, S0, 0, 0, S1, D"


@pytest.mark.parametrize(
    "op, expected",
    [
        ("add", "3, 5, 6, N, S0, -3, 0, S1, D"),
        ("sub", "-1, -5, 6, N, S0, -3, 0, S1, D"),
        ("mul", "2, 0, 0, N, S0, 0, 0, S1, D"),  # -3 * 0 = -0 prints as 0
        ("max", "2, 5, 6, N, S0, 0, 0, S1, D"),
        ("min", "1, 0, 0, N, S0, -3, 0, S1, D"),
    ],
)
def test_binary_ops_with_empty_tokens(op, expected):
    """Def. 3.6: N counts as zero; N with N stays N; stop and done tokens pass."""
    assert bench(alu(op), {"val:in0": A, "val:in1": B}) == {"val": expected}


def test_division_by_zero_follows_ieee():
    out = bench(alu("div"), {"val:in0": "1, 6, -3, 0, N, N, S0, D",
                             "val:in1": "2, N, 0, 0, 4, N, S0, D"})
    assert out == {"val": "0.5, inf, -inf, nan, 0, N, S0, D"}


def test_custard_sub_attribute():
    assert bench(alu("add", sub="1"), {"val:in0": "1, S0, D", "val:in1": "2.5, S0, D"}) == {
        "val": "-1.5, S0, D"}
    assert alu("add", sub="1").op == "sub" and alu("add", sub="0").op == "add"


def test_binary_ports_and_empty_streams():
    assert [p.name for p in alu("mul").inputs()] == ["val:in0", "val:in1"]
    assert [p.name for p in alu("mul").outputs()] == ["val"]
    assert bench(alu("mul"), {"val:in0": "D", "val:in1": "D"}) == {"val": "D"}
    assert bench(alu("mul"), {"val:in0": "S0, S1, D", "val:in1": "S0, S1, D"}) == {
        "val": "S0, S1, D"}


def test_figure4_multiply():
    """Figure 4's ALU multiplies the two operands' values point by point."""
    out = bench(alu("mul"), {"val:in0": "1, 1, S0, 2, S1, 3, S2, D",
                             "val:in1": "4, 5, S0, 6, S1, 7, S2, D"})
    assert out == {"val": "4, 5, S0, 12, S1, 21, S2, D"}


@pytest.mark.parametrize(
    "a, b",
    [
        ("1, S0, D", "2, S1, D"),
        ("1, 2, S0, D", "2, S0, D"),
        ("1, S0, D", "2, D"),
        ("S0, D", "1, S0, D"),
        ("1, D", "1, S0, D"),
    ],
)
def test_binary_malformed(a, b):
    with pytest.raises(SimulationError, match="not aligned"):
        bench(alu("add"), {"val:in0": a, "val:in1": b})


def test_unknown_operation():
    with pytest.raises(GraphError, match="unknown ALU operation"):
        BinaryALU("x", {}, op="pow")


_value = st.one_of(st.just(N), st.integers(-4, 4).map(float))


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(["add", "sub", "mul", "max", "min"]),
       st.lists(st.lists(st.tuples(_value, _value), max_size=4), max_size=4))
def test_binary_equals_python(op, fibers):
    """Aligned random value streams: each output is the Python operation with N as 0."""
    fn = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
          "max": max, "min": min}[op]
    a, b, out = [], [], []
    for fiber in fibers:
        for x, y in fiber:
            a.append(x)
            b.append(y)
            out.append(N if x is N and y is N else
                       fn(0.0 if x is N else x, 0.0 if y is N else y))
        for s in (a, b, out):
            s.append(Stop(0))
    for s in (a, b, out):
        if s:
            s[-1] = Stop(1)
    a, b = format_stream(a + [D]), format_stream(b + [D])
    assert bench(alu(op), {"val:in0": a, "val:in1": b})["val"] == format_stream(out + [D])


# --------------------------------------------------------------------------- unary ALUs
@pytest.mark.parametrize(
    "op, expected",
    [
        ("neg", "-1, N, 2, S0, 0, S1, D"),
        ("abs", "1, N, 2, S0, 0, S1, D"),
        ("exp", f"{math.e}, N, {math.exp(-2)}, S0, 1, S1, D"),
        ("relu", "1, N, 0, S0, 0, S1, D"),
    ],
)
def test_unary_ops(op, expected):
    """A unary ALU maps each value; N stays N; stop and done tokens pass."""
    block = ALU_TYPES[op](op, {})
    assert [p.name for p in block.inputs()] == ["val"]
    assert bench(block, {"val": "1, N, -2, S0, 0, S1, D"}) == {"val": expected}
    assert bench(ALU_TYPES[op](op, {}), {"val": "D"}) == {"val": "D"}


def test_unary_stream_without_done_token_stays_unfinished():
    """A single value stream has no malformed tokens for a unary ALU; a stream that never ends
    leaves the block waiting for input (no done token emitted) rather than finishing."""
    res = run_block(ALU_TYPES["neg"]("neg", {}), {"val": "1, S0"})
    assert res.rc == RC_IN and res["val"] == "-1, S0"


# --------------------------------------------------------------------------- engines
def test_fast_engine_agrees():
    tensors = {"c": Tensor.from_dense(VEC, "s")}
    same_on_both_engines(lambda: load(), {"ref": "0, N, 2, S0, 1, S1, D"}, tensors)
    for op in ("add", "sub", "mul", "div", "max", "min"):
        same_on_both_engines(lambda op=op: alu(op), {"val:in0": A, "val:in1": B})
    for op in ("neg", "abs", "exp", "relu"):
        same_on_both_engines(lambda op=op: ALU_TYPES[op](op, {}), {"val": A})
    ref = run_block(ArrayStore("s", {"tensor": "x"}), {"ref": "0, N, 70, S0, D",
                                                         "val": "1.5, 4, N, S0, D"})
    fast = run_block(ArrayStore("s", {"tensor": "x"}), {"ref": "0, N, 70, S0, D",
                                                          "val": "1.5, 4, N, S0, D"}, engine="fast")
    assert np.array_equal(ref.st, fast.st)
    assert np.array_equal(ref.mem["vals"], fast.mem["vals"])
    with pytest.raises(SimulationError):
        bench(alu("add"), {"val:in0": "1, S0, D", "val:in1": "2, S1, D"}, engine="fast")
    with pytest.raises(SimulationError):
        run_block(ArrayStore("s", {"tensor": "x"}), {"ref": "N, D", "val": "D"}, engine="fast")
    with pytest.raises(SimulationError):
        bench(load(), {"ref": "6, D"}, tensors, engine="fast")
