"""The Ember pipeline (Ember paper Fig. 11, Table 4): scf -> slc (``scf-to-slc``) -> emb-opt0..3
(O1 vectorization, O2 bufferization, O3 queue alignment) -> dlc (``slc-to-dlc``), and running
each level."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from custard.ember.align import align
from custard.ember.bind import bind
from custard.ember.bufferize import bufferize
from custard.ember.cleanup import cleanup
from custard.ember.context import EXPECTED, parse_module, verify
from custard.ember.dlc_interp import run_dlc
from custard.ember.errors import EmberError
from custard.ember.interp import Interpreter, find_function
from custard.ember.scf_to_slc import scf_to_slc
from custard.ember.slc_to_dlc import slc_to_dlc
from custard.ember.vectorize import vectorize

LEVELS = (0, 1, 2, 3)


@dataclass
class Compiled:
    """The three IRs of one compilation."""

    scf: ModuleOp
    slc: ModuleOp
    dlc: ModuleOp
    level: int
    vlen: int


def optimize(slc_mod: ModuleOp, level: int, vlen: int = 8) -> ModuleOp:
    """emb-opt``level`` of Table 4 applied to SLC code."""
    if level not in LEVELS:
        raise EmberError(f"unknown optimization level -O{level} (use -O0, -O1, -O2 or -O3)")
    if vlen < 1:
        raise EmberError(f"--vlen must be at least 1, got {vlen}")
    mod = slc_mod
    if level >= 1:
        mod = vectorize(mod, vlen)
    if level >= 2:
        mod = bufferize(mod)
    if level >= 3:
        mod = align(mod)
    mod = cleanup(mod) if mod is not slc_mod else mod
    verify(mod, f"<after -O{level}>")
    return mod


def require_function(mod: ModuleOp, path: str = "<input>") -> None:
    """Refuse a module without a function body to compile (:class:`EmberError`)."""
    if not any(isinstance(op, FuncOp) and op.body.blocks for op in mod.body.block.ops):
        raise EmberError(f"{path}: no func.func with a body; {EXPECTED}")


def compile_module(scf_mod: ModuleOp | str, level: int = 3, vlen: int = 8,
                   path: str = "<input>") -> Compiled:
    """Compile scf code (a module or MLIR text) at ``-O level``."""
    mod = parse_module(scf_mod, path) if isinstance(scf_mod, str) else scf_mod
    require_function(mod, path)
    if any(op.name.startswith(("slc.", "slcvec.", "dlc.")) for op in mod.walk()):
        raise EmberError(f"{path}: the input is already SLC/DLC code; the pipeline starts from "
                         "scf code (e.g. eb_scf.mlir or `custard ember --op sls`)")
    slc0 = scf_to_slc(mod)
    verify(slc0, "<after scf-to-slc>")
    slc_mod = optimize(slc0, level, vlen)
    dlc_mod = cleanup(slc_to_dlc(slc_mod))
    verify(dlc_mod, "<after slc-to-dlc>")
    return Compiled(mod, slc_mod, dlc_mod, level, vlen)


def with_outputs(mod: ModuleOp, tensors: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``tensors`` plus the outputs ``mod`` (best its scf level, whose stores name their
    indices) derives for them (:func:`custard.ember.bind.bind`), so that every level of a
    compilation runs on outputs of the same shape."""
    from custard.ember.bind import stored_args
    from custard.ember.interp import arg_names

    fn = find_function(mod)
    args = bind(fn, tensors)
    names = arg_names(fn)
    out = dict(tensors)
    for i in stored_args(fn):
        out.setdefault(names[i], args[i])
    return out


def run_module(mod: ModuleOp, tensors: dict[str, np.ndarray]
               ) -> tuple[np.ndarray, dict[str, list[Any]] | None]:
    """Run a module at any level on named inputs: its first result and, for DLC code, the
    queue trace."""
    fn = find_function(mod)
    args = bind(fn, tensors)
    if any(op.name.startswith("dlc.") for op in mod.walk()):
        out, trace, _ = run_dlc(mod, args)
    else:
        out, trace = Interpreter().run_function(fn, args), None
    if not out:
        raise EmberError(f"@{fn.sym_name.data} returns nothing to write")
    return np.asarray(out[0]), trace
