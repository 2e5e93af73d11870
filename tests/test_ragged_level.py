"""Ragged level format ``r`` (CoRa): storage, padding, sharing, conversions, scanner/locator."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats import FormatError, ReadError, Tensor
from formats.io import load_tensor, save_tensor
from formats.levels import level_type
from formats.ragged import aux_words, fuse, unfuse
from formats.raggedness import Raggedness
from sam.blocks.locators import Locator
from sam.blocks.scanners import LevelScanner
from sam.sim.harness import run_block

ROWS = [[1, 2, 3], [4], [5, 6, 7, 8], [9, 10]]
PADDED = np.array([[1, 2, 3, 0], [4, 0, 0, 0], [5, 6, 7, 8], [9, 10, 0, 0]], dtype=float)
ENGINES = ["reference", "fast"]


def test_from_ragged_stores_seg_only():
    t = Tensor.from_ragged(ROWS)
    level = t.levels[1]
    assert level.arrays().keys() == {"seg"}
    assert level.seg.tolist() == [0, 3, 4, 8, 10]
    assert "crd" not in level.memories()
    assert t.vals.tolist() == list(range(1, 11))
    dense, mask = t.to_padded()
    assert np.array_equal(dense, PADDED)
    assert np.array_equal(mask, PADDED != 0)
    assert t.to_ragged() == [[float(v) for v in r] for r in ROWS]
    assert level_type("r") is type(level)


def test_aux_memory_5_words_vs_15_compressed():
    t = Tensor.from_ragged(ROWS)
    assert aux_words([t]) == 5
    assert aux_words([t.with_format("ds")]) == 15


@pytest.mark.parametrize("engine", ENGINES)
def test_scanner_tokens_match_compressed(engine):
    t = Tensor.from_ragged(ROWS)
    want = "0, 1, 2, S0, 0, S0, 0, 1, 2, 3, S0, 0, 1, S1, D"
    outs = []
    for fmt, tensor in (("ragged", t), ("compressed", t.with_format("ds"))):
        scan = LevelScanner("j", {"tensor": "B", "mode": "1", "format": fmt})
        out = run_block(scan, {"ref": "0, 1, 2, 3, S0, D"}, {"B": tensor}, engine=engine)
        assert out["crd"] == want
        outs.append((out["crd"], out["ref"]))
    assert outs[0] == outs[1]


def test_loop_padding():
    t = Tensor.from_ragged(ROWS, pad=2)
    rag = t.levels[1].raggedness
    assert rag.loop.tolist() == [4, 2, 4, 2]
    assert len(t.vals) == 12
    assert t.levels[1].seg.tolist() == [0, 4, 6, 10, 12]
    assert np.array_equal(t.to_dense(), PADDED)
    assert t.to_padded()[1].sum() == 12


@pytest.mark.parametrize("engine", ENGINES)
def test_storage_padding(engine):
    t = Tensor.from_ragged(ROWS, spad=4)
    level = t.levels[1]
    assert level.seg.tolist() == [0, 4, 8, 12, 16]
    assert level.arrays()["lens"].tolist() == [3, 1, 4, 2]
    assert np.array_equal(t.to_dense(), PADDED)
    assert aux_words([t]) == 9
    scan = LevelScanner("j", {"tensor": "B", "mode": "1", "format": "ragged"})
    out = run_block(scan, {"ref": "0, 1, 2, 3, S0, D"}, {"B": t}, engine=engine)
    assert out["crd"] == "0, 1, 2, S0, 0, S0, 0, 1, 2, 3, S0, 0, 1, S1, D"
    assert out["ref"] == "0, 1, 2, S0, 4, S0, 8, 9, 10, 11, S0, 12, 13, S1, D"
    both = Tensor.from_ragged(ROWS, pad=2, spad=4)
    assert both.levels[1].seg.tolist() == [0, 4, 8, 12, 16]
    assert both.levels[1].arrays()["lens"].tolist() == [4, 2, 4, 2]
    same = Tensor.from_ragged(ROWS, pad=4, spad=4)  # loops fill the storage: seg only
    assert same.levels[1].arrays().keys() == {"seg"}


@pytest.mark.parametrize("pad,spad,words", [(4, 2, "multiple"), (0, 1, "positive"),
                                            (2, 3, "multiple")])
def test_invalid_padding_refused(pad, spad, words):
    with pytest.raises(FormatError) as err:
        Tensor.from_ragged(ROWS, pad=pad, spad=spad)
    assert words in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("engine", ENGINES)
def test_locate_is_offset(engine):
    t = Tensor.from_ragged(ROWS, spad=4)
    loc = Locator("j", {"tensor": "B", "mode": "1"})
    out = run_block(loc, {"crd": "0, 3, 1, 3, S0, D", "ref:parent": "2, 2, 3, 1, S0, D"},
                    {"B": t}, engine=engine)
    assert out["crd"] == "0, 3, 1, S0, D"  # coordinate 3 is outside fiber 1 (length 1)
    assert out["ref:out-B"] == "8, 11, 13, S0, D"


def test_shared_raggedness():
    a = Tensor.from_ragged(ROWS, pad=2)
    b = Tensor.from_ragged([[v * 10 for v in r] for r in ROWS], like=a)
    assert b.levels[1].raggedness is a.levels[1].raggedness
    assert aux_words([a, b]) == 5
    with pytest.raises(FormatError, match="share only equal"):
        Tensor.from_ragged([[1], [2], [3], [4]], like=a)


def test_fused_levels_roundtrip():
    t = Tensor.from_ragged(ROWS)
    f = fuse(t)
    assert f.shape == (10,) and f.vals.tolist() == t.vals.tolist()
    back = unfuse(f, t)
    assert np.array_equal(back.to_dense(), PADDED)


def test_from_padded_and_drd():
    mask = PADDED != 0
    t = Tensor.from_padded(PADDED, mask, name="P")
    assert t.levels[1].seg.tolist() == [0, 3, 4, 8, 10]
    seqs = [np.arange(6.0).reshape(3, 2), np.ones((1, 2)), np.zeros((0, 2))]
    u = Tensor.from_ragged(seqs, "drd")
    assert u.shape == (3, 3, 2)
    assert u.levels[1].seg.tolist() == [0, 3, 4, 4]
    assert [np.asarray(x).shape for x in u.to_ragged()] == [(3, 2), (1, 2), (0,)]
    dense = u.to_dense()
    assert np.array_equal(dense[0], seqs[0]) and np.array_equal(dense[1, :1], seqs[1])


def test_with_format_roundtrip_and_equality():
    t = Tensor.from_ragged(ROWS)
    assert t.with_format("ds").with_format("dr") == t
    assert np.array_equal(t.with_format("ss").to_dense(), PADDED)


def test_rag_file(tmp_path):
    path = tmp_path / "x.rag"
    path.write_text("# ragged\nlengths 3 1 4 2\n1 2 3\n4\n5 6 7 8\n9 10\n")
    t = load_tensor(path)
    assert t.levels[1].seg.tolist() == [0, 3, 4, 8, 10]
    assert np.array_equal(t.to_dense(), PADDED)
    save_tensor(t, tmp_path / "y.rag")
    assert load_tensor(tmp_path / "y.rag") == t
    bad = tmp_path / "bad.rag"
    bad.write_text("lengths 3 1\n1 2 3\n")
    with pytest.raises(ReadError, match="need 4 values"):
        load_tensor(bad)
    bad.write_text("lengths 3 x\n")
    with pytest.raises(ReadError, match=r"bad.rag:1: length 'x'"):
        load_tensor(bad)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=6), st.sampled_from([1, 2, 3]),
       st.sampled_from([1, 2]))
def test_hypothesis_padding_and_roundtrip(lengths, pad, k):
    rng = np.random.default_rng(sum(lengths))
    rows = [rng.integers(1, 9, n).astype(float).tolist() for n in lengths]
    t = Tensor.from_ragged(rows, pad=pad, spad=pad * k)
    rag = t.levels[1].raggedness
    assert rag.loop.tolist() == [-(-n // pad) * pad for n in lengths]
    assert np.diff(rag.seg).tolist() == [-(-n // (pad * k)) * pad * k for n in lengths]
    assert t.to_ragged() == rows
    dense, mask = t.to_padded()
    for b, row in enumerate(rows):
        assert dense[b, :len(row)].tolist() == row and not dense[b, len(row):].any()
        assert mask[b].sum() == rag.loop[b]
    assert Raggedness(lengths, pad, pad * k) == rag


def test_sam_sim_tensor_shows_ragged_arrays(tmp_path, capsys):
    from sam.cli import main

    path = tmp_path / "x.rag"
    path.write_text("lengths 3 1 4 2\n1 2 3 4 5 6 7 8 9 10\n")
    assert main(["tensor", str(path)]) == 0
    out = capsys.readouterr().out
    assert "ragged" in out and "seg = [0, 3, 4, 8, 10]" in out and "crd" not in out


@pytest.mark.parametrize("data,fmt,words", [
    ([[1, [2]]], None, "equally deep"),
    ([[1, 2], [3]], "dd", "store it ragged"),
    ([[1, 2], [3]], "drr", "nested 2 deep"),
    ([[1, 2], [3]], "ds", "dense (d) and ragged (r)"),
    (5, None, "nested) list"),
])
def test_bad_ragged_data_is_one_line(data, fmt, words):
    with pytest.raises(FormatError) as err:
        Tensor.from_ragged(data, fmt)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_shape_too_small_refused():
    with pytest.raises(FormatError, match="does not fit the mode size"):
        Tensor.from_ragged(ROWS, shape=(4, 3))
    assert Tensor.from_ragged(ROWS, shape=(4, 6)).shape == (4, 6)


def test_share_one_level_across_formats():
    rng = np.random.default_rng(0)
    seqs = [rng.random((n, 2)) for n in (3, 0, 2)]
    q = Tensor.from_ragged(seqs, "drd")
    rag = q.levels[1].raggedness
    scores = Tensor.from_ragged([np.ones((n, n)) for n in (3, 0, 2)], "drr", like={1: rag})
    assert scores.levels[1].raggedness is rag
    assert scores.levels[2].raggedness.lengths.tolist() == [3, 3, 3, 2, 2]
    assert aux_words([q, scores]) == 4 + 6
    same = Tensor.from_ragged([rng.random((n, 2)) for n in (3, 0, 2)], "drd", like=q)
    assert same.levels[1].raggedness is rag


def test_rag_file_width_padding_and_errors(tmp_path):
    path = tmp_path / "w.rag"
    path.write_text("lengths 2 0 1\nwidth 2\n1 2\n3 4\n# the empty sequence\n5 6\n")
    t = load_tensor(path, pad=2)
    assert t.format.levels == ("d", "r", "d") and t.shape == (3, 2, 2)
    assert t.levels[1].raggedness.loop.tolist() == [2, 0, 2]
    assert t.to_dense()[2].tolist() == [[5.0, 6.0], [0.0, 0.0]]
    save_tensor(t, tmp_path / "w2.rag")
    back = load_tensor(tmp_path / "w2.rag")
    assert np.array_equal(back.to_dense(), t.to_dense())
    path.write_text("lengths 1\n1.5\nx\n")
    with pytest.raises(ReadError, match="need 1 values"):
        load_tensor(path)
    path.write_text("lengths 2\n1.5\nx\n")
    with pytest.raises(ReadError, match=r"w.rag:3: value 'x' is not a number"):
        load_tensor(path)
    path.write_text("width 2\n")
    with pytest.raises(ReadError, match="first data line must be 'lengths"):
        load_tensor(path)
    with pytest.raises(ReadError, match="negative"):
        path.write_text("lengths -1\n")
        load_tensor(path)
