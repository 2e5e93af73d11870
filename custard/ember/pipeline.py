"""The Ember pipeline (Ember paper Fig. 11, Table 4): scf -> slc (``scf-to-slc``) -> emb-opt0..3
(O1 vectorization, O2 bufferization, O3 queue alignment) -> dlc (``slc-to-dlc``), and running
each level. An input already at the SLC or DLC level (the artifact's ``eb_slc_O0.mlir``,
``eb_slc_O3.mlir``, ``eb_dlc.mlir``) starts the pipeline there (:func:`input_level`)."""

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

    scf: ModuleOp | None
    slc: ModuleOp | None
    dlc: ModuleOp
    level: int
    vlen: int
    #: the level the input was at: "scf", "slc" or "dlc" (the levels before it are None)
    start: str = "scf"

    def at(self, level: str) -> ModuleOp:
        """The module at ``level``; a level before the input's is refused in one line."""
        mod = {"scf": self.scf, "slc": self.slc, "dlc": self.dlc}[level]
        if mod is None:
            raise EmberError(f"the input is {self.start.upper()} code: it has no {level} level "
                             f"(use {' or '.join(_AFTER[self.start])})")
        return mod


_AFTER = {"scf": ("scf", "slc", "dlc"), "slc": ("slc", "dlc"), "dlc": ("dlc",)}


def input_level(mod: ModuleOp) -> str:
    """``dlc`` for a module holding DLC operations, ``slc`` for SLC/SLCVEC ones, else ``scf``."""
    names = {op.name.split(".")[0] for op in mod.walk()}
    if "dlc" in names:
        return "dlc"
    return "slc" if names & {"slc", "slcvec"} else "scf"


def drop_unused_results(mod: ModuleOp) -> ModuleOp:
    """SLC input: a callback declaring results it neither yields nor anyone uses (the
    artifact's ``slc.callback {...} : index``) rebuilt without them."""
    from custard.ember import slc

    mod = mod.clone()
    for cb in [op for op in mod.walk() if isinstance(op, slc.CallbackOp)]:
        last = cb.body.block.last_op
        if cb.res and not isinstance(last, slc.YieldOp) and not any(r.uses for r in cb.res):
            new = slc.CallbackOp.build(result_types=[[]],
                                       regions=[cb.detach_region(cb.body)])
            new.attributes |= cb.attributes
            parent = cb.parent_block()
            assert parent is not None
            parent.insert_op_before(new, cb)
            parent.erase_op(cb)
    return mod


def mark_innermost(mod: ModuleOp) -> ModuleOp:
    """SLC input: mark each innermost ``slc.for`` a vectorization candidate
    (``slcvec.vectorize_for``, as scf-to-slc does) unless the module marks some already."""
    from custard.ember import slc, slcvec

    if any(isinstance(op, slcvec.VectorizeForOp) for op in mod.walk()):
        return mod
    mod = mod.clone()
    for loop in [op for op in mod.walk() if isinstance(op, slc.ForOp)]:
        if not any(isinstance(o, slc.ForOp | slcvec.ForOp) for o in loop.body.walk()):
            block = loop.body.block
            marker = slcvec.VectorizeForOp.build()
            if block.first_op is not None:
                block.insert_op_before(marker, block.first_op)
            else:
                block.add_op(marker)
    return mod


def check_buffer_loops(mod: ModuleOp, path: str = "<input>") -> None:
    """Refuse a callback loop that walks a buffer by a step other than the lanes it reads
    (``slcvec.from_buffer %buf[%i] -> vector<V>`` in an ``scf.for`` of step 1 reads each
    element up to ``V`` times: the artifact's ``eb_slc_O3.mlir``/``eb_dlc.mlir``, docs/ember.md
    "Differences from the artifact")."""
    from xdsl.dialects import scf

    from custard.ember.rewrite import const_int
    from custard.ember.slcvec import FromBufferOp

    for loop in mod.walk():
        if not isinstance(loop, scf.ForOp):
            continue
        iv = loop.body.block.args[0]
        for op in loop.body.walk():
            if isinstance(op, FromBufferOp) and op.operands[1] is iv:
                lanes = op.result.type.get_shape()[0]
                step = const_int(loop.step)
                if step != lanes:
                    raise EmberError(
                        f"{path}: a callback walks a buffer with step "
                        f"{step if step is not None else 'not constant'} but reads vectors of "
                        f"{lanes} (slcvec.from_buffer), so each element would count up to "
                        f"{lanes} times (the Ember artifact's O3 code has this step; write "
                        f"step {lanes})")

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
    start = input_level(mod)
    if start != "scf":
        check_buffer_loops(mod, path)
    if start == "dlc":
        if level:
            raise EmberError(f"{path}: the input is DLC code, which -O{level} cannot optimize "
                             "(the optimizations rewrite scf or SLC code); drop -O")
        return Compiled(None, None, mod, level, vlen, "dlc")
    if start == "slc":
        slc_mod = optimize(mark_innermost(drop_unused_results(mod)), level, vlen)
        dlc_mod = cleanup(slc_to_dlc(slc_mod))
        verify(dlc_mod, "<after slc-to-dlc>")
        return Compiled(None, slc_mod, dlc_mod, level, vlen, "slc")
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
