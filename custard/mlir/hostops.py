"""The ops of the host interpreter's driver subset (:mod:`custard.mlir.interp`), one handler
each: ``handler(interp, op, scope) -> result values``, registered in :data:`HANDLERS` by
:func:`handles`. This module holds the registry, the operand helpers and the scalar ops
(``arith``, ``math``, ``scf``, ``func.call``); :mod:`custard.mlir.hosttensors` the tensor,
memref, vector and linalg ops, :mod:`custard.mlir.hostsparse` the ``sparse_tensor`` ops.

Scalar arithmetic works on numpy scalars of the element type, so integer ops wrap at their
width as MLIR's do; the same handlers work on arrays, which lets ``tensor.generate`` evaluate
its region once on index grids instead of once per element when the region is element-wise.
Integer division and remainder truncate toward zero (``divsi``/``remsi``), ``floordivsi`` and
``ceildivsi`` round as named.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Protocol, TextIO

import numpy as np

from custard.mlir.encoding import TensorType
from custard.mlir.syntax import Loc, Module, Op, Region, error
from custard.mlir.values import (
    HostType,
    Scope,
    SparseConst,
    dense_constant,
    dense_of,
    scalar_value,
    sparse_constant,
)


class Interpreter(Protocol):
    """What the handlers use of :class:`custard.mlir.interp.Interpreter`."""

    module: Module
    out: TextIO

    def type(self, text: str, loc: Loc) -> HostType: ...

    def tensor_type(self, text: str, loc: Loc) -> TensorType: ...

    def call(self, name: str, args: Sequence[object], loc: Loc) -> list[object]: ...

    def run_region(self, region: Region, args: Sequence[object], parent: Scope,
                   implicit: Sequence[str] = ()) -> list[object]: ...

    def exec(self, op: Op, scope: Scope) -> None: ...

    def run_linalg(self, op: Op, scope: Scope) -> list[object]: ...


Handler = Callable[[Interpreter, Op, Scope], "list[object] | None"]
HANDLERS: dict[str, Handler] = {}
TERMINATORS = {"return", "func.return", "scf.yield", "tensor.yield", "linalg.yield",
               "sparse_tensor.yield", "scf.condition"}


def handles(*names: str) -> Callable[[Handler], Handler]:
    def wrap(fn: Handler) -> Handler:
        for n in names:
            HANDLERS[n] = fn
        return fn
    return wrap


# ------------------------------------------------------------------------------- helpers
def operand_values(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    return [scope.get(v, op.loc) for v in op.values()]


def type_after_to(op: Op) -> str | None:
    """The type after ``to`` (``index_cast %x : index to i32``)."""
    toks = op.after("to")
    return toks[0].text if toks else None


def result_type(interp: Interpreter, op: Op) -> HostType:
    text = type_after_to(op) or (op.types() or [""])[-1]
    if not text:
        raise error(op.loc, f"{op.name}: cannot find its result type")
    return interp.type(text, op.loc)


def cast_to(value: object, dtype: np.dtype) -> object:
    arr = np.asarray(value)
    if dtype.kind in "iu" and arr.dtype.kind == "f":
        arr = np.trunc(np.nan_to_num(arr)).astype(np.int64)
    if dtype.kind in "iu" and arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    out = arr.astype(dtype)
    return out[()] if out.ndim == 0 else out


def _unsigned(x: object, bits: int) -> object:
    return np.asarray(x).astype(np.int64) & ((1 << bits) - 1) if bits < 64 else \
        np.asarray(x).astype(np.uint64)


def dense(v: object, op: Op) -> np.ndarray:
    """A tensor/memref operand as a dense array."""
    return dense_of(v, op.loc)


def indices(op: Op, scope: Scope) -> tuple[object, ...]:
    """The values between ``[`` and ``]``."""
    toks = op.tokens
    start = next((k for k, t in enumerate(toks) if t.text == "["), None)
    if start is None:
        return ()
    out = []
    for t in toks[start + 1:]:
        if t.text == "]":
            break
        if t.kind == "value":
            out.append(scope.get(t.text, op.loc))
    return tuple(out)


def before_bracket(op: Op) -> list[str]:
    out = []
    for t in op.tokens:
        if t.text == "[":
            break
        if t.kind == "value":
            out.append(t.text)
    return out


# ------------------------------------------------------------------------------ constants
@handles("arith.constant")
def constant(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    types = op.types()
    colon = next((k for k, t in enumerate(op.tokens) if t.text == ":"), len(op.tokens))
    text = "".join(t.text for t in op.tokens[:colon])
    if not types:
        if text in ("true", "false"):
            return [np.bool_(text == "true")]
        raise error(op.loc, "arith.constant without a type")
    t = interp.type(types[-1], op.loc)
    whole = " ".join(tok.text for tok in op.tokens[:colon])  # ``dense <[...]>`` spaced
    if text.startswith("dense<"):
        return [dense_constant(whole, t, op.loc)]
    if text.startswith("sparse<"):
        return [sparse_constant(whole, t, op.loc)]
    if t.kind != "scalar":
        raise error(op.loc, f"arith.constant {text[:30]} of type {t.text} is not read")
    return [scalar_value(text, t.element, op.loc)]


# ------------------------------------------------------------------------------- arith
def _divsi(a, b):
    a, b = np.asarray(a), np.asarray(b)
    q = np.floor_divide(a, b)
    fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return (q + fix.astype(q.dtype))


def _ceildiv(a, b):
    q = np.floor_divide(a, b)
    return q + (np.remainder(a, b) != 0).astype(np.asarray(q).dtype)


BINARY: dict[str, Callable[[object, object], object]] = {
    "arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
    "arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply,
    "arith.divf": np.true_divide, "arith.remf": np.fmod,
    "arith.divsi": _divsi, "arith.divui": np.floor_divide,
    "arith.remsi": lambda a, b: np.subtract(a, np.multiply(_divsi(a, b), b)),
    "arith.remui": np.remainder, "arith.floordivsi": np.floor_divide,
    "arith.ceildivsi": _ceildiv, "arith.ceildivui": _ceildiv,
    "arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or, "arith.xori": np.bitwise_xor,
    "arith.shli": np.left_shift, "arith.shrsi": np.right_shift, "arith.shrui": np.right_shift,
    "arith.maxsi": np.maximum, "arith.minsi": np.minimum, "arith.maxui": np.maximum,
    "arith.minui": np.minimum, "arith.maximumf": np.maximum, "arith.minimumf": np.minimum,
    "arith.maxnumf": np.fmax, "arith.minnumf": np.fmin, "arith.maxf": np.maximum,
    "arith.minf": np.minimum, "math.powf": np.power, "math.atan2": np.arctan2,
    "math.copysign": np.copysign,
}
UNARY: dict[str, Callable[[object], object]] = {
    "arith.negf": np.negative, "math.absf": np.abs, "math.absi": np.abs, "math.sqrt": np.sqrt,
    "math.exp": np.exp, "math.exp2": np.exp2, "math.expm1": np.expm1, "math.log": np.log,
    "math.log2": np.log2, "math.log10": np.log10, "math.log1p": np.log1p, "math.sin": np.sin,
    "math.cos": np.cos, "math.tan": np.tan, "math.tanh": np.tanh, "math.atan": np.arctan,
    "math.floor": np.floor, "math.ceil": np.ceil, "math.round": np.round,
    "math.roundeven": np.rint, "math.trunc": np.trunc, "math.rsqrt": lambda x: 1 / np.sqrt(x),
    "math.erf": np.vectorize(math.erf, otypes=[np.float64]), "math.cbrt": np.cbrt,
}


@handles(*BINARY)
def binary(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    a, b = operand_values(interp, op, scope)[:2]
    if op.name in ("arith.shrui", "arith.divui", "arith.remui", "arith.maxui", "arith.minui",
                   "arith.ceildivui"):
        dtype = np.asarray(a).dtype
        bits = dtype.itemsize * 8
        r = BINARY[op.name](_unsigned(a, bits), _unsigned(b, bits))
        return [cast_to(r, dtype)]
    return [cast_to(BINARY[op.name](a, b), np.asarray(a).dtype)]


@handles(*UNARY)
def unary(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    a = operand_values(interp, op, scope)[0]
    r = UNARY[op.name](a)
    return [cast_to(r, np.asarray(a).dtype)]


@handles("math.fma")
def fma(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    a, b, c = operand_values(interp, op, scope)[:3]
    return [cast_to(np.add(np.multiply(a, b), c), np.asarray(a).dtype)]


_CMPI = {"eq": np.equal, "ne": np.not_equal, "slt": np.less, "sle": np.less_equal,
         "sgt": np.greater, "sge": np.greater_equal}


@handles("arith.cmpi")
def cmpi(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    pred = op.tokens[0].text.strip('"')
    a, b = operand_values(interp, op, scope)[:2]
    if pred.startswith("u"):  # unsigned
        bits = np.asarray(a).dtype.itemsize * 8
        a, b, pred = _unsigned(a, bits), _unsigned(b, bits), "s" + pred[1:]
    fn = _CMPI.get(pred)
    if fn is None:
        raise error(op.loc, f"arith.cmpi predicate '{pred}' is not known")
    return [cast_to(fn(a, b), np.dtype(bool))]


_CMPF = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
         "gt": np.greater, "ge": np.greater_equal}


@handles("arith.cmpf")
def cmpf(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    pred = op.tokens[0].text.strip('"')
    a, b = operand_values(interp, op, scope)[:2]
    nan = np.isnan(a) | np.isnan(b)
    if pred in ("true", "false"):
        r = np.full(np.shape(nan), pred == "true")
    elif pred == "ord":
        r = ~nan
    elif pred == "uno":
        r = nan
    elif pred[0] in "ou" and pred[1:] in _CMPF:
        base = _CMPF[pred[1:]](a, b)
        r = (base & ~nan) if pred[0] == "o" else (base | nan)
    else:
        raise error(op.loc, f"arith.cmpf predicate '{pred}' is not known")
    return [cast_to(r, np.dtype(bool))]


@handles("arith.select")
def select(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    c, a, b = operand_values(interp, op, scope)[:3]
    r = np.where(c, a, b)
    return [cast_to(r, np.asarray(a).dtype)]


@handles("arith.index_cast", "arith.index_castui", "arith.sitofp", "arith.uitofp",
         "arith.fptosi", "arith.fptoui", "arith.extf", "arith.truncf", "arith.extsi",
         "arith.extui", "arith.trunci")
def cast(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    a = operand_values(interp, op, scope)[0]
    if isinstance(a, SparseConst):  # a cast of a sparse<...> constant: of its dense array
        a = a.array
    t = result_type(interp, op)
    if op.name in ("arith.extui", "arith.uitofp", "arith.index_castui"):
        src = np.asarray(a)
        a = _unsigned(src, 1 if src.dtype.kind == "b" else src.dtype.itemsize * 8)
    return [cast_to(a, t.dtype)]


@handles("arith.bitcast")
def bitcast(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    a = np.asarray(operand_values(interp, op, scope)[0])
    t = result_type(interp, op)
    out = a.view(t.dtype) if a.ndim else np.array([a]).view(t.dtype)[0]
    return [out]


# ------------------------------------------------------------------------------- scf
@handles("scf.for")
def scf_for(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    toks = op.tokens
    iv = toks[0].text
    lb = scope.get(toks[2].text, op.loc)
    k = next(i for i, t in enumerate(toks) if t.text == "to")
    ub = scope.get(toks[k + 1].text, op.loc)
    step = scope.get(toks[k + 3].text, op.loc)
    names, inits = [], []
    after = op.after("iter_args")
    j = 1
    while after and j + 2 < len(after) and after[j].kind == "value":
        names.append(after[j].text)
        inits.append(scope.get(after[j + 2].text, op.loc))
        j += 4 if j + 3 < len(after) and after[j + 3].text == "," else 3
        if after[j - 1].text == ")":
            break
    carried = list(inits)
    region = op.regions[0]
    dtype = np.asarray(lb).dtype
    i = int(lb)  # type: ignore[call-overload]
    while i < int(ub):  # type: ignore[call-overload]
        carried = interp.run_region(region, [dtype.type(i), *carried], scope, [iv, *names])
        i += int(step)  # type: ignore[call-overload]
    return carried


@handles("scf.if")
def scf_if(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    cond = scope.get(op.values()[0], op.loc)
    if bool(cond):
        return interp.run_region(op.regions[0], [], scope)
    if len(op.regions) > 1:
        return interp.run_region(op.regions[1], [], scope)
    return []


@handles("scf.while")
def scf_while(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    toks = op.tokens
    inits = []
    for k, t in enumerate(toks):
        if t.text == "=" and k + 1 < len(toks) and toks[k + 1].kind == "value":
            inits.append(scope.get(toks[k + 1].text, op.loc))
    names = [toks[k - 1].text for k, t in enumerate(toks)
             if t.text == "=" and k > 0 and toks[k - 1].kind == "value"]
    before, after = op.regions[0], op.regions[1]
    values = inits
    for _ in range(10**7):
        sub = _scope_of(scope)
        blk = before.blocks[0]
        for n, v in zip([a for a, _ in blk.args] or names, values, strict=False):
            sub.vals[n] = v
        for o in blk.ops:
            if o.name == "scf.condition":
                vals = [sub.get(v, o.loc) for v in o.values()]
                break
            interp.exec(o, sub)
        else:
            raise error(op.loc, "scf.while: the before region has no scf.condition")
        if not bool(vals[0]):
            return vals[1:]
        values = interp.run_region(after, vals[1:], scope)
    raise error(op.loc, "scf.while ran 10^7 iterations")


def _scope_of(parent: Scope) -> Scope:
    return Scope(parent)


@handles("func.call", "call")
def call(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    sym = next(t for t in op.tokens if t.kind == "symbol").text[1:].strip('"')
    args = [scope.get(v, op.loc) for v in op.values()]
    results = interp.call(sym, args, op.loc)
    return results
