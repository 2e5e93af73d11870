"""Coordinate skipping's cycle in one compiled loop: two level scanners and their intersecter.

With coordinate skipping (SAM paper Sec. 4.2) an intersecter and the two level scanners it
sends skips to form a cycle of the graph: a scanner may fire in cycle t only once every skip
that can arrive by t is known, so with the scheduler's kernel calls the three run in lock
steps of a cycle or two, each call moving one or two tokens and publishing a horizon.
:func:`skip_component` runs the same three blocks cycle by cycle instead, all three in cycle
t before any in cycle t+1: every latency is at least one cycle and a pop frees a FIFO slot for
the next cycle, so a firing in cycle t depends only on firings before t, and whatever can
arrive by t is known when the loop reaches t. No horizons are needed inside the loop; the
clocks, heads and tails live in local variables.

It is these blocks' burst path (as :func:`sam.blocks.scanners.fiber_burst` and
:func:`sam.blocks.merges.intersect2_burst` are for acyclic streams): the firing rules are the
kernels' (:func:`sam.blocks.scanners.scan`, :func:`sam.blocks.merges.merge`,
docs/timing-model.md rules 1-11) for the shapes the loop takes; anything else (a done token, a
malformed stream, an input from outside the cycle not there yet, a full output ring) ends the
loop, and the driver's kernel calls carry on from the same state. ``tests/test_skiploop.py``
compares every ring array, statistic and state with the loop on and off.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sam.blocks.merges import INTERSECT, OP, OPERANDS
from sam.blocks.scanners import (
    BASE,
    CLOSE,
    COORDINATES,
    END,
    FIB,
    IN_FIBER,
    LOOKAHEAD,
    NEED_REF,
    PHASE,
    POS,
    POSITIONS,
    RANK_AT,
    SFIB,
    SIZE,
    SKIP_T,
    STORED,
    coordinate_at,
    fiber_bounds,
)
from sam.blocks.skipping import TOLD_STOP, first_at_least, rank_start
from sam.runtime.jit import jitable
from sam.runtime.paths import SKIP_LOOP, is_on
from sam.runtime.tokens import DATA, DONE, EMPTY, STOP
from sam.runtime.wires import BUSY, FIRST_T, IDLE, LAT, NEVER, STALL, WIDTH, T, push, room

#: What a block does in the loop's cycle t: fires; waits for another block of the cycle
#: (a token, a pop); fires later (in a known cycle); or needs the kernels (``OUT``: an input
#: from outside the cycle, a done token, a malformed stream, a full output ring).
FIRED, WAITS, LATER, OUT = 0, 1, 2, 3
#: Positions in a scanner's loop state (:func:`scanner_state`) that the intersecter reads: the
#: tail of the scanner's output pair, the head of its skip channel.
TAIL, SKH = 13, 15


@jitable(inline=True)
def slot(n, mask):
    """Ring slot of token number ``n`` as an unsigned index (no negative-index wrap-around)."""
    return np.uint64(n & mask)


@jitable(inline=True)
def pair_room(d, tail, hd, pt, mask, cap):
    """First cycle a scanner's next token (number ``tail``) fits in its output pair of
    channels of modeled depth ``d`` (0: unbounded) whose consumer popped ``hd`` tokens (pop
    cycles ``pt``), or -1 while that consumer must pop first (rule 7)."""
    if d > 0:
        if tail < d:
            return 0
        if hd <= tail - d:
            return -1
        return pt[slot(tail - d, mask)] + 1
    return 0 if tail - hd < cap else -1


@jitable(inline=True)
def drop_stale_at(skh, skt, skk, skti, fib, sfib, t, mask):
    """:func:`sam.blocks.skipping.drop_stale` on a skip channel read ``skh`` of ``skt`` tokens
    (every token arriving by ``t`` is there: the loop is at cycle ``t``); (``skh``, ``sfib``)."""
    while sfib < fib and skh < skt:
        q = slot(skh, mask)
        if skti[q] > t:
            break
        if skk[q] == STOP:
            sfib += 1
        skh += 1
    return skh, sfib


@jitable(inline=True)
def put_pair(ok, od, ot, rk, rd, rt, tail, kind, crd, ref, a, mask):
    """A scanner's token number ``tail`` on its pair of channels (rows ``ok``.. of the crd
    channel, ``rk``.. of the ref one): ``kind`` with payloads ``crd`` and ``ref``, arriving in
    cycle ``a``."""
    q = slot(tail, mask)
    ok[q] = kind
    od[q] = crd
    ot[q] = a
    rk[q] = kind
    rd[q] = ref
    rt[q] = a


@jitable(inline=True)
def scan_at(t, s, hd, skt, env):
    """Level scanner (:func:`sam.blocks.scanners.scan`) in cycle ``t``: ``s`` its state, ``hd``
    the tokens the intersecter popped from its pair, ``skt`` the skips sent to it. Returns
    (what it did, its new state, the cycle it fires in when ``LATER``)."""
    (T_, phase, pos, end, base, fib, sfib, skip_t, busy, idle, stall, first, cinh, tail, nd,
     skh, rank_at) = s
    (ctail, ck, cd, ct, cpt, cbounded, ok, od, ot, rk, rd, rt, d, pt, hassk, skk, skd, skti,
     positions, coordinates, size, seg, crd, lens, rank, lat, mask, cap) = env
    if T_ > t:
        return LATER, s, T_
    r = pair_room(d, tail, hd, pt, mask, cap)
    if phase == IN_FIBER:
        if r < 0:
            return WAITS, s, NEVER
        t_out = r if r > T_ else T_
        if t_out > t:
            return LATER, s, t_out
        if hassk and skip_t < t:
            skh, sfib = drop_stale_at(skh, skt, skk, skti, fib, sfib, t, mask)
        if hassk and skip_t < t and skh < skt and skti[slot(skh, mask)] <= t:
            # Take one skip (rule 11; :func:`sam.blocks.skipping.take_skip`).
            skip_t = t
            q = slot(skh, mask)
            k = skk[q]
            x = skd[q]
            skh += 1
            if k == STOP:
                if sfib == fib:
                    pos = end
                sfib += 1
            elif k == DATA and sfib == fib:
                stored = coordinates == STORED
                here = crd[pos] if stored else pos - base
                if x > here:
                    pos = first_at_least(stored, crd, pos, end, base, x, rank, rank_at, size)
            if pos == end:
                phase = CLOSE  # the fiber ends: its stop is next (below)
        if phase == IN_FIBER:
            put_pair(ok, od, ot, rk, rd, rt, tail, DATA,
                     coordinate_at(coordinates, crd, pos, base), pos, t + lat, mask)
            if busy == 0:
                first = t
            stall += t - T_
            busy += 1
            pos += 1
            if pos == end:
                phase = CLOSE
            return FIRED, (t + 1, phase, pos, end, base, fib, sfib, skip_t, busy, idle, stall,
                           first, cinh, tail + 1, nd + 1, skh, rank_at), NEVER
    s = (T_, phase, pos, end, base, fib, sfib, skip_t, busy, idle, stall, first, cinh, tail, nd,
         skh, rank_at)
    # Phases that need the next input token (a reference, or what follows a fiber).
    if cinh >= ctail:
        return OUT, s, NEVER
    q = slot(cinh, mask)
    k = ck[q]
    t_in = ct[q] if ct[q] > T_ else T_
    if phase == NEED_REF and (k == DATA or k == EMPTY):
        start = 0
        stop = 0
        if k == DATA:
            start, stop = fiber_bounds(positions, coordinates, size, seg, crd, lens, cd[q])
            if start < 0:
                return OUT, s, NEVER
        if start == stop:  # an empty fiber: take the reference, its stop next cycle
            if t_in > t:
                return LATER, s, t_in
            if hassk:
                skh, sfib = drop_stale_at(skh, skt, skk, skti, fib, sfib, t, mask)
            if cbounded:
                cpt[q] = t
            if busy == 0:
                first = t
            return (FIRED, (t + 1, CLOSE, pos, end, base, fib, sfib, skip_t, busy + 1,
                            idle + t - T_, stall, first, cinh + 1, tail, nd, skh, rank_at),
                    NEVER)
        if r < 0:
            return WAITS, s, NEVER
        t_out = r if r > t_in else t_in
        if t_out > t:
            return LATER, s, t_out
        if hassk:
            skh, sfib = drop_stale_at(skh, skt, skk, skti, fib, sfib, t, mask)
        if cbounded:
            cpt[q] = t
        put_pair(ok, od, ot, rk, rd, rt, tail, DATA,
                 coordinate_at(coordinates, crd, start, start), start, t + lat, mask)
        if busy == 0:
            first = t
        return (FIRED, (t + 1, IN_FIBER if start + 1 < stop else CLOSE, start + 1, stop, start,
                        fib, sfib, skip_t, busy + 1, idle + t_in - T_, stall + t - t_in, first,
                        cinh + 1, tail + 1, nd + 1, skh, rank_start(rank, size, cd[q])),
                NEVER)
    if k == DONE or (k != STOP and phase != CLOSE):
        return OUT, s, NEVER
    # A stop: S(r+1) for an input stop (taken), S0 before the next reference (not taken).
    if r < 0:
        return WAITS, s, NEVER
    t_out = r if r > t_in else t_in
    if t_out > t:
        return LATER, s, t_out
    if hassk:
        skh, sfib = drop_stale_at(skh, skt, skk, skti, fib, sfib, t, mask)
    level = 0
    if k == STOP:
        level = cd[q] + 1
        if cbounded:
            cpt[q] = t
        cinh += 1
    put_pair(ok, od, ot, rk, rd, rt, tail, STOP, level, level, t + lat, mask)
    if busy == 0:
        first = t
    return FIRED, (t + 1, NEED_REF, pos, end, base, fib + 1, sfib, skip_t, busy + 1,
                   idle + t_in - T_, stall + t - t_in, first, cinh, tail + 1, nd, skh,
                   rank_at), NEVER


@jitable(inline=True)
def pop_pair(bounded, pk, pr, h, t, mask):
    """The intersecter pops the head of a scanner's pair of channels in cycle ``t`` (their pop
    cycles ``pk``, ``pr`` kept when the FIFOs are bounded); the new head."""
    if bounded:
        q = slot(h, mask)
        pk[q] = t
        pr[q] = t
    return h + 1


@jitable(inline=True)
def skip_to(sk_k, sk_d, sk_t, tail, kind, x, a, mask):
    """Send a skip token (``kind``, ``x``, arriving in cycle ``a``) on a skip channel whose
    ``tail`` tokens were sent so far; the new tail."""
    q = slot(tail, mask)
    sk_k[q] = kind
    sk_d[q] = x
    sk_t[q] = a
    return tail + 1


@jitable(inline=True)
def downstream_room(w, optr, ochan, t_in, free):
    """The cycle ``>= t_in`` in which the intersecter's coordinate and reference outputs (ports
    0-2, outside the cycle) all have room, or -1 when one is full (the kernels wait for it).
    ``free``: the tokens every one of them can still take when none is bounded (their
    consumers do not run during the loop), else -1 (ask each FIFO)."""
    if free >= 0:
        return t_in if free > 0 else -1
    t_out = t_in
    for port in range(3):
        r = room(w, optr, ochan, port)
        if r < 0:
            return -1
        if r > t_out:
            t_out = r
    return t_out


@jitable(inline=True)
def downstream_free(w, optr, ochan, cap):
    """Tokens every channel of the intersecter's ports 0-2 can take, or -1 when one of them is
    a bounded FIFO."""
    free = cap
    for j in range(optr[0], optr[3]):
        c = ochan[j]
        if w.depth[c] > 0:
            return -1
        left = cap - (w.tail[c] - w.head[c])
        if left < free:
            free = left
    return free


#: Positions in an intersecter input's loop state (:func:`input_state`): the head of the
#: scanner's pair it pops, the last coordinate it took or dropped in the fiber (``merges``'
#: ``last``), the coordinate its scanner was told to reach (``told``, or ``TOLD_STOP``), the
#: skips sent to its scanner (the skip channel's tail), of those the data tokens.
HEAD, LAST, TOLD, SENT, SENT_DATA = 0, 1, 2, 3, 4


@jitable(inline=True)
def input_env(w, c, r, sk, has, pt, pr):
    """What the intersecter reads of one input and does not change: the rows of its scanner's
    pair (crd channel ``c``, ref channel ``r``; pop cycles ``pt``, ``pr`` kept when bounded),
    of its skip channel ``sk`` (when it ``has`` one)."""
    return (w.kind[c], w.data[c], w.time[c], w.kind[r], w.data[r], w.depth[c] > 0, pt, pr,
            has, w.kind[sk], w.data[sk], w.time[sk])


@jitable(inline=True)
def input_state(w, c, sk, has, last, told):
    """An intersecter input's loop state (``HEAD`` ... ``SENT_DATA``)."""
    return (w.head[c], last, told, w.tail[sk] if has else 0, 0)


@jitable(inline=True)
def skips_full(s, env, skh, cap):
    """Whether the input's skip ring is full (its scanner took ``skh`` skips)."""
    _, _, _, _, _, _, _, _, has, _, _, _ = env
    return has and s[SENT] - skh >= cap


@jitable(inline=True)
def take(s, env, x, t, mask):
    """The intersecter takes the input's head (coordinate ``x``) in cycle ``t``."""
    _, _, _, _, _, bounded, pt, pr, _, _, _, _ = env
    return (pop_pair(bounded, pt, pr, s[HEAD], t, mask), x, s[TOLD], s[SENT], s[SENT_DATA])


@jitable(inline=True)
def drop(s, env, skh, head_x, kind, x, t, lat, mask, cap):
    """The intersecter drops the input's head (coordinate ``head_x``) in cycle ``t`` (its pair
    popped), telling the input's scanner, if it has a skip channel (``skh`` skips taken),
    ``kind``: a coordinate ``x`` to reach when beyond what it was told in this fiber, or the
    fiber's stop once (rule 11). (Whether it could: False when the skip ring is full; the new
    state.)"""
    _, _, _, _, _, bounded, pt, pr, has, skk, skd, skt = env
    head, _, told, sent, sent_data = s
    send = has and told != TOLD_STOP and (kind == STOP or x > told)
    if send and sent - skh >= cap:
        return False, s
    if send:
        sent = skip_to(skk, skd, skt, sent, kind, x, t + lat, mask)
        told = TOLD_STOP if kind == STOP else x
        sent_data += 1 if kind == DATA else 0
    return True, (pop_pair(bounded, pt, pr, head, t, mask), head_x, told, sent, sent_data)


@jitable(inline=True)
def close(s, env, level, t, at, mask):
    """The intersecter takes the input's stop ``level`` in cycle ``t`` (emitted, arriving in
    ``at``): its scanner is told the fiber's stop unless it was already; a new fiber."""
    _, _, _, _, _, bounded, pt, pr, has, skk, skd, skt = env
    head, _, told, sent, sent_data = s
    if has and told != TOLD_STOP:
        sent = skip_to(skk, skd, skt, sent, STOP, level, at, mask)
    return (pop_pair(bounded, pt, pr, head, t, mask), -1, -1, sent, sent_data)


@jitable(inline=True)
def store_input(w, last, told, k, c, r, sk, has, s):
    """Write an input's loop state ``s`` back to the intersecter's memories (``last[k]``,
    ``told[k]``) and channels."""
    last[k] = s[LAST]
    told[k] = s[TOLD]
    w.head[c] = s[HEAD]
    w.head[r] = s[HEAD]
    if has:
        w.count[sk, DATA] += s[SENT_DATA]
        w.count[sk, STOP] += s[SENT] - w.tail[sk] - s[SENT_DATA]
        w.tail[sk] = s[SENT]


@jitable(inline=True)
def intersect_at(t, s, ia, ib, env_a, env_b, a, b, w, optr, ochan, lat, mask, cap):
    """Intersecter (Def. 3.2, rule 11; :func:`sam.blocks.merges.merge`) in cycle ``t``: ``s``
    its state (clock, busy, idle, stalled, first firing, room downstream: ``downstream_free``),
    ``ia``/``ib`` its inputs' (:func:`input_state`), ``a``/``b`` the scanners' loop states.
    Returns (what it did, its new state, its inputs' new states, the cycle it fires in when
    ``LATER``). ``x`` and ``y`` are the coordinates at the heads of inputs A and B."""
    t_i, busy, idle, stall, first, free = s
    if t_i > t:
        return LATER, s, ia, ib, t_i
    if ia[HEAD] >= a[TAIL] or ib[HEAD] >= b[TAIL]:
        return WAITS, s, ia, ib, NEVER
    kinds_a, crds_a, times_a, ref_kinds_a, refs_a, _, _, _, _, _, _, _ = env_a
    kinds_b, crds_b, times_b, ref_kinds_b, refs_b, _, _, _, _, _, _, _ = env_b
    qa = slot(ia[HEAD], mask)
    qb = slot(ib[HEAD], mask)
    t_in = t_i
    if times_a[qa] > t_in:
        t_in = times_a[qa]
    if times_b[qb] > t_in:
        t_in = times_b[qb]
    if t_in > t:
        return LATER, s, ia, ib, t_in
    x = crds_a[qa]
    y = crds_b[qb]
    kind_a = kinds_a[qa]
    kind_b = kinds_b[qb]
    if kind_a == DATA and kind_b == DATA:
        if x <= ia[LAST] or y <= ib[LAST]:
            return OUT, s, ia, ib, NEVER  # out of order: the kernel reports it
        if x == y:
            t_out = downstream_room(w, optr, ochan, t_in, free)
            if t_out < 0 or skips_full(ia, env_a, a[SKH], cap) \
                    or skips_full(ib, env_b, b[SKH], cap):
                return OUT, s, ia, ib, NEVER
            if t_out > t:
                return LATER, s, ia, ib, t_out
            at = t + lat
            free -= 1 if free > 0 else 0
            push(w, optr, ochan, 0, DATA, x, at)
            push(w, optr, ochan, 1, ref_kinds_a[qa], refs_a[qa], at)
            push(w, optr, ochan, 2, ref_kinds_b[qb], refs_b[qb], at)
            ia = take(ia, env_a, x, t, mask)
            ib = take(ib, env_b, x, t, mask)
            stall += t - t_in
        elif x < y:  # input A behind: dropped, its scanner told to reach y
            ok, ia = drop(ia, env_a, a[SKH], x, DATA, y, t, lat, mask, cap)
            if not ok:
                return OUT, s, ia, ib, NEVER
        else:
            ok, ib = drop(ib, env_b, b[SKH], y, DATA, x, t, lat, mask, cap)
            if not ok:
                return OUT, s, ia, ib, NEVER
    elif kind_a == STOP and kind_b == STOP:
        t_out = downstream_room(w, optr, ochan, t_in, free)
        if x != y or t_out < 0 or skips_full(ia, env_a, a[SKH], cap) \
                or skips_full(ib, env_b, b[SKH], cap):
            return OUT, s, ia, ib, NEVER  # misaligned stops (the kernel reports them), no room
        if t_out > t:
            return LATER, s, ia, ib, t_out
        at = t + lat
        free -= 1 if free > 0 else 0
        for port in range(3):
            push(w, optr, ochan, port, STOP, x, at)
        ia = close(ia, env_a, x, t, at, mask)
        ib = close(ib, env_b, x, t, at, mask)
        stall += t - t_in
    elif kind_a == DATA and kind_b == STOP:
        # Input B's fiber is over: drop input A's coordinate, tell its scanner.
        ok = x > ia[LAST]  # else out of order: the kernel reports it
        if ok:
            ok, ia = drop(ia, env_a, a[SKH], x, STOP, 0, t, lat, mask, cap)
        if not ok:
            return OUT, s, ia, ib, NEVER
    elif kind_a == STOP and kind_b == DATA:
        ok = y > ib[LAST]
        if ok:
            ok, ib = drop(ib, env_b, b[SKH], y, STOP, 0, t, lat, mask, cap)
        if not ok:
            return OUT, s, ia, ib, NEVER
    else:
        return OUT, s, ia, ib, NEVER  # a done token or a malformed stream: the kernel's cases
    if busy == 0:
        first = t
    return FIRED, (t + 1, busy + 1, idle + t_in - t_i, stall, first, free), ia, ib, NEVER


@jitable(inline=True)
def pop_row(w, c, cap):
    """The row of ``w.ptime`` holding channel ``c``'s pop cycles (a dummy row when no channel
    is bounded: none are kept)."""
    return 0 if w.ptime.shape[1] < cap else c


@jitable(inline=True)
def skip_component(w, scan_a, scan_b, inter):
    """Run scanner A, scanner B and their intersecter (each block's kernel arrays,
    :func:`sam.sim.loops.block_arrays`: state, wiring and memories; the scanners' ``seg``,
    ``crd``, ``lens``, ``rank``, the intersecter's ``last``, ``told``, ``skipto``) cycle by
    cycle until none can go on without the kernels; whether any fired."""
    st_a, _, ins_a, _, _, seg_a, crd_a, lens_a, rank_a, _, _ = scan_a
    st_b, _, ins_b, _, _, seg_b, crd_b, lens_b, rank_b, _, _ = scan_b
    st_i, _, ins_i, optr, ochan, last, told, skipto, _, _, _ = inter
    mask = w.kind.shape[1] - 1
    cap = mask + 1
    lat = st_i[LAT]
    crd_ch_a, ref_ch_a, crd_ch_b, ref_ch_b = ins_i[0], ins_i[1], ins_i[2], ins_i[3]
    # Each scanner's pair (crd, ref) must move as one: same depth, same head and tail (the
    # scanner pushes both, the intersecter pops both), bounded no deeper than the rings.
    for c, r in ((crd_ch_a, ref_ch_a), (crd_ch_b, ref_ch_b)):
        if w.depth[c] != w.depth[r] or w.depth[c] > cap or w.head[c] != w.head[r] \
                or w.tail[c] != w.tail[r]:
            return False
    # A skip port feeds exactly its scanner's skip input; never bounded.
    for k, ins in ((0, ins_a), (1, ins_b)):
        port = skipto[k]
        has = ins.shape[0] > 1 and ins[1] >= 0
        if has != (port >= 0):
            return False
        if has and (optr[port + 1] - optr[port] != 1 or ochan[optr[port]] != ins[1]
                    or w.depth[ins[1]] != 0):
            return False
    has_a = skipto[0] >= 0
    has_b = skipto[1] >= 0
    skip_ch_a = ochan[optr[skipto[0]]] if has_a else 0
    skip_ch_b = ochan[optr[skipto[1]]] if has_b else 0
    pt_a = w.ptime[pop_row(w, crd_ch_a, cap)]
    pt_b = w.ptime[pop_row(w, crd_ch_b, cap)]
    env_a = scanner_env(w, st_a, ins_a, crd_ch_a, ref_ch_a, pt_a, seg_a, crd_a, lens_a, rank_a,
                        mask, cap)
    env_b = scanner_env(w, st_b, ins_b, crd_ch_b, ref_ch_b, pt_b, seg_b, crd_b, lens_b, rank_b,
                        mask, cap)
    a = scanner_state(w, st_a, ins_a, crd_ch_a)
    b = scanner_state(w, st_b, ins_b, crd_ch_b)
    in_env_a = input_env(w, crd_ch_a, ref_ch_a, skip_ch_a, has_a, pt_a,
                         w.ptime[pop_row(w, ref_ch_a, cap)])
    in_env_b = input_env(w, crd_ch_b, ref_ch_b, skip_ch_b, has_b, pt_b,
                         w.ptime[pop_row(w, ref_ch_b, cap)])
    in_a = input_state(w, crd_ch_a, skip_ch_a, has_a, last[0], told[0])
    in_b = input_state(w, crd_ch_b, skip_ch_b, has_b, last[1], told[1])
    si = (st_i[T], st_i[BUSY], st_i[IDLE], st_i[STALL], st_i[FIRST_T],
          downstream_free(w, optr, ochan, cap))
    fired = False
    t = min(st_i[T], min(a[0], b[0]))
    while True:
        # The intersecter, then the two scanners (Def. 3.1, rule 11), in cycle t.
        code, si, in_a, in_b, nxt = intersect_at(t, si, in_a, in_b, in_env_a, in_env_b, a, b,
                                                 w, optr, ochan, lat, mask, cap)
        if code == OUT:
            break
        any_fired = code == FIRED
        code, a, n = scan_at(t, a, in_a[HEAD], in_a[SENT], env_a)
        if code == OUT:
            break
        if code == FIRED:
            any_fired = True
        elif n < nxt:
            nxt = n
        code, b, n = scan_at(t, b, in_b[HEAD], in_b[SENT], env_b)
        if code == OUT:
            break
        if code == FIRED:
            any_fired = True
        elif n < nxt:
            nxt = n
        if any_fired:
            fired = True
            t += 1
        elif nxt == NEVER:
            break  # each waits for another: the kernels decide (a deadlock, reported there)
        else:
            t = nxt
    # Hand the state back to the blocks' arrays.
    st_i[T], st_i[BUSY], st_i[IDLE], st_i[STALL], st_i[FIRST_T], _ = si
    store_input(w, last, told, 0, crd_ch_a, ref_ch_a, skip_ch_a, has_a, in_a)
    store_input(w, last, told, 1, crd_ch_b, ref_ch_b, skip_ch_b, has_b, in_b)
    store_scanner(w, st_a, ins_a, crd_ch_a, ref_ch_a, a)
    store_scanner(w, st_b, ins_b, crd_ch_b, ref_ch_b, b)
    return fired


@jitable(inline=True)
def scanner_env(w, st, ins, c, r, pt, seg, crd, lens, rank, mask, cap):
    """What :func:`scan_at` reads of a scanner and does not change: its input, its pair of
    output channels (crd ``c``, ref ``r``, pop cycles ``pt``), its skip channel, its level."""
    cin = ins[0]
    sk = ins[1] if ins.shape[0] > 1 and ins[1] >= 0 else c
    cbounded = w.depth[cin] > 0
    return (w.tail[cin], w.kind[cin], w.data[cin], w.time[cin],
            w.ptime[cin] if cbounded else w.ptime[0], cbounded,
            w.kind[c], w.data[c], w.time[c], w.kind[r], w.data[r], w.time[r], w.depth[c], pt,
            ins.shape[0] > 1 and ins[1] >= 0, w.kind[sk], w.data[sk], w.time[sk],
            st[POSITIONS], st[COORDINATES], st[SIZE], seg, crd, lens, rank, st[LAT], mask, cap)


@jitable(inline=True)
def scanner_state(w, st, ins, c):
    """A scanner's state for :func:`scan_at`: its kernel state, its input's head, its output
    pair's tail (``TAIL``), data tokens pushed in the loop (the others are stops), its skip
    channel's head (``SKH``), its rank index row."""
    sk = ins[1] if ins.shape[0] > 1 and ins[1] >= 0 else -1
    return (st[T], st[PHASE], st[POS], st[END], st[BASE], st[FIB], st[SFIB], st[SKIP_T],
            st[BUSY], st[IDLE], st[STALL], st[FIRST_T], w.head[ins[0]], w.tail[c], 0,
            w.head[sk] if sk >= 0 else 0, st[RANK_AT])


@jitable(inline=True)
def store_scanner(w, st, ins, c, r, s):
    """Write a scanner's loop state ``s`` back to its kernel state and channels."""
    st[T] = s[0]
    st[PHASE] = s[1]
    st[POS] = s[2]
    st[END] = s[3]
    st[BASE] = s[4]
    st[FIB] = s[5]
    st[SFIB] = s[6]
    st[SKIP_T] = s[7]
    st[RANK_AT] = s[16]
    st[BUSY] = s[8]
    st[IDLE] = s[9]
    st[STALL] = s[10]
    st[FIRST_T] = s[11]
    w.head[ins[0]] = s[12]
    stops = s[TAIL] - w.tail[c] - s[14]
    for x in (c, r):
        w.tail[x] = s[TAIL]
        w.count[x, DATA] += s[14]
        w.count[x, STOP] += stops
    if ins.shape[0] > 1 and ins[1] >= 0:
        w.head[ins[1]] = s[SKH]


def component(runs: Sequence[object]) -> tuple[int, int, int] | None:
    """Positions in ``runs`` (a cycle's block runtimes, :class:`sam.sim.elaborate.BlockRun`) of
    scanner A, scanner B and the intersecter when :func:`skip_component` runs them: the
    cycle ``skip()`` builds and ``tests/test_skiploop.py`` checks, a two-operand intersecter
    whose four inputs are the crd and ref outputs of two level scanners (each output one
    channel, feeding nothing else), all of width 1, no lookahead; else None (the driver calls
    the kernels one by one, as for any other cycle, also when the simulation turned the loop
    off: :class:`sam.runtime.paths.FastPaths`)."""
    if len(runs) != 3 or not all(is_on(r.st, SKIP_LOOP) for r in runs):
        return None
    inter = [j for j, r in enumerate(runs) if r.block.dot_type == "intersect"]
    scans = [j for j, r in enumerate(runs) if r.block.dot_type == "fiberlookup"]
    if len(inter) != 1 or len(scans) != 2:
        return None
    ri = runs[inter[0]]
    if ri.st[OPERANDS] != 2 or ri.st[OP] != INTERSECT or ri.ins.shape[0] != 4 \
            or (ri.ins < 0).any() or ri.optr.shape[0] < 4 or ri.st[WIDTH] > 1:
        return None
    order = []
    for k in range(2):
        want = (int(ri.ins[2 * k]), int(ri.ins[2 * k + 1]))
        found = [j for j in scans if tuple(int(c) for c in runs[j].ochan) == want
                 and tuple(int(p) for p in runs[j].optr) == (0, 1, 2)]
        if len(found) != 1:
            return None
        rs = runs[found[0]]
        if rs.ins.shape[0] < 1 or rs.ins[0] < 0 or rs.st[WIDTH] > 1 or rs.st[LOOKAHEAD] != 0:
            return None
        order.append(found[0])
    if order[0] == order[1]:
        return None
    return order[0], order[1], inter[0]
