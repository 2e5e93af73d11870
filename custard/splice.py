"""Unary post-ops spliced into a compiled graph: Custard's index notation has no element-wise
functions, so ``exp`` (softmax), ``relu`` and the others of :data:`sam.blocks.alus.UNARY_OPS`
are SAM unary ALUs put between a graph's result values and its value writer.

The function applies to the values the graph computes - for a sparse result, its stored
entries; an absent entry stays absent (:func:`apply_unary` is the numpy reference).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sam.blocks.alus import UNARY_OPS
from sam.blocks.base import make_block
from sam.errors import CompileError
from sam.graph.model import Graph

#: Graph attribute listing the post-ops spliced before the value writer, ``,``-separated.
UNARY_ATTR = "unary"
#: numpy functions of the unary ops (for reference results).
UNARY_NUMPY = {"neg": np.negative, "abs": np.abs, "exp": np.exp,
               "relu": lambda x: np.maximum(x, 0.0)}


def check_unary(op: str) -> str:
    """``op`` if it names a unary ALU, else a one-line :class:`~sam.errors.CompileError`."""
    if op not in UNARY_OPS:
        raise CompileError(f"unknown unary op {op!r}; use one of {', '.join(UNARY_OPS)}")
    return op


def splice_unary(graph: Graph, op: str, tensor: str | None = None) -> Graph:
    """``graph`` (changed in place) with a unary ALU ``op`` between the values and the value
    writer of ``tensor`` (default: the graph's one value writer)."""
    check_unary(op)
    writers = [b for b in graph.blocks.values()
               if b.dot_type == "fiberwrite" and b.attrs.get("mode") == "vals"
               and (tensor is None or b.tensor == tensor)]
    if len(writers) != 1:
        raise CompileError(f"cannot apply {op}: the graph has {len(writers)} value writer(s) "
                           f"{'of ' + tensor if tensor else ''}".rstrip())
    writer = writers[0]
    edge = next(e for e in graph.edges if e.dst == writer.id)
    ids = [int(k) for k in graph.blocks if k.isdigit()]
    alu = graph.add(make_block(str(max(ids, default=0) + 1), op, {}))
    graph.edges.remove(edge)
    graph.connect(edge.src, edge.src_port.name, alu, "val")
    graph.connect(alu, "val", writer, "val")
    return graph


def splice_unaries(graph: Graph, ops: Sequence[str], tensor: str | None = None) -> Graph:
    """``graph`` with the unary ALUs ``ops`` spliced in order (the first applied first), recorded
    in its :data:`UNARY_ATTR` attribute (its ``expression``, index notation, cannot say them)."""
    for op in ops:
        splice_unary(graph, op, tensor)
    if ops:
        done = graph.attrs.get(UNARY_ATTR)
        graph.attrs[UNARY_ATTR] = ",".join([done, *ops] if done else ops)
    return graph


def apply_unary(values: np.ndarray, ops: Sequence[str], stored: np.ndarray | None = None
                ) -> np.ndarray:
    """numpy reference: ``ops`` applied in order to ``values`` where ``stored`` (a boolean
    mask of the stored entries; default every entry), zero elsewhere."""
    out = np.asarray(values, dtype=float)
    for op in ops:
        out = UNARY_NUMPY[check_unary(op)](out)
    return out if stored is None else np.where(stored, out, 0.0)
