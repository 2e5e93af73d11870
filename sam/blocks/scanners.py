"""Level scanners (SAM paper Def. 3.1, Sec. 3.3, Figures 2-3).

A level scanner turns a reference stream into a coordinate stream and a reference stream, one
fibertree level deep: for each input reference r it emits every coordinate of fiber r with its
position in the level, then a stop token. Input stop tokens ``Sn`` come out as ``S(n+1)``, merged
with the stop that ends the last fiber before them (``0, 1, 2, S0, D`` in gives
``..., S0, ..., S0, ..., S1, D``, Figure 2). An empty reference ``N`` gives an empty fiber.

Timing, per fiber of length L: the cycle that takes the reference emits the first coordinate,
L-1 more cycles emit the rest, and one cycle emits the closing stop (it needs the next input
token to know its level). An empty fiber costs a cycle to take the reference and one for its stop.

A scanner an intersecter sends skips to (a ``crd`` edge into it: its feedback input
``crd:skip``, Sec. 4.2) takes at most one skip per firing that emits a coordinate and jumps ahead
in the same firing (:mod:`sam.blocks.skipping`; docs/timing-model.md rules 10-11).

A non-unique level (``format=compressed_nonunique`` / ``singleton_nonunique``) is scanned
*deduplicated*: the scanner walks the level's runs (:func:`formats.levels.walk_levels`), emitting
each distinct coordinate of a fiber once with its run number as the reference, and the singleton
level below walks the run's positions as a segment. SAM's merges thus see ascending, distinct
coordinates (Sec. 3.4). Timing: one cycle per distinct coordinate, as for a compressed level (the
run bounds are a segment array read in one cycle, Sec. 6.1: memory fetches take one cycle and
memories are pre-initialized); see docs/timing-model.md.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from formats.errors import FormatError
from formats.levels import Level, level_named
from formats.tensor import Tensor
from sam.blocks.base import LevelBlock, Port, Ports
from sam.blocks.skipping import drop_stale, rank_index, rank_start, take_skip
from sam.errors import GraphError
from sam.runtime.burst import account, burst_room, commit
from sam.runtime.jit import jitable
from sam.runtime.kernel import (
    NOT_YET,
    Kernel,
    State,
    arrive,
    blocked,
    end_cycle,
    fail,
    fire,
    kernel,
    reserve_all,
    wait_until,
)
from sam.runtime.tokens import DATA, DONE, EMPTY, STOP
from sam.runtime.wires import (
    DONE_T,
    LAT,
    RC_DONE,
    RC_IN,
    STATUS,
    WIDTH,
    T,
    hdata,
    hkind,
    htime,
    pop,
    push,
    ready,
)

# How a level is walked (Level.positions, Level.coordinates), as kernel parameters.
STRIDE, SEGMENT, SINGLE, EXTENT = 0, 1, 2, 3
POSITION_RULES = {"stride": STRIDE, "segment": SEGMENT, "single": SINGLE, "extent": EXTENT}
OFFSET, STORED = 0, 1
COORDINATE_RULES = {"offset": OFFSET, "stored": STORED}

NEED_REF, IN_FIBER, CLOSE = 0, 1, 2
#: ``lookahead`` (``--timing original``): a compressed level's coordinates after the first of a
#: fiber wait for the next input token (the original's scanner only advances with a reference
#: queued behind the current one; docs/timing-model.md, rule 12).
SCAN = State(positions=STRIDE, coordinates=OFFSET, size=0, pos=0, end=0, base=0, phase=NEED_REF,
             fib=0, sfib=0, skip_t=-1, lookahead=0, rank_at=-1)
(POSITIONS, COORDINATES, SIZE, POS, END, BASE, PHASE, FIB, SFIB, SKIP_T, LOOKAHEAD,
 RANK_AT) = SCAN.slots

ERR_RANGE = 1
#: DOT comment of the skip edges into a scanner (``skip-B``: from the intersecter, for B).
SKIP_PREFIX = "skip"
#: The references in, and the skip stream (a feedback input) of a scanner that takes skips;
#: the coordinates and their positions (references to the level below) out.
SCAN_IN = Ports.inputs(ref=Port("ref"), skip=Port("crd", SKIP_PREFIX, feedback=True))
REF_IN, SKIP_IN = SCAN_IN.slots
SCAN_OUT = Ports.outputs(crd=Port("crd", optional=True), ref=Port("ref", optional=True))
CRD_OUT, REF_OUT = SCAN_OUT.slots
SCAN_PORTS = len(SCAN_OUT)
#: The level format a scanner without a ``format`` attribute reads (the Custard schema's).
DEFAULT_FORMAT = "compressed"


def level_rules(node: str, level: Level, *, counter: bool = False) -> dict[str, int]:
    """Kernel parameters ``positions``, ``coordinates`` and ``size`` walking ``level`` (as a
    counter over its size, i.e. a full level, with ``counter``)."""
    if counter:
        return {"positions": STRIDE, "coordinates": OFFSET, "size": level.size}
    try:
        return {"positions": POSITION_RULES[level.positions],
                "coordinates": COORDINATE_RULES[level.coordinates], "size": level.size}
    except KeyError:
        raise GraphError(f"node {node}: no scanner rule walks {level.name} levels (positions "
                         f"{level.positions!r}, coordinates {level.coordinates!r})") from None


def level_memories(node: str, level: Level, kern: Kernel) -> dict[str, np.ndarray]:
    """The level's arrays (:meth:`Level.memories`) for a kernel that has arguments of their
    names (``seg``, ``crd``)."""
    arrays = level.memories()
    unknown = [name for name in arrays if name not in kern.memories]
    if unknown:
        raise GraphError(f"node {node}: {level.name} levels store {', '.join(unknown)}, which "
                         f"no scanner or locator kernel reads")
    return arrays


@jitable(inline=True)
def fiber_bounds(positions, coordinates, size, seg, crd, lens, r):
    """Positions ``start, end`` of the fiber of parent position ``r`` (``-1, -1`` when the level
    has no such fiber). A stride level is a counter: any ``r >= 0`` names fiber ``r``; an extent
    level (ragged, storage-padded) ends fiber ``r`` at ``seg[r] + lens[r]``."""
    if r < 0:
        return -1, -1
    if positions == SEGMENT:
        if r + 1 >= seg.shape[0]:
            return -1, -1
        return seg[r], seg[r + 1]
    if positions == EXTENT:
        if r + 1 >= seg.shape[0] or r >= lens.shape[0]:
            return -1, -1
        return seg[r], seg[r] + lens[r]
    if positions == SINGLE:
        if coordinates == STORED and r >= crd.shape[0]:
            return -1, -1
        return r, r + 1
    return r * size, r * size + size


@jitable(inline=True)
def coordinate_at(coordinates, crd, q, start):
    """Coordinate at position ``q`` of the fiber starting at position ``start``."""
    return crd[q] if coordinates == STORED else q - start


@jitable(inline=True)
def write_run(kr, dr, tr, s, k, crd, q, stored, off, a):
    """Write ``k`` data tokens into ring slots ``s, s+1, ...`` (no wrap-around) of one channel's
    rows: the payloads ``crd[q + i]`` (``stored``) or ``q + i - off``, arrivals ``a + i``.
    The slots and positions are unsigned ranges (no negative-index wrap-around, no branch in
    the loop: LLVM vectorizes it; Python iterates them as plain ints)."""
    su = np.uint64(s)
    qu = np.uint64(q)
    ku = np.uint64(k)
    for p, r, i in zip(range(su, su + ku), range(qu, qu + ku), range(k)):  # noqa: B905 (numba)
        kr[p] = DATA
        dr[p] = crd[r] if stored else q + i - off
        tr[p] = a + i


@jitable(inline=True)
def fiber_burst(w, st, optr, ochan, crd):
    """Emit the rest of the current fiber (as far as the outputs take it) in one loop, one
    coordinate and reference per cycle (:mod:`sam.runtime.burst`); the firings made."""
    n = burst_room(w, st, ochan)
    pos = st[POS]
    left = st[END] - pos
    if left < n:
        n = left
    if n <= 0:
        return 0
    t = st[T]
    a = t + st[LAT]
    stored = st[COORDINATES] == STORED
    base = st[BASE]
    cap = w.kind.shape[1]
    mask = cap - 1
    for port in range(SCAN_PORTS):  # channel by channel, the rows as one-dimensional arrays
        for j in range(optr[port], optr[port + 1]):
            oc = ochan[j]
            kr = w.kind[oc]
            dr = w.data[oc]
            tr = w.time[oc]
            tail = w.tail[oc]
            m = 0
            while m < n:  # in runs of slots that do not wrap round the ring
                s = (tail + m) & mask
                k = min(n - m, cap - s)
                if port == CRD_OUT:
                    write_run(kr, dr, tr, s, k, crd, pos + m, stored, base, a + m)
                else:
                    write_run(kr, dr, tr, s, k, crd, pos + m, False, 0, a + m)
                m += k
    commit(w, optr, ochan, CRD_OUT, DATA, n)
    commit(w, optr, ochan, REF_OUT, DATA, n)
    account(st, t, t + n - 1, 0, n)
    st[POS] = pos + n
    if pos + n == st[END]:
        st[PHASE] = CLOSE
    return n


@jitable(inline=True)
def skips_known(w, st, sk, t_in, t):
    """Before a firing in cycle ``t`` that needs the input token arrived in ``t_in``: a
    scanner with a skip stream ``sk`` (width 1) drops the skips left from its earlier fibers
    (:func:`sam.blocks.skipping.drop_stale`), so that they never pile up behind fibers too
    short to take them. It was idle until ``t_in`` (its clock moves there first, so that
    the horizon it publishes while it waits for the skip stream is ``t_in``'s). Whether it may
    fire."""
    if sk < 0 or st[WIDTH] > 1:
        return True
    wait_until(st, t_in)
    ok, st[SFIB] = drop_stale(w, st, sk, t, st[FIB], st[SFIB])
    return ok


@kernel
def scan(w, st, fst, ins, optr, ochan, seg, crd, lens, rank, f0, f1):
    """Level scanner kernel: the fiber of each reference by the level's positions rule (stride
    over ``size``, ``seg`` segments or a single position), its coordinates by the coordinates
    rule (offsets in the fiber, or ``crd``); ``lens`` ends the fibers of an extent level;
    ``rank`` (:func:`sam.blocks.skipping.rank_index`, empty when not built) finds a skip's
    position."""
    cin = ins[REF_IN]
    sk = ins[SKIP_IN] if ins.shape[0] > SKIP_IN else -1  # the skip stream, if any (feedback)
    while st[STATUS] == 0:
        t = st[T]
        phase = st[PHASE]
        if phase == IN_FIBER:
            # Emit the next coordinate of the current fiber; no input needed (with lookahead:
            # the next input token must have arrived).
            if (sk < 0 and (st[LOOKAHEAD] == 0 or st[POSITIONS] != SEGMENT)
                    and fiber_burst(w, st, optr, ochan, crd) > 0):
                continue
            if st[LOOKAHEAD] == 1 and st[POSITIONS] == SEGMENT:
                t = arrive(w, st, cin, t)
                if t == NOT_YET:
                    return RC_IN
            t_out = reserve_all(w, st, optr, ochan, t)
            if t_out < 0:
                return blocked(t_out)
            if sk >= 0 and st[SKIP_T] < t_out:
                # Coordinate skipping (Sec. 4.2): first take a skip that has arrived by now
                # (those left from earlier fibers dropped).
                ok, st[SFIB] = drop_stale(w, st, sk, t_out, st[FIB], st[SFIB])
                if not ok:
                    return RC_IN
                if ready(w, sk) and htime(w, sk) <= t_out:
                    st[SKIP_T] = t_out
                    pos, st[SFIB] = take_skip(w, sk, t_out, st[COORDINATES] == STORED, crd,
                                              st[POS], st[END], st[BASE], st[FIB], st[SFIB],
                                              rank, st[RANK_AT], st[SIZE])
                    st[POS] = pos
                    if pos == st[END]:
                        st[PHASE] = CLOSE  # the fiber ends here: its stop is next
                        continue
            pos = st[POS]
            c = coordinate_at(st[COORDINATES], crd, pos, st[BASE])
            a = fire(st, t, t_out)
            push(w, optr, ochan, CRD_OUT, DATA, c, a)
            push(w, optr, ochan, REF_OUT, DATA, pos, a)
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
                start, end = fiber_bounds(st[POSITIONS], st[COORDINATES], st[SIZE], seg, crd, lens,
                                          r)
                if start < 0:
                    return fail(st, ERR_RANGE, w, cin, REF_IN)
            if start == end:
                # Empty fiber: take the reference now, emit its stop next cycle.
                if not skips_known(w, st, sk, t_in, t_in):
                    return RC_IN
                fire(st, t_in, t_in)
                pop(w, cin, t_in)
                st[PHASE] = CLOSE
                continue
            t_out = reserve_all(w, st, optr, ochan, t_in)
            if t_out < 0:
                return blocked(t_out)
            if not skips_known(w, st, sk, t_in, t_out):
                return RC_IN
            a = fire(st, t_in, t_out)
            pop(w, cin, t_out)
            c = coordinate_at(st[COORDINATES], crd, start, start)
            push(w, optr, ochan, CRD_OUT, DATA, c, a)
            push(w, optr, ochan, REF_OUT, DATA, start, a)
            st[BASE] = start
            st[RANK_AT] = rank_start(rank, st[SIZE], r)
            st[POS] = start + 1
            st[END] = end
            st[PHASE] = IN_FIBER if start + 1 < end else CLOSE
            continue

        t_out = reserve_all(w, st, optr, ochan, t_in)
        if t_out < 0:
            return blocked(t_out)
        if k != DONE and not skips_known(w, st, sk, t_in, t_out):
            return RC_IN
        if k == DONE:
            if phase == CLOSE:  # close the last fiber first
                a = fire(st, t_in, t_out)
                push(w, optr, ochan, CRD_OUT, STOP, 0, a)
                push(w, optr, ochan, REF_OUT, STOP, 0, a)
                end_cycle(st)
                st[FIB] += 1
                st[PHASE] = NEED_REF
                continue
            a = fire(st, t_in, t_out)
            pop(w, cin, t_out)
            push(w, optr, ochan, CRD_OUT, DONE, 0, a)
            push(w, optr, ochan, REF_OUT, DONE, 0, a)
            st[DONE_T] = t_out
            st[STATUS] = 1
        elif k == STOP:
            # Closes the current fiber (if any) and input level r: S(r+1).
            a = fire(st, t_in, t_out)
            pop(w, cin, t_out)
            push(w, optr, ochan, CRD_OUT, STOP, r + 1, a)
            push(w, optr, ochan, REF_OUT, STOP, r + 1, a)
            end_cycle(st)
            st[FIB] += 1
            st[PHASE] = NEED_REF
        else:
            # CLOSE followed by a new reference: the fiber ends with S0.
            a = fire(st, t_in, t_out)
            push(w, optr, ochan, CRD_OUT, STOP, 0, a)
            push(w, optr, ochan, REF_OUT, STOP, 0, a)
            end_cycle(st)
            st[FIB] += 1
            st[PHASE] = NEED_REF
    return RC_DONE


class LevelScanner(LevelBlock):
    """Level scanner over one level of a tensor (Def. 3.1); DOT type ``fiberlookup``."""

    dot_type = "fiberlookup"
    family = "scan"
    kernel = scan
    state = SCAN
    reads_root = True
    widenable = True
    level_verb = "scans"
    errors = {
        ERR_RANGE: "reference out of range for the level being scanned",
    }

    SKIP_PREFIX = SKIP_PREFIX
    output_ports = SCAN_OUT

    def __init__(self, node_id, attrs=None) -> None:
        super().__init__(node_id, attrs)
        #: whether an intersecter sends this scanner skips (a ``crd`` edge into it, Sec. 4.2)
        self.skipping = False

    def declare_port(self, direction: str, kind: str, comment: str) -> None:
        """A ``crd`` edge into a scanner is the skip stream of an intersecter."""
        if direction == "in" and kind == "crd":
            self.skipping = True

    def inputs(self) -> list[Port]:
        # A root scanner has no input edge: it reads the root reference stream ``0, D``.
        ports = SCAN_IN.ports(ref={"optional": self.is_root})
        return ports if self.skipping else ports[:SKIP_IN]

    def _scanned(self, tensors: Mapping[str, Tensor]) -> tuple[Level, bool]:
        """The level scanned, and whether the DOT ``format`` makes it a counter over the level's
        size (a full format over any level); any other format must be the level's own."""
        level = self.level_of(tensors[self.tensor])
        fmt = self.attrs.get("format", DEFAULT_FORMAT)
        try:
            want = level_named(fmt)
        except FormatError as err:
            raise GraphError(f"node {self.id} (fiberlookup): {err}") from None
        if want.full:
            return level, True
        if want.name != level.name:
            raise GraphError(
                f"node {self.id} scans mode {self.mode} of {self.tensor} as {fmt}, but that "
                f"level is stored {level.name}; bind {self.tensor} in the graph's format"
            )
        return self.walked_level(tensors[self.tensor]), False

    def params(self, tensors: Mapping[str, Tensor]) -> dict[str, int]:
        level, counter = self._scanned(tensors)
        return level_rules(self.id, level, counter=counter)

    def timing_params(self, timing: str) -> dict[str, int]:
        """``original``: a compressed level's scanner waits for the next input token before it
        emits a fiber's second and later coordinates (docs/timing-model.md, rule 12)."""
        return {"lookahead": 1} if timing == "original" else {}

    def memories(self, tensors: Mapping[str, Tensor]) -> dict[str, np.ndarray]:
        """The level's arrays; a skipping scanner of a compressed level also gets its
        :func:`~sam.blocks.skipping.rank_index` (a skip's position in one read)."""
        level, counter = self._scanned(tensors)
        if counter:
            return {}
        arrays = level_memories(self.id, level, self.kernel)
        if (self.skipping and level.ordered and level.positions == "segment"
                and level.coordinates == "stored"):
            arrays["rank"] = rank_index(np.asarray(arrays["seg"], np.int64),
                                        np.asarray(arrays["crd"], np.int64), level.size)
        return arrays

    def label(self) -> str:
        fmt = self.attrs.get("format", DEFAULT_FORMAT)
        return f"scan {self.attrs.get('index', '')}: {self.tensor}{self.attrs.get('mode')} ({fmt})"
