"""``scf-to-slc``: decouple an scf loop nest into SLC (Ember paper Sec. 6.2, Fig. 13).

An ``scf.for`` is an *offloading candidate* when (1) its bounds are static (defined at the
function's top level) or computed by an enclosing offloaded loop, its step is static and its
loop-carried values (``iter_args``) start at static values or continue the enclosing loop's
(start at its carried value, which it carries on), and (2) its loop nest loads from
read-only memory (a memref argument the function never stores into) at a place no enclosing or
earlier offloaded loop already read; loops that only work on partial results (workspace loops)
fail (2). One candidate per level is chosen, from the outermost loop inward. A chosen loop
becomes an ``slc.for``; its read-only loads and index arithmetic become ``slc.mem_stream``/
``slc.alu_stream``; the other operations (compute code, stores, workspace loops) go, in order,
into ``slc.callback``\\ s placed before and after the nested chosen loop, reading streams with
``slc.from_stream``. An innermost chosen loop is marked ``slcvec.vectorize_for`` (a
vectorization candidate, Sec. 7.1).

Values on the core side cross callbacks as *core values* (core variables in DLC), never through
the queues: a loop's carried values are its ``init_args`` (updated by the callbacks that compute
them, as O3's counters are) and its results; a value one callback computes for a later one (an
outer-callback value: a per-segment scale used by every element's callback) is a result of the
callback that computes it. ``arith.index_cast`` of a stream is the stream (torch-mlir's ``i64``
index arrays).
"""

from __future__ import annotations

from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import IndexType, IntegerType, ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, Region, SSAValue

from custard.ember import slc, slcvec
from custard.ember.errors import EmberError

_ALU = {"arith.addi": "add", "arith.subi": "sub", "arith.muli": "mul"}


def read_only_args(fn: FuncOp) -> set[SSAValue]:
    """The memref arguments ``fn`` never writes."""
    written: set[SSAValue] = set()
    for op in fn.walk():
        if isinstance(op, memref.StoreOp):
            written.add(op.memref)
        elif op.name in ("vector.maskedstore", "vector.store"):
            written.add(op.operands[0])
    return {a for a in fn.body.block.args if a not in written}


class _Decoupler:
    def __init__(self, fn: FuncOp) -> None:
        self.fn = fn
        self.top = fn.body.block
        self.read_only = read_only_args(fn)
        self.const_streams: dict[SSAValue, SSAValue] = {}
        self.anchor: Operation | None = None
        #: scf values computed on the core -> their SLC value (a loop's carried argument or
        #: result, or a callback's result)
        self.core: dict[SSAValue, SSAValue] = {}

    # ---------------------------------------------------------------- values
    def is_static(self, v: SSAValue) -> bool:
        owner = v.owner
        block = owner if isinstance(owner, Block) else owner.parent_block()
        return block is self.top

    def stream(self, v: SSAValue, mapping: dict[SSAValue, SSAValue]) -> SSAValue | None:
        if v in mapping:
            return mapping[v]
        if self.is_static(v) and isinstance(v.type, IndexType):
            if v not in self.const_streams:
                op = slc.ToStreamOp(v)
                assert self.anchor is not None
                self.top.insert_op_before(op, self.anchor)
                self.const_streams[v] = op.stream
            return self.const_streams[v]
        return None

    def _role(self, v: SSAValue) -> tuple:
        owner = v.owner
        if isinstance(owner, Block) and isinstance(owner.parent_op(), scf.ForOp):
            loop = owner.parent_op()
            assert isinstance(loop, scf.ForOp)
            if self.is_static(loop.lb) and self.is_static(loop.ub):
                return ("range", loop.lb, loop.ub, loop.step)
            return ("iv", id(loop))
        return ("val", v)

    def signature(self, op: memref.LoadOp) -> tuple:
        return (op.memref, tuple(self._role(i) for i in op.indices))

    def loads(self, op: Operation) -> list[memref.LoadOp]:
        return [o for o in op.walk() if isinstance(o, memref.LoadOp)
                and o.memref in self.read_only]

    # ---------------------------------------------------------------- candidates
    def is_candidate(self, loop: scf.ForOp, mapping: dict[SSAValue, SSAValue],
                     seen: set[tuple]) -> bool:
        if not self.is_static(loop.step) or not all(
                self.is_static(v) or self._continues(loop, i)
                for i, v in enumerate(loop.iter_args)):
            return False
        for b in (loop.lb, loop.ub):
            if b not in mapping and not self.is_static(b):
                return False
        for v in loop.body.block.last_op.operands if loop.iter_args else ():
            if self._may_stream(v, loop):  # a carried value is computed by the callbacks
                return False
        return any(self.signature(ld) not in seen for ld in self.loads(loop))

    def _may_stream(self, v: SSAValue, loop: scf.ForOp) -> bool:
        """Whether ``v`` (in ``loop``'s body) would be a stream: the induction variable, a
        read-only load or index arithmetic of streams, not a core value."""
        owner = v.owner
        if isinstance(owner, Block):
            return owner is loop.body.block and v is owner.args[0]
        if self.is_static(v):
            return False
        if isinstance(owner, memref.LoadOp):
            return owner.memref in self.read_only and all(
                self.is_static(i) or self._may_stream(i, loop) for i in owner.indices)
        if owner.name in (*_ALU, "arith.index_cast") and isinstance(v.type, IndexType):
            return all(self.is_static(o) or self._may_stream(o, loop) for o in owner.operands)
        return False

    def _continues(self, loop: scf.ForOp, i: int) -> bool:
        """Whether ``loop``'s carried value ``i`` continues its parent's: it starts at the
        parent's carried argument and the parent carries on its result (a sum over nested
        loops; both share one core variable)."""
        init = loop.iter_args[i]
        parent = loop.parent_op()
        if not isinstance(parent, scf.ForOp) or init not in self.core:
            return False
        args = list(parent.body.block.args)
        if init not in args[1:]:
            return False
        last = parent.body.block.last_op
        return last is not None and last.operands[args.index(init) - 1] is loop.results[i]

    # ---------------------------------------------------------------- conversion
    def convert(self, loop: scf.ForOp, mapping: dict[SSAValue, SSAValue],
                seen: set[tuple]) -> slc.ForOp:
        lb, ub, st = (self.stream(v, mapping) for v in (loop.lb, loop.ub, loop.step))
        assert lb is not None and ub is not None and st is not None
        old_args = loop.body.block.args
        block = Block(arg_types=[slc.StreamType(IndexType()), *(a.type for a in old_args[1:])])
        for old, new in zip(old_args, block.args, strict=True):
            new.name_hint = old.name_hint
        self.core.update(zip(old_args[1:], block.args[1:], strict=True))
        mapping = dict(mapping)
        mapping[old_args[0]] = block.args[0]
        seen = set(seen)
        body = [op for op in loop.body.block.ops if not isinstance(op, scf.YieldOp)]
        for op in body:
            if isinstance(op, memref.LoadOp) and op.memref in self.read_only:
                seen.add(self.signature(op))
        child: scf.ForOp | None = None
        pending: list[Operation] = []
        for op in body:
            if child is None and isinstance(op, scf.ForOp) and \
                    self.is_candidate(op, mapping, seen):
                child = op
                self.flush(block, pending, mapping)
                new_loop = self.convert(op, mapping, seen)
                block.add_op(new_loop)
                self.core.update(zip(op.results, new_loop.results, strict=True))
                continue
            if op.name == "arith.index_cast" and op.operands[0] in mapping:
                mapping[op.results[0]] = mapping[op.operands[0]]  # a cast of a stream
                continue
            new = self.as_stream(op, mapping)
            if new is not None:
                block.add_op(new)
                mapping[op.results[0]] = new.results[0]
            else:
                pending.append(op)
        if child is None:
            block.insert_op_before(slcvec.VectorizeForOp.build(), block.first_op) \
                if block.first_op else block.add_op(slcvec.VectorizeForOp.build())
        self.flush(block, pending, mapping)
        yielded = []
        for v in loop.body.block.last_op.operands if loop.iter_args else ():
            if v not in self.core and not self.is_static(v):
                raise EmberError("scf-to-slc: a loop-carried value must be computed on the core "
                                 "(in the loop's callbacks), not loaded by the access unit")
            yielded.append(self.core.get(v, v))
        block.add_op(slc.YieldOp.build(operands=[yielded]))
        inits = [self.core.get(v, v) for v in loop.iter_args]
        return slc.ForOp.build(operands=[lb, ub, st, inits],
                               result_types=[[r.type for r in loop.results]],
                               regions=[Region(block)])

    def as_stream(self, op: Operation, mapping: dict[SSAValue, SSAValue]) -> Operation | None:
        if isinstance(op, memref.LoadOp) and op.memref in self.read_only:
            idx = [self.stream(i, mapping) for i in op.indices]
            if all(i is not None for i in idx):
                t = op.res.type
                if isinstance(t, IntegerType) and op.res.uses and all(
                        u.operation.name == "arith.index_cast" for u in op.res.uses):
                    t = IndexType()  # torch-style i64 indices read as indices
                return slc.MemStreamOp.build(operands=[op.memref, idx, []],
                                             result_types=[slc.StreamType(t)])
        if op.name in _ALU and isinstance(op.results[0].type, IndexType):
            a, b = (self.stream(v, mapping) for v in op.operands)
            if a is not None and b is not None:
                return slc.AluStreamOp(_ALU[op.name], a, b)
        return None

    def flush(self, block: Block, pending: list[Operation],
              mapping: dict[SSAValue, SSAValue]) -> None:
        """Wrap the pending compute ops into one callback at the end of ``block``."""
        if not pending:
            return
        inside = {r for op in pending for o in op.walk() for r in o.results}
        inside |= {a for op in pending for o in op.walk() for r in o.regions for b in r.blocks
                   for a in b.args}
        cb_block = Block()
        vmap: dict[SSAValue, SSAValue] = {}
        for op in pending:
            for o in op.walk():
                for v in o.operands:
                    if v in inside or v in vmap or self.is_static(v):
                        continue
                    if v in self.core:  # a core value (carried, a loop's or callback's result)
                        vmap[v] = self.core[v]
                    elif v in mapping:
                        f = slc.FromStreamOp(mapping[v], v.type)
                        cb_block.add_op(f)
                        vmap[v] = f.value
                    else:
                        raise EmberError(
                            "scf-to-slc: a value computed on the core is used by another "
                            "callback or by an access-unit operation (pass it through memory "
                            "instead)")
        walked = {o for op in pending for o in op.walk()}
        exported = [r for op in pending for r in op.results
                    if any(u.operation not in walked for u in r.uses)]
        for op in pending:
            cb_block.add_op(op.clone(value_mapper=vmap))
        if exported:  # values later callbacks or the loop's yield use: the callback's results
            cb_block.add_op(slc.YieldOp.build(operands=[[vmap[r] for r in exported]]))
        cb = slc.CallbackOp.build(result_types=[[r.type for r in exported]],
                                  regions=[Region(cb_block)])
        block.add_op(cb)
        self.core.update(zip(exported, cb.results, strict=True))
        pending.clear()


def scf_to_slc(mod: ModuleOp) -> ModuleOp:
    """A new module with each function's offloadable loop nests in SLC."""
    mod = mod.clone()
    for fn in [op for op in mod.body.block.ops if isinstance(op, FuncOp)]:
        d = _Decoupler(fn)
        for op in list(fn.body.block.ops):
            if isinstance(op, scf.ForOp) and d.is_candidate(op, {}, set()):
                d.anchor = op
                new = d.convert(op, {}, set())
                fn.body.block.insert_op_before(new, op)
                for old_r, new_r in zip(op.results, new.results, strict=True):
                    old_r.replace_all_uses_with(new_r)
                fn.body.block.erase_op(op, safe_erase=False)
    return mod

