"""The block activity timeline (:mod:`sam.plot`): heat rows of busy share per bucket when a
report has ``activity``, first-to-last bars otherwise; both with a legend of the families.

The ``activity`` here is synthetic (:func:`synthetic_activity`): each block's busy, idle and
stalled cycles spread evenly over the buckets its first-to-last span touches, so the sums are
exact and the tests do not depend on the recorder."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import matplotlib.image
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats.errors import ToolkitError
from sam.cli import main as sam_main
from sam.plot import heat_rows, plot_report, plot_timeline, timeline_figure
from sam.style import FAMILY_NAMES

ROOT = Path(__file__).resolve().parent.parent
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _spread(total: int, first: int, last: int, count: int) -> list[int]:
    """``total`` split evenly over buckets ``first..last`` (whole numbers)."""
    out = [0] * count
    n = last - first + 1
    for k in range(n):
        out[first + k] = total * (k + 1) // n - total * k // n
    return out


def synthetic_activity(report: dict[str, Any], buckets: int = 16) -> dict[str, Any]:
    """An ``activity`` dict for ``report``: every block's counts spread over its span."""
    cycles = max(int(report["cycles"]), 1)
    width = -(-cycles // buckets)
    blocks = {}
    for b in report["blocks"]:
        first = min(b["started"] // width, buckets - 1)
        last = min(max(b["finished"] - 1, b["started"]) // width, buckets - 1)
        tokens = sum(b["tokens_out"].values()) if isinstance(b["tokens_out"], dict) else 0
        blocks[b["id"]] = {key: _spread(int(value), first, last, buckets) for key, value in
                           (("busy", b["busy"]), ("idle", b["idle"]),
                            ("stalled", b["stalled"]), ("tokens", tokens))}
    return {"bucket_cycles": width, "buckets": buckets, "resolution_cycles": width,
            "blocks": blocks}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real report: SpMV on west0067 (reference engine)."""
    path = tmp_path_factory.mktemp("timeline") / "report.json"
    assert sam_main(["run", str(ROOT / "dot_graphs" / "mat_vecmul_ij.gv"), "-t", "B=west0067",
                     "-t", "c=random:0.5", "--engine", "reference", "--report",
                     str(path)]) == 0
    return json.loads(path.read_text())


def _with_activity(report: dict[str, Any], buckets: int = 16) -> dict[str, Any]:
    rep = copy.deepcopy(report)
    rep["activity"] = synthetic_activity(rep, buckets)
    return rep


def _legend_texts(fig: Any) -> list[str]:
    return [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


def test_heat_rows_sum_to_each_blocks_busy(report: dict[str, Any]) -> None:
    rep = _with_activity(report)
    blocks, busy, widths = heat_rows(rep)
    assert [b["id"] for b in blocks] == [b["id"] for b in report["blocks"] if b["busy"] > 0]
    assert busy.shape == (len(blocks), 16)
    assert busy.sum(axis=1).tolist() == [b["busy"] for b in blocks]
    assert int(widths.sum()) == report["cycles"]
    assert widths[:-1].tolist() == [rep["activity"]["bucket_cycles"]] * 15


def test_heat_image_is_the_busy_share_with_a_colour_bar_and_family_legend(
        report: dict[str, Any]) -> None:
    import matplotlib.pyplot as plt

    rep = _with_activity(report)
    blocks, busy, widths = heat_rows(rep)
    fig = timeline_figure(rep)
    try:
        ax, bar = fig.axes
        assert bar.get_ylabel() == "busy %"
        image = np.asarray(ax.images[0].get_array())
        np.testing.assert_allclose(image, np.minimum(100.0 * busy / widths, 100.0))
        assert image.max() <= 100.0 and image.min() >= 0.0
        texts = _legend_texts(fig)
        families = {b["family"] for b in report["blocks"] if b["busy"] > 0}
        assert families == {"scan", "repeat", "merge", "array", "drop", "compute", "write",
                            "reduce"}
        assert sorted(texts) == sorted(f"{f}: {FAMILY_NAMES[f]}" for f in families)
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert labels == [f"{b['id']} {b['label']}" for b in blocks]
        assert "darker" not in ax.get_xlabel()
    finally:
        plt.close(fig)


def test_without_activity_bars_with_families_and_shading_in_the_legend(
        report: dict[str, Any]) -> None:
    import matplotlib.pyplot as plt

    report = {k: v for k, v in report.items() if k != "activity"}  # an older report
    fig = timeline_figure(report)
    try:
        ax = fig.axes[0]
        assert len(fig.axes) == 1 and not ax.images
        drawn = [b for b in report["blocks"] if b["busy"] > 0]
        assert len(ax.patches) == len(drawn)
        for bar, b in zip(ax.patches, drawn, strict=True):
            assert bar.get_x() == b["started"]
            assert bar.get_width() == max(b["finished"] - b["started"], 1)
        texts = _legend_texts(fig)
        for f in {b["family"] for b in drawn}:
            assert f"{f}: {FAMILY_NAMES[f]}" in texts
        assert any("first to last firing" in t for t in texts)
        assert any("busy every cycle" in t for t in texts)
        assert ax.get_xlabel() == "cycle"
    finally:
        plt.close(fig)


@pytest.mark.parametrize("activity", [True, False])
def test_plot_report_writes_both_pictures(report: dict[str, Any], tmp_path: Path,
                                          activity: bool) -> None:
    rep = _with_activity(report) if activity else report
    written = plot_report(rep, tmp_path / "tokens.png")
    assert written == [tmp_path / "tokens.png", tmp_path / "tokens-timeline.png"]
    for path in written:
        assert path.read_bytes()[:8] == PNG_MAGIC
    pixels = matplotlib.image.imread(written[1])
    colours = np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0)
    assert len(colours) > 20


def test_a_block_busy_every_cycle_is_at_100_percent(tmp_path: Path) -> None:
    """A partial last bucket is measured against its own width, not the bucket's."""
    rep = {"cycles": 25, "blocks": [
        {"id": "a", "label": "always", "family": "scan", "busy": 25, "started": 0,
         "finished": 25},
        {"id": "b", "label": "half", "family": "merge", "busy": 5, "started": 0,
         "finished": 20}],
        "activity": {"bucket_cycles": 10, "buckets": 3, "resolution_cycles": 10, "blocks": {
            "a": {"busy": [10, 10, 5]}, "b": {"busy": [5, 0, 0]}}}}
    blocks, busy, widths = heat_rows(rep)
    assert widths.tolist() == [10, 10, 5]
    assert (100.0 * busy / widths).tolist() == [[100, 100, 100], [50, 0, 0]]
    plot_timeline(rep, tmp_path / "t.png")
    assert (tmp_path / "t.png").read_bytes()[:8] == PNG_MAGIC


def test_malformed_activity_is_one_line(report: dict[str, Any]) -> None:
    rep = _with_activity(report)
    first = report["blocks"][0]["id"]
    rep["activity"]["blocks"][first]["busy"] = [1, 2]
    with pytest.raises(ToolkitError, match=f"block {first}: 2 busy buckets; expected 16"):
        heat_rows(rep)
    rep["activity"]["bucket_cycles"] = 0
    with pytest.raises(ToolkitError, match="0 cycles"):
        heat_rows(rep)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 64), st.lists(st.tuples(st.integers(0, 500), st.integers(0, 500),
                                              st.integers(0, 500)), min_size=1, max_size=6))
def test_heat_rows_of_random_reports(buckets: int,
                                     spans: list[tuple[int, int, int]]) -> None:
    blocks = []
    for k, (a, b, busy) in enumerate(spans):
        start, end = min(a, b), max(a, b) + 1
        blocks.append({"id": str(k), "label": f"b{k}", "family": "scan", "started": start,
                       "finished": end, "busy": min(busy, end - start), "idle": 0,
                       "stalled": 0, "tokens_out": {}})
    rep = {"cycles": max(b["finished"] for b in blocks), "blocks": blocks}
    rep["activity"] = synthetic_activity(rep, buckets)
    drawn, busy, widths = heat_rows(rep)
    assert [b["id"] for b in drawn] == [b["id"] for b in blocks if b["busy"] > 0]
    assert busy.sum(axis=1).tolist() == [b["busy"] for b in drawn]
    assert widths.min() >= 1 and widths.max() <= rep["activity"]["bucket_cycles"]


@pytest.mark.parametrize("activity", [True, False])
def test_a_run_where_no_block_fired_still_draws(tmp_path: Path, activity: bool) -> None:
    rep: dict[str, Any] = {"cycles": 0, "blocks": [
        {"id": "a", "label": "idle", "family": "scan", "busy": 0, "started": 0, "finished": 0}]}
    if activity:
        rep["activity"] = {"bucket_cycles": 1, "buckets": 2, "resolution_cycles": 1,
                           "blocks": {"a": {"busy": [0, 0]}}}
    plot_timeline(rep, tmp_path / "t.png")
    assert (tmp_path / "t.png").read_bytes()[:8] == PNG_MAGIC


def test_more_buckets_than_columns_are_merged(report: dict[str, Any]) -> None:
    """1030 buckets -> groups of 3 (the last of one bucket), each the busy share of the
    cycles of its buckets."""
    import matplotlib.pyplot as plt

    from sam.plot import MAX_COLUMNS

    rep = _with_activity(report, 1030)
    blocks, busy, widths = heat_rows(rep)
    assert busy.sum(axis=1).tolist() == [b["busy"] for b in blocks]
    fig = timeline_figure(rep)
    try:
        image = np.asarray(fig.axes[0].images[0].get_array())
        assert image.shape == (len(blocks), 344) and image.shape[1] <= MAX_COLUMNS
        merged = np.add.reduceat(busy, np.arange(0, 1030, 3), axis=1)
        cycles = np.add.reduceat(widths, np.arange(0, 1030, 3))
        np.testing.assert_allclose(image, np.minimum(100.0 * merged / cycles, 100.0))
        assert "each column: 9 cycles" in fig.axes[0].get_xlabel()
    finally:
        plt.close(fig)
