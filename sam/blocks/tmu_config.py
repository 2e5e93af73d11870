"""Configuration of a TMU block (Ember paper Sec. 4, Figure 10c; the TMU dialect's ``set_dns_tu``,
``set_rng_tu``, ``set_mem_str``, ``set_alu_str``, ``set_fwd_str``, ``set_*_layer``,
``set_operand``, ``set_control_token``).

A :class:`TmuConfig` holds layers of traversal units (TUs), streams, marshaling rules and the
output mode. :meth:`TmuConfig.check` rejects a bad configuration in one line
(:class:`~sam.errors.GraphError`); :meth:`TmuConfig.to_attrs` / :meth:`TmuConfig.from_attrs`
write and read it as DOT node attributes; :meth:`TmuConfig.compile` encodes it as the integer
program the kernel (:mod:`sam.blocks.tmu`) interprets. See docs/tmu.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from sam.errors import GraphError

if TYPE_CHECKING:
    from formats.tensor import Tensor

#: A stream operand: a stream name, an int, or a size symbol ``T.dimK``.
Value = str | int

EVENTS = ("beg", "ite", "end")
LAYER_KINDS = ("single", "lockstep", "bcast")
MODES = ("dae", "sam")
#: Most lanes of a TMU vector (``sam-sim tmu --lanes``, ``custard ember --vlen``): a vector is
#: one register of the execute core, and the largest vector registers of any ISA (RISC-V V,
#: VLEN = 65,536 bits) hold 1,024 64-bit lanes.
MAX_LANES = 1024
LANES_WHY = ("a vector is one register of the execute core, and the largest vector registers "
             "(RISC-V V, 65,536 bits) hold 1,024 64-bit lanes")
ALU_OPS = ("+", "-", "*", "/", "%", "min", "max")
SAM_KINDS = ("crd", "ref", "val")
#: The control token the TMU pushes after the traversal.
DONE_TOKEN = "done"
_SIZE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\.dim([0-9]+)$")
_ARRAY = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\.(?:vals|([0-9]+)\.(seg|crd))$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class DenseTU:
    """A TU over ``lo, lo+step, ... < hi`` (``set_dns_tu``); bounds are ints or ``T.dimK``."""

    name: str
    lo: Value
    hi: Value
    step: int = 1
    kind: str = "crd"


@dataclass(frozen=True)
class RangeTU:
    """A TU over ``lo .. hi-1`` where ``lo``/``hi`` are streams of an outer layer
    (``set_rng_tu``: a compressed level's ``seg[p] .. seg[p+1]``)."""

    name: str
    lo: Value
    hi: Value
    step: int = 1
    kind: str = "ref"


TU = DenseTU | RangeTU


@dataclass(frozen=True)
class Mem:
    """A memory stream (``set_mem_str``): ``array[index]`` in each iteration of ``tu``'s layer."""

    name: str
    tu: str
    array: str
    index: Value
    latency: int = 1
    kind: str = ""


@dataclass(frozen=True)
class Alu:
    """An integer ALU stream (``set_alu_str``): ``a op b``."""

    name: str
    tu: str
    op: str
    a: Value
    b: Value
    kind: str = "ref"


@dataclass(frozen=True)
class Fwd:
    """A forward stream (``set_fwd_str``): stream ``src`` of the layer outside ``tu``'s,
    repeated over each iteration of ``tu``'s layer (a SAM repeater)."""

    name: str
    tu: str
    src: str
    kind: str = ""


Stream = Mem | Alu | Fwd


@dataclass(frozen=True)
class Layer:
    """A layer (``set_single_layer`` / ``set_lockstep_layer`` / ``set_bcast_layer``)."""

    kind: str
    tus: list[TU]
    lanes: int = 1


@dataclass(frozen=True)
class Operand:
    """Push stream ``stream`` into the data queue at ``event`` of ``tu`` (``set_operand``)."""

    stream: str
    tu: str
    event: str
    vector: bool = False


@dataclass(frozen=True)
class Token:
    """Push control token ``id`` into the control queue at ``event`` of ``tu``
    (``set_control_token``)."""

    id: str | int
    tu: str
    event: str


@dataclass
class TmuConfig:
    """A TMU's layers, streams, marshaling rules and output mode (see module docstring)."""

    layers: list[Layer]
    streams: list[Stream] = field(default_factory=list)
    operands: list[Operand] = field(default_factory=list)
    tokens: list[Token] = field(default_factory=list)
    mode: str = "dae"

    # ------------------------------------------------------------------ queries
    def tus(self) -> list[TU]:
        return [tu for layer in self.layers for tu in layer.tus]

    def layer_of_tu(self) -> dict[str, int]:
        return {tu.name: k for k, layer in enumerate(self.layers) for tu in layer.tus}

    def all_streams(self) -> list[tuple[str, int, str]]:
        """Every stream (TU induction variables first in each layer, then declared streams, in
        order): (name, layer, SAM kind)."""
        where = self.layer_of_tu()
        out: list[tuple[str, int, str]] = []
        for k, layer in enumerate(self.layers):
            out += [(tu.name, k, tu.kind) for tu in layer.tus]
        out.sort(key=lambda s: s[1])
        decl = [(s.name, where.get(s.tu, -1), stream_kind(s)) for s in self.streams]
        merged: list[tuple[str, int, str]] = []
        for k in range(len(self.layers)):
            merged += [s for s in out if s[1] == k] + [s for s in decl if s[1] == k]
        return merged

    def token_ids(self) -> dict[str | int, int]:
        """Control token -> int id: ints as given, names numbered after the largest int."""
        ids: dict[str | int, int] = {}
        ints = [t.id for t in self.tokens if isinstance(t.id, int)]
        nxt = max(ints, default=-1) + 1
        for t in self.tokens:
            if t.id in ids:
                continue
            if isinstance(t.id, int):
                ids[t.id] = t.id
            else:
                ids[t.id] = nxt
                nxt += 1
        return ids

    def tensors(self) -> list[str]:
        """Tensors the configuration reads (arrays and size symbols)."""
        names: list[str] = []

        def add(v: object) -> None:
            if isinstance(v, str):
                m = _SIZE.match(v) or _ARRAY.match(v)
                if m and m.group(1) not in names:
                    names.append(m.group(1))

        for tu in self.tus():
            add(tu.lo)
            add(tu.hi)
        for s in self.streams:
            for v in _stream_args(s):
                add(v)
        return names

    def lanes(self) -> int:
        return max((layer.lanes for layer in self.layers), default=1)

    # ------------------------------------------------------------------ checks
    def check(self, tensors: Mapping[str, Tensor] | None = None, where: str = "tmu") -> None:
        """Raise a one-line :class:`GraphError` naming what is wrong and how to fix it."""
        def bad(msg: str) -> GraphError:
            return GraphError(f"{where}: {msg}")

        if self.mode not in MODES:
            raise bad(f"mode {self.mode!r} is not one of {', '.join(MODES)}")
        if not self.layers:
            raise bad("no layers; add at least one Layer with a TU")
        seen: dict[str, str] = {}
        for k, layer in enumerate(self.layers):
            if layer.kind not in LAYER_KINDS:
                raise bad(f"layer {k} has kind {layer.kind!r}; use one of "
                          f"{', '.join(LAYER_KINDS)}")
            if not isinstance(layer.lanes, int) or layer.lanes < 1:
                raise bad(f"layer {k} has {layer.lanes} lanes; a layer needs lanes >= 1")
            if not layer.tus:
                raise bad(f"layer {k} has no TU")
            if layer.kind != "lockstep" and len(layer.tus) != 1:
                raise bad(f"layer {k} ({layer.kind}) has {len(layer.tus)} TUs; a {layer.kind} "
                          "layer has one (use lockstep for several)")
            if layer.lanes > 1 and k != len(self.layers) - 1:
                raise bad(f"layer {k} has {layer.lanes} lanes but is not the innermost layer; "
                          "only the innermost layer may have several lanes")
            if layer.lanes > 1 and self.mode == "sam":
                raise bad(f"layer {k} has {layer.lanes} lanes; sam mode emits one token per "
                          "iteration: use lanes=1")
            for tu in layer.tus:
                _check_name(tu.name, "TU", where, seen)
                if not isinstance(tu.step, int) or tu.step < 1:
                    raise bad(f"TU {tu.name} has step {tu.step}; use a step >= 1")
        where_tu = self.layer_of_tu()
        layer_of: dict[str, int] = {tu.name: where_tu[tu.name] for tu in self.tus()}
        declared: list[str] = list(layer_of)
        for s in self.streams:
            _check_name(s.name, "stream", where, seen)
            if s.tu not in where_tu:
                raise bad(f"stream {s.name} is on TU {s.tu}, which no layer holds; TUs: "
                          f"{', '.join(where_tu)}")
            k = where_tu[s.tu]
            if isinstance(s, Fwd):
                if s.src not in layer_of:
                    raise bad(f"fwd stream {s.name} forwards {s.src}, which is not a stream "
                              "declared before it")
                if layer_of[s.src] != k - 1:
                    raise bad(f"fwd stream {s.name} (layer {k}) forwards {s.src} of layer "
                              f"{layer_of[s.src]}; a fwd stream forwards a stream of the layer "
                              f"just outside its own (layer {k - 1})")
            else:
                for v in _stream_args(s)[1:] if isinstance(s, Mem) else (s.a, s.b):
                    self._check_value(v, k, layer_of, f"stream {s.name}", bad, tensors)
                if isinstance(s, Alu) and s.op not in ALU_OPS:
                    raise bad(f"alu stream {s.name} has op {s.op!r}; use one of "
                              f"{' '.join(ALU_OPS)}")
            if isinstance(s, Mem):
                if not _ARRAY.match(s.array):
                    raise bad(f"mem stream {s.name} reads array {s.array!r}; name an array as "
                              "T.vals, T.K.seg or T.K.crd")
                if not isinstance(s.latency, int) or s.latency < 1:
                    raise bad(f"mem stream {s.name} has latency {s.latency}; use >= 1")
                if tensors is not None:
                    resolve_array(s.array, tensors, where)
            if s.kind and s.kind not in SAM_KINDS:
                raise bad(f"stream {s.name} has kind {s.kind!r}; use crd, ref or val")
            layer_of[s.name] = k
            declared.append(s.name)
        for k, layer in enumerate(self.layers):
            for tu in layer.tus:
                for bound in (tu.lo, tu.hi):
                    if isinstance(tu, RangeTU):
                        if not isinstance(bound, str) or bound not in layer_of:
                            raise bad(f"range TU {tu.name} is bounded by {bound!r}, which is not "
                                      "a stream; bound it by streams of an outer layer")
                        if layer_of[bound] >= k:
                            raise bad(f"range TU {tu.name} (layer {k}) is bounded by stream "
                                      f"{bound} of layer {layer_of[bound]}; a TU's bounds come "
                                      "from an outer layer")
                    else:
                        self._check_value(bound, 0, {}, f"dense TU {tu.name}", bad, tensors)
        for rule in [*self.operands, *self.tokens]:
            what = (f"operand {rule.stream}" if isinstance(rule, Operand)
                    else f"token {rule.id}")
            if rule.event not in EVENTS:
                raise bad(f"{what} is pushed on unknown event {rule.event!r} of TU {rule.tu}; "
                          f"events are {', '.join(EVENTS)}")
            if rule.tu not in where_tu:
                raise bad(f"{what} is pushed on an event of TU {rule.tu}, which no layer holds; "
                          f"TUs: {', '.join(where_tu)}")
            if isinstance(rule, Operand):
                if rule.stream not in layer_of:
                    raise bad(f"operand {rule.stream} is not a stream; streams: "
                              f"{', '.join(declared)}")
                if layer_of[rule.stream] > where_tu[rule.tu]:
                    raise bad(f"operand {rule.stream} (layer {layer_of[rule.stream]}) is pushed "
                              f"on an event of TU {rule.tu} (layer {where_tu[rule.tu]}); push a "
                              "stream of that layer or an outer one")
            elif isinstance(rule.id, str) and (rule.id == DONE_TOKEN or not _NAME.match(rule.id)):
                raise bad(f"control token {rule.id!r} must be an int or a name other than done")

    @staticmethod
    def _check_value(v: Value, k: int, layer_of: Mapping[str, int], what: str, bad,
                     tensors: Mapping[str, Tensor] | None) -> None:
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            raise bad(f"{what} uses {v!r}; use a stream name, an int or T.dimK")
        if isinstance(v, int):
            return
        m = _SIZE.match(v)
        if m:
            if tensors is not None:
                resolve_size(v, tensors, "tmu")
            return
        if v not in layer_of:
            raise bad(f"{what} uses {v!r}, which is not a stream declared before it, an int or "
                      "a size T.dimK")
        if layer_of[v] > k:
            raise bad(f"{what} (layer {k}) uses stream {v} of inner layer {layer_of[v]}; use "
                      "streams of its own layer or outer ones")

    # ------------------------------------------------------------------ DOT attributes
    def to_attrs(self) -> dict[str, str]:
        """The configuration as DOT node attributes (read back by :meth:`from_attrs`)."""
        layers = ";".join(f"{layer.kind}:{','.join(tu.name for tu in layer.tus)}:{layer.lanes}"
                          for layer in self.layers)
        tus = []
        for tu in self.tus():
            fn = "dense" if isinstance(tu, DenseTU) else "range"
            args = [str(tu.lo), str(tu.hi)] + ([str(tu.step)] if tu.step != 1 else [])
            suffix = _kind_suffix(tu.kind, default_kind(tu))
            tus.append(f"{tu.name}={fn}({','.join(args)})" + suffix)
        streams = []
        for s in self.streams:
            if isinstance(s, Mem):
                body = f"mem({s.array},{s.index}" + (f",{s.latency})" if s.latency != 1 else ")")
            elif isinstance(s, Alu):
                body = f"alu({s.op},{s.a},{s.b})"
            else:
                body = f"fwd({s.src})"
            default = "ref" if isinstance(s, Alu) else ""
            streams.append(f"{s.name}@{s.tu}={body}" + _kind_suffix(s.kind, default))
        attrs = {
            "mode": self.mode, "layers": layers, "tus": ";".join(tus),
            "streams": ";".join(streams),
            "operands": ";".join(f"{o.stream}:{o.tu}:{o.event}" + (":v" if o.vector else "")
                                 for o in self.operands),
            "tokens": ";".join(f"{t.id}:{t.tu}:{t.event}" for t in self.tokens),
        }
        return {k: v for k, v in attrs.items() if v}

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, str], where: str = "tmu") -> TmuConfig:
        """Read the DOT attributes :meth:`to_attrs` writes (one-line errors)."""
        def bad(msg: str) -> GraphError:
            return GraphError(f"{where}: {msg}")

        def items(key: str) -> list[str]:
            return [p.strip() for p in attrs.get(key, "").split(";") if p.strip()]

        tus: dict[str, TU] = {}
        for text in items("tus"):
            m = re.fullmatch(r"(\w+)=(dense|range)\(([^)]*)\)(?::(\w+))?", text)
            if not m:
                raise bad(f"tus entry {text!r} is not NAME=dense(lo,hi[,step]) or "
                          "NAME=range(lo,hi[,step])")
            args = [a.strip() for a in m.group(3).split(",")]
            if len(args) not in (2, 3):
                raise bad(f"tus entry {text!r} needs 2 or 3 arguments")
            step = _int(args[2], bad, text) if len(args) == 3 else 1
            klass = DenseTU if m.group(2) == "dense" else RangeTU
            kind = m.group(4) or default_kind(klass(m.group(1), 0, 0))
            tus[m.group(1)] = klass(m.group(1), _value(args[0]), _value(args[1]), step, kind)
        layers = []
        for text in items("layers"):
            parts = text.split(":")
            if len(parts) != 3:
                raise bad(f"layers entry {text!r} is not KIND:TU[,TU...]:LANES")
            names = [n.strip() for n in parts[1].split(",") if n.strip()]
            missing = [n for n in names if n not in tus]
            if missing:
                raise bad(f"layers entry {text!r} names TU {missing[0]}, which tus does not "
                          "define")
            layers.append(Layer(parts[0].strip(), [tus[n] for n in names],
                                _int(parts[2], bad, text)))
        streams: list[Stream] = []
        for text in items("streams"):
            m = re.fullmatch(r"(\w+)@(\w+)=(mem|alu|fwd)\(([^)]*)\)(?::(\w+))?", text)
            if not m:
                raise bad(f"streams entry {text!r} is not NAME@TU=mem(...), alu(...) or "
                          "fwd(...)")
            name, tu, fn, kind = m.group(1), m.group(2), m.group(3), m.group(5) or ""
            args = [a.strip() for a in m.group(4).split(",")]
            need = {"mem": (2, 3), "alu": (3,), "fwd": (1,)}[fn]
            if len(args) not in need:
                raise bad(f"streams entry {text!r}: {fn} takes {' or '.join(map(str, need))} "
                          "arguments")
            if fn == "mem":
                lat = _int(args[2], bad, text) if len(args) == 3 else 1
                streams.append(Mem(name, tu, args[0], _value(args[1]), lat, kind))
            elif fn == "alu":
                streams.append(Alu(name, tu, args[0], _value(args[1]), _value(args[2]),
                                   kind or "ref"))
            else:
                streams.append(Fwd(name, tu, args[0], kind))
        operands = []
        for text in items("operands"):
            parts = text.split(":")
            if len(parts) not in (3, 4) or (len(parts) == 4 and parts[3] != "v"):
                raise bad(f"operands entry {text!r} is not STREAM:TU:EVENT[:v]")
            operands.append(Operand(parts[0], parts[1], parts[2], len(parts) == 4))
        tokens = []
        for text in items("tokens"):
            parts = text.split(":")
            if len(parts) != 3:
                raise bad(f"tokens entry {text!r} is not ID:TU:EVENT")
            tid: str | int = int(parts[0]) if parts[0].lstrip("-").isdigit() else parts[0]
            tokens.append(Token(tid, parts[1], parts[2]))
        cfg = cls(layers, streams, operands, tokens, attrs.get("mode", "dae"))
        cfg.check(where=where)
        return cfg


# ---------------------------------------------------------------------- helpers
def default_kind(obj: TU | Stream) -> str:
    if isinstance(obj, DenseTU):
        return "crd"
    if isinstance(obj, RangeTU):
        return "ref"
    if isinstance(obj, Mem):
        return "val" if obj.array.endswith(".vals") else (
            "crd" if obj.array.endswith(".crd") else "ref")
    return "ref"


def stream_kind(s: Stream) -> str:
    """The SAM stream kind of a declared stream (its ``kind`` or the default)."""
    if s.kind:
        return s.kind
    if isinstance(s, Fwd):
        return "ref"
    return default_kind(s)


def _kind_suffix(kind: str, default: str) -> str:
    return f":{kind}" if kind and kind != default else ""


def _stream_args(s: Stream) -> tuple:
    if isinstance(s, Mem):
        return (s.array, s.index)
    if isinstance(s, Alu):
        return (s.a, s.b)
    return (s.src,)


def _check_name(name: str, what: str, where: str, seen: dict[str, str]) -> None:
    if not isinstance(name, str) or not _NAME.match(name):
        raise GraphError(f"{where}: {what} name {name!r} is not an identifier")
    if name in seen:
        raise GraphError(f"{where}: {what} {name} has the name of a {seen[name]}; names of TUs "
                         "and streams must be unique")
    seen[name] = what


def _value(text: str) -> Value:
    return int(text) if text.lstrip("-").isdigit() else text


def _int(text: str, bad, where: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise bad(f"{where!r}: {text!r} is not an integer") from None


def resolve_size(symbol: str, tensors: Mapping[str, Tensor], where: str) -> int:
    """The size ``T.dimK`` names in the bound tensors."""
    m = _SIZE.match(symbol)
    if m is None:
        raise GraphError(f"{where}: {symbol!r} is not a size T.dimK")
    t = tensors.get(m.group(1))
    if t is None:
        raise GraphError(f"{where}: size {symbol} names tensor {m.group(1)}, which is not bound; "
                         f"bind it (-t {m.group(1)}=...)")
    k = int(m.group(2))
    if not 0 <= k < t.order:
        raise GraphError(f"{where}: size {symbol}: tensor {m.group(1)} has order {t.order}")
    return int(t.shape[k])


def resolve_array(spec: str, tensors: Mapping[str, Tensor], where: str) -> np.ndarray:
    """The array ``T.vals`` / ``T.K.seg`` / ``T.K.crd`` names in the bound tensors."""
    m = _ARRAY.match(spec)
    if m is None:
        raise GraphError(f"{where}: array {spec!r} is not T.vals, T.K.seg or T.K.crd")
    t = tensors.get(m.group(1))
    if t is None:
        raise GraphError(f"{where}: array {spec} names tensor {m.group(1)}, which is not bound; "
                         f"bind it (-t {m.group(1)}=...)")
    if m.group(2) is None:
        return np.asarray(t.vals, np.float64)
    mode = int(m.group(2))
    if not 0 <= mode < t.order:
        raise GraphError(f"{where}: array {spec}: tensor {m.group(1)} has order {t.order}")
    arrays = t.level_of_mode(mode).memories()
    if m.group(3) not in arrays:
        raise GraphError(f"{where}: array {spec}: the level storing mode {mode} of "
                         f"{m.group(1)} ({t.format}) has no {m.group(3)} array; store it "
                         "compressed")
    return np.asarray(arrays[m.group(3)], np.int64)
