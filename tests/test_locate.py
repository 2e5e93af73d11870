"""Iterate-locate emitted by Custard (SAM paper Sec. 4.2, Def. 4.1; :mod:`custard.locate`).

Locating never changes a result: random vector/matrix pairs (hypothesis) and the whole kernel
suite, located everywhere possible, coiterated and by default, on both engines, unbounded and
with FIFOs of depth 1-4, equal numpy (and each other). The graphs have the locators the policy
asks for: the locate-fused SDDMM has no intersecter at i and j.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import custard
from custard.cli import graph_from_command_line
from formats import Tensor
from formats.format import Format
from formats.io import load_tensor
from sam.bind import bind_tensors
from sam.check import compare, expected
from sam.errors import CompileError
from sam.graph.implicit import index_sizes
from sam.notation.parse import parse_expression
from sam.notation.reference import evaluate
from sam.sim.engine import simulate

from helpers.roundtrip import load_script, through_dot

ROOT = Path(__file__).resolve().parents[1]
SDDMM = "X(i,j)=B(i,j)*C(i,k)*D(j,k)"
SDDMM_FORMATS = {"X": "ss", "B": "ss", "C": "dd", "D": "dd"}


def types_at(graph, dot_type: str) -> Counter:
    """How many blocks of ``dot_type`` each index variable has."""
    return Counter(b.attrs.get("index") for b in graph.blocks.values()
                   if b.dot_type == dot_type)


# ----------------------------------------------------------------------------- graphs
def test_sddmm_located_has_no_intersecter_at_i_and_j():
    graph = custard.compile(SDDMM, SDDMM_FORMATS, "ijk")
    # k intersects two dense levels: locating would save nothing, it stays a coiteration
    assert types_at(graph, "intersect") == Counter({"k": 1})
    located = {(b.attrs["index"], b.tensor) for b in graph.blocks.values()
               if b.dot_type == "locate"}
    assert located == {("i", "C"), ("j", "D")}
    # C's and D's dense levels at i and j are never scanned: only B's are
    scanned = {(b.attrs["index"], b.tensor) for b in graph.blocks.values()
               if b.dot_type == "fiberlookup"}
    assert scanned == {("i", "B"), ("j", "B"), ("k", "C"), ("k", "D")}
    # asked for, D is located at k too
    graph = custard.compile(SDDMM, SDDMM_FORMATS, "ijk", schedule="locate(D)")
    assert types_at(graph, "intersect") == Counter()
    assert types_at(graph, "locate") == Counter({"i": 1, "j": 1, "k": 1})


def test_coiteration_graph_stays_reachable():
    for graph in (custard.compile(SDDMM, SDDMM_FORMATS, "ijk", locate=False),
                  custard.compile(SDDMM, SDDMM_FORMATS, "ijk", schedule="coiterate()"),
                  graph_from_command_line([SDDMM, *(f"-f={t}:{f}" for t, f in
                                                    SDDMM_FORMATS.items()),
                                           "-s=reorder(i,j,k)", "--no-locate"])):
        assert types_at(graph, "intersect") == Counter({"i": 1, "j": 1, "k": 1})
        assert types_at(graph, "locate") == Counter()


def test_per_tensor_schedule():
    # coiterate(D): D is intersected at j and leads at k, where C follows
    graph = custard.compile(SDDMM, SDDMM_FORMATS, "ijk", schedule="coiterate(D)")
    assert types_at(graph, "intersect") == Counter({"j": 1})
    assert {b.tensor for b in graph.blocks.values() if b.dot_type == "locate"} == {"C"}
    # locate(c) into a compressed vector: searched (format compressed), not by default
    spmv = "x(i)=B(i,j)*c(j)"
    assert types_at(custard.compile(spmv, {"c": "s"}), "locate") == Counter()
    graph = custard.compile(spmv, {"c": "s"}, schedule="locate(c)")
    (loc,) = [b for b in graph.blocks.values() if b.dot_type == "locate"]
    assert (loc.tensor, loc.attrs["format"], loc.attrs["index"]) == ("c", "compressed", "j")
    assert types_at(graph, "intersect") == Counter()
    # later commands win
    graph = custard.compile(spmv, {"c": "d"}, schedule=["coiterate(c)", "locate(c)"])
    assert types_at(graph, "locate") == Counter({"j": 1})


def test_two_searched_operands_one_is_coiterated():
    """Only one follower that may miss a coordinate per intersection (the locator passes one
    other reference); the other searched operand is coiterated with the leader."""
    graph = custard.compile("x(i)=b(i)*c(i)*d(i)", schedule="locate(c,d)")
    assert types_at(graph, "intersect") == Counter({"i": 1})
    assert types_at(graph, "locate") == Counter()
    graph = custard.compile("x(i)=b(i)*c(i)", schedule="locate(b,c)")
    assert types_at(graph, "intersect") == Counter()
    assert types_at(graph, "locate") == Counter({"i": 1})


def test_locate_request_that_cannot_be_honoured_is_a_notice():
    graph = custard.compile("x(i)=b(i)+c(i)", schedule="locate(c)")
    assert any("locate(c)" in n for n in graph.notices)


@pytest.mark.parametrize("schedule, message", [
    ("locate(q)", "'q' is not a tensor of the expression"),
    ("locate()", "locate takes the tensors to locate"),
    ("coiterate(q)", "'q' is not a tensor"),
])
def test_bad_schedules(schedule, message):
    with pytest.raises(CompileError, match=message) as err:
        custard.compile("x(i)=B(i,j)*c(j)", schedule=schedule)
    assert "\n" not in str(err.value)


# ----------------------------------------------------------------------------- results
PAIRS = [
    ("x(i)=b(i)*c(i)", "i"),
    ("x(i)=B(i,j)*c(j)", "ij"),
    ("x(j)=B(i,j)*c(i)", "ij"),
    ("X(i,j)=B(i,j)*C(i,j)", "ij"),
    ("X(i,j)=B(i,j)*c(j)", "ij"),
    ("x(i)=b(i)+C(i,j)*d(j)", "ij"),
    ("X(i,j)=B(i,j)*C(i,k)*D(j,k)", "ijk"),
    ("X(i,j)=B(i,k)*C(k,j)", "ikj"),
    ("x=B(i,j)*C(i,j)", "ij"),
    ("X(i,j)=(B(i,j)+C(i,j))*D(i,j)", "ij"),
    ("X(i,j)=B(i,j)+C(i,j)*D(i,j)", "ij"),
    ("x(i)=(b(i)+c(i))*d(i)", "i"),
]


@st.composite
def located_case(draw):
    expr, order = draw(st.sampled_from(PAIRS))
    assign = parse_expression(expr)
    names = list(dict.fromkeys(a.name for a in assign.rhs.accesses()))
    orders = {a.name: len(a.indices) for a in assign.rhs.accesses()}
    fmts = {n: "".join(draw(st.sampled_from("ds")) for _ in range(orders[n])) for n in names}
    policy = draw(st.sampled_from(["default", "coiterate()", "all"]))
    schedule = {"default": [], "coiterate()": ["coiterate()"],
                "all": [f"locate({','.join(names)})"]}[policy]
    sizes = {v: draw(st.integers(0, 6)) for v in order}
    density = draw(st.sampled_from([0.0, 0.2, 0.5, 1.0]))
    seed = draw(st.integers(0, 2**16))
    engine = draw(st.sampled_from(["reference", "fast"]))
    depth = draw(st.sampled_from([None, 1, 2, 3, 4]))
    return expr, order, fmts, schedule, sizes, density, seed, engine, depth


def random_operands(expr: str, fmts: dict[str, str], sizes: dict[str, int], density: float,
                    seed: int) -> dict[str, Tensor]:
    rng = np.random.default_rng(seed)
    out = {}
    for acc in parse_expression(expr).rhs.accesses():
        shape = tuple(sizes[v] for v in acc.indices)
        arr = rng.integers(1, 9, size=shape).astype(float)
        arr[rng.random(shape) >= density] = 0.0
        out[acc.name] = Tensor.from_dense(arr, fmts[acc.name], name=acc.name)
    return out


@settings(max_examples=50, deadline=None)
@given(located_case())
def test_locating_never_changes_a_result(case):
    expr, order, fmts, schedule, sizes, density, seed, engine, depth = case
    graph = through_dot(custard.compile(expr, fmts, order, schedule=schedule))
    tensors = random_operands(expr, fmts, sizes, density, seed)
    want = evaluate(expr, {n: t.to_dense() for n, t in tensors.items()})
    base = through_dot(custard.compile(expr, fmts, order, locate=False))
    for g in (graph, base):
        res = simulate(g, tensors, engine=engine, fifo_depth=depth)
        np.testing.assert_array_equal(res.outputs[graph_output(expr)].to_dense(), want)


def graph_output(expr: str) -> str:
    return expr.split("=")[0].split("(")[0]


SUITE = [line.split("\t") for line in
         (ROOT / "dot_graphs" / "kernel-suite.tsv").read_text().splitlines() if line.strip()]
record_counts = load_script("record_counts")


@pytest.mark.parametrize("k, name, line", [(k, n, line) for k, (n, line) in enumerate(SUITE)
                                           if "WRONG" not in n], ids=lambda x: str(x))
def test_kernel_suite_located_everywhere(k, name, line):
    """Every suite kernel with every operand located where it is intersected (dense levels
    computed, compressed ones searched) equals the gold result, on both engines, unbounded and
    with a FIFO depth of 1-4, and its coiterated graph (``--no-locate``) gives the same."""
    base = graph_from_command_line(line + " --no-locate")
    operands = sorted({b.tensor for b in base.blocks.values()
                       if b.dot_type == "fiberlookup" and b.tensor})
    located = through_dot(graph_from_command_line(line + f" -s=locate({','.join(operands)})"))
    tensors = bind_tensors(located, record_counts._specs(located, 0.4, 6))
    gold = expected(located.attrs["expression"], tensors, index_sizes(located),
                    located.formats)
    out = next(b.tensor for b in located.blocks.values() if b.family == "write")
    depth = 1 + k % 4
    runs = {}
    base = through_dot(base)
    for graph, label in ((located, "located"), (base, "coiterated")):
        for engine in ("reference", "fast"):
            for fifo in (None, depth):
                res = simulate(graph, tensors, engine=engine, fifo_depth=fifo)
                assert compare(res.outputs[out], gold).passed, (label, engine, fifo)
                runs[(label, engine, fifo)] = res.cycles
    for fifo in (None, depth):  # the engines agree cycle for cycle
        assert runs[("located", "reference", fifo)] == runs[("located", "fast", fifo)]


def test_sddmm_on_a_real_matrix_both_engines():
    b = load_tensor("west0479", "ss")
    rng = np.random.default_rng(3)
    c = Tensor.from_dense(rng.integers(1, 5, (b.shape[0], 3)).astype(float), "dd")
    d = Tensor.from_dense(rng.integers(1, 5, (b.shape[1], 3)).astype(float), "dd")
    want = b.to_dense() * (c.to_dense() @ d.to_dense().T)
    cycles = {}
    for locate in (True, False):
        graph = through_dot(custard.compile(SDDMM, SDDMM_FORMATS, "ijk", locate=locate))
        for engine in ("reference", "fast"):
            res = simulate(graph, {"B": b, "C": c, "D": d}, engine=engine)
            np.testing.assert_allclose(res.outputs["X"].to_dense(), want, rtol=1e-12)
            cycles[(locate, engine)] = res.cycles
    assert cycles[(True, "reference")] == cycles[(True, "fast")]
    # B has about 4 nonzeros per row of 479: locating C and D is much faster
    assert cycles[(True, "fast")] * 5 < cycles[(False, "fast")]


# ----------------------------------------------------------------------------- scattered results
SCATTER = [
    ("x(i)=B(i,j)*c(j)", "ji", {"x": "d", "B": "ss:1,0", "c": "s"}, ["locate(x)"]),
    ("x(i)=B(i,j)*c(j)", "ij", {"x": "d", "B": "ss", "c": "d"}, ["locate(x)"]),
    ("X(i,j)=B(i,k)*C(k,j)", "kij", {"X": "dd", "B": "ss:1,0", "C": "ss"}, ["locate(X)"]),
    ("X(i,j)=B(i,k)*C(k,j)", "ikj", {"X": "dd", "B": "ss", "C": "ds"}, ["locate(X)"]),
    ("X(i,j)=B(i,k)*C(k,j)", "kji", {"X": "dd:1,0", "B": "ss:1,0", "C": "ss"}, ["locate(X)"]),
    ("x(j)=B(i,j)", "ij", {"x": "d", "B": "ss"}, ["locate(x)"]),
    ("X(j,k)=B(i,j,k)", "ijk", {"X": "dd", "B": "sss"}, ["locate(X)", "coiterate(B)"]),
]


def test_linear_combination_spmv_needs_no_vector_reducer():
    """Sec. 4.2: the dense result supports random insert, so the scattered sum over j is
    added into x at the located i (an arraystore), not gathered by a vector reducer."""
    expr, order, fmts, sched = SCATTER[0]
    graph = custard.compile(expr, fmts, order, schedule=sched)
    kinds = Counter(b.dot_type for b in graph.blocks.values())
    assert kinds["spaccumulator"] == kinds["fiberwrite"] == kinds["reduce"] == 0
    assert kinds["arraystore"] == 1
    (loc,) = [b for b in graph.blocks.values() if b.dot_type == "locate"]
    assert (loc.tensor, loc.attrs["index"]) == ("x", "i")
    # by default (or after coiterate(x)) the vector reducer stays
    for g in (custard.compile(expr, fmts, order, schedule=["locate(x)", "coiterate(x)"]),
              custard.compile(expr, fmts, order),
              custard.compile(expr, fmts, order, locate=False)):
        assert Counter(b.dot_type for b in g.blocks.values())["spaccumulator"] == 1
    b = load_tensor("west0479", "ss:1,0")
    c = Tensor.from_dense(np.random.default_rng(5).random(b.shape[1]), "s")
    cycles = {}
    for g, label in ((graph, "scattered"), (custard.compile(expr, fmts, order), "reducer")):
        for engine in ("reference", "fast"):
            res = simulate(through_dot(g), {"B": b, "c": c}, engine=engine)
            np.testing.assert_allclose(res.outputs["x"].to_dense(),
                                       b.to_dense() @ c.to_dense(), rtol=1e-12)
            assert res.outputs["x"].format == Format.parse("d")
            cycles[(label, engine)] = res.cycles
    assert cycles[("scattered", "reference")] == cycles[("scattered", "fast")]
    assert cycles[("scattered", "fast")] < cycles[("reducer", "fast")]


def test_result_written_by_locating_must_be_dense():
    with pytest.raises(CompileError, match=r"locate\(x\): .* stored dense; give -f=x:d"):
        custard.compile("x(i)=B(i,j)*c(j)", {"x": "s"}, schedule="locate(x)")
    with pytest.raises(CompileError, match="sum inside it"):
        custard.compile("x(i)=B(i,j)*c(j)+d(i)", {"x": "d"}, schedule="locate(x)")
    with pytest.raises(CompileError, match="a scalar result has no level"):
        custard.compile("x=b(i)*c(i)", schedule="locate(x)")


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(SCATTER), st.integers(0, 5), st.integers(0, 5), st.integers(0, 5),
       st.sampled_from([0.0, 0.3, 0.7]), st.integers(0, 2**16),
       st.sampled_from(["reference", "fast"]), st.sampled_from([None, 1, 2, 3, 4]))
def test_scattered_results_equal_numpy(case, ni, nj, nk, density, seed, engine, depth):
    expr, order, fmts, sched = case
    graph = through_dot(custard.compile(expr, fmts, order, schedule=sched))
    assert any(b.dot_type == "arraystore" for b in graph.blocks.values())
    sizes = {"i": ni, "j": nj, "k": nk}
    tensors = random_operands(expr, fmts, sizes, density, seed)
    out = graph_output(expr)
    want = evaluate(expr, {n: t.to_dense() for n, t in tensors.items()})
    base = through_dot(custard.compile(expr, fmts, order, locate=False))
    for g in (graph, base):
        res = simulate(g, tensors, engine=engine, fifo_depth=depth)
        np.testing.assert_array_equal(res.outputs[out].to_dense(), want)
        assert res.outputs[out].format == graph.formats[out]


def test_follower_below_a_union_may_miss():
    """X = B + C .* D with D dense: after the union at i, C's and D's rows may be missing (a
    parent reference N), so D's locator at j passes C's references and drops what it lacks."""
    graph = custard.compile("X(i,j)=B(i,j)+C(i,j)*D(i,j)", {"D": "dd"}, "ij")
    locs = {b.attrs["index"]: b for b in graph.blocks.values() if b.dot_type == "locate"}
    assert set(locs) == {"i", "j"}
    ins = {(e.dst, e.dst_port.name) for e in graph.edges}
    assert (locs["j"].id, "ref:in") in ins and (locs["j"].id, "ref:parent") in ins
    # at i, D's root level is always there: its locator drops nothing and passes nothing
    assert (locs["i"].id, "ref:in") not in ins and (locs["i"].id, "ref:parent") not in ins


def test_bitvector_levels_are_not_located():
    """A locator walks stride, segment and single levels; a bitvector level stays coiterated
    (with a notice when locate(c) asked for it)."""
    graph = custard.compile("x(i)=b(i)*c(i)", {"b": "s", "c": "b", "x": "s"},
                            schedule="locate(c)")
    assert types_at(graph, "locate") == Counter()
    assert any("locate(c)" in n for n in graph.notices)

