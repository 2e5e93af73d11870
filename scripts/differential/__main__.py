"""``python -m scripts.differential record --taco PATH`` | ``compare [--names ...]``
(see :mod:`scripts.differential`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scripts.differential.compare import RECORDS
from scripts.differential.table import main_compare


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.differential",
                                     description=__doc__)
    sub = parser.add_subparsers(dest="mode", required=True)
    rec = sub.add_parser("record", help="compile with the original Custard, store its graphs")
    rec.add_argument("--taco", required=True, help="the original's taco binary (build/bin/taco)")
    rec.add_argument("--out", type=Path, default=RECORDS,
                     help="folder of the records (default: tests/data/original-custard)")
    rec.add_argument("--note", default=None,
                     help="a note on the commit for provenance.json (default: known commits')")
    cmp_ = sub.add_parser("compare", help="run the recorded graphs here (CI-safe)")
    cmp_.add_argument("--names", nargs="*", help="only these expressions")
    cmp_.add_argument("--records", type=Path, default=RECORDS,
                      help="folder of the record set (default: tests/data/original-custard, "
                           "the tip's; tests/data/original-custard-edc4195a, before CrdHold's "
                           "removal)")
    cmp_.add_argument("--group", choices=("suite", "extra", "corpus"), help="only this group")
    cmp_.add_argument("--engines", default="reference,fast")
    cmp_.add_argument("--seeds", type=int, default=4, help="random inputs per graph")
    cmp_.add_argument("--no-cycles", action="store_true",
                      help="skip the cycle comparisons with the original simulator's records")
    cmp_.add_argument("--matrices", type=int, default=3,
                      help="final-apps matrices per kernel (the smallest first)")
    args = parser.parse_args(argv)
    if args.mode == "record":
        from scripts.differential.record import record

        prov = record(args.taco, args.out, note=args.note)
        print(f"{len(prov['graphs'])} graphs recorded, {len(prov['refused'])} lines refused by "
              f"the original (taco {prov['commit'][:8]})")
        return 0
    return main_compare(args.names, args.group, tuple(args.engines.split(",")),
                        not args.no_cycles, args.matrices, args.seeds, args.records)


if __name__ == "__main__":
    sys.exit(main())
