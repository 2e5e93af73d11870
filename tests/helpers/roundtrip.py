"""Test helpers: a compiled graph through DOT text and back, and runs compared token for token.

Tests simulate the graph *read back* from :func:`sam.graph.dot.dumps` text (what ``custard
compile -o G.dot`` then ``sam-sim run G.dot`` simulates) and check that it runs exactly as the
in-memory graph does: cycles, outputs, every block's tokens and cycles, every stream's tokens
(``scripts/corpus.py``'s :func:`measure`)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Mapping
from pathlib import Path

from formats.tensor import Tensor
from sam.graph.dot import dumps, dumps_all, loads, loads_all
from sam.graph.model import Graph
from sam.program import Program
from sam.sim.engine import SimResult, simulate

ROOT = Path(__file__).resolve().parents[2]


def load_script(name: str):
    """``scripts/NAME.py`` as a module."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # (dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


CORPUS = load_script("corpus")
measure = CORPUS.measure


def through_dot(graph: Graph) -> Graph:
    """``graph`` written as DOT text and read back; it must mean the same (nodes, their ports,
    edges, formats, attributes)."""
    back = loads(dumps(graph))
    assert back.signature() == graph.signature(), "DOT text and back changes the graph"
    return back


def run_through_dot(graph: Graph, tensors: Mapping[str, Tensor], *, engine: str = "reference",
                    fifo_depth: int | None = None) -> SimResult:
    """Simulate ``graph`` in memory and read back from DOT text; the two runs must be equal
    token for token and cycle for cycle. Returns the run of the graph read back."""
    if isinstance(graph, Program):  # a program of graphs: every phase through DOT text
        graphs = [p.graph for p in graph.phases]
        back_graphs = loads_all(dumps_all(graphs))
        assert [g.signature() for g in back_graphs] == [g.signature() for g in graphs]
        mine_p = graph.run(tensors, engine=engine, fifo_depth=fifo_depth)
        read_p = Program(back_graphs).run(tensors, engine=engine, fifo_depth=fifo_depth)
        for x, y in zip(mine_p.phases, read_p.phases, strict=True):
            assert measure(x) == measure(y), "a phase runs differently after DOT text"
        return read_p
    back = through_dot(graph)
    mine = simulate(graph, tensors, engine=engine, fifo_depth=fifo_depth)
    read = simulate(back, tensors, engine=engine, fifo_depth=fifo_depth)
    a, b = measure(mine), measure(read)
    assert a == b, f"run after DOT text differs: {CORPUS.first_difference(a, b)}"
    return read
