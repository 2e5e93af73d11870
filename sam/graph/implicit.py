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
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

import numpy as np

from formats.errors import FormatError
from formats.format import Format
from formats.tensor import Tensor
from sam.errors import GraphError
from sam.graph.model import Graph

CONSTANTS = "constants"
RANGES = "ranges"
COPIES = "copies"
OUTPUT_FORMATS = "output_formats"
#: graph attribute: compiled assuming no dimension has size 0 (Custard's ``nonempty_dims``);
#: the binder refuses an operand with a dimension of size 0
NONEMPTY_DIMS = "nonempty_dims"
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def _pairs(graph: Graph, attr: str) -> list[tuple[str, str]]:
    text = graph.attrs.get(attr, "")
    out: list[tuple[str, str]] = []
    for part in text.split(","):
        if not part.strip():
            continue
        name, sep, value = (x.strip() for x in part.partition("="))
        if not sep or not _NAME.fullmatch(name) or not value:
            raise GraphError(f"graph attribute {attr}={text!r}: {part.strip()!r} is not "
                             "NAME=VALUE")
        if name in dict(out):
            raise GraphError(f"graph attribute {attr}={text!r} names {name} twice")
        out.append((name, value))
    return out


def constants(graph: Graph) -> dict[str, float]:
    """The ``constants`` attribute: scalar tensor name -> value."""
    out: dict[str, float] = {}
    for name, text in _pairs(graph, CONSTANTS):
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise GraphError(f"graph attribute {CONSTANTS}: {name}={text!r} is not a finite "
                             "number")
        out[name] = value
    return out


def ranges(graph: Graph) -> dict[str, int]:
    """The ``ranges`` attribute: dense vector name -> length."""
    out: dict[str, int] = {}
    for name, text in _pairs(graph, RANGES):
        if not text.isdigit():
            raise GraphError(f"graph attribute {RANGES}: {name}={text!r} is not a length (a "
                             "non-negative integer)")
        out[name] = int(text)
    return out


#: Sizes of index variables no tensor of the graph shows (``dims="i0=32,i1=64"``: the levels a
#: split block makes, SAM Sec. 4.1; written by ``custard.splitting``).
DIMS = "dims"


def declared_dims(graph: Graph) -> dict[str, int]:
    """The ``dims`` attribute: index variable -> size."""
    out: dict[str, int] = {}
    for name, text in _pairs(graph, DIMS):
        if not text.isdigit():
            raise GraphError(f"graph attribute {DIMS}: {name}={text!r} is not a size (a "
                             "non-negative integer)")
        out[name] = int(text)
    return out


def copies(graph: Graph) -> dict[str, str]:
    """The ``copies`` attribute: copy name -> the tensor it copies (in another format)."""
    out: dict[str, str] = {}
    for name, source in _pairs(graph, COPIES):
        if not _NAME.fullmatch(source) or source == name:
            raise GraphError(f"graph attribute {COPIES}: {name}={source!r} does not name "
                             "another tensor")
        if name not in graph.formats:
            raise GraphError(f"graph attribute {COPIES}: the copy {name} has no format in the "
                             "graph comment; add it (e.g. comment=\"...,{name}=dd10\")")
        out[name] = source
    return out


def output_formats(graph: Graph) -> dict[str, Format]:
    """The ``output_formats`` attribute: output name -> the format its result is converted to."""
    text = graph.attrs.get(OUTPUT_FORMATS, "")
    out: dict[str, Format] = {}
    for part in text.split(";"):
        if not part.strip():
            continue
        name, sep, spec = (x.strip() for x in part.partition("="))
        if not sep or not _NAME.fullmatch(name):
            raise GraphError(f"graph attribute {OUTPUT_FORMATS}={text!r}: {part.strip()!r} is "
                             "not NAME=FORMAT")
        try:
            fmt = Format.parse(spec)
        except FormatError as err:
            raise GraphError(f"graph attribute {OUTPUT_FORMATS}: {name}: {err}") from None
        written = graph.formats.get(name)
        if written is None or written.order != fmt.order:
            raise GraphError(f"graph attribute {OUTPUT_FORMATS}: {name}={spec} is not a format "
                             f"of the same order as {name}'s in the graph comment")
        out[name] = fmt
    return out


def format_pairs(values: Mapping[str, object]) -> str:
    """``{"c0": "2", "c1": "1.5e-3"}`` -> ``"c0=2,c1=1.5e-3"`` (an attribute value)."""
    return ",".join(f"{name}={value}" for name, value in values.items())


def implicit_names(graph: Graph) -> list[str]:
    """Names of the graph's implicit input tensors (the copies included)."""
    return [*constants(graph), *ranges(graph), *copies(graph)]


def implicit_tensors(graph: Graph) -> dict[str, Tensor]:
    """The graph's implicit input tensors, in the formats its comment gives them."""
    out: dict[str, Tensor] = {}
    for name, value in constants(graph).items():
        out[name] = Tensor.scalar(value, name)
    for name, length in ranges(graph).items():
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
    lengths = ranges(graph)
    out: dict[str, int] = {}
    for block in graph.blocks.values():
        var = block.attrs.get("index")
        if block.tensor in lengths and var and block.attrs.get("mode") == "0":
            out.setdefault(var, lengths[block.tensor])  # a scanner of its only level
    return out
