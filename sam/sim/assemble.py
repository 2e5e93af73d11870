"""Turn what the level writers recorded into output tensors (and check it is well formed).

The writers of one output tensor record one coordinate level per mode (segment and coordinate
arrays, in stream order) and one value array. Read in the output format's level order they form a
compressed fibertree; it must be consistent (as many fibers at each level as coordinates above,
as many values as coordinates in the last level) with strictly increasing coordinates in every
fiber. A graph that violates this (a missing coordinate dropper, a discordant traversal) gets a
clear error instead of a wrong tensor. The tensor is then converted to the requested format, and
to the one the graph attribute ``output_formats`` gives, if any (:mod:`sam.graph.implicit`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from formats.format import Format
from formats.levels import CompressedLevel
from formats.tensor import Tensor
from sam.blocks.arrays import ArrayStore
from sam.blocks.writers import LevelWriter
from sam.errors import SimulationError
from sam.graph.scatter import scattered_outputs, stored_result

if TYPE_CHECKING:
    from sam.graph.model import Graph
    from sam.sim.elaborate import BlockRun


def assemble_outputs(
    graph: Graph, runs: Mapping[str, BlockRun], inputs: Mapping[str, Tensor]
) -> dict[str, Tensor]:
    """Output tensors by name, built from every tensor's level writers."""
    by_tensor: dict[str, dict[str, dict[str, np.ndarray]]] = {}
    outputs: dict[str, Tensor] = {}
    scattered = set(scattered_outputs(graph))
    for run in runs.values():
        block = run.block
        if isinstance(block, LevelWriter):
            key = "vals" if block.writes_values else str(block.mode)
            by_tensor.setdefault(block.tensor, {})[key] = block.recorded(run.st, run.mem)
        elif isinstance(block, ArrayStore) and block.tensor in scattered:
            vals = block.recorded(run.st, run.mem)["vals"]
            outputs[block.tensor] = stored_result(graph, block.tensor, vals, inputs)

    for run in runs.values():  # blocks that build their output themselves (execute)
        outputs.update(run.block.results(run.st, run.mem, inputs))
    for name, parts in by_tensor.items():
        fmt = graph.formats.get(name)
        if "vals" not in parts:
            raise SimulationError(f"output {name} has no value writer (fiberwrite mode=vals)")
        modes = sorted(int(k) for k in parts if k != "vals")
        if fmt is None:
            fmt = Format((CompressedLevel.letter,) * len(modes), tuple(modes))
        if sorted(fmt.mode_order) != modes:
            raise SimulationError(
                f"output {name} has format {fmt} but level writers for modes {modes}; "
                "write every mode of the output"
            )
        shape = _output_shape(graph, name, fmt, inputs, parts)
        levels = []
        n_parents = 1
        parent: dict[str, np.ndarray] | None = None
        for mode in fmt.mode_order:
            rec = parts[str(mode)]
            crd = rec["crd"]
            seg = level_segments(rec, parent, name, mode)
            if len(seg) - 1 != n_parents:
                raise SimulationError(
                    f"output {name}: the writer of mode {mode} received {len(seg) - 1} fibers "
                    f"but the level above has {n_parents} coordinates; the graph is missing a "
                    "coordinate dropper (Def. 3.9) or drops too much"
                )
            if seg[-1] != len(crd):
                raise SimulationError(
                    f"output {name}: the writer of mode {mode} received coordinates after its "
                    "last stop token"
                )
            parent = rec
            _check_sorted(name, mode, seg, crd, shape[mode])
            levels.append(CompressedLevel(shape[mode], seg, crd))
            n_parents = len(crd)
        vals = parts["vals"]["vals"]
        if fmt.order == 0:
            if len(vals) > 1:
                raise SimulationError(
                    f"scalar output {name} received {len(vals)} values; a reducer is missing"
                )
            outputs[name] = Tensor.scalar(float(vals[0]) if len(vals) else 0.0, name)
            continue
        if len(vals) != n_parents:
            raise SimulationError(
                f"output {name}: {len(vals)} values were written but the last level has "
                f"{n_parents} coordinates; value and coordinate streams disagree"
            )
        written = Format((CompressedLevel.letter,) * fmt.order, fmt.mode_order)
        raw = Tensor(shape, written, levels, vals, name)
        outputs[name] = raw if written == fmt else raw.with_format(fmt)
    for name, fmt in graph.contract.output_formats.items():  # asked for, the loop order's not
        if name in outputs and outputs[name].format != fmt:
            outputs[name] = outputs[name].with_format(fmt)
    return outputs


def level_segments(rec: dict[str, np.ndarray], parent: dict[str, np.ndarray] | None,
                   name: str = "X", mode: int = 0) -> np.ndarray:
    """The segment array of one written level: which of its stop tokens close a fiber.

    There is one fiber per coordinate of the level above. A stop that follows a coordinate
    closes one; a stop with no coordinate before it (a *lone* stop) is, in the streams a graph
    cleans with coordinate droppers (Sec. 3.7), the mark of an empty fiber of some level above,
    and closes nothing here (Custard's writers read them so). Where a level legitimately holds
    empty fibers (no dropper cleaned it), ``S1`` reads the same whether it closes an empty fiber
    or marks an empty outer fiber; then the level is read against the level above, as a
    coordinate dropper does: a fresh stop ``Sm`` above is marked by a lone ``S(m+1)`` here, and
    every other stop closes a fiber.
    """
    stop_at, stop_level = rec["stop_at"], rec["stop_level"]
    if parent is None:  # the root level: one fiber
        if len(stop_at) == 0:
            return np.array([0, len(rec["crd"])], np.int64)
        return np.concatenate([[0], stop_at[:1]]).astype(np.int64)
    n_parent = len(parent["crd"])
    if len(stop_at) == n_parent:
        return np.concatenate([[0], stop_at]).astype(np.int64)
    after_data = np.empty(len(stop_at), dtype=bool)
    if len(stop_at):
        after_data[0] = stop_at[0] > 0
        after_data[1:] = stop_at[1:] > stop_at[:-1]
    if int(after_data.sum()) == n_parent:
        return np.concatenate([[0], stop_at[after_data]]).astype(np.int64)
    p_at, p_level = parent["stop_at"], parent["stop_level"]
    seg = [0]
    child = 0
    pstop = 0
    fresh = True
    for pc in range(n_parent + 1):
        while pstop < len(p_at) and p_at[pstop] == pc:
            if fresh and child < len(stop_at) and stop_level[child] == p_level[pstop] + 1 \
                    and not (child < len(after_data) and after_data[child]):
                child += 1  # the mark of an empty fiber above
            fresh = True
            pstop += 1
        if pc == n_parent or child >= len(stop_at):
            break
        seg.append(int(stop_at[child]))
        child += 1
        fresh = False
    if child == len(stop_at) and len(seg) == n_parent + 1:
        return np.array(seg, np.int64)
    raise SimulationError(
        f"output {name}: the stop tokens the writer of mode {mode} received do not match "
        f"the {n_parent} coordinates of the level above; the graph is missing a coordinate "
        "dropper (Def. 3.9) or drops too much"
    )


def _check_sorted(name: str, mode: int, seg: np.ndarray, crd: np.ndarray, size: int) -> None:
    if len(crd) and (crd.min() < 0 or crd.max() >= size):
        raise SimulationError(
            f"output {name}: coordinate {int(crd.max())} written to mode {mode} of size {size}"
        )
    if len(crd) > 1:
        rising = np.diff(crd) > 0
        boundary = np.zeros(len(crd) - 1, dtype=bool)
        starts = seg[1:-1]
        starts = starts[(starts > 0) & (starts < len(crd))]
        boundary[starts - 1] = True
        if not np.all(rising | boundary):
            raise SimulationError(
                f"output {name}: the writer of mode {mode} received coordinates out of order "
                "within a fiber; the loop order is discordant with the output's mode order "
                "(pick an output format whose mode order follows the loop order)"
            )


def _output_shape(
    graph: Graph, name: str, fmt: Format, inputs: Mapping[str, Tensor],
    parts: dict[str, dict[str, np.ndarray]],
) -> tuple[int, ...]:
    """Shape of an output: :func:`expected_shape`, and where the graph does not tell, one
    more than the largest coordinate written."""
    shape = _known_shape(graph, name, fmt.order, inputs)
    for mode, size in enumerate(shape):
        if size is None:
            crd = parts[str(mode)]["crd"]
            shape[mode] = int(crd.max()) + 1 if len(crd) else 0
    return tuple(shape)  # type: ignore[arg-type]


def expected_shape(graph: Graph, name: str, inputs: Mapping[str, Tensor]
                   ) -> tuple[int | None, ...] | None:
    """The shape output ``name`` of a validated graph will have, known before simulating: per
    mode, its recorded size or its index variable's size (None where only the written
    coordinates will tell); None when the graph gives ``name`` no format."""
    fmt = graph.formats.get(name)
    return None if fmt is None else tuple(_known_shape(graph, name, fmt.order, inputs))


def _known_shape(graph: Graph, name: str, order: int, inputs: Mapping[str, Tensor]
                 ) -> list[int | None]:
    """The graph's recorded shape of ``name``, else per mode the size of the index variable
    its level writer writes (None where no input tensor gives it)."""
    recorded = graph.contract.shapes.get(name)
    if recorded:
        return list(recorded)
    sizes = _index_sizes(graph, inputs)
    shape: list[int | None] = []
    for mode in range(order):
        writer = next(
            (b for b in graph.blocks.values() if isinstance(b, LevelWriter)
             and b.tensor == name and not b.writes_values and b.mode == mode),
            None,
        )
        ivar = writer.attrs.get("index") if writer else None
        shape.append(sizes[ivar] if ivar in sizes else None)
    return shape


def _index_sizes(graph: Graph, inputs: Mapping[str, Tensor]) -> dict[str, int]:
    """Dimension of each index variable, read off the scanners of the input tensors (and the
    graph attribute ``dims="i0=32,i1=64"``, for variables no scanned tensor shows, such as the
    levels a split block makes)."""
    sizes: dict[str, int] = dict(graph.contract.dims)
    for block in graph.blocks.values():
        ivar = block.attrs.get("index")
        if block.dot_type in ("fiberlookup", "bvlookup", "locate") and ivar \
                and block.tensor in inputs:
            tensor = inputs[block.tensor]
            try:
                mode = int(block.attrs.get("mode", ""))
            except ValueError:
                continue
            if 0 <= mode < tensor.order:
                sizes.setdefault(ivar, tensor.shape[mode])
    return sizes
