"""Parallel lanes (SAM paper Sec. 4.4; the original simulator left lanes as future work):
Gustavson's SpM*SpM and SpMV over 1, 2, 4, 8 and 16 lanes.

* ``spgemm-bcsstk13``: ``X(i,j) = B(i,k) C(k,j)``, order ``i,k,j``, B = C = bcsstk13 stored
  CSR (``ds``: C's rows are located, not intersected), ``-s=parallelize(i,n)``: each lane
  computes whole rows of X with its own vector reducer; a serializer joins the rows;
* ``spmv-M``: ``x(i) = B(i,j) c(j)``, B = M stored CSR, c a seeded dense vector,
  ``-s=parallelize(i,n)``, for every shipped matrix.

Per point: cycles, speed-up over one lane (and the cycles of the graph without lanes), and the
*load imbalance*: each lane's busy cycles (its busiest block's) and max/mean of those. Every
result is checked against scipy. Claim: Gustavson on bcsstk13 speeds up at least 0.7 n for
n = 2 and 4 (issue 19).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from custard.reproduce.common import SKIP, Claim, Outcome, ReproduceError
from custard.sweeps.sweep import Point, Sweeper

TITLE = "Parallel lanes: Gustavson SpM*SpM and SpMV over 1-16 lanes (SAM paper Sec. 4.4)"
LANES = (1, 2, 4, 8, 16)
QUICK_LANES = (1, 2, 4)
SPGEMM_MATRIX = "bcsstk13"
QUICK_SPGEMM_MATRIX = "LFAT5"
QUICK_SPMV = ("west0067", "LFAT5")
#: the claimed efficiency: speed-up >= EFFICIENCY * n at n = 2 and 4
EFFICIENCY = 0.7
CLAIMED = (2, 4)
SPGEMM = "X(i,j)=B(i,k)*C(k,j)"
SPMV = "x(i)=B(i,j)*c(j)"


def _matrices() -> list[str]:
    """The shipped two-dimensional data sets."""
    from formats.data import names, path

    return [n for n in names() if path(n).suffix == ".mtx"]


def point(p: Point) -> dict[str, Any]:
    """Simulate one (kernel, matrix, lanes) point; the result checked against scipy."""
    import numpy as np

    from custard.api import compile as compile_expr
    from formats.io import load_tensor
    from formats.tensor import Tensor
    from sam.sim.engine import simulate

    b = load_tensor(p["matrix"], "ds")
    lanes = p["lanes"]
    if p["kernel"] == "spgemm":
        expr, fmts, extra = SPGEMM, {"X": "ss", "B": "ds", "C": "ds"}, ["reorder(i,k,j)"]
        tensors = {"B": b, "C": b}
        want = (b.to_scipy() @ b.to_scipy()).toarray()
        out = "X"
    else:
        expr, fmts, extra = SPMV, {"x": "s", "B": "ds", "c": "d"}, ["reorder(i,j)"]
        c = np.random.default_rng(len(p["matrix"])).integers(1, 10, b.shape[1]).astype(float)
        tensors = {"B": b, "c": Tensor.from_dense(c, "d")}
        want = b.to_scipy() @ c
        out = "x"
    sched = [*extra, f"parallelize(i,{lanes})"] if lanes else extra
    graph = compile_expr(expr, fmts, schedule=sched)
    res = simulate(graph, tensors, engine=p["engine"])
    if not np.allclose(res.outputs[out].to_dense(), want):
        raise ReproduceError(f"lanes: {p['kernel']} on {p['matrix']} over {lanes} lanes "
                             "computed a wrong result (a bug)")
    busy = [0] * max(lanes, 1)
    for bid, stats in res.blocks.items():
        lane = graph.blocks[bid].attrs.get("lane") if bid in graph.blocks else None
        if lane is not None:
            busy[int(lane)] = max(busy[int(lane)], stats.busy)
    return {"cycles": res.cycles, "lane_busy": busy}


def run(sweeper: Sweeper, *, quick: bool = False, engine: str = "fast",
        matrices: Path | None = None) -> Outcome:
    lanes = QUICK_LANES if quick else LANES
    spgemm = QUICK_SPGEMM_MATRIX if quick else SPGEMM_MATRIX
    spmv = list(QUICK_SPMV) if quick else _matrices()
    series = [("spgemm", spgemm)] + [("spmv", m) for m in spmv]
    points = [{"kernel": k, "matrix": m, "lanes": n, "engine": engine}
              for k, m in series for n in (0, *lanes)]
    results = sweeper.run(point, points, label="lanes")
    got = {(p["kernel"], p["matrix"], p["lanes"]): r for p, r in zip(points, results,
                                                                      strict=True)}
    rows = []
    for k, m in series:
        one = got[(k, m, 1)]["cycles"]
        for n in lanes:
            r = got[(k, m, n)]
            busy = r["lane_busy"]
            mean = sum(busy) / len(busy)
            rows.append({"series": f"{k}-{m}", "x": n, "cycles": r["cycles"],
                         "speedup": one / r["cycles"], "efficiency": one / r["cycles"] / n,
                         "imbalance": max(busy) / mean if mean else 1.0,
                         "sequential_cycles": got[(k, m, 0)]["cycles"],
                         "lane_busy": ";".join(map(str, busy))})
    claims = _claims(rows, f"spgemm-{spgemm}", quick)
    notes = [f"SpM*SpM: {SPGEMM}, order i,k,j, B = C = {spgemm} stored ds (CSR); SpMV: {SPMV}, "
             "B stored ds, c dense; both -s=parallelize(i,n) (round robin). speedup = cycles "
             "at 1 lane / cycles at n lanes; sequential_cycles: the graph without lanes; "
             "imbalance = max/mean of the lanes' busy cycles (each lane's busiest block)."]
    return Outcome(TITLE, rows, claims, lambda path: _draw(path, rows, lanes), notes,
                   columns=("speedup", "efficiency", "imbalance", "sequential_cycles",
                            "lane_busy"))


def _claims(rows: list[dict[str, Any]], series: str, quick: bool) -> list[Claim]:
    claims = []
    names = list(dict.fromkeys(r["series"] for r in rows))
    two = {r["series"]: r for r in rows if r["x"] == 2}
    slower = [s for s in names if s in two and two[s]["speedup"] <= 1]
    claims.append(Claim.check(
        "4.4", "graph duplication between a parallelizer and a serializer is parallelism: two "
        "lanes take fewer cycles than one, on every kernel and matrix",
        f"{len(names) - len(slower)} of {len(names)} series faster at 2 lanes"
        + (f"; not: {', '.join(slower)}" if slower else "")
        + f" (speed-ups {min(r['speedup'] for r in two.values()):.2f}x to "
        f"{max(r['speedup'] for r in two.values()):.2f}x)", not slower))
    for n in CLAIMED:
        row = next((r for r in rows if r["series"] == series and r["x"] == n), None)
        text = f"Gustavson SpM*SpM on bcsstk13 speeds up at least {EFFICIENCY} n at n = {n}"
        if row is None:
            continue
        measured = f"{row['speedup']:.2f}x ({row['cycles']} cycles; imbalance " \
                   f"{row['imbalance']:.3f})"
        if quick:
            claims.append(Claim("4.4", text, f"--quick runs {series} instead: {measured}",
                                SKIP))
        else:
            claims.append(Claim.check("4.4", text, measured,
                                      row["speedup"] >= EFFICIENCY * n))
    return claims


def _draw(path: Path, rows: Sequence[dict[str, Any]], lanes: Sequence[int]) -> None:
    import matplotlib.pyplot as plt

    fig = lanes_figure(rows, lanes)
    try:
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)


def _curve_name(series: str) -> str:
    """``spgemm-bcsstk13`` -> ``SpM*SpM bcsstk13``, ``spmv-LFAT5`` -> ``SpMV LFAT5``."""
    kernel, _, matrix = series.partition("-")
    return f"{'SpM*SpM' if kernel == 'spgemm' else 'SpMV'} {matrix}"


def lanes_figure(rows: Sequence[dict[str, Any]], lanes: Sequence[int]) -> Any:
    """Speed-up and load imbalance over the lanes, one curve per series (SpM*SpM bold red,
    each SpMV matrix its own colour and marker, the same in both panels), and one legend
    beside them naming every curve (the caller closes the figure)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tab20 = plt.get_cmap("tab20").colors  # dark ones first; not SpM*SpM's red (6, 7)
    palette = [tab20[k] for k in (*range(0, 20, 2), *range(1, 20, 2)) if k not in (6, 7)]
    markers = ("o", "s", "^", "D", "v")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(14, 4.8))
    series = list(dict.fromkeys(r["series"] for r in rows))
    spmv = 0
    for s in series:
        pts = [r for r in rows if r["series"] == s]
        if s.startswith("spgemm"):
            kw: dict[str, Any] = {"linewidth": 2.5, "color": "#d62728", "zorder": 3,
                                  "marker": "o"}
        else:
            kw = {"linewidth": 0.9, "alpha": 0.9, "color": palette[spmv % len(palette)],
                  "marker": markers[spmv % len(markers)], "markersize": 5}
            spmv += 1
        ax1.plot([r["x"] for r in pts], [r["speedup"] for r in pts], label=_curve_name(s),
                 **kw)
        ax2.plot([r["x"] for r in pts], [r["imbalance"] for r in pts], label=_curve_name(s),
                 **kw)
    ax1.plot(lanes, lanes, linestyle="--", color="black", label="ideal (n)")
    ax1.plot(lanes, [EFFICIENCY * n for n in lanes], linestyle=":", color="gray",
             label=f"claimed ({EFFICIENCY} n)")
    for ax, title, ylabel in ((ax1, "speed-up over one lane", "speed-up"),
                              (ax2, "load imbalance (max / mean lane busy cycles)",
                               "imbalance")):
        ax.set_xscale("log", base=2)
        ax.set_xticks(list(lanes), [str(n) for n in lanes])
        ax.set_xlabel("lanes")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
    handles, labels = ax1.get_legend_handles_labels()
    fig.legend(handles, labels, loc="center right", fontsize=7, frameon=False,
               ncol=2 if len(labels) > 26 else 1, title="curves (both panels)",
               title_fontsize=8)
    fig.suptitle("Parallel lanes: Gustavson SpM*SpM (bold) and SpMV, -s=parallelize(i,n)")
    fig.tight_layout(rect=(0, 0, 0.85 if len(labels) <= 26 else 0.74, 0.93))
    return fig
