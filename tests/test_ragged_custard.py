"""Custard on ragged operands (custard/ragged.py, custard/ragged_suite.py): every kernel equals
numpy on random lengths (0 included) on both engines; shared raggedness needs no merge block;
ragged followers are located; trmm and attention match numpy; the checked-in DOT files are
current and run."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import custard
from custard.ragged_suite import KERNELS, attention, attention_reference, batch, sequences
from formats import Tensor
from formats.errors import ToolkitError
from sam.errors import CompileError, GraphError
from sam.graph.dot import load, load_all
from sam.program import Program
from sam.sim.engine import simulate

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ("reference", "fast")
LENGTHS = st.lists(st.integers(0, 6), min_size=1, max_size=5)
MERGES = {"intersect", "union"}


def types(graph) -> list[str]:
    return [b.dot_type for b in graph.blocks.values()]


def run_both(graph, tensors):
    """Outputs of both engines (they must agree exactly, tokens and cycles)."""
    results = [simulate(graph, tensors, engine=e) for e in ENGINES]
    assert results[0].cycles == results[1].cycles
    return results


@pytest.mark.parametrize("name", ["ragged_elemmul", "ragged_elemadd", "ragged_elemmul3"])
def test_shared_raggedness_graph_has_no_merge(name):
    graph = KERNELS[name].compile()
    assert not MERGES & set(types(graph))
    assert graph.attrs["shared"] == "A,B"
    unshared = custard.compile(KERNELS[name].expression, KERNELS[name].formats, "b,i,d"[:len(
        KERNELS[name].order)])
    assert types(unshared).count("fiberlookup") > types(graph).count("fiberlookup")


def test_vgemm_locates_its_follower():
    graph = KERNELS["vgemm"].compile()
    locs = [b for b in graph.blocks.values() if b.dot_type == "locate"]
    assert [(b.tensor, b.attrs["index"]) for b in locs] == [("B", "k")]
    assert not [b for b in graph.blocks.values()
                if b.dot_type == "intersect" and b.attrs.get("index") == "k"]


@settings(max_examples=30, deadline=None)
@given(LENGTHS, st.sampled_from(["ragged_elemmul", "ragged_elemadd"]), st.integers(0, 99),
       st.sampled_from([(1, 1), (2, 2), (1, 4), (2, 8)]))
def test_elementwise_equals_numpy(lengths, name, seed, padding):
    rng = np.random.default_rng(seed)
    pad, spad = padding
    a = Tensor.from_ragged([rng.integers(1, 10, n).astype(float) for n in lengths], pad=pad,
                           spad=spad)
    b = batch(lengths, rng, like=a)
    want = a.to_dense() * b.to_dense() if name.endswith("mul") else a.to_dense() + b.to_dense()
    for res in run_both(KERNELS[name].compile(), {"A": a, "B": b}):
        x = res.outputs["X"]
        assert x.format.levels == ("d", "r")  # written ragged
        assert np.array_equal(x.to_dense(), want)
        assert [len(r) for r in x.to_ragged()] == [-(-n // pad) * pad for n in lengths]


@settings(max_examples=25, deadline=None)
@given(LENGTHS, st.integers(1, 3), st.integers(0, 99))
def test_elemmul3_equals_numpy(lengths, width, seed):
    rng = np.random.default_rng(seed)
    a = Tensor.from_ragged(sequences(lengths, width, rng, low=1, high=2), "drd")
    b = Tensor.from_ragged(sequences(lengths, width, rng, low=1, high=2), "drd", like=a)
    want = a.to_dense() * b.to_dense()
    for res in run_both(KERNELS["ragged_elemmul3"].compile(), {"A": a, "B": b}):
        assert np.allclose(res.outputs["X"].to_dense(), want)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 4)),
                min_size=1, max_size=4), st.integers(0, 99))
def test_vgemm_equals_numpy(dims, seed):
    rng = np.random.default_rng(seed)
    As = [rng.integers(1, 5, (m, k)).astype(float) for m, k, _ in dims]
    Bs = [rng.integers(1, 5, (k, n)).astype(float) for _, k, n in dims]
    mm, kk, nn = (max(d[x] for d in dims) for x in range(3))
    a = Tensor.from_ragged(As, "drr", shape=(len(dims), mm, kk))
    b = Tensor.from_ragged(Bs, "drr", shape=(len(dims), kk, nn))
    for res in run_both(KERNELS["vgemm"].compile(), {"A": a, "B": b}):
        c = res.outputs["C"].to_dense()
        big = (len(dims), max(max(d[0] for d in dims), c.shape[1]),
               max(max(d[2] for d in dims), c.shape[2]))
        want, got = np.zeros(big), np.zeros(big)
        got[:, :c.shape[1], :c.shape[2]] = c
        for t, (m, _, n) in enumerate(dims):
            want[t, :m, :n] = As[t] @ Bs[t]
        assert np.array_equal(got, want)
        assert res.outputs["C"].format.levels == ("d", "r", "r")


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 8), st.integers(1, 4), st.integers(0, 99))
def test_trmm_equals_numpy(n, m, seed):
    rng = np.random.default_rng(seed)
    rows = [rng.integers(1, 5, i + 1).astype(float) for i in range(n)]
    low = Tensor.from_ragged(rows)
    dense = rng.integers(1, 5, (n, m)).astype(float)
    want = np.tril(low.to_dense()) @ dense
    for res in run_both(KERNELS["trmm"].compile(), {"L": low, "B": Tensor.from_dense(dense,
                                                                                      "dd")}):
        assert np.array_equal(res.outputs["C"].to_dense(), want)


@pytest.mark.parametrize("lengths", [[3, 1, 4, 2], [0, 5, 1], [7]])
def test_attention_equals_numpy(lengths):
    rng = np.random.default_rng(len(lengths))
    d = 4
    qs, ks, vs = (sequences(lengths, d, rng) for _ in range(3))
    tensors = {n: Tensor.from_ragged(x, "drd", name=n) for n, x in zip("QKV", (qs, ks, vs),
                                                                        strict=True)}
    prog = attention(d)
    assert "exp" in types(prog.phases[1].graph)
    want = attention_reference(qs, ks, vs)
    cycles = []
    for engine in ENGINES:
        res = prog.run(tensors, engine=engine)
        cycles.append(res.cycles)
        out = res.outputs["O"].to_ragged()
        for got, ref in zip(out, want, strict=True):
            assert np.allclose(np.asarray(got, dtype=float).reshape(-1, d), ref)
    assert cycles[0] == cycles[1]


def test_padded_operands_compute_the_same():
    rng = np.random.default_rng(3)
    a = Tensor.from_ragged([rng.integers(1, 9, n).astype(float) for n in (3, 0, 5)], pad=4)
    b = Tensor.from_ragged([rng.integers(1, 9, n).astype(float) for n in (3, 0, 5)], like=a)
    assert b.levels[1].raggedness.loop.tolist() == [4, 0, 8]
    res = simulate(KERNELS["ragged_elemmul"].compile(), {"A": a, "B": b}, engine="reference")
    assert np.array_equal(res.outputs["X"].to_dense(), a.to_dense() * b.to_dense())
    spad = Tensor.from_ragged([[1.0, 2.0, 3.0], [4.0]], spad=4)
    spad_b = Tensor.from_ragged([[2.0, 2.0, 2.0], [3.0]], like=spad)
    for res in run_both(KERNELS["ragged_elemadd"].compile(), {"A": spad, "B": spad_b}):
        assert res.outputs["X"].to_ragged() == [[3.0, 4.0, 5.0], [7.0]]


def test_unequal_raggedness_refused_at_bind():
    a = Tensor.from_ragged([[1, 2], [3]])
    b = Tensor.from_ragged([[1], [3, 4]])
    with pytest.raises(GraphError) as err:
        simulate(KERNELS["ragged_elemmul"].compile(), {"A": a, "B": b}, engine="reference")
    assert "shared raggedness" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("spec,words", [("A", "fewer than two"), ("A,Z", "does not read")])
def test_bad_shared_groups(spec, words):
    with pytest.raises(CompileError, match=words):
        custard.compile("X(b,i)=A(b,i)*B(b,i)", {"A": "dr", "B": "dr"}, shared=spec)


def _script():
    spec = importlib.util.spec_from_file_location("compile_ragged",
                                                  ROOT / "scripts" / "compile_ragged.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_dot_files_current_and_run(tmp_path):
    assert _script().main(["--check"]) == 0
    rng = np.random.default_rng(5)
    a = batch([2, 0, 3], rng)
    b = batch([2, 0, 3], rng, like=a)
    graph = load(ROOT / "dot_graphs" / "ragged" / "ragged_elemadd.gv")
    res = simulate(graph, {"A": a, "B": b}, engine="reference")
    assert np.array_equal(res.outputs["X"].to_dense(), a.to_dense() + b.to_dense())
    prog = Program(load_all(ROOT / "dot_graphs" / "ragged" / "attention.gv"))
    assert len(prog.phases) == 5
    qs, ks, vs = (sequences([2, 3], 64, rng) for _ in range(3))
    tensors = {n: Tensor.from_ragged(x, "drd") for n, x in zip("QKV", (qs, ks, vs),
                                                                strict=True)}
    out = prog.run(tensors, engine="reference").outputs["O"].to_ragged()
    for got, ref in zip(out, attention_reference(qs, ks, vs), strict=True):
        assert np.allclose(np.asarray(got), ref)


def test_errors_are_toolkit_errors():
    with pytest.raises(ToolkitError):
        Tensor.from_ragged([[1, [2]]])


def test_cli_shared_flag(capsys):
    from custard.cli import main

    assert main(["compile", "X(b,i)=A(b,i)*B(b,i)", "-f=A:dr", "-f=B:dr", "-f=X:dr",
                 "--shared", "A,B"]) == 0
    text = capsys.readouterr().out
    assert 'shared="A,B"' in text and "intersect" not in text


@pytest.mark.parametrize("name,engines", [("LFAT5", ENGINES), ("west0479", ("fast",))])
def test_real_matrix_stored_ragged(name, engines):
    from formats.io import load_tensor

    a = load_tensor(name, "dr")
    ref = load_tensor(name, "ds").to_dense()
    assert np.array_equal(a.to_dense(), ref)
    rng = np.random.default_rng(0)
    dense = rng.integers(1, 5, ref.shape).astype(float)
    graph = custard.compile("X(i,j)=A(i,j)*D(i,j)", {"A": "dr", "D": "dd", "X": "dr"})
    assert "locate" in types(graph) and "intersect" not in [
        b.dot_type for b in graph.blocks.values() if b.attrs.get("index") == "j"]
    cycles = set()
    for engine in engines:
        res = simulate(graph, {"A": a, "D": Tensor.from_dense(dense, "dd")}, engine=engine)
        assert np.array_equal(res.outputs["X"].to_dense(), ref * dense)
        cycles.add(res.cycles)
    assert len(cycles) == 1


@settings(max_examples=12, deadline=None)
@given(LENGTHS, st.integers(1, 3), st.integers(0, 99))
def test_attention_hypothesis_both_engines(lengths, d, seed):
    rng = np.random.default_rng(seed)
    qs, ks, vs = (sequences(lengths, d, rng) for _ in range(3))
    tensors = {n: Tensor.from_ragged(x, "drd", shape=(len(lengths), max(lengths), d))
               for n, x in zip("QKV", (qs, ks, vs), strict=True)}
    want = attention_reference(qs, ks, vs)
    prog = attention(d)
    cycles = set()
    for engine in ENGINES:
        res = prog.run(tensors, engine=engine)
        cycles.add(res.cycles)
        out = res.outputs["O"].to_dense()
        for t, ref in enumerate(want):
            assert np.allclose(out[t, :len(ref)], ref)
            assert not out[t, len(ref):].any()
    assert len(cycles) == 1


@settings(max_examples=25, deadline=None)
@given(LENGTHS, st.integers(0, 99), st.floats(0.1, 0.9))
def test_compressed_leader_locates_ragged_follower(lengths, seed, density):
    rng = np.random.default_rng(seed)
    r = batch(lengths, rng)
    width = max(max(lengths), 1)
    sparse = rng.integers(1, 9, (len(lengths), width)) * (rng.random((len(lengths), width))
                                                          < density)
    c = Tensor.from_dense(sparse.astype(float), "ds")
    r = Tensor.from_ragged(r.to_ragged(), shape=(len(lengths), width))
    graph = custard.compile("X(b,i)=C(b,i)*R(b,i)", {"C": "ds", "R": "dr", "X": "ds"})
    locs = [b for b in graph.blocks.values() if b.dot_type == "locate"]
    assert [b.tensor for b in locs] == ["R"] and "intersect" not in [
        b.dot_type for b in graph.blocks.values() if b.attrs.get("index") == "i"]
    for res in run_both(graph, {"C": c, "R": r}):
        assert np.array_equal(res.outputs["X"].to_dense(), c.to_dense() * r.to_dense())


def test_shared_tensors_need_one_format():
    with pytest.raises(CompileError, match="need one format"):
        custard.compile("X(b,i)=A(b,i)*B(b,i)", {"A": "dr", "B": "ds"}, shared="A,B")
