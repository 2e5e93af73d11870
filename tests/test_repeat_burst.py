"""The repeater's and the repeat-signal generator's burst paths (``sam.blocks.repeaters``:
``repeat_burst`` takes the next reference and ends a fiber inside its loop, ``signals_burst``
passes stop tokens): with bursts on and off and compiled, the same output tokens, arrival
cycles, final state and error, on random fibertrees (references ``N`` among them, references
repeated zero times, empty outer fibers), random arrival gaps on both inputs, and streams broken
by one token replaced."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sam.blocks.repeaters import Repeater, RepeatSignalGenerator
from sam.errors import SimulationError
from sam.runtime.paths import FastPaths
from sam.runtime.tokens import N
from sam.sim.harness import run_block

from helpers.paths import path_free
from helpers.streamtrees import bench, level_stream, map_level, positions, trees

#: tokens a broken stream may get in place of one of its own
NOISE = ["R", "0", "3", "S0", "S1", "S2", "N", "D"]


def _run(block, inputs, arrivals, engine: str = "reference", bursts: bool = True):
    try:
        out = run_block(block, inputs, arrivals=arrivals, engine=engine,
                        paths=FastPaths(burst=bursts))
    except SimulationError as err:
        return ("error", str(err))
    return out.tokens, out.times, path_free(out.st).tolist()


def _same_three(factory, inputs, arrivals):
    on = _run(factory(), inputs, arrivals)
    assert on == _run(factory(), inputs, arrivals, bursts=False)
    assert on == _run(factory(), inputs, arrivals, engine="fast")
    return on


@st.composite
def repeat_inputs(draw):
    """(ref stream, repsig stream, crd stream) of a random tree; maybe one token replaced."""
    d = draw(st.sampled_from([2, 3]))
    tree = draw(trees(d, max_fiber=4))
    refs = positions(tree, d)[d - 2]
    empty = draw(st.lists(st.booleans(), min_size=8, max_size=8))
    count = iter(range(10**6))
    refs = map_level(refs, d - 2,
                     lambda r, child: (N if empty[next(count) % 8] else r, child))
    crd = level_stream(tree, d - 1)
    signals = bench(RepeatSignalGenerator("gen", {"index": "i"}), {"crd": crd})["repsig"]
    streams = [level_stream(refs, d - 2).split(", "), signals.split(", ")]
    if draw(st.booleans()):  # break one stream at one token
        which = draw(st.sampled_from([0, 1]))
        at = draw(st.integers(0, len(streams[which]) - 1))
        streams[which][at] = draw(st.sampled_from(NOISE))
    return ", ".join(streams[0]), ", ".join(streams[1]), crd


def _arrivals(data, n: int) -> list[int]:
    gaps = data.draw(st.lists(st.sampled_from([0, 0, 0, 1, 4]), min_size=n, max_size=n))
    return [int(a) for a in np.cumsum(gaps)]


@settings(max_examples=60, deadline=None)
@given(repeat_inputs(), st.data())
def test_repeater_bursts_change_nothing(case, data) -> None:
    ref, sig, crd = case
    inputs = {"ref": ref, "repsig": sig}
    arrivals = {name: _arrivals(data, len(s.split(", "))) for name, s in inputs.items()}
    _same_three(lambda: Repeater("rep", {"index": "i"}), inputs, arrivals)
    inputs = {"crd": crd}
    arrivals = {"crd": _arrivals(data, len(crd.split(", ")))}
    _same_three(lambda: RepeatSignalGenerator("gen", {"index": "i"}), inputs, arrivals)


def test_bursts_take_references_and_stops() -> None:
    """Not vacuous: a stream of many fibers in one call of each kernel, all of it in bursts
    (the general path only for the done token: ``fire`` counted)."""
    from sam.runtime import kernel

    refs = ", ".join(str(r) for r in range(50)) + ", S0, D"
    sig = ", ".join("R, R, R, S0" for _ in range(49)) + ", R, R, S1, D"
    inputs = {"ref": refs, "repsig": sig}
    fired = {"n": 0}
    real = kernel.fire

    def counting(*args):
        fired["n"] += 1
        return real(*args)

    from sam.blocks import repeaters

    repeaters.fire = counting
    try:
        out = _same_three(lambda: Repeater("rep", {"index": "i"}), inputs, None)
    finally:
        repeaters.fire = real
    want = [t for r in range(49) for t in [str(r)] * 3 + ["S0"]] + ["49", "49", "S1", "D"]
    assert [str(t) for t in out[0]["ref"]] == want
    # the Python kernel with bursts fires the general path only for the done token; without
    # bursts, every one of the 200 firings
    assert fired["n"] == 1 + 200
