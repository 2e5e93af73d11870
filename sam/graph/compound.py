"""Compound blocks (macro-blocks): one graph node whose body is a subgraph of other blocks.

A :class:`CompoundBlock` is registered under its DOT type like any block, so a DOT file holds it
as ONE node with its attributes, and its edges attach to its own ports. Its body is built from
those attributes with a :class:`~sam.graph.builder.GraphBuilder` (:meth:`CompoundBlock.build`):
inner blocks and links, plus a port map that says which inner input ports each external input
feeds (:meth:`~sam.graph.builder.GraphBuilder.export_input`, one or several) and which inner
output port each external output is (:meth:`~sam.graph.builder.GraphBuilder.export_output`).
The block's ports are those of the port map: an external port named ``crd`` or ``ref:out-B`` has
the stream kind of the inner port behind it, and an external input is optional when every inner
input it feeds is (a root scanner's ``ref``). Bodies may hold other compounds.

A compound has no kernel: :func:`sam.graph.expand.expand` replaces it by its body when a
simulation is elaborated (inner block ids become ``5/0``, ``5/1``, ... for compound ``5``), and
the simulator adds the compound's rolled-up statistics to those of its parts
(:class:`sam.sim.engine.BlockStats`).

:class:`ScanLoad` (DOT type ``scanload``) is the first compound: a level scanner and the array
load of the values its references point to.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from sam.blocks.base import Block, Port
from sam.errors import GraphError
from sam.graph.model import port_by_name

if TYPE_CHECKING:
    from formats.format import Format
    from sam.graph.builder import GraphBuilder, InPort, OutPort
    from sam.graph.model import Graph


@dataclass
class Body:
    """A compound's body: inner graph (ids ``0``, ``1``, ...) and its port map."""

    graph: Graph
    #: external input name -> inner input ports (block id, port name) it feeds
    inputs: dict[str, list[InPort]]
    #: external output name -> inner output port (block id, port name)
    outputs: dict[str, OutPort]


#: How deeply compounds may nest (a compound whose body holds itself would never end).
MAX_NESTING = 32


def _split(name: str) -> tuple[str, str]:
    kind, _, comment = name.partition(":")
    return kind, comment


class CompoundBlock(Block):
    """A block made of other blocks (see module docstring). Subclasses set ``dot_type`` and
    write :meth:`build`."""

    family: ClassVar[str] = "compound"
    #: bodies being built right now (inner compounds build theirs to learn their ports)
    _depth: ClassVar[int] = 0

    def __init__(self, node_id: str, attrs: Mapping[str, str] | None = None) -> None:
        super().__init__(node_id, attrs)
        self._ports: tuple[list[Port], list[Port]] | None = None

    def build(self, b: GraphBuilder) -> None:
        """Add the body's blocks and links to ``b`` and export the external ports."""
        raise NotImplementedError

    def check(self, formats: Mapping[str, Format]) -> None:
        """Hook: reject attributes that do not fit the graph's tensor formats."""

    def body(self) -> Body:
        """A fresh copy of the body (the caller may rename its blocks)."""
        from sam.graph.builder import GraphBuilder

        if CompoundBlock._depth >= MAX_NESTING:
            raise GraphError(f"compound blocks nest more than {MAX_NESTING} deep (does the "
                             f"body of a {self.dot_type} hold a {self.dot_type}?)")
        b = GraphBuilder()
        CompoundBlock._depth += 1
        try:
            self.build(b)
            graph = b.finish()
        except GraphError as err:
            if "nest more than" in str(err):
                raise
            raise GraphError(f"node {self.id} ({self.dot_type}): in its body: {err}") from None
        finally:
            CompoundBlock._depth -= 1
        if not graph.blocks:
            raise GraphError(f"node {self.id} ({self.dot_type}): its body has no blocks")
        for name, targets in b.inputs.items():
            kinds = {port_by_name(graph.blocks[bid], "in", p).kind for bid, p in targets}
            if kinds != {_split(name)[0]}:
                raise GraphError(f"node {self.id} ({self.dot_type}): external input {name} "
                                 f"feeds inner ports of stream kind {', '.join(sorted(kinds))}")
        for name, (bid, p) in b.outputs.items():
            if port_by_name(graph.blocks[bid], "out", p).kind != _split(name)[0]:
                raise GraphError(f"node {self.id} ({self.dot_type}): external output {name} "
                                 f"is inner port {p} of node {bid}, of another stream kind")
        return Body(graph, dict(b.inputs), dict(b.outputs))

    def _external_ports(self) -> tuple[list[Port], list[Port]]:
        if self._ports is None:
            body = self.body()
            ins = []
            for name, targets in body.inputs.items():
                kind, comment = _split(name)
                optional = all(
                    port_by_name(body.graph.blocks[bid], "in", p).optional
                    for bid, p in targets
                )
                ins.append(Port(kind, comment, optional=optional))
            outs = [Port(*_split(name), optional=True) for name in body.outputs]
            self._ports = (ins, outs)
        return self._ports

    def inputs(self) -> list[Port]:
        return list(self._external_ports()[0])

    def outputs(self) -> list[Port]:
        return list(self._external_ports()[1])


class ScanLoad(CompoundBlock):
    """A level scanner (Def. 3.1, ``fiberlookup``) with the array load (Def. 3.5,
    ``arrayvals``) of the values its references point to; DOT type ``scanload``.

    Attributes as a scanner's: ``tensor``, ``mode`` (the level scanned: the tensor's last
    stored level, whose positions index the values), ``index``, ``format`` (compressed or dense)
    and ``root``. Ports: input ``ref`` (optional when ``root=true``); outputs ``crd`` and ``ref``
    (the scanner's) and ``val`` (the loaded values). Parts: ``0`` scanner, ``1`` array load. Same
    tokens and cycles as the two blocks side by side.
    """

    dot_type = "scanload"
    required_attrs = ("tensor", "mode")
    reads_root = True

    def build(self, b: GraphBuilder) -> None:
        keys = ("index", "tensor", "mode", "format", "root")
        scan = b.block("fiberlookup", {k: self.attrs[k] for k in keys if k in self.attrs})
        load = b.block("arrayvals", tensor=self.attrs["tensor"])
        b.link((scan, "ref"), load, "ref")
        b.export_input("ref", scan, "ref")
        b.export_output("crd", (scan, "crd"))
        b.export_output("ref", (scan, "ref"))
        b.export_output("val", (load, "val"))

    def check(self, formats: Mapping[str, Format]) -> None:
        fmt = formats.get(self.tensor or "")
        mode = self.attrs.get("mode", "")
        if fmt is None or fmt.order == 0 or not mode.isdigit():
            return
        last = fmt.mode_order[-1]
        if int(mode) != last:
            raise GraphError(
                f"node {self.id} (scanload) scans mode {mode} of {self.tensor}, but values are "
                f"indexed by the last stored level (mode {last} in format {fmt}); scan mode "
                f"{mode} with a fiberlookup"
            )

    def label(self) -> str:
        fmt = self.attrs.get("format", "compressed")
        return (f"scanload {self.attrs.get('index', '')}: {self.tensor}{self.attrs.get('mode')} "
                f"({fmt})")
