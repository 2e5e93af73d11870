"""``record``: compile every expression of the harness with the original Custard and store its
graphs under ``tests/data/original-custard/NAME.gv`` with ``provenance.json`` (the taco
repository, branch and commit, the exact command per graph, the date, and each line the
original refuses with its message)."""

from __future__ import annotations

import datetime
import json
import subprocess
from pathlib import Path

from scripts.differential.compare import PROVENANCE, RECORDS
from scripts.differential.expressions import (
    CORPUS_SAMPLE,
    CORPUS_SEED,
    Expression,
    corpus_order,
    extra,
    suite,
)
from scripts.differential.original import original_graph

TACO_REPOSITORY = "github.com/weiya711/taco"
TACO_BRANCH = "sam"
#: Notes on the commits recorded (provenance.json's ``note``).
NOTES = {
    "6570336a": "the tip of branch sam: 'Add in changes to compiler to remove CrdHold'",
    "edc4195a": "'Update taco readme to be custard readme' (2023-05-05), the last commit before "
                "the CrdHold removal (6570336a): graphs with crdhold and order-1/2 "
                "spaccumulators, the conventions of weiya711/sam's own graphs; only "
                "src/sam/sam_graph.cpp, src/sam/sam_printer.* and tools/taco.cpp differ from "
                "the tip",
}


def _commit(taco: Path) -> str:
    """The commit of the taco checkout the binary was built from (``build/bin/taco``)."""
    src = taco.resolve().parents[2]
    try:
        return subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def record(taco: str | Path, out: Path = RECORDS, sample: int = CORPUS_SAMPLE,
           seed: int = CORPUS_SEED, say=print, note: str | None = None) -> dict:
    """Compile the suite, the extra kernels and the first ``sample`` corpus lines (in the
    seeded order) that the original compiles; write the graphs and the provenance."""
    taco = Path(taco)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.gv"):
        old.unlink()
    graphs, refused = [], []

    def one(e: Expression) -> bool:
        got = original_graph(taco, e.line, out / f"{e.name}.gv")
        entry = {"name": e.name, "group": e.group, "line": e.line,
                 "command": " ".join(_shell(w) for w in ["taco", *got.argv[1:]])}
        if got.ok:
            graphs.append(entry)
        else:
            refused.append(entry | {"message": got.message})
        say(f"{e.name:28s} {'ok' if got.ok else 'refused: ' + got.message}")
        return got.ok

    for e in suite() + extra():
        one(e)
    kept = 0
    for k, line in enumerate(corpus_order(seed)):
        if kept >= sample:
            break
        kept += one(Expression(f"corpus_{k:04d}", "corpus", line))
    commit = _commit(taco)
    prov = {
        "what": "SAM graphs written by the original Custard (-print-sam-graph) for the "
                "differential harness (scripts/differential, issue 33)",
        "repository": TACO_REPOSITORY, "branch": TACO_BRANCH, "commit": commit,
        "note": note if note is not None else NOTES.get(commit[:8], ""),
        "build": "CMake Release of that commit, outside this repository",
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "corpus": {"log": "tests/data/taco-website/success.log", "seed": seed,
                   "sample": sample, "order": "scripts.differential.expressions.corpus_order"},
        "graphs": graphs, "refused": refused,
    }
    if out != RECORDS:
        prov["what"] += f"; the harness reads them with compare --records {out.name}"
    (out / PROVENANCE.name).write_text(json.dumps(prov, indent=1) + "\n")
    return prov


def _shell(word: str) -> str:
    import shlex

    return shlex.quote(word)
