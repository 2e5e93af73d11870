"""The DAG of a program's operations and its edge labels (GOGETA Sec. 4-5.1).

Nodes are statements; an edge ``src -> dst`` carries a tensor ``src`` writes and ``dst`` reads
(the latest earlier writer). Node and edge attributes as Sec. 4.2 defines them:

* ``dominance``: 'U' / 'C' (an uncontracted / contracted rank dominates), 'bal', 'small'
  (:func:`custard.dag.intensity.dominance`); host steps are not tensor MACs (op 'host');
* an edge is **transitive** when another path of two or more edges joins its ends (the tensor is
  used again later); ``longestpath(edge)`` is the longest such path;
* ``numcast``: the node's non-transitive out-edges; more than one: **parallel multicast**.

:func:`label_edges` is Alg. 2 (pipelineable, sequential, pipeline_with_writeback,
pipeline_with_hold; multicast as a node attribute), read in the order its lines are written,
with two readings made explicit: the transitive rule applies to a source that is a tensor MAC
and not contracted-dominant (the text: "a transitive edge with uncontracted dominant source
node"), and it never lifts an edge the destination rule made sequential; the edge holds when
no node on its ``longestpath`` is contracted-dominant or a host step (both need the whole
tensor: the pseudo-code's test) and every edge along it is pipelineable (the text's test), else
it is written back. An edge into a host step is sequential too (Sec. 2.2.1: the inverses
"require the complete tensor to be produced").

:func:`assign_orders` is Alg. 3: every node gets a loop order (given with ``-s`` or chosen: the
first candidate, Custard's default order first, with the fewest pipelining violations, then
operands read against their formats, then swizzled incoming tensors: consumers of a multicast
tensor thus share its order whenever that order avoids swizzling, as in CG; found without
trying every permutation, :mod:`custard.dag.orders`); then a pipelineable or
hold edge whose orders do not allow pipelining (the producer's outermost loop contracted, the
consumer's outermost loop not a rank of the tensor, or the tensor **swizzled**: its ranks
visited in another relative order by the consumer than written by the producer) is labelled
sequential, and a swizzled writeback or sequential edge adds one to the swizzle penalty.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from custard.dag.intensity import dominance, effective_sizes
from custard.dag.orders import BUDGET, OrderProblem, best_order, mode_pairs
from custard.dag.program import DagProgram, Statement
from custard.dag.progress import track
from custard.dag.shapes import OpSizes, TensorInfo, program_sizes

SEQUENTIAL = "sequential"
PIPELINEABLE = "pipelineable"
WRITEBACK = "pipeline_with_writeback"
HOLD = "pipeline_with_hold"
MULTICAST = "parallel_multicast"
#: labels under which the consumer takes the tensor as a stream (no memory read)
STREAMED = (PIPELINEABLE, HOLD)


@dataclass
class Node:
    index: int
    statement: Statement
    op: str  #: 'tensor_mac' or 'host'
    dominance: str  #: 'U', 'C', 'bal', 'small' ('host' for host steps)
    dominant_rank: str | None = None
    parallel_multicast: bool = False
    numcast: int = 0
    order: list[str] = field(default_factory=list)
    #: the loop-order search stopped at its budget (:mod:`custard.dag.orders`)
    order_cut: bool = False

    @property
    def name(self) -> str:
        return self.statement.target


@dataclass
class Edge:
    src: int
    dst: int
    tensor: str
    transitive: bool = False
    label: str = SEQUENTIAL  #: Alg. 2's inter_dataflow, then Alg. 3's correction
    multicast: bool = False  #: a non-transitive edge of a multicasting node
    swizzled: bool = False
    reason: str = ""  #: why Alg. 3 made a pipelineable edge sequential

    @property
    def shown(self) -> str:
        """The label as printed: ``parallel_multicast (pipelineable)`` for multicast edges."""
        return f"{MULTICAST} ({self.label})" if self.multicast else self.label


@dataclass
class Dag:
    program: DagProgram
    nodes: list[Node]
    edges: list[Edge]
    sizes: list[OpSizes]
    swizzle_penalty: int = 0
    #: (edge count, out-edges per node, in-edges per node), rebuilt when the count changes
    _index: tuple[int, dict[int, list[Edge]], dict[int, list[Edge]]] | None = field(
        default=None, init=False, repr=False, compare=False)
    #: longest-path predecessors per source node (:meth:`paths_from`), reset with ``_index``
    _paths: dict[int, dict[int, int]] = field(default_factory=dict, init=False, repr=False,
                                              compare=False)
    #: the next tensor statement after each node (:meth:`next_tensor_mac`)
    _next: list[int | None] | None = field(default=None, init=False, repr=False,
                                           compare=False)

    def _edges_by_node(self) -> tuple[dict[int, list[Edge]], dict[int, list[Edge]]]:
        """Out- and in-edges per node, rebuilt when edges were added or removed."""
        if self._index is None or self._index[0] != len(self.edges):
            outs: dict[int, list[Edge]] = {}
            ins: dict[int, list[Edge]] = {}
            for e in self.edges:
                outs.setdefault(e.src, []).append(e)
                ins.setdefault(e.dst, []).append(e)
            self._index = (len(self.edges), outs, ins)
            self._paths = {}
        return self._index[1], self._index[2]

    def paths_from(self, src: int) -> dict[int, int]:
        """Node -> its predecessor on the longest path from ``src`` (the earliest such
        predecessor on ties), for the nodes up to ``src``'s last successor; cached."""
        outs, _ = self._edges_by_node()
        if src in self._paths:
            return self._paths[src]
        last = max((e.dst for e in outs.get(src, ())), default=src)
        length = {src: 0}
        parent: dict[int, int] = {}
        for k in range(src, last + 1):
            if k not in length:
                continue
            for e in outs.get(k, ()):
                nxt = e.dst
                if nxt <= last and length[k] + 1 > length.get(nxt, -1):
                    length[nxt] = length[k] + 1
                    parent[nxt] = k
        self._paths[src] = parent
        return parent

    def next_tensor_mac(self, k: int) -> int | None:
        """The first tensor statement after statement ``k`` (host steps skipped)."""
        if k < 0:
            return next((n.index for n in self.nodes if n.op == "tensor_mac"), None)
        if self._next is None or len(self._next) != len(self.nodes):
            nxt: list[int | None] = [None] * len(self.nodes)
            after: int | None = None
            for j in range(len(self.nodes) - 1, -1, -1):
                nxt[j] = after
                if self.nodes[j].op == "tensor_mac":
                    after = j
            self._next = nxt
        return self._next[k] if 0 <= k < len(self._next) else None

    def out_edges(self, k: int) -> list[Edge]:
        return list(self._edges_by_node()[0].get(k, ()))

    def in_edges(self, k: int) -> list[Edge]:
        return list(self._edges_by_node()[1].get(k, ()))


def build_dag(prog: DagProgram, inputs: Mapping[str, TensorInfo]) -> Dag:
    """The DAG with Alg. 2's labels and Alg. 3's loop orders (shapes from ``inputs``)."""
    sizes = program_sizes(prog, inputs)
    have = dict(inputs)
    nodes: list[Node] = []
    for k, (st, op) in enumerate(zip(prog.statements, sizes, strict=True)):
        if st.host:
            nodes.append(Node(k, st, "host", "host"))
        else:
            accesses = {n: st.access(n) for n in st.reads}
            eff = effective_sizes(op.variables, {n: have[n] for n in st.reads}, accesses)
            cls, rank = dominance(eff, st.contracted)
            nodes.append(Node(k, st, "tensor_mac", cls, rank))
        have[st.target] = op.writes
    edges: list[Edge] = []
    writer: dict[str, int] = {}
    for k, st in enumerate(prog.statements):
        for t in st.reads:
            if t in writer:
                edges.append(Edge(writer[t], k, t))
        writer[st.target] = k
    dag = Dag(prog, nodes, edges, sizes)
    _mark_transitive(dag)
    label_edges(dag)
    assign_orders(dag)
    return dag


def longest_path(dag: Dag, src: int, dst: int) -> list[int]:
    """The longest path ``src -> ... -> dst`` (node indices, both ends included; statements are
    in topological order); ``[]`` when none. Among longest paths, each node is reached from its
    earliest predecessor on one."""
    if src == dst:
        return [src]
    parent = dag.paths_from(src)
    if dst not in parent:
        return []
    path = [dst]
    while path[-1] != src:
        path.append(parent[path[-1]])
    return path[::-1]


def _mark_transitive(dag: Dag) -> None:
    for e in track(dag.edges, "transitive edges", unit="edge"):
        e.transitive = len(longest_path(dag, e.src, e.dst)) > 2


def label_edges(dag: Dag) -> None:
    """Alg. 2 (see module docstring)."""
    for node in dag.nodes:
        node.numcast = 0
        outs = dag.out_edges(node.index)
        for edge in outs:
            if not edge.transitive:
                node.numcast += 1
                if node.numcast > 1:
                    node.parallel_multicast = True
        for edge in outs:
            dest = dag.nodes[edge.dst]
            label = SEQUENTIAL
            if node.dominance != "C" and not edge.transitive:
                label = PIPELINEABLE
            if node.dominance == "C" or node.op != "tensor_mac" or dest.op != "tensor_mac":
                label = SEQUENTIAL  # a host step takes whole tensors (Sec. 2.2.1, inverses)
            ranks = dest.statement.access(edge.tensor)
            dest_blocks = dest.dominant_rank is not None and dest.dominant_rank not in ranks
            if dest_blocks:
                label = SEQUENTIAL
            if (node.dominance != "C" and node.op == "tensor_mac" and edge.transitive
                    and not dest_blocks):
                label = WRITEBACK  # HOLD is decided below, once the path's edges are labelled
            edge.label = label
        for edge in outs:
            edge.multicast = node.parallel_multicast and not edge.transitive
    pipelined = {(e.src, e.dst) for e in dag.edges if e.label == PIPELINEABLE}
    for edge in dag.edges:
        if edge.label == WRITEBACK:
            path = longest_path(dag, edge.src, edge.dst)
            inner = path[1:-1]
            breaks = any(dag.nodes[p].dominance == "C" or dag.nodes[p].op != "tensor_mac"
                         for p in inner)
            piped = all((a, b) in pipelined for a, b in zip(path, path[1:], strict=False))
            if not breaks and piped:
                edge.label = HOLD


# ------------------------------------------------------------------------------ Alg. 3
def full_order(st: Statement, formats: Mapping[str, str] | None = None,
               given: list[str] | None = None) -> list[str]:
    """The statement's whole loop order: Custard's default order with the ``-s`` list (or
    ``given``) reordering the variables it names among themselves."""
    from custard.api import default_order

    assert st.assignment is not None
    fmts = _formats_for(st, formats or {})
    base = default_order(st.assignment, fmts)
    listed = given if given is not None else st.order
    if not listed:
        return base
    slots = [k for k, v in enumerate(base) if v in listed]
    out = list(base)
    for k, v in zip(slots, listed, strict=True):
        out[k] = v
    return out


def _formats_for(st: Statement, formats: Mapping[str, str]) -> dict:
    from formats.format import Format

    out = {}
    names = [st.target, *st.reads]
    for n in names:
        if n in formats:
            out[n] = Format.parse(formats[n])
    return out


def written_modes(st: Statement, order: list[str]) -> list[int]:
    """Modes of the statement's target in the order its loops visit them."""
    return sorted(range(len(st.indices)), key=lambda m: order.index(st.indices[m]))


def read_modes(st: Statement, tensor: str, order: list[str]) -> list[int]:
    """Modes of ``tensor`` (as ``st`` reads it) in the order ``st``'s loops visit them."""
    idx = st.access(tensor)
    return sorted(range(len(idx)), key=lambda m: order.index(idx[m]))


def pipeline_violation(dag: Dag, edge: Edge, src_order: list[str], dst_order: list[str]
                       ) -> str:
    """Why the loop orders do not allow pipelining ``edge`` ('' when they do; Sec. 5.1)."""
    src = dag.nodes[edge.src].statement
    dst = dag.nodes[edge.dst].statement
    if src_order and src_order[0] in src.contracted:
        return f"producer's outermost loop {src_order[0]} is contracted"
    ranks = dst.access(edge.tensor)
    if dst_order and dst_order[0] not in ranks:
        return f"consumer's outermost loop {dst_order[0]} is not a rank of {edge.tensor}"
    if swizzled(dag, edge, src_order, dst_order):
        return f"{edge.tensor} is swizzled (read in another rank order than written)"
    return ""


def swizzled(dag: Dag, edge: Edge, src_order: list[str], dst_order: list[str]) -> bool:
    """Sec. 4.2: the consumer visits the tensor's ranks in another relative order than the
    producer wrote them."""
    src = dag.nodes[edge.src].statement
    dst = dag.nodes[edge.dst].statement
    if src.host or dst.host:
        return False
    return written_modes(src, src_order) != read_modes(dst, edge.tensor, dst_order)


def format_violations(st: Statement, order: list[str], formats: Mapping[str, str]) -> int:
    """Operands (and the result) whose stored mode order the loop order contradicts."""
    from custard.api import stored_before

    assert st.assignment is not None
    fmts = _formats_for(st, formats)
    before = stored_before(st.assignment, fmts)
    return sum(1 for v, prev in before.items() for p in prev
               if v in order and p in order and order.index(p) > order.index(v))


def order_problem(dag: Dag, node: Node, default: list[str]) -> OrderProblem:
    """The clauses of ``node``'s loop-order score (:mod:`custard.dag.orders`): its pipelined
    and unpipelined in-edges from tensor MACs (read against the producer's order), its
    pipelined out-edges and its operands' stored mode orders."""
    from custard.api import stored_before

    st = node.statement
    assert st.assignment is not None
    problem = OrderProblem(list(default), contracted=frozenset(st.contracted))
    for e in dag.in_edges(node.index):
        src = dag.nodes[e.src]
        if src.op != "tensor_mac":
            continue
        pairs = mode_pairs(written_modes(src.statement, src.order), st.access(e.tensor))
        if e.label in STREAMED:
            always = bool(src.order) and src.order[0] in src.statement.contracted
            problem.first_in.append((None if always else frozenset(st.access(e.tensor)),
                                     pairs))
        else:
            problem.swizzles.append(pairs)
    problem.streamed_out = sum(1 for e in dag.out_edges(node.index) if e.label in STREAMED)
    before = stored_before(st.assignment, _formats_for(st, dag.program.formats))
    problem.stored = [(p, v) for v, prev in before.items() for p in sorted(prev) if p != v]
    return problem


def assign_orders(dag: Dag) -> None:
    """Alg. 3 (see module docstring): loop orders, then the labels they force, and the swizzle
    penalty. The first best order is found without trying every permutation
    (:func:`custard.dag.orders.best_order`)."""
    formats = dag.program.formats
    defaults: dict[int, list[str]] = {}  # an unrolled program repeats its statements
    for node in track(dag.nodes, "loop orders", unit="stmt"):
        st = node.statement
        if st.host:
            continue
        default = defaults.get(id(st))
        if default is None:
            default = defaults[id(st)] = full_order(st, formats)
        if st.order is not None and set(st.order) == set(default):
            node.order = list(st.order)
            continue
        if st.order is not None:
            node.order = default  # a partial reorder: Custard's order with the list applied
            continue
        found = best_order(order_problem(dag, node, default))
        node.order, node.order_cut = found.order, found.exhausted
    label_by_orders(dag)


def label_by_orders(dag: Dag) -> None:
    """The end of Alg. 3, once every node has its loop order: each edge's swizzle, streamed
    edges the orders cannot pipeline made sequential, and the swizzle penalty."""
    penalty = 0
    for e in dag.edges:
        src, dst = dag.nodes[e.src], dag.nodes[e.dst]
        if src.op != "tensor_mac" or dst.op != "tensor_mac":
            continue
        e.swizzled = swizzled(dag, e, src.order, dst.order)
        if e.label in STREAMED:
            why = pipeline_violation(dag, e, src.order, dst.order)
            if why:
                e.label, e.reason = SEQUENTIAL, why
        if e.label in (WRITEBACK, SEQUENTIAL) and e.swizzled:
            penalty += 1
    dag.swizzle_penalty = penalty


def describe(dag: Dag) -> str:
    """The DAG as text: nodes (dominance, loop order) and labelled edges."""
    lines = []
    for n in dag.nodes:
        st = n.statement
        what = "host" if st.host else f"{n.dominance}" + (f" ({n.dominant_rank})"
                                                         if n.dominant_rank else "")
        order = f" order {','.join(n.order)}" if n.order else ""
        cast = " multicast" if n.parallel_multicast else ""
        if n.order_cut:
            cast += f" (loop-order search cut at {BUDGET} tries: the first best order found)"
        unary = "".join(f" -u={u}" for u in st.unary)
        lines.append(f"  [{n.index + 1}] line {st.line}: {st.text}{unary}  -- {what}{order}{cast}")
    lines.append("edges:")
    for e in dag.edges:
        extra = " transitive" if e.transitive else ""
        extra += " swizzled" if e.swizzled else ""
        extra += f" ({e.reason})" if e.reason else ""
        lines.append(f"  [{e.src + 1}] -> [{e.dst + 1}] {e.tensor}: {e.shown}{extra}")
    lines.append(f"swizzle penalty: {dag.swizzle_penalty}")
    return "\n".join(lines)


_COLORS = {SEQUENTIAL: "black", PIPELINEABLE: "blue", WRITEBACK: "firebrick", HOLD: "cyan3"}


def to_dot(dag: Dag) -> str:
    """The DAG as DOT, edges coloured as GOGETA Fig. 7 (multicast green)."""
    out = ["digraph DAG {", "  rankdir=TB;", "  node [shape=box, fontname=Helvetica];"]
    for n in dag.nodes:
        label = n.statement.text.replace('"', "'")
        tag = "host" if n.op == "host" else n.dominance
        shape = ", style=dashed" if n.op == "host" else ""
        out.append(f'  n{n.index} [label="{n.index + 1}: {label}\\n{tag}"{shape}];')
    for e in dag.edges:
        color = "green4" if e.multicast else _COLORS[e.label]
        style = ", style=dashed" if e.transitive else ""
        out.append(f'  n{e.src} -> n{e.dst} [label="{e.tensor}: {e.shown}", color={color}'
                   f'{style}];')
    out.append("}")
    return "\n".join(out) + "\n"
