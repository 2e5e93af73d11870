"""Table 2 (SAM paper Sec. 6.2) on the original Custard's own graphs, from the record
``tests/data/original-custard-table2.json``: for every distinct logged command line, the rows
whose primitive the graph of the original Custard (github weiya711/taco, branch ``sam``) uses,
counted by the rules of :mod:`custard.reproduce.table2` (its module docstring), or why the
original did not compile the line. No C++ is needed: the record holds the counts, keyed by
:func:`line_key`, with its provenance (tool, commit, command, date).

Codes in the record: the row numbers 1-12 of ``table2.ROWS``, and ``drop`` when the graph holds
a coordinate dropper that cleans no compressed output level (row 10 not counted).
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

RECORD = (Path(__file__).resolve().parents[2] / "tests" / "data"
          / "original-custard-table2.json")


def line_key(line: str) -> str:
    """The record's key of a logged command line (``table2.logged_commands`` text)."""
    return hashlib.sha1(line.encode()).hexdigest()[:12]


@cache
def load_record(path: Path = RECORD) -> dict[str, Any]:
    return json.loads(path.read_text())


#: The flags of Table 2's rows 1-12 (``table2.ROWS`` order), as the record's codes number them.
ROW_FLAGS = ("scan_c", "scan", "repeat", "union", "inter2", "inter", "add", "mul", "reduce",
             "crddrop", "write_c", "write")


_BY_NUMBER = {str(k): flag for k, flag in enumerate(ROW_FLAGS, 1)}


def _flags(code: str) -> frozenset[str]:
    return frozenset(_BY_NUMBER[c] for c in code.split() if c in _BY_NUMBER)


def original_flags(line: str, record: dict[str, Any] | None = None) -> frozenset[str] | None:
    """The Table 2 row flags of the original Custard's graph for ``line``; None when the
    original does not compile it (or the line is not in the record)."""
    record = record if record is not None else load_record()
    key = line_key(line)
    if key in record["graphs"]:
        return _flags(record["graphs"][key])
    if key in record["graphs_without_schedule"]:
        return _flags(record["graphs_without_schedule"][key][1])
    return None


def failure(line: str, record: dict[str, Any] | None = None) -> str | None:
    """Why the original Custard does not compile ``line`` (its message), if it does not."""
    record = record if record is not None else load_record()
    n = record["failures"].get(line_key(line))
    return None if n is None else record["errors"][n]


#: Why a row of our graph and of the original Custard's differ on one line, in the order tried
#: (:func:`difference_reason`); docs/reproduce.md (Table 2) has the measured counts.
REASONS: dict[str, str] = {
    "division": "a quotient: the original Custard's graph has no ALU for '/' (it merges the "
                "operands by a unioner and writes no quotient)",
    "constant": "a constant: ours reads it as a scalar input spread by repeaters (Defs. 3.4-3.6) "
                "and multiplied or added by an ALU; the original's graph leaves it out",
    "tensor twice": "a tensor read twice (B(i,k)*B(k,j), or the result on the right): the "
                    "original's graph is incomplete (empty, or one read's blocks missing)",
    "transpose": "an operand or the result stored against another's order (B(j,i) beside "
                 "A(i,j)): ours re-stores it in the loop order; the original's graph is "
                 "incomplete (levels without scanner or writer)",
    "broadcast": "a result variable no operand has (A(i,j)=b(i)): ours repeats the operands "
                 "along a dense range; the original's graph has no repeater for it",
    "temporary": "ours computes a sum (or a precompute workspace) first into a compressed "
                 "temporary (a program of graphs: write, scan and merge of the temporary); "
                 "the original reads the operands in one graph",
    "dropper": "ours drops empty fibers below unions and single compressed operand levels too "
               "(compressed outputs free of empty fibers); the original only after an "
               "intersection of two or more sparse streams",
    "schedule": "a -s schedule that changes the graph (reorder, fuse/pos): ours compiles "
                "it, the original's SAM graph ignores schedules (it is built from "
                "the assignment alone)",
    "sum": "a sum of products: the original merges all the terms' operands at a variable in "
           "one unioner (no intersecter where a dense operand covers the product), ours "
           "intersects each product's operands and unions the terms",
    "other": "other",
}


def _expression(line: str) -> tuple[str, str]:
    expr = line.split(" ")[0].strip('"')
    lhs, _, rhs = expr.partition("=")
    return lhs, rhs


def _accesses(line: str) -> dict[str, list[str]]:
    """Each tensor's index variables in the order its ``-f`` mode order stores them (the
    result under the key ``=``; a tensor read twice: its first read)."""
    import re

    words = line.split(" ")
    lhs, rhs = _expression(line)
    orders = {}
    for w in words[1:]:
        if w.startswith("-f=") and w.count(":") == 2:
            name, _, order = w[3:].split(":")
            orders[name] = [int(x) for x in order.split(",") if x.isdigit()]
    out: dict[str, list[str]] = {}
    for side, text in (("=", lhs), ("", rhs)):
        for name, args in re.findall(r"([A-Za-z_]\w*)\(([^()]*)\)", text):
            variables = [a.strip() for a in args.split(",")]
            perm = orders.get(name, list(range(len(variables))))
            if sorted(perm) == list(range(len(variables))):
                variables = [variables[m] for m in perm]
            out.setdefault(side or name, variables)
    return out


def difference_reason(line: str, flag: str, ours: frozenset[str] | set[str]) -> str:
    """Why our graph and the original Custard's differ in row ``flag`` on ``line`` (a key of
    :data:`REASONS`), from the line's text and our flags (``ours``: chunk_point's flags)."""
    import re

    lhs, rhs = _expression(line)
    if "/" in rhs:
        return "division"
    if re.search(r"(?<![\w.])\.?\d", rhs):
        return "constant"
    names = re.findall(r"([A-Za-z_]\w*)\s*\(", rhs)
    result = re.match(r"\s*([A-Za-z_]\w*)", lhs)
    if len(set(names)) < len(names) or (result and result.group(1) in names):
        return "tensor twice"
    accesses = _accesses(line)
    before: set[tuple[str, str]] = set()
    for stored in accesses.values():
        before |= {(a, b) for k, a in enumerate(stored) for b in stored[k + 1:]}
    if any((b, a) in before for a, b in before):
        return "transpose"
    result_vars = accesses.get("=", [])
    if any(v not in {x for n, vs in accesses.items() if n != "=" for x in vs}
           for v in result_vars):
        return "broadcast"
    if "program" in ours:
        return "temporary"
    if flag == "crddrop" and flag in ours:
        return "dropper"
    if any(f"{cmd}(" in line for cmd in ("reorder", "precompute", "pos", "fuse")):
        return "schedule"
    if re.search(r"[+-]", rhs):
        return "sum"
    return "other"
