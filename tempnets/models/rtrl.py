r"""A fully recurrent network trained on-line by real-time recurrent learning (RTRL).

Paper: R. J. Williams & D. Zipser (1989), *Experimental analysis of the
real-time recurrent learning algorithm*, Connection Science 1(1), 87-111 (the
flip-flop task of Schmidhuber's experiment 1 comes from it).  In the fast-weights
chapter it is the "dynamic recurrent network" the 1991 paper offers an
alternative to, trained on the same streams with an exact gradient.

Model: ``n`` logistic units, all connected to all, reading ``m`` external inputs,
their own previous activations and a bias,

.. math::

    z(t) = [x(t);\ y(t-1);\ 1], \qquad y_k(t) = f\Big(\sum_j w_{kj} z_j(t)\Big),
    \qquad f(u) = \frac{1}{1 + e^{-u}},

with ``y(0) = 0``.  Units ``0 .. n_out - 1`` are the outputs:
``E(t) = ½ m(t) Σ_{k < n_out} (d_k(t) - y_k(t))²``.  RTRL carries the
sensitivities ``p^k_{ij}(t) = ∂y_k(t)/∂w_ij`` forward:

.. math::

    p^k_{ij}(t) = f'(\text{net}_k(t)) \Big[\sum_l w_{k, m+l}\, p^l_{ij}(t-1)
                  + [k = i]\, z_j(t)\Big], \qquad p(0) = 0,

    \frac{\partial E(t)}{\partial w_{ij}} = \sum_{k < n_out} (y_k(t) - d_k(t))\, p^k_{ij}(t).

With the weights fixed over a sequence the summed gradient is exact
(:func:`gradient`; checked against back-propagation through time,
:func:`gradient_bptt`).  On-line (:func:`train_online`) the weights change
after every step and the sensitivities are never reset.  Cost per step
``O(n^3 (n + m))``, memory ``O(n^2 (n + m))``, whatever the sequence length.

Symbols to code: ``w_ij`` is ``W[i, j]`` (to unit ``i`` from ``z_j``), shape
``(n, m + n + 1)``; ``p^k_ij`` is ``P[k, i, j]``; inputs ``x`` have shape
``(n_steps, m)``, targets ``d`` ``(n_steps, n_out)``, the mask ``(n_steps,)``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np

from .._numerics.checks import array, count, is_finite_real, memory, real
from .._numerics.portable import logistic
from .._numerics.random import as_generator, perturbed
from .._numerics.checks import DivergenceError

__all__ = ["RecurrentNet", "RTRLResult", "init_weights", "gradient", "gradient_bptt",
           "train_online"]


@dataclass(frozen=True)
class RecurrentNet:
    """A fully recurrent network: ``n_in`` inputs, ``n_units`` units, the first ``n_out`` are outputs."""

    n_in: int
    n_units: int
    n_out: int

    def __post_init__(self):
        for name in ("n_in", "n_units", "n_out"):
            count(name, getattr(self, name), 1)
        memory(self.n_units ** 2 * (self.n_in + self.n_units + 1),  # RTRL's p-variables, n^2 (n + m)
               f"RecurrentNet: n_in={self.n_in}, n_units={self.n_units}")
        if self.n_out > self.n_units:
            raise ValueError(f"n_out ({self.n_out}) cannot exceed n_units ({self.n_units})")

    @property
    def shape_W(self) -> tuple:
        return (self.n_units, self.n_in + self.n_units + 1)


class RTRLResult(NamedTuple):
    """What :func:`train_online` returns."""

    W: np.ndarray      #: weights after the last step
    y: np.ndarray      #: (n_units,) activations after the last step (the carry)
    P: np.ndarray      #: (n_units, n_units, n_in + n_units + 1) sensitivities (the carry)
    E: np.ndarray      #: (steps,) E(t)
    steps: int
    solved_at: int     #: step at which the stopping criterion was met, or -1


def init_weights(net: RecurrentNet, init_range: float = 0.1, rng=None) -> np.ndarray:
    """Weights and biases uniform in ``[-init_range, init_range]``."""
    if not isinstance(net, RecurrentNet):
        raise TypeError(f"net must be a RecurrentNet, got {type(net).__name__}")
    init_range = real("init_range", init_range, low=0.0)
    return perturbed(as_generator(rng).uniform(-init_range, init_range, net.shape_W))


def _check(net, W, x, d, mask):
    if not isinstance(net, RecurrentNet):
        raise TypeError(f"net must be a RecurrentNet, got {type(net).__name__}")
    W = array("W", W, net.shape_W)
    x = array("inputs x", x, (None, net.n_in))
    n = x.shape[0]
    d = array("targets d", d, (n, net.n_out), finite=False)  # only scored steps must be finite
    mask = np.ones(n) if mask is None else array("mask", mask, finite=False)
    if mask.shape != (n,) or not np.all((mask == 0) | (mask == 1)):
        raise ValueError(f"mask must be {n} values of 0/1, got shape {mask.shape}")
    if not np.all(np.isfinite(d[mask == 1])):
        raise ValueError("targets d contain NaN or infinite values on scored steps")
    return W, x, np.where(mask[:, None] == 1, d, 0.0), mask


@numba.njit(cache=True, nogil=True)
def _rtrl(W, x, d, mask, n_out, y, P, lr, stop_run, stop_thr, E_out, G):
    """Steps t = 1..n in place.  Vectorised meaning: ``z = [x; y; 1]``, ``y = f(W z)``,
    ``P = f' (W_rec P + δ z)``, ``g = Σ_k e_k P_k``, ``G += g``, ``W -= lr g``."""
    n_steps, m = x.shape
    n, nz = W.shape
    z = np.empty(nz)
    Pn = np.empty_like(P)
    g = np.empty_like(W)
    ok_run = 0
    for t in range(n_steps):
        for j in range(m):
            z[j] = x[t, j]
        for l in range(n):
            z[m + l] = y[l]
        z[nz - 1] = 1.0
        for k in range(n):
            acc = 0.0
            for j in range(nz):
                acc += W[k, j] * z[j]
            y[k] = logistic(acc)
        # p^k_ij(t) = f'_k [sum_l w_{k,m+l} p^l_ij(t-1) + [k=i] z_j]
        for k in range(n):
            fp = y[k] * (1.0 - y[k])
            for i in range(n):
                for j in range(nz):
                    acc = 0.0
                    for l in range(n):
                        acc += W[k, m + l] * P[l, i, j]
                    if k == i:
                        acc += z[j]
                    Pn[k, i, j] = fp * acc
        P[:, :, :] = Pn
        E = 0.0
        g[:, :] = 0.0
        for k in range(n_out):
            e = mask[t] * (y[k] - d[t, k])
            E += 0.5 * e * e
            if e != 0.0:
                for i in range(n):
                    for j in range(nz):
                        g[i, j] += e * P[k, i, j]
        E_out[t] = E
        for i in range(n):
            for j in range(nz):
                G[i, j] += g[i, j]
                W[i, j] -= lr * g[i, j]
        if not (np.isfinite(E) and np.all(np.isfinite(W))):
            return t + 1, -1, False
        if stop_run > 0 and mask[t] == 1.0:
            if E <= stop_thr:
                ok_run += 1
                if ok_run >= stop_run:
                    return t + 1, t + 1, True
            else:
                ok_run = 0
    return n_steps, -1, True


def gradient(net: RecurrentNet, W, x, d, mask=None) -> tuple:
    """Off-line loss ``Σ_t E(t)`` and its gradient by RTRL, ``W`` fixed, from ``y(0) = 0``."""
    W, x, d, mask = _check(net, W, x, d, mask)
    E = np.zeros(x.shape[0])
    G = np.zeros_like(W)
    P = np.zeros((net.n_units,) + net.shape_W)
    _rtrl(W.copy(), x, d, mask, net.n_out, np.zeros(net.n_units), P, 0.0, 0, 0.0, E, G)
    return float(E.sum()), G


def gradient_bptt(net: RecurrentNet, W, x, d, mask=None) -> tuple:
    """The same loss and gradient by back-propagation through time (plain numpy, for checks)."""
    W, x, d, mask = _check(net, W, x, d, mask)
    n, m = net.n_units, net.n_in
    ys, zs = [np.zeros(n)], []
    loss = 0.0
    es = []
    for t in range(x.shape[0]):
        z = np.concatenate([x[t], ys[-1], [1.0]])
        y = 1.0 / (1.0 + np.exp(-(W @ z)))
        e = np.zeros(n)
        e[:net.n_out] = mask[t] * (y[:net.n_out] - d[t])
        loss += 0.5 * float(e @ e)
        zs.append(z)
        ys.append(y)
        es.append(e)
    G = np.zeros_like(W)
    gy = np.zeros(n)  # dL/dy(t) from later steps
    for t in range(x.shape[0] - 1, -1, -1):
        y = ys[t + 1]
        gnet = (gy + es[t]) * y * (1 - y)
        G += np.outer(gnet, zs[t])
        gy = W[:, m:m + n].T @ gnet  # into y(t-1)
    return loss, G


def train_online(net: RecurrentNet, W, x, d, mask=None, learning_rate: float = 1.0,
                 stop_after: int = 0, threshold: float = 0.05, carry=None) -> RTRLResult:
    """On-line RTRL: the weights change after every step; activations and sensitivities are never reset.

    ``carry = (y, P)`` continues from an earlier call.  Stops once ``stop_after``
    scored steps in a row had ``E(t) <= threshold`` (if positive).  Raises
    :class:`~tempnets.training.srn_trainers.DivergenceError` on NaN/inf.
    """
    W, x, d, mask = _check(net, W, x, d, mask)
    W = W.copy()
    if isinstance(learning_rate, bool) or not isinstance(learning_rate, numbers.Real) \
            or not is_finite_real(learning_rate) or learning_rate < 0:
        raise ValueError(f"learning_rate must be a finite number >= 0, got {learning_rate!r}")
    stop_after = count("stop_after", stop_after)
    if stop_after > np.iinfo(np.int64).max:
        raise ValueError(f"stop_after must be at most {np.iinfo(np.int64).max} (an int64), got {stop_after}")
    threshold = real("threshold", threshold, low=0.0)
    if carry is None:
        y, P = np.zeros(net.n_units), np.zeros((net.n_units,) + net.shape_W)
    else:
        if not isinstance(carry, (tuple, list)) or len(carry) != 2:
            raise ValueError("carry must be (y, P) from an earlier train_online of this net")
        y = array("carry y", carry[0], (net.n_units,)).copy()  # updated in place by the kernel
        P = array("carry P", carry[1], (net.n_units,) + net.shape_W).copy()
    E = np.zeros(x.shape[0])
    steps, solved, finite = _rtrl(W, x, d, mask, net.n_out, y, P, float(learning_rate),
                                  stop_after, float(threshold), E, np.zeros_like(W))
    if not finite and learning_rate == 0:
        raise DivergenceError(f"RTRL: the error overflowed at step {steps} with the weights fixed "
                              "(learning rate 0): scored targets or weights too large")
    if not finite:
        raise DivergenceError(f"RTRL training diverged at step {steps} (learning_rate "
                              f"{learning_rate:g}); lower the learning rate")
    return RTRLResult(W, y, P, E[:steps], int(steps), int(solved))
