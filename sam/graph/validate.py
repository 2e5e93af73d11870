"""Checks that a SAM graph can run, each failure reported as one clear :class:`GraphError`.

* every input port takes exactly one stream (optional ones, such as a root scanner's, may take
  none); stream kinds match at both ends of every edge;
* the graph has no cycle, except through declared feedback inputs (``Port.feedback``: the skip
  stream of a scanner, SAM Sec. 4.2), which the engine runs with per-channel time horizons;
* the graph's contract (typed graph attributes, :mod:`sam.graph.contract`) agrees with the
  formats: ``shape_X`` has the order of ``X``'s format, and so do ``output_formats``;
* every tensor mode a block names exists in the tensor's format (graph comment), and a scanner
  reads each level as the level format the comment stores it in, or as a ``full`` one (a dense
  scan of a compressed level is a counter over the dimension, which is fine);
* every tensor the graph reads is bound, with the order its format says, and the tensors agree
  on the size of each index variable (``B(i,j) * c(j)`` needs ``B.shape[1] == c.shape[0]``);
  implicit inputs (constants, ranges: :mod:`sam.graph.implicit`) are made from the graph, and
  copies (attribute ``copies``) from the tensors they copy.
"""

from __future__ import annotations

from collections.abc import Mapping

from formats.errors import FormatError
from formats.levels import LEVEL_NAMES
from formats.tensor import Tensor
from sam.errors import GraphError
from sam.graph.fifos import check_depths
from sam.graph.implicit import implicit_names, implicit_tensors
from sam.graph.model import Graph
from sam.graph.ragged import check_shared
from sam.graph.scatter import bind_outputs, scattered_outputs


def check_structure(graph: Graph) -> None:
    """Ports, stream kinds and acyclicity (no tensors needed)."""
    if not graph.blocks:
        raise GraphError("the graph has no nodes")
    feeds: dict[tuple[str, str], int] = {}
    for e in graph.edges:
        if e.src not in graph.blocks or e.dst not in graph.blocks:
            raise GraphError(f"edge {e.src} -> {e.dst} names a node that does not exist")
        if e.src_port.kind != e.dst_port.kind:
            raise GraphError(
                f"edge {e.src} -> {e.dst}: a {e.src_port.kind} stream enters {e.dst_port.kind} "
                f"input {e.dst_port.name} of node {e.dst}; connect matching stream kinds"
            )
        key = (e.dst, e.dst_port.name)
        feeds[key] = feeds.get(key, 0) + 1
    for bid, block in graph.blocks.items():
        for port in block.inputs():
            n = feeds.get((bid, port.name), 0)
            if n == 0 and not port.optional:
                raise GraphError(
                    f"node {bid} ({block.label()}): input {port.name} is not connected; add an "
                    f"edge of type \"{port.kind}\" into it"
                )
            if n > 1:
                raise GraphError(
                    f"node {bid} ({block.label()}): input {port.name} is connected {n} times; an "
                    "input takes exactly one stream (use a broadcast to copy a stream)"
                )
    _check_modes(graph)
    check_depths(graph)
    graph.contract.check(graph.formats)  # copies, output formats, shapes agree with formats
    implicit_tensors(graph)  # the constants/ranges tensors have the orders the comment gives
    _check_acyclic(graph)


def _mode_of(block) -> int | None:
    """The tensor mode a block names (``mode="1"``), or None (values, or not a number)."""
    text = block.attrs.get("mode", "")
    return int(text) if text.isascii() and text.isdigit() and len(text) < 19 else None


def _check_modes(graph: Graph) -> None:
    for bid, block in graph.blocks.items():
        fmt = graph.formats.get(block.tensor or "")
        mode = _mode_of(block)
        if fmt is None or mode is None:
            continue
        if mode >= fmt.order:
            raise GraphError(
                f"node {bid} ({block.label()}) uses mode {mode} of tensor {block.tensor}, but the "
                f"graph comment gives {block.tensor} format {fmt or 'none'} (order {fmt.order})"
            )
        scanned_as = LEVEL_NAMES.get(block.attrs.get("format", ""))
        if block.dot_type != "fiberlookup" or scanned_as is None:
            continue  # no format, or an unknown one (the scanner names the known ones)
        stored = fmt.level_type_of_mode(mode)
        if scanned_as is not stored and not scanned_as.full:
            raise GraphError(
                f"node {bid} ({block.label()}) scans mode {mode} of {block.tensor} as "
                f"{scanned_as.name}, but the graph comment stores that level {stored.name} "
                f"(format {fmt}); make them agree"
            )


def _check_acyclic(graph: Graph) -> None:
    """No cycle but through a declared feedback input (a scanner's skip stream, Sec. 4.2)."""
    succ: dict[str, list[str]] = {b: [] for b in graph.blocks}
    for e in graph.edges:
        if not e.dst_port.feedback:
            succ[e.src].append(e.dst)
    state: dict[str, int] = {}
    for root in graph.blocks:
        if state.get(root):
            continue
        stack: list[tuple[str, int]] = [(root, 0)]
        path: list[str] = []
        while stack:
            node, i = stack.pop()
            if i == 0:
                state[node] = 1
                path.append(node)
            if i < len(succ[node]):
                stack.append((node, i + 1))
                nxt = succ[node][i]
                if state.get(nxt) == 1:
                    cycle = path[path.index(nxt):] + [nxt]
                    raise GraphError(
                        "the graph has a cycle " + " -> ".join(cycle)
                        + "; SAM graphs must be acyclic (only a declared feedback input, a "
                        "scanner's skip stream, may close a cycle)"
                    )
                if not state.get(nxt):
                    stack.append((nxt, 0))
            else:
                state[node] = 2
                path.pop()


def _primitives(graph: Graph) -> Graph:
    """The graph with compound blocks replaced by their parts."""
    from sam.graph.expand import expand

    return expand(graph).graph


def input_tensors(graph: Graph) -> list[str]:
    """Tensors the graph reads (scanned, located or loaded; compound blocks by their parts) that
    the caller binds: all but the implicit ones the graph records (:mod:`sam.graph.implicit`)."""
    implicit = set(implicit_names(graph))
    prims = _primitives(graph)
    scattered = set(scattered_outputs(prims))  # results written by locating (Sec. 4.2)
    names: list[str] = []
    for block in prims.blocks.values():
        if block.dot_type in ("locate", "repeat") and block.tensor in scattered:
            continue
        for name in block.reads():
            if name not in names and name not in implicit:
                names.append(name)
    return names


def output_tensors(graph: Graph) -> list[str]:
    """Tensors the graph writes (compound blocks by their parts)."""
    names: list[str] = []
    for block in _primitives(graph).blocks.values():
        if block.family == "write" and block.tensor and block.tensor not in names:
            names.append(block.tensor)
    return names


def bind(graph: Graph, tensors: Mapping[str, Tensor]) -> dict[str, Tensor]:
    """The input tensors, each converted to the format the graph's comment gives it, and the
    graph's implicit inputs (which replace any tensor given under their names)."""
    bound: dict[str, Tensor] = dict(implicit_tensors(graph))
    for name in input_tensors(graph):
        if name not in tensors:
            given = ", ".join(sorted(tensors)) or "none"
            raise GraphError(
                f"the graph reads tensor {name} but no tensor is bound to it (bound: {given}); "
                f"bind it, e.g. -t {name}=matrix.mtx"
            )
        tensor = tensors[name]
        if graph.contract.nonempty_dims and 0 in tensor.shape:
            raise GraphError(
                f"tensor {name} has a dimension of size 0 (shape "
                f"{'x'.join(map(str, tensor.shape))}) but the graph was compiled assuming none "
                "(custard --nonempty-dims); compile it without that option")
        fmt = graph.formats.get(name)
        if fmt is not None and fmt.order != tensor.order:
            raise GraphError(
                f"tensor {name} has order {tensor.order} but the graph uses it with format {fmt} "
                f"(order {fmt.order}); bind a tensor of order {fmt.order}"
            )
        if fmt is not None and fmt != tensor.format:
            try:
                tensor = tensor.with_format(fmt)
            except FormatError as err:
                raise GraphError(f"cannot store tensor {name} as {fmt}: {err}") from None
        bound[name] = tensor
    for name, source in graph.contract.copies.items():
        if source not in tensors:
            raise GraphError(f"the graph reads {name}, a copy of tensor {source} (graph "
                             f"attribute copies), but no tensor is bound to {source}")
        try:
            bound[name] = tensors[source].with_format(graph.formats[name])
        except FormatError as err:
            raise GraphError(f"cannot store tensor {source} as {graph.formats[name]} (its "
                             f"copy {name}): {err}") from None
    for name, tensor in tensors.items():
        bound.setdefault(name, tensor)
    bound.update(bind_outputs(graph, bound))
    _check_index_sizes(graph, bound)
    check_shared(graph, bound)
    return bound


def _check_index_sizes(graph: Graph, tensors: Mapping[str, Tensor]) -> None:
    """Scanners or locators of one index variable over different tensors must see the same
    dimension. (Two modes of one tensor under one variable, as in a diagonal ``B(i,i)``, are left
    to the blocks.)"""
    seen: dict[str, tuple[int, str, str]] = {}
    for bid, block in graph.blocks.items():
        ivar = block.attrs.get("index")
        mode = _mode_of(block)
        if block.dot_type not in ("fiberlookup", "locate") or not ivar or mode is None:
            continue
        tensor = tensors.get(block.tensor or "")
        if tensor is None or not 0 <= mode < tensor.order:
            continue
        size = tensor.shape[mode]
        where = f"{block.tensor} (mode {mode}, node {bid})"
        if ivar in seen and seen[ivar][0] != size and seen[ivar][2] != block.tensor:
            first, there, _ = seen[ivar]
            raise GraphError(
                f"index variable {ivar} has size {first} in {there} but size {size} in {where}; "
                "bind tensors whose shapes agree"
            )
        seen.setdefault(ivar, (size, where, block.tensor or ""))


def validate(graph: Graph, tensors: Mapping[str, Tensor] | None = None) -> None:
    """Raise :class:`GraphError` if the graph cannot run (with ``tensors``, if given)."""
    check_structure(graph)
    if tensors is not None:
        bind(graph, tensors)
