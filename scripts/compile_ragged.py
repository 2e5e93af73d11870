"""Write the ragged kernels of ``custard.ragged_suite`` to ``dot_graphs/ragged/`` (CoRa
examples: element-wise ops, vgemm, trmm, and the attention program of five graphs).

``python scripts/compile_ragged.py`` writes them; ``--check`` only reports stale files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from custard.ragged_suite import KERNELS, attention  # noqa: E402
from sam.graph.dot import dumps, dumps_all  # noqa: E402

OUT = ROOT / "dot_graphs" / "ragged"
#: Feature width of the checked-in attention program (its 1/sqrt(d) scale).
ATTENTION_D = 64


def texts() -> dict[str, str]:
    """File name -> DOT text of every ragged example."""
    out = {f"{name}.gv": dumps(k.compile()) for name, k in KERNELS.items()}
    out["attention.gv"] = dumps_all([p.graph for p in attention(ATTENTION_D).phases])
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="report stale files, write nothing")
    args = p.parse_args(argv)
    stale = []
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in texts().items():
        path = OUT / name
        if path.exists() and path.read_text() == text:
            continue
        stale.append(name)
        if not args.check:
            path.write_text(text)
    if args.check and stale:
        print(f"stale: {', '.join(stale)}; run python scripts/compile_ragged.py")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
