"""Load and save tensors by file extension, or load a shipped data set by name.

========  =====================================================  ==========================
suffix    contents                                               reader / writer
========  =====================================================  ==========================
``.mtx``  Matrix Market matrix                                   :mod:`formats.mtx`
``.tns``  FROSTT tensor                                          :mod:`formats.frostt`
``.npy``  dense numpy array (any order; nonzeros are stored)     :mod:`formats.numpyfile`
``.npz``  scipy.sparse matrix saved with ``save_npz``            :mod:`formats.numpyfile`
``.rag``  ragged tensor: lengths, then values (``dr``/``drd``)     :mod:`formats.ragged`
========  =====================================================  ==========================
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from formats import data
from formats.atomic import atomic_write
from formats.errors import ReadError, ToolkitError
from formats.format import Format
from formats.frostt import read_tns, write_tns
from formats.mtx import read_mtx, write_mtx
from formats.numpyfile import read_npy, read_npz
from formats.ragged import read_ragged, write_ragged
from formats.tensor import Tensor

SUFFIXES = (".mtx", ".tns", ".npy", ".npz", ".rag")


def load_tensor(source: str | Path, fmt: Format | str | None = None, **kw: Any) -> Tensor:
    """Load a tensor from a file (by extension) or a shipped data set name (``west0479``).

    Keyword arguments go to the reader (e.g. ``shape=``, ``zero_based=`` for ``.tns``;
    ``sum_duplicates=`` for ``.mtx``/``.tns``; ``name=`` for all). A shipped ``-zerobased``
    ``.tns`` data set is read 0-based unless ``zero_based`` is given.
    """
    file = Path(source)
    if not file.exists():
        text = str(source)
        if "/" in text or "\\" in text or file.suffix.lower() in SUFFIXES:
            try:
                file = data.path(text)
            except ToolkitError:
                raise ReadError(text, "no such file") from None
        else:
            file = data.path(text)
        if file.suffix == ".tns":
            kw.setdefault("zero_based", data.zero_based(file.stem))
    if file.is_dir():
        raise ReadError(str(file), "is a directory, not a tensor file")
    suffix = file.suffix.lower()
    if suffix == ".mtx":
        extra = set(kw) - {"name", "sum_duplicates"}
        if extra:  # .tns options (zero_based=, shape=): a Matrix Market file records both
            raise ToolkitError(f".mtx files take no option {', '.join(sorted(extra))}")
        return read_mtx(file, fmt, **kw)
    if suffix == ".tns":
        return read_tns(file, fmt, **kw)
    if suffix in (".npy", ".npz"):
        extra = set(kw) - {"name"}
        if extra:
            raise ToolkitError(f"{suffix} files take no option {', '.join(sorted(extra))}")
        read = read_npy if suffix == ".npy" else read_npz
        return read(file, fmt, name=kw.get("name"))
    if suffix == ".rag":
        extra = set(kw) - {"name", "pad", "spad"}
        if extra:
            raise ToolkitError(f".rag files take no option {', '.join(sorted(extra))}")
        return read_ragged(file, fmt, **kw)
    raise ReadError(
        str(file), f"unknown file type {suffix or '(no extension)'!r}; use {', '.join(SUFFIXES)}"
    )


def save_tensor(tensor: Tensor, path: str | Path) -> None:
    """Save by extension: ``.mtx`` (order 2), ``.tns``, ``.npy`` (dense), ``.npz`` (order 2).

    Every file is written to a temporary name and renamed when complete, so a failed write
    leaves an existing file intact (:mod:`formats.atomic`).
    """
    file = Path(path)
    suffix = file.suffix.lower()
    if suffix == ".mtx":
        write_mtx(tensor, file)
    elif suffix == ".tns":
        write_tns(tensor, file)
    elif suffix == ".npy":
        array = tensor.to_dense()
        with atomic_write(file) as out:
            np.save(out, array, allow_pickle=False)
    elif suffix == ".rag":
        write_ragged(tensor, file)
    elif suffix == ".npz":
        matrix = tensor.to_scipy().tocsr()
        with atomic_write(file) as out:
            import scipy.sparse as sp

            sp.save_npz(out, matrix)
    else:
        raise ToolkitError(
            f"{file}: unknown file type {suffix or '(no extension)'!r}; use {', '.join(SUFFIXES)}"
        )
