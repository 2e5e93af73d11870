"""Channels between blocks, and the small operations block kernels use on them.

All channels of a simulation live in one :class:`Wires` record of 2-D arrays indexed
``[channel, slot]``: a ring buffer per channel holding each token's kind, payload and *arrival
time* (the first cycle its consumer may take it: the producer's firing cycle plus the producer's
latency). ``head``/``tail`` count tokens popped/pushed so far. The ring's capacity is a
simulator detail, not part of the timing model; a ring that fills up makes the producer pause
(the scheduler runs the consumer, or doubles the rings).

The *modeled* FIFO depth (``depth[c]``; 0 = unbounded, the paper's Sec. 6 assumption) is part
of the timing model: token k may be pushed only in a cycle after token k-depth was popped, so a
producer facing a full FIFO stalls (backpressure). Rings grow to the depth only when a stream
gets that long (a bound deeper than the stream is no bound).

Every function here is plain Python that numba can also compile inline
(:func:`~sam.runtime.jit.jitable`), so the one definition of each block (see
:mod:`sam.runtime.kernel`) serves both engines.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sam.runtime.jit import jitable
from sam.runtime.tokens import N_KINDS


class Wires(NamedTuple):
    """Ring buffers of all channels (see module docstring)."""

    kind: np.ndarray  # int8[C, cap]
    data: np.ndarray  # int64[C, cap]: coordinate, reference, stop level
    fdata: np.ndarray  # float64[C, cap]: a view of ``data`` for value tokens
    time: np.ndarray  # int64[C, cap]: arrival cycle
    head: np.ndarray  # int64[C]: tokens popped
    tail: np.ndarray  # int64[C]: tokens pushed
    depth: np.ndarray  # int64[C]: modeled FIFO depth, 0 = unbounded
    ptime: np.ndarray  # int64[C, cap]: cycle each token was popped (bounded FIFOs only)
    count: np.ndarray  # int64[C, N_KINDS]: tokens pushed, by kind
    #: int64[C]: no token not yet pushed can arrive before this cycle (read by the consumer of
    #: a feedback channel; the engine publishes it, see ``docs/timing-model.md``)
    horizon: np.ndarray


# Return codes of block kernels.
RC_DONE = 0  # the block has handled its done token
RC_IN = 1  # waits for a token on input channel st[WAIT]
RC_BUF = 2  # an output ring (simulator buffer) of port st[WAIT] is full
RC_FIFO = 3  # a modeled FIFO of output port st[WAIT] is full (backpressure)
RC_GROW = 4  # memory array st[WAIT] of the block must grow
RC_ERR = 5  # malformed input: st[ERR], st[ERR_KIND], st[ERR_DATA]

#: A horizon no cycle reaches: nothing more will be pushed on the channel.
NEVER = 1 << 62

# Common slots of a block's int64 state array.
T = 0  # next cycle in which the block may fire
STATUS = 1  # 1 once done
BUSY = 2  # cycles in which the block fired
IDLE = 3  # cycles spent waiting for input tokens
STALL = 4  # cycles spent waiting for room in an output FIFO
WAIT = 5  # what the block waits for (see return codes)
LAT = 6  # latency: a token emitted in cycle t arrives in cycle t + LAT
ERR = 7  # error code (block specific, > 0)
ERR_KIND = 8
ERR_DATA = 9
ERR_PORT = 10
DONE_T = 11  # cycle in which the block consumed its done token
FIRST_T = 12  # cycle of the block's first firing
WIDTH = 13  # stream width n: firings per cycle (0 or 1: one; docs/timing-model.md, rule 13)
LANES = 14  # firings so far in cycle LANE_T (wide blocks only)
LANE_T = 15  # the cycle of the wide block's last firing
PATHS_OFF = 16  # fast paths the simulation turned off (bits of sam.runtime.paths; 0: all on)
PATH_RUNS = 17  # times the block entered a fast path (a diagnostic: sam.runtime.paths.enter)
P = 18  # first block-specific slot (named per block family: sam.runtime.kernel.State)
STATE_SLOTS = 48
FSTATE_SLOTS = 8  # slots of a block's float64 state


@jitable
def ready(w, c):
    """True when input channel ``c`` holds a token."""
    return w.head[c] < w.tail[c]


@jitable
def _slot(w, c, n):
    return n & (w.kind.shape[1] - 1)


@jitable
def hkind(w, c):
    """Kind of the head token of channel ``c``."""
    return w.kind[c, _slot(w, c, w.head[c])]


@jitable
def hdata(w, c):
    """Integer payload of the head token of channel ``c``."""
    return w.data[c, _slot(w, c, w.head[c])]


@jitable
def hval(w, c):
    """Value payload of the head token of channel ``c``."""
    return w.fdata[c, _slot(w, c, w.head[c])]


@jitable
def htime(w, c):
    """Arrival cycle of the head token of channel ``c``."""
    return w.time[c, _slot(w, c, w.head[c])]


@jitable
def pop(w, c, t):
    """Consume the head token of channel ``c`` in cycle ``t``."""
    h = w.head[c]
    if w.depth[c] > 0:
        w.ptime[c, _slot(w, c, h)] = t
    w.head[c] = h + 1


@jitable
def room(w, optr, ochan, port):
    """Earliest cycle in which output ``port`` can take a token.

    Returns -1 when a simulator ring is full (run the consumer first), -2 when a modeled FIFO
    is full and its consumer has not yet popped the token that frees the slot.
    """
    t = 0
    cap = w.kind.shape[1]
    for j in range(optr[port], optr[port + 1]):
        c = ochan[j]
        if w.tail[c] - w.head[c] >= cap:
            return -1
        d = w.depth[c]
        if d > 0 and w.tail[c] >= d:
            if d > cap:
                return -1  # the ring must hold the last d tokens' pop cycles: grow it first
            k = w.tail[c] - d
            if w.head[c] <= k:
                return -2
            free = w.ptime[c, _slot(w, c, k)] + 1
            if free > t:
                t = free
    return t


@jitable
def _append(w, c, kind, t):
    """Append a token of ``kind`` arriving in cycle t to channel ``c``; its slot (for the
    payload)."""
    s = _slot(w, c, w.tail[c])
    w.kind[c, s] = kind
    w.time[c, s] = t
    w.tail[c] += 1
    w.count[c, kind] += 1
    return s


@jitable
def push(w, optr, ochan, port, kind, data, t):
    """Emit a token with integer payload on ``port`` (all its channels), arriving in cycle t."""
    for j in range(optr[port], optr[port + 1]):
        c = ochan[j]
        w.data[c, _append(w, c, kind, t)] = data


@jitable
def pushv(w, optr, ochan, port, kind, value, t):
    """Emit a token with a value payload on ``port``, arriving in cycle t."""
    for j in range(optr[port], optr[port + 1]):
        c = ochan[j]
        w.fdata[c, _append(w, c, kind, t)] = value


@jitable
def publish(w, st, ochan, done, rc, isfb):
    """Publish the horizon of a block's output channels (``Simulation._publish``'s rule): its
    next firing is no earlier than its clock, nor than the arrival of the token it waits for on
    an ordinary input; never once done. True when a horizon moved."""
    if done:
        h = NEVER
    else:
        lb = st[T]
        if rc == RC_IN:
            x = st[WAIT]
            if 0 <= x < isfb.shape[0] and isfb[x] == 0:
                head = w.head[x]
                if head < w.tail[x]:
                    arrival = w.time[x, head & (w.time.shape[1] - 1)]
                else:
                    arrival = w.horizon[x]
                if arrival > lb:
                    lb = arrival
        h = lb + st[LAT]
        if h > NEVER:
            h = NEVER
    moved = False
    for c in ochan:
        if w.horizon[c] < h:
            w.horizon[c] = h
            moved = True
    return moved


#: Bytes all rings may take at the start: a graph of many channels (lanes) starts with shorter
#: rings, which double when a stream needs more (:func:`grow`)
START_BUDGET = 64 * 2**20


def _slot_bytes(bounded: bool) -> int:
    """Bytes of one ring slot: kind, payload, arrival (and pop cycle when bounded)."""
    return 1 + 8 + 8 + (8 if bounded else 0)


def _check_fits(n_channels: int, cap: int, bounded: bool) -> None:
    """Refuse rings that cannot fit in memory, in one line, before allocating them."""
    from formats.memory import too_large
    from sam.errors import SimulationError

    problem = too_large(n_channels * cap * _slot_bytes(bounded))
    if problem:
        raise SimulationError(f"the graph's {n_channels:,} streams with rings of {cap:,} tokens "
                              f"{problem} (a stream holding that many tokens unconsumed, or a "
                              "graph of very many blocks: fewer lanes, smaller inputs or a "
                              "--fifo-depth bound)")


def allocate(n_channels: int, capacity: int, depths: np.ndarray | None = None) -> Wires:
    """Fresh, empty rings; ``capacity`` is rounded up to a power of two, and lowered (to 16
    at least) so that all rings start within :data:`START_BUDGET`."""
    depth = np.zeros(n_channels, np.int64) if depths is None else np.asarray(depths, np.int64)
    bounded = bool(depth.size and depth.max() > 0)
    cap = 1 << max(4, int(capacity - 1).bit_length())
    while cap > 16 and n_channels * cap * _slot_bytes(bounded) > START_BUDGET:
        cap //= 2
    _check_fits(n_channels, cap, bounded)
    data = np.zeros((n_channels, cap), np.int64)
    # zeros (kind 0 is DATA) rather than uninitialised memory: a fresh ring is then the same in
    # every run (tests compare whole rings), and zeroed lazily by the system when it is new
    return Wires(
        kind=np.zeros((n_channels, cap), np.int8),
        data=data,
        fdata=data.view(np.float64),
        time=np.zeros((n_channels, cap), np.int64),
        head=np.zeros(n_channels, np.int64),
        tail=np.zeros(n_channels, np.int64),
        depth=depth,
        ptime=np.zeros((n_channels, cap if bounded else 1), np.int64),
        count=np.zeros((n_channels, N_KINDS), np.int64),
        horizon=np.full(n_channels, NEVER, np.int64),
    )


def grow(w: Wires) -> Wires:
    """The same channels with rings of twice the capacity (tokens kept in order).

    Token n sits in slot ``n mod cap`` of a ring of capacity cap, so in the doubled ring it
    belongs in slot ``n mod 2cap``, which is ``n mod cap`` in one of the two halves: each ring
    is copied into both halves, which puts every token of the last ``cap`` (the live ones, and
    the popped ones whose pop cycles a bounded FIFO may still need) in its new slot. The other
    copies sit in slots no token occupies."""
    _check_fits(w.data.shape[0], 2 * w.data.shape[1], w.ptime.shape[1] > 1)
    data = np.tile(w.data, (1, 2))
    return Wires(
        kind=np.tile(w.kind, (1, 2)),
        data=data,
        fdata=data.view(np.float64),
        time=np.tile(w.time, (1, 2)),
        head=w.head.copy(),
        tail=w.tail.copy(),
        depth=w.depth.copy(),
        ptime=np.tile(w.ptime, (1, 2)) if w.ptime.shape[1] > 1 else w.ptime.copy(),
        count=w.count.copy(),
        horizon=w.horizon.copy(),
    )


def drain(w: Wires, c: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Remove and return every token waiting in channel ``c``: (kinds, payloads, arrivals)."""
    cap = w.kind.shape[1]
    idx = np.arange(int(w.head[c]), int(w.tail[c])) & (cap - 1)
    w.head[c] = w.tail[c]
    return w.kind[c, idx].copy(), w.data[c, idx].copy(), w.time[c, idx].copy()
