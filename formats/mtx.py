"""Matrix Market (``.mtx``) reading and writing.

:func:`read_mtx` first checks the whole file itself, so that every problem is reported as one
:class:`~formats.errors.ReadError` line ``FILE:LINE: what is wrong`` (see
:mod:`formats.textfile`), then hands the checked entries to :func:`scipy.io.mmread`, which
builds the matrix and mirrors ``symmetric`` and ``skew-symmetric`` storage. The check catches
what scipy would refuse with a less precise message and what scipy silently accepts wrongly:
extra fields on an entry line, ``hermitian`` with a non-complex field, a nonzero diagonal in a
skew-symmetric matrix, an element given in both triangles of a symmetric matrix, repeated
entries.

Decisions (tested in ``tests/test_bad_input.py``):

* ``complex`` matrices are refused: "complex values are not supported" (tensors hold float64).
* Repeated entries (and an element stored in both triangles of a symmetric file) are refused,
  naming both lines; ``sum_duplicates=True`` adds them instead, as scipy's COO -> CSR does.
* Entry lines of a ``pattern`` file may carry extra fields after ROW COL (SuiteSparse's
  ``Pajek/Ragusa16`` carries edge weights); they are ignored, as scipy ignores them. A
  ``real``/``integer`` entry line must have exactly three fields.
* Blank lines and ``%`` comment lines are accepted anywhere after the header, including among
  the entries (scipy refuses a comment after the size line); entries may come in any order.
* ``pattern`` entries get the value 1.0; ``integer`` values become float64 (exact up to 2**53).
* Explicitly stored zeros of a coordinate file are kept as stored zeros, as scipy keeps them.
* The header words after ``%%MatrixMarket`` are matched case-insensitively; a ``%%GraphBLAS``
  type comment is an ordinary comment.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

import numpy as np

from formats.atomic import atomic_write
from formats.errors import FormatError, ReadError
from formats.format import Format, as_format
from formats.tensor import Tensor
from formats.textfile import (
    check_width,
    data_lines,
    first_duplicate,
    float_column,
    int_column,
    read_lines,
)

BANNER = "%%MatrixMarket"
OBJECTS = ("matrix",)
LAYOUTS = ("coordinate", "array")
FIELDS = ("real", "integer", "pattern", "complex")
SYMMETRIES = ("general", "symmetric", "skew-symmetric", "hermitian")
EXAMPLE_HEADER = "%%MatrixMarket matrix coordinate real general"


def read_mtx(
    path: str | Path,
    fmt: Format | str | None = None,
    *,
    name: str | None = None,
    sum_duplicates: bool = False,
) -> Tensor:
    """Read a Matrix Market file into an order-2 :class:`Tensor` stored in ``fmt``.

    Raises :class:`ReadError` (file, line, problem) for any malformed or unsupported file.
    """
    fmt = as_format(fmt, 2)
    path = str(path)
    lines = read_lines(path)
    layout, field, symmetry = _header(path, lines)
    size_index, size = _size_line(path, lines, layout, symmetry)
    numbers, rows = data_lines(lines, size_index + 1, "%")
    _check_entries(path, lines, size_index, size, numbers, rows, layout, field, symmetry,
                   sum_duplicates)

    label = name if name is not None else Path(path).stem
    if layout == "coordinate" and not sum_duplicates:  # no duplicates: build it directly
        coords, vals = _coordinate_points(rows, field, symmetry)
        try:
            return Tensor.from_coo(coords, vals, tuple(size[:2]), fmt, name=label)
        except FormatError as err:
            raise ReadError(path, str(err)) from None
    header = f"{BANNER} matrix {layout} {field} {symmetry}"
    if field == "pattern":
        rows = [r[:2] for r in rows]  # extra fields of a pattern entry are ignored
    body = "\n".join(" ".join(r) for r in rows)
    text = f"{header}\n{' '.join(str(s) for s in size)}\n{body}\n"
    import scipy.io  # lazily (start-up time)

    try:
        matrix = scipy.io.mmread(io.BytesIO(text.encode("latin-1")))
    except Exception as err:  # the contract: no scipy exception escapes
        raise ReadError(path, f"scipy.io.mmread refused the checked file: {err}") from None
    if matrix.shape != tuple(size[:2]):
        raise ReadError(path, f"read a {matrix.shape} matrix, the size line says {size[:2]}")
    try:
        if isinstance(matrix, np.ndarray):
            return Tensor.from_dense(matrix.astype(np.float64), fmt, name=label)
        return Tensor.from_scipy(matrix, fmt, name=label)
    except FormatError as err:
        raise ReadError(path, str(err)) from None


def _coordinate_points(rows: list[list[str]], field: str, symmetry: str
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The entries of a checked coordinate file (no duplicates) as 0-based coordinates and
    values, one triangle mirrored for a symmetric (negated for a skew-symmetric) file: what
    :func:`scipy.io.mmread` gives, without importing scipy (0.2 s of start-up)."""
    n = len(rows)
    coords = np.array([r[:2] for r in rows], dtype=np.int64).reshape(n, 2) - 1
    if field == "pattern":
        vals = np.ones(n)
    else:
        vals = np.array([r[2] for r in rows], dtype=np.float64).reshape(n)
    if symmetry in ("symmetric", "skew-symmetric"):
        off = coords[:, 0] != coords[:, 1]
        mirror = vals[off] if symmetry == "symmetric" else -vals[off]
        coords = np.concatenate([coords, coords[off][:, ::-1]])
        vals = np.concatenate([vals, mirror])
    return coords, vals


def write_mtx(tensor: Tensor, path: str | Path) -> None:
    """Write an order-2 tensor as ``coordinate real general``, its stored points row-major.

    Values are written with ``repr`` so that reading the file back gives identical floats.
    Zeros that a dense level stores implicitly are not written; explicit zeros of compressed
    levels are. The lines are written in chunks (see :func:`write_points`) to a temporary file
    that replaces ``path`` only when complete (:func:`formats.atomic.atomic_write`).
    """
    if tensor.order != 2:
        raise FormatError(
            f"Matrix Market holds matrices; this tensor has order {tensor.order} (use .tns)"
        )
    coords, vals = sorted_points(tensor)
    head = [EXAMPLE_HEADER, "% written by sam-toolkit (formats.mtx)"]
    if tensor.name:
        head.append(f"% name: {comment_text(tensor.name)}")
    head.append(f"{tensor.shape[0]} {tensor.shape[1]} {len(vals)}")
    with atomic_write(path) as out:
        out.write(ascii_lines(head))
        write_points(out, coords, vals, 1)


def stored_points(tensor: Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The tensor's stored points: all points if no level is ``full``, else the nonzeros.

    (Full levels, such as dense ones, store every coordinate, so their zeros are not data; the
    same rule as :meth:`Tensor.with_format`.)
    """
    coords, vals = tensor.to_coo()
    if any(level.full for level in tensor.levels):
        keep = vals != 0
        coords, vals = coords[keep], vals[keep]
    return coords, vals


def sorted_points(tensor: Tensor) -> tuple[np.ndarray, np.ndarray]:
    """:func:`stored_points` in row-major coordinate order."""
    coords, vals = stored_points(tensor)
    in_order = tensor.format.mode_order == tuple(range(tensor.order)) and all(
        level.ordered for level in tensor.levels
    )  # points come out of the levels in level order
    if len(vals) > 1 and tensor.order > 1 and not in_order:
        order = np.lexsort(coords.T[::-1])
        coords, vals = coords[order], vals[order]
    return coords, vals


#: Points formatted per chunk by :func:`write_points`.
CHUNK = 1 << 16


def write_points(out: BinaryIO, coords: np.ndarray, vals: np.ndarray, base: int) -> None:
    """One line per point: its coordinates plus ``base``, then its value with ``repr``
    (exact), separated by single spaces; written ``CHUNK`` points at a time, so memory stays
    small whatever the number of points."""
    order = coords.shape[1]
    for start in range(0, len(vals), CHUNK):
        stop = start + CHUNK
        block = coords[start:stop] + base
        fields = [map(str, block[:, mode].tolist()) for mode in range(order)]
        fields.append(map(repr, vals[start:stop].tolist()))
        out.write(ascii_lines(map(" ".join, zip(*fields, strict=True))))


def ascii_lines(lines: Iterable[str]) -> bytes:
    """Lines, each ended by a line feed, as ASCII bytes (other characters escaped)."""
    return "".join(line + "\n" for line in lines).encode("ascii", "backslashreplace")


def comment_text(text: str) -> str:
    """``text`` for a one-line comment (line breaks written as backslash-n)."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def write_text(path: str | Path, text: str) -> None:
    """Write an ASCII text file atomically (:func:`formats.atomic.atomic_write`)."""
    with atomic_write(path) as out:
        out.write(text.encode("ascii"))


# ---------------------------------------------------------------------------- checks
def _header(path: str, lines: list[str]) -> tuple[str, str, str]:
    """Check line 1, ``%%MatrixMarket matrix LAYOUT FIELD SYMMETRY``."""
    if not lines:
        raise ReadError(path, f"empty file; a Matrix Market file starts with '{EXAMPLE_HEADER}'")
    words = lines[0].split()
    if not words or words[0].lower() != BANNER.lower():
        raise ReadError(
            path,
            f"missing the Matrix Market header line (e.g. '{EXAMPLE_HEADER}'); "
            f"line 1 is {lines[0][:50]!r}",
            1,
        )
    if len(words) != 5:
        raise ReadError(
            path,
            f"the header line needs 5 words ('{EXAMPLE_HEADER}'), found {len(words)}",
            1,
        )
    obj, layout, field, symmetry = (w.lower() for w in words[1:])
    for word, allowed, what in (
        (obj, OBJECTS, "object"),
        (layout, LAYOUTS, "format"),
        (field, FIELDS, "field"),
        (symmetry, SYMMETRIES, "symmetry"),
    ):
        if word not in allowed:
            raise ReadError(
                path,
                f"unknown {what} {word[:30]!r} in the header; use one of {', '.join(allowed)}",
                1,
            )
    if field == "complex":
        raise ReadError(path, "complex values are not supported (tensors hold real numbers)", 1)
    if symmetry == "hermitian":
        raise ReadError(
            path,
            f"'hermitian' needs complex values but the field is '{field}'; "
            "a real or pattern matrix stored by one triangle is 'symmetric'",
            1,
        )
    if layout == "array" and field == "pattern":
        raise ReadError(
            path,
            "'array pattern' is not a Matrix Market combination (an array file stores every "
            "value); write the file as 'coordinate pattern'",
            1,
        )
    if field == "pattern" and symmetry == "skew-symmetric":
        raise ReadError(path, "a pattern matrix cannot be skew-symmetric; use 'symmetric'", 1)
    return layout, field, symmetry


def _size_line(
    path: str, lines: list[str], layout: str, symmetry: str
) -> tuple[int, tuple[int, ...]]:
    """Find and check the size line (after comments): index in ``lines`` and its numbers."""
    index = 1
    while index < len(lines) and (not lines[index].strip() or lines[index].lstrip()[:1] == "%"):
        index += 1
    expected = "ROWS COLS ENTRIES" if layout == "coordinate" else "ROWS COLS"
    if index == len(lines):
        raise ReadError(path, f"the file ends before the size line ('{expected}')", len(lines))
    fields = lines[index].split()
    width = len(expected.split())
    if len(fields) != width:
        raise ReadError(
            path,
            f"the size line of a {layout} file needs {width} numbers ({expected}), "
            f"found {len(fields)}: {lines[index].strip()[:50]!r}",
            index + 1,
        )
    numbers = int_column(path, [index + 1] * width, fields, "size")
    if (numbers < 0).any():
        raise ReadError(path, f"negative size on the size line: {lines[index].strip()}", index + 1)
    size = tuple(int(n) for n in numbers)
    if symmetry != "general" and size[0] != size[1]:
        raise ReadError(
            path,
            f"a {symmetry} matrix must be square, the size line says {size[0]}x{size[1]}",
            index + 1,
        )
    return index, size


def _check_entries(
    path: str,
    lines: list[str],
    size_index: int,
    size: tuple[int, ...],
    numbers: list[int],
    rows: list[list[str]],
    layout: str,
    field: str,
    symmetry: str,
    sum_duplicates: bool,
) -> None:
    """Check widths, count, number syntax, index ranges, symmetry rules and repeats."""
    size_line = size_index + 1
    if layout == "array":
        check_width(path, numbers, rows, 1, "one value a line in an array file")
        n_rows, n_cols = size
        declared = {
            "general": n_rows * n_cols,
            "symmetric": n_rows * (n_rows + 1) // 2,
            "skew-symmetric": n_rows * (n_rows - 1) // 2,
        }[symmetry]
    else:
        if field == "pattern":
            check_width(path, numbers, rows, 2, "ROW COL in a pattern file", more_ok=True)
        else:
            check_width(path, numbers, rows, 3, f"ROW COL VALUE in a {field} file")
        n_rows, n_cols, declared = size
    _check_count(path, lines, size_line, numbers, declared)

    if layout == "array":
        _values(path, numbers, [r[0] for r in rows], field)
        return
    ri = int_column(path, numbers, [r[0] for r in rows], "row index")
    ci = int_column(path, numbers, [r[1] for r in rows], "column index")
    values = _values(path, numbers, [r[2] for r in rows], field) if field != "pattern" else None
    for idx, bound, what in ((ri, n_rows, "row"), (ci, n_cols, "column")):
        bad = (idx < 1) | (idx > bound)
        if bad.any():
            k = int(np.argmax(bad))
            hint = " (Matrix Market indices are 1-based)" if idx[k] == 0 else ""
            raise ReadError(
                path,
                f"{what} index {idx[k]} is outside 1..{bound} (size line {size_line}){hint}",
                numbers[k],
            )
    if symmetry == "skew-symmetric":
        bad = (ri == ci) & (values != 0)
        if bad.any():
            k = int(np.argmax(bad))
            raise ReadError(
                path,
                f"diagonal entry ({ri[k]}, {ci[k]}) is {rows[k][2]}, but a skew-symmetric "
                "matrix has a zero diagonal",
                numbers[k],
            )
    if sum_duplicates:
        return
    if symmetry == "general":
        keys = np.stack([ri, ci], axis=1)
    else:
        keys = np.stack([np.maximum(ri, ci), np.minimum(ri, ci)], axis=1)
    dup = first_duplicate(keys)
    if dup is not None:
        first, later = dup
        if (ri[first], ci[first]) == (ri[later], ci[later]):
            problem = (
                f"entry ({ri[later]}, {ci[later]}) repeats the entry on line {numbers[first]}; "
                "list each entry once, or read with sum_duplicates=True to add repeats"
            )
        else:
            problem = (
                f"entry ({ri[later]}, {ci[later]}) and entry ({ri[first]}, {ci[first]}) on line "
                f"{numbers[first]} are the same element of a {symmetry} matrix; store one "
                "triangle only, or read with sum_duplicates=True to add them"
            )
        raise ReadError(path, problem, numbers[later])


def _values(path: str, numbers: list[int], tokens: list[str], field: str) -> np.ndarray:
    """Check a value column: integers for ``integer`` (within int64), else real numbers."""
    if field == "integer":
        return int_column(path, numbers, tokens, "integer value")
    return float_column(path, numbers, tokens, "value")


def _check_count(
    path: str, lines: list[str], size_line: int, numbers: list[int], declared: int
) -> None:
    """The number of entry lines must match the size line."""
    found = len(numbers)
    if found > declared:
        raise ReadError(
            path,
            f"more entries than the {declared} declared on the size line (line {size_line})",
            numbers[declared],
        )
    if found < declared:
        raise ReadError(
            path,
            f"the file ends after {found} entr{'y' if found == 1 else 'ies'}; the size line "
            f"(line {size_line}) declares {declared}",
            len(lines),
        )
