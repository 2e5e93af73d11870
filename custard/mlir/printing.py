"""What MLIR's runner prints: ``vector.print``, ``printMemref*`` and ``sparse_tensor.print``.

The MLIR sparsifier's integration tests check their output with FileCheck, so the host
interpreter (:mod:`custard.mlir.interp`) prints exactly what the compiled test prints:

* scalars as the runner's C functions do: floats with C's ``%g`` (``1``, ``2.5``, ``1e+10``,
  ``inf``, ``nan``; a NaN with its sign bit set is ``-nan``), integers in decimal, ``i1`` as
  ``0``/``1``;
* ``vector.print``: ``( 1, 2, 3 )``, nested for more dimensions (``( ( 1, 2 ), ( 3, 4 ) )``);
* ``printMemref*``: the header ``Unranked Memref base@ = 0x... rank = R offset = 0 sizes = [..]
  strides = [..] data =`` and the data in brackets, a row of a matrix per line, the elements
  after the first of a row preceded by ``rank - dim + 1`` spaces (``[[1,   2],`` /
  `` [3,   4]]``);
* ``sparse_tensor.print``: ``---- Sparse Tensor ----``, ``nse = N``, ``dim = ( .. )``,
  ``lvl = ( .. )``, ``pos[l] : ( .. )`` and ``crd[l] : ( .. )`` for each compressed level (a
  compressed level followed by singletons prints their coordinates interleaved, the
  array-of-structures COO storage), ``values : ( .. )``, ``----``.
"""

from __future__ import annotations

import math

import numpy as np

from custard.mlir.encoding import ELEMENT_TYPES
from custard.mlir.values import cast_values
from formats.tensor import Tensor

#: a fixed fake address for printMemref's header (FileCheck lines match it with a regex)
BASE = "0x0"


def scalar_text(value: object, element: str) -> str:
    """One element as the runner prints it (``element``: MLIR element type name)."""
    if element.startswith("f") or element == "bf16":
        x = float(value)  # type: ignore[arg-type]
        if math.isnan(x):
            return "-nan" if math.copysign(1.0, x) < 0 else "nan"
        return f"{x:g}"
    if element == "i1":
        return "1" if bool(value) else "0"
    return str(int(value))  # type: ignore[call-overload]


def vector_text(array: np.ndarray, element: str) -> str:
    """``vector.print`` of a vector (``( 1, 2 )``, nested for more dimensions)."""
    arr = np.asarray(array)
    if arr.ndim == 0:
        return scalar_text(arr[()], element)
    return "( " + ", ".join(vector_text(a, element) for a in arr) + " )"


def memref_text(array: np.ndarray, element: str) -> str:
    """``printMemref*`` of a dense array: header line and data, ending with a newline."""
    arr = np.asarray(array)
    rank = arr.ndim
    strides = [int(s) // arr.itemsize for s in np.ascontiguousarray(arr).strides] if rank else []
    sizes = ", ".join(str(s) for s in arr.shape)
    head = (f"Unranked Memref base@ = {BASE} rank = {rank} offset = 0 sizes = [{sizes}] "
            f"strides = [{', '.join(map(str, strides))}] data = \n")
    if rank == 0:
        return head + "[" + scalar_text(arr[()], element) + "]\n"
    if arr.size == 0:
        return head + "[]\n"
    return head + _memref_data(arr, rank, rank, element) + "\n"


def _memref_data(arr: np.ndarray, dim: int, rank: int, element: str) -> str:
    """The runner's recursive data printer (MemRefDataPrinter)."""
    if dim == 0:
        return scalar_text(arr[()], element)
    n = arr.shape[0]
    out = ["[", _memref_data(arr[0], dim - 1, rank, element)]
    if n <= 1:
        out.append("]")
        return "".join(out)
    sep = ", " + ("\n" if dim > 1 else "")
    out.append(sep)
    pad = " " * (rank - dim + 1)
    for i in range(1, n - 1):
        out += [pad, _memref_data(arr[i], dim - 1, rank, element), sep]
    out += [pad, _memref_data(arr[n - 1], dim - 1, rank, element), "]"]
    return "".join(out)


def sparse_text(tensor: Tensor, element: str) -> str:
    """``sparse_tensor.print`` of a sparse tensor (see module docstring), ending with a
    newline."""
    fmt = tensor.format
    lvl_sizes = [tensor.shape[m] for m in fmt.mode_order]
    lines = ["---- Sparse Tensor ----", f"nse = {len(tensor.vals)}",
             f"dim = {_tuple(tensor.shape)}", f"lvl = {_tuple(lvl_sizes)}"]
    levels = tensor.levels
    k = 0
    while k < len(levels):
        level = levels[k]
        if level.positions == "segment" and level.coordinates == "stored":  # compressed
            lines.append(f"pos[{k}] : {_tuple(level.seg)}")
            crd = [np.asarray(level.crd)]
            j = k + 1
            while j < len(levels) and levels[j].positions == "single":  # its singletons
                crd.append(np.asarray(levels[j].crd))
                j += 1
            inter = np.stack(crd, axis=1).reshape(-1) if len(crd) > 1 else crd[0]
            lines.append(f"crd[{k}] : {_tuple(inter)}")
            k = j
            continue
        if level.positions == "single":
            lines.append(f"crd[{k}] : {_tuple(level.crd)}")
        k += 1
    vals = cast_values(tensor.vals, np.dtype(ELEMENT_TYPES.get(element, "float64")))
    lines.append(f"values : {vector_text(vals, element) if len(vals) else '( )'}")
    lines.append("----")
    return "\n".join(lines) + "\n"


def _tuple(values: object) -> str:
    items = [str(int(v)) for v in np.asarray(values).reshape(-1)]
    return "( " + ", ".join(items) + " )" if items else "( )"
