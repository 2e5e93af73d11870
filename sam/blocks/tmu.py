"""The TMU block: Ember's tensor marshaling unit (Ember paper Sec. 3.1, 4, Figures 5, 9, 10).

A TMU walks layers of traversal units (TUs) depth-first, one fiber of a layer per iteration of
the layer outside it, computing its streams (``mem`` loads, ``alu`` index arithmetic, ``fwd``
repetition of an outer stream) in every iteration. Its configuration is a
:class:`~sam.blocks.tmu_config.TmuConfig` held in the node's attributes. Two output modes:

* ``dae``: at the events ``beg``, ``ite``, ``end`` of a TU the marshaling rules push operands to
  the ``data`` queue (a scalar: one value token; a vector: ``lanes`` tokens, masked lanes ``N``)
  and control tokens (their int ids) to the ``ctrl`` queue; both end with ``D`` (the ``done``
  token). An :class:`~sam.blocks.execute.Execute` block consumes them.
* ``sam``: every stream is an output SAM stream (port ``KIND:NAME``): its value in each iteration
  of its layer, stop tokens where fibers of its layer and the layers outside end (a fiber's stop
  merged with its parents' as a level scanner merges them, an empty fiber its own stop), then
  ``D`` - token for token the streams of the equivalent chain of level scanners (a dense TU is a
  dense scanner's coordinates, a range TU a compressed scanner's references), array loads
  (``mem``) and repeaters (``fwd``).

Timing (docs/timing-model.md, "TMU and execute blocks"): one firing per cycle; a firing pushes at
most one entry per queue (``dae``) or one token per port (``sam``). ``dae``: an event costs one
firing per rule of its busiest queue, an ``ite`` of the innermost layer at least one (the layer
advances one step per cycle), other events without rules none. ``sam``: one firing per iteration
of any layer, per fiber end that emits stops, and one for the done tokens. A ``mem`` stream of
latency L delays the tokens carrying it (and the streams computed from it) by L-1 cycles; queues
stay in order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from formats.tensor import Tensor
from sam.blocks.base import Block, Memories, Port
from sam.blocks.tmu_config import Alu, Mem, TmuConfig
from sam.blocks.tmu_program import (
    AR_BASE,
    AR_SIZE,
    AREC,
    CHUNK,
    EREC,
    EV_BEG,
    EV_END,
    EV_END_RULE,
    EV_FIRST_RULE,
    EV_ITE,
    EVENTS_PER_LAYER,
    H_L,
    H_MODE,
    H_NPORTS,
    H_NT,
    H_OFF_ARR,
    H_OFF_EV,
    H_OFF_LAYER,
    H_OFF_RULE,
    H_OFF_STREAM,
    H_OFF_TU,
    H_S,
    H_W,
    H_W_LAST,
    H_W_MASK,
    H_W_STAT,
    H_W_STEP,
    K_LIT,
    K_SAME,
    L_BCAST,
    LREC,
    LSTAT,
    LY_FIRST_STREAM,
    LY_FIRST_TU,
    LY_KIND,
    LY_LANES,
    LY_STREAMS,
    LY_TUS,
    MODE_DAE,
    MODE_SAM,
    N_ACTIVE,
    N_FIBERS,
    N_ITERATIONS,
    N_MASKED,
    Q_CTRL_N,
    Q_CTRL_STALL,
    Q_DATA_N,
    Q_DATA_STALL,
    QSTAT,
    R_OPERAND,
    R_TOKEN,
    RREC,
    RU_ARG,
    RU_TYPE,
    RU_VECTOR,
    S_FWD,
    S_MEM,
    S_TU,
    SR_A,
    SR_A_KIND,
    SR_ARRAY,
    SR_B,
    SR_B_KIND,
    SR_DELAY,
    SR_FLOATS,
    SR_LAYER,
    SR_OP,
    SR_TU,
    SR_TYPE,
    SREC,
    TREC,
    TSTAT,
    TU_HI,
    TU_HI_KIND,
    TU_LO,
    TU_LO_KIND,
    TU_STEP,
    TU_STREAM,
    W_CUR,
    W_HI,
    W_LO,
    WREC,
    compile_config,
)
from sam.errors import GraphError, SimulationError
from sam.runtime.burst import NONNEG, ring_mask
from sam.runtime.jit import jitable
from sam.runtime.kernel import State, fire, kernel
from sam.runtime.paths import TMU_BURST, enter
from sam.runtime.tokens import DATA, DONE, EMPTY, STOP
from sam.runtime.wires import (
    BUSY,
    DONE_T,
    ERR,
    ERR_DATA,
    ERR_KIND,
    ERR_PORT,
    FIRST_T,
    LAT,
    RC_BUF,
    RC_DONE,
    RC_ERR,
    RC_FIFO,
    STATUS,
    WAIT,
    WIDTH,
    T,
)

P_BEG, P_ADV, P_EVENT, P_STOP, P_DONE, P_END = 0, 1, 2, 3, 4, 5
TMU = State(phase=P_BEG, depth=0, ev_l=0, ev_k=0, di=0, ci=0, nfire=0, after=0, after_d=0)
PHASE, DEPTH, EV_L, EV_K, DI, CI, NFIRE, AFTER, AFTER_D = TMU.slots
ERR_RANGE, ERR_DIV, ERR_DEPTH = 1, 2, 3
#: The node attributes that hold the configuration.
CONFIG_KEYS = ("mode", "layers", "tus", "streams", "operands", "tokens")
#: Ports of a TMU in dae mode.
CTRL, DATAQ = 0, 1


@jitable(inline=True)
def layer_at(prog, d):
    """Where layer ``d``'s record (``LY_*`` fields) starts in ``prog`` (these offsets are
    non-negative: ``& NONNEG`` tells numba, which then drops its wrap-around)."""
    return (prog[H_OFF_LAYER] + d * LREC) & NONNEG


@jitable(inline=True)
def tu_at(prog, u):
    """Where TU ``u``'s record (``TU_*`` fields) starts in ``prog``."""
    return (prog[H_OFF_TU] + u * TREC) & NONNEG


@jitable(inline=True)
def stream_at(prog, s):
    """Where stream ``s``'s record (``SR_*`` fields) starts in ``prog``."""
    return (prog[H_OFF_STREAM] + s * SREC) & NONNEG


@jitable(inline=True)
def rule_at(prog, r):
    """Where rule ``r``'s record (``RU_*`` fields) starts in ``prog``."""
    return (prog[H_OFF_RULE] + r * RREC) & NONNEG


@jitable(inline=True)
def event_at(prog, d, e):
    """Where the rules of event ``e`` of layer ``d`` (``EV_*`` fields) are in ``prog``."""
    return (prog[H_OFF_EV] + (d * EVENTS_PER_LAYER + e) * EREC) & NONNEG


@jitable(inline=True)
def array_at(prog, a):
    """Where bound array ``a``'s entry (``AR_*`` fields) starts in ``prog``."""
    return (prog[H_OFF_ARR] + a * AREC) & NONNEG


@jitable(inline=True)
def iterated_at(prog, d):
    """Where ``work`` says whether layer ``d`` stepped in its current fiber (after the TUs'
    cursors and bounds)."""
    return prog[H_NT] * WREC + d


@jitable
def ring_slot(w, n):
    """Ring-buffer slot of the ``n``-th token of a channel (rings are powers of two)."""
    return n & (w.kind.shape[1] - 1)


@jitable(inline=True)
def room_n(w, optr, ochan, port, n):
    """Earliest cycle in which ``port`` can take ``n`` tokens at once (-1 ring full, -2 FIFO
    full, -3 FIFO shallower than ``n``)."""
    t = 0
    cap = w.kind.shape[1]
    for j in range(optr[port], optr[port + 1]):
        c = ochan[j]
        if w.tail[c] + n - w.head[c] > cap:
            return -1
        d = w.depth[c]
        if d > 0:
            if d < n:
                return -3
            if d > cap:
                return -1
            for q in range(n):
                k = w.tail[c] + q - d
                if k < 0:
                    continue
                if w.head[c] <= k:
                    return -2
                free = w.ptime[c, ring_slot(w, k)] + 1
                if free > t:
                    t = free
    return t


@jitable
def operand(prog, vals, k, v, lane, nw):
    """The value of an encoded operand in ``lane``."""
    if k == K_LIT:
        return float(v)
    if k == K_SAME:
        return vals[v * nw + lane]
    return vals[v * nw]


@jitable
def alu(op, a, b):
    """Integer ALU op on two values (held as floats); NaN for a division by zero."""
    if op == 0:
        return a + b
    if op == 1:
        return a - b
    if op == 2:
        return a * b
    if op == 3:
        return np.floor(a / b) if b != 0 else np.nan
    if op == 4:
        return a - b * np.floor(a / b) if b != 0 else np.nan
    if op == 5:
        return a if a < b else b
    return a if a > b else b


@jitable(inline=True)
def put(w, optr, ochan, port, kind, data, t):
    """:func:`sam.runtime.wires.push`, inlined into the TMU kernel (called per token)."""
    for j in range(optr[port], optr[port + 1]):
        c = ochan[j]
        s = ring_slot(w, w.tail[c])
        w.kind[c, s] = kind
        w.time[c, s] = t
        w.data[c, s] = data
        w.tail[c] += 1
        w.count[c, kind] += 1


@jitable(inline=True)
def putv(w, optr, ochan, port, kind, value, t):
    """:func:`sam.runtime.wires.pushv`, inlined into the TMU kernel (called per token)."""
    for j in range(optr[port], optr[port + 1]):
        c = ochan[j]
        s = ring_slot(w, w.tail[c])
        w.kind[c, s] = kind
        w.time[c, s] = t
        w.fdata[c, s] = value
        w.tail[c] += 1
        w.count[c, kind] += 1


@jitable(inline=True)
def has_iter(prog, work, d):
    """Whether the current fiber of layer ``d`` has an iteration left."""
    lrec = layer_at(prog, d)
    for u in range(prog[lrec + LY_FIRST_TU], prog[lrec + LY_FIRST_TU] + prog[lrec + LY_TUS]):
        if work[u * WREC + W_CUR] < work[u * WREC + W_HI]:
            return True
    return False


@jitable
def begin_layer(prog, work, vals, d):
    """Set the bounds of layer ``d``'s TUs from the outer streams; count a fiber."""
    nw = prog[H_W]
    lrec = layer_at(prog, d)
    stat = prog[H_W_STAT]
    for u in range(prog[lrec + LY_FIRST_TU], prog[lrec + LY_FIRST_TU] + prog[lrec + LY_TUS]):
        tr = tu_at(prog, u)
        lo = int(operand(prog, vals, prog[tr + TU_LO_KIND], prog[tr + TU_LO], 0, nw))
        hi = int(operand(prog, vals, prog[tr + TU_HI_KIND], prog[tr + TU_HI], 0, nw))
        work[u * WREC + W_LO] = lo
        work[u * WREC + W_HI] = hi
        work[u * WREC + W_CUR] = lo
        work[stat + TSTAT * u + N_FIBERS] += 1
    work[iterated_at(prog, d)] = 0


@jitable(inline=True)
def step_layer(prog, work, vals, pool, d):
    """Compute the streams of layer ``d`` for its next step and advance its TUs; returns -1, or
    the number of the stream whose load went out of range / divided by zero (error)."""
    nw = prog[H_W]
    lrec = layer_at(prog, d)
    kind = prog[lrec + LY_KIND]
    lanes = prog[lrec + LY_LANES]
    mask_off = prog[H_W_MASK]
    stat = prog[H_W_STAT]
    lane_stat = stat + TSTAT * prog[H_NT] + QSTAT
    for u in range(prog[lrec + LY_FIRST_TU], prog[lrec + LY_FIRST_TU] + prog[lrec + LY_TUS]):
        tr = tu_at(prog, u)
        s = prog[tr + TU_STREAM]
        step = prog[tr + TU_STEP]
        cur = work[u * WREC + W_CUR]
        hi = work[u * WREC + W_HI]
        for lane in range(nw):
            if kind == L_BCAST:
                on = cur < hi and lane < lanes
                val = cur
            else:
                val = cur + lane * step
                on = lane < lanes and val < hi
            vals[s * nw + lane] = float(val) if on else 0.0
            work[mask_off + s * nw + lane] = 1 if on else 0
            if lane < lanes:
                if on:
                    work[stat + TSTAT * u + N_ITERATIONS] += 1
                    work[lane_stat + LSTAT * lane + N_ACTIVE] += 1
                else:
                    work[lane_stat + LSTAT * lane + N_MASKED] += 1
        if cur < hi:
            work[u * WREC + W_CUR] = cur + (step if kind == L_BCAST else step * lanes)
    first = prog[lrec + LY_FIRST_STREAM]
    for s in range(first, first + prog[lrec + LY_STREAMS]):
        sr = stream_at(prog, s)
        typ = prog[sr + SR_TYPE]
        if typ == S_TU:
            continue
        mtu_s = prog[tu_at(prog, prog[sr + SR_TU]) + TU_STREAM]
        for lane in range(nw):
            on = work[mask_off + mtu_s * nw + lane]
            work[mask_off + s * nw + lane] = on
            v = 0.0
            if typ == S_FWD:
                v = vals[prog[sr + SR_A] * nw]
            elif on == 1:
                a = operand(prog, vals, prog[sr + SR_A_KIND], prog[sr + SR_A], lane, nw)
                if typ == S_MEM:
                    arr = array_at(prog, prog[sr + SR_ARRAY])
                    if not (a >= 0 and a < prog[arr + AR_SIZE]):
                        return s
                    v = pool[prog[arr + AR_BASE] + int(a)]
                else:
                    b = operand(prog, vals, prog[sr + SR_B_KIND], prog[sr + SR_B], lane, nw)
                    v = alu(prog[sr + SR_OP], a, b)
                    if np.isnan(v):
                        return s
            vals[s * nw + lane] = v
    work[iterated_at(prog, d)] = 1
    return -1


@jitable(inline=True)
def arrival(prog, work, port, t, extra):
    """Arrival cycle of a token on ``port`` emitted at ``t``, kept in order with the port's
    earlier tokens."""
    last = prog[H_W_LAST] + port
    a = t + extra
    if a < work[last]:
        a = work[last]
    work[last] = a
    return a


@jitable(inline=True)
def set_event(st, d, k, after, after_d):
    st[EV_L] = d
    st[EV_K] = k
    st[DI] = 0
    st[CI] = 0
    st[NFIRE] = 0
    st[AFTER] = after
    st[AFTER_D] = after_d
    st[PHASE] = P_EVENT


@jitable(inline=True)
def port_room(w, optr, ochan, port, per, room):
    """How many events pushing ``per`` tokens each ``port`` can still take (at most ``room``);
    -1 if one of its channels is a bounded FIFO."""
    cap = w.kind.shape[1]
    for j in range(optr[port], optr[port + 1]):
        c = ochan[j]
        if w.depth[c] > 0:
            return -1
        if per > 0:
            k = (cap - (w.tail[c] - w.head[c])) // per
            if k < room:
                room = k
    return room


@jitable(inline=True)
def column(prog, nw, s):
    """Where stream ``s``'s scratch column starts in ``vals`` (after every stream's values per
    lane; :func:`compile_config` sizes ``vals``)."""
    return (max(1, prog[H_S] * nw) + s * CHUNK) & NONNEG


@jitable(inline=True)
def column_of(prog, d, nw, x, s):
    """Where stream ``s``'s operand stream ``x`` is read in a chunk: its column in ``vals``
    (``x`` in layer ``d``, computed before ``s`` in a step), -1 for its current value (an outer
    layer's stream: constant in the fiber), -2 when a step reads it before computing it."""
    if prog[stream_at(prog, x) + SR_LAYER] != d:
        return -1
    if x >= s and prog[stream_at(prog, x) + SR_TYPE] != S_TU:
        return -2
    return column(prog, nw, x)


@jitable(inline=True)
def alu_column(op, vals, c, ca, a0, cb, b0, n):
    """``vals[c + m] = alu(op, a, b)`` for ``m < n``, ``a`` from column ``ca`` (``a0`` when
    ``ca < 0``), ``b`` likewise; returns how many steps succeeded (the first NaN ends it)."""
    for m in range(n):
        a = vals[(ca + m) & NONNEG] if ca >= 0 else a0
        b = vals[(cb + m) & NONNEG] if cb >= 0 else b0
        v = alu(op, a, b)
        if np.isnan(v):
            return m
        vals[(c + m) & NONNEG] = v
    return n


@jitable(inline=True)
def chunk_steps(prog, work, vals, pool, d, nw, most):
    """:func:`chunk_steps_at` from the columns' first row."""
    return chunk_steps_at(prog, work, vals, pool, d, nw, most, 0)


@jitable(inline=True)
def chunk_steps_at(prog, work, vals, pool, d, nw, most, at):
    """Up to ``most`` (at most :data:`CHUNK` - ``at``) steps of the innermost layer ``d``
    computed a stream at a time into the scratch columns of ``vals`` (``column_of``) from
    their row ``at``, and the layer's TU, values, masks and statistics advanced as that many
    :func:`step_layer` calls would. Only for a layer of one TU, one lane and no vector
    anywhere (``nw`` = 1), whose streams read only streams computed before them; else, or when
    the first step fails (a load out of range, a division by zero: :func:`step_layer` reports
    it), 0 steps. A step that fails ends the chunk before it."""
    if nw != 1 or most <= 0:
        return 0
    lrec = layer_at(prog, d)
    if prog[lrec + LY_TUS] != 1 or prog[lrec + LY_LANES] != 1:
        return 0
    u = prog[lrec + LY_FIRST_TU]
    tr = tu_at(prog, u)
    step = prog[tr + TU_STEP]
    s_tu = prog[tr + TU_STREAM]
    cur = work[u * WREC + W_CUR]
    hi = work[u * WREC + W_HI]
    if step <= 0 or cur >= hi:
        return 0
    n = (hi - cur + step - 1) // step
    if n > most:
        n = most
    if n > CHUNK - at:
        n = CHUNK - at
    first = prog[lrec + LY_FIRST_STREAM]
    last = first + prog[lrec + LY_STREAMS]
    for s in range(first, last):
        if s == s_tu:
            c = column(prog, nw, s) + at
            for m in range(n):
                vals[(c + m) & NONNEG] = float(cur + m * step)
            continue
        sr = stream_at(prog, s)
        typ = prog[sr + SR_TYPE]
        if typ == S_TU:
            return 0  # another TU's stream: not this layer's shape
        c = column(prog, nw, s) + at
        if typ == S_FWD:
            ca = column_of(prog, d, nw, prog[sr + SR_A], s)
            if ca == -2:
                return 0
            if ca >= 0:
                ca += at
            for m in range(n):
                vals[c + m] = vals[ca + m] if ca >= 0 else vals[prog[sr + SR_A] * nw]
            continue
        ka = prog[sr + SR_A_KIND]
        ca = -1 if ka == K_LIT else column_of(prog, d, nw, prog[sr + SR_A], s)
        a0 = operand(prog, vals, ka, prog[sr + SR_A], 0, nw)
        if ca == -2:
            return 0
        if ca >= 0:
            ca += at
        if typ == S_MEM:
            arr = array_at(prog, prog[sr + SR_ARRAY])
            base = prog[arr + AR_BASE]
            size = prog[arr + AR_SIZE]
            for m in range(n):
                a = vals[(ca + m) & NONNEG] if ca >= 0 else a0
                if not (a >= 0 and a < size):
                    n = m  # this step fails: the chunk ends before it
                    break
                vals[(c + m) & NONNEG] = pool[(base + int(a)) & NONNEG]  # range-checked
        else:
            kb = prog[sr + SR_B_KIND]
            cb = -1 if kb == K_LIT else column_of(prog, d, nw, prog[sr + SR_B], s)
            b0 = operand(prog, vals, kb, prog[sr + SR_B], 0, nw)
            if cb == -2:
                return 0
            if cb >= 0:
                cb += at
            op = prog[sr + SR_OP]
            if op == 0:  # + and * with the operation a constant (LLVM drops alu's dispatch)
                n = alu_column(0, vals, c, ca, a0, cb, b0, n)
            elif op == 2:
                n = alu_column(2, vals, c, ca, a0, cb, b0, n)
            else:
                n = alu_column(op, vals, c, ca, a0, cb, b0, n)
        if n == 0:
            return 0
    # the state after n steps: last values, masks on, TU advanced, statistics
    mask_off = prog[H_W_MASK]
    for s in range(first, last):
        vals[s * nw] = vals[column(prog, nw, s) + at + n - 1]
        work[mask_off + s * nw] = 1
    stat = prog[H_W_STAT]
    work[stat + TSTAT * u + N_ITERATIONS] += n
    work[stat + TSTAT * prog[H_NT] + QSTAT + N_ACTIVE] += n  # lane 0
    work[u * WREC + W_CUR] = cur + n * step
    work[iterated_at(prog, d)] = 1
    return n


@jitable(inline=True)
def no_rules(prog, d, e):
    """Whether event ``e`` of layer ``d`` has no marshaling rules."""
    ev = event_at(prog, d, e)
    return prog[ev + EV_END_RULE] <= prog[ev + EV_FIRST_RULE]


@jitable(inline=True)
def crosses(prog, d):
    """Whether a burst of layer ``d`` (the innermost) may go on into the next fiber: an outer
    layer is there and the events between two fibers (``end`` of ``d``, ``ite`` of ``d - 1``,
    ``beg`` of ``d``) have no rules (each then costs no firing unless layer ``d - 1`` stepped
    in the cycle before, which the burst checks)."""
    if d < 1:
        return False
    return (no_rules(prog, d, EV_END) and no_rules(prog, d - 1, EV_ITE)
            and no_rules(prog, d, EV_BEG))


@jitable(inline=True)
def burst_inner(w, st, optr, ochan, prog, work, pool, vals):
    """Burst path (dae mode, unbounded queues, width 1): the ``ite`` events of the innermost
    layer's current fiber in one tight loop. With unbounded queues every firing of the event
    is in the cycle after the last (``room_n`` is 0, no stall), so each takes ``st[T]``; the
    tokens, arrivals, statistics and the layer's step cycle are the per-element path's
    (``tests/test_tmu_burst.py``). Stops at the fiber's end or when the simulator rings are
    full (the per-element path goes on). Returns -1, or the stream that failed (as
    :func:`step_layer`)."""
    if st[WIDTH] > 1 or not enter(st, TMU_BURST):
        return -1
    nl = prog[H_L]
    d = nl - 1
    nw = prog[H_W]
    ev = event_at(prog, d, EV_ITE)
    lo = prog[ev + EV_FIRST_RULE]
    hi = prog[ev + EV_END_RULE]
    nd = 0
    nc = 0
    per_d = 0
    for r in range(lo, hi):
        rr = rule_at(prog, r)
        if prog[rr + RU_TYPE] == R_OPERAND:
            nd += 1
            if prog[rr + RU_VECTOR] == 1:
                s = prog[rr + RU_ARG]
                per_d += prog[layer_at(prog, prog[stream_at(prog, s) + SR_LAYER]) + LY_LANES]
            else:
                per_d += 1
        else:
            nc += 1
    nf = nd if nd > nc else nc
    if nf == 0:
        nf = 1
    room = port_room(w, optr, ochan, DATAQ, per_d, w.kind.shape[1])
    if room < 0:
        return -1
    room = port_room(w, optr, ochan, CTRL, nc, room)
    if room < 0:
        return -1
    bad = -1
    qstat = prog[H_W_STAT] + TSTAT * prog[H_NT]
    step_at = prog[H_W_STEP] + d
    mask_off = prog[H_W_MASK]
    lat = st[LAT]
    ring = ring_mask(w)
    cross = crosses(prog, d)
    last_d = prog[H_W_LAST] + DATAQ
    last_c = prog[H_W_LAST] + CTRL
    arr_d = work[last_d]
    arr_c = work[last_c]
    t = st[T]
    t0 = t
    md = 0  # tokens written past the data channels' tails, by kind below
    n_data = 0
    n_stop = 0
    mc = 0
    scalar_ops = True
    for r in range(lo, hi):
        rr = rule_at(prog, r)
        if prog[rr + RU_TYPE] == R_OPERAND and prog[rr + RU_VECTOR] == 1:
            scalar_ops = False
    # the largest f + extra latency of the data rules (arrivals of the chunks' steps)
    top = -(1 << 62)
    fd = 0
    for r in range(lo, hi):
        rr = rule_at(prog, r)
        if prog[rr + RU_TYPE] == R_OPERAND:
            x = fd + prog[stream_at(prog, prog[rr + RU_ARG]) + SR_DELAY]
            if x > top:
                top = x
            fd += 1
    # a chunk may span fibers (the crossing below, in the chunk) when no data rule reads a
    # stream of layer d - 1 (the only outer stream a crossing changes)
    span = cross
    for r in range(lo, hi):
        rr = rule_at(prog, r)
        if (prog[rr + RU_TYPE] == R_OPERAND
                and prog[stream_at(prog, prog[rr + RU_ARG]) + SR_LAYER] == d - 1):
            span = False
    while True:
        while scalar_ops and room > 0:
            n = chunk_steps(prog, work, vals, pool, d, nw, room)
            if n == 0:
                break
            # the fiber ended: the next ones of layer d - 1 into the same columns, as the
            # crossing below (no cycle between the fibers: step n of the chunk is in cycle
            # t + n*nf)
            while span and n < room and n < CHUNK and not has_iter(prog, work, d):
                if (not has_iter(prog, work, d - 1)
                        or t + n * nf - 1 <= work[prog[H_W_STEP] + d - 1]):
                    break
                bad = step_layer(prog, work, vals, pool, d - 1)
                if bad >= 0:  # where the per-element path fails: at layer d - 1's step
                    set_event(st, d, EV_END, P_END, d)
                    st[PHASE] = P_ADV
                    st[DEPTH] = d - 1
                    break
                work[prog[H_W_STEP] + d - 1] = t + n * nf - 1  # its ite: no rules, no firing
                begin_layer(prog, work, vals, d)
                set_event(st, d, EV_BEG, P_ADV, d)
                st[PHASE] = P_ADV
                n += chunk_steps_at(prog, work, vals, pool, d, nw, room - n, n)
            # the chunk's pushes rule by rule (a column of tokens each): the f-th data rule of
            # step m goes out in cycle t + m*nf + f, arriving after its stream's extra latency but
            # never before the tokens ahead of it in the queue (a running maximum: the largest
            # f' + extra of the step before, of this step's rules up to f, the queue's last)
            fd = 0
            fc = 0
            pre = -(1 << 62)
            base = t + lat
            for r in range(lo, hi):
                rr = rule_at(prog, r)
                if prog[rr + RU_TYPE] == R_OPERAND:
                    s = prog[rr + RU_ARG]
                    sr = stream_at(prog, s)
                    if fd + prog[sr + SR_DELAY] > pre:
                        pre = fd + prog[sr + SR_DELAY]
                    col = column(prog, nw, s) if prog[sr + SR_LAYER] == d else -1
                    v0 = vals[s * nw]
                    # step m > 0 arrives at base + m*nf + off (the step before's running
                    # maximum, top - nf, or this rule's, pre), never before the queue's last
                    off = top - nf if top - nf > pre else pre
                    for j in range(optr[DATAQ], optr[DATAQ + 1]):
                        c = ochan[j] & NONNEG
                        q = w.tail[c] + md + fd
                        for m in range(n):
                            a = base + m * nf + (off if m > 0 else pre)
                            if a < arr_d:
                                a = arr_d
                            k = (q + m * nd) & ring
                            w.kind[c, k] = DATA
                            w.time[c, k] = a
                            w.fdata[c, k] = vals[(col + m) & NONNEG] if col >= 0 else v0
                    fd += 1
                else:
                    v = prog[rr + RU_ARG]
                    for j in range(optr[CTRL], optr[CTRL + 1]):
                        c = ochan[j] & NONNEG
                        q = w.tail[c] + mc + fc
                        for m in range(n):
                            a = base + m * nf + fc
                            if a < arr_c:
                                a = arr_c
                            k = (q + m * nc) & ring
                            w.kind[c, k] = DATA
                            w.time[c, k] = a
                            w.data[c, k] = v
                    fc += 1
            if nd > 0:
                a = base + (n - 1) * nf + top
                if a > arr_d:
                    arr_d = a
            if nc > 0:
                a = base + (n - 1) * nf + nc - 1
                if a > arr_c:
                    arr_c = a
            md += n * nd
            mc += n * nc
            t += n * nf
            n_data += n * nd
            work[step_at] = t - 1
            room -= n
            if bad >= 0:
                break
        while bad < 0 and room > 0 and has_iter(prog, work, d):
            bad = step_layer(prog, work, vals, pool, d)
            if bad >= 0:
                break
            pd = lo
            pc = lo
            for _f in range(nf):
                while pd < hi and prog[rule_at(prog, pd) + RU_TYPE] != R_OPERAND:
                    pd += 1
                if pd < hi:
                    rr = rule_at(prog, pd)
                    s = prog[rr + RU_ARG]
                    a = t + lat + prog[stream_at(prog, s) + SR_DELAY]
                    if a < arr_d:
                        a = arr_d
                    arr_d = a
                    n_vec = 1
                    if prog[rr + RU_VECTOR] == 1:
                        n_vec = prog[layer_at(prog, prog[stream_at(prog, s) + SR_LAYER])
                                     + LY_LANES]
                    for lane in range(n_vec):
                        c_kind = DATA
                        if prog[rr + RU_VECTOR] == 1:
                            c_kind = STOP if work[mask_off + s * nw + lane] == 1 else EMPTY
                        if c_kind == DATA:
                            n_data += 1
                        elif c_kind == STOP:
                            n_stop += 1
                        for j in range(optr[DATAQ], optr[DATAQ + 1]):
                            c = ochan[j]
                            k = (w.tail[c] + md) & ring
                            w.kind[c, k] = c_kind
                            w.time[c, k] = a
                            w.fdata[c, k] = vals[s * nw + lane]
                        md += 1
                    pd += 1
                while pc < hi and prog[rule_at(prog, pc) + RU_TYPE] != R_TOKEN:
                    pc += 1
                if pc < hi:
                    a = t + lat
                    if a < arr_c:
                        a = arr_c
                    arr_c = a
                    v = prog[rule_at(prog, pc) + RU_ARG]
                    for j in range(optr[CTRL], optr[CTRL + 1]):
                        c = ochan[j]
                        k = (w.tail[c] + mc) & ring
                        w.kind[c, k] = DATA
                        w.time[c, k] = a
                        w.data[c, k] = v
                    mc += 1
                    pc += 1
                t += 1
            work[step_at] = t - 1
            room -= 1
        # the fiber ended (the loops above stop at its end, at an error or when the room is
        # used up): the next one of layer d - 1 in the burst (crosses), unless the burst must
        # stop or layer d - 1 has no step left or must fire
        if bad >= 0 or room <= 0 or not cross:
            break
        if not has_iter(prog, work, d - 1) or t - 1 <= work[prog[H_W_STEP] + d - 1]:
            break
        bad = step_layer(prog, work, vals, pool, d - 1)
        if bad >= 0:  # where the per-element path fails: at layer d - 1's step
            set_event(st, d, EV_END, P_END, d)
            st[PHASE] = P_ADV
            st[DEPTH] = d - 1
            break
        work[prog[H_W_STEP] + d - 1] = t - 1  # its ite: no rules, no firing
        begin_layer(prog, work, vals, d)
        set_event(st, d, EV_BEG, P_ADV, d)
        st[PHASE] = P_ADV
    # publish: tokens, queue statistics, the clock (one firing per cycle, no idle, no stall)
    for j in range(optr[DATAQ], optr[DATAQ + 1]):
        c = ochan[j]
        w.tail[c] += md
        w.count[c, DATA] += n_data
        w.count[c, STOP] += n_stop
        w.count[c, EMPTY] += md - n_data - n_stop
    for j in range(optr[CTRL], optr[CTRL + 1]):
        c = ochan[j]
        w.tail[c] += mc
        w.count[c, DATA] += mc
    work[last_d] = arr_d
    work[last_c] = arr_c
    if t > t0:
        if st[BUSY] == 0:
            st[FIRST_T] = t0
        st[BUSY] += t - t0
        st[T] = t
    nel = (t - t0) // nf
    work[qstat + Q_DATA_N] += nel * nd
    work[qstat + Q_CTRL_N] += nel * nc
    return bad if bad >= 0 else -1


@kernel
def tmu(w, st, fst, ins, optr, ochan, prog, work, m2, m3, pool, vals):
    """TMU kernel: walks the layers (module docstring), marshals (dae) or streams (sam)."""
    nl = prog[H_L]
    nw = prog[H_W]
    mode = prog[H_MODE]
    stat = prog[H_W_STAT]
    qstat = stat + TSTAT * prog[H_NT]
    while st[STATUS] == 0:
        phase = st[PHASE]
        d = st[DEPTH]
        t = st[T]
        if phase == P_BEG:
            begin_layer(prog, work, vals, d)
            set_event(st, d, EV_BEG, P_ADV, d)
            continue
        if phase == P_ADV:
            if mode == MODE_DAE and d == nl - 1:
                bad = burst_inner(w, st, optr, ochan, prog, work, pool, vals)
                if bad >= 0:
                    st[ERR] = ERR_RANGE
                    st[ERR_PORT] = -1
                    st[ERR_KIND] = -1
                    st[ERR_DATA] = bad
                    return RC_ERR
            if has_iter(prog, work, d):
                bad = step_layer(prog, work, vals, pool, d)
                if bad >= 0:
                    st[ERR] = ERR_RANGE
                    st[ERR_PORT] = -1
                    st[ERR_KIND] = -1
                    st[ERR_DATA] = bad
                    return RC_ERR
                if d < nl - 1:
                    set_event(st, d, EV_ITE, P_BEG, d + 1)
                else:
                    set_event(st, d, EV_ITE, P_ADV, d)
                continue
            if mode == MODE_SAM and (d == nl - 1 or work[iterated_at(prog, d)] == 0):
                st[PHASE] = P_STOP
                continue
            set_event(st, d, EV_END, P_END, d)
            continue
        if phase == P_END:
            if d == 0:
                st[PHASE] = P_DONE
            else:
                st[PHASE] = P_ADV
                st[DEPTH] = d - 1
            continue
        if phase == P_STOP:
            j = d
            while j > 0 and not has_iter(prog, work, j - 1):
                j -= 1
            t_out = t
            nports = prog[H_NPORTS]
            for s in range(nports):
                if prog[stream_at(prog, s) + SR_LAYER] >= j:
                    r = room_n(w, optr, ochan, s, 1)
                    if r < 0:
                        st[WAIT] = s
                        return RC_BUF if r == -1 else RC_FIFO
                    if r > t_out:
                        t_out = r
            fire(st, t, t_out)  # t is st[T]: no idle time
            for s in range(nports):
                lay = prog[stream_at(prog, s) + SR_LAYER]
                if lay >= j:
                    put(w, optr, ochan, s, STOP, lay - j,
                         arrival(prog, work, s, t_out, st[LAT]))
            set_event(st, d, EV_END, P_END, d)
            continue
        if phase == P_DONE:
            t_out = t
            nports = prog[H_NPORTS]
            for s in range(nports):
                r = room_n(w, optr, ochan, s, 1)
                if r < 0:
                    st[WAIT] = s
                    return RC_BUF if r == -1 else RC_FIFO
                if r > t_out:
                    t_out = r
            fire(st, t, t_out)  # t is st[T]: no idle time
            for s in range(nports):
                put(w, optr, ochan, s, DONE, 0, arrival(prog, work, s, t_out, st[LAT]))
            st[DONE_T] = t_out
            st[STATUS] = 1
            continue
        # P_EVENT: marshal (dae) or stream (sam) the current event, one firing at a time.
        ev_l = st[EV_L]
        ev_k = st[EV_K]
        if mode == MODE_SAM:
            if ev_k != EV_ITE:
                st[PHASE] = st[AFTER]
                st[DEPTH] = st[AFTER_D]
                continue
            lrec = layer_at(prog, ev_l)
            first = prog[lrec + LY_FIRST_STREAM]
            last = first + prog[lrec + LY_STREAMS]
            t_out = t
            for s in range(first, last):
                r = room_n(w, optr, ochan, s, 1)
                if r < 0:
                    st[WAIT] = s
                    return RC_BUF if r == -1 else RC_FIFO
                if r > t_out:
                    t_out = r
            fire(st, t, t_out)  # t is st[T]: no idle time
            mask_off = prog[H_W_MASK]
            for s in range(first, last):
                a = arrival(prog, work, s, t_out,
                            st[LAT] + prog[stream_at(prog, s) + SR_DELAY])
                if work[mask_off + s * nw] == 0:
                    put(w, optr, ochan, s, EMPTY, 0, a)
                elif prog[stream_at(prog, s) + SR_FLOATS] == 1:
                    putv(w, optr, ochan, s, DATA, vals[s * nw], a)
                else:
                    put(w, optr, ochan, s, DATA, int(vals[s * nw]), a)
            st[PHASE] = st[AFTER]
            st[DEPTH] = st[AFTER_D]
            continue
        ev = event_at(prog, ev_l, ev_k)
        lo = prog[ev + EV_FIRST_RULE]
        hi = prog[ev + EV_END_RULE]
        # next data rule and next control rule of this event at or after DI / CI
        di = st[DI]
        while lo + di < hi and prog[rule_at(prog, lo + di) + RU_TYPE] != R_OPERAND:
            di += 1
        ci = st[CI]
        while lo + ci < hi and prog[rule_at(prog, lo + ci) + RU_TYPE] != R_TOKEN:
            ci += 1
        has_d = lo + di < hi
        has_c = lo + ci < hi
        # A layer takes at most one step per cycle: an outer step without rules overlaps the
        # work before it (in cycle t - 1) unless its layer already stepped then.
        step_at = prog[H_W_STEP] + ev_l
        need = ev_k == EV_ITE and st[NFIRE] == 0 and (ev_l == nl - 1 or t - 1 <= work[step_at])
        if not has_d and not has_c and not need:
            if ev_k == EV_ITE:
                work[step_at] = t - 1
            st[PHASE] = st[AFTER]
            st[DEPTH] = st[AFTER_D]
            continue
        t_out = t
        n_vec = 1
        if has_d:
            rr = rule_at(prog, lo + di)
            if prog[rr + RU_VECTOR] == 1:
                s = prog[rr + RU_ARG]
                n_vec = prog[layer_at(prog, prog[stream_at(prog, s) + SR_LAYER])
                             + LY_LANES]
            r = room_n(w, optr, ochan, DATAQ, n_vec)
            if r == -3:
                st[ERR] = ERR_DEPTH
                st[ERR_PORT] = -1
                st[ERR_KIND] = -1
                return RC_ERR
            if r < 0:
                st[WAIT] = DATAQ
                return RC_BUF if r == -1 else RC_FIFO
            if r > t_out:
                work[qstat + Q_DATA_STALL] += r - t_out
                t_out = r
        if has_c:
            r = room_n(w, optr, ochan, CTRL, 1)
            if r < 0:
                st[WAIT] = CTRL
                return RC_BUF if r == -1 else RC_FIFO
            if r > t_out:
                work[qstat + Q_CTRL_STALL] += r - t_out
                t_out = r
        fire(st, t, t_out)  # t is st[T]: no idle time
        if ev_k == EV_ITE and st[NFIRE] == 0:
            work[step_at] = t_out
        st[NFIRE] += 1
        if has_d:
            rr = rule_at(prog, lo + di)
            s = prog[rr + RU_ARG]
            a = arrival(prog, work, DATAQ, t_out, st[LAT] + prog[stream_at(prog, s) + SR_DELAY])
            if prog[rr + RU_VECTOR] == 1:
                for lane in range(n_vec):
                    c_kind = STOP if work[prog[H_W_MASK] + s * nw + lane] == 1 else EMPTY
                    putv(w, optr, ochan, DATAQ, c_kind, vals[s * nw + lane], a)
            else:
                putv(w, optr, ochan, DATAQ, DATA, vals[s * nw], a)
            work[qstat + Q_DATA_N] += 1
            st[DI] = di + 1
        else:
            st[DI] = di
        if has_c:
            rr = rule_at(prog, lo + ci)
            a = arrival(prog, work, CTRL, t_out, st[LAT])
            put(w, optr, ochan, CTRL, DATA, prog[rr + RU_ARG], a)
            work[qstat + Q_CTRL_N] += 1
            st[CI] = ci + 1
        else:
            st[CI] = ci
    return RC_DONE



# ---------------------------------------------------------------------- the block
class Tmu(Block):
    """A TMU (module docstring); DOT type ``tmu`` with its configuration as attributes
    (:meth:`~sam.blocks.tmu_config.TmuConfig.to_attrs`)."""

    dot_type = "tmu"
    family = "tmu"
    kernel = tmu
    state = TMU
    errors = {
        ERR_RANGE: "a mem stream's index is outside its array (or an alu stream divided by 0)",
        ERR_DEPTH: "a vector operand has more lanes than the data queue's FIFO depth; raise "
                   "--fifo-depth to at least the lane count",
    }

    def __init__(self, node_id: str, attrs: Mapping[str, str] | None = None) -> None:
        super().__init__(node_id, attrs)
        self.config = TmuConfig.from_attrs(self.attrs, where=f"node {self.id} (tmu)")
        canonical = self.config.to_attrs()  # one spelling and order, however it was written
        self.attrs = {**{k: v for k, v in self.attrs.items() if k not in CONFIG_KEYS},
                      **canonical}

    @classmethod
    def of(cls, node_id: str, cfg: TmuConfig) -> Tmu:
        """A TMU block holding ``cfg``."""
        cfg.check(where=f"node {node_id} (tmu)")
        return cls(node_id, cfg.to_attrs())

    def outputs(self) -> list[Port]:
        if self.config.mode == "dae":
            return [Port("ctrl", optional=True), Port("data", optional=True)]
        return [Port(kind, name, optional=True) for name, _, kind in self.config.all_streams()]

    def reads(self) -> list[str]:
        return self.config.tensors()

    def memories(self, tensors: Mapping[str, Tensor]) -> dict[str, np.ndarray]:
        c = compile_config(self.config, tensors, f"node {self.id} (tmu)")
        return {"prog": c.prog, "work": c.work, "pool": c.pool, "vals": c.vals}

    def details(self, st: np.ndarray, mem: Memories) -> dict[str, int]:
        """Per TU iterations and fibers, per queue entries and stalls, per lane active and
        masked iterations."""
        prog, work = mem["prog"], mem["work"]
        stat = int(prog[H_W_STAT])
        out: dict[str, int] = {}
        for k, tu in enumerate(self.config.tus()):
            out[f"tu.{tu.name}.iterations"] = int(work[stat + TSTAT * k + N_ITERATIONS])
            out[f"tu.{tu.name}.fibers"] = int(work[stat + TSTAT * k + N_FIBERS])
        q = stat + TSTAT * len(self.config.tus())
        if self.config.mode == "dae":
            out["queue.ctrl.entries"] = int(work[q + Q_CTRL_N]) + 1
            out["queue.data.entries"] = int(work[q + Q_DATA_N])
            out["queue.ctrl.stalls"] = int(work[q + Q_CTRL_STALL])
            out["queue.data.stalls"] = int(work[q + Q_DATA_STALL])
        for lane in range(self.config.lanes()):
            out[f"lane.{lane}.active"] = int(work[q + QSTAT + LSTAT * lane + N_ACTIVE])
            out[f"lane.{lane}.masked"] = int(work[q + QSTAT + LSTAT * lane + N_MASKED])
        return out

    def error_text(self, code: int, st: np.ndarray) -> str:
        if code == ERR_RANGE:
            names = self.config.all_streams()
            k = int(st[ERR_DATA])
            if 0 <= k < len(names):
                s = next((x for x in self.config.streams if x.name == names[k][0]), None)
                if isinstance(s, Mem):
                    return (f"mem stream {s.name} reads {s.array} at an index outside the "
                            f"array; check its index stream {s.index} and the bound tensors")
                if isinstance(s, Alu):
                    return f"alu stream {s.name} divides by zero"
        return super().error_text(code, st)

    def picture_lines(self) -> list[str]:
        """The TMU as one node: its mode, then one line per layer (kind, TUs with their ranges,
        lanes, the streams computed there)."""
        cfg = self.config
        where = cfg.layer_of_tu()
        lines = [f"TMU ({cfg.mode})"]
        for k, layer in enumerate(cfg.layers):
            tus = ", ".join(f"{tu.name} in [{tu.lo}, {tu.hi})" for tu in layer.tus)
            streams = [s.name for s in cfg.streams if where.get(s.tu) == k]
            lanes = f" x{layer.lanes} lanes" if layer.lanes > 1 else ""
            lines.append(f"L{k} {layer.kind}{lanes}: {tus}"
                         + (f"; {' '.join(streams)}" if streams else ""))
        return lines

    def label(self) -> str:
        cfg = self.config
        layers = " | ".join(
            f"{layer.kind} {','.join(tu.name for tu in layer.tus)}"
            + (f" x{layer.lanes}" if layer.lanes > 1 else "")
            for layer in cfg.layers)
        return f"tmu ({cfg.mode}): {layers}"


# ---------------------------------------------------------------------- queue traces
@dataclass
class QueueTrace:
    """What a dae-mode TMU pushed (docs/tmu.md): control tokens by name (``done`` last) and
    data entries (a float, or ``(values, mask)`` for a vector)."""

    ctrl: list[str | int]
    data: list[float | tuple[tuple[float, ...], tuple[bool, ...]]]


def queue_trace(cfg: TmuConfig, tensors: Mapping[str, Tensor], engine: str = "reference"
                ) -> QueueTrace:
    """Run a dae-mode TMU alone (unbounded queues) and decode its two queues."""
    from sam.runtime import wires as W

    if cfg.mode != "dae":
        raise GraphError("queue_trace needs a TMU in dae mode")
    block = Tmu.of("tmu", cfg)
    st, fst, mem = block.initial_state(tensors)
    st[W.LAT] = 1
    w = W.allocate(2, max(1 << 10, 4 * cfg.lanes()))  # a vector's lane tokens fit a ring
    optr = np.array([0, 1, 2], np.int64)
    ochan = np.array([0, 1], np.int64)
    fn = block.kernel.py if engine == "reference" else block.kernel.jit
    kinds: list[np.ndarray] = [[], []]
    data: list[np.ndarray] = [[], []]
    while True:
        rc = fn(w, st, fst, np.zeros(0, np.int64), optr, ochan, *mem.args())
        for c in range(2):
            k, d, _ = W.drain(w, c)
            kinds[c].append(k)
            data[c].append(d)
        if rc == W.RC_DONE:
            break
        if rc != W.RC_BUF:
            raise SimulationError(f"tmu: {block.errors.get(int(st[W.ERR]), 'error')}")
    ck, cd = np.concatenate(kinds[0]), np.concatenate(data[0])
    dk, dd = np.concatenate(kinds[1]), np.concatenate(data[1])
    names = {v: k for k, v in cfg.token_ids().items()}
    ctrl: list[str | int] = [names.get(int(v), int(v)) for v in cd[ck == DATA]] + ["done"]
    return QueueTrace(ctrl, decode_data(dk, dd, cfg.lanes()))


def decode_data(kinds: np.ndarray, data: np.ndarray, lanes: int
                ) -> list[float | tuple[tuple[float, ...], tuple[bool, ...]]]:
    """Data-queue tokens as entries: a ``DATA`` token is a scalar; ``lanes`` consecutive lane
    tokens (``STOP`` kind: a valid lane holding its value, ``N``: a masked lane) a vector."""
    fdata = np.asarray(data, np.int64).view(np.float64)
    out: list[float | tuple[tuple[float, ...], tuple[bool, ...]]] = []
    i = 0
    n = len(kinds)
    while i < n and kinds[i] != DONE:
        if kinds[i] == DATA:
            out.append(float(fdata[i]))
            i += 1
            continue
        mask = tuple(bool(kinds[i + q] == STOP) for q in range(lanes))
        out.append((tuple(float(fdata[i + q]) if mask[q] else 0.0 for q in range(lanes)), mask))
        i += lanes
    return out
