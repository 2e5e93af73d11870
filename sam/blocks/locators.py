"""Locator (SAM paper Def. 4.1, Sec. 4.2): iterate-locate into a dense or compressed level.

A locator takes the coordinate and reference streams of a *leader* level and, aligned with them,
the references of the fibers to locate into (the *parent* references of the located tensor,
usually repeated over the leader's coordinates by a repeater; absent for a root level, where the
parent is 0). For each coordinate it looks the coordinate up in that fiber of the located level,
whose positions come from the level's positions rule (``Level.positions``). A level whose
coordinates are offsets in the fiber (``has_locate``: a dense level holds every ``0 <= c < N``
at reference ``p*N + c``) computes the position; one with stored coordinates is searched (binary
search over its coordinate array when ``ordered``, else a linear scan). Found: the coordinate,
the leader's reference (``N`` without a reference input) and the located reference come out;
not found: the coordinate is dropped, as an intersecter would. Stop and done tokens pass. One
firing per cycle (the search is one memory access in this model).

DOT type ``locate`` (an extension of the Custard schema) with ``tensor``, ``mode``, ``format``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from formats.tensor import Tensor
from sam.blocks.base import LevelBlock, Port, Ports
from sam.blocks.scanners import OFFSET, STRIDE, fiber_bounds, level_memories, level_rules
from sam.runtime.jit import jitable
from sam.runtime.kernel import NOT_YET, State, arrive, blocked, fail, fire, kernel, reserve_all
from sam.runtime.tokens import DATA, DONE, EMPTY, STOP
from sam.runtime.wires import RC_DONE, RC_IN, STATUS, T, hdata, hkind, pop, push

# How a coordinate is found in a fiber.
COMPUTE, BISECT, LINEAR = 0, 1, 2
LOCATE = State(positions=STRIDE, coordinates=OFFSET, size=0, lookup=COMPUTE)
POSITIONS, COORDINATES, SIZE, LOOKUP = LOCATE.slots
ERR_ALIGN, ERR_RANGE = 1, 2


@jitable(inline=True)
def find(lookup, crd, start, end, c):
    """Position of coordinate ``c`` in the fiber at positions ``start .. end-1``, or -1."""
    if lookup == COMPUTE:
        return start + c if 0 <= c < end - start else -1
    if lookup == BISECT:
        lo = start
        hi = end
        while lo < hi:
            mid = (lo + hi) // 2
            if crd[mid] < c:
                lo = mid + 1
            else:
                hi = mid
        return lo if lo < end and crd[lo] == c else -1
    for q in range(start, end):
        if crd[q] == c:
            return q
    return -1


#: The coordinates to locate, with the references of the stream they came from and the parent
#: references into this level; out: the coordinates, their references passed on, and the
#: located positions (references into this level's tensor).
LOCATE_IN = Ports.inputs(crd=Port("crd"), ref=Port("ref", "in", optional=True),
                         parent=Port("ref", "parent", optional=True))
CRD_IN, REF_IN, PARENT_IN = LOCATE_IN.slots
LOCATE_OUT = Ports.outputs(crd=Port("crd", optional=True), ref=Port("ref", "out", optional=True),
                           found=Port("ref", optional=True))
CRD_OUT, REF_OUT, FOUND_OUT = LOCATE_OUT.slots


@kernel
def locate(w, st, fst, ins, optr, ochan, seg, crd, lens, m3, f0, f1):
    """Locator: inputs crd, ref (optional), parent ref (optional); outputs crd, ref, located ref."""
    cc = ins[CRD_IN]
    cr = ins[REF_IN]
    cp = ins[PARENT_IN]
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
            return fail(st, ERR_ALIGN, w, cr, REF_IN)
        if cp >= 0 and (hkind(w, cp) == DATA or hkind(w, cp) == EMPTY) != (k == DATA):
            return fail(st, ERR_ALIGN, w, cp, PARENT_IN)
        if k == DATA:
            c = hdata(w, cc)
            found = -1
            pk = DATA if cp < 0 else hkind(w, cp)
            p = 0 if cp < 0 else hdata(w, cp)
            if pk == DATA:
                start, end = fiber_bounds(st[POSITIONS], st[COORDINATES], st[SIZE], seg, crd,
                                          lens, p)
                if start < 0:
                    return fail(st, ERR_RANGE, w, cp, PARENT_IN)
                found = find(st[LOOKUP], crd, start, end, c)
            if found < 0:
                fire(st, t_in, t_in)
                t_out = t_in
            else:
                t_out = reserve_all(w, st, optr, ochan, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, CRD_OUT, DATA, c, a)
                if cr >= 0:
                    push(w, optr, ochan, REF_OUT, hkind(w, cr), hdata(w, cr), a)
                else:
                    push(w, optr, ochan, REF_OUT, EMPTY, 0, a)
                push(w, optr, ochan, FOUND_OUT, DATA, found, a)
        elif k == STOP or k == DONE:
            if cr >= 0 and (hkind(w, cr) != k or hdata(w, cr) != hdata(w, cc)):
                return fail(st, ERR_ALIGN, w, cr, REF_IN)
            if cp >= 0 and (hkind(w, cp) != k or hdata(w, cp) != hdata(w, cc)):
                return fail(st, ERR_ALIGN, w, cp, PARENT_IN)
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            for port in range(3):
                push(w, optr, ochan, port, k, hdata(w, cc), a)
            if k == DONE:
                st[STATUS] = 1
        else:
            return fail(st, ERR_ALIGN, w, cc, CRD_IN)
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
    state = LOCATE
    level_verb = "locates into"
    errors = {
        ERR_ALIGN: "coordinate, reference and parent streams are not aligned",
        ERR_RANGE: "parent reference out of range of the located level",
    }

    input_ports = LOCATE_IN

    def outputs(self) -> list[Port]:
        return LOCATE_OUT.ports(found={"comment": f"out-{self.tensor}"})

    def params(self, tensors: Mapping[str, Tensor]) -> dict[str, int]:
        level = self.walked_level(tensors[self.tensor])
        rules = level_rules(self.id, level)
        if rules["coordinates"] == OFFSET:
            lookup = COMPUTE
        else:
            lookup = BISECT if level.ordered else LINEAR
        return {**rules, "lookup": lookup}

    def memories(self, tensors: Mapping[str, Tensor]) -> dict[str, np.ndarray]:
        return level_memories(self.id, self.walked_level(tensors[self.tensor]), self.kernel)

    def label(self) -> str:
        return f"locate {self.attrs.get('index', '')}: {self.tensor}{self.attrs.get('mode')}"
