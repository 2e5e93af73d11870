"""``slc-to-dlc``: split SLC into the access unit's dataflow code and the core's compute loop
(Ember paper Sec. 6.3).

Each outermost SLC loop nest becomes a ``dlc.configure_access_engine`` (one traversal unit per
loop, nested in definition order, its streams, and the marshaling registrations) followed by a
``dlc.compute_loop`` with one case per callback. Tokens: a callback with no loop after it in
its loop ``L``'s body is pushed on ``L``'s ``ite`` event (token ``<L>i``); one after a nested
loop ``Q`` on ``L``'s ``end`` event (token ``<Q>e``); one before ``Q`` on ``L``'s ``ite``
(token ``<Q>b``). Loops are lettered from the innermost: ``e``, ``s``, ``b``, then ``l3``...
A callback's ``slc.from_stream`` reads become ``dlc.pop_operand`` and their streams are pushed
on ``L``'s ``ite`` event, in the same order (on ``end`` for a callback after a nested loop whose
own callbacks pop data, so the queue stays in pop order); a buffer stream is pushed vector by
vector on the ``ite`` event of the loop that fills it and popped by its ``slcvec.from_buffer``
reads. Core values become core variables (``dlc.get_var``): O3's loop counters advance with
``dlc.increment_var``; a loop's other carried values (``iter_args``) and a callback's results read
by later callbacks are set with ``dlc.set_var`` by the callback computing them, and a nested
loop's carried variable is set back to its (static) initial value at the end of the first
callback after the loop (a new one when there is none), ready for the next fiber. None of them
crosses the queues, so the data queue stays in pop order.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    i64,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from custard.ember import dlc, slc, slcvec
from custard.ember.errors import EmberError

LOOPS = (slc.ForOp, slcvec.ForOp)


def _chain_depth(loop: Operation) -> int:
    inner = [op for op in loop.regions[0].block.ops if isinstance(op, LOOPS)]
    return 1 + (max(_chain_depth(op) for op in inner) if inner else 0)


def _letter(depth: int, n: int) -> str:
    k = n - 1 - depth
    return ("e", "s", "b")[k] if k < 3 else f"l{k}"


class _Lowering:
    def __init__(self, root: Operation) -> None:
        self.root = root
        self.n = _chain_depth(root)
        self.acc = Block()
        self.smap: dict[SSAValue, SSAValue] = {}
        self.buffers: dict[SSAValue, tuple[SSAValue, SSAValue]] = {}  # buf -> (tu, vec stream)
        self.cases: list[tuple[int, Region]] = []
        self.yield_of: dict[Block, Operation | None] = {}  # loop body -> its slc.yield
        self.carried: list[tuple[int, SSAValue]] = []  # loop-carried variables, their inits
        #: core values (carried block args, loop results, callback results) -> var index
        self.vars: dict[SSAValue, int] = {}
        self.var_inits: list[SSAValue | Attribute] = []  # a value, or a type starting at 0
        self.var_results: list[tuple[SSAValue, int]] = []

    def new_var(self, init: SSAValue | Attribute) -> int:
        self.var_inits.append(init)
        return len(self.var_inits) - 1

    def add(self, op: Operation) -> Operation:
        self.acc.add_op(op)
        return op

    def lower_loop(self, loop: Operation, depth: int) -> SSAValue:
        lb, ub, st = (self.smap.get(v, v) for v in loop.operands[:3])
        tu_op = dlc.NewTuOp.build(operands=[lb, ub, st], result_types=[dlc.TuType()])
        tu_op.attributes["name"] = StringAttr(_letter(depth, self.n))
        if isinstance(loop, slcvec.ForOp):
            tu_op.attributes["vlen"] = IntegerAttr(loop.vlen, i64)
        self.add(tu_op)
        tu = tu_op.tu
        block = loop.regions[0].block
        iv = self.add(dlc.GetIndVarOp.build(operands=[tu],
                                            result_types=[slc.StreamType(IndexType())]))
        self.smap[block.args[0]] = iv.results[0]
        n_iv = 1
        if isinstance(loop, slcvec.ForOp):
            mk = self.add(dlc.GetMaskOp.build(operands=[tu], result_types=[block.args[1].type]))
            self.smap[block.args[1]] = mk.results[0]
            n_iv = 2
        inits = list(loop.operands[4:] if isinstance(loop, slcvec.ForOp) else loop.operands[3:])
        resets: list[tuple[int, SSAValue]] = []  # a nested loop's vars, reset after it
        for i, (arg, init, res) in enumerate(zip(block.args[n_iv:], inits, loop.results,
                                                 strict=True)):
            if depth > 0 and init in self.vars:  # continues the enclosing loop's value
                self._check_continues(loop, i, init)
                self.vars[arg] = self.vars[res] = self.vars[init]
                continue
            k = self.new_var(init)
            self.carried.append((k, init))
            self.vars[arg] = k
            self.vars[res] = k
            if depth == 0:
                self.var_results.append((res, k))
            else:
                resets.append((k, init))
        self.yield_of[block] = block.last_op
        ops = list(block.ops)
        loop_pos = [i for i, op in enumerate(ops) if isinstance(op, LOOPS)]
        pending: list[tuple[int, SSAValue]] = []
        for i, op in enumerate(ops):
            if isinstance(op, LOOPS):
                pending += self.lower_loop(op, depth + 1)
                if pending and not any(isinstance(o, slc.CallbackOp) for o in ops[i + 1:]):
                    cb = slc.CallbackOp.build(result_types=[[]], regions=[Region(Block())])
                    self.lower_callback(cb, tu, "end", _letter(depth + 1, self.n) + "e", "end",
                                        pending)
                    pending = []
            elif isinstance(op, slc.CallbackOp):
                after = [j for j in loop_pos if j > i]
                before = [j for j in loop_pos if j < i]
                if after:
                    event, name = "ite", _letter(depth + 1, self.n) + "b"
                elif before:
                    event, name = "end", _letter(depth + 1, self.n) + "e"
                else:
                    event, name = "ite", _letter(depth, self.n) + "i"
                # scalars go on ``ite`` (before the nested loops' data) unless a nested loop
                # pushes data of its own callbacks first: then on ``end``, in queue order
                nested_cbs = any(isinstance(o, slc.CallbackOp) for j in before
                                 for o in ops[j].walk())
                push = "end" if event == "end" and nested_cbs else "ite"
                self.lower_callback(op, tu, event, name, push, pending)
                pending = []
            elif isinstance(op, slcvec.BufStreamOp):
                self.buffers[op.result] = (tu, tu)  # filled below by its to_buffer
            elif isinstance(op, slcvec.ToBufferOp):
                self.buffers[op.buffer] = (tu, self.smap[op.value])
            elif isinstance(op, slc.YieldOp | slcvec.YieldOp | slcvec.VectorizeForOp):
                continue
            else:
                self.add(op.clone(value_mapper=self.smap))
        if depth == 0:
            needed = [(k, init) for k, init in self.carried if not self._index_only(k)]
            if needed:
                self.init_callback(tu, needed)
        return resets

    def _index_only(self, k: int) -> bool:
        """Whether variable ``k`` is read only as an index of memory (O3's counters): lane 0 of
        a register the core never set is 0, so it needs no ``init`` token."""
        for _, region in self.cases:
            for op in region.walk():
                if not isinstance(op, dlc.GetVarOp) or _var_of(op) != k:
                    continue
                for use in op.result.uses:
                    user, i = use.operation, use.index
                    n = len(user.operands)
                    if not ((user.name == "memref.store" and i >= 2)
                            or (user.name == "memref.load" and i >= 1)
                            or (user.name in ("vector.maskedstore", "vector.maskedload")
                                and 1 <= i < n - 2)):
                        return False
        return True

    def _check_continues(self, loop: Operation, i: int, init: SSAValue) -> None:
        """A nested loop's carried value starting from a core value must continue its parent's
        (start at the parent's carried argument, which the parent carries on): both then share
        one core variable."""
        parent = loop.parent_block()
        last = self.yield_of.get(parent) if parent is not None else None
        yielded = list(last.operands) if last is not None else []
        carried = list(parent.args[len(parent.args) - len(yielded):]) if parent else []
        if init not in carried or yielded[carried.index(init)] is not loop.results[i]:
            raise EmberError("slc-to-dlc: a nested loop's carried value may start at a core "
                             "value only when it continues its parent's (starts at the "
                             "parent's carried value, which the parent carries on)")

    def init_callback(self, tu: SSAValue, needed: list[tuple[int, SSAValue]]) -> None:
        """Set carried variables to their initial values once, on the outermost unit's ``beg``
        event (token ``init``): a core that keeps its variables in registers (the TMU's execute
        block) sets them there, before any callback reads them."""
        cid = len(self.cases) + 1
        body = Block()
        for k, init in needed:
            st = dlc.SetVarOp.build(operands=[init])
            st.attributes["var"] = IntegerAttr(k, i64)
            body.add_op(st)
        body.add_op(dlc.YieldOp.build())
        reg = dlc.RegisterCallbackOp.build(operands=[tu], properties={"event": StringAttr("beg")})
        reg.attributes["id"] = IntegerAttr(cid, i64)
        reg.attributes["token"] = StringAttr("init")
        self.add(reg)
        self.cases.append((cid, Region(body)))

    def _targets(self, cb: slc.CallbackOp) -> list[int]:
        """The core variable each result of ``cb`` sets: the carried variable it feeds (the
        loop's ``slc.yield``), else a new one for the later callbacks reading it."""
        block = cb.parent_block()
        last = self.yield_of.get(block) if block is not None else None
        out = []
        for r in cb.res:
            yielded = list(last.operands) if last is not None else []
            carried = block.args[len(block.args) - len(yielded):] if block is not None else []
            feeds = [self.vars[a] for a, v in zip(carried, yielded, strict=True)
                     if v is r and a in self.vars]
            k = feeds[-1] if feeds else self.new_var(r.type)
            self.vars[r] = k
            out.append(k)
        return out

    def lower_callback(self, cb: slc.CallbackOp, tu: SSAValue, event: str, name: str,
                       push: str, resets: Sequence[tuple[int, SSAValue]] = ()) -> None:
        cid = len(self.cases) + 1
        body = Block()
        vmap: dict[SSAValue, SSAValue] = {}
        buffers: set[SSAValue] = set()
        ops = list(cb.body.block.ops)
        # core values it gives: O3 counter increments (``arith.addi %counter, %step``) become
        # increment_var, other values set_var
        sets: list[tuple[int, SSAValue]] = []
        incs: list[tuple[int, Operation]] = []
        last = ops[-1] if ops else None
        if cb.res and not isinstance(last, slc.YieldOp) and not any(r.uses for r in cb.res):
            pass  # results declared but neither given nor used (the artifact's ``} : index``)
        elif cb.res:
            if not isinstance(last, slc.YieldOp) or len(last.values) != len(cb.res):
                raise EmberError("slc-to-dlc: a callback with results must end in an slc.yield "
                                 "of one value per result")
            ops = ops[:-1]
            for k, v in zip(self._targets(cb), last.values, strict=True):
                add = v.owner
                if isinstance(add, arith.AddiOp) and self.vars.get(add.lhs) == k and \
                        add.result.has_one_use():
                    incs.append((k, add))
                    ops = [op for op in ops if op is not add]
                else:
                    sets.append((k, v))
        used = dict.fromkeys(v for op in ops for o in op.walk() for v in o.operands
                             if v in self.vars)
        used.update((v, None) for _, v in sets if v in self.vars)
        for v in used:
            g = dlc.GetVarOp.build(result_types=[v.type])
            g.attributes["var"] = IntegerAttr(self.vars[v], i64)
            body.add_op(g)
            vmap[v] = g.result
        for op in ops:
            if isinstance(op, slc.FromStreamOp):
                if op.stream in self.buffers:
                    btu, vec = self.buffers[op.stream]
                    self.add(dlc.RegisterOperandOp.build(
                        operands=[btu, vec], properties={"event": StringAttr("ite")}))
                    buffers.add(op.value)
                    continue
                self.add(dlc.RegisterOperandOp.build(
                    operands=[tu, self.smap.get(op.stream, op.stream)],
                    properties={"event": StringAttr(push)}))
                p = dlc.PopOperandOp.build(result_types=[op.value.type])
                body.add_op(p)
                vmap[op.value] = p.result
            elif isinstance(op, slc.YieldOp):
                continue
            else:
                body.add_op(_clone_popping(op, vmap, buffers))
        for k, add in incs:
            inc = dlc.IncrementVarOp.build(operands=[[add.operands[1]]])
            inc.attributes["var"] = IntegerAttr(k, i64)
            body.add_op(inc)
        for k, v in [*sets, *resets]:
            st = dlc.SetVarOp.build(operands=[vmap.get(v, v)])
            st.attributes["var"] = IntegerAttr(k, i64)
            body.add_op(st)
        body.add_op(dlc.YieldOp.build())
        reg = dlc.RegisterCallbackOp.build(operands=[tu], properties={"event": StringAttr(event)})
        reg.attributes["id"] = IntegerAttr(cid, i64)
        reg.attributes["token"] = StringAttr(name)
        self.add(reg)
        self.cases.append((cid, Region(body)))


def _var_of(op: Operation) -> int:
    a = op.attributes.get("var")
    return a.value.data if isinstance(a, IntegerAttr) else 0


def _clone_popping(op: Operation, vmap: dict[SSAValue, SSAValue], buffers: set[SSAValue]):
    """Clone ``op``; every ``slcvec.from_buffer`` of a buffer becomes a vector pop."""
    new = op.clone(value_mapper=vmap)
    for o in list(new.walk()):
        if isinstance(o, slcvec.FromBufferOp) and _origin(o.buffer, vmap) in buffers:
            p = dlc.PopOperandOp.build(result_types=[o.result.type])
            parent = o.parent_block()
            assert parent is not None
            parent.insert_op_before(p, o)
            o.result.replace_all_uses_with(p.result)
            parent.erase_op(o)
    return new


def _origin(v: SSAValue, vmap: dict[SSAValue, SSAValue]) -> SSAValue:
    for k, w in vmap.items():
        if w is v:
            return k
    return v


def slc_to_dlc(mod: ModuleOp) -> ModuleOp:
    """A new module with each outermost SLC loop nest lowered to DLC."""
    mod = mod.clone()
    for fn in [op for op in mod.body.block.ops if isinstance(op, FuncOp)]:
        for root in [op for op in fn.body.block.ops if isinstance(op, LOOPS)]:
            low = _Lowering(root)
            low.lower_loop(root, 0)
            parent = fn.body.block
            inits = []
            for init in low.var_inits:  # a callback's value starts at 0 of its type
                if not isinstance(init, SSAValue):
                    zero = FloatAttr(0.0, init) if isinstance(init, AnyFloat) else \
                        IntegerAttr(0, init)
                    c = arith.ConstantOp(zero, init)
                    parent.insert_op_before(c, root)
                    init = c.result
                inits.append(init)
            cfg = dlc.ConfigureAccessEngineOp.build(regions=[Region(low.acc)])
            ids = DenseArrayBase.from_list(i64, [c for c, _ in low.cases])
            loop = dlc.ComputeLoopOp.build(
                operands=[inits], result_types=[[v.type for v in inits]],
                regions=[[r for _, r in low.cases]], properties={"cases": ids})
            parent.insert_op_before(cfg, root)
            parent.insert_op_before(loop, root)
            for res, k in low.var_results:
                res.replace_all_uses_with(loop.res[k])
            parent.erase_op(root, safe_erase=False)
    return mod

