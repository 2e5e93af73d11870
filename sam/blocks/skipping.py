"""Coordinate skipping (SAM paper Sec. 4.2): the scanner's side of a skip stream.

An intersecter sends each trailing compressed scanner, on a feedback edge (DOT ``type="crd"
comment="skip-B"``), the coordinate it needs next; a stop token on that stream ends the
scanner's current fiber (another input of the intersection has no more coordinates in it), and
the stream's stops also say which fiber its coordinates belong to: the scanner counts the stop
tokens it has emitted (``fib``) and the ones it took from the skip stream (``sfib``); a skip
applies only while the two agree (a skip from an earlier fiber is ignored), and only when it
lies ahead of the scanner (a skip behind it is ignored). The scanner then jumps to the first
coordinate ``>=`` the skip in its current fiber, its position found by search in the same cycle
(docs/timing-model.md, "Coordinate skipping"), and never emits the ones in between.

The helpers here are inlined into the level scanner kernel (:mod:`sam.blocks.scanners`); the
intersecter's side is in :mod:`sam.blocks.merges`.
"""

from __future__ import annotations

from sam.sim.jit import jitable
from sam.sim.tokens import DATA, STOP
from sam.sim.wires import hdata, hkind, pop

#: ``told[k]`` of an intersecter once it has sent input k's scanner the stop of this fiber.
TOLD_STOP = -2


@jitable(inline=True)
def first_at_least(stored, crd, pos, end, base, s):
    """First position in ``[pos, end)`` whose coordinate is ``>= s`` (``end`` when none): a
    binary search over ``crd`` for a stored level (its halving step written as selects, which
    compile to conditional moves: a skip's search is data-dependent branches otherwise),
    arithmetic for an offset (dense) one."""
    if not stored:
        q = base + s
        return q if q < end else end
    first = pos
    n = end - pos
    while n > 0:
        half = n >> 1
        less = crd[first + half] < s
        first = first + half + 1 if less else first
        n = n - half - 1 if less else half
    return first


@jitable(inline=True)
def take_skip(w, c, t, stored, crd, pos, end, base, fib, sfib):
    """Take the head token of skip channel ``c`` in cycle ``t``; what it does to a scanner at
    position ``pos`` of the fiber ``[base, end)``, having emitted ``fib`` stop tokens and taken
    ``sfib`` from the skip stream: ``(new position, sfib)``. The new position is ``end`` when
    the fiber ends (a stop, or no coordinate ``>=`` the skip)."""
    k = hkind(w, c)
    s = hdata(w, c)
    pop(w, c, t)
    if k == STOP:
        if sfib == fib:
            pos = end
        return pos, sfib + 1
    if k == DATA and sfib == fib:
        here = crd[pos] if stored else pos - base
        if s > here:
            pos = first_at_least(stored, crd, pos, end, base, s)
    return pos, sfib
