"""Reading a text file whole, with one-line errors naming the file.

:func:`read_text` refuses what a reader cannot use: a missing file, a folder, an empty file, one
larger than the caller's limit, and bytes that are not UTF-8 (with the line and column of the
first bad byte). Graph, report, program, IR and configuration readers all read through it; the
command layer (:mod:`sam.command.files`) offers it to every command.
"""

from __future__ import annotations

import os
from pathlib import Path

from formats.errors import ToolkitError

#: Default largest text input (bytes): program, IR and configuration files are kilobytes.
MAX_TEXT = 64 * 2**20


class InputError(ToolkitError):
    """A command's input file that cannot be used (missing, empty, undecodable, too large)."""


def read_text(path: str | os.PathLike, what: str = "file", *, max_bytes: int = MAX_TEXT,
              allow_empty: bool = False, limit_note: str = "") -> str:
    """The UTF-8 text of ``path``, or :class:`InputError` (``what`` names the file's role in
    the message, e.g. ``"program"``, ``"memory configuration"``; ``limit_note`` follows the
    size limit in its message: where it is set, what such files weigh)."""
    shown = str(path)
    p = Path(path)
    try:
        info = p.stat()
    except FileNotFoundError:
        raise InputError(f"{shown}: no such {what}") from None
    except OSError as err:
        raise InputError(f"{shown}: cannot read {what}: {err.strerror or err}") from None
    if p.is_dir():
        raise InputError(f"{shown}: is a folder, not a file ({what} expected)")
    if p.is_file() and info.st_size > max_bytes:
        raise InputError(f"{shown}: the {what} has {info.st_size:,} bytes, more than the limit "
                         f"of {max_bytes:,}{limit_note}")
    try:
        with open(p, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as err:
        raise InputError(f"{shown}: cannot read {what}: {err.strerror or err}") from None
    if len(data) > max_bytes:
        raise InputError(f"{shown}: the {what} has more than {max_bytes:,} bytes (the "
                         f"limit){limit_note}")
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
