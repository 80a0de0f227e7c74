r"""A slow net that programs the weights of a fast net: Schmidhuber's dynamic links (1991).

Paper: J. Schmidhuber, *Learning temporary variable binding with dynamic links*,
Proc. IJCNN 1991, vol. 3, 2075-2079 (``papers/001``), section 2.  The slow
network ``S`` (weights ``U``, learned slowly by gradient descent) maps its input
``x_S(t)`` to weight *changes* for the fast network ``F``, whose weights ``W``
change at every step and serve as short-term memory.

Model (both nets as in the paper's experiments: one layer, identity outputs, no
hidden units; no biases, which is ours: the paper mentions none and the solutions
need none)

.. math::

    y(t) = W(t-1)\, x_F(t)                          \quad\text{(F reads with the old weights)}

    s(t) = U\, x_S(t)                              \quad\text{(S's outputs)}

    \square w_{ab}(t) = s_{ab}(t)                   \quad\text{(4), one output per fast weight}

    \square w_{ab}(t) = s_a(t)\, s_b(t)             \quad\text{(5), FROM/TO outer products}

    w_{ab}(t) = \sigma\big(w_{ab}(t-1), \square w_{ab}(t)\big)
              = \big(1 + e^{-T (w_{ab}(t-1) + \square w_{ab}(t) - 0.5)}\big)^{-1}
                                                    \quad\text{(1) with (7)}

    E(t) = \tfrac12 \sum_b m(t) \big(d_b(t) - y_b(t)\big)^2,

with ``w_ab(0) = □w_ab(0)`` computed from the step-0 input ``x_S(0)`` (zero by
default, so ``W(0) = 0``).  ``m(t) ∈ {0, 1}`` marks the steps that have a target.
``squash="none"`` replaces (7) by the purely additive write
``w(t) = w(t-1) + □w(t)`` (today's linear-attention memory, see
:func:`linear_attention`).

The exact gradient (eq. 2-3).  For every fast weight ``w_ab`` and slow weight
``u_ij`` the p-variable ``p^{ab}_{ij}(t) = ∂w_ab(t)/∂u_ij`` obeys

.. math::

    p^{ab}_{ij}(t) = \frac{\partial\sigma}{\partial w_{ab}(t-1)} p^{ab}_{ij}(t-1)
                   + \frac{\partial\sigma}{\partial\square w_{ab}(t)}
                     \frac{\partial\square w_{ab}(t)}{\partial u_{ij}}
                   = T\sigma(1-\sigma)\Big[p^{ab}_{ij}(t-1)
                     + \frac{\partial\square w_{ab}(t)}{\partial u_{ij}}\Big],

    \frac{\partial E(t)}{\partial u_{ij}} = \sum_{ab} \delta_{ab}(t)\, p^{ab}_{ij}(t-1),
    \qquad \delta_{ab}(t) = \frac{\partial E(t)}{\partial w_{ab}(t-1)}
                          = m(t)\,(y_b(t) - d_b(t))\, x_{F,a}(t),

with ``∂□w_ab/∂u_{ab,i} = x_{S,i}`` for (4) and, by eq. (6),
``∂□w_ab/∂u_{a,i} = s_b x_{S,i}``, ``∂□w_ab/∂u_{b,i} = s_a x_{S,i}`` for (5).
Because S is a single linear layer, ``w_ab`` depends only on the rows of ``U``
that feed its own S outputs, so all other p-variables stay zero for ever: we
store only the non-zero ones, ``P[b, a, k, i]`` (``k = 0``: the row of
``s_ab`` for (4) or of the FROM unit ``s_a`` for (5); ``k = 1``: the row of the
TO unit ``s_b``, (5) only).  The paper's dense ``|W_F| |W_S|`` variables, as
written, are in the slow reference ``tests/reference_fast_weights.py``.

Off-line (``U`` fixed over a sequence) the summed p-variable gradient *is* the
gradient of ``Σ_t E(t)``: :func:`gradient` computes it, and
:func:`gradient_unfolded` computes the same by unfolding in time (section 2.2,
back-propagation through the whole stored sequence).  On-line
(:func:`train_online`) ``U`` changes after every step and the p-variables are
never reset; they then carry derivatives taken at older ``U`` (the usual RTRL
approximation, Williams & Zipser 1989).

Symbols to code
===============  ==================  ===========================================
paper            code                shape
===============  ==================  ===========================================
W_S, w_ij        ``U[j, i]``         ``(n_s_out, n_s_in)``, from S input i
W_F, w_ab        ``W[b, a]``         ``(n_f_out, n_f_in)``, from F input a
x(t) (S / F)     ``xs[t-1]``, ``xf[t-1]``  ``(n, n_s_in)``, ``(n, n_f_in)``
d(t), y(t)       ``d[t-1]``, ``y[t-1]``    ``(n, n_f_out)``
s_ab (4)         ``s[b * n_f_in + a]``
s_a, s_b (5)     ``s[a]``, ``s[n_f_in + b]``  (FROM units first, then TO)
p^{ab}_{ij}      ``P[b, a, k, i]``   ``(n_f_out, n_f_in, 2, n_s_in)``
T, eta           ``net.T``, ``learning_rate``
===============  ==================  ===========================================

Time step ``t = 1, 2, ...`` of the paper is row ``t - 1`` of every stream array.
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

__all__ = ["INTERFACES", "SQUASHES", "FastWeightNet", "FastState", "OnlineResult",
           "init_slow_weights", "initial_state", "run", "gradient", "gradient_unfolded",
           "train_online", "solved_at", "linear_attention", "additive_memory"]

INTERFACES = ("per-weight", "from-to")
"""Eq. (4): one S output per fast weight; eq. (5): FROM/TO units, □w_ab = s_a s_b."""

SQUASHES = ("logistic", "none")
"""Eq. (7) (bounded, a latch for large T), or the additive write w(t) = w(t-1) + □w(t)."""


@dataclass(frozen=True)
class FastWeightNet:
    """Sizes and the write rule of one S/F system.

    Attributes
    ----------
    n_s_in : int
        S's input units (flip-flop 3, car parking 6).
    n_f_in, n_f_out : int
        F's input and output units (flip-flop 3 and 1; car parking 1 and 3).
    interface : {"per-weight", "from-to"}
        Eq. (4) or eq. (5).
    T : float
        Steepness of the squash (7), ``T > 0``; the paper's 10.
    squash : {"logistic", "none"}
        Eq. (7), or the purely additive write (``T`` then unused).
    """

    n_s_in: int
    n_f_in: int
    n_f_out: int
    interface: str = "per-weight"
    T: float = 10.0
    squash: str = "logistic"

    def __post_init__(self):
        for name in ("n_s_in", "n_f_in", "n_f_out"):
            count(name, getattr(self, name), 1)
        memory(self.n_s_in * self.n_f_in * self.n_f_out * 4,  # U and the fast weights it writes
               f"FastWeightNet: n_s_in={self.n_s_in}, n_f_in={self.n_f_in}, n_f_out={self.n_f_out}")
        if self.interface not in INTERFACES:
            raise ValueError(f"unknown interface {self.interface!r}; allowed: "
                             f"{', '.join(map(repr, INTERFACES))} (the paper's eq. 4 and eq. 5)")
        if self.squash not in SQUASHES:
            raise ValueError(f"unknown squash {self.squash!r}; allowed: {', '.join(map(repr, SQUASHES))}")
        if isinstance(self.T, bool) or not isinstance(self.T, numbers.Real) \
                or not is_finite_real(self.T) or self.T <= 0:
            raise ValueError(f"T must be a positive finite number (the paper's T = 10), got {self.T!r}")

    @property
    def n_s_out(self) -> int:
        """S's output units: ``n_f_in * n_f_out`` for (4), ``n_f_in + n_f_out`` for (5)."""
        if self.interface == "per-weight":
            return self.n_f_in * self.n_f_out
        return self.n_f_in + self.n_f_out

    @property
    def shape_U(self) -> tuple:
        return (self.n_s_out, self.n_s_in)


class FastState(NamedTuple):
    """What F and the p-variables carry from one step to the next."""

    W: np.ndarray  #: (n_f_out, n_f_in) fast weights w_ab(t)
    P: np.ndarray  #: (n_f_out, n_f_in, 2, n_s_in) non-zero p-variables p^{ab}(t)


class OnlineResult(NamedTuple):
    """What :func:`train_online` returns."""

    U: np.ndarray        #: slow weights after the last step
    state: FastState     #: fast weights and p-variables after the last step
    y: np.ndarray        #: (steps, n_f_out) F's outputs
    E: np.ndarray        #: (steps,) E(t) = ½ m(t) Σ_b (d_b - y_b)²
    err: np.ndarray      #: (steps,) m(t) max_b |d_b - y_b|
    steps: int           #: steps run (fewer than the stream when stopped at the criterion)
    solved_at: int       #: step t at which the criterion was first met, or -1


# --------------------------------------------------------------------------- validation
def _interface_code(net: FastWeightNet) -> int:
    return 0 if net.interface == "per-weight" else 1


def _check_net(net):
    if not isinstance(net, FastWeightNet):
        raise TypeError(f"net must be a tempnets.models.fast_weights.FastWeightNet, got {type(net).__name__}")


def _check_U(net, U):
    if np.shape(U) != net.shape_U:  # says what the shape is made of
        raise ValueError(f"slow weights U must have shape {net.shape_U} (n_s_out, n_s_in) for "
                         f"interface {net.interface!r}, got {np.shape(U)}")
    return array("slow weights U", U, net.shape_U)


def _check_stream(net, xs, xf, d=None, mask=None):
    xs = array("xs (S's inputs)", xs, ("n_steps", net.n_s_in))
    xf = array("xf (F's inputs)", xf, (None, net.n_f_in))
    if xf.shape[0] != xs.shape[0]:
        raise ValueError(f"xs and xf must have the same number of steps, got {xs.shape[0]} and {xf.shape[0]}")
    n = xs.shape[0]
    if d is None:
        d = np.zeros((n, net.n_f_out))
        mask = np.zeros(n)
    d = array("targets d", d, (n, net.n_f_out), finite=False)  # only scored steps must be finite
    mask = np.ones(n) if mask is None else array("mask", mask, finite=False)
    if mask.shape != (n,) or not np.all((mask == 0) | (mask == 1)):
        raise ValueError(f"mask must be {n} values of 0/1 (1: step t has a target), got shape {mask.shape}")
    scored = mask == 1
    if not np.all(np.isfinite(d[scored])):
        raise ValueError("targets d contain NaN or infinite values on scored steps")
    d = np.where(scored[:, None], d, 0.0)  # unscored targets never enter a sum
    return xs, xf, d, mask


def _check_state(net, state):
    if not isinstance(state, FastState):
        raise TypeError(f"state must be a FastState (see initial_state), got {type(state).__name__}")
    want = (net.n_f_out, net.n_f_in, 2, net.n_s_in)
    if np.shape(state.W) != want[:2] or np.shape(state.P) != want:
        raise ValueError(f"state must have W of shape {want[:2]} and P of shape {want}, "
                         f"got {np.shape(state.W)} and {np.shape(state.P)}")
    W = array("state.W", state.W, want[:2]).copy()  # private copies: the kernels update them in place
    P = array("state.P", state.P, want).copy()
    return W, P


def _check_xs0(net, xs0):
    """S's step-0 input: ``n_s_in`` finite numbers (default zeros)."""
    if xs0 is None:
        return np.zeros(net.n_s_in)
    x0 = np.asarray(xs0, dtype=np.float64) if np.ndim(xs0) == 1 else None
    if x0 is None or x0.shape != (net.n_s_in,) or not np.all(np.isfinite(x0)):
        raise ValueError(f"xs0 must be {net.n_s_in} finite numbers, got {xs0!r}")
    return x0


def _rate(learning_rate):
    if isinstance(learning_rate, bool) or not isinstance(learning_rate, numbers.Real) \
            or not is_finite_real(learning_rate) or learning_rate < 0:
        raise ValueError(f"learning_rate must be a finite number >= 0, got {learning_rate!r}")
    return float(learning_rate)


# --------------------------------------------------------------------------- set-up
def init_slow_weights(net: FastWeightNet, init_range: float = 0.1, rng=None) -> np.ndarray:
    """S's weights uniform in ``[-init_range, init_range]`` (the paper: 0.1), shape ``net.shape_U``."""
    _check_net(net)
    init_range = real("init_range", init_range, low=0.0)
    return perturbed(as_generator(rng).uniform(-init_range, init_range, net.shape_U))


def _writes(net, U, x):
    """S's outputs s = U x and the weight changes □W (eq. 4 or 5) for one input ``x``."""
    s = U @ x
    if net.interface == "per-weight":
        return s, s.reshape(net.n_f_out, net.n_f_in)
    return s, np.outer(s[net.n_f_in:], s[:net.n_f_in])


def initial_state(net: FastWeightNet, U, xs0=None) -> FastState:
    """Step 0: ``w_ab(0) = □w_ab(0)`` and ``p(0) = ∂□w(0)/∂U`` from S's step-0 input ``xs0``.

    The paper sets the fast weights to □w_ab(0) at step 0 and initialises the
    p-variables to zero; both agree only when □w(0) does not depend on U, so
    the default step-0 input is zero (``W(0) = 0``, ``P(0) = 0``).  Any other
    ``xs0`` gets its exact p(0).
    """
    _check_net(net)
    U = _check_U(net, U)
    x0 = _check_xs0(net, xs0)
    s, W = _writes(net, U, x0)
    P = np.zeros((net.n_f_out, net.n_f_in, 2, net.n_s_in))
    if net.interface == "per-weight":
        P[:, :, 0, :] = x0
    else:
        P[:, :, 0, :] = s[net.n_f_in:, None, None] * x0  # d(s_a s_b)/du_{a,i} = s_b x_i
        P[:, :, 1, :] = s[None, :net.n_f_in, None] * x0  # d(s_a s_b)/du_{b,i} = s_a x_i
    return FastState(np.array(W, dtype=np.float64), P)


# --------------------------------------------------------------------------- the kernel
@numba.njit(cache=True, nogil=True)
def _steps(U, xs, xf, d, mask, W, P, from_to, squash, T, lr, stop_run, stop_thr,
           y_out, E_out, err_out, G, W_hist):
    """Run steps t = 1..n in place: read, error, p-variable gradient, write, learn.

    Vectorised meaning of one step: ``y = W x_F``; ``g = Σ_ab δ_ab P_ab``;
    ``s = U x_S``; ``W, P = σ(W + □W), σ'(P + ∂□W/∂U)``; ``G += g``;
    ``U -= lr g``.  Returns ``(steps run, step solved or -1, finite)``; stops
    early after ``stop_run`` scored steps in a row with ``E <= stop_thr``
    (``stop_run = 0``: never).
    """
    n = xs.shape[0]
    nb, na = W.shape
    ns = xs.shape[1]
    g = np.zeros_like(U)
    s = np.zeros(U.shape[0])
    ok_run = 0
    solved = -1
    keep_hist = W_hist.shape[0] > 0
    finite = True  # checked value by value: no temporary arrays in the loop
    for t in range(n):
        # read: y(t) = W(t-1) x_F(t), before the write (B2.1)
        E = 0.0
        worst = 0.0
        g[:, :] = 0.0
        for b in range(nb):
            yb = 0.0
            for a in range(na):
                yb += W[b, a] * xf[t, a]
            y_out[t, b] = yb
            e = mask[t] * (yb - d[t, b])
            E += 0.5 * e * e
            if abs(e) > worst:
                worst = abs(e)
            if e != 0.0:
                # dE(t)/du = sum_ab delta_ab(t) p^ab(t-1), delta_ab = e_b x_a (eq. 2)
                for a in range(na):
                    delta = e * xf[t, a]
                    if delta != 0.0:
                        if from_to:
                            for i in range(ns):
                                g[a, i] += delta * P[b, a, 0, i]
                                g[na + b, i] += delta * P[b, a, 1, i]
                        else:
                            k = b * na + a
                            for i in range(ns):
                                g[k, i] += delta * P[b, a, 0, i]
        E_out[t] = E
        err_out[t] = worst
        # write: s(t) = U x_S(t); w(t) = sigma(w(t-1), box w(t)) (eq. 1, 7); p-variables (eq. 3)
        for k in range(U.shape[0]):
            acc = 0.0
            for i in range(ns):
                acc += U[k, i] * xs[t, i]
            s[k] = acc
        for b in range(nb):
            for a in range(na):
                if from_to:
                    box = s[a] * s[na + b]  # eq. (5)
                else:
                    box = s[b * na + a]     # eq. (4)
                z = W[b, a] + box
                if squash:
                    w = logistic(T * (z - 0.5))
                    fp = T * w * (1.0 - w)  # d sigma / d w(t-1) = d sigma / d box w(t)
                else:
                    w = z
                    fp = 1.0
                if from_to:
                    sb, sa = s[na + b], s[a]
                    for i in range(ns):
                        P[b, a, 0, i] = fp * (P[b, a, 0, i] + sb * xs[t, i])  # eq. (6)
                        P[b, a, 1, i] = fp * (P[b, a, 1, i] + sa * xs[t, i])
                else:
                    for i in range(ns):
                        P[b, a, 0, i] = fp * (P[b, a, 0, i] + xs[t, i])
                W[b, a] = w
                finite = finite and np.isfinite(w)
        if keep_hist:
            W_hist[t] = W
        # learn: off-line sum and on-line change of U
        for k in range(U.shape[0]):
            for i in range(ns):
                G[k, i] += g[k, i]
                if lr > 0.0:
                    U[k, i] -= lr * g[k, i]
                    finite = finite and np.isfinite(U[k, i])
        if not (finite and np.isfinite(E)):
            return t + 1, solved, False
        if stop_run > 0 and mask[t] == 1.0:
            if E <= stop_thr:
                ok_run += 1
                if ok_run >= stop_run:
                    return t + 1, t + 1, True
            else:
                ok_run = 0
    return n, solved, True


def _call(net, U, xs, xf, d, mask, state, lr, stop_run=0, stop_thr=0.0, history=False):
    W, P = _check_state(net, state)
    n = xs.shape[0]
    y = np.zeros((n, net.n_f_out))
    E = np.zeros(n)
    err = np.zeros(n)
    G = np.zeros_like(U)
    W_hist = np.zeros((n if history else 0, net.n_f_out, net.n_f_in))
    steps, solved, finite = _steps(U, xs, xf, d, mask, W, P, _interface_code(net) == 1,
                                   net.squash == "logistic", float(net.T), lr, int(stop_run),
                                   float(stop_thr), y, E, err, G, W_hist)
    if not finite and lr == 0.0:  # U fixed: nothing was learned, so nothing "diverged"
        raise DivergenceError(
            f"the fast weights or the error overflowed at step {steps} with the slow weights fixed "
            f"(learning rate 0, squash {net.squash!r}): the writes U x_S are too large"
            + (" and add up without bound" if net.squash == "none" else "")
            + "; use smaller inputs or slow weights")
    if not finite:
        raise DivergenceError(
            f"training diverged at step {steps}: non-finite fast weights, slow weights or error "
            f"(learning_rate {lr:g}, interface {net.interface!r}); lower the learning rate")
    return steps, solved, y, E, err, G, FastState(W, P), W_hist


# --------------------------------------------------------------------------- public API
def run(net: FastWeightNet, U, xs, xf, d=None, mask=None, state=None, xs0=None):
    """Forward pass with ``U`` fixed: F's outputs, errors and fast weights at every step.

    Parameters
    ----------
    net : FastWeightNet
    U : ndarray, shape ``net.shape_U``
        S's weights.
    xs, xf : ndarray, shapes ``(n, n_s_in)``, ``(n, n_f_in)``
        S's and F's inputs at steps t = 1..n.
    d, mask : ndarray, optional
        Targets ``(n, n_f_out)`` and 0/1 scoring mask ``(n,)`` (default: no targets).
    state : FastState, optional
        Carry from an earlier call; default :func:`initial_state` with ``xs0``.

    Returns
    -------
    dict
        ``y`` (n, n_f_out), ``E`` (n,), ``err`` (n,) the largest ``|d_b - y_b|`` of
        each scored step, ``W`` (n + 1, n_f_out, n_f_in) with
        ``W[t]`` = w(t) (``W[0]`` the state passed in), ``state`` after step n.
    """
    _check_net(net)
    U = _check_U(net, U)
    xs, xf, d, mask = _check_stream(net, xs, xf, d, mask)
    state = initial_state(net, U, xs0) if state is None else state
    _, _, y, E, err, _, out, W_hist = _call(net, U.copy(), xs, xf, d, mask, state, 0.0, history=True)
    return {"y": y, "E": E, "err": err, "W": np.concatenate([np.asarray(state.W)[None], W_hist]),
            "state": out}


def gradient(net: FastWeightNet, U, xs, xf, d, mask=None, xs0=None) -> tuple:
    """Off-line loss ``Σ_t E(t)`` and its exact gradient w.r.t. ``U`` by the p-variables (eq. 2-3).

    ``U`` is held fixed over the whole sequence (the paper's off-line mode,
    section 2.1), starting from :func:`initial_state` with ``xs0``.

    Returns
    -------
    loss : float
    grad : ndarray, shape ``net.shape_U``
    """
    _check_net(net)
    U = _check_U(net, U)
    xs, xf, d, mask = _check_stream(net, xs, xf, d, mask)
    _, _, _, E, _, G, _, _ = _call(net, U.copy(), xs, xf, d, mask, initial_state(net, U, xs0), 0.0)
    return float(E.sum()), G


def gradient_unfolded(net: FastWeightNet, U, xs, xf, d, mask=None, xs0=None) -> tuple:
    """The same loss and gradient by unfolding in time (section 2.2): store, then go back.

    Forward, keep every ``w(t)`` and ``s(t)`` (memory grows with the sequence);
    backward from the last step, ``∂L/∂w(t-1) = σ'(t) ∂L/∂w(t) + δ(t)``, and
    each ``∂L/∂□w(t) = σ'(t) ∂L/∂w(t)`` goes through (4)/(5) into S.  Plain
    numpy: it exists to check :func:`gradient` and to compare costs.
    """
    _check_net(net)
    U = _check_U(net, U)
    xs, xf, d, mask = _check_stream(net, xs, xf, d, mask)
    n = xs.shape[0]
    x0 = _check_xs0(net, xs0)
    # forward, storing the stacks
    s0, W0 = _writes(net, U, x0)
    Ws, ss, fps, es = [W0], [], [], []
    loss = 0.0
    for t in range(n):
        e = mask[t] * (Ws[-1] @ xf[t] - d[t])
        loss += 0.5 * float(e @ e)
        es.append(e)
        s, box = _writes(net, U, xs[t])
        z = Ws[-1] + box
        if net.squash == "logistic":
            w = 1.0 / (1.0 + np.exp(-net.T * (z - 0.5)))
            fps.append(net.T * w * (1.0 - w))
        else:
            w = z
            fps.append(np.ones_like(z))
        Ws.append(w)
        ss.append(s)
    # backward
    grad = np.zeros_like(U)

    def into_s(gbox, s):  # dL/ds from dL/d box w, through eq. (4) or (5)
        if net.interface == "per-weight":
            return gbox.reshape(-1)
        na = net.n_f_in
        return np.concatenate([gbox.T @ s[na:], gbox @ s[:na]])

    gW = np.zeros((net.n_f_out, net.n_f_in))  # dL/dw(n): w(n) is read by no step
    for t in range(n - 1, -1, -1):
        gbox = fps[t] * gW                    # through w(t) = sigma(w(t-1) + box w(t))
        grad += np.outer(into_s(gbox, ss[t]), xs[t])
        gW = gbox + np.outer(es[t], xf[t])    # into w(t-1): the carry, and F's read at t
    grad += np.outer(into_s(gW, s0), x0)      # w(0) = box w(0)
    return loss, grad


def train_online(net: FastWeightNet, U, xs, xf, d, mask=None, learning_rate: float = 1.0,
                 state=None, xs0=None, stop_after: int = 0, threshold: float = 0.05) -> OnlineResult:
    """On-line training (section 2.1): ``U`` changes after every step; nothing is ever reset.

    Step t: F reads with w(t-1), the error E(t) and ``∂E(t)/∂U = Σ δ_ab(t)
    p^{ab}(t-1)`` are computed, S writes w(t) and updates the p-variables
    (with the ``U`` the gradient was taken at), then ``U ← U - η ∂E(t)/∂U``.

    Parameters
    ----------
    net, U, xs, xf, d, mask, xs0
        As in :func:`run`.  ``U`` is not modified (a copy is trained).
    learning_rate : float
        η >= 0 (the paper: 1.0 with (4), 0.5 with (5) on the flip-flop; 0.02 for car parking).
    state : FastState, optional
        Carry from an earlier call (training continues seamlessly across calls).
    stop_after : int
        If positive, stop as soon as ``stop_after`` scored steps in a row had
        ``E(t) <= threshold`` (the paper's criterion: 100 and 0.05).
    threshold : float
        The error bound of the stopping criterion.

    Returns
    -------
    OnlineResult

    Raises
    ------
    DivergenceError
        If the error, the fast weights or the slow weights become NaN or infinite.
    """
    _check_net(net)
    U = _check_U(net, U).copy()
    lr = _rate(learning_rate)
    xs, xf, d, mask = _check_stream(net, xs, xf, d, mask)
    stop_after = count("stop_after", stop_after)
    if stop_after > np.iinfo(np.int64).max:
        raise ValueError(f"stop_after must be at most {np.iinfo(np.int64).max} (an int64), got {stop_after}")
    threshold = real("threshold", threshold, low=0.0)
    state = initial_state(net, U, xs0) if state is None else state
    steps, solved, y, E, err, _, out, _ = _call(net, U, xs, xf, d, mask, state, lr,
                                                stop_after, threshold)
    return OnlineResult(U, out, y[:steps], E[:steps], err[:steps], int(steps), int(solved))


def solved_at(errors, mask=None, threshold: float = 0.05, run: int = 100) -> int:
    """Step t (1-based) at which ``run`` scored steps in a row first had ``errors <= threshold``.

    Only steps with ``mask == 1`` count (and unscored steps neither extend nor
    break a run).  Returns -1 if the criterion is never met.
    """
    e = array("errors", errors, (None,), finite=False)  # a NaN error is simply not <= threshold
    if mask is not None and np.ndim(mask) == 1 and np.size(mask) < e.size:
        raise ValueError(f"mask must have at least {e.size} entries (one per error), got {np.size(mask)}")
    m = np.ones(e.shape, bool) if mask is None else array("mask", mask, (None,))[:e.size] == 1
    threshold = real("threshold", threshold)
    run = count("run", run, 1)
    idx = np.flatnonzero(m)
    ok = e[idx] <= threshold
    streak = 0
    for j, good in enumerate(ok):
        streak = streak + 1 if good else 0
        if streak >= run:
            return int(idx[j]) + 1
    return -1


# --------------------------------------------------------------------------- the modern link
def _queries_keys_values(q, k, v) -> tuple:
    """``q, k`` of one shape ``(n, d_k)`` and ``v`` of shape ``(n, d_v)``, checked, as float64."""
    q, k, v = array("q", q), array("k", k), array("v", v)
    if q.ndim != 2 or k.shape != q.shape or v.ndim != 2 or v.shape[0] != q.shape[0]:
        raise ValueError(f"need q, k of one shape (n, d_k) and v of shape (n, d_v); got "
                         f"{q.shape}, {k.shape}, {v.shape}")
    return q, k, v


def linear_attention(q, k, v, *, include_current: bool = True) -> np.ndarray:
    r"""Causal unnormalised linear attention: ``y_t = Σ_{τ ≤ t} v_τ (k_τ · q_t)``.

    Computed as attention: the (n, n) score matrix ``q kᵀ`` is masked to
    ``τ ≤ t`` (``τ < t`` with ``include_current=False``, i.e. read before
    write, as F does) and multiplies the values.  Shapes ``q, k: (n, d_k)``,
    ``v: (n, d_v)``; returns ``(n, d_v)``.
    """
    q, k, v = _queries_keys_values(q, k, v)
    scores = q @ k.T  # scores[t, tau] = k_tau . q_t
    causal = np.tril(np.ones_like(scores), 0 if include_current else -1)
    return (scores * causal) @ v


def additive_memory(q, k, v, *, read_before_write: bool = False) -> np.ndarray:
    r"""The same as a fast-weight memory: ``W_t = W_{t-1} + v_t k_tᵀ``, ``y_t = W_t q_t``.

    One (d_v, d_k) matrix is carried along the sequence instead of all past
    keys and values (Schlag, Irie & Schmidhuber 2021).  With
    ``read_before_write=True`` the read uses ``W_{t-1}`` (the 1991 order).
    """
    q, k, v = _queries_keys_values(q, k, v)
    W = np.zeros((v.shape[1], k.shape[1]))
    y = np.empty((q.shape[0], v.shape[1]))
    for t in range(q.shape[0]):
        if read_before_write:
            y[t] = W @ q[t]
        W = W + np.outer(v[t], k[t])
        if not read_before_write:
            y[t] = W @ q[t]
    return y
