"""Which code and data a process computes with: what a sweep's cache key holds and what a Dask
worker must share with the client before it computes a point.

* :func:`code_hash` hashes every file of the toolkit's packages (``formats``, ``sam``,
  ``custard``: the code, the memory configurations ``sam/memory_configs/*.yaml``, the shipped
  matrices and tensors ``formats/data``; not ``__pycache__``), paths and contents;
* :func:`changed_since_load` lists those files modified after this process first imported the
  toolkit (:data:`formats.LOADED_AT`): a process started before a code change still runs the
  old code, whatever its files say now, so hashing the files is not enough;
* :func:`named_files` gives the digests of the files a point names (an absolute path among its
  values, e.g. a ``--matrices`` file), which are part of the point's key.

:func:`problems` compares what a process reports (:func:`identity`, run on each worker) with
what the client expects, in words for the one-line refusal.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("formats", "sam", "custard")
#: files named in a report of changed files (the rest are counted)
SHOWN = 3


def toolkit_files() -> Iterator[Path]:
    """Every file of the toolkit's packages, in a fixed order (no caches, no hidden files)."""
    for pkg in PACKAGES:
        for folder, dirs, files in os.walk(ROOT / pkg):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
            for name in sorted(files):
                if not name.startswith(".") and not name.endswith((".pyc", ".pyo")):
                    yield Path(folder) / name


@cache
def code_hash() -> str:
    """A hash of the toolkit's files (paths relative to the installation, and contents),
    computed once per process."""
    h = hashlib.sha256()
    for path in toolkit_files():
        h.update(str(path.relative_to(ROOT)).encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


def changed_since_load() -> list[str]:
    """The toolkit's files (relative paths) modified after this process first imported the
    toolkit; files dated in the future (a clock problem, not a change) are left out."""
    import formats

    loaded, now = formats.LOADED_AT, time.time()
    changed = []
    for path in toolkit_files():
        try:
            mtime = path.stat().st_mtime
        except OSError:  # removed meanwhile: a change
            mtime = now
        if loaded < mtime <= now:
            changed.append(str(path.relative_to(ROOT)))
    return changed


@cache
def _digest(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def file_digest(path: str) -> str:
    """A hash of the contents of ``path`` (cached while its size and date stay the same)."""
    info = os.stat(path)
    return _digest(path, info.st_size, info.st_mtime_ns)


def named_files(point: Mapping[str, Any]) -> dict[str, str]:
    """``{path: digest}`` of the existing files a point names by absolute path."""
    return {v: file_digest(v) for v in point.values()
            if isinstance(v, str) and os.path.isabs(v) and os.path.isfile(v)}


def identity(files: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What this process computes with: its toolkit's hash, the files changed since it loaded
    the toolkit, where it is installed, and the digests it sees of ``files`` (paths)."""
    seen = {}
    for path in files or {}:
        try:
            seen[path] = file_digest(path)
        except OSError as err:
            seen[path] = f"unreadable ({err.strerror or err})"
    return {"code": code_hash(), "changed": changed_since_load(), "root": str(ROOT),
            "host": os.uname().nodename, "files": seen}


def problems(found: Mapping[str, Any], code: str, files: Mapping[str, str] | None = None
             ) -> str | None:
    """Why a process reporting ``found`` (:func:`identity`) cannot compute for a client whose
    toolkit hashes to ``code`` and who reads ``files`` (``{path: digest}``); ``None`` when it
    can."""
    why = []
    if found.get("code") != code:
        why.append(f"other toolkit files (hash {found.get('code')} in {found.get('root')} on "
                   f"{found.get('host')}; here {code})")
    changed = found.get("changed") or []
    if changed:
        more = f" and {len(changed) - SHOWN} more" if len(changed) > SHOWN else ""
        why.append(f"its files changed after it loaded them ({', '.join(changed[:SHOWN])}"
                   f"{more}): it runs the old code")
    for path, digest in (files or {}).items():
        got = found.get("files", {}).get(path)
        if got != digest:
            why.append(f"its {path} differs" if got and not got.startswith("unreadable")
                       else f"it cannot read {path}")
    return "; ".join(why) or None
