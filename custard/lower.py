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

import sam.graph.registry  # noqa: F401  (registers every block type for the builder)
from custard import ragged
from custard.locate import COITERATE, LocatePolicy, Operand, choose_followers
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
#: the ``Level.positions`` rules a locator walks (a bitvector level is not located)
LOCATOR_WALKS = ("stride", "segment", "single")
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
    #: of an intersection: the leaf parts located (Sec. 4.2, :mod:`custard.locate`), in order
    follow: list[Merge] = field(default_factory=list)

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
    #: assume every dimension has size >= 1, as the original Custard does: no coordinate
    #: dropper guards a full level (``compile(nonempty_dims=True)``; the graph records it and
    #: sam's binder refuses a tensor with a dimension of size 0)
    nonempty_dims: bool = False

    def __init__(self, assign: Assignment, order: list[str], formats: dict[str, Format],
                 ranges: dict[str, str] | None = None, locate: LocatePolicy = COITERATE,
                 root_located: frozenset[int] = frozenset()) -> None:
        self.assign = assign
        self.locate = locate
        #: accesses (by number) located at their root level: never repeated before that, their
        #: locator needs no parent reference (found by a first lowering, see :func:`lower`)
        self.root_located = root_located
        #: accesses (by number) located somewhere, those located at their root level
        self.located: set[int] = set()
        self.located_root: set[int] = set()
        #: repeat-signal generators built on a coordinate stream (for locators' parents)
        self.repsig_on: dict[Out, Out] = {}
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
        the dimension has size 0, which the compiler cannot rule out unless told
        (``nonempty_dims``). A ragged fiber may be empty anywhere.
        """
        if isinstance(acc, DenseIter):
            return not self.nonempty_dims
        fmt = self.formats[acc.name]
        lvl = fmt.level_of_mode(acc.indices.index(var))
        if ragged.is_ragged(fmt.level_types[lvl]):
            return True  # a ragged fiber may have length 0 anywhere
        if fmt.level_types[lvl].full:
            return not self.nonempty_dims
        return lvl == 0 or fmt.level_types[lvl - 1].full or ragged.is_ragged(
            fmt.level_types[lvl - 1])

    def path(self, acc: Access) -> list[str]:
        return [v for v in self.order if encloses(self.scope[v], acc)]

    def repeat_signal(self, var: str) -> Out:
        if var not in self.repsig:
            self.repsig[var] = self.repeat_signal_on(self.final[var], var)
        return self.repsig[var]

    def repeat_signal_on(self, crd: Out, var: str) -> Out:
        """The repeat signal of the coordinate stream ``crd`` of ``var`` (one generator each)."""
        if crd not in self.repsig_on:
            gen = self.b.block("repsiggen", index=var)
            self.b.link(crd, gen, "crd")
            self.repsig_on[crd] = (gen.id, "repsig")
        return self.repsig_on[crd]

    def repeat(self, ref: Out, var: str, tensor: str, signal: Out | None = None) -> Out:
        rep = self.b.block("repeat", index=var, tensor=tensor,
                           root="true" if ref == ROOT else "false")
        if ref != ROOT:
            self.b.link(ref, rep, "ref")
        self.b.link(signal or self.repeat_signal(var), rep, "repsig")
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
            located = self._plan_locate(tree, var)
            for acc in users:
                if var in acc.indices and id(acc) not in followers and id(acc) not in located:
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
                elif not (self.ref[id(acc)] == ROOT and self.number(acc) in self.root_located):
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
        return Merge(tree.kind, parts=[self._bind_dense(p, var, streams) for p in tree.parts],
                     follow=tree.follow)

    def _may_be_empty(self, tree: Merge, var: str) -> bool:
        """Can a merged fiber at ``var`` be empty (an ineffectual intersection, an absent or
        empty operand)? Decides where coordinate droppers go."""
        if tree.kind == "leaf":
            leaf = tree.leaf
            absent = not isinstance(leaf, DenseIter) and self.maybe_absent[id(leaf)]
            return self.structurally_empty(leaf, var) or absent
        if tree.kind == "intersect":
            leaders = [p for p in tree.parts if p not in tree.follow]
            if (tree.follow and len(leaders) == 1
                    and not any(self._may_miss(p.leaf, var) for p in tree.follow)):
                return self._may_be_empty(leaders[0], var)  # located: the leader's stream
            if self.nonempty_dims:  # full fibers of size >= 1 meet in a full fiber
                return not all(p.kind == "leaf" and not self._may_be_empty(p, var)
                               and self.level_type(p.leaf, var).full for p in tree.parts)
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
        if tree.follow:
            return self._locate_merge(tree, var, streams)
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

    # ------------------------------------------------------------------ iterate-locate
    def number(self, acc: Access) -> int:
        """The position of ``acc`` among the expression's accesses."""
        return next(k for k, a in enumerate(self.accesses) if a is acc)

    def _plan_locate(self, tree: Merge, var: str) -> set[int]:
        """Choose the located operands of every intersection at ``var`` (``Merge.follow``);
        return their access ids (:mod:`custard.locate`)."""
        if tree.kind not in ("intersect", "union"):
            return set()
        out: set[int] = set()
        for part in tree.parts:
            out |= self._plan_locate(part, var)
        if tree.kind != "intersect":
            return out
        operands = []
        for part in tree.parts:
            leaf = part.leaf if part.kind == "leaf" else None
            if not isinstance(leaf, Access):
                operands.append(Operand(part, leaf=False))
                continue
            level = self.level_type(leaf, var)
            wanted = (self.locate.wants(leaf.name, level.has_locate and level.full)
                      and level.positions in LOCATOR_WALKS)
            searched = not level.has_locate
            operands.append(Operand(part, True, wanted, searched, self._may_miss(leaf, var),
                                    leaf.name in self.locate.always))
        tree.follow = [o.key for o in choose_followers(operands)]
        return out | {id(p.leaf) for p in tree.follow}

    def _may_miss(self, acc: Access, var: str) -> bool:
        """May a coordinate located in ``acc``'s level at ``var`` be absent (a level without
        ``has_locate`` is searched; a parent fiber may be missing below a union)?"""
        level = self.level_type(acc, var)
        return not (level.has_locate and level.full) or self.maybe_absent[id(acc)]

    def _locate_merge(self, tree: Merge, var: str, streams: dict[int, tuple[Out, Out]]
                      ) -> tuple[Out, dict[int, Out]]:
        """Merge the leaders of an intersection, then locate each follower (Def. 4.1) at the
        leaders' coordinates: a locator fed the coordinates and the follower's parent
        reference repeated over them (none at the follower's root level)."""
        leaders = [p for p in tree.parts if p not in tree.follow]
        lead = leaders[0] if len(leaders) == 1 else Merge("intersect", parts=leaders)
        crd, refs = self._merge(lead, var, streams)
        for part in tree.follow:
            acc = part.leaf
            assert isinstance(acc, Access)
            mode = acc.indices.index(var)
            loc = self.b.block("locate", index=var, tensor=acc.name, mode=mode,
                               format=self.level_type(acc, var).name)
            self.b.link(crd, loc, "crd")
            may_miss = self._may_miss(acc, var)
            if may_miss:  # it drops coordinates: the leader's one reference goes through it
                (key, ref), = refs.items()
                self.b.link(ref, loc, "ref:in")
                refs[key] = (loc.id, "ref:out")
            parent = self.ref[id(acc)]
            if parent != ROOT:
                signal = self.repeat_signal_on(crd, var)
                self.b.link(self.repeat(parent, var, acc.name, signal), loc, "ref:parent")
            if self.formats[acc.name].level_of_mode(mode) == 0:
                self.located_root.add(self.number(acc))
            self.located.add(self.number(acc))
            refs[id(acc)] = (loc.id, f"ref:out-{acc.name}")
            if may_miss:
                crd = (loc.id, "crd")
        return crd, refs

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
    def scatters(self) -> bool:
        """Is the result written by locating (Sec. 4.2: a dense result supports random insert,
        so a scattered sum needs no vector reducer)? Only when ``locate(X)`` asks: the result
        must be stored dense, with no sum nested in the expression."""
        lhs = self.assign.lhs
        fmt = self.formats[lhs.name]
        dense = fmt.order > 0 and all(t.full for t in fmt.level_types)
        nested = any(isinstance(n, Sum) for n in _nodes(self.body))
        if self.locate.output:
            if fmt.order == 0:
                raise CompileError(f"locate({lhs.name}): a scalar result has no level to "
                                   "locate into; drop it from locate(...)")
            if not dense:
                raise CompileError(
                    f"locate({lhs.name}): a result is written by locating only when it is "
                    f"stored dense; give -f={lhs.name}:{'d' * fmt.order}")
            if nested:
                raise CompileError(
                    f"locate({lhs.name}): the expression has a sum inside it, whose values "
                    "are not one per located coordinate; write the result with level writers")
            return True
        return False

    def construct_scattered(self) -> Graph:
        """Locate every result coordinate into the dense result (its parent reference repeated
        over the variables below it) and add each value there (``arraystore accumulate``)."""
        b = self.b
        lhs = self.assign.lhs
        vals = self.value(self.body)
        ref = ROOT
        for v in self.order:
            if v in self.out_vars:
                mode = lhs.indices.index(v)
                loc = b.block("locate", index=v, tensor=lhs.name, mode=mode,
                              format=self.formats[lhs.name].level_type_of_mode(mode).name)
                b.link(self.final[v], loc, "crd")
                if ref != ROOT:
                    b.link(self.repeat(ref, v, lhs.name), loc, "ref:parent")
                ref = (loc.id, f"ref:out-{lhs.name}")
            elif ref != ROOT:
                ref = self.repeat(ref, v, lhs.name)
        store = b.block("arraystore", tensor=lhs.name, accumulate="true")
        b.link(ref, store, "ref")
        b.link(vals, store, "val")
        return b.finish()

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
            # dense level of size 0 is), it keeps one result per parent coordinate; with
            # ``nonempty_dims`` no fiber below is empty, so a plain reducer is exact (the
            # original Custard's, which takes no coordinate stream).
            guarded = parent is not None and parent in outer_clean
            if not kept:
                plain = guarded or parent is None or self.nonempty_dims
                mode = "drop" if plain else "outer"
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


def _nodes(node: Node) -> list[Node]:
    return [node, *(n for c in children(node) for n in _nodes(c))]


def lower(assign: Assignment, order: list[str], formats: dict[str, Format],
          ranges: dict[str, str] | None = None, shared: list[tuple[str, ...]] | None = None,
          locate: LocatePolicy = COITERATE, nonempty_dims: bool = False) -> Graph:
    """Build the SAM graph (see module docstring); ``assign`` must have its sums placed.
    ``ranges`` names, for result variables that no operand has, the dense vector tensor whose
    scan iterates them (its format must be in ``formats``); ``shared`` groups tensors that share
    raggedness (:mod:`custard.ragged`). ``locate`` says which operands of intersections are
    located instead of coiterated (:mod:`custard.locate`; default: none). An operand located at
    its root level is not repeated before it (its locator finds its fibers in parent 0), which
    a first lowering finds out. ``nonempty_dims`` assumes no dimension has size 0
    (:attr:`Lowering.nonempty_dims`)."""
    def lowering(root_located: frozenset[int] = frozenset()) -> Lowering:
        low = Lowering(assign, order, formats, ranges, locate, root_located)
        low.shared = list(shared or [])
        low.nonempty_dims = nonempty_dims
        low.iterate()
        return low

    low = lowering()
    if low.located_root:
        low = lowering(frozenset(low.located_root))
    graph = low.construct_scattered() if low.scatters() else low.construct()
    graph.formats = {assign.lhs.name: formats[assign.lhs.name]}
    for acc in low.accesses:
        graph.formats.setdefault(acc.name, formats[acc.name])
    for tensor in low.ranges.values():
        graph.formats.setdefault(tensor, formats[tensor])
    located = {low.accesses[k].name for k in low.located}
    for name in sorted((locate.always & {a.name for a in low.accesses}) - located):
        graph.notices.append(f"locate({name}): {name} is coiterated: it is not intersected "
                             "with a leader it could follow (custard.locate)")
    if low.shared:
        graph.contract.shared = low.shared
    return graph
