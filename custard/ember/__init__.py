"""Ember front end (issue 15, docs/ember.md): embedding operations in scf MLIR compiled to the
``slc``/``slcvec``/``dlc`` dialects (xDSL), optimized (O0-O3), interpreted at every level and
lowered to TMU graphs.

>>> from custard.ember import compile_module, run_module, scf_text
>>> c = compile_module(scf_text("sls"), level=3, vlen=8)
"""

from __future__ import annotations

from custard.ember.errors import EmberError
from custard.ember.ops import OPS, random_inputs, reference, scf_text
from custard.ember.pipeline import Compiled, compile_module, optimize, run_module

__all__ = ["OPS", "Compiled", "EmberError", "compile_module", "optimize", "random_inputs",
           "reference", "run_module", "scf_text"]
