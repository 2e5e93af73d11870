"""Compile a program's DAG to SAM and simulate it (``custard dag --run``).

:func:`compile_dag` turns the labelled DAG (:mod:`custard.dag.labels`) into **units** run in
order: a host step (numpy), one statement (a SAM graph, or Custard's program of graphs), or a
fused chain of statements. A producer -> consumer edge is fusible (:func:`fusible`) when it is
pipelineable after Alg. 3 (concordant orders), not transitive and not multicast, the consumer
is the next tensor statement, and the tensor has no other reader and is not kept (``out:``).
Fusible edges ``A -> B -> C`` form a chain (:func:`fusion_chains`), compiled to **one** graph a
link at a time (:func:`custard.dag.fusion.fuse_graphs`): the producer's streams feed the
consumer and the chain's intermediates never exist in memory. A link that cannot be fused
(fusion's conditions) cuts the chain there; the unit before the cut notes why; so does
:data:`MAX_CHAIN` (a chain that long goes on in a new unit, through memory). A chain runs
where its first statement stands, so it is also cut before a statement that reads what a host
step inside the chain writes (or writes what it reads). Every other edge goes through memory,
as the phases of a :class:`~sam.program.Program` pass tensors by name.

A statement's unary post-ops (``-u=exp``) are ALUs spliced before its value writer
(:mod:`custard.splice`) right after it is compiled, so inside a chain the function's output is
what streams into the next statement.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from custard.dag.host import eval_host
from custard.dag.labels import PIPELINEABLE, Dag
from custard.dag.program import DagProgram, Statement
from custard.dag.progress import track
from custard.dag.traffic import next_statement
from custard.splice import splice_unaries
from formats.errors import ToolkitError
from formats.tensor import Tensor
from sam.errors import CompileError, SimulationError
from sam.graph.model import Graph
from sam.program import Program

#: A fused edge: (producer node, consumer node, the streamed tensor).
Link = tuple[int, int, str]
#: Most statements fused into one graph (each link re-joins the graph so far: compile time
#: grows with the square of a chain's length, and its composed expression nests that deep).
MAX_CHAIN = 8


@dataclass
class Unit:
    """What runs as one step: host step, one statement, or a fused chain of statements."""

    nodes: list[int]
    kind: str  #: 'host', 'graph' or 'fused'
    program: Program | None = None
    #: a fused chain's streamed tensors, one per link (``nodes[k] -> nodes[k + 1]``)
    fused_tensors: tuple[str, ...] = ()
    note: str = ""  #: why an eligible edge was not fused
    #: elaborated simulations of its graphs, re-bound on each run (iterations)
    sims: dict = field(default_factory=dict, repr=False)

    @property
    def fused_tensor(self) -> str:
        """The streamed tensors, ``,``-separated (one for a fused pair)."""
        return ",".join(self.fused_tensors)

    @property
    def links(self) -> list[Link]:
        """The fused edges (src, dst, tensor) of a chain."""
        return list(zip(self.nodes, self.nodes[1:], self.fused_tensors, strict=False))

    def label(self, dag: Dag) -> str:
        return " + ".join(f"[{k + 1}] {dag.nodes[k].name}" for k in self.nodes)


def statement_formats(prog: DagProgram, st: Statement) -> dict[str, str]:
    """Formats of the statement's tensors (``-f`` or dense)."""
    assert st.assignment is not None
    out = {st.target: prog.format_of(st.target, len(st.indices))}
    for acc in st.assignment.rhs.accesses():
        out[acc.name] = prog.format_of(acc.name, len(acc.indices))
    return out


def fusible(dag: Dag) -> list[Link]:
    """Edges to fuse (src, dst, tensor): see module docstring. A node is the source of at most
    one and the destination of at most one (the consumer is the next statement)."""
    kept = set(dag.program.outputs())
    statements = dag.program.statements
    out: list[Link] = []
    for e in dag.edges:
        if not (e.label == PIPELINEABLE and not e.transitive and not e.multicast
                and e.tensor not in kept and next_statement(dag, e.src) == e.dst):
            continue
        readers = [x for x in dag.out_edges(e.src) if x.tensor == e.tensor]
        later_writer = any(st.target == e.tensor for st in statements[e.src + 1:e.dst])
        if len(readers) == 1 and not later_writer:
            out.append((e.src, e.dst, e.tensor))
    return out


def fusion_chains(dag: Dag) -> list[list[Link]]:
    """The fusible edges grouped into chains (each link's consumer is the next one's
    producer), in program order."""
    nxt = {src: (src, dst, t) for src, dst, t in fusible(dag)}
    heads = set(nxt) - {dst for _, dst, _ in nxt.values()}
    chains: list[list[Link]] = []
    for head in sorted(heads):
        chain = [nxt[head]]
        while chain[-1][1] in nxt:
            chain.append(nxt[chain[-1][1]])
        chains.append(chain)
    return chains


def compile_statement_of(dag: Dag, k: int) -> Graph | Program:
    """Statement ``k`` compiled alone (its formats and loop order), its unary post-ops spliced
    before the value writer of its result."""
    from custard.api import compile as compile_statement

    prog, node = dag.program, dag.nodes[k]
    st = node.statement
    try:
        compiled = compile_statement(st.expression, statement_formats(prog, st), node.order,
                                     name=st.target)
        if st.unary:
            last = compiled if isinstance(compiled, Graph) else compiled.phases[-1].graph
            splice_unaries(last, st.unary, st.target)
    except CompileError as err:
        raise CompileError(f"{prog.source} line {st.line}: {err}") from None
    return compiled


def _fuse_link(dag: Dag, graph: Graph | Program, link: Link, consumer: Graph | Program
               ) -> Graph:
    """``graph`` (the chain so far, ending at ``link``'s producer) fused with ``consumer`` (which
    may be changed); :class:`~sam.errors.CompileError` (one line) when the link cannot be
    fused."""
    from custard.dag.fusion import fuse_graphs

    src, dst, tensor = link
    prod, cons = dag.nodes[src].statement, dag.nodes[dst].statement
    for role, st, g in (("producer", prod, graph), ("consumer", cons, consumer)):
        if not isinstance(g, Graph):
            raise CompileError(f"cannot fuse {tensor}: the {role} {st.text} compiles to "
                               "several graphs (a temporary); run it sequentially through "
                               "memory")
    assert isinstance(graph, Graph) and isinstance(consumer, Graph)
    fmt = dag.program.format_of(tensor, len(prod.indices))
    return fuse_graphs(graph, prod.expression, consumer, cons.expression, tensor, fmt)


def _host_clash(dag: Dag, first: int, dst: int) -> str:
    """Why statement ``dst`` cannot run in a chain that starts at ``first`` (before the host
    steps in between), or ''."""
    statements = dag.program.statements
    st = statements[dst]
    for host in statements[first + 1:dst]:
        if host.host and (host.target in st.reads or st.target in host.reads):
            return (f"line {st.line} and the host step on line {host.line} share "
                    f"{host.target if host.target in st.reads else st.target}, and a fused "
                    "chain runs before the host steps inside it")
    return ""


def compile_dag(dag: Dag, *, fuse: bool = True) -> list[Unit]:
    """The units of the program (see module docstring); ``fuse=False``: every edge through
    memory."""
    links = {src: (src, dst, t) for src, dst, t in fusible(dag)} if fuse else {}
    units: list[Unit] = []
    done: set[int] = set()
    for k, node in track(enumerate(dag.nodes), "compiling", total=len(dag.nodes), unit="stmt"):
        if k in done:
            continue
        if node.statement.host:
            units.append(Unit([k], "host"))
            continue
        nodes, tensors, note = [k], [], ""
        result = compile_statement_of(dag, k)
        while nodes[-1] in links and len(nodes) < MAX_CHAIN:
            link = links[nodes[-1]]
            clash = _host_clash(dag, k, link[1])
            if clash:
                note = f"not fused: {clash}"
                break
            try:
                result = _fuse_link(dag, result, link, compile_statement_of(dag, link[1]))
            except ToolkitError as err:  # fusion's conditions (one line each): cut here
                note = f"not fused: {err}"
                break  # the consumer starts the next unit (compiled afresh)
            nodes.append(link[1])
            tensors.append(link[2])
        if not note and nodes[-1] in links and len(nodes) >= MAX_CHAIN:
            note = f"not fused: a chain fuses at most {MAX_CHAIN} statements (MAX_CHAIN)"
        done.update(nodes)
        if tensors:
            assert isinstance(result, Graph)
            result.name = "_".join(dag.nodes[n].name for n in nodes)
            units.append(Unit(nodes, "fused", Program([result]), tuple(tensors), note))
        else:
            program = result if isinstance(result, Program) else Program([result])
            units.append(Unit([k], "graph", program, note=note))
    return units


def graphs_of(units: list[Unit]) -> list[Graph]:
    return [p.graph for u in units if u.program is not None for p in u.program.phases]


@dataclass
class UnitRun:
    unit: Unit
    cycles: int = 0
    phases: int = 0


@dataclass
class DagRun:
    """A simulated program: per-unit cycles and every tensor at the end."""

    units: list[UnitRun]
    tensors: dict[str, Tensor] = field(default_factory=dict)

    @property
    def cycles(self) -> int:
        return sum(u.cycles for u in self.units)


def run_units(dag: Dag, units: list[Unit], tensors: Mapping[str, Tensor], *,
              engine: str = "fast", fifo_depth: int | None = None) -> DagRun:
    """Run ``units`` in order on the program's inputs ``tensors`` (by name)."""
    prog = dag.program
    have: dict[str, Tensor] = dict(tensors)
    missing = [n for n in prog.inputs() if n not in have]
    if missing:
        raise SimulationError(f"{prog.source}: the program reads {missing[0]} but it is not "
                              f"bound; add -t {missing[0]}=...")
    runs: list[UnitRun] = []
    for unit in units:
        if unit.kind == "host":
            st = dag.nodes[unit.nodes[0]].statement
            arrays = {n: have[n].to_dense() for n in st.reads}
            value = eval_host(st, arrays)
            have[st.target] = Tensor.from_dense(value, "d" * value.ndim)
            runs.append(UnitRun(unit))
            continue
        assert unit.program is not None
        result = unit.program.run(have, engine=engine, fifo_depth=fifo_depth, sims=unit.sims)
        error = next((r.error for r in result.phases if r.error), None)
        if result.interrupted or error:
            raise SimulationError(f"{unit.label(dag)}: the simulation stopped early"
                                  + (f" ({error})" if error else ""))
        have.update(result.written)
        runs.append(UnitRun(unit, result.cycles, len(unit.program.phases)))
    return DagRun(runs, have)
