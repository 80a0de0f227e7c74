"""What the runners share: claims on shares and medians of runs (``_steps``, ``_share_of``,
``_unless``), running an experiment's runs in pieces (:data:`CHUNK`, ``_runs``; each experiment's
file adds its one-run function to ``_RUNS``), :func:`summary`, :func:`format_summary` and checking
a recorded run's data (``_check_trained``)."""

from __future__ import annotations

import numpy as np

from ..._numerics import checks
from ...book import claims, intervals
from ..._numerics.checks import count
from ...book.experiments import Piece, Result, run_pieces
from ...training.progress import progress_bar
from ...book.scale import get_scale
from .sizes import Sizes


def _steps(solved) -> np.ndarray:
    """Steps to solution with a run that never solved as ``inf`` (for :func:`intervals.median`)."""
    s = np.asarray(solved, dtype=float)
    return np.where(s > 0, s, np.inf)


def _unless(why: str, stated):
    """The stated verdict of a claim that may be not tested: ``None`` (never asserted) when
    ``why`` is set, since whether any run solves is known only after the runs."""
    return None if why else stated


def _share_of(k: int, n: int, stated, why: str, check, level: float = intervals.LEVEL) -> dict:
    """The keywords ``ours`` (percent), ``check``, ``interval``, ``expected`` and ``not_tested``
    of :meth:`~tempnets.book.claims.ClaimsTable.add` for a claim on ``k`` of ``n`` runs: with no runs
    (``n = 0``) the claim is not tested (``why``), has no value and is never asserted; with too
    few runs for ``check`` to come out either way (:func:`tempnets.book.claims.design_check`) it is
    shown, not asserted, since how many runs it is about is known only after the runs."""
    if n:
        interval = intervals.percent(k, n, level)
        decidable = not claims.design_check(check, None, interval.design)
        return {"ours": round(100 * k / n, 1), "check": check, "interval": interval,
                "expected": stated if decidable else None}
    return {"ours": None, "check": check, "interval": None, "expected": None, "not_tested": why}


def _median_note(solved, level: float = intervals.LEVEL) -> str:
    return f"{intervals.level_name(level)} interval: order statistics, {len(solved)} runs, unsolved runs counted as never"


CHUNK = 50
"""Runs per piece (:func:`tempnets.book.experiments.run_pieces`): each piece is saved in the run's
checkpoint as it finishes, so an interrupted run loses at most one piece's work."""


_RUNS = {}
"""``{what: the function of one run}``, read by :func:`_chunk`; each experiment's file adds its
own (``flipflop.py``, ``parking.py``, ``linear_attention.py``)."""


def _chunk(what: str, seed: int, cap: int, n_curves: int, start: int, stop: int,
           checkpoint=None, progress=None) -> list:
    """Runs ``start .. stop - 1`` of ``what`` (a key of :data:`_RUNS`), one piece of a run."""
    one = _RUNS[what]
    with progress_bar(stop - start, desc=f"{what} runs {start}-{stop - 1}", progress=progress,
                      unit="runs") as bar:
        out = []
        for k in range(start, stop):
            out.append(one(seed, cap, n_curves, k))
            bar.update(1)
    return out


def _runs(what: str, seed: int, sz: "Sizes", start: int, stop: int, jobs, progress,
          checkpoint) -> list:
    """Runs ``start .. stop - 1`` of ``what`` (one result per run, in order), in pieces of
    :data:`CHUNK` runs on ``jobs`` cores, each piece kept in ``checkpoint`` (if any)."""
    pieces = [Piece(f"{what}-{a}-{min(a + CHUNK, stop)}",
                    {"what": what, "seed": seed, "cap": sz.cap, "n_curves": sz.n_curves,
                     "runs": [a, min(a + CHUNK, stop)]},
                    _chunk, (what, seed, sz.cap, sz.n_curves, a, min(a + CHUNK, stop)))
              for a in range(start, stop, CHUNK)]
    return [r for chunk in run_pieces(pieces, jobs, progress, checkpoint, what="pieces") for r in chunk]


def _collect(results, names) -> dict:
    return {name: {key: [r[name][key] for r in results] for key in results[0][name]}
            for name in names}


def summary(solved, cap: int) -> dict:
    """Median, 90th percentile (failures counted as ``cap + 1``), failures, runs."""
    count("cap", cap, 1, 10**15)
    s = checks.array("solved", solved, (None,), finite=False)  # steps to solution, -1 if never
    if not s.size:
        raise ValueError("solved must hold the steps to solution of at least one run, got none")
    s = np.where(s > 0, s, cap + 1)
    return {"median": float(np.median(s)), "p90": float(np.percentile(s, 90)),
            "failures": int(np.sum(s > cap)), "runs": int(s.size),
            "share_within": lambda bound: float(np.mean(s <= bound))}


def format_summary(sm, cap) -> str:
    """One line: median, 90th percentile and failures of a :func:`summary`."""
    count("cap", cap, 1, 10**15)
    checks.instance("sm", sm, dict, "a dict from summary()")
    missing = [k for k in ("median", "p90", "failures", "runs") if k not in sm]
    if missing:
        raise ValueError(f"sm must be a summary() of steps to solution; it lacks {', '.join(missing)}")
    checks.real("median", sm["median"]), checks.real("p90", sm["p90"])
    count("failures", sm["failures"]), count("runs", sm["runs"])
    def f(v):
        return f"> {cap:,}" if v > cap else f"{v:,.0f}"
    return f"median {f(sm['median'])}, 90th pct {f(sm['p90'])}, {sm['failures']} of {sm['runs']} unsolved by {cap:,}"


def _check_trained(trained, exp_id, scale, seed, keys):
    data = trained.data if isinstance(trained, Result) else trained
    if not isinstance(data, dict):
        raise TypeError(f"trained= must be a Result or its data dict, got {type(trained).__name__}")
    if data.get("experiment") != exp_id or data.get("scale") != get_scale(scale) \
            or data.get("seed") != seed:
        raise ValueError(f"trained= must be the data of {exp_id} at scale {get_scale(scale)!r}, seed "
                         f"{seed}; got {data.get('experiment')!r}, {data.get('scale')!r}, seed "
                         f"{data.get('seed')!r}")
    missing = [k for k in keys if k not in data]
    if missing:
        raise ValueError(f"trained= data of {exp_id} lacks {', '.join(missing)}")
    return data
