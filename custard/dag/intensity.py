"""Arithmetic intensity (GOGETA Sec. 3) and rank dominance (Sec. 4.2).

``AI_best`` is multiplications per compulsory memory access, in words (Eq. 5): per operation
every operand is read once and the result written once; for a chain with inter-operation reuse
(Table 1) only the chain's inputs are read once and its final results written once.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from custard.dag.program import DagProgram
from custard.dag.shapes import OpSizes, TensorInfo, program_sizes

#: Sec. 4.2: a dominant rank is larger than this ...
DOMINANT_MIN = 1000
#: ... and more skewed than this ratio to every other rank
DOMINANT_RATIO = 100
#: Sec. 4.2: 'bal' needs every rank at least this large (else 'small')
BALANCED_MIN = 50


def gemm_intensity(m: float, k: float, n: float) -> float:
    """Eq. 6: ``MKN / (MK + KN + MN)``."""
    return m * k * n / (m * k + k * n + m * n)


def spmm_intensity(nnz: float, m: float, k: float, n: float) -> float:
    """Eq. 10: ``nnz N / (2 nnz + M + NK + MN)`` (A compressed as CSR, B and Z dense)."""
    return nnz * n / (2 * nnz + m + n * k + m * n)


def table1_nn(m: float, n: float, k: float, o: float, p: float, q: float, r: float
              ) -> tuple[float, float]:
    """Table 1, NN-like chain of five Einsums: (AI without, AI with inter-operation reuse)."""
    mults = m * n * k + o * n * m + p * o * n + q * p * n + r * q * n
    without = (m * k + k * n + 2 * m * n + o * m + 2 * o * n + p * o + 2 * p * n + q * p
               + 2 * q * n + r * q + r * n)
    with_reuse = m * k + k * n + o * m + p * o + q * p + r * q + r * n
    return mults / without, mults / with_reuse


def table1_hpc(m: float, n: float, k: float, o: float) -> tuple[float, float]:
    """Table 1, HPC-like chain of five Einsums: (AI without, AI with inter-operation reuse)."""
    mults = m * n * k + 4 * o * n * m
    without = m * k + k * n + 5 * m * n + 4 * o * m + 4 * o * n
    with_reuse = m * k + k * n + o * m + m * n
    return mults / without, mults / with_reuse


def dominance(sizes: Mapping[str, float], contracted: Iterable[str]) -> tuple[str, str | None]:
    """Sec. 4.2's node dominance of an operation with rank ``sizes``: ('U' or 'C', the dominant
    rank) when one rank is larger than 1000 and more than 100 times every other rank
    (uncontracted or contracted); else ('bal', None) when every rank is at least 50, else
    ('small', None)."""
    summed = set(contracted)
    for rank, size in sizes.items():
        others = [s for r, s in sizes.items() if r != rank]
        if size > DOMINANT_MIN and all(size > DOMINANT_RATIO * s for s in others):
            return ("C" if rank in summed else "U"), rank
    if sizes and min(sizes.values()) >= BALANCED_MIN:
        return "bal", None
    return "small", None


def effective_sizes(variables: Mapping[str, int], reads: Mapping[str, TensorInfo],
                    accesses: Mapping[str, Sequence[str]]) -> dict[str, float]:
    """Rank sizes as the dataflow sees them: a rank a compressed operand stores below another
    counts its average fiber length (``nnz / rows``): Fig. 7 marks the CG SpMM uncontracted
    dominant "since we compress the K rank (CSR format)"."""
    out: dict[str, float] = dict(variables)
    for name, info in reads.items():
        idx = accesses.get(name, ())
        if info.sparse and len(idx) >= 2 and info.shape[0] > 0:
            inner = idx[-1]
            out[inner] = min(out[inner], info.nnz / info.shape[0])
    return out


def op_intensity(op: OpSizes) -> float:
    """``AI_best`` of one operation: multiplications / (its operands + its result)."""
    words = sum(t.words for t in op.reads.values()) + op.writes.words
    return op.mults / words if words else 0.0


def chain_intensity(prog: DagProgram, inputs: Mapping[str, TensorInfo]
                    ) -> tuple[float, float]:
    """(AI without, AI with inter-operation reuse) of a whole program (Table 1's columns):
    without, every operation reads its operands and writes its result; with, the program's
    inputs are read once and its kept tensors written once."""
    ops = program_sizes(prog, inputs)
    mults = sum(op.mults for op in ops)
    without = sum(sum(t.words for t in op.reads.values()) + op.writes.words for op in ops)
    final: dict[str, TensorInfo] = {}
    for st, op in zip(prog.statements, ops, strict=True):
        final[st.target] = op.writes
    kept = sum(final[n].words for n in prog.outputs() if n in final)
    with_reuse = sum(inputs[n].words for n in prog.inputs()) + kept
    return mults / without, (mults / with_reuse if with_reuse else math.inf)
