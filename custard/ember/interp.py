"""An interpreter for Ember functions at the scf and slc/slcvec levels (and the core-side ops the
dlc level shares with them), to check every stage against numpy.

Values: ``index``/integers are Python ints, floats are Python floats, vectors and memrefs are
numpy arrays (memrefs are updated in place), the sizes struct is a tuple of tuples. At the slc
level a stream is represented by its current head (Ember Sec. 6.1: a callback reads the head
with ``slc.from_stream``), so an slc function runs as the sequential program it describes; the
decoupled execution with queues is :mod:`custard.ember.dlc_interp`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    VectorType,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, SSAValue

from custard.ember.errors import EmberError

Env = dict[SSAValue, Any]


class Buffer:
    """A buffer stream's content (Ember Sec. 7.2): grows as vectors are pushed into it."""

    def __init__(self) -> None:
        self.data = np.zeros(0)

    def store(self, idx: np.ndarray, values: np.ndarray) -> None:
        top = int(idx.max()) + 1 if idx.size else 0
        if top > self.data.size:
            grown = np.zeros(top, dtype=np.result_type(self.data, values))
            grown[: self.data.size] = self.data
            self.data = grown
        self.data[idx] = values


def _vlen(t: Any) -> int:
    assert isinstance(t, VectorType)
    return int(t.get_shape()[0])


def _lanes(base: int, n: int, stride: int = 1) -> np.ndarray:
    return base + np.arange(n, dtype=np.int64) * stride


def _np_dtype(elem: Any) -> Any:
    name = str(elem)
    if name in ("f64", "f32", "f16"):
        return np.float64
    if name == "i1":
        return np.bool_
    return np.int64


def _gather(mem: np.ndarray, idx: list[Any], mask: np.ndarray | None, n: int,
            vector_last: bool) -> np.ndarray:
    """Lanes of ``mem[idx]``: a vector index gives the lanes; a scalar last index with
    ``vector_last`` gives ``n`` contiguous lanes; masked-off lanes are 0, and so are lanes past
    the last dimension's bound when there is no mask (the loop's boundary). An active lane
    out of the bounds otherwise is an error."""
    cols = [np.full(n, v, dtype=np.int64) if np.isscalar(v) or np.ndim(v) == 0
            else np.asarray(v, dtype=np.int64) for v in idx]
    if vector_last and (np.isscalar(idx[-1]) or np.ndim(idx[-1]) == 0):
        cols[-1] = _lanes(int(idx[-1]), n)
    on = np.ones(n, dtype=bool) if mask is None else np.asarray(mask, dtype=bool).copy()
    if mask is None:
        on &= cols[-1] < mem.shape[-1]
    ok = on.copy()
    for d, c in enumerate(cols):
        ok &= (c >= 0) & (c < mem.shape[d])
    if (on & ~ok).any():
        bad = tuple(int(c[np.argmax(on & ~ok)]) for c in cols)
        raise EmberError(f"a vector load reads index {bad} out of the bounds {mem.shape} of "
                         "its memref; check the inputs (pointers, indices, sizes)")
    out = np.zeros(n, dtype=mem.dtype)
    if ok.any():
        out[ok] = mem[tuple(c[ok] for c in cols)]
    return out


class Interpreter:
    """Runs one ``func.func``; ``stats`` counts executed operations per kind."""

    def __init__(self) -> None:
        self.stats: dict[str, int] = {}
        self.handlers: dict[str, Callable[[Operation, Env], list[Any] | None]] = {}
        for name in dir(self):
            if name.startswith("op_"):
                key = name[3:].replace("__", ".")
                self.handlers[key] = getattr(self, name)

    # ------------------------------------------------------------------ driving
    def run_function(self, fn: FuncOp, args: list[Any]) -> list[Any]:
        block = fn.body.block
        if len(args) != len(block.args):
            raise EmberError(f"@{fn.sym_name.data} takes {len(block.args)} arguments, "
                             f"got {len(args)}")
        env: Env = dict(zip(block.args, args, strict=True))
        out = self.run_block(block, env)
        return list(out or [])

    def run_block(self, block: Block, env: Env) -> list[Any] | None:
        for op in block.ops:
            name = op.name
            if name in ("scf.yield", "slc.yield", "slcvec.yield", "func.return", "dlc.yield"):
                return [env[v] for v in op.operands]
            self.exec_op(op, env)
        return None

    def exec_op(self, op: Operation, env: Env) -> None:
        handler = self.handlers.get(op.name)
        if handler is None:
            raise EmberError(f"the interpreter does not support '{op.name}' (supported: "
                             f"{', '.join(sorted(self.handlers))})")
        self.stats[op.name] = self.stats.get(op.name, 0) + 1
        res = handler(op, env)
        if res is not None:
            for r, v in zip(op.results, res, strict=True):
                env[r] = v

    # ------------------------------------------------------------------ builtin ops
    def op_arith__constant(self, op: Operation, env: Env) -> list[Any]:
        a = op.properties["value"]
        if isinstance(a, IntegerAttr):
            return [int(a.value.data)]
        if isinstance(a, FloatAttr):
            return [float(a.value.data)]
        if isinstance(a, DenseIntOrFPElementsAttr):
            t = op.results[0].type
            shape = tuple(t.get_shape()) if isinstance(t, VectorType) else ()
            vals = np.array(a.get_values(), dtype=_np_dtype(t.get_element_type()))
            return [np.broadcast_to(vals, shape).copy() if vals.size == 1 else
                    vals.reshape(shape)]
        raise EmberError(f"arith.constant: unsupported value {a}")

    def _bin(self, op: Operation, env: Env, f: Callable[[Any, Any], Any]) -> list[Any]:
        return [f(env[op.operands[0]], env[op.operands[1]])]

    def op_arith__addi(self, op, env):
        return self._bin(op, env, lambda a, b: a + b)

    def op_arith__subi(self, op, env):
        return self._bin(op, env, lambda a, b: a - b)

    def op_arith__muli(self, op, env):
        return self._bin(op, env, lambda a, b: a * b)

    def op_arith__divui(self, op, env):
        return self._bin(op, env, lambda a, b: a // b)

    op_arith__divsi = op_arith__divui

    def op_arith__remui(self, op, env):
        return self._bin(op, env, lambda a, b: a % b)

    def op_arith__addf(self, op, env):
        return self._bin(op, env, lambda a, b: a + b)

    def op_arith__subf(self, op, env):
        return self._bin(op, env, lambda a, b: a - b)

    def op_arith__mulf(self, op, env):
        return self._bin(op, env, lambda a, b: a * b)

    def op_arith__divf(self, op, env):
        return self._bin(op, env, lambda a, b: a / b)

    def op_arith__maximumf(self, op, env):
        return self._bin(op, env, np.maximum)

    def op_arith__negf(self, op, env):
        return [-env[op.operands[0]]]

    def op_math__absf(self, op, env):
        return [np.abs(env[op.operands[0]])]

    def op_arith__index_cast(self, op, env):
        return [int(env[op.operands[0]])]

    def op_llvm__extractvalue(self, op, env):
        v = env[op.operands[0]]
        for p in op.properties["position"].get_values():
            v = v[p]
        return [int(v)]

    def op_memref__dim(self, op, env):
        return [int(env[op.operands[0]].shape[env[op.operands[1]]])]

    def op_memref__load(self, op, env):
        mem = env[op.operands[0]]
        idx = tuple(int(env[v]) for v in op.operands[1:])
        self._check_bounds(op, mem, idx)
        return [mem[idx].item()]

    def op_memref__store(self, op, env):
        mem = env[op.operands[1]]
        idx = tuple(int(env[v]) for v in op.operands[2:])
        self._check_bounds(op, mem, idx)
        mem[idx] = env[op.operands[0]]

    def _check_bounds(self, op: Operation, mem: np.ndarray, idx: tuple[int, ...]) -> None:
        for d, i in enumerate(idx):
            if not 0 <= i < mem.shape[d]:
                hint = "; an output of another shape is bound with -t NAME=FILE.npy" \
                    if op.name == "memref.store" else ""
                raise EmberError(f"{op.name}: index {idx} out of the bounds {mem.shape} of "
                                 f"its memref; check the inputs (pointers, indices, sizes){hint}")

    def op_vector__maskedload(self, op, env):
        mem = env[op.operands[0]]
        n_idx = len(op.operands) - 3
        idx = [int(env[v]) for v in op.operands[1:1 + n_idx]]
        mask = np.asarray(env[op.operands[1 + n_idx]], dtype=bool)
        passthru = env[op.operands[2 + n_idx]]
        n = _vlen(op.results[0].type)
        got = _gather(mem, idx, mask, n, vector_last=True)
        return [np.where(mask, got, passthru)]

    def op_vector__maskedstore(self, op, env):
        mem = env[op.operands[0]]
        n_idx = len(op.operands) - 3
        idx = [int(env[v]) for v in op.operands[1:1 + n_idx]]
        mask = np.asarray(env[op.operands[1 + n_idx]], dtype=bool)
        val = np.asarray(env[op.operands[2 + n_idx]])
        cols = _lanes(idx[-1], mask.size)
        ok = mask & (cols < mem.shape[-1])
        mem[tuple(idx[:-1]) + (cols[ok],)] = val[ok]

    def op_vector__broadcast(self, op, env):
        n = _vlen(op.results[0].type)
        return [np.full(n, env[op.operands[0]])]

    def op_vector__reduction(self, op, env):
        v = np.asarray(env[op.operands[0]])
        kind = str(op.properties["kind"]).split("<")[-1].rstrip(">")
        out = float(v.sum()) if "add" in kind else float(v.max())
        if len(op.operands) > 1:
            out += env[op.operands[1]]
        return [out]

    def op_scf__for(self, op, env):
        lb, ub, step = (int(env[v]) for v in op.operands[:3])
        carried = [env[v] for v in op.operands[3:]]
        block = op.regions[0].block
        i = lb
        while i < ub:
            env[block.args[0]] = i
            for a, v in zip(block.args[1:], carried, strict=True):
                env[a] = v
            out = self.run_block(block, env)
            carried = list(out or [])
            i += step
        return carried if op.results else []

    # ------------------------------------------------------------------ slc
    def op_slc__to_stream(self, op, env):
        return [env[op.operands[0]]]

    def op_slc__from_stream(self, op, env):
        v = env[op.operands[0]]
        if isinstance(v, Buffer):
            return [v.data]
        if isinstance(v, np.ndarray) and not isinstance(op.results[0].type, VectorType) \
                and not isinstance(op.results[0].type, MemRefType):
            return [v.flat[0].item()]  # a vector stream read as a scalar: lane 0 (Fig. 15b)
        return [v]

    def op_slc__mem_stream(self, op, env):
        mem = env[op.operands[0]]
        idx = tuple(int(env[v]) for v in op.operands[1:])
        self._check_bounds(op, mem, idx)
        return [mem[idx].item()]

    def op_slc__alu_stream(self, op, env):
        a, b = env[op.operands[0]], env[op.operands[1]]
        kind = op.properties["aluOp"].data
        f = {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
             "div": lambda: a // b, "rem": lambda: a % b, "and": lambda: a & b,
             "or": lambda: a | b, "shl": lambda: a << b, "shr": lambda: a >> b}[kind]
        return [f()]

    def op_slc__for(self, op, env):
        return self.op_scf__for(op, env)

    def op_slc__callback(self, op, env):
        out = self.run_block(op.regions[0].block, env) or []
        return out if len(out) == len(op.results) else [None] * len(op.results)

    def op_slcvec__vectorize_for(self, op, env):
        return None

    def op_slcvec__for(self, op, env):
        lb, ub, step = (int(env[v]) for v in op.operands[:3])
        in_mask = np.asarray(env[op.operands[3]], dtype=bool)
        carried = [env[v] for v in op.operands[4:]]
        vlen = op.vlen
        stride = max(step // vlen, 1)
        block = op.regions[0].block
        i = lb
        while i < ub:
            lanes = _lanes(i, vlen, stride)
            env[block.args[0]] = lanes
            env[block.args[1]] = (lanes < ub) & in_mask
            for a, v in zip(block.args[2:], carried, strict=True):
                env[a] = v
            carried = list(self.run_block(block, env) or [])
            i += step
        return carried if op.results else []

    def op_slcvec__mem_stream(self, op, env):
        mem = env[op.operands[0]]
        rank = len(mem.shape)
        idx = [env[v] for v in op.operands[1:1 + rank]]
        mask = env[op.operands[1 + rank]] if len(op.operands) > 1 + rank else None
        n = _vlen(op.results[0].type.element)
        return [_gather(mem, idx, mask, n, vector_last=True)]

    def op_slcvec__buf_stream(self, op, env):
        return [Buffer()]

    def op_slcvec__to_buffer(self, op, env):
        val = np.asarray(env[op.operands[0]])
        buf: Buffer = env[op.operands[1]]
        idx = env[op.operands[2]]
        lanes = np.asarray(idx) if np.ndim(idx) else _lanes(int(idx), val.size)
        buf.store(lanes, val)

    def op_slcvec__mask(self, op, env):
        i, lb, ub, step = (int(env[v]) for v in op.operands)
        lanes = _lanes(i, _vlen(op.results[0].type), step)
        return [(lanes >= lb) & (lanes < ub)]

    def op_slcvec__from_buffer(self, op, env):
        data = np.asarray(env[op.operands[0]])
        i = int(env[op.operands[1]])
        n = _vlen(op.results[0].type)
        out = np.zeros(n, dtype=data.dtype if data.size else np.float64)
        part = data[i:i + n]
        out[: part.size] = part
        return [out]


def find_function(mod: ModuleOp, name: str | None = None) -> FuncOp:
    fns = [op for op in mod.body.block.ops if isinstance(op, FuncOp)]
    if name is not None:
        fns = [f for f in fns if f.sym_name.data == name]
    if not fns:
        raise EmberError("no func.func" + (f" named @{name}" if name else "") + " in the module")
    return fns[0]


def arg_names(fn: FuncOp) -> list[str]:
    """The argument names without ``%`` (``arg0``); unnamed ones are ``argN``."""
    return [a.name_hint or f"arg{i}" for i, a in enumerate(fn.body.block.args)]


def run(mod: ModuleOp, args: list[Any]) -> tuple[list[Any], dict[str, int]]:
    """Run the module's function on ``args``; returns its results and the op counts."""
    it = Interpreter()
    out = it.run_function(find_function(mod), args)
    return out, it.stats
