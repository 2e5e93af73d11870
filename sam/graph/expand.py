"""Replace compound blocks (:mod:`sam.graph.compound`) by their bodies.

:func:`expand` gives an :class:`Expansion`: a flat graph of primitive blocks (``broadcast``
fan-out points are kept; the engine resolves them) and, for every compound at any depth, where
its parts and ports went. Inner blocks get the id ``<compound id>/<inner id>`` (``5/0``; nested:
``5/2/0``). Each edge into an external input becomes one edge into every inner input the port
map names; each edge out of an external output leaves the inner output behind it. A graph
without compounds is returned as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sam.errors import GraphError
from sam.graph.builder import InPort, OutPort
from sam.graph.compound import MAX_NESTING, CompoundBlock
from sam.graph.model import Edge, Graph, port_by_name


@dataclass
class CompoundInfo:
    """Where one compound went in the flat graph."""

    id: str
    block: CompoundBlock
    #: ids of its direct parts: primitive blocks of the flat graph and nested compounds
    children: list[str] = field(default_factory=list)
    #: external input -> flat input ports it feeds
    inputs: dict[str, list[InPort]] = field(default_factory=dict)
    #: external output -> the flat output port behind it
    outputs: dict[str, OutPort] = field(default_factory=dict)


@dataclass
class Expansion:
    """A flat graph and the compounds it came from (outer ones first, in graph order)."""

    graph: Graph
    compounds: dict[str, CompoundInfo] = field(default_factory=dict)
    #: ports of the blocks of the expanded graph (compounds included) -> flat ports
    inputs: dict[InPort, list[InPort]] = field(default_factory=dict)
    outputs: dict[OutPort, OutPort] = field(default_factory=dict)

    def flat_inputs(self, block: str, port: str) -> list[InPort]:
        """The flat input ports behind input ``port`` of top-level ``block``."""
        return self.inputs.get((block, port), [(block, port)])

    def flat_output(self, block: str, port: str) -> OutPort:
        """The flat output port behind output ``port`` of top-level ``block``."""
        return self.outputs.get((block, port), (block, port))

    def primitives(self, cid: str) -> list[str]:
        """Ids of the primitive blocks inside compound ``cid``, at any depth."""
        out: list[str] = []
        for child in self.compounds[cid].children:
            out += self.primitives(child) if child in self.compounds else [child]
        return out

    def enclosing(self, bid: str) -> list[str]:
        """The compounds holding block ``bid``, outermost first."""
        parts = bid.split("/")
        return [c for c in ("/".join(parts[:k]) for k in range(1, len(parts)))
                if c in self.compounds]

    def block_types(self) -> dict[str, str]:
        """DOT type of every block a simulation reports: flat blocks (no broadcasts) and
        compounds."""
        types = {bid: b.dot_type for bid, b in self.graph.blocks.items()
                 if b.dot_type != "broadcast"}
        types.update({cid: c.block.dot_type for cid, c in self.compounds.items()})
        return types


def has_compounds(graph: Graph) -> bool:
    return any(isinstance(b, CompoundBlock) for b in graph.blocks.values())


def expand(graph: Graph) -> Expansion:
    """The flat graph and the compounds' part and port maps (see module docstring)."""
    if not has_compounds(graph):
        return Expansion(graph)
    flat = Graph(formats=dict(graph.formats), contract=graph.contract.copy(), name=graph.name)
    exp = Expansion(flat)
    exp.inputs, exp.outputs = _inline(graph, "", exp, 0)
    return exp


def _inline(g: Graph, prefix: str, exp: Expansion, depth: int
            ) -> tuple[dict[InPort, list[InPort]], dict[OutPort, OutPort]]:
    """Add ``g``'s blocks (ids prefixed) and edges to the flat graph; return the flat ports
    behind each port of ``g``'s blocks."""
    flat = exp.graph
    ins: dict[InPort, list[InPort]] = {}
    outs: dict[OutPort, OutPort] = {}
    for bid, block in g.blocks.items():
        full = prefix + bid
        if not isinstance(block, CompoundBlock):
            if prefix:
                block.id = full
            flat.add(block)
            ins.update({(bid, p.name): [(full, p.name)] for p in block.inputs()})
            outs.update({(bid, p.name): (full, p.name) for p in block.outputs()})
            continue
        if depth >= MAX_NESTING:
            raise GraphError(f"node {full} ({block.dot_type}): compounds nest more than "
                             f"{MAX_NESTING} deep (does a body hold its own compound?)")
        block.check(flat.formats)
        body = block.body()
        info = CompoundInfo(full, block)
        exp.compounds[full] = info
        inner_ins, inner_outs = _inline(body.graph, full + "/", exp, depth + 1)
        info.children = [f"{full}/{b}" for b in body.graph.blocks]
        for name, targets in body.inputs.items():
            info.inputs[name] = [p for t in targets for p in inner_ins[t]]
            ins[(bid, name)] = info.inputs[name]
        for name, src in body.outputs.items():
            info.outputs[name] = inner_outs[src]
            outs[(bid, name)] = info.outputs[name]
    for e in g.edges:
        src = outs[(e.src, e.src_port.name)]
        sport = port_by_name(flat.blocks[src[0]], "out", src[1])
        for dst in ins[(e.dst, e.dst_port.name)]:
            dport = port_by_name(flat.blocks[dst[0]], "in", dst[1])
            flat.edges.append(Edge(src[0], sport, dst[0], dport, dict(e.attrs)))
    return ins, outs


__all__ = ["CompoundInfo", "Expansion", "expand", "has_compounds"]
