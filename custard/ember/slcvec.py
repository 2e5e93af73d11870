"""The ``slcvec`` dialect: vectorized SLC (the paper's SLCV, Ember Sec. 7.1-7.2, Fig. 15b-d).

``slcvec.for<V>`` gives a vector induction variable and a lane mask for the loop boundary;
``slcvec.mem_stream`` loads a vector per step; ``slcvec.buf_stream``/``to_buffer``/
``from_buffer`` are the bufferization of Sec. 7.2; ``slcvec.mask`` computes, on the core, the
mask of a loop over a buffer. Syntax as in the artifact's ``eb_slc_O3.mlir``.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, VectorType, i64
from xdsl.ir import Data, Dialect
from xdsl.irdl import (
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
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from custard.ember.slc import (
    MemStreamBase,
    StreamType,
    YieldBase,
    parse_init_args,
    print_init_args,
    verify_loop_yield,
)
from custard.ember.syntax import (
    ResultTypeSyntax,
    resolve,
)

LOOP_CONFIGS = ("scalar", "bcast", "vector")


@irdl_attr_definition
class LoopConfigAttr(Data[str]):
    """``#slcvec.loop_config<bcast>``: how a vector loop's lanes are formed (README: scalar,
    bcast, vector)."""

    name = "slcvec.loop_config"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> str:
        # pretty form #slcvec.loop_config<bcast>, or the artifact's #slcvec<loop_config bcast>
        if parser.parse_optional_punctuation("<") is None:
            return parser.parse_identifier()
        kind = parser.parse_identifier()
        parser.parse_punctuation(">")
        return kind

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data}>")


@irdl_op_definition
class VectorizeForOp(IRDLOperation):
    """``slcvec.vectorize_for``: marks the enclosing ``slc.for`` as a vectorization candidate."""

    name = "slcvec.vectorize_for"

    assembly_format = "attr-dict"


@irdl_op_definition
class MemStreamOp(MemStreamBase):
    """``slcvec.mem_stream %m[%i, %v] [mask %k]``: loads a vector per step; a vector index
    gives the lanes; masked-off lanes (or, without a mask, lanes past the memref's bound) are 0
    (the paper's ``slcv.mem_str``)."""

    name = "slcvec.mem_stream"

    def verify_(self) -> None:
        super().verify_()
        t = self.result.type
        assert isinstance(t, StreamType)
        if not isinstance(t.element, VectorType):
            raise VerifyException("slcvec.mem_stream: the result must be a stream of vectors")


@irdl_op_definition
class BufStreamOp(ResultTypeSyntax):
    """``slcvec.buf_stream : !slc.stream<memref<?xT>>``: a buffer stream (Sec. 7.2)."""

    name = "slcvec.buf_stream"
    result = result_def(StreamType)


@irdl_op_definition
class ForOp(IRDLOperation):
    """``slcvec.for<V>(%iv xx %mask) = %lb to %ub step %s mask %m : (..) -> (..)``: a loop
    of ``V`` lanes per step (the paper's ``slcv.for``)."""

    name = "slcvec.for"
    lb = operand_def()
    ub = operand_def()
    step = operand_def()
    in_mask = operand_def()
    inits = var_operand_def(IndexType)
    res = var_result_def(IndexType)
    body = region_def("single_block")
    traits = traits_def(NoTerminator())
    vector_length = prop_def(IntegerAttr, prop_name="vectorLength")
    irdl_options = ()

    @property
    def vlen(self) -> int:
        return self.vector_length.value.data

    def verify_(self) -> None:
        if self.vlen < 1:
            raise VerifyException("slcvec.for: the vector length must be at least 1")
        verify_loop_yield(self, self.body, 2, self.inits)

    # Hand-written: the body's arguments are named in the syntax (``(%iv xx %mask)``), as in
    # :class:`custard.ember.slc.ForOp`.
    @classmethod
    def parse(cls, parser: Parser) -> ForOp:
        parser.parse_punctuation("<")
        vlen = parser.parse_integer()
        parser.parse_punctuation(">")
        parser.parse_punctuation("(")
        iv = parser.parse_argument(expect_type=False)
        parser.parse_keyword("xx")
        mk = parser.parse_argument(expect_type=False)
        parser.parse_punctuation(")")
        parser.parse_punctuation("=")
        bounds = [parser.parse_unresolved_operand()]
        parser.parse_keyword("to")
        bounds.append(parser.parse_unresolved_operand())
        parser.parse_keyword("step")
        bounds.append(parser.parse_unresolved_operand())
        parser.parse_keyword("mask")
        in_mask_u = parser.parse_unresolved_operand()
        names, inits, types = parse_init_args(parser)
        parser.parse_punctuation(":")
        parser.parse_punctuation("(")
        bound_t = parser.parse_type()
        parser.parse_keyword("xx")
        mask_t = parser.parse_type()
        parser.parse_punctuation(")")
        lb, ub, step = resolve(parser, bounds, [bound_t] * 3)
        in_mask = parser.resolve_operand(in_mask_u, mask_t)
        parser.parse_punctuation("->")
        parser.parse_punctuation("(")
        iv_t = parser.parse_type()
        parser.parse_keyword("xx")
        mk_t = parser.parse_type()
        parser.parse_punctuation(")")
        args = [iv.resolve(iv_t), mk.resolve(mk_t)]
        args += [n.resolve(t) for n, t in zip(names, types, strict=True)]
        body = parser.parse_region(args)
        attrs = parser.parse_optional_attr_dict()
        op = cls.build(operands=[lb, ub, step, in_mask, inits], result_types=[types],
                       regions=[body], properties={"vectorLength": IntegerAttr(vlen, i64)})
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        iv, mk, *args = self.body.block.args
        printer.print_string(f"<{self.vlen}>(")
        printer.print_ssa_value(iv)
        printer.print_string(" xx ")
        printer.print_ssa_value(mk)
        printer.print_string(") = ")
        printer.print_ssa_value(self.lb)
        printer.print_string(" to ")
        printer.print_ssa_value(self.ub)
        printer.print_string(" step ")
        printer.print_ssa_value(self.step)
        printer.print_string(" mask ")
        printer.print_ssa_value(self.in_mask)
        print_init_args(printer, args, self.inits)
        printer.print_string(f" : ({self.lb.type} xx {self.in_mask.type}) -> "
                             f"({iv.type} xx {mk.type}) ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class ToBufferOp(IRDLOperation):
    """``slcvec.to_buffer %v, %buf[%iv] : T -> B[I]``: pushes a vector into a buffer stream."""

    name = "slcvec.to_buffer"
    value = operand_def(StreamType)
    buffer = operand_def(StreamType)
    index = operand_def(StreamType)

    assembly_format = ("$value `,` $buffer `[` $index `]` attr-dict `:` type($value) `->` "
                       "type($buffer) `[` type($index) `]`")


@irdl_op_definition
class MaskOp(IRDLOperation):
    """``slcvec.mask %i %lb %ub %step : vector<Vxi1>``: lane ``l`` is on when
    ``%i + l * %step`` lies in ``[%lb, %ub)``."""

    name = "slcvec.mask"
    iv = operand_def(IndexType)
    lb = operand_def(IndexType)
    ub = operand_def(IndexType)
    step = operand_def(IndexType)
    result = result_def(VectorType)

    assembly_format = "$iv $lb $ub $step attr-dict `:` type($result)"


@irdl_op_definition
class FromBufferOp(IRDLOperation):
    """``slcvec.from_buffer %buf[%i] : memref<?xT>[index] -> vector<VxT>``: the ``V``
    elements of a buffer from element ``%i`` on (lanes past its end are 0)."""

    name = "slcvec.from_buffer"
    buffer = operand_def(MemRefType)
    index = operand_def(IndexType)
    result = result_def(VectorType)

    assembly_format = ("$buffer `[` $index `]` attr-dict `:` type($buffer) `[` type($index) `]` "
                       "`->` type($result)")


@irdl_op_definition
class YieldOp(YieldBase):
    """``slcvec.yield``: ends an ``slcvec.for`` body."""

    name = "slcvec.yield"


SLCVEC = Dialect("slcvec", [VectorizeForOp, MemStreamOp, BufStreamOp, ForOp, ToBufferOp, MaskOp,
                            FromBufferOp, YieldOp], [LoopConfigAttr])
