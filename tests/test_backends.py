"""Accelerator back ends as SAM graphs (SAM paper Sec. 6.5; custard/backends.py,
dot_graphs/backends/, docs/backends.md).

(a) the checked-in files are what the builders make now;
(b) each back end, read back from its file, gives scipy's result on shipped matrices, on both
    engines;
(c) its primitive counts are those of the paper's description of the accelerator;
(d) what makes each one that accelerator changes cycles, never results: ExTensor's skipping,
    Capstan's wide loop body.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from custard.backends import BACKENDS, backend_text, build_capstan, build_extensor
from custard.counts import primitive_counts
from formats.io import load_tensor
from formats.tensor import Tensor
from sam.graph.dot import load_all
from sam.graph.model import Graph
from sam.program import Program
from sam.sim.engine import simulate

ROOT = Path(__file__).resolve().parents[1]
DIR = ROOT / "dot_graphs" / "backends"

#: (matrix, engine): small shipped matrices on the reference engine, bigger ones on the fast one.
MATRICES = [("LFAT5", "reference"), ("karate", "reference"), ("lp_afiro", "reference"),
            ("west0479", "fast"), ("bcspwr01", "fast"), ("lp_afiro", "fast")]


def _script():
    spec = importlib.util.spec_from_file_location("build_backends",
                                                  ROOT / "scripts" / "build_backends.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def graphs_of(name: str) -> list[Graph]:
    return load_all(DIR / f"{name}.gv")


@cache
def matrix(name: str) -> sp.csr_matrix:
    m = load_tensor(name).to_scipy().tocsr()
    m.eliminate_zeros()  # some shipped matrices store explicit zeros
    return m


def thinned(m: sp.csr_matrix, seed: int) -> sp.csr_matrix:
    """About 70% of ``m``'s entries, each rescaled (a second operand of m's shape)."""
    rng = np.random.default_rng(seed)
    coo = m.tocoo()
    keep = rng.random(coo.nnz) < 0.7
    vals = coo.data[keep] * rng.uniform(-2, 2, keep.sum())
    return sp.csr_matrix((vals, (coo.row[keep], coo.col[keep])), shape=m.shape)


def _tensors(**values: sp.spmatrix) -> dict[str, Tensor]:
    return {k: Tensor.from_scipy(v) for k, v in values.items()}


# ----------------------------------------------------------------------------- (a)
def test_backend_files_are_current():
    assert _script().main(["--check"]) == 0
    for name in BACKENDS:
        assert (DIR / f"{name}.gv").read_text() == backend_text(name), (
            f"dot_graphs/backends/{name}.gv is stale; run python scripts/build_backends.py")


# ----------------------------------------------------------------------------- (b)
@pytest.mark.parametrize("name, engine", MATRICES)
def test_outerspace_equals_scipy(name, engine):
    b = matrix(name)
    c = thinned(b.T.tocsr(), 1)
    res = Program(graphs_of("outerspace")).run(_tensors(B=b, C=c), engine=engine)
    assert len(res.phases) == 2 and set(res.outputs) == {"X"}
    np.testing.assert_allclose(res.outputs["X"].to_dense(), (b @ c).toarray(), rtol=1e-12,
                               atol=1e-12)
    # the multiply phase wrote every partial product Y(i,k,j) = B(i,k) C(k,j), stored ikj
    y = res.written["Y"]
    assert y.format.mode_order == (0, 1, 2)
    bc = b.tocoo()
    assert y.nnz == sum(c.getrow(k).nnz for k in bc.col)


@pytest.mark.parametrize("name, engine", MATRICES)
def test_extensor_equals_scipy(name, engine):
    b = matrix(name)
    c = thinned(b.T.tocsr(), 2)
    (graph,) = graphs_of("extensor")
    res = simulate(graph, _tensors(B=b, C=c), engine=engine)
    np.testing.assert_allclose(res.outputs["X"].to_dense(), (b @ c).toarray(), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("op", ["and", "or"])
@pytest.mark.parametrize("name, engine", MATRICES)
def test_capstan_equals_scipy(op, name, engine):
    b = matrix(name)
    c = thinned(b, 3)
    (graph,) = graphs_of(f"capstan_{op}")
    res = simulate(graph, _tensors(B=b, C=c), engine=engine)
    want = b.multiply(c) if op == "and" else b + c
    np.testing.assert_allclose(res.outputs["X"].to_dense(), want.toarray(), rtol=1e-12,
                               atol=1e-12)


def test_both_engines_give_the_same_cycles():
    b = matrix("karate")
    c = thinned(b, 4)
    for name in BACKENDS:
        graphs = graphs_of(name)
        runs = [Program(graphs).run(_tensors(B=b, C=c), engine=e) for e in ("reference", "fast")]
        assert runs[0].phase_cycles == runs[1].phase_cycles, name


# ----------------------------------------------------------------------------- (c)
def _types(graph: Graph) -> dict[str, int]:
    return {t: n for t, n in graph.count().items() if t != "broadcast"}


def test_outerspace_counts_follow_the_paper():
    """Multiply phase (Figure 16): a scanner per level of B and C (4), an intersecter at k, a
    repeater for each operand (B over j, C over i) with its signal generator, two arrays, one
    multiplier, level writers for Y's three levels and values. Merge phase: "three cascaded
    level scanners ..., a vector reducer to sum the k dimension, and three level writers" (two
    coordinate levels of X and its values), plus Y's value array."""
    multiply, merge = graphs_of("outerspace")
    assert multiply.attrs["order"] == "k,i,j"
    assert _types(multiply) == {"fiberlookup": 4, "intersect": 1, "repeat": 2, "repsiggen": 2,
                                "arrayvals": 2, "mul": 1, "fiberwrite": 4}
    assert _types(merge) == {"fiberlookup": 3, "arrayvals": 1, "spaccumulator": 1,
                             "fiberwrite": 3}
    assert merge.blocks[next(b for b, blk in merge.blocks.items()
                             if blk.dot_type == "spaccumulator")].attrs["order"] == "1"
    # B column-major, C row-major; Y written discordantly: the dataflow is kij, Y's storage ikj
    assert multiply.formats["B"].mode_order == (1, 0)
    assert multiply.formats["C"].mode_order == (0, 1)
    assert multiply.attrs["output_formats"] == "Y=sss:0,1,2"


def test_extensor_counts_follow_the_paper():
    """The coordinator: Stream Sequencer = two repeaters; two Scanners of n = 2 levels each (four
    level scanners), the last level of each skipping; an intersecter; two Data Storage arrays."""
    (g,) = graphs_of("extensor")
    t = _types(g)
    assert (t["repeat"], t["fiberlookup"], t["intersect"], t["arrayvals"]) == (2, 4, 1, 2)
    skipping = [b for b, blk in g.blocks.items()
                if blk.dot_type == "fiberlookup" and getattr(blk, "skipping", False)]
    assert sorted(g.blocks[b].attrs["index"] for b in skipping) == ["k", "k"]
    assert primitive_counts(g)["Intersect"] == 1


@pytest.mark.parametrize("op, merge", [("and", "bvintersect"), ("or", "bvunion")])
def test_capstan_counts_follow_the_paper(op, merge):
    """The loop header: two bitvector level scanners and a bitvector intersecter (and) or
    unioner (or); the loop body: two arrays, a single ALU, level writers, on 16-lane buses."""
    (g,) = graphs_of(f"capstan_{op}")
    t = _types(g)
    assert (t["bvlookup"], t[merge], t["arrayvals"]) == (2, 1, 2)
    assert sum(t.get(a, 0) for a in ("mul", "add")) == 1
    assert g.attrs["width"] == "16"


# ----------------------------------------------------------------------------- (d)
def test_extensor_skipping_saves_cycles_not_results():
    b = matrix("bcspwr01")
    c = thinned(b.T.tocsr(), 5)
    tensors = _tensors(B=b, C=c)
    (skip,) = graphs_of("extensor")
    from custard.api import compile as compile_expr

    plain = compile_expr("X(i,j)=B(i,k)*C(k,j)", {"X": "ss", "B": "ss", "C": "ss:1,0"}, "ijk")
    r_skip = simulate(skip, tensors, fifo_depth=2)
    r_plain = simulate(plain, tensors, fifo_depth=2)
    np.testing.assert_array_equal(r_skip.outputs["X"].to_dense(),
                                  r_plain.outputs["X"].to_dense())
    assert r_skip.cycles < r_plain.cycles


@pytest.mark.parametrize("op", ["and", "or"])
def test_capstan_lanes_save_cycles_not_results(op):
    """16 lanes: the bitvector merge turns a word into up to 16 indices per cycle, the loop
    body takes them; west0479's rows are 8 words long, so the word scan bounds the gain."""
    b = matrix("west0479")
    c = thinned(b, 6)
    tensors = _tensors(B=b, C=c)
    wide, narrow = build_capstan(op), build_capstan(op, lanes=1)
    r_wide, r_narrow = simulate(wide, tensors), simulate(narrow, tensors)
    np.testing.assert_array_equal(r_wide.outputs["X"].to_dense(),
                                  r_narrow.outputs["X"].to_dense())
    assert r_wide.cycles < 0.95 * r_narrow.cycles


def test_builders_return_fresh_graphs():
    a, b = build_extensor(), build_extensor()
    assert a is not b and dataclasses.asdict(a.formats["B"]) == dataclasses.asdict(b.formats["B"])
    with pytest.raises(ValueError, match="'and' or 'or'"):
        build_capstan("xor")
