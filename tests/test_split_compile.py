"""Iteration splitting in Custard (SAM paper Sec. 4.1): ``custard.splitting``. Stored: the
program's reformat phases store the operands split, the compute phase iterates the chunks and
offsets and flattens the result. Online: one graph, split and chunk-selector blocks on the
unsplit operands. Every result equals numpy on both engines, through DOT text."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custard.splitting import SUFFIX, compile_split, compile_stored_split
from formats import Tensor
from sam.errors import CompileError
from sam.graph.dot import dumps_all, loads_all
from sam.program import run_program


def sparse(rng: np.random.Generator, *shape: int, density: float = 0.3) -> np.ndarray:
    return np.where(rng.random(shape) < density, rng.integers(1, 9, shape), 0).astype(float)


CASES = [
    ("x(i)=b(i)*c(i)", {"x": "s", "b": "s", "c": "s"}, "i", lambda a: a["b"] * a["c"]),
    ("x(i)=b(i)+c(i)", {"x": "s", "b": "s", "c": "b4"}, "i", lambda a: a["b"] + a["c"]),
    ("x(i)=B(j,i)*c(i)", {"x": "s", "B": "ds", "c": "s"}, "j,i",
     lambda a: (a["B"] * a["c"]).sum(0)),
    ("X(j,i)=B(j,i)*C(j,i)", {"X": "ss", "B": "ss", "C": "sb3"}, "j,i",
     lambda a: a["B"] * a["C"]),
    ("X(j,i)=B(j,i)+C(j,i)", {"X": "ds", "B": "ss", "C": "ds"}, "j,i",
     lambda a: a["B"] + a["C"]),
]


@pytest.mark.parametrize("mode", ["stored", "online"])
@pytest.mark.parametrize("engine", ["reference", "fast"])
@pytest.mark.parametrize("expr, fmts, order, want", CASES)
@settings(max_examples=8, deadline=None)
@given(n=st.integers(1, 40), s=st.integers(1, 9), seed=st.integers(0, 99))
def test_split_equals_numpy(expr, fmts, order, want, engine, mode, n, s, seed) -> None:
    rng = np.random.default_rng(seed)
    compiled = compile_split(expr, fmts, order, ("i", "i0", "i1", s), dims={"i": n}, mode=mode)
    phases = [compiled] if mode == "online" else [p.graph for p in compiled.phases]
    graphs = loads_all(dumps_all(phases))
    arrays = {"b": sparse(rng, n), "c": sparse(rng, n), "B": sparse(rng, 4, n),
              "C": sparse(rng, 4, n)}
    names = {a for g in graphs for a in g.formats if not a.endswith(SUFFIX)}
    result_name = expr.split("(")[0]
    tensors = {k: Tensor.from_dense(v, fmts[k]) for k, v in arrays.items()
               if k in names and k != result_name}
    res = run_program(graphs, tensors, engine=engine)
    np.testing.assert_array_equal(res.outputs[result_name].to_dense(), want(arrays))
    types = [{b.dot_type for b in g.blocks.values()} for g in graphs]
    assert "flatten" in types[-1]
    if mode == "stored":
        # One reformat phase per split operand, its cycles reported apart, then the compute.
        assert len(res.phase_cycles) == len(tensors) + 1
        assert "split" in types[0] and not any(SUFFIX in t for t in graphs[-1].formats
                                                  if t == result_name)
    else:
        assert len(graphs) == 1 and {"split", "chunkselect"} <= types[0]
        assert not any(t.endswith(SUFFIX) for t in graphs[0].formats)


def test_refusals() -> None:
    with pytest.raises(CompileError, match="needs its size"):
        compile_stored_split("x(i)=b(i)", {}, "i", ("i", "i0", "i1", 4))
    with pytest.raises(CompileError, match="k is not an index variable of x"):
        compile_stored_split("x(i)=B(i,j)*c(j)", {"B": "ss"}, "i,j", ("k", "k0", "k1", 4),
                             dims={"k": 9})
    with pytest.raises(CompileError, match="loop order j does not name i"):
        compile_split("x(i)=B(i,j)*c(j)", {}, "j", ("i", "i0", "i1", 4), dims={"i": 9})
    with pytest.raises(CompileError, match="positive integer"):
        compile_stored_split("x(i)=b(i)", {}, "i", ("i", "i0", "i1", 0), dims={"i": 9})
    with pytest.raises(CompileError, match="format ds10 of b has 2 level"):
        compile_split("x(i)=b(i)", {"b": "ds:1,0"}, "i", ("i", "i0", "i1", 2), dims={"i": 9})
    with pytest.raises(CompileError, match="use stored"):
        compile_split("x(i)=b(i)", {}, "i", ("i", "i0", "i1", 2), dims={"i": 9}, mode="fast")


def test_online_split_costs_a_full_scan() -> None:
    """The online split reads every operand whole; the stored split's compute phase skips the
    chunks that do not match (runs of nonzeros far apart)."""
    n, s = 400, 16
    b = np.zeros(n)
    c = np.zeros(n)
    b[:100] = 1.0
    c[300:] = 2.0
    c[50] = 3.0
    tensors = {"b": Tensor.from_dense(b, "s"), "c": Tensor.from_dense(c, "s")}
    args = ("x(i)=b(i)*c(i)", {"x": "s", "b": "s", "c": "s"}, "i", ("i", "i0", "i1", s))
    stored = run_program(compile_split(*args, dims={"i": n}), tensors, engine="reference")
    online = run_program([compile_split(*args, dims={"i": n}, mode="online")], tensors,
                         engine="reference")
    for res in (stored, online):
        np.testing.assert_array_equal(res.outputs["x"].to_dense(), b * c)
    assert stored.phase_cycles[-1] < 40 < 200 < online.cycles


def test_command_line_split_modes(tmp_path) -> None:
    """``custard compile ... -s=split(i,i0,i1,S) -d=i:N --split-mode stored|online``."""
    from custard.cli import graph_from_command_line

    line = 'x(i)=b(i)*c(i) -f=c:b4 -s=split(i,i0,i1,8) -d=i:30 --split-mode {}'
    stored = graph_from_command_line(line.format("stored"))
    online = graph_from_command_line(line.format("online"))
    assert len(stored.phases) == 3 and online.attrs["expression"] == "x(i)=b(i)*c(i)"
    rng = np.random.default_rng(3)
    b, c = sparse(rng, 30), sparse(rng, 30)
    tensors = {"b": Tensor.from_dense(b), "c": Tensor.from_dense(c, "b4")}
    for compiled in (stored, [online]):
        res = run_program(compiled, tensors, engine="reference")
        np.testing.assert_array_equal(res.outputs["x"].to_dense(), b * c)
    with pytest.raises(CompileError, match="needs a schedule command split"):
        graph_from_command_line("x(i)=b(i) -d=i:4 --split-mode online")
    with pytest.raises(CompileError, match="one split"):
        graph_from_command_line("x(i)=b(i) -s=split(i,i0,i1,2),fuse(i0,i1,f) -d=i:4 "
                                "--split-mode online")
