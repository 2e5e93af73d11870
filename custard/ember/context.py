"""Reading and printing Ember MLIR: the xDSL context with our dialects, aliases, and one-line
errors with line and column."""

from __future__ import annotations

import re
from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, llvm, math, memref, scf, vector
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from custard.ember.dlc import DLC
from custard.ember.errors import EmberError
from custard.ember.nesting import check_nesting
from custard.ember.slc import SLC
from custard.ember.slcvec import SLCVEC

#: The paper's, README's and artifact's spellings of the same operations.
ALIASES = {
    "slc.mem_str": "slc.mem_stream",
    "slc.alu_str": "slc.alu_stream",
    "slc.to_val": "slc.from_stream",
    "slc.str_to_val": "slc.from_stream",
    "slcv.for": "slcvec.for",
    "slcvec.vec_for": "slcvec.for",
    "slcv.mem_str": "slcvec.mem_stream",
    "slcvec.vec_mem_str": "slcvec.mem_stream",
    "slcv.buf_str": "slcvec.buf_stream",
    "slcv.yield": "slcvec.yield",
    "dlc.push_op": "dlc.register_operand",
    "dlc.set_operand": "dlc.register_operand",
    "dlc.config_access": "dlc.configure_access_engine",
}


class EmberContext(Context):
    """An xDSL context that also resolves the alias spellings of :data:`ALIASES`."""

    def get_optional_op(self, name: str, *, dialect_stack: Sequence[str] = ()):
        return super().get_optional_op(ALIASES.get(name, name), dialect_stack=dialect_stack)


def context() -> EmberContext:
    ctx = EmberContext()
    for d in (builtin.Builtin, func.Func, arith.Arith, math.Math, memref.MemRef, scf.Scf, llvm.LLVM,
              vector.Vector, SLC, SLCVEC, DLC):
        ctx.load_dialect(d)
    return ctx


#: What Ember reads (for messages about inputs that are not that).
EXPECTED = ("Ember reads a func.func of scf/memref/arith loops over embedding tables (for an "
            "example: custard ember --op sls)")
_COMMENT = re.compile(r"//[^\n]*")
_LOC = re.compile(r"<unknown>:(\d+):(\d+)")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _parse_error_line(err: ParseError, path: str) -> str:
    loc = err.span.get_location()
    line, col = loc.line, loc.col
    return f"{path}:{line}:{col}: {_one_line(err.msg)}"


#: An operation's name where it starts (after its results, if any).
_OP_NAME = re.compile(r'\s*(?:%[^=]*=\s*)?"?([\w.$-]+)')


class UnknownOperationError(ParseError):
    """An operation name no loaded dialect (nor an alias) defines; ``span`` is the name's."""

    def __init__(self, span: Span, name: str) -> None:
        super().__init__(span, f"Operation {name} is not registered")
        self.name = name


class _LocatingParser(Parser):
    """A parser that remembers where each operation starts (``LINE:COL``) and where each value
    is first used, names an unknown operation at its name, and reports an operation whose
    assembly format refuses a type (``VerifyException`` while parsing) as a parse error at that
    place."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.locations: dict[int, str] = {}
        self.first_use: dict[str, Span] = {}

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        loc = span.get_location()
        try:
            op = super().parse_operation()
        except VerifyException as err:
            m = _OP_NAME.match(span.input.content, span.start)
            name = ALIASES.get(m.group(1), m.group(1)) if m else "operation"
            raise ParseError(span, f"invalid {name}: {_one_line(str(err))}") from None
        self.locations[id(op)] = f"{loc.line}:{loc.col}"
        return op

    def resolve_operand(self, operand, type):  # noqa: A002 - xDSL's parameter name
        if operand.operand_name not in self.ssa_values:
            self.first_use.setdefault(operand.operand_name, operand.span)
        return super().resolve_operand(operand, type)

    def _get_op_by_name(self, name: str):
        if self.ctx.get_optional_op(name, dialect_stack=self._parser_state.dialect_stack):
            return super()._get_op_by_name(name)
        # the name was the token just read: it ends before the current token
        here = self._current_token.span
        start = here.input.content.rfind(name, 0, here.start)
        start = start if start >= 0 else here.start
        raise UnknownOperationError(Span(start, start + len(name), here.input), name)

    def undefined(self) -> str | None:
        """The first value used but never defined, once the whole input is read (xDSL's
        check at the end of ``parse_module``)."""
        if self._current_token.kind is not MLIRTokenKind.EOF:
            return None
        names = list(self.forward_ssa_references)
        return names[0] if names else None


_UNDEFINED = re.compile(r"values used but not defined: \[(%[^\],]+)")
_UNREGISTERED = re.compile(r"Operation (\S+) is not registered")
_DIALECTS = "func/scf/memref/arith/math/vector/llvm/slc/slcvec/dlc"


def _line_col(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"{line}:{col}"


def parse_error_line(err: ParseError, text: str, path: str,
                     parser: _LocatingParser | None = None) -> str:
    """``FILE:LINE:COL: what`` for a parse error: from the structured information (an
    :class:`UnknownOperationError`'s name and span, the parser's first use of an undefined
    value), else, as a fallback, from xDSL's message text; else at the error's span."""
    if isinstance(err, UnknownOperationError):
        return (f"{path}:{_line_col(text, err.span.start)}: unknown operation '{err.name}' "
                f"(not in the {_DIALECTS} dialects)")
    name = parser.undefined() if parser is not None else None
    if name is not None and name in parser.first_use:  # type: ignore[union-attr]
        where = _line_col(text, parser.first_use[name].start)  # type: ignore[union-attr]
        return f"{path}:{where}: value %{name} is used but never defined"
    line = _parse_error_line(err, path)
    m, u = _UNDEFINED.search(err.msg), _UNREGISTERED.search(err.msg)
    if m:  # fallback: xDSL reports undefined values at the end of the input
        pos = re.search(re.escape(m.group(1)) + r"\b", text)
        if pos:
            line = (f"{path}:{_line_col(text, pos.start())}: value {m.group(1)} is used "
                    "but never defined")
    elif u:  # fallback: xDSL points after the operation's name
        start = text.rfind(u.group(1), 0, err.span.start + 1)
        if start >= 0:
            line = (f"{path}:{_line_col(text, start)}: unknown operation '{u.group(1)}' "
                    f"(not in the {_DIALECTS} dialects)")
    return line


def parse_module(text: str, path: str = "<input>") -> ModuleOp:
    """Parse and verify MLIR text; malformed text (or blocks nested deeper than
    :data:`~custard.ember.nesting.MAX_DEPTH`) raises :class:`EmberError` ``FILE:LINE:COL:
    what``."""
    if not _COMMENT.sub("", text).strip():
        raise EmberError(f"{path}: no MLIR operations, only comments; {EXPECTED}")
    check_nesting(text, path)
    ctx = context()
    parser = _LocatingParser(ctx, text, name=path)
    try:
        mod = parser.parse_module()
    except RecursionError:  # brackets (types, attributes) nested deeper than blocks can be
        raise EmberError(f"{path}: the MLIR nests brackets too deeply to read (Python's "
                         "recursion limit); flatten its types and attributes") from None
    except ParseError as err:
        raise EmberError(parse_error_line(err, text, path, parser)) from None
    except (DiagnosticException, ValueError, KeyError, AssertionError) as err:
        raise EmberError(f"{path}: cannot read the MLIR: {_one_line(str(err))}") from None
    verify(mod, path, parser.locations)
    return mod


def verify(mod: ModuleOp, path: str = "<input>",
           locations: dict[int, str] | None = None) -> None:
    """Verify every operation; the first failure raises ``FILE:LINE:COL: op: what``."""
    for op in mod.walk():
        try:
            op.verify(verify_nested_ops=False)
        except (VerifyException, ValueError) as err:
            msg = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            msg = msg.removeprefix(f"{op.name}: ")
            where = (locations or {}).get(id(op))
            at = f"{path}:{where}" if where else path
            raise EmberError(f"{at}: invalid {op.name}: {_one_line(msg)}") from None


def print_module(mod: Operation) -> str:
    import io

    out = io.StringIO()
    Printer(stream=out).print_op(mod)
    return out.getvalue() + "\n"
