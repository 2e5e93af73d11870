"""Operands of the original SAM simulator's final-apps tests (github weiya711/sam,
``sam/sim/test/final-apps/test_<kernel>_FINAL.py``), built as the original builds them.

The original's tests read each operand from files its formatter writes
(``scripts/formatting/datastructure_suitesparse.py -n NAME -hw -b KERNEL``):

* the SuiteSparse matrix as ``scipy.io.mmread`` reads it (symmetric files mirrored; stored
  zeros kept), written as B (C for ``mat_residual``/``mat_mattransmul``), row-major (ss01) or,
  for ``matmul_kij``, ``mat_vecmul`` and ``mat_mattransmul``, column-major (ss10);
* "shifted" copies (``ScipyTensorShifter.shiftLastMode``): every stored point moved one column
  right (wrapping around), value 2: C for ``mat_elemadd``, C and D (shifted twice) for
  ``mat_elemadd3``, and C = shifted B transposed for ``matmul_kij`` and ``matmul_ikj``;
* random vectors ``scipy.sparse.random(n, 1, density=0.25, data_rvs=np.ones)`` from
  ``numpy.random.seed(0)``: c (``mat_vecmul``), b and d (``mat_residual``), d and f
  (``mat_mattransmul``); their coordinates are recorded with the cycle counts
  (tests/data/original-final-apps.json), values 1;
* the scalars b = e = 2 of ``mat_mattransmul`` and SDDMM's dense C (rows x 256) and D
  (256 x columns), ``C = arange(rows*256).reshape(rows, 256)``,
  ``D = arange(256*columns).reshape(columns, 256).T``, as its test makes them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp

from formats import data
from formats.tensor import Tensor

HERE = Path(__file__).resolve().parents[1]  # tests/
RECORD = HERE / "data" / "original-final-apps.json"
#: SDDMM's inner dimension in the original's test.
KDIM = 256

#: kernel -> (our compiler's graph in dot_graphs/, the original's graph in
#: tests/data/original-graphs/ that its test wires by hand, the expression)
KERNELS = {
    "mat_elemadd": ("mat_elemadd", "mat_elemadd", "X(i,j)=B(i,j)+C(i,j)"),
    "mat_elemadd3": ("mat_elemadd3", "mat_elemadd3", "X(i,j)=B(i,j)+C(i,j)+D(i,j)"),
    "mat_vecmul": ("mat_vecmul_ji", "mat_vecmul_ji", "x(i)=B(i,j)*c(j)"),
    "mat_residual": ("mat_residual", "mat_residual_HAND", "x(i)=b(i)-C(i,j)*d(j)"),
    "mat_mattransmul": ("mat_mattransmul", "mat_mattransmul_HAND",
                        "x(i)=b*C(j,i)*d(j)+e*f(i)"),
    "matmul_kij": ("matmul_kij", "matmul_kij", "X(i,j)=B(i,k)*C(k,j)"),
    # Gustavson: the test of the original's branch compiler_fix (record: its own commit)
    "matmul_ikj": ("matmul_ikj", "matmul_ikj", "X(i,j)=B(i,k)*C(k,j)"),
    "mat_sddmm": ("mat_sddmm", "mat_sddmm", "X(i,j)=B(i,j)*C(i,k)*D(k,j)"),
}


def record() -> dict:
    """The recorded runs of the original simulator (provenance and one entry per run)."""
    return json.loads(RECORD.read_text())


def matrix(name: str) -> sp.coo_matrix:
    """A shipped SuiteSparse matrix as the original reads it."""
    return sp.coo_matrix(scipy.io.mmread(data.path(name)))


def shifted(coo: sp.coo_matrix) -> sp.coo_matrix:
    """``shiftLastMode``: each stored point one column right (wrapping), value 2."""
    dok = coo.todok()
    rows = np.array([r for r, _ in dok.keys()], dtype=np.int64)
    cols = np.array([c for _, c in dok.keys()], dtype=np.int64)
    return sp.coo_matrix((np.full(len(rows), 2.0), (rows, (cols + 1) % coo.shape[1])),
                         shape=coo.shape)


def vector(size: int, crd: list[int]) -> np.ndarray:
    vec = np.zeros(size)
    vec[np.asarray(crd, dtype=np.int64)] = 1.0
    return vec


def operands(kernel: str, name: str, vectors: dict[str, list[int]],
             formats: dict) -> dict[str, Tensor]:
    """The operands of ``kernel`` on matrix ``name``, in the graph's ``formats``."""
    m = matrix(name)
    rows, cols = m.shape

    def t(tname: str, value) -> Tensor:
        fmt = formats.get(tname)
        if np.isscalar(value):
            return Tensor.scalar(float(value))
        if sp.issparse(value):
            return Tensor.from_scipy(value, fmt)
        return Tensor.from_dense(value, fmt)

    if kernel == "mat_elemadd":
        return {"B": t("B", m), "C": t("C", shifted(m))}
    if kernel == "mat_elemadd3":
        once = shifted(m)
        return {"B": t("B", m), "C": t("C", once), "D": t("D", shifted(once))}
    if kernel in ("matmul_kij", "matmul_ikj"):
        return {"B": t("B", m), "C": t("C", shifted(m).T)}
    if kernel == "mat_vecmul":
        return {"B": t("B", m), "c": t("c", vector(cols, vectors["c"]))}
    if kernel == "mat_residual":
        return {"C": t("C", m), "b": t("b", vector(rows, vectors["b"])),
                "d": t("d", vector(cols, vectors["d"]))}
    if kernel == "mat_mattransmul":
        return {"C": t("C", m), "d": t("d", vector(rows, vectors["d"])),
                "f": t("f", vector(cols, vectors["f"])), "b": t("b", 2.0), "e": t("e", 2.0)}
    if kernel == "mat_sddmm":
        c = np.arange(rows * KDIM, dtype=np.float64).reshape(rows, KDIM)
        d = np.arange(KDIM * cols, dtype=np.float64).reshape(cols, KDIM).T
        return {"B": t("B", m), "C": t("C", c), "D": t("D", d)}
    raise KeyError(kernel)
