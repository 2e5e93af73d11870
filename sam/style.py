"""Colours and names of block families, shared by the graph pictures (:mod:`sam.graph.draw`)
and the report plots (:mod:`sam.plot`), so a family looks the same in both."""

from __future__ import annotations

#: Colour by block family (``Block.family``): a box's fill in pictures, a bar in plots.
FAMILY_COLORS = {
    "scan": "#b7e4c7",
    "repeat": "#a9def9",
    "merge": "#d0bfff",
    "compute": "#ffd6a5",
    "reduce": "#e6ccb2",
    "drop": "#ffadad",
    "write": "#74c69d",
    "array": "#fdffb6",
    "compound": "#f8c4e0",
    "tmu": "#ffb4a2",
    "convert": "#c3f0ca",
    "lanes": "#caf0f8",
    "wire": "black",
    "misc": "#e9ecef",
}
#: What each family is, for legends.
FAMILY_NAMES = {
    "scan": "level scanner", "repeat": "repeater", "merge": "intersect / union / locate",
    "compute": "ALU", "reduce": "reducer", "drop": "coordinate dropper", "write": "level writer",
    "array": "array", "compound": "compound block", "tmu": "TMU (access unit)",
    "convert": "stream converter (bitvector, split, flatten)",
    "lanes": "parallelizer / serializer (lanes)", "misc": "other",
}
