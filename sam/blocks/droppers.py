"""Coordinate dropper (SAM paper Def. 3.9, Sec. 3.7, Figure 8).

Takes an outer-level coordinate stream and the inner-level coordinate stream below it (one inner
fiber per outer coordinate) and removes the outer coordinates whose inner fiber is empty (an
ineffectual intersection), together with those empty inner fibers. Outer stop tokens pass
unchanged, so an outer fiber may become empty (a dropper one level up removes it in turn).

Removing an inner fiber can merge stop tokens: ``a, S0, S1`` whose second fiber is empty becomes
``a, S1``. The dropper therefore holds the stop token that ends each inner fiber until it knows
the next fiber is not empty (or the stream ends).

Timing: one firing per cycle; the outer coordinate is taken in one cycle and emitted in the
cycle its first inner coordinate passes. Under ``--timing original`` (docs/timing-model.md, rule
12) the outer coordinate is taken with its first inner token and the stop that ends an
effectual inner fiber is taken without a firing (it goes out with the next fiber's first
coordinate, or before the done token), as the original's ``CrdDrop`` takes one inner token a
cycle, the outer coordinate beside it.
"""

from __future__ import annotations

from sam.blocks.base import Block, Port, Ports
from sam.runtime.burst import account, burst_room, commit_stops, fan_out, first_channel, put_row
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
    wait_until,
)
from sam.runtime.tokens import DATA, DONE, EMPTY, STOP
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

NEED_OUTER, IN_FIBER = 0, 1
#: Phase; the outer coordinate held; whether it was emitted; the held inner stop level (-1:
#: none); whether the current outer fiber has a coordinate yet.
#: ``orig`` (``--timing original``): the outer coordinate and a held stop cost no firing.
DROP = State(phase=NEED_OUTER, hold=0, emitted=0, held=-1, outer_has=0, orig=0)
PHASE, HOLD, EMITTED, HELD, OUTER_HAS, ORIG = DROP.slots
ERR_ALIGN, ERR_TOKEN = 1, 2
#: The outer coordinates and the inner coordinates (or values) below them, in and out.
DROP_IN = Ports.inputs(outer=Port("crd"), inner=Port("crd"))
OUTER_IN, INNER_IN = DROP_IN.slots
DROP_OUT = Ports.outputs(outer=Port("crd", optional=True), inner=Port("crd", optional=True))
OUTER_OUT, INNER_OUT = DROP_OUT.slots


@jitable
def merge_empty(held, c):
    """Held stop after an inner fiber closed by ``Sc`` turns out empty and is removed.

    Returns (stop level to emit now or -1, new held level).
    """
    if c == 0:
        return -1, held
    if held >= 1:
        return held, c
    return -1, c


@jitable(inline=True)
def drop_burst(w, st, optr, ochan, co, ci):
    """:func:`drop`'s firings in one loop, its state in local variables (:mod:`sam.runtime.burst`:
    unbounded FIFOs, so every firing is in the cycle its input arrives), as far as the
    inputs and the rings go; a done token or a malformed stream takes the general path. The
    firings made."""
    if w.depth[co] > 0 or w.depth[ci] > 0:
        return 0
    room = burst_room(w, st, ochan)
    if room == 0:
        return 0
    mask = w.kind.shape[1] - 1
    ko_, do_, to_ = w.kind[co], w.data[co], w.time[co]
    ki_, di_, ti_ = w.kind[ci], w.data[ci], w.time[ci]
    o0 = first_channel(optr, ochan, OUTER_OUT)
    o1 = first_channel(optr, ochan, INNER_OUT)
    k0, d0, t0 = w.kind[o0 if o0 >= 0 else co], w.data[o0 if o0 >= 0 else co], \
        w.time[o0 if o0 >= 0 else co]
    k1, d1, t1 = w.kind[o1 if o1 >= 0 else ci], w.data[o1 if o1 >= 0 else ci], \
        w.time[o1 if o1 >= 0 else ci]
    tail0 = w.tail[o0] if o0 >= 0 else 0
    tail1 = w.tail[o1] if o1 >= 0 else 0
    ho = w.head[co]
    eo = w.tail[co]
    hi = w.head[ci]
    ei = w.tail[ci]
    phase = st[PHASE]
    hold = st[HOLD]
    emitted = st[EMITTED]
    held = st[HELD]
    outer_has = st[OUTER_HAS]
    t = st[T]
    lat = st[LAT]
    idle = 0
    first = -1
    fired = 0
    n0 = 0  # tokens out on each port, stops among them
    s0 = 0
    n1 = 0
    s1 = 0
    while n0 < room and n1 < room:
        if phase == IN_FIBER:
            if hi >= ei:
                break
            q = hi & mask
            k = ki_[q]
            if k != DATA and k != STOP:
                break
            t_in = ti_[q] if ti_[q] > t else t
            a = t_in + lat
            if k == DATA:
                if emitted == 0:  # the outer coordinate is effectual: emit it first
                    n0 = put_row(o0 >= 0, k0, d0, t0, tail0, n0, DATA, hold, a, mask)
                    emitted = 1
                    if held >= 0:  # close the previous inner fiber first
                        n1 = put_row(o1 >= 0, k1, d1, t1, tail1, n1, STOP, held, a, mask)
                        s1 += 1
                        held = -1
                    else:
                        n1 = put_row(o1 >= 0, k1, d1, t1, tail1, n1, DATA, di_[q], a, mask)
                        hi += 1
                else:
                    n1 = put_row(o1 >= 0, k1, d1, t1, tail1, n1, DATA, di_[q], a, mask)
                    hi += 1
            else:
                c = di_[q]
                if emitted == 1:
                    held = c
                else:
                    now, held = merge_empty(held, c)
                    if now >= 0:
                        n1 = put_row(o1 >= 0, k1, d1, t1, tail1, n1, STOP, now, a, mask)
                        s1 += 1
                hi += 1
                phase = NEED_OUTER
        else:
            if ho >= eo:
                break
            q = ho & mask
            k = ko_[q]
            t_in = to_[q] if to_[q] > t else t
            if k == DATA:
                hold = do_[q]
                emitted = 0
                outer_has = 1
                phase = IN_FIBER
                ho += 1
            elif k == STOP:
                n = do_[q]
                now = -1
                nheld = held
                if outer_has == 0:  # an empty outer fiber: the inner stream marks it S(n+1)
                    if hi >= ei:
                        break
                    qi = hi & mask
                    if ki_[qi] != STOP or di_[qi] != n + 1:
                        break  # misaligned: the general path reports it
                    if ti_[qi] > t_in:
                        t_in = ti_[qi]
                    now, nheld = merge_empty(held, n + 1)
                a = t_in + lat
                n0 = put_row(o0 >= 0, k0, d0, t0, tail0, n0, STOP, n, a, mask)
                s0 += 1
                if now >= 0:
                    n1 = put_row(o1 >= 0, k1, d1, t1, tail1, n1, STOP, now, a, mask)
                    s1 += 1
                if outer_has == 0:
                    hi += 1
                held = nheld
                outer_has = 0
                ho += 1
            else:
                break
        # one firing, in cycle t_in (the outputs are unbounded: no stall)
        if first < 0:
            first = t_in
        idle += t_in - t
        t = t_in + 1
        fired += 1
    if fired > 0:
        w.head[co] = ho
        w.head[ci] = hi
        fan_out(w, optr, ochan, OUTER_OUT, n0)
        fan_out(w, optr, ochan, INNER_OUT, n1)
        commit_stops(w, optr, ochan, OUTER_OUT, n0, s0)
        commit_stops(w, optr, ochan, INNER_OUT, n1, s1)
        account(st, first, t - 1, idle, fired)
        st[PHASE] = phase
        st[HOLD] = hold
        st[EMITTED] = emitted
        st[HELD] = held
        st[OUTER_HAS] = outer_has
    return fired


@kernel
def drop(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Coordinate dropper: outer coordinates and the inner coordinates below them."""
    co = ins[OUTER_IN]
    ci = ins[INNER_IN]
    while st[STATUS] == 0:
        if st[ORIG] == 0 and drop_burst(w, st, optr, ochan, co, ci) > 0:
            continue
        t = st[T]
        if st[PHASE] == IN_FIBER:
            t_in = arrive(w, st, ci, t)
            if t_in == NOT_YET:
                return RC_IN
            k = hkind(w, ci)
            if k == DATA:
                if st[EMITTED] == 1:
                    t_out = reserve(w, st, optr, ochan, INNER_OUT, t_in)
                    if t_out < 0:
                        return blocked(t_out)
                    a = fire(st, t_in, t_out)
                    push(w, optr, ochan, INNER_OUT, DATA, hdata(w, ci), a)
                    pop(w, ci, t_out)
                    continue
                # First inner coordinate: the outer coordinate is effectual.
                t_out = reserve_all(w, st, optr, ochan, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, OUTER_OUT, DATA, st[HOLD], a)
                st[EMITTED] = 1
                if st[HELD] >= 0:  # close the previous inner fiber first
                    push(w, optr, ochan, INNER_OUT, STOP, st[HELD], a)
                    st[HELD] = -1
                else:
                    push(w, optr, ochan, INNER_OUT, DATA, hdata(w, ci), a)
                    pop(w, ci, t_out)
                continue
            if k != STOP:
                return fail(st, ERR_TOKEN, w, ci, INNER_IN)
            c = hdata(w, ci)
            if st[EMITTED] == 1 and st[ORIG] == 1:
                wait_until(st, t_in)  # taken free; it goes out with the next firing
                st[HELD] = c
                pop(w, ci, t_in)
                st[PHASE] = NEED_OUTER
                continue
            if st[EMITTED] == 1:
                fire(st, t_in, t_in)
                st[HELD] = c
            else:
                now, held = merge_empty(st[HELD], c)
                if now >= 0:
                    t_out = reserve(w, st, optr, ochan, INNER_OUT, t_in)
                    if t_out < 0:
                        return blocked(t_out)
                    a = fire(st, t_in, t_out)
                    push(w, optr, ochan, INNER_OUT, STOP, now, a)
                else:
                    fire(st, t_in, t_in)
                st[HELD] = held
            pop(w, ci, st[T] - 1)
            st[PHASE] = NEED_OUTER
            continue

        t_in = arrive(w, st, co, t)
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, co)
        if k == DATA:
            if st[ORIG] == 1:
                wait_until(st, t_in)  # taken with the first inner token's firing
            else:
                fire(st, t_in, t_in)
            st[HOLD] = hdata(w, co)
            st[EMITTED] = 0
            st[OUTER_HAS] = 1
            st[PHASE] = IN_FIBER
            pop(w, co, t_in)
            continue
        if k == STOP:
            n = hdata(w, co)
            now = -1
            held = st[HELD]
            if st[OUTER_HAS] == 0:
                # An empty outer fiber: the inner stream marks it with S(n+1).
                t_in = arrive(w, st, ci, t_in)
                if t_in == NOT_YET:
                    return RC_IN
                if hkind(w, ci) != STOP or hdata(w, ci) != n + 1:
                    return fail(st, ERR_ALIGN, w, ci, INNER_IN)
                now, held = merge_empty(held, n + 1)
            t_out = reserve(w, st, optr, ochan, OUTER_OUT, t_in)
            if t_out < 0:
                return blocked(t_out)
            if now >= 0:
                t1 = reserve(w, st, optr, ochan, INNER_OUT, t_in)
                if t1 < 0:
                    return blocked(t1)
                t_out = max(t_out, t1)
            a = fire(st, t_in, t_out)
            push(w, optr, ochan, OUTER_OUT, STOP, n, a)
            if now >= 0:
                push(w, optr, ochan, INNER_OUT, STOP, now, a)
            if st[OUTER_HAS] == 0:
                pop(w, ci, t_out)
            st[HELD] = held
            st[OUTER_HAS] = 0
            pop(w, co, t_out)
            continue
        if k == DONE:
            t_in = arrive(w, st, ci, t_in)
            if t_in == NOT_YET:
                return RC_IN
            if hkind(w, ci) != DONE:
                return fail(st, ERR_ALIGN, w, ci, INNER_IN)
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            if st[HELD] >= 0:
                push(w, optr, ochan, INNER_OUT, STOP, st[HELD], a)
                st[HELD] = -1
                continue
            push(w, optr, ochan, OUTER_OUT, DONE, 0, a)
            push(w, optr, ochan, INNER_OUT, DONE, 0, a)
            pop(w, co, t_out)
            pop(w, ci, t_out)
            st[STATUS] = 1
            continue
        return fail(st, ERR_TOKEN, w, co, OUTER_IN)
    return RC_DONE


@kernel
def drop_zeros(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Value-mode dropper: coordinates and their values (one per coordinate, the inner input);
    coordinates whose value is zero or empty are dropped with it."""
    co = ins[OUTER_IN]
    cv = ins[INNER_IN]
    while st[STATUS] == 0:
        t_in = arrive(w, st, co, st[T])
        if t_in == NOT_YET:
            return RC_IN
        t_in = arrive(w, st, cv, t_in)
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, co)
        kv = hkind(w, cv)
        if k == DATA:
            if kv != DATA and kv != EMPTY:
                return fail(st, ERR_ALIGN, w, cv, INNER_IN)
            if kv == DATA and hval(w, cv) != 0.0:
                t_out = reserve_all(w, st, optr, ochan, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, OUTER_OUT, DATA, hdata(w, co), a)
                pushv(w, optr, ochan, INNER_OUT, DATA, hval(w, cv), a)
            else:
                fire(st, t_in, t_in)
                t_out = t_in
        elif (k == STOP or k == DONE) and kv == k and hdata(w, co) == hdata(w, cv):
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            push(w, optr, ochan, OUTER_OUT, k, hdata(w, co), a)
            push(w, optr, ochan, INNER_OUT, k, hdata(w, co), a)
            if k == DONE:
                st[STATUS] = 1
        else:
            return fail(st, ERR_ALIGN, w, cv, INNER_IN)
        pop(w, co, t_out)
        pop(w, cv, t_out)
    return RC_DONE


class CoordinateDropper(Block):
    """Drops outer coordinates with empty inner fibers (Def. 3.9); DOT type ``crddrop``."""

    dot_type = "crddrop"
    family = "drop"
    state = DROP
    required_attrs = ("outer", "inner")
    errors = {
        ERR_ALIGN: "the inner stream does not line up with the outer one (one inner fiber per "
        "outer coordinate expected)",
        ERR_TOKEN: "unexpected token (empty token N, or a done token inside a fiber)",
    }

    @property
    def on_values(self) -> bool:
        """``inner=vals``: drop coordinates whose value (one per coordinate) is zero."""
        return self.attrs.get("inner") == "vals"

    @property
    def kernel(self):  # type: ignore[override]
        return drop_zeros if self.on_values else drop

    @property
    def outer(self) -> str:
        return self.attrs["outer"]

    @property
    def inner(self) -> str:
        return self.attrs["inner"]

    def inputs(self) -> list[Port]:
        inner = "val" if self.on_values else "crd"
        return DROP_IN.ports(outer={"comment": self.outer},
                             inner={"kind": inner, "comment": f"in-{self.inner}"})

    def min_input_depths(self) -> dict[str, int]:
        """On values, a coordinate is held until its value, which a reducer emits only when
        the fiber below ends, i.e. when its scanner has the next reference: a second slot."""
        return {self.inputs()[OUTER_IN].name: 2} if self.on_values else {}

    def outputs(self) -> list[Port]:
        inner = "val" if self.on_values else "crd"
        return DROP_OUT.ports(outer={"comment": f"outer-{self.outer}"},
                              inner={"kind": inner, "comment": f"inner-{self.inner}"})

    def port_alias(self, direction: str, kind: str, comment: str) -> str:
        if direction == "in" and comment in (f"outer-{self.outer}", f"in-{self.outer}"):
            return self.outer
        if direction == "in" and comment in (self.inner, f"inner-{self.inner}"):
            return f"in-{self.inner}"
        for var, side in ((self.outer, "outer"), (self.inner, "inner")):
            if direction == "out" and comment == f"crddrp-crd-{var}-out":
                return f"{side}-{var}"  # the original's hand-written BLACKBOX graphs
        return comment

    def label(self) -> str:
        return f"crddrop {self.outer},{self.inner}"

    def timing_params(self, timing: str) -> dict[str, int]:
        """``--timing original``: the outer coordinate and a fiber's closing stop are taken
        without a firing (docs/timing-model.md, rule 12)."""
        return {"orig": 1} if timing == "original" and not self.on_values else {}
