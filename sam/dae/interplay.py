"""The interplay of the TMUs and cores of the DAE machine over flat arrays: one function,
:func:`interplay`, that numba compiles unchanged (the ``fast`` engine) and plain Python runs
(``reference``), with identical numbers. :mod:`sam.dae.simulate` builds the arrays and
documents the rules; times are core cycles (float64).

Per core ``c`` (its loads ``lo[c]:lo[c+1]``, pushes ``po[c]:po[c+1]``, control tokens
``to[c]:to[c+1]`` and data entries ``do[c]:do[c+1]``, all global indices):

* loads: ``ld_line0/ld_line1`` (first and last line), ``ld_dep`` (load whose completion it
  waits for, ``-1``), ``ld_gate`` (push that must have happened: TMU storage, ``-1``),
  ``ld_next`` (the next load of its stream, ``-1``); streams ``so[c]:so[c+1]`` with their
  first loads ``st_first``;
* pushes: ``pu_queue`` (0 control, 1 data), ``pu_dep`` (load it carries), ``pu_after`` (last
  load issued at or before its step), ``pu_qpos`` (its place in its queue);
* control tokens: ``ctrl_push`` (its push), ``tok_ns``/``tok_nv`` (scalar and vector pops of
  its callback), ``tok_cost`` (dispatch excluded: the callback's compute);
* data entries: ``data_push``.

Outputs: ``load_issue``, ``load_done``, ``push_time``, ``ctrl_pop``, ``data_pop`` and
``stats[c, :]`` (:data:`STATS`). Returns ``0``, or ``-1`` if no core can progress.

Loads are processed in the order they issue: of every stream's next load (any core) whose
dependence has its data and whose storage gate is pushed, the one that issues first. So the
MSHR heap, the caches and the HBM channels see requests in time order.
"""

from __future__ import annotations

import numpy as np

from sam.dae.memory import line_request
from sam.runtime.jit import jitable

#: Columns of ``stats``.
STATS = ("finish", "access_finish", "busy", "stall_empty", "stall_full", "stall_mshr",
         "lines")
FINISH, ACCESS_FINISH, BUSY, STALL_EMPTY, STALL_FULL, STALL_MSHR, LINES = range(len(STATS))


@jitable
def _heap_push(heap: np.ndarray, c: int, size: int, value: float) -> None:
    """Push ``value`` on core ``c``'s min-heap of ``size`` entries (``heap[c, :size]``)."""
    k = size
    heap[c, k] = value
    while k > 0:
        parent = (k - 1) // 2
        if heap[c, parent] <= heap[c, k]:
            break
        heap[c, parent], heap[c, k] = heap[c, k], heap[c, parent]
        k = parent


@jitable
def _heap_replace_top(heap: np.ndarray, c: int, size: int, value: float) -> None:
    """Replace the smallest entry of core ``c``'s heap (``size`` entries) with ``value``."""
    heap[c, 0] = value
    k = 0
    while True:
        left = 2 * k + 1
        if left >= size:
            break
        small = left
        if left + 1 < size and heap[c, left + 1] < heap[c, left]:
            small = left + 1
        if heap[c, k] <= heap[c, small]:
            break
        heap[c, small], heap[c, k] = heap[c, k], heap[c, small]
        k = small


@jitable
def _advance_private(c: int, po: np.ndarray, to: np.ndarray, do: np.ndarray,
                     pu_queue: np.ndarray, pu_dep: np.ndarray, pu_after: np.ndarray,
                     pu_qpos: np.ndarray, ctrl_push: np.ndarray, tok_ns: np.ndarray,
                     tok_nv: np.ndarray, tok_cost: np.ndarray, data_push: np.ndarray,
                     tmu_cycle: float, push_gap: float, ctrl_cap: int, data_cap: int,
                     qlat: float,
                     dispatch: float, pop_s: float, pop_v: float, processed: np.ndarray,
                     pp: np.ndarray, pmax: np.ndarray, pi: np.ndarray, ti: np.ndarray,
                     di: np.ndarray, rem_s: np.ndarray, rem_v: np.ndarray, cur: np.ndarray,
                     clock: np.ndarray,
                     last_any: np.ndarray, last_q: np.ndarray, load_issue: np.ndarray,
                     load_done: np.ndarray, push_time: np.ndarray, ctrl_pop: np.ndarray,
                     data_pop: np.ndarray, stats: np.ndarray) -> None:
    """Make every push and core step of core ``c`` that the loads done so far allow."""
    progress = True
    while progress:
        progress = False
        # the TMU's pushes, in order
        while pi[c] < po[c + 1]:
            p = pi[c]
            dep = pu_dep[p]
            after = pu_after[p]
            if (dep >= 0 and not processed[dep]) or after >= pp[c]:
                break
            q = pu_queue[p]
            cap = ctrl_cap if q == 0 else data_cap
            gate = -1.0
            if cap > 0 and pu_qpos[p] >= cap:
                if q == 0:
                    e = to[c] + pu_qpos[p] - cap
                    if e >= ti[c]:
                        break
                    gate = ctrl_pop[e]
                else:
                    e = do[c] + pu_qpos[p] - cap
                    if e >= di[c]:
                        break
                    gate = data_pop[e]
            t = last_any[c]
            if p > po[c] and last_q[c, q] >= 0.0:
                t = max(t, last_q[c, q] + push_gap)
            if dep >= 0:
                t = max(t, load_done[dep] + tmu_cycle)
            if after >= 0:
                t = max(t, pmax[after])
            if gate > t:
                stats[c, STALL_FULL] += gate - t
                t = gate
            push_time[p] = t
            last_any[c] = t
            last_q[c, q] = t
            stats[c, ACCESS_FINISH] = t
            pi[c] += 1
            progress = True
        # the core: a control token, then its callback's pops, then its compute
        while True:
            if rem_s[c] + rem_v[c] > 0:
                d = di[c]
                if data_push[d] >= pi[c]:
                    break
                t = push_time[data_push[d]] + qlat
                if t > clock[c]:
                    stats[c, STALL_EMPTY] += t - clock[c]
                    clock[c] = t
                if rem_s[c] > 0:
                    cost = pop_s
                    rem_s[c] -= 1
                else:
                    cost = pop_v
                    rem_v[c] -= 1
                clock[c] += cost
                stats[c, BUSY] += cost
                data_pop[d] = clock[c]
                di[c] += 1
                if rem_s[c] + rem_v[c] == 0:
                    clock[c] += tok_cost[cur[c]]
                    stats[c, BUSY] += tok_cost[cur[c]]
                progress = True
            else:
                k = ti[c]
                if k >= to[c + 1] or ctrl_push[k] >= pi[c]:
                    break
                t = push_time[ctrl_push[k]] + qlat
                if t > clock[c]:
                    stats[c, STALL_EMPTY] += t - clock[c]
                    clock[c] = t
                clock[c] += dispatch
                stats[c, BUSY] += dispatch
                ctrl_pop[k] = clock[c]
                ti[c] += 1
                cur[c] = k
                rem_s[c] = tok_ns[k]
                rem_v[c] = tok_nv[k]
                if tok_ns[k] + tok_nv[k] == 0:
                    clock[c] += tok_cost[k]
                    stats[c, BUSY] += tok_cost[k]
                progress = True
        stats[c, FINISH] = clock[c]


def interplay(lo: np.ndarray, po: np.ndarray, to: np.ndarray, do: np.ndarray,
              ld_line0: np.ndarray, ld_line1: np.ndarray, ld_dep: np.ndarray,
              ld_gate: np.ndarray, ld_next: np.ndarray, so: np.ndarray,
              st_first: np.ndarray, pu_queue: np.ndarray, pu_dep: np.ndarray,
              pu_after: np.ndarray, pu_qpos: np.ndarray, ctrl_push: np.ndarray,
              tok_ns: np.ndarray, tok_nv: np.ndarray, tok_cost: np.ndarray,
              data_push: np.ndarray, tmu_cycle: float, push_gap: float,
              issue_gap: float, mshrs: int,
              ctrl_cap: int, data_cap: int, qlat: float, dispatch: float, pop_s: float,
              pop_v: float, use_l2: bool, use_llc: bool, l2_lat: float,
              l2_tags: np.ndarray, l2_ages: np.ndarray, l2_ready: np.ndarray,
              llc_lat: float, llc_tags: np.ndarray, llc_ages: np.ndarray,
              llc_ready: np.ndarray, noc_rt: np.ndarray, hbm_lat: float, line_time: float,
              chan_free: np.ndarray, served: np.ndarray, load_issue: np.ndarray,
              load_done: np.ndarray, push_time: np.ndarray, ctrl_pop: np.ndarray,
              data_pop: np.ndarray, stats: np.ndarray) -> int:
    """Time every core's trace (module docstring; the rules are in :mod:`sam.dae.simulate`)."""
    ncores = lo.shape[0] - 1
    nload = ld_line0.shape[0]
    processed = np.zeros(nload, np.bool_)
    pmax = np.zeros(nload, np.float64)  # latest issue of loads lo[c]..i (the TMU's progress)
    pp = lo[:-1].copy()  # first load (trace order) not yet processed
    head = st_first.copy()  # each stream's next load
    sslot = np.zeros(st_first.shape[0], np.float64)  # each stream's next issue slot
    pi = po[:-1].copy()
    ti = to[:-1].copy()
    di = do[:-1].copy()
    rem_s = np.zeros(ncores, np.int64)
    rem_v = np.zeros(ncores, np.int64)
    cur = np.zeros(ncores, np.int64)
    clock = np.zeros(ncores, np.float64)
    last_any = np.zeros(ncores, np.float64)
    last_q = np.full((ncores, 2), -1.0)
    heap = np.zeros((ncores, max(mshrs, 1)), np.float64)
    hsize = np.zeros(ncores, np.int64)
    for c in range(ncores):
        _advance_private(c, po, to, do, pu_queue, pu_dep, pu_after, pu_qpos, ctrl_push,
                         tok_ns, tok_nv, tok_cost, data_push, tmu_cycle, push_gap, ctrl_cap,
                         data_cap,
                         qlat, dispatch, pop_s, pop_v, processed, pp, pmax, pi, ti, di, rem_s,
                         rem_v, cur, clock, last_any, last_q, load_issue, load_done,
                         push_time, ctrl_pop, data_pop, stats)
    while True:
        # the load (any core, any stream) that issues first
        best = -1
        best_c = -1
        best_t = 0.0
        for c in range(ncores):
            for sidx in range(so[c], so[c + 1]):
                i = head[sidx]
                if i < 0:
                    continue
                dep = ld_dep[i]
                if dep >= 0 and not processed[dep]:
                    continue
                g = ld_gate[i]
                if g >= 0 and g >= pi[c]:
                    continue
                t = sslot[sidx]
                if dep >= 0:
                    t = max(t, load_done[dep])
                if g >= 0:
                    t = max(t, push_time[g])
                if hsize[c] == mshrs:
                    t = max(t, heap[c, 0])
                if best < 0 or t < best_t:
                    best = sidx
                    best_c = c
                    best_t = t
        if best < 0:
            break
        c = best_c
        i = head[best]
        t0 = sslot[best]
        if ld_dep[i] >= 0:
            t0 = max(t0, load_done[ld_dep[i]])
        if ld_gate[i] >= 0:
            t0 = max(t0, push_time[ld_gate[i]])
        done = t0
        for line in range(ld_line0[i], ld_line1[i] + 1):
            tl = max(t0, sslot[best])
            if hsize[c] == mshrs:
                if heap[c, 0] > tl:
                    stats[c, STALL_MSHR] += heap[c, 0] - tl
                    tl = heap[c, 0]
            if line == ld_line0[i]:
                load_issue[i] = tl
            f = line_request(line, tl, c, use_l2, use_llc, l2_lat, l2_tags, l2_ages, l2_ready,
                             llc_lat, llc_tags, llc_ages, llc_ready, noc_rt, hbm_lat,
                             line_time, chan_free, served)
            if hsize[c] == mshrs:
                _heap_replace_top(heap, c, hsize[c], f)
            else:
                _heap_push(heap, c, hsize[c], f)
                hsize[c] += 1
            sslot[best] = tl + issue_gap
            stats[c, LINES] += 1
            if f > done:
                done = f
        load_done[i] = done
        processed[i] = True
        head[best] = ld_next[i]
        while pp[c] < lo[c + 1] and processed[pp[c]]:
            k = pp[c]
            pmax[k] = load_issue[k] if k == lo[c] else max(pmax[k - 1], load_issue[k])
            pp[c] += 1
        _advance_private(c, po, to, do, pu_queue, pu_dep, pu_after, pu_qpos, ctrl_push,
                         tok_ns, tok_nv, tok_cost, data_push, tmu_cycle, push_gap, ctrl_cap,
                         data_cap,
                         qlat, dispatch, pop_s, pop_v, processed, pp, pmax, pi, ti, di, rem_s,
                         rem_v, cur, clock, last_any, last_q, load_issue, load_done,
                         push_time, ctrl_pop, data_pop, stats)
    for c in range(ncores):
        if pp[c] < lo[c + 1] or pi[c] < po[c + 1] or ti[c] < to[c + 1] or di[c] < do[c + 1]:
            return -1
    return 0


_JIT = None


def interplay_fast(*args: object) -> int:
    """:func:`interplay` compiled with numba (cached on disk, keyed on its own code and the
    helpers it calls, :mod:`sam.runtime.jitcache`)."""
    global _JIT
    if _JIT is None:
        from sam import memory_timeline
        from sam.runtime.jitcache import code_key, say_if_compiling
        from sam.runtime.kernel import compiled

        memory_timeline.register_helpers()
        key = code_key(interplay)
        say_if_compiling(interplay, key, "the DAE machine's timing model")
        _JIT = compiled(interplay, key)
    return int(_JIT(*args))
