#!/usr/bin/env python3
"""Write the accelerator back ends of SAM paper Sec. 6.5 as SAM graphs:
``dot_graphs/backends/<name>.gv`` for every builder in :data:`custard.backends.BACKENDS`
(docs/backends.md). ``tests/test_backends.py`` checks that the checked-in files equal what the
builders make now; rerun this script after changing the compiler:

    python scripts/build_backends.py            # write every back end's graph
    python scripts/build_backends.py --check    # exit 1 if any file is stale or missing
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from custard.backends import BACKENDS, backend_text  # noqa: E402
from formats.errors import ToolkitError  # noqa: E402

OUT_DIR = ROOT / "dot_graphs" / "backends"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 when a graph file is stale or missing")
    args = parser.parse_args(argv)
    stale: list[str] = []
    try:
        OUT_DIR.mkdir(parents=True, exist_ok=True)
        for name in BACKENDS:
            text = backend_text(name)
            out = OUT_DIR / f"{name}.gv"
            if args.check:
                if not out.exists() or out.read_text() != text:
                    stale.append(name)
                continue
            out.write_text(text)
            print(out.relative_to(ROOT))
    except (ToolkitError, OSError) as err:
        print(f"build_backends: error: {err}", file=sys.stderr)
        return 1
    if stale:
        print(f"build_backends: stale or missing: {', '.join(stale)}; run "
              "python scripts/build_backends.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
