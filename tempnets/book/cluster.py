"""An experiment's pieces on a Dask cluster: ``--cluster ADDRESS`` (the optional extra
``pip install 'tempnets[cluster]'``).

An experiment that splits into independent pieces declares them once
(:class:`tempnets.book.experiments.Piece`, :func:`tempnets.book.experiments.run_pieces`); ``--jobs``
runs them on this machine's cores, :class:`DaskExecutor` on the workers of a Dask
distributed scheduler.  Each piece runs on one worker thread, the values come back to this
process, each is saved in the run's checkpoint as it arrives, and the results are merged in
the pieces' order: the record is the record of ``--jobs 1``, bit for bit, apart from its
wall time.

Faults:

- a worker that dies during a piece (killed, out of memory, its node lost) is replaced
  and its piece is run again by the scheduler, from the start, to the same value; a piece
  that kills :data:`ALLOWED_FAILURES` workers stops the run (Dask's ``allowed-failures``);
- a scheduler that is lost (or cannot be reached) stops the run with one line
  (:class:`ClusterError`); the pieces finished are in the checkpoint, and the same command
  with ``--resume`` continues from them;
- a worker running other code (another tempnets version or commit, another numpy or
  numba) than this process, or perturbing initial weights (``$TEMPNETS_PERTURB``), is
  refused: a record comes from one code, and describes the run that made it.  (So
  ``--perturb`` does not go with ``--cluster``.)

Nothing else in tempnets imports Dask: this module imports it when a cluster is asked for.
Dask's workers and scheduler exchange pickles: run them only on machines you trust (a
cluster of your own, as the Dask documentation says), never on an open port.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re

INSTALL = "pip install 'tempnets[cluster]' (or: pip install 'dask[distributed]')"
"""How to install what ``--cluster`` needs."""

CONNECT_SECONDS = 10.0
"""How long to wait for the scheduler at an address to answer."""

ALLOWED_FAILURES = 3
"""Workers a piece may lose (killed while running it) before the run stops."""

_ADDRESS = re.compile(r"(tcp|tls|ucx|inproc)://\S+|[A-Za-z0-9_.\-\[\]:]+:\d+")


__all__ = ["ClusterError", "check_address", "local_workers", "connect", "DaskExecutor",
           "seed_costs"]


class ClusterError(Exception):
    """A cluster that cannot be reached or used, or was lost during a run: one line on the
    command line (exit 2)."""


def check_address(address) -> str:
    """``address`` if it names a scheduler (``tcp://host:8786``, ``host:8786``) or ``"local"``.

    Raises
    ------
    ValueError
        Naming ``--cluster``, the value and what is allowed.
    """
    if not isinstance(address, str) or not (address == "local" or _ADDRESS.fullmatch(address)):
        raise ValueError(f"--cluster must be a Dask scheduler's address such as tcp://host:8786, "
                         f"or 'local' (this machine's cores), got {address!r}")
    return address


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"--cluster needs Dask distributed, which is not installed: {INSTALL}") from None
    return distributed


def local_workers() -> int:
    """The workers of ``--cluster local``: one process per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (not on macOS or Windows)
        return os.cpu_count() or 1


@contextlib.contextmanager
def connect(address: str, workers: int | None = None):
    """A :class:`DaskExecutor` on the scheduler at ``address``, or on a ``LocalCluster`` of
    ``workers`` processes (default :func:`local_workers`) of one thread each for ``"local"``;
    closed (the local cluster shut down) when the context ends.

    Raises
    ------
    ClusterError
        When Dask is not installed, or no scheduler answers at ``address`` within
        :data:`CONNECT_SECONDS`.
    """
    address = check_address(address)
    distributed = _distributed()
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": ALLOWED_FAILURES}), \
            contextlib.ExitStack() as stack:
        if address == "local":
            cluster = stack.enter_context(distributed.LocalCluster(
                n_workers=workers or local_workers(), threads_per_worker=1, processes=True,
                dashboard_address=":0", silence_logs=logging.ERROR))
            client = stack.enter_context(distributed.Client(cluster))
        else:
            try:
                client = stack.enter_context(distributed.Client(address, timeout=CONNECT_SECONDS))
            except (OSError, TimeoutError) as err:
                raise ClusterError(
                    f"--cluster {address}: no Dask scheduler answered within {CONNECT_SECONDS:g} s "
                    f"({type(err).__name__}); start one there (dask scheduler, then dask worker "
                    f"{address} on each machine), or give --cluster local") from None
        yield DaskExecutor(client, address)


def code_identity() -> dict:
    """What makes two processes compute the same bits: tempnets' version and commit, numpy's
    and numba's versions, and the perturbation of initial weights (``$TEMPNETS_PERTURB``,
    which a worker started with it set would apply to every piece)."""
    from .experiments import _commit, _versions
    from .._numerics.random import perturbation

    v = _versions()
    return {"tempnets": v["tempnets"], "commit": _commit(), "numpy": v["numpy"], "numba": v["numba"],
            "perturb": perturbation()}


def _on_worker(fn, args):
    """Run a piece on a worker: ``(code_identity(), fn(*args))``, without a checkpoint (the
    worker need not share this machine's disk) or a progress bar."""
    return code_identity(), fn(*args, checkpoint=None, progress=False)


class DaskExecutor:
    """Runs pieces on the workers of a Dask ``client`` (see :func:`connect`)."""

    def __init__(self, client, address: str):
        self.client, self.address = client, address

    def workers(self) -> int:
        """The workers connected now."""
        return len(self.client.scheduler_info().get("workers", {}))

    def results(self, pieces, checkpoint=None, progress=None):
        """Yield ``(i, value)`` for each of ``pieces`` as it finishes on a worker.

        Raises
        ------
        ClusterError
            When the scheduler is lost, a piece kills :data:`ALLOWED_FAILURES` workers, or a
            worker runs other code than this process.
        """
        distributed = _distributed()
        ours = code_identity()
        futures = [self.client.submit(_on_worker, p.fn, p.args, pure=False, key=f"{p.key}-{os.urandom(4).hex()}")
                   for p in pieces]
        index = {f.key: i for i, f in enumerate(futures)}
        try:
            for future in distributed.as_completed(futures):
                theirs, value = self._result(future, pieces[index[future.key]].key)
                if theirs != ours:
                    raise ClusterError(f"a worker of {self.address} runs other code than this "
                                       f"process ({_differences(theirs, ours)}): a record comes "
                                       "from one code; install the same tempnets on every worker")
                yield index[future.key], value
        finally:
            self.client.cancel(futures)

    def _result(self, future, key):
        """The future's value; Dask's ways of failing made one-line :class:`ClusterError`\\ s
        (an exception of the piece itself is raised as it is)."""
        import asyncio
        import concurrent.futures

        distributed = _distributed()
        try:
            return future.result()
        except distributed.KilledWorker:
            raise ClusterError(f"piece {key} was running on {ALLOWED_FAILURES} workers that died "
                               "(out of memory?); the pieces finished are saved: fix the cause, "
                               "then the same command with --resume continues") from None
        except (asyncio.CancelledError, concurrent.futures.CancelledError, OSError, TimeoutError) as err:
            raise ClusterError(f"lost the Dask scheduler at {self.address} ({type(err).__name__}); "
                               "the pieces finished are saved: the same command with --resume "
                               "continues from them") from None


def _differences(theirs: dict, ours: dict) -> str:
    return ", ".join(f"{k} {theirs.get(k)!r} there, {ours.get(k)!r} here"
                     for k in sorted(set(theirs) | set(ours)) if theirs.get(k) != ours.get(k))


def seed_costs(seeds: int = 10) -> dict:
    """What a paper-scale robustness sweep of every recorded experiment would cost, from the
    committed records (``book/paper_scale/<id>.json`` made at paper scale): per experiment its
    wall time and threads, and the minutes one seed takes on one core, between that wall time
    and that wall time times its threads (a run on 2 threads takes between one and two times
    as long on one); and for ``seeds`` seeds of them all, the core-hours, as ``(low, high)``.

    Returns ``{"rows": [{"id", "minutes", "jobs", "one_core": (low, high)}, ...],
    "seed_core_hours": (low, high), "sweep_core_hours": (low, high), "longest": (id, low, high)}``."""
    from . import experiments
    from .._numerics.checks import count

    seeds = count("seeds", seeds, 1, 10**6)
    rows = []
    for e in experiments.EXPERIMENTS:
        path = experiments.find_record(f"paper_scale/{e.id}.json")
        if not path.is_file():
            continue
        record = experiments.read_record(path)
        if record["scale"] != "paper":
            continue
        minutes = record["wall_time_s"] / 60
        rows.append({"id": e.id, "minutes": minutes, "jobs": record["jobs"],
                     "one_core": (minutes, minutes * record["jobs"])})
    low, high = (sum(r["one_core"][i] for r in rows) / 60 for i in (0, 1))
    longest = max(rows, key=lambda r: r["one_core"][1]) if rows else None
    return {"rows": rows, "seed_core_hours": (low, high),
            "sweep_core_hours": (seeds * low, seeds * high),
            "longest": None if longest is None else (longest["id"], *longest["one_core"])}
