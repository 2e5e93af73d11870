"""Graph validation (``sam/graph/validate.py`` and the checks in the DOT reader): every problem is
one :class:`GraphError` whose message names the node, port or tensor at fault."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from formats.errors import ToolkitError
from formats.tensor import Tensor
from sam.blocks.base import Port
from sam.errors import GraphError
from sam.graph.dot import loads, parse_formats
from sam.graph.model import Edge, Graph
from sam.graph.registry import make_block
from sam.graph.validate import bind, check_structure, validate
from sam.sim.engine import simulate

DATA = Path(__file__).parent / "data" / "custard"


def text(name: str) -> str:
    return (DATA / f"{name}.gv").read_text()


def edit(name: str, old: str, new: str) -> str:
    src = text(name)
    assert old in src, old
    return src.replace(old, new, 1)


def spmv_tensors(rows: int = 3, cols: int = 4) -> dict[str, Tensor]:
    rng = np.random.default_rng(0)
    B = rng.random((rows, cols)) * (rng.random((rows, cols)) < 0.5)
    return {"B": Tensor.from_dense(B), "c": Tensor.from_dense(rng.random(cols))}


def raises(fragments: list[str], fn, *args):
    """``fn(*args)`` raises one GraphError (a ToolkitError) whose message holds every fragment."""
    with pytest.raises(GraphError) as err:
        fn(*args)
    msg = str(err.value)
    assert isinstance(err.value, ToolkitError)
    assert "\n" not in msg
    for fragment in fragments:
        assert fragment in msg, (fragment, msg)
    return msg


def load_and_validate(src: str, tensors=None) -> None:
    validate(loads(src), tensors)


# --------------------------------------------------------------------------- the good cases
@pytest.mark.parametrize("name, tensors", [
    ("vec_elemadd", {"b": Tensor.from_dense(np.ones(3)), "c": Tensor.from_dense(np.ones(3))}),
    ("mat_vecmul_ij", spmv_tensors()),
    ("matmul_ikj", {"B": Tensor.from_dense(np.ones((2, 3))),
                    "C": Tensor.from_dense(np.ones((3, 4)))}),
])
def test_examples_are_valid(name, tensors):
    graph = loads(text(name))
    validate(graph)
    validate(graph, tensors)
    bound = bind(graph, tensors)
    assert set(tensors) <= set(bound)


# --------------------------------------------------------------------------- node errors
def test_unknown_node_type():
    src = edit("mat_vecmul_ij", 'type="mul"]', 'type="frobnicate"]')
    src = src.replace('comment="type=mul"', 'comment="type=frobnicate"')
    raises(["node 3", "unknown type 'frobnicate'", "known types"], loads, src)


def test_missing_type():
    src = edit("vec_elemadd",
               '2 [comment="type=add,sub=0" label="Add" color=brown shape=box style=filled '
               'type="add" sub="0"]', '2 [label="Add" sub="0"]')
    raises(["node 2", "no type attribute"], loads, src)


def test_missing_required_attribute():
    src = edit("mat_vecmul_ij", 'comment="type=crddrop,outer=i,inner=j"',
               'comment="type=crddrop,outer=i"').replace(' inner="j"', "")
    raises(["node 6", "crddrop", "inner"], loads, src)


def test_empty_graph():
    raises(["no nodes"], check_structure, loads('digraph SAM { comment="" }'))


# --------------------------------------------------------------------------- port errors
def test_input_port_not_connected():
    src = edit("mat_vecmul_ij", '    10 -> 9 [label="ref" style=bold type="ref"]\n', "")
    raises(["node 9", "input ref is not connected"], load_and_validate, src)


def test_merge_input_not_connected():
    src = edit("vec_elemadd",
               '    7 -> 5 [label="crd_in-c" style=dashed type="crd" comment="in-c"]\n', "")
    raises(["node 5", "input crd:in-c is not connected"], load_and_validate, src)


def test_input_connected_twice():
    src = edit("mat_vecmul_ij", "}\n", '    13 -> 9 [label="ref" type="ref" comment=""]\n}\n')
    raises(["node 9", "input ref is connected 2 times"], load_and_validate, src)


def test_input_connected_twice_programmatic():
    g = loads(text("vec_elemadd"))
    g.connect("6", "crd", "1", "crd")
    raises(["node 1", "input crd is connected 2 times"], check_structure, g)


def test_alu_third_input():
    src = edit("vec_elemadd", "}\n", '    3 -> 2 [label="val" type="val"]\n}\n')
    raises(["edge 3 -> 2", "node 2", "already connected", "val:in0", "val:in1"], loads, src)


def test_stream_kind_mismatch_in_dot_target():
    # a crd stream into an array block, which takes references
    src = edit("vec_elemadd",
               '5 -> 3 [label="ref_out-b" style=bold type="ref" comment="out-b"]',
               '6 -> 3 [label="crd" style=dashed type="crd" comment=""]')
    raises(["edge 6 -> 3", "node 3 (arrayvals) has no crd input", "stream kind mismatch",
            "ref"], loads, src)


def test_stream_kind_mismatch_in_dot_source():
    src = edit("vec_elemadd", '3 -> 2 [label="val" type="val"]',
               '3 -> 2 [label="crd" type="crd"]')
    raises(["edge 3 -> 2", "node 3 (arrayvals) has no crd output", "stream kind mismatch"],
           loads, src)


def test_stream_kind_mismatch_programmatic():
    g = loads(text("vec_elemadd"))
    with pytest.raises(GraphError, match=r"node 6 .* node 3: stream kinds differ"):
        g.connect("6", "crd", "3", "ref")
    # an Edge built by hand, bypassing connect
    g = loads(text("vec_elemadd"))
    g.edges.append(Edge("6", Port("crd"), "1", Port("val")))
    raises(["edge 6 -> 1", "crd stream enters val input", "node 1"], check_structure, g)


def test_edge_into_missing_port_dot():
    src = edit("mat_vecmul_ij", 'comment="in-j"]', 'comment="in-z"]')
    raises(["edge 7 -> 6", "'in-z'", "node 6 (crddrop)", "crd:i, crd:in-j"], loads, src)


def test_edge_into_missing_port_programmatic():
    g = loads(text("mat_vecmul_ij"))
    raises(["node 6 (crddrop)", "no input port 'crd:in-q'", "crd:i, crd:in-j"],
           g.connect, "7", "crd", "6", "crd:in-q")
    raises(["node 7 (intersect)", "no output port 'ref:out-Q'"],
           g.connect, "7", "ref:out-Q", "4", "ref")


def test_edge_naming_undeclared_node():
    src = edit("vec_elemadd", "}\n", '    5 -> 42 [label="crd" type="crd"]\n}\n')
    raises(["edge 5 -> 42", "node 42", "not declared"], loads, src)


def test_edge_with_unknown_stream_type():
    src = edit("vec_elemadd", '3 -> 2 [label="val" type="val"]', '3 -> 2 [type="value"]')
    raises(["edge 3 -> 2", "'value'", "crd, ref, val"], loads, src)


def test_cycle():
    src = """digraph SAM { comment="x=s0,b=s0"
      6 [type="fiberlookup" index="i" tensor="b" mode="0" format="compressed" root="true"]
      3 [type="arrayvals" tensor="b"]
      2 [type="add"]
      5 [type="mul"]
      1 [type="fiberwrite" index="i" tensor="x" mode="0" format="compressed"]
      0 [type="fiberwrite" tensor="x" mode="vals"]
      6 -> 1 [type="crd"]
      6 -> 3 [type="ref"]
      3 -> 2 [type="val"]
      5 -> 2 [type="val"]
      2 -> 5 [type="val"]
      3 -> 5 [type="val"]
      2 -> 0 [type="val"]
    }"""
    msg = raises(["cycle", "acyclic"], load_and_validate, src)
    assert re.search(r"(2 -> 5 -> 2|5 -> 2 -> 5)", msg), msg


def test_self_loop():
    g = Graph()
    g.add(make_block("1", "reduce", {}))
    g.connect("1", "val", "1", "val")
    raises(["cycle 1 -> 1"], check_structure, g)


# --------------------------------------------------------------------------- tensors
def test_missing_tensor_binding():
    g = loads(text("mat_vecmul_ij"))
    tensors = spmv_tensors()
    del tensors["c"]
    raises(["tensor c", "no tensor is bound", "bound: B"], validate, g, tensors)
    raises(["tensor c"], simulate, g, tensors)


def test_tensor_order_mismatch():
    g = loads(text("mat_vecmul_ij"))
    tensors = spmv_tensors()
    tensors["B"] = Tensor.from_dense(np.ones(4))
    raises(["tensor B has order 1", "format ss01", "order 2"], validate, g, tensors)


def test_scalar_bound_to_vector():
    g = loads(text("vec_elemadd").replace('comment="x=s0,b=s0,c=s0"',
                                          'comment="x=s0,b=s0,c=none"'))
    raises(["node 7", "mode 0 of tensor c", "order 0"], check_structure, g)


def test_mode_outside_format():
    src = edit("mat_vecmul_ij", 'tensor="B" mode="1"', 'tensor="B" mode="2"')
    src = src.replace("tensor=B,mode=1", "tensor=B,mode=2")
    raises(["node 8", "mode 2 of tensor B", "ss01", "order 2"], load_and_validate, src)


def test_scanner_format_disagrees_with_comment():
    src = text("mat_vecmul_ij").replace('comment="x=s0,B=ss01,c=s0"',
                                        'comment="x=s0,B=ds01,c=s0"')
    raises(["node 13", "scans mode 0 of B as compressed", "dense", "ds01"], load_and_validate,
           src)
    src = text("matmul_ikj").replace('comment="X=ss01,B=ss01,C=ss01"',
                                     'comment="X=ss01,B=ss01,C=sd01"')
    raises(["node 11", "scans mode 1 of C as compressed", "sd01"], load_and_validate, src)
    # a dense scan of a compressed level is allowed (it counts through the dimension)
    validate(loads(text("vec_elemadd").replace('format="compressed" src="true" root="true"]',
                                               'format="dense" src="true" root="true"]')))


def test_index_sizes_disagree():
    g = loads(text("mat_vecmul_ij"))
    tensors = spmv_tensors(3, 4)
    tensors["c"] = Tensor.from_dense(np.ones(5))
    raises(["index variable j", "size 4 in B (mode 1, node 8)", "size 5 in c (mode 0, node 9)"],
           validate, g, tensors)


def test_matmul_inner_sizes_disagree():
    g = loads(text("matmul_ikj"))
    tensors = {"B": Tensor.from_dense(np.ones((2, 3))), "C": Tensor.from_dense(np.ones((4, 2)))}
    raises(["index variable k", "size 3", "size 4"], simulate, g, tensors)


# --------------------------------------------------------------------------- graph comment
@pytest.mark.parametrize("comment, fragments", [
    ("X=ss01;B=ss01", ["tensor X", "ss01;B=ss01"]),
    ("X:ss01", ["'X:ss01' is not NAME=FORMAT"]),
    ("=ss01", ["'=ss01' is not NAME=FORMAT"]),
    ("X=xx01", ["tensor X", "xx01"]),
    ("X=ss012", ["tensor X"]),
    ("X=ss00", ["tensor X", "permutation"]),
    ("X=ss01,X=s0", ["tensor X two formats"]),
])
def test_bad_graph_comment(comment, fragments):
    raises(fragments, parse_formats, comment)
    src = text("matmul_ikj").replace('comment="X=ss01,B=ss01,C=ss01"', f'comment="{comment}"')
    raises(["graph comment", *fragments], loads, src)


def test_good_graph_comments():
    f = parse_formats("X=ss10, b=none ,c=d0,")
    assert [str(v) for v in f.values()] == ["ss10", "none", "d0"]
    assert f["b"].order == 0


@pytest.mark.parametrize("value, fragment", [
    ("abc", "is not a shape"),
    ("3x", "is not a shape"),
    ("-1", "is not a shape"),
    ("3x3", "gives 2 sizes but tensor x has order 1"),
])
def test_bad_output_shape_attribute(value, fragment):
    """``shape_x`` used to reach the simulator's output assembly, which raised ValueError; it is
    refused when the graph is read (the graph contract parses it then)."""
    src = text("vec_elemadd").replace('comment="x=s0,b=s0,c=s0"',
                                      f'comment="x=s0,b=s0,c=s0" shape_x="{value}"')
    raises(["shape_x", fragment], loads, src)


def test_built_shape_of_wrong_order_refused():
    g = loads(text("vec_elemadd"))
    g.contract.set_shape("x", (3, 3))
    raises(["shape_x", "gives 2 sizes but tensor x has order 1"], check_structure, g)
    tensors = {"b": Tensor.from_dense(np.ones(3)), "c": Tensor.from_dense(np.ones(3))}
    raises(["shape_x"], simulate, g, tensors)


def test_output_shape_attribute_used():
    src = text("vec_elemadd").replace('comment="x=s0,b=s0,c=s0"',
                                      'comment="x=s0,b=s0,c=s0" shape_x="5"')
    tensors = {"b": Tensor.from_dense(np.ones(5)), "c": Tensor.from_dense(np.ones(5))}
    assert simulate(loads(src), tensors).outputs["x"].shape == (5,)
