"""The DAE access-trace recorder (sam/dae/record.py): its pushes are the TMU's queue trace,
its loads the hand counts of Figure 10, both engines give the same arrays, section costs are
counted from the execute program (Ember paper Sec. 3.1, 4; docs/tmu.md)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from custard.ember.ops import random_inputs as ember_inputs
from custard.ember.ops import scf_text
from custard.ember.pipeline import compile_module
from custard.ember.to_tmu import access_trace, lower_to_tmu
from formats.tensor import Tensor
from sam.blocks.tmu import queue_trace
from sam.blocks.tmu_config import TmuConfig
from sam.dae.record import record
from sam.dae.trace import CTRL, DATA, AccessTrace, SectionCost
from sam.errors import GraphError, SimulationError
from sam.tmu_ops import OPS, build_op, sls_config

DATA_DIR = Path(__file__).resolve().parents[1] / "custard" / "ember" / "data"
TABLE = np.arange(1, 25, dtype=float).reshape(6, 4)
FIG10 = {"arg0": np.array([0, 2, 3]), "arg1": np.array([0, 2, 5]), "arg4": TABLE}
FIELDS = ("load_array", "load_first", "load_count", "load_step", "load_dep", "load_push",
          "push_queue", "push_bytes", "push_dep", "push_section")
DTYPES = {"load_array": np.int16, "load_first": np.int64, "load_count": np.int32,
          "load_step": np.int64, "load_dep": np.int32, "load_push": np.int32,
          "push_queue": np.int8, "push_bytes": np.int32, "push_dep": np.int32,
          "push_section": np.int16}


@functools.cache
def ember(source: str, level: int, vlen: int):
    text = (DATA_DIR / f"{source}.mlir").read_text() if source.startswith("eb_") \
        else scf_text(source)
    return compile_module(text, level, vlen).dlc


def tmu_and_program(graph) -> tuple[TmuConfig, object]:
    tmu = next(b for b in graph.blocks.values() if b.dot_type == "tmu")
    ex = next(b for b in graph.blocks.values() if b.dot_type == "execute")
    return tmu.config, ex.program


def fig10_sls(lanes: int = 1) -> tuple[TmuConfig, dict, object]:
    A = sp.csr_matrix((np.ones(3), [0, 2, 5], [0, 2, 3]), shape=(2, 6))
    graph, tensors = build_op("sls", Tensor.from_scipy(A, "ds"), Tensor.from_dense(TABLE, "dd"),
                              lanes=lanes)
    cfg, program = tmu_and_program(graph)
    return cfg, tensors, program


def well_formed(tr: AccessTrace) -> None:
    """The contract's invariants: dtypes, a load's dependence made before it, a pushed entry's
    load made before the push, steps in order, done last."""
    for f, dt in DTYPES.items():
        assert getattr(tr, f).dtype == dt, f
    n = tr.loads
    assert (tr.load_dep < np.arange(n)).all() and (tr.load_dep >= -1).all()
    assert (np.diff(tr.load_step) >= 0).all() and (np.diff(tr.load_push) >= 0).all()
    assert (tr.load_push >= 0).all() and (tr.load_push < tr.pushes).all()
    assert (tr.load_count >= 1).all() and (tr.load_count <= max(tr.vlen, 1)).all()
    for k, a in enumerate(tr.arrays):
        sel = tr.load_array == k
        assert (tr.load_first[sel] >= 0).all()
        assert (tr.load_first[sel] + tr.load_count[sel] <= a.length).all()
        assert a.base % 64 == 0
        if k:
            prev = tr.arrays[k - 1]
            assert a.base >= prev.base + prev.length * prev.element_bytes
    deps = tr.push_dep[tr.push_dep >= 0]
    assert (deps < n).all()
    made = np.nonzero(tr.push_dep >= 0)[0]
    assert (tr.load_push[tr.push_dep[made]] <= made).all()
    assert tr.push_queue[-1] == CTRL and tr.push_section[-1] == -1
    assert (tr.push_section[tr.push_queue == DATA] == -1).all()
    assert (tr.push_section[tr.push_queue == CTRL][:-1] >= 0).all()


def same_as_queue_trace(tr: AccessTrace, cfg: TmuConfig, tensors, element: int = 4) -> None:
    """The recorded control tokens (by section name, done last) are the TMU's; so are the data
    entries' number and which are vectors; a vector takes its lanes' bytes (``element`` each:
    the value bytes of a table)."""
    q = queue_trace(cfg, tensors)
    ctrl = tr.push_section[tr.push_queue == CTRL]
    names = [tr.sections[k].name if k >= 0 else "done" for k in ctrl]
    assert names == [str(c) for c in q.ctrl]
    nbytes = tr.push_bytes[tr.push_queue == DATA]
    assert len(nbytes) == len(q.data)
    for got, entry in zip(nbytes.tolist(), q.data, strict=True):
        if isinstance(entry, tuple):
            assert got == len(entry[0]) * element
        else:
            assert got in (4, 8)
    well_formed(tr)


def assert_same(a: AccessTrace, b: AccessTrace) -> None:
    for f in FIELDS:
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f), err_msg=f)
        assert getattr(a, f).dtype == getattr(b, f).dtype
    assert a.arrays == b.arrays and a.sections == b.sections and a.vlen == b.vlen


# ---------------------------------------------------------------------- hand counts
#: Figure 10 (ptrs=[0,2,3], idxs=[0,2,5], 6x4 table), O0 marshaling: per segment b the bound
#: loads ptrs[b], ptrs[b+1]; per lookup s the index load idxs[s] (after the bounds: its range
#: is theirs), then the row's 4 value loads, each from that index load; 4 pushes per element
#: (b, the ite token, e, v: one firing per data rule, the token with the first).
HAND = {
    "load_array": [0, 0, 1, 2, 2, 2, 2, 1, 2, 2, 2, 2, 0, 0, 1, 2, 2, 2, 2],
    "load_first": [0, 1, 0, 0, 1, 2, 3, 1, 8, 9, 10, 11, 1, 2, 2, 20, 21, 22, 23],
    "load_step": [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 11, 12, 13, 14, 15, 16],
    "load_dep": [-1, -1, 1, 2, 2, 2, 2, 1, 7, 7, 7, 7, -1, -1, 13, 14, 14, 14, 14],
    "load_push": [0, 0, 0, 0, 4, 8, 12, 16, 16, 20, 24, 28, 32, 32, 32, 32, 36, 40, 44],
}


def check_hand_counts(tr: AccessTrace, names: tuple[str, str, str]) -> None:
    assert [a.name for a in tr.arrays] == list(names)
    assert [(a.element_bytes, a.length) for a in tr.arrays] == [(8, 3), (8, 3), (4, 24)]
    assert [a.base for a in tr.arrays] == [0, 64, 128]
    for f, want in HAND.items():
        assert getattr(tr, f).tolist() == want, f
    assert tr.load_count.tolist() == [1] * 19
    # index loads: idxs[0], idxs[1], idxs[2], each on its segment's upper bound load
    idx = np.nonzero(tr.load_array == 1)[0]
    assert tr.load_first[idx].tolist() == [0, 1, 2]
    assert tr.load_dep[idx].tolist() == [1, 1, 13]
    # value loads: 12, each on its lookup's index load
    val = np.nonzero(tr.load_array == 2)[0]
    assert len(val) == 12 and tr.load_dep[val].tolist() == [2] * 4 + [7] * 4 + [14] * 4
    # bound loads: 4 on nothing
    assert (tr.load_dep[tr.load_array == 0] == -1).all()
    # pushes: (b, ite, e, v) x 12, done; v carries its value load
    assert tr.pushes == 49
    assert tr.push_queue.tolist() == [DATA, CTRL, DATA, DATA] * 12 + [CTRL]
    assert tr.push_bytes.tolist() == [8, 8, 8, 4] * 12 + [8]
    assert tr.push_dep[3:48:4].tolist() == val.tolist()
    assert tr.sections == [SectionCost(tr.sections[0].name, pops_scalar=3, rmw_scalar=1)]
    well_formed(tr)


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_figure_10_sls_loads_are_the_hand_counts(engine):
    cfg, tensors, program = fig10_sls()
    check_hand_counts(record(cfg, tensors, program, engine=engine),
                      ("A.1.seg", "A.1.crd", "B.vals"))


def test_figure_10_ember_o0_loads_are_the_hand_counts():
    tr = access_trace(lower_to_tmu(ember("eb_scf", 0, 2), FIG10), engine="reference")
    check_hand_counts(tr, ("arg0.vals", "arg1.vals", "arg4.vals"))


def test_figure_10_vector_loads_are_contiguous_rows():
    """With 2 lanes each lookup loads its row as 2 contiguous pairs, on the index load."""
    tr = record(*fig10_sls(lanes=2), engine="reference")
    val = np.nonzero(tr.load_array == 2)[0]
    assert tr.load_first[val].tolist() == [0, 2, 8, 10, 20, 22]
    assert tr.load_count[val].tolist() == [2] * 6
    assert tr.load_dep[val].tolist() == [2, 2, 5, 5, 10, 10]
    assert tr.push_bytes[tr.push_queue == DATA].tolist() == [8, 8, 8] * 6
    assert tr.sections[0] == SectionCost("ite", pops_scalar=2, pops_vector=1, rmw_vector=1)


# ---------------------------------------------------------------------- Figure 10 / 14
#: docs/ember.md: control / data entries at --vlen 2, O0..O3
FIG10_QUEUES = {0: (13, 36), 1: (7, 18), 2: (4, 9), 3: (6, 6)}


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_figure_10_push_sequences_at_vlen_2(level):
    low = lower_to_tmu(ember("eb_scf", level, 2), FIG10)
    tr = access_trace(low, engine="reference")
    ctrl, data = FIG10_QUEUES[level]
    assert int((tr.push_queue == CTRL).sum()) == ctrl
    assert int((tr.push_queue == DATA).sum()) == data
    same_as_queue_trace(tr, low.config, low.tensors)
    # every lookup's row: 4 scalar loads (O0) or 2 vector pairs (O1-O3)
    val = tr.load_array == [a.name for a in tr.arrays].index("arg4.vals")
    assert int(val.sum()) == (12 if level == 0 else 6)
    assert int(tr.load_count[val].sum()) == 12


def test_figure_10_o3_sections():
    low = lower_to_tmu(ember("eb_scf", 3, 2), FIG10)
    tr = access_trace(low, engine="reference")
    assert tr.sections == [SectionCost("se", alu_scalar=1),
                           SectionCost("ee", pops_vector=2, rmw_vector=2)]
    names = [tr.sections[k].name if k >= 0 else "done"
             for k in tr.push_section[tr.push_queue == CTRL]]
    assert names == ["ee", "ee", "se", "ee", "se", "done"]


# ---------------------------------------------------------------------- Table 1 operations
@pytest.mark.parametrize("lanes", [1, 2])
@pytest.mark.parametrize("op", OPS)
def test_table1_operations_push_what_the_tmu_pushes(op, lanes):
    rng = np.random.default_rng(11)
    blk = 2 if op == "gather" else 1
    A = sp.random(4, 5, density=0.5, format="csr", random_state=rng)
    A.data = np.round(rng.uniform(-2, 2, A.nnz), 3)
    B = np.round(rng.uniform(-3, 3, (5 * blk, 3)), 3)
    X = np.round(rng.uniform(-3, 3, (4, 3)), 3)
    if op == "kg":  # triples: head = row, tail = column, relation = value (a row of X)
        A.data = rng.integers(0, 4, A.nnz).astype(float)
    graph, tensors = build_op(op, Tensor.from_scipy(A, "ds"), Tensor.from_dense(B, "dd"),
                              Tensor.from_dense(X, "dd") if op in ("mp", "kg") else None,
                              lanes=lanes, blk=blk)
    cfg, program = tmu_and_program(graph)
    tr = record(cfg, tensors, program, engine="reference")
    same_as_queue_trace(tr, cfg, tensors)
    assert_same(tr, record(cfg, tensors, program, engine="fast"))
    sizes = {a.name: a.element_bytes for a in tr.arrays}
    assert sizes["A.1.seg"] == 8 and sizes["B.vals"] == 4
    if op in ("spmm", "mp"):
        assert sizes["A.vals"] == 4  # weights: pushed, never an address
    if op == "kg":
        assert sizes["A.vals"] == 8  # relations: the address of a row of X
    # the table's elements: each lookup's row (blk rows for gather) once; kg: head and tail
    val = tr.load_array == [a.name for a in tr.arrays].index("B.vals")
    rows_per_lookup = 2 if op == "kg" else blk
    assert int(tr.load_count[val].sum()) == A.nnz * rows_per_lookup * B.shape[1]


def test_mp_and_spmm_section_costs():
    rng = np.random.default_rng(3)
    A = sp.random(3, 4, density=0.6, format="csr", random_state=rng)
    B, X = rng.uniform(-1, 1, (4, 4)), rng.uniform(-1, 1, (3, 4))
    graph, tensors = build_op("mp", Tensor.from_scipy(A, "ds"), Tensor.from_dense(B, "dd"),
                              Tensor.from_dense(X, "dd"))
    cfg, program = tmu_and_program(graph)
    tr = record(cfg, tensors, program, engine="reference")
    # ite: a scalar, x, y vectors; p = x*y, c = p*a, tmp += c (a load, an op, a store);
    # ve: i scalar; t = tmp[0..] and v = X[i, 0..] core loads; m = t*v; out += m; z = t*0;
    # tmp = z (a store)
    assert tr.sections == [
        SectionCost("ite", pops_scalar=1, pops_vector=2, alu_vector=3, workspace_loads=1,
                    workspace_stores=1),
        SectionCost("ve", pops_scalar=1, alu_vector=2, rmw_vector=1, workspace_loads=2,
                    workspace_stores=1)]
    graph, tensors = build_op("spmm", Tensor.from_scipy(A, "ds"), Tensor.from_dense(B, "dd"),
                              lanes=2)
    cfg, program = tmu_and_program(graph)
    tr = record(cfg, tensors, program, engine="reference")
    assert tr.sections == [SectionCost("se", pops_scalar=1),
                           SectionCost("ite", pops_scalar=2, pops_vector=1, alu_vector=1,
                                       rmw_vector=1)]


# ---------------------------------------------------------------------- Ember lowerings
@pytest.mark.parametrize("op", ["sls", "spmm", "kg", "spattn"])
def test_ember_lowerings_push_what_the_tmu_pushes(op):
    ins = ember_inputs(op, np.random.default_rng(5), segments=3, emb=5, max_lookups=3)
    for level in range(4):
        low = lower_to_tmu(ember(op, level, 2), ins)
        tr = access_trace(low, engine="reference")
        same_as_queue_trace(tr, low.config, low.tensors)
        sizes = {a.name.split(".")[0]: a.element_bytes for a in tr.arrays}
        for name in ("ptrs", "idxs", "heads", "rels", "tails"):
            assert sizes.get(name, 8) == 8, (op, level, name)
        for name in ("table", "vals", "relations"):
            assert sizes.get(name, 4) == 4, (op, level, name)
        if level == 3:
            assert_same(tr, access_trace(low, engine="fast"))


def test_lockstep_and_broadcast_layers():
    """A lockstep layer's ended TU loads nothing (masked); a broadcast layer's lanes read one
    element: one load per step."""
    from sam.blocks.tmu_config import Alu, DenseTU, Layer, Mem, Operand, RangeTU, Token

    _, tensors, _ = fig10_sls()
    lock = TmuConfig(
        [Layer("single", [DenseTU("b", 0, 2)]),
         Layer("lockstep", [DenseTU("x", 0, 3), RangeTU("y", "zero", "b1")])],
        [Alu("zero", "b", "*", "b", 0), Alu("b1", "b", "+", "b", 1),
         Mem("vx", "x", array="B.vals", index="x"), Mem("vy", "y", array="A.1.crd", index="y")],
        [Operand("vx", "x", "ite"), Operand("vy", "y", "ite", vector=True)],
        [Token("go", "x", "ite"), Token("row", "b", "end")])
    program = "go: a = pop; c = pop; d = a * c; out[0, 0] += d | row: z = 1"
    tr = record(lock, tensors, program, engine="reference")
    same_as_queue_trace(tr, lock, tensors, element=8)  # vy: the index array A.1.crd
    assert_same(tr, record(lock, tensors, program, engine="fast"))
    # b=0: x loads 0, 1, 2 with y loads 0 (only y=0 is on); b=1: x 0..2, y 0, 1
    assert tr.load_array.tolist() == [0, 1, 0, 0, 0, 1, 0, 1, 0]
    assert tr.load_first.tolist() == [0, 0, 1, 2, 0, 0, 1, 1, 2]
    assert tr.sections == [SectionCost("go", pops_scalar=1, pops_vector=1, alu_vector=1,
                                       rmw_vector=1),
                           SectionCost("row", alu_scalar=1)]
    bcast = TmuConfig([Layer("single", [DenseTU("b", 0, 2)]),
                       Layer("bcast", [DenseTU("e", 0, 2)], lanes=3)],
                      [Alu("be", "e", "+", "b", "e"), Mem("v", "e", array="B.vals", index="be")],
                      [Operand("v", "e", "ite", vector=True)], [Token(7, "e", "ite")])
    tr = record(bcast, tensors, "7: v = pop; out[0, 0] += v", engine="reference")
    same_as_queue_trace(tr, bcast, tensors)
    assert tr.load_first.tolist() == [0, 1, 1, 2] and tr.load_count.tolist() == [1] * 4
    assert tr.push_bytes.tolist() == [12, 8] * 4 + [8]


# ---------------------------------------------------------------------- engines
@settings(max_examples=20, deadline=None)
@given(ptrs=st.lists(st.integers(0, 3), min_size=1, max_size=4), seed=st.integers(0, 2**31),
       emb=st.integers(1, 5), lanes=st.integers(1, 3), rows=st.integers(1, 6))
def test_engines_give_identical_traces(ptrs, seed, emb, lanes, rows):
    rng = np.random.default_rng(seed)
    indptr = np.concatenate([[0], np.cumsum(ptrs)])
    idxs = rng.integers(0, rows, int(indptr[-1]))
    A = sp.csr_matrix((np.ones(len(idxs)), idxs, indptr), shape=(len(ptrs), rows))
    A.sum_duplicates()  # a segment's repeated lookup is one stored entry
    graph, tensors = build_op("sls", Tensor.from_scipy(A, "ds"),
                              Tensor.from_dense(rng.uniform(-1, 1, (rows, emb)), "dd"),
                              lanes=lanes)
    cfg, program = tmu_and_program(graph)
    ref = record(cfg, tensors, program, engine="reference")
    assert_same(ref, record(cfg, tensors, program, engine="fast"))
    val = ref.load_array == 2
    assert int(ref.load_count[val].sum()) == A.nnz * emb
    assert int(val.sum()) == A.nnz * -(-emb // lanes)
    well_formed(ref)


# ---------------------------------------------------------------------- errors
def test_errors_are_one_line():
    cfg, tensors, program = fig10_sls()
    with pytest.raises(GraphError, match="dae mode"):
        record(sls_config("sam"), tensors, program)
    with pytest.raises(GraphError, match="no section for control token"):
        record(cfg, tensors, "5: v = pop")
    with pytest.raises(GraphError, match="pops 24 data entries over the run but the TMU "
                                         "pushes 36"):
        record(cfg, tensors, "ite: b = pop; v = pop; out[b, 0] += v")
    with pytest.raises(GraphError, match="unknown engine"):
        record(cfg, tensors, program, engine="gem5")
    bad = dict(tensors, A=Tensor.from_scipy(
        sp.csr_matrix((np.ones(3), [0, 2, 5], [0, 2, 3]), shape=(2, 6)), "ds"),
        B=Tensor.from_dense(TABLE[:5], "dd"))
    with pytest.raises(SimulationError, match="reads outside its array"):
        record(cfg, bad, program, engine="reference")
