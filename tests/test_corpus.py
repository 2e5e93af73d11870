"""The TACO website corpus as a test: a fixed seeded subset of ``scripts/corpus.py``.

150 unique command lines users typed (``tests/data/taco-website/success.log``, junk included)
are compiled in-process: none may crash or time out, every refusal is one line of text without a
traceback, and every compiled graph survives DOT text and back unchanged (nodes, ports, edges,
formats). 40 of the compiled ones are simulated on small random inputs through DOT text
(``scripts/corpus.py --simulate``): the graph read back must give the gold result and run
exactly as the in-memory graph does (tokens and cycles per block and per stream); every eighth
also on the fast engine. ``make corpus`` runs all 8,000 unique lines and a sample of 300.
"""

from __future__ import annotations

import random
from functools import cache

import pytest

from helpers.roundtrip import CORPUS

SEED = 12
N_COMPILED = 150
N_SIMULATED = 40


@cache
def outcomes() -> dict[str, tuple[str, str]]:
    lines = CORPUS.unique(CORPUS.read_lines())
    picked = random.Random(SEED).sample(lines, N_COMPILED)
    return {c: CORPUS.compile_line(c, dot_roundtrip=True)[:2] for c in picked}


def compiled() -> list[str]:
    return [c for c, (st, _) in outcomes().items() if st == "compiled"]


def test_the_log_is_there():
    lines = CORPUS.read_lines()
    assert len(lines) == 24113
    assert len(CORPUS.unique(lines)) > 8000


def test_no_line_crashes():
    bad = {c: d for c, (st, d) in outcomes().items() if st not in ("compiled", "refused")}
    assert not bad, bad


#: Lines of the log still refused: junk, constructs SAM cannot express, user errors.
REFUSED = ['"struggle=ZGllKEBtZDUoQXByaTEpKTs=', '"A(i,j)=B(i,i)" -f=A:dd:0,1 -f=B:du:0,1',
           '"A(i)=B(i)+C(i)" -f=A:u:0 -f=B:u:0 -f=C:u:0 -s="pos(i,ipos,B)"',
           '"y(i)=z(i)*A(i,j,k)*x(j)/(a(k)+b(i))" -f=y:s:0 -f=z:s:0 -f=A:sss:0,1,2 -f=x:s:0 '
           '-f=a:s:0 -f=b:s:0',
           '"y_i=A_ij*x_j" -f=y:d:0 -f=A:d:0 -f=x:d:0']


def test_refusals_are_one_line():
    refused = {c: d for c, (st, d) in outcomes().items() if st == "refused"}
    for line in REFUSED:
        st, detail = CORPUS.compile_line(line)[:2]
        assert st == "refused", line
        refused[line] = detail
    bad = {c: d for c, d in refused.items() if not CORPUS.one_line_refusal(d)}
    assert not bad, bad


def test_most_of_the_sample_compiles():
    assert len(compiled()) >= N_SIMULATED


@pytest.mark.parametrize("k", range(N_SIMULATED))
def test_simulated_through_dot_equals_gold_and_memory(k):
    lines = CORPUS.sample(compiled(), N_SIMULATED, SEED)
    result = CORPUS.simulate_line(lines[k], SEED, fast=k % 8 == 0)
    if result.status == "unstorable":  # random data that a singleton format cannot hold
        assert CORPUS.one_line_refusal(result.detail) and "singleton" in result.detail
        return
    assert result.status == "pass", f"{result.command}: {result.status}: {result.detail}"


@pytest.mark.parametrize("line", ['"action=wysija_ajax', 'a=b"', "'y(i)=B(i,j)*c(j)"])
def test_unbalanced_quotes_are_refused_in_one_line(line):
    from custard.cli import graph_from_command_line
    from sam.errors import CompileError

    with pytest.raises(CompileError, match="unbalanced quote") as err:
        graph_from_command_line(line)
    assert CORPUS.one_line_refusal(str(err.value))


def test_division_by_a_stored_zero_agrees_with_gold():
    """A dense divisor stores its zeros: inf/nan in the simulator (as TACO would) and in the gold
    evaluated on the tensors stored as the graph stores them."""
    import custard
    from formats.tensor import Tensor
    from sam.check import compare, expected
    from sam.sim.engine import simulate

    graph = custard.compile("y(i)=B(i,j)/x(j)", formats={"y": "d", "B": "dd", "x": "d"})
    tensors = {"B": Tensor.from_dense([[1.0, 2.0], [3.0, 0.0]]),
               "x": Tensor.from_dense([2.0, 0.0])}
    result = simulate(graph, tensors, engine="reference")
    gold = expected("y(i)=B(i,j)/x(j)", tensors, formats=graph.formats)
    assert compare(result.outputs["y"], gold).passed


def test_the_whole_corpus_compiles():
    """Every unique line (about 15 s): none crashes, every refusal is one line, and at least 99%
    of the well-formed ones (junk such as an unbalanced quote aside) compile; the constructs
    still refused are the few SAM cannot express (diagonal accesses, ``pos`` over a union,
    division by a sum of broadcast operands) and user errors TACO let pass."""
    lines = CORPUS.unique(CORPUS.read_lines())
    status = {c: CORPUS.compile_line(c)[:2] for c in lines}
    bad = {c: d for c, (st, d) in status.items() if st not in ("compiled", "refused")
           or st == "refused" and not CORPUS.one_line_refusal(d)}
    assert not bad, list(bad.items())[:5]
    formed = [c for c, (st, d) in status.items() if "unbalanced quote" not in d]
    compiled = sum(status[c][0] == "compiled" for c in formed)
    assert compiled >= 0.99 * len(formed), (compiled, len(formed))
