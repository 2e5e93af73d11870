"""Primitive counts of a SAM graph in the layout of the SAM paper's Table 1 (Sec. 6.1).

A row counts, per column, the graph's blocks of these DOT node types:

=========  ===========================================================
Lvl Scan   ``fiberlookup`` (level scanners)
Repeat     ``repeat`` (``repsiggen`` is part of a repeater, not counted)
Intersect  ``intersect``
Union      ``union``
ALU        ``add``, ``sub``, ``mul``, ``div``, ``max``, ``min``, ``neg``, ``abs``, ``exp``,
           ``relu``
Reduce     ``reduce``, ``spaccumulator``
Crd Drop   ``crddrop``
Lvl Wr     ``fiberwrite`` (coordinate and value levels)
Array      ``arrayvals``
=========  ===========================================================

``broadcast`` (a fan-out point) and any other node type are not counted.

:data:`TABLE1` lists the paper's twelve expressions (SpM*SpM in its three dataflow classes) with
the formats and loop order we compile them with and the paper's numbers; :func:`table1` compiles
them and compares.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from sam.graph.model import Graph

#: Table 1 columns and the DOT node types each counts.
COLUMNS: dict[str, tuple[str, ...]] = {
    "Lvl Scan": ("fiberlookup",),
    "Repeat": ("repeat",),
    "Intersect": ("intersect",),
    "Union": ("union",),
    "ALU": ("add", "sub", "mul", "div", "max", "min", "neg", "abs", "exp", "relu"),
    "Reduce": ("reduce", "spaccumulator"),
    "Crd Drop": ("crddrop",),
    "Lvl Wr": ("fiberwrite",),
    "Array": ("arrayvals",),
}
HEADERS: tuple[str, ...] = tuple(COLUMNS)


def primitive_counts(graph: Graph | Mapping[str, int]) -> dict[str, int]:
    """The Table 1 row of ``graph`` (or of node counts by DOT type, as ``Graph.count()``
    gives them): column name -> count, in column order."""
    by_type = graph.count() if isinstance(graph, Graph) else dict(graph)
    return {col: sum(by_type.get(t, 0) for t in types) for col, types in COLUMNS.items()}


def row(graph: Graph | Mapping[str, int]) -> tuple[int, ...]:
    """The Table 1 row of ``graph`` as a tuple in column order."""
    return tuple(primitive_counts(graph).values())


def _cell(n: int | str) -> str:
    return "" if n == 0 else str(n)


def format_table(rows: Iterable[tuple[str, Sequence[int | str]]], *,
                 blank_zeros: bool = True) -> str:
    """A plain-text table: one line per (name, row) under the Table 1 headers."""
    rows = list(rows)
    names = [name for name, _ in rows]
    width0 = max([len("Name"), *map(len, names)])
    cells = [[(_cell(v) if blank_zeros else str(v)) for v in r] for _, r in rows]
    widths = [max([len(h), *(len(c[k]) for c in cells)]) for k, h in enumerate(HEADERS)]
    lines = ["  ".join(["Name".ljust(width0), *(h.rjust(w) for h, w in zip(HEADERS, widths,
                                                                          strict=True))])]
    for name, c in zip(names, cells, strict=True):
        lines.append("  ".join([name.ljust(width0),
                                *(v.rjust(w) for v, w in zip(c, widths, strict=True))]))
    return "\n".join(lines)


def count_expressions(
    entries: Iterable[tuple[str, str, Mapping[str, str] | None, str | Sequence[str] | None]],
) -> list[tuple[str, tuple[int, ...]]]:
    """Compile each (name, expression, formats, order) and return its name and row."""
    from custard.api import compile as compile_expr

    return [(name, row(compile_expr(expr, fmts, order))) for name, expr, fmts, order in entries]


# ---------------------------------------------------------------------------- Table 1
@dataclass(frozen=True)
class Table1Entry:
    """One row of the SAM paper's Table 1: what we compile and what the paper counts."""

    name: str
    expression: str
    formats: dict[str, str]
    order: str
    paper: tuple[int, ...]  # Lvl Scan, Repeat, Intersect, Union, ALU, Reduce, Crd Drop, Lvl Wr,
    #                         Array (blank = 0)


#: The paper's expressions in alphabetical loop order; SpM*SpM in its three dataflow classes
#: (inner product ijk, linear combination of rows ikj, outer product kij) with formats that let
#: each loop order read its operands in their mode order.
TABLE1: tuple[Table1Entry, ...] = (
    Table1Entry("SpMV", "x(i)=B(i,j)*c(j)", {}, "ij", (3, 1, 1, 0, 1, 1, 1, 2, 2)),
    Table1Entry("SpM*SpM (ijk)", "X(i,j)=B(i,k)*C(k,j)", {"C": "ss:1,0"}, "ijk",
                (4, 2, 1, 0, 1, 1, 2, 3, 2)),
    Table1Entry("SpM*SpM (ikj)", "X(i,j)=B(i,k)*C(k,j)", {}, "ikj",
                (4, 2, 1, 0, 1, 1, 1, 3, 2)),
    Table1Entry("SpM*SpM (kij)", "X(i,j)=B(i,k)*C(k,j)", {"B": "ss:1,0"}, "kij",
                (4, 2, 1, 0, 1, 1, 0, 3, 2)),
    Table1Entry("SDDMM", "X(i,j)=B(i,j)*C(i,k)*D(j,k)", {}, "ijk",
                (6, 3, 3, 0, 2, 1, 2, 3, 3)),
    Table1Entry("InnerProd", "x=B(i,j,k)*C(i,j,k)", {}, "ijk", (6, 0, 3, 0, 1, 3, 0, 1, 2)),
    Table1Entry("TTV", "X(i,j)=B(i,j,k)*c(k)", {}, "ijk", (4, 2, 1, 0, 1, 1, 2, 3, 2)),
    Table1Entry("TTM", "X(i,j,k)=B(i,j,l)*C(k,l)", {}, "ijkl", (5, 3, 1, 0, 1, 1, 3, 4, 2)),
    Table1Entry("MTTKRP", "X(i,j)=B(i,k,l)*C(j,k)*D(j,l)", {}, "ijkl",
                (7, 5, 3, 0, 2, 2, 3, 3, 3)),
    Table1Entry("Residual", "x(i)=b(i)-C(i,j)*d(j)", {}, "ij", (4, 1, 1, 1, 2, 1, 1, 2, 3)),
    Table1Entry("MatTransMul", "x(i)=a*B(j,i)*c(j)+b*d(i)", {"B": "ss:1,0"}, "ij",
                (4, 4, 1, 1, 4, 1, 1, 2, 5)),
    Table1Entry("MMAdd", "X(i,j)=B(i,j)+C(i,j)", {}, "ij", (4, 0, 0, 2, 1, 0, 0, 3, 2)),
    Table1Entry("Plus3", "X(i,j)=B(i,j)+C(i,j)+D(i,j)", {}, "ij", (6, 0, 0, 2, 2, 0, 0, 3, 3)),
    Table1Entry("Plus2", "X(i,j,k)=B(i,j,k)+C(i,j,k)", {}, "ijk", (6, 0, 0, 3, 1, 0, 0, 4, 2)),
)


def table1() -> list[tuple[Table1Entry, tuple[int, ...]]]:
    """Compile every :data:`TABLE1` expression: (entry, our row)."""
    from custard.api import compile as compile_expr

    return [(e, row(compile_expr(e.expression, e.formats, e.order))) for e in TABLE1]


def table1_report() -> tuple[str, list[str]]:
    """The Table 1 comparison as text (for every expression our row and, under it, the paper's
    row) and the list of mismatches (empty when everything agrees)."""
    results = table1()
    lines: list[tuple[str, Sequence[int | str]]] = []
    mismatches: list[str] = []
    for entry, ours in results:
        lines.append((entry.name, ours))
        same = ours == entry.paper
        lines.append(("  paper" + ("" if same else "  << DIFFERS"), entry.paper))
        if not same:
            diff = [f"{h} {o} (paper {p})" for h, o, p in zip(HEADERS, ours, entry.paper,
                                                              strict=True) if o != p]
            mismatches.append(f"{entry.name}: " + ", ".join(diff))
    width = max(len(e.name) for e, _ in results)
    exprs = "\n".join(
        f"{e.name.ljust(width)}  {e.expression}  order {e.order}"
        + "".join(f"  -f={t}:{f}" for t, f in e.formats.items())
        for e, _ in results
    )
    verdict = ("all rows equal the paper's Table 1" if not mismatches else
               f"{len(mismatches)} row(s) differ from the paper's Table 1:\n  "
               + "\n  ".join(mismatches))
    text = f"{exprs}\n\n{format_table(lines)}\n\n{verdict}"
    return text, mismatches
