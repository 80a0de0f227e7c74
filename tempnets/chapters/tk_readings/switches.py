"""The model's switches: training and testing a network under a reading (:func:`train_reading`,
:func:`score_reading`)."""

from __future__ import annotations

import numpy as np

from ..._numerics import portable_math as pm
from ...training import optim
from ...tasks import recall_diagnostics as rd, sequences as sq
from ...models import tkrnn
from ..._numerics.checks import count
from ...training.checkpoint import Checkpoint
from .. import temporal_kernels as tk
from .readings import Reading, TODAY_LAM_RANGE, _check_model, _poser, reading_sizes


# ----------------------------------------------------------------------------- the model's switches

def _initial(name, sz, reading, rng, init_scale):
    """Initial parameters: :func:`tk.build`'s, with the reading's initial decays and read-out."""
    task = sz.task
    if name.startswith("TKRNN") and reading.lam_range != TODAY_LAM_RANGE:
        params = tkrnn.init_params(task.n_in, sz.hidden, task.n_out, tk._kernels(name), rng=rng,
                                   lam_range=reading.lam_range, scale=init_scale)
    else:
        params = tk.build(name, task, sz.hidden, rng, scale=init_scale, forget_bias=sz.forget_bias)
    if not reading.input_output:
        params = rd.without_input_output(params)
    return params


def _input_output_columns(params) -> np.ndarray:
    """A boolean mask of ``W_z``'s columns that read input kernels."""
    I, H, _, n = tkrnn._shapes(params)
    return np.tile(np.r_[np.zeros(H, bool), np.ones(I, bool)], n)


def _parametrisation(reading: Reading, params: dict):
    """``(trained, to_model, to_trained_grads)``: the parameters Adam trains, the model's
    parameters they stand for, and the gradient with respect to the trained parameters.

    Today's reading trains the model's parameters themselves.  The decays' switches train
    φ in place of θ = logit λ: ``frozen`` zeroes dL/dθ (Adam then never moves θ), ``slow``
    θ = c φ, ``capped`` λ = cap · logistic(φ); ``input_output=False`` zeroes the gradient of
    the input→output columns (kept at 0)."""
    cols = None if reading.input_output else _input_output_columns(params)
    mode, c, cap = reading.decays, reading.decay_rate, reading.decay_cap
    trained = dict(params)
    if mode == "slow":
        trained["theta"] = params["theta"] / c
    elif mode == "capped":
        lam0 = pm._logistic_of(np.asarray(params["theta"], dtype=float))
        trained["theta"] = pm._log_of(lam0 / (cap - lam0))  # logit(λ / cap)

    def to_model(p):
        if mode not in ("slow", "capped"):
            return p
        out = dict(p)
        phi = p["theta"]
        if mode == "slow":
            out["theta"] = phi * phi.dtype.type(c)
        else:
            la = cap * pm._logistic_of(np.asarray(phi, dtype=float))
            out["theta"] = pm._log_of(la / (1.0 - la)).astype(phi.dtype)
        return out

    def to_trained(g, p):
        if mode == "frozen":
            g["theta"][...] = 0.0
        elif mode == "slow":
            g["theta"] *= g["theta"].dtype.type(c)
        elif mode == "capped":
            s = pm._logistic_of(np.asarray(p["theta"], dtype=float))
            g["theta"] *= ((1.0 - s) / (1.0 - cap * s)).astype(g["theta"].dtype)  # dθ/dφ
        if cols is not None:
            g["W_z"][:, cols] = 0.0
        return g

    return trained, to_model, to_trained


def train_reading(name: str, sz: tk.Sizes, reading: Reading = Reading(), seed: int = 0, k: int = 0,
                  progress=None, checkpoint=None, key: str | None = None):
    """Train network ``k`` of model ``name`` under ``reading``.  Returns ``(params, history)``.

    :func:`tempnets.chapters.temporal_kernels.train_one` with the reading's switches: the same
    initial-weight and batch streams, the same validation strings (posed as the reading
    poses them), the same Adam; with today's reading, the same bits."""
    _check_model(name)
    tk._check_sizes(sz)
    seed, k = count("seed", seed), count("k", k)
    if key is not None and not isinstance(key, str):
        raise TypeError(f"key must be a checkpoint key (a str) or None, got {type(key).__name__}")
    if checkpoint is not None and not isinstance(checkpoint, Checkpoint):
        raise TypeError(f"checkpoint must be a tempnets.training.checkpoint.Checkpoint or None, got "
                        f"{type(checkpoint).__name__}")
    sz = reading_sizes(sz.for_model(name), reading)
    if reading.model_switches and not name.startswith("TKRNN"):
        raise ValueError(f"reading {reading} changes the TKRNN's decays or read-out; model {name!r} "
                         "has neither")
    init_scale, rate = sz.setting(name)
    init_rng, batch_rng = tk._rngs(seed, k)
    trained, to_model, to_trained = _parametrisation(
        reading, _initial(name, sz, reading, init_rng, init_scale))
    _, base = tk.model_functions(name)
    draw = sq.make_bucketed_batch if sz.bucketed else sq.make_batch
    pose = _poser(reading)
    validation = pose(*tk._validation_batch(sz, seed, k))

    def loss_and_grad(p, x, target, mask):
        loss, g = base(to_model(p), x, target, mask)
        return loss, to_trained(g, p)

    def evaluate(p):
        return tk._validation_scores(name, to_model(p), validation)["string"]

    def sample(g, step):
        return pose(*draw(tk.curriculum_task(sz, step), sz.batch, g)[:3])

    params, h = optim.train(
        loss_and_grad, trained, sample, sz.updates, sample_with_step=True,
        config=optim.OptimConfig(learning_rate=rate, final_rate=sz.final_rate), rng=batch_rng,
        evaluate=evaluate, eval_every=sz.eval_every, progress=progress, desc=f"{name} #{k}",
        checkpoint=checkpoint, checkpoint_key=key or f"{name}-{k}.training", dtype=sz.dtype)
    return to_model(params), h


def score_reading(name: str, params, sz: tk.Sizes, reading: Reading = Reading(), seed: int = 0,
                 delay: int | None = None) -> dict:
    """Test a trained network on ``sz.n_test`` fresh strings of the reading's task at ``delay``
    (default: the longest training delay), posed as the reading poses them.

    Returns the letter and string accuracy, item and order memory
    (:func:`tempnets.tasks.recall_diagnostics.item_order`) and the serial-position curve."""
    _check_model(name)
    tk._check_sizes(sz)
    seed = count("seed", seed)
    if delay is not None:
        count("delay (or None)", delay)
    sz = reading_sizes(sz.for_model(name), reading)
    task = sz.task
    delay = task.delays[1] if delay is None else delay
    x, t, m, _, _ = sq.make_batch(task, sz.n_test, np.random.default_rng([seed, 40_000 + delay]),
                                  delay=delay, length=task.length)
    x, t, m = _poser(reading)(x, t, m)
    logits = tk.model_functions(name)[0](params, x)
    sc = sq.recall_scores(logits, t, m)
    return {"delay": delay, "symbol": sc["symbol"], "string": sc["string"],
            **rd.item_order(logits, t, m),
            "position": rd.serial_position(logits, t, m).tolist()}
