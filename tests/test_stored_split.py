"""Stored iteration splitting (SAM paper Sec. 4.1): ``custard.splitting``. The program's
reformat phases store the operands split, the compute phase iterates the chunks and offsets and
flattens the result; every result equals numpy on both engines, through DOT text."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custard.splitting import SUFFIX, compile_stored_split
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


@pytest.mark.parametrize("engine", ["reference", "fast"])
@pytest.mark.parametrize("expr, fmts, order, want", CASES)
@settings(max_examples=8, deadline=None)
@given(n=st.integers(1, 40), s=st.integers(1, 9), seed=st.integers(0, 99))
def test_stored_split_equals_numpy(expr, fmts, order, want, engine, n, s, seed) -> None:
    rng = np.random.default_rng(seed)
    program = compile_stored_split(expr, fmts, order, ("i", "i0", "i1", s), dims={"i": n})
    graphs = loads_all(dumps_all([p.graph for p in program.phases]))
    arrays = {"b": sparse(rng, n), "c": sparse(rng, n), "B": sparse(rng, 4, n),
              "C": sparse(rng, 4, n)}
    names = {a for g in graphs for a in g.formats if not a.endswith(SUFFIX)}
    result_name = expr.split("(")[0]
    tensors = {k: Tensor.from_dense(v, fmts[k]) for k, v in arrays.items()
               if k in names and k != result_name}
    res = run_program(graphs, tensors, engine=engine)
    np.testing.assert_array_equal(res.outputs[result_name].to_dense(), want(arrays))
    # One reformat phase per split operand, its cycles reported apart, then the compute phase.
    assert len(res.phase_cycles) == len(tensors) + 1
    assert any(b.dot_type == "split" for b in graphs[0].blocks.values())
    assert any(b.dot_type == "flatten" for b in graphs[-1].blocks.values())


def test_refusals() -> None:
    with pytest.raises(CompileError, match="needs its size"):
        compile_stored_split("x(i)=b(i)", {}, "i", ("i", "i0", "i1", 4))
    with pytest.raises(CompileError, match="at the last level of B"):
        compile_stored_split("x(i)=B(i,j)*c(j)", {"B": "ss"}, "i,j", ("i", "i0", "i1", 4),
                             dims={"i": 9})
    with pytest.raises(CompileError, match="positive integer"):
        compile_stored_split("x(i)=b(i)", {}, "i", ("i", "i0", "i1", 0), dims={"i": 9})
