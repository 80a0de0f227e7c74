r"""Experiments of Servan-Schreiber, Cleeremans & McClelland (1991), *Graded
State Machines* (``papers/004``), as runners for ``python -m tempnets
reproduce`` and for the chapter ``book/graded_state_machines``.

Each runner has the signature ``run_*(scale, seed, jobs, progress) -> Result``
(see :mod:`tempnets.experiments`) and returns the experiment's claims table
and JSON-serialisable data (final weights included, as nested lists, so the
chapter can draw the paper's figures from exactly the networks the claims are
about).

==========================  =====================================================
runner                      paper
==========================  =====================================================
:func:`run_reber_count`     §3.1: 43 strings of 3–8 letters
:func:`run_reber_3hu`       §2.4–2.5, Figures 5–8, 11: 3 (and 15) hidden units
                            on 60,000 random Reber strings; acceptance tests
:func:`run_21_strings`      §3, Figures 12–15: 21 strings, 15 units, 2000 epochs
:func:`run_acp`             §4, Figure 17, note 6: learning phases and ACPs
:func:`run_problem3`        §5.1: PSSSP vs TSSST, the plateau and the size sweep
:func:`run_embedded`        §5.2, Figures 18–20: the embedded sub-grammar
==========================  =====================================================

The learning rule is the paper's (note 1): the SRN rule (BPTT(2, 1)), one
update per letter, weights uniform in [-0.5, 0.5], learning rate 0.01 and
momentum 0.9 (:data:`RULE`; note 1 gives 0.01–0.02 and 0.5–0.9 without saying
which run used which; with momentum 0.5 none of 10 three-unit networks
learned the grammar in 60,000 strings, so we use the top of the range
everywhere).
"""

from __future__ import annotations

import contextlib
import math

import numpy as np

from . import analysis, claims, metrics
from .experiments import Result
from .grammars import (SERVAN_SCHREIBER_TRAINING, embedded_subgrammar, generalisation_strings,
                       n_letters, reber)
from .random import as_generator
from .scale import choose
from .srn import SRNParams, srn_forward
from .training import TrainConfig, train_epochs, train_online

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


def config(n_hidden: int, **changes) -> TrainConfig:
    """The paper's network and rule (note 1) with ``n_hidden`` hidden units and :data:`RULE`."""
    return TrainConfig.servan_schreiber(n_hidden=n_hidden, **{**RULE, **changes})


def _sub(seed: int, *keys: int) -> int:
    """An integer seed derived from ``seed`` and ``keys`` (independent streams per experiment part)."""
    return int(np.random.SeedSequence([int(seed), *map(int, keys)]).generate_state(1)[0])


@contextlib.contextmanager
def _threads(jobs: int):
    """Run numba's parallel loops on ``jobs`` threads (results do not depend on it)."""
    import numba

    old = numba.get_num_threads()
    numba.set_num_threads(max(1, min(int(jobs), numba.config.NUMBA_NUM_THREADS)))
    try:
        yield
    finally:
        numba.set_num_threads(old)


def params_to_lists(params: SRNParams) -> dict:
    """JSON form of one network's weights (inverse: :func:`params_from_lists`)."""
    return {k: np.asarray(v).tolist() for k, v in params._asdict().items()}


def params_from_lists(d: dict) -> SRNParams:
    """Rebuild :class:`~tempnets.srn.SRNParams` from :func:`params_to_lists` output."""
    return SRNParams(*(np.asarray(d[k], dtype=np.float64) for k in SRNParams._fields))


# ----------------------------------------------------------------- network tests
def outputs(params: SRNParams, grammar, strings, return_hidden: bool = False):
    """Output (and hidden) activations of one network on full strings, as lists per string."""
    y, off, h = srn_forward(params, [grammar.encode(s) for s in strings], return_hidden=True)
    ys = [y[off[i]:off[i + 1]] for i in range(len(strings))]
    if not return_hidden:
        return ys
    return ys, [h[off[i]:off[i + 1]] for i in range(len(strings))]


def accepts(params: SRNParams, grammar, strings, threshold: float = THRESHOLD) -> np.ndarray:
    """Whether one network accepts each string (successor > ``threshold`` at every step, §2.5)."""
    return metrics.accepted(outputs(params, grammar, strings), strings, grammar, threshold)


def random_sequences(n: int, rng=None, letters: str = "TSPXVE", alphabet: str = "BTSPXVE",
                     end: str = "E") -> tuple:
    """The random letter sequences of §2.5: B, then letters drawn uniformly until ``end``.

    "The network is first presented with the 'B' and one of the five letters
    or 'E' is then selected at random as a successor ... until 'E' is
    selected."  The paper interrupts a sequence as soon as the network does
    not predict the drawn letter; that interruption does not change whether
    the sequence is accepted (accepted = every drawn letter predicted), so
    we draw whole sequences first and test them afterwards
    (:func:`accept_flat`).

    Returns
    -------
    flat, offsets : ndarray of int64
        Sequences as symbol indices into ``alphabet`` (see
        :func:`tempnets.srn.as_flat_strings`), each ``B ... E``.
    """
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    if end not in letters or any(c not in alphabet for c in letters):
        raise ValueError(f"letters {letters!r} must contain {end!r} and be in {alphabet!r}")
    gen = as_generator(rng)
    codes = np.array([alphabet.index(c) for c in letters], dtype=np.int64)
    e = alphabet.index(end)
    draws = np.zeros(0, np.int64)
    while np.count_nonzero(draws == e) < n:
        draws = np.concatenate([draws, codes[gen.integers(0, len(codes), size=8 * n + 64)]])
    stop = np.flatnonzero(draws == e)[n - 1] + 1 if n else 0
    draws = draws[:stop]
    ends = np.flatnonzero(draws == e)  # index of each E in draws
    starts = np.concatenate([[0], ends[:-1] + 1])
    lengths = ends - starts + 2  # B + letters + E
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    flat = np.empty(offsets[-1], np.int64)
    flat[offsets[:-1]] = alphabet.index("B")
    mask = np.ones(flat.size, bool)
    mask[offsets[:-1]] = False
    flat[mask] = draws
    return flat, offsets


def accept_flat(params: SRNParams, flat, offsets, threshold: float = THRESHOLD) -> np.ndarray:
    """Acceptance (§2.5) of symbol sequences given as ``(flat, offsets)``, for one network.

    Same rule as :func:`tempnets.metrics.accepted` (the actual successor above
    ``threshold`` at every step), vectorised for the 130,000 sequences.
    """
    y, soff = srn_forward(params, flat, offsets)
    targets = np.delete(flat, offsets[:-1])  # every symbol but the first of each string
    succ = y[np.arange(len(y)), targets]
    return np.minimum.reduceat(succ, soff[:-1]) > threshold


def grammatical_flat(grammar, flat, offsets) -> np.ndarray:
    """Whether each ``(flat, offsets)`` sequence is a complete string of a deterministic grammar."""
    t = grammar.tables()
    sym, tgt = t.symbol.tolist(), t.target.tolist()
    step = [{s: g for s, g in zip(sym[i], tgt[i]) if s >= 0} for i in range(len(sym))]
    out = np.zeros(len(offsets) - 1, bool)
    fl = flat.tolist()
    for i in range(len(offsets) - 1):
        state, ok = t.start, True
        a, b = int(offsets[i]), int(offsets[i + 1])
        for q in range(a, b):
            if state < 0 or fl[q] not in step[state]:
                ok = False
                break
            state = step[state][fl[q]]
        out[i] = ok and state == -1
    return out


def random_grammatical_probability(grammar, letters: str = "TSPXVE") -> float:
    """Exact probability that a §2.5 random sequence is a string of ``grammar``.

    After B, each draw picks one of ``letters`` with probability
    ``1/len(letters)``; the sequence is grammatical if every draw follows an
    arc, the last one an arc that ends the string.  With ``M[s, s']`` the
    probability of a draw moving ``s`` to ``s'`` and ``e[s]`` that of ending,
    the answer is ``(I - M)^{-1} e`` at the state after B.
    """
    t = grammar.tables()
    n = t.symbol.shape[0]
    k = len(letters)
    codes = {grammar.alphabet.index(c) for c in letters}
    m, e = np.zeros((n, n)), np.zeros(n)
    for s in range(n):
        for sym, tgt in zip(t.symbol[s], t.target[s]):
            if sym in codes:
                if tgt < 0:
                    e[s] += 1.0 / k
                else:
                    m[s, tgt] += 1.0 / k
    first = grammar.tables().target[t.start][0]  # the state after B
    return float(np.linalg.solve(np.eye(n) - m, e)[first])


def predicts_exactly_legal(params: SRNParams, grammar, string: str,
                           threshold: float = THRESHOLD) -> np.ndarray:
    """Per step of ``string``: every legal successor above ``threshold`` and every other at or below.

    §2.5 on the extremely long strings: "at every step, the network correctly
    predicted both legal successors and no others".
    """
    y = outputs(params, grammar, [string])[0]
    ok = np.zeros(len(y), bool)
    for t in range(len(y)):
        legal = np.array([c in grammar.successors(string[:t + 1]) for c in grammar.alphabet])
        ok[t] = np.all(y[t, legal] > threshold) and np.all(y[t, ~legal] <= threshold)
    return ok


def node_separability(hidden, nodes, a: str = "#1", b: str = "#3") -> float:
    """How well the hidden states tell node ``a`` from node ``b``: nearest-centroid accuracy.

    Each pattern at node ``a`` or ``b`` is assigned to the nearer of the two
    nodes' mean hidden patterns; the share assigned correctly.  1.0: the
    nodes are kept apart; about 0.5: merged.  Nodes #1 and #3 of the Reber
    grammar predict the same letters (S or X), so nothing in the output
    error of the moment keeps them apart; a network that merges them cannot
    know whether an S leads to E (REPLICATION.md: three-unit networks that
    merge them fail).
    """
    h = np.asarray(hidden, dtype=float)
    nodes = np.asarray(nodes)
    if not (np.any(nodes == a) and np.any(nodes == b)):
        raise ValueError(f"need patterns at both nodes {a!r} and {b!r}")
    ca, cb = h[nodes == a].mean(axis=0), h[nodes == b].mean(axis=0)
    sel = (nodes == a) | (nodes == b)
    x = h[sel]
    pred = np.where(np.linalg.norm(x - ca, axis=1) <= np.linalg.norm(x - cb, axis=1), a, b)
    return float(np.mean(pred == nodes[sel]))


# ------------------------------------------------------------------ experiment 0
def run_reber_count(scale="book", seed=0, jobs=1, progress=None) -> Result:
    """§3.1: the Reber grammar generates exactly 43 strings of 3 to 8 letters.

    Exhaustive enumeration; ``scale``, ``seed``, ``jobs`` and ``progress``
    do not affect it (there is nothing random or long about it).
    """
    strings = reber().enumerate(max_letters=8, min_letters=3)
    by_length = {n: sum(n_letters(s) == n for s in strings) for n in range(3, 9)}
    table = claims.ClaimsTable("The Reber grammar (Servan-Schreiber et al. 1991, §3.1)")
    table.add("number of strings of 3 to 8 letters", "§3.1", 43, len(strings), claims.within(0))
    return Result(table, {"strings": strings, "by_length": by_length})


# ------------------------------------------------------------------ experiment 1
def run_reber_3hu(scale="book", seed=0, jobs=1, progress=None) -> Result:
    """§2.4–2.5 (Figures 5–8, 11): three hidden units, 60,000 random Reber strings.

    Trains ``R`` three-unit networks on 60,000 strings each (the paper's size,
    at both scales; the paper reports one network, so ``R`` is ours, to give
    the rate at which three units fail), picks the first that accepts all of
    2,000 *validation* strings, and runs the paper's tests on it with fresh
    strings: 20,000 grammatical strings; 130,000 random sequences
    (:func:`random_sequences`); the long string :data:`LONG_STRING`.  Also
    trains fifteen-unit networks on 20,000 strings ("a network with 15
    hidden units reached criterion after 20,000 strings") and compares how
    cleanly the two sizes' hidden states cluster by grammar node (Figures 8,
    11), on 200 random strings.

    Scales: ``book`` 20 three-unit and 6 fifteen-unit networks; ``paper`` 100
    and 20.
    """
    g = reber()
    r3, r15 = choose(20, 100, scale), choose(6, 20, scale)
    table = claims.ClaimsTable("Three hidden units on the Reber grammar (§2.4–2.5, Figures 8, 11)")
    with _threads(jobs):
        h3 = train_online(g.tables(), 60_000, config=config(3), n_networks=r3,
                          rng=_sub(seed, 1, 1), progress=progress)
        h15 = train_online(g.tables(), 20_000, config=config(15), n_networks=r15,
                           rng=_sub(seed, 1, 2), progress=progress)
        valid = g.sample(2000, rng=_sub(seed, 1, 3))
        test = g.sample(20_000, rng=_sub(seed, 1, 4))
        valid_acc = [accepts(h3.params.network(k), g, valid) for k in range(r3)]
        learned3 = [bool(a.all()) for a in valid_acc]
        valid_rate3 = [float(a.mean()) for a in valid_acc]
        crit15 = [float(accepts(h15.params.network(k), g, test).mean()) for k in range(r15)]
        # the hidden states of 200 random strings, labelled by grammar node
        probe = g.sample(200, rng=_sub(seed, 1, 5))
        nodes = analysis.node_labels(g, probe)

        def purity(p):
            hid = np.concatenate(outputs(p, g, probe, return_hidden=True)[1])
            return analysis.cluster_purity(analysis.cluster_hidden_states(hid), nodes, 6), hid

        sep13 = []
        for k in range(r3):
            hid = np.concatenate(outputs(h3.params.network(k), g, probe, return_hidden=True)[1])
            sep13.append(node_separability(hid, nodes))
        failed = [k for k in range(r3) if not learned3[k]]
        best = next((k for k in range(r3) if learned3[k]), None)
        data = {"n_networks_3": r3, "n_networks_15": r15, "learned_3": learned3,
                "validation_acceptance_3": valid_rate3, "separability_13": sep13, "acceptance_15_at_20000": crit15, "chosen_3": best}
        n_ok = sum(learned3)
        merged = sum(1 for k in failed if sep13[k] < 0.9)
        table.add("some 3-unit SRNs learn the grammar in 60,000 strings (accept all 2,000 "
                  "validation strings)", "§2.5", "1 network shown", n_ok, claims.at_least(1),
                  note=f"{n_ok} of {r3} seeds; {merged} of the {len(failed)} failures tell nodes #1 "
                       f"and #3 apart in < 90% of states")
        if best is None:
            return Result(table, data)
        p3 = h3.params.network(best)
        acc = accepts(p3, g, test)
        flat, off = random_sequences(130_000, rng=_sub(seed, 1, 6))
        gram = grammatical_flat(g, flat, off)
        acc_r = accept_flat(p3, flat, off)
        long_ok = predicts_exactly_legal(p3, g, LONG_STRING)
        pur3, hid3 = purity(p3)
        pur3_fine = analysis.cluster_purity(analysis.cluster_hidden_states(hid3), nodes, 8)
        k15 = int(np.argmax(crit15))
        pur15, _ = purity(h15.params.network(k15))
    p_exact = random_grammatical_probability(g)
    table.add("accepts 20,000 random grammatical strings (threshold 0.3)", "§2.5", 100.0,
              100 * float(acc.mean()), claims.at_least(99.9), note=f"network {best}; %")
    table.add("% of 130,000 random sequences that are grammatical", "§2.5", 0.2,
              100 * float(gram.mean()), claims.within(0.05),
              note=f"exact expectation {100 * p_exact:.3f}%; {int(gram.sum())} sequences")
    table.add("accepts the grammatical random sequences", "§2.5", 100.0,
              100 * float(acc_r[gram].mean()), claims.at_least(99.0), note="%")
    table.add("rejects the non-grammatical random sequences", "§2.5", 100.0,
              100 * float(1 - acc_r[~gram].mean()), claims.at_least(99.9), note="%")
    table.add("predicts both legal successors and no others at every step of a very long string",
              "§2.5", "yes", bool(long_ok.all()), claims.is_true(),
              note=f"{len(LONG_STRING) - 2} letters; {int(long_ok.sum())}/{len(long_ok)} steps")
    table.add("3-unit hidden states cluster by grammar node (purity of a 6-cluster cut)",
              "Figure 8A", "by node", pur3, claims.at_least(0.95), expected=False,
              note="200 strings")
    table.add("... by node, then path: every cluster of an 8-cluster cut holds one node "
              "(purity; added after the 6-cluster test, see the chapter)", "Figure 8A, 8B",
              "node, then path", pur3_fine, claims.at_least(0.95))
    table.add("15 hidden units: representations follow the nodes less closely than with 3",
              "§2.5, Figure 11", "nodes 4, 5 only", pur15 < pur3, claims.is_true(),
              note=f"purity {pur15:.3f} vs {pur3:.3f}")
    share = float(np.mean([c >= 0.999 for c in crit15]))
    table.add("15-unit networks reach criterion after 20,000 strings (accept ≥ 99.9% of 20,000)",
              "§2.5", "1 network shown", 100 * share, claims.at_least(50.0),
              note=f"% of {r15} networks; acceptance {', '.join(f'{100 * c:.1f}' for c in crit15)}")
    data.update({"params_3": params_to_lists(p3), "params_15": params_to_lists(h15.params.network(k15)),
                 "chosen_15": k15, "accept_test_3": float(acc.mean()),
                 "random_grammatical": int(gram.sum()), "random_n": int(len(gram)),
                 "random_grammatical_exact": p_exact,
                 "random_accepted_grammatical": int(acc_r[gram].sum()),
                 "random_accepted_ungrammatical": int(acc_r[~gram].sum()),
                 "long_string": LONG_STRING, "long_ok_steps": int(long_ok.sum()),
                 "purity_3": pur3, "purity_15": pur15,
                 "purity_3_fine": pur3_fine, "failed": failed})
    return Result(table, data)


# ------------------------------------------------------------------ experiment 2
FIGURE13_14 = (
    # (prefix, successors the length constraint allows, the one it excludes, figure)
    ("BTXX", "TV", "", "13a"),
    ("BTXXVPX", "V", "T", "13b"),
    ("BTSSXXV", "PV", "", "14a"),
    ("BTSSSXXV", "V", "P", "14b"),
)
"""The states of Figures 13–14: after ``prefix`` the 43-string language allows the given letters.

13a: after the second X of ``txX...`` both T and V may follow; 13b: after a
*second* presentation of the second X (``txxvpX``) only V, since a T would
make the string longer than 8 letters; 14a/b: the first V after ``ssxx``
(P or V) versus after ``sssxx`` (only V).
"""


def length_constraint_predictions(params: SRNParams, grammar=None,
                                  threshold: float = THRESHOLD) -> list:
    """For each state of :data:`FIGURE13_14`: activations and whether the network honours the constraint.

    Honours = every allowed letter above ``threshold`` and the excluded one at or below it.
    """
    g = grammar or reber()
    out = []
    for prefix, allowed, excluded, fig in FIGURE13_14:
        y = outputs(params, g, [prefix + "E"])[0][-1]  # activations after the whole prefix
        ok = all(y[g.alphabet.index(c)] > threshold for c in allowed) and \
            all(y[g.alphabet.index(c)] <= threshold for c in excluded)
        out.append({"figure": fig, "prefix": prefix, "allowed": allowed, "excluded": excluded,
                    "activations": y.tolist(), "ok": bool(ok)})
    return out


def tss(params: SRNParams, grammar, strings) -> float:
    """Total sum of squared errors over every pattern of ``strings`` (the bp program's tss)."""
    total = 0.0
    for y, s in zip(outputs(params, grammar, strings), strings):
        t = np.eye(len(grammar.alphabet))[grammar.encode(s)[1:]]
        total += float(np.sum((t - y) ** 2))
    return total


def optimal_tss(grammar, strings) -> float:
    """The smallest tss any predictor can reach on a fixed training set.

    At each distinct prefix the best output is the relative frequency of
    each successor after that prefix in the set; the tss of that output.
    """
    from collections import Counter, defaultdict

    nxt = defaultdict(Counter)
    for s in strings:
        for t in range(len(s) - 1):
            nxt[s[:t + 1]][s[t + 1]] += 1
    total = 0.0
    for c in nxt.values():
        n = sum(c.values())
        p = np.array([c[a] / n for a in grammar.alphabet])
        for a, k in c.items():
            total += k * float(np.sum((np.eye(len(p))[grammar.alphabet.index(a)] - p) ** 2))
    return total


def run_21_strings(scale="book", seed=0, jobs=1, progress=None) -> Result:
    """§3 (Figures 12–15): 15 hidden units, the 21 training strings, 2000 epochs.

    The paper's own sizes at both scales (2000 epochs cost about one second
    per network); ``R`` networks (``book`` 5, ``paper`` 20, the paper shows
    one) give the spread.  Claims: tss plateaus near 50; the
    length-constraint predictions of Figures 13–14; generalisation to the 22
    unseen strings (§3.3), scored by
    :func:`tempnets.metrics.generalisation_counts` over every step.
    """
    g = reber()
    train = list(SERVAN_SCHREIBER_TRAINING)
    unseen = list(generalisation_strings())
    language = g.enumerate(8, 3)
    R = choose(5, 20, scale)
    with _threads(jobs):
        hist = train_epochs([g.encode(s) for s in train], n_epochs=2000, config=config(15),
                            n_networks=R, rng=_sub(seed, 2, 1), chunk_strings=21 * 50,
                            progress=progress)
        nets = [hist.params.network(k) for k in range(R)]
        tss_end = [tss(p, g, train) for p in nets]
        n_patterns = sum(len(s) - 1 for s in train)
        curve = (hist.sq_error * n_patterns).tolist()  # online tss per epoch, per 50-epoch chunk
        figs = [length_constraint_predictions(p, g) for p in nets]
        gen = [metrics.generalisation_counts(outputs(p, g, unseen), unseen, g, language=language)
               for p in nets]
    floor = optimal_tss(g, train)
    n_pred = gen[0].n_predictions
    inc = [100 * c.n_incorrect / n_pred for c in gen]
    mis = [100 * c.n_missed / n_pred for c in gen]
    table = claims.ClaimsTable("21 training strings, 15 hidden units, 2000 epochs (§3)")
    i1500 = int(np.searchsorted(hist.strings_seen, 1500 * 21))
    late = np.array(curve)[:, i1500:]
    drift = float(np.max(np.abs(late[:, -1] - late[:, 0]) / late[:, -1]))
    table.add("tss after 2000 epochs (mean of networks)", "§3.2", 50, float(np.mean(tss_end)),
              claims.relative(0.3),
              note=f"{R} networks, range {min(tss_end):.1f}–{max(tss_end):.1f}; {n_patterns} "
                   f"patterns (paper: 130); lowest possible tss {floor:.1f}")
    table.add("tss has reached a plateau (largest change over epochs 1500–2000, fraction)",
              "§3.2", "plateau", drift, claims.at_most(0.1))
    for j, (prefix, allowed, excluded, fig) in enumerate(FIGURE13_14):
        share = 100 * float(np.mean([f[j]["ok"] for f in figs]))
        what = (f"after {prefix[1:].lower()}: predicts {' and '.join(allowed)}"
                + (f", not {excluded} (length constraint)" if excluded else ""))
        table.add(what, f"Figure {fig}", "yes", share, claims.at_least(50.0),
                  note=f"% of {R} networks")
    table.add("incorrect predictions on the 22 unseen strings (%)", "§3.3", round(100 * 10 / 165, 1),
              float(np.mean(inc)), claims.at_most(2 * 100 * 10 / 165), expected=False,
              note=f"mean of {R}; paper 10 of 165, ours of {n_pred} steps; at most twice the paper's rate")
    table.add("missed predictions on the 22 unseen strings (%)", "§3.3", round(100 * 10 / 165, 1),
              float(np.mean(mis)), claims.at_most(2 * 100 * 10 / 165), expected=False,
              note=f"mean of {R}; missed = a legal successor ≤ 0.3")
    data = {"n_networks": R, "tss_end": tss_end, "tss_floor": floor, "n_patterns": n_patterns,
            "epochs": (hist.strings_seen / 21).tolist(), "tss_curve": curve,
            "figures13_14": figs, "incorrect_pct": inc, "missed_pct": mis,
            "n_incorrect": [c.n_incorrect for c in gen], "n_missed": [c.n_missed for c in gen],
            "n_predictions": n_pred, "params": params_to_lists(nets[0])}
    return Result(table, data)


# ------------------------------------------------------------------ experiment 3
def acp_pattern_design(corpus, strings, grammar, orders=range(7)):
    """Predictors for :func:`acp_pattern_r_squared`: ``P_n(letter | last n symbols)`` per pattern.

    One row per (pattern, letter that can follow the pattern's node): the
    11 (node, letter) pairs of note 6, at every presented symbol of
    ``strings``; probabilities from ``corpus``
    (:func:`tempnets.analysis.conditional_probabilities`).

    Returns
    -------
    rows : list of (int, int)
        ``(pattern index in the flat layout, letter index)``.
    x : ndarray, shape (n_orders, len(rows))
    """
    nodes = analysis.node_labels(grammar, strings)
    prefixes = [s[:t + 1] for s in strings for t in range(len(s) - 1)]
    keys = analysis.acp_keys(grammar, strings)
    rows = [(i, grammar.alphabet.index(letter)) for i, nd in enumerate(nodes)
            for node, letter in keys if node == nd]
    x = []
    for n in orders:
        cp = analysis.conditional_probabilities(corpus, grammar.alphabet, int(n))
        ctx = [p[max(0, len(p) - n):] if n > 0 else "" for p in prefixes]
        x.append([cp[ctx[i]][j] for i, j in rows])
    return rows, np.array(x)


def acp_pattern_r_squared(rows, x, activations) -> np.ndarray:
    """r² of each order's conditional probabilities against the network's outputs, pattern by pattern.

    Our reading of Figure 17's regression (see the chapter): the predictor
    is ``P_n(letter | last n symbols)`` for every pattern and legal letter
    (:func:`acp_pattern_design`), the dependent variable the network's
    activation of that letter at that pattern.  (Averaged per node first,
    as :func:`tempnets.analysis.acp_r_squared` does, the ACPs of orders
    2–6 coincide on the 43 strings, because two letters already determine
    the node; so that reading cannot show the succession of orders.)
    """
    a = np.asarray(activations, dtype=float)
    y = np.array([a[i, j] for i, j in rows])
    out = np.zeros(len(x))
    for k, xk in enumerate(x):
        if np.ptp(xk) > 0 and np.ptp(y) > 0:
            out[k] = np.corrcoef(xk, y)[0, 1] ** 2
    return out


def run_acp(scale="book", seed=0, jobs=1, progress=None) -> Result:
    """§4 (Figure 17, note 6): learning phases measured by average conditional probabilities.

    15 hidden units trained on all 43 strings of 3–8 letters for 1000 epochs,
    tested before training and every 50 epochs (21 tests); at each test the
    r² of the conditional probabilities of orders 0–6 (estimated from the 43
    strings, which *are* the training statistics) against the network's
    outputs (:func:`acp_pattern_r_squared`; the node-averaged r² of
    :func:`tempnets.analysis.acp_r_squared` is kept in the data for
    comparison).  The paper's sizes at both scales; ``R`` networks (``book``
    4, ``paper`` 20), r² averaged.  Training runs in 50-epoch calls, each
    starting with zero momentum (a small departure, see the chapter's
    fidelity note).
    """
    from scipy.stats import spearmanr

    from .srn import init_params

    g = reber()
    strings = g.enumerate(8, 3)
    enc = [g.encode(s) for s in strings]
    R = choose(4, 20, scale)
    acp = analysis.average_conditional_probabilities(strings, g, range(7))
    rows, x = acp_pattern_design(strings, strings, g, range(7))
    gen = as_generator(_sub(seed, 3, 1))
    params = init_params(7, 15, 7, r=0.5, rng=_sub(seed, 3, 2), n_networks=R)
    tests, r2, r2_node = [0], [], []

    def measure(p):
        y, _ = srn_forward(p, enc)
        r2.append([acp_pattern_r_squared(rows, x, y[k]) for k in range(R)])
        r2_node.append([analysis.acp_r_squared(acp, y[k], strings, g) for k in range(R)])

    with _threads(jobs):
        measure(params)
        for epoch in range(50, 1001, 50):
            hist = train_epochs(enc, n_epochs=50, config=config(15), n_networks=R, rng=gen,
                                params=params, progress=progress)
            params = hist.params
            tests.append(epoch)
            measure(params)
    r2 = np.array(r2)  # (tests, R, orders)
    mean = r2.mean(axis=1)
    best = mean.argmax(axis=1)
    rho = float(spearmanr(tests, best).statistic)
    table = claims.ClaimsTable("Learning phases: conditional probabilities of increasing order (§4, Figure 17)")
    table.add("before training, order 0 explains the outputs best", "Figure 17", 0, int(best[0]),
              claims.within(0))
    table.add("at epochs 50 and 100, order 1 explains best", "Figure 17", 1, int(best[1:3].max()),
              claims.within(0), expected=False, note=f"ours: orders {best[1:3].tolist()}")
    table.add("late in training (epoch 1000) a high order (≥ 4) explains best", "Figure 17",
              "5, then 6", int(best[-1]), claims.at_least(4))
    table.add("the best order rises over training (Spearman ρ of best order vs epoch)",
              "Figure 17", "rises", rho, claims.at_least(0.7),
              note=f"best order at each test: {best.tolist()}")
    data = {"tests": tests, "orders": list(range(7)), "r2_mean": mean.tolist(),
            "r2_networks": r2.tolist(), "best_order": best.tolist(), "n_networks": R,
            "r2_node_averaged_mean": np.array(r2_node).mean(axis=1).tolist(),
            "params": params_to_lists(params.network(0))}
    return Result(table, data)


# ------------------------------------------------------------------ experiment 4
def problem3_strings(n_s: int) -> list:
    """Problem [3] of §5.1 with ``n_s`` intermediate S's: ``["BP" + "S"*n + "PE", "BT" + "S"*n + "TE"]``."""
    if not isinstance(n_s, (int, np.integer)) or n_s < 1:
        raise ValueError(f"n_s must be a positive integer, got {n_s!r}")
    return [f"B{a}{'S' * int(n_s)}{a}E" for a in "PT"]


def problem3_solved(y_list, strings, alphabet: str = "BTSPXVE", margin: float = 0.6) -> bool:
    """Criterion for problem [3] (ours; the paper does not state its criterion).

    In both strings, at the prediction of the last letter (after the last S)
    the correct letter's activation is ``>= margin`` and the other's
    ``<= 1 - margin``.
    """
    for y, s in zip(y_list, strings):
        right, wrong = alphabet.index(s[-2]), alphabet.index("P" if s[-2] == "T" else "T")
        row = np.asarray(y)[len(s) - 3]
        if not (row[right] >= margin and row[wrong] <= 1 - margin):
            return False
    return True


def problem3_shared_learned(y_list, strings, alphabet: str = "BTSPXVE", margin: float = 0.6) -> bool:
    """The shared predictions are learned: each S, and E after the last letter, ``>= margin``.

    All steps except the first (after B: T or P) and the last letter's.
    """
    for y, s in zip(y_list, strings):
        y = np.asarray(y)
        for t in list(range(1, len(s) - 3)) + [len(s) - 2]:
            if y[t, alphabet.index(s[t + 1])] < margin:
                return False
    return True


def train_problem3(n_hidden: int, n_s: int, n_networks: int, max_epochs: int, seed: int,
                   test_every: int = 100, progress=None) -> dict:
    """Train ``n_networks`` SRNs on problem [3] until solved or ``max_epochs``.

    Returns epochs to criterion (``None``: censored at ``max_epochs``), epochs
    until the shared predictions were learned, and the error on the last
    letter at every test.  Tests every ``test_every`` epochs (training calls
    in between start with zero momentum).
    """
    strings = problem3_strings(n_s)
    enc = [reber().encode(s) for s in strings]
    from .srn import init_params

    params = init_params(7, n_hidden, 7, r=0.5, rng=_sub(seed, 4, n_hidden, n_s), n_networks=n_networks)
    gen = as_generator(_sub(seed, 4, n_hidden, n_s, 1))
    solved = [None] * n_networks
    shared = [None] * n_networks
    last_err, tests = [], []
    epoch = 0
    while epoch < max_epochs and any(v is None for v in solved):
        hist = train_epochs(enc, n_epochs=test_every, config=config(n_hidden), n_networks=n_networks,
                            rng=gen, params=params, progress=False)  # short calls: no bars
        params = hist.params
        epoch += test_every
        y, off = srn_forward(params, enc)
        errs = []
        for k in range(n_networks):
            yl = [y[k, off[i]:off[i + 1]] for i in range(2)]
            if solved[k] is None and problem3_solved(yl, strings):
                solved[k] = epoch
            if shared[k] is None and problem3_shared_learned(yl, strings):
                shared[k] = epoch
            errs.append(float(sum((1 - yl[i][len(s) - 3, "BTSPXVE".index(s[-2])]) ** 2
                                  for i, s in enumerate(strings))))
        tests.append(epoch)
        last_err.append(errs)
    return {"n_hidden": n_hidden, "n_s": n_s, "epochs_to_criterion": solved,
            "shared_learned": shared, "tests": tests, "last_letter_error": last_err,
            "max_epochs": max_epochs}


EXPECT_PROBLEM3_SIZE_EFFECT = True
"""Whether the chapter reports that bigger networks solve problem [3] more often (set from the run)."""


def run_problem3(scale="book", seed=0, jobs=1, progress=None) -> Result:
    """§5.1: problem [3] (PSSSP vs TSSST) and the network-size × embedding-length sweep.

    The 15-unit network on three S's: "able to solve this problem very
    accurately after approximately 10,000 epochs ... until a very long
    plateau in the error is reached".  The sweep: "four different networks
    (with 7, 15, 30 or 120 hidden units) were trained on each of four
    different versions of problem [3] (with 2, 4, 6 or 12 intermediate
    elements)".  ``book``: 3 networks per cell, hidden {7, 15, 30} × S's
    {2, 4, 6}, capped at 10,000 epochs (3 S's: 30,000); ``paper``: 5
    networks, the full 4 × 4 sweep, capped at 100,000.  Runs that do not
    reach criterion are censored (reported as "> cap").
    """
    R = choose(3, 5, scale)
    hidden = choose((7, 15, 30), (7, 15, 30, 120), scale)
    n_ss = choose((2, 4, 6), (2, 4, 6, 12), scale)
    cap = choose(10_000, 100_000, scale)
    with _threads(jobs):
        main = train_problem3(15, 3, R, choose(30_000, 100_000, scale), seed, progress=progress)
        sweep = [train_problem3(nh, ns, R, cap, seed, progress=progress) for nh in hidden for ns in n_ss]
    ep = [e for e in main["epochs_to_criterion"]]
    solved = [e for e in ep if e is not None]
    med = float(np.median([e if e is not None else math.inf for e in ep]))
    plateau = [(e - s) / e for e, s in zip(ep, main["shared_learned"]) if e is not None and s is not None]

    def median(cell):
        v = [e if e is not None else math.inf for e in cell["epochs_to_criterion"]]
        return float(np.median(v))

    grid = np.array([[median(next(c for c in sweep if c["n_hidden"] == nh and c["n_s"] == ns))
                      for ns in n_ss] for nh in hidden])
    table = claims.ClaimsTable("Problem [3]: PSSSP vs TSSST (§5.1)")
    table.add("15 hidden units learn PSSSP/TSSST in about 10,000 epochs (median)", "§5.1", 10_000,
              med, claims.between(3_000, 30_000), expected=False,
              note=f"{len(solved)} of {R} solved; epochs {ep}; criterion: ours (last letter ≥ 0.6, other ≤ 0.4)")
    table.add("a long plateau: share of training spent with the shared letters learned but the "
              "last one not", "§5.1", "very long plateau", float(np.mean(plateau)) if plateau else 0.0,
              claims.at_least(0.5), note="mean over solved networks")
    mono = all(all(a <= b for a, b in zip(row[:-1], row[1:])) for row in grid)
    table.add("epochs to criterion grow with the number of S's, for every network size", "§5.1",
              "exponential", mono, claims.is_true(),
              note="medians (censored runs count as > cap): " + "; ".join(
                  f"{nh} units: " + ", ".join("> cap" if math.isinf(v) else f"{v:.0f}" for v in row)
                  for nh, row in zip(hidden, grid)))
    solved_share = {nh: float(np.mean([e is not None for c in sweep if c["n_hidden"] == nh
                                       for e in c["epochs_to_criterion"]])) for nh in hidden}
    table.add("more hidden units help: share of runs (all embedding lengths) solved within the cap, "
              "largest minus smallest network", "§5.1", "faster with more units",
              solved_share[hidden[-1]] - solved_share[hidden[0]], claims.at_least(0.01),
              expected=EXPECT_PROBLEM3_SIZE_EFFECT,
              note=", ".join(f"{nh} units: {100 * v:.0f}%" for nh, v in solved_share.items()))

    def finite(x):
        return None if math.isinf(x) else x

    data = {"main": main, "sweep": sweep, "hidden": list(hidden), "n_s": list(n_ss), "cap": cap,
            "median_grid": [[finite(v) for v in row] for row in grid.tolist()], "n_networks": R}
    return Result(table, data)


# ------------------------------------------------------------------ experiment 5
def twin_nearest_neighbours(hidden, labels, first_letters) -> float:
    """Share of embedded prefixes whose nearest hidden state is the same prefix after the other first letter.

    Figure 20 ("shading"): identical embeddings in the two sub-grammars are
    represented by similar states.  ``labels`` name each pattern's embedded
    path (the same label after T and after P), ``first_letters`` its first
    letter; only labels that occur after both letters count.
    """
    h = np.asarray(hidden, dtype=float)
    labels, first = list(labels), list(first_letters)
    d = np.linalg.norm(h[:, None, :] - h[None, :, :], axis=-1)
    np.fill_diagonal(d, np.inf)
    hits = total = 0
    for i in range(len(h)):
        twins = [j for j in range(len(h)) if labels[j] == labels[i] and first[j] != first[i]]
        if not twins:
            continue
        total += 1
        hits += int(np.argmin(d[i]) in twins)
    if total == 0:
        raise ValueError("no embedded path occurs after both first letters")
    return hits / total


def embedded_states(params: SRNParams, grammar, max_letters: int = 6):
    """Hidden states after each letter of the embedding, one per distinct (first letter, path).

    For every string of ``grammar`` (an embedded sub-grammar) with at most
    ``max_letters`` letters, the state after each embedded letter, labelled
    by the embedded path so far and the first letter.  A prefix shared by
    several strings gives the same state; it is kept once (Figure 20).

    Returns
    -------
    hidden : ndarray, shape (n_states, n_hidden)
    paths : list of str
        The embedded letters so far (``"PV"``).
    first : list of str
        ``"T"`` or ``"P"``.
    """
    strings = grammar.enumerate(max_letters)
    _, hid = outputs(params, grammar, strings, return_hidden=True)
    seen = {}
    for s, hk in zip(strings, hid):
        for t in range(2, len(s) - 2):  # after each letter of the embedding
            seen.setdefault((s[1], s[2:t + 1]), hk[t])
    keys = sorted(seen, key=lambda k: (len(k[1]), k[1], k[0]))
    return np.array([seen[k] for k in keys]), [k[1] for k in keys], [k[0] for k in keys]


def run_embedded(scale="book", seed=0, jobs=1, progress=None) -> Result:
    """§5.2 (Figures 18–20): the embedded sub-grammar, symmetrical versus asymmetrical.

    15 hidden units trained on the symmetrical or the asymmetrical grammar
    (:func:`tempnets.grammars.embedded_subgrammar`), tested on 20,000 strings
    of the *symmetrical* one: hit, error or miss at the exit
    (:func:`tempnets.metrics.exit_outcomes`).  ``paper``: 900,000 strings, 10
    networks of each; ``book``: 300,000 strings, 3 of each (the paper shows one
    network of each).  Figure 20: hidden states of the distinct strings of up
    to 6 letters, after each letter of the embedding.
    """
    gs, ga = embedded_subgrammar(True), embedded_subgrammar(False)
    n = choose(300_000, 900_000, scale)
    R = choose(3, 10, scale)
    test = gs.sample(20_000, rng=_sub(seed, 5, 1))
    with _threads(jobs):
        hs = train_online(gs.tables(), n, config=config(15), n_networks=R, rng=_sub(seed, 5, 2),
                          progress=progress)
        ha = train_online(ga.tables(), n, config=config(15), n_networks=R, rng=_sub(seed, 5, 3),
                          progress=progress)
        res = {}
        for name, h in (("symmetrical", hs), ("asymmetrical", ha)):
            outs = [metrics.exit_outcomes(outputs(h.params.network(k), gs, test), test, gs)
                    for k in range(R)]
            res[name] = {"pct": [metrics.outcome_percentages(o) for o in outs],
                         "by_length": [{k: (v.tolist() if hasattr(v, "tolist") else v)
                                        for k, v in metrics.outcomes_by_embedding_length(o, test).items()}
                                       for o in outs]}
        fig20 = []
        for k in range(R):
            hh, lab, first = embedded_states(ha.params.network(k), gs, max_letters=6)
            fig20.append(twin_nearest_neighbours(hh, lab, first))
    mean = {name: {m: float(np.mean([p[m] for p in r["pct"]])) for m in ("hit", "error", "miss")}
            for name, r in res.items()}
    sym_len = np.mean([b["hit"] for b in res["symmetrical"]["by_length"]], axis=0)
    labels = res["symmetrical"]["by_length"][0]["lengths"]
    table = claims.ClaimsTable("The embedded sub-grammar (§5.2, Figures 19–20)")
    spread = lambda name, m: ", ".join(f"{p[m]:.1f}" for p in res[name]["pct"])  # noqa: E731
    # The paper reports one network; ours vary widely from seed to seed.  A mean within
    # 10 points of the paper's value is what "reproduces" means here; hits and misses
    # are further off at both scales (the paper's network lies inside our range).
    table.add("symmetrical grammar: hits (%)", "§5.2", 75.0, mean["symmetrical"]["hit"],
              claims.within(10.0), expected=False,
              note=f"mean of {R} networks ({spread('symmetrical', 'hit')}); {n:,} strings")
    table.add("symmetrical grammar: errors (%)", "§5.2", 6.3, mean["symmetrical"]["error"],
              claims.within(5.0), note=spread("symmetrical", "error"))
    table.add("symmetrical grammar: misses (%)", "§5.2", 18.7, mean["symmetrical"]["miss"],
              claims.within(10.0), expected=False, note=spread("symmetrical", "miss"))
    i34 = [labels.index(x) for x in ("3", "4") if x in labels]
    table.add("hits are best for embeddings of 3–4 letters and fall for 7+", "Figure 19",
              "best at 3–4", bool(sym_len[i34].mean() > sym_len[-1]), claims.is_true(),
              note="hits by length: " + ", ".join(f"{a}: {b:.0f}" for a, b in zip(labels, sym_len)))
    table.add("trained asymmetrical, tested symmetrical: hits (%)", "§5.2", 100.0,
              mean["asymmetrical"]["hit"], claims.at_least(95.0),
              note=f"mean of {R} networks ({spread('asymmetrical', 'hit')})")
    table.add("asymmetrical training beats symmetrical training (hits)", "§5.2", "75 → 100",
              bool(mean["asymmetrical"]["hit"] > mean["symmetrical"]["hit"]), claims.is_true())
    table.add("identical embeddings after T and after P have nearest-neighbour states", "Figure 20",
              "cluster together", float(np.mean(fig20)), claims.at_least(0.5),
              note=f"share of embedded states whose nearest state is its twin; {R} networks: "
                   + ", ".join(f"{v:.2f}" for v in fig20))
    data = {"n_strings": n, "n_networks": R, "results": res, "mean": mean,
            "hits_by_length_sym": sym_len.tolist(), "length_labels": labels, "fig20_twin_share": fig20,
            "params_sym": params_to_lists(hs.params.network(0)),
            "params_asym": params_to_lists(ha.params.network(0))}
    return Result(table, data)
