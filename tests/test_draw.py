"""Pictures of SAM graphs (``sam/graph/draw.py``): valid SVG and PNG for the three Custard
examples, styles by family and stream kind, token counts from a simulation on every edge."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from formats.tensor import Tensor
from sam.errors import GraphError
from sam.graph.dot import load
from sam.graph.dotparse import parse
from sam.graph.draw import FAMILY_COLORS, KIND_STYLES, render, to_dot
from sam.sim.engine import simulate

DATA = Path(__file__).parent / "data" / "custard"
EXAMPLES = ["vec_elemadd", "mat_vecmul_ij", "matmul_ikj"]
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz dot not installed")
SVG = "{http://www.w3.org/2000/svg}"


def inputs(name: str) -> dict[str, Tensor]:
    rng = np.random.default_rng(1)

    def rand(*shape):
        return Tensor.from_dense(rng.random(shape) * (rng.random(shape) < 0.5))
    return {
        "vec_elemadd": {"b": rand(6), "c": rand(6)},
        "mat_vecmul_ij": {"B": rand(5, 4), "c": rand(4)},
        "matmul_ikj": {"B": rand(4, 3), "C": rand(3, 5)},
    }[name]


@pytest.fixture(params=EXAMPLES)
def example(request):
    return request.param


@needs_dot
def test_svg_is_valid(example, tmp_path):
    graph = load(DATA / f"{example}.gv")
    out = render(graph, tmp_path / "g.svg")
    root = ET.parse(out).getroot()
    assert root.tag == f"{SVG}svg"
    # one SVG group per block and per edge
    classes = [(g.get("class") or "").split() for g in root.iter(f"{SVG}g")]
    assert sum("node" in c for c in classes) == len(graph.blocks) + 1  # + the legend
    assert sum("edge" in c for c in classes) == len(graph.edges)
    # blocks are n-<id> with their family's class, edge k is e-<k> (sam.html relies on them)
    ids = {g.get("id"): g.get("class") for g in root.iter(f"{SVG}g")}
    for bid, block in graph.blocks.items():
        assert ids[f"n-{bid}"] == f"node fam-{block.family}"
    assert all(ids[f"e-{k}"] == "edge" for k in range(len(graph.edges)))
    texts = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "FiberLookup" in texts and "legend" in texts


@needs_dot
def test_png_is_valid(example, tmp_path):
    out = render(load(DATA / f"{example}.gv"), tmp_path / "g.png")
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 1000


@needs_dot
def test_with_stats_svg_and_png(example, tmp_path):
    graph = load(DATA / f"{example}.gv")
    result = simulate(graph, inputs(example))
    svg = render(graph, tmp_path / "s.svg", stats=result)
    root = ET.parse(svg).getroot()
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert any(re.fullmatch(r"\d+ = \d+ data( \+ \d+ empty)? \+ \d+ stop \+ 1 done", t)
               for t in texts), texts
    assert any(f"({result.cycles:,} cycles)" in t for t in texts)
    assert any(t.startswith("busy ") for t in texts)
    png = render(graph, tmp_path / "s.png", stats=result)
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_every_edge_gets_its_token_count(example):
    """Each edge's label total is the token count of its stream, broadcasts included."""
    graph = load(DATA / f"{example}.gv")
    result = simulate(graph, inputs(example))
    text = to_dot(graph, result)
    edge_lines = [ln for ln in text.splitlines() if " -> " in ln]
    assert len(edge_lines) == len(graph.edges)
    by_dst = {(s.dst, s.dst_port): sum(s.tokens.values()) for s in result.streams}
    by_src = {(s.src, s.src_port): sum(s.tokens.values()) for s in result.streams}
    for edge, line in zip(graph.edges, edge_lines, strict=True):
        m = re.search(r'label="(?:[^"\\]*\\n)?(\d+)( = | tokens| token)', line)
        assert m, line
        if graph.blocks[edge.dst].dot_type == "broadcast":
            expect = by_src[(edge.src, edge.src_port.name)]
        else:
            expect = by_dst[(edge.dst, edge.dst_port.name)]
        assert int(m.group(1)) == expect, line


def test_report_dict_works_like_a_result(example):
    """``sam-sim draw --stats report.json`` passes the JSON report, not a SimResult."""
    graph = load(DATA / f"{example}.gv")
    result = simulate(graph, inputs(example))
    report = {
        "cycles": result.cycles,
        "blocks": [{"id": b.id, "busy": b.busy} for b in result.blocks.values()],
        "streams": [{"src": s.src, "src_port": s.src_port, "dst": s.dst,
                     "dst_port": s.dst_port, "kind": s.kind, "tokens": s.tokens}
                    for s in result.streams],
    }
    assert to_dot(graph, report) == to_dot(graph, result)
    # a report of another graph, or a mangled one, still draws (counts left off)
    to_dot(graph, {"streams": [{"src": "nope"}, 7], "blocks": "x"})


def test_styles_by_family_and_kind(example):
    graph = load(DATA / f"{example}.gv")
    text = to_dot(graph)
    parsed = parse(text)  # our own parser reads the picture source (HTML legend included)
    for bid, block in graph.blocks.items():
        attrs = parsed.nodes[bid].attrs
        if block.dot_type == "broadcast":
            assert attrs["shape"] == "point"
        else:
            assert attrs["fillcolor"] == FAMILY_COLORS[block.family]
    drawn = [e for e in parsed.edges]
    assert len(drawn) == len(graph.edges)
    for edge, d in zip(graph.edges, drawn, strict=True):
        for key, value in KIND_STYLES[edge.kind].items():
            assert d.attrs[key] == value
    assert KIND_STYLES["crd"]["style"] == "dashed" and KIND_STYLES["ref"]["style"] == "bold"
    assert KIND_STYLES["repsig"]["style"] == "dotted" and ":" in KIND_STYLES["val"]["color"]


def test_write_dot_text_and_bad_suffix(tmp_path):
    graph = load(DATA / "vec_elemadd.gv")
    out = render(graph, tmp_path / "g.gv")
    assert out.read_text().startswith("digraph SAM {")
    with pytest.raises(GraphError, match="unknown picture format 'jpg'"):
        render(graph, tmp_path / "g.jpg")


def test_missing_dot_is_a_graph_error(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(GraphError, match="needs Graphviz"):
        render(load(DATA / "vec_elemadd.gv"), tmp_path / "g.svg")


@needs_dot
def test_odd_names_render(tmp_path):
    """Node ids and values that need quoting still give valid pictures."""
    text = (DATA / "vec_elemadd.gv").read_text().replace('tensor="b"', 'tensor="b<&>\\"q"')
    text = text.replace("comment=\"type=arrayvals,tensor=b\"", "comment=\"type=arrayvals\"")
    from sam.graph.dot import loads
    graph = loads(text)
    graph.attrs["expr"] = 'x(i) = b(i) + c(i) "&" <tag>'
    root = ET.parse(render(graph, tmp_path / "odd.svg")).getroot()
    assert root.tag == f"{SVG}svg"
