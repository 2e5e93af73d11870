"""Reducers (SAM paper Def. 3.7, Figure 7): sum repeated points of an n-dimensional sub-tensor.

* n = 0, the **scalar reducer** (DOT type ``reduce``): sums each innermost fiber of a value
  stream into one value; an input stop ``Sn`` (n >= 1) also closes outer fibers and comes out as
  ``S(n-1)`` after the sum (one cycle later). A fiber of empty values only (``N``: a union's
  coordinates where every operand is absent, e.g. a dense iteration for a broadcast operand)
  sums to 0: it has coordinates, so the coordinate droppers keep the point above it.
* n >= 1, the **vector / matrix / order-n reducers** (DOT type ``spaccumulator`` with ``order=n``):
  take the coordinate stream(s) of the kept index variable(s) (attributes ``in0`` = innermost,
  ``in1``) and the value stream, accumulate every point of one group (all fibers until a stop
  that closes the reduced level) in an internal sparse store, then emit the group with sorted,
  unique coordinates and summed values (Gustavson's row merge).

Empty fibers, from ineffectual intersections, are configurable (``empty`` attribute, an
extension of the Custard schema): ``drop`` (default, as Table 1 assumes) removes them,
``keep`` emits them as empty fibers (a coordinate dropper downstream cleans them), and for n = 0
``zero`` emits an explicit 0, and ``outer`` takes the coordinate stream of the level above and
emits exactly one value per coordinate (0 for an empty fiber), which keeps the sums aligned with
that level where a value stream alone is ambiguous. Other coordinate inputs (the Custard
schema feeds the reduced variable's stream too) are consumed and ignored.

The order-n kernel follows the accumulator's phases, one helper each: *gather* the group's
points (``_gather``: the kept levels' coordinates and the values, one token per firing), *sort
and merge* them once a stop closes the reduced level (``_merge_group``: sorted coordinates,
repeated points summed), *emit* them (``_emit``) and *close* the group (``_close``: its stops,
or nothing for an empty group dropped).

Timing: one input token per cycle while accumulating; one output token per cycle while emitting
(sorting the internal store is not modeled as extra cycles). ``--timing original``
(docs/timing-model.md, rule 9) charges the order-n reducer for points only and emits beside
gathering, as the original simulator does.

Compatibility with the original's graphs: an accumulator whose inputs come from the original's
``crdhold`` (edge comments ``outer-i``, ``inner-j``) reads *point streams*, every kept coordinate
once per point (:func:`_gather_points`), and an order-1 one keeps its ``in1`` variable too and
emits a row whenever that held coordinate changes (the original's ``SparseAccumulator1``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from formats.tensor import Tensor
from sam.blocks.base import INITIAL_LENGTH, Block, Memories, Port, Ports
from sam.errors import GraphError
from sam.runtime.burst import (
    NONNEG,
    account,
    burst_room,
    bursts_on,
    commit,
    commit_stops,
    fan_out,
    first_channel,
    put_row,
    ring_mask,
)
from sam.runtime.jit import jitable
from sam.runtime.kernel import (
    AGAIN,
    NOT_YET,
    State,
    arrive,
    blocked,
    fail,
    fire,
    kernel,
    need_memory,
    reserve_all,
    wait_until,
)
from sam.runtime.tokens import DATA, DONE, EMPTY, STOP
from sam.runtime.wires import (
    BUSY,
    LAT,
    PATH_RUNS,
    RC_DONE,
    RC_IN,
    STATUS,
    WAIT,
    T,
    hdata,
    hkind,
    hval,
    pop,
    push,
    pushv,
    ready,
)

#: What becomes of empty fibers (the ``empty`` attribute; ``outer`` picks another kernel).
DROP, KEEP, ZERO = 0, 1, 2
EMPTY_MODES = {"drop": DROP, "keep": KEEP, "zero": ZERO}
ERR_ALIGN, ERR_TAIL, ERR_STOP = 1, 2, 3
#: Every reducer's values, then coordinates: the outer level's for ``empty=outer``; for an
#: order-n reducer a run, the kept levels' (innermost first) and then ignored ones. Out: the
#: values (sums), then an order-n reducer's coordinates of its kept levels (innermost first).
REDUCE_IN = Ports.inputs(val=Port("val"), crd=Port("crd"))
VAL_IN, CRD_IN = REDUCE_IN.slots
REDUCE_OUT = Ports.outputs(val=Port("val"), crd=Port("crd", optional=True))
VAL_OUT, CRD_OUT = REDUCE_OUT.slots

# Scalar reducer state: the empty mode, whether the fiber had a value, a stop to emit after the
# sum (-1: none); the outer-driven reducer's phase, whether its outer fiber is still empty, and
# the level of the value stream's last stop. The running sum is a float slot.
OUTER, INNER = 0, 1
REDUCE = State(mode=DROP, seen=0, pend=-1, phase=INNER, fresh=1, lastn=0)
R_MODE, R_SEEN, R_PEND, O_PHASE, O_FRESH, O_LASTN = REDUCE.slots
SUMS = State.floats(sum=0.0)
(R_SUM,) = SUMS.slots


@jitable(inline=True)
def scalar_burst(w, st, fst, optr, ochan, c):
    """:func:`reduce_scalar`'s firings in one loop, its state in local variables
    (:mod:`sam.runtime.burst`: unbounded FIFOs, each firing in the cycle its input arrives), as far
    as the input and the output ring go; a done token takes the general path. The firings
    made."""
    if w.depth[c] > 0:
        return 0
    room = burst_room(w, st, ochan)
    if room == 0:
        return 0
    mask = ring_mask(w)
    kc, dc, vc, tc = w.kind[c], w.data[c], w.fdata[c], w.time[c]
    o = first_channel(optr, ochan, VAL_OUT)
    ko = w.kind[o if o >= 0 else c]  # the rows of the first output channel
    do = w.data[o if o >= 0 else c]
    vo = w.fdata[o if o >= 0 else c]
    to = w.time[o if o >= 0 else c]
    tail = w.tail[o] if o >= 0 else 0
    h = w.head[c]
    e = w.tail[c]
    total = fst[R_SUM]
    seen = st[R_SEEN]
    pend = st[R_PEND]
    zero = st[R_MODE] == ZERO
    t = st[T]
    lat = st[LAT]
    idle = 0
    first = -1
    fired = 0
    m = 0  # tokens out, stops among them
    nstop = 0
    while m < room:
        if pend >= 0:  # the stop owed after a sum
            t_in = t
            m = put_row(o >= 0, ko, do, to, tail, m, STOP, pend, t + lat, mask)
            nstop += 1
            pend = -1
        else:
            if h >= e:
                break
            q = h & mask
            k = kc[q]
            t_in = tc[q] if tc[q] > t else t
            if k == DATA or k == EMPTY:  # an empty value (N) still stands for a coordinate
                if k == DATA:
                    total += vc[q]
                seen = 1
            elif k == STOP:
                n = dc[q]
                if seen == 1 or zero:
                    if o >= 0:
                        p = (tail + m) & mask
                        ko[p] = DATA
                        vo[p] = total
                        to[p] = t_in + lat
                    m += 1
                    if n >= 1:
                        pend = n - 1
                elif n >= 1:
                    m = put_row(o >= 0, ko, do, to, tail, m, STOP, n - 1, t_in + lat, mask)
                    nstop += 1
                total = 0.0
                seen = 0
            else:
                break
            h += 1
        if first < 0:
            first = t_in
        idle += t_in - t
        t = t_in + 1
        fired += 1
    if fired > 0:
        w.head[c] = h
        fan_out(w, optr, ochan, VAL_OUT, m)
        commit_stops(w, optr, ochan, VAL_OUT, m, nstop)
        account(st, first, t - 1, idle, fired)
        fst[R_SUM] = total
        st[R_SEEN] = seen
        st[R_PEND] = pend
    return fired


@kernel
def reduce_scalar(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Scalar reducer (n = 0): sum of each innermost fiber of the values."""
    c = ins[VAL_IN]
    while st[STATUS] == 0:
        if scalar_burst(w, st, fst, optr, ochan, c) > 0:
            continue
        t = st[T]
        if st[R_PEND] >= 0:
            t_out = reserve_all(w, st, optr, ochan, t)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t, t_out)
            push(w, optr, ochan, VAL_OUT, STOP, st[R_PEND], a)
            st[R_PEND] = -1
            continue
        t_in = arrive(w, st, c, t)
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, c)
        if k == DATA or k == EMPTY:  # an empty value (N) still stands for a coordinate
            if k == DATA:
                fst[R_SUM] += hval(w, c)
            st[R_SEEN] = 1
            fire(st, t_in, t_in)
            pop(w, c, t_in)
            continue
        if k == DONE and st[R_SEEN] == 1:
            return fail(st, ERR_TAIL, w, c, VAL_IN)
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        n = hdata(w, c)
        a = fire(st, t_in, t_out)
        pop(w, c, t_out)
        if k == DONE:
            push(w, optr, ochan, VAL_OUT, DONE, 0, a)
            st[STATUS] = 1
            continue
        emit = st[R_SEEN] == 1 or st[R_MODE] == ZERO
        if emit:
            pushv(w, optr, ochan, VAL_OUT, DATA, fst[R_SUM], a)
            if n >= 1:
                st[R_PEND] = n - 1
        elif n >= 1:
            push(w, optr, ochan, VAL_OUT, STOP, n - 1, a)
        fst[R_SUM] = 0.0
        st[R_SEEN] = 0
    return RC_DONE


@kernel
def reduce_outer(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Scalar reducer driven by the coordinates of the level above (its ``crd`` input).

    Emits exactly one value per outer coordinate (the sum of its fiber; 0 when that fiber is
    empty) and the outer stream's stop tokens, so its output is aligned with the outer level
    even where a value stream alone is ambiguous (an empty outer fiber and an outer fiber with
    one empty inner fiber both read ``S1``).
    """
    cv = ins[VAL_IN]
    co = ins[CRD_IN]
    while st[STATUS] == 0:
        t = st[T]
        if st[O_PHASE] == INNER:
            t_in = arrive(w, st, cv, t)
            if t_in == NOT_YET:
                return RC_IN
            k = hkind(w, cv)
            if k == DATA or k == EMPTY:
                if k == DATA:
                    fst[R_SUM] += hval(w, cv)
                fire(st, t_in, t_in)
                pop(w, cv, t_in)
                continue
            if k != STOP:
                return fail(st, ERR_ALIGN, w, cv, VAL_IN)
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            pushv(w, optr, ochan, VAL_OUT, DATA, fst[R_SUM], a)
            fst[R_SUM] = 0.0
            st[O_LASTN] = hdata(w, cv)
            pop(w, cv, t_out)
            st[O_PHASE] = OUTER
            continue
        t_in = arrive(w, st, co, t)
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, co)
        fresh = st[O_FRESH] == 1
        if k == DATA:
            if not fresh and st[O_LASTN] != 0:
                return fail(st, ERR_STOP, w, co, CRD_IN)
            fire(st, t_in, t_in)
            pop(w, co, t_in)
            st[O_FRESH] = 0
            st[O_PHASE] = INNER
            continue
        if k == EMPTY:
            return fail(st, ERR_STOP, w, co, CRD_IN)
        m = hdata(w, co)
        if fresh or k == DONE:
            # An empty outer fiber: the value stream marks it with S(m+1) (or ends).
            t_in = arrive(w, st, cv, t_in)
            if t_in == NOT_YET:
                return RC_IN
            kv = hkind(w, cv)
            if kv != k or (k == STOP and hdata(w, cv) != m + 1):
                return fail(st, ERR_ALIGN, w, cv, VAL_IN)
        elif st[O_LASTN] != m + 1:
            return fail(st, ERR_STOP, w, co, CRD_IN)
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        a = fire(st, t_in, t_out)
        push(w, optr, ochan, VAL_OUT, k, m, a)
        pop(w, co, t_out)
        if fresh or k == DONE:
            pop(w, cv, t_out)
        st[O_FRESH] = 1
        if k == DONE:
            st[STATUS] = 1
    return RC_DONE


# Order-n reducer (sparse accumulator) state. Gathering reads the kept levels' streams one token
# at a time: ``level`` is the level read next; the memory ``cur`` (2n entries, so any order n
# fits) holds the current coordinate of every level d at ``cur[d]`` and at ``cur[n + d]`` a 1
# while level d's fiber is still empty; ``expect`` is 1 right after a
# fiber ended inside its parent (a coordinate must follow), ``npts`` counts the group's points.
# A complete group is sorted and merged into ``m`` points, emitted one per firing (``k``: the next
# one; ``stops``: the stops before it are out), then closed at level ``g``; ``held`` is a closing
# held back until the next group shows whether an empty group raises it (-1: none).
GATHER, MERGE, EMIT, CLOSE = 0, 1, 2, 3
ROW = -2  # ``held``: a row of the original's order-1 accumulator ended (its S0 goes out next)
ACCUMULATE = State(n=1, mode=DROP, nextra=0, phase=GATHER, level=0, npts=0, m=0, k=0, stops=0,
                   g=0, held=-1, expect=0, points=0, orig=0, emit_t=0, rows=0)
(A_N, A_MODE, A_NEXTRA, A_PHASE, A_LEVEL, A_NPTS, A_M, A_K, A_STOPS, A_G, A_HELD,
 A_EXPECT, A_POINTS, A_ORIG, A_EMIT_T, A_ROWS) = ACCUMULATE.slots


@jitable(inline=True)
def _reset_fresh(cur, n):
    """A new group: only the outermost kept level's fiber is open (and empty)."""
    for d in range(n - 1):
        cur[n + d] = 0
    cur[2 * n - 1] = 1


@jitable
def _push_stops(w, optr, ochan, n, top, a):
    """Stop tokens closing the top output level at ``top`` (and every level below it)."""
    for d in range(n):
        push(w, optr, ochan, CRD_OUT + d, STOP, top + n - 1 - d, a)
    push(w, optr, ochan, VAL_OUT, STOP, top + n - 1, a)


@jitable
def _take(st, t_in, free):
    """Take a gathered token: a firing, or none under ``--timing original`` when ``free``."""
    if free:
        wait_until(st, t_in)  # the original's CrdHold and stop droppers run beside it
    else:
        fire(st, t_in, t_in)


@jitable
def _out_start(st):
    """The earliest cycle of the next emit/close firing: after the previous firing, or under
    ``--timing original`` on the emission clock, which runs beside gathering (the original's
    accumulator emits a finished row while it takes the next row's points)."""
    if st[A_ORIG] == 1:
        return st[A_EMIT_T]
    return st[T]


@jitable
def _out_fire(st, t, t_out):
    """Account an emit/close firing (see :func:`_out_start`); return the arrival cycle."""
    if st[A_ORIG] == 1:
        st[A_EMIT_T] = t_out + 1
        st[BUSY] += 1
        return t_out + st[LAT]
    return fire(st, t, t_out)


# --------------------------------------------------------------------------- gather points
@jitable
def _drain_ignored(w, ins, n, n_ignored):
    """Consume the ignored coordinate inputs as they come, up to their done token (they have no
    timing effect)."""
    for x in range(n_ignored):
        cx = ins[CRD_IN + n + x]
        while ready(w, cx) and hkind(w, cx) != DONE:
            pop(w, cx, 0)


@jitable(inline=True)
def _gather(w, st, ins, optr, ochan, n, pts, where, vals, cur):
    """Gather phase: take the next token of the current level (with the value at level 0)."""
    lv = st[A_LEVEL]
    cv = ins[VAL_IN]
    c = ins[CRD_IN + lv]
    t_in = arrive(w, st, c, st[T])
    if t_in == NOT_YET:
        return RC_IN
    kc = hkind(w, c)
    if lv == 0 or kc != DATA:
        t_in = arrive(w, st, cv, t_in)
        if t_in == NOT_YET:
            return RC_IN
    if kc == DATA:
        return _gather_coordinate(w, st, ins, n, lv, t_in, pts, where, vals, cur)
    if kc == EMPTY:
        return fail(st, ERR_ALIGN, w, c, CRD_IN + lv)
    if kc == DONE:
        return _gather_done(w, st, ins, optr, ochan, n, lv, t_in)
    return _gather_stop(w, st, ins, n, lv, t_in, cur)


@jitable(inline=True)
def _gather_burst(w, st, ins, pts, where, vals, cur):
    """Vector reducer (n = 1), innermost level: gather a run of (coordinate, value) points in
    one loop, as :func:`_gather_coordinate` does one per firing, and take the ``S0`` stops
    between the fibers of a group, as :func:`_gather_stop` does (:mod:`sam.runtime.burst`); the
    firings made. Anything else (a stop closing the group, a full store, a bounded FIFO,
    ``--timing original``) takes the general path."""
    cv = ins[VAL_IN]
    c = ins[CRD_IN]
    if not bursts_on(st) or w.depth[cv] > 0 or w.depth[c] > 0:
        return 0
    st[PATH_RUNS] += 1  # a burst may run (tests/test_paths.py)
    n = w.tail[c] - w.head[c]
    if w.tail[cv] - w.head[cv] < n:
        n = w.tail[cv] - w.head[cv]
    mask = ring_mask(w)
    hc = w.head[c]
    hv = w.head[cv]
    kc = w.kind[c]
    dc = w.data[c]
    tc = w.time[c]
    kv_ = w.kind[cv]
    dv = w.data[cv]
    vv = w.fdata[cv]
    tv = w.time[cv]
    # an S0 between fibers: the general path's firing, when nothing else is pending
    stops = st[A_EXPECT] == 0 and st[A_ORIG] == 0
    size = where.shape[0]
    room = pts.shape[0] if pts.shape[0] < vals.shape[0] else vals.shape[0]
    fresh = cur[1]
    t_start = st[T]
    t = t_start
    npts = st[A_NPTS]
    m = 0
    while m < n:
        sc = (hc + m) & mask
        sv = (hv + m) & mask
        kv = kv_[sv]
        if kc[sc] == DATA:
            if kv != DATA and kv != EMPTY:
                break
            x = dc[sc]
            if x < 0 or x >= size or npts >= room:
                break
            v = vv[sv] if kv == DATA else 0.0
            x = x & NONNEG
            p = where[x]
            if p == 0:  # a new coordinate: point npts
                where[x] = npts + 1
                pts[npts & NONNEG] = x
                vals[npts & NONNEG] = v
                npts += 1
            else:
                vals[(p - 1) & NONNEG] += v
            fresh = 0
        elif kc[sc] == STOP and stops and dc[sc] == 0 and kv == STOP and dv[sv] == 0:
            fresh = 1
        else:
            break
        ta = tc[sc]
        if tv[sv] > ta:
            ta = tv[sv]
        if ta > t:
            t = ta
        t += 1
        m += 1
    if m > 0:
        w.head[c] = hc + m
        w.head[cv] = hv + m
        st[A_NPTS] = npts
        cur[1] = fresh
        st[A_EXPECT] = 0
        t0 = tc[hc & mask]  # the first firing's cycle; every cycle not firing was idle
        if tv[hv & mask] > t0:
            t0 = tv[hv & mask]
        if t0 < t_start:
            t0 = t_start
        account(st, t0, t - 1, t - t_start - m, m)
    return m


@jitable(inline=True)
def _gather_coordinate(w, st, ins, n, lv, t_in, pts, where, vals, cur):
    """A coordinate of level ``lv``: at level 0 a point of the group (with its value), above it
    the current coordinate of its level."""
    cv = ins[VAL_IN]
    c = ins[CRD_IN + lv]
    x = hdata(w, c)
    if lv == 0:
        kv = hkind(w, cv)
        if kv != DATA and kv != EMPTY:
            return fail(st, ERR_ALIGN, w, cv, VAL_IN)
        npts = st[A_NPTS]
        if (npts + 1) * n > pts.shape[0] or npts + 1 > vals.shape[0]:
            return need_memory(st, PTS)
        v = hval(w, cv) if kv == DATA else 0.0
        if n == 1:
            # Vector reducer: a dense index of the group's distinct coordinates.
            if x < 0:
                return fail(st, ERR_ALIGN, w, c, CRD_IN)
            if x >= where.shape[0]:
                return need_memory(st, WHERE)
            if where[x] == 0:
                where[x] = npts + 1
                pts[npts] = x
                vals[npts] = v
                st[A_NPTS] = npts + 1
            else:
                vals[where[x] - 1] += v
        else:
            cur[0] = x
            for d in range(n):
                pts[npts * n + d] = cur[d]
            vals[npts] = v
            st[A_NPTS] = npts + 1
        fire(st, t_in, t_in)
        pop(w, cv, t_in)
    else:
        cur[lv] = x
        st[A_LEVEL] = lv - 1
        cur[n + lv - 1] = 1
        _take(st, t_in, st[A_ORIG] == 1)
    cur[n + lv] = 0
    st[A_EXPECT] = 0
    pop(w, c, t_in)
    return AGAIN


@jitable(inline=True)
def _gather_done(w, st, ins, optr, ochan, n, lv, t_in):
    """The done token: every input must end here, after a complete group; a held closing goes
    out first."""
    cv = ins[VAL_IN]
    c = ins[CRD_IN + lv]
    n_ignored = st[A_NEXTRA]
    if lv != n - 1:
        return fail(st, ERR_STOP, w, c, CRD_IN + lv)
    for d in range(n):
        t_in = arrive(w, st, ins[CRD_IN + d], t_in)
        if t_in == NOT_YET:
            return RC_IN
        if hkind(w, ins[CRD_IN + d]) != DONE:
            return fail(st, ERR_STOP, w, ins[CRD_IN + d], CRD_IN + d)
    if hkind(w, cv) != DONE:
        return fail(st, ERR_ALIGN, w, cv, VAL_IN)
    if st[A_NPTS] > 0:
        return fail(st, ERR_TAIL, w, c, CRD_IN + lv)
    for q in range(n_ignored):
        cx = ins[CRD_IN + n + q]
        if not ready(w, cx):
            st[WAIT] = cx
            return RC_IN
    if st[A_ORIG] == 1 and st[A_EMIT_T] > t_in:
        t_in = st[A_EMIT_T]  # the emission clock is behind: done goes out after it
    t_out = reserve_all(w, st, optr, ochan, t_in)
    if t_out < 0:
        return blocked(t_out)
    a = fire(st, t_in, t_out)
    if st[A_HELD] >= 0:
        _push_stops(w, optr, ochan, n, st[A_HELD], a)
        st[A_HELD] = -1
        return AGAIN
    for port in range(CRD_OUT + n):
        push(w, optr, ochan, port, DONE, 0, a)
    for d in range(n):
        pop(w, ins[CRD_IN + d], t_out)
    pop(w, cv, t_out)
    for q in range(n_ignored):
        pop(w, ins[CRD_IN + n + q], t_out)
    st[STATUS] = 1
    return AGAIN


@jitable(inline=True)
def _gather_stop(w, st, ins, n, lv, t_in, cur):
    """A stop ``Sx`` at level ``lv``: it may close parent levels too (their stops come with it),
    and an empty fiber's inner levels carry matching stops (``S(x+1)``, ...) to take. A stop
    that closes the reduced level completes the group."""
    cv = ins[VAL_IN]
    c = ins[CRD_IN + lv]
    x = hdata(w, c)
    if st[A_EXPECT] == 1:
        return fail(st, ERR_STOP, w, c, CRD_IN + lv)
    fresh = cur[n + lv]
    for d in range(lv + 1, min(lv + x, n - 1) + 1):
        t_in = arrive(w, st, ins[CRD_IN + d], t_in)
        if t_in == NOT_YET:
            return RC_IN
        if hkind(w, ins[CRD_IN + d]) != STOP or hdata(w, ins[CRD_IN + d]) != x - (d - lv):
            return fail(st, ERR_STOP, w, ins[CRD_IN + d], CRD_IN + d)
    if fresh == 1:
        for d in range(lv - 1, -1, -1):
            t_in = arrive(w, st, ins[CRD_IN + d], t_in)
            if t_in == NOT_YET:
                return RC_IN
            if hkind(w, ins[CRD_IN + d]) != STOP or hdata(w, ins[CRD_IN + d]) != x + (lv - d):
                return fail(st, ERR_STOP, w, ins[CRD_IN + d], CRD_IN + d)
    if lv == 0 or fresh == 1:
        if hkind(w, cv) != STOP or hdata(w, cv) != x + lv:
            return fail(st, ERR_ALIGN, w, cv, VAL_IN)
    _take(st, t_in, st[A_ORIG] == 1)
    pop(w, c, t_in)
    for d in range(lv + 1, min(lv + x, n - 1) + 1):
        pop(w, ins[CRD_IN + d], t_in)
    if fresh == 1:
        for d in range(lv - 1, -1, -1):
            pop(w, ins[CRD_IN + d], t_in)
    if lv == 0 or fresh == 1:
        pop(w, cv, t_in)
    top_stop = x - (n - 1 - lv)
    if top_stop < 0:
        st[A_LEVEL] = lv + x + 1  # the parent at that level goes on with its next coordinate
        st[A_EXPECT] = 1
        return AGAIN
    st[A_LEVEL] = n - 1
    _reset_fresh(cur, n)
    if top_stop >= 1:
        st[A_G] = top_stop - 1  # the group is complete: sort/merge it (no firing)
        st[A_PHASE] = MERGE
    return AGAIN


@jitable(inline=True)
def _gather_points(w, st, ins, optr, ochan, n, pts, vals):
    """Gather from point streams (the original's wiring: every kept level's coordinate held
    once per point by a ``crdhold``, aligned with the values). One firing per point; stop
    tokens are taken without a firing (the original drops them before its accumulator); the
    done token completes the one group, the whole result."""
    cv = ins[VAL_IN]
    t_in = arrive(w, st, cv, st[T])
    if t_in == NOT_YET:
        return RC_IN
    for d in range(n):
        t_in = arrive(w, st, ins[CRD_IN + d], t_in)
        if t_in == NOT_YET:
            return RC_IN
    kv = hkind(w, cv)
    for d in range(n):
        kc = hkind(w, ins[CRD_IN + d])
        if (kc == DATA) != (kv == DATA or kv == EMPTY) or (kc != DATA and kc != kv):
            return fail(st, ERR_ALIGN, w, ins[CRD_IN + d], CRD_IN + d)
    if kv == DATA or kv == EMPTY:
        npts = st[A_NPTS]
        outer = hdata(w, ins[CRD_IN + n - 1])
        if st[A_ROWS] == 1 and npts > 0 and pts[(npts - 1) * n + n - 1] != outer:
            # The original's order-1 accumulator: a new outer coordinate ends the row.
            st[A_G] = -1
            st[A_PHASE] = MERGE
            return AGAIN
        if (npts + 1) * n > pts.shape[0] or npts + 1 > vals.shape[0]:
            return need_memory(st, PTS)
        for d in range(n):
            pts[npts * n + d] = hdata(w, ins[CRD_IN + d])
        vals[npts] = hval(w, cv) if kv == DATA else 0.0
        st[A_NPTS] = npts + 1
        fire(st, t_in, t_in)
    elif kv == DONE:
        if st[A_NPTS] > 0:
            st[A_G] = 0
            st[A_PHASE] = MERGE
            return AGAIN
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        a = fire(st, t_in, t_out)
        if st[A_HELD] >= 0:
            _push_stops(w, optr, ochan, n, st[A_HELD], a)
            st[A_HELD] = -1
            return AGAIN
        for port in range(CRD_OUT + n):
            push(w, optr, ochan, port, DONE, 0, a)
        for q in range(st[A_NEXTRA]):
            pop(w, ins[CRD_IN + n + q], t_out)
        st[STATUS] = 1
    pop(w, cv, t_in)
    for d in range(n):
        pop(w, ins[CRD_IN + d], t_in)
    return AGAIN


# --------------------------------------------------------------------------- sort / merge
@jitable
def _merge_group(st, n, pts, opts, where, vals, ovals):
    """Sort/merge phase: the reduced level's fiber is over, so the group is complete: sort its
    points and sum repeated ones, then emit them (or just close the group). Part of the same
    cycle as the stop that completed the group (sorting is not modeled as extra cycles)."""
    if n == 1:
        m = _sort_distinct(pts, vals, st[A_NPTS], where, opts, ovals)
    else:
        m = _sort_points(pts, vals, st[A_NPTS], n, opts, ovals)
    st[A_M] = m
    if st[A_EMIT_T] < st[T]:
        st[A_EMIT_T] = st[T]
    st[A_K] = 0
    st[A_STOPS] = 0
    st[A_NPTS] = 0
    st[A_PHASE] = EMIT if m > 0 else CLOSE


@jitable
def _sort_points(pts, vals, npts, n, opts, ovals):
    """Sort points (n coordinates each, innermost first) lexicographically, outermost level
    most significant, and sum duplicates into opts/ovals; return the number of unique points."""
    if npts == 0:
        return 0
    perm = np.arange(npts)
    for d in range(n):  # least significant (innermost) first; stable sorts keep earlier keys
        keys = np.empty(npts, np.int64)
        for q in range(npts):
            keys[q] = pts[perm[q] * n + d]
        perm = perm[np.argsort(keys, kind="mergesort")]
    m = 0
    for q in range(npts):
        p = perm[q]
        same = m > 0
        if same:
            for d in range(n):
                if opts[(m - 1) * n + d] != pts[p * n + d]:
                    same = False
                    break
        if same:
            ovals[m - 1] += vals[p]
        else:
            for d in range(n):
                opts[m * n + d] = pts[p * n + d]
            ovals[m] = vals[p]
            m += 1
    return m


#: An order-1 group is sorted by reading its coordinate index in order when its coordinates
#: span fewer than this many slots per point (a comparison sort costs about 30 ns per point,
#: a slot of the index about 1 ns).
SCAN_SPAN = 16


@jitable
def _sort_distinct(pts, vals, npts, where, opts, ovals):
    """Order 1: the group's distinct coordinates (already summed) sorted; clears ``where``.

    ``where`` is a dense index of the coordinates (coordinate -> 1 + point index), so when the
    points span at most :data:`SCAN_SPAN` slots each, reading it in order sorts them in time
    linear in the span (no sort, no allocation); otherwise they are sorted by comparison."""
    if npts == 0:
        return 0
    lo = pts[0]
    hi = pts[0]
    for q in range(1, npts):
        x = pts[q]
        if x < lo:
            lo = x
        elif x > hi:
            hi = x
    if hi - lo < SCAN_SPAN * npts:
        # without a branch per slot: each slot writes point q, kept when the slot holds one
        # (q < npts until the last point, at hi; an empty slot reads vals[-1], overwritten)
        q = 0
        for x in range(lo, hi + 1):
            p = where[x]
            opts[q] = x
            ovals[q] = vals[p - 1]
            where[x] = 0
            q += 1 if p != 0 else 0
        return npts
    perm = np.argsort(pts[:npts], kind="mergesort")
    for q in range(npts):
        p = perm[q]
        opts[q] = pts[p]
        ovals[q] = vals[p]
        where[pts[p]] = 0
    return npts


# --------------------------------------------------------------------------- emit
@jitable(inline=True)
def _emit(w, st, optr, ochan, n, opts, ovals):
    """Emit phase: one firing emits the next point of the sorted group, after the held closing
    of the previous group (first point) or the stops closing the fibers it leaves."""
    k = st[A_K]
    t = _out_start(st)
    t_out = reserve_all(w, st, optr, ochan, t)
    if t_out < 0:
        return blocked(t_out)
    a = _out_fire(st, t, t_out)
    if k == 0 and st[A_HELD] == ROW:
        push(w, optr, ochan, CRD_OUT, STOP, 0, a)  # the previous row ends, the result goes on
        push(w, optr, ochan, VAL_OUT, STOP, 0, a)
        st[A_HELD] = -1
        return AGAIN
    if k == 0 and st[A_HELD] >= 0:
        _push_stops(w, optr, ochan, n, st[A_HELD], a)  # close the previous group
        st[A_HELD] = -1
        return AGAIN
    top = n - 1
    if k > 0:
        top = 0
        for d in range(n - 1, 0, -1):
            if opts[k * n + d] != opts[(k - 1) * n + d]:
                top = d
                break
        if top >= 1 and st[A_STOPS] == 0:
            # Close the fibers below the level where this point starts.
            for d in range(top):
                push(w, optr, ochan, CRD_OUT + d, STOP, top - 1 - d, a)
            push(w, optr, ochan, VAL_OUT, STOP, top - 1, a)
            st[A_STOPS] = 1
            return AGAIN
    for d in range(top + 1):
        push(w, optr, ochan, CRD_OUT + d, DATA, opts[k * n + d], a)
    pushv(w, optr, ochan, VAL_OUT, DATA, ovals[k], a)
    st[A_STOPS] = 0
    st[A_K] = k + 1
    if k + 1 == st[A_M]:
        st[A_PHASE] = CLOSE
    return AGAIN


@jitable(inline=True)
def _emit_run(w, optr, ochan, port, m, k, opts, ovals, a, values):
    """Write points ``k .. k + m - 1`` of a sorted group on ``port``, their coordinates
    (``opts``) or their ``values`` (``ovals``), one per cycle from cycle ``a``
    (:func:`_emit_burst`)."""
    o = first_channel(optr, ochan, port)
    if o < 0:
        return
    mask = ring_mask(w)
    tail = w.tail[o]
    ko = w.kind[o]
    do = w.data[o]
    vo = w.fdata[o]
    to = w.time[o]
    for j in range(m):
        s = (tail + j) & mask
        q = (k + j) & NONNEG
        ko[s] = DATA
        if values:
            vo[s] = ovals[q]
        else:
            do[s] = opts[q]
        to[s] = a + j
    fan_out(w, optr, ochan, port, m)


@jitable(inline=True)
def _emit_burst(w, st, optr, ochan, opts, ovals):
    """Vector reducer (n = 1): emit a run of the sorted group's points in one loop, one per
    cycle from the block's clock, as :func:`_emit` does one per firing (:mod:`sam.runtime.burst`;
    no input, and unbounded FIFOs never stall an output). The firings made. The held closing
    of the previous group, ``--timing original`` (its own emission clock), a bounded FIFO or a
    full ring take the general path."""
    k = st[A_K]
    if st[A_ORIG] == 1 or (k == 0 and st[A_HELD] != -1):
        return 0
    m = st[A_M] - k
    room = burst_room(w, st, ochan)
    if room < m:
        m = room
    if m <= 0:
        return 0
    t = st[T]
    a = t + st[LAT]
    _emit_run(w, optr, ochan, CRD_OUT, m, k, opts, ovals, a, False)
    _emit_run(w, optr, ochan, VAL_OUT, m, k, opts, ovals, a, True)
    commit(w, optr, ochan, CRD_OUT, DATA, m)
    commit(w, optr, ochan, VAL_OUT, DATA, m)
    account(st, t, t + m - 1, 0, m)
    st[A_STOPS] = 0
    st[A_K] = k + m
    if k + m == st[A_M]:
        st[A_PHASE] = CLOSE
    return m


@jitable(inline=True)
def _close(w, st, optr, ochan, n):
    """Close phase: the stops ending the group at level ``g``. With ``empty=drop`` they are held
    (a following empty group may raise their level), and an empty group disappears (Def. 3.7):
    only its outer closings remain."""
    t = _out_start(st)
    keep = st[A_MODE] == KEEP
    if keep or st[A_M] > 0:
        if not keep:
            st[A_HELD] = st[A_G] if st[A_G] >= 0 else ROW
            st[A_PHASE] = GATHER
            return AGAIN
        t_out = reserve_all(w, st, optr, ochan, t)
        if t_out < 0:
            return blocked(t_out)
        a = _out_fire(st, t, t_out)
        _push_stops(w, optr, ochan, n, st[A_G], a)
        st[A_PHASE] = GATHER
        return AGAIN
    g = st[A_G]
    h = st[A_HELD]
    if g >= 1 and h >= 1:
        t_out = reserve_all(w, st, optr, ochan, t)
        if t_out < 0:
            return blocked(t_out)
        a = _out_fire(st, t, t_out)
        _push_stops(w, optr, ochan, n, h, a)
        st[A_HELD] = g
    elif g >= 1:
        st[A_HELD] = g
    st[A_PHASE] = GATHER
    return AGAIN


@kernel
def accumulate(w, st, fst, ins, optr, ochan, pts, opts, where, cur, vals, ovals):
    """Order-n reducer (any n >= 1): see module docstring. Each loop iteration runs one step
    of the current phase: gather (a firing), sort/merge (no firing: part of the cycle of the stop
    that completed the group), emit or close (firings).

    Inputs (:data:`REDUCE_IN`): the values, ``CRD_IN + d`` the coordinates of kept level d
    (d = 0 innermost), then ignored streams. Outputs: the values, ``CRD_OUT + d`` the
    coordinates of level d. Memories: the group's points (n coordinates
    each) and values, and the sorted, summed group; for n = 1 the points are the distinct
    coordinates, summed on arrival through ``where`` (coordinate -> 1 + point index).
    """
    n = st[A_N]
    _drain_ignored(w, ins, n, st[A_NEXTRA])
    while st[STATUS] == 0:
        phase = st[A_PHASE]
        if (phase == GATHER and n == 1 and st[A_LEVEL] == 0 and st[A_POINTS] == 0
                and _gather_burst(w, st, ins, pts, where, vals, cur) > 0):
            continue
        if phase == EMIT and n == 1 and _emit_burst(w, st, optr, ochan, opts, ovals) > 0:
            continue
        if phase == GATHER and st[A_POINTS] == 1:
            rc = _gather_points(w, st, ins, optr, ochan, n, pts, vals)
        elif phase == GATHER:
            rc = _gather(w, st, ins, optr, ochan, n, pts, where, vals, cur)
        elif phase == MERGE:
            _merge_group(st, n, pts, opts, where, vals, ovals)
            continue
        elif phase == EMIT:
            rc = _emit(w, st, optr, ochan, n, opts, ovals)
        else:
            rc = _close(w, st, optr, ochan, n)
        if rc != AGAIN:
            return rc
    return RC_DONE


#: The accumulator's memories it asks to grow (RC_GROW): the point store (the sorted store and
#: both value arrays grow with it) and the order-1 coordinate index.
PTS, OPTS, WHERE, VALS, OVALS = (accumulate.memory(m) for m in
                                 ("pts", "opts", "where", "vals", "ovals"))


class Reducer(Block):
    """Scalar reducer, n = 0 (Def. 3.7); DOT type ``reduce``."""

    dot_type = "reduce"
    family = "reduce"
    state = REDUCE
    float_state = SUMS
    errors = {
        ERR_TAIL: "values after the last stop token (the fiber is never closed)",
        ERR_ALIGN: "the value stream does not line up with the outer coordinates",
        ERR_STOP: "the outer coordinate stream's stop tokens do not match the values",
    }

    @property
    def by_outer(self) -> bool:
        """``empty=outer`` (our extension): one value per coordinate of the ``crd`` input."""
        return self.attrs.get("empty") == "outer"

    @property
    def kernel(self):  # type: ignore[override]
        return reduce_outer if self.by_outer else reduce_scalar

    def inputs(self) -> list[Port]:
        ports = REDUCE_IN.ports()
        return ports if self.by_outer else ports[:CRD_IN]

    def outputs(self) -> list[Port]:
        return REDUCE_OUT.ports()[:CRD_OUT]

    def params(self, tensors) -> dict[str, int]:
        mode = self.attrs.get("empty", "drop")
        if mode not in ("drop", "zero", "outer"):
            raise GraphError(f"node {self.id}: empty={mode!r}; use drop, zero or outer")
        return {"phase": OUTER} if mode == "outer" else {"mode": EMPTY_MODES[mode]}

    def label(self) -> str:
        return "reduce"


class SparseAccumulator(Block):
    """Order-n reducer, any n >= 1 (Def. 3.7); DOT type ``spaccumulator``.

    ``in0`` names the innermost kept index variable, ``in1``, ``in2`` the next ones out (for
    order 1 the Custard schema's ``in1`` names the reduced variable, whose stream is ignored).
    """

    dot_type = "spaccumulator"
    family = "reduce"
    kernel = accumulate
    state = ACCUMULATE
    required_attrs = ("order", "in0")
    errors = {
        ERR_ALIGN: "coordinate and value streams are not aligned",
        ERR_TAIL: "points after the last stop token (the group is never closed)",
        ERR_STOP: "the kept coordinate streams' stop tokens do not line up",
    }

    def __init__(self, node_id, attrs=None, ignored: list[str] | None = None) -> None:
        super().__init__(node_id, attrs)
        try:
            self.order = int(self.attrs["order"])
        except ValueError:
            self.order = -1
        if self.order < 1:
            raise GraphError(
                f"node {self.id} (spaccumulator): order={self.attrs['order']!r}; use an integer "
                "n >= 1 (the number of kept index variables)"
            )
        self.kept = []
        for d in range(self.order):
            var = self.attrs.get(f"in{d}")
            if not var:
                raise GraphError(
                    f"node {self.id} (spaccumulator order={self.order}) lacks attribute in{d}"
                )
            self.kept.append(var)
        self.ignored: list[str] = list(ignored or [])
        #: reads the original's point streams (``crdhold`` outputs); see ``_gather_points``
        self.points = False
        if self.order == 1 and self.attrs.get("in1") and self.attrs["in1"] not in self.ignored:
            self.ignored.append(self.attrs["in1"])

    def declare_port(self, direction: str, kind: str, comment: str) -> None:
        """Learn an extra (ignored) coordinate input from a DOT edge."""
        if direction == "in" and kind == "crd":
            var = self.port_alias("in", kind, comment)
            if var and var not in self.kept and var not in self.ignored:
                self.ignored.append(var)

    def held_inputs(self, ports: set[str]) -> None:
        """The DOT reader names the inputs fed by the original's ``crdhold``: if the innermost
        kept stream is one, this accumulator reads point streams (the original's wiring), and
        an order-1 one keeps its ``in1`` variable too (the original writes its coordinates)."""
        if f"crd:{self.kept[0]}" not in ports:
            return
        self.points = True
        outer = self.attrs.get("in1")
        if self.order == 1 and outer and outer in self.ignored and f"crd:{outer}" in ports:
            self.ignored.remove(outer)
            self.kept.append(outer)

    def port_alias(self, direction: str, kind: str, comment: str) -> str:
        for prefix in ("inner-", "outer-", "in-"):
            if comment.startswith(prefix):
                return comment[len(prefix):]
        return comment

    def inputs(self) -> list[Port]:
        return REDUCE_IN.ports(crd=[Port("crd", v) for v in self.kept]
                               + [Port("crd", v, optional=True) for v in self.ignored])

    def outputs(self) -> list[Port]:
        return REDUCE_OUT.ports(val={"optional": True},
                                crd=[Port("crd", f"out-{v}", optional=True) for v in self.kept])

    def ignored_inputs(self) -> list[str]:
        """Ports whose streams are consumed without effect (kept unbounded by the engine)."""
        return [f"crd:{v}" for v in self.ignored]

    def params(self, tensors) -> dict[str, int]:
        mode = self.attrs.get("empty", "drop")
        if mode not in ("drop", "keep"):
            raise GraphError(f"node {self.id}: empty={mode!r}; use drop or keep")
        n = len(self.kept)
        return {"n": n, "mode": EMPTY_MODES[mode], "nextra": len(self.ignored), "level": n - 1,
                "points": int(self.points and n >= 2),
                "rows": int(self.points and n == 2 and self.order == 1)}

    def timing_params(self, timing: str) -> dict[str, int]:
        """``original``: outer coordinates and stops taken without a firing, emission beside
        gathering (docs/timing-model.md, rule 9)."""
        return {"orig": 1} if timing == "original" else {}

    def timing_latency(self, timing: str) -> int:
        """``original``: 3 (docs/timing-model.md, rule 12): the original feeds its accumulator
        through a stage of stop-token droppers and emits from an output register, two cycles
        more than one firing."""
        return 3 if timing == "original" else 1

    def memories(self, tensors: Mapping[str, Tensor]) -> dict[str, np.ndarray]:
        """The point stores, and ``cur``: the current coordinate and the empty-fiber flag of each
        kept level (only the outermost fiber open)."""
        points = INITIAL_LENGTH * len(self.kept)
        mem = {"pts": np.zeros(points, np.int64), "opts": np.zeros(points, np.int64),
                "where": np.zeros(INITIAL_LENGTH, np.int64),
                "vals": np.zeros(INITIAL_LENGTH, np.float64),
                "ovals": np.zeros(INITIAL_LENGTH, np.float64),
                "cur": np.zeros(2 * len(self.kept), np.int64)}
        mem["cur"][-1] = 1
        return mem

    def grow_memory(self, mem: Memories, which: int) -> None:
        """The point store and the sorted store grow together; the coordinate index alone."""
        for k in ((WHERE,) if which == WHERE else (PTS, OPTS, VALS, OVALS)):
            mem.grow(k)

    def label(self) -> str:
        return f"spaccumulator {self.order}: {','.join(self.kept)}"
