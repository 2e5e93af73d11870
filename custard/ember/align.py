"""O3: queue alignment of SLC code (Ember paper Sec. 7.3, Fig. 15d).

A callback that reads the induction variable of an enclosing loop ``L`` other than its own
(the loop whose body holds it) with ``slc.from_stream`` no longer needs it in the data queue:
when ``L`` has a static lower bound and step, ``L`` gets a core-side counter (an ``init_args``
value starting at the lower bound), the reads are replaced by the counter, and a callback at the
end of ``L``'s body (fired on the end of its child loop, the ``se`` token) advances it by the
step. Only values then cross the data queue.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, Region, SSAValue

from custard.ember import slc, slcvec
from custard.ember.rewrite import static_of

LOOPS = (slc.ForOp, slcvec.ForOp)


def _enclosing_loops(op: Operation) -> list[Operation]:
    out = []
    p = op.parent_op()
    while p is not None and not isinstance(p, FuncOp):
        if isinstance(p, LOOPS):
            out.append(p)
        p = p.parent_op()
    return out


def _add_counter(loop: slc.ForOp) -> tuple[slc.ForOp, SSAValue]:
    """Rebuild ``loop`` with one more ``init_args`` counter; returns it and the counter."""
    lb, step = static_of(loop.lb), static_of(loop.step)
    assert lb is not None and step is not None
    block = loop.body.block
    counter = block.insert_arg(IndexType(), len(block.args))
    yield_op = block.last_op
    assert isinstance(yield_op, slc.YieldOp)
    cb_block = Block()
    inc = arith.AddiOp(counter, step)
    cb_block.add_ops([inc, slc.YieldOp.build(operands=[[inc.result]])])
    cb = slc.CallbackOp.build(result_types=[[IndexType()]], regions=[Region(cb_block)])
    block.insert_op_before(cb, yield_op)
    block.insert_op_before(slc.YieldOp.build(operands=[[*yield_op.values, cb.res[0]]]),
                           yield_op)
    block.erase_op(yield_op)
    region = loop.detach_region(loop.body)
    new = slc.ForOp.build(operands=[loop.lb, loop.ub, loop.step, [*loop.inits, lb]],
                          result_types=[[IndexType()] * (len(loop.inits) + 1)],
                          regions=[region])
    new.attributes |= loop.attributes
    parent = loop.parent_block()
    assert parent is not None
    parent.insert_op_before(new, loop)
    for old_r, new_r in zip(loop.results, new.results, strict=False):
        old_r.replace_all_uses_with(new_r)
    parent.erase_op(loop)
    return new, counter


def align(mod: ModuleOp) -> ModuleOp:
    """A new module with the induction-variable reads of callbacks replaced by counters."""
    mod = mod.clone()
    for fn in [op for op in mod.body.block.ops if isinstance(op, FuncOp)]:
        counters: dict[int, SSAValue] = {}
        while True:
            todo = _next_read(fn)
            if todo is None:
                break
            read, loop = todo
            key = id(loop.body.block)
            if key not in counters:
                _, counters[key] = _add_counter(loop)
            read.value.replace_all_uses_with(counters[key])
            parent = read.parent_block()
            assert parent is not None
            parent.erase_op(read)
    return mod


def _next_read(fn: FuncOp) -> tuple[slc.FromStreamOp, slc.ForOp] | None:
    for cb in fn.walk():
        if not isinstance(cb, slc.CallbackOp):
            continue
        loops = _enclosing_loops(cb)
        for op in cb.body.block.ops:
            if not isinstance(op, slc.FromStreamOp):
                continue
            for loop in loops[1:]:
                if isinstance(loop, slc.ForOp) and op.stream is loop.body.block.args[0] \
                        and static_of(loop.lb) is not None and static_of(loop.step) is not None:
                    return op, loop
    return None
