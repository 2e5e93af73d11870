"""``#sparse_tensor.encoding`` and tensor types, mapped onto our level formats (SAM Sec. 3.1).

A sparse tensor type ``tensor<4x?xf64, #CSR>`` gives a shape, an element type and an encoding.
The encoding says, for each stored level from the root, which dimension it stores and its level
type. Both spellings MLIR has used are read:

* current: ``map = (d0, d1) -> (d1 : dense, d0 : compressed)`` (``(nonunique)``,
  ``(nonordered)`` properties after a level type);
* older: ``lvlTypes``/``dimLevelType = ["dense", "compressed-nu", "singleton"]`` with
  ``dimToLvl``/``dimOrdering = affine_map<(i, j) -> (j, i)>``.

Level types map to our level formats (:mod:`formats.levels`): ``dense`` -> ``d``,
``compressed`` -> ``s``, ``compressed(nonunique)`` -> ``u``, ``singleton`` -> ``q``,
``singleton(nonunique)`` -> ``c``; ``loose_compressed`` -> ``s`` (a compressed level whose
positions come in (lo, hi) pairs: the same fibers, so the same level abstraction; only its
position array differs). The permutation becomes the format's mode order. Block maps
(``d0 floordiv 2``), ``n_out_of_m``/``structured`` levels and ``nonordered`` levels have no level
format of ours and are refused in one line naming the construct. ``posWidth``/``crdWidth`` (bit
widths of the stored arrays) do not change the tensor and are ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from custard.mlir.syntax import Loc, Module, dict_entries, error, split_top
from formats.format import Format

#: MLIR level type -> our level letter
LEVEL_LETTERS = {
    "dense": "d", "compressed": "s", "compressed(nonunique)": "u", "singleton": "q",
    "singleton(nonunique)": "c", "loose_compressed": "s", "compressed-nu": "u",
    "singleton-nu": "c", "compressed_nu": "u", "singleton_nu": "c",
    "loose_compressed(nonunique)": "u",
}
#: element types we compute (as float64 or int64) -> numpy dtype name
ELEMENT_TYPES = {"f64": "float64", "f32": "float32", "i64": "int64", "i32": "int32",
                 "i16": "int16", "i8": "int8", "i1": "bool", "index": "int64"}


@dataclass(frozen=True)
class TensorType:
    """A ranked tensor (or memref) type: shape (None for ``?``), element type, format (None
    for a dense tensor without encoding)."""

    shape: tuple[int | None, ...]
    element: str
    fmt: Format | None = None
    kind: str = "tensor"

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def sparse(self) -> bool:
        return self.fmt is not None

    def format_or_dense(self) -> Format:
        """The format a kernel reads it in: its encoding, or dense levels (``d`` per mode)."""
        return self.fmt or Format.parse("d" * self.rank)

    @property
    def dtype(self) -> str:
        return ELEMENT_TYPES[self.element]


_SHAPED = re.compile(r"(tensor|memref|vector)<(.*)>", re.S)


def parse_type(text: str, module: Module, loc: Loc) -> TensorType:
    """A ``tensor<...>``, ``memref<...>`` or ``vector<...>`` type (aliases resolved)."""
    text = module.resolve(text).strip()
    m = _SHAPED.fullmatch(text)
    if m is None:
        raise error(loc, f"expected a tensor type, found '{text}'")
    kind, body = m.group(1), m.group(2)
    parts = split_top(body, ",")
    head = parts[0].replace(" ", "") if parts else ""
    lead = re.match(r"((?:(?:\?|\*|[0-9]+)x)*)(.*)", head, re.S)
    assert lead is not None
    dims = [d for d in lead.group(1).split("x") if d] + [lead.group(2)]
    element = lead.group(2)
    if element.startswith("complex") or element in ("f16", "bf16"):
        raise error(loc, f"element type {element} is not lowered to SAM (SAM's values are "
                         "real numbers; use f32/f64 or an integer type)")
    if element not in ELEMENT_TYPES:
        raise error(loc, f"element type '{element}' is not lowered (use f64, f32, i64, i32, "
                         "i16, i8)")
    shape: list[int | None] = []
    for d in dims[:-1]:
        if d == "?":
            shape.append(None)
        elif d.isdigit():
            shape.append(int(d))
        elif d == "*":
            raise error(loc, f"unranked type '{text}' is not lowered (give the rank)")
        else:
            raise error(loc, f"bad dimension '{d}' in '{text}'")
    fmt = None
    if kind == "tensor" and len(parts) > 1:
        fmt = parse_encoding(parts[1], len(shape), loc)
    return TensorType(tuple(shape), element, fmt, kind)


def parse_encoding(text: str, rank: int, loc: Loc) -> Format | None:
    """The :class:`Format` of ``#sparse_tensor.encoding<{...}>`` for a tensor of ``rank``
    dimensions (None for an encoding-free attribute)."""
    text = text.strip()
    prefix = "#sparse_tensor.encoding<"
    if not text.startswith(prefix):
        return None
    entries = dict_entries(text[len(prefix):-1])
    if "#sparse_tensor<slice" in text:
        raise error(loc, "sparse tensor slices (#sparse_tensor<slice(...)>) are not lowered: "
                         "SAM scans whole levels; extract the slice into its own tensor")
    if "map" in entries:
        letters, order = _from_map(entries["map"], rank, loc)
    else:
        kinds = entries.get("lvlTypes", entries.get("dimLevelType"))
        if kinds is None:
            raise error(loc, "sparse_tensor.encoding without 'map' or 'lvlTypes'")
        names = [k.strip().strip('"') for k in split_top(kinds.strip()[1:-1], ",")]
        letters = [_letter(n, loc) for n in names]
        perm = entries.get("dimToLvl", entries.get("dimOrdering"))
        order = _permutation(perm, len(letters), loc) if perm else list(range(len(letters)))
    if len(letters) != rank:
        raise error(loc, f"the encoding has {len(letters)} levels for a tensor of {rank} "
                         "dimensions (only one level per dimension is lowered)")
    return Format(tuple(letters), tuple(order))


def _letter(name: str, loc: Loc) -> str:
    key = re.sub(r"\s+", "", name)
    if key in LEVEL_LETTERS:
        return LEVEL_LETTERS[key]
    if key.startswith(("n_out_of_m", "structured", "block2_4")):
        raise error(loc, f"level type '{name}' (n:m structured sparsity) has no SAM level "
                         "format; store it compressed instead")
    if "nonordered" in key or key.endswith("-no") or key.endswith("-nu-no"):
        raise error(loc, f"level type '{name}' (unordered coordinates) cannot be co-iterated "
                         "by SAM's merges, which need sorted fibers; use an ordered level")
    raise error(loc, f"unknown level type '{name}' (dense, compressed, compressed(nonunique), "
                     "singleton, loose_compressed are lowered)")


def _from_map(text: str, rank: int, loc: Loc) -> tuple[list[str], list[int]]:
    """``(d0, d1) -> (d1 : dense, d0 : compressed)``: letters and dimension order."""
    m = re.fullmatch(r"\s*(?:\[[^\]]*\]\s*)?\(([^)]*)\)\s*->\s*\((.*)\)\s*", text, re.S)
    if m is None:
        raise error(loc, f"cannot read the encoding map '{text}'")
    dims = [d.strip() for d in m.group(1).split(",") if d.strip()]
    letters: list[str] = []
    order: list[int] = []
    for part in split_top(m.group(2), ","):
        expr, _, kind = part.rpartition(":")
        expr = expr.strip()
        if expr not in dims:
            raise error(loc, f"encoding level '{part.strip()}' is a block map (affine "
                             f"expression '{expr}'); SAM levels store one dimension each, "
                             "so block sparsity is not lowered")
        letters.append(_letter(kind.strip(), loc))
        order.append(dims.index(expr))
    if sorted(order) != list(range(len(dims))) or len(dims) != rank:
        raise error(loc, f"encoding map '{text}' is not a permutation of the tensor's "
                         f"{rank} dimensions")
    return letters, order


def _permutation(text: str, n: int, loc: Loc) -> list[int]:
    m = re.fullmatch(r"\s*affine_map<\s*\(([^)]*)\)\s*->\s*\(([^)]*)\)\s*>\s*", text, re.S)
    if m is None:
        raise error(loc, f"cannot read the dimension ordering '{text}'")
    dims = [d.strip() for d in m.group(1).split(",") if d.strip()]
    res = [d.strip() for d in m.group(2).split(",") if d.strip()]
    if any(r not in dims for r in res) or len(res) != n:
        raise error(loc, f"dimension ordering '{text}' is not a permutation (block maps are "
                         "not lowered)")
    return [dims.index(r) for r in res]
