"""Burst paths: many firings of a block in one tight loop, where their timing is determined.

With unbounded FIFOs (the paper's Sec. 6 assumption) and no feedback input, a firing that
takes one data token and emits one data token per output port has its cycle fixed by the
input's arrival alone: ``t = max(arrival, previous firing + 1)``, and the output arrives at
``t + latency`` (``docs/timing-model.md``). A kernel can then move a run of such tokens without
the per-token checks of the general loop (``arrive``, ``reserve_all``, ``fire``, ``push``,
``pop``): it writes the output slots directly and updates the block's clock and statistics
once per run. The result is the one the general loop computes token by token: the same tokens,
arrival cycles, counts and state (``tests/test_burst.py`` runs the Python kernels with bursts
on and off and compares every token and statistic).

A burst never crosses a stop, empty or done token, a bounded FIFO (``depth > 0``) or a full
simulator ring: :func:`burst_len` is 0 then and the kernel takes its general path.
"""

from __future__ import annotations

from sam.runtime.jit import jitable
from sam.runtime.paths import BURST, is_on
from sam.runtime.tokens import DATA, EMPTY, STOP
from sam.runtime.wires import BUSY, FIRST_T, IDLE, PATH_RUNS, WIDTH, T

#: Every bit but the sign. ``x & NONNEG`` is ``x`` for any ``x >= 0``, and tells the compiler
#: so: numba wraps a negative index around (a shift, an and and an add, and a register holding
#: the array's length, per access) unless it can prove the index non-negative.
NONNEG = (1 << 63) - 1


@jitable(inline=True)
def ring_mask(w):
    """The slot mask of the rings (capacity - 1), non-negative to the compiler: a slot
    ``n & ring_mask(w)`` indexes a ring row without numba's negative-index wrap-around."""
    return (w.kind.shape[1] - 1) & NONNEG


@jitable
def bursts_on(st):
    """Whether a block may burst: it moves one token per cycle (a wide block,
    ``st[WIDTH] > 1``, fires several per cycle: general path) and the simulation has not
    turned bursts off (:class:`sam.runtime.paths.FastPaths`)."""
    return st[WIDTH] <= 1 and is_on(st, BURST)


@jitable
def burst_room(w, st, ochan):
    """How many tokens every output channel can take in a burst (0 with a bounded FIFO or a
    wide block)."""
    if not bursts_on(st):
        return 0
    cap = w.kind.shape[1]
    n = cap
    for j in range(ochan.shape[0]):
        oc = ochan[j]
        if w.depth[oc] > 0:
            return 0
        r = cap - (w.tail[oc] - w.head[oc])
        if r < n:
            n = r
    st[PATH_RUNS] += 1  # a burst may run: counted (tests/test_paths.py), not per refusal
    return n


@jitable
def burst_len(w, st, ochan, c):
    """How many tokens of input channel ``c`` a burst may take: those waiting, at most what
    every output can take (0 with a bounded FIFO on ``c`` or an output)."""
    if c < 0 or w.depth[c] > 0:
        return 0
    n = burst_room(w, st, ochan)
    k = w.tail[c] - w.head[c]
    return k if k < n else n


@jitable(inline=True)
def put(w, optr, ochan, port, m, kind, data, a):
    """Write token ``m`` of a burst (``m`` slots past the tail) on every channel of ``port``."""
    mask = ring_mask(w)
    for j in range(optr[port], optr[port + 1]):
        oc = ochan[j]
        s = (w.tail[oc] + m) & mask
        w.kind[oc, s] = kind
        w.data[oc, s] = data
        w.time[oc, s] = a


@jitable(inline=True)
def putv(w, optr, ochan, port, m, value, a):
    """Like :func:`put`, a data token with a value payload."""
    mask = ring_mask(w)
    for j in range(optr[port], optr[port + 1]):
        oc = ochan[j]
        s = (w.tail[oc] + m) & mask
        w.kind[oc, s] = DATA
        w.fdata[oc, s] = value
        w.time[oc, s] = a


@jitable(inline=True)
def put_counted(w, optr, ochan, port, m, kind, data, a):
    """Like :func:`put`, counting the token by its kind now (for a port whose burst tokens are
    of mixed kinds; publish them with :func:`advance`)."""
    put(w, optr, ochan, port, m, kind, data, a)
    for j in range(optr[port], optr[port + 1]):
        w.count[ochan[j], kind] += 1


@jitable
def advance(w, optr, ochan, port, m):
    """Publish the ``m`` tokens a burst wrote on ``port`` with :func:`put_counted`."""
    for j in range(optr[port], optr[port + 1]):
        w.tail[ochan[j]] += m


@jitable
def commit(w, optr, ochan, port, kind, m):
    """Publish the ``m`` tokens of kind ``kind`` a burst wrote on ``port``."""
    for j in range(optr[port], optr[port + 1]):
        oc = ochan[j]
        w.tail[oc] += m
        w.count[oc, kind] += m


@jitable(inline=True)
def put_row(on, kr, dr, tr, tail, n, kind, data, a, mask):
    """Write token ``n`` of a burst (``kind``, integer payload ``data``, arriving in cycle
    ``a``) past ``tail`` into the rows of a port's first channel, when the port has one
    (``on``); ``n + 1``."""
    if on:
        p = (tail + n) & mask
        kr[p] = kind
        dr[p] = data
        tr[p] = a
    return n + 1


@jitable
def commit_stops(w, optr, ochan, port, m, nstop):
    """Publish the ``m`` tokens a burst wrote on ``port``, ``nstop`` of them stop tokens and
    the rest data (a burst that passes fiber ends through)."""
    for j in range(optr[port], optr[port + 1]):
        oc = ochan[j]
        w.tail[oc] += m
        w.count[oc, DATA] += m - nstop
        w.count[oc, STOP] += nstop


@jitable
def commit_kinds(w, optr, ochan, port, m, nstop, nempty):
    """Publish the ``m`` tokens a burst wrote on ``port``: ``nstop`` stop tokens, ``nempty``
    empty ones and the rest data."""
    for j in range(optr[port], optr[port + 1]):
        oc = ochan[j]
        w.tail[oc] += m
        w.count[oc, DATA] += m - nstop - nempty
        w.count[oc, STOP] += nstop
        w.count[oc, EMPTY] += nempty


@jitable
def account(st, t_first, t_last, idle, m):
    """Account ``m`` firings in cycles ``t_first .. t_last`` with ``idle`` cycles waiting for
    input between them (as :func:`sam.runtime.kernel.fire` does one at a time; no stall: the
    FIFOs are unbounded)."""
    if st[BUSY] == 0:
        st[FIRST_T] = t_first
    st[IDLE] += idle
    st[BUSY] += m
    st[T] = t_last + 1


@jitable
def close_run(w, st, optr, ochan, port, m, nstop, t_in, t_start, t):
    """End a burst of ``m`` firings, one a cycle from the clock ``t_start`` to ``t - 1``, that
    wrote ``m`` tokens (``nstop`` of them stops) on ``port``: copy and publish them
    (:func:`fan_out`, :func:`commit_stops`) and account the firings, the first in the cycle
    its input arrived ``t_in`` (not before ``t_start``), every cycle between not firing
    idle."""
    fan_out(w, optr, ochan, port, m)
    commit_stops(w, optr, ochan, port, m, nstop)
    t0 = t_in if t_in > t_start else t_start
    account(st, t0, t - 1, t - t_start - m, m)


@jitable(inline=True)
def first_channel(optr, ochan, port):
    """The first channel of output ``port`` (a burst writes its rows directly, then
    :func:`fan_out` copies them to the port's other channels), or -1 if it has none."""
    return ochan[optr[port]] if optr[port + 1] > optr[port] else -1


@jitable
def fan_out(w, optr, ochan, port, m):
    """Copy the ``m`` tokens a burst wrote past the tail of ``port``'s first channel to the
    port's other channels (before :func:`commit` publishes them)."""
    if optr[port + 1] - optr[port] < 2:
        return
    mask = ring_mask(w)
    first = ochan[optr[port]]
    src = w.tail[first]
    for j in range(optr[port] + 1, optr[port + 1]):
        oc = ochan[j]
        dst = w.tail[oc]
        for i in range(m):
            s = (src + i) & mask
            d = (dst + i) & mask
            w.kind[oc, d] = w.kind[first, s]
            w.data[oc, d] = w.data[first, s]
            w.time[oc, d] = w.time[first, s]
