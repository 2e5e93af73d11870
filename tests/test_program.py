"""Programs of graphs (``sam.program``): phases run one after another, later phases read what
earlier ones wrote; cycles per phase and in total; a program as one DOT file of several
digraphs (``sam-sim run`` prints per-phase cycles and the total); one Simulation re-run on new
bindings gives what fresh Simulations give."""

from __future__ import annotations

import json

import numpy as np
import pytest

import custard
from formats.synthetic import random_tensor
from sam.errors import GraphError
from sam.graph.dot import dump_all, dumps, dumps_all, load, load_all, loads_all
from sam.graph.dotparse import parse_all
from sam.program import Phase, Program, ProgramError, bind_program
from sam.report import build_program_report, format_text
from sam.sim.engine import Simulation, simulate

SHAPES = {"B": (9, 12), "C": (12, 10), "D": (10, 7)}


def unfused() -> Program:
    first = custard.compile("T(i,k)=B(i,j)*C(j,k)")
    second = custard.compile("X(i,l)=T(i,k)*D(k,l)")
    first.name, second.name = "T", "X"
    return Program([first, second])


def inputs(seed: int = 0, density: float = 0.3) -> dict:
    return {n: random_tensor(shape, density, seed + k, name=n)
            for k, (n, shape) in enumerate(SHAPES.items())}


def blocks(result) -> dict:
    return {k: (b.tokens_in, b.tokens_out, b.busy, b.idle, b.stalled, b.started, b.finished)
            for k, b in result.blocks.items()}


def streams(result) -> list:
    return [(s.src, s.src_port, s.dst, s.dst_port, s.tokens) for s in result.streams]


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_two_phases_equal_numpy_and_the_fused_graph(engine):
    program = unfused()
    assert (program.inputs(), program.temporaries(), program.results()) == \
        (["B", "C", "D"], ["T"], ["X"])
    tensors = inputs()
    result = program.run(tensors, engine=engine)
    dense = {n: t.to_dense() for n, t in tensors.items()}
    gold = dense["B"] @ dense["C"] @ dense["D"]
    assert list(result.outputs) == ["X"] and set(result.written) == {"T", "X"}
    assert np.allclose(result.written["T"].to_dense(), dense["B"] @ dense["C"])
    assert np.allclose(result.outputs["X"].to_dense(), gold)
    fused = simulate(custard.compile("X(i,l)=B(i,j)*C(j,k)*D(k,l)"), tensors, engine=engine)
    assert np.allclose(fused.outputs["X"].to_dense(), result.outputs["X"].to_dense())

    # each phase's cycles are those of its graph run alone; the total is their sum
    alone1 = simulate(program.phases[0].graph, {n: tensors[n] for n in "BC"}, engine=engine)
    alone2 = simulate(program.phases[1].graph, {"T": alone1.outputs["T"], "D": tensors["D"]},
                      engine=engine)
    assert result.phase_cycles == [alone1.cycles, alone2.cycles]
    assert result.cycles == alone1.cycles + alone2.cycles
    assert blocks(result.phases[1]) == blocks(alone2)
    assert result.tokens == alone1.tokens + alone2.tokens

    report = build_program_report(result, program, graph_path="prog.gv", inputs=tensors,
                                  sources={})
    report = json.loads(json.dumps(report))
    assert report["program"] == ["T", "X"]
    assert report["phase_cycles"] == [alone1.cycles, alone2.cycles]
    assert report["cycles"] == sum(report["phase_cycles"]) == result.cycles
    assert [p["cycles"] for p in report["phases"]] == report["phase_cycles"]
    assert set(report["phases"][1]["inputs"]) == {"T", "D"}
    assert report["outputs"]["X"]["nnz"] == int(np.count_nonzero(gold))
    text = format_text(report)
    assert "=== phase 1 (T): T(i,k)=B(i,j)*C(j,k)" in text
    totals = [line.split() for line in text.splitlines() if line.startswith("total")]
    assert totals == [["total", f"{result.cycles:,}"]]


def test_a_program_is_one_dot_file(tmp_path):
    program = unfused()
    graphs = [p.graph for p in program.phases]
    text = dumps_all(graphs)
    assert text.count("digraph ") == 2 and text.startswith("digraph T {")
    assert text.split("digraph X {")[1] == dumps(graphs[1]).split("digraph SAM {")[1]
    again = loads_all(text, "prog.gv")
    assert [g.name for g in again] == ["T", "X"]
    assert [g.signature() for g in again] == [g.signature() for g in graphs]
    assert [d.name for d in parse_all(text)] == ["T", "X"]
    path = tmp_path / "prog.gv"
    dump_all(graphs, path)
    assert [g.name for g in load_all(path)] == ["T", "X"]
    assert [g.name for g in loads_all(dumps(graphs[0]) * 2, "p.gv")] == ["p.gv#1", "p.gv#2"]
    with pytest.raises(GraphError, match="more than one graph"):
        load(path)
    with pytest.raises(GraphError, match=r"prog.gv: graph 3 of 3: node 0 has unknown type"):
        loads_all(text + 'digraph { 0 [type="nosuch"] }', "prog.gv")
    with pytest.raises(GraphError, match="expected 'digraph'"):
        loads_all(text + "digraph X { } junk", "prog.gv")


def test_sam_sim_runs_a_program(tmp_path, capsys):
    from sam.cli import main

    program = unfused()
    path = tmp_path / "prog.gv"
    dump_all([p.graph for p in program.phases], path)
    specs = [f"{n}=random:0.3:{k}:{'x'.join(map(str, s))}" for k, (n, s) in
             enumerate(SHAPES.items())]
    args = ["run", str(path), "--engine", "reference", "--no-progress", "--check"]
    for spec in specs:
        args += ["-t", spec]
    assert main([*args, "--json", "-o", str(tmp_path / "X.mtx")]) == 0
    report = json.loads(capsys.readouterr().out)
    tensors = bind_program(program, dict(s.split("=") for s in specs))
    result = program.run(tensors)
    assert report["phase_cycles"] == result.phase_cycles
    assert report["cycles"] == result.cycles == sum(result.phase_cycles)
    assert report["check"]["passed"] and all(p["check"]["passed"] for p in report["phases"])
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "=== phase 2 (X): X(i,l)=T(i,k)*D(k,l)" in out
    assert "PASS: all 2 phases equal numpy/scipy" in out
    lines = out.splitlines()
    assert [x.split() for x in lines if x.startswith(("1 ", "2 ", "total"))][-3:] == [
        ["1", "T", f"{result.phase_cycles[0]:,}"], ["2", "X", f"{result.phase_cycles[1]:,}"],
        ["total", f"{result.cycles:,}"]]
    assert main([*args, "-t", "E=2"]) == 1
    assert "tensor E is not an input of the program (its inputs: B, C, D)" in \
        capsys.readouterr().err


def test_bind_program_sizes_a_random_tensor_by_a_temporary():
    first = custard.compile("T(i,k)=B(i,j)*C(j,k)")
    second = custard.compile("X(i,k)=T(i,k)*E(i,k)")
    program = Program([first, second])
    tensors = bind_program(program, {"B": "random:0.3:1:5x6", "C": "B^T", "E": "random:0.5"})
    assert {n: t.shape for n, t in tensors.items()} == {"B": (5, 6), "C": (6, 5), "E": (5, 5)}
    result = program.run(tensors)
    dense = {n: t.to_dense() for n, t in tensors.items()}
    assert np.allclose(result.outputs["X"].to_dense(), dense["B"] @ dense["C"] * dense["E"])


@pytest.mark.parametrize("engine", ["reference", "fast"])
@pytest.mark.parametrize("fifo_depth", [None, 2])
def test_one_simulation_rerun_on_new_bindings(engine, fifo_depth):
    graph = custard.compile("X(i,j)=B(i,k)*C(k,j)", order="ikj")
    first = {"B": random_tensor((9, 12), 0.3, 1), "C": random_tensor((12, 10), 0.3, 2)}
    second = {"B": random_tensor((14, 5), 0.5, 3), "C": random_tensor((5, 20), 0.2, 4)}
    sim = Simulation(graph, first, fifo_depth=fifo_depth)
    runs = [sim.run(engine)]
    sim.rebind(second)
    runs.append(sim.run(engine))
    runs.append(sim.run(engine))  # again on the same binding: a fresh start
    fresh = [Simulation(graph, t, fifo_depth=fifo_depth).run(engine)
             for t in (first, second, second)]
    for got, want, tensors in zip(runs, fresh, (first, second, second), strict=True):
        gold = tensors["B"].to_dense() @ tensors["C"].to_dense()
        assert np.allclose(got.outputs["X"].to_dense(), gold)
        assert np.array_equal(got.outputs["X"].to_dense(), want.outputs["X"].to_dense())
        assert got.cycles == want.cycles
        assert blocks(got) == blocks(want)
        assert streams(got) == streams(want)
    assert runs[0].cycles != runs[1].cycles
    with pytest.raises(GraphError, match="tensor B has order 1"):
        sim.rebind({"B": random_tensor((4,), 0.5, 0), "C": second["C"]})


def test_tiles_share_one_simulation(monkeypatch):
    graph = custard.compile("x(i)=B(i,j)*c(j)")
    tiles = [Phase(graph, {"B": f"B{k}", "x": f"x{k}"}) for k in range(3)]
    program = Program(tiles)
    assert program.inputs() == ["B0", "c", "B1", "B2"]
    assert program.results() == ["x0", "x1", "x2"]
    made = []
    init = Simulation.__init__

    def counting(self, *args, **kw):
        made.append(1)
        init(self, *args, **kw)

    monkeypatch.setattr(Simulation, "__init__", counting)
    tensors = {f"B{k}": random_tensor((6, 8), 0.2 + 0.2 * k, k) for k in range(3)}
    tensors["c"] = random_tensor((8,), 0.6, 9)
    result = program.run(tensors)
    assert len(made) == 1
    for k in range(3):
        gold = tensors[f"B{k}"].to_dense() @ tensors["c"].to_dense()
        assert np.allclose(result.outputs[f"x{k}"].to_dense(), gold)
        alone = simulate(graph, {"B": tensors[f"B{k}"], "c": tensors["c"]})
        assert result.phase_cycles[k] == alone.cycles
    assert len(made) == 4


def test_program_errors_are_one_line():
    program = unfused()
    with pytest.raises(ProgramError, match=r"phase 1 \(T\) reads tensor C, which is not bound "
                       r"and no earlier phase writes; bind it"):
        program.run({"B": inputs()["B"], "D": inputs()["D"]})
    with pytest.raises(ProgramError, match="a program needs at least one graph"):
        Program([])
