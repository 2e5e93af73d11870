"""The host interpreter's values: types, constants and tensor files (:mod:`custard.mlir.interp`).

Host values are numpy scalars of the element type (``f64`` -> ``float64``, ``i32`` -> ``int32``,
``i1`` -> ``bool``, ``index`` -> ``int64``), numpy arrays for dense tensors, memrefs and vectors
(of the same dtypes), :class:`Sparse` for sparse tensors (a :class:`~formats.tensor.Tensor` and
its type) and :class:`SparseConst` for an ``arith.constant sparse<...>`` (a dense tensor whose
listed entries, zeros included, are the ones a conversion to a sparse type stores).

Constants are read from their text: scalars (decimal, ``true``/``false``, and hexadecimal bit
patterns for floats, ``0x7FF0000000000000 : f64`` = inf), ``dense<...>`` (a splat value or
nested lists) and ``sparse<[[i, j], ...], [v, ...]>``. Tensor files are read as MLIR's runtime
reads them: ``.mtx`` (Matrix Market, :mod:`formats.mtx`) and ``.tns`` in the extended FROSTT
form (a ``rank nnz`` line and a line of dimension sizes before the 1-based entries).
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from custard.mlir.encoding import ELEMENT_TYPES, TensorType, parse_type
from custard.mlir.syntax import Loc, MlirError, Module, error, split_top
from formats.errors import ToolkitError
from formats.tensor import Tensor


@dataclass(frozen=True)
class HostType:
    """A type as the interpreter needs it: kind (``scalar``, ``tensor``, ``memref``,
    ``vector``, ``other``), shape (None when unranked), element type, resolved text."""

    kind: str
    shape: tuple[int | None, ...] | None
    element: str
    text: str

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(ELEMENT_TYPES.get(self.element, "float64"))


_SHAPED = re.compile(r"(tensor|memref|vector)<(.*)>", re.S)


def host_type(text: str, module: Module, loc: Loc) -> HostType:
    """The :class:`HostType` of a type's text (aliases resolved)."""
    full = module.resolve(text).strip()
    m = _SHAPED.fullmatch(full)
    if m is None:
        if full in ELEMENT_TYPES or re.fullmatch(r"[fi][0-9]+|bf16", full):
            check_element(full, loc)
            return HostType("scalar", (), full, full)
        return HostType("other", None, full, full)
    parts = split_top(m.group(2), ",")
    head = re.sub(r"\s+", "", parts[0]) if parts else ""
    sizes = re.match(r"(?:(?:[0-9]+|\?|\*)x)*", head)
    dims = [*sizes.group(0).split("x")[:-1], head[sizes.end():]] if sizes else [head]
    element = dims[-1]
    check_element(element, loc)
    if dims[:-1] == ["*"]:
        return HostType(m.group(1), None, element, full)
    shape = tuple(None if d == "?" else int(d) for d in dims[:-1] if d)
    return HostType(m.group(1), shape, element, full)


def check_element(element: str, loc: Loc) -> None:
    if element not in ELEMENT_TYPES:
        raise error(loc, f"element type '{element}' is not supported by the host interpreter "
                         f"(supported: {', '.join(ELEMENT_TYPES)})")


@dataclass
class Sparse:
    """A sparse tensor value: its fibertree and its MLIR type (format, element type)."""

    tensor: Tensor
    type: TensorType
    _dense: np.ndarray | None = field(default=None, repr=False)

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(ELEMENT_TYPES[self.type.element])

    def dense(self) -> np.ndarray:
        """The dense array (cached; the tensor is never changed in place)."""
        if self._dense is None:
            self._dense = cast_values(self.tensor.to_dense(), self.dtype)
        return self._dense


@dataclass
class SparseConst:
    """``arith.constant sparse<...>``: the dense array and the listed entries."""

    array: np.ndarray
    coords: np.ndarray
    vals: np.ndarray


def cast_values(vals: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``vals`` in ``dtype``: integers rounded, wrapped to their width as C casts do."""
    dtype = np.dtype(dtype)
    vals = np.asarray(vals)
    if dtype.kind in "iu" and vals.dtype.kind == "f":
        with np.errstate(all="ignore"):
            return np.rint(np.nan_to_num(vals)).astype(np.int64).astype(dtype)
    if dtype.kind == "b" and vals.dtype.kind != "b":
        return vals != 0
    return vals.astype(dtype)


# ---------------------------------------------------------------------------- constants
_NUMBER = re.compile(r"\s*(\[|\]|,|true|false|[-+]?(?:0x[0-9A-Fa-f]+|inf|nan|"
                     r"[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?))")


def scalar_value(text: str, element: str, loc: Loc) -> np.generic:
    """A scalar constant's text (``-1.5``, ``0x7FF0000000000000``, ``true``) as a numpy
    scalar of ``element``."""
    dtype = np.dtype(ELEMENT_TYPES[element])
    t = text.strip()
    if t in ("true", "false"):
        return dtype.type(t == "true")
    neg = t.startswith("-")
    body = t.lstrip("+-")
    try:
        if body.lower().startswith("0x"):
            bits = int(body, 16)
            if dtype.kind == "f":
                fmt, width = ("<d", 8) if dtype.itemsize == 8 else ("<f", 4)
                value = struct.unpack(fmt, bits.to_bytes(width, "little"))[0]
                return dtype.type(-value if neg else value)
            number: int | float = -bits if neg else bits
        elif dtype.kind == "f":
            number = float(t)
        else:
            number = int(float(t)) if re.search(r"[.eE]", t) else int(t)
    except (ValueError, OverflowError):
        raise error(loc, f"cannot read the constant '{text}' as {element}") from None
    if dtype.kind == "b":
        return np.bool_(number != 0)
    if dtype.kind in "iu":
        return np.array(number).astype(np.int64).astype(dtype)[()] \
            if abs(int(number)) < 2**63 else dtype.type(0)
    return dtype.type(number)


def nested_list(text: str, element: str, loc: Loc) -> object:
    """``[[1, 2], [3, 4]]`` (or a single value) as nested Python lists of numpy scalars."""
    text = re.sub(r"//[^\n]*", "", text)
    pos, stack, top = 0, [[]], None
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _NUMBER.match(text, pos)
        if m is None:
            raise error(loc, f"cannot read the constant's element list near "
                             f"'{text[pos:pos + 20].strip()}' (complex or string elements "
                             "are not supported)")
        tok = m.group(1)
        pos = m.end()
        if tok == "[":
            stack.append([])
        elif tok == "]":
            done = stack.pop()
            if not stack:
                raise error(loc, "unbalanced ']' in a constant")
            stack[-1].append(done)
        elif tok != ",":
            stack[-1].append(scalar_value(tok, element, loc))
    if len(stack) != 1:
        raise error(loc, "unbalanced '[' in a constant")
    top = stack[0]
    return top[0] if len(top) == 1 else top


def dense_constant(text: str, t: HostType, loc: Loc) -> np.ndarray:
    """The array of ``dense<...>`` for a static type ``t``."""
    if t.shape is None or any(d is None for d in t.shape):
        raise error(loc, f"a dense constant of dynamic type {t.text}")
    inner = text[text.index("<") + 1:text.rindex(">")].strip()
    if inner.startswith('"0x'):
        raw = bytes.fromhex(inner.strip('"')[2:])
        arr = np.frombuffer(raw, dtype=t.dtype.newbyteorder("<")).astype(t.dtype)
        if arr.size == 1:
            return np.full(t.shape, arr[0], dtype=t.dtype)
        return arr.reshape(t.shape)
    value = nested_list(inner, t.element, loc)
    arr = np.array(value, dtype=t.dtype)
    if arr.ndim == 0:
        return np.full(t.shape, arr[()], dtype=t.dtype)
    if arr.shape != t.shape:
        if arr.size == int(np.prod(t.shape)):
            return arr.reshape(t.shape)
        raise error(loc, f"the constant's shape {arr.shape} is not its type's {t.shape}")
    return arr


def sparse_constant(text: str, t: HostType, loc: Loc) -> SparseConst:
    """``sparse<[[i, j], ...], [v, ...]>`` for a static type ``t``."""
    if t.shape is None or any(d is None for d in t.shape):
        raise error(loc, f"a sparse constant of dynamic type {t.text}")
    inner = re.sub(r"//[^\n]*", "", text[text.index("<") + 1:text.rindex(">")])
    parts = split_top(inner, ",")
    if len(parts) != 2:
        raise error(loc, "expected sparse<[coordinates], [values]>")
    rank = len(t.shape)
    coords = np.array(nested_list(parts[0], "index", loc), dtype=np.int64).reshape(-1, rank)
    vals = np.array(nested_list(parts[1], t.element, loc), dtype=t.dtype).reshape(-1)
    if len(vals) == 1 and len(coords) > 1:
        vals = np.full(len(coords), vals[0], dtype=t.dtype)
    if len(vals) != len(coords):
        raise error(loc, f"{len(coords)} coordinates and {len(vals)} values in a sparse "
                         "constant")
    arr = np.zeros(t.shape, dtype=t.dtype)
    if len(coords):
        if np.any(coords < 0) or np.any(coords >= np.array(t.shape)):
            raise error(loc, f"a sparse constant's coordinate is outside {t.shape}")
        arr[tuple(coords.T)] = vals
    return SparseConst(arr, coords, vals)


# -------------------------------------------------------------------------------- files
#: the largest rank MLIR's tensor reader accepts
MAX_RANK = 510


def read_tensor_file(path: str, ttype: TensorType, loc: Loc, crd_width: int = 0) -> Tensor:
    """A ``.mtx`` or (extended) ``.tns`` file as a Tensor in ``ttype``'s format
    (``crd_width``: the encoding's ``crdWidth``, 0 for 64 bits)."""
    fmt = ttype.format_or_dense()
    file = Path(path)
    if not file.is_file():
        raise error(loc, f"sparse_tensor.new: no tensor file '{path}'")
    try:
        if file.suffix.lower() == ".mtx":
            from formats.mtx import read_mtx

            tensor = read_mtx(file, fmt, sum_duplicates=True)
        elif file.suffix.lower() == ".tns":
            tensor = _read_extended_tns(file, fmt, loc, crd_width)
        else:
            raise error(loc, f"sparse_tensor.new: '{path}' is neither .mtx nor .tns")
    except MlirError:
        raise
    except ToolkitError as err:
        raise error(loc, f"sparse_tensor.new: {err}") from None
    if len(tensor.shape) != ttype.rank or any(
            d is not None and d != s for d, s in zip(ttype.shape, tensor.shape, strict=True)):
        raise error(loc, f"sparse_tensor.new: '{file.name}' holds a tensor of shape "
                         f"{tensor.shape}, the type says {ttype.shape}")
    return tensor


def _read_extended_tns(file: Path, fmt: object, loc: Loc, crd_width: int = 0) -> Tensor:
    """MLIR's ``.tns``: ``rank nnz``, the dimension sizes, then ``i j ... value`` lines; a bad
    file is refused with the message MLIR's reader gives."""
    rows = []
    for line in file.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            rows.append(line.split())
    if len(rows) < 2 or len(rows[0]) != 2:
        raise error(loc, f"sparse_tensor.new: {file.name} lacks the extended FROSTT header "
                         "('rank nnz' and the dimension sizes)")
    rank, nnz = int(rows[0][0]), int(rows[0][1])
    if rank > MAX_RANK:
        raise error(loc, f"sparse_tensor.new: {file.name}: Tensor rank {rank} exceeds maximum "
                         f"supported rank {MAX_RANK}")
    shape = [int(x) for x in rows[1]]
    body = rows[2:2 + nnz]
    if len(shape) != rank or len(body) != nnz or any(len(r) != rank + 1 for r in body):
        raise error(loc, f"sparse_tensor.new: {file.name} does not hold {nnz} entries of "
                         f"rank {rank}")
    coords = np.zeros((nnz, rank), dtype=np.int64)
    for n, r in enumerate(body):
        for d in range(rank):
            text = r[d]
            if not text.isdigit() or int(text) >= 2**64:
                raise error(loc, f"sparse_tensor.new: {file.name}: Cannot parse coordinate for "
                                 f"dimension {d}")
            c = int(text)
            if c < 1 or c > shape[d]:
                raise error(loc, f"sparse_tensor.new: {file.name}: Coordinate {c} is out of "
                                 f"bounds for dimension {d} with size {shape[d]}")
            if crd_width and c - 1 >= 2**crd_width:
                raise error(loc, f"sparse_tensor.new: {file.name}: Coordinate {c} cannot be "
                                 "represented by the requested coordinate type")
            coords[n, d] = c - 1
    vals = np.array([float(r[rank]) for r in body], dtype=np.float64)
    return Tensor.from_coo(coords.reshape(nnz, rank), vals, shape, fmt)


def tensor_type(t: HostType, module: Module, loc: Loc) -> TensorType:
    """The :class:`TensorType` (format included) of a ranked tensor type."""
    return parse_type(t.text, module, loc)


class Scope:
    """SSA values of a region, falling back to the enclosing regions'."""

    __slots__ = ("vals", "parent")

    def __init__(self, parent: Scope | None = None) -> None:
        self.vals: dict[str, object] = {}
        self.parent = parent

    def get(self, name: str, loc: Loc) -> object:
        s: Scope | None = self
        while s is not None:
            if name in s.vals:
                return s.vals[name]
            s = s.parent
        raise error(loc, f"{name} is used before it is defined")


# ------------------------------------------------------------------------- conversions
def dense_of(value: object, loc: Loc) -> np.ndarray:
    """A host tensor/memref value as a dense numpy array."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, Sparse):
        return value.dense()
    if isinstance(value, SparseConst):
        return value.array
    if isinstance(value, (np.generic, int, float)):
        return np.asarray(value)
    raise error(loc, f"expected a tensor, got {type(value).__name__}")


def kernel_value(value: object) -> object:
    """A host value as a kernel argument (a Tensor, a float64 array or a float)."""
    if isinstance(value, Sparse):
        return value.tensor
    if isinstance(value, SparseConst):
        return value.array.astype(np.float64)
    if isinstance(value, np.ndarray):
        return value.astype(np.float64)
    return float(value)  # type: ignore[arg-type]


def host_value(tensor: Tensor, t: TensorType) -> object:
    """A kernel's output as a host value: Sparse for a sparse type, else an array of the
    element type (integers rounded)."""
    if t.sparse:
        if t.element not in ("f64", "f32"):
            vals = np.rint(np.nan_to_num(tensor.vals))
            tensor = Tensor(tensor.shape, tensor.format, tensor.levels, vals, tensor.name)
        return Sparse(tensor, t)
    return cast_values(tensor.to_dense(), np.dtype(t.dtype))
