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
from sam.blocks.base import LevelBlock, Memories, Port
from sam.sim.kernel import NOT_YET, arrive, fail, fire, kernel, need_memory
from sam.sim.tokens import DATA, DONE, EMPTY, STOP
from sam.sim.wires import DONE_T, RC_DONE, RC_IN, STATUS, P, T, hdata, hkind, hval, pop

NCRD, NSTOP = P, P + 1
ERR_EMPTY = 1


@kernel
def write_crd(w, st, fst, ins, optr, ochan, crd, stop_at, stop_level, m3, f0, f1):
    """Coordinate level writer: coordinates into ``crd``; each stop token's position (the
    number of coordinates before it) into ``stop_at`` and its level into ``stop_level``."""
    c = ins[0]
    while st[STATUS] == 0:
        t_in = arrive(w, st, c, st[T])
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, c)
        if k == DATA:
            n = st[NCRD]
            if n >= crd.shape[0]:
                return need_memory(st, 0)
            crd[n] = hdata(w, c)
            st[NCRD] = n + 1
        elif k == STOP:
            n = st[NSTOP]
            if n >= stop_at.shape[0]:
                return need_memory(st, 1)
            stop_at[n] = st[NCRD]
            stop_level[n] = hdata(w, c)
            st[NSTOP] = n + 1
        elif k == EMPTY:
            return fail(st, ERR_EMPTY, w, c, 0)
        fire(st, t_in, t_in)
        pop(w, c, t_in)
        if k == DONE:
            st[DONE_T] = t_in
            st[STATUS] = 1
    return RC_DONE


@kernel
def write_vals(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, vals, f1):
    """Value writer: values into ``vals`` in arrival order."""
    c = ins[0]
    while st[STATUS] == 0:
        t_in = arrive(w, st, c, st[T])
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, c)
        if k == DATA or k == EMPTY:
            n = st[NCRD]
            if n >= vals.shape[0]:
                return need_memory(st, 4)
            vals[n] = hval(w, c) if k == DATA else 0.0
            st[NCRD] = n + 1
        fire(st, t_in, t_in)
        pop(w, c, t_in)
        if k == DONE:
            st[DONE_T] = t_in
            st[STATUS] = 1
    return RC_DONE


class LevelWriter(LevelBlock):
    """A level writer; DOT type ``fiberwrite`` with ``mode`` a mode number or ``vals``."""

    dot_type = "fiberwrite"
    family = "write"
    mode_hint = "a tensor mode number or vals"
    errors = {ERR_EMPTY: "an empty token (N) reached a coordinate level writer"}

    @property
    def writes_values(self) -> bool:
        return self.attrs.get("mode") == "vals"

    @property
    def kernel(self):  # type: ignore[override]
        return write_vals if self.writes_values else write_crd

    def inputs(self) -> list[Port]:
        return [Port("val" if self.writes_values else "crd")]

    def params(self, tensors: Mapping[str, Tensor]) -> list[int]:
        return [0, 0]  # no coordinates, no stops yet

    def memories(self, tensors: Mapping[str, Tensor]) -> Memories:
        mem = Memories()
        if self.writes_values:
            mem.f[0] = np.zeros(64, np.float64)
        else:
            mem.m[0] = np.zeros(64, np.int64)
            mem.m[1] = np.zeros(64, np.int64)
            mem.m[2] = np.zeros(64, np.int64)
        return mem

    def grow_memory(self, mem: Memories, which: int) -> None:
        """Stop positions and stop levels grow together."""
        for k in ((1, 2) if which in (1, 2) else (which,)):
            mem.grow(k)

    def recorded(self, st: np.ndarray, mem: Memories) -> dict[str, np.ndarray]:
        """What the writer stored: ``crd``, ``stop_at`` and ``stop_level``, or ``vals``."""
        n = int(st[NCRD])
        if self.writes_values:
            return {"vals": mem.f[0][:n].copy()}
        k = int(st[NSTOP])
        return {"crd": mem.m[0][:n].copy(), "stop_at": mem.m[1][:k].copy(),
                "stop_level": mem.m[2][:k].copy()}

    def label(self) -> str:
        if self.writes_values:
            return f"fiberwrite vals: {self.tensor}"
        return f"fiberwrite {self.attrs.get('index', '')}: {self.tensor}{self.attrs.get('mode')}"
