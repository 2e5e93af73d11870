"""``compare``: the harness over every record, as a table (docs/fidelity.md)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from scripts.differential.compare import RECORDS, Outcome, compare_one, load_provenance
from scripts.differential.cycles import within
from scripts.differential.known import CYCLES_SLACK, KNOWN, Known, for_commit

TIP = KNOWN["6570336a"]


def selected(names=None, group=None, records: Path = RECORDS) -> list[dict]:
    graphs = load_provenance(records)["graphs"]
    return [g for g in graphs if (not names or g["name"] in names)
            and (not group or g["group"] == group)]


def known(o: Outcome, table: dict) -> bool:
    """``o``'s original graph is refused with the message ``table`` expects for it."""
    return o.original == "refused" and o.name in table and table[o.name][0] in o.original_why


def summary(outcomes: list[Outcome], k: Known = TIP) -> list[str]:
    """The table's rows and the exceptions, as Markdown lines (``k``: the record set's
    refusal tables)."""
    wrong, not_yet, right_when = k.wrong, k.not_yet, k.right_when
    rows = []
    for group in ("suite", "extra", "corpus", None):
        chosen = [o for o in outcomes if group is None or o.group == group]
        if not chosen:
            continue
        points = [p for o in chosen for p in o.cycles]
        cells = [len(chosen), sum(o.original == "pass" for o in chosen),
                 sum(known(o, wrong) or known(o, right_when) for o in chosen),
                 sum(known(o, not_yet) for o in chosen),
                 sum(o.ours == "pass" for o in chosen), sum(o.program for o in chosen),
                 sum(o.counts_equal for o in chosen),
                 f"{sum(within(a, b) for _, a, b in points)} of {len(points)}"]
        rows.append(f"| {group or 'all'} | " + " | ".join(map(str, cells)) + " |")
    out = ["| expressions | compared | original's graph = numpy | original's refused: wrong "
           "in the original (on these inputs) | original's not read yet | ours = numpy | "
           "ours: a program of graphs | primitive counts equal | cycles within 5% |",
           "|---|---|---|---|---|---|---|---|---|",
           *rows, "", "Original's graphs refused here (one line each) because they are wrong "
           "in the original too:", ""]
    reasons: dict[str, list[str]] = {}
    for o in outcomes:
        for table in (wrong, not_yet):
            if known(o, table):
                reasons.setdefault(table[o.name][1], []).append(f"`{o.name}`")
        if o.name in right_when:
            seen = "refused on some of these inputs" if known(o, right_when) else \
                "right on all of these inputs"
            reasons.setdefault(right_when[o.name][1], []).append(f"`{o.name}` ({seen})")
    out += [f"* {', '.join(names)}: {why}" for why, names in reasons.items()]
    out += ["", "Other exceptions:", ""]
    for o in outcomes:
        notes = []
        if o.original != "pass" and not any(known(o, t) for t in (wrong, not_yet,
                                                                  right_when)):
            notes.append(f"original's graph: {o.original_why}")
        if o.ours != "pass":
            notes.append(f"ours: {o.ours_why}")
        if not o.counts_equal and o.counts_ours and o.counts_original:
            notes.append(f"counts (original/ours): {o.count_difference()}")
        for point, a, b in o.cycles:
            if not within(a, b):
                notes.append(f"cycles {point}: {a:,} / {b:,} ({(b - a) / a:+.2%})"
                             + (f" ({k.cycles_off[o.name]})" if o.name in k.cycles_off
                                else ""))
        if notes:
            out.append(f"* `{o.name}` `{o.line}`: " + "; ".join(notes))
    return out


def failures(outcomes: list[Outcome], k: Known = TIP) -> list[Outcome]:
    """Outcomes the harness does not accept: an original graph neither right nor refused as
    :mod:`.known` expects for the record set (``k``; or right but listed there), our graph not
    right (a refusal of ours is listed, not a failure), cycles off by more than 5%."""
    wrong, not_yet, right_when = k.wrong, k.not_yet, k.right_when
    return [o for o in outcomes
            if (o.original != "pass" and not any(known(o, t) for t in (wrong,
                                                                       not_yet, right_when)))
            or o.ours not in ("pass", "refused")
            or (o.original == "pass" and (o.name in wrong or o.name in not_yet))
            or any(not cycles_accepted(o.name, a, b, k) for _, a, b in o.cycles)]


def cycles_accepted(name: str, original: int, ours: int, k: Known = TIP) -> bool:
    """Within 5% of the original's cycles, or a listed small-run exception
    (:attr:`Known.cycles_off`: at most :data:`CYCLES_SLACK` cycles apart)."""
    return within(original, ours) or (name in k.cycles_off
                                       and abs(ours - original) <= CYCLES_SLACK)


def main_compare(names, group, engines, cycles: bool, matrices: int, seeds: int = 2,
                 records: Path = RECORDS) -> int:
    k = for_commit(load_provenance(records)["commit"])
    outcomes = []
    for g in selected(names, group, records):
        start = time.time()
        o = compare_one(g["name"], g["group"], g["line"], seeds=tuple(range(seeds)),
                        engines=engines, cycles=cycles, matrices=matrices, records=records)
        cyc = " ".join(f"{p}:{a}/{b}" for p, a, b in o.cycles)
        print(f"{o.name:24s} original {o.original:8s} ours {o.ours:8s} counts "
              f"{'=' if o.counts_equal else '!='} {cyc} ({time.time() - start:.0f} s)",
              flush=True)
        outcomes.append(o)
    print()
    print("\n".join(summary(outcomes, k)))
    bad = failures(outcomes, k)
    for o in bad:
        off = "; ".join(f"cycles {p}: {a:,} / {b:,} ({(b - a) / a:+.2%})"
                        for p, a, b in o.cycles if not within(a, b))
        why = o.original_why or o.ours_why or off or "runs, but listed in known.py"
        print(f"FAIL {o.name}: {why}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main_compare(None, None, ("reference",), False, 3))
