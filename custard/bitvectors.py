"""The bitvector path (SAM paper Sec. 4.3): levels stored as bitvectors are read through
bitvector blocks.

:func:`lower.lower` scans every level with a ``fiberlookup``; for a level whose format emits
``bv`` streams (``Level.stream == "bv"``, the bitvector level ``b``) this pass rewrites the graph:

* an intersection or union whose operands are all bitvector levels of one word width, each
  scanner feeding only the merge, becomes ``bvlookup`` scanners feeding a ``bvintersect`` /
  ``bvunion`` (Capstan's AND / OR: one word per cycle, then one coordinate and reference pair
  per set bit), whose coordinate and reference outputs replace the merge's;
* any other scan of a bitvector level becomes a ``bvlookup`` followed by a ``bvtocrd``
  converter (one coordinate and reference per set bit), so every block downstream sees the
  coordinate and reference streams it expects.

Node ids are kept (the scanner and merge keep theirs; a converter takes a fresh id), so a graph
without bitvector levels is returned unchanged. Output levels stored as bitvectors are written by
the coordinate writers and converted when the output is assembled.
"""

from __future__ import annotations

from formats.errors import FormatError
from formats.levels import level_named
from sam.blocks.base import Block, make_block
from sam.graph.model import Edge, Graph, port_by_name

#: DOT type of the bitvector merge that replaces each coordinate merge.
MERGES = {"intersect": "bvintersect", "union": "bvunion"}


def _bv_width(graph: Graph, block: Block) -> int | None:
    """The word width of the bitvector level ``block`` scans (None: not a bitvector scan)."""
    if block.dot_type != "fiberlookup":
        return None
    try:
        cls = level_named(block.attrs.get("format", ""))
    except FormatError:
        return None
    if getattr(cls, "stream", "crd") != "bv":
        return None
    fmt = graph.formats.get(block.tensor or "")
    mode = block.attrs.get("mode", "")
    if fmt is not None and mode.isdigit() and int(mode) < fmt.order:
        cls = fmt.level_type_of_mode(int(mode))
    return int(cls.width)


def _fresh_id(graph: Graph) -> str:
    numbers = [int(b) for b in graph.blocks if b.isdigit()]
    return str(max(numbers, default=-1) + 1)


def repoint(edge: Edge, graph: Graph, *, src: str | None = None, src_port: str | None = None,
             dst: str | None = None, dst_port: str | None = None) -> None:
    """Move one end (or both) of ``edge`` to another block's port."""
    if src is not None:
        edge.src = src
        edge.src_port = port_by_name(graph.blocks[src], "out", src_port or edge.src_port.name)
    if dst is not None:
        edge.dst = dst
        edge.dst_port = port_by_name(graph.blocks[dst], "in", dst_port or edge.dst_port.name)


def _scanner(block: Block) -> Block:
    attrs = {k: v for k, v in block.attrs.items() if k != "format"}
    attrs["format"] = "bitvector"
    return make_block(block.id, "bvlookup", attrs)


def _fuse_merge(graph: Graph, merge: Block) -> bool:
    """Replace ``merge`` and its operands' scanners by bitvector blocks, when all operands are
    bitvector scans of one width that feed only this merge."""
    ins = list(graph.inputs_of(merge.id))
    sources = {e.src for e in ins if e.dst_port.kind == "crd"}
    widths = {_bv_width(graph, graph.blocks[s]) for s in sources}
    if not sources or None in widths or len(widths) != 1:
        return False
    for s in sources:
        if any(e.dst != merge.id for e in graph.outputs_of(s)):
            return False
    width = widths.pop()
    operands = list(merge.operands)  # type: ignore[attr-defined]
    attrs = {**merge.attrs, "width": str(width)}
    new = make_block(merge.id, MERGES[merge.dot_type], attrs)
    new.operands = operands  # type: ignore[attr-defined]
    graph.blocks[merge.id] = new
    for s in sources:
        graph.blocks[s] = _scanner(graph.blocks[s])
    for e in ins:
        if e.dst_port.kind == "crd":
            repoint(e, graph, src=e.src, src_port="bv", dst=merge.id,
                     dst_port=f"bv:{e.dst_port.comment}")
        else:
            repoint(e, graph, src=e.src, dst=merge.id)
    for e in graph.outputs_of(merge.id):
        repoint(e, graph, src=merge.id)
    return True


def _convert_scan(graph: Graph, block: Block, width: int) -> None:
    """``bvlookup`` + ``bvtocrd`` in place of a bitvector scan with a coordinate output."""
    outs = list(graph.outputs_of(block.id))
    graph.blocks[block.id] = _scanner(block)
    conv = graph.add(make_block(_fresh_id(graph), "bvtocrd",
                                {"width": str(width), "index": block.attrs.get("index", "")}))
    for e in outs:
        repoint(e, graph, src=conv.id)
    graph.connect(block.id, "bv", conv.id, "bv")
    graph.connect(block.id, "ref", conv.id, "ref")


def use_bitvector_blocks(graph: Graph) -> Graph:
    """Rewrite ``graph``'s scans of bitvector levels (module docstring); returns ``graph``."""
    for block in list(graph.blocks.values()):
        if block.dot_type in MERGES and graph.blocks.get(block.id) is block:
            _fuse_merge(graph, block)
    for block in list(graph.blocks.values()):
        width = _bv_width(graph, block)
        if width is not None and graph.blocks.get(block.id) is block:
            _convert_scan(graph, block, width)
    return graph
