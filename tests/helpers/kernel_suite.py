"""The kernel suite (``kernel-suite.tsv``, its graphs in ``dot_graphs/``) and the inputs tests run
its graphs on: real SuiteSparse matrices, shipped FROSTT tensors folded or sliced to 3 modes,
random vectors; further operands derived from the first; numpy's answer."""

from __future__ import annotations

import importlib.util
import shlex
import zlib
from functools import cache
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from formats.io import load_tensor
from formats.tensor import Tensor
from sam.graph.dot import load
from sam.notation.expr import Access, Assignment, Mul, Node
from sam.notation.parse import parse_expression
from sam.notation.reference import evaluate
from sam.sim.engine import simulate

ROOT = Path(__file__).resolve().parents[2]
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


def rng_for(*key: object) -> np.random.Generator:
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


def dense(value) -> np.ndarray:
    return value.toarray() if sp.issparse(value) else np.asarray(value, dtype=float)


def _product_only(node: Node) -> bool:
    return isinstance(node, Access) or (
        isinstance(node, Mul) and _product_only(node.left) and _product_only(node.right))


def expected(assign: Assignment, values: dict) -> np.ndarray:
    """numpy's answer: ``np.einsum`` for a plain product (fast on big matrices), else
    :func:`sam.notation.reference.evaluate`."""
    arrays = {k: dense(v) for k, v in values.items()}
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
    assign = suite_expression(name)
    out = result.outputs[assign.lhs.name]
    assert out.shape == tuple(_sizes(assign, values)[v] for v in assign.lhs.indices)
    return out.to_dense()


def _sizes(assign: Assignment, values: dict) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for acc in assign.rhs.accesses():
        sizes.update(zip(acc.indices, np.shape(values[acc.name]), strict=True))
    return sizes


def suite_expression(name: str) -> Assignment:
    return parse_expression(shlex.split(SUITE[name])[0])


def _order(name: str) -> int:
    assign = suite_expression(name)
    return max(len(a.indices) for a in [assign.lhs, *assign.rhs.accesses()])


def check_kernel(name: str, values: dict, engine: str = "reference") -> None:
    assign = suite_expression(name)
    got = run(name, values, engine)
    want = expected(assign, values)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9,
                               err_msg=f"{name} differs from numpy")


MATRIX_KERNELS = [n for n in GV_FILES if n in SUITE and _order(n) == 2]
TENSOR_KERNELS = [n for n in GV_FILES if n in SUITE and _order(n) == 3]
VECTOR_KERNELS = [n for n in GV_FILES if n in SUITE and _order(n) <= 1]
