"""Pictures of SAM graphs (SVG, PNG or PDF through Graphviz ``dot``).

Blocks are boxes filled by family (scanners green, repeaters blue, mergers purple, ALUs orange,
reducers brown, droppers red, writers dark green, arrays yellow); a ``broadcast`` is a point. A
compound block (:mod:`sam.graph.compound`) is one pink box with a double border, or, with
``expand_compounds``, a pink cluster around its parts (nested compounds nest).
Streams are drawn by kind, as in the Custard output: coordinates dashed, references bold, values
as a double line, repeat signals dotted, bitvectors dashed grey. Edges carry the port comment
where a block has several ports of a kind (``in-B``, ``outer-i``).

With ``stats`` (a :class:`~sam.sim.engine.SimResult`, or the report dict of ``sam-sim run
--report``), every edge is labelled with the tokens that crossed it (``12 = 9 data + 2 stop +
1 done``) and every block with its busy cycles (a compound: the sum of its parts').

``to_dot(graph, stats)`` gives the picture's DOT text; ``render(graph, path, stats)`` runs
``dot`` (the format is the file suffix; ``.gv``/``.dot`` writes the text itself); ``to_svg``
gives the SVG text (or None), and is the graph's Jupyter picture (``Graph.picture``) once this
module is imported. In the SVG a block is ``<g id="n-<id>" class="node fam-<family>">`` and
edge ``k`` of ``graph.edges`` is ``<g id="e-<k>">``; ``edge_tokens(graph, stats)`` gives its
tokens by the same index.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from formats.atomic import atomic_write
from sam.blocks.base import Block
from sam.errors import GraphError
from sam.graph.compound import CompoundBlock
from sam.graph.dot import edge_comment
from sam.graph.dottext import custard_label, dot_id, escape, quote
from sam.graph.expand import Expansion, expand
from sam.graph.model import Edge, Graph
from sam.style import FAMILY_COLORS, FAMILY_NAMES

#: DOT edge attributes by stream kind.
KIND_STYLES = {
    "crd": {"style": "dashed"},
    "ref": {"style": "bold"},
    "val": {"color": "black:invis:black"},
    "repsig": {"style": "dotted"},
    "bv": {"style": "dashed", "color": "gray45"},
    "ctrl": {"color": "firebrick", "penwidth": "1.5"},
    "data": {"color": "royalblue", "penwidth": "1.5"},
}
KIND_NAMES = {"crd": "coordinates", "ref": "references", "val": "values",
              "repsig": "repeat signals", "bv": "bitvectors", "ctrl": "control queue",
              "data": "data queue"}
FORMATS = ("svg", "png", "pdf")


# --------------------------------------------------------------------------- statistics
class _Stats:
    """Token counts per graph edge and busy cycles per block, from a SimResult or a report."""

    def __init__(self, graph: Graph, stats: Any, exp: Expansion) -> None:
        self.exp = exp
        self.by_input: dict[tuple[str, str], dict[str, int]] = {}
        self.by_output: dict[tuple[str, str], dict[str, int]] = {}
        self.busy: dict[str, int] = {}
        self.cycles = 0
        if isinstance(stats, Mapping):
            streams = stats.get("streams") or []
            blocks = stats.get("blocks") or []
            self.cycles = stats.get("cycles") or 0
            streams = [s for s in streams if isinstance(s, Mapping)]
            blocks = [b for b in blocks if isinstance(b, Mapping)]
            rows = [(s.get("src"), s.get("src_port"), s.get("dst"), s.get("dst_port"),
                     s.get("tokens")) for s in streams]
            busy = [(b.get("id"), b.get("busy")) for b in blocks]
        else:
            rows = [(s.src, s.src_port, s.dst, s.dst_port, s.tokens)
                    for s in getattr(stats, "streams", [])]
            busy = [(b.id, b.busy) for b in getattr(stats, "blocks", {}).values()]
            self.cycles = getattr(stats, "cycles", 0)
        for src, sport, dst, dport, tokens in rows:
            if not isinstance(tokens, Mapping):
                continue
            counts = {str(k): int(v) for k, v in tokens.items() if isinstance(v, (int, float))}
            self.by_input[(str(dst), str(dport))] = counts
            self.by_output.setdefault((str(src), str(sport)), counts)
        for bid, n in busy:
            if isinstance(n, (int, float)):
                self.busy[str(bid)] = int(n)
        self.graph = graph

    def _origin(self, node: str, port: str) -> tuple[str, str]:
        """The producer port behind a chain of broadcast points."""
        seen = set()
        while self.graph.blocks[node].dot_type == "broadcast" and node not in seen:
            seen.add(node)
            feed = next(self.graph.inputs_of(node), None)
            if feed is None:
                break
            node, port = feed.src, feed.src_port.name
        return node, port

    def tokens(self, edge: Edge) -> dict[str, int] | None:
        """The tokens that crossed ``edge`` (ports of compound blocks mapped to their parts')."""
        if self.graph.blocks[edge.dst].dot_type != "broadcast":
            for port in self.exp.flat_inputs(edge.dst, edge.dst_port.name):
                hit = self.by_input.get(port)
                if hit is not None:
                    return hit
        origin = self._origin(edge.src, edge.src_port.name)
        return self.by_output.get(self.exp.flat_output(*origin))


def edge_tokens(graph: Graph, stats: Any) -> list[dict[str, int] | None]:
    """The tokens that crossed each edge of ``graph`` (index ``k`` of ``graph.edges``, the
    ``e-<k>`` of the picture's SVG), from a SimResult or a report dict; None where unknown."""
    view = _Stats(graph, stats, expand(graph))
    return [view.tokens(edge) for edge in graph.edges]


def _token_label(counts: Mapping[str, int]) -> str:
    total = sum(counts.values())
    parts = [f"{counts[k]:,} {k}" for k in ("data", "empty", "stop", "done") if counts.get(k)]
    if len(parts) <= 1:
        return f"{total:,} tokens" if total != 1 else "1 token"
    return f"{total:,} = " + " + ".join(parts)


# --------------------------------------------------------------------------- DOT text
def _node_label(block: Block) -> str:
    """Two readable lines: the block and what it works on (DOT escapes, ``\\n`` breaks)."""
    return custard_label(block).strip().replace(" \\n", "\\n")


def to_dot(graph: Graph, stats: Any = None, *, legend: bool = True,
           expand_compounds: bool = False) -> str:
    """The picture as DOT text (see module docstring). A compound block is one node (a double
    border); with ``expand_compounds``, a cluster holding its parts."""
    exp = expand(graph)
    title = graph.name
    if expand_compounds:
        graph = exp.graph
        exp = Expansion(graph, exp.compounds)
    view = _Stats(graph, stats, exp) if stats is not None else None
    if graph.attrs.get("expr"):
        title += f": {graph.attrs['expr']}"
    if view is not None and view.cycles:
        title += f" ({view.cycles:,} cycles)"
    lines = [
        "digraph SAM {",
        f"    graph [label={quote(title)} labelloc=t fontname=Helvetica fontsize=14 "
        "rankdir=TB nodesep=0.3 ranksep=0.45]",
        "    node [fontname=Helvetica fontsize=10 shape=box style=\"rounded,filled\" "
        "penwidth=0.8 margin=\"0.12,0.05\"]",
        "    edge [fontname=Helvetica fontsize=8 arrowsize=0.7 fontcolor=gray25]",
    ]
    clustered: set[str] = set()
    for bid, block in graph.blocks.items():
        outer = exp.enclosing(bid) if expand_compounds else []
        if not outer:
            lines.append(_node_line(bid, block, view, "    "))
        elif outer[0] not in clustered:
            clustered.add(outer[0])
            lines += _cluster(graph, exp, outer[0], view, "    ")
    for k, edge in enumerate(graph.edges):
        attrs = dict(KIND_STYLES.get(edge.kind, {}))
        text = []
        comment = edge_comment(graph, edge)
        if comment:
            text.append(comment)
        if view is not None:
            counts = view.tokens(edge)
            if counts is not None:
                text.append(_token_label(counts))
        if text:
            attrs["label"] = "\n".join(text)
        attrs["tooltip"] = f"{edge.kind} {edge.src}:{edge.src_port.name} -> " \
                           f"{edge.dst}:{edge.dst_port.name}"
        attrs["id"] = f"e-{k}"
        body = " ".join(f"{k}={quote(v) if k != 'label' else _label_text(v)}"
                        for k, v in attrs.items())
        lines.append(f"    {dot_id(edge.src)} -> {dot_id(edge.dst)} [{body}]")
    if legend:
        lines += _legend(graph, clusters=bool(clustered))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _busy(view: _Stats | None, bid: str) -> str:
    return f"\\nbusy {view.busy[bid]:,}" if view is not None and bid in view.busy else ""


def _node_line(bid: str, block: Block, view: _Stats | None, indent: str) -> str:
    tip = quote(f"node {bid}: {block.label()}")
    ids = f"id={quote('n-' + bid)} class={quote('fam-' + block.family)}"
    if block.dot_type == "broadcast":
        return (f"{indent}{dot_id(bid)} [shape=point width=0.09 label=\"\" tooltip={tip} "
                f"{ids}]")
    label = _node_label(block) + _busy(view, bid)
    color = FAMILY_COLORS.get(block.family, FAMILY_COLORS["misc"])
    extra = " peripheries=2" if isinstance(block, CompoundBlock) else ""
    return (f"{indent}{dot_id(bid)} [label=\"{label}\" fillcolor=\"{color}\"{extra} "
            f"tooltip={tip} {ids}]")


def _cluster(graph: Graph, exp: Expansion, cid: str, view: _Stats | None,
             indent: str) -> list[str]:
    """A compound drawn as a cluster of its parts (nested compounds as nested clusters)."""
    info = exp.compounds[cid]
    label = f"{cid}: {escape(info.block.label())}" + _busy(view, cid)
    lines = [f"{indent}subgraph {dot_id('cluster_' + cid)} {{",
             f"{indent}    label=\"{label}\" style=\"rounded,filled\" fontsize=10 "
             f"fillcolor=\"{FAMILY_COLORS['compound']}\" color=gray40 "
             f"id={quote('n-' + cid)} class=\"fam-compound\""]
    for child in info.children:
        if child in exp.compounds:
            lines += _cluster(graph, exp, child, view, indent + "    ")
        else:
            lines.append(_node_line(child, graph.blocks[child], view, indent + "    "))
    lines.append(f"{indent}}}")
    return lines


def _label_text(text: str) -> str:
    return '"' + "\\n".join(escape(part) for part in text.split("\n")) + '"'


def _legend(graph: Graph, clusters: bool = False) -> list[str]:
    """A small table: the families present (compounds drawn as ``clusters`` too) and the
    stream kinds present."""
    families = [f for f in FAMILY_NAMES if any(b.family == f for b in graph.blocks.values())
                or (f == "compound" and clusters)]
    kinds = [k for k in KIND_NAMES if any(e.kind == k for e in graph.edges)]
    if not families and not kinds:
        return []
    styles = {"crd": "- - - - dashed", "ref": "━━━ bold", "val": "═══ double",
              "repsig": "· · · · dotted", "bv": "- - - - grey dashed", "ctrl": "━━━ red",
              "data": "━━━ blue"}
    rows = []
    for f in families:
        rows.append(f'<TR><TD BGCOLOR="{FAMILY_COLORS[f]}" WIDTH="18"></TD>'
                    f'<TD ALIGN="LEFT">{_html(FAMILY_NAMES[f])}</TD></TR>')
    for k in kinds:
        rows.append(f'<TR><TD ALIGN="LEFT">{_html(styles[k])}</TD>'
                    f'<TD ALIGN="LEFT">{k}: {_html(KIND_NAMES[k])}</TD></TR>')
    table = ('<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="2">'
             + "".join(rows) + "</TABLE>>")
    return ["    subgraph cluster_legend {",
            '        label="legend" fontsize=9 style="rounded,dashed" color=gray60',
            f"        legend_table [shape=plaintext style=\"\" fontsize=8 label={table}]",
            "    }"]


def _html(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


# --------------------------------------------------------------------------- rendering
def render(graph: Graph, path: str | Path, stats: Any = None, *, legend: bool = True,
           fmt: str | None = None, expand_compounds: bool = False) -> Path:
    """Draw ``graph`` to ``path`` (SVG, PNG or PDF by suffix, or ``fmt``; ``.gv``/``.dot``
    writes the DOT text); ``expand_compounds`` as in :func:`to_dot`. Raises
    :class:`GraphError` if Graphviz is missing or fails."""
    out = Path(path)
    kind = (fmt or out.suffix.lstrip(".")).lower()
    text = to_dot(graph, stats, legend=legend, expand_compounds=expand_compounds)
    if kind in ("gv", "dot"):
        with atomic_write(out) as f:
            f.write(text.encode("utf-8"))
        return out
    if kind not in FORMATS:
        raise GraphError(f"cannot draw {out}: unknown picture format {kind!r}; use a file name "
                         "ending in .svg, .png or .pdf")
    data = render_bytes(text, kind)
    with atomic_write(out) as f:
        f.write(data)
    return out


def render_bytes(text: str, fmt: str = "svg") -> bytes:
    """Run Graphviz ``dot -T<fmt>`` on DOT text."""
    exe = shutil.which("dot")
    if exe is None:
        raise GraphError("drawing needs Graphviz's `dot` program, which is not on the PATH "
                         "(install graphviz, e.g. apt-get install graphviz)")
    try:
        proc = subprocess.run([exe, f"-T{fmt}"], input=text.encode("utf-8", errors="replace"),
                              capture_output=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise GraphError(f"graphviz dot failed: {err}") from None
    if proc.returncode != 0 or not proc.stdout:
        msg = proc.stderr.decode(errors="replace").strip().splitlines()
        raise GraphError(f"graphviz dot could not draw the graph: "
                         f"{msg[0] if msg else f'exit status {proc.returncode}'}")
    return proc.stdout


#: Graphs with more blocks than this get no picture in Jupyter (``Graph._repr_svg_``).
PICTURE_MAX_BLOCKS = 500


def to_svg(graph: Graph, stats: Any = None) -> str | None:
    """The picture as SVG text (nodes ``id="n-<id>"``, edges ``id="e-<k>"``), or None when
    Graphviz is missing or fails, or the graph has over :data:`PICTURE_MAX_BLOCKS` blocks."""
    if len(graph.blocks) > PICTURE_MAX_BLOCKS or shutil.which("dot") is None:
        return None
    try:
        data = render_bytes(to_dot(graph, stats), "svg")
    except GraphError:
        return None
    return data.decode("utf-8", errors="replace")


Graph.picture = to_svg

__all__ = ["FAMILY_COLORS", "KIND_STYLES", "edge_tokens", "render", "render_bytes", "to_dot",
           "to_svg"]
