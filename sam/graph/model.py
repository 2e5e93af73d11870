"""SAM graphs: blocks joined by typed streams (crd, ref, val, repsig, bv).

A :class:`Graph` holds :class:`~sam.blocks.base.Block` nodes and :class:`Edge` s from an output
port to an input port. An output port may feed several inputs (the stream is copied, as the
Custard schema's ``broadcast`` node does); an input port takes exactly one stream. The graph's
``formats`` are the tensor formats of its DOT ``comment`` (``X=ss01,B=ss01``) and ``contract``
its further graph attributes, typed and parsed once (:mod:`sam.graph.contract`: the expression,
loop order, implicit inputs, ...); ``attrs`` shows them as DOT text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import ClassVar

from formats.format import Format
from sam.blocks.base import Block, Port
from sam.errors import GraphError
from sam.graph.contract import Contract, GraphAttrs


@dataclass
class Edge:
    """A stream from ``src``'s output port to ``dst``'s input port."""

    src: str
    src_port: Port
    dst: str
    dst_port: Port
    attrs: dict[str, str] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return self.src_port.kind


@dataclass
class Graph:
    """A SAM dataflow graph."""

    blocks: dict[str, Block] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    formats: dict[str, Format] = field(default_factory=dict)
    contract: Contract = field(default_factory=Contract)
    name: str = "SAM"
    #: the DOT graph ID (``digraph SAM {``): what the file calls the graph, kept on reading and
    #: written back; ``name`` is the graph's display name (a file's stem when read from one)
    dot_id: str = "SAM"
    #: What the compiler accepted but did not carry out, one line each (e.g. a schedule command
    #: with no dataflow meaning). Not part of the graph's meaning: not in DOT, not compared.
    notices: list[str] = field(default_factory=list, compare=False)
    #: Draws a graph as SVG text, or None when it cannot (set by :mod:`sam.graph.draw` when it
    #: is imported: this module may not import it); Jupyter shows ``_repr_svg_``.
    picture: ClassVar[Callable[[Graph], str | None] | None] = None

    def _repr_svg_(self) -> str | None:
        """The graph's picture for Jupyter, or None (text) when nothing draws it."""
        return None if Graph.picture is None else Graph.picture(self)

    @property
    def attrs(self) -> GraphAttrs:
        """The graph attributes as DOT text; setting one parses it into the contract."""
        return GraphAttrs(self.contract, self.formats)

    @attrs.setter
    def attrs(self, attrs: dict[str, str]) -> None:
        self.contract = Contract.from_attrs(attrs, self.formats)

    def add(self, block: Block) -> Block:
        if block.id in self.blocks:
            raise GraphError(f"two nodes have id {block.id}; node ids must be unique")
        self.blocks[block.id] = block
        return block

    def connect(self, src: Block | str, src_port: str, dst: Block | str, dst_port: str,
                **attrs: str) -> Edge:
        """Join output ``src_port`` (e.g. ``"crd"``, ``"ref:out-B"``) to input ``dst_port``."""
        s = self.blocks[src if isinstance(src, str) else src.id]
        d = self.blocks[dst if isinstance(dst, str) else dst.id]
        sp = port_by_name(s, "out", src_port)
        dp = port_by_name(d, "in", dst_port)
        if sp.kind != dp.kind:
            raise GraphError(
                f"cannot connect {sp.kind} output {sp.name} of node {s.id} to {dp.kind} input "
                f"{dp.name} of node {d.id}: stream kinds differ"
            )
        edge = Edge(s.id, sp, d.id, dp, dict(attrs))
        self.edges.append(edge)
        return edge

    def inputs_of(self, block_id: str) -> Iterator[Edge]:
        return (e for e in self.edges if e.dst == block_id)

    def outputs_of(self, block_id: str) -> Iterator[Edge]:
        return (e for e in self.edges if e.src == block_id)

    def tensors(self) -> list[str]:
        """Names of the tensors the graph reads or writes, in order of first appearance."""
        names = list(self.formats)
        for block in self.blocks.values():
            if block.tensor and block.tensor not in names:
                names.append(block.tensor)
        return names

    def signature(self) -> tuple:
        """What the graph means, as a comparable value: node types, attributes and ports (a port
        nothing feeds can stall its block; their order is the order edges were read in, which
        ports' names make irrelevant), the edges (as a multiset, with their ports and extra
        attributes), tensor formats and the contract (graph attributes). Two graphs with equal
        signatures run identically; cosmetics, node order and edge order (except among an ALU's
        inputs, which the ports capture) do not count."""
        nodes = tuple(sorted(
            (bid, b.dot_type, tuple(sorted(b.attrs.items())),
             tuple(sorted(p.name for p in b.inputs())),
             tuple(sorted(p.name for p in b.outputs())))
            for bid, b in self.blocks.items()
        ))
        edges = tuple(sorted(
            (e.src, e.src_port.name, e.dst, e.dst_port.name, e.kind,
             tuple(sorted(e.attrs.items())))
            for e in self.edges
        ))
        formats = tuple((name, str(fmt)) for name, fmt in self.formats.items())
        return nodes, edges, formats, self.contract.signature()

    def count(self) -> dict[str, int]:
        """Number of blocks of each DOT node type."""
        out: dict[str, int] = {}
        for block in self.blocks.values():
            out[block.dot_type] = out.get(block.dot_type, 0) + 1
        return out


def port_by_name(block: Block, direction: str, name: str) -> Port:
    """The input (``direction="in"``) or output port ``name`` of ``block`` (``"ref:out-B"``)."""
    port = block.port_named(direction, name)
    if port is not None:
        return port
    ports = block.inputs() if direction == "in" else block.outputs()
    names = ", ".join(p.name for p in ports) or "none"
    raise GraphError(
        f"node {block.id} ({block.dot_type}) has no {direction}put port {name!r}; "
        f"its {direction}put ports are: {names}"
    )
