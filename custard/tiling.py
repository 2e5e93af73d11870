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

import math
from collections.abc import Iterable, Mapping, Sequence
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
from sam.program import Program

if TYPE_CHECKING:
    from custard.sweeps.sweep import Sweeper

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
    gives: ``split(i,i0,i1,128)`` -> ``{"i": 128}``; ``tile`` splits every variable. Sizes
    below 1 (or beyond int64) are refused (:func:`sam.command.bounds.check_size`)."""
    from sam.command.bounds import check_size

    check_size("--tile", tile, high=MAX_TILE, why="tile coordinates are int64")
    sizes: dict[str, int] = {v: int(tile) for v in variables} if tile else {}
    outer: dict[str, str] = {}
    order: list[str] = []
    texts = [schedule] if isinstance(schedule, str) else list(schedule or [])
    for text in texts:
        for d in schedule_option(text, list(variables)):
            if d.name == "split":
                size = _int(d.args[3]) if len(d.args) == 4 else None
                if size is None or d.args[0] not in variables:
                    raise CompileError(f"tiling: {d.name}({','.join(d.args)}): write "
                                       "split(i,i0,i1,SIZE) with i a variable of the expression")
                check_size(f"split({','.join(d.args)})", size, high=MAX_TILE,
                           why="tile coordinates are int64")
                sizes[d.args[0]] = size
                outer[d.args[1]] = outer[d.args[2]] = d.args[0]
            elif d.name == "reorder":
                order = list(dict.fromkeys(outer.get(v, v) for v in d.args))
            else:
                raise CompileError(f"tiling: {d.name} is not supported with tiles; use split "
                                   "and reorder")
    return sizes, order


def _int(text: str) -> int | None:
    """``text`` as an integer (``-3`` too, so that its bound is checked), else None."""
    try:
        return int(text.strip())
    except ValueError:
        return None


# ---------------------------------------------------------------------------- bounds
#: Largest tile size: tile coordinates and offsets are int64.
MAX_TILE = 2**62
#: Bytes a stored tile costs (its key, two numpy arrays, the dict entry), a tile tuple (its key,
#: run and partial result, and the peak of its simulation), and a step of the memory model per
#: level (one TileUse per operand and the output's). tracemalloc on west0479 x west0479 (1x1
#: tiles; between 16x16 and 4x4) gave about 450 (500 at the peak), 700 (1,100 at the peak) and
#: 950 bytes; rounded up.
TILE_BYTES = 600
TUPLE_BYTES = 1500
STEP_BYTES = 1200


@dataclass
class TilingSize:
    """An upper bound of what a tiling builds: stored tiles, tile tuples, grid tuples."""

    tiles: int
    tuples: int
    grid: int

    def bytes(self, memory_levels: int = 0, dense: bool = False) -> int:
        """Memory the run needs for its tiles, tuples and (with ``memory_levels``) the memory
        model's steps (every grid tuple when ``dense``: no tile skipping)."""
        steps = (self.grid if dense else self.tuples) if memory_levels else 0
        return (TILE_BYTES * self.tiles + TUPLE_BYTES * self.tuples
                + STEP_BYTES * memory_levels * steps)


def tiling_size(expression: str, tensors: Mapping[str, Tensor],
                sizes: Mapping[str, int]) -> TilingSize:
    """Bound, before tiling, the tiles and tile tuples of ``expression`` tiled by ``sizes``
    (variable -> tile size; the others whole). The nonempty tiles of each operand are counted
    (the distinct tile coordinates of its entries); a product of two operands has exactly the
    tuples that join on their shared variables (counted, not listed); a larger product at most
    the tuples of one side times the grid of the other side's own variables; a sum at most both
    sides' (each repeated along the other's variables); never more than the whole grid."""
    assign = parse_expression(expression)
    dims: dict[str, int] = {}
    for a in assign.rhs.accesses():
        if a.name in tensors:
            for v, n in zip(a.indices, tensors[a.name].shape, strict=False):
                dims.setdefault(v, int(n))
    grid = {v: max(1, -(-n // sizes[v])) if v in sizes else 1 for v, n in dims.items()}

    def cells(vs: Iterable[str]) -> int:
        return math.prod(grid.get(v, 1) for v in set(vs))

    tiles = 0

    def bound(node: Node) -> tuple[int, tuple[str, ...], np.ndarray | None]:
        """(tuples, variables, the tile keys when they are an operand's)."""
        nonlocal tiles
        if isinstance(node, Access):
            t = tensors.get(node.name)
            vs = tuple(dict.fromkeys(node.indices))
            if t is None or len(t.shape) != len(node.indices):
                return cells(vs), vs, None
            keys = _tile_keys(t, node.indices, vs, sizes)
            tiles += len(keys)
            return len(keys), vs, keys
        if isinstance(node, Literal):
            return 1, (), None
        if isinstance(node, Neg):
            return bound(node.child)
        if isinstance(node, (Mul, Add)):
            (ca, va, ka), (cb, vb, kb) = bound(node.left), bound(node.right)
            both = tuple(dict.fromkeys(va + vb))
            only_a, only_b = set(va) - set(vb), set(vb) - set(va)
            if isinstance(node, Add):
                n = ca * cells(only_b) + cb * cells(only_a)
            elif ka is not None and kb is not None:
                n = _join_count(ka, va, kb, vb, grid)
            else:
                n = min(ca * cells(only_b), cb * cells(only_a))
            return min(n, cells(both)), both, None
        if hasattr(node, "child"):
            return bound(node.child)
        raise CompileError(f"tiling: cannot tile {node}")

    tuples, _, _ = bound(assign.rhs)
    return TilingSize(tiles, tuples, cells(dims))


def _tile_keys(tensor: Tensor, indices: Sequence[str], variables: Sequence[str],
               sizes: Mapping[str, int]) -> np.ndarray:
    """The distinct tile coordinates (over ``variables``) of ``tensor``'s stored entries."""
    coords, vals = tensor.to_coo()
    coords = np.asarray(coords, np.int64).reshape(len(vals), len(indices))
    cols = [list(indices).index(v) for v in variables]
    div = np.array([sizes.get(v, 1 << 62) for v in variables], np.int64)
    keys = coords[:, cols] // div if len(coords) else np.zeros((0, len(cols)), np.int64)
    return np.unique(keys, axis=0) if len(keys) and cols else keys[:1]


def _join_count(ka: np.ndarray, va: tuple[str, ...], kb: np.ndarray, vb: tuple[str, ...],
                grid: Mapping[str, int]) -> int:
    """How many pairs of rows of ``ka`` and ``kb`` agree on the shared variables."""
    shared = [v for v in va if v in vb]
    if not shared:
        return len(ka) * len(kb)
    dims = tuple(grid.get(v, 1) for v in shared)
    if math.prod(dims) >= 2**62:  # too many cells to number: the product of both counts
        return len(ka) * len(kb)
    codes = []
    for keys, vs in ((ka, va), (kb, vb)):
        cols = keys[:, [vs.index(v) for v in shared]]
        codes.append(np.unique(np.ravel_multi_index(tuple(cols.T), dims), return_counts=True))
    (ua, na), (ub, nb) = codes
    _, ia, ib = np.intersect1d(ua, ub, assume_unique=True, return_indices=True)
    return int(np.dot(na[ia].astype(np.float64), nb[ib].astype(np.float64)))


def check_tiling(expression: str, tensors: Mapping[str, Tensor], sizes: Mapping[str, int],
                 option: str, value: int, *, memory_levels: int = 0,
                 dense: bool = False) -> TilingSize:
    """Refuse (:class:`sam.command.bounds.BoundError`, one line) tile sizes whose tiles and
    tuples (:func:`tiling_size`) cannot fit in memory; ``option`` / ``value`` name the size
    that set them (``--tile``, a split) in the message."""
    from sam.command.bounds import check_size

    size = tiling_size(expression, tensors, sizes)
    steps = f", {size.grid if dense else size.tuples:,} memory-model steps" \
        if memory_levels else ""
    check_size(option, value, fixed_bytes=size.bytes(memory_levels, dense),
               what=f"up to {size.tuples:,} tile tuples ({size.tiles:,} tiles{steps})",
               advice=f"give a larger {'split size' if option.endswith(')') else option} "
               "(fewer, larger tiles)")
    return size


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
    """A graph (a program of one phase) or a program on ``tensors``: results and cycles."""
    res = Program.of(compiled).run(tensors, engine=engine)
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
    unsized = [v for v in assign.lhs.indices if v not in dims]
    if unsized:
        raise CompileError(f"tiling: result index {unsized[0]} is on no operand, so its size is "
                           "unknown; tile an expression whose result indices all appear on the "
                           "right-hand side")
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

    def point(key: dict[str, int], lists: bool) -> tuple[dict[str, Any], dict[str, Any]]:
        """The sweep point of one tuple (JSON-able ``lists`` for Dask, else the tiles' own
        arrays: no copy) and the tiles it reads."""
        used: dict[str, tuple[tuple[int, ...], int]] = {}
        data: dict[str, Any] = {}
        for n, idx in names.items():
            tk = tuple(key[v] for v in idx)
            got = tiled[n].tiles.get(tk)
            coords, vals = got if isinstance(got, tuple) else (np.zeros((0, len(idx)), np.int64),
                                                                np.zeros(0))
            data[n] = {"shape": list(tiled[n].extent(tk)),
                       "coords": coords.tolist() if lists else coords,
                       "vals": vals.tolist() if lists else vals}
            used[n] = (tk, len(vals))
        return ({"expression": expression, "formats": given, "order": given_order,
                 "engine": engine, "tensors": data}, used)

    def place(key: dict[str, int], used: dict[str, Any], cycles: int, coords: Any,
              vals: Any) -> None:
        vals = np.asarray(vals, dtype=np.float64)
        coords = np.asarray(coords, dtype=np.int64).reshape(len(vals), len(out_idx))
        offset = np.array([key[v] * tsize[v] for v in out_idx], dtype=np.int64)
        parts_c.append(coords + offset)
        parts_v.append(vals)
        runs.append(TileRun(key, int(cycles), used, len(vals)))

    if sweeper is None:  # one tuple at a time: only its point is held
        for key in tuples:
            p, used = point(key, lists=False)
            place(key, used, *_tile_run(p))
    else:
        points = [point(key, lists=True) for key in tuples]
        outs = sweeper.run(tile_point, [p for p, _ in points], "tiles")
        for key, (_, used), out in zip(tuples, points, outs, strict=True):
            place(key, used, out["cycles"], out["coords"], out["vals"])
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
    cycles, coords, vals = _tile_run(p)
    return {"cycles": cycles, "coords": coords.tolist(), "vals": vals.tolist()}


def _tile_run(p: dict[str, Any]) -> tuple[int, np.ndarray, np.ndarray]:
    """:func:`tile_point` with the result as arrays: cycles, coordinates, values."""
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
    return cycles, np.asarray(coords), np.asarray(vals)


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
