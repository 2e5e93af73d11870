"""Figure 14 (SAM paper Sec. 6.4, "Stream Analysis") and the token bound of Sec. 3.8.

Figure 14: the matrix identity ``X(i,j) = B(i,j)`` with B in DCSR, on SuiteSparse matrices; for
the coordinate streams of the outer (B_i) and inner (B_j) level scanners, the share of the run's
cycles in which the stream carried a data (non-control), stop, done or empty token, or nothing
(idle), as the original's ``plot_stream_overhead.py`` computes it. The paper used the 15
matrices of its Table 3 (``--matrices DIR`` with their ``.mtx`` files); by default the shipped
SuiteSparse matrices are used.

Sec. 3.8 compares the level-based streams (B_i, B_j and the values: ``(1+c) nnr + 2 (1+c)
nnz`` tokens, ``c`` the share of control tokens) with a point-based stream of ``(i, j, v)``
tuples (``3 nnz`` tokens) and concludes, with the worst ``c`` of Figure 14 (0.3326), that the
level-based streams cost fewer tokens when ``nnz > 3.98 rows``. We count both on every matrix
and on random matrices with a growing number of nonzeros per row.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from custard.reproduce.common import SKIP, Claim, Outcome, ReproduceError, pct
from custard.sweeps.sweep import Point, Sweeper

TITLE = "Stream token breakdown of the matrix identity (SAM paper Figure 14, Sec. 6.4 and 3.8)"
KINDS = ("data", "stop", "done", "empty", "idle")
#: the paper's Table 3: name -> (rows, columns, nonzeros), in its three groups of five
TABLE3: dict[str, tuple[int, int, int]] = {
    "relat3": (8, 5, 24), "lpi_itest6": (11, 17, 29), "LFAT5": (14, 14, 46),
    "ch4-4-b1": (72, 16, 144), "ch7-6-b1": (630, 42, 1260),
    "bwm2000": (2000, 2000, 7996), "G32": (2000, 2000, 8000), "progas": (1650, 1900, 8897),
    "lp_maros": (846, 1966, 10137), "G42": (2000, 2000, 23558),
    "stormg2-27": (14439, 37485, 94274), "lpl3": (10828, 33686, 100525),
    "nemsem2": (6943, 48878, 182012), "rlfdual": (8052, 74970, 282031),
    "rail507": (507, 63516, 409856),
}
BOUND = 3.98  # Sec. 3.8: nnz > 3.98 rows
QUICK_MATRICES = ("LFAT5", "lpi_itest6", "bcsstm02", "west0067")
SWEEP = {"rows": 400, "cols": 400, "per_row": [1, 2, 2.5, 3, 3.5, 4, 5, 6, 8]}
QUICK_SWEEP = {"rows": 40, "cols": 40, "per_row": [1, 3, 5]}
TOLERANCE = 0.005  # averages over the paper's 15 matrices: within half a percentage point


def _graph():
    from custard.api import compile as compile_expr
    from sam.graph.dot import dumps, loads

    return loads(dumps(compile_expr("X(i,j)=B(i,j)", {"X": "ss", "B": "ss"}, "ij")))


def _measure(tensor: Any, engine: str) -> dict[str, Any]:
    """Simulate the identity on ``tensor``; token counts of the B_i, B_j and value streams."""
    import numpy as np

    from sam.sim.engine import simulate

    graph = _graph()
    start = time.perf_counter()
    res = simulate(graph, {"B": tensor.with_format(graph.formats["B"])}, engine=engine)
    wall = time.perf_counter() - start
    if not np.array_equal(res.outputs["X"].to_dense(), tensor.to_dense()):
        raise ReproduceError("the identity graph did not reproduce its input (a bug)")
    streams: dict[str, dict[str, int]] = {}
    for s in res.streams:
        block = graph.blocks[s.src]
        if block.dot_type == "fiberlookup" and s.kind == "crd":
            streams.setdefault("Bi" if block.attrs.get("mode") == "0" else "Bj", s.tokens)
        elif block.dot_type == "arrayvals" and s.kind == "val":
            streams.setdefault("vals", s.tokens)
    coords, _ = tensor.to_coo()
    out: dict[str, Any] = {"cycles": res.cycles, "rows": tensor.shape[0],
                           "cols": tensor.shape[1], "nnz": int(tensor.nnz),
                           "nnr": int(len(np.unique(coords[:, 0]))), "wall_s": wall}
    for name, tokens in streams.items():
        for kind in ("data", "stop", "done", "empty"):
            out[f"{name}_{kind}"] = int(tokens.get(kind, 0))
        out[f"{name}_idle"] = res.cycles - sum(tokens.values())
    return out


def matrix_point(p: Point) -> dict[str, Any]:
    """One matrix (a file or a shipped name) through the identity graph."""
    from formats.io import load_tensor

    tensor = load_tensor(p["source"])
    if tensor.order != 2:
        raise ReproduceError(f"{p['source']}: a matrix is needed, this has order "
                             f"{tensor.order}")
    return _measure(tensor, p["engine"])


def sweep_point(p: Point) -> dict[str, Any]:
    """A uniform random matrix with ``per_row`` nonzeros per row on average."""
    from formats.synthetic import random_tensor

    density = p["per_row"] / p["cols"]
    return _measure(random_tensor((p["rows"], p["cols"]), density, p["seed"]), p["engine"])


def _matrices(matrices: Path | None, quick: bool) -> list[tuple[str, str, str]]:
    """(label, source, stamp) of every matrix to analyse."""
    if matrices is not None:
        files = sorted(matrices.glob("*.mtx"))
        if not files:
            raise ReproduceError(f"--matrices {matrices}: no .mtx file in it")
        return [(f.stem, str(f.resolve()), f"{f.stat().st_size}:{f.stat().st_mtime_ns}")
                for f in files]
    from formats import data

    names = [n for n in data.names() if data.path(n).parent.name == "suitesparse"]
    if quick:
        names = [n for n in QUICK_MATRICES if n in names]
    return [(n, n, "shipped") for n in names]


def _share(r: dict[str, Any], stream: str, kind: str) -> float:
    return r[f"{stream}_{kind}"] / max(r["cycles"], 1)


def _why_below_bound(cases: list[tuple[str, dict[str, Any]]], wrong: list[str]) -> str:
    """Why level-based streams win below 3.98 rows: the bound assumes the worst control share
    c = 0.3326 (Figure 14's ch7-6-b1); a case's own c gives the break-even (1+c)/(1-2c)."""
    if not wrong:
        return ""
    own = {n: _level_tokens(r) / (r["nnr"] + 2 * r["nnz"]) - 1 for n, r in cases if n in wrong}
    c = max(own.values())
    return (f". Why: the bound assumes the worst control share c = 0.3326; these cases' own c "
            f"is at most {c:.3f}, whose break-even (1+c)/(1-2c) is {(1 + c) / (1 - 2 * c):.2f} "
            "nonzeros per nonempty row (the streams are the original's: a scanner's tokens are "
            "fixed by the format)")


def _level_tokens(r: dict[str, Any]) -> int:
    return sum(r[f"{s}_{k}"] for s in ("Bi", "Bj", "vals") for k in ("data", "stop", "done",
                                                                        "empty"))


def run(sweeper: Sweeper, *, quick: bool, engine: str, matrices: Path | None = None,
        **_: Any) -> Outcome:
    mats = _matrices(matrices, quick)
    points = [{"matrix": label, "source": src, "stamp": stamp, "engine": engine}
              for label, src, stamp in mats]
    results = sweeper.run(matrix_point, points, "fig14 matrices")
    cfg = QUICK_SWEEP if quick else SWEEP
    spoints = [{"rows": cfg["rows"], "cols": cfg["cols"], "per_row": k, "seed": n,
                "engine": engine} for n, k in enumerate(cfg["per_row"])]
    sresults = sweeper.run(sweep_point, spoints, "fig14 sweep")
    by = {p["matrix"]: r for p, r in zip(points, results, strict=True)}
    order = sorted(by, key=lambda m: (by[m]["cycles"], m))  # as the original plots them

    rows: list[dict[str, Any]] = []
    for m in order:
        r = by[m]
        for stream in ("Bi", "Bj"):
            for kind in KINDS:
                rows.append({"series": f"{stream}:{kind}", "x": m,
                             "cycles": r[f"{stream}_{kind}"],
                             "share": _share(r, stream, kind), "matrix_cycles": r["cycles"],
                             "rows": r["rows"], "nnz": r["nnz"]})
        rows.append({"series": "tokens:level", "x": m, "cycles": None,
                     "tokens": _level_tokens(r), "rows": r["rows"], "nnz": r["nnz"]})
        rows.append({"series": "tokens:point", "x": m, "cycles": None, "tokens": 3 * r["nnz"],
                     "rows": r["rows"], "nnz": r["nnz"]})
    for r in sresults:
        x = r["nnz"] / r["rows"]
        rows.append({"series": "sweep:level", "x": f"{x:.4g}", "cycles": r["cycles"],
                     "tokens": _level_tokens(r), "rows": r["rows"], "nnz": r["nnz"]})
        rows.append({"series": "sweep:point", "x": f"{x:.4g}", "cycles": None,
                     "tokens": 3 * r["nnz"], "rows": r["rows"], "nnz": r["nnz"]})

    claims = _claims(by, sresults, matrices is not None)
    notes = [
        f"Matrices ({len(by)}): " + (f"the .mtx files of {matrices}" if matrices else
                                     "the shipped SuiteSparse matrices (`sam-sim data`); the "
                                     "paper's Table 3 matrices among them: "
                                     + (", ".join(m for m in by if m in TABLE3) or "none"))
        + ". Claims about the paper's averages need all 15 Table 3 matrices (`--matrices "
        "DIR`); without them they are SKIP and our values over the given set are shown.",
        "Shares are of the run's cycles (a stream carries at most one token a cycle; idle = "
        "cycles without a token), as the original's plot_stream_overhead.py computes them; "
        "'non-idle control' = stop + done + empty tokens.",
        "Level-based tokens = every token of the B_i, B_j and value streams; point-based = "
        "3 nnz (one (i, j, v) tuple per nonzero, Sec. 3.8). Sweep: uniform random "
        f"{cfg['rows']}x{cfg['cols']} matrices with {', '.join(map(str, cfg['per_row']))} "
        "nonzeros per row on average.",
    ]

    def draw(path: Path) -> None:
        _draw(path, by, order, sresults)

    return Outcome(TITLE, rows, claims, draw, notes, ("share", "tokens", "rows", "nnz"))


def _claims(by: dict[str, dict[str, Any]], sweep: list[dict[str, Any]], given: bool
            ) -> list[Claim]:
    mats = list(by)
    avg = {(s, k): statistics.fmean(_share(by[m], s, k) for m in mats)
           for s in ("Bi", "Bj") for k in KINDS}
    ctrl = {s: statistics.fmean(sum(_share(by[m], s, k) for k in ("stop", "done", "empty"))
                                for m in mats) for s in ("Bi", "Bj")}
    all15 = set(TABLE3) <= set(mats)
    which = ("the paper's 15 matrices" if all15 else
             f"{len(mats)} {'given' if given else 'shipped'} matrices, not the paper's 15")
    claims = []
    for text, ours, paper in (
            ("average non-idle control overhead reaching 0.95% for outer levels",
             ctrl["Bi"], 0.0095),
            ("[average non-idle control overhead] 16.20% for inner levels", ctrl["Bj"], 0.1620),
            ("Most tokens, on average 83.32%, on the B_i stream are idle", avg[("Bi", "idle")],
             0.8332)):
        measured = f"{pct(ours)} over {which}"
        if all15:
            claims.append(Claim.check("6.4", text + f" (within {100 * TOLERANCE:.1f} points)",
                                      measured, abs(ours - paper) <= TOLERANCE))
        else:
            claims.append(Claim("6.4", text, measured + " (needs --matrices with Table 3's)",
                                SKIP))
    claims.append(Claim.check("6.4", "most tokens on the B_i stream are idle (the outer "
                              "scanner is done while the inner level iterates)",
                              f"idle {pct(avg[('Bi', 'idle')])} on average; least "
                              f"{pct(min(_share(by[m], 'Bi', 'idle') for m in mats))}",
                              avg[("Bi", "idle")] > 0.5))
    dominated = [m for m in mats if by[m]["Bj_stop"] <= by[m]["Bj_done"] + by[m]["Bj_empty"]]
    claims.append(Claim.check("6.4", "at the lower level of the matrix, control overhead is "
                              "dominated by stop tokens",
                              f"stop tokens outnumber done + empty on B_j for "
                              f"{len(mats) - len(dominated)} of {len(mats)} matrices"
                              + (f" (not: {', '.join(dominated)})" if dominated else ""),
                              not dominated))
    for m, paper in (("rail507", 0.0012), ("ch7-6-b1", 0.3326)):
        text = f"the stop token overhead ... {100 * paper:.2f}% (for {m})"
        if m in by:
            ours = _share(by[m], "Bj", "stop")
            claims.append(Claim.check("6.4", text + " (within 0.05 points)", pct(ours),
                                      abs(ours - paper) <= 0.0005))
        else:
            claims.append(Claim("6.4", text, f"{m} not given", SKIP))
    stop = {m: _share(by[m], "Bj", "stop") for m in mats}
    top = max(stop, key=lambda m: stop[m])
    median_nnz = statistics.median(by[m]["nnz"] for m in mats)
    claims.append(Claim.check("6.4", "higher percentages of stop tokens occur only in small "
                              "matrices",
                              f"stop share ranges {pct(min(stop.values()))} to "
                              f"{pct(stop[top])} ({top}, {by[top]['nnz']:,} nonzeros; median "
                              f"{median_nnz:,.0f})", by[top]["nnz"] <= median_nnz))
    # Sec. 3.8
    cases = [(m, by[m]) for m in mats] + [(f"random {r['nnz'] / r['rows']:.2f}/row", r)
                                         for r in sweep]
    above = [(n, r) for n, r in cases if r["nnz"] > BOUND * r["rows"]]
    fewer = [n for n, r in above if _level_tokens(r) < 3 * r["nnz"]]
    claims.append(Claim.check(
        "3.8", "the level-based representation, in the worst case, processes less tokens than "
        "the point-based approach when nnz_B > 3.98 dim_Bi",
        f"{len(fewer)} of {len(above)} matrices with nnz > 3.98 rows have fewer level-based "
        "tokens" + ("" if len(fewer) == len(above) else
                    f" (not: {', '.join(n for n, _ in above if n not in fewer)})"),
        len(fewer) == len(above)))
    wrong = [n for n, r in cases
             if (_level_tokens(r) < 3 * r["nnz"]) != (r["nnz"] > BOUND * r["rows"])]
    crossing = [r["nnz"] / max(r["nnr"], 1) for _, r in cases if _level_tokens(r) < 3 * r["nnz"]]
    claims.append(Claim.check(
        "3.8", "(the bound read as a threshold) point streams cost more tokens exactly when "
        "nnz > 3.98 rows",
        f"{len(cases) - len(wrong)} of {len(cases)} cases agree"
        + (f"; level-based is already cheaper for {', '.join(wrong)}" if wrong else "")
        + (f"; level-based is cheaper from {min(crossing):.2f} nonzeros per nonempty row"
           if crossing else "") + _why_below_bound(cases, wrong), not wrong))
    t3 = [m for m in list(TABLE3)[5:] if TABLE3[m][2] > BOUND * TABLE3[m][0]]
    claims.append(Claim.check(
        "3.8", "Of the matrices we selected in Figure 14, all 5 middle 50 and 5 large 50 "
        "matrices satisfy the 4x inequality",
        f"{len(t3)} of 10 by Table 3's rows and nonzeros", len(t3) == 10))
    return claims


def _draw(path: Path, by: dict[str, dict[str, Any]], order: list[str],
          sweep: list[dict[str, Any]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = {"data": "#1f4fd6", "stop": "#d62728", "done": "#e8c618", "empty": "#9467bd",
              "idle": "#2ca02c"}
    fig, axes = plt.subplots(3, 1, figsize=(max(8.0, 0.45 * len(order) + 3), 10),
                             gridspec_kw={"height_ratios": [1, 1, 1.1]})
    for ax, stream, title in ((axes[0], "Bi", "Outer-level B_i stream breakdown"),
                              (axes[1], "Bj", "Inner-level B_j stream breakdown")):
        bottom = [0.0] * len(order)
        for kind in ("data", "stop", "done", "empty", "idle"):
            vals = [100 * _share(by[m], stream, kind) for m in order]
            ax.bar(order, vals, bottom=bottom, color=colors[kind], label=kind)
            bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
        ax.set_ylim(0, 100)
        ax.set_ylabel("% of cycles")
        ax.set_title(title)
        ax.tick_params(axis="x", labelrotation=60, labelsize=8)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, ncol=5, fontsize=9, loc="upper center")
    ax = axes[2]
    xs = [r["nnz"] / r["rows"] for r in sweep]
    ax.plot(xs, [_level_tokens(r) / r["rows"] for r in sweep], "o-", color="#1f4fd6",
            label="level-based streams (B_i + B_j + vals)")
    ax.plot(xs, [3 * r["nnz"] / r["rows"] for r in sweep], "s--", color="#d62728",
            label="point-based stream (3 nnz)")
    ax.axvline(BOUND, color="#555555", linestyle=":", label="Sec. 3.8 bound: nnz = 3.98 rows")
    ax.set_xlabel("nonzeros per row (uniform random matrices)")
    ax.set_ylabel("tokens per row")
    ax.set_title("Sec. 3.8: level-based vs point-based stream tokens")
    ax.legend(fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, dpi=100)
    plt.close(fig)
