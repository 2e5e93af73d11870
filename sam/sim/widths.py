"""Wide streams (SAM paper Sec. 4.4, vectorization): n tokens per cycle on one stream.

"Conceptually the simplest extension is to vectorize streams as wire buses and to update the
blocks to handle the increased data rates" (Sec. 4.4); Sec. 6.5 maps Capstan's vectorized loop
bodies to "n-lane stream buses (bundles), SAM arrays to get the data, a single SAM ALU, and level
writers". A block of stream width n fires up to n times per cycle (:func:`sam.runtime.kernel.fire`),
so it moves up to n tokens per cycle on each of its streams; a firing that takes or emits a stop
token ends its cycle (:func:`sam.runtime.kernel.end_cycle`: a bus cycle carries one fiber's tokens).
Timing rule 13 in docs/timing-model.md.

Where widths come from: the graph attribute ``width="n"`` widens every block that can be widened
(:attr:`Block.widenable`: level scanners, arrays, ALUs, repeaters and repeat-signal generators,
level writers, bitvector merges); a node attribute ``stream_width="n"`` sets one block's width
(any other block refuses it). Graphviz reserves a node's ``width`` for its drawing, hence the
longer node name.
"""

from __future__ import annotations

from collections.abc import Iterable

from sam.errors import GraphError
from sam.graph.contract import MAX_WIDTH, parse_width
from sam.graph.contract import WIDTH as GRAPH_ATTR
from sam.graph.model import Graph

#: Node attribute: one block's stream width (overrides the graph's).
NODE_ATTR = "stream_width"

__all__ = ["GRAPH_ATTR", "MAX_WIDTH", "NODE_ATTR", "block_widths", "parse_width", "set_width",
           "widenable_names"]


def block_widths(source: Graph, graph: Graph) -> dict[str, int]:
    """Stream width of each block of ``graph`` (the expanded form of ``source``) wider than 1.

    Raises :class:`GraphError` for a bad width or a ``stream_width`` on a block that cannot be
    widened (a merge, reducer, dropper, compound block, ...)."""
    default = graph.contract.width or 1  # parsed when the graph was read
    for g in (source, graph):
        for bid, block in g.blocks.items():
            if NODE_ATTR in block.attrs and not block.widenable:
                raise GraphError(
                    f"node {bid} ({block.dot_type}) has {NODE_ATTR}={block.attrs[NODE_ATTR]!r}, "
                    f"but only {widenable_names()} take wide streams (SAM Sec. 4.4); remove it")
    out: dict[str, int] = {}
    for bid, block in graph.blocks.items():
        if not block.widenable:
            continue
        n = default
        if NODE_ATTR in block.attrs:
            n = parse_width(block.attrs[NODE_ATTR], f"node {bid} ({block.dot_type})")
        if n > 1:
            out[bid] = n
    return out


def widenable_names() -> str:
    """The DOT types of the blocks that take wide streams, for messages and docs."""
    from sam.blocks.base import BLOCK_TYPES

    return ", ".join(sorted(t for t, cls in BLOCK_TYPES.items() if cls.widenable))


def set_width(graphs: Iterable[Graph], width: int | None) -> None:
    """Give every graph the graph attribute ``width`` (``sam-sim run --width N``); None: keep."""
    if width is None:
        return
    n = parse_width(str(width), "--width")
    for g in graphs:
        g.contract.width = n
