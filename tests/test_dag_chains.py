"""Fused chains and unary post-ops of ``custard dag`` programs (``custard.dag.run``,
``custard.dag.fusion.fuse_graphs``, ``custard.splice``): a chain of pipelineable edges
compiles to one graph that equals the unfused program and numpy on both engines (random inputs,
hypothesis), has no writer or scanner of the streamed tensors and takes fewer cycles; ``-u=OP``
applies a unary ALU to a statement's stored entries, inside a chain too; a link that cannot be
fused cuts the chain with a note; an unknown op is a one-line error naming the line."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custard.api import compile as compile_statement
from custard.dag.bind import input_infos
from custard.dag.fusion import (
    FUSED_ATTR,
    FUSED_TENSOR_ATTR,
    FUSED_UNARY_ATTR,
    fuse_graphs,
    loop_order,
)
from custard.dag.labels import Dag, build_dag
from custard.dag.program import parse_program
from custard.dag.run import DagRun, Unit, compile_dag, fusion_chains, run_units
from custard.splice import UNARY_ATTR, apply_unary, splice_unaries
from formats.tensor import Tensor
from sam.cli import Skipped, gold_for_check
from sam.errors import CompileError
from sam.graph.dot import dumps, loads
from sam.graph.validate import input_tensors, output_tensors
from sam.program import Program

ENGINES = ["fast", "reference"]
Arrays = dict[str, np.ndarray]


@dataclass(frozen=True)
class Chain:
    """A program with fusible chains: its text, its operands' shapes (``n`` and ``m`` are
    sizes drawn per example) and formats, the units it fuses into, and numpy's result."""

    text: str
    operands: dict[str, tuple[str, str]]  # name -> (shape, format)
    result: str
    units: list[list[int]]  # the nodes of each fused unit
    gold: Callable[[Arrays], np.ndarray]


def _bigbird(d: Arrays) -> np.ndarray:
    stored = d["M"] != 0
    return apply_unary(d["M"] * (d["Q"] @ d["K"].T), ["exp"], stored) @ d["V"]


def _softmax(d: Arrays) -> np.ndarray:
    e = apply_unary(d["M"] * (d["Q"] @ d["K"].T), ["exp"], d["M"] != 0)
    sums = e.sum(axis=1, keepdims=True)
    return (e / np.where(sums == 0, 1.0, sums)) @ d["V"]


SDDMM = "S(i,j)=M(i,j)*Q(i,d)*K(j,d) -f=M:ss -f=S:ss -f=Q:dd -f=K:dd\n"
ATTENTION = {"M": ("nxn", "ss"), "Q": ("nxm", "dd"), "K": ("nxm", "dd"), "V": ("nxm", "dd")}
CHAINS = {
    "matmul3": Chain(
        "T(i,k)=A(i,j)*B(j,k) -f=A:ss -f=B:ss -f=T:ss\n"
        "U(i,l)=T(i,k)*C(k,l) -f=C:ss -f=U:ss\n"
        "Y(i,m)=U(i,l)*D(l,m) -f=D:ss -f=Y:ss\n",
        {"A": ("nxm", "ss"), "B": ("mxn", "ss"), "C": ("nxm", "ss"), "D": ("mxn", "ss")}, "Y",
        [[0, 1, 2]], lambda d: d["A"] @ d["B"] @ d["C"] @ d["D"]),
    # relu inside the chain (its output streams on); two ops in order on the last statement
    "matmul3-relu": Chain(
        "T(i,k)=A(i,j)*B(j,k) -f=A:ss -f=B:ss -f=T:ss\n"
        "U(i,l)=T(i,k)*C(k,l) -u=relu -f=C:ss -f=U:ss\n"
        "Y(i,m)=U(i,l)*D(l,m) -u=abs -u=neg -f=D:ss -f=Y:ss\n",
        {"A": ("nxm", "ss"), "B": ("mxn", "ss"), "C": ("nxm", "ss"), "D": ("mxn", "ss")}, "Y",
        [[0, 1, 2]],
        lambda d: -np.abs(np.maximum(d["A"] @ d["B"] @ d["C"], 0.0) @ d["D"])),
    # each statement names its constant const0: the consumers' are renamed along the chain
    "constants": Chain(
        "T(i,j)=2*A(i,j) -f=A:ss -f=T:ss\nU(i,j)=T(i,j)*3*C(i,j) -f=C:ss -f=U:ss\n"
        "Y(i,j)=U(i,j)*4*D(i,j) -u=relu -f=D:ss -f=Y:ss\n",
        {"A": ("nxn", "ss"), "C": ("nxn", "ss"), "D": ("nxn", "ss")}, "Y", [[0, 1, 2]],
        lambda d: np.maximum(24 * d["A"] * d["C"] * d["D"], 0.0)),
    # BigBird-style attention without the normalisation: SDDMM -> exp -> SpMM, one graph
    "bigbird": Chain(
        SDDMM + "E(i,j)=S(i,j) -u=exp -f=E:ss\nO(i,e)=E(i,j)*V(j,e) -f=V:dd -f=O:ss\n",
        ATTENTION, "O", [[0, 1, 2]], _bigbird),
    # softmax: E has two readers (R and P), so S -> E and R -> P -> O are the chains
    "softmax": Chain(
        SDDMM + "E(i,j)=S(i,j) -u=exp -f=E:ss\nR(i)=E(i,j) -f=R:s\n"
        "P(i,j)=E(i,j)/R(i) -f=P:ss\nO(i,e)=P(i,j)*V(j,e) -f=V:dd -f=O:ss\n",
        ATTENTION, "O", [[0, 1], [2, 3, 4]], _softmax),
}


def _inputs(chain: Chain, n: int, m: int, density: float, seed: int
            ) -> tuple[Arrays, dict[str, Tensor]]:
    rng = np.random.default_rng(seed)
    arrays: Arrays = {}
    for name, (shape, fmt) in chain.operands.items():
        dims = tuple({"n": n, "m": m}[c] for c in shape.split("x"))
        a = rng.uniform(-1.0, 1.0, dims)
        if "s" in fmt:
            a = a * (rng.random(dims) < density)
        arrays[name] = a
    return arrays, {k: Tensor.from_dense(a, chain.operands[k][1]) for k, a in arrays.items()}


def _dag(chain: Chain, tensors: dict[str, Tensor]) -> Dag:
    prog = parse_program(chain.text, "chain.dag")
    return build_dag(prog, input_infos(prog, tensors))


def _run(dag: Dag, tensors: dict[str, Tensor], engine: str, fuse: bool
         ) -> tuple[list[Unit], DagRun]:
    units = compile_dag(dag, fuse=fuse)
    return units, run_units(dag, units, tensors, engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", list(CHAINS))
@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 5), m=st.integers(1, 4), density=st.sampled_from([0.3, 0.7, 1.0]),
       seed=st.integers(0, 2**32 - 1))
def test_chain_fused_equals_unfused_and_numpy(name: str, engine: str, n: int, m: int,
                                              density: float, seed: int) -> None:
    chain = CHAINS[name]
    arrays, tensors = _inputs(chain, n, m, density, seed)
    dag = _dag(chain, tensors)
    units, fused = _run(dag, tensors, engine, fuse=True)
    plain_units, plain = _run(dag, tensors, engine, fuse=False)
    assert [u.nodes for u in units if u.kind == "fused"] == chain.units
    assert all(u.kind == "graph" for u in plain_units) and len(plain_units) == len(dag.nodes)
    want = chain.gold(arrays)
    got = fused.tensors[chain.result].to_dense()
    np.testing.assert_allclose(got, plain.tensors[chain.result].to_dense(), rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", list(CHAINS))
def test_fused_chain_has_no_intermediate_and_fewer_cycles(name: str) -> None:
    chain = CHAINS[name]
    arrays, tensors = _inputs(chain, 6, 4, 0.5, seed=7)
    dag = _dag(chain, tensors)
    cycles: dict[tuple[str, bool], int] = {}
    for engine in ENGINES:
        for fuse in (True, False):
            units, result = _run(dag, tensors, engine, fuse)
            cycles[engine, fuse] = result.cycles
            np.testing.assert_allclose(result.tensors[chain.result].to_dense(),
                                       chain.gold(arrays), rtol=1e-9, atol=1e-12)
            if not fuse:
                continue
            fused = [u for u in units if u.kind == "fused"]
            assert len(units) == len(dag.nodes) - sum(len(u.nodes) - 1 for u in fused)
            for u in fused:
                (phase,) = u.program.phases
                streamed = set(u.fused_tensors)
                assert u.fused_tensors == tuple(dag.nodes[k].name for k in u.nodes[:-1])
                touched = {*input_tensors(phase.graph), *output_tensors(phase.graph)}
                assert not streamed & touched and not streamed & set(result.tensors)
                assert u.links == [(k, k + 1, dag.nodes[k].name) for k in u.nodes[:-1]]
    # the engines agree on cycles; the fused program takes fewer than the unfused one
    assert cycles["fast", True] == cycles["reference", True]
    assert cycles["fast", False] == cycles["reference", False]
    assert cycles["fast", True] < cycles["fast", False]


def test_fused_chain_graph_round_trips_through_dot() -> None:
    chain = CHAINS["bigbird"]
    arrays, tensors = _inputs(chain, 5, 3, 0.6, seed=3)
    dag = _dag(chain, tensors)
    (unit,) = compile_dag(dag)
    graph = unit.program.phases[0].graph
    assert graph.attrs[FUSED_TENSOR_ATTR] == "S,E"
    assert graph.attrs[FUSED_ATTR].count(";") == 2
    assert graph.attrs[FUSED_UNARY_ATTR] == ";exp;"
    assert sum(b.dot_type == "exp" for b in graph.blocks.values()) == 1
    back = loads(dumps(graph))
    # sam-sim run --check: the composed expression has no exp, so the check is skipped
    gold = gold_for_check(back.contract.expression, tensors, "sam-sim", back)
    assert isinstance(gold, Skipped) and "(exp)" in gold
    for engine in ENGINES:
        out = Program([back]).run(tensors, engine=engine).written["O"]
        np.testing.assert_allclose(out.to_dense(), chain.gold(arrays), rtol=1e-9, atol=1e-12)


def test_fuse_graphs_takes_a_fused_producer() -> None:
    """The graph-level API the MLIR lowering calls: compile, splice, fuse link by link."""
    stmts = ["T(i,k)=A(i,j)*B(j,k)", "U(i,l)=T(i,k)*C(k,l)", "Y(i,m)=U(i,l)*D(l,m)"]
    fmts = {n: "ss" for n in "ABCDTUY"}

    def compiled(text: str, ops: tuple[str, ...] = ()) -> object:
        names = {c for c in text if c.isupper()}
        return splice_unaries(compile_statement(text, {n: fmts[n] for n in names}), ops)

    first = fuse_graphs(compiled(stmts[0]), stmts[0], compiled(stmts[1], ("relu",)), stmts[1],
                        "T", "ss")
    graph = fuse_graphs(first, stmts[1], compiled(stmts[2]), stmts[2], "U", "ss")
    assert graph.attrs[FUSED_TENSOR_ATTR] == "T,U" and graph.attrs[FUSED_UNARY_ATTR] == ";relu;"
    assert loop_order(graph) == ["i", "l", "m"]
    assert output_tensors(graph) == ["Y"] and sorted(input_tensors(graph)) == list("ABCD")
    rng = np.random.default_rng(5)
    arrays = {n: rng.uniform(-1, 1, (4, 4)) * (rng.random((4, 4)) < 0.6) for n in "ABCD"}
    out = Program([graph]).run({n: Tensor.from_dense(a, "ss") for n, a in arrays.items()})
    want = np.maximum(arrays["A"] @ arrays["B"] @ arrays["C"], 0) @ arrays["D"]
    np.testing.assert_allclose(out.written["Y"].to_dense(), want, rtol=1e-9, atol=1e-12)
    with pytest.raises(CompileError, match="ends with U\\(i,l\\)=T\\(i,k\\)\\*C\\(k,l\\), not"):
        fuse_graphs(first, "U(i,l)=T(i,k)*D(k,l)", compiled(stmts[2]), stmts[2], "U", "ss")
    with pytest.raises(CompileError, match="the consumer's graph is already fused"):
        fuse_graphs(compiled(stmts[0]), stmts[0], first, stmts[1], "T", "ss")
    with pytest.raises(CompileError, match="cannot fuse T: .*dense"):
        fuse_graphs(compiled(stmts[0]), stmts[0], compiled(stmts[1]), stmts[1], "T", "dd")


def test_refused_link_cuts_the_chain_with_a_note() -> None:
    chain = CHAINS["matmul3"]
    text = chain.text.replace("-f=U:ss", "-f=U:dd")  # a dense level cannot take a stream
    arrays, tensors = _inputs(chain, 4, 3, 0.6, seed=1)
    prog = parse_program(text)
    dag = build_dag(prog, input_infos(prog, tensors))
    assert fusion_chains(dag) == [[(0, 1, "T"), (1, 2, "U")]]
    units, result = _run(dag, tensors, "fast", fuse=True)
    assert [(u.nodes, u.kind, u.fused_tensors) for u in units] == [
        ([0, 1], "fused", ("T",)), ([2], "graph", ())]
    assert units[0].note.startswith("not fused: cannot fuse U: its level 0") and "\n" not in \
        units[0].note
    np.testing.assert_allclose(result.tensors["Y"].to_dense(), chain.gold(arrays), rtol=1e-9,
                               atol=1e-12)


def test_unary_statement_alone_applies_to_stored_entries() -> None:
    prog = parse_program("E(i,j)=S(i,j) -u=exp -u=neg -f=S:ss -f=E:ss")
    assert prog.statements[0].unary == ("exp", "neg")
    s = np.array([[0.0, 1.5, 0.0], [-2.0, 0.0, 0.0]])
    tensors = {"S": Tensor.from_dense(s, "ss")}
    dag = build_dag(prog, input_infos(prog, tensors))
    (unit,) = compile_dag(dag)
    assert unit.program.phases[0].graph.attrs[UNARY_ATTR] == "exp,neg"
    for engine in ENGINES:
        got = run_units(dag, [unit], tensors, engine=engine).tensors["E"]
        np.testing.assert_allclose(got.to_dense(), apply_unary(s, ["exp", "neg"], s != 0))
        assert got.nnz == 2  # absent entries stay absent


@pytest.mark.parametrize("option", ["-u=tanh", "-u tanh", "--unary=sigmoid", "-u"])
def test_unknown_unary_is_one_line_naming_the_line(option: str) -> None:
    with pytest.raises(CompileError) as err:
        parse_program(f"S(i,j)=A(i,j)\nE(i,j)=S(i,j) {option}", "p.dag")
    message = str(err.value)
    assert message.startswith("p.dag line 2: ") and "\n" not in message
    assert "needs a value" in message if option == "-u" else "use one of" in message


def test_chain_stops_before_a_statement_reading_a_host_step_inside_it() -> None:
    """A fused unit runs where its first statement stands, before the host steps inside it."""
    text = "T(i,k)=A(i,j)*A(j,k) -f=A:ss -f=T:ss\nhost: L = C @ C\nU(i,l)=T(i,k)*L(k,l) -f=U:ss"
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, (4, 4)) * (rng.random((4, 4)) < 0.5)
    c = rng.uniform(-1, 1, (4, 4))
    tensors = {"A": Tensor.from_dense(a, "ss"), "C": Tensor.from_dense(c, "dd")}
    prog = parse_program(text)
    dag = build_dag(prog, input_infos(prog, tensors))
    assert fusion_chains(dag) == [[(0, 2, "T")]]
    units, result = _run(dag, tensors, "fast", fuse=True)
    assert [(u.nodes, u.kind) for u in units] == [([0], "graph"), ([1], "host"), ([2], "graph")]
    assert "host step on line 2 share L" in units[0].note
    np.testing.assert_allclose(result.tensors["U"].to_dense(), a @ a @ c @ c, rtol=1e-9)


def test_custard_dag_prints_and_runs_a_chain(tmp_path) -> None:
    import contextlib
    import io

    from custard.cli import main

    prog = tmp_path / "bigbird.dag"
    prog.write_text(CHAINS["bigbird"].text)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["dag", str(prog), "-t", "M=karate", "-t", "Q=random:1:0:34x4", "-t",
                     "K=random:1:1:34x4", "-t", "V=random:1:2:34x4", "--run"])
    assert code == 0, err.getvalue()
    text = out.getvalue()
    assert "[1] S + [2] E + [3] O: fused, S, E streamed (no writer or scanner)" in text
    assert "O: shape 34x4" in text


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 1000), density=st.floats(0.2, 0.8))
def test_consumer_names_that_mean_other_dimensions_are_renamed(seed: int,
                                                               density: float) -> None:
    """The consumer's k is the producer's j and its j a new dimension: the fused graph sizes
    them apart (before: 'index variable k has size 4 in Q but size 6 in V')."""
    rng = np.random.default_rng(seed)
    m = np.where(rng.random((6, 6)) < density, rng.uniform(-1, 1, (6, 6)), 0.0)
    q, k, v = rng.uniform(-1, 1, (6, 4)), rng.uniform(-1, 1, (6, 4)), rng.uniform(-1, 1, (6, 5))
    prog = parse_program("S(i,j) = M(i,j)*Q(i,k)*K(j,k) -f=M:ss -f=S:ss\n"
                         "O(i,j) = S(i,k)*V(k,j)\n", "clash.dag")
    tensors = {"M": Tensor.from_dense(m, "ss"), "Q": Tensor.from_dense(q, "dd"),
               "K": Tensor.from_dense(k, "dd"), "V": Tensor.from_dense(v, "dd")}
    want = (m * (q @ k.T)) @ v
    for engine in ("fast", "reference"):
        dag = build_dag(prog, input_infos(prog, tensors))
        units = compile_dag(dag)
        assert [u.kind for u in units] == ["fused"]
        got = run_units(dag, units, tensors, engine=engine).tensors["O"].to_dense()
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_the_dag_description_shows_unary_post_ops() -> None:
    from custard.dag.labels import describe

    prog = parse_program("S(i,j) = M(i,j)*Q(i,k)*K(j,k) -f=M:ss -f=S:ss\n"
                         "E(i,j) = S(i,j) -f=E:ss -u=exp -u=neg\n", "u.dag")
    tensors = {"M": Tensor.from_dense(np.eye(4), "ss"),
               "Q": Tensor.from_dense(np.ones((4, 2)), "dd"),
               "K": Tensor.from_dense(np.ones((4, 2)), "dd")}
    text = describe(build_dag(prog, input_infos(prog, tensors)))
    assert "E(i,j) = S(i,j) -u=exp -u=neg  --" in text
