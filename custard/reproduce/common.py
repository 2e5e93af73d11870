"""What every ``sam-sim reproduce`` experiment writes: ``NAME.csv``, ``NAME.png`` and
``NAME-claims.md`` (each claim of the paper's text with our measured value and a verdict)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from custard.sweeps.errors import SweepError

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"
#: the columns every CSV starts with; experiments add their own after these
CSV_COLUMNS = ("series", "x", "cycles")


class ReproduceError(SweepError):
    """An experiment that cannot run as asked (unknown name, missing data); a
    :class:`~custard.sweeps.errors.SweepError` so that one handler serves both."""


@dataclass
class Claim:
    """One claim of the paper's text and what we measured.

    ``verdict`` is PASS or FAIL; SKIP when the data the claim is about was not given (e.g. the
    paper's Table 3 matrices), with ``measured`` saying why. A failing claim is reported as
    measured, never tuned away."""

    section: str
    text: str
    measured: str
    verdict: str

    @classmethod
    def check(cls, section: str, text: str, measured: str, ok: bool) -> Claim:
        return cls(section, text, measured, PASS if ok else FAIL)


@dataclass
class Outcome:
    """An experiment's results: CSV rows, claims, a function drawing the picture, notes."""

    title: str
    rows: list[dict[str, Any]]
    claims: list[Claim]
    draw: Callable[[Path], None]
    notes: list[str] = field(default_factory=list)
    columns: Sequence[str] = ()


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def write_csv(path: Path, rows: Sequence[Mapping[str, Any]], columns: Sequence[str] = ()) -> None:
    """``rows`` as CSV: :data:`CSV_COLUMNS`, then ``columns``, then any other keys in order of
    first appearance (written atomically: a failed write leaves the old file)."""
    from sam.command.files import write_text

    names = list(CSV_COLUMNS) + [c for c in columns if c not in CSV_COLUMNS]
    for r in rows:
        names += [k for k in r if k not in names]
    fh = io.StringIO(newline="")
    w = csv.writer(fh)
    w.writerow(names)
    for r in rows:
        w.writerow([_cell(r.get(n)) for n in names])
    write_text(path, fh.getvalue())


def write_picture(path: Path, draw: Callable[[Path], None]) -> None:
    """``draw(file)`` (e.g. ``fig.savefig(file)``) into a temporary file of the same suffix
    beside ``path``, renamed over it when done (:func:`formats.atomic.atomic_path`): an
    interrupted drawing leaves the old picture."""
    from formats.atomic import atomic_path

    with atomic_path(path) as temp:
        draw(temp)


def claims_markdown(name: str, outcome: Outcome, seconds: float, setup: str) -> str:
    """The claims file: a table of (section, claim, measured, verdict) and the notes."""
    def esc(s: str) -> str:
        return s.replace("|", "\\|").replace("\n", " ")

    tally = {v: sum(c.verdict == v for c in outcome.claims) for v in (PASS, FAIL, SKIP)}
    lines = [f"# `{name}`: {outcome.title}", "",
             f"{setup}; took {seconds:.1f} s. Claims: {tally[PASS]} PASS, {tally[FAIL]} FAIL"
             + (f", {tally[SKIP]} SKIP" if tally[SKIP] else "") + ".", "",
             "| # | Sec. | the paper says | we measured | verdict |",
             "|---|---|---|---|---|"]
    for k, c in enumerate(outcome.claims, 1):
        lines.append(f"| {k} | {c.section} | {esc(c.text)} | {esc(c.measured)} | "
                     f"**{c.verdict}** |")
    if outcome.notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in outcome.notes]
    return "\n".join(lines) + "\n"


def pct(x: float) -> str:
    return f"{100 * x:.2f}%"
