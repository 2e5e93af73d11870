"""The TMU's program: its configuration encoded as one flat int64 array for the kernel.

A :class:`~sam.blocks.tmu_config.TmuConfig` becomes ``prog``: a header, then one record per
layer, per TU, per stream and per marshaling rule, an event table and the bound arrays. Each
kind of record is a :class:`Record` whose fields are numbered once here: the kernel
(:mod:`sam.blocks.tmu`) reads ``prog[sr + SR_DELAY]``, :func:`compile_config` writes the same
names. The kernel's working memory ``work`` (TU cursors, masks, statistics, last arrivals) is
laid out the same way, and ``vals`` holds the streams' values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from formats.tensor import Tensor
from sam.blocks.tmu_config import (
    EVENTS,
    Alu,
    DenseTU,
    Fwd,
    Mem,
    TmuConfig,
    resolve_array,
    resolve_size,
)


class Record:
    """Named fields of one kind of record in a flat int array, numbered once.

    ``Record("kind", "lanes")`` numbers its fields 0, 1, ... in the order given; ``size`` (at
    least the field count) leaves spare slots at the end. Kernels index records with
    module-level int constants unpacked from :attr:`fields` (numba sees plain ints); the
    program's builder fills a record by name with :meth:`encode`.
    """

    def __init__(self, *names: str, size: int = 0) -> None:
        self.names = names
        self.size = max(size, len(names))

    @property
    def fields(self) -> tuple[int, ...]:
        """The offset of every field, in declaration order (unpack into kernel constants)."""
        return tuple(range(len(self.names)))

    def encode(self, **values: int) -> list[int]:
        """One record: the named fields' values, 0 for the fields not given."""
        rec = [0] * self.size
        for name, value in values.items():
            if name not in self.names:
                raise ValueError(f"no field {name!r}; declared: {', '.join(self.names)}")
            rec[self.names.index(name)] = int(value)
        return rec


#: The program's header: counts, where each table starts in ``prog``, where each part of
#: ``work`` starts.
HEAD = Record("layers", "streams", "tus", "lanes", "mode", "layer_at", "tu_at", "stream_at",
              "rule_at", "event_at", "array_at", "work_mask", "work_stat", "work_last", "ports",
              "work_step")
(H_L, H_S, H_NT, H_W, H_MODE, H_OFF_LAYER, H_OFF_TU, H_OFF_STREAM, H_OFF_RULE, H_OFF_EV,
 H_OFF_ARR, H_W_MASK, H_W_STAT, H_W_LAST, H_NPORTS, H_W_STEP) = HEAD.fields
HEADER = HEAD.size

#: A layer: its kind (``LAYER_CODES``), lanes, its TUs and its streams (first, count).
LAYER = Record("kind", "lanes", "first_tu", "tus", "first_stream", "streams")
LY_KIND, LY_LANES, LY_FIRST_TU, LY_TUS, LY_FIRST_STREAM, LY_STREAMS = LAYER.fields
#: A TU: its layer, dense (1) or range (0), its bounds (encoded operands), step, its stream.
TU = Record("layer", "dense", "lo_kind", "lo", "hi_kind", "hi", "step", "stream")
TU_LAYER, TU_DENSE, TU_LO_KIND, TU_LO, TU_HI_KIND, TU_HI, TU_STEP, TU_STREAM = TU.fields
#: A stream: its type (``S_TU`` ...), layer, operands ``a`` and ``b`` (encoded), an ``alu``
#: stream's op (``OPS``) or a ``mem`` stream's array (``SR_ARRAY``, the same field), the TU
#: whose mask it takes, the cycles its tokens are delayed by ``mem`` latencies, whether it
#: carries values (floats).
STREAM = Record("type", "layer", "a_kind", "a", "b_kind", "b", "op", "tu", "delay", "floats")
(SR_TYPE, SR_LAYER, SR_A_KIND, SR_A, SR_B_KIND, SR_B, SR_OP, SR_TU, SR_DELAY,
 SR_FLOATS) = STREAM.fields
SR_ARRAY = SR_OP
#: A marshaling rule: its type (``R_OPERAND``, ``R_TOKEN``), its stream or token id, vector (1).
RULE = Record("type", "arg", "vector", size=4)
RU_TYPE, RU_ARG, RU_VECTOR = RULE.fields
#: The event table, per layer and event (``EVENTS``): its rules (first, end).
EVENT = Record("first_rule", "end_rule")
EV_FIRST_RULE, EV_END_RULE = EVENT.fields
EV_BEG, EV_ITE, EV_END = range(len(EVENTS))
EVENTS_PER_LAYER = len(EVENTS)
#: A bound array: where it starts in ``pool``, its size.
ARRAY = Record("base", "size")
AR_BASE, AR_SIZE = ARRAY.fields

# Stream types, operand kinds (a literal, a stream of the same layer, of an outer one), ALU
# ops, layer kinds, rule types, modes.
S_TU, S_MEM, S_ALU, S_FWD = 0, 1, 2, 3
K_LIT, K_SAME, K_OUTER = 0, 1, 2
OPS = {"+": 0, "-": 1, "*": 2, "/": 3, "%": 4, "min": 5, "max": 6}
LAYER_CODES = {"single": 0, "lockstep": 1, "bcast": 2}
L_SINGLE, L_LOCKSTEP, L_BCAST = 0, 1, 2
R_OPERAND, R_TOKEN = 0, 1
MODE_DAE, MODE_SAM = 0, 1

# Work (int64): per TU its cursor and bounds; per layer whether it stepped in the current
# fiber (``ITERATED``); masks (per stream and lane) from H_W_MASK; statistics from H_W_STAT:
# per TU, the queues, per lane; per port the last arrival from H_W_LAST; per layer the cycle of
# its last step from H_W_STEP.
TU_WORK = Record("cur", "lo", "hi")
W_CUR, W_LO, W_HI = TU_WORK.fields
TU_STAT = Record("iterations", "fibers")
N_ITERATIONS, N_FIBERS = TU_STAT.fields
QUEUE_STAT = Record("ctrl_entries", "data_entries", "ctrl_stalls", "data_stalls")
Q_CTRL_N, Q_DATA_N, Q_CTRL_STALL, Q_DATA_STALL = QUEUE_STAT.fields
LANE_STAT = Record("active", "masked")
N_ACTIVE, N_MASKED = LANE_STAT.fields
#: Size of a record, as a kernel constant.
LREC, TREC, SREC, RREC, EREC, AREC = (r.size for r in (LAYER, TU, STREAM, RULE, EVENT, ARRAY))
WREC, TSTAT, QSTAT, LSTAT = (r.size for r in (TU_WORK, TU_STAT, QUEUE_STAT, LANE_STAT))
#: Steps of the innermost layer the kernel's chunk path computes at a time (scratch in
#: ``vals``).
CHUNK = 256


@dataclass
class Compiled:
    """A configuration encoded for the kernel."""

    prog: np.ndarray
    work: np.ndarray
    pool: np.ndarray
    vals: np.ndarray


def compile_config(cfg: TmuConfig, tensors: Mapping[str, Tensor], where: str = "tmu"
                   ) -> Compiled:
    """Encode ``cfg`` (checked against ``tensors``) as the kernel's program and memories."""
    cfg.check(tensors, where)
    streams = cfg.all_streams()
    index = {name: k for k, (name, _, _) in enumerate(streams)}
    layer_of = {name: lay for name, lay, _ in streams}
    tus = cfg.tus()
    tu_index = {tu.name: k for k, tu in enumerate(tus)}
    tu_layer = cfg.layer_of_tu()
    decl = {s.name: s for s in cfg.streams}
    nl, ns, nt, nw = len(cfg.layers), len(streams), len(tus), cfg.lanes()

    arrays: list[np.ndarray] = []
    array_ids: dict[str, int] = {}
    for s in cfg.streams:
        if isinstance(s, Mem) and s.array not in array_ids:
            array_ids[s.array] = len(arrays)
            arrays.append(np.asarray(resolve_array(s.array, tensors, where), np.float64))

    def enc(v: object, layer: int) -> tuple[int, int]:
        if isinstance(v, int):
            return K_LIT, v
        if isinstance(v, str) and v in index:
            return (K_SAME if layer_of[v] == layer else K_OUTER), index[v]
        return K_LIT, resolve_size(str(v), tensors, where)

    delay: dict[str, int] = {}
    srecs = []
    for name, lay, kind in streams:
        fields = {"layer": lay, "floats": 1 if kind == "val" else 0}
        if name in tu_index:
            fields.update(type=S_TU, tu=tu_index[name])
            delay[name] = 0
        else:
            s = decl[name]
            fields["tu"] = tu_index[s.tu]
            if isinstance(s, Mem):
                a_kind, a = enc(s.index, lay)
                fields.update(type=S_MEM, a_kind=a_kind, a=a, op=array_ids[s.array])  # SR_ARRAY
                delay[name] = s.latency - 1 + delay.get(str(s.index), 0)
            elif isinstance(s, Alu):
                a_kind, a = enc(s.a, lay)
                b_kind, b = enc(s.b, lay)
                fields.update(type=S_ALU, a_kind=a_kind, a=a, b_kind=b_kind, b=b, op=OPS[s.op])
                delay[name] = max(delay.get(str(s.a), 0), delay.get(str(s.b), 0))
            elif isinstance(s, Fwd):
                fields.update(type=S_FWD, a_kind=K_OUTER, a=index[s.src])
                delay[name] = delay.get(s.src, 0)
        srecs.append(STREAM.encode(**fields, delay=delay[name]))

    lrecs = []
    for k, layer in enumerate(cfg.layers):
        members = [i for i, (_, lay, _) in enumerate(streams) if lay == k]
        lrecs.append(LAYER.encode(kind=LAYER_CODES[layer.kind], lanes=layer.lanes,
                                  first_tu=tu_index[layer.tus[0].name], tus=len(layer.tus),
                                  first_stream=members[0], streams=len(members)))
    trecs = []
    for tu in tus:
        dense = isinstance(tu, DenseTU)
        lo_kind, lo = enc(tu.lo, -1) if dense else (K_OUTER, index[str(tu.lo)])
        hi_kind, hi = enc(tu.hi, -1) if dense else (K_OUTER, index[str(tu.hi)])
        trecs.append(TU.encode(layer=tu_layer[tu.name], dense=1 if dense else 0,
                               lo_kind=lo_kind, lo=lo, hi_kind=hi_kind, hi=hi, step=tu.step,
                               stream=index[tu.name]))

    ids = cfg.token_ids()
    rules: list[tuple[int, int, list[int]]] = []
    order = 0
    for rule in [*cfg.operands, *cfg.tokens]:
        ev = EVENTS.index(rule.event)
        if hasattr(rule, "stream"):
            body = RULE.encode(type=R_OPERAND, arg=index[rule.stream],
                               vector=1 if rule.vector else 0)
        else:
            body = RULE.encode(type=R_TOKEN, arg=ids[rule.id])
        rules.append((tu_layer[rule.tu] * EVENTS_PER_LAYER + ev, order, body))
        order += 1
    rules.sort(key=lambda r: (r[0], r[1]))
    erecs = []
    for key in range(nl * EVENTS_PER_LAYER):
        members = [i for i, r in enumerate(rules) if r[0] == key]
        erecs.append(EVENT.encode(first_rule=members[0], end_rule=members[-1] + 1)
                     if members else EVENT.encode())
    arecs = []
    offset = 0
    for arr in arrays:
        arecs.append(ARRAY.encode(base=offset, size=len(arr)))
        offset += len(arr)

    tables = [(LAYER, lrecs), (TU, trecs), (STREAM, srecs), (RULE, [r[2] for r in rules]),
              (EVENT, erecs), (ARRAY, arecs)]
    at = [HEADER]
    for record, recs in tables:
        at.append(at[-1] + record.size * len(recs))
    prog = np.zeros(at[-1], np.int64)
    nports = ns if cfg.mode == "sam" else 2
    w_mask = WREC * nt + nl
    w_stat = w_mask + ns * nw
    w_last = w_stat + TSTAT * nt + QSTAT + LSTAT * nw
    prog[:HEADER] = HEAD.encode(
        layers=nl, streams=ns, tus=nt, lanes=nw, mode=MODE_SAM if cfg.mode == "sam" else MODE_DAE,
        layer_at=at[0], tu_at=at[1], stream_at=at[2], rule_at=at[3], event_at=at[4],
        array_at=at[5], work_mask=w_mask, work_stat=w_stat, work_last=w_last, ports=nports,
        work_step=w_last + nports)
    for base, (record, recs) in zip(at[:-1], tables, strict=True):
        for k, rec in enumerate(recs):
            prog[base + k * record.size: base + (k + 1) * record.size] = rec
    pool = np.concatenate(arrays) if arrays else np.zeros(1, np.float64)
    work = np.zeros(w_last + nports + nl, np.int64)
    work[w_last + nports:] = -2  # the cycle of each layer's last step: none yet
    # vals: each stream's current value per lane, then CHUNK values per stream for
    # chunk_steps
    return Compiled(prog, work, pool, np.zeros(max(1, ns * nw) + ns * CHUNK, np.float64))
