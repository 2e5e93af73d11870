#!/usr/bin/env python3
"""Compile the standard kernel suite to DOT graphs: ``dot_graphs/<name>.gv`` for every line of
``dot_graphs/kernel-suite.tsv`` (name, TAB, Custard command line without the program name).

Each command line goes through the ``custard`` command's own parser
(:func:`custard.cli.graph_from_command_line`). ``tests/test_dot_graphs.py`` checks that the
checked-in graphs equal what the compiler writes now; rerun this script after changing the
compiler:

    python scripts/compile_suite.py            # write every graph
    python scripts/compile_suite.py --check    # exit 1 if any graph is stale or missing
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from custard.cli import graph_from_command_line  # noqa: E402
from formats.errors import ToolkitError  # noqa: E402
from sam.graph.dot import dumps  # noqa: E402

SUITE_DIR = ROOT / "dot_graphs"
SUITE = SUITE_DIR / "kernel-suite.tsv"


def read_suite(path: Path = SUITE) -> list[tuple[str, str]]:
    """(name, command line) for every non-blank, non-comment line of the suite file."""
    kernels: list[tuple[str, str]] = []
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, command = line.partition("\t")
        if not sep or not name.strip() or not command.strip():
            raise ToolkitError(f"{path}:{lineno}: expected NAME<TAB>COMMAND LINE")
        kernels.append((name.strip(), command.strip()))
    return kernels


def graph_text(command: str) -> str:
    """The DOT text the compiler writes for one suite command line."""
    return dumps(graph_from_command_line(command))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 when a graph file is stale or missing")
    args = parser.parse_args(argv)
    stale: list[str] = []
    try:
        kernels = read_suite()
        for name, command in kernels:
            text = graph_text(command)
            out = SUITE_DIR / f"{name}.gv"
            if args.check:
                if not out.exists() or out.read_text() != text:
                    stale.append(name)
                continue
            out.write_text(text)
            print(f"{out.relative_to(ROOT)}  {command}")
    except ToolkitError as err:
        print(f"compile_suite: error: {err}", file=sys.stderr)
        return 1
    if stale:
        print(f"compile_suite: stale or missing: {', '.join(stale)}; run "
              "python scripts/compile_suite.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
