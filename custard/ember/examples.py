"""Small scf kernels for the input kinds beyond Table 1 that the front end accepts (issue 34),
with random inputs and numpy references.

==============  ===============================================================================
``spmv``        ``iter_args`` accumulation: ``out[b] = sum_p vals[p] * x[idxs[p]]`` (the
                segment's sum is a loop-carried ``f64``, stored after the loop)
``sls_i64``     torch-style SLS: ``memref<?xi64>`` pointers and indices read through
                ``arith.index_cast ... : i64 to index``
``scaled``      an outer-callback value: ``s = w[b] * w[b]`` once per segment, used by every
                element's callback: ``out[b, :] += s * T[idxs[p], :]``
``sddmm``       a 2-d output of shape (rows of ``A``, rows of ``B``):
                ``out[i, j] = sum_k A[i, k] * B[j, k]`` for the nonzeros ``(i, j)`` of a CSR
                pattern (``iter_args`` over ``k``)
``cosine``      two carried values and a 1-d output indexed by a lookup:
                ``out[p] = (T[idxs[p]] . Q[b]) / (T[idxs[p]] . T[idxs[p]])`` per lookup ``p``
                of segment ``b``
``cumsum``      one outermost loop whose carried sum is stored at every step (a gathered
                prefix sum): ``out[p] = sum_{q <= p} x[idxs[q]]``
``segdot``      a sum carried through two nested loops (the inner loop continues the outer
                one's value): ``out[b] = sum_p T[idxs[p], :] . Q[b, :]``
``count``       an ``index`` carried value: the lookups of each segment whose weight is
                loaded (``out[b] = ptrs[b+1] - ptrs[b]``, counted one by one)
==============  ===============================================================================
"""

from __future__ import annotations

from typing import Any

import numpy as np

from custard.ember.errors import EmberError

EXAMPLES = ("spmv", "sls_i64", "scaled", "sddmm", "cosine", "cumsum", "segdot", "count")

_SEGS = """\
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %np = memref.dim %ptrs, %c0 : memref<?xindex>
    %nseg = arith.subi %np, %c1 : index
"""

SPMV = """\
module {
  func.func @spmv(%ptrs: memref<?xindex>, %idxs: memref<?xindex>, %vals: memref<?xf64>, \
%x: memref<?xf64>, %out: memref<?xf64>) -> memref<?xf64> {
    %zero = arith.constant 0.0 : f64
""" + _SEGS + """\
    scf.for %b = %c0 to %nseg step %c1 {
      %beg = memref.load %ptrs[%b] : memref<?xindex>
      %b1 = arith.addi %b, %c1 : index
      %end = memref.load %ptrs[%b1] : memref<?xindex>
      %sum = scf.for %p = %beg to %end step %c1 iter_args(%acc = %zero) -> (f64) {
        %k = memref.load %idxs[%p] : memref<?xindex>
        %w = memref.load %vals[%p] : memref<?xf64>
        %v = memref.load %x[%k] : memref<?xf64>
        %m = arith.mulf %w, %v : f64
        %a = arith.addf %acc, %m : f64
        scf.yield %a : f64
      }
      memref.store %sum, %out[%b] : memref<?xf64>
    }
    func.return %out : memref<?xf64>
  }
}
"""

SLS_I64 = """\
module {
  func.func @sls_i64(%ptrs: memref<?xi64>, %idxs: memref<?xi64>, %table: memref<?x?xf64>, \
%out: memref<?x?xf64>) -> memref<?x?xf64> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %np = memref.dim %ptrs, %c0 : memref<?xi64>
    %nseg = arith.subi %np, %c1 : index
    %dim = memref.dim %table, %c1 : memref<?x?xf64>
    scf.for %b = %c0 to %nseg step %c1 {
      %beg64 = memref.load %ptrs[%b] : memref<?xi64>
      %beg = arith.index_cast %beg64 : i64 to index
      %b1 = arith.addi %b, %c1 : index
      %end64 = memref.load %ptrs[%b1] : memref<?xi64>
      %end = arith.index_cast %end64 : i64 to index
      scf.for %p = %beg to %end step %c1 {
        %k64 = memref.load %idxs[%p] : memref<?xi64>
        %k = arith.index_cast %k64 : i64 to index
        scf.for %e = %c0 to %dim step %c1 {
          %v = memref.load %table[%k, %e] : memref<?x?xf64>
          %acc = memref.load %out[%b, %e] : memref<?x?xf64>
          %s = arith.addf %acc, %v : f64
          memref.store %s, %out[%b, %e] : memref<?x?xf64>
        }
      }
    }
    func.return %out : memref<?x?xf64>
  }
}
"""

SCALED = """\
module {
  func.func @scaled(%ptrs: memref<?xindex>, %idxs: memref<?xindex>, %wts: memref<?xf64>, \
%table: memref<?x?xf64>, %out: memref<?x?xf64>) -> memref<?x?xf64> {
""" + _SEGS + """\
    %dim = memref.dim %table, %c1 : memref<?x?xf64>
    scf.for %b = %c0 to %nseg step %c1 {
      %beg = memref.load %ptrs[%b] : memref<?xindex>
      %b1 = arith.addi %b, %c1 : index
      %end = memref.load %ptrs[%b1] : memref<?xindex>
      %w = memref.load %wts[%b] : memref<?xf64>
      %s = arith.mulf %w, %w : f64
      scf.for %p = %beg to %end step %c1 {
        %k = memref.load %idxs[%p] : memref<?xindex>
        scf.for %e = %c0 to %dim step %c1 {
          %v = memref.load %table[%k, %e] : memref<?x?xf64>
          %acc = memref.load %out[%b, %e] : memref<?x?xf64>
          %m = arith.mulf %s, %v : f64
          %n = arith.addf %acc, %m : f64
          memref.store %n, %out[%b, %e] : memref<?x?xf64>
        }
      }
    }
    func.return %out : memref<?x?xf64>
  }
}
"""

SDDMM = """\
module {
  func.func @sddmm(%ptrs: memref<?xindex>, %idxs: memref<?xindex>, %a: memref<?x?xf64>, \
%bt: memref<?x?xf64>, %out: memref<?x?xf64>) -> memref<?x?xf64> {
    %zero = arith.constant 0.0 : f64
""" + _SEGS + """\
    %kdim = memref.dim %a, %c1 : memref<?x?xf64>
    scf.for %i = %c0 to %nseg step %c1 {
      %beg = memref.load %ptrs[%i] : memref<?xindex>
      %i1 = arith.addi %i, %c1 : index
      %end = memref.load %ptrs[%i1] : memref<?xindex>
      scf.for %p = %beg to %end step %c1 {
        %j = memref.load %idxs[%p] : memref<?xindex>
        %dot = scf.for %k = %c0 to %kdim step %c1 iter_args(%acc = %zero) -> (f64) {
          %x = memref.load %a[%i, %k] : memref<?x?xf64>
          %y = memref.load %bt[%j, %k] : memref<?x?xf64>
          %m = arith.mulf %x, %y : f64
          %s = arith.addf %acc, %m : f64
          scf.yield %s : f64
        }
        memref.store %dot, %out[%i, %j] : memref<?x?xf64>
      }
    }
    func.return %out : memref<?x?xf64>
  }
}
"""

COSINE = """\
module {
  func.func @cosine(%ptrs: memref<?xindex>, %idxs: memref<?xindex>, %table: memref<?x?xf64>, \
%q: memref<?x?xf64>, %out: memref<?xf64>) -> memref<?xf64> {
    %zero = arith.constant 0.0 : f64
""" + _SEGS + """\
    %dim = memref.dim %table, %c1 : memref<?x?xf64>
    scf.for %b = %c0 to %nseg step %c1 {
      %beg = memref.load %ptrs[%b] : memref<?xindex>
      %b1 = arith.addi %b, %c1 : index
      %end = memref.load %ptrs[%b1] : memref<?xindex>
      scf.for %p = %beg to %end step %c1 {
        %k = memref.load %idxs[%p] : memref<?xindex>
        %d, %n = scf.for %e = %c0 to %dim step %c1 iter_args(%acc = %zero, %sq = %zero) \
-> (f64, f64) {
          %v = memref.load %table[%k, %e] : memref<?x?xf64>
          %w = memref.load %q[%b, %e] : memref<?x?xf64>
          %m = arith.mulf %v, %w : f64
          %a = arith.addf %acc, %m : f64
          %vv = arith.mulf %v, %v : f64
          %s = arith.addf %sq, %vv : f64
          scf.yield %a, %s : f64, f64
        }
        %r = arith.divf %d, %n : f64
        memref.store %r, %out[%p] : memref<?xf64>
      }
    }
    func.return %out : memref<?xf64>
  }
}
"""

CUMSUM = """\
module {
  func.func @cumsum(%idxs: memref<?xindex>, %x: memref<?xf64>, %out: memref<?xf64>) \
-> memref<?xf64> {
    %zero = arith.constant 0.0 : f64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %idxs, %c0 : memref<?xindex>
    %t = scf.for %p = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
      %k = memref.load %idxs[%p] : memref<?xindex>
      %v = memref.load %x[%k] : memref<?xf64>
      %a = arith.addf %acc, %v : f64
      memref.store %a, %out[%p] : memref<?xf64>
      scf.yield %a : f64
    }
    func.return %out : memref<?xf64>
  }
}
"""

SEGDOT = """\
module {
  func.func @segdot(%ptrs: memref<?xindex>, %idxs: memref<?xindex>, %table: memref<?x?xf64>, \
%q: memref<?x?xf64>, %out: memref<?xf64>) -> memref<?xf64> {
    %zero = arith.constant 0.0 : f64
""" + _SEGS + """\
    %dim = memref.dim %table, %c1 : memref<?x?xf64>
    scf.for %b = %c0 to %nseg step %c1 {
      %beg = memref.load %ptrs[%b] : memref<?xindex>
      %b1 = arith.addi %b, %c1 : index
      %end = memref.load %ptrs[%b1] : memref<?xindex>
      %sum = scf.for %p = %beg to %end step %c1 iter_args(%acc = %zero) -> (f64) {
        %k = memref.load %idxs[%p] : memref<?xindex>
        %dot = scf.for %e = %c0 to %dim step %c1 iter_args(%acc2 = %acc) -> (f64) {
          %v = memref.load %table[%k, %e] : memref<?x?xf64>
          %w = memref.load %q[%b, %e] : memref<?x?xf64>
          %m = arith.mulf %v, %w : f64
          %a = arith.addf %acc2, %m : f64
          scf.yield %a : f64
        }
        scf.yield %dot : f64
      }
      memref.store %sum, %out[%b] : memref<?xf64>
    }
    func.return %out : memref<?xf64>
  }
}
"""

COUNT = """\
module {
  func.func @count(%ptrs: memref<?xindex>, %vals: memref<?xf64>, %out: memref<?xindex>) \
-> memref<?xindex> {
""" + _SEGS + """\
    scf.for %b = %c0 to %nseg step %c1 {
      %beg = memref.load %ptrs[%b] : memref<?xindex>
      %b1 = arith.addi %b, %c1 : index
      %end = memref.load %ptrs[%b1] : memref<?xindex>
      %n = scf.for %p = %beg to %end step %c1 iter_args(%cnt = %c0) -> (index) {
        %w = memref.load %vals[%p] : memref<?xf64>
        %n1 = arith.addi %cnt, %c1 : index
        scf.yield %n1 : index
      }
      memref.store %n, %out[%b] : memref<?xindex>
    }
    func.return %out : memref<?xindex>
  }
}
"""


def example_text(name: str) -> str:
    """The scf MLIR of an example kernel."""
    if name not in EXAMPLES:
        raise EmberError(f"unknown example '{name}' (one of {', '.join(EXAMPLES)})")
    return {"spmv": SPMV, "sls_i64": SLS_I64, "scaled": SCALED, "sddmm": SDDMM,
            "cosine": COSINE, "cumsum": CUMSUM, "segdot": SEGDOT, "count": COUNT}[name]


def example_inputs(name: str, rng: np.random.Generator, segments: int = 3, rows: int = 6,
                   emb: int = 5, max_lookups: int = 4) -> dict[str, np.ndarray]:
    """Random named inputs (empty segments included); outputs are not bound (derived)."""
    lens = rng.integers(0, max_lookups + 1, size=segments)
    ptrs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    nnz = int(ptrs[-1])
    idxs = rng.integers(0, rows, size=nnz).astype(np.int64)
    table = rng.uniform(-1, 1, size=(rows, emb)).round(3)
    if name == "spmv":
        return {"ptrs": ptrs, "idxs": idxs, "vals": rng.uniform(-1, 1, nnz).round(3),
                "x": rng.uniform(-1, 1, rows).round(3)}
    if name == "sls_i64":
        return {"ptrs": ptrs, "idxs": idxs, "table": table}
    if name == "scaled":
        return {"ptrs": ptrs, "idxs": idxs, "wts": rng.uniform(-1, 1, segments).round(3),
                "table": table}
    if name == "sddmm":
        return {"ptrs": ptrs, "idxs": idxs,
                "a": rng.uniform(-1, 1, size=(segments, emb)).round(3), "bt": table}
    if name == "cumsum":
        return {"idxs": idxs, "x": rng.uniform(-1, 1, rows).round(3)}
    if name == "count":
        return {"ptrs": ptrs, "vals": rng.uniform(-1, 1, nnz).round(3)}
    if name == "segdot":
        return {"ptrs": ptrs, "idxs": idxs, "table": table,
                "q": rng.uniform(-1, 1, size=(segments, emb)).round(3)}
    if name == "cosine":  # rows away from 0, so the norms never vanish
        return {"ptrs": ptrs, "idxs": idxs, "table": rng.uniform(0.5, 1, size=(rows, emb)).round(3),
                "q": rng.uniform(-1, 1, size=(segments, emb)).round(3)}
    raise EmberError(f"unknown example '{name}' (one of {', '.join(EXAMPLES)})")


def example_reference(name: str, inputs: dict[str, Any]) -> np.ndarray:
    """numpy's result of an example kernel on ``inputs``."""
    if name == "cumsum":
        return np.cumsum(np.asarray(inputs["x"], float)[np.asarray(inputs["idxs"])])
    if name == "count":
        return np.diff(np.asarray(inputs["ptrs"]))
    ptrs, idxs = np.asarray(inputs["ptrs"]), np.asarray(inputs["idxs"])
    nseg = ptrs.size - 1
    if name == "spmv":
        w, x = np.asarray(inputs["vals"], float), np.asarray(inputs["x"], float)
        return np.array([(w[ptrs[b]:ptrs[b + 1]] * x[idxs[ptrs[b]:ptrs[b + 1]]]).sum()
                         for b in range(nseg)])
    if name == "sddmm":
        a, bt = np.asarray(inputs["a"], float), np.asarray(inputs["bt"], float)
        out = np.zeros((nseg, bt.shape[0]))
        for i in range(nseg):
            for p in range(ptrs[i], ptrs[i + 1]):
                out[i, idxs[p]] = a[i] @ bt[idxs[p]]
        return out
    t = np.asarray(inputs["table"], float)
    if name == "segdot":
        q = np.asarray(inputs["q"], float)
        return np.array([sum(t[idxs[p]] @ q[b] for p in range(ptrs[b], ptrs[b + 1]))
                         for b in range(nseg)], dtype=float)
    if name == "cosine":
        q = np.asarray(inputs["q"], float)
        return np.array([(t[idxs[p]] @ q[b]) / (t[idxs[p]] @ t[idxs[p]])
                         for b in range(nseg) for p in range(ptrs[b], ptrs[b + 1])])
    scale = np.asarray(inputs["wts"], float) ** 2 if name == "scaled" else np.ones(nseg)
    return np.array([scale[b] * t[idxs[ptrs[b]:ptrs[b + 1]]].sum(axis=0)
                     for b in range(nseg)]).reshape(nseg, t.shape[1])
