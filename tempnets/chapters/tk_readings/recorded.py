"""Diagnostics of a recorded network (:func:`recorded_diagnostics`)."""

from __future__ import annotations

import dataclasses

from ...tasks import recall_diagnostics as rd
from ..._numerics.checks import count
from .. import temporal_kernels as tk
from .readings import Reading, _check_model
from .switches import score_reading


# ----------------------------------------------------------------------------- recorded networks

MAX_DELAY = 100_000
"""The longest delay :func:`recorded_diagnostics` tests at (a longer one is refused, not run)."""


def recorded_diagnostics(data: dict, name: str = "TKRNN", k: int = 0, delay: int = 50,
                         n: int = 1000, seed: int = 0) -> dict:
    """The diagnostics of network ``k`` of ``name`` recorded in a ``tk-serial-recall`` result's
    ``data`` (its final parameters), on ``n`` fresh strings at ``delay``.

    Returns item and order memory, the serial-position curve, the letter accuracy with the
    output kernels from the inputs cut (:func:`tempnets.tasks.recall_diagnostics.without_input_output`,
    TKRNNs only) and the decays' histogram."""
    if not isinstance(data, dict):
        raise TypeError(f"data must be a tk-serial-recall result's data (a dict), got {type(data).__name__}")
    _check_model(name)
    k, n, seed = (count(a, v, low) for a, v, low in (("k", k, 0), ("n", n, 1), ("seed", seed, 0)))
    delay = count("delay", delay, 0, MAX_DELAY)
    if not isinstance(data.get("sizes"), dict):
        raise TypeError(f"data['sizes'] must be the sizes of a tk-serial-recall result (a dict), got "
                        f"{type(data.get('sizes')).__name__}")
    kept = data.get("params", {}).get(name, []) if isinstance(data.get("params"), dict) else []
    if k >= len(kept):
        raise ValueError(f"k must be one of the {len(kept)} networks of {name!r} whose parameters the "
                         f"data keeps (0 .. {len(kept) - 1}), got {k}")
    params = tk.params_from_data(data, name, k)
    sz = tk.sizes_of(data).for_model(name)
    sz = dataclasses.replace(sz, n_test=n)
    out = score_reading(name, params, sz, Reading(), seed, delay)
    if name.startswith("TKRNN"):
        cut = score_reading(name, rd.without_input_output(params), sz, Reading(), seed, delay)
        out.update(cut_symbol=cut["symbol"], cut_item=cut["item"], cut_position=cut["position"],
                   histogram=rd.decay_histogram(params),
                   theta=rd.decays(params)["theta"])
    return out
