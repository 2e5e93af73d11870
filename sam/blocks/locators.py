"""Locator (SAM paper Def. 4.1, Sec. 4.2): iterate-locate into a dense or compressed level.

A locator takes the coordinate and reference streams of a *leader* level and, aligned with them,
the references of the fibers to locate into (the *parent* references of the located tensor,
usually repeated over the leader's coordinates by a repeater; absent for a root level, where the
parent is 0). For each coordinate it looks the coordinate up in that fiber of the located level:
a dense level holds every ``0 <= c < N`` (reference ``p*N + c``); a compressed level is searched
(binary search over its coordinate array). Found: the coordinate, the leader's reference (``N``
without a reference input) and the located reference come out; not found: the coordinate is
dropped, as an intersecter would. Stop and done tokens pass. One firing per cycle (the search is
one memory access in this model).

DOT type ``locate`` (an extension of the Custard schema) with ``tensor``, ``mode``, ``format``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from formats.levels import CompressedLevel
from formats.tensor import Tensor
from sam.blocks.base import LevelBlock, Memories, Port
from sam.sim.kernel import NOT_YET, arrive, blocked, fail, fire, kernel, reserve_all
from sam.sim.tokens import DATA, DONE, EMPTY, STOP
from sam.sim.wires import RC_DONE, RC_IN, STATUS, P, T, hdata, hkind, pop, push

FMT, SIZE = P, P + 1
ERR_ALIGN, ERR_RANGE = 1, 2


@kernel
def locate(w, st, fst, ins, optr, ochan, seg, crd, m2, m3, f0, f1):
    """Locator: inputs crd, ref (optional), parent ref (optional); outputs crd, ref, located ref."""
    cc = ins[0]
    cr = ins[1]
    cp = ins[2]
    while st[STATUS] == 0:
        t_in = arrive(w, st, cc, st[T])
        if t_in == NOT_YET:
            return RC_IN
        if cr >= 0:
            t_in = arrive(w, st, cr, t_in)
            if t_in == NOT_YET:
                return RC_IN
        if cp >= 0:
            t_in = arrive(w, st, cp, t_in)
            if t_in == NOT_YET:
                return RC_IN
        k = hkind(w, cc)
        if cr >= 0 and (hkind(w, cr) == DATA or hkind(w, cr) == EMPTY) != (k == DATA):
            return fail(st, ERR_ALIGN, w, cr, 1)
        if cp >= 0 and (hkind(w, cp) == DATA or hkind(w, cp) == EMPTY) != (k == DATA):
            return fail(st, ERR_ALIGN, w, cp, 2)
        if k == DATA:
            c = hdata(w, cc)
            found = -1
            pk = DATA if cp < 0 else hkind(w, cp)
            p = 0 if cp < 0 else hdata(w, cp)
            if pk == DATA:
                if st[FMT] == 1:
                    if p < 0:  # a dense level is a counter: any p >= 0 names fiber p
                        return fail(st, ERR_RANGE, w, cp, 2)
                    if 0 <= c < st[SIZE]:
                        found = p * st[SIZE] + c
                else:
                    if p < 0 or p + 1 >= seg.shape[0]:
                        return fail(st, ERR_RANGE, w, cp, 2)
                    lo = seg[p]
                    hi = seg[p + 1]
                    while lo < hi:
                        mid = (lo + hi) // 2
                        if crd[mid] < c:
                            lo = mid + 1
                        else:
                            hi = mid
                    if lo < seg[p + 1] and crd[lo] == c:
                        found = lo
            if found < 0:
                fire(st, t_in, t_in)
                t_out = t_in
            else:
                t_out = reserve_all(w, st, optr, ochan, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, 0, DATA, c, a)
                if cr >= 0:
                    push(w, optr, ochan, 1, hkind(w, cr), hdata(w, cr), a)
                else:
                    push(w, optr, ochan, 1, EMPTY, 0, a)
                push(w, optr, ochan, 2, DATA, found, a)
        elif k == STOP or k == DONE:
            if cr >= 0 and (hkind(w, cr) != k or hdata(w, cr) != hdata(w, cc)):
                return fail(st, ERR_ALIGN, w, cr, 1)
            if cp >= 0 and (hkind(w, cp) != k or hdata(w, cp) != hdata(w, cc)):
                return fail(st, ERR_ALIGN, w, cp, 2)
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            for port in range(3):
                push(w, optr, ochan, port, k, hdata(w, cc), a)
            if k == DONE:
                st[STATUS] = 1
        else:
            return fail(st, ERR_ALIGN, w, cc, 0)
        pop(w, cc, t_out)
        if cr >= 0:
            pop(w, cr, t_out)
        if cp >= 0:
            pop(w, cp, t_out)
    return RC_DONE


class Locator(LevelBlock):
    """Iterate-locate into one level of a tensor (Def. 4.1); DOT type ``locate``."""

    dot_type = "locate"
    family = "merge"
    kernel = locate
    level_verb = "locates into"
    errors = {
        ERR_ALIGN: "coordinate, reference and parent streams are not aligned",
        ERR_RANGE: "parent reference out of range of the located level",
    }

    def inputs(self) -> list[Port]:
        return [Port("crd"), Port("ref", "in", optional=True),
                Port("ref", "parent", optional=True)]

    def outputs(self) -> list[Port]:
        return [Port("crd", optional=True), Port("ref", "out", optional=True),
                Port("ref", f"out-{self.tensor}", optional=True)]

    def params(self, tensors) -> list[int]:
        level = self.level_of(tensors[self.tensor])
        return [0 if isinstance(level, CompressedLevel) else 1, level.size]

    def memories(self, tensors: Mapping[str, Tensor]) -> Memories:
        level = self.level_of(tensors[self.tensor])
        mem = Memories()
        if isinstance(level, CompressedLevel):
            mem.m[0], mem.m[1] = level.seg, level.crd
        else:
            mem.m[0] = np.zeros(1, np.int64)
        return mem

    def label(self) -> str:
        return f"locate {self.attrs.get('index', '')}: {self.tensor}{self.attrs.get('mode')}"
