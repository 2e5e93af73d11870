"""The ``dlc`` dialect: Ember's Decoupled Lookup-Compute IR (Ember paper Sec. 4, Fig. 10c-e).

``dlc.configure_access_engine`` holds the access unit's dataflow code: traversal units
(``dlc.new_tu``), streams, and the marshaling of operands (``dlc.register_operand``, the paper's
``push_op``) and control tokens (``dlc.register_callback``) on traversal events.
``dlc.compute_loop`` holds the execute unit's code: one ``case`` per callback id, run for each
control token popped; ``dlc.pop_operand`` pops the data queue.

Events of a traversal unit ``T`` (the artifact's convention): ``ite`` fires at each iteration
of ``T`` before the traversal units nested in it run; ``end`` fires at each iteration of ``T``
after them (so the end of a nested fiber); ``beg`` fires once before ``T``'s first iteration.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, StringAttr, i64
from xdsl.ir import Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from custard.ember.slc import StreamType
from custard.ember.syntax import (
    ResultTypeSyntax,
    parse_optional_types,
    print_types,
    resolve,
)

EVENTS = ("beg", "ite", "end")


@irdl_attr_definition
class TuType(ParametrizedAttribute, TypeAttribute):
    """``!dlc.tu``: a traversal unit."""

    name = "dlc.tu"


@irdl_op_definition
class ConfigureAccessEngineOp(IRDLOperation):
    """``dlc.configure_access_engine { ... } :``: the access unit's code (``config_access``)."""

    name = "dlc.configure_access_engine"
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    # Hand-written: after the artifact's ``} :`` this reads result types and drops them (the op
    # has none); an assembly format cannot read what it does not keep.
    @classmethod
    def parse(cls, parser: Parser) -> ConfigureAccessEngineOp:
        body = parser.parse_region()
        parser.parse_punctuation(":")
        parse_optional_types(parser)
        op = cls.build(regions=[body])
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_region(self.body)
        printer.print_string(" : ")
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class NewTuOp(IRDLOperation):
    """``dlc.new_tu %lb to %ub step %s [{vlen = V}] : T into !dlc.tu``: a traversal unit
    iterating ``[lb, ub)`` (the paper's ``loop_tr``); with ``vlen`` it gives ``V`` lanes per
    step. Its ``name`` attribute (e.g. ``"e"``) names its control tokens (``ei``, ``ee``)."""

    name = "dlc.new_tu"
    T: ClassVar = VarConstraint("T", AnyAttr())  # the bounds and the step share one type
    lb = operand_def(T)
    ub = operand_def(T)
    step = operand_def(T)
    tu = result_def(TuType)

    assembly_format = "$lb `to` $ub `step` $step attr-dict `:` type($lb) `into` type($tu)"

    @property
    def vlen(self) -> int:
        a = self.attributes.get("vlen")
        return a.value.data if isinstance(a, IntegerAttr) else 0


class _TuValueOp(IRDLOperation):
    tu = operand_def(TuType)
    result = result_def(StreamType)

    assembly_format = "$tu attr-dict `:` type($result)"


@irdl_op_definition
class GetIndVarOp(_TuValueOp):
    """``dlc.get_ind_var %tu : !slc.stream<index>``: a traversal unit's induction variable."""

    name = "dlc.get_ind_var"


@irdl_op_definition
class GetMaskOp(_TuValueOp):
    """``dlc.get_mask %tu : !slc.stream<vector<Vxi1>>``: a vector traversal unit's lane mask."""

    name = "dlc.get_mask"


@irdl_custom_directive
class Event(CustomDirective):
    """``custom<Event>($event)``: a traversal event written as a bare word (``ite``), one of
    :data:`EVENTS`, kept as a string property."""

    event: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        ev = parser.parse_identifier()
        if ev not in EVENTS:
            parser.raise_error(f"unknown traversal event '{ev}' (one of beg, ite, end)")
        self.event.set(state, StringAttr(ev))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        word = self.event.get(op)
        assert isinstance(word, StringAttr)
        printer.print_string(word.data)


@irdl_op_definition
class RegisterOperandOp(IRDLOperation):
    """``dlc.register_operand %tu, ite, %s : !dlc.tu, T``: push the head of ``%s`` into the
    data queue on the event (the paper's ``push_op``, the README's ``set_operand``)."""

    name = "dlc.register_operand"
    tu = operand_def(TuType)
    value = operand_def(StreamType)
    event = prop_def(StringAttr)

    def verify_(self) -> None:
        if self.event.data not in EVENTS:
            raise VerifyException(f"dlc.register_operand: unknown event '{self.event.data}'")

    custom_directives = (Event,)
    # the artifact's two spaces before the event
    assembly_format = ("$tu `,` ` ` custom<Event>($event) `,` $value attr-dict `:` type($tu) `,` "
                       "type($value)")


@irdl_op_definition
class RegisterCallbackOp(IRDLOperation):
    """``dlc.register_callback %tu, end {id = N} : !dlc.tu``: push control token ``N`` into
    the control queue on the event (the paper's ``callback(tu, event)``)."""

    name = "dlc.register_callback"
    tu = operand_def(TuType)
    event = prop_def(StringAttr)

    @property
    def cb_id(self) -> int:
        a = self.attributes.get("id")
        if not isinstance(a, IntegerAttr):
            raise VerifyException("dlc.register_callback: needs an integer 'id' attribute")
        return a.value.data

    @property
    def token(self) -> str:
        a = self.attributes.get("token")
        return a.data if isinstance(a, StringAttr) else str(self.cb_id)

    def verify_(self) -> None:
        _ = self.cb_id
        if self.event.data not in EVENTS:
            raise VerifyException(f"dlc.register_callback: unknown event '{self.event.data}'")

    custom_directives = (Event,)
    assembly_format = "$tu `,` ` ` custom<Event>($event) attr-dict `:` type($tu)"


@irdl_op_definition
class ComputeLoopOp(IRDLOperation):
    """``dlc.compute_loop [init(%v)] -> T case N { ... } ...``: the execute unit pops control
    tokens until ``done`` and runs the case of each; ``T`` are core-side variables
    (``dlc.get_var``/``dlc.increment_var``), initially the ``init`` values (else 0)."""

    name = "dlc.compute_loop"
    inits = var_operand_def()
    res = var_result_def()
    cases = var_region_def("single_block")
    traits = traits_def(NoTerminator())
    traits = traits_def(NoTerminator())
    case_ids = prop_def(DenseArrayBase.constr(i64), prop_name="cases")

    @property
    def ids(self) -> list[int]:
        return [int(x) for x in self.case_ids.get_values()]

    def verify_(self) -> None:
        if len(self.ids) != len(self.cases):
            raise VerifyException("dlc.compute_loop: one case id per case region")
        if len(set(self.ids)) != len(self.ids):
            raise VerifyException("dlc.compute_loop: case ids must be distinct")

    # Hand-written: each region follows its ``case N`` on a line of its own, the ids kept as a
    # dense-array property; an assembly format has no list of (keyword, integer, region).
    @classmethod
    def parse(cls, parser: Parser) -> ComputeLoopOp:
        unres = []
        if parser.parse_optional_keyword("init"):
            parser.parse_punctuation("(")
            unres = [parser.parse_unresolved_operand()]
            while parser.parse_optional_punctuation(",") is not None:
                unres.append(parser.parse_unresolved_operand())
            parser.parse_punctuation(")")
        types = []
        if parser.parse_optional_punctuation("->") is not None:
            types = parse_optional_types(parser)
        # each variable's type is its result's (index when the results are not written)
        inits = resolve(parser, unres, list(types) if len(types) == len(unres)
                        else [IndexType()] * len(unres))
        ids: list[int] = []
        regions = []
        while parser.parse_optional_keyword("case"):
            ids.append(parser.parse_integer())
            regions.append(parser.parse_region())
        op = cls.build(operands=[inits], result_types=[types], regions=[regions],
                       properties={"cases": DenseArrayBase.from_list(i64, ids)})
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        if self.inits:
            printer.print_string(" init(")
            printer.print_list(self.inits, printer.print_ssa_value)
            printer.print_string(")")
        if self.res:
            printer.print_string(" -> ")
            print_types(printer, [r.type for r in self.res])
        for cid, region in zip(self.ids, self.cases, strict=True):
            printer._print_new_line()  # noqa: SLF001 - the artifact puts each case on a line
            printer.print_string(f"case {cid} ")
            printer.print_region(region)
        printer.print_op_attributes(self.attributes)


class _NoOperandOp(IRDLOperation):
    assembly_format = "attr-dict"


@irdl_op_definition
class PopOperandOp(ResultTypeSyntax):
    """``dlc.pop_operand : T``: pops the data queue (a vector type pops one vector entry)."""

    name = "dlc.pop_operand"
    result = result_def()


@irdl_op_definition
class GetVarOp(ResultTypeSyntax):
    """``dlc.get_var [{var = k}] : T``: reads core-side variable ``k`` (default 0)."""

    name = "dlc.get_var"
    result = result_def()


@irdl_op_definition
class IncrementVarOp(IRDLOperation):
    """``dlc.increment_var [%step] [{var = k}]``: adds ``%step`` (default 1) to variable
    ``k``."""

    name = "dlc.increment_var"
    step = opt_operand_def(IndexType)

    assembly_format = "($step^)? attr-dict"


@irdl_op_definition
class SetVarOp(IRDLOperation):
    """``dlc.set_var %v {var = k} : T``: sets core-side variable ``k`` to ``%v`` (a carried
    ``iter_args`` value, or a value one callback computes for later ones)."""

    name = "dlc.set_var"
    value = operand_def()

    assembly_format = "$value attr-dict `:` type($value)"


@irdl_op_definition
class YieldOp(_NoOperandOp):
    """``dlc.yield``: ends a compute-loop case."""

    name = "dlc.yield"

DLC = Dialect("dlc", [ConfigureAccessEngineOp, NewTuOp, GetIndVarOp, GetMaskOp,
                      RegisterOperandOp, RegisterCallbackOp, ComputeLoopOp, PopOperandOp,
                      GetVarOp, IncrementVarOp, SetVarOp, YieldOp], [TuType])
