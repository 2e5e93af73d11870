"""The DAE machine's parameters (Ember paper Sec. 3.1, Figure 5): clocks, the TMU, the two queues
between TMU and core, the core's costs, the caches, the NoC and the HBM, and how many cores.

Every parameter is named; the shipped configuration is ``sam/memory_configs/ember_dae.yaml``
(:func:`paper_machine`), whose comments give each value's source. :meth:`DaeMachine.ablation`
builds the machines of the ablation (:data:`ABLATION`): the access side alone, then with the
core's costs, the caches, bounded queues, and all the cores.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from sam.errors import SimulationError
from sam.memory_model import CONFIGS, check_positive, read_config

#: The ablation steps, each adding one component to the one before (issue 34).
ABLATION = ("access", "core", "caches", "queues", "cores")


@dataclass(frozen=True)
class Clocks:
    """Core and TMU clocks (GHz)."""

    core_ghz: float = 2.4
    tmu_ghz: float = 1.0


@dataclass(frozen=True)
class Tmu:
    """The access unit: MSHRs (line requests in flight), storage (bytes of loaded values held
    until pushed), line requests issued per TMU cycle by each stream, pushes per TMU cycle into
    each queue, and the cache level it reads from."""

    mshrs: int = 256
    storage_bytes: int = 8192
    loads_per_cycle: float = 1.0
    pushes_per_cycle: float = 1.0
    reads_from: str = "L2"


@dataclass(frozen=True)
class Queues:
    """The control and data queues (entries; ``None``: unbounded) and the latency (core cycles)
    of a push becoming visible to the core."""

    control_entries: int | None = 128
    data_entries: int | None = 128
    latency_cycles: float = 8.0


@dataclass(frozen=True)
class CoreCosts:
    """The execute side's costs in core cycles (issue-slot throughput of the callback code):
    a callback dispatch (pop a control token and branch), a data pop (scalar; vector of ``vlen``
    lanes), an ALU op, a read-modify-write of the output (L1-hit load, op, store), a store and a
    core-side workspace load or store (L1)."""

    dispatch: float = 4.0
    pop_scalar: float = 1.0
    pop_vector: float = 1.0
    alu_scalar: float = 0.25
    alu_vector: float = 0.5
    rmw_scalar: float = 1.0
    rmw_vector: float = 2.0
    store_scalar: float = 1.0
    store_vector: float = 2.0
    workspace_load: float = 0.5
    workspace_store: float = 1.0

    @classmethod
    def free(cls) -> CoreCosts:
        """Every cost zero (the access-side-only machine)."""
        return cls(**{f.name: 0.0 for f in fields(cls)})


@dataclass(frozen=True)
class Cache:
    """A set-associative LRU cache: bytes per slice, slices, ways and hit latency (core cycles)."""

    size_bytes: int
    ways: int
    latency_cycles: float
    slices: int = 1


@dataclass(frozen=True)
class Noc:
    """The 2-D mesh between cores and LLC slices: ``mesh_x`` x ``mesh_y`` nodes, cycles per
    router and per link (core cycles)."""

    mesh_x: int = 4
    mesh_y: int = 2
    router_cycles: float = 1.0
    link_cycles: float = 1.0


@dataclass(frozen=True)
class Hbm:
    """The shared HBM: total bandwidth (GB/s), the latency of a read (ns) and the channels
    (lines interleaved over them)."""

    bandwidth_gbps: float = 300.0
    latency_ns: float = 65.0
    channels: int = 8


def _l2() -> Cache:
    return Cache(512 * 1024, 8, 8.0)


def _llc() -> Cache:
    return Cache(1024 * 1024, 16, 12.0, slices=8)


@dataclass(frozen=True)
class DaeMachine:
    """The whole machine (module docstring). ``l2``/``llc`` ``None``: no such cache (the
    ablation's access-only steps send every load to the HBM)."""

    name: str = "ember-dae"
    cores: int = 8
    line_bytes: int = 64
    clocks: Clocks = Clocks()
    tmu: Tmu = Tmu()
    queues: Queues = Queues()
    core: CoreCosts = CoreCosts()
    l2: Cache | None = dataclasses.field(default_factory=_l2)
    llc: Cache | None = dataclasses.field(default_factory=_llc)
    noc: Noc = Noc()
    hbm: Hbm = Hbm()

    @property
    def bounded(self) -> bool:
        """Whether either queue is bounded."""
        return self.queues.control_entries is not None or self.queues.data_entries is not None

    def replace(self, **changes: Any) -> DaeMachine:
        """A copy with ``changes``: a top-level field (``cores=4``, ``l2=None``), a field of one
        component by its own name when no other component has it (``data_entries=16``,
        ``mshrs=64``), or ``"component.field"`` (``**{"llc.latency_cycles": 20}``)."""
        top = {f.name for f in fields(self)}
        nested: dict[str, dict[str, Any]] = {}
        plain: dict[str, Any] = {}
        for key, value in changes.items():
            comp, _, name = key.rpartition(".")
            if not comp and name in top:
                plain[name] = value
                continue
            owners = [comp] if comp else [
                f.name for f in fields(self)
                if dataclasses.is_dataclass(getattr(self, f.name))
                and name in {g.name for g in fields(getattr(self, f.name))}]
            obj = getattr(self, owners[0], None) if len(owners) == 1 else None
            if obj is None or not dataclasses.is_dataclass(obj) \
                    or name not in {g.name for g in fields(obj)}:
                why = "several components have it; write component.field" if len(owners) > 1 \
                    else "no such field"
                raise SimulationError(f"DAE machine: cannot set {key!r}: {why}")
            nested.setdefault(owners[0], {})[name] = value
        for comp, vals in nested.items():
            plain[comp] = dataclasses.replace(getattr(self, comp), **vals)
        return dataclasses.replace(self, **plain)

    def ablation(self, step: str) -> DaeMachine:
        """The machine of ablation ``step`` (:data:`ABLATION`): ``access`` = the TMU with its
        MSHRs and every load to the HBM, no core costs, unbounded queues, one core; each later
        step adds its component of this machine: ``core`` its costs, ``caches`` L2 and LLC,
        ``queues`` the queue bounds, ``cores`` all its cores (this machine)."""
        if step not in ABLATION:
            raise SimulationError(f"ablation step {step!r}: give one of {', '.join(ABLATION)}")
        k = ABLATION.index(step)
        m = dataclasses.replace(self, cores=1) if k < 4 else self
        if k < 3:
            m = dataclasses.replace(m, queues=dataclasses.replace(
                m.queues, control_entries=None, data_entries=None))
        if k < 2:
            m = dataclasses.replace(m, l2=None, llc=None)
        if k < 1:
            m = dataclasses.replace(m, core=CoreCosts.free())
        return dataclasses.replace(m, name=f"{self.name} ({step})")


# ----------------------------------------------------------------------------- reading YAML
_INTS = {"cores", "line_bytes", "mshrs", "storage_bytes", "control_entries", "data_entries",
         "size_bytes", "ways", "slices", "mesh_x", "mesh_y", "channels"}
#: Fields that must be above zero (the others may be zero: costs, latencies).
_ABOVE_ZERO = {"cores", "line_bytes", "core_ghz", "tmu_ghz", "mshrs", "storage_bytes",
               "loads_per_cycle", "pushes_per_cycle", "control_entries", "data_entries",
               "size_bytes", "ways", "slices", "mesh_x", "mesh_y", "bandwidth_gbps", "channels"}
_LEVELS = ("L2", "LLC")


def _no_unknown_fields(cls: type, data: Mapping, where: str) -> None:
    """Refuse a key of ``data`` that is not a field of the dataclass ``cls``."""
    names = [f.name for f in fields(cls)]
    unknown = sorted(set(map(str, data)) - set(names))
    if unknown:
        raise SimulationError(f"{where}: unknown field {unknown[0]!r}; fields are "
                              f"{', '.join(names)}")


def _component(cls: type, data: Any, where: str, optional: bool = False) -> Any:
    """``cls`` from the mapping ``data`` (missing fields take the class's defaults, except
    for :class:`Cache`, which needs all but ``slices``), every field checked."""
    if data is None and optional:
        return None
    if not isinstance(data, Mapping):
        raise SimulationError(f"{where}: give a mapping of "
                              f"{', '.join(f.name for f in fields(cls))}")
    _no_unknown_fields(cls, data, where)
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in data:
            if f.default is dataclasses.MISSING:
                raise SimulationError(f"{where}: missing field {f.name}")
            continue
        value = data[f.name]
        if f.name == "reads_from":
            if value not in _LEVELS:
                raise SimulationError(f"{where}: reads_from {value!r}: give L2 or LLC")
        elif value is None and f.name in ("control_entries", "data_entries"):
            pass  # unbounded
        else:
            integer = f.name in _INTS
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or (integer and value != int(value)):
                kind = "an integer" if integer else "a number"
                raise SimulationError(f"{where}: {f.name} {value!r}: give {kind}")
            value = int(value) if integer else float(value)
            check_positive(where, f.name, value, integer=integer,
                           strict=f.name in _ABOVE_ZERO)
        values[f.name] = value
    return cls(**values)


def machine_from(data: Any, where: str = "DAE machine") -> DaeMachine:
    """A checked :class:`DaeMachine` from parsed YAML ``data`` (``where`` names it in the
    one-line errors). Components left out take the paper's values; ``l2: null`` or
    ``llc: null`` removes that cache."""
    if not isinstance(data, Mapping):
        raise SimulationError(f"{where}: give a mapping with name, cores, clocks, tmu, queues, "
                              "core, l2, llc, noc, hbm")
    parts = {"clocks": Clocks, "tmu": Tmu, "queues": Queues, "core": CoreCosts, "l2": Cache,
             "llc": Cache, "noc": Noc, "hbm": Hbm}
    _no_unknown_fields(DaeMachine, data, where)
    values: dict[str, Any] = {}
    for name, cls in parts.items():
        if name in data:
            values[name] = _component(cls, data[name], f"{where}: {name}",
                                      optional=name in ("l2", "llc"))
    for name in ("cores", "line_bytes"):
        if name in data:
            value = data[name]
            if isinstance(value, bool) or not isinstance(value, int):
                raise SimulationError(f"{where}: {name} {value!r}: give an integer")
            check_positive(where, name, value, integer=True)
            values[name] = value
    values["name"] = str(data.get("name", where))
    m = DaeMachine(**values)
    for level in (m.l2, m.llc):
        if level is not None and level.size_bytes % (level.ways * m.line_bytes):
            raise SimulationError(f"{where}: a cache of {level.size_bytes} bytes does not hold "
                                  f"whole sets of {level.ways} ways of {m.line_bytes}-byte "
                                  "lines; give a multiple of ways x line_bytes")
    if m.tmu.reads_from == "L2" and m.l2 is None and m.llc is not None:
        raise SimulationError(f"{where}: tmu reads_from L2 but l2 is null; give an l2 or "
                              "reads_from: LLC")
    return m


def load_machine(path: str | Path) -> DaeMachine:
    """Read and check a machine from a YAML file like ``memory_configs/ember_dae.yaml``; every
    problem is one line naming the file and the field."""
    data, _ = read_config(path, "DAE machine")
    return machine_from(data, f"DAE machine {path}")


def paper_machine() -> DaeMachine:
    """The Ember paper's machine (Figure 5), from the shipped ``ember_dae.yaml``."""
    return load_machine(CONFIGS / "ember_dae.yaml")
