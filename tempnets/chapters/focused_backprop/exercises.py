"""The chapter's exercises and their self-checks (:mod:`tempnets.chapters.focused_backprop`)."""

from __future__ import annotations

import numpy as np

from ...book.selfcheck import check_function, check_value

# ----------------------------------------------------------------------------- exercises

def _gamma_reference(d, T):
    g, out = 0.0, []
    for _ in range(T):
        g = 1.0 + d * g
        out.append(g)
    return np.array(out)


def check_gamma(fn) -> None:
    """Exercise: ``fn(d, T)`` returns γ(1..T) for a focused unit with decay ``d`` (eq. 1)."""
    check_function("gamma trace", fn, _gamma_reference, [(0.9, 5), (1.0, 4), (0.0, 3), (1.1, 6)],
                   hint="γ(t) = ∂c(t)/∂z = 1 + d γ(t−1) with γ(0) = 0, so γ(t) = Σ_{k<t} d^k")


def _alpha_closed(d, s):
    s = np.asarray(s, float)
    T = len(s)
    return float(sum((T - tau) * d ** (T - tau - 1) * s[tau - 1] for tau in range(1, T)))


def check_alpha_closed_form(fn) -> None:
    """Exercise: ``fn(d, s)`` returns α(T) = ∂c(T)/∂d from the squashed inputs ``s`` = s[net(1..T)]."""
    check_function("alpha from A.4", fn, _alpha_closed, [(0.9, [0.2, 0.5, 0.1]), (1.2, [1.0, -0.3, 0.4, 0.6]),
                                                         (0.5, [0.7])],
                   hint="A.4: α(t) = Σ_{τ=1}^{t−1} (t−τ) d^{t−τ−1} s[net(τ)]")


def check_rtrl_memory(answer) -> None:
    """Exercise: the number of sensitivities RTRL keeps for a fully recurrent net with 25
    units, 8 inputs and biases, against the focused net's traces (β, α, γ) for 25 units."""
    n, m = 25, 8
    rtrl = n * (n * (n + m + 1))          # p^k_ij for every unit k and every weight w_ij
    focused = n * (m + 1) + 2 * n          # β_ji (with the bias) + α_i + γ_i
    check_value("RTRL / focused trace count", answer, rtrl / focused,
                hint="RTRL: one sensitivity per (unit, weight) pair, n·n(n+m+1); focused: n(m+1) + 2n")
