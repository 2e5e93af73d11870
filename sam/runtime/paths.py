"""Fast paths, and the simulation option that turns each off.

A fast path computes what the general, token-by-token path computes, faster: the same tokens,
arrival cycles, state and statistics (each has a test comparing the two). A simulation turns
paths off with :class:`FastPaths` (``simulate(..., paths=FastPaths(burst=False))``), to compare
them or to measure one. The choice reaches the kernels as run-time data, a bit per path in the
block's state slot ``st[PATHS_OFF]`` (0: every path on), so it holds in the Python and the
compiled kernels alike and may change between runs: numba would freeze a module-level switch
into a kernel when it compiles it.
"""

from __future__ import annotations

from dataclasses import dataclass

from sam.runtime.jit import jitable
from sam.runtime.wires import PATH_RUNS, PATHS_OFF

#: Bits of ``st[PATHS_OFF]``, one per fast path.
BURST = 1  # runs of tokens in one loop (sam.runtime.burst)
SKIP_LOOP = 2  # coordinate skipping's cycle in one compiled loop (sam.blocks.skiploop)
TMU_BURST = 4  # the TMU's innermost layer in chunks (sam.blocks.tmu.burst_inner)
EXECUTE_FAST = 8  # the execute block's scalar loop (sam.blocks.execute.scalar_run)


@dataclass(frozen=True)
class FastPaths:
    """Which fast paths a simulation may take (all by default)."""

    burst: bool = True
    skip_loop: bool = True
    tmu_burst: bool = True
    execute_fast: bool = True

    def off(self) -> int:
        """The bits of the paths turned off (the value of ``st[PATHS_OFF]``)."""
        return ((0 if self.burst else BURST) | (0 if self.skip_loop else SKIP_LOOP)
                | (0 if self.tmu_burst else TMU_BURST)
                | (0 if self.execute_fast else EXECUTE_FAST))


#: Every fast path on.
ALL = FastPaths()


@jitable
def is_on(st, path):
    """Whether the simulation left fast path ``path`` (a bit above) on for this block."""
    return (st[PATHS_OFF] & path) == 0


@jitable
def enter(st, path):
    """Whether a block may take fast path ``path`` (:func:`is_on`); counts each entry in
    ``st[PATH_RUNS]``, a diagnostic no statistic reports (``tests/test_paths.py``)."""
    if not is_on(st, path):
        return False
    st[PATH_RUNS] += 1
    return True
