"""Time :class:`~sam.dae.trace.AccessTrace` s on a :class:`~sam.dae.machine.DaeMachine`: trace
``k`` is core ``k``'s TMU run; the cores share the LLC and the HBM (Ember paper Sec. 3.1, 8).

The rules (times in core cycles; a TMU cycle is ``core_ghz / tmu_ghz`` of them):

* **Loads** issue in trace order, each line of ``[first, first + count)`` on its own issue
  slot (``1 / loads_per_cycle`` TMU cycles apart). Load ``i``'s first line issues at the
  latest of: its slot; the completion of ``load_dep[i]`` (the dependent chain index -> row
  -> data); a free MSHR (every line request holds one of ``mshrs`` from issue to data,
  cache hits included, for their hit latency); and the TMU storage: the loads not yet pushed
  must fit ``storage_bytes``, so load ``i`` waits for push ``load_push[j]`` of the latest
  load ``j`` whose bytes with those of ``j+1..i`` exceed it. A gate that could only open
  after load ``i`` itself (one push's loads larger than the storage) is dropped and counted
  (``storage_overflows``). A load completes when its last line has its data
  (:mod:`sam.dae.memory`: L2, LLC over the NoC, HBM channels).
* **Pushes** happen in trace order, at the latest of: the previous push (any queue); the
  previous push to the same queue + ``1 / pushes_per_cycle`` TMU cycles (one push per queue
  per TMU cycle); the
  completion of ``push_dep`` + 1 TMU cycle; the issue of the last load whose ``load_push``
  is at or before it (the TMU pushes a step's entries after issuing its loads); and, with a
  bounded queue of ``n`` entries, the core's pop of the entry ``n`` places earlier in that
  queue (the TMU stalls on a full queue: ``stall_full``).
* **The core** takes the control tokens in order: at the latest of its clock and the token's
  push + the queue latency it pays ``dispatch``; then each data entry its section pops
  (``SectionCost.pops``, scalar pops first, in data-queue order) at the latest of its clock
  and the entry's push + latency, paying ``pop_scalar``/``pop_vector``; then the section's
  compute (ALU ops, read-modify-writes, stores, workspace loads and stores). Waiting is
  ``stall_empty``; paying is ``busy``.
* **Several cores**: each core's arrays sit in their own address range (cores never share a
  line); the simulation always issues next the load, of any core, that issues first, so the
  shared LLC and HBM channels see requests in time order.
* **Deadlock rule** (Ember Sec. 7.2-7.3): with bounded queues :func:`check_queues` first
  refuses a trace whose queues cannot hold what a callback needs before the core can take it.

The result's ``cycles`` is the last core's finish (rounded up). ``engine="fast"`` runs the
numba-compiled :func:`sam.dae.interplay.interplay`, ``"reference"`` the same function in plain
Python; the numbers are identical.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from sam.dae.cache import new_cache
from sam.dae.interplay import (
    ACCESS_FINISH,
    BUSY,
    FINISH,
    LINES,
    STALL_EMPTY,
    STALL_FULL,
    STALL_MSHR,
    STATS,
    interplay,
    interplay_fast,
)
from sam.dae.machine import DaeMachine
from sam.dae.memory import HBM, L2_HIT, LLC_HIT, noc_round_trips
from sam.dae.trace import CTRL, DATA, AccessTrace
from sam.errors import SimulationError

#: Core ``k``'s arrays start ``k * CORE_SPACING + k * CORE_SKEW`` bytes above the trace's
#: addresses: disjoint ranges, skewed by a page so equal layouts do not fall in the same sets.
CORE_SPACING = 1 << 40
CORE_SKEW = 4096

ENGINES = ("fast", "reference")


@dataclass
class CoreStats:
    """One core's run (times in core cycles)."""

    finish: float
    access_finish: float
    busy: float
    stall_empty: float
    stall_full: float
    stall_mshr: float
    loads: int
    lines: int
    l2_hits: int
    llc_hits: int
    hbm_lines: int
    hbm_bytes: int
    tokens: int
    data_entries: int
    max_control_occupancy: int
    max_data_occupancy: int
    storage_overflows: int


@dataclass
class DaeResult:
    """A run of :func:`simulate`: ``cycles`` (core cycles, the last core's finish) and per
    core statistics."""

    cycles: int
    cores: list[CoreStats]
    machine: str
    engine: str
    #: with ``simulate(..., keep_times=True)``: ``load_issue``, ``load_done``, ``push_time``,
    #: ``ctrl_pop``, ``data_pop`` per core (core cycles)
    times: list[dict[str, np.ndarray]] | None = None

    def to_dict(self) -> dict:
        return {"cycles": self.cycles, "machine": self.machine, "engine": self.engine,
                "cores": [asdict(c) for c in self.cores]}


# ----------------------------------------------------------------------------- checks
def _pops(trace: AccessTrace) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Control pushes, data pushes and the data pops of each control token (checked)."""
    q = np.asarray(trace.push_queue)
    ctrl = np.flatnonzero(q == CTRL)
    data = np.flatnonzero(q == DATA)
    if len(ctrl) + len(data) != len(q):
        raise SimulationError(f"access trace: push_queue holds values other than {CTRL} "
                              f"(control) and {DATA} (data)")
    sec = np.asarray(trace.push_section)[ctrl].astype(np.int64)
    if len(sec) and (sec.max() >= len(trace.sections) or sec.min() < -1):
        raise SimulationError(f"access trace: a control token names section "
                              f"{int(sec.max())}, but there are {len(trace.sections)}")
    per = np.array([s.pops for s in trace.sections] + [0], np.int64)
    npop = per[sec]  # section -1 (done) -> the appended 0
    if int(npop.sum()) != len(data):
        raise SimulationError(f"access trace: the callbacks pop {int(npop.sum())} data "
                              f"entries but the TMU pushes {len(data)}")
    return ctrl, data, npop


def queue_needs(trace: AccessTrace) -> dict[int, tuple[int, int]]:
    """Per queue (:data:`CTRL`, :data:`DATA`): the fewest entries that run ``trace`` without
    deadlock, and the control token at which the core would wait with fewer.

    The core pops in the order token, its data entries, next token...; push ``p`` (entry ``k``
    of its queue) needs the pop of entry ``k - n``. With the core stopped at the first pop
    that needs push ``p`` or a later one, having popped ``m`` entries of that queue, the
    queue needs ``k - m + 1`` entries."""
    ctrl, data, npop = _pops(trace)
    ntok, ndata = len(ctrl), len(data)
    if ntok == 0:
        return {CTRL: (1, -1), DATA: (1, -1)}
    before = np.concatenate([[0], np.cumsum(npop)[:-1]])
    tok_of_data = np.repeat(np.arange(ntok), npop)
    pos_ctrl = np.arange(ntok) + before
    pos_data = tok_of_data + 1 + np.arange(ndata)
    order = np.empty(ntok + ndata, np.int64)
    order[pos_ctrl] = ctrl
    order[pos_data] = data
    tok_at = np.empty(ntok + ndata, np.int64)
    tok_at[pos_ctrl] = np.arange(ntok)
    tok_at[pos_data] = tok_of_data
    reach = np.maximum.accumulate(order)  # pushes the core needs to get past each pop
    out = {}
    for queue, pushes, pos in ((CTRL, ctrl, pos_ctrl), (DATA, data, pos_data)):
        if len(pushes) == 0:
            out[queue] = (1, -1)
            continue
        mine = np.zeros(ntok + ndata + 1, np.int64)
        mine[pos + 1] = 1
        popped_before = np.cumsum(mine)  # [s]: pops of this queue before position s
        stop = np.searchsorted(reach, pushes, side="left")
        need = np.arange(len(pushes)) - popped_before[stop] + 1
        worst = int(np.argmax(need))
        out[queue] = (max(int(need[worst]), 1), int(tok_at[stop[worst]]))
    return out


def check_queues(trace: AccessTrace, machine: DaeMachine) -> None:
    """Refuse (one line) a trace that deadlocks on ``machine``'s bounded queues: a callback
    that needs more entries pushed before it than its queue holds (Ember Sec. 7.2-7.3: a
    bufferized callback pops a whole embedding pushed before its control token)."""
    needs = queue_needs(trace)
    sec = np.asarray(trace.push_section)[np.asarray(trace.push_queue) == CTRL]
    for queue, cap, field in ((DATA, machine.queues.data_entries, "data_entries"),
                              (CTRL, machine.queues.control_entries, "control_entries")):
        need, tok = needs[queue]
        if cap is None or cap >= need:
            continue
        s = int(sec[tok])
        name = trace.sections[s].name if s >= 0 else "done"
        what = "data" if queue == DATA else "control"
        raise SimulationError(
            f"{machine.name}: the {what} queue ({cap} entries) deadlocks: section {name!r} "
            f"(control token {tok}) needs {need} {what} entries pushed before the core can "
            f"take them (a callback popping a whole embedding pushed before its token, Ember "
            f"Sec. 7.2-7.3, needs a queue that holds it); give the {what} queue {need} "
            f"entries or more (queues.{field})")


# ----------------------------------------------------------------------------- arrays
def _core_arrays(trace: AccessTrace, machine: DaeMachine, core: int) -> dict:
    """One trace's arrays, with its own (not yet global) indices."""
    nl, npush = trace.loads, trace.pushes
    arr = np.asarray(trace.load_array, np.int64)
    if nl and (arr.min() < 0 or arr.max() >= len(trace.arrays)):
        raise SimulationError(f"access trace: a load names array {int(arr.max())}, but there "
                              f"are {len(trace.arrays)}")
    eb = np.array([a.element_bytes for a in trace.arrays] + [1], np.int64)[arr]
    base = np.array([a.base for a in trace.arrays] + [0], np.int64)[arr]
    first = np.asarray(trace.load_first, np.int64)
    count = np.asarray(trace.load_count, np.int64)
    if nl and count.min() < 1:
        raise SimulationError("access trace: a load of fewer than 1 element")
    start = base + first * eb + core * (CORE_SPACING + CORE_SKEW)
    line0 = start // machine.line_bytes
    line1 = (start + count * eb - 1) // machine.line_bytes
    dep = np.asarray(trace.load_dep, np.int64)
    if nl and (dep >= np.arange(nl)).any():
        raise SimulationError("access trace: a load depends on itself or a later load")
    lpush = np.asarray(trace.load_push, np.int64)
    if nl and (lpush >= npush).any():
        raise SimulationError("access trace: load_push names a push past the last one")
    pdep = np.asarray(trace.push_dep, np.int64)
    if npush and (pdep >= nl).any():
        raise SimulationError("access trace: push_dep names a load past the last one")
    # pushes: the last load released at or before each (the TMU pushes after its step's loads)
    marks = np.full(npush, -1, np.int64)
    valid = lpush >= 0
    np.maximum.at(marks, lpush[valid], np.flatnonzero(valid))
    after = np.maximum.accumulate(marks) if npush else marks
    # storage: load i waits for the push of the latest j with bytes(j..i) > storage
    nbytes = np.concatenate([[0], np.cumsum(count * eb)])
    j = np.searchsorted(nbytes, nbytes[1:] - machine.tmu.storage_bytes, side="left") - 1
    gate = np.where((j >= 0) & (j < np.arange(nl)), lpush[np.clip(j, 0, None)] if nl else j, -1)
    # a gate that needs load i itself (a push at or after the first one waiting for it) is
    # dropped: one push's loads do not fit the storage
    blocked = np.maximum(np.maximum.accumulate(pdep), after) if npush else pdep
    first_needing = np.searchsorted(blocked, np.arange(nl), side="left")
    overflow = (gate >= 0) & (gate >= first_needing)
    overflow |= (j >= np.arange(nl)) & (nl > 0)
    gate = np.where(gate >= first_needing, -1, gate)
    # streams: a TMU stream issues its loads in order, independently of the others; one
    # stream per array
    nxt = np.full(nl, -1, np.int64)
    heads = []
    for a in range(len(trace.arrays)):
        mine = np.flatnonzero(arr == a)
        if len(mine):
            nxt[mine[:-1]] = mine[1:]
            heads.append(int(mine[0]))
    ctrl, data, npop = _pops(trace)
    q = np.asarray(trace.push_queue, np.int64)
    qpos = np.zeros(npush, np.int64)
    qpos[ctrl] = np.arange(len(ctrl))
    qpos[data] = np.arange(len(data))
    c = machine.core
    costs = [s.alu_scalar * c.alu_scalar + s.alu_vector * c.alu_vector
             + s.rmw_scalar * c.rmw_scalar + s.rmw_vector * c.rmw_vector
             + s.stores_scalar * c.store_scalar + s.stores_vector * c.store_vector
             + s.workspace_loads * c.workspace_load + s.workspace_stores * c.workspace_store
             for s in trace.sections]
    sec = np.asarray(trace.push_section, np.int64)[ctrl]
    ns = np.array([s.pops_scalar for s in trace.sections] + [0], np.int64)[sec]
    nv = np.array([s.pops_vector for s in trace.sections] + [0], np.int64)[sec]
    cost = np.array(costs + [0.0], np.float64)[sec]
    return {"ld_line0": line0, "ld_line1": line1, "ld_dep": dep, "ld_gate": gate,
            "ld_next": nxt, "st_first": np.array(heads, np.int64),
            "pu_queue": q, "pu_dep": pdep, "pu_after": after, "pu_qpos": qpos,
            "ctrl_push": ctrl.astype(np.int64), "tok_ns": ns, "tok_nv": nv, "tok_cost": cost,
            "data_push": data.astype(np.int64), "overflows": int(overflow.sum())}


def _concat(parts: list[dict], key: str, shift: str | None, offsets: dict[str, list[int]],
            dtype: type) -> np.ndarray:
    """Concatenate ``key`` over the cores, shifting non-negative indices by each core's
    offset of ``shift`` (``loads``/``pushes``)."""
    total = sum(len(p[key]) for p in parts)
    out = np.empty(total, dtype)
    start = 0
    for k, p in enumerate(parts):
        seg = out[start:start + len(p[key])]
        seg[:] = p[key]
        if shift is not None and offsets[shift][k]:
            np.add(seg, offsets[shift][k], out=seg, where=seg >= 0)
        start += len(seg)
    return out


def _max_occupancy(push_t: np.ndarray, pop_t: np.ndarray) -> int:
    """Most entries waiting in a queue: after push ``k``, ``k + 1`` minus the pops done by
    then."""
    if len(push_t) == 0:
        return 0
    k = np.arange(len(push_t))
    popped = np.minimum(np.searchsorted(pop_t, push_t, side="right"), k)
    return int((k + 1 - popped).max())


def simulate(traces: list[AccessTrace], machine: DaeMachine, engine: str = "fast", *,
             keep_times: bool = False) -> DaeResult:
    """Time ``traces`` (trace ``k`` on core ``k``) on ``machine`` (module docstring);
    ``keep_times`` keeps every load's, push's and pop's time in ``DaeResult.times``."""
    if engine not in ENGINES:
        raise SimulationError(f"engine {engine!r}: give fast or reference")
    if len(traces) > machine.cores:
        raise SimulationError(f"{machine.name}: {len(traces)} traces but {machine.cores} "
                              "cores; give at most one trace per core")
    if machine.bounded:
        for tr in traces:
            check_queues(tr, machine)
    ncores = len(traces)
    parts = [_core_arrays(tr, machine, k) for k, tr in enumerate(traces)]
    offsets = {"loads": [0], "pushes": [0], "tokens": [0], "data": [0]}
    for tr, p in zip(traces, parts, strict=True):
        offsets["loads"].append(offsets["loads"][-1] + tr.loads)
        offsets["pushes"].append(offsets["pushes"][-1] + tr.pushes)
        offsets["tokens"].append(offsets["tokens"][-1] + len(p["ctrl_push"]))
        offsets["data"].append(offsets["data"][-1] + len(p["data_push"]))
    i64, f64 = np.int64, np.float64
    ld_line0 = _concat(parts, "ld_line0", None, offsets, i64)
    ld_line1 = _concat(parts, "ld_line1", None, offsets, i64)
    ld_dep = _concat(parts, "ld_dep", "loads", offsets, i64)
    ld_gate = _concat(parts, "ld_gate", "pushes", offsets, i64)
    ld_next = _concat(parts, "ld_next", "loads", offsets, i64)
    st_first = _concat(parts, "st_first", "loads", offsets, i64)
    so = np.concatenate([[0], np.cumsum([len(p["st_first"]) for p in parts])]).astype(i64)
    pu_queue = _concat(parts, "pu_queue", None, offsets, i64)
    pu_dep = _concat(parts, "pu_dep", "loads", offsets, i64)
    pu_after = _concat(parts, "pu_after", "loads", offsets, i64)
    pu_qpos = _concat(parts, "pu_qpos", None, offsets, i64)
    ctrl_push = _concat(parts, "ctrl_push", "pushes", offsets, i64)
    tok_ns = _concat(parts, "tok_ns", None, offsets, i64)
    tok_nv = _concat(parts, "tok_nv", None, offsets, i64)
    tok_cost = _concat(parts, "tok_cost", None, offsets, f64)
    data_push = _concat(parts, "data_push", "pushes", offsets, i64)
    m = machine
    core_ghz = m.clocks.core_ghz
    tmu_cycle = core_ghz / m.clocks.tmu_ghz
    use_l2 = m.l2 is not None and m.tmu.reads_from == "L2"
    use_llc = m.llc is not None
    if use_l2:
        assert m.l2 is not None
        sets = m.l2.size_bytes * m.l2.slices // (m.l2.ways * m.line_bytes)
        one = new_cache(sets, m.l2.ways)
        l2_tags = np.repeat(one[0][None], ncores, axis=0)
        l2_ages = np.repeat(one[1][None], ncores, axis=0)
        l2_lat = m.l2.latency_cycles
    else:
        l2_tags = np.zeros((ncores, 1, 1), i64)
        l2_ages = np.zeros((ncores, 1, 1), i64)
        l2_lat = 0.0
    l2_ready = np.zeros(l2_tags.shape, f64)
    if use_llc:
        assert m.llc is not None
        sets = m.llc.size_bytes * m.llc.slices // (m.llc.ways * m.line_bytes)
        llc_tags, llc_ages = new_cache(sets, m.llc.ways)
        llc_lat = m.llc.latency_cycles
        noc_rt = noc_round_trips(max(ncores, 1), m.llc.slices, m.noc.mesh_x, m.noc.mesh_y,
                                 m.noc.router_cycles, m.noc.link_cycles)
    else:
        llc_tags, llc_ages = np.zeros((1, 1), i64), np.zeros((1, 1), i64)
        llc_lat = 0.0
        noc_rt = np.zeros((max(ncores, 1), 1), f64)
    llc_ready = np.zeros(llc_tags.shape, f64)
    chan_free = np.zeros(m.hbm.channels, f64)
    served = np.zeros((max(ncores, 1), 3), i64)
    nload, npush = len(ld_line0), len(pu_queue)
    load_issue, load_done = np.zeros(nload, f64), np.zeros(nload, f64)
    push_time = np.zeros(npush, f64)
    ctrl_pop, data_pop = np.zeros(len(ctrl_push), f64), np.zeros(len(data_push), f64)
    stats = np.zeros((max(ncores, 1), len(STATS)), f64)
    args = (np.array(offsets["loads"], i64), np.array(offsets["pushes"], i64),
            np.array(offsets["tokens"], i64), np.array(offsets["data"], i64),
            ld_line0, ld_line1, ld_dep, ld_gate, ld_next, so, st_first, pu_queue, pu_dep,
            pu_after, pu_qpos,
            ctrl_push, tok_ns, tok_nv, tok_cost, data_push, float(tmu_cycle),
            float(tmu_cycle / m.tmu.pushes_per_cycle),
            float(tmu_cycle / m.tmu.loads_per_cycle), int(m.tmu.mshrs),
            int(m.queues.control_entries or 0), int(m.queues.data_entries or 0),
            float(m.queues.latency_cycles), float(m.core.dispatch),
            float(m.core.pop_scalar), float(m.core.pop_vector), use_l2, use_llc,
            float(l2_lat), l2_tags, l2_ages, l2_ready, float(llc_lat), llc_tags, llc_ages,
            llc_ready, noc_rt, float(m.hbm.latency_ns * core_ghz),
            float(m.line_bytes * m.hbm.channels * core_ghz / m.hbm.bandwidth_gbps),
            chan_free, served, load_issue, load_done, push_time, ctrl_pop, data_pop, stats)
    status = (interplay_fast if engine == "fast" else interplay)(*args)
    if status != 0:
        raise SimulationError(f"{machine.name}: the TMU and the core wait for each other "
                              "(an access trace whose pushes and loads depend in a cycle)")
    cores = []
    for k, (tr, p) in enumerate(zip(traces, parts, strict=True)):
        t0, t1 = offsets["tokens"][k], offsets["tokens"][k + 1]
        d0, d1 = offsets["data"][k], offsets["data"][k + 1]
        ctrl_t = push_time[ctrl_push[t0:t1]]
        data_t = push_time[data_push[d0:d1]]
        st = stats[k]
        cores.append(CoreStats(
            finish=float(st[FINISH]), access_finish=float(st[ACCESS_FINISH]),
            busy=float(st[BUSY]), stall_empty=float(st[STALL_EMPTY]),
            stall_full=float(st[STALL_FULL]), stall_mshr=float(st[STALL_MSHR]),
            loads=tr.loads, lines=int(st[LINES]), l2_hits=int(served[k, L2_HIT]),
            llc_hits=int(served[k, LLC_HIT]), hbm_lines=int(served[k, HBM]),
            hbm_bytes=int(served[k, HBM]) * m.line_bytes, tokens=t1 - t0,
            data_entries=d1 - d0,
            max_control_occupancy=_max_occupancy(ctrl_t, ctrl_pop[t0:t1]),
            max_data_occupancy=_max_occupancy(data_t, data_pop[d0:d1]),
            storage_overflows=p["overflows"]))
    finish = max((c.finish for c in cores), default=0.0)
    times = None
    if keep_times:
        o = offsets
        times = [{"load_issue": load_issue[o["loads"][k]:o["loads"][k + 1]],
                  "load_done": load_done[o["loads"][k]:o["loads"][k + 1]],
                  "push_time": push_time[o["pushes"][k]:o["pushes"][k + 1]],
                  "ctrl_pop": ctrl_pop[o["tokens"][k]:o["tokens"][k + 1]],
                  "data_pop": data_pop[o["data"][k]:o["data"][k + 1]]}
                 for k in range(ncores)]
    return DaeResult(int(math.ceil(finish)), cores, machine.name, engine, times)

