"""Repeater and repeat-signal generator (SAM paper Def. 3.4, Sec. 3.5, Figure 6).

The repeat-signal generator turns a coordinate stream into repeat signals: ``R`` for each
coordinate, stop and done tokens unchanged. The repeater repeats each reference of its input
reference stream once per ``R`` and emits the signal stream's stop tokens, so its output has the
shape of the coordinate stream that drives it (it broadcasts a tensor over an index variable it
lacks). The input reference stream is one level shallower: its stop token ``S(n-1)`` after a
reference is consumed together with the signal's ``Sn``.

Timing: one output token per cycle. A reference is taken in the cycle of its first ``R``; a
reference with no ``R`` at all (an empty fiber) is taken in the cycle of its stop, and when that
stop closes an outer level the reference stream's stop is dropped one cycle later.
"""

from __future__ import annotations

from sam.blocks.base import Block, Port, Ports
from sam.runtime.burst import (
    account,
    burst_len,
    close_run,
    commit_kinds,
    fan_out,
    first_channel,
    ring_mask,
)
from sam.runtime.jit import jitable
from sam.runtime.kernel import (
    NOT_YET,
    State,
    arrive,
    blocked,
    end_cycle,
    fail,
    fire,
    kernel,
    reserve_all,
)
from sam.runtime.tokens import DATA, DONE, EMPTY, STOP
from sam.runtime.wires import LAT, RC_DONE, RC_IN, STATUS, T, hdata, hkind, pop, push

#: Holding a reference (1), the reference and its token kind, dropping the next reference stop.
REPEAT = State(have=0, reg=0, reg_kind=DATA, drop=0)
HAVE, REG, REG_KIND, DROP = REPEAT.slots
ERR_NO_REF, ERR_STOP, ERR_DONE, ERR_SIGNAL = 1, 2, 3, 4
#: The repeat-signal generator's ports, and the repeater's.
SIGNALS_IN = Ports.inputs(crd=Port("crd"))
(CRD_IN,) = SIGNALS_IN.slots
SIGNALS_OUT = Ports.outputs(repsig=Port("repsig"))
(REPSIG_OUT,) = SIGNALS_OUT.slots
REPEAT_IN = Ports.inputs(ref=Port("ref"), repsig=Port("repsig"))
REF_IN, REPSIG_IN = REPEAT_IN.slots
REPEAT_OUT = Ports.outputs(ref=Port("ref"))
(REF_OUT,) = REPEAT_OUT.slots


@jitable(inline=True)
def signals_burst(w, st, optr, ochan, c):
    """Repeat-signal generator: turn a run of coordinates into ``R`` signals, and pass the stop
    tokens between them, in one loop (:mod:`sam.runtime.burst`); the firings made."""
    o = first_channel(optr, ochan, REPSIG_OUT)
    if o < 0:
        return 0
    n = burst_len(w, st, ochan, c)
    if n == 0:
        return 0
    mask = ring_mask(w)
    h = w.head[c]
    kc = w.kind[c]
    dc = w.data[c]
    tc = w.time[c]
    ko = w.kind[o]  # the rows of the first output channel
    do = w.data[o]
    to = w.time[o]
    tail = w.tail[o]
    t_start = st[T]
    t = t_start
    lat = st[LAT]
    m = 0
    nstop = 0
    while m < n:
        s = (h + m) & mask
        k = kc[s]
        so = (tail + m) & mask
        if k == DATA:
            do[so] = 0
        elif k == STOP:
            do[so] = dc[s]
            nstop += 1
        else:
            break
        ko[so] = k
        ta = tc[s]
        if ta > t:
            t = ta
        to[so] = t + lat
        t += 1
        m += 1
    if m > 0:
        w.head[c] = h + m
        close_run(w, st, optr, ochan, REPSIG_OUT, m, nstop, tc[h & mask], t_start, t)
    return m


@jitable(inline=True)
def repeat_burst(w, st, optr, ochan, cref, csig):
    """Repeater: a run of firings in one loop (:mod:`sam.runtime.burst`), as the general path
    makes them one at a time: an ``R`` repeats the held reference (taking the next one first
    when none is held), a stop ends the held reference (a stop ``Sn``, n >= 1, with the
    reference stream's ``S(n-1)``). The firings made. Anything else (an ``R`` facing a stop, a
    stop with no reference held, a done token, a reference not there yet) takes the general
    path."""
    if st[DROP] != 0 or cref < 0 or w.depth[cref] > 0:
        return 0
    o = first_channel(optr, ochan, REF_OUT)
    if o < 0:
        return 0
    n = burst_len(w, st, ochan, csig)
    if n == 0:
        return 0
    mask = ring_mask(w)
    hs = w.head[csig]
    ks = w.kind[csig]
    ds = w.data[csig]
    ts = w.time[csig]
    hr = w.head[cref]
    nr = w.tail[cref] - hr  # references waiting
    kr = w.kind[cref]
    dr = w.data[cref]
    tr = w.time[cref]
    ko = w.kind[o]  # the rows of the first output channel
    do = w.data[o]
    to = w.time[o]
    tail = w.tail[o]
    have = st[HAVE]
    reg = st[REG]
    reg_kind = st[REG_KIND]
    t_start = st[T]
    t = t_start
    t0 = t
    lat = st[LAT]
    m = 0
    q = 0  # references taken
    nstop = 0
    nempty = 0
    while m < n:
        s = (hs + m) & mask
        sk = ks[s]
        ta = ts[s]
        if sk == DATA:
            if have == 0:  # take the next reference
                if q == nr:
                    break
                p = (hr + q) & mask
                rk = kr[p]
                if rk != DATA and rk != EMPTY:
                    break
                if tr[p] > ta:
                    ta = tr[p]
                have = 1
                reg = dr[p]
                reg_kind = rk
                q += 1
            out_kind = reg_kind
            out = reg
        elif sk == STOP and have == 1:
            out = ds[s]
            if out >= 1:  # the reference stream's stop S(n-1) goes with it
                if q == nr:
                    break
                p = (hr + q) & mask
                if kr[p] != STOP or dr[p] != out - 1:
                    break
                if tr[p] > ta:
                    ta = tr[p]
                q += 1
            have = 0
            out_kind = STOP
        else:
            break
        so = (tail + m) & mask
        ko[so] = out_kind
        do[so] = out
        if ta > t:
            t = ta
        if m == 0:
            t0 = t
        to[so] = t + lat
        if out_kind == STOP:
            nstop += 1
        elif out_kind == EMPTY:
            nempty += 1
        t += 1
        m += 1
    if m > 0:
        w.head[csig] = hs + m
        w.head[cref] = hr + q
        st[HAVE] = have
        st[REG] = reg
        st[REG_KIND] = reg_kind
        fan_out(w, optr, ochan, REF_OUT, m)
        commit_kinds(w, optr, ochan, REF_OUT, m, nstop, nempty)
        account(st, t0, t - 1, t - t_start - m, m)  # every cycle not firing was idle
    return m


@kernel
def repeat_signals(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Repeat-signal generator: coordinates become ``R``; stop and done tokens pass."""
    c = ins[CRD_IN]
    while st[STATUS] == 0:
        if signals_burst(w, st, optr, ochan, c) > 0:
            continue
        t_in = arrive(w, st, c, st[T])
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, c)
        if k == EMPTY:
            return fail(st, ERR_SIGNAL, w, c, CRD_IN)
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        a = fire(st, t_in, t_out)
        push(w, optr, ochan, REPSIG_OUT, k, hdata(w, c) if k == STOP else 0, a)
        pop(w, c, t_out)
        if k == STOP:
            end_cycle(st)
        elif k == DONE:
            st[STATUS] = 1
    return RC_DONE


@kernel
def repeat(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Repeater: references and repeat signals in; the repeated references out."""
    cref = ins[REF_IN]
    csig = ins[REPSIG_IN]
    while st[STATUS] == 0:
        t = st[T]
        if st[DROP] == 1:
            # Drop the reference stream's stop that followed a reference repeated zero times.
            t_in = arrive(w, st, cref, t)
            if t_in == NOT_YET:
                return RC_IN
            if hkind(w, cref) != STOP:
                return fail(st, ERR_STOP, w, cref, REF_IN)
            fire(st, t_in, t_in)
            end_cycle(st)
            pop(w, cref, t_in)
            st[DROP] = 0
            continue
        if repeat_burst(w, st, optr, ochan, cref, csig) > 0:
            continue
        t_in = arrive(w, st, csig, t)
        if t_in == NOT_YET:
            return RC_IN
        sk = hkind(w, csig)
        if sk == DATA:
            need_ref = st[HAVE] == 0
        elif sk == STOP:
            need_ref = st[HAVE] == 0 or hdata(w, csig) >= 1
        else:
            need_ref = True
        if need_ref:
            t_in = arrive(w, st, cref, t_in)
            if t_in == NOT_YET:
                return RC_IN
        rk = hkind(w, cref) if need_ref else DATA
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        if sk == DATA:  # R: emit the current reference, taking it first if needed
            if need_ref:
                if rk != DATA and rk != EMPTY:
                    return fail(st, ERR_NO_REF, w, cref, REF_IN)
                st[HAVE] = 1
                st[REG] = hdata(w, cref)
                st[REG_KIND] = rk
                pop(w, cref, t_out)
            a = fire(st, t_in, t_out)
            push(w, optr, ochan, REF_OUT, st[REG_KIND], st[REG], a)
            pop(w, csig, t_out)
        elif sk == STOP:
            n = hdata(w, csig)
            if st[HAVE] == 1:
                # The reference is used up; an outer stop S(n-1) must follow it.
                if n >= 1:
                    if rk != STOP or hdata(w, cref) != n - 1:
                        return fail(st, ERR_STOP, w, cref, REF_IN)
                    pop(w, cref, t_out)
                st[HAVE] = 0
            elif rk == STOP:
                # An empty outer fiber: its stop S(n-1) matches the signal's Sn.
                if hdata(w, cref) != n - 1:
                    return fail(st, ERR_STOP, w, cref, REF_IN)
                pop(w, cref, t_out)
            elif rk == DATA or rk == EMPTY:
                pop(w, cref, t_out)  # a reference repeated zero times
                if n >= 1:
                    st[DROP] = 1
            else:
                return fail(st, ERR_DONE, w, cref, REF_IN)
            a = fire(st, t_in, t_out)
            push(w, optr, ochan, REF_OUT, STOP, n, a)
            end_cycle(st)
            pop(w, csig, t_out)
        elif sk == DONE:
            if rk != DONE:
                return fail(st, ERR_DONE, w, cref, REF_IN)
            a = fire(st, t_in, t_out)
            push(w, optr, ochan, REF_OUT, DONE, 0, a)
            pop(w, csig, t_out)
            pop(w, cref, t_out)
            st[STATUS] = 1
        else:
            return fail(st, ERR_SIGNAL, w, csig, REPSIG_IN)
    return RC_DONE


class RepeatSignalGenerator(Block):
    """Makes repeat signals from a coordinate stream; DOT type ``repsiggen``."""

    dot_type = "repsiggen"
    widenable = True
    family = "repeat"
    kernel = repeat_signals
    input_ports = SIGNALS_IN
    output_ports = SIGNALS_OUT
    errors = {ERR_SIGNAL: "an empty token (N) cannot drive a repeater"}

    def label(self) -> str:
        return f"repsiggen {self.attrs.get('index', '')}"


class Repeater(Block):
    """Repeats references over a coordinate stream (Def. 3.4); DOT type ``repeat``."""

    dot_type = "repeat"
    widenable = True
    family = "repeat"
    kernel = repeat
    state = REPEAT
    output_ports = REPEAT_OUT
    errors = {
        ERR_NO_REF: "a repeat signal came but the reference stream has no reference left",
        ERR_STOP: "the reference stream's stop tokens do not match the repeat signals",
        ERR_DONE: "the reference and repeat-signal streams end at different points",
        ERR_SIGNAL: "a malformed repeat-signal token",
    }

    reads_root = True

    def inputs(self) -> list[Port]:
        return REPEAT_IN.ports(ref={"optional": self.is_root})

    def min_input_depths(self) -> dict[str, int]:
        """A reference is held until its signal's stop, which the leader's scanner emits only
        when it has the next reference: in a graph whose repeated reference and leader come
        from one stream, that next reference needs a second slot (docs/locate.md)."""
        return {"ref": 2}

    def label(self) -> str:
        return f"repeat {self.attrs.get('index', '')}: {self.tensor or ''}"
