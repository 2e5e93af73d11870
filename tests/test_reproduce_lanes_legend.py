"""lanes.png (``sam-sim reproduce lanes``): the legend names every curve of both panels, and
no two SpMV matrices share a colour and marker (drawn from made-up rows; no simulation)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import pytest

from custard.reproduce.lanes import LANES, lanes_figure


def _rows(spmv: int) -> list[dict[str, Any]]:
    series = ["spgemm-bcsstk13", *(f"spmv-m{k}" for k in range(spmv))]
    return [{"series": s, "x": n, "speedup": n / (1 + j / 10), "imbalance": 1 + j * n / 100}
            for j, s in enumerate(series) for n in LANES]


@pytest.mark.parametrize("spmv", [2, 21, 40])
def test_the_legend_names_every_curve(spmv: int) -> None:
    fig = lanes_figure(_rows(spmv), LANES)
    try:
        ax1, ax2 = fig.axes
        (legend,) = fig.legends
        shown = [t.get_text() for t in legend.get_texts()]
        handles, labels = ax1.get_legend_handles_labels()
        assert len(handles) == len(ax1.get_lines()) == spmv + 3  # SpM*SpM, SpMVs, 2 guides
        assert shown == labels
        assert len(set(shown)) == len(shown)
        assert shown[:2] == ["SpM*SpM bcsstk13", "SpMV m0"]
        assert shown[-2:] == ["ideal (n)", "claimed (0.7 n)"]
        assert {f"SpMV m{k}" for k in range(spmv)} <= set(shown)
        _, right = ax2.get_legend_handles_labels()
        assert len(right) == len(ax2.get_lines()) == spmv + 1
        assert set(right) <= set(shown)
        for a, b in zip(ax1.get_lines(), ax2.get_lines(), strict=False):
            assert (a.get_label(), a.get_color(), a.get_marker()) == \
                (b.get_label(), b.get_color(), b.get_marker())
        styles = [(str(line.get_color()), line.get_marker()) for line in ax1.get_lines()[:-2]]
        assert len(set(styles)) == len(styles)
    finally:
        plt.close(fig)
