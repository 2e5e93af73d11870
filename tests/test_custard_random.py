"""Randomized end-to-end tests of Custard + the SAM simulator.

Random tensor index notation expressions (up to four operands of order 0..4, one of them
sometimes used twice; ``+ - *`` trees with parentheses and unary minus; a result of order 0..3),
random formats (``d``/``s`` levels, random mode orders) and a random loop order are compiled
with :func:`custard.compile`, written as DOT text and read back, and simulated on random sparse
integer inputs; the run must equal the in-memory graph's token for token and cycle for cycle,
and the result must equal :func:`sam.notation.reference.evaluate` exactly (and ``numpy.einsum``
when the expression is one product). The loop order is drawn in one of four ways: first, with
every format's mode order made concordant with it; as a random topological order of the formats'
mode orders, with or without the inner-sum rule; or at random. An independent prediction of the
documented refusal said whether compilation must succeed (none now: a format discordant with
the loop order is stored concordantly by the graph, :mod:`custard.concordance`); an inner sum
whose variable the order does not put innermost compiles to a program of
two graphs (the sum into a temporary first), which must give the same result. A subset also runs
on the fast engine, which must agree with the reference engine on outputs, cycles and every
block's busy count.

The case generator is written against a tiny ``Draw`` interface, so hypothesis drives it (and
shrinks it) in the property tests, and a seeded ``random.Random`` drives it in the
compile-success-rate test.
"""

from __future__ import annotations

import signal
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, note, settings, target
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

import custard
from formats.errors import ToolkitError
from formats.tensor import Tensor
from sam.errors import CompileError
from sam.graph.model import Graph
from sam.notation.parse import parse_expression
from sam.notation.reference import evaluate
from sam.program import Program

from helpers.custard_cases import (
    Case,
    HypDraw,
    RandomDraw,
    draw_arrays,
    draw_case,
    expected_refusal,
    expects_program,
)
from helpers.roundtrip import run_through_dot

#: Seconds one case may take (compiling and the reference engine) before it counts as a hang.
CASE_TIMEOUT = 20

STATS: Counter[str] = Counter()


# --------------------------------------------------------------------------- simulating
def _simulate(result: Graph | Program, bound: dict[str, Tensor], engine: str):
    """(outputs, cycles, busy counts, token counts) of a graph or a program (per phase)."""
    if isinstance(result, Graph):  # through DOT text: the run must equal the in-memory one
        r = run_through_dot(result, bound, engine=engine)
        return (r.outputs, r.cycles, {k: b.busy for k, b in r.blocks.items()},
                {k: b.tokens_out for k, b in r.blocks.items()})
    r = result.run(bound, engine=engine)
    return (r.outputs, r.cycles, [{k: b.busy for k, b in p.blocks.items()} for p in r.phases],
            [{k: b.tokens_out for k, b in p.blocks.items()} for p in r.phases])


# --------------------------------------------------------------------------- known bugs
def known_bug(case: Case, arrays: dict[str, np.ndarray],  # noqa: ARG001
              err: Exception) -> str | None:  # noqa: ARG001
    """Which open bug a simulation error is, else None. Every bug this test has found is kept as
    a regression test in tests/test_custard_regressions.py; none is open now (the last, a union
    of broadcast operands writing a value short, was fixed in the scalar reducer)."""
    return None


# --------------------------------------------------------------------------- checks
class Hang(Exception):
    pass


def _alarm(signum, frame):  # pragma: no cover - only on a hang
    raise Hang(f"a case ran longer than {CASE_TIMEOUT} s")


def run_case(case: Case, arrays: dict[str, np.ndarray], fast: bool = False) -> str:
    """Compile and simulate ``case``, check it against the references; say what happened."""
    if currently_in_test_context():
        note(f"case: {case}")
        note("arrays: " + "; ".join(f"{k} {v.shape} {v.tolist()}" for k, v in arrays.items()))
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_TIMEOUT)
    try:
        return _run_case(case, arrays, fast)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _run_case(case: Case, arrays: dict[str, np.ndarray], fast: bool) -> str:
    want = expected_refusal(case)
    try:
        graph = custard.compile(case.expr, formats=case.formats, order=case.order)
    except CompileError as err:
        assert want is not None, f"unexpected CompileError for {case}: {err}"
        assert want in str(err), f"expected a {want!r} refusal for {case}, got: {err}"
        return f"refused: {want}"
    assert want is None, f"compiled {case}, but expected a {want!r} refusal"
    assert isinstance(graph, Program) == expects_program(case), str(case)

    gold = evaluate(case.expr, arrays)
    bound = {k: Tensor.from_dense(v) for k, v in arrays.items()}
    try:
        ref_out, ref_cycles, ref_busy, ref_tokens = _simulate(graph, bound, "reference")
    except ToolkitError as err:
        bug = known_bug(case, arrays, err)
        if bug is None:
            raise
        if fast:  # the fast engine fails the same way
            signal.alarm(0)  # (its first run compiles the block kernels: no time limit)
            with pytest.raises(type(err)) as fst_err:
                _simulate(graph, bound, "fast")
            assert str(fst_err.value) == str(err), str(case)
        return f"known bug: {bug}"
    got = ref_out["X"]
    assert got.shape == gold.shape, f"{case}: shape {got.shape}, expected {gold.shape}"
    np.testing.assert_array_equal(got.to_dense(), gold, err_msg=str(case))
    if case.product:
        assign = parse_expression(case.expr)
        accs = assign.rhs.accesses()
        spec = ",".join("".join(a.indices) for a in accs) + "->" + "".join(assign.lhs.indices)
        sign = (-1) ** case.expr.count("-")  # only unary minus in a product
        np.testing.assert_array_equal(
            got.to_dense(), sign * np.einsum(spec, *[arrays[a.name] for a in accs]),
            err_msg=f"einsum {spec}: {case}")
    if fast:
        signal.alarm(0)  # the first fast run compiles the block kernels (numba): no time limit
        fst_out, fst_cycles, fst_busy, fst_tokens = _simulate(graph, bound, "fast")
        for a, b in zip(fst_out["X"].to_coo(), got.to_coo(), strict=True):
            np.testing.assert_array_equal(a, b, err_msg=f"fast engine: {case}")
        assert fst_cycles == ref_cycles, f"{case}: cycles {fst_cycles} != {ref_cycles}"
        assert fst_busy == ref_busy, f"busy counts: {case}"
        assert fst_tokens == ref_tokens, f"token counts: {case}"
    if currently_in_test_context():
        target(float(ref_cycles), label="cycles")
    outcome = "ok" if np.any(gold) else "ok (all-zero result)"
    return f"{outcome}, program" if isinstance(graph, Program) else outcome


# --------------------------------------------------------------------------- tests
SETTINGS = settings(max_examples=600, deadline=None, database=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    for engine in ("", "fast "):
        runs = {k[len(engine):]: v for k, v in STATS.items() if k.startswith(engine)
                and (engine or not k.startswith("fast "))}
        total = sum(runs.values())
        if total:
            refused = sum(v for k, v in runs.items() if k.startswith("refused"))
            print(f"\ncustard random cases ({engine or 'reference '}engine): {total}, compiled "
                  f"{(total - refused) / total:.0%}: {runs}")


@SETTINGS
@given(st.data())
def test_random_expressions(data):
    d = HypDraw(data)
    case = draw_case(d)
    arrays = draw_arrays(d, case.expr)
    outcome = run_case(case, arrays)
    STATS[outcome] += 1
    event(outcome)
    event(f"strategy {case.strategy}")


@settings(SETTINGS, max_examples=150)
@given(st.data())
def test_random_expressions_fast_engine(data):
    d = HypDraw(data)
    case = draw_case(d)
    arrays = draw_arrays(d, case.expr)
    outcome = run_case(case, arrays, fast=True)
    STATS[f"fast {outcome}"] += 1
    event(outcome)


def test_compile_success_rate():
    """Most generated cases compile (so the simulation checks above test something)."""
    outcomes = Counter()
    for seed in range(400):
        case = draw_case(RandomDraw(seed))
        want = expected_refusal(case)
        try:
            custard.compile(case.expr, formats=case.formats, order=case.order)
            outcomes["compiled"] += 1
            assert want is None, f"compiled {case}, but expected a {want!r} refusal"
        except CompileError as err:
            assert want is not None and want in str(err), f"{case}: {err}"
            outcomes[want] += 1
    assert outcomes["compiled"] >= 0.6 * 400, outcomes
