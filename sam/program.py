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

A single graph is a program of one phase (:meth:`Program.of`): ``sam-sim run`` runs every graph
file through :meth:`Program.run`, and :mod:`sam.report` reports a one-phase program as the graph.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

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
    def phase_offsets(self) -> list[int]:
        """The cycle at which each phase starts (the earlier phases' cycles summed): where a
        phase's ``activity`` buckets sit on the program's time line."""
        out, t = [], 0
        for r in self.phases:
            out.append(t)
            t += r.cycles
        return out

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
    def compile_time(self) -> float:
        return sum(r.compile_time for r in self.phases)

    @property
    def compiled_kernels(self) -> list[str]:
        return [k for r in self.phases for k in r.compiled_kernels]

    @property
    def interrupted(self) -> bool:
        return any(r.interrupted for r in self.phases)

    def _repr_html_(self) -> str:
        """Jupyter: a table of the phases' cycles and tokens, and the total."""
        from html import escape

        rows = "".join(f"<tr><td>{k + 1}</td><td style='text-align:left'>{escape(name)}</td>"
                       f"<td>{r.cycles:,}</td><td>{r.tokens:,}</td></tr>"
                       for k, (name, r) in enumerate(zip(self.names, self.phases, strict=False)))
        return ("<table><tr><th>phase</th><th>graph</th><th>cycles</th><th>tokens</th></tr>"
                + rows + f"<tr><td>total</td><td></td><td><b>{self.cycles:,}</b></td>"
                f"<td>{self.tokens:,}</td></tr></table>")


class Program:
    """An ordered list of phases (see module docstring)."""

    def __init__(self, phases: Sequence[Graph | Phase]) -> None:
        self.phases = [p if isinstance(p, Phase) else Phase(p) for p in phases]
        if not self.phases:
            raise ProgramError("a program needs at least one graph")

    @classmethod
    def of(cls, program: Program | Graph | Sequence[Graph | Phase]) -> Program:
        """``program`` as a program: a single graph is a program of one phase."""
        if isinstance(program, Program):
            return program
        return cls([program] if isinstance(program, Graph) else program)

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
        sims: dict[tuple, Simulation] | None = None,
        activity: bool = False,
        streams: str | Sequence[str] | None = None,
    ) -> ProgramResult:
        """Run the phases in order on the program's input ``tensors`` (by program name).

        Each phase is its graph's :class:`~sam.sim.engine.Simulation` run alone, exactly as
        :func:`sam.sim.engine.simulate` runs it; a graph is elaborated once and re-bound for
        its later phases, and across runs when the caller keeps ``sims`` (e.g. iterations). A
        simulation that stops with an error raises it with ``partial``, the
        :class:`ProgramResult` of the phases so far (the last one's statistics partial).
        ``activity`` records each phase's activity over time (``SimResult.activity``), with
        the FIFO occupancy of ``streams`` (:class:`~sam.sim.engine.Simulation`; in a program of
        several phases, each phase watches those of its graph)."""
        if fifo_depth is not None and fifo_depth < 1:
            raise SimulationError(f"FIFO depth must be at least 1, got {fifo_depth}")
        from sam.sim.engine import SimResult, Simulation

        have: dict[str, Tensor] = dict(tensors)
        sims = {} if sims is None else sims
        options = (fifo_depth, tuple(sorted((latencies or {}).items())), timing)
        results: list[SimResult] = []
        inputs: list[dict[str, Tensor]] = []
        written: dict[str, Tensor] = {}
        kept = set(self.results())

        def so_far() -> ProgramResult:
            names = [p.name for p in self.phases[: len(results)]]
            outputs = {n: t for n, t in written.items() if n in kept}
            return ProgramResult(results, names, inputs, written, outputs)

        for k, phase in enumerate(self.phases):
            bound = self._bindings(k, have)
            sim = sims.get((id(phase.graph), options))
            if sim is None:
                sim = Simulation(phase.graph, bound, fifo_depth=fifo_depth, latencies=latencies,
                                 timing=timing)
                sims[(id(phase.graph), options)] = sim
            else:
                sim.rebind(bound)
            sim.activity = activity
            sim.streams = streams
            sim.strict_streams = len(self.phases) == 1
            done = sum(r.tokens for r in results)
            step = None if progress is None else (lambda n, done=done: progress(done + n))
            try:
                result = sim.run(engine, step)
            except SimulationError as err:
                if isinstance(err.partial, SimResult):
                    results.append(err.partial)
                    inputs.append({n: sim.tensors[n] for n in bound})
                    err.partial = so_far()
                raise
            results.append(result)
            inputs.append({n: sim.tensors[n] for n in bound})
            if result.interrupted:
                break
            for name, tensor in result.outputs.items():
                written[phase.program_name(name)] = tensor
                have[phase.program_name(name)] = tensor
        return so_far()

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


def bind_program(program: Program, specs: Mapping[str, str], *, seed: int = 0,
                 resolved: dict[str, str] | None = None) -> dict[str, Tensor]:
    """The program's inputs from command-line specs, each bound in the first phase that reads
    it (:func:`sam.bind.bind_phases`; ``resolved`` as in :func:`sam.bind.bind_tensors`). A
    program of one graph binds as the graph does (its messages speak of the graph)."""
    from sam.bind import bind_phases, bind_tensors, check_inputs

    if len(program.phases) == 1 and not program.phases[0].names:
        return bind_tensors(program.phases[0].graph, specs, seed=seed, resolved=resolved)
    needed = program.inputs()
    check_inputs(needed, specs)
    bound = bind_phases([(p.graph, p.names) for p in program.phases], specs, seed=seed,
                        resolved=resolved)
    return {n: bound[n] for n in needed}


def run_program(program: Program | Graph | Sequence[Graph | Phase],
                tensors: Mapping[str, Tensor], **options) -> ProgramResult:
    """``Program.of(program).run(tensors, **options)``."""
    return Program.of(program).run(tensors, **options)


__all__ = ["Phase", "Program", "ProgramError", "ProgramResult", "bind_program", "run_program"]
