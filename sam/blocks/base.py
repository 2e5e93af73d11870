"""What every SAM block declares: its ports, parameters, memories and kernel.

A :class:`Block` is one node of a SAM graph. Subclasses (one primitive family per module) say

* ``dot_type``: the node ``type`` in the Custard DOT schema, and ``family`` (for pictures and
  statistics);
* their input and output :class:`Port` s (named ``kind:comment`` after the DOT edge that feeds
  them, e.g. ``crd:in-B``), declared by name and numbered for the kernel by :class:`Ports`;
* ``kernel``: the :class:`~sam.runtime.kernel.Kernel` that defines behaviour and timing;
* ``state``: the :class:`~sam.runtime.kernel.State` naming its kernel's state slots, ``params()``
  (initial values of some of them, by name, from its attributes and tensors), ``memories()`` (the
  level and value arrays it reads or fills, by its kernel's argument names) and, for level
  writers, how to read back what they stored.

The simulator needs nothing else, so a new primitive is one class plus one registry line
(:mod:`sam.graph.registry`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from formats.errors import FormatError
from sam.errors import GraphError
from sam.runtime.kernel import FLOAT_MEMORIES, INT_MEMORIES, Kernel, State

if TYPE_CHECKING:
    from formats.levels import Level
    from formats.tensor import Tensor


@dataclass(frozen=True)
class Port:
    """A typed block port: ``kind`` is the stream kind, ``comment`` tells same-kind ports apart.

    A ``feedback`` input may close a cycle of the graph (coordinate skipping, SAM Sec. 4.2): the
    block reads it only to learn what has arrived by the cycle it fires in, never waiting for a
    token on it (docs/timing-model.md, "Feedback edges").
    """

    kind: str
    comment: str = ""
    optional: bool = False
    feedback: bool = False

    @property
    def name(self) -> str:
        return f"{self.kind}:{self.comment}" if self.comment else self.kind


@lru_cache(maxsize=4096)
def _changed(port: Port, items: tuple[tuple[str, object], ...]) -> Port:
    """``port`` with the fields ``items`` changed (ports are frozen: one copy serves every
    block asking for the same change; elaborating a graph of lanes lists ports thousands of
    times)."""
    return replace(port, **dict(items))


class Ports:
    """Named ports of a block family's kernel, numbered once (as a
    :class:`~sam.runtime.kernel.State` numbers state slots).

    ``Ports.inputs(ref=Port("ref"), repsig=Port("repsig"))`` numbers a kernel's input ports 0,
    1, ... in the order given (:meth:`outputs` its output ports). Kernels index ``ins`` and name
    output ports with module-level int constants unpacked from :attr:`slots` (``REF_IN,
    REPSIG_IN = REPEAT_IN.slots``; numba sees plain ints); blocks list their ports with
    :meth:`ports`, so kernel and block cannot disagree on the order. The last port may stand
    for a run of like ports (one per operand or kept level: ``ins[CRD_IN + d]``).
    """

    def __init__(self, direction: str, ports: Mapping[str, Port]) -> None:
        self.direction = direction
        self.declared: dict[str, Port] = dict(ports)
        self.index: dict[str, int] = {name: k for k, name in enumerate(self.declared)}

    @classmethod
    def inputs(cls, **ports: Port) -> Ports:
        """A kernel's input ports, by name, in ``ins`` order."""
        return cls("in", ports)

    @classmethod
    def outputs(cls, **ports: Port) -> Ports:
        """A kernel's output ports, by name, in port order."""
        return cls("out", ports)

    @property
    def slots(self) -> tuple[int, ...]:
        """The number of every port, in declaration order (unpack into kernel constants)."""
        return tuple(self.index.values())

    def __getitem__(self, name: str) -> int:
        return self.index[name]

    def __len__(self) -> int:
        return len(self.declared)

    def ports(self, **changes: Mapping[str, object] | Sequence[Port]) -> list[Port]:
        """The ports in order. ``name={"optional": True}`` changes fields of port ``name``;
        ``name=[...]`` puts a run of ports in its place (the last port only, so that the
        others keep their numbers)."""
        unknown = set(changes) - set(self.declared)
        if unknown:
            raise ValueError(f"no port {', '.join(sorted(unknown))}; declared: "
                             f"{', '.join(self.declared)}")
        out: list[Port] = []
        last = len(self.declared) - 1
        for k, (name, port) in enumerate(self.declared.items()):
            change = changes.get(name)
            if change is None:
                out.append(port)  # ports are frozen: shared, not copied
            elif isinstance(change, Mapping):
                out.append(_changed(port, tuple(change.items())))
            elif k == last:
                out.extend(change)
            else:
                raise ValueError(f"port {name!r} is not the last one: a run in its place "
                                 f"would renumber the ports after it")
        return out


EMPTY_I = np.zeros(1, np.int64)
EMPTY_F = np.zeros(1, np.float64)
#: Initial length of the buffers a block fills (they double when full, see ``need_memory``).
INITIAL_LENGTH = 64
#: The memory argument names of a block without a kernel (unused placeholders).
NO_MEMORIES = ("m0", "m1", "m2", "m3", "f0", "f1")


class Memories:
    """The arrays a kernel reads or writes, by its argument names (:attr:`Kernel.memories`):
    ``INT_MEMORIES`` int64 arrays, then ``FLOAT_MEMORIES`` float64 ones; those not given stay
    1-element placeholders."""

    def __init__(self, names: Sequence[str], arrays: Mapping[str, np.ndarray] | None = None
                 ) -> None:
        self.names = tuple(names)
        self.arrays: list[np.ndarray] = [EMPTY_I] * INT_MEMORIES + [EMPTY_F] * FLOAT_MEMORIES
        for name, arr in (arrays or {}).items():
            k = self.index(name)
            want = np.int64 if k < INT_MEMORIES else np.float64
            if not isinstance(arr, np.ndarray) or arr.dtype != want or arr.ndim != 1:
                raise TypeError(f"memory {name!r} must be a 1-D {np.dtype(want)} array")
            self.arrays[k] = arr

    def index(self, name: str) -> int:
        """Argument position of memory ``name`` (0..3 int64, 4..5 float64)."""
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(f"no memory {name!r}; the kernel's memories are "
                           f"{', '.join(self.names)}") from None

    def __getitem__(self, name: str) -> np.ndarray:
        return self.arrays[self.index(name)]

    def args(self) -> tuple[np.ndarray, ...]:
        return tuple(self.arrays)

    def grow(self, which: int | str) -> None:
        """Double memory ``which`` (position or name), keeping its contents."""
        k = self.index(which) if isinstance(which, str) else which
        old = self.arrays[k]
        new = np.zeros(max(16, 2 * len(old)), old.dtype)
        new[: len(old)] = old
        self.arrays[k] = new


class Block:
    """A node of a SAM graph (see module docstring)."""

    dot_type: ClassVar[str] = ""
    family: ClassVar[str] = "misc"
    kernel: ClassVar[Kernel | None] = None
    #: The kernel's named state slots (shared by a family's kernels) and float state.
    state: ClassVar[State] = State()
    float_state: ClassVar[State] = State.floats()
    #: Messages for the kernel's error codes (``st[ERR]``).
    errors: ClassVar[dict[int, str]] = {}
    #: Attributes this block type requires in the DOT file.
    required_attrs: ClassVar[tuple[str, ...]] = ()
    #: Whether ``root=true`` may replace the ``ref`` input with the root stream ``0, D``.
    reads_root: ClassVar[bool] = False
    #: The kernel's input and output ports by name (:meth:`inputs`, :meth:`outputs` list them
    #: unless a block's ports depend on its attributes).
    input_ports: ClassVar[Ports] = Ports.inputs()
    output_ports: ClassVar[Ports] = Ports.outputs()
    #: Whether the block takes wide streams (``width``/``stream_width``, :mod:`sam.sim.widths`).
    widenable: ClassVar[bool] = False

    def __init__(self, node_id: str, attrs: Mapping[str, str] | None = None) -> None:
        self.id = str(node_id)
        self.attrs: dict[str, str] = dict(attrs or {})
        missing = [a for a in self.required_attrs if not self.attrs.get(a)]
        if missing:
            raise GraphError(
                f"node {self.id} ({self.dot_type}) lacks attribute(s) {', '.join(missing)}; "
                f"add them, e.g. {missing[0]}=\"...\""
            )

    # -- ports ---------------------------------------------------------------------------------
    def inputs(self) -> list[Port]:
        return self.input_ports.ports()

    def outputs(self) -> list[Port]:
        return self.output_ports.ports()

    def port_named(self, direction: str, name: str) -> Port | None:
        """The input (``direction="in"``) or output port called ``name`` (``"ref:out-B"``), or
        None. Blocks with many ports (lanes) answer without listing them all."""
        ports = self.inputs() if direction == "in" else self.outputs()
        return next((p for p in ports if p.name == name), None)

    def find_port(self, direction: str, kind: str, comment: str) -> Port | None:
        """The port a DOT edge of ``kind`` with ``comment`` attaches to on this block."""
        ports = [p for p in (self.inputs() if direction == "in" else self.outputs())
                 if p.kind == kind]
        if len(ports) == 1:
            return ports[0]
        for p in ports:
            if p.comment == comment:
                return p
        alias = self.port_alias(direction, kind, comment)
        return next((p for p in ports if p.comment == alias), None)

    def port_alias(self, direction: str, kind: str, comment: str) -> str:
        """Another spelling of a port comment (hook for blocks with legacy edge comments)."""
        return comment

    @property
    def is_root(self) -> bool:
        """Reads the root reference stream ``0, D`` instead of an input edge (``root=true``)."""
        return self.reads_root and self.attrs.get("root", "false") == "true"

    # -- simulation ----------------------------------------------------------------------------
    @property
    def tensor(self) -> str | None:
        """The tensor this block reads or writes, if any."""
        return self.attrs.get("tensor") or None

    def reads(self) -> list[str]:
        """The input tensors this block reads (its ``tensor``; more for a TMU)."""
        return [self.tensor] if self.tensor and self.family != "write" else []

    def details(self, st: np.ndarray, mem: Memories) -> dict[str, int]:
        """Block-specific statistics after a run, by name (a TMU's per TU, queue and lane)."""
        return {}

    def results(self, st: np.ndarray, mem: Memories, tensors: Mapping[str, Tensor]
                ) -> dict[str, Tensor]:
        """Output tensors a block other than the level writers builds itself (an execute
        block's dense result), by name."""
        return {}

    def params(self, tensors: Mapping[str, Tensor]) -> dict[str, int]:
        """Initial values of :attr:`state` slots, by name (the others keep their declared
        initial values)."""
        return {}

    def memories(self, tensors: Mapping[str, Tensor]) -> dict[str, np.ndarray]:
        """The arrays the kernel needs, by its argument names (from the bound tensors, or fresh
        buffers for blocks that fill them)."""
        return {}

    def initial_state(self, tensors: Mapping[str, Tensor]
                      ) -> tuple[np.ndarray, np.ndarray, Memories]:
        """The kernel's int64 and float64 state, parameters placed, and its memories."""
        names = self.kernel.memories if self.kernel is not None else NO_MEMORIES
        return (self.state.initial(self.params(tensors)), self.float_state.initial({}),
                Memories(names, self.memories(tensors)))

    def timing_params(self, timing: str) -> dict[str, int]:
        """Kernel state slots (by name) that a timing model other than ``sam`` sets
        (docs/timing-model.md); none by default."""
        return {}

    def timing_latency(self, timing: str) -> int:
        """The block's latency (docs/timing-model.md, rule 2) when ``--latency`` does not set
        it: 1, or what the timing model ``timing`` charges for this block (rule 9)."""
        return 1

    def grow_memory(self, mem: Memories, which: int) -> None:
        """Enlarge memory ``which`` (argument position) when the kernel asks (RC_GROW)."""
        mem.grow(which)

    def declare_port(self, direction: str, kind: str, comment: str) -> None:
        """Hook: a block whose ports depend on its edges learns them here (DOT reader)."""

    def min_input_depths(self) -> dict[str, int]:
        """Input ports whose FIFO must hold more than one token when FIFOs are bounded (the
        block holds a token there until one that depends on the next token of a sibling
        stream arrives); Custard writes them as ``mindepth`` edge attributes
        (:mod:`sam.graph.fifos`)."""
        return {}

    def ignored_inputs(self) -> list[str]:
        """Input ports whose tokens the block discards (the engine never bounds them)."""
        return []

    def unbounded_inputs(self) -> list[str]:
        """Input ports the engine never bounds with ``--fifo-depth``: the discarded ones, and
        a block's own buffers (a serializer's reorder queues, docs/lanes.md)."""
        return self.ignored_inputs()

    def error_text(self, code: int, st: np.ndarray) -> str:
        """What the kernel's error ``code`` means (``st``: its state, for details)."""
        return self.errors.get(code, f"error {code}")

    def picture_lines(self) -> list[str]:
        """Lines a picture writes in this block's node instead of its label (none: the label;
        a TMU lists its layers)."""
        return []

    def label(self) -> str:
        """Short human-readable label for pictures and reports."""
        bits = [self.dot_type]
        for key in ("index", "tensor", "mode"):
            if self.attrs.get(key):
                bits.append(f"{key}={self.attrs[key]}")
        return " ".join(bits)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id}: {self.label()}>"


class LevelBlock(Block):
    """A block bound to one level of a tensor by its ``tensor`` and ``mode`` attributes (level
    scanners, locators, level writers)."""

    required_attrs: ClassVar[tuple[str, ...]] = ("tensor", "mode")
    #: What the ``mode`` attribute may be, for the error message.
    mode_hint: ClassVar[str] = "a tensor mode number"
    #: How the error message says this block uses its level ("scans", "locates into").
    level_verb: ClassVar[str] = "uses"

    @property
    def mode(self) -> int:
        """The tensor mode this block's level stores."""
        try:
            return int(self.attrs["mode"])
        except ValueError:
            raise GraphError(f"node {self.id} ({self.dot_type}): mode={self.attrs['mode']!r} "
                             f"is not {self.mode_hint}") from None

    def level_of(self, tensor: Tensor) -> Level:
        """The level of ``tensor`` that stores this block's mode."""
        mode = self.mode
        if not 0 <= mode < tensor.order:
            raise GraphError(f"node {self.id} {self.level_verb} mode {mode} of {self.tensor}, "
                             f"which has order {tensor.order}")
        return tensor.level_of_mode(mode)

    def walked_level(self, tensor: Tensor) -> Level:
        """The level this block walks for its mode: the stored one, or the deduplicated view of a
        non-unique level and the singletons below it (:func:`formats.levels.walk_levels`)."""
        self.level_of(tensor)
        try:
            return tensor.walked_level_of_mode(self.mode)
        except FormatError as err:
            raise GraphError(f"node {self.id} {self.level_verb} {self.tensor}: {err}") from None


#: DOT node type -> block class. Filled by :mod:`sam.graph.registry` (the one list of every
#: block type); kept here so that code building graphs (:mod:`sam.graph.builder`, which compound
#: blocks use) needs no import of the registry, which imports the compound blocks.
BLOCK_TYPES: dict[str, type[Block]] = {}


def make_block(node_id: str, dot_type: str, attrs: Mapping[str, str]) -> Block:
    """Instantiate the block class registered for ``dot_type``."""
    cls = BLOCK_TYPES.get(dot_type)
    if cls is None:
        if not BLOCK_TYPES:
            raise GraphError("no block types are registered; import sam.graph.registry")
        known = ", ".join(sorted(BLOCK_TYPES))
        raise GraphError(f"node {node_id} has unknown type {dot_type!r}; known types: {known}")
    return cls(node_id, attrs)
