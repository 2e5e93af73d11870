"""The ``slc`` dialect: Ember's Structured Lookup-Compute IR (Ember paper Sec. 6.1, Fig. 12).

Streams (``!slc.stream<T>``) live on the access unit; ``slc.callback`` regions hold the code of
the execute unit and read streams with ``slc.from_stream`` (the paper's ``to_val``). Syntax as
in the artifact's ``eb_slc_O0.mlir``; the paper's and README's spellings are aliases
(:data:`custard.ember.context.ALIASES`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType, StringAttr, VectorType, i1
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from custard.ember.syntax import (
    Word,
    parse_operand_list,
    parse_type_list,
    print_types,
    print_values,
    resolve,
)

ALU_OPS = ("add", "sub", "mul", "div", "rem", "and", "or", "shl", "shr")


@irdl_attr_definition
class StreamType(ParametrizedAttribute, TypeAttribute):
    """``!slc.stream<T>``: a stream of ``T`` values produced by the access unit."""

    name = "slc.stream"
    element: Attribute


def _check_index_or_stream(op: IRDLOperation, what: str, v: SSAValue) -> None:
    t = v.type
    if isinstance(t, StreamType):
        t = t.element
        if isinstance(t, IntegerType) and t.width.data > 1:
            return  # torch-style i64 indices: a stream of an index_cast is the stream
    if not isinstance(t, IndexType):
        raise VerifyException(f"{op.name}: {what} must be an index or a stream of index, "
                              f"got {v.type}")


@irdl_op_definition
class ToStreamOp(IRDLOperation):
    """``slc.to_stream %v : T to !slc.stream<T>``: a constant (repeated) stream."""

    name = "slc.to_stream"
    value = operand_def()
    stream = result_def(StreamType)

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value], result_types=[StreamType(value.type)])

    def verify_(self) -> None:
        assert isinstance(self.stream.type, StreamType)
        if self.stream.type.element != self.value.type:
            raise VerifyException("slc.to_stream: the stream's element type must be the "
                                  f"value's type {self.value.type}")

    assembly_format = "$value attr-dict `:` type($value) `to` type($stream)"


@irdl_op_definition
class FromStreamOp(IRDLOperation):
    """``slc.from_stream %s : !slc.stream<T> to T``: a callback reads a stream's head
    (the paper's ``to_val``, the README's ``str_to_val``)."""

    name = "slc.from_stream"
    stream = operand_def(StreamType)
    value = result_def()

    def __init__(self, stream: SSAValue, result_type: Attribute | None = None):
        t = result_type
        if t is None:
            assert isinstance(stream.type, StreamType)
            t = stream.type.element
        super().__init__(operands=[stream], result_types=[t])

    assembly_format = "$stream attr-dict `:` type($stream) `to` type($value)"


class MemStreamBase(IRDLOperation):
    """``%m[%i, ...] [mask %k] : memref<..>[types] into !slc.stream<T>``."""

    memref = operand_def(MemRefType)
    indices = var_operand_def()
    mask = var_operand_def()
    result = result_def(StreamType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_(self) -> None:
        assert isinstance(self.memref.type, MemRefType)
        rank = len(self.memref.type.get_shape())
        if len(self.indices) != rank:
            raise VerifyException(f"{self.name}: {len(self.indices)} indices for a rank-{rank} "
                                  "memref (one index per dimension)")

    # Hand-written: the mask's type is not written but follows from the result (one i1 per
    # lane), which an assembly format cannot infer.
    @classmethod
    def parse(cls, parser: Parser):
        memref = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        indices = parse_operand_list(parser, "]")
        mask = []
        if parser.parse_optional_keyword("mask"):
            mask = [parser.parse_unresolved_operand()]
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        mt = parser.parse_type()
        parser.parse_punctuation("[")
        types = parse_type_list(parser, "]")
        parser.parse_keyword("into")
        t = parser.parse_type()
        mask_t = []
        if mask:  # the mask's type follows from the result: one i1 per lane
            elem = t.element if isinstance(t, StreamType) else t
            lanes = elem.get_shape()[0] if isinstance(elem, VectorType) else 1
            mask_t = [StreamType(VectorType(i1, [lanes]))]
        op = cls.build(operands=[parser.resolve_operand(memref, mt),
                                 resolve(parser, indices, types), resolve(parser, mask, mask_t)],
                       result_types=[t])
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.memref)
        printer.print_string("[")
        print_values(printer, self.indices)
        printer.print_string("]")
        if self.mask:
            printer.print_string(" mask ")
            printer.print_ssa_value(self.mask[0])
        printer.print_op_attributes(self.attributes)
        printer.print_string(f" : {self.memref.type}[")
        print_types(printer, [v.type for v in self.indices])
        printer.print_string("] into ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class MemStreamOp(MemStreamBase):
    """``slc.mem_stream``: loads ``memref[indices]`` into a stream (the paper's ``mem_str``)."""

    name = "slc.mem_stream"

    def verify_(self) -> None:
        super().verify_()
        for v in self.indices:
            _check_index_or_stream(self, "an index", v)


@irdl_op_definition
class AluStreamOp(IRDLOperation):
    """``slc.alu_stream<add> %a, %b : Ta, Tb -> !slc.stream<index>``: integer arithmetic on
    index streams or values (the paper's ``alu_str``)."""

    name = "slc.alu_stream"
    lhs = operand_def()
    rhs = operand_def()
    result = result_def(StreamType)
    alu_op = prop_def(StringAttr, prop_name="aluOp")

    def __init__(self, alu: str, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs], result_types=[StreamType(IndexType())],
                         properties={"aluOp": StringAttr(alu)})

    def verify_(self) -> None:
        if self.alu_op.data not in ALU_OPS:
            raise VerifyException(f"slc.alu_stream: unknown operation '{self.alu_op.data}' "
                                  f"(one of {', '.join(ALU_OPS)})")
        _check_index_or_stream(self, "the left operand", self.lhs)
        _check_index_or_stream(self, "the right operand", self.rhs)

    custom_directives = (Word,)
    # ``< add>``: the artifact's space after ``<``
    assembly_format = ("`<` ` ` `` custom<Word>($aluOp) `>` $lhs `,` $rhs attr-dict `:` "
                       "type($lhs) `,` type($rhs) `->` type($result)")


def parse_init_args(parser: Parser) -> tuple[list[Parser.UnresolvedArgument], list[SSAValue],
                                             list[Attribute]]:
    """``init_args(%a = %v, ...) -> (types)`` (optional; also ``iter_args``)."""
    names: list[Parser.UnresolvedArgument] = []
    values: list[UnresolvedOperand] = []
    types: list[Attribute] = []
    if parser.parse_optional_keyword("init_args") or parser.parse_optional_keyword("iter_args"):
        parser.parse_punctuation("(")
        while True:
            names.append(parser.parse_argument(expect_type=False))
            parser.parse_punctuation("=")
            values.append(parser.parse_unresolved_operand())
            if parser.parse_optional_punctuation(",") is None:
                break
        parser.parse_punctuation(")")
        parser.parse_punctuation("->")
        parser.parse_punctuation("(")
        types = parse_type_list(parser, ")")
    return names, resolve(parser, values, types), types


def print_init_args(printer: Printer, args: Sequence[SSAValue], inits: Sequence[SSAValue]) -> None:
    if not inits:
        return
    printer.print_string(" init_args(")
    printer.print_list(zip(args, inits, strict=True),
                       lambda p: (printer.print_ssa_value(p[0]), printer.print_string(" = "),
                                  printer.print_ssa_value(p[1])))
    printer.print_string(") -> (")
    print_types(printer, [v.type for v in inits])
    printer.print_string(")")


def verify_loop_yield(op: IRDLOperation, body: Region, n_iv: int,
                      inits: Sequence[SSAValue]) -> None:
    block = body.block
    if len(block.args) != n_iv + len(inits):
        raise VerifyException(f"{op.name}: the body needs {n_iv} induction variable(s) and one "
                              f"argument per init_args value ({len(inits)})")
    last = block.last_op
    if inits and (last is None or last.name not in ("slc.yield", "slcvec.yield")
                  or len(last.operands) != len(inits)):
        raise VerifyException(f"{op.name}: the body must end with a yield of {len(inits)} "
                              "value(s), one per init_args value")


@irdl_op_definition
class ForOp(IRDLOperation):
    """``slc.for %iv = %lb to %ub step %s [init_args(..) -> (..)] : T -> !slc.stream<index>``:
    a loop run by the access unit; its induction variable is a stream (paper Fig. 12 ``FOR``)."""

    name = "slc.for"
    lb = operand_def()
    ub = operand_def()
    step = operand_def()
    inits = var_operand_def()  # index counters (O3) or carried values (iter_args)
    res = var_result_def()
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    def verify_(self) -> None:
        for what, v in (("the lower bound", self.lb), ("the upper bound", self.ub),
                        ("the step", self.step)):
            _check_index_or_stream(self, what, v)
        verify_loop_yield(self, self.body, 1, self.inits)

    # Hand-written: the body's arguments are named in the syntax (``%iv = ...``,
    # ``init_args(%a = %v)``); an assembly format cannot name a region's arguments.
    @classmethod
    def parse(cls, parser: Parser) -> ForOp:
        iv = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        bounds = [parser.parse_unresolved_operand()]
        parser.parse_keyword("to")
        bounds.append(parser.parse_unresolved_operand())
        parser.parse_keyword("step")
        bounds.append(parser.parse_unresolved_operand())
        names, inits, types = parse_init_args(parser)
        iv_type: Attribute = StreamType(IndexType())
        bound_type: Attribute = iv_type
        if parser.parse_optional_punctuation(":") is not None:
            bound_type = parser.parse_type()
            parser.parse_punctuation("->")
            iv_type = parser.parse_type()
        lb, ub, step = resolve(parser, bounds, [bound_type] * 3)
        args = [iv.resolve(iv_type)] + [n.resolve(t) for n, t in zip(names, types, strict=True)]
        body = parser.parse_region(args)
        attrs = parser.parse_optional_attr_dict()
        op = cls.build(operands=[lb, ub, step, inits], result_types=[types], regions=[body])
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        iv, *args = self.body.block.args
        printer.print_string(" ")
        printer.print_ssa_value(iv)
        printer.print_string(" = ")
        printer.print_ssa_value(self.lb)
        printer.print_string(" to ")
        printer.print_ssa_value(self.ub)
        printer.print_string(" step ")
        printer.print_ssa_value(self.step)
        print_init_args(printer, args, self.inits)
        printer.print_string(f" : {self.lb.type} -> {iv.type} ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class CallbackOp(IRDLOperation):
    """``slc.callback { ... } : types``: code for the execute unit, run when the access unit
    reaches the callback's place in the loop nest (paper Fig. 12 ``CALL``)."""

    name = "slc.callback"
    res = var_result_def()  # core values: counters, carried values, outer-callback values
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    # ``} : `` then the types: the artifact keeps the space after ``:`` when there are none
    assembly_format = "$body `:` ` ` `` type($res) attr-dict"

    def verify_(self) -> None:
        last = self.body.block.last_op
        if self.res and last is not None and last.name == "slc.yield" and \
                len(last.operands) not in (0, len(self.res)):
            raise VerifyException("slc.callback: its slc.yield must give one value per result")


class YieldBase(IRDLOperation):
    values = var_operand_def()

    assembly_format = "($values^ `:` type($values))? attr-dict"


@irdl_op_definition
class YieldOp(YieldBase):
    """``slc.yield [%v : T]``: ends an ``slc.for`` or ``slc.callback`` body."""

    name = "slc.yield"


SLC = Dialect("slc", [ToStreamOp, FromStreamOp, MemStreamOp, AluStreamOp, ForOp, CallbackOp,
                      YieldOp], [StreamType])
