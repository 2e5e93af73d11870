"""Ember's optimization ablation (Ember paper Sec. 8.1, Figure 16 (13 in some versions), Table 3):
SLS (EmbeddingBag) on the DLRM configurations RM1-RM3, compiled by ``custard ember`` at
emb-opt0..3 (``-O0``..``-O3``, ``--vlen 8``), lowered to a TMU graph (dae mode) and simulated;
cycles per level and the speedup of each level over emb-opt0.

Table 3 per core: 2 tables of 16K entries; RM1/RM2/RM3 have 64/32/16 segments per batch,
embedding vectors of 32/64/128 elements and 64/128/256 lookups per segment. Tables and lookups
are uniform random (the paper's low-locality L0 input; our timing model has no caches, so L1/L2
would time the same). A core runs its two tables one after the other: its cycles are the sum.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from custard.reproduce.common import Claim, Outcome
from custard.sweeps.sweep import Point, Sweeper

TITLE = "Ember optimizations emb-opt0..3 on SLS for DLRM RM1-RM3 (Ember paper Sec. 8.1, Table 3)"
LEVELS = (0, 1, 2, 3)
VLEN = 8
#: Table 3: segments per batch per core, entries per table, elements per vector, tables per
#: core, lookups per segment
FULL = {"RM1": (64, 16384, 32, 2, 64), "RM2": (32, 16384, 64, 2, 128),
        "RM3": (16, 16384, 128, 2, 256)}
QUICK = {"RM1": (8, 512, 32, 1, 8), "RM2": (4, 512, 64, 1, 16), "RM3": (2, 512, 128, 1, 32)}
#: the paper's emb-opt3 speedups over emb-opt0 (gem5, Sec. 8.1)
PAPER = {"RM1": 6.6, "RM2": 12.1, "RM3": 21.0}
#: message passing on shipped graphs (Table 2's MP layer size 128); quick: one small graph
MP_FULL = {"graphs": ("karate", "bcspwr01", "GD97_b", "west0067"), "emb": 128}
MP_QUICK = {"graphs": ("karate",), "emb": 16}


def inputs(segments: int, rows: int, emb: int, lookups: int, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    return {"ptrs": np.arange(segments + 1, dtype=np.int64) * lookups,
            "idxs": rng.integers(0, rows, segments * lookups).astype(np.int64),
            "table": rng.uniform(-1, 1, (rows, emb))}


def point(p: Point) -> dict[str, Any]:
    """Compile SLS at ``-O level``, lower it to a TMU graph, simulate one table, check numpy."""
    from custard.ember.ops import reference, scf_text
    from custard.ember.pipeline import compile_module
    from custard.ember.to_tmu import lower_to_tmu, simulate_tmu

    ins = inputs(p["segments"], p["rows"], p["emb"], p["lookups"], p["seed"])
    compiled = compile_module(scf_text("sls"), p["level"], p["vlen"])
    low = lower_to_tmu(compiled.dlc, ins)
    start = time.perf_counter()
    out, res = simulate_tmu(low, p["engine"])
    wall = time.perf_counter() - start
    tmu = res.blocks["0"].details
    return {"cycles": res.cycles, "tokens": res.tokens,
            "ctrl": tmu.get("queue.ctrl.entries", 0), "data": tmu.get("queue.data.entries", 0),
            "correct": bool(np.allclose(out, reference("sls", ins))), "wall_s": wall}


def mp_point(p: Point) -> dict[str, Any]:
    """MP on a shipped graph at ``-O level``: the DLC interpreter's queue traffic (MP does not
    lower to the TMU: its workspace loop uses core memory)."""
    from custard.ember.ops import reference, scf_text
    from custard.ember.pipeline import compile_module, run_module
    from formats.io import load_tensor

    a = load_tensor(p["graph"], "ds").to_scipy().tocsr()
    rng = np.random.default_rng(p["seed"])
    ins = {"ptrs": a.indptr.astype(np.int64), "idxs": a.indices.astype(np.int64),
           "vals": rng.uniform(-1, 1, a.nnz), "table": rng.uniform(-1, 1, (a.shape[0], p["emb"])),
           "tmp": np.zeros(p["emb"])}
    compiled = compile_module(scf_text("mp"), p["level"], p["vlen"])
    out, trace = run_module(compiled.dlc, ins)
    assert trace is not None
    return {"ctrl": len(trace["control"]), "data": len(trace["data"]),
            "vertices": a.shape[0], "edges": int(a.nnz),
            "correct": bool(np.allclose(out, reference("mp", ins)))}


def run(sweeper: Sweeper, *, quick: bool, engine: str, **_: Any) -> Outcome:
    cfg = QUICK if quick else FULL
    points = [{"rm": rm, "level": lvl, "table": t, "segments": s, "rows": r, "emb": e,
               "lookups": lk, "seed": 100 * k + t, "vlen": VLEN, "engine": engine}
              for k, (rm, (s, r, e, tables, lk)) in enumerate(cfg.items())
              for t in range(tables) for lvl in LEVELS]
    results = sweeper.run(point, points, "ember-opt")
    cycles: dict[tuple[str, int], int] = {}
    queues: dict[tuple[str, int], tuple[int, int]] = {}
    for p, r in zip(points, results, strict=True):
        key = (p["rm"], p["level"])
        cycles[key] = cycles.get(key, 0) + r["cycles"]
        c, d = queues.get(key, (0, 0))
        queues[key] = (c + r["ctrl"], d + r["data"])
    rms = list(cfg)
    rows: list[dict[str, Any]] = []
    for rm in rms:
        for lvl in LEVELS:
            rows.append({"series": f"emb-opt{lvl}", "x": rm, "cycles": cycles[(rm, lvl)],
                         "speedup": cycles[(rm, 0)] / cycles[(rm, lvl)],
                         "ctrl_tokens": queues[(rm, lvl)][0],
                         "data_entries": queues[(rm, lvl)][1]})
    speed = {rm: cycles[(rm, 0)] / cycles[(rm, 3)] for rm in rms}
    # the execute block's cost when it is the bottleneck: one cycle per token and per pop
    est_err = max(abs(r["ctrl"] + r["data"] - r["cycles"]) / r["cycles"] for r in results)
    mp_cfg = MP_QUICK if quick else MP_FULL
    mp_points = [{"graph": g, "level": lvl, "emb": mp_cfg["emb"], "vlen": VLEN, "seed": 7}
                 for g in mp_cfg["graphs"] for lvl in LEVELS]
    mp_results = sweeper.run(mp_point, mp_points, "ember-opt mp")
    mp = {(p["graph"], p["level"]): r for p, r in zip(mp_points, mp_results, strict=True)}
    graphs = list(mp_cfg["graphs"])
    for g in graphs:
        for lvl in LEVELS:
            r = mp[(g, lvl)]
            est = r["ctrl"] + r["data"]
            rows.append({"series": f"emb-opt{lvl} (MP, queue-traffic estimate)", "x": g,
                         "cycles": est, "speedup": (mp[(g, 0)]["ctrl"] + mp[(g, 0)]["data"])
                         / est, "ctrl_tokens": r["ctrl"], "data_entries": r["data"]})
    mp_est = {k: r["ctrl"] + r["data"] for k, r in mp.items()}
    claims = [
        Claim.check("8.1", "each optimization lowers the cycles: emb-opt0 > emb-opt1 > emb-opt2 "
                    "> emb-opt3 on RM1, RM2 and RM3",
                    "; ".join(f"{rm}: " + " > ".join(f"{cycles[(rm, lv)]:,}" for lv in LEVELS)
                              for rm in rms),
                    all(cycles[(rm, a)] > cycles[(rm, a + 1)] for rm in rms for a in (0, 1, 2))),
        Claim.check("8.1", "all optimizations combined (emb-opt3) achieve 6.6x, 12.1x and 21x "
                    "over emb-opt0 for RM1, RM2 and RM3: the speedup grows from RM1 to RM3",
                    ", ".join(f"{rm} {speed[rm]:.1f}x (paper {PAPER[rm]}x)" for rm in rms),
                    all(speed[a] < speed[b] for a, b in zip(rms, rms[1:], strict=False))),
        Claim.check("8.1", "vectorization is consistently the most impactful optimization",
                    "; ".join(f"{rm}: O1/O0 {cycles[(rm, 0)] / cycles[(rm, 1)]:.1f}x, O2/O1 "
                              f"{cycles[(rm, 1)] / cycles[(rm, 2)]:.2f}x, O3/O2 "
                              f"{cycles[(rm, 2)] / cycles[(rm, 3)]:.2f}x" for rm in rms),
                    all(cycles[(rm, 0)] / cycles[(rm, 1)] > max(
                        cycles[(rm, 1)] / cycles[(rm, 2)], cycles[(rm, 2)] / cycles[(rm, 3)])
                        for rm in rms)),
    ]
    wrong = [f"{p['rm']} O{p['level']} table {p['table']}"
             for p, r in zip(points, results, strict=True) if not r["correct"]]
    claims.append(Claim.check("-", "(every simulated result equals numpy's SLS)",
                              f"{len(points) - len(wrong)} of {len(points)} correct"
                              + (f"; wrong: {', '.join(wrong)}" if wrong else ""), not wrong))
    claims.append(Claim.check(
        "-", "(the execute block is the bottleneck: each simulation's cycles are its control "
        "tokens + data entries, the estimate used for MP, within 2%: the rest is the core "
        "waiting for the TMU at fiber boundaries)",
        f"largest difference {100 * est_err:.2f}%", est_err <= 0.02))
    claims.append(Claim.check(
        "8.1", "MP models have similar trends (estimated from the DLC interpreter's queue "
        "traffic: MP's core-side workspace does not lower to the TMU)",
        "; ".join(f"{g}: " + " > ".join(f"{mp_est[(g, lv)]:,}" for lv in LEVELS)
                  + f" ({mp_est[(g, 0)] / mp_est[(g, 3)]:.1f}x)" for g in graphs),
        all(mp_est[(g, 0)] > mp_est[(g, 1)] > mp_est[(g, 2)] > mp_est[(g, 3)]
            for g in graphs)))
    mp_wrong = [f"{p['graph']} O{p['level']}" for p, r in zip(mp_points, mp_results, strict=True)
                if not r["correct"]]
    claims.append(Claim.check("-", "(every interpreted MP result equals numpy's)",
                              f"{len(mp_points) - len(mp_wrong)} of {len(mp_points)} correct",
                              not mp_wrong))
    notes = [
        f"Each point: `custard ember --op sls -O<level> --vlen {VLEN}` lowered to a TMU graph "
        "(docs/ember.md) and simulated on one table; a core's cycles add its tables.",
        "Our timing model charges the execute block one cycle per control token and per popped "
        "entry and models no caches, so the core's queue traffic sets the cycles; the paper "
        "measured full-system gem5, hence larger absolute speedups here (vectorization alone "
        "divides the pops by the vector length).",
        f"MP: {', '.join(graphs)} (shipped matrices as graphs), {mp_cfg['emb']}-element "
        "vectors, random edge weights and vertex tables; MP does not lower to the TMU (its "
        "workspace loop reads and writes core memory, which the execute block's program cannot "
        "express), so its cycles are estimated as control tokens + data entries from the DLC "
        "interpreter (within 2% of the simulated cycles for SLS, claim above). MP's queue "
        "alignment only drops the vertex index of its workspace callback (one entry per "
        "vertex), so emb-opt3 gains little over emb-opt2 there.",
    ]
    if quick:
        notes.insert(0, "`--quick`: fewer segments, lookups and table rows than Table 3.")

    def draw(path: Any) -> None:
        _draw(path, rms, cycles, graphs, mp_est)

    return Outcome(TITLE, rows, claims, draw, notes,
                   ("speedup", "ctrl_tokens", "data_entries"))


def _draw(path: Any, rms: list[str], cycles: dict[tuple[str, int], int], graphs: list[str],
          mp_est: dict[tuple[str, int], int]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [*graphs, *rms]  # the paper's Figure 16 puts MP first, then the DLRMs
    cost = {**{(g, lv): mp_est[(g, lv)] for g in graphs for lv in LEVELS}, **cycles}
    fig, ax = plt.subplots(figsize=(8.5, 3.8))
    x = np.arange(len(names))
    width = 0.25
    colors = {1: "#9ecae1", 2: "#4292c6", 3: "#08519c"}
    for k, lvl in enumerate((1, 2, 3)):
        vals = [cost[(n, 0)] / cost[(n, lvl)] for n in names]
        bars = ax.bar(x + (k - 1) * width, vals, width, color=colors[lvl],
                      label=f"emb-opt{lvl}")
        ax.bar_label(bars, fmt="%.1f", fontsize=6)
    ax.set_xticks(x, [f"{n}\n(MP, est.)" if n in graphs else f"{n}\n(SLS)" for n in names],
                  fontsize=8)
    ax.set_ylabel("speedup over emb-opt0")
    ax.set_title("Ember optimizations (cf. Ember Fig. 16): MP estimated, SLS simulated")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
