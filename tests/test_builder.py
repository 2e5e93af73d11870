"""The public graph builder (``sam.graph.builder.GraphBuilder``): ids, port names as in the DOT
schema, broadcast fan-out at ``finish()``, link checks (one-line GraphErrors), and the compiler
building its graphs with it."""

from __future__ import annotations

import numpy as np
import pytest

import custard
import sam.graph.registry  # noqa: F401  (registers the block types)
from formats import Format, Tensor
from sam.errors import GraphError
from sam.graph.builder import GraphBuilder
from sam.graph.dot import dumps, loads
from sam.sim.engine import simulate


def elemmul_by_hand() -> GraphBuilder:
    """x(i) = b(i) * c(i), block for block as custard lowers it."""
    b = GraphBuilder()
    sb = b.block("fiberlookup", index="i", tensor="b", mode=0, format="compressed", src="true",
                 root="true")
    sc = b.block("fiberlookup", index="i", tensor="c", mode=0, format="compressed", src="true",
                 root="true")
    inter = b.block("intersect", index="i")
    for t in ("b", "c"):
        inter.declare_port("in", "crd", f"in-{t}")
        inter.declare_port("out", "ref", f"out-{t}")
    for s, t in ((sb, "b"), (sc, "c")):
        b.link((s, "crd"), inter, f"crd:in-{t}")
        b.link((s, "ref"), inter, f"ref:in-{t}")
    ab, ac = b.block("arrayvals", tensor="b"), b.block("arrayvals", tensor="c")
    b.link((inter, "ref:out-b"), ab, "ref")
    b.link((inter.id, "ref:out-c"), ac.id, "ref")
    mul = b.block("mul")
    b.link((ab, "val"), mul, "val:in0")
    b.link((ac, "val"), mul, "val:in1")
    wi = b.block("fiberwrite", index="i", tensor="x", mode=0, format="compressed", segsize=2,
                 crdsize="b0_dim", sink="true")
    b.link((inter, "crd"), wi, "crd")
    wv = b.block("fiberwrite", {"tensor": "x", "mode": "vals", "size": "1*b0_dim"}, sink=True)
    b.link((mul, "val"), wv, "val")
    return b


def test_builds_what_the_compiler_builds():
    graph = elemmul_by_hand().finish()
    compiled = custard.compile("x(i)=b(i)*c(i)")
    assert list(graph.blocks) == [str(k) for k in range(8)]
    assert graph.blocks["7"].attrs["sink"] == "True"
    graph.blocks["7"].attrs["sink"] = "true"
    assert graph.signature()[:2] == compiled.signature()[:2]
    graph.formats = dict(compiled.formats)
    graph.attrs = dict(compiled.attrs)
    assert dumps(graph) == dumps(compiled)


def test_fan_out_goes_through_a_broadcast_node_created_last():
    b = GraphBuilder()
    scan = b.block("fiberlookup", index="i", tensor="b", mode=0, root="true")
    a1, a2 = b.block("arrayvals", tensor="b"), b.block("arrayvals", tensor="b")
    b.link((scan, "ref"), a1, "ref")
    mul = b.block("mul")
    b.link((scan, "ref"), a2, "ref")
    b.link((a1, "val"), mul, "val:in0")
    b.link((a2, "val"), mul, "val:in1")
    wi = b.block("fiberwrite", index="i", tensor="x", mode=0)
    wv = b.block("fiberwrite", tensor="x", mode="vals")
    b.link((scan, "crd"), wi, "crd")
    b.link((mul, "val"), wv, "val")
    graph = b.finish()
    assert list(graph.blocks) == [str(k) for k in range(7)]
    fan = graph.blocks["6"]
    assert fan.dot_type == "broadcast"
    edges = [(e.src, e.src_port.name, e.dst, e.dst_port.name) for e in graph.edges]
    # grouped by output port in order of first link; the fan-out where the port's group is
    assert edges == [("0", "ref", "6", "ref"), ("6", "ref", "1", "ref"), ("6", "ref", "2", "ref"),
                     ("1", "val", "3", "val:in0"), ("2", "val", "3", "val:in1"),
                     ("0", "crd", "4", "crd"), ("3", "val", "5", "val")]
    graph.formats = {"x": Format.parse("s"), "b": Format.parse("s")}
    vec = np.array([0, 1.5, 0, -2, 3, 0])
    result = simulate(loads(dumps(graph)), {"b": Tensor.from_dense(vec)})
    assert np.array_equal(result.outputs["x"].to_dense(), vec * vec)


@pytest.mark.parametrize("build, message", [
    (lambda b, s, a: b.link((s, "crd"), a, "ref"),
     "cannot link crd output crd of node 0 to ref input ref of node 1: stream kinds differ"),
    (lambda b, s, a: b.link((s, "val"), a, "ref"),
     "node 0 (fiberlookup) has no output port 'val'; its output ports are: crd, ref"),
    (lambda b, s, a: b.link((s, "ref"), a, "crd"),
     "node 1 (arrayvals) has no input port 'crd'; its input ports are: ref"),
    (lambda b, s, a: [b.link((s, "ref"), a, "ref"), b.link((s, "ref"), a, "ref")],
     "input ref of node 1 is linked twice; an input takes exactly one stream"),
    (lambda b, s, a: b.link(("", "root"), a, "ref"),
     "node (none) is not in the graph being built"),
    (lambda b, s, a: b.link((s, "ref"), "9", "ref"), "node 9 is not in the graph being built"),
    (lambda b, s, a: [b.finish(), b.block("mul")],
     "the graph builder has finished; start a new GraphBuilder"),
    (lambda b, s, a: b.block("nosuch"), "node 2 has unknown type 'nosuch'"),
])
def test_bad_links_are_one_line_errors(build, message):
    b = GraphBuilder()
    scan = b.block("fiberlookup", tensor="b", mode=0, root="true")
    arr = b.block("arrayvals", tensor="b")
    with pytest.raises(GraphError) as err:
        build(b, scan, arr)
    assert message in str(err.value) and "\n" not in str(err.value)
