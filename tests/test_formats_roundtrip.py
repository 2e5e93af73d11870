"""Round trips dense <-> Tensor <-> scipy in every level format and mode ordering."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from formats import CompressedLevel, DenseLevel, Format, FormatError, Tensor
from formats.format import as_format


def all_formats(order: int) -> list[Format]:
    """Every level-format combination in every mode ordering."""
    return [
        Format(levels, perm)
        for levels in itertools.product("ds", repeat=order)
        for perm in itertools.permutations(range(order))
    ]


def arrays(order: int, max_side: int = 4):
    """Small dense arrays with many zeros (0-sized dimensions included)."""
    shapes = hnp.array_shapes(min_dims=order, max_dims=order, min_side=0, max_side=max_side)
    values = st.sampled_from([0.0, 0.0, 0.0, 1.0, -2.5, 3.0, 1e-300, 7e12])
    return shapes.flatmap(lambda s: hnp.arrays(np.float64, s, elements=values))


def check_levels(t: Tensor) -> None:
    """Structural invariants of the stored levels (SAM paper Sec. 3.1)."""
    n = 1
    for lvl, level in enumerate(t.levels):
        assert level.size == t.shape[t.format.mode_order[lvl]]
        if isinstance(level, CompressedLevel):
            assert len(level.seg) == n + 1 and level.seg[0] == 0
            assert np.all(np.diff(level.seg) >= 0) and level.seg[-1] == len(level.crd)
            for p in range(n):
                fiber = level.crd[level.seg[p]:level.seg[p + 1]]
                assert np.all(np.diff(fiber) > 0), "coordinates of a fiber are sorted, distinct"
                assert np.all((fiber >= 0) & (fiber < level.size))
        else:
            assert isinstance(level, DenseLevel)
        n = level.num_positions(n)
    assert len(t.vals) == n


def expected_nonzeros(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nonzero coordinates (row-major) and values, computed with plain numpy."""
    flat = arr.reshape(-1)
    vals = flat[flat != 0]
    if arr.ndim == 0:
        return np.zeros((len(vals), 0), dtype=np.int64), vals
    coords = np.argwhere(arr != 0)
    return coords, arr[tuple(coords.T)]


@pytest.mark.parametrize("order", [0, 1, 2, 3, 4])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_dense_round_trip_in_every_format(order: int, data: st.DataObject) -> None:
    arr = data.draw(arrays(order))
    want_coords, want_vals = expected_nonzeros(arr)
    for fmt in all_formats(order):
        t = Tensor.from_dense(arr, fmt)
        check_levels(t)
        assert t.format == fmt and t.shape == arr.shape
        np.testing.assert_array_equal(t.to_dense(), arr)
        assert t.nnz == np.count_nonzero(arr)
        coords, vals = t.to_coo(drop_zeros=True)
        order_ = np.lexsort(coords.T[::-1]) if order else np.arange(len(vals))
        np.testing.assert_array_equal(coords[order_], want_coords)
        np.testing.assert_array_equal(vals[order_], want_vals)
        if order and all(letter == "s" for letter in fmt.levels):
            assert len(t.vals) == np.count_nonzero(arr), "compressed levels store only nonzeros"
        if order == 2:
            np.testing.assert_array_equal(t.to_scipy().toarray(), arr)
            assert Tensor.from_scipy(sp.csr_matrix(arr), fmt) == t
            assert Tensor.from_scipy(sp.coo_array(arr), fmt) == t


@pytest.mark.parametrize("order", [1, 2, 3])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_with_format_equals_direct_construction(order: int, data: st.DataObject) -> None:
    arr = data.draw(arrays(order))
    formats = all_formats(order)
    src = data.draw(st.sampled_from(formats))
    start = Tensor.from_dense(arr, src)
    for fmt in formats:
        converted = start.with_format(fmt)
        assert converted == Tensor.from_dense(arr, fmt)
        np.testing.assert_array_equal(converted.to_dense(), arr)
        assert converted.with_format(src) == start


@settings(max_examples=60, deadline=None)
@given(
    order=st.integers(1, 4),
    data=st.data(),
)
def test_coo_keeps_explicit_zeros_and_sums_duplicates(order: int, data: st.DataObject) -> None:
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=order, max_size=order)))
    n = data.draw(st.integers(0, 12))
    coords = np.array(
        [[data.draw(st.integers(0, s - 1)) for s in shape] for _ in range(n)], dtype=np.int64
    ).reshape(n, order)
    vals = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, -3.0]), min_size=n,
                                       max_size=n)))
    want = np.zeros(shape)
    np.add.at(want, tuple(coords.T), vals)
    distinct = {tuple(c) for c in coords.tolist()}
    for fmt in all_formats(order):
        t = Tensor.from_coo(coords, vals, shape, fmt)
        check_levels(t)
        np.testing.assert_array_equal(t.to_dense(), want)
        if all(letter == "s" for letter in fmt.levels):
            # every distinct coordinate is stored, zero-valued or not, with the summed value
            got_coords, got_vals = t.to_coo()
            assert {tuple(c) for c in got_coords.tolist()} == distinct
            for c, v in zip(got_coords.tolist(), got_vals.tolist(), strict=True):
                assert v == want[tuple(c)]
        if len(distinct) < n:
            with pytest.raises(FormatError, match="duplicate"):
                Tensor.from_coo(coords, vals, shape, fmt, sum_duplicates=False)


def test_scipy_explicit_zeros_and_duplicates() -> None:
    m = sp.coo_matrix(([0.0, 2.0, 3.0, 4.0], ([0, 1, 1, 2], [0, 2, 2, 1])), shape=(3, 3))
    t = Tensor.from_scipy(m, "ss")
    assert t.levels[0].crd.tolist() == [0, 1, 2]
    assert t.levels[1].seg.tolist() == [0, 1, 2, 3]
    assert t.levels[1].crd.tolist() == [0, 2, 1]
    assert t.vals.tolist() == [0.0, 5.0, 4.0]
    assert t.nnz == 2
    assert t.to_scipy().nnz == 3  # the stored zero survives the trip back


def test_empty_fibers_in_every_format() -> None:
    arr = np.zeros((3, 0, 2))
    for fmt in all_formats(3):
        t = Tensor.from_dense(arr, fmt)
        check_levels(t)
        assert t.to_dense().shape == (3, 0, 2) and len(t.vals) == 0
    rows_with_gaps = np.array([[0.0, 0.0], [0.0, 5.0], [0.0, 0.0]])
    t = Tensor.from_dense(rows_with_gaps, "ds")
    assert t.levels[1].seg.tolist() == [0, 0, 1, 1]  # rows 0 and 2 are empty fibers
    assert t.levels[1].crd.tolist() == [1]
    t = Tensor.from_dense(np.zeros((2, 3)), "ss")
    assert t.levels[0].seg.tolist() == [0, 0] and t.levels[0].crd.tolist() == []
    assert t.levels[1].seg.tolist() == [0] and t.vals.tolist() == []
    t = Tensor.from_dense(np.zeros((2, 3)), "dd")
    assert t.vals.tolist() == [0.0] * 6 and t.nnz == 0


def test_scalar() -> None:
    t = Tensor.scalar(4.5)
    assert t.order == 0 and t.shape == () and t.vals.tolist() == [4.5]
    assert float(t.to_dense()) == 4.5
    assert Tensor.from_dense(np.float64(4.5)) == t
    assert Tensor.from_dense(0.0).vals.tolist() == [0.0]
    assert Tensor.from_coo(np.zeros((2, 0)), [1.0, 2.0], ()).vals.tolist() == [3.0]


def test_sam_paper_figure_1_dcsr() -> None:
    """SAM paper Figure 1c: the example matrix stored compressed-compressed (DCSR)."""
    b = np.array([[0, 1, 0, 0], [2, 0, 3, 0], [0, 0, 0, 0], [0, 4, 0, 5]], dtype=float)
    t = Tensor.from_dense(b, "ss01")
    i, j = t.levels
    assert i.seg.tolist() == [0, 3] and i.crd.tolist() == [0, 1, 3]
    assert j.seg.tolist() == [0, 1, 3, 5] and j.crd.tolist() == [1, 0, 2, 1, 3]
    assert t.vals.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    # the same matrix as DCSC (mode order 1, 0) and as CSR
    dcsc = Tensor.from_dense(b, "ss:1,0")
    assert dcsc.levels[0].crd.tolist() == [0, 1, 2, 3]
    assert dcsc.levels[1].seg.tolist() == [0, 1, 3, 4, 5]
    assert dcsc.levels[1].crd.tolist() == [1, 0, 3, 1, 3]
    assert dcsc.vals.tolist() == [2.0, 1.0, 4.0, 3.0, 5.0]
    csr = Tensor.from_dense(b, "ds")
    assert csr.levels[1].seg.tolist() == [0, 1, 3, 3, 5]


# ------------------------------------------------------------------ format strings
formats_strategy = st.integers(0, 6).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from("ds"), min_size=n, max_size=n).map(tuple),
        st.permutations(list(range(n))).map(tuple),
    )
)


@given(formats_strategy)
def test_format_spellings_round_trip(spec: tuple[tuple[str, ...], tuple[int, ...]]) -> None:
    levels, order = spec
    fmt = Format(levels, order)
    assert Format.parse(str(fmt)) == fmt
    assert Format.parse(fmt.taco()) == fmt
    assert Format.parse("".join(levels) or "none") == Format(levels, tuple(range(len(levels))))
    assert as_format(str(fmt), len(levels)) == fmt


def test_format_spellings() -> None:
    assert Format.parse("ss01") == Format(("s", "s"), (0, 1))
    assert Format.parse("ss10") == Format.parse("ss:1,0") == Format(("s", "s"), (1, 0))
    assert Format.parse("ds") == Format(("d", "s"), (0, 1))
    assert Format.parse("none") == Format.parse("") == Format((), ())
    assert str(Format.parse("dss:2,0,1")) == "dss201"
    assert Format.parse("dss201").taco() == "dss:2,0,1"
    assert as_format(None, 3) == Format(("s",) * 3, (0, 1, 2))


@pytest.mark.parametrize(
    "text",
    ["sx", "SS", "ss2", "ss00", "ss012", "ss:0,0", "ss:0", "ss:a,b", "s s", "123",
     "ss:1,010", "d1", "ss:", "dense"],
)
def test_bad_format_strings(text: str) -> None:
    try:
        fmt = Format.parse(text)
    except FormatError as err:
        assert text.strip() in str(err) or "mode order" in str(err) or "level" in str(err)
        return
    pytest.fail(f"{text!r} parsed as {fmt}")


def test_format_order_mismatch() -> None:
    with pytest.raises(FormatError, match="order-3"):
        as_format("sss", 2)
    with pytest.raises(FormatError, match="order-2"):
        Tensor.from_dense(np.zeros(3), "ss")
