"""The Gamma back end as a SAM graph (SAM paper Sec. 6.5): Gustavson's SpM*SpM
(``X(i,j) = B(i,k) C(k,j)``, order ``i,k,j``, Figure 4) with a parallelizer after the
intersecter of k and an n-input vector reducer (Gamma's merger) rejoining the lanes.

It is compiled, not drawn by hand: ``-s=reorder(i,k,j),parallelize(k,n)`` (:mod:`custard.lanes`).
``dot_graphs/backends/gamma.gv`` is :func:`gamma` with :data:`GAMMA_LANES` lanes
(``python -m custard.gamma`` rewrites it); docs/lanes.md lists its primitive counts against
the paper's description (:func:`gamma_counts`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from custard.api import compile as compile_expression
from sam.graph.dot import dump
from sam.graph.model import Graph

GAMMA_EXPRESSION = "X(i,j)=B(i,k)*C(k,j)"
GAMMA_FORMATS = {"X": "ss", "B": "ss", "C": "ss"}
#: Lanes of the shipped graph.
GAMMA_LANES = 4
GAMMA_FILE = Path(__file__).resolve().parents[1] / "dot_graphs" / "backends" / "gamma.gv"

#: What Sec. 6.5 says Gamma is, by DOT node type: Figure 4's Gustavson graph (scanners of B's
#: i and k levels, of C's k and j levels, repeaters of C over i and of B over j, the k
#: intersecter, two arrays, a multiplier, writers of X), plus one parallelizer "after the
#: intersection unit" and a multi-input vector reducer in place of the vector reducer; the
#: lanes replicate what lies between them.
PAPER_GAMMA = {
    "fiberlookup": "3 + n (B i, B k, C k; C j per lane)",
    "repeat": "1 + n (C over i; B over j per lane)",
    "intersect": "1 (k)",
    "arrayvals": "2n (B and C values per lane)",
    "mul": "n (one multiplier per lane)",
    "parallelize": "1 after the intersecter (ours: one per stream of k's level: crd, refs)",
    "lanereduce": "1 (the multi-input vector reducer)",
    "spaccumulator": "0 (replaced by the multi-input reducer)",
    "crddrop": "1 (empty rows of X)",
    "fiberwrite": "3 (X's i, j levels and values)",
}


def gamma(lanes: int = GAMMA_LANES) -> Graph:
    """Gamma's SpM*SpM over ``lanes`` lanes."""
    graph = compile_expression(GAMMA_EXPRESSION, GAMMA_FORMATS, name="gamma",
                               schedule=["reorder(i,k,j)", f"parallelize(k,{lanes})"])
    assert isinstance(graph, Graph)
    return graph


def gamma_counts(lanes: int = GAMMA_LANES) -> list[tuple[str, int, str]]:
    """(DOT node type, blocks in :func:`gamma`, the paper's description) per primitive."""
    count = gamma(lanes).count()
    return [(t, count.get(t, 0), PAPER_GAMMA.get(t, "")) for t in
            sorted(set(count) | set(PAPER_GAMMA)) if t not in ("broadcast", "repsiggen")]


def main(argv: list[str] | None = None) -> int:
    """Rewrite ``dot_graphs/backends/gamma.gv`` and print its primitive counts."""
    GAMMA_FILE.parent.mkdir(parents=True, exist_ok=True)
    dump(gamma(), GAMMA_FILE)
    for t, n, paper in gamma_counts():
        print(f"{t:14s} {n:3d}  {paper}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
