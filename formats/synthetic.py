"""Seeded synthetic tensors: uniform random tensors and the SAM paper's *runs* and *blocks*.

Everything is drawn from ``numpy.random.default_rng(seed)``, so a seed gives the same tensor
on every machine. Nonzero values are integers 1..9 stored as float64: any summation order then
gives bit-identical results, so simulator output can be compared to a gold result exactly.

The vector pairs reproduce the synthetic inputs of SAM paper Sec. 6.3 ("Accelerator
Structures", Figure 13b/c; data patterns in Figure 17): vectors of size 2000 with 400 (20%)
nonzeros each, used for ``x_i = b_i * c_i``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from formats import memory
from formats.errors import FormatError
from formats.format import Format, as_format
from formats.tensor import Tensor

MAX_VALUE = 9


def random_tensor(
    shape: Sequence[int],
    density: float | None = None,
    seed: int = 0,
    fmt: Format | str | None = None,
    *,
    sparsity: float | None = None,
    name: str | None = None,
) -> Tensor:
    """A tensor with exactly ``round(density * size)`` nonzeros at uniformly random positions.

    Give ``density`` (fraction of nonzeros) or ``sparsity`` (``1 - density``), not both. The
    positions are a uniform sample without replacement (the paper's *urandom*, Sec. 6.3).
    """
    if (density is None) == (sparsity is None):
        raise FormatError("give exactly one of density= and sparsity=")
    density = 1.0 - sparsity if density is None else density  # type: ignore[operator]
    if not 0.0 <= density <= 1.0:
        raise FormatError(f"density must be in [0, 1], got {density}")
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise FormatError(f"shape {shape} has a negative dimension")
    size = math.prod(shape)
    nnz = round(density * size)
    _check_memory(shape, size, density, nnz, as_format(fmt, len(shape)))
    rng = np.random.default_rng(seed)
    flat = np.sort(rng.choice(size, size=nnz, replace=False)) if nnz else np.zeros(0, np.int64)
    coords = np.stack(np.unravel_index(flat, shape), axis=1) if shape else np.zeros((nnz, 0))
    vals = _values(rng, nnz)
    return Tensor.from_coo(coords, vals, shape, fmt, name=name)


def runs(
    size: int, nnz: int, run_length: int, seed: int = 0, fmt: Format | str | None = None
) -> tuple[Tensor, Tensor]:
    """A vector pair ``(b, c)`` with alternating runs of nonzeros (paper Sec. 6.3, Figure 17).

    Interpretation of "one vector will have longer stretches of nonzeros between the nonzeros
    of the other": each vector holds exactly ``nnz`` nonzeros in runs of ``run_length``
    consecutive coordinates (its last run holds the remainder). Along the vector the runs
    alternate ``b, c, b, c, ...``, so between two runs of one vector lies a whole run of the
    other and the vectors never share a coordinate: ``b * c`` is empty, and its cost is all
    iteration, which coordinate skipping and splitting avoid as runs grow (Figure 13b). The
    ``size - 2 * nnz`` zeros are spread over the gaps before, between and after runs by a
    seeded multinomial draw.
    """
    _check_counts(size, nnz, run_length, "run_length")
    if 2 * nnz > size:
        raise FormatError(f"runs need 2*nnz <= size: {nnz} nonzeros each do not fit in {size}")
    lengths = _split(nnz, run_length)
    pieces = [(owner, n) for n in lengths for owner in (0, 1)]
    rng = np.random.default_rng(seed)
    gaps = rng.multinomial(size - 2 * nnz, [1 / (len(pieces) + 1)] * (len(pieces) + 1))
    crd: list[list[int]] = [[], []]
    at = 0
    for (owner, n), gap in zip(pieces, gaps, strict=False):
        at += int(gap)
        crd[owner].extend(range(at, at + n))
        at += n
    return _vector(crd[0], size, rng, fmt, "b"), _vector(crd[1], size, rng, fmt, "c")


def blocks(
    size: int, nnz: int, block_size: int, seed: int = 0, fmt: Format | str | None = None
) -> tuple[Tensor, Tensor]:
    """A vector pair ``(b, c)`` of dense blocks placed throughout (paper Sec. 6.3, Figure 17).

    Each vector holds exactly ``nnz`` nonzeros in blocks of ``block_size`` consecutive
    coordinates (the last block holds the remainder). Blocks come in pairs: the ``c`` block
    starts ``block_size // 4 + U{0..block_size // 2}`` after its ``b`` block, so the two
    partially overlap (the paper notes that block intersections "can also be dense"), as in
    the original SAM artifact's generator. Pairs are separated by at least one zero and the
    remaining zeros are spread over the gaps by a seeded multinomial draw.
    """
    _check_counts(size, nnz, block_size, "block_size")
    rng = np.random.default_rng(seed)
    lengths = _split(nnz, block_size)
    shifts = [int(rng.integers(n // 4, n // 4 + n // 2 + 1)) for n in lengths]
    needed = sum(n + s for n, s in zip(lengths, shifts, strict=True)) + max(len(lengths) - 1, 0)
    if needed > size:
        raise FormatError(
            f"{len(lengths)} block pairs of {block_size} need {needed} coordinates, size is {size}"
        )
    gaps = rng.multinomial(size - needed, [1 / (len(lengths) + 1)] * (len(lengths) + 1))
    crd: list[list[int]] = [[], []]
    at = 0
    for k, (n, shift) in enumerate(zip(lengths, shifts, strict=True)):
        at += int(gaps[k]) + (1 if k else 0)
        crd[0].extend(range(at, at + n))
        crd[1].extend(range(at + shift, at + shift + n))
        at += n + shift
    return _vector(crd[0], size, rng, fmt, "b"), _vector(crd[1], size, rng, fmt, "c")


def _check_memory(shape: tuple[int, ...], size: int, density: float, nnz: int,
                  fmt: Format) -> None:
    """Refuse a random tensor whose sampling or storage would not fit in memory."""
    what = f"a random {'x'.join(map(str, shape))} tensor of density {density:g}"
    if size > memory.MAX_POSITIONS:
        raise FormatError(f"{what} has {size:.3g} positions, more than 64-bit integers can "
                          "number; lower the shape")
    # numpy draws more than 2% of the positions by shuffling all of them (8 bytes each)
    sample = 8 * size if 50 * nnz > size else 24 * nnz
    need = sample + memory.stored_bytes(shape, fmt, nnz) + memory.build_bytes(len(shape), nnz)
    problem = memory.too_large(need)
    if problem is None:
        return
    if 2 * sample >= need:
        hint = ("lower the shape, or the density below 0.02 (then positions are drawn without "
                "listing all of them)")
    elif 2 * memory.dense_bytes(shape, fmt, nnz) >= need:
        hint = f"its format {fmt} has dense levels that hold every coordinate; lower the shape"
    else:
        fits = density * memory.available_bytes() / need / 2
        hint = f"lower the density (about {fits:.2g} fits) or the shape"
    raise FormatError(f"{what} ({nnz:,} nonzeros) {problem}: {hint}")


def _check_counts(size: int, nnz: int, length: int, what: str) -> None:
    if size < 0 or nnz < 0:
        raise FormatError(f"size and nnz must be nonnegative, got size={size}, nnz={nnz}")
    if length < 1:
        raise FormatError(f"{what} must be at least 1, got {length}")


def _split(nnz: int, length: int) -> list[int]:
    """``nnz`` as pieces of ``length``, the last one holding the remainder."""
    full, rest = divmod(nnz, length)
    return [length] * full + ([rest] if rest else [])


def _values(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(1, MAX_VALUE + 1, size=n).astype(np.float64)


def _vector(
    crd: list[int], size: int, rng: np.random.Generator, fmt: Format | str | None, name: str
) -> Tensor:
    coords = np.array(crd, dtype=np.int64).reshape(-1, 1)
    return Tensor.from_coo(coords, _values(rng, len(crd)), (size,), fmt, name=name)
