"""Recording an :class:`~sam.dae.trace.AccessTrace`: a dae-mode TMU run (its loads and queue
pushes, in order) and the cost of each execute-program section (Ember paper Sec. 3.1, 4).

The TMU's own traversal code walks the configuration (:mod:`sam.dae.walk`), so the trace's
control tokens and data entries are the ones :func:`sam.blocks.tmu.queue_trace` decodes, in the
same order. Memory: the ``mem`` streams' arrays, in the order the configuration first loads
them, laid out one after the other from address 0, each at a 64-byte line boundary. A value
array (``T.vals`` whose loads are only pushed, Ember's FP32 tables and weights) takes
``value_bytes`` per element; an array whose loads compute addresses or bounds (``T.K.seg``,
``T.K.crd``, and ``T.vals`` of Ember's dense index memrefs) ``index_bytes`` (i64 in Ember's scf
code). A pushed scalar takes the bytes of its stream's values (a TU or ``alu`` stream:
``index_bytes``), a vector its layer's lanes times that, a control token ``index_bytes`` (its
callback id).

Section costs are counted from the execute program's statements (``Program.sections``): pops,
arithmetic (``x = a OP b``, ``max``/``min``, ``sum``, copies), updates of the output (``+=``,
``max=``, ``min=``: read-modify-write) and plain stores (``out[..] = x``); scalar or vector as
the operands are. A pop is a vector when the TMU pushes a vector there (the rule's ``vector``;
the same in every run of the section, checked), a register when any statement setting it gives
a vector. Unrolled loops (Ember's lowering unrolls static ``scf.for``) count per iteration.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from formats.tensor import Tensor
from sam.blocks.execute import (
    LOAD,
    MOV,
    OUT_ADD,
    OUT_MIN,
    OUT_SET,
    POP,
    ST_ADD,
    ST_SET,
    SUM,
    VLOAD,
    Program,
)
from sam.blocks.tmu_config import Alu, Fwd, Mem, RangeTU, TmuConfig
from sam.blocks.tmu_program import AR_SIZE, ARRAY, H_OFF_ARR, compile_config
from sam.dae.trace import CTRL, DATA, AccessTrace, ArrayInfo, SectionCost
from sam.dae.walk import walk, walk_jit
from sam.errors import GraphError, SimulationError

ENGINES = ("reference", "fast")
#: Line size the arrays are aligned to (bytes).
LINE = 64


def record(cfg: TmuConfig, tensors: Mapping[str, Tensor], program: str | Program, *,
           value_bytes: int = 4, index_bytes: int = 8, engine: str = "fast") -> AccessTrace:
    """The access trace of the dae-mode TMU ``cfg`` on ``tensors`` feeding the execute
    ``program`` (its text as ``tmu_graph`` takes it, token names as the TMU's, or a parsed
    :class:`~sam.blocks.execute.Program`); ``engine`` ``fast`` (numba) or ``reference``
    (plain Python) give the same trace."""
    if cfg.mode != "dae":
        raise GraphError("record needs a TMU in dae mode (mode='dae'): a sam-mode TMU has no "
                         "queues")
    if engine not in ENGINES:
        raise GraphError(f"unknown engine {engine!r}; use reference or fast")
    if value_bytes < 1 or index_bytes < 1:
        raise GraphError("value_bytes and index_bytes must be >= 1")
    ids = cfg.token_ids()
    if isinstance(program, str):
        program = Program(program, {k: v for k, v in ids.items() if isinstance(k, str)},
                          "record")
    order = sorted(ids.items(), key=lambda kv: kv[1])
    missing = [str(name) for name, tid in order if tid not in program.sections]
    if missing:
        raise GraphError(f"record: the program has no section for control token(s) "
                         f"{', '.join(missing)} of the TMU; give each token a section")
    sec_of_id = np.full(max(ids.values(), default=0) + 1, -1, np.int16)
    for k, (_, tid) in enumerate(order):
        sec_of_id[tid] = k

    c = compile_config(cfg, tensors, "record")
    arrays = array_infos(cfg, c.prog, value_bytes, index_bytes)
    sbytes = stream_bytes(cfg, arrays, index_bytes)
    fn = walk if engine == "reference" else walk_jit
    cap = 1024
    (nld, npu, bad, la, lf, lc, lst, ld, lp, pq, pb, pd, ps, pv) = fn(
        c.prog, c.work, c.vals, c.pool, sbytes, sec_of_id, index_bytes, cap)
    if bad >= 0:
        name = cfg.all_streams()[bad][0]
        raise SimulationError(f"record: stream {name} reads outside its array (or divides by "
                              "0); check its index and the bound tensors")
    push_queue = pq[:npu].copy()
    push_section = ps[:npu].copy()
    sections = section_costs(program, [name for name, _ in order],
                             [tid for _, tid in order],
                             push_section[push_queue == CTRL][:-1],
                             pv[:npu][push_queue == DATA] == 1)
    return AccessTrace(
        arrays=arrays, load_array=la[:nld].copy(), load_first=lf[:nld].copy(),
        load_count=lc[:nld].copy(), load_step=lst[:nld].copy(), load_dep=ld[:nld].copy(),
        load_push=lp[:nld].copy(), push_queue=push_queue, push_bytes=pb[:npu].copy(),
        push_dep=pd[:npu].copy(), push_section=push_section, sections=sections,
        vlen=cfg.lanes())


# ---------------------------------------------------------------------- memory
def address_streams(cfg: TmuConfig) -> set[str]:
    """Streams whose values compute addresses or bounds: ``mem`` indices, ``alu`` operands,
    range TU bounds, and the sources of forwarded ones."""
    names = {s.name for s in cfg.streams} | {tu.name for tu in cfg.tus()}
    used: set[str] = set()
    for s in cfg.streams:
        if isinstance(s, Mem):
            used.add(str(s.index))
        elif isinstance(s, Alu):
            used |= {str(s.a), str(s.b)}
    for tu in cfg.tus():
        if isinstance(tu, RangeTU):
            used |= {str(tu.lo), str(tu.hi)}
    fwd = [s for s in cfg.streams if isinstance(s, Fwd)]
    grew = True
    while grew:
        grew = False
        for s in fwd:
            if s.name in used and s.src not in used:
                used.add(s.src)
                grew = True
    return used & names


def array_infos(cfg: TmuConfig, prog: np.ndarray, value_bytes: int, index_bytes: int
                ) -> list[ArrayInfo]:
    """The arrays the ``mem`` streams load, in the order the program numbers them (first load
    in ``cfg.streams``), their element bytes (module docstring) and line-aligned bases."""
    used = address_streams(cfg)
    names: list[str] = []
    index: set[str] = set()
    for s in cfg.streams:
        if isinstance(s, Mem):
            if s.array not in names:
                names.append(s.array)
            if s.name in used or not s.array.endswith(".vals"):
                index.add(s.array)
    out: list[ArrayInfo] = []
    base = 0
    for k, name in enumerate(names):
        length = int(prog[int(prog[H_OFF_ARR]) + k * ARRAY.size + AR_SIZE])
        size = index_bytes if name in index else value_bytes
        out.append(ArrayInfo(name, size, length, base))
        base += -(-max(1, length * size) // LINE) * LINE
    return out


def stream_bytes(cfg: TmuConfig, arrays: list[ArrayInfo], index_bytes: int) -> np.ndarray:
    """Bytes of one value of each stream (in the program's stream order): a ``mem`` stream its
    array's element, a ``fwd`` stream its source's, any other ``index_bytes``."""
    size = {a.name: a.element_bytes for a in arrays}
    decl = {s.name: s for s in cfg.streams}
    got: dict[str, int] = {}
    out = []
    for name, _, _ in cfg.all_streams():  # a fwd's source is in an outer layer: seen before
        s = decl.get(name)
        got[name] = (size[s.array] if isinstance(s, Mem) else
                     got[s.src] if isinstance(s, Fwd) else index_bytes)
        out.append(got[name])
    return np.array(out or [index_bytes], np.int64)


# ---------------------------------------------------------------------- sections
def section_costs(program: Program, names: list, ids: list[int], ctrl_sections: np.ndarray,
                  data_vector: np.ndarray) -> list[SectionCost]:
    """One :class:`SectionCost` per control token (``names[k]``, id ``ids[k]``), counted from
    ``program``; ``ctrl_sections``: the sections of the pushed control tokens in order (without
    ``done``), ``data_vector``: whether each data entry is a vector (module docstring)."""
    code = [program.sections[tid] for tid in ids]
    npops = np.array([sum(1 for ins in c if ins[0] == POP) for c in code], np.int64)
    per_token = npops[ctrl_sections] if len(ctrl_sections) else np.zeros(0, np.int64)
    if int(per_token.sum()) != len(data_vector):
        raise GraphError(f"record: the program pops {int(per_token.sum())} data entries over "
                         f"the run but the TMU pushes {len(data_vector)}; make each callback "
                         "pop the operands its token's rules push")
    start = np.cumsum(per_token) - per_token
    pop_vec: list[list[bool]] = []
    for k in range(len(ids)):
        runs = start[ctrl_sections == k]
        if len(runs) == 0 or npops[k] == 0:
            pop_vec.append([False] * int(npops[k]))
            continue
        flags = data_vector[runs[:, None] + np.arange(npops[k])[None, :]]
        if not (flags == flags[0]).all():
            raise GraphError(f"record: section {names[k]} pops a vector in some runs and a "
                             "scalar in others; a section's cost needs the same operands each "
                             "run")
        pop_vec.append([bool(x) for x in flags[0]])
    nregs = len(program.registers)
    vec = [False] * nregs

    def is_vec(x: int) -> bool:
        return x >= 0 and vec[x]

    changed = True
    while changed:  # a register is a vector when any statement setting it gives one
        changed = False
        for k, c in enumerate(code):
            p = 0
            for op, dst, a, b, _ in c:
                if op == POP:
                    v = pop_vec[k][p]
                    p += 1
                elif op in (LOAD, VLOAD):
                    v = op == VLOAD
                elif op >= OUT_ADD or op == SUM:
                    continue
                else:
                    v = is_vec(a) or (op != MOV and is_vec(b))
                if v and not vec[dst]:
                    vec[dst] = True
                    changed = True
    out: list[SectionCost] = []
    for k, c in enumerate(code):
        n = dict.fromkeys(("pops_scalar", "pops_vector", "alu_scalar", "alu_vector",
                           "rmw_scalar", "rmw_vector", "stores_scalar", "stores_vector",
                           "workspace_loads", "workspace_stores"), 0)
        p = 0
        for op, _, a, b, x in c:
            if op in (LOAD, VLOAD):  # core memory: a workspace or a read-only input (L1)
                n["workspace_loads"] += 1
                continue
            if op >= ST_ADD:  # W[..] op= x: a store, and for += / max= / min= a load and an op
                n["workspace_stores"] += 1
                if op != ST_SET:
                    n["workspace_loads"] += 1
                    n[f"alu_{'vector' if is_vec(x) else 'scalar'}"] += 1
                continue
            if op == POP:
                kind, v = "pops", pop_vec[k][p]
                p += 1
            elif op == OUT_SET:
                kind, v = "stores", is_vec(x)
            elif OUT_ADD <= op <= OUT_MIN:
                kind, v = "rmw", is_vec(x)
            else:
                kind, v = "alu", is_vec(a) or (op not in (MOV, SUM) and is_vec(b))
            n[f"{kind}_{'vector' if v else 'scalar'}"] += 1
        out.append(SectionCost(str(names[k]), **n))
    return out
