"""One point of each experiment that only ``reproduce all --quick`` (a slow test) runs, on the
quick sizes: Figure 12's SpM*SpM (an inner-product order against Gustavson's) and the Ember
SLS kernel without and with every optimization (Ember paper Sec. 8.1)."""

from __future__ import annotations

from custard.reproduce import ember_opt, fig12


def test_fig12_gustavson_beats_the_inner_product_order() -> None:
    q = fig12.QUICK
    run = {o: fig12.point({"order": o, "sparsity": q["sparsity"], "shape_b": q["shape_b"],
                           "shape_c": q["shape_c"], "engine": "reference"})
           for o in ("ijk", "ikj")}
    assert all(r["correct"] for r in run.values())
    assert run["ijk"]["nnz_b"] == run["ikj"]["nnz_b"] == 71
    assert (run["ijk"]["cycles"], run["ikj"]["cycles"]) == (5080, 636)
    assert fig12.formats_for("ikj") == {"X": "ss", "B": "ss", "C": "ss"}
    assert fig12.formats_for("kij") == {"X": "ss", "B": "ss:1,0", "C": "ss"}


def test_ember_optimizations_cut_sls_cycles_and_queue_traffic() -> None:
    segments, rows, emb, _, lookups = ember_opt.QUICK["RM1"]
    out = {level: ember_opt.point({"rm": "RM1", "level": level, "table": 0, "seed": 0,
                                   "segments": segments, "rows": rows, "emb": emb,
                                   "lookups": lookups, "vlen": ember_opt.VLEN,
                                   "engine": "reference"})
           for level in (0, 3)}
    assert out[0]["correct"] and out[3]["correct"]
    assert (out[0]["cycles"], out[3]["cycles"]) == (8194, 334)
    assert (out[0]["ctrl"], out[0]["data"]) == (2049, 6144)
    assert (out[3]["ctrl"], out[3]["data"]) == (73, 256)
