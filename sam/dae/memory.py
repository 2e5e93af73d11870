"""The memory side of the DAE machine: one line request of a TMU through its L2, the shared LLC
(over the NoC) and the shared HBM channels (Ember paper Figure 5).

* **L2** (private, per core): a hit finishes ``L2 latency`` after the request (or when the line
  arrives, if it is still on its way: a request to a line in flight waits for it, like a merged
  miss).
* **LLC** (shared; slices interleaved by line, ``slice = line % slices``): a request that misses
  the L2 crosses the mesh to the line's slice and back (``2 x hops x (router + link)``) and pays
  the LLC latency. The paper's LLC is *mostly exclusive*; it is modelled as non-inclusive: a
  line from the HBM fills both L2 and LLC, an L2 eviction does not write back (the TMU only
  reads). With 8 MiB of LLC against 512 KiB of L2 the capacity difference is small.
* **HBM**: ``channels`` channels, lines interleaved (``channel = line % channels``), each with
  ``bandwidth / channels``. A line request reaching channel ``c`` at ``t`` finishes at
  ``max(t + latency, free[c]) + line / bandwidth``: the pipelined-requests rule of the tiling
  memory model (:func:`sam.memory_timeline.pipelined_finish`). The NoC round trip is counted
  before the channel.

Without caches (the ablation's access-only steps) every request goes straight to its channel.
Times are core cycles (floats). The function is plain Python on numpy arrays and compiles with
numba (marked :func:`~sam.runtime.jit.jitable`; :func:`sam.memory_timeline.pipelined_finish`
is registered by :func:`sam.memory_timeline.register_helpers`).
"""

from __future__ import annotations

import numpy as np

from sam.dae.cache import fill, lookup
from sam.memory_timeline import pipelined_finish
from sam.runtime.jit import jitable

#: Where a line request was served (index into the counters of :func:`line_request`).
L2_HIT, LLC_HIT, HBM = 0, 1, 2


def noc_round_trips(cores: int, slices: int, mesh_x: int, mesh_y: int, router: float,
                    link: float) -> np.ndarray:
    """``[core, slice]``: core cycles to reach an LLC slice and back on a ``mesh_x`` x
    ``mesh_y`` mesh (core ``k`` and slice ``k`` at node ``k % nodes``, row-major)."""
    nodes = mesh_x * mesh_y
    out = np.zeros((cores, slices), np.float64)
    for c in range(cores):
        cx, cy = (c % nodes) % mesh_x, (c % nodes) // mesh_x
        for s in range(slices):
            sx, sy = (s % nodes) % mesh_x, (s % nodes) // mesh_x
            out[c, s] = 2 * (abs(cx - sx) + abs(cy - sy)) * (router + link)
    return out


@jitable
def line_request(line: int, t: float, core: int, use_l2: bool, use_llc: bool,
                 l2_lat: float, l2_tags: np.ndarray, l2_ages: np.ndarray,
                 l2_ready: np.ndarray, llc_lat: float, llc_tags: np.ndarray,
                 llc_ages: np.ndarray, llc_ready: np.ndarray, noc_rt: np.ndarray,
                 hbm_lat: float, line_time: float, chan_free: np.ndarray,
                 served: np.ndarray) -> float:
    """When the request for ``line`` issued at ``t`` by ``core``'s TMU has its data (module
    docstring); counts where it was served in ``served[core, L2_HIT | LLC_HIT | HBM]``."""
    if use_l2:
        tags, ages, ready = l2_tags[core], l2_ages[core], l2_ready[core]
        way = lookup(tags, ages, line)
        s2 = line % tags.shape[0]
        if way >= 0:
            served[core, L2_HIT] += 1
            return max(t + l2_lat, ready[s2, way])
        t = t + l2_lat
    if use_llc:
        slices = noc_rt.shape[1]
        t = t + noc_rt[core, line % slices] + llc_lat
        way = lookup(llc_tags, llc_ages, line)
        s3 = line % llc_tags.shape[0]
        if way >= 0:
            served[core, LLC_HIT] += 1
            done = max(t, llc_ready[s3, way])
            if use_l2:
                w2 = fill(l2_tags[core], l2_ages[core], line)
                l2_ready[core, line % l2_tags.shape[1], w2] = done
            return done
    channels = chan_free.shape[0]
    ch = line % channels
    done = pipelined_finish(t, hbm_lat, chan_free[ch], line_time)
    chan_free[ch] = done
    served[core, HBM] += 1
    if use_llc:
        w3 = fill(llc_tags, llc_ages, line)
        llc_ready[line % llc_tags.shape[0], w3] = done
    if use_l2:
        w2 = fill(l2_tags[core], l2_ages[core], line)
        l2_ready[core, line % l2_tags.shape[1], w2] = done
    return done
