"""Reading ``.npy`` (one dense array) and ``.npz`` (a scipy.sparse matrix) files, checked as
strictly as the text readers.

Nothing a binary file says is trusted: every problem is one :class:`~formats.errors.ReadError`
line naming the file, the problem and what to do, never a numpy or scipy exception and never a
silently different matrix (scipy reads a CSR ``indptr`` of ``[0, 5, 2]`` without complaint).

Decisions (tested in ``tests/test_numpyfile.py``):

* Pickled Python objects are never loaded; an object array is refused by name.
* Values may be booleans, integers or reals, NaN and inf included (as in text files); complex
  values are refused as in ``.mtx`` files, and text, dates and records as not numbers.
* A ``.npz`` file holds what ``scipy.sparse.save_npz`` writes: a ``format`` entry (``csr``,
  ``csc``, ``coo``, ``bsr`` or ``dia``), a ``shape`` and the arrays of that format; other
  entries (scipy's ``_is_array``) are ignored. A ``coo`` file with ``coords`` may have any order.
* ``shape``: integers, none negative, as many as the format has modes.
* CSR and CSC (and BSR, over blocks): ``indptr`` has one entry more than there are rows
  (columns), starts at 0, never decreases and ends at the number of ``indices``, which equals
  the number of values; every index lies inside the shape. Unsorted indices within a row are
  fine; repeated entries are added, which is what scipy means by them (the text readers refuse
  repeats because a text file repeating an entry is more likely a mistake).
* COO: the index arrays and the values have one length, every index inside the shape.
* DIA: one row of ``data`` per offset, distinct offsets; entries outside the matrix are ignored
  (scipy's meaning).
* Before anything is loaded, a ``.npy`` file must hold the bytes its header declares, and the
  arrays (a ``.npz`` file's, uncompressed) must fit in the available memory
  (:mod:`formats.memory`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from formats import memory
from formats.errors import FormatError, ReadError
from formats.format import Format
from formats.tensor import Tensor

INT64_MAX = np.iinfo(np.int64).max
SPARSE_FORMATS = ("csr", "csc", "coo", "bsr", "dia")
RESAVE = "re-save a valid matrix with scipy.sparse.save_npz"


def read_npy(path: str | Path, fmt: Format | str | None = None, *, name: str | None = None
             ) -> Tensor:
    """Read a dense array saved with ``numpy.save``; its nonzeros are stored in ``fmt``."""
    file = str(path)
    shape, dtype = _npy_header(file)
    _check_values_dtype(file, dtype, "the array")
    count = memory.positions(shape)
    problem = memory.too_large(count * (dtype.itemsize + 9))  # the array, float64 copy, mask
    if problem:
        raise ReadError(file, f"reading its {'x'.join(map(str, shape))} array {problem}")
    try:
        array = np.load(file, allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        raise ReadError(file, f"not a readable .npy array: {err}") from None
    return _tensor(file, lambda: Tensor.from_dense(array.astype(np.float64), fmt,
                                                   name=_label(file, name)))


def read_npy_array(path: str | Path) -> np.ndarray:
    """A dense array saved with ``numpy.save``, as saved (booleans, integers or reals),
    checked like :func:`read_npy` (header, size, no objects, fits in memory) before loading."""
    file = str(path)
    shape, dtype = _npy_header(file)
    _check_values_dtype(file, dtype, "the array")
    problem = memory.too_large(memory.positions(shape) * dtype.itemsize)
    if problem:
        raise ReadError(file, f"reading its {'x'.join(map(str, shape))} array {problem}")
    try:
        return np.load(file, allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        raise ReadError(file, f"not a readable .npy array: {err}") from None


def read_npz(path: str | Path, fmt: Format | str | None = None, *, name: str | None = None
             ) -> Tensor:
    """Read a scipy.sparse matrix saved with ``scipy.sparse.save_npz`` (see module docstring)."""
    file = str(path)
    arrays = _npz_arrays(file)
    kind = _format_entry(file, arrays)
    if kind in ("csr", "csc", "bsr"):
        coords, vals, shape = _compressed(file, arrays, kind)
    elif kind == "coo":
        coords, vals, shape = _coo(file, arrays)
    else:
        coords, vals, shape = _dia(file, arrays)
    return _tensor(file, lambda: Tensor.from_coo(coords, vals, shape, fmt,
                                                 name=_label(file, name)))


# --------------------------------------------------------------------------- files
def _npy_header(file: str) -> tuple[tuple[int, ...], np.dtype]:
    """Shape and dtype from a ``.npy`` header, checked against the file's size."""
    try:
        with open(file, "rb") as f:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(f)
            else:
                shape, _, dtype = np.lib.format.read_array_header_2_0(f)
            offset = f.tell()
        size = os.path.getsize(file)
    except OSError as err:
        raise ReadError(file, f"cannot read the file: {err.strerror or err}") from None
    except (ValueError, EOFError, SyntaxError, TypeError) as err:
        raise ReadError(file, f"not a readable .npy array: {err}") from None
    if dtype.hasobject:
        raise ReadError(file, "holds Python objects, which are never loaded (they could run "
                              "code); save an array of numbers")
    declared = memory.positions(shape) * dtype.itemsize
    if declared > size - offset:
        raise ReadError(file, f"declares a {'x'.join(map(str, shape)) or 'scalar'} {dtype} "
                              f"array ({declared:,} bytes) but holds {size - offset:,} bytes "
                              "of data: the file is cut short")
    return shape, dtype


def _npz_arrays(file: str) -> dict[str, np.ndarray]:
    """Every entry of the archive, after checking that they fit in memory."""
    try:
        archive = np.load(file, allow_pickle=False)
    except Exception as err:  # np.load raises OSError, ValueError, zipfile errors...
        raise ReadError(file, f"not a scipy.sparse .npz (save it with scipy.sparse.save_npz): "
                              f"{err}") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ReadError(file, "holds one array (.npy content), not a scipy.sparse matrix; "
                              "read it as .npy or save the matrix with scipy.sparse.save_npz")
    with archive:
        total = sum(info.file_size for info in archive.zip.infolist())
        problem = memory.too_large(2 * total)
        if problem:
            raise ReadError(file, f"reading its arrays {problem}")
        arrays = {}
        for key in archive.files:
            try:
                arrays[key] = archive[key]
            except ValueError as err:
                if "pickle" in str(err):
                    raise ReadError(file, f"entry {key!r} holds Python objects, which are "
                                          f"never loaded (they could run code); {RESAVE}"
                                    ) from None
                raise ReadError(file, f"entry {key!r} is not a readable array: {err}") from None
            except Exception as err:  # a damaged archive: zlib, zipfile, EOF errors
                raise ReadError(file, f"entry {key!r} is not a readable array: "
                                      f"{type(err).__name__}: {err}") from None
    return arrays


# --------------------------------------------------------------------------- entries
def _format_entry(file: str, arrays: Mapping[str, np.ndarray]) -> str:
    if "format" not in arrays:
        raise ReadError(file, "not a scipy.sparse .npz: it has no 'format' entry (save it with "
                              "scipy.sparse.save_npz)")
    entry = arrays["format"]
    kind = None
    if entry.ndim == 0 and entry.dtype.kind in "US":
        value = entry.item()
        kind = value.decode("latin-1") if isinstance(value, bytes) else value
    if kind not in SPARSE_FORMATS:
        shown = repr(kind[:20]) if kind is not None else f"a {entry.dtype} array"
        raise ReadError(file, f"the 'format' entry is {shown}; scipy.sparse.save_npz writes "
                              f"one of {', '.join(SPARSE_FORMATS)}")
    return kind


def _entry(file: str, arrays: Mapping[str, np.ndarray], key: str, kind: str, ndim: int = 1
           ) -> np.ndarray:
    if key not in arrays:
        raise ReadError(file, f"a {kind} matrix needs an entry {key!r} and the file has none; "
                              f"{RESAVE}")
    array = arrays[key]
    if array.ndim != ndim:
        raise ReadError(file, f"entry {key!r} has shape {array.shape}; a {kind} matrix's "
                              f"{key!r} has {ndim} dimension{'s' if ndim != 1 else ''}; {RESAVE}")
    return array


def _indices(file: str, arrays: Mapping[str, np.ndarray], key: str, kind: str, ndim: int = 1
             ) -> np.ndarray:
    """An index array as int64 (integers only, each fitting in 64 bits)."""
    array = _entry(file, arrays, key, kind, ndim)
    if array.dtype.kind not in "iu":
        raise ReadError(file, f"entry {key!r} holds {array.dtype} values; sizes and "
                              f"indices are integers; {RESAVE}")
    if array.dtype.kind == "u" and array.size and array.max() > INT64_MAX:
        raise ReadError(file, f"entry {key!r} holds {int(array.max())}, beyond 64-bit indices")
    return array.astype(np.int64, copy=False)


def _check_values_dtype(file: str, dtype: np.dtype, what: str) -> None:
    if dtype.kind == "c":
        raise ReadError(file, "complex values are not supported (tensors hold real numbers)")
    if dtype.kind not in "biuf":
        raise ReadError(file, f"{what} holds {dtype} values; a tensor needs numbers (booleans, "
                              "integers or reals)")


def _values(file: str, arrays: Mapping[str, np.ndarray], kind: str, ndim: int = 1
            ) -> np.ndarray:
    array = _entry(file, arrays, "data", kind, ndim)
    _check_values_dtype(file, array.dtype, "entry 'data'")
    return array.astype(np.float64)


def _shape(file: str, arrays: Mapping[str, np.ndarray], kind: str, order: int
           ) -> tuple[int, ...]:
    shape = _indices(file, arrays, "shape", kind)
    if len(shape) != order:
        raise ReadError(file, f"the shape {tuple(shape.tolist())} has {len(shape)} sizes; this "
                              f"{kind} matrix has {order}; {RESAVE}")
    if (shape < 0).any():
        raise ReadError(file, f"the shape {tuple(shape.tolist())} has a negative size; {RESAVE}")
    return tuple(int(s) for s in shape)


def _in_range(file: str, index: np.ndarray, bound: int, what: str, shape: tuple[int, ...],
              where: Callable[[int], str] | None = None) -> None:
    bad = (index < 0) | (index >= bound)
    if bad.any():
        k = int(np.argmax(bad))
        at = where(k) if where else f"entry {k}"
        raise ReadError(file, f"{what} index {index[k]} ({at}) is outside 0..{bound - 1} of the "
                              f"shape {'x'.join(map(str, shape))}; {RESAVE}")


def _lengths(file: str, counts: dict[str, int]) -> None:
    if len(set(counts.values())) > 1:
        listed = ", ".join(f"{n:,} {key}" for key, n in counts.items())
        raise ReadError(file, f"the entries have different lengths ({listed}); they go "
                              f"together one per stored value; {RESAVE}")


# --------------------------------------------------------------------------- formats
def _compressed(file: str, arrays: Mapping[str, np.ndarray], kind: str
                ) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """CSR, CSC or BSR -> coordinates, values, shape."""
    shape = _shape(file, arrays, kind, 2)
    indptr = _indices(file, arrays, "indptr", kind)
    indices = _indices(file, arrays, "indices", kind)
    data = _values(file, arrays, kind, 3 if kind == "bsr" else 1)
    rows, cols = shape
    block = data.shape[1:] if kind == "bsr" else (1, 1)
    if kind == "bsr":
        if 0 in block or rows % block[0] or cols % block[1]:
            raise ReadError(file, f"blocks of {block[0]}x{block[1]} do not tile the shape "
                                  f"{rows}x{cols}; {RESAVE}")
        rows, cols = rows // block[0], cols // block[1]
    major, minor = (rows, cols) if kind != "csc" else (cols, rows)
    line, other = ("row", "column") if kind != "csc" else ("column", "row")
    unit = "block " if kind == "bsr" else ""
    if len(indptr) != major + 1:
        raise ReadError(file, f"'indptr' has {len(indptr):,} entries; a {kind} matrix with "
                              f"{major:,} {unit}{line}s needs {major + 1:,}; {RESAVE}")
    if indptr[0] != 0:
        raise ReadError(file, f"'indptr' starts at {indptr[0]}, not 0; {RESAVE}")
    steps = np.diff(indptr)
    if (steps < 0).any():
        k = int(np.argmax(steps < 0))
        raise ReadError(file, f"'indptr' decreases from {indptr[k]} to {indptr[k + 1]} at "
                              f"{unit}{line} {k}; it must never decrease; {RESAVE}")
    if indptr[-1] != len(indices):
        raise ReadError(file, f"'indptr' ends at {indptr[-1]:,} but there are "
                              f"{len(indices):,} indices; {RESAVE}")
    _lengths(file, {"indices": len(indices), "values" if kind != "bsr" else "blocks": len(data)})
    _in_range(file, indices, minor, unit + other, shape, lambda k: (
        f"entry {k}, in {unit}{line} {int(np.searchsorted(indptr, k, side='right')) - 1}"))
    lines = np.repeat(np.arange(major, dtype=np.int64), steps)
    if kind == "bsr":
        r, c = block
        brow = lines[:, None, None] * r + np.arange(r)[None, :, None]
        bcol = indices[:, None, None] * c + np.arange(c)[None, None, :]
        brow, bcol = np.broadcast_arrays(brow, bcol)
        return np.stack([brow.reshape(-1), bcol.reshape(-1)], 1), data.reshape(-1), shape
    pair = (lines, indices) if kind == "csr" else (indices, lines)
    return np.stack(pair, 1), data, shape


def _coo(file: str, arrays: Mapping[str, np.ndarray]
         ) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    data = _values(file, arrays, "coo")
    if "coords" in arrays:
        coords = _indices(file, arrays, "coords", "coo", 2)
        shape = _shape(file, arrays, "coo", coords.shape[0])
        _lengths(file, {"coordinates": coords.shape[1], "values": len(data)})
        for mode in range(coords.shape[0]):
            _in_range(file, coords[mode], shape[mode], f"mode-{mode}", shape)
        return coords.T, data, shape
    row = _indices(file, arrays, "row", "coo")
    col = _indices(file, arrays, "col", "coo")
    shape = _shape(file, arrays, "coo", 2)
    _lengths(file, {"rows": len(row), "columns": len(col), "values": len(data)})
    _in_range(file, row, shape[0], "row", shape)
    _in_range(file, col, shape[1], "column", shape)
    return np.stack([row, col], 1), data, shape


def _dia(file: str, arrays: Mapping[str, np.ndarray]
         ) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    data = _values(file, arrays, "dia", 2)
    offsets = _indices(file, arrays, "offsets", "dia")
    shape = _shape(file, arrays, "dia", 2)
    _lengths(file, {"offsets": len(offsets), "rows of 'data'": data.shape[0]})
    if len(np.unique(offsets)) != len(offsets):
        raise ReadError(file, f"'offsets' repeats a diagonal; {RESAVE}")
    import scipy.sparse as sp  # lazily (start-up time)

    coo = sp.dia_matrix((data, offsets), shape=shape).tocoo()
    return np.stack([coo.row, coo.col], 1), coo.data, shape


# --------------------------------------------------------------------------- tensors
def _tensor(file: str, build: Callable[[], Tensor]) -> Tensor:
    try:
        return build()
    except FormatError as err:  # a format of another order, too large for memory
        raise ReadError(file, str(err)) from None


def _label(file: str, name: str | None) -> str:
    return name if name is not None else Path(file).stem
