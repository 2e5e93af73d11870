"""The DLRM inputs of the Ember paper's evaluation: Table 3's models RM1-RM3 and SLS inputs of
low (L0), medium (L1) and high (L2) locality (Sec. 3.2, 8.1: "representative synthetic inputs
[18]").

**The generator** is the one of [18]'s open-source benchmark (facebookresearch/dlrm,
``dlrm_data_pytorch.py``; harvard-acc/DeepRecSys, ``data_generator/trace_generator.py``), after
Hassan et al., "Synthetic Trace-Driven Simulation of Cache Memory" (AINAM'07): the table's rows
sit on an LRU stack; each lookup draws a stack distance from a given distribution and takes the
row at that depth (moving it to the top), or a row never used before (a cold lookup). Early in a
trace, distances deeper than the rows used so far are not drawn (the distribution is restricted
to what exists). Our code, written from that description.

**The distributions.** [18]'s generator reads the distribution from a file profiled from a trace
(``trace_profile``); the files behind the paper's L0/L1/L2 are not published. We take them from
the curves the Ember paper shows for DLRM inputs, Table 1's reuse-distance CDFs of the Criteo 1TB
features ftr0, ftr1, ftr2 (reuse distance: how many other vectors are used before a vector is
used again, Sec. 2.2). Its text gives two points of two curves (Sec. 2.2.1: CDF_ftr0(1K) = 63%,
CDF_ftr2(1K) = 99%; "a 2MB cache would filter 65-99%": CDF(2K) = 65% and 99%). So, per level:

* a share ``near`` of the lookups reuses a row at a distance ``r`` in ``[0, 1000]`` with
  ``1 + r`` log-uniform (density ``1/(1+r)``: most reuse is short, the curves' steep start; our
  choice of shape, the text gives none);
* a share ``far - near`` reuses at a distance uniform in ``(1000, 2000]``;
* the rest (``1 - far``) are cold: never-used rows, in a random order.

===== ===== ====== ==================================================================
level near  far    source
===== ===== ====== ==================================================================
L0    0.63  0.65   criteo ftr0 (Sec. 2.2.1's numbers)
L1    0.81  0.82   criteo ftr1: the text gives no number; the midpoint of ftr0 and ftr2
L2    0.99  0.99   criteo ftr2 (Sec. 2.2.1's numbers)
===== ===== ====== ==================================================================

``near`` and ``far`` are the CDF at 1000 and 2000 of the generated trace, up to the early
restriction (tests/test_ember_workloads.py measures them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from custard.ember.errors import EmberError


@dataclass(frozen=True)
class RmConfig:
    """One DLRM model of the Ember paper's Table 3 (per core)."""

    name: str
    segments: int  # segments (bags) per batch per core
    rows: int  # embedding entries per table
    emb: int  # elements per embedding vector
    tables: int  # tables per core
    lookups: int  # lookups per segment


#: Table 3: segments per batch per core, entries per table, elements per vector, tables per core,
#: lookups per segment
RMS: dict[str, RmConfig] = {
    "RM1": RmConfig("RM1", 64, 16384, 32, 2, 64),
    "RM2": RmConfig("RM2", 32, 16384, 64, 2, 128),
    "RM3": RmConfig("RM3", 16, 16384, 128, 2, 256),
}


@dataclass(frozen=True)
class Locality:
    """A reuse-distance distribution (module docstring): the share of lookups reusing a row at a
    distance of at most :data:`NEAR` (``near``) and at most :data:`FAR` (``far``)."""

    name: str
    near: float
    far: float
    source: str


NEAR, FAR = 1000, 2000
LOCALITIES: dict[str, Locality] = {
    "L0": Locality("L0", 0.63, 0.65, "criteo ftr0 (Ember Sec. 2.2.1)"),
    "L1": Locality("L1", 0.81, 0.82, "criteo ftr1 (midpoint of ftr0 and ftr2: no number given)"),
    "L2": Locality("L2", 0.99, 0.99, "criteo ftr2 (Ember Sec. 2.2.1)"),
}


def rm_config(name: str) -> RmConfig:
    """Table 3's model ``name`` (RM1, RM2 or RM3)."""
    if name not in RMS:
        raise EmberError(f"unknown DLRM model '{name}' (one of {', '.join(RMS)})")
    return RMS[name]


def locality(name: str) -> Locality:
    if name not in LOCALITIES:
        raise EmberError(f"unknown locality '{name}' (one of {', '.join(LOCALITIES)})")
    return LOCALITIES[name]


def _rng(seed: int, *key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, *key]))


class _Distances:
    """Stack-distance draws (``-1``: cold), drawn in blocks from one generator."""

    def __init__(self, loc: Locality, rng: np.random.Generator, block: int) -> None:
        self.loc, self.rng, self.block = loc, rng, max(block, 64)
        self.buf: np.ndarray = np.empty(0, dtype=np.int64)
        self.pos = 0

    def _refill(self) -> None:
        n = self.block
        u, v = self.rng.random(n), self.rng.random(n)
        near = np.floor(np.exp(v * np.log(NEAR + 1))).astype(np.int64) - 1
        far = NEAR + 1 + np.floor(v * (FAR - NEAR)).astype(np.int64)
        self.buf = np.where(u < self.loc.near, np.minimum(near, NEAR),
                            np.where(u < self.loc.far, far, -1))
        self.pos = 0

    def draw(self, depth: int) -> int:
        """A distance below ``depth`` (the rows on the stack) or cold."""
        while True:
            if self.pos == len(self.buf):
                self._refill()
            d = int(self.buf[self.pos])
            self.pos += 1
            if d < depth:
                return d


def lookup_trace(rows: int, length: int, loc: Locality, rng: np.random.Generator) -> np.ndarray:
    """``length`` row indices in ``[0, rows)`` drawn by the LRU stack-distance generator."""
    order = rng.permutation(rows)  # cold rows in a random order
    fresh = 0
    stack: list[int] = []  # most recent last
    dist = _Distances(loc, rng, length)
    out = np.empty(length, dtype=np.int64)
    for k in range(length):
        d = dist.draw(len(stack))
        if d < 0:
            if fresh < rows:
                row = int(order[fresh])
                fresh += 1
            else:  # every row used: the least recently used one
                row = stack.pop(0)
        else:
            row = stack.pop(len(stack) - 1 - d)
        stack.append(row)
        out[k] = row
    return out


def sls_inputs(cfg: RmConfig, locality_name: str, seed: int, core: int = 0,
               table: int = 0) -> dict[str, np.ndarray]:
    """SLS inputs (``ptrs``, ``idxs``, ``table``: the names of :mod:`custard.ember.ops`) of one
    table of one core: ``cfg.segments`` segments of ``cfg.lookups`` lookups into a table of
    ``cfg.rows`` x ``cfg.emb`` values uniform in [-1, 1). The same ``seed``, core and table give
    the same inputs; each core and table its own."""
    loc = locality(locality_name)
    level = list(LOCALITIES).index(loc.name)
    rng = _rng(seed, core, table, level)
    n = cfg.segments * cfg.lookups
    idxs = lookup_trace(cfg.rows, n, loc, rng)
    values = _rng(seed, core, table, 99).uniform(-1, 1, (cfg.rows, cfg.emb))
    return {"ptrs": np.arange(cfg.segments + 1, dtype=np.int64) * cfg.lookups,
            "idxs": idxs, "table": values}


def reuse_distances(idxs: np.ndarray) -> np.ndarray:
    """Each lookup's reuse distance: how many other rows were used since the row's last use
    (``-1``: its first use)."""
    stack: list[int] = []  # most recent last: a row's depth is its reuse distance
    seen: set[int] = set()
    out = np.full(len(idxs), -1, dtype=np.int64)
    for k, row in enumerate(int(x) for x in idxs):
        if row in seen:
            at = len(stack) - 1 - stack[::-1].index(row)
            out[k] = len(stack) - 1 - at
            del stack[at]
        seen.add(row)
        stack.append(row)
    return out


def reuse_cdf(idxs: np.ndarray, distances: list[int]) -> list[float]:
    """The share of lookups whose reuse distance is at most each of ``distances`` (first uses
    count as infinitely far: Ember Sec. 2.2's CDF)."""
    rd = reuse_distances(idxs)
    reused = rd[rd >= 0]
    return [float(np.count_nonzero(reused <= d)) / max(len(idxs), 1) for d in distances]
