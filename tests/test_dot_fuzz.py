"""Fuzzing the DOT reader and, through it, the simulator.

``loads`` must return a :class:`Graph` or raise :class:`GraphError` for any text at all: random
text, DOT-like token soup, and the three Custard example files mutated (bytes deleted, inserted
or replaced, truncated, lines swapped, deleted or duplicated, quoted values, edge end points,
edge comments and node attributes replaced, tensor formats changed). Nothing else may escape.

Mutated graphs that do load are simulated on small random tensors: the simulator must return or
raise a :class:`ToolkitError` within a time bound (it detects deadlock; a hang fails the test).

Our parser is also checked against pydot on the same mutated files: when both accept a file
without subgraphs or defaults, they see the same nodes, edges and attributes.
"""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from formats.errors import ToolkitError
from formats.tensor import Tensor
from sam.errors import GraphError
from sam.graph.dot import dumps, loads
from sam.graph.dotparse import parse
from sam.graph.model import Graph
from sam.sim.engine import simulate

DATA = Path(__file__).parent / "data" / "custard"
EXAMPLES = {p.stem: p.read_text() for p in sorted(DATA.glob("*.gv"))}
SIM_SECONDS = 10

DOT_CHARS = 'digraphSAM{}[]=;,:->"\\/*#<>+ \n\t0123456789abcdefijkBCXtypecrdvalref_-.ü\x00'
VALUES = ["", "0", "1", "2", "3", "-1", "x", "B", "C", "c", "b", "X", "true", "false", "vals",
          "dense", "compressed", "i", "j", "k", "keep", "drop", "mul", "add", "sub", "max", "div",
          "neg", "exp", "relu", "union", "intersect", "repeat", "crddrop", "spaccumulator",
          "reduce", "broadcast", "locate", "arraystore", "arrayvals", "fiberlookup",
          "fiberwrite", "repsiggen", "crd", "ref", "val", "repsig", "bv", "in-B", "out-B",
          "in-c", "out-C", "outer-i", "inner-k", "out-j", "in-j", "in-X", "99999999999999999999",
          "1e9", "a,b=c", 'q"uote', "back\\slash", "ss01", "s0", "none"]
KEYS = ["type", "index", "tensor", "mode", "format", "root", "src", "order", "in0", "in1", "in2",
        "outer", "inner", "sub", "empty", "size", "sink", "comment", "label"]
FORMATS = ["s0", "d0", "ss01", "ss10", "ds01", "sd01", "dd01", "sd10", "none", "sss012", "dd10",
           "ss", "qq", "s:0", ""]

#: ``SAM_FUZZ_SCALE=50 HYPOTHESIS_PROFILE=fuzz pytest tests/test_dot_fuzz.py`` fuzzes 50 times
#: longer, on new inputs each run (the ``ci`` profile is derandomized: tests/conftest.py).
SCALE = max(1, int(os.environ.get("SAM_FUZZ_SCALE", "1")))
FUZZ = settings(deadline=None, suppress_health_check=list(HealthCheck))


def loads_or_graph_error(text: str) -> Graph | None:
    """The property itself: a Graph or a GraphError, nothing else."""
    try:
        graph = loads(text)
    except GraphError as err:
        msg = str(err)
        assert msg and "\n" not in msg.strip(), msg
        return None
    assert isinstance(graph, Graph)
    return graph


# --------------------------------------------------------------------------- mutations
def _quote_value(v: str) -> str:
    return v.replace("\\", "\\\\").replace('"', '\\"')


SEMANTIC = ["value", "endpoint", "comment", "attr", "format", "swap", "dup_line", "del_line"]
BYTES = ["delete", "insert", "replace", "truncate"]


@st.composite
def mutated(draw, ops: list[str] = SEMANTIC + BYTES, most: int = 5) -> str:
    """One of the example files with 1..most random mutations (see module docstring)."""
    text = draw(st.sampled_from(sorted(EXAMPLES.values())))
    for _ in range(draw(st.integers(1, most))):
        op = draw(st.sampled_from(ops))
        n = len(text)
        if n == 0:
            break
        i = draw(st.integers(0, n - 1))
        lines = text.split("\n")
        if op == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 8)):]
        elif op == "insert":
            text = text[:i] + draw(st.text(DOT_CHARS, min_size=1, max_size=4)) + text[i:]
        elif op == "replace":
            text = text[:i] + draw(st.sampled_from(DOT_CHARS)) + text[i + 1:]
        elif op == "truncate":
            text = text[:i]
        elif op == "swap":
            a, b = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
        elif op == "dup_line":
            a, b = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines)))
            lines.insert(b, lines[a])
            text = "\n".join(lines)
        elif op == "del_line":
            del lines[draw(st.integers(0, len(lines) - 1))]
            text = "\n".join(lines)
        elif op == "value":
            spots = list(re.finditer(r'"([^"\n]*)"', text))
            if spots:
                m = draw(st.sampled_from(spots))
                v = _quote_value(draw(st.sampled_from(VALUES)))
                text = text[:m.start(1)] + v + text[m.end(1):]
        elif op == "endpoint":
            spots = list(re.finditer(r"(\d+) -> (\d+)", text))
            ids = re.findall(r"^\s*(\d+) \[", text, re.M)
            if spots and ids:
                m = draw(st.sampled_from(spots))
                g = draw(st.sampled_from([1, 2]))
                text = text[:m.start(g)] + draw(st.sampled_from(ids)) + text[m.end(g):]
        elif op == "comment":
            spots = list(re.finditer(r'comment="([^"]*)"\]', text))
            if spots:
                m = draw(st.sampled_from(spots))
                text = text[:m.start(1)] + draw(st.sampled_from(VALUES)) + text[m.end(1):]
        elif op == "attr":
            spots = list(re.finditer(r"^\s*\d+ \[.*\]$", text, re.M))
            if spots:
                m = draw(st.sampled_from(spots))
                k, v = draw(st.sampled_from(KEYS)), _quote_value(draw(st.sampled_from(VALUES)))
                text = text[:m.end() - 1] + f' {k}="{v}"' + text[m.end() - 1:]
        elif op == "format":
            m = re.search(r'comment="([A-Za-z]=[^"]*)"', text)
            if m:
                parts = m.group(1).split(",")
                j = draw(st.integers(0, len(parts) - 1))
                parts[j] = parts[j].split("=")[0] + "=" + draw(st.sampled_from(FORMATS))
                text = text[:m.start(1)] + ",".join(parts) + text[m.end(1):]
    return text


# --------------------------------------------------------------------------- the reader
@settings(FUZZ, max_examples=300 * SCALE)
@given(st.text(max_size=300))
def test_random_text(text):
    loads_or_graph_error(text)


@settings(FUZZ, max_examples=300 * SCALE)
@given(st.text(DOT_CHARS, max_size=200))
def test_random_dot_soup(text):
    loads_or_graph_error("digraph SAM {" + text)
    loads_or_graph_error(text + "}")


@settings(FUZZ, max_examples=300 * SCALE)
@given(st.one_of(mutated(), mutated(SEMANTIC, most=3)))
def test_mutated_examples_load_or_graph_error(text):
    graph = loads_or_graph_error(text)
    if graph is not None:
        # whatever loads can be written and read back
        again = loads(dumps(graph))
        assert again.signature() == graph.signature()


@settings(FUZZ, max_examples=150 * SCALE)
@given(st.sampled_from(sorted(EXAMPLES)), st.data())
def test_random_attribute_values(name, data):
    """Any attribute value, set on any node, edge or the graph: the reader copes, and values
    of attributes that do not change the graph's meaning survive a round trip exactly."""
    graph = loads(EXAMPLES[name])
    value = data.draw(st.text(max_size=20))
    where = data.draw(st.sampled_from(["node", "edge", "graph", "semantic"]))
    if where == "node":
        block = data.draw(st.sampled_from(sorted(graph.blocks.values(), key=lambda b: b.id)))
        block.attrs["x_" + data.draw(st.text(min_size=1, max_size=8))] = value
    elif where == "edge":
        edge = data.draw(st.sampled_from(graph.edges))
        edge.attrs["x_" + data.draw(st.text(min_size=1, max_size=8))] = value
    elif where == "graph":
        graph.attrs["x_" + data.draw(st.text(min_size=1, max_size=8))] = value
    else:  # a meaningful attribute: only "graph or GraphError" is promised
        block = data.draw(st.sampled_from(sorted(graph.blocks.values(), key=lambda b: b.id)))
        block.attrs[data.draw(st.sampled_from(KEYS))] = value
        loads_or_graph_error(dumps(graph))
        return
    text = dumps(graph)
    again = loads(text)
    assert again.signature() == graph.signature()
    assert dumps(again) == text


@settings(FUZZ, max_examples=30 * SCALE)
@given(mutated(SEMANTIC + ["insert", "replace"], most=2))
def test_parser_agrees_with_pydot(text):
    """Where pydot and our parser both accept a (flat, default-free) file, they agree."""
    import warnings

    import pydot
    try:
        ours = parse(text)
    except GraphError:
        event("ours rejects")
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import contextlib
        import io
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                theirs = pydot.graph_from_dot_data(text)
            except Exception:
                return
    if not theirs or len(theirs) != 1:
        event("pydot rejects")
        return
    dot = theirs[0]
    if dot.get_subgraphs() or any(n.get_name() in ("node", "edge", "graph")
                                  for n in dot.get_nodes()):
        event("not flat")
        return
    event("compared")

    def unq(v: str) -> str:
        v = str(v)
        if len(v) >= 2 and v[0] == v[-1] == '"':
            v = re.sub(r'\\(\r?\n|["\\])',
                       lambda m: "" if m.group(1).endswith("\n") else m.group(1), v[1:-1])
        return v

    their_edges = [(unq(e.get_source()), unq(e.get_destination()),
                    {unq(k): unq(v) for k, v in e.get_attributes().items()})
                   for e in sorted(dot.get_edges(), key=lambda e: e.obj_dict["sequence"])]
    assert [(e.src, e.dst, e.attrs) for e in ours.edges] == their_edges
    their_nodes: dict[str, dict[str, str]] = {}
    for n in dot.get_nodes():
        their_nodes.setdefault(unq(n.get_name()), {}).update(
            {unq(k): unq(v) for k, v in n.get_attributes().items()})
    for nid, attrs in their_nodes.items():
        assert ours.nodes[nid].attrs == attrs
    assert {unq(k): unq(v) for k, v in dot.get_attributes().items()} == ours.attrs


# --------------------------------------------------------------------------- the simulator
class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def tensors_for(graph: Graph, data) -> dict[str, Tensor]:
    """Small random tensors for every tensor the graph names, of the order the graph suggests
    (its format, else the highest mode a block names), with one size per index variable (as
    the scanners name them) and now and then a disagreeing size."""
    orders: dict[str, int] = {}
    ivars: dict[tuple[str, int], str] = {}
    for block in graph.blocks.values():
        if block.tensor:
            mode = block.attrs.get("mode", "")
            orders.setdefault(block.tensor, 0)
            if mode.isdigit() and int(mode) < 4:
                orders[block.tensor] = max(orders[block.tensor], int(mode) + 1)
                if block.attrs.get("index"):
                    ivars.setdefault((block.tensor, int(mode)), block.attrs["index"])
    for name, fmt in graph.formats.items():
        orders[name] = fmt.order
    sizes: dict[str, int] = {}
    out = {}
    for name, order in sorted(orders.items()):
        if order > 3:
            continue
        shape = []
        for mode in range(order):
            ivar = ivars.get((name, mode), f"?{name}{mode}")
            if ivar not in sizes:
                sizes[ivar] = data.draw(st.integers(0, 4), label=f"size of {ivar}")
            odd = data.draw(st.sampled_from([None] * 15 + [1, 3]), label="odd size")
            shape.append(sizes[ivar] if odd is None else odd)
        count = int(np.prod(shape)) if order else 0
        values = data.draw(st.lists(st.sampled_from([0.0, 0.0, 1.0, -2.0]),
                                    min_size=count, max_size=count), label=f"values of {name}")
        out[name] = (Tensor.from_dense(np.array(values, dtype=float).reshape(shape)) if order
                     else Tensor.scalar(1.5))
    return out


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs POSIX interval timers")
@settings(FUZZ, max_examples=150 * SCALE)
@given(mutated(SEMANTIC, most=3), st.data())
def test_mutated_graphs_simulate_or_toolkit_error(text, data):
    try:
        graph = loads(text)
    except GraphError:
        event("does not load")
        return
    tensors = tensors_for(graph, data)
    depth = data.draw(st.sampled_from([None, None, 1, 2]), label="fifo_depth")
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, SIM_SECONDS)
    try:
        simulate(graph, tensors, fifo_depth=depth)
        event("simulated")
    except ToolkitError as err:
        event(f"simulation: {type(err).__name__}")
        if os.environ.get("SAM_FUZZ_EVENTS"):
            event(re.sub(r"\d+", "N", str(err))[:90])
    except Hang:
        pytest.fail(f"simulation did not finish in {SIM_SECONDS} s (fifo_depth={depth}); "
                    f"graph:\n{text}\ntensors: { {k: v.to_dense() for k, v in tensors.items()} }")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
