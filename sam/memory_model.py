"""A finite memory hierarchy for tiled runs (SAM paper Sec. 6.4, "Modeling Hardware with Finite
Constraints", Figure 15).

Levels (outermost first, e.g. the last-level buffer fed from DRAM, then the PE buffer fed from
the LLB) each have a capacity, a bandwidth into the level (bytes/cycle), a load latency
(cycles) and a tile shape; ``bytes_per_element`` sizes every stored number (value, coordinate or
segment entry). The configuration is a TOML or YAML file (shipped: the paper's ExTensor-like
``extensor_17M_llb.yaml``, :func:`extensor`).

A tiled run is a sequence of :class:`Step` s (one per innermost tile tuple, in the order the
tile-sequencing graph gives them). Each step names, per level, the tile each operand uses there,
the compute cycles of its per-tile simulation and the output tile it accumulates into. Costs:

* a tile that is not resident at its level is loaded: ``latency + ceil(bytes / bandwidth)``
  cycles; a level keeps the last tile of each operand, so a reused resident tile costs nothing;
* with ``skip_empty`` (sparse tile skipping) a tile with no nonzeros is never loaded;
* an output tile is written back (``ceil(bytes / bandwidth)`` of that level) when the steps move
  to another output tile, and at the end;
* with ``buffers = n >= 2`` (n-buffering) the loads of a step may run while up to ``n - 1``
  earlier steps compute; with ``buffers = 1`` loading and computing alternate.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


def load_hierarchy(path: str | Path) -> Hierarchy:
    """Read a hierarchy from a ``.toml`` or ``.yaml`` file (see ``memory_configs/``)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as err:
        raise SimulationError(f"memory configuration {path}: {err.strerror or err}") from None
    try:
        if path.suffix in (".yaml", ".yml"):
            import yaml

            data: Any = yaml.safe_load(text)
        else:
            import tomllib  # Python 3.11+; the YAML form works everywhere

            data = tomllib.loads(text)
    except ImportError:
        raise SimulationError(f"memory configuration {path}: TOML needs Python 3.11; write it "
                              "as YAML (.yaml)") from None
    except Exception as err:  # noqa: BLE001 - any parse error: one line
        raise SimulationError(f"memory configuration {path}: cannot parse "
                              f"({' '.join(str(err).split())})") from None
    return hierarchy_from(data, str(path))


def hierarchy_from(data: Mapping[str, Any], where: str = "memory configuration") -> Hierarchy:
    levels = []
    if not isinstance(data, Mapping) or not data.get("level"):
        raise SimulationError(f"{where}: no [[level]] entries; give name, capacity_bytes, "
                              "bandwidth, latency and tile for each level")
    for k, lv in enumerate(data["level"]):
        try:
            level = MemoryLevel(str(lv["name"]), float(lv["capacity_bytes"]),
                                float(lv["bandwidth"]), int(lv["latency"]),
                                tuple(int(t) for t in lv["tile"]))
        except (KeyError, TypeError, ValueError) as err:
            raise SimulationError(f"{where}: level {k + 1}: missing or bad field {err}; give "
                                  "name, capacity_bytes, bandwidth, latency, tile") from None
        if level.bandwidth <= 0 or level.latency < 0:
            raise SimulationError(f"{where}: level {level.name}: bandwidth must be > 0 and "
                                  "latency >= 0")
        levels.append(level)
    return Hierarchy(str(data.get("name", where)), tuple(levels),
                     int(data.get("bytes_per_element", 2)), float(data.get("clock_ghz", 1.0)))


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
               buffers: int = 2, record: bool = True) -> MemoryReport:
    """Cost ``steps`` (any iterable, e.g. a generator) on ``hier`` (see module docstring);
    ``record`` keeps the keys of the loaded tiles in the report."""
    if buffers < 1:
        raise SimulationError(f"buffers={buffers}: give 1 (no overlap) or more (n-buffering)")
    reports = {lv.name: LevelReport() for lv in hier.levels}
    loaded: dict[str, list[Hashable]] = {lv.name: [] for lv in hier.levels}
    resident: dict[str, dict[str, Hashable]] = {lv.name: {} for lv in hier.levels}
    out_tile: dict[str, TileUse | None] = {lv.name: None for lv in hier.levels}
    load_end = 0
    comp_end: list[int] = [0] * buffers  # compute end of the last ``buffers`` steps (a ring)
    compute = 0
    k = -1

    def writeback(name: str, use: TileUse | None) -> int:
        if use is None or (skip_empty and use.nnz == 0):
            return 0
        lv = hier.level(name)
        cyc = math.ceil(use.nbytes / lv.bandwidth)
        reports[name].bytes_written += use.nbytes
        reports[name].write_cycles += cyc
        return cyc

    for k, step in enumerate(steps):
        transfer = 0
        for name, uses in step.tiles.items():
            lv, rep = hier.level(name), reports[name]
            for operand, use in uses.items():
                if resident[name].get(operand) == use.key:
                    rep.reused += 1
                    continue
                resident[name][operand] = use.key
                if skip_empty and use.nnz == 0:
                    rep.skipped_empty += 1
                    continue
                cyc = lv.load_cycles(use.nbytes)
                rep.loads += 1
                rep.bytes_loaded += use.nbytes
                rep.load_cycles += cyc
                if record:
                    loaded[name].append((operand, use.key))
                transfer += cyc
        for name, use in step.output.items():
            prev = out_tile[name]
            if prev is not None and prev.key != use.key:
                transfer += writeback(name, prev)
            out_tile[name] = use
        free = comp_end[k % buffers]  # the buffer step k - buffers computed from
        load_end = max(load_end, free) + transfer
        done = max(load_end, comp_end[(k - 1) % buffers]) + step.compute
        comp_end[k % buffers] = done
        compute += step.compute
    total = comp_end[k % buffers] if k >= 0 else 0
    total += sum(writeback(name, use) for name, use in out_tile.items())
    return MemoryReport(reports, compute, total, k + 1, loaded)
