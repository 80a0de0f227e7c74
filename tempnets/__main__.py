"""Command line: ``python -m tempnets list`` and ``python -m tempnets reproduce ID``."""

from __future__ import annotations

import argparse
import sys

from . import experiments
from .scale import SCALES


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tempnets",
                                description="Reproduce the experiments of the tempnets course book.")
    sub = p.add_subparsers(dest="command", required=True, metavar="{list,reproduce}")
    sub.add_parser("list", help="list experiment ids with one-line descriptions")
    r = sub.add_parser("reproduce", help="run one experiment and print the paper-vs-ours claims table")
    r.add_argument("id", help="experiment id (see 'list')")
    r.add_argument("--scale", choices=SCALES, default=None,
                   help="book (default, minutes) or paper (the paper's sizes); default: $TEMPNETS_SCALE or book")
    r.add_argument("--seed", type=_non_negative, default=0, help="random seed (default 0)")
    r.add_argument("--jobs", type=_positive, default=1, help="cores to use (results do not depend on it)")
    r.add_argument("--out", default=None, help="JSON file for the results (default: ID_SCALE_seedN.json)")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def _non_negative(s: str) -> int:
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {s!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {s!r}")
    return v


def _positive(s: str) -> int:
    v = _non_negative(s)
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {s!r}")
    return v


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "list":
        width = max(len(e.id) for e in experiments.EXPERIMENTS)
        for e in experiments.EXPERIMENTS:
            print(f"{e.id.ljust(width)}  {e.description}")
        return 0
    try:
        experiments.get(args.id)
    except KeyError as err:
        print(f"error: {err.args[0]}", file=sys.stderr)
        return 2
    record = experiments.reproduce(args.id, scale=args.scale, seed=args.seed, jobs=args.jobs,
                                   progress=False if args.no_progress else None)
    table = record["_table"]
    print(table)
    out = args.out or f"{record['id']}_{record['scale']}_seed{record['seed']}.json"
    experiments.write_record(record, out)
    print(f"\nwall time {record['wall_time_s']:.1f} s; results written to {out}")
    failures = table.failures()
    if failures:
        print(f"error: {len(failures)} claim(s) did not come out as stated", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
