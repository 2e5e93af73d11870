"""Repeater and repeat-signal generator (SAM paper Def. 3.4, Sec. 3.5, Figure 6):
``sam.blocks.repeaters``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats import Tensor
from sam.blocks.arrays import ArrayLoad
from sam.blocks.repeaters import Repeater, RepeatSignalGenerator
from sam.blocks.scanners import LevelScanner
from sam.errors import SimulationError
from sam.runtime.tokens import N

from helpers.streamtrees import (
    bench,
    level_stream,
    map_level,
    positions,
    same_on_both_engines,
    trees,
)

#: Figure 6 / Sec. 4.3: vector b has nonzeros at coordinates 0, 2, 6, 8, 9.
B_DENSE = np.zeros(10)
B_DENSE[[0, 2, 6, 8, 9]] = [1.0, 2.0, 3.0, 4.0, 5.0]


def gen():
    return RepeatSignalGenerator("gen", {"index": "i"})


def rep(**attrs):
    return Repeater("rep", {"index": "i", **attrs})


def repeat(ref: str, crd: str) -> str:
    """Drive a repeater with the repeat signals made from ``crd``."""
    signals = bench(gen(), {"crd": crd})["repsig"]
    return bench(rep(), {"ref": ref, "repsig": signals})["ref"]


# --------------------------------------------------------------------------- signal generator
def test_signal_generator_ports():
    assert [p.name for p in gen().inputs()] == ["crd"]
    assert [p.name for p in gen().outputs()] == ["repsig"]


def test_signal_generator_figure6():
    out = bench(gen(), {"crd": "0, 2, 6, 8, 9, S0, D"})
    assert out == {"repsig": "R, R, R, R, R, S0, D"}


def test_signal_generator_keeps_stops():
    out = bench(gen(), {"crd": "1, S0, S0, 0, 2, S1, S2, D"})
    assert out == {"repsig": "R, S0, S0, R, R, S1, S2, D"}
    assert bench(gen(), {"crd": "S0, D"}) == {"repsig": "S0, D"}
    assert bench(gen(), {"crd": "D"}) == {"repsig": "D"}


def test_signal_generator_rejects_empty_token():
    with pytest.raises(SimulationError, match="empty token"):
        bench(gen(), {"crd": "0, N, S0, D"})


# --------------------------------------------------------------------------- repeater
def test_repeater_ports():
    assert [p.name for p in rep().inputs()] == ["ref", "repsig"]
    assert [p.name for p in rep().outputs()] == ["ref"]


def test_figure6_repeat_scalar_over_vector():
    """Figure 6: x_i = s * b_i. The scalar's root reference is repeated once per coordinate of
    b; loading through it gives s at every b coordinate."""
    tensors = {"b": Tensor.from_dense(B_DENSE, "s"), "s": Tensor.scalar(3.0)}
    b = bench(LevelScanner("b_i", {"tensor": "b", "mode": "0", "root": "true"}), {}, tensors)
    assert b["crd"] == "0, 2, 6, 8, 9, S0, D"
    assert b["ref"] == "0, 1, 2, 3, 4, S0, D"
    signals = bench(gen(), {"crd": b["crd"]})["repsig"]
    out = bench(rep(root="true"), {"repsig": signals})  # the root reference 0, D by default
    assert out == {"ref": "0, 0, 0, 0, 0, S0, D"}
    assert bench(rep(), {"ref": "0, D", "repsig": signals}) == out
    vals = bench(ArrayLoad("s_vals", {"tensor": "s"}), {"ref": out["ref"]}, tensors)
    assert vals == {"val": "3, 3, 3, 3, 3, S0, D"}


def test_figure4_broadcast_root_over_rows():
    """Figure 4: C's root reference repeated over B's i coordinates (Figure 1 matrix)."""
    assert repeat("0, D", "0, 1, 3, S0, D") == "0, 0, 0, S0, D"


def test_repeat_each_reference_over_its_fiber():
    """B's row references (Figure 1: rows 0, 1, 3 at positions 0, 1, 2) repeated over the j
    coordinates of each row."""
    out = repeat("0, 1, 2, S0, D", "1, S0, 0, 2, S0, 1, 3, S1, D")
    assert out == "0, S0, 1, 1, S0, 2, 2, S1, D"


def test_reference_repeated_zero_times():
    """An empty fiber (no R) consumes its reference and only passes the stop."""
    assert repeat("0, 1, 2, S0, D", "7, 8, S0, S0, 9, S1, D") == "0, 0, S0, S0, 2, S1, D"
    assert repeat("0, 1, 2, S0, D", "7, 8, S0, 9, S0, S1, D") == "0, 0, S0, 1, S0, S1, D"
    assert repeat("0, D", "S0, D") == "S0, D"


def test_zero_repeats_before_outer_stop():
    """A last reference of an outer fiber repeated zero times: its outer stop is dropped with
    it (the signal's S(n) stands for both)."""
    out = repeat("0, 1, S0, 2, S1, D", "5, S0, S1, 6, S2, D")
    assert out == "0, S0, S1, 2, S2, D"


def test_multi_level_stops():
    out = repeat("0, 1, S0, 2, S1, D", "3, S0, 4, S1, 5, 6, S2, D")
    assert out == "0, S0, 1, S1, 2, 2, S2, D"


def test_empty_outer_fibers():
    """An empty outer fiber: the reference stream's S(n-1) matches the signal's S(n)."""
    out = repeat("0, 1, S0, S0, 2, S1, D", "3, S0, 4, S1, S1, 5, 6, S2, D")
    assert out == "0, S0, 1, S1, S1, 2, 2, S2, D"
    assert repeat("S0, D", "S1, D") == "S1, D"


def test_empty_reference_is_repeated():
    assert repeat("N, 1, S0, D", "3, 4, S0, 5, S1, D") == "N, N, S0, 1, S1, D"


def test_done_only():
    assert repeat("D", "D") == "D"


# --------------------------------------------------------------------------- malformed input
@pytest.mark.parametrize(
    "ref, signals, message",
    [
        ("D", "R, S0, D", "no reference left"),
        ("0, D", "R, S0, R, S0, D", "no reference left"),
        ("0, 1, S0, D", "R, S0, R, S0, R, S1, D", "no reference left"),
        ("0, D", "R, S1, D", "stop tokens do not match"),
        ("0, S1, D", "R, S1, D", "stop tokens do not match"),
        ("0, S0, D", "R, S0, D", "end at different points"),
        ("0, 1, S0, D", "R, S0, D", "end at different points"),
        ("0, S0, D", "S0, D", "end at different points"),
        ("0, D", "N, D", "malformed repeat-signal"),
    ],
)
def test_malformed(ref, signals, message):
    with pytest.raises(SimulationError, match=message):
        bench(rep(), {"ref": ref, "repsig": signals})


# --------------------------------------------------------------------------- properties
@settings(max_examples=50, deadline=None)
@given(st.sampled_from([2, 3]).flatmap(lambda d: st.tuples(st.just(d), trees(d))),
       st.randoms(use_true_random=False))
def test_repeats_parent_reference_over_each_fiber(depth_tree, rnd):
    """For any fibertree: streaming level d-2 as references (some of them N) and level d-1 as
    repeat signals gives each reference once per coordinate of its fiber."""
    d, tree = depth_tree
    refs = positions(tree, d)[d - 2]
    refs = map_level(refs, d - 2, lambda r, child: (N if rnd.random() < 0.2 else r, child))
    expected = map_level(refs, d - 2, lambda r, child: (r, [(r, x) for _, x in child]))
    assert repeat(level_stream(refs, d - 2), level_stream(tree, d - 1)) == level_stream(
        expected, d - 1)


def test_fast_engine_agrees():
    same_on_both_engines(gen, {"crd": "0, 2, S0, S1, 5, S2, D"})
    cases = [
        ("0, 1, 2, S0, D", "R, R, S0, S0, R, S1, D"),
        ("0, 1, S0, 2, S1, D", "R, S0, S1, R, S2, D"),
        ("0, 1, S0, S0, 2, S1, D", "R, S0, R, S1, S1, R, R, S2, D"),
    ]
    for ref, sig in cases:
        same_on_both_engines(rep, {"ref": ref, "repsig": sig})
    with pytest.raises(SimulationError):
        bench(rep(), {"ref": "0, D", "repsig": "R, S1, D"}, engine="fast")
