"""Reading a command's text inputs and writing its outputs (:mod:`sam.command`).

:func:`read_text` (:mod:`formats.text`) refuses, in one line naming the file, what a command
cannot use: a missing file, a folder, an empty file, one larger than the command's limit, and
bytes that are not UTF-8 (with the line and column of the first bad byte). Writers go through
:func:`formats.atomic.atomic_write`: the destination is replaced only by a complete file;
:func:`atomic_path` gives writers that want a file name (matplotlib, graphviz) a temporary one
renamed over the destination when they succeed.
"""

from __future__ import annotations

import io
import json
import os
from typing import Any

from formats.atomic import atomic_path, atomic_write
from formats.text import MAX_TEXT, InputError, read_text

__all__ = ["MAX_TEXT", "InputError", "atomic_path", "read_text", "write_json", "write_npy",
           "write_text"]


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
