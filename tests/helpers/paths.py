"""Block state without its fast-path slots (``sam.runtime.paths``): what must not depend on
which paths a run took (tests/test_paths.py and the burst tests)."""

from __future__ import annotations

import numpy as np

from sam.runtime import wires as W


def path_free(st: np.ndarray) -> np.ndarray:
    """A copy of block state ``st`` without its fast-path slots (which paths are off, and how
    often the block entered one): what must not depend on the paths taken."""
    out = st.copy()
    out[[W.PATHS_OFF, W.PATH_RUNS]] = 0
    return out
