"""A finite memory hierarchy for tiled runs (SAM paper Sec. 6.4, "Modeling Hardware with Finite
Constraints", Figure 15).

Levels (outermost first, e.g. the last-level buffer fed from DRAM, then the PE buffer fed from
the LLB) each have a capacity, a bandwidth into the level (bytes/cycle), a load latency
(cycles) and a tile shape; ``bytes_per_element`` sizes every stored number (value, coordinate or
segment entry). The configuration is a TOML or YAML file (shipped: the paper's ExTensor-like
``extensor_17M_llb.yaml``, :func:`extensor`).

A tiled run is a sequence of :class:`Step` s (one per innermost tile tuple, in the order the
tile-sequencing graph gives them). Each step names, per level, the tile each operand uses there,
the compute cycles of its per-tile simulation and the output tile it accumulates into. The
timeline (:mod:`sam.memory_timeline`):

* **channels**: each level is fed by its own channel (DRAM -> LLB, LLB -> PE buffer), which runs
  beside the others and beside compute. A tile that is not resident at its level is loaded over
  it: ``latency + ceil(bytes / bandwidth)`` cycles, issued once the tile is in the level above;
  a level keeps the last tile of each operand, so a reused resident tile costs nothing (each
  LLB tile is loaded once per run of steps that use it, not once per PE tile tuple);
* **pipelined requests** (with n-buffering): a load issued while the channel is still busy
  hides its latency behind the transfers before it (``finish = max(issue + latency,
  channel free) + bytes/bandwidth``), as the original's pipelined DRAM model; without
  n-buffering every load pays its latency after the previous transfer;
* **n-buffering** (``buffers = n``): a *tile group* is a run of steps using the same tiles of a
  level (an LLB tile tuple; a PE tile tuple); group ``g``'s loads may start once group
  ``g - n`` has finished computing (``buffers=None``: once the groups still held fit the
  level's capacity, as the original fills its buffers); ``buffers = 1``: load, compute, load;
* **sparse tile skipping** (``skip_empty``): a tile with no nonzeros is never loaded;
* **results**: an output tile is written back (``ceil(bytes / bandwidth)`` on its level's
  channel) when the steps move to another output tile, and at the end; a step that opens an
  output tile waits for the write-back of the tile ``n`` output tiles before;
* **compute**: steps compute one after another, each once its innermost tiles are in.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sam.errors import SimulationError

CONFIGS = Path(__file__).resolve().parent / "memory_configs"


@dataclass(frozen=True)
class MemoryLevel:
    name: str
    capacity_bytes: float
    bandwidth: float  # bytes per cycle into this level
    latency: int  # cycles per load
    tile: tuple[int, ...]

    def load_cycles(self, nbytes: int) -> int:
        """Cycles to load ``nbytes`` into this level."""
        return self.latency + math.ceil(nbytes / self.bandwidth)


@dataclass(frozen=True)
class Hierarchy:
    name: str
    levels: tuple[MemoryLevel, ...]
    bytes_per_element: int = 2
    clock_ghz: float = 1.0

    def level(self, name: str) -> MemoryLevel:
        for lv in self.levels:
            if lv.name == name:
                return lv
        raise SimulationError(f"memory level {name!r} is not in {self.name} "
                              f"(levels: {', '.join(lv.name for lv in self.levels)})")

    def tile_bytes(self, nnz: int, rows: int) -> int:
        """Bytes of a doubly compressed (``ss``, DCSR-like) tile: the values and column
        coordinates of its nonzeros, the coordinates and segment array of its nonempty rows (at
        most ``min(nnz, rows)``) and the two-entry segment array of the row level."""
        r = min(nnz, rows)
        return self.bytes_per_element * (2 * nnz + 2 * r + 3)


#: Largest capacity (bytes) and tile size a level may have: the timeline counts in int64.
MAX_SIZE = 2**62


def load_hierarchy(path: str | Path) -> Hierarchy:
    """Read and check a hierarchy from a ``.toml`` or ``.yaml`` file (see ``memory_configs/``);
    every problem is one line naming the file (and the level)."""
    data, toml = read_config(path)
    return hierarchy_from(data, str(path), syntax="toml" if toml else "yaml")


def read_config(path: str | Path, what: str = "memory configuration") -> tuple[Any, bool]:
    """The parsed ``.toml`` or ``.yaml`` file ``path`` and whether it is TOML; a missing file or
    a parse error is one line naming ``what`` and the file."""
    from sam.command.files import read_text

    path = Path(path)
    text = read_text(path, what)
    toml = path.suffix.lower() == ".toml"
    try:
        if not toml:
            import yaml

            data: Any = yaml.safe_load(text)
        else:
            import tomllib  # Python 3.11+; the YAML form works everywhere

            data = tomllib.loads(text)
    except ImportError:
        raise SimulationError(f"{what} {path}: TOML needs Python 3.11; write it "
                              "as YAML (.yaml)") from None
    except Exception as err:  # noqa: BLE001 - any parse error: one line
        raise SimulationError(f"{what} {path}: cannot parse "
                              f"({' '.join(str(err).split())})") from None
    return data, toml


def check_positive(where: str, field: str, value: float, *, integer: bool = False,
                   low: float = 0.0, strict: bool = True) -> None:
    """Refuse a field that is not a finite number above ``low`` (``strict``) or at least it."""
    bad = not math.isfinite(value) or (value <= low if strict else value < low) \
        or value > MAX_SIZE
    if bad:
        rule = f"above {low:g}" if strict else f"{low:g} or more"
        kind = "an integer" if integer else "a number"
        raise SimulationError(f"{where}: {field} {value:g}: give {kind} {rule}")


def hierarchy_from(data: Any, where: str = "memory configuration", *,
                   syntax: str = "yaml") -> Hierarchy:
    """A checked :class:`Hierarchy` from parsed configuration ``data`` (``where`` names it in
    messages; ``syntax`` is ``yaml`` or ``toml``, for the wording of a missing level list).
    Capacities, bandwidths and tile sizes must be positive, latencies zero or more."""
    fields = "name, capacity_bytes, bandwidth, latency and tile"
    raw = data.get("level") if isinstance(data, Mapping) else None
    if not raw or not isinstance(raw, list):
        shape = ("no [[level]] tables; give one [[level]] table per level"
                 if syntax == "toml" else "no `level:` list; give `level:` a list of levels")
        raise SimulationError(f"{where}: {shape}, each with {fields}")
    levels: list[MemoryLevel] = []
    for k, lv in enumerate(raw):
        try:
            tile = lv["tile"]
            if isinstance(tile, (str, bytes)) or not isinstance(tile, (list, tuple)):
                raise TypeError("tile (a list of sizes, one per mode)")
            level = MemoryLevel(str(lv["name"]), float(lv["capacity_bytes"]),
                                float(lv["bandwidth"]), int(lv["latency"]),
                                tuple(int(t) for t in tile))
        except (KeyError, TypeError, ValueError, OverflowError) as err:
            raise SimulationError(f"{where}: level {k + 1}: missing or bad field {err}; give "
                                  f"{fields}") from None
        at = f"{where}: level {level.name}"
        if any(other.name == level.name for other in levels):
            raise SimulationError(f"{at}: two levels have this name; give each its own")
        check_positive(at, "capacity_bytes", level.capacity_bytes)
        check_positive(at, "bandwidth", level.bandwidth)
        check_positive(at, "latency", level.latency, integer=True, strict=False)
        if not level.tile or any(t < 1 or t > MAX_SIZE for t in level.tile):
            raise SimulationError(f"{at}: tile {list(level.tile)}: give one size of 1 or more "
                                  "per mode, e.g. tile: [128, 128]")
        levels.append(level)
    try:
        bpe = data.get("bytes_per_element", 2)
        clock = data.get("clock_ghz", 1.0)
        bytes_per_element, clock_ghz = int(bpe), float(clock)
        if bytes_per_element != bpe:
            raise ValueError(bpe)
    except (TypeError, ValueError, OverflowError):
        raise SimulationError(f"{where}: bytes_per_element {data.get('bytes_per_element')!r}, "
                              f"clock_ghz {data.get('clock_ghz')!r}: give an integer and a "
                              "number") from None
    check_positive(where, "bytes_per_element", bytes_per_element, integer=True, low=1,
                   strict=False)
    check_positive(where, "clock_ghz", clock_ghz)
    return Hierarchy(str(data.get("name", where)), tuple(levels), bytes_per_element, clock_ghz)


def extensor() -> Hierarchy:
    """The paper's ExTensor-like configuration (Sec. 6.4)."""
    return load_hierarchy(CONFIGS / "extensor_17M_llb.yaml")


@dataclass(frozen=True)
class TileUse:
    """A tile an operand uses at a level: its identity, bytes and nonzeros."""

    key: Hashable
    nbytes: int
    nnz: int


@dataclass
class Step:
    """One innermost tile tuple: per level, operand -> tile; its compute cycles; per level, the
    output tile it accumulates into."""

    tiles: Mapping[str, Mapping[str, TileUse]]
    compute: int
    output: Mapping[str, TileUse] = field(default_factory=dict)


@dataclass
class LevelReport:
    bytes_loaded: int = 0
    bytes_written: int = 0
    loads: int = 0
    reused: int = 0
    skipped_empty: int = 0
    load_cycles: int = 0
    write_cycles: int = 0


@dataclass
class MemoryReport:
    levels: dict[str, LevelReport]
    compute_cycles: int
    total_cycles: int
    steps: int
    #: keys of tiles loaded per level (to check that empty tiles were skipped)
    loaded: dict[str, list[Hashable]]

    @property
    def transfer_cycles(self) -> int:
        return sum(r.load_cycles + r.write_cycles for r in self.levels.values())

    @property
    def overlap(self) -> int:
        """Cycles saved by overlapping transfers with compute."""
        return self.transfer_cycles + self.compute_cycles - self.total_cycles

    def table(self) -> str:
        lines = [f"{'level':8} {'bytes in':>12} {'bytes out':>12} {'loads':>8} {'reused':>8} "
                 f"{'skipped':>8} {'load cyc':>12} {'write cyc':>10}"]
        for name, r in self.levels.items():
            lines.append(f"{name:8} {r.bytes_loaded:12,} {r.bytes_written:12,} {r.loads:8,} "
                         f"{r.reused:8,} {r.skipped_empty:8,} {r.load_cycles:12,} "
                         f"{r.write_cycles:10,}")
        lines.append(f"compute {self.compute_cycles:,} cycles; overlap {self.overlap:,}; "
                     f"total {self.total_cycles:,} cycles")
        return "\n".join(lines)


def run_memory(hier: Hierarchy, steps: Iterable[Step], *, skip_empty: bool = True,
               buffers: int | None = 2, record: bool = True, fast: bool | None = None
               ) -> MemoryReport:
    """Cost ``steps`` (any iterable, e.g. a generator) on ``hier`` (see module docstring);
    ``buffers=None`` fills each level's capacity (as many tile groups as fit); ``record`` keeps
    the keys of the loaded tiles in the report; ``fast`` runs the timeline compiled with numba
    (default: for more than 20,000 steps)."""
    from sam.memory_timeline import timeline, timeline_fast

    if buffers is not None and buffers < 1:
        raise SimulationError(f"buffers={buffers}: give 1 (no overlap), n >= 2 (n-buffering) "
                              "or None (--buffers 0: fill each level's capacity)")
    names = [lv.name for lv in hier.levels]
    nlev = len(names)
    reports = {n: LevelReport() for n in names}
    loaded: dict[str, list[Hashable]] = {n: [] for n in names}
    resident: dict[str, dict[str, Hashable]] = {n: {} for n in names}
    group_key: dict[str, tuple | None] = dict.fromkeys(names)
    out_tile: dict[str, TileUse | None] = dict.fromkeys(names)
    ops: dict[str, int] = {}
    compute: list[int] = []
    group: list[list[int]] = [[] for _ in names]
    outnew: list[list[int]] = [[] for _ in names]
    outx: list[list[int]] = [[] for _ in names]
    lptr, lop, lx, lbytes = [0], [], [], []

    def wcycles(name: str, use: TileUse | None) -> int:
        if use is None or (skip_empty and use.nnz == 0):
            return 0
        cyc = math.ceil(use.nbytes / hier.level(name).bandwidth)
        reports[name].bytes_written += use.nbytes
        reports[name].write_cycles += cyc
        return cyc

    for step in steps:
        compute.append(int(step.compute))
        for li, name in enumerate(names):
            lv, rep = hier.levels[li], reports[name]
            uses = step.tiles.get(name, {})
            key = tuple(sorted((op, u.key) for op, u in uses.items()))
            group[li].append(int(key != group_key[name]))
            group_key[name] = key
            for operand, use in uses.items():
                if resident[name].get(operand) == use.key:
                    rep.reused += 1
                    continue
                resident[name][operand] = use.key
                if skip_empty and use.nnz == 0:
                    rep.skipped_empty += 1
                    continue
                x = math.ceil(use.nbytes / lv.bandwidth)
                rep.loads += 1
                rep.bytes_loaded += use.nbytes
                rep.load_cycles += lv.latency + x
                if record:
                    loaded[name].append((operand, use.key))
                lop.append(ops.setdefault(operand, len(ops)))
                lx.append(x)
                lbytes.append(int(use.nbytes))
            lptr.append(len(lop))
            use = step.output.get(name)
            prev = out_tile[name]
            new = use is not None and (prev is None or prev.key != use.key)
            outnew[li].append(int(new))
            outx[li].append(wcycles(name, prev) if new and prev is not None else 0)
            if use is not None:
                out_tile[name] = use
    finalx = [wcycles(n, out_tile[n]) for n in names]
    n = len(compute)
    arrays = (np.asarray(compute, np.int64), np.asarray(group, np.int64).reshape(nlev, n),
              np.asarray(lptr, np.int64), np.asarray(lop, np.int64), np.asarray(lx, np.int64),
              np.asarray(lbytes, np.int64), np.asarray(outnew, np.int64).reshape(nlev, n),
              np.asarray(outx, np.int64).reshape(nlev, n), np.asarray(finalx, np.int64),
              np.array([lv.latency for lv in hier.levels], np.int64),
              np.array([lv.capacity_bytes for lv in hier.levels], np.int64),
              max(len(ops), 1), 0 if buffers is None else int(buffers))
    use_fast = n > 20_000 if fast is None else fast
    total = (timeline_fast if use_fast else timeline)(*arrays) if n else 0
    return MemoryReport(reports, int(sum(compute)), int(total), n, loaded)
