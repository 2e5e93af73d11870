"""The embedding operations of the Ember paper's Table 1 as scf code (what torch-mlir or MPACT
would give Ember), random inputs, and their numpy references, which are the definitions of
``sam.tmu_ops`` (one source of truth; the sam side's TMU graphs compute the same), so nobody
writes MLIR by hand.

=========  =====================================================================  ============
``sls``    EmbeddingBag / SparseLengthsSum (DLRM): ``out[b,:] += T[idxs[p],:]``     1 lookup
``spmm``   GNN SpMM: ``out[i,:] += vals[p] * T[idxs[p],:]``                          1 lookup
``spattn`` BigBird block gather: ``out[p*B+t,:] = K[idxs[p]*B+t,:]``                  copy only
``mp``     message passing: ``tmp += w * X[v]*X[u]`` over neighbours, then
           ``out[v,:] += tmp * X[v]`` in a workspace loop (on the core)               2 lookups
``kg``     knowledge graph (TransE): ``out[s,0] = ||E[h]+R[r]-E[t]||_1`` per sample     3 lookups
=========  =====================================================================  ============
"""

from __future__ import annotations

from typing import Any

import numpy as np

from custard.ember.errors import EmberError

OPS = ("sls", "spmm", "spattn", "mp", "kg")

_SIZES = "!llvm.struct<(array<2 x i64>, array<3 x i64>)>"

_HEAD = """\
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %0 = llvm.extractvalue %sizes[0, 0] : {sizes}
    %nseg = arith.index_cast %0 : i64 to index
    %dim = memref.dim %table, %c1 : memref<?x?xf64>
"""

_SEG = """\
    scf.for %b = %c0 to %nseg step %c1 {{
      %beg = memref.load %ptrs[%b] : memref<?xindex>
      %b1 = arith.addi %b, %c1 : index
      %end = memref.load %ptrs[%b1] : memref<?xindex>
      scf.for %p = %beg to %end step %c1 {{
        %k = memref.load %idxs[%p] : memref<?xindex>
"""

SLS = """\
module {{
  func.func @sls(%ptrs: memref<?xindex>, %idxs: memref<?xindex>, %sizes: {sizes}, \
%table: memref<?x?xf64>, %out: memref<?x?xf64>) -> memref<?x?xf64> {{
""" + _HEAD + _SEG + """\
        scf.for %e = %c0 to %dim step %c1 {{
          %v = memref.load %table[%k, %e] : memref<?x?xf64>
          %acc = memref.load %out[%b, %e] : memref<?x?xf64>
          %s = arith.addf %acc, %v : f64
          memref.store %s, %out[%b, %e] : memref<?x?xf64>
        }}
      }}
    }}
    func.return %out : memref<?x?xf64>
  }}
}}
"""

SPMM = """\
module {{
  func.func @spmm(%ptrs: memref<?xindex>, %idxs: memref<?xindex>, %vals: memref<?xf64>, \
%sizes: {sizes}, %table: memref<?x?xf64>, %out: memref<?x?xf64>) -> memref<?x?xf64> {{
""" + _HEAD + _SEG + """\
        %w = memref.load %vals[%p] : memref<?xf64>
        scf.for %e = %c0 to %dim step %c1 {{
          %v = memref.load %table[%k, %e] : memref<?x?xf64>
          %acc = memref.load %out[%b, %e] : memref<?x?xf64>
          %m = arith.mulf %w, %v : f64
          %s = arith.addf %acc, %m : f64
          memref.store %s, %out[%b, %e] : memref<?x?xf64>
        }}
      }}
    }}
    func.return %out : memref<?x?xf64>
  }}
}}
"""

SPATTN = """\
module {{
  func.func @spattn(%ptrs: memref<?xindex>, %idxs: memref<?xindex>, %sizes: {sizes}, \
%table: memref<?x?xf64>, %out: memref<?x?xf64>) -> memref<?x?xf64> {{
    %blk = arith.constant {block} : index
""" + _HEAD + _SEG + """\
        %kb = arith.muli %k, %blk : index
        %pb = arith.muli %p, %blk : index
        scf.for %t = %c0 to %blk step %c1 {{
          %row = arith.addi %kb, %t : index
          %orow = arith.addi %pb, %t : index
          scf.for %e = %c0 to %dim step %c1 {{
            %v = memref.load %table[%row, %e] : memref<?x?xf64>
            memref.store %v, %out[%orow, %e] : memref<?x?xf64>
          }}
        }}
      }}
    }}
    func.return %out : memref<?x?xf64>
  }}
}}
"""

MP = """\
module {{
  func.func @mp(%ptrs: memref<?xindex>, %idxs: memref<?xindex>, %vals: memref<?xf64>, \
%sizes: {sizes}, %table: memref<?x?xf64>, %tmp: memref<?xf64>, %out: memref<?x?xf64>) \
-> memref<?x?xf64> {{
    %zero = arith.constant 0.0 : f64
""" + _HEAD + _SEG + """\
        %w = memref.load %vals[%p] : memref<?xf64>
        scf.for %e = %c0 to %dim step %c1 {{
          %xv = memref.load %table[%b, %e] : memref<?x?xf64>
          %xu = memref.load %table[%k, %e] : memref<?x?xf64>
          %m = arith.mulf %xv, %xu : f64
          %sm = arith.mulf %m, %w : f64
          %t = memref.load %tmp[%e] : memref<?xf64>
          %tn = arith.addf %t, %sm : f64
          memref.store %tn, %tmp[%e] : memref<?xf64>
        }}
      }}
      scf.for %e2 = %c0 to %dim step %c1 {{
        %t2 = memref.load %tmp[%e2] : memref<?xf64>
        %xv2 = memref.load %table[%b, %e2] : memref<?x?xf64>
        %o = memref.load %out[%b, %e2] : memref<?x?xf64>
        %f = arith.mulf %t2, %xv2 : f64
        %on = arith.addf %o, %f : f64
        memref.store %on, %out[%b, %e2] : memref<?x?xf64>
        memref.store %zero, %tmp[%e2] : memref<?xf64>
      }}
    }}
    func.return %out : memref<?x?xf64>
  }}
}}
"""

KG = """\
module {{
  func.func @kg(%heads: memref<?xindex>, %rels: memref<?xindex>, %tails: memref<?xindex>, \
%table: memref<?x?xf64>, %relations: memref<?x?xf64>, %out: memref<?x?xf64>) \
-> memref<?x?xf64> {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %heads, %c0 : memref<?xindex>
    %dim = memref.dim %table, %c1 : memref<?x?xf64>
    scf.for %s = %c0 to %n step %c1 {{
      %h = memref.load %heads[%s] : memref<?xindex>
      %r = memref.load %rels[%s] : memref<?xindex>
      %t = memref.load %tails[%s] : memref<?xindex>
      scf.for %e = %c0 to %dim step %c1 {{
        %eh = memref.load %table[%h, %e] : memref<?x?xf64>
        %er = memref.load %relations[%r, %e] : memref<?x?xf64>
        %et = memref.load %table[%t, %e] : memref<?x?xf64>
        %a = arith.addf %eh, %er : f64
        %d = arith.subf %a, %et : f64
        %n2 = arith.negf %d : f64
        %ad = arith.maximumf %d, %n2 : f64
        %acc = memref.load %out[%s, %c0] : memref<?x?xf64>
        %sum = arith.addf %acc, %ad : f64
        memref.store %sum, %out[%s, %c0] : memref<?x?xf64>
      }}
    }}
    func.return %out : memref<?x?xf64>
  }}
}}
"""


def scf_text(op: str, block: int = 2) -> str:
    """The scf MLIR of a Table 1 operation (``block``: SpAttn's block size)."""
    if op not in OPS:
        raise EmberError(f"unknown embedding operation '{op}' (one of {', '.join(OPS)})")
    tmpl = {"sls": SLS, "spmm": SPMM, "spattn": SPATTN, "mp": MP, "kg": KG}[op]
    return tmpl.format(sizes=_SIZES, block=block)


def random_inputs(op: str, rng: np.random.Generator, segments: int = 3, rows: int = 6,
                  emb: int = 5, max_lookups: int = 4, block: int = 2) -> dict[str, np.ndarray]:
    """Random named inputs (empty segments included) of a Table 1 operation."""
    lens = rng.integers(0, max_lookups + 1, size=segments)
    ptrs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    nnz = int(ptrs[-1])
    idxs = rng.integers(0, rows, size=nnz).astype(np.int64)
    table = rng.uniform(-1, 1, size=(rows, emb)).round(3)
    if op == "sls":
        return {"ptrs": ptrs, "idxs": idxs, "table": table}
    if op == "spmm":
        return {"ptrs": ptrs, "idxs": idxs, "vals": rng.uniform(-1, 1, nnz).round(3),
                "table": table}
    if op == "spattn":
        kt = rng.uniform(-1, 1, size=(rows * block, emb)).round(3)
        return {"ptrs": ptrs, "idxs": idxs, "table": kt,
                "out": np.zeros((max(nnz, 1) * block, emb))}
    if op == "mp":
        idxs = rng.integers(0, segments, size=nnz).astype(np.int64)
        return {"ptrs": ptrs, "idxs": idxs, "vals": rng.uniform(-1, 1, nnz).round(3),
                "table": rng.uniform(-1, 1, size=(segments, emb)).round(3),
                "tmp": np.zeros(emb)}
    if op == "kg":
        return {"heads": rng.integers(0, rows, segments), "rels": rng.integers(0, 3, segments),
                "tails": rng.integers(0, rows, segments), "table": table,
                "relations": rng.uniform(-1, 1, size=(3, emb)).round(3),
                "out": np.zeros((segments, 1))}
    raise EmberError(f"unknown embedding operation '{op}' (one of {', '.join(OPS)})")


def reference(op: str, inputs: dict[str, Any], block: int = 2) -> np.ndarray:
    """numpy's result of a Table 1 operation on ``inputs`` (``sam.tmu_ops``' definitions)."""
    from sam.tmu_ops import block_gather, message_passing, segment_sum, transe_l1

    t = np.asarray(inputs["table"], dtype=float)
    if op == "kg":
        return transe_l1(inputs["heads"], inputs["rels"], inputs["tails"], t,
                         inputs["relations"])
    ptrs, idxs = np.asarray(inputs["ptrs"]), np.asarray(inputs["idxs"])
    if op == "spattn":
        out = np.array(inputs["out"], dtype=float)
        out[:idxs.size * block] = block_gather(idxs, t, block)
        return out
    if op == "sls":
        return segment_sum(ptrs, idxs, None, t)
    if op == "spmm":
        return segment_sum(ptrs, idxs, inputs["vals"], t)
    if op == "mp":
        return message_passing(ptrs, idxs, inputs["vals"], t, t)
    raise EmberError(f"unknown embedding operation '{op}' (one of {', '.join(OPS)})")
