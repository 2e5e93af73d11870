"""The HTML report (:mod:`sam.html`) and the Jupyter views: the page of the demo's run
(west0479 x west0479, Gustavson) is offline and self-contained, its embedded JSON is safe, and
in headless Chromium (tests/helpers/chromium.py) it loads without errors or network requests,
shows the graph and the timeline, and hovering a block or an edge fills the info panel with the
report's numbers."""

from __future__ import annotations

import html
import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import custard
from formats.tensor import Tensor
from sam.cli import main as sam_sim
from sam.graph.dot import dump, dump_all, load
from sam.graph.draw import edge_tokens, to_svg
from sam.graph.model import Graph
from sam.html import RunReport, page, render, write_html
from sam.program import run_program
from sam.sim.engine import simulate

from helpers.chromium import SKIP_REASON, Browser

needs_chromium = pytest.mark.skipif(shutil.which("chromium") is None, reason=SKIP_REASON)
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz dot not installed")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Graph, Path]:
    """The demo's run: its report, graph and directory."""
    where = tmp_path_factory.mktemp("demo")
    graph = custard.compile("X(i,j)=B(i,k)*C(k,j)", {"X": "ss", "B": "ss", "C": "ss"}, "ikj")
    dump(graph, where / "matmul_ikj.gv")
    rc = sam_sim(["run", str(where / "matmul_ikj.gv"), "-t", "B=west0479", "-t", "C=B",
                  "--check", "--report", str(where / "report.json"), "-o",
                  str(where / "X.mtx")])
    assert rc == 0
    report = json.loads((where / "report.json").read_text())
    assert report["check"]["passed"]
    return report, load(where / "matmul_ikj.gv"), where


def _activity(report: dict[str, Any], n: int = 64) -> dict[str, Any]:
    """A made-up ``activity`` of the shape the recorder writes: each block busy evenly from
    its first to its last firing."""
    w = -(-max(report["cycles"], 1) // n)
    blocks = {}
    for b in report["blocks"]:
        busy = np.zeros(n, dtype=np.int64)
        lo, hi = b["started"] // w, max(b["finished"] - 1, b["started"]) // w
        share = np.diff(np.round(np.linspace(0, b["busy"], hi - lo + 2)).astype(np.int64))
        busy[lo:hi + 1] = share
        blocks[b["id"]] = {"busy": busy.tolist(), "idle": [0] * n, "stalled": [0] * n,
                           "tokens": busy.tolist()}
    streams = [{"src": "3", "src_port": "crd", "dst": "5", "dst_port": "crd:in-B",
                "occupancy": [int(v) for v in 100 * np.sin(np.linspace(0, 3, n)) ** 2]}]
    return {"bucket_cycles": w, "buckets": n, "resolution_cycles": w, "blocks": blocks,
            "streams": streams}


def _embedded(text: str) -> Any:
    m = re.search(r'<script type="application/json" id="sam-data">(.*?)</script>', text, re.S)
    assert m is not None
    return json.loads(m.group(1))


# --------------------------------------------------------------------------- no browser
def test_embedded_json_escapes_closing_tags(demo) -> None:
    report, _, _ = demo
    bad = json.loads(json.dumps(report))
    bad["blocks"][0]["label"] = "</script><script>alert(1)</script><!--"
    text = page(bad)
    assert "alert(1)</script>" not in text
    assert text.count("</script>") == 2  # the data's and the code's
    data = _embedded(text)
    assert data["phases"][0]["blocks"][bad["blocks"][0]["id"]]["label"] == bad["blocks"][0]["label"]


def test_coarse_timeline_without_activity_and_buckets_with_it(demo) -> None:
    report, _, _ = demo
    report = {k: v for k, v in report.items() if k != "activity"}
    coarse = page(report)
    assert "coarse: no activity was recorded" in coarse
    rich = dict(report, activity=_activity(report))
    text = page(rich)
    assert "coarse" not in text and "activity in 64 buckets" in text
    assert 'class="fifo"' in text and "fifo 3:crd -&gt; 5:crd:in-B (max" in text
    # every block has a row; the busy blocks' rows have bars
    rows = re.findall(r'<g data-bid="([^"]+)" fill="[^"]+">(.*?)</g>', text)
    assert [r[0] for r in rows] == [b["id"] for b in report["blocks"]]
    bars = {bid: body.count("<rect") - 1 for bid, body in rows}
    assert all(bars[b["id"]] >= 1 for b in report["blocks"] if b["busy"])


def test_program_report_has_a_section_per_phase(demo) -> None:
    report, _, _ = demo
    prog = {**report, "phases": [dict(report, name="first", index=1),
                                 dict(report, name="second", index=2)],
            "phase_cycles": [report["cycles"]] * 2}
    text = page(prog)
    assert text.count('<section class="phase"') == 2
    assert "phase 1: first" in text and "phase 2: second" in text
    assert len(_embedded(text)["phases"]) == 2


def test_summary_shows_inputs_options_and_check(demo) -> None:
    report, _, _ = demo
    text = page(dict(report, options={"timing": "paper", "width": 32}))
    assert 'class="badge pass">PASS' in text and "west0479" in text
    assert "option timing" in text and f"{report['cycles']:,}" in text
    failed = dict(report, check={"passed": False, "line": "FAIL: differs"})
    assert 'class="badge fail">FAIL' in page(failed)


def test_run_report_is_an_iframe_of_the_page(demo) -> None:
    report, _, _ = demo
    shown = RunReport(report, graphs=[])._repr_html_()
    m = re.fullmatch(r'<iframe srcdoc="([^"]*)" style="[^"]*"></iframe>', shown)
    assert m is not None
    assert html.unescape(m.group(1)) == render(report, [])


def test_sim_and_program_results_show_tables() -> None:
    graph = custard.compile("x(i)=B(i,j)*c(j)")
    b = Tensor.from_dense(np.arange(12.0).reshape(3, 4), graph.formats["B"])
    c = Tensor.from_dense(np.arange(4.0), graph.formats["c"])
    for engine in ("fast", "reference"):
        res = simulate(graph, {"B": b, "c": c}, engine=engine)
        shown = res._repr_html_()
        assert f"{res.cycles:,} cycles" in shown
        assert shown.count("<tr>") == len(res.blocks) + 1
        prog = run_program(graph, {"B": b, "c": c}, engine=engine)
        assert f"<b>{prog.cycles:,}</b>" in prog._repr_html_()


def test_repr_svg_is_none_without_a_picture_hook() -> None:
    graph = custard.compile("x(i)=B(i,j)*c(j)")
    hook = Graph.picture
    try:
        Graph.picture = None
        assert graph._repr_svg_() is None
    finally:
        Graph.picture = hook


# --------------------------------------------------------------------------- graphviz
@needs_dot
def test_graph_repr_svg_and_ids() -> None:
    graph = custard.compile("x(i)=B(i,j)*c(j)")
    svg = graph._repr_svg_()
    assert isinstance(svg, str) and "<svg" in svg and svg.rstrip().endswith("</svg>")
    ids = {i.replace("&#45;", "-") for i in re.findall(r'<g id="([^"]+)"', svg)}
    assert {f"n-{b}" for b in graph.blocks} <= ids
    assert {f"e-{k}" for k in range(len(graph.edges))} <= ids
    assert re.search(r'class="node fam(&#45;|-)scan"', svg)


@needs_dot
def test_edge_tokens_match_the_report(demo) -> None:
    report, graph, _ = demo
    tokens = edge_tokens(graph, report)
    assert len(tokens) == len(graph.edges)
    by_input = {(s["dst"], s["dst_port"]): s["tokens"] for s in report["streams"]}
    checked = 0
    for edge, t in zip(graph.edges, tokens, strict=True):
        want = by_input.get((edge.dst, edge.dst_port.name))
        if want is not None:
            assert t == want
            checked += 1
    assert checked >= len(report["streams"]) // 2
    assert to_svg(graph, report) is not None


@needs_dot
def test_page_is_self_contained(demo) -> None:
    report, _, where = demo
    out = where / "run.html"
    write_html(report, out)  # the graph is read from the report's "graph" path
    text = out.read_text()
    assert not re.search(r"https?:", text)
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=", text)
    assert "<!--" not in text and "<?xml" not in text
    assert text.count('class="node fam') >= len(report["blocks"]) - 1
    assert len(text) < 300_000


# --------------------------------------------------------------------------- Chromium
def _open(b: Browser, path: Path) -> None:
    b.open(path.resolve().as_uri())
    assert b.evaluate("document.body.dataset.ready") == "1"


def _centre(b: Browser, selector: str) -> tuple[float, float]:
    x, y = b.evaluate(f"(() => {{const e = document.querySelector({json.dumps(selector)});"
                      "e.scrollIntoView({block: 'center', inline: 'center'});"
                      "const r = e.getBoundingClientRect();"
                      "return [r.x + r.width / 2, r.y + r.height / 2];})()")
    return x, y


def _colours(png: bytes) -> int:
    from matplotlib.image import imread

    img = imread(io.BytesIO(png), format="png")
    return len(np.unique(img.reshape(-1, img.shape[-1]), axis=0))


@needs_chromium
@needs_dot
def test_page_in_chromium(demo) -> None:
    report, graph, where = demo
    out = where / "run-browser.html"
    write_html(report, out, graphs=[graph])
    with Browser() as b:
        _open(b, out)
        assert b.evaluate("document.querySelectorAll('.graph svg g.node').length") >= 10
        assert b.evaluate("document.querySelectorAll('.tl-plot g[data-bid]').length") == \
            len(report["blocks"])
        busiest = max(report["blocks"], key=lambda blk: blk["busy"])
        b.mouse_move(*_centre(b, f"g.node#n-{busiest['id']}"))
        assert b.evaluate("document.querySelector('.panel .v-busy').textContent") == \
            f"{busiest['busy']:,}"
        assert b.evaluate("document.querySelector('.panel .v-stalled').textContent") == \
            f"{busiest['stalled']:,}"
        assert b.evaluate("document.querySelector('.tl-labels text.hl').dataset.bid") == \
            busiest["id"]
        k, tokens = next((k, t) for k, t in enumerate(edge_tokens(graph, report)) if t)
        b.mouse_move(*_centre(b, f"g.edge#e-{k} path"))
        assert b.evaluate("document.querySelector('.panel .v-tokens').textContent") == \
            f"{sum(tokens.values()):,}"
        b.evaluate("window.scrollTo(0, 0)")
        assert _colours(b.screenshot()) > 20
        assert b.console_errors == [] and b.exceptions == []
        assert b.requests and all(u.startswith(("file:", "data:")) for u in b.requests)


@needs_chromium
def test_timeline_zooms_and_resets_in_chromium(demo) -> None:
    report, _, where = demo
    out = where / "run-activity.html"
    write_html(dict(report, activity=_activity(report)), out, graphs=[])
    with Browser() as b:
        _open(b, out)
        view = "document.querySelector('.tl-plot').getAttribute('viewBox').split(' ').map(Number)"
        total = b.evaluate(view)[2]
        x, y = _centre(b, ".tl-plot")
        for _ in range(3):
            b.send("Input.dispatchMouseEvent", {"type": "mouseWheel", "x": x, "y": y,
                                                "deltaX": 0, "deltaY": -100})
        zoomed = b.evaluate(view)
        assert zoomed[2] < total * 0.6 and zoomed[0] > 0
        assert b.evaluate("document.querySelectorAll('.tl-axis text').length") >= 3
        b.evaluate("document.querySelector('.tl-plot').dispatchEvent("
                   "new MouseEvent('dblclick', {bubbles: true}))")
        assert b.evaluate(view)[:3] == [0, 0, total]
        assert b.console_errors == [] and b.exceptions == []


@needs_chromium
@needs_dot
def test_program_page_in_chromium(tmp_path: Path) -> None:
    """A program of two phases (T = B C, then X = T D): a section per phase, each with its
    picture (read from the report's program file), and a hover shows that phase's block."""
    first = custard.compile("T(i,k)=B(i,j)*C(j,k)")
    second = custard.compile("X(i,l)=T(i,k)*D(k,l)")
    first.name, second.name = "T", "X"
    dump_all([first, second], tmp_path / "prog.gv")
    args = ["run", str(tmp_path / "prog.gv"), "--no-progress", "--check",
            "--report", str(tmp_path / "report.json"), "-o", str(tmp_path / "X.mtx")]
    for k, (name, shape) in enumerate({"B": "9x12", "C": "12x10", "D": "10x7"}.items()):
        args += ["-t", f"{name}=random:0.3:{k}:{shape}"]
    assert sam_sim(args) == 0
    report = json.loads((tmp_path / "report.json").read_text())
    write_html(report, tmp_path / "prog.html")
    with Browser() as b:
        _open(b, tmp_path / "prog.html")
        assert b.evaluate("document.querySelectorAll('section.phase .graph svg').length") == 2
        block = max(report["phases"][1]["blocks"], key=lambda blk: blk["busy"])
        b.mouse_move(*_centre(b, f"section[data-phase='1'] g.node#n-{block['id']}"))
        assert b.evaluate("document.querySelector(\"section[data-phase='1'] .panel .v-busy\")"
                          ".textContent") == f"{block['busy']:,}"
        assert b.console_errors == [] and b.exceptions == []
