"""The differential harness against the original Custard (issue 33; docs/fidelity.md).

``python -m scripts.differential record --taco PATH`` compiles the harness's expressions
(:mod:`.expressions`) with the original's ``taco`` binary and records its graphs in
``tests/data/original-custard/``; ``python -m scripts.differential compare`` (CI-safe) runs
them here against numpy and against our Custard's graphs (:mod:`.compare`);
``compare --records tests/data/original-custard-edc4195a`` does the same for the graphs of taco
edc4195a, the last commit before the CrdHold removal (``record --out`` that folder), whose
``simulated.json`` holds the original simulator's runs of them (:mod:`.cycles`).
"""

from scripts.differential.original import original_graph

__all__ = ["original_graph"]
