"""Read and write SAM graphs in the Custard DOT schema (``docs/custard-dot.md``).

Reading accepts what the original Custard writes: the graph ``comment`` lists tensor formats
(``X=ss01,B=ss01,c=none``), each node carries its attributes both packed in ``comment`` and as
separate attributes, and each edge has a ``type`` (stream kind) and a ``comment`` naming the port
on whichever end has several ports of that kind. Writing produces the same layout, so the
original tools can read our graphs; what we add (the expression, the loop order, non-default
block options) are extra attributes.

Every problem, from unparsable text to an edge into a missing port, is one :class:`GraphError`
naming the node or edge.
"""

from __future__ import annotations

import re
from pathlib import Path

from formats.errors import FormatError
from formats.format import Format
from sam.blocks.base import Block, GraphError, Port
from sam.blocks.registry import make_block
from sam.graph.model import Edge, Graph

_COSMETIC = {"label", "color", "shape", "style", "comment", "fillcolor", "fontcolor", "penwidth"}

#: Colours of the original Custard output, by DOT node type.
NODE_COLORS = {
    "fiberlookup": "green4", "fiberwrite": "green3", "repsiggen": "cyan3", "repeat": "cyan2",
    "intersect": "purple", "union": "purple", "locate": "purple", "arrayvals": "green2",
    "arraystore": "green2", "reduce": "brown", "spaccumulator": "brown", "crddrop": "orange",
}
EDGE_STYLES = {"crd": "dashed", "ref": "bold", "repsig": "dotted", "bv": "dashed"}


def _unquote(value: object) -> str:
    text = str(value)
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1].replace('\\"', '"')
    return text


def _unpack(comment: str) -> dict[str, str]:
    """``type=fiberlookup,index=i`` -> dict (the packed node comment)."""
    out: dict[str, str] = {}
    for part in comment.split(","):
        if "=" in part:
            key, _, value = part.partition("=")
            out[key.strip()] = value.strip()
    return out


def parse_formats(comment: str) -> dict[str, Format]:
    """The graph comment ``X=ss01,B=ss10,c=none`` -> tensor formats."""
    formats: dict[str, Format] = {}
    for part in comment.split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, spec = part.partition("=")
        if not sep or not name.strip():
            raise GraphError(
                f"graph comment {comment!r}: {part!r} is not NAME=FORMAT (e.g. B=ss01)"
            )
        try:
            formats[name.strip()] = Format.parse(spec)
        except FormatError as err:
            raise GraphError(f"graph comment: tensor {name.strip()}: {err}") from None
    return formats


def loads(text: str, source: str = "<string>") -> Graph:
    """Parse DOT text into a :class:`Graph`."""
    import pydot

    try:
        parsed = pydot.graph_from_dot_data(text)
    except Exception as err:  # pydot/pyparsing raise many types; report them all as ours
        detail = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise GraphError(f"{source}: not valid DOT ({detail})") from None
    if not parsed:
        raise GraphError(f"{source}: not valid DOT (no graph found)")
    try:
        return _from_pydot(parsed[0], source)
    except GraphError as err:
        raise GraphError(f"{source}: {err}") from None
    except (RecursionError, TypeError, ValueError, AttributeError, KeyError, IndexError) as err:
        raise GraphError(f"{source}: malformed SAM graph ({type(err).__name__}: {err})") from None


def load(path: str | Path) -> Graph:
    """Read a DOT file."""
    p = Path(path)
    try:
        text = p.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise GraphError(f"{path}: cannot read graph file ({err.__class__.__name__}: "
                         f"{getattr(err, 'strerror', None) or err})") from None
    graph = loads(text, str(path))
    graph.name = p.stem
    return graph


def _from_pydot(dot, source: str) -> Graph:
    graph = Graph()
    gattrs = {k: _unquote(v) for k, v in dot.get_attributes().items()}
    graph.formats = parse_formats(gattrs.pop("comment", ""))
    graph.attrs = gattrs
    for node in dot.get_nodes():
        nid = _unquote(node.get_name())
        if nid in ("node", "edge", "graph"):
            continue
        raw = {k: _unquote(v) for k, v in node.get_attributes().items()}
        attrs = _unpack(raw.get("comment", ""))
        attrs.update({k: v for k, v in raw.items() if k not in _COSMETIC})
        if "type" not in attrs:
            raise GraphError(f"node {nid} has no type attribute; add type=\"fiberlookup\" etc.")
        graph.add(make_block(nid, attrs.pop("type"), attrs))

    edges = []
    for edge in dot.get_edges():
        src, dst = _unquote(edge.get_source()), _unquote(edge.get_destination())
        for end in (src, dst):
            if end not in graph.blocks:
                raise GraphError(f"edge {src} -> {dst} names node {end}, which is not declared")
        attrs = {k: _unquote(v) for k, v in edge.get_attributes().items()}
        kind = attrs.get("type") or _unquote(attrs.get("label", "")).split("_")[0]
        if kind not in ("crd", "ref", "val", "repsig", "bv"):
            raise GraphError(
                f"edge {src} -> {dst} has stream type {kind!r}; use crd, ref, val, repsig or bv"
            )
        comment = attrs.get("comment", "")
        graph.blocks[src].declare_port("out", kind, comment)
        graph.blocks[dst].declare_port("in", kind, comment)
        edges.append((src, dst, kind, comment, attrs))

    taken: set[tuple[str, str]] = set()
    for src, dst, kind, comment, attrs in edges:
        sblock, dblock = graph.blocks[src], graph.blocks[dst]
        sport = sblock.find_port("out", kind, comment)
        dport = dblock.find_port("in", kind, comment)
        if dport is None and _is_default(comment, sblock, kind):
            dport = next((p for p in dblock.inputs()
                          if p.kind == kind and (dst, p.name) not in taken), None)
        for end, block, port, way in ((src, sblock, sport, "output"), (dst, dblock, dport,
                                                                         "input")):
            if port is None:
                names = [p.name for p in (block.outputs() if way == "output" else
                                          block.inputs())]
                raise GraphError(
                    f"edge {src} -> {dst} (type {kind}, comment {comment!r}) does not match any "
                    f"{way} of node {end} ({block.dot_type}); its {way}s are: "
                    f"{', '.join(names) or 'none'}"
                )
        taken.add((dst, dport.name))
        extra = {k: v for k, v in attrs.items() if k not in _COSMETIC and k != "type"}
        graph.edges.append(Edge(src, sport, dst, dport, extra))
    return graph


def _is_default(comment: str, src: Block, kind: str) -> bool:
    """An edge comment that names the source port (or nothing) leaves the target port open."""
    return comment == "" or sum(p.kind == kind for p in src.outputs()) > 1


# --------------------------------------------------------------------------- writing
def _quote(value: object) -> str:
    return '"' + str(value).replace('"', '\\"') + '"'


def _label(block: Block) -> str:
    """The display label the original Custard gives a node (``\\n`` is DOT's line break)."""
    a = block.attrs
    t = block.dot_type
    if t in ("fiberlookup", "fiberwrite") and a.get("mode") != "vals":
        name = "FiberLookup" if t == "fiberlookup" else "FiberWrite"
        return (f"{name} {a.get('index', '')}: {a.get('tensor')}{a.get('mode')}\\n"
                f"{a.get('format', 'compressed')}")
    fixed = {
        "fiberwrite": f"FiberWrite Vals: {a.get('tensor')}",
        "repsiggen": f"RepeatSignalGenerator {a.get('index', '')}",
        "repeat": f"Repeat {a.get('index', '')}: {a.get('tensor', '')}",
        "intersect": f"intersect {a.get('index', '')}",
        "union": f"union {a.get('index', '')}",
        "arrayvals": f"Array Vals: {a.get('tensor')}",
        "crddrop": f"CrdDrop {a.get('outer')},{a.get('inner')}",
        "reduce": "Reduce",
        "mul": "Mul",
        "add": "Add",
    }
    if t == "spaccumulator":
        ins = " ".join(f"{k[2:]}={v}" for k, v in a.items() if re.fullmatch(r"in\d", k))
        return f"SparseAccumulator {a.get('order')} \\n{ins} "
    return fixed.get(t, block.label())


def _edge_comment(graph: Graph, edge: Edge) -> str:
    """The port the edge comment names: the source's if it has several of the kind, else the
    target's (the Custard convention); ALU value inputs go by edge order instead."""
    src, dst = graph.blocks[edge.src], graph.blocks[edge.dst]
    if sum(p.kind == edge.kind for p in src.outputs()) > 1:
        return edge.src_port.comment
    if edge.kind == "val" and dst.family == "compute":
        return ""
    if sum(p.kind == edge.kind for p in dst.inputs()) > 1:
        return edge.dst_port.comment
    return ""


def _ordered_edges(graph: Graph) -> list[Edge]:
    """Edges in graph order, except that each ALU's value inputs are written in port order
    (the Custard schema tells an ALU's inputs apart by edge order only)."""
    def rank(item: tuple[int, Edge]) -> tuple[int, int]:
        i, e = item
        dst = graph.blocks[e.dst]
        if e.kind == "val" and dst.family == "compute":
            return (i, [p.name for p in dst.inputs()].index(e.dst_port.name))
        return (i, 0)

    out = sorted(enumerate(graph.edges), key=rank)
    alu_inputs: dict[str, list[Edge]] = {}
    for _, e in out:
        if e.kind == "val" and graph.blocks[e.dst].family == "compute":
            alu_inputs.setdefault(e.dst, []).append(e)
    for edges in alu_inputs.values():
        edges.sort(key=lambda e: [p.name for p in graph.blocks[e.dst].inputs()].index(
            e.dst_port.name))
    result, emitted = [], set()
    for _, e in out:
        if e.kind == "val" and graph.blocks[e.dst].family == "compute":
            if e.dst not in emitted:
                result += alu_inputs[e.dst]
                emitted.add(e.dst)
        else:
            result.append(e)
    return result


def dumps(graph: Graph) -> str:
    """The graph as DOT text in the Custard schema."""
    lines = ["digraph SAM {"]
    comment = ",".join(f"{t}={fmt}" for t, fmt in graph.formats.items())
    lines.append(f"    comment={_quote(comment)}")
    for key, value in graph.attrs.items():
        lines.append(f"    {key}={_quote(value)}")
    for bid, block in graph.blocks.items():
        pairs = [("type", block.dot_type), *block.attrs.items()]
        packed = ",".join(f"{k}={v}" for k, v in pairs)
        if block.dot_type == "broadcast":
            cosmetic = "shape=point style=invis"
        else:
            color = NODE_COLORS.get(block.dot_type, "brown")
            cosmetic = f"label={_quote(_label(block))} color={color} shape=box style=filled"
        sep = " ".join(f"{k}={_quote(v)}" for k, v in pairs)
        lines.append(f"    {bid} [comment={_quote(packed)} {cosmetic} {sep}]")
    for edge in _ordered_edges(graph):
        comment = _edge_comment(graph, edge)
        parts = [f"label={_quote(edge.kind + (f'_{comment}' if comment else ''))}"]
        if edge.kind in EDGE_STYLES:
            parts.append(f"style={EDGE_STYLES[edge.kind]}")
        parts.append(f"type={_quote(edge.kind)}")
        parts += [f"{k}={_quote(v)}" for k, v in edge.attrs.items() if k != "comment"]
        parts.append(f"comment={_quote(comment)}")
        lines.append(f"    {edge.src} -> {edge.dst} [{' '.join(parts)}]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def dump(graph: Graph, path: str | Path) -> None:
    """Write the graph to a DOT file."""
    Path(path).write_text(dumps(graph))


__all__ = ["dump", "dumps", "load", "loads", "parse_formats", "Port"]
