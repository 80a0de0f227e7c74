"""Test sets (chapter 4: distinct strings), the embed and final scores of trained networks,
and the checks and weight helpers the analysis functions share (a network's weights as
one vector, its summed error for gradient checks, weights back from a record)."""

from __future__ import annotations

import numpy as np

from ..._numerics import checks
from ...tasks import metrics
from ..._numerics.checks import count
from ...tasks.grammars import thesis_embedded_reber, n_letters, check_grammar, check_strings
from ...models.srn import SRNParams, as_flat_strings, check_params, srn_forward
from ...training.srn_trainers import TrainConfig
from .sizes import _attention


# ----------------------------------------------------------------------------- test sets


def test_strings(grammar, n: int = 1000, rng=None, min_letters: int | None = None) -> list:
    """O'Connell's test set: ``n`` random strings with duplicates removed (chapter 4).

    "The test strings were generated in the same manner as the training
    strings except that duplicate test strings were removed": strings are drawn
    one after another and a repeat is skipped, until ``n`` distinct strings are
    found.  ``min_letters`` selects long strings (chapter 5: at least 50 or 300).

    Returns
    -------
    list of str
        Full strings (with B and E), in the order drawn.
    """
    check_grammar(grammar), count("n", n, 1, 100_000)  # n distinct strings: a few thousand exist
    if min_letters is not None:
        count("min_letters", min_letters, 0, 10_000)
    return grammar.sample(n, rng, min_letters=min_letters, distinct=True)


def length_statistics(strings) -> dict:
    """Mean, min and max length of test strings, counted two ways.

    ``letters``: :func:`tempnets.tasks.grammars.n_letters` (all symbols but the
    outer B and E).  ``thesis_count``: the symbols after B of the string in the
    thesis's framing (without inner B and E; ``BTTXSTE`` counts 6), which
    reproduces the thesis's mean and minimum (16.4 and 6 in chapter 4).
    """
    strings = check_strings(strings, "strings")
    if not strings:
        raise ValueError("no strings to measure")
    bad = [i for i, s in enumerate(strings) if len(s) < 2 or s[0] != "B" or s[-1] != "E"]
    if bad:
        raise ValueError(f"strings[{bad[0]}] must be a full string, B ... E, got {strings[bad[0]][:40]!r}")
    n = np.array([n_letters(s) for s in strings])
    m = np.array([n_letters(s) + 1 - (2 if s.find("B", 1) > 0 else 0) for s in strings])
    return {"n": len(strings), "distinct": len(set(strings)) == len(strings),
            "letters": {"mean": float(n.mean()), "min": int(n.min()), "max": int(n.max())},
            "thesis_count": {"mean": float(m.mean()), "min": int(m.min()), "max": int(m.max())}}


def score(params: SRNParams, strings, grammar, config: TrainConfig) -> dict:
    """Embed and final success (%) of each network on ``strings`` (chapter 4's measures).

    Parameters
    ----------
    params : SRNParams
        One network or a stack of ``R``.
    strings : list of str
        Test strings (full strings).
    grammar : FiniteStateGrammar
    config : TrainConfig
        Gives the attention pattern (``period``, ``phase``) of the hidden units.

    Returns
    -------
    dict
        ``embed`` and ``final``: ndarray of shape ``(R,)`` (percentages; ``R = 1``
        for an unstacked network), and the per-string booleans
        ``embed_ok``/``final_ok`` of shape ``(R, n_strings)``.
    """
    grammar = _check_net(params, config, check_grammar(grammar))  # (required here: no default)
    strings = _check_letters(strings, grammar, "strings")
    return _score(params, _encoded(strings, grammar), config)


def _encoded(strings, grammar) -> tuple:
    """A test set encoded and checked once, for :func:`_score` to score again and again:
    ``(flat, offsets, steps)``, the strings as :func:`tempnets.models.srn.as_flat_strings` and what
    :func:`tempnets.tasks.metrics.embed_final_many` reads of them."""
    strings, grammar = check_strings(strings, "strings"), check_grammar(grammar)
    for s in strings:  # what metrics.embed_final_many checks of its strings (its rows match by construction)
        grammar.validate(s)
    flat, offsets = as_flat_strings([grammar.encode(s) for s in strings])
    step_off = np.concatenate([[0], np.cumsum(np.maximum(np.diff(offsets) - 1, 0))])  # as srn_forward
    return flat, offsets, metrics._embed_final_steps(strings, grammar, step_off)


_SCORE_BLOCK = 4
"""Networks scored together (in parallel): their outputs on a long test set are tens of MB,
those of 40 networks would be 370 MB, whose allocation and scans cost more than the forward
passes.  Each network's scores do not depend on the block."""


def _score(params: SRNParams, encoded, config: TrainConfig) -> dict:
    """:func:`score` of a test set :func:`_encoded` once."""
    flat, offsets, steps = encoded
    p = params.stack()
    oks = []
    for r in range(0, p.W_ih.shape[0], _SCORE_BLOCK):
        y, _ = srn_forward(SRNParams(*(a[r:r + _SCORE_BLOCK] for a in p)), flat, offsets,
                           **_attention(config))
        oks.append(metrics._embed_final_of(y, steps, 0.3, 0.6))
    e_ok, f_ok = (np.concatenate(a) for a in zip(*oks))
    return {"embed": 100.0 * e_ok.mean(axis=1), "final": 100.0 * f_ok.mean(axis=1),
            "embed_ok": e_ok, "final_ok": f_ok}


def _check_net(params, config, grammar, name="grammar"):
    """The arguments shared by the analysis functions, checked: ``params`` (:class:`SRNParams`),
    ``config`` (:class:`TrainConfig`, which fixes the attention pattern); ``grammar``, or the
    thesis's embedded Reber grammar when ``None``, returned."""
    checks.instance("params", params, SRNParams, "an SRNParams (from srn.init_params or params_from_data)")
    check_params(params)
    checks.instance("config", config, TrainConfig, "a TrainConfig (from condition_config)").validate()
    return thesis_embedded_reber() if grammar is None else check_grammar(grammar, name)


def _check_letters(strings, grammar, name: str) -> list:
    """``strings`` after checking each is a str of two or more letters of ``grammar``'s alphabet."""
    strings = check_strings(strings, name)
    for i, s in enumerate(strings):
        bad = sorted(set(s) - set(grammar.alphabet))
        if bad or len(s) < 2:
            why = f"letter {bad[0]!r}, not in the alphabet {grammar.alphabet}" if bad else "fewer than 2 letters"
            raise ValueError(f"{name}[{i}] ({s[:40]!r}) has {why}")
    return strings


def _one_network(params, name: str) -> None:
    checks.instance(name, params, SRNParams, "an SRNParams (one network)")
    if check_params(params, name).W_ih.shape[0] != 1 or np.ndim(params.W_ih) != 2:
        raise ValueError(f"{name} must be one network (not a stack); use params.network(k)")


def flat_params(params: SRNParams) -> np.ndarray:
    """One network's weights as one vector (order ``W_ih, W_hh, b_h, W_ho, b_o``), for gradient checks."""
    _one_network(params, "params")
    return np.concatenate([np.ravel(a) for a in params])


def unflat_params(x, like: SRNParams) -> SRNParams:
    """Inverse of :func:`flat_params`: a vector back to arrays shaped like ``like``."""
    _one_network(like, "like")
    x = checks.array("x", x, (sum(np.size(a) for a in like),), finite=False)
    out, i = [], 0
    for a in like:
        out.append(x[i:i + a.size].reshape(a.shape))
        i += a.size
    if i != x.size:
        raise ValueError(f"vector has {x.size} entries; the network has {i} weights")
    return SRNParams(*out)


def summed_error(params: SRNParams, strings, config: TrainConfig, grammar=None) -> float:
    r"""The summed squared error :math:`\sum_s \frac12 \sum_o e_o(s)^2` over all steps of ``strings``.

    The loss whose gradient untruncated BPTT computes (chapter 7); evaluated
    by a forward pass only, so central differences of it check a learning rule.
    """
    g = _check_net(params, config, grammar)
    strings = _check_letters(strings, g, "strings")
    if not strings:
        raise ValueError("strings must hold at least one string, got none")
    enc = [g.encode(s) for s in strings]
    y, _ = srn_forward(params, enc, **_attention(config))
    targets = np.eye(y.shape[-1])[np.concatenate([e[1:] for e in enc])]
    return 0.5 * float(np.sum((targets - y) ** 2))


def params_from_data(data: dict) -> SRNParams:
    """The stacked final weights stored by :func:`train_condition` (``data["params"]``)."""
    checks.instance("data", data, dict, "a dict from train_condition (with its 'params')")
    stored = data.get("params")
    if not isinstance(stored, (list, tuple)) or len(stored) != len(SRNParams._fields):
        raise ValueError(f"data['params'] must hold the {len(SRNParams._fields)} weight arrays of "
                         f"train_condition ({', '.join(SRNParams._fields)}), got {checks.shown(stored)}")
    params = SRNParams(*(checks.array(k, a, finite=False) for k, a in zip(SRNParams._fields, stored)))
    check_params(params, "data['params']")  # their shapes fit together
    return params

