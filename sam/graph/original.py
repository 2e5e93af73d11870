"""Blocks of the original SAM tools (github weiya711/sam), under their DOT type names, so the
graphs the original Custard wrote run here (documented compatibility; docs/timing-model.md).

* ``crdrepeat``: a repeater (Def. 3.4) of a coordinate stream instead of a reference stream:
  each outer coordinate once per repeat signal, with the signal's stop tokens.
* ``crdhold`` (the original's ``CrdHold``, "converts coordinate streams to point streams"):
  inputs the outer coordinate stream (comment = the outer variable) and the inner one (comment
  = the inner variable); outputs ``outer-<outer>``, the outer coordinate repeated once per inner
  coordinate (a point stream with the inner stream's stops), and ``inner-<inner>``, the inner
  stream unchanged. Built as a repeat-signal generator on the inner stream driving a
  ``crdrepeat`` of the outer one; the inner stream is passed through by a broadcast point.
  Timing: the held outer stream costs the generator's and the repeater's cycles (one token per
  cycle each, two cycles of latency); the inner stream costs nothing. With ``vals=true`` (the
  original's hand-written ``vec_sd_compression`` graphs) the inner stream is the value stream
  of the outer level: inputs ``crd:<outer>`` and ``val:<inner>``, outputs ``crd:outer-<outer>``
  and ``val:inner-<inner>``. A value stream has its coordinate stream's shape (one value per
  coordinate), so each coordinate is already held once per value: both streams pass through
  unchanged, at no cost.
* ``vectorreducer``: the original's black-boxed vector reducer, an order-1 ``spaccumulator``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sam.blocks.base import Port
from sam.blocks.reducers import SparseAccumulator
from sam.blocks.repeaters import Repeater
from sam.errors import GraphError
from sam.graph.compound import CompoundBlock

if TYPE_CHECKING:
    from sam.graph.builder import GraphBuilder


class CoordinateRepeater(Repeater):
    """Repeats coordinates over a repeat-signal stream (Def. 3.4); DOT type ``crdrepeat``."""

    dot_type = "crdrepeat"
    reads_root = False

    def inputs(self) -> list[Port]:
        return [Port("crd"), Port("repsig")]

    def outputs(self) -> list[Port]:
        return [Port("crd")]

    def label(self) -> str:
        return f"crdrepeat {self.attrs.get('index', '')}"


class CrdHold(CompoundBlock):
    """The original's coordinate hold (see module docstring); DOT type ``crdhold``."""

    dot_type = "crdhold"
    required_attrs = ("outer", "inner")

    def build(self, b: GraphBuilder) -> None:
        outer, inner = self.attrs["outer"], self.attrs["inner"]
        if self.attrs.get("vals", "false") == "true":
            crd, val = b.block("broadcast"), b.block("broadcast")
            val.declare_port("in", "val", "")
            b.export_input(f"crd:{outer}", crd, "crd")
            b.export_input(f"val:{inner}", val, "val")
            b.export_output(f"crd:outer-{outer}", (crd, "crd"))
            b.export_output(f"val:inner-{inner}", (val, "val"))
            return
        sig = b.block("repsiggen", index=inner)
        rep = b.block("crdrepeat", index=outer)
        through = b.block("broadcast")
        b.link((sig, "repsig"), rep, "repsig")
        b.export_input(f"crd:{outer}", rep, "crd")
        b.export_input(f"crd:{inner}", sig, "crd")
        b.export_input(f"crd:{inner}", through, "crd")
        b.export_output(f"crd:outer-{outer}", (rep, "crd"))
        b.export_output(f"crd:inner-{inner}", (through, "crd"))

    def label(self) -> str:
        return f"crdhold {self.attrs['outer']},{self.attrs['inner']}"


class VectorReducer(SparseAccumulator):
    """The original's black-boxed vector reducer (DOT type ``vectorreducer``, attribute
    ``index`` or ``accum_index``: the kept variable), an order-1 reducer (Def. 3.7) as its
    ``matmul_ikj_hand_BLACKBOX`` graphs wire it: its one coordinate input (whatever its edge
    comment) is the kept variable's stream. Same tokens and timing as ``spaccumulator``
    ``order=1``."""

    dot_type = "vectorreducer"
    required_attrs = ()

    def __init__(self, node_id, attrs=None, ignored: list[str] | None = None) -> None:
        attrs = dict(attrs or {})
        var = attrs.get("accum_index") or attrs.get("index")
        if not var:
            raise GraphError(f"node {node_id} (vectorreducer) lacks attribute index")
        attrs.setdefault("order", "1")
        attrs.setdefault("in0", var)
        super().__init__(node_id, attrs, ignored)

    def port_alias(self, direction: str, kind: str, comment: str) -> str:
        if direction == "in" and kind == "crd":
            return self.kept[0]
        return super().port_alias(direction, kind, comment)

    def label(self) -> str:
        return f"vectorreducer {self.kept[0]}"
