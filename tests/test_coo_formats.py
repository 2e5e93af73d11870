"""Level formats ``u`` (compressed, non-unique), ``q`` (singleton) and ``c`` (singleton,
non-unique): storage, conversions, readers, and SAM graphs that scan them deduplicated.

Every simulation goes compile -> DOT text -> graph (``sam.graph.dot.dumps``/``loads``) and runs on
both engines, unbounded and with 2-deep FIFOs, against the dense reference
(:func:`sam.notation.reference.evaluate`).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import custard
from formats.errors import FormatError
from formats.format import Format
from formats.frostt import read_tns
from formats.io import load_tensor
from formats.levels import CompressedLevel, level_type, walk_levels
from formats.mtx import read_mtx
from formats.tensor import Tensor
from sam.errors import GraphError
from sam.graph import dot
from sam.notation.reference import evaluate
from sam.sim.engine import simulate

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --------------------------------------------------------------------------- formats
def always_buildable(order: int, truthful: bool = False) -> st.SearchStrategy[str]:
    """Level letters any tensor can be stored in: a singleton (q, c) only below a non-unique
    level or below singletons that are (a singleton below a unique level holds one point per
    parent position only). ``truthful``: a singleton with a singleton below is non-unique
    (``c``), as its coordinates repeat within a run of the level above for some tensors (a
    ``uqq`` claim is refused when scanned)."""

    @st.composite
    def draw(pick) -> str:
        letters = ""
        for _ in range(order):
            singleton_ok = bool(letters) and letters.rstrip("qc")[-1:] == "u"
            pool = "dsu" + ("qc" if singleton_ok else "")
            letters += pick(st.sampled_from(pool))
        if truthful:
            letters = "".join("c" if x == "q" and letters[k + 1: k + 2] in ("q", "c") else x
                              for k, x in enumerate(letters))
        return letters

    return draw()


def sparse_array(shape: tuple[int, ...]) -> st.SearchStrategy[np.ndarray]:
    size = int(np.prod(shape))
    return st.lists(st.sampled_from([0, 0, 0, 1, 2, -3]), min_size=size, max_size=size).map(
        lambda v: np.array(v, dtype=float).reshape(shape))


def test_capabilities_and_letters():
    u, q, c = level_type("u"), level_type("q"), level_type("c")
    assert (u.unique, u.branchless, u.positions, u.coordinates) == (False, False, "segment",
                                                                    "stored")
    assert (q.unique, q.branchless, q.positions, q.coordinates) == (True, True, "single", "stored")
    assert (c.unique, c.branchless) == (False, True)
    assert not any(lv.full or lv.has_locate for lv in (u, q, c))
    assert [lv.name for lv in (u, q, c)] == ["compressed_nonunique", "singleton",
                                             "singleton_nonunique"]
    assert Format.parse("uq:1,0").taco() == "uq:1,0"


def test_coo_arrays():
    coords = np.array([[2, 3], [0, 1], [2, 0], [0, 3], [2, 2]])
    t = Tensor.from_coo(coords, [5.0, 2.0, 3.0, 1.0, 4.0], (3, 4), "uq")
    assert t.levels[0].seg.tolist() == [0, 5] and t.levels[0].crd.tolist() == [0, 0, 2, 2, 2]
    assert t.levels[1].crd.tolist() == [1, 3, 0, 2, 3]
    assert t.vals.tolist() == [2.0, 1.0, 3.0, 4.0, 5.0]
    walked = walk_levels(t.levels)
    assert walked[0] == CompressedLevel(3, [0, 2], [0, 2])  # distinct rows, refs = run numbers
    assert walked[1] == CompressedLevel(4, [0, 2, 5], [1, 3, 0, 2, 3])  # runs as segments
    t3 = Tensor.from_coo([[0, 1, 1], [0, 1, 2], [1, 0, 0]], [1.0, 2.0, 3.0], (2, 2, 3), "ucq")
    assert [lv.crd.tolist() for lv in t3.levels] == [[0, 0, 1], [1, 1, 0], [1, 2, 0]]
    assert [lv.seg.tolist() for lv in walk_levels(t3.levels)] == [[0, 2], [0, 1, 2], [0, 2, 3]]
    # Without singletons below, a non-unique level stores each coordinate once.
    assert Tensor.from_coo(coords, np.ones(5), (3, 4), "us").levels[0].crd.tolist() == [0, 2]


def test_singleton_refuses_two_points_per_parent():
    with pytest.raises(FormatError, match="one coordinate per parent position"):
        Tensor.from_dense(np.array([[1.0, 2.0], [0.0, 3.0]]), "dq")
    t = Tensor.from_dense(np.array([[0.0, 2.0], [0.0, 0.0], [4.0, 0.0]]), "dq")
    assert t.levels[1].crd.tolist() == [1, 0, 0] and t.vals.tolist() == [2.0, 0.0, 4.0]
    np.testing.assert_array_equal(t.to_dense(), [[0, 2], [0, 0], [4, 0]])


@SETTINGS
@given(data=st.data())
def test_conversions_round_trip(data):
    order = data.draw(st.integers(1, 3))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=order, max_size=order)))
    arr = data.draw(sparse_array(shape))
    a = data.draw(always_buildable(order))
    b = data.draw(always_buildable(order))
    modes = data.draw(st.permutations(range(order)))
    fa = Format(tuple(a), tuple(modes))
    t = Tensor.from_dense(arr, fa)
    np.testing.assert_array_equal(t.to_dense(), arr)
    other = t.with_format(b)
    np.testing.assert_array_equal(other.to_dense(), arr)
    assert other.with_format(fa) == t
    coords, vals = t.to_coo()
    assert Tensor.from_coo(coords, vals, shape, fa) == t


def test_shipped_matrix_read_as_coo():
    t = read_mtx_shipped("bcsstm02", "uq")
    ref = load_tensor("bcsstm02", "ss")
    coords, vals = ref.to_coo()
    assert t.format == Format.parse("uq")
    assert t.levels[0].crd.tolist() == coords[:, 0].tolist()  # the sorted COO rows, as stored
    assert t.levels[1].crd.tolist() == coords[:, 1].tolist()
    assert t.vals.tolist() == vals.tolist()
    frostt = read_tns(str(shipped("frostt/splatt-small.tns")), "ucq")
    np.testing.assert_array_equal(frostt.to_dense(), load_tensor("splatt-small").to_dense())
    assert [type(lv).name for lv in frostt.levels] == ["compressed_nonunique",
                                                       "singleton_nonunique", "singleton"]


def shipped(rel: str):
    from pathlib import Path

    import formats.data
    return Path(formats.data.__file__).parent / rel


def read_mtx_shipped(name: str, fmt: str) -> Tensor:
    return read_mtx(str(shipped(f"suitesparse/{name}.mtx")), fmt)


# --------------------------------------------------------------------------- SAM on them
def run_all(expr: str, formats: dict[str, str], arrays: dict[str, np.ndarray]) -> None:
    """Compile, go through DOT text, simulate on both engines (unbounded and 2-deep FIFOs) and
    compare with the dense reference; the engines agree on cycles."""
    graph = dot.loads(dot.dumps(custard.compile(expr, formats=formats)))
    bound = {k: Tensor.from_dense(v, formats.get(k)) for k, v in arrays.items()}
    gold = evaluate(expr, arrays)
    out = expr.split("(")[0].split("=")[0].strip()
    for depth in (None, 2):
        cycles = set()
        for engine in ("reference", "fast"):
            res = simulate(graph, bound, engine=engine, fifo_depth=depth)
            np.testing.assert_array_equal(res.outputs[out].to_dense(), gold,
                                          err_msg=f"{expr} {formats} {engine} fifo={depth}")
            cycles.add(res.cycles)
        assert len(cycles) == 1, f"{expr} {formats}: engines disagree on cycles {cycles}"


EXPRESSIONS = [
    ("x(i)=B(i,j)*c(j)", {"B": 2, "c": 1}, "x"),
    ("X(i,j)=B(i,j)+C(i,j)", {"B": 2, "C": 2}, "X"),
    ("X(i,j)=B(i,j)*C(i,j)", {"B": 2, "C": 2}, "X"),
    ("X(i,j)=B(i,k)*C(k,j)", {"B": 2, "C": 2}, "X"),
    ("X(i,j)=B(i,j,k)*c(k)", {"B": 3, "c": 1}, "X"),
    ("x(k)=B(i,j,k)", {"B": 3}, "x"),
    ("X(i,j,k)=B(i,j,k)+C(i,j,k)", {"B": 3, "C": 3}, "X"),
    ("X(i,j)=B(i,k,l)*C(k,j)*D(l,j)", {"B": 3, "C": 2, "D": 2}, "X"),  # MTTKRP
    ("x(j)=B(i,j)*c(i)", {"B": 2, "c": 1}, "x"),
]


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_mixed_formats_simulate(data):
    expr, orders, out = data.draw(st.sampled_from(EXPRESSIONS))
    sizes = {v: data.draw(st.integers(1, 4), label=f"size {v}") for v in "ijkl"}
    formats: dict[str, str] = {}
    arrays: dict[str, np.ndarray] = {}
    lhs = expr.split("=")[0]
    out_vars = lhs[lhs.index("(") + 1: lhs.index(")")].split(",")
    for name, order in orders.items():
        rhs = expr.split("=")[1]
        at = rhs.index(name + "(")
        variables = rhs[at + len(name) + 1: rhs.index(")", at)].split(",")
        arrays[name] = data.draw(sparse_array(tuple(sizes[v] for v in variables)), label=name)
        formats[name] = data.draw(always_buildable(order, truthful=True), label=f"format {name}")
    formats[out] = data.draw(st.sampled_from(["s", "d", "u"] if len(out_vars) == 1 else
                                             ["ss", "ds", "uq", "us"] if len(out_vars) == 2 else
                                             ["sss", "ucq", "dss"]), label="result format")
    run_all(expr, formats, arrays)


@pytest.mark.parametrize("fmt", ["uq", "us", "ss"])
def test_shipped_matrix_spmv_as_coo(fmt):
    B = read_mtx_shipped("bcsstm02", fmt)
    assert B.format == Format.parse(fmt)
    c = np.arange(B.shape[1], dtype=float) % 3
    graph = dot.loads(dot.dumps(custard.compile("x(i)=B(i,j)*c(j)",
                                                formats={"B": fmt, "c": "d", "x": "s"})))
    gold = B.to_dense() @ c
    bound = {"B": B, "c": Tensor.from_dense(c, "d")}
    results = [simulate(graph, bound, engine=e) for e in ("reference", "fast")]
    for res in results:
        np.testing.assert_allclose(res.outputs["x"].to_dense(), gold)
    assert results[0].cycles == results[1].cycles


def test_dedup_scanner_cycles_per_distinct_coordinate():
    """A u level is scanned at one cycle per distinct coordinate: ``uq`` costs what ``ss``
    costs on the same matrix (docs/timing-model.md)."""
    arr = np.array([[1.0, 0, 2, 0], [0, 0, 0, 0], [3, 4, 0, 5]])
    cycles = {}
    for fmt in ("uq", "ss"):
        graph = dot.loads(dot.dumps(custard.compile("X(i,j)=B(i,j)", formats={"B": fmt,
                                                                               "X": "ss"})))
        res = simulate(graph, {"B": Tensor.from_dense(arr, fmt)})
        np.testing.assert_array_equal(res.outputs["X"].to_dense(), arr)
        cycles[fmt] = res.cycles
    assert cycles["uq"] == cycles["ss"]


def test_false_uniqueness_claim_is_one_line_error():
    """``uqq`` claims the middle level unique within a run of rows; data repeating it there is
    stored, but refused when scanned."""
    arr = np.zeros((2, 2, 2))
    arr[1, 1] = [1.0, 2.0]
    t = Tensor.from_dense(arr, "uqq")
    np.testing.assert_array_equal(t.to_dense(), arr)
    graph = custard.compile("x(i)=B(i,j,k)", formats={"B": "uqq", "x": "s"})
    with pytest.raises(GraphError, match="must ascend and be distinct") as err:
        simulate(dot.loads(dot.dumps(graph)), {"B": t})
    assert "\n" not in str(err.value)
    graph = custard.compile("x(i)=B(i,j,k)", formats={"B": "ucq", "x": "s"})
    res = simulate(dot.loads(dot.dumps(graph)), {"B": t.with_format("ucq")})
    np.testing.assert_array_equal(res.outputs["x"].to_dense(), arr.sum(axis=(1, 2)))


def test_unwalkable_non_unique_level_is_one_line_error():
    # A u level that repeats a coordinate above a compressed level cannot be told apart.
    u = level_type("u")(2, np.array([0, 2]), np.array([1, 1]))
    s = CompressedLevel(3, np.array([0, 1, 2]), np.array([0, 2]))
    t = Tensor((2, 3), Format.parse("us"), [u, s], np.array([1.0, 2.0]), "B")
    graph = custard.compile("X(i,j)=B(i,j)", formats={"B": "us", "X": "ss"})
    with pytest.raises(GraphError, match="only singleton levels") as err:
        simulate(dot.loads(dot.dumps(graph)), {"B": t})
    assert "\n" not in str(err.value)
