"""Ragged tensors on SAM (CoRa, Fegade et al., MLSys 2022): ragged vs padded-dense vs
compressed storage, and the effect of loop and storage padding.

CoRa computes on batches of sequences of different lengths without padding them to the longest
(its Sec. 7 uses the lengths of RACE, MNLI, CoLA, ...). Here each data set is a batch of
synthetic lengths with the paper's min/mean/max (RACE 80/364/512, MNLI 9/43/128, CoLA
6/13/37), and each storage runs the element-wise product ``X(b,i) = A(b,i) * B(b,i)`` of two
batches (the body of a transformer's element-wise layers) on SAM:

* ``ragged``: ``dr`` levels sharing one raggedness (one scanner drives both operands, no
  intersecter; the output is written ragged);
* ``ragged fused``: the ragged loops fused with the batch loop (CoRa's vloop fusion,
  :func:`formats.ragged.fuse`): one dense level over all stored positions;
* ``padded dense``: ``dd``, every sequence padded to the batch's longest (what dense
  frameworks do);
* ``compressed``: ``ds`` (CSR-like: explicit coordinates, operands co-iterated by an
  intersecter).

Memory words = level arrays (:func:`formats.ragged.aux_words`: ``seg``, ``crd``, ``lens``;
one shared raggedness counted once) + value arrays, of both operands and the result. Then
the padding study: the ragged kernel with loop padding ``pad`` and storage padding ``spad``.
Also the triangular matmul ``trmm`` (CoRa Sec. 7.3) with L stored ragged, dense and
compressed, and the attention block of a transformer (a program of five graphs) on ragged vs
padded sequences. Every run is checked against numpy.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from custard.reproduce.common import Claim, Outcome, ReproduceError
from custard.sweeps.sweep import Point, Sweeper

TITLE = "Ragged tensors (CoRa): ragged vs padded dense vs compressed, loop/storage padding"
#: data set -> (min, mean, max) sequence length (CoRa Table 3)
DATASETS = {"RACE": (80, 364, 512), "MNLI": (9, 43, 128), "CoLA": (6, 13, 37)}
STORAGES = ("ragged", "ragged fused", "padded dense", "compressed")
BATCH, QUICK_BATCH = 64, 16
PADS = ((1, 1), (2, 2), (4, 4), (8, 8), (16, 16), (32, 32), (1, 8), (1, 32), (4, 32))
QUICK_PADS = ((1, 1), (4, 4), (1, 8))
TRMM_N, QUICK_TRMM_N, TRMM_M = 64, 24, 8
#: attention: data sets, batch, feature width (RACE's 512 x 512 scores are left out: minutes)
ATTN_SETS, QUICK_ATTN_SETS, ATTN_BATCH, ATTN_D = ("CoLA", "MNLI"), ("CoLA",), 8, 4


def lengths(dataset: str, batch: int, seed: int = 0) -> list[int]:
    """``batch`` synthetic lengths with the data set's min and max and (to rounding) its mean:
    a Beta distribution between min and max whose mean is the data set's, one sequence forced
    to each bound, then shifted one step at a time towards the mean."""
    import numpy as np

    lo, mean, hi = DATASETS[dataset]
    rng = np.random.default_rng(seed)
    f = (mean - lo) / (hi - lo)
    a = 2.0
    x = lo + (hi - lo) * rng.beta(a, a * (1 - f) / f, batch)
    out = np.clip(np.rint(x), lo, hi).astype(int)
    out[0], out[1] = lo, hi
    want = round(mean * batch)
    k = 2
    while out.sum() != want and k < 10 * batch * (hi - lo):
        j = 2 + k % (batch - 2)
        step = 1 if out.sum() < want else -1
        if lo <= out[j] + step <= hi:
            out[j] += step
        k += 1
    return [int(v) for v in out]


def _rows(lens: list[int], seed: int) -> list[Any]:
    import numpy as np

    rng = np.random.default_rng(seed)
    return [rng.integers(1, 10, n).astype(float) for n in lens]


def _storage_tensors(storage: str, lens: list[int], pad: int, spad: int) -> tuple[Any, Any]:
    from formats.ragged import fuse
    from formats.tensor import Tensor

    a = Tensor.from_ragged(_rows(lens, 1), pad=pad, spad=spad, name="A")
    b = Tensor.from_ragged(_rows(lens, 2), like=a, name="B")
    if storage == "ragged":
        return a, b
    if storage == "ragged fused":
        return fuse(a), fuse(b)
    if storage == "padded dense":
        return a.with_format("dd"), b.with_format("dd")
    return a.with_format("ds"), b.with_format("ds")


def _graph(storage: str) -> Any:
    from custard.api import compile as compile_expr

    if storage == "ragged":
        return compile_expr("X(b,i)=A(b,i)*B(b,i)", {"A": "dr", "B": "dr", "X": "dr"}, "b,i",
                            shared="A,B")
    if storage == "ragged fused":
        return compile_expr("X(p)=A(p)*B(p)", {"A": "d", "B": "d", "X": "d"}, "p")
    fmt = "dd" if storage == "padded dense" else "ds"
    return compile_expr("X(b,i)=A(b,i)*B(b,i)", {"A": fmt, "B": fmt, "X": fmt}, "b,i")


def elementwise_point(p: Point) -> dict[str, Any]:
    """One data set, storage and padding: cycles and memory words of ``X = A * B``."""
    import numpy as np

    from formats.ragged import aux_words
    from sam.sim.engine import simulate

    lens = lengths(p["dataset"], p["batch"], p["seed"])
    a, b = _storage_tensors(p["storage"], lens, p["pad"], p["spad"])
    res = simulate(_graph(p["storage"]), {"A": a, "B": b}, engine=p["engine"])
    x = res.outputs["X"]
    if not np.array_equal(x.to_dense(), a.to_dense() * b.to_dense()):
        raise ReproduceError(f"ragged experiment: {p['storage']} X=A*B differs from numpy (a bug)")
    aux = aux_words([a, b]) + aux_words([x])
    vals = len(a.vals) + len(b.vals) + len(x.vals)
    return {"cycles": res.cycles, "aux_words": aux, "value_words": vals,
            "words": aux + vals, "elements": int(sum(lens)),
            "min": min(lens), "mean": statistics.fmean(lens), "max": max(lens)}


def trmm_point(p: Point) -> dict[str, Any]:
    """``C = L B`` with lower-triangular L (n x n) stored ragged, dense or compressed."""
    import numpy as np

    from custard.ragged_suite import KERNELS
    from formats.ragged import aux_words
    from formats.tensor import Tensor
    from sam.sim.engine import simulate

    n, m = p["n"], p["m"]
    rng = np.random.default_rng(p["seed"])
    low = Tensor.from_ragged([rng.integers(1, 5, i + 1).astype(float) for i in range(n)],
                             name="L")
    dense = Tensor.from_dense(rng.integers(1, 5, (n, m)).astype(float), "dd")
    kern = KERNELS["trmm"]
    fmt = {"ragged": "dr", "padded dense": "dd", "compressed": "ds"}[p["storage"]]
    formats = dict(kern.formats, L=fmt)
    from custard.api import compile as compile_expr

    graph = compile_expr(kern.expression, formats, kern.order)
    tensor = low if fmt == "dr" else low.with_format(fmt)
    res = simulate(graph, {"L": tensor, "B": dense}, engine=p["engine"])
    if not np.array_equal(res.outputs["C"].to_dense(), low.to_dense() @ dense.to_dense()):
        raise ReproduceError("ragged experiment: trmm differs from numpy (a bug)")
    return {"cycles": res.cycles, "words": aux_words([tensor]) + len(tensor.vals)}


def attention_point(p: Point) -> dict[str, Any]:
    """The attention program (:func:`custard.ragged_suite.attention`) on a batch: ragged, or
    every sequence padded to the batch's longest (the same program on full-length sequences:
    padded dense work, the mask's cost not counted)."""
    import numpy as np

    from custard.ragged_suite import attention, attention_reference, sequences
    from formats.ragged import aux_words
    from formats.tensor import Tensor

    lens = lengths(p["dataset"], p["batch"], p["seed"])
    if p["storage"] == "padded dense":
        lens = [max(lens)] * len(lens)
    rng = np.random.default_rng(p["seed"])
    d = p["d"]
    qs, ks, vs = (sequences(lens, d, rng) for _ in range(3))
    q = Tensor.from_ragged(qs, "drd", name="Q")
    tensors = {"Q": q, "K": Tensor.from_ragged(ks, "drd", like=q, name="K"),
               "V": Tensor.from_ragged(vs, "drd", like=q, name="V")}
    res = attention(d).run(tensors, engine=p["engine"])
    out = res.outputs["O"].to_ragged()
    for got, want in zip(out, attention_reference(qs, ks, vs), strict=True):
        if not np.allclose(np.asarray(got, dtype=float).reshape(-1, d), want):
            raise ReproduceError("ragged experiment: attention differs from numpy (a bug)")
    every = list(tensors.values()) + list(res.written.values())
    return {"cycles": res.cycles, "phase_cycles": res.phase_cycles,
            "words": aux_words(every) + sum(len(t.vals) for t in every)}


def run(sweeper: Sweeper, *, quick: bool, engine: str, **_: Any) -> Outcome:
    batch = QUICK_BATCH if quick else BATCH
    pads = QUICK_PADS if quick else PADS
    base = [{"dataset": d, "storage": s, "pad": 1, "spad": 1, "batch": batch, "seed": 0,
             "engine": engine} for d in DATASETS for s in STORAGES]
    padded = [{"dataset": d, "storage": "ragged", "pad": pd, "spad": sp, "batch": batch,
               "seed": 0, "engine": engine} for d in DATASETS for pd, sp in pads
              if (pd, sp) != (1, 1)]
    res = sweeper.run(elementwise_point, base + padded, "ragged")
    by = {(p["dataset"], p["storage"], p["pad"], p["spad"]): r
          for p, r in zip(base + padded, res, strict=True)}
    n = QUICK_TRMM_N if quick else TRMM_N
    tpoints = [{"storage": s, "n": n, "m": TRMM_M, "seed": 0, "engine": engine}
               for s in ("ragged", "padded dense", "compressed")]
    tres = dict(zip((p["storage"] for p in tpoints), sweeper.run(trmm_point, tpoints, "trmm"),
                    strict=True))

    asets = QUICK_ATTN_SETS if quick else ATTN_SETS
    apoints = [{"dataset": d, "storage": s, "batch": ATTN_BATCH, "d": ATTN_D, "seed": 0,
                "engine": engine} for d in asets for s in ("ragged", "padded dense")]
    ares = {(p["dataset"], p["storage"]): r
            for p, r in zip(apoints, sweeper.run(attention_point, apoints, "attention"),
                            strict=True)}

    rows: list[dict[str, Any]] = []
    for (d, s), r in ares.items():
        rows.append({"series": f"attention {s}", "x": d, "cycles": r["cycles"],
                     "words": r["words"], "batch": ATTN_BATCH})
    for (d, s, pd, sp), r in by.items():
        series = s if (pd, sp) == (1, 1) else f"ragged pad={pd} spad={sp}"
        rows.append({"series": series, "x": d, "cycles": r["cycles"], "words": r["words"],
                     "aux_words": r["aux_words"], "value_words": r["value_words"],
                     "pad": pd, "spad": sp, "elements": r["elements"], "min": r["min"],
                     "mean": f"{r['mean']:.1f}", "max": r["max"], "batch": batch})
    for s, r in tres.items():
        rows.append({"series": f"trmm {s}", "x": f"n={n}", "cycles": r["cycles"],
                     "words": r["words"]})

    claims = _claims(by, tres, pads)
    for d in asets:
        r, pd = ares[(d, "ragged")], ares[(d, "padded dense")]
        claims.append(Claim.check(
            "CoRa 7.2", f"{d}: the attention block (5 graphs: QK^T, exp, row sum, divide, PV) "
            "on ragged sequences takes fewer cycles and words than on padded ones",
            f"cycles {r['cycles']} vs {pd['cycles']} ({pd['cycles'] / r['cycles']:.2f}x); "
            f"words {r['words']} vs {pd['words']}",
            r["cycles"] < pd["cycles"] and r["words"] < pd["words"]))
    notes = [
        f"Batches of {batch} synthetic lengths per data set (seed 0; min and max exact, mean "
        "to rounding): " + "; ".join(
            f"{d} {by[(d, 'ragged', 1, 1)]['min']}/{by[(d, 'ragged', 1, 1)]['mean']:.1f}/"
            f"{by[(d, 'ragged', 1, 1)]['max']}" for d in DATASETS) + ".",
        "Kernel X(b,i)=A(b,i)*B(b,i); memory words = level arrays + values of A, B and X "
        "(a shared raggedness counted once for A and B; X has its own seg).",
        "Loop padding adds coordinates (zeros) to every fiber: in SAM's one-token-per-cycle "
        "model it only costs cycles; CoRa pads loops to vectorise and unroll on CPUs/GPUs, "
        "which has no counterpart here. Storage padding (spad > pad) costs words only: "
        "value slots and a lens array.",
        f"trmm: C(i,j)=L(i,k)*B(k,j), L lower triangular {n}x{n}, B dense {n}x{TRMM_M}.",
        f"Attention: batches of {ATTN_BATCH} ({', '.join(asets)}), feature width {ATTN_D}, "
        "checked against numpy; 'padded dense' runs the same program on sequences all padded "
        "to the longest (the work a padded implementation does; its mask is not counted). "
        "Words: every tensor read or written, one raggedness shared by Q, K and V.",
    ]

    def draw(path: Path) -> None:
        _draw(path, by, tres, pads)

    return Outcome(TITLE, rows, claims, draw, notes,
                   ("words", "aux_words", "value_words", "pad", "spad", "elements"))


def _claims(by: dict, tres: dict, pads: tuple) -> list[Claim]:
    claims = []
    for d in DATASETS:
        r, pd, c = (by[(d, s, 1, 1)] for s in ("ragged", "padded dense", "compressed"))
        claims.append(Claim.check(
            "CoRa 7", f"{d}: ragged storage takes fewer cycles and fewer memory words than "
            "padded dense", f"cycles {r['cycles']} vs {pd['cycles']} "
            f"({pd['cycles'] / r['cycles']:.2f}x); words {r['words']} vs {pd['words']} "
            f"({pd['words'] / r['words']:.2f}x)",
            r["cycles"] < pd["cycles"] and r["words"] < pd["words"]))
        claims.append(Claim.check(
            "CoRa 2", f"{d}: the compressed (CSR-like) form needs more memory than ragged "
            "(it stores every coordinate)", f"words {c['words']} vs {r['words']} "
            f"(aux {c['aux_words']} vs {r['aux_words']}); cycles {c['cycles']} vs "
            f"{r['cycles']}", c["words"] > r["words"]))
        f = by[(d, "ragged fused", 1, 1)]
        claims.append(Claim.check(
            "CoRa 5", f"{d}: fusing the ragged loop with the batch loop saves cycles (no "
            "stop token per sequence)", f"cycles {f['cycles']} vs {r['cycles']}",
            f["cycles"] < r["cycles"]))
        loops = [(pd_, by[(d, "ragged", pd_, sp)]["cycles"]) for pd_, sp in pads if pd_ == sp]
        claims.append(Claim.check(
            "CoRa 6", f"{d}: loop padding adds iterations (cycles never fall as pad grows)",
            ", ".join(f"pad={p_}: {c_}" for p_, c_ in loops),
            all(x[1] <= y[1] for x, y in zip(loops, loops[1:], strict=False))))
        spads = [(sp, by[(d, "ragged", 1, sp)]) for pd_, sp in pads if pd_ == 1]
        claims.append(Claim.check(
            "CoRa 6", f"{d}: storage padding alone (pad=1) costs memory, not cycles",
            ", ".join(f"spad={s_}: {x['cycles']} cycles, {x['words']} words" for s_, x in spads),
            all(x["cycles"] == spads[0][1]["cycles"] for _, x in spads)
            and all(a[1]["words"] <= b[1]["words"] for a, b in zip(spads, spads[1:],
                                                                    strict=False))))
    r, pd = tres["ragged"], tres["padded dense"]
    claims.append(Claim.check(
        "CoRa 7.3", "trmm: a ragged lower-triangular L takes fewer cycles and words than a "
        "dense L", f"cycles {r['cycles']} vs {pd['cycles']}; words {r['words']} vs "
        f"{pd['words']}", r["cycles"] < pd["cycles"] and r["words"] < pd["words"]))
    c = tres["compressed"]
    claims.append(Claim.check(
        "CoRa 7.3", "trmm: a ragged L needs fewer words than a compressed (CSR) L "
        "(CoRa reports TACO's sparse trmm 1.33-95x slower; cycles here are shown, not "
        "claimed)", f"words {r['words']} vs {c['words']}; cycles {r['cycles']} vs "
        f"{c['cycles']}", r["words"] < c["words"]))
    return claims


def _draw(path: Path, by: dict, tres: dict, pads: tuple) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    names = list(DATASETS)
    width = 0.2
    for k, s in enumerate(STORAGES):
        xs = [i + (k - 1.5) * width for i in range(len(names))]
        axes[0].bar(xs, [by[(d, s, 1, 1)]["cycles"] for d in names], width, label=s)
        axes[1].bar(xs, [by[(d, s, 1, 1)]["words"] for d in names], width, label=s)
    for ax, what in ((axes[0], "cycles"), (axes[1], "memory words")):
        ax.set_xticks(range(len(names)), names)
        ax.set_yscale("log")
        ax.set_ylabel(what)
        ax.set_title(f"X = A * B on a batch: {what}")
    axes[0].legend(fontsize=8)
    for d in names:
        loops = [(p, by[(d, "ragged", p, s)]) for p, s in pads if p == s]
        base = by[(d, "ragged", 1, 1)]
        axes[2].plot([p for p, _ in loops], [r["cycles"] / base["cycles"] for _, r in loops],
                     "o-", label=f"{d} cycles (pad = spad)")
        sp = [(s, by[(d, "ragged", 1, s)]) for p, s in pads if p == 1]
        axes[2].plot([s for s, _ in sp], [r["words"] / base["words"] for _, r in sp], "s--",
                     label=f"{d} words (pad=1, spad)")
    axes[2].set_xscale("log", base=2)
    axes[2].set_xlabel("padding multiple")
    axes[2].set_ylabel("relative to no padding")
    axes[2].set_title("loop and storage padding (ragged)")
    axes[2].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
