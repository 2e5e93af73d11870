"""The ``sam-sim`` command line."""

from __future__ import annotations

import argparse
import sys

from formats.errors import ToolkitError


def _cmd_tensor(args: argparse.Namespace) -> int:
    from formats.io import load_tensor

    tensor = load_tensor(args.source, args.format)
    print(tensor.describe())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sam-sim",
        description="Simulate SAM dataflow graphs on real and synthetic tensors.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p = sub.add_parser(
        "tensor",
        help="load a tensor and print its fibertree level arrays",
        description="Load a tensor (a .mtx/.tns/.npy file, or the name of a shipped matrix such "
        "as west0479) in a chosen format and print its level arrays and a summary.",
    )
    p.add_argument("source", help="file path or shipped data name (see `formats.data.names()`)")
    p.add_argument("-f", "--format", default=None,
                   help="level formats and mode order, e.g. ss01 (DCSR, default), ds (CSR), "
                   "ss:1,0 (DCSC)")
    p.set_defaults(func=_cmd_tensor)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except ToolkitError as err:
        print(f"sam-sim: error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
