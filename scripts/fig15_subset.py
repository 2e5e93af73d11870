"""Figure 15 on a chosen subset of points (timing runs, partial sweeps):
``python scripts/fig15_subset.py OUT --nnz 5000 --dims 1024,3696 --workers 2``.

Runs :func:`custard.reproduce.fig15.run` (the full-size variant: the no-skipping grid up to
2 M tuples) with ``NNZ``/``DIMS`` replaced by the subset, and writes OUT/fig15.csv, .png and
-claims.md as ``sam-sim reproduce fig15`` does. Dimensions above the paper's 15720 are allowed
(their matrices are drawn with numpy's generator: :func:`custard.reproduce.fig15.matrices`);
``--pe coiterate`` runs the PE as the original's script does."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from custard.reproduce import fig15, reproduce  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--nnz", default=",".join(map(str, fig15.NNZ)))
    ap.add_argument("--dims", default=",".join(map(str, fig15.DIMS)))
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--pe", choices=("locate", "coiterate"), default="locate",
                    help="how the PE intersects B's and C's k coordinates: locate C's rows "
                    "(ExTensor's coordinate skipping, the default) or merge them as the "
                    "original's script does")
    a = ap.parse_args()
    fig15.PE_SCHEDULE = f"{a.pe}(C)"
    fig15.NNZ = tuple(int(x) for x in a.nnz.split(","))
    fig15.DIMS = tuple(int(x) for x in a.dims.split(","))
    reproduce("fig15", Path(a.out), quick=False, engine="fast", scheduler=None,
              workers=a.workers, cache=None, use_cache=not a.no_cache, matrices=None,
              progress=False)


if __name__ == "__main__":
    main()
