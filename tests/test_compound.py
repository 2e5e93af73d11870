"""Compound blocks (``sam.graph.compound``): ``scanload`` (level scanner + array load) runs with
the same tokens and cycles as its two parts side by side, is one node in DOT (written and read
back), and reports rolled-up statistics next to its parts'; compounds nest; pictures draw a
compound as one node or, expanded, as a cluster."""

from __future__ import annotations

import json

import numpy as np
import pytest

from formats import Format, Tensor
from sam.errors import GraphError
from sam.graph.builder import GraphBuilder
from sam.graph.compound import CompoundBlock, ScanLoad
from sam.graph.dot import dumps, loads
from sam.graph.draw import to_dot
from sam.graph.expand import expand
from sam.graph.registry import BLOCK_TYPES
from sam.program import Program
from sam.report import build_report, format_text
from sam.sim.engine import Simulation, simulate

KINDS = ("data", "stop", "empty", "done")


def matrix(seed: int = 1, shape: tuple[int, int] = (7, 9), density: float = 0.35) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.round(rng.uniform(-4, 4, shape), 2) * (rng.random(shape) < density)


def identity(fmt: str = "ss01", compound: str | None = None):
    """X(i,j) = B(i,j); the j level scanned and loaded by ``compound`` (``scanload``, or the
    nested test compound ``matload`` for both levels), else by a scanner and an array."""
    b = GraphBuilder()
    jfmt = "compressed" if fmt[1] == "s" else "dense"
    if compound == "matload":
        m = b.block("matload", tensor="B", format=jfmt)
        icrd, jcrd, val = (m, "crd:i"), (m, "crd:j"), (m, "val")
    else:
        si = b.block("fiberlookup", index="i", tensor="B", mode=0, root="true",
                     format="compressed" if fmt[0] == "s" else "dense")
        icrd = (si, "crd")
        if compound == "scanload":
            sl = b.block("scanload", index="j", tensor="B", mode=1, format=jfmt)
            b.link((si, "ref"), sl, "ref")
            jcrd, val = (sl, "crd"), (sl, "val")
        else:
            sj = b.block("fiberlookup", index="j", tensor="B", mode=1, format=jfmt)
            arr = b.block("arrayvals", tensor="B")
            b.link((si, "ref"), sj, "ref")
            b.link((sj, "ref"), arr, "ref")
            jcrd, val = (sj, "crd"), (arr, "val")
    wi = b.block("fiberwrite", index="i", tensor="X", mode=0)
    wj = b.block("fiberwrite", index="j", tensor="X", mode=1)
    wv = b.block("fiberwrite", tensor="X", mode="vals")
    b.link(icrd, wi, "crd")
    b.link(jcrd, wj, "crd")
    b.link(val, wv, "val")
    graph = b.finish()
    graph.formats = {"X": Format.parse("ss01"), "B": Format.parse(fmt)}
    return graph


class MatLoad(CompoundBlock):
    """Test compound holding a compound: a root scanner of mode 0 and a scanload of mode 1."""

    dot_type = "matload"
    required_attrs = ("tensor",)

    def build(self, b: GraphBuilder) -> None:
        t = self.attrs["tensor"]
        si = b.block("fiberlookup", index="i", tensor=t, mode=0, root="true")
        sl = b.block("scanload", index="j", tensor=t, mode=1,
                     format=self.attrs.get("format", "compressed"))
        b.link((si, "ref"), sl, "ref")
        b.export_output("crd:i", (si, "crd"))
        b.export_output("crd:j", (sl, "crd"))
        b.export_output("val", (sl, "val"))


@pytest.fixture
def matload(monkeypatch):
    monkeypatch.setitem(BLOCK_TYPES, "matload", MatLoad)


# ids of the flat graph's blocks -> ids of the same blocks in the compound graph
SCANLOAD_IDS = {"0": "0", "1": "1/0", "2": "1/1", "3": "2", "4": "3", "5": "4"}
MATLOAD_IDS = {"0": "0/0", "1": "0/1/0", "2": "0/1/1", "3": "1", "4": "2", "5": "3"}


def _streams(result, ids=None):
    ids = ids or {}
    return sorted((ids.get(s.src, s.src), s.src_port, ids.get(s.dst, s.dst), s.dst_port, s.kind,
                   tuple(s.tokens.values())) for s in result.streams)


@pytest.mark.parametrize("engine", ["reference", "fast"])
@pytest.mark.parametrize("fmt", ["ss01", "ds01"])
@pytest.mark.parametrize("fifo_depth", [None, 2])
def test_scanload_runs_like_its_parts(engine, fmt, fifo_depth):
    dense = matrix()
    B = Tensor.from_dense(dense)
    flat = simulate(identity(fmt), {"B": B}, engine=engine, fifo_depth=fifo_depth)
    comp = simulate(identity(fmt, "scanload"), {"B": B}, engine=engine, fifo_depth=fifo_depth)
    assert np.array_equal(comp.outputs["X"].to_dense(), dense)
    assert comp.cycles == flat.cycles
    assert comp.tokens == flat.tokens
    for fid, cid in SCANLOAD_IDS.items():
        a, b = flat.blocks[fid], comp.blocks[cid]
        assert (a.type, a.tokens_in, a.tokens_out, a.busy, a.idle, a.stalled, a.started,
                a.finished) == (b.type, b.tokens_in, b.tokens_out, b.busy, b.idle, b.stalled,
                                b.started, b.finished)
    assert _streams(comp) == _streams(flat, SCANLOAD_IDS)


def test_scanload_statistics_roll_up():
    dense = matrix(seed=4)
    program = Program.of(identity("ss01", "scanload"))
    run = program.run({"B": Tensor.from_dense(dense)})
    comp = run.phases[0]
    assert list(comp.blocks) == ["0", "1", "1/0", "1/1", "2", "3", "4"]
    s, scan, load = comp.blocks["1"], comp.blocks["1/0"], comp.blocks["1/1"]
    assert (s.type, s.family, s.parts) == ("scanload", "compound", ("1/0", "1/1"))
    assert scan.parts == () and load.parts == ()
    assert s.busy == scan.busy + load.busy
    assert s.idle == scan.idle + load.idle and s.stalled == scan.stalled + load.stalled
    assert s.started == min(scan.started, load.started)
    assert s.finished == max(scan.finished, load.finished)
    # external ports: ref in (the i scanner's ref stream); crd and val out (ref is not used)
    rows, nnz = int((dense != 0).any(axis=1).sum()), int((dense != 0).sum())
    ref_in = next(x for x in comp.streams if (x.src, x.src_port, x.dst) == ("0", "ref", "1/0"))
    assert s.tokens_in == ref_in.tokens == {"data": rows, "stop": 1, "empty": 0, "done": 1}
    one_stream = {"data": nnz, "stop": rows, "empty": 0, "done": 1}
    assert s.tokens_out == {k: 2 * one_stream[k] for k in KINDS}  # crd and val
    assert scan.tokens_out == {k: 2 * one_stream[k] for k in KINDS}  # crd and ref
    assert comp.tokens == sum(sum(b.tokens_out.values()) for b in comp.blocks.values()
                              if b.id != "1")
    report = build_report(run, program, graph_path="g.gv", inputs={}, sources={})
    entries = {b["id"]: b for b in report["blocks"]}
    assert entries["1"]["parts"] == ["1/0", "1/1"] and "parts" not in entries["1/0"]
    assert entries["1"]["busy"] == s.busy
    json.dumps(report)
    text = format_text(report)
    assert "\n1    scanload j: B1 (compressed)" in text
    assert "\n1/0    scan j: B1 (compressed)" in text


def test_scanload_is_one_dot_node():
    graph = identity("ss01", "scanload")
    text = dumps(graph)
    assert text.count('type="scanload"') == 1
    assert 'type="fiberlookup"' in text and text.count('type="arrayvals"') == 0
    again = loads(text)
    assert again.signature() == graph.signature()
    assert isinstance(again.blocks["1"], ScanLoad)
    assert dumps(again) == text
    B = Tensor.from_dense(matrix(seed=2))
    assert simulate(again, {"B": B}).cycles == simulate(identity("ss01"), {"B": B}).cycles


def test_scanload_reads_the_root():
    vec = np.array([0, 2.5, 0, 0, -1, 3, 0])
    b = GraphBuilder()
    sl = b.block("scanload", index="i", tensor="b", mode=0, root="true")
    wi = b.block("fiberwrite", index="i", tensor="x", mode=0)
    wv = b.block("fiberwrite", tensor="x", mode="vals")
    b.link((sl, "crd"), wi, "crd")
    b.link((sl, "val"), wv, "val")
    graph = loads(dumps(b.finish()))
    assert [p.optional for p in graph.blocks["0"].inputs()] == [True]
    result = simulate(graph, {"b": Tensor.from_dense(vec)})
    assert np.array_equal(result.outputs["x"].to_dense(), vec)
    assert result.blocks["0"].tokens_in == {"data": 1, "stop": 0, "empty": 0, "done": 1}


def test_nested_compounds(matload):
    dense = matrix(seed=3)
    B = Tensor.from_dense(dense)
    flat = simulate(identity("ss01"), {"B": B})
    graph = loads(dumps(identity("ss01", "matload")))
    assert graph.count() == {"matload": 1, "fiberwrite": 3}
    nested = simulate(graph, {"B": B})
    assert np.array_equal(nested.outputs["X"].to_dense(), dense)
    assert nested.cycles == flat.cycles
    assert list(nested.blocks)[:5] == ["0", "0/0", "0/1", "0/1/0", "0/1/1"]
    assert nested.blocks["0"].parts == ("0/0", "0/1")
    assert nested.blocks["0/1"].parts == ("0/1/0", "0/1/1")
    assert nested.blocks["0"].busy == sum(flat.blocks[k].busy for k in "012")
    assert nested.blocks["0"].tokens_in == dict.fromkeys(KINDS, 0)
    assert sum(nested.blocks["0"].tokens_out.values()) == sum(
        sum(flat.blocks[k].tokens_in.values()) for k in "345")
    assert _streams(nested) == _streams(flat, MATLOAD_IDS)
    exp = expand(graph)
    assert list(exp.compounds) == ["0", "0/1"]
    assert exp.primitives("0") == ["0/0", "0/1/0", "0/1/1"]
    assert exp.enclosing("0/1/1") == ["0", "0/1"]


def test_drawn_as_one_node_or_a_cluster(matload):
    graph = identity("ss01", "scanload")
    result = simulate(graph, {"B": Tensor.from_dense(matrix())})
    one = to_dot(graph, result)
    assert "peripheries=2" in one and "cluster_1" not in one and '"1/0"' not in one
    assert f"busy {result.blocks['1'].busy:,}" in one
    for e in graph.edges:  # token counts on the compound's edges too
        if "1" in (e.src, e.dst):
            line = next(x for x in one.splitlines() if x.strip().startswith(
                f"{e.src} -> {e.dst} "))
            assert " data + " in line
    cluster = to_dot(graph, result, expand_compounds=True)
    assert 'subgraph cluster_1 {' in cluster and '"1/0" -> "1/1"' in cluster
    assert "peripheries=2" not in cluster
    nested = to_dot(identity("ss01", "matload"), expand_compounds=True)
    assert nested.index("cluster_0 {") < nested.index('"cluster_0/1" {')


def test_bad_compounds_are_one_line_errors(monkeypatch):
    graph = identity("ss01", "scanload")
    graph.blocks["1"].attrs["mode"] = "0"
    graph.blocks["1"]._ports = None
    with pytest.raises(GraphError, match=r"node 1 \(scanload\) scans mode 0 of B, but values "
                       r"are indexed by the last stored level \(mode 1"):
        Simulation(graph, {"B": Tensor.from_dense(matrix())})

    class Loop(CompoundBlock):
        dot_type = "loop"

        def build(self, b: GraphBuilder) -> None:
            inner = b.block("loop")
            b.export_output("val", (inner, "val"))

    monkeypatch.setitem(BLOCK_TYPES, "loop", Loop)
    with pytest.raises(GraphError, match="compound blocks nest more than 32 deep"):
        Loop("0").outputs()

    class Mismatch(CompoundBlock):
        dot_type = "mismatch"

        def build(self, b: GraphBuilder) -> None:
            arr = b.block("arrayvals", tensor="b")
            b.export_input("crd", arr, "ref")

    with pytest.raises(GraphError, match="node 0 \\(mismatch\\): external input crd feeds "
                       "inner ports of stream kind ref"):
        Mismatch("0").inputs()


def test_sam_sim_runs_and_draws_a_compound(tmp_path, capsys):
    from sam.cli import main
    from sam.graph.dot import dump

    path, report = tmp_path / "g.gv", tmp_path / "r.json"
    dump(identity("ss01", "scanload"), path)
    args = ["run", str(path), "-t", "B=random:0.3:1:6x8", "--expr", "X(i,j)=B(i,j)",
            "--engine", "reference", "--no-progress"]
    assert main([*args, "--check", "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert "PASS" in out and "\n1    scanload j: B1 (compressed)" in out
    assert json.loads(report.read_text())["blocks"][1]["parts"] == ["1/0", "1/1"]
    picture = tmp_path / "p.gv"
    assert main(["draw", str(path), "--stats", str(report), "--expand", "-o", str(picture)]) == 0
    assert "subgraph cluster_1 {" in picture.read_text()
    assert main(["draw", str(path), "--stats", str(report), "-o", str(picture)]) == 0
    assert "peripheries=2" in picture.read_text()
    capsys.readouterr()
    assert main([*args, "--latency", "scanload=2"]) == 1
    assert "scanload is a compound block; give the latencies of the block types it is made " \
           "of" in capsys.readouterr().err
