"""The DOT reader's resources: time and memory linear in the text, documented limits.

Large files are read in a subprocess whose address space is limited to 1 GB (the interpreter
with numpy takes about 350 MB of it), so a reader that needs more fails the test instead of
the machine.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import pytest

from sam.blocks.base import GraphError
from sam.graph import dotparse
from sam.graph.dot import load, loads
from sam.graph.dotparse import parse
from sam.graph.validate import check_structure

GIB = 2**30

HEAD = """digraph SAM {
 comment="x=s0,b=s0"
 r [type="fiberlookup" index="i" tensor="b" mode="0" format="compressed" root="true"]
 v [type="arrayvals" tensor="b"]
 w [type="fiberwrite" index="i" tensor="x" mode="0" format="compressed" sink="true"]
 wv [type="fiberwrite" tensor="x" mode="vals" sink="true"]
"""


def chain_file(path: Path, n: int, label: int = 0) -> Path:
    """A valid graph: a root scanner whose coordinates pass ``n`` broadcast nodes in a chain,
    each with a ``label`` of that many characters."""
    pad = "x" * label
    with open(path, "w") as out:
        out.write(HEAD)
        out.writelines(f' b{k} [type="broadcast" label="{pad}"]\n' for k in range(n))
        out.write(" r -> b0 [type=crd]\n")
        out.writelines(f" b{k} -> b{k + 1} [type=crd]\n" for k in range(n - 1))
        out.write(f' b{n - 1} -> w [type=crd]\n r -> v [type=ref]\n v -> wv [type=val]\n}}\n')
    return path


def load_limited(path: Path, limit: int = GIB) -> str:
    """Load and validate ``path`` in a subprocess limited to ``limit`` bytes of address space;
    its output: the node and edge counts, or the error line."""
    script = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
        from sam.blocks.base import GraphError
        from sam.graph.dot import load
        from sam.graph.validate import check_structure
        try:
            g = load({str(path)!r})
            check_structure(g)
            print(len(g.blocks), len(g.edges))
        except GraphError as err:
            print(err)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


# --------------------------------------------------------------------------- large files
def test_100k_chain_with_labels_under_1gb(tmp_path: Path) -> None:
    """About 21 MB: 100,000 chained blocks with 150-character labels (the old reader needed
    some 2,400 bytes of memory per byte of such a file)."""
    path = chain_file(tmp_path / "chain.gv", 100_000, label=150)
    assert path.stat().st_size > 20e6
    assert load_limited(path) == f"{100_000 + 4} {100_000 + 3}"


def test_one_long_label_refused_under_1gb(tmp_path: Path) -> None:
    """A 25 MB quoted label (the old string regex: 240 bytes of memory per byte) is refused
    by ``MAX_ID`` after one linear scan."""
    path = tmp_path / "label.gv"
    path.write_text('digraph SAM {\n r [type="fiberlookup" label="' + "x" * 25_000_000
                    + '"]\n}\n')
    out = load_limited(path)
    assert out == (f"{path}: line 2, column 30: a quoted string is longer than 1,000,000 "
                   "characters (the reader's limit, sam.graph.dotparse.MAX_ID); shorten it")


def test_100mb_file_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.gv"
    with open(path, "wb") as out:
        out.truncate(100 * 2**20)  # a sparse file: nothing is written
    assert load_limited(path) == (
        f"{path}: the graph file has 104,857,600 bytes, more than the limit of 67,108,864 "
        "(sam.graph.dotparse.MAX_TEXT); SAM graphs of real kernels are a few kilobytes")


def test_long_label_memory_is_linear() -> None:
    """A 900,000-character label (under the limit) costs a few bytes per byte to read."""
    text = 'digraph { r [label="' + 'ab\\"' * 225_000 + '"] }'
    tracemalloc.start()
    try:
        graph = parse(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert graph.nodes["r"].attrs["label"] == 'ab"' * 225_000
    assert peak < 8 * len(text)


def test_chain_memory_per_node() -> None:
    """Parsing 5,000 chained nodes takes under 450 bytes per node and edge (the old reader:
    1,500)."""
    lines = [HEAD] + [f' b{k} [type="broadcast"]\n' for k in range(5_000)]
    lines += [f" b{k} -> b{k + 1} [type=crd]\n" for k in range(4_999)] + ["}\n"]
    text = "".join(lines)
    tracemalloc.start()
    try:
        graph = parse(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(graph.nodes) == 5_004 and len(graph.edges) == 4_999
    assert peak < 10_000 * 450


# --------------------------------------------------------------------------- limits
@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in (("MAX_TEXT", 2000), ("MAX_NODES", 5), ("MAX_EDGES", 5),
                        ("MAX_ATTRS", 4), ("MAX_VALUES", 20), ("MAX_VALUE_TEXT", 100),
                        ("MAX_ID", 30)):
        monkeypatch.setattr(dotparse, name, value)


@pytest.mark.parametrize("text, message", [
    ("digraph { a b c d e f }",
     "line 1, column 21: the graph has more than 5 nodes (the reader's limit, "
     "sam.graph.dotparse.MAX_NODES); SAM graphs of real kernels have hundreds"),
    ("digraph { {a b c} -> {d e} }",
     "line 1: the graph has more than 5 edges (the reader's limit, sam.graph.dotparse.MAX_EDGES)"),
    ("digraph { a -> b -> c -> d a -> b -> c -> d }", "line 1: the graph has more than 5 edges"),
    ("digraph { a [k1=1 k2=2 k3=3 k4=4 k5=5] }",
     "line 1, column 34: an attribute list has more than 4 attributes (the reader's limit, "
     "sam.graph.dotparse.MAX_ATTRS)"),
    ("digraph { a [k1=1 k2=2] a [k3=3 k4=4] a [k5=5] }", "node a has more than 4 attributes"),
    ("digraph { node [k1=1 k2=2] node [k3=3 k4=4 k5=5] }", "the node defaults has more than 4"),
    ("digraph { k1=1 k2=2 k3=3 k4=4 k5=5 }", "the graph has more than 4 attributes"),
    ("digraph { node [k1=1 k2=2 k3=3 k4=4] a b c d e }",
     "the graph holds more than 20 attribute values, counting each node's and each edge's "
     "(the reader's limit, sam.graph.dotparse.MAX_VALUES)"),
    ("digraph { {a b} -> {c d} [k1=1 k2=2 k3=3 k4=4] a [x=1 y=2 z=3 w=4] b [v=1] }",
     "line 1, column 76: the graph holds more than 20 attribute values"),
    ('digraph { node [k="' + "v" * 29 + '"] a b c d }',
     "attribute values hold more than 100 characters, counting each node's and each edge's "
     "(the reader's limit, sam.graph.dotparse.MAX_VALUE_TEXT)"),
    ('digraph { a [label="' + "x" * 31 + '"] }',
     "line 1, column 20: a quoted string is longer than 30 characters (the reader's limit, "
     "sam.graph.dotparse.MAX_ID); shorten it"),
    ('digraph { a [label="' + "x\\\"" * 15 + '"] }', "a quoted string is longer than 30"),
    ('digraph { a [label="' + "x" * 20 + '" + "' + "y" * 20 + '"] }',
     "line 1, column 20: a joined quoted string is longer than 30 characters"),
    ("digraph { a [label=<" + "<b>x</b>" * 5 + ">] }", "an HTML string is longer than 30"),
    ("digraph { " + "a" * 31 + " }", "line 1, column 11: an ID is longer than 30"),
    ("digraph { " + " " * 2000 + "}",
     "the text has 2,011 characters, more than the reader's limit of 2,000 "
     "(sam.graph.dotparse.MAX_TEXT); SAM graphs of real kernels are a few kilobytes"),
])
def test_limits(small_limits: None, text: str, message: str) -> None:
    with pytest.raises(GraphError, match=re.escape(message)):
        loads(text)


def test_within_limits(small_limits: None) -> None:
    """Texts right at the (lowered) limits parse."""
    graph = parse("digraph { {a b} -> {c d} [k1=1] a -> c [k=2] e [k1=1 k2=2 k3=3 k4=4] }")
    assert len(graph.nodes) == 5 and len(graph.edges) == 5
    assert parse('digraph { a [label="' + "x" * 30 + '"] }').nodes["a"].attrs["label"] == "x" * 30


def test_file_limit_is_checked_before_reading(small_limits: None, tmp_path: Path) -> None:
    path = tmp_path / "g.gv"
    path.write_text("digraph { " + " " * 2000 + "}")
    with pytest.raises(GraphError, match=r"the graph file has 2,011 bytes, more than the limit "
                                         r"of 2,000 \(sam\.graph\.dotparse\.MAX_TEXT\)"):
        load(path)


# --------------------------------------------------------------------------- sharing
def test_defaults_and_statement_attributes_are_shared_not_copied() -> None:
    """Nodes take the ``node [..]`` defaults in force without copying them; the edges of one
    statement share its attributes; later statements never change what earlier ones gave."""
    graph = parse("digraph { node [shape=box] a b node [color=red] c {a b} -> {c d} [type=crd] "
                  "a [type=mul] a [tensor=B] }")
    nodes, edges = graph.nodes, graph.edges
    assert nodes["b"].attrs == {"shape": "box"}
    assert nodes["c"].attrs == {"shape": "box", "color": "red"} and nodes["c"].attrs is nodes[
        "d"].attrs
    assert nodes["a"].attrs == {"shape": "box", "type": "mul", "tensor": "B"}
    assert nodes["a"].statements == [{"type": "mul"}, {"tensor": "B"}]
    assert len(edges) == 4 and all(e.attrs is edges[0].attrs for e in edges)


def test_escapes_dense_string() -> None:
    value = parse('digraph { a [label="' + '\\\\\\"' * 1000 + '"] }').nodes["a"].attrs["label"]
    assert value == '\\"' * 1000


@pytest.mark.parametrize("mode", ["²", "1" * 5000])
def test_odd_mode_numbers_are_not_internal_errors(mode: str) -> None:
    """Found while bounding the reader: ``int()`` refuses these although ``str.isdigit`` holds."""
    graph = loads(f'digraph {{ comment="b=s0" 1 [type=fiberlookup tensor=b mode="{mode}" '
                  "index=i root=true] }")
    check_structure(graph)
