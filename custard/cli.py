"""The ``custard`` command line (filled in by the compiler issue)."""

from __future__ import annotations

import argparse
import sys


def build_parser() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(
        prog="custard",
        description="Compile tensor index notation to a SAM dataflow graph (DOT). "
        "Not implemented yet.",
    )


def main(argv: list[str] | None = None) -> int:
    build_parser().parse_args(argv)
    print("custard: the compiler is not implemented yet; see `custard --help`.", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
