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

import dataclasses
import hashlib
import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .checkpoint import Checkpoint
from .._numerics.checks import array_in, count, real
from .._numerics.portable_math import _sum_of_squares
from .progress import progress_bar
from .._numerics.random import as_generator
from .srn_trainers import DivergenceError

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
        n_steps = count("n_steps", n_steps, 1)
        return self._rate_at(count("step", step, 1, n_steps), n_steps)

    def _rate_at(self, step: int, n_steps: int) -> float:
        """:meth:`rate_at` of checked integers (as :func:`train` calls it, once per update)."""
        if self.final_rate is None or n_steps < 2:
            return self.learning_rate
        return self.learning_rate + (self.final_rate - self.learning_rate) * ((step - 1) / (n_steps - 1))


def _clip_in_place(grads: dict, max_norm: float | None) -> float:
    """Scale the arrays of ``grads`` in place to global norm ``max_norm`` if it is larger;
    return the norm before clipping.

    The sum of squares is :func:`tempnets._numerics.portable_math._sum_of_squares` (float64, a fixed
    order) of each array, added in the dict's order: the same bits on every CPU (numpy's
    ``sum`` may pick its vectorised loop, and with it its order, by the CPU)."""
    norm = math.sqrt(sum(_sum_of_squares(np.ascontiguousarray(g)) for g in grads.values()))
    if max_norm is not None and norm > max_norm:  # (a NaN norm is left for the caller to see)
        s = max_norm / norm
        for g in grads.values():
            g *= s
    return norm


def clip_by_global_norm(grads: dict, max_norm: float | None) -> tuple[dict, float]:
    """Return ``(clipped grads, norm before clipping)``; ``grads`` is not modified.

    ``grads``: a dict of arrays of finite real numbers (float32 arrays stay float32, others
    become float64); ``max_norm``: a number > 0, or ``None`` (no clipping: the norm only)."""
    if max_norm is not None:
        max_norm = real("max_norm (or None)", max_norm, low=0.0, low_open=True)
    out = _arrays("grads", grads)
    return out, _clip_in_place(out, max_norm)


def _arrays(name: str, values, dtype=None) -> dict:
    """A new dict of new C-contiguous arrays from a dict of arrays of finite real numbers:
    in ``dtype`` (checked in it: :func:`tempnets._numerics.checks.array_in`), or by default float32
    arrays stay float32 and the rest become float64."""
    if not isinstance(values, dict) or not all(isinstance(k, str) for k in values):
        raise TypeError(f"{name} must be a dict of arrays keyed by parameter names, got "
                        f"{type(values).__name__}")

    def one(k, v):
        dt = dtype or (np.float32 if isinstance(v, np.ndarray) and v.dtype == np.float32 else np.float64)
        return np.array(array_in(f"{name}[{k!r}]", v, dt), dtype=dt).reshape(np.shape(v))
    return {k: one(k, v) for k, v in values.items()}


def adam_init(params: dict) -> dict:
    """Adam's state for ``params``: zero moments ``m``, ``v`` (in the dtype of each array:
    float32 for a float32 model, else float64) and step count 0."""
    params = _arrays("params", params)  # (float32 stays float32)

    def zeros(v):
        return np.zeros(v.shape, v.dtype)
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
    """One Adam update (see the module docstring), in float64.  Returns ``(new params, new
    state)``; the arguments are not modified.

    ``params``, ``grads``: dicts of arrays of finite real numbers with the same keys and
    shapes; ``state``: from :func:`adam_init` or an earlier ``adam_step`` (moments ``m`` and
    ``v`` of the params' shapes, finite, ``v >= 0``; ``step`` an integer >= 0)."""
    _config(config)
    new_p = _arrays("params", params, np.float64)
    new_g = _arrays("grads", grads, np.float64)
    if set(new_g) != set(new_p):
        raise ValueError(f"grads have keys {sorted(new_g)}, params {sorted(new_p)}")
    new_s = _state(state, new_p)
    for k in new_p:
        if new_g[k].shape != new_p[k].shape:
            raise ValueError(f"grads[{k!r}] must have the shape of params[{k!r}], {new_p[k].shape}, "
                             f"got {new_g[k].shape}")
    _adam_in_place(new_p, new_g, new_s, config)
    return new_p, new_s


def _config(config) -> "OptimConfig":
    if not isinstance(config, OptimConfig):
        raise TypeError(f"config must be an OptimConfig (optim.OptimConfig(learning_rate=...)), got "
                        f"{type(config).__name__}")
    return config


def _state(state, params: dict) -> dict:
    """A float64 copy of Adam's ``state`` for ``params``, after checking it is one."""
    if not isinstance(state, dict) or set(state) != {"m", "v", "step"}:
        got = sorted(state) if isinstance(state, dict) else type(state).__name__
        raise TypeError(f"state must be Adam's state (adam_init(params): a dict with keys "
                        f"['m', 'step', 'v']), got {got}")
    step = count("state['step'] (updates done)", state["step"])
    moments = {}
    for name in ("m", "v"):
        if not isinstance(state[name], dict) or set(state[name]) != set(params):
            raise ValueError(f"state[{name!r}] must have the keys of params, {sorted(params)}")
        moments[name] = _arrays(f"state[{name!r}]", state[name], np.float64)
        for k, w in params.items():
            if moments[name][k].shape != w.shape:
                raise ValueError(f"state[{name!r}][{k!r}] must have the shape of params[{k!r}], "
                                 f"{w.shape}, got {moments[name][k].shape}")
    bad = [k for k, v in moments["v"].items() if (v < 0).any()]
    if bad:
        raise ValueError(f"state['v'][{bad[0]!r}] (a mean of squares) must be >= 0 everywhere")
    return {"m": moments["m"], "v": moments["v"], "step": step}


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
    :mod:`tempnets._numerics.portable_math`, which call no BLAS, so this only guards a ``loss_and_grad``
    that does (a candidate for deletion).
    """
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


_WARM_UP_BYTES = 31 * 2 ** 20
"""The block :func:`_warm_up_allocator` allocates and frees: under glibc's 32 MB cap on its
dynamic mmap threshold."""


def _warm_up_allocator() -> None:
    """Let the C allocator keep the memory a training update frees, by glibc's own rule.

    glibc maps each block above its mmap threshold (128 kB at start) afresh and unmaps it
    when freed, and trims the heap's top when more than twice the threshold is free there.
    Its threshold is dynamic: freeing a mapped block raises it to that block's size (up to
    32 MB).  An update makes arrays of a few MB each (about 25 MB in all at the paper's
    sizes); with the threshold at their size the heap is trimmed and regrown, page by page,
    at every update (a float32 TKRNN update at the paper's size: 39-44 ms instead of 19-20).
    One 31 MB block allocated and freed here raises the threshold to 31 MB and the trim
    threshold to 62 MB, as any numpy program's first large temporary would.

    (``mallopt`` would set them too, but setting any of them switches glibc's dynamic
    threshold off for the rest of the process, and the previous values cannot be read back:
    every later numpy temporary over the set value was mapped afresh, a loop of 2 MB
    temporaries 17 times slower after training.)  Under other allocators (macOS, musl,
    Windows) it maps and unmaps 31 MB of untouched memory.
    """
    np.empty(_WARM_UP_BYTES, np.uint8)


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
        Progress bar (see :mod:`tempnets.training.progress`).
    dtype : {"float64", "float32"}
        The precision of the weights, the optimiser's state and every computation of
        ``loss_and_grad`` (the models compute in their parameters' dtype). float32 is
        about twice as fast; gradient checks stay in float64.
    checkpoint : tempnets.training.checkpoint.Checkpoint, optional
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
    n_steps = count("n_steps", n_steps)
    eval_every = count("eval_every (updates between evaluations; 0: none)", eval_every)
    _check_train_options(loss_and_grad, sample, evaluate, config, progress, desc, sample_with_step)
    if checkpoint is not None and not isinstance(checkpoint, Checkpoint):
        raise TypeError("checkpoint must be None or a tempnets.training.checkpoint.Checkpoint (from "
                        f"open_checkpoint), got {type(checkpoint).__name__}")
    if not isinstance(dtype, str) or dtype not in PRECISIONS:
        raise ValueError(f"dtype must be one of {sorted(PRECISIONS)}, got {dtype!r}")
    gen = as_generator(rng)
    params = _arrays("params", params, PRECISIONS[dtype])  # finite in the precision trained in
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
    _warm_up_allocator()
    with one_blas_thread(), progress_bar(n_steps, desc, progress, unit="updates") as bar:
        bar.update(done)
        for step in range(done + 1, n_steps + 1):
            loss, grads = loss_and_grad(params, *(sample(gen, step) if sample_with_step else sample(gen)))
            norm = _clip_in_place(grads, config.clip_norm)  # (grads are this update's own arrays)
            if not (math.isfinite(loss) and math.isfinite(norm)):
                raise DivergenceError(f"{desc}: loss {loss} / gradient norm {norm} at update {step}; "
                                      "try a smaller learning rate or clip_norm")
            _adam_in_place(params, grads, state, config, config._rate_at(step, n_steps))
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


def _check_train_options(loss_and_grad, sample, evaluate, config, progress, desc, sample_with_step):
    """The arguments of :func:`train` that are functions, flags and names."""
    for name, f in (("loss_and_grad", loss_and_grad), ("sample", sample)):
        if not callable(f):
            raise TypeError(f"{name} must be a function, got {type(f).__name__}")
    if evaluate is not None and not callable(evaluate):
        raise TypeError(f"evaluate must be a function or None, got {type(evaluate).__name__}")
    _config(config)
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"progress must be True, False or None, got {progress!r}")
    if not isinstance(sample_with_step, bool):
        raise TypeError(f"sample_with_step must be True or False, got {sample_with_step!r}")
    if not isinstance(desc, str):
        raise TypeError(f"desc must be a string, got {type(desc).__name__}")


def _restored(saved: dict, gen):
    """``(params, Adam state, history, step)`` of a state :func:`train` saved, with ``gen``
    set to where it was (pickling kept every array's dtype and bits)."""
    gen.bit_generator.state = saved["rng"]
    return saved["params"], saved["adam"], TrainHistory(**saved["history"]), saved["step"]
