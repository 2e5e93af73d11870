"""One self-contained HTML page of a run's report (``sam-sim report report.json -o run.html``).

The page works offline: no CDN, its CSS and JavaScript inline, its data in a ``<script
type="application/json">`` (``<`` written ``\\u003c``, so no ``</``). It shows the run (graph,
expression, inputs, options, cycles, wall time, the ``--check`` PASS/FAIL) and, for each phase
of a program (a graph is one phase):

* the graph's picture (Graphviz SVG, :func:`sam.graph.draw.to_svg`): hovering or clicking a
  block or an edge fills an info panel with its numbers from the report and highlights the
  block's timeline row;
* a timeline of block activity, one row per block coloured by family with opacity by
  utilisation: from the report's ``activity`` buckets when it has them, else one coarse bar from
  each block's first to last firing shaded by its mean utilisation (and said so); FIFO
  occupancy of recorded streams under the rows. The wheel zooms, dragging pans, a double-click
  resets;
* the token breakdown of every producing port (SAM paper Fig. 14 shares, inline SVG bars).

``page(report, graph_svgs)`` gives the text, ``write_html(report, path)`` writes it (atomically;
the graphs are read from the report's ``graph`` file unless given) and ``RunReport(report)``
shows the page in Jupyter (an ``<iframe srcdoc>``, which keeps its CSS and JS apart).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from formats.atomic import atomic_write
from formats.errors import ToolkitError
from sam.graph.draw import edge_tokens, to_svg
from sam.graph.model import Graph
from sam.plot import KIND_COLORS
from sam.runtime.tokens import KIND_NAMES
from sam.style import FAMILY_COLORS, FAMILY_NAMES

ROW = 14          # timeline row height (px)
FIFO_ROW = 30     # FIFO occupancy row height (px)
LEVELS = 10       # utilisation steps in the timeline


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _num(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return _esc(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.4g}"
    return _esc(value)


def _phases(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    phases = report.get("phases")
    return list(phases) if isinstance(phases, list) else [report]


# --------------------------------------------------------------------------- graph pictures
def graph_svg(graph: Graph, report: Mapping[str, Any]) -> str | None:
    """The graph's picture with the report's counts, ready to inline in HTML (no XML prolog,
    no namespace URLs), or None when Graphviz cannot draw it."""
    svg = to_svg(graph, report)
    if svg is None:
        return None
    start = svg.find("<svg")
    if start < 0:
        return None
    svg = svg[start:]
    svg = re.sub(r'\s+xmlns(:xlink)?="[^"]*"', "", svg)
    return re.sub(r"<!--.*?-->", "", svg, flags=re.S)


def _edges_json(graph: Graph | None, report: Mapping[str, Any]) -> list[dict[str, Any]]:
    if graph is None:
        return []
    tokens = edge_tokens(graph, report)
    return [{"src": e.src, "src_port": e.src_port.name, "dst": e.dst, "dst_port": e.dst_port.name,
             "kind": e.kind, "tokens": t} for e, t in zip(graph.edges, tokens, strict=True)]


# --------------------------------------------------------------------------- timeline
def _extent(rep: Mapping[str, Any]) -> int:
    act = rep.get("activity") or {}
    ends = [int(rep.get("cycles") or 0)]
    ends += [int(b.get("finished") or 0) for b in rep.get("blocks") or []]
    if act.get("bucket_cycles") and act.get("buckets"):
        ends.append(int(act["bucket_cycles"]) * int(act["buckets"]))
    return max(max(ends), 1)


def _level(busy: float, width: float) -> int:
    if busy <= 0 or width <= 0:
        return 0
    return min(LEVELS, max(1, round(LEVELS * busy / width)))


def _runs(busy: Sequence[float], w: int) -> list[tuple[int, int, int]]:
    """(first bucket, bucket count, level) for each run of buckets at one nonzero level."""
    out: list[tuple[int, int, int]] = []
    for j, b in enumerate(busy):
        lv = _level(float(b), w)
        if out and out[-1][2] == lv and out[-1][0] + out[-1][1] == j:
            first, n, _ = out[-1]
            out[-1] = (first, n + 1, lv)
        elif lv:
            out.append((j, 1, lv))
    return out


def _opacity(level: int) -> str:
    return f"{0.3 + 0.7 * level / LEVELS:.2f}"


def _timeline(rep: Mapping[str, Any]) -> str:
    blocks = [b for b in rep.get("blocks") or [] if isinstance(b, Mapping)]
    act = rep.get("activity") if isinstance(rep.get("activity"), Mapping) else None
    per_block = (act or {}).get("blocks") or {}
    w = int((act or {}).get("bucket_cycles") or 0)
    total = _extent(rep)
    rows, labels = [], []
    for r, b in enumerate(blocks):
        bid = str(b.get("id"))
        color = FAMILY_COLORS.get(str(b.get("family")), FAMILY_COLORS["misc"])
        y = r * ROW
        rects = [f'<rect class="bg" x="0" y="{y}" width="{total}" height="{ROW}"/>']
        series = per_block.get(bid) if isinstance(per_block, Mapping) else None
        if act is not None and isinstance(series, Mapping) and w > 0:
            for first, n, lv in _runs(series.get("busy") or [], w):
                rects.append(f'<rect x="{first * w}" y="{y + 1}" width="{n * w}" '
                             f'height="{ROW - 2}" fill-opacity="{_opacity(lv)}"/>')
        else:
            start, end = int(b.get("started") or 0), int(b.get("finished") or 0)
            if end > start:
                lv = _level(float(b.get("busy") or 0), end - start)
                rects.append(f'<rect x="{start}" y="{y + 1}" width="{end - start}" '
                             f'height="{ROW - 2}" fill-opacity="{_opacity(lv)}"/>')
        rows.append(f'<g data-bid="{_esc(bid)}" fill="{color}">{"".join(rects)}</g>')
        labels.append(f'<text data-bid="{_esc(bid)}" x="4" y="{y + ROW - 3}">'
                      f'{_esc(bid)} {_esc(b.get("label", ""))}</text>')
    fifo = []
    streams = (act or {}).get("streams") or []
    y0 = len(blocks) * ROW
    for k, s in enumerate(s for s in streams if isinstance(s, Mapping)):
        occ = [float(v) for v in s.get("occupancy") or []]
        top = max(occ, default=0.0) or 1.0
        y = y0 + k * FIFO_ROW
        step = w or max(total // max(len(occ), 1), 1)
        pts = " ".join(f"{j * step + step / 2:g},{y + FIFO_ROW - 2 - (FIFO_ROW - 6) * v / top:.1f}"
                       for j, v in enumerate(occ))
        fifo.append(f'<rect class="bg" x="0" y="{y}" width="{total}" height="{FIFO_ROW}"/>'
                    f'<polyline class="fifo" points="{pts}"/>')
        name = f"fifo {s.get('src')}:{s.get('src_port')} -> {s.get('dst')}:{s.get('dst_port')}"
        labels.append(f'<text x="4" y="{y + FIFO_ROW / 2 + 4}">{_esc(name)} '
                      f'(max {max(occ, default=0):,.0f})</text>')
    height = max(y0 + len(fifo) * FIFO_ROW, ROW)
    if act is not None:
        res = act.get("resolution_cycles")
        how = (f"activity in {act.get('buckets')} buckets of {w:,} cycles"
               + (f" (exact every ~{res:,} cycles; spread evenly in between)" if res else ""))
    else:
        how = ("coarse: no activity was recorded, so each bar runs from a block's first to its "
               "last firing, shaded by its mean utilisation")
    return (f'<div class="tl" data-total="{total}"><p class="note">{_esc(how)}. Wheel: zoom, '
            f'drag: pan, double-click: reset.</p><div class="tlrow">'
            f'<svg class="tl-labels" width="260" height="{height}">{"".join(labels)}</svg>'
            f'<div class="tl-main"><svg class="tl-plot" viewBox="0 0 {total} {height}" '
            f'preserveAspectRatio="none" height="{height}">{"".join(rows)}{"".join(fifo)}</svg>'
            f'<svg class="tl-axis" height="22"></svg></div></div></div>')


def _legend(rep: Mapping[str, Any]) -> str:
    fams = [f for f in FAMILY_NAMES if any(b.get("family") == f for b in rep.get("blocks") or [])]
    items = "".join(f'<span class="key"><i style="background:{FAMILY_COLORS[f]}"></i>'
                    f'{_esc(FAMILY_NAMES[f])}</span>' for f in fams)
    scale = "".join(f'<i style="background:#555;opacity:{_opacity(lv)}" title="{lv * 10}%"></i>'
                    for lv in range(1, LEVELS + 1))
    return (f'<div class="legend">{items}<span class="key scale">utilisation 0% {scale} '
            f'100%</span></div>')


# --------------------------------------------------------------------------- stream bars
def _stream_bars(rep: Mapping[str, Any]) -> str:
    cycles = max(int(rep.get("cycles") or 0), 1)
    labels = {b.get("id"): b.get("label", "") for b in rep.get("blocks") or []}
    seen: dict[tuple[str, str], Mapping[str, Any]] = {}
    for s in rep.get("streams") or []:
        if isinstance(s, Mapping) and isinstance(s.get("tokens"), Mapping):
            seen.setdefault((str(s.get("src")), str(s.get("src_port"))), s)
    if not seen:
        return '<p class="note">no streams in the report</p>'
    rows = []
    for (src, port), s in seen.items():
        counts = {k: int(s["tokens"].get(k) or 0) for k in KIND_NAMES}
        counts["idle"] = max(cycles - sum(counts.values()), 0)
        whole = max(sum(counts.values()), 1)
        x, bars = 0.0, []
        for kind in [*KIND_NAMES, "idle"]:
            share = 100.0 * counts[kind] / whole
            if share > 0:
                bars.append(f'<rect x="{x:.2f}" y="0" width="{share:.2f}" height="1" '
                            f'fill="{KIND_COLORS[kind]}"><title>{kind}: {counts[kind]:,} '
                            f'({share:.1f}%)</title></rect>')
            x += share
        rows.append(f'<div class="bar"><span>{_esc(src)} {_esc(labels.get(src, ""))} '
                    f'[{_esc(port)}]</span><svg viewBox="0 0 100 1" preserveAspectRatio="none">'
                    f'{"".join(bars)}</svg></div>')
    keys = "".join(f'<span class="key"><i style="background:{KIND_COLORS[k]}"></i>{k}</span>'
                   for k in [*KIND_NAMES, "idle"])
    return (f'<div class="legend">{keys}</div><div class="bars">{"".join(rows)}</div>'
            f'<p class="note">share of {cycles:,} cycles in which each producing port sent a '
            'token of each kind (SAM paper Fig. 14)</p>')


# --------------------------------------------------------------------------- the page
def _check(check: Any) -> str:
    if not isinstance(check, Mapping):
        return '<span class="badge none">not checked</span>'
    ok = bool(check.get("passed"))
    return (f'<span class="badge {"pass" if ok else "fail"}">{"PASS" if ok else "FAIL"}</span> '
            f'{_esc(check.get("line", ""))}')


def _table(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    if not rows:
        return ""
    th = "".join(f"<th>{_esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{_num(v)}</td>" for v in row) + "</tr>" for row in rows)
    return f"<table><tr>{th}</tr>{body}</table>"


def _tensors(tensors: Any) -> str:
    if not isinstance(tensors, Mapping):
        return ""
    rows = [[n, "x".join(map(str, t.get("shape") or [])) or "scalar", t.get("format"),
             t.get("nnz"), t.get("stored"), t.get("source", "")]
            for n, t in tensors.items() if isinstance(t, Mapping)]
    return _table(["tensor", "shape", "format", "nnz", "stored", "source"], rows)


def _summary(report: Mapping[str, Any]) -> str:
    facts: list[tuple[str, Any]] = [
        ("graph", report.get("graph")), ("expression", report.get("expression")),
        ("cycles", report.get("cycles")), ("wall time (s)", report.get("wall_time_s")),
        ("tokens", report.get("tokens")), ("engine", report.get("engine")),
        ("FIFO depth", report.get("fifo_depth") or "unbounded"), ("seed", report.get("seed")),
    ]
    if report.get("phase_cycles"):
        facts.append(("cycles per phase", " + ".join(f"{c:,}" for c in report["phase_cycles"])))
    if report.get("latencies"):
        facts.append(("latencies", ", ".join(f"{k}={v}" for k, v in report["latencies"].items())))
    opts = report.get("options")
    if isinstance(opts, Mapping):
        facts += [(f"option {k}", v if not isinstance(v, (list, dict)) else json.dumps(v))
                  for k, v in opts.items()]
    dl = "".join(f"<dt>{_esc(k)}</dt><dd>{_num(v)}</dd>" for k, v in facts if v not in (None, ""))
    warn = ""
    if report.get("interrupted"):
        warn += '<p class="warn">INTERRUPTED: statistics are partial</p>'
    if report.get("error"):
        warn += f'<p class="warn">{_esc(report["error"])}</p>'
    notes = "".join(f"<li>{_esc(n)}</li>" for n in report.get("notes") or [])
    return (f'<div class="check">{_check(report.get("check"))}</div>{warn}<div class="sum">'
            f'<dl>{dl}</dl><div><h3>inputs</h3>{_tensors(report.get("inputs"))}'
            f'<h3>outputs</h3>{_tensors(report.get("outputs"))}</div></div>'
            + (f"<ul class='notes'>{notes}</ul>" if notes else ""))


def _phase(k: int, rep: Mapping[str, Any], svg: str | None, many: bool) -> str:
    head = ""
    if many:
        head = (f'<h2>phase {_esc(rep.get("index", k + 1))}: {_esc(rep.get("name", ""))}'
                f' <small>{_esc(rep.get("expression") or "")} &middot; '
                f'{_num(rep.get("cycles"))} cycles</small></h2>'
                f'<div class="check">{_check(rep.get("check"))}</div>')
    picture = svg if svg else ('<p class="note">no graph picture (Graphviz `dot` missing, or '
                               'the graph file could not be read)</p>')
    return (f'<section class="phase" data-phase="{k}">{head}<div class="top">'
            f'<div class="graph">{picture}</div><aside class="panel"><p class="note">hover or '
            f'click a block or an edge</p></aside></div>'
            f'<h3>block activity</h3>{_legend(rep)}{_timeline(rep)}'
            f'<h3>stream token breakdown</h3>{_stream_bars(rep)}</section>')


def _data(phases: Sequence[Mapping[str, Any]], graphs: Sequence[Graph | None]) -> str:
    data = {"phases": [{
        "cycles": rep.get("cycles"),
        "blocks": {str(b.get("id")): {k: v for k, v in b.items()}
                   for b in rep.get("blocks") or [] if isinstance(b, Mapping)},
        "edges": _edges_json(graphs[k] if k < len(graphs) else None, rep),
    } for k, rep in enumerate(phases)]}
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c")  # no "</script>" or "<!--" inside the script


def page(report: Mapping[str, Any], graph_svgs: Sequence[str | None] | None = None,
         graphs: Sequence[Graph | None] | None = None) -> str:
    """The HTML text of ``report`` (a graph's or a program's); ``graph_svgs`` gives each
    phase's picture (from :func:`graph_svg`), ``graphs`` the graphs whose edges the pictures'
    ``e-<k>`` ids index (without them, edges show no numbers)."""
    phases = _phases(report)
    svgs = list(graph_svgs or [])
    title = report.get("expression") or report.get("graph") or "sam-sim run"
    body = "".join(_phase(k, rep, svgs[k] if k < len(svgs) else None, len(phases) > 1)
                   for k, rep in enumerate(phases))
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>'
            f'{_esc(title)}</title><style>{_CSS}</style></head><body><header><h1>'
            f'{_esc(title)}</h1>{_summary(report)}</header>{body}'
            f'<script type="application/json" id="sam-data">{_data(phases, list(graphs or []))}'
            f'</script><script>{_JS}</script></body></html>\n')


def _load_graphs(report: Mapping[str, Any]) -> list[Graph | None]:
    from sam.graph.dot import load_all

    path = report.get("graph")
    try:
        graphs: list[Graph | None] = list(load_all(str(path))) if path else []
    except (ToolkitError, OSError):
        return []
    return graphs if len(graphs) == len(_phases(report)) else []


def write_html(report: Mapping[str, Any], path: str | Path,
               graphs: Sequence[Graph] | None = None) -> None:
    """Write the page of ``report`` to ``path`` (atomically); the graphs are read from the
    report's ``graph`` file unless given (no pictures when they cannot be)."""
    with atomic_write(Path(path)) as f:
        f.write(render(report, graphs).encode("utf-8"))


def render(report: Mapping[str, Any], graphs: Sequence[Graph | None] | None = None) -> str:
    """The page of ``report`` with pictures of ``graphs`` (read from the report's ``graph``
    file when None)."""
    found = list(graphs) if graphs is not None else _load_graphs(report)
    phases = _phases(report)
    svgs = [graph_svg(g, rep) if g is not None else None
            for g, rep in zip(found, phases, strict=False)]
    return page(report, svgs, found)


class RunReport:
    """A report dict shown in Jupyter as its HTML page (an ``<iframe srcdoc>``)."""

    def __init__(self, report: Mapping[str, Any], graphs: Sequence[Graph] | None = None,
                 height: int = 900) -> None:
        self.report = report
        self.graphs = graphs
        self.height = height

    def _repr_html_(self) -> str:
        text = render(self.report, self.graphs)
        return (f'<iframe srcdoc="{html.escape(text, quote=True)}" style="width:100%;'
                f'height:{self.height}px;border:1px solid #ccc"></iframe>')


_CSS = """
body{font:13px/1.4 Helvetica,Arial,sans-serif;margin:0 16px 24px;color:#222}
h1{font-size:18px;margin:12px 0 4px}h2{font-size:16px;border-top:2px solid #ccc;padding-top:8px}
h3{font-size:13px;margin:14px 0 4px}small{color:#666;font-weight:normal}
dl{display:grid;grid-template-columns:max-content auto;gap:1px 12px;margin:6px 0}
dt{color:#666}dd{margin:0}table{border-collapse:collapse;font-size:12px}
td,th{border:1px solid #ddd;padding:1px 6px;text-align:right}th{background:#f4f4f4}
td:first-child,th:first-child{text-align:left}
.badge{font-weight:bold;padding:1px 8px;border-radius:3px;color:#fff}
.pass{background:#2b8a3e}.fail{background:#c92a2a}.none{background:#868e96}
.sum{display:flex;gap:32px;align-items:flex-start}.sum h3{margin-top:4px}
.warn{color:#c92a2a;font-weight:bold}.note{color:#666;font-size:12px;margin:2px 0}
.top{display:flex;gap:12px;align-items:flex-start}
.graph{flex:1;overflow:auto;border:1px solid #eee}
.graph svg{display:block;max-width:100%;max-height:78vh;width:auto;height:auto;margin:auto}
.graph g.node,.graph g.edge{cursor:pointer}.graph g.sel path,.graph g.sel polygon,
.graph g.sel ellipse{stroke:#e03131;stroke-width:3px}
.panel{width:300px;position:sticky;top:4px;border:1px solid #ccc;padding:6px 8px;
background:#fafafa;font-size:12px;min-height:120px}.panel table{width:100%}
.legend{display:flex;flex-wrap:wrap;gap:4px 12px;font-size:12px;margin:4px 0}
.key i{display:inline-block;width:12px;height:12px;margin:0 3px -2px 0;border:1px solid #aaa}
.scale i{width:10px;margin:0 0 -2px 0;border:0}
.tlrow{display:flex}.tl-labels{flex:none;font-size:10px}
.tl-labels text.hl{font-weight:bold;fill:#e03131}
.tl-main{flex:1;min-width:0}.tl-plot{width:100%;display:block;cursor:grab;background:#fff}
.tl-plot rect.bg{fill:#fff}.tl-plot g.hl rect.bg{fill:#ffe3e3}
.tl-plot rect{stroke:none}.fifo{fill:none;stroke:#1c7ed6;stroke-width:1.5px;
vector-effect:non-scaling-stroke}.tl-axis{width:100%;display:block;font-size:10px}
.tl-axis line{stroke:#888}.bars{max-width:1100px;font-size:11px}
.bar{display:flex;align-items:center;height:15px}.bar span{flex:none;width:260px;
overflow:hidden;white-space:nowrap;text-overflow:ellipsis}.bar svg{flex:1;height:11px}
"""

_JS = r"""
(function(){
const data=JSON.parse(document.getElementById('sam-data').textContent);
const fmt=v=>typeof v==='number'?v.toLocaleString('en-US',{maximumFractionDigits:4}):String(v);
const esc=s=>String(s).replace(/[&<>"]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
const kinds=['data','stop','empty','done'];
function tokTable(rows){
  let h='<table><tr><th></th>'+rows.map(r=>'<th>'+esc(r[0])+'</th>').join('')+'</tr>';
  for(const k of kinds){
    h+='<tr><td>'+k+'</td>'+rows.map(r=>'<td>'+fmt((r[1]||{})[k]||0)+'</td>').join('')+'</tr>';}
  return h+'</table>';}
function blockHtml(b,cycles){
  const u=b.utilisation!=null?b.utilisation:(cycles?b.busy/cycles:0);
  let h='<b>node '+esc(b.id)+': '+esc(b.label)+'</b><br>'+esc(b.type)+' ('+esc(b.family)+')<table>';
  for(const [k,v] of [['busy',b.busy],['idle',b.idle],['stalled',b.stalled],
      ['utilisation',(100*u).toFixed(1)+'%'],['started',b.started],['finished',b.finished]])
    h+='<tr><td>'+k+'</td><td class="v-'+k+'">'+fmt(v)+'</td></tr>';
  h+='</table>'+tokTable([['in',b.tokens_in],['out',b.tokens_out]]);
  if(b.details){h+='<table>'+Object.entries(b.details).map(([k,v])=>'<tr><td>'+esc(k)+'</td><td>'+fmt(v)+'</td></tr>').join('')+'</table>';}
  if(b.parts)h+='parts: '+b.parts.map(esc).join(', ');
  return h;}
function edgeHtml(e){
  let h='<b>'+esc(e.kind)+' '+esc(e.src)+':'+esc(e.src_port)+' &rarr; '+esc(e.dst)+':'
    +esc(e.dst_port)+'</b><br>';
  if(!e.tokens)return h+'no token counts';
  const t=Object.values(e.tokens).reduce((a,b)=>a+b,0);
  return h+'tokens: <span class="v-tokens">'+fmt(t)+'</span>'+tokTable([['tokens',e.tokens]]);}
document.querySelectorAll('section.phase').forEach(sec=>{
  const ph=data.phases[+sec.dataset.phase],panel=sec.querySelector('.panel');
  let pinned=null;
  function highlight(bid){
    sec.querySelectorAll('.hl').forEach(x=>x.classList.remove('hl'));
    sec.querySelectorAll('.sel').forEach(x=>x.classList.remove('sel'));
    if(bid==null)return;
    sec.querySelectorAll('[data-bid]').forEach(x=>{if(x.dataset.bid===bid)x.classList.add('hl');});
    sec.querySelectorAll('g.node').forEach(x=>{if(x.id==='n-'+bid)x.classList.add('sel');});}
  function show(el){
    if(!el)return;
    let bid=null,html=null;
    if(el.dataset&&el.dataset.bid!=null)bid=el.dataset.bid;
    else if(el.classList.contains('node')||el.classList.contains('cluster'))bid=el.id.slice(2);
    if(bid!=null&&ph.blocks[bid])html=blockHtml(ph.blocks[bid],ph.cycles);
    else if(el.classList.contains('edge')&&/^e-\d+$/.test(el.id)){const e=ph.edges[+el.id.slice(2)];
      if(e){html=edgeHtml(e);highlight(null);el.classList.add('sel');}}
    if(html==null)return;
    panel.innerHTML=html;panel.dataset.shown=bid!=null?'n-'+bid:el.id;
    if(bid!=null)highlight(bid);}
  const target=ev=>ev.target.closest&&ev.target.closest('g.node,g.edge,g.cluster,[data-bid]');
  sec.addEventListener('mouseover',ev=>{if(!pinned)show(target(ev));});
  sec.addEventListener('click',ev=>{const t=target(ev);
    if(t){pinned=null;show(t);pinned=t;}else pinned=null;});
  const tl=sec.querySelector('.tl');if(!tl)return;
  const plot=tl.querySelector('.tl-plot'),axis=tl.querySelector('.tl-axis'),total=+tl.dataset.total;
  const H=plot.viewBox.baseVal.height;let x0=0,span=total,drag=null;
  function draw(){
    plot.setAttribute('viewBox',x0+' 0 '+span+' '+H);
    const w=axis.clientWidth||800,raw=span/8,p=Math.pow(10,Math.floor(Math.log10(raw)));
    const step=[1,2,5,10].map(m=>m*p).find(s=>s>=raw)||raw;let s='';
    for(let t=Math.ceil(x0/step)*step;t<=x0+span;t+=step){const x=(t-x0)/span*w;
      s+='<line x1="'+x+'" x2="'+x+'" y1="0" y2="5"/><text x="'+(x+2)+'" y="16">'
        +fmt(Math.round(t))+'</text>';}
    axis.innerHTML=s+'<text x="'+(w-4)+'" y="16" text-anchor="end" fill="#666">cycle</text>';}
  plot.addEventListener('wheel',ev=>{ev.preventDefault();const r=plot.getBoundingClientRect();
    const f=(ev.clientX-r.left)/r.width,x=x0+f*span;
    span=Math.min(total,Math.max(10,span*(ev.deltaY>0?1.25:0.8)));
    x0=Math.min(Math.max(0,x-f*span),total-span);draw();},{passive:false});
  plot.addEventListener('mousedown',ev=>{drag={x:ev.clientX,x0:x0};ev.preventDefault();});
  window.addEventListener('mousemove',ev=>{if(!drag)return;const r=plot.getBoundingClientRect();
    x0=Math.min(Math.max(0,drag.x0-(ev.clientX-drag.x)/r.width*span),total-span);draw();});
  window.addEventListener('mouseup',()=>{drag=null;});
  plot.addEventListener('dblclick',()=>{x0=0;span=total;draw();});
  window.addEventListener('resize',draw);draw();
});
document.body.dataset.ready='1';
})();
"""
