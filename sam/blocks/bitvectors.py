"""Bitvector streams and their blocks (SAM paper Sec. 4.3, Def. 4.2, Figure 6).

A ``bv`` stream carries one b-bit word per data token (bit k of the j-th word of a fiber is
coordinate ``j*b + k``; the least significant bit is the lowest coordinate), stop and done tokens
as a coordinate stream does. Its reference stream carries, per word, the running popcount before
it (the position of the word's lowest set bit in the level below). Figure 6: coordinates
``0, 2, 6, 8, 9, S0, D`` with b = 4 are ``0101, 0100, 0011, S0, D`` with references
``0, 2, 3, S0, D``.

Blocks (one firing per cycle, at most one token in and out per port):

* **bitvector level scanner** (``bvlookup``): per input reference the W words of that fiber of a
  bitvector level (zero words included), each with its running popcount; one word per cycle,
  then the stop (as the level scanner, Def. 3.1). An empty reference ``N`` gives W zero words
  (reference 0), so bitvector streams of one index variable stay word-aligned.
* **bitvector converter** (``crdtobv``, Def. 4.2): a coordinate stream into words of ``width``
  bits, ``ceil(size / width)`` per fiber (one word per fiber when ``width >= size``). One cycle
  per coordinate taken, one per word emitted, one per stop.
* **chunker** (``bvchunk``): one fiber-wide word (``size`` <= 64 bits) into ``width``-bit words,
  zero words included, with popcount references; one cycle per word out, one per stop.
* **bitvector intersecter / unioner** (``bvintersect``, ``bvunion``; Capstan's AND / OR): m
  aligned (word, reference) streams. A firing takes one word from every input and emits the AND
  (OR) word; then one coordinate and one reference per operand for every set bit of the result,
  one per cycle (the first in the cycle that takes the words; a zero result costs that one
  cycle). The reference of operand t for bit k is ``ref_t + popcount(word_t below k)``; a unioner
  emits ``N`` for an operand without the bit.
* **bitvector -> coordinate converter** (``bvtocrd``): the same firing rule over one input.
* **bitvector level writer** (``bvwrite``): stores words and stops, one per cycle; the output
  level is assembled from the set bits.

Words live in int64 payloads; bit 63 is the sign bit, so every bit operation goes through the
helpers below (they work unchanged in Python and numba).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from formats.tensor import Tensor
from sam.blocks.base import INITIAL_LENGTH, Block, LevelBlock, Memories, Port
from sam.blocks.droppers import merge_empty
from sam.blocks.writers import LevelWriter
from sam.errors import GraphError
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
    reserve,
    reserve_all,
    wait_until,
)
from sam.runtime.tokens import DATA, DONE, EMPTY, STOP
from sam.runtime.wires import DONE_T, RC_DONE, RC_IN, STATUS, T, hdata, hkind, pop, push

#: Bit 63 of an int64 word.
TOP_BIT = -(2 ** 63)
#: Every bit but bit 63.
LOW_BITS = 2 ** 63 - 1
#: The widest word a token holds.
MAX_WIDTH = 64


@jitable
def bit(k):
    """The word with only bit ``k`` (0..63) set."""
    if k == 63:
        return TOP_BIT
    return 1 << k


@jitable
def bits_below(k):
    """The word with bits ``0..k-1`` set (k in 0..64)."""
    if k >= 64:
        return -1
    if k == 63:
        return LOW_BITS
    return (1 << k) - 1


@jitable
def has_bit(x, k):
    """Whether bit ``k`` of word ``x`` is set."""
    return ((x >> k) & 1) == 1


@jitable
def popcount(x):
    """Set bits of word ``x`` (bit 63 included)."""
    n = 0
    if x < 0:
        n = 1
        x = x & LOW_BITS
    while x != 0:
        x = x & (x - 1)
        n += 1
    return n


@jitable
def next_bit(x, k, width):
    """The lowest set bit of ``x`` at or above ``k`` (``width`` when none)."""
    while k < width and not has_bit(x, k):
        k += 1
    return k


# ----------------------------------------------------------------------------- level scanner
NEED_REF, IN_FIBER, CLOSE = 0, 1, 2
BVSCAN = State(wpf=0, pos=0, end=0, phase=NEED_REF, zero=0)
WPF, POS, END, PHASE, ZERO = BVSCAN.slots
ERR_RANGE = 1


@kernel
def bvscan(w, st, fst, ins, optr, ochan, words, ranks, m2, m3, f0, f1):
    """Bitvector level scanner: fiber r is ``words[r*wpf : r*wpf + wpf]``; each word goes out
    with ``ranks`` (the running popcount before it)."""
    cin = ins[0]
    while st[STATUS] == 0:
        t = st[T]
        phase = st[PHASE]
        if phase == IN_FIBER:
            t_out = reserve_all(w, st, optr, ochan, t)
            if t_out < 0:
                return blocked(t_out)
            pos = st[POS]
            a = fire(st, t, t_out)
            if st[ZERO] == 1:
                push(w, optr, ochan, 0, DATA, 0, a)
                push(w, optr, ochan, 1, DATA, 0, a)
            else:
                push(w, optr, ochan, 0, DATA, words[pos], a)
                push(w, optr, ochan, 1, DATA, ranks[pos], a)
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
            start = 0
            end = st[WPF]  # an empty reference: a fiber of zero words, aligned with the others
            st[ZERO] = 1 if k == EMPTY else 0
            if k == DATA:
                start = r * st[WPF]
                end = start + st[WPF]
                if r < 0 or end > words.shape[0] or (st[WPF] > 0 and end > ranks.shape[0] - 1):
                    return fail(st, ERR_RANGE, w, cin, 0)
            if start == end:
                fire(st, t_in, t_in)
                pop(w, cin, t_in)
                st[PHASE] = CLOSE
                continue
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            pop(w, cin, t_out)
            push(w, optr, ochan, 0, DATA, 0 if k == EMPTY else words[start], a)
            push(w, optr, ochan, 1, DATA, 0 if k == EMPTY else ranks[start], a)
            st[POS] = start + 1
            st[END] = end
            st[PHASE] = IN_FIBER if start + 1 < end else CLOSE
            continue
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        a = fire(st, t_in, t_out)
        if k == DONE:
            if phase == CLOSE:
                push(w, optr, ochan, 0, STOP, 0, a)
                push(w, optr, ochan, 1, STOP, 0, a)
                st[PHASE] = NEED_REF
                continue
            pop(w, cin, t_out)
            push(w, optr, ochan, 0, DONE, 0, a)
            push(w, optr, ochan, 1, DONE, 0, a)
            st[DONE_T] = t_out
            st[STATUS] = 1
        elif k == STOP:
            pop(w, cin, t_out)
            push(w, optr, ochan, 0, STOP, r + 1, a)
            push(w, optr, ochan, 1, STOP, r + 1, a)
            st[PHASE] = NEED_REF
        else:
            push(w, optr, ochan, 0, STOP, 0, a)
            push(w, optr, ochan, 1, STOP, 0, a)
            st[PHASE] = NEED_REF
    return RC_DONE


class BitvectorScanner(LevelBlock):
    """Bitvector level scanner (Sec. 4.3); DOT type ``bvlookup`` (``format=bitvector``)."""

    dot_type = "bvlookup"
    family = "scan"
    kernel = bvscan
    state = BVSCAN
    reads_root = True
    level_verb = "scans"
    errors = {ERR_RANGE: "reference out of range for the bitvector level being scanned"}

    def inputs(self) -> list[Port]:
        return [Port("ref", optional=self.is_root)]

    def outputs(self) -> list[Port]:
        return [Port("bv", optional=True), Port("ref", optional=True)]

    def _level(self, tensors: Mapping[str, Tensor]):
        level = self.level_of(tensors[self.tensor])
        if getattr(level, "stream", "crd") != "bv":
            raise GraphError(f"node {self.id} scans mode {self.mode} of {self.tensor} as a "
                             f"bitvector, but that level is stored {level.name}; store it "
                             "bitvector (format letter b) or scan it with fiberlookup")
        return level

    def params(self, tensors: Mapping[str, Tensor]) -> dict[str, int]:
        return {"wpf": self._level(tensors).words_per_fiber}

    def memories(self, tensors: Mapping[str, Tensor]) -> dict[str, np.ndarray]:
        return self._level(tensors).memories()

    def label(self) -> str:
        return f"bvscan {self.attrs.get('index', '')}: {self.tensor}{self.attrs.get('mode')}"


# ----------------------------------------------------------------------------- converter
#: ``hold`` (``--timing original``): a fiber's words go out only after its closing stop was
#: taken, as the original's ``BV`` (the whole fiber as one integer, emitted at its stop) followed
#: by its ``ChunkBV`` (that integer cut into ``width``-bit words) emit them
#: (docs/timing-model.md, rule 12). ``phase`` 1 while the held words are emitted, ``stop`` the
#: level of the stop that closes them (-1: none, the done token came first).
CONV = State(width=MAX_WIDTH, wpf=1, word=0, j=0, count=0, base=0, last=-1, hold=0, phase=0,
             stop=-1)
C_WIDTH, C_WPF, C_WORD, C_J, C_COUNT, C_BASE, C_LAST, C_HOLD, C_PHASE, C_STOP = CONV.slots
ERR_CRD, ERR_ORDER, ERR_KIND = 1, 2, 3
#: Memory argument of the held words (``hold`` only).
HELD_MEM = 0


@kernel
def crdtobv(w, st, fst, ins, optr, ochan, held, m1, m2, m3, f0, f1):
    """Coordinates into ``wpf`` words of ``width`` bits per fiber (zero words included); each
    word with the running popcount before it. With ``hold`` the words wait in ``held`` until
    the fiber's stop was taken (one firing to take it), then go out one per firing."""
    cin = ins[0]
    width = st[C_WIDTH]
    hold = st[C_HOLD] == 1 and st[C_WPF] > 1  # one word per fiber: as without hold
    while st[STATUS] == 0:
        if st[C_PHASE] == 1:
            # hold: emit the held words, then the stop that closed them.
            t_out = reserve_all(w, st, optr, ochan, st[T])
            if t_out < 0:
                return blocked(t_out)
            j = st[C_J]
            if j < st[C_WPF]:
                x = held[j] if j < held.shape[0] else 0
                a = fire(st, st[T], t_out)
                push(w, optr, ochan, 0, DATA, x, a)
                push(w, optr, ochan, 1, DATA, st[C_BASE], a)
                st[C_BASE] += popcount(x)
                if j < held.shape[0]:
                    held[j] = 0
                st[C_J] = j + 1
                continue
            if st[C_STOP] >= 0:
                a = fire(st, st[T], t_out)
                push(w, optr, ochan, 0, STOP, st[C_STOP], a)
                push(w, optr, ochan, 1, STOP, st[C_STOP], a)
            st[C_PHASE] = 0
            st[C_J] = 0
            st[C_LAST] = -1
            st[C_STOP] = -1
            continue
        t_in = arrive(w, st, cin, st[T])
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, cin)
        x = hdata(w, cin)
        if k == DATA:
            if x < 0 or x >= width * st[C_WPF]:
                return fail(st, ERR_CRD, w, cin, 0)
            if x <= st[C_LAST]:
                return fail(st, ERR_ORDER, w, cin, 0)
            if hold:
                # Take the coordinate into its held word.
                if x // width >= held.shape[0]:
                    return need_memory(st, HELD_MEM)
                fire(st, t_in, t_in)
                pop(w, cin, t_in)
                held[x // width] = held[x // width] | bit(x % width)
                st[C_COUNT] += 1
                st[C_LAST] = x
                continue
            if x // width == st[C_J]:
                # Take the coordinate into the current word.
                fire(st, t_in, t_in)
                pop(w, cin, t_in)
                st[C_WORD] = st[C_WORD] | bit(x - st[C_J] * width)
                st[C_COUNT] += 1
                st[C_LAST] = x
                continue
        elif k == EMPTY:
            return fail(st, ERR_KIND, w, cin, 0)
        if hold and (k == STOP or st[C_LAST] >= 0):
            # hold: the fiber is complete (its stop taken now; a done token stays queued).
            st[C_PHASE] = 1
            st[C_J] = 0
            if k == STOP:
                fire(st, t_in, t_in)
                pop(w, cin, t_in)
                st[C_STOP] = x
            else:
                wait_until(st, t_in)  # idle until the done token came
            continue
        if k == DATA or (k == STOP and st[C_J] < st[C_WPF]) or (
                k == DONE and st[C_J] > 0 and st[C_J] < st[C_WPF]):
            # Emit the current word (the head belongs to a later word or closes the fiber).
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            push(w, optr, ochan, 0, DATA, st[C_WORD], a)
            push(w, optr, ochan, 1, DATA, st[C_BASE], a)
            st[C_BASE] = st[C_COUNT]
            st[C_WORD] = 0
            st[C_J] += 1
            continue
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        a = fire(st, t_in, t_out)
        pop(w, cin, t_out)
        if k == STOP:
            push(w, optr, ochan, 0, STOP, x, a)
            push(w, optr, ochan, 1, STOP, x, a)
            st[C_J] = 0
            st[C_LAST] = -1
        else:
            push(w, optr, ochan, 0, DONE, 0, a)
            push(w, optr, ochan, 1, DONE, 0, a)
            st[DONE_T] = t_out
            st[STATUS] = 1
    return RC_DONE


def _int_attr(block: Block, name: str, default: int | None = None, lo: int = 1,
              hi: int | None = None) -> int:
    """Integer attribute ``name`` of ``block`` within ``lo..hi`` (one-line GraphError)."""
    raw = block.attrs.get(name)
    if raw is None or raw == "":
        if default is None:
            raise GraphError(f"node {block.id} ({block.dot_type}) lacks attribute {name}; add "
                             f'{name}="..." (an integer)')
        return default
    try:
        value = int(raw)
    except ValueError:
        raise GraphError(f"node {block.id} ({block.dot_type}): {name}={raw!r} is not an "
                         "integer") from None
    if value < lo or (hi is not None and value > hi):
        rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise GraphError(f"node {block.id} ({block.dot_type}): {name}={value} is outside {rng}")
    return value


class BitvectorConverter(Block):
    """Coordinate stream -> bitvector stream (Def. 4.2); DOT type ``crdtobv`` with ``size`` (the
    fiber size) and ``width`` (bits per word, default ``size``: one word per fiber)."""

    dot_type = "crdtobv"
    family = "convert"
    kernel = crdtobv
    state = CONV
    required_attrs = ("size",)
    errors = {ERR_CRD: "a coordinate outside the fiber size given by the size attribute",
              ERR_ORDER: "coordinates of a fiber are not strictly increasing",
              ERR_KIND: "an empty token (N) on a coordinate input"}

    def inputs(self) -> list[Port]:
        return [Port("crd")]

    def outputs(self) -> list[Port]:
        return [Port("bv", optional=True), Port("ref", optional=True)]

    def params(self, tensors) -> dict[str, int]:
        size = _int_attr(self, "size", lo=0)
        width = _int_attr(self, "width", default=min(max(size, 1), MAX_WIDTH), hi=MAX_WIDTH)
        return {"width": width, "wpf": -(-size // width)}

    def memories(self, tensors) -> dict[str, np.ndarray]:
        return {"held": np.zeros(INITIAL_LENGTH, np.int64)}

    def timing_params(self, timing: str) -> dict[str, int]:
        """``--timing original``: a fiber's words wait for its stop (docs/timing-model.md,
        rule 12)."""
        return {"hold": 1} if timing == "original" else {}


# ----------------------------------------------------------------------------- chunker
CHUNK = State(width=MAX_WIDTH, wpf=1, word=0, j=0, count=0, phase=NEED_REF)
K_WIDTH, K_WPF, K_WORD, K_J, K_COUNT, K_PHASE = CHUNK.slots


@kernel
def bvchunk(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """One fiber-wide word per fiber into ``wpf`` words of ``width`` bits."""
    cin = ins[0]
    width = st[K_WIDTH]
    while st[STATUS] == 0:
        t = st[T]
        if st[K_PHASE] == IN_FIBER:
            t_out = reserve_all(w, st, optr, ochan, t)
            if t_out < 0:
                return blocked(t_out)
            part = (st[K_WORD] >> (st[K_J] * width)) & bits_below(width)
            a = fire(st, t, t_out)
            push(w, optr, ochan, 0, DATA, part, a)
            push(w, optr, ochan, 1, DATA, st[K_COUNT], a)
            st[K_COUNT] += popcount(part)
            st[K_J] += 1
            if st[K_J] == st[K_WPF]:
                st[K_PHASE] = NEED_REF
            continue
        t_in = arrive(w, st, cin, t)
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, cin)
        if k == DATA:
            # Take the fiber's word (its first part goes out in the next firing).
            fire(st, t_in, t_in)
            st[K_WORD] = hdata(w, cin)
            pop(w, cin, t_in)
            st[K_J] = 0
            st[K_PHASE] = IN_FIBER if st[K_WPF] > 0 else NEED_REF
            continue
        if k == EMPTY:
            return fail(st, ERR_KIND, w, cin, 0)
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        lv = hdata(w, cin) if k == STOP else 0
        a = fire(st, t_in, t_out)
        pop(w, cin, t_out)
        push(w, optr, ochan, 0, k, lv, a)
        push(w, optr, ochan, 1, k, lv, a)
        if k == DONE:
            st[DONE_T] = t_out
            st[STATUS] = 1
    return RC_DONE


class BitvectorChunker(Block):
    """Fiber-wide words -> ``width``-bit words (Sec. 4.3); DOT type ``bvchunk`` with ``size``
    (the fiber size, at most 64: one input word per fiber) and ``width``."""

    dot_type = "bvchunk"
    family = "convert"
    kernel = bvchunk
    state = CHUNK
    required_attrs = ("size", "width")
    errors = {ERR_KIND: "an empty token (N) on a bitvector input"}

    def inputs(self) -> list[Port]:
        return [Port("bv"), Port("ref", optional=True)]

    def ignored_inputs(self) -> list[str]:
        return ["ref"]

    def outputs(self) -> list[Port]:
        return [Port("bv", optional=True), Port("ref", optional=True)]

    def params(self, tensors) -> dict[str, int]:
        size = _int_attr(self, "size", lo=0, hi=MAX_WIDTH)
        width = _int_attr(self, "width", hi=MAX_WIDTH)
        return {"width": width, "wpf": -(-size // width)}


# ----------------------------------------------------------------------------- AND / OR
AND, OR = 0, 1
BVMERGE = State(operands=0, op=AND, width=MAX_WIDTH, res=0, k=0, j=0, phase=NEED_REF,
                held=[0] * 8, refs=[0] * 8)
M_OPERANDS, M_OP, M_WIDTH, M_RES, M_K, M_J, M_PHASE, M_HELD, M_REFS = BVMERGE.slots
ERR_STOPS, ERR_DONE, ERR_ALIGN, ERR_EMPTY = 1, 2, 3, 4
#: Most operands of one bitvector merge (state slots per operand).
MAX_OPERANDS = 8


@jitable(inline=True)
def emit_bit(w, st, optr, ochan, a, m, k):
    """Coordinate and per-operand references of set bit ``k`` of the result word."""
    push(w, optr, ochan, 1, DATA, st[M_J] * st[M_WIDTH] + k, a)
    for q in range(m):
        x = st[M_HELD + q]
        if has_bit(x, k):
            push(w, optr, ochan, 2 + q, DATA, st[M_REFS + q] + popcount(x & bits_below(k)), a)
        else:
            push(w, optr, ochan, 2 + q, EMPTY, 0, a)


@kernel
def bvmerge(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """AND (``op=0``) or OR of m aligned (word, reference) streams; output 0 the result word,
    output 1 one coordinate per set bit, outputs 2.. one reference per operand per set bit."""
    m = st[M_OPERANDS]
    width = st[M_WIDTH]
    while st[STATUS] == 0:
        t = st[T]
        if st[M_PHASE] == IN_FIBER:
            k = next_bit(st[M_RES], st[M_K], width)
            if k >= width:
                st[M_PHASE] = NEED_REF
                st[M_J] += 1
                end_cycle(st)  # a wide merge takes one word per cycle
                continue
            t_out = reserve_all(w, st, optr, ochan, t)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t, t_out)
            emit_bit(w, st, optr, ochan, a, m, k)
            st[M_K] = k + 1
            continue
        t_in = t
        ndata = 0
        ndone = 0
        level = -1
        for q in range(m):
            c = ins[2 * q]
            t_in = arrive(w, st, c, t_in)
            if t_in == NOT_YET:
                return RC_IN
            r = ins[2 * q + 1]
            if r >= 0:
                t_in = arrive(w, st, r, t_in)
                if t_in == NOT_YET:
                    return RC_IN
                if hkind(w, r) != hkind(w, c) or (hkind(w, c) == STOP
                                                   and hdata(w, r) != hdata(w, c)):
                    return fail(st, ERR_ALIGN, w, r, 2 * q + 1)
            kind = hkind(w, c)
            if kind == DATA:
                ndata += 1
            elif kind == DONE:
                ndone += 1
            elif kind == STOP:
                if level >= 0 and hdata(w, c) != level:
                    return fail(st, ERR_STOPS, w, c, 2 * q)
                level = hdata(w, c)
            else:
                return fail(st, ERR_EMPTY, w, c, 2 * q)
        if ndata == m:
            res = hdata(w, ins[0])
            for q in range(m):
                x = hdata(w, ins[2 * q])
                st[M_HELD + q] = x
                st[M_REFS + q] = hdata(w, ins[2 * q + 1]) if ins[2 * q + 1] >= 0 else 0
                res = (res | x) if st[M_OP] == OR else (res & x)
            k = next_bit(res, 0, width)
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            push(w, optr, ochan, 0, DATA, res, a)
            for q in range(m):
                pop(w, ins[2 * q], t_out)
                if ins[2 * q + 1] >= 0:
                    pop(w, ins[2 * q + 1], t_out)
            st[M_RES] = res
            if k < width:
                emit_bit(w, st, optr, ochan, a, m, k)
            st[M_K] = k + 1
            st[M_PHASE] = IN_FIBER
            continue
        if ndata > 0 or (ndone > 0 and ndone < m):
            return fail(st, ERR_DONE if ndone > 0 else ERR_STOPS, w, ins[0], 0)
        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        a = fire(st, t_in, t_out)
        kind = DONE if ndone == m else STOP
        for port in range(m + 2):
            push(w, optr, ochan, port, kind, 0 if kind == DONE else level, a)
        for q in range(m):
            pop(w, ins[2 * q], t_out)
            if ins[2 * q + 1] >= 0:
                pop(w, ins[2 * q + 1], t_out)
        st[M_J] = 0
        if kind == STOP:
            end_cycle(st)
        elif kind == DONE:
            st[DONE_T] = t_out
            st[STATUS] = 1
    return RC_DONE


class _BitvectorMerger(Block):
    """Shared ports: one (bv, ref) pair per operand in; bv, crd and one ref per operand out."""

    family = "merge"
    kernel = bvmerge
    state = BVMERGE
    op = AND
    #: wide (SAM Sec. 4.4, Capstan's loop header): up to n set bits of one word per cycle
    widenable = True
    errors = {
        ERR_STOPS: "inputs reached stop tokens of different levels (misaligned fibers)",
        ERR_DONE: "inputs ended at different points (one has more fibers than another)",
        ERR_ALIGN: "a reference stream does not line up with its bitvector stream",
        ERR_EMPTY: "an empty token (N) on a bitvector input",
    }

    def __init__(self, node_id, attrs=None, operands: list[str] | None = None) -> None:
        super().__init__(node_id, attrs)
        self.operands: list[str] = list(operands or [])

    def declare_port(self, direction: str, kind: str, comment: str) -> None:
        prefix = "in-" if direction == "in" else "out-"
        if comment.startswith(prefix) and comment[len(prefix):] not in self.operands:
            self.operands.append(comment[len(prefix):])

    def inputs(self) -> list[Port]:
        ports = []
        for t in self.operands:
            ports += [Port("bv", f"in-{t}"), Port("ref", f"in-{t}", optional=True)]
        return ports

    def outputs(self) -> list[Port]:
        return [Port("bv", optional=True), Port("crd", optional=True)] + [
            Port("ref", f"out-{t}", optional=True) for t in self.operands]

    def params(self, tensors) -> dict[str, int]:
        if not 1 <= len(self.operands) <= MAX_OPERANDS:
            raise GraphError(f"node {self.id} ({self.dot_type}) merges {len(self.operands)} "
                             f"operands; it takes 1..{MAX_OPERANDS}")
        return {"operands": len(self.operands), "op": self.op,
                "width": _int_attr(self, "width", default=MAX_WIDTH, hi=MAX_WIDTH)}

    def label(self) -> str:
        return f"{self.dot_type} {self.attrs.get('index', '')}"


class BitvectorIntersecter(_BitvectorMerger):
    """AND of m bitvector streams, then one reference per operand per set bit (Sec. 4.3,
    Capstan's and); DOT type ``bvintersect``."""

    dot_type = "bvintersect"
    op = AND


class BitvectorUnioner(_BitvectorMerger):
    """OR of m bitvector streams (Capstan's or), ``N`` for an operand without the bit; DOT type
    ``bvunion``."""

    dot_type = "bvunion"
    op = OR


class BitvectorToCrd(_BitvectorMerger):
    """Bitvector stream -> coordinate and reference streams, one per set bit; DOT type
    ``bvtocrd`` (ports ``bv``, ``ref`` in; ``crd``, ``ref`` out; attribute ``width``)."""

    dot_type = "bvtocrd"
    family = "convert"
    op = OR

    def __init__(self, node_id, attrs=None, operands: list[str] | None = None) -> None:
        super().__init__(node_id, attrs, [""])

    def declare_port(self, direction: str, kind: str, comment: str) -> None:
        return None

    def inputs(self) -> list[Port]:
        return [Port("bv"), Port("ref", optional=True)]

    def outputs(self) -> list[Port]:
        return [Port("bv", optional=True), Port("crd", optional=True),
                Port("ref", optional=True)]


# ----------------------------------------------------------------------------- writer
BVWRITE = State(count=0, stops=0)
W_COUNT, W_STOPS = BVWRITE.slots
WORDS_MEM = 0


@kernel
def bvwrite(w, st, fst, ins, optr, ochan, words, stop_at, stop_level, m3, f0, f1):
    """Bitvector level writer: words into ``words``; each stop's position (words before it)
    into ``stop_at`` and its level into ``stop_level``."""
    c = ins[0]
    while st[STATUS] == 0:
        t_in = arrive(w, st, c, st[T])
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, c)
        if k == DATA:
            n = st[W_COUNT]
            if n >= words.shape[0]:
                return need_memory(st, 0)
            words[n] = hdata(w, c)
            st[W_COUNT] = n + 1
        elif k == STOP:
            n = st[W_STOPS]
            if n >= stop_at.shape[0]:
                return need_memory(st, 1)
            stop_at[n] = st[W_COUNT]
            stop_level[n] = hdata(w, c)
            st[W_STOPS] = n + 1
        elif k == EMPTY:
            return fail(st, ERR_EMPTY, w, c, 0)
        fire(st, t_in, t_in)
        pop(w, c, t_in)
        if k == DONE:
            st[DONE_T] = t_in
            st[STATUS] = 1
    return RC_DONE


def words_to_crd(words: np.ndarray, stop_at: np.ndarray, stop_level: np.ndarray, width: int
                 ) -> dict[str, np.ndarray]:
    """A bitvector writer's record as a coordinate writer's: the set bits' coordinates (word
    index within its fiber times ``width`` plus the bit) and the stops between them."""
    words = np.asarray(words, np.int64)
    fiber_start = np.zeros(len(words), np.int64)
    starts = np.asarray(stop_at, np.int64)
    idx = np.arange(len(words))
    if len(words):
        before = np.searchsorted(starts, idx, side="right")  # stops at or before word i
        first = np.concatenate([[0], starts])[before]
        fiber_start = idx - first
    bits = (words.view(np.uint64)[:, None] >> np.arange(width, dtype=np.uint64)[None, :]) \
        & np.uint64(1)
    wi, b = np.nonzero(bits)
    crd = (fiber_start[wi] * width + b).astype(np.int64)
    counts = np.concatenate([[0], np.cumsum(bits.sum(axis=1))]).astype(np.int64)
    return {"crd": crd, "stop_at": counts[starts] if len(starts) else starts.copy(),
            "stop_level": np.asarray(stop_level, np.int64).copy()}


class BitvectorWriter(LevelWriter):
    """Bitvector level writer (Sec. 4.3, Def. 3.8); DOT type ``bvwrite`` with ``width``."""

    dot_type = "bvwrite"
    family = "write"
    kernel = bvwrite
    state = BVWRITE
    errors = {ERR_EMPTY: "an empty token (N) reached a bitvector level writer"}

    def inputs(self) -> list[Port]:
        return [Port("bv")]

    def memories(self, tensors) -> dict[str, np.ndarray]:
        return {name: np.zeros(INITIAL_LENGTH, np.int64)
                for name in ("words", "stop_at", "stop_level")}

    def grow_memory(self, mem: Memories, which: int) -> None:
        for k in ((1, 2) if which in (1, 2) else (which,)):
            mem.grow(k)

    @property
    def writes_values(self) -> bool:
        return False

    def recorded(self, st: np.ndarray, mem: Memories) -> dict[str, np.ndarray]:
        """What it stored, as coordinates and stops (:func:`words_to_crd`), plus ``words``."""
        n, k = int(st[W_COUNT]), int(st[W_STOPS])
        words = mem["words"][:n].copy()
        rec = words_to_crd(words, mem["stop_at"][:k], mem["stop_level"][:k],
                           _int_attr(self, "width", default=MAX_WIDTH, hi=MAX_WIDTH))
        rec["words"] = words
        return rec

    def label(self) -> str:
        return f"bvwrite {self.attrs.get('index', '')}: {self.tensor}{self.attrs.get('mode')}"


# ----------------------------------------------------------------------------- dropper
NEED_OUTER, BITS = 0, 1
#: ``--timing original`` (docs/timing-model.md, rule 12): ``zerofree``, an inner fiber's leading
#: zero words are taken without a firing (the original's bit-tree intersecter emits no word for
#: an empty AND, so its dropper never sees one); ``eager``, a held inner stop of level >= 1 (one
#: no later stop can merge into) goes out in the firing that makes it, beside the outer word
#: (the original's dropper passes the inner stream through its own stop dropper, beside the
#: outer one).
BVDROP = State(ophase=NEED_OUTER, oword=0, obit=0, obits=0, kept=0, zeros=0, words=0, held=-1,
               zerofree=0, eager=0)
(D_OPHASE, D_OWORD, D_OBIT, D_OBITS, D_KEPT, D_ZEROS, D_WORDS, D_HELD, D_ZEROFREE,
 D_EAGER) = BVDROP.slots
ERR_DROP_ALIGN = 1


@jitable
def reserve_ports(w, st, optr, ochan, p0, p1, t):
    """Room on output ``p0`` and, when ``p1 >= 0``, on ``p1`` (a negative code if none)."""
    t_out = reserve(w, st, optr, ochan, p0, t)
    if t_out < 0 or p1 < 0:
        return t_out
    t2 = reserve(w, st, optr, ochan, p1, t_out)
    return t2


@kernel
def bvdrop(w, st, fst, ins, optr, ochan, m0, m1, m2, m3, f0, f1):
    """Bitvector dropper: input 0 the outer words, input 1 the inner fibers (one per set outer
    bit); output 0 the outer words with the bits of empty inner fibers cleared, output 1 the
    nonempty inner fibers (their stops merged as the coordinate dropper merges them)."""
    co = ins[0]
    ci = ins[1]
    while st[STATUS] == 0:
        t = st[T]
        if st[D_OPHASE] == NEED_OUTER:
            t_in = arrive(w, st, co, t)
            if t_in == NOT_YET:
                return RC_IN
            k = hkind(w, co)
            if k == DATA:
                x = hdata(w, co)
                if x == 0:
                    t_out = reserve_ports(w, st, optr, ochan, 0, -1, t_in)
                    if t_out < 0:
                        return blocked(t_out)
                    a = fire(st, t_in, t_out)
                    push(w, optr, ochan, 0, DATA, 0, a)
                    pop(w, co, t_out)
                    continue
                fire(st, t_in, t_in)
                pop(w, co, t_in)
                st[D_OWORD] = x
                st[D_OBIT] = next_bit(x, 0, MAX_WIDTH)
                st[D_OBITS] += 1
                st[D_OPHASE] = BITS
                continue
            if k == EMPTY:
                return fail(st, ERR_EMPTY, w, co, 0)
            if k == STOP and st[D_OBITS] > 0:
                t_out = reserve_ports(w, st, optr, ochan, 0, -1, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, 0, STOP, hdata(w, co), a)
                pop(w, co, t_out)
                st[D_OBITS] = 0
                continue
            # An outer fiber without set bits (its inner stream holds a bare stop), or done.
            t_in = arrive(w, st, ci, t_in)
            if t_in == NOT_YET:
                return RC_IN
            ki = hkind(w, ci)
            if (k == STOP and (ki != STOP or st[D_WORDS] != 0)) or (k == DONE and ki != DONE):
                return fail(st, ERR_DROP_ALIGN, w, ci, 1)
            if k == DONE and st[D_HELD] >= 0:
                t_out = reserve_ports(w, st, optr, ochan, 1, -1, t_in)
                if t_out < 0:
                    return blocked(t_out)
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, 1, STOP, st[D_HELD], a)
                st[D_HELD] = -1
                continue
            now = -1
            if k == STOP:
                now, held = merge_empty(st[D_HELD], hdata(w, ci))
                if now < 0 and held >= 1 and st[D_EAGER] == 1:
                    now, held = held, -1
            t_out = reserve_ports(w, st, optr, ochan, 0, 1 if (now >= 0 or k == DONE) else -1,
                                  t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            if k == DONE:
                push(w, optr, ochan, 0, DONE, 0, a)
                push(w, optr, ochan, 1, DONE, 0, a)
                st[DONE_T] = t_out
                st[STATUS] = 1
            else:
                push(w, optr, ochan, 0, STOP, hdata(w, co), a)
                if now >= 0:
                    push(w, optr, ochan, 1, STOP, now, a)
                st[D_HELD] = held
            pop(w, co, t_out)
            pop(w, ci, t_out)
            st[D_OBITS] = 0
            continue
        # BITS: the inner fiber of outer bit OBIT (slot D_OBIT).
        t_in = arrive(w, st, ci, t)
        if t_in == NOT_YET:
            return RC_IN
        k = hkind(w, ci)
        if k == DATA:
            x = hdata(w, ci)
            if st[D_KEPT] == 0 and x == 0:
                if st[D_ZEROFREE] == 0:
                    fire(st, t_in, t_in)
                pop(w, ci, t_in)
                st[D_ZEROS] += 1
                st[D_WORDS] += 1
                continue
            t_out = reserve_ports(w, st, optr, ochan, 1, -1, t_in)
            if t_out < 0:
                return blocked(t_out)
            a = fire(st, t_in, t_out)
            if st[D_KEPT] == 0 and st[D_HELD] >= 0:
                push(w, optr, ochan, 1, STOP, st[D_HELD], a)  # the fiber before is closed
                st[D_HELD] = -1
            elif st[D_KEPT] == 0 and st[D_ZEROS] > 0:
                push(w, optr, ochan, 1, DATA, 0, a)  # a held leading zero word
                st[D_ZEROS] -= 1
            else:
                push(w, optr, ochan, 1, DATA, x, a)
                pop(w, ci, t_out)
                st[D_KEPT] = 1
                st[D_WORDS] += 1
            continue
        if k != STOP or st[D_WORDS] == 0:
            return fail(st, ERR_DROP_ALIGN, w, ci, 1)
        c = hdata(w, ci)
        now = -1
        held = c
        if st[D_KEPT] == 0:
            now, held = merge_empty(st[D_HELD], c)
        if now < 0 and held >= 1 and st[D_EAGER] == 1:
            now, held = held, -1
        nxt = next_bit(st[D_OWORD], st[D_OBIT] + 1, MAX_WIDTH)
        t_out = reserve_ports(w, st, optr, ochan, 1 if now >= 0 else 0,
                              0 if (now >= 0 and nxt >= MAX_WIDTH) else -1, t_in)
        if t_out < 0:
            return blocked(t_out)
        a = fire(st, t_in, t_out)
        pop(w, ci, t_out)
        if st[D_KEPT] == 0:
            st[D_OWORD] = st[D_OWORD] & ~bit(st[D_OBIT])
        if now >= 0:
            push(w, optr, ochan, 1, STOP, now, a)
        st[D_HELD] = held
        st[D_KEPT] = 0
        st[D_ZEROS] = 0
        st[D_WORDS] = 0
        st[D_OBIT] = nxt
        if nxt >= MAX_WIDTH:
            push(w, optr, ochan, 0, DATA, st[D_OWORD], a)
            st[D_OPHASE] = NEED_OUTER
    return RC_DONE


class BitvectorDropper(Block):
    """Bitvector dropper (Sec. 4.3, as Def. 3.9 for bitvectors): clears the outer bits whose
    inner fiber is empty and removes those fibers; DOT type ``bvdrop``."""

    dot_type = "bvdrop"
    family = "drop"
    kernel = bvdrop
    state = BVDROP
    errors = {ERR_DROP_ALIGN: "the inner stream does not hold one fiber per set outer bit",
              ERR_EMPTY: "an empty token (N) on a bitvector input"}

    def inputs(self) -> list[Port]:
        return [Port("bv", "outer"), Port("bv", "inner")]

    def outputs(self) -> list[Port]:
        return [Port("bv", "outer", optional=True), Port("bv", "inner", optional=True)]

    def timing_params(self, timing: str) -> dict[str, int]:
        """``--timing original``: zero inner words cost no firing, a held stop of level >= 1
        goes out at once (docs/timing-model.md, rule 12)."""
        return {"zerofree": 1, "eager": 1} if timing == "original" else {}
