"""Ember's Table 1 embedding operations as TMU graphs (Ember paper Sec. 2.2, Table 1, Fig. 10),
and their numpy definitions: the one source of truth of each operation, which the Ember front end
(``custard.ember.ops``) uses too.

Every operation is a sparse-dense product (Sec. 4): a CSR matrix ``A`` (rows: segments /
vertices / queries; columns: embedding indices) selects rows of a dense table ``B``.

* ``sls``: SLS / EmbeddingBag, ``Z[i,:] = sum_{p in row i} B[idx[p], :]``;
* ``spmm``: weighted (GNN) SpMM, ``Z[i,:] = sum_p A.vals[p] * B[idx[p], :]``;
* ``gather``: sparse-attention block gather, ``Z[p*blk + t, :] = B[idx[p]*blk + t, :]`` for every
  selected key block ``p`` (a block of ``blk`` table rows) of every query block;
* ``mp``: message passing as Table 1 lists it (lookup the vertex vector and each neighbour's,
  multiply them, scale by the edge value, reduce into ``tmp``, multiply ``tmp`` by the vertex
  vector): ``Z[i,:] = X[i,:] * sum_{j in row i} A[i,j] * (X[i,:] * B[j,:])`` elementwise (``X``
  the vertex table, ``B`` the neighbour table; one table in Ember's code, ``X = B``);
* ``kg``: knowledge-graph TransE scoring, Table 1's "compute head-rel-tail norm": per triple
  ``(h, r, t)``, ``||E[h] + R[r] - E[t]||_1`` (the L1 norm of the OGB biokg/wikikg2 TransE
  baseline, ``torch.norm(head + relation - tail, p=1)``; ``gamma - norm`` is its score). As a
  TMU graph the triples are ``A``'s stored entries (head = row, tail = column, relation =
  value), ``B`` = ``E``, ``X`` = ``R``, one output row per entry.

:func:`build_op` gives ``(graph, tensors)``; :func:`reference` computes the result with numpy
(from :func:`segment_sum`, :func:`block_gather`, :func:`message_passing` and
:func:`transe_l1`); :func:`tmu_graph` joins any configuration to an execute block;
:func:`sam_graph` makes a ``sam``-mode TMU for SLS/SpMM feed a SAM reducer and writers.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from formats.tensor import Tensor
from sam.blocks.tmu_config import (
    Alu,
    DenseTU,
    Fwd,
    Layer,
    Mem,
    Operand,
    RangeTU,
    TmuConfig,
    Token,
)
from sam.errors import GraphError
from sam.graph.builder import GraphBuilder
from sam.graph.model import Graph

OPS = ("sls", "spmm", "gather", "mp", "kg")
#: Default formats of the operations' tensors (``A`` CSR, tables dense).
FORMATS = {"A": "ds", "B": "dd", "X": "dd"}


def tmu_graph(cfg: TmuConfig, *, out: str, shape: tuple[int, int], program: str,
              formats: Mapping[str, str] | None = None, init: float = 0.0,
              token_cost: int = 1, pop_cost: int = 1) -> Graph:
    """A graph of a ``dae``-mode TMU holding ``cfg`` whose queues feed an execute block running
    ``program`` into the dense output ``out`` of ``shape``."""
    import sam.graph.registry  # noqa: F401  (fills the block types)
    from formats.format import Format

    if cfg.mode != "dae":
        raise GraphError("tmu_graph joins a dae-mode TMU to an execute block; use mode='dae'")
    cfg.check()
    b = GraphBuilder()
    tmu = b.block("tmu", cfg.to_attrs())
    tokens = ",".join(f"{k}={v}" for k, v in cfg.token_ids().items() if isinstance(k, str))
    attrs = {"tensor": out, "dims": f"{shape[0]}x{shape[1]}", "program": program,
             "lanes": cfg.lanes()}
    if tokens:
        attrs["tokens"] = tokens
    if init != 0.0:
        attrs["init"] = repr(float(init))
    if token_cost != 1:
        attrs["token_cost"] = token_cost
    if pop_cost != 1:
        attrs["pop_cost"] = pop_cost
    ex = b.block("execute", attrs)
    b.link((tmu, "ctrl"), ex, "ctrl")
    b.link((tmu, "data"), ex, "data")
    graph = b.finish()
    for name, fmt in (formats or {}).items():
        graph.formats[name] = Format.parse(fmt) if isinstance(fmt, str) else fmt
    graph.formats.setdefault(out, Format.parse("dd"))
    return graph


# ---------------------------------------------------------------------- configurations
def _segments(streams: list, tu: str = "b") -> list:
    """``beg = seg[b]``, ``end = seg[b+1]`` of A's compressed mode 1."""
    return [
        Mem("beg", tu, array="A.1.seg", index=tu),
        Alu("nxt", tu, "+", tu, 1),
        Mem("end", tu, array="A.1.seg", index="nxt"),
        *streams,
    ]


def sls_config(mode: str = "dae", lanes: int = 1, weighted: bool = False) -> TmuConfig:
    """SLS (Figure 10c): batch TU ``b``, segment TU ``s`` over ``ptrs[b]..ptrs[b+1]``, element
    TU ``e`` over the embedding; O0 marshaling of Figure 10b (``b``, ``e``, value per ``ite``),
    plus the weight ``w`` per segment entry when ``weighted``."""
    streams = _segments([
        Mem("idx", "s", array="A.1.crd", index="s"),
        Alu("row", "s", "*", "idx", "B.dim1"),
        Alu("pos", "e", "+", "row", "e"),
        Mem("v", "e", array="B.vals", index="pos"),
    ])
    if mode == "sam":
        streams.insert(3, Mem("w", "s", array="A.vals", index="s"))
        streams += [Fwd("bs", "s", "b"), Fwd("be", "e", "bs")]
    ops: list[Operand] = []
    tokens: list[Token] = []
    if mode == "dae":
        vec = lanes > 1
        if weighted:
            streams.insert(3, Mem("w", "s", array="A.vals", index="s"))
            ops.append(Operand("w", "s", "ite"))
            tokens.append(Token("se", "s", "ite"))
        ops += [Operand("b", "e", "ite"), Operand("e", "e", "ite"),
                Operand("v", "e", "ite", vector=vec)]
        tokens.append(Token("ite", "e", "ite"))
    return TmuConfig(
        layers=[Layer("single", [DenseTU("b", 0, "A.dim0")]),
                Layer("single", [RangeTU("s", "beg", "end")]),
                Layer("single", [DenseTU("e", 0, "B.dim1")], lanes=lanes)],
        streams=streams, operands=ops, tokens=tokens, mode=mode)


SLS_PROGRAM = "ite: b = pop; e = pop; v = pop; out[b, e] += v"
SPMM_PROGRAM = "se: w = pop | ite: b = pop; e = pop; v = pop; x = w * v; out[b, e] += x"


def gather_config(blk: int, lanes: int = 1) -> TmuConfig:
    """Sparse-attention gather: query block ``q``, selected key block ``p``, token ``t`` in the
    block, element ``e``; pushes the output row ``p*blk + t``, ``e`` and the value."""
    streams = _segments([
        Mem("kb", "p", array="A.1.crd", index="p"),
        Alu("kbase", "p", "*", "kb", blk),
        Alu("obase", "p", "*", "p", blk),
        Alu("krow", "t", "+", "kbase", "t"),
        Alu("orow", "t", "+", "obase", "t"),
        Alu("kpos", "t", "*", "krow", "B.dim1"),
        Alu("pos", "e", "+", "kpos", "e"),
        Mem("v", "e", array="B.vals", index="pos"),
    ], tu="q")
    return TmuConfig(
        layers=[Layer("single", [DenseTU("q", 0, "A.dim0")]),
                Layer("single", [RangeTU("p", "beg", "end")]),
                Layer("single", [DenseTU("t", 0, blk)]),
                Layer("single", [DenseTU("e", 0, "B.dim1")], lanes=lanes)],
        streams=streams,
        operands=[Operand("orow", "e", "ite"), Operand("e", "e", "ite"),
                  Operand("v", "e", "ite", vector=lanes > 1)],
        tokens=[Token("ite", "e", "ite")])


GATHER_PROGRAM = "ite: r = pop; e = pop; v = pop; out[r, e] = v"


def mp_config(dim: int) -> TmuConfig:
    """Message passing: vertex ``i``, neighbour ``s``; one step of the element layer (``dim``
    lanes) loads the vertex vector ``X[i,:]`` and the neighbour vector ``B[j,:]`` and pushes them
    with the edge value ``a`` (token ``ite``); the end of a vertex's neighbours pushes ``i``
    (token ``ve``), where the core's workspace loop runs (:func:`mp_program`)."""
    streams = _segments([
        Mem("j", "s", array="A.1.crd", index="s"),
        Mem("a", "s", array="A.vals", index="s"),
        Alu("jrow", "s", "*", "j", "B.dim1"),
        Alu("irow", "i", "*", "i", "X.dim1"),
        Alu("jpos", "e", "+", "jrow", "e"),
        Alu("ipos", "e", "+", "irow", "e"),
        Mem("y", "e", array="B.vals", index="jpos"),
        Mem("x", "e", array="X.vals", index="ipos"),
    ], tu="i")
    return TmuConfig(
        layers=[Layer("single", [DenseTU("i", 0, "A.dim0")]),
                Layer("single", [RangeTU("s", "beg", "end")]),
                Layer("single", [DenseTU("e", 0, "B.dim1")], lanes=dim)],
        streams=streams,
        operands=[Operand("a", "e", "ite"), Operand("x", "e", "ite", vector=True),
                  Operand("y", "e", "ite", vector=True), Operand("i", "s", "end")],
        tokens=[Token("ite", "e", "ite"), Token("ve", "s", "end")])


def mp_program(dim: int) -> str:
    """The core's side of :func:`mp_config`: per neighbour ``tmp += a * (x * y)`` into a
    workspace of ``dim`` elements; per vertex ``out[i,:] += tmp * X[i,:]`` (the vertex vector
    read by the core) and ``tmp = 0`` (Table 1's workspace loop, Sec. 6.2)."""
    return (f"array tmp[{dim}] | input X | ite: a = pop; x = pop; y = pop; p = x * y; "
            "c = p * a; tmp[0] += c | ve: i = pop; t = tmp[0..]; v = X[i, 0..]; m = t * v; "
            "out[i, 0] += m; z = t * 0; tmp[0] = z")


def kg_config(lanes: int = 1) -> TmuConfig:
    """TransE scoring of ``A``'s stored entries (head ``i`` = row, tail = column, relation =
    value): per entry ``p`` the element layer loads ``B[i,:]``, ``X[r,:]`` and ``B[t,:]`` and
    pushes them after ``p`` (token ``ite``)."""
    streams = _segments([
        Mem("t", "s", array="A.1.crd", index="s"),
        Mem("r", "s", array="A.vals", index="s"),
        Alu("hrow", "i", "*", "i", "B.dim1"),
        Alu("trow", "s", "*", "t", "B.dim1"),
        Alu("rrow", "s", "*", "r", "X.dim1"),
        Alu("hpos", "e", "+", "hrow", "e"),
        Alu("rpos", "e", "+", "rrow", "e"),
        Alu("tpos", "e", "+", "trow", "e"),
        Mem("vh", "e", array="B.vals", index="hpos"),
        Mem("vr", "e", array="X.vals", index="rpos"),
        Mem("vt", "e", array="B.vals", index="tpos"),
    ], tu="i")
    vec = lanes > 1
    return TmuConfig(
        layers=[Layer("single", [DenseTU("i", 0, "A.dim0")]),
                Layer("single", [RangeTU("s", "beg", "end")]),
                Layer("single", [DenseTU("e", 0, "B.dim1")], lanes=lanes)],
        streams=streams,
        operands=[Operand("s", "e", "ite"), Operand("vh", "e", "ite", vector=vec),
                  Operand("vr", "e", "ite", vector=vec), Operand("vt", "e", "ite", vector=vec)],
        tokens=[Token("ite", "e", "ite")])


#: per step: ``|h + r - t|`` over the lanes, added up (a horizontal add) into the entry's norm
KG_PROGRAM = ("ite: p = pop; h = pop; r = pop; t = pop; a = h + r; d = a - t; n = 0 - d; "
              "m = max(d, n); x = sum(m); out[p, 0] += x")


# ---------------------------------------------------------------------- operations
def build_op(op: str, A: Tensor, B: Tensor, X: Tensor | None = None, *, lanes: int = 1,
             blk: int = 1, token_cost: int = 1, pop_cost: int = 1
             ) -> tuple[Graph, dict[str, Tensor]]:
    """The TMU + execute graph of Table 1 operation ``op`` and its input tensors."""
    if op not in OPS:
        raise GraphError(f"unknown operation {op!r}; use one of {', '.join(OPS)}")
    if lanes < 1:
        raise GraphError(f"lanes must be >= 1, got {lanes}")
    rows, cols = A.shape[0], B.shape[1]
    costs = {"token_cost": token_cost, "pop_cost": pop_cost}
    tensors = {"A": A, "B": B}
    if op in ("sls", "spmm"):
        if A.shape[1] != B.shape[0]:
            raise GraphError(f"{op}: A has {A.shape[1]} columns but the table B has "
                             f"{B.shape[0]} rows; they must agree")
        cfg = sls_config("dae", lanes, weighted=op == "spmm")
        program = {"sls": SLS_PROGRAM, "spmm": SPMM_PROGRAM}[op]
        graph = tmu_graph(cfg, out="Z", shape=(rows, cols), program=program, formats=FORMATS,
                          **costs)
    elif op == "kg":
        if X is None:
            raise GraphError("kg needs the relation table X (relations x dim)")
        rels = np.asarray(A.vals, dtype=float)
        if max(A.shape) > B.shape[0] or X.shape[1] != cols or (
                rels.size and (np.any(rels != np.round(rels)) or rels.min() < 0
                               or rels.max() >= X.shape[0])):
            raise GraphError(f"kg: A's entries are triples (head = row, tail = column, "
                             f"relation = value): A is {A.shape[0]}x{A.shape[1]}, B (entities) "
                             f"{B.shape[0]}x{B.shape[1]}, X (relations) {X.shape[0]}x"
                             f"{X.shape[1]}; need A's rows and columns <= B rows, equal "
                             "widths and integer values in [0, X rows)")
        tensors["X"] = X
        graph = tmu_graph(kg_config(lanes), out="Z", shape=(max(len(A.vals), 1), 1),
                          program=KG_PROGRAM, formats=FORMATS, **costs)
    elif op == "gather":
        if blk < 1 or B.shape[0] % blk or A.shape[1] * blk != B.shape[0]:
            raise GraphError(f"gather: the table B has {B.shape[0]} rows, which must be A's "
                             f"{A.shape[1]} key blocks of blk={blk} rows")
        stored = len(A.vals)  # one output block per stored entry, explicit zeros included
        graph = tmu_graph(gather_config(blk, lanes), out="Z", shape=(stored * blk, cols),
                          program=GATHER_PROGRAM, formats=FORMATS, **costs)
    else:
        if X is None:
            raise GraphError("mp needs the vertex table X (A.dim0 x dim)")
        if A.shape[1] != B.shape[0] or X.shape[0] != A.shape[0] or X.shape[1] != cols:
            raise GraphError(f"mp: A is {A.shape[0]}x{A.shape[1]}, B {B.shape[0]}x{B.shape[1]}"
                             f", X {X.shape[0]}x{X.shape[1]}; need X rows = A rows, B rows = A "
                             "columns and equal widths")
        tensors["X"] = X
        graph = tmu_graph(mp_config(cols), out="Z", shape=(rows, cols),
                          program=mp_program(cols), formats=FORMATS, **costs)
    return graph, tensors


# ---------------------------------------------------------------------- definitions (numpy)
def segment_sum(ptrs: np.ndarray, idxs: np.ndarray, vals: np.ndarray | None,
                table: np.ndarray) -> np.ndarray:
    """SLS (``vals`` None) and SpMM: ``Z[b,:] = sum_{p in [ptrs[b], ptrs[b+1])} vals[p] *
    table[idxs[p],:]``."""
    table = np.asarray(table, dtype=float)
    ptrs, idxs = np.asarray(ptrs, dtype=np.int64), np.asarray(idxs, dtype=np.int64)
    w = np.ones(idxs.size) if vals is None else np.asarray(vals, dtype=float)
    out = np.zeros((ptrs.size - 1, table.shape[1]))
    for b in range(ptrs.size - 1):
        sl = slice(ptrs[b], ptrs[b + 1])
        out[b] = (w[sl, None] * table[idxs[sl]]).sum(axis=0)
    return out


def block_gather(idxs: np.ndarray, table: np.ndarray, blk: int) -> np.ndarray:
    """SpAttn's gather: block ``p`` of the result is key block ``idxs[p]`` (``blk`` rows)."""
    table = np.asarray(table, dtype=float)
    blocks = table.reshape(-1, blk, table.shape[1])
    return blocks[np.asarray(idxs, dtype=np.int64)].reshape(-1, table.shape[1])


def message_passing(ptrs: np.ndarray, idxs: np.ndarray, vals: np.ndarray,
                    vertex: np.ndarray, table: np.ndarray) -> np.ndarray:
    """MP (module docstring): ``tmp = sum_p vals[p] * vertex[v] * table[idxs[p]]`` over the
    neighbours ``p`` of vertex ``v``, then ``Z[v,:] = tmp * vertex[v]``."""
    x, t = np.asarray(vertex, dtype=float), np.asarray(table, dtype=float)
    ptrs, idxs = np.asarray(ptrs, dtype=np.int64), np.asarray(idxs, dtype=np.int64)
    w = np.asarray(vals, dtype=float)
    out = np.zeros((ptrs.size - 1, t.shape[1]))
    for v in range(ptrs.size - 1):
        sl = slice(ptrs[v], ptrs[v + 1])
        tmp = (w[sl, None] * x[v][None, :] * t[idxs[sl]]).sum(axis=0)
        out[v] = tmp * x[v]
    return out


def transe_l1(heads: np.ndarray, rels: np.ndarray, tails: np.ndarray, entities: np.ndarray,
              relations: np.ndarray) -> np.ndarray:
    """KG (module docstring): ``||E[h] + R[r] - E[t]||_1`` per triple, as an ``n x 1`` array."""
    e, r = np.asarray(entities, dtype=float), np.asarray(relations, dtype=float)
    h, rl, t = (np.asarray(x, dtype=np.int64) for x in (heads, rels, tails))
    return np.abs(e[h] + r[rl] - e[t]).sum(axis=1, keepdims=True)


def reference(op: str, A: sp.csr_matrix, B: np.ndarray, X: np.ndarray | None = None,
              blk: int = 1) -> np.ndarray:
    """Operation ``op`` of :func:`build_op`'s inputs computed with numpy (the gold result)."""
    A = sp.csr_matrix(A, copy=True)  # sorting its indices must not reorder the caller's
    A.sort_indices()
    if op == "sls":
        return segment_sum(A.indptr, A.indices, None, B)
    if op == "spmm":
        return segment_sum(A.indptr, A.indices, A.data, B)
    if op == "gather":
        return block_gather(A.indices, B, blk)
    if op == "mp":
        return message_passing(A.indptr, A.indices, A.data, X, B)
    if op == "kg":
        heads = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
        out = transe_l1(heads, A.data, A.indices, B, X)
        return out if out.size else np.zeros((1, 1))
    raise GraphError(f"unknown operation {op!r}; use one of {', '.join(OPS)}")


def sam_graph(shape: tuple[int, int] | None = None, A_fmt: str = "ds") -> Graph:
    """SLS with a ``sam``-mode TMU feeding SAM blocks: its streams ``e`` (column j) and ``v``
    (B's values) go to a vector reducer over k (``spaccumulator order=1``), ``b`` (row i) and
    ``idx`` (k) to a coordinate dropper keeping the rows that have a k, then writers of
    ``Z(i, j)`` (stored ``ss``; its ``shape``, rows of A x columns of B, recorded when given:
    writers cannot see trailing empty rows)."""
    import sam.graph.registry  # noqa: F401
    from formats.format import Format

    b = GraphBuilder()
    tmu = b.block("tmu", sls_config("sam").to_attrs())
    acc = b.block("spaccumulator", order=1, in0="j")
    drop_i = b.block("crddrop", outer="i", inner="k")
    b.link((tmu, "val:v"), acc, "val")
    b.link((tmu, "crd:e"), acc, "crd:j")
    b.link((tmu, "crd:b"), drop_i, "crd:i")
    b.link((tmu, "crd:idx"), drop_i, "crd:in-k")
    wi = b.block("fiberwrite", index="i", tensor="Z", mode=0, format="compressed")
    wj = b.block("fiberwrite", index="j", tensor="Z", mode=1, format="compressed")
    wv = b.block("fiberwrite", tensor="Z", mode="vals")
    b.link((drop_i, "crd:outer-i"), wi, "crd")
    b.link((acc, "crd:out-j"), wj, "crd")
    b.link((acc, "val"), wv, "val")
    graph = b.finish()
    graph.formats.update({"A": Format.parse(A_fmt), "B": Format.parse("dd"),
                          "Z": Format.parse("ss")})
    if shape is not None:
        graph.contract.set_shape("Z", (shape[0], shape[1]))
    return graph
