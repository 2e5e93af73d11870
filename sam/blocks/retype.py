"""Retype: one stream passed on as another kind (our addition, for fused programs).

A stream's tokens are machine words (``sam.runtime.tokens``: a value's float64 bits, a reference's
int64). A ``retype`` node (attributes ``from`` and ``to``, each ``crd``, ``ref`` or ``val``)
copies every token unchanged, word for word, onto an output of another kind. Fusion
(``custard.dag.fusion``) uses it to let a producer's value stream travel through the consumer's
merges and repeaters in place of the intermediate tensor's last-level references (SAM paper
Defs. 3.2-3.4 move references without looking at them), and back to a value stream where the
consumer would have loaded the value with an array (Def. 3.5).

A ``val -> ref`` node may also take a coordinate stream (``crd`` input): it then gives the
values the *shape* of that stream - one value word per coordinate, the coordinate stream's stop
and done tokens - skipping the stop tokens of the value stream. A producer's value stream and
the coordinate stream of its last output level hold the same data tokens in the same order (the
level writers pair them by position), but a coordinate dropper (Def. 3.9) may have removed
empty fibers' stops from the coordinates only; the shaped copy is what the references of a
scan of the stored level would be, value for position.

Timing: one token per cycle, like a pipeline register (latency 1); a skipped value stop takes
a cycle of its own.
"""

from __future__ import annotations

from sam.blocks.base import Block, Port
from sam.errors import GraphError
from sam.runtime.jit import jitable
from sam.runtime.kernel import NOT_YET, arrive, blocked, fail, fire, kernel, reserve_all
from sam.runtime.tokens import DATA, DONE, STOP
from sam.runtime.wires import RC_DONE, RC_IN, STATUS, T, hdata, hkind, pop, push

#: The stream kinds a retype node may join.
KINDS = ("crd", "ref", "val")
ERR_SHAPE = 1


@kernel
def retype(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Copy every token (kind and payload word) from input 0 to output 0; with a shape (input
    1), copy the data tokens of input 0 in the shape of input 1."""
    c = ins[0]
    if ins.shape[0] > 1 and ins[1] >= 0:
        return shaped(w, st, c, ins[1], optr, ochan)
    while st[STATUS] == 0:
        t_in = arrive(w, st, c, st[T])
        if t_in == NOT_YET:
            return RC_IN
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        k = hkind(w, c)
        a = fire(st, t_in, t_out)
        push(w, optr, ochan, 0, k, hdata(w, c), a)
        pop(w, c, t_out)
        if k == DONE:
            st[STATUS] = 1
    return RC_DONE


@jitable
def shaped(w, st, cv, cs, optr, ochan):
    """The words of value channel ``cv`` in the shape of coordinate channel ``cs``."""
    while st[STATUS] == 0:
        t_in = arrive(w, st, cs, st[T])
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, cs)
        if k == DATA or k == DONE:
            t_in = arrive(w, st, cv, t_in)
            if t_in == NOT_YET:
                return RC_IN
            kv = hkind(w, cv)
            if kv == STOP:  # a stop the coordinates do not have: skip it
                fire(st, t_in, t_in)
                pop(w, cv, t_in)
                continue
            if kv != k:
                return fail(st, ERR_SHAPE, w, cv, 0)
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            push(w, optr, ochan, 0, k, hdata(w, cv), a)
            pop(w, cv, t_out)
            pop(w, cs, t_out)
            if k == DONE:
                st[STATUS] = 1
        else:
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            push(w, optr, ochan, 0, k, hdata(w, cs), a)
            pop(w, cs, t_out)
    return RC_DONE


class Retype(Block):
    """Passes a stream on as another stream kind; DOT type ``retype`` (``from``, ``to``)."""

    dot_type = "retype"
    family = "wire"
    kernel = retype
    required_attrs = ("from", "to")
    errors = {ERR_SHAPE: "the value stream does not hold one value per coordinate of its shape"}

    def __init__(self, node_id, attrs=None) -> None:
        super().__init__(node_id, attrs)
        for key in ("from", "to"):
            if self.attrs[key] not in KINDS:
                raise GraphError(f"node {self.id} (retype): {key}={self.attrs[key]!r} is not a "
                                 f"stream kind; use one of {', '.join(KINDS)}")

    def inputs(self) -> list[Port]:
        if (self.attrs["from"], self.attrs["to"]) == ("val", "ref"):
            return [Port("val"), Port("crd", optional=True)]
        return [Port(self.attrs["from"])]

    def outputs(self) -> list[Port]:
        return [Port(self.attrs["to"], optional=True)]

    def label(self) -> str:
        return f"retype {self.attrs['from']} -> {self.attrs['to']}"
