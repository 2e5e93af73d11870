"""Custard: compile tensor index notation with formats and schedules to SAM dataflow graphs.

>>> import custard
>>> graph = custard.compile("X(i,j) = B(i,k) * C(k,j)", order="ikj")
"""

from custard.api import compile, compile_einsum, default_order
from sam.errors import CompileError
from sam.graph.model import Graph

__all__ = ["CompileError", "compile", "compile_einsum", "counts", "default_order"]


def _picture(graph: Graph) -> str | None:
    """Draw ``graph`` as SVG for Jupyter (``Graph._repr_svg_``); imports the drawing module
    only when a notebook first shows a graph, so ``custard compile`` starts no slower."""
    from sam.graph.draw import to_svg

    return to_svg(graph)


if Graph.picture is None:
    Graph.picture = _picture


def __getattr__(name: str):
    """``custard.counts`` (Table 1 primitive counts) without an explicit import."""
    if name == "counts":
        import custard.counts

        return custard.counts
    raise AttributeError(f"module 'custard' has no attribute {name!r}")
