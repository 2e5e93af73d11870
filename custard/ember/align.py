"""O3: queue alignment of SLC code (Ember paper Sec. 7.3, Fig. 15d).

A callback that reads the induction variable of an outermost loop ``L`` with
``slc.from_stream`` no longer needs it in the data queue: when ``L`` has a static lower bound and
step, ``L`` gets a core-side counter (an ``init_args`` value starting at the lower bound), the
reads are replaced by the counter, and the counter advances by the step at the end of each
iteration of ``L``: in the callback that ends ``L``'s body if there is one (no extra token; MP's
and KG's end callbacks), else in a new callback there (fired on the end of the child loop, the
``se`` token of SLS). Only outermost loops are aligned: their counter never needs resetting
(a nested loop's would, at each of its fibers). Only values then cross the data queue.
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
    last = yield_op.prev_op
    inc = arith.AddiOp(counter, step)
    if isinstance(last, slc.CallbackOp):
        # the body already ends in a callback: it advances the counter too (no extra token),
        # after the values it gives (carried values, iter_args)
        region = last.detach_region(last.body)
        given = region.block.last_op
        vals: list[SSAValue] = []
        if isinstance(given, slc.YieldOp):
            vals = list(given.values)
            region.block.erase_op(given)
        region.block.add_ops([inc, slc.YieldOp.build(operands=[[*vals, inc.result]])])
        cb = slc.CallbackOp.build(result_types=[[*(v.type for v in vals), IndexType()]],
                                  regions=[region])
        block.insert_op_before(cb, last)
        for old_r, new_r in zip(last.res, cb.res[:len(vals)], strict=False):
            old_r.replace_all_uses_with(new_r)
        block.erase_op(last, safe_erase=False)
    else:
        cb_block = Block()
        cb_block.add_ops([inc, slc.YieldOp.build(operands=[[inc.result]])])
        cb = slc.CallbackOp.build(result_types=[[IndexType()]], regions=[Region(cb_block)])
        block.insert_op_before(cb, yield_op)
    block.insert_op_before(slc.YieldOp.build(operands=[[*yield_op.values, cb.res[-1]]]),
                           yield_op)
    block.erase_op(yield_op)
    region = loop.detach_region(loop.body)
    new = slc.ForOp.build(operands=[loop.lb, loop.ub, loop.step, [*loop.inits, lb]],
                          result_types=[[*(r.type for r in loop.res), IndexType()]],
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
    """A callback's read of the induction variable of an outermost loop (one fiber, so a
    core counter never needs resetting) with a static lower bound and step."""
    for cb in fn.walk():
        if not isinstance(cb, slc.CallbackOp):
            continue
        loops = _enclosing_loops(cb)
        if not loops:
            continue
        loop = loops[-1]
        if not isinstance(loop, slc.ForOp) or static_of(loop.lb) is None \
                or static_of(loop.step) is None:
            continue
        if loop is loops[0] and len(loops) == 1 and cb is not _last_callback(loop):
            continue  # an iteration callback of the loop itself that is not at its end
        for op in cb.body.block.ops:
            if isinstance(op, slc.FromStreamOp) and op.stream is loop.body.block.args[0]:
                return op, loop
    return None


def _last_callback(loop: slc.ForOp) -> Operation | None:
    last = loop.body.block.last_op
    return last.prev_op if last is not None else None
