"""The timeline of a tiled run on a memory hierarchy (SAM paper Sec. 6.4): when each tile load,
write-back and per-tile computation happens, given the loads each step needs.

One function, :func:`timeline`, over flat arrays so that numba can compile it (million-step
sweeps such as Figure 15); :mod:`sam.memory_model` builds the arrays from its ``Step`` s and
documents the rules. Plain Python gives the same numbers (``tests/test_memory_model.py``).

Arrays (``S`` steps, ``L`` levels, outermost first; ``R`` loads):

* ``compute[s]``: compute cycles of step ``s``;
* ``group[l, s]``: 1 when step ``s`` starts a new tile group at level ``l`` (the level's tiles
  differ from the previous step's);
* ``lptr[s * L + l] .. lptr[s * L + l + 1]``: the loads of step ``s`` at level ``l``, each with
  its operand ``lop[r]``, transfer cycles ``lx[r] = ceil(bytes / bandwidth)`` and bytes
  ``lbytes[r]``;
* ``outnew[l, s]``: 1 when step ``s`` accumulates into a new output tile at level ``l``;
  ``outx[l, s]``: write-back cycles of the previous output tile (0: nothing to write);
  ``finalx[l]``: write-back cycles of the last output tile;
* ``lat[l]``, ``cap[l]``: latency and capacity (bytes) of each level; ``buffers``: n-buffering
  (``1``: none; ``n >= 2``: ``n`` tile groups per level; ``0``: as many groups as fit the
  level's capacity).
"""

from __future__ import annotations

import numpy as np


def pipelined_finish(issue: float, latency: float, free: float, transfer: float) -> float:
    """When a request issued at ``issue`` on a channel free from ``free`` finishes: its latency
    hides behind the transfers before it, then it holds the channel for ``transfer``
    (``max(issue + latency, free) + transfer``; the "pipelined requests" rule of
    :mod:`sam.memory_model`, also the HBM channels of :mod:`sam.dae.memory`)."""
    return max(issue + latency, free) + transfer


def timeline(compute: np.ndarray, group: np.ndarray, lptr: np.ndarray, lop: np.ndarray,
             lx: np.ndarray, lbytes: np.ndarray, outnew: np.ndarray, outx: np.ndarray,
             finalx: np.ndarray, lat: np.ndarray, cap: np.ndarray, nops: int,
             buffers: int) -> int:
    """Total cycles of the run (see module docstring and :mod:`sam.memory_model`)."""
    nlev = lat.shape[0]
    nsteps = compute.shape[0]
    pipelined = buffers != 1
    nout = buffers if buffers >= 1 else 2
    chan = np.zeros(nlev, np.int64)  # when each level's channel is free
    ready = np.zeros((nlev, nops), np.int64)  # when each operand's resident tile is in
    rel = np.zeros((nlev, nsteps + 1), np.int64)  # release (compute end) of each group
    gbytes = np.zeros((nlev, nsteps + 1), np.int64)
    gidx = np.full(nlev, -1, np.int64)
    lowg = np.zeros(nlev, np.int64)  # capacity mode: oldest group still held
    held = np.zeros(nlev, np.int64)  # capacity mode: bytes of groups lowg..gidx
    wdone = np.zeros((nlev, nsteps + 1), np.int64)  # finish of each output tile's write
    oidx = np.full(nlev, -1, np.int64)
    end = 0  # compute end of the previous step
    for s in range(nsteps):
        for lv in range(nlev):
            if group[lv, s]:
                gidx[lv] += 1
                g = gidx[lv]
                nb = 0
                for r in range(lptr[s * nlev + lv], lptr[s * nlev + lv + 1]):
                    nb += lbytes[r]
                gbytes[lv, g] = nb
                gate = 0
                if buffers >= 1:
                    if g - buffers >= 0:
                        gate = rel[lv, g - buffers]
                else:
                    held[lv] += nb
                    while lowg[lv] < g and held[lv] > cap[lv]:
                        held[lv] -= gbytes[lv, lowg[lv]]
                        lowg[lv] += 1
                    if lowg[lv] >= 1:
                        gate = rel[lv, lowg[lv] - 1]
            else:
                gate = 0
            for r in range(lptr[s * nlev + lv], lptr[s * nlev + lv + 1]):
                op = lop[r]
                a = gate
                if lv > 0 and ready[lv - 1, op] > a:
                    a = ready[lv - 1, op]
                if pipelined:
                    f = pipelined_finish(a, lat[lv], chan[lv], lx[r])
                else:
                    f = max(a, chan[lv]) + lat[lv] + lx[r]
                chan[lv] = f
                ready[lv, op] = f
        start = end  # a step computes once every tile it uses is in (earlier tiles were)
        for lv in range(nlev):
            for op in range(nops):
                if ready[lv, op] > start:
                    start = ready[lv, op]
        for lv in range(nlev):
            if outnew[lv, s]:
                oidx[lv] += 1
                o = oidx[lv]
                if o >= 1:
                    f = max(end, chan[lv]) + outx[lv, s]
                    chan[lv] = f
                    wdone[lv, o - 1] = f
                if o - nout >= 0 and wdone[lv, o - nout] > start:
                    start = wdone[lv, o - nout]
        end = start + compute[s]
        for lv in range(nlev):
            if gidx[lv] >= 0:
                rel[lv, gidx[lv]] = end
    total = end
    for lv in range(nlev):
        if oidx[lv] >= 0:
            f = max(end, chan[lv]) + finalx[lv]
            if f > total:
                total = f
    return total


_JIT = None
_HELPERS_REGISTERED = False


def register_helpers() -> None:
    """Make :func:`pipelined_finish` callable from numba-compiled code (imports numba; once)."""
    global _HELPERS_REGISTERED
    if not _HELPERS_REGISTERED:
        from numba.extending import register_jitable

        register_jitable(pipelined_finish)
        _HELPERS_REGISTERED = True


def timeline_fast(*args: object) -> int:
    """:func:`timeline` compiled with numba (cached on disk)."""
    global _JIT
    if _JIT is None:
        import numba

        register_helpers()
        _JIT = numba.njit(cache=True, boundscheck=False)(timeline)
    return int(_JIT(*args))
