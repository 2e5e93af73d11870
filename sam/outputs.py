"""Where a command's results go: checked before anything runs, so no work and no file is lost.

:func:`check_outputs` refuses, before a simulation starts, an output path that is one of the
inputs (the graph, a tensor file) or another output of the same command, and an output whose
folder is missing or not writable. The files themselves are written atomically (a temporary in
the same folder, then a rename: :func:`formats.atomic.atomic_write`), so a failed write leaves an
existing file as it was.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from formats.errors import ToolkitError


class OutputError(ToolkitError):
    """An output path that would clobber an input or another output, or cannot be written."""


def _same(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and a.samefile(b) or a.resolve() == b.resolve()
    except OSError:
        return a.resolve() == b.resolve()


def check_outputs(outputs: Mapping[str, str | os.PathLike | None],
                  inputs: Iterable[str | os.PathLike]) -> None:
    """Refuse clobbering or unwritable outputs (see module docstring).

    ``outputs`` maps each option (``-o``, ``--report``) to its path (``None``/``-`` = unused);
    ``inputs`` are the files the command reads."""
    given = [(opt, Path(p)) for opt, p in outputs.items() if p not in (None, "", "-")]
    read = [Path(p) for p in inputs]
    for k, (opt, path) in enumerate(given):
        for src in read:
            if _same(path, src):
                raise OutputError(f"{opt} {path}: that is an input of this command; writing it "
                                  "would overwrite it, choose another file name")
        for other_opt, other in given[:k]:
            if _same(path, other):
                raise OutputError(f"{opt} {path}: {other_opt} writes the same file; give each "
                                  "output its own name")
        if path.is_dir():
            raise OutputError(f"{opt} {path}: is a folder; give a file name")
        folder = path.parent if str(path.parent) else Path(".")
        if not folder.is_dir():
            raise OutputError(f"{opt} {path}: folder {folder} does not exist; create it first")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise OutputError(f"{opt} {path}: folder {folder} is not writable")
        if path.exists() and not os.access(path, os.W_OK):
            raise OutputError(f"{opt} {path}: the existing file is not writable")


def input_files(specs: Mapping[str, str]) -> list[str]:
    """The tensor specs of ``-t NAME=SPEC`` that name existing files."""
    return [spec for spec in specs.values() if os.path.isfile(spec)]
