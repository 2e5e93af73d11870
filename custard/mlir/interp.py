"""The host interpreter for the MLIR sparsifier tests' driver functions (``--entry``).

An integration test's driver (``@entry`` or ``@main``) builds its inputs (``arith.constant
dense<...>``, ``tensor.generate``, ``sparse_tensor.new`` from the file named by ``TENSORn``),
calls the kernels and prints the results (``vector.print``, ``printMemref*``,
``sparse_tensor.print``). :func:`run_entry` interprets the driver op by op on host values
(:mod:`custard.mlir.values`) and prints what MLIR's runner prints (:mod:`custard.mlir.printing`).

Kernels run on SAM: a called function holding linalg ops is lowered once
(:func:`custard.mlir.program.lower_function`, cached) and simulated with
:func:`~custard.mlir.program.run_lowered`; when it does not lower as a whole (a ``tensor.dim``
or a dynamically sized ``tensor.empty`` inside it), it is interpreted and each of its linalg ops
runs on SAM alone, as does a linalg op written in the driver itself (``linalg.fill`` and
``linalg.copy`` on memrefs are host copies). SAM computes in float64; results of integer
kernels are rounded back to their element type. :class:`EntryRun` counts the SAM calls and
their cycles. An op outside the driver subset is an :class:`~custard.mlir.syntax.MlirError`
naming it at its position.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TextIO

import numpy as np

from custard.mlir import hostops, hostsparse, hosttensors  # noqa: F401 (they register)
from custard.mlir.encoding import TensorType
from custard.mlir.printing import memref_text, sparse_text, vector_text
from custard.mlir.program import Lowered, lower_function, run_lowered
from custard.mlir.syntax import Block, Func, Loc, MlirError, Module, Op, Region, Token, error
from custard.mlir.values import (
    HostType,
    Scope,
    dense_of,
    host_type,
    host_value,
    kernel_value,
)
from formats.errors import ToolkitError

#: runner functions printMemref<suffix> -> element type
PRINT_MEMREF = {"F64": "f64", "F32": "f32", "I64": "i64", "I32": "i32", "Ind": "index",
                "I16": "i16", "I8": "i8"}
#: functions the runner provides that print one value or a punctuation mark
PRINT_CALLS = {"printF64": "f64", "printF32": "f32", "printI64": "i64", "printU64": "index"}
PUNCT = {"printNewline": "\n", "printComma": ", ", "printOpen": "( ", "printClose": " )"}


@dataclass
class KernelCall:
    """One simulated kernel: what ran (function or op), cycles, fused units."""

    name: str
    cycles: int
    fused: int


@dataclass
class EntryRun:
    """A driver run: the function, and the SAM calls it made."""

    name: str
    kernels: list[KernelCall] = field(default_factory=list)

    @property
    def calls(self) -> int:
        return len(self.kernels)

    @property
    def cycles(self) -> int:
        return sum(k.cycles for k in self.kernels)


def default_entry(module: Module) -> str:
    """``@entry``, else ``@main``, else the only public function without arguments."""
    for name in ("entry", "main"):
        if name in module.funcs and module.funcs[name].body is not None:
            return name
    cands = [f.name for f in module.funcs.values()
             if f.body is not None and not f.private and not f.args]
    if len(cands) == 1:
        return cands[0]
    raise error(Loc(module.file, 1, 1), "no driver function: give its name (no @entry or @main,"
                                        f" and {len(cands)} public functions without arguments)")


def run_entry(module: Module, name: str | None = None, *, env: Mapping[str, str] | None = None,
              out: TextIO, engine: str = "fast", fuse: bool = True) -> EntryRun:
    """Interpret the driver ``@name`` (see module docstring), printing to ``out``."""
    name = name or default_entry(module)
    func = module.funcs.get(name)
    if func is None or func.body is None:
        raise error(Loc(module.file, 1, 1), f"no function @{name} with a body to run")
    interp = Interpreter(module, env or {}, out, engine, fuse)
    with np.errstate(all="ignore"):
        interp.call(name, [], func.loc)
    return interp.run


class Interpreter:
    """Runs functions of one module on host values (see module docstring)."""

    def __init__(self, module: Module, env: Mapping[str, str], out: TextIO, engine: str,
                 fuse: bool) -> None:
        self.module, self.env, self.out = module, env, out
        self.engine, self.fuse = engine, fuse
        self.run = EntryRun("")
        self.lowered: dict[str, Lowered | MlirError] = {}
        self.one_off: dict[int, Lowered] = {}
        self.types: dict[str, HostType] = {}
        self.depth = 0

    # ------------------------------------------------------------------------- types
    def type(self, text: str, loc: Loc) -> HostType:
        t = self.types.get(text)
        if t is None:
            t = self.types[text] = host_type(text, self.module, loc)
        return t

    def tensor_type(self, text: str, loc: Loc) -> TensorType:
        from custard.mlir.encoding import parse_type

        return parse_type(text, self.module, loc)

    # ---------------------------------------------------------------------- functions
    def call(self, name: str, args: Sequence[object], loc: Loc) -> list[object]:
        if not self.run.name:
            self.run.name = name
        func = self.module.funcs.get(name)
        if func is None:
            raise error(loc, f"call of an undefined function @{name}")
        if func.body is None:
            return self.runtime_call(func, args, loc)
        if len(args) != len(func.args):
            raise error(loc, f"@{name} takes {len(func.args)} arguments, {len(args)} given")
        if any(op.name.startswith("linalg.") for b in func.body.blocks for o in b.ops
               for op in o.walk()):
            low = self.lowered.get(name)
            if low is None:
                try:
                    low = lower_function(self.module, name)
                except MlirError as err:
                    low = err
                self.lowered[name] = low
            if isinstance(low, Lowered) and len(low.outputs) == len(func.results):
                return self.run_kernel(low, args, f"@{name}")
            if isinstance(low, MlirError) and _in_linalg(func, str(low)):
                raise low  # the kernel's computation itself is not lowered
        self.depth += 1
        if self.depth > 200:
            raise error(loc, f"call depth over 200 at @{name} (unbounded recursion?)")
        try:
            scope = Scope()
            for (ssa, _), value in zip(func.args, args, strict=True):
                scope.vals[ssa] = value
            return self.run_block(func.body.blocks[0], scope)
        finally:
            self.depth -= 1

    def run_kernel(self, low: Lowered, args: Sequence[object], label: str) -> list[object]:
        """Simulate a lowered kernel on host values; its outputs as host values."""
        try:
            call = run_lowered(low, [kernel_value(a) for a in args], fuse=self.fuse,
                               engine=self.engine)
        except MlirError:
            raise
        except ToolkitError as err:  # the DAG program's error, at the MLIR op's position
            text = low.located(err)
            if text == str(err):
                text = f"{low.func.loc}: {label}: {err}"
            raise MlirError(text) from None
        self.run.kernels.append(KernelCall(label, call.cycles, call.fused))
        return [host_value(t, tt) for t, (_, tt) in zip(call.outputs, low.outputs, strict=True)]

    def runtime_call(self, func: Func, args: Sequence[object], loc: Loc) -> list[object]:
        """The runner's library functions a test declares (``getTensorFilename``,
        ``printMemref*``, ``printF64``...)."""
        name = func.name
        if name == "getTensorFilename":
            key = f"TENSOR{int(args[0])}"  # type: ignore[call-overload]
            if key not in self.env:
                raise error(loc, f"@getTensorFilename({int(args[0])}): the variable {key} "  # type: ignore[call-overload]
                                 "naming the tensor file is not set")
            return [self.env[key]]
        m = re.fullmatch(r"print_?[Mm]emref_?(F64|F32|I64|I32|I16|I8|Ind|f64|f32|i64|i32)",
                         name)
        if m is not None:
            suffix = m.group(1)
            element = PRINT_MEMREF.get(suffix, suffix.lower())
            self.out.write(memref_text(dense_of(args[0], loc), element))
            return []
        if name in PRINT_CALLS:
            self.out.write(vector_text(np.asarray(args[0]), PRINT_CALLS[name]))
            return []
        if name in PUNCT:
            self.out.write(PUNCT[name])
            return []
        raise error(loc, f"call of @{name}, a function without a body the host interpreter "
                         "does not provide")

    # -------------------------------------------------------------------------- blocks
    def run_block(self, block: Block, scope: Scope) -> list[object]:
        """Run the ops of ``block``; the values its terminator yields or returns."""
        for op in block.ops:
            if op.name in hostops.TERMINATORS:
                return [scope.get(v, op.loc) for v in operands(op)]
            self.exec(op, scope)
        return []

    def run_region(self, region: Region, args: Sequence[object], parent: Scope,
                   implicit: Sequence[str] = ()) -> list[object]:
        """Run a one-block region with ``args`` bound to its block arguments (or to the
        ``implicit`` names when the block has no label)."""
        scope = Scope(parent)
        block = region.blocks[0]
        names = [a for a, _ in block.args] if block.args else list(implicit)
        for n, v in zip(names, args, strict=False):
            scope.vals[n] = v
        return self.run_block(block, scope)

    def exec(self, op: Op, scope: Scope) -> None:
        handler = hostops.HANDLERS.get(op.name)
        if handler is None:
            if op.name.startswith("linalg."):
                handler = hosttensors.linalg_op
            else:
                raise error(op.loc, f"{op.name} is not in the host interpreter's driver "
                                    "subset (docs/mlir.md lists it)")
        try:
            results = handler(self, op, scope)
        except ToolkitError:
            raise
        except Exception as err:  # a host failure of the op: one line at its position
            raise error(op.loc, f"{op.name}: {type(err).__name__}: {err}") from None
        if results is None:
            results = []
        if len(results) != len(op.results):
            raise error(op.loc, f"{op.name} gives {len(results)} values for "
                                f"{len(op.results)} results")
        for n, v in zip(op.results, results, strict=True):
            scope.vals[n] = v

    # ---------------------------------------------------------------- linalg on SAM
    def run_linalg(self, op: Op, scope: Scope) -> list[object]:
        """A linalg op outside a lowered kernel: lowered alone (cached) and run on SAM."""
        ins, _ = op.group("ins")
        outs, _ = op.group("outs")
        low = self.one_off.get(id(op))
        if low is None:
            low = self.lower_one(op, scope)
            self.one_off[id(op)] = low
        args = [scope.get(v, op.loc) for v in ins + outs]
        label = f"{op.name}@{op.loc.line}"
        results = self.run_kernel(low, args, label)
        if not op.results:  # on memrefs: write the result in place
            target = args[-1]
            if not isinstance(target, np.ndarray):
                raise error(op.loc, f"{op.name} without results writes a memref")
            target[...] = dense_of(results[0], op.loc)
            return []
        return results

    def lower_one(self, op: Op, scope: Scope) -> Lowered:
        """``op`` as a function of its ``ins`` and ``outs``, lowered; scalars its region
        reads from outside become constants."""
        ins, in_types = op.group("ins")
        outs, out_types = op.group("outs")
        if len(in_types) != len(ins) or len(out_types) != len(outs):
            raise error(op.loc, f"{op.name}: cannot read the types of its operands")
        loc = op.loc
        body: list[Op] = []
        defined = {a for r in op.regions for b in r.blocks for a, _ in b.args}
        inner_ops = [o for r in op.regions for b in r.blocks for x in b.ops for o in x.walk()]
        for inner in inner_ops:
            defined.update(inner.results)
            defined.update(a for r in inner.regions for b in r.blocks for a, _ in b.args)
        for inner in inner_ops:
            for v in inner.values():
                if v in defined or v in body_names(body):
                    continue
                value = scope.get(v, inner.loc)
                if isinstance(value, (np.generic, int, float, bool)):
                    body.append(constant_op(v, value, loc))
        results = op.results or ["%__result"]
        body.append(dataclasses.replace(op, results=results))
        body.append(Op("func.return", [], [Token("value", results[0], loc)], [], loc))
        name = f"__op_{loc.line}_{loc.col}"
        func = Func(name, list(zip(ins + outs, in_types + out_types, strict=True)), [],
                    Region([Block("", [], body, loc)], loc), loc)
        module = Module(self.module.file, {name: func}, self.module.aliases)
        return lower_function(module, name)


def _in_linalg(func: Func, message: str) -> bool:
    """Whether an error message's position is a linalg op of ``func`` or an op in its
    region."""
    m = re.match(r"(.*?):(\d+):(\d+): ", message)
    if m is None or func.body is None:
        return False
    where = (int(m.group(2)), int(m.group(3)))
    for top in (o for b in func.body.blocks for o in b.ops):
        for op in top.walk():
            if op.name.startswith("linalg."):
                if any((x.loc.line, x.loc.col) == where for x in op.walk()):
                    return True
    return False


def body_names(body: list[Op]) -> set[str]:
    return {r for o in body for r in o.results}


def constant_op(name: str, value: object, loc: Loc) -> Op:
    """``name = arith.constant value`` (for a one-off kernel's region)."""
    x = float(value)  # type: ignore[arg-type]
    if not np.isfinite(x):
        raise error(loc, f"the region reads {name} = {x:g}: a non-finite constant is not "
                         "lowered to SAM")
    text = str(int(x)) if x == int(x) else repr(x)
    return Op("arith.constant", [name], [Token("number", text, loc)], [], loc)


def operands(op: Op) -> list[str]:
    """The SSA operands of a terminator (``scf.yield %a, %b : f64, f64``)."""
    return op.values()


__all__ = ["EntryRun", "Interpreter", "KernelCall", "run_entry", "default_entry", "sparse_text"]
