r"""Training focused and full networks: Mozer (1989/1995), "Implementation details".

Batch updates (one per epoch, the whole training set), no momentum, and a learning
rate per connection type k (input→context, decay, zero point, context→output), set
after every epoch by

.. math::

    \epsilon_k = \mathrm{mse}^{\mu}\,\rho\,\min\Big(\omega, \frac{W_k}{\nabla_k}\Big),

with :math:`W_k` the mean L1 norm of a unit's fan-in of type k and :math:`\nabla_k` the
mean L1 norm of its gradient (the largest magnitude, for decays and zero points).
Focused networks get their gradient from the traces, full networks from BPTT
(:mod:`tempnets.models.focused`); ``R`` networks train side by side in one compiled kernel
(``prange`` over networks), each from its own initial weights, so results do not
depend on the number of threads.

==================  ==================  ==========================================
paper               code                meaning
==================  ==================  ==========================================
:math:`\epsilon_k`  ``eps[k]``          learning rate of connection type k
:math:`\mu, \rho, \omega`  ``FocusedConfig.mu, rho, omega``
mse                 ``mse[r, e]``       mean squared error, output units × target steps
==================  ==================  ==========================================
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numba
import numpy as np

from .._numerics.checks import count
from ..models.focused import (VARIANTS, FocusedParams, FullParams, Sequences, _bptt_kernel, _check,
                      _check_feedback, _forward_kernel, _trace_kernel, bptt_gradient, check_params,
                      check_sequences, forward, trace_gradient)
from .progress import progress_bar
from .srn_trainers import DivergenceError

__all__ = ["FocusedConfig", "History", "train", "evaluate", "zero_output_score", "learning_rates", "SCORES"]

SCORES = ("argmax", "quantised")


@dataclass(frozen=True)
class FocusedConfig:
    """Batch training with Mozer's adaptive learning rates ("Implementation details").

    Attributes
    ----------
    mu, rho, omega : float
        :math:`\\epsilon_k = \\mathrm{mse}^\\mu\\,\\rho\\,\\min(\\omega, W_k/\\nabla_k)` per
        connection type k.  The paper: μ "in the neighborhood of 0.75-1.0",
        ρ "generally 0.02"; ω is not given (100: our reconstruction).
    variant : {"eq1", "eq3"}
        The focused context unit (ignored by the full network, which is eq. 3).
    score : {"argmax", "quantised"}
        ``"argmax"``: a sequence is right when, at each target step, the most
        active output is the target's (the verb tasks); performance is the % of
        sequences right.  ``"quantised"``: outputs > 0.5 count as 1, a step is
        right when every unit matches; performance is the % of target steps
        right (sequence reproduction).
    feedback : int
        Inputs fed by the previous quantised outputs at test time (Jordan
        feedback; 3 for sequence reproduction, 0 otherwise).
    stop_at_criterion : bool
        Stop a network once its performance is perfect (sequence reproduction).
    slow_dz : float
        Multiplies the decay and zero-point rates (1.0: the rule as stated; Figure 3's
        run had these rates "turned down").
    """

    mu: float = 1.0
    rho: float = 0.02
    omega: float = 100.0
    variant: str = "eq1"
    score: str = "argmax"
    feedback: int = 0
    stop_at_criterion: bool = False
    slow_dz: float = 1.0

    def validate(self) -> "FocusedConfig":
        for name in ("mu", "rho", "omega", "slow_dz"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not np.isfinite(v) or v < 0:
                raise ValueError(f"{name} must be a finite non-negative number, got {v!r}")
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r}; allowed: {', '.join(VARIANTS)}")
        if self.score not in SCORES:
            raise ValueError(f"unknown score {self.score!r}; allowed: {', '.join(SCORES)}")
        count("feedback", self.feedback)
        if not isinstance(self.stop_at_criterion, bool):  # (the kernel would compile anew for it)
            raise TypeError(f"stop_at_criterion must be True or False, got {self.stop_at_criterion!r:.60}")
        return self


def _checked(config) -> FocusedConfig:
    """``config`` after checking it is a valid :class:`FocusedConfig`."""
    if not isinstance(config, FocusedConfig):
        raise TypeError(f"config must be a FocusedConfig, got {type(config).__name__}")
    return config.validate()


@dataclass
class History:
    """What :func:`train` returns.

    Attributes
    ----------
    performance : (R, n_epochs + 1) ndarray
        % correct (see :attr:`FocusedConfig.score`) with the weights after
        ``e`` updates (column ``e``); after a stop at criterion the last value
        is carried forward.
    mse : (R, n_epochs + 1) ndarray
        Mean squared error over output units and target steps, same columns.
    epochs_to_criterion : (R,) int ndarray
        First ``e`` with perfect performance, ``-1`` if never.
    params : FocusedParams or FullParams
        The trained stack.
    """

    performance: np.ndarray
    mse: np.ndarray
    epochs_to_criterion: np.ndarray
    params: object
    config: FocusedConfig
    rates: np.ndarray = None  # (R, n_epochs + 1, 4): ε of input-context, decay, zero point, context-output


@numba.njit(cache=True)
def _score(Yout, Y, M, offsets, quantised):
    """Number of items right (sequences for argmax, target steps when quantised) and of items."""
    right = 0
    items = 0
    for s in range(len(offsets) - 1):
        ok_seq = True
        for t in range(offsets[s], offsets[s + 1]):
            if M[t] == 0.0:
                continue
            if quantised:
                ok = True
                for k in range(Y.shape[1]):
                    if (Yout[t, k] > 0.5) != (Y[t, k] > 0.5):
                        ok = False
                items += 1
                right += 1 if ok else 0
            elif np.argmax(Yout[t]) != np.argmax(Y[t]):
                ok_seq = False
        if not quantised:
            items += 1
            right += 1 if ok_seq else 0
    return right, items


@numba.njit(cache=True)
def _fan_in_l1(W, g, b, gb):
    """Mean over units of the L1 norm of the fan-in weights and of the fan-in gradient."""
    wsum = 0.0
    gsum = 0.0
    for i in range(W.shape[0]):
        for j in range(W.shape[1]):
            wsum += abs(W[i, j])
            gsum += abs(g[i, j])
        wsum += abs(b[i])
        gsum += abs(gb[i])
    return wsum / W.shape[0], gsum / W.shape[0]


@numba.njit(cache=True)
def _rate(mse, mu, rho, omega, W_k, grad_k):
    """Mozer's rule, eps_k = mse^mu rho min(omega, W_k / grad_k)."""
    ratio = omega if grad_k == 0.0 else min(omega, W_k / grad_k)
    return mse ** mu * rho * ratio


@numba.njit(cache=True)
def _rates(W_in, b_c, R, z, W_out, b_o, gW_in, gb_c, gR, gz, gW_out, gb_o, diag, mse, mu, rho, omega, out):
    """Learning rates of the connection types: input-context, decay, zero point, context-output.

    The full network's input-context type includes its recurrent weights (its
    context units' fan-in); it has no decay or zero-point types.
    """
    n_ctx = W_in.shape[0]
    w, g = _fan_in_l1(W_in, gW_in, b_c, gb_c)
    if not diag:
        w2, g2 = _fan_in_l1(R, gR, np.zeros(n_ctx), np.zeros(n_ctx))
        w, g = w + w2, g + g2
    out[0] = _rate(mse, mu, rho, omega, w, g)
    if diag:
        wd, gd, wz, gzm = 0.0, 0.0, 0.0, 0.0
        for i in range(n_ctx):
            wd += abs(R[i, i])
            gd = max(gd, abs(gR[i, i]))
            wz += abs(z[i])
            gzm = max(gzm, abs(gz[i]))
        out[1] = _rate(mse, mu, rho, omega, wd / n_ctx, gd)
        out[2] = _rate(mse, mu, rho, omega, wz / n_ctx, gzm)
    else:
        out[1] = 0.0
        out[2] = 0.0
    w, g = _fan_in_l1(W_out, gW_out, b_o, gb_o)
    out[3] = _rate(mse, mu, rho, omega, w, g)


@numba.njit(cache=True)
def _finite(a):
    for v in a.ravel():
        if not np.isfinite(v):
            return False
    return True


@numba.njit(cache=True, parallel=True)
def _train_many(W_in, b_c, R, z, W_out, b_o, diag, eq3, X, Y, M, offsets, n_fb, quantised,
                mu, rho, omega, slow_dz, stop, e0, e1, n_epochs, perf, mse, crit, status, rates):
    """Train ``R`` networks side by side (``prange``) for epochs ``e0 .. e1 - 1``.

    Each epoch: gradient and outputs of the whole training set with the current
    weights (traces for a focused net, BPTT for the full net), performance and
    mse recorded in column ``e``, then (unless ``e == n_epochs``) one batch
    update with the adaptive rates.  ``status``: 0 running, 1 stopped at
    criterion, 2 diverged (``crit`` then holds the epoch, negated minus one).
    """
    n_net, n_ctx, n_in = W_in.shape
    n_out = W_out.shape[1]
    N = X.shape[0]
    n_items_out = 0.0
    for t in range(N):
        n_items_out += M[t]
    n_items_out *= n_out
    for r in numba.prange(n_net):
        if status[r] != 0:
            continue
        gW_in = np.empty((n_ctx, n_in))
        gb_c = np.empty(n_ctx)
        gR = np.empty((n_ctx, n_ctx))
        gz = np.empty(n_ctx)
        gW_out = np.empty((n_out, n_ctx))
        gb_o = np.empty(n_out)
        Yout = np.empty((N, n_out))
        C = np.empty((N, n_ctx))
        Cprev = np.empty((N, n_ctx))
        SP = np.empty((N, n_ctx))
        eps = np.empty(4)
        for e in range(e0, e1):
            if diag:
                loss = _trace_kernel(W_in[r], b_c[r], R[r], z[r], W_out[r], b_o[r], eq3, X, Y, M, offsets,
                                     gW_in, gb_c, gR, gz, gW_out, gb_o, Yout)
            else:
                loss = _bptt_kernel(W_in[r], b_c[r], R[r], z[r], W_out[r], b_o[r], diag, eq3, X, Y, M, offsets,
                                    gW_in, gb_c, gR, gz, gW_out, gb_o, Yout, C, Cprev, SP)
            if not np.isfinite(loss) or not (_finite(gW_in) and _finite(gR) and _finite(gW_out)):
                status[r] = 2
                crit[r] = -e - 1
                break
            if quantised:  # test mode: Jordan feedback from quantised outputs
                _forward_kernel(W_in[r], b_c[r], R[r], z[r], W_out[r], b_o[r], diag, eq3, X, offsets, n_fb, C, Yout)
            right, items = _score(Yout, Y, M, offsets, quantised)
            perf[r, e] = 100.0 * right / items
            mse[r, e] = 2.0 * loss / n_items_out
            if right == items and crit[r] < 0:
                crit[r] = e
                if stop:
                    status[r] = 1
                    break
            if e == n_epochs:
                break
            _rates(W_in[r], b_c[r], R[r], z[r], W_out[r], b_o[r], gW_in, gb_c, gR, gz, gW_out, gb_o,
                   diag, mse[r, e], mu, rho, omega, eps)
            eps[1] *= slow_dz
            eps[2] *= slow_dz
            rates[r, e] = eps
            W_in[r] -= eps[0] * gW_in
            b_c[r] -= eps[0] * gb_c
            if diag:
                for i in range(n_ctx):
                    R[r, i, i] -= eps[1] * gR[i, i]
                    z[r, i] -= eps[2] * gz[i]
            else:
                R[r] -= eps[0] * gR
            W_out[r] -= eps[3] * gW_out
            b_o[r] -= eps[3] * gb_o
            if not (_finite(W_in[r]) and _finite(b_c[r]) and _finite(R[r]) and _finite(z[r])
                    and _finite(W_out[r]) and _finite(b_o[r])):
                status[r] = 2
                crit[r] = -e - 1
                break



def train(seqs: Sequences, params, *, n_epochs: int, config: FocusedConfig = FocusedConfig(),
          progress=None, chunk: int = 250) -> History:
    """Train a stack of networks (from :func:`init_many`) by batch gradient descent.

    Focused networks get their gradient from the traces (:func:`trace_gradient`),
    full networks from BPTT (:func:`bptt_gradient`); both update once per
    epoch with the adaptive rates of :class:`FocusedConfig`.  Deterministic:
    the result depends only on the initial stack (``chunk``, the epochs run
    between two progress updates, changes nothing else).

    Raises
    ------
    TypeError, ValueError
        A stack whose networks' arrays disagree in shape or hold NaN/inf (every
        network is checked), sequences that do not fit it, ``chunk < 1``.
    DivergenceError
        If a network's error or weights become NaN or infinite (names the
        network and the epoch).
    """
    config = _checked(config)
    if not isinstance(params, (FocusedParams, FullParams)) or np.asarray(params.W_in).ndim != 3:
        raise TypeError("params must be a stack of networks (FocusedParams/FullParams with a leading "
                        "network axis, see init_many)")
    n_epochs = count("n_epochs", n_epochs)
    chunk = count("chunk", chunk, 1)
    arrays = [a.copy() for a in check_params(params, stack=True)]  # every network, not just the first
    focused = isinstance(params, FocusedParams)
    W_in, b_c, W_out, b_o = arrays[0], arrays[1], arrays[-2], arrays[-1]
    seqs = check_sequences(seqs, W_in.shape[2], W_out.shape[1])
    fb = _check_feedback(config.feedback, W_in.shape[2], W_out.shape[1])
    n_net, n_ctx = W_in.shape[:2]
    if focused:
        R = np.zeros((n_net, n_ctx, n_ctx))
        R[:, np.arange(n_ctx), np.arange(n_ctx)] = arrays[2]
        z = arrays[3]
    else:
        R, z = arrays[2], np.zeros((n_net, n_ctx))
    eq3 = config.variant == "eq3" or not focused
    perf = np.full((n_net, n_epochs + 1), np.nan)
    mse = np.full((n_net, n_epochs + 1), np.nan)
    rates = np.full((n_net, n_epochs + 1, 4), np.nan)
    crit = np.full(n_net, -1, dtype=np.int64)
    status = np.zeros(n_net, dtype=np.int64)
    with progress_bar(n_epochs + 1, "epochs", progress, unit="epoch") as bar:
        for e0 in range(0, n_epochs + 1, chunk):
            e1 = min(e0 + chunk, n_epochs + 1)
            with np.errstate(over="ignore", invalid="ignore"):
                _train_many(W_in, b_c, R, z, W_out, b_o, focused, eq3, seqs.X, seqs.Y, seqs.M, seqs.offsets,
                            fb, config.score == "quantised", config.mu, config.rho, config.omega, config.slow_dz,
                            config.stop_at_criterion, e0, e1, n_epochs, perf, mse, crit, status, rates)
            bad = np.flatnonzero(status == 2)
            if bad.size:
                k = int(bad[0])
                raise DivergenceError(
                    f"network {k} diverged at epoch {-crit[k] - 1}: its error or weights became NaN or "
                    f"infinite (rates mu={config.mu}, rho={config.rho}, omega={config.omega}; "
                    f"largest |decay| {np.abs(np.diagonal(R[k])).max():.4g})")
            bar.update(e1 - e0)
            if (status != 0).all():
                break
    for a in (perf, mse):  # networks stopped at criterion keep their last value
        for r in range(n_net):
            last = np.flatnonzero(~np.isnan(a[r]))
            if last.size:
                a[r, last[-1] + 1:] = a[r, last[-1]]
    if focused:
        out = FocusedParams(W_in, b_c, np.diagonal(R, axis1=1, axis2=2).copy(), z, W_out, b_o)
    else:
        out = FullParams(W_in, b_c, R, W_out, b_o)
    return History(perf, mse, crit, out, config, rates)


def evaluate(params, seqs: Sequences, config: FocusedConfig = FocusedConfig()) -> np.ndarray:
    """Performance (% correct, as :attr:`FocusedConfig.score` defines it) of each network of a stack,
    or of one network (returns a 0-d array)."""
    config = _checked(config)
    check_params(params, stack=np.ndim(getattr(params, "W_in", None)) == 3)
    single = np.ndim(params.W_in) == 2
    nets = [params] if single else [params.network(k) for k in range(params.W_in.shape[0])]
    out = []
    for p in nets:
        y, _ = forward(p, seqs, variant=config.variant, feedback=config.feedback)
        right, items = _score(y, seqs.Y, seqs.M, seqs.offsets, config.score == "quantised")
        out.append(100.0 * right / items)
    return np.asarray(out[0] if single else out)


def zero_output_score(seqs: Sequences, config: FocusedConfig = FocusedConfig()) -> float:
    """The score (% correct, as :func:`evaluate` computes it) of a network that outputs zeros at
    every step: the do-nothing baseline.

    With quantised scoring every step whose target is all zeros counts as right, so a task
    whose targets are mostly zero (sequence reproduction: 7 of 10 steps at delay 4) gives a
    network that learned nothing a high score; a claim this baseline passes is no evidence
    of learning.
    """
    config = _checked(config)
    seqs = check_sequences(seqs)
    right, items = _score(np.zeros_like(seqs.Y), seqs.Y, seqs.M, seqs.offsets, config.score == "quantised")
    return 100.0 * right / items


def learning_rates(params, seqs: Sequences, config: FocusedConfig = FocusedConfig()) -> dict:
    """The adaptive rates ε_k one network would use now (input-context, decay, zero, context-output)."""
    W_in, b_c, R, z, W_out, b_o, diag, eq3, seqs = _check(params, seqs, _checked(config).variant)
    loss, g = (trace_gradient if diag else bptt_gradient)(params, seqs, variant=config.variant)
    gR = np.diag(g.d) if diag else g.W_cc
    gz = g.z if diag else np.zeros(len(b_c))
    out = np.empty(4)
    n_items = seqs.M.sum() * W_out.shape[0]
    _rates(W_in, b_c, R, z, W_out, b_o, g.W_in, g.b_c, gR, gz, g.W_out, g.b_o, diag,
           2 * loss / n_items, config.mu, config.rho, config.omega, out)
    names = ("input-context", "decay", "zero point", "context-output")
    return {k: float(v) for k, v in zip(names, out) if diag or k in ("input-context", "context-output")}
