"""The thesis's conclusion as a claim: BPTT(4,1) markedly outperforms the PA networks
(from the records of ``pa-4.2`` and ``pa-8.1``)."""

from __future__ import annotations

import numpy as np

from ...book import claims
from ..._numerics.checks import array
from ...book.experiments import Result
from .thesis import thesis_average
from .verdicts import _expect, _paired, _paired_note


# ----------------------------------------------------------------------------- the thesis's conclusion


def _record_data(value, name: str, exp_id: str, conditions) -> dict:
    """``value`` (a :class:`Result` of ``exp_id`` or its data) checked to hold the final
    scores of ``conditions``; its data.  ``name`` names the argument in errors."""
    data = value.data if isinstance(value, Result) else value
    if not isinstance(data, dict) or data.get("experiment") != exp_id:
        raise TypeError(f"{name} must be the result of {exp_id} (or its data, e.g. a record's "
                        f"'data'), got {type(value).__name__}")
    if data.get("scale") not in ("book", "paper"):
        raise ValueError(f"{name}: the data of {exp_id} must say its scale, 'book' or 'paper'; "
                         f"got {data.get('scale')!r}")
    summary = data.get("summary")
    for c in conditions:
        final = summary.get(c, {}).get("final") if isinstance(summary, dict) else None
        if not isinstance(final, list) or not final:
            raise ValueError(f"{name}: the data of {exp_id} has no final scores of {c} "
                             "(summary[...]['final'])")
        array(f"{name}: {c}'s final scores", final, (None,), low=0.0, high=100.0)
    return data


def conclusion_claims(fig4_2, fig8_1) -> claims.ClaimsTable:
    """The thesis's conclusion as a claim: BPTT(4,1) markedly outperforms the PA networks.

    O'Connell, ch. 8: "A history buffer of size 4 proved more than adequate. BPTT(4,1)
    markedly outperformed the PA networks."  The two cures are compared on the same weight
    sets and strings: the PA networks of ``fig4_2`` (a ``pa-4.2`` result or its data) and the
    BPTT(4,1) networks of ``fig8_1`` (``pa-8.1``), networks ``0 .. n-1`` of both (``n`` the
    smaller run), as a paired difference of mean *final* with the threshold the chapter
    uses for PA over SRN (15 points).  Both results must be of one scale and seed.
    """
    a = _record_data(fig4_2, "fig4_2", "pa-4.2", ["PA"])
    b = _record_data(fig8_1, "fig8_1", "pa-8.1", ["BPTT(4,1)"])
    if (a.get("scale"), a.get("seed")) != (b.get("scale"), b.get("seed")):
        raise ValueError(f"fig4_2 and fig8_1 must be of one scale and seed (the same weight sets); "
                         f"got {a.get('scale')!r}, seed {a.get('seed')!r} and {b.get('scale')!r}, "
                         f"seed {b.get('seed')!r}")
    pa_f = np.array(a["summary"]["PA"]["final"], dtype=float)
    b4 = np.array(b["summary"]["BPTT(4,1)"]["final"], dtype=float)
    n = min(len(pa_f), len(b4))
    pa_f, b4 = pa_f[:n], b4[:n]
    t = claims.ClaimsTable(f"The thesis's conclusion: BPTT(4,1) vs the PA networks ({n} weight sets)")
    t.add("BPTT(4,1) markedly outperforms the PA networks: its mean final exceeds theirs by "
          ">= 15 points (same weight sets)", "ch. 8; Figures 4.2, 8.1",
          round(thesis_average("fig8.1", "BPTT(4,1)", "final") - thesis_average("fig4.2", "PA", "final"), 1),
          round(float(b4.mean() - pa_f.mean()), 1), claims.at_least(15.0), do_nothing=0.0,
          expected=_expect("pa-conclusion", a.get("scale"))("BPTT(4,1) beats PA"),
          interval=_paired(b4, pa_f),
          note=f"BPTT(4,1) {b4.mean():.1f}, PA {pa_f.mean():.1f} (networks 0-{n - 1} of pa-8.1 and "
               f"pa-4.2); {_paired_note(n)}")
    return t


