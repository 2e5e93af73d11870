"""Minimal reproducers of the compiler/simulator bugs that tests/test_custard_random.py found.

Each test compiles one expression with explicit formats and loop order, simulates it on tiny
inputs (in memory and read back from DOT text: the runs must be equal) and expects the numpy
gold result (:func:`sam.notation.reference.evaluate`). All are fixed; the tests guard against
regressions.
"""

from __future__ import annotations

import numpy as np
import pytest

import custard
from formats.tensor import Tensor
from sam.notation.reference import evaluate

from helpers.roundtrip import run_through_dot


def check(expr: str, formats: dict[str, str], order: str, engine: str = "reference",
          **arrays) -> None:
    arrays = {k: np.asarray(v, dtype=float) for k, v in arrays.items()}
    graph = custard.compile(expr, formats=formats, order=order)
    result = run_through_dot(graph, {k: Tensor.from_dense(v) for k, v in arrays.items()},
                             engine=engine)
    np.testing.assert_array_equal(result.outputs["X"].to_dense(), evaluate(expr, arrays))


@pytest.mark.parametrize("expr", [
    "X(i) = B(i) + c + d",                 # ((B + c) + d): both scalars broadcast over i
    "X(i) = (B(i) + c) * (B(i) + d)",      # a dense iteration in each union, intersected
])
def test_two_dense_iterations_of_one_variable(expr):
    check(expr, {"B": "s", "X": "s"}, "i", B=[1.0, 0.0], c=1.0, d=2.0)


@pytest.mark.parametrize("expr, formats, order, arrays", [
    # sum_j D(i,j) under i = E's (empty) coordinates
    ("X(i) = E(i) * (c + D(i,j))", {"E": "s", "D": "ss", "X": "s"}, "ij",
     {"E": [0.0], "c": 1.0, "D": [[1.0]]}),
    # sum_i B(i) and sum_j B(j) under C's (empty) l coordinates; B used twice
    ("X(l) = C(l) * (B(i) - -B(j))", {"C": "s", "B": "s", "X": "s"}, "lij",
     {"C": [0.0, 0.0], "B": [1.0, 2.0]}),
])
def test_inner_sum_under_an_empty_outer_fiber(expr, formats, order, arrays):
    check(expr, formats, order, **arrays)


@pytest.mark.parametrize("expr, formats, order, arrays", [
    ("X(i) = B(i,j)", {"B": "dd", "X": "d"}, "ij", {"B": np.zeros((1, 0))}),
    ("X(i,k) = B(i,j) * C(k)", {"B": "dd:1,0", "C": "d", "X": "dd:1,0"}, "kji",
     {"B": np.zeros((0, 0)), "C": [0.0, 0.0]}),
])
def test_dense_level_of_size_zero(expr, formats, order, arrays):
    check(expr, formats, order, **arrays)


@pytest.mark.parametrize("expr, formats, order, arrays", [
    ("X(k,j) = B(k,i,j) + C(i)", {"B": "sss", "C": "s", "X": "ss"}, "kij",
     {"B": [[[1.0]], [[0.0]]], "C": [0.0]}),
    ("X(j,l) = B(l) * C(i,j) + D(j,i)", {"B": "s", "C": "ss:1,0", "D": "ds", "X": "ss"}, "jli",
     {"B": [0.0], "C": [[0.0]], "D": [[0.0]]}),
])
def test_union_operand_absent_at_an_outer_union(expr, formats, order, arrays):
    check(expr, formats, order, **arrays)


@pytest.mark.parametrize("formats", [
    {"B": "s", "D": "s", "X": "ss"},
    {"B": "s", "D": "d", "X": "sd"},
])
def test_broadcast_over_a_variable_of_size_zero(formats):
    check("X(i,j) = B(i) + D(j)", formats, "ij", B=[1.0], D=np.zeros(0))


@pytest.mark.parametrize("expr, formats, order, arrays", [
    ("X(l,i) = B(m,l) + C(m,i,j)", {"B": "ss", "C": "sss:1,0,2", "X": "ss:1,0"}, "imlj",
     {"B": np.zeros((1, 1)), "C": np.zeros((1, 2, 1))}),
    ("X(i,k) = B(i,j) + C(i,j,k,l)", {"B": "ss:1,0", "C": "ssss:2,1,0,3", "X": "ss:1,0"},
     "kjil", {"B": np.zeros((2, 2)), "C": np.zeros((2, 2, 2, 2))}),
])
def test_empty_reductions_under_several_outer_coordinates(expr, formats, order, arrays):
    check(expr, formats, order, **arrays)


def test_matrix_reduction_over_a_variable_of_size_zero():
    check("X(m,i) = B(l,k) * D(m,i) * E(l,k,m)",
          {"B": "ss:1,0", "D": "dd", "E": "sss:1,2,0", "X": "ss"}, "kmli",
          B=np.ones((1, 1)), D=np.ones((2, 0)), E=np.ones((1, 1, 2)))


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_union_with_inner_summed_variable_writes_every_value(engine):
    """Where C(i) and D(j,l) are absent, the dense iteration of j (C is broadcast along it)
    still gives j coordinates whose values are all N: the scalar reducer sums them to 0 (the
    coordinate dropper keeps l above a non-empty j fiber), so no value is short."""
    expr = "X(k,i,l)=B(k,i,j)+C(i)+D(j,l)"
    formats = {"B": "dds012", "C": "s0", "D": "ds10", "X": "sss"}
    check(expr, formats, "kilj", engine, B=[[[1, 1], [0, 1]], [[0, 0], [1, 1]], [[1, 0], [0, 1]]],
          C=[0, 0], D=[[0], [0]])
    for seed in range(20):
        rng = np.random.default_rng(seed)
        arrays = {"B": (rng.random((3, 2, 2)) < 0.4) * 1.0, "C": (rng.random(2) < 0.4) * 1.0,
                  "D": (rng.random((2, 1)) < 0.4) * 1.0}
        check(expr, formats, "kilj", engine, **arrays)


def test_union_of_a_dense_row_and_a_broadcast_sums_absent_values_to_zero():
    """The same family one order lower: B's dense i level has an empty row where c is absent."""
    for engine in ("reference", "fast"):
        check("X(i)=B(i,j)+c(i)", {"B": "ds", "c": "s", "X": "s"}, "ij", engine,
              B=[[0, 0], [1, 0]], c=[0, 2])
