"""Figure 12 (SAM paper Sec. 6.3, "Dataflow Ordering"): SpM*SpM ``X(i,j) = B(i,k) * C(k,j)`` in
the six loop orders, on the original's Figure 12 data (B 250 x 100 and C 100 x 250, each element
zero with probability 0.95, :func:`formats.synthetic.figure12_matrices`), next to the original
simulator's cycle counts; and a sparsity sweep of the same generator for the claim that the
orders' differences grow with sparsity.

Every order reads each operand in its mode order (B ``ss01`` when i comes before k, else
``ss:1,0``; likewise C by k and j, X by i and j), as the original's reorder study stores them.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from custard.reproduce.common import Claim, Outcome
from custard.sweeps.sweep import Point, Sweeper

TITLE = "SpM*SpM in six dataflow orders (SAM paper Figure 12, Sec. 6.3)"
ORDERS = ("ijk", "jik", "ikj", "jki", "kij", "kji")
#: the original SAM simulator on the same data (issue 13, measured with its reorder study)
ORIGINAL = {"ijk": 662_574, "jik": 662_574, "ikj": 25_235, "jki": 24_910, "kij": 30_833,
            "kji": 30_898}
FULL = {"shape_b": [250, 100], "shape_c": [100, 250], "sparsity": 0.95,
        "sweep": [0.8, 0.9, 0.95, 0.975, 0.99]}
QUICK = {"shape_b": [40, 16], "shape_c": [16, 40], "sparsity": 0.9, "sweep": [0.8, 0.9]}
KIND = {"ijk": "inner product", "jik": "inner product", "ikj": "linear combination of rows",
        "jki": "linear combination of rows", "kij": "outer product", "kji": "outer product"}


def formats_for(order: str) -> dict[str, str]:
    """Each tensor read in its mode order under loop order ``order``."""
    def fmt(a: str, b: str) -> str:
        return "ss" if order.index(a) < order.index(b) else "ss:1,0"

    return {"X": fmt("i", "j"), "B": fmt("i", "k"), "C": fmt("k", "j")}


def point(p: Point) -> dict[str, Any]:
    """Compile the order (through DOT text and back), simulate it on the original's data and
    check the result against numpy."""
    from custard.api import compile as compile_expr
    from formats.synthetic import original_random
    from sam.graph.dot import dumps, loads
    from sam.sim.engine import simulate

    fmts = formats_for(p["order"])
    graph = loads(dumps(compile_expr("X(i,j)=B(i,k)*C(k,j)", fmts, p["order"])))
    b = original_random(p["shape_b"], p["sparsity"], 0, name="B")
    c = original_random(p["shape_c"], p["sparsity"], 1, name="C")
    tensors = {"B": b.with_format(graph.formats["B"]), "C": c.with_format(graph.formats["C"])}
    start = time.perf_counter()
    res = simulate(graph, tensors, engine=p["engine"], timing=p.get("timing", "sam"))
    wall = time.perf_counter() - start
    correct = bool(np.allclose(res.outputs["X"].to_dense(), b.to_dense() @ c.to_dense(),
                               rtol=1e-12, atol=0))
    return {"cycles": res.cycles, "tokens": res.tokens, "nnz_b": b.nnz, "nnz_c": c.nnz,
            "correct": correct, "wall_s": wall}


def run(sweeper: Sweeper, *, quick: bool, engine: str, **_: Any) -> Outcome:
    cfg = QUICK if quick else FULL
    sparsities = sorted(set(cfg["sweep"]) | {cfg["sparsity"]})
    points = [{"order": o, "sparsity": s, "shape_b": cfg["shape_b"], "shape_c": cfg["shape_c"],
               "engine": engine} for s in sparsities for o in ORDERS]
    timed = [] if quick else [{"order": o, "sparsity": cfg["sparsity"], "shape_b": cfg["shape_b"],
                               "shape_c": cfg["shape_c"], "engine": engine,
                               "timing": "original"} for o in ORDERS]
    results = sweeper.run(point, points + timed, "fig12")
    results, timed_results = results[:len(points)], results[len(points):]
    by = {(p["order"], p["sparsity"]): r for p, r in zip(points, results, strict=True)}
    main = {o: by[(o, cfg["sparsity"])]["cycles"] for o in ORDERS}
    as_original = {p["order"]: r["cycles"] for p, r in zip(timed, timed_results, strict=True)}

    rows: list[dict[str, Any]] = []
    for o in ORDERS:
        r = by[(o, cfg["sparsity"])]
        rows.append({"series": "ours", "x": o, "cycles": main[o], "sparsity": cfg["sparsity"],
                     "tokens": r["tokens"], "correct": r["correct"], "dataflow": KIND[o]})
        if not quick:
            rows.append({"series": "original", "x": o, "cycles": ORIGINAL[o],
                         "sparsity": cfg["sparsity"], "dataflow": KIND[o],
                         "ours_vs_original": main[o] / ORIGINAL[o] - 1})
            rows.append({"series": "ours, --timing original", "x": o,
                         "cycles": as_original[o], "sparsity": cfg["sparsity"],
                         "correct": timed_results[ORDERS.index(o)]["correct"],
                         "dataflow": KIND[o],
                         "ours_vs_original": as_original[o] / ORIGINAL[o] - 1})
    for s in sparsities:
        for o in ORDERS:
            r = by[(o, s)]
            rows.append({"series": f"ours, sparsity {s}", "x": o, "cycles": r["cycles"],
                         "sparsity": s, "tokens": r["tokens"], "correct": r["correct"],
                         "dataflow": KIND[o]})

    inner = [main["ijk"], main["jik"]]
    others = [main[o] for o in ORDERS[2:]]
    ratio = min(inner) / max(others)
    claims = [
        Claim.check("6.3", "the inner-product algorithms (ijk, jik) perform the worst",
                    f"ijk {main['ijk']:,}, jik {main['jik']:,} cycles; the other orders at most "
                    f"{max(others):,}", min(inner) > max(others)),
        Claim.check("6.3", "the linear combination of rows (ikj, jki) and outer product (kij, "
                    "kji) algorithms perform at least an order of magnitude better",
                    f"slowest inner product / slowest other order = {ratio:.1f}x", ratio >= 10),
    ]
    spreads = {pos: (a, b, abs(main[a] - main[b]) / min(main[a], main[b]))
               for pos, (a, b) in {"last": ("ijk", "jik"), "middle": ("ikj", "jki"),
                                   "first": ("kij", "kji")}.items()}
    claims.append(Claim.check(
        "6.3", "the performance is dictated by the order of k (orders with k at the same "
        "position perform alike: within 5%)",
        "; ".join(f"k {pos}: {a} vs {b} differ by {100 * d:.1f}%"
                  for pos, (a, b, d) in spreads.items()),
        all(d <= 0.05 for _, _, d in spreads.values())))
    gaps = [min(by[("ijk", s)]["cycles"], by[("jik", s)]["cycles"])
            / min(by[(o, s)]["cycles"] for o in ORDERS[2:]) for s in sparsities]
    claims.append(Claim.check(
        "6.3", "these algorithms differ in their asymptotic complexity, so performance "
        "differences will increase with increases in sparsity",
        "fastest inner product / fastest other order: " + ", ".join(
            f"{g:.1f}x at sparsity {s}" for s, g in zip(sparsities, gaps, strict=True)),
        all(b > a for a, b in zip(gaps, gaps[1:], strict=False))))
    wrong = [f"{p['order']}@{p['sparsity']}{'/original' if 'timing' in p else ''}"
             for p, r in zip(points + timed, results + timed_results, strict=True)
             if not r["correct"]]
    claims.append(Claim.check("-", "(every simulated product equals numpy's B @ C)",
                              f"{len(points) + len(timed) - len(wrong)} of "
                              f"{len(points) + len(timed)} correct"
                              + (f"; wrong: {', '.join(wrong)}" if wrong else ""), not wrong))
    if not quick:
        for o in ORDERS:
            d = main[o] / ORIGINAL[o] - 1
            d_orig = as_original[o] / ORIGINAL[o] - 1
            why = "" if abs(d) <= 0.05 else (
                f"; under `--timing original` {as_original[o]:,} ({100 * d_orig:+.2f}%): the "
                "whole difference is rule 9 of docs/timing-model.md (our reducer spends a cycle "
                "on every outer coordinate and stop token it reads; the original's accumulator "
                "takes one point per cycle and emits a row while taking the next)")
            claims.append(Claim.check(
                "issue 13", f"{o}: cycles within 5% of the original simulator's "
                f"{ORIGINAL[o]:,}", f"{main[o]:,} ({100 * d:+.1f}%){why}", abs(d) <= 0.05))
        for o in ORDERS:
            d_orig = as_original[o] / ORIGINAL[o] - 1
            claims.append(Claim.check(
                "issue 13", f"{o} under `--timing original`: cycles within 5% of the original "
                f"simulator's {ORIGINAL[o]:,}", f"{as_original[o]:,} ({100 * d_orig:+.2f}%)",
                abs(d_orig) <= 0.05))
    first = by[("ijk", cfg["sparsity"])]
    notes = [
        f"Data: B {cfg['shape_b'][0]}x{cfg['shape_b'][1]} (seed 0, {first['nnz_b']} "
        f"nonzeros) and C {cfg['shape_c'][0]}x{cfg['shape_c'][1]} (seed 1, "
        f"{first['nnz_c']} nonzeros) from the original artifact's "
        f"generator (`orig-random:{cfg['sparsity']}`), each element zero with probability "
        f"{cfg['sparsity']}; the sweep uses the same generator and seeds at other sparsities.",
        "The original's counts were measured with its reorder study on these exact matrices "
        "(issue 13). The gap for ikj/jki (about "
        "+20%) is the order-2 reducer's timing (issue 13, point 2): ours spends a cycle on "
        "every input token, the original feeds its accumulator one point per cycle. The "
        "series `ours, --timing original` runs the same graphs with the original's costs "
        "(docs/timing-model.md): its claims compare them with the original's counts.",
    ]
    if quick:
        notes.insert(0, "`--quick`: small matrices, so the original's counts do not apply and "
                     "the order-of-magnitude claims need not hold.")

    def draw(path: Any) -> None:
        _draw(path, main, by, sparsities, quick)

    return Outcome(TITLE, rows, claims, draw, notes, ("sparsity", "tokens", "correct"))


def _draw(path: Any, main: dict[str, int], by: dict, sparsities: list[float], quick: bool
          ) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    x = np.arange(len(ORDERS))
    width = 0.4 if not quick else 0.6
    colors = {"inner product": "#d62728", "linear combination of rows": "#1f77b4",
              "outer product": "#2ca02c"}
    ax.bar(x - (width / 2 if not quick else 0), [main[o] for o in ORDERS], width,
           color=[colors[KIND[o]] for o in ORDERS], label="ours")
    if not quick:
        ax.bar(x + width / 2, [ORIGINAL[o] for o in ORDERS], width, color="#bbbbbb",
               edgecolor="#555555", label="original simulator")
    ax.set_xticks(x, ORDERS)
    ax.set_yscale("log")
    ax.set_ylim(bottom=min([*main.values(), *(() if quick else ORIGINAL.values())]) / 4)
    ax.set_ylabel("cycles")
    ax.set_xlabel("dataflow order")
    ax.set_title("SpM*SpM dataflows (cf. Figure 12)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colors.values()]
    labels = list(colors)
    if not quick:
        handles.append(plt.Rectangle((0, 0), 1, 1, color="#bbbbbb", ec="#555555"))
        labels.append("original simulator")
    ax.legend(handles, labels, fontsize=8, loc="upper right")
    for o in ORDERS:
        ax2.plot(sparsities, [by[(o, s)]["cycles"] for s in sparsities], marker="o",
                 color=colors[KIND[o]], linestyle="-" if o[0] < o[1] or o == "kij" else "--",
                 label=o)
    ax2.set_yscale("log")
    ax2.set_xlabel("sparsity (probability an element is zero)")
    ax2.set_ylabel("cycles")
    ax2.set_title("the same orders across sparsity")
    ax2.legend(fontsize=8, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
