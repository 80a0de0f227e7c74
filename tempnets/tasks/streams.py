r"""Endless event streams for on-line learning: the flip-flop and the car owner's day.

Paper: Schmidhuber (1991), section 3 (``papers/001``), experiments 1 and 2; the
flip-flop task goes back to Williams & Zipser (1989).  A stream has no episode
boundaries: networks learn on it on-line and are never reset.

Every stream is a :class:`Stream` of arrays with one row per time step
``t = 1..n``: the slow net's input ``xs``, the fast net's input ``xf``, the
targets ``d`` and a 0/1 ``mask`` that says which steps are scored, plus a
one-character ``label`` per step for display.

Flip-flop (experiment 1)
    Events A, B, C, one-hot, each with probability 1/3 per step (the paper says
    only "randomly chosen"; 1/3 each is our reconstruction).  The target is 1
    at "an event B that occurred for the first time after the last event A",
    0 at every other step; every step is scored.  S and F both see the event.

Car parking (experiment 2)
    The owner drives for zero or more steps (before each, he stops with
    probability 0.25), parks in slot 1, 2 or 3 (uniform; one step, on which
    detector ``I_k`` is on), does business for zero or more steps (finishing
    with probability 0.25 before each), then drives again.  S sees the three
    detectors and three random binary distractors (each on with probability
    0.5, from Schmidhuber's habilitation); F sees only the WHERE-IS-MY-CAR?
    query, on with probability 0.5 at every step.  The target is the parked
    slot, scored on business steps with the query on.  The query rate and the
    scored steps are our reconstruction (the book's *Reconstructions* page,
    fast-weights section): the paper gives neither.  We score no other step
    because at the parking step F still reads the old weights, and while the
    owner drives there is no slot to name and S has no input that says so.
    Labels: ``d`` drive, ``1``-``3`` park in that slot, ``b`` business.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from .._numerics.checks import array, count, memory
from .._numerics.random import as_generator

__all__ = ["Stream", "FLIPFLOP_EVENTS", "flipflop", "random_flipflop", "random_parking",
           "parking"]

FLIPFLOP_EVENTS = "ABC"


class Stream(NamedTuple):
    """One stream, row ``t - 1`` for time step ``t``."""

    xs: np.ndarray     #: (n, n_s_in) slow net's inputs
    xf: np.ndarray     #: (n, n_f_in) fast net's inputs
    d: np.ndarray      #: (n, n_f_out) targets (0 where unscored)
    mask: np.ndarray   #: (n,) 1.0 where step t is scored
    labels: str        #: one character per step

    def __len__(self) -> int:  # the number of steps, not of fields
        return int(self.mask.shape[0])

    def slice(self, start: int, stop: int) -> "Stream":
        """Steps ``start + 1 .. stop`` as a stream of their own."""
        return Stream(self.xs[start:stop], self.xf[start:stop], self.d[start:stop],
                      self.mask[start:stop], self.labels[start:stop])


MIN_END_PROBABILITY = 1e-6
"""Smallest ``p_stop`` / ``p_finish`` of :func:`random_parking`.  A drive or a visit lasts ``1/p``
steps on average, and every step of the last one is drawn, even past ``n_steps`` (the query and
distractor draws that follow must not depend on a change here)."""


def _probability(name, p):
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0 <= p <= 1:
        raise ValueError(f"{name} must be a probability in [0, 1], got {p!r}")
    return float(p)


def flipflop(events) -> Stream:
    """The flip-flop stream of a given event sequence, e.g. ``flipflop("ACBBAB")``.

    Parameters
    ----------
    events : str or sequence of int
        Letters from ``"ABC"`` (case-insensitive) or indices 0, 1, 2.

    Raises
    ------
    ValueError
        If an event is not A, B or C (the message names it and its position).
    """
    if isinstance(events, str):
        up = events.upper()
        bad = [(i, c) for i, c in enumerate(up) if c not in FLIPFLOP_EVENTS]
        if bad:
            i, c = bad[0]
            raise ValueError(f"event stream {events!r} has {events[i]!r} at position {i}; "
                             f"allowed events: A, B, C")
        idx = np.array([FLIPFLOP_EVENTS.index(c) for c in up], dtype=np.int64)
    else:
        idx = np.asarray(events)
        if idx.ndim != 1 or (idx.size and (not np.issubdtype(idx.dtype, np.integer)
                                            or idx.min() < 0 or idx.max() > 2)):
            raise ValueError(f"events must be a string of A/B/C or integers 0-2 (A, B, C), got {events!r}")
        idx = idx.astype(np.int64)
    x = np.eye(3)[idx]
    d = np.zeros((idx.size, 1))
    armed = False  # an A since the last B?
    for t, e in enumerate(idx):
        if e == 0:
            armed = True
        elif e == 1:
            d[t, 0] = 1.0 if armed else 0.0
            armed = False
    labels = "".join(FLIPFLOP_EVENTS[e] for e in idx)
    return Stream(x, x.copy(), d, np.ones(idx.size), labels)


def random_flipflop(n_steps: int, rng=None, p=(1 / 3, 1 / 3, 1 / 3)) -> Stream:
    """A random flip-flop stream of ``n_steps`` events drawn independently with probabilities ``p``."""
    n = count("n_steps", n_steps)
    memory(11 * n, f"random_flipflop: a stream of n_steps={n:,} events")
    p = array("p", p, finite=False)
    if p.shape != (3,) or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise ValueError(f"p must be three probabilities for A, B, C summing to 1, got {p.tolist()}")
    return flipflop(as_generator(rng).choice(3, size=n, p=p))


def parking(labels: str, query=None, distractors=None) -> Stream:
    """The car-parking stream of a given life, e.g. ``parking("dd2bbbd1bb")``.

    Parameters
    ----------
    labels : str
        One character per step: ``d`` drive, ``1``/``2``/``3`` park in that slot,
        ``b`` business (only while parked).  Parking right after business
        means zero driving steps in between.
    query : array of 0/1, optional
        The WHERE-IS-MY-CAR? input per step (default: on at every step).
    distractors : array (n, 3) of 0/1, optional
        S's three random binary inputs (default: all off).
    """
    if not isinstance(labels, str):
        raise TypeError(f"labels must be a string of d, 1, 2, 3, b; got {type(labels).__name__}")
    n = len(labels)
    dims = {"n": (n, "labels")}
    q = np.ones(n) if query is None else array("query", query, ("n",), dims, low=0.0, high=1.0)
    r = np.zeros((n, 3)) if distractors is None else array("distractors", distractors, ("n", 3), dims)
    for name, a in (("query", q), ("distractors", r)):
        if not np.all((a == 0) | (a == 1)):
            raise ValueError(f"{name} must hold 0/1 values, got {a[(a != 0) & (a != 1)][0].item()!r}")
    xs = np.zeros((n, 6))
    xs[:, 3:] = r
    d = np.zeros((n, 3))
    mask = np.zeros(n)
    slot = -1  # -1: driving
    for t, c in enumerate(labels):
        if c in "123":
            slot = int(c) - 1
            xs[t, slot] = 1.0
        elif c == "b":
            if slot < 0:
                raise ValueError(f"labels {labels!r:.60}: business at step {t + 1} without a "
                                 "parked car (b needs a 1, 2 or 3 before it)")
            d[t, slot] = 1.0
            mask[t] = q[t]
        elif c == "d":
            slot = -1
        else:
            raise ValueError(f"labels {labels!r:.60} has {c!r} at position {t}; allowed: d (drive), "
                             "1, 2, 3 (park in that slot), b (business)")
    d *= mask[:, None]
    return Stream(xs, q[:, None].copy(), d, mask, labels)


def random_parking(n_steps: int, rng=None, p_stop: float = 0.25, p_finish: float = 0.25,
                   p_query: float = 0.5, p_distractor: float = 0.5) -> Stream:
    """A random life of the car owner, ``n_steps`` long (see the module docstring).

    Parameters
    ----------
    p_stop, p_finish : float
        Probability, before each step, that driving stops / business ends (the paper: 0.25).
    p_query : float
        Probability that WHERE-IS-MY-CAR? is asked at a step (our reconstruction: 0.5; the
        paper does not say how often the question comes).
    p_distractor : float
        Probability that each random input is on (habilitation: 0.5).
    """
    n = count("n_steps", n_steps)
    memory(14 * n, f"random_parking: a stream of n_steps={n:,} steps")
    p_stop, p_finish = _probability("p_stop", p_stop), _probability("p_finish", p_finish)
    for name, p in (("p_stop", p_stop), ("p_finish", p_finish)):
        if p < MIN_END_PROBABILITY:  # a drive or a visit lasts 1/p steps on average, all drawn
            raise ValueError(f"{name} must be a probability in [{MIN_END_PROBABILITY:g}, 1] (a drive or "
                             f"a visit lasts 1/{name} steps on average: a smaller value never ends "
                             f"in practice), got {p!r}")
    p_query, p_dis = _probability("p_query", p_query), _probability("p_distractor", p_distractor)
    gen = as_generator(rng)
    out = []
    while len(out) < n:
        while gen.random() >= p_stop:       # drive zero or more steps
            out.append("d")
        out.append("123"[gen.integers(3)])  # park
        while gen.random() >= p_finish:     # business zero or more steps
            out.append("b")
    labels = "".join(out)[:n]
    q = (gen.random(n) < p_query).astype(float)
    r = (gen.random((n, 3)) < p_dis).astype(float)
    return parking(labels, q, r)
