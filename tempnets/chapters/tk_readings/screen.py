"""``tk-readings``: the screen of the readings (:func:`run_readings`, :func:`screen_verdict`,
:func:`screen_table`)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ...book import claims
from ...training import optim
from ...tasks import recall_diagnostics as rd
from ..._numerics.checks import array
from ...book.experiments import Piece, Result, run_pieces
from ...book.scale import get_scale
from .. import temporal_kernels as tk
from .readings import READINGS, Reading, SCREEN, reading_sizes
from .switches import score_reading, train_reading


# ----------------------------------------------------------------------------- the screen

def screen_sizes(scale: str) -> tk.Sizes:
    """The sizes of the screen at ``scale``: ``tk-serial-recall``'s paper sizes, the TKRNN's
    recipe, :data:`SCREEN`'s budget."""
    if not isinstance(scale, str) or scale not in SCREEN["base"]:
        raise ValueError(f"scale must be one of {', '.join(map(repr, SCREEN['base']))}, got {scale!r}")
    return dataclasses.replace(tk.SIZES["paper"].for_model(SCREEN["model"]), seeds=SCREEN["networks"],
                               **SCREEN["base"][scale])


def _screen_task(scale, label, changes, seed, k, checkpoint=None, progress=False):
    """Train and test network ``k`` under one reading of the screen: its scores."""
    name, reading = SCREEN["model"], Reading(**changes)
    sz = screen_sizes(scale)
    run = {"reading": label, "network": k}
    try:
        params, h = train_reading(name, sz, reading, seed, k, progress, checkpoint,
                                  key=_screen_key(label, k) + ".training")
    except optim.DivergenceError as e:  # scores 0, below every reading that trained
        return {**run, "symbol": 0.0, "string": 0.0, "item": 0.0, "diverged": str(e)}
    n = max(len(h.loss) // 10, 1)
    hist = rd.decay_histogram(params)
    return {**run, **score_reading(name, params, sz, reading, seed),
            "eval_steps": h.eval_steps, "val_string": [float(v) for v in h.evals],
            "final_loss": float(np.mean(h.loss[-n:])), "first_loss": float(np.mean(h.loss[:n])),
            "median_lambda_input": hist["median_input"], "median_lambda_hidden": hist["median_hidden"],
            "seconds": round(h.seconds, 2)}


def _screen_key(label, k) -> str:
    return f"reading{[x for x, _ in READINGS].index(label)}-{k}"


def _screen_piece(scale, label, changes, seed, k) -> Piece:
    reading = Reading(**changes)
    sz = reading_sizes(screen_sizes(scale), reading)
    return Piece(_screen_key(label, k),
                 {"sizes": dataclasses.asdict(sz), "reading": dataclasses.asdict(reading),
                  "seed": seed, "network": k},
                 _screen_task, (scale, label, changes, seed, k))


def screen_verdict(reading_scores, today_scores) -> dict:
    """The screen's rule: how a reading's networks compare with today's on one score.

    ``above``: the share of (reading, today) pairs of networks in which the reading's scores
    higher (ties count one half: the Mann-Whitney U over ``n m``); ``p``: the exact one-sided
    rank-test p-value of all of them above (``1 / C(n + m, n)``); ``verdict``: ``"better"``
    when every network of the reading is above every network of today's and that p is below
    0.05, ``"worse"`` when every one is below, else ``"undecided"``; ``interval``: what the
    rule lets one say of ``above``, ``(1, 1)``, ``(0, 0)`` or, undecided, ``(0, 1)``."""
    a, b = (array(n, v, (None,)) for n, v in (("reading_scores", reading_scores),
                                              ("today_scores", today_scores)))
    if a.size == 0 or b.size == 0:
        raise ValueError("screen_verdict needs at least one network on each side")
    above = float(np.mean((a[:, None] > b[None, :]) + 0.5 * (a[:, None] == b[None, :])))
    p = 1.0 / math.comb(a.size + b.size, a.size)
    verdict = ("better" if above == 1.0 and p < 0.05 else
               "worse" if above == 0.0 and p < 0.05 else "undecided")
    interval = {"better": (1.0, 1.0), "worse": (0.0, 0.0)}.get(verdict, (0.0, 1.0))
    return {"above": above, "p": p, "verdict": verdict, "interval": interval}


def run_readings(scale="book", seed=0, jobs=1, progress=None, trained=None, checkpoint=None) -> Result:
    """Screen the readings of :data:`READINGS` (``tk-readings``): :data:`SCREEN` ``["networks"]``
    TKRNNs each, on a reduced budget, each compared with today's reading by
    :func:`screen_verdict` on its letter accuracy at delay 50.  ``checkpoint``: as for
    :func:`tempnets.chapters.temporal_kernels.run_serial_recall` (keys ``readingI-K``)."""
    scale = get_scale(scale)
    if trained is None:
        nets = range(SCREEN["first_network"], SCREEN["first_network"] + SCREEN["networks"])
        pieces = [_screen_piece(scale, label, changes, seed, k)
                  for label, changes in READINGS for k in nets]
        data = {"experiment": "tk-readings", "scale": scale, "seed": seed,
                "sizes": dataclasses.asdict(screen_sizes(scale)),
                "readings": [[label, changes] for label, changes in READINGS],
                "runs": run_pieces(pieces, jobs, progress, checkpoint)}
    else:
        data = trained.data if isinstance(trained, Result) else trained
        tk._need(data, ["runs", "sizes", "readings"], "tk-readings")
    return Result(_screen_claims(data, scale), data)


def screen_table(data) -> list:
    """One row per reading of a screen's ``data``: its label, networks, the medians of letter
    accuracy, string accuracy, item memory and the share of wrong letters from the string, the
    medians of the input decays, and :func:`screen_verdict` against today's reading."""
    if not isinstance(data, dict):
        raise TypeError(f"data must be a tk-readings result's data (a dict), got {type(data).__name__}")
    tk._need(data, ["runs", "readings"], "tk-readings")
    runs = data["runs"]
    if not (isinstance(runs, list) and all(isinstance(r, dict) and "reading" in r for r in runs)
            and isinstance(data["readings"], list)
            and all(isinstance(x, (list, tuple)) and len(x) == 2 for x in data["readings"])):
        raise ValueError("data['runs'] must be a list of runs (dicts with a 'reading') and "
                         "data['readings'] a list of [label, changes] (a tk-readings result's data)")
    today = [r for r in runs if r["reading"] == data["readings"][0][0]]
    rows = []
    for label, _ in data["readings"]:
        mine = [r for r in runs if r["reading"] == label]
        if not mine:
            continue
        med = {key: float(np.median([r.get(key, math.nan) for r in mine]))
               for key in ("symbol", "string", "item", "wrong_in_string", "median_lambda_input",
                           "final_loss")}
        rows.append({"reading": label, "networks": len(mine), **med,
                     **screen_verdict([r["symbol"] for r in mine], [r["symbol"] for r in today])})
    return rows


def _screen_claims(data, scale) -> claims.ClaimsTable:
    sz = data["sizes"]
    t = claims.ClaimsTable(f"The readings screen ({scale} scale: {len(data['readings'])} readings, "
                           f"{SCREEN['networks']} TKRNNs each, {sz['updates']} updates, the 35-bit "
                           "task; the readings are ours)")
    rows = screen_table(data)
    changes = dict((label, c) for label, c in data["readings"])
    for row in rows[1:]:
        apart = (" (this reading changes the task, so its letters right are not today's: compare the "
                 "strings)" if {"alphabet", "length", "recall"} & set(changes[row["reading"]]) else "")
        t.add(f"{row['reading']}: the TKRNNs recall more letters at delay {sz['delays'][1]} than "
              "under today's reading (every network above every one of today's)", "ours (method)",
              None, round(row["above"], 3), claims.at_least(1.0), expected=None,
              interval=row["interval"], kind="screen",
              note=f"ours: the share of (reading, today) pairs of networks in which the reading's "
                   f"recalls more letters; the screen's rule says {row['verdict']} (it decides only "
                   f"when all pairs agree, one-sided rank test p = {row['p']:.3f}; its interval: what "
                   f"the rule can say); medians: letters {row['symbol']:.3f} "
                   f"(today {rows[0]['symbol']:.3f}), strings {row['string']:.3f}, letters of the "
                   f"string {row['item']:.3f}{apart}; shown, not asserted: a screen on a reduced budget")
    return t
