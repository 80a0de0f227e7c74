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
* Average conditional probabilities (section 4, Figure 17, note 6).  For
  statistical order ``n``: (1) estimate ``P(letter | path)`` for every path of
  the last ``n`` symbols from strings with the training statistics; (2) weight
  each path by how often it leads to each node; (3) average, giving
  ``ACP_n(letter, node)``; keep only the letters that can follow each node (11
  pairs for the Reber grammar).  Each order's ACPs are the predictor in a
  regression on the network's activations averaged the same way; Figure 17
  plots the r² of each order at each test.

=============================  ==============================================
paper                          code
=============================  ==============================================
path of length n               ``context``: last ``n`` symbols of the prefix
                               (the whole prefix, B included, if shorter)
node #k                        ``grammar.states_after(prefix)``
ACP of order n                 :func:`average_conditional_probabilities`
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


# ------------------------------------------------------------------- labels
def presentation_label(string: str, t: int, upto_current: bool = False) -> str:
    """Paper-style label for the presentation of ``string[t]`` (a full string with B and E).

    The string's letters (without B and E) in lower case with the current one
    capitalised: ``presentation_label("BPVPSE", 3) == "pvPs"`` (Figure 8).  At
    ``t = 0`` the current symbol is B: ``"Bpvps"``.  With ``upto_current`` the
    label stops at the current letter, as in Figures 14 and 20 (``"pvP"``).
    """
    if not isinstance(string, str) or len(string) < 2:
        raise ValueError(f"string must be a full string with B and E, got {string!r}")
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
    return [presentation_label(s, t, upto_current) for s in strings for t in range(len(s) - 1)]


def node_labels(grammar, strings) -> list:
    """The grammar state reached after each presented symbol (``"#3"``), in the flat layout.

    Raises
    ------
    ValueError
        If a prefix is not grammatical or the grammar could be in several states.
    """
    out = []
    for s in strings:
        for t in range(len(s) - 1):
            states = grammar.states_after(s[:t + 1])
            if len(states) != 1:
                raise ValueError(f"after {s[:t + 1]!r} the grammar can be in states {sorted(states)}; "
                                 "node labels need a deterministic grammar")
            out.append(next(iter(states)))
    return out


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
        The linkage matrix ``Z`` (for :func:`tempnets.plots.dendrogram`).
    """
    h = np.asarray(hidden, dtype=np.float64)
    if h.ndim != 2 or h.shape[0] < 2:
        raise ValueError(f"hidden must have shape (n_patterns >= 2, n_hidden), got {h.shape}")
    allowed = ("single", "complete", "average", "weighted", "centroid", "median", "ward")
    if method not in allowed:
        raise ValueError(f"unknown linkage method {method!r}; allowed: {', '.join(allowed)}")
    return hierarchy.linkage(h, method=method, metric="euclidean")


def cluster_purity(linkage_matrix, labels, n_clusters: int) -> float:
    """How cleanly the tree cut into ``n_clusters`` groups the patterns by ``labels``.

    Purity = (1/N) Σ_clusters (size of the most common label in the cluster).
    1.0 means every cluster holds one label only (e.g. one grammar node per
    cluster when ``labels = node_labels(...)`` and ``n_clusters`` is the
    number of nodes: "groups by node"); a random tree scores about the share
    of the most common label.

    Parameters
    ----------
    linkage_matrix : ndarray
        From :func:`cluster_hidden_states`.
    labels : sequence
        One label per pattern.
    n_clusters : int
        Number of clusters to cut the tree into (``maxclust`` criterion).
    """
    z = np.asarray(linkage_matrix)
    labels = list(labels)
    if z.ndim != 2 or z.shape[1] != 4 or len(labels) != z.shape[0] + 1:
        raise ValueError(f"need a linkage matrix of shape (n - 1, 4) and n labels; got {z.shape} "
                         f"and {len(labels)} labels")
    if not isinstance(n_clusters, (int, np.integer)) or not 1 <= n_clusters <= len(labels):
        raise ValueError(f"n_clusters must be an integer in 1..{len(labels)}, got {n_clusters!r}")
    cut = hierarchy.fcluster(z, int(n_clusters), criterion="maxclust")
    members = defaultdict(list)
    for c, lab in zip(cut, labels):
        members[c].append(lab)
    return sum(Counter(m).most_common(1)[0][1] for m in members.values()) / len(labels)


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
    if not isinstance(order, (int, np.integer)) or order < 0:
        raise ValueError(f"order must be a non-negative integer, got {order!r}")
    counts = defaultdict(lambda: np.zeros(len(alphabet)))
    for s in corpus:
        for t in range(len(s) - 1):
            counts[_context(s[:t + 1], order)][alphabet.index(s[t + 1])] += 1
    if not counts:
        raise ValueError("the corpus has no strings of two or more symbols")
    return {c: v / v.sum() for c, v in counts.items()}


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
    nodes = sorted(set(node_labels(grammar, strings)), key=grammar.states.index)
    return [(n, c) for n in nodes
            for c in sorted({a.symbol for a in grammar.arcs if a.source == n}, key=grammar.alphabet.index)]


def average_conditional_probabilities(corpus, grammar, orders=range(7), strings=None) -> ACPTable:
    """ACPs of each order (section 4, note 6).

    ``ACP_n(letter, node)`` is the mean, over the patterns of ``strings``
    that reach ``node``, of ``P_n(letter | context)`` estimated from
    ``corpus`` (:func:`conditional_probabilities`): each path is weighted by
    how often it leads to the node, which is note 6's "summing the products"
    of step 1 and step 2 with step 2 normalised per node.

    Parameters
    ----------
    corpus : sequence of str
        Full strings with the training statistics (for a network trained on a
        fixed set, the set itself gives them exactly; else many sampled strings).
    grammar : FiniteStateGrammar
        Deterministic, for the node of each pattern.
    orders : iterable of int
        Statistical orders (paper: 0 to 6).
    strings : sequence of str, optional
        The test patterns to average over; default ``corpus``.
    """
    corpus = list(corpus)
    strings = corpus if strings is None else list(strings)
    nodes = node_labels(grammar, strings)
    prefixes = [s[:t + 1] for s in strings for t in range(len(s) - 1)]
    keys = acp_keys(grammar, strings)
    orders = np.array(list(orders), dtype=int)
    values = np.zeros((len(orders), len(keys)))
    for i, n in enumerate(orders):
        cp = conditional_probabilities(corpus, grammar.alphabet, int(n))
        for j, (node, letter) in enumerate(keys):
            ctx = [_context(p, n) for p, nd in zip(prefixes, nodes) if nd == node]
            missing = [c for c in ctx if c not in cp]
            if missing:
                raise ValueError(f"context {missing[0]!r} of order {n} never occurs in the corpus")
            values[i, j] = np.mean([cp[c][grammar.alphabet.index(letter)] for c in ctx])
    return ACPTable(keys, orders, values)


def network_averages(activations, strings, grammar, keys) -> np.ndarray:
    """The network's activations averaged like the ACPs: mean of unit ``letter`` over patterns at ``node``.

    Parameters
    ----------
    activations : ndarray, shape (n_patterns, n_out)
        Flat layout: one row per presented symbol of ``strings``, in order.
    keys : list of (str, str)
        From :attr:`ACPTable.keys`.
    """
    a = np.asarray(activations, dtype=np.float64)
    nodes = np.array(node_labels(grammar, strings))
    if a.shape != (len(nodes), len(grammar.alphabet)):
        raise ValueError(f"activations have shape {a.shape}; expected ({len(nodes)}, "
                         f"{len(grammar.alphabet)}): one row per presented symbol of the strings")
    out = np.empty(len(keys))
    for j, (node, letter) in enumerate(keys):
        rows = nodes == node
        if not rows.any():
            raise ValueError(f"no pattern of the strings reaches node {node!r}")
        out[j] = a[rows, grammar.alphabet.index(letter)].mean()
    return out


def acp_r_squared(table: ACPTable, activations, strings, grammar) -> np.ndarray:
    """r² of each order's ACPs against the network's averaged activations (Figure 17).

    The regression has one predictor, so r² is the squared Pearson
    correlation between the ACPs of that order and :func:`network_averages`.
    An order whose ACPs (or a network whose averages) do not vary gets r² 0.

    Returns
    -------
    ndarray, shape (n_orders,)
    """
    y = network_averages(activations, strings, grammar, table.keys)
    out = np.zeros(len(table.orders))
    for i, x in enumerate(table.values):
        if np.ptp(x) > 0 and np.ptp(y) > 0:
            out[i] = np.corrcoef(x, y)[0, 1] ** 2
    return out
