"""The DLRM inputs of the Ember paper's evaluation (custard/ember/workloads.py): Table 3's
models and the L0/L1/L2 locality inputs, their reuse-distance CDFs against the targets."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custard.ember.errors import EmberError
from custard.ember.workloads import (
    FAR,
    LOCALITIES,
    NEAR,
    RmConfig,
    locality,
    lookup_trace,
    reuse_cdf,
    reuse_distances,
    rm_config,
    sls_inputs,
)

#: how far a generated trace's CDF at NEAR and FAR may sit from the targets: a 4,096-lookup
#: trace cannot reuse deeper than the rows it has used, which moves some mass (measured: at
#: most 0.03 below the target on Table 3's traces, at most 0.046 over 120 random seeds)
TOLERANCE = 0.055


def test_table_3_models() -> None:
    assert rm_config("RM1") == RmConfig("RM1", 64, 16384, 32, 2, 64)
    assert rm_config("RM2") == RmConfig("RM2", 32, 16384, 64, 2, 128)
    assert rm_config("RM3") == RmConfig("RM3", 16, 16384, 128, 2, 256)
    # same lookups per table in every model: segments x lookups per segment = 4,096
    assert {c.segments * c.lookups for c in map(rm_config, ("RM1", "RM2", "RM3"))} == {4096}


def test_unknown_names_are_one_line_errors() -> None:
    with pytest.raises(EmberError, match="unknown DLRM model 'RM4'"):
        rm_config("RM4")
    with pytest.raises(EmberError, match="unknown locality 'L3'"):
        sls_inputs(rm_config("RM1"), "L3", 0)


def test_reuse_distance_counts_the_other_rows_used_in_between() -> None:
    assert reuse_distances(np.array([1, 2, 1, 3, 2, 2, 4, 1])).tolist() == \
        [-1, -1, 1, -1, 2, 0, -1, 3]
    # first uses never count: CDF over all 8 lookups
    assert reuse_cdf(np.array([1, 2, 1, 3, 2, 2, 4, 1]), [0, 1, 3]) == [1 / 8, 2 / 8, 4 / 8]


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_locality_levels_match_their_cdf_targets_and_are_ordered(seed: int) -> None:
    cfg = rm_config("RM2")
    cdf = {name: reuse_cdf(sls_inputs(cfg, name, seed)["idxs"], [10, 100, NEAR, FAR])
           for name in LOCALITIES}
    for k in range(4):
        assert cdf["L0"][k] < cdf["L1"][k] < cdf["L2"][k], cdf
    for name, (_, _, near, far) in cdf.items():
        loc = locality(name)
        assert abs(near - loc.near) <= TOLERANCE, (name, near)
        assert abs(far - loc.far) <= TOLERANCE, (name, far)


@pytest.mark.parametrize("rm", ["RM1", "RM3"])
def test_sls_inputs_shapes_ranges_and_determinism(rm: str) -> None:
    cfg = rm_config(rm)
    ins = sls_inputs(cfg, "L1", 5, core=3, table=1)
    assert set(ins) == {"ptrs", "idxs", "table"}
    assert ins["ptrs"].tolist() == [s * cfg.lookups for s in range(cfg.segments + 1)]
    assert ins["idxs"].shape == (cfg.segments * cfg.lookups,)
    assert ins["idxs"].dtype == np.int64
    assert 0 <= ins["idxs"].min() and ins["idxs"].max() < cfg.rows
    assert ins["table"].shape == (cfg.rows, cfg.emb)
    assert -1 <= ins["table"].min() and ins["table"].max() < 1
    again = sls_inputs(cfg, "L1", 5, core=3, table=1)
    assert all(np.array_equal(ins[k], again[k]) for k in ins)
    others = [sls_inputs(cfg, "L1", 5, core=2, table=1), sls_inputs(cfg, "L1", 5, core=3,
                                                                     table=0),
              sls_inputs(cfg, "L1", 6, core=3, table=1)]
    for o in others:
        assert not np.array_equal(o["idxs"], ins["idxs"])
        assert not np.array_equal(o["table"], ins["table"])


def test_a_trace_longer_than_the_table_reuses_its_least_recently_used_rows() -> None:
    rng = np.random.default_rng(0)
    idxs = lookup_trace(5, 200, locality("L0"), rng)
    assert sorted(set(idxs.tolist())) == [0, 1, 2, 3, 4]
    rd = reuse_distances(idxs)
    assert rd.max() <= 4 and (rd == -1).sum() == 5
