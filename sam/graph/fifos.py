"""Per-edge FIFO depths: the DOT edge attributes ``mindepth`` and ``maxdepth``.

A SAM graph's FIFOs are unbounded unless the run sets a global depth (``--fifo-depth d``,
docs/timing-model.md rule 7). An edge may narrow that per stream:

* ``mindepth="n"``: this FIFO holds at least n tokens when FIFOs are bounded (the compiler puts
  it where a depth below n can deadlock a graph that runs with deeper FIFOs, docs/locate.md);
  with unbounded FIFOs it changes nothing.
* ``maxdepth="n"``: this FIFO holds at most n tokens, also when FIFOs are otherwise unbounded
  (``--skip`` bounds a skipping scanner's outputs so that it cannot run far ahead of the skips
  it is sent, docs/timing-model.md "Per-edge FIFO depths").

The depth of a stream is ``max(mindepth, min(maxdepth, d))``, with ``d`` the global depth
(unbounded when not given). An attribute on an edge into a ``broadcast`` node applies to every
stream copied from it. Feedback streams, root streams and streams a block discards stay
unbounded (rule 7, rule 10).
"""

from __future__ import annotations

from sam.errors import GraphError
from sam.graph.model import Edge, Graph

MIN_DEPTH = "mindepth"
MAX_DEPTH = "maxdepth"

#: (mindepth, maxdepth) of a stream; 0 = no bound of that side
Bounds = tuple[int, int]


def edge_bounds(edge: Edge) -> Bounds:
    """The (mindepth, maxdepth) an edge's attributes give; a bad value is a GraphError."""
    out = []
    for key in (MIN_DEPTH, MAX_DEPTH):
        text = edge.attrs.get(key)
        if text is None:
            out.append(0)
            continue
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1 or str(value) != text.strip():
            raise GraphError(
                f"edge {edge.src} -> {edge.dst} ({edge.kind} {edge.dst_port.name}): {key}="
                f"{text!r} is not a whole number of tokens >= 1; write e.g. {key}=\"2\""
            )
        out.append(value)
    return out[0], out[1]


def _combine(a: Bounds, b: Bounds) -> Bounds:
    lo = max(a[0], b[0])
    hi = min(x for x in (a[1], b[1]) if x) if (a[1] or b[1]) else 0
    return lo, hi


def input_bounds(graph: Graph) -> dict[tuple[str, str], Bounds]:
    """The bounds of each stream into a non-broadcast block's input ``(block, port name)``,
    combined along broadcast chains (only inputs with some bound are listed)."""
    into: dict[str, Edge] = {e.dst: e for e in graph.edges
                             if graph.blocks[e.dst].dot_type == "broadcast"}
    out: dict[tuple[str, str], Bounds] = {}
    for e in graph.edges:
        if graph.blocks[e.dst].dot_type == "broadcast":
            continue
        bounds = edge_bounds(e)
        src, seen = e.src, set()
        while src in into and src not in seen:
            seen.add(src)
            bounds = _combine(bounds, edge_bounds(into[src]))
            src = into[src].src
        if bounds != (0, 0):
            out[(e.dst, e.dst_port.name)] = bounds
    return out


def stream_depth(global_depth: int | None, bounds: Bounds) -> int:
    """The modeled depth of a stream (0 = unbounded) under a global depth and its bounds."""
    lo, hi = bounds
    d = global_depth or 0
    if hi and (d == 0 or d > hi):
        d = hi
    if d and lo and d < lo:
        d = lo
    return d


def check_depths(graph: Graph) -> None:
    """Every ``mindepth``/``maxdepth`` attribute is a whole number >= 1 (GraphError if not)."""
    for e in graph.edges:
        edge_bounds(e)
