"""Memory estimates, so that a tensor too large for the machine is refused before it is built.

Building a tensor with declared sizes (a ``random:`` spec, a shape read from a file, a format
with dense levels) can ask for more memory than the machine has; the kernel then kills the
process after minutes, or numpy fails deep inside with an internal error. Instead, builders
estimate what they need (:func:`stored_bytes` for the levels and values, :func:`build_bytes`
for the temporary arrays of :meth:`~formats.tensor.Tensor.from_coo`) and compare it with
:func:`available_bytes` through :func:`too_large`, which words the refusal.

The estimates are upper bounds of the measured peaks (``tracemalloc``) within a few tens of
percent; they only need to tell "fits easily" from "cannot fit".
"""

from __future__ import annotations

import math
import os
import resource
from collections.abc import Sequence
from pathlib import Path

from formats.format import Format
from formats.levels import level_type

#: Below this estimate nothing is checked (reading the available memory costs a system call).
SMALL = 64 * 2**20
#: Largest number of positions a level can number (int64).
MAX_POSITIONS = 2**63 - 1
#: Bytes a point costs while :meth:`Tensor.from_coo` builds: ``POINT_BYTES + 32 * order``.
POINT_BYTES = 48


def available_bytes() -> int:
    """Memory this process may still take: the kernel's estimate of available memory
    (``MemAvailable`` in ``/proc/meminfo``, else free physical pages), lowered by a cgroup
    memory limit and by ``RLIMIT_AS`` less the address space already in use."""
    bounds = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                bounds.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    if not bounds:
        try:
            bounds.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (OSError, ValueError, AttributeError):
            bounds.append(2**62)
    for limit, used in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                        ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                         "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        try:
            bounds.append(int(Path(limit).read_text()) - int(Path(used).read_text()))
        except (OSError, ValueError):
            pass
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        try:
            pages = int(Path("/proc/self/statm").read_text().split()[0])
            bounds.append(soft - pages * os.sysconf("SC_PAGE_SIZE"))
        except (OSError, ValueError, IndexError):
            bounds.append(soft)
    return max(0, min(bounds))


def format_bytes(n: int | float) -> str:
    """``23.1 GB``, ``512 MB``, ``800 kB`` (decimal units)."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            value = n / scale
            return f"{value:.3g} {unit}" if value < 1000 else f"{value:,.0f} {unit}"
    return f"{int(n)} bytes"


def too_large(nbytes: int) -> str | None:
    """None if ``nbytes`` fits in the available memory, else the words of the refusal
    (``needs about 59 GB, more than the 7.4 GB of memory available``)."""
    if nbytes <= SMALL:
        return None
    free = available_bytes()
    if nbytes <= free:
        return None
    return f"needs about {format_bytes(nbytes)}, more than the {format_bytes(free)} of memory " \
           "available"


def stored_bytes(shape: Sequence[int], fmt: Format, nnz: int, *, compressed: bool = False
                 ) -> int:
    """Bytes of a tensor's levels and values when ``nnz`` points are stored in ``fmt`` (with
    ``compressed``: as if every level were compressed).

    A full level (dense) has ``parents * size`` positions and no arrays; any other level is
    taken to store a segment array and up to one coordinate per point.
    """
    parents = 1
    total = 0
    for letter, mode in zip(fmt.levels, fmt.mode_order, strict=True):
        size = int(shape[mode])
        if level_type(letter).full and not compressed:
            parents = parents * size
        else:
            positions = min(nnz, parents * size)
            total += 8 * (parents + 1) + 8 * positions
            parents = positions
    return total + 8 * parents


def dense_bytes(shape: Sequence[int], fmt: Format, nnz: int) -> int:
    """What the dense levels of ``fmt`` add to :func:`stored_bytes` (every coordinate they
    hold, and the segments below them)."""
    return stored_bytes(shape, fmt, nnz) - stored_bytes(shape, fmt, nnz, compressed=True)


def build_bytes(order: int, nnz: int) -> int:
    """Temporary bytes of building from ``nnz`` points (coordinates, sorting, grouping)."""
    return (POINT_BYTES + 32 * order) * nnz


def positions(shape: Sequence[int]) -> int:
    """Number of positions of a shape (a Python integer: never overflows)."""
    return math.prod(int(s) for s in shape)
