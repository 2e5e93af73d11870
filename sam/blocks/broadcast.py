"""The Custard schema's ``broadcast`` node: an invisible point where one stream fans out.

It has no behaviour of its own: the simulator connects its input stream straight to every
consumer (each gets its own copy of the stream, at no cost in cycles).
"""

from __future__ import annotations

from sam.blocks.base import Block, Port


class Broadcast(Block):
    """Fan-out point; its stream kind is that of the edges attached to it."""

    dot_type = "broadcast"
    family = "wire"

    def __init__(self, node_id, attrs=None, kind: str = "crd") -> None:
        super().__init__(node_id, attrs)
        self.kind = kind

    def declare_port(self, direction: str, kind: str, comment: str) -> None:
        self.kind = kind

    def inputs(self) -> list[Port]:
        return [Port(self.kind)]

    def outputs(self) -> list[Port]:
        return [Port(self.kind)]

    def label(self) -> str:
        return "broadcast"
