"""Compile what real users typed on the TACO website (``tests/data/taco-website/success.log``).

Every line is ``DATE: taco "EXPR" -f=... -s=...``; some lines are junk that is not index
notation. For each unique command line this compiles it in-process with Custard and sorts it:

* ``compiled``: a SAM graph came out (with ``--dot``, it also survives DOT text and back);
* ``refused``: a one-line ``ToolkitError`` (the reason is tallied, numbers and names folded);
* ``crashed``: any other exception (a bug), listed in full.

With ``--simulate N`` a seeded sample of N compiled lines is simulated on small random inputs,
through DOT text, and checked against the gold result.

    python scripts/corpus.py                       # all unique lines: counts and reasons
    python scripts/corpus.py --limit 500 --simulate 50
"""

from __future__ import annotations

import argparse
import collections
import random
import re
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "tests" / "data" / "taco-website" / "success.log"


def read_lines(path: Path = LOG) -> list[str]:
    """Every logged command line (after ``taco``), in log order, junk included."""
    out = []
    for line in path.read_text(errors="replace").splitlines():
        _, sep, rest = line.partition(": taco ")
        if sep:
            out.append(rest.strip())
    return out


def unique(lines: list[str]) -> list[str]:
    return list(dict.fromkeys(lines))


def reason_key(message: str) -> str:
    """A refusal message with names, numbers and quoted parts folded, for tallying."""
    msg = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", message)
    msg = re.sub(r"\b\d+\b", "N", msg)
    msg = re.sub(r"\b[A-Za-z]\w*\([^)]*\)", "T(…)", msg)
    return msg[:140]


class Timeout(Exception):
    pass


def _alarm(signum, frame):  # noqa: ARG001
    raise Timeout


def compile_line(command: str, dot_roundtrip: bool, seconds: int = 20):
    """(status, detail, graph): status is compiled, refused, crashed or timeout."""
    from custard.cli import graph_from_command_line
    from formats.errors import ToolkitError

    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        graph = graph_from_command_line(command)
        if dot_roundtrip:
            from custard.api import graphs_of
            from sam.graph.dot import dumps_all, loads_all

            graphs = graphs_of(graph)
            back = loads_all(dumps_all(graphs))
            if [b.signature() for b in back] != [g.signature() for g in graphs]:
                return "crashed", "DOT round trip changes the graph", graph
        return "compiled", "", graph
    except ToolkitError as err:
        return "refused", " ".join(str(err).split()), None
    except Timeout:
        return "timeout", f"over {seconds} s", None
    except Exception as err:  # noqa: BLE001 - a bug: report it, go on
        return "crashed", f"{type(err).__name__}: {err}", None
    finally:
        signal.alarm(0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, help="only the first N unique lines")
    ap.add_argument("--all-lines", action="store_true",
                    help="count over all logged lines (repeats included), not unique ones")
    ap.add_argument("--dot", action="store_true", help="also check the DOT round trip")
    ap.add_argument("--reasons", type=int, default=25, help="how many refusal reasons to list")
    ap.add_argument("--crashes", type=int, default=20, help="how many crashes to list")
    args = ap.parse_args(argv)

    lines = read_lines()
    todo = unique(lines)
    if args.limit:
        todo = todo[: args.limit]
    start = time.perf_counter()
    status: dict[str, tuple[str, str]] = {}
    try:
        from tqdm import tqdm

        it = tqdm(todo, unit="line", disable=not sys.stderr.isatty())
    except ImportError:  # pragma: no cover
        it = todo
    for cmd in it:
        st, detail, _ = compile_line(cmd, args.dot)
        status[cmd] = (st, detail)
    took = time.perf_counter() - start

    counted = [c for c in lines if c in status] if args.all_lines else list(status)
    tally = collections.Counter(status[c][0] for c in counted)
    what = "logged" if args.all_lines else "unique"
    print(f"{len(counted)} {what} lines in {took:.1f} s: " + ", ".join(
        f"{k} {v} ({100 * v / max(len(counted), 1):.1f}%)" for k, v in tally.most_common()))
    reasons = collections.Counter(reason_key(status[c][1]) for c in counted
                                  if status[c][0] == "refused")
    if reasons:
        print("\nrefusal reasons:")
        for r, n in reasons.most_common(args.reasons):
            print(f"{n:6d}  {r}")
    crashes = [(c, status[c][1]) for c in status if status[c][0] in ("crashed", "timeout")]
    if crashes:
        print(f"\ncrashes and time-outs ({len(crashes)}):")
        for c, d in crashes[: args.crashes]:
            print(f"  {c}\n      {d}")
    return 0


if __name__ == "__main__":
    random.seed(0)
    sys.exit(main())
