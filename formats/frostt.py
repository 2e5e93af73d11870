"""FROSTT ``.tns`` reading and writing.

A ``.tns`` file holds one stored point a line: the coordinates (1-based), then the value,
separated by whitespace. ``#`` starts a comment (to the end of the line); blank lines are
ignored. The format records no shape: unless ``shape`` is given it is the largest coordinate
of each mode. A line with a single field is an order-0 (scalar) point.

Decisions: repeated coordinates are refused naming both lines (``sum_duplicates=True`` adds
them); an empty file needs ``shape`` (its order cannot be inferred otherwise).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from formats.atomic import atomic_write
from formats.errors import FormatError, ReadError
from formats.format import Format, as_format
from formats.mtx import ascii_lines, comment_text, sorted_points, write_points
from formats.tensor import Tensor
from formats.textfile import (
    check_width,
    data_lines,
    first_duplicate,
    float_column,
    int_column,
    read_lines,
)


def read_tns(
    path: str | Path,
    fmt: Format | str | None = None,
    *,
    shape: Sequence[int] | None = None,
    zero_based: bool = False,
    name: str | None = None,
    sum_duplicates: bool = False,
) -> Tensor:
    """Read a FROSTT ``.tns`` file into a :class:`Tensor` stored in ``fmt``.

    ``zero_based`` reads coordinates that start at 0. Raises :class:`ReadError` (file, line,
    problem) for any malformed file.
    """
    path = str(path)
    if shape is not None:
        shape = tuple(int(s) for s in shape)
        if any(s < 0 for s in shape):
            raise FormatError(f"shape {shape} has a negative dimension")
        fmt = as_format(fmt, len(shape))
    elif fmt is not None and not isinstance(fmt, Format):
        fmt = Format.parse(fmt)
    lines = read_lines(path)
    numbers, rows = data_lines(lines, 0, "#")
    if not rows:
        if shape is None:
            raise ReadError(
                path, "no entries, so the order and shape are unknown; pass shape=(...)"
            )
        return Tensor.from_coo(np.zeros((0, len(shape))), [], shape, fmt, name=_label(path, name))

    width = len(rows[0])
    order = width - 1
    if shape is not None and order != len(shape):
        raise ReadError(
            path,
            f"line has {order} coordinate(s) and a value, but shape {shape} has "
            f"{len(shape)} modes",
            numbers[0],
        )
    check_width(
        path, numbers, rows, width,
        f"{order} coordinate{'s' if order != 1 else ''} and a value, as on line {numbers[0]}",
    )
    if fmt is not None and fmt.order != order:
        raise FormatError(
            f"format {fmt} describes an order-{fmt.order} tensor but {path} holds an "
            f"order-{order} tensor"
        )
    coords = np.empty((len(rows), order), dtype=np.int64)
    for mode in range(order):
        coords[:, mode] = int_column(
            path, numbers, [r[mode] for r in rows], f"mode-{mode} coordinate"
        )
    vals = float_column(path, numbers, [r[order] for r in rows], "value")

    base = 0 if zero_based else 1
    low = coords < base
    if low.any():
        k, mode = (int(x) for x in np.argwhere(low)[0])
        hint = (
            "; FROSTT coordinates are 1-based: if this file is 0-based read it with "
            "zero_based=True"
            if not zero_based and coords[k, mode] == 0
            else ""
        )
        raise ReadError(
            path, f"mode-{mode} coordinate {coords[k, mode]} is below {base}{hint}", numbers[k]
        )
    coords -= base
    if shape is None:
        shape = tuple(int(m) + 1 for m in coords.max(axis=0)) if order else ()
    else:
        high = coords >= np.array(shape, dtype=np.int64)
        if high.any():
            k, mode = (int(x) for x in np.argwhere(high)[0])
            raise ReadError(
                path,
                f"mode-{mode} coordinate {coords[k, mode] + base} is beyond the given shape "
                f"{shape} (coordinates are {base}-based)",
                numbers[k],
            )
    if not sum_duplicates:
        dup = first_duplicate(coords)
        if dup is not None:
            first, later = dup
            raise ReadError(
                path,
                f"coordinates {' '.join(rows[later][:order]) or '(scalar)'} repeat line "
                f"{numbers[first]}; list each point once, or read with sum_duplicates=True "
                "to add repeats",
                numbers[later],
            )
    return Tensor.from_coo(coords, vals, shape, fmt, name=_label(path, name))


def write_tns(tensor: Tensor, path: str | Path, zero_based: bool = False) -> None:
    """Write the tensor's stored points, one a line, in row-major coordinate order.

    Values are written with ``repr`` (exact round trip). A first comment line records the
    shape for people; readers ignore it, so pass ``shape=`` to read trailing empty slices back.
    The lines are written in chunks to a temporary file that replaces ``path`` only when
    complete (:func:`formats.atomic.atomic_write`).
    """
    coords, vals = sorted_points(tensor)
    base = 0 if zero_based else 1
    shape = " ".join(str(s) for s in tensor.shape) or "scalar"
    head = (f"# {comment_text(tensor.name or 'tensor')}: shape {shape}, {len(vals)} points, "
            f"{base}-based (written by sam-toolkit)")
    with atomic_write(path) as out:
        out.write(ascii_lines([head]))
        write_points(out, coords, vals, base)


def _label(path: str, name: str | None) -> str:
    return name if name is not None else Path(path).stem
