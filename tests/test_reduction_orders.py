"""Reductions of any order: a sum over an outer index variable keeps n inner ones, which Custard
lowers to ``spaccumulator order=n`` (SAM paper Def. 3.7) for any n >= 1.

Compiled graphs go through DOT text and back and run on both engines (unbounded and with 2-deep
FIFOs) against the dense reference, on hypothesis-random inputs and formats.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import custard
from formats.tensor import Tensor
from sam.graph import dot
from sam.notation.reference import evaluate
from sam.sim.engine import simulate

VARS = "jklmnp"


def accumulator_orders(graph) -> list[int]:
    return sorted(int(b.attrs["order"]) for b in graph.blocks.values()
                  if b.dot_type == "spaccumulator")


def run(expr: str, formats: dict[str, str], arrays: dict[str, np.ndarray], out: str) -> list[int]:
    graph = dot.loads(dot.dumps(custard.compile(expr, formats=formats)))
    bound = {k: Tensor.from_dense(v, formats[k]) for k, v in arrays.items()}
    gold = evaluate(expr, arrays)
    for depth in (None, 2):
        cycles = set()
        for engine in ("reference", "fast"):
            res = simulate(graph, bound, engine=engine, fifo_depth=depth)
            np.testing.assert_array_equal(res.outputs[out].to_dense(), gold,
                                          err_msg=f"{expr} {formats} {engine} fifo={depth}")
            cycles.add(res.cycles)
        assert len(cycles) == 1, cycles
    return accumulator_orders(graph)


def values(shape: tuple[int, ...]) -> st.SearchStrategy[np.ndarray]:
    size = int(np.prod(shape))
    return st.lists(st.sampled_from([0, 0, 1, 2, -1]), min_size=size, max_size=size).map(
        lambda v: np.array(v, dtype=float).reshape(shape))


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_sum_over_outer_variable_keeps_n_levels(data):
    """``A(j,k,..)=B(i,j,k,..)``: the sum over the outermost i keeps n variables."""
    n = data.draw(st.integers(1, 5), label="order")
    kept = VARS[:n]
    shape = tuple(data.draw(st.lists(st.integers(1, 3), min_size=n + 1, max_size=n + 1)))
    B = data.draw(values(shape), label="B")
    fmt_b = "".join(data.draw(st.lists(st.sampled_from("ds"), min_size=n + 1, max_size=n + 1)))
    if data.draw(st.booleans(), label="COO input"):
        fmt_b = "u" + "c" * (n - 1) + "q"
    fmt_a = data.draw(st.sampled_from(["s" * n, "d" * n, "u" + "c" * (n - 2) + "q" if n > 1
                                       else "u"]), label="result format")
    expr = f"A({','.join(kept)})=B(i,{','.join(kept)})"
    orders = run(expr, {"A": fmt_a, "B": fmt_b}, {"B": B}, "A")
    assert orders == [n]


def test_order_four_and_five_from_the_corpus_shape():
    rng = np.random.default_rng(4)
    B = (rng.random((3, 2, 3, 2, 3)) < 0.5) * rng.integers(1, 4, (3, 2, 3, 2, 3)).astype(float)
    assert run("A(j,k,l,m)=B(i,j,k,l,m)", {"A": "ssss", "B": "sssss"}, {"B": B}, "A") == [4]
    C = (rng.random((2, 3, 2, 2, 3, 2)) < 0.5).astype(float)
    assert run("A(j,k,l,m,n)=C(i,j,k,l,m,n)", {"A": "sssss", "C": "ssssss"}, {"C": C},
               "A") == [5]
    # A product summed over its outer variable: an order-4 accumulator of the product.
    D = (rng.random((2, 2, 3)) < 0.6).astype(float)
    E = (rng.random((2, 3, 2)) < 0.6).astype(float)
    assert run("A(j,k,l,m)=D(i,j,k)*E(i,l,m)", {"A": "ssss", "D": "sss", "E": "sss"},
               {"D": D, "E": E}, "A") == [4]
