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

from custard.ember.dlc import DLC
from custard.ember.errors import EmberError
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


_LOC = re.compile(r"<unknown>:(\d+):(\d+)")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _parse_error_line(err: ParseError, path: str) -> str:
    loc = err.span.get_location()
    line, col = loc.line, loc.col
    return f"{path}:{line}:{col}: {_one_line(err.msg)}"


def parse_module(text: str, path: str = "<input>") -> ModuleOp:
    """Parse and verify MLIR text; malformed text raises :class:`EmberError`
    ``FILE:LINE:COL: what``."""
    ctx = context()
    try:
        mod = Parser(ctx, text, name=path).parse_module()
    except ParseError as err:
        raise EmberError(_parse_error_line(err, path)) from None
    except (DiagnosticException, ValueError, KeyError, AssertionError) as err:
        raise EmberError(f"{path}: cannot read the MLIR: {_one_line(str(err))}") from None
    verify(mod, path, text)
    return mod


def op_location(op: Operation, text: str | None) -> str:
    """``LINE:COL`` of ``op`` in ``text`` (found by its printed result name), else ``?``."""
    loc = getattr(op, "_ember_loc", None)
    return loc or "?"


def verify(mod: ModuleOp, path: str = "<input>", text: str | None = None) -> None:
    try:
        mod.verify()
    except VerifyException as err:
        msg = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise EmberError(f"{path}: invalid IR: {_one_line(msg)}") from None


def print_module(mod: Operation) -> str:
    import io

    out = io.StringIO()
    Printer(stream=out).print_op(mod)
    return out.getvalue() + "\n"
