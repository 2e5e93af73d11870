"""The language TACO's users write, compiled by Custard (issue 12): numeric constants, result
indices that no operand has (``-d``), the result read on the right, sums combined with other
terms, TACO's scheduling commands and their shorthands, 400-operand sums and malformed lines.

Every compiled construct is simulated on random inputs, through DOT text and back, on both
engines, and compared with numpy (written out, and the dense reference
``sam.notation.reference.evaluate``)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import custard
from custard.api import graphs_of, notices_of
from custard.cli import graph_from_command_line, main
from formats.tensor import Tensor
from sam.bind import BindError, bind_tensors
from sam.check import compare, expected
from sam.errors import CompileError
from sam.graph.dot import dumps, dumps_all, loads, loads_all
from sam.graph.implicit import index_sizes
from sam.graph.model import Graph
from sam.notation.parse import parse_expression
from sam.notation.reference import evaluate
from sam.program import Program
from sam.sim.engine import simulate

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ("reference", "fast")
SETTINGS = settings(max_examples=8, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
VALUES = st.sampled_from([0.0, 0.0, 0.0, 1.0, -2.0, 0.5, 3.0, 1.25])


# --------------------------------------------------------------------------- helpers
@st.composite
def operands(draw, expression: str, sizes: Mapping[str, int] | None = None
             ) -> dict[str, np.ndarray]:
    """Random dense arrays for the operands of ``expression`` (sizes 1..4 per variable)."""
    assign = parse_expression(expression)
    size = dict(sizes or {})
    out: dict[str, np.ndarray] = {}
    for acc in assign.rhs.accesses():
        if acc.name in out:
            continue
        shape = tuple(size.setdefault(v, draw(st.integers(1, 4))) for v in acc.indices)
        n = int(np.prod(shape)) if shape else 1
        values = draw(st.lists(VALUES, min_size=n, max_size=n))
        out[acc.name] = np.array(values, dtype=float).reshape(shape)
    return out


def through_dot(result: Graph | Program) -> list[Graph]:
    """The graphs of a compilation written as DOT text and read back (unchanged)."""
    graphs = graphs_of(result)
    back = loads_all(dumps_all(graphs))
    assert [g.signature() for g in back] == [g.signature() for g in graphs]
    return back


def run(result: Graph | Program, arrays: Mapping[str, np.ndarray], engine: str) -> np.ndarray:
    """The result tensor's dense value, simulated through DOT text on ``engine``."""
    graphs = through_dot(result)
    lhs = graphs[-1].attrs["expression"].split("(")[0].split("=")[0]
    tensors = {n: Tensor.from_dense(a, name=n) for n, a in arrays.items()}
    if len(graphs) == 1:
        outputs = simulate(graphs[0], tensors, engine=engine).outputs
    else:
        outputs = Program(graphs).run(tensors, engine=engine).outputs
    return outputs[lhs].to_dense()


def check_both_engines(result: Graph | Program, arrays: Mapping[str, np.ndarray],
                       want: np.ndarray, expression: str | None = None,
                       sizes: Mapping[str, int] | None = None) -> None:
    """Both engines give ``want`` (numpy written out), and so does the dense reference."""
    if expression is not None:
        np.testing.assert_allclose(evaluate(expression, arrays, sizes), want, rtol=1e-12)
    got = {engine: run(result, arrays, engine) for engine in ENGINES}
    for engine, value in got.items():
        assert value.shape == want.shape, engine
        np.testing.assert_allclose(value, want, rtol=1e-12, atol=1e-12, err_msg=engine)


def plain(expression: str, formats=None, order=None, **kw) -> Graph:
    result = custard.compile(expression, formats, order, **kw)
    assert isinstance(result, Graph)
    return result


MATMUL = "X(i,j)=B(i,k)*C(k,j)"


# --------------------------------------------------------------------------- constants
CONSTANT_CASES: list[tuple[str, dict, Callable[..., np.ndarray]]] = [
    ("A(i,j)=2*B(i,j)", {}, lambda B: 2 * B),
    ("y(i)=B(i,j)*x(j)+5", {}, lambda B, x: B @ x + 5),
    ("y(i)=B(i,j)*x(j)+1.5e-3", {"y": "d", "B": "ds"}, lambda B, x: B @ x + 1.5e-3),
    ("A(i,j)=B(i,j)*0.5-C(i,j)*2.", {}, lambda B, C: B * 0.5 - C * 2.0),
    ("A(i,j)=-3*B(i,j)+.25", {"A": "dd"}, lambda B: -3 * B + 0.25),
    ("y(i)=b(i)*2+c(i)*2", {}, lambda b, c: b * 2 + c * 2),
]


@pytest.mark.parametrize("expression, formats, numpy_fn", CONSTANT_CASES,
                         ids=[c[0] for c in CONSTANT_CASES])
@SETTINGS
@given(data=st.data())
def test_constants(expression, formats, numpy_fn, data):
    arrays = data.draw(operands(expression))
    result = plain(expression, formats)
    assert "constants" in result.attrs and result.notices == []
    check_both_engines(result, arrays, numpy_fn(**arrays), expression)


def test_constants_are_implicit_inputs_of_the_graph():
    """One scalar per distinct value, recorded in the DOT; binding needs no -t for it and
    refuses one; the gold check evaluates the constants itself."""
    g = loads(dumps(plain("y(i)=b(i)*2+c(i)*2.0+1.5e-3")))
    assert g.attrs["constants"] == "const0=2.0,const1=0.0015"
    assert str(g.formats["const0"]) == "none"
    b = Tensor.from_dense(np.array([1.0, 0.0, 2.0]), name="b")
    bound = bind_tensors(g, {"b": "random:0.5:1:3", "c": "random:0.5:2:3"})
    assert set(bound) == {"b", "c"}
    with pytest.raises(BindError, match="takes no -t"):
        bind_tensors(g, {"b": "random:0.5", "c": "random:0.5", "const0": "3"})
    c = Tensor.from_dense(np.array([0.0, 4.0, 1.0]), name="c")
    out = simulate(g, {"b": b, "c": c}).outputs["y"]
    gold = expected(g.attrs["expression"], {"b": b, "c": c})
    np.testing.assert_allclose(gold, [2.0015, 8.0015, 6.0015])
    assert compare(out, gold).passed


def test_a_name_taken_by_an_operand_is_not_reused():
    g = plain("y(i)=const0(i)*3")
    assert g.attrs["constants"] == "const0_2=3.0"


def test_constants_only():
    for text, value in [("x=2+3", 5.0), ("y=1*1", 1.0), ("z=-4", -4.0)]:
        g = plain(text)
        for engine in ENGINES:
            out = simulate(loads(dumps(g)), {}, engine=engine).outputs[text[0]]
            assert float(out.to_dense()) == value


# --------------------------------------------------------------------------- division
def _quotient(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """TACO's a/b: where both operands are stored (a product's iteration), else no entry."""
    with np.errstate(all="ignore"):
        return np.where((a != 0) & (b != 0), a / np.where(b != 0, b, 1.0), 0.0)


DIVISION_CASES: list[tuple[str, Callable[..., np.ndarray]]] = [
    ("A(i,j)=B(i,j)/C(i,j)", lambda B, C: _quotient(B, C)),
    ("y(i)=A(i,j)/x(j)", lambda A, x: _quotient(A, x[None, :]).sum(axis=1)),
    ("A(i,j)=B(i,j)+C(i,j)/D(i,j)", lambda B, C, D: B + _quotient(C, D)),
    ("y(i)=a(i)*b(i)/c(i)/4", lambda a, b, c: _quotient(a * b, c) / 4),
    ("y(i)=x(i)/(a(i)+b(i))", lambda x, a, b: _quotient(x, a + b)),
]


@pytest.mark.parametrize("expression, numpy_fn", DIVISION_CASES,
                         ids=[c[0] for c in DIVISION_CASES])
@SETTINGS
@given(data=st.data())
def test_division_iterates_like_a_product(expression, numpy_fn, data):
    arrays = data.draw(operands(expression))
    result = plain(expression)
    assert "div" in result.count()
    check_both_engines(result, arrays, numpy_fn(**arrays), expression)


def test_a_divisor_summing_operands_of_different_variables_is_refused():
    """SAM iterates such a sum densely; where none of its operands is stored the div ALU would
    divide by zero where TACO skips the coordinate."""
    with pytest.raises(CompileError, match="not supported") as info:
        custard.compile("y(i)=z(i)*A(i,j,k)*x(j)/(a(k)+b(i)+c(j))")
    assert str(info.value).startswith("division by (a(k) + b(i) + c(j))")


def test_a_stored_zero_divisor_gives_inf_and_the_check_agrees():
    """A dense level stores its zeros, so B/C divides by them (as TACO's code does); the gold
    check follows the stored entries for divisions."""
    g = plain("A(i)=B(i)/C(i)", {"C": "d"})
    t = {"B": Tensor.from_dense(np.array([1.0, 2.0, 0.0]), name="B"),
         "C": Tensor.from_dense(np.array([0.0, 4.0, 1.0]), "d", name="C")}
    for engine in ENGINES:
        out = simulate(loads(dumps(g)), t, engine=engine).outputs["A"]
        np.testing.assert_array_equal(out.to_dense(), [np.inf, 0.5, 0.0])
        assert compare(out, expected("A(i)=B(i)/C(i)", t)).passed


# --------------------------------------------------------------------------- broadcast outputs
BROADCAST_CASES: list[tuple[str, dict, Callable[..., np.ndarray]]] = [
    ("A(i,j)=b(i)", {"j": 3}, lambda b: np.broadcast_to(b[:, None], (len(b), 3))),
    ("A(j,i)=b(i)+c(i)", {"j": 2}, lambda b, c: np.broadcast_to((b + c)[None, :], (2, len(b)))),
    ("A(i,j,k)=B(i,k)*2", {"j": 4},
     lambda B: np.broadcast_to(2 * B[:, None, :], (B.shape[0], 4, B.shape[1]))),
    ("y(i,j)=B(i,k)*x(k)", {"j": 1}, lambda B, x: (B @ x)[:, None]),
]


@pytest.mark.parametrize("expression, dims, numpy_fn", BROADCAST_CASES,
                         ids=[c[0] for c in BROADCAST_CASES])
@SETTINGS
@given(data=st.data())
def test_result_indices_on_no_operand_repeat_the_value(expression, dims, numpy_fn, data):
    arrays = data.draw(operands(expression))
    result = plain(expression, dims=dims)
    back = through_dot(result)[0]
    assert index_sizes(back) == dims
    check_both_engines(result, arrays, np.asarray(numpy_fn(**arrays)), expression, dims)


def test_broadcast_sizes_default_to_tacos_42_with_a_notice():
    g = plain("A(i,j)=b(i)")
    assert g.attrs["ranges"] == "dim_j=42"
    assert any("TACO's default 42" in n and "-d=j:SIZE" in n for n in g.notices)
    assert plain("A(i,j)=b(i)", dims={"j": 7}).notices == []
    assert "ignored" in plain("A(i,j)=b(i)", dims={"j": 7, "i": 3}).notices[0]


@pytest.mark.parametrize("dims, part", [
    ({"q": 3}, "not an index variable"),
    ({"j": 0}, "positive integer"),
    ({"j": "3"}, "positive integer"),
])
def test_bad_sizes(dims, part):
    with pytest.raises(CompileError, match=part):
        custard.compile("A(i,j)=b(i)", dims=dims)


@pytest.mark.parametrize("option, ranges", [
    ("-d=j:5", "dim_j=5"), ("--dims=j=5", "dim_j=5"), ("-d=A:3,6", "dim_j=6"),
])
def test_dims_options_as_taco_writes_them(option, ranges):
    g = graph_from_command_line(["A(i,j)=b(i)", option])
    assert g.attrs["ranges"] == ranges


@pytest.mark.parametrize("option, part", [
    ("-d=j", "VAR:SIZE"), ("-d=j:x", "VAR:SIZE"), ("-d=A:3", "A has 2 mode"),
    ("-d=j:2,3", "takes one size"),
])
def test_bad_dims_options(option, part):
    with pytest.raises(CompileError, match=part):
        graph_from_command_line(["A(i,j)=b(i)", option])


# --------------------------------------------------------------------------- result on the right
@SETTINGS
@given(data=st.data())
def test_the_result_on_the_right_is_its_old_value(data):
    expression = "y(i)=A(i,j)*x(j)+y(i)"
    arrays = data.draw(operands(expression))
    result = plain(expression, {"y": "d", "A": "ds"})
    assert "its value before the assignment" in result.notices[0]
    check_both_engines(result, arrays, arrays["A"] @ arrays["x"] + arrays["y"], expression)


@SETTINGS
@given(data=st.data())
def test_the_result_scaled_in_place(data):
    arrays = data.draw(operands("A(i,j)=A(i,j)*2"))
    check_both_engines(plain("A(i,j)=A(i,j)*2"), arrays, 2 * arrays["A"], "A(i,j)=A(i,j)*2")


# --------------------------------------------------------------------------- sums with terms
SUM_CASES: list[tuple[str, dict, object, Callable[..., np.ndarray]]] = [
    ("D(i,j)=A(i,k,j)*B(i,k)+C(i,j)", {"D": "dd", "A": "ddd", "B": "dd", "C": "dd"}, None,
     lambda A, B, C: np.einsum("ikj,ik->ij", A, B) + C),
    ("y(i)=A(i,j)*x(j)+z(i)", {"y": "d", "A": "ss:1,0", "x": "s", "z": "s"}, None,
     lambda A, x, z: A @ x + z),
    ("A(i,j)=B(i,k)*C(k,j)+D(i,j)", {}, "reorder(i,k,j)", lambda B, C, D: B @ C + D),
    ("y(k)=A(i,k)+x(k)", {"y": "d", "A": "ss"}, None, lambda A, x: A.sum(axis=0) + x),
]


@pytest.mark.parametrize("expression, formats, order, numpy_fn", SUM_CASES,
                         ids=[c[0] for c in SUM_CASES])
@SETTINGS
@given(data=st.data())
def test_sums_combined_with_other_terms(expression, formats, order, numpy_fn, data):
    """The sum is computed first into a temporary by a graph of its own (a program)."""
    arrays = data.draw(operands(expression))
    result = custard.compile(expression, formats, order)
    assert isinstance(result, Program) and len(result.phases) == 2
    assert result.temporaries() == ["T"]
    assert any("computed first into the temporary T" in n for n in notices_of(result))
    check_both_engines(result, arrays, numpy_fn(**arrays), expression)


def test_the_default_order_avoids_a_temporary_when_it_can():
    """Appearance order i,k,l would visit the inner sum's k before l, which the term d(i,l)
    needs outside it; the formats allow i,l,k."""
    g = custard.compile("y(i)=c(k)*e(i,k)*f(l)+d(i,l)")
    assert isinstance(g, Graph) and g.attrs["order"] == "i,l,k"


# --------------------------------------------------------------------------- schedules
def test_reorder_full_partial_and_composed():
    outer = "x=b(i)*c(j)*d(k)"
    assert plain(outer).attrs["order"] == "i,j,k"
    assert plain(outer, order="reorder(k,j)").attrs["order"] == "i,k,j"  # i stays
    assert plain(outer, schedule=["reorder(k,j)", "reorder(j,i)"]
                 ).attrs["order"] == "j,k,i"  # i,j,k -> i,k,j -> j,k,i (each moves two)
    assert plain(MATMUL, {"C": "ss:1,0"}, "reorder(i,j,k)").signature() == \
        plain(MATMUL, {"C": "ss:1,0"}, schedule="-s=reorder(j,k)").signature()


@pytest.mark.parametrize("spec", ["kij", "k,i,j", "k i j", "reorder(k,i,j)", "-s=reorder(k,i,j)",
                                  ["k", "i", "j"]])
def test_loop_order_shorthands(spec):
    want = plain(MATMUL, {"B": "ss:1,0"}, "reorder(k,i,j)").signature()
    assert plain(MATMUL, {"B": "ss:1,0"}, spec).signature() == want
    if isinstance(spec, str):
        assert plain(MATMUL, {"B": "ss:1,0"}, schedule=spec).signature() == want


@pytest.mark.parametrize("cmd", ["split(i,i0,i1,32)", "divide(i,i0,i1,4)",
                                 "split(k,k0,k1,2),split(k1,k10,k11,4)"])
def test_split_and_divide_keep_the_order_with_a_notice(cmd):
    g = plain(MATMUL, schedule=cmd)
    assert g.attrs.pop("split") == cmd.replace(",split", ";split")
    g.attrs.pop("split_loops")
    assert g.signature() == plain(MATMUL).signature()
    assert all("splitting never changes the result" in n for n in g.notices)


@SETTINGS
@given(data=st.data())
def test_fuse_pos_split_parallelize_precompute_unroll_spmv(data):
    """TACO's SpMV schedule of the website: fuse, pos, split, precompute (a workspace), unroll
    and GPU parallelization: a program of two graphs computing A @ x."""
    expression = "y(i)=A(i,j)*x(j)"
    schedule = ["fuse(i,j,f)", "pos(f,fpos,A)", "split(fpos,block,fpos1,8)",
                "split(fpos1,warp,nnz,4)", "reorder(block,warp,nnz)",
                "precompute(A(i,j)*x(j),nnz,nnz_pre)", "unroll(nnz_pre,4)",
                "parallelize(block,GPUBlock,IgnoreRaces)", "parallelize(warp,GPUWarp,Atomics)"]
    result = custard.compile(expression, {"y": "d", "A": "ds", "x": "d"}, schedule=schedule)
    assert isinstance(result, Program) and result.temporaries() == ["workspace"]
    notices = notices_of(result)
    assert any(n.startswith("fuse(i,j,f)") for n in notices)
    assert any(n.startswith("pos(f,fpos,A)") for n in notices)
    assert any(n.startswith("unroll(nnz_pre,4): ignored") for n in notices)
    assert result.phases[-1].graph.attrs["parallelize"] == \
        "i,j:GPUBlock:IgnoreRaces;i,j:GPUWarp:Atomics"
    arrays = data.draw(operands(expression))
    check_both_engines(result, arrays, arrays["A"] @ arrays["x"], expression)


def test_fuse_and_pos_are_the_nested_coordinate_iteration():
    g = plain("y(i)=A(i,j)*x(j)", {"A": "ds"}, schedule="fuse(i,j,f),pos(f,fp,A)")
    assert g.signature() == plain("y(i)=A(i,j)*x(j)", {"A": "ds"}).signature()


@pytest.mark.parametrize("expression, formats, schedule, part", [
    (MATMUL, {}, "fuse(i,j,f)", "not directly nested"),
    ("y(i)=A(i,j)*x(j)", {"A": "dd"}, "pos(j,jp,A)", "dense level"),
    ("y(i)=A(i,j)+B(i,j)", {}, "pos(j,jp,A)", "SAM cannot express it"),
    ("y(i)=A(i,j)*x(j)", {}, "pos(j,jp,Q)", "not an operand"),
    ("y(i)=A(i,j)*x(j)", {}, "pos(k,kp,A)", "not a loop"),
])
def test_fuse_and_pos_refusals(expression, formats, schedule, part):
    with pytest.raises(CompileError, match=part):
        custard.compile(expression, formats, schedule=schedule)


def test_parallelize_is_recorded_in_the_dot_and_read_back():
    g = plain("y(i)=A(i,j)*x(j)", schedule=["parallelize(i,CPUThread,NoRaces)",
                                            "parallelize(j,CPUVector,IgnoreRaces)"])
    assert g.attrs["parallelize"] == "i:CPUThread:NoRaces;j:CPUVector:IgnoreRaces"
    back = loads(dumps(g))
    assert back.attrs["parallelize"] == g.attrs["parallelize"]
    assert back.signature() == g.signature()
    assert len(g.notices) == 2 and all("recorded in the graph" in n for n in g.notices)
    assert "parallelize" not in plain("y(i)=A(i,j)*x(j)",
                                      schedule="parallelize(i,NotParallel,NoRaces)").attrs


@pytest.mark.parametrize("cmd, part", [
    ("bound(i,ib,16,MaxExact)", "ignored: a loop bound"),
    ("unroll(j,4)", "ignored: loop unrolling"),
    ("assemble(y,Insert)", "ignored: how generated C code assembles"),
    ("assemble(y,Append,true)", "ignored: how generated C code assembles"),
    ("mergeby(j,Gallop)", "ignored: SAM's intersecters"),
    ("split(i,i0,i1,4),parallelize(i,CPUThread,NoRaces)", "i is no longer a loop"),
])
def test_commands_without_dataflow_meaning_are_ignored_with_a_notice(cmd, part):
    g = plain("y(i)=A(i,j)*x(j)", schedule=cmd)
    assert any(part in n for n in g.notices), g.notices
    g.attrs.pop("split", None), g.attrs.pop("split_loops", None)
    assert g.signature() == plain("y(i)=A(i,j)*x(j)").signature()


@pytest.mark.parametrize("cmd, part", [
    ("frobnicate(i)", "unknown scheduling command 'frobnicate'"),
    ("reorder()", "reorder takes the loops"),
    ("reorder(i,q)", "'q' is not a loop"),
    ("reorder(i,i)", "lists i twice"),
    ("split(i,i0,i1)", "split takes 4 argument(s)"),
    ("split(i,i0,i1,x)", "split factor must be a whole number of 1 or more, not x"),
    ("split(i,j,i1,4)", "'j' already names"),
    ("parallelize(i,CPUThreads,NoRaces)", "unknown parallel unit"),
    ("parallelize(i,CPUThread,Races)", "unknown race strategy"),
    ("bound(i,ib,4,Exact)", "unknown bound type"),
    ("assemble(A,Insert)", "not the result tensor"),
    ("assemble(y,Append,maybe)", "true or false"),
    ("mergeby(i,Zipper)", "unknown merge strategy"),
    ("precompute(A(i,j)*z(j),j,j)", "not a subexpression"),
    ("precompute(A(i,j)*x(j),j)", "precompute takes 3 or 4"),
    ("reorder(i,j)x", "unexpected 'x'"),
    ("reorder(i,j", "unbalanced parentheses"),
])
def test_bad_commands_are_one_line_errors(cmd, part):
    with pytest.raises(CompileError) as info:
        custard.compile("y(i)=A(i,j)*x(j)", schedule=cmd)
    assert part in str(info.value) and "\n" not in str(info.value)


@SETTINGS
@given(data=st.data())
def test_precompute_a_subexpression_with_braces_and_a_name(data):
    expression = "A(i,j)=B(i,j)+C(i,j)*D(i,j)"
    result = custard.compile(expression, schedule="precompute(C(i,j)*D(i,j),{i,j},{iw,jw},ws)")
    assert isinstance(result, Program) and result.temporaries() == ["ws"]
    assert result.phases[0].graph.attrs["expression"] == "ws(i,j)=C(i,j)*D(i,j)"
    arrays = data.draw(operands(expression))
    check_both_engines(result, arrays, arrays["B"] + arrays["C"] * arrays["D"], expression)


def test_a_second_precompute_inside_the_first_workspace():
    result = custard.compile("A(i,j)=B(i,j)+C(i,j)",
                             schedule=["precompute(B(i,j)+C(i,j),j,j)",
                                       "precompute(C(i,j),j,j)"])
    assert isinstance(result, Program)
    assert [p.graph.attrs["expression"] for p in result.phases] == [
        "workspace_2(i,j)=C(i,j)", "workspace(i,j)=B(i,j)+workspace_2(i,j)",
        "A(i,j)=workspace(i,j)"]


# --------------------------------------------------------------------------- robustness
def test_a_flat_sum_of_400_operands():
    expression = "x(i)=" + "+".join(f"b{k}(i)" for k in range(400))
    result = plain(expression)
    rng = np.random.default_rng(1)
    arrays = {f"b{k}": rng.random(3) * (rng.random(3) < 0.5) for k in range(400)}
    graphs = through_dot(result)
    tensors = {n: Tensor.from_dense(a, name=n) for n, a in arrays.items()}
    want = sum(arrays.values())
    np.testing.assert_allclose(evaluate(expression, arrays), want)
    for engine in ENGINES:
        got = simulate(graphs[0], tensors, engine=engine).outputs["x"].to_dense()
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_a_product_of_400_operands_compiles():
    g = plain("x(i)=" + "*".join(f"b{k}(i)" for k in range(400)))
    assert g.count()["mul"] == 399


@pytest.mark.parametrize("line", [
    '"action=wysija_ajax', '"', 'imgSrc=a"', "queryString=aaaa+hello+bbb\"",
    "y_i=A_ij*x_j -f=y:d:0", "A(i,j)=B(i,j) -x=3", "A(i,j)=B(i,j)$C(i,j)", "",
    "A(i,j)=B(i,j) -s=reorder(i,j", "=B(i)",
])
def test_junk_lines_give_one_clean_error(line):
    with pytest.raises(CompileError) as info:
        graph_from_command_line(line)
    assert "\n" not in str(info.value)


def test_the_python_api_never_prints(capsys):
    custard.compile("y(i)=A(i,j)*x(j)+2", schedule=["unroll(j,4)", "split(i,i0,i1,2)"])
    assert capsys.readouterr() == ("", "")


# --------------------------------------------------------------------------- command line
def cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=300, env=env)


def test_notices_go_to_stderr_one_line_each(capsys):
    assert main(["compile", "y(i)=A(i,j)*x(j)", "-s=unroll(j,4)",
                 "-s=parallelize(i,CPUThread,NoRaces)", "-prefix=abc"]) == 0
    out, err = capsys.readouterr()
    assert 'parallelize="i:CPUThread:NoRaces"' in out
    lines = err.strip().splitlines()
    assert len(lines) == 3 and all(x.startswith("custard: notice: ") for x in lines)
    assert "-prefix=abc ignored" in lines[2]


def test_constants_and_ranges_need_no_tensor_in_sam_sim(tmp_path):
    dot = tmp_path / "g.dot"
    p = cli("-m", "custard.cli", "compile", "A(i,j)=b(i)*2+1", "-d=j:3", "-o", str(dot))
    assert p.returncode == 0, p.stderr
    p = cli("-m", "sam.cli", "run", str(dot), "-t", "b=random:0.5:3:4", "--check",
            "--no-progress")
    assert p.returncode == 0, p.stderr
    assert "PASS" in p.stdout


def test_a_program_from_the_command_line_runs_in_sam_sim(tmp_path):
    dot = tmp_path / "p.dot"
    p = cli("-m", "custard.cli", "compile", MATMUL, "-f=X:dd", "-f=B:ds", "-f=C:dd",
            "-s=reorder(i,k,j)", "-s=precompute(B(i,k)*C(k,j),j,j)", "-s=assemble(X,Insert)",
            "-o", str(dot))
    assert p.returncode == 0, p.stderr
    assert len(p.stderr.strip().splitlines()) == 2
    assert len(loads_all(dot.read_text())) == 2
    p = cli("-m", "sam.cli", "run", str(dot), "-t", "B=random:0.4:1:4x5",
            "-t", "C=random:0.5:2:5x3", "--check", "--no-progress")
    assert p.returncode == 0, p.stderr
    assert "PASS: all 2 phases" in p.stdout
