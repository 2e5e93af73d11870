"""Files written whole or not at all.

:func:`atomic_write` opens a temporary file next to the destination (same folder, so the same
file system) and, when the ``with`` block ends normally, renames it over the destination in one
step (``os.replace``). If anything fails on the way (an exception in the block, a full disk, an
interrupt) the temporary file is removed and an existing file at the destination is left
exactly as it was. Every writer of results in :mod:`formats` goes through it;
:func:`atomic_path` does the same for writers that want a file name (matplotlib, graphviz).

Details: the new file gets the permissions of the file it replaces (else the usual ``0o666``
less the umask, as ``open`` would give); a symbolic link is followed, so the file it points to
is replaced and the link kept; a destination that exists but is not a regular file (``/dev/null``,
a named pipe) cannot be replaced and is written directly. Operating-system failures become one
:class:`~formats.errors.ToolkitError` line, ``PATH: cannot write: REASON``.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from formats.errors import ToolkitError


@contextmanager
def atomic_write(path: str | Path) -> Iterator[BinaryIO]:
    """A binary file object whose contents replace ``path`` only if the block succeeds."""
    with _replacing(path, lambda t: (f".{t.name}.", ".part")) as temp:
        with open(temp, "wb") as out:
            yield out
            out.flush()
            if stat.S_ISREG(os.fstat(out.fileno()).st_mode):  # not a device or pipe
                os.fsync(out.fileno())


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary file name beside ``path``, with its suffix, for a writer that wants a name
    (``fig.savefig(tmp)``); renamed over ``path`` only if the block succeeds, removed if not
    (the same rules as :func:`atomic_write`)."""
    with _replacing(path, lambda t: (f".{t.stem}.", t.suffix)) as temp:
        yield temp


@contextmanager
def _replacing(path: str | os.PathLike, affixes: Callable[[Path], tuple[str, str]]
               ) -> Iterator[Path]:
    """The file to write in place of ``path``: a temporary beside it (named with the prefix
    and suffix ``affixes(target)`` gives) renamed over it, with its permissions, when the block
    succeeds; ``path`` itself when it is a device or pipe (see module docstring)."""
    shown = str(path)
    target = Path(os.path.realpath(path))
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as err:
        raise _cannot_write(shown, err) from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise ToolkitError(f"{shown}: cannot write: it is a directory")
    if info is not None and not stat.S_ISREG(info.st_mode):
        try:  # a device or pipe: nothing to protect, nothing to rename over
            yield target
        except OSError as err:
            raise _cannot_write(shown, err) from None
        return
    prefix, suffix = affixes(target)
    try:
        fd, temp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=target.parent)
        os.close(fd)
    except OSError as err:
        raise _cannot_write(shown, err) from None
    try:
        yield Path(temp)
        os.chmod(temp, stat.S_IMODE(info.st_mode) if info is not None else _default_mode())
        os.replace(temp, target)
    except BaseException as err:
        try:
            os.unlink(temp)
        except OSError:
            pass
        if isinstance(err, OSError):
            raise _cannot_write(shown, err) from None
        raise


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see module docstring)."""
    with atomic_write(path) as out:
        out.write(data)


def _default_mode() -> int:
    """``0o666`` less the process umask (what ``open`` gives a new file)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _cannot_write(path: str, err: OSError) -> ToolkitError:
    return ToolkitError(f"{path}: cannot write: {err.strerror or err}")
