"""The DAE machine timing model (sam/dae/simulate.py; Ember paper Sec. 3.1, Figure 5): values
computed by hand on a machine whose numbers are exact in binary (core 2 GHz, TMU 1 GHz: a TMU
cycle is 2 core cycles; HBM 50 ns = 100 core cycles; one channel of 128 GB/s: a 64 B line
takes 1 core cycle), the deadlock rule, several cores, both engines equal, the YAML."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sam.dae.machine import ABLATION, Cache, DaeMachine, load_machine, machine_from, paper_machine
from sam.dae.simulate import check_queues, queue_needs, simulate
from sam.dae.trace import CTRL, DATA, AccessTrace, ArrayInfo, SectionCost
from sam.errors import SimulationError

LAT, XFER, TMU, QLAT = 100.0, 1.0, 2.0, 8.0

EXACT = {"name": "exact", "cores": 8, "clocks": {"core_ghz": 2.0, "tmu_ghz": 1.0},
         "tmu": {"mshrs": 256, "storage_bytes": 8192, "loads_per_cycle": 1},
         "queues": {"control_entries": None, "data_entries": None, "latency_cycles": QLAT},
         "core": {"dispatch": 0, "pop_scalar": 0, "pop_vector": 0},
         "l2": None, "llc": None,
         "hbm": {"bandwidth_gbps": 128, "latency_ns": 50, "channels": 1}}


def exact(**changes) -> DaeMachine:
    return machine_from(EXACT, "exact").replace(**changes)


def items(lines: list[int], deps: list[int] | None = None, *, data_first: bool = False,
          group: int = 1, section: SectionCost | None = None, count: int = 1,
          streams: list[int] | None = None) -> AccessTrace:
    """One load of ``count`` 4-byte elements per item (from line ``lines[k]``), its data entry
    and, every ``group`` items, a control token whose callback pops the group's entries: token
    first (O0-like) or the group's data first (bufferized, Ember Sec. 7.2); then ``done``.
    ``streams[k]``: load ``k``'s array (0 or 1; default 0)."""
    n = len(lines)
    deps = [-1] * n if deps is None else deps
    sec = section or SectionCost("s", pops_scalar=group)
    tail = SectionCost("tail", pops_scalar=n % group)
    pq, pd, ps, load_push = [], [], [], []
    for g0 in range(0, n, group):
        members = range(g0, min(g0 + group, n))
        which = 0 if len(members) == group else 1
        if not data_first:
            pq.append(CTRL), pd.append(-1), ps.append(which)
        for k in members:
            load_push.append(len(pq))
            pq.append(DATA), pd.append(k), ps.append(-1)
        if data_first:
            pq.append(CTRL), pd.append(-1), ps.append(which)
    pq.append(CTRL), pd.append(-1), ps.append(-1)
    size = 16 * (max(lines) + 1) + count
    return AccessTrace(
        [ArrayInfo("T.vals", 4, size, 0), ArrayInfo("T.1.crd", 4, size, 64 * size)],
        np.array(streams or [0] * n, np.int16), np.array(lines, np.int64) * 16,
        np.full(n, count, np.int32),
        np.arange(n, dtype=np.int64), np.array(deps, np.int32), np.array(load_push, np.int32),
        np.array(pq, np.int8), np.full(len(pq), 4, np.int32), np.array(pd, np.int32),
        np.array(ps, np.int16), [sec, tail], vlen=1)


# ----------------------------------------------------------------------------- access side
def test_one_dependent_chain_adds_the_latencies_exactly():
    n = 6
    r = simulate([items(list(range(n)), [-1, *range(n - 1)])], exact(), keep_times=True)
    t = r.times[0]
    # each load issues when the one before has its data: latency + one line transfer
    assert t["load_done"].tolist() == [(k + 1) * (LAT + XFER) for k in range(n)]
    assert t["load_issue"].tolist() == [k * (LAT + XFER) for k in range(n)]
    last_data = n * (LAT + XFER) + TMU
    assert t["push_time"][-2] == last_data
    # done: one TMU cycle after the last control token (pushed just before the last entry),
    # seen by the core a queue latency later; the core costs nothing here
    assert r.cycles == last_data + QLAT
    assert r.cores[0].hbm_lines == n and r.cores[0].stall_mshr == 0


def test_independent_misses_are_latency_bound_with_one_mshr():
    n = 64
    r = simulate([items(list(range(n)))], exact(mshrs=1), keep_times=True)
    assert r.times[0]["load_done"][-1] == n * (LAT + XFER)
    # each load's slot is a TMU cycle after the one before issued; it waits the rest
    assert r.cores[0].stall_mshr == (n - 1) * (LAT + XFER - TMU)


def test_independent_misses_are_bandwidth_bound_with_many_mshrs():
    n = 64
    m = exact(loads_per_cycle=4)  # a line every 0.5 core cycles, the channel takes 1 each
    done = simulate([items(list(range(n)))], m, keep_times=True).times[0]["load_done"]
    assert done[-1] == n * XFER + LAT
    m8 = exact(loads_per_cycle=1)  # issue-bound: a line every TMU cycle
    done8 = simulate([items(list(range(n)))], m8, keep_times=True).times[0]["load_done"]
    assert done8[-1] == (n - 1) * TMU + LAT + XFER


def test_tmu_storage_holds_loads_until_pushed():
    n = 8
    # storage for 2 loads of 4 bytes: load k waits for the push of load k - 2
    r = simulate([items(list(range(n)))], exact(storage_bytes=8), keep_times=True)
    t = r.times[0]
    pushes = t["push_time"]
    data_push = {k: pushes[2 * k + 1] for k in range(n)}
    for k in range(2, n):
        assert t["load_issue"][k] == max(k * TMU, data_push[k - 2])
    assert r.cores[0].storage_overflows == 0


def lookups(n: int) -> AccessTrace:
    """SLS-like: per lookup an index load (stream ``idxs``) and a dependent row load (stream
    ``vals``), a token and the row as data."""
    k = np.arange(n)
    pq = np.tile(np.array([CTRL, DATA], np.int8), n)
    return AccessTrace(
        [ArrayInfo("idxs", 4, n, 0), ArrayInfo("vals", 4, 16 * n, 1 << 20)],
        np.tile(np.array([0, 1], np.int16), n), np.stack([k, 16 * ((7 * k) % n)], 1).ravel(),
        np.tile(np.array([1, 16], np.int32), n), np.repeat(k, 2),
        np.stack([np.full(n, -1), 2 * k], 1).ravel().astype(np.int32),
        np.repeat(2 * k, 2).astype(np.int32), np.append(pq, np.int8(CTRL)),
        np.full(2 * n + 1, 4, np.int32),
        np.append(np.stack([np.full(n, -1), 2 * k + 1], 1).ravel(), -1).astype(np.int32),
        np.append(np.tile(np.array([0, -1], np.int16), n), np.int16(-1)),
        [SectionCost("row", pops_vector=1)], vlen=16)


def test_streams_issue_in_order_each_and_run_ahead_of_each_other():
    n = 64
    r = simulate([lookups(n)], exact(loads_per_cycle=4), keep_times=True)
    t = r.times[0]
    idx_issue, row_issue = t["load_issue"][0::2], t["load_issue"][1::2]
    # the index stream issues a load per slot (a TMU cycle / 4), not waiting for the rows
    assert idx_issue.tolist() == [k * TMU / 4 for k in range(n)]
    # each row load waits for its index; the channel serves a line per core cycle
    assert (row_issue >= t["load_done"][0::2]).all()
    assert r.cores[0].access_finish < 2 * n * XFER + 2 * LAT + n * TMU


# ----------------------------------------------------------------------------- caches
def cached(**changes) -> DaeMachine:
    return exact(l2=Cache(2 * 64 * 4, 4, 8.0), llc=Cache(64 * 64, 4, 12.0, slices=1),
                 **changes)


def test_repeated_rows_hit_the_l2():
    rows, rounds = 4, 10
    repeated = items([k % rows for k in range(rows * rounds)])
    distinct = items(list(range(rows * rounds)))
    r = simulate([repeated], cached(mshrs=1))
    d = simulate([distinct], cached(mshrs=1))
    c = r.cores[0]
    assert (c.hbm_lines, c.l2_hits, c.llc_hits) == (rows, rows * (rounds - 1), 0)
    assert d.cores[0].hbm_lines == rows * rounds
    # with one MSHR every load waits for the one before: misses cost LLC + L2 + HBM
    miss = 8 + 12 + LAT + XFER
    assert r.cycles == rows * miss + rows * (rounds - 1) * 8 + TMU + QLAT
    assert d.cycles == rows * rounds * miss + TMU + QLAT


def test_lines_evicted_from_the_l2_hit_the_llc():
    lines = 16  # 8 lines of L2 (2 sets x 4 ways), 64 of LLC
    c = simulate([items(list(range(lines)) * 2)], cached()).cores[0]
    assert (c.hbm_lines, c.llc_hits, c.l2_hits) == (lines, lines, 0)


def test_the_mesh_round_trip_to_an_llc_slice():
    m = paper_machine()
    from sam.dae.memory import noc_round_trips

    rt = noc_round_trips(8, 8, 4, 2, 1.0, 1.0)
    assert rt[0, 0] == 0 and rt[0, 7] == 2 * (3 + 1) * 2 and rt[5, 2] == 2 * (1 + 1) * 2
    assert m.llc.slices == 8 and m.noc.mesh_x * m.noc.mesh_y == 8


# ----------------------------------------------------------------------------- queues, core
def test_slow_core_and_bounded_queue_the_tmu_stalls_and_cycles_are_the_cores_work():
    n, work = 200, 20.0
    slow = dataclasses.replace(exact().core, dispatch=work)
    tr = items(list(range(n)))
    unb = simulate([tr], exact(core=slow))
    bnd = simulate([tr], exact(core=slow, control_entries=4, data_entries=4))
    core_work = (n + 1) * work  # n callbacks and done
    for r in (unb, bnd):
        assert core_work <= r.cycles <= core_work + LAT + XFER + 2 * TMU + QLAT
    assert bnd.cores[0].stall_full > 0 and unb.cores[0].stall_full == 0
    assert bnd.cores[0].max_data_occupancy == 4 and bnd.cores[0].max_control_occupancy == 4
    assert unb.cores[0].max_data_occupancy > 100


def test_one_entry_queues_and_dependent_loads_pay_the_queue_round_trip_per_item():
    n, work = 50, 100.0
    core = dataclasses.replace(exact().core, dispatch=0.0, pop_scalar=work)
    chain = items(list(range(n)), [-1, *range(n - 1)], data_first=True)
    tmu_item, core_item = LAT + XFER + TMU, QLAT + work
    free = simulate([chain], exact(core=core)).cycles
    tight = simulate([chain], exact(core=core, storage_bytes=4, control_entries=1,
                                    data_entries=1)).cycles
    assert max(n * (LAT + XFER), n * work) <= free < max(n * (LAT + XFER), n * work) + 2 * LAT
    # item k + 1 may be pushed only once the core has popped item k (the end of its work),
    # and (storage of one load) load k + 2 issues only after that push: each item costs the
    # queue round trip plus the core's work; the TMU's chain still overlaps the core's work
    # on the item before (one entry of decoupling)
    assert core_item > tmu_item
    assert tight == tmu_item + n * core_item
    assert tight - free > n * QLAT / 2


def test_a_whole_embedding_must_fit_the_data_queue():
    emb = 8
    tr = items(list(range(3 * emb)), data_first=True, group=emb,
               section=SectionCost("reduce_embedding", pops_vector=emb))
    assert queue_needs(tr)[DATA] == (emb, 0)
    check_queues(tr, exact(data_entries=emb))
    with pytest.raises(SimulationError) as err:
        simulate([tr], exact(data_entries=emb - 1))
    msg = str(err.value)
    assert "\n" not in msg
    assert "'reduce_embedding' (control token 0) needs 8 data entries" in msg
    assert "(7 entries)" in msg and "give the data queue 8 entries or more" in msg
    # token first (O0 order): one entry is enough
    assert queue_needs(items(list(range(3 * emb)), group=emb))[DATA] == (1, 0)


def test_a_control_queue_too_small_for_tokens_pushed_ahead():
    # three tokens pushed before the data entry the first callback pops: with one entry, the
    # third waits for the pop of the second, which waits for the first callback's data
    tr = AccessTrace([ArrayInfo("A", 4, 16, 0)], np.zeros(1, np.int16), np.zeros(1, np.int64),
                     np.ones(1, np.int32), np.zeros(1, np.int64), np.full(1, -1, np.int32),
                     np.zeros(1, np.int32), np.array([CTRL, CTRL, CTRL, DATA, CTRL], np.int8),
                     np.full(5, 4, np.int32), np.array([-1, -1, -1, 0, -1], np.int32),
                     np.array([0, 1, 1, -1, -1], np.int16),
                     [SectionCost("a", pops_scalar=1), SectionCost("b")])
    assert queue_needs(tr)[CTRL] == (2, 0)
    with pytest.raises(SimulationError, match=r"the control queue \(1 entries\) deadlocks: "
                                              r"section 'a' \(control token 0\)"):
        check_queues(tr, exact(control_entries=1))


# ----------------------------------------------------------------------------- several cores
def test_two_cores_sharing_the_hbm_take_twice_as_long():
    n = 256
    # each load reads 8 lines (8 core cycles of the channel) against one push per TMU cycle
    # (2 core cycles) and 8 issue slots (4 core cycles): bandwidth-bound
    tr = items([8 * k for k in range(n)], count=128)
    m = exact(loads_per_cycle=2)
    one = simulate([tr], m).cycles
    two = simulate([tr, tr], m)
    assert two.cycles == pytest.approx(2 * one, rel=0.05)
    assert [c.hbm_lines for c in two.cores] == [8 * n, 8 * n]
    with pytest.raises(SimulationError, match="3 traces but 2 cores"):
        simulate([tr] * 3, exact(cores=2))


def test_ablation_steps_add_their_component():
    m = paper_machine()
    steps = [m.ablation(s) for s in ABLATION]
    assert [s.cores for s in steps] == [1, 1, 1, 1, 8]
    assert steps[0].core.dispatch == 0 and steps[1].core == m.core
    assert steps[1].l2 is None and steps[2].l2 == m.l2 and steps[2].llc == m.llc
    assert steps[2].queues.data_entries is None and steps[3].queues == m.queues
    assert dataclasses.replace(steps[4], name=m.name) == m
    with pytest.raises(SimulationError, match="give one of access, core"):
        m.ablation("tlb")


# ----------------------------------------------------------------------------- engines
@st.composite
def random_trace(draw):
    n = draw(st.integers(1, 40))
    lines = draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
    deps = [draw(st.integers(-1, k - 1)) for k in range(n)]
    streams = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    return items(lines, deps, data_first=draw(st.booleans()), group=draw(st.integers(1, 4)),
                 count=draw(st.integers(1, 40)), streams=streams)


@settings(max_examples=25, deadline=None)
@given(st.lists(random_trace(), min_size=1, max_size=3), st.integers(1, 8),
       st.sampled_from(ABLATION), st.sampled_from([None, 4, 16]))
def test_engines_give_identical_numbers(traces, mshrs, step, storage):
    m = paper_machine().ablation(step).replace(cores=8, mshrs=mshrs,
                                               data_entries=4, control_entries=4)
    if storage:
        m = m.replace(storage_bytes=storage)
    a = simulate(traces, m, "reference", keep_times=True)
    b = simulate(traces, m, "fast", keep_times=True)
    assert a.cores == b.cores and a.cycles == b.cycles
    for ta, tb in zip(a.times, b.times, strict=True):
        for key in ta:
            assert np.array_equal(ta[key], tb[key]), key
    for c in a.cores:  # bounded queues never hold more than their entries
        assert c.max_data_occupancy <= 4 and c.max_control_occupancy <= 4


# ----------------------------------------------------------------------------- YAML
def test_the_shipped_machine_is_figure_5():
    m = paper_machine()
    # the dataclasses' defaults (what a file leaves out) are the shipped file's values
    assert m == DaeMachine()
    assert (m.cores, m.clocks.core_ghz, m.clocks.tmu_ghz) == (8, 2.4, 1.0)
    assert (m.tmu.mshrs, m.tmu.storage_bytes, m.tmu.reads_from) == (256, 8192, "L2")
    assert (m.l2.size_bytes, m.l2.ways, m.l2.latency_cycles) == (512 * 1024, 8, 8)
    assert (m.llc.size_bytes, m.llc.slices, m.llc.ways, m.llc.latency_cycles) == \
        (1 << 20, 8, 16, 12)
    assert m.hbm.bandwidth_gbps == 300


@pytest.mark.parametrize("text, words", [
    ("tmu: {mshrs: 0}", "tmu: mshrs 0: give an integer above 0"),
    ("tmu: {mshrs: 2.5}", "tmu: mshrs 2.5: give an integer"),
    ("hbm: {latency_ns: -1}", "hbm: latency_ns -1: give a number 0 or more"),
    ("hbm: {latncy_ns: 1}", "hbm: unknown field 'latncy_ns'; fields are"),
    ("l2: {size_bytes: 1000, ways: 8, latency_cycles: 8}", "does not hold whole sets"),
    ("l2: {size_bytes: 1024}", "l2: missing field ways"),
    ("tmu: {reads_from: L1}", "reads_from 'L1': give L2 or LLC"),
    ("queues: [1, 2]", "queues: give a mapping"),
    ("cores: x", "cores 'x': give an integer"),
    ("core: {dispatch: [", "cannot parse"),
])
def test_yaml_errors_are_one_line_naming_file_and_field(tmp_path, text, words):
    p = tmp_path / "m.yaml"
    p.write_text(text + "\n")
    with pytest.raises(SimulationError) as err:
        load_machine(p)
    msg = str(err.value)
    assert "\n" not in msg and str(p) in msg and words in msg


def test_replace_overrides_for_the_cli():
    m = paper_machine().replace(cores=2, data_entries=16, **{"llc.latency_cycles": 20})
    assert (m.cores, m.queues.data_entries, m.llc.latency_cycles) == (2, 16, 20)
    with pytest.raises(SimulationError, match="several components have it"):
        paper_machine().replace(latency_cycles=3)
    with pytest.raises(SimulationError, match="no such field"):
        paper_machine().replace(warp_size=32)



def test_the_shipped_lookahead_machine_is_the_paper_machine_with_1_kb_of_storage():
    """ember_dae_lookahead1k.yaml (the ember-opt experiment's lookahead-limited machine) differs
    from the paper machine only in its name and the TMU storage."""
    from dataclasses import replace

    from sam.dae.machine import CONFIGS, load_machine, paper_machine

    look = load_machine(CONFIGS / "ember_dae_lookahead1k.yaml")
    assert look.tmu.storage_bytes == 1024 and look.name == "ember-dae-lookahead1k"
    assert replace(look, name="ember-dae") == paper_machine().replace(storage_bytes=1024)
