"""Scoring a network's predictions on grammar strings.

Sources
-------
* Servan-Schreiber, Cleeremans & McClelland (1991) (``papers/004``):
  acceptance with threshold 0.3 (section 2.5; O'Connell chapter 1 states the
  0.3); generalisation to the 22 unseen strings (section 3.3: "incorrect
  prediction (activation of an incorrect successor > 0.05)" and "failed to
  predict one of two continuations consistent with the grammar and length
  constraints"); hits, errors and misses at the exit of the embedded
  sub-grammar (section 5.2, note 9: the Luce ratio, criterion 0.6; Figure 19).
* O'Connell (1995) (``papers/003``), chapters 1, 2 and 4: "embed" (% of test
  strings in which all of the embedded symbols were successfully predicted,
  activation > 0.3) and "final" (the symbol before E predicted with Luce ratio
  > 0.6).

Layout
------
A string ``s`` (a full string, with B and E) of ``len(s)`` symbols is
presented as ``T = len(s) - 1`` inputs ``s[0] .. s[T-1]``; at step ``t`` the
target is ``s[t + 1]``.  Its output activations have shape ``(T, n_out)`` with
``n_out = len(grammar.alphabet)``.  Every function takes ``activations`` as a
list of such arrays (one per string), or as one flat ``(sum T, n_out)`` array
plus ``offsets`` of shape ``(n_strings + 1,)``.

=====================================  ========================================
paper                                  code
=====================================  ========================================
"predicted" (activation > 0.3)         ``act[t, s[t+1]] > threshold``
Luce ratio (note 9)                    :func:`luce_ratio`: ``act / act.sum()``
hit / error / miss (section 5.2)       :func:`exit_outcomes`
embed, final (O'Connell)               :func:`embed_predicted`, :func:`final_predicted`
                                       (:func:`embed_final_many`: many networks at once)
incorrect / missed (section 3.3)       :func:`generalisation_counts`
=====================================  ========================================
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._numerics.checks import array, count, items, real
from .grammars import check_grammar, check_strings

__all__ = ["as_activation_list", "luce_ratio", "successor_activations", "accepted",
           "indicator_position", "embed_predicted", "final_predicted", "embed_final_many",
           "exit_outcomes", "outcome_percentages", "outcomes_by_embedding_length",
           "GeneralisationCounts", "legal_successors", "generalisation_counts"]


def as_activation_list(activations, strings, grammar, offsets=None) -> list:
    """Validate activations against strings and return them as a list of ``(T_i, n_out)`` arrays.

    Parameters
    ----------
    activations : list of array_like, or array_like of shape (sum T_i, n_out)
        Output activations; a flat array needs ``offsets``.
    strings : sequence of str
        Full strings (with B and E), one per activation array.
    grammar : FiniteStateGrammar
        Gives the alphabet (unit order) and validates the letters.
    offsets : array_like of int, shape (n_strings + 1,), optional
        String ``i`` is ``activations[offsets[i]:offsets[i + 1]]``.
    """
    strings = check_strings(strings, 'strings')
    grammar = check_grammar(grammar)
    strings = list(strings)
    for s in strings:
        grammar.validate(s)
    n_out = len(grammar.alphabet)
    if offsets is not None:
        flat = array("activations", activations, (None, n_out), finite=False)
        offsets = array("offsets", offsets, (len(strings) + 1,), dtype="int")
        if offsets[0] != 0 or np.any(np.diff(offsets) < 0) or offsets[-1] != len(flat):
            raise ValueError(f"offsets must be non-decreasing, shape ({len(strings) + 1},), from 0 "
                             f"to len(activations)={len(flat)}; got {offsets!r}")
        acts = [flat[offsets[i]:offsets[i + 1]] for i in range(len(strings))]
    else:
        if isinstance(activations, np.ndarray):
            raise TypeError("a flat activation array needs offsets; or pass a list of (T, n_out) arrays")
        acts = [array(f"activations[{i}]", a, finite=False) for i, a in
                enumerate(items("activations", activations, "(T, n_out) arrays, one per string"))]
    if len(acts) != len(strings):
        raise ValueError(f"got {len(acts)} activation arrays for {len(strings)} strings")
    for a, s in zip(acts, strings):
        if a.shape != (len(s) - 1, n_out):
            raise ValueError(f"activations for string {s!r} have shape {a.shape}; expected "
                             f"({len(s) - 1}, {n_out}): one row per input symbol (all but the last), "
                             f"one column per symbol of {grammar.alphabet}")
    return acts


def luce_ratio(activations) -> np.ndarray:
    """Each activation divided by the sum of the activations of its row (Luce 1963; note 9)."""
    a = array("activations", activations, finite=False)
    if np.any(a < 0):
        raise ValueError("Luce ratios need non-negative activations (logistic outputs)")
    return a / a.sum(axis=-1, keepdims=True)


def successor_activations(activations, strings, grammar, offsets=None) -> list:
    """Activation of the actual successor at each step: ``act[t, s[t+1]]``, one array per string."""
    acts = as_activation_list(activations, strings, grammar, offsets)
    return [a[np.arange(len(a)), grammar.encode(s)[1:]] for a, s in zip(acts, strings)]


def accepted(activations, strings, grammar, threshold: float = 0.3, offsets=None) -> np.ndarray:
    """Whether each string is accepted: its actual successor is above ``threshold`` at every step.

    Section 2.5 and O'Connell chapter 1 ("a symbol was considered predicted if
    the activation of the output unit ... was greater than 0.3").  All steps
    count, the prediction of the first letter after B and of E included.

    Returns
    -------
    ndarray of bool, shape (n_strings,)
    """
    threshold = real("threshold", threshold)
    return np.array([bool(np.all(x > threshold))
                     for x in successor_activations(activations, strings, grammar, offsets)], dtype=bool)


def indicator_position(string: str) -> int:
    """Position of the indicator symbol whose match precedes E (O'Connell's grammars, section 5.2's).

    1 in the embedded Reber grammar and the embedded sub-grammar (``B T ... T E``);
    after the ``X...XV`` run in the time-varying indicator grammar (O'Connell
    ch. 6): just before the embedded string's own ``B`` (``BXXVT BTXSE TE``: 4)
    or, in the thesis's framing without the inner ``B``, just after the ``V``
    (``BXXVT TXS TE``: 4).
    """
    if not isinstance(string, str):
        raise TypeError(f"string must be a str of letters, got {string!r}")
    inner_b = string.find("B", 1)
    if inner_b > 0:
        return inner_b - 1
    if len(string) > 1 and string[1] in "XV":  # time-varying prefix X...XV, thesis framing
        return string.index("V", 1) + 1
    return 1


def embed_predicted(activations, strings, grammar, threshold: float = 0.3, offsets=None) -> np.ndarray:
    """O'Connell's "embed": every embedded symbol was predicted (successor activation > ``threshold``).

    The embedded symbols are those strictly between the indicator (see
    :func:`indicator_position`) and its match before E: in ``B T [BTXSE] T E``
    the Reber string with its own B and E.  Symbol ``s[j]`` is predicted at
    step ``j - 1``.  The indicator itself and the final symbols are not
    embedded (the last is scored by :func:`final_predicted`).

    Returns
    -------
    ndarray of bool, shape (n_strings,)
    """
    threshold = real("threshold", threshold)
    succ = successor_activations(activations, strings, grammar, offsets)
    out = []
    for x, s in zip(succ, strings):
        i = indicator_position(s)
        out.append(bool(np.all(x[i:len(s) - 3] > threshold)))  # targets s[i+1] .. s[len-3]
    return np.array(out, dtype=bool)


def final_predicted(activations, strings, grammar, criterion: float = 0.6, offsets=None) -> np.ndarray:
    """O'Connell's "final": the symbol before E was predicted with Luce ratio > ``criterion``.

    The target is ``s[-2]`` (the matching indicator), predicted at step
    ``len(s) - 3``; its Luce ratio is its activation over the sum of all
    output activations at that step.

    Returns
    -------
    ndarray of bool, shape (n_strings,)
    """
    criterion = real("criterion", criterion)
    acts = as_activation_list(activations, strings, grammar, offsets)
    return np.array([luce_ratio(a[len(s) - 3])[grammar.alphabet.index(s[-2])] > criterion
                     for a, s in zip(acts, strings)], dtype=bool)


def embed_final_many(activations, strings, grammar, offsets, threshold: float = 0.3,
                     criterion: float = 0.6) -> tuple[np.ndarray, np.ndarray]:
    """:func:`embed_predicted` and :func:`final_predicted` of ``R`` networks at once.

    The same measures, computed with array operations over every string and
    network (testing 20 networks on 1000 strings takes milliseconds instead of
    seconds); ``tests/test_metrics.py`` checks it against the two definitions.

    Parameters
    ----------
    activations : array_like, shape (R, sum T_i, n_out)
        Flat output activations of ``R`` networks (as :func:`tempnets.models.srn.srn_forward` returns).
    strings, grammar, offsets
        As in :func:`embed_predicted` (``offsets`` is required).

    Returns
    -------
    embed_ok, final_ok : ndarray of bool, shape (R, n_strings)
    """
    y = array("activations", activations, finite=False)
    if y.ndim != 3 or y.shape[0] < 1:
        raise ValueError(f"activations must have shape (R, steps, n_out); got {y.shape}")
    threshold, criterion = real("threshold", threshold), real("criterion", criterion)
    strings = check_strings(strings, "strings")
    as_activation_list(y[0], strings, grammar, offsets)  # validates strings, shapes, offsets
    return _embed_final_of(y, _embed_final_steps(strings, grammar, offsets), threshold, criterion)


def _embed_final_steps(strings, grammar, offsets) -> tuple:
    """What :func:`embed_final_many` reads of the strings, computed once for a test set that
    is scored again and again: ``(succ, first, last, step, want)``, the successor of every
    step, each string's first and (exclusive) last embed step, its final step and the
    symbol wanted there.  ``strings`` validated, ``offsets`` the step offsets."""
    off = np.asarray(offsets, dtype=np.int64)
    lens = np.diff(off)  # T_i = len(s) - 1
    succ = np.concatenate([grammar.encode(s)[1:] for s in strings]) if strings \
        else np.zeros(0, np.int64)
    first = off[:-1] + np.array([indicator_position(s) for s in strings], dtype=np.int64)
    last = off[:-1] + lens - 2  # exclusive: targets s[i+1] .. s[len-3]
    step = off[:-1] + lens - 2  # the final prediction: s[-2] at step T - 2 (= len(s) - 3)
    want = np.array([grammar.alphabet.index(s[-2]) for s in strings], dtype=np.int64)
    return succ, first, last, step, want


def _embed_final_of(y, steps, threshold, criterion) -> tuple[np.ndarray, np.ndarray]:
    """:func:`embed_final_many` of activations ``y`` ``(R, steps, n_out)``, given
    :func:`_embed_final_steps` of their strings."""
    succ, first, last, step, want = steps
    hit = y[:, np.arange(y.shape[1]), succ] > threshold  # (R, steps)
    # embed: steps off + indicator .. off + T - 3 all hit; count misses by cumulative sums
    miss = np.concatenate([np.zeros((y.shape[0], 1), np.int64),
                           np.cumsum(~hit, axis=1, dtype=np.int64)], axis=1)
    embed_ok = miss[:, np.maximum(last, first)] - miss[:, first] == 0
    # final: Luce ratio of s[-2] at step T - 2 (= len(s) - 3)
    rows = y[:, step, :]
    final_ok = rows[:, np.arange(len(want)), want] / rows.sum(axis=-1) > criterion
    return embed_ok, final_ok


def exit_outcomes(activations, strings, grammar, choices: str = "TP", criterion: float = 0.6,
                  offsets=None) -> np.ndarray:
    """Hit, error or miss at the exit of the embedding (section 5.2, note 9).

    At the step that predicts ``s[-2]`` (the letter matching the first one),
    take the larger of the ``choices`` activations; its Luce ratio (over the
    sum of *all* output activations) below ``criterion`` is a ``"miss"``;
    otherwise ``"hit"`` if that letter is ``s[-2]``, else ``"error"``.

    Returns
    -------
    ndarray of str, shape (n_strings,)
        ``"hit"``, ``"error"`` or ``"miss"`` per string.
    """
    acts = as_activation_list(activations, strings, grammar, offsets)
    criterion = real("criterion", criterion)
    if not isinstance(choices, str) or not choices or any(c not in grammar.alphabet for c in choices):
        raise ValueError(f"choices must be a non-empty string of letters of {grammar.alphabet!r}, "
                         f"got {choices!r:.60}")
    idx = [grammar.alphabet.index(c) for c in choices]
    out = []
    for a, s in zip(acts, strings):
        row = a[len(s) - 3]
        best = idx[int(np.argmax(row[idx]))]
        if luce_ratio(row)[best] < criterion:
            out.append("miss")
        else:
            out.append("hit" if grammar.alphabet[best] == s[-2] else "error")
    return np.array(out)


def outcome_percentages(outcomes) -> dict:
    """Percentages of ``"hit"``, ``"error"`` and ``"miss"`` among ``outcomes``."""
    o = np.asarray(outcomes)
    if o.size == 0:
        raise ValueError("no outcomes to summarise")
    return {k: 100.0 * float(np.mean(o == k)) for k in ("hit", "error", "miss")}


def outcomes_by_embedding_length(outcomes, strings, group_from: int = 7) -> dict:
    """Hits and errors (%) by embedding length, as in Figure 19.

    The embedding length of ``B T ... T E`` is the number of letters between
    the matching letters (``len(s) - 4``); lengths ``>= group_from`` are
    grouped ("All the cases with 7 or more letters in the embedding were
    grouped together").

    Returns
    -------
    dict
        ``lengths`` (list of labels, the last ``"7+"``), ``hit``, ``error``,
        ``miss`` (ndarrays of %) and ``count`` (ndarray of int).
    """
    o = np.asarray(items("outcomes", outcomes, "'hit', 'error' or 'miss'"), dtype=object)
    strings = check_strings(strings, "strings")
    group_from = count("group_from", group_from, 1)
    lengths = np.array([min(len(s) - 4, group_from) for s in strings], dtype=np.int64)
    if len(o) != len(lengths):
        raise ValueError(f"{len(o)} outcomes for {len(lengths)} strings")
    keys = sorted(set(lengths.tolist()))
    res = {"lengths": [f"{k}+" if k == group_from else str(k) for k in keys],
           "count": np.array([np.sum(lengths == k) for k in keys])}
    for name in ("hit", "error", "miss"):
        res[name] = np.array([100.0 * np.mean(o[lengths == k] == name) for k in keys])
    return res


class GeneralisationCounts(NamedTuple):
    """Result of :func:`generalisation_counts`.

    Attributes
    ----------
    n_predictions : int
        Number of steps scored.
    n_incorrect, n_missed, n_both : int
        Steps with an illegal successor above ``incorrect_above``; two-way
        steps with a legal successor at or below ``missed_at_or_below``;
        steps with both.
    incorrect, missed : list of ndarray of bool
        The per-step flags, one array per string.
    n_two_way : int
        Steps with two or more legal successors (the only ones that can be missed).
    """

    n_predictions: int
    n_incorrect: int
    n_missed: int
    n_both: int
    incorrect: list
    missed: list
    n_two_way: int = 0


def legal_successors(prefix: str, language) -> frozenset:
    """Symbols that continue ``prefix`` in some string of the finite ``language``."""
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be a str of letters, got {type(prefix).__name__}")
    return _successors_in(prefix, check_strings(language, "language"))


def _successors_in(prefix: str, language) -> frozenset:
    """:func:`legal_successors` without its checks (called for every step of every string)."""
    return frozenset(s[len(prefix)] for s in language if len(s) > len(prefix) and s.startswith(prefix))


def generalisation_counts(activations, strings, grammar, language=None, incorrect_above: float = 0.05,
                          missed_at_or_below: float = 0.3, offsets=None) -> GeneralisationCounts:
    """Incorrect and missed predictions (section 3.3, generalisation to the 22 unseen strings).

    The paper: "Over the 165 predictions of successors in these strings, the
    network made an incorrect prediction (activation of an incorrect successor
    > 0.05) in only 10 cases, and it failed to predict one of two
    continuations consistent with the grammar and length constraints in 10
    other cases."  We score every step ``t`` (the prediction after ``B``
    included): it is *incorrect* if a symbol that cannot follow ``s[:t+1]``
    has activation ``> incorrect_above``; it is *missed* if it has two (or
    more) legal successors and one of them has activation
    ``<= missed_at_or_below`` (0.3, the acceptance threshold of section 2.5;
    the paper does not state this value).  A step with a single legal
    successor cannot miss "one of two continuations".  "Legal" means
    consistent with the grammar and the length constraints: a successor of
    the prefix in some string of ``language`` (pass the 43 strings of 3–8
    letters).  The paper's 165 cannot be recovered from the text; the 22
    strings' steps are counted in ``n_predictions`` and ``n_two_way``.

    Parameters
    ----------
    language : iterable of str, optional
        The finite set of strings defining legality; default: the grammar's
        own successors (no length constraint).
    """
    acts = as_activation_list(activations, strings, grammar, offsets)
    language = None if language is None else tuple(check_strings(language, "language"))
    incorrect_above = real("incorrect_above", incorrect_above)
    missed_at_or_below = real("missed_at_or_below", missed_at_or_below)
    inc, mis, two_way = [], [], 0
    for a, s in zip(acts, strings):
        i_flags, m_flags = np.zeros(len(a), bool), np.zeros(len(a), bool)
        for t in range(len(a)):
            prefix = s[:t + 1]
            legal = grammar.successors(prefix) if language is None else _successors_in(prefix, language)
            if not legal:
                raise ValueError(f"{prefix!r} (a prefix of {s!r}) has no legal successor in the language")
            mask = np.array([c in legal for c in grammar.alphabet])
            i_flags[t] = np.any(a[t, ~mask] > incorrect_above)
            if mask.sum() >= 2:
                two_way += 1
                m_flags[t] = np.any(a[t, mask] <= missed_at_or_below)
        inc.append(i_flags)
        mis.append(m_flags)
    n = sum(len(x) for x in inc)
    both = sum(int(np.sum(x & y)) for x, y in zip(inc, mis))
    return GeneralisationCounts(n, sum(int(x.sum()) for x in inc), sum(int(x.sum()) for x in mis),
                                both, inc, mis, two_way)
