"""Shared raggedness at bind time (CoRa's dimension graph on SAM).

A graph compiled with ``shared`` groups (graph attribute ``shared="A,B;C,D"``,
:mod:`custard.ragged`) reads the tensors of a group through one scanner: the references one of
them produces index the others' values. That is right only when the bound tensors have the
same shape, format and levels (ragged levels with equal lengths and padding), which
:func:`check_shared` demands before anything runs.
"""

from __future__ import annotations

from collections.abc import Mapping

from formats.tensor import Tensor
from sam.errors import GraphError
from sam.graph.contract import SHARED
from sam.graph.model import Graph

#: Graph attribute naming the groups of tensors that share raggedness (typed in the graph's
#: contract: ``graph.contract.shared``).
SHARED_ATTR = SHARED


def check_shared(graph: Graph, tensors: Mapping[str, Tensor]) -> None:
    """``GraphError`` unless the bound tensors of every shared group have one structure."""
    for group in graph.contract.shared:
        present = [n for n in group if n in tensors]
        if len(present) < 2:
            continue
        first = tensors[present[0]]
        for name in present[1:]:
            t = tensors[name]
            same = (t.shape == first.shape and t.format == first.format
                    and all(a == b for a, b in zip(t.levels, first.levels, strict=True)))
            if not same:
                raise GraphError(
                    f"the graph reads {present[0]} and {name} with one scanner (shared "
                    f"raggedness) but the bound tensors differ in shape, format or lengths; bind "
                    f"tensors built with Tensor.from_ragged(..., like={present[0]}) or compile "
                    "without shared")
