"""The paper's rule and numbers that every experiment of the chapter uses, and the helpers the
runners share.

:data:`RULE` (note 1's learning rate and momentum), :data:`THRESHOLD` (§2.5's acceptance
threshold), :data:`LONG_STRING` (§2.5's "extremely long string") and :data:`EXPECT` (what the
chapter states per scale for the claims that may be inconclusive); :func:`config` (the paper's
network and rule), :func:`comparisons_against`, the JSON form of one network's weights
(:func:`params_to_lists`, :func:`params_from_lists`) and the seed streams of an experiment's parts.
"""

from __future__ import annotations

import math

import numpy as np

from ..._numerics import checks
from ...book import intervals
from ...models.srn import SRNParams, check_params
from ...training.srn_trainers import TrainConfig

RULE = {"learning_rate": 0.01, "momentum": 0.9}
"""Learning rate and momentum used by every runner (note 1: 0.01–0.02, 0.5–0.9)."""

THRESHOLD = 0.3
"""A successor is "predicted" when its output activation exceeds 0.3 (§2.5)."""

LONG_STRING = ("BT" + "S" * 26 + "XX" + "VPX" * 8 + "T" * 25 + "VPX" * 6 + "VPSE")
"""The "extremely long string" of §2.5 (BTSSS...SXXVPX...VPXTTT...TVPXVPX...VPS, then E).

Our copy's OCR leaves the exact counts uncertain (26 S's, 8 VPX, 25 T's, 6 VPX
then VPS as far as they can be read); any counts give a grammatical string of
the same shape, and the claim is about every step of it.
"""


EXPECT = {
    "3hu-15-units-criterion": {"book": None, "paper": True},
    "21-figures13_14": {"13a": {"book": True, "paper": True}, "13b": {"book": None, "paper": True},
                        "14a": {"book": True, "paper": True}, "14b": {"book": True, "paper": True}},
    "21-figure15": {"book": None, "paper": False},
    "21-incorrect": {"book": None, "paper": False},
    "acp": {"note 6": {"book": (False, False, False, False), "paper": (False, False, False, False)},
            "pattern by pattern": {"book": (None, False, None, True),
                                   "paper": (True, False, True, True)}},
    "problem3-median": {"book": None, "paper": None},
    "problem3-plateau": {"book": None, "paper": True},
    "problem3-growth": {"book": None, "paper": None},
    "problem3-size-effect": {"book": None, "paper": None},
    "embedded-hits": {"book": None, "paper": False},
    "embedded-errors": {"book": None, "paper": True},
    "embedded-misses": {"book": None, "paper": False},
    "embedded-figure19": {"book": None, "paper": True},
    "embedded-asym-all-hits": {"book": None, "paper": False},
    "embedded-asym-beats-sym": {"book": None, "paper": True},
}
"""What the chapter states per scale for the claims measured over a few networks, whose 95%
interval may straddle their threshold (``None``: inconclusive at that scale, shown and never
asserted).  Measured (book scale, seed 0; paper scale, the runs recorded in
``book/paper_scale/``), then written here; the robustness records
(``book/paper_scale/gsm-*.robustness.json``) count how often each verdict comes out over seeds
0-9 at book scale.  Claims not listed are decided at both scales."""




def _fmt_iv(interval, digits: int = 3) -> str:
    """An interval for a note, e.g. ``[0.38, 0.96]``."""
    return "[" + ", ".join("∞" if v == math.inf else "−∞" if v == -math.inf else f"{v:.{digits}g}"
                           for v in interval) + "]"


def comparisons_against(differences, level: float = intervals.LEVEL) -> tuple:
    """How many of several comparisons go against a claim, with their range at ``level``.

    ``differences`` holds, per comparison (a length group, a pair of orders ...), the paired
    differences over networks that the claim says are positive.  Each comparison's t interval
    at ``level`` (:func:`tempnets.book.intervals.mean`; 95% unless a sequential design's) decides
    it: *for* the claim when the interval lies above 0, *against* when it lies below,
    undecided otherwise.

    Parameters
    ----------
    differences : list of array_like
        Per comparison, its paired differences over networks.
    level : float
        The level of each comparison's interval (:data:`tempnets.book.intervals.LEVEL`, or a
        sequential design's :attr:`tempnets.book.sequential.Plan.level`).

    Returns
    -------
    point : int
        Comparisons whose mean difference is not above 0.
    interval : (int, int)
        The decided ones against, and those not decided for: the claim "none goes against it"
        holds when the high end is 0 and fails when the low end is above 0.
    """
    checks.instance("differences", differences, (list, tuple), "a list of arrays of paired differences")
    differences = [checks.array(f"differences[{i}]", d, (None,)) for i, d in enumerate(differences)]
    empty = [i for i, d in enumerate(differences) if not d.size]
    if empty:
        raise ValueError(f"differences[{empty[0]}] must hold at least one paired difference, got none")
    against = undecided = point = 0
    for d in differences:
        point += int(not d.mean() > 0)
        lo, hi = intervals.mean(d, level)
        if hi < 0:
            against += 1
        elif not lo > 0:
            undecided += 1
    return point, (against, against + undecided)


def config(n_hidden: int, **changes) -> TrainConfig:
    """The paper's network and rule (note 1) with ``n_hidden`` hidden units and :data:`RULE`."""
    return TrainConfig.servan_schreiber(n_hidden=n_hidden, **{**RULE, **changes})


def _sub(seed: int, *keys: int) -> int:
    """An integer seed derived from ``seed`` and ``keys`` (independent streams per experiment part)."""
    return int(np.random.SeedSequence([int(seed), *map(int, keys)]).generate_state(1)[0])


def params_to_lists(params: SRNParams) -> dict:
    """JSON form of one network's weights (inverse: :func:`params_from_lists`)."""
    check_params(params)
    return {k: np.asarray(v).tolist() for k, v in params._asdict().items()}


def params_from_lists(d: dict) -> SRNParams:
    """Rebuild :class:`~tempnets.models.srn.SRNParams` from :func:`params_to_lists` output."""
    checks.instance("d", d, dict, "a dict of weights from params_to_lists()")
    missing = [k for k in SRNParams._fields if k not in d]
    if missing:
        raise ValueError(f"d must hold every array of an SRN ({', '.join(SRNParams._fields)}); it lacks "
                         f"{', '.join(missing)}")
    params = SRNParams(*(checks.array(k, d[k], finite=False) for k in SRNParams._fields))
    check_params(params, "d")  # the shapes fit together (the arrays themselves are returned)
    return params
