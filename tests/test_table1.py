"""SAM paper Table 1 (Sec. 6.1): our compiler's primitive counts equal the paper's, number by
number, for the twelve expressions (alphabetical loop order; SpM*SpM in the three dataflow
classes inner product ijk, linear combination of rows ikj, outer product kij)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import custard
from custard.counts import HEADERS, TABLE1, format_table, primitive_counts, row, table1_report
from sam.graph.dot import load

ROOT = Path(__file__).resolve().parents[1]
COLS = ("Lvl Scan", "Repeat", "Intersect", "Union", "ALU", "Reduce", "Crd Drop", "Lvl Wr",
        "Array")

#: The paper's table, typed in again (blank = 0): expression, formats, order, counts.
PAPER = {
    "SpMV": ("x(i)=B(i,j)*c(j)", {}, "ij", (3, 1, 1, 0, 1, 1, 1, 2, 2)),
    "SpM*SpM (ijk)": ("X(i,j)=B(i,k)*C(k,j)", {"C": "ss:1,0"}, "ijk",
                      (4, 2, 1, 0, 1, 1, 2, 3, 2)),
    "SpM*SpM (ikj)": ("X(i,j)=B(i,k)*C(k,j)", {}, "ikj", (4, 2, 1, 0, 1, 1, 1, 3, 2)),
    "SpM*SpM (kij)": ("X(i,j)=B(i,k)*C(k,j)", {"B": "ss:1,0"}, "kij",
                      (4, 2, 1, 0, 1, 1, 0, 3, 2)),
    "SDDMM": ("X(i,j)=B(i,j)*C(i,k)*D(j,k)", {}, "ijk", (6, 3, 3, 0, 2, 1, 2, 3, 3)),
    "InnerProd": ("x=B(i,j,k)*C(i,j,k)", {}, "ijk", (6, 0, 3, 0, 1, 3, 0, 1, 2)),
    "TTV": ("X(i,j)=B(i,j,k)*c(k)", {}, "ijk", (4, 2, 1, 0, 1, 1, 2, 3, 2)),
    "TTM": ("X(i,j,k)=B(i,j,l)*C(k,l)", {}, "ijkl", (5, 3, 1, 0, 1, 1, 3, 4, 2)),
    "MTTKRP": ("X(i,j)=B(i,k,l)*C(j,k)*D(j,l)", {}, "ijkl", (7, 5, 3, 0, 2, 2, 3, 3, 3)),
    "Residual": ("x(i)=b(i)-C(i,j)*d(j)", {}, "ij", (4, 1, 1, 1, 2, 1, 1, 2, 3)),
    "MatTransMul": ("x(i)=a*B(j,i)*c(j)+b*d(i)", {"B": "ss:1,0"}, "ij",
                    (4, 4, 1, 1, 4, 1, 1, 2, 5)),
    "MMAdd": ("X(i,j)=B(i,j)+C(i,j)", {}, "ij", (4, 0, 0, 2, 1, 0, 0, 3, 2)),
    "Plus3": ("X(i,j)=B(i,j)+C(i,j)+D(i,j)", {}, "ij", (6, 0, 0, 2, 2, 0, 0, 3, 3)),
    "Plus2": ("X(i,j,k)=B(i,j,k)+C(i,j,k)", {}, "ijk", (6, 0, 0, 3, 1, 0, 0, 4, 2)),
}


def test_columns():
    assert HEADERS == COLS


def test_table1_lists_the_paper():
    assert [e.name for e in TABLE1] == list(PAPER)
    for e in TABLE1:
        assert (e.expression, e.formats, e.order, e.paper) == PAPER[e.name], e.name


@pytest.mark.parametrize("name", list(PAPER))
def test_counts_equal_the_paper(name):
    expr, fmts, order, paper = PAPER[name]
    counts = primitive_counts(custard.compile(expr, fmts, order))
    assert list(counts) == list(COLS)
    for col, want in zip(COLS, paper, strict=True):
        assert counts[col] == want, f"{name}: {col} is {counts[col]}, the paper says {want}"


def test_crddrop_by_dataflow_class():
    """Footnote b: 0-2 coordinate droppers for SpM*SpM: inner product 2, linear combination of
    rows 1, outer product 0 (and the transposed orders the same)."""
    expr = "X(i,j)=B(i,k)*C(k,j)"
    drops = {
        "ijk": ({"C": "ss:1,0"}, 2), "jik": ({"X": "ss:1,0", "C": "ss:1,0"}, 2),
        "ikj": ({}, 1), "jki": ({"X": "ss:1,0", "B": "ss:1,0", "C": "ss:1,0"}, 1),
        "kij": ({"B": "ss:1,0"}, 0), "kji": ({"X": "ss:1,0", "B": "ss:1,0"}, 0),
    }
    for order, (fmts, want) in drops.items():
        assert primitive_counts(custard.compile(expr, fmts, order))["Crd Drop"] == want, order


def test_what_is_counted():
    counts = {"fiberlookup": 2, "repeat": 3, "repsiggen": 3, "broadcast": 7, "mul": 1,
              "add": 1, "sub": 1, "div": 1, "max": 1, "min": 1, "neg": 1, "abs": 1, "exp": 1,
              "relu": 1, "reduce": 1, "spaccumulator": 2, "crddrop": 4, "fiberwrite": 5,
              "arrayvals": 6, "arraystore": 9, "locate": 9, "intersect": 1, "union": 2}
    assert row(counts) == (2, 3, 1, 2, 10, 3, 4, 5, 6)


def test_original_custard_files():
    """The counts read the three graphs written by the original Custard too."""
    data = Path(__file__).parent / "data" / "custard"
    assert row(load(data / "vec_elemadd.gv")) == (2, 0, 0, 1, 1, 0, 0, 2, 2)
    assert row(load(data / "mat_vecmul_ij.gv")) == PAPER["SpMV"][3]
    assert row(load(data / "matmul_ikj.gv")) == PAPER["SpM*SpM (ikj)"][3]


def test_format_table_blanks_zeros():
    text = format_table([("A", (1, 0, 0, 0, 2, 0, 0, 3, 4))])
    header, line = text.splitlines()
    assert header.split() == ["Name", "Lvl", "Scan", "Repeat", "Intersect", "Union", "ALU",
                              "Reduce", "Crd", "Drop", "Lvl", "Wr", "Array"]
    assert line.split() == ["A", "1", "2", "3", "4"]


def test_report_and_script():
    text, mismatches = table1_report()
    assert mismatches == []
    assert "all rows equal the paper's Table 1" in text
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "table1.py")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    for name in PAPER:
        assert name in proc.stdout


def test_a_mismatch_is_reported(monkeypatch, capsys):
    import dataclasses

    import custard.counts as counts
    from custard.cli import main

    wrong = dataclasses.replace(counts.TABLE1[0], paper=(3, 1, 1, 0, 1, 1, 0, 2, 2))
    monkeypatch.setattr(counts, "TABLE1", (wrong, *counts.TABLE1[1:]))
    text, mismatches = table1_report()
    assert mismatches == ["SpMV: Crd Drop 1 (paper 0)"]
    assert "<< DIFFERS" in text
    assert main(["table1"]) == 1
    assert "1 row(s) differ" in capsys.readouterr().err
