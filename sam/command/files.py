"""Reading a command's text inputs and writing its outputs (:mod:`sam.command`).

:func:`read_text` refuses, in one line naming the file, what a command cannot use: a missing
file, a folder, an empty file, one larger than the command's limit, and bytes that are not
UTF-8 (with the line and column of the first bad byte). Writers go through
:func:`formats.atomic.atomic_write`: the destination is replaced only by a complete file.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

from formats.atomic import atomic_write
from formats.errors import ToolkitError

#: Default largest text input (bytes): program, IR and configuration files are kilobytes.
MAX_TEXT = 64 * 2**20


class InputError(ToolkitError):
    """A command's input file that cannot be used (missing, empty, undecodable, too large)."""


def read_text(path: str | os.PathLike, what: str = "file", *, max_bytes: int = MAX_TEXT,
              allow_empty: bool = False) -> str:
    """The UTF-8 text of ``path``, or :class:`InputError` (``what`` names the file's role in
    the message, e.g. ``"program"``, ``"memory configuration"``)."""
    shown = str(path)
    p = Path(path)
    try:
        info = p.stat()
    except FileNotFoundError:
        raise InputError(f"{shown}: no such {what}") from None
    except OSError as err:
        raise InputError(f"{shown}: cannot read {what}: {err.strerror or err}") from None
    if p.is_dir():
        raise InputError(f"{shown}: is a folder; give a {what}")
    if p.is_file() and info.st_size > max_bytes:
        raise InputError(f"{shown}: the {what} has {info.st_size:,} bytes, more than the limit "
                         f"of {max_bytes:,}")
    try:
        with open(p, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as err:
        raise InputError(f"{shown}: cannot read {what}: {err.strerror or err}") from None
    if len(data) > max_bytes:
        raise InputError(f"{shown}: the {what} has more than {max_bytes:,} bytes (the limit)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise InputError(f"{shown}:{line}:{col}: the {what} is not UTF-8 text (byte "
                         f"0x{data[err.start]:02x}); is it the right file?") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if not allow_empty and not text.strip():
        raise InputError(f"{shown}: the {what} is empty")
    return text


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically; ``-`` is standard output."""
    if str(path) == "-":
        import sys

        sys.stdout.write(text)
        return
    with atomic_write(path) as out:
        out.write(text.encode("utf-8"))


def write_json(path: str | os.PathLike, data: Any, indent: int | None = 1) -> None:
    """Write ``data`` as JSON to ``path`` atomically."""
    write_text(path, json.dumps(data, indent=indent))


def write_npy(path: str | os.PathLike, array: Any) -> None:
    """Write a numpy array as ``.npy`` to ``path`` atomically."""
    import numpy as np

    buf = io.BytesIO()
    np.save(buf, np.asarray(array), allow_pickle=False)
    with atomic_write(path) as out:
        out.write(buf.getbuffer())
