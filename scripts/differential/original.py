"""Run the original Custard (weiya711/taco, branch ``sam``; the C++ ``taco`` binary built
outside this repository) on one TACO command line and keep the SAM graph it writes."""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from scripts.differential.expressions import split_line

#: Options of a website line passed on to the original (others, e.g. ``-write-source``,
#: ``-time``, would write files or run code; they do not change the graph).
KEPT_OPTIONS = ("-f=", "-s=", "-t=", "-d=")
SECONDS = 60


@dataclass
class Compiled:
    """The original's answer for one line: ``argv`` (the exact command), ``ok``, the DOT text
    or the failure ``message`` (its last line of output, or the exit status)."""

    argv: list[str]
    ok: bool
    dot: str = ""
    message: str = ""


def taco_arguments(line: str) -> list[str]:
    """The arguments given to the original for ``line``: the expression and the options of
    :data:`KEPT_OPTIONS` (the original's ``sam-kernels.sh`` passes the same words)."""
    words = split_line(line)
    return [words[0]] + [w for w in words[1:] if w.startswith(KEPT_OPTIONS)]


def original_graph(taco: str | Path, expr_line: str, out: str | Path,
                   seconds: int = SECONDS) -> Compiled:
    """Compile ``expr_line`` (``"X(i,j)=B(i,k)*C(k,j) -f=X:ss ..."``) with the original Custard
    ``taco`` (``-print-sam-graph=OUT``), write the DOT to ``out`` when it compiles."""
    out = Path(out)
    with tempfile.TemporaryDirectory() as tmp:
        gv = Path(tmp) / "graph.gv"
        argv = [str(taco), *taco_arguments(expr_line), f"-print-sam-graph={gv}"]
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=seconds,
                                  cwd=tmp, check=False)
        except subprocess.TimeoutExpired:
            return Compiled(argv, False, message=f"timeout after {seconds} s")
        text = gv.read_text() if gv.exists() else ""
        shown = [*argv[:-1], f"-print-sam-graph={out.name}"]
        if proc.returncode != 0 or "digraph" not in text:
            lines = [ln.strip() for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip()]
            why = lines[-1] if lines else "no output"
            return Compiled(shown, False, message=f"exit {proc.returncode}: {why}"[:300])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return Compiled(shown, True, dot=text)
