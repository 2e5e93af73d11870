"""``custard.compile``: tensor index notation + formats + schedule -> SAM graph (or program).

Besides the loop order (SAM paper Sec. 5), the language TACO's users write compiles as follows:

* **constants** (``A(i,j)=2*B(i,j)``, ``y(i)=B(i,j)*x(j)+5``): each distinct value is a scalar
  input ``const0``, ``const1``, ... that the graph records in its ``constants`` attribute
  (:mod:`sam.graph.implicit`), so that the simulator binds it itself; an array block loads it and
  repeaters spread it like any scalar operand (Defs. 3.4-3.6);
* **result variables no operand has** (``A(i,j)=b(i)``): the value repeats along them; a dense
  scan of an implicit vector ``dim_j`` (the ``ranges`` attribute) iterates ``j``, whose size is
  given by ``dims`` (``-d=j:100``) or is TACO's default, 42 (with a notice);
* **the result on the right** (``y(i)=A(i,j)*x(j)+y(i)``): there it is the result's value before
  the assignment, an input bound like any other (the level writers build a new tensor);
* **a sum combined with other terms** whose summed variable the loop order visits before a
  variable of the terms around it (forced by formats or asked for): the sum is computed first,
  into a temporary, by a graph of its own (as TACO's concrete index notation introduces a
  temporary with ``where``), and the rest reads it: a :class:`~sam.program.Program`;
* **schedules**: TACO's commands (:mod:`custard.schedule`); ``precompute`` also makes a program
  whose first graph computes the workspace.

A compilation that needs one graph returns a :class:`~sam.graph.model.Graph`, else a
:class:`~sam.program.Program` of graphs in the order they run. What was accepted but not carried
out is in each graph's ``notices`` (the command line prints them; this module never prints).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise

from custard.bitvectors import use_bitvector_blocks
from custard.concordance import concordant_storage
from custard.depths import set_min_depths
from custard.lanes import parallelize as parallelize_lanes
from custard.locate import take_directives
from custard.lower import lower
from custard.ragged import groups_in, shared_groups
from custard.schedule import (
    PARALLELIZE_ATTR,
    SPLIT_ATTR,
    SPLIT_LOOPS_ATTR,
    Directive,
    Precompute,
    Schedule,
    interpret,
    schedule_option,
)
from formats.errors import FormatError
from formats.format import Format
from sam.errors import CompileError
from sam.graph.model import Graph
from sam.notation.expr import (
    Access,
    Add,
    Assignment,
    Div,
    Literal,
    Node,
    Sum,
    add_on_path,
    children,
    deep_recursion,
    encloses,
    find_subtree,
    inner_sums,
    map_leaves,
    place_reductions,
    reduction_sites,
    replace,
    scope_of,
    subtrees,
)
from sam.notation.parse import (
    broadcast_indices,
    einsum_expression,
    parse_expression,
    parse_rhs,
)
from sam.program import Program

#: TACO's size for a dimension nobody gives (its ``-d`` help: "All dimensions default to 42").
DEFAULT_DIMENSION = 42


def appearance_order(assign: Assignment) -> list[str]:
    """Index variables in order of first appearance (left-hand side first)."""
    order: list[str] = []
    for acc in [assign.lhs, *assign.rhs.accesses()]:
        for v in acc.indices:
            if v not in order:
                order.append(v)
    return order


def default_order(assign: Assignment, formats: Mapping[str, Format] | None = None) -> list[str]:
    """Order of first appearance, adjusted so that every tensor is read (and the result written)
    in its mode order: the earliest-appearing variable whose stored-before variables are all
    placed comes next. ``x(j) = B(i,j)`` with B row-major loops i, j. Where the formats allow,
    the variables of a sum combined with other terms also come after the variables of those
    terms (so that the sum needs no temporary)."""
    first = appearance_order(assign)
    before = stored_before(assign, formats)
    nesting = _nesting_constraints(assign)
    soft = {v: before[v] | nesting.get(v, set()) for v in first}
    order = _topological(first, soft)
    if order is None:
        order = _topological(first, before)
    if order is None:  # no order fits every tensor: fit as many as possible, result first
        kept: dict[str, set[str]] = {v: set() for v in first}
        for acc in [assign.lhs, *assign.rhs.accesses()]:
            one = stored_before(Assignment(acc, acc), formats)
            trial = {v: kept[v] | one.get(v, set()) for v in first}
            if _topological(first, trial) is not None:
                kept = trial
        soft = {v: kept[v] | nesting.get(v, set()) for v in first}
        order = _topological(first, soft) or _topological(first, kept)
    assert order is not None
    return order


def stored_before(assign: Assignment, formats: Mapping[str, Format] | None = None
                  ) -> dict[str, set[str]]:
    """Index variable -> the variables some tensor stores directly before it (its mode order;
    the default format where ``formats`` has none)."""
    before: dict[str, set[str]] = {v: set() for v in appearance_order(assign)}
    for acc in [assign.lhs, *assign.rhs.accesses()]:
        fmt = (formats or {}).get(acc.name) or Format.default(len(acc.indices))
        stored = [acc.indices[m] for m in fmt.mode_order]
        for a, b in pairwise(stored):
            before[b].add(a)
    return before


def _topological(first: list[str], before: dict[str, set[str]]) -> list[str] | None:
    order = _topological_prefix(first, before)
    return order if len(order) == len(first) else None


def _topological_prefix(first: list[str], before: dict[str, set[str]]) -> list[str]:
    order: list[str] = []
    while len(order) < len(first):
        nxt = next((v for v in first if v not in order and before[v] <= set(order)), None)
        if nxt is None:
            break
        order.append(nxt)
    return order


def _nesting_constraints(assign: Assignment) -> dict[str, set[str]]:
    """summed variable -> variables that should come before it: those of the terms around a
    sum that is combined with other terms (their loops enclose the sum's)."""
    out: dict[str, set[str]] = {}
    for node, outer in inner_sums(place_reductions(assign)):
        for r in node.vars_:
            out.setdefault(r, set()).update(outer)
    return out


def _directives(order: str | Sequence[str] | None, schedule: str | Sequence[str] | None,
                variables: list[str]) -> list[Directive]:
    """The scheduling commands of ``order`` (a loop order: ``"ikj"``, ``"i,k,j"``,
    ``["i","k","j"]`` or commands) and ``schedule`` (``-s`` options)."""
    out: list[Directive] = []
    if order and not variables:
        text = order if isinstance(order, str) else ",".join(map(str, order))
        raise CompileError(f"loop order {text!r} given, but the expression has no index "
                           "variables (a scalar result of scalars); drop the order")
    if isinstance(order, str) and order.strip():
        out += schedule_option(order, variables)
    elif order:
        out.append(Directive("reorder", [str(v) for v in order]))
    if isinstance(schedule, str):
        schedule = [schedule]
    for text in schedule or []:
        out += schedule_option(text, variables)
    return out


def _as_formats(formats: Mapping[str, Format | str] | None, assign: Assignment
                ) -> dict[str, Format]:
    orders = {assign.lhs.name: len(assign.lhs.indices)}
    for acc in assign.rhs.accesses():
        orders[acc.name] = len(acc.indices)
    out: dict[str, Format] = {}
    for name, fmt in (formats or {}).items():
        if name not in orders:
            raise CompileError(
                f"format given for {name}, which is not in the expression (tensors: "
                f"{', '.join(orders)})"
            )
        try:
            f = fmt if isinstance(fmt, Format) else Format.parse(str(fmt))
        except FormatError as err:
            raise CompileError(f"format of {name}: {err}") from None
        if f.order != orders[name]:
            raise CompileError(
                f"format {f.taco()} of {name} has {f.order} level(s) but {name} has order "
                f"{orders[name]}; give one level letter per index"
            )
        out[name] = f
    for name, k in orders.items():
        out.setdefault(name, Format.default(k))
    return out


def _late_inner_sum(placed: Assignment, order: list[str]) -> tuple[Sum, list[str]] | None:
    """The first (outermost) sum inside the expression whose summed variables the loop order
    visits before variables of the terms around it, with those variables; None if none."""
    pos = {v: k for k, v in enumerate(order)}
    for node, around in inner_sums(placed):
        outer = [v for v in order if v in around]
        late = [v for v in outer if pos[v] > min(pos[r] for r in node.vars_)]
        if late:
            return node, late
    return None


# ------------------------------------------------------------------------- the entry points
def compile(  # noqa: A001 - the natural name for a compiler entry point
    expression: str,
    formats: Mapping[str, Format | str] | None = None,
    order: str | Sequence[str] | None = None,
    *,
    name: str | None = None,
    schedule: str | Sequence[str] | None = None,
    dims: Mapping[str, int] | None = None,
    locate: bool = True,
    shared: str | Sequence[Sequence[str] | str] | None = None,
    nonempty_dims: bool = False,
) -> Graph | Program:
    """Compile ``expression`` (tensor index notation) to a SAM graph (see module docstring).

    ``formats`` maps tensor names to formats (``"ss"``, ``"ds:1,0"``, :class:`Format`); missing
    ones are all-compressed in mode order. ``order`` is the loop (dataflow) order: ``"ikj"``,
    ``"i,k,j"``, ``["i","k","j"]`` or ``"reorder(i,k,j)"`` (a partial list reorders only the
    listed variables); by default, order of first appearance adjusted to the formats
    (:func:`default_order`). ``schedule`` holds TACO scheduling commands, as ``-s`` options
    (:mod:`custard.schedule`), applied after ``order``. ``dims`` gives sizes of index variables
    (TACO's ``-d=j:100``): needed only for result variables that no operand has. ``shared``
    groups operands that share raggedness (``"A,B"``; :mod:`custard.ragged`).
    ``locate=False`` turns off the automatic iterate-locate into dense levels (Sec. 4.2,
    :mod:`custard.locate`; ``-s=locate(c)`` and ``-s=coiterate(c)`` choose per tensor).
    ``nonempty_dims=True`` assumes every dimension has size >= 1, as the original Custard does:
    no coordinate dropper guards a dense level; the graph records it (``nonempty_dims``) and
    sam's binder refuses operands with a dimension of size 0.

    Returns a :class:`Graph`, or a :class:`Program` when the computation needs temporaries
    (``precompute``, a sum that must be computed before the terms around it).
    """
    try:
        with deep_recursion():
            comp = _Compilation(expression, formats, order, schedule, dims, name, locate,
                                nonempty_dims)
            comp.shared = shared_groups(shared, {a.name: comp.formats[a.name]
                                                 for a in comp.assign.rhs.accesses()})
            return comp.run()
    except RecursionError:
        raise CompileError(
            "the expression is nested too deeply to compile; split it into smaller ones"
        ) from None


def compile_einsum(spec: str, operands: Sequence[str], output: str = "X",
                   formats: Mapping[str, Format | str] | None = None,
                   order: str | Sequence[str] | None = None) -> Graph | Program:
    """numpy-style ``"ik,kj->ij"`` with operand names, e.g. ``["B", "C"]``."""
    return compile(einsum_expression(spec, list(operands), output), formats, order)


def graphs_of(result: Graph | Program) -> list[Graph]:
    """The graphs of a compilation, in the order they run."""
    return [result] if isinstance(result, Graph) else [p.graph for p in result.phases]


def notices_of(result: Graph | Program) -> list[str]:
    """Every notice of a compilation, once each, in order."""
    return list(dict.fromkeys(n for g in graphs_of(result) for n in g.notices))


class _Compilation:
    """One call of :func:`compile`: the expression as phases (assignments run in order, the
    last one computing the result) and their graphs."""

    #: operands sharing raggedness (:mod:`custard.ragged`)
    shared: list[tuple[str, ...]] = []

    def __init__(self, expression: str, formats: Mapping[str, Format | str] | None,
                 order: str | Sequence[str] | None, schedule: str | Sequence[str] | None,
                 dims: Mapping[str, int] | None, name: str | None, locate: bool = True,
                 nonempty_dims: bool = False) -> None:
        self.text = expression
        self.assign = parse_expression(expression)
        self.formats = _as_formats(formats, self.assign)
        self.name = name
        self.notices: list[str] = []
        variables = appearance_order(self.assign)
        self.directives = _directives(order, schedule, variables)
        operands = {a.name: a.indices for a in self.assign.rhs.accesses()}
        self.locate, self.directives = take_directives(self.directives, operands,
                                                       self.assign.lhs.name, locate)
        self.sizes = self._sizes(dims or {}, variables)
        #: assume no dimension has size 0 (see :func:`compile`)
        self.nonempty_dims = nonempty_dims
        #: every tensor name in use (temporaries and implicit inputs avoid them)
        self.taken = set(self.formats)
        self.constants: dict[float, str] = {}

    # ------------------------------------------------------------------ inputs
    def _sizes(self, dims: Mapping[str, int], variables: list[str]) -> dict[str, int]:
        """Sizes of the result variables no operand has: given, else TACO's default."""
        for var, size in dims.items():
            if var not in variables:
                raise CompileError(f"a size is given for {var}, which is not an index variable "
                                   f"of the expression (its variables: {','.join(variables)})")
            if isinstance(size, bool) or not isinstance(size, int) or size < 1:
                raise CompileError(f"the size of {var} must be a positive integer, not {size!r}")
        out: dict[str, int] = {}
        broadcast = broadcast_indices(self.assign)
        for var in broadcast:
            if var in dims:
                out[var] = dims[var]
            else:
                out[var] = DEFAULT_DIMENSION
                self.notices.append(
                    f"index {var} of {self.assign.lhs.name} is on no operand, so its size is "
                    f"TACO's default {DEFAULT_DIMENSION}; give it with -d={var}:SIZE")
        ignored = [v for v in dims if v not in broadcast]
        if ignored:
            self.notices.append(
                f"-d for {','.join(ignored)} ignored: the size comes from the tensors bound "
                "to the operands")
        return out

    def fresh(self, base: str) -> str:
        """A tensor name not yet in use: ``base``, else ``base_2``, ``base_3``, ..."""
        name, k = base, 1
        while name in self.taken:
            k += 1
            name = f"{base}_{k}"
        self.taken.add(name)
        return name

    # ------------------------------------------------------------------ the plan
    def run(self) -> Graph | Program:
        lhs = self.assign.lhs
        if lhs.name in {a.name for a in self.assign.rhs.accesses()}:
            self.notices.append(
                f"{lhs.name} on the right-hand side is its value before the assignment: an "
                f"input, bound like the others (-t {lhs.name}=...)")
        schedule = self._schedule()
        phases = [self.assign]
        for pre in schedule.precomputes:
            phases = self._precompute(phases, pre, schedule.order)
        graphs: list[Graph] = []
        for k, phase in enumerate(phases):
            graphs += self._compile_phase(phase, schedule, k == len(phases) - 1)
        graphs[-1].notices = list(dict.fromkeys(self.notices + graphs[-1].notices))
        if self.name:
            graphs[-1].name = graphs[-1].dot_id = self.name
        return graphs[0] if len(graphs) == 1 else Program(graphs)

    def _schedule(self) -> Schedule:
        try:
            start = default_order(self.assign, self.formats)
        except CompileError:
            if not any(d.name == "reorder" for d in self.directives):
                raise
            start = appearance_order(self.assign)
        operands = {a.name: a.indices for a in self.assign.rhs.accesses()}

        def level_is_full(tensor: str, mode: int) -> bool:
            return self.formats[tensor].level_type_of_mode(mode).full

        schedule = interpret(self.directives, start, operands, self.assign.lhs.name,
                             level_is_full, stored_before(self.assign, self.formats))
        self._check_positions(schedule)
        self.notices += schedule.notices
        return schedule

    def _check_positions(self, schedule: Schedule) -> None:
        """``pos(i,ip,B)`` iterates B's positions: only where i merges B by intersection (or B
        alone), else the coordinates the other operands of a sum add would be skipped."""
        if not schedule.positions:
            return
        placed = place_reductions(self.assign)
        _, _, scope = scope_of(placed)
        for d, tensor, var in schedule.positions:
            for acc in placed.rhs.accesses():
                if acc.name == tensor and var in acc.indices and add_on_path(scope[var], acc):
                    raise CompileError(
                        f"{d}: {var} unites {tensor} with other operands (a sum), so iterating "
                        f"{tensor}'s positions would skip their coordinates; SAM cannot express "
                        "it (TACO's pos needs a product with the tensor)")

    def _precompute(self, phases: list[Assignment], pre: Precompute, order: list[str]
                    ) -> list[Assignment]:
        """Hoist ``pre.expr`` out of the (last) phase holding it into a new phase before it."""
        try:
            wanted = parse_rhs(pre.expr)
        except CompileError as err:
            raise CompileError(f"{pre.directive}: {err}") from None
        for k in range(len(phases) - 1, -1, -1):
            node = find_subtree(phases[k].rhs, wanted)
            if node is not None:
                break
        else:
            raise CompileError(f"{pre.directive}: {pre.expr} is not a subexpression of "
                               f"{self.text.strip()} (as TACO, it must match a node of the "
                               "expression as written, operators grouping left to right)")
        sites = reduction_sites(phases[k])
        inner = {v for v, site in sites.items() if site is not node and encloses(node, site)}
        free = [v for v in order if v in node.vars() and v not in inner]
        temp = self.fresh(pre.name)
        producer, consumer = self._split(phases[k], node, temp, free)
        self.notices.append(
            f"{pre.directive}: {temp}({','.join(free)}) = {node} is computed first, by a graph "
            "of its own (a program of graphs)")
        return [*phases[:k], producer, consumer, *phases[k + 1:]]

    def _split(self, assign: Assignment, node: Node, temp: str, free: list[str]
               ) -> tuple[Assignment, Assignment]:
        """``temp(free) = node`` and ``assign`` with ``temp(free)`` in place of ``node``."""
        self.formats[temp] = Format(("s",) * len(free), tuple(range(len(free))))
        producer = Assignment(Access(temp, tuple(free)), node)
        producer.text = f"{producer.lhs}={node}".replace(" ", "")
        consumer = Assignment(assign.lhs, replace(assign.rhs, node, Access(temp, tuple(free))))
        consumer.text = f"{consumer.lhs}={consumer.rhs}".replace(" ", "")
        return producer, consumer

    def _compile_phase(self, assign: Assignment, schedule: Schedule, last: bool) -> list[Graph]:
        variables = set(appearance_order(assign))
        seq = [v for v in schedule.order if v in variables]
        placed = place_reductions(assign)
        late = _late_inner_sum(placed, seq)
        if late is not None:
            return self._hoist_sum(assign, late, seq, schedule, last)
        _check_divisors(placed.rhs)
        placed, storage = concordant_storage(placed, self.formats, seq, self.fresh)
        restored = sorted({n for g in self.shared for n in g} & set(storage.formats))
        if restored:
            raise CompileError(
                f"{restored[0]} shares raggedness (--shared) but is stored against the loop "
                f"order {','.join(seq)}; give the shared tensors formats in that order")
        self.notices += storage.notices
        fmts = {**self.formats, **storage.formats}
        lowered, constants = self._with_constants(placed)
        fmts.update({n: f for n, f in self.formats.items() if n not in fmts})
        ranges = {}
        for var in broadcast_indices(assign):
            ranges[var] = self.fresh(f"dim_{var}")
            fmts[ranges[var]] = Format(("d",), (0,))
        graph = use_bitvector_blocks(lower(lowered, seq, fmts, ranges,
                                           groups_in(self.shared, placed), self.locate,
                                           self.nonempty_dims))
        if self.nonempty_dims:
            graph.contract.nonempty_dims = True
        _add_skips(graph, schedule, {acc.name for acc in lowered.rhs.accesses()})
        set_min_depths(graph)  # FIFOs a depth of 1 would deadlock (custard.depths)
        text = self.text if assign is self.assign else (assign.text or str(assign))
        contract = graph.contract
        contract.expression = text.replace(" ", "")
        contract.order = tuple(seq)
        contract.constants = constants
        contract.copies = storage.copies
        contract.output_formats = storage.output_formats
        contract.ranges = {t: self.sizes[v] for v, t in ranges.items()}
        parallel = [p for p in schedule.parallel
                    if set(p.split(":")[0].split(",")) <= variables]
        if parallel:
            graph.attrs[PARALLELIZE_ATTR] = ";".join(parallel)
        splits = [text for text, vs in schedule.splits if set(vs) <= variables]
        if splits:
            graph.attrs[SPLIT_ATTR] = ";".join(splits)
            graph.attrs[SPLIT_LOOPS_ATTR] = ",".join(
                name for name, vs in schedule.loop_nest if set(vs) & variables)
        if not last:
            graph.name = graph.dot_id = assign.lhs.name
        for var, n, mode in schedule.lanes:
            if var in variables:
                graph = parallelize_lanes(graph, var, n, mode)
        return [graph]

    def _hoist_sum(self, assign: Assignment, late: tuple[Sum, list[str]], seq: list[str],
                   schedule: Schedule, last: bool) -> list[Graph]:
        """Compute the sum ``late`` names into a temporary first (module docstring)."""
        node, after = late
        sites = reduction_sites(assign)
        site = sites[node.vars_[0]]
        inner = {v for v, s in sites.items() if encloses(site, s)}
        free = [v for v in seq if v in site.vars() and v not in inner]
        temp = self.fresh("T")
        producer, consumer = self._split(assign, site, temp, free)
        summed = ",".join(node.vars_)
        self.notices.append(
            f"the sum over {summed} of ({site}) is combined with other terms but the loop "
            f"order {','.join(seq)} visits {summed} before {','.join(after)}: it is computed "
            f"first into the temporary {temp}({','.join(free)}) by a graph of its own (a "
            "program of graphs)")
        return (self._compile_phase(producer, schedule, False)
                + self._compile_phase(consumer, schedule, last))

    def _with_constants(self, placed: Assignment) -> tuple[Assignment, dict[str, float]]:
        """``placed`` with every constant replaced by a scalar input, and their values."""
        used: dict[str, float] = {}

        def swap(node: Node) -> Node:
            if not isinstance(node, Literal):
                return node
            if node.value not in self.constants:
                self.constants[node.value] = self.fresh(f"const{len(self.constants)}")
            name = self.constants[node.value]
            used.setdefault(name, node.value)
            self.formats.setdefault(name, Format((), ()))
            return Access(name, (), col=node.col)

        return Assignment(placed.lhs, map_leaves(placed.rhs, swap), placed.text), used


def _check_divisors(node: Node) -> None:
    """Refuse a divisor holding a sum whose operands have different index variables: SAM
    iterates such a sum densely (an operand repeats along the variables it lacks), so at
    coordinates where none of its operands is stored the div ALU would divide by zero, where
    TACO's merge skips them."""
    if isinstance(node, Div):
        for sub in subtrees(node.right):
            if (isinstance(sub, Add) and sub.left.vars() and sub.right.vars()
                    and sub.left.vars() != sub.right.vars()):
                raise CompileError(
                    f"division by ({node.right}): its sum {sub} repeats operands along "
                    "variables they lack, so where none of them is stored SAM's div ALU would "
                    "divide by zero (TACO skips those coordinates); not supported")
    for c in children(node):
        _check_divisors(c)


def _add_skips(graph: Graph, schedule: Schedule, operands: set[str]) -> None:
    """The schedule's ``skip`` commands whose tensors this graph reads (custard.skipping)."""
    from custard.skipping import add_skip_edges

    for names in schedule.skips:
        if not names:
            add_skip_edges(graph)
        elif set(names) <= operands:
            add_skip_edges(graph, names)
