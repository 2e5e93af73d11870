"""What the DAE timing model replays: one core's TMU run as loads and queue pushes, in the order
the TMU makes them, and the cost of each execute-program section (Ember paper Sec. 3.1, 4).

The trace is recorded from the functional TMU (``sam/dae/record.py``); the machine
(``sam/dae/simulate.py``) times it. Indices are positions in these arrays; ``-1`` is "none".
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: ``push_queue`` values
CTRL, DATA = 0, 1


@dataclass(frozen=True)
class ArrayInfo:
    """A memory array the TMU loads from: name (``T.vals``, ``T.1.crd``, ...), bytes per
    element, elements, and its first byte's address (line-aligned; arrays do not overlap)."""

    name: str
    element_bytes: int
    length: int
    base: int


@dataclass(frozen=True)
class SectionCost:
    """What one execute-program section (the callback of a control token) does, counted from the
    program text: data-queue pops, arithmetic, updates of the output (read-modify-write),
    plain stores, and loads/stores of core-side workspace memory; scalar and vector (``vlen``
    lanes) apart. Unrolled loops are counted per iteration."""

    name: str
    pops_scalar: int = 0
    pops_vector: int = 0
    alu_scalar: int = 0
    alu_vector: int = 0
    rmw_scalar: int = 0
    rmw_vector: int = 0
    stores_scalar: int = 0
    stores_vector: int = 0
    workspace_loads: int = 0
    workspace_stores: int = 0

    @property
    def pops(self) -> int:
        return self.pops_scalar + self.pops_vector


@dataclass
class AccessTrace:
    """One core's TMU run (module docstring).

    Loads (memory requests of ``mem`` streams, in the order the TMU issues them):

    * ``load_array`` (int16): the array (index into ``arrays``);
    * ``load_first`` (int64), ``load_count`` (int32): the first element and how many contiguous
      elements (a vector step's active lanes when they are contiguous; else one load per lane);
    * ``load_step`` (int64): the TMU step (a layer iteration) that issues it, counted from 0;
    * ``load_dep`` (int32): the load whose value this load's index (or its TU's bounds) is
      computed from, the last link of its dependent chain (index -> row address -> data);
    * ``load_push`` (int32): the first push made at or after the load's step: the TMU's storage
      holds the loaded value until then.

    Pushes (both queues, in the order the TMU pushes them; the ``done`` token last):

    * ``push_queue`` (int8): :data:`CTRL` or :data:`DATA`;
    * ``push_bytes`` (int32): an entry's bytes (a vector: its lanes' bytes);
    * ``push_dep`` (int32): the load whose value the entry carries or waits for;
    * ``push_section`` (int16): a control token's section in ``sections`` (``-1``: ``done``, and
      every data entry).
    """

    arrays: list[ArrayInfo]
    load_array: np.ndarray
    load_first: np.ndarray
    load_count: np.ndarray
    load_step: np.ndarray
    load_dep: np.ndarray
    load_push: np.ndarray
    push_queue: np.ndarray
    push_bytes: np.ndarray
    push_dep: np.ndarray
    push_section: np.ndarray
    sections: list[SectionCost] = field(default_factory=list)
    vlen: int = 1

    @property
    def loads(self) -> int:
        return len(self.load_array)

    @property
    def pushes(self) -> int:
        return len(self.push_queue)
