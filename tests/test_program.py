"""Programs of graphs (``sam.program``): phases run one after another, later phases read what
earlier ones wrote; cycles per phase and in total; a program as one DOT file of several
digraphs (``sam-sim run`` prints per-phase cycles and the total); one Simulation re-run on new
bindings gives what fresh Simulations give."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import custard
from formats.synthetic import random_tensor
from sam.errors import GraphError
from sam.graph.dot import dump_all, dumps, dumps_all, load, load_all, loads_all
from sam.graph.dotparse import parse_all
from sam.program import Phase, Program, ProgramError, bind_program
from sam.report import build_report, format_text
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

    report = build_report(result, program, graph_path="prog.gv", inputs=tensors, sources={})
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


def _stats(result) -> tuple:
    """Everything a SimResult measures but the wall times."""
    outputs = {n: (t.shape, str(t.format), t.to_coo()[0].tolist(), t.to_coo()[1].tolist())
               for n, t in result.outputs.items()}
    return (result.cycles, result.tokens, blocks(result), streams(result), outputs,
            result.engine, result.fifo_depth, result.interrupted, result.error,
            list(result.notes))


@pytest.mark.parametrize("engine", ["reference", "fast"])
@pytest.mark.parametrize("fifo_depth", [None, 2])
def test_a_graph_is_a_program_of_one_phase(engine, fifo_depth):
    """The program path runs a single graph exactly as ``simulate`` does."""
    graph = custard.compile("X(i,l)=B(i,j)*C(j,k)*D(k,l)")
    tensors = inputs(seed=5)
    alone = simulate(graph, tensors, engine=engine, fifo_depth=fifo_depth,
                     latencies={"arrayvals": 2})
    program = Program.of(graph)
    assert [p.graph for p in program.phases] == [graph] and Program.of(program) is program
    result = program.run(tensors, engine=engine, fifo_depth=fifo_depth,
                         latencies={"arrayvals": 2})
    assert result.cycles == alone.cycles > 0 and result.tokens == alone.tokens
    assert _stats(result.phases[0]) == _stats(alone)
    assert list(result.outputs) == list(alone.outputs) == ["X"]
    assert np.array_equal(result.outputs["X"].to_dense(), alone.outputs["X"].to_dense())
    assert [set(i) for i in result.inputs] == [{"B", "C", "D"}]


def _without_wall_times(report: dict) -> dict:
    return {k: v for k, v in report.items()
            if k not in ("wall_time_s", "import_time_s", "jit_time_s", "compile_time_s",
                         "tokens_per_s")}


def test_the_report_of_a_one_phase_program_is_the_graph_report(tmp_path, capsys):
    """``sam-sim run`` of a graph file (a program of one phase) reports the graph: the keys of
    a graph's report, with the values ``simulate`` measures (but the wall times)."""
    from sam.bind import seed_for
    from sam.cli import main

    graph = custard.compile("X(i,l)=B(i,j)*C(j,k)*D(k,l)")
    path = tmp_path / "g.gv"
    path.write_text(dumps(graph))
    specs = ["-t", "B=random:0.3:1:9x12", "-t", "C=random:0.3:2:12x10", "-t", "D=random:0.4::10x7"]
    assert main(["run", str(path), *specs, "--engine", "reference", "--no-progress", "--check",
                 "--json", "--latency", "default=2", "--report", str(tmp_path / "r.json")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert json.loads((tmp_path / "r.json").read_text()) == report

    program = Program.of(graph)
    tensors = bind_program(program, {"B": "random:0.3:1:9x12", "C": "random:0.3:2:12x10",
                                     "D": "random:0.4::10x7"})
    alone = simulate(graph, tensors, engine="reference", latencies={"default": 2})
    gold = tensors["B"].to_dense() @ tensors["C"].to_dense() @ tensors["D"].to_dense()
    assert np.allclose(alone.outputs["X"].to_dense(), gold)
    sources = {"B": "random:0.3:1:9x12", "C": "random:0.3:2:12x10",
               "D": f"random:0.4:{seed_for(0, 'D')}:10x7"}
    want = {
        "version": 1, "graph": str(path), "expression": "X(i,l)=B(i,j)*C(j,k)*D(k,l)",
        "engine": "reference", "fifo_depth": None, "latencies": {"default": 2},
        "interrupted": False, "error": None, "cycles": alone.cycles, "tokens": alone.tokens,
        "compiled_kernels": [],
        "inputs": {n: {"shape": list(t.shape), "format": str(t.format), "nnz": t.nnz,
                       "stored": len(t.vals), "source": sources[n]}
                   for n, t in tensors.items()},
        "outputs": {"X": {"shape": [9, 7], "format": str(alone.outputs["X"].format),
                          "nnz": alone.outputs["X"].nnz,
                          "stored": len(alone.outputs["X"].vals)}},
        "check": report["check"], "notes": list(alone.notes),
        "blocks": [{"id": b.id, "type": b.type, "label": b.label, "family": b.family,
                    "tokens_in": b.tokens_in, "tokens_out": b.tokens_out, "busy": b.busy,
                    "idle": b.idle, "stalled": b.stalled, "started": b.started,
                    "finished": b.finished, "utilisation": b.utilisation(alone.cycles)}
                   for b in alone.blocks.values()],
        "streams": [{"src": x.src, "src_port": x.src_port, "dst": x.dst,
                     "dst_port": x.dst_port, "kind": x.kind, "tokens": x.tokens}
                    for x in alone.streams],
        "seed": 0,
    }
    assert list(report) == [
        "version", "graph", "expression", "engine", "fifo_depth", "latencies", "interrupted",
        "error", "cycles", "wall_time_s", "import_time_s", "jit_time_s", "compile_time_s",
        "compiled_kernels", "tokens", "tokens_per_s", "inputs",
        "outputs", "check", "notes", "blocks", "streams", "activity", "options", "seed"]
    # the recorded activity (sam/sim/activity.py) adds up to each block's statistics
    activity, options = report.pop("activity"), report.pop("options")
    for b in report["blocks"]:
        assert sum(activity["blocks"][str(b["id"])]["busy"]) == b["busy"]
    assert options["engine"] == "reference" and options["latencies"] == {"default": 2}
    assert _without_wall_times(report) == json.loads(json.dumps(want))
    assert report["check"]["passed"] is True and report["check"]["line"].startswith("PASS")

    # the same graph as a program's phase: the same statistics under "phases"
    twice = Program([graph, custard.compile("Y(i,l)=X(i,l)*E(i,l)")])
    result = twice.run({**tensors, "E": random_tensor((9, 7), 0.5, 3)}, engine="reference",
                       latencies={"default": 2})
    both = build_report(result, twice, graph_path=str(path), inputs=tensors, sources=sources,
                        latencies={"default": 2})
    first = json.loads(json.dumps(both))["phases"][0]
    assert (first["name"], first["index"], first["graph"]) == (graph.name, 1, f"{path} phase 1")
    same = ("cycles", "tokens", "blocks", "streams", "outputs", "inputs", "expression")
    assert {k: first[k] for k in same} == {k: report[k] for k in same}


def test_a_deadlocked_phase_keeps_the_phases_so_far(tmp_path, capsys):
    """A phase that stops with an error raises it with the program's statistics so far; the
    ``--report`` of ``sam-sim run`` holds every phase run, the last one's error."""
    from sam.cli import main
    from sam.errors import SimulationError

    first = custard.compile("y(i)=e(i)*f(i)")
    # mat_residual without its mindepth="2" edge attribute deadlocks at FIFO depth 1
    second = load(Path(__file__).parent / "data" / "deadlock_mat_residual.gv")
    first.name, second.name = "y", "x"
    program = Program([first, second])
    tensors = {"e": random_tensor((7,), 0.5, 4), "f": random_tensor((7,), 0.5, 5),
               "b": random_tensor((7,), 0.4, 1), "C": random_tensor((7, 7), 0.4, 2),
               "d": random_tensor((7,), 0.4, 3)}
    with pytest.raises(SimulationError, match="cannot progress") as caught:
        program.run(tensors, engine="reference", fifo_depth=1)
    partial = caught.value.partial
    assert partial.names == ["y", "x"] and list(partial.outputs) == ["y"]
    assert partial.phases[0].error is None and "cannot progress" in partial.phases[1].error
    alone = simulate(first, {"e": tensors["e"], "f": tensors["f"]}, engine="reference",
                     fifo_depth=1)
    assert partial.phase_cycles[0] == alone.cycles and partial.phases[1].cycles > 0

    path = tmp_path / "prog.gv"
    dump_all([first, second], path)
    specs = ["-t", "e=random:0.5:4:7", "-t", "f=random:0.5:5:7", "-t", "b=random:0.4:1:7",
             "-t", "C=random:0.4:2:7x7", "-t", "d=random:0.4:3:7"]
    assert main(["run", str(path), *specs, "--fifo-depth", "1", "--engine", "reference",
                 "--no-progress", "--report", str(tmp_path / "r.json")]) == 1
    assert "the statistics so far are in" in capsys.readouterr().err
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["program"] == ["y", "x"] and len(report["phases"]) == 2
    assert report["error"] == report["phases"][1]["error"] and "cannot progress" in report["error"]
    assert report["phases"][0]["error"] is None and report["phase_cycles"][0] == alone.cycles
