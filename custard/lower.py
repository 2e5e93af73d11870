"""Lowering concrete index notation to a SAM graph (SAM paper Sec. 5, Figure 10).

Inputs: an assignment whose sums are placed (:func:`sam.notation.expr.place_reductions`), a loop
(dataflow) order over all index variables, and a format per tensor. Three sections are built in
order, as Custard does:

1. **Iteration and merging.** Each index variable v has a *scope*: the whole right-hand side for
   output variables and for sums at the root, else the subexpression its sum covers. For v in
   loop order, every tensor access in that scope that is indexed by v gets a level scanner
   (Def. 3.1); the scanners' streams are merged by the expression's structure at v: products
   intersect (Def. 3.2), sums unite (Def. 3.3), n-ary where n operands meet; a sum with an operand
   that lacks v (a broadcast) unites with a dense iteration of v's whole range, and a result
   variable that no operand has is such a dense iteration alone, over an implicit range tensor
   (``ranges``, :mod:`sam.graph.implicit`). Every access in
   the scope that is not indexed by v is repeated (Def. 3.4) over v's merged coordinates. So each
   access follows a path of scanners and repeaters through the loop order.
2. **Computation.** Each access's final references load its values (Def. 3.5); ALUs (Def. 3.6)
   follow the expression tree; a sum inside the expression becomes a chain of scalar reducers
   (Def. 3.7, n = 0) that emit 0 for empty fibers so that values stay aligned for the ALU above.
3. **Construction.** Sums at the root become reducers in loop order, innermost first: a scalar
   reducer when no output variable lies below the summed one, else a vector/matrix reducer of
   order n = the number of output variables below it. Coordinate droppers (Def. 3.9) clean the
   output variables' coordinate streams wherever a level below may be empty, and level writers
   (Def. 3.8) store every output level and the values.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sam.blocks.registry  # noqa: F401  (registers every block type for the builder)
from custard import ragged
from formats.format import Format
from formats.levels import DenseLevel, Level
from sam.blocks.base import Block
from sam.errors import CompileError
from sam.graph.builder import GraphBuilder
from sam.graph.model import Graph
from sam.notation.expr import (
    Access,
    Add,
    Assignment,
    Div,
    Mul,
    Neg,
    Node,
    Sum,
    children,
    encloses,
    scope_of,
)

Out = tuple[str, str]  # (block id, output port name)
ROOT: Out = ("", "root")


@dataclass(eq=False)
class DenseIter:
    """Iteration over the whole range of v (for a sum with an operand broadcast over v)."""

    var: str
    tensor: str
    mode: int
    label: str = ""

    @property
    def indices(self) -> tuple[str, ...]:
        return (self.var,)


@dataclass
class Merge:
    """The merge structure at one index variable: a leaf, or an intersection/union of parts."""

    kind: str  # "leaf", "intersect", "union"
    leaf: Access | DenseIter | None = None
    parts: list[Merge] = field(default_factory=list)

    def leaves(self) -> list[Access | DenseIter]:
        return [self.leaf] if self.kind == "leaf" else [x for p in self.parts for x in p.leaves()]


UNIVERSE = Merge("universe")




def _merge_tree(node: Node, var: str) -> Merge:
    if isinstance(node, Access):
        return Merge("leaf", node) if var in node.indices else UNIVERSE
    if isinstance(node, (Neg, Sum)):
        return _merge_tree(node.child, var)
    parts = [_merge_tree(c, var) for c in children(node)]
    real = [p for p in parts if p is not UNIVERSE]
    kind = "intersect" if isinstance(node, Mul) else "union"
    if kind == "union" and len(real) < len(parts):
        if not real:
            return UNIVERSE
        real.append(Merge("dense"))
    if len(real) == 1:
        return real[0]
    if not real:
        return UNIVERSE
    flat: list[Merge] = []
    for p in real:
        flat += p.parts if p.kind == kind else [p]
    if kind == "union":  # one dense iteration covers every broadcast operand of a union
        dense = [p for p in flat if p.kind == "dense"]
        flat = [p for p in flat if p.kind != "dense"] + dense[:1]
    return Merge(kind, parts=flat)


class Lowering:
    """State of one compilation (see module docstring)."""

    #: operands sharing raggedness (:mod:`custard.ragged`)
    shared: list[tuple[str, ...]] = []

    def __init__(self, assign: Assignment, order: list[str], formats: dict[str, Format],
                 ranges: dict[str, str] | None = None) -> None:
        self.assign = assign
        #: index variable -> dense vector tensor iterating it, for result variables that no
        #: operand has (``j`` in ``A(i,j)=b(i)``; :mod:`sam.graph.implicit`)
        self.ranges = dict(ranges or {})
        self.order = order
        self.pos = {v: k for k, v in enumerate(order)}
        self.formats = formats
        self.b = GraphBuilder()
        self.body, self.root_sums, self.scope = scope_of(assign)
        self.out_vars = list(assign.lhs.indices)
        self.accesses = assign.rhs.accesses()
        counts: dict[str, int] = {}
        for acc in self.accesses:
            counts[acc.name] = counts.get(acc.name, 0) + 1
            acc.label = acc.name if counts[acc.name] == 1 else f"{acc.name}#{counts[acc.name]}"
        self.ref: dict[int, Out] = {id(a): ROOT for a in self.accesses}
        self.maybe_absent: dict[int, bool] = {id(a): False for a in self.accesses}
        self.final: dict[str, Out] = {}  # merged coordinate stream of each variable
        self.maybe_empty: dict[str, bool] = {}
        self.repsig: dict[str, Out] = {}
        self.zero_filled = False
        self.n_dense = 0
        #: leaves of every union built so far: at least one of them is present at each of its
        #: coordinates, which later unions over the same operands can rely on
        self.union_groups: list[tuple[Access | DenseIter, ...]] = []

    # ------------------------------------------------------------------ helpers
    def level_type(self, acc: Access | DenseIter, var: str) -> type[Level]:
        """The level format ``acc`` stores ``var`` in (a dense iteration counts: a full level)."""
        if isinstance(acc, DenseIter):
            return DenseLevel
        return self.formats[acc.name].level_type_of_mode(acc.indices.index(var))

    def structurally_empty(self, acc: Access | DenseIter, var: str) -> bool:
        """Can a fiber of this access's level at ``var`` be empty (not counting absence)?

        A fiber of a level that is not ``full`` (compressed) can be empty at the root or below a
        full (dense) level, whose every coordinate has a fiber; below any other level a fiber
        exists only for a stored point. A full fiber (or a dense iteration) is empty only when
        the dimension has size 0, which the compiler cannot rule out.
        """
        if isinstance(acc, DenseIter):
            return True
        fmt = self.formats[acc.name]
        lvl = fmt.level_of_mode(acc.indices.index(var))
        if fmt.level_types[lvl].full or ragged.is_ragged(fmt.level_types[lvl]):
            return True  # a ragged fiber may have length 0 anywhere
        return lvl == 0 or fmt.level_types[lvl - 1].full or ragged.is_ragged(
            fmt.level_types[lvl - 1])

    def path(self, acc: Access) -> list[str]:
        return [v for v in self.order if encloses(self.scope[v], acc)]

    def repeat_signal(self, var: str) -> Out:
        if var not in self.repsig:
            gen = self.b.block("repsiggen", index=var)
            self.b.link(self.final[var], gen, "crd")
            self.repsig[var] = (gen.id, "repsig")
        return self.repsig[var]

    def repeat(self, ref: Out, var: str, tensor: str) -> Out:
        rep = self.b.block("repeat", index=var, tensor=tensor,
                           root="true" if ref == ROOT else "false")
        if ref != ROOT:
            self.b.link(ref, rep, "ref")
        self.b.link(self.repeat_signal(var), rep, "repsig")
        return (rep.id, "ref")

    def scanner(self, acc: Access | DenseIter, var: str, ref: Out) -> Block:
        if isinstance(acc, DenseIter):
            mode = acc.mode
            tensor = acc.tensor
        else:
            mode = acc.indices.index(var)
            tensor = acc.name
        fmt = self.level_type(acc, var).name
        scan = self.b.block("fiberlookup", index=var, tensor=tensor, mode=mode, format=fmt,
                            src="true", root="true" if ref == ROOT else "false")
        if ref != ROOT:
            self.b.link(ref, scan, "ref")
        return scan

    # ------------------------------------------------------------------ section 1
    def iterate(self) -> None:
        for var in self.order:
            scope = self.scope[var]
            tree = _merge_tree(scope, var)
            if tree is UNIVERSE:
                tree = Merge("dense")
            inside = {id(a) for a in scope.accesses()}
            users = [a for a in self.accesses if id(a) in inside]
            streams: dict[int, tuple[Out, Out]] = {}
            tree, followers = ragged.plan(self, var, tree, users)  # custard/ragged.py
            for acc in users:
                if var in acc.indices and id(acc) not in followers:
                    scan = self.scanner(acc, var, self.ref[id(acc)])
                    streams[id(acc)] = ((scan.id, "crd"), (scan.id, "ref"))
            tree = self._bind_dense(tree, var, streams)
            self.maybe_empty[var] = self._may_be_empty(tree, var)
            crd, refs = self._merge(tree, var, streams)
            crd, refs = ragged.follow(self, var, followers, crd, refs)
            self.final[var] = crd
            for acc in users:
                if var in acc.indices:
                    self.ref[id(acc)] = refs[id(acc)]
                else:
                    self.ref[id(acc)] = self.repeat(self.ref[id(acc)], var, acc.name)
            if tree.kind == "union":
                for leaf in tree.leaves():
                    self.maybe_absent[id(leaf)] = True
                self.union_groups.append(tuple(tree.leaves()))

    def _bind_dense(self, tree: Merge, var: str, streams: dict[int, tuple[Out, Out]]) -> Merge:
        """Give a dense-iteration leaf its scanner (repeated over the outer variables)."""
        if tree.kind == "dense":
            src = next((a for a in self.accesses if var in a.indices), None)
            if src is not None:
                tensor, mode = src.name, src.indices.index(var)
            elif var in self.ranges:
                tensor, mode = self.ranges[var], 0
            else:
                raise CompileError(f"index {var} has no range: no tensor is indexed by it")
            self.n_dense += 1
            label = f"dim-{var}" if self.n_dense == 1 else f"dim-{var}#{self.n_dense}"
            it = DenseIter(var, tensor, mode, label)
            ref = ROOT
            for outer in self.order[: self.pos[var]]:
                if encloses(self.scope[outer], self.scope[var]):
                    ref = self.repeat(ref, outer, tensor)
            scan = self.scanner(it, var, ref)
            streams[id(it)] = ((scan.id, "crd"), (scan.id, "ref"))
            return Merge("leaf", it)
        if tree.kind == "leaf":
            return tree
        return Merge(tree.kind, parts=[self._bind_dense(p, var, streams) for p in tree.parts])

    def _may_be_empty(self, tree: Merge, var: str) -> bool:
        """Can a merged fiber at ``var`` be empty (an ineffectual intersection, an absent or
        empty operand)? Decides where coordinate droppers go."""
        if tree.kind == "leaf":
            leaf = tree.leaf
            absent = not isinstance(leaf, DenseIter) and self.maybe_absent[id(leaf)]
            return self.structurally_empty(leaf, var) or absent
        if tree.kind == "intersect":
            return True
        leaves = {id(x) for x in tree.leaves()}
        for group in self.union_groups:
            # An earlier union guarantees one of these operands at every coordinate.
            if {id(x) for x in group} <= leaves and not any(
                    self.structurally_empty(x, var) for x in group if var in x.indices):
                if all(var in x.indices for x in group):
                    return False
        return all(self._may_be_empty(p, var) for p in tree.parts)

    def _merge(self, tree: Merge, var: str, streams: dict[int, tuple[Out, Out]]
               ) -> tuple[Out, dict[int, Out]]:
        if tree.kind == "leaf":
            crd, ref = streams[id(tree.leaf)]
            return crd, {id(tree.leaf): ref}
        inputs = [self._merge(p, var, streams) for p in tree.parts]
        labels = {id(x): x.label for x in tree.leaves()}
        block = self.b.block(tree.kind, index=var)
        for _crd, refs in inputs:
            for key in refs:
                block.declare_port("in", "crd", f"in-{labels[key]}")
                block.declare_port("out", "ref", f"out-{labels[key]}")
        out: dict[int, Out] = {}
        for crd, refs in inputs:
            for key, ref in refs.items():
                self.b.link(crd, block, f"crd:in-{labels[key]}")
                self.b.link(ref, block, f"ref:in-{labels[key]}")
                out[key] = (block.id, f"ref:out-{labels[key]}")
        return (block.id, "crd"), out

    # ------------------------------------------------------------------ section 2
    def value(self, node: Node) -> Out:
        if isinstance(node, Access):
            ref = self.ref[id(node)]
            arr = self.b.block("arrayvals", tensor=node.name,
                               **({"root": "true"} if ref == ROOT else {}))
            if ref != ROOT:
                self.b.link(ref, arr, "ref")
            return (arr.id, "val")
        if isinstance(node, Neg):
            alu = self.b.block("neg")
            self.b.link(self.value(node.child), alu, "val")
            return (alu.id, "val")
        if isinstance(node, (Mul, Add)):
            left, right = self.value(node.left), self.value(node.right)
            if isinstance(node, Mul):
                alu = self.b.block("div" if isinstance(node, Div) else "mul")
            else:
                alu = self.b.block("add", sub="1" if node.sub else "0")
            self.b.link(left, alu, "val:in0")
            self.b.link(right, alu, "val:in1")
            return (alu.id, "val")
        if isinstance(node, Sum):
            vals = self.value(node.child)
            self.zero_filled = True
            for r in sorted(node.vars_, key=self.pos.__getitem__, reverse=True):
                # One value per coordinate of the level above (0 for an empty sum), so the sum
                # stays aligned with the other operands of the expression around it.
                outer = self._enclosing_var(r, node)
                red = self.b.block("reduce", empty="outer" if outer else "zero")
                self.b.link(vals, red, "val")
                if outer:
                    self.b.link(self.final[outer], red, "crd")
                vals = (red.id, "val")
            return vals
        raise AssertionError(type(node))

    def _enclosing_var(self, r: str, node: Sum) -> str | None:
        """The innermost variable before ``r`` whose loop holds the sum ``node``'s result."""
        before = [v for v in self.order[: self.pos[r]]
                  if v in node.vars_ or encloses(self.scope[v], node)]
        return before[-1] if before else None

    # ------------------------------------------------------------------ section 3
    def construct(self) -> Graph:
        b = self.b
        lhs = self.assign.lhs
        root_vars = [v for v in self.order if v in self.out_vars or v in self.root_sums]
        n = len(root_vars)
        vals = self.value(self.body)

        # Coordinate droppers, bottom-up, below the first output variable.
        first_out = next((t for t, v in enumerate(root_vars) if v in self.out_vars), n)
        below_empty = [any(self.maybe_empty[root_vars[s]] for s in range(t + 1, n))
                       for t in range(n)]
        outer_clean: dict[str, Out] = {}
        inner_clean: dict[str, Out] = {}
        for t in range(n - 2, first_out - 1, -1):
            if not below_empty[t]:
                continue
            outer, inner = root_vars[t], root_vars[t + 1]
            drop = b.block("crddrop", outer=outer, inner=inner)
            b.link(self.final[outer], drop, f"crd:{outer}")
            b.link(outer_clean.get(inner, self.final[inner]), drop, f"crd:in-{inner}")
            outer_clean[outer] = (drop.id, f"crd:outer-{outer}")
            inner_clean[inner] = (drop.id, f"crd:inner-{inner}")

        def raw(v: str) -> Out:
            return self.final[v]

        def cleaned(v: str) -> Out:
            return outer_clean.get(v, raw(v))

        # Reducers for the root sums, innermost first.
        produced: dict[str, Out] = {}
        groups_of_cleaned: set[str] = set()  # parents whose empty groups a reducer drops
        for r in sorted(self.root_sums, key=self.pos.__getitem__, reverse=True):
            kept = [v for v in reversed(root_vars) if v in self.out_vars
                    and self.pos[v] > self.pos[r]]
            t = root_vars.index(r)
            parent = root_vars[t - 1] if t else None
            # A dropper above cleans the parent's coordinates: the reducer drops empty fibers
            # to match (Table 1's convention). Unguarded (no level below should be empty, but a
            # dense level of size 0 is), it keeps one result per parent coordinate.
            guarded = parent is not None and parent in outer_clean
            if not kept:
                mode = "drop" if guarded or parent is None else "outer"
                red = b.block("reduce", **({"empty": mode} if mode != "drop" else {}))
                b.link(vals, red, "val")
                if mode == "outer":
                    b.link(raw(parent), red, "crd")
                vals = (red.id, "val")
                continue
            attrs = {f"in{d}": v for d, v in enumerate(kept)}
            if not guarded and parent is not None:
                attrs["empty"] = "keep"
            elif parent is not None:
                groups_of_cleaned.add(parent)
            acc = b.block("spaccumulator", order=len(kept), **attrs)
            b.link(vals, acc, "val")
            for v in kept:
                t = root_vars.index(v)
                below_reduced = t + 1 < n and root_vars[t + 1] in self.root_sums
                stream = produced.get(v) or (cleaned(v) if below_reduced else raw(v))
                b.link(stream, acc, f"crd:{v}")
                produced[v] = (acc.id, f"crd:out-{v}")
            vals = (acc.id, "val")

        # Streams for the writers.
        out_fmt = self.formats[lhs.name]
        level_vars = [lhs.indices[m] for m in out_fmt.mode_order]
        writer_stream = {v: produced.get(v) or inner_clean.get(v, cleaned(v))
                         for v in level_vars}
        if self.zero_filled and level_vars:
            # Streams with the structure the values have: one value per innermost coordinate
            # (a sum below the last level already dropped its empty fibers), every coordinate
            # of an outer level holding one fiber of the level below.
            writer_stream = {v: produced.get(v) or
                             (cleaned(v) if v in groups_of_cleaned else raw(v))
                             for v in level_vars}
            last = level_vars[-1]
            writer_stream[last] = produced.get(last) or cleaned(last)
            vals = self._drop_zeros(level_vars, writer_stream, vals)

        dims = self._dims()
        prefix: list[str] = []
        for lvl, v in enumerate(level_vars):
            mode = lhs.indices.index(v)
            fmt = out_fmt.level_types[lvl].name
            seg = "2" if lvl == 0 else "*".join(dims[p] for p in prefix) + "+1"
            prefix.append(v)
            writer = b.block("fiberwrite", index=v, tensor=lhs.name, mode=mode, format=fmt,
                             segsize=seg, crdsize="*".join(dims[p] for p in prefix), sink="true")
            b.link(writer_stream[v], writer, "crd")
        size = "*".join(["1"] + [dims[p] for p in prefix]) if prefix else "1"
        writer = b.block("fiberwrite", tensor=lhs.name, mode="vals", size=size, sink="true")
        b.link(vals, writer, "val")
        return b.finish()

    def _drop_zeros(self, level_vars: list[str], streams: dict[str, Out], vals: Out) -> Out:
        """Remove the zeros that sums over empty fibers left, then re-clean outer levels.

        ``streams`` are the output variables' coordinate streams aligned with ``vals`` (one
        value per innermost coordinate, empty fibers not yet removed); on return they are the
        writers' streams.
        """
        b = self.b
        last = level_vars[-1]
        drop = b.block("crddrop", outer=last, inner="vals")
        b.link(streams[last], drop, f"crd:{last}")
        b.link(vals, drop, "val:in-vals")
        streams[last] = (drop.id, f"crd:outer-{last}")
        vals = (drop.id, "val:inner-vals")
        for k in range(len(level_vars) - 2, -1, -1):
            outer, inner = level_vars[k], level_vars[k + 1]
            drop = b.block("crddrop", outer=outer, inner=inner)
            b.link(streams[outer], drop, f"crd:{outer}")
            b.link(streams[inner], drop, f"crd:in-{inner}")
            streams[outer] = (drop.id, f"crd:outer-{outer}")
            streams[inner] = (drop.id, f"crd:inner-{inner}")
        return vals

    def _dims(self) -> dict[str, str]:
        """Symbolic dimension of each variable (``B0_dim``), as Custard writes writer sizes."""
        dims: dict[str, str] = {}
        for acc in self.accesses:
            for m, v in enumerate(acc.indices):
                dims.setdefault(v, f"{acc.name}{m}_dim")
        for v, tensor in self.ranges.items():
            dims.setdefault(v, f"{tensor}0_dim")
        return dims


def lower(assign: Assignment, order: list[str], formats: dict[str, Format],
          ranges: dict[str, str] | None = None, shared: list[tuple[str, ...]] | None = None
          ) -> Graph:
    """Build the SAM graph (see module docstring); ``assign`` must have its sums placed.
    ``ranges`` names, for result variables that no operand has, the dense vector tensor whose
    scan iterates them (its format must be in ``formats``); ``shared`` groups tensors that share
    raggedness (:mod:`custard.ragged`)."""
    low = Lowering(assign, order, formats, ranges)
    low.shared = list(shared or [])
    low.iterate()
    graph = low.construct()
    graph.formats = {assign.lhs.name: formats[assign.lhs.name]}
    for acc in low.accesses:
        graph.formats.setdefault(acc.name, formats[acc.name])
    for tensor in low.ranges.values():
        graph.formats.setdefault(tensor, formats[tensor])
    if low.shared:
        graph.attrs[ragged.SHARED_ATTR] = ";".join(",".join(g) for g in low.shared)
    return graph
