"""Stepping through a string with a trained SRN: a static figure and an ipywidgets explorer.

Servan-Schreiber, Cleeremans & McClelland (1991), Figures 5–7, 13, 14: the
network's state (output, hidden, context, input) after one letter of a
string.  :func:`state_figure` draws that state for step ``t`` of a string,
with the grammar's legal successors named in its title; the built
book shows it as is.  :func:`explorer` wraps it in widgets (type or sample a
string, move a slider) for Binder and Jupyter.
"""

from __future__ import annotations

import numpy as np

from . import plots
from ..tasks.grammars import check_grammar
from .._numerics.checks import count, real
from ..models.srn import SRNParams, check_params, srn_forward

__all__ = ["string_states", "state_figure", "explorer"]


def _finite_params(params) -> None:
    """Refuse weights a figure cannot show (NaN or infinite: a diverged network)."""
    for field, a in zip(SRNParams._fields, check_params(params)):
        if not np.isfinite(a).all():
            raise ValueError(f"params.{field} must be finite (the weights of a trained network), "
                             f"got {a[~np.isfinite(a)][0]}")


def _check_string(string) -> None:
    if not isinstance(string, str):
        raise TypeError(f"string must be a str of the grammar's letters (starting with B), got "
                        f"{type(string).__name__}")


def string_states(params, grammar, string: str) -> dict:
    """Activations of one network at every step of ``string`` (a full string or a prefix, with B).

    Returns
    -------
    dict
        ``input``, ``context``, ``hidden``, ``output``: arrays of shape
        ``(T, units)`` with ``T = len(string)`` (every symbol is presented,
        the last one included, so a prefix can be explored); ``legal``: the
        grammar's successors after each prefix (an empty set once the string
        is complete, ``None`` if the prefix is ungrammatical).
    """
    grammar = check_grammar(grammar)
    _finite_params(params)
    _check_string(string)
    grammar.validate(string)
    if len(string) < 1:
        raise ValueError("string must have at least one symbol (B)")
    enc = grammar.encode(string + string[-1])  # a dummy target lets the last symbol be presented
    y, _, h = srn_forward(params, [enc], return_hidden=True)
    ctx = np.vstack([np.zeros((1, h.shape[1])), h[:-1]])
    legal = []
    for t in range(len(string)):
        if legal and legal[-1] is None:  # an ungrammatical prefix stays so (and each try costs t)
            legal.append(None)
            continue
        try:
            legal.append(grammar.successors(string[:t + 1]))
        except ValueError:  # not a prefix of any string of the grammar
            legal.append(None)
    return {"input": np.eye(len(grammar.alphabet))[enc[:-1]], "context": ctx, "hidden": h,
            "output": y, "legal": legal}


def state_figure(params, grammar, string: str, t: int | None = None, ax=None, threshold: float = 0.3):
    """The network's state after symbol ``t`` of ``string`` (default: the last), as in Figures 5–7.

    The title shows the string with the current letter capitalised, the
    grammar's legal successors ("none (string complete)" after the E of a
    complete string, "none (ungrammatical)" after a prefix no string of the
    grammar has) and the letters the network predicts (output above
    ``threshold``).

    Returns
    -------
    matplotlib Axes
    """
    grammar = check_grammar(grammar)
    st = string_states(params, grammar, string)
    t = len(string) - 1 if t is None else count("t", t)
    threshold = real("threshold", threshold)
    if not 0 <= t < len(string):
        raise ValueError(f"t must be in 0..{len(string) - 1} for {string!r}, got {t}")
    shown = string[:t].lower() + string[t].upper() + string[t + 1:].lower()
    predicted = "".join(c for c, a in zip(grammar.alphabet, st["output"][t]) if a > threshold)
    if st["legal"][t] is None:
        legal = "none (ungrammatical)"
    else:
        legal = "".join(c for c in grammar.alphabet if c in st["legal"][t]) or "none (string complete)"
    ax = plots.network_state({"Output": st["output"][t], "Hidden": st["hidden"][t],
                              "Context": st["context"][t], "Input": st["input"][t]}, ax=ax,
                             unit_labels={"Output": grammar.alphabet, "Input": grammar.alphabet},
                             title=f"{shown}   legal: {legal}   predicted (> {threshold}): "
                                   f"{predicted or 'none'}")
    return ax


def explorer(params, grammar, string: str | None = None, rng=None):
    """An ipywidgets explorer: a text box (or "sample") for the string and a slider for the step.

    Returns the widget (display it in a notebook).  Needs ``ipywidgets``.
    """
    grammar = check_grammar(grammar)
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from .._numerics.random import as_generator

    _finite_params(params)
    if string is not None:
        _check_string(string)
    gen = as_generator(rng)
    string = string or grammar.sample(1, rng=gen)[0]
    text = widgets.Text(value=string, description="string")
    sample = widgets.Button(description="sample")
    step = widgets.IntSlider(value=0, min=0, max=len(string) - 1, description="step")
    out = widgets.Output()

    def redraw(*_):
        s = text.value.strip().upper()
        with out:
            out.clear_output(wait=True)
            try:
                step.max = max(len(s) - 1, 0)
                fig, ax = plt.subplots(figsize=(9, 3.2))
                state_figure(params, grammar, s, min(step.value, len(s) - 1), ax=ax)
                plt.show()
            except (ValueError, TypeError) as e:
                print(e)

    def new_string(_):
        text.value = grammar.sample(1, rng=gen)[0]
        step.value = 0

    sample.on_click(new_string)
    text.observe(redraw, names="value")
    step.observe(redraw, names="value")
    redraw()
    return widgets.VBox([widgets.HBox([text, sample]), step, out])
