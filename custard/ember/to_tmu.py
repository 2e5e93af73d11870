"""DLC to a TMU graph (``dae`` mode) and the execute block's program (docs/tmu.md, docs/ember.md).

The function's memref arguments become dense tensors named like the arguments (``d`` or
``dd``); each ``dlc.new_tu`` becomes a layer (a ``DenseTU`` for static bounds, a ``RangeTU`` for
stream bounds, ``lanes = vlen`` for a vector unit); ``mem_stream`` of ``M[i, j]`` becomes
``row = i * M.dim1``, ``pos = row + j``, ``Mem(M.vals, pos)``; ``register_operand`` and
``register_callback`` become ``Operand``/``Token`` rules (our ``end`` event of a unit, after its
nested unit, is the TMU's ``end`` of the nested unit's fiber; of an innermost unit, it follows
its ``ite`` rules). Each compute-loop case becomes a program section named by its token:
pops, arithmetic, the core variables as registers, ``out[i, j] += x`` for a load-add-store of
the output, ``scf.for`` loops with static bounds unrolled (the TMU's masks replace
``slcvec.mask``). Static values are those of the bound inputs, so a graph is built per input
shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, MemRefType, ModuleOp, VectorType
from xdsl.ir import Block, Operation, SSAValue

from custard.ember import dlc, slc, slcvec
from custard.ember.bind import bind
from custard.ember.errors import EmberError
from custard.ember.interp import Env, Interpreter, arg_names, find_function
from sam.dae.trace import AccessTrace

_BIN = {"arith.addf": "+", "arith.subf": "-", "arith.mulf": "*", "arith.divf": "/",
        "arith.addi": "+", "arith.subi": "-", "arith.muli": "*"}
_MINMAX = {"arith.maximumf": "max", "arith.minimumf": "min"}
_ALU = {"add": "+", "sub": "-", "mul": "*", "div": "/", "rem": "%"}


@dataclass
class TmuLowering:
    """What :func:`lower_to_tmu` builds: the TMU configuration, the execute program, the graph
    and its tensors, and the output's name and shape."""

    config: Any
    program: str
    graph: Any
    tensors: dict[str, Any]
    out: str
    shape: tuple[int, int]
    #: the output memref's own shape (a 1-d output is simulated as one column)
    out_shape: tuple[int, ...] | None = None


def _static_env(fn, args: list[Any]) -> tuple[Env, Operation, Operation]:
    """Run the function's top-level code up to its DLC ops; returns the env and those ops."""
    it = Interpreter()
    env: Env = dict(zip(fn.body.block.args, args, strict=True))
    cfg = loop = None
    for op in fn.body.block.ops:
        if isinstance(op, dlc.ConfigureAccessEngineOp):
            if cfg is not None:
                raise EmberError("TMU lowering: one access-unit configuration per function is "
                                 "supported (the function has several loop nests)")
            cfg = op
            continue
        if isinstance(op, dlc.ComputeLoopOp):
            loop = op
            continue
        if op.name == "func.return":
            break
        if loop is not None and any(v in loop.results for o in op.walk() for v in o.operands):
            raise EmberError("TMU lowering: code after the decoupled loop nest uses its "
                             "results (the execute block has no section after the last token; "
                             "store them inside the loop)")
        it.exec_op(op, env)
    if cfg is None or loop is None:
        raise EmberError("TMU lowering: the function has no decoupled loop nest (scf-to-slc "
                         "offloads loops without loop-carried values that load read-only "
                         "memory; this one stays on the core)")
    return env, cfg, loop


class _ConfigBuilder:
    def __init__(self, env: Env, names: dict[SSAValue, str]) -> None:
        from sam.blocks import tmu_config as tc

        self.tc = tc
        self.env = env
        self.argname = names
        self.stream: dict[SSAValue, str] = {}
        self.level: dict[SSAValue, int] = {}
        self.tus: list[dlc.NewTuOp] = []
        self.streams: list[Any] = []
        self.rules: dict[tuple[int, str], list[tuple[int, Any]]] = {}
        self.count = 0
        self.arrays: set[SSAValue] = set()

    def fresh(self, base: str) -> str:
        self.count += 1
        return f"{base}{self.count}"

    def value(self, v: SSAValue) -> str | int:
        if v in self.stream:
            return self.stream[v]
        if v in self.env:
            return int(self.env[v])
        raise EmberError("TMU lowering: a stream operand is neither a stream nor a static value")

    def tu_of(self, values: list[SSAValue]) -> int:
        return max([self.level.get(v, 0) for v in values] + [0])

    def tu_name(self, d: int) -> str:
        return self.stream[self.tus[d].tu]

    def build(self, cfg: dlc.ConfigureAccessEngineOp) -> Any:
        tc = self.tc
        layers = []
        for op in cfg.regions[0].block.ops:
            if isinstance(op, dlc.NewTuOp):
                d = len(self.tus)
                self.tus.append(op)
                a = op.attributes.get("name")
                name = a.data if a is not None and hasattr(a, "data") else f"t{d}"
                self.stream[op.tu] = name
                self.level[op.tu] = d
                lo, hi, step = (self.value(v) for v in op.operands)
                vlen = op.vlen
                if not isinstance(step, int):
                    raise EmberError("TMU lowering: a traversal unit's step must be static")
                lanes = 1
                if vlen:
                    if step != vlen:
                        raise EmberError("TMU lowering: a vector unit must step by its lanes")
                    step, lanes = 1, vlen
                if isinstance(lo, int) and isinstance(hi, int):
                    tu = tc.DenseTU(name, lo, hi, step)
                else:
                    lo, hi = (self._as_stream(x, d - 1) for x in (lo, hi))
                    tu = tc.RangeTU(name, lo, hi, step)
                layers.append(tc.Layer("single", [tu], lanes=lanes))
            elif isinstance(op, dlc.GetIndVarOp):
                self.stream[op.result] = self.stream[op.tu]
                self.level[op.result] = self.level[op.tu]
            elif isinstance(op, dlc.GetMaskOp):
                self.level[op.result] = self.level[op.tu]  # the TMU masks the lanes itself
            elif isinstance(op, slc.MemStreamOp | slcvec.MemStreamOp):
                self._mem(op)
            elif isinstance(op, slc.AluStreamOp):
                d = self.tu_of([op.lhs, op.rhs])
                kind = op.alu_op.data
                if kind not in _ALU:
                    raise EmberError(f"TMU lowering: slc.alu_stream<{kind}> has no TMU ALU")
                name = self.fresh("a")
                self.streams.append(tc.Alu(name, self.tu_name(d), _ALU[kind],
                                           self.value(op.lhs), self.value(op.rhs)))
                self.stream[op.result] = name
                self.level[op.result] = d
            elif isinstance(op, dlc.RegisterOperandOp | dlc.RegisterCallbackOp):
                self._rule(op)
            else:
                raise EmberError(f"TMU lowering: '{op.name}' in the access unit has no TMU "
                                 "counterpart")
        operands, tokens = [], []
        for key in sorted(self.rules):
            for _, rule in sorted(self.rules[key], key=lambda r: r[0]):
                (operands if isinstance(rule, tc.Operand) else tokens).append(rule)
        return tc.TmuConfig(layers=layers, streams=self.streams, operands=operands,
                            tokens=tokens, mode="dae")

    def _as_stream(self, x: str | int, d: int) -> str:
        if isinstance(x, str):
            return x
        name = self.fresh("k")
        self.streams.append(self.tc.Alu(name, self.tu_name(max(d, 0)), "+", x, 0))
        return name

    def _mem(self, op: Operation) -> None:
        tc = self.tc
        mem = op.operands[0]
        if mem not in self.argname:
            raise EmberError("TMU lowering: a memory stream must read a function argument")
        self.arrays.add(mem)
        name_m = self.argname[mem]
        assert isinstance(mem.type, MemRefType)
        rank = len(mem.type.get_shape())
        idx = list(op.operands[1:1 + rank])
        d = self.tu_of(idx)
        if rank == 1:
            index = self.value(idx[0])
        elif rank == 2:
            row = self.fresh("row")
            self.streams.append(tc.Alu(row, self.tu_name(self.tu_of(idx[:1])), "*",
                                       self.value(idx[0]), f"{name_m}.dim1"))
            index = self.fresh("pos")
            self.streams.append(tc.Alu(index, self.tu_name(d), "+", row, self.value(idx[1])))
        else:
            raise EmberError("TMU lowering: memrefs of rank 1 or 2 only")
        name = self.fresh("v")
        self.streams.append(tc.Mem(name, self.tu_name(d), array=f"{name_m}.vals", index=index))
        self.stream[op.results[0]] = name
        self.level[op.results[0]] = d

    def _rule(self, op: Operation) -> None:
        tc = self.tc
        d = self.level[op.operands[0]]
        event = op.event.data
        order = 0
        if event == "end":  # ours: after the nested unit; the TMU's: end of the nested fiber
            if d + 1 < len(self.tus):
                d += 1
            else:
                event, order = "ite", 1
        tu = self.tu_name(d)
        if isinstance(op, dlc.RegisterOperandOp):
            t = op.value.type
            vec = isinstance(t, slc.StreamType) and isinstance(t.element, VectorType)
            rule = tc.Operand(self.value(op.value), tu, event, vector=vec)
        else:
            rule = tc.Token(op.token, tu, event)
        self.rules.setdefault((d, event), []).append((order, rule))


class _ProgramBuilder:
    """Translates compute-loop cases to the execute block's program language.

    Memory other than the output is core-side memory (Ember paper Sec. 6.2: workspace loops run
    on the core): a memref a callback stores into is a workspace (``array W[N]``, zeros), one it
    only reads an input tensor the core loads from (``input T``)."""

    def __init__(self, env: Env, out: SSAValue, names: dict[SSAValue, str] | None = None,
                 written: set[SSAValue] | None = None) -> None:
        self.env = env
        self.out = out
        self.names = names or {}
        self.written = written or set()
        self.count = 0
        self.lines: list[str] = []
        self.regs: dict[SSAValue, str] = {}
        #: core arrays the program uses: memref -> its declaration
        self.arrays: dict[SSAValue, str] = {}

    def fresh(self) -> str:
        self.count += 1
        return f"r{self.count}"

    def val(self, v: SSAValue) -> str:
        if v in self.regs:
            return self.regs[v]
        if v in self.env:
            x = self.env[v]
            if isinstance(x, np.ndarray):
                raise EmberError("TMU lowering: a vector constant in a callback")
            return repr(float(x)) if isinstance(x, float) else str(int(x))
        owner = v.owner
        if isinstance(owner, arith.ConstantOp):
            a = owner.value
            if isinstance(a, IntegerAttr):
                return str(int(a.value.data))
            if isinstance(a, FloatAttr):
                return repr(float(a.value.data))
        raise EmberError("TMU lowering: a callback value has no register")

    def declarations(self) -> list[str]:
        """The program's core-array declarations, in first use order."""
        return list(self.arrays.values())

    def case(self, block: Block) -> str:
        self.lines = []
        fused = self._fused(block)
        self._block(block, fused)
        return "; ".join(self.lines) if self.lines else "x = 0"

    def _fused(self, block: Block) -> dict[int, str]:
        """Loads/adds of the output that a store turns into ``out[..] += x``."""
        fused: dict[int, str] = {}
        for op in block.walk():
            if isinstance(op, memref.StoreOp | vector.MaskedStoreOp):
                val = op.operands[0] if isinstance(op, memref.StoreOp) else op.operands[-1]
                base = op.operands[1] if isinstance(op, memref.StoreOp) else op.operands[0]
                idx = _indices(op)
                d = val.owner
                if isinstance(d, Operation) and d.name in ("arith.addf", "arith.maximumf",
                                                           "arith.minimumf"):
                    for k, x in enumerate(d.operands):
                        ld = x.owner
                        if isinstance(ld, memref.LoadOp | vector.MaskedLoadOp) and \
                                ld.operands[0] is base and _indices(ld) == idx:
                            upd = {"arith.addf": "+=", "arith.maximumf": "max=",
                                   "arith.minimumf": "min="}[d.name]
                            fused[id(op)] = f"{upd}|{k}"
                            fused[id(d)] = "skip"
                            fused[id(ld)] = "skip"
                            break
        return fused

    def _block(self, block: Block, fused: dict[int, str]) -> None:
        for op in block.ops:
            self._op(op, fused)

    def _array(self, base: SSAValue, store: bool) -> str:
        """The name of core array ``base`` (declared at its first use)."""
        name = self.names.get(base)
        if name is None:
            raise EmberError("TMU lowering: a callback uses memory that is not a function "
                             "argument")
        if base not in self.arrays:
            if base in self.written:
                x = self.env.get(base)
                arr = np.asarray(x if x is not None else [], dtype=float)
                if arr.ndim not in (1, 2) or np.any(arr != 0):
                    raise EmberError(f"TMU lowering: workspace {name} must be a 1-d or 2-d "
                                     "memref starting as zeros (the core allocates it)")
                self.arrays[base] = f"array {name}[{', '.join(map(str, arr.shape))}]"
            else:
                self.arrays[base] = f"input {name}"
        if store and base not in self.written:
            raise EmberError(f"TMU lowering: {name} is stored into but not a workspace")
        return name

    def _op(self, op: Operation, fused: dict[int, str]) -> None:
        name = op.name
        if fused.get(id(op)) == "skip" or name in ("dlc.yield", "scf.yield", "slcvec.mask",
                                                    "arith.constant"):
            return
        if isinstance(op, dlc.PopOperandOp):
            r = self.fresh()
            self.lines.append(f"{r} = pop")
            self.regs[op.result] = r
        elif isinstance(op, dlc.GetVarOp):
            self.regs[op.result] = f"var{_var(op)}"
        elif isinstance(op, dlc.SetVarOp):
            self.lines.append(f"var{_var(op)} = {self.val(op.operands[0])}")
        elif name == "arith.index_cast":
            self.regs[op.results[0]] = self.val(op.operands[0])
        elif isinstance(op, dlc.IncrementVarOp):
            step = self.val(op.operands[0]) if op.operands else "1"
            self.lines.append(f"var{_var(op)} = var{_var(op)} + {step}")
        elif name in _BIN:
            r = self.fresh()
            self.lines.append(f"{r} = {self.val(op.operands[0])} {_BIN[name]} "
                              f"{self.val(op.operands[1])}")
            self.regs[op.results[0]] = r
        elif name in _MINMAX:
            r = self.fresh()
            self.lines.append(f"{r} = {_MINMAX[name]}({self.val(op.operands[0])}, "
                              f"{self.val(op.operands[1])})")
            self.regs[op.results[0]] = r
        elif name in ("arith.negf", "math.absf"):
            r = self.fresh()
            self.lines.append(f"{r} = 0 - {self.val(op.operands[0])}")
            if name == "math.absf":
                r2 = self.fresh()
                self.lines.append(f"{r2} = max({self.val(op.operands[0])}, {r})")
                r = r2
            self.regs[op.results[0]] = r
        elif name == "vector.broadcast":
            self.regs[op.results[0]] = self.val(op.operands[0])
        elif name == "vector.reduction":
            kind = op.properties.get("kind")
            if "add" not in str(kind):
                raise EmberError(f"TMU lowering: vector.reduction {kind} has no execute "
                                 "statement (add only)")
            r = self.fresh()
            self.lines.append(f"{r} = sum({self.val(op.operands[0])})")
            self.regs[op.results[0]] = r
        elif isinstance(op, memref.StoreOp | vector.MaskedStoreOp):
            base = op.operands[1] if isinstance(op, memref.StoreOp) else op.operands[0]
            where = "out" if base is self.out else self._array(base, store=True)
            ids = [self.val(i) for i in _indices(op)]
            if base is self.out:  # a 1-d output is stored as a column
                ids += ["0"] * (2 - len(ids))
            idx = ", ".join(ids)
            val = op.operands[0] if isinstance(op, memref.StoreOp) else op.operands[-1]
            tag = fused.get(id(op))
            if tag:
                upd, k = tag.split("|")
                other = val.owner.operands[1 - int(k)]
                self.lines.append(f"{where}[{idx}] {upd} {self.val(other)}")
            else:
                self.lines.append(f"{where}[{idx}] = {self.val(val)}")
        elif isinstance(op, memref.LoadOp | vector.MaskedLoadOp):
            base = op.operands[0]
            if base is self.out:
                raise EmberError("TMU lowering: a callback reads the output other than in a "
                                 "load-op-store of the same element")
            arr = self._array(base, store=False)
            idx = [self.val(i) for i in _indices(op)]
            if isinstance(op, vector.MaskedLoadOp):  # lanes outside the array are off
                idx[-1] += ".."
            r = self.fresh()
            self.lines.append(f"{r} = {arr}[{', '.join(idx)}]")
            self.regs[op.results[0]] = r
        elif isinstance(op, scf.ForOp):
            lb, ub, step = (int(self._static(v)) for v in (op.lb, op.ub, op.step))
            iv = op.body.block.args[0]
            for i in range(lb, ub, step):
                self.regs[iv] = str(i)
                self._block(op.body.block, fused)
        else:
            raise EmberError(f"TMU lowering: '{name}' in a callback has no execute-block "
                             "statement")

    def _static(self, v: SSAValue) -> int:
        s = self.val(v)
        if not s.lstrip("-").isdigit():
            raise EmberError("TMU lowering: a callback loop's bounds must be static")
        return int(s)


def _indices(op: Operation) -> list[SSAValue]:
    if isinstance(op, memref.StoreOp):
        return list(op.operands[2:])
    if isinstance(op, memref.LoadOp):
        return list(op.operands[1:])
    if isinstance(op, vector.MaskedStoreOp | vector.MaskedLoadOp):
        return list(op.operands[1:-2])
    return []


def _var(op: Operation) -> int:
    a = op.attributes.get("var")
    return a.value.data if isinstance(a, IntegerAttr) else 0


def lower_to_tmu(dlc_mod: ModuleOp, inputs: dict[str, np.ndarray]) -> TmuLowering:
    """The TMU graph (dae mode) of DLC code for these inputs, ready for ``simulate``."""
    from formats.tensor import Tensor
    from sam.tmu_ops import tmu_graph

    fn = find_function(dlc_mod)
    args = bind(fn, inputs)
    env, cfg_op, loop = _static_env(fn, args)
    names = dict(zip(fn.body.block.args, arg_names(fn), strict=True))
    ret = [op for op in fn.body.block.ops if op.name == "func.return"]
    out = ret[0].operands[0] if ret and ret[0].operands else None
    if out is None or out not in names:
        raise EmberError("TMU lowering: the function must return one of its memref arguments")
    assert isinstance(loop, dlc.ComputeLoopOp)
    if any(float(env[v]) != 0 for v in loop.inits):
        raise EmberError("TMU lowering: core variables must start at 0 (execute registers do)")
    cb = _ConfigBuilder(env, names)
    config = cb.build(cfg_op)
    written = {o.operands[1] if isinstance(o, memref.StoreOp) else o.operands[0]
               for region in loop.cases for o in region.block.walk()
               if isinstance(o, memref.StoreOp | vector.MaskedStoreOp)} - {out}
    pb = _ProgramBuilder(env, out, names, written)  # env holds the bound arguments too
    tokens = {}
    for op in cfg_op.regions[0].block.ops:
        if isinstance(op, dlc.RegisterCallbackOp):
            tokens[op.cb_id] = op.token
    sections = [f"{tokens.get(cid, cid)}: {pb.case(region.block)}"
                for cid, region in zip(loop.ids, loop.cases, strict=True)]
    n_vars = len(loop.inits) or len(loop.res)
    if n_vars:  # registers must be set before a section reads them: an init section under a
        # token id the TMU never pushes (one past its tokens) sets the core variables to 0
        unused = len(set(tokens.values()))
        sections.insert(0, f"{unused}: " + "; ".join(f"var{k} = 0" for k in range(n_vars)))
    program = " | ".join(pb.declarations() + sections)
    out_arr = np.asarray(args[fn.body.block.args.index(out)], dtype=float)
    out_shape = tuple(int(n) for n in out_arr.shape)
    if out_arr.ndim == 1:  # one column of the execute block's 2-d output
        out_arr = out_arr.reshape(-1, 1)
    if out_arr.ndim != 2:
        raise EmberError("TMU lowering: the output must be a 1-d or 2-d memref")
    tensors: dict[str, Any] = {}
    formats: dict[str, str] = {}
    core_inputs = {v for v, decl in pb.arrays.items() if decl.startswith("input ")}
    for v in cb.arrays | core_inputs:
        arr = np.asarray(args[fn.body.block.args.index(v)], dtype=float)
        fmt = "d" * arr.ndim
        tensors[names[v]] = Tensor.from_dense(arr, fmt)
        formats[names[v]] = fmt
    shape = (int(out_arr.shape[0]), int(out_arr.shape[1]))
    graph = tmu_graph(config, out=names[out], shape=shape, program=program, formats=formats)
    return TmuLowering(config, program, graph, tensors, names[out], shape, out_shape)


def simulate_tmu(low: TmuLowering, engine: str = "fast", **kwargs: Any) -> tuple[np.ndarray, Any]:
    """Simulate a lowered graph (a program of one phase); returns the dense result and the
    graph's ``SimResult``."""
    from sam.program import Program

    res = Program.of(low.graph).run(low.tensors, engine=engine, **kwargs).phases[0]
    out = np.asarray(res.outputs[low.out].to_dense())
    return (out.reshape(low.out_shape) if low.out_shape else out), res


def tmu_trace(low: TmuLowering, engine: str = "reference") -> dict[str, list[Any]]:
    """The TMU's own queue trace in the ``custard ember --trace`` format."""
    from sam.blocks.tmu import queue_trace

    tr = queue_trace(low.config, low.tensors, engine=engine)
    data = [list(v[0]) if isinstance(v, tuple) else v for v in tr.data]
    return {"control": [str(c) for c in tr.ctrl], "data": data}


def access_trace(low: TmuLowering, *, engine: str = "fast", **kw: Any) -> AccessTrace:
    """The lowered TMU's :class:`~sam.dae.trace.AccessTrace` (loads, queue pushes, section
    costs; ``kw``: ``value_bytes``, ``index_bytes`` of :func:`sam.dae.record.record`)."""
    from sam.dae.record import record

    return record(low.config, low.tensors, low.program, engine=engine, **kw)
