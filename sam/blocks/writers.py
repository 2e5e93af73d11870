"""Level writers (SAM paper Def. 3.8, Sec. 3.7): store result streams back to memory.

A coordinate level writer appends each coordinate to its coordinate array and records each stop
token (where it came and its level); a value writer appends each value (an empty token ``N``
stores 0). Both generate their references internally, in order. One token per cycle; the cycle
in which a writer takes its done token ends the simulation when it is the last writer to do so.

Which stops close a fiber of this level is settled when the output is assembled, level by level
against the level above (:mod:`sam.sim.assemble`): a stream alone cannot tell an outer fiber
holding one empty fiber (``S1``) from an empty outer fiber (also ``S1``). The simulator then
converts the compressed fibertree to the output tensor's format (dense levels included).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from formats.tensor import Tensor
from sam.blocks.base import INITIAL_LENGTH, LevelBlock, Memories, Port, Ports
from sam.runtime.burst import NONNEG, account, bursts_on, ring_mask
from sam.runtime.jit import jitable
from sam.runtime.kernel import NOT_YET, State, arrive, end_cycle, fail, fire, kernel, need_memory
from sam.runtime.tokens import DATA, DONE, EMPTY, STOP
from sam.runtime.wires import (
    DONE_T,
    PATH_RUNS,
    RC_DONE,
    RC_IN,
    STATUS,
    T,
    hdata,
    hkind,
    hval,
    pop,
)

#: Coordinates (or values) and stop tokens written so far.
WRITE = State(count=0, stops=0)
COUNT, STOPS = WRITE.slots
ERR_EMPTY = 1
#: The one input: the coordinates of the level written (or the values, ``mode=vals``).
WRITE_IN = Ports.inputs(stream=Port("crd"))
(STREAM_IN,) = WRITE_IN.slots


@jitable(inline=True)
def write_burst(w, st, c, crd, stop_at, stop_level, vals, values):
    """A run of firings in one loop (:mod:`sam.runtime.burst`: unbounded FIFOs, each firing in
    the cycle its token arrives): coordinates and stops into ``crd``/``stop_at``/``stop_level``,
    or (``values``) values, empty ones as 0, and stops into ``vals``. The firings made. A done
    token, an empty coordinate or a full memory takes the general path."""
    if w.depth[c] > 0 or not bursts_on(st):
        return 0
    n = w.tail[c] - w.head[c]
    if n == 0:
        return 0
    st[PATH_RUNS] += 1  # a burst may run (tests/test_paths.py)
    mask = ring_mask(w)
    h = w.head[c]
    kc = w.kind[c]
    dc = w.data[c]
    vc = w.fdata[c]
    tc = w.time[c]
    count = st[COUNT]
    stops = st[STOPS]
    size = vals.shape[0] if values else crd.shape[0]
    t_start = st[T]
    t = t_start
    m = 0
    while m < n:
        s = (h + m) & mask
        k = kc[s]
        if k == DATA or (values and k == EMPTY):
            if count >= size:
                break
            if values:
                vals[count & NONNEG] = vc[s] if k == DATA else 0.0
            else:
                crd[count & NONNEG] = dc[s]
            count += 1
        elif k == STOP:
            if not values:
                if stops >= stop_at.shape[0]:
                    break
                stop_at[stops & NONNEG] = count
                stop_level[stops & NONNEG] = dc[s]
                stops += 1
        else:
            break
        ta = tc[s]
        if ta > t:
            t = ta
        t += 1
        m += 1
    if m > 0:
        w.head[c] = h + m
        st[COUNT] = count
        st[STOPS] = stops
        t0 = tc[h & mask]  # the first firing's cycle; every cycle not firing was idle
        if t0 < t_start:
            t0 = t_start
        account(st, t0, t - 1, t - t_start - m, m)
    return m


@kernel
def write_crd(w, st, fst, ins, optr, ochan, crd, stop_at, stop_level, m3, f0, f1):
    """Coordinate level writer: coordinates into ``crd``; each stop token's position (the
    number of coordinates before it) into ``stop_at`` and its level into ``stop_level``."""
    c = ins[STREAM_IN]
    while st[STATUS] == 0:
        if write_burst(w, st, c, crd, stop_at, stop_level, f0, False) > 0:
            continue
        t_in = arrive(w, st, c, st[T])
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, c)
        if k == DATA:
            n = st[COUNT]
            if n >= crd.shape[0]:
                return need_memory(st, CRD)
            crd[n] = hdata(w, c)
            st[COUNT] = n + 1
        elif k == STOP:
            n = st[STOPS]
            if n >= stop_at.shape[0]:
                return need_memory(st, STOP_AT)
            stop_at[n] = st[COUNT]
            stop_level[n] = hdata(w, c)
            st[STOPS] = n + 1
        elif k == EMPTY:
            return fail(st, ERR_EMPTY, w, c, STREAM_IN)
        fire(st, t_in, t_in)
        pop(w, c, t_in)
        if k == STOP:
            end_cycle(st)
        elif k == DONE:
            st[DONE_T] = t_in
            st[STATUS] = 1
    return RC_DONE


@kernel
def write_vals(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, vals, f1):
    """Value writer: values into ``vals`` in arrival order."""
    c = ins[STREAM_IN]
    while st[STATUS] == 0:
        if write_burst(w, st, c, m0, m1, m2, vals, True) > 0:
            continue
        t_in = arrive(w, st, c, st[T])
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, c)
        if k == DATA or k == EMPTY:
            n = st[COUNT]
            if n >= vals.shape[0]:
                return need_memory(st, VALS)
            vals[n] = hval(w, c) if k == DATA else 0.0
            st[COUNT] = n + 1
        fire(st, t_in, t_in)
        pop(w, c, t_in)
        if k == STOP:
            end_cycle(st)
        elif k == DONE:
            st[DONE_T] = t_in
            st[STATUS] = 1
    return RC_DONE


#: The coordinate writer's memories; those the kernels ask to grow (RC_GROW), by position.
CRD_MEMORIES = ("crd", "stop_at", "stop_level")
CRD, STOP_AT, STOP_LEVEL = (write_crd.memory(m) for m in CRD_MEMORIES)
VALS = write_vals.memory("vals")


class LevelWriter(LevelBlock):
    """A level writer; DOT type ``fiberwrite`` with ``mode`` a mode number or ``vals``."""

    dot_type = "fiberwrite"
    widenable = True
    family = "write"
    state = WRITE
    mode_hint = "a tensor mode number or vals"
    errors = {ERR_EMPTY: "an empty token (N) reached a coordinate level writer"}

    @property
    def writes_values(self) -> bool:
        return self.attrs.get("mode") == "vals"

    @property
    def kernel(self):  # type: ignore[override]
        return write_vals if self.writes_values else write_crd

    def inputs(self) -> list[Port]:
        return WRITE_IN.ports(stream={"kind": "val" if self.writes_values else "crd"})

    def memories(self, tensors: Mapping[str, Tensor]) -> dict[str, np.ndarray]:
        if self.writes_values:
            return {"vals": np.zeros(INITIAL_LENGTH, np.float64)}
        return {name: np.zeros(INITIAL_LENGTH, np.int64) for name in CRD_MEMORIES}

    def grow_memory(self, mem: Memories, which: int) -> None:
        """Stop positions and stop levels grow together."""
        for k in ((STOP_AT, STOP_LEVEL) if which in (STOP_AT, STOP_LEVEL) else (which,)):
            mem.grow(k)

    def recorded(self, st: np.ndarray, mem: Memories) -> dict[str, np.ndarray]:
        """What the writer stored: ``crd``, ``stop_at`` and ``stop_level``, or ``vals``."""
        n = int(st[COUNT])
        if self.writes_values:
            return {"vals": mem["vals"][:n].copy()}
        k = int(st[STOPS])
        return {"crd": mem["crd"][:n].copy(), "stop_at": mem["stop_at"][:k].copy(),
                "stop_level": mem["stop_level"][:k].copy()}

    def label(self) -> str:
        if self.writes_values:
            return f"fiberwrite vals: {self.tensor}"
        return f"fiberwrite {self.attrs.get('index', '')}: {self.tensor}{self.attrs.get('mode')}"
