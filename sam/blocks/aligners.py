"""Fiber aligner (our addition, for fused programs): a result's coordinate stream in the form
a level scanner (SAM paper Def. 3.1) would give it.

A graph's output streams go to level writers (Def. 3.8), which settle afterwards which stop
tokens close a fiber (``sam.sim.assemble.level_segments``): below a coordinate dropper
(Def. 3.9) a stream may carry *lone* stops, marks of fibers of some level above that a dropper
further up removed. A consumer reading the stream directly needs what scanning the stored level
gives: one fiber per coordinate of the level above, each closed by ``S0``, or by ``S(n+1)``
where the level above closes with ``Sn``, and a lone ``S(n+1)`` for each empty fiber above.

The aligner (DOT type ``fiberalign``; inputs ``crd:outer``, the level above as a scanner gives
it, and ``crd:inner``, the stream to align; output ``crd``) walks the level above: for each of
its coordinates it skips the lone stops of the inner stream, copies one fiber (its coordinates
up to the next stop) and closes it by the level above's next token; each stop of the level above
not taken so becomes a lone stop one level higher; at the done token it drains the inner stream.
It assumes no fiber of the inner stream is empty (result streams are cleaned by droppers);
a done token where a fiber should be is reported as a malformed stream. With ``root=true`` the
level above is the root stream ``0, D`` (a ``ref`` input the simulator provides): the root's
one fiber is closed by its first stop even when empty, or by the done token when the stream
holds nothing else (``D`` alone becomes ``S0, D``).

Timing: one firing per cycle; a firing takes at most one token of each input and emits at most
one token (a skipped lone stop takes a firing of its own).
"""

from __future__ import annotations

from sam.blocks.base import Block, Port
from sam.runtime.kernel import NOT_YET, State, arrive, blocked, fail, fire, kernel, reserve_all
from sam.runtime.tokens import DATA, DONE, STOP
from sam.runtime.wires import RC_DONE, RC_IN, STATUS, T, hdata, hkind, pop, push

#: Phase: between fibers (reading the level above), before a fiber's first coordinate, inside
#: a fiber, draining the inner stream after the done token of the level above.
ALIGN = State(phase=0, root=0)
PHASE, ROOT = ALIGN.slots
BETWEEN, START, INSIDE, DRAIN = 0, 1, 2, 3
ERR_SHAPE = 1


@kernel
def align(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Input 0 the level above (scanner form), input 1 the stream to align; output 0."""
    co = ins[0]
    ci = ins[1]
    while st[STATUS] == 0:
        phase = st[PHASE]
        if phase == BETWEEN:
            t_in = arrive(w, st, co, st[T])
            if t_in == NOT_YET:
                return RC_IN
            k = hkind(w, co)
            if k == DATA and st[ROOT] == 1:  # the root's one fiber (may be empty)
                fire(st, t_in, t_in)
                pop(w, co, t_in)
                st[PHASE] = START
            elif k == DATA:  # a fiber begins: its first inner token in the same firing
                t_in = arrive(w, st, ci, t_in)
                if t_in == NOT_YET:
                    return RC_IN
                ki = hkind(w, ci)
                if ki == DATA:
                    t_out = reserve_all(w, st, optr, ochan, t_in)
                    if t_out < 0:
                        return blocked(t_out)
                    a = fire(st, t_in, t_out)
                    push(w, optr, ochan, 0, DATA, hdata(w, ci), a)
                    pop(w, ci, t_out)
                    st[PHASE] = INSIDE
                elif ki == STOP:  # a lone stop: the mark of a fiber above
                    fire(st, t_in, t_in)
                    pop(w, ci, t_in)
                    st[PHASE] = START
                else:
                    return fail(st, ERR_SHAPE, w, ci, 1)
                pop(w, co, st[T] - 1)
            elif k == STOP:
                t_out = reserve_all(w, st, optr, ochan, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, 0, STOP, hdata(w, co) + 1, a)
                pop(w, co, t_out)
            elif k == DONE:
                fire(st, t_in, t_in)
                pop(w, co, t_in)
                st[PHASE] = DRAIN
            else:
                return fail(st, ERR_SHAPE, w, co, 0)
        elif phase == START or phase == INSIDE:
            t_in = arrive(w, st, ci, st[T])
            if t_in == NOT_YET:
                return RC_IN
            k = hkind(w, ci)
            if k == DATA:
                t_out = reserve_all(w, st, optr, ochan, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, 0, DATA, hdata(w, ci), a)
                pop(w, ci, t_out)
                st[PHASE] = INSIDE
            elif k == DONE and phase == START and st[ROOT] == 1:  # no root fiber: empty
                t_out = reserve_all(w, st, optr, ochan, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, 0, STOP, 0, a)
                st[PHASE] = BETWEEN
            elif k == STOP and phase == START and st[ROOT] == 0:  # a lone stop: a mark
                fire(st, t_in, t_in)
                pop(w, ci, t_in)
            elif k == STOP:  # the fiber ends: its stop follows the level above
                t_in = arrive(w, st, co, t_in)
                if t_in == NOT_YET:
                    return RC_IN
                ko = hkind(w, co)
                t_out = reserve_all(w, st, optr, ochan, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                if ko == STOP:
                    push(w, optr, ochan, 0, STOP, hdata(w, co) + 1, a)
                    pop(w, co, t_out)
                else:
                    push(w, optr, ochan, 0, STOP, 0, a)
                pop(w, ci, t_out)
                st[PHASE] = BETWEEN
            else:
                return fail(st, ERR_SHAPE, w, ci, 1)
        else:  # DRAIN
            t_in = arrive(w, st, ci, st[T])
            if t_in == NOT_YET:
                return RC_IN
            k = hkind(w, ci)
            if k == DATA:
                return fail(st, ERR_SHAPE, w, ci, 1)
            if k == DONE:
                t_out = reserve_all(w, st, optr, ochan, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, 0, DONE, 0, a)
                pop(w, ci, t_out)
                st[STATUS] = 1
            else:
                fire(st, t_in, t_in)
                pop(w, ci, t_in)
    return RC_DONE


class FiberAligner(Block):
    """Aligns a coordinate stream to the level above it, in scanner form; DOT type
    ``fiberalign``."""

    dot_type = "fiberalign"
    family = "drop"
    kernel = align
    state = ALIGN
    errors = {ERR_SHAPE: "the stream has fewer fibers than the level above has coordinates "
                         "(or a coordinate after the level above ended)"}

    #: ``root=true``: the stream is a root level, aligned to the root stream ``0, D`` (its one
    #: fiber, possibly empty, closed by its first stop or by the done token).
    reads_root = True

    def inputs(self) -> list[Port]:
        if self.is_root:
            return [Port("ref", optional=True), Port("crd", "inner")]
        return [Port("crd", "outer"), Port("crd", "inner")]

    def params(self, tensors) -> dict[str, int]:
        return {"root": int(self.is_root)}

    def outputs(self) -> list[Port]:
        return [Port("crd", optional=True)]

    def label(self) -> str:
        index = self.attrs.get("index", "")
        return f"align {index}".strip()
