"""Figures of the papers, drawn by code from results (never by training).

Every function takes data and an optional matplotlib ``ax`` (a new figure is
made when ``ax`` is None) and returns the ``Axes``.

==========================  ====================================================
function                    figure it redraws
==========================  ====================================================
:func:`grammar_diagram`     grammars as state diagrams (Servan-Schreiber et al.
                            1991 Figures 3, 18; O'Connell 1995 Figures 1.2, 1.3,
                            5.1, 6.1; all missing from our copies)
:func:`srn_diagram`         the simple recurrent network (1991 Figures 2, 4)
:func:`network_state`       the network's state (1991 Figures 5–7, 13, 14, 16):
                            rows output / hidden / context / input, values 0–100
:func:`dendrogram`          cluster analyses with paper-style leaf labels
                            (1991 Figures 8, 11, 15, 20)
:func:`learning_curve`      error or accuracy over training
:func:`acp_curves`          r² of each ACP order over training (1991 Figure 17)
:func:`hits_by_length`      hits and errors by embedding length (1991 Figure 19)
:func:`hinton`              weight matrices (O'Connell Figures 4.7–4.9)
==========================  ====================================================
"""

from __future__ import annotations

from collections import deque

import numpy as np

from .._numerics.checks import array, count, is_finite_real, items, real
from ..tasks.grammars import check_grammar

MAX_DRAWN_UNITS = 100
"""The most units a diagram draws in one pool (more would take minutes and show nothing)."""

__all__ = ["grammar_layout", "grammar_diagram", "srn_diagram", "network_state", "dendrogram",
           "learning_curve", "acp_curves", "hits_by_length", "hinton", "unfolded_network"]


def _axes(ax, figsize=(6, 4)):
    """``ax``, or new axes when it is ``None``; anything else is refused before drawing."""
    from matplotlib.axes import Axes

    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=figsize)
    elif not isinstance(ax, Axes):
        raise TypeError(f"ax must be matplotlib Axes or None, got {type(ax).__name__} ({ax!r:.60})")
    return ax


# ------------------------------------------------------------------- grammar
def grammar_layout(grammar) -> dict:
    """Default positions: ``x`` = fewest arcs from the start, states of one column spread in ``y``.

    States met first (e.g. after T) are placed higher, which draws the Reber
    grammar as in its usual figure (#1, #3 on top, #2, #4 below).  The end is
    a pseudo-state ``"END"`` one column right of the deepest state leading to it.
    """
    grammar = check_grammar(grammar)
    depth, order = {grammar.start: 0}, [grammar.start]
    queue = deque([grammar.start])
    while queue:
        s = queue.popleft()
        for a in grammar.arcs:
            if a.source == s and a.target is not None and a.target not in depth:
                depth[a.target] = depth[s] + 1
                order.append(a.target)
                queue.append(a.target)
    depth["END"] = 1 + max(depth[a.source] for a in grammar.arcs if a.target is None)
    order.append("END")
    pos = {}
    for d in set(depth.values()):
        column = [s for s in order if depth[s] == d]
        for i, s in enumerate(column):
            pos[s] = (float(d), (len(column) - 1) / 2.0 - i)
    return pos


def grammar_diagram(grammar, ax=None, layout=None, show_probabilities: bool | None = None,
                    node_radius: float = 0.22):
    """Draw a :class:`~tempnets.tasks.grammars.FiniteStateGrammar` as a state diagram.

    Parameters
    ----------
    grammar : FiniteStateGrammar
    ax : matplotlib Axes, optional
    layout : dict, optional
        ``state -> (x, y)``, including ``"END"``; default :func:`grammar_layout`.
    show_probabilities : bool, optional
        Label arcs ``"X 0.8"`` where a choice is not 0.5 (an even two-way
        choice stays unlabelled, which keeps crowded diagrams legible);
        default: only when some choice is not 0.5.
    node_radius : float
        Radius of the state circles, in layout units.

    Returns
    -------
    matplotlib Axes
        With one circle per state (and END), one arrow and one letter label per arc.
    """
    grammar = check_grammar(grammar)
    from matplotlib.patches import Circle, FancyArrowPatch

    node_radius = real("node_radius", node_radius, low=0.0, low_open=True)
    if layout is not None and not isinstance(layout, dict):
        raise TypeError(f"layout must be None or a dict state -> (x, y), got {type(layout).__name__}")
    ax = _axes(ax, (8, 4))
    pos = layout or grammar_layout(grammar)
    missing = [s for s in list(grammar.states) + ["END"] if s not in pos]
    if missing:
        raise ValueError(f"layout has no position for states {missing}")
    for s, xy in pos.items():
        if np.shape(xy) != (2,) or not all(is_finite_real(v) for v in xy):
            raise ValueError(f"layout[{s!r}] must be a position (x, y) of two finite numbers, got {xy!r:.60}")
    if show_probabilities is None:
        show_probabilities = any(a.prob not in (0.5, 1.0) for a in grammar.arcs)
    for s in list(grammar.states) + ["END"]:
        x, y = pos[s]
        ax.add_patch(Circle((x, y), node_radius, fill=False, lw=1.5))
        ax.text(x, y, s, ha="center", va="center", fontsize=8)
    for a in grammar.arcs:
        x0, y0 = pos[a.source]
        x1, y1 = pos["END" if a.target is None else a.target]
        label = a.symbol + (f" {a.prob:g}" if show_probabilities and a.prob not in (0.5, 1.0) else "")
        if (x0, y0) == (x1, y1):  # self-loop above the state
            start, end = (x0 - node_radius * 0.7, y0 + node_radius * 0.7), (x0 + node_radius * 0.7,
                                                                         y0 + node_radius * 0.7)
            arrow = FancyArrowPatch(start, end, connectionstyle="arc3,rad=-1.8", arrowstyle="-|>",
                                    mutation_scale=10, lw=1)
            lx, ly = x0, y0 + node_radius * 2.6
        else:
            d = np.array([x1 - x0, y1 - y0]) / np.hypot(x1 - x0, y1 - y0)
            back = x1 <= x0  # arcs going back (or within a column) bend more, to stay clear
            arrow = FancyArrowPatch((x0, y0) + node_radius * d, (x1, y1) - node_radius * d,
                                    connectionstyle=f"arc3,rad={0.35 if back else 0.1}",
                                    arrowstyle="-|>", mutation_scale=10, lw=1)
            lx, ly = (x0 + x1) / 2 + 0.12 * (y1 - y0), (y0 + y1) / 2 + 0.12 * (x0 - x1) + 0.06
        ax.add_patch(arrow)
        ax.text(lx, ly, label, ha="center", va="center", fontsize=10, color="tab:blue",
                bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.8))
    xs, ys = zip(*pos.values())
    ax.set_xlim(min(xs) - 0.3, max(xs) + 0.3)
    ax.set_ylim(min(ys) - 0.45, max(ys) + 0.65)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_title(grammar.name)
    return ax


# --------------------------------------------------------------- architecture
def srn_diagram(ax=None, n_hidden: int = 3, alphabet: str = "BTSPXVE"):
    """The simple recurrent network as pools of units (1991 Figures 2 and 4, missing from our copy).

    Input (one unit per symbol of ``alphabet``) and context (``n_hidden``
    units) at the bottom, the hidden layer above them, the output layer
    (one unit per symbol) on top.  Solid arrows are complete sets of
    trainable connections (input → hidden, context → hidden, hidden →
    output); the dashed arrow from the hidden layer back to the context is
    the copy, which has no weights and carries no gradient in the SRN rule.

    Returns
    -------
    matplotlib Axes
        With one rectangle per pool, one circle per unit and four arrows
        (the copy's dashed).
    """
    from matplotlib.patches import Circle, FancyArrowPatch, Rectangle

    n_hidden = count("n_hidden", n_hidden, 1)
    if n_hidden > MAX_DRAWN_UNITS:
        raise ValueError(f"n_hidden must be at most {MAX_DRAWN_UNITS} units to draw, got {n_hidden}")
    if not isinstance(alphabet, str) or not 0 < len(alphabet) <= MAX_DRAWN_UNITS:
        raise ValueError(f"alphabet must be a str of 1 to {MAX_DRAWN_UNITS} symbols, got {alphabet!r}")
    n_sym, r, gap = len(alphabet), 0.3, 0.8
    w_in, w_h = n_sym * gap, n_hidden * gap
    # pool -> (x of its left edge, y of its centre, number of units, unit labels)
    pools = {"Input": (0.0, 0.0, n_sym, alphabet),
             "Context": (w_in + 1.5, 0.0, n_hidden, None),
             "Hidden": ((w_in + 1.5 + w_h) / 2 - w_h / 2 + 0.0, 2.5, n_hidden, None),
             "Output": ((w_in + 1.5 + w_h) / 2 - w_in / 2, 5.0, n_sym, alphabet)}
    ax = _axes(ax, (7, 5))
    box = {}
    for name, (x0, y, n, labels) in pools.items():
        width = n * gap
        ax.add_patch(Rectangle((x0 - 0.15, y - 0.55), width + 0.3, 1.1, fill=False, lw=1.2))
        for i in range(n):
            ax.add_patch(Circle((x0 + gap * (i + 0.5), y), r, fc="white", ec="black", lw=0.8))
            if labels:
                ax.text(x0 + gap * (i + 0.5), y, labels[i], ha="center", va="center", fontsize=8)
        if y > 0:  # hidden and output: name at the left (arrows enter above and below)
            ax.text(x0 - 0.35, y, name, ha="right", va="center", fontsize=10)
        else:
            ax.text(x0 + width / 2, y - 0.7, name, ha="center", va="top", fontsize=10)
        box[name] = (x0 + width / 2, y, width)

    def arrow(a, b, dashed=False, text=None):
        (xa, ya, _), (xb, yb, _) = box[a], box[b]
        if dashed:  # hidden -> context: leave from the right of the hidden pool, curving down
            start, end, style = (xa + box[a][2] / 2 + 0.2, ya), (xb + box[b][2] / 2 + 0.2, yb), "arc3,rad=-0.5"
        else:
            start, end, style = (xa, ya + 0.6), (xb, yb - 0.6), "arc3,rad=0"
        ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=14, lw=1.4,
                                     connectionstyle=style, linestyle="--" if dashed else "-"))
        if text:
            ax.text(max(start[0], end[0]) + 0.6, (start[1] + end[1]) / 2, text, fontsize=8,
                    ha="left", va="center", style="italic")

    arrow("Input", "Hidden")
    arrow("Context", "Hidden")
    arrow("Hidden", "Output")
    arrow("Hidden", "Context", dashed=True, text="copy\n(no weights)")
    xs = [x0 for x0, *_ in pools.values()] + [x0 + n * gap for x0, _, n, _ in pools.values()]
    ax.set_xlim(min(xs) - 0.5, max(xs) + 2.4)
    ax.set_ylim(-1.3, 6.0)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_title(f"Simple recurrent network ({n_hidden} hidden units)")
    return ax


# ------------------------------------------------------------- network state
def network_state(layers: dict, ax=None, unit_labels: dict | None = None, title: str | None = None,
                  numbers: bool = True):
    """The network's state as rows of boxes, values 0–100 (Figures 5–7 of the 1991 paper).

    Parameters
    ----------
    layers : dict
        ``name -> 1-D activations in [0, 1]``, drawn top to bottom in order,
        e.g. ``{"Output": o, "Hidden": h, "Context": c, "Input": x}``.
    unit_labels : dict, optional
        ``name -> labels of its units`` (e.g. ``{"Output": "BTSPXVE"}``).
    title : str, optional
        E.g. the string with the current letter capitalised.
    numbers : bool
        Write ``round(100 * a)`` in each box (as in the paper) besides shading it.

    Returns
    -------
    matplotlib Axes
    """
    from matplotlib.patches import Rectangle

    if not isinstance(layers, dict) or not layers:
        raise ValueError("layers must be a non-empty dict name -> activations; pass e.g. "
                         "{'Output': ..., 'Hidden': ..., 'Input': ...}")
    rows = {k: array(f"layers[{k!r}]", v).ravel() for k, v in layers.items()}
    for k, v in rows.items():
        if v.size and (v.min() < 0 or v.max() > 1):
            raise ValueError(f"layers[{k!r}] has values outside [0, 1] ({v.min():.3g}..{v.max():.3g})")
    if unit_labels is not None and not isinstance(unit_labels, dict):
        raise TypeError(f"unit_labels must be None or a dict name -> labels, got {type(unit_labels).__name__}")
    unit_labels = unit_labels or {}
    width = max(v.size for v in rows.values())
    # Rows from the top; a row with unit labels gets room above it for them, so
    # the labels never touch the boxes of the row above.
    ys, y = [], 0.0
    for name in rows:
        y -= 1.0 + (0.4 if name in unit_labels else 0.0)
        ys.append(y)
    ax = _axes(ax, (0.45 * width + 1.5, 0.6 * len(rows) + 0.8))
    for y, (name, v) in zip(ys, rows.items()):
        ax.text(-0.4, y + 0.4, name, ha="right", va="center", fontsize=10)
        labels = unit_labels.get(name)
        for i, a in enumerate(v):
            ax.add_patch(Rectangle((i, y), 0.9, 0.8, fc=str(1 - 0.85 * a), ec="black", lw=0.5))
            if numbers:
                ax.text(i + 0.45, y + 0.4, f"{round(100 * a):d}", ha="center", va="center", fontsize=9,
                        color="white" if a > 0.55 else "black")
            if labels is not None and i < len(labels):
                ax.text(i + 0.45, y + 0.86, labels[i], ha="center", va="bottom", fontsize=9)
    ax.set_xlim(-2.6, width + 0.2)
    ax.set_ylim(ys[-1] - 0.2, 0.1)
    ax.set_aspect("equal")
    ax.set_axis_off()
    if title:
        ax.set_title(title)
    return ax


# ---------------------------------------------------------------- dendrogram
def dendrogram(linkage_matrix, labels, ax=None, orientation: str = "left", **kwargs):
    """Dendrogram of a cluster analysis with paper-style leaf labels (Figures 8, 11, 15, 20).

    Links are horizontal (orientation ``"left"``: the root at the left, as in
    the paper, whose note 3 says "the contrast between two groups is
    indicated by the length of the horizontal links").  ``labels`` come from
    :func:`tempnets.tasks.analysis.presentation_labels`; extra keyword arguments go
    to :func:`scipy.cluster.hierarchy.dendrogram`.

    Returns
    -------
    matplotlib Axes
    """
    from scipy.cluster import hierarchy

    from ..tasks.analysis import _linkage_and_labels  # (imports scipy: only when a dendrogram is drawn)

    z, labels = _linkage_and_labels(linkage_matrix, labels)
    if orientation not in ("left", "right", "top", "bottom"):
        raise ValueError(f"orientation must be 'left', 'right', 'top' or 'bottom', got {orientation!r:.60}")
    ax = _axes(ax, (5, max(3.0, 0.16 * len(labels))))
    hierarchy.dendrogram(z, labels=labels, orientation=orientation, ax=ax,
                         color_threshold=kwargs.pop("color_threshold", 0), **kwargs)
    ax.set_xlabel("Euclidean distance")
    return ax


# -------------------------------------------------------------------- curves
def learning_curve(x, y, ax=None, label: str | None = None, xlabel: str = "strings presented",
                   ylabel: str = "error"):
    """A learning curve; a 2-D ``y`` (runs × points) draws each run thin and their mean bold.

    Returns
    -------
    matplotlib Axes
    """
    x, y = array("x", x, (None,), finite=False), array("y", y, finite=False)
    for name, text in (("label", label), ("xlabel", xlabel), ("ylabel", ylabel)):
        if text is not None and not isinstance(text, str):
            raise TypeError(f"{name} must be a str or None, got {type(text).__name__}")
    if y.ndim not in (1, 2) or y.shape[-1] != x.size:
        raise ValueError(f"y must have shape ({x.size},) or (n_runs, {x.size}), got {y.shape}")
    ax = _axes(ax)
    if y.ndim == 2:
        for run in y:
            ax.plot(x, run, color="0.75", lw=0.7)
        y = y.mean(axis=0)
    ax.plot(x, y, lw=2, label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if label:
        ax.legend()
    return ax


def acp_curves(tests, r_squared, orders=None, ax=None, xlabel: str = "epoch"):
    """% of variance explained by ACPs of each order at each test (Figure 17).

    Parameters
    ----------
    tests : array_like, shape (n_tests,)
        When each test was run (e.g. epochs 0, 50, ..., 1000).
    r_squared : array_like, shape (n_tests, n_orders)
        From :func:`tempnets.tasks.analysis.acp_r_squared` at each test.
    orders : sequence of int, optional
        Default ``0 .. n_orders - 1``.

    Returns
    -------
    matplotlib Axes
        One line per order.
    """
    t = array("tests", tests, (None,))
    r2 = array("r_squared", r_squared, finite=False)
    if r2.ndim != 2 or r2.shape[0] != t.size:
        raise ValueError(f"r_squared must have shape ({t.size}, n_orders), got {r2.shape}")
    orders = list(range(r2.shape[1])) if orders is None else items("orders", orders, "orders")
    if len(orders) != r2.shape[1]:
        raise ValueError(f"{len(orders)} orders for {r2.shape[1]} columns of r_squared")
    ax = _axes(ax)
    for j, n in enumerate(orders):
        ax.plot(t, 100 * r2[:, j], marker="o", ms=3, label=f"order {n}")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("% variance explained (r²)")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=7)
    return ax


def hits_by_length(result: dict, ax=None):
    """Hits and errors (%) by embedding length (Figure 19).

    Parameters
    ----------
    result : dict
        From :func:`tempnets.tasks.metrics.outcomes_by_embedding_length`.

    Returns
    -------
    matplotlib Axes
        Two bar series (hits, errors).
    """
    if not isinstance(result, dict):
        raise TypeError(f"result must be the dict of outcomes_by_embedding_length(...), got "
                        f"{type(result).__name__}")
    missing = {"lengths", "hit", "error"} - set(result)
    if missing:
        raise ValueError(f"result lacks {sorted(missing)}; pass outcomes_by_embedding_length(...)")
    lengths = items("result['lengths']", result["lengths"], "length labels")
    dims = {"n": (len(lengths), "result['lengths']")}
    hit = array("result['hit']", result["hit"], ("n",), dims, low=0.0, high=100.0)
    error = array("result['error']", result["error"], ("n",), dims, low=0.0, high=100.0)
    ax = _axes(ax)
    x = np.arange(len(lengths))
    ax.bar(x - 0.2, hit, 0.4, label="hits", color="0.3")
    ax.bar(x + 0.2, error, 0.4, label="errors", color="0.75")
    ax.set_xticks(x, [str(v) for v in lengths])
    ax.set_xlabel("letters in the embedding")
    ax.set_ylabel("%")
    ax.set_ylim(0, 100)
    ax.legend()
    return ax


# -------------------------------------------------------------------- Hinton
def hinton(weights, ax=None, max_weight: float | None = None, row_labels=None, col_labels=None):
    """Hinton diagram: a square per weight, area ∝ |w|, white positive, black negative.

    ``W[i, j]`` (from unit ``j`` to unit ``i``) is drawn at row ``i``, column ``j``.

    Returns
    -------
    matplotlib Axes
        With one square per non-zero weight.
    """
    from matplotlib.patches import Rectangle

    w = array("weights", weights)
    if w.ndim != 2 or 0 in w.shape:
        raise ValueError(f"weights must be a non-empty 2-D matrix, got shape {w.shape}")
    if max_weight is not None:
        max_weight = real("max_weight", max_weight, low=0.0, low_open=True)
    for name, labels, n in (("row_labels", row_labels, w.shape[0]), ("col_labels", col_labels, w.shape[1])):
        if labels is not None and len(items(name, labels, "labels")) != n:
            raise ValueError(f"{name} must hold {n} labels (one per {name[:3]} of weights), got "
                             f"{len(items(name, labels))}")
    max_weight = max_weight or (np.abs(w).max() if np.abs(w).max() > 0 else 1.0)
    ax = _axes(ax, (0.35 * w.shape[1] + 1.5, 0.35 * w.shape[0] + 1))
    ax.set_facecolor("0.5")
    for (i, j), v in np.ndenumerate(w):
        if v == 0:
            continue
        side = np.sqrt(min(abs(v) / max_weight, 1.0))
        ax.add_patch(Rectangle((j - side / 2, i - side / 2), side, side,
                               fc="white" if v > 0 else "black", ec="none"))
    ax.set_xlim(-0.5, w.shape[1] - 0.5)
    ax.set_ylim(w.shape[0] - 0.5, -0.5)
    ax.set_aspect("equal")
    ax.set_xticks(range(w.shape[1]), col_labels if col_labels is not None else range(w.shape[1]))
    ax.set_yticks(range(w.shape[0]), row_labels if row_labels is not None else range(w.shape[0]))
    ax.set_xlabel("from unit")
    ax.set_ylabel("to unit")
    return ax


# -------------------------------------------------------------------- unfolded networks (Mozer)
MAX_UNFOLDED_STEPS = 20
"""Most steps :func:`unfolded_network` draws (more would not be legible in one figure)."""


def unfolded_network(T: int = 4, focused: bool = True, ax=None):
    """Mozer's Figures 2b and 10: a recurrent net unfolded over ``T`` steps.

    ``focused=False`` draws the deep unfolding of a full network (each context layer feeds
    the next: depth grows with ``T``); ``focused=True`` the fixed-depth view of the focused
    network (each step's squashed input ``s[net(τ)]`` feeds one summing layer with weight
    ``d^(t-τ)``: breadth grows with ``T``, depth stays 4).
    """
    T = count("T", T, 1, MAX_UNFOLDED_STEPS)
    ax = _axes(ax, (5, 4))
    box = dict(boxstyle="round,pad=0.3", fc="white", ec="0.3")
    for tau in range(T):
        x = tau * 1.4
        ax.text(x, 0, f"x({tau + 1})", ha="center", va="center", bbox=box)
        if focused:
            ax.text(x, 1.2, f"s[net({tau + 1})]", ha="center", va="center", bbox=box, fontsize=8)
            ax.annotate("", (x, 0.95), (x, 0.25), arrowprops=dict(arrowstyle="->"))
            xc = (T - 1) * 0.7
            ax.annotate("", (xc, 2.2), (x, 1.45), arrowprops=dict(arrowstyle="->", color="C0"))
            ax.text((x + xc) / 2 - 0.15, 1.85, f"$d^{{{T - tau - 1}}}$", color="C0", fontsize=9)
        else:
            y = 1.0 + 0.6 * tau
            ax.text(x, y, f"c({tau + 1})", ha="center", va="center", bbox=box)
            ax.annotate("", (x, y - 0.25), (x, 0.25), arrowprops=dict(arrowstyle="->"))
            if tau:
                ax.annotate("", (x - 0.35, y - 0.1), ((tau - 1) * 1.4 + 0.35, y - 0.5),
                            arrowprops=dict(arrowstyle="->", color="C3"))
    top = 2.45 if focused else 1.0 + 0.6 * (T - 1)
    xc = (T - 1) * 0.7
    if focused:
        ax.text(xc, top, f"c({T}) = Σ d^(t−τ) s[net(τ)]", ha="center", va="center", bbox=box, fontsize=8)
        start = (xc, top + 0.25)
    else:
        start = ((T - 1) * 1.4, top + 0.25)
    ax.text(xc, top + 1.0, "output y", ha="center", va="center", bbox=box)
    ax.annotate("", (xc, top + 0.75), start, arrowprops=dict(arrowstyle="->"))
    ax.set_xlim(-0.8, (T - 1) * 1.4 + 0.8)
    ax.set_ylim(-0.5, top + 1.4)
    ax.axis("off")
    ax.set_title("focused: fixed depth, breadth grows (Fig. 10)" if focused
                 else "full: depth grows with the sequence (Fig. 2b)", fontsize=10)
    return ax
