"""Ragged tensors: memory accounting, fused ragged levels and the ``.rag`` text reader.

**Auxiliary memory** (:func:`aux_words`): the words of the level arrays a scanner or locator
reads (``seg``, ``crd``, ``lens``; a dense level's size is a register, no memory). A
:class:`~formats.raggedness.Raggedness` shared by several tensors is counted once: CoRa
describes the raggedness once in its dimension graph.

**Fused ragged levels** (:func:`fuse`, :func:`unfuse`): CoRa fuses a ragged loop with the loop
it depends on into one loop over all stored positions (vloop fusion). A ``d`` + ``r`` pair of
levels, unpadded, fused is a dense vector of ``seg[-1]`` entries: one scanner level, no stops
per fiber; element-wise kernels run on the fused vectors and the result is unfused with the
shared raggedness.

**The ``.rag`` format** (:func:`read_ragged`): text, ``#`` starts a comment; the first data line
is ``lengths L0 L1 ...``, an optional ``width W`` line follows (each element is a row of W
numbers: a ``drd`` tensor, else ``dr``), then ``sum(L) * W`` values, whitespace-separated, on
any number of lines, sequence after sequence.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

from formats.atomic import atomic_write
from formats.errors import FormatError, ReadError
from formats.format import Format
from formats.levels import DenseLevel
from formats.tensor import Tensor
from formats.textfile import data_lines, read_lines


def aux_words(tensors: Iterable[Tensor]) -> int:
    """Words of level arrays (``seg``, ``crd``, ``lens``) of the tensors, each shared
    raggedness counted once."""
    seen: set[int] = set()
    words = 0
    for tensor in tensors:
        for level in tensor.levels:
            rag = getattr(level, "raggedness", None)
            if rag is not None:
                if id(rag) in seen:
                    continue
                seen.add(id(rag))
            words += sum(len(a) for a in level.memories().values())
    return words


def fuse(tensor: Tensor) -> Tensor:
    """The ``dr`` tensor's two levels fused into one dense level over every stored position."""
    levels = tensor.levels
    rag = getattr(levels[-1], "raggedness", None) if tensor.order == 2 else None
    if rag is None or not levels[0].full or rag.extent:
        raise FormatError("only a dr tensor whose loops cover its storage (spad = pad) fuses "
                          "into one level")
    n = len(tensor.vals)
    return Tensor((n,), Format(("d",), (0,)), [DenseLevel(n)], tensor.vals.copy(), tensor.name)


def unfuse(vector: Tensor, like: Tensor) -> Tensor:
    """A fused vector back as a ragged tensor of ``like``'s levels (shared raggedness)."""
    if vector.order != 1 or len(vector.vals) != len(like.vals):
        raise FormatError(f"a fused vector of {len(vector.vals)} entries does not match the "
                          f"{len(like.vals)} stored positions of the ragged tensor")
    return Tensor(like.shape, like.format, list(like.levels), vector.to_dense(), vector.name)


def read_ragged(path: str | Path, fmt: Format | str | None = None, *,
                name: str | None = None, pad: int = 1, spad: int | None = None) -> Tensor:
    """Read a ``.rag`` file (module docstring) as a ``dr``/``drd`` tensor (then ``fmt``)."""
    source = str(path)
    numbers, rows = data_lines(read_lines(path), 0, "#")
    if not rows or rows[0][0] != "lengths":
        raise ReadError(source, "the first data line must be 'lengths L0 L1 ...'",
                        numbers[0] if numbers else None)
    lengths = _ints(source, numbers[0], rows[0][1:], "length")
    k = 1
    width = 0
    if len(rows) > 1 and rows[1][0] == "width":
        if len(rows[1]) != 2:
            raise ReadError(source, "expected 'width W'", numbers[1])
        width = _ints(source, numbers[1], rows[1][1:], "width")[0]
        if width < 1:
            raise ReadError(source, f"width must be at least 1, not {width}", numbers[1])
        k = 2
    fields = [f for row in rows[k:] for f in row]
    want = int(sum(lengths)) * max(width, 1)
    if len(fields) != want:
        raise ReadError(source, f"the lengths need {want} values but the file has "
                                f"{len(fields)}; give one value per element"
                                + (f" ({width} per row)" if width else ""))
    try:
        vals = np.array(fields, dtype=np.float64)
    except ValueError:
        bad = next(f for f in fields if not _is_float(f))
        line = next(n for n, row in zip(numbers[k:], rows[k:], strict=True) if bad in row)
        raise ReadError(source, f"value {bad!r} is not a number", line) from None
    starts = np.concatenate([[0], np.cumsum(lengths)]) * max(width, 1)
    if width:
        data = [vals[starts[b]:starts[b + 1]].reshape(-1, width) for b in range(len(lengths))]
    else:
        data = [vals[starts[b]:starts[b + 1]] for b in range(len(lengths))]
    tensor = Tensor.from_ragged(data, "drd" if width else "dr", pad=pad, spad=spad,
                                name=name or Path(source).stem)
    return tensor if fmt is None else tensor.with_format(fmt)


def write_ragged(tensor: Tensor, path: str | Path) -> None:
    """Write a ``dr`` or ``drd`` tensor as a ``.rag`` file (true lengths, padding dropped)."""
    nested = tensor.to_ragged()
    lines = ["lengths " + " ".join(str(len(x)) for x in nested)]
    if tensor.order == 3:
        lines.append(f"width {tensor.shape[2]}")
    elif tensor.order != 2:
        raise FormatError(".rag files hold dr or drd tensors (order 2 or 3)")
    for seq in nested:
        flat = np.asarray(seq, dtype=np.float64).reshape(-1)
        lines.append(" ".join(repr(float(v)) for v in flat))
    with atomic_write(path) as out:
        out.write(("\n".join(lines) + "\n").encode())


def _ints(source: str, line: int, fields: list[str], what: str) -> list[int]:
    try:
        out = [int(f) for f in fields]
    except ValueError:
        bad = next(f for f in fields if not f.lstrip("-").isdigit())
        raise ReadError(source, f"{what} {bad!r} is not an integer", line) from None
    if not out:
        raise ReadError(source, f"no {what} given", line)
    if any(v < 0 for v in out):
        raise ReadError(source, f"a {what} cannot be negative", line)
    return out


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
