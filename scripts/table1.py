#!/usr/bin/env python3
"""Print SAM primitive counts for the SAM paper's Table 1 expressions next to the paper's numbers.

Compiles the twelve expressions of Table 1 (Sec. 6.1; alphabetical loop order, SpM*SpM in its
three dataflow classes ijk, ikj, kij) with ``custard`` and counts each graph's primitives
(:mod:`custard.counts`). Exits 1 when any count differs from the paper's.

    python scripts/table1.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from custard.counts import table1_report  # noqa: E402


def main() -> int:
    text, mismatches = table1_report()
    print(text)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
