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

import importlib.util
import shlex
import zlib
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from formats.io import load_tensor
from formats.tensor import Tensor
from sam.graph.dot import load
from sam.notation.expr import Access, Assignment, Mul, Node
from sam.notation.parse import parse_expression
from sam.notation.reference import evaluate
from sam.sim.engine import simulate

ROOT = Path(__file__).resolve().parents[1]
GRAPHS = ROOT / "dot_graphs"


def _load_script():
    spec = importlib.util.spec_from_file_location("compile_suite",
                                                  ROOT / "scripts" / "compile_suite.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCRIPT = _load_script()
SUITE = dict(SCRIPT.read_suite())
GV_FILES = sorted(p.stem for p in GRAPHS.glob("*.gv"))

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


# ----------------------------------------------------------------------------- inputs
def _rng(*key: object) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


@cache
def real_matrix(name: str) -> sp.csr_matrix:
    return load_tensor(name).to_scipy().tocsr()


@cache
def real_tensor(name: str, how: str | None) -> np.ndarray:
    """A shipped FROSTT tensor as a dense 3-mode array: ``fold`` sums away the modes past the
    third, ``slice`` keeps the densest slice of the last mode."""
    t = load_tensor(name)
    arr = t.to_dense()
    while arr.ndim > 3:
        if how == "fold":
            arr = arr.sum(axis=-1)
        else:
            counts = np.count_nonzero(arr.reshape(-1, arr.shape[-1]), axis=0)
            arr = arr[..., int(np.argmax(counts))]
    return arr


def _thinned(m, rng: np.random.Generator):
    """A copy of ``m`` (scipy sparse or dense) with about 70% of its entries, each rescaled."""
    if sp.issparse(m):
        coo = sp.coo_matrix(m)
        keep = rng.random(coo.nnz) < 0.7
        vals = coo.data[keep] * rng.uniform(-2, 2, keep.sum())
        return sp.csr_matrix((vals, (coo.row[keep], coo.col[keep])), shape=coo.shape)
    out = np.where(rng.random(m.shape) < 0.7, m * rng.uniform(-2, 2, m.shape), 0.0)
    return out


def _random(shape: tuple[int, ...], rng: np.random.Generator, density: float = 0.4):
    vals = np.where(rng.random(shape) < density, rng.uniform(-3, 3, shape), 0.0)
    return sp.csr_matrix(vals) if len(shape) == 2 else vals


def _distinct(assign: Assignment) -> list[Access]:
    seen: dict[str, Access] = {}
    for acc in assign.rhs.accesses():
        seen.setdefault(acc.name, acc)
    return list(seen.values())


def operands(assign: Assignment, first, rng: np.random.Generator, free: int = 5) -> dict:
    """Inputs for ``assign``: ``first`` (a scipy matrix, a dense 3-mode array, or None for
    vector kernels) for the first operand of the highest order; other operands of that order
    derived from it (a thinned rescaled copy, for matrices its transpose) when the shapes fit,
    else random; index variables not fixed by an operand get size ``free``."""
    accs = sorted(_distinct(assign), key=lambda a: -len(a.indices))  # stable: appearance order
    top = len(accs[0].indices)
    sizes: dict[str, int] = {}
    out: dict = {}
    for k, acc in enumerate(accs):
        want = [sizes.get(v) for v in acc.indices]
        value = None
        if k == 0 and first is not None:
            value = first
        elif len(acc.indices) == top and first is not None:
            cands = [_thinned(first, rng)]
            if sp.issparse(first):
                cands.append(_thinned(first.T.tocsr(), rng))
            value = next((c for c in cands if all(w in (None, s) for w, s in
                                                   zip(want, c.shape, strict=True))), None)
        if value is None:
            shape = tuple(w if w is not None else free for w in want)
            value = float(rng.uniform(-3, 3)) if not shape else _random(shape, rng)
        for v, s in zip(acc.indices, np.shape(value), strict=True):
            sizes[v] = s
        out[acc.name] = value
    return out


def _dense(value) -> np.ndarray:
    return value.toarray() if sp.issparse(value) else np.asarray(value, dtype=float)


def _product_only(node: Node) -> bool:
    return isinstance(node, Access) or (
        isinstance(node, Mul) and _product_only(node.left) and _product_only(node.right))


def expected(assign: Assignment, values: dict) -> np.ndarray:
    """numpy's answer: ``np.einsum`` for a plain product (fast on big matrices), else
    :func:`sam.notation.reference.evaluate`."""
    arrays = {k: _dense(v) for k, v in values.items()}
    if _product_only(assign.rhs):
        accs = assign.rhs.accesses()
        spec = ",".join("".join(a.indices) for a in accs) + "->" + "".join(assign.lhs.indices)
        if all(len(v) == 1 for a in accs for v in a.indices):
            return np.einsum(spec, *[arrays[a.name] for a in accs], optimize=True)
    return evaluate(assign, arrays)


@cache
def graph_file(name: str):
    """The graph read from ``dot_graphs/<name>.gv`` (read once: the DOT parser is slow)."""
    return load(GRAPHS / f"{name}.gv")


def run(name: str, values: dict, engine: str = "reference") -> np.ndarray:
    graph = graph_file(name)
    bound = {k: (Tensor.from_scipy(v) if sp.issparse(v) else
                 Tensor.scalar(v) if np.ndim(v) == 0 else Tensor.from_dense(v))
             for k, v in values.items()}
    result = simulate(graph, bound, engine=engine)
    assign = _expression(name)
    out = result.outputs[assign.lhs.name]
    assert out.shape == tuple(_sizes(assign, values)[v] for v in assign.lhs.indices)
    return out.to_dense()


def _sizes(assign: Assignment, values: dict) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for acc in assign.rhs.accesses():
        sizes.update(zip(acc.indices, np.shape(values[acc.name]), strict=True))
    return sizes


def _expression(name: str) -> Assignment:
    return parse_expression(shlex.split(SUITE[name])[0])


def _order(name: str) -> int:
    return max(len(a.indices) for a in [_expression(name).lhs, *_expression(name).rhs.accesses()])


def _check(name: str, values: dict, engine: str = "reference") -> None:
    assign = _expression(name)
    got = run(name, values, engine)
    want = expected(assign, values)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9,
                               err_msg=f"{name} differs from numpy")


# ----------------------------------------------------------------------------- (b)
MATRIX_KERNELS = [n for n in GV_FILES if n in SUITE and _order(n) == 2]
#: SpM*SpM in its six loop orders is checked on the real matrices by (c).
MATMULS = sorted(n for n in MATRIX_KERNELS if n.startswith("matmul_"))
TENSOR_KERNELS = [n for n in GV_FILES if n in SUITE and _order(n) == 3]
VECTOR_KERNELS = [n for n in GV_FILES if n in SUITE and _order(n) <= 1]


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
