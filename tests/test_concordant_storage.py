"""What TACO's users write against the loop order compiles and computes the right result.

* discordant storage (:mod:`custard.concordance`): an operand stored against the loop order is
  stored in loop order by the graph (the simulator re-stores the tensor bound to it), one tensor
  read in two mode orders gets a copy (graph attribute ``copies``), a result stored against the
  loop order is written in loop order and converted back (``output_formats``);
* ``split``/``divide``, tiling included (:mod:`custard.schedule`): the graph iterates the split
  variables whole and records the splits (``split``, ``split_loops``).

Every case runs through DOT text and back (the run must equal the in-memory graph's token for
token, :func:`roundtrip.run_through_dot`) on both engines and is checked against numpy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.io
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import custard
from custard.api import graphs_of, notices_of
from formats import data
from formats.format import Format
from formats.io import load_tensor
from formats.tensor import Tensor
from sam.bind import BindError, bind_tensors
from sam.errors import CompileError, GraphError
from sam.graph.dot import dumps, dumps_all, loads, loads_all
from sam.graph.validate import check_structure, input_tensors
from sam.notation.reference import evaluate
from sam.program import Program

from helpers.cli import custard as custard_cli
from helpers.cli import ok, sam_sim
from helpers.roundtrip import run_through_dot

ENGINES = ("reference", "fast")
SETTINGS = settings(max_examples=25, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


def sparse_array(draw, shape: tuple[int, ...]) -> np.ndarray:
    vals = draw(st.lists(st.integers(-3, 3), min_size=int(np.prod(shape)),
                         max_size=int(np.prod(shape))))
    return np.array(vals, dtype=float).reshape(shape)


def run(result, tensors: dict[str, Tensor], engine: str) -> dict[str, Tensor]:
    """The outputs of a graph (through DOT text, equal to the in-memory run) or a program
    (its graphs through DOT text)."""
    if isinstance(result, Program):
        back = Program(loads_all(dumps_all(graphs_of(result))))
        return back.run(tensors, engine=engine).outputs
    return run_through_dot(result, tensors, engine=engine).outputs


def check(expression: str, formats: dict[str, str], order, arrays: dict[str, np.ndarray],
          schedule=None) -> dict[str, Tensor]:
    result = custard.compile(expression, formats, order, schedule=schedule)
    tensors = {k: Tensor.from_dense(v) for k, v in arrays.items()}
    gold = evaluate(expression, arrays)
    out = expression.split("(")[0].split("=")[0].strip()
    got = {}
    for engine in ENGINES:
        got[engine] = run(result, tensors, engine)[out]
        np.testing.assert_array_equal(got[engine].to_dense(), gold, err_msg=engine)
    return got["reference"]


# ----------------------------------------------------------------------------- operands
@SETTINGS
@given(st.data(), st.sampled_from(["ds:1,0", "ss:1,0", "sd:1,0", "dd:1,0", "uq:1,0"]))
def test_discordant_operand_is_restored_in_loop_order(data, fmt):
    """CSC (and COO stored column-major) read by a row-major SpMV: the graph stores B row-major,
    level formats kept level by level, with a notice."""
    n, m = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 5))
    arrays = {"B": sparse_array(data.draw, (n, m)), "x": sparse_array(data.draw, (m,))}
    g = custard.compile("y(i)=B(i,j)*x(j)", {"B": fmt}, "ij")
    asked = Format.parse(fmt)
    assert g.formats["B"] == Format(asked.levels, (0, 1))
    assert any(n.startswith("operand B(i,j) is stored") and "re-stores" in n for n in g.notices)
    check("y(i)=B(i,j)*x(j)", {"B": fmt}, "ij", arrays)


def test_discordant_operand_on_a_shipped_matrix():
    b = load_tensor("west0479", "ss")
    rng = np.random.default_rng(0)
    x = rng.integers(-3, 4, b.shape[1]).astype(float)
    g = custard.compile("y(i)=B(i,j)*x(j)", {"B": "ds:1,0", "y": "d", "x": "d"}, "ij")
    gold = b.to_scipy() @ x
    for engine in ENGINES:
        got = run(g, {"B": b, "x": Tensor.from_dense(x)}, engine)["y"]
        np.testing.assert_allclose(got.to_dense(), gold, rtol=1e-12, atol=1e-12)


@SETTINGS
@given(st.data())
def test_a_tensor_read_in_two_orders_gets_a_copy(data):
    n = data.draw(st.integers(1, 4))
    b = sparse_array(data.draw, (n, n))
    g = custard.compile("A(i,j)=B(i,j)+B(j,i)", {"A": "dd", "B": "ds"})
    assert g.attrs["copies"] == "B_t=B" and input_tensors(g) == ["B"]
    assert str(g.formats["B"]) == "ds01" and str(g.formats["B_t"]) == "ds10"
    assert any("copy B_t" in n for n in g.notices)
    assert loads(dumps(g)).signature() == g.signature()
    check("A(i,j)=B(i,j)+B(j,i)", {"A": "dd", "B": "ds"}, None, {"B": b})
    check("y(i)=B(i,j)*B(j,i)", {"B": "ss"}, "ij", {"B": b})
    check("X(i,k)=B(i,j)*B(k,j)", {"B": "ss"}, "ijk", {"B": b})


def test_a_copy_takes_no_binding():
    g = custard.compile("A(i,j)=B(i,j)+B(j,i)", {"B": "ss"})
    with pytest.raises(BindError, match="made by the graph itself"):
        bind_tensors(g, {"B": "random:0.5", "B_t": "random:0.5"})


def test_no_order_fits_every_tensor():
    """The result and the first operands are fitted; the rest re-stored (TACO transposes)."""
    rng = np.random.default_rng(1)
    a = rng.integers(-2, 3, (3, 4)).astype(float)
    g = custard.compile("B(i,j)=A(j,i)", {"B": "dd", "A": "dd"})
    assert g.attrs["order"] == "i,j" and str(g.formats["A"]) == "dd10"
    check("B(i,j)=A(j,i)", {"B": "dd", "A": "dd"}, None, {"A": a})
    check("X(i,j)=B(i,j)+C(j,i)", {}, None, {"B": a.T.copy(), "C": a})


# ----------------------------------------------------------------------------- results
@SETTINGS
@given(st.data(), st.sampled_from(["ss:1,0", "ds:1,0", "dd:1,0", "sd:1,0"]))
def test_discordant_result_is_written_in_loop_order_and_converted(data, fmt):
    n, k, m = (data.draw(st.integers(1, 4)) for _ in range(3))
    arrays = {"B": sparse_array(data.draw, (n, k)), "C": sparse_array(data.draw, (k, m))}
    g = custard.compile("X(i,j)=B(i,k)*C(k,j)", {"X": fmt}, "ikj")
    asked = Format.parse(fmt)
    assert g.formats["X"] == Format(asked.levels, (0, 1))
    assert g.attrs["output_formats"] == f"X={fmt}"
    assert loads(dumps(g)).attrs["output_formats"] == f"X={fmt}"
    assert any(n.startswith("result X(i,j) is stored") for n in g.notices)
    got = check("X(i,j)=B(i,k)*C(k,j)", {"X": fmt}, "ikj", arrays)
    assert got.format == asked


def test_result_on_the_right_in_another_order():
    """``A(i,j)=A(j,i)+B(i,j)``: the input A (the result's value before) is read transposed."""
    rng = np.random.default_rng(2)
    arrays = {"A": rng.integers(-2, 3, (3, 3)).astype(float),
              "B": rng.integers(-2, 3, (3, 3)).astype(float)}
    check("A(i,j)=A(j,i)+B(i,j)", {"A": "ss", "B": "ss"}, None, arrays)


def test_output_formats_attribute_errors_are_one_line():
    g = custard.compile("X(i,j)=B(i,k)*C(k,j)", {"X": "ss:1,0"}, "ikj")
    for bad in ("X", "X=ss:1,0,2", "X=zz", "Q=ss:1,0"):
        with pytest.raises(GraphError) as err:
            g.attrs["output_formats"] = bad  # parsed as it is set: refused then
            check_structure(g)
        assert "\n" not in str(err.value) and "output_formats" in str(err.value)


# ----------------------------------------------------------------------------- tiling
TILINGS = [
    ["split(i,i0,i1,2)", "split(j,j0,j1,2)", "reorder(i0,j0,i1,j1,k)"],
    ["split(i,i0,i1,2)", "split(j,j0,j1,2)", "split(k,k0,k1,2)",
     "reorder(i0,j0,k0,i1,j1,k1)", "fuse(i0,j0,f)"],
    ["split(i,i0,i1,32)", "reorder(i1,i0,k,j)"],
    ["pos(k,kpos,B)", "split(kpos,kpos0,kpos1,4)", "reorder(i,kpos0,j,kpos1)"],
    ["divide(j,j0,j1,3)", "reorder(j0,i,k,j1)", "parallelize(j0,CPUThread,NoRaces)"],
]


@pytest.mark.parametrize("schedule", TILINGS)
def test_tiling_compiles_with_the_splits_recorded(schedule):
    expression, formats = "X(i,j)=B(i,k)*C(k,j)", {"X": "dd", "B": "ds", "C": "dd"}
    g = custard.compile(expression, formats, schedule=schedule)
    splits = [c for c in schedule if c.startswith(("split", "divide"))]
    assert g.attrs["split"] == ";".join(splits)
    assert set(g.attrs["split_loops"].split(",")) >= {c.split(",")[2] for c in splits}
    back = loads(dumps(g))
    assert back.attrs["split"] == g.attrs["split"]
    assert [n for n in g.notices if n.startswith(("split", "divide"))] and all(
        "\n" not in n for n in g.notices)
    assert all("splitting never changes the result" in n for n in g.notices
               if n.startswith(("split", "divide")))
    rng = np.random.default_rng(3)
    arrays = {"B": rng.integers(-2, 3, (5, 4)) * (rng.random((5, 4)) < 0.5) * 1.0,
              "C": rng.integers(-2, 3, (4, 3)) * 1.0}
    check(expression, formats, None, arrays, schedule=schedule)


def test_tiling_follows_the_formats_where_a_split_leaves_a_choice():
    """Tiles i0,j0,k0,i1,j1,k1 over row-major B and C: i,k,j (every tensor concordant)."""
    g = custard.compile("C(i,j)=A(i,k)*B(k,j)", {"C": "dd", "A": "ds", "B": "dd"},
                        schedule=["split(i,i0,i1,64)", "split(j,j0,j1,64)", "split(k,k0,k1,16)",
                                  "reorder(i0,j0,k0,i1,j1,k1)"])
    assert g.attrs["order"] == "i,k,j"
    assert not any(n.startswith(("operand", "result")) for n in notices_of(g))


# ----------------------------------------------------------------------------- the tools
def test_compile_then_sam_sim_run_with_an_mtx_input(tmp_path: Path):
    """``custard compile -f=B:ds:1,0`` under a row-major order, ``-f=X:ss:1,0`` written in loop
    order: ``sam-sim run`` re-stores the .mtx input, converts the result, ``--check`` passes."""
    mtx = data.path("west0067")
    ok(custard_cli(tmp_path, "compile", "X(i,j)=B(i,j)*c", "-f=B:ds:1,0", "-f=X:ss:1,0",
                   "-s=reorder(i,j)", "-o", "g.dot"))
    proc = ok(sam_sim(tmp_path, "run", "g.dot", "-t", f"B={mtx}", "-t", "c=2", "--check",
                      "-o", "X.mtx"))
    assert "PASS" in proc.stdout
    got = scipy.io.mmread(tmp_path / "X.mtx").toarray()
    np.testing.assert_array_equal(got, 2 * scipy.io.mmread(mtx).toarray())


def test_sam_sim_run_makes_the_copy_of_a_tensor_read_in_two_orders(tmp_path: Path):
    mtx = data.path("west0067")
    ok(custard_cli(tmp_path, "compile", "A(i,j)=B(i,j)+B(j,i)", "-f=B:ds", "-f=A:ss",
                   "-o", "g.dot"))
    proc = ok(sam_sim(tmp_path, "run", "g.dot", "-t", f"B={mtx}", "--check", "-o", "A.mtx"))
    assert "PASS" in proc.stdout
    b = scipy.io.mmread(mtx).toarray()
    np.testing.assert_array_equal(scipy.io.mmread(tmp_path / "A.mtx").toarray(), b + b.T)
    refused = sam_sim(tmp_path, "run", "g.dot", "-t", f"B={mtx}", "-t", f"B_t={mtx}")
    assert refused.returncode == 1 and "made by the graph itself" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1


def test_copies_attribute_errors_are_one_line():
    from sam.graph.validate import bind

    g = custard.compile("A(i,j)=B(i,j)+B(j,i)", {"B": "ss"})
    with pytest.raises(GraphError, match="reads tensor B but no tensor is bound") as err:
        bind(g, {})
    assert "\n" not in str(err.value)
    for bad, part in (("B_t=B_t", "does not name another tensor"),
                      ("Q=B", "has no format in the graph comment"), ("B_t", "NAME=VALUE")):
        with pytest.raises(GraphError, match=part) as err:
            g.attrs["copies"] = bad  # parsed as it is set: refused then
            check_structure(g)
        assert "\n" not in str(err.value)


def test_shared_raggedness_against_the_loop_order_is_refused_in_one_line():
    with pytest.raises(CompileError, match="shares raggedness") as err:
        custard.compile("X(i,j)=A(i,j)*B(i,j)", {"A": "ds:1,0", "B": "ds:1,0"}, "ij",
                        shared="A,B")
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("schedule", [
    ["split(k,k0,k1,2)", "pos(k1,kp,B)"],          # pos of a part of a split loop
    ["fuse(i,k,f)", "fuse(f,j,f)"],               # TACO's fuse reusing a replaced name
    ["split(i,i0,i1,2)", "fuse(i1,k,f)", "pos(f,fp,B)"],
])
def test_pos_and_fuse_of_split_parts(schedule):
    expression, formats = "X(i,j)=B(i,k)*C(k,j)", {"X": "dd", "B": "ds", "C": "dd"}
    rng = np.random.default_rng(4)
    arrays = {"B": rng.integers(-2, 3, (4, 5)) * (rng.random((4, 5)) < 0.5) * 1.0,
              "C": rng.integers(-2, 3, (5, 3)) * 1.0}
    check(expression, formats, None, arrays, schedule=schedule)
