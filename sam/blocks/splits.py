"""Iteration splitting: the split and flatten blocks (SAM paper Sec. 4.1; Figure 13's "w/ split").

**Split** (``split``, attribute ``split`` = s) turns one coordinate stream into two levels: an
outer stream of chunk ids ``c // s`` (one per nonempty chunk of a fiber) and an inner stream
holding one fiber per chunk, closed by ``S0`` where the chunk changes. The inner coordinates are
the input coordinates (``orig_crd=true``, the default) or their offsets ``c % s`` within the chunk
(``orig_crd=false``, the inner level of a tiled tensor). An input stop ``Sn`` closes both: ``Sn``
on the outer stream and ``S(n+1)`` on the inner one. ``0, 2, 3, 9, 11, 12, S0, D`` with s = 4:
outer ``0, 2, 3, S0, D``, inner ``0, 2, 3, S0, 9, 11, S0, 12, S1, D``.

With a reference input, split also emits each chunk's *ordinal* (0, 1, 2, ... over the whole
stream) on ``ref:outer`` and the coordinates' references on ``ref:inner`` (stops as on the
coordinate outputs), so that a **chunk selector** (``chunkselect``) can pick the inner fibers of
chosen chunks out of the stream: per input ordinal it skips the inner fibers before it (one
cycle per token) and copies that fiber (one cycle per coordinate), then its stop, as a level
scanner does from memory (an empty reference gives an empty fiber; the rest of the stream is
skipped at the end). Split, merge of chunk ids, chunk selector and merge of offsets are the
*online* split (:mod:`custard.splitting`).

**Flatten** (``flatten``) is its inverse: outer chunk ids and inner fibers back into one
coordinate stream (``q*s + c`` for offsets, the inner coordinate itself otherwise). The levels
stored below a flattened pair lose one level of nesting: a **stop flattener** (``flattenstops``,
attribute ``depth`` = d, the level's distance below the inner one) passes a coordinate stream
with its stops ``Sk``, k >= d, lowered to ``S(k-1)`` (a chunk's end becomes one more fiber end
of the flattened level; ``a, S0, b, S1, c, S2`` at d = 1 becomes ``a, S0, b, S0, c, S1``).

Timing. Split: one cycle per input token, plus one for each ``S0`` closing a chunk before the next
one starts. Flatten: one cycle per inner token, the chunk-closing ``S0`` and the outer chunk id
taken together; a fiber's closing stop takes the last chunk id in one cycle and emits the stop in
the next. Stop flattener: one cycle per token.
"""

from __future__ import annotations

from sam.blocks.base import Block, Port
from sam.errors import GraphError
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
from sam.runtime.wires import DONE_T, RC_DONE, RC_IN, STATUS, T, hdata, hkind, pop, push

SPLIT = State(s=1, orig=1, chunk=-1, last=-1, ordinal=0)
S, ORIG, CHUNK, LAST, ORDINAL = SPLIT.slots
ERR_KIND, ERR_ORDER, ERR_ALIGN, ERR_REFS = 1, 2, 3, 4


@kernel
def split(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Split: output 0 outer chunk ids, output 1 inner coordinates; with input 1 (references)
    connected, output 2 each chunk's ordinal and output 3 the references of the coordinates."""
    cin = ins[0]
    rin = ins[1]
    s = st[S]
    while st[STATUS] == 0:
        t_in = arrive(w, st, cin, st[T])
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, cin)
        x = hdata(w, cin)
        r = 0
        if rin >= 0:
            t_in = arrive(w, st, rin, t_in)
            if t_in == NOT_YET:
                return RC_IN
            r = hdata(w, rin)
            if hkind(w, rin) != k and not (k == DATA and hkind(w, rin) == EMPTY):
                return fail(st, ERR_REFS, w, rin, 1)
        if k == EMPTY:
            return fail(st, ERR_KIND, w, cin, 0)
        if k == DATA:
            if x <= st[LAST]:
                return fail(st, ERR_ORDER, w, cin, 0)
            q = x // s
            if st[CHUNK] >= 0 and q != st[CHUNK]:
                # Close the chunk before this coordinate's.
                t_out = reserve(w, st, optr, ochan, 1, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, 1, STOP, 0, a)
                push(w, optr, ochan, 3, STOP, 0, a)
                st[CHUNK] = -1
                continue
            t_out = reserve_all(w, st, optr, ochan, t_in) if st[CHUNK] < 0 else reserve(
                w, st, optr, ochan, 1, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            pop(w, cin, t_out)
            if rin >= 0:
                push(w, optr, ochan, 3, hkind(w, rin), r, a)
                pop(w, rin, t_out)
            if st[CHUNK] < 0:
                push(w, optr, ochan, 0, DATA, q, a)
                push(w, optr, ochan, 2, DATA, st[ORDINAL], a)
                st[ORDINAL] += 1
            push(w, optr, ochan, 1, DATA, x if st[ORIG] == 1 else x - q * s, a)
            st[CHUNK] = q
            st[LAST] = x
            continue
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        a = fire(st, t_in, t_out)
        pop(w, cin, t_out)
        if rin >= 0:
            pop(w, rin, t_out)
        if k == STOP:
            push(w, optr, ochan, 0, STOP, x, a)
            push(w, optr, ochan, 1, STOP, x + 1, a)
            push(w, optr, ochan, 2, STOP, x, a)
            push(w, optr, ochan, 3, STOP, x + 1, a)
            st[CHUNK] = -1
            st[LAST] = -1
        else:
            for port in range(4):
                push(w, optr, ochan, port, DONE, 0, a)
            st[DONE_T] = t_out
            st[STATUS] = 1
    return RC_DONE


@kernel
def flatten(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Flatten: input 0 outer chunk ids, input 1 inner coordinates; output 0 coordinates."""
    co = ins[0]
    ci = ins[1]
    s = st[S]
    while st[STATUS] == 0:
        t_in = arrive(w, st, ci, st[T])
        if t_in == NOT_YET:
            return RC_IN
        t_in = arrive(w, st, co, t_in)
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, ci)
        x = hdata(w, ci)
        ko = hkind(w, co)
        if k == EMPTY or ko == EMPTY:
            return fail(st, ERR_KIND, w, ci if k == EMPTY else co, 0 if ko == EMPTY else 1)
        if k == DATA:
            if ko != DATA:
                return fail(st, ERR_ALIGN, w, co, 0)
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            pop(w, ci, t_out)
            push(w, optr, ochan, 0, DATA, x if st[ORIG] == 1 else hdata(w, co) * s + x, a)
            continue
        if k == STOP and x == 0:
            # A chunk ends: its id is used up.
            if ko != DATA:
                return fail(st, ERR_ALIGN, w, co, 0)
            fire(st, t_in, t_in)
            pop(w, ci, t_in)
            pop(w, co, t_in)
            continue
        if ko == DATA:
            # The fiber's last chunk: take its id; the stop goes out next.
            fire(st, t_in, t_in)
            pop(w, co, t_in)
            continue
        if (k == DONE) != (ko == DONE) or (k == STOP and hdata(w, co) != x - 1):
            return fail(st, ERR_ALIGN, w, co, 0)
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        a = fire(st, t_in, t_out)
        pop(w, ci, t_out)
        pop(w, co, t_out)
        if k == STOP:
            push(w, optr, ochan, 0, STOP, x - 1, a)
        else:
            push(w, optr, ochan, 0, DONE, 0, a)
            st[DONE_T] = t_out
            st[STATUS] = 1
    return RC_DONE


def _split_params(block: Block) -> dict[str, int]:
    raw = block.attrs.get("split", "")
    try:
        s = int(raw)
    except ValueError:
        s = 0
    if s < 1:
        raise GraphError(f"node {block.id} ({block.dot_type}): split={raw!r} must be a positive "
                         'integer chunk size, e.g. split="64"')
    orig = block.attrs.get("orig_crd", "true")
    if orig not in ("true", "false"):
        raise GraphError(f"node {block.id} ({block.dot_type}): orig_crd={orig!r} must be true "
                         "or false")
    return {"s": s, "orig": 1 if orig == "true" else 0}


class Split(Block):
    """Split a coordinate stream into chunk ids and inner fibers (Sec. 4.1); DOT type
    ``split`` with ``split`` (chunk size) and ``orig_crd``."""

    dot_type = "split"
    family = "convert"
    kernel = split
    state = SPLIT
    required_attrs = ("split",)
    errors = {ERR_KIND: "an empty token (N) on a coordinate input",
              ERR_ORDER: "coordinates of a fiber are not strictly increasing",
              ERR_REFS: "the reference stream does not line up with the coordinate stream"}

    def inputs(self) -> list[Port]:
        return [Port("crd"), Port("ref", optional=True)]

    def outputs(self) -> list[Port]:
        return [Port("crd", "outer", optional=True), Port("crd", "inner", optional=True),
                Port("ref", "outer", optional=True), Port("ref", "inner", optional=True)]

    def params(self, tensors) -> dict[str, int]:
        return _split_params(self)


class Flatten(Block):
    """Flatten chunk ids and inner fibers back into one coordinate stream (Sec. 4.1); DOT type
    ``flatten`` with ``split`` and ``orig_crd``."""

    dot_type = "flatten"
    family = "convert"
    kernel = flatten
    state = SPLIT
    required_attrs = ("split",)
    errors = {ERR_KIND: "an empty token (N) on a coordinate input",
              ERR_ALIGN: "the inner stream's chunks do not line up with the outer chunk ids"}

    def inputs(self) -> list[Port]:
        return [Port("crd", "outer"), Port("crd", "inner")]

    def outputs(self) -> list[Port]:
        return [Port("crd")]

    def params(self, tensors) -> dict[str, int]:
        return _split_params(self)


NEED_REF, SKIP, COPY, CLOSE, DRAIN = 0, 1, 2, 3, 4
SELECT = State(phase=NEED_REF, fiber=0, seen=0, target=0)
PHASE, FIBER, SEEN, TARGET = SELECT.slots
ERR_SELECT_ORDER, ERR_SELECT_END = 1, 2


@kernel
def chunkselect(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Chunk selector: input 0 chunk ordinals (a reference stream), inputs 1 and 2 the inner
    coordinates and references of a split; outputs 0 and 1 the selected fibers."""
    cr = ins[0]
    ci = ins[1]
    ri = ins[2]
    while st[STATUS] == 0:
        t = st[T]
        phase = st[PHASE]
        if phase == SKIP or phase == COPY or phase == DRAIN:
            t_in = arrive(w, st, ci, t)
            if t_in == NOT_YET:
                return RC_IN
            if ri >= 0:
                t_in = arrive(w, st, ri, t_in)
                if t_in == NOT_YET:
                    return RC_IN
            k = hkind(w, ci)
            if phase == COPY and k == DATA:
                t_out = reserve_all(w, st, optr, ochan, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, 0, DATA, hdata(w, ci), a)
                push(w, optr, ochan, 1, hkind(w, ri) if ri >= 0 else EMPTY,
                     hdata(w, ri) if ri >= 0 else 0, a)
                pop(w, ci, t_out)
                if ri >= 0:
                    pop(w, ri, t_out)
                st[SEEN] = 1
                continue
            if k == DONE:
                if phase != DRAIN:
                    return fail(st, ERR_SELECT_END, w, cr, 0)
                t_in = arrive(w, st, cr, t_in)
                if t_in == NOT_YET:
                    return RC_IN
                t_out = reserve_all(w, st, optr, ochan, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, 0, DONE, 0, a)
                push(w, optr, ochan, 1, DONE, 0, a)
                pop(w, ci, t_out)
                pop(w, cr, t_out)
                if ri >= 0:
                    pop(w, ri, t_out)
                st[DONE_T] = t_out
                st[STATUS] = 1
                continue
            # Skip a token (a coordinate of an unselected fiber, or a stop).
            fire(st, t_in, t_in)
            pop(w, ci, t_in)
            if ri >= 0:
                pop(w, ri, t_in)
            if k == DATA:
                st[SEEN] = 1
                continue
            if st[SEEN] == 1:  # a stop ending a chunk's fiber (a bare stop ends none)
                st[FIBER] += 1
                st[SEEN] = 0
                if phase == COPY:
                    st[PHASE] = CLOSE
                elif phase == SKIP and st[FIBER] == st[TARGET]:
                    st[PHASE] = COPY
            continue
        t_in = arrive(w, st, cr, t)
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, cr)
        r = hdata(w, cr)
        if phase == NEED_REF and k == DATA:
            if r < st[FIBER]:
                return fail(st, ERR_SELECT_ORDER, w, cr, 0)
            fire(st, t_in, t_in)
            pop(w, cr, t_in)
            st[TARGET] = r
            st[PHASE] = COPY if r == st[FIBER] else SKIP
            continue
        if phase == NEED_REF and k == EMPTY:
            fire(st, t_in, t_in)
            pop(w, cr, t_in)
            st[PHASE] = CLOSE
            continue
        if k == DONE and phase == NEED_REF:
            st[PHASE] = DRAIN
            continue
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        a = fire(st, t_in, t_out)
        if k == STOP:
            pop(w, cr, t_out)
            push(w, optr, ochan, 0, STOP, r + 1, a)
            push(w, optr, ochan, 1, STOP, r + 1, a)
        else:  # close the fiber before the next reference or the end
            push(w, optr, ochan, 0, STOP, 0, a)
            push(w, optr, ochan, 1, STOP, 0, a)
        st[PHASE] = NEED_REF
    return RC_DONE


class ChunkSelector(Block):
    """Chunk selector (online split, Sec. 4.1): the inner fibers of the chunks whose ordinals
    come in, read from a split's inner streams; DOT type ``chunkselect``."""

    dot_type = "chunkselect"
    family = "scan"
    kernel = chunkselect
    state = SELECT
    errors = {ERR_SELECT_ORDER: "chunk ordinals must increase",
              ERR_SELECT_END: "a chunk ordinal past the split's last chunk"}

    def inputs(self) -> list[Port]:
        return [Port("ref"), Port("crd", "inner"), Port("ref", "inner", optional=True)]

    def outputs(self) -> list[Port]:
        return [Port("crd", optional=True), Port("ref", optional=True)]


LOWER = State(depth=1)
(DEPTH,) = LOWER.slots


@kernel
def flattenstops(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Stop flattener: input 0 a coordinate stream, output 0 the same with stops ``Sk``,
    k >= depth, as ``S(k-1)``."""
    c = ins[0]
    while st[STATUS] == 0:
        t_in = arrive(w, st, c, st[T])
        if t_in == NOT_YET:
            return RC_IN
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        a = fire(st, t_in, t_out)
        k = hkind(w, c)
        x = hdata(w, c)
        pop(w, c, t_out)
        if k == STOP and x >= st[DEPTH]:
            x -= 1
        push(w, optr, ochan, 0, k, x, a)
        if k == DONE:
            st[DONE_T] = t_out
            st[STATUS] = 1
    return RC_DONE


class StopFlattener(Block):
    """The stream of a level ``depth`` levels below a flattened (outer, inner) pair, its stops
    lowered by one from ``depth`` up (Sec. 4.1); DOT type ``flattenstops``."""

    dot_type = "flattenstops"
    family = "convert"
    kernel = flattenstops
    state = LOWER
    required_attrs = ("depth",)

    def inputs(self) -> list[Port]:
        return [Port("crd")]

    def outputs(self) -> list[Port]:
        return [Port("crd")]

    def params(self, tensors) -> dict[str, int]:
        raw = self.attrs.get("depth", "")
        if not raw.isdigit() or int(raw) < 1:
            raise GraphError(f"node {self.id} (flattenstops): depth={raw!r} must be a positive "
                             'integer (the level\'s distance below the flattened inner level), '
                             'e.g. depth="1"')
        return {"depth": int(raw)}
