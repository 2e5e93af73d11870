"""Custard: compile tensor index notation with formats and schedules to SAM dataflow graphs.

>>> import custard
>>> graph = custard.compile("X(i,j) = B(i,k) * C(k,j)", order="ikj")
"""

from custard.api import compile, compile_einsum, default_order
from sam.errors import CompileError

__all__ = ["CompileError", "compile", "compile_einsum", "default_order"]
