"""``sparse_tensor`` ops of the host interpreter (handlers registered in
:data:`custard.mlir.hostops.HANDLERS`): conversions, reading tensor files, the storage queries
(values, positions, coordinates, number of entries), ``foreach``, ``assemble``/``disassemble``
and ``print``.
"""

from __future__ import annotations

import re

import numpy as np

from custard.mlir.encoding import TensorType
from custard.mlir.hostops import Interpreter, dense, handles, type_after_to
from custard.mlir.printing import sparse_text
from custard.mlir.syntax import Loc, Op, error, split_top
from custard.mlir.values import HostType, Scope, Sparse, SparseConst, cast_values, read_tensor_file
from formats.levels import level_type
from formats.tensor import Tensor


# ------------------------------------------------------------------------ sparse tensors
@handles("sparse_tensor.convert")
def convert(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    src = scope.get(op.values()[0], op.loc)
    text = type_after_to(op) or op.types()[-1]
    t = interp.type(text, op.loc)
    tt = interp.tensor_type(text, op.loc)
    return [to_type(src, t, tt, op)]


def to_type(src: object, t: HostType, tt: TensorType, op: Op) -> object:
    """A host tensor value converted to the tensor type (format, element type)."""
    if not tt.sparse:
        return cast_values(dense(src, op), t.dtype)
    if isinstance(src, Sparse):
        tensor = src.tensor if src.tensor.format == tt.fmt else src.tensor.with_format(tt.fmt)
    elif isinstance(src, SparseConst):
        tensor = Tensor.from_coo(src.coords, src.vals.astype(np.float64), src.array.shape,
                                 tt.fmt)
    else:
        tensor = Tensor.from_dense(dense(src, op).astype(np.float64), tt.fmt)
    if tt.element not in ("f64", "f32"):
        tensor = Tensor(tensor.shape, tensor.format, tensor.levels,
                        np.asarray(cast_values(tensor.vals, t.dtype), dtype=np.float64))
    return Sparse(tensor, tt)


@handles("sparse_tensor.new")
def new(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    path = scope.get(op.values()[0], op.loc)
    text = type_after_to(op) or op.types()[-1]
    tt = interp.tensor_type(text, op.loc)
    width = re.search(r"crdWidth\s*=\s*([0-9]+)", interp.module.resolve(text))
    tensor = read_tensor_file(str(path), tt, op.loc, int(width.group(1)) if width else 0)
    if not tt.sparse:
        return [cast_values(tensor.to_dense(), np.dtype(tt.dtype))]
    return [to_type(Sparse(tensor, tt), interp.type(text, op.loc), tt, op)]


def sparse_value(v: object, op: Op) -> Sparse:
    if not isinstance(v, Sparse):
        raise error(op.loc, f"{op.name} of a tensor without a sparse encoding")
    return v


def _level(interp: Interpreter, op: Op, scope: Scope) -> int:
    text = op.attr("level") or op.attr("dimension")
    if text is not None:
        return int(text.split(":")[0].strip())
    vals = op.values()
    if len(vals) > 1:
        return int(scope.get(vals[1], op.loc))  # type: ignore[call-overload]
    raise error(op.loc, f"{op.name} without a level")


@handles("sparse_tensor.values")
def values(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    s = sparse_value(scope.get(op.values()[0], op.loc), op)
    t = interp.type(op.types()[-1] if not type_after_to(op) else type_after_to(op), op.loc)  # type: ignore[arg-type]
    return [cast_values(s.tensor.vals, t.dtype)]


def _level_array(interp: Interpreter, op: Op, scope: Scope, array: str, what: str
                 ) -> list[object]:
    """A copy of the stored array ``array`` (``seg``, ``crd``) of the level the op names."""
    s = sparse_value(scope.get(op.values()[0], op.loc), op)
    lvl = _level(interp, op, scope)
    level = s.tensor.levels[lvl]
    if not hasattr(level, array):
        raise error(op.loc, f"{op.name}: level {lvl} has no {what}")
    return [np.asarray(getattr(level, array), dtype=np.int64).copy()]


@handles("sparse_tensor.positions", "sparse_tensor.pointers")
def positions(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    return _level_array(interp, op, scope, "seg", "positions")


@handles("sparse_tensor.coordinates", "sparse_tensor.indices")
def coordinates(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    return _level_array(interp, op, scope, "crd", "coordinates")


@handles("sparse_tensor.number_of_entries")
def number_of_entries(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    s = sparse_value(scope.get(op.values()[0], op.loc), op)
    return [np.int64(len(s.tensor.vals))]


@handles("sparse_tensor.foreach")
def foreach(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    """Run the region on each stored entry in storage order (coordinates, value, carried
    values); a dense tensor's every entry in row-major order."""
    src = scope.get(op.values()[0], op.loc)
    inits = [scope.get(v, op.loc) for v in op.values()[1:]]
    t = interp.type(op.types()[0], op.loc)
    if isinstance(src, Sparse):
        coords, vals = src.tensor.to_coo()
        vals = cast_values(vals, src.dtype)
    else:
        arr = dense(src, op)
        coords = np.argwhere(np.ones(arr.shape, dtype=bool))
        vals = arr.reshape(-1)
    carried = inits
    for c, v in zip(coords, vals, strict=True):
        args = [np.int64(x) for x in c] + [t.dtype.type(v)] + carried
        carried = interp.run_region(op.regions[0], args, scope)
    return carried


def _loose_levels(text: str) -> list[bool]:
    """Which levels of an encoding's map are ``loose_compressed`` (positions in pairs)."""
    m = re.search(r"->\s*\((.*)\)", text, re.S)
    return ["loose_compressed" in part for part in split_top(m.group(1), ",")] if m else []


def _level_kind(level_class: type) -> str:
    """``dense``, ``compressed`` or ``singleton``, from a level class's capabilities."""
    kinds = {"stride": "dense", "segment": "compressed", "single": "singleton"}
    kind = kinds.get(level_class.positions)
    if kind is None:
        raise error(Loc("<assemble>", 0, 0), f"level format {level_class.name} not assembled")
    return kind


@handles("sparse_tensor.assemble")
def assemble(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    """A sparse tensor from its level buffers (positions, coordinates; a compressed level
    followed by singletons takes one coordinate array of rows) and its values."""
    names = op.values()
    if op.tokens and op.tokens[0].text == "(":  # (%pos, %crd), %values
        bufs, vals = names[:-1], names[-1]
    else:  # the older order: %values, %pos, %crd, ...
        vals, bufs = names[0], names[1:]
    text = type_after_to(op) or op.types()[-1]
    tt = interp.tensor_type(text, op.loc)
    if not tt.sparse:
        raise error(op.loc, "sparse_tensor.assemble of a dense type")
    loose = _loose_levels(interp.module.resolve(text))
    buffers = [np.asarray(dense(scope.get(b, op.loc), op)) for b in bufs]
    fmt = tt.fmt
    classes = [level_type(letter) for letter in fmt.levels]
    kinds = [_level_kind(c) for c in classes]
    shape = [int(d) for d in tt.shape]  # type: ignore[arg-type]
    sizes = [shape[m] for m in fmt.mode_order]
    levels: list[object] = []
    n, k = 1, 0
    while k < len(kinds):
        if kinds[k] == "dense":
            levels.append(classes[k](sizes[k]))
            n *= sizes[k]
            k += 1
            continue
        if kinds[k] != "compressed" or not buffers:
            raise error(op.loc, "sparse_tensor.assemble: a level without its buffers")
        pos = buffers.pop(0).astype(np.int64).reshape(-1)
        if k < len(loose) and loose[k]:
            lo, hi = pos[0:2 * n:2], pos[1:2 * n:2]
            if len(lo) and (lo[0] != 0 or np.any(lo[1:] != hi[:-1])):
                raise error(op.loc, "sparse_tensor.assemble: loose_compressed positions with "
                                    "gaps have no compressed level of ours")
            seg = np.concatenate([[0], hi])
        else:
            seg = pos[:n + 1]
        nnz = int(seg[-1])
        j = k + 1
        while j < len(kinds) and kinds[j] == "singleton":
            j += 1
        crd = buffers.pop(0).astype(np.int64)
        crd = crd.reshape(-1, j - k)[:nnz] if j - k > 1 else crd.reshape(-1)[:nnz]
        cols = [crd[:, c] for c in range(j - k)] if j - k > 1 else [crd]
        levels.append(classes[k](sizes[k], seg, cols[0]))
        for c in range(1, j - k):
            levels.append(classes[k + c](sizes[k + c], cols[c]))
        n, k = nnz, j
    values = np.asarray(dense(scope.get(vals, op.loc), op)).reshape(-1)[:n]
    tensor = Tensor(tuple(shape), fmt, levels, values.astype(np.float64))  # type: ignore[arg-type]
    return [Sparse(tensor, tt)]


@handles("sparse_tensor.disassemble")
def disassemble(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    """The level buffers (copied into the ``out_lvls`` buffers), the values (into
    ``out_vals``) and the lengths used of each."""
    s = sparse_value(scope.get(op.values()[0], op.loc), op)
    out_lvls, _ = op.group("out_lvls")
    out_vals, _ = op.group("out_vals")
    arrays: list[np.ndarray] = []
    levels = s.tensor.levels
    k = 0
    while k < len(levels):
        level = levels[k]
        if level.positions == "segment":
            arrays.append(np.asarray(level.seg))
            j = k + 1
            while j < len(levels) and levels[j].positions == "single":
                j += 1
            cols = [np.asarray(lv.crd) for lv in levels[k:j]]
            arrays.append(np.stack(cols, axis=1) if len(cols) > 1 else cols[0])
            k = j
        else:
            k += 1
    results: list[object] = []
    lengths: list[int] = []
    for name, data in zip(out_lvls + out_vals, [*arrays, s.tensor.vals], strict=True):
        target = np.array(dense(scope.get(name, op.loc), op), copy=True)
        flat = target.reshape(-1)
        src = np.asarray(data).reshape(-1)
        if len(src) > len(flat):
            raise error(op.loc, f"sparse_tensor.disassemble: {name} holds {len(flat)} "
                                f"entries, {len(src)} needed")
        flat[:len(src)] = cast_values(src, target.dtype)
        results.append(target)
        lengths.append(len(src))
    tail = _length_types(op)
    for k, n in enumerate(lengths):
        text = tail[k] if k < len(tail) else "index"
        t = interp.type(text, op.loc)
        value = np.asarray(n).astype(t.dtype)
        results.append(value if t.kind == "tensor" else value[()])
    return results


def _length_types(op: Op) -> list[str]:
    """The result types after ``->`` of a disassemble, the lengths' types last."""
    toks = op.after("->")
    types = [t.text for t in toks if t.kind in ("word", "bang") or t.text.startswith("tensor<")]
    n = len(op.results) // 2
    return types[n:]


@handles("sparse_tensor.has_runtime_library")
def has_runtime(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    return [np.bool_(False)]


@handles("sparse_tensor.print")
def sparse_print(interp: Interpreter, op: Op, scope: Scope) -> list[object]:
    s = sparse_value(scope.get(op.values()[0], op.loc), op)
    interp.out.write(sparse_text(s.tensor, s.type.element))
    return []
