"""Custard: compile tensor index notation with formats and schedules to SAM dataflow graphs.

>>> import custard
>>> graph = custard.compile("X(i,j) = B(i,k) * C(k,j)", order="ikj")
"""

import sam.graph.draw  # noqa: F401  (draws compiled graphs in Jupyter: Graph._repr_svg_)
from custard.api import compile, compile_einsum, default_order
from sam.errors import CompileError

__all__ = ["CompileError", "compile", "compile_einsum", "counts", "default_order"]


def __getattr__(name: str):
    """``custard.counts`` (Table 1 primitive counts) without an explicit import."""
    if name == "counts":
        import custard.counts

        return custard.counts
    raise AttributeError(f"module 'custard' has no attribute {name!r}")
