"""Small IR-building helpers shared by the Ember passes."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    VectorType,
    i1,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, SSAValue

from custard.ember import slc


class TopLevel:
    """Creates constants and constant streams once, at the top of a function."""

    def __init__(self, fn: FuncOp) -> None:
        self.fn = fn
        self.block = fn.body.block
        self.cache: dict[tuple, SSAValue] = {}
        for op in self.block.ops:  # reuse the constants and constant streams already there
            if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr) \
                    and isinstance(op.result.type, IndexType):
                self.cache.setdefault(("index", int(op.value.value.data)), op.result)
            elif isinstance(op, slc.ToStreamOp):
                self.cache.setdefault(("stream", op.value), op.stream)

    def _insert_first(self, op: Operation) -> None:
        first = self.block.first_op
        assert first is not None
        self.block.insert_op_before(op, first)

    def index(self, value: int) -> SSAValue:
        key = ("index", value)
        if key not in self.cache:
            op = arith.ConstantOp(IntegerAttr(value, IndexType()))
            op.results[0].name_hint = f"c{value}"
            self._insert_first(op)
            self.cache[key] = op.results[0]
        return self.cache[key]

    def splat(self, value: float | bool, vtype: VectorType) -> SSAValue:
        key = ("splat", str(vtype), value)
        if key not in self.cache:
            elem = vtype.get_element_type()
            data = [int(value)] if elem == i1 else [float(value)]
            attr = DenseIntOrFPElementsAttr.from_list(vtype, data)
            op = arith.ConstantOp(attr, vtype)
            self._insert_first(op)
            self.cache[key] = op.results[0]
        return self.cache[key]

    def stream(self, v: SSAValue) -> SSAValue:
        """``slc.to_stream v`` right after ``v``'s definition (a top-level value)."""
        key = ("stream", v)
        if key not in self.cache:
            op = slc.ToStreamOp(v)
            owner = v.owner
            if isinstance(owner, Block):
                self._insert_first(op)
            else:
                self.block.insert_op_after(op, owner)
            self.cache[key] = op.stream
        return self.cache[key]


def static_of(stream: SSAValue) -> SSAValue | None:
    """The top-level value a constant stream repeats (``slc.to_stream v``), else None."""
    owner = stream.owner
    if isinstance(owner, slc.ToStreamOp):
        return owner.value
    return None


def const_int(v: SSAValue | None) -> int | None:
    if v is None:
        return None
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return int(owner.value.value.data)
    return None
