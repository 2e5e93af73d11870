"""Programs of graphs: phases that run one after another, passing tensors by name.

A :class:`Program` is an ordered list of :class:`Phase` s, each a SAM graph. A tensor that a phase
writes (its level writers' ``tensor``) can be read by any later phase under the same name: it is
a *temporary*, bound to the later phase like an input (converted to the format that phase's
graph comment gives it). A tensor read before any phase writes it is an *input* of the program;
the tensors written and not read afterwards are its *results*. A phase's ``names`` can map the
graph's tensor names to other program names, so one graph serves several phases (tiles).

Phases run one after another, so the program takes the sum of its phases' cycles; each phase's
statistics are those of its graph run alone on the same tensors. A graph that appears in several
phases is elaborated once and re-run on the new tensors (:meth:`Simulation.rebind
<sam.sim.engine.Simulation.rebind>`). Unfused executions (``T=B*C`` then ``X=T*D`` instead of
``X=B*C*D``) and tiled ones are programs. In DOT a program is one file holding the phases'
``digraph`` s in order (:func:`sam.graph.dot.load_all`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from formats.errors import ToolkitError
from formats.tensor import Tensor
from sam.errors import SimulationError
from sam.graph.model import Graph
from sam.graph.validate import input_tensors, output_tensors

if TYPE_CHECKING:  # the simulator is imported when a program runs (`custard compile` needs none)
    from sam.sim.engine import SimResult, Simulation


class ProgramError(ToolkitError):
    """A program whose phases do not fit together (a tensor nobody provides)."""


@dataclass
class Phase:
    """One graph of a program; ``names`` maps its tensor names to program tensor names (a name
    not in it is the same in both)."""

    graph: Graph
    names: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.graph.name

    def program_name(self, tensor: str) -> str:
        return self.names.get(tensor, tensor)

    def reads(self) -> list[str]:
        """Program names of the tensors this phase reads."""
        return [self.program_name(t) for t in input_tensors(self.graph)]

    def writes(self) -> list[str]:
        """Program names of the tensors this phase writes."""
        return [self.program_name(t) for t in output_tensors(self.graph)]


@dataclass
class ProgramResult:
    """Per-phase simulation results and the program's tensors."""

    phases: list[SimResult]
    names: list[str]
    #: the tensors each phase read, by its graph's names, as bound (in the graph's formats)
    inputs: list[dict[str, Tensor]]
    #: every tensor a phase wrote, by program name (a later write replaces an earlier one)
    written: dict[str, Tensor]
    #: the program's results: written tensors that no later phase reads
    outputs: dict[str, Tensor]

    @property
    def cycles(self) -> int:
        """Total cycles: the phases run one after another."""
        return sum(r.cycles for r in self.phases)

    @property
    def phase_cycles(self) -> list[int]:
        return [r.cycles for r in self.phases]

    @property
    def tokens(self) -> int:
        return sum(r.tokens for r in self.phases)

    @property
    def wall_time(self) -> float:
        return sum(r.wall_time for r in self.phases)

    @property
    def jit_time(self) -> float:
        return sum(r.jit_time for r in self.phases)

    @property
    def interrupted(self) -> bool:
        return any(r.interrupted for r in self.phases)


class Program:
    """An ordered list of phases (see module docstring)."""

    def __init__(self, phases: Sequence[Graph | Phase]) -> None:
        self.phases = [p if isinstance(p, Phase) else Phase(p) for p in phases]
        if not self.phases:
            raise ProgramError("a program needs at least one graph")

    def inputs(self) -> list[str]:
        """Tensors some phase reads before any phase writes them (bound by the caller)."""
        written: set[str] = set()
        out: list[str] = []
        for phase in self.phases:
            out += [t for t in phase.reads() if t not in written and t not in out]
            written.update(phase.writes())
        return out

    def temporaries(self) -> list[str]:
        """Tensors a phase writes and a later phase reads."""
        out: list[str] = []
        for k, phase in enumerate(self.phases):
            later = {t for p in self.phases[k + 1:] for t in p.reads()}
            out += [t for t in phase.writes() if t in later and t not in out]
        return out

    def results(self) -> list[str]:
        """Tensors no phase reads after the last phase that writes them."""
        out: list[str] = []
        for k, phase in enumerate(self.phases):
            for t in phase.writes():
                rewritten = any(t in p.writes() for p in self.phases[k + 1:])
                read_later = any(t in p.reads() for p in self.phases[k + 1:])
                if not rewritten and not read_later and t not in out:
                    out.append(t)
        return out

    def describe(self, k: int) -> str:
        """``phase 2 (X)``: phase ``k`` (0-based) in messages."""
        return f"phase {k + 1} ({self.phases[k].name})"

    def run(
        self,
        tensors: Mapping[str, Tensor],
        *,
        engine: str = "fast",
        fifo_depth: int | None = None,
        latencies: Mapping[str, int] | None = None,
        timing: str = "sam",
        progress: Callable[[int], None] | None = None,
    ) -> ProgramResult:
        """Run the phases in order on the program's input ``tensors`` (by program name)."""
        if fifo_depth is not None and fifo_depth < 1:
            raise SimulationError(f"FIFO depth must be at least 1, got {fifo_depth}")
        from sam.sim.engine import Simulation

        have: dict[str, Tensor] = dict(tensors)
        sims: dict[int, Simulation] = {}
        results: list[SimResult] = []
        inputs: list[dict[str, Tensor]] = []
        written: dict[str, Tensor] = {}
        for k, phase in enumerate(self.phases):
            bound = self._bindings(k, have)
            sim = sims.get(id(phase.graph))
            if sim is None:
                sim = Simulation(phase.graph, bound, fifo_depth=fifo_depth, latencies=latencies,
                                 timing=timing)
                sims[id(phase.graph)] = sim
            else:
                sim.rebind(bound)
            done = sum(r.tokens for r in results)
            step = None if progress is None else (lambda n, done=done: progress(done + n))
            result = sim.run(engine, step)
            results.append(result)
            inputs.append({n: sim.tensors[n] for n in bound})
            if result.interrupted:
                break
            for name, tensor in result.outputs.items():
                written[phase.program_name(name)] = tensor
                have[phase.program_name(name)] = tensor
        results_names = set(self.results())
        outputs = {n: t for n, t in written.items() if n in results_names}
        names = [p.name for p in self.phases[: len(results)]]
        return ProgramResult(results, names, inputs, written, outputs)

    def _bindings(self, k: int, have: Mapping[str, Tensor]) -> dict[str, Tensor]:
        """Phase ``k``'s tensors under its graph's names."""
        phase = self.phases[k]
        out: dict[str, Tensor] = {}
        for name in input_tensors(phase.graph):
            prog = phase.program_name(name)
            if prog not in have:
                raise ProgramError(
                    f"{self.describe(k)} reads tensor {prog}, which is not bound and no earlier "
                    f"phase writes; bind it, e.g. -t {prog}=..."
                )
            out[name] = have[prog]
        return out


def bind_program(program: Program, specs: Mapping[str, str], *, seed: int = 0
                 ) -> dict[str, Tensor]:
    """The program's inputs from command-line specs (``sam.bind``), each bound in the first
    phase that reads it. A random spec may take its sizes from a temporary: while binding, an
    empty stand-in of the shape its writers' index variables give takes the temporary's place."""
    from sam.bind import BindError, bind_tensors, index_modes

    needed = program.inputs()
    extra = [n for n in specs if n not in needed]
    if extra:
        raise BindError(f"tensor {extra[0]} is not an input of the program (its inputs: "
                        f"{', '.join(needed)})")
    missing = [n for n in needed if n not in specs]
    if missing:
        raise BindError(f"the program reads tensor {missing[0]} but it is not bound; add "
                        f"-t {missing[0]}=...")
    bound: dict[str, Tensor] = {}
    stand_ins: dict[str, Tensor] = {}
    for phase in program.phases:
        graph_names = {phase.program_name(t): t for t in input_tensors(phase.graph)}
        mine = {g: specs[p] for p, g in graph_names.items() if p in specs and p not in bound}
        known = {g: bound.get(p, stand_ins.get(p)) for p, g in graph_names.items()
                 if p in bound or p in stand_ins}
        known.update({p: t for p, t in bound.items() if p not in graph_names})
        new = bind_tensors(phase.graph, mine, seed=seed, known=known)
        bound.update({phase.program_name(g): t for g, t in new.items()})
        have = {**known, **new}
        sizes: dict[str, int] = dict(phase.graph.contract.dims)
        modes = index_modes(phase.graph)
        for name, tensor in have.items():
            for mode, var in modes.get(name, {}).items():
                if mode < tensor.order:
                    sizes.setdefault(var, tensor.shape[mode])
        for name in output_tensors(phase.graph):
            fmt = phase.graph.formats.get(name)
            order = fmt.order if fmt is not None else len(modes.get(name, {}))
            shape = [sizes.get(modes.get(name, {}).get(m, ""), -1) for m in range(order)]
            if -1 not in shape:
                empty = np.zeros((0, order), np.int64)
                stand_ins[phase.program_name(name)] = Tensor.from_coo(
                    empty, np.zeros(0), tuple(shape), fmt)
    return {n: bound[n] for n in needed}


def run_program(program: Program | Sequence[Graph], tensors: Mapping[str, Tensor],
                **options) -> ProgramResult:
    """``Program(program).run(tensors, **options)``."""
    prog = program if isinstance(program, Program) else Program(program)
    return prog.run(tensors, **options)


__all__ = ["Phase", "Program", "ProgramError", "ProgramResult", "bind_program", "run_program"]
