"""Small hand-built graphs over vectors (``x(i) = b(i)``, ``x(i) = b(i) op c(i)``) and one malformed
graph that deadlocks with small FIFOs, for tests that count cycles by hand."""

from __future__ import annotations

from formats import Format
from sam.blocks.alus import ALU_TYPES
from sam.blocks.arrays import ArrayLoad
from sam.blocks.base import Block
from sam.blocks.merges import Intersecter
from sam.blocks.reducers import SparseAccumulator
from sam.blocks.scanners import LevelScanner
from sam.blocks.writers import LevelWriter
from sam.graph.model import Graph


def scanner(bid: str, tensor: str, mode: int = 0, root: bool = True) -> LevelScanner:
    return LevelScanner(bid, {"tensor": tensor, "mode": str(mode), "format": "compressed",
                              "root": "true" if root else "false", "index": "i"})


def identity_graph() -> Graph:
    """x(i) = b(i): scanner -> crd writer, scanner ref -> array -> value writer."""
    g = Graph()
    s = g.add(scanner("0", "b"))
    w = g.add(LevelWriter("1", {"tensor": "x", "mode": "0", "format": "compressed", "index": "i"}))
    a = g.add(ArrayLoad("2", {"tensor": "b"}))
    v = g.add(LevelWriter("3", {"tensor": "x", "mode": "vals"}))
    g.connect(s, "crd", w, "crd")
    g.connect(s, "ref", a, "ref")
    g.connect(a, "val", v, "val")
    g.formats = {"x": Format.parse("s"), "b": Format.parse("s")}
    return g


def binary_graph(op: str = "mul", merge: type[Block] = Intersecter) -> Graph:
    """x(i) = b(i) op c(i): two root scanners, an intersecter (or unioner), arrays, an ALU."""
    g = Graph()
    sb, sc = g.add(scanner("0", "b")), g.add(scanner("1", "c"))
    m = g.add(merge("2", {"index": "i"}, operands=["b", "c"]))
    w = g.add(LevelWriter("3", {"tensor": "x", "mode": "0", "format": "compressed", "index": "i"}))
    ab, ac = g.add(ArrayLoad("4", {"tensor": "b"})), g.add(ArrayLoad("5", {"tensor": "c"}))
    alu = g.add(ALU_TYPES[op]("6", {}))
    v = g.add(LevelWriter("7", {"tensor": "x", "mode": "vals"}))
    for s, t in ((sb, "b"), (sc, "c")):
        g.connect(s, "crd", m, f"crd:in-{t}")
        g.connect(s, "ref", m, f"ref:in-{t}")
    g.connect(m, "crd", w, "crd")
    g.connect(m, "ref:out-b", ab, "ref")
    g.connect(m, "ref:out-c", ac, "ref")
    g.connect(ab, "val", alu, "val:in0")
    g.connect(ac, "val", alu, "val:in1")
    g.connect(alu, "val", v, "val")
    g.formats = {"x": Format.parse("s"), "b": Format.parse("s"), "c": Format.parse("s")}
    return g


def elemmul_graph() -> Graph:
    """x(i) = b(i) * c(i)."""
    return binary_graph("mul", Intersecter)


def accumulate_then_intersect() -> Graph:
    """A (malformed) graph whose copy of a stream must buffer a whole group: it deadlocks with
    small FIFOs and is rejected as misaligned with unbounded ones."""
    g = Graph()
    si = g.add(scanner("0", "B", 0))
    sj = g.add(scanner("1", "B", 1, root=False))
    arr = g.add(ArrayLoad("2", {"tensor": "B"}))
    acc = g.add(SparseAccumulator("3", {"order": "1", "in0": "j"}))
    x = g.add(Intersecter("4", {"index": "j"}, operands=["B", "X"]))
    w = g.add(LevelWriter("5", {"tensor": "y", "mode": "0"}))
    g.connect(si, "ref", sj, "ref")
    g.connect(sj, "crd", acc, "crd:j")
    g.connect(sj, "ref", arr, "ref")
    g.connect(arr, "val", acc, "val")
    g.connect(sj, "crd", x, "crd:in-B")
    g.connect(acc, "crd:out-j", x, "crd:in-X")
    g.connect(x, "crd", w, "crd")
    return g
