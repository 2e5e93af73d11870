"""O1: inner-loop vectorization of SLC code (Ember paper Sec. 7.1, Fig. 15b).

A loop marked ``slcvec.vectorize_for`` becomes ``slcvec.for<V>`` when it is legal: static
bounds (the core must rebuild the boundary mask), unit step, no loop-carried values, the
induction variable used only as the last index of memory streams, and callbacks whose code is
elementwise in it (float arithmetic, loads and stores indexed by it in the last dimension), or
that reduce over it (``out[s, 0] += x``, ``x`` elementwise: KG's norm; ``vector.reduction
<add>``, a horizontal add, legal when ``x`` keeps masked lanes 0: built from loaded vectors by
add, sub, neg, abs, max, min, or mul by anything).
Streams indexed by the induction variable become ``slcvec.mem_stream`` with the loop's mask;
in callbacks, the induction variable is read as its first lane (``e``), its boundary mask is
rebuilt on the core with ``slcvec.mask e lb ub 1``, loads and stores become
``vector.maskedload``/``maskedstore`` and scalars are broadcast.
"""

from __future__ import annotations

from xdsl.dialects import arith, memref, vector
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, VectorType, i1, i64
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Region, SSAValue

from custard.ember import slc, slcvec
from custard.ember.rewrite import TopLevel, const_int, static_of

_FLOAT_BIN = (arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp, arith.MaximumfOp,
              arith.MinimumfOp)
_FLOAT_UN = ("arith.negf", "math.absf")


class _Illegal(Exception):
    pass


class _LoopVectorizer:
    def __init__(self, loop: slc.ForOp, vlen: int, tl: TopLevel) -> None:
        self.loop = loop
        self.vlen = vlen
        self.tl = tl
        self.iv = loop.body.block.args[0]
        self.lb = static_of(loop.lb)
        self.ub = static_of(loop.ub)
        self.vec_streams: set[SSAValue] = set()

    def check_streams(self) -> None:
        if self.lb is None or self.ub is None or const_int(static_of(self.loop.step)) != 1 \
                or self.loop.inits:
            raise _Illegal
        for op in self.loop.body.block.ops:
            if isinstance(op, slc.MemStreamOp):
                idx = list(op.indices)
                if self.iv in idx:
                    if idx[-1] is not self.iv or self.iv in idx[:-1]:
                        raise _Illegal
                    self.vec_streams.add(op.result)
                elif any(i in self.vec_streams for i in idx):
                    raise _Illegal
            elif isinstance(op, slc.AluStreamOp):
                if any(v is self.iv or v in self.vec_streams for v in op.operands):
                    raise _Illegal
            elif not isinstance(op, slc.CallbackOp | slc.YieldOp | slcvec.VectorizeForOp):
                raise _Illegal

    def vtype(self, elem) -> VectorType:
        return VectorType(elem, [self.vlen])

    def build(self) -> slcvec.ForOp:
        self.check_streams()
        tl = self.tl
        vl = tl.stream(tl.index(self.vlen))
        in_mask = tl.stream(tl.splat(True, self.vtype(i1)))
        block = Block(arg_types=[slc.StreamType(self.vtype(IndexType())),
                                 slc.StreamType(self.vtype(i1))])
        block.args[0].name_hint = self.iv.name_hint
        smap: dict[SSAValue, SSAValue] = {self.iv: block.args[0]}
        for op in self.loop.body.block.ops:
            if isinstance(op, slcvec.VectorizeForOp):
                continue
            if isinstance(op, slc.YieldOp):
                block.add_op(slcvec.YieldOp.build(operands=[[]]))
            elif isinstance(op, slc.MemStreamOp) and op.result in self.vec_streams:
                assert isinstance(op.result.type, slc.StreamType)
                new = slcvec.MemStreamOp.build(
                    operands=[op.memref, [smap.get(i, i) for i in op.indices], [block.args[1]]],
                    result_types=[slc.StreamType(self.vtype(op.result.type.element))])
                block.add_op(new)
                smap[op.result] = new.result
            elif isinstance(op, slc.CallbackOp):
                block.add_op(self.callback(op, smap))
            else:
                block.add_op(op.clone(value_mapper=smap))
        return slcvec.ForOp.build(
            operands=[self.loop.lb, self.loop.ub, vl, in_mask, []], result_types=[[]],
            regions=[Region(block)], properties={"vectorLength": IntegerAttr(self.vlen, i64)})

    def callback(self, cb: slc.CallbackOp, smap: dict[SSAValue, SSAValue]) -> slc.CallbackOp:
        if cb.res:
            raise _Illegal
        tl = self.tl
        block = Block()
        vmap: dict[SSAValue, SSAValue] = {}
        kind: dict[SSAValue, str] = {}
        mask: SSAValue | None = None

        def vec(v: SSAValue) -> SSAValue:
            if kind.get(v) == "vec":
                return vmap[v]
            if kind.get(v) == "lane":
                raise _Illegal
            b = vector.BroadcastOp(vmap.get(v, v), self.vtype(v.type))
            block.add_op(b)
            return b.vector

        self.kinds = kind
        zeroed: set[SSAValue] = set()  # vectors whose masked lanes are 0 (loaded ones, and
        # what add/sub/neg/abs/max/min of them, or mul by anything, gives)
        for op in cb.body.block.ops:
            if isinstance(op, slc.FromStreamOp):
                s = op.stream
                if s is self.iv:
                    f = slc.FromStreamOp(smap[s], IndexType())
                    m = slcvec.MaskOp.build(operands=[f.value, self.lb, self.ub, tl.index(1)],
                                            result_types=[self.vtype(i1)])
                    block.add_ops([f, m])
                    mask, kind[op.value] = m.result, "lane"
                elif s in self.vec_streams:
                    f = slc.FromStreamOp(smap[s], self.vtype(op.value.type))
                    block.add_op(f)
                    kind[op.value] = "vec"
                    zeroed.add(op.value)
                else:
                    f = slc.FromStreamOp(smap.get(s, s), op.value.type)
                    block.add_op(f)
                vmap[op.value] = f.value
                continue
            if isinstance(op, memref.LoadOp | memref.StoreOp):
                idx = list(op.indices)
                kinds = [kind.get(i) for i in idx]
                if "vec" in kinds or "lane" in kinds[:-1]:
                    raise _Illegal
                if kinds and kinds[-1] == "lane":
                    assert mask is not None
                    mapped = [vmap.get(i, i) for i in idx]
                    if isinstance(op, memref.LoadOp):
                        zero = tl.splat(0.0, self.vtype(op.res.type))
                        new = vector.MaskedLoadOp(op.memref, mapped, mask, zero)
                        kind[op.res] = "vec"
                        zeroed.add(op.res)
                        vmap[op.res] = new.result
                    else:
                        new = vector.MaskedStoreOp(op.memref, mapped, mask, vec(op.value))
                    block.add_op(new)
                    continue
            elif isinstance(op, arith.AddfOp) and self._accumulates(op):
                # a horizontal add: out[..] += x over the lanes. Masked lanes are 0 in loaded
                # vectors and x keeps them 0 (``zeroed``), so they add 0; the mask is rebuilt
                # as for a store, which O2's buffer loop needs
                acc, x = (op.lhs, op.rhs) if kind.get(op.rhs) == "vec" else (op.rhs, op.lhs)
                if mask is None:
                    f = slc.FromStreamOp(smap[self.iv], IndexType())
                    m = slcvec.MaskOp.build(operands=[f.value, self.lb, self.ub, tl.index(1)],
                                            result_types=[self.vtype(i1)])
                    if block.first_op is None:
                        block.add_ops([f, m])
                    else:  # first, as where O2's buffer loop reads its vectors
                        block.insert_ops_before([f, m], block.first_op)
                    mask = m.result
                if x not in zeroed:
                    raise _Illegal
                red = vector.ReductionOp.build(
                    operands=[vmap[x], []], result_types=[x.type],
                    properties={"kind": vector.CombiningKindAttr(vector.CombiningKindFlag.ADD)})
                new = arith.AddfOp(vmap.get(acc, acc), red.dest)
                block.add_ops([red, new])
                vmap[op.result] = new.result
                continue
            elif isinstance(op, _FLOAT_BIN) and any(kind.get(v) for v in op.operands):
                a, b = (vec(v) for v in op.operands)
                new = type(op)(a, b)
                block.add_op(new)
                vmap[op.results[0]], kind[op.results[0]] = new.results[0], "vec"
                x, y = (v in zeroed for v in op.operands)
                if (x or y) if isinstance(op, arith.MulfOp) else \
                        x and not kind.get(op.operands[1]) if isinstance(op, arith.DivfOp) \
                        else x and y:
                    zeroed.add(op.results[0])
                continue
            elif op.name in _FLOAT_UN and kind.get(op.operands[0]):
                a = vec(op.operands[0])
                new = type(op).create(operands=[a], result_types=[a.type],
                                      properties=dict(op.properties),
                                      attributes=dict(op.attributes))
                block.add_op(new)
                vmap[op.results[0]], kind[op.results[0]] = new.results[0], "vec"
                if op.operands[0] in zeroed:
                    zeroed.add(op.results[0])
                continue
            if any(kind.get(v) for o in op.walk() for v in o.operands):
                raise _Illegal
            block.add_op(op.clone(value_mapper=vmap))
        return slc.CallbackOp.build(result_types=[[]], regions=[Region(block)])


    def _accumulates(self, op: arith.AddfOp) -> bool:
        """Whether ``op`` adds a vector to a scalar it loads and stores back at an index free
        of the induction variable (``out[s, 0] += x``: a reduction over the lanes)."""
        kind = self.kinds
        pair = [(op.lhs, op.rhs), (op.rhs, op.lhs)]
        for acc, x in pair:
            ld = acc.owner
            if kind.get(x) != "vec" or kind.get(acc) or not isinstance(ld, memref.LoadOp):
                continue
            uses = [u.operation for u in op.result.uses]
            if len(uses) == 1 and isinstance(uses[0], memref.StoreOp) and \
                    uses[0].value is op.result and uses[0].memref is ld.memref and \
                    list(uses[0].indices) == list(ld.indices) and \
                    not any(kind.get(i) for i in ld.indices):
                return True
        return False


def vectorize(mod: ModuleOp, vlen: int) -> ModuleOp:
    """A new module with every legal marked inner loop vectorized to ``vlen`` lanes."""
    mod = mod.clone()
    for fn in [op for op in mod.body.block.ops if isinstance(op, FuncOp)]:
        tl = TopLevel(fn)
        for loop in [op for op in fn.walk() if isinstance(op, slc.ForOp)]:
            first = loop.body.block.first_op
            if not isinstance(first, slcvec.VectorizeForOp):
                continue
            try:
                new = _LoopVectorizer(loop, vlen, tl).build()
            except _Illegal:
                continue
            parent = loop.parent_block()
            assert parent is not None
            parent.insert_op_before(new, loop)
            parent.erase_op(loop, safe_erase=False)
        for op in [o for o in fn.walk() if isinstance(o, slcvec.VectorizeForOp)]:
            parent = op.parent_block()
            assert parent is not None
            parent.erase_op(op)
    return mod

