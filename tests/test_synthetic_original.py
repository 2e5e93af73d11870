"""The original SAM artifact's generators (formats.synthetic.original_*): the exact data of the
original's scripts for their seeds, and the properties of their algorithms."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats import FormatError, Tensor
from formats.synthetic import (
    FIG12_B_SHAPE,
    FIG12_C_SHAPE,
    ORIGINAL_SWEEP,
    ORIGINAL_VALUE_CAP,
    _OriginalRng,
    data_digest,
    figure11_operands,
    figure12_matrices,
    original_blocks,
    original_random,
    original_runs,
    original_urandom,
)

DIGESTS = Path(__file__).parent / "data" / "original-synthetic" / "digests.txt"


def pinned() -> list[tuple[str, int, str]]:
    out = []
    for line in DIGESTS.read_text().splitlines():
        if line and not line.startswith("#"):
            label, nnz, digest = line.split("|")
            out.append((label, int(nnz), digest))
    return out


def ours(label: str) -> Tensor:
    """The tensor our generator makes for a label of digests.txt."""
    words = label.split()
    if words[0] == "fig12":
        b, c = figure12_matrices()
        return b if words[1] == "B" else c
    if words[0] == "urandom":
        return original_urandom(float(words[2]), 0 if words[1] == "B" else 1)
    make = original_runs if words[0] == "runs" else original_blocks
    pair = make(int(words[1]), 400, 0)
    return pair[0] if words[2] == "b" else pair[1]


def test_pinned_file_covers_every_original_data_set() -> None:
    labels = [label for label, _, _ in pinned()]
    assert len(labels) == 2 + 2 * len(ORIGINAL_SWEEP) + 2 * 2 * 13 == len(set(labels))


@pytest.mark.parametrize("label,nnz,digest", pinned(), ids=[p[0] for p in pinned()])
def test_equals_the_original_data(label: str, nnz: int, digest: str) -> None:
    t = ours(label)
    assert t.nnz == nnz
    assert data_digest(t) == digest


def test_figure12_and_figure11_operands() -> None:
    b, c = figure12_matrices("ss01", "ss:1,0")
    assert (b.shape, c.shape) == (FIG12_B_SHAPE, FIG12_C_SHAPE)
    assert str(c.format.levels) == "('s', 's')" and b.nnz == 1212 and c.nnz == 1280
    assert np.array_equal(c.to_dense(), original_random(FIG12_C_SHAPE, 0.95, 1).to_dense())
    b11, c11, d11 = figure11_operands(10)
    assert b11 == original_random(FIG12_B_SHAPE, 0.95, 0)
    assert c11.shape == (250, 10) and d11.shape == (100, 10)
    assert np.all(c11.to_dense() == 1) and np.all(d11.to_dense() == 1)
    with pytest.raises(FormatError, match="K must be"):
        figure11_operands(0)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), before=st.integers(0, 700), n=st.integers(0, 3000))
def test_vectorised_uniforms_continue_pythons_stream(seed: int, before: int, n: int) -> None:
    """numpy's MT19937 picks up Python's random state: the same doubles, and Python's state
    afterwards as if it had drawn them itself."""
    rng = _OriginalRng(seed)
    py = random.Random(seed)
    for _ in range(before):
        assert rng.py.random() == py.random()
    assert rng.uniforms(n).tolist() == [py.random() for _ in range(n)]
    assert rng.py.randint(0, 1000) == py.randint(0, 1000)


def test_random_is_bernoulli_with_values_up_to_254() -> None:
    size, sparsity = 200_000, 0.9
    t = original_random((size,), sparsity, seed=5)
    keep = (1 - sparsity) * (ORIGINAL_VALUE_CAP - 1) / ORIGINAL_VALUE_CAP  # 0 is a value too
    assert abs(t.nnz - size * keep) < 5 * np.sqrt(size * keep * (1 - keep))
    _, vals = t.to_coo()
    assert vals.min() >= 1 and vals.max() <= ORIGINAL_VALUE_CAP - 1
    assert np.array_equal(vals, np.round(vals))
    counts = np.bincount(vals.astype(int), minlength=ORIGINAL_VALUE_CAP)[1:]
    assert counts.min() > 0.6 * counts.mean()  # values uniform over 1..254
    # the count varies with the seed (a fixed-count sample would not)
    assert len({original_random((1000,), 0.5, s).nnz for s in range(8)}) > 1


@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.integers(0, 9), min_size=1, max_size=3).map(tuple),
       sparsity=st.floats(0, 1), seed=st.integers(0, 2**32 - 1))
def test_random_reproducible_and_shaped(shape, sparsity, seed) -> None:
    t = original_random(shape, sparsity, seed, name="B")
    assert t.shape == shape and t.name == "B"
    assert original_random(shape, sparsity, seed) == t
    dense = t.to_dense()
    assert np.all((dense == 0) | ((dense >= 1) & (dense <= 254)))
    if sparsity == 1.0:
        assert t.nnz == 0


def test_urandom_is_drawn_in_the_scripts_order() -> None:
    first = original_random((2000,), ORIGINAL_SWEEP[0], 0)
    assert original_urandom(ORIGINAL_SWEEP[0], 0) == first
    fourth = original_urandom(0.95, 0)
    assert fourth == original_random((2000,), 0.95, 0, drawn_before=ORIGINAL_SWEEP[:3])
    assert fourth != original_random((2000,), 0.95, 0)
    with pytest.raises(FormatError, match="sparsities"):
        original_urandom(0.5)


def coords(v: Tensor) -> set[int]:
    c, vals = v.to_coo(drop_zeros=True)
    return set(c[:, 0].tolist())


@pytest.mark.parametrize("rl", [1, 3, 10, 64, 400])
def test_runs_structure(rl: int) -> None:
    b, c = original_runs(rl, 400, seed=2)
    assert b.shape == c.shape == (2000,)
    cb, cc = coords(b), coords(c)
    # b and c share the elements between runs: two per round
    rounds = -(-400 // (rl + 2)) if rl > 1 else None
    assert len(cb & cc) > 0
    if rounds:
        assert len(cb & cc) >= 2 * rounds - 4  # a shared value drawn as 0 is dropped
    assert 0 in cc and 0 not in cb  # c starts with one element at 0
    assert 390 <= len(cb) <= 400 + 3 and 390 <= len(cc) <= 402
    assert original_runs(rl, 400, seed=2) == (b, c)


@pytest.mark.parametrize("bs", [1, 5, 20, 100, 400])
def test_blocks_structure(bs: int) -> None:
    b, c = original_blocks(bs, 400, seed=3)
    assert b.shape == c.shape == (2000,)
    cb, cc = coords(b), coords(c)
    assert 390 <= len(cb) <= 400 and 390 <= len(cc) <= 400
    if bs >= 20:  # c's blocks partially overlap b's: the shift is at most half a block
        assert len(cb & cc) > 0.3 * 400
    assert original_blocks(bs, 400, seed=3) == (b, c)
    assert original_blocks(bs, 400, seed=4) != (b, c)


def test_original_generators_refuse_what_the_original_cannot_make() -> None:
    with pytest.raises(FormatError, match="do not fit"):
        original_runs(10, 1500)  # the original raises IndexError: 2000 is too short
    with pytest.raises(FormatError, match="do not fit"):
        original_blocks(1500, 400)
    with pytest.raises(FormatError, match="no room|runs off"):
        original_blocks(200, 1900)
    with pytest.raises(FormatError, match="at least 1"):
        original_runs(0)
    with pytest.raises(FormatError, match="sparsity"):
        original_random((3,), 1.5)
    with pytest.raises(FormatError, match="seed"):
        original_random((3,), 0.5, -1)
    with pytest.raises(FormatError, match="seed"):
        original_runs(3, seed=2**32)
    with pytest.raises(FormatError, match="shape"):
        original_random((), 0.5)


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_specs_bind_the_original_data_and_simulate(engine: str) -> None:
    """``orig-*`` specs give the generators' tensors; the graph (through DOT text and back)
    computes what numpy computes on them."""
    from custard.api import compile as compile_expr
    from sam.bind import bind_tensors, seed_for
    from sam.graph.dot import dumps, loads
    from sam.sim.engine import simulate

    vec = loads(dumps(compile_expr("x(i)=b(i)*c(i)")))
    for spec, make in (("orig-runs:7", original_runs), ("orig-blocks:30:100:5", original_blocks)):
        t = bind_tensors(vec, {"b": spec, "c": spec}, seed=4)
        # a pair without a seed takes one derived from --seed and its spec (sam.bind.seed_for)
        want = (make(7, 400, seed_for(4, spec)) if make is original_runs
                else make(30, 100, 5))
        assert np.array_equal(t["b"].to_dense(), want[0].to_dense())
        assert np.array_equal(t["c"].to_dense(), want[1].to_dense())
        out = simulate(vec, t, engine=engine).outputs["x"].to_dense()
        assert np.array_equal(out, want[0].to_dense() * want[1].to_dense())

    mat = loads(dumps(compile_expr("X(i,j)=B(i,k)*C(k,j)", {"X": "ss", "B": "ss", "C": "ss"},
                                   "ikj")))
    t = bind_tensors(mat, {"B": "orig-random:0.8:0:30x20", "C": "orig-random:0.8:1:20x30"})
    b, c = original_random((30, 20), 0.8, 0), original_random((20, 30), 0.8, 1)
    assert t["B"] == b.with_format(t["B"].format) and t["C"].shape == (20, 30)
    assert np.array_equal(t["C"].to_dense(), c.to_dense())
    out = simulate(mat, t, engine=engine).outputs["X"].to_dense()
    assert np.array_equal(out, b.to_dense() @ c.to_dense())


def test_spec_errors_are_one_line() -> None:
    from custard.api import compile as compile_expr
    from sam.bind import BindError, bind_tensors

    vec = compile_expr("x(i)=b(i)*c(i)")
    for spec, msg in (("orig-random:1.5:0:10", "sparsity 1.5"),
                      ("orig-random:0.5:x", "SPARSITY is a number"),
                      ("orig-random:0.5:4294967296:10", "below 2\\*\\*32"),
                      ("orig-runs:x", "orig-runs:LENGTH"),
                      ("orig-runs:10:3000", "do not fit")):
        with pytest.raises((BindError, FormatError), match=msg):
            bind_tensors(vec, {"b": spec, "c": "orig-random:0.5:0:2000"})
