"""Bind a graph's input tensors from command-line specs (``-t B=west0479.mtx``).

A spec is one of:

* a file (``.mtx``, ``.tns``, ``.npy`` dense array, ``.npz`` scipy sparse) or a shipped data name
  (``west0479``, ``splatt-small``);
* a number, for a scalar (``-t b=2.5``);
* ``random:DENSITY[:SEED[:SHAPE]]``: uniform random nonzeros (``SHAPE`` like ``100x200``; by
  default each mode takes the size of its index variable from the other operands);
* ``runs:RUN[:NNZ[:SEED[:SIZE]]]`` / ``blocks:BLOCK[:NNZ[:SEED[:SIZE]]]``: the SAM paper's vector
  pairs (Sec. 6.3, Figure 17); the first tensor bound to a spec gets ``b``, the second ``c``;
* ``orig-random:SPARSITY[:SEED[:SHAPE]]``, ``orig-runs:RUN[:NNZ[:SEED[:SIZE]]]``,
  ``orig-blocks:BLOCK[:NNZ[:SEED[:SIZE]]]``: the original SAM artifact's generators, giving its
  exact data (:mod:`formats.synthetic` ``original_*``; NNZ 400 and SIZE 2000 by default);
* another bound tensor, ``B``, or its transpose, ``B^T`` / ``transpose(B)``.

Every tensor is stored in the format the graph's comment gives it, and the sizes of shared index
variables must agree; anything else is one clear :class:`BindError`.

The inputs of several graphs run one after another (the phases of a :mod:`sam.program`, the
statements of a ``custard dag`` program) are bound phase by phase (:func:`bind_phases`): a
synthetic spec takes its sizes from the tensors bound before it and from the results of earlier
phases, for which empty tensors of the right shape stand in (:func:`stand_ins`).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from formats.errors import FormatError, ToolkitError
from formats.format import Format
from formats.io import load_tensor
from formats.synthetic import (
    ORIGINAL_NNZ,
    ORIGINAL_VECTOR_SIZE,
    blocks,
    original_blocks,
    original_random,
    original_runs,
    random_tensor,
    runs,
)
from formats.tensor import Tensor
from sam.graph.implicit import implicit_names
from sam.graph.model import Graph
from sam.graph.validate import input_tensors, output_tensors


class BindError(ToolkitError):
    """A tensor binding that cannot be satisfied."""


class _SizeUnknown(BindError):
    """A synthetic tensor's shape is not known (yet) from the other operands."""


def index_modes(graph: Graph) -> dict[str, dict[int, str]]:
    """tensor -> {mode: index variable}, read off the graph's scanners and writers."""
    modes: dict[str, dict[int, str]] = {}
    for block in graph.blocks.values():
        var = block.attrs.get("index")
        mode = block.attrs.get("mode", "")
        if block.tensor and var and mode.isascii() and mode.isdigit() and len(mode) < 19:
            modes.setdefault(block.tensor, {}).setdefault(int(mode), var)
    return modes


def parse_bindings(items: list[str]) -> dict[str, str]:
    """``["B=west0479.mtx", "c=random:0.1"]`` -> {"B": "west0479.mtx", ...}."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, spec = item.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", name.strip()) or not spec:
            raise BindError(f"tensor binding {item!r}: write NAME=SPEC, e.g. -t B=west0479.mtx")
        if name.strip() in out:
            raise BindError(f"tensor {name.strip()} is bound twice")
        out[name.strip()] = spec.strip()
    return out


#: spec heads of synthetic tensors: ours, and the original artifact's (``orig-``)
SYNTHETIC_KINDS = ("random", "runs", "blocks", "orig-random", "orig-runs", "orig-blocks")


def _synthetic_kind(spec: str) -> str | None:
    head = spec.split(":", 1)[0]
    return head if head in SYNTHETIC_KINDS else None


def _derived(spec: str) -> tuple[str, bool] | None:
    m = re.fullmatch(r"([A-Za-z_][A-Za-z_0-9]*)(\^T)?", spec) or re.fullmatch(
        r"transpose\(\s*([A-Za-z_][A-Za-z_0-9]*)\s*\)", spec)
    if m is None:
        return None
    transposed = spec.endswith("^T") or spec.startswith("transpose")
    return m.group(1), transposed


def _number(spec: str) -> float | None:
    try:
        value = float(spec)
    except ValueError:
        return None
    if not np.isfinite(value):
        raise BindError(f"scalar {spec!r}: a scalar must be a finite number")
    return value


def seed_for(seed: int, name: str) -> int:
    """The seed of a synthetic operand without one: derived from ``--seed`` and its name, so
    that two operands never share data by accident (``-t D=random:0.2 -t E=random:0.2``)."""
    return (seed * 1_000_003 + zlib.crc32(name.encode())) % 2**31


def bind_tensors(graph: Graph, specs: Mapping[str, str], *, seed: int = 0,
                 known: Mapping[str, Tensor] | None = None,
                 resolved: dict[str, str] | None = None) -> dict[str, Tensor]:
    """Resolve every spec to a tensor in the graph's format (see module docstring).

    ``resolved``, when given, receives every synthetic operand's full spec (density, the seed
    used, shape), for the report: the run can be repeated from it.

    ``known`` tensors (e.g. those of earlier phases of a :mod:`sam.program`) need no spec; specs
    may refer to them (``C=B^T``) and they size synthetic tensors, but are not returned."""
    known = dict(known or {})
    needed = [n for n in input_tensors(graph) if n not in known]
    implicit = [n for n in specs if n in implicit_names(graph)]
    if implicit:
        raise BindError(f"tensor {implicit[0]} is made by the graph itself (a constant, an "
                        "index range or a copy of another input it records); it takes no -t")
    extra = [n for n in specs if n not in needed]
    if extra:
        raise BindError(
            f"tensor {extra[0]} is not read by the graph (it reads: {', '.join(needed)})"
        )
    missing = [n for n in needed if n not in specs]
    if missing:
        raise BindError(
            f"the graph reads tensor {missing[0]} but it is not bound; add -t {missing[0]}=..."
        )
    modes = index_modes(graph)
    orders = {n: (graph.formats[n].order if n in graph.formats else
                  (max(modes.get(n, {-1: ""})) + 1)) for n in needed}
    out: dict[str, Tensor] = dict(known)

    def fmt_of(name: str) -> Format | None:
        return graph.formats.get(name)

    def finish(name: str, tensor: Tensor) -> None:
        if tensor.order != orders[name]:
            raise BindError(
                f"{name} is bound to a tensor of order {tensor.order} (shape "
                f"{'x'.join(map(str, tensor.shape)) or 'scalar'}) but the graph uses it as an "
                f"order-{orders[name]} tensor"
            )
        fmt = fmt_of(name)
        if fmt is not None and fmt != tensor.format:
            try:
                tensor = tensor.with_format(fmt)
            except FormatError as err:  # e.g. too large for memory in the graph's format
                raise BindError(f"{name}={specs[name]}: {err}") from None
        tensor.name = name
        out[name] = tensor

    # 1. files, shipped names and numbers
    for name in needed:
        spec = specs[name]
        if _synthetic_kind(spec) or (_derived(spec) and (_derived(spec)[0] in specs
                                                         or _derived(spec)[0] in known)):
            continue
        value = _number(spec)
        if value is not None:
            finish(name, Tensor.scalar(value, name))
        else:  # in its own format first: finish() names a tensor of the wrong order
            finish(name, load_tensor(spec))
    # 2. tensors derived from others, and synthetic tensors sized by their index variables
    #    (in rounds: a synthetic tensor can size another, a derived one can copy a synthetic)
    pending = [n for n in needed if n not in out]
    pairs: dict[str, list[Tensor]] = {}
    while pending:
        done = [name for name in pending
                if _resolve(name, specs, out, orders, modes, pairs, seed, finish, resolved)]
        if not done:  # stuck: say why (a synthetic tensor's size is more telling than a cycle)
            first = next((n for n in pending if _synthetic_kind(specs[n])), pending[0])
            _resolve(first, specs, out, orders, modes, pairs, seed, finish, resolved, last=True)
        pending = [n for n in pending if n not in done]
    check_sizes(out, modes)
    return {n: t for n, t in out.items() if n not in known}


def check_inputs(needed: Sequence[str], specs: Mapping[str, str]) -> None:
    """A program's inputs ``needed`` against its specs: each bound, and nothing else."""
    extra = [n for n in specs if n not in needed]
    if extra:
        raise BindError(f"tensor {extra[0]} is not an input of the program (its inputs: "
                        f"{', '.join(needed)})")
    missing = [n for n in needed if n not in specs]
    if missing:
        raise BindError(f"the program reads tensor {missing[0]} but it is not bound; add "
                        f"-t {missing[0]}=...")


def bind_phases(phases: Sequence[tuple[Graph, Mapping[str, str]]], specs: Mapping[str, str], *,
                seed: int = 0, bound: dict[str, Tensor] | None = None,
                computed: Mapping[str, Tensor] | None = None,
                resolved: dict[str, str] | None = None) -> dict[str, Tensor]:
    """Bind ``specs`` (by program name) in the first of the ``phases`` that reads each; a phase
    is a graph and the map of its tensor names to program names (a name not in it is the same).

    Every tensor bound so far (``bound``, updated in place when given) is known to the later
    phases, and the results of earlier phases (``computed`` ones, then those :func:`stand_ins`
    give) size their synthetic specs. Returns ``bound``; ``resolved`` as in
    :func:`bind_tensors`, by program name."""
    bound = {} if bound is None else bound
    stand: dict[str, Tensor] = dict(computed or {})
    for graph, names in phases:
        graph_names = {names.get(t, t): t for t in input_tensors(graph)}
        mine = {g: specs[p] for p, g in graph_names.items() if p in specs and p not in bound}
        known = {g: bound.get(p, stand.get(p)) for p, g in graph_names.items()
                 if p in bound or p in stand}
        known.update({p: t for p, t in bound.items() if p not in graph_names})
        seen: dict[str, str] | None = None if resolved is None else {}
        new = bind_tensors(graph, mine, seed=seed, known=known, resolved=seen)
        bound.update({names.get(g, g): t for g, t in new.items()})
        if resolved is not None and seen:
            resolved.update({names.get(g, g): full for g, full in seen.items()})
        have = {**known, **new}
        stand.update({names.get(t, t): s for t, s in stand_ins(graph, have).items()})
    return bound


def stand_ins(graph: Graph, have: Mapping[str, Tensor]) -> dict[str, Tensor]:
    """Empty tensors of the shapes ``graph`` writes, from the index variables' sizes its
    tensors ``have`` give and those it declares: they stand in for its results while later
    phases are bound. A result whose shape is not known has none."""
    sizes: dict[str, int] = dict(graph.contract.dims)
    modes = index_modes(graph)
    for name, tensor in have.items():
        for mode, var in modes.get(name, {}).items():
            if mode < tensor.order:
                sizes.setdefault(var, tensor.shape[mode])
    out: dict[str, Tensor] = {}
    for name in output_tensors(graph):
        fmt = graph.formats.get(name)
        order = fmt.order if fmt is not None else len(modes.get(name, {}))
        shape = [sizes.get(modes.get(name, {}).get(m, ""), -1) for m in range(order)]
        if -1 not in shape:
            empty = np.zeros((0, order), np.int64)
            out[name] = Tensor.from_coo(empty, np.zeros(0), tuple(shape), fmt)
    return out


def _resolve(name: str, specs: Mapping[str, str], out: dict[str, Tensor],
             orders: dict[str, int], modes: dict[str, dict[int, str]],
             pairs: dict[str, list[Tensor]], seed: int, finish: Callable[[str, Tensor], None],
             resolved: dict[str, str] | None = None, last: bool = False) -> bool:
    """Bind a derived or synthetic tensor if what it needs is known; False to try later (with
    ``last``, raise the reason instead)."""
    spec = specs[name]
    d = _derived(spec)
    if d is not None and _synthetic_kind(spec) is None:
        src, transposed = d
        if src not in out:
            if last:
                raise BindError(f"{name}={spec} and {src}={specs[src]} refer to each other; bind "
                                "one of them to a file, a number or a random/runs/blocks spec")
            return False
        tensor = out[src]
        if transposed:
            if tensor.order != 2:
                raise BindError(f"{name}={spec}: only matrices can be transposed, {src} has "
                                f"order {tensor.order}")
            coords, vals = tensor.to_coo()
            tensor = Tensor.from_coo(coords[:, ::-1], vals, tensor.shape[::-1], None)
        finish(name, tensor)
        return True
    kind = _synthetic_kind(spec)
    parts = spec.split(":")[1:]
    sizes = _index_sizes(out, modes)
    try:
        if kind in ("random", "orig-random"):
            tensor, full = _random(name, parts, orders[name], modes.get(name, {}), sizes,
                                   seed_for(seed, name), original=kind == "orig-random")
            if resolved is not None:
                resolved[name] = full
            finish(name, tensor)
            return True
        if spec not in pairs:  # the two vectors of a pair share a seed: derived from the spec
            b, c, full = _pair(name, kind, parts, modes.get(name, {}), sizes,
                               seed_for(seed, spec))
            pairs[spec] = [b, c]
            if resolved is not None:
                resolved[spec] = full
    except _SizeUnknown:
        if last:
            raise
        return False
    if not pairs[spec]:
        raise BindError(f"{kind} spec {spec!r} makes a pair of vectors; bind it to at most two "
                        "tensors")
    if resolved is not None:
        resolved[name] = resolved.get(spec, spec)
    finish(name, pairs[spec].pop(0))
    return True


def synthetic_tensor(spec: str, name: str = "T", *, seed: int = 0) -> Tensor:
    """A ``random:DENSITY[:SEED]:SHAPE`` spec on its own (no graph to size it: the shape must be
    given), e.g. for ``sam-sim tensor``."""
    if _synthetic_kind(spec) != "random":
        raise BindError(f"{spec!r}: only random:DENSITY[:SEED]:SHAPE specs make a tensor on "
                        "their own (runs and blocks make pairs of vectors for a graph)")
    parts = spec.split(":")[1:]
    if len(parts) < 3 or not parts[2]:
        raise BindError(f"{spec!r}: give the shape, e.g. random:0.1:0:100x200")
    order = len(parts[2].lower().split("x"))
    return _random(name, parts, order, {}, {}, seed_for(seed, name))[0]


def _index_sizes(tensors: Mapping[str, Tensor], modes: dict[str, dict[int, str]]
                 ) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for name, tensor in tensors.items():
        for mode, var in modes.get(name, {}).items():
            if mode < tensor.order:
                sizes.setdefault(var, tensor.shape[mode])
    return sizes


def check_sizes(tensors: Mapping[str, Tensor], modes: dict[str, dict[int, str]]) -> None:
    """Raise when two tensors give one index variable different sizes."""
    seen: dict[str, tuple[int, str, int]] = {}
    for name, tensor in tensors.items():
        for mode, var in sorted(modes.get(name, {}).items()):
            if mode >= tensor.order:
                continue
            size = tensor.shape[mode]
            if var in seen and seen[var][0] != size:
                n0, t0, m0 = seen[var]
                raise BindError(
                    f"index {var} has size {n0} in {t0} (mode {m0}) but {size} in {name} "
                    f"(mode {mode}); the shapes do not fit the expression"
                )
            seen.setdefault(var, (size, name, mode))


def _shape_for(name: str, order: int, modes: dict[int, str], sizes: dict[str, int],
               given: str | None) -> tuple[int, ...]:
    if given:
        try:
            shape = tuple(int(x) for x in given.lower().split("x"))
        except ValueError:
            raise BindError(f"{name}: shape {given!r} must look like 100x200") from None
        if len(shape) != order:
            raise BindError(f"{name}: shape {given} has {len(shape)} dimension(s), the graph "
                            f"uses {name} with {order}")
        return shape
    shape = []
    for mode in range(order):
        var = modes.get(mode)
        if var not in sizes:
            raise _SizeUnknown(
                f"cannot tell the size of mode {mode} (index {var}) of {name} from the other "
                f"tensors; give a shape, e.g. {name}=random:0.1:0:" + "x".join(["100"] * order)
            )
        shape.append(sizes[var])
    return tuple(shape)


def _random(name: str, parts: list[str], order: int, modes: dict[int, str],
            sizes: dict[str, int], seed: int, original: bool = False) -> tuple[Tensor, str]:
    kind, what = ("orig-random", "SPARSITY") if original else ("random", "DENSITY")
    if not parts or len(parts) > 3:
        raise BindError(f"{name}: write {kind}:{what}[:SEED[:SHAPE]], e.g. {kind}:"
                        f"{'0.95:0:250x100' if original else '0.1:7'}")
    try:
        density = float(parts[0])
        rseed = int(parts[1]) if len(parts) > 1 and parts[1] else seed
    except ValueError:
        raise BindError(f"{name}: {kind}:{':'.join(parts)}: {what} is a number in [0, 1] and "
                        "SEED an integer") from None
    if not 0.0 <= density <= 1.0:
        raise BindError(f"{name}: {what.lower()} {density} is not in [0, 1]")
    if rseed < 0 or (original and rseed >= 2**32):
        raise BindError(f"{name}: {kind}:{':'.join(parts)}: SEED is a non-negative integer"
                        + (" below 2**32" if original else ""))
    shape = _shape_for(name, order, modes, sizes, parts[2] if len(parts) > 2 else None)
    full = f"{kind}:{density!r}:{rseed}:{'x'.join(map(str, shape))}"
    try:
        if original:
            if not shape:
                raise BindError(f"{name}: {kind} makes tensors of order 1 or more")
            return original_random(shape, density, rseed, name=name), full
        return random_tensor(shape, density, rseed, name=name), full
    except FormatError as err:  # too large for memory, a negative size
        raise BindError(f"{name}={kind}:{':'.join(parts)}: {err}") from None


def _pair(name: str, kind: str, parts: list[str], modes: dict[int, str], sizes: dict[str, int],
          seed: int) -> tuple[Tensor, Tensor, str]:
    usage = f"{kind}:LENGTH[:NNZ[:SEED[:SIZE]]], e.g. {kind}:8:400:0:2000"
    original = kind.startswith("orig-")
    try:
        length = int(parts[0])
        if len(parts) > 3:
            size = int(parts[3])
        else:  # the original's vectors are always 2000 long; ours fit the other operands
            size = (ORIGINAL_VECTOR_SIZE if original else
                    _shape_for(name, 1, modes, sizes, None)[0])
        default_nnz = ORIGINAL_NNZ if original else max(1, size // 5)
        nnz = int(parts[1]) if len(parts) > 1 and parts[1] else default_nnz
        pseed = int(parts[2]) if len(parts) > 2 and parts[2] else seed
    except (ValueError, IndexError):
        raise BindError(f"{name}: write {usage}") from None
    if pseed < 0 or (original and pseed >= 2**32):
        raise BindError(f"{name}: {kind}:{':'.join(parts)}: SEED is a non-negative integer"
                        + (" below 2**32" if original else ""))
    if original:
        make_original = original_runs if kind == "orig-runs" else original_blocks
        b, c = make_original(length, nnz, pseed, size=size)
    else:
        b, c = (runs if kind == "runs" else blocks)(size, nnz, length, pseed)
    return b, c, f"{kind}:{length}:{nnz}:{pseed}:{size}"
