"""``tk-search`` and ``tk-training-search``: the searches over settings and training recipes."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ...book import claims
from ...training import optim
from ..._numerics import checks
from ...book.experiments import Piece, Result, run_pieces
from ...book.scale import get_scale
from .sizes import MODELS, RECORDED_PAPER, SIZES, Sizes, TRAINING_SEARCH
from .networks import _need, _validation_batch, _validation_scores, train_one
from .serial_recall import sizes_of


# ----------------------------------------------------------------------------- the search

SEARCH = {"init_scales": (0.5, 1.0, 2.0, 4.0, 8.0), "learning_rates": (3e-3, 1e-2, 3e-2),
          "networks": {"book": 1, "paper": 3}, "first_network": 100}
"""``tk-search``: the grid every model is searched on, at the book-scale task and budget
(:data:`SIZES` ``["book"]``).  ``init_scales`` multiply the model's own initial weights,
``learning_rates`` are Adam's.  Each setting trains ``networks`` networks numbered from
``first_network`` on, so the search never sees the networks (initial weights, batches,
validation strings) of the comparisons, which are numbered 0, 1, ...  The grid is ours."""


def _search_task(name, init_scale, rate, base, seed, k, checkpoint=None, progress=False):
    """Train network ``k`` of ``name`` with one setting of the search: its final scores."""
    sz = dataclasses.replace(base, settings={name: [init_scale, rate]})
    run = {"model": name, "init_scale": init_scale, "learning_rate": rate, "network": k}
    key = f"{name}-s{init_scale:g}-lr{rate:g}-{k}"
    try:
        _, h = train_one(name, sz, seed, k, progress, checkpoint, key=key + ".training")
    except optim.DivergenceError as e:  # a setting that diverges scores 0 and loses every tie
        return {**run, "val_string": 0.0, "final_loss": None, "diverged": str(e)}
    n = max(len(h.loss) // 10, 1)
    return {**run, "val_string": float(h.evals[-1]), "final_loss": float(np.mean(h.loss[-n:])),
            "seconds": round(h.seconds, 2)}


def _search_piece(name, init_scale, rate, base, seed, k) -> Piece:
    """One network of one setting of the search as a piece (key ``NAME-sSCALE-lrRATE-K``)."""
    sz = dataclasses.replace(base, settings={name: [init_scale, rate]})
    return Piece(f"{name}-s{init_scale:g}-lr{rate:g}-{k}",
                 {"sizes": dataclasses.asdict(sz), "seed": seed, "network": k},
                 _search_task, (name, init_scale, rate, base, seed, k))


def _check_runs(runs, name, keys) -> None:
    """``runs``: a list of dicts with ``keys`` (a search's runs); ``name``: a model name."""
    checks.instance("name", name, str, f"a model name ({', '.join(MODELS)})")
    checks.instance("runs", runs, (list, tuple), "a search's list of runs (dicts)")
    for i, r in enumerate(runs):
        if not isinstance(r, dict) or any(k not in r for k in keys):
            raise ValueError(f"runs[{i}] must be a dict with {', '.join(keys)}, got {checks.shown(r)}")


def search_choice(runs: list, name: str) -> dict:
    """The setting chosen for model ``name`` from the search's ``runs``.

    Highest mean validation string accuracy after training (at the longest training
    delay, over the setting's networks); on a tie the lower mean final training loss (the
    last tenth of the updates; a diverged network counts as an infinite loss).  Returns
    ``{"init_scale", "learning_rate", "val_string", "final_loss"}``."""
    _check_runs(runs, name, ("model", "init_scale", "learning_rate", "val_string", "final_loss"))
    by = {}
    for r in runs:
        if r["model"] == name:
            by.setdefault((r["init_scale"], r["learning_rate"]), []).append(r)
    if not by:
        raise ValueError(f"the search has no runs of {name!r}")
    scores = {key: (float(np.mean([r["val_string"] for r in rs])),
                    float(np.mean([math.inf if r["final_loss"] is None else r["final_loss"]
                                   for r in rs])))
              for key, rs in by.items()}
    best = max(scores, key=lambda key: (scores[key][0], -scores[key][1]))
    return {"init_scale": best[0], "learning_rate": best[1], "val_string": scores[best][0],
            "final_loss": scores[best][1]}


def run_search(scale="book", seed=0, jobs=1, progress=None, trained=None, checkpoint=None) -> Result:
    """The same search over initial scale and learning rate for every model (``tk-search``).

    Every model of :data:`MODELS` trains on the book-scale serial-recall task
    (:data:`SIZES` ``["book"]``: same task, updates and batches) at every setting of
    :data:`SEARCH`; :func:`search_choice` picks each model's setting from the validation
    accuracy of networks the comparisons never use.  ``paper`` scale trains three
    networks per setting instead of one.  The book-scale choices are written into
    :data:`TUNED` (a test checks that they are the record's).  ``checkpoint``: as for
    :func:`run_serial_recall` (keys ``"NAME-sSCALE-lrRATE-K"``).
    """
    scale = get_scale(scale)
    if trained is None:
        base = dataclasses.replace(SIZES["book"], settings=None)
        nets = SEARCH["networks"][scale]
        pieces = [_search_piece(name, s, lr, base, seed, SEARCH["first_network"] + i)
                  for name in MODELS for s in SEARCH["init_scales"]
                  for lr in SEARCH["learning_rates"] for i in range(nets)]
        data = {"experiment": "tk-search", "scale": scale, "seed": seed,
                "grid": {"init_scales": list(SEARCH["init_scales"]),
                         "learning_rates": list(SEARCH["learning_rates"])},
                "sizes": dataclasses.asdict(base),
                "runs": run_pieces(pieces, jobs, progress, checkpoint)}
    else:
        data = trained.data if isinstance(trained, Result) else trained
        _need(data, ["grid", "runs", "sizes"], "tk-search")
    grid = data["grid"]
    sz = sizes_of(data)
    t = claims.ClaimsTable(f"The search over initial scale × learning rate ({scale} scale: "
                           f"{len(grid['init_scales'])} × {len(grid['learning_rates'])} settings, "
                           f"{sz.updates} updates each, the book-scale task; the grid is ours)")
    for name in MODELS:
        c = search_choice(data["runs"], name)
        inside = (min(grid["init_scales"]) < c["init_scale"] < max(grid["init_scales"])
                  and min(grid["learning_rates"]) < c["learning_rate"] < max(grid["learning_rates"]))
        t.add(f"{name}: the chosen setting lies inside the grid (a best setting on its edge could "
              "lie beyond it)", "ours (method)", None, inside, claims.is_true(),
              expected=_SEARCH_EXPECT[(name, scale)],
              note=f"chosen: initial scale {c['init_scale']:g}, learning rate {c['learning_rate']:g} "
                   f"(validation string accuracy {c['val_string']:.3f}, final training loss "
                   f"{c['final_loss']:.3g}, means over its networks)")
    return Result(t, data)


_SEARCH_EXPECT = {(name, scale): None for name in MODELS for scale in ("book", "paper")}
"""Whether each model's choice lies inside the grid is shown, never asserted: the choice is an
argmax over one network per setting (three at paper scale), which another seed or a
perturbation of the initial weights could move from one setting to its neighbour."""


# ----------------------------------------------------------------------------- the training search

def training_search_sizes(scale: str) -> Sizes:
    """The sizes every setting of :data:`TRAINING_SEARCH` changes at ``scale`` (each model's
    with its ``recipes``, :meth:`Sizes.for_model`)."""
    if not isinstance(scale, str) or scale not in TRAINING_SEARCH["base"]:
        raise ValueError(f"scale must be one of {', '.join(map(repr, TRAINING_SEARCH['base']))}, "
                         f"got {scale!r}")
    return dataclasses.replace(RECORDED_PAPER, dtype="float32", bucketed=True,
                               **TRAINING_SEARCH["base"][scale])


def _training_search_task(scale, label, changes, name, seed, k, checkpoint=None, progress=False):
    """Train network ``k`` of ``name`` with one setting of the training search: its scores on
    the validation strings (each update's in ``val_curve``, string accuracy; at the end
    ``val_string`` and ``val_symbol``)."""
    sz = dataclasses.replace(training_search_sizes(scale), recipes={name: changes}).for_model(name)
    run = {"setting": label, "model": name, "network": k}
    key = _training_search_key(label, name, k)
    try:
        params, h = train_one(name, sz, seed, k, progress, checkpoint, key=key + ".training")
    except optim.DivergenceError as e:  # scores 0, below every setting that trained
        return {**run, "val_string": 0.0, "val_symbol": 0.0, "eval_steps": [], "val_curve": [],
                "diverged": str(e)}
    final = _validation_scores(name, params, _validation_batch(sz, seed, k))
    return {**run, "val_string": final["string"], "val_symbol": final["symbol"],
            "eval_steps": h.eval_steps, "val_curve": [float(v) for v in h.evals],
            "seconds": round(h.seconds, 2)}


def _training_search_key(label, name, k) -> str:
    return f"{name}-{[x for x, _ in TRAINING_SEARCH['settings']].index(label)}-{k}"


def _training_search_piece(scale, label, changes, name, seed, k) -> Piece:
    """One network of one setting of the training search as a piece (key ``NAME-SETTING-K``)."""
    sz = dataclasses.replace(training_search_sizes(scale), recipes={name: changes}).for_model(name)
    return Piece(_training_search_key(label, name, k),
                 {"sizes": dataclasses.asdict(sz), "seed": seed, "network": k},
                 _training_search_task, (scale, label, changes, name, seed, k))


def training_choice(runs: list, name: str) -> dict:
    """The run of the training search chosen for model ``name``: the highest validation string
    accuracy, on a tie the highest symbol accuracy, on a tie the earlier setting."""
    _check_runs(runs, name, ("model", "val_string", "val_symbol"))
    mine = [r for r in runs if r["model"] == name]
    if not mine:
        raise ValueError(f"the training search has no runs of {name!r}")
    return max(mine, key=lambda r: (r["val_string"], r["val_symbol"]))


def run_training_search(scale="book", seed=0, jobs=1, progress=None, trained=None,
                        checkpoint=None) -> Result:
    """Which training makes the 35-bit serial-recall task learnable (``tk-training-search``).

    Trains one network of each model at each setting of :data:`TRAINING_SEARCH` (the
    forget-gate bias for the LSTM only) and compares their accuracy on 256 validation strings
    of 7 letters at delay 50 after the budget; :func:`training_choice` picks each model's
    setting.  ``checkpoint``: as for :func:`run_serial_recall`.
    """
    scale = get_scale(scale)
    if trained is None:
        pieces = [_training_search_piece(scale, label, changes, name, seed,
                                         TRAINING_SEARCH["first_network"])
                  for label, changes in TRAINING_SEARCH["settings"]
                  for name in TRAINING_SEARCH["models"]
                  if name == "LSTM" or "forget_bias" not in changes]
        base = dataclasses.asdict(training_search_sizes(scale))
        data = {"experiment": "tk-training-search", "scale": scale, "seed": seed,
                "sizes": {label: {**base, "init_scale": 1.0, **changes}
                          for label, changes in TRAINING_SEARCH["settings"]},
                "runs": run_pieces(pieces, jobs, progress, checkpoint)}
    else:
        data = trained.data if isinstance(trained, Result) else trained
        _need(data, ["runs", "sizes"], "tk-training-search")
    first = next(iter(data["sizes"]))
    updates = data["sizes"][first]["updates"]
    models = list(dict.fromkeys(r["model"] for r in data["runs"]))
    t = claims.ClaimsTable(f"The training search on the 35-bit task ({scale} scale: "
                           f"{len(data['sizes'])} settings, one network per model and setting, "
                           f"{updates} updates each; the settings are ours)")
    for name in models:
        base = next(r for r in data["runs"] if r["model"] == name and r["setting"] == first)
        best = training_choice(data["runs"], name)
        t.add(f"{name}: a setting of the search recalls more strings than the recorded run's "
              "training after the same budget", "ours (method)", None,
              round(best["val_string"] - base["val_string"], 4), claims.at_least(1 / 256),
              expected=None,
              note=f"chosen: {best['setting']} ({best['val_string']:.3f} of the strings, "
                   f"{best['val_symbol']:.3f} of the letters); the recorded run's training: "
                   f"{base['val_string']:.3f}, {base['val_symbol']:.3f}; one network each, so "
                   "shown, not asserted",
              not_tested="" if best["val_string"] > 0 else "no setting recalled a single string")
    return Result(t, data)
