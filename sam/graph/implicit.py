"""Implicit inputs: tensors a graph reads whose contents the graph itself records.

Two graph attributes (documented in ``docs/custard-dot.md``, "What we add") name them:

* ``constants="c0=2,c1=1.5e-3"``: scalar tensors with fixed values. Custard compiles a numeric
  constant of the expression (``A(i,j)=2*B(i,j)``) to a scalar input read by an array block, like
  any scalar operand (SAM paper Def. 3.5, Def. 3.6: the ALU then sees two value streams);
* ``ranges="dim_j=100"``: dense vectors of that length, scanned to iterate an index variable that
  no operand has (``A(i,j)=b(i)`` repeats ``b(i)`` along ``j``: a dense level scanner, Def. 3.1,
  over ``dim_j`` gives ``j``'s coordinates). Their values are never loaded.

The simulator makes these tensors itself (:func:`implicit_tensors`, used by
:func:`sam.graph.validate.bind`), so ``sam-sim run`` needs no ``-t`` for them and refuses one.

Two more record how the graph stores tensors the user binds (TACO transposes a tensor read or
written against its mode order; Custard gives the graph the concordant storage instead):

* ``copies="B_t=B"``: ``B_t`` is the tensor bound to ``B``, stored in ``B_t``'s format of the
  graph comment (another mode order): an expression that reads one tensor in two mode orders,
  ``A(i,j)=B(i,j)+B(j,i)``, scans each use in loop order. Made by
  :func:`sam.graph.validate.bind` from ``B``, so it takes no ``-t`` either;
* ``output_formats="X=ss:1,0"``: the graph writes ``X`` in the format its comment gives (the
  loop order's), and the simulator converts the result to this one, the format asked for
  (:func:`sam.sim.assemble.assemble_outputs`); entries separated by ``;``.

The graph's :class:`~sam.graph.contract.Contract` holds all four typed, parsed once when the
graph is read (``graph.contract.constants``, ``.ranges``, ``.copies``, ``.output_formats``).
"""

from __future__ import annotations

import numpy as np

from formats.tensor import Tensor
from sam.errors import GraphError
from sam.graph.contract import CONSTANTS, COPIES, DIMS, NONEMPTY_DIMS, OUTPUT_FORMATS, RANGES
from sam.graph.model import Graph


def implicit_names(graph: Graph) -> list[str]:
    """Names of the graph's implicit input tensors (the copies included)."""
    c = graph.contract
    return [*c.constants, *c.ranges, *c.copies]


def implicit_tensors(graph: Graph) -> dict[str, Tensor]:
    """The graph's implicit input tensors, in the formats its comment gives them."""
    out: dict[str, Tensor] = {}
    for name, value in graph.contract.constants.items():
        out[name] = Tensor.scalar(value, name)
    for name, length in graph.contract.ranges.items():
        fmt = graph.formats.get(name)
        out[name] = Tensor.from_dense(np.zeros(length), fmt or "d", name=name)
    for name, tensor in out.items():
        fmt = graph.formats.get(name)
        if fmt is not None and fmt.order != tensor.order:
            raise GraphError(f"implicit input {name} has order {tensor.order} but the graph "
                             f"comment gives it format {fmt} (order {fmt.order})")
    return out


def index_sizes(graph: Graph) -> dict[str, int]:
    """Sizes of the index variables the ``ranges`` tensors iterate (by the scanners' ``index``):
    what a gold check needs for result variables no operand has."""
    lengths = graph.contract.ranges
    out: dict[str, int] = {}
    for block in graph.blocks.values():
        var = block.attrs.get("index")
        if block.tensor in lengths and var and block.attrs.get("mode") == "0":
            out.setdefault(var, lengths[block.tensor])  # a scanner of its only level
    return out


__all__ = ["CONSTANTS", "COPIES", "DIMS", "NONEMPTY_DIMS", "OUTPUT_FORMATS", "RANGES",
           "implicit_names", "implicit_tensors", "index_sizes"]
