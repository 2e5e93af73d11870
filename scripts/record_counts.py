"""Record (or compare) the tokens and cycles of every ``dot_graphs/`` graph on fixed inputs.

The record, ``tests/data/suite_counts.json``, pins the timing model: a refactoring must not
change any count. ``tests/test_suite_counts.py`` compares against it; rerun this script only
when a change to the model is intended (and say so in the commit).

    python scripts/record_counts.py            # rewrite the record
    python scripts/record_counts.py --check    # compare, print differences, exit 1 on any
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "tests" / "data" / "suite_counts.json"

#: Inputs per graph: every operand random (its own seed), sizes small enough for the
#: reference engine; FIFO settings exercise both the unbounded and the bounded model.
RUNS = [
    {"fifo_depth": None, "density": 0.3, "size": 9},
    {"fifo_depth": 2, "density": 0.5, "size": 6},
]


def _specs(graph, density: float, size: int) -> dict[str, str]:
    from sam.bind import index_modes

    modes = index_modes(graph)
    out: dict[str, str] = {}
    sizes: dict[str, int] = {}  # index variable -> offset, so shared indices share a size
    for k, name in enumerate(graph.tensors()):
        fmt = graph.formats.get(name)
        if name in {b.tensor for b in graph.blocks.values() if b.family == "write"}:
            continue
        order = fmt.order if fmt is not None else len(modes.get(name, {}))
        if order == 0:
            out[name] = str(1.5 + k)
            continue
        idx = modes.get(name, {})
        shape = "x".join(str(size + sizes.setdefault(idx.get(d, f"{name}{d}"), len(sizes)))
                         for d in range(order))
        out[name] = f"random:{density}:{11 + k}:{shape}"
    return out


def measure(path: Path, run: dict) -> dict:
    """Cycles, total tokens and per-block and per-stream token counts of one run."""
    from sam.bind import bind_tensors
    from sam.graph.dot import load
    from sam.sim.engine import simulate

    graph = load(path)
    tensors = bind_tensors(graph, _specs(graph, run["density"], run["size"]))
    res = simulate(graph, tensors, engine="fast", fifo_depth=run["fifo_depth"])
    return {
        "cycles": res.cycles,
        "tokens": res.tokens,
        "blocks": {bid: [sum(b.tokens_in.values()), sum(b.tokens_out.values()), b.busy,
                         b.idle, b.stalled]
                   for bid, b in sorted(res.blocks.items())},
        "streams": sorted(f"{s.src}.{s.src_port}->{s.dst}.{s.dst_port}:"
                          f"{sum(s.tokens.values())}" for s in res.streams),
    }


def record() -> dict:
    out = {}
    for path in sorted((ROOT / "dot_graphs").glob("*.gv")):
        out[path.stem] = [measure(path, run) for run in RUNS]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the record")
    args = ap.parse_args(argv)
    now = record()
    if args.check:
        old = json.loads(RECORD.read_text())
        bad = [name for name in old if old[name] != now.get(name)]
        for name in bad:
            print(f"{name}: differs")
        print(f"{len(old) - len(bad)} of {len(old)} graphs equal the record")
        return 1 if bad else 0
    RECORD.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(now)} graphs in {RECORD.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
