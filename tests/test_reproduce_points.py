"""One point of an experiment that only ``reproduce all --quick`` (a slow test) runs, on the
quick sizes: Figure 12's SpM*SpM (an inner-product order against Gustavson's). Ember's
``ember-opt`` points: tests/test_reproduce_ember_opt.py."""

from __future__ import annotations

from custard.reproduce import fig12


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
