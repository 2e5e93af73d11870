"""Checks that a SAM graph can run, each failure reported as one clear :class:`GraphError`.

* every input port takes exactly one stream (optional ones, such as a root scanner's, may take
  none); stream kinds match at both ends of every edge;
* the graph has no cycle (feedback edges, e.g. coordinate skipping, are not supported yet);
* every tensor the graph reads is bound, with the order its format says.
"""

from __future__ import annotations

from collections.abc import Mapping

from formats.errors import FormatError
from formats.tensor import Tensor
from sam.blocks.base import GraphError
from sam.graph.model import Graph


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
    _check_acyclic(graph)


def _check_acyclic(graph: Graph) -> None:
    succ: dict[str, list[str]] = {b: [] for b in graph.blocks}
    for e in graph.edges:
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
                        + "; SAM graphs must be acyclic (feedback edges are not supported)"
                    )
                if not state.get(nxt):
                    stack.append((nxt, 0))
            else:
                state[node] = 2
                path.pop()


def input_tensors(graph: Graph) -> list[str]:
    """Tensors the graph reads (scanned, located or loaded)."""
    names: list[str] = []
    for block in graph.blocks.values():
        if block.family != "write" and block.tensor and block.tensor not in names:
            names.append(block.tensor)
    return names


def output_tensors(graph: Graph) -> list[str]:
    """Tensors the graph writes."""
    names: list[str] = []
    for block in graph.blocks.values():
        if block.family == "write" and block.tensor and block.tensor not in names:
            names.append(block.tensor)
    return names


def bind(graph: Graph, tensors: Mapping[str, Tensor]) -> dict[str, Tensor]:
    """The input tensors, each converted to the format the graph's comment gives it."""
    bound: dict[str, Tensor] = {}
    for name in input_tensors(graph):
        if name not in tensors:
            given = ", ".join(sorted(tensors)) or "none"
            raise GraphError(
                f"the graph reads tensor {name} but no tensor is bound to it (bound: {given}); "
                f"bind it, e.g. -t {name}=matrix.mtx"
            )
        tensor = tensors[name]
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
    for name, tensor in tensors.items():
        bound.setdefault(name, tensor)
    return bound


def validate(graph: Graph, tensors: Mapping[str, Tensor] | None = None) -> None:
    """Raise :class:`GraphError` if the graph cannot run (with ``tensors``, if given)."""
    check_structure(graph)
    if tensors is not None:
        bind(graph, tensors)
