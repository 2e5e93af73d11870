"""Scanners and locators walk a level by its capabilities (``formats.levels``), not its class.

No shipped level uses the ``single`` positions rule yet (the fiber of parent position p is
position p alone, as in a COO singleton level), so a tiny hand-made level class exercises it:
scanners and locators over it need no change to the blocks.
"""

from __future__ import annotations

import numpy as np
import pytest

from formats import Tensor
from formats import levels as L
from formats.format import Format
from sam.blocks.locators import Locator
from sam.blocks.scanners import LevelScanner
from sam.errors import GraphError, SimulationError

from helpers.streamtrees import bench, same_on_both_engines


class SingleLevel(L.Level):
    """One stored coordinate per parent position: fiber p is position p, coordinate crd[p]."""

    letter = "q"
    name = "single"
    branchless = True
    positions = "single"
    coordinates = "stored"

    def __init__(self, size: int, crd) -> None:
        super().__init__(size)
        self.crd = np.asarray(crd, dtype=np.int64)

    @classmethod
    def build(cls, parent, crd, n_parents, size):
        return cls(size, crd), np.arange(len(crd), dtype=np.int64)

    def num_positions(self, n_parents: int) -> int:
        return n_parents

    def expand(self, parents):
        return np.arange(len(parents), dtype=np.int64), self.crd[parents], parents

    def arrays(self):
        return {"crd": self.crd}


class UnorderedSingle(SingleLevel):
    name = "single-unordered"
    ordered = False


class OffsetSingle(SingleLevel):
    """Single positions whose coordinate is the offset in the fiber (always 0)."""

    name = "single-offset"
    coordinates = "offset"

    def arrays(self):
        return {"size": self.size}


#: Rows 0, 1, 3 of a 4x5 matrix (compressed), one nonzero each, in columns 2, 0, 4.
ROWS, COLS = [0, 1, 3], [2, 0, 4]


def matrix(level_cls: type[SingleLevel] = SingleLevel) -> Tensor:
    rows = L.CompressedLevel(4, np.array([0, 3]), np.array(ROWS))
    return Tensor((4, 5), Format(("s", "s"), (0, 1)), [rows, level_cls(5, COLS)],
                  np.array([1.0, 2.0, 3.0]))


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    """The DOT ``format`` names of the hand-made levels (resolved by ``level_named``)."""
    for cls in (SingleLevel, UnorderedSingle, OffsetSingle):
        monkeypatch.setitem(L.LEVEL_NAMES, cls.name, cls)


def scanner(mode: int, fmt: str, **attrs) -> LevelScanner:
    return LevelScanner(f"s{mode}", {"tensor": "B", "mode": str(mode), "format": fmt, **attrs})


def test_scanner_single_positions_stored_coordinates():
    t = {"B": matrix()}
    i = bench(scanner(0, "compressed", root="true"), {}, t)
    assert i == {"crd": "0, 1, 3, S0, D", "ref": "0, 1, 2, S0, D"}
    j = bench(scanner(1, "single"), {"ref": i["ref"]}, t)
    assert j == {"crd": "2, S0, 0, S0, 4, S1, D", "ref": "0, S0, 1, S0, 2, S1, D"}
    # An empty reference is an empty fiber, as for every level.
    assert bench(scanner(1, "single"), {"ref": "1, N, S0, D"}, t) == {
        "crd": "0, S0, S1, D", "ref": "1, S0, S1, D"}
    same_on_both_engines(lambda: scanner(1, "single"), {"ref": "0, 1, S0, 2, S1, D"}, t)


def test_scanner_single_positions_offset_coordinates():
    t = {"B": matrix(OffsetSingle)}
    j = bench(scanner(1, "single-offset"), {"ref": "0, 2, S0, D"}, t)
    assert j == {"crd": "0, S0, 0, S1, D", "ref": "0, S0, 2, S1, D"}
    same_on_both_engines(lambda: scanner(1, "single-offset"), {"ref": "0, 2, S0, D"}, t)


def test_scanner_single_reference_out_of_range():
    with pytest.raises(SimulationError, match="reference out of range"):
        bench(scanner(1, "single"), {"ref": "3, S0, D"}, {"B": matrix()})
    with pytest.raises(SimulationError, match="reference out of range"):
        bench(scanner(1, "single"), {"ref": "3, S0, D"}, {"B": matrix()}, engine="fast")


def test_full_format_over_any_level_is_a_counter():
    """``format=dense`` names a full level class: the scanner counts over the level's size."""
    out = bench(scanner(1, "dense"), {"ref": "0, S0, D"}, {"B": matrix()})
    assert out == {"crd": "0, 1, 2, 3, 4, S1, D", "ref": "0, 1, 2, 3, 4, S1, D"}


def test_scanning_as_another_format_is_refused():
    with pytest.raises(GraphError, match="scans mode 1 of B as compressed, but that level is "
                                         "stored single; bind B in the graph's format"):
        bench(scanner(1, "compressed"), {"ref": "0, S0, D"}, {"B": matrix()})
    with pytest.raises(GraphError, match=r"node s1 \(fiberlookup\): unknown level format "
                                         "'nosuchformat'"):
        bench(scanner(1, "nosuchformat"), {"ref": "0, S0, D"}, {"B": matrix()})
    # A bitvector level emits bv streams: fiberlookup has no rule for it (bvlookup reads it).
    bits = Tensor.from_dense(np.eye(3), "db4")
    with pytest.raises(GraphError, match="no scanner rule walks bitvector levels"):
        bench(scanner(1, "bitvector"), {"ref": "0, S0, D"}, {"B": bits})


@pytest.mark.parametrize("level_cls", [SingleLevel, UnorderedSingle])
def test_locator_searches_a_single_level(level_cls):
    """Locate column coordinates in the fibers (one coordinate each) of rows 0, 1, 3."""
    t = {"B": matrix(level_cls)}
    loc = Locator("l", {"tensor": "B", "mode": "1", "index": "j"})
    out = bench(loc, {"crd": "2, 3, S0, 0, 4, S0, 4, S1, D", "ref:parent": "0, 0, S0, 1, 1, S0, "
                      "2, S1, D"}, t)
    assert out == {"crd": "2, S0, 0, S0, 4, S1, D", "ref:out": "N, S0, N, S0, N, S1, D",
                   "ref:out-B": "0, S0, 1, S0, 2, S1, D"}
    with pytest.raises(SimulationError, match="parent reference out of range"):
        bench(loc, {"crd": "1, S0, D", "ref:parent": "3, S0, D"}, t, engine="fast")


def test_locator_computes_positions_in_offset_levels():
    t = {"B": matrix(OffsetSingle)}
    loc = Locator("l", {"tensor": "B", "mode": "1", "index": "j"})
    out = bench(loc, {"crd": "0, 1, S0, D", "ref:parent": "2, 2, S0, D"}, t)
    assert out == {"crd": "0, S0, D", "ref:out": "N, S0, D", "ref:out-B": "2, S0, D"}


def test_blocks_do_not_name_level_classes():
    """The block modules ask levels for capabilities; they never name a level class."""
    from pathlib import Path

    import sam.blocks

    root = Path(sam.blocks.__file__).parent
    for name in ("scanners.py", "locators.py", "writers.py"):
        text = (root / name).read_text()
        for cls in ("DenseLevel", "CompressedLevel", "LEVEL_TYPES", "isinstance(level"):
            assert cls not in text, (name, cls)
