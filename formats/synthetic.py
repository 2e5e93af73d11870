"""Seeded synthetic tensors: uniform random tensors and the SAM paper's *runs* and *blocks*.

Everything is drawn from ``numpy.random.default_rng(seed)``, so a seed gives the same tensor
on every machine. Nonzero values are integers 1..9 stored as float64: any summation order then
gives bit-identical results, so simulator output can be compared to a gold result exactly.

The vector pairs reproduce the synthetic inputs of SAM paper Sec. 6.3 ("Accelerator
Structures", Figure 13b/c; data patterns in Figure 17): vectors of size 2000 with 400 (20%)
nonzeros each, used for ``x_i = b_i * c_i``.

Beside these (ours: exact nonzero counts, our reading of the paper's text), the ``original_*``
functions re-implement the original SAM artifact's generators exactly, so a seed gives the
original's data: :func:`original_random` (Bernoulli: each element kept independently),
:func:`original_urandom`, :func:`original_runs`, :func:`original_blocks`, and the Figure 11/12
operands (:func:`figure12_matrices`, :func:`figure11_operands`). ``tests/data/original-synthetic``
pins the digests of the original's own output.
"""

from __future__ import annotations

import math
import random
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
    # to 9 decimals first: sparsity=1-d gives the count density=d gives (1 - 0.99 is not 0.01)
    nnz = round(round(density * size, 9))
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


# ------------------------------------------------------------------------------------------
# The original SAM artifact's generators (github weiya711/sam, ``sam/onyx/synthetic/`` and
# ``sam/onyx/generate_matrices.py``, run by ``scripts/get_data/generate_synthetics.sh``),
# re-implemented so that a seed gives exactly the original's data. They draw from Python's
# ``random`` module and numpy's legacy ``RandomState``, both seeded with the script's ``--seed``,
# and store a tensor from a dense array, so a value drawn as 0 is an implicit zero (as the
# original's fibertree drops it). Ours above stay the defaults; these are named ``original_*``.

#: ``MatrixGenerator``'s default value cap: values are ``randint(0, 255)``, i.e. 0..254.
ORIGINAL_VALUE_CAP = 255
#: vector size of the original's runs/blocks/urandom vectors (Sec. 6.3; runs ignore --shape)
ORIGINAL_VECTOR_SIZE = 2000
#: nonzeros per vector that ``generate_synthetics.sh`` asks of runs and blocks
ORIGINAL_NNZ = 400
#: the sparsities ``generate_random_mats.py`` draws in turn, from one seeded stream, when no
#: ``--sparsity`` is given (the Figure 13a vectors)
ORIGINAL_SWEEP = (0.99375, 0.9875, 0.975, 0.95, 0.9, 0.8, 0.6, 0.2)
#: Figure 11/12 matrices: B is I x K = 250 x 100 (seed 0), C is K x J = 100 x 250 (seed 1),
#: each element zero with probability 0.95 (``generate_synthetics.sh``, "matrix" part)
FIG12_SPARSITY = 0.95
FIG12_B_SHAPE = (250, 100)
FIG12_C_SHAPE = (100, 250)
_ORIGINAL_TRIES = 1000  # generate_blocks.py gives up placing a block after this many draws


class _OriginalRng:
    """``random.seed(seed); numpy.random.seed(seed)`` as the original scripts call them."""

    def __init__(self, seed: int) -> None:
        if not 0 <= seed < 2**32:  # numpy.random.seed's range
            raise FormatError(f"seed must be in 0..2**32-1, got {seed}")
        self.py = random.Random(seed)
        self.np = np.random.RandomState(seed)

    def uniforms(self, n: int) -> np.ndarray:
        """``[random.random() for _ in range(n)]``, vectorised: both generators are MT19937
        with 53-bit doubles made alike, so numpy continues from Python's state exactly."""
        _, state, gauss = self.py.getstate()
        mt = np.random.RandomState()
        mt.set_state(("MT19937", np.array(state[:-1], dtype=np.uint32), state[-1]))
        out = mt.random_sample(n)
        _, key, pos, *_ = mt.get_state()
        self.py.setstate((3, (*(int(k) for k in key), int(pos)), gauss))
        return out

    def value(self) -> int:
        """``random.randint(0, 1000)``: a runs/blocks element (0 is an implicit zero)."""
        return self.py.randint(0, 1000)


def _original_array(rng: _OriginalRng, shape: tuple[int, ...], sparsity: float) -> np.ndarray:
    """``MatrixGenerator._create_matrix``: values ``randint(0, cap)`` from numpy, then each
    element, in row-major order, zeroed when Python's ``random.random() < sparsity``."""
    arr = rng.np.randint(0, ORIGINAL_VALUE_CAP, size=shape, dtype=np.int64)
    arr.reshape(-1)[rng.uniforms(arr.size) < sparsity] = 0
    return arr


def _from_array(arr: np.ndarray, fmt: Format | str | None, name: str | None) -> Tensor:
    return Tensor.from_dense(arr.astype(np.float64), fmt, name=name)


def original_random(
    shape: Sequence[int], sparsity: float, seed: int = 0, fmt: Format | str | None = None, *,
    drawn_before: Sequence[float] = (), name: str | None = None,
) -> Tensor:
    """The original's uniform random tensor (``generate_random_mats.py --seed SEED --sparsity
    SPARSITY --shape ...``): each element independently zero with probability ``sparsity``
    (a Bernoulli draw, so the nonzero count varies), otherwise a value in 0..254 (0 being one
    more zero). ``drawn_before`` lists the sparsities of tensors the same script run drew
    first from the same seeded stream (see :func:`original_urandom`)."""
    if not 0.0 <= sparsity <= 1.0:
        raise FormatError(f"sparsity must be in [0, 1], got {sparsity}")
    shape = tuple(int(s) for s in shape)
    if not shape or any(s < 0 for s in shape):
        raise FormatError(f"shape {shape} must have one or more nonnegative dimensions")
    rng = _OriginalRng(seed)
    for before in drawn_before:
        _original_array(rng, shape, before)
    return _from_array(_original_array(rng, shape, sparsity), fmt, name)


def original_urandom(sparsity: float, seed: int = 0, fmt: Format | str | None = None, *,
                     name: str | None = None) -> Tensor:
    """The original's Figure 13a *urandom* vector ``B_random_sp_SPARSITY`` (seed 0; ``C_...``
    is seed 1): ``generate_random_mats.py --shape 2000`` draws every sparsity of
    :data:`ORIGINAL_SWEEP` in turn from one seeded stream."""
    if sparsity not in ORIGINAL_SWEEP:
        raise FormatError(f"the original draws urandom vectors at sparsities "
                          f"{', '.join(map(str, ORIGINAL_SWEEP))}; got {sparsity}")
    before = ORIGINAL_SWEEP[: ORIGINAL_SWEEP.index(sparsity)]
    return original_random((ORIGINAL_VECTOR_SIZE,), sparsity, seed, fmt, drawn_before=before,
                           name=name)


def figure12_matrices(fmt_b: Format | str | None = None, fmt_c: Format | str | None = None
                      ) -> tuple[Tensor, Tensor]:
    """SAM paper Figure 12's operands as the original makes them: B (250 x 100, seed 0) and
    C (100 x 250, seed 1), each element zero with probability 0.95 (:func:`original_random`)."""
    return (original_random(FIG12_B_SHAPE, FIG12_SPARSITY, 0, fmt_b, name="B"),
            original_random(FIG12_C_SHAPE, FIG12_SPARSITY, 1, fmt_c, name="C"))


def figure11_operands(k: int) -> tuple[Tensor, Tensor, Tensor]:
    """SAM paper Figure 11's SDDMM operands ``X(i,j) = B(i,j) * C(i,k) * D(j,k)`` as the
    original's fusion study builds them: B is Figure 12's B (250 x 100, so J = 100 where the
    paper's text says 250), C (250 x K) and D (100 x K) all ones."""
    if k < 1:
        raise FormatError(f"K must be at least 1, got {k}")
    b, _ = figure12_matrices()
    ones_c = Tensor.from_dense(np.ones((FIG12_B_SHAPE[0], k)), "dd", name="C")
    ones_d = Tensor.from_dense(np.ones((FIG12_B_SHAPE[1], k)), "dd", name="D")
    return b, ones_c, ones_d


class _Vec:
    """A dense vector written as the original writes it: an index off the end is an error."""

    def __init__(self, size: int, what: str) -> None:
        self.a = np.zeros(size, dtype=np.int64)
        self.what = what

    def __setitem__(self, i: int, v: int) -> None:
        if not 0 <= i < len(self.a):
            raise FormatError(f"{self.what} do not fit in a vector of size {len(self.a)}")
        self.a[i] = v


def original_runs(run_length: int, nnz: int = ORIGINAL_NNZ, seed: int = 0,
                  fmt: Format | str | None = None, *, size: int = ORIGINAL_VECTOR_SIZE
                  ) -> tuple[Tensor, Tensor]:
    """The original's *runs* pair ``(b, c)`` (``generate_runs.py --seed SEED --run_length RL
    --number_nonzeros NNZ``; the original always makes size 2000).

    c starts with one element at 0; then, repeatedly, b gets a run of ``run_length``
    consecutive elements (while it has fewer than ``nnz``), both vectors get one shared
    element, c gets a run, both get another shared element; until both counted ``nnz``;
    finally b gets one more element. Values are ``randint(0, 1000)``."""
    _check_counts(size, nnz, run_length, "run_length")
    rng = _OriginalRng(seed)
    what = f"runs of {run_length} with {nnz} nonzeros"
    b, c = _Vec(size, what), _Vec(size, what)
    c[0] = rng.value()
    at, counts = 1, [0, 0]  # elements written to b, c (the shared ones included)
    while True:
        for side, vec in enumerate((b, c)):
            for k in range(run_length):  # a run of this side
                if counts[side] < nnz:
                    vec[at + k] = rng.value()
                    counts[side] += 1
            at += run_length
            b[at] = rng.value()  # an element of both
            c[at] = rng.value()
            counts = [counts[0] + 1, counts[1] + 1]
            at += 1
        if min(counts) >= nnz:
            break
    b[at] = rng.value()
    return _from_array(b.a, fmt, "b"), _from_array(c.a, fmt, "c")


def original_blocks(block_size: int, nnz: int = ORIGINAL_NNZ, seed: int = 0,
                    fmt: Format | str | None = None, *, size: int = ORIGINAL_VECTOR_SIZE
                    ) -> tuple[Tensor, Tensor]:
    """The original's *blocks* pair ``(b, c)`` (``generate_blocks.py --seed SEED --len_blocks
    L --number_nonzeros NNZ --shape SIZE``).

    Until both hold ``nnz`` elements: draw b's block start uniformly in
    ``[L//2 + 1, SIZE - 5 - int(1.5 L)]`` until no b element lies within ``L`` before it or
    ``2L`` after its start; c's block starts ``randint(-n//2, n//2)`` from it, where
    ``n = min(SIZE - nnz_b, L)`` is the block length; fill both blocks element by element
    (b then c, each while it has fewer than ``nnz``) with ``randint(0, 1000)``."""
    _check_counts(size, nnz, block_size, "block_size")
    rng = _OriginalRng(seed)
    low, high = block_size // 2 + 1, size - 5 - int(1.5 * block_size)
    if low > high:
        raise FormatError(f"blocks of {block_size} do not fit in a vector of size {size}")
    what = f"blocks of {block_size} with {nnz} nonzeros"
    b, c = _Vec(size, what), _Vec(size, what)
    filled = np.zeros(size, dtype=bool)
    n_b = n_c = 0
    while n_b < nnz or n_c < nnz:
        for tries in range(_ORIGINAL_TRIES + 1):
            if tries == _ORIGINAL_TRIES:
                raise FormatError(f"{what}: no room for another block in size {size} "
                                  f"after {_ORIGINAL_TRIES} tries")
            start_b = rng.py.randint(low, high)
            if not filled[max(start_b - block_size, 0): start_b + 2 * block_size].any():
                break
        length = min(size - n_b, block_size)
        start_c = start_b + rng.py.randint(-length // 2, length // 2)
        for k in range(length):
            if not (0 <= start_b + k < size and 0 <= start_c + k < size):
                raise FormatError(f"{what}: a block runs off a vector of size {size}")
            if n_b < nnz:
                b[start_b + k] = rng.value()
                filled[start_b + k] = True
                n_b += 1
            if n_c < nnz:
                c[start_c + k] = rng.value()
                n_c += 1
    return _from_array(b.a, fmt, "b"), _from_array(c.a, fmt, "c")


def data_digest(tensor: Tensor) -> str:
    """A short hash of a tensor's shape, nonzero coordinates and values (row-major order), for
    pinning generated data in tests."""
    import hashlib

    coords, vals = tensor.to_coo(drop_zeros=True)
    order = np.lexsort(coords.T[::-1]) if coords.size else np.zeros(0, dtype=np.int64)
    h = hashlib.sha256(repr(tuple(tensor.shape)).encode())
    h.update(np.ascontiguousarray(coords[order], dtype=np.int64).tobytes())
    h.update(np.ascontiguousarray(vals[order], dtype=np.float64).tobytes())
    return h.hexdigest()[:16]
