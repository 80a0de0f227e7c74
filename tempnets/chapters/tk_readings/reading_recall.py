"""``tk-reading-recall``: ``tk-serial-recall`` under the adopted reading (:data:`ADOPTED`,
:func:`run_reading_recall`), and the readings table (:func:`readings_table`)."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..._numerics import checks
from ...tasks import sequences as sq
from ..._numerics.checks import count
from ...book.experiments import Piece, Result, run_pieces
from ...book.scale import get_scale
from .. import temporal_kernels as tk
from .readings import READINGS, Reading, TODAY_LAM_RANGE, _poser, reading_sizes
from .switches import train_reading


# ----------------------------------------------------------------------------- the paper-scale run

ADOPTED = "teacher-forced recall"
"""The reading (a label of :data:`READINGS`) under which ``tk-reading-recall`` trains every
model: the one the screen's record (``book/paper_scale/tk-readings.json``) calls better than
today's (:func:`screen_table`; the only one), written here (a test checks it is the record's)."""

RECALL_SIZES = {"book": tk.SIZES["book"], "paper": dataclasses.replace(tk.SIZES["paper"], seeds=6)}
"""``tk-reading-recall``: ``tk-serial-recall``'s sizes, with 6 networks per model at paper scale,
the fewest with which a share of networks can clear one half (6 of 6: Wilson interval
0.61-1)."""


RECALL_EXPECT = {
    "book": dict.fromkeys(("learns", "store50", "stable", "lstm", "rnn", "plus_n")),
    "paper": {"learns": False, "store50": False, "stable": False, "lstm": False, "rnn": True,
              "plus_n": True},
}
"""Whether each claim of ``tk-reading-recall`` holds, as the chapter reports it: at paper scale
the recorded run (six networks per model: no TKRNN reaches 0.99 of the strings, so "learns",
"stores" and "stable" do not hold, decided; the others as measured); at book scale nothing is
asserted (the chapter does not run it)."""


def _model_reading(name: str, reading: Reading) -> Reading:
    """``reading`` for model ``name``: the switches of the TKRNN's decays and read-out apply to
    the TKRNN family only; the RNN and the LSTM keep the rest (task, posing, training)."""
    if name.startswith("TKRNN"):
        return reading
    return dataclasses.replace(reading, decays="learned", lam_range=TODAY_LAM_RANGE, input_output=True)


def _evaluate_reading(name, params, sz, reading, seed):
    """:func:`tempnets.chapters.temporal_kernels.evaluate`, with every test batch posed as the
    reading poses it (the same strings, delays and keys of the result)."""
    task, pose = sz.task, _poser(reading)
    out = {"symbol": [], "string": [], "position": []}
    for j, d in enumerate(sz.test_delays):
        x, t, m, _, _ = sq.make_batch(task, sz.n_test, np.random.default_rng([seed, 20_000 + j]),
                                      delay=d, length=task.length)
        logits, states = tk.hidden_states(name, params, pose(x, t, m)[0])
        sc = sq.recall_scores(logits, t, m)
        out["symbol"].append(sc["symbol"])
        out["string"].append(sc["string"])
        out["position"].append(sc["correct"].mean(axis=0).tolist())
    out["drift"] = tk.hidden_drift(states, task, sz.test_delays[-1]).tolist()
    out["by_length"] = []
    for n in range(1, task.length + 1):
        x, t, m, _, _ = sq.make_batch(task, sz.n_test, np.random.default_rng([seed, 30_000 + n]),
                                      delay=task.delays[1], length=n)
        logits = tk.hidden_states(name, params, pose(x, t, m)[0])[0]
        out["by_length"].append(sq.recall_scores(logits, t, m)["string"])
    return out


def _recall_task(name, sz, label, seed, k, checkpoint=None, progress=False):
    """Train and test network ``k`` of ``name`` under reading ``label``: the run record of
    :func:`tempnets.chapters.temporal_kernels.run_serial_recall` and the final parameters."""
    reading = _model_reading(name, Reading(**dict(READINGS)[label]))
    params, h = train_reading(name, sz, reading, seed, k, progress, checkpoint)
    msz = reading_sizes(sz.for_model(name), reading)
    ev = _evaluate_reading(name, params, msz, reading, seed)
    crit = next((s for s, a in zip(h.eval_steps, h.evals) if a >= tk.CRITERION), None)
    run = {"loss": tk._windowed(h.loss, max(msz.updates // 100, 1)), "eval_steps": h.eval_steps,
           "val_string": h.evals, "updates_to_criterion": crit, "seconds": round(h.seconds, 2), **ev}
    return run, tk._jsonable_params(params)


def run_reading_recall(scale="book", seed=0, jobs=1, progress=None, trained=None,
                       checkpoint=None) -> Result:
    """``tk-serial-recall`` under the adopted reading (:data:`ADOPTED`, ``tk-reading-recall``):
    every model of :data:`tempnets.chapters.temporal_kernels.MODELS`, :data:`RECALL_SIZES`
    networks each, the same claims.  Under today's reading the runs are ``tk-serial-recall``'s
    (same bits).  ``checkpoint``: as for ``tk-serial-recall`` (keys ``NAME-K``)."""
    scale = get_scale(scale)
    if trained is None:
        sz = RECALL_SIZES[scale]
        changes = dict(READINGS)[ADOPTED]
        task_sz = dataclasses.replace(sz, **{k: v for k, v in changes.items() if k in ("alphabet", "length")})
        tasks = [(name, k) for name in tk.MODELS for k in range(sz.seeds)]
        pieces = [Piece(f"{name}-{k}", {"model": name, "sizes": dataclasses.asdict(sz), "reading": ADOPTED,
                                        "seed": seed, "network": k},
                        _recall_task, (name, sz, ADOPTED, seed, k)) for name, k in tasks]
        results = run_pieces(pieces, jobs, progress, checkpoint)
        data = {"models": {}, "params": {}}
        for name in tk.MODELS:
            mine = [r for (n, _), r in zip(tasks, results) if n == name]
            data["models"][name] = {"n_params": int(sum(np.size(v) for v in mine[0][1].values())),
                                    "runs": [r[0] for r in mine]}
            data["params"][name] = [r[1] for r in mine[:2]]
        data.update(experiment="tk-reading-recall", scale=scale, seed=seed,
                    sizes=dataclasses.asdict(task_sz), reading=[ADOPTED, changes])
    else:
        data = trained.data if isinstance(trained, Result) else trained
        tk._need(data, ["models", "sizes", "params", "reading"], "tk-reading-recall")
    return Result(tk._recall_claims(data, tk.sizes_of(data), RECALL_EXPECT[scale], scale), data)


def readings_table(runs: dict, delay: int = 50) -> list:
    """One row per reading and model of the serial-recall runs in ``runs`` (a reading's label
    -> the ``data`` of a ``tk-serial-recall`` or ``tk-reading-recall`` result or record): the
    networks, and the median and range over them of the strings and the letters recalled at
    test delay ``delay`` (the book's readings table)."""
    checks.instance("runs", runs, dict, "a dict: a reading's label -> a serial-recall result's data")
    delay = count("delay", delay, 1)
    rows = []
    for label, data in runs.items():
        data = data.data if isinstance(data, Result) else data
        if not isinstance(data, dict):
            raise TypeError(f"runs[{label!r}] must be a serial-recall result's data (a dict), got "
                            f"{type(data).__name__}")
        tk._need(data, ["models", "sizes"], "tk-serial-recall")
        delays = list(data["sizes"]["test_delays"])
        if delay not in delays:
            raise ValueError(f"delay {delay} is not one of the test delays of runs[{label!r}]: "
                             f"{', '.join(map(str, delays))}")
        j = delays.index(delay)
        for name in tk.MODELS:
            mine = data["models"][name]["runs"]
            string, symbol = ([r[key][j] for r in mine] for key in ("string", "symbol"))
            rows.append({"reading": label, "model": name, "networks": len(mine),
                         "string": float(np.median(string)), "string_range": (min(string), max(string)),
                         "symbol": float(np.median(symbol)), "symbol_range": (min(symbol), max(symbol))})
    return rows
