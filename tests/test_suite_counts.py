"""Every ``dot_graphs/`` graph gives the tokens and cycles recorded in
``tests/data/suite_counts.json`` (per block: tokens in/out, busy, idle, stalled; per stream:
tokens), unbounded and with FIFOs of depth 2. The record pins the timing model across
refactorings; ``scripts/record_counts.py`` rewrites it when a model change is intended."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location(
    "record_counts", ROOT / "scripts" / "record_counts.py")
record_counts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(record_counts)
RECORD = json.loads(record_counts.RECORD.read_text())


def test_record_covers_the_suite():
    assert sorted(RECORD) == sorted(p.stem for p in (ROOT / "dot_graphs").glob("*.gv"))


@pytest.mark.parametrize("name", sorted(RECORD))
def test_counts_equal_the_record(name):
    path = ROOT / "dot_graphs" / f"{name}.gv"
    for run, want in zip(record_counts.RUNS, RECORD[name], strict=True):
        got = record_counts.measure(path, run)
        assert got["cycles"] == want["cycles"], run
        assert got["tokens"] == want["tokens"], run
        assert got["blocks"] == want["blocks"], run
        assert got["streams"] == want["streams"], run
