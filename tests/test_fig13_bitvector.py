"""Figure 13's bitvector and splitting series (SAM paper Sec. 6.3):
``custard.reproduce.fig13_bitvector``. Each series computes numpy's product (checked inside),
both engines give the same cycles, the hand-built graphs survive DOT, and the paper's claims
about these series hold on the original's data."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from custard.api import compile as compile_expr
from custard.reproduce import fig13_bitvector as F
from custard.reproduce.common import ReproduceError
from formats.synthetic import (
    ORIGINAL_SWEEP,
    original_blocks,
    original_runs,
    original_urandom,
)
from formats.tensor import Tensor
from sam.graph.dot import dumps, loads
from sam.sim.engine import simulate


def _pair(size: int, density: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    b = np.where(rng.random(size) < density, rng.integers(1, 9, size), 0).astype(float)
    c = np.where(rng.random(size) < density, rng.integers(1, 9, size), 0).astype(float)
    return b, c


@pytest.mark.parametrize("size, density, seed", [(300, 0.3, 1), (130, 0.9, 2), (64, 0.0, 3),
                                                 (1, 1.0, 4), (200, 0.02, 5)])
def test_series_agree_on_both_engines(size: int, density: float, seed: int) -> None:
    b, c = _pair(size, density, seed)
    for name, fn in [*F.SERIES.items(), *F.REFORMAT.items()]:
        ref = fn(b, c, engine="reference")
        fast = fn(Tensor.from_dense(b, "d"), Tensor.from_dense(c, "s"), engine="fast")
        assert ref == fast > 0, name
    for name, fn in F.SERIES.items():  # --timing original (docs/timing-model.md, rule 12)
        assert fn(b, c, engine="reference", timing="original") == \
            fn(b, c, engine="fast", timing="original") > 0, name


def test_graphs_survive_dot_and_compute_the_product() -> None:
    b, c = _pair(200, 0.3, 7)
    bt, ct = F.as_vector(b, "b"), F.as_vector(c, "c")
    g = loads(dumps(F.bv_graph(200)))
    assert {"crdtobv", "bvintersect", "bvwrite"} <= set(g.count())
    res = simulate(g, {"b": bt, "c": ct}, engine="reference")
    np.testing.assert_array_equal(res.outputs["x"].to_dense(), b * c)
    assert res.outputs["x"].format == F.bv_graph(200).formats["x"]
    ref = loads(dumps(F.reformat_graph(200, bitvector=True)))
    trees = simulate(ref, {"b": bt, "c": ct}, engine="reference").outputs
    np.testing.assert_array_equal(trees["bs"].to_dense().reshape(-1)[:200], b)
    g = loads(dumps(F.bittree_graph(200)))
    assert {"bvlookup", "bvintersect", "bvdrop", "bvwrite"} <= set(g.count())
    out = simulate(g, {"bs": trees["bs"], "cs": trees["cs"]}, engine="reference").outputs["x"]
    np.testing.assert_array_equal(out.to_dense().reshape(-1)[:200], b * c)
    assert out.format == F.bittree_graph(200).formats["x"]  # a bit-tree, as the original's


def test_bad_vectors_refused() -> None:
    with pytest.raises(ReproduceError, match="vectors"):
        F.bv(np.zeros((2, 2)), np.zeros(4))
    with pytest.raises(ReproduceError, match="differ in size"):
        F.split(np.ones(5), np.ones(6), engine="reference")


# ----------------------------------------------------------------------------- the claims
_CRD = compile_expr("x(i)=b(i)*c(i)", {"x": "s", "b": "s", "c": "s"}, "i")


@cache
def measured(kind: str, x: float) -> dict[str, int]:
    if kind == "urandom":
        b, c = original_urandom(x, 0), original_urandom(x, 1)
    elif kind == "runs":
        b, c = original_runs(int(x))
    else:
        b, c = original_blocks(int(x))
    row = {"crd": simulate(_CRD, {"b": b.with_format("s"), "c": c.with_format("s")},
                           engine="fast").cycles}
    row.update({name: fn(b, c) for name, fn in F.SERIES.items()})
    return row


RUNS = [1, 2, 5, 10, 20, 30, 40, 50, 75, 100, 200, 300, 400]


def test_bitvector_beats_crd_on_moderate_sparsity_only() -> None:
    for s in (0.6, 0.8, 0.9, 0.95, 0.975):
        row = measured("urandom", s)
        assert row["bv"] < row["crd"], (s, row)
    for s in (0.9875, 0.99375):
        row = measured("urandom", s)
        assert row["bv"] > row["crd"], (s, row)


def test_bittree_fastest_at_every_sparsity() -> None:
    for s in ORIGINAL_SWEEP:
        row = measured("urandom", s)
        assert row["bittree"] < min(row["crd"], row["bv"], row["split"]), (s, row)


def test_runs() -> None:
    bv = [measured("runs", r)["bv"] for r in RUNS if r >= 10]
    assert max(bv) <= 1.15 * min(bv)
    for r in RUNS:
        row = measured("runs", r)
        assert (row["split"] < row["crd"]) == (r >= 75), (r, row)
    assert measured("runs", 50)["split"] >= 4 * measured("runs", 400)["split"]


def test_blocks() -> None:
    bv = [measured("blocks", r)["bv"] for r in RUNS]
    assert max(bv) <= 1.15 * min(bv)
    for r in RUNS:
        if r >= 75:
            row = measured("blocks", r)
            assert row["split"] < row["crd"], (r, row)


def test_csv_columns_report_reformatting_and_conversion() -> None:
    """``columns``: reformat_cycles for the offline series (split, bittree), conversion_cycles
    for the bitvector ones; bv's conversion run alone fits inside its cycles (it is part of
    them), the bit-tree's is its build (excluded); both engines agree."""
    b, c = _pair(300, 0.3, 11)
    cols = {s: F.columns(s, b, c, engine="fast") for s in F.SERIES}
    assert cols == {s: F.columns(s, b, c, engine="reference") for s in F.SERIES}
    assert cols["split"]["reformat_cycles"] == F.split_reformat(b, c) > 0
    assert cols["split"]["conversion_cycles"] is None
    assert cols["bv"]["reformat_cycles"] is None
    assert 0 < cols["bv"]["conversion_cycles"] <= F.bv(b, c)
    assert cols["bittree"]["conversion_cycles"] == cols["bittree"]["reformat_cycles"] == \
        F.bittree_reformat(b, c)
    for s, fn in F.SERIES.items():
        assert cols[s]["original_timing_cycles"] == fn(b, c, timing="original") > 0


def test_bittree_claim_shows_the_build() -> None:
    """The claim is judged on the plotted cycles (build excluded, as the paper's footnote 1 and
    the original's plotted cycles have it) and shows the totals with the build added."""
    xs = {"urandom": [0.2], "runs": [], "blocks": []}
    cyc = {("urandom", "bittree", 0.2): 10, ("urandom", "bv", 0.2): 20,
           ("urandom", "crd", 0.2): 30}
    rows = [{"data": "urandom", "series": "bittree", "x": 0.2, "conversion_cycles": 15}]
    claim = next(c for c in F.claims(cyc, xs, rows) if "bit-tree" in c.text)
    assert claim.verdict == "PASS"
    assert "fastest at 0 of 1 sparsities (0.2: 25)" in claim.measured
