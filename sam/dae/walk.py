"""The recorder's walk: a dae-mode TMU program (:mod:`sam.blocks.tmu_program`) run depth-first
with the TMU's own traversal helpers (:mod:`sam.blocks.tmu`: ``begin_layer``, ``has_iter``,
``step_layer``, ``operand``), writing down each step's ``mem`` loads and each event's pushes
(Ember paper Sec. 3.1, 4; docs/tmu.md).

Events run as the TMU kernel runs them: ``beg`` of a fiber, per step ``ite`` followed by the
next layer's fibers, then ``end``; an event's rules go out one firing at a time, the ``f``-th
data rule with the ``f``-th control rule (each queue in declaration order). :func:`walk` is
plain Python (the reference engine) and, registered helpers and all, compiles with numba (the
fast engine, :func:`walk_jit`): the two give the same arrays.

Dependencies: every stream value carries the load it was computed from (``prod``; -1 none): a
``mem`` stream its own load, an ``alu`` stream the later of its operands', a ``fwd`` stream its
source's, a TU's induction stream the later of its bounds' (``tuprod``, set when its fiber
begins).
"""

from __future__ import annotations

import numpy as np

from sam.blocks.tmu import (
    begin_layer,
    event_at,
    has_iter,
    layer_at,
    operand,
    rule_at,
    step_layer,
    stream_at,
    tu_at,
)
from sam.blocks.tmu_program import (
    EV_BEG,
    EV_END,
    EV_END_RULE,
    EV_FIRST_RULE,
    EV_ITE,
    H_L,
    H_NT,
    H_S,
    H_W,
    H_W_MASK,
    K_LIT,
    K_SAME,
    LY_FIRST_STREAM,
    LY_FIRST_TU,
    LY_LANES,
    LY_STREAMS,
    LY_TUS,
    R_OPERAND,
    R_TOKEN,
    RU_ARG,
    RU_TYPE,
    RU_VECTOR,
    S_ALU,
    S_FWD,
    S_TU,
    SR_A,
    SR_A_KIND,
    SR_ARRAY,
    SR_B,
    SR_B_KIND,
    SR_LAYER,
    SR_TU,
    SR_TYPE,
    TU_HI,
    TU_HI_KIND,
    TU_LO,
    TU_LO_KIND,
)
from sam.runtime.jit import jitable

#: ``push_queue`` values (as :mod:`sam.dae.trace`)
Q_CTRL, Q_DATA = 0, 1
#: What comes after an event (the TMU kernel's phases): begin a fiber, advance a layer, done.
A_BEG, A_ADV, A_DONE = 0, 1, 2


@jitable
def producer(prod, kind, v, lane, nw):
    """The load an encoded operand's value in ``lane`` comes from (-1: none, a literal)."""
    if kind == K_LIT:
        return -1
    if kind == K_SAME:
        return prod[v * nw + lane]
    return prod[v * nw]


@jitable
def grow(a):
    """``a`` twice as long (its first half kept): an output array that is full."""
    return np.concatenate((a, a))


def walk(prog, work, vals, pool, sbytes, sec_of_id, ctrl_bytes, cap):
    """Walk the TMU program (``prog``, ``work``, ``vals``, ``pool`` of
    :func:`~sam.blocks.tmu_program.compile_config`); ``sbytes[s]``: bytes of one value of
    stream ``s``; ``sec_of_id[id]``: the section of control token ``id``; ``cap``: first
    capacity of the output arrays (they double when full).

    Returns ``(loads, pushes, bad, load_array, load_first, load_count, load_step, load_dep,
    load_push, push_queue, push_bytes, push_dep, push_section, push_vector)`` (arrays longer
    than their counts; ``bad``: -1, or the stream whose load went out of range)."""
    nl = prog[H_L]
    ns = prog[H_S]
    nt = prog[H_NT]
    nw = prog[H_W]
    mask_off = prog[H_W_MASK]
    prod = np.full(max(1, ns * nw), -1, np.int64)
    tuprod = np.full(max(1, nt), -1, np.int64)
    la = np.zeros(cap, np.int16)
    lf = np.zeros(cap, np.int64)
    lc = np.zeros(cap, np.int32)
    lst = np.zeros(cap, np.int64)
    ld = np.zeros(cap, np.int32)
    lp = np.zeros(cap, np.int32)
    pq = np.zeros(cap, np.int8)
    pb = np.zeros(cap, np.int32)
    pd = np.zeros(cap, np.int32)
    ps = np.zeros(cap, np.int16)
    pv = np.zeros(cap, np.int8)
    nld = 0
    npu = 0
    steps = 0
    bad = -1
    nxt = A_BEG
    nd = 0
    ed = 0
    ek = EV_BEG
    while True:
        # ---- the next event (ed, ek) and what follows it (nxt, nd), as the TMU kernel
        if nxt == A_BEG:
            begin_layer(prog, work, vals, nd)
            lrec = layer_at(prog, nd)
            u0 = prog[lrec + LY_FIRST_TU]
            for u in range(u0, u0 + prog[lrec + LY_TUS]):
                tr = tu_at(prog, u)
                p_lo = producer(prod, prog[tr + TU_LO_KIND], prog[tr + TU_LO], 0, nw)
                p_hi = producer(prod, prog[tr + TU_HI_KIND], prog[tr + TU_HI], 0, nw)
                tuprod[u] = p_lo if p_lo > p_hi else p_hi
            ed = nd
            ek = EV_BEG
            nxt = A_ADV
        elif nxt == A_ADV:
            ed = nd
            if has_iter(prog, work, nd):
                bad = step_layer(prog, work, vals, pool, nd)
                if bad >= 0:
                    break
                while nld + ns * nw > la.shape[0]:
                    la = grow(la)
                    lf = grow(lf)
                    lc = grow(lc)
                    lst = grow(lst)
                    ld = grow(ld)
                    lp = grow(lp)
                lrec = layer_at(prog, nd)
                first = prog[lrec + LY_FIRST_STREAM]
                for s in range(first, first + prog[lrec + LY_STREAMS]):
                    sr = stream_at(prog, s)
                    typ = prog[sr + SR_TYPE]
                    u = prog[sr + SR_TU]
                    if typ == S_TU:
                        for lane in range(nw):
                            prod[s * nw + lane] = tuprod[u]
                        continue
                    if typ == S_FWD:
                        for lane in range(nw):
                            prod[s * nw + lane] = prod[prog[sr + SR_A] * nw]
                        continue
                    ka = prog[sr + SR_A_KIND]
                    va = prog[sr + SR_A]
                    if typ == S_ALU:
                        for lane in range(nw):
                            p = -1
                            if work[mask_off + s * nw + lane] == 1:
                                p = producer(prod, ka, va, lane, nw)
                                pb_ = producer(prod, prog[sr + SR_B_KIND], prog[sr + SR_B],
                                               lane, nw)
                                if pb_ > p:
                                    p = pb_
                            prod[s * nw + lane] = p
                        continue
                    # a mem stream: one load for the active lanes when their elements are
                    # contiguous (or all the same element), else one load per lane
                    n_on = 0
                    at = 0
                    contiguous = True
                    same = True
                    dep = -1
                    for lane in range(nw):
                        prod[s * nw + lane] = -1
                        if work[mask_off + s * nw + lane] == 1:
                            idx = int(operand(prog, vals, ka, va, lane, nw))
                            p = producer(prod, ka, va, lane, nw)
                            if tuprod[u] > p:
                                p = tuprod[u]
                            if p > dep:
                                dep = p
                            if n_on == 0:
                                at = idx
                            else:
                                if idx != at + n_on:
                                    contiguous = False
                                if idx != at:
                                    same = False
                            n_on += 1
                    if n_on == 0:
                        continue
                    if contiguous or same:
                        la[nld] = prog[sr + SR_ARRAY]
                        lf[nld] = at
                        lc[nld] = n_on if contiguous else 1
                        lst[nld] = steps
                        ld[nld] = dep
                        lp[nld] = npu
                        for lane in range(nw):
                            if work[mask_off + s * nw + lane] == 1:
                                prod[s * nw + lane] = nld
                        nld += 1
                        continue
                    for lane in range(nw):
                        if work[mask_off + s * nw + lane] == 1:
                            p = producer(prod, ka, va, lane, nw)
                            if tuprod[u] > p:
                                p = tuprod[u]
                            la[nld] = prog[sr + SR_ARRAY]
                            lf[nld] = int(operand(prog, vals, ka, va, lane, nw))
                            lc[nld] = 1
                            lst[nld] = steps
                            ld[nld] = p
                            lp[nld] = npu
                            prod[s * nw + lane] = nld
                            nld += 1
                steps += 1
                ek = EV_ITE
                if nd < nl - 1:
                    nxt = A_BEG
                    nd += 1
            else:
                ek = EV_END
                if nd == 0:
                    nxt = A_DONE
                else:
                    nd -= 1
        else:
            if npu + 1 > pq.shape[0]:
                pq = grow(pq)
                pb = grow(pb)
                pd = grow(pd)
                ps = grow(ps)
                pv = grow(pv)
            pq[npu] = Q_CTRL
            pb[npu] = ctrl_bytes
            pd[npu] = -1
            ps[npu] = -1
            pv[npu] = 0
            npu += 1
            break
        # ---- the event's pushes: firing f pushes the f-th data rule and the f-th token
        ev = event_at(prog, ed, ek)
        lo = prog[ev + EV_FIRST_RULE]
        hi = prog[ev + EV_END_RULE]
        if hi <= lo:
            continue
        while npu + (hi - lo) > pq.shape[0]:
            pq = grow(pq)
            pb = grow(pb)
            pd = grow(pd)
            ps = grow(ps)
            pv = grow(pv)
        lrec = layer_at(prog, ed)
        tp = -1
        u0 = prog[lrec + LY_FIRST_TU]
        for u in range(u0, u0 + prog[lrec + LY_TUS]):
            if tuprod[u] > tp:
                tp = tuprod[u]
        di = lo
        ci = lo
        while True:
            while di < hi and prog[rule_at(prog, di) + RU_TYPE] != R_OPERAND:
                di += 1
            while ci < hi and prog[rule_at(prog, ci) + RU_TYPE] != R_TOKEN:
                ci += 1
            if di >= hi and ci >= hi:
                break
            if di < hi:
                rr = rule_at(prog, di)
                s = prog[rr + RU_ARG]
                pq[npu] = Q_DATA
                ps[npu] = -1
                if prog[rr + RU_VECTOR] == 1:
                    n = prog[layer_at(prog, prog[stream_at(prog, s) + SR_LAYER]) + LY_LANES]
                    p = -1
                    for lane in range(n):
                        if work[mask_off + s * nw + lane] == 1 and prod[s * nw + lane] > p:
                            p = prod[s * nw + lane]
                    pb[npu] = n * sbytes[s]
                    pd[npu] = p
                    pv[npu] = 1
                else:
                    pb[npu] = sbytes[s]
                    pd[npu] = prod[s * nw]
                    pv[npu] = 0
                npu += 1
                di += 1
            if ci < hi:
                pq[npu] = Q_CTRL
                pb[npu] = ctrl_bytes
                pd[npu] = tp
                ps[npu] = sec_of_id[prog[rule_at(prog, ci) + RU_ARG]]
                pv[npu] = 0
                npu += 1
                ci += 1
    return (nld, npu, bad, la, lf, lc, lst, ld, lp, pq, pb, pd, ps, pv)


_JIT = None


def walk_jit(*args):
    """:func:`walk` compiled with numba (on first use; cached on disk with the block kernels,
    keyed on its own code, :mod:`sam.runtime.jitcache`)."""
    global _JIT
    if _JIT is None:
        from sam.runtime.jitcache import code_key, say_if_compiling
        from sam.runtime.kernel import compiled

        key = code_key(walk)
        say_if_compiling(walk, key, "the access-trace recorder")
        _JIT = compiled(walk, key)
    return _JIT(*args)
