"""The bitvector level format (SAM paper Sec. 4.3, Figure 6): ``formats.bitvector``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from formats import Format, FormatError, Tensor
from formats.bitvector import BitvectorLevel, bitvector_level, format_word
from formats.io import load_tensor, save_tensor
from formats.levels import level_type


def figure6() -> Tensor:
    return Tensor.from_coo([[0], [2], [6], [8], [9]], [1.0, 2, 3, 4, 5], [10], "b4")


def test_figure_6_words_and_references() -> None:
    level = figure6().levels[0]
    assert level.show_words() == ["0101", "0100", "0011"]
    assert level.ranks[:3].tolist() == [0, 2, 3]  # running popcounts: the scanner's references
    assert level.words_per_fiber == 3 and level.num_positions(1) == 5
    owner, crd, pos = level.expand(np.array([0]))
    assert crd.tolist() == [0, 2, 6, 8, 9] and pos.tolist() == [0, 1, 2, 3, 4]


def test_width_spellings() -> None:
    assert level_type("b") is BitvectorLevel and BitvectorLevel.width == 64
    assert level_type("b64") is BitvectorLevel
    assert level_type("b4") is bitvector_level(4) and level_type("b4").width == 4
    assert Format.parse("b64") == Format.parse("b") == Format(("b",), (0,))
    assert Format.parse("b4s01") == Format(("b4", "s"), (0, 1))
    assert Format.parse("bb10") == Format(("b", "b"), (1, 0))
    for text in ("b4s01", "b4:0", "b4b4", "b7s:1,0", "sb10"):
        fmt = Format.parse(text)
        assert Format.parse(str(fmt)) == fmt and Format.parse(fmt.taco()) == fmt
    with pytest.raises(FormatError, match="outside 1..64"):
        Format.parse("b65s")
    with pytest.raises(FormatError, match="outside 1..64"):
        Format.parse("b0:0")


def test_bit_63_and_wide_words() -> None:
    t = Tensor.from_coo([[0], [63], [64], [127]], [1.0, 2, 3, 4], [128], "b")
    level = t.levels[0]
    assert level.words.tolist() == [-(2 ** 63) + 1, -(2 ** 63) + 1]
    assert level.show_words()[0] == "1" + "0" * 62 + "1"
    assert level.ranks.tolist() == [0, 2, 4]
    np.testing.assert_array_equal(t.to_dense(), [1] + [0] * 62 + [2, 3] + [0] * 62 + [4])


def test_bad_words_refused() -> None:
    with pytest.raises(FormatError, match="words per fiber"):
        bitvector_level(4)(10, np.zeros(4, np.int64))
    with pytest.raises(FormatError, match="past coordinate 9"):
        bitvector_level(4)(10, np.array([0, 0, 0b100], np.int64))


def small_formats(order: int) -> list[str]:
    letters = ["d", "s", "b", "b3", "b1"]
    out = []
    for combo in itertools.product(letters, repeat=order):
        for perm in itertools.permutations(range(order)):
            if any(x.startswith("b") for x in combo):
                out.append("".join(combo) + ":" + ",".join(map(str, perm)))
    return out


@pytest.mark.parametrize("order", [1, 2, 3])
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_conversions_to_and_from_every_format(order: int, data: st.DataObject) -> None:
    shape = tuple(data.draw(st.lists(st.integers(0, 9), min_size=order, max_size=order)))
    arr = np.asarray(data.draw(st.lists(st.sampled_from([0.0, 0.0, 0.0, 1.5, -2.0]),
                                        min_size=int(np.prod(shape)),
                                        max_size=int(np.prod(shape)))), float).reshape(shape)
    fmts = small_formats(order)
    chosen = data.draw(st.lists(st.sampled_from(fmts), min_size=1, max_size=4))
    others = ["s" * order, "d" * order, "u" + "q" * (order - 1)]
    for fmt in chosen:
        t = Tensor.from_dense(arr, fmt)
        np.testing.assert_array_equal(t.to_dense(), arr)
        assert t.nnz == np.count_nonzero(arr)
        for other in others:
            there = t.with_format(other)
            np.testing.assert_array_equal(there.to_dense(), arr)
            assert there.with_format(fmt) == t
        if order == 2:
            np.testing.assert_array_equal(t.to_scipy().toarray(), arr)


def test_matrix_market_in_and_out(tmp_path) -> None:
    a = sp.random(40, 130, density=0.07, random_state=3, format="csr")
    for fmt in ("bb", "b4s", "sb64", "db:1,0"):
        t = Tensor.from_scipy(a, fmt)
        path = tmp_path / f"m{fmt.replace(':', '_').replace(',', '')}.mtx"
        save_tensor(t, path)
        back = load_tensor(path, fmt)
        assert back.format == t.format
        np.testing.assert_array_equal(back.to_dense(), a.toarray())


def test_real_matrix_in_bitvector_levels() -> None:
    b = load_tensor("west0479", "ds")
    want = b.to_dense()
    for fmt in ("db", "bb", "sb4"):
        t = b.with_format(fmt)
        np.testing.assert_array_equal(t.to_dense(), want)
        assert t.nnz == b.nnz


def test_describe_shows_words() -> None:
    text = figure6().describe()
    assert "bitvector" in text and "[0101, 0100, 0011]" in text
    assert format_word(5, 4) == "0101"
