"""Analysing what a trained network represents: clusters of hidden states and ACPs.

Source: Servan-Schreiber, Cleeremans & McClelland (1991) (``papers/004``).

* Hierarchical cluster analysis (sections 2.5 and 3.3, Figures 8A, 8B, 11, 15,
  20; note 3): the hidden pattern after each presented letter, Euclidean
  distances between all pairs, a hierarchical clustering.  Leaves are labelled
  in the paper's style (section 2.5): "the capitalized letter in that string
  indicates which letter has just been presented. For example, if the leaf is
  identified as 'pvPs,' 'P' is the current letter and its predecessors were
  'P' and 'V'".  The paper does not name its linkage rule ("finds the optimal
  partition", note 3); we default to average linkage (UPGMA) and let callers
  choose any :func:`scipy.cluster.hierarchy.linkage` method.
* Average conditional probabilities (section 4, Figure 17, note 6), read
  literally.  For statistical order ``n`` and every distinct path ``p`` (the
  last ``n`` symbols of a prefix): (1) ``P(letter | p)``, (2) ``P(node | p)``,
  both estimated from strings with the training statistics; (3) "summing the
  products ... over the set of possible paths":
  ``ACP_n(letter, node) = sum_p P(letter | p) P(node | p)`` -- an *unweighted*
  sum over paths (a frequency-weighted one would be ``P(letter | node)`` for
  every order at which a path determines its node, by the law of total
  probability, and could not tell those orders apart); finally keep only the
  letters that can follow each node (11 pairs for the Reber grammar).  The
  network's responses are "averaged in a similar way": the mean activation of
  each letter's unit after each path of length 6 that is followed by that
  letter, times ``P(node | path)``, summed over those paths
  (:func:`network_averages`).  Each order's ACPs are the predictor in a
  regression on these averages; Figure 17 plots the r² of each order at each
  test (:func:`acp_r_squared`).

=============================  ==============================================
paper                          code
=============================  ==============================================
path of length n               ``context``: last ``n`` symbols of the prefix
                               (the whole prefix, B included, if shorter)
node #k                        ``grammar.states_after(prefix)``
steps 1 and 2 of note 6        :func:`path_probabilities`
ACP of order n                 :func:`average_conditional_probabilities`
network responses "averaged"   :func:`network_averages`
r² (Figure 17)                 :func:`acp_r_squared`
=============================  ==============================================

Layout: per-step arrays of several strings are stacked in string order (the
flat layout of ``tempnets``): step ``t`` of string ``s`` presents ``s[t]``,
``t = 0 .. len(s) - 2``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import NamedTuple

import numpy as np
from scipy.cluster import hierarchy

from .._numerics.checks import array, count, items
from .grammars import check_grammar, check_strings

__all__ = ["presentation_label", "presentation_labels", "node_labels", "successor_labels",
           "current_letter_labels", "cluster_hidden_states", "cluster_composition",
           "cluster_purity", "conditional_probabilities", "PathProbabilities",
           "path_probabilities", "ACPTable", "acp_keys", "average_conditional_probabilities",
           "network_averages", "acp_r_squared"]


# ------------------------------------------------------------------- labels
def presentation_label(string: str, t: int, upto_current: bool = False) -> str:
    """Paper-style label for the presentation of ``string[t]`` (a full string with B and E).

    The string's letters (without B and E) in lower case with the current one
    capitalised: ``presentation_label("BPVPSE", 3) == "pvPs"`` (Figure 8).  At
    ``t = 0`` the current symbol is B: ``"Bpvps"``.  With ``upto_current`` the
    label stops at the current letter, as in Figures 14 and 20 (``"pvP"``).
    """
    if not isinstance(string, str) or len(string) < 2:
        raise ValueError(f"string must be a full string with B and E, got {string!r:.60}")
    t = count("t", t)
    if not (0 <= t <= len(string) - 2):
        raise ValueError(f"t={t} is not a presented position of {string!r}: allowed 0..{len(string) - 2}")
    letters = string[1:-1].lower()
    if upto_current:
        letters = letters[:t]
    if t == 0:
        return string[0] + letters
    return letters[:t - 1] + letters[t - 1].upper() + letters[t:]


def presentation_labels(strings, upto_current: bool = False) -> list:
    """Labels of every presented step of every string, in the flat layout."""
    strings = check_strings(strings, 'strings')
    return [presentation_label(s, t, upto_current) for s in strings for t in range(len(s) - 1)]


def node_labels(grammar, strings) -> list:
    """The grammar state reached after each presented symbol (``"#3"``), in the flat layout.

    Raises
    ------
    ValueError
        If a prefix is not grammatical or the grammar could be in several states.
    """
    grammar = check_grammar(grammar)
    strings = check_strings(strings, 'strings')
    out = []
    for s in strings:
        for t in range(len(s) - 1):
            states = grammar.states_after(s[:t + 1])
            if len(states) != 1:
                raise ValueError(f"after {s[:t + 1]!r} the grammar can be in states {sorted(states)}; "
                                 "node labels need a deterministic grammar")
            out.append(next(iter(states)))
    return out


def successor_labels(grammar, strings) -> list:
    """The grammar's legal successors after each presented symbol (``"SX"``), in the flat layout.

    The "prediction" a pattern should support (Figure 15's left margin:
    "the hidden unit pattern generated by 'B' predicts 'T' or 'P'"), letters
    in alphabet order.
    """
    grammar = check_grammar(grammar)
    strings = check_strings(strings, 'strings')
    return ["".join(c for c in grammar.alphabet if c in grammar.successors(s[:t + 1]))
            for s in strings for t in range(len(s) - 1)]


def current_letter_labels(strings) -> list:
    """The symbol presented at each step (``s[t]``), in the flat layout."""
    strings = check_strings(strings, 'strings')
    return [s[t] for s in strings for t in range(len(s) - 1)]


# --------------------------------------------------------------- clustering
def cluster_hidden_states(hidden, method: str = "average") -> np.ndarray:
    """Hierarchical clustering of hidden patterns by Euclidean distance (note 3).

    Parameters
    ----------
    hidden : array_like, shape (n_patterns, n_hidden)
        One hidden pattern per presented letter.
    method : str
        Linkage rule of :func:`scipy.cluster.hierarchy.linkage` that works
        with Euclidean distances: ``"average"`` (default), ``"single"``,
        ``"complete"``, ``"ward"``, ...

    Returns
    -------
    ndarray, shape (n_patterns - 1, 4)
        The linkage matrix ``Z`` (for :func:`tempnets.book.plots.dendrogram`).
    """
    h = array("hidden", hidden)
    if h.ndim != 2 or h.shape[0] < 2:
        raise ValueError(f"hidden must have shape (n_patterns >= 2, n_hidden), got {h.shape}")
    limit = 1e150 / np.sqrt(max(h.shape[1], 1))  # beyond it a squared distance overflows
    if np.abs(h).max(initial=0.0) > limit:
        raise ValueError(f"hidden must hold values of magnitude at most {limit:.3g} (their Euclidean "
                         f"distances overflow beyond), got {np.abs(h).max():.3g}")
    allowed = ("single", "complete", "average", "weighted", "centroid", "median", "ward")
    if not isinstance(method, str) or method not in allowed:
        raise ValueError(f"method: unknown linkage method {method!r:.60}; allowed: {', '.join(allowed)}")
    return hierarchy.linkage(h, method=method, metric="euclidean")


def _linkage_and_labels(linkage_matrix, labels) -> tuple:
    """``(Z, labels)`` after checking that ``Z`` is a linkage matrix (as
    :func:`cluster_hidden_states` returns) of as many leaves as ``labels`` holds."""
    z = array("linkage_matrix", linkage_matrix)
    labels = items("labels", labels, "labels, one per pattern")
    if z.ndim != 2 or z.shape[1] != 4 or len(labels) != z.shape[0] + 1:
        raise ValueError(f"need a linkage matrix of shape (n - 1, 4) and n labels; got {z.shape} "
                         f"and {len(labels)} labels")
    if not hierarchy.is_valid_linkage(z):
        raise ValueError("linkage_matrix is not a linkage matrix (clusters merged in order, "
                         "non-negative distances and counts; from cluster_hidden_states)")
    return z, labels


def cluster_composition(linkage_matrix, labels, n_clusters: int) -> list:
    """The labels in each cluster when the tree is cut into ``n_clusters`` groups (``maxclust``).

    Returns
    -------
    list of dict
        One ``{label: count}`` per cluster, largest cluster first.

    Parameters
    ----------
    linkage_matrix : ndarray
        From :func:`cluster_hidden_states`.
    labels : sequence
        One label per pattern.
    n_clusters : int
        Number of clusters to cut the tree into.
    """
    z, labels = _linkage_and_labels(linkage_matrix, labels)
    n_clusters = count("n_clusters", n_clusters, 1)
    if n_clusters > len(labels):
        raise ValueError(f"n_clusters must be an integer in 1..{len(labels)} (one per label at most), "
                         f"got {n_clusters!r}")
    cut = hierarchy.fcluster(z, n_clusters, criterion="maxclust")
    members = defaultdict(list)
    for c, lab in zip(cut, labels):
        members[c].append(lab)
    return sorted((dict(Counter(m).most_common()) for m in members.values()), key=lambda d: -sum(d.values()))


def cluster_purity(linkage_matrix, labels, n_clusters: int) -> float:
    """How cleanly the tree cut into ``n_clusters`` groups the patterns by ``labels``.

    Purity = (1/N) Σ_clusters (size of the most common label in the cluster).
    1.0 means every cluster holds one label only (e.g. one grammar node per
    cluster when ``labels = node_labels(...)`` and ``n_clusters`` is the
    number of nodes: "groups by node"); a random tree scores about the share
    of the most common label.  Parameters as :func:`cluster_composition`.
    """
    labels = items("labels", labels, "labels, one per pattern")
    groups = cluster_composition(linkage_matrix, labels, n_clusters)
    return sum(max(g.values()) for g in groups) / len(labels)


# ----------------------------------------------------------------------- ACPs
def _context(prefix: str, order: int) -> str:
    return prefix[max(0, len(prefix) - order):] if order > 0 else ""


def conditional_probabilities(corpus, alphabet: str, order: int) -> dict:
    """Estimate ``P(next symbol | last `order` symbols)`` from a corpus of full strings (note 6, step 1).

    Returns
    -------
    dict
        ``context -> ndarray (len(alphabet),)`` of relative frequencies.  A
        prefix shorter than ``order`` is its own context (so it keeps its B).
        Order 0 has the single context ``""``: the frequency of each letter as
        a successor in the corpus.
    """
    corpus = check_strings(corpus, 'corpus')
    order = count("order", order)
    if not isinstance(alphabet, str) or not alphabet:
        raise TypeError(f"alphabet must be a non-empty str of letters, got {alphabet!r:.60}")
    for s in corpus:
        for c in s[1:]:
            if c not in alphabet:
                raise ValueError(f"corpus: string {s!r:.60} has letter {c!r}, not in alphabet {alphabet!r:.60}")
    counts = defaultdict(lambda: np.zeros(len(alphabet)))
    for s in corpus:
        for t in range(len(s) - 1):
            counts[_context(s[:t + 1], order)][alphabet.index(s[t + 1])] += 1
    if not counts:
        raise ValueError("the corpus has no strings of two or more symbols")
    return {c: v / v.sum() for c, v in counts.items()}


class PathProbabilities(NamedTuple):
    """Steps 1 and 2 of note 6 for one order (:func:`path_probabilities`).

    Attributes
    ----------
    paths : list of str
        The distinct paths (contexts) of the order, in order of first occurrence.
    letter : ndarray, shape (n_paths, len(alphabet))
        ``P(next letter | path)``.
    node : ndarray, shape (n_paths, len(grammar.states))
        ``P(node | path)``: how often the path ends at each state of the grammar.
    """

    paths: list
    letter: np.ndarray
    node: np.ndarray


def path_probabilities(corpus, grammar, order: int) -> PathProbabilities:
    """Note 6, steps 1 and 2: ``P(letter | path)`` and ``P(node | path)`` for every path of ``order``.

    A path is the last ``order`` symbols of a prefix (the whole prefix, B
    included, if it is shorter), estimated from ``corpus`` (full strings of a
    deterministic ``grammar``; for a network trained on a fixed set, the set
    itself gives the training statistics exactly).
    """
    corpus = check_strings(corpus, 'corpus')
    grammar = check_grammar(grammar)
    order = count("order", order)
    corpus = list(corpus)
    nodes = node_labels(grammar, corpus)
    index = {st: i for i, st in enumerate(grammar.states)}
    rows, letters, where = {}, [], []
    i = 0
    for s in corpus:
        for t in range(len(s) - 1):
            p = _context(s[:t + 1], order)
            if p not in rows:
                rows[p] = len(rows)
                letters.append(np.zeros(len(grammar.alphabet)))
                where.append(np.zeros(len(grammar.states)))
            letters[rows[p]][grammar.alphabet.index(s[t + 1])] += 1
            where[rows[p]][index[nodes[i]]] += 1
            i += 1
    if not rows:
        raise ValueError("the corpus has no strings of two or more symbols")
    letter, node = np.array(letters), np.array(where)
    return PathProbabilities(list(rows), letter / letter.sum(axis=1, keepdims=True),
                             node / node.sum(axis=1, keepdims=True))


class ACPTable(NamedTuple):
    """Average conditional probabilities of several orders.

    Attributes
    ----------
    keys : list of (str, str)
        ``(node, letter)`` pairs: the letters that can follow each node.
    orders : ndarray of int
        The statistical orders, one per row of ``values``.
    values : ndarray, shape (n_orders, n_keys)
        ``values[i, j]`` = ACP of order ``orders[i]`` for ``keys[j]``.
    """

    keys: list
    orders: np.ndarray
    values: np.ndarray


def acp_keys(grammar, strings) -> list:
    """The ``(node, letter)`` pairs of note 6: letters that can follow each node reached in ``strings``."""
    grammar = check_grammar(grammar)
    strings = check_strings(strings, 'strings')
    nodes = sorted(set(node_labels(grammar, strings)), key=grammar.states.index)
    return [(n, c) for n in nodes
            for c in sorted({a.symbol for a in grammar.arcs if a.source == n}, key=grammar.alphabet.index)]


def _key_index(grammar, keys):
    keys = items("keys", keys, "(node, letter) pairs")
    for key in keys:
        if not isinstance(key, (tuple, list)) or len(key) != 2:
            raise TypeError(f"keys: each key must be a (node, letter) pair, got {key!r:.60}")
    for node, letter in keys:
        if node not in grammar.states or letter not in grammar.alphabet:
            raise ValueError(f"key {(node, letter)!r} is not a (state, symbol) pair of {grammar.name!r}")
    return ([grammar.states.index(n) for n, _ in keys], [grammar.alphabet.index(c) for _, c in keys])


def average_conditional_probabilities(corpus, grammar, orders=range(7)) -> ACPTable:
    """ACPs of each order, as note 6 describes them (section 4, Figure 17).

    ``ACP_n(letter, node) = sum over the distinct paths p of order n of
    P(letter | p) * P(node | p)`` (:func:`path_probabilities`), an unweighted
    sum over paths, kept for the ``(node, letter)`` pairs of
    :func:`acp_keys` (11 for the Reber grammar).  Order 0 has one path, the
    empty one: ``P(letter) * P(node)``.

    Parameters
    ----------
    corpus : sequence of str
        Full strings with the training statistics (for a network trained on a
        fixed set, the set itself gives them exactly; else many sampled strings).
    grammar : FiniteStateGrammar
        Deterministic, for the node of each pattern.
    orders : iterable of int
        Statistical orders (paper: 0 to 6).
    """
    corpus = check_strings(corpus, 'corpus')
    grammar = check_grammar(grammar)
    corpus = list(corpus)
    keys = acp_keys(grammar, corpus)
    rows, cols = _key_index(grammar, keys)
    orders = np.array([count("orders", n) for n in items("orders", orders, "integer orders")], dtype=int)
    values = np.zeros((len(orders), len(keys)))
    for i, n in enumerate(orders):
        pp = path_probabilities(corpus, grammar, int(n))
        values[i] = (pp.node.T @ pp.letter)[rows, cols]  # sum_p P(node | p) P(letter | p)
    return ACPTable(keys, orders, values)


def network_averages(activations, strings, grammar, keys, order: int = 6) -> np.ndarray:
    """The network's responses "averaged in a similar way" as the ACPs (section 4).

    "The average activation of each response unit ... given 6 elements of
    temporal context was computed (i.e., after all paths of length 6 that are
    followed by that letter)": for each ``(node, letter)`` key, the sum over
    the paths ``p`` of length ``order`` that are followed by ``letter`` in
    ``strings`` of (the mean activation of the letter's unit after ``p``) ×
    ``P(node | p)``: the ACP formula with the network's responses in place of
    ``P(letter | p)`` (0 if the letter never follows the node in ``strings``,
    like its ACP).  A network whose outputs are the order-``order``
    conditional probabilities gives exactly the ACPs of that order.

    Parameters
    ----------
    activations : ndarray, shape (n_patterns, n_out)
        Flat layout: one row per presented symbol of ``strings``, in order.
    strings : sequence of str
        The test strings (full strings of the deterministic ``grammar``).
    keys : list of (str, str)
        From :attr:`ACPTable.keys`.
    order : int
        Length of the paths the responses are averaged over (paper: 6).
    """
    strings = check_strings(strings, 'strings')
    grammar = check_grammar(grammar)
    strings = list(strings)
    a = array("activations", activations, finite=False)
    order = count("order", order)
    n_patterns = sum(len(s) - 1 for s in strings)
    if a.shape != (n_patterns, len(grammar.alphabet)):
        raise ValueError(f"activations have shape {a.shape}; expected ({n_patterns}, "
                         f"{len(grammar.alphabet)}): one row per presented symbol of the strings")
    pp = path_probabilities(strings, grammar, order)
    row_of = {p: i for i, p in enumerate(pp.paths)}
    sums, counts = np.zeros((len(pp.paths), a.shape[1])), np.zeros(len(pp.paths))
    k = 0
    for s in strings:
        for t in range(len(s) - 1):
            r = row_of[_context(s[:t + 1], order)]
            sums[r] += a[k]
            counts[r] += 1
            k += 1
    mean = sums / counts[:, None]  # mean response after each path
    rows, cols = _key_index(grammar, keys)
    out = np.empty(len(keys))
    for j, (i_node, i_letter) in enumerate(zip(rows, cols)):
        if not np.any(pp.node[:, i_node] > 0):
            raise ValueError(f"no pattern of the strings reaches node {keys[j][0]!r}")
        use = (pp.letter[:, i_letter] > 0) & (pp.node[:, i_node] > 0)
        out[j] = np.sum(mean[use, i_letter] * pp.node[use, i_node])  # 0 if no path (as its ACP)
    return out


def acp_r_squared(table: ACPTable, activations, strings, grammar, order: int = 6) -> np.ndarray:
    """r² of each order's ACPs against the network's averaged responses (Figure 17).

    The regression has one predictor, so r² is the squared Pearson
    correlation between the ACPs of that order and :func:`network_averages`
    (over paths of length ``order``, 6 in the paper).  An order whose ACPs
    (or a network whose averages) do not vary gets r² 0.

    Returns
    -------
    ndarray, shape (n_orders,)
    """
    if not isinstance(table, ACPTable):
        raise TypeError(f"table must be an ACPTable (from average_conditional_probabilities), got "
                        f"{type(table).__name__}")
    strings = check_strings(strings, 'strings')
    grammar = check_grammar(grammar)
    y = network_averages(activations, strings, grammar, table.keys, order)
    out = np.zeros(len(table.orders))
    for i, x in enumerate(table.values):
        if np.ptp(x) > 0 and np.ptp(y) > 0:
            out[i] = np.corrcoef(x, y)[0, 1] ** 2
    return out
