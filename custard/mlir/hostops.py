"""The ops of the host interpreter's driver subset (:mod:`custard.mlir.interp`), one handler
each: ``handler(interp, op, scope) -> result values``.

Scalar arithmetic works on numpy scalars of the element type, so integer ops wrap at their
width as MLIR's do; the same handlers work on arrays, which lets ``tensor.generate`` evaluate
its region once on index grids instead of once per element when the region is element-wise.
Integer division and remainder truncate toward zero (``divsi``/``remsi``), ``floordivsi`` and
``ceildivsi`` round as named.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Protocol, TextIO

import numpy as np

from custard.mlir.encoding import TensorType
from custard.mlir.printing import sparse_text, vector_text
from custard.mlir.syntax import Loc, Module, Op, Region, error, split_top
from custard.mlir.values import (
    HostType,
    Scope,
    Sparse,
    SparseConst,
    cast_values,
    dense_constant,
    dense_of,
    read_tensor_file,
    scalar_value,
    sparse_constant,
)
from formats.levels import level_type
from formats.tensor import Tensor


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


class NotElementwise(Exception):
    """A ``tensor.generate`` region that cannot run on whole index grids."""


# ------------------------------------------------------------------------------- helpers
def _args(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    return [scope.get(v, op.loc) for v in op.values()]


def _to(op: Op) -> str | None:
    """The type after ``to`` (``index_cast %x : index to i32``)."""
    toks = op.after("to")
    return toks[0].text if toks else None


def _result_type(interp: Interpreter, op: Op) -> HostType:
    text = _to(op) or (op.types() or [""])[-1]
    if not text:
        raise error(op.loc, f"{op.name}: cannot find its result type")
    return interp.type(text, op.loc)


def _cast(value: object, dtype: np.dtype) -> object:
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
    a, b = _args(interp, op, scope)[:2]
    if op.name in ("arith.shrui", "arith.divui", "arith.remui", "arith.maxui", "arith.minui",
                   "arith.ceildivui"):
        dtype = np.asarray(a).dtype
        bits = dtype.itemsize * 8
        r = BINARY[op.name](_unsigned(a, bits), _unsigned(b, bits))
        return [_cast(r, dtype)]
    return [_cast(BINARY[op.name](a, b), np.asarray(a).dtype)]


@handles(*UNARY)
def unary(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    a = _args(interp, op, scope)[0]
    r = UNARY[op.name](a)
    return [_cast(r, np.asarray(a).dtype)]


@handles("math.fma")
def fma(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    a, b, c = _args(interp, op, scope)[:3]
    return [_cast(np.add(np.multiply(a, b), c), np.asarray(a).dtype)]


_CMPI = {"eq": np.equal, "ne": np.not_equal, "slt": np.less, "sle": np.less_equal,
         "sgt": np.greater, "sge": np.greater_equal}


@handles("arith.cmpi")
def cmpi(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    pred = op.tokens[0].text.strip('"')
    a, b = _args(interp, op, scope)[:2]
    if pred.startswith("u"):  # unsigned
        bits = np.asarray(a).dtype.itemsize * 8
        a, b, pred = _unsigned(a, bits), _unsigned(b, bits), "s" + pred[1:]
    fn = _CMPI.get(pred)
    if fn is None:
        raise error(op.loc, f"arith.cmpi predicate '{pred}' is not known")
    return [_cast(fn(a, b), np.dtype(bool))]


_CMPF = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
         "gt": np.greater, "ge": np.greater_equal}


@handles("arith.cmpf")
def cmpf(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    pred = op.tokens[0].text.strip('"')
    a, b = _args(interp, op, scope)[:2]
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
    return [_cast(r, np.dtype(bool))]


@handles("arith.select")
def select(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    c, a, b = _args(interp, op, scope)[:3]
    r = np.where(c, a, b)
    return [_cast(r, np.asarray(a).dtype)]


@handles("arith.index_cast", "arith.index_castui", "arith.sitofp", "arith.uitofp",
         "arith.fptosi", "arith.fptoui", "arith.extf", "arith.truncf", "arith.extsi",
         "arith.extui", "arith.trunci")
def cast(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    a = _args(interp, op, scope)[0]
    t = _result_type(interp, op)
    if op.name in ("arith.extui", "arith.uitofp", "arith.index_castui"):
        src = np.asarray(a)
        a = _unsigned(src, 1 if src.dtype.kind == "b" else src.dtype.itemsize * 8)
    return [_cast(a, t.dtype)]


@handles("arith.bitcast")
def bitcast(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    a = np.asarray(_args(interp, op, scope)[0])
    t = _result_type(interp, op)
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


# ------------------------------------------------------------------------------ tensors
def _shape(interp: Interpreter, op: Op, scope: Scope, t: HostType) -> tuple[int, ...]:
    """A type's shape, its ``?`` sizes from the op's index operands in order."""
    dyn = [int(scope.get(v, op.loc)) for v in _size_operands(op)]  # type: ignore[call-overload]
    if t.shape is None:
        raise error(op.loc, f"{op.name} of an unranked type")
    out, k = [], 0
    for d in t.shape:
        if d is None:
            if k >= len(dyn):
                raise error(op.loc, f"{op.name}: fewer sizes than '?' dimensions in {t.text}")
            out.append(dyn[k])
            k += 1
        else:
            out.append(d)
    return tuple(out)


def _size_operands(op: Op) -> list[str]:
    """The value operands before a ``copy(...)``, an attribute or the type."""
    out = []
    for t in op.tokens:
        if t.text in (":", "copy", "size_hint") or t.kind == "dict":
            break
        if t.kind == "value":
            out.append(t.text)
    return out


def _empty(interp: Interpreter, t: HostType, shape: tuple[int, ...], op: Op) -> object:
    if t.kind == "tensor" and "sparse_tensor.encoding" in t.text:
        tt = interp.tensor_type(t.text, op.loc)
        if tt.sparse:
            return Sparse(Tensor.from_coo(np.zeros((0, len(shape))), [], shape, tt.fmt), tt)
    return np.zeros(shape, dtype=t.dtype)


@handles("tensor.empty", "bufferization.alloc_tensor", "memref.alloc", "memref.alloca")
def alloc(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    t = interp.type(op.types()[-1], op.loc)
    toks = op.after("copy")
    if toks:
        src = scope.get(next(x.text for x in toks if x.kind == "value"), op.loc)
        return [_copy_value(src)]
    shape = _shape(interp, op, scope, t)
    return [_empty(interp, t, shape, op)]


def _copy_value(v: object) -> object:
    if isinstance(v, np.ndarray):
        return v.copy()
    return v


@handles("tensor.dim", "memref.dim", "sparse_tensor.lvl")
def dim(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    src, k = (scope.get(v, op.loc) for v in op.values()[:2])
    shape = src.tensor.shape if isinstance(src, Sparse) else np.shape(_dense(src, op))
    return [np.int64(shape[int(k)])]  # type: ignore[call-overload]


def _dense(v: object, op: Op) -> np.ndarray:
    return dense_of(v, op.loc)


@handles("tensor.cast", "memref.cast", "bufferization.to_memref", "bufferization.to_tensor",
         "bufferization.to_buffer", "sparse_tensor.load", "memref.memory_space_cast")
def same(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    v = scope.get(op.values()[0], op.loc)
    if isinstance(v, SparseConst):
        v = v.array
    return [v]


@handles("bufferization.dealloc_tensor", "memref.dealloc", "sparse_tensor.release")
def dealloc(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    return []


def _indices(op: Op, scope: Scope) -> tuple[object, ...]:
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


def _before_bracket(op: Op) -> list[str]:
    out = []
    for t in op.tokens:
        if t.text == "[":
            break
        if t.kind == "value":
            out.append(t.text)
    return out


@handles("tensor.extract", "memref.load")
def extract(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    src = scope.get(_before_bracket(op)[0], op.loc)
    idx = _indices(op, scope)
    arr = _dense(src, op)
    if any(isinstance(i, np.ndarray) for i in idx):
        return [arr[tuple(np.asarray(i, dtype=np.int64) for i in idx)]]
    return [arr[tuple(int(i) for i in idx)]]  # type: ignore[call-overload]


@handles("memref.store")
def store(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    names = _before_bracket(op)
    value, target = (scope.get(n, op.loc) for n in names[:2])
    if not isinstance(target, np.ndarray):
        raise error(op.loc, "memref.store into a value that is not a memref")
    target[tuple(int(i) for i in _indices(op, scope))] = value  # type: ignore[call-overload]
    return []


@handles("tensor.insert", "sparse_tensor.insert")
def insert(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    names = _before_bracket(op)
    value, target = (scope.get(n, op.loc) for n in names[:2])
    idx = tuple(int(i) for i in _indices(op, scope))  # type: ignore[call-overload]
    if isinstance(target, Sparse):
        coords, vals = target.tensor.to_coo()
        keep = ~np.all(coords == np.array(idx), axis=1) if len(coords) else np.ones(0, bool)
        coords = np.vstack([coords[keep], np.array([idx])])
        vals = np.concatenate([vals[keep], [float(value)]])  # type: ignore[arg-type]
        t = Tensor.from_coo(coords, vals, target.tensor.shape, target.type.fmt)
        return [Sparse(t, target.type)]
    arr = _dense(target, op).copy()
    arr[idx] = value
    return [arr]


@handles("memref.copy")
def memcopy(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    src, dst = (scope.get(v, op.loc) for v in op.values()[:2])
    dst[...] = _dense(src, op)  # type: ignore[index]
    return []


@handles("tensor.generate")
def generate(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    t = interp.type(op.types()[-1], op.loc)
    shape = _shape(interp, op, scope, t)
    region = op.regions[0]
    if not interp_elementwise(region):
        return [_generate_loop(interp, region, scope, shape, t)]
    grids = np.indices(shape, dtype=np.int64) if shape else []
    try:
        value = interp.run_region(region, list(grids), scope)[0]
    except NotElementwise:
        return [_generate_loop(interp, region, scope, shape, t)]
    return [np.broadcast_to(np.asarray(value).astype(t.dtype), shape).copy()]


def interp_elementwise(region) -> bool:
    """Whether every op of the region is arith/math or a read (runs on index grids)."""
    return all(o.name.startswith(("arith.", "math.")) or o.name in ("tensor.yield",
               "tensor.extract", "memref.load") for o in region.ops)


def _generate_loop(interp: Interpreter, region, scope: Scope, shape, t: HostType) -> np.ndarray:
    out = np.zeros(shape, dtype=t.dtype)
    for idx in np.ndindex(*shape):
        out[idx] = interp.run_region(region, [np.int64(i) for i in idx], scope)[0]
    return out


@handles("tensor.from_elements")
def from_elements(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    t = interp.type(op.types()[-1], op.loc)
    vals = _args(interp, op, scope)
    return [np.array(vals, dtype=t.dtype).reshape(t.shape or ())]


@handles("linalg.fill")
def fill(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    (value,), _ = op.group("ins")
    (target,), _ = op.group("outs")
    v = scope.get(value, op.loc)
    dst = scope.get(target, op.loc)
    if isinstance(dst, Sparse):
        raise error(op.loc, "linalg.fill of a sparse tensor is not supported")
    if op.results:
        out = np.full(np.shape(dst), v, dtype=np.asarray(dst).dtype)
        return [out]
    dst[...] = v  # type: ignore[index]
    return []


def linalg_op(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    """A linalg op in an interpreted function: on SAM (memref copies on the host)."""
    if op.name == "linalg.copy" and not op.results:
        (src,), _ = op.group("ins")
        (dst,), _ = op.group("outs")
        target = scope.get(dst, op.loc)
        target[...] = _dense(scope.get(src, op.loc), op)  # type: ignore[index]
        return []
    return interp.run_linalg(op, scope)


# ------------------------------------------------------------------------ sparse tensors
@handles("sparse_tensor.convert")
def convert(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    src = scope.get(op.values()[0], op.loc)
    text = _to(op) or op.types()[-1]
    t = interp.type(text, op.loc)
    tt = interp.tensor_type(text, op.loc)
    return [to_type(src, t, tt, op)]


def to_type(src: object, t: HostType, tt: TensorType, op: Op) -> object:
    """A host tensor value converted to the tensor type (format, element type)."""
    if not tt.sparse:
        return cast_values(_dense(src, op), t.dtype)
    if isinstance(src, Sparse):
        tensor = src.tensor if src.tensor.format == tt.fmt else src.tensor.with_format(tt.fmt)
    elif isinstance(src, SparseConst):
        tensor = Tensor.from_coo(src.coords, src.vals.astype(np.float64), src.array.shape,
                                 tt.fmt)
    else:
        tensor = Tensor.from_dense(_dense(src, op).astype(np.float64), tt.fmt)
    if tt.element not in ("f64", "f32"):
        tensor = Tensor(tensor.shape, tensor.format, tensor.levels,
                        np.asarray(cast_values(tensor.vals, t.dtype), dtype=np.float64))
    return Sparse(tensor, tt)


@handles("sparse_tensor.new")
def new(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    path = scope.get(op.values()[0], op.loc)
    text = _to(op) or op.types()[-1]
    tt = interp.tensor_type(text, op.loc)
    width = re.search(r"crdWidth\s*=\s*([0-9]+)", interp.module.resolve(text))
    tensor = read_tensor_file(str(path), tt, op.loc, int(width.group(1)) if width else 0)
    if not tt.sparse:
        return [cast_values(tensor.to_dense(), np.dtype(tt.dtype))]
    return [to_type(Sparse(tensor, tt), interp.type(text, op.loc), tt, op)]


def _sparse(v: object, op: Op) -> Sparse:
    if not isinstance(v, Sparse):
        raise error(op.loc, f"{op.name} of a tensor without a sparse encoding")
    return v


def _level(interp: Interpreter, op: Op, scope: Scope) -> int:
    text = op.attr("level") or op.attr("dimension")
    if text is not None:
        return int(text.split(":")[0].strip())
    vals = op.values()
    if len(vals) > 1:
        return int(scope.get(vals[1], op.loc))  # type: ignore[call-overload]
    raise error(op.loc, f"{op.name} without a level")


@handles("sparse_tensor.values")
def values(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    s = _sparse(scope.get(op.values()[0], op.loc), op)
    t = interp.type(op.types()[-1] if not _to(op) else _to(op), op.loc)  # type: ignore[arg-type]
    return [cast_values(s.tensor.vals, t.dtype)]


@handles("sparse_tensor.positions", "sparse_tensor.pointers")
def positions(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    s = _sparse(scope.get(op.values()[0], op.loc), op)
    lvl = _level(interp, op, scope)
    level = s.tensor.levels[lvl]
    if not hasattr(level, "seg"):
        raise error(op.loc, f"{op.name}: level {lvl} has no positions")
    return [np.asarray(level.seg, dtype=np.int64).copy()]


@handles("sparse_tensor.coordinates", "sparse_tensor.indices")
def coordinates(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    s = _sparse(scope.get(op.values()[0], op.loc), op)
    lvl = _level(interp, op, scope)
    level = s.tensor.levels[lvl]
    if not hasattr(level, "crd"):
        raise error(op.loc, f"{op.name}: level {lvl} has no coordinates")
    return [np.asarray(level.crd, dtype=np.int64).copy()]


@handles("sparse_tensor.number_of_entries")
def number_of_entries(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    s = _sparse(scope.get(op.values()[0], op.loc), op)
    return [np.int64(len(s.tensor.vals))]


@handles("sparse_tensor.foreach")
def foreach(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    """Run the region on each stored entry in storage order (coordinates, value, carried
    values); a dense tensor's every entry in row-major order."""
    src = scope.get(op.values()[0], op.loc)
    inits = [scope.get(v, op.loc) for v in op.values()[1:]]
    t = interp.type(op.types()[0], op.loc)
    if isinstance(src, Sparse):
        coords, vals = src.tensor.to_coo()
        vals = cast_values(vals, src.dtype)
    else:
        arr = _dense(src, op)
        coords = np.argwhere(np.ones(arr.shape, dtype=bool))
        vals = arr.reshape(-1)
    carried = inits
    for c, v in zip(coords, vals, strict=True):
        args = [np.int64(x) for x in c] + [t.dtype.type(v)] + carried
        carried = interp.run_region(op.regions[0], args, scope)
    return carried


def _loose_levels(text: str) -> list[bool]:
    """Which levels of an encoding's map are ``loose_compressed`` (positions in pairs)."""
    m = re.search(r"->\s*\((.*)\)", text, re.S)
    return ["loose_compressed" in part for part in split_top(m.group(1), ",")] if m else []


def _level_kind(level_class: type) -> str:
    """``dense``, ``compressed`` or ``singleton``, from a level class's capabilities."""
    kinds = {"stride": "dense", "segment": "compressed", "single": "singleton"}
    kind = kinds.get(level_class.positions)
    if kind is None:
        raise error(Loc("<assemble>", 0, 0), f"level format {level_class.name} not assembled")
    return kind


@handles("sparse_tensor.assemble")
def assemble(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    """A sparse tensor from its level buffers (positions, coordinates; a compressed level
    followed by singletons takes one coordinate array of rows) and its values."""
    names = op.values()
    if op.tokens and op.tokens[0].text == "(":  # (%pos, %crd), %values
        bufs, vals = names[:-1], names[-1]
    else:  # the older order: %values, %pos, %crd, ...
        vals, bufs = names[0], names[1:]
    text = _to(op) or op.types()[-1]
    tt = interp.tensor_type(text, op.loc)
    if not tt.sparse:
        raise error(op.loc, "sparse_tensor.assemble of a dense type")
    loose = _loose_levels(interp.module.resolve(text))
    buffers = [np.asarray(_dense(scope.get(b, op.loc), op)) for b in bufs]
    fmt = tt.fmt
    classes = [level_type(letter) for letter in fmt.levels]
    kinds = [_level_kind(c) for c in classes]
    shape = [int(d) for d in tt.shape]  # type: ignore[arg-type]
    sizes = [shape[m] for m in fmt.mode_order]
    levels: list[object] = []
    n, k = 1, 0
    while k < len(kinds):
        if kinds[k] == "dense":
            levels.append(classes[k](sizes[k]))
            n *= sizes[k]
            k += 1
            continue
        if kinds[k] != "compressed" or not buffers:
            raise error(op.loc, "sparse_tensor.assemble: a level without its buffers")
        pos = buffers.pop(0).astype(np.int64).reshape(-1)
        if k < len(loose) and loose[k]:
            lo, hi = pos[0:2 * n:2], pos[1:2 * n:2]
            if len(lo) and (lo[0] != 0 or np.any(lo[1:] != hi[:-1])):
                raise error(op.loc, "sparse_tensor.assemble: loose_compressed positions with "
                                    "gaps have no compressed level of ours")
            seg = np.concatenate([[0], hi])
        else:
            seg = pos[:n + 1]
        nnz = int(seg[-1])
        j = k + 1
        while j < len(kinds) and kinds[j] == "singleton":
            j += 1
        crd = buffers.pop(0).astype(np.int64)
        crd = crd.reshape(-1, j - k)[:nnz] if j - k > 1 else crd.reshape(-1)[:nnz]
        cols = [crd[:, c] for c in range(j - k)] if j - k > 1 else [crd]
        levels.append(classes[k](sizes[k], seg, cols[0]))
        for c in range(1, j - k):
            levels.append(classes[k + c](sizes[k + c], cols[c]))
        n, k = nnz, j
    values = np.asarray(_dense(scope.get(vals, op.loc), op)).reshape(-1)[:n]
    tensor = Tensor(tuple(shape), fmt, levels, values.astype(np.float64))  # type: ignore[arg-type]
    return [Sparse(tensor, tt)]


@handles("sparse_tensor.disassemble")
def disassemble(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    """The level buffers (copied into the ``out_lvls`` buffers), the values (into
    ``out_vals``) and the lengths used of each."""
    s = _sparse(scope.get(op.values()[0], op.loc), op)
    out_lvls, _ = op.group("out_lvls")
    out_vals, _ = op.group("out_vals")
    arrays: list[np.ndarray] = []
    levels = s.tensor.levels
    k = 0
    while k < len(levels):
        level = levels[k]
        if level.positions == "segment":
            arrays.append(np.asarray(level.seg))
            j = k + 1
            while j < len(levels) and levels[j].positions == "single":
                j += 1
            cols = [np.asarray(lv.crd) for lv in levels[k:j]]
            arrays.append(np.stack(cols, axis=1) if len(cols) > 1 else cols[0])
            k = j
        else:
            k += 1
    results: list[object] = []
    lengths: list[int] = []
    for name, data in zip(out_lvls + out_vals, [*arrays, s.tensor.vals], strict=True):
        target = np.array(_dense(scope.get(name, op.loc), op), copy=True)
        flat = target.reshape(-1)
        src = np.asarray(data).reshape(-1)
        if len(src) > len(flat):
            raise error(op.loc, f"sparse_tensor.disassemble: {name} holds {len(flat)} "
                                f"entries, {len(src)} needed")
        flat[:len(src)] = cast_values(src, target.dtype)
        results.append(target)
        lengths.append(len(src))
    tail = _length_types(op)
    for k, n in enumerate(lengths):
        text = tail[k] if k < len(tail) else "index"
        t = interp.type(text, op.loc)
        value = np.asarray(n).astype(t.dtype)
        results.append(value if t.kind == "tensor" else value[()])
    return results


def _length_types(op: Op) -> list[str]:
    """The result types after ``->`` of a disassemble, the lengths' types last."""
    toks = op.after("->")
    types = [t.text for t in toks if t.kind in ("word", "bang") or t.text.startswith("tensor<")]
    n = len(op.results) // 2
    return types[n:]


@handles("sparse_tensor.has_runtime_library")
def has_runtime(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    return [np.bool_(False)]


@handles("sparse_tensor.print")
def sparse_print(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    s = _sparse(scope.get(op.values()[0], op.loc), op)
    interp.out.write(sparse_text(s.tensor, s.type.element))
    return []


# -------------------------------------------------------------------------------- vectors
@handles("vector.transfer_read", "vector.load")
def transfer_read(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    names = _before_bracket(op)
    src = _dense(scope.get(names[0], op.loc), op)
    base = [int(i) for i in _indices(op, scope)]  # type: ignore[call-overload]
    close = next(k for k, t in enumerate(op.tokens) if t.text == "]")
    pad_tok = next((t for t in op.tokens[close:] if t.kind == "value"), None)
    types = op.types()
    vt = interp.type(types[-1], op.loc)
    pad = scope.get(pad_tok.text, op.loc) if pad_tok is not None else 0
    vshape = tuple(int(d) for d in vt.shape or ())
    rank = src.ndim
    pmap = op.attr("permutation_map")
    if pmap:
        m = re.search(r"\(([^)]*)\)\s*->\s*\(([^)]*)\)", pmap)
        dims = [d.strip() for d in m.group(1).split(",")] if m else []
        res = [r.strip() for r in m.group(2).split(",")] if m else []
        if not m or any(r not in dims and r != "0" for r in res):
            raise error(op.loc, f"vector.transfer_read permutation_map {pmap} is not read")
        target = [dims.index(r) if r in dims else None for r in res]
    else:
        target = list(range(rank - len(vshape), rank))
    out = np.full(vshape, pad, dtype=vt.dtype)
    grids = np.indices(vshape, dtype=np.int64) if vshape else np.zeros((0,))
    idx = []
    for d in range(rank):
        g = np.full(vshape, base[d], dtype=np.int64)
        for k, td in enumerate(target):
            if td == d:
                g = g + grids[k]
        idx.append(g)
    valid = np.ones(vshape, dtype=bool)
    for d in range(rank):
        valid &= (idx[d] >= 0) & (idx[d] < src.shape[d])
    out[valid] = cast_values(src[tuple(i[valid] for i in idx)], vt.dtype)
    return [out]


_PUNCT = {"comma": ", ", "newline": "\n", "open": "( ", "close": " )", "no_punctuation": ""}


@handles("vector.print")
def vprint(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    toks = op.tokens
    if toks and toks[0].text == "str":
        interp.out.write(_unescape(toks[1].text))
        return []
    punct = "\n"
    for k, t in enumerate(toks):
        if t.text == "punctuation" and k + 1 < len(toks):
            punct = _PUNCT.get(toks[k + 1].text.strip("<>"), "\n")
    vals = op.values()
    if not vals:
        interp.out.write(punct)
        return []
    v = scope.get(vals[0], op.loc)
    types = [t for t in op.types()]
    t = interp.type(types[0], op.loc) if types else None
    element = t.element if t is not None else "f64"
    interp.out.write(vector_text(np.asarray(v), element) + punct)
    return []


def _unescape(text: str) -> str:
    body = text[1:-1]
    out, k = [], 0
    while k < len(body):
        c = body[k]
        if c == "\\" and k + 1 < len(body):
            nxt = body[k + 1]
            if nxt in "nt\"\\":
                out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}[nxt])
                k += 2
                continue
            hexa = body[k + 1:k + 3]
            if len(hexa) == 2 and all(h in "0123456789abcdefABCDEF" for h in hexa):
                out.append(chr(int(hexa, 16)))
                k += 3
                continue
        out.append(c)
        k += 1
    return "".join(out)


@handles("vector.broadcast", "vector.splat")
def broadcast(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    v = scope.get(op.values()[0], op.loc)
    t = _result_type(interp, op)
    return [np.broadcast_to(np.asarray(v, dtype=t.dtype), t.shape or ()).copy()]

