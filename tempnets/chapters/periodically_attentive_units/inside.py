"""Inside a PA network (Figures 4.4-4.6): a network's hidden trace on one string, the thesis's
activation display, which unit carries the indicator, and the strings it misses."""

from __future__ import annotations

import numpy as np

from ..._numerics import checks
from ...tasks.grammars import n_letters
from ...models.srn import SRNParams, srn_forward
from ...training.srn_trainers import TrainConfig
from .sizes import _attention
from .scoring import _check_letters, _check_net, score


# ----------------------------------------------------------------------------- inside a PA network


def hidden_trace(params: SRNParams, string: str, config: TrainConfig, grammar=None) -> dict:
    """Everything Figures 4.4-4.5 show for one network and one string.

    Returns
    -------
    dict
        ``inputs`` (the presented symbols), ``targets``, ``hidden``
        ``(T, n_hidden)``, ``output`` ``(T, n_out)``, ``attentive``
        ``(T, n_hidden)`` booleans (unit updated at that step).
    """
    g = _check_net(params, config, grammar)
    _check_letters([string], g, "string")
    if params.stacked:
        raise ValueError("hidden_trace needs one network; use params.network(k)")
    y, _, h = srn_forward(params, [g.encode(string)], **_attention(config),
                          return_hidden=True)
    T = len(string) - 1
    per = np.ones(config.n_hidden, int) if config.period is None else np.array(config.period)
    pha = np.zeros(config.n_hidden, int) if config.phase is None else np.array(config.phase)
    att = np.array([(t - pha) % per == 0 for t in range(T)])
    return {"inputs": list(string[:-1]), "targets": list(string[1:]), "hidden": h,
            "output": y, "attentive": att}


def _tenths(v) -> str:
    return "".join("A" if round(10 * float(a)) >= 10 else str(int(round(10 * float(a)))) for a in v)


def activation_table(params: SRNParams, string: str, config: TrainConfig, grammar=None) -> str:
    """The thesis's activation display (Figures 4.4, 4.5) as text.

    One row per input symbol: the input, the attention pattern of the PA units
    (``A`` attentive, ``0`` not), hidden and output activations rounded to
    tenths (``A`` = 1.0) and the target.  Units are in our order (the 8 normal
    units, then the 7 PA units); outputs in the alphabet's order ``BTSPXVE``.
    """
    g = _check_net(params, config, grammar)
    for field, a in zip(SRNParams._fields, params):
        checks.array(f"params.{field}", a)  # finite: the table rounds every activation
    tr = hidden_trace(params, string, config, g)
    pa = np.flatnonzero(np.array(config.period or [1] * config.n_hidden) > 1)
    nh = tr["hidden"].shape[1]
    head = (f"{'in':>3} {'PA attention':<{max(len(pa), 12)}} {'hidden':<{nh}}  "
            f"{'output':<7}  target")
    sub = (f"{'':>3} {''.join(str(k % 10) for k in pa):<{max(len(pa), 12)}} "
           f"{''.join(str(k % 10) for k in range(nh)):<{nh}}  {g.alphabet:<7}")
    rows = [head, sub]
    for t in range(len(tr["inputs"])):
        att = "".join("A" if tr["attentive"][t, k] else "0" for k in pa)
        rows.append(f"{tr['inputs'][t]:>3} {att:<{max(len(pa), 12)}} {_tenths(tr['hidden'][t])}  "
                    f"{_tenths(tr['output'][t])}  {tr['targets'][t]}")
    return "\n".join(rows)


def indicator_units(params: SRNParams, strings, config: TrainConfig, grammar=None) -> dict:
    """Which hidden unit carries the indicator to the final prediction (Figures 4.4-4.6)?

    For every unit, the mean context activation at the final prediction over
    strings beginning with P minus over those beginning with T.  The context
    at the final prediction is the hidden state of the step before it (the
    thesis's "Unit 1 Context" of Figure 4.6: in Figure 4.5 unit 1 is 0.8 in
    the context but 0.1 in the hidden layer of the final-prediction step).

    Returns
    -------
    dict
        ``difference`` ``(n_hidden,)``, ``best`` (the unit with the largest
        ``|difference|``), ``context`` ``(n_strings,)`` the best unit's final
        context activations, ``indicator`` ``(n_strings,)`` ``"P"``/``"T"``.
    """
    g = _check_net(params, config, grammar)
    strings = _check_letters(strings, g, "strings")
    _, off, hid = srn_forward(params, [g.encode(s) for s in strings], return_hidden=True,
                              **_attention(config))
    last = off[1:] - 2  # the step that predicts the final symbol
    ctx = hid[last - 1]  # its context: the hidden state one step earlier
    ind = np.array([s[-2] for s in strings])
    diff = ctx[ind == "P"].mean(axis=0) - ctx[ind == "T"].mean(axis=0)
    best = int(np.argmax(np.abs(diff)))
    return {"difference": diff, "best": best, "context": ctx[:, best], "indicator": ind}


def failure_cases(params: SRNParams, strings, config: TrainConfig, grammar=None) -> list:
    """The test strings whose final symbol a network missed, as in Figure 4.6.

    Returns
    -------
    list of dict
        ``string``, ``symbol`` (the indicator), ``length`` (letters),
        ``unit_context`` (the indicator unit's context at the final prediction,
        see :func:`indicator_units`) and ``output`` (the output activations
        there, in alphabet order), sorted by ``unit_context``.
    """
    g = _check_net(params, config, grammar)
    strings = _check_letters(strings, g, "strings")
    sc = score(params, strings, g, config)
    iu = indicator_units(params, strings, config, g)
    y, off = srn_forward(params, [g.encode(s) for s in strings], **_attention(config))
    out = []
    for i in np.flatnonzero(~sc["final_ok"][0]):
        s = strings[i]
        out.append({"string": s, "symbol": s[-2], "length": n_letters(s),
                    "unit_context": round(float(iu["context"][i]), 3),
                    "output": y[off[i + 1] - 2].round(2).tolist()})
    return sorted(out, key=lambda d: d["unit_context"])


