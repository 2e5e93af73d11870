"""Compare the original Custard's recorded graphs with ours (CI-safe: reads only
``tests/data/original-custard/``, never the original's binary).

For each recorded expression (:func:`compare_one`):

* the original's graph is read with our DOT reader (:mod:`sam.graph.dot`, the original's
  conventions of docs/fidelity.md) and run on random inputs on both engines, each result
  checked against numpy (:func:`sam.check.expected`);
* the same line is compiled with our Custard and run and checked the same way;
* the primitive counts (blocks per DOT type, :func:`primitive_counts`) are compared;
* where the original simulator has recorded cycles for the kernel (:mod:`cycles`), the
  original's graph is run under ``--timing original`` on those inputs.
"""

from __future__ import annotations

import collections
import json
import random
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from scripts.differential.expressions import ROOT, split_line

RECORDS = ROOT / "tests" / "data" / "original-custard"
#: The records of taco edc4195a, the last commit before the CrdHold removal.
RECORDS_PRE = ROOT / "tests" / "data" / "original-custard-edc4195a"
PROVENANCE = RECORDS / "provenance.json"
#: Blocks that are wiring, not primitives (our writer's fan-out points).
NOT_PRIMITIVES = {"broadcast"}


@dataclass
class Outcome:
    """What the harness found for one expression. ``original`` / ``ours``: ``pass``, ``wrong``
    (differs from numpy), ``refused`` (a one-line toolkit error; ``why``), or for a program of
    graphs a status of ``scripts/corpus.py``; any other exception propagates (a bug).
    ``counts``: the two graphs' primitive counts."""

    name: str
    group: str
    line: str
    original: str = ""
    original_why: str = ""
    ours: str = ""
    ours_why: str = ""
    counts_original: dict[str, int] = field(default_factory=dict)
    counts_ours: dict[str, int] = field(default_factory=dict)
    cycles: list[tuple[str, int, int]] = field(default_factory=list)
    #: our Custard compiled the line to a program of graphs (run as ``scripts/corpus.py`` does;
    #: no primitive counts)
    program: bool = False

    @property
    def counts_equal(self) -> bool:
        return bool(self.counts_ours) and self.counts_original == self.counts_ours

    def count_difference(self) -> str:
        kinds = sorted(set(self.counts_original) | set(self.counts_ours))
        return ", ".join(f"{k} {self.counts_original.get(k, 0)}/{self.counts_ours.get(k, 0)}"
                         for k in kinds
                         if self.counts_original.get(k, 0) != self.counts_ours.get(k, 0))


def load_provenance(records: Path = RECORDS) -> dict:
    """``provenance.json`` of the record set in ``records`` (default: the tip's)."""
    return json.loads((records / PROVENANCE.name).read_text())


def primitive_counts(graph) -> dict[str, int]:
    """Blocks per DOT type (the original's ``crdhold`` is one block, as it writes it)."""
    return dict(sorted(collections.Counter(
        b.dot_type for b in graph.blocks.values() if b.dot_type not in NOT_PRIMITIVES).items()))


def _corpus():
    from scripts import corpus

    return corpus


def _inputs(expression: str, graph, seed: int, line: str):
    from sam.graph.validate import input_tensors

    rng = random.Random(zlib.crc32(line.encode()) ^ seed)
    return _corpus().random_inputs(expression, input_tensors(graph), rng, budget=1500)


def run_checked(graph, expression: str, tensors, engines=("reference", "fast")) -> str:
    """Run ``graph`` on ``tensors`` on each engine; '' when every result equals numpy's, else
    why not (one line). Exceptions that are not toolkit errors propagate."""
    from formats.errors import ToolkitError
    from sam.check import compare, expected
    from sam.graph.implicit import index_sizes
    from sam.graph.validate import output_tensors
    from sam.sim.engine import simulate

    (out,) = output_tensors(graph)
    gold = expected(expression, tensors, index_sizes(graph), graph.formats)
    cycles = set()
    for engine in engines:
        try:
            result = simulate(graph, tensors, engine=engine)
        except ToolkitError as err:
            return "refused: " + " ".join(str(err).split())[:300]
        check = compare(result.outputs[out], gold)
        if not check.passed:
            return f"wrong ({engine}): {check.line()}"
        cycles.add(result.cycles)
    if len(cycles) > 1:
        return f"wrong: the engines' cycles differ {sorted(cycles)}"
    return ""


def _run_seeds(graph, expression: str, line: str, seeds, engines) -> str:
    """:func:`run_checked` on the random inputs of each seed; the first failure, or ''."""
    for seed in seeds:
        why = run_checked(graph, expression, _inputs(expression, graph, seed, line), engines)
        if why:
            return why
    return ""


def _status(why: str) -> str:
    if not why:
        return "pass"
    return why.split(":")[0].split(" ")[0]


def compare_one(name: str, group: str, line: str, seeds=(0, 1),
                engines=("reference", "fast"), cycles: bool = False,
                matrices: int = 3, records: Path = RECORDS) -> Outcome:
    """The harness on one recorded expression of the record set ``records`` (see module
    docstring)."""
    from custard.cli import graph_from_command_line
    from formats.errors import ToolkitError
    from sam.graph import dot

    expression = split_line(line)[0]
    outcome = Outcome(name, group, line)
    try:
        read = dot.load(records / f"{name}.gv")
        outcome.counts_original = primitive_counts(read)
        graph = dot.loads(dot.dumps(read))
        why = _run_seeds(graph, expression, line, seeds, engines)
    except ToolkitError as err:
        why = "refused: " + " ".join(str(err).split())[:300]
    outcome.original, outcome.original_why = _status(why), why
    try:
        ours = graph_from_command_line(line)
        if not hasattr(ours, "blocks"):  # a program of graphs (a workspace): as corpus.py
            outcome.program = True
            for seed in seeds:
                run = _corpus().simulate_line(line, seed, fast="fast" in engines)
                if run.status != "pass":
                    outcome.ours, outcome.ours_why = run.status, f"{run.status}: {run.detail}"
                    return outcome
            outcome.ours, outcome.ours_why = "pass", ""
            return outcome
        ours = dot.loads(dot.dumps(ours))
        outcome.counts_ours = primitive_counts(ours)
        why = _run_seeds(ours, expression, line, seeds, engines)
    except ToolkitError as err:
        why = "refused: " + " ".join(str(err).split())[:300]
    outcome.ours, outcome.ours_why = _status(why), why
    if cycles and outcome.original == "pass":
        from scripts.differential.cycles import (
            has_cycles,
            original_cycles,
            simulated_cycles,
        )

        if has_cycles(name):
            outcome.cycles = original_cycles(name, records / f"{name}.gv", matrices)
        outcome.cycles += simulated_cycles(records, name)
    return outcome
