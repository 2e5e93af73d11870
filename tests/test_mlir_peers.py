"""The peer suite: the MLIR sparsifier's own integration tests (tests/data/mlir-sparsifier)
run by the host interpreter with their kernels on SAM, their output checked against their own
CHECK lines (filecheck).

* every file ``expected.tsv`` lists as passing still passes (one test per file, so a
  regression names it; a handful also run in the fast tier);
* at least 80% of the files classified ``yes`` (expressible on SAM) pass;
* every ``no`` file runs or stops with a one-line MlirError/ToolkitError, never another
  exception.

``scripts/mlir_peers.py`` rewrites expected.tsv and prints the table for docs/mlir.md.
"""

from __future__ import annotations

import functools

import pytest

from helpers.mlir_peers import CPU, Outcome, classification, expected, run_file

ENTRIES = {e.file: e for e in classification()}
EXPECTED = expected()
PASSING = sorted(f for f, (status, _) in EXPECTED.items() if status == "pass" and f in ENTRIES)
#: a small fast subset (a kernel each, several print formats)
FAST = [f for f in ("sparse_matvec.mlir", "sparse_print.mlir", "sparse_conversion.mlir",
                    "sparse_matmul.mlir", "sparse_out_simple.mlir", "sparse_abs.mlir")
        if f in PASSING][:5]


@functools.cache
def outcome(name: str) -> Outcome:
    return run_file(ENTRIES[name])


def test_the_suite_is_there() -> None:
    assert CPU.is_dir() and ENTRIES, "tests/data/mlir-sparsifier is missing its classification"
    assert PASSING, "expected.tsv lists no passing file (run scripts/mlir_peers.py)"
    missing = [f for f in ENTRIES if not (CPU / f).is_file()]
    assert not missing, f"classified but missing: {missing}"


def _check(name: str) -> None:
    o = outcome(name)
    assert o.status == "pass", f"{name}: {o.reason}\n--- output ---\n{o.output}"


@pytest.mark.parametrize("name", FAST)
def test_fast_subset_passes(name: str) -> None:
    _check(name)


@pytest.mark.parametrize("name", [f for f in PASSING if f not in FAST])
def test_listed_file_still_passes(name: str) -> None:
    _check(name)


def test_most_expressible_files_pass() -> None:
    yes = [f for f, e in ENTRIES.items() if e.verdict == "yes"]
    passing = [f for f in yes if outcome(f).status == "pass"]
    assert len(passing) >= 0.8 * len(yes), (
        f"{len(passing)} of {len(yes)} expressible files pass; failing: "
        + "; ".join(f"{f}: {outcome(f).reason}" for f in yes if f not in passing))


@pytest.mark.parametrize("name", sorted(f for f, e in ENTRIES.items() if e.verdict != "yes"))
def test_other_files_run_or_fail_in_one_line(name: str) -> None:
    o = outcome(name)
    assert o.error_kind != "crash", f"{name}: {o.reason}"
    if o.status == "fail" and o.error_kind:
        assert "\n" not in o.reason
