"""The registry of reproducible experiments behind ``python -m tempnets``.

Each chapter registers its experiments here by adding an :class:`Experiment`
to :data:`EXPERIMENTS`: an id, a one-line description and the dotted path
``"module:function"`` of a runner.  Runners are imported only when run, so
``python -m tempnets list`` stays instant.

A runner has the signature ``run(scale, seed, jobs, progress, trained=None)
-> Result``: ``scale`` is ``"book"`` or ``"paper"``, ``seed`` an int, ``jobs``
the number of cores to use (results must not depend on it), ``progress`` a
bool.  With ``trained=`` the ``data`` of an earlier result of the same
experiment it re-derives every claim from that data without training.

Plans
-----
A runner whose work splits into independent pieces (networks trained apart) declares them
once, as :class:`Piece` values, and hands them to :func:`run_pieces` with its ``jobs``;
such an experiment says so in the registry (``Experiment(..., pieces=True)``).
``jobs`` is then either a number of cores of this machine or a Dask cluster's executor
(:mod:`tempnets.book.cluster`, ``--cluster ADDRESS``): both run the same pieces, each finished
piece is saved in the run's checkpoint as it arrives, and the results are merged in the
pieces' order, so the record is the same bits either way.  :func:`robustness` is a plan
too, whose pieces are the seeds.

Records
-------
:func:`reproduce` runs an experiment and returns a *record*, a dict that
:func:`write_record` saves as JSON (atomically) and :func:`read_record` reads
back.  Its fields (:data:`RECORD_FIELDS`): ``id``, ``description``, ``scale``,
``seed``, ``jobs`` (the number of threads the run really used), ``command``
(the portable command line that repeats the run, ``python -m tempnets
reproduce ID --scale S --seed N --jobs J``), ``wall_time_s``, ``versions``,
``commit`` (the git commit of this project's checkout the package ran from,
with ``-dirty`` when it had local changes; ``None`` when not run from a
checkout), ``claims_title``, ``claims`` (the table's rows) and ``data`` (what
the runner returned); an optional ``note`` says anything unusual about the
run, and ``claims_rederived_at`` the commit whose code last re-derived the
claims (``python -m tempnets rederive RECORD --update``; the data is never
changed).  :func:`rederive` re-derives a record's claims with today's code; it
never trains.

Checkpoints
-----------
A runner that takes ``checkpoint=`` (a :class:`tempnets.training.checkpoint.Checkpoint`; see
:func:`resumable`) saves its work as it goes, and continues from what it finds there.
``reproduce(..., checkpoint_dir=DIR)`` gives it one for this run (:func:`checkpoint_identity`:
the experiment, scale, seed, perturbation, version and commit), and ``resume=True`` continues
an interrupted run from ``DIR``, to the same claims and data.  A resumed run's record says so
(``resumed``: how many sessions, their time in all; and a ``note``).  The caller removes the
checkpoint's files once the record is safely written (``record["_checkpoint"].remove()``: only
the files the checkpoint wrote, and its directory if the run created it).
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import json
import math
import os
import platform
import tempfile
import time
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from .._numerics.checks import count, is_finite_real, real
from .claims import ClaimsTable
from .scale import SCALES, get_scale

_PACKAGE = Path(__file__).resolve().parents[1]
"""The ``tempnets`` folder (this module is in its ``book`` layer)."""

__all__ = ["EXPERIMENTS", "CHAPTER_SEED", "Experiment", "Result", "UnknownExperiment", "RecordNotFound", "get",
           "reproduce", "robustness", "read_record", "describe_record", "rederive", "robustness_counts",
           "paper_verdicts"]
# (The rest is the machinery of the command line and the chapter modules: importable, not walked
# by tests/test_public_surface.py, which checks what a reader of the book calls.)

RECORD_FIELDS = ("id", "scale", "seed", "jobs", "command", "wall_time_s", "versions", "commit",
                 "claims_title", "claims", "data")
"""Fields every record holds (``description`` and ``note`` are optional)."""


@dataclass
class Result:
    """What a runner returns: its claims table and JSON-serialisable data."""

    claims: ClaimsTable
    data: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Experiment:
    """A registered experiment: ``id``, one-line ``description``, runner ``target``.

    ``needs`` maps a runner keyword to the id of another experiment whose
    result it compares with (e.g. ``{"baseline": "pa-8.1"}``): :func:`rederive`
    passes that experiment's record, found beside the one being re-derived.
    """

    id: str
    description: str
    target: str
    needs: tuple = ()
    pieces: bool = False
    """Whether the runner declares its independent pieces (:func:`run_pieces`), so that they
    can run on a cluster (``reproduce ID --cluster ADDRESS``)."""

    def runner(self):
        """Import and return the runner function."""
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)


EXPERIMENTS: tuple[Experiment, ...] = (
    Experiment("gsm-reber-count",
               "Servan-Schreiber et al. §3.1: the Reber grammar has 43 strings of 3-8 letters",
               "tempnets.chapters.graded_state_machines:run_reber_count"),
    Experiment("gsm-reber-3hu",
               "Servan-Schreiber et al. §2.4-2.5: 3 hidden units learn the Reber grammar (acceptance, random sequences, clusters)",
               "tempnets.chapters.graded_state_machines:run_reber_3hu"),
    Experiment("gsm-21-strings",
               "Servan-Schreiber et al. §3: 21 training strings, 15 units, 2000 epochs (tss, length constraints, generalisation)",
               "tempnets.chapters.graded_state_machines:run_21_strings"),
    Experiment("gsm-acp",
               "Servan-Schreiber et al. §4, Fig. 17: learning phases via conditional probabilities of order 0-6",
               "tempnets.chapters.graded_state_machines:run_acp"),
    Experiment("gsm-problem3",
               "Servan-Schreiber et al. §5.1: PSSSP vs TSSST, plateau and hidden-units x embedding sweep",
               "tempnets.chapters.graded_state_machines:run_problem3"),
    Experiment("gsm-embedded",
               "Servan-Schreiber et al. §5.2, Figs. 19-20: symmetrical vs asymmetrical embedded sub-grammar",
               "tempnets.chapters.graded_state_machines:run_embedded"),
    Experiment("pa-2.1",
               "O'Connell Fig. 2.1: an SRN learns the short-term task before the indicator leaves a trace",
               "tempnets.chapters.periodically_attentive_units:run_fig2_1"),
    Experiment("pa-4.2",
               "O'Connell Figs. 4.2-4.3: SRN vs PA network on the embedded Reber grammar",
               "tempnets.chapters.periodically_attentive_units:run_fig4_2"),
    Experiment("pa-5.2",
               "O'Connell Fig. 5.2: the PA networks on strings of >= 50 and >= 300 letters",
               "tempnets.chapters.periodically_attentive_units:run_fig5_2"),
    Experiment("pa-6.2",
               "O'Connell Fig. 6.2: SRN vs PA with a time-varying indicator",
               "tempnets.chapters.periodically_attentive_units:run_fig6_2"),
    Experiment("pa-8.1",
               "O'Connell Fig. 8.1: BPTT(3,1), BPTT(4,1), BPTT(5,1)",
               "tempnets.chapters.periodically_attentive_units:run_fig8_1"),
    Experiment("pa-8.2-8.3",
               "O'Connell Figs. 8.2-8.3: BPTT(4,1), BPTT(5,1) on long strings",
               "tempnets.chapters.periodically_attentive_units:run_fig8_2_8_3"),
    Experiment("pa-8.4",
               "O'Connell Fig. 8.4: PA networks trained with BPTT(h,1)",
               "tempnets.chapters.periodically_attentive_units:run_fig8_4",
               needs=(("baseline", "pa-8.1"),)),
    Experiment("pa-8.5",
               "O'Connell Fig. 8.5: BPTT(h,1) with a time-varying indicator",
               "tempnets.chapters.periodically_attentive_units:run_fig8_5"),
    Experiment("pa-framing",
               "O'Connell ch. 8 check: BPTT(5,1) with and without the inner B/E",
               "tempnets.chapters.periodically_attentive_units:run_framing"),
    Experiment("mozer-dear",
               "Mozer Table 1, Fig. 3: DEAR/DEAN/BEAR/BEAN, 50 focused 6-2-4 networks (median epochs 488)",
               "tempnets.chapters.focused_backprop:run_dear"),
    Experiment("mozer-verbs",
               "Mozer Table 2, Figs. 4-5: 60 regular verbs, focused vs full 8-2-3 networks",
               "tempnets.chapters.focused_backprop:run_verbs"),
    Experiment("mozer-reversed",
               "Mozer Fig. 6: reversed regular verbs, the focused net learns, the full net does not",
               "tempnets.chapters.focused_backprop:run_reversed"),
    Experiment("mozer-reproduce",
               "Mozer Table 3, Fig. 7: sequence reproduction at delays 1 and 4 (767 vs 620; 12/15 vs 2/15)",
               "tempnets.chapters.focused_backprop:run_reproduce"),
    Experiment("mozer-large-verbs",
               "Mozer Table 4, Figs. 8-9: 136 verbs in 13 categories, 613 vs 621 weights",
               "tempnets.chapters.focused_backprop:run_large_verbs"),
    Experiment("mozer-rates",
               "Mozer, Implementation details: mu, rho, omega tuned per task and architecture (verbs, reproduction at delays 1 and 4), the claims re-measured",
               "tempnets.chapters.mozer_rates:run_rates"),
    Experiment("fw-flipflop",
               "Schmidhuber 1991 §3 exp. 1: fast weights learn the flip-flop, interfaces (4) and (5), vs RTRL",
               "tempnets.chapters.fast_weights:run_flipflop",
               pieces=True),
    Experiment("fw-parking",
               "Schmidhuber 1991 §3 exp. 2: fast weights bind WHERE-IS-MY-CAR? to a parking slot, vs RTRL",
               "tempnets.chapters.fast_weights:run_parking",
               pieces=True),
    Experiment("fw-linear-attention",
               "Schlag et al. 2021: linear attention == additive fast weights; additive writes cannot latch",
               "tempnets.chapters.fast_weights:run_linear_attention",
               pieces=True),
    Experiment("tk-kernels",
               "Sutskever & Hinton §3: the exponential kernel of a TKRNN unit, a non-monotone TKRNN+2 kernel, parameter counts",
               "tempnets.chapters.temporal_kernels:run_kernels"),
    Experiment("tk-serial-recall",
               "Sutskever & Hinton §1: serial recall by RNN, TKRNN, TKRNN+2 and LSTM against delay (reconstructed task)",
               "tempnets.chapters.temporal_kernels:run_serial_recall",
               pieces=True),
    Experiment("tk-long-delays",
               "Sutskever & Hinton §1: the 6-bit serial-recall task trained on delays 2-50, tested up to 100",
               "tempnets.chapters.temporal_kernels:run_long_delays",
               pieces=True),
    Experiment("tk-search",
               "Sutskever & Hinton, the TKRNN chapter: one search over initial scale x learning rate for RNN, TKRNN, TKRNN+2 and LSTM",
               "tempnets.chapters.temporal_kernels:run_search",
               pieces=True),
    Experiment("tk-training-search",
               "Sutskever & Hinton, the 35-bit task: which training (list lengths, curriculum, learning-rate schedule, initial scale, forget bias) makes it learnable, LSTM and TKRNN",
               "tempnets.chapters.temporal_kernels:run_training_search",
               pieces=True),
    Experiment("tk-readings",
               "Sutskever & Hinton, the 35-bit task: readings of what the paper leaves out (recall posing, decays, read-out, letters, training), screened on TKRNNs against today's",
               "tempnets.chapters.tk_readings:run_readings",
               pieces=True),
    Experiment("tk-reading-recall",
               "Sutskever & Hinton §1: tk-serial-recall under the adopted reading (tk_readings.ADOPTED), 6 networks per model at paper scale",
               "tempnets.chapters.tk_readings:run_reading_recall",
               pieces=True),
)


def check_data(data, keys, experiment_id: str):
    """Return ``data`` (a result's or a record's ``data``, or a :class:`Result`) if it holds ``keys``.

    Runners call it on ``trained=``: what is missing is a ``ValueError``
    naming the experiment and the keys, never a ``KeyError`` deep inside.
    """
    data = data.data if isinstance(data, Result) else data
    if not isinstance(data, dict):
        raise ValueError(f"trained= must be the data of a {experiment_id} result (a dict), "
                         f"got {type(data).__name__}")
    missing = [k for k in keys if k not in data]
    if missing:
        raise ValueError(f"trained= must be the data of a {experiment_id} result; missing "
                         f"{', '.join(missing)}")
    return data


class RecordNotFound(FileNotFoundError, ValueError):
    """A record file that does not exist (a ``FileNotFoundError`` naming it, and a
    ``ValueError``: a bad argument)."""


class UnknownExperiment(KeyError, ValueError):
    """An experiment id that is not registered (a ``KeyError``, as before, and a ``ValueError``:
    a bad argument)."""


def get(experiment_id: str) -> Experiment:
    """Return the experiment with this id, or raise :class:`UnknownExperiment` (a ``KeyError``)
    listing the known ids."""
    for e in EXPERIMENTS:
        if e.id == experiment_id:
            return e
    known = ", ".join(e.id for e in EXPERIMENTS)
    raise UnknownExperiment(f"unknown experiment id {experiment_id!r:.80}; known ids: {known}")


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for pkg in ("tempnets", "numpy", "scipy", "numba", "matplotlib"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    return out


def _git(args, cwd) -> str | None:
    import subprocess

    try:
        out = subprocess.run(["git", *args], capture_output=True, text=True, timeout=10, cwd=cwd)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _commit(package_dir=None) -> str | None:
    """The commit of this project's checkout that ``tempnets`` runs from, ``-dirty`` if changed.

    ``None`` unless the package sits at the top of a git checkout of this
    project (a ``pyproject.toml`` naming ``tempnets`` beside it): an installed
    copy inside some other repository must not record that repository's commit.
    """
    package_dir = Path(package_dir or _PACKAGE)
    root = package_dir.parent
    top = _git(["rev-parse", "--show-toplevel"], package_dir)
    if not top or Path(top).resolve() != root.resolve():
        return None
    try:
        if 'name = "tempnets"' not in (root / "pyproject.toml").read_text(encoding="utf-8"):
            return None
    except OSError:
        return None
    head = _git(["rev-parse", "--short", "HEAD"], root)
    if not head:
        return None
    changes = _git(["status", "--porcelain", "--untracked-files=no"], root)
    return head + ("-dirty" if changes is None or changes else "")


def threads_used(jobs: int) -> int:
    """The number of threads a run asked to use ``jobs`` cores really gets (numba's limit)."""
    import numba

    return max(1, min(int(jobs), numba.config.NUMBA_NUM_THREADS))


@contextlib.contextmanager
def numba_threads(jobs: int):
    """Run numba's parallel loops on ``jobs`` threads (at most :func:`threads_used`), then
    restore the old count.  Results do not depend on it: runners split work by network."""
    import numba

    old = numba.get_num_threads()
    numba.set_num_threads(threads_used(count("jobs", jobs, 1)))
    try:
        yield
    finally:
        numba.set_num_threads(old)


# ----------------------------------------------------------------------------- plans

@dataclass(frozen=True)
class Piece:
    """One independent piece of a run: ``fn(*args, checkpoint=C, progress=P)``, whose value
    is saved in the run's checkpoint under ``key`` with what it was ``made_from``.

    ``fn`` is a module-level function (it travels to other processes by name).  The
    ``checkpoint`` it is given is for its own work in progress (a network's training state);
    it is ``None`` on a cluster, whose workers need not share this machine's disk."""

    key: str
    made_from: object
    fn: object
    args: tuple = ()


@dataclass(frozen=True)
class Cores:
    """The executor of ``--jobs``: pieces in ``jobs`` processes of this machine, or one after
    another in this process when ``jobs`` is 1."""

    jobs: int = 1

    def results(self, pieces, checkpoint=None, progress=None):
        """Yield ``(i, value)`` for each of ``pieces`` as it finishes."""
        if self.jobs <= 1:
            for i, p in enumerate(pieces):
                yield i, p.fn(*p.args, checkpoint=checkpoint, progress=progress)
            return
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        # spawn, not fork: numba's threads do not survive a fork
        with ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            index = {pool.submit(p.fn, *p.args, checkpoint=checkpoint, progress=False): i
                     for i, p in enumerate(pieces)}
            for done in as_completed(index):
                yield index[done], done.result()


def executor(jobs):
    """The executor that runs pieces for ``jobs``: :class:`Cores` for a number of cores (at
    most :func:`threads_used`), or ``jobs`` itself when it is one (``.results(pieces,
    checkpoint, progress)``, as :class:`tempnets.book.cluster.DaskExecutor`)."""
    return jobs if hasattr(jobs, "results") else Cores(threads_used(count("jobs", jobs, 1)))


def run_pieces(pieces, jobs=1, progress=None, checkpoint=None, what="networks") -> list:
    """The values of ``pieces`` (:class:`Piece`), in their order, on :func:`executor` ``(jobs)``.

    With a :class:`~tempnets.training.checkpoint.Checkpoint`, a piece saved there is not computed
    again, and each piece computed is saved there as it arrives, so that an interrupted run
    (a lost cluster, Ctrl-C) continues with ``--resume`` from every piece it finished."""
    from ..training.progress import progress_bar

    run = executor(jobs)
    values = [None if checkpoint is None else checkpoint.load(p.key, p.made_from) for p in pieces]
    todo = [i for i, v in enumerate(values) if v is None]
    one_by_one = isinstance(run, Cores) and run.jobs == 1  # each piece shows its own bar
    with progress_bar(len(pieces), what, False if one_by_one else progress, unit=what) as bar:
        bar.update(len(pieces) - len(todo))
        if todo:
            for j, value in run.results([pieces[i] for i in todo], checkpoint, progress):
                i = todo[j]
                if checkpoint is not None:
                    checkpoint.save(pieces[i].key, value, pieces[i].made_from)
                values[i] = value
                bar.update(1)
    return values


def check_cluster(experiment_id: str, perturb: float = 0.0) -> None:
    """Raise ``ValueError`` unless the experiment's pieces can run on a cluster (``--cluster``),
    unperturbed (the perturbation, ``$TEMPNETS_PERTURB``, does not reach running workers)."""
    if perturb:
        raise ValueError("--perturb and --cluster: a perturbed run runs with --jobs (the "
                         "perturbation does not reach a cluster's running workers)")
    if not get(experiment_id).pieces:
        can = ", ".join(e.id for e in EXPERIMENTS if e.pieces)
        raise ValueError(f"--cluster: {experiment_id} does not split into pieces a cluster can run; "
                         f"experiments that do: {can} (and every experiment's robustness seeds)")


CHAPTER_SEED = 0
"""The seed a chapter runs with: the verdicts it states (``expected``) are this seed's."""


def command_line(experiment_id: str, scale: str, seed: int, jobs: int, perturb: float = 0.0) -> str:
    """The portable command line that repeats a run (a record's ``command``)."""
    extra = f" --perturb {perturb!r}" if perturb else ""
    return (f"python -m tempnets reproduce {experiment_id} --scale {scale} --seed {seed} "
            f"--jobs {jobs}{extra}")


SMALLEST_PERTURB = 2.0 ** -52
"""The smallest relative perturbation of the initial weights accepted (besides 0): float64's
machine epsilon, the relative spacing of float64 numbers at 1.  ``1 + EPS u`` with a smaller
``EPS`` moves a weight by less than one spacing, so it leaves most weights as they were, and
a record saying the run was perturbed would misdescribe it."""


def check_perturb(perturb) -> float:
    """``perturb`` as a float after checking it is 0 or in [:data:`SMALLEST_PERTURB`, 1), and
    that ``$TEMPNETS_PERTURB`` does not ask for another perturbation.

    The command line takes the perturbation only from ``--perturb``: a run made with
    ``$TEMPNETS_PERTURB`` set to anything else is refused, so that its record (``perturb``,
    ``command``) describes exactly the run that made it.

    Raises
    ------
    ValueError
        Naming ``perturb`` or ``$TEMPNETS_PERTURB``, the value and what is allowed.
    """
    from .._numerics.random import PERTURB_VARIABLE

    eps = real("perturb", perturb, low=0.0, high=1.0, high_open=True)
    if 0.0 < eps < SMALLEST_PERTURB:
        raise ValueError(f"perturb {perturb!r} is too small to change a float64 weight: it must be "
                         f"0 or at least 2**-52 = {SMALLEST_PERTURB:.3g} (the relative spacing of "
                         "float64 numbers)")
    text = os.environ.get(PERTURB_VARIABLE, "").strip()
    if text:
        try:
            same = float(text) == eps
        except ValueError:
            raise ValueError(f"${PERTURB_VARIABLE} must be a number in [0, 1), got {text!r}; unset "
                             "it (a run takes its perturbation from --perturb)") from None
        if not same:
            raise ValueError(f"${PERTURB_VARIABLE}={text} is set, but this run asks for perturbation "
                             f"{eps!r}: a record must describe the run that made it; unset "
                             f"{PERTURB_VARIABLE} (a run takes its perturbation from --perturb), or "
                             f"give --perturb {text}")
    return eps


def resumable(experiment_id: str) -> bool:
    """Whether the experiment's runner keeps a checkpoint (takes ``checkpoint=``)."""
    return "checkpoint" in inspect.signature(get(experiment_id).runner()).parameters


def checkpoint_identity(experiment_id: str, scale: str, seed: int, perturb: float = 0.0) -> dict:
    """What makes two runs the same run, as a checkpoint records it: resuming from a
    checkpoint whose identity differs is refused (the same code means the same version,
    commit and numpy; ``jobs`` may differ, as results do not depend on it)."""
    v = _versions()
    return {"experiment": experiment_id, "scale": scale, "seed": seed, "perturb": float(perturb),
            "tempnets": v["tempnets"], "numpy": v["numpy"], "commit": _commit()}


def check_checkpoint(experiment_id: str, scale: str, seed: int = 0, perturb: float = 0.0,
                     checkpoint_dir=None, resume: bool = False) -> None:
    """Raise ``ValueError`` unless :func:`reproduce` could run with these checkpoint options
    (called before a long run, so that a mistake fails at once); changes nothing."""
    from ..training.checkpoint import check_checkpoint as check

    if resume and not resumable(experiment_id):
        can = ", ".join(e.id for e in EXPERIMENTS if resumable(e.id))
        raise ValueError(f"--resume: {experiment_id} keeps no checkpoint (it cannot be interrupted "
                         f"and continued); experiments that do: {can}")
    if resume and checkpoint_dir is None:
        raise ValueError("resume=True needs the checkpoint_dir of the interrupted run")
    if checkpoint_dir is not None and resumable(experiment_id):
        check(checkpoint_dir, checkpoint_identity(experiment_id, get_scale(scale), seed, perturb),
              resume)


def reproduce(experiment_id: str, scale: str | None = None, seed: int = 0, jobs: int = 1,
              progress: bool | None = None, perturb: float = 0.0, checkpoint_dir=None,
              resume: bool = False, checkpoint_every: float = 300.0) -> dict:
    """Run one experiment and return a JSON-ready record of it (see the module docstring).

    ``jobs`` is capped at the threads numba has (:func:`threads_used`); the
    record stores what was used.  ``jobs`` may also be a cluster's executor
    (:mod:`tempnets.book.cluster`) for an experiment that declares its pieces
    (:func:`check_cluster`); the record is then that of ``jobs=1``, apart from its wall time.  With ``perturb`` = EPS > 0 every initial weight
    is multiplied by ``1 + EPS u`` (:func:`tempnets._numerics.random.perturbed`), and the
    record says so (``"perturb"``); :func:`check_perturb` says what is allowed (an
    ``EPS`` too small to change a float64, or ``$TEMPNETS_PERTURB`` asking for another, is
    refused).  The claims are not verified here (the
    caller decides what a failure means); the record carries the table as
    ``"_table"`` (left out when written).

    With ``checkpoint_dir``, an experiment that can (:func:`resumable`) keeps its
    work there, saving at least every ``checkpoint_every`` seconds; others ignore
    it.  ``resume=True`` continues the interrupted run whose checkpoint is there
    (refused for an experiment that keeps none, or a checkpoint of another run:
    :func:`check_checkpoint`).  The record then carries the checkpoint as
    ``"_checkpoint"``, for the caller to remove once the record is written.
    """
    from ..training.checkpoint import open_checkpoint
    from .._numerics.random import perturbing

    experiment = get(experiment_id)
    scale = get_scale(scale)
    seed = count("seed", seed)  # np.int64 too; plain ints for JSON
    on_cluster = hasattr(jobs, "results")
    if on_cluster:
        check_cluster(experiment_id, perturb)
    else:
        jobs = threads_used(count("jobs", jobs, 1))
    perturb = check_perturb(perturb)
    check_checkpoint(experiment_id, scale, seed, perturb, checkpoint_dir, resume)
    checkpoint, extra = None, {}
    if checkpoint_dir is not None and resumable(experiment_id):
        checkpoint = open_checkpoint(checkpoint_dir, checkpoint_identity(experiment_id, scale, seed,
                                                                         perturb),
                                     resume, every_seconds=checkpoint_every)
        extra["checkpoint"] = checkpoint
    start = time.perf_counter()
    with perturbing(perturb) if perturb else contextlib.nullcontext():
        result = experiment.runner()(scale=scale, seed=seed, jobs=jobs, progress=progress, **extra)
    wall = time.perf_counter() - start
    jobs = 1 if on_cluster else jobs  # each piece ran on one thread: the record of --jobs 1
    record = {
        "id": experiment.id, "description": experiment.description, "scale": scale,
        "seed": seed, "jobs": jobs, "command": command_line(experiment.id, scale, seed, jobs, perturb),
        "wall_time_s": round(wall, 3), "versions": _versions(), "commit": _commit(),
        "claims_title": result.claims.title, "claims": result.claims.rows(),
        "data": result.data, "_table": result.claims,
    }
    if perturb:
        record["perturb"] = perturb
    if checkpoint is not None:
        record["_checkpoint"] = checkpoint
        if checkpoint.session:
            total = checkpoint.earlier_seconds() + wall
            record["resumed"] = {"sessions": checkpoint.session + 1, "wall_time_s_all_sessions":
                                 round(total, 3)}
            record["note"] = (f"resumed from a checkpoint: {checkpoint.session + 1} sessions, "
                              f"{total / 60:.1f} min in all (wall_time_s is the last session's); "
                              "the same claims and data as a run never interrupted")
    return record


def outcome_counts(claim_rows: list[list[dict]]) -> dict:
    """Per claim (by statement), how many runs gave each outcome (``holds``, ``does not hold``,
    ``inconclusive at this scale``, or ``not tested`` when a run did not make the claim, e.g.
    because no network learned what it is about): ``{statement: {outcome: n}}``.

    ``claim_rows`` holds one list of :meth:`ClaimsTable.rows` per run."""
    from .claims import NOT_TESTED, OUTCOMES

    counts: dict = {}
    for rows in claim_rows:
        for r in rows:
            counts.setdefault(r["statement"], {})
    for rows in claim_rows:
        made = {r["statement"]: NOT_TESTED if r.get("not_tested") else OUTCOMES[r["holds"]]
                for r in rows}
        for statement, c in counts.items():
            word = made.get(statement, NOT_TESTED)
            c[word] = c.get(word, 0) + 1
    return counts


ROBUSTNESS_DATA_LIMIT = 50_000
"""Largest JSON size (bytes) of one seed's data kept in a robustness record: larger data is left
out (``"data": null``), so that a committed record stays small; its counts are then re-derived
by running again."""


def robustness(experiment_id: str, seeds: int = 10, scale: str | None = None, jobs: int = 1,
               progress: bool | None = None, data_limit: float = ROBUSTNESS_DATA_LIMIT,
               checkpoint_dir=None, resume: bool = False) -> dict:
    """Run an experiment with seeds ``0 .. seeds - 1`` and count, per claim, the seeds that
    gave each outcome.  Returns a JSON-ready robustness record (``ID.robustness.json``):
    ``id``, ``scale``, ``seeds``, ``command``, ``wall_time_s``, ``versions``, ``commit``,
    ``counts`` (:func:`outcome_counts`) and ``runs`` (per seed: its claims and data, so
    that :func:`rederive_robustness` can re-derive every count without training).

    Each seed is a piece (:func:`run_pieces`): with ``jobs`` a number of cores the seeds run
    one after another on that many threads; with ``jobs`` a cluster's executor
    (:mod:`tempnets.book.cluster`) side by side on its workers, one thread each, to the same
    record.  With ``checkpoint_dir`` each finished seed is saved there as it arrives, and
    ``resume=True`` continues from the seeds saved (the caller removes the checkpoint,
    ``record["_checkpoint"]``, once the record is written)."""
    from ..training.checkpoint import open_checkpoint

    experiment = get(experiment_id)
    scale = get_scale(scale)
    seeds = count("seeds", seeds, 1)
    on_cluster = hasattr(jobs, "results")
    threads = 1 if on_cluster else threads_used(count("jobs", jobs, 1))
    checkpoint = None
    if checkpoint_dir is not None:
        checkpoint = open_checkpoint(checkpoint_dir, robustness_identity(experiment_id, scale, seeds),
                                     resume)
    pieces = [Piece(f"seed-{seed}", {"experiment": experiment.id, "scale": scale, "seed": seed},
                    _seed_run, (experiment.id, scale, seed, threads, data_limit))
              for seed in range(seeds)]
    start = time.perf_counter()
    runs = run_pieces(pieces, jobs if on_cluster else 1, progress, checkpoint, what="seeds")
    record = {"id": experiment.id, "description": experiment.description, "scale": scale,
              "seeds": seeds, "jobs": threads,
              "command": f"python -m tempnets robustness {experiment.id} --seeds {seeds} --scale {scale}",
              "wall_time_s": round(time.perf_counter() - start, 3), "versions": _versions(),
              "commit": _commit(), "counts": outcome_counts([r["claims"] for r in runs]),
              "runs": runs}
    if checkpoint is not None:
        record["_checkpoint"] = checkpoint
    return record


def robustness_identity(experiment_id: str, scale: str, seeds: int) -> dict:
    """What makes two robustness runs the same, as their checkpoint records it."""
    return dict(checkpoint_identity(experiment_id, scale, 0), seed=f"0..{seeds - 1}")


def _seed_run(experiment_id, scale, seed, jobs, data_limit, checkpoint=None, progress=None) -> dict:
    """One seed of :func:`robustness` (a piece): its wall time, claims, and data when its JSON
    is at most ``data_limit`` bytes.  (Its own ``checkpoint`` is unused: a seed is saved whole.)"""
    rec = reproduce(experiment_id, scale, seed, jobs, progress)
    small = len(json.dumps(rec["data"], default=_jsonable)) <= data_limit
    return {"seed": seed, "wall_time_s": rec["wall_time_s"], "claims": rec["claims"],
            "data": rec["data"] if small else None}


def robustness_path(experiment_id: str) -> str:
    """Where a robustness record is committed: ``paper_scale/ID.robustness.json``."""
    return f"paper_scale/{experiment_id}.robustness.json"


def robustness_counts(experiment_id: str) -> dict:
    """The committed robustness counts of an experiment (see :func:`robustness`), ``{}`` if none:
    for :meth:`ClaimsTable.with_robustness`."""
    path = find_record(robustness_path(get(experiment_id).id))
    if not path.is_file():
        return {}
    return read_robustness_record(path)["counts"]


def paper_verdicts(experiment_id: str) -> dict:
    """The verdicts of an experiment's committed paper-scale record, by statement (``holds``,
    ``does not hold``, ``inconclusive``, ``undecidable by design``, ``not tested``); ``{}`` when
    it has none: for :meth:`ClaimsTable.with_paper_scale`, under the book-scale table's verdicts.
    The recorded verdicts are today's: a test re-derives every record to them."""
    path = find_record(f"paper_scale/{get(experiment_id).id}.json")
    if not path.is_file():
        return {}
    record = read_record(path)
    if record.get("scale") != "paper":
        return {}
    return {c.statement: c.category for c in record["_table"].claims}


def read_robustness_record(path) -> dict:
    """Read a robustness record (written by ``python -m tempnets robustness``), checked whole:
    ``id`` a known experiment, ``scale`` one of :data:`SCALES`, ``seeds`` >= 1, ``runs`` one per
    seed ``0 .. seeds - 1`` (each with its ``claims`` rows and its ``data``, an object or ``null``
    when it was too large to keep), ``counts`` an object, ``wall_time_s`` >= 0.

    Raises
    ------
    ValueError
        One line naming the file and the first field that is wrong.
    """
    path = Path(path)
    record = _json_object(path, "a robustness record", {"id", "scale", "seeds", "runs", "counts", "wall_time_s"})
    bad = _bad_field(path, "robustness record")
    if not isinstance(record["id"], str):
        raise bad("id", "an experiment id", record["id"])
    try:
        get(record["id"])
    except KeyError as err:
        raise ValueError(f"{path}: {err.args[0]}") from None
    if record["scale"] not in SCALES:
        raise bad("scale", f"one of {', '.join(SCALES)}", record["scale"])
    _checked(bad, "seeds", lambda v: count("seeds", v, 1), record["seeds"])
    _checked(bad, "wall_time_s", lambda v: real("wall_time_s", v, low=0.0), record["wall_time_s"])
    if not isinstance(record["counts"], dict):
        raise bad("counts", "an object", record["counts"])
    runs = record["runs"]
    if not isinstance(runs, list) or len(runs) != record["seeds"]:
        raise bad("runs", f"a list of {record['seeds']} runs (one per seed)", runs)
    for i, run in enumerate(runs):
        if not isinstance(run, dict) or not {"seed", "claims", "data"} <= set(run):
            raise bad(f"runs[{i}]", "an object with seed, claims and data", run)
        if run["seed"] != i or isinstance(run["seed"], bool):
            raise bad(f"runs[{i}].seed", f"{i} (seeds 0 .. {record['seeds'] - 1} in order)", run["seed"])
        _check_claim_rows(bad, f"runs[{i}].claims", run["claims"])
        if run["data"] is not None and not isinstance(run["data"], dict):
            raise bad(f"runs[{i}].data", "an object (or null)", run["data"])
    _check_integers(path, record)
    return record


def rederive_robustness(path) -> dict:
    """Re-derive every seed's claims of a robustness record from its data (never trains) and
    return the record with new ``runs[i]["claims"]`` and ``counts``.

    Reads exactly ``path`` (checked by :func:`read_robustness_record`)."""
    from ..training.srn_trainers import TrainingForbidden, no_training

    path = Path(path)
    record = read_robustness_record(path)
    experiment = get(record["id"])
    if experiment.needs:
        raise ValueError(f"{path}: {experiment.id} compares with another experiment's record; "
                         "its robustness counts cannot be re-derived seed by seed")
    runner = experiment.runner()
    runs = []
    for run in record["runs"]:
        if run.get("data") is None:
            raise ValueError(f"{path}: seed {run.get('seed')}'s data was too large to keep; "
                             f"run again: {record.get('command', 'python -m tempnets robustness ID')}")
        try:
            with no_training(f"re-deriving {path}"):
                result = runner(scale=record["scale"], seed=run["seed"], jobs=1, progress=False,
                                trained=run["data"])
        except (KeyError, TypeError, IndexError, AttributeError, ArithmeticError, ValueError,
                TrainingForbidden) as err:
            raise ValueError(f"{path}: seed {run.get('seed')}: the data cannot be re-derived "
                             f"({type(err).__name__}: {err})") from err
        runs.append(dict(run, claims=result.claims.rows()))
    return dict(record, runs=runs, counts=outcome_counts([r["claims"] for r in runs]))


def check_writable(path, replaces: str | None = None) -> Path:
    """Raise ``ValueError`` naming ``path`` unless a record can be written there.

    Called before a long run, so that a mistyped ``--out`` fails at once: the
    directory must exist and accept a new file, and ``path`` must not be a
    directory.  With ``replaces`` (``"record"`` or ``"robustness record"``) an existing
    file at ``path`` must be a record of that kind written by ``python -m tempnets``
    (the run replaces it): a command never overwrites a file it did not write.
    """
    if not str(path).strip():
        raise ValueError("--out must name a file, got an empty name")
    path = Path(path)
    folder = path.parent
    try:
        path.is_dir()
    except OSError as err:  # e.g. a name over the file system's 255 bytes
        raise ValueError(f"--out {str(path)!r}: {err.strerror or err}") from None
    if path.is_dir():
        raise ValueError(f"--out {str(path)!r} is a directory; give a file name, e.g. "
                         f"{str(path / 'record.json')!r}")
    if not folder.is_dir():
        raise ValueError(f"--out {str(path)!r}: the directory {str(folder)!r} does not exist")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".probe")
    except OSError as err:
        raise ValueError(f"--out {str(path)!r}: cannot write in {str(folder)!r} "
                         f"({err.strerror or err})") from None
    os.close(fd)
    os.unlink(probe)
    if replaces is not None and os.path.lexists(path):
        _check_replaceable(path, replaces)
    return path


def _check_replaceable(path: Path, kind: str) -> None:
    """Raise unless ``path`` holds a ``kind`` (``"record"``, ``"robustness record"``) that
    ``python -m tempnets`` wrote, which a new run may replace."""
    try:
        found = _load_json(path, f"a tempnets {kind}")
        ours = (isinstance(found, dict) and isinstance(found.get("id"), str)
                and str(found.get("command", "")).startswith("python -m tempnets ")
                and ("runs" in found) == (kind == "robustness record"))
        why = "" if ours else "it holds other JSON"
    except ValueError:
        why = "it holds something else than JSON"
    except OSError as err:
        why = f"it cannot be read: {err.strerror or err}"
    if why:
        raise ValueError(f"--out {str(path)!r} exists and is not a {kind} of python -m tempnets "
                         f"({why}): a command never overwrites a file it did not write; give "
                         "another --out, or move that file away")


def write_record(record: dict, path, compact: bool = False) -> None:
    """Write a :func:`reproduce` record as JSON (the in-memory table object is left out).

    Indented, or on one line with ``compact=True`` (as the committed records are).
    Standard JSON (:func:`_standard`): a NaN (a missing value) is written as ``null``, an
    infinity as the string ``"inf"`` or ``"-inf"``, which ``float()`` reads back.

    Atomic: the JSON goes to a temporary file in the same directory, which then
    replaces ``path``; if anything fails (a full disk, an interrupt), ``path``
    keeps what it held before.
    """
    clean = _standard({k: v for k, v in record.items() if not k.startswith("_")})
    path = Path(path)
    layout = {"separators": (",", ":")} if compact else {"indent": 2}
    text = json.dumps(clean, allow_nan=False, **layout) + "\n"  # fails before touching disk
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would make the record private
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def find_record(path) -> Path:
    """Where the committed record ``path`` (such as ``paper_scale/gsm-acp.json``) is.

    ``path`` itself when it exists.  Otherwise, for a relative path into a
    ``paper_scale`` folder, the file of that name among the committed records:
    those of this checkout (``book/paper_scale/``, whatever the working
    directory) or those installed with the package (``tempnets/paper_scale/``,
    as in Colab, where a chapter runs without the book's folders).  Failing
    both, ``path`` unchanged, so that reading it names it.
    """
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise TypeError(f"path must name a record file (a str or a Path), got {path!r:.60}")
    path = Path(path)
    try:
        exists = path.exists()
    except OSError:  # a name too long for the file system: reading it says so
        return path
    if exists or path.is_absolute() or path.parent.name != "paper_scale":
        return path
    package = _PACKAGE
    for folder in (package.parent / "book" / "paper_scale", package / "paper_scale"):
        if (folder / path.name).is_file():
            return folder / path.name
    return path


MAX_RECORD_BYTES = 50_000_000
"""Largest file :func:`read_record` reads (the committed records are under 1 MB)."""


def _read_text(path) -> str:
    """The text of a record file, refusing anything that is not a regular file of at most
    :data:`MAX_RECORD_BYTES` before reading it (``/dev/zero`` would never end)."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as err:
        if isinstance(err, FileNotFoundError):
            raise RecordNotFound(err.errno, "No such record file (path)", str(path)) from None
        raise ValueError(f"path {str(path)!r:.80}: {err.strerror or err}") from None
    if not path.is_file():
        raise ValueError(f"path {path}: not an experiment record (not a regular file)")
    if size > MAX_RECORD_BYTES:
        raise ValueError(f"path {path}: not an experiment record ({size / 1e6:.0f} MB; records are at most "
                         f"{MAX_RECORD_BYTES / 1e6:.0f} MB)")
    with open(path, encoding="utf-8") as fh:
        return fh.read(MAX_RECORD_BYTES + 1)


def _json_object(path: Path, what: str, fields: set) -> dict:
    """The JSON object in ``path`` (``what``: "an experiment record", ...), refused in one line
    naming the file when it is not an object or lacks one of ``fields``."""
    record = _load_json(path, what)
    if not isinstance(record, dict):
        raise ValueError(f"{path}: not {what} (a JSON {type(record).__name__}, not an object)")
    missing = fields - set(record)
    if missing:
        raise ValueError(f"{path}: not {what} (missing {', '.join(sorted(missing))})")
    return record


def _load_json(path: Path, what: str):
    """The JSON value in the file ``path`` (:func:`_read_text`), or a one-line ``ValueError``
    naming the file and saying it is not ``what`` (``"an experiment record"``)."""
    try:
        text = _read_text(path)
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not {what} (not UTF-8 text: {err})") from None
    if not text.strip():
        raise ValueError(f"{path}: not {what} (the file is empty)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not {what} (invalid JSON, truncated? {err})") from None
    except RecursionError:
        raise ValueError(f"{path}: not {what} (JSON nested too deeply to read)") from None


def _bad_field(path, what: str):
    """A maker of one-line errors naming the file, the field, what it must be and what it is."""
    def bad(field_name, allowed, value):
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        return ValueError(f"{path}: not a valid {what} ({field_name} must be {allowed}, got {shown})")
    return bad


def _checked(bad, field_name, check, value):
    """``check(value)``, its ``ValueError`` made ``bad``'s one line naming ``field_name``."""
    try:
        return check(value)
    except ValueError as err:
        raise bad(field_name, str(err).split(" must be ", 1)[-1].rsplit(", got", 1)[0], value) from None


def _check_claim_rows(bad, field_name, rows) -> None:
    if not isinstance(rows, list) or not all(
            isinstance(r, dict) and isinstance(r.get("statement"), str)
            and r.get("holds") in (True, False, None) for r in rows):
        raise bad(field_name, "a list of claim rows (each with a statement and holds true, false "
                  "or null)", rows)


LARGEST_RECORD_INTEGER = 2**63
"""Integers in a record are below this in size (no run writes larger; ``float()`` of 10**400
overflows)."""


def _check_integers(path, record) -> None:
    """Refuse an integer of :data:`LARGEST_RECORD_INTEGER` or more anywhere in ``record`` (walked
    without recursion: a record can be deep)."""
    stack = [record]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, int) and abs(v) >= LARGEST_RECORD_INTEGER:
            raise ValueError(f"{path}: not a valid record (it holds the integer "
                             f"{str(v)[:20]}... of {len(str(abs(v)))} digits; integers in a record "
                             "are below 2**63)")


def read_record(path) -> dict:
    """Read a record written by :func:`write_record` (e.g. a paper-scale run a chapter shows).

    The returned dict is the record with ``"_table"`` added: its claims as a
    :class:`~tempnets.book.claims.ClaimsTable` that renders like a live one and keeps
    each claim's recorded verdict (see :meth:`ClaimsTable.from_rows`).

    Raises
    ------
    ValueError
        Naming the file, if it is not valid JSON (empty, truncated) or not a
        record (a missing field, claims that are not rows).
    """
    path = find_record(path)
    record = _json_object(path, "an experiment record", {"id", "scale", "seed", "wall_time_s", "claims_title", "claims"})
    if record["scale"] not in SCALES:
        raise ValueError(f"{path}: not a valid record (scale {record['scale']!r}; allowed: "
                         f"{', '.join(SCALES)})")
    try:
        count("seed", record["seed"])
        real("wall_time_s", record["wall_time_s"], low=0.0)
    except ValueError as err:
        raise ValueError(f"{path}: not a valid record ({err})") from None
    if "data" in record and not isinstance(record["data"], dict):
        raise _bad_field(path, "record")("data", "an object (what the run computed)", record["data"])
    _check_integers(path, record)
    try:
        record["_table"] = ClaimsTable.from_rows(
            f"{record['claims_title']} [recorded run: scale {record['scale']}, seed {record['seed']}, "
            f"{record['wall_time_s'] / 60:.1f} min]", record["claims"])
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"{path}: the record's claims cannot be read ({type(err).__name__}: "
                         f"{err})") from None
    return record


def describe_record(record: dict, width: int = 100) -> str:
    """How a record was made: its command, commit, wall time and threads, then its note if any.

    The command has a line of its own (to copy); the rest is wrapped at ``width``
    characters so that a page shows it without scrolling sideways."""
    import textwrap

    if not isinstance(record, dict) or not is_finite_real(record.get("wall_time_s")):
        raise TypeError("record must be a record dict (from read_record) with its wall_time_s, got "
                        f"{type(record).__name__}")
    width = count("width", width, 20)
    commit = record.get("commit") or "unknown"
    lines = [f"recorded run: {record.get('command', '(command not recorded)')}",
             f"  (tempnets commit {commit}, {record['wall_time_s'] / 60:.1f} min on "
             f"{record.get('jobs', '?')} thread(s))"]
    if record.get("note"):
        lines.append(textwrap.fill(f"note: {record['note']}", width, subsequent_indent="  "))
    return "\n".join(lines)


def rederive(path, **kwargs) -> tuple[Result, dict]:
    """Re-derive a recorded run's claims with the current code, without training again.

    Reads the record at ``path`` (:func:`read_record`) and calls its
    experiment's runner with the record's scale and seed and ``trained=`` its
    data, so the claims are computed afresh from the recorded networks and
    scores (and :meth:`~tempnets.book.claims.ClaimsTable.verify` checks them
    against what the chapter states today).  An experiment that compares with
    another (:attr:`Experiment.needs`) gets that experiment's record from the
    same directory (``<id>.json``), unless ``kwargs`` give it.  Other
    ``kwargs`` go to the runner.  Returns ``(result, record)``.

    Never trains: a runner that would (because the record lacks what it
    needs) stops with a ``ValueError`` naming the record.

    Raises
    ------
    ValueError
        Naming the file: not a record, an unknown experiment id, a runner that
        cannot re-derive, a needed record missing, or data the runner needs
        that is not in the record.
    """
    from ..training.srn_trainers import TrainingForbidden, no_training

    path = find_record(path)
    record = read_record(path)
    try:
        experiment = get(record["id"])
    except KeyError as err:
        raise ValueError(f"{path}: {err.args[0]}") from None
    if "data" not in record:
        raise ValueError(f"{path}: the record has no 'data'; its claims cannot be re-derived")
    runner = experiment.runner()
    if "trained" not in inspect.signature(runner).parameters:
        raise ValueError(f"{path}: the runner of {experiment.id} ({experiment.target}) takes no "
                         "trained= argument, so it cannot re-derive a record")
    for keyword, other in experiment.needs:
        if keyword not in kwargs:
            other_path = Path(path).parent / f"{other}.json"
            if not other_path.exists():
                raise ValueError(f"{path}: re-deriving {experiment.id} needs the record of {other} "
                                 f"({keyword}=); {other_path} does not exist")
            other_record = read_record(other_path)
            if (other_record["scale"], other_record["seed"]) != (record["scale"], record["seed"]):
                raise ValueError(f"{path}: {other_path} is of scale {other_record['scale']!r}, seed "
                                 f"{other_record['seed']}; re-deriving needs scale "
                                 f"{record['scale']!r}, seed {record['seed']}")
            kwargs[keyword] = other_record["data"]
    why = f"re-deriving {path} (its data lacks what {experiment.target} needs)"
    try:
        with no_training(why):
            result = runner(scale=record["scale"], seed=record["seed"], jobs=1, progress=False,
                            trained=record["data"], **kwargs)
    except (KeyError, TypeError, IndexError, AttributeError, ArithmeticError) as err:  # edited data
        raise ValueError(f"{path}: the record's data cannot be re-derived by {experiment.target} "
                         f"({type(err).__name__}: {err})") from err
    except (ValueError, TrainingForbidden) as err:
        raise ValueError(f"{path}: {err}") from err
    return result, record


def _standard(x):
    """``x`` with numpy values made plain and non-finite floats made standard JSON:
    NaN (a missing value) becomes ``None``, ±infinity the string ``"inf"`` / ``"-inf"``."""
    import numpy as np

    if isinstance(x, dict):
        return {k: _standard(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_standard(v) for v in x]
    if isinstance(x, (np.ndarray, np.generic)):
        return _standard(x.tolist())
    if isinstance(x, float) and not math.isfinite(x):
        return None if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if x is None or isinstance(x, (str, int, float)):
        return x
    raise TypeError(f"cannot write {type(x).__name__} to JSON")


def _jsonable(x):
    import numpy as np

    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"cannot write {type(x).__name__} to JSON")
