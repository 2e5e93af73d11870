"""Ragged kernels of CoRa compiled by Custard (the ``dot_graphs/ragged_*.gv`` examples).

Each kernel is an expression with ragged formats (``r`` levels, :class:`formats.levels.
RaggedLevel`), a loop order and the groups of operands that share raggedness
(:mod:`custard.ragged`):

* ``ragged_elemmul``, ``ragged_elemadd``: element-wise ops on a batch of sequences of different
  lengths (``dr``; the operands share their raggedness: one scanner, no merge block);
* ``ragged_elemmul3``: element-wise product of batches of ``length x features`` (``drd``);
* ``vgemm``: ragged batched matmul ``C_b = A_b B_b`` with ``M_b x K_b`` times ``K_b x N_b``
  (``drr``; B's ``k`` fibers are located, not co-iterated);
* ``trmm``: ``C = L B`` with L lower triangular stored ragged (row i holds ``k = 0..i``) and B
  dense (B located at each of L's coordinates);
* ``attention``: the attention block of a transformer on a batch of sequences of different
  lengths, a program of five graphs (:func:`attention`).

**Softmax.** SAM has an ``exp`` ALU but Custard's index notation has no ``exp``: the exponent
phase is the identity kernel ``E(b,i,j)=S(b,i,j)`` compiled by Custard with an ``exp`` ALU
spliced in before its value writer (:func:`custard.splice.splice_unary`; a SAM graph, no host
step). The row maximum is not subtracted (scores are kept small by the ``1/sqrt(d)`` scale);
the row sum and the division are Custard kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from custard.api import compile as compile_expr
from custard.splice import splice_unary
from formats.tensor import Tensor
from sam.graph.model import Graph
from sam.program import Program


@dataclass(frozen=True)
class RaggedKernel:
    """One ragged kernel: expression, formats, loop order, shared groups."""

    name: str
    expression: str
    formats: dict[str, str]
    order: str
    shared: str = ""

    def compile(self) -> Graph:
        graph = compile_expr(self.expression, self.formats, self.order, name=self.name,
                             shared=self.shared or None)
        assert isinstance(graph, Graph)
        return graph


KERNELS: dict[str, RaggedKernel] = {k.name: k for k in [
    RaggedKernel("ragged_elemmul", "X(b,i)=A(b,i)*B(b,i)", {"A": "dr", "B": "dr", "X": "dr"},
                 "b,i", "A,B"),
    RaggedKernel("ragged_elemadd", "X(b,i)=A(b,i)+B(b,i)", {"A": "dr", "B": "dr", "X": "dr"},
                 "b,i", "A,B"),
    RaggedKernel("ragged_elemmul3", "X(b,i,d)=A(b,i,d)*B(b,i,d)",
                 {"A": "drd", "B": "drd", "X": "drd"}, "b,i,d", "A,B"),
    RaggedKernel("vgemm", "C(b,i,j)=A(b,i,k)*B(b,k,j)", {"A": "drr", "B": "drr", "C": "drr"},
                 "b,i,k,j"),
    RaggedKernel("trmm", "C(i,j)=L(i,k)*B(k,j)", {"L": "dr", "B": "dd", "C": "dd"}, "i,k,j"),
]}


def attention(d: int) -> Program:
    """``O = softmax(Q K^T / sqrt(d)) V`` per sequence, Q, K, V ``drd`` (batch, length,
    features): phases S (scores, ragged ``drr``), E = exp(S), R = row sums, P = E / R, O = P V."""
    scale = repr(1.0 / float(np.sqrt(d)))
    rr = {"Q": "drd", "K": "drd", "V": "drd", "S": "drr", "E": "drr", "R": "dr", "P": "drr",
          "O": "drd"}

    def phase(expr: str, order: str, name: str) -> Graph:
        names = {n for n in rr if f"{n}(" in expr}
        g = compile_expr(expr, {n: rr[n] for n in names}, order, name=name)
        assert isinstance(g, Graph)
        return g

    scores = phase(f"S(b,i,j)=Q(b,i,c)*K(b,j,c)*{scale}", "b,i,j,c", "S")
    exps = splice_unary(phase("E(b,i,j)=S(b,i,j)", "b,i,j", "E"), "exp")
    sums = phase("R(b,i)=E(b,i,j)", "b,i,j", "R")
    probs = phase("P(b,i,j)=E(b,i,j)/R(b,i)", "b,i,j", "P")
    out = phase("O(b,i,c)=P(b,i,j)*V(b,j,c)", "b,i,j,c", "O")
    return Program([scores, exps, sums, probs, out])


def attention_reference(qs: list[np.ndarray], ks: list[np.ndarray], vs: list[np.ndarray]
                        ) -> list[np.ndarray]:
    """numpy attention per sequence (no padding, no mask)."""
    out = []
    for q, k, v in zip(qs, ks, vs, strict=True):
        s = q @ k.T / np.sqrt(q.shape[1]) if len(q) else np.zeros((0, 0))
        e = np.exp(s)
        out.append((e / e.sum(axis=1, keepdims=True)) @ v if len(q) else np.zeros((0, v.shape[1])))
    return out


def sequences(lengths: list[int], width: int, rng: np.random.Generator, *, low: float = -1.0,
              high: float = 1.0) -> list[np.ndarray]:
    """Random ``L x width`` sequences, one per length."""
    return [rng.uniform(low, high, (n, width)) for n in lengths]


def batch(lengths: list[int], rng: np.random.Generator, like: Tensor | None = None) -> Tensor:
    """A ``dr`` batch of random sequences (nonzero values) of the given lengths."""
    rows = [rng.integers(1, 10, n).astype(float) for n in lengths]
    return Tensor.from_ragged(rows, "dr", like=like)
