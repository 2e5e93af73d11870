"""Per-edge FIFO depths Custard writes into its graphs (DOT ``mindepth``/``maxdepth``).

* ``mindepth``: every stream into an input a block declares needing more than one slot
  (:meth:`sam.blocks.base.Block.min_input_depths`: a repeater's reference input, a value
  dropper's coordinate input) gets that minimum, so that the graph cannot deadlock with FIFOs of
  depth 1 where deeper ones run (docs/locate.md, "Bounded FIFOs"). Unbounded runs are unchanged.
* ``maxdepth``: ``--skip`` bounds a skipping scanner's output streams
  (:func:`bound_skipped_scanner`), so that it runs at most that many tokens ahead of its
  consumers and the skips it is sent still find coordinates to jump over (docs/timing-model.md,
  "Per-edge FIFO depths").

The attributes' meaning is in :mod:`sam.graph.fifos`.
"""

from __future__ import annotations

from sam.graph.fifos import MAX_DEPTH, MIN_DEPTH
from sam.graph.model import Graph

#: the FIFO depth ``--skip`` gives a skipping scanner's output streams
SKIP_SCANNER_DEPTH = 2


def set_min_depths(graph: Graph) -> int:
    """Write ``mindepth`` on every edge into an input whose block needs more than one slot;
    returns how many edges got one."""
    marked = 0
    for e in graph.edges:
        need = graph.blocks[e.dst].min_input_depths().get(e.dst_port.name, 0)
        if need > 1 and int(e.attrs.get(MIN_DEPTH, 0)) < need:
            e.attrs[MIN_DEPTH] = str(need)
            marked += 1
    return marked


def bound_skipped_scanner(graph: Graph, scanner: str, depth: int = SKIP_SCANNER_DEPTH) -> None:
    """Give every output stream of ``scanner`` (a skipping level scanner) ``maxdepth=depth``;
    an edge into a ``broadcast`` node bounds every stream copied from it."""
    for e in graph.outputs_of(scanner):
        e.attrs[MAX_DEPTH] = str(depth)
