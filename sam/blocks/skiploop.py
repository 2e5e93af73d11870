"""Coordinate skipping's cycle in one compiled loop: two level scanners and their intersecter.

With coordinate skipping (SAM paper Sec. 4.2) an intersecter and the two level scanners it
sends skips to form a cycle of the graph: the scanners fire only as far as the intersecter's
horizon says no skip can still reach them, so the three run in lock steps of a cycle or two
and every kernel call moves one or two tokens. :func:`skip_component` runs those lock steps
in one loop: the scheduler's rounds over the cycle (:func:`sam.sim.loops.drive_py`), with the
scanner's and the intersecter's firings written out for this shape (one channel per scanner
output, two operands, unbounded intersecter outputs) instead of a kernel call each. The
firings are the kernels' (:func:`sam.blocks.scanners.scan`, :func:`sam.blocks.merges.merge`)
step for step: same tokens, arrival cycles, pops and statistics, and the same horizons
published after every step (``tests/test_skiploop.py`` runs graphs with the loop on and off
and compares every token and statistic).

A done token, a malformed stream or a full simulator ring returns to the kernels (a lookahead
scanner or a wide block is never fused). The loop changes nothing it does not finish, as a
kernel does not, so the scheduler's next call of a kernel carries on where it stopped.
"""

from __future__ import annotations

from collections.abc import Sequence

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
    SFIB,
    SIZE,
    SKIP_T,
    STORED,
    coordinate_at,
    fiber_bounds,
)
from sam.blocks.skipping import TOLD_STOP, take_skip
from sam.sim.jit import jitable
from sam.sim.kernel import blocked, fire, reserve, reserve_all
from sam.sim.tokens import DATA, DONE, EMPTY, STOP
from sam.sim.wires import BUSY, RC_BUF, RC_IN, WAIT, WIDTH, T, pop, publish, push

#: Use the loop (tests turn it off to compare; read when a simulation sets up its driver).
ENABLED = True
#: A step's return code when the kernels must take over (a done token, a malformed stream).
EXIT = -1


@jitable(inline=True)
def room1(w, c, t):
    """:func:`sam.sim.wires.room` for one channel, as :func:`sam.sim.kernel.reserve` returns
    it: the cycle ``>= t`` with room, -1 (ring full) or -2 (modeled FIFO full)."""
    cap = w.kind.shape[1]
    tail = w.tail[c]
    head = w.head[c]
    if tail - head >= cap:
        return -1
    d = w.depth[c]
    if d > 0 and tail >= d:
        if d > cap:
            return -1
        k = tail - d
        if head <= k:
            return -2
        free = w.ptime[c, k & (cap - 1)] + 1
        if free > t:
            return free
    return t


@jitable(inline=True)
def reserve2(w, st, oc, orf, t):
    """:func:`sam.sim.kernel.reserve_all` for a scanner's two output ports of one channel
    each: the cycle ``>= t`` both have room, or -1/-2 with WAIT naming the port."""
    t_out = room1(w, oc, t)
    if t_out < 0:
        st[WAIT] = 0
        return t_out
    q = room1(w, orf, t)
    if q < 0:
        st[WAIT] = 1
        return q
    return q if q > t_out else t_out


@jitable(inline=True)
def put1(w, c, kind, data, a):
    """:func:`sam.sim.wires.push` to the one channel ``c``."""
    s = w.tail[c] & (w.kind.shape[1] - 1)
    w.kind[c, s] = kind
    w.data[c, s] = data
    w.time[c, s] = a
    w.tail[c] += 1
    w.count[c, kind] += 1


@jitable(inline=True)
def scan_steps(w, st, cin, sk, oc, orf, seg, crd, lens):
    """Fire a level scanner (width 1, no lookahead, outputs ``oc``/``orf``) as
    :func:`sam.blocks.scanners.scan` does until it must wait: the kernel's return code, or
    :data:`EXIT` at a done token or a reference out of range."""
    mask = w.kind.shape[1] - 1
    while True:
        t = st[T]
        phase = st[PHASE]
        if phase == IN_FIBER:
            t_out = reserve2(w, st, oc, orf, t)
            if t_out < 0:
                return blocked(t_out)
            if sk >= 0 and st[SKIP_T] < t_out:
                if w.head[sk] >= w.tail[sk]:
                    if w.horizon[sk] <= t_out:  # a skip may still arrive by t_out
                        st[WAIT] = sk
                        return RC_IN
                elif w.time[sk, w.head[sk] & mask] <= t_out:
                    st[SKIP_T] = t_out
                    pos, st[SFIB] = take_skip(w, sk, t_out, st[COORDINATES] == STORED, crd,
                                              st[POS], st[END], st[BASE], st[FIB], st[SFIB])
                    st[POS] = pos
                    if pos == st[END]:
                        st[PHASE] = CLOSE
                        continue
            pos = st[POS]
            a = fire(st, t, t_out)
            put1(w, oc, DATA, coordinate_at(st[COORDINATES], crd, pos, st[BASE]), a)
            put1(w, orf, DATA, pos, a)
            st[POS] = pos + 1
            if pos + 1 == st[END]:
                st[PHASE] = CLOSE
            continue

        if w.head[cin] >= w.tail[cin]:
            st[WAIT] = cin
            return RC_IN
        s = w.head[cin] & mask
        t_in = w.time[cin, s]
        if t_in < t:
            t_in = t
        k = w.kind[cin, s]
        r = w.data[cin, s]
        if phase == NEED_REF and (k == DATA or k == EMPTY):
            start, end = 0, 0
            if k == DATA:
                start, end = fiber_bounds(st[POSITIONS], st[COORDINATES], st[SIZE], seg, crd,
                                          lens, r)
                if start < 0:
                    return EXIT
            if start == end:
                fire(st, t_in, t_in)
                pop(w, cin, t_in)
                st[PHASE] = CLOSE
                continue
            t_out = reserve2(w, st, oc, orf, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            pop(w, cin, t_out)
            put1(w, oc, DATA, coordinate_at(st[COORDINATES], crd, start, start), a)
            put1(w, orf, DATA, start, a)
            st[BASE] = start
            st[POS] = start + 1
            st[END] = end
            st[PHASE] = IN_FIBER if start + 1 < end else CLOSE
            continue
        if k == DONE:
            return EXIT
        t_out = reserve2(w, st, oc, orf, t_in)
        if t_out < 0:
            return blocked(t_out)
        a = fire(st, t_in, t_out)
        if k == STOP:  # closes the current fiber (if any) and input level r: S(r+1)
            pop(w, cin, t_out)
            put1(w, oc, STOP, r + 1, a)
            put1(w, orf, STOP, r + 1, a)
        else:  # CLOSE followed by a new reference: the fiber ends with S0
            put1(w, oc, STOP, 0, a)
            put1(w, orf, STOP, 0, a)
        st[FIB] += 1
        st[PHASE] = NEED_REF


@jitable(inline=True)
def arrival(w, c, t):
    """The later of ``t`` and the arrival of channel ``c``'s head token (-1: none yet)."""
    if w.head[c] >= w.tail[c]:
        return -1
    a = w.time[c, w.head[c] & (w.kind.shape[1] - 1)]
    return a if a > t else t


@jitable(inline=True)
def aligned(kc, xc, kr, xr):
    """Whether a reference head (``kr``, ``xr``) lines up with its coordinate head, as
    :func:`sam.blocks.merges.merge` checks it (an empty coordinate is an error anyway)."""
    if kc == EMPTY:
        return False
    if kc == DATA:
        return kr == DATA or kr == EMPTY
    return kr == kc and (kc != STOP or xr == xc)


@jitable(inline=True)
def intersect_steps(w, st, c0, r0, c1, r1, optr, ochan, last, told, skipto):
    """Fire a two-operand intersecter (inputs ``c0, r0, c1, r1``) as
    :func:`sam.blocks.merges.merge`'s general path does until it must wait: the kernel's
    return code, or :data:`EXIT` at a done token or a malformed stream."""
    mask = w.kind.shape[1] - 1
    cap = w.kind.shape[1]
    # Unbounded outputs: a firing has room while every ring has a free slot (each firing
    # emits at most one token per channel); bounded ones reserve as the kernel does.
    free = cap
    bounded = False
    for j in range(ochan.shape[0]):
        oc = ochan[j]
        if w.depth[oc] > 0:
            bounded = True
        f = cap - (w.tail[oc] - w.head[oc])
        if f < free:
            free = f
    while True:
        t_in = arrival(w, c0, st[T])
        if t_in < 0:
            st[WAIT] = c0
            return RC_IN
        t_in = arrival(w, r0, t_in)
        if t_in < 0:
            st[WAIT] = r0
            return RC_IN
        t_in = arrival(w, c1, t_in)
        if t_in < 0:
            st[WAIT] = c1
            return RC_IN
        t_in = arrival(w, r1, t_in)
        if t_in < 0:
            st[WAIT] = r1
            return RC_IN
        s = w.head[c0] & mask
        k0 = w.kind[c0, s]
        x0 = w.data[c0, s]
        s = w.head[r0] & mask
        rk0 = w.kind[r0, s]
        rx0 = w.data[r0, s]
        s = w.head[c1] & mask
        k1 = w.kind[c1, s]
        x1 = w.data[c1, s]
        s = w.head[r1] & mask
        rk1 = w.kind[r1, s]
        rx1 = w.data[r1, s]
        if not aligned(k0, x0, rk0, rx0) or not aligned(k1, x1, rk1, rx1):
            return EXIT
        if k0 == DONE or k1 == DONE:
            return EXIT
        if (k0 == DATA and x0 <= last[0]) or (k1 == DATA and x1 <= last[1]):
            return EXIT
        if k0 == STOP and k1 == STOP and x0 != x1:
            return EXIT
        emit = (k0 == STOP and k1 == STOP) or (k0 == DATA and k1 == DATA and x0 == x1)
        nstop = (k0 == STOP) or (k1 == STOP)
        cmax = x0 if k0 == DATA else -1
        if k1 == DATA and x1 > cmax:
            cmax = x1
        t_out = t_in
        if not bounded:
            if free <= 0:
                st[WAIT] = 0
                return RC_BUF
            free -= 1
        elif emit:
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
        else:  # a drop reserves only the skip streams it sends to
            for k in range(2):
                xk = x0 if k == 0 else x1
                if skipto[k] >= 0 and (k0 if k == 0 else k1) == DATA \
                        and (nstop or xk < cmax) and told[k] != TOLD_STOP \
                        and (nstop or cmax > told[k]):
                    t_out = reserve(w, st, optr, ochan, skipto[k], t_out)
                    if t_out < 0:
                        return blocked(t_out)
        a = fire(st, t_in, t_out)
        if k0 == STOP and k1 == STOP:  # the fiber ends on both: pass the stop on everywhere
            for port in range(3):
                push(w, optr, ochan, port, STOP, x0, a)
            pop(w, c0, t_out)
            pop(w, r0, t_out)
            pop(w, c1, t_out)
            pop(w, r1, t_out)
            for k in range(2):
                last[k] = -1
                if skipto[k] >= 0 and told[k] != TOLD_STOP:
                    push(w, optr, ochan, skipto[k], STOP, x0, a)
                told[k] = -1
            continue
        if emit:  # both hold the coordinate: emit it
            push(w, optr, ochan, 0, DATA, x0, a)
            push(w, optr, ochan, 1, rk0, rx0, a)
            push(w, optr, ochan, 2, rk1, rx1, a)
            pop(w, c0, t_out)
            pop(w, r0, t_out)
            pop(w, c1, t_out)
            pop(w, r1, t_out)
            last[0] = x0
            last[1] = x0
            continue
        # Drop the input behind (or facing the other's stop) and tell its scanner where to go.
        if k0 == DATA and (nstop or x0 < cmax):
            tell(w, optr, ochan, skipto, told, 0, nstop, cmax, a)
            last[0] = x0
            pop(w, c0, t_out)
            pop(w, r0, t_out)
        if k1 == DATA and (nstop or x1 < cmax):
            tell(w, optr, ochan, skipto, told, 1, nstop, cmax, a)
            last[1] = x1
            pop(w, c1, t_out)
            pop(w, r1, t_out)


@jitable(inline=True)
def tell(w, optr, ochan, skipto, told, k, nstop, cmax, a):
    """Send input k's scanner a skip (the fiber's stop, or ``cmax``), once per fiber and
    value (as :func:`sam.blocks.merges.merge` does)."""
    if skipto[k] < 0 or told[k] == TOLD_STOP:
        return
    if nstop:
        push(w, optr, ochan, skipto[k], STOP, 0, a)
        told[k] = TOLD_STOP
    elif cmax > told[k]:
        push(w, optr, ochan, skipto[k], DATA, cmax, a)
        told[k] = cmax


@jitable(inline=True)
def skip_component(w, isfb, sa, ina, oca, sega, crda, lensa, sb, inb, ocb, segb, crdb,
                   lensb, si, ini, opi, oci, last, told, skipto):
    """Run the cycle scanner A, scanner B, intersecter in the scheduler's rounds (each block
    as far as it goes, then its horizon published by the driver's rule,
    :func:`sam.sim.wires.publish`) until a round moves nothing or a block needs its kernel;
    whether anything moved."""
    # Channels as scalars, read once: read from their arrays in the loop, they would be read
    # again (and every ring address derived from them computed again) after each store.
    ca = ina[0]
    ska = ina[1] if ina.shape[0] > 1 else -1
    oa0 = oca[0]
    oa1 = oca[1]
    cb = inb[0]
    skb = inb[1] if inb.shape[0] > 1 else -1
    ob0 = ocb[0]
    ob1 = ocb[1]
    c0 = ini[0]
    r0 = ini[1]
    c1 = ini[2]
    r1 = ini[3]
    progressed = False
    while True:
        busy = sa[BUSY]
        rc = scan_steps(w, sa, ca, ska, oa0, oa1, sega, crda, lensa)
        moved, stop = outcome(w, sa, oca, busy, rc, isfb)
        if stop:
            return progressed or moved
        busy = sb[BUSY]
        rc = scan_steps(w, sb, cb, skb, ob0, ob1, segb, crdb, lensb)
        mb, stop = outcome(w, sb, ocb, busy, rc, isfb)
        moved = moved or mb
        if stop:
            return progressed or moved
        busy = si[BUSY]
        rc = intersect_steps(w, si, c0, r0, c1, r1, opi, oci, last, told, skipto)
        mi, stop = outcome(w, si, oci, busy, rc, isfb)
        moved = moved or mi
        if stop or not moved:
            return progressed or moved
        progressed = True


@jitable(inline=True)
def outcome(w, st, ochan, busy, rc, isfb):
    """After a block's steps (``busy`` its firings before): whether it moved (fired, or
    published a later horizon), and whether its kernel must take over (:data:`EXIT`)."""
    fired = st[BUSY] != busy
    if rc == EXIT:
        return fired, True
    return publish(w, st, ochan, False, rc, isfb) or fired, False


def component(runs: Sequence[object]) -> tuple[int, int, int] | None:
    """Positions in ``runs`` (a cycle's block runtimes, :class:`sam.sim.engine.BlockRun`) of
    scanner A, scanner B and the intersecter when :func:`skip_component` can run them: a
    two-operand intersecter whose four inputs are the crd and ref outputs of two level
    scanners (each output one channel, feeding nothing else), all of width 1, no lookahead;
    else None."""
    if not ENABLED or len(runs) != 3:
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
