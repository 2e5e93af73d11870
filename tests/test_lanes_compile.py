"""``-s=parallelize(i,n)`` (custard/lanes.py) and the Gamma back end (custard/gamma.py).

Every kernel of the suite (dot_graphs/kernel-suite.tsv) compiled with lanes gives numpy's
result at n in {1, 2, 4, 8}, on both engines, with bounded FIFOs (depth n + 1, docs/lanes.md);
Gamma gives scipy's product on shipped matrices.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import custard
from custard.gamma import GAMMA_FILE, gamma, gamma_counts
from custard.parser import parse_format_option
from formats.io import load_tensor
from formats.tensor import Tensor
from sam.errors import CompileError
from sam.graph.dot import load
from sam.notation.parse import parse_expression
from sam.notation.reference import evaluate
from sam.sim.engine import simulate

ROOT = Path(__file__).resolve().parents[1]


def suite() -> list[tuple[str, str, dict, list[str]]]:
    out = []
    for line in (ROOT / "dot_graphs" / "kernel-suite.tsv").read_text().splitlines():
        name, rest = line.split("\t")
        parts = rest.split(" ")
        fmts = dict(parse_format_option(p[3:]) for p in parts[1:] if p.startswith("-f="))
        sched = [p[3:] for p in parts[1:] if p.startswith("-s=")]
        out.append((name, parts[0], fmts, sched))
    return out


SUITE = suite()
#: The parallelized variable per kernel: the outermost loop, except where another one shows
#: more of the transform (Gamma's k: the lanes joined by the n-input reducer).
VARIABLE = {"matmul_ikj": "k", "mat_vecmul_ji": "j", "tensor3_ttm": "j"}


def inputs(expr: str, seed: int):
    rng = np.random.default_rng(seed)
    assign = parse_expression(expr)
    arrays = {}
    for acc in assign.rhs.accesses():
        shape = (4,) * len(acc.indices)
        x = rng.integers(1, 5, shape) * (rng.random(shape) < 0.5)
        arrays[acc.name] = x.astype(float) if shape else float(rng.integers(1, 5))
    tensors = {k: Tensor.scalar(v) if np.ndim(v) == 0 else Tensor.from_dense(v)
               for k, v in arrays.items()}
    return assign, arrays, tensors


@pytest.mark.parametrize("name,expr,fmts,sched", SUITE, ids=[s[0] for s in SUITE])
def test_suite_kernel_with_lanes_equals_numpy(name, expr, fmts, sched):
    assign, arrays, tensors = inputs(expr, seed=len(name))
    want = np.asarray(evaluate(assign, arrays), float)
    base = custard.compile(expr, fmts, schedule=sched or None)
    var = VARIABLE.get(name, base.attrs["order"].split(",")[0])
    for k, n in enumerate((1, 2, 4, 8)):
        graph = custard.compile(expr, fmts, schedule=[*sched, f"parallelize({var},{n})"])
        assert graph.count().get("parallelize", 0) >= 1
        # both engines on every kernel, alternating over n to keep the test short
        for engine in (("reference", "fast") if k % 2 == 0 else ("fast",)):
            r = simulate(graph, tensors, engine=engine, fifo_depth=n + 1)
            got = np.asarray(r.outputs[assign.lhs.name].to_dense(), float)
            assert np.allclose(got, want), (name, n, engine)


@pytest.mark.parametrize("mode", ["rr", "range"])
def test_range_and_round_robin_lanes_agree(mode):
    expr = "X(i,j)=B(i,k)*C(k,j)"
    assign, arrays, tensors = inputs(expr, seed=3)
    g = custard.compile(expr, schedule=["reorder(i,k,j)", f"parallelize(i,3,{mode})"])
    r = simulate(g, tensors, engine="fast", fifo_depth=4)
    assert np.allclose(r.outputs["X"].to_dense(), arrays["B"] @ arrays["C"])


def test_gamma_file_is_the_compiled_graph():
    assert load(GAMMA_FILE).signature() == gamma().signature()


@pytest.mark.parametrize("matrix", ["west0067", "LFAT5", "bcsstm02", "GD97_b", "cage5"])
def test_gamma_equals_scipy_on_shipped_matrices(matrix):
    b = load_tensor(matrix, "ss")
    c = load_tensor(matrix, "ss")
    graph = load(GAMMA_FILE)
    r = simulate(graph, {"B": b, "C": c}, engine="fast")
    want = (b.to_scipy() @ c.to_scipy()).toarray()
    assert np.allclose(r.outputs["X"].to_dense(), want)
    assert r.blocks and any(s.busy > 0 for bid, s in r.blocks.items()
                            if graph.blocks[bid].dot_type == "lanereduce")


def test_gamma_counts_follow_the_paper():
    n = 4
    counts = {t: c for t, c, _ in gamma_counts(n)}
    assert counts["fiberlookup"] == 3 + n and counts["repeat"] == 1 + n
    assert counts["arrayvals"] == 2 * n and counts["mul"] == n
    assert counts["intersect"] == 1 and counts["lanereduce"] == 1
    assert counts["spaccumulator"] == 0 and counts["fiberwrite"] == 3


@pytest.mark.parametrize("command,message", [
    ("parallelize(q,2)", "not a loop"),
    ("parallelize(i,0)", "whole number of 1 or more, not 0"),
    ("parallelize(i,-2)", "whole number of 1 or more, not -2"),  # issue 31: not an arity error
    ("parallelize(i,100000)", r"at most 4,096 \(SAM lanes are copies"),
    ("parallelize(i,2,zigzag)", "round robin"),
])
def test_bad_parallelize_one_line(command, message):
    with pytest.raises(CompileError, match=message) as err:
        custard.compile("X(i,j)=B(i,k)*C(k,j)", schedule=["reorder(i,k,j)", command])
    assert "\n" not in str(err.value)


def test_taco_parallelize_still_recorded():
    g = custard.compile("y(i)=A(i,j)*x(j)", schedule=["parallelize(i,CPUThread,NoRaces)"])
    assert g.attrs["parallelize"] == "i:CPUThread:NoRaces"
    assert "parallelize" not in g.count()


def test_reproduce_lanes_points_speed_up_and_balance():
    """``sam-sim reproduce lanes`` points: checked results, fewer cycles with lanes, one busy
    count per lane, and the claims computed from them."""
    from custard.reproduce import lanes as rl

    one, two = (rl.point({"kernel": "spgemm", "matrix": "LFAT5", "lanes": n, "engine": "fast"})
                for n in (1, 2))
    assert len(two["lane_busy"]) == 2 and min(two["lane_busy"]) > 0
    assert two["cycles"] < one["cycles"]
    rows = [{"series": "spgemm-LFAT5", "x": n, "cycles": r["cycles"],
             "speedup": one["cycles"] / r["cycles"], "imbalance": 1.0}
            for n, r in ((1, one), (2, two))]
    claims = rl._claims(rows, "spgemm-LFAT5", quick=False)
    assert claims[0].verdict == "PASS"
    assert claims[1].verdict == ("PASS" if rows[1]["speedup"] >= 1.4 else "FAIL")


@pytest.mark.parametrize("var", ["i", "k"])
def test_engines_agree_on_lanes(var):
    """Same cycles and per-block statistics on both engines (lanes at i; Gamma at k)."""
    b = load_tensor("LFAT5", "ss")
    g = custard.compile("X(i,j)=B(i,k)*C(k,j)", schedule=["reorder(i,k,j)",
                                                          f"parallelize({var},3)"])
    ref, fast = (simulate(g, {"B": b, "C": b}, engine=e, fifo_depth=4)
                 for e in ("reference", "fast"))
    assert ref.cycles == fast.cycles
    assert {k: (s.busy, s.idle, s.stalled) for k, s in ref.blocks.items()} == \
        {k: (s.busy, s.idle, s.stalled) for k, s in fast.blocks.items()}
    assert np.allclose(ref.outputs["X"].to_dense(), (b.to_scipy() @ b.to_scipy()).toarray())
