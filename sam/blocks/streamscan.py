"""Stream scanner (our addition, for fused programs): a level scanner (SAM paper Def. 3.1) whose
level arrives as a stream instead of sitting in memory.

Inputs: ``ref``, the references a level scanner would take (positions in the level above, in
increasing order; ``root=true`` reads the root stream ``0, D``); ``crd``, the level's coordinate
stream in scanner form (one fiber per coordinate of the level above, none of them empty, lone
stops marking empty fibers above: what :mod:`sam.blocks.aligners` gives); optionally
``ref:words``, one word per coordinate of that stream in its shape (a producer's values,
:mod:`sam.blocks.retype`). Outputs: ``crd`` and ``ref``, as a level scanner gives them for the
same references; each reference is the coordinate's position in the stream, or its word.

The stream is read once, in order: the fibers of the references not asked for are skipped, and
at the done token the rest of the stream is drained. A reference lower than one already passed
is refused (the stream is gone); so is one past the stream's end. At the root, the first stop
closes fiber 0 even when no coordinate precedes it (an empty result).

Timing: one firing per cycle, each taking at most one token of each input and emitting at most
one token per output. As a level scanner, a fiber of L coordinates takes L cycles and one for its
stop; every token of a skipped fiber (or a lone stop) takes a cycle of its own.
"""

from __future__ import annotations

from sam.blocks.base import Block, Port
from sam.runtime.jit import jitable
from sam.runtime.kernel import NOT_YET, State, arrive, blocked, fail, fire, kernel, reserve_all
from sam.runtime.tokens import DATA, DONE, EMPTY, STOP
from sam.runtime.wires import DONE_T, RC_DONE, RC_IN, STATUS, T, hdata, hkind, pop, push

#: phase; fibers of the stream passed; coordinates passed; the fiber wanted; whether the last
#: stream token was a coordinate; whether this is the root level.
SSCAN = State(phase=0, fib=0, pos=0, target=0, prev_data=0, root=0)
PHASE, FIB, POS, TARGET, PREV_DATA, ROOT = SSCAN.slots
NEED_REF, SEEK, IN_FIBER, CLOSE, DRAIN = 0, 1, 2, 3, 4
ERR_ORDER, ERR_RANGE, ERR_SHAPE, ERR_TOKEN = 1, 2, 3, 4


@jitable
def take(w, cs, cw, t):
    """Pop the head of the stream (and of its words, if any) in cycle ``t``."""
    pop(w, cs, t)
    if cw >= 0:
        pop(w, cw, t)


@kernel
def stream_scan(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Input 0 references, input 1 the level's stream, input 2 its words (optional)."""
    cin = ins[0]
    cs = ins[1]
    cw = ins[2] if ins.shape[0] > 2 else -1
    while st[STATUS] == 0:
        phase = st[PHASE]
        t = st[T]
        if phase == SEEK or phase == IN_FIBER or phase == DRAIN:
            t = arrive(w, st, cs, t)
            if t == NOT_YET:
                return RC_IN
            if cw >= 0:
                t = arrive(w, st, cw, t)
                if t == NOT_YET:
                    return RC_IN
                if hkind(w, cw) != hkind(w, cs):
                    return fail(st, ERR_SHAPE, w, cw, 2)
            k = hkind(w, cs)
            if phase == DRAIN:
                if k == DONE:
                    t_out = reserve_all(w, st, optr, ochan, t)
                    if t_out < 0:
                        return blocked(t_out)
                    a = fire(st, t, t_out)
                    take(w, cs, cw, t_out)
                    pop(w, cin, t_out)
                    push(w, optr, ochan, 0, DONE, 0, a)
                    push(w, optr, ochan, 1, DONE, 0, a)
                    st[DONE_T] = t_out
                    st[STATUS] = 1
                else:
                    fire(st, t, t)
                    take(w, cs, cw, t)
                continue
            if k == DONE:
                return fail(st, ERR_RANGE, w, cin, 0)
            if k != DATA and k != STOP:
                return fail(st, ERR_SHAPE, w, cs, 1)
            closes = k == STOP and (st[PREV_DATA] == 1 or (st[ROOT] == 1 and st[FIB] == 0))
            if phase == SEEK and st[FIB] < st[TARGET]:  # skip a token of a fiber not asked for
                fire(st, t, t)
                take(w, cs, cw, t)
                if k == DATA:
                    st[POS] += 1
                    st[PREV_DATA] = 1
                else:
                    st[PREV_DATA] = 0
                    if closes:
                        st[FIB] += 1
                continue
            if k == STOP and not closes:  # a lone stop: the mark of an empty fiber above
                fire(st, t, t)
                take(w, cs, cw, t)
                continue
            if k == DATA:  # a coordinate of the fiber asked for
                t_out = reserve_all(w, st, optr, ochan, t)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t, t_out)
                word = hdata(w, cw) if cw >= 0 else st[POS]
                push(w, optr, ochan, 0, DATA, hdata(w, cs), a)
                push(w, optr, ochan, 1, DATA, word, a)
                take(w, cs, cw, t_out)
                if phase == SEEK:
                    pop(w, cin, t_out)  # the reference is taken with its first coordinate
                st[POS] += 1
                st[PREV_DATA] = 1
                st[PHASE] = IN_FIBER
                continue
            # the stop closing the fiber asked for
            if phase == SEEK:  # an empty fiber (the root's): take the reference, stop next
                fire(st, t, t)
                take(w, cs, cw, t)
                pop(w, cin, t)
                st[PREV_DATA] = 0
                st[FIB] += 1
                st[PHASE] = CLOSE
                continue
            t = arrive(w, st, cin, t)  # the next reference token sets the stop's level
            if t == NOT_YET:
                return RC_IN
            kin = hkind(w, cin)
            t_out = reserve_all(w, st, optr, ochan, t)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t, t_out)
            take(w, cs, cw, t_out)
            st[PREV_DATA] = 0
            st[FIB] += 1
            level = 0
            if kin == STOP:
                level = hdata(w, cin) + 1
                pop(w, cin, t_out)
            push(w, optr, ochan, 0, STOP, level, a)
            push(w, optr, ochan, 1, STOP, level, a)
            st[PHASE] = NEED_REF
            continue

        # NEED_REF or CLOSE: the next reference token
        t_in = arrive(w, st, cin, t)
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, cin)
        if phase == NEED_REF and k == DATA:
            r = hdata(w, cin)
            if r < st[FIB]:
                return fail(st, ERR_ORDER, w, cin, 0)
            st[TARGET] = r
            st[PHASE] = SEEK
            continue
        if phase == NEED_REF and k == EMPTY:  # an empty fiber: take it now, its stop next
            fire(st, t_in, t_in)
            pop(w, cin, t_in)
            st[PHASE] = CLOSE
            continue
        if phase == NEED_REF and k == DONE:
            st[PHASE] = DRAIN
            continue
        if k != DATA and k != EMPTY and k != STOP and k != DONE:
            return fail(st, ERR_TOKEN, w, cin, 0)
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        a = fire(st, t_in, t_out)
        level = 0
        if k == STOP:
            level = hdata(w, cin) + 1
            pop(w, cin, t_out)
        push(w, optr, ochan, 0, STOP, level, a)
        push(w, optr, ochan, 1, STOP, level, a)
        st[PHASE] = NEED_REF
    return RC_DONE


class StreamScanner(Block):
    """A level scanner over a streamed level (see module docstring); DOT type
    ``fiberstream``."""

    dot_type = "fiberstream"
    family = "scan"
    kernel = stream_scan
    state = SSCAN
    reads_root = True
    errors = {
        ERR_ORDER: "a reference below one already passed (a stream is read once, in order)",
        ERR_RANGE: "a reference past the end of the stream",
        ERR_SHAPE: "the words do not have the shape of the coordinate stream (or it holds N)",
        ERR_TOKEN: "unexpected token on the reference input",
    }

    def __init__(self, node_id, attrs=None) -> None:
        super().__init__(node_id, attrs)
        self.words = False

    def declare_port(self, direction: str, kind: str, comment: str) -> None:
        """A ``ref:words`` edge in: the words stream."""
        if direction == "in" and kind == "ref" and comment == "words":
            self.words = True

    def inputs(self) -> list[Port]:
        ports = [Port("ref", optional=self.is_root), Port("crd")]
        return [*ports, Port("ref", "words")] if self.words else ports

    def outputs(self) -> list[Port]:
        return [Port("crd", optional=True), Port("ref", optional=True)]

    def params(self, tensors) -> dict[str, int]:
        return {"root": int(self.is_root)}

    def label(self) -> str:
        return f"stream scan {self.attrs.get('index', '')}: {self.attrs.get('stream', '')}"
