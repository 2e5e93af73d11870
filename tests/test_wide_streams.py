"""Wide streams (SAM paper Sec. 4.4; docs/timing-model.md, rule 13).

A graph attribute ``width="n"`` (``sam-sim run --width N``) or a node attribute
``stream_width="n"`` lets level scanners, arrays, ALUs, repeaters and level writers move up to n
tokens per cycle. Checked here: results equal numpy at widths 1, 2 and 4 on every suite kernel
(real matrices, FROSTT tensors) with cycles never growing with the width; both engines give the
same tokens and cycles; a hand-counted example; bounded FIFOs; bad widths refused in one line.
"""

from __future__ import annotations

import dataclasses
from functools import cache

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from formats.errors import ToolkitError
from formats.tensor import Tensor
from sam.cli import main as sam_main
from sam.errors import GraphError
from sam.graph.model import Graph
from sam.sim.engine import simulate
from sam.sim.widths import block_widths

from helpers.kernel_suite import (
    GV_FILES,
    MATRIX_KERNELS,
    TENSOR_KERNELS,
    expected,
    graph_file,
    operands,
    real_matrix,
    real_tensor,
)
from helpers.kernel_suite import rng_for as _rng
from helpers.kernel_suite import suite_expression as _expression
from helpers.small_graphs import elemmul_graph, identity_graph

WIDTHS = (1, 2, 4)


def widened(graph: Graph, n: int) -> Graph:
    """``graph`` with the graph attribute ``width="n"`` (blocks shared, not copied)."""
    wide = dataclasses.replace(graph, contract=graph.contract.copy())
    wide.contract.width = n
    return wide


def _bind(values: dict) -> dict[str, Tensor]:
    return {k: (Tensor.from_scipy(v) if sp.issparse(v) else
                Tensor.scalar(v) if np.ndim(v) == 0 else Tensor.from_dense(v))
            for k, v in values.items()}


def _inputs(name: str) -> dict:
    """Small real inputs for suite kernel ``name``: LFAT5 for matrix kernels, splatt-small4
    sliced to 3 modes for tensor kernels, random vectors otherwise."""
    assign = _expression(name)
    if name in MATRIX_KERNELS:
        first = real_matrix("LFAT5")
    elif name in TENSOR_KERNELS:
        first = real_tensor("splatt-small4", "slice")
    else:
        first = None
    return operands(assign, first, _rng("wide", name), free=23)


def _runs_at_widths(name: str, engine: str) -> list:
    """Runs of suite kernel ``name`` at :data:`WIDTHS`, each checked against numpy."""
    assign = _expression(name)
    values = _inputs(name)
    want = expected(assign, values)
    tensors = _bind(values)
    runs = []
    for n in WIDTHS:
        r = simulate(widened(graph_file(name), n), tensors, engine=engine)
        got = r.outputs[assign.lhs.name].to_dense()
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9,
                                   err_msg=f"{name} at width {n} differs from numpy")
        runs.append(r)
    return runs


@pytest.mark.parametrize("name", GV_FILES)
def test_suite_kernel_equals_numpy_at_widths_and_cycles_do_not_grow(name):
    cycles = [r.cycles for r in _runs_at_widths(name, "reference")]
    assert cycles == sorted(cycles, reverse=True), f"{name}: cycles {cycles} grow with width"


@pytest.mark.parametrize("name", ["mat_identity", "mat_vecmul_ij", "matmul_ikj",
                                  "tensor3_ttv", "vec_scalar_mul"])
def test_fast_engine_gives_the_same_cycles_and_statistics(name):
    def summary(runs: list) -> list:
        return [(r.cycles, {k: (s.busy, s.idle, s.stalled, s.started, s.finished)
                            for k, s in r.blocks.items()}) for r in runs]

    assert summary(_runs_at_widths(name, "fast")) == summary(_runs_at_widths(name, "reference"))


def test_cycles_fall_with_width_on_real_matrices():
    """Kernels made of widenable blocks speed up with the width (west0479)."""
    west = _bind({"B": real_matrix("west0479")})
    cycles = [simulate(widened(graph_file("mat_identity"), n), west).cycles for n in (1, 2, 4, 8)]
    assert cycles[0] > cycles[1] > cycles[2] > cycles[3]
    # one cycle per token at width 1; about a fiber per cycle at width 8 (479 rows, 1888 nnz)
    assert cycles[0] > 1888 + 479 and cycles[3] < 0.3 * cycles[0]


def test_width_by_hand():
    """x(i)=b(i), b with 10 coordinates. Width 1: the scanner fires 12 times (10 coordinates,
    S0, D: cycles 0-11), the array passes D in 12, the value writer takes it in 13: 14 cycles.
    Width 4: the scanner emits coordinates 0-3 in cycle 0, 4-7 in 1, 8-9 and S0 in 2 (the stop
    ends the cycle), D in 3; array D in 4, value writer D in 5: 6 cycles."""
    b = Tensor.from_coo([list(range(0, 20, 2))], [float(k + 1) for k in range(10)], (20,), "s")
    for engine in ("reference", "fast"):
        one = simulate(identity_graph(), {"b": b}, engine=engine)
        four = simulate(widened(identity_graph(), 4), {"b": b}, engine=engine)
        assert (one.cycles, four.cycles) == (14, 6)
        assert four.outputs["x"].to_dense().tolist() == one.outputs["x"].to_dense().tolist()
        scan = four.blocks["0"]
        assert (scan.busy, scan.idle, scan.stalled) == (4, 0, 0)  # busy counts cycles
        assert four.blocks["3"].busy == 4 and four.blocks["3"].idle == 2


def test_wide_bitvector_merge_by_hand():
    """x(i)=b(i)*c(i), b and c all 64 coordinates in one 64-bit word: the AND emits 64
    coordinates one per cycle (64 busy cycles), then the stop and done; 16 wide, 16 per cycle
    (4 cycles)."""
    from custard.api import compile as compile_expr

    g = compile_expr("x(i)=b(i)*c(i)", {"x": "s", "b": "b64", "c": "b64"}, "i")
    merge = next(b for b, blk in g.blocks.items() if blk.dot_type == "bvintersect")
    full = Tensor.from_dense(np.arange(1.0, 65.0), "s")
    tensors = {"b": full, "c": full}
    for engine in ("reference", "fast"):
        one = simulate(g, tensors, engine=engine)
        wide = simulate(widened(g, 16), tensors, engine=engine)
        assert (one.blocks[merge].busy, wide.blocks[merge].busy) == (66, 6)
        np.testing.assert_array_equal(wide.outputs["x"].to_dense(), np.arange(1.0, 65.0) ** 2)
        assert wide.cycles < one.cycles / 4


def test_fifo_depth_limits_a_wide_stream():
    """A stream of depth d carries d tokens per L + 1 = 2 cycles (docs/timing-model.md)."""
    b = Tensor.from_coo([list(range(400))], [1.0] * 400, (400,), "s")
    cycles = {d: simulate(widened(identity_graph(), 4), {"b": b}, fifo_depth=d).cycles
              for d in (None, 2, 4, 8)}
    assert cycles == {None: 104, 2: 404, 4: 204, 8: 104}


def test_node_attribute_widens_one_block():
    g = identity_graph()
    g.blocks["0"].attrs["stream_width"] = "4"
    assert block_widths(g, g) == {"0": 4}
    b = Tensor.from_coo([list(range(10))], [1.0] * 10, (10,), "s")
    # only the scanner is wide: the writers and the array still take one token per cycle
    assert simulate(g, {"b": b}).cycles == simulate(identity_graph(), {"b": b}).cycles
    g2 = widened(identity_graph(), 4)
    g2.blocks["3"].attrs["stream_width"] = "1"  # the node attribute overrides the graph's
    assert block_widths(g2, g2) == {"0": 4, "1": 4, "2": 4}


@pytest.mark.parametrize("depth", [1, 2, 3, 8])
@pytest.mark.parametrize("name", ["mat_identity", "mat_elemadd", "matmul_ikj", "mat_vecmul_ij"])
def test_bounded_fifos_at_width(name, depth):
    """Wide blocks behind bounded FIFOs (depth below, at and above the width): no deadlock,
    numpy's result, the same cycles on both engines."""
    assign = _expression(name)
    values = _inputs(name)
    want = expected(assign, values)
    cycles = []
    for engine in ("reference", "fast"):
        r = simulate(widened(graph_file(name), 4), _bind(values), engine=engine,
                     fifo_depth=depth)
        np.testing.assert_allclose(r.outputs[assign.lhs.name].to_dense(), want, rtol=1e-9,
                                   atol=1e-9)
        cycles.append(r.cycles)
    assert cycles[0] == cycles[1]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-5, 5, allow_nan=False).filter(lambda v: v != 0), max_size=30),
       st.lists(st.booleans(), max_size=30), st.integers(1, 8))
def test_random_vectors_elemmul(vals, keep, n):
    size = len(vals) + 3
    b = np.zeros(size)
    c = np.zeros(size)
    for k, v in enumerate(vals):
        b[k] = v
        if k < len(keep) and keep[k]:
            c[k + 1] = v / 2
    tensors = {"b": Tensor.from_dense(b, "s"), "c": Tensor.from_dense(c, "s")}
    one = simulate(elemmul_graph(), tensors, engine="reference")
    wide = simulate(widened(elemmul_graph(), n), tensors, engine="reference")
    np.testing.assert_array_equal(wide.outputs["x"].to_dense(), b * c)
    assert wide.cycles <= one.cycles


def test_stream_width_on_a_merge_is_refused():
    g = elemmul_graph()
    g.blocks["2"].attrs["stream_width"] = "2"
    b = Tensor.from_coo([[1]], [1.0], (3,), "s")
    with pytest.raises(GraphError, match=r"node 2 \(intersect\) has stream_width='2', but only "
                       r".*fiberlookup.* take wide streams") as err:
        simulate(g, {"b": b, "c": b})
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("text", ["0", "-2", "two", "1.5", ""])
def test_bad_width_is_refused(text):
    b = Tensor.from_coo([[1]], [1.0], (3,), "s")
    with pytest.raises(GraphError, match="stream width .* is not a whole number"):
        g = identity_graph()
        g.attrs["width"] = text  # parsed as it is set: refused then
        simulate(g, {"b": b})


def test_cli_width(tmp_path, capsys):
    gv = "dot_graphs/mat_identity.gv"
    assert sam_main(["run", gv, "-t", "B=LFAT5", "--engine", "reference", "--width", "4",
                     "--check", "--json", "--no-progress"]) == 0
    wide = capsys.readouterr().out
    assert sam_main(["run", gv, "-t", "B=LFAT5", "--engine", "reference", "--json",
                     "--no-progress"]) == 0
    narrow = capsys.readouterr().out
    import json

    assert json.loads(wide)["cycles"] < json.loads(narrow)["cycles"]
    assert sam_main(["run", gv, "-t", "B=LFAT5", "--width", "0", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--width: stream width '0'" in err


def test_width_errors_are_toolkit_errors():
    assert issubclass(GraphError, ToolkitError)


@cache
def _skipping_elemmul() -> Graph:
    from custard.api import compile as compile_expr

    return compile_expr("x(i)=b(i)*c(i)", {"x": "s", "b": "s", "c": "s"}, "i",
                        schedule=["skip(b,c)"])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 60), max_size=25, unique=True),
       st.lists(st.integers(0, 60), max_size=25, unique=True), st.integers(1, 8),
       st.sampled_from([None, 1, 2, 4]))
def test_wide_skipping_scanners(bc, cc, n, depth):
    """Wide scanners with coordinate skipping (a feedback edge), bounded or not: the result is
    still b * c, and no deadlock."""
    b = np.zeros(61)
    c = np.zeros(61)
    b[bc] = np.arange(1, len(bc) + 1)
    c[cc] = -np.arange(1, len(cc) + 1) / 4
    tensors = {"b": Tensor.from_dense(b, "s"), "c": Tensor.from_dense(c, "s")}
    r = simulate(widened(_skipping_elemmul(), n), tensors, engine="reference", fifo_depth=depth)
    np.testing.assert_array_equal(r.outputs["x"].to_dense(), b * c)


def test_wide_skipping_engines_agree():
    rng = np.random.default_rng(7)
    b = np.where(rng.random(400) < 0.3, rng.uniform(1, 2, 400), 0.0)
    c = np.where(rng.random(400) < 0.05, rng.uniform(1, 2, 400), 0.0)
    tensors = {"b": Tensor.from_dense(b, "s"), "c": Tensor.from_dense(c, "s")}
    for depth in (None, 2):
        runs = [simulate(widened(_skipping_elemmul(), 4), tensors, engine=e, fifo_depth=depth)
                for e in ("reference", "fast")]
        assert runs[0].cycles == runs[1].cycles
        assert {k: (s.busy, s.idle, s.stalled) for k, s in runs[0].blocks.items()} == {
            k: (s.busy, s.idle, s.stalled) for k, s in runs[1].blocks.items()}
        np.testing.assert_array_equal(runs[1].outputs["x"].to_dense(), b * c)


def test_widths_survive_dot():
    from sam.graph.dot import dumps, loads

    g = widened(identity_graph(), 4)
    g.blocks["2"].attrs["stream_width"] = "2"
    back = loads(dumps(g))
    assert back.attrs["width"] == "4" and back.blocks["2"].attrs["stream_width"] == "2"
    assert block_widths(back, back) == {"0": 4, "1": 4, "2": 2, "3": 4}


def test_wide_array_store():
    """A dense result scattered by an accumulating ``arraystore`` (Sec. 4.2) at widths 1, 4."""
    from custard.api import compile as compile_expr

    g = compile_expr("x(i)=B(i,j)*c(j)", {"x": "d", "B": "ss", "c": "d"}, "ij",
                     schedule=["locate(x)"])
    assert "arraystore" in g.count()
    b = real_matrix("bcspwr01")
    c = np.arange(1.0, b.shape[1] + 1)
    tensors = {"B": Tensor.from_scipy(b), "c": Tensor.from_dense(c, "d")}
    for engine in ("reference", "fast"):
        for n in (1, 4):
            r = simulate(widened(g, n), tensors, engine=engine)
            np.testing.assert_allclose(r.outputs["x"].to_dense(), b @ c, rtol=1e-12)
