"""Line-numbered parsing of whitespace-separated numeric text files (.mtx and .tns bodies).

Readers split a file into *data lines* (the non-blank, non-comment lines, each with its 1-based
line number), check that every data line has the expected number of fields, and convert whole
columns of fields at once with numpy. Only when a conversion fails do they scan the column
again to name the first offending line, so a valid 100,000-line file costs a few vectorised
passes. Every problem is raised as :class:`~formats.errors.ReadError`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from formats.errors import ReadError

INT64_MAX = np.iinfo(np.int64).max


def read_lines(path: str | Path) -> list[str]:
    """The file's lines (without line ends); line ``k`` of the file is element ``k - 1``.

    Bytes are decoded as Latin-1, which never fails: comments may hold any byte, and a stray
    non-ASCII byte in a data line is then reported by the number parser with its line.
    """
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise ReadError(str(path), "no such file") from None
    except IsADirectoryError:
        raise ReadError(str(path), "is a directory, not a tensor file") from None
    except OSError as err:
        raise ReadError(str(path), f"cannot read the file: {err.strerror or err}") from None
    lines = data.decode("latin-1").split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final line end does not start another line
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def data_lines(
    lines: list[str], start: int, comment: str
) -> tuple[list[int], list[list[str]]]:
    """Split the lines from index ``start`` on into fields, skipping blank and comment lines.

    Returns the 1-based line number of each data line and its fields. Text from ``comment``
    to the end of a line is ignored.
    """
    numbers: list[int] = []
    rows: list[list[str]] = []
    for index in range(start, len(lines)):
        line = lines[index]
        if comment in line:
            line = line.split(comment, 1)[0]
        fields = line.split()
        if fields:
            numbers.append(index + 1)
            rows.append(fields)
    return numbers, rows


def check_width(
    path: str,
    numbers: list[int],
    rows: list[list[str]],
    width: int,
    what: str,
    *,
    more_ok: bool = False,
) -> None:
    """Every row must have exactly ``width`` fields (at least, if ``more_ok``).

    ``what`` names the fields for the message.
    """
    for number, fields in zip(numbers, rows, strict=True):
        if len(fields) != width and not (more_ok and len(fields) > width):
            raise ReadError(
                path,
                f"expected {'at least ' if more_ok else ''}{width} "
                f"field{'s' if width != 1 else ''} ({what}), "
                f"found {len(fields)}: {' '.join(fields)[:60]!r}",
                number,
            )


def int_column(
    path: str, numbers: list[int], tokens: list[str], what: str
) -> np.ndarray:
    """Parse a column of decimal integers (int64); name the first bad one with its line."""
    try:
        if not any("_" in t for t in tokens):
            return np.array(tokens, dtype=np.int64).reshape(len(tokens))
    except (ValueError, OverflowError):
        pass
    for number, token in zip(numbers, tokens, strict=True):
        value = _int_or_none(token)
        if value is None:
            raise ReadError(path, f"{what} {token[:40]!r} is not an integer", number)
        if abs(value) > INT64_MAX:
            raise ReadError(path, f"{what} {token[:40]} does not fit in 64 bits", number)
    raise ReadError(path, f"cannot parse the {what} column")  # pragma: no cover


def float_column(
    path: str, numbers: list[int], tokens: list[str], what: str
) -> np.ndarray:
    """Parse a column of real numbers (``inf`` and ``nan`` allowed); name the first bad one."""
    try:
        if not any("_" in t for t in tokens):
            return np.array(tokens, dtype=np.float64).reshape(len(tokens))
    except (ValueError, OverflowError):
        pass
    for number, token in zip(numbers, tokens, strict=True):
        try:
            if "_" in token:
                raise ValueError(token)
            float(token)
        except ValueError:
            raise ReadError(path, f"{what} {token[:40]!r} is not a number", number) from None
    raise ReadError(path, f"cannot parse the {what} column")  # pragma: no cover


def _int_or_none(token: str) -> int | None:
    if "_" in token or not token.lstrip("+-").isascii():
        return None
    try:
        return int(token)
    except ValueError:
        return None


def first_duplicate(keys: np.ndarray) -> tuple[int, int] | None:
    """Indices (earlier, later) of the first repeated row of ``keys`` (n x k ints), if any."""
    if len(keys) < 2:
        return None
    order = np.lexsort(keys.T[::-1]) if keys.shape[1] else np.arange(len(keys))
    ordered = keys[order]
    same = np.all(ordered[1:] == ordered[:-1], axis=1)
    if not same.any():
        return None
    # among all repeated pairs, report the one whose later line comes first in the file
    hits = np.flatnonzero(same)
    pairs = np.stack([order[hits], order[hits + 1]], axis=1)
    pairs.sort(axis=1)
    best = pairs[np.argmin(pairs[:, 1])]
    return int(best[0]), int(best[1])
