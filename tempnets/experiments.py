"""The registry of reproducible experiments behind ``python -m tempnets``.

Each chapter registers its experiments here by adding an :class:`Experiment`
to :data:`EXPERIMENTS`: an id, a one-line description and the dotted path
``"module:function"`` of a runner.  Runners are imported only when run, so
``python -m tempnets list`` stays instant.

A runner has the signature ``run(scale, seed, jobs, progress) -> Result``:
``scale`` is ``"book"`` or ``"paper"``, ``seed`` an int, ``jobs`` the number of
cores to use (results must not depend on it), ``progress`` a bool.
"""

from __future__ import annotations

import importlib
import json
import platform
import sys
import time
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version

from .claims import ClaimsTable
from .scale import get_scale


@dataclass
class Result:
    """What a runner returns: its claims table and JSON-serialisable data."""

    claims: ClaimsTable
    data: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Experiment:
    """A registered experiment: ``id``, one-line ``description``, runner ``target``."""

    id: str
    description: str
    target: str

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
               "tempnets.chapters.periodically_attentive_units:run_fig8_4"),
    Experiment("pa-8.5",
               "O'Connell Fig. 8.5: BPTT(h,1) with a time-varying indicator",
               "tempnets.chapters.periodically_attentive_units:run_fig8_5"),
    Experiment("pa-framing",
               "O'Connell ch. 8 check: BPTT(5,1) with and without the inner B/E",
               "tempnets.chapters.periodically_attentive_units:run_framing"),
    Experiment("tk-kernels",
               "Sutskever & Hinton §3: the exponential kernel of a TKRNN unit, a non-monotone TKRNN+2 kernel, parameter counts",
               "tempnets.chapters.temporal_kernels:run_kernels"),
    Experiment("tk-serial-recall",
               "Sutskever & Hinton §1: serial recall by RNN, TKRNN, TKRNN+2 and LSTM against delay (reconstructed task)",
               "tempnets.chapters.temporal_kernels:run_serial_recall"),
    Experiment("tk-long-delays",
               "Sutskever & Hinton §1: the 6-bit serial-recall task trained on delays 2-50, tested up to 100",
               "tempnets.chapters.temporal_kernels:run_long_delays"),
)


def get(experiment_id: str) -> Experiment:
    """Return the experiment with this id, or raise ``KeyError`` listing the known ids."""
    for e in EXPERIMENTS:
        if e.id == experiment_id:
            return e
    known = ", ".join(e.id for e in EXPERIMENTS)
    raise KeyError(f"unknown experiment id {experiment_id!r}; known ids: {known}")


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for pkg in ("tempnets", "numpy", "scipy", "numba", "matplotlib"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    return out


def _commit() -> str | None:
    """The git commit of the source tree tempnets runs from, if it is a checkout."""
    import subprocess
    from pathlib import Path

    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=10, cwd=Path(__file__).resolve().parent)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def reproduce(experiment_id: str, scale: str | None = None, seed: int = 0, jobs: int = 1,
              progress: bool | None = None) -> dict:
    """Run one experiment and return a JSON-ready record of it.

    The record holds the id, scale, seed, jobs, package versions, wall time,
    the claims table as rows, and the runner's data.  The claims are not
    verified here (the caller decides what a failure means).
    """
    experiment = get(experiment_id)
    scale = get_scale(scale)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    start = time.perf_counter()
    result = experiment.runner()(scale=scale, seed=seed, jobs=jobs, progress=progress)
    wall = time.perf_counter() - start
    return {
        "id": experiment.id, "description": experiment.description, "scale": scale,
        "seed": seed, "jobs": jobs, "wall_time_s": round(wall, 3), "versions": _versions(),
        "commit": _commit(), "argv": sys.argv, "claims_title": result.claims.title, "claims": result.claims.rows(),
        "data": result.data, "_table": result.claims,
    }


def write_record(record: dict, path) -> None:
    """Write a :func:`reproduce` record as JSON (the in-memory table object is left out)."""
    clean = {k: v for k, v in record.items() if not k.startswith("_")}
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(clean, fh, indent=2, default=_jsonable)
        fh.write("\n")


def read_record(path) -> dict:
    """Read a record written by :func:`write_record` (e.g. a paper-scale run a chapter shows).

    The returned dict is the record with ``"_table"`` added: its claims as a
    :class:`~tempnets.claims.ClaimsTable` that renders like a live one and keeps
    each claim's recorded verdict (see :meth:`ClaimsTable.from_rows`).
    """
    with open(path, encoding="utf-8") as fh:
        record = json.load(fh)
    missing = {"id", "scale", "seed", "wall_time_s", "claims_title", "claims"} - set(record)
    if missing:
        raise ValueError(f"{path} is not an experiment record (missing {', '.join(sorted(missing))})")
    record["_table"] = ClaimsTable.from_rows(
        f"{record['claims_title']} [recorded run: scale {record['scale']}, seed {record['seed']}, "
        f"{record['wall_time_s'] / 60:.1f} min]", record["claims"])
    return record


def rederive(path, **kwargs) -> tuple[Result, dict]:
    """Re-derive a recorded run's claims with the current code, without training again.

    Reads the record at ``path`` (:func:`read_record`) and calls its experiment's
    runner with the record's scale and seed and ``trained=`` its data, so the
    claims are computed afresh from the recorded networks and scores (and
    :meth:`~tempnets.claims.ClaimsTable.verify` checks them against what the
    chapter states today).  ``kwargs`` go to the runner.  Returns
    ``(result, record)``.
    """
    record = read_record(path)
    runner = get(record["id"]).runner()
    result = runner(scale=record["scale"], seed=record["seed"], jobs=1, progress=False,
                    trained=record["data"], **kwargs)
    return result, record


def _jsonable(x):
    import numpy as np

    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"cannot write {type(x).__name__} to JSON")
