"""Parallel lanes (SAM paper Sec. 4.4; Gamma's merger, Sec. 6.5): parallelizer, serializer and
the n-input vector reducer.

Lanes split a graph's work at *fiber granularity of a level*: every element of that level (one
coordinate with the whole sub-tree below it) goes to one of n lanes, each a copy of the
sub-graph below the level. A stream at *depth* d (attribute ``depth``: levels below the split
level; 0 = the split level itself) is a sequence of events:

* an **element**: for d = 0 one token (a coordinate, reference or value); for d >= 1 its
  tokens up to the stop that closes it, ``S(d-1)`` (or a higher one, below);
* the **end of a split-level fiber** ``F(k)`` (closing k outer levels too): ``S(d+k)``, merged
  with the closing stop of an element directly before it (SAM's stop rule, Sec. 3.2);
* the done token.

Every lane sees every ``F(k)`` and the done token, so a lane that gets no element of a fiber
still sees the right stops and its blocks terminate; its elements are a sub-sequence of the
input's. An *order* stream (``crd`` kind) says which lane each element went to: ``l`` per
element, ``Sk`` per ``F(k)``, ``D``.

* **parallelizer** (DOT ``parallelize``, attributes ``lanes``, ``mode``, ``depth``, ``kind``):
  ``mode=rr`` deals elements round robin, ``mode=range`` by coordinate range (lane
  ``c * lanes // size``, ``size`` given or the dimension of ``tensor``'s ``dim``), both on a
  depth-0 stream, and emit the order; ``mode=order`` follows an ``order`` input (any depth),
  so the aligned streams of a level split alike.
* **serializer** (DOT ``serialize``): ``mode=order`` restores the sequential stream from the
  lanes by the ``order`` input (any depth; it re-merges the stops); ``mode=crd`` merges depth-0
  coordinate streams by coordinate (within a fiber the lanes' coordinates are disjoint and
  sorted) and emits the order it found, for the serializers of the streams aligned with it.
* **n-input vector reducer** (DOT ``lanereduce``, ``lanes``): n (crd, val) lane streams at depth
  1 below a reduced level; per fiber of that level it sums the points of all lanes with equal
  coordinates and emits one fiber, sorted (an order-1 ``spaccumulator`` over n inputs; empty
  groups dropped like its ``empty=drop``).

Timing (docs/timing-model.md, "Lanes"): one firing per cycle; a firing takes at most one token
from each input (the reducer one from every lane) and emits at most one per output.

Burst paths (:mod:`sam.runtime.burst`): with unbounded FIFOs the parallelizer and the
serializer make runs of firings in one loop (:func:`parallelize_burst`,
:func:`serialize_burst`, :func:`serialize_crd_burst`), their phase in local variables: the
elements and the stops closing them; the reducer gathers and emits in one loop
(:func:`lanereduce_burst`). A fiber end, a done token, a malformed stream, an empty input or a
full ring ends a run and the general path goes on from the same state.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from sam.blocks.base import INITIAL_LENGTH, Block, Port
from sam.errors import GraphError
from sam.runtime.burst import (
    account,
    burst_room,
    commit,
    commit_stops,
    fan_out,
    first_channel,
    put,
    put_row,
)
from sam.runtime.jit import jitable
from sam.runtime.kernel import (
    NOT_YET,
    State,
    arrive,
    blocked,
    fail,
    fire,
    kernel,
    need_memory,
    reserve,
    reserve_all,
)
from sam.runtime.tokens import DATA, DONE, STOP
from sam.runtime.wires import (
    LAT,
    RC_DONE,
    RC_IN,
    STATUS,
    T,
    hdata,
    hkind,
    hval,
    pop,
    push,
    pushv,
)

#: Parallelizer modes (``mode`` attribute) and serializer modes.
RR, RANGE, FOLLOW, BY_CRD = 0, 1, 2, 3
MODES = {"rr": RR, "range": RANGE, "order": FOLLOW, "crd": BY_CRD}
#: Phases: between elements, or inside one (depth >= 1).
BETWEEN, INSIDE = 0, 1
LANES = State(lanes=1, mode=RR, depth=0, isval=0, size=1, next=0, phase=BETWEEN, cur=0,
              merged=0, pend=0)
P_LANES, MODE, DEPTH, ISVAL, SIZE, NEXT, PHASE, CUR, MERGED, PEND = LANES.slots
ERR_ORDER, ERR_STOP, ERR_DONE, ERR_LANE, ERR_TOKEN = 1, 2, 3, 4, 5
ERRORS = {
    ERR_ORDER: "the order stream names a lane that does not exist or is malformed",
    ERR_STOP: "a stop token does not line up with the order stream (or the lanes' stops differ)",
    ERR_DONE: "the done token does not line up with the order stream",
    ERR_LANE: "a lane ended an element where the order stream did not",
    ERR_TOKEN: "a stop token where an element (a single token at depth 0) was expected",
}


@jitable
def _pass(w, optr, ochan, port, c, isval, a):
    """Copy the head token of channel ``c`` to output ``port`` (values by their float bits)."""
    k = hkind(w, c)
    if isval == 1 and k == DATA:
        pushv(w, optr, ochan, port, k, hval(w, c), a)
    else:
        push(w, optr, ochan, port, k, hdata(w, c), a)


@jitable(inline=True)
def _unbounded(w, c):
    """Whether input channel ``c`` may take part in a burst (connected, no modeled depth: a
    pop writes no pop cycle)."""
    return c >= 0 and w.depth[c] == 0


@jitable(inline=True)
def parallelize_burst(w, st, ins, optr, ochan, pend):
    """The parallelizer's firings in one loop (see :func:`parallelize`): dealt elements
    (``mode=rr|range``), followed ones (``mode=order``, any depth: the order token, the
    element's tokens, its closing stop). Stops of the dealt stream, the order's stops and done
    token, a malformed token, an empty input or the room left on the outputs end it (each
    firing emits at most one token per output port). The firings made."""
    room = burst_room(w, st, ochan)
    cin = ins[0]
    cord = ins[1] if ins.shape[0] > 1 else -1
    follow = st[MODE] == FOLLOW
    if room == 0 or not _unbounded(w, cin) or (follow and not _unbounded(w, cord)):
        return 0
    mask = w.kind.shape[1] - 1
    n = st[P_LANES]
    d = st[DEPTH]
    isval = st[ISVAL]
    rr = st[MODE] == RR
    size = st[SIZE]
    phase = st[PHASE]
    cur = st[CUR]
    merged = st[MERGED]
    nxt = st[NEXT]
    t = st[T]
    lat = st[LAT]
    idle = 0
    t0 = t
    fired = 0
    while fired < room:
        tt = t
        if not follow:
            if w.head[cin] >= w.tail[cin] or hkind(w, cin) != DATA:
                break
            tt = w.time[cin, w.head[cin] & mask]
            tt = tt if tt > t else t
            if rr:
                lane = nxt % n
            else:
                lane = min(max(hdata(w, cin) * n // size, 0), n - 1)
            _pass(w, optr, ochan, lane, cin, isval, tt + lat)
            push(w, optr, ochan, n, DATA, lane, tt + lat)
            nxt += 1
            w.head[cin] += 1
        elif phase == INSIDE:
            if w.head[cin] >= w.tail[cin]:
                break
            k = hkind(w, cin)
            if k == DONE:
                break
            tt = w.time[cin, w.head[cin] & mask]
            tt = tt if tt > t else t
            if k == STOP and hdata(w, cin) >= d - 1:
                sl = hdata(w, cin)
                pend[cur] = 1
                merged = sl - d + 1 if sl > d - 1 else 0
                phase = BETWEEN
            else:
                _pass(w, optr, ochan, cur, cin, isval, tt + lat)
            w.head[cin] += 1
        else:
            if w.head[cord] >= w.tail[cord] or hkind(w, cord) != DATA:
                break
            lane = hdata(w, cord)
            if lane < 0 or lane >= n:
                break
            tt = w.time[cord, w.head[cord] & mask]
            tt = tt if tt > t else t
            if d == 0:
                if w.head[cin] >= w.tail[cin]:
                    break
                k = hkind(w, cin)
                if k == STOP or k == DONE:
                    break
                ta = w.time[cin, w.head[cin] & mask]
                tt = ta if ta > tt else tt
                _pass(w, optr, ochan, lane, cin, isval, tt + lat)
                w.head[cin] += 1
            else:
                if merged != 0:
                    break
                if pend[lane] == 1:
                    push(w, optr, ochan, lane, STOP, d - 1, tt + lat)
                    pend[lane] = 0
                cur = lane
                phase = INSIDE
            w.head[cord] += 1
        if fired == 0:
            t0 = tt
        idle += tt - t
        t = tt + 1
        fired += 1
    st[PHASE] = phase
    st[CUR] = cur
    st[MERGED] = merged
    st[NEXT] = nxt
    if fired > 0:
        account(st, t0, t - 1, idle, fired)
    return fired


@kernel
def parallelize(w, st, fst, ins, optr, ochan, pend, m1, m2, m3, f0, f1):
    """Parallelizer: deal the elements of input 0 over outputs 0..n-1 (output n: the order).

    ``pend[l]``: lane l owes the closing stop of its last element (depth >= 1).
    """
    n = st[P_LANES]
    d = st[DEPTH]
    cin = ins[0]
    cord = ins[1] if ins.shape[0] > 1 else -1
    while st[STATUS] == 0:
        if parallelize_burst(w, st, ins, optr, ochan, pend) > 0:
            continue
        t_in = st[T]
        if st[MODE] != FOLLOW:
            # Decide on the element itself (depth 0) and emit the order.
            t_in = arrive(w, st, cin, t_in)
            if t_in == NOT_YET:
                return RC_IN
            k = hkind(w, cin)
            if k == STOP or k == DONE:
                t_out = reserve_all(w, st, optr, ochan, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                for port in range(n + 1):
                    push(w, optr, ochan, port, k, hdata(w, cin), a)
                if k == DONE:
                    st[STATUS] = 1
                pop(w, cin, t_out)
                continue
            if st[MODE] == RR:
                lane = st[NEXT] % n
            else:
                lane = hdata(w, cin) * n // st[SIZE]
                lane = min(max(lane, 0), n - 1)
            t_out = reserve(w, st, optr, ochan, lane, t_in)
            if t_out < 0:
                return blocked(t_out)
            t_out = reserve(w, st, optr, ochan, n, t_out)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            _pass(w, optr, ochan, lane, cin, st[ISVAL], a)
            push(w, optr, ochan, n, DATA, lane, a)
            st[NEXT] += 1
            pop(w, cin, t_out)
            continue

        if st[PHASE] == INSIDE:
            # Copy the current element's tokens to its lane up to the stop closing it.
            lane = st[CUR]
            t_in = arrive(w, st, cin, t_in)
            if t_in == NOT_YET:
                return RC_IN
            k = hkind(w, cin)
            if k == DONE:
                return fail(st, ERR_DONE, w, cin, 0)
            if k == STOP and hdata(w, cin) >= d - 1:
                s = hdata(w, cin)
                a = fire(st, t_in, t_in)
                pend[lane] = 1
                st[MERGED] = s - d + 1 if s > d - 1 else 0
                st[PHASE] = BETWEEN
                pop(w, cin, t_in)
                continue
            t_out = reserve(w, st, optr, ochan, lane, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            _pass(w, optr, ochan, lane, cin, st[ISVAL], a)
            pop(w, cin, t_out)
            continue

        t_in = arrive(w, st, cord, t_in)
        if t_in == NOT_YET:
            return RC_IN
        ko = hkind(w, cord)
        if ko == DATA:
            lane = hdata(w, cord)
            if lane < 0 or lane >= n:
                return fail(st, ERR_ORDER, w, cord, 1)
            if d == 0:
                t_in = arrive(w, st, cin, t_in)
                if t_in == NOT_YET:
                    return RC_IN
                if hkind(w, cin) == STOP or hkind(w, cin) == DONE:
                    return fail(st, ERR_TOKEN, w, cin, 0)
                t_out = reserve(w, st, optr, ochan, lane, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                _pass(w, optr, ochan, lane, cin, st[ISVAL], a)
                pop(w, cin, t_out)
                pop(w, cord, t_out)
                continue
            if st[MERGED] != 0:
                return fail(st, ERR_STOP, w, cord, 1)
            t_out = t_in
            if pend[lane] == 1:
                t_out = reserve(w, st, optr, ochan, lane, t_in)
                if t_out < 0:
                    return blocked(t_out)
            a = fire(st, t_in, t_out)
            if pend[lane] == 1:
                push(w, optr, ochan, lane, STOP, d - 1, a)
                pend[lane] = 0
            st[CUR] = lane
            st[PHASE] = INSIDE
            pop(w, cord, t_out)
            continue
        if ko == STOP:
            level = hdata(w, cord)
            merged = st[MERGED]
            if merged == 0:
                t_in = arrive(w, st, cin, t_in)
                if t_in == NOT_YET:
                    return RC_IN
                if hkind(w, cin) != STOP or hdata(w, cin) != d + level:
                    return fail(st, ERR_STOP, w, cin, 0)
            elif merged - 1 != level:
                return fail(st, ERR_STOP, w, cord, 1)
            t_out = t_in
            for port in range(n):
                t_out = reserve(w, st, optr, ochan, port, t_out)
                if t_out < 0:
                    return blocked(t_out)
            a = fire(st, t_in, t_out)
            for port in range(n):
                push(w, optr, ochan, port, STOP, d + level, a)
                pend[port] = 0
            if merged == 0:
                pop(w, cin, t_out)
            st[MERGED] = 0
            pop(w, cord, t_out)
            continue
        if ko == DONE:
            t_in = arrive(w, st, cin, t_in)
            if t_in == NOT_YET:
                return RC_IN
            if hkind(w, cin) != DONE:
                return fail(st, ERR_DONE, w, cin, 0)
            t_out = t_in
            for port in range(n):
                t_out = reserve(w, st, optr, ochan, port, t_out)
                if t_out < 0:
                    return blocked(t_out)
            a = fire(st, t_in, t_out)
            for port in range(n):
                push(w, optr, ochan, port, DONE, 0, a)
            pop(w, cin, t_out)
            pop(w, cord, t_out)
            st[STATUS] = 1
            continue
        return fail(st, ERR_ORDER, w, cord, 1)
    return RC_DONE


@jitable(inline=True)
def serialize_burst(w, st, ins, optr, ochan, merged):
    """The serializer's firings in one loop, ``mode=order`` (see :func:`serialize`): an element
    taken at depth 0 (order and lane token together); at depth d >= 1 the order token, the
    element's tokens, its closing stop and an owed ``S(d-1)``. The order's stops and done
    token, a malformed token, an empty input or a full output ring end it. The firings made."""
    room = burst_room(w, st, ochan)
    n = st[P_LANES]
    cord = ins[n] if ins.shape[0] > n else -1
    if room == 0 or not _unbounded(w, cord):
        return 0
    mask = w.kind.shape[1] - 1
    oc = first_channel(optr, ochan, 0)
    ko = w.kind[oc if oc >= 0 else cord]  # (rows never written without a channel)
    do = w.data[oc if oc >= 0 else cord]
    to = w.time[oc if oc >= 0 else cord]
    d = st[DEPTH]
    isval = st[ISVAL]
    phase = st[PHASE]
    cur = st[CUR]
    pend = st[PEND]
    t = st[T]
    lat = st[LAT]
    idle = 0
    t0 = t
    fired = 0
    emitted = 0
    while True:
        tt = t
        if phase == INSIDE:
            c = ins[cur]
            if not _unbounded(w, c):
                break
            # The element's data (and inner stops) straight into the first output channel's
            # rows, one firing each, published once.
            h = w.head[c]
            e = w.tail[c]
            kc = w.kind[c]
            dc = w.data[c]
            tc = w.time[c]
            on = oc >= 0
            tail = w.tail[oc] if on else 0
            m = 0
            nstop = 0
            while h < e and emitted + m < room:
                s = h & mask
                k = kc[s]
                if k != DATA and (k != STOP or dc[s] >= d - 1):
                    break
                tt = tc[s]
                tt = tt if tt > t else t
                m = put_row(on, ko, do, to, tail, m, k, dc[s], tt + lat, mask)
                if k == STOP:
                    nstop += 1
                if fired == 0:
                    t0 = tt
                idle += tt - t
                t = tt + 1
                fired += 1
                h += 1
            w.head[c] = h
            if m > 0:
                fan_out(w, optr, ochan, 0, m)
                commit_stops(w, optr, ochan, 0, m, nstop)
                emitted += m
            if h >= e:
                break
            tt = t
            s = h & mask
            k = w.kind[c, s]
            if k == DONE:
                break
            tt = w.time[c, s]
            tt = tt if tt > t else t
            if k == STOP and w.data[c, s] >= d - 1:
                sl = w.data[c, s]
                merged[cur] = sl - d + 1 if sl > d - 1 else 0
                pend = 1
                phase = BETWEEN
            else:
                if emitted == room:
                    break
                _pass(w, optr, ochan, 0, c, isval, tt + lat)
                emitted += 1
            w.head[c] += 1
        else:
            if w.head[cord] >= w.tail[cord]:
                break
            so = w.head[cord] & mask
            if w.kind[cord, so] != DATA:
                break
            lane = w.data[cord, so]
            if lane < 0 or lane >= n:
                break
            tt = w.time[cord, so]
            tt = tt if tt > t else t
            if pend == 1:  # the previous element's close is S(d-1): another element follows
                if emitted == room:
                    break
                push(w, optr, ochan, 0, STOP, d - 1, tt + lat)
                emitted += 1
                pend = 0
            elif d == 0:
                c = ins[lane]
                if w.head[c] >= w.tail[c] or not _unbounded(w, c):
                    break
                k = hkind(w, c)
                if k == STOP or k == DONE or emitted == room:
                    break
                ta = w.time[c, w.head[c] & mask]
                tt = ta if ta > tt else tt
                _pass(w, optr, ochan, 0, c, isval, tt + lat)
                emitted += 1
                w.head[c] += 1
                w.head[cord] += 1
            else:
                if merged[lane] != 0:
                    break
                cur = lane
                phase = INSIDE
                w.head[cord] += 1
        if fired == 0:
            t0 = tt
        idle += tt - t
        t = tt + 1
        fired += 1
    st[PHASE] = phase
    st[CUR] = cur
    st[PEND] = pend
    if fired > 0:
        account(st, t0, t - 1, idle, fired)
    return fired


@jitable(inline=True)
def serialize_crd_burst(w, st, ins, optr, ochan):
    """The serializer's firings in one loop, ``mode=crd`` (see :func:`serialize`): the
    smallest head coordinate of the lanes, and its lane on the order output. A firing where no
    lane holds a coordinate (stops, done), a malformed token, an empty lane or a full output
    ring ends it. The firings made."""
    room = burst_room(w, st, ochan)
    n = st[P_LANES]
    if room == 0:
        return 0
    for lane in range(n):
        if not _unbounded(w, ins[lane]):
            return 0
    mask = w.kind.shape[1] - 1
    t = st[T]
    lat = st[LAT]
    idle = 0
    t0 = t
    fired = 0
    while fired < room:
        tt = t
        best = -1
        bx = 0
        level = -1
        ok = True
        for lane in range(n):
            c = ins[lane]
            if w.head[c] >= w.tail[c]:
                ok = False
                break
            s = w.head[c] & mask
            k = w.kind[c, s]
            if k == DATA:
                if best < 0 or w.data[c, s] < bx:
                    best = lane
                    bx = w.data[c, s]
            elif k == STOP:
                if level >= 0 and w.data[c, s] != level:
                    ok = False
                    break
                level = w.data[c, s]
            elif k != DONE:
                ok = False
                break
            if w.time[c, s] > tt:
                tt = w.time[c, s]
        if not ok or best < 0:
            break
        put(w, optr, ochan, 0, fired, DATA, bx, tt + lat)
        put(w, optr, ochan, 1, fired, DATA, best, tt + lat)
        w.head[ins[best]] += 1
        if fired == 0:
            t0 = tt
        idle += tt - t
        t = tt + 1
        fired += 1
    if fired > 0:
        commit(w, optr, ochan, 0, DATA, fired)
        commit(w, optr, ochan, 1, DATA, fired)
        account(st, t0, t - 1, idle, fired)
    return fired


@kernel
def serialize(w, st, fst, ins, optr, ochan, merged, m1, m2, m3, f0, f1):
    """Serializer: inputs 0..n-1 the lanes, input n the order (``mode=order``); output 0 the
    stream, output 1 the order it found (``mode=crd``).

    ``merged[l]``: 0, or k+1 when lane l's last element close already included ``F(k)``.
    """
    n = st[P_LANES]
    d = st[DEPTH]
    cord = ins[n] if ins.shape[0] > n else -1
    while st[STATUS] == 0:
        if st[MODE] == BY_CRD:
            if serialize_crd_burst(w, st, ins, optr, ochan) > 0:
                continue
        elif serialize_burst(w, st, ins, optr, ochan, merged) > 0:
            continue
        t_in = st[T]
        if st[MODE] == BY_CRD:
            # Merge depth-0 coordinate streams: the smallest head coordinate goes first.
            best = -1
            nstop = 0
            ndone = 0
            level = -1
            for lane in range(n):
                t_in = arrive(w, st, ins[lane], t_in)
                if t_in == NOT_YET:
                    return RC_IN
                k = hkind(w, ins[lane])
                if k == DATA:
                    if best < 0 or hdata(w, ins[lane]) < hdata(w, ins[best]):
                        best = lane
                elif k == STOP:
                    if level >= 0 and hdata(w, ins[lane]) != level:
                        return fail(st, ERR_STOP, w, ins[lane], lane)
                    level = hdata(w, ins[lane])
                    nstop += 1
                elif k == DONE:
                    ndone += 1
                else:
                    return fail(st, ERR_TOKEN, w, ins[lane], lane)
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            if best >= 0:
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, 0, DATA, hdata(w, ins[best]), a)
                push(w, optr, ochan, 1, DATA, best, a)
                pop(w, ins[best], t_out)
                continue
            if ndone > 0 and ndone < n:
                return fail(st, ERR_DONE, w, ins[0], 0)
            kind = DONE if ndone == n else STOP
            a = fire(st, t_in, t_out)
            push(w, optr, ochan, 0, kind, level if kind == STOP else 0, a)
            push(w, optr, ochan, 1, kind, level if kind == STOP else 0, a)
            for lane in range(n):
                pop(w, ins[lane], t_out)
            if kind == DONE:
                st[STATUS] = 1
            continue

        if st[PHASE] == INSIDE:
            # Copy the current element from its lane up to the stop closing it.
            lane = st[CUR]
            c = ins[lane]
            t_in = arrive(w, st, c, t_in)
            if t_in == NOT_YET:
                return RC_IN
            k = hkind(w, c)
            if k == DONE:
                return fail(st, ERR_LANE, w, c, lane)
            if k == STOP and hdata(w, c) >= d - 1:
                s = hdata(w, c)
                a = fire(st, t_in, t_in)
                merged[lane] = s - d + 1 if s > d - 1 else 0
                st[PEND] = 1
                st[PHASE] = BETWEEN
                pop(w, c, t_in)
                continue
            t_out = reserve(w, st, optr, ochan, 0, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            _pass(w, optr, ochan, 0, c, st[ISVAL], a)
            pop(w, c, t_out)
            continue

        t_in = arrive(w, st, cord, t_in)
        if t_in == NOT_YET:
            return RC_IN
        ko = hkind(w, cord)
        if ko == DATA:
            lane = hdata(w, cord)
            if lane < 0 or lane >= n:
                return fail(st, ERR_ORDER, w, cord, n)
            if st[PEND] == 1:
                # The previous element's close is S(d-1): another element follows.
                t_out = reserve(w, st, optr, ochan, 0, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, 0, STOP, d - 1, a)
                st[PEND] = 0
                continue
            if d == 0:
                c = ins[lane]
                t_in = arrive(w, st, c, t_in)
                if t_in == NOT_YET:
                    return RC_IN
                if hkind(w, c) == STOP or hkind(w, c) == DONE:
                    return fail(st, ERR_TOKEN, w, c, lane)
                t_out = reserve(w, st, optr, ochan, 0, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                _pass(w, optr, ochan, 0, c, st[ISVAL], a)
                pop(w, c, t_out)
                pop(w, cord, t_out)
                continue
            if merged[lane] != 0:
                return fail(st, ERR_LANE, w, ins[lane], lane)
            a = fire(st, t_in, t_in)
            st[CUR] = lane
            st[PHASE] = INSIDE
            pop(w, cord, t_in)
            continue
        if ko == STOP or ko == DONE:
            level = hdata(w, cord) if ko == STOP else 0
            want = d + level
            for lane in range(n):
                if ko == STOP and merged[lane] != 0:
                    if merged[lane] - 1 != level:
                        return fail(st, ERR_STOP, w, cord, n)
                    continue
                t_in = arrive(w, st, ins[lane], t_in)
                if t_in == NOT_YET:
                    return RC_IN
                if hkind(w, ins[lane]) != ko or (ko == STOP and hdata(w, ins[lane]) != want):
                    return fail(st, ERR_STOP if ko == STOP else ERR_DONE, w, ins[lane], lane)
            t_out = reserve(w, st, optr, ochan, 0, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            push(w, optr, ochan, 0, ko, want if ko == STOP else 0, a)
            for lane in range(n):
                if ko == STOP and merged[lane] != 0:
                    merged[lane] = 0
                else:
                    pop(w, ins[lane], t_out)
            pop(w, cord, t_out)
            st[PEND] = 0
            if ko == DONE:
                st[STATUS] = 1
            continue
        return fail(st, ERR_ORDER, w, cord, n)
    return RC_DONE


#: Reducer state: points gathered, merged points, next to emit, the group's close level.
REDUCE = State(lanes=1, count=0, nout=0, emitted=0, phase=0, closek=0, pend=0, started=0)
(R_LANES, COUNT, NOUT, EMITTED, R_PHASE, CLOSEK, R_PEND, STARTED) = REDUCE.slots
GATHER, EMIT, CLOSE = 0, 1, 2
#: ``waiting[l]``: 0 while lane l is in the group, s >= 1 once it reached ``Ss``, -1 at done.
AT_DONE = -1


@jitable(inline=True)
def lanereduce_burst(w, st, ins, optr, ochan, crds, waiting, outc, vals, outv):
    """The n-input vector reducer's firings in one loop (see :func:`lanereduce`): gathering
    (one token from every lane still in the group) and emitting the merged points (and an owed
    ``S0`` before them). A complete group (its sort), a closing stop, the done token, a
    malformed token, an empty input, a full memory or a full output ring end it. The firings
    made."""
    room = burst_room(w, st, ochan)
    n = st[R_LANES]
    if room == 0:
        return 0
    for k in range(2 * n):
        if not _unbounded(w, ins[k]):
            return 0
    mask = w.kind.shape[1] - 1
    t = st[T]
    lat = st[LAT]
    idle = 0
    t0 = t
    fired = 0
    emitted = 0
    while True:
        tt = t
        if st[R_PHASE] == GATHER:
            if crds.shape[0] < st[COUNT] + n or vals.shape[0] < st[COUNT] + n:
                break
            active = 0
            ok = True
            for lane in range(n):
                if waiting[lane] != 0:
                    continue
                active += 1
                c = ins[2 * lane]
                v = ins[2 * lane + 1]
                if w.head[c] >= w.tail[c] or w.head[v] >= w.tail[v]:
                    ok = False
                    break
                s = w.head[c] & mask
                sv = w.head[v] & mask
                if w.kind[c, s] != w.kind[v, sv]:
                    ok = False
                    break
                if w.time[c, s] > tt:
                    tt = w.time[c, s]
                if w.time[v, sv] > tt:
                    tt = w.time[v, sv]
            if not ok or active == 0:
                break
            for lane in range(n):
                if waiting[lane] != 0:
                    continue
                c = ins[2 * lane]
                v = ins[2 * lane + 1]
                s = w.head[c] & mask
                k = w.kind[c, s]
                if k == DATA:
                    crds[st[COUNT]] = w.data[c, s]
                    vals[st[COUNT]] = w.fdata[v, w.head[v] & mask]
                    st[COUNT] += 1
                elif k == STOP:
                    if w.data[c, s] >= 1:
                        waiting[lane] = w.data[c, s]
                elif k == DONE:
                    waiting[lane] = AT_DONE
                    continue  # the done token stays until every lane is done
                w.head[c] += 1
                w.head[v] += 1
        elif st[R_PHASE] == EMIT and st[NOUT] > 0 and emitted < room:
            if st[R_PEND] == 1:  # the previous fiber's close: another fiber follows
                push(w, optr, ochan, 0, STOP, 0, tt + lat)
                push(w, optr, ochan, 1, STOP, 0, tt + lat)
                st[R_PEND] = 0
            else:
                e = st[EMITTED]
                pushv(w, optr, ochan, 0, DATA, outv[e], tt + lat)
                push(w, optr, ochan, 1, DATA, outc[e], tt + lat)
                st[EMITTED] = e + 1
                if e + 1 == st[NOUT]:
                    st[R_PHASE] = CLOSE
                    st[STARTED] = 1
            emitted += 1
        else:
            break
        if fired == 0:
            t0 = tt
        idle += tt - t
        t = tt + 1
        fired += 1
    if fired > 0:
        account(st, t0, t - 1, idle, fired)
    return fired


@kernel
def lanereduce(w, st, fst, ins, optr, ochan, crds, waiting, outc, m3, vals, outv):
    """n-input vector reducer: inputs (crd, val) of lane l at 2l, 2l+1; outputs val, crd."""
    n = st[R_LANES]
    while st[STATUS] == 0:
        if lanereduce_burst(w, st, ins, optr, ochan, crds, waiting, outc, vals, outv) > 0:
            continue
        t_in = st[T]
        if st[R_PHASE] == GATHER:
            # One token from every lane still in the group.
            need = st[COUNT] + n
            if crds.shape[0] < need:
                return need_memory(st, 0)
            if vals.shape[0] < need:
                return need_memory(st, 4)
            active = 0
            for lane in range(n):
                if waiting[lane] != 0:
                    continue
                active += 1
                for j in range(2):
                    t_in = arrive(w, st, ins[2 * lane + j], t_in)
                    if t_in == NOT_YET:
                        return RC_IN
                if hkind(w, ins[2 * lane]) != hkind(w, ins[2 * lane + 1]):
                    return fail(st, ERR_TOKEN, w, ins[2 * lane + 1], 2 * lane + 1)
            if active > 0:
                a = fire(st, t_in, t_in)
                for lane in range(n):
                    if waiting[lane] != 0:
                        continue
                    c = ins[2 * lane]
                    k = hkind(w, c)
                    if k == DATA:
                        crds[st[COUNT]] = hdata(w, c)
                        vals[st[COUNT]] = hval(w, ins[2 * lane + 1])
                        st[COUNT] += 1
                    elif k == STOP:
                        if hdata(w, c) >= 1:
                            waiting[lane] = hdata(w, c)
                    elif k == DONE:
                        waiting[lane] = AT_DONE
                        continue  # the done token stays until every lane is done
                    pop(w, c, t_in)
                    pop(w, ins[2 * lane + 1], t_in)
                continue
            level = waiting[0]
            for lane in range(n):
                if waiting[lane] != level:
                    return fail(st, ERR_STOP, w, ins[2 * lane], 2 * lane)
            if level == AT_DONE:
                t_out = reserve_all(w, st, optr, ochan, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, 0, DONE, 0, a)
                push(w, optr, ochan, 1, DONE, 0, a)
                for lane in range(n):
                    pop(w, ins[2 * lane], t_out)
                    pop(w, ins[2 * lane + 1], t_out)
                st[STATUS] = 1
                continue
            # The group is complete: sort and sum its points.
            cnt = st[COUNT]
            if outc.shape[0] < cnt + 1:
                return need_memory(st, 2)
            if outv.shape[0] < cnt + 1:
                return need_memory(st, 5)
            nout = _merge_points(crds, vals, cnt, outc, outv)
            st[NOUT] = nout
            st[EMITTED] = 0
            st[CLOSEK] = level - 1
            st[COUNT] = 0
            for lane in range(n):
                waiting[lane] = 0
            st[R_PHASE] = EMIT
            continue
        if st[R_PHASE] == EMIT:
            if st[NOUT] == 0:
                st[R_PHASE] = CLOSE
                continue
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            if st[R_PEND] == 1:  # the previous fiber's close: another fiber follows
                push(w, optr, ochan, 0, STOP, 0, a)
                push(w, optr, ochan, 1, STOP, 0, a)
                st[R_PEND] = 0
                continue
            e = st[EMITTED]
            pushv(w, optr, ochan, 0, DATA, outv[e], a)
            push(w, optr, ochan, 1, DATA, outc[e], a)
            st[EMITTED] = e + 1
            if e + 1 == st[NOUT]:
                st[R_PHASE] = CLOSE
                st[STARTED] = 1
            continue
        # CLOSE: a group closed by F(0) owes S0 until the next fiber or a higher stop.
        k = st[CLOSEK]
        if k == 0:
            if st[NOUT] > 0:
                st[R_PEND] = 1
            st[R_PHASE] = GATHER
            continue
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        a = fire(st, t_in, t_out)
        push(w, optr, ochan, 0, STOP, k, a)
        push(w, optr, ochan, 1, STOP, k, a)
        st[R_PEND] = 0
        st[R_PHASE] = GATHER
    return RC_DONE


@jitable
def _merge_points(crds, vals, cnt, outc, outv):
    """Sort the ``cnt`` gathered points by coordinate into ``outc``/``outv``, summing repeats;
    the number of distinct coordinates."""
    if cnt == 0:
        return 0
    order = np.argsort(crds[:cnt], kind="mergesort")
    nout = 0
    for j in range(cnt):
        p = order[j]
        if nout > 0 and outc[nout - 1] == crds[p]:
            outv[nout - 1] += vals[p]
        else:
            outc[nout] = crds[p]
            outv[nout] = vals[p]
            nout += 1
    return nout


def _int_attr(block: Block, name: str, default: int | None = None, low: int = 0) -> int:
    raw = block.attrs.get(name)
    if raw is None or raw == "":
        if default is None:
            raise GraphError(f"node {block.id} ({block.dot_type}) lacks attribute {name}; "
                             f"add {name}=\"<integer>\"")
        return default
    try:
        value = int(raw)
    except ValueError:
        value = low - 1
    if value < low:
        raise GraphError(f"node {block.id} ({block.dot_type}): {name}={raw!r} is not an "
                         f"integer >= {low}")
    return value


def _lane_number(name: str, prefix: str) -> int | None:
    """K of a port name ``PREFIX + K`` (``crd:lane3`` -> 3), or None."""
    digits = name[len(prefix):] if name.startswith(prefix) else ""
    return int(digits) if digits.isdigit() and str(int(digits)) == digits else None


@lru_cache(maxsize=256)
def _lane_ports(kind: str, lanes: int, optional: bool) -> tuple[Port, ...]:
    """The ports ``KIND:lane0`` ... of ``lanes`` lanes (built once per shape: elaborating a
    graph of 16 lanes lists a serializer's inputs once per input channel)."""
    return tuple(Port(kind, f"lane{lane}", optional=optional) for lane in range(lanes))


class _LaneBlock(Block):
    """Shared attributes: ``lanes`` (n >= 1), ``kind`` (crd, ref or val), ``depth``, ``mode``."""

    family = "lanes"
    state = LANES
    errors = ERRORS
    required_attrs = ("lanes",)
    modes: tuple[str, ...] = ()
    default_mode = ""

    @property
    def lanes(self) -> int:
        return _int_attr(self, "lanes", low=1)

    @property
    def kind(self) -> str:
        kind = self.attrs.get("kind", "crd")
        if kind not in ("crd", "ref", "val"):
            raise GraphError(f"node {self.id} ({self.dot_type}): kind={kind!r}; use crd, ref "
                             f"or val")
        return kind

    @property
    def mode(self) -> str:
        mode = self.attrs.get("mode", self.default_mode)
        if mode not in self.modes:
            raise GraphError(f"node {self.id} ({self.dot_type}): mode={mode!r}; use one of "
                             f"{', '.join(self.modes)}")
        return mode

    @property
    def depth(self) -> int:
        return _int_attr(self, "depth", 0)

    def label(self) -> str:
        return f"{self.dot_type} x{self.attrs.get('lanes', '?')} {self.attrs.get('mode', '')}"

    #: the side of the lane ports ("out" for a parallelizer, "in" for a serializer)
    lane_side = ""

    def port_named(self, direction: str, name: str) -> Port | None:
        """``KIND:laneK`` without listing the ``lanes`` lane ports (a graph of n lanes connects
        n of them: linear, not quadratic, in n)."""
        lane = _lane_number(name, f"{self.kind}:lane")
        if direction == self.lane_side and lane is not None:
            return Port(self.kind, f"lane{lane}", optional=direction == "out") \
                if lane < self.lanes else None
        return super().port_named(direction, name)

    def memories(self, tensors) -> dict[str, np.ndarray]:
        return {self.kernel.memories[0]: np.zeros(self.lanes, np.int64)}


class Parallelizer(_LaneBlock):
    """Parallelizer (Sec. 4.4): a stream's elements dealt over ``lanes`` outputs; DOT type
    ``parallelize``. Ports: ``KIND:in`` (+ ``crd:order`` with ``mode=order``) in; ``KIND:lane0``
    ... out, and ``crd:order`` (the lanes chosen) with ``mode=rr|range``."""

    dot_type = "parallelize"
    kernel = parallelize
    lane_side = "out"
    modes = ("rr", "range", "order")
    default_mode = "rr"

    def inputs(self) -> list[Port]:
        ports = [Port(self.kind, "in")]
        return ports + ([Port("crd", "order")] if self.mode == "order" else [])

    def outputs(self) -> list[Port]:
        ports = list(_lane_ports(self.kind, self.lanes, True))
        return ports + ([Port("crd", "order", optional=True)] if self.mode != "order" else [])

    def params(self, tensors) -> dict[str, int]:
        mode = self.mode
        if mode != "order" and self.depth != 0:
            raise GraphError(f"node {self.id} ({self.dot_type}): mode={mode} deals depth-0 "
                             f"elements; give depth=0 or follow an order (mode=order)")
        size = 1
        if mode == "range":
            if self.kind != "crd":
                raise GraphError(f"node {self.id} ({self.dot_type}): mode=range splits "
                                 f"coordinates; give kind=crd")
            size = self.range_size(tensors)
        return {"lanes": self.lanes, "mode": MODES[mode], "depth": self.depth,
                "isval": int(self.kind == "val"), "size": size}

    def range_size(self, tensors) -> int:
        """The coordinate range split into ``lanes`` parts: ``size``, or dimension ``dim`` of
        ``tensor``."""
        if self.attrs.get("size"):
            return _int_attr(self, "size", low=1)
        name = self.attrs.get("tensor")
        if not name or name not in tensors:
            raise GraphError(f"node {self.id} ({self.dot_type}): mode=range needs size=N or "
                             f"tensor=T dim=K (a bound tensor's dimension)")
        dim = _int_attr(self, "dim", 0)
        shape = tensors[name].shape
        if dim >= len(shape):
            raise GraphError(f"node {self.id} ({self.dot_type}): {name} has no dimension {dim}")
        return max(1, int(shape[dim]))

    def reads(self) -> list[str]:
        return []


class Serializer(_LaneBlock):
    """Serializer (Sec. 4.4): the lanes joined back into one stream; DOT type ``serialize``.
    Ports: ``KIND:lane0`` ... (+ ``crd:order`` with ``mode=order``) in; ``KIND:out`` and, with
    ``mode=crd``, ``crd:order`` out."""

    dot_type = "serialize"
    kernel = serialize
    lane_side = "in"
    modes = ("order", "crd")
    default_mode = "order"

    def inputs(self) -> list[Port]:
        ports = list(_lane_ports(self.kind, self.lanes, False))
        return ports + ([Port("crd", "order")] if self.mode == "order" else [])

    def outputs(self) -> list[Port]:
        ports = [Port(self.kind, "out", optional=True)]
        return ports + ([Port("crd", "order", optional=True)] if self.mode == "crd" else [])

    def unbounded_inputs(self) -> list[str]:
        """The lanes and the order are the serializer's reorder queues: never bounded (a
        bounded join of lanes of different lengths deadlocks; docs/lanes.md)."""
        return [p.name for p in self.inputs()]

    def params(self, tensors) -> dict[str, int]:
        mode = self.mode
        if mode == "crd" and (self.depth != 0 or self.kind != "crd"):
            raise GraphError(f"node {self.id} ({self.dot_type}): mode=crd merges depth-0 "
                             f"coordinate streams; give kind=crd depth=0 or use mode=order")
        return {"lanes": self.lanes, "mode": MODES[mode], "depth": self.depth,
                "isval": int(self.kind == "val")}


class LaneReducer(Block):
    """n-input vector reducer (Gamma's merger, Sec. 6.5); DOT type ``lanereduce``. Ports:
    ``crd:in0``, ``val:in0``, ... in; ``val``, ``crd`` out."""

    dot_type = "lanereduce"
    family = "reduce"
    kernel = lanereduce
    state = REDUCE
    errors = ERRORS
    required_attrs = ("lanes",)

    @property
    def lanes(self) -> int:
        return _int_attr(self, "lanes", low=1)

    def inputs(self) -> list[Port]:
        ports = []
        for lane in range(self.lanes):
            ports += [Port("crd", f"in{lane}"), Port("val", f"in{lane}")]
        return ports

    def outputs(self) -> list[Port]:
        return [Port("val", optional=True), Port("crd", "out", optional=True)]

    def port_named(self, direction: str, name: str) -> Port | None:
        """``crd:inK``/``val:inK`` without listing every lane's ports."""
        for kind in ("crd", "val"):
            lane = _lane_number(name, f"{kind}:in")
            if direction == "in" and lane is not None:
                return Port(kind, f"in{lane}") if lane < self.lanes else None
        return super().port_named(direction, name)

    def params(self, tensors) -> dict[str, int]:
        return {"lanes": self.lanes}

    def unbounded_inputs(self) -> list[str]:
        """Its lane inputs are the merger's queues: never bounded (as the serializer's)."""
        return [p.name for p in self.inputs()]

    def memories(self, tensors) -> dict[str, np.ndarray]:
        return {"crds": np.zeros(INITIAL_LENGTH, np.int64),
                "waiting": np.zeros(self.lanes, np.int64),
                "outc": np.zeros(INITIAL_LENGTH, np.int64),
                "vals": np.zeros(INITIAL_LENGTH, np.float64),
                "outv": np.zeros(INITIAL_LENGTH, np.float64)}

    def label(self) -> str:
        return f"lanereduce x{self.attrs.get('lanes', '?')}"
