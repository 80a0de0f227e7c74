r"""Minibatch training for models with a ``loss_and_grad(params, x, target, mask)``:
Adam with gradient-norm clipping.

Sutskever & Hinton (2010) do not say how they trained (our copy stops after
eq. 9); the paper predates Hessian-free training of RNNs, so it was
first-order BPTT.  Our reconstruction (the book's *Reconstructions* page,
temporal-kernels section) is a standard first-order method that treats every model
alike, written once here and used for every model of the chapter: Adam (Kingma &
Ba, 2015) on minibatches, after clipping the gradient to global norm 1.0 (Pascanu,
Mikolov & Bengio, 2013), with a learning rate each model gets from the same search.

Adam, for each parameter array ``w`` with gradient ``g`` at step ``s = 1, 2, ...``:

.. math::

    m \leftarrow \beta_1 m + (1-\beta_1) g,\quad v \leftarrow \beta_2 v + (1-\beta_2) g^2,\quad
    w \leftarrow w - \eta\,\frac{m / (1-\beta_1^s)}{\sqrt{v / (1-\beta_2^s)} + \epsilon}.

Clipping: if :math:`\lVert g \rVert > c` (norm over all arrays together),
:math:`g \leftarrow g\,c / \lVert g \rVert`.  Clipping is a training step, not part
of any gradient function.  The optimiser's state (``m``, ``v``, ``s``) is a value
passed in and out.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .checks import count, real
from .progress import progress_bar
from .random import as_generator
from .training import DivergenceError

__all__ = ["OptimConfig", "adam_init", "adam_step", "clip_by_global_norm", "train", "TrainHistory",
           "DivergenceError"]


@dataclass(frozen=True)
class OptimConfig:
    """Adam and clipping settings (ours: the paper gives none; see the module docstring).

    Attributes
    ----------
    learning_rate : float
        η = 1e-3.
    beta1, beta2, eps : float
        Adam's defaults (0.9, 0.999, 1e-8).
    clip_norm : float or None
        Largest global gradient norm (1.0); ``None`` switches clipping off.
    """

    learning_rate: float = 1e-3
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    clip_norm: float | None = 1.0

    def __post_init__(self):
        for name in ("learning_rate", "eps"):
            real(name, getattr(self, name), low=0.0, low_open=True)
        for name in ("beta1", "beta2"):
            real(name, getattr(self, name), low=0.0, high=1.0, high_open=True)
        if self.clip_norm is not None:
            real("clip_norm (or None)", self.clip_norm, low=0.0, low_open=True)


def clip_by_global_norm(grads: dict, max_norm: float | None) -> tuple[dict, float]:
    """Return ``(clipped grads, norm before clipping)``; ``grads`` is not modified."""
    norm = math.sqrt(sum(float(np.sum(np.square(g))) for g in grads.values()))
    if max_norm is None or not norm > max_norm:  # also leaves NaN norms for the caller to see
        return dict(grads), norm
    s = max_norm / norm
    return {k: g * s for k, g in grads.items()}, norm


def adam_init(params: dict) -> dict:
    """Adam's state for ``params``: zero moments ``m``, ``v`` and step count 0."""
    return {"m": {k: np.zeros_like(np.asarray(v, float)) for k, v in params.items()},
            "v": {k: np.zeros_like(np.asarray(v, float)) for k, v in params.items()}, "step": 0}


def adam_step(params: dict, grads: dict, state: dict, config: OptimConfig = OptimConfig()):
    """One Adam update (see the module docstring).  Returns ``(new params, new state)``."""
    if set(grads) != set(params):
        raise ValueError(f"grads have keys {sorted(grads)}, params {sorted(params)}")
    s = state["step"] + 1
    b1, b2 = config.beta1, config.beta2
    new_p, m, v = {}, {}, {}
    for k, w in params.items():
        m[k] = b1 * state["m"][k] + (1 - b1) * grads[k]
        v[k] = b2 * state["v"][k] + (1 - b2) * grads[k] ** 2
        new_p[k] = w - config.learning_rate * (m[k] / (1 - b1 ** s)) / (np.sqrt(v[k] / (1 - b2 ** s))
                                                                     + config.eps)
    return new_p, {"m": m, "v": v, "step": s}


@dataclass
class TrainHistory:
    """Per-update training loss and gradient norm, and evaluations every ``eval_every`` updates."""

    loss: list = field(default_factory=list)
    grad_norm: list = field(default_factory=list)
    eval_steps: list = field(default_factory=list)
    evals: list = field(default_factory=list)
    seconds: float = 0.0


def one_blas_thread():
    """A context in which numpy's BLAS runs on one thread.

    The TKRNN's, RNN's and LSTM's matrices are small (a minibatch of 32-64 by about
    100 units). A second BLAS thread gains little when a core is idle, and when the
    other cores are busy (Binder, a parallel run, a book build) its waiting made
    training and testing about 20 times slower here (200 TKRNN+2 updates: 5.5 s
    against 0.26 s). Used around every training loop and test of these models.
    """
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def train(loss_and_grad: Callable, params: dict, sample: Callable, n_steps: int, *,
          config: OptimConfig = OptimConfig(), rng=None, evaluate: Callable | None = None,
          eval_every: int = 0, progress: bool | None = None, desc: str = "training"):
    """Train ``params`` for ``n_steps`` Adam updates on minibatches from ``sample(rng)``.

    Parameters
    ----------
    loss_and_grad : callable
        ``(params, x, target, mask) -> (loss, grads)``.
    params : dict
        Initial parameters (not modified).
    sample : callable
        ``sample(rng) -> (x, target, mask)``: one minibatch drawn with ``rng``.
    n_steps : int
        Number of updates.
    config : OptimConfig
    rng : numpy.random.Generator, int or None
        Drives every batch drawn, so the same seed trains the same network.
    evaluate : callable, optional
        ``evaluate(params) -> JSON-able``, called after every ``eval_every``
        updates (and after the last).
    progress : bool or None
        Progress bar (see :mod:`tempnets.progress`).

    Returns
    -------
    (dict, TrainHistory)

    Raises
    ------
    DivergenceError
        When a loss, gradient or weight becomes NaN or infinite (the message
        says at which update).
    """
    count("n_steps", n_steps)
    gen = as_generator(rng)
    state = adam_init(params)
    params = {k: np.array(v, dtype=float) for k, v in params.items()}
    hist = TrainHistory()
    start = time.perf_counter()
    with one_blas_thread(), progress_bar(n_steps, desc, progress, unit="updates") as bar:
        for step in range(1, n_steps + 1):
            loss, grads = loss_and_grad(params, *sample(gen))
            grads, norm = clip_by_global_norm(grads, config.clip_norm)
            if not (math.isfinite(loss) and math.isfinite(norm)):
                raise DivergenceError(f"{desc}: loss {loss} / gradient norm {norm} at update {step}; "
                                      "try a smaller learning rate or clip_norm")
            params, state = adam_step(params, grads, state, config)
            if not all(np.all(np.isfinite(v)) for v in params.values()):
                raise DivergenceError(f"{desc}: non-finite weights after update {step}")
            hist.loss.append(loss)
            hist.grad_norm.append(norm)
            if evaluate is not None and eval_every and (step % eval_every == 0 or step == n_steps):
                hist.eval_steps.append(step)
                hist.evals.append(evaluate(params))
            bar.update(1)
    hist.seconds = time.perf_counter() - start
    return params, hist
