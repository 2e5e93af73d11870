"""Build SAM graphs in code: the builder the compiler (:mod:`custard.lower`) and compound blocks
(:mod:`sam.graph.compound`) use.

::

    b = GraphBuilder()
    scan = b.block("fiberlookup", tensor="b", mode=0, index="i", root="true")
    load = b.block("arrayvals", tensor="b")
    b.link((scan.id, "ref"), load, "ref")
    write = b.block("fiberwrite", tensor="x", mode="vals", sink="true")
    b.link((load.id, "val"), write, "val")
    graph = b.finish()

Blocks are added by DOT node type with their attributes (values become strings) and get the ids
``"0"``, ``"1"``, ... in order of addition. Ports are named as in the DOT schema: the stream
kind, then ``:`` and the port comment where a block has several ports of a kind (``crd``,
``ref:out-B``, ``val:in0``; :attr:`sam.blocks.base.Port.name`). A link joins an output port to an
input port; both ports must exist, their stream kinds must agree and an input takes one stream,
else :class:`~sam.blocks.base.GraphError`.

An output port may be linked to several inputs. :meth:`GraphBuilder.finish` adds the edges,
grouped by output port in order of each port's first link; an output with several consumers
goes through a ``broadcast`` node (the Custard schema's fan-out point), created after all other
blocks in that order, so its id follows theirs.

Block types come from :data:`sam.blocks.base.BLOCK_TYPES`, which :mod:`sam.graph.registry` fills
when imported (this module does not import it: the registry imports the compound blocks, which
build their bodies here).

A builder can also say which inner ports stand for the ports of a compound block
(:meth:`GraphBuilder.export_input`, :meth:`GraphBuilder.export_output`).
"""

from __future__ import annotations

from collections.abc import Mapping

from sam.blocks.base import Block, make_block
from sam.errors import GraphError
from sam.graph.model import Graph, port_by_name

#: An output port: (block id, port name).
OutPort = tuple[str, str]
#: An input port: (block id, port name).
InPort = tuple[str, str]


class GraphBuilder:
    """Adds blocks and links; :meth:`finish` gives the graph (see module docstring)."""

    def __init__(self) -> None:
        self.graph = Graph()
        #: links in order: (output port, input port)
        self.links: list[tuple[OutPort, InPort]] = []
        self.next_id = 0
        #: ports of a compound block: external input name -> inner input ports
        self.inputs: dict[str, list[InPort]] = {}
        #: ports of a compound block: external output name -> inner output port
        self.outputs: dict[str, OutPort] = {}
        self._fed: set[InPort] = set()
        self._finished = False

    # ------------------------------------------------------------------ blocks
    def block(self, dot_type: str, attrs: Mapping[str, object] | None = None, /,
              **more: object) -> Block:
        """Add a block of DOT type ``dot_type`` with attributes ``attrs`` and ``more``."""
        self._open()
        return self._new(dot_type, {**(attrs or {}), **more})

    # ------------------------------------------------------------------ links
    def link(self, src: tuple[Block | str, str], dst: Block | str, port: str) -> None:
        """Join output ``src`` = (block, port name) to input ``port`` of ``dst``."""
        self._open()
        out = self._out(src)
        sblock = self.graph.blocks[out[0]]
        dblock = self._block(dst)
        sport = port_by_name(sblock, "out", out[1])
        dport = port_by_name(dblock, "in", port)
        if sport.kind != dport.kind:
            raise GraphError(
                f"cannot link {sport.kind} output {sport.name} of node {sblock.id} to "
                f"{dport.kind} input {dport.name} of node {dblock.id}: stream kinds differ"
            )
        key = (dblock.id, dport.name)
        if key in self._fed:
            raise GraphError(f"input {dport.name} of node {dblock.id} is linked twice; an "
                             "input takes exactly one stream")
        self._fed.add(key)
        self.links.append((out, key))

    def export_input(self, name: str, dst: Block | str, port: str) -> None:
        """Compound bodies: external input ``name`` feeds input ``port`` of ``dst`` (an
        external input may feed several inner inputs)."""
        self._open()
        dblock = self._block(dst)
        port_by_name(dblock, "in", port)
        key = (dblock.id, port)
        if key in self._fed:
            raise GraphError(f"input {port} of node {dblock.id} is linked twice; an input "
                             "takes exactly one stream")
        self._fed.add(key)
        self.inputs.setdefault(name, []).append(key)

    def export_output(self, name: str, src: tuple[Block | str, str]) -> None:
        """Compound bodies: external output ``name`` is output ``src`` = (block, port name)."""
        self._open()
        out = self._out(src)
        port_by_name(self.graph.blocks[out[0]], "out", out[1])
        if name in self.outputs:
            raise GraphError(f"external output {name} is exported twice")
        self.outputs[name] = out

    # ------------------------------------------------------------------ result
    def finish(self) -> Graph:
        """The graph, with broadcast nodes for outputs linked to several inputs."""
        self._open()
        self._finished = True
        consumers: dict[OutPort, list[InPort]] = {}
        for src, dst in self.links:
            consumers.setdefault(src, []).append(dst)
        for src, dsts in consumers.items():
            if len(dsts) == 1:
                self.graph.connect(src[0], src[1], dsts[0][0], dsts[0][1])
                continue
            kind = src[1].split(":")[0]
            fan = self._new("broadcast", {})
            fan.declare_port("in", kind, "")
            self.graph.connect(src[0], src[1], fan.id, kind)
            for dst, port in dsts:
                self.graph.connect(fan.id, kind, dst, port)
        return self.graph

    # ------------------------------------------------------------------ helpers
    def _open(self) -> None:
        if self._finished:
            raise GraphError("the graph builder has finished; start a new GraphBuilder")

    def _new(self, dot_type: str, attrs: Mapping[str, object]) -> Block:
        block = make_block(str(self.next_id), dot_type, {k: str(v) for k, v in attrs.items()})
        self.next_id += 1
        return self.graph.add(block)

    def _block(self, ref: Block | str) -> Block:
        bid = ref.id if isinstance(ref, Block) else str(ref)
        block = self.graph.blocks.get(bid)
        if block is None:
            raise GraphError(f"node {bid or '(none)'} is not in the graph being built")
        return block

    def _out(self, src: tuple[Block | str, str]) -> OutPort:
        block, port = src
        return self._block(block).id, port


__all__ = ["GraphBuilder", "InPort", "OutPort"]
