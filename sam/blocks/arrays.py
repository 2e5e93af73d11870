"""Arrays (SAM paper Def. 3.5): memories addressed by reference streams.

* **load** (DOT type ``arrayvals``): each reference r becomes the value ``vals[r]`` of the
  tensor; an empty reference ``N`` gives an empty value ``N``; stop and done tokens pass.
* **store** (DOT type ``arraystore``, our addition): each (reference, value) pair stores the value
  at that position of a dense value array of the output tensor (random insert, used to scatter
  into a dense result, Sec. 4.2; an empty value stores 0, an empty reference stores nothing);
  stop and done tokens must line up. With ``accumulate="true"`` the value is added to what the
  position holds (read-modify-write in the same cycle): a sum scattered into a dense result
  located by its coordinates (Sec. 4.2) needs no reducer.

One token per cycle; the memory read or write is part of that cycle.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from formats.tensor import Tensor
from sam.blocks.base import INITIAL_LENGTH, Block, Memories, Port, Ports
from sam.runtime.burst import (
    NONNEG,
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
    need_memory,
    reserve_all,
)
from sam.runtime.tokens import DATA, DONE, EMPTY, STOP
from sam.runtime.wires import (
    DONE_T,
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

ERR_RANGE, ERR_ALIGN = 1, 2
#: Store: highest position written + 1.
STORE = State(nmax=0, acc=0)
NMAX, ACC = STORE.slots
#: The load's ports; the store's inputs (its reference stream is its first, as the load's).
LOAD_IN = Ports.inputs(ref=Port("ref"))
(REF_IN,) = LOAD_IN.slots
LOAD_OUT = Ports.outputs(val=Port("val", optional=True))
(VAL_OUT,) = LOAD_OUT.slots
STORE_IN = Ports.inputs(ref=Port("ref"), val=Port("val"))
REF_IN, VAL_IN = STORE_IN.slots


@jitable(inline=True)
def load_burst(w, st, optr, ochan, c, vals):
    """Load a run of data references, and pass the stop tokens between them, in one loop
    (:mod:`sam.runtime.burst`); the firings made. A block whose output is unconnected takes the
    general path."""
    o = first_channel(optr, ochan, VAL_OUT)
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
    vo = w.fdata[o]
    do = w.data[o]
    to = w.time[o]
    tail = w.tail[o]
    size = vals.shape[0]
    t_start = st[T]
    t = t_start
    lat = st[LAT]
    m = 0
    nstop = 0
    while m < n:
        s = (h + m) & mask
        k = kc[s]
        r = dc[s]
        so = (tail + m) & mask
        if k == DATA:
            if r < 0 or r >= size:
                break  # the general path reports it
            vo[so] = vals[r & NONNEG]
        elif k == STOP:
            do[so] = r
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
        close_run(w, st, optr, ochan, VAL_OUT, m, nstop, tc[h & mask], t_start, t)
    return m


@kernel
def load(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, vals, f1):
    """Array load: references in, values out."""
    c = ins[REF_IN]
    while st[STATUS] == 0:
        if load_burst(w, st, optr, ochan, c, vals) > 0:
            continue
        t_in = arrive(w, st, c, st[T])
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, c)
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        if k == DATA:
            r = hdata(w, c)
            if r < 0 or r >= vals.shape[0]:
                return fail(st, ERR_RANGE, w, c, REF_IN)
            a = fire(st, t_in, t_out)
            pushv(w, optr, ochan, VAL_OUT, DATA, vals[r], a)
        else:
            a = fire(st, t_in, t_out)
            push(w, optr, ochan, VAL_OUT, k, hdata(w, c), a)
            if k == STOP:
                end_cycle(st)
            elif k == DONE:
                st[STATUS] = 1
        pop(w, c, t_out)
    return RC_DONE


@kernel
def store(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, vals, f1):
    """Array store: (reference, value) pairs written into ``vals``."""
    cr = ins[REF_IN]
    cv = ins[VAL_IN]
    while st[STATUS] == 0:
        t_in = arrive(w, st, cr, st[T])
        if t_in == NOT_YET:
            return RC_IN
        t_in = arrive(w, st, cv, t_in)
        if t_in == NOT_YET:
            return RC_IN
        kr = hkind(w, cr)
        kv = hkind(w, cv)
        if kr == DATA:
            if kv != DATA and kv != EMPTY:
                return fail(st, ERR_ALIGN, w, cv, VAL_IN)
            r = hdata(w, cr)
            if r < 0:
                return fail(st, ERR_RANGE, w, cr, REF_IN)
            if r >= vals.shape[0]:
                return need_memory(st, VALS)
            v = hval(w, cv) if kv == DATA else 0.0
            if st[ACC]:
                vals[r] += v
            else:
                vals[r] = v
            if r + 1 > st[NMAX]:
                st[NMAX] = r + 1
        elif kr == EMPTY:
            if kv != DATA and kv != EMPTY:  # nothing to store, but the streams must line up
                return fail(st, ERR_ALIGN, w, cv, VAL_IN)
        elif kr != kv or (kr == STOP and hdata(w, cr) != hdata(w, cv)):
            return fail(st, ERR_ALIGN, w, cv, VAL_IN)
        fire(st, t_in, t_in)
        pop(w, cr, t_in)
        pop(w, cv, t_in)
        if kr == STOP:
            end_cycle(st)
        elif kr == DONE:
            st[DONE_T] = t_in
            st[STATUS] = 1
    return RC_DONE


#: The store's memory it asks to grow (RC_GROW).
VALS = store.memory("vals")


class ArrayLoad(Block):
    """Loads a tensor's values by reference (Def. 3.5, load mode); DOT type ``arrayvals``."""

    dot_type = "arrayvals"
    family = "array"
    kernel = load
    required_attrs = ("tensor",)
    errors = {ERR_RANGE: "reference out of range of the value array"}

    #: A scalar's array reads the root reference ``0, D`` (``root=true``, our extension).
    reads_root = True
    widenable = True

    output_ports = LOAD_OUT

    def inputs(self) -> list[Port]:
        return LOAD_IN.ports(ref={"optional": self.is_root})

    def memories(self, tensors: Mapping[str, Tensor]) -> dict[str, np.ndarray]:
        return {"vals": tensors[self.tensor].vals}

    def label(self) -> str:
        return f"array vals: {self.tensor}"


class ArrayStore(Block):
    """Stores values by reference into a dense value array (Def. 3.5, store mode).

    DOT type ``arraystore`` (an extension of the Custard schema).
    """

    dot_type = "arraystore"
    family = "write"
    kernel = store
    widenable = True
    state = STORE
    required_attrs = ("tensor",)
    errors = {
        ERR_RANGE: "negative reference",
        ERR_ALIGN: "reference and value streams are not aligned",
    }

    input_ports = STORE_IN

    def params(self, tensors: Mapping[str, Tensor]) -> dict[str, int]:
        return {"acc": int(self.attrs.get("accumulate") == "true")}

    def memories(self, tensors: Mapping[str, Tensor]) -> dict[str, np.ndarray]:
        return {"vals": np.zeros(INITIAL_LENGTH, np.float64)}

    def recorded(self, st: np.ndarray, mem: Memories) -> dict[str, np.ndarray]:
        return {"vals": mem["vals"][: int(st[NMAX])].copy()}

    def label(self) -> str:
        return f"array store: {self.tensor}"
