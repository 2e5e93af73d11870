"""Accelerator back ends expressed as SAM graphs (SAM paper Sec. 6.5, Figure 16).

The paper argues that SAM represents the dataflow of fixed-function and reconfigurable sparse
accelerators; these builders make that concrete with our compiler (:func:`custard.api.compile`),
each naming the paper's sentence it follows. ``scripts/build_backends.py`` writes them to
``dot_graphs/backends/``; docs/backends.md lists their primitive counts against the paper.

* :func:`build_outerspace`: OuterSPACE's SpM*SpM as a program of two graphs (Sec. 6.5,
  Figure 16): a multiply phase in the outer-product order k -> i -> j with B stored column-major
  and C row-major, writing the partial products Y(i,k,j) discordantly (the writers follow the
  dataflow, kij; Y is stored ikj for the merge), then a merge phase: three cascaded level
  scanners of Y, a vector reducer summing over k, level writers of X(i,j).
* :func:`build_extensor`: ExTensor's stream coordinator running the inner-product SpM*SpM
  (i -> j -> k): the Stream Sequencer is two repeaters, each Scanner a stack of level scanners
  (two levels) whose last level skips coordinates (Sec. 4.2), the Intersect unit an intersecter
  and the two Data Storage units two arrays; a multiplier and a reducer consume its output.
* :func:`build_capstan`: Capstan's loop header: two bitvector level scanners followed by an
  intersecter (``and``) or a unioner (``or``) of bitvectors, feeding a vectorized loop body
  (arrays, one ALU, level writers) on n-lane stream buses: graph attribute ``width``
  (:mod:`sam.sim.widths`).

Gamma (Gustavson's order with a parallelizer and a multi-input reducer) is built with the
parallel lanes (:func:`custard.gamma.gamma`; its counts in docs/lanes.md) and listed here too, so
the script writes every file of ``dot_graphs/backends/``.
"""

from __future__ import annotations

from collections.abc import Callable

from custard.api import compile as compile_expr
from custard.gamma import gamma
from sam.graph.model import Graph
from sam.program import Program

#: Capstan's vector width (16 lanes per pattern compute unit).
CAPSTAN_LANES = 16
#: Capstan's loop-header operations: SAM's bitvector merge for each.
CAPSTAN_OPS = {"and": "*", "or": "+"}


def build_outerspace() -> Program:
    """OuterSPACE SpM*SpM ``X(i,j) = B(i,k) * C(k,j)`` (Figure 16): multiply phase
    ``Y(i,k,j) = B(i,k) * C(k,j)`` in order kij (B column-major, C row-major), then merge phase
    ``X(i,j) = Y(i,k,j)`` summing over k. Inputs B and C, result X."""
    multiply = compile_expr("Y(i,k,j)=B(i,k)*C(k,j)", {"Y": "sss", "B": "ss:1,0", "C": "ss"},
                            "kij", name="outerspace_multiply")
    merge = compile_expr("X(i,j)=Y(i,k,j)", {"X": "ss", "Y": "sss"}, "ikj",
                         name="outerspace_merge")
    return Program([multiply, merge])


def build_extensor() -> Graph:
    """ExTensor's coordinator on inner-product SpM*SpM ``X(i,j) = B(i,k) * C(k,j)`` (order ijk,
    B row-major, C column-major), the intersection at k skipping in both scanners."""
    return compile_expr("X(i,j)=B(i,k)*C(k,j)", {"X": "ss", "B": "ss", "C": "ss:1,0"}, "ijk",
                        schedule=["skip(B,C)"], name="extensor")


def build_capstan(op: str = "and", lanes: int = CAPSTAN_LANES) -> Graph:
    """Capstan's loop header with ``op`` ``and`` (``X = B .* C``) or ``or`` (``X = B + C``) over
    rows stored as 64-bit bitvectors (format ``db64``), its loop body ``lanes`` wide."""
    if op not in CAPSTAN_OPS:
        raise ValueError(f"Capstan's loop header is 'and' or 'or', not {op!r}")
    graph = compile_expr(f"X(i,j)=B(i,j){CAPSTAN_OPS[op]}C(i,j)",
                         {"X": "ss", "B": "db64", "C": "db64"}, "ij", name=f"capstan_{op}")
    graph.contract.width = lanes
    return graph


#: File stem in ``dot_graphs/backends/`` -> builder (a Program is written as several digraphs).
BACKENDS: dict[str, Callable[[], Graph | Program]] = {
    "outerspace": build_outerspace,
    "extensor": build_extensor,
    "capstan_and": lambda: build_capstan("and"),
    "capstan_or": lambda: build_capstan("or"),
    "gamma": gamma,
}


def graphs(result: Graph | Program) -> list[Graph]:
    """The graphs of a builder's result, in order."""
    return [p.graph for p in result.phases] if isinstance(result, Program) else [result]


def backend_text(name: str) -> str:
    """The DOT text of back end ``name`` (a program: its graphs in order, one file)."""
    from sam.graph.dot import dumps, dumps_all

    result = BACKENDS[name]()
    return dumps_all(graphs(result)) if isinstance(result, Program) else dumps(result)
