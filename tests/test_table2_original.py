"""Table 2 against the original Custard's own graphs (custard/reproduce/table2_original.py,
tests/data/original-custard-table2.json) and the paper artifact's key for distinct algorithms
(custard/reproduce/artifact_rules.py): no C++ needed, the record holds the original's rows."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from custard.reproduce.artifact_rules import artifact_key
from custard.reproduce.table2 import ROWS, chunk_point, logged_commands
from custard.reproduce.table2_original import (
    REASONS,
    ROW_FLAGS,
    difference_reason,
    failure,
    line_key,
    load_record,
    original_flags,
)

FLAGS = [flag for _, flag, _ in ROWS]


def test_the_records_row_numbers_are_table2s_rows() -> None:
    assert tuple(FLAGS) == ROW_FLAGS


def _distinct() -> list[str]:
    return list(dict.fromkeys(logged_commands()))


def test_the_artifacts_key_gives_the_papers_distinct_counts() -> None:
    lines = _distinct()  # equal lines have equal keys
    assert len({artifact_key(c) for c in lines}) == 3_839
    assert len({artifact_key(c, with_formats=False) for c in lines}) == 1_745
    # parentheses and spacing vanish, formats follow the tensor; a scalar result keys no format
    assert artifact_key('"a(i)=(b(i)+c(i))" -f=a:s:0 -f=b:s:0 -f=c:s:0') == artifact_key(
        '"x(j)=y(j)+z(j)" -f=x:s:0 -f=y:s:0 -f=z:s:0')
    assert artifact_key('"a(i)=b(i)" -f=a:s:0 -f=b:s:0') != artifact_key(
        '"a(i)=b(i)" -f=a:s:0 -f=b:d:0')
    assert artifact_key('"a=b(i)" -f=b:s:0') == artifact_key('"a=b(i)" -f=b:d:0')


def test_record_covers_every_distinct_line_with_provenance() -> None:
    rec = load_record()
    keys = {line_key(line) for line in _distinct()}
    parts = [set(rec["graphs"]), set(rec["graphs_without_schedule"]), set(rec["failures"])]
    assert set.union(*parts) == keys and sum(map(len, parts)) == len(keys)
    assert "6570336a" in rec["provenance"]["tool"] and rec["provenance"]["date"]
    spmv = '"y(i)=A(i,j)*x(j)" -f=y:d:0 -f=A:ds:0,1 -f=x:d:0'
    assert original_flags(spmv) == {"scan", "scan_c", "repeat", "inter", "mul", "reduce",
                                     "write"}
    assert failure(spmv) is None
    assert "range_check" in failure('"y(i)=A(i,j)*x(j,i)" -f=y:d:0 -f=A:ds:0,1 -f=x:dd:0,1')


def test_original_column_from_the_record() -> None:
    """The original Custard's graphs, counted over the lines it compiles, weighted by how often
    each was logged (All) and over the artifact's representatives (Unique)."""
    rec = load_record()
    times = Counter(logged_commands())
    reps = list({artifact_key(c): c for c in reversed(times)}.values())  # first logged
    flags = {c: original_flags(c, rec) for c in times}
    ok = [c for c in times if flags[c] is not None]
    uniq_ok = [c for c in reps if flags[c] is not None]
    counts = Counter({f: sum(times[c] for c in ok if f in flags[c]) for f in FLAGS})
    assert sum(times[c] for c in ok) == EXPECTED_ALL[0] and len(uniq_ok) == EXPECTED_UNIQUE[0]
    assert [counts[f] for f in FLAGS] == EXPECTED_ALL[1]
    assert [sum(f in flags[c] for c in uniq_ok) for f in FLAGS] == EXPECTED_UNIQUE[1]


def _compare(lines: list[str]) -> dict[str, dict[str, dict[str, list[str]]]]:
    ours = dict(zip(lines, chunk_point({"lines": lines})["results"], strict=True))
    out: dict[str, dict[str, dict[str, list[str]]]] = {}
    for line, (status, flags) in ours.items():
        orig = original_flags(line)
        if status != "compiled" or orig is None:
            continue
        for f in FLAGS:
            if (f in flags) != (f in orig):
                side = "ours only" if f in flags else "original only"
                reason = difference_reason(line, f, set(flags))
                out.setdefault(f, {}).setdefault(side, {}).setdefault(reason, []).append(
                    line_key(line))
    return out


def _recorded(keys: set[str]) -> dict[str, dict[str, dict[str, list[str]]]]:
    out: dict[str, dict[str, dict[str, list[str]]]] = {}
    for f, sides in load_record()["comparison"]["rows"].items():
        for side, reasons in sides.items():
            for reason, ks in reasons.items():
                mine = sorted(k for k in ks if k in keys)
                if mine:
                    out.setdefault(f, {}).setdefault(side, {})[reason] = mine
    return out


def _sorted(d: dict[str, dict[str, dict[str, list[str]]]]) -> dict:
    return {f: {s: {r: sorted(ks) for r, ks in rs.items()} for s, rs in sides.items()}
            for f, sides in d.items()}


def test_sample_differences_equal_the_classified_lists() -> None:
    """On a seeded sample of distinct lines: where our graph and the original's differ, row by
    row, is exactly what the record's comparison lists (so the rows not listed agree)."""
    sample = random.Random(33).sample(_distinct(), 150)
    got = _compare(sample)
    assert _sorted(got) == _recorded({line_key(line) for line in sample})
    assert all(r in REASONS for sides in got.values() for rs in sides.values() for r in rs)


@pytest.mark.parametrize("line, row, side, reason", [
    ('"A(i,j)=B(i,j)+C(i,j)" -f=A:sd:1,0 -f=B:sd:1,0 -f=C:sd:1,0', "crddrop", "ours only",
     "dropper"),
    ('"y(i)=A(i,j)*1" -f=y:d:0 -f=A:ds:0,1', "repeat", "ours only", "constant"),
    ('"y(i)=A(i,j)/x(j)" -f=y:d:0 -f=A:ds:0,1 -f=x:d:0', "inter", "ours only", "division"),
    ('"D(i,j)=A(i,k,j)*B(i,k)+C(i,j)" -f=D:dd:0,1 -f=A:ddd:0,1,2 -f=B:dd:0,1 -f=C:dd:0,1',
     "write_c", "ours only", "temporary"),
])
def test_known_differences(line: str, row: str, side: str, reason: str) -> None:
    got = _compare([line])
    assert got[row][side] == {reason: [line_key(line)]}


def test_full_corpus_differences_equal_the_classified_lists() -> None:
    """Every distinct line (slow: compiles the whole corpus with our Custard)."""
    lines = _distinct()
    assert _sorted(_compare(lines)) == _recorded({line_key(line) for line in lines})


#: measured from the record (tests/data/original-custard-table2.json): lines the original
#: compiles, and per row (table2.ROWS order) how many of them use the row's primitive
EXPECTED_ALL = (23_367, [18_646, 23_228, 19_126, 2_061, 2_623, 15_466, 2_985, 20_639, 19_514,
                        2_361, 5_445, 22_783])
EXPECTED_UNIQUE = (3_592, [2_403, 3_534, 2_683, 549, 623, 1_627, 931, 3_020, 2_689, 468, 1_029,
                           3_419])
