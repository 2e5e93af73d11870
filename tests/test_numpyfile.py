"""``.npy`` and ``.npz`` inputs are checked like text files: every bad file is one ReadError
line naming the file, the problem and a hint; valid files read exactly what scipy reads."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import formats.memory
from formats.errors import ReadError
from formats.io import load_tensor

RESAVE = "re-save a valid matrix with scipy.sparse.save_npz"
DENSE = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]])


def npz(path: Path, **entries: object) -> Path:
    """An .npz archive with these entries (as scipy.sparse.save_npz would lay them out)."""
    np.savez(path, **{k: np.asarray(v) for k, v in entries.items()})
    return path


def csr(path: Path, **changes: object) -> Path:
    """The CSR file of DENSE with some entries replaced."""
    m = sp.csr_matrix(DENSE)
    entries = {"format": np.array(b"csr"), "shape": np.array(m.shape), "data": m.data,
               "indices": m.indices, "indptr": m.indptr}
    entries.update(changes)
    return npz(path, **{k: v for k, v in entries.items() if v is not None})


def refused(path: Path, message: str, fmt: str | None = None) -> None:
    with pytest.raises(ReadError, match="^" + re.escape(f"{path}: {message}")) as err:
        load_tensor(path, fmt)
    assert "\n" not in str(err.value)


# --------------------------------------------------------------------------- valid files
@pytest.mark.parametrize("kind", ["csr", "csc", "coo", "bsr", "dia"])
@pytest.mark.parametrize("array_api", [False, True])
def test_scipy_files_read_as_scipy_reads_them(tmp_path: Path, kind: str,
                                             array_api: bool) -> None:
    rng = np.random.default_rng(1)
    dense = rng.integers(-3, 4, (6, 8)).astype(float) * (rng.random((6, 8)) < 0.5)
    dense[0, 0], dense[5, 7] = np.nan, -np.inf  # non-finite values are data, as in text files
    make = getattr(sp, f"{kind}_array" if array_api else f"{kind}_matrix")
    matrix = make(dense) if kind != "bsr" else make(dense, blocksize=(2, 4))
    sp.save_npz(tmp_path / "m.npz", matrix)
    t = load_tensor(tmp_path / "m.npz", "ds")
    expected = sp.load_npz(tmp_path / "m.npz").toarray()
    np.testing.assert_array_equal(t.to_dense(), expected)
    assert t.name == "m" and t.shape == (6, 8)


def test_unsorted_and_repeated_entries_are_added_as_scipy_does(tmp_path: Path) -> None:
    path = csr(tmp_path / "m.npz", data=np.array([1.0, 2.0, 5.0, 3.0]),
               indices=np.array([2, 0, 2, 2]), indptr=np.array([0, 3, 4]))
    np.testing.assert_array_equal(load_tensor(path).to_dense(), [[2.0, 0.0, 6.0],
                                                                 [0.0, 0.0, 3.0]])
    np.testing.assert_array_equal(load_tensor(path).to_dense(), sp.load_npz(path).toarray())


def test_coo_of_any_order(tmp_path: Path) -> None:
    dense = np.zeros((2, 3, 4))
    dense[1, 2, 3], dense[0, 1, 0] = 5.0, -1.0
    sp.save_npz(tmp_path / "t.npz", sp.coo_array(dense))
    t = load_tensor(tmp_path / "t.npz")
    assert t.shape == (2, 3, 4)
    np.testing.assert_array_equal(t.to_dense(), dense)


def test_npy_values(tmp_path: Path) -> None:
    np.save(tmp_path / "b.npy", np.array([[True, False], [False, True]]))
    np.testing.assert_array_equal(load_tensor(tmp_path / "b.npy").to_dense(), np.eye(2))
    np.save(tmp_path / "n.npy", np.array([np.nan, 0.0, np.inf]))
    vals = load_tensor(tmp_path / "n.npy").to_dense()
    assert np.isnan(vals[0]) and vals[1] == 0 and vals[2] == np.inf
    np.save(tmp_path / "s.npy", np.float64(2.5))
    assert load_tensor(tmp_path / "s.npy").vals.tolist() == [2.5]


def test_npy_array_keeps_its_dtype_and_is_checked_like_a_tensor(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    from formats.numpyfile import read_npy_array

    np.save(tmp_path / "i.npy", np.array([0, 2, 3], dtype=np.int32))
    arr = read_npy_array(tmp_path / "i.npy")
    assert arr.dtype == np.int32 and arr.tolist() == [0, 2, 3]
    np.save(tmp_path / "c.npy", np.array([1j]))
    with pytest.raises(ReadError, match="complex values are not supported"):
        read_npy_array(tmp_path / "c.npy")
    monkeypatch.setattr(formats.memory, "SMALL", 0)
    monkeypatch.setattr(formats.memory, "available_bytes", lambda: 10)
    with pytest.raises(ReadError, match="reading its 3 array needs about 12 bytes, more than "
                                        "the 10 bytes"):
        read_npy_array(tmp_path / "i.npy")


# --------------------------------------------------------------------------- bad .npz files
@pytest.mark.parametrize("changes, message", [
    ({"indptr": np.array([0, 5, 2])},
     f"'indptr' decreases from 5 to 2 at row 1; it must never decrease; {RESAVE}"),
    ({"indices": np.array([0, 7, 2])},
     f"column index 7 (entry 1, in row 0) is outside 0..2 of the shape 2x3; {RESAVE}"),
    ({"indices": np.array([0, 2, -1])},
     "column index -1 (entry 2, in row 1) is outside 0..2"),
    ({"indptr": np.array([1, 2, 3])}, "'indptr' starts at 1, not 0"),
    ({"indptr": np.array([0, 2])},
     f"'indptr' has 2 entries; a csr matrix with 2 rows needs 3; {RESAVE}"),
    ({"indptr": np.array([0, 2, 4])}, "'indptr' ends at 4 but there are 3 indices"),
    ({"data": np.array([1.0, 2.0])},
     f"the entries have different lengths (3 indices, 2 values); they go together one per "
     f"stored value; {RESAVE}"),
    ({"shape": np.array([2, -3])}, f"the shape (2, -3) has a negative size; {RESAVE}"),
    ({"shape": np.array([2.0, np.nan])},
     f"entry 'shape' holds float64 values; sizes and indices are integers; {RESAVE}"),
    ({"shape": np.array([2, 3, 1])}, "the shape (2, 3, 1) has 3 sizes; this csr matrix has 2"),
    ({"shape": np.array([99999999999, 3])},
     "'indptr' has 3 entries; a csr matrix with 99,999,999,999 rows needs 100,000,000,000"),
    ({"shape": np.array([2**64 - 1, 3], dtype=np.uint64)},
     "entry 'shape' holds 18446744073709551615, beyond 64-bit indices"),
    ({"indices": np.array([0.0, 2.0, 2.0])}, "entry 'indices' holds float64 values"),
    ({"indices": np.array([[0, 2, 2]])},
     f"entry 'indices' has shape (1, 3); a csr matrix's 'indices' has 1 dimension; {RESAVE}"),
    ({"indices": None}, f"a csr matrix needs an entry 'indices' and the file has none; {RESAVE}"),
    ({"data": np.array([1j, 2, 3])},
     "complex values are not supported (tensors hold real numbers)"),
    ({"data": np.array(["a", "b", "c"])},
     "entry 'data' holds <U1 values; a tensor needs numbers (booleans, integers or reals)"),
    ({"format": np.array("lil")},
     "the 'format' entry is 'lil'; scipy.sparse.save_npz writes one of csr, csc, coo, bsr, dia"),
    ({"format": np.array([1, 2])}, "the 'format' entry is a int64 array"),
])
def test_bad_csr(tmp_path: Path, changes: dict, message: str) -> None:
    refused(csr(tmp_path / "bad.npz", **changes), message)


def test_csc_messages_name_columns(tmp_path: Path) -> None:
    m = sp.csc_matrix(DENSE)
    path = npz(tmp_path / "c.npz", format="csc", shape=m.shape, data=m.data,
               indices=np.array([0, 1, 5]), indptr=m.indptr)
    refused(path, "row index 5 (entry 2, in column 2) is outside 0..1 of the shape 2x3")


def test_bad_coo(tmp_path: Path) -> None:
    base = {"format": "coo", "shape": (2, 3), "data": [1.0, 2.0], "row": [0, 1], "col": [2, 0]}
    refused(npz(tmp_path / "a.npz", **{**base, "row": [0, 2]}),
            f"row index 2 (entry 1) is outside 0..1 of the shape 2x3; {RESAVE}")
    refused(npz(tmp_path / "b.npz", **{**base, "col": [0]}),
            "the entries have different lengths (2 rows, 1 columns, 2 values)")
    coords = {"format": "coo", "shape": (2, 3, 4), "data": [1.0], "coords": [[1], [1], [4]]}
    refused(npz(tmp_path / "c.npz", **coords), "mode-2 index 4 (entry 0) is outside 0..3")


def test_bad_bsr_and_dia(tmp_path: Path) -> None:
    refused(npz(tmp_path / "b.npz", format="bsr", shape=(3, 4), data=np.ones((1, 2, 2)),
                indices=[0], indptr=[0, 1]), "blocks of 2x2 do not tile the shape 3x4")
    refused(npz(tmp_path / "c.npz", format="bsr", shape=(4, 4), data=np.ones((1, 2, 2)),
                indices=[2], indptr=[0, 1, 1]),
            "block column index 2 (entry 0, in block row 0) is outside 0..1")
    refused(npz(tmp_path / "d.npz", format="dia", shape=(3, 3), data=np.ones((2, 3)),
                offsets=[1, 1]), "'offsets' repeats a diagonal")
    refused(npz(tmp_path / "e.npz", format="dia", shape=(3, 3), data=np.ones((2, 3)),
                offsets=[0]), "the entries have different lengths (1 offsets, 2 rows of 'data')")


def test_pickles_are_never_loaded(tmp_path: Path) -> None:
    path = tmp_path / "o.npz"
    np.savez(path, format=np.array("csr"), shape=np.array([1, 1]),
             data=np.array([{"x": 1}], dtype=object), indices=[0], indptr=[0, 1])
    refused(path, "entry 'data' holds Python objects, which are never loaded (they could run "
                  "code)")
    np.save(tmp_path / "o.npy", np.array([{"x": 1}], dtype=object), allow_pickle=True)
    refused(tmp_path / "o.npy", "holds Python objects, which are never loaded")
    (tmp_path / "p.npy").write_bytes(pickle.dumps([1.0, 2.0]))
    refused(tmp_path / "p.npy", "not a readable .npy array")
    (tmp_path / "p.npz").write_bytes(pickle.dumps([1.0, 2.0]))
    refused(tmp_path / "p.npz", "not a scipy.sparse .npz (save it with scipy.sparse.save_npz)")


def test_damaged_and_odd_archives(tmp_path: Path) -> None:
    sp.save_npz(tmp_path / "m.npz", sp.csr_matrix(np.ones((50, 50))), compressed=True)
    data = (tmp_path / "m.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(data[: len(data) // 2])
    refused(tmp_path / "cut.npz", "not a scipy.sparse .npz")
    np.save(tmp_path / "one.npy", np.ones(3))
    (tmp_path / "one.npz").write_bytes((tmp_path / "one.npy").read_bytes())
    refused(tmp_path / "one.npz", "holds one array (.npy content), not a scipy.sparse matrix")


# --------------------------------------------------------------------------- sizes
def test_truncated_npy_is_refused_before_allocating(tmp_path: Path) -> None:
    path = tmp_path / "big.npy"
    with open(path, "wb") as out:
        np.lib.format.write_array_header_1_0(
            out, {"descr": "<f8", "fortran_order": False, "shape": (999_999_999, 1)})
        out.write(bytes(872))
    refused(path, "declares a 999999999x1 float64 array (7,999,999,992 bytes) but holds 872 "
                  "bytes of data: the file is cut short")


def test_arrays_larger_than_memory_are_refused(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(formats.memory, "SMALL", 0)
    monkeypatch.setattr(formats.memory, "available_bytes", lambda: 1000)
    sp.save_npz(tmp_path / "m.npz", sp.csr_matrix(np.ones((30, 30))))  # 7 kB uncompressed
    refused(tmp_path / "m.npz", "reading its arrays needs about 2")
    np.save(tmp_path / "d.npy", np.ones((30, 30)))
    refused(tmp_path / "d.npy", "reading its 30x30 array needs about 15.3 kB, more than the "
                                "1 kB of memory available")


def test_declared_shape_too_large_for_the_format(tmp_path: Path) -> None:
    """A valid COO file of a huge, nearly empty matrix reads compressed; dense levels would
    hold every coordinate and are refused before allocating."""
    path = npz(tmp_path / "h.npz", format="coo", shape=(10**7, 10**7), data=[1.0], row=[5],
               col=[9])
    assert load_tensor(path, "ss").vals.tolist() == [1.0]
    refused(path, "storing a 10000000x10000000 tensor with 1 point as dd01 needs about 800 TB",
            "dd")
