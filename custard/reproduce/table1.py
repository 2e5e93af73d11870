"""Table 1 (SAM paper Sec. 6.1): SAM primitive counts of real-world expressions, compiled with
our Custard (:func:`custard.counts.table1`, also ``custard table1``) next to the paper's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from custard.reproduce.common import Claim, Outcome
from custard.sweeps.sweep import Sweeper

TITLE = "SAM primitive counts of real-world expressions (SAM paper Table 1, Sec. 6.1)"
#: the original Custard's graphs of the same expressions (weiya711/taco, branch sam), node
#: counts by DOT type, with the commands and commit that made them
ORIGINAL = Path(__file__).resolve().parents[2] / "tests" / "data" / "original-custard-table1.json"


def original_rows() -> dict[str, tuple[int, ...]]:
    """Table 1 rows of the original Custard's graphs, by entry name (from the record)."""
    import json

    from custard.counts import row

    entries = json.loads(ORIGINAL.read_text())["entries"]
    return {name: row(e["types"]) for name, e in entries.items() if "types" in e}


def run(sweeper: Sweeper, **_: Any) -> Outcome:  # noqa: ARG001 - nothing to sweep
    from custard.counts import HEADERS, table1

    results = table1()
    original = original_rows() if ORIGINAL.is_file() else {}
    rows: list[dict[str, Any]] = []
    claims: list[Claim] = []
    for entry, ours in results:
        series_counts = [("ours", ours), ("paper", entry.paper)]
        if entry.name in original:
            series_counts.append(("original Custard", original[entry.name]))
        for series, counts in series_counts:
            for col, n in zip(HEADERS, counts, strict=True):
                rows.append({"series": series, "x": col, "cycles": None, "value": n,
                             "expression": entry.name})
        diff = [f"{h} {o} (paper {p})" for h, o, p in zip(HEADERS, ours, entry.paper,
                                                          strict=True) if o != p]
        claims.append(Claim.check(
            "6.1, Table 1", f"{entry.name} {entry.expression}: "
            + ", ".join(f"{h} {p}" for h, p in zip(HEADERS, entry.paper, strict=True) if p),
            "equal" if not diff else "; ".join(diff), not diff))
    everything = [e.name for e, ours in results if all(ours)]
    claims.append(Claim.check("6.1", "two expressions use all primitive types",
                              f"{len(everything)}: {', '.join(everything) or 'none'}",
                              len(everything) == 2))
    scan_write = [e.name for e, ours in results
                  if max(ours[0], ours[7]) < max(ours[1:7] + ours[8:])]
    paper_too = [e.name for e, _ in results
                 if max(e.paper[0], e.paper[7]) < max(e.paper[1:7] + e.paper[8:])]
    original_too = [n for n, o in original.items() if max(o[0], o[7]) < max(o[1:7] + o[8:])]
    claims.append(Claim.check("6.1", "the primitive counts for level scanners and writers are "
                              "higher", f"a scanner or writer count is the row's largest in "
                              f"{len(results) - len(scan_write)} of {len(results)} rows"
                              + (f" (not: {', '.join(scan_write)})" if scan_write else "")
                              + (f"; so in the paper's own Table 1 (not: "
                                 f"{', '.join(paper_too)})" if paper_too else "")
                              + (" and in the original Custard's own graphs (not: "
                                 + ", ".join(f"{n}, whose largest is {_largest(original[n])}"
                                             for n in original_too) + ")"
                                 if original_too else ""),
                              not scan_write))
    if original:
        differ = [e.name for e, ours in results if original.get(e.name, ours) != ours]
        missing = [e.name for e, _ in results if e.name not in original]
        claims.append(Claim.check(
            "-", "(our counts equal those of the original Custard's graphs of the same "
            "expressions, formats and loop orders)",
            f"{len(results) - len(differ) - len(missing)} of {len(results)} rows equal"
            + (f"; differ: {', '.join(differ)}" if differ else "")
            + (f"; not compiled by the original: {', '.join(missing)}" if missing else ""),
            not differ and not missing))
    notes = ["Loop orders and formats per row are those of custard.counts.TABLE1 (alphabetical "
             "order; SpM*SpM in its three dataflow classes, each operand read in its mode "
             "order). Table 1's 'Reduce' counts reducers and sparse accumulators; 'Repeat' "
             "counts repeaters, not their signal generators.",
             "The left-hand side of Table 1 (features) was derived by hand in the paper and is "
             "not reproduced.",
             "Series 'original Custard': the original compiler's graphs of the same expressions "
             "(weiya711/taco branch sam; commands and commit in "
             "tests/data/original-custard-table1.json), counted by the same rules."]

    def draw(path: Path) -> None:
        _draw(path, results, HEADERS)

    return Outcome(TITLE, rows, claims, draw, notes, ("value", "expression"))


def _largest(counts: tuple[int, ...]) -> str:
    """The column holding a row's largest count, and the count."""
    from custard.counts import HEADERS

    k = max(range(len(counts)), key=lambda i: counts[i])
    return f"{HEADERS[k]} {counts[k]}"


def _draw(path: Path, results: list, headers: tuple[str, ...]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells, colors, labels = [], [], []
    for entry, ours in results:
        cells.append(["" if n == 0 else str(n) for n in ours])
        colors.append(["#ffffff" if o == p else "#f4b6b6"
                       for o, p in zip(ours, entry.paper, strict=True)])
        labels.append(f"{entry.name}  {entry.expression}")
    fig, ax = plt.subplots(figsize=(12, 0.3 * len(results) + 0.6))
    ax.axis("off")
    table = ax.table(cellText=cells, cellColours=colors, rowLabels=labels,
                     colLabels=list(headers), loc="center", cellLoc="center")
    table.auto_set_font_size(False)
    table.set_fontsize(9)
    table.scale(1, 1.3)
    ax.set_title("SAM primitive composition (cf. Table 1): our Custard's counts; red cells "
                 "differ from the paper", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
