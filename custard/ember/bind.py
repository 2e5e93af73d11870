"""Binding named inputs (``-t arg0=ptrs.npy``) to an Ember function's arguments.

An argument that is never bound is derived: the sizes struct
``!llvm.struct<(array<2 x i64>, array<3 x i64>)>`` (the sparse tensor's level sizes and
memory sizes, as MPACT/torch-mlir pass them) becomes ``((S, R), (L1, L2, ...))`` with ``S`` the
segment count (length of the first 1-d memref minus one), ``R`` the rows of the first 2-d memref
and ``Lk`` the lengths of the 1-d memrefs; a memref the function stores into starts as zeros of
shape ``(S, C)`` (``C`` the columns of the first 2-d memref) unless it is bound.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import llvm
from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.func import FuncOp

from custard.ember.errors import EmberError
from custard.ember.interp import arg_names


def stored_args(fn: FuncOp) -> set[int]:
    """Positions of the memref arguments the function writes (stores into)."""
    args = list(fn.body.block.args)
    out: set[int] = set()
    for op in fn.walk():
        if op.name in ("memref.store", "vector.maskedstore", "vector.store"):
            base = op.operands[1] if op.name == "memref.store" else op.operands[0]
            if base in args:
                out.add(args.index(base))
    return out


def _dtype(t: MemRefType) -> Any:
    name = str(t.element_type)
    return np.float64 if name.startswith("f") else np.int64


def bind(fn: FuncOp, tensors: dict[str, np.ndarray]) -> list[Any]:
    """The argument list of ``fn`` for the named arrays (copies; outputs are fresh)."""
    names = arg_names(fn)
    unknown = sorted(set(tensors) - set(names))
    if unknown:
        raise EmberError(f"no argument named {', '.join(unknown)} in @{fn.sym_name.data} "
                         f"(its arguments: {', '.join(names)}; write -t NAME=FILE without %)")
    args: list[Any] = [None] * len(names)
    vecs: list[np.ndarray] = []
    mats: list[np.ndarray] = []
    for i, (name, a) in enumerate(zip(names, fn.body.block.args, strict=True)):
        t = a.type
        if name not in tensors or not isinstance(t, MemRefType):
            continue
        raw = np.asarray(tensors[name])
        if _dtype(t) is np.int64 and raw.size and raw.dtype.kind == "f" and \
                not np.array_equal(raw, np.round(raw)):
            raise EmberError(f"argument {name} ({t}) holds indices but its array has "
                             "non-integer values; give integers")
        arr = np.array(raw, dtype=_dtype(t), copy=True)
        rank = len(t.get_shape())
        if arr.ndim != rank:
            raise EmberError(f"argument {name} is a rank-{rank} memref ({t}) but its array has "
                             f"shape {arr.shape}; give an array with {rank} dimension(s)")
        args[i] = arr
    for i, a in enumerate(fn.body.block.args):
        if args[i] is not None and isinstance(a.type, MemRefType):
            (vecs if args[i].ndim == 1 else mats).append(args[i])
    segs = (vecs[0].size - 1) if vecs else 0
    rows = mats[0].shape[0] if mats else 0
    cols = mats[0].shape[1] if mats else 0
    stored = stored_args(fn)
    for i, (name, a) in enumerate(zip(names, fn.body.block.args, strict=True)):
        if args[i] is not None:
            continue
        t = a.type
        if isinstance(t, llvm.LLVMStructType):
            mem = [v.size for v in vecs]
            args[i] = ((segs, rows), tuple(mem + [0] * 3)[:3])
        elif isinstance(t, MemRefType) and i in stored:
            rank = len(t.get_shape())
            shape = (segs, cols) if rank == 2 else (segs,)
            args[i] = np.zeros(shape, dtype=_dtype(t))
        else:
            raise EmberError(f"argument {name} ({t}) of @{fn.sym_name.data} is not bound; "
                             f"give it with -t {name}=FILE.npy")
    return args
