"""Parsing and printing helpers shared by the ``slc``, ``slcvec`` and ``dlc`` dialects.

The custom assembly formats follow the Ember artifact's files (``data/*.mlir``): operands are
written by name (``%x``) and their types are read from the definitions, so every operand must be
defined before its use, as in the artifact.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    irdl_custom_directive,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer


def parse_operand_list(parser: Parser, close: str) -> list[UnresolvedOperand]:
    """Operands ``%a, %b`` (unresolved) up to (and consuming) the punctuation ``close``."""
    values: list[UnresolvedOperand] = []
    if parser.parse_optional_punctuation(close) is not None:  # type: ignore[arg-type]
        return values
    while True:
        values.append(parser.parse_unresolved_operand())
        if parser.parse_optional_punctuation(",") is None:
            break
    parser.parse_punctuation(close)  # type: ignore[arg-type]
    return values


def resolve(parser: Parser, operands: Sequence[UnresolvedOperand],
            types: Sequence[Attribute]) -> list[SSAValue]:
    """Resolve operands with the types the syntax gives them (a mismatch is a parse error)."""
    if len(operands) != len(types):
        parser.raise_error(f"{len(operands)} operand(s) but {len(types)} type(s)")
    return [parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]


def parse_type_list(parser: Parser, close: str) -> list[Attribute]:
    """Types ``t1, t2`` up to (and consuming) the punctuation ``close``."""
    types: list[Attribute] = []
    if parser.parse_optional_punctuation(close) is not None:  # type: ignore[arg-type]
        return types
    while True:
        types.append(parser.parse_type())
        if parser.parse_optional_punctuation(",") is None:
            break
    parser.parse_punctuation(close)  # type: ignore[arg-type]
    return types


def parse_optional_types(parser: Parser) -> list[Attribute]:
    """Zero or more comma-separated types (after a ``:``, possibly none)."""
    types: list[Attribute] = []
    first = parser.parse_optional_type()
    if first is None:
        return types
    types.append(first)
    while parser.parse_optional_punctuation(",") is not None:
        types.append(parser.parse_type())
    return types


def print_values(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_list(values, printer.print_ssa_value)


def print_types(printer: Printer, types: Sequence[Attribute]) -> None:
    printer.print_list(types, printer.print_attribute)


def parse_type_n(parser: Parser, n: int) -> list[Attribute]:
    """``n`` types separated by commas (``n >= 1``)."""
    types = [parser.parse_type()]
    for _ in range(n - 1):
        parser.parse_punctuation(",")
        types.append(parser.parse_type())
    return types


class ResultTypeSyntax(IRDLOperation):
    """Base of the ops written ``name [{attrs}] : T``: no operands, one result of type ``T``."""

    assembly_format = "attr-dict `:` type($result)"


@irdl_custom_directive
class Word(CustomDirective):
    """``custom<Word>($prop)``: a string property written as a bare word (``add``), not as a
    quoted string."""

    word: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        self.word.set(state, StringAttr(parser.parse_identifier()))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        word = self.word.get(op)
        assert isinstance(word, StringAttr)
        printer.print_string(word.data)
