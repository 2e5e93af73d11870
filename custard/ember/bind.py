"""Binding named inputs (``-t arg0=ptrs.npy``) to an Ember function's arguments.

An argument that is never bound is derived: the sizes struct
``!llvm.struct<(array<2 x i64>, array<3 x i64>)>`` (the sparse tensor's level sizes and
memory sizes, as MPACT/torch-mlir pass them) becomes ``((S, R), (L1, L2, ...))`` with ``S`` the
segment count (length of the first 1-d memref minus one), ``R`` the rows of the first 2-d memref
and ``Lk`` the lengths of the 1-d memrefs; a memref the function stores into starts as zeros
unless it is bound, of the shape its stores' indices span (:func:`store_extents`: a loop's
induction variable spans the loop's static upper bound, an index loaded from a bound array
spans its largest value plus one; an index of a bound array that array's dimension), else
``(S, C)`` (``C`` the columns of the first 2-d memref).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import llvm
from xdsl.dialects.builtin import IndexType, MemRefType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, SSAValue

from custard.ember.errors import EmberError
from custard.ember.interp import Env, Interpreter, arg_names


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
    for i, a in enumerate(fn.body.block.args):
        if args[i] is None and isinstance(a.type, llvm.LLVMStructType):
            mem = [v.size for v in vecs]
            args[i] = ((segs, rows), tuple(mem + [0] * 3)[:3])
    extents = store_extents(fn, args)
    for i, (name, a) in enumerate(zip(names, fn.body.block.args, strict=True)):
        if args[i] is not None:
            continue
        t = a.type
        if isinstance(t, MemRefType) and i in stored:
            rank = len(t.get_shape())
            shape = [(segs, cols)[d] if d < 2 else 1 for d in range(rank)]
            for d, n in enumerate(extents.get(a, ())):
                if n is not None:
                    shape[d] = n
            args[i] = np.zeros(tuple(shape), dtype=_dtype(t))
        else:
            raise EmberError(f"argument {name} ({t}) of @{fn.sym_name.data} is not bound; "
                             f"give it with -t {name}=FILE.npy")
    return args


def _static_env(fn: FuncOp, args: list[Any]) -> Env:
    """The function's top-level values computable from the bound arguments."""
    it = Interpreter()
    env: Env = {a: v for a, v in zip(fn.body.block.args, args, strict=True) if v is not None}
    for op in fn.body.block.ops:
        if op.regions or op.name in _SKIP or op.name.startswith("dlc."):
            continue
        if all(v in env for v in op.operands):
            try:
                it.exec_op(op, env)
            except (EmberError, TypeError, ValueError, IndexError, KeyError):
                continue
    return env


_SKIP = ("func.return", "memref.store", "vector.maskedstore", "vector.store")
_LOOPS = ("scf.for", "slc.for", "slcvec.for")


def _pushed(fn: FuncOp) -> dict[SSAValue, SSAValue]:
    """DLC: each ``dlc.pop_operand``'s pushed stream, where slc-to-dlc's layout tells it (a
    case's pushes are the ``register_operand``\\ s just before its ``register_callback``, in
    pop order); a case whose pops and pushes differ in number or type is left out."""
    out: dict[SSAValue, SSAValue] = {}
    for cfg in [op for op in fn.walk() if op.name == "dlc.configure_access_engine"]:
        loop = cfg.next_op
        if loop is None or loop.name != "dlc.compute_loop":
            continue
        pushes: dict[int, list[SSAValue]] = {}
        run: list[SSAValue] = []
        for op in cfg.regions[0].block.ops:
            if op.name == "dlc.register_operand":
                run.append(op.operands[1])
            elif op.name == "dlc.register_callback":
                cid = op.attributes.get("id")
                if cid is not None:
                    pushes[int(cid.value.data)] = run  # type: ignore[attr-defined]
                run = []
        ids = [int(x) for x in loop.properties["cases"].get_values()]  # type: ignore
        for cid, region in zip(ids, loop.regions, strict=False):
            pops = [o.results[0] for o in region.walk() if o.name == "dlc.pop_operand"]
            streams = pushes.get(cid, [])
            if len(pops) == len(streams) and all(
                    getattr(st.type, "element", None) == p.type
                    for p, st in zip(pops, streams, strict=True)):
                out.update(zip(pops, streams, strict=True))
    return out


def _static_int(v: SSAValue, env: Env) -> int | None:
    if isinstance(v.owner, Operation) and v.owner.name == "slc.to_stream":
        v = v.owner.operands[0]
    return int(env[v]) if v in env and np.ndim(env[v]) == 0 else None


def _loop_bound(v: SSAValue, env: Env) -> int | None:
    """The static upper bound of the loop whose induction variable ``v`` is: an ``scf.for``'s,
    ``slc.for``'s or ``slcvec.for``'s first argument, O3's counter (an index carried from the
    loop's lower bound), a traversal unit's ``dlc.get_ind_var``."""
    owner = v.owner
    if isinstance(owner, Block):
        loop = owner.parent_op()
        if loop is None or loop.name not in _LOOPS:
            return None
        if v is owner.args[0]:
            return _static_int(loop.operands[1], env)
        first = 4 if loop.name == "slcvec.for" else 3
        k = list(owner.args).index(v) - (len(owner.args) - len(loop.operands[first:]))
        if loop.name == "slc.for" and 0 <= k and isinstance(v.type, IndexType) and \
                _static_int(loop.operands[first + k], env) == _static_int(loop.operands[0], env):
            return _static_int(loop.operands[1], env)  # O3's counter of this loop
        return None
    if owner.name == "dlc.get_ind_var":
        tu = owner.operands[0].owner
        return _static_int(tu.operands[1], env) if isinstance(tu, Operation) else None
    return None


def _extent(v: SSAValue, env: Env, pops: dict[SSAValue, SSAValue]) -> int | None:
    """How many values index ``v`` spans, when it can be told statically (through casts,
    streams and, in DLC, the stream a pop takes): a loop's induction variable spans the loop's
    static upper bound (:func:`_loop_bound`), else a value that also indexes a bound array that
    array's dimension, else a value loaded from a bound integer array its largest entry plus
    one."""
    for _ in range(64):
        owner = v.owner
        bound = _loop_bound(v, env)
        if bound is not None:
            return bound
        for use in v.uses:  # an index of a bound array spans that array's dimension
            op = use.operation
            arr = env.get(op.operands[0]) if op.name in ("memref.load", "slc.mem_stream") \
                else None
            if isinstance(arr, np.ndarray) and 1 <= use.index <= arr.ndim:
                return int(arr.shape[use.index - 1])
        if isinstance(owner, Block):
            return None
        name = owner.name
        if name in ("arith.index_cast", "slc.from_stream", "slc.to_stream"):
            v = owner.operands[0]
        elif name == "dlc.pop_operand" and v in pops:
            v = pops[v]
        elif name in ("memref.load", "slc.mem_stream"):
            arr = env.get(owner.operands[0])
            if not isinstance(arr, np.ndarray) or arr.dtype.kind not in "iu":
                return None
            return int(arr.max()) + 1 if arr.size else 0
        else:
            return None
    return None


def store_extents(fn: FuncOp, args: list[Any]) -> dict[SSAValue, list[int | None]]:
    """Per stored memref argument, each dimension's extent over all its stores (None where
    an index cannot be told statically)."""
    env = _static_env(fn, args)
    pops = _pushed(fn)
    out: dict[SSAValue, list[int | None]] = {}
    for op in fn.walk():
        if op.name == "memref.store":
            base, idx = op.operands[1], op.operands[2:]
        elif op.name == "vector.maskedstore":
            base, idx = op.operands[0], op.operands[1:-2]
        else:
            continue
        ext = [_extent(i, env, pops) for i in idx]
        old = out.get(base)
        out[base] = ext if old is None else [
            None if a is None or b is None else max(a, b) for a, b in zip(old, ext, strict=True)]
    return out
