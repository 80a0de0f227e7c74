"""The chapter's figures: the S/F system (:func:`system_diagram`), fast weights over a typed
flip-flop stream (:func:`latch_figure`, :func:`explorer`) and steps to solution
(:func:`steps_histogram`)."""

from __future__ import annotations

import numpy as np

from ..._numerics import checks
from ...models import fast_weights as fw
from ...tasks import streams
from ..._numerics.checks import count
from .one_run import make_net


# ----------------------------------------------------------------------------- figures
def system_diagram(ax=None, interface: str = "per-weight"):
    """S (slow, feed-forward) writes F's weights (fast, feed-forward): the flip-flop system.

    Red: F's fast weights.  Blue: S's outputs, with a dashed arrow from each to the fast
    weight(s) it writes (one per weight for (4); for (5) a FROM unit writes every weight
    leaving its F unit and the TO unit every weight entering y)."""
    import matplotlib.pyplot as plt

    checks.axes("ax", ax), checks.one_of("interface", interface, fw.INTERFACES)
    ax = ax or plt.subplots(figsize=(7, 3.6))[1]
    ax.set_axis_off()
    ev = "ABC"
    s_in = [(0.0, 0.8 - 0.3 * i) for i in range(3)]
    n_out = 3 if interface == "per-weight" else 4
    s_out = [(1.2, 0.95 - 0.3 * i) for i in range(n_out)]
    f_in = [(2.6, 0.8 - 0.3 * i) for i in range(3)]
    f_out = (3.8, 0.5)
    for (x, y), c in zip(s_in, ev):
        ax.text(x - 0.12, y, c, ha="right", va="center")
        for o in s_out:
            ax.plot([x, o[0]], [y, o[1]], color="0.6", lw=0.8, zorder=1)
    for i, (x, y) in enumerate(f_in):
        ax.text(x - 0.12, y, ev[i], ha="right", va="center")
        ax.plot([x, f_out[0]], [y, f_out[1]], color="tab:red", lw=2.0, zorder=1)

    def on_weight(a, frac):  # a point on the fast weight from F's input a to y
        return (f_in[a][0] + frac * (f_out[0] - f_in[a][0]), f_in[a][1] + frac * (f_out[1] - f_in[a][1]))

    arrow = dict(arrowstyle="->", ls="--", color="tab:blue", lw=0.9, shrinkA=8, shrinkB=2)
    for i, o in enumerate(s_out):
        if interface == "per-weight":  # s_ab writes w_ab
            targets, label = [on_weight(i, 0.5)], f"$s_{{{ev[i]}}}$"
        elif i < 3:                    # FROM unit a writes every weight leaving F's input a
            targets, label = [on_weight(i, 0.35)], f"FROM {ev[i]}"
        else:                          # TO unit y writes every weight entering y
            targets, label = [on_weight(a, 0.8) for a in range(3)], "TO y"
        bend = dict(connectionstyle="arc3,rad=0.3") if label == "TO y" else {}  # pass below F's inputs
        for tgt in targets:
            ax.annotate("", tgt, o, arrowprops={**arrow, **bend}, zorder=2)
        ax.text(o[0], o[1] + 0.08, label, fontsize=8, color="tab:blue", ha="center", va="bottom")
    for pts, col in ((s_in, "0.3"), (s_out, "tab:blue"), (f_in, "0.3"), ([f_out], "tab:red")):
        ax.scatter(*zip(*pts), s=160, color="white", edgecolor=col, zorder=3, lw=1.5)
    ax.text(f_out[0] + 0.15, f_out[1], "y", va="center")
    top = 1.22
    ax.text(0.6, top, "slow net S\n(weights U, learned)", ha="center", va="bottom", fontsize=9)
    ax.text(3.2, top, "fast net F\n(weights W(t), written by S)", ha="center", va="bottom", fontsize=9)
    if interface == "from-to":
        ax.text(2.0, -0.3, "\u25a1w_ab(t) = s_a(t) s_b(t) (eq. 5): outer product of FROM and TO",
                ha="center", fontsize=9, color="tab:blue")
    else:
        ax.text(2.0, -0.3, "\u25a1w_ab(t) = s_ab(t) (eq. 4): one S output per fast weight",
                ha="center", fontsize=9, color="tab:blue")
    ax.set_xlim(-0.4, 4.2)
    ax.set_ylim(-0.4, 1.65)
    return ax


def latch_figure(U, events: str, interface: str = "per-weight", axes=None):
    """Fast weights, F's output and the target over a typed flip-flop stream (static or in the explorer).

    Both panels share one axis of time steps, one column per event: the top panel shows at
    column t the fast weights F reads there, w(t-1) (they change between columns, when S
    writes w(t) after the read), the bottom one F's output y(t) and the target."""
    import matplotlib.pyplot as plt

    checks.axes("axes", axes, 2)
    st = streams.flipflop(events)
    net = make_net("flipflop", interface)
    out = fw.run(net, U, st.xs, st.xf, st.d, st.mask)
    if axes is None:
        _, axes = plt.subplots(2, 1, figsize=(max(6, 0.32 * len(st) + 2), 4.2), sharex=True)
    n = len(st)
    edges = np.arange(n + 1) + 0.5  # w(t) is read at step t + 1: it fills column t + 1
    for a, c in enumerate("ABC"):
        axes[0].step(np.append(0.5, edges), np.append(out["W"][0, 0, a], out["W"][:, 0, a]),
                     where="post", label=f"$w_{c}$")
    axes[0].set_ylabel("fast weight read")
    axes[0].set_ylim(-0.05, 1.05)
    axes[0].legend(fontsize=8, ncol=3, loc="upper left")
    ts = np.arange(1, n + 1)
    axes[1].bar(ts, st.d[:, 0], color="0.85", label="target d(t)")
    axes[1].plot(ts, out["y"][:, 0], "o-", color="tab:red", label="F's output y(t) = w(t-1)·x(t)")
    axes[1].set_xlabel("event at step t")
    axes[1].set_ylim(-0.05, 1.1)
    axes[1].legend(fontsize=8, loc="upper left")
    for ax in axes:  # one column per event on both panels, whether or not they share x
        ax.set_xlim(0.5, n + 0.5)
        ax.set_xticks(ts)
    axes[0].tick_params(labelbottom=False)
    axes[1].set_xticklabels(list(st.labels))
    return axes


def steps_histogram(solved, cap: int, bound=None, ax=None, label: str = "", color=None,
                    outline: bool = False):
    """Histogram of steps to solution (log bins), the failures in the legend, and the paper's
    bound as a dashed line (if ``bound`` is given).  ``outline=True`` draws only its outline,
    so that it does not hide histograms drawn before it."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    count("cap", cap, 1, 10**15), checks.axes("ax", ax), checks.color("color", color)
    checks.instance("label", label, str), checks.flag("outline", outline)
    if bound is not None:
        checks.real("bound", bound, low=0.0, low_open=True)
    ax = ax or plt.subplots(figsize=(6, 3.5))[1]
    s = checks.array("solved", solved, (None,), finite=False)  # steps to solution, -1 if never
    ok = s[s > 0]
    bins = np.logspace(np.log10(max(50, ok.min() if ok.size else 50)), np.log10(cap), 30)
    style = dict(histtype="step", lw=1.8) if outline else dict(alpha=0.6)
    ax.hist(ok, bins=bins, color=color, label=f"{label} ({int((s <= 0).sum())} unsolved by {cap:,})",
            **style)
    if bound is not None:  # labelled along the line, below where the legend sits
        ax.axvline(bound, color="k", ls="--")
        ax.text(bound, 0.35, f"paper: within {bound:,} ", rotation=90, ha="right", va="center",
                fontsize=8, transform=ax.get_xaxis_transform(),
                bbox=dict(facecolor="white", edgecolor="none", alpha=0.8, pad=1))
    ax.set_xscale("log")
    ax.set_xlabel("steps to solution")
    ax.set_ylabel("runs")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # a count of runs: no 2.5 runs
    ax.legend(fontsize=8, loc="upper right")
    return ax


def explorer(U, events: str = "ACCBBABCAB", interface: str = "per-weight"):
    """Type a flip-flop stream; watch the fast weights and F's output (ipywidgets)."""
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    checks.instance("events", events, str, "a string of flip-flop events (A, B, C)")
    streams.flipflop(events.strip() or "A")  # latch_figure's checks, before any widget is made
    checks.array("U", U, make_net("flipflop", interface).shape_U)
    text = widgets.Text(value=events, description="events")
    out = widgets.Output()

    def redraw(*_):
        with out:
            out.clear_output(wait=True)
            try:
                latch_figure(U, text.value.strip() or "A", interface)
                plt.show()
            except ValueError as e:
                print(e)

    text.observe(redraw, names="value")
    redraw()
    return widgets.VBox([text, out])
