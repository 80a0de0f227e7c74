"""The search of μ, ρ, ω and its choice on the claims' criterion
(:mod:`tempnets.chapters.mozer_rates`)."""

from __future__ import annotations

import numpy as np

from ...models import focused as F
from ...training import focused_training as T
from ..._numerics.checks import count
from ..focused_backprop import _rng
from .settings import ARCHS, MAX_ROUNDS, RATE_SIZES, START, STEPS, _sequences, task_config

def _check_grid(grid, name: str = "grid") -> tuple:
    try:
        grid = tuple(tuple(float(v) for v in g) for g in grid)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a sequence of (mu, rho, omega) triples, got {grid!r}") from None
    if not grid or any(len(g) != 3 for g in grid):
        raise ValueError(f"{name} must be a non-empty sequence of (mu, rho, omega) triples, got {grid!r}")
    return grid


def _tidy(x: float) -> float:
    return float(f"{x:.10g}")  # 0.02 * 2 * 2 / 2 is 0.04 again, not 0.04000000000000001


def neighbourhood(setting) -> list:
    """The settings one step (:data:`STEPS`) or none from ``setting`` = (μ, ρ, ω) along every
    axis, itself included: 27, or 18 at μ = 0 (μ is never negative), in a fixed order."""
    try:
        mu, rho, omega = (float(v) for v in setting)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"setting must be a (mu, rho, omega) triple of numbers, got {setting!r}") from None
    dmu, frho, fomega = STEPS
    out = []
    for i in (-1, 0, 1):
        for j in (-1, 0, 1):
            for k in (-1, 0, 1):
                if mu + i * dmu >= -1e-12:
                    out.append((_tidy(max(mu + i * dmu, 0.0)), _tidy(rho * frho ** j), _tidy(omega * fomega ** k)))
    return out


def _distance(setting) -> float:
    """Steps from :data:`START` (the tie-break: the setting nearest the paper's values)."""
    (mu, rho, omega), (m0, r0, w0) = setting, START
    return abs(mu - m0) / STEPS[0] + abs(np.log(rho / r0) / np.log(STEPS[1])) + abs(np.log(omega / w0) / np.log(STEPS[2]))


def _merit(epochs_to_criterion, final, epochs) -> tuple:
    """A setting's merit on the claims' criterion, best largest: the networks that learn the
    task perfectly; then fewer epochs to get there (a network that never does counts the whole
    budget); then the mean final % right."""
    e = np.asarray(epochs_to_criterion)
    learned = e >= 0
    return int(learned.sum()), -float(np.where(learned, e, epochs).mean()), float(np.mean(final))


def _search_rows(found) -> None:
    """Refuse a search result whose per-setting rows do not fit its settings (for :func:`choose`)."""
    n = len(found["settings"])
    try:
        e = np.asarray(found["epochs_to_criterion"], dtype=float)
        epochs = float(found["epochs"])
    except (TypeError, ValueError, OverflowError):
        raise ValueError("found['epochs_to_criterion'] and found['epochs'] must be numbers") from None
    if e.ndim != 2 or e.shape[0] != n or not np.isfinite(epochs):
        raise ValueError(f"found['epochs_to_criterion'] must have one row per setting ({n}), got shape {e.shape}")


def choose(found: dict) -> int:
    """The index of the best setting of a search (:func:`search`'s result) on the claims'
    criterion (:func:`_merit`: perfect runs, then epochs to perfect, then final % right);
    ties go to the setting nearest :data:`START`, then to the first evaluated."""
    if not isinstance(found, dict) or not {"settings", "epochs", "final", "epochs_to_criterion"} <= set(found):
        raise ValueError("found must be a search result: a dict with settings, epochs, final and "
                         "epochs_to_criterion")
    settings = _check_grid(found["settings"], "found['settings']")
    try:
        final = np.asarray(found["final"], dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"found['final'] must be % right, one row per setting, got {found['final']!r}") from None
    if final.ndim != 2 or final.shape[0] != len(settings) or not np.isfinite(final).all():
        raise ValueError(f"found['final'] must be finite % right, one row per setting ({len(settings)}), "
                         f"got shape {final.shape}")
    _search_rows(found)
    keys = [(_merit(e, f, found["epochs"]), -_distance(g), -i)
            for i, (g, e, f) in enumerate(zip(settings, found["epochs_to_criterion"], final))]
    return max(range(len(keys)), key=keys.__getitem__)


def inside(found: dict) -> bool:
    """Whether the chosen setting has every neighbour (:func:`neighbourhood`) evaluated: it is
    inside the searched region, not on its edge (at μ = 0 it is on the edge of the allowed μ)."""
    k = choose(found)  # validates found
    best = _check_grid(found["settings"], "found['settings']")[k]
    near = neighbourhood(best)
    return len(near) == 27 and set(near) <= set(_check_grid(found["settings"]))


def _evaluate(seqs, init, cfg, epochs, progress) -> dict:
    h = T.train(seqs, init, n_epochs=epochs, config=cfg, progress=progress)
    return {"score": h.performance.mean(axis=1).round(4).tolist(), "final": h.performance[:, -1].round(3).tolist(),
            "epochs_to_criterion": h.epochs_to_criterion.tolist()}


def search(task: str, arch: str, grid=None, runs: int = 5, epochs: int | None = None, seed: int = 0,
           progress=None, rounds: int = MAX_ROUNDS, checkpoint=None) -> dict:
    """Search μ, ρ, ω for ``runs`` networks of ``arch`` on ``task``, on the claims' criterion.

    Every setting trains the same networks, drawn from the stream ``(seed, "mozer-rates",
    "select", task, arch)`` (never the streams that measure the claims).  The search first
    evaluates ``grid`` (the :func:`neighbourhood` of :data:`START` when ``None``); then, up to
    ``rounds`` times, the neighbours of the best setting (:func:`choose`) not yet evaluated,
    until it has none left: the chosen setting is then inside the evaluated region
    (:func:`inside`), unless the cap stopped the search first.

    Parameters
    ----------
    task : {"verbs", "delay1", "delay4"}
    arch : {"focused", "full"}
    grid : sequence of (mu, rho, omega), optional
    runs : int
        Networks per setting (at least 1).
    epochs : int, optional
        Epoch budget; the paper scale's (:data:`RATE_SIZES`) when ``None``.
    rounds : int
        Moves allowed after ``grid`` (0: evaluate ``grid`` only).
    checkpoint : tempnets.training.checkpoint.Checkpoint, optional
        Each setting's result is saved there and not computed again.

    Returns
    -------
    dict
        ``"settings"``: the (μ, ρ, ω) evaluated, in order; per setting ``"score"`` (n_settings,
        runs), each network's mean % right over epochs 0..``epochs`` (shown, not used to
        choose); ``"final"``: its final % right; ``"epochs_to_criterion"``: the first epoch
        with perfect performance, ``-1`` if none; ``"epochs"``; ``"rounds"``, the moves made.
    """
    if arch not in ARCHS:
        raise ValueError(f"arch must be one of {', '.join(ARCHS)}, got {arch!r}")
    if checkpoint is not None and not callable(getattr(checkpoint, "computed", None)):
        raise TypeError(f"checkpoint must be a tempnets.training.checkpoint.Checkpoint or None, got {type(checkpoint).__name__}")
    grid = _check_grid(neighbourhood(START) if grid is None else grid)
    for g in grid:
        task_config(task, *g)  # refuses a bad task or rate before anything is trained
    runs = count("runs", runs, 1)
    rounds = count("rounds", rounds, 0)
    epochs = RATE_SIZES["paper"].epochs(task) if epochs is None else count("epochs", epochs, 1)
    seqs = _sequences(task)
    n_ctx = 2 if task == "verbs" else 3
    init = F.init_many(arch, seqs.X.shape[1], n_ctx, seqs.Y.shape[1], runs,
                       _rng(seed, "mozer-rates", "select", task, arch))
    found = {"settings": [], "score": [], "final": [], "epochs_to_criterion": [], "epochs": epochs, "rounds": 0}

    def add(settings):
        for g in settings:
            if g in found["settings"]:
                continue
            work = lambda: _evaluate(seqs, init, task_config(task, *g), epochs, progress)  # noqa: E731
            made = {"task": task, "arch": arch, "setting": list(g), "runs": runs, "epochs": epochs, "seed": seed}
            r = work() if checkpoint is None else checkpoint.computed(f"{task}-{arch}-{len(found['settings'])}",
                                                                     made, work)
            found["settings"].append(g)
            for key in ("score", "final", "epochs_to_criterion"):
                found[key].append(list(r[key]))

    add(grid)
    while found["rounds"] < rounds:
        todo = [g for g in neighbourhood(found["settings"][choose(found)]) if g not in found["settings"]]
        if not todo:
            break
        add(todo)
        found["rounds"] += 1
    found["settings"] = [list(g) for g in found["settings"]]
    return found
