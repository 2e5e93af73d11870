#!/usr/bin/env python3
"""Digests of the original SAM artifact's synthetic data next to ours (formats.synthetic).

Run the original's generator (github weiya711/sam, ``scripts/get_data/generate_synthetics.sh``,
which writes ``synthetic/{random,runs,blocks}/compressed/...`` and ``synthetic/matrix/DCSR/...``
as CSF files ``tensor_B_mode_0_seg``, ``..._crd``, ``tensor_B_mode_vals``), then

    python scripts/original_synthetic_digests.py PATH/TO/synthetic

prints, for every data set, the digest of the original's files, the digest of ours
(``original_random``/``original_urandom``/``original_runs``/``original_blocks``) and
``same``/``DIFFERENT``. tests/test_synthetic_original.py pins the digests printed here.
Exit status 1 when any differs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from formats.synthetic import (  # noqa: E402
    FIG12_B_SHAPE,
    FIG12_C_SHAPE,
    ORIGINAL_SWEEP,
    data_digest,
    original_blocks,
    original_random,
    original_runs,
    original_urandom,
)
from formats.tensor import Tensor  # noqa: E402

LENGTHS = (1, 2, 5, 10, 20, 30, 40, 50, 75, 100, 200, 300, 400)  # generate_synthetics.sh


def read_csf(folder: Path, name: str) -> Tensor:
    """A tensor from the original's CSF files (all levels compressed)."""
    def ints(f: str) -> list[int]:
        return [int(x) for x in (folder / f"tensor_{name}_{f}").read_text().split()]

    shape = tuple(ints("mode_shape"))
    vals = np.array(ints("mode_vals"), dtype=np.float64)
    points: list[tuple[int, ...]] = [()]
    for mode in range(len(shape)):
        seg, crd = ints(f"mode_{mode}_seg"), ints(f"mode_{mode}_crd")
        points = [(*p, crd[q]) for k, p in enumerate(points) for q in range(seg[k], seg[k + 1])]
    coords = np.array(points, dtype=np.int64).reshape(len(points), len(shape))
    if len(vals) != len(coords):  # an all-zero tensor is written as one fake 0
        coords, vals = coords[:0], vals[:0]
    return Tensor.from_coo(coords, vals, shape)


def cases(root: Path):
    m = root / "matrix" / "DCSR"
    yield ("fig12 B", read_csf(m / "B_random_sp_0.95", "B"),
           lambda: original_random(FIG12_B_SHAPE, 0.95, 0))
    yield ("fig12 C", read_csf(m / "C_random_sp_0.95", "C"),
           lambda: original_random(FIG12_C_SHAPE, 0.95, 1))
    r = root / "random" / "compressed"
    for sp in ORIGINAL_SWEEP:
        for name, seed in (("B", 0), ("C", 1)):
            yield (f"urandom {name} {sp}", read_csf(r / f"{name}_random_sp_{sp}", name),
                   lambda sp=sp, seed=seed: original_urandom(sp, seed))
    for rl in LENGTHS:
        pair = None

        def runs(k: int, rl: int = rl) -> Tensor:
            nonlocal pair
            pair = pair or original_runs(rl, 400, 0)
            return pair[k]
        d = root / "runs" / "compressed" / f"runs_rl_{rl}_nnz_400"
        yield f"runs {rl} b", read_csf(d, "B"), lambda runs=runs: runs(0)
        yield f"runs {rl} c", read_csf(d, "C"), lambda runs=runs: runs(1)
    for bs in LENGTHS:
        d = root / "blocks" / "compressed"
        pair_b = original_blocks(bs, 400, 0)
        yield f"blocks {bs} b", read_csf(d / f"B_blocks_400_{bs}", "B"), lambda p=pair_b: p[0]
        yield f"blocks {bs} c", read_csf(d / f"C_blocks_400_{bs}", "C"), lambda p=pair_b: p[1]


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print(__doc__)
        return 2
    bad = 0
    for label, theirs, ours in cases(Path(argv[0])):
        a, b = data_digest(theirs), data_digest(ours())
        bad += a != b
        print(f"{label:22s} nnz {theirs.nnz:6d}  original {a}  ours {b}  "
              f"{'same' if a == b else 'DIFFERENT'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
