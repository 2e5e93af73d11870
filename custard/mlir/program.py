"""A function of linalg ops as a SAM program: a DAG program of statements (GOGETA Sec. 2.2),
compiled with the pipelineable edges fused (:mod:`custard.dag.run`).

:func:`lower_function` walks a kernel function's body in order: arguments are the program's
inputs; ``tensor.empty``/``bufferization.alloc_tensor`` make zero tensors (an output
initialised by one reads nothing; their sizes, ``tensor.dim``, come from the operands); linalg
ops become statements (:mod:`custard.mlir.lower`); ``sparse_tensor.convert`` is a copy into
the new format; ``return`` names the outputs. The statements form a
:class:`~custard.dag.program.DagProgram`, so the MLIR front end gets the DAG front end's
labelling, fusion (``--no-fuse`` for the program op by op), traffic model and run path, and its
errors name the MLIR op's file position.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from custard.mlir.encoding import ELEMENT_TYPES, TensorType, parse_type
from custard.mlir.lower import (
    LETTERS,
    NAMED,
    Env,
    Statement,
    access,
    constant_text,
    fmt_text,
    lower_generic,
    lower_named,
)
from custard.mlir.syntax import Func, Loc, Module, Op, Token, error
from formats.tensor import Tensor

#: ops of a kernel function that compute nothing on SAM
_SHAPE_OPS = {"tensor.empty", "bufferization.alloc_tensor"}


@dataclass
class Lowered:
    """A kernel function lowered: its statements, inputs (SSA name, tensor name, type) and
    outputs (tensor name, type)."""

    module: Module
    func: Func
    statements: list[Statement]
    inputs: list[tuple[str, str, TensorType]]
    outputs: list[tuple[str, TensorType]]
    zeros: dict[str, TensorType] = field(default_factory=dict)
    #: tensors the kernel fills with one constant (linalg.fill, a splat, a generic yielding a
    #: constant): name -> (type, literal)
    filled: dict[str, tuple[TensorType, str]] = field(default_factory=dict)
    #: (fuse, inputs' names, shapes, formats) -> (DAG, compiled units)
    compiled: dict = field(default_factory=dict, repr=False)

    def text(self) -> str:
        """The DAG program (custard/dag/program.py) the function lowers to."""
        lines = [f"# {self.module.file}: @{self.func.name}"]
        lines += [st.line() for st in self.statements]
        kept = [n for n, _ in self.outputs if any(st.target == n for st in self.statements)]
        if kept:
            lines.append("out: " + " ".join(dict.fromkeys(kept)))
        return "\n".join(lines) + "\n"

    def dag_program(self):  # -> DagProgram
        from custard.dag.program import parse_program

        return parse_program(self.text(), self.source)

    def compile(self, tensors: Mapping[str, Tensor], *, fuse: bool = True):  # -> (Dag, units)
        """Its DAG program labelled for ``tensors`` and compiled to units (custard.dag.run),
        once per fusion choice and input names, shapes and formats: a kernel called in a loop
        compiles once."""
        from custard.dag.bind import input_infos
        from custard.dag.labels import build_dag
        from custard.dag.run import compile_dag

        key = (fuse, tuple((n, t.shape, str(t.format)) for n, t in sorted(tensors.items())))
        if key not in self.compiled:
            prog = self.dag_program()
            dag = build_dag(prog, input_infos(prog, tensors))
            self.compiled[key] = (dag, compile_dag(dag, fuse=fuse))
        return self.compiled[key]

    @property
    def source(self) -> str:
        """The name its DAG program's errors start with (``FILE:@func``)."""
        return f"{self.module.file}:@{self.func.name}"

    def located(self, err: Exception) -> str:
        """An error of its DAG program with ``line N`` replaced by the MLIR op's position."""
        text = str(err)
        m = re.match(re.escape(self.source) + r" line (\d+): (.*)", text, re.S)
        if m is None:
            return text
        k = int(m.group(1)) - 2  # line 1 is the program's comment
        if 0 <= k < len(self.statements):
            return f"{self.statements[k].loc}: {m.group(2)}"
        return text

    def bind(self, values: Sequence[object]) -> dict[str, Tensor]:
        """Tensors by name from the call's argument values (Tensors, numpy arrays, numbers),
        each in its type's format."""
        if len(values) != len(self.inputs):
            raise error(self.func.loc, f"@{self.func.name} takes {len(self.inputs)} arguments, "
                                       f"{len(values)} given")
        out: dict[str, Tensor] = {}
        for value, (_, name, t) in zip(values, self.inputs, strict=True):
            out[name] = as_tensor(value, t)
        return out


    def check_shapes(self, tensors: Mapping[str, Tensor]) -> None:
        """Refuse a bound tensor whose shape differs from its argument's static sizes."""
        for ssa, name, t in self.inputs:
            have = tensors.get(name)
            if have is None:
                continue
            if len(have.shape) != t.rank or any(
                    d is not None and d != h for d, h in zip(t.shape, have.shape, strict=True)):
                raise error(self.func.loc, f"argument {ssa} is {_shape(t)} but the tensor "
                                           f"bound to it is {'x'.join(map(str, have.shape))}")


def _shape(t: TensorType) -> str:
    return "x".join("?" if d is None else str(d) for d in t.shape) + f"x{t.element}"


def static_inputs(low: Lowered) -> dict[str, Tensor]:
    """Empty tensors of the arguments' static shapes (to compile without data)."""
    out: dict[str, Tensor] = {}
    for ssa, name, t in low.inputs:
        if any(d is None for d in t.shape):
            raise error(low.func.loc, f"argument {ssa} has dynamic sizes ({_shape(t)}): bind "
                                      "the arguments with -t ARG=SPEC to size the program")
        out[name] = as_tensor(np.zeros(t.shape), t)
    return out


def as_tensor(value: object, t: TensorType) -> Tensor:
    """``value`` as a Tensor in ``t``'s format (dense levels without an encoding)."""
    fmt = t.format_or_dense()
    if isinstance(value, Tensor):
        if value.format == fmt:
            return value
        return value.with_format(fmt)
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim != t.rank:
        raise error(Loc("<call>", 0, 0), f"a rank-{arr.ndim} value for a rank-{t.rank} tensor")
    return Tensor.from_dense(arr, fmt)


def _scalar_or_tensor(text: str, module: Module, loc: Loc) -> TensorType:
    word = module.resolve(text).strip()
    if word in ELEMENT_TYPES:
        return TensorType((), word)
    return parse_type(word, module, loc)


def tensor_name(ssa: str, taken: set[str]) -> str:
    """A tensor name for an SSA value (``%arga`` -> ``arga``, ``%0`` -> ``t0``), unique."""
    base = re.sub(r"[^A-Za-z0-9_]", "_", ssa.lstrip("%"))
    if not base or not (base[0].isalpha() or base[0] == "_"):
        base = "t" + base
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name


def lower_function(module: Module, name: str) -> Lowered:
    """Lower ``@name`` of ``module`` (see module docstring)."""
    func = module.funcs.get(name)
    if func is None:
        raise error(Loc(module.file, 1, 1), f"no function @{name} (functions: "
                                            f"{', '.join('@' + f for f in module.funcs)})")
    if func.body is None:
        raise error(func.loc, f"@{name} is a declaration without a body")
    taken: set[str] = set()
    env = Env(fresh=lambda base: tensor_name(base, taken),
              parse_type=lambda text, loc: parse_type(text, module, loc))
    inputs: list[tuple[str, str, TensorType]] = []
    for ssa, text in func.args:
        t = _scalar_or_tensor(text, module, func.loc)
        n = tensor_name(ssa, taken)
        env.names[ssa], env.types[ssa] = n, t
        inputs.append((ssa, n, t))
    statements: list[Statement] = []
    outputs: list[tuple[str, TensorType]] = []
    for op in func.body.ops:
        statements += _lower_op(op, module, env, outputs)
    return Lowered(module, func, distinct_indices(statements), inputs, outputs, env.zeros,
                   env.fills)


_ACCESS = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\(([^()]*)\)")


def distinct_indices(statements: list[Statement]) -> list[Statement]:
    """The statements with index variables renamed so that two statements share a name only
    for one dimension: a statement reading an earlier result names its dimensions as its
    writer did, and its other variables avoid every earlier statement's names. Each op's
    maps name dimensions on their own (``d0`` is ``i`` everywhere), and a fused graph
    (:mod:`custard.dag.fusion`) holds both statements' scanners, whose sizes are checked and
    read by variable name."""
    written: dict[str, list[str]] = {}
    used: set[str] = set()
    out: list[Statement] = []
    for st in statements:
        accesses = [(n, [v.strip() for v in idx.split(",") if v.strip()])
                    for n, idx in _ACCESS.findall(st.text)]
        names = list(dict.fromkeys(v for _, idx in accesses for v in idx))
        ren: dict[str, str] = {}
        for n, idx in accesses[1:]:
            for v, w in zip(idx, written.get(n, ()), strict=False):
                if v not in ren and w not in ren.values():
                    ren[v] = w
        for v in names:
            if v in ren:
                continue
            if v in used or v in ren.values():
                taken = used | set(names) | set(ren.values())
                ren[v] = next((c for c in LETTERS if c not in taken),
                              next(f"{v}{k}" for k in range(2, 10**6) if f"{v}{k}" not in taken))
            else:
                ren[v] = v
        if any(k != v for k, v in ren.items()):
            text = _ACCESS.sub(lambda m, ren=ren: access(m.group(1), [
                ren.get(v.strip(), v.strip()) for v in m.group(2).split(",") if v.strip()]),
                st.text)
            order = [ren.get(v, v) for v in st.order] if st.order else st.order
            st = replace(st, text=text, order=order)
        if accesses:
            written[accesses[0][0]] = [ren.get(v, v) for v in accesses[0][1]]
        used |= set(ren.values())
        out.append(st)
    return out


def _lower_op(op: Op, module: Module, env: Env,
              outputs: list[tuple[str, TensorType]]) -> list[Statement]:
    if op.name == "arith.constant" and op.results and not any(
            t.text.startswith(("dense<", "sparse<")) for t in op.tokens):
        env.constants[op.results[0]] = constant_text(op)
        return []
    dense = next((t.text for t in op.tokens if t.text.startswith("dense<")), None)
    if op.name == "arith.constant" and dense is not None and op.results:
        splat = dense[len("dense<"):-1].strip()
        t = parse_type(op.types()[-1], module, op.loc)
        if t.rank and not splat.startswith("["):
            fake = Op("arith.constant", op.results, [Token("number", splat, op.loc)] + [
                tok for tok in op.tokens if tok.kind == "word"], [], op.loc)
            _made(env, op.results[0], t, constant_text(fake))
            return []
        raise error(op.loc, "a tensor constant other than a splat (dense<c>) inside a kernel "
                            "is not lowered; pass it as an argument")
    if op.name == "linalg.fill":
        ins, _ = op.group("ins")
        outs, _ = op.group("outs")
        value = env.constants.get(ins[0]) if ins else None
        if value is None:
            raise error(op.loc, "linalg.fill with a value that is not a constant of the "
                                "function is not lowered")
        t = _result(op, module, env, outs)
        _made(env, op.results[0], t, value)
        return []
    if op.name in _SHAPE_OPS:
        types = op.types()
        t = parse_type(types[-1], module, op.loc)
        n = env.fresh(op.results[0][1:])
        env.names[op.results[0]], env.types[op.results[0]] = n, t
        env.zeros[n] = t
        return []
    value = _yielded_constant(op, env) if op.name == "linalg.generic" else None
    if value is not None and not op.group("ins")[0] and op.results:
        outs, _ = op.group("outs")  # x(i) = c: a fill of the output's shape
        _made(env, op.results[0], _result(op, module, env, outs), value)
        return []
    if op.name == "linalg.generic":
        return lower_generic(op, env, module.resolve)
    if op.name in NAMED or op.name == "linalg.transpose":
        return lower_named(op, env)
    if op.name == "sparse_tensor.convert":
        src = op.values()[0]
        name, st = env.tensor(src, op.loc)
        types = op.types()
        t = parse_type(op.after("to")[0].text if op.after("to") else types[-1], module, op.loc)
        target = env.fresh(op.results[0][1:])
        idx = "ijklmnop"[:t.rank]
        text = f"{access(target, list(idx))} = {access(name, list(idx))}"
        env.names[op.results[0]], env.types[op.results[0]] = target, t
        return [Statement(target, text, {target: fmt_text(t), name: fmt_text(st)}, op.loc)]
    if op.name in ("return", "func.return"):
        for v in op.values():
            outputs.append(env.tensor(v, op.loc))
        return []
    if op.name in ("bufferization.dealloc_tensor", "memref.dealloc", "tensor.dim"):
        return []
    raise error(op.loc, f"{op.name} in a kernel function is not lowered to SAM (kernels are "
                        "linalg ops, sparse_tensor.convert, tensor.empty and return)")


@dataclass
class Call:
    """One call of a lowered kernel on SAM: its outputs and per-unit cycles."""

    outputs: list[Tensor]
    cycles: int
    units: list[tuple[str, int]]  #: (unit label, cycles)
    fused: int  #: units that fuse two or more statements


def _result(op: Op, module: Module, env: Env, outs: list[str]) -> TensorType:
    arrow = op.after("->")
    if arrow:
        return parse_type(arrow[0].text, module, op.loc)
    return env.tensor(outs[0], op.loc)[1]


def _yielded_constant(op: Op, env: Env) -> str | None:
    """The constant a generic yields, or None (it computes its value)."""
    region = op.regions[0].ops if op.regions else []
    local = {o.results[0]: constant_text(o) for o in region
             if o.name == "arith.constant" and o.results}
    last = region[-1] if region else None
    value = last.values()[0] if last is not None and last.values() else ""
    return local.get(value, env.constants.get(value))


def _made(env: Env, ssa: str, t: TensorType, value: str) -> None:
    """A tensor the kernel makes with every entry ``value`` (a literal)."""
    n = env.fresh(ssa[1:])
    env.names[ssa], env.types[ssa] = n, t
    if value in ("0", "-0"):
        env.zeros[n] = t
    else:
        env.fills[n] = (t, value)


def run_lowered(low: Lowered, values: Sequence[object], *, fuse: bool = True,
                engine: str = "fast") -> Call:
    """Simulate the kernel on ``values`` (one per argument) and return its outputs."""
    from custard.dag.run import run_units

    tensors = low.bind(values)
    if not low.statements:
        outs = [tensors[n] if n in tensors else made_tensor(low, n) for n, _ in low.outputs]
        return Call(outs, 0, [], 0)
    dag, units = low.compile(tensors, fuse=fuse)
    result = run_units(dag, units, tensors, engine=engine)
    have = result.tensors
    outs = []
    for n, t in low.outputs:
        value = have[n] if n in have else made_tensor(low, n)
        fmt = t.format_or_dense()
        outs.append(value if value.format == fmt else value.with_format(fmt))
    return Call(outs, result.cycles, [(u.unit.label(dag), u.cycles) for u in result.units],
                sum(1 for u in units if u.kind == "fused"))


def made_tensor(low: Lowered, name: str) -> Tensor:
    """A returned tensor the kernel made without computing it: zeros, or filled with one
    constant (every entry stored, as the sparsifier stores a filled sparse output)."""
    t = low.zeros.get(name) or low.filled.get(name, (None, ""))[0]
    if t is None:
        raise error(low.func.loc, f"@{low.func.name} returns {name}, which it never computes")
    if any(d is None for d in t.shape):
        raise error(low.func.loc, f"@{low.func.name} returns a made tensor of dynamic size "
                                  f"({name}); give its type static sizes")
    value = float(low.filled[name][1]) if name in low.filled else 0.0
    shape = tuple(d or 0 for d in t.shape)
    if value == 0.0:
        return Tensor.from_coo(np.zeros((0, t.rank), np.int64), np.zeros(0), shape,
                               t.format_or_dense())
    return Tensor.from_dense(np.full(shape, value), t.format_or_dense())


def reference_inputs(low: Lowered, values: Mapping[str, object]) -> list[object]:
    """Argument values in call order from a mapping by SSA name (``%arga``) or tensor name."""
    out = []
    for ssa, name, _ in low.inputs:
        if ssa in values:
            out.append(values[ssa])
        elif name in values:
            out.append(values[name])
        else:
            raise error(low.func.loc, f"@{low.func.name}: argument {ssa} is not bound")
    return out
