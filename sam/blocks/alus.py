"""ALUs (SAM paper Def. 3.6): element-wise arithmetic on value streams.

A binary ALU takes two value streams of the same shape and emits ``a op b`` for each pair of
values, with an empty token ``N`` standing for zero (the identity the paper gives); two empty
tokens give an empty token. Stop and done tokens must line up and pass through. Operations:
add (``add``, or ``add`` with ``sub=1`` as in the Custard schema, or ``sub``), ``mul``, ``div``,
``max``, ``min``. A unary ALU (``neg``, ``abs``, ``exp``, ``relu``; for later front ends) maps one
stream; ``N`` stays ``N``. One firing per cycle.

Compatibility with the original SAM simulator (``align=original``, which the DOT reader sets on
the binary ALUs of the original Custard's graphs; docs/fidelity.md): the original's adder,
fed by a unioner branch, pairs a value (an ``N`` loaded as 0, or a number) with a stop token
on the other input by combining it with 0 and keeping the stop for the next firing. With
``align=original`` a value (or ``N``) facing a stop token is combined with the identity 0 (an
``N`` stays ``N``) and only the value is taken; the original ignores the subtraction's sign
there, which is not followed. Our own graphs keep the strict check.
"""

from __future__ import annotations

import math

from sam.blocks.base import Block, Port, Ports
from sam.errors import GraphError
from sam.runtime.burst import (
    burst_len,
    close_run,
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
from sam.runtime.wires import LAT, RC_DONE, RC_IN, STATUS, T, hdata, hkind, hval, pop, push, pushv

ADD, SUB, MUL, DIV, MAX, MIN = range(6)
BINARY_OPS = {"add": ADD, "sub": SUB, "mul": MUL, "div": DIV, "max": MAX, "min": MIN}
NEG, ABS, EXP, RELU = range(4)
UNARY_OPS = {"neg": NEG, "abs": ABS, "exp": EXP, "relu": RELU}
#: The operation (a code above); ``lenient``: ``align=original`` (see module docstring).
ALU = State(op=ADD, lenient=0)
OP, LENIENT = ALU.slots
#: A binary ALU's inputs (a, b), a unary ALU's, and the output of both.
ALU2_IN = Ports.inputs(a=Port("val", "in0"), b=Port("val", "in1"))
A_IN, B_IN = ALU2_IN.slots
ALU1_IN = Ports.inputs(val=Port("val"))
(VAL_IN,) = ALU1_IN.slots
ALU_OUT = Ports.outputs(val=Port("val"))
(VAL_OUT,) = ALU_OUT.slots
#: Largest x whose exp(x) is finite (math.exp raises OverflowError beyond it; numba gives inf).
EXP_MAX = 709.782712893384
ERR_ALIGN = 1


@jitable(inline=True)
def binary(op, x, y):
    """``x op y`` (a binary operation code)."""
    if op == ADD:
        return x + y
    if op == SUB:
        return x - y
    if op == MUL:
        return x * y
    if op == DIV:
        if y != 0.0:
            return x / y
        return math.nan if x == 0.0 else math.copysign(math.inf, x)
    if op == MAX:
        return max(x, y)
    return min(x, y)


@jitable(inline=True)
def values_run(w, st, optr, ochan, ca, cb, o, n, op):
    """The loop of :func:`values_burst`: at most ``n`` firings, output rows of channel ``o``."""
    mask = ring_mask(w)
    ha = w.head[ca]
    hb = w.head[cb]
    ka = w.kind[ca]
    va = w.fdata[ca]
    da = w.data[ca]
    ta_ = w.time[ca]
    kb = w.kind[cb]
    vb = w.fdata[cb]
    db = w.data[cb]
    tb_ = w.time[cb]
    ko = w.kind[o]  # the rows of the first output channel
    vo = w.fdata[o]
    do = w.data[o]
    to = w.time[o]
    tail = w.tail[o]
    t_start = st[T]
    t = t_start
    lat = st[LAT]
    m = 0
    nstop = 0
    while m < n:
        sa = (ha + m) & mask
        sb = (hb + m) & mask
        so = (tail + m) & mask
        k = ka[sa]
        if k != kb[sb]:
            break
        if k == DATA:
            vo[so] = binary(op, va[sa], vb[sb])
        elif k == STOP and da[sa] == db[sb]:
            do[so] = da[sa]
            nstop += 1
        else:
            break  # values and stops of one level go through; the rest takes the general path
        ko[so] = k
        ta = ta_[sa]
        tb = tb_[sb]
        if tb > ta:
            ta = tb
        if ta > t:
            t = ta
        to[so] = t + lat
        t += 1
        m += 1
    if m > 0:
        w.head[ca] = ha + m
        w.head[cb] = hb + m
        t_in = ta_[ha & mask]  # the first firing's operands
        if tb_[hb & mask] > t_in:
            t_in = tb_[hb & mask]
        close_run(w, st, optr, ochan, VAL_OUT, m, nstop, t_in, t_start, t)
    return m


@jitable(inline=True)
def values_burst(w, st, optr, ochan, ca, cb, op):
    """Combine a run of value pairs, and pass the aligned stop tokens between them, in one
    loop (:mod:`sam.runtime.burst`); the firings made. The loop is written out for the
    multiplier and the adder (their operation a constant in it). A block whose output is
    unconnected takes the general path."""
    o = first_channel(optr, ochan, VAL_OUT)
    if o < 0:
        return 0
    n = burst_len(w, st, ochan, ca)
    nb = burst_len(w, st, ochan, cb)
    if nb < n:
        n = nb
    if n == 0:
        return 0
    if op == MUL:
        return values_run(w, st, optr, ochan, ca, cb, o, n, MUL)
    if op == ADD:
        return values_run(w, st, optr, ochan, ca, cb, o, n, ADD)
    return values_run(w, st, optr, ochan, ca, cb, o, n, op)


@kernel
def alu2(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Binary ALU over value streams a and b."""
    ca = ins[A_IN]
    cb = ins[B_IN]
    op = st[OP]
    while st[STATUS] == 0:
        if values_burst(w, st, optr, ochan, ca, cb, op) > 0:
            continue
        t_in = arrive(w, st, ca, st[T])
        if t_in == NOT_YET:
            return RC_IN
        t_in = arrive(w, st, cb, t_in)
        if t_in == NOT_YET:
            return RC_IN
        ka = hkind(w, ca)
        kb = hkind(w, cb)
        value_a = ka == DATA or ka == EMPTY
        value_b = kb == DATA or kb == EMPTY
        # align=original: a value facing a stop meets 0; the stop waits (module docstring)
        lone = st[LENIENT] == 1 and value_a != value_b and (ka == STOP or kb == STOP)
        if not lone and (value_a != value_b
                         or (not value_a and (ka != kb or hdata(w, ca) != hdata(w, cb)))):
            return fail(st, ERR_ALIGN, w, cb, B_IN)
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        a = fire(st, t_in, t_out)
        if value_a or value_b:
            if (ka == EMPTY or not value_a) and (kb == EMPTY or not value_b):
                push(w, optr, ochan, VAL_OUT, EMPTY, 0, a)
            else:
                x = hval(w, ca) if ka == DATA else 0.0
                y = hval(w, cb) if kb == DATA else 0.0
                pushv(w, optr, ochan, VAL_OUT, DATA, binary(op, x, y), a)
        else:
            push(w, optr, ochan, VAL_OUT, ka, hdata(w, ca), a)
            if ka == STOP:
                end_cycle(st)
            elif ka == DONE:
                st[STATUS] = 1
        if value_a or not lone:
            pop(w, ca, t_out)
        if value_b or not lone:
            pop(w, cb, t_out)
    return RC_DONE


@kernel
def alu1(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Unary ALU over a value stream."""
    c = ins[VAL_IN]
    op = st[OP]
    while st[STATUS] == 0:
        t_in = arrive(w, st, c, st[T])
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, c)
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        a = fire(st, t_in, t_out)
        if k == DATA:
            x = hval(w, c)
            if op == NEG:
                r = -x
            elif op == ABS:
                r = abs(x)
            elif op == EXP:
                r = math.inf if x > EXP_MAX else math.exp(x)
            else:
                r = x if x > 0.0 else 0.0
            pushv(w, optr, ochan, VAL_OUT, DATA, r, a)
        else:
            push(w, optr, ochan, VAL_OUT, k, hdata(w, c), a)
            if k == STOP:
                end_cycle(st)
            elif k == DONE:
                st[STATUS] = 1
        pop(w, c, t_out)
    return RC_DONE


class BinaryALU(Block):
    """A two-input ALU; the DOT type names the operation (``add``, ``mul``, ...)."""

    family = "compute"
    kernel = alu2
    widenable = True
    state = ALU
    input_ports = ALU2_IN
    output_ports = ALU_OUT
    errors = {ERR_ALIGN: "the two value streams are not aligned (different stop/done tokens)"}

    def __init__(self, node_id, attrs=None, op: str | None = None) -> None:
        super().__init__(node_id, attrs)
        self.op = op or self.dot_type
        if self.op == "add" and self.attrs.get("sub", "0") == "1":
            self.op = "sub"
        if self.op not in BINARY_OPS:
            raise GraphError(f"node {self.id}: unknown ALU operation {self.op!r}")
        if self.attrs.get("align", "strict") not in ("strict", "original"):
            raise GraphError(f"node {self.id}: align={self.attrs['align']!r}; use strict (the "
                             "default) or original")

    def params(self, tensors) -> dict[str, int]:
        return {"op": BINARY_OPS[self.op],
                "lenient": int(self.attrs.get("align", "strict") == "original")}

    def label(self) -> str:
        return self.op


class UnaryALU(Block):
    """A one-input ALU (``neg``, ``abs``, ``exp``, ``relu``)."""

    family = "compute"
    kernel = alu1
    widenable = True
    state = ALU
    input_ports = ALU1_IN
    output_ports = ALU_OUT

    def params(self, tensors) -> dict[str, int]:
        return {"op": UNARY_OPS[self.dot_type]}

    def label(self) -> str:
        return self.dot_type


def _alu_class(name: str, base: type[Block]) -> type[Block]:
    return type(name.capitalize(), (base,), {"dot_type": name, "__doc__": f"ALU ``{name}``."})


ALU_TYPES: dict[str, type[Block]] = {
    **{op: _alu_class(op, BinaryALU) for op in BINARY_OPS},
    **{op: _alu_class(op, UnaryALU) for op in UNARY_OPS},
}
