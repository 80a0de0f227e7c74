r"""Elman's simple recurrent network (SRN), with optional periodically attentive units.

Papers: Elman (1990); Servan-Schreiber, Cleeremans & McClelland (1991), section 2
(the SRN on the Reber grammar); O'Connell (1995), chapter 3 (periodically
attentive units) and chapter 4 (the 7-15-7 network, weights in [-1, 1]).

Model (layered view, one step per input symbol, ``s = 0, 1, ...``)

.. math::

    h_i(s) = f\Big(\theta_i + w_{i,x(s)} + \sum_j w_{ij} h_j(s-1)\Big)
             \quad\text{if } a_i(s) = 1, \qquad h_i(s) = h_i(s-1) \text{ otherwise},

    y_o(s) = f\Big(\theta_o + \sum_j w_{oj} h_j(s)\Big), \qquad f(u) = 1 / (1 + e^{-u}),

with a one-hot input ``x(s)`` (so the input layer only selects one column of
``W_ih``), context ``h(-1) = c_0`` at the start of every string (unless
``reset_context=False``; ``c_0 = 0`` by default, 0.5 in O'Connell's networks) and the output ``y(s)`` trained towards the one-hot
code of the next symbol.

Periodically attentive (PA) units (O'Connell ch. 3): hidden unit ``k`` is
attentive at position ``t`` (``t = 0`` at the first input symbol B, reset
with the context) iff ``(t - phase[k]) % period[k] == 0``.  When inattentive
its activation is held.  Normal units have period 1.  The best network of the
thesis (Figure 4.1): 8 normal units + 7 PA units of period 7 with phases 0..6
(:func:`pa_attention`).

Symbols to code
===============  ===================  =========================================
paper            code                 shape
===============  ===================  =========================================
w_ij (input)     ``W_ih[i, j]``       ``(n_hidden, n_in)``, from input j
w_ij (context)   ``W_hh[i, j]``       ``(n_hidden, n_hidden)``, from h_j(s-1)
theta_i (hidden) ``b_h[i]``           ``(n_hidden,)``
w_ij (output)    ``W_ho[i, j]``       ``(n_out, n_hidden)``
theta_i (output) ``b_o[i]``           ``(n_out,)``
a_k(t)           ``attentive(...)``   from ``period``, ``phase``
===============  ===================  =========================================

The forward pass (:func:`srn_forward`) is compiled: the weights into each unit
form one padded row (:func:`_to_rows`) and the logistic is computed in plain
arithmetic (:func:`tempnets._numerics.portable.logistic`, within a few ulp of
``1 / (1 + exp(-u))``) and sums in a fixed order, as in the fused training
kernel, so that its loops vectorise and give the same bits on every CPU.

Stacks of ``R`` networks put ``R`` first in every array.  The learning rules
(the backward passes) are in :mod:`tempnets.models.bptt`, next to the training step;
training loops are in :mod:`tempnets.training.srn_trainers`.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numba
import numpy as np

from .._numerics.checks import count, is_finite_real, memory
from .._numerics.portable import _dot4, logistic as _logistic
from .._numerics.random import as_generator, perturbed, spawn

__all__ = [
    "SRNParams",
    "init_params",
    "pa_attention",
    "check_attention",
    "srn_forward",
    "as_flat_strings",
    "check_params",
    "check_memory",
]


class SRNParams(NamedTuple):
    """Weights of one SRN, or of ``R`` SRNs stacked along a leading axis.

    ``W[i, j]`` is the weight from unit ``j`` to unit ``i``.
    """

    W_ih: np.ndarray  #: (n_hidden, n_in) or (R, n_hidden, n_in)
    W_hh: np.ndarray  #: (n_hidden, n_hidden) or (R, ...)
    b_h: np.ndarray   #: (n_hidden,) or (R, n_hidden)
    W_ho: np.ndarray  #: (n_out, n_hidden) or (R, ...)
    b_o: np.ndarray   #: (n_out,) or (R, n_out)

    @property
    def stacked(self) -> bool:
        """True if the arrays carry a leading network axis ``R``."""
        return self.W_ih.ndim == 3

    @property
    def sizes(self) -> tuple[int, int, int]:
        """``(n_in, n_hidden, n_out)``."""
        return self.W_ih.shape[-1], self.W_ih.shape[-2], self.W_ho.shape[-2]

    def network(self, k: int) -> "SRNParams":
        """The parameters of network ``k`` of a stack (copies)."""
        if not self.stacked:
            raise ValueError("these parameters hold a single network, not a stack")
        return SRNParams(*(np.array(a[k]) for a in self))

    def stack(self) -> "SRNParams":
        """A stacked copy (``R = 1`` if these are a single network's)."""
        return SRNParams(*(np.array(a if self.stacked else a[None]) for a in self))

    def copy(self) -> "SRNParams":
        return SRNParams(*(np.array(a) for a in self))


def _draw_params(gen: np.random.Generator, n_in, n_hidden, n_out, r) -> SRNParams:
    # Fixed draw order (W_ih, W_hh, b_h, W_ho, b_o) so that a seed means one network.
    u = lambda *shape: perturbed(gen.uniform(-r, r, size=shape))  # noqa: E731
    return SRNParams(u(n_hidden, n_in), u(n_hidden, n_hidden), u(n_hidden),
                     u(n_out, n_hidden), u(n_out))


def check_memory(n_floats, what: str) -> None:
    """Refuse, before allocating, ``n_floats`` float64 values that cannot fit in memory.

    Raises ``ValueError`` naming ``what`` and the size when they would take
    more than the machine's physical memory (numpy would try, and a Python
    loop per network would run for hours first).
    """
    memory(n_floats, what)


def check_params(params: "SRNParams", name: str = "params") -> "SRNParams":
    """Check one network's or a stack's weights; return them as a C-contiguous float64 stack.

    The compiled kernels read every array with the sizes of ``W_ih`` and
    ``W_ho``: a short ``b_h`` would be read out of bounds.  So every shape is
    checked against ``(n_hidden, n_in)`` of ``W_ih`` and ``n_out`` of ``W_ho``.

    Raises
    ------
    TypeError
        If ``params`` is not an :class:`SRNParams` or an array is not real numbers.
    ValueError
        Naming the array whose shape does not fit, and the shape expected.
    """
    if not isinstance(params, SRNParams):
        raise TypeError(f"{name} must be an SRNParams, got {type(params).__name__}")
    arrays = []
    for field, a in zip(SRNParams._fields, params):
        a = np.asarray(a)
        if a.dtype == object or not (np.issubdtype(a.dtype, np.floating)
                                     or np.issubdtype(a.dtype, np.integer)):
            raise TypeError(f"{name}.{field} must be an array of real numbers, got dtype {a.dtype}")
        arrays.append(a)
    W_ih, W_ho = arrays[0], arrays[3]
    if W_ih.ndim not in (2, 3):
        raise ValueError(f"{name}.W_ih must have shape (n_hidden, n_in) or (R, n_hidden, n_in), "
                         f"got {W_ih.shape}")
    lead = W_ih.shape[:-2]
    nh, n_in = W_ih.shape[-2:]
    n_out = W_ho.shape[-2] if W_ho.ndim == W_ih.ndim else None
    want = {"W_ih": (nh, n_in), "W_hh": (nh, nh), "b_h": (nh,), "W_ho": (n_out, nh), "b_o": (n_out,)}
    for field, a in zip(SRNParams._fields, arrays):
        shape = lead + want[field]
        if a.shape != shape or 0 in a.shape:
            show = "(" + ", ".join("n_out" if v is None else str(v) for v in shape) \
                + ("," if len(shape) == 1 else "") + ")"
            raise ValueError(f"{name}.{field} has shape {a.shape}; expected {show} "
                             f"(from W_ih {W_ih.shape} and W_ho {W_ho.shape})")
    return SRNParams(*(np.ascontiguousarray(a if lead else a[None], dtype=np.float64)
                       for a in arrays))


def init_params(n_in: int = 7, n_hidden: int = 15, n_out: int = 7, *, r: float = 1.0,
                rng=None, n_networks: int | None = None) -> SRNParams:
    """Initial weights and biases, all uniform in ``[-r, r]``.

    Parameters
    ----------
    n_in, n_hidden, n_out : int
        Layer sizes (O'Connell: 7-15-7).
    r : float
        Half-width of the uniform range: 1.0 in O'Connell (1995) ch. 4, 0.5 in
        Servan-Schreiber et al. (1991) section 2.
    rng : numpy.random.Generator, int or None
        See :func:`tempnets._numerics.random.as_generator`.
    n_networks : int or None
        ``None``: one network, unstacked arrays.  An integer ``R``: a stack of
        ``R`` networks; network ``k`` is drawn from ``spawn(rng, R)[k]`` and so
        does not depend on ``R`` when ``rng`` is an integer seed.
    """
    n_in, n_hidden, n_out = (count(k, v, 1) for k, v in
                             (("n_in", n_in), ("n_hidden", n_hidden), ("n_out", n_out)))
    if not (is_finite_real(r) and r > 0):
        raise ValueError(f"init range r must be a positive finite number, got {r!r}")
    if n_networks is None:
        check_memory(n_hidden * (n_in + n_hidden + 1 + n_out) + n_out,
                     f"init_params: a network of {n_in}-{n_hidden}-{n_out} units")
        return _draw_params(as_generator(rng), n_in, n_hidden, n_out, float(r))
    R = count("n_networks", n_networks, 1)
    check_memory(R * (n_hidden * (n_in + n_hidden + 1 + n_out) + n_out),
                 f"init_params: n_networks={R} networks of {n_in}-{n_hidden}-{n_out} units")
    gens = spawn(rng, R)
    nets = [_draw_params(g, n_in, n_hidden, n_out, float(r)) for g in gens]
    return SRNParams(*(np.stack(a) for a in zip(*nets)))


def pa_attention(n_normal: int = 8, n_pa: int = 7, period: int = 7):
    """``(period, phase)`` arrays for ``n_normal`` normal units then ``n_pa`` PA units.

    The PA units get phases ``0, 1, ..., n_pa - 1`` (modulo ``period``), so with
    ``n_pa == period`` one PA unit is attentive at every step: O'Connell's
    Figure 4.1 pattern (the default: 8 normal + 7 PA units of period 7).
    """
    n_normal, n_pa = count("n_normal", n_normal), count("n_pa", n_pa)
    check_memory(2 * (n_normal + n_pa), f"pa_attention: {n_normal} + {n_pa} units")
    period = count("period", period, 1, np.iinfo(np.int64).max)
    periods = np.array([1] * n_normal + [period] * n_pa, dtype=np.int64)
    phases = np.array([0] * n_normal + [k % period for k in range(n_pa)], dtype=np.int64)
    return periods, phases


def check_attention(period, phase, n_hidden: int):
    """Validate and normalise an attention pattern; ``None`` means every unit period 1.

    Returns ``(period, phase)`` as ``int64`` arrays of shape ``(n_hidden,)``.
    """
    if period is None and phase is None:
        return np.ones(n_hidden, np.int64), np.zeros(n_hidden, np.int64)
    if period is None:
        raise ValueError("phase given without period; give both (see pa_attention)")
    if phase is None:
        phase = np.zeros(n_hidden, np.int64)
    p = np.asarray(period)
    q = np.asarray(phase)
    for name, a in (("period", p), ("phase", q)):
        if a.shape != (n_hidden,):
            raise ValueError(f"{name} must have shape ({n_hidden},) (one entry per hidden unit), "
                             f"got shape {a.shape}")
        if a.size and not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"{name} must hold integers, got dtype {a.dtype}")
    p = p.astype(np.int64)
    q = q.astype(np.int64)
    if np.any(p < 1):
        k = int(np.argmax(p < 1))
        raise ValueError(f"period must be >= 1 for every hidden unit; unit {k} has period {p[k]}")
    bad = (q < 0) | (q >= p)
    if np.any(bad):
        k = int(np.argmax(bad))
        raise ValueError(f"phase must satisfy 0 <= phase < period; unit {k} has phase {q[k]} "
                         f"with period {p[k]}")
    return p, q


def as_flat_strings(strings, offsets=None):
    """Normalise strings to the library's ``(flat, offsets)`` form (``int64`` arrays).

    ``strings`` is either a flat 1-D integer array (then ``offsets`` is required,
    shape ``(n_strings + 1,)``, non-decreasing, from 0 to ``len(flat)``) or a
    sequence of 1-D integer arrays (then ``offsets`` must be ``None``).
    """
    if offsets is None:
        if isinstance(strings, np.ndarray):
            raise ValueError("a flat array of symbols needs offsets (shape (n_strings + 1,)); "
                             "or pass a list of 1-D arrays, one per string")
        parts = [np.asarray(s) for s in strings]
        for i, s in enumerate(parts):
            if s.ndim != 1:
                raise ValueError(f"string {i} must be a 1-D array of symbol indices, "
                                 f"got shape {s.shape}")
            if s.size and not np.issubdtype(s.dtype, np.integer):
                raise TypeError(f"string {i} must hold integer symbol indices, got dtype "
                                f"{s.dtype} (encode text with grammar.encode)")
        lengths = np.array([len(s) for s in parts], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        flat = (np.concatenate(parts) if parts else np.zeros(0)).astype(np.int64)
        return flat, offsets
    flat = np.asarray(strings)
    offsets = np.asarray(offsets)
    if flat.ndim != 1:
        raise ValueError(f"flat strings must be 1-D, got shape {flat.shape}")
    if flat.size and not np.issubdtype(flat.dtype, np.integer):
        raise TypeError(f"strings (flat symbols) must be integer indices, got dtype {flat.dtype}")
    if offsets.ndim != 1 or offsets.size < 1 or not np.issubdtype(offsets.dtype, np.integer):
        raise ValueError("offsets must be a 1-D integer array of shape (n_strings + 1,)")
    if offsets[0] != 0 or offsets[-1] != flat.size or np.any(np.diff(offsets) < 0):
        raise ValueError(f"offsets must start at 0, be non-decreasing and end at len(flat) = "
                         f"{flat.size}; got {offsets[:3]}...{offsets[-1:]}")
    return flat.astype(np.int64), offsets.astype(np.int64)


def check_symbols(flat, offsets, n_in, n_out=None, min_length=2):
    """Raise ``ValueError`` if a symbol is out of range or a string is too short.

    Symbols must index the inputs (and, if ``n_out`` is given, the outputs).
    """
    if flat.size:
        lo, hi = int(flat.min()), int(flat.max())
        limit = n_in if n_out is None else min(n_in, n_out)
        if lo < 0 or hi >= limit:
            bad = int(np.argmax((flat < 0) | (flat >= limit)))
            i = int(np.searchsorted(offsets, bad, side="right") - 1)
            units = f"{n_in} inputs" + ("" if n_out is None else f" and {n_out} outputs")
            raise ValueError(f"strings: string {i} has symbol index {int(flat[bad])}, not in 0..{limit - 1} "
                             f"(the network has {units})")
    lengths = np.diff(offsets)
    if np.any(lengths < min_length):
        i = int(np.argmax(lengths < min_length))
        raise ValueError(f"strings: string {i} has {int(lengths[i])} symbols; each string needs at least "
                         f"{min_length} (inputs are symbols[:-1], targets symbols[1:])")


# ----------------------------------------------------------------------------- compiled forward pass
# Shared with the fused training kernel (tempnets.models.bptt._train_one_online): the
# logistic in plain arithmetic and the unit-level layout of the weights.

@numba.njit(cache=True)
def _row_widths(nh, no, n_in):
    """Widths of the rows of :func:`_to_rows`, padded to multiples of 4 (a vector of
    doubles): ``P`` for ``[h, 1, 0..]``, ``O`` for the outputs, ``S`` for
    ``z = [c, 1, 0.., onehot(x), 0..]``."""
    P = (nh + 4) // 4 * 4
    return P, (no + 3) // 4 * 4, (P + n_in + 3) // 4 * 4


@numba.njit(cache=True)
def _to_rows(W_ih, W_hh, b_h, W_ho, b_o, P, S):
    """One network's weights (or velocities) as rows of weights into each unit.

    ``Wh[i]`` holds the weights into hidden unit ``i`` from its sources
    ``z = [c, 1, 0.., onehot(x), 0..]``: ``W_hh[i]`` at ``:nh``, ``b_h[i]`` at ``nh``
    and ``W_ih[i]`` at ``P:P + n_in``; ``Wy[o]`` holds the weights into output ``o`` from
    ``[h, 1, 0..]``: ``W_ho[o]`` at ``:nh``, ``b_o[o]`` at ``nh``.  ``P`` and ``S`` pad
    the rows to multiples of 4; the padding is zero and stays zero.
    """
    nh = W_hh.shape[0]
    n_in = W_ih.shape[1]
    no = W_ho.shape[0]
    Wh = np.zeros((nh, S))
    Wy = np.zeros((no, P))
    for i in range(nh):
        Wh[i, :nh] = W_hh[i]
        Wh[i, nh] = b_h[i]
        Wh[i, P:P + n_in] = W_ih[i]
    for o in range(no):
        Wy[o, :nh] = W_ho[o]
        Wy[o, nh] = b_o[o]
    return Wh, Wy


@numba.njit(cache=True)
def _from_rows(Wh, Wy, W_ih, W_hh, b_h, W_ho, b_o):
    """The inverse of :func:`_to_rows`, written into the library's arrays."""
    nh = W_hh.shape[0]
    n_in = W_ih.shape[1]
    P = Wy.shape[1]
    for i in range(nh):
        W_hh[i] = Wh[i, :nh]
        b_h[i] = Wh[i, nh]
        W_ih[i] = Wh[i, P:P + n_in]
    for o in range(W_ho.shape[0]):
        W_ho[o] = Wy[o, :nh]
        b_o[o] = Wy[o, nh]


@numba.njit(cache=True, error_model="numpy")
def _forward_one(W_ih, W_hh, b_h, W_ho, b_o, flat, offsets, period, phase, reset, c0,
                 out_y, out_h, want_h):
    """Forward pass of one network over all strings; writes ``out_y`` (and ``out_h``).

    Written as the training kernel's forward step
    (:func:`tempnets.models.bptt._train_one_online`): weights in the layout of
    :func:`_to_rows`, so that ``net_i = w_{i,x} + [W_hh[i], b_h[i]] . [c, 1]``
    is a dot product along one contiguous row, and :func:`_logistic`; within
    a few ulp of the model's equations (tested against the reference to 1e-14).
    """
    nh = W_hh.shape[0]
    no = W_ho.shape[0]
    P, O, S = _row_widths(nh, no, W_ih.shape[1])
    Wh, Wy = _to_rows(W_ih, W_hh, b_h, W_ho, b_o, P, S)
    z = np.zeros((1, P))  # [c, 1, 0..]: the context, the bias's "activation", padding
    hid = np.zeros((1, P))  # [h, 1, 0..]
    att = np.zeros(P)  # 1.0 on the attentive hidden units (0 on the bias and the padding)
    net = np.zeros(P)
    ynet = np.zeros(O)
    cnt = np.zeros(nh, np.int64)
    step = 0
    first = True
    # For each string, for each step s: h = f(b_h + W_ih[:, x] + W_hh @ c) on
    # attentive units (held elsewhere); y = f(b_o + W_ho @ h); c = h.
    for i in range(offsets.shape[0] - 1):
        if reset or first:
            for k in range(nh):
                z[0, k] = c0
                cnt[k] = (period[k] - phase[k]) % period[k]
            z[0, nh] = 1.0
            first = False
        for q in range(offsets[i], offsets[i + 1] - 1):
            x = flat[q]
            for k in range(nh):
                att[k] = 1.0 if cnt[k] == 0 else 0.0
                cnt[k] = cnt[k] + 1 if cnt[k] + 1 < period[k] else 0
                if att[k] != 0.0:
                    net[k] = Wh[k, P + x] + _dot4(Wh, k, z, 0, P)
            for k in range(P):  # (selects between values loaded unconditionally)
                f = _logistic(net[k])
                c = z[0, k]
                hid[0, k] = f if att[k] != 0.0 else c
            for o in range(no):
                ynet[o] = _dot4(Wy, o, hid, 0, P)
            for o in range(O):
                ynet[o] = _logistic(ynet[o])
            for o in range(no):
                out_y[step, o] = ynet[o]
            if want_h:
                for k in range(nh):
                    out_h[step, k] = hid[0, k]
            for k in range(P):
                z[0, k] = hid[0, k]
            step += 1


@numba.njit(cache=True, parallel=True)
def _forward_many(W_ih, W_hh, b_h, W_ho, b_o, flat, offsets, period, phase, reset, c0,
                  out_y, out_h, want_h):
    # for r in networks (in parallel): out_y[r] = forward(params[r], strings)
    for r in numba.prange(W_ih.shape[0]):
        _forward_one(W_ih[r], W_hh[r], b_h[r], W_ho[r], b_o[r], flat, offsets, period, phase,
                     reset, c0, out_y[r], out_h[r], want_h)


def srn_forward(params: SRNParams, strings, offsets=None, *, period=None, phase=None,
                reset_context: bool = True, context_init: float = 0.0,
                return_hidden: bool = False):
    """Run the network(s) forward over strings; no learning.

    Parameters
    ----------
    params : SRNParams
        One network or a stack of ``R``.
    strings, offsets
        Strings as ``(flat, offsets)`` or a list of 1-D arrays (see
        :func:`as_flat_strings`).  Each string of length ``L`` gives ``L - 1``
        steps (inputs ``symbols[:-1]``).
    period, phase : array_like of int, optional
        Attention pattern of the hidden units (see :func:`pa_attention`).
    reset_context : bool
        Reset the context (and PA positions) at every string start (default).
    context_init : float
        The context after a reset, in ``[0, 1]`` (see
        :class:`tempnets.training.srn_trainers.TrainConfig`).
    return_hidden : bool
        Also return hidden activations.

    Returns
    -------
    y : ndarray
        Output activations, ``(n_steps, n_out)`` or ``(R, n_steps, n_out)``.
        Steps of string ``i`` are ``step_offsets[i]:step_offsets[i + 1]``;
        row ``t`` is the prediction of the symbol after the ``t``-th input.
    step_offsets : ndarray
        Cumulative step counts, shape ``(n_strings + 1,)``.
    h : ndarray
        Hidden activations ``(..., n_steps, n_hidden)`` (only if ``return_hidden``).
    """
    p = check_params(params)
    stacked = params.stacked
    n_in, nh, n_out = p.sizes
    flat, offsets = as_flat_strings(strings, offsets)
    check_symbols(flat, offsets, n_in, None, min_length=1)
    period, phase = check_attention(period, phase, nh)
    if isinstance(context_init, bool) or not isinstance(context_init, numbers.Real) \
            or not 0 <= context_init <= 1:
        raise ValueError(f"context_init must be a number in [0, 1], got {context_init!r}")
    R = p.W_ih.shape[0]
    step_offsets = np.concatenate([[0], np.cumsum(np.maximum(np.diff(offsets) - 1, 0))])
    n_steps = int(step_offsets[-1])
    check_memory(R * n_steps * (n_out + (nh if return_hidden else 0)),
                 f"srn_forward: outputs of {R} network(s) over {n_steps:,} steps")
    y = np.zeros((R, n_steps, n_out))
    h = np.zeros((R, n_steps if return_hidden else 0, nh))
    _forward_many(*p, flat, offsets, period, phase, bool(reset_context), float(context_init), y, h,
                  bool(return_hidden))
    if not stacked:
        y, h = y[0], h[0]
    return (y, step_offsets, h) if return_hidden else (y, step_offsets)
