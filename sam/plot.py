"""Pictures of a simulation report: stream token breakdowns and a block activity timeline.

* **Token breakdown** (SAM paper Figure 14): for each chosen stream, the share of the run's
  cycles in which it carried a data, stop, empty or done token, or nothing (idle).
* **Activity timeline**: one bar per block from its first to its last firing, shaded by how busy
  it was in between.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from formats.atomic import atomic_path
from formats.errors import ToolkitError
from sam.runtime.tokens import KIND_NAMES
from sam.style import FAMILY_COLORS

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
    blocks = [b for b in report["blocks"] if b["busy"] > 0]
    fig, ax = plt.subplots(figsize=(9, 0.3 * len(blocks) + 1.4))
    for row, b in enumerate(blocks):
        span = max(b["finished"] - b["started"], 1)
        busy_share = min(b["busy"] / span, 1.0)
        color = FAMILY_COLORS.get(b["family"], FAMILY_COLORS["misc"])
        ax.barh(row, span, left=b["started"], color=color, alpha=0.3 + 0.7 * busy_share,
                edgecolor="#555555", linewidth=0.5)
    ax.set_yticks(range(len(blocks)), [f"{b['id']} {b['label']}" for b in blocks], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, cycles)
    ax.set_xlabel("cycle (bar: first to last firing; darker = busier)")
    ax.set_title("Block activity timeline")
    fig.tight_layout()
    with atomic_path(tl) as temp:
        fig.savefig(temp)
    plt.close(fig)
    return [out, tl]
