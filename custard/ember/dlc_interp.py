"""An interpreter for DLC code: the access unit fills the control and data queues, then the
compute loop drains them (Ember paper Sec. 4, Fig. 10d-e); the queues are the trace.

Traversal units in one ``dlc.configure_access_engine`` nest in definition order (each in the
previous one, as in the artifact's ``eb_dlc.mlir``); a stream belongs to the innermost unit whose
induction variable it depends on and is recomputed at each of its iterations. Events fire as
described in :mod:`custard.ember.dlc`. A vector unit (``vlen = V``) advances by its step (``V``
lanes of stride ``step / V``); its induction variable is the first lane and ``dlc.get_mask``
gives the lanes below the upper bound.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue

from custard.ember import dlc
from custard.ember.errors import EmberError
from custard.ember.interp import Env, Interpreter, find_function


def entry(v: Any) -> Any:
    """A queue entry as JSON: a vector as a list."""
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    return v


class DlcInterpreter(Interpreter):
    """Runs a function holding DLC code; ``trace`` is ``{"control": [...], "data": [...]}``."""

    def __init__(self) -> None:
        super().__init__()
        self.control: list[tuple[int, str]] = []
        self.data: list[Any] = []
        self.trace: dict[str, list[Any]] = {"control": [], "data": []}
        self.vars: list[Any] = []
        self._pos = 0
        self.events = {"iterations": 0, "streams": 0, "tokens": 0, "entries": 0}

    # ------------------------------------------------------------------ access unit
    def op_dlc__configure_access_engine(self, op: Operation, env: Env) -> None:
        ops = list(op.regions[0].block.ops)
        tus = [o for o in ops if isinstance(o, dlc.NewTuOp)]
        depth = {t.tu: i for i, t in enumerate(tus)}
        level: dict[SSAValue, int] = {}
        streams: dict[int, list[Operation]] = {i: [] for i in range(-1, len(tus))}
        regs: dict[tuple[int, str], list[Operation]] = {}
        ivs: dict[int, tuple[SSAValue | None, SSAValue | None]] = {i: (None, None)
                                                                   for i in range(len(tus))}
        for o in ops:
            if isinstance(o, dlc.NewTuOp):
                for v in o.operands:
                    if level.get(v, -1) >= depth[o.tu]:
                        raise EmberError("dlc: a traversal unit's bound depends on itself or a "
                                         "unit nested in it")
            elif isinstance(o, dlc.GetIndVarOp | dlc.GetMaskOp):
                d = depth[o.tu]
                level[o.result] = d
                iv, mk = ivs[d]
                ivs[d] = (o.result, mk) if isinstance(o, dlc.GetIndVarOp) else (iv, o.result)
            elif isinstance(o, dlc.RegisterOperandOp | dlc.RegisterCallbackOp):
                regs.setdefault((depth[o.tu], o.event.data), []).append(o)
            else:
                d = max([level.get(v, -1) for v in o.operands] + [-1])
                for r in o.results:
                    level[r] = d
                streams[d].append(o)
        for o in streams[-1]:
            self.exec_op(o, env)
        self.control, self.data = [], []
        if tus:
            self._run_tu(0, tus, ivs, streams, regs, env)

    def _fire(self, d: int, event: str, regs: dict, env: Env) -> None:
        for r in regs.get((d, event), ()):
            if isinstance(r, dlc.RegisterOperandOp):
                self.data.append(entry(env[r.value]))
                self.events["entries"] += 1
            else:
                self.control.append((r.cb_id, r.token))
                self.events["tokens"] += 1

    def _run_tu(self, d: int, tus: list[dlc.NewTuOp], ivs: dict, streams: dict, regs: dict,
                env: Env) -> None:
        tu = tus[d]
        lb, ub, step = (int(env[v]) for v in tu.operands)
        if step <= 0:
            raise EmberError("dlc.new_tu: the step must be positive")
        vlen = tu.vlen
        iv, mk = ivs[d]
        self._fire(d, "beg", regs, env)
        i = lb
        while i < ub:
            self.events["iterations"] += 1
            if iv is not None:
                env[iv] = i
            if mk is not None:
                env[mk] = (i + np.arange(vlen) * max(step // max(vlen, 1), 1)) < ub
            for o in streams[d]:
                self.events["streams"] += 1
                self.exec_op(o, env)
            self._fire(d, "ite", regs, env)
            if d + 1 < len(tus):
                self._run_tu(d + 1, tus, ivs, streams, regs, env)
            self._fire(d, "end", regs, env)
            i += step

    # ------------------------------------------------------------------ execute unit
    def op_dlc__compute_loop(self, op: Operation, env: Env) -> list[Any]:
        assert isinstance(op, dlc.ComputeLoopOp)
        cases = dict(zip(op.ids, op.cases, strict=True))
        self.vars = [env[v] for v in op.inits] or [0] * max(len(op.res), 1)
        self._pos = 0
        for cid, name in self.control:
            if cid not in cases:
                raise EmberError(f"dlc.compute_loop: control token {name} (id {cid}) has no case")
            self.trace["control"].append(name)
            self.run_block(cases[cid].block, env)
        self.trace["control"].append("done")
        if self._pos != len(self.data):
            raise EmberError(f"dlc: {len(self.data) - self._pos} data queue entries were pushed "
                             "but never popped (push and pop registrations disagree)")
        self.trace["data"].extend(self.data)
        return self.vars[: len(op.res)]

    def op_dlc__pop_operand(self, op: Operation, env: Env) -> list[Any]:
        if self._pos >= len(self.data):
            raise EmberError("dlc.pop_operand: the data queue is empty (more pops than pushes)")
        v = self.data[self._pos]
        self._pos += 1
        return [np.array(v) if isinstance(v, list) else v]

    def _var(self, op: Operation) -> int:
        a = op.attributes.get("var")
        return a.value.data if isinstance(a, IntegerAttr) else 0

    def op_dlc__get_var(self, op: Operation, env: Env) -> list[Any]:
        return [self.vars[self._var(op)]]

    def op_dlc__increment_var(self, op: Operation, env: Env) -> None:
        step = int(env[op.operands[0]]) if op.operands else 1
        self.vars[self._var(op)] += step

    def op_dlc__set_var(self, op: Operation, env: Env) -> None:
        self.vars[self._var(op)] = env[op.operands[0]]


def run_dlc(mod: ModuleOp, args: list[Any]) -> tuple[list[Any], dict[str, list[Any]],
                                                      DlcInterpreter]:
    """Run a DLC module; returns the results, the queue trace and the interpreter."""
    it = DlcInterpreter()
    out = it.run_function(find_function(mod), args)
    return out, it.trace, it
