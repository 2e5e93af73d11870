"""DOT node type -> block class. A new primitive is one class plus one line here."""

from __future__ import annotations

from sam.blocks.aligners import FiberAligner
from sam.blocks.alus import ALU_TYPES
from sam.blocks.arrays import ArrayLoad, ArrayStore
from sam.blocks.base import BLOCK_TYPES, make_block
from sam.blocks.bitvectors import (
    BitvectorChunker,
    BitvectorConverter,
    BitvectorDropper,
    BitvectorIntersecter,
    BitvectorScanner,
    BitvectorToCrd,
    BitvectorUnioner,
    BitvectorWriter,
)
from sam.blocks.broadcast import Broadcast
from sam.blocks.droppers import CoordinateDropper
from sam.blocks.execute import Execute
from sam.blocks.lanes import LaneReducer, Parallelizer, Serializer
from sam.blocks.locators import Locator
from sam.blocks.merges import Intersecter, Unioner
from sam.blocks.reducers import Reducer, SparseAccumulator
from sam.blocks.repeaters import Repeater, RepeatSignalGenerator
from sam.blocks.retype import Retype
from sam.blocks.scanners import LevelScanner
from sam.blocks.splits import ChunkSelector, Flatten, Split, StopFlattener
from sam.blocks.streamscan import StreamScanner
from sam.blocks.tmu import Tmu
from sam.blocks.writers import LevelWriter
from sam.graph.compound import ScanLoad
from sam.graph.original import CoordinateRepeater, CrdHold, VectorReducer

BLOCK_TYPES.update({
    "fiberlookup": LevelScanner,
    "fiberwrite": LevelWriter,
    "repsiggen": RepeatSignalGenerator,
    "repeat": Repeater,
    "intersect": Intersecter,
    "union": Unioner,
    "locate": Locator,
    "arrayvals": ArrayLoad,
    "arraystore": ArrayStore,
    "reduce": Reducer,
    "spaccumulator": SparseAccumulator,
    "crddrop": CoordinateDropper,
    "broadcast": Broadcast,
    "scanload": ScanLoad,
    "crdrepeat": CoordinateRepeater,
    "crdhold": CrdHold,
    "vectorreducer": VectorReducer,
    "tmu": Tmu,
    "execute": Execute,
    "flattenstops": StopFlattener,
    **{cls.dot_type: cls for cls in (
        BitvectorScanner, BitvectorConverter, BitvectorChunker, BitvectorIntersecter,
        BitvectorUnioner, BitvectorToCrd, BitvectorWriter, BitvectorDropper, Split, Flatten,
        ChunkSelector, Parallelizer, Serializer, LaneReducer, Retype, FiberAligner,
        StreamScanner)},
    **ALU_TYPES,
})

__all__ = ["BLOCK_TYPES", "make_block"]
