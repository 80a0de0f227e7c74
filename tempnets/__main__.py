"""Command line: ``python -m tempnets list``, ``reproduce ID``, ``robustness ID`` and ``rederive RECORD``.

A finished run is never lost to the terminal: ``--out`` is checked before
training, the record is written (atomically) before anything is printed, and
printing falls back to ASCII on a terminal that cannot show ``≤``.  User
mistakes and Ctrl-C end with one line on stderr and exit code 2 (130 for
Ctrl-C), never a traceback.  An experiment that keeps a checkpoint
(:func:`tempnets.book.experiments.resumable`) keeps it beside ``--out`` (``ID_SCALE_seedN.checkpoint/``)
while it runs, so that ``reproduce ... --resume`` continues it after an interrupt; its files
are removed once the record is written.  ``--cluster ADDRESS`` runs the independent pieces
of a run (a ``robustness`` record's seeds; the networks of the experiments that declare
them) on a Dask cluster (:mod:`tempnets.book.cluster`), to the same record as ``--jobs 1``.

Files are sacred: every command that writes says first what it will write where, and
never overwrites or removes what it did not write (``--out`` may replace only a record of
``python -m tempnets``; ``--checkpoint`` must be new, empty or one of our checkpoints;
``rederive --update`` rewrites exactly the file it is given).
"""

from __future__ import annotations

import argparse
import decimal
import os
import sys

from . import __version__
from .book import experiments
from .book.scale import SCALES, get_scale

_ASCII = str.maketrans({"≤": "<=", "≥": ">=", "−": "-", "–": "-", "—": "-", "×": "x", "→": "->",
                        "…": "...", "≈": "~", "±": "+/-", "§": "sec. ", "ρ": "rho", "′": "'",
                        "’": "'", "“": '"', "”": '"', "²": "^2", "·": "."})


def say(text: str = "", file=None) -> None:
    """Print ``text``, replacing what the stream's encoding cannot show (e.g. cp1252: ``≤`` -> ``<=``)."""
    file = file or sys.stdout
    encoding = getattr(file, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except LookupError:
        encoding = "ascii"
    except UnicodeEncodeError:
        pass
    else:
        print(text, file=file)
        return

    def show(ch):
        try:
            return ch.encode(encoding) and ch
        except UnicodeEncodeError:
            return _ASCII.get(ord(ch), "?")

    print("".join(map(show, text)), file=file)


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not usage + error
        say(f"error: {message} (see: {self.prog} --help)", sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m tempnets",
                description="Reproduce the experiments of the tempnets course book.")
    p.add_argument("--version", action="version", version=f"tempnets {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="{list,reproduce,robustness,rederive}",
                           parser_class=_Parser)
    sub.add_parser("list", help="list experiment ids with one-line descriptions")
    r = sub.add_parser("reproduce", help="run one experiment and print the paper-vs-ours claims table")
    r.add_argument("id", help="experiment id (see 'list')")
    r.add_argument("--scale", choices=SCALES, default=None,
                   help="book (default, minutes) or paper (the paper's sizes); default: $TEMPNETS_SCALE or book")
    r.add_argument("--seed", type=_non_negative, default=0, help="random seed (default 0)")
    r.add_argument("--jobs", type=_positive, default=1, help="cores to use (results do not depend on it)")
    r.add_argument("--out", default=None, help="JSON file for the results (default: ID_SCALE_seedN.json); "
                   "an existing file there is replaced only if it is a record of this command")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument("--perturb", type=_eps, default=0.0, metavar="EPS",
                   help="multiply every initial weight by 1 + EPS*u, u uniform in [-1, 1] (e.g. 1e-12: "
                        "the run another machine's arithmetic would give); EPS is 0 or in "
                        "[2**-52, 1): a smaller EPS (2**-52 = 2.2e-16 is float64's relative spacing) "
                        "would leave most weights unchanged. With $TEMPNETS_PERTURB set to another "
                        "value the run is refused (its record would misdescribe it)")
    resumable = [e.id for e in experiments.EXPERIMENTS if experiments.resumable(e.id)]
    r.add_argument("--resume", action="store_true",
                   help="continue an interrupted run from its checkpoint (give the same options and "
                        "--out), to the same record; only experiments that keep a checkpoint ("
                        + ", ".join(resumable) + ") accept it")
    r.add_argument("--checkpoint", default=None, metavar="DIR",
                   help="where the run keeps its checkpoint (default: beside --out, "
                        "ID_SCALE_seedN.checkpoint): a new or empty directory, or the checkpoint "
                        "of an interrupted run with --resume; its files are removed once the "
                        "record is written (the directory too if the run created it)")
    r.add_argument("--checkpoint-every", type=_seconds, default=300.0, metavar="SECONDS",
                   help="save the work in progress at least this often (default 300)")
    r.add_argument("--keep-checkpoint", action="store_true",
                   help="keep the checkpoint after the record is written")
    r.add_argument("--cluster", default=None, metavar="ADDRESS",
                   help="run the experiment's pieces (networks) on a Dask cluster: a scheduler's address (tcp://host:8786) "
                        "or 'local' (a cluster of this machine's cores); the same record as --jobs 1. "
                        "Needs pip install 'tempnets[cluster]'; experiments that split into pieces: "
                        + ", ".join(e.id for e in experiments.EXPERIMENTS if e.pieces))
    b = sub.add_parser("robustness", help="run seeds 0..K-1 and count, per claim, the seeds giving each verdict")
    b.add_argument("id", help="experiment id (see 'list')")
    b.add_argument("--seeds", type=_positive, default=10, help="number of seeds K (default 10)")
    b.add_argument("--scale", choices=SCALES, default=None, help="book (default) or paper")
    b.add_argument("--jobs", type=_positive, default=1, help="cores to use (results do not depend on it)")
    b.add_argument("--out", default=None, help="JSON file (default: ID.robustness.json); an existing "
                   "file there is replaced only if it is a robustness record")
    b.add_argument("--no-progress", action="store_true", help="no progress bar")
    b.add_argument("--cluster", default=None, metavar="ADDRESS",
                   help="run the seeds side by side on a Dask cluster: a scheduler's address (tcp://host:8786) "
                        "or 'local' (a cluster of this machine's cores); the same record as --jobs 1. "
                        "Needs pip install 'tempnets[cluster]'; each finished seed is saved "
                        "in ID.robustness.checkpoint beside --out until the record is written")
    b.add_argument("--resume", action="store_true",
                   help="continue an interrupted --cluster run from the seeds it saved")
    d = sub.add_parser("rederive", help="re-derive a record's claims with today's code (never trains)")
    d.add_argument("record", help="a record written by 'reproduce', e.g. book/paper_scale/pa-8.1.json")
    d.add_argument("--update", action="store_true",
                   help="store the re-derived claims in RECORD itself, exactly the file given "
                        "(its data is kept as it is)")
    return p


def _non_negative(s: str) -> int:
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {s!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {s!r}")
    return v


def _eps(s: str) -> float:
    """``--perturb``: 0 or a number in [2**-52, 1), compared exactly (``1e-400`` is not 0)."""
    try:
        exact = decimal.Decimal(s.strip())
    except decimal.InvalidOperation:
        exact = decimal.Decimal("nan")
    if not (exact.is_finite() and 0 <= exact < 1):
        raise argparse.ArgumentTypeError(f"must be a number in [0, 1), got {s!r}")
    v = float(exact)
    if exact != 0 and v < experiments.SMALLEST_PERTURB:  # (1e-400 rounds to 0.0)
        raise argparse.ArgumentTypeError(
            f"{s!r} is too small to change a float64 weight: give 0 or at least 2**-52 = "
            f"{experiments.SMALLEST_PERTURB:.3g} (the relative spacing of float64 numbers)")
    return v


def _seconds(s: str) -> float:
    try:
        v = float(s)
    except ValueError:
        v = float("nan")
    if not 0.0 <= v < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0, got {s!r}")
    return v


def _positive(s: str) -> int:
    v = _non_negative(s)
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {s!r}")
    return v


class _UserError(Exception):
    """A mistake in what the user asked for: reported in one line, exit code 2."""


def _reproduce(args) -> int:
    from .training.checkpoint import CheckpointError
    from .training.srn_trainers import DivergenceError

    try:
        experiments.get(args.id)
        scale = get_scale(args.scale)  # e.g. TEMPNETS_SCALE=garbage
        out = f"{args.id}_{scale}_seed{args.seed}.json" if args.out is None else args.out
        experiments.check_writable(out, replaces="record")  # before an hour of training, not after
        experiments.check_perturb(args.perturb)
        if args.checkpoint is not None and not args.checkpoint.strip():
            raise ValueError(f"--checkpoint must name a directory, got {args.checkpoint!r}")
        checkpoint = _beside(out, ".checkpoint") if args.checkpoint is None else args.checkpoint
        experiments.check_checkpoint(args.id, scale, args.seed, args.perturb, checkpoint, args.resume)
        _check_cluster(args)
        if args.cluster is not None:
            experiments.check_cluster(args.id, args.perturb)
    except KeyError as err:
        raise _UserError(err.args[0]) from None
    except ValueError as err:
        raise _UserError(str(err)) from None
    if experiments.resumable(args.id):
        args.checkpoint_kept = checkpoint
        say(f"writing the record to {out} (checkpoint in {checkpoint}"
            f"{', kept' if args.keep_checkpoint else ', removed once the record is written'})")
    else:
        say(f"writing the record to {out}")
    try:
        with _executor(args) as jobs:
            record = experiments.reproduce(args.id, scale=scale, seed=args.seed, jobs=jobs,
                                           progress=False if args.no_progress else None,
                                           perturb=args.perturb, checkpoint_dir=checkpoint,
                                           resume=args.resume, checkpoint_every=args.checkpoint_every)
    except DivergenceError as err:
        say(f"error: {args.id} diverged: {err}", sys.stderr)
        return 1
    except CheckpointError as err:  # a saved value found damaged or foreign during the run
        raise _UserError(str(err)) from None
    try:
        experiments.write_record(record, out)
        args.written = out
    except OSError as err:
        say(f"error: the run finished but its record could not be written to {out} "
            f"({err.strerror or err}); any earlier file there is unchanged", sys.stderr)
        return 1
    if "_checkpoint" in record and not args.keep_checkpoint:  # only now: the record is safe
        record["_checkpoint"].remove()
        args.checkpoint_kept = None
    table = record["_table"]
    say(str(table))
    say(f"\nwall time {record['wall_time_s']:.1f} s on {record['jobs']} thread(s); "
        f"results written to {out}")
    failures = table.failures()
    if failures and args.seed != experiments.CHAPTER_SEED:
        say(f"{len(failures)} claim(s) came out otherwise than the chapter states for its own seed "
            f"{experiments.CHAPTER_SEED}; with seed {args.seed} that is a finding, not an error")
    elif failures:
        say(f"error: {len(failures)} claim(s) did not come out as stated", sys.stderr)
        return 1
    return 0


def _check_cluster(args) -> None:
    """Refuse ``--cluster`` with a bad address, or together with ``--jobs``."""
    if args.cluster is None:
        return
    from .book.cluster import check_address

    check_address(args.cluster)
    if args.jobs != 1:
        raise ValueError(f"--jobs {args.jobs} and --cluster: give one (a cluster runs each piece "
                         "on one thread of a worker)")


def _executor(args):
    """A context giving what runs the pieces: ``--jobs`` cores, or the ``--cluster``'s executor
    (its failures one line, exit 2)."""
    import contextlib

    if args.cluster is None:
        return contextlib.nullcontext(args.jobs)
    from .book.cluster import ClusterError, connect

    @contextlib.contextmanager
    def on_cluster():
        try:
            with connect(args.cluster) as executor:
                yield executor
        except ClusterError as err:
            raise _UserError(str(err)) from None
    return on_cluster()


def _beside(out: str, suffix: str) -> str:
    """``out`` with its ``.json`` replaced by ``suffix`` (``r.json`` -> ``r.checkpoint``)."""
    return (out[:-len(".json")] if out.endswith(".json") else out) + suffix


def _robustness(args) -> int:
    from .training.srn_trainers import DivergenceError

    try:
        experiments.get(args.id)
        scale = get_scale(args.scale)
        out = f"{args.id}.robustness.json" if args.out is None else args.out
        experiments.check_writable(out, replaces="robustness record")
        experiments.check_perturb(0.0)  # $TEMPNETS_PERTURB would perturb every seed's run
        checkpoint = _robustness_checkpoint(args, out, scale)
    except KeyError as err:
        raise _UserError(err.args[0]) from None
    except ValueError as err:
        raise _UserError(str(err)) from None
    if checkpoint is not None:
        args.checkpoint_kept = checkpoint
        say(f"writing the robustness record to {out} (each seed saved in {checkpoint}, removed "
            "once the record is written)")
    else:
        say(f"writing the robustness record to {out}")
    try:
        with _executor(args) as jobs:
            record = experiments.robustness(args.id, args.seeds, scale, jobs,
                                            progress=False if args.no_progress else None,
                                            checkpoint_dir=checkpoint, resume=args.resume)
    except DivergenceError as err:
        say(f"error: {args.id} diverged: {err}", sys.stderr)
        return 1
    try:
        experiments.write_record(record, out, compact=True)
    except OSError as err:  # e.g. its directory removed during the run
        raise _UserError(f"the runs finished but the robustness record could not be written to "
                         f"{out} ({err.strerror or err}); any earlier file there is unchanged") from None
    args.written = out
    if "_checkpoint" in record:  # only now: the record is safe
        record["_checkpoint"].remove()
        args.checkpoint_kept = None
    for statement, counts in record["counts"].items():
        cells = "; ".join(f"{k} in {v}/{args.seeds}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))
        say(f"{cells:<48}  {statement}")
    say(f"\nwall time {record['wall_time_s']:.1f} s; written to {out}")
    return 0


def _robustness_checkpoint(args, out: str, scale: str) -> str | None:
    """Where a ``robustness --cluster`` run saves its seeds (checked; ``None`` without
    ``--cluster``, which keeps no checkpoint)."""
    from .training.checkpoint import check_checkpoint

    _check_cluster(args)
    if args.cluster is None:
        if args.resume:
            raise ValueError("--resume: only a robustness run with --cluster keeps the seeds it "
                             "finished; without it there is nothing to resume")
        return None
    checkpoint = _beside(out, ".checkpoint")
    check_checkpoint(checkpoint, experiments.robustness_identity(args.id, scale, args.seeds),
                     args.resume)
    return checkpoint


def _update(record, path, compact) -> None:
    """Rewrite a record in place (``--update``); a file that cannot be written is one line."""
    try:
        experiments.write_record(record, path, compact=compact)
    except OSError as err:
        raise _UserError(f"--update: cannot rewrite {path} ({err.strerror or err}); "
                         "the file is unchanged") from None


def _rederive(args) -> int:
    path = args.record
    if not os.path.exists(path):  # exactly the file given: never a packaged copy of that name
        raise _UserError(f"{path}: no such file (from the directory {os.getcwd()}); give the "
                         "path of the record itself")
    if str(path).endswith(".robustness.json"):
        try:
            record = experiments.rederive_robustness(path)
        except (OSError, ValueError) as err:
            raise _UserError(str(err)) from None
        for statement, counts in record["counts"].items():
            say(f"{counts}  {statement}")
        if args.update:
            _update(record, path, compact=True)
            args.written = path
            say(f"\ncounts of {path} updated (data unchanged)")
        return 0
    try:
        result, record = experiments.rederive(path)
        if args.update:
            with open(path, encoding="utf-8") as fh:
                compact = fh.read(2) == '{"'  # keep the record's layout: a small diff
    except (OSError, ValueError) as err:  # a missing, broken or incomplete record
        raise _UserError(str(err)) from None
    say(str(result.claims))
    if args.update:
        record = dict(record, claims_title=result.claims.title, claims=result.claims.rows(),
                      claims_rederived_at=experiments._commit())
        _update(record, path, compact=compact)
        args.written = path
        say(f"\nclaims of {path} updated (data unchanged)")
    failures = result.claims.failures()
    if failures:
        say(f"error: {len(failures)} claim(s) did not come out as stated", sys.stderr)
        return 1
    return 0


def main(argv=None) -> int:
    args = argparse.Namespace(written=None, checkpoint_kept=None)
    try:
        args = _parser().parse_args(argv, namespace=args)
        if args.command == "list":
            width = max(len(e.id) for e in experiments.EXPERIMENTS)
            for e in experiments.EXPERIMENTS:
                say(f"{e.id.ljust(width)}  {e.description}")
            return 0
        return {"reproduce": _reproduce, "robustness": _robustness,
                "rederive": _rederive}[args.command](args)
    except KeyboardInterrupt:
        kept = (f"; the work so far is kept in {args.checkpoint_kept}: add --resume to continue"
                if args.checkpoint_kept and not args.written
                and os.path.isdir(args.checkpoint_kept) else "")
        say((f"interrupted; the record was written to {args.written}" if args.written else
             "interrupted: nothing was written (an earlier record is unchanged)") + kept, sys.stderr)
        return 130
    except _UserError as err:
        say(f"error: {err}", sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `... | head`: the reader left; the record is already written
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _exit(code: int) -> None:
    """Exit with ``code``; after Ctrl-C (130) without waiting for worker threads, which may be
    inside a compiled kernel for many seconds more (every record is written atomically, so
    nothing is left half-written)."""
    if code == 130:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    _exit(main())
