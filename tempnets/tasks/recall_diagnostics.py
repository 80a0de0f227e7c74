r"""What a network trained on serial recall remembers: which letters, in which order, and how.

Diagnostics for the serial-recall task of Sutskever & Hinton (2010), §1
(:mod:`tempnets.tasks.sequences`), used by the temporal-kernels chapter to say *why* a TKRNN
that recalls most letters recalls almost no string (issue 33).  None of them is the
paper's: its experimental section is not in our copy.

Item and order memory are the two classic components of immediate serial recall
(psychology's distinction, e.g. Botvinick & Plaut 2006): a letter recalled *in place*
is right in item and order; a letter of the string recalled in the wrong place is an
order error; a letter that is not in the string is an item error.

====================  ======================================================================
function              what
====================  ======================================================================
:func:`recalled`      the letters a network outputs at the recall steps, ``(B, L)``
:func:`item_order`    share of recalled letters in place (order), in the string (item), and
                      of the wrong letters the share that are letters of the string
:func:`serial_position` share right at each position of the string (the serial-position curve)
:func:`decays`        a TKRNN's decays λ of its input and hidden senders, and the range of θ
:func:`decay_histogram` counts of those decays in bins (the λ histogram)
:func:`without_input_output` a TKRNN's parameters with the output kernels from the inputs cut
====================  ======================================================================

Shapes follow the library: logits ``(T, B, O)``, targets and masks ``(T, B)`` (as
:func:`tempnets.tasks.sequences.make_batch` returns them), strings of ``L`` letters.
"""

from __future__ import annotations

import numpy as np

from ..models import tkrnn
from .._numerics.checks import array
from .sequences import recall_scores

__all__ = ["recalled", "item_order", "serial_position", "decays", "decay_histogram",
           "without_input_output"]


def _recall_steps(logits, target, mask):
    """``(outputs, letters)``, each ``(B, L)``: the argmax output and the target letter at each
    sequence's recall steps, in time order (after :func:`tempnets.tasks.sequences.recall_scores`
    has checked the three arrays agree; a step with a non-finite logit outputs ``-1``)."""
    steps = array("mask", mask, (None, None)).sum(axis=0)
    if steps.size == 0 or steps[0] < 1 or np.any(steps != steps[0]):
        raise ValueError("mask must score the same number (> 0) of recall steps in every sequence "
                         f"(columns), got {sorted(set(steps.tolist()))[:5]} steps")
    recall_scores(logits, target, mask)  # checks shapes, a 0/1 mask, L recall steps each
    logits = np.asarray(logits)
    mask = np.asarray(mask)
    B = mask.shape[1]
    L = int(mask[:, 0].sum())
    bb, tt = np.nonzero(mask.T)  # sequence by sequence, each in time order
    out = logits.argmax(axis=-1)
    out = np.where(np.isfinite(logits).all(axis=-1), out, -1)  # a diverged step answers nothing
    return out[tt, bb].reshape(B, L), np.asarray(target)[tt, bb].reshape(B, L)


def recalled(logits, target, mask) -> np.ndarray:
    """The letters output at each sequence's ``L`` recall steps (argmax), ``(B, L)`` integers;
    ``-1`` where a logit is not finite."""
    return _recall_steps(logits, target, mask)[0]


def item_order(logits, target, mask) -> dict:
    """Item and order memory of a batch's recall.

    Returns
    -------
    dict
        ``order``: share of recalled letters that are the string's letter at that position
        (the letter accuracy, :func:`tempnets.tasks.sequences.recall_scores`'s ``symbol``);
        ``item``: share of recalled letters that occur somewhere in the string;
        ``wrong_in_string``: of the letters recalled wrong, the share that occur in the
        string (order errors; ``nan`` when none is wrong); ``chance_in_string``: that share
        if the wrong letters were drawn uniformly from the letters the network outputs
        (the alphabet, ``O - 1`` classes without the blank), for comparison.
    """
    out, letters = _recall_steps(logits, target, mask)
    in_string = (out[:, :, None] == letters[:, None, :]).any(axis=2)
    right = out == letters
    wrong = ~right
    n_letters = np.shape(logits)[-1] - 1  # the outputs' classes are the letters and the blank
    distinct = np.mean([len(np.unique(s)) for s in letters])
    return {"order": float(right.mean()), "item": float(in_string.mean()),
            "wrong_in_string": float(in_string[wrong].mean()) if wrong.any() else float("nan"),
            "chance_in_string": float((distinct - 1) / (n_letters - 1)) if n_letters > 1 else float("nan")}


def serial_position(logits, target, mask) -> np.ndarray:
    """Share of the batch's strings whose letter at position ``i`` is recalled right, ``(L,)``."""
    out, letters = _recall_steps(logits, target, mask)
    return (out == letters).mean(axis=0)


def decays(params) -> dict:
    """A TKRNN^{+n}'s decays: ``input`` (λ of every kernel of every input unit), ``hidden`` (of
    the hidden units), flat arrays; ``theta``: ``(min, max)`` of the logits θ behind them."""
    b = tkrnn.blocks(params)
    theta = np.asarray(params["theta"])
    return {"input": b["lam_x"].ravel(), "hidden": b["lam_y"].ravel(),
            "theta": (float(theta.min()), float(theta.max()))}


def decay_histogram(params, bins=(0.0, 0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 1.0)) -> dict:
    """Counts of a TKRNN's decays in ``bins`` (increasing edges in [0, 1]; the last bin includes
    1), for its input and hidden senders, with each group's median.

    The default bins separate short memories (λ < 0.9: half-life under 7 steps) from
    near-integrators (λ ≥ 0.99: half-life of 69 steps or more)."""
    edges = array("bins", bins, (None,))
    if edges.size < 2 or np.any(np.diff(edges) <= 0) or edges[0] < 0 or edges[-1] > 1:
        raise ValueError(f"bins must be at least two increasing edges in [0, 1], got {list(bins)}")
    d = decays(params)
    return {"bins": edges.tolist(),
            **{k: np.histogram(d[k], edges)[0].tolist() for k in ("input", "hidden")},
            **{f"median_{k}": float(np.median(d[k])) for k in ("input", "hidden")}}


def without_input_output(params) -> dict:
    """A copy of TKRNN^{+n} ``params`` whose outputs no longer see the input kernels: every
    column of ``W_z`` that reads an input unit's kernel state is set to 0 (eq. 7's output
    analogue keeps ``W_{y→z}`` only)."""
    I, H, _, n = tkrnn._shapes(params)
    out = {k: np.array(v, copy=True) for k, v in params.items()}
    for r in range(n):  # kernel r's senders are [y (H), x (I)] in columns r (H + I) ...
        out["W_z"][:, r * (H + I) + H:(r + 1) * (H + I)] = 0.0
    return out
