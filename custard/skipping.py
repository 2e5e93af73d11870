"""Coordinate skipping (SAM paper Sec. 4.2): the back edges Custard adds to a lowered graph.

For ``--skip`` (every intersecter) or ``-s=skip(B,c)`` (the intersecters that merge B and c),
each chosen intersecter gets a skip stream to the level scanner of each of its operands whose
coordinates it takes straight from that scanner over a compressed level (or the operands named):
a ``crd`` edge from the intersecter back to the scanner, commented ``skip-<operand>`` (the DOT
attribute that marks it, docs/custard-dot.md). The scanner then jumps over coordinates that the
intersection cannot keep; results never change, only cycles.
"""

from __future__ import annotations

from collections.abc import Collection

from custard.depths import SKIP_SCANNER_DEPTH, bound_skipped_scanner
from formats.levels import level_named
from sam.blocks.merges import SKIP_PREFIX, Intersecter
from sam.blocks.scanners import DEFAULT_FORMAT, LevelScanner
from sam.errors import CompileError
from sam.graph.model import Graph


def _skippable(scanner: LevelScanner) -> bool:
    """A scanner that can jump: it walks a level's stored coordinates (a compressed level),
    not a counter over a dense one (whose positions follow from the coordinate anyway)."""
    level = level_named(scanner.attrs.get("format", DEFAULT_FORMAT))
    return not level.full


def add_skip_edges(graph: Graph, tensors: Collection[str] | None = None,
                   depth: int | None = SKIP_SCANNER_DEPTH) -> int:
    """Add skip edges to ``graph`` (see module docstring); ``tensors=None`` means every operand
    of every intersecter, else only intersecters merging all the named tensors (at least two),
    and only to those tensors' scanners. A skipping scanner's output streams get
    ``maxdepth=depth`` (None: left unbounded; :mod:`custard.depths`). Returns the number of
    edges added; names that no intersecter merges are a :class:`CompileError`."""
    wanted = None if tensors is None else set(tensors)
    added = 0
    matched = False
    for bid, block in list(graph.blocks.items()):
        if not isinstance(block, Intersecter):
            continue
        feeds: dict[str, LevelScanner] = {}
        for e in graph.inputs_of(bid):
            src = graph.blocks[e.src]
            if e.kind == "crd" and isinstance(src, LevelScanner):
                operand = e.dst_port.comment.removeprefix("in-")
                feeds[operand] = src
        names = {op.split("#")[0]: op for op in block.operands}
        if wanted is not None:
            if not wanted <= set(names):
                continue
            targets = [names[t] for t in sorted(wanted)]
        else:
            targets = list(block.operands)
        matched = True
        for operand in targets:
            scanner = feeds.get(operand)
            if scanner is None or scanner.skipping or not _skippable(scanner):
                continue
            comment = f"{SKIP_PREFIX}-{operand}"
            block.declare_port("out", "crd", comment)
            scanner.declare_port("in", "crd", comment)
            graph.connect(block, f"crd:{comment}", scanner, f"crd:{LevelScanner.SKIP_PREFIX}")
            if depth is not None:
                bound_skipped_scanner(graph, scanner.id, depth)
            added += 1
    if wanted is not None and not matched:
        raise CompileError(f"skip({','.join(sorted(wanted))}): no intersecter merges all of "
                           f"{', '.join(sorted(wanted))}; name tensors multiplied together "
                           "(e.g. skip(B,c) for X(i,j)=B(i,j)*c(j))")
    return added
