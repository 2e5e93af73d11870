"""The checked-in kernel suite graphs (``dot_graphs/``).

(a) Each graph is exactly what the compiler writes now for its ``kernel-suite.tsv`` line (a
    stale graph fails, telling to rerun ``scripts/compile_suite.py``).
(b) Each graph, read back from its file, runs in the simulator and equals numpy: matrix kernels
    on real SuiteSparse matrices, tensor kernels on the shipped FROSTT tensors (4- and 5-mode
    ones folded or sliced to 3 modes), vector kernels on random vectors. Further operands are
    derived from the first (a rescaled, thinned copy, its transpose) or random.
(c) SpM*SpM in all six loop orders (``matmul_*``) gives the same result in each order, and the
    same as scipy, on real matrices.
"""

from __future__ import annotations

import numpy as np
import pytest

from formats.tensor import Tensor
from sam.notation.reference import evaluate
from sam.sim.engine import simulate

from helpers.kernel_suite import (
    GRAPHS,
    GV_FILES,
    MATRIX_KERNELS,
    SCRIPT,
    SUITE,
    TENSOR_KERNELS,
    VECTOR_KERNELS,
    expected,
    graph_file,
    operands,
    real_matrix,
    real_tensor,
)
from helpers.kernel_suite import check_kernel as _check
from helpers.kernel_suite import dense as _dense
from helpers.kernel_suite import rng_for as _rng
from helpers.kernel_suite import suite_expression as _expression

#: Real matrices: (name, engine). The reference engine for the small ones, the (same-result,
#: compiled) fast engine for the bigger ones, to keep this file within a minute.
MATRICES = [
    ("west0479", "fast"),
    ("lp_scsd1", "fast"),
    ("bcsstm02", "reference"),
    ("GD97_b", "reference"),
    ("LFAT5", "reference"),
    ("lpi_itest6", "reference"),
    ("karate", "reference"),
]
#: FROSTT tensors as 3-mode tensors: (label, shipped name, how to get 3 modes, engine).
TENSORS = [
    ("splatt-small", "splatt-small", None, "reference"),
    ("splatt-small4-slice", "splatt-small4", "slice", "reference"),
    ("sttid-Rnd1-folded", "sttid-Rnd1-zerobased", "fold", "reference"),
    ("sttid-Rnd2-folded", "sttid-Rnd2-zerobased", "fold", "reference"),
    ("sttid-Rnd3-folded", "sttid-Rnd3-zerobased", "fold", "fast"),
    ("sttid-Rnd4-slice", "sttid-Rnd4-zerobased", "slice", "fast"),
]
VECTOR_SIZES = [0, 1, 7, 40, 300]


# ----------------------------------------------------------------------------- (a)
def test_suite_and_files_agree():
    """Every kernel of the suite has its graph file and every graph file its kernel."""
    assert set(SUITE) == set(GV_FILES), (
        "dot_graphs/ and kernel-suite.tsv disagree; run python scripts/compile_suite.py "
        f"(missing: {sorted(set(SUITE) - set(GV_FILES))}, "
        f"extra: {sorted(set(GV_FILES) - set(SUITE))})"
    )


@pytest.mark.parametrize("name", list(SUITE))
def test_graph_file_is_current(name):
    path = GRAPHS / f"{name}.gv"
    assert path.exists(), f"{path} is missing; run python scripts/compile_suite.py"
    assert SCRIPT.graph_text(SUITE[name]) == path.read_text(), (
        f"dot_graphs/{name}.gv is stale (the compiler now writes a different graph for "
        f"{SUITE[name]!r}); run python scripts/compile_suite.py and commit the graphs"
    )


def test_check_mode_of_the_script():
    assert SCRIPT.main(["--check"]) == 0


# ----------------------------------------------------------------------------- (b)
#: SpM*SpM in its six loop orders is checked on the real matrices by (c).
MATMULS = sorted(n for n in MATRIX_KERNELS if n.startswith("matmul_"))


def test_every_graph_is_checked():
    assert sorted(MATRIX_KERNELS + TENSOR_KERNELS + VECTOR_KERNELS) == GV_FILES
    assert len(MATRIX_KERNELS) >= 15 and len(TENSOR_KERNELS) >= 9


@pytest.mark.parametrize("matrix, engine", MATRICES)
@pytest.mark.parametrize("name", [n for n in MATRIX_KERNELS if n not in MATMULS])
def test_matrix_kernel_on_real_matrices(name, matrix, engine):
    assign = _expression(name)
    values = operands(assign, real_matrix(matrix), _rng(name, matrix))
    _check(name, values, engine)


@pytest.mark.parametrize("label, source, how, engine", TENSORS)
@pytest.mark.parametrize("name", TENSOR_KERNELS)
def test_tensor_kernel_on_frostt_tensors(name, label, source, how, engine):
    assign = _expression(name)
    values = operands(assign, real_tensor(source, how), _rng(name, label))
    _check(name, values, engine)


@pytest.mark.parametrize("size", VECTOR_SIZES)
@pytest.mark.parametrize("name", VECTOR_KERNELS)
def test_vector_kernel_on_random_vectors(name, size):
    assign = _expression(name)
    values = operands(assign, None, _rng(name, size), free=size)
    _check(name, values)


def test_operands_are_derived_from_the_real_matrix():
    """lp_scsd1 is 77x760: X(i,j)=B(i,k)*C(k,j) gets C from B's transpose."""
    M = real_matrix("lp_scsd1")
    values = operands(_expression("matmul_ikj"), M, _rng("x"))
    assert values["B"] is M
    assert values["C"].shape == (760, 77)
    assert set(zip(*values["C"].nonzero(), strict=True)) <= set(zip(*M.T.nonzero(),
                                                                    strict=True))


def test_einsum_and_reference_agree():
    assign = _expression("mat_sddmm")
    values = operands(assign, real_matrix("LFAT5"), _rng("sddmm"))
    np.testing.assert_allclose(expected(assign, values),
                               evaluate(assign, {k: _dense(v) for k, v in values.items()}))


# ----------------------------------------------------------------------------- (c)
def test_six_matmul_orders():
    assert {n.removeprefix("matmul_") for n in MATMULS} == {"ijk", "ikj", "jik", "jki", "kij",
                                                            "kji"}


@pytest.mark.parametrize("matrix, engine", MATRICES)
def test_matmul_orders_agree(matrix, engine):
    M = real_matrix(matrix)
    values = operands(_expression("matmul_ikj"), M, _rng("matmul", matrix))
    B, C = values["B"], values["C"]
    want = (B @ C).toarray()
    results = {}
    for name in MATMULS:
        out = simulate(graph_file(name), {"B": Tensor.from_scipy(B), "C": Tensor.from_scipy(C)},
                       engine=engine).outputs["X"]
        results[name] = out
        np.testing.assert_allclose(out.to_dense(), want, rtol=1e-9, atol=1e-9,
                                   err_msg=f"{name} on {matrix}")
    first = MATMULS[0]
    base = set(map(tuple, results[first].to_coo()[0].tolist()))
    for name in MATMULS[1:]:
        np.testing.assert_allclose(results[name].to_dense(), results[first].to_dense(),
                                   rtol=1e-12, atol=1e-12)
        coords = set(map(tuple, results[name].to_coo()[0].tolist()))
        assert coords == base, f"{name} stores other coordinates than {first} on {matrix}"
