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
def drop_input(has, told, skt, skh, sk_k, sk_d, sk_t, kind, x, bounded, pk, pr, h, t, lat,
               mask, cap):
    """The intersecter drops the head of one input (its pair popped in cycle ``t``), telling
    that input's scanner, if it has a skip channel (``skt`` sent, ``skh`` taken), ``kind``:
    a coordinate ``x`` to reach when beyond what it was ``told`` in this fiber, or the fiber's
    stop once (rule 11). (Whether it could: False when the skip ring is full; ``skt``,
    ``told``, the pair's new head, skips sent as data: 0 or 1.)"""
    send = has and told != TOLD_STOP and (kind == STOP or x > told)
    if send and skt - skh >= cap:
        return False, skt, told, h, 0
    nd = 0
    if send:
        skt = skip_to(sk_k, sk_d, sk_t, skt, kind, x, t + lat, mask)
        told = TOLD_STOP if kind == STOP else x
        nd = 1 if kind == DATA else 0
    return True, skt, told, pop_pair(bounded, pk, pr, h, t, mask), nd


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


@jitable(inline=True)
def skip_component(w, scan_a, scan_b, inter):
    """Run scanner A, scanner B and their intersecter (each block's kernel arrays,
    :func:`sam.sim.loops.block_arrays`: state, wiring and memories; the scanners' ``seg``,
    ``crd``, ``lens``, ``rank``, the intersecter's ``last``, ``told``, ``skipto``) cycle by
    cycle until none can go on without the kernels; whether any fired."""
    sa, _, ina, _, _, ma0, ma1, ma2, ma3, _, _ = scan_a
    sb, _, inb, _, _, mb0, mb1, mb2, mb3, _, _ = scan_b
    si, _, ini, opi, oci, mi0, mi1, mi2, _, _, _ = inter
    mask = w.kind.shape[1] - 1
    cap = mask + 1
    lat = si[LAT]
    c0 = ini[0]
    r0 = ini[1]
    c1 = ini[2]
    r1 = ini[3]
    # Each scanner's pair (crd, ref) must move as one: same depth, same head and tail (the
    # scanner pushes both, the intersecter pops both), bounded no deeper than the rings.
    for c, r in ((c0, r0), (c1, r1)):
        if w.depth[c] != w.depth[r] or w.depth[c] > cap or w.head[c] != w.head[r] \
                or w.tail[c] != w.tail[r]:
            return False
    # A skip port feeds exactly its scanner's skip input; never bounded.
    for k, sx in ((0, ina), (1, inb)):
        port = mi2[k]
        has = sx.shape[0] > 1 and sx[1] >= 0
        if has != (port >= 0):
            return False
        if has and (opi[port + 1] - opi[port] != 1 or oci[opi[port]] != sx[1]
                    or w.depth[sx[1]] != 0):
            return False
    if w.ptime.shape[1] < cap:
        pt0 = w.ptime[0]
        pt1 = w.ptime[0]
        pr0 = w.ptime[0]
        pr1 = w.ptime[0]
    else:
        pt0 = w.ptime[c0]
        pt1 = w.ptime[c1]
        pr0 = w.ptime[r0]
        pr1 = w.ptime[r1]
    ea = scanner_env(w, sa, ina, c0, r0, pt0, ma0, ma1, ma2, ma3, mask, cap)
    eb = scanner_env(w, sb, inb, c1, r1, pt1, mb0, mb1, mb2, mb3, mask, cap)
    a = scanner_state(w, sa, ina, c0)
    b = scanner_state(w, sb, inb, c1)
    bounded0 = w.depth[c0] > 0
    bounded1 = w.depth[c1] > 0
    k0, d0, t0 = w.kind[c0], w.data[c0], w.time[c0]
    k1, d1, t1 = w.kind[c1], w.data[c1], w.time[c1]
    kr0, dr0 = w.kind[r0], w.data[r0]
    kr1, dr1 = w.kind[r1], w.data[r1]
    sk0 = oci[opi[mi2[0]]] if mi2[0] >= 0 else 0
    sk1 = oci[opi[mi2[1]]] if mi2[1] >= 0 else 0
    s0k, s0d, s0t = w.kind[sk0], w.data[sk0], w.time[sk0]
    s1k, s1d, s1t = w.kind[sk1], w.data[sk1], w.time[sk1]
    has0 = mi2[0] >= 0
    has1 = mi2[1] >= 0
    # The intersecter's state.
    ti = si[T]
    busy = si[BUSY]
    idle = si[IDLE]
    stall = si[STALL]
    first = si[FIRST_T]
    l0 = mi0[0]
    l1 = mi0[1]
    told0 = mi1[0]
    told1 = mi1[1]
    h0 = w.head[c0]
    h1 = w.head[c1]
    skt0 = w.tail[sk0] if has0 else 0
    skt1 = w.tail[sk1] if has1 else 0
    skt0_was = skt0
    skt1_was = skt1
    nsd0 = 0  # skips sent as data (the rest are stops)
    nsd1 = 0
    free = downstream_free(w, opi, oci, cap)
    fired = False
    t = min(ti, min(a[0], b[0]))
    while True:
        nxt = NEVER
        any_fired = False
        out = False
        # -- the intersecter in cycle t (Def. 3.2, rule 11; :func:`sam.blocks.merges.merge`)
        if ti > t:
            nxt = ti
        elif h0 < a[TAIL] and h1 < b[TAIL]:
            q0 = slot(h0, mask)
            q1 = slot(h1, mask)
            t_in = ti
            if t0[q0] > t_in:
                t_in = t0[q0]
            if t1[q1] > t_in:
                t_in = t1[q1]
            if t_in > t:
                nxt = t_in
            else:
                x0 = d0[q0]
                x1 = d1[q1]
                kx0 = k0[q0]
                kx1 = k1[q1]
                if kx0 == DATA and kx1 == DATA:
                    if x0 <= l0 or x1 <= l1:
                        out = True  # out of order: the kernel reports it
                    elif x0 == x1:
                        t_out = downstream_room(w, opi, oci, t_in, free)
                        if t_out < 0 or (has0 and skt0 - a[SKH] >= cap) \
                                or (has1 and skt1 - b[SKH] >= cap):
                            out = True
                        elif t_out > t:
                            nxt = t_out
                        else:
                            at = t + lat
                            free -= 1 if free > 0 else 0
                            push(w, opi, oci, 0, DATA, x0, at)
                            push(w, opi, oci, 1, kr0[q0], dr0[q0], at)
                            push(w, opi, oci, 2, kr1[q1], dr1[q1], at)
                            h0 = pop_pair(bounded0, pt0, pr0, h0, t, mask)
                            h1 = pop_pair(bounded1, pt1, pr1, h1, t, mask)
                            l0 = x0
                            l1 = x0
                            idle += t_in - ti
                            stall += t - t_in
                            any_fired = True
                    elif x0 < x1:  # input 0 behind: dropped, its scanner told to reach x1
                        ok, skt0, told0, h0, nd = drop_input(
                            has0, told0, skt0, a[SKH], s0k, s0d, s0t, DATA, x1, bounded0, pt0,
                            pr0, h0, t, lat, mask, cap)
                        out = not ok
                        l0 = x0 if ok else l0
                        nsd0 += nd
                    else:
                        ok, skt1, told1, h1, nd = drop_input(
                            has1, told1, skt1, b[SKH], s1k, s1d, s1t, DATA, x0, bounded1, pt1,
                            pr1, h1, t, lat, mask, cap)
                        out = not ok
                        l1 = x1 if ok else l1
                        nsd1 += nd
                    if not out and x0 != x1:
                        idle += t_in - ti
                        any_fired = True
                elif kx0 == STOP and kx1 == STOP:
                    send0 = has0 and told0 != TOLD_STOP
                    send1 = has1 and told1 != TOLD_STOP
                    t_out = downstream_room(w, opi, oci, t_in, free)
                    if x0 != x1 or t_out < 0 or (has0 and skt0 - a[SKH] >= cap) \
                            or (has1 and skt1 - b[SKH] >= cap):
                        out = True  # misaligned stops (the kernel reports them), or no room
                    elif t_out > t:
                        nxt = t_out
                    else:
                        at = t + lat
                        free -= 1 if free > 0 else 0
                        for port in range(3):
                            push(w, opi, oci, port, STOP, x0, at)
                        h0 = pop_pair(bounded0, pt0, pr0, h0, t, mask)
                        h1 = pop_pair(bounded1, pt1, pr1, h1, t, mask)
                        if send0:
                            skt0 = skip_to(s0k, s0d, s0t, skt0, STOP, x0, at, mask)
                        if send1:
                            skt1 = skip_to(s1k, s1d, s1t, skt1, STOP, x0, at, mask)
                        l0 = -1
                        l1 = -1
                        told0 = -1
                        told1 = -1
                        idle += t_in - ti
                        stall += t - t_in
                        any_fired = True
                elif kx0 == DATA and kx1 == STOP:
                    # Input 1's fiber is over: drop input 0's coordinate, tell its scanner.
                    ok = x0 > l0  # else out of order: the kernel reports it
                    if ok:
                        ok, skt0, told0, h0, nd = drop_input(
                            has0, told0, skt0, a[SKH], s0k, s0d, s0t, STOP, 0, bounded0, pt0,
                            pr0, h0, t, lat, mask, cap)
                        l0 = x0 if ok else l0
                    out = not ok
                    if ok:
                        idle += t_in - ti
                        any_fired = True
                elif kx0 == STOP and kx1 == DATA:
                    ok = x1 > l1
                    if ok:
                        ok, skt1, told1, h1, nd = drop_input(
                            has1, told1, skt1, b[SKH], s1k, s1d, s1t, STOP, 0, bounded1, pt1,
                            pr1, h1, t, lat, mask, cap)
                        l1 = x1 if ok else l1
                    out = not ok
                    if ok:
                        idle += t_in - ti
                        any_fired = True
                else:
                    out = True  # a done token or a malformed stream: the kernel's cases
                if any_fired:
                    if busy == 0:
                        first = t
                    busy += 1
                    ti = t + 1
        if out:
            break
        # -- the two scanners in cycle t (Def. 3.1, rule 11)
        code, a, n = scan_at(t, a, h0, skt0, ea)
        if code == OUT:
            break
        if code == FIRED:
            any_fired = True
        elif n < nxt:
            nxt = n
        code, b, n = scan_at(t, b, h1, skt1, eb)
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
    si[T] = ti
    si[BUSY] = busy
    si[IDLE] = idle
    si[STALL] = stall
    si[FIRST_T] = first
    mi0[0] = l0
    mi0[1] = l1
    mi1[0] = told0
    mi1[1] = told1
    w.head[c0] = h0
    w.head[r0] = h0
    w.head[c1] = h1
    w.head[r1] = h1
    if has0:
        w.tail[sk0] = skt0
        w.count[sk0, DATA] += nsd0
        w.count[sk0, STOP] += skt0 - skt0_was - nsd0
    if has1:
        w.tail[sk1] = skt1
        w.count[sk1, DATA] += nsd1
        w.count[sk1, STOP] += skt1 - skt1_was - nsd1
    store_scanner(w, sa, ina, c0, r0, a)
    store_scanner(w, sb, inb, c1, r1, b)
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
