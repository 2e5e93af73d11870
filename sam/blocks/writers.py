"""Level writers (SAM paper Def. 3.8, Sec. 3.7): store result streams back to memory.

A coordinate level writer appends each coordinate to its coordinate array and closes a fiber
(appends to its segment array) at each stop token, except a stop ``Sn`` (n >= 1) that directly
follows a stop of level >= 1 or starts the stream: that one marks an *empty outer fiber* (as a
coordinate dropper emits, Figure 8), which holds no fiber of this level. (A stream cannot tell
that apart from an outer fiber holding a single empty fiber; writers take cleaned streams,
Sec. 3.7.) A value writer appends each value (an empty token ``N`` stores 0). Both generate
their references internally, in order. One token per cycle; the cycle in which a writer takes
its done token ends the simulation when it is the last writer to do so.

The simulator reads the recorded arrays back as a compressed fibertree and converts it to the
output tensor's format (dense levels included), see :mod:`sam.sim.assemble`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from formats.tensor import Tensor
from sam.blocks.base import Block, GraphError, Memories, Port
from sam.sim.kernel import NOT_YET, arrive, fail, fire, kernel, need_memory
from sam.sim.tokens import DATA, DONE, EMPTY, STOP
from sam.sim.wires import DONE_T, RC_DONE, RC_IN, STATUS, P, T, hdata, hkind, hval, pop

NCRD, NSEG = P, P + 1
LAST = P + 2  # level of the previous token if a stop, -1 after a coordinate (start: 1)
ERR_EMPTY = 1


@kernel
def write_crd(w, st, fst, ins, optr, ochan, crd, seg, m2, m3, f0, f1):
    """Coordinate level writer: coordinates into ``crd``, fiber ends into ``seg``."""
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
            st[LAST] = -1
        elif k == STOP:
            level = hdata(w, c)
            if level == 0 or st[LAST] < 1:  # else: an empty outer fiber, no fiber here
                n = st[NSEG]
                if n >= seg.shape[0]:
                    return need_memory(st, 1)
                seg[n] = st[NCRD]
                st[NSEG] = n + 1
            st[LAST] = level
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


class LevelWriter(Block):
    """A level writer; DOT type ``fiberwrite`` with ``mode`` a mode number or ``vals``."""

    dot_type = "fiberwrite"
    family = "write"
    required_attrs = ("tensor", "mode")
    errors = {ERR_EMPTY: "an empty token (N) reached a coordinate level writer"}

    @property
    def writes_values(self) -> bool:
        return self.attrs.get("mode") == "vals"

    @property
    def kernel(self):  # type: ignore[override]
        return write_vals if self.writes_values else write_crd

    @property
    def mode(self) -> int:
        try:
            return int(self.attrs["mode"])
        except ValueError:
            raise GraphError(
                f"node {self.id} (fiberwrite): mode={self.attrs['mode']!r}; use a mode number or "
                "vals"
            ) from None

    def inputs(self) -> list[Port]:
        return [Port("val" if self.writes_values else "crd")]

    def params(self, tensors: Mapping[str, Tensor]) -> list[int]:
        return [0, 1, 1]  # no coordinates yet; seg starts with its leading 0; stream start

    def memories(self, tensors: Mapping[str, Tensor]) -> Memories:
        mem = Memories()
        if self.writes_values:
            mem.f[0] = np.zeros(64, np.float64)
        else:
            mem.m[0] = np.zeros(64, np.int64)
            mem.m[1] = np.zeros(64, np.int64)
        return mem

    def recorded(self, st: np.ndarray, mem: Memories) -> dict[str, np.ndarray]:
        """What the writer stored: ``crd`` and ``seg`` arrays, or ``vals``."""
        n = int(st[NCRD])
        if self.writes_values:
            return {"vals": mem.f[0][:n].copy()}
        return {"crd": mem.m[0][:n].copy(), "seg": mem.m[1][: int(st[NSEG])].copy()}

    def label(self) -> str:
        if self.writes_values:
            return f"fiberwrite vals: {self.tensor}"
        return f"fiberwrite {self.attrs.get('index', '')}: {self.tensor}{self.attrs.get('mode')}"
