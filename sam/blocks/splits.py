"""Iteration splitting: the split and flatten blocks (SAM paper Sec. 4.1; Figure 13's "w/ split").

**Split** (``split``, attribute ``split`` = s) turns one coordinate stream into two levels: an
outer stream of chunk ids ``c // s`` (one per nonempty chunk of a fiber) and an inner stream
holding one fiber per chunk, closed by ``S0`` where the chunk changes. The inner coordinates are
the input coordinates (``orig_crd=true``, the default) or their offsets ``c % s`` within the chunk
(``orig_crd=false``, the inner level of a tiled tensor). An input stop ``Sn`` closes both: ``Sn``
on the outer stream and ``S(n+1)`` on the inner one. ``0, 2, 3, 9, 11, 12, S0, D`` with s = 4:
outer ``0, 2, 3, S0, D``, inner ``0, 2, 3, S0, 9, 11, S0, 12, S1, D``.

**Flatten** (``flatten``) is its inverse: outer chunk ids and inner fibers back into one
coordinate stream (``q*s + c`` for offsets, the inner coordinate itself otherwise).

Timing. Split: one cycle per input token, plus one for each ``S0`` closing a chunk before the next
one starts. Flatten: one cycle per inner token, the chunk-closing ``S0`` and the outer chunk id
taken together; a fiber's closing stop takes the last chunk id in one cycle and emits the stop in
the next.
"""

from __future__ import annotations

from sam.blocks.base import Block, Port
from sam.errors import GraphError
from sam.sim.kernel import (
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
from sam.sim.tokens import DATA, DONE, EMPTY, STOP
from sam.sim.wires import DONE_T, RC_DONE, RC_IN, STATUS, T, hdata, hkind, pop, push

SPLIT = State(s=1, orig=1, chunk=-1, last=-1)
S, ORIG, CHUNK, LAST = SPLIT.slots
ERR_KIND, ERR_ORDER, ERR_ALIGN = 1, 2, 3


@kernel
def split(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Split: output 0 outer chunk ids, output 1 inner coordinates."""
    cin = ins[0]
    s = st[S]
    while st[STATUS] == 0:
        t_in = arrive(w, st, cin, st[T])
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, cin)
        x = hdata(w, cin)
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
                st[CHUNK] = -1
                continue
            t_out = reserve_all(w, st, optr, ochan, t_in) if st[CHUNK] < 0 else reserve(
                w, st, optr, ochan, 1, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            pop(w, cin, t_out)
            if st[CHUNK] < 0:
                push(w, optr, ochan, 0, DATA, q, a)
            push(w, optr, ochan, 1, DATA, x if st[ORIG] == 1 else x - q * s, a)
            st[CHUNK] = q
            st[LAST] = x
            continue
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        a = fire(st, t_in, t_out)
        pop(w, cin, t_out)
        if k == STOP:
            push(w, optr, ochan, 0, STOP, x, a)
            push(w, optr, ochan, 1, STOP, x + 1, a)
            st[CHUNK] = -1
            st[LAST] = -1
        else:
            push(w, optr, ochan, 0, DONE, 0, a)
            push(w, optr, ochan, 1, DONE, 0, a)
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
              ERR_ORDER: "coordinates of a fiber are not strictly increasing"}

    def inputs(self) -> list[Port]:
        return [Port("crd")]

    def outputs(self) -> list[Port]:
        return [Port("crd", "outer", optional=True), Port("crd", "inner", optional=True)]

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
