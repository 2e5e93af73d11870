"""Tiled execution of any kernel (SAM paper Sec. 4.1, Figure 9).

``split(i,i0,i1,128)`` splits index variable ``i`` into a tile index ``i0`` and a coordinate
``i1`` inside the tile; ``tile=128`` (``--tile``) splits every variable so. The computation then
has two levels:

* the **tile-sequencing graph**: the same expression, compiled by Custard over the tile indices
  (``X(i,j)=B(i,k)*C(k,j)`` becomes ``T(i0,k0,j0)=B0(i0,k0)*C0(k0,j0)`` in the loop order), whose
  operands are the tile-coordinate tensors (:meth:`formats.tiling.Tiled.occupancy`: one entry per
  nonempty tile). Simulating it, SAM's scanners, intersecters and repeaters find the tuples of
  tiles that meet (products intersect, sums unite); every index is kept in the result so that
  each tuple comes out. Signs and constants are dropped in this graph (every value is 1 or more),
  so no tuple is lost to cancellation;
* the **per-tile compute graph**: the expression itself, compiled once and simulated on the tiles
  of each tuple; the partial results are placed at the tile's offset and summed over the reduced
  tile indices.

A sum combined with a term without its variable (``b(i) - C(i,j)*d(j)``) would add that term
once per tile of the sum; such kernels are tiled along the other variables only (the summed
variable is not split, and a notice says so).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from custard.schedule import schedule_option
from formats.format import Format
from formats.tensor import Tensor
from formats.tiling import Tiled, tile_tensor
from sam.errors import CompileError
from sam.graph.model import Graph
from sam.memory_model import Hierarchy, Step, TileUse
from sam.notation.expr import Access, Add, Assignment, Literal, Mul, Neg, Node
from sam.notation.parse import parse_expression
from sam.program import Program, run_program
from sam.sim.engine import simulate

if TYPE_CHECKING:
    from custard.reproduce.sweep import Sweeper

TUPLE = "T"  # the tile-sequencing graph's result


@dataclass
class TileRun:
    """One per-tile simulation: the tile tuple (tile index of each variable) and its cycles."""

    key: dict[str, int]
    cycles: int
    #: operand name -> (tile key, number of stored entries) of the tile it read
    tiles: dict[str, tuple[tuple[int, ...], int]]
    out_nnz: int


@dataclass
class TiledResult:
    outputs: dict[str, Tensor]
    runs: list[TileRun]
    #: cycles of the tile-sequencing graph
    sequence_cycles: int
    sizes: dict[str, int]
    order: list[str]
    notices: list[str] = field(default_factory=list)

    @property
    def compute_cycles(self) -> int:
        """Per-tile compute cycles, summed (tiles run one after another)."""
        return sum(r.cycles for r in self.runs)


def tile_sizes(schedule: str | Sequence[str] | None, tile: int | None,
               variables: Sequence[str]) -> tuple[dict[str, int], list[str]]:
    """Tile size of each split variable and the loop order (original variables) the schedule
    gives: ``split(i,i0,i1,128)`` -> ``{"i": 128}``; ``tile`` splits every variable."""
    sizes: dict[str, int] = {v: int(tile) for v in variables} if tile else {}
    if tile is not None and tile < 1:
        raise CompileError(f"--tile {tile}: give a tile size of 1 or more")
    outer: dict[str, str] = {}
    order: list[str] = []
    texts = [schedule] if isinstance(schedule, str) else list(schedule or [])
    for text in texts:
        for d in schedule_option(text, list(variables)):
            if d.name == "split":
                if len(d.args) != 4 or d.args[0] not in variables or not d.args[3].isdigit():
                    raise CompileError(f"tiling: {d.name}({','.join(d.args)}): write "
                                       "split(i,i0,i1,SIZE) with i a variable of the expression")
                sizes[d.args[0]] = int(d.args[3])
                outer[d.args[1]] = outer[d.args[2]] = d.args[0]
            elif d.name == "reorder":
                order = list(dict.fromkeys(outer.get(v, v) for v in d.args))
            else:
                raise CompileError(f"tiling: {d.name} is not supported with tiles; use split "
                                   "and reorder")
    if any(s < 1 for s in sizes.values()):
        raise CompileError("tiling: every split size must be 1 or more")
    return sizes, order


def _sequencing_rhs(node: Node) -> str:
    """The expression over tile indices: products and sums kept, signs and constants dropped."""
    if isinstance(node, Access):
        return f"{node.name}({','.join(v + '0' for v in node.indices)})" if node.indices \
            else node.name
    if isinstance(node, Literal):
        return "1"
    if isinstance(node, Neg):
        return _sequencing_rhs(node.child)
    if isinstance(node, Mul):
        return f"({_sequencing_rhs(node.left)}) * ({_sequencing_rhs(node.right)})"
    if isinstance(node, Add):
        return f"({_sequencing_rhs(node.left)}) + ({_sequencing_rhs(node.right)})"
    raise CompileError(f"tiling: cannot tile {node}")


def _undistributable(node: Node, reduced: set[str]) -> set[str]:
    """Reduced variables that a sum combines with a term lacking them."""
    bad: set[str] = set()
    if isinstance(node, Add):
        lv, rv = node.left.vars(), node.right.vars()
        bad |= (lv ^ rv) & reduced
    for child in (getattr(node, a, None) for a in ("left", "right", "child")):
        if isinstance(child, Node):
            bad |= _undistributable(child, reduced)
    return bad


def _run(compiled: Graph | Program, tensors: Mapping[str, Tensor], engine: str
         ) -> tuple[dict[str, Tensor], int]:
    if isinstance(compiled, Graph):
        res = simulate(compiled, tensors, engine=engine)
    else:
        res = run_program(compiled, tensors, engine=engine)
    return dict(res.outputs), int(res.cycles)


def _formats(compiled: Graph | Program) -> dict[str, Format]:
    graphs = [compiled] if isinstance(compiled, Graph) else [p.graph for p in compiled.phases]
    out: dict[str, Format] = {}
    for g in graphs:
        for name, fmt in g.formats.items():
            out.setdefault(name, fmt)
    return out


def tile_sequence(assign: Assignment, tiled: Mapping[str, Tiled], formats: Mapping[str, Format],
                  order: list[str], engine: str) -> tuple[list[dict[str, int]], int]:
    """Simulate the tile-sequencing graph; the tile tuples that meet, in loop order."""
    from custard.api import compile as compile_expr

    lhs = f"{TUPLE}({','.join(v + '0' for v in order)})" if order else TUPLE
    text = f"{lhs}={_sequencing_rhs(assign.rhs)}"
    fmts = {n: Format(formats[n].levels, formats[n].mode_order) for n in tiled
            if n in formats and tiled[n].shape}
    fmts[TUPLE] = Format.parse("s" * len(order)) if order else Format.parse("")
    graph = compile_expr(text, fmts, [v + "0" for v in order] if order else None)
    occ = {n: (t.occupancy(fmts.get(n), name=n) if t.shape else Tensor.scalar(1.0, n))
           for n, t in tiled.items()}
    out, cycles = _run(graph, occ, engine)
    coords, vals = out[TUPLE].to_coo()
    keep = vals != 0
    return [dict(zip(order, (int(c) for c in row), strict=True)) for row in coords[keep]], cycles


def run_tiled(expression: str, tensors: Mapping[str, Tensor],
              formats: Mapping[str, Format | str] | None = None,
              order: str | Sequence[str] | None = None, *,
              schedule: str | Sequence[str] | None = None, tile: int | None = None,
              engine: str = "fast", sweeper: Sweeper | None = None) -> TiledResult:
    """Run ``expression`` tile by tile (see module docstring); ``tensors`` by name. With a
    ``sweeper`` the per-tile simulations run on its Dask cluster, cached by content (the
    expression, formats, order, engine and the tile's entries)."""
    from custard.api import compile as compile_expr
    from custard.api import default_order

    assign = parse_expression(expression)
    variables = list(dict.fromkeys(v for a in [assign.lhs, *assign.rhs.accesses()]
                                   for v in a.indices))
    sizes, sched_order = tile_sizes(schedule, tile, variables)
    given_order = order or sched_order or None
    compiled = compile_expr(expression, formats, given_order)
    given = {n: (f if isinstance(f, str) else f.taco()) for n, f in (formats or {}).items()}
    fmts = _formats(compiled)
    if order:
        loop = list(order) if not isinstance(order, str) else \
            [v for v in schedule_option(order, variables)[0].args]
    else:
        loop = sched_order or default_order(assign, fmts)
    loop = loop + [v for v in variables if v not in loop]
    notices: list[str] = []
    reduced = set(variables) - set(assign.lhs.indices)
    for v in sorted(_undistributable(assign.rhs, reduced)):
        if v in sizes:
            del sizes[v]
            notices.append(f"{v} is summed in a term combined with terms without it: not tiled")
    names = {a.name: a.indices for a in assign.rhs.accesses()}
    missing = [n for n in names if n not in tensors]
    if missing:
        raise CompileError(f"tiling: no tensor given for {', '.join(missing)}")
    dims: dict[str, int] = {}
    for n, idx in names.items():
        for v, s in zip(idx, tensors[n].shape, strict=True):
            dims.setdefault(v, s)
    tsize = {v: sizes.get(v, max(dims.get(v, 1), 1)) for v in variables}
    tiled = {n: tile_tensor(tensors[n], [tuple(tsize[v] for v in idx)])
             for n, idx in names.items()}
    tuples, seq_cycles = tile_sequence(assign, tiled, fmts, loop, engine)

    out_name = assign.lhs.name
    out_idx = assign.lhs.indices
    out_shape = tuple(dims.get(v, 1) for v in out_idx)
    parts_c: list[np.ndarray] = []
    parts_v: list[np.ndarray] = []
    runs: list[TileRun] = []
    points = []
    for key in tuples:
        used: dict[str, tuple[tuple[int, ...], int]] = {}
        data: dict[str, Any] = {}
        for n, idx in names.items():
            tk = tuple(key[v] for v in idx)
            got = tiled[n].tiles.get(tk)
            coords, vals = got if isinstance(got, tuple) else (np.zeros((0, len(idx))),
                                                                np.zeros(0))
            data[n] = {"shape": list(tiled[n].extent(tk)), "coords": coords.tolist(),
                       "vals": vals.tolist()}
            used[n] = (tk, len(vals))
        points.append(({"expression": expression, "formats": given, "order": given_order,
                        "engine": engine, "tensors": data}, used, key))
    if sweeper is None:
        outs = [tile_point(p) for p, _, _ in points]
    else:
        outs = sweeper.run(tile_point, [p for p, _, _ in points], "tiles")
    for (_, used, key), out in zip(points, outs, strict=True):
        coords = np.asarray(out["coords"], dtype=np.int64).reshape(len(out["vals"]),
                                                                  len(out_idx))
        offset = np.array([key[v] * tsize[v] for v in out_idx], dtype=np.int64)
        parts_c.append(coords + offset)
        parts_v.append(np.asarray(out["vals"], dtype=np.float64))
        runs.append(TileRun(key, int(out["cycles"]), used, len(out["vals"])))
    order_n = len(out_idx)
    coords = np.concatenate(parts_c) if parts_c else np.zeros((0, order_n), np.int64)
    vals = np.concatenate(parts_v) if parts_v else np.zeros(0)
    result = Tensor.from_coo(coords, vals, out_shape, fmts.get(out_name), name=out_name)
    return TiledResult({out_name: result}, runs, seq_cycles, sizes, loop, notices)


@lru_cache(maxsize=32)
def _compiled(expression: str, formats: tuple[tuple[str, str], ...],
              order: str | tuple[str, ...] | None) -> Graph | Program:
    from custard.api import compile as compile_expr

    return compile_expr(expression, dict(formats), order)


def tile_point(p: dict[str, Any]) -> dict[str, Any]:
    """One per-tile simulation (a sweep point, so that Dask can run it anywhere): the tile
    tensors of ``p`` through the compiled expression; the partial result and the cycles."""
    order = p["order"]
    compiled = _compiled(p["expression"], tuple(sorted(p["formats"].items())),
                         order if isinstance(order, str) or order is None else tuple(order))
    fmts = _formats(compiled)
    inputs = {}
    for n, t in p["tensors"].items():
        shape = tuple(t["shape"])
        coords = np.asarray(t["coords"], dtype=np.int64).reshape(len(t["vals"]), len(shape))
        inputs[n] = Tensor.from_coo(coords, t["vals"], shape, fmts.get(n), name=n)
    outs, cycles = _run(compiled, inputs, p["engine"])
    out = outs[parse_expression(p["expression"]).lhs.name]
    coords, vals = out.to_coo()
    return {"cycles": cycles, "coords": np.asarray(coords).tolist(),
            "vals": np.asarray(vals).tolist()}


# ---------------------------------------------------------------------------- memory model
def _tile_nnz(tensor: Tensor, size: tuple[int, ...]) -> dict[tuple[int, ...], int]:
    """Stored entries of each nonempty tile of ``size``."""
    if not tensor.shape:
        return {(): tensor.nnz}
    coords, _ = tensor.to_coo()
    tid = np.asarray(coords, dtype=np.int64) // np.array(size, dtype=np.int64)
    keys, counts = np.unique(tid, axis=0, return_counts=True)
    return {tuple(int(x) for x in k): int(c) for k, c in zip(keys, counts, strict=True)}


def memory_steps(expression: str, tensors: Mapping[str, Tensor], result: TiledResult,
                 hier: Hierarchy, *, dense: bool = False) -> list[Step]:
    """The steps of ``result`` (a run tiled at the innermost level's tile size) for the memory
    model: per level, the tile each operand uses; in level-major order (all PE tiles of an LLB
    tile tuple, then the next). ``dense`` adds every tuple of the tile grid that the
    tile-sequencing graph skipped (no compute, empty tiles) - a run without tile skipping."""
    assign = parse_expression(expression)
    names = {a.name: a.indices for a in assign.rhs.accesses()}
    out_idx = assign.lhs.indices
    order = result.order
    size = {v: result.sizes.get(v) for v in order}
    sizes_at: dict[str, dict[str, int]] = {}
    for lv in hier.levels:
        t = lv.tile[0] if lv.tile else 1
        sizes_at[lv.name] = {v: (t if size[v] else 1 << 62) for v in order}
    ratio = {lv.name: {v: max(1, sizes_at[lv.name][v] // size[v]) if size[v] else 1
                       for v in order} for lv in hier.levels}
    nnz = {lv.name: {n: _tile_nnz(tensors[n], tuple(sizes_at[lv.name][v] for v in idx))
                     for n, idx in names.items()} for lv in hier.levels}
    out = result.outputs[assign.lhs.name]
    out_nnz = {lv.name: _tile_nnz(out, tuple(sizes_at[lv.name][v] for v in out_idx))
               for lv in hier.levels}  # entries of each result tile, written back
    runs = {tuple(r.key[v] for v in order): r for r in result.runs}
    keys = list(runs)
    if dense:
        grid = []
        for v in order:
            dim = next(tensors[n].shape[idx.index(v)] for n, idx in names.items() if v in idx)
            grid.append(range(-(-dim // size[v]) if size[v] else 1))
        keys = [tuple(int(x) for x in k) for k in np.ndindex(*[len(g) for g in grid])]

    def outer(key: tuple[int, ...]) -> tuple:
        return tuple(tuple(key[p] // ratio[lv.name][v] for p, v in enumerate(order))
                     for lv in hier.levels[:-1]) + (key,)

    steps = []
    for key in sorted(keys, key=outer):
        at = dict(zip(order, key, strict=True))
        tiles: dict[str, dict[str, TileUse]] = {}
        output: dict[str, TileUse] = {}
        for lv in hier.levels:
            r = ratio[lv.name]
            lk = {v: at[v] // r[v] for v in order}
            uses = {}
            for n, idx in names.items():
                tk = tuple(lk[v] for v in idx)
                z = nnz[lv.name][n].get(tk, 0)
                rows = min(sizes_at[lv.name][idx[0]], tensors[n].shape[0]) if idx else 0
                uses[n] = TileUse(tk, hier.tile_bytes(z, rows), z)
            tiles[lv.name] = uses
            ok = tuple(lk[v] for v in out_idx)
            zo = out_nnz[lv.name].get(ok, 0)
            rows = min(sizes_at[lv.name][out_idx[0]], out.shape[0]) if out_idx else 0
            output[lv.name] = TileUse(ok, hier.tile_bytes(zo, rows), zo)
        run = runs.get(key)
        steps.append(Step(tiles, run.cycles if run is not None else 0, output))
    return steps
