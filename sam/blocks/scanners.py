"""Level scanners (SAM paper Def. 3.1, Sec. 3.3, Figures 2-3).

A level scanner turns a reference stream into a coordinate stream and a reference stream, one
fibertree level deep: for each input reference r it emits every coordinate of fiber r with its
position in the level, then a stop token. Input stop tokens ``Sn`` come out as ``S(n+1)``, merged
with the stop that ends the last fiber before them (``0, 1, 2, S0, D`` in gives
``..., S0, ..., S0, ..., S1, D``, Figure 2). An empty reference ``N`` gives an empty fiber.

Timing, per fiber of length L: the cycle that takes the reference emits the first coordinate,
L-1 more cycles emit the rest, and one cycle emits the closing stop (it needs the next input
token to know its level). An empty fiber costs a cycle to take the reference and one for its stop.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from formats.levels import CompressedLevel, DenseLevel
from formats.tensor import Tensor
from sam.blocks.base import LevelBlock, Memories, Port
from sam.errors import GraphError
from sam.sim.kernel import NOT_YET, arrive, blocked, fail, fire, kernel, reserve_all
from sam.sim.tokens import DATA, DONE, EMPTY, STOP
from sam.sim.wires import DONE_T, RC_DONE, RC_IN, STATUS, P, T, hdata, hkind, pop, push

# Parameters and state (st[P + k]).
FMT, SIZE, POS, END, BASE, PHASE = P, P + 1, P + 2, P + 3, P + 4, P + 5
COMPRESSED, DENSE = 0, 1
NEED_REF, IN_FIBER, CLOSE = 0, 1, 2

ERR_RANGE = 1


@kernel
def scan(w, st, fst, ins, optr, ochan, seg, crd, m2, m3, f0, f1):
    """Level scanner kernel: compressed (seg/crd arrays) or dense (size only)."""
    cin = ins[0]
    while st[STATUS] == 0:
        t = st[T]
        phase = st[PHASE]
        if phase == IN_FIBER:
            # Emit the next coordinate of the current fiber; no input needed.
            t_out = reserve_all(w, st, optr, ochan, t)
            if t_out < 0:
                return blocked(t_out)
            pos = st[POS]
            c = crd[pos] if st[FMT] == COMPRESSED else pos - st[BASE]
            a = fire(st, t, t_out)
            push(w, optr, ochan, 0, DATA, c, a)
            push(w, optr, ochan, 1, DATA, pos, a)
            st[POS] = pos + 1
            if pos + 1 == st[END]:
                st[PHASE] = CLOSE
            continue

        t_in = arrive(w, st, cin, t)
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, cin)
        r = hdata(w, cin)
        if phase == NEED_REF and (k == DATA or k == EMPTY):
            start, end = 0, 0
            if k == DATA:
                if st[FMT] == COMPRESSED:
                    if r < 0 or r + 1 >= seg.shape[0]:
                        return fail(st, ERR_RANGE, w, cin, 0)
                    start, end = seg[r], seg[r + 1]
                else:
                    if r < 0:  # a dense level is a counter: any r >= 0 names fiber r
                        return fail(st, ERR_RANGE, w, cin, 0)
                    start, end = r * st[SIZE], r * st[SIZE] + st[SIZE]
            if start == end:
                # Empty fiber: take the reference now, emit its stop next cycle.
                fire(st, t_in, t_in)
                pop(w, cin, t_in)
                st[PHASE] = CLOSE
                continue
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            pop(w, cin, t_out)
            push(w, optr, ochan, 0, DATA, crd[start] if st[FMT] == COMPRESSED else 0, a)
            push(w, optr, ochan, 1, DATA, start, a)
            st[BASE] = start
            st[POS] = start + 1
            st[END] = end
            st[PHASE] = IN_FIBER if start + 1 < end else CLOSE
            continue

        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        if k == DONE:
            if phase == CLOSE:  # close the last fiber first
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, 0, STOP, 0, a)
                push(w, optr, ochan, 1, STOP, 0, a)
                st[PHASE] = NEED_REF
                continue
            a = fire(st, t_in, t_out)
            pop(w, cin, t_out)
            push(w, optr, ochan, 0, DONE, 0, a)
            push(w, optr, ochan, 1, DONE, 0, a)
            st[DONE_T] = t_out
            st[STATUS] = 1
        elif k == STOP:
            # Closes the current fiber (if any) and input level r: S(r+1).
            a = fire(st, t_in, t_out)
            pop(w, cin, t_out)
            push(w, optr, ochan, 0, STOP, r + 1, a)
            push(w, optr, ochan, 1, STOP, r + 1, a)
            st[PHASE] = NEED_REF
        else:
            # CLOSE followed by a new reference: the fiber ends with S0.
            a = fire(st, t_in, t_out)
            push(w, optr, ochan, 0, STOP, 0, a)
            push(w, optr, ochan, 1, STOP, 0, a)
            st[PHASE] = NEED_REF
    return RC_DONE


class LevelScanner(LevelBlock):
    """Level scanner over one level of a tensor (Def. 3.1); DOT type ``fiberlookup``."""

    dot_type = "fiberlookup"
    family = "scan"
    kernel = scan
    reads_root = True
    level_verb = "scans"
    errors = {
        ERR_RANGE: "reference out of range for the level being scanned",
    }

    def inputs(self) -> list[Port]:
        # A root scanner has no input edge: it reads the root reference stream ``0, D``.
        return [Port("ref", optional=self.is_root)]

    def outputs(self) -> list[Port]:
        return [Port("crd", optional=True), Port("ref", optional=True)]

    def params(self, tensors: Mapping[str, Tensor]) -> list[int]:
        fmt = self.attrs.get("format", "compressed")
        if fmt not in ("compressed", "dense"):
            raise GraphError(
                f"node {self.id} (fiberlookup): format={fmt!r}; use compressed or dense"
            )
        tensor = tensors[self.tensor]
        level = self.level_of(tensor)
        size = level.size
        return [COMPRESSED if fmt == "compressed" else DENSE, size, 0, 0, 0, NEED_REF]

    def memories(self, tensors: Mapping[str, Tensor]) -> Memories:
        level = self.level_of(tensors[self.tensor])
        want = self.attrs.get("format", "compressed")
        if want == "compressed" and not isinstance(level, CompressedLevel):
            raise GraphError(
                f"node {self.id} scans mode {self.mode} of {self.tensor} as {want}, but that "
                f"level is stored {level.name}; bind {self.tensor} in the graph's format"
            )
        mem = Memories()
        if isinstance(level, CompressedLevel):
            mem.m[0], mem.m[1] = level.seg, level.crd
        elif isinstance(level, DenseLevel):
            mem.m[0] = np.zeros(1, np.int64)
        return mem

    def label(self) -> str:
        fmt = self.attrs.get("format", "compressed")
        return f"scan {self.attrs.get('index', '')}: {self.tensor}{self.attrs.get('mode')} ({fmt})"
