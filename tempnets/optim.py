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

import contextlib
import ctypes
import dataclasses
import hashlib
import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .checks import count, real
from .portable_math import _sum_of_squares
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
    final_rate : float or None
        With a value, :func:`train`'s learning rate falls linearly from ``learning_rate`` at
        the first update to ``final_rate`` at the last (:meth:`rate_at`); ``None`` (the
        default): constant.
    """

    learning_rate: float = 1e-3
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    clip_norm: float | None = 1.0
    final_rate: float | None = None

    def __post_init__(self):
        for name in ("learning_rate", "eps"):
            real(name, getattr(self, name), low=0.0, low_open=True)
        if self.final_rate is not None:
            real("final_rate (or None)", self.final_rate, low=0.0, low_open=True)
        for name in ("beta1", "beta2"):
            real(name, getattr(self, name), low=0.0, high=1.0, high_open=True)
        if self.clip_norm is not None:
            real("clip_norm (or None)", self.clip_norm, low=0.0, low_open=True)


    def rate_at(self, step: int, n_steps: int) -> float:
        """The learning rate of update ``step`` (1 .. ``n_steps``): ``learning_rate``, or with a
        ``final_rate`` the linear path ``η + (η_final - η)(step - 1)/(n_steps - 1)`` (plain
        arithmetic, so the same bits on every CPU)."""
        if self.final_rate is None or n_steps < 2:
            return self.learning_rate
        return self.learning_rate + (self.final_rate - self.learning_rate) * ((step - 1) / (n_steps - 1))


def _clip_in_place(grads: dict, max_norm: float | None) -> float:
    """Scale the arrays of ``grads`` in place to global norm ``max_norm`` if it is larger;
    return the norm before clipping.

    The sum of squares is :func:`tempnets.portable_math._sum_of_squares` (float64, a fixed
    order) of each array, added in the dict's order: the same bits on every CPU (numpy's
    ``sum`` may pick its vectorised loop, and with it its order, by the CPU)."""
    norm = math.sqrt(sum(_sum_of_squares(np.ascontiguousarray(g)) for g in grads.values()))
    if max_norm is not None and norm > max_norm:  # (a NaN norm is left for the caller to see)
        s = max_norm / norm
        for g in grads.values():
            g *= s
    return norm


def clip_by_global_norm(grads: dict, max_norm: float | None) -> tuple[dict, float]:
    """Return ``(clipped grads, norm before clipping)``; ``grads`` is not modified."""
    out = {k: np.array(g) for k, g in grads.items()}
    return out, _clip_in_place(out, max_norm)


def adam_init(params: dict) -> dict:
    """Adam's state for ``params``: zero moments ``m``, ``v`` (in the dtype of each array:
    float32 for a float32 model, else float64) and step count 0."""
    def zeros(v):
        v = np.asarray(v)
        return np.zeros(v.shape, np.float32 if v.dtype == np.float32 else np.float64)
    return {"m": {k: zeros(v) for k, v in params.items()},
            "v": {k: zeros(v) for k, v in params.items()}, "step": 0}


def _power(base: float, n: int) -> float:
    """``base ** n`` for an integer ``n >= 0`` by repeated squaring: IEEE multiplications only,
    so the same bits on every CPU (``**`` calls the C library's ``pow``, whose variant for CPUs
    with fused multiply-add may round differently); within about ``log2(n)`` ulp."""
    result, square = 1.0, float(base)
    while n:
        if n & 1:
            result *= square
        square *= square
        n >>= 1
    return result


def _adam_in_place(params: dict, grads: dict, state: dict, config: OptimConfig,
                   rate: float | None = None) -> None:
    """One Adam update of ``params`` and ``state`` in place: the formulas of the module
    docstring, each operation written out so that no temporary array is made (the same
    bits as the formulas evaluated left to right).  ``grads`` is used as scratch.  ``rate``:
    the learning rate η of this update (default ``config.learning_rate``)."""
    rate = config.learning_rate if rate is None else rate
    s = state["step"] + 1
    b1, b2 = config.beta1, config.beta2
    c1, c2 = 1 - _power(b1, s), 1 - _power(b2, s)
    for k, w in params.items():
        g, m, v = grads[k], state["m"][k], state["v"][k]
        step = np.empty_like(w)
        m *= b1                          # m = b1 m + (1 - b1) g
        np.multiply(g, 1 - b1, out=step)
        m += step
        np.square(g, out=g)              # v = b2 v + (1 - b2) g^2
        g *= 1 - b2
        v *= b2
        v += g
        np.divide(m, c1, out=step)       # w -= lr (m / c1) / (sqrt(v / c2) + eps)
        step *= rate
        np.divide(v, c2, out=g)
        np.sqrt(g, out=g)
        g += config.eps
        step /= g
        w -= step
    state["step"] = s


def adam_step(params: dict, grads: dict, state: dict, config: OptimConfig = OptimConfig()):
    """One Adam update (see the module docstring).  Returns ``(new params, new state)``;
    the arguments are not modified."""
    if set(grads) != set(params):
        raise ValueError(f"grads have keys {sorted(grads)}, params {sorted(params)}")
    new_p = {k: np.array(w, dtype=float) for k, w in params.items()}
    new_s = {"m": {k: np.array(state["m"][k], dtype=float) for k in params},
             "v": {k: np.array(state["v"][k], dtype=float) for k in params}, "step": state["step"]}
    _adam_in_place(new_p, {k: np.array(g, dtype=float) for k, g in grads.items()}, new_s, config)
    return new_p, new_s


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

    When the TKRNN, RNN and LSTM computed their products with BLAS, a second BLAS thread
    made training on a busy machine about 20 times slower (200 TKRNN+2 updates: 5.5 s
    against 0.26 s).  Their products are now the compiled kernels of
    :mod:`tempnets.portable_math`, which call no BLAS, so this only guards a ``loss_and_grad``
    that does (a candidate for deletion).
    """
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


@contextlib.contextmanager
def keep_freed_memory(limit: int = 32 * 2 ** 20):
    """A context in which the C allocator keeps the memory numpy frees (glibc only).

    glibc gives every freed block above its mmap threshold back to the system, so the
    arrays a training update makes (about 25 MB at the paper's sizes) are mapped afresh,
    page by page, at every update: thousands of page faults each time. Inside this
    context blocks up to ``limit`` bytes (glibc's largest threshold: 32 MB) come from the
    heap, which is not trimmed; on exit both thresholds return to glibc's defaults
    (128 kB). Elsewhere (macOS, musl, Windows) it does nothing.
    """
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        yield
        return
    M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, DEFAULT = -1, -3, 128 * 1024
    mallopt(M_MMAP_THRESHOLD, limit)
    mallopt(M_TRIM_THRESHOLD, 2 * limit)
    try:
        yield
    finally:
        mallopt(M_MMAP_THRESHOLD, DEFAULT)
        mallopt(M_TRIM_THRESHOLD, DEFAULT)


PRECISIONS = {"float64": np.float64, "float32": np.float32}
"""The precisions :func:`train` trains in (``dtype=``)."""


def _made_from(params: dict, gen, n_steps, config, dtype, eval_every) -> dict:
    """What a training run is determined by (with ``loss_and_grad``, ``sample`` and
    ``evaluate``): a checkpoint saved by a run that differs in any of it is refused."""
    h = hashlib.sha256()
    for k in sorted(params):
        h.update(f"{k}{params[k].shape}{params[k].dtype}".encode())
        h.update(np.ascontiguousarray(params[k]).tobytes())
    return {"n_steps": n_steps, "config": dataclasses.asdict(config), "dtype": dtype,
            "eval_every": eval_every, "initial weights (sha256)": h.hexdigest()[:16],
            "rng (sha256)": hashlib.sha256(repr(gen.bit_generator.state).encode()).hexdigest()[:16]}


def train(loss_and_grad: Callable, params: dict, sample: Callable, n_steps: int, *,
          config: OptimConfig = OptimConfig(), rng=None, evaluate: Callable | None = None,
          eval_every: int = 0, progress: bool | None = None, desc: str = "training",
          dtype: str = "float64", checkpoint=None, checkpoint_key: str = "training",
          sample_with_step: bool = False):
    """Train ``params`` for ``n_steps`` Adam updates on minibatches from ``sample(rng)``.

    Parameters
    ----------
    loss_and_grad : callable
        ``(params, x, target, mask) -> (loss, grads)``.
    params : dict
        Initial parameters (not modified).
    sample : callable
        ``sample(rng) -> (x, target, mask)``: one minibatch drawn with ``rng``; with
        ``sample_with_step``, ``sample(rng, step)``, ``step`` the update (1 .. ``n_steps``) the
        batch is for (a curriculum).
    n_steps : int
        Number of updates.
    config : OptimConfig
        Adam's settings; with ``final_rate`` the learning rate of update ``s`` is
        ``config.rate_at(s, n_steps)``.
    rng : numpy.random.Generator, int or None
        Drives every batch drawn, so the same seed trains the same network.
    evaluate : callable, optional
        ``evaluate(params) -> JSON-able``, called after every ``eval_every``
        updates (and after the last).
    progress : bool or None
        Progress bar (see :mod:`tempnets.progress`).
    dtype : {"float64", "float32"}
        The precision of the weights, the optimiser's state and every computation of
        ``loss_and_grad`` (the models compute in their parameters' dtype). float32 is
        about twice as fast; gradient checks stay in float64.
    checkpoint : tempnets.checkpoint.Checkpoint, optional
        Where to save the run's state (weights, Adam's state, the state of ``rng``, the
        history, the update count) under ``checkpoint_key``, at least every
        ``checkpoint.every_seconds``; a run that finds a state saved under that key by the
        same training (same initial weights, ``rng``, ``n_steps``, ``config``, ``dtype``,
        ``eval_every``) continues from it, and ends with the same bits as a run never
        interrupted.  ``sample`` must draw from ``rng`` only, and ``evaluate`` must not
        depend on earlier calls.  The history's ``seconds`` then counts every session.
    checkpoint_key : str
        The key of this run in ``checkpoint`` (letters, digits, ``_ . + -``).

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
    if dtype not in PRECISIONS:
        raise ValueError(f"dtype must be one of {sorted(PRECISIONS)}, got {dtype!r}")
    gen = as_generator(rng)
    params = {k: np.array(v, dtype=PRECISIONS[dtype]) for k, v in params.items()}
    state = adam_init(params)
    hist = TrainHistory()
    done = 0
    if checkpoint is not None:
        made_from = _made_from(params, gen, n_steps, config, dtype, eval_every)
        saved = checkpoint.load(checkpoint_key, made_from)
        if saved is not None:
            params, state, hist, done = _restored(saved, gen)
    start = time.perf_counter()
    earlier = hist.seconds
    last_save, last_step = start, done
    with one_blas_thread(), keep_freed_memory(), \
            progress_bar(n_steps, desc, progress, unit="updates") as bar:
        bar.update(done)
        for step in range(done + 1, n_steps + 1):
            loss, grads = loss_and_grad(params, *(sample(gen, step) if sample_with_step else sample(gen)))
            norm = _clip_in_place(grads, config.clip_norm)  # (grads are this update's own arrays)
            if not (math.isfinite(loss) and math.isfinite(norm)):
                raise DivergenceError(f"{desc}: loss {loss} / gradient norm {norm} at update {step}; "
                                      "try a smaller learning rate or clip_norm")
            _adam_in_place(params, grads, state, config, config.rate_at(step, n_steps))
            if not all(np.all(np.isfinite(v)) for v in params.values()):
                raise DivergenceError(f"{desc}: non-finite weights after update {step}")
            hist.loss.append(loss)
            hist.grad_norm.append(norm)
            if evaluate is not None and eval_every and (step % eval_every == 0 or step == n_steps):
                hist.eval_steps.append(step)
                hist.evals.append(evaluate(params))
            bar.update(1)
            if (checkpoint is not None and step < n_steps
                    and checkpoint.due(time.perf_counter() - last_save, step - last_step)):
                hist.seconds = earlier + time.perf_counter() - start
                checkpoint.save(checkpoint_key, {
                    "step": step, "params": params, "adam": state,
                    "rng": gen.bit_generator.state, "history": dataclasses.asdict(hist)}, made_from)
                last_save, last_step = time.perf_counter(), step
    hist.seconds = earlier + time.perf_counter() - start
    return params, hist


def _restored(saved: dict, gen):
    """``(params, Adam state, history, step)`` of a state :func:`train` saved, with ``gen``
    set to where it was (pickling kept every array's dtype and bits)."""
    gen.bit_generator.state = saved["rng"]
    return saved["params"], saved["adam"], TrainHistory(**saved["history"]), saved["step"]
