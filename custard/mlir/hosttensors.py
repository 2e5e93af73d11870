"""Tensor, memref, bufferization, vector and host-side linalg ops of the host interpreter
(handlers registered in :data:`custard.mlir.hostops.HANDLERS`).

``tensor.generate`` evaluates an element-wise region once on index grids (the arith handlers
work on arrays), a region with control flow once per element; ``vector.transfer_read`` pads
out-of-bounds lanes; ``vector.print`` prints MLIR's runner format
(:mod:`custard.mlir.printing`).
"""

from __future__ import annotations

import re

import numpy as np

from custard.mlir.hostops import (
    Interpreter,
    before_bracket,
    dense,
    handles,
    indices,
    operand_values,
    result_type,
)
from custard.mlir.printing import vector_text
from custard.mlir.syntax import MlirError, Op, error
from custard.mlir.values import HostType, Scope, Sparse, SparseConst, cast_values
from formats.tensor import Tensor


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
    shape = src.tensor.shape if isinstance(src, Sparse) else np.shape(dense(src, op))
    return [np.int64(shape[int(k)])]  # type: ignore[call-overload]




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






@handles("tensor.extract", "memref.load")
def extract(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    src = scope.get(before_bracket(op)[0], op.loc)
    idx = indices(op, scope)
    arr = dense(src, op)
    if any(isinstance(i, np.ndarray) for i in idx):
        return [arr[tuple(np.asarray(i, dtype=np.int64) for i in idx)]]
    return [arr[tuple(int(i) for i in idx)]]  # type: ignore[call-overload]


@handles("memref.store")
def store(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    names = before_bracket(op)
    value, target = (scope.get(n, op.loc) for n in names[:2])
    if not isinstance(target, np.ndarray):
        raise error(op.loc, "memref.store into a value that is not a memref")
    target[tuple(int(i) for i in indices(op, scope))] = value  # type: ignore[call-overload]
    return []


@handles("tensor.insert", "sparse_tensor.insert")
def insert(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    names = before_bracket(op)
    value, target = (scope.get(n, op.loc) for n in names[:2])
    idx = tuple(int(i) for i in indices(op, scope))  # type: ignore[call-overload]
    if isinstance(target, Sparse):
        coords, vals = target.tensor.to_coo()
        keep = ~np.all(coords == np.array(idx), axis=1) if len(coords) else np.ones(0, bool)
        coords = np.vstack([coords[keep], np.array([idx])])
        vals = np.concatenate([vals[keep], [float(value)]])  # type: ignore[arg-type]
        t = Tensor.from_coo(coords, vals, target.tensor.shape, target.type.fmt)
        return [Sparse(t, target.type)]
    arr = dense(target, op).copy()
    arr[idx] = value
    return [arr]


@handles("memref.copy")
def memcopy(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    src, dst = (scope.get(v, op.loc) for v in op.values()[:2])
    dst[...] = dense(src, op)  # type: ignore[index]
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
    except MlirError:  # not element-wise after all: per element (which names any error)
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
    vals = operand_values(interp, op, scope)
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
        target[...] = dense(scope.get(src, op.loc), op)  # type: ignore[index]
        return []
    return interp.run_linalg(op, scope)


# -------------------------------------------------------------------------------- vectors
@handles("vector.transfer_read", "vector.load")
def transfer_read(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    names = before_bracket(op)
    src = dense(scope.get(names[0], op.loc), op)
    base = [int(i) for i in indices(op, scope)]  # type: ignore[call-overload]
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
    t = result_type(interp, op)
    return [np.broadcast_to(np.asarray(v, dtype=t.dtype), t.shape or ()).copy()]
