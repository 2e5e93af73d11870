"""Readers and writers on the shipped data, round trips, and ``load_tensor`` dispatch."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats import Format, ReadError, Tensor, ToolkitError, data
from formats.frostt import read_tns, write_tns
from formats.io import load_tensor, save_tensor
from formats.mtx import read_mtx, write_mtx

TMP = settings(max_examples=40, deadline=None,
               suppress_health_check=[HealthCheck.function_scoped_fixture])


def sorted_points(coords: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order = np.lexsort(coords.T[::-1]) if coords.shape[1] else np.arange(len(vals))
    return coords[order], vals[order]


def assert_same_points(tensor: Tensor, coords: np.ndarray, vals: np.ndarray) -> None:
    got_c, got_v = sorted_points(*tensor.to_coo())
    want_c, want_v = sorted_points(np.asarray(coords, dtype=np.int64), np.asarray(vals, float))
    np.testing.assert_array_equal(got_c, want_c)
    np.testing.assert_array_equal(got_v, want_v)


# ------------------------------------------------------------------ shipped data
def test_shipped_names() -> None:
    mtx, tns = data.names("suitesparse"), data.names("frostt")
    assert len(mtx) == 20 and len(tns) == 8
    assert "west0479" in mtx and "splatt-small" in tns
    assert data.names() == sorted(mtx + tns)
    assert data.path("west0479").name == "west0479.mtx"
    assert data.path("west0479.mtx") == data.path("west0479")
    assert data.zero_based("sttid-Rnd2-zerobased") and not data.zero_based("splatt-small")
    with pytest.raises(ToolkitError, match="kind"):
        data.names("nope")
    total = sum(data.path(n).stat().st_size for n in data.names())
    assert total < 7 * 2**20


@pytest.mark.parametrize("name", data.names("suitesparse"))
def test_shipped_mtx_equals_scipy(name: str) -> None:
    path = data.path(name)
    t = read_mtx(path, "ss01")
    ref = scipy.io.mmread(path).tocoo()
    assert t.shape == ref.shape and t.name == name
    # same pattern (explicit zeros included) and the same values
    assert_same_points(t, np.stack([ref.row, ref.col], axis=1), ref.data)
    assert (t.to_scipy() != ref.tocsr()).nnz == 0
    # and in CSR (dense rows) the nonzeros agree too
    np.testing.assert_array_equal(read_mtx(path, "ds").to_scipy().toarray(), ref.toarray())


def simple_tns(path, zero_based: bool) -> tuple[np.ndarray, np.ndarray]:
    """An independent, line-by-line .tns parse for comparison."""
    coords, vals = [], []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            *c, v = line.split()
            coords.append([int(x) - (0 if zero_based else 1) for x in c])
            vals.append(float(v))
    return np.array(coords, dtype=np.int64), np.array(vals)


@pytest.mark.parametrize("name", data.names("frostt"))
def test_shipped_tns_points(name: str) -> None:
    zero = data.zero_based(name)
    coords, vals = simple_tns(data.path(name), zero)
    t = read_tns(data.path(name), zero_based=zero)
    assert t.shape == tuple(coords.max(axis=0) + 1)
    assert t.nnz == len(vals)
    assert_same_points(t, coords, vals)
    assert load_tensor(name) == t  # load by name picks the 0-based flag itself


def test_splatt_small_exactly() -> None:
    t = load_tensor("splatt-small", "sss")
    assert t.shape == (2, 3, 2)
    assert t.levels[0].crd.tolist() == [0, 1]
    assert t.levels[1].seg.tolist() == [0, 3, 6]
    assert t.levels[1].crd.tolist() == [0, 1, 2, 0, 1, 2]
    assert t.levels[2].seg.tolist() == [0, 1, 2, 3, 4, 5, 6]
    assert t.levels[2].crd.tolist() == [1, 0, 0, 0, 1, 0]
    assert t.vals.tolist() == [3.0, 1.0, 2.0, 4.0, 6.0, 5.0]


def test_zero_index_file() -> None:
    path = data.path("splatt-small4_zeroidx")
    with pytest.raises(ReadError, match=r"zeroidx\.tns:2: mode-3 coordinate 0 .*zero_based=True"):
        read_tns(path)
    t = read_tns(path, zero_based=True)
    coords, vals = simple_tns(path, True)
    assert_same_points(t, coords, vals)
    assert t.shape == (3, 3, 4, 3)
    assert load_tensor("splatt-small4_zeroidx") == t  # by name: read 0-based, as SPLATT does


# ------------------------------------------------------------------ round trips
matrices = st.tuples(st.integers(0, 6), st.integers(0, 6)).flatmap(
    lambda s: st.tuples(
        st.just(s),
        st.lists(
            st.tuples(st.integers(0, max(s[0] - 1, 0)), st.integers(0, max(s[1] - 1, 0)),
                      st.floats(allow_nan=False, width=64)),
            max_size=0 if 0 in s else 12, unique_by=lambda e: e[:2],
        ),
    )
)


@TMP
@given(matrices, st.sampled_from(["ss01", "ss10", "ds", "sd10"]))
def test_mtx_write_read_round_trip(tmp_path, spec, fmt) -> None:
    shape, entries = spec
    coords = np.array([e[:2] for e in entries], dtype=np.int64).reshape(-1, 2)
    vals = np.array([e[2] for e in entries], dtype=float)
    t = Tensor.from_coo(coords, vals, shape, "ss")  # explicit zeros are kept
    path = tmp_path / "m.mtx"
    write_mtx(t if "d" in fmt else t.with_format(fmt), path)
    back = read_mtx(path, fmt)
    assert back.shape == shape and back.format == Format.parse(fmt)
    if "d" in fmt:  # dense levels do not keep explicit zeros apart
        np.testing.assert_array_equal(back.to_dense(), t.to_dense())
    else:
        assert_same_points(back, coords, vals)
    ref = scipy.io.mmread(path)
    assert (sp.csr_matrix(ref) != back.to_scipy()).nnz == 0


@TMP
@given(
    st.integers(0, 4).flatmap(
        lambda order: st.tuples(
            st.lists(st.integers(1, 4), min_size=order, max_size=order).map(tuple),
            st.lists(st.tuples(st.lists(st.integers(0, 3), min_size=order, max_size=order),
                               st.floats(allow_nan=False)), max_size=10),
        )
    ),
    st.booleans(),
)
def test_tns_write_read_round_trip(tmp_path, spec, zero_based) -> None:
    shape, entries = spec
    order = len(shape)
    points = {tuple(min(c, s - 1) for c, s in zip(p, shape, strict=True)): v for p, v in entries}
    if order == 0:
        points = dict(list(points.items())[:1])
    coords = np.array(list(points), dtype=np.int64).reshape(len(points), order)
    vals = np.array(list(points.values()), dtype=float)
    t = Tensor.from_coo(coords, vals, shape)
    path = tmp_path / "t.tns"
    write_tns(t, path, zero_based=zero_based)
    if order and not len(vals):
        with pytest.raises(ReadError, match="shape"):
            read_tns(path, zero_based=zero_based)
    back = read_tns(path, shape=shape, zero_based=zero_based)
    assert back == t
    if len(vals) and order:
        inferred = read_tns(path, zero_based=zero_based)
        assert inferred.shape == tuple(coords.max(axis=0) + 1)
        assert_same_points(inferred, coords, vals)


@pytest.mark.parametrize("suffix", [".mtx", ".tns", ".npy", ".npz"])
def test_save_and_load_by_extension(tmp_path, suffix) -> None:
    t = load_tensor("bcsstm02", "ds")
    path = tmp_path / f"x{suffix}"
    save_tensor(t, path)
    back = load_tensor(path, "ds")
    np.testing.assert_array_equal(back.to_dense(), t.to_dense())
    assert back == t and back.name == "x"


def test_save_and_load_order_3_npy_and_tns(tmp_path) -> None:
    t = load_tensor("splatt-small")
    for suffix in (".npy", ".tns"):
        save_tensor(t, tmp_path / f"y{suffix}")
        assert load_tensor(tmp_path / f"y{suffix}") == t
    with pytest.raises(ToolkitError, match="order-2"):
        save_tensor(t, tmp_path / "y.npz")
    with pytest.raises(ToolkitError, match="matrices"):
        save_tensor(t, tmp_path / "y.mtx")
    with pytest.raises(ToolkitError, match="unknown file type"):
        save_tensor(t, tmp_path / "y.csv")


def test_load_tensor_errors(tmp_path) -> None:
    with pytest.raises(ToolkitError, match="unknown tensor 'west047'.*west0479"):
        load_tensor("west047")
    with pytest.raises(ToolkitError, match="shipped names include west0479"):
        load_tensor("no-such-data")
    missing = tmp_path / "missing.mtx"
    with pytest.raises(ReadError, match=f"^{missing}: no such file$"):
        load_tensor(missing)
    with pytest.raises(ReadError, match="is a directory"):
        load_tensor(tmp_path)
    (tmp_path / "a.csv").write_text("1,2\n")
    with pytest.raises(ReadError, match=r"a\.csv: unknown file type '\.csv'"):
        load_tensor(tmp_path / "a.csv")
    np.savez(tmp_path / "plain.npz", a=np.zeros(3))
    with pytest.raises(ReadError, match="save_npz"):
        load_tensor(tmp_path / "plain.npz")
    (tmp_path / "bad.npy").write_bytes(b"not numpy")
    with pytest.raises(ReadError, match=r"bad\.npy: not a readable \.npy"):
        load_tensor(tmp_path / "bad.npy")
    np.save(tmp_path / "c.npy", np.ones(2, dtype=complex))
    with pytest.raises(ReadError, match="complex values are not supported"):
        load_tensor(tmp_path / "c.npy")
    np.save(tmp_path / "s.npy", np.array(["a"]))
    with pytest.raises(ReadError, match="needs numbers"):
        load_tensor(tmp_path / "s.npy")


def test_load_options_pass_through(tmp_path) -> None:
    t = load_tensor("splatt-small", shape=(3, 3, 3), name="x")
    assert t.shape == (3, 3, 3) and t.name == "x"
    path = tmp_path / "d.tns"
    path.write_text("1 1 2.0\n1 1 3.0\n")
    with pytest.raises(ReadError, match=r"d\.tns:2: coordinates 1 1 repeat line 1"):
        load_tensor(path)
    assert load_tensor(path, sum_duplicates=True).vals.tolist() == [5.0]
    np.save(tmp_path / "v.npy", np.arange(3.0))
    with pytest.raises(ToolkitError, match="no option zero_based"):
        load_tensor(tmp_path / "v.npy", zero_based=True)
