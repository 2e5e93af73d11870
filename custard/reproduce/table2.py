"""Table 2 (SAM paper Sec. 6.2, "Ablation Study"): how many of the algorithms users typed on the
TACO website (``tests/data/taco-website/success.log``) become inexpressible when one SAM
primitive is removed, i.e. how many use it, computed here by compiling every logged command
line with our Custard and looking at the primitives of the graph it gives.

The paper's columns: *All* counts every logged algorithm (23,794 after the artifact drops junk
lines), *Unique* the distinct (expression, formats) pairs up to renaming tensors and index
variables (3,839, by the artifact's key: :func:`~custard.reproduce.artifact_rules.artifact_key`).
Beside ours, the same rows counted on the original Custard's own graphs of the same lines (a
record: :mod:`custard.reproduce.table2_original`). Rows and what "uses" means on one graph:

=====================================  ====================================================
Comp. Level Scanner                    a scanner of a compressed level (or its non-unique or
                                       singleton kinds: COO's ``u``, ``q``, ``c`` levels)
Comp. + Uncomp. Level Scanners         any level scanner
Repeater                               a repeater
Unioner                                a unioner merging at least one compressed stream
Intersector keep Locator               an intersecter merging two or more compressed streams
                                       (one compressed against dense ones could be located)
Intersector w/ Locator Removed         an intersecter merging at least one compressed stream
Adder / Multiplier                     an ``add`` / ``mul`` ALU
Reducer                                a reducer or sparse accumulator
Coordinate Dropper                     a coordinate dropper cleaning a level the output
                                       stores compressed (one above a dense output level
                                       changes nothing: removing it loses no algorithm)
Comp. Level Writer                     a writer of a compressed coordinate level (or its
                                       non-unique or singleton kinds)
Comp. + Uncomp. Level Writers          a writer of any coordinate level
=====================================  ====================================================
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from custard.reproduce.artifact_rules import artifact_key, artifact_rows
from custard.reproduce.common import Claim, Outcome
from custard.reproduce.dropper_reasons import (
    REASONS,
    artifact_needs_dropper,
    cleans_compressed_output,
    dropper_reasons,
)
from custard.reproduce.table2_original import load_record, original_flags
from custard.sweeps.sweep import Point, Sweeper

TITLE = "Ablation: algorithms lost without each SAM primitive (SAM paper Table 2, Sec. 6.2)"
LOG = Path(__file__).resolve().parents[2] / "tests" / "data" / "taco-website" / "success.log"
#: row name, our flag, the paper's (Unique, All, Unique %, All %)
ROWS: tuple[tuple[str, str, tuple[int, int, float, float]], ...] = (
    ("Comp. Level Scanner", "scan_c", (2773, 19363, 72.23, 81.38)),
    ("Comp. + Uncomp. Level Scanners", "scan", (3814, 23713, 99.35, 99.66)),
    ("Repeater", "repeat", (3162, 19924, 82.37, 83.74)),
    ("Unioner", "union", (600, 2229, 15.63, 9.37)),
    ("Intersector keep Locator", "inter2", (720, 2715, 18.75, 11.41)),
    ("Intersector w/ Locator Removed", "inter", (1878, 15777, 48.92, 66.31)),
    ("Adder", "add", (1023, 3118, 26.65, 13.1)),
    ("Multiplier", "mul", (3220, 20986, 83.88, 88.2)),
    ("Reducer", "reduce", (3008, 20036, 78.35, 84.21)),
    ("Coordinate Dropper", "crddrop", (617, 2292, 16.07, 9.63)),
    ("Comp. Level Writer", "write_c", (1075, 5525, 28.0, 23.22)),
    ("Comp. + Uncomp. Level Writers", "write", (3698, 23260, 96.33, 97.76)),
)
PAPER_ALL, PAPER_UNIQUE, PAPER_UNIQUE_EXPR = 23_794, 3_839, 1_745
CHUNK = 400
QUICK_LINES = 400
SHARE_TOLERANCE = 5.0  # percentage points


def logged_commands(path: Path = LOG) -> list[str]:
    """The command line (after ``taco``) of every logged algorithm, junk lines dropped as the
    paper's artifact drops them (a line whose expression starts with a lone quote, and one
    garbage line)."""
    out = []
    for line in path.read_text(errors="replace").splitlines():
        words = line.split(" ")[3:]
        if words and words[0] != '"' and '"struggle=ZGllKE' not in words[0]:
            out.append(" ".join(words))
    return out


def canonical(command: str, with_formats: bool = True) -> str:
    """The command up to renaming: tensors and index variables renamed in order of first
    appearance, formats (``-f=``) kept with the renamed tensor; schedules ignored."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    if not words:
        return ""
    expr = words[0]
    tokens = re.findall(r"[A-Za-z_]\w*|\S", expr)
    names: dict[str, str] = {}
    stack: list[bool] = []  # True: the parentheses of a tensor access
    out = []
    for k, tok in enumerate(tokens):
        if re.fullmatch(r"[A-Za-z_]\w*", tok):
            is_tensor = not (stack and stack[-1]) or (k + 1 < len(tokens)
                                                      and tokens[k + 1] == "(")
            prefix = "T" if is_tensor else "i"
            if (prefix, tok) not in names:
                names[(prefix, tok)] = f"{prefix}{sum(p == prefix for p, _ in names)}"
            out.append(names[(prefix, tok)])
        else:
            if tok == "(":
                stack.append(k > 0 and bool(re.fullmatch(r"[A-Za-z_]\w*", tokens[k - 1])))
            elif tok == ")" and stack:
                stack.pop()
            out.append(tok)
    key = "".join(out)
    if with_formats:
        fmts = []
        for w in words[1:]:
            if w.startswith("-f="):
                name, _, rest = w[3:].partition(":")
                fmts.append(f"{names.get(('T', name), name)}:{rest}")
        key += " " + " ".join(sorted(fmts))
    return key


def _sparse_inputs(graph: Any, block_id: str) -> int:
    """How many coordinate inputs of a merge come from something other than a dense scanner."""
    feeds = {e.dst: e.src for e in graph.edges if graph.blocks[e.dst].dot_type == "broadcast"}
    n = 0
    for e in graph.inputs_of(block_id):
        if e.kind != "crd":
            continue
        src = e.src
        seen = set()
        while graph.blocks[src].dot_type == "broadcast" and src in feeds and src not in seen:
            seen.add(src)
            src = feeds[src]
        b = graph.blocks[src]
        n += not (b.dot_type == "fiberlookup" and b.attrs.get("format") == "dense")
    return n


def _not_full(fmt: str | None) -> bool:
    """A level format other than a full (uncompressed) one: compressed, and its non-unique and
    singleton kinds (the levels of COO ``uq`` and the like). Our DOT default is compressed."""
    from formats.errors import FormatError
    from formats.levels import level_named

    try:
        return not level_named(fmt or "compressed").full
    except FormatError:
        return True


def primitive_flags(graph: Any) -> list[str]:
    """The Table 2 rows whose primitive ``graph`` uses (see module docstring)."""
    flags = set()
    for bid, b in graph.blocks.items():
        t, fmt = b.dot_type, b.attrs.get("format")
        if t == "fiberlookup":
            flags.add("scan")
            if _not_full(fmt):
                flags.add("scan_c")
        elif t == "repeat":
            flags.add("repeat")
        elif t in ("union", "intersect"):
            sparse = _sparse_inputs(graph, bid)
            if t == "union" and sparse >= 1:
                flags.add("union")
            if t == "intersect" and sparse >= 1:
                flags.add("inter")
            if t == "intersect" and sparse >= 2:
                flags.add("inter2")
        elif t in ("add", "mul"):
            flags.add(t)
        elif t == "crddrop":
            flags.add("crddrop_any")
        elif t in ("reduce", "spaccumulator"):
            flags.add("reduce")
        elif t == "fiberwrite" and b.attrs.get("mode") != "vals":
            flags.add("write")
            if _not_full(fmt):
                flags.add("write_c")
    if "crddrop_any" in flags:
        flags |= {f"crddrop_{why}" for why in dropper_reasons(graph)}
        if cleans_compressed_output(graph):
            flags.add("crddrop")
    return sorted(flags)


def taco_default_formats(command: str) -> list[str]:
    """``-f`` options for the tensors a logged line gives no format: TACO's command line
    stores those dense (``-f=B:ddd``), where Custard's own default is compressed."""
    words = command.split(" ")
    expr = words[0].strip('"')
    given = {w[3:].split(":")[0] for w in words[1:] if w.startswith("-f=")}
    out: dict[str, str] = {}
    for name, args in re.findall(r"([A-Za-z_]\w*)\(([^()]*)\)", expr):
        if name not in given and args.strip():
            out.setdefault(name, f"-f={name}:{'d' * len(args.split(','))}")
    return list(out.values())


def chunk_point(p: Point) -> dict[str, Any]:
    """Compile each command line of the chunk: ``[status, flags]`` per line (status compiled,
    refused or crashed)."""
    from custard.api import graphs_of
    from custard.cli import graph_from_command_line
    from formats.errors import ToolkitError

    out = []
    for command in p["lines"]:
        try:
            # the paper's ablation is of core SAM (Sec. 3): every intersection a coiteration
            words = [*shlex.split(command), *taco_default_formats(command)]
        except ValueError:
            words = None
        try:
            result = graph_from_command_line(command if words is None
                                             else [*words, "--no-locate"])
        except ToolkitError:
            out.append(["refused", []])
        except Exception:  # noqa: BLE001 - a compiler bug: counted, reported by scripts/corpus.py
            out.append(["crashed", []])
        else:  # a program of graphs (temporaries) uses the primitives of all its graphs
            graphs = graphs_of(result)
            flags = {f for graph in graphs for f in primitive_flags(graph)}
            if len(graphs) > 1:
                flags.add("program")
            if artifact_needs_dropper(command):
                flags.add("artifact_crddrop")
            flags |= {f"art_{row}" for row in artifact_rows(command) or ()}
            out.append(["compiled", sorted(flags)])
    return {"results": out}


#: Flags beside the rows' (why our graphs hold droppers; docs/reproduce.md, Table 2).
EXTRA_FLAGS = ("program", "crddrop_any", "artifact_crddrop", *(f"crddrop_{why}" for why in REASONS),
               *(f"art_{flag}" for _, flag, _ in ROWS))


def _count(flags_of: dict[str, list[str]], commands: Iterable[str]) -> dict[str, int]:
    counts = {flag: 0 for flag in (*(f for _, f, _ in ROWS), *EXTRA_FLAGS)}
    for c in commands:
        for f in flags_of.get(c, []):
            counts[f] += 1
    return counts


def run(sweeper: Sweeper, *, quick: bool, **_: Any) -> Outcome:
    commands = logged_commands()
    unique_lines = list(dict.fromkeys(commands))
    if quick:
        unique_lines = unique_lines[:QUICK_LINES]
        keep = set(unique_lines)
        commands = [c for c in commands if c in keep]
    points = [{"lines": unique_lines[k:k + CHUNK]} for k in range(0, len(unique_lines), CHUNK)]
    results = sweeper.run(chunk_point, points, "table2")
    status: dict[str, str] = {}
    flags_of: dict[str, list[str]] = {}
    for p, r in zip(points, results, strict=True):
        for line, (st, flags) in zip(p["lines"], r["results"], strict=True):
            status[line] = st
            if st == "compiled":
                flags_of[line] = flags
    # Unique algorithms: one representative (the first logged) per distinct algorithm, by the
    # paper artifact's key (artifact_rules.artifact_key); ours (canonical) in the notes
    reps: dict[str, str] = {}
    for c in commands:
        reps.setdefault(artifact_key(c), c)
    unique_exprs = {artifact_key(c, with_formats=False) for c in commands}
    ours_distinct = len({canonical(c) for c in commands})
    ours_exprs = len({canonical(c, with_formats=False) for c in commands})
    all_ok = [c for c in commands if status.get(c) == "compiled"]
    uniq_ok = [c for c in reps.values() if status.get(c) == "compiled"]
    all_counts, uniq_counts = _count(flags_of, all_ok), _count(flags_of, uniq_ok)
    # the original Custard's graphs of the same lines (the record; no C++ needed)
    record = load_record()
    orig = {c: original_flags(c, record) for c in dict.fromkeys(commands)}
    orig_of = {c: sorted(f) for c, f in orig.items() if f is not None}
    orig_all = [c for c in commands if c in orig_of]
    orig_uniq = [c for c in reps.values() if c in orig_of]
    orig_all_counts, orig_uniq_counts = _count(orig_of, orig_all), _count(orig_of, orig_uniq)

    rows: list[dict[str, Any]] = []
    claims: list[Claim] = []
    for k, (name, flag, (pu, pa, pup, pap)) in enumerate(ROWS, 1):
        ou, oa = uniq_counts[flag], all_counts[flag]
        oup, oap = 100 * ou / max(len(uniq_ok), 1), 100 * oa / max(len(all_ok), 1)
        gu, ga = orig_uniq_counts[flag], orig_all_counts[flag]
        gup, gap = 100 * gu / max(len(orig_uniq), 1), 100 * ga / max(len(orig_all), 1)
        rows += [
            {"series": "ours, unique", "x": name, "cycles": None, "value": ou,
             "percent": oup, "of": len(uniq_ok)},
            {"series": "ours, all", "x": name, "cycles": None, "value": oa, "percent": oap,
             "of": len(all_ok)},
            {"series": "original Custard's graphs, unique", "x": name, "cycles": None,
             "value": gu, "percent": gup, "of": len(orig_uniq)},
            {"series": "original Custard's graphs, all", "x": name, "cycles": None,
             "value": ga, "percent": gap, "of": len(orig_all)},
            {"series": "paper, unique", "x": name, "cycles": None, "value": pu,
             "percent": pup, "of": PAPER_UNIQUE},
            {"series": "paper, all", "x": name, "cycles": None, "value": pa, "percent": pap,
             "of": PAPER_ALL},
        ]
        ok = abs(oup - pup) <= SHARE_TOLERANCE and abs(oap - pap) <= SHARE_TOLERANCE
        claims.append(Claim.check(
            "6.2, Table 2", f"row {k}, {name} removed: {pu:,} unique ({pup:.2f}%), {pa:,} all "
            f"({pap:.2f}%) algorithms lost (PASS: our shares within {SHARE_TOLERANCE:.0f} "
            "points)", f"{ou:,} of {len(uniq_ok):,} compiled unique ({oup:.2f}%), {oa:,} of "
            f"{len(all_ok):,} compiled all ({oap:.2f}%); the original Custard's graphs: "
            f"{gu:,} of {len(orig_uniq):,} ({gup:.2f}%), {ga:,} of {len(orig_all):,} "
            f"({gap:.2f}%)" + (f". {ROW_DIFFERENCES[flag]}" if flag in ROW_DIFFERENCES else ""),
            ok))
    claims.insert(0, Claim.check(
        "6.2", f"users have successfully compiled {PAPER_ALL:,} sparse tensor algebra "
        "algorithms", f"{len(commands):,} logged algorithms", len(commands) == PAPER_ALL))
    claims.insert(1, Claim.check(
        "6.2", f"of which {PAPER_UNIQUE:,} were distinct algorithms (unique combinations of "
        "expression and format)", f"{len(reps):,} distinct by the artifact's key "
        f"(ours, up to renaming: {ours_distinct:,})", len(reps) == PAPER_UNIQUE))
    claims.insert(2, Claim.check(
        "6.2", f"and {PAPER_UNIQUE_EXPR:,} were unique solely in expression",
        f"{len(unique_exprs):,} by the artifact's key (ours: {ours_exprs:,})",
        len(unique_exprs) == PAPER_UNIQUE_EXPR))
    lost = [name for name, flag, _ in ROWS if uniq_counts[flag] == 0]
    claims.append(Claim.check(
        "6.2", "removing any SAM primitive limits the expressible algorithms",
        "every row loses some compiled algorithm" if not lost else
        f"no compiled algorithm uses: {', '.join(lost)}", not lost))
    most = [name for name, flag, _ in ROWS if all_counts[flag] > len(all_ok) / 2]
    claims.append(Claim.check(
        "6.2", "most blocks are used for most applications",
        f"{len(most)} of {len(ROWS)} rows are used by more than half of the compiled "
        "algorithms", len(most) > len(ROWS) / 2))
    tally = {s: sum(1 for c in commands if status.get(c) == s)
             for s in ("compiled", "refused", "crashed")}
    notes = [
        f"Our Custard compiles {tally['compiled']:,} of the {len(commands):,} logged "
        f"algorithms ({len(uniq_ok):,} of {len(reps):,} distinct); it refuses "
        f"{tally['refused']:,} with a one-line error (unsupported syntax or formats, see "
        f"`python scripts/corpus.py`) and crashes on {tally['crashed']:,}. Our counts are over "
        "the compiled ones, so they are compared as shares.",
        "The paper's artifact (taco-website/process_expr.py) does not compile: it reads each "
        "expression and its formats syntactically. Its 'Adder' and 'Multiplier' rows count "
        "lines whose text contains '+' or '*' (a '*' of two dense operands counts as "
        "well); its scanner and writer rows count algorithms with any non-dense input or "
        "output (writers: any non-scalar output), where we look at the graph's blocks. Where "
        "its rule and the compiled graph disagree, the graph is what the hardware needs: e.g. "
        "a sum over an index (a reducer) compiles without any ALU add, and a dense output "
        "level is written by a writer that the paper counts as uncompressed only.",
        _dropper_note(uniq_counts, all_counts, len(uniq_ok), len(all_ok)),
        _rule_table(uniq_counts, all_counts, len(uniq_ok), len(all_ok)),
        f"Distinct algorithms (claims 2-3, and the representatives, the first logged line of "
        "each, that the Unique columns count) by the paper artifact's key, restated in "
        "custard/reproduce/artifact_rules.py (artifact_key): both sides parsed as Python, so "
        "redundant parentheses and spacing vanish; tensors and index variables renamed in order "
        "of first appearance, right-hand side first; a tensor named with its levels and mode "
        "order only where the artifact reads its -f option (the result's must come first; a "
        "scalar result gives no tensor a format). It gives the paper's 3,839 and 1,745 with "
        "the same representatives. Our own canonical form (every -f kept, parentheses kept) "
        f"gives {ours_distinct:,} and {ours_exprs:,}.",
        _original_note(len(orig_of), len(orig), len(orig_all), len(commands), record),
        _comparison_table(flags_of, orig_of),
    ]
    if quick:
        notes.insert(0, f"`--quick`: the first {QUICK_LINES} distinct logged lines only.")

    def draw(path: Path) -> None:
        _draw(path, uniq_counts, all_counts, len(uniq_ok), len(all_ok),
              (orig_uniq_counts, orig_all_counts, len(orig_uniq), len(orig_all)))

    return Outcome(TITLE, rows, claims, draw, notes, ("value", "percent", "of"))


#: Why each row differs (docs/reproduce.md, Table 2), given with the numbers of _rule_table.
ROW_REASONS = {
    "scan_c": "the artifact counts a scalar operand, or a tensor without -f (dense in TACO and "
              "here), as not dense; our graphs read those densely",
    "scan": "both count algorithms with a non-scalar operand",
    "repeat": "the artifact counts broadcasts in the text; our graphs repeat an operand over "
              "every loop variable above it that it lacks in the chosen order",
    "union": "the artifact looks at '+' only (not '-') over a shared variable with a non-dense "
             "mode; our graphs merge for '-' too, and the terms of a sum whose streams come "
             "from a reducer, a repeater or a temporary (sums of products, precompute) even "
             "when every operand is dense",
    "inter2": "both: a product co-iterating two or more sparse operands",
    "inter": "both: a product with at least one sparse operand of a shared variable",
    "add": "the artifact counts '+' in the text (a reduction compiles to a reducer, not an adder; "
           "'-' compiles to an adder here)",
    "mul": "the artifact counts '*' in the text",
    "reduce": "both: a variable summed away",
    "crddrop": "see the note above",
    "write_c": "the artifact counts outputs with an explicit non-dense format; our graphs also "
               "write compressed temporaries (a program of graphs: precompute, sums computed "
               "first), which weighs in the all-lines share",
    "write": "both count non-scalar outputs",
}


def _rule_table(uniq: dict[str, int], alls: dict[str, int], n_uniq: int, n_all: int) -> str:
    """Row by row: the paper, the artifact's rule applied to the lines we compiled, our graphs
    (custard/reproduce/artifact_rules.py). Where the middle column is near the paper, the
    difference to ours is the rule (syntax against the compiled graph)."""
    lines = ["Each row, as shares unique / all: the paper's; the paper artifact's syntactic rule "
             "applied to the lines we compiled; our compiled graphs; why they differ.", "",
             "| row | paper | artifact's rule, our lines | our graphs | why |",
             "|---|---|---|---|---|"]
    for k, (name, flag, (_, _, pup, pap)) in enumerate(ROWS, 1):
        art = (100 * uniq[f"art_{flag}"] / max(n_uniq, 1),
               100 * alls[f"art_{flag}"] / max(n_all, 1))
        ours = (100 * uniq[flag] / max(n_uniq, 1), 100 * alls[flag] / max(n_all, 1))
        lines.append(f"| {k}. {name} | {pup:.1f}% / {pap:.1f}% | {art[0]:.1f}% / {art[1]:.1f}% | "
                     f"{ours[0]:.1f}% / {ours[1]:.1f}% | {ROW_REASONS[flag]} |")
    return "\n".join(lines)


def _dropper_note(uniq: dict[str, int], alls: dict[str, int], n_uniq: int, n_all: int) -> str:
    """Row 10 explained: our graphs' droppers by reason, and the artifact's rule on the same
    compiled lines (custard/reproduce/dropper_reasons.py)."""
    def pct(counts: dict[str, int], flag: str, n: int) -> str:
        return f"{100 * counts[flag] / max(n, 1):.1f}% / {100 * alls[flag] / max(n_all, 1):.1f}%"

    return (
        "Coordinate Dropper (row 10; shares given as unique / all): our graphs hold a dropper "
        f"in {pct(uniq, 'crddrop_any', n_uniq)} of the compiled algorithms, but only "
        f"{pct(uniq, 'crddrop', n_uniq)} need one, i.e. clean a level the output stores "
        "compressed (the row's count); the others sit above dense output levels, where "
        "removing them changes nothing. Our compiler keeps compressed output levels free of "
        "empty fibers, so it drops coordinates wherever a level below may come out empty: "
        "after an intersection of two or more sparse streams "
        f"({pct(uniq, 'crddrop_coiteration', n_uniq)}), "
        f"below a single compressed operand level ({pct(uniq, 'crddrop_single', n_uniq)}), "
        f"after a union ({pct(uniq, 'crddrop_union', n_uniq)}), and to remove zero sums of "
        f"empty fibers ({pct(uniq, 'crddrop_zeros', n_uniq)}); a graph may have several. "
        "The paper's artifact does not compile: it counts a line when one multiplication "
        "co-iterates two or more non-dense operands over an index variable that is not the "
        "alphabetically first of that multiplication, which on the same compiled lines gives "
        f"{pct(uniq, 'artifact_crddrop', n_uniq)}. The original Custard leaves empty fibers in "
        "compressed outputs below unions and single operands; ours does not."
    )


def _draw(path: Path, uniq: dict[str, int], alls: dict[str, int], n_uniq: int, n_all: int,
          orig: tuple[dict[str, int], dict[str, int], int, int]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    names = [f"{k}. {name}" for k, (name, _, _) in enumerate(ROWS, 1)]
    y = np.arange(len(ROWS))
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.2), sharey=True)
    for ax, title, ours, n, col, g, gn in (
            (axes[0], "Unique", uniq, n_uniq, 2, orig[0], orig[2]),
            (axes[1], "All", alls, n_all, 3, orig[1], orig[3])):
        ax.barh(y - 0.27, [100 * ours[f] / max(n, 1) for _, f, _ in ROWS], 0.27,
                color="#1f77b4", label="ours (share of compiled)")
        ax.barh(y, [100 * g[f] / max(gn, 1) for _, f, _ in ROWS], 0.27, color="#ff7f0e",
                label="original Custard's graphs (share of compiled)")
        ax.barh(y + 0.27, [p[col] for _, _, p in ROWS], 0.27, color="#bbbbbb",
                edgecolor="#555555", label="paper")
        ax.set_xlim(0, 100)
        ax.set_xlabel("algorithms lost (%)")
        ax.set_title(f"{title}")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, ncol=3, fontsize=9, loc="lower center")
    axes[0].set_yticks(y, names, fontsize=9)
    axes[0].invert_yaxis()
    fig.suptitle("SAM primitive removed: algorithms no longer expressible (cf. Table 2)")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(path, dpi=100)
    plt.close(fig)


#: Why a FAILing row of ours differs from the paper's, measured against the original Custard's
#: graphs (custard/reproduce/table2_original.py; docs/reproduce.md, Table 2).
ROW_DIFFERENCES: dict[str, str] = {
    "union": "The original's graphs are within the 5 points; ours are above them on the same "
             "lines (see the comparison note): ours unions the terms of sums of products that "
             "the original merges at fewer unioners of dense streams, writes sums first into a "
             "compressed temporary, and reads constants as inputs; where a tensor is read twice "
             "the original's graph is incomplete",
    "crddrop": "The original's graphs are within the 5 points (All), ours above: ours drops "
               "empty fibers below unions and single compressed operand levels too, so that a "
               "compressed output holds no empty fiber (deliberate), and its temporaries and "
               "precompute workspaces are compressed levels that need droppers; the original "
               "drops only after an intersection of two or more sparse streams",
    "write_c": "The original's graphs give the paper's shares (within 1 point); ours are above "
               "them in the all-lines share because our programs write a compressed temporary "
               "(a sum computed first, a precompute workspace: frequent lines of the log); the "
               "original reads the operands in one graph and ignores precompute",
}


def _original_note(n_lines_ok: int, n_lines: int, n_all_ok: int, n_all: int,
                   record: dict[str, Any]) -> str:
    light = len(record["light_parse"])
    nosched = len(record["graphs_without_schedule"])
    return (
        f"The original Custard's graphs (weiya711/taco, branch sam, commit 6570336a; recorded in "
        f"tests/data/original-custard-table2.json, no C++ needed): it writes a graph for "
        f"{n_lines_ok:,} of the {n_lines:,} distinct logged lines ({n_all_ok:,} of {n_all:,} "
        f"logged; {nosched:,} of them only without the line's -s schedule, which its CPU "
        "lowering refuses while its SAM graph ignores it); the others abort (e.g. an index "
        "range check), loop (over 10 s) or give an empty graph. Its rows are counted by the "
        f"same rules as ours, on graphs read with our DOT reader ({light:,} that it refuses, "
        "a tensor named twice in the graph comment or an accumulator of order 0, from the raw "
        "DOT)."
    )


def _comparison_table(flags_of: dict[str, list[str]], orig_of: dict[str, list[str]]) -> str:
    """Row by row, over the distinct lines both compilers compile: how many differ, and why
    (table2_original.difference_reason)."""
    from collections import Counter

    from custard.reproduce.table2_original import REASONS, difference_reason

    both = [c for c in flags_of if c in orig_of]
    lines = [f"Our graphs against the original Custard's, over the {len(both):,} distinct lines "
             "both compile: per row, the lines where only ours uses the primitive / only the "
             "original's does, and why (custard/reproduce/table2_original.py).", "",
             "| row | same | ours only | original only | why (lines) |", "|---|---|---|---|---|"]
    for k, (name, flag, _) in enumerate(ROWS, 1):
        why: Counter[str] = Counter()
        ours_only = orig_only = 0
        for c in both:
            a, b = flag in flags_of[c], flag in orig_of[c]
            if a != b:
                ours_only += a
                orig_only += b
                why[difference_reason(c, flag, set(flags_of[c]))] += 1
        reasons = ", ".join(f"{r} {n}" for r, n in why.most_common())
        lines.append(f"| {k}. {name} | {len(both) - ours_only - orig_only:,} | {ours_only:,} | "
                     f"{orig_only:,} | {reasons or '-'} |")
    lines += ["", "Reasons: " + "; ".join(f"*{r}*: {text}" for r, text in REASONS.items()
                                          if r != "other") + "."]
    return "\n".join(lines)
