"""``sam-sim reproduce ragged``: synthetic length distributions with CoRa's statistics; ragged
beats padded dense in cycles and words on every distribution; CSR-like needs more memory."""

from __future__ import annotations

import csv

import pytest

from custard.reproduce import reproduce
from custard.reproduce.ragged import DATASETS, lengths


@pytest.mark.parametrize("name", list(DATASETS))
def test_lengths_have_the_datasets_statistics(name):
    lo, mean, hi = DATASETS[name]
    for batch in (16, 64):
        lens = lengths(name, batch)
        assert min(lens) == lo and max(lens) == hi
        assert abs(sum(lens) / batch - mean) <= 0.5 / batch + 1e-9


def test_reproduce_ragged_table(tmp_path):
    [done] = reproduce("ragged", tmp_path, quick=True, engine="fast", scheduler="sync",
                       use_cache=False, progress=False, log=False)
    assert done.failed == 0 and done.passed >= 17
    rows = list(csv.DictReader((tmp_path / "ragged.csv").open()))
    by = {(r["series"], r["x"]): r for r in rows}
    for d in DATASETS:
        rag, dense, csr = (by[(s, d)] for s in ("ragged", "padded dense", "compressed"))
        assert int(rag["cycles"]) < int(dense["cycles"])
        assert int(rag["words"]) < int(dense["words"])
        assert int(csr["words"]) > int(rag["words"])
        assert int(rag["aux_words"]) < int(csr["aux_words"])
    assert (tmp_path / "ragged.png").stat().st_size > 10_000
    assert "PASS" in (tmp_path / "ragged-claims.md").read_text()
