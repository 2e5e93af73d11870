"""Real tensors shipped with the toolkit (see ``README.md`` beside this file).

``suitesparse/`` holds Matrix Market matrices, ``frostt/`` FROSTT ``.tns`` tensors. A data set
is named by its file name without extension, e.g. ``west0479`` or ``splatt-small``.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from formats.errors import ToolkitError

ROOT = Path(__file__).resolve().parent
#: Data kind (sub-folder) -> file extension.
KINDS = {"suitesparse": ".mtx", "frostt": ".tns"}


def _index() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for kind, ext in KINDS.items():
        for file in sorted((ROOT / kind).glob(f"*{ext}")):
            found[file.stem] = file
    return found


def names(kind: str | None = None) -> list[str]:
    """Sorted names of the shipped data sets, of one kind (``suitesparse``/``frostt``) or all."""
    if kind is None:
        return sorted(_index())
    if kind not in KINDS:
        raise ToolkitError(f"unknown data kind {kind!r}; use one of {', '.join(KINDS)}")
    return sorted(p.stem for p in (ROOT / kind).glob(f"*{KINDS[kind]}"))


def path(name: str) -> Path:
    """The file of a shipped data set, by name (an extension is allowed: ``west0479.mtx``)."""
    index = _index()
    stem = name
    for ext in KINDS.values():
        if stem.endswith(ext):
            stem = stem[: -len(ext)]
    if stem in index:
        return index[stem]
    close = difflib.get_close_matches(stem, list(index), n=3)
    hint = f"did you mean {', '.join(close)}? " if close else ""
    examples = ", ".join(["west0479", "LFAT5", "splatt-small", "sttid-Rnd1-zerobased"])
    raise ToolkitError(
        f"unknown tensor {name!r}: not a file and not a shipped data set; {hint}shipped names "
        f"include {examples} (all: python -c 'import formats.data as d; print(d.names())')"
    )


def zero_based(name: str) -> bool:
    """Whether a shipped ``.tns`` data set is written with 0-based coordinates.

    The ``-zerobased`` sttid tensors and SPLATT's ``_zeroidx`` test tensor (SPLATT reads a file
    holding a 0 as 0-based; as 1-based FROSTT it is invalid).
    """
    stem = path(name).stem
    return stem.endswith("-zerobased") or stem.endswith("_zeroidx")
