"""Pictures of a simulation report: stream token breakdowns and a block activity timeline.

* **Token breakdown** (SAM paper Figure 14): for each chosen stream, the share of the run's
  cycles in which it carried a data, stop, empty or done token, or nothing (idle).
* **Activity timeline** (:func:`plot_timeline`): with the report's ``activity`` (the run's
  cycles cut into equal buckets, each block's busy cycles per bucket), one heat row per block:
  its busy share of each bucket, a colour bar "busy %", row labels on their family's colour and
  a legend of the families. A report without ``activity`` gets one bar per block from its
  first to its last firing, shaded by its busy share of that span, with the same legend and
  the shading explained in it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from formats.atomic import atomic_path
from formats.errors import ToolkitError
from sam.runtime.tokens import KIND_NAMES
from sam.style import FAMILY_COLORS, FAMILY_NAMES

#: the timeline's most columns: more buckets than this are merged in groups
MAX_COLUMNS = 512

KIND_COLORS = {"data": "#1f77b4", "stop": "#ff7f0e", "empty": "#9467bd", "done": "#d62728",
               "idle": "#dddddd"}


def _streams(report: Mapping[str, Any], wanted: Sequence[str] | None) -> list[dict[str, Any]]:
    """One entry per producing port (fan-out copies carry the same tokens)."""
    labels = {b["id"]: b for b in report["blocks"]}
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for s in report["streams"]:
        seen.setdefault((s["src"], s["src_port"]), s)
    chosen = []
    for (src, port), s in seen.items():
        if wanted:
            if not any(w == src or w == f"{src}:{port}" for w in wanted):
                continue
        elif not (labels.get(src, {}).get("family") == "scan" and s["kind"] == "crd"):
            continue
        chosen.append(s)
    if not chosen:
        known = ", ".join(sorted({f"{s['src']}:{s['src_port']}" for s in seen.values()}))
        raise ToolkitError(f"no stream matches {list(wanted or ['scanner outputs'])}; streams "
                           f"in the report: {known}")
    return chosen


def plot_report(report: Mapping[str, Any], output: str | Path,
                streams: Sequence[str] | None = None, timeline: str | Path | None = None
                ) -> list[Path]:
    """Write the token breakdown to ``output`` and the timeline beside it; return the paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(output)
    if out.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise ToolkitError(f"{output}: write a .png, .svg or .pdf picture")
    cycles = max(int(report["cycles"]), 1)
    labels = {b["id"]: b["label"] for b in report["blocks"]}
    chosen = _streams(report, streams)

    fig, ax = plt.subplots(figsize=(8, 0.5 * len(chosen) + 1.6))
    names = []
    for row, s in enumerate(chosen):
        counts = {k: s["tokens"].get(k, 0) for k in KIND_NAMES}
        counts["idle"] = max(cycles - sum(counts.values()), 0)
        left = 0.0
        for kind in [*KIND_NAMES, "idle"]:
            share = 100.0 * counts[kind] / max(sum(counts.values()), 1)
            ax.barh(row, share, left=left, color=KIND_COLORS[kind],
                    label=kind if row == 0 else None)
            left += share
        names.append(f"{labels.get(s['src'], s['src'])} [{s['src_port']}]")
    ax.set_yticks(range(len(chosen)), names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel(f"share of {cycles:,} cycles (%)")
    ax.set_title("Stream token breakdown (cf. SAM paper Fig. 14)")
    ax.legend(ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.25), fontsize=8, frameon=False)
    fig.tight_layout()
    with atomic_path(out) as temp:
        fig.savefig(temp)
    plt.close(fig)

    tl = Path(timeline) if timeline else out.with_name(f"{out.stem}-timeline{out.suffix}")
    with atomic_path(tl) as temp:
        plot_timeline(report, temp)
    return [out, tl]


def heat_rows(report: Mapping[str, Any]) -> tuple[list[dict[str, Any]], Any, Any]:
    """The timeline's heat matrix from a report's ``activity``: the blocks drawn (those with
    an activity entry and some busy cycle, in report order), their busy cycles per bucket
    (one row per block; a row sums to the block's ``busy`` when the recorder saw every
    firing) and each bucket's width in cycles (the last bucket may end at the run's end)."""
    import numpy as np

    act = report["activity"]
    width, count = int(act["bucket_cycles"]), int(act["buckets"])
    if width <= 0 or count <= 0:
        raise ToolkitError(f"report activity: {count} buckets of {width} cycles; expected "
                           "positive numbers")
    series = act["blocks"]
    blocks, rows = [], []
    for b in report["blocks"]:
        entry = series.get(b["id"])
        if entry is None:
            continue
        busy = np.asarray(entry["busy"], dtype=np.int64)
        if busy.shape != (count,):
            raise ToolkitError(f"report activity of block {b['id']}: {busy.size} busy "
                               f"buckets; expected {count}")
        if busy.sum() > 0:
            blocks.append(b)
            rows.append(busy)
    matrix = np.vstack(rows) if rows else np.zeros((0, count), dtype=np.int64)
    starts = np.arange(count, dtype=np.int64) * width
    widths = np.clip(max(int(report["cycles"]), 1) - starts, 1, width)
    return blocks, matrix, widths


def _family_legend(ax: Any, families: Sequence[str], extra: Sequence[Any] = (),
                   title: str = "block family (row label colour)") -> None:
    """A legend naming each family present (colours of :mod:`sam.style`), plus ``extra``."""
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=_family_color(f), edgecolor="#555555",
                     label=f"{f}: {FAMILY_NAMES.get(f, f)}") for f in families]
    ax.legend(handles=[*handles, *extra], loc="upper center", bbox_to_anchor=(0.5, -0.12),
              ncol=2 if len(handles) + len(extra) > 4 else 1, fontsize=7, frameon=False,
              title=title, title_fontsize=8)


def _row_labels(ax: Any, blocks: Sequence[Mapping[str, Any]]) -> None:
    """Block ``id label`` per row, each on its family's colour."""
    ax.set_yticks(range(len(blocks)), [f"{b['id']} {b['label']}" for b in blocks], fontsize=7)
    for text, b in zip(ax.get_yticklabels(), blocks, strict=True):
        text.set_bbox({"facecolor": _family_color(b["family"]), "edgecolor": "none",
                       "pad": 1.0})


def plot_timeline(report: Mapping[str, Any], output: str | Path) -> None:
    """Draw :func:`timeline_figure` of ``report`` into ``output`` (its suffix picks the
    format)."""
    import matplotlib.pyplot as plt

    fig = timeline_figure(report)
    try:
        fig.savefig(output, bbox_inches="tight", dpi=100)
    finally:
        plt.close(fig)


def timeline_figure(report: Mapping[str, Any]) -> Any:
    """The block activity timeline of ``report`` as a matplotlib figure (the caller closes
    it). With the report's ``activity``: one heat row per block, its busy share of each
    bucket (:func:`heat_rows`), and a colour bar. Without: one bar per block from its first to
    its last firing, shaded by its busy share of that span, the shading explained in the
    legend. Both: row labels on their family's colour and a legend of the families present."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.patches import Patch

    cycles = max(int(report["cycles"]), 1)
    if report.get("activity"):
        blocks, busy, widths = heat_rows(report)
        # at most MAX_COLUMNS columns (a picture has fewer pixels than 1024 buckets): merge
        # neighbouring buckets, summing their busy cycles and their widths
        group = -(-busy.shape[1] // MAX_COLUMNS)
        pad = -busy.shape[1] % group
        columns = (busy.shape[1] + pad) // group
        busy = np.pad(busy, ((0, 0), (0, pad))).reshape(len(blocks), columns, group).sum(axis=2)
        widths = np.pad(widths, (0, pad)).reshape(columns, group).sum(axis=1)
        share = np.minimum(100.0 * busy / widths, 100.0)
        fig, ax = plt.subplots(figsize=(10, 0.3 * len(blocks) + 2.6))
        width = int(report["activity"]["bucket_cycles"]) * group
        span = width * busy.shape[1]
        image = ax.imshow(share, aspect="auto", interpolation="nearest", cmap="YlGnBu",
                          vmin=0, vmax=100, extent=(0, span, max(len(blocks), 1) - 0.5, -0.5))
        fig.colorbar(image, ax=ax, label="busy %", fraction=0.04, pad=0.01)
        ax.set_xlim(0, cycles)
        ax.set_xlabel(f"cycle (each column: {width:,} cycles; colour: the block's busy share "
                      "of them)")
        ax.set_title("Block utilisation over time")
        extra: list[Any] = []
        title = "block family (row label colour)"
    else:
        blocks = [b for b in report["blocks"] if b["busy"] > 0]
        fig, ax = plt.subplots(figsize=(10, 0.3 * len(blocks) + 2.6))
        for row, b in enumerate(blocks):
            span = max(b["finished"] - b["started"], 1)
            busy_share = min(b["busy"] / span, 1.0)
            ax.barh(row, span, left=b["started"], color=_family_color(b["family"]),
                    alpha=0.3 + 0.7 * busy_share, edgecolor="#555555", linewidth=0.5)
        ax.set_xlim(0, cycles)
        ax.set_xlabel("cycle")
        ax.set_title("Block activity: first to last firing (the report has no activity "
                     "over time)")
        extra = [Patch(facecolor="#777777", alpha=0.3, edgecolor="#555555",
                       label="bar: first to last firing; pale: rarely busy in between"),
                 Patch(facecolor="#777777", alpha=1.0, edgecolor="#555555",
                       label="solid: busy every cycle in between")]
        title = "block family (bar and row label colour)"
    _row_labels(ax, blocks)
    ax.set_ylim(max(len(blocks), 1) - 0.5, -0.5)
    ax.set_yticks([k + 0.5 for k in range(len(blocks) - 1)], minor=True)
    ax.tick_params(axis="y", which="minor", length=0)
    ax.grid(True, which="minor", axis="y", color="white", linewidth=1.0)
    families = list(dict.fromkeys(b["family"] for b in blocks))
    _family_legend(ax, families, extra, title)
    return fig


def _family_color(family: str) -> str:
    return FAMILY_COLORS.get(family, FAMILY_COLORS["misc"])
