"""Compile a program's DAG to SAM and simulate it (``custard dag --run``).

:func:`compile_dag` turns the labelled DAG (:mod:`custard.dag.labels`) into **units** run in
order: a host step (numpy), one statement (a SAM graph, or Custard's program of graphs), or a
fused pair. A producer -> consumer edge is fused (:func:`custard.dag.fusion.fuse_edge`, when that
module is present) when it is pipelineable after Alg. 3 (concordant orders), not transitive
and not multicast, the consumer is the next tensor statement, and the tensor has no other reader
and is not kept (``out:``): the producer's streams then feed the consumer and the tensor never
exists in memory. Every other edge goes through memory, as the phases of a
:class:`~sam.program.Program` pass tensors by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from custard.dag.host import eval_host
from custard.dag.labels import PIPELINEABLE, Dag
from custard.dag.program import DagProgram, Statement
from custard.dag.progress import track
from custard.dag.traffic import next_statement
from formats.errors import ToolkitError
from formats.tensor import Tensor
from sam.errors import CompileError, SimulationError
from sam.graph.model import Graph
from sam.program import Program


@dataclass
class Unit:
    """What runs as one step: host step, one statement, or a fused pair of statements."""

    nodes: list[int]
    kind: str  #: 'host', 'graph' or 'fused'
    program: Program | None = None
    fused_tensor: str = ""
    note: str = ""  #: why an eligible edge was not fused
    #: elaborated simulations of its graphs, re-bound on each run (iterations)
    sims: dict = field(default_factory=dict, repr=False)

    def label(self, dag: Dag) -> str:
        return " + ".join(f"[{k + 1}] {dag.nodes[k].name}" for k in self.nodes)


def statement_formats(prog: DagProgram, st: Statement) -> dict[str, str]:
    """Formats of the statement's tensors (``-f`` or dense)."""
    assert st.assignment is not None
    out = {st.target: prog.format_of(st.target, len(st.indices))}
    for acc in st.assignment.rhs.accesses():
        out[acc.name] = prog.format_of(acc.name, len(acc.indices))
    return out


def fusible(dag: Dag) -> list[tuple[int, int, str]]:
    """Edges to fuse (src, dst, tensor): see module docstring."""
    kept = set(dag.program.outputs())
    out: list[tuple[int, int, str]] = []
    busy: set[int] = set()
    for e in dag.edges:
        if not (e.label == PIPELINEABLE and not e.transitive and not e.multicast
                and e.tensor not in kept and next_statement(dag, e.src) == e.dst
                and e.src not in busy and e.dst not in busy):
            continue
        readers = [x for x in dag.out_edges(e.src) if x.tensor == e.tensor]
        later_writer = any(st.target == e.tensor
                           for st in dag.program.statements[e.src + 1:e.dst])
        if len(readers) == 1 and not later_writer:
            out.append((e.src, e.dst, e.tensor))
            busy |= {e.src, e.dst}
    return out


def compile_dag(dag: Dag, *, fuse: bool = True) -> list[Unit]:
    """The units of the program (see module docstring)."""
    from custard.api import compile as compile_statement

    prog = dag.program
    pairs = {src: (dst, t) for src, dst, t in fusible(dag)} if fuse else {}
    try:
        from custard.dag.fusion import fuse_edge
    except ImportError:
        fuse_edge = None
    units: list[Unit] = []
    skip: set[int] = set()
    for k, node in track(enumerate(dag.nodes), "compiling", total=len(dag.nodes), unit="stmt"):
        if k in skip:
            continue
        st = node.statement
        if st.host:
            units.append(Unit([k], "host"))
            continue
        note = ""
        if k in pairs:
            dst, tensor = pairs[k]
            cons = dag.nodes[dst]
            if fuse_edge is None:
                note = "not fused: custard.dag.fusion is not available"
            else:
                formats = {**statement_formats(prog, st),
                           **statement_formats(prog, cons.statement)}
                scheds = {"producer": [f"reorder({','.join(node.order)})"],
                          "consumer": [f"reorder({','.join(cons.order)})"]}
                try:
                    graph = fuse_edge(st.expression, cons.statement.expression, tensor, formats,
                                      scheds)
                except ToolkitError as err:  # fusion's conditions (one line each)
                    note = f"not fused: {err}"
                else:
                    graph.name = f"{st.target}_{cons.name}"
                    units.append(Unit([k, dst], "fused", Program([graph]), tensor))
                    skip.add(dst)
                    continue
        try:
            compiled = compile_statement(st.expression, statement_formats(prog, st),
                                         node.order, name=st.target)
        except CompileError as err:
            raise CompileError(f"{prog.source} line {st.line}: {err}") from None
        program = compiled if isinstance(compiled, Program) else Program([compiled])
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
