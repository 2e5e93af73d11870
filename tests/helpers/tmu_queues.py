"""The TMU kernel alone on small rings (``FastPaths(tmu_burst=...)`` on or off): every token's
kind, payload and arrival, the final state (without its fast-path slots) and work memory, and
the number of kernel calls."""

from __future__ import annotations

import numpy as np

import sam.blocks.tmu as tmu
import sam.graph.registry  # noqa: F401
from sam.runtime import wires as W
from sam.runtime.paths import FastPaths

from helpers.paths import path_free


def raw_queues(cfg, tensors, ring: int, burst: bool):
    """Run the Python TMU kernel alone on rings of ``ring`` slots (full rings return to the
    caller, the burst stops there); every token's kind, payload and arrival, and the final
    state and work memory."""
    block = tmu.Tmu.of("tmu", cfg)
    s, fst, mem = block.initial_state(tensors)
    s[W.LAT] = 1
    s[W.PATHS_OFF] = FastPaths(tmu_burst=burst).off()
    w = W.allocate(2, ring)
    optr = np.array([0, 1, 2], np.int64)
    ochan = np.array([0, 1], np.int64)
    out: list[list[np.ndarray]] = [[], []]
    calls = 0
    while True:
        rc = block.kernel.py(w, s, fst, np.zeros(0, np.int64), optr, ochan, *mem.args())
        calls += 1
        for c in range(2):
            out[c].append(np.stack(W.drain(w, c)))
        if rc == W.RC_DONE:
            break
        assert rc == W.RC_BUF
    return [np.concatenate(q, axis=1) for q in out], path_free(s), mem["work"].copy(), calls
