"""Per-edge FIFO depths (``mindepth``/``maxdepth`` edge attributes, :mod:`sam.graph.fifos`).

The DOT reader and writer keep them, bad values are one-line errors, both engines honour them
(the depth of a stream is ``max(mindepth, min(maxdepth, d))``), Custard writes ``mindepth="2"``
where a depth of 1 deadlocks (docs/locate.md "Bounded FIFOs") and ``--skip`` bounds the skipping
scanners' outputs (docs/timing-model.md "Per-edge FIFO depths").
"""

from __future__ import annotations

import numpy as np
import pytest

import custard
from custard.depths import SKIP_SCANNER_DEPTH
from custard.skipping import add_skip_edges
from formats import Tensor
from sam.errors import Deadlock, GraphError
from sam.graph.dot import dumps, loads
from sam.graph.fifos import stream_depth
from sam.graph.validate import check_structure
from sam.sim.engine import Simulation, simulate

from helpers.roundtrip import through_dot

ENGINES = ("reference", "fast")

#: X(i,j) = B(i,j) * C(i,j), B dense-compressed, C compressed-dense: C leads at i, B is located
#: there; B leads at j and C is located, its i reference repeated over B's j coordinates.
LOOP = ("X(i,j)=B(i,j)*C(i,j)", {"B": "ds", "C": "sd"}, "ij")
B = np.array([[1, 0, 2], [0, 0, 0], [3, 4, 0]], float)
C = np.array([[1, 1, 0], [2, 0, 3], [0, 5, 6]], float)


def loop_operands() -> dict[str, Tensor]:
    return {"B": Tensor.from_dense(B, "ds"), "C": Tensor.from_dense(C, "sd")}


@pytest.mark.parametrize("depth, bounds, want", [
    (None, (0, 0), 0), (1, (0, 0), 1), (None, (2, 0), 0), (1, (2, 0), 2), (3, (2, 0), 3),
    (None, (0, 2), 2), (1, (0, 2), 1), (4, (0, 2), 2), (1, (2, 1), 2), (None, (3, 2), 3),
])
def test_stream_depth(depth, bounds, want):
    assert stream_depth(depth, bounds) == want


def test_attributes_are_written_and_read_back():
    graph = custard.compile(*LOOP)
    marked = [e for e in graph.edges if "mindepth" in e.attrs]
    (edge,) = marked  # the repeated parent reference of C
    assert graph.blocks[edge.dst].dot_type == "repeat" and edge.attrs["mindepth"] == "2"
    text = dumps(graph)
    assert text.count('mindepth="2"') == 1
    back = loads(text)
    assert back.signature() == graph.signature()
    edge.attrs["maxdepth"] = "3"
    assert 'maxdepth="3"' in dumps(graph) and loads(dumps(graph)).signature() == \
        graph.signature()


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5", ""])
def test_bad_depth_is_one_line(value):
    text = dumps(custard.compile(*LOOP)).replace('mindepth="2"', f'mindepth="{value}"')
    with pytest.raises(GraphError, match=r"mindepth=.* is not a whole number of tokens >= 1; "
                                         r"write e\.g\. mindepth=\"2\"") as err:
        check_structure(loads(text))
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("engine", ENGINES)
def test_mindepth_prevents_the_depth_one_deadlock(engine):
    """With the compiler's ``mindepth`` the located graph runs with FIFOs of depth 1 (and equals
    numpy); without it, it deadlocks: the repeater holds C's row reference until B's scanner
    ends the row, which needs the next reference, which C's scanner cannot send into a full
    one-token FIFO."""
    graph = through_dot(custard.compile(*LOOP))
    cycles = {}
    for depth in (None, 1, 2):
        res = simulate(graph, loop_operands(), engine=engine, fifo_depth=depth)
        np.testing.assert_array_equal(res.outputs["X"].to_dense(), B * C)
        cycles[depth] = res.cycles
    assert cycles[None] <= cycles[2] <= cycles[1]
    for e in graph.edges:
        e.attrs.pop("mindepth", None)
    with pytest.raises(Deadlock, match="waits for room on output ref"):
        simulate(graph, loop_operands(), engine=engine, fifo_depth=1)
    # unbounded runs never see the attribute
    assert simulate(graph, loop_operands(), engine=engine).cycles == cycles[None]


def test_engine_channel_depths():
    graph = custard.compile(*LOOP)
    sim = Simulation(graph, loop_operands(), fifo_depth=1)
    rep = next(b for b, blk in sim.graph.blocks.items() if blk.dot_type == "repeat")
    by_dst = {(ch.dst, ch.dst_port.name): sim.depths[ch.index] for ch in sim.channels}
    assert by_dst[(rep, "ref")] == 2
    assert sorted(set(by_dst.values())) == [0, 1, 2]  # 0: the root reference streams
    assert not Simulation(graph, loop_operands()).depths.any()


def test_compiler_marks_repeaters_and_value_droppers():
    """Every repeater's reference input, and a value dropper's coordinate input, get
    ``mindepth="2"``; nothing else does."""
    for expr, fmts, order in [("X(i,j)=B(i,j)*C(i,k)*D(j,k)", {"C": "dd", "D": "dd"}, "ijk"),
                              ("x(i)=b(i)-C(i,j)*d(j)", {}, "ij"),
                              ("X(i,j)=B(i,k)*C(k,j)", {}, "ikj")]:
        graph = custard.compile(expr, fmts, order)
        for e in graph.edges:
            blk = graph.blocks[e.dst]
            needs = (blk.dot_type == "repeat" and e.kind == "ref") or (
                blk.dot_type == "crddrop" and blk.attrs["inner"] == "vals" and e.kind == "crd")
            assert (e.attrs.get("mindepth") == "2") == needs, (expr, e)


def skip_graph(depth):
    graph = custard.compile("x(i)=b(i)*c(i)", {"x": "s", "b": "s", "c": "s"})
    assert add_skip_edges(graph, depth=depth) == 2
    return graph


def test_skip_bounds_the_scanners_outputs():
    graph = custard.compile("x(i)=b(i)*c(i)", schedule="skip(b,c)")
    scanners = {b for b, blk in graph.blocks.items() if blk.dot_type == "fiberlookup"}
    outs = [e for e in graph.edges if e.src in scanners]
    assert outs and all(e.attrs["maxdepth"] == str(SKIP_SCANNER_DEPTH) for e in outs)
    assert not any("maxdepth" in e.attrs for e in graph.edges if e.src not in scanners)
    assert not any("maxdepth" in e.attrs for e in skip_graph(None).edges)


@pytest.mark.parametrize("engine", ENGINES)
def test_bounded_skipping_scanner_pays_with_unbounded_fifos(engine):
    """b and c alternate runs of 50 nonzeros (Figure 13's runs): with unbounded FIFOs, while
    the intersecter drops one vector's run the other scanner emits its own run ahead, before
    any skip for it can come back; bounded to two tokens, each scanner takes its skips at once."""
    from formats.synthetic import original_runs

    b, c = (v.to_dense().astype(float) for v in original_runs(50))
    tensors = {"b": Tensor.from_dense(b, "s"), "c": Tensor.from_dense(c, "s")}
    cycles = {}
    for depth in (None, SKIP_SCANNER_DEPTH):
        res = simulate(through_dot(skip_graph(depth)), tensors, engine=engine)
        np.testing.assert_array_equal(res.outputs["x"].to_dense(), b * c)
        cycles[depth] = res.cycles
    plain = simulate(custard.compile("x(i)=b(i)*c(i)"), tensors, engine=engine).cycles
    assert cycles[SKIP_SCANNER_DEPTH] * 5 < cycles[None] < plain
