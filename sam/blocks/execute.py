"""The execute block: the core side of Ember's decoupled access-execute model (Ember paper
Sec. 4, Figure 9, Figure 10e: DLC ``compute_loop``).

It pops a control token from its ``ctrl`` input (a TMU's control queue), runs the callback
program of that token id, whose ``pop`` statements take entries from its ``data`` input (the data
queue), and stops at the done token. It updates a dense output tensor (``tensor``, ``shape``,
initial value ``init``) that the simulation returns like any output.

Callback programs (docs/tmu.md): sections ``ID: statement; ...`` separated by ``|``; statements
``x = pop``, ``x = a OP b`` (``+ - * /``), ``x = max(a, b)``, ``x = min(a, b)``, ``x = sum(a)``,
``x = a``, and ``out[i, j] += x`` (also ``=``, ``max=``, ``min=``). Registers keep their values
across tokens and hold a scalar or a vector of ``lanes`` values with a mask; an operation with a
vector operand is a vector (scalars broadcast, masks ANDed); lane ``l`` of a vector goes to
``out[i, j + l]`` where its mask is on; ``sum(a)`` adds the lanes that are on (a horizontal add).

Core-side memory (Ember paper Sec. 6.2: workspace loops run on the core): a part ``array W[N]``
(or ``array W[R, C]``) declares a workspace of zeros; ``input T`` lets the program read the bound
dense tensor ``T`` (read-only). ``x = W[k]`` / ``x = T[i, j]`` load a scalar, ``x = W[k..]`` /
``x = T[i, j..]`` a vector of ``lanes`` elements from there (a lane outside the array is off and
0), ``W[k] += x`` (also ``=``, ``max=``, ``min=``) stores into a workspace like ``out``.

Timing: taking a control token costs ``token_cost`` cycles (default 1) from the cycle it arrived,
each ``pop`` ``pop_cost`` cycles (default 1) from the cycle its entry (all its lane tokens)
arrived; other statements (core-side loads and stores included) are free. The done token is taken
with the data queue's done token.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np

from formats.tensor import Tensor
from sam.blocks.base import Block, Memories, Port
from sam.blocks.tmu import ring_slot
from sam.errors import GraphError
from sam.runtime.burst import ring_mask
from sam.runtime.jit import jitable
from sam.runtime.kernel import State, kernel
from sam.runtime.paths import EXECUTE_FAST, enter
from sam.runtime.tokens import DATA, DONE, STOP
from sam.runtime.wires import (
    BUSY,
    DONE_T,
    ERR,
    ERR_DATA,
    ERR_KIND,
    ERR_PORT,
    FIRST_T,
    IDLE,
    RC_DONE,
    RC_ERR,
    RC_IN,
    STATUS,
    WAIT,
    T,
    hdata,
    hkind,
    htime,
    pop,
)

(POP, ADD, SUB, MUL, DIV, MAX, MIN, SUM, MOV, OUT_ADD, OUT_SET, OUT_MAX, OUT_MIN, LOAD, VLOAD,
 ST_ADD, ST_SET, ST_MAX, ST_MIN) = range(19)
BINARY = {"+": ADD, "-": SUB, "*": MUL, "/": DIV}
OUT_OPS = {"+=": OUT_ADD, "=": OUT_SET, "max=": OUT_MAX, "min=": OUT_MIN}
ST_OPS = {"+=": ST_ADD, "=": ST_SET, "max=": ST_MAX, "min=": ST_MIN}
#: A core array's record in ``arrs``: first element in ``regs``, rows, columns.
AREC = 3
IREC = 5
NEED_TOKEN, RUN = 0, 1
EXEC = State(phase=NEED_TOKEN, pc=0, end=0, tok=0, lanes=1, token_cost=1, pop_cost=1, rows=0,
             cols=0, nregs=0, cur_c=0, cur_c_t=0, cur_d=0, cur_d_t=0)
# cur_*: occupancy cursors of the ctrl and data inputs, (token index, cycle) (occupancy_at)
(PHASE, PC, END, TOK, LANES, TOKEN_COST, POP_COST, ROWS, COLS, NREGS,
 CUR_C, CUR_C_T, CUR_D, CUR_D_T) = EXEC.slots
ERR_TOKEN, ERR_LEFT, ERR_EMPTY, ERR_OUT, ERR_MEM = 1, 2, 3, 4, 5
# work layout: per register scalar flag (1 scalar), masks [R*W], then stats.


@jitable
def reg(regs, work, nregs, nw, x, lane):
    """Value of operand ``x`` (register >= 0, constant < 0) in ``lane`` (unsigned indexes: no
    negative-index wrap-around)."""
    if x < 0:
        return regs[np.uint64(nregs * nw - x - 1)]
    if work[np.uint64(x)] == 1:
        return regs[np.uint64(x * nw)]
    return regs[np.uint64(x * nw + lane)]


@jitable
def on(work, nregs, nw, x, lane):
    """Mask of operand ``x`` in ``lane`` (constants and scalars: on)."""
    if x < 0 or work[x] == 1:
        return 1
    return work[nregs + x * nw + lane]


@jitable
def scalar(work, x):
    return x < 0 or work[np.uint64(x)] == 1


@jitable(inline=True)
def combine(op, x, y):
    """``x OP y`` for a binary statement (``+ - * /``, ``max``, ``min``)."""
    if op == ADD:
        return x + y
    if op == SUB:
        return x - y
    if op == MUL:
        return x * y
    if op == DIV:
        return x / y
    if op == MAX:
        return x if x > y else y
    return x if x < y else y


@jitable(inline=True)
def update(out, q, op, x):
    """``out[q] OP= x`` (``+=``, ``=``, ``max=``, ``min=``)."""
    if op == OUT_ADD:
        out[q] += x
    elif op == OUT_SET:
        out[q] = x
    elif op == OUT_MAX:
        if x > out[q]:
            out[q] = x
    elif x < out[q]:
        out[q] = x


@jitable(inline=True)
def cell(arrs, k, r, col):
    """The position in ``regs`` of element ``[r, col]`` of core array ``k``, or -1 outside it."""
    if r < 0 or r >= arrs[k * AREC + 1] or col < 0 or col >= arrs[k * AREC + 2]:
        return -1
    return arrs[k * AREC] + r * arrs[k * AREC + 2] + col


@jitable
def occupancy(w, c, t):
    """Tokens waiting in channel ``c`` that arrived by cycle ``t`` (arrivals are in order)."""
    lo = w.head[c]
    hi = w.tail[c]
    while lo < hi:
        mid = (lo + hi) // 2
        if w.time[c, ring_slot(w, mid)] <= t:
            lo = mid + 1
        else:
            hi = mid
    return lo - w.head[c]


@jitable(inline=True)
def passed(w, c, k, tail, t):
    """The index past the tokens of ``c`` from the ``k``-th that arrived by cycle ``t``."""
    while k < tail and w.time[c, ring_slot(w, k)] <= t:
        k += 1
    return k


@jitable(inline=True)
def passed_masked(times, ring, k, tail, t):
    """:func:`passed` on a channel's row of arrival cycles, ``ring`` from
    :func:`~sam.runtime.burst.ring_mask` (slots known non-negative)."""
    while k < tail and times[k & ring] <= t:
        k += 1
    return k


@jitable(inline=True)
def passed_few(times, ring, k, tail, t):
    """:func:`passed_masked` testing the next three slots at once (three independent loads,
    no branch): a queue filled a little faster than it drains passes one or two tokens a call
    in a pattern a branch predictor misses; the loop runs only past three."""
    c1 = np.int64((k < tail) & (times[k & ring] <= t))
    c2 = np.int64((k + 1 < tail) & (times[(k + 1) & ring] <= t))
    c3 = np.int64((k + 2 < tail) & (times[(k + 2) & ring] <= t))
    if c3 == 1:
        return passed_masked(times, ring, k + 3, tail, t)
    return k + c1 + c2


@jitable(inline=True)
def occupancy_at(w, c, t, st, cur, cur_t):
    """:func:`occupancy`, counted forward from a cursor: ``st[cur]`` is the index past the
    tokens of ``c`` that had arrived by cycle ``st[cur_t]``. Tokens arrive in order and a
    block's cycles never go back, so the cursor only moves forward (each token passed once);
    an earlier ``t`` falls back to the binary search."""
    if t < st[cur_t]:
        return occupancy(w, c, t)
    h = w.head[c]
    k = passed(w, c, st[cur] if st[cur] > h else h, w.tail[c], t)
    st[cur] = k
    st[cur_t] = t
    return k - h


@jitable
def spend(st, t_in, cost):
    """Account a firing of ``cost`` cycles that starts when its input came (``t_in``)."""
    if st[BUSY] == 0:
        st[FIRST_T] = t_in
    st[IDLE] += t_in - st[T]
    st[BUSY] += cost
    st[T] = t_in + cost


@jitable
def error(st, code, data):
    st[ERR] = code
    st[ERR_PORT] = -1
    st[ERR_KIND] = -1
    st[ERR_DATA] = data
    return RC_ERR


@jitable(inline=True)
def fused_section(prog, n_ids):
    """The first token id whose section is ``k`` (1 to 3) pops into distinct registers, then one
    ``out[a, b] OP= c`` whose operands are constants or those registers (SLS's ``b = pop;
    e = pop; v = pop; out[b, e] += v``), and ``k``; (-1, 0) if no section is so."""
    base = 1 + 2 * n_ids
    for tk in range(n_ids):
        pc = prog[1 + 2 * tk]
        end = prog[2 + 2 * tk]
        if pc < 0 or end - pc < 2:
            continue
        k = end - pc - 1
        ok = k <= 3
        for j in range(k):
            i = base + (pc + j) * IREC
            if prog[i] != POP:
                ok = False
                break
            for j2 in range(j):
                if prog[base + (pc + j2) * IREC + 1] == prog[i + 1]:
                    ok = False
        i = base + (end - 1) * IREC
        if not ok or prog[i] < OUT_ADD or prog[i] > OUT_MIN:
            continue
        for x in (prog[i + 2], prog[i + 3], prog[i + 4]):
            if x >= 0:
                popped = False
                for j in range(k):
                    if prog[base + (pc + j) * IREC + 1] == x:
                        popped = True
                if not popped:
                    ok = False
        if ok:
            return tk, k
    return -1, 0


@jitable(inline=True)
def operand_at(nregs, nw, x):
    """Where operand ``x`` (register >= 0 holding a scalar, constant < 0) is in ``regs``."""
    if x < 0:
        return nregs * nw - x - 1
    return x * nw



@jitable(inline=True)
def pick(prog, i, d0, d1, d2):
    """Which pop of a fused section (0, 1, 2) set the register ``prog[i]``, -1 for a
    constant."""
    x = prog[i]
    if x < 0:
        return -1
    if x == d0:
        return 0
    if x == d1:
        return 1
    if x == d2:
        return 2
    return -1


@jitable(inline=True)
def chosen(i, v0, v1, v2, k):
    """The value of a fused section's operand: pop ``i``'s, or the constant ``k``."""
    if i == 0:
        return v0
    if i == 1:
        return v1
    if i == 2:
        return v2
    return k



@jitable(inline=True)
def pop_fused(times, vals, ring, h, tail, t, cur, occ, cost):
    """A fused section's pop of the data token ``h`` at clock ``t``: its value, the clock
    after it, the occupancy cursor (index, cycle) and the largest occupancy."""
    s = h & ring
    t_in = times[s]
    if t_in < t:
        t_in = t
    k = passed_masked(times, ring, cur if cur > h else h, tail, t_in)
    if k - h > occ:
        occ = k - h
    return vals[s], t_in + cost, k, t_in, occ


@jitable(inline=True)
def scalar_run(w, st, prog, work, arrs, out, regs, cc, cd, nw, nregs, n_ids, stat):
    """Run control tokens and callback statements in one loop, the block's clock, cursors and
    queue heads in local variables: the interpreter's steps for data tokens and scalar operands
    (a token's section, ``x = pop`` of a scalar entry, ``x = a OP b``, ``sum``, ``out[..] OP=``
    of a scalar, scalar loads and stores of core arrays), with the same cycles, values and
    statistics. Anything else (a missing, vector or done token, a vector operand, an error, a
    bounded queue, an earlier cycle than a cursor's) ends the run where it is, and the
    interpreter takes that step."""
    if w.depth[cc] > 0 or w.depth[cd] > 0 or not enter(st, EXECUTE_FAST):
        return
    ring = ring_mask(w)
    t = st[T]
    t0 = t
    busy = st[BUSY]
    busy0 = busy
    first = st[FIRST_T]
    phase = st[PHASE]
    pc = st[PC]
    end = st[END]
    tok = st[TOK]
    cur_c = st[CUR_C]
    cur_c_t = st[CUR_C_T]
    cur_d = st[CUR_D]
    cur_d_t = st[CUR_D_T]
    token_cost = st[TOKEN_COST]
    pop_cost = st[POP_COST]
    rows = st[ROWS]
    cols = st[COLS]
    hc = w.head[cc]
    tc = w.tail[cc]
    hd = w.head[cd]
    td = w.tail[cd]
    occ_d = work[stat + 2 * n_ids]
    occ_c = work[stat + 2 * n_ids + 1]
    pops = 0  # pops of token id tok's sections not yet counted in work
    ntok = 0  # tokens of id tok taken and not yet counted in work
    fz, nz = fused_section(prog, n_ids)
    pz = 0
    ez = 0
    opz = OUT_ADD
    d0 = 0  # the pops' registers
    d1 = 0
    d2 = 0
    ia = -1  # each operand: the pop that set it, or -1 (a constant)
    ib = -1
    ic = -1
    ka = 0.0  # constants' values
    kb = 0.0
    kc = 0.0
    if fz >= 0:
        pz = prog[1 + 2 * fz]
        ez = prog[2 + 2 * fz]
        iz = 1 + 2 * n_ids + (ez - 1) * IREC
        opz = prog[iz]
        d0 = prog[1 + 2 * n_ids + pz * IREC + 1]
        d1 = prog[1 + 2 * n_ids + (pz + 1) * IREC + 1] if nz > 1 else -1
        d2 = prog[1 + 2 * n_ids + (pz + 2) * IREC + 1] if nz > 2 else -1
        ia = pick(prog, iz + 2, d0, d1, d2)
        ib = pick(prog, iz + 3, d0, d1, d2)
        ic = pick(prog, iz + 4, d0, d1, d2)
        ka = regs[operand_at(nregs, nw, prog[iz + 2])]
        kb = regs[operand_at(nregs, nw, prog[iz + 3])]
        kc = regs[operand_at(nregs, nw, prog[iz + 4])]
    v0 = 0.0
    v1 = 0.0
    v2 = 0.0
    per_token = token_cost + nz * pop_cost  # a fused token's busy cycles
    while True:
        if phase == NEED_TOKEN and fz >= 0 and t >= cur_c_t and t >= cur_d_t:
            # the fused section's tokens, each whole (its token, pops and update) in one
            # step, the popped values in locals: checked before anything moves, so one that
            # cannot go leaves the state as it was for the statement-by-statement path below
            # the control tokens of the fused id in a row (up to ``cl``) and the data tokens
            # in a row they can pop (up to ``dl``): the loop then checks two bounds a token
            hc0 = hc
            cl = hc
            while cl < tc and w.kind[cc, cl & ring] == DATA and w.data[cc, cl & ring] == fz:
                cl += 1
            dl_most = hd + nz * (cl - hc)
            if dl_most > td:
                dl_most = td
            dl = hd
            while dl < dl_most and w.kind[cd, dl & ring] == DATA:
                dl += 1
            times_c = w.time[cc]
            times_d = w.time[cd]
            vals_d = w.fdata[cd]
            if hc < cl and hd + nz <= dl and fz != tok:  # counts kept per token id
                work[np.uint64(stat + tok)] += ntok
                work[np.uint64(stat + n_ids + tok)] += pops
                ntok = 0
                pops = 0
                tok = fz
            while hc < cl and hd + nz <= dl:
                t_in = times_c[hc & ring]
                if t_in < t:
                    t_in = t
                k = passed_few(times_c, ring, cur_c if cur_c > hc else hc, tc, t_in)
                cur_c = k
                cur_c_t = t_in
                if k - hc > occ_c:
                    occ_c = k - hc
                if busy == 0:
                    first = t_in
                t = t_in + token_cost
                busy += per_token
                hc += 1
                # the pops, straight-line (costs are >= 1: busy is not 0 past the token)
                v0, t, cur_d, cur_d_t, occ_d = pop_fused(times_d, vals_d, ring, hd, td, t,
                                                         cur_d, occ_d, pop_cost)
                if nz > 1:
                    v1, t, cur_d, cur_d_t, occ_d = pop_fused(times_d, vals_d, ring, hd + 1,
                                                             td, t, cur_d, occ_d, pop_cost)
                if nz > 2:
                    v2, t, cur_d, cur_d_t, occ_d = pop_fused(times_d, vals_d, ring, hd + 2,
                                                             td, t, cur_d, occ_d, pop_cost)
                hd += nz
                r = int(chosen(ia, v0, v1, v2, ka))
                col = int(chosen(ib, v0, v1, v2, kb))
                if r < 0 or r >= rows or col < 0 or col >= cols:
                    phase = RUN  # the update's statement fails: the interpreter's error
                    pc = ez - 1
                    end = ez
                    break
                q = np.uint64(r * cols + col)
                if opz == OUT_ADD:
                    out[q] += chosen(ic, v0, v1, v2, kc)
                else:
                    update(out, q, opz, chosen(ic, v0, v1, v2, kc))
                pc = ez
                end = ez
            ntok += hc - hc0
            pops += nz * (hc - hc0)
            if hc > hc0:  # the registers the pops set: the last token's values
                regs[np.uint64(d0 * nw)] = v0
                work[np.uint64(d0)] = 1
                if nz > 1:
                    regs[np.uint64(d1 * nw)] = v1
                    work[np.uint64(d1)] = 1
                if nz > 2:
                    regs[np.uint64(d2 * nw)] = v2
                    work[np.uint64(d2)] = 1
        if phase == NEED_TOKEN:
            if hc >= tc:
                break
            s = hc & ring
            if w.kind[cc, s] != DATA:
                break
            tk = w.data[cc, s]
            if tk < 0 or tk >= n_ids or prog[1 + 2 * tk] < 0:
                break
            t_in = w.time[cc, s]
            if t_in < t:
                t_in = t
            if t_in < cur_c_t:
                break
            k = passed_few(w.time[cc], ring, cur_c if cur_c > hc else hc, tc, t_in)
            cur_c = k
            cur_c_t = t_in
            if k - hc > occ_c:
                occ_c = k - hc
            if busy == 0:
                first = t_in
            t = t_in + token_cost
            busy += token_cost
            hc += 1
            if tk != tok:  # counts kept in locals while the token id repeats
                work[np.uint64(stat + tok)] += ntok
                work[np.uint64(stat + n_ids + tok)] += pops
                ntok = 0
                pops = 0
            ntok += 1
            tok = tk
            pc = prog[1 + 2 * tk]
            end = prog[2 + 2 * tk]
            phase = RUN
            continue
        if pc >= end:
            phase = NEED_TOKEN
            continue
        i = np.uint64(1 + 2 * n_ids + pc * IREC)
        op = prog[i]
        dst = prog[i + np.uint64(1)]
        a = prog[i + np.uint64(2)]
        b = prog[i + np.uint64(3)]
        c = prog[i + np.uint64(4)]
        if op == POP:
            if hd >= td:
                break
            s = hd & ring
            if w.kind[cd, s] != DATA:
                break
            t_in = w.time[cd, s]
            if t_in < t:
                t_in = t
            if t_in < cur_d_t:
                break
            k = passed_masked(w.time[cd], ring, cur_d if cur_d > hd else hd, td, t_in)
            cur_d = k
            cur_d_t = t_in
            if k - hd > occ_d:
                occ_d = k - hd
            regs[np.uint64(dst * nw)] = w.fdata[cd, s]
            work[np.uint64(dst)] = 1
            hd += 1
            if busy == 0:
                first = t_in
            t = t_in + pop_cost
            busy += pop_cost
            pops += 1
        elif op >= OUT_ADD and op <= OUT_MIN:
            if not scalar(work, c):
                break
            r = int(reg(regs, work, nregs, nw, a, 0))
            col = int(reg(regs, work, nregs, nw, b, 0))
            if r < 0 or r >= rows or col < 0 or col >= cols:
                break
            update(out, np.uint64(r * cols + col), op, reg(regs, work, nregs, nw, c, 0))
        elif op == LOAD:
            q = cell(arrs, a, int(reg(regs, work, nregs, nw, b, 0)),
                     int(reg(regs, work, nregs, nw, c, 0)))
            if q < 0:
                break
            regs[np.uint64(dst * nw)] = regs[np.uint64(q)]
            work[np.uint64(dst)] = 1
        elif op >= ST_ADD:
            if not scalar(work, c):
                break
            q = cell(arrs, dst, int(reg(regs, work, nregs, nw, a, 0)),
                     int(reg(regs, work, nregs, nw, b, 0)))
            if q < 0:
                break
            update(regs, np.uint64(q), op - ST_ADD + OUT_ADD, reg(regs, work, nregs, nw, c, 0))
        elif op == VLOAD:
            break
        elif op == SUM:
            if not scalar(work, a):
                break
            regs[np.uint64(dst * nw)] = 0.0 + reg(regs, work, nregs, nw, a, 0)  # 0.0 start
            work[np.uint64(dst)] = 1
        else:
            if not (scalar(work, a) and (op == MOV or scalar(work, b))):
                break
            x = reg(regs, work, nregs, nw, a, 0)
            if op != MOV:
                x = combine(op, x, reg(regs, work, nregs, nw, b, 0))
            regs[np.uint64(dst * nw)] = x
            work[np.uint64(nregs + dst * nw)] = 1
            work[np.uint64(dst)] = 1
        pc += 1
    work[np.uint64(stat + n_ids + tok)] += pops
    work[np.uint64(stat + tok)] += ntok
    # each firing's idle cycles are its start minus the clock before it: in all, the clock's
    # advance minus the busy cycles
    st[IDLE] += t - t0 - (busy - busy0)
    st[T] = t
    st[BUSY] = busy
    st[FIRST_T] = first
    st[PHASE] = phase
    st[PC] = pc
    st[END] = end
    st[TOK] = tok
    st[CUR_C] = cur_c
    st[CUR_C_T] = cur_c_t
    st[CUR_D] = cur_d
    st[CUR_D_T] = cur_d_t
    w.head[cc] = hc
    w.head[cd] = hd
    work[stat + 2 * n_ids] = occ_d
    work[stat + 2 * n_ids + 1] = occ_c


@kernel
def execute(w, st, fst, ins, optr, ochan, prog, work, arrs, m3, out, regs):
    """Execute kernel: control tokens select callbacks, ``pop`` takes data entries."""
    cc = ins[0]
    cd = ins[1]
    nw = st[LANES]
    nregs = st[NREGS]
    n_ids = prog[0]
    stat = nregs + nregs * nw
    while st[STATUS] == 0:
        scalar_run(w, st, prog, work, arrs, out, regs, cc, cd, nw, nregs, n_ids, stat)
        if st[PHASE] == NEED_TOKEN:
            if w.head[cc] >= w.tail[cc]:
                st[WAIT] = cc
                return RC_IN
            t_in = max(st[T], htime(w, cc))
            if hkind(w, cc) == DONE:
                if w.head[cd] >= w.tail[cd]:
                    st[WAIT] = cd
                    return RC_IN
                if hkind(w, cd) != DONE:
                    return error(st, ERR_LEFT, 0)
                t_in = max(t_in, htime(w, cd))
                spend(st, t_in, 1)
                pop(w, cc, t_in)
                pop(w, cd, t_in)
                st[DONE_T] = t_in
                st[STATUS] = 1
                continue
            tok = hdata(w, cc)
            if tok < 0 or tok >= n_ids or prog[1 + 2 * tok] < 0:
                return error(st, ERR_TOKEN, tok)
            occ = occupancy_at(w, cc, t_in, st, CUR_C, CUR_C_T)
            if occ > work[stat + 2 * n_ids + 1]:
                work[stat + 2 * n_ids + 1] = occ
            spend(st, t_in, st[TOKEN_COST])
            pop(w, cc, t_in)
            work[stat + tok] += 1
            st[TOK] = tok
            st[PC] = prog[1 + 2 * tok]
            st[END] = prog[2 + 2 * tok]
            st[PHASE] = RUN
            continue
        if st[PC] >= st[END]:
            st[PHASE] = NEED_TOKEN
            continue
        i = 1 + 2 * n_ids + st[PC] * IREC
        op = prog[i]
        dst = prog[i + 1]
        a = prog[i + 2]
        b = prog[i + 3]
        c = prog[i + 4]
        if op == POP:
            if w.head[cd] >= w.tail[cd]:
                st[WAIT] = cd
                return RC_IN
            k = hkind(w, cd)
            if k == DONE:
                return error(st, ERR_EMPTY, st[TOK])
            n = 1 if k == DATA else nw
            if w.tail[cd] - w.head[cd] < n:
                st[WAIT] = cd
                return RC_IN
            t_in = max(st[T], w.time[cd, ring_slot(w, w.head[cd] + n - 1)])
            occ = occupancy_at(w, cd, t_in, st, CUR_D, CUR_D_T)
            if occ > work[stat + 2 * n_ids]:
                work[stat + 2 * n_ids] = occ
            if k == DATA:
                regs[dst * nw] = w.fdata[cd, ring_slot(w, w.head[cd])]
                work[dst] = 1
                pop(w, cd, t_in)
            else:
                work[dst] = 0
                for lane in range(nw):
                    s = ring_slot(w, w.head[cd])
                    valid = w.kind[cd, s] == STOP
                    regs[dst * nw + lane] = w.fdata[cd, s] if valid else 0.0
                    work[nregs + dst * nw + lane] = 1 if valid else 0
                    pop(w, cd, t_in)
            spend(st, t_in, st[POP_COST])
            work[stat + n_ids + st[TOK]] += 1
        elif op >= OUT_ADD and op <= OUT_MIN:
            r = int(reg(regs, work, nregs, nw, a, 0))
            col = int(reg(regs, work, nregs, nw, b, 0))
            n = 1 if scalar(work, c) else nw
            for lane in range(n):
                if on(work, nregs, nw, c, lane) == 0:
                    continue
                x = reg(regs, work, nregs, nw, c, lane)
                if r < 0 or r >= st[ROWS] or col + lane < 0 or col + lane >= st[COLS]:
                    return error(st, ERR_OUT, st[TOK])
                update(out, r * st[COLS] + col + lane, op, x)
        elif op == LOAD or op == VLOAD:
            r = int(reg(regs, work, nregs, nw, b, 0))
            col = int(reg(regs, work, nregs, nw, c, 0))
            if op == LOAD:
                q = cell(arrs, a, r, col)
                if q < 0:
                    return error(st, ERR_MEM, st[TOK])
                regs[dst * nw] = regs[q]
                work[dst] = 1
            else:
                for lane in range(nw):
                    q = cell(arrs, a, r, col + lane)
                    regs[dst * nw + lane] = regs[q] if q >= 0 else 0.0
                    work[nregs + dst * nw + lane] = 1 if q >= 0 else 0
                work[dst] = 0
        elif op >= ST_ADD:
            r = int(reg(regs, work, nregs, nw, a, 0))
            col = int(reg(regs, work, nregs, nw, b, 0))
            n = 1 if scalar(work, c) else nw
            for lane in range(n):
                if on(work, nregs, nw, c, lane) == 0:
                    continue
                q = cell(arrs, dst, r, col + lane)
                if q < 0:
                    return error(st, ERR_MEM, st[TOK])
                update(regs, q, op - ST_ADD + OUT_ADD, reg(regs, work, nregs, nw, c, lane))
        elif op == SUM:
            total = 0.0
            n = 1 if scalar(work, a) else nw
            for lane in range(n):
                if on(work, nregs, nw, a, lane) == 1:
                    total += reg(regs, work, nregs, nw, a, lane)
            regs[dst * nw] = total
            work[dst] = 1
        else:
            vec = not (scalar(work, a) and (op == MOV or scalar(work, b)))
            n = nw if vec else 1
            for lane in range(n):
                x = reg(regs, work, nregs, nw, a, lane)
                m = on(work, nregs, nw, a, lane)
                if op != MOV:
                    x = combine(op, x, reg(regs, work, nregs, nw, b, lane))
                    m = m & on(work, nregs, nw, b, lane)
                regs[dst * nw + lane] = x
                work[nregs + dst * nw + lane] = m
            work[dst] = 0 if vec else 1
        st[PC] += 1
    return RC_DONE


# ---------------------------------------------------------------------- programs
_ID = r"[A-Za-z_][A-Za-z0-9_]*"
_NUM = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf)"


class Program:
    """A parsed callback program (module docstring), encoded for the kernel."""

    def __init__(self, text: str, token_ids: Mapping[str, int], where: str = "execute") -> None:
        self.where = where
        self.registers: dict[str, int] = {}
        self.constants: list[float] = []
        self.sections: dict[int, list[list[int]]] = {}
        self.names = dict(token_ids)
        #: Core arrays by name: (number, workspace shape or None for an input tensor).
        self.arrays: dict[str, tuple[int, tuple[int, int] | None]] = {}
        self.ranks: dict[str, int] = {}
        for part in text.split("|"):
            if not part.strip():
                continue
            if self._declaration(part.strip()):
                continue
            head, colon, body = part.partition(":")
            head = head.strip()
            if not colon or not head:
                raise self._bad(f"section {part.strip()!r} is not 'TOKEN: statements'")
            tid = self._token(head)
            if tid in self.sections:
                raise self._bad(f"token {head} has two sections; give each token one")
            code: list[list[int]] = []
            for stmt in body.split(";"):
                if stmt.strip():
                    code.append(self._statement(stmt.strip()))
            self.sections[tid] = code
        if not self.sections:
            raise self._bad("the program has no section; write e.g. 'ite: v = pop; out[0, 0] "
                            "+= v'")

    def _declaration(self, part: str) -> bool:
        """``array W[N]`` / ``array W[R, C]`` (a workspace of zeros) or ``input T`` (a bound
        tensor the program reads); False for anything else."""
        m = re.fullmatch(rf"array\s+({_ID})\s*\[\s*(\d+)\s*(?:,\s*(\d+)\s*)?\]", part)
        if m:
            shape = (int(m.group(2)), int(m.group(3))) if m.group(3) else (1, int(m.group(2)))
            self._new_array(m.group(1), shape, 2 if m.group(3) else 1)
            return True
        m = re.fullmatch(rf"input\s+({_ID})", part)
        if m:
            self._new_array(m.group(1), None, 0)
            return True
        if re.match(r"(array|input)\s", part) and ":" not in part:
            raise self._bad(f"declaration {part!r} is not 'array NAME[SIZE]', "
                            "'array NAME[ROWS, COLS]' or 'input NAME'")
        return False

    def _new_array(self, name: str, shape: tuple[int, int] | None, rank: int) -> None:
        if name == "out" or name in self.arrays or name in self.registers:
            raise self._bad(f"array {name} is declared twice or names the output or a register")
        self.arrays[name] = (len(self.arrays), shape)
        if rank:
            self.ranks[name] = rank

    def workspaces(self) -> dict[str, tuple[int, int]]:
        """The declared workspaces and their shapes (rows, columns; a 1-d one has one row)."""
        return {k: v for k, (_, v) in self.arrays.items() if v is not None}

    def inputs(self) -> list[str]:
        """The tensors the program reads (``input T``)."""
        return [k for k, (_, v) in self.arrays.items() if v is None]

    def _bad(self, msg: str) -> GraphError:
        return GraphError(f"{self.where}: program: {msg}")

    def _token(self, text: str) -> int:
        if re.fullmatch(r"\d+", text):
            return int(text)
        if text not in self.names:
            known = ", ".join(f"{k}={v}" for k, v in self.names.items()) or "none"
            raise self._bad(f"token {text!r} is not a control token of the TMU (tokens: {known})")
        return self.names[text]

    def _reg(self, name: str) -> int:
        if name == "out" or name in self.arrays:
            raise self._bad(f"'{name}' is the output or an array; name registers otherwise")
        return self.registers.setdefault(name, len(self.registers))

    def _operand(self, text: str, stmt: str) -> int:
        text = text.strip()
        if re.fullmatch(_NUM, text):
            self.constants.append(float(text))
            return -len(self.constants)
        if re.fullmatch(_ID, text):
            if text not in self.registers:
                raise self._bad(f"in {stmt!r}: register {text} is read before it is set")
            return self.registers[text]
        raise self._bad(f"in {stmt!r}: {text!r} is not a register or a number")

    def _index(self, name: str, text: str, stmt: str, store: bool) -> tuple[int, int, int, bool]:
        """Array ``name`` at index ``text``: (array number, row operand, column operand, whether
        the index ends in ``..``, a vector of ``lanes`` elements)."""
        if name not in self.arrays:
            raise self._bad(f"in {stmt!r}: {name} is not a declared array ('array {name}[SIZE]' "
                            f"or 'input {name}')")
        k, shape = self.arrays[name]
        if store and shape is None:
            raise self._bad(f"in {stmt!r}: input {name} is read-only; store into a workspace")
        parts = [x.strip() for x in text.split(",")]
        vec = parts[-1].endswith("..")
        if vec:
            parts[-1] = parts[-1][:-2].strip()
        if store and vec:
            raise self._bad(f"in {stmt!r}: a store writes the lanes of its value; drop '..'")
        if len(parts) not in (1, 2) or self.ranks.setdefault(name, len(parts)) != len(parts):
            raise self._bad(f"in {stmt!r}: {name} takes {self.ranks.get(name, 1)} index(es)")
        ops = [self._operand(x, stmt) for x in parts]
        if len(ops) == 1:
            ops.insert(0, self._operand("0", stmt))
        return k, ops[0], ops[1], vec

    def _statement(self, stmt: str) -> list[int]:
        m = re.fullmatch(r"out\s*\[([^,\]]+),([^\]]+)\]\s*(\+=|=|max=|min=)\s*(.+)", stmt)
        if m:
            i, j = self._operand(m.group(1), stmt), self._operand(m.group(2), stmt)
            return [OUT_OPS[m.group(3)], 0, i, j, self._operand(m.group(4), stmt)]
        m = re.fullmatch(rf"({_ID})\s*\[([^\]]+)\]\s*(\+=|=|max=|min=)\s*(.+)", stmt)
        if m:
            k, i, j, _ = self._index(m.group(1), m.group(2), stmt, store=True)
            return [ST_OPS[m.group(3)], k, i, j, self._operand(m.group(4), stmt)]
        m = re.fullmatch(rf"({_ID})\s*=\s*(.+)", stmt)
        if not m:
            raise self._bad(f"statement {stmt!r} is not 'x = ...', 'out[i, j] += x' or "
                            "'W[k] += x'")
        rhs = m.group(2).strip()
        if rhs == "pop":
            return [POP, self._reg(m.group(1)), 0, 0, 0]
        f = re.fullmatch(rf"({_ID})\s*\[([^\]]+)\]", rhs)
        if f:
            k, i, j, vec = self._index(f.group(1), f.group(2), stmt, store=False)
            return [VLOAD if vec else LOAD, self._reg(m.group(1)), k, i, j]
        f = re.fullmatch(r"(max|min)\(([^,]+),([^)]+)\)", rhs)
        if f:
            a, b = self._operand(f.group(2), stmt), self._operand(f.group(3), stmt)
            return [MAX if f.group(1) == "max" else MIN, self._reg(m.group(1)), a, b, 0]
        f = re.fullmatch(r"sum\(([^)]+)\)", rhs)
        if f:
            a = self._operand(f.group(1), stmt)
            return [SUM, self._reg(m.group(1)), a, 0, 0]
        f = re.fullmatch(rf"({_ID}|{_NUM})\s*([-+*/])\s*({_ID}|{_NUM})", rhs)
        if f:
            a, b = self._operand(f.group(1), stmt), self._operand(f.group(3), stmt)
            return [BINARY[f.group(2)], self._reg(m.group(1)), a, b, 0]
        if re.fullmatch(rf"{_ID}|{_NUM}", rhs):
            a = self._operand(rhs, stmt)
            return [MOV, self._reg(m.group(1)), a, 0, 0]
        raise self._bad(f"statement {stmt!r}: cannot read {rhs!r} (pop, a OP b, max(a, b), "
                        "min(a, b), sum(a), W[k], W[k..] or a)")

    def encode(self) -> np.ndarray:
        n_ids = max(self.sections) + 1
        table = [-1, -1] * n_ids
        code: list[int] = []
        pc = 0
        for tid in sorted(self.sections):
            table[2 * tid] = pc
            for ins in self.sections[tid]:
                code += ins
                pc += 1
            table[2 * tid + 1] = pc
        return np.array([n_ids, *table, *code], np.int64)


def parse_shape(text: str, where: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*x\s*(\d+)\s*", text or "")
    if not m:
        raise GraphError(f"{where}: dims {text!r} is not ROWSxCOLS (e.g. 2x4)")
    return int(m.group(1)), int(m.group(2))


def parse_tokens(text: str, where: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        name, eq, val = part.partition("=")
        if not eq or not val.strip().lstrip("-").isdigit():
            raise GraphError(f"{where}: tokens entry {part!r} is not NAME=ID")
        out[name.strip()] = int(val)
    return out


class Execute(Block):
    """The core of a DAE pair (module docstring); DOT type ``execute``."""

    dot_type = "execute"
    family = "write"
    kernel = execute
    state = EXEC
    required_attrs = ("tensor", "dims", "program")
    errors = {
        ERR_TOKEN: "a control token has no callback section in the program",
        ERR_LEFT: "the data queue still holds entries when the done token comes (the program "
                  "pops fewer operands than the TMU pushes)",
        ERR_EMPTY: "a callback pops from a data queue that is done (the program pops more "
                   "operands than the TMU pushes)",
        ERR_OUT: "an output index is outside the output's shape",
        ERR_MEM: "a core array index is outside the array's shape",
    }

    def __init__(self, node_id: str, attrs: Mapping[str, str] | None = None) -> None:
        super().__init__(node_id, attrs)
        where = f"node {self.id} (execute)"
        self.shape = parse_shape(self.attrs["dims"], where)
        self.token_ids = parse_tokens(self.attrs.get("tokens", ""), where)
        self.program = Program(self.attrs["program"], self.token_ids, where)
        try:
            self.init = float(self.attrs.get("init", "0"))
            self.lanes = int(self.attrs.get("lanes", "1"))
            self.costs = (int(self.attrs.get("token_cost", "1")),
                          int(self.attrs.get("pop_cost", "1")))
        except ValueError as err:
            raise GraphError(f"{where}: {err}; init is a number, lanes and costs integers") \
                from None
        order = ("tensor", "dims", "program", "lanes", "tokens", "init", "token_cost",
                 "pop_cost")
        self.attrs = {**{k: self.attrs[k] for k in order if k in self.attrs},
                      **{k: v for k, v in self.attrs.items() if k not in order}}
        if self.lanes < 1 or min(self.costs) < 1:
            raise GraphError(f"{where}: lanes, token_cost and pop_cost must be >= 1")

    def inputs(self) -> list[Port]:
        return [Port("ctrl"), Port("data")]

    def reads(self) -> list[str]:
        return self.program.inputs()

    def params(self, tensors: Mapping[str, Tensor]) -> dict[str, int]:
        return {"lanes": self.lanes, "token_cost": self.costs[0], "pop_cost": self.costs[1],
                "rows": self.shape[0], "cols": self.shape[1],
                "nregs": len(self.program.registers)}

    def memories(self, tensors: Mapping[str, Tensor]) -> dict[str, np.ndarray]:
        prog = self.program.encode()
        nregs = len(self.program.registers)
        n_ids = int(prog[0])
        work = np.zeros(nregs + nregs * self.lanes + 2 * n_ids + 2, np.int64)
        base = nregs * self.lanes + len(self.program.constants) + 1
        arrs = np.zeros(AREC * len(self.program.arrays), np.int64)
        cells: list[np.ndarray] = []
        for name, (k, shape) in self.program.arrays.items():
            data = self._core_array(name, shape, tensors)
            arrs[AREC * k: AREC * k + AREC] = (base, *data.shape)
            base += data.size
            cells.append(data.ravel())
        regs = np.zeros(base, np.float64)
        regs[nregs * self.lanes: nregs * self.lanes + len(self.program.constants)] = \
            self.program.constants
        if cells:
            regs[base - sum(c.size for c in cells):] = np.concatenate(cells)
        out = np.full(self.shape[0] * self.shape[1], self.init, np.float64)
        return {"prog": prog, "work": work, "arrs": arrs, "out": out, "regs": regs}

    def _core_array(self, name: str, shape: tuple[int, int] | None,
                    tensors: Mapping[str, Tensor]) -> np.ndarray:
        """A workspace's zeros, or a read tensor's values as (rows, columns)."""
        if shape is not None:
            return np.zeros(shape, np.float64)
        where = f"node {self.id} (execute)"
        if name not in tensors:
            raise GraphError(f"{where}: the program reads input {name}, which is not bound")
        dense = np.asarray(tensors[name].to_dense(), np.float64)
        rank = self.program.ranks.get(name, dense.ndim)
        if dense.ndim != rank or rank not in (1, 2):
            raise GraphError(f"{where}: the program indexes input {name} with {rank} "
                             f"index(es) but it has order {dense.ndim}")
        return dense.reshape(1, -1) if rank == 1 else dense

    def results(self, st: np.ndarray, mem: Memories, tensors: Mapping[str, Tensor]
                ) -> dict[str, Tensor]:
        dense = mem["out"].reshape(self.shape).copy()
        return {self.tensor: Tensor.from_dense(dense, "dd")}

    def details(self, st: np.ndarray, mem: Memories) -> dict[str, int]:
        work = mem["work"]
        nregs = len(self.program.registers)
        n_ids = int(mem["prog"][0])
        stat = nregs + nregs * self.lanes
        names = {v: k for k, v in self.token_ids.items()}
        out: dict[str, int] = {}
        for tid in sorted(self.program.sections):
            name = names.get(tid, str(tid))
            out[f"token.{name}.count"] = int(work[stat + tid])
            out[f"token.{name}.pops"] = int(work[stat + n_ids + tid])
        out["queue.data.max_occupancy"] = int(work[stat + 2 * n_ids])
        out["queue.ctrl.max_occupancy"] = int(work[stat + 2 * n_ids + 1])
        return out

    def picture_lines(self) -> list[str]:
        return [f"execute -> {self.tensor} ({self.shape[0]}x{self.shape[1]})",
                *[s.strip() for s in self.attrs["program"].split("|")]]

    def label(self) -> str:
        return f"execute -> {self.tensor} ({self.shape[0]}x{self.shape[1]})"
