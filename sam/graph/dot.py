"""Read and write SAM graphs in the Custard DOT schema (``docs/custard-dot.md``).

Reading accepts what the original Custard writes: the graph ``comment`` lists tensor formats
(``X=ss01,B=ss01,c=none``), each node carries its attributes both packed in ``comment`` and as
separate attributes, and each edge has a ``type`` (stream kind) and a ``comment`` naming the port
on whichever end has several ports of that kind. Writing produces the same layout, so the
original tools can read our graphs; what we add (the expression, the loop order, non-default
block options) are extra attributes.

Edge comments (the Custard convention, read off its output): an edge is commented with its
*source* port when that port has a name (``out-B`` of an intersecter, ``outer-i``/``inner-k`` of a
coordinate dropper, ``out-j`` of a sparse accumulator), else with its *target* port when the
target has several ports of the kind (``in-B`` of an intersecter, ``i``/``in-k`` of a dropper,
``j`` of an accumulator), else ``""``. The two value inputs of an ALU are told apart by edge order
only (first edge = first operand), so the writer emits them in operand order.

Where the comment alone would not bring an edge back to the same ports (it names one port per
edge, so e.g. an intersecter's ``out-B`` feeding another intersecter's ``in-C``), the writer adds
``src_port``/``dst_port`` edge attributes with the port names (``ref:in-C``); the reader honours
them. Custard's own graphs never need them, so its files are written unchanged.

The text is parsed by :mod:`sam.graph.dotparse` (all of DOT; subgraphs flattened, edges in file
order); writing needs nothing but string formatting, and the result reads back in pydot and
renders with Graphviz ``dot``.

Every problem, from unparsable text to an edge into a missing port, is one :class:`GraphError`
naming the node or edge.
"""

from __future__ import annotations

from pathlib import Path

from formats.atomic import atomic_write
from formats.errors import FormatError
from formats.format import Format
from formats.text import InputError, read_text
from sam.blocks.base import Block, Port
from sam.errors import GraphError
from sam.graph import dotparse
from sam.graph.contract import Contract
from sam.graph.dotparse import DotGraph, DotNode, parse, parse_all
from sam.graph.dottext import custard_label, dot_id, quote
from sam.graph.model import Edge, Graph
from sam.graph.registry import make_block
from sam.runtime.tokens import STREAM_KINDS

_COSMETIC = {"label", "color", "shape", "style", "comment", "fillcolor", "fontcolor", "penwidth",
             "fontname", "fontsize", "width", "height", "pos", "xlabel", "tooltip"}
#: Edge attributes that say which ports an edge joins (ours; written only when needed).
_STRUCTURAL = {"type", "src_port", "dst_port"}

#: Colours of the original Custard output, by DOT node type.
NODE_COLORS = {
    "fiberlookup": "green4", "fiberwrite": "green3", "repsiggen": "cyan3", "repeat": "cyan2",
    "intersect": "purple", "union": "purple", "locate": "purple", "arrayvals": "green2",
    "arraystore": "green2", "reduce": "brown", "spaccumulator": "brown", "crddrop": "orange",
}
EDGE_STYLES = {"crd": "dashed", "ref": "bold", "repsig": "dotted", "bv": "dashed"}


# --------------------------------------------------------------------------- reading
def _unpack(comment: str) -> dict[str, str]:
    """``type=fiberlookup,index=i`` -> dict (the packed node comment)."""
    out: dict[str, str] = {}
    for part in comment.split(","):
        if "=" in part:
            key, _, value = part.partition("=")
            if key.strip():
                out[key.strip()] = value.strip()
    return out


def _comment_parts(comment: str) -> list[str]:
    """``X=ss01,A=d...d:0,1,...,12,c=none`` -> one ``NAME=FORMAT`` part per tensor: a part that
    is only a number continues a TACO-spelled mode order (``:0,1,...``) begun before it."""
    parts: list[str] = []
    for part in comment.split(","):
        part = part.strip()
        if part.isdigit() and parts and ":" in parts[-1].partition("=")[2]:
            parts[-1] += "," + part
        elif part:
            parts.append(part)
    return parts


def parse_formats(comment: str) -> dict[str, Format]:
    """The graph comment ``X=ss01,B=ss10,c=none`` -> tensor formats (a format of more than ten
    levels is spelled ``d...d:0,1,...,12``, see :meth:`Format.__str__`). A tensor may be listed
    once per access with the same format: the original Custard writes ``X=ss01,B=ss01,B=ss01``
    for ``X(i,j)=B(i,k)*B(j,k)``."""
    formats: dict[str, Format] = {}
    for part in _comment_parts(comment):
        name, sep, spec = part.partition("=")
        name = name.strip()
        if not sep or not name:
            raise GraphError(
                f"graph comment {comment!r}: {part!r} is not NAME=FORMAT (e.g. B=ss01)"
            )
        try:
            fmt = Format.parse(spec)
        except FormatError as err:
            raise GraphError(f"graph comment {comment!r}: tensor {name}: {err}") from None
        if name in formats and formats[name] != fmt:
            raise GraphError(f"graph comment {comment!r} gives tensor {name} two formats "
                             f"({formats[name]}, {fmt})")
        formats[name] = fmt
    return formats


def loads(text: str, source: str = "<string>") -> Graph:
    """Parse DOT text into a :class:`Graph`."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise GraphError(f"{source}: not UTF-8 text ({err})") from None
    if not isinstance(text, str):
        raise GraphError(f"{source}: expected DOT text, got {type(text).__name__}")
    try:
        dot = parse(text)
        del text  # not needed while building (the caller may hold the only other reference)
        return _build(dot)
    except GraphError as err:
        raise GraphError(f"{source}: {_one_line(str(err))}") from None


def loads_all(text: str, source: str = "<string>") -> list[Graph]:
    """Parse DOT text holding one or more ``digraph`` s, in order (a program of graphs,
    :mod:`sam.program`). A graph takes its DOT name (``digraph T {``) unless that is ``SAM``
    or missing; then it is named ``source`` and, when there are several, its position
    (``prog.gv#2``)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise GraphError(f"{source}: not UTF-8 text ({err})") from None
    if not isinstance(text, str):
        raise GraphError(f"{source}: expected DOT text, got {type(text).__name__}")
    try:
        dots = parse_all(text)
    except GraphError as err:
        raise GraphError(f"{source}: {_one_line(str(err))}") from None
    graphs = []
    for k, dot in enumerate(dots):
        try:
            graph = _build(dot)
        except GraphError as err:
            where = f"graph {k + 1} of {len(dots)}: " if len(dots) > 1 else ""
            raise GraphError(f"{source}: {where}{_one_line(str(err))}") from None
        if dot.name and dot.name != "SAM":
            graph.name = dot.name
        else:
            graph.name = source if len(dots) == 1 else f"{source}#{k + 1}"
        graphs.append(graph)
    return graphs


def _one_line(message: str, head: int = 300, tail: int = 200) -> str:
    """Messages are one line: node ids and values from the file may hold line breaks (an HTML
    or quoted id) or be huge (then the middle of the message is cut)."""
    message = message.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\r")
    if len(message) <= head + tail:
        return message
    return message[:head] + " [...] " + message[-tail:]


def load(path: str | Path) -> Graph:
    """Read a DOT file (refused unread if larger than ``sam.graph.dotparse.MAX_TEXT`` bytes)."""
    p = Path(path)
    graph = loads(_read(path), str(path))
    graph.name = p.stem
    return graph


def _read(path: str | Path) -> str:
    try:
        return read_text(path, "graph file", max_bytes=dotparse.MAX_TEXT, allow_empty=True,
                         limit_note=" (sam.graph.dotparse.MAX_TEXT); SAM graphs of real kernels "
                         "are a few kilobytes")
    except InputError as err:
        raise GraphError(str(err)) from None


def load_all(path: str | Path) -> list[Graph]:
    """Read a DOT file holding one or more graphs (see :func:`loads_all`; graphs without a
    name of their own are named after the file's stem)."""
    p = Path(path)
    graphs = loads_all(_read(path), str(path))
    for k, graph in enumerate(graphs):
        if graph.name == str(path):
            graph.name = p.stem
        elif graph.name == f"{path}#{k + 1}":
            graph.name = f"{p.stem}#{k + 1}"
    return graphs


def _build(dot: DotGraph) -> Graph:
    if dot.kind != "digraph":
        raise GraphError(f"the file holds an undirected '{dot.kind}'; a SAM graph is a "
                         "digraph (digraph SAM { ... })")
    graph = Graph()
    gattrs = dict(dot.attrs)
    graph.formats = parse_formats(gattrs.pop("comment", ""))
    graph.contract = Contract.from_attrs(gattrs, graph.formats)  # parsed once, here
    for nid, node in dot.nodes.items():
        if not node.attrs:
            edge = next((e for e in dot.edges if nid in (e.src, e.dst)), None)
            if edge is not None and not node.statements:
                raise GraphError(f"edge {edge.src} -> {edge.dst} names node {nid}, which is not "
                                 "declared")
        _check_redeclared(node)
        attrs = _unpack(node.attrs.get("comment", ""))
        attrs.update({k: v for k, v in node.attrs.items() if k not in _COSMETIC})
        if "type" not in attrs:
            raise GraphError(f"node {nid} (line {node.line}) has no type attribute; add "
                             "type=\"fiberlookup\" etc.")
        graph.add(make_block(nid, attrs.pop("type"), attrs))
    by_original = _written_by_original(graph)
    if by_original:
        _original_reducers(graph)
        _original_scalar_roots(graph, dot)
        _original_nonunique_scans(graph)
    _held_inputs(graph, dot)

    edges = []
    for e in dot.edges:
        src, dst, attrs = e.src, e.dst, e.attrs
        kind = attrs.get("type") or attrs.get("label", "").split("_")[0]
        if kind not in STREAM_KINDS:
            raise GraphError(
                f"edge {src} -> {dst} (line {e.line}) has stream type {kind!r}; use crd, ref, "
                "val, repsig or bv"
            )
        comment = attrs.get("comment", "")
        # An explicit src_port/dst_port names the port on its end; the comment then speaks
        # only for the other end (it may name a port there that this end must not grow).
        for key, block, way in (("src_port", src, "out"), ("dst_port", dst, "in")):
            if key in attrs:
                graph.blocks[block].declare_port(way, kind, attrs[key].partition(":")[2])
            else:
                graph.blocks[block].declare_port(way, kind, comment)
        edges.append((src, dst, kind, comment, attrs))

    taken: set[tuple[str, str]] = set()
    for src, dst, kind, comment, attrs in edges:
        sblock, dblock = graph.blocks[src], graph.blocks[dst]
        where = f"edge {src} -> {dst} (type {kind}, comment {comment!r})"
        if "src_port" in attrs:
            sport = _named_port(sblock, "output", kind, attrs["src_port"], where)
        else:
            sport = _source_port(sblock, kind, comment, where)
        if "dst_port" in attrs:
            dport = _named_port(dblock, "input", kind, attrs["dst_port"], where)
        else:
            dport = _target_port(dblock, sblock, kind, comment, taken, where)
        taken.add((dst, dport.name))
        extra = {k: v for k, v in attrs.items() if k not in _COSMETIC and k not in _STRUCTURAL}
        graph.edges.append(Edge(src, sport, dst, dport, extra))
    if by_original:
        _original_dropper_inner_streams(graph)
    graph.dot_id = dot.name or "SAM"
    return graph


def _written_by_original(graph: Graph) -> bool:
    """A graph the original Custard wrote: no ``expression`` attribute (our compiler always
    writes one) and the tensor formats in the comment (the original always writes them). Only
    such graphs get the original's conventions (the ``_original_*`` passes below)."""
    return graph.contract.expression is None and bool(graph.formats)


def _original_dropper_inner_streams(graph: Graph) -> None:
    """The original's ``CrdDrop`` drops outer coordinates only: its inner output is its inner
    input unchanged, empty fibers included (its compressed writer skips them); ours removes the
    empty inner fibers too (Def. 3.9), which gives a writer the same level. An accumulator of a
    graph the original Custard wrote (no ``expression``, formats in the comment) pairs a kept
    coordinate stream with a value stream that keeps the empty fibers: where a dropper's inner
    output feeds it, it reads the dropper's inner input (through droppers in a row)."""
    feeds = {(e.dst, e.dst_port.name): e for e in graph.edges}
    for k, e in enumerate(graph.edges):
        dst = graph.blocks[e.dst]
        if dst.dot_type != "spaccumulator" or e.dst_port.name.partition(":")[2] not in dst.kept:
            continue
        src, port = e.src, e.src_port
        while graph.blocks[src].dot_type == "crddrop" and \
                port.comment == f"inner-{graph.blocks[src].attrs['inner']}":
            up = feeds.get((src, f"crd:in-{graph.blocks[src].attrs['inner']}"))
            if up is None:
                break
            src, port = up.src, up.src_port
        if src != e.src:
            graph.edges[k] = Edge(src, port, e.dst, e.dst_port, e.attrs)


def _held_inputs(graph: Graph, dot: DotGraph) -> None:
    """Tell each block which of its inputs the original's ``crdhold`` feeds, before ports are
    resolved (an accumulator then reads point streams and may grow an output,
    docs/fidelity.md). The hold's output comments are ``outer-i`` / ``inner-j``."""
    held: dict[str, set[str]] = {}
    for e in dot.edges:
        src = graph.blocks.get(e.src)
        if src is not None and src.dot_type == "crdhold" and e.dst in graph.blocks:
            var = e.attrs.get("comment", "").partition("-")[2]
            held.setdefault(e.dst, set()).add(f"crd:{var}")
    for bid, ports in held.items():
        hook = getattr(graph.blocks[bid], "held_inputs", None)
        if hook is not None:
            hook(ports)


def _original_scalar_roots(graph: Graph, dot: DotGraph) -> None:
    """The original Custard writes the ``arrayvals`` of a scalar operand (``y=A*z``, comment
    ``A=none``) with no reference input and no ``root`` attribute: in a graph it wrote (no
    ``expression``, formats in the comment) such a block reads the root reference, as ours
    writes it with ``root=true`` (docs/fidelity.md)."""
    fed = {e.dst for e in dot.edges if (e.attrs.get("type") or e.attrs.get("label", "")
                                        .split("_")[0]) == "ref"}
    for b in graph.blocks.values():
        fmt = graph.formats.get(b.attrs.get("tensor", ""))
        if b.dot_type == "arrayvals" and b.id not in fed and "root" not in b.attrs \
                and fmt is not None and fmt.order == 0:
            b.attrs["root"] = "true"


#: The original Custard names a scanned level's kind only: its scanner of a non-unique level.
_UNIQUE_SPELLING = {"compressed_nonunique": "compressed", "singleton_nonunique": "singleton"}


def _original_nonunique_scans(graph: Graph) -> None:
    """The original Custard writes ``format=compressed`` / ``singleton`` for the scanner of a
    non-unique level (``u`` / ``c`` of a COO format, ``B=uq01``): in a graph it wrote (no
    ``expression``, formats in the comment) such a scanner scans the level as stored, the
    comment saying it is non-unique (deduplicated, sam/blocks/scanners.py)."""
    for b in graph.blocks.values():
        fmt = graph.formats.get(b.attrs.get("tensor", ""))
        mode = b.attrs.get("mode", "")
        if b.dot_type != "fiberlookup" or fmt is None or not (mode.isascii() and mode.isdigit()
                                                              and len(mode) <= 4) \
                or int(mode) >= fmt.order:
            continue
        stored = fmt.level_type_of_mode(int(mode)).name
        if _UNIQUE_SPELLING.get(stored) == b.attrs.get("format"):
            b.attrs["format"] = stored


def _original_reducers(graph: Graph) -> None:
    """Compatibility with the original Custard's graphs (docs/fidelity.md): the original
    simulator's scalar reducer emits a sum, 0 for an empty fiber, at every stop token. A graph
    that our compiler did not write (no ``expression`` attribute) and whose comment lists the
    tensor formats (the original always writes them) relies on those zeros unless a coordinate
    dropper removes the coordinates of the reduced fibers (a ``crddrop`` whose inner variable
    the output does not hold: the original's newer graphs, which need empty fibers dropped).
    Otherwise its reducers without an ``empty`` attribute get ``empty=zero`` (written back
    explicitly). Its ``add``/``sub``/``mul`` ALUs get ``align=original`` (the original's
    adder and multiplier combine a value facing a stop token with 0). Graphs with an
    expression or no formats keep the defaults (:func:`_written_by_original`)."""
    blocks = graph.blocks.values()
    written = {b.attrs.get("index") for b in blocks if b.dot_type == "fiberwrite"}
    for b in blocks:
        if b.dot_type in ("add", "sub", "mul") and "align" not in b.attrs:
            b.attrs["align"] = "original"  # a value facing a stop meets 0 (sam/blocks/alus.py)
    if any(b.dot_type == "crddrop" and b.attrs.get("inner") not in written for b in blocks):
        return
    for b in blocks:
        if b.dot_type == "reduce" and "empty" not in b.attrs:
            b.attrs["empty"] = "zero"


def _named_port(block: Block, way: str, kind: str, name: str, where: str) -> Port:
    """The port an explicit ``src_port``/``dst_port`` edge attribute names (``crd:in-B``)."""
    ports = block.outputs() if way == "output" else block.inputs()
    port = next((p for p in ports if p.name == name), None)
    if port is None:
        raise GraphError(
            f"{where}: node {block.id} ({block.dot_type}) has no {way} {name!r}; its {way}s "
            f"are: {', '.join(p.name for p in ports) or 'none'}"
        )
    if port.kind != kind:
        raise _no_port(block, way, kind, where)
    return port


def _check_redeclared(node: DotNode) -> None:
    """Several statements may describe one node (DOT merges them), but not contradict."""
    seen: dict[str, str] = {}
    for stmt in node.statements:
        for key, value in stmt.items():
            if key in seen and seen[key] != value and key not in _COSMETIC - {"comment"}:
                raise GraphError(
                    f"node {node.id} is declared {len(node.statements)} times with different "
                    f"{key} ({seen[key]!r}, {value!r}); node ids must be unique"
                )
            seen[key] = value


_PREFIXES = ("in-", "out-", "outer-", "inner-")


def _var(comment: str) -> str:
    """The index variable (or tensor) a port comment names: ``inner-k`` -> ``k``."""
    for prefix in _PREFIXES:
        if comment.startswith(prefix):
            return comment[len(prefix):]
    return comment


def _by_var(ports: list[Port], comment: str) -> Port | None:
    if not comment:
        return None
    hits = [p for p in ports if p.comment and _var(p.comment) == _var(comment)]
    return hits[0] if len(hits) == 1 else None


def _no_port(block: Block, way: str, kind: str, where: str) -> GraphError:
    ports = block.outputs() if way == "output" else block.inputs()
    names = ", ".join(p.name for p in ports) or "none"
    if not any(p.kind == kind for p in ports):
        return GraphError(
            f"{where}: node {block.id} ({block.dot_type}) has no {kind} {way} (stream kind "
            f"mismatch); its {way}s are: {names}"
        )
    return GraphError(
        f"{where} does not match any {way} of node {block.id} ({block.dot_type}); its {way}s "
        f"are: {names}"
    )


def _source_port(block: Block, kind: str, comment: str, where: str) -> Port:
    port = block.find_port("out", kind, comment)
    if port is None:
        port = _by_var([p for p in block.outputs() if p.kind == kind], comment)
    if port is None:
        raise _no_port(block, "output", kind, where)
    return port


def _target_port(block: Block, src: Block, kind: str, comment: str,
                 taken: set[tuple[str, str]], where: str) -> Port:
    port = block.find_port("in", kind, comment)
    if port is not None:
        return port
    free = [p for p in block.inputs() if p.kind == kind and (block.id, p.name) not in taken]
    port = _by_var(free, comment)
    if port is None and _is_default(comment, src, kind):
        port = free[0] if free else None
    if port is None:
        same = [p.name for p in block.inputs() if p.kind == kind]
        if same and not free:
            raise GraphError(
                f"{where}: every {kind} input of node {block.id} ({block.dot_type}) is already "
                f"connected ({', '.join(same)}); an input takes exactly one stream"
            )
        raise _no_port(block, "input", kind, where)
    return port


def _is_default(comment: str, src: Block, kind: str) -> bool:
    """An edge comment that names the source port (or nothing) leaves the target port open."""
    return comment == "" or any(p.kind == kind and p.comment == comment for p in src.outputs()) \
        or sum(p.kind == kind for p in src.outputs()) > 1


# --------------------------------------------------------------------------- writing
def edge_comment(graph: Graph, edge: Edge) -> str:
    """The comment the Custard convention gives ``edge`` (see module docstring)."""
    dst = graph.blocks[edge.dst]
    if edge.src_port.comment:
        return edge.src_port.comment
    if edge.kind == "val" and dst.family == "compute":
        return ""
    if sum(p.kind == edge.kind for p in dst.inputs()) > 1:
        return edge.dst_port.comment
    return ""


def _port_rank(graph: Graph, e: Edge) -> int:
    names = [p.name for p in graph.blocks[e.dst].inputs()]
    return names.index(e.dst_port.name) if e.dst_port.name in names else len(names)


def _ordered_edges(graph: Graph) -> list[Edge]:
    """Edges in graph order, except that each ALU's value inputs are put in port order (within
    the places they hold), since the schema tells an ALU's inputs apart by edge order only."""
    slots: dict[str, list[int]] = {}
    for i, e in enumerate(graph.edges):
        if e.kind == "val" and graph.blocks[e.dst].family == "compute":
            slots.setdefault(e.dst, []).append(i)
    result = list(graph.edges)
    for places in slots.values():
        ordered = sorted((graph.edges[i] for i in places), key=lambda x: _port_rank(graph, x))
        for i, e in zip(places, ordered, strict=True):
            result[i] = e
    return result


def _explicit_ports(graph: Graph, edge: Edge, comment: str,
                    taken: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """``src_port``/``dst_port`` attributes for an edge whose comment alone would be read back
    as joining other ports (only unusual graphs: the Custard convention names one port per
    edge, and an input may be fed twice in a graph that is not valid yet)."""
    src, dst = graph.blocks[edge.src], graph.blocks[edge.dst]
    out = []
    try:
        sport = _source_port(src, edge.kind, comment, "")
    except GraphError:
        sport = None
    if sport != edge.src_port:
        out.append(("src_port", edge.src_port.name))
    try:
        dport = _target_port(dst, src, edge.kind, comment, taken, "")
    except GraphError:
        dport = None
    if dport != edge.dst_port:
        out.append(("dst_port", edge.dst_port.name))
    return out


def _packable(key: str, value: str) -> bool:
    """Whether ``key=value`` survives the packed comment's ``k=v,k=v`` syntax."""
    return not any(c in key + value for c in ",=") and key.strip() == key and \
        value.strip() == value and bool(key)


def dumps(graph: Graph) -> str:
    """The graph as DOT text in the Custard schema.

    The text is read back to check that every edge returns to its ports and every block to
    its ports; edges that would not, and the edges of blocks that would not, get explicit
    ``src_port``/``dst_port`` attributes (see module docstring)."""
    ordered = _ordered_edges(graph)
    forced: dict[int, set[str]] = {}
    while True:
        text = _write(graph, ordered, forced)
        misread = _misread(text, graph, ordered)
        grown = False
        for i, keys in misread.items():
            if not keys <= forced.get(i, set()):
                forced.setdefault(i, set()).update(keys)
                grown = True
        if not grown:
            return text


def _ports(block: Block) -> tuple[list[str], list[str]]:
    return [p.name for p in block.inputs()], [p.name for p in block.outputs()]


def _misread(text: str, graph: Graph, ordered: list[Edge]) -> dict[int, set[str]]:
    """Edges (by position) that ``loads`` would attach to other ports than ``ordered`` has,
    and the edges of every block that ``loads`` would give other ports than ``graph`` has (a
    port learnt from a comment that names the other end's port: nothing feeds it)."""
    try:
        again = _build(parse(text))
    except GraphError:
        return {}  # a graph the reader rejects anyway (e.g. a block lacks an attribute)
    if len(again.edges) != len(ordered):
        return {}
    out: dict[int, set[str]] = {}
    grown = {bid for bid, block in graph.blocks.items()
             if bid in again.blocks and _ports(again.blocks[bid]) != _ports(block)}
    for i, (mine, read) in enumerate(zip(ordered, again.edges, strict=True)):
        keys = set()
        if read.src_port.name != mine.src_port.name or mine.src in grown:
            keys.add("src_port")
        if read.dst_port.name != mine.dst_port.name or mine.dst in grown:
            keys.add("dst_port")
        if keys:
            out[i] = keys
    return out


def _write(graph: Graph, ordered: list[Edge], forced: dict[int, set[str]]) -> str:
    lines = [f"digraph {dot_id(graph.dot_id or 'SAM')} {{"]
    comment = ",".join(f"{t}={fmt}" for t, fmt in graph.formats.items())
    lines.append(f"    comment={quote(comment)}")
    for key, value in graph.contract.items():
        lines.append(f"    {dot_id(key)}={quote(value)}")
    for bid, block in graph.blocks.items():
        pairs = [("type", block.dot_type), *block.attrs.items()]
        packed = ",".join(f"{k}={v}" for k, v in pairs if _packable(k, v))
        if block.dot_type == "broadcast":
            cosmetic = "shape=point style=invis"
        else:
            color = NODE_COLORS.get(block.dot_type, "brown")
            cosmetic = f'label="{custard_label(block)}" color={color} shape=box style=filled'
        sep = " ".join(f"{dot_id(k)}={quote(v)}" for k, v in pairs)
        lines.append(f"    {dot_id(bid)} [comment={quote(packed)} {cosmetic} {sep}]")
    taken: set[tuple[str, str]] = set()
    for i, edge in enumerate(ordered):
        comment = edge_comment(graph, edge)
        parts = [f"label={quote(edge.kind + (f'_{comment}' if comment else ''))}"]
        if edge.kind in EDGE_STYLES:
            parts.append(f"style={EDGE_STYLES[edge.kind]}")
        parts.append(f"type={quote(edge.kind)}")
        parts += [f"{dot_id(k)}={quote(v)}" for k, v in edge.attrs.items()
                  if k not in ("comment", "label", "style") and k not in _STRUCTURAL]
        explicit = dict(_explicit_ports(graph, edge, comment, taken))
        for key in forced.get(i, ()):
            explicit[key] = edge.src_port.name if key == "src_port" else edge.dst_port.name
        parts += [f"{k}={quote(explicit[k])}" for k in ("src_port", "dst_port") if k in explicit]
        taken.add((edge.dst, edge.dst_port.name))
        parts.append(f"comment={quote(comment)}")
        lines.append(f"    {dot_id(edge.src)} -> {dot_id(edge.dst)} [{' '.join(parts)}]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def dumps_all(graphs: list[Graph]) -> str:
    """Several graphs as one DOT text, in order (a program of graphs, read back by
    :func:`loads_all`); each ``digraph`` is named after its graph (``digraph T {``)."""
    parts = []
    for graph in graphs:
        text = dumps(graph)
        head = text.index("{")
        parts.append(f"digraph {dot_id(graph.name or 'SAM')} " + text[head:])
    return "".join(parts)


def dump(graph: Graph, path: str | Path) -> None:
    """Write the graph to a DOT file (UTF-8)."""
    text = dumps(graph)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise GraphError(f"{path}: the graph holds text that UTF-8 cannot encode ({err.reason} "
                         f"at {text[max(0, err.start - 20):err.start]!r})") from None
    with atomic_write(path) as out:
        out.write(data)


def dump_all(graphs: list[Graph], path: str | Path) -> None:
    """Write several graphs to one DOT file (UTF-8; see :func:`dumps_all`)."""
    text = dumps_all(graphs)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise GraphError(f"{path}: a graph holds text that UTF-8 cannot encode ({err.reason} "
                         f"at {text[max(0, err.start - 20):err.start]!r})") from None
    with atomic_write(path) as out:
        out.write(data)


__all__ = ["dump", "dump_all", "dumps", "dumps_all", "edge_comment", "load", "load_all", "loads",
           "loads_all", "parse_formats", "Port"]
