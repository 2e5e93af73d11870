"""custard.dag: GOGETA's intensity closed forms, dominance, Alg. 2/3 labels, the traffic model,
and programs of statements simulated (block CG against scipy, GCN against numpy)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse.linalg as spla
from hypothesis import given, settings
from hypothesis import strategies as st

import formats.io as fio
from custard.dag.bind import input_infos
from custard.dag.intensity import (
    chain_intensity,
    dominance,
    gemm_intensity,
    spmm_intensity,
    table1_hpc,
    table1_nn,
)
from custard.dag.labels import (
    HOLD,
    PIPELINEABLE,
    SEQUENTIAL,
    WRITEBACK,
    build_dag,
    pipeline_violation,
)
from custard.dag.program import parse_program, unroll
from custard.dag.run import compile_dag, run_units
from custard.dag.shapes import TensorInfo
from custard.dag.traffic import all_configs, gogeta, seq_flex, words_of_mb
from formats.tensor import Tensor
from sam.errors import CompileError

EXAMPLES = "custard/dag/examples"


def _dense(a: np.ndarray) -> Tensor:
    return Tensor.from_dense(np.asarray(a, float), "dd")


# ------------------------------------------------------------------------ closed forms
def test_gemm_intensity_closed_forms() -> None:
    assert gemm_intensity(1000, 1000, 1000) == pytest.approx(1000 / 3)
    assert round(gemm_intensity(1000, 1000, 1000), 2) == 333.33
    assert gemm_intensity(10**6, 8, 8) == pytest.approx(3.999984, abs=1e-7)
    # Eq. 9: a skewed GEMM tends to N/2; Eq. 11: an SpMM stays below it
    assert gemm_intensity(10**12, 16, 16) == pytest.approx(8, rel=1e-6)
    assert spmm_intensity(5 * 10**6, 10**6, 10**6, 8) < 4


def test_table1_ratios() -> None:
    d = 100
    nn = table1_nn(d, d, d, d, d, d, d)
    hpc = table1_hpc(d, d, d, d)
    assert nn[1] / nn[0] == pytest.approx(15 / 7)
    assert round(nn[1] / nn[0], 2) == 2.14
    assert hpc[1] / hpc[0] == pytest.approx(15 / 4)
    big = 10**12  # only N large: both chains gain 5x, from M/2 to 5M/2
    nn_big = table1_nn(8, big, 8, 8, 8, 8, 8)
    hpc_big = table1_hpc(8, big, 8, 8)
    for without, with_reuse in (nn_big, hpc_big):
        assert without == pytest.approx(8 / 2, rel=1e-6)
        assert with_reuse / without == pytest.approx(5.0, rel=1e-6)


NN_CHAIN = """
Z(m,n) = A(m,k)*B(k,n)
Y(o,n) = C(o,j)*Z(j,n)
X(p,n) = D(p,i)*Y(i,n)
W(q,n) = E(q,h)*X(h,n)
V(r,n) = F(r,g)*W(g,n)
"""

HPC_CHAIN = """
Z(m,n) = A(m,k)*B(k,n)
Y(o,n) = C(o,j)*Z(j,n)
X(m,n) = Z(m,i)*Y(i,n)
W(o,n) = Y(o,h)*X(h,n)
V(m,n) = X(m,g)*W(g,n)
"""


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 60), min_size=7, max_size=7))
def test_program_model_matches_table1_nn(dims: list[int]) -> None:
    m, n, k, o, p, q, r = dims
    prog = parse_program(NN_CHAIN)
    d = TensorInfo.dense
    inputs = {"A": d(m, k), "B": d(k, n), "C": d(o, m), "D": d(p, o), "E": d(q, p),
              "F": d(r, q)}
    assert chain_intensity(prog, inputs) == pytest.approx(table1_nn(m, n, k, o, p, q, r))


def test_program_model_hpc_chain_ratio() -> None:
    d = TensorInfo.dense(64, 64)
    without, with_reuse = chain_intensity(parse_program(HPC_CHAIN),
                                          {"A": d, "B": d, "C": d})
    assert with_reuse / without == pytest.approx(15 / 4)
    assert (without, with_reuse) == pytest.approx(table1_hpc(64, 64, 64, 64))


# -------------------------------------------------------------------------- dominance
@pytest.mark.parametrize("sizes, summed, expected", [
    ((1000, 16, 16), (), ("small", None)),       # 1000 is not > 1000
    ((5000, 40, 40), (), ("U", "m")),            # > 1000 and 5000:40 > 100:1
    ((5000, 40, 40), ("m",), ("C", "m")),
    ((500, 60, 60), (), ("bal", None)),          # none dominant, all >= 50
    ((1001, 10, 10), (), ("U", "m")),
    ((1001, 11, 11), (), ("small", None)),       # 1001:11 < 100:1
    ((10**6, 10**6, 8), (), ("small", None)),    # two large ranks: neither dominates
    ((50, 50, 50), (), ("bal", None)),
    ((49, 50, 50), (), ("small", None)),
])
def test_dominance_thresholds(sizes, summed, expected) -> None:
    assert dominance(dict(zip("mkn", sizes, strict=True)), summed) == expected


# ------------------------------------------------------------------------------ labels
def _cg_dag(m: int = 10**6, n: int = 8, nnz: int = 4996000, iterations: int = 1):
    prog = parse_program(open(f"{EXAMPLES}/cg.dag").read(), "cg.dag")
    if iterations > 1:
        prog = unroll(prog, iterations)
    d = TensorInfo.dense
    inputs = {"A": TensorInfo((m, m), nnz, True), "P": d(m, n), "R": d(m, n), "X": d(m, n),
              "Gamma": d(n, n)}
    return build_dag(prog, inputs)


def test_cg_labels_as_figure7() -> None:
    dag = _cg_dag()
    doms = {n.name: n.dominance for n in dag.nodes if n.op == "tensor_mac"}
    assert doms == {"S": "U", "Delta": "C", "X": "U", "R": "U", "Gamma": "C", "P": "U"}
    labels = {(dag.nodes[e.src].name, dag.nodes[e.dst].name, e.tensor): (e.label, e.multicast)
              for e in dag.edges}
    assert labels[("S", "Delta", "S")] == (PIPELINEABLE, False)
    assert labels[("S", "R", "S")] == (WRITEBACK, False)
    assert labels[("R", "Gamma", "R")] == (PIPELINEABLE, False)
    assert labels[("R", "P", "R")] == (WRITEBACK, False)
    assert labels[("Lambda", "X", "Lambda")] == (SEQUENTIAL, True)  # multicast, host source
    assert labels[("Lambda", "R", "Lambda")] == (SEQUENTIAL, True)
    assert labels[("Delta", "Lambda", "Delta")] == (SEQUENTIAL, False)
    # at a small size every node is 'small'; an edge into a host step stays sequential
    small = _cg_dag(m=14, n=1, nnz=46)
    assert all(e.label == SEQUENTIAL for e in small.edges if small.nodes[e.dst].op == "host")
    assert dag.swizzle_penalty == 0
    assert next(n for n in dag.nodes if n.name == "Lambda").parallel_multicast


def test_hold_when_path_pipelines() -> None:
    # a skip connection: B -> C directly and through a pipelineable chain of U nodes
    prog = parse_program("""
    T(i,n) = A(i,k)*B(k,n)
    U(i,n) = T(i,j)*W(j,n)
    V(i,n) = U(i,j)*W(j,n) + T(i,n)
    """)
    d = TensorInfo.dense
    dag = build_dag(prog, {"A": d(5000, 8), "B": d(8, 8), "W": d(8, 8)})
    lab = {(e.src, e.dst): e.label for e in dag.edges}
    assert lab == {(0, 1): PIPELINEABLE, (1, 2): PIPELINEABLE, (0, 2): HOLD}


def test_hold_needs_every_path_edge_pipelineable() -> None:
    # T -> U is sequential (U's dominant rank i is not a rank of T(k,n)), so T -> V writes back
    prog = parse_program("""
    T(i,n) = A(i,k)*B(k,n)
    U(i,n) = C(i,k)*T(k,n)    -f=C:ds
    V(i,n) = U(i,j)*W(j,n) + T(i,n)
    """)
    d = TensorInfo.dense
    dag = build_dag(prog, {"A": d(5000, 8), "B": d(8, 8), "C": TensorInfo((5000, 5000), 9000, True),
                           "W": d(8, 8)})
    lab = {(e.src, e.dst): e.label for e in dag.edges}
    assert lab == {(0, 1): SEQUENTIAL, (1, 2): PIPELINEABLE, (0, 2): WRITEBACK}


def test_swizzled_consumer_is_sequential() -> None:
    text = """
    Z(i,n) = A(i,k)*X(k,n)    -f=A:ds
    Y(i,o) = Z(i,j)*W(j,o)    {order}
    """
    d = TensorInfo.dense
    inputs = {"A": TensorInfo((5000, 5000), 20000, True), "X": d(5000, 8), "W": d(8, 8)}
    straight = build_dag(parse_program(text.format(order="")), inputs)
    assert [e.label for e in straight.edges] == [PIPELINEABLE]
    assert not straight.edges[0].swizzled
    swz = build_dag(parse_program(text.format(order="-s=reorder(j,i,o)")), inputs)
    edge = swz.edges[0]
    assert edge.label == SEQUENTIAL and edge.swizzled
    assert "swizzled" in edge.reason
    assert swz.swizzle_penalty == 1


def test_contracted_producer_outer_loop_is_sequential() -> None:
    text = "Z(i,n) = A(i,k)*X(k,n) -s=reorder(k,i,n)\nY(i,o) = Z(i,j)*W(j,o)\n"
    d = TensorInfo.dense
    dag = build_dag(parse_program(text), {"A": d(5000, 8), "X": d(8, 8), "W": d(8, 8)})
    assert dag.edges[0].label == SEQUENTIAL
    assert "contracted" in dag.edges[0].reason


# ----------------------------------------------------------------------------- traffic
def test_cg_traffic_reuse_below_op_by_op() -> None:
    dag = _cg_dag(iterations=3)
    for mb in (1, 4, 16):
        c = all_configs(dag, words_of_mb(mb))
        assert c["ideal"].total <= c["gogeta"].total < c["seq_flex"].total
        assert c["seq_overflow"].total <= c["seq_flex"].total
    # a small problem fits: reuse reaches the ideal
    small = _cg_dag(m=2003, n=8, nnz=83883, iterations=3)
    c = all_configs(small, words_of_mb(4))
    assert c["gogeta"].total == c["ideal"].total


@st.composite
def chains(draw):
    """Random programs: products of earlier results and inputs, additions, updates, host
    steps, random formats, shapes and kept tensors."""
    sizes = [draw(st.integers(1, 40)) for _ in range(4)]
    shapes: dict[str, tuple[int, int]] = {}
    inputs: dict[str, TensorInfo] = {}
    lines: list[str] = []

    def operand(rows: int | None) -> str:
        names = [n for n, s in shapes.items() if rows is None or s[0] == rows]
        if names and draw(st.booleans()):
            return draw(st.sampled_from(names))
        name = f"I{len(inputs)}"
        r = rows if rows is not None else draw(st.sampled_from(sizes))
        c = draw(st.sampled_from(sizes))
        sparse = draw(st.booleans())
        inputs[name] = TensorInfo((r, c), draw(st.integers(0, r * c)) if sparse else r * c,
                                  sparse)
        shapes[name] = (r, c)
        return name

    for k in range(draw(st.integers(1, 6))):
        left = operand(None)
        right = operand(shapes[left][1])
        target = draw(st.sampled_from([f"T{k}", *[n for n in shapes if n.startswith("T")]]))
        kind = draw(st.sampled_from(["mul", "mul", "update", "host"]))
        shape = (shapes[left][0], shapes[right][1])
        if target in shapes and shapes[target] != shape:
            target = f"T{k}"
        if kind == "host":
            lines.append(f"host: {target} = {left} @ {right}")
        elif kind == "update" and target in shapes:
            lines.append(f"{target}(i,j) += {left}(i,k)*{right}(k,j)")
        else:
            lines.append(f"{target}(i,j) = {left}(i,k)*{right}(k,j)")
        shapes[target] = shape
    return "\n".join(lines), inputs


@settings(max_examples=60, deadline=None)
@given(chains(), st.integers(0, 3000))
def test_reuse_never_exceeds_op_by_op(chain, capacity) -> None:
    text, inputs = chain
    prog = parse_program(text)
    dag = build_dag(prog, {n: inputs[n] for n in prog.inputs()})
    for e in dag.edges:  # Alg. 3 leaves no pipelined edge its loop orders cannot pipeline
        if e.label in (PIPELINEABLE, HOLD):
            src, dst = dag.nodes[e.src], dag.nodes[e.dst]
            assert not e.swizzled
            assert pipeline_violation(dag, e, src.order, dst.order) == ""
    c = all_configs(dag, capacity)
    assert c["ideal"].total <= c["gogeta"].total <= c["seq_flex"].total
    assert c["seq_overflow"].total <= c["seq_flex"].total
    for a, b in zip(c["gogeta"].ops, c["seq_flex"].ops, strict=True):
        assert a.reads <= b.reads
    # an SRAM that holds everything reaches the ideal
    big = sum(i.words for i in inputs.values()) + sum(o.writes.words for o in dag.sizes)
    assert gogeta(dag, big).total == all_configs(dag, big)["ideal"].total


# ------------------------------------------------------------------- parsing and errors
@pytest.mark.parametrize("text, message", [
    ("S(i,n) = A(i,k)*P(k,n) -f=A:xs", "line 1"),
    ("S(i,n) = A(i,k)*P(k,n)\nS(i) = P(i,k)", "line 2"),
    ("S(i,n) = A(i,k)*P(k,n) -s=reorder(i,q)", "q"),
    ("host: L = open(D)", "host step calls only"),
    ("host: L = D.shape", "only attribute"),
    ("S(i,n) = A(i,k)*P(k,n) -q", "unknown option"),
    ("X(i) = A(i,k)*P(k) -f=A:ds\nY(i) = A(i,k)*P(k) -f=A:ss", "one format"),
    ("# nothing", "no statements"),
    ("out: Q\nS(i) = A(i,k)*P(k)", "out: names Q"),
])
def test_program_errors(text: str, message: str) -> None:
    with pytest.raises(CompileError, match=message):
        parse_program(text)


def test_program_updates_and_host() -> None:
    prog = parse_program("X(i,n) -= P(i,j)*L(j,n)  # c\nhost: L2 = inv(L) @ L.T\nout: X")
    a, b = prog.statements
    assert a.expression == "X(i,n) = X(i,n) - (P(i,j)*L(j,n))"
    assert a.reads == ("X", "P", "L") and b.host and b.reads == ("L",)
    assert prog.inputs() == ["X", "P", "L"] and prog.outputs() == ["X"]


# ------------------------------------------------------------------------- simulation
def _cg_solve(name: str, engine: str, limit: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Block CG with N=1 by the DAG's SAM units, iterated; the prologue in numpy."""
    a = fio.load_tensor(name, "ds")
    mat = a.to_scipy().tocsr()
    m = mat.shape[0]
    b = np.random.default_rng(1).random((m, 1))
    x = np.zeros((m, 1))
    r = b - mat @ x
    tensors = {"A": a, "P": _dense(r), "R": _dense(r), "X": _dense(x), "Gamma": _dense(r.T @ r)}
    prog = parse_program(open(f"{EXAMPLES}/cg.dag").read())
    dag = build_dag(prog, input_infos(prog, tensors))
    units = compile_dag(dag)
    iterations = 0
    while iterations < limit:
        result = run_units(dag, units, tensors, engine=engine)
        tensors = {n: result.tensors[n] for n in tensors}
        iterations += 1
        if np.diag(tensors["Gamma"].to_dense()).max() <= 1e-24 * float((b.T @ b)[0, 0]):
            break
    return tensors["X"].to_dense(), b, iterations


@pytest.mark.parametrize("name, engine, limit", [("LFAT5", "reference", 60),
                                                  ("bcsstm02", "fast", 30)])
def test_block_cg_converges_like_scipy(name: str, engine: str, limit: int) -> None:
    x, b, iterations = _cg_solve(name, engine, limit)
    mat = fio.load_tensor(name, "ds").to_scipy().tocsr()
    ref, info = spla.cg(mat, b.ravel(), rtol=1e-13, maxiter=10 * mat.shape[0])
    assert info == 0 and iterations < limit
    assert np.linalg.norm(x.ravel() - ref) <= 1e-9 * np.linalg.norm(ref)


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_block_cg_iteration_n2_matches_numpy(engine: str) -> None:
    a = fio.load_tensor("LFAT5", "ds")
    mat = a.to_scipy().toarray()
    rng = np.random.default_rng(2)
    b, x = rng.random((14, 2)), rng.random((14, 2))
    r = b - mat @ x
    p, g = r.copy(), r.T @ r
    tensors = {"A": a, "P": _dense(p), "R": _dense(r), "X": _dense(x), "Gamma": _dense(g)}
    prog = parse_program(open(f"{EXAMPLES}/cg.dag").read())
    dag = build_dag(prog, input_infos(prog, tensors))
    out = run_units(dag, compile_dag(dag), tensors, engine=engine).tensors
    s = mat @ p
    lam = np.linalg.solve(p.T @ s, g)
    x2, r2 = x + p @ lam, r - s @ lam
    g2 = r2.T @ r2
    p2 = r2 + p @ np.linalg.solve(g, g2)
    for name, want in (("X", x2), ("R", r2), ("Gamma", g2), ("P", p2)):
        np.testing.assert_allclose(out[name].to_dense(), want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_gcn_program_matches_numpy(engine: str) -> None:
    a = fio.load_tensor("karate", "ds")
    rng = np.random.default_rng(3)
    x0, w0, w1 = rng.random((34, 6)), rng.random((6, 4)), rng.random((4, 3))
    tensors = {"A": a, "X0": _dense(x0), "W0": _dense(w0), "W1": _dense(w1)}
    prog = parse_program(open(f"{EXAMPLES}/gcn.dag").read())
    dag = build_dag(prog, input_infos(prog, tensors))
    units = compile_dag(dag)
    result = run_units(dag, units, tensors, engine=engine)
    dense = a.to_dense()
    want = dense @ ((dense @ x0) @ w0) @ w1
    np.testing.assert_allclose(result.tensors["X2"].to_dense(), want, rtol=1e-9)
    assert result.cycles > 0 and all(u.cycles > 0 for u in result.units)


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_gcn_fused_has_no_intermediate_in_memory(engine: str) -> None:
    pytest.importorskip("custard.dag.fusion")
    from sam.graph.validate import input_tensors, output_tensors

    a = fio.load_tensor("karate", "ds")
    rng = np.random.default_rng(4)
    x0, w0, w1 = rng.random((34, 5)), rng.random((5, 3)), rng.random((3, 2))
    tensors = {"A": a, "X0": _dense(x0), "W0": _dense(w0), "W1": _dense(w1)}
    prog = parse_program(open(f"{EXAMPLES}/gcn.dag").read())
    dag = build_dag(prog, input_infos(prog, tensors))
    units = compile_dag(dag)
    fused = [u for u in units if u.kind == "fused"]
    assert [u.fused_tensor for u in fused] == ["Z0", "Z1"]
    for u in fused:
        for phase in u.program.phases:
            assert u.fused_tensor not in input_tensors(phase.graph)
            assert u.fused_tensor not in output_tensors(phase.graph)
    result = run_units(dag, units, tensors, engine=engine)
    dense = a.to_dense()
    np.testing.assert_allclose(result.tensors["X2"].to_dense(),
                               dense @ ((dense @ x0) @ w0) @ w1, rtol=1e-9)
    assert "Z0" not in result.tensors and "Z1" not in result.tensors


def test_op_by_op_counts_every_operand() -> None:
    dag = _cg_dag(m=100, n=2, nnz=300)
    flex = seq_flex(dag)
    s = dag.sizes[0]  # S = A P: A (2*300+100) + P (200) in, S (200) out
    assert (flex.ops[0].reads, flex.ops[0].writes) == (900, 200)
    assert s.mults == 300 * 2


# --------------------------------------------------------------- reproduce and command line
def test_reproduce_gogeta_quick(tmp_path) -> None:
    from custard.reproduce import reproduce

    done = reproduce("gogeta", tmp_path, quick=True, scheduler="sync", progress=False,
                     log=False, use_cache=False)
    claims = (tmp_path / "gogeta-claims.md").read_text()
    assert "aft02 and nasa4704" in claims and (tmp_path / "gogeta.png").stat().st_size > 0
    rows = (tmp_path / "gogeta.csv").read_text().splitlines()
    assert rows[0].startswith("series,x,cycles")
    # ecology1's 18-30% gain at 1 MB is the one claim we miss (reported as measured)
    assert (done[0].passed, done[0].failed) == (8, 1)
    assert "geomean 6.28x" in claims


def _cli(*argv: str) -> tuple[int, str, str]:
    import contextlib
    import io

    from custard.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_cli_dag_run(tmp_path) -> None:
    dot = tmp_path / "dag.dot"
    graphs = tmp_path / "graphs.dot"
    code, out, err = _cli("dag", f"{EXAMPLES}/gcn.dag", "-t", "A=karate",
                          "-t", "X0=random:1:0:34x6", "-t", "W0=random:1:1:6x4",
                          "-t", "W1=random:1:2:4x3", "--run", "--engine", "reference",
                          "-o", str(dot), "--graphs", str(graphs), "--sram", "1")
    assert code == 0, err
    assert "[1] -> [2] Z0: pipelineable" in out and "total" in out
    assert dot.read_text().startswith("digraph DAG") and "pipelineable" in dot.read_text()
    assert graphs.read_text().count("digraph") >= 2


@pytest.mark.parametrize("argv, message", [
    (("dag", "/nonexistent.dag"), "/nonexistent.dag: no such program"),
    (("dag", f"{EXAMPLES}/gcn.dag"), "bind the program's inputs"),
    (("dag", f"{EXAMPLES}/gcn.dag", "-t", "A=karate"), "not bound"),
    (("dag", f"{EXAMPLES}/gcn.dag", "-t", "A=karate", "-t", "X0=random:1:0:34x6",
      "-t", "W0=random:1:1:7x4", "-t", "W1=random:1:2:4x3"), "gcn.dag line 5"),
    (("dag", f"{EXAMPLES}/gcn.dag", "--sram", "-1", "-t", "A=karate"), "--sram"),
    (("dag", f"{EXAMPLES}/gcn.dag", "--iterations", "0", "-t", "A=karate"), "--iterations"),
])
def test_cli_dag_errors(argv, message) -> None:
    code, out, err = _cli(*argv)
    assert code == 1 and err.count("\n") == 1 and err.startswith("custard: error:")
    assert message in err


def test_cli_dag_cg_binds_and_runs() -> None:
    code, out, err = _cli("dag", f"{EXAMPLES}/cg.dag", "-t", "A=LFAT5", "-t",
                          "P=random:1:0:14x2", "-t", "R=P", "-t", "X=random:1:1:14x2",
                          "-t", "Gamma=random:1:2:2x2", "--run", "--iterations", "2",
                          "--engine", "reference")
    assert code == 0, err
    assert "[1] -> [5] S: pipeline_with_writeback transitive" in out
    assert "[3] -> [4] Lambda: parallel_multicast (sequential)" in out
    total = next(line for line in out.splitlines() if line.strip().startswith("total"))
    assert int(total.split()[1]) > 0


def test_tiling_across_clusters_ops_4_and_5() -> None:
    from custard.dag.traffic import noc_traversals

    m, n = 10**6, 8
    pairs = {(p.tensor, p.dst): p for p in noc_traversals(_cg_dag(m=m, n=n), clusters=16)}
    r = next(p for (t, _), p in pairs.items() if t == "R")
    assert r.df == m * n  # sizeof(R) crosses between clusters
    assert r.mapped == 2 * n * n * 15  # Lambda broadcast + Gamma reduced over 15 links


def test_streams_override_counts_unfused_edges_through_memory() -> None:
    from custard.reproduce.gogeta import _gcn

    dag = _gcn(2708, 9464, 1433, 7)  # Table 2's Cora: Z does not fit 1 MB
    cap = words_of_mb(1)
    labelled, none = gogeta(dag, cap), gogeta(dag, cap, streams=set())
    fused = gogeta(dag, cap, streams={(0, 1, "Z")})
    assert labelled.total == fused.total == all_configs(dag, cap)["ideal"].total
    z = 2708 * 1433
    assert none.total > labelled.total + z  # Z written (overflowing the SRAM) and read back
