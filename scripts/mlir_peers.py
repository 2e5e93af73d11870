"""Run the peer suite (the MLIR sparsifier's integration tests) and record the outcomes.

Each classified file of ``tests/data/mlir-sparsifier/`` (``classify-*.tsv``) runs under the
host interpreter (``custard mlir FILE --entry``) with ``TENSORn`` bound to its data files; the
output is checked against the file's own CHECK lines with the ``filecheck`` package. The
outcome per file goes to ``tests/data/mlir-sparsifier/expected.tsv`` (file, pass/fail, reason),
which ``tests/test_mlir_peers.py`` holds the suite to, and the classification table with its
counts is printed in Markdown for docs/mlir.md.

    python scripts/mlir_peers.py                 # run all, write expected.tsv, print tables
    python scripts/mlir_peers.py --check         # run all, compare with expected.tsv
    python scripts/mlir_peers.py sparse_matvec.mlir -v   # one file, with its output
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from helpers.mlir_peers import (  # noqa: E402
    EXPECTED,
    Outcome,
    classification,
    expected,
    has_kernels,
    run_file,
)


def table(entries, outcomes: dict[str, Outcome]) -> str:
    """The Markdown classification table and its counts."""
    yes = [e for e in entries if e.verdict == "yes"]
    no = [e for e in entries if e.verdict != "yes"]
    passing = [e for e in yes if outcomes[e.file].status == "pass"]
    no_run = [e for e in no if outcomes[e.file].status == "pass"]
    crashes = [e for e in entries if outcomes[e.file].error_kind == "crash"]
    share = 100.0 * len(passing) / len(yes) if yes else 0.0
    kernels = [e for e in yes if has_kernels(e)]
    kpass = [e for e in kernels if outcomes[e.file].status == "pass"]
    kshare = 100.0 * len(kpass) / len(kernels) if kernels else 0.0
    host = [e for e in yes if not has_kernels(e)]
    hpass = [e for e in host if outcomes[e.file].status == "pass"]
    lines = [
        "| | files | print their CHECK lines |",
        "|---|---:|---:|",
        f"| expressible on SAM (`yes`) | {len(yes)} | {len(passing)} ({share:.0f}%) |",
        f"| of which with kernels run on SAM (linalg ops) | {len(kernels)} | {len(kpass)} "
        f"({kshare:.0f}%) |",
        f"| of which without a kernel (conversions, storage, reader errors: host only) | "
        f"{len(host)} | {len(hpass)} |",
        f"| not expressible (`no`) | {len(no)} | {len(no_run)} (the others stop with a "
        "one-line error) |",
        f"| all | {len(entries)} | {len(passing) + len(no_run)} |",
        "",
        f"Crashes (an error other than a one-line MlirError/ToolkitError): {len(crashes)}.",
        "",
        "| file | SAM? | why | outcome |",
        "|---|---|---|---|",
    ]
    for e in entries:
        o = outcomes[e.file]
        reason = o.reason if len(o.reason) <= 110 else o.reason[:107] + "..."
        result = "pass" if o.status == "pass" else f"fail: {reason}"
        lines.append(f"| `{e.file}` | {e.verdict} | {e.reason.replace('|', '/')} | "
                     f"{result.replace('|', '/')} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*", help="run only these files (no record written)")
    p.add_argument("--check", action="store_true", help="compare with expected.tsv")
    p.add_argument("--engine", default="fast", choices=("fast", "reference"))
    p.add_argument("-v", "--verbose", action="store_true", help="print each file's output")
    args = p.parse_args(argv)
    entries = classification()
    if args.files:
        names = {Path(f).name for f in args.files}
        entries = [e for e in entries if e.file in names]
    outcomes: dict[str, Outcome] = {}
    start = time.time()
    for e in entries:
        t0 = time.time()
        o = outcomes[e.file] = run_file(e, args.engine)
        print(f"{o.status:4} {e.verdict:3} {e.file} ({time.time() - t0:.1f}s) {o.reason}",
              file=sys.stderr)
        if args.verbose:
            print(o.output, file=sys.stderr)
    print(f"{len(entries)} files in {time.time() - start:.0f}s", file=sys.stderr)
    if args.files:
        return 0 if all(o.status == "pass" for o in outcomes.values()) else 1
    if args.check:
        old = expected()
        changed = [f for f, o in outcomes.items() if old.get(f, ("?",))[0] != o.status]
        for f in changed:
            print(f"{f}: {old.get(f, ('none',))[0]} -> {outcomes[f].status} "
                  f"{outcomes[f].reason}")
        return 1 if changed else 0
    rows = ["file\toutcome\treason"]
    rows += [f"{f}\t{o.status}\t{o.reason}" for f, o in sorted(outcomes.items())]
    EXPECTED.write_text("\n".join(rows) + "\n")
    print(table(entries, outcomes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
