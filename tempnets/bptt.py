r"""Online learning rules for the SRN: the SRN rule, BPTT(h, h') and the PA delta rule.

Papers: Williams & Peng (1990) BPTT(h, h'), as written by O'Connell (1995),
chapter 7, equations (1) (deltas) and (2) (weight changes), Figure 7.2 (the
SRN rule is BPTT(2, 1)), and the PA version at the end of chapter 7 (masks
:math:`a_l(\tau)` and :math:`\gamma`).  Servan-Schreiber et al. (1991)
section 2 for the SRN rule itself.

The unit-level view and the layered view
----------------------------------------
O'Connell counts time per *unit update*: every unit at time :math:`\tau`
reads the previous step's activations :math:`x_j(\tau-1)`, so an input at
:math:`\tau-2` reaches the hidden layer at :math:`\tau-1` and the output at
:math:`\tau`.  In the layered view used by the code (one step ``s`` per input
symbol, hidden ``h(s)`` and output ``y(s)`` computed in the same step) this
means ``H(tau) = h(tau - 1)`` and ``O(tau) = y(tau - 2)``.  An update at
time :math:`t` happens after output step ``s_now = t - 2``, and

* output deltas are :math:`\delta_o(\tau) = f'(net_o) e_o(\tau)` for the
  ``h'`` newest outputs (errors not injected before), zero otherwise
  (outputs have no outgoing weights);
* hidden deltas exist for :math:`t - h < \tau < t`, i.e. for the ``h - 1``
  newest hidden steps ``s_now - h + 2 .. s_now``: BPTT(h, 1) backpropagates
  **h - 2 steps through** ``W_hh``.  BPTT(2, 1) is the ordinary SRN rule
  (output -> hidden -> input/context weights, nothing through the context
  copy); BPTT(3, 1) goes one step further back, BPTT(5, 1) three steps;
  BPTT(1, 1) trains the output weights only.
* ``h'``: an update every ``h'`` steps with the errors of the steps since the
  last update injected (``1 <= h' <= h``).  The schedule restarts with every
  string and pending errors are flushed at the string's end, so
  ``h' = h = len(string) - 1`` is one exact-gradient update per string.
  With ``reset_context=True`` (default) the backward pass never crosses a
  string start; with ``False`` the context, the PA positions and the history
  carry over from string to string (a stream).

PA delta rule (O'Connell, end of ch. 7), in layered indices, newest first:

.. math::

    \delta_k(s) = \gamma(a_k(s+1))\,\delta_k(s+1)
        + f'_k(s)\Big[\sum_o w_{ok}\,\delta_o(s) + \sum_l w_{lk}\,a_l(s+1)\,\delta_l(s+1)\Big],
    \qquad \Delta w_{ij} = \eta \sum_s a_i(s)\,\delta_i(s)\,x_j(s),

with :math:`f'_k(s) = h_k(s)(1 - h_k(s))` at the (possibly held) activation,
the first and third terms absent at ``s = s_now``, and :math:`x_j(s)` the
input, context ``h(s-1)`` or bias feeding unit ``i`` at step ``s``.  With
every unit attentive (:math:`a \equiv 1`, :math:`\gamma \equiv 0`) this is
exactly BPTT(h, h').  The weights into a hidden unit (and their momentum)
change at an update only if the unit was attentive at one of the hidden steps
of the window; so under the SRN rule a PA unit's incoming weights never move
at its inattentive steps.

Momentum (both papers): :math:`v \leftarrow \alpha v + \Delta w`,
:math:`w \leftarrow w + v` at every update.

Symbols to code
===========================  =======================================
paper                        code
===========================  =======================================
:math:`\delta_k(\tau)`       ``Dh[slot, k]`` (hidden), ``Dy[slot, o]`` (output)
:math:`e_k(\tau)`            ``onehot(target) - y``
:math:`w_{lk}`               ``W_hh[l, k]``, ``W_ho[l, k]``, ``W_ih[l, k]``
:math:`x_j(\tau - 1)`        ``Cb[slot, j]`` (context), input index ``Xb[slot]``, ``Hb``
:math:`a_l(\tau)`            ``Ab[slot, l]`` (1.0 / 0.0)
:math:`\gamma(a)`            ``Ab[...] == 0``
:math:`h, h'`                ``h``, ``hp``
:math:`\eta, \alpha`         ``lr``, ``mom``
===========================  =======================================

Ring buffers (``Hb``, ``Cb``, ``Ab``, ``Dh``, ``Dy``, ``Xb``) hold the last
``B = max(h, h') + 1`` steps, indexed by ``step % B``.  Errors are squared
error on logistic outputs, :math:`E = \frac12\sum_o e_o^2` (``xent=True``:
cross-entropy, :math:`\delta_o = e_o`).

Kernels (private; the public training functions are in :mod:`tempnets.training`):

* :func:`_forward_step` / :func:`_backward_update` -- one step forward, and
  the backward pass + weight update of one window, side by side;
  :func:`_train_one` loops them over strings (any ``h``, ``h'``).
* :func:`_train_one_online` -- the same rule for ``h' = 1`` (SRN rule,
  BPTT(h, 1), PA) with the momentum update fused into the loops; equal to
  :func:`_train_one` up to rounding (tested to 1e-12).
* :func:`_train_many`, :func:`_train_many_online` -- ``prange`` over ``R``
  independent networks; network ``r`` only touches row ``r`` of every array,
  so results do not depend on ``R`` or on the number of threads.
"""

from __future__ import annotations

import numba
import numpy as np

FASTMATH = False  # the general kernel: strict IEEE, plain loops


@numba.njit(cache=True, fastmath=FASTMATH)
def _forward_step(W_ih, W_hh, b_h, W_ho, b_o, period, cnt, x, d, has_ctx, prev, slot,
                  Hb, Cb, Ab, Dy, xent, c0):
    """One forward step; stores h(s), context, attention and output deltas; returns sum e^2.

    ``c0`` is the context after a reset (the initial activation of every hidden unit).
    """
    nh = W_hh.shape[0]
    no = W_ho.shape[0]
    # c = h(s-1) (c0 after a reset)
    if has_ctx:
        for j in range(nh):
            Cb[slot, j] = Hb[prev, j]
    else:
        for j in range(nh):
            Cb[slot, j] = c0
    # h = f(b_h + W_ih[:, x] + W_hh @ c) on attentive units, h = c on the others
    for i in range(nh):
        if cnt[i] == 0:
            net = b_h[i] + W_ih[i, x]
            for j in range(nh):
                net += W_hh[i, j] * Cb[slot, j]
            Hb[slot, i] = 1.0 / (1.0 + np.exp(-net))
            Ab[slot, i] = 1.0
        else:
            Hb[slot, i] = Cb[slot, i]
            Ab[slot, i] = 0.0
        cnt[i] += 1
        if cnt[i] == period[i]:
            cnt[i] = 0
    # y = f(b_o + W_ho @ h);  e = onehot(d) - y;  Dy = f'(net) * e  (cross-entropy: e)
    sse = 0.0
    for o in range(no):
        net = b_o[o]
        for j in range(nh):
            net += W_ho[o, j] * Hb[slot, j]
        y = 1.0 / (1.0 + np.exp(-net))
        e = (1.0 if o == d else 0.0) - y
        sse += e * e
        Dy[slot, o] = e if xent else e * y * (1.0 - y)
    return sse


@numba.njit(cache=True, fastmath=FASTMATH)
def _backward_update(W_ih, W_hh, b_h, W_ho, b_o, V_ih, V_hh, V_bh, V_ho, V_bo, lr, mom,
                     s_now, n_hid, n_pend, Hb, Cb, Ab, Dh, Dy, Xb, acc, apply):
    """Backward pass over the window ending at step ``s_now`` and the weight update.

    ``n_hid`` hidden steps get deltas (``min(h - 1, steps available)``); the
    ``n_pend`` newest outputs inject their errors.  ``apply=False`` only
    accumulates into the velocities ``V`` (with ``mom=1, lr=1``: the sum of
    the weight changes at fixed weights, see ``training.bptt_gradient``).
    """
    B = Hb.shape[0]
    nh = W_hh.shape[0]
    no = W_ho.shape[0]
    n_in = W_ih.shape[1]
    # Hidden deltas, newest first (k = 0 is s_now):
    # Dh[s] = h(1-h) * (W_ho.T @ Dy[s] + W_hh.T @ (a(s+1) * Dh[s+1])) + (1 - a(s+1)) * Dh[s+1]
    for k in range(n_hid):
        sl = (s_now - k) % B
        for i in range(nh):
            acc[i] = 0.0
        if k < n_pend:
            for o in range(no):
                dyo = Dy[sl, o]
                for i in range(nh):
                    acc[i] += W_ho[o, i] * dyo
        if k > 0:
            sn = (s_now - k + 1) % B
            for l in range(nh):
                if Ab[sn, l] != 0.0:
                    dl = Dh[sn, l]
                    for i in range(nh):
                        acc[i] += W_hh[l, i] * dl
            for i in range(nh):
                hv = Hb[sl, i]
                dv = hv * (1.0 - hv) * acc[i]
                if Ab[sn, i] == 0.0:  # gamma(a_i(s+1)) = 1: pass the held unit's delta on
                    dv += Dh[sn, i]
                Dh[sl, i] = dv
        else:
            for i in range(nh):
                hv = Hb[sl, i]
                Dh[sl, i] = hv * (1.0 - hv) * acc[i]
    # Output weights: V_ho = mom V_ho + lr sum_s Dy[s] h(s).T ; W_ho += V_ho (same for b_o)
    for o in range(no):
        for j in range(nh):
            V_ho[o, j] *= mom
        gb = 0.0
        for k in range(n_pend):
            sl = (s_now - k) % B
            c = lr * Dy[sl, o]
            gb += c
            for j in range(nh):
                V_ho[o, j] += c * Hb[sl, j]
        V_bo[o] = mom * V_bo[o] + gb
        if apply:
            for j in range(nh):
                W_ho[o, j] += V_ho[o, j]
            b_o[o] += V_bo[o]
    # Hidden weights, rows of units attentive somewhere in the window:
    # V_hh = mom V_hh + lr sum_s (a Dh)[s] c(s).T ; V_ih likewise with onehot(x(s)); W += V
    for i in range(nh):
        touched = False
        for k in range(n_hid):
            if Ab[(s_now - k) % B, i] != 0.0:
                touched = True
        if not touched:
            continue
        for j in range(nh):
            V_hh[i, j] *= mom
        for j in range(n_in):
            V_ih[i, j] *= mom
        gb = 0.0
        for k in range(n_hid):
            sl = (s_now - k) % B
            if Ab[sl, i] != 0.0:
                c = lr * Dh[sl, i]
                gb += c
                V_ih[i, Xb[sl]] += c
                for j in range(nh):
                    V_hh[i, j] += c * Cb[sl, j]
        V_bh[i] = mom * V_bh[i] + gb
        if apply:
            for j in range(nh):
                W_hh[i, j] += V_hh[i, j]
            for j in range(n_in):
                W_ih[i, j] += V_ih[i, j]
            b_h[i] += V_bh[i]


@numba.njit(cache=True)
def _weights_finite(W_ih, W_hh, b_h, W_ho, b_o):
    t = 0.0
    for a in (W_ih, W_hh, W_ho):
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                t += a[i, j] * 0.0
    for a in (b_h, b_o):
        for i in range(a.shape[0]):
            t += a[i] * 0.0
    return t == 0.0  # inf * 0 and nan * 0 are nan


@numba.njit(cache=True)
def _train_one(W_ih, W_hh, b_h, W_ho, b_o, V_ih, V_hh, V_bh, V_ho, V_bo,
               flat, offsets, order, h, hp, lr, mom, reset, xent, period, phase, c0,
               Hb, Cb, Ab, Dh, Dy, Xb, cnt, istate, stats, status, item0, apply):
    """Train one network online on strings ``order[0], order[1], ...`` (in place).

    ``istate = [step, n_valid]`` and the ring buffers carry over between calls.
    ``stats += [sum e^2, n_steps]``; on divergence ``status = [code, string, step]``
    (code 1: non-finite output, 2: non-finite weights) and training stops.
    """
    B = Hb.shape[0]
    nh = W_hh.shape[0]
    acc = np.zeros(nh)
    s = istate[0]
    n_valid = istate[1]
    sse = 0.0
    nsteps = 0
    # for each string: for each step: forward; every hp steps (and at the end): backward + update
    for it in range(order.shape[0]):
        si = order[it]
        a = offsets[si]
        b = offsets[si + 1]
        if reset:
            n_valid = 0
            for k in range(nh):
                cnt[k] = (period[k] - phase[k]) % period[k]
        n_pend = 0
        for q in range(a, b - 1):
            slot = s % B
            Xb[slot] = flat[q]
            e2 = _forward_step(W_ih, W_hh, b_h, W_ho, b_o, period, cnt, flat[q], flat[q + 1],
                               n_valid > 0, (s - 1) % B, slot, Hb, Cb, Ab, Dy, xent, c0)
            if not np.isfinite(e2):
                status[0] = 1
                status[1] = item0 + it
                status[2] = q - a
                stats[0] += sse
                stats[1] += nsteps
                return
            sse += e2
            nsteps += 1
            if n_valid < B:
                n_valid += 1
            n_pend += 1
            if n_pend == hp or q == b - 2:
                n_hid = min(h - 1, n_valid)
                _backward_update(W_ih, W_hh, b_h, W_ho, b_o, V_ih, V_hh, V_bh, V_ho, V_bo,
                                 lr, mom, s, n_hid, n_pend, Hb, Cb, Ab, Dh, Dy, Xb, acc, apply)
                n_pend = 0
            s += 1
        if not _weights_finite(W_ih, W_hh, b_h, W_ho, b_o):
            status[0] = 2
            status[1] = item0 + it
            status[2] = b - a - 2
            break
    istate[0] = s
    istate[1] = n_valid
    stats[0] += sse
    stats[1] += nsteps


@numba.njit(cache=True, parallel=True)
def _train_many(W_ih, W_hh, b_h, W_ho, b_o, V_ih, V_hh, V_bh, V_ho, V_bo,
                flat, offsets, order, h, hp, lr, mom, reset, xent, period, phase, c0,
                Hb, Cb, Ab, Dh, Dy, Xb, cnt, istate, stats, status, item0, apply):
    # for r in networks (independently, in parallel): _train_one(network r, its strings)
    # flat/offsets have 1 row (shared strings) or R rows (one stream per network).
    for r in numba.prange(W_ih.shape[0]):
        rs = np.int64(r) if flat.shape[0] > 1 else np.int64(0)
        if status[r, 0] != 0:
            continue
        _train_one(W_ih[r], W_hh[r], b_h[r], W_ho[r], b_o[r],
                   V_ih[r], V_hh[r], V_bh[r], V_ho[r], V_bo[r],
                   flat[rs], offsets[rs], order[r], h, hp, lr, mom, reset, xent,
                   period, phase, c0, Hb[r], Cb[r], Ab[r], Dh[r], Dy[r], Xb[r], cnt[r],
                   istate[r], stats[r], status[r], item0, apply)


# ----------------------------------------------------------------------------- h' = 1

FAST = {"reassoc", "contract", "nsz", "arcp"}  # no nnan/ninf: NaN must stay visible


@numba.njit(cache=True, fastmath=FAST)
def _train_one_online(W_ih, W_hh, b_h, W_ho, b_o, V_ih, V_hh, V_bh, V_ho, V_bo,
                      flat, offsets, order, h, lr, mom, reset, xent, period, phase, c0,
                      Hb, Cb, Ab, Dh, Dy, Xb, cnt, istate, stats, status, item0):
    """The fast path of :func:`_train_one` for h' = 1 (SRN rule, BPTT(h, 1), PA).

    Same state, same arithmetic up to rounding (the sums may be reordered and
    fused); the loops over hidden units are fused with the momentum update.
    """
    B = Hb.shape[0]
    nh = W_hh.shape[0]
    no = W_ho.shape[0]
    n_in = W_ih.shape[1]
    acc = np.empty(nh)
    s = istate[0]
    n_valid = istate[1]
    sse = 0.0
    nsteps = 0
    for it in range(order.shape[0]):
        si = order[it]
        a = offsets[si]
        b = offsets[si + 1]
        if reset:
            n_valid = 0
            for k in range(nh):
                cnt[k] = (period[k] - phase[k]) % period[k]
        for q in range(a, b - 1):
            slot = s % B
            x = flat[q]
            d = flat[q + 1]
            Xb[slot] = x
            # ---- forward: c = h(s-1) (c0 after a reset); h = f(b_h + W_ih[:, x] + W_hh @ c)
            # where attentive
            prev = (s - 1) % B
            for j in range(nh):
                Cb[slot, j] = Hb[prev, j] if n_valid > 0 else c0
            for i in range(nh):
                if cnt[i] == 0:
                    net = b_h[i] + W_ih[i, x]
                    for j in range(nh):
                        net += W_hh[i, j] * Cb[slot, j]
                    Hb[slot, i] = 1.0 / (1.0 + np.exp(-net))
                    Ab[slot, i] = 1.0
                else:
                    Hb[slot, i] = Cb[slot, i]
                    Ab[slot, i] = 0.0
                cnt[i] += 1
                if cnt[i] == period[i]:
                    cnt[i] = 0
            # y = f(b_o + W_ho @ h); Y = dE/dnet_o with e = onehot(d) - y
            e2 = 0.0
            for o in range(no):
                net = b_o[o]
                for j in range(nh):
                    net += W_ho[o, j] * Hb[slot, j]
                y = 1.0 / (1.0 + np.exp(-net))
                e = (1.0 if o == d else 0.0) - y
                e2 += e * e
                Dy[slot, o] = e if xent else e * y * (1.0 - y)
            if not np.isfinite(e2):
                status[0] = 1
                status[1] = item0 + it
                status[2] = q - a
                stats[0] += sse
                stats[1] += nsteps
                return
            sse += e2
            nsteps += 1
            if n_valid < B:
                n_valid += 1
            n_hid = min(h - 1, n_valid)
            # ---- backward: D(s) = h(1-h) W_ho.T Y, then D(s-k) as in _backward_update
            if n_hid > 0:
                for i in range(nh):
                    acc[i] = 0.0
                for o in range(no):
                    yo = Dy[slot, o]
                    for i in range(nh):
                        acc[i] += W_ho[o, i] * yo
                for i in range(nh):
                    Dh[slot, i] = Hb[slot, i] * (1.0 - Hb[slot, i]) * acc[i]
                for k in range(1, n_hid):
                    sl = (s - k) % B
                    sn = (s - k + 1) % B
                    for i in range(nh):
                        acc[i] = 0.0
                    for l in range(nh):
                        if Ab[sn, l] != 0.0:
                            dl = Dh[sn, l]
                            for i in range(nh):
                                acc[i] += W_hh[l, i] * dl
                    for i in range(nh):
                        hv = Hb[sl, i]
                        dv = hv * (1.0 - hv) * acc[i]
                        if Ab[sn, i] == 0.0:
                            dv += Dh[sn, i]
                        Dh[sl, i] = dv
            # ---- output weights: V = mom V + lr Y h.T ; W += V
            for o in range(no):
                c = lr * Dy[slot, o]
                for j in range(nh):
                    v = mom * V_ho[o, j] + c * Hb[slot, j]
                    V_ho[o, j] = v
                    W_ho[o, j] += v
                V_bo[o] = mom * V_bo[o] + c
                b_o[o] += V_bo[o]
            # ---- hidden weights of units attentive in the window:
            # V = mom V + lr sum_k (a D)(s-k) [onehot(x), c, 1](s-k).T ; W += V
            for i in range(nh):
                if n_hid == 1:
                    if Ab[slot, i] == 0.0:
                        continue
                    c = lr * Dh[slot, i]
                    for j in range(nh):
                        v = mom * V_hh[i, j] + c * Cb[slot, j]
                        V_hh[i, j] = v
                        W_hh[i, j] += v
                    for j in range(n_in):
                        V_ih[i, j] *= mom
                    V_ih[i, x] += c
                    for j in range(n_in):
                        W_ih[i, j] += V_ih[i, j]
                    V_bh[i] = mom * V_bh[i] + c
                    b_h[i] += V_bh[i]
                    continue
                touched = False
                for k in range(n_hid):
                    if Ab[(s - k) % B, i] != 0.0:
                        touched = True
                if not touched:
                    continue
                for j in range(nh):
                    V_hh[i, j] *= mom
                for j in range(n_in):
                    V_ih[i, j] *= mom
                gb = 0.0
                for k in range(n_hid):
                    sl = (s - k) % B
                    if Ab[sl, i] != 0.0:
                        c = lr * Dh[sl, i]
                        gb += c
                        V_ih[i, Xb[sl]] += c
                        for j in range(nh):
                            V_hh[i, j] += c * Cb[sl, j]
                for j in range(nh):
                    W_hh[i, j] += V_hh[i, j]
                for j in range(n_in):
                    W_ih[i, j] += V_ih[i, j]
                V_bh[i] = mom * V_bh[i] + gb
                b_h[i] += V_bh[i]
            s += 1
        if not _weights_finite(W_ih, W_hh, b_h, W_ho, b_o):
            status[0] = 2
            status[1] = item0 + it
            status[2] = b - a - 2
            break
    istate[0] = s
    istate[1] = n_valid
    stats[0] += sse
    stats[1] += nsteps


@numba.njit(cache=True, parallel=True)
def _train_many_online(W_ih, W_hh, b_h, W_ho, b_o, V_ih, V_hh, V_bh, V_ho, V_bo,
                       flat, offsets, order, h, lr, mom, reset, xent, period, phase, c0,
                       Hb, Cb, Ab, Dh, Dy, Xb, cnt, istate, stats, status, item0):
    # for r in networks (independently, in parallel): _train_one_online(network r)
    for r in numba.prange(W_ih.shape[0]):
        rs = np.int64(r) if flat.shape[0] > 1 else np.int64(0)
        if status[r, 0] != 0:
            continue
        _train_one_online(W_ih[r], W_hh[r], b_h[r], W_ho[r], b_o[r],
                          V_ih[r], V_hh[r], V_bh[r], V_ho[r], V_bo[r],
                          flat[rs], offsets[rs], order[r], h, lr, mom, reset, xent,
                          period, phase, c0, Hb[r], Cb[r], Ab[r], Dh[r], Dy[r], Xb[r], cnt[r],
                          istate[r], stats[r], status[r], item0)
