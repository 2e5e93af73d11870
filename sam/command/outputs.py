"""Where a command's results go: checked before anything runs, so no work and no file is lost.

:func:`check_outputs` refuses, before any work, an output path that is one of the inputs (the
graph, a tensor file, a program) or another output of the same command, an output whose folder
is missing or not writable, and an output whose suffix the command cannot write. The files
themselves are written atomically (:mod:`sam.command.files`), so a failed write leaves an
existing file as it was.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
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
                  inputs: Iterable[str | os.PathLike | None],
                  suffixes: Mapping[str, Sequence[str]] | None = None) -> None:
    """Refuse clobbering, unwritable or unknown-type outputs (see module docstring).

    ``outputs`` maps each option (``-o``, ``--report``) to its path (``None``/``-`` = unused);
    ``inputs`` are the files the command reads (``None`` entries are skipped); ``suffixes``
    gives, per option, the file types it writes (``.json``; checked case-insensitively)."""
    given = [(opt, Path(p)) for opt, p in outputs.items() if p not in (None, "", "-")]
    read = [Path(p) for p in inputs if p not in (None, "", "-")]
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
        allowed = (suffixes or {}).get(opt)
        if allowed and path.suffix.lower() not in allowed:
            raise OutputError(f"{opt} {path}: unknown file type "
                              f"{path.suffix.lower() or '(no extension)'!r}; {opt} writes "
                              f"{', '.join(allowed)}")
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


def check_output_folder(option: str, path: str | os.PathLike,
                        inputs: Iterable[str | os.PathLike | None] = ()) -> Path:
    """A folder a command writes its files into (``reproduce -o DIR``), checked before any
    work: not an input, not a file, writable if it exists, else its parent must exist and be
    writable (the command creates the folder itself, one level only). Returns the path."""
    folder = Path(path)
    for src in inputs:
        if src not in (None, "", "-") and _same(folder, Path(src)):
            raise OutputError(f"{option} {folder}: that is an input of this command; choose "
                              "another folder")
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{option} {folder}: is a file, not a folder")
    if folder.is_dir():
        if not os.access(folder, os.W_OK | os.X_OK):
            raise OutputError(f"{option} {folder}: folder is not writable")
        return folder
    parent = folder.parent if str(folder.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"{option} {folder}: folder {parent} does not exist; create it first")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{option} {folder}: folder {parent} is not writable")
    return folder


#: the result files that hold matrices only
MATRIX_SUFFIXES = (".mtx", ".npz")


def check_result_order(option: str, output: str | os.PathLike | None, name: str, order: int,
                       others: str = ".tns or .npy") -> None:
    """Refuse a matrix-only file (``.mtx``, ``.npz``) for result ``name`` of another order;
    ``others`` names the file types that fit."""
    suffix = Path(output).suffix.lower() if output else ""
    if suffix in MATRIX_SUFFIXES and order != 2:
        raise OutputError(f"{option} {output}: {suffix} files hold matrices and the result "
                          f"{name} has order {order}; write {others}")


def check_result_fits(name: str, shape: Sequence[int | None], fmts: Sequence[object],
                      output: str | os.PathLike | None = None, option: str = "-o") -> None:
    """Refuse, before simulating, a result that cannot be stored: dense levels of one of its
    formats ``fmts`` (:class:`formats.format.Format`) over a shape too large for memory, or a
    dense ``.npy`` file of it (``output``). Modes of unknown size (``None``) are not judged."""
    if any(s is None for s in shape):
        return
    from formats.memory import dense_bytes, positions, too_large

    dims = " x ".join(f"{s:,}" for s in shape)
    for fmt in fmts:
        problem = too_large(dense_bytes(shape, fmt, 0))  # type: ignore[arg-type]
        if problem:
            raise OutputError(f"result {name} ({dims}) in format {fmt}: its dense levels "
                              f"{problem}; give {name} compressed levels (e.g. -f={name}:"
                              f"{'s' * len(shape)})")
    if output is not None and Path(output).suffix.lower() == ".npy":
        need = 8 * positions(shape)  # type: ignore[arg-type]
        problem = too_large(need)
        if problem:
            raise OutputError(f"{option} {output}: result {name} is {dims}; a dense .npy file "
                              f"of it {problem}; write .mtx or .tns "
                              "(its nonzeros only)")
