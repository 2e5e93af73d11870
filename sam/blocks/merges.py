"""Coordinate merging: intersecter and unioner over m >= 2 inputs (SAM paper Defs. 3.2, 3.3).

Both take m (coordinate, reference) stream pairs, one per operand tensor, holding the same fibertree
level, and merge them fiber by fiber; both emit one coordinate stream and m reference streams.

* The **intersecter** emits a coordinate (and every input's reference) when all inputs hold it;
  each firing otherwise drops the inputs whose coordinate is behind (a two-finger merge).
* The **unioner** emits the smallest coordinate present, with the references of the inputs that
  hold it and the empty token ``N`` on the others (Figure 5).

An intersecter may also send skips (coordinate skipping, Sec. 4.2): a ``crd`` output
``skip-B`` per operand B, fed back to B's scanner. A firing that drops B's coordinate sends the
coordinate B must reach (the largest head) or, when another input has ended the fiber, a stop;
each at most once per fiber and value (docs/timing-model.md rule 11).

Stop tokens must line up across inputs (same level), as must the done token; each reference
stream must line up with its coordinate stream, and the coordinates of every fiber must be
strictly increasing (a malformed input is an error, not a wrong stream). One firing per cycle,
taking at most one token from each input.
"""

from __future__ import annotations

import numpy as np

from sam.blocks.base import Block, Port, Ports
from sam.blocks.skipping import TOLD_STOP
from sam.errors import GraphError
from sam.runtime.burst import account, advance, burst_room, commit, put, put_counted
from sam.runtime.jit import jitable
from sam.runtime.kernel import (
    NOT_YET,
    State,
    arrive,
    blocked,
    fail,
    fire,
    kernel,
    reserve,
    reserve_all,
)
from sam.runtime.tokens import DATA, DONE, EMPTY, STOP
from sam.runtime.wires import LAT, RC_DONE, RC_IN, STATUS, T, hdata, hkind, pop, push

INTERSECT, UNION = 0, 1
#: Comment prefix of an intersecter's skip outputs (``skip-B``: to the scanner of B).
SKIP_PREFIX = "skip"
#: Number of operands, and which merge.
MERGE = State(operands=0, op=INTERSECT)
OPERANDS, OP = MERGE.slots
ERR_STOPS, ERR_DONE, ERR_EMPTY, ERR_REF, ERR_ORDER = 1, 2, 3, 4, 5
#: A coordinate bound no coordinate reaches (drops against a stop).
NO_LIMIT = 1 << 62
#: The inputs of one operand (operand k's are ``PER_OPERAND * k`` on: :func:`crd_in`,
#: :func:`ref_in`); the outputs: the coordinates, then operand k's references at ``REF_OUT + k``
#: (then an intersecter's skip streams, ``skipto``).
OPERAND_IN = Ports.inputs(crd=Port("crd"), ref=Port("ref", optional=True))
CRD_IN, REF_IN = OPERAND_IN.slots
PER_OPERAND = len(OPERAND_IN)
MERGE_OUT = Ports.outputs(crd=Port("crd", optional=True), ref=Port("ref", optional=True))
CRD_OUT, REF_OUT = MERGE_OUT.slots


@jitable(inline=True)
def crd_in(k):
    """The input port of operand ``k``'s coordinates."""
    return PER_OPERAND * k + CRD_IN


@jitable(inline=True)
def ref_in(k):
    """The input port of operand ``k``'s references (its channel is -1 when it has none)."""
    return PER_OPERAND * k + REF_IN


@jitable(inline=True)
def ref_head(kr, tr, g, f, mask, tt):
    """An input's reference head in a burst: (its slot, its kind, the later of ``tt`` and its
    arrival), or slot -1 when the reference is missing or neither data nor empty (the burst
    stops there)."""
    if g >= f:
        return -1, EMPTY, tt
    q = g & mask
    k = kr[q]
    if k != DATA and k != EMPTY:
        return -1, EMPTY, tt
    if tr[q] > tt:
        tt = tr[q]
    return q, k, tt


#: Firings :func:`drop_run` checks and accounts as one block (a chunk of ring slots).
CHUNK = 16


@jitable(inline=True)
def chunk_latest(kc, dc, tc, kr, tr, has, s, q, lst, stop):
    """Whether the ``CHUNK`` coordinates from ring slot ``s`` (references from ``q``; both runs
    of slots contiguous) can all be dropped below ``stop`` (data, strictly increasing past
    ``lst``, references data or empty), and the latest of ``arrival - i`` over them (token i
    arriving then): a run of one-cycle firings that starts at cycle t ends at ``max(t, that)
    + CHUNK``. No branch, and the slots are unsigned ranges (no negative-index wrap-around):
    LLVM vectorizes it; Python iterates them as plain ints."""
    one = np.uint64(1)
    n = np.uint64(CHUNK)
    su = np.uint64(s)
    qu = np.uint64(q)
    bad = (kc[su] != DATA) | (dc[su] <= lst) | (dc[su + n - one] >= stop)
    latest = tc[su]
    if has:
        kk = kr[qu]
        bad |= (kk != DATA) & (kk != EMPTY)
        latest = max(latest, tr[qu])
    # equal ranges (numba's zip takes no ``strict``)
    for x, y, z, i in zip(range(su + one, su + n), range(su, su + n - one),  # noqa: B905
                          range(qu + one, qu + n), range(1, CHUNK)):
        bad |= (kc[x] != DATA) | (dc[x] <= dc[y])  # slot y is the one before x
        tt = tc[x]
        if has:
            kk = kr[z]
            bad |= (kk != DATA) & (kk != EMPTY)
            tt = max(tt, tr[z])
        latest = max(latest, tt - i)
    return not bad, latest


@jitable(inline=True)
def drop_run(kc, dc, tc, kr, tr, has, h, e, g, f, lst, stop, t, idle, mask):
    """Drop one input's coordinates below ``stop`` (the other input's head) in a row of
    firings, one per cycle: the loop of :func:`intersect2_burst` with the other input fixed.
    Its head's arrivals are already behind ``t`` (it took part in the firing before), so each
    firing waits only for this input's coordinate and reference. Stops, like the two-input
    loop, at a token that is not a data coordinate (or a reference that is neither data nor
    empty), an out-of-order coordinate or an empty ring. Whole chunks of ``CHUNK`` firings
    that all drop are checked and timed at once (:func:`chunk_latest`); the others one by
    one. (h, g, lst, t, idle, firings, the first firing's cycle)."""
    n = 0
    first = t
    cap = mask + 1
    while h < e:
        s = h & mask
        q = g & mask
        k = min(e - h, cap - s)  # firings whose slots run on without wrapping round
        if has:
            k = min(k, f - g, cap - q)
        if k >= CHUNK:
            # a whole chunk, if its last coordinate drops (most chunks that do not drop
            # entirely end past the other head or in the next fiber: no need to read them)
            z = s + CHUNK - 1
            if kc[z] == DATA and dc[z] > lst and dc[z] < stop:
                ok, latest = chunk_latest(kc, dc, tc, kr, tr, has, s, q, lst, stop)
                if ok:
                    if n == 0:
                        first = max(t, tc[s] if not has else max(tc[s], tr[q]))
                    t1 = max(t, latest)
                    idle += t1 - t
                    t = t1 + CHUNK
                    lst = dc[z]
                    h += CHUNK
                    g += CHUNK
                    n += CHUNK
                    continue
            k = CHUNK
        ended = False
        for _ in range(max(k, 1)):  # the slots up to a chunk's end or the ring's, one by one
            s = h & mask
            if h >= e or kc[s] != DATA:
                ended = True
                break
            x = dc[s]
            if x >= stop or x <= lst:
                ended = True
                break
            tt = tc[s]
            if has:
                qq, kk, tt = ref_head(kr, tr, g, f, mask, tt)
                if qq < 0:
                    ended = True
                    break
            if tt > t:
                idle += tt - t
                t = tt
            if n == 0:
                first = t
            lst = x
            h += 1
            g += 1
            t += 1
            n += 1
        if ended:
            break
    return h, g, lst, t, idle, n, first


@jitable(inline=True)
def stop_arrival(kc, dc, tc, kr, dr, tr, has, h, e, g, f, mask):
    """The arrival of the stop token at the head of an input (and of its reference's), or -1
    when the head is not a stop or its reference is missing or not the same stop (the general
    path reports a misaligned one)."""
    if h >= e:
        return -1
    s = h & mask
    if kc[s] != STOP:
        return -1
    a = tc[s]
    if has:
        if g >= f:
            return -1
        q = g & mask
        if kr[q] != STOP or dr[q] != dc[s]:
            return -1
        if tr[q] > a:
            a = tr[q]
    return a


@jitable(inline=True)
def intersect2_burst(w, st, optr, ochan, ins, last, room):
    """:func:`intersect_burst` for two operands, with the heads in local variables and the
    four input channels' rings as one-dimensional rows (an absent reference stream reads its
    coordinate stream's row and is never looked at)."""
    mask = w.kind.shape[1] - 1
    c0 = ins[crd_in(0)]
    r0 = ins[ref_in(0)]
    c1 = ins[crd_in(1)]
    r1 = ins[ref_in(1)]
    kc0 = w.kind[c0]
    dc0 = w.data[c0]
    tc0 = w.time[c0]
    kc1 = w.kind[c1]
    dc1 = w.data[c1]
    tc1 = w.time[c1]
    kr0 = w.kind[r0 if r0 >= 0 else c0]
    dr0 = w.data[r0 if r0 >= 0 else c0]
    tr0 = w.time[r0 if r0 >= 0 else c0]
    kr1 = w.kind[r1 if r1 >= 0 else c1]
    dr1 = w.data[r1 if r1 >= 0 else c1]
    tr1 = w.time[r1 if r1 >= 0 else c1]
    has0 = r0 >= 0
    has1 = r1 >= 0
    h0 = w.head[c0]
    e0 = w.tail[c0]
    h1 = w.head[c1]
    e1 = w.tail[c1]
    g0 = w.head[r0] if has0 else 0
    f0 = w.tail[r0] if has0 else 0
    g1 = w.head[r1] if has1 else 0
    f1 = w.tail[r1] if has1 else 0
    l0 = last[0]
    l1 = last[1]
    t = st[T]
    lat = st[LAT]
    idle = 0
    t0 = t
    fired = 0
    emitted = 0
    while h0 < e0 and h1 < e1:
        s0 = h0 & mask
        s1 = h1 & mask
        if kc0[s0] != DATA or kc1[s1] != DATA:
            # One input at its fiber's stop: drop the other's coordinates (each firing waits
            # for the stop and its reference too, which stay), then the general path takes
            # the stops.
            a0 = stop_arrival(kc0, dc0, tc0, kr0, dr0, tr0, has0, h0, e0, g0, f0, mask)
            a1 = stop_arrival(kc1, dc1, tc1, kr1, dr1, tr1, has1, h1, e1, g1, f1, mask)
            if (a0 < 0) == (a1 < 0):
                break
            ts = t
            if a0 >= 0 and a0 > ts:
                ts = a0
            if a1 >= 0 and a1 > ts:
                ts = a1
            if a0 >= 0:
                h1, g1, l1, tn, idn, n, tf = drop_run(kc1, dc1, tc1, kr1, tr1, has1, h1, e1,
                                                      g1, f1, l1, NO_LIMIT, ts, idle + ts - t,
                                                      mask)
            else:
                h0, g0, l0, tn, idn, n, tf = drop_run(kc0, dc0, tc0, kr0, tr0, has0, h0, e0,
                                                      g0, f0, l0, NO_LIMIT, ts, idle + ts - t,
                                                      mask)
            if n == 0:
                break
            if fired == 0:
                t0 = tf
            t = tn
            idle = idn
            fired += n
            break
        x0 = dc0[s0]
        x1 = dc1[s1]
        if x0 <= l0 or x1 <= l1:
            break
        tt = tc0[s0]
        if tc1[s1] > tt:
            tt = tc1[s1]
        k0 = EMPTY
        q0 = 0
        if has0:  # the head of the reference stream: a data or empty token, or the burst stops
            q0, k0, tt = ref_head(kr0, tr0, g0, f0, mask, tt)
            if q0 < 0:
                break
        k1 = EMPTY
        q1 = 0
        if has1:
            q1, k1, tt = ref_head(kr1, tr1, g1, f1, mask, tt)
            if q1 < 0:
                break
        if x0 == x1 and emitted == room:
            break
        if tt > t:
            idle += tt - t
            t = tt
        if fired == 0:
            t0 = t
        if x0 == x1:
            a = t + lat
            put(w, optr, ochan, CRD_OUT, emitted, DATA, x0, a)
            put_counted(w, optr, ochan, REF_OUT, emitted, k0, dr0[q0] if has0 else 0, a)
            put_counted(w, optr, ochan, REF_OUT + 1, emitted, k1, dr1[q1] if has1 else 0, a)
            emitted += 1
        if x0 <= x1:
            l0 = x0
            h0 += 1
            g0 += 1
        if x1 <= x0:
            l1 = x1
            h1 += 1
            g1 += 1
        t += 1
        fired += 1
        if x0 < x1:  # input 0 behind: drop the rest of its run below x1 without input 1
            h0, g0, l0, t, idle, n, tf = drop_run(kc0, dc0, tc0, kr0, tr0, has0, h0, e0, g0, f0,
                                              l0, x1, t, idle, mask)
            fired += n
        elif x1 < x0:
            h1, g1, l1, t, idle, n, tf = drop_run(kc1, dc1, tc1, kr1, tr1, has1, h1, e1, g1, f1,
                                              l1, x0, t, idle, mask)
            fired += n
    w.head[c0] = h0
    w.head[c1] = h1
    if has0:
        w.head[r0] = g0
    if has1:
        w.head[r1] = g1
    last[0] = l0
    last[1] = l1
    if emitted > 0:
        commit(w, optr, ochan, CRD_OUT, DATA, emitted)
        advance(w, optr, ochan, REF_OUT, emitted)
        advance(w, optr, ochan, REF_OUT + 1, emitted)
    if fired > 0:
        account(st, t0, t - 1, idle, fired)
    return fired


@jitable(inline=True)
def intersect_burst(w, st, optr, ochan, ins, last, skipto, m):
    """Intersect a run of data coordinates in one loop (:mod:`sam.runtime.burst`): each firing
    emits a coordinate all inputs hold, or drops those behind the largest (two operands:
    :func:`intersect2_burst`; more: :func:`intersectn_burst`, which passes stops too); done
    tokens, skip streams and bounded FIFOs take the general path. The firings made."""
    for k in range(m):
        if skipto[k] >= 0:
            return 0
    for k in range(PER_OPERAND * m):
        if ins[k] >= 0 and w.depth[ins[k]] > 0:
            return 0
    room = burst_room(w, st, ochan)
    if room == 0:
        return 0
    if m == 2:
        return intersect2_burst(w, st, optr, ochan, ins, last, room)
    return intersectn_burst(w, st, optr, ochan, ins, last, m, room)


@jitable(inline=True)
def drop_all_run(w, ins, last, dmask, m, t, idle, mask):
    """Firings that drop every input of ``dmask`` (a bit per operand) at once while the others
    hold their fiber's stop, one per cycle: each waits for the dropped inputs' coordinates and
    references (the stops' arrivals are already behind ``t``). Stops at a token of a dropped
    input that is not a data coordinate in order (its stop: the general firing takes it) or a
    reference that is neither data nor empty, or an empty ring. (t, idle, firings)."""
    n = 0
    while True:
        tt = t
        ok = True
        for k in range(m):
            if (dmask >> k) & 1 == 0:
                continue
            c = ins[crd_in(k)]
            if w.head[c] >= w.tail[c]:
                ok = False
                break
            s = w.head[c] & mask
            if w.kind[c, s] != DATA or w.data[c, s] <= last[k]:
                ok = False
                break
            if w.time[c, s] > tt:
                tt = w.time[c, s]
            r = ins[ref_in(k)]
            if r >= 0:
                if w.head[r] >= w.tail[r]:
                    ok = False
                    break
                q = w.head[r] & mask
                if w.kind[r, q] != DATA and w.kind[r, q] != EMPTY:
                    ok = False
                    break
                if w.time[r, q] > tt:
                    tt = w.time[r, q]
        if not ok:
            break
        for k in range(m):
            if (dmask >> k) & 1 == 0:
                continue
            c = ins[crd_in(k)]
            last[k] = w.data[c, w.head[c] & mask]
            w.head[c] += 1
            if ins[ref_in(k)] >= 0:
                w.head[ins[ref_in(k)]] += 1
        idle += tt - t
        t = tt + 1
        n += 1
    return t, idle, n


@jitable(inline=True)
def intersectn_burst(w, st, optr, ochan, ins, last, m, room):
    """:func:`intersect_burst` for m >= 3 operands, the clock and counts in local variables:
    each firing emits a coordinate every input holds, drops the inputs behind the largest
    coordinate, drops every input still holding data when the others hold their fiber's stop
    (those wait), or passes a stop every input holds (the fiber's end: ``last`` starts over).
    When one input alone is behind, the rest of its run is dropped by :func:`drop_run`; when
    several face the others' stops, by :func:`drop_all_run`.
    A done token, an empty ring or a malformed token (a coordinate out of order, stops of
    different levels, a reference that does not line up) ends it: the general path takes or
    reports it. The firings made."""
    mask = w.kind.shape[1] - 1
    t = st[T]
    lat = st[LAT]
    idle = 0
    t0 = t
    fired = 0
    emitted = 0
    while True:
        tt = t
        nstop = 0
        level = -1
        cmin = -1
        cmax = -1
        ok = True
        for k in range(m):
            c = ins[crd_in(k)]
            if w.head[c] >= w.tail[c]:
                ok = False
                break
            s = w.head[c] & mask
            kind = w.kind[c, s]
            x = w.data[c, s]
            if kind == DATA:
                if x <= last[k]:
                    ok = False
                    break
                if cmin < 0 or x < cmin:
                    cmin = x
                if x > cmax:
                    cmax = x
            elif kind == STOP:
                if level >= 0 and x != level:
                    ok = False
                    break
                level = x
                nstop += 1
            else:
                ok = False
                break
            if w.time[c, s] > tt:
                tt = w.time[c, s]
            r = ins[ref_in(k)]
            if r >= 0:
                if w.head[r] >= w.tail[r]:
                    ok = False
                    break
                q = w.head[r] & mask
                rk = w.kind[r, q]
                if kind == DATA:
                    if rk != DATA and rk != EMPTY:
                        ok = False
                        break
                elif rk != STOP or w.data[r, q] != x:
                    ok = False
                    break
                if w.time[r, q] > tt:
                    tt = w.time[r, q]
        if not ok:
            break
        emits = nstop == m or (nstop == 0 and cmin == cmax)
        if emits and emitted == room:
            break
        if tt > t:
            idle += tt - t
            t = tt
        if fired == 0:
            t0 = t
        behind = 0  # inputs dropped by this firing (the last one: kb; all: the bits of dmask)
        kb = 0
        dmask = 0
        if emits:
            a = t + lat
            if nstop == m:
                put_counted(w, optr, ochan, CRD_OUT, emitted, STOP, level, a)
            else:
                put_counted(w, optr, ochan, CRD_OUT, emitted, DATA, cmin, a)
            for k in range(m):
                r = ins[ref_in(k)]
                if nstop == m:
                    put_counted(w, optr, ochan, REF_OUT + k, emitted, STOP, level, a)
                    last[k] = -1
                elif r >= 0:
                    q = w.head[r] & mask
                    put_counted(w, optr, ochan, REF_OUT + k, emitted, w.kind[r, q],
                                w.data[r, q], a)
                    last[k] = cmin
                else:
                    put_counted(w, optr, ochan, REF_OUT + k, emitted, EMPTY, 0, a)
                    last[k] = cmin
                w.head[ins[crd_in(k)]] += 1
                if r >= 0:
                    w.head[r] += 1
            emitted += 1
        else:
            for k in range(m):
                c = ins[crd_in(k)]
                s = w.head[c] & mask
                x = w.data[c, s]
                if w.kind[c, s] == DATA and (nstop > 0 or x < cmax):
                    last[k] = x
                    w.head[c] += 1
                    if ins[ref_in(k)] >= 0:
                        w.head[ins[ref_in(k)]] += 1
                    behind += 1
                    kb = k
                    dmask |= 1 << k
        t += 1
        fired += 1
        if behind == 1:
            # One input behind the others (they hold cmax, or their fiber's stop): drop the
            # rest of its run alone, as the two-operand loop does.
            c = ins[crd_in(kb)]
            r = ins[ref_in(kb)]
            rr = r if r >= 0 else c
            h, g, lst, t, idle, n, tf = drop_run(
                w.kind[c], w.data[c], w.time[c], w.kind[rr], w.time[rr], r >= 0, w.head[c],
                w.tail[c], w.head[rr], w.tail[rr], last[kb], NO_LIMIT if nstop > 0 else cmax,
                t, idle, mask)
            w.head[c] = h
            if r >= 0:
                w.head[r] = g
            last[kb] = lst
            fired += n
        elif behind > 1 and nstop > 0 and m < 63:
            # Several inputs facing the others' stops: drop them together.
            t, idle, n = drop_all_run(w, ins, last, dmask, m, t, idle, mask)
            fired += n
    if emitted > 0:
        advance(w, optr, ochan, CRD_OUT, emitted)
        for k in range(m):
            advance(w, optr, ochan, REF_OUT + k, emitted)
    if fired > 0:
        account(st, t0, t - 1, idle, fired)
    return fired


@kernel
def merge(w, st, fst, ins, optr, ochan, last, told, skipto, m3, f0, f1):
    """Intersect or union (``op``) m coordinate/reference stream pairs.

    ``last[k]``: the last coordinate taken from input k in the current fiber (-1: none).
    Coordinate skipping (intersecter): ``skipto[k]`` is the output port of input k's skip
    stream (-1: none), ``told[k]`` what it was last sent in the current fiber (-1: nothing,
    ``TOLD_STOP``: the fiber's stop, else a coordinate).
    """
    m = st[OPERANDS]
    union = st[OP] == UNION
    while st[STATUS] == 0:
        if not union and intersect_burst(w, st, optr, ochan, ins, last, skipto, m) > 0:
            continue
        t_in = st[T]
        ndata = 0
        nstop = 0
        ndone = 0
        cmin = -1
        cmax = -1
        level = -1
        for k in range(m):
            c = ins[crd_in(k)]
            t_in = arrive(w, st, c, t_in)
            if t_in == NOT_YET:
                return RC_IN
            r = ins[ref_in(k)]
            if r >= 0:
                t_in = arrive(w, st, r, t_in)
                if t_in == NOT_YET:
                    return RC_IN
            kind = hkind(w, c)
            if r >= 0 and kind != EMPTY:  # (N on a coordinate input: ERR_EMPTY below)
                rk = hkind(w, r)
                if kind == DATA:
                    aligned = rk == DATA or rk == EMPTY
                else:
                    aligned = rk == kind and (kind != STOP or hdata(w, r) == hdata(w, c))
                if not aligned:
                    return fail(st, ERR_REF, w, r, ref_in(k))
            if kind == DATA:
                ndata += 1
                x = hdata(w, c)
                if x <= last[k]:
                    return fail(st, ERR_ORDER, w, c, crd_in(k))
                if cmin < 0 or x < cmin:
                    cmin = x
                if x > cmax:
                    cmax = x
            elif kind == STOP:
                nstop += 1
                lv = hdata(w, c)
                if level >= 0 and lv != level:
                    return fail(st, ERR_STOPS, w, c, crd_in(k))
                level = lv
            elif kind == DONE:
                ndone += 1
            else:
                return fail(st, ERR_EMPTY, w, c, crd_in(k))
        if ndone > 0 and ndone < m:
            for k in range(m):
                if hkind(w, ins[crd_in(k)]) != DONE:
                    return fail(st, ERR_DONE, w, ins[crd_in(k)], crd_in(k))

        if ndone == m or nstop == m:
            # Stop or done on every input: pass it on everywhere.
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            kind = DONE if ndone == m else STOP
            lv = 0 if ndone == m else level
            for port in range(REF_OUT + m):
                push(w, optr, ochan, port, kind, lv, a)
            for k in range(m):
                pop(w, ins[crd_in(k)], t_out)
                if ins[ref_in(k)] >= 0:
                    pop(w, ins[ref_in(k)], t_out)
                last[k] = -1
                if kind == STOP and skipto[k] >= 0 and told[k] != TOLD_STOP:
                    push(w, optr, ochan, skipto[k], STOP, lv, a)  # the fiber is over
                told[k] = -1
            if ndone == m:
                st[STATUS] = 1
            continue

        if union:
            # Emit the smallest coordinate; N for the inputs that lack it.
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            push(w, optr, ochan, CRD_OUT, DATA, cmin, a)
            for k in range(m):
                c = ins[crd_in(k)]
                r = ins[ref_in(k)]
                if hkind(w, c) == DATA and hdata(w, c) == cmin:
                    if r >= 0:
                        push(w, optr, ochan, REF_OUT + k, hkind(w, r), hdata(w, r), a)
                        pop(w, r, t_out)
                    else:
                        push(w, optr, ochan, REF_OUT + k, EMPTY, 0, a)
                    pop(w, c, t_out)
                    last[k] = cmin
                else:
                    push(w, optr, ochan, REF_OUT + k, EMPTY, 0, a)
            continue

        if ndata == m and cmin == cmax:
            # Every input holds the coordinate: emit it with all references.
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            push(w, optr, ochan, CRD_OUT, DATA, cmin, a)
            for k in range(m):
                r = ins[ref_in(k)]
                if r >= 0:
                    push(w, optr, ochan, REF_OUT + k, hkind(w, r), hdata(w, r), a)
                    pop(w, r, t_out)
                else:
                    push(w, optr, ochan, REF_OUT + k, EMPTY, 0, a)
                pop(w, ins[crd_in(k)], t_out)
                last[k] = cmin
            continue

        # Skip: drop coordinates that cannot match (behind the largest, or facing a stop), and
        # tell the scanners of those inputs (coordinate skipping) where to go on: to the
        # largest coordinate, or to the end of the fiber.
        t_out = t_in
        for k in range(m):
            c = ins[crd_in(k)]
            if skipto[k] >= 0 and hkind(w, c) == DATA and (nstop > 0 or hdata(w, c) < cmax) \
                    and told[k] != TOLD_STOP and (nstop > 0 or cmax > told[k]):
                t_out = reserve(w, st, optr, ochan, skipto[k], t_out)
                if t_out < 0:
                    return blocked(t_out)
        a = fire(st, t_in, t_out)
        for k in range(m):
            c = ins[crd_in(k)]
            if hkind(w, c) == DATA and (nstop > 0 or hdata(w, c) < cmax):
                if skipto[k] >= 0 and told[k] != TOLD_STOP:
                    if nstop > 0:
                        push(w, optr, ochan, skipto[k], STOP, 0, a)
                        told[k] = TOLD_STOP
                    elif cmax > told[k]:
                        push(w, optr, ochan, skipto[k], DATA, cmax, a)
                        told[k] = cmax
                last[k] = hdata(w, c)
                pop(w, c, t_out)
                if ins[ref_in(k)] >= 0:
                    pop(w, ins[ref_in(k)], t_out)
    return RC_DONE


class _Merger(Block):
    """Shared ports of the intersecter and unioner: one (crd, ref) pair per operand."""

    family = "merge"
    kernel = merge
    state = MERGE
    merge = INTERSECT
    required_attrs = ("index",)
    errors = {
        ERR_STOPS: "inputs reached stop tokens of different levels (misaligned fibers)",
        ERR_DONE: "inputs ended at different points (one has more fibers than another)",
        ERR_EMPTY: "an empty token (N) on a coordinate input",
        ERR_REF: "a reference stream does not line up with its coordinate stream",
        ERR_ORDER: "coordinates of a fiber are not strictly increasing (unsorted, repeated or "
        "negative)",
    }

    def __init__(self, node_id, attrs=None, operands: list[str] | None = None) -> None:
        super().__init__(node_id, attrs)
        self.operands: list[str] = list(operands or [])
        #: operands whose scanners this merger sends skips to (an intersecter's ``skip-B``
        #: outputs, Sec. 4.2), in the order their edges were declared
        self.skips: list[str] = []

    def declare_port(self, direction: str, kind: str, comment: str) -> None:
        """Learn an operand from a DOT edge comment (``in-B``/``out-B``), or a skip stream
        (``skip-B``, an intersecter's ``crd`` output)."""
        skip = SKIP_PREFIX + "-"
        if direction == "out" and kind == "crd" and comment.startswith(skip):
            if self.merge != INTERSECT:
                raise GraphError(f"node {self.id} ({self.dot_type}): only an intersecter sends "
                                 f"skips (edge comment {comment!r}); remove the edge")
            if comment[len(skip):] not in self.skips:
                self.skips.append(comment[len(skip):])
            return
        prefix = "in-" if direction == "in" else "out-"
        if comment.startswith(prefix) and comment[len(prefix):] not in self.operands:
            self.operands.append(comment[len(prefix):])

    def inputs(self) -> list[Port]:
        return [port for t in self.operands
                for port in OPERAND_IN.ports(crd={"comment": f"in-{t}"},
                                             ref={"comment": f"in-{t}"})]

    def outputs(self) -> list[Port]:
        refs = [Port("ref", f"out-{t}", optional=True) for t in self.operands]
        return MERGE_OUT.ports(ref=refs) + [
            Port("crd", f"{SKIP_PREFIX}-{t}", optional=True) for t in self.skips]

    def params(self, tensors) -> dict[str, int]:
        return {"operands": len(self.operands), "op": self.merge}

    def memories(self, tensors) -> dict[str, np.ndarray]:
        n = max(1, len(self.operands))
        skipto = np.full(n, -1, np.int64)
        for j, t in enumerate(self.skips):
            if t not in self.operands:
                raise GraphError(f"node {self.id} ({self.label()}) sends skips for {t}, which "
                                 f"is not one of its inputs ({', '.join(self.operands)}); "
                                 f"comment the skip edge skip-<one of them>")
            skipto[self.operands.index(t)] = REF_OUT + len(self.operands) + j
        return {"last": np.full(n, -1, np.int64), "told": np.full(n, -1, np.int64),
                "skipto": skipto}

    def label(self) -> str:
        return f"{self.dot_type} {self.attrs.get('index', '')}"


class Intersecter(_Merger):
    """Intersection of m coordinate streams (Def. 3.2); DOT type ``intersect``."""

    dot_type = "intersect"
    merge = INTERSECT

    def timing_latency(self, timing: str) -> int:
        """``original``: two cycles per two-way stage, as :meth:`Unioner.timing_latency`."""
        return _original_latency(self, timing)


class Unioner(_Merger):
    """Union of m coordinate streams (Def. 3.3); DOT type ``union``."""

    dot_type = "union"
    merge = UNION

    def timing_latency(self, timing: str) -> int:
        """``original`` (docs/timing-model.md, rule 12): the original's two-way ``Union2``
        holds the current head of each input in a register, so its tokens come out two cycles
        after they arrive, and it merges m streams with a chain of m-1 of them."""
        return _original_latency(self, timing)


def _original_latency(block: _Merger, timing: str) -> int:
    """Latency of an m-way merge under ``timing``: 2 per two-way stage of the original's
    chain (m-1 stages) with ``original``, else 1."""
    if timing == "original":
        return 2 * max(1, len(block.operands) - 1)
    return 1
