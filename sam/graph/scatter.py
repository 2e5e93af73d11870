"""Results written by locating (SAM paper Sec. 4.2): a dense result that supports random insert.

Instead of level writers, such a result is written by locators into its own (dense) levels, fed
by the result's coordinate streams, and an ``arraystore`` that adds each value at the located
reference (``accumulate="true"``), so a sum scattered over the result needs no vector reducer.
The locators need the result's level sizes before anything is written: the machine binds an
all-zero tensor of the result's format and shape (each mode's size is that of the index
variable its locator iterates, read off the input tensors' scanners and locators); the value
array the store wrote becomes the result.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from formats.tensor import Tensor
from sam.errors import GraphError
from sam.graph.model import Graph


def scattered_outputs(graph: Graph) -> list[str]:
    """Tensors the graph writes with an ``arraystore`` and locates into."""
    stored = {b.tensor for b in graph.blocks.values() if b.dot_type == "arraystore"}
    return sorted({b.tensor for b in graph.blocks.values()
                   if b.dot_type == "locate" and b.tensor in stored})


def _mode(block) -> int | None:
    try:
        return int(block.attrs.get("mode", ""))
    except ValueError:
        return None


def output_shape(graph: Graph, name: str, tensors: Mapping[str, Tensor]) -> tuple[int, ...]:
    """The shape of scattered result ``name``: per mode, the size of the index variable its
    locator iterates, from the bound tensors' scanners and locators of that variable."""
    sizes: dict[str, int] = {}
    for block in graph.blocks.values():
        ivar, mode = block.attrs.get("index"), _mode(block)
        tensor = tensors.get(block.tensor or "")
        if (block.dot_type in ("fiberlookup", "locate") and ivar and block.tensor != name
                and tensor is not None and mode is not None and 0 <= mode < tensor.order):
            sizes.setdefault(ivar, tensor.shape[mode])
    fmt = graph.formats.get(name)
    if fmt is None:
        raise GraphError(f"result {name} is written by locating but the graph comment gives "
                         "it no format; give it one (e.g. X=dd)")
    shape = [-1] * fmt.order
    for block in graph.blocks.values():
        mode = _mode(block)
        if block.dot_type == "locate" and block.tensor == name and mode is not None:
            ivar = block.attrs.get("index", "")
            if ivar not in sizes or not 0 <= mode < fmt.order:
                raise GraphError(f"node {block.id} locates into result {name}, but no input "
                                 f"tensor gives the size of its index {ivar or '(none)'}")
            shape[mode] = sizes[ivar]
    if -1 in shape:
        raise GraphError(f"result {name} is written by locating but mode {shape.index(-1)} has "
                         "no locator; locate into every level of the result")
    return tuple(shape)


def bind_outputs(graph: Graph, tensors: Mapping[str, Tensor]) -> dict[str, Tensor]:
    """All-zero tensors (the result's format and shape) for the scattered results that are not
    bound, for their locators to read the level sizes from."""
    out: dict[str, Tensor] = {}
    for name in scattered_outputs(graph):
        if name in tensors:
            continue
        fmt = graph.formats.get(name)
        shape = output_shape(graph, name, tensors)
        if fmt is None or not all(lv.full for lv in fmt.level_types):
            raise GraphError(f"result {name} is written by locating but its format "
                             f"{fmt or 'none'} is not dense; store it dense (e.g. X=dd)")
        empty = np.zeros((0, len(shape)), dtype=np.int64)
        out[name] = Tensor.from_coo(empty, np.zeros(0), shape, fmt, name=name)
    return out


def stored_result(graph: Graph, name: str, vals: np.ndarray, tensors: Mapping[str, Tensor]
                  ) -> Tensor:
    """The result the store wrote: ``vals`` (positions in the dense levels' order, the ones
    never written 0) as a tensor of the graph's format."""
    fmt = graph.formats[name]
    shape = tensors[name].shape if name in tensors else output_shape(graph, name, tensors)
    stored = [shape[m] for m in fmt.mode_order]
    full = np.zeros(int(np.prod(stored, dtype=np.int64)), np.float64)
    full[: len(vals)] = vals[: len(full)]
    dense = full.reshape(stored).transpose(np.argsort(fmt.mode_order))
    return Tensor.from_dense(dense, fmt, name=name)
