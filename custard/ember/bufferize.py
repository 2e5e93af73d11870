"""O2: bufferization of vectorized SLC code (Ember paper Sec. 7.2, Fig. 15c).

For an ``slcvec.for`` whose body ends in its only callback and whose bounds are static, each
vector stream the callback reads is pushed into a buffer stream (``slcvec.buf_stream`` before
the loop, ``slcvec.to_buffer`` in it), and the callback moves right after the loop: it reads
each buffer once (``slc.from_stream``) and walks it with an ``scf.for`` of step ``V`` on the
core (``slcvec.from_buffer``, mask rebuilt with ``slcvec.mask``). One callback per embedding
vector instead of one per vector of ``V`` elements.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, MemRefType, ModuleOp, VectorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Region, SSAValue

from custard.ember import slc, slcvec
from custard.ember.rewrite import TopLevel, static_of


def _bufferize(loop: slcvec.ForOp, tl: TopLevel) -> bool:
    ops = list(loop.body.block.ops)
    cbs = [op for op in ops if isinstance(op, slc.CallbackOp)]
    lb, ub = static_of(loop.lb), static_of(loop.ub)
    if len(cbs) != 1 or len(ops) < 2 or ops[-2] is not cbs[0] or lb is None or ub is None \
            or loop.inits:
        return False
    cb = cbs[0]
    iv = loop.body.block.args[0]
    inner = {r for op in ops for r in op.results}
    froms = [op for op in cb.body.block.ops if isinstance(op, slc.FromStreamOp)]
    if not any(f.stream is iv for f in froms):
        return False
    parent = loop.parent_block()
    assert parent is not None
    vlen = loop.vlen
    step = tl.index(vlen)
    new_cb = Block()
    vmap: dict[SSAValue, SSAValue] = {}
    buffers: list[tuple[slc.FromStreamOp, SSAValue]] = []
    for f in froms:
        if f.stream is iv:
            continue
        if f.stream in inner:
            t = f.value.type
            if not isinstance(t, VectorType):
                return False
            elem = t.get_element_type()
            buf = slcvec.BufStreamOp.build(
                result_types=[slc.StreamType(MemRefType(elem, [DYNAMIC_INDEX]))])
            parent.insert_op_before(buf, loop)
            loop.body.block.insert_op_before(
                slcvec.ToBufferOp.build(operands=[f.stream, buf.result, iv]), cb)
            read = slc.FromStreamOp(buf.result, MemRefType(elem, [DYNAMIC_INDEX]))
            new_cb.add_op(read)
            buffers.append((f, read.value))
        else:
            g = slc.FromStreamOp(f.stream, f.value.type)
            new_cb.add_op(g)
            vmap[f.value] = g.value
    body = Block(arg_types=[IndexType()])
    e = body.args[0]
    for op in cb.body.block.ops:
        if isinstance(op, slc.FromStreamOp):
            if op.stream is iv:
                vmap[op.value] = e
            continue
        if isinstance(op, slcvec.MaskOp) and op.iv in vmap and vmap[op.iv] is e:
            m = slcvec.MaskOp.build(operands=[e, lb, ub, tl.index(1)],
                                    result_types=[op.result.type])
            body.add_op(m)
            vmap[op.result] = m.result
            for f, bm in buffers:
                fb = slcvec.FromBufferOp.build(operands=[bm, e], result_types=[f.value.type])
                body.add_op(fb)
                vmap[f.value] = fb.result
            continue
        body.add_op(op.clone(value_mapper=vmap))
    body.add_op(scf.YieldOp())
    new_cb.add_op(scf.ForOp(lb, ub, step, [], Region(body)))
    parent.insert_op_after(slc.CallbackOp.build(result_types=[[]], regions=[Region(new_cb)]),
                           loop)
    loop.body.block.erase_op(cb, safe_erase=False)
    return True


def bufferize(mod: ModuleOp) -> ModuleOp:
    """A new module with every bufferizable vector loop bufferized."""
    mod = mod.clone()
    for fn in [op for op in mod.body.block.ops if isinstance(op, FuncOp)]:
        tl = TopLevel(fn)
        for loop in [op for op in fn.walk() if isinstance(op, slcvec.ForOp)]:
            _bufferize(loop, tl)
    return mod
