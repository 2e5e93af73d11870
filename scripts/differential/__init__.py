"""The differential harness against the original Custard (issue 33; docs/fidelity.md).

``python -m scripts.differential record --taco PATH`` compiles the harness's expressions
(:mod:`.expressions`) with the original's ``taco`` binary and records its graphs in
``tests/data/original-custard/``; ``python -m scripts.differential compare`` (CI-safe) runs
them here against numpy and against our Custard's graphs (:mod:`.compare`).
"""

from scripts.differential.original import original_graph

__all__ = ["original_graph"]
