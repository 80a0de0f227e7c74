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
  ``h = len(string)``, ``h' = len(string) - 1`` is one exact-gradient update per string
  (a string of ``L`` symbols has ``L - 1`` output steps, and its first output's
  error must reach back ``L - 1`` hidden steps: ``h - 1 >= L - 1``; with
  ``h = len(string) - 1`` the first hidden step is left out).
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
:math:`\delta_k(\tau)`       ``Dh[slot, k]`` (hidden), ``Dy[slot, o]`` (output);
                             fused kernel: ``D[k, i]``, ``dy[o]``
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

Kernels (private; the public training functions are in :mod:`tempnets.training.srn_trainers`):

* :func:`_forward_step` / :func:`_backward_update` -- one step forward, and
  the backward pass + weight update of one window, side by side;
  :func:`_train_one` loops them over strings (any ``h``, ``h'``).
* :func:`_train_one_online` -- the same rule for ``h' = 1`` (SRN rule,
  BPTT(h, 1), PA), written for speed; equal to :func:`_train_one` up to
  rounding (tested to 1e-12).  It trains a copy of the network in the
  unit-level layout of :func:`_to_rows` (one padded row of weights into each
  unit, ``Wh[i] = [W_hh[i], b_h[i], 0.., W_ih[i], 0..]`` for the sources
  ``z = [c, 1, 0.., onehot(x), 0..]``, ``Wy[o] = [W_ho[o], b_o[o], 0..]``), so
  that every inner loop runs along a contiguous row and vectorises, with
  :func:`_logistic` (no libm call) for the logistic and the momentum update
  fused into one pass per row.  Most of its time goes to storing every weight
  and its velocity at every step.  Its backward steps are functions of their
  own: :func:`_online_output_update`, :func:`_online_window_deltas` (eq. 1) and
  :func:`_online_hidden_update` (eq. 2), inlined into it by numba
  (``inline="always"``: called as functions, the kernel ran about twice as slow;
  the same bits either way).  Never compiled alone, they keep no cache of their
  own.  Its forward pass stays in the loop, where a helper cost some 10% in our
  measurements.
* :func:`_train_many`, :func:`_train_many_online` -- ``prange`` over ``R``
  independent networks; network ``r`` only touches row ``r`` of every array,
  so results do not depend on ``R`` or on the number of threads.
"""

from __future__ import annotations

import numba
import numpy as np

from .._numerics.portable import _dot4, finite as _finite
from .srn import _from_rows, _logistic, _row_widths, _to_rows

__all__ = []  # every name is private: the public entry points are in tempnets.training.srn_trainers


@numba.njit(cache=True)
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
            Hb[slot, i] = _logistic(net)
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
        y = _logistic(net)
        e = (1.0 if o == d else 0.0) - y
        sse += e * e
        Dy[slot, o] = e if xent else e * y * (1.0 - y)
    return sse


@numba.njit(cache=True)
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
    return (_finite(W_ih) and _finite(W_hh) and _finite(b_h) and _finite(W_ho)
            and _finite(b_o))


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

@numba.njit(error_model="numpy", inline="always")
def _online_output_update(Wy, Vy, H, dy, acc, slot, lr, mom, no, P):
    """The output weights' momentum update (O'Connell's eq. 2 at the outputs), and in the same
    pass ``acc`` = ``Wy.T @ dy`` with the weights before it: the error reaching the hidden units."""
    # Vy = mom Vy + lr dy [h, 1].T ; Wy += Vy
    for j in range(P):
        acc[j] = 0.0
    for o in range(no):
        dyo = dy[o]
        c = lr * dyo
        for j in range(P):
            w = Wy[o, j]
            acc[j] += w * dyo
            v = mom * Vy[o, j] + c * H[slot, j]
            Vy[o, j] = v
            Wy[o, j] = w + v


@numba.njit(error_model="numpy", inline="always")
def _online_window_deltas(Wh, H, A, D, G, win, rows, touched, acc, slot, n_hid, lr, nh, B, P):
    """The hidden deltas of the window's ``n_hid`` steps, newest first (O'Connell's eq. 1, the
    PA delta rule: a held unit passes its delta on, :math:`\\gamma = 1`), the weight-change
    factors ``G[k] = lr a(s-k) D[k]`` and ``touched``: the units attentive somewhere in the
    window."""
    w = slot
    for k in range(n_hid):
        win[k] = w
        w = w - 1 if w > 0 else B - 1
    # D[0] = h(1-h) acc
    for j in range(P):
        D[0, j] = H[slot, j] * (1.0 - H[slot, j]) * acc[j]
    # D[k] = h(1-h) (W_hh.T @ (a D[k-1])) + (1 - a) D[k-1], h of s-k, a of s-k+1
    # (W_hh.T @ v = sum_i v_i Wh[i, :P], rows of attentive units)
    for k in range(1, n_hid):
        sn = win[k - 1]
        sk = win[k]
        # (the attentive rows in order, two per pass over acc: per element
        # the same sum, half the loads and stores of acc)
        na = 0
        for i in range(nh):
            if A[sn, i] != 0.0:
                rows[na] = i
                na += 1
        for j in range(P):
            acc[j] = 0.0
        for t in range(0, na - 1, 2):
            i1 = rows[t]
            i2 = rows[t + 1]
            d1 = D[k - 1, i1]
            d2 = D[k - 1, i2]
            for j in range(P):
                acc[j] = (acc[j] + Wh[i1, j] * d1) + Wh[i2, j] * d2
        if na % 2 == 1:
            i1 = rows[na - 1]
            d1 = D[k - 1, i1]
            for j in range(P):
                acc[j] += Wh[i1, j] * d1
        for j in range(P):  # (gamma = 1: a held unit passes its delta on)
            dn = D[k - 1, j]
            held = dn if A[sn, j] == 0.0 else 0.0
            D[k, j] = H[sk, j] * (1.0 - H[sk, j]) * acc[j] + held
    # G[k] = lr a(s-k) D[k]; touched = max_k a(s-k)
    for j in range(P):
        touched[j] = 0.0
    for k in range(n_hid):
        sk = win[k]
        for i in range(nh):
            g = lr * D[k, i]
            ai = A[sk, i]
            G[k, i] = g if ai != 0.0 else 0.0
            touched[i] = ai if ai > touched[i] else touched[i]


@numba.njit(error_model="numpy", inline="always")
def _online_hidden_update(Wh, Vh, Z, G, win, terms, touched, n_hid, mom, nh, S):
    """The hidden weights' momentum update over the window (O'Connell's eq. 2:
    :math:`\\Delta w_{ij} = \\eta \\sum_s a_i(s) \\delta_i(s) x_j(s)`), row by row."""
    # rows of units attentive somewhere in the window:
    # Vh[i] = mom Vh[i] + sum_k G[k, i] z(s-k) ; Wh[i] += Vh[i], newest step
    # first, the steps with G[k, i] == 0 left out but the oldest, momentum
    # (m) with the first.  Two steps per pass over the row, Wh with the last
    # pass: per element the same operations in the same order (1.0 v == v),
    # half the loads and stores of Vh.
    for i in range(nh):
        if touched[i] == 0.0:
            continue
        nt = 0
        for k in range(n_hid - 1):
            if G[k, i] != 0.0:
                terms[nt] = k
                nt += 1
        terms[nt] = n_hid - 1
        nt += 1
        m = mom
        t = 0
        while nt - t > 2:
            g1 = G[terms[t], i]
            s1 = win[terms[t]]
            g2 = G[terms[t + 1], i]
            s2 = win[terms[t + 1]]
            for j in range(S):
                Vh[i, j] = (m * Vh[i, j] + g1 * Z[s1, j]) + g2 * Z[s2, j]
            m = 1.0
            t += 2
        g2 = G[n_hid - 1, i]
        s2 = win[n_hid - 1]
        if nt - t == 2:
            g1 = G[terms[t], i]
            s1 = win[terms[t]]
            for j in range(S):
                v = (m * Vh[i, j] + g1 * Z[s1, j]) + g2 * Z[s2, j]
                Vh[i, j] = v
                Wh[i, j] += v
        else:
            for j in range(S):
                v = m * Vh[i, j] + g2 * Z[s2, j]
                Vh[i, j] = v
                Wh[i, j] += v


@numba.njit(cache=True, error_model="numpy")
def _train_one_online(W_ih, W_hh, b_h, W_ho, b_o, V_ih, V_hh, V_bh, V_ho, V_bo,
                      flat, offsets, order, h, lr, mom, reset, xent, period, phase, c0,
                      Hb, Cb, Ab, Dh, Dy, Xb, cnt, istate, stats, status, item0):
    """The fast path of :func:`_train_one` for h' = 1 (SRN rule, BPTT(h, 1), PA).

    Same state, same rule, same arithmetic up to rounding (the forward sums in
    the fixed order of :func:`tempnets._numerics.portable.dot4`).  It trains a copy of the
    network in the layout of :func:`_to_rows`, written back at the end: the
    weights into a unit are one padded, contiguous row, so every inner loop
    runs along a row and vectorises, and a unit that is not attentive skips
    its row.  The bias is a hidden "unit" that is never attentive and holds 1.
    Rings (slot ``s % B``): ``H`` = [h, 1, 0..], ``A`` = a (0 on the bias and
    the padding), ``Z`` = z; ``D[k]`` and ``G[k]`` are the deltas and the
    weight-change factors of step ``s - k`` of the window.  ``Dh``/``Dy`` are
    not used (deltas live for one step); ``Hb``, ``Cb``, ``Ab``, ``Xb`` and
    ``cnt`` are read at entry and written back at exit.
    """
    B = Hb.shape[0]
    nh = W_hh.shape[0]
    no = W_ho.shape[0]
    n_in = W_ih.shape[1]
    P, O, S = _row_widths(nh, no, n_in)
    Wh, Wy = _to_rows(W_ih, W_hh, b_h, W_ho, b_o, P, S)
    Vh, Vy = _to_rows(V_ih, V_hh, V_bh, V_ho, V_bo, P, S)
    pa = False  # some unit is not attentive at every step
    for i in range(nh):
        pa = pa or period[i] != 1
    # rings over the last B steps (slot s % B): h(s) = [h, 1, 0..], a(s) (0 on the bias and
    # the padding: they hold their context), z(s) = [c, 1, 0.., onehot(x), 0..]
    H = np.zeros((B, P))
    A = np.zeros((B, P))
    Z = np.zeros((B, S))
    for sl in range(B):
        H[sl, :nh] = Hb[sl]
        H[sl, nh] = 1.0
        if pa:
            A[sl, :nh] = Ab[sl]
        else:
            A[sl, :nh] = 1.0
        Z[sl, :nh] = Cb[sl]
        Z[sl, nh] = 1.0
        Z[sl, P + Xb[sl]] = 1.0
    z_reset = np.zeros(P)  # the context after a reset
    z_reset[:nh] = c0
    z_reset[nh] = 1.0
    live = np.zeros(O)  # 1 on the real outputs, 0 on the padding
    live[:no] = 1.0
    net = np.zeros(P)
    ynet = np.zeros(O)
    yv = np.zeros(O)
    dy = np.zeros(O)
    acc = np.zeros(P)
    D = np.zeros((B, P))  # D[k]: hidden deltas of step s - k
    G = np.zeros((B, nh))  # G[k] = lr a(s-k) D[k]
    win = np.zeros(B, np.int64)  # win[k] = (s - k) % B, the window's ring slots
    terms = np.zeros(B, np.int64)  # the window steps k that change a row of Vh
    rows = np.zeros(nh, np.int64)  # the attentive hidden units of a step
    touched = np.zeros(P)  # 1 on units attentive somewhere in the window
    # local copies of the per-step state (no stores near other networks' rows: false sharing)
    X = Xb.copy()
    count = cnt.copy()
    s = istate[0]
    slot = s % B
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
                count[k] = (period[k] - phase[k]) % period[k]
        diverged = False
        for q in range(a, b - 1):
            x = flat[q]
            d = flat[q + 1]
            X[slot] = x
            # ---- forward.  a = (cnt == 0) on the hidden units, cnt = (cnt + 1) % period
            if pa:
                for i in range(nh):
                    A[slot, i] = 1.0 if count[i] == 0 else 0.0
                    count[i] = count[i] + 1 if count[i] + 1 < period[i] else 0
            # z = [c, 1, 0.., onehot(x), 0..], c = h(s-1) (z_reset after a reset)
            if n_valid > 0:
                prev = slot - 1 if slot > 0 else B - 1
                for j in range(P):
                    Z[slot, j] = H[prev, j]
            else:
                for j in range(P):
                    Z[slot, j] = z_reset[j]
            for j in range(P, S):
                Z[slot, j] = 0.0
            Z[slot, P + x] = 1.0
            # net = Wh @ z = W_hh @ c + b_h + W_ih[:, x] on the attentive units
            for i in range(nh):
                if A[slot, i] != 0.0:
                    net[i] = Wh[i, P + x] + _dot4(Wh, i, Z, slot, P)
            # h = f(net) where attentive, else the held context (bias 1, padding 0)
            # (selects between values loaded unconditionally: masked loads are slow)
            for i in range(P):
                f = _logistic(net[i])
                c = Z[slot, i]
                H[slot, i] = f if A[slot, i] != 0.0 else c
            # y = f(Wy @ [h, 1]); e = onehot(d) - y on the real outputs; dy = dE/dnet
            for o in range(no):
                ynet[o] = _dot4(Wy, o, H, slot, P)
            for o in range(O):  # (a loop of its own: it vectorises, the error sum cannot)
                yv[o] = _logistic(ynet[o])
            e2 = 0.0
            for o in range(O):
                y = yv[o]
                e = ((1.0 if o == d else 0.0) - y) * live[o]
                e2 += e * e
                dy[o] = e if xent else e * y * (1.0 - y)
            if not np.isfinite(e2):
                status[0] = 1
                status[1] = item0 + it
                status[2] = q - a
                diverged = True
                break
            sse += e2
            nsteps += 1
            if n_valid < B:
                n_valid += 1
            n_hid = min(h - 1, n_valid)
            # ---- backward: the output weights, and the error reaching the hidden layer
            _online_output_update(Wy, Vy, H, dy, acc, slot, lr, mom, no, P)
            if n_hid > 0:
                _online_window_deltas(Wh, H, A, D, G, win, rows, touched, acc, slot, n_hid, lr, nh,
                                      B, P)
                _online_hidden_update(Wh, Vh, Z, G, win, terms, touched, n_hid, mom, nh, S)
            s += 1
            slot = slot + 1 if slot + 1 < B else 0
        if diverged:
            break
        if not (_finite(Wh) and _finite(Wy)):
            status[0] = 2
            status[1] = item0 + it
            status[2] = b - a - 2
            break
    _from_rows(Wh, Wy, W_ih, W_hh, b_h, W_ho, b_o)
    _from_rows(Vh, Vy, V_ih, V_hh, V_bh, V_ho, V_bo)
    for sl in range(B):
        Hb[sl] = H[sl, :nh]
        Ab[sl] = A[sl, :nh]
        Cb[sl] = Z[sl, :nh]
    Xb[:] = X
    cnt[:] = count
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
