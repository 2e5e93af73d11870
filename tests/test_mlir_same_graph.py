"""The same kernel written as index notation and as MLIR (Linalg + SparseTensor) compiles to
the same SAM graph: every kernel of the suite (dot_graphs/kernel-suite.tsv) is written as one
``linalg.generic`` (tests/helpers/mlir_text.py), read by ``custard mlir``'s front end, lowered,
compiled through the DAG path ``custard mlir`` uses, and compared, as DOT text, with the graph
``custard compile`` gives for the suite's command line."""

from __future__ import annotations

import re
import shlex

import pytest

from custard.api import default_order
from custard.cli import graph_from_command_line
from custard.dag.bind import bind_inputs, input_infos
from custard.dag.labels import build_dag
from custard.dag.run import compile_dag, graphs_of
from custard.mlir.program import lower_function
from custard.mlir.syntax import parse_module
from formats.format import Format
from sam.graph.dot import dumps
from sam.notation.expr import reduction_sites
from sam.notation.parse import parse_expression

from helpers.kernel_suite import SUITE
from helpers.mlir_text import mlir_kernel

#: suite kernels one linalg.generic cannot state: a sum around part of the expression (MLIR's
#: region runs at every point of the whole iteration space, so the other terms would be added
#: once per summed coordinate); as MLIR they are two ops
PARTIAL_SUMS = {"mat_mattransmul", "mat_residual"}


def _parts(command: str) -> tuple[str, dict[str, str], list[str] | None]:
    words = shlex.split(command)
    formats, order = {}, None
    for w in words[1:]:
        if w.startswith("-f="):
            name, _, fmt = w[3:].partition(":")
            formats[name] = fmt
        elif w.startswith("-s=reorder("):
            order = w[len("-s=reorder("):-1].split(",")
    return words[0], formats, order


def _strip_name(text: str) -> str:
    return re.sub(r"^digraph \S+", "digraph G", text, flags=re.M)


@pytest.mark.parametrize("kernel", sorted(SUITE))
def test_index_notation_and_mlir_give_the_same_graph(kernel: str) -> None:
    expression, formats, order = _parts(SUITE[kernel])
    assign = parse_expression(expression)
    sites = reduction_sites(assign)
    if kernel in PARTIAL_SUMS:
        assert any(node is not assign.rhs for node in sites.values())
        pytest.skip("a sum around part of the expression is two linalg ops")
    order = order or default_order(assign, {n: Format.parse(f) for n, f in formats.items()})
    text = mlir_kernel(expression, formats, order)
    low = lower_function(parse_module(text, f"{kernel}.mlir"), "kernel")
    assert len(low.statements) == 1
    prog = low.dag_program()
    specs = {n: f"random:0.5:{k}:" + "x".join(["5"] * len(t.shape))
             for k, (_, n, t) in enumerate(low.inputs) if t.rank}
    specs.update({n: "2.5" for _, n, t in low.inputs if not t.rank})
    tensors = bind_inputs(prog, specs)
    units = compile_dag(build_dag(prog, input_infos(prog, tensors)))
    (mlir_graph,) = graphs_of(units)
    suite_graph = graph_from_command_line(SUITE[kernel])
    assert _strip_name(dumps(mlir_graph)) == _strip_name(dumps(suite_graph))


def test_every_suite_kernel_is_covered() -> None:
    assert len(SUITE) >= 30
    assert PARTIAL_SUMS <= set(SUITE)
