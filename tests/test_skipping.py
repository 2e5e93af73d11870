"""Coordinate skipping (SAM paper Sec. 4.2) and the engine's feedback edges.

Token-exact unit tests of the skipping scanner and intersecter (``sam.sim.harness``), the
validator (a cycle not through a declared feedback input is refused), and differential tests:
skipping never changes a result, on random vector/matrix pairs and the kernel suite, on both
engines, with unbounded FIFOs and depths 1-4 (no deadlock), and both engines count the same
cycles.
"""

from __future__ import annotations

import shlex

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from custard.api import compile as compile_expr
from custard.skipping import add_skip_edges
from formats import Tensor
from formats.levels import level_named
from sam.blocks.merges import Intersecter
from sam.blocks.scanners import LevelScanner
from sam.errors import CompileError, GraphError
from sam.graph.dot import dumps, loads
from sam.graph.validate import check_structure
from sam.sim.engine import simulate
from sam.sim.harness import run_block

from helpers.kernel_suite import SUITE, expected, operands
from helpers.kernel_suite import suite_expression as _expression

ENGINES = ("reference", "fast")
DEPTHS = (None, 1, 2, 3, 4)


# --------------------------------------------------------------------------- the scanner
def skipping_scanner(tensor: str, mode: int = 0, root: bool = True) -> LevelScanner:
    s = LevelScanner(f"{tensor}{mode}", {"tensor": tensor, "mode": str(mode),
                                         "root": "true" if root else "false"})
    s.declare_port("in", "crd", f"skip-{tensor}")
    return s


VEC = Tensor.from_coo(np.array([[1], [3], [4], [6], [8], [9], [12], [15]]), np.ones(8), (16,),
                      "s")


@pytest.mark.parametrize("engine", ENGINES)
def test_scanner_jumps_to_the_first_coordinate_at_least_the_skip(engine):
    # cycle 0 emits 1; in cycle 1 the skip 6 has arrived: the scanner finds 6 and emits it.
    out = run_block(skipping_scanner("b"), {"crd:skip": "6"}, {"b": VEC},
                    arrivals={"crd:skip": [1]}, engine=engine)
    assert out["crd"] == "1, 6, 8, 9, 12, 15, S0, D"
    assert out["ref"] == "0, 3, 4, 5, 6, 7, S0, D"
    assert out.st[0] == 8  # next free cycle: 6 coordinates, a stop and the done token
    # A skip between stored coordinates lands on the next one; one past the last ends the fiber.
    out = run_block(skipping_scanner("b"), {"crd:skip": "10"}, {"b": VEC},
                    arrivals={"crd:skip": [2]}, engine=engine)
    assert out["crd"] == "1, 3, 12, 15, S0, D"
    out = run_block(skipping_scanner("b"), {"crd:skip": "16"}, {"b": VEC},
                    arrivals={"crd:skip": [1]}, engine=engine)
    assert out["crd"] == "1, S0, D"


@pytest.mark.parametrize("engine", ENGINES)
def test_scanner_skip_timing_follows_arrival(engine):
    # The same skip arriving later has less effect: coordinates already emitted stay.
    out = run_block(skipping_scanner("b"), {"crd:skip": "9"}, {"b": VEC},
                    arrivals={"crd:skip": [3]}, engine=engine)
    assert out["crd"] == "1, 3, 4, 9, 12, 15, S0, D"
    out = run_block(skipping_scanner("b"), {"crd:skip": "9"}, {"b": VEC},
                    arrivals={"crd:skip": [20]}, engine=engine)
    assert out["crd"] == "1, 3, 4, 6, 8, 9, 12, 15, S0, D"


@pytest.mark.parametrize("engine", ENGINES)
def test_scanner_stop_on_the_skip_stream_ends_the_fiber(engine):
    out = run_block(skipping_scanner("b"), {"crd:skip": "S0"}, {"b": VEC},
                    arrivals={"crd:skip": [2]}, engine=engine)
    assert out["crd"] == "1, 3, S0, D"
    assert out["ref"] == "0, 1, S0, D"


MAT = Tensor.from_dense(np.array([[1, 0, 1, 0, 0, 1, 0, 1, 0],
                                  [0, 1, 0, 1, 0, 0, 1, 0, 1]], dtype=float), "ss")


@pytest.mark.parametrize("engine", ENGINES)
def test_scanner_ignores_skips_behind_it_and_from_an_earlier_fiber(engine):
    # Rows: (0, 2, 5, 7) and (1, 3, 6, 8). The skips "7, S0" are for row 0 but arrive (cycle 3)
    # when the scanner stands at 7: 7 is not ahead, ignored; the row ends by itself (S0 in
    # cycle 4). The skip stream's S0 is then a stop of an earlier fiber: dropped in the firing
    # that starts row 1 (cycle 5, emitting 1). The skip 6 is row 1's: taken in cycle 6, 6 is
    # emitted instead of 3.
    out = run_block(skipping_scanner("B", 1, root=False),
                    {"ref": "0, 1, S0, D", "crd:skip": "7, S0, 6"}, {"B": MAT},
                    arrivals={"ref": [0, 0, 0, 0], "crd:skip": [3, 3, 3]}, engine=engine)
    assert out["crd"] == "0, 2, 5, 7, S0, 1, 6, 8, S1, D"


@pytest.mark.parametrize("engine", ENGINES)
def test_scanner_takes_one_skip_per_cycle(engine):
    # Two skips arrived by cycle 1: the first (3) is taken in cycle 1, the second (12) in 2.
    out = run_block(skipping_scanner("b"), {"crd:skip": "3, 12"}, {"b": VEC},
                    arrivals={"crd:skip": [1, 1]}, engine=engine)
    assert out["crd"] == "1, 3, 12, 15, S0, D"


# --------------------------------------------------------------------------- the intersecter
def skipping_intersecter(ops: str, skips: str) -> Intersecter:
    x = Intersecter("x", {"index": "i"}, operands=list(ops))
    for t in skips:
        x.declare_port("out", "crd", f"skip-{t}")
    return x


@pytest.mark.parametrize("engine", ENGINES)
def test_intersecter_tells_the_trailing_scanner_the_coordinate_it_needs(engine):
    x = skipping_intersecter("bc", "b")
    assert [p.name for p in x.outputs()] == ["crd", "ref:out-b", "ref:out-c", "crd:skip-b"]
    out = run_block(x, {"crd:in-b": "0, 1, 2, 3, 9, S0, D", "crd:in-c": "3, 9, S0, D"},
                    engine=engine)
    assert out["crd"] == "3, 9, S0, D"
    # 3 once (not again while b's coordinates already in flight are dropped), the fiber's stop.
    assert out["crd:skip-b"] == "3, S0"


@pytest.mark.parametrize("engine", ENGINES)
def test_intersecter_sends_a_stop_when_another_input_has_ended_its_fiber(engine):
    x = skipping_intersecter("bc", "bc")
    out = run_block(x, {"crd:in-b": "1, 5, 7, S0, 4, S1, D", "crd:in-c": "2, S0, 4, S1, D"},
                    engine=engine)
    assert out["crd"] == "S0, 4, S1, D"
    assert out["crd:skip-b"] == "2, S0, S1"  # c's fiber ended: b's may end too
    assert out["crd:skip-c"] == "5, S0, S1"


@pytest.mark.parametrize("engine", ENGINES)
def test_three_input_intersecter_skips_every_trailing_input(engine):
    x = skipping_intersecter("bcd", "bcd")
    out = run_block(x, {"crd:in-b": "1, 2, 8, S0, D", "crd:in-c": "4, 8, S0, D",
                        "crd:in-d": "8, 9, S0, D"}, engine=engine)
    assert out["crd"] == "8, S0, D"
    assert out["crd:skip-b"] == "8, S0"
    assert out["crd:skip-c"] == "8, S0"
    assert out["crd:skip-d"] == "S0"  # d held the largest; at the end c's stop ends d's fiber


def test_only_intersecters_send_skips():
    from sam.blocks.merges import Unioner

    u = Unioner("u", {"index": "i"}, operands=["b", "c"])
    with pytest.raises(GraphError, match="only an intersecter sends skips"):
        u.declare_port("out", "crd", "skip-b")


# --------------------------------------------------------------------------- graphs
def vec_mul(skip: bool = True, n: int = 3):
    names = "bcd"[:n]
    g = compile_expr("x(i)=" + "*".join(f"{t}(i)" for t in names),
                     {t: "s" for t in "x" + names})
    if skip:
        assert add_skip_edges(g) == n
    return g


def test_skip_edges_are_written_and_read_back():
    g = vec_mul()
    text = dumps(g)
    assert text.count('comment="skip-') == 3
    back = loads(text)
    assert back.signature() == g.signature()
    check_structure(back)


def test_a_cycle_not_through_a_feedback_input_is_refused():
    g = vec_mul(skip=False, n=2)
    text = dumps(g)
    inter = next(b for b, blk in g.blocks.items() if blk.dot_type == "intersect")
    scan = next(b for b, blk in g.blocks.items() if blk.dot_type == "fiberlookup")
    # A reference stream from the intersecter back into a (root) scanner's reference input.
    cyc = text.rstrip().rstrip("}") + (f'    {inter} -> {scan} [type="ref" comment="out-b"]\n}}')
    with pytest.raises(GraphError, match=r"has a cycle .*must be acyclic"):
        check_structure(loads(cyc))


def test_skip_schedule_errors():
    with pytest.raises(CompileError, match="at least two"):
        compile_expr("x(i)=b(i)*c(i)", schedule="skip(b)")
    with pytest.raises(CompileError, match="not an operand"):
        compile_expr("x(i)=b(i)*c(i)", schedule="skip(b,d)")
    with pytest.raises(CompileError, match="no intersecter merges"):
        compile_expr("x(i)=b(i)+c(i)", schedule="skip(b,c)")


def _tensor(v) -> Tensor:
    if sp.issparse(v):
        return Tensor.from_scipy(v)
    return Tensor.scalar(v) if np.ndim(v) == 0 else Tensor.from_dense(v)


def _run_both(g, plain, tensors, want, depth):
    """Skipping graph ``g`` and the plain graph agree with ``want`` on both engines; both
    engines count the same cycles."""
    cycles = {}
    for engine in ENGINES:
        for graph in (g, plain):
            r = simulate(graph, tensors, engine=engine, fifo_depth=depth)
            out = r.outputs["x"]
            got = out.to_dense() if hasattr(out, "to_dense") else out
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
            cycles[(engine, graph is g)] = r.cycles
    assert cycles[("reference", True)] == cycles[("fast", True)]
    assert cycles[("reference", False)] == cycles[("fast", False)]
    return cycles[("fast", True)], cycles[("fast", False)]


def _sparse_vec(draw, n):
    density = draw(st.sampled_from([0.0, 0.05, 0.3, 0.8, 1.0]))
    runs = draw(st.booleans())
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    v = np.where(rng.random(n) < density, rng.uniform(0.5, 2, n), 0.0)
    if runs:  # long runs of nonzeros: where skipping pays
        start = int(rng.integers(0, n))
        v[start: start + n // 3] = rng.uniform(0.5, 2, len(v[start: start + n // 3]))
    return v


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_skipping_never_changes_a_vector_product(data):
    n = data.draw(st.integers(1, 60))
    k = data.draw(st.integers(2, 3))
    vecs = [_sparse_vec(data.draw, n) for _ in range(k)]
    depth = data.draw(st.sampled_from(DEPTHS))
    tensors = {t: Tensor.from_dense(v, "s") for t, v in zip("bcd", vecs, strict=False)}
    want = np.prod(vecs, axis=0)
    _run_both(vec_mul(True, k), vec_mul(False, k), tensors, want, depth)


MATRIX_CASES = {
    "elemmul": ("x(i,j)=B(i,j)*C(i,j)", "", "ss"),
    "spmv": ("x(i)=B(i,j)*c(j)", "", "s"),
    "inner": ("x(i,j)=B(i,k)*C(k,j)", "reorder(i,j,k)", "ss10"),
}


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_skipping_never_changes_a_matrix_kernel(data):
    name = data.draw(st.sampled_from(sorted(MATRIX_CASES)))
    expr, sched, cfmt = MATRIX_CASES[name]
    n = data.draw(st.integers(1, 12))
    m = data.draw(st.integers(1, 12))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    depth = data.draw(st.sampled_from(DEPTHS))
    dens = data.draw(st.sampled_from([0.1, 0.4, 0.9]))
    B = sp.random(n, m, dens, random_state=rng, format="csr")
    if name == "elemmul":
        C = sp.random(n, m, dens, random_state=rng, format="csr").toarray()
    elif name == "spmv":
        C = _sparse_vec(data.draw, m)
    else:
        C = sp.random(m, n, dens, random_state=rng, format="csr").toarray()
    cname = "c" if name == "spmv" else "C"
    fmts = {cname: cfmt}
    g = compile_expr(expr, fmts, schedule=sched or None)
    plain = compile_expr(expr, fmts, schedule=sched or None)
    assert add_skip_edges(g) >= 2
    tensors = {"B": Tensor.from_scipy(B), cname: Tensor.from_dense(C)}
    want = B.toarray() * C if name == "elemmul" else B.toarray() @ C
    _run_both(g, plain, tensors, want, depth)


SKIPPED_SUITE = [n for n, line in SUITE.items() if "*" in shlex.split(line)[0]
                 and "WRONG" not in n]


@pytest.mark.parametrize("depth", [None, 1, 2, 3, 4])
@pytest.mark.parametrize("name", SKIPPED_SUITE)
def test_skipping_never_changes_a_suite_kernel(name, depth):
    from custard.cli import build_parser, result_from_args

    args = build_parser().parse_args(["compile", *shlex.split(SUITE[name]), "--skip"])
    g = result_from_args(args)
    assign = _expression(name)
    values = operands(assign, None, np.random.default_rng(len(name)), free=7)
    tensors = {k: _tensor(v) for k, v in values.items()}
    want = expected(assign, values)
    # skip edges exactly where an intersecter takes a compressed scanner's coordinates (an
    # intersection of dense levels has nothing to skip; dense operands are often located)
    assert any(e.src_port.name.startswith("crd:skip-") for e in g.edges) == any(
        g.blocks[e.dst].dot_type == "intersect" and e.kind == "crd"
        and g.blocks[e.src].dot_type == "fiberlookup"
        and not level_named(g.blocks[e.src].attrs.get("format", "compressed")).full
        for e in g.edges)
    cycles = set()
    for engine in ENGINES:  # no deadlock, even with FIFOs of depth 1 (custard.depths)
        r = simulate(g, tensors, engine=engine, fifo_depth=depth)
        out = r.outputs[assign.lhs.name]
        np.testing.assert_allclose(out.to_dense(), want, rtol=1e-9, atol=1e-9)
        cycles.add(r.cycles)
    assert len(cycles) == 1  # both engines count the same cycles


def test_skipping_pays_on_long_runs():
    """A run of 150 nonzeros in b against 3 of c: the scanner of b jumps."""
    b = np.zeros(400)
    b[100:250] = 1.0
    c = np.zeros(400)
    c[[5, 200, 390]] = 2.0
    tensors = {"b": Tensor.from_dense(b, "s"), "c": Tensor.from_dense(c, "s")}
    fast, slow = _run_both(vec_mul(True, 2), vec_mul(False, 2), tensors, b * c, None)
    assert fast * 10 < slow


@pytest.mark.parametrize("engine", ENGINES)
def test_worked_example_of_the_timing_model(engine):
    """docs/timing-model.md: b = 1..8 at coordinates 0..7, c one nonzero at 7."""
    b = np.zeros(10)
    b[:8] = np.arange(1, 9)
    c = np.zeros(10)
    c[7] = 2.0
    tensors = {"b": Tensor.from_dense(b, "s"), "c": Tensor.from_dense(c, "s")}
    got = {}
    for skip in (False, True):
        r = simulate(vec_mul(skip, 2), tensors, engine=engine)
        np.testing.assert_array_equal(r.outputs["x"].to_dense(), b * c)
        stats = {s.label: s for s in r.blocks.values()}
        scan_b, inter = stats["scan i: b0 (compressed)"], stats["intersect i"]
        got[skip] = (r.cycles, scan_b.busy, scan_b.tokens_out["data"] // 2, inter.finished)
    # plain: b emits 0..7, S0, D (10 firings); the intersecter's last firing (D) is in cycle 10
    assert got[False] == (14, 10, 8, 11)
    # skipping: b emits 0 and 1, takes skip 7 in cycle 2 and emits 7, then S0, D; the
    # intersecter drops 0 (sends 7) and 1, matches 7 in cycle 3, S0 in 4, D in 5
    assert got[True] == (9, 5, 3, 6)


@pytest.mark.parametrize("engine", ENGINES)
def test_stale_skips_do_not_pile_up_behind_short_fibers(engine):
    """TTV whose B fibers hold one or two coordinates: each fiber ends with a stop on B's skip
    stream, and B's scanner emits no coordinate inside such a fiber. It drops the skips of its
    earlier fibers in any firing, so its skip stream holds at most the last fiber's (it grew
    with the number of fibers before), and skipping c still matches numpy."""
    from formats.synthetic import random_tensor
    from sam.sim.engine import Simulation

    B = random_tensor((30, 30, 400), 1200 / (30 * 30 * 400), 3)
    c = random_tensor((400,), 0.5, 4)
    graph = compile_expr("X(i,j)=B(i,j,k)*c(k)", schedule="skip()")
    sim = Simulation(graph, {"B": B, "c": c}, capacity=16)
    result = sim.run(engine)
    skips = [ch.index for ch in sim.channels if ch.dst_port.feedback]
    assert len(skips) == 2
    for ch in skips:
        assert sim.wires.tail[ch] - sim.wires.head[ch] <= 2
    assert sim.wires.kind.shape[1] == 16  # no ring had to grow
    want = np.einsum("ijk,k->ij", B.to_dense(), c.to_dense())
    np.testing.assert_allclose(result.outputs["X"].to_dense(), want)
