"""Valid example calls of the chapter modules' public functions (issue 31), for
``tests/test_public_surface.py``.

Merged into :data:`surface_examples.EXAMPLES` by the last line of ``tests/surface_examples.py``:
an entry here adds (or replaces) the example of a name; an entry ``None`` removes the example
of a name that is no longer public (made private: only the library calls it).

The self-checks (``check_*``) get a right answer: the surface test then calls them with bad
answers (``None``, a string, ...), which they must refuse with :class:`tempnets.book.selfcheck.CheckFailed`.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

import surface_examples as se  # noqa: E402  (its shared data; this module is imported at its end)
from surface_examples import Example


def _a(*args, **kwargs):
    return lambda: Example(*args, **kwargs)


def _ch(name):
    import importlib

    return importlib.import_module(f"tempnets.chapters.{name}")


# ----------------------------------------------------------------------------- right answers

def _p_step_from_to(P_from, P_to, w_new, s_from, s_to, x, T):
    """The fast weights chapter's exercise, answered (eq. 3 with eq. 6)."""
    fp = T * w_new * (1 - w_new)
    return fp * (P_from + s_to * x), fp * (P_to + s_from * x)


def _bptt31(params, codes):
    """The graded state machines chapter's exercise, answered by the library."""
    from tempnets.training.srn_trainers import TrainConfig, bptt_gradient

    return tuple(bptt_gradient(params, [codes], config=TrainConfig(h=3, h_prime=1)))


def _lambda_grad_case():
    """``(answer, params, x, target, mask)`` of the temporal kernels chapter's exercise."""
    from tempnets.models import tkrnn

    x, target, mask = se.tk_batch()
    return (tkrnn.tkrnn_loss_and_grad(se.tk_params(), x, target, mask)[1]["theta"], se.tk_params(),
            x, target, mask)


def _mozer_data():
    """A ``mozer-rates`` result's data, as small as :func:`mozer_rates.search_grid` reads it."""
    found = {"settings": [[0.75, 0.02, 100.0], [1.0, 0.04, 10.0]], "epochs": 10,
             "final": [[90.0], [100.0]], "epochs_to_criterion": [[-1], [5]]}
    return {"experiment": "mozer-rates", "search": {"delay1": {"full": found}}}


_ROW = {"statement": "delay 1: every focused run learns", "paper": 100.0, "ours": 90.0,
        "verdict": "holds"}


# ----------------------------------------------------------------------------- the table

EXAMPLES = {
    # checking_our_work
    "tempnets.chapters.checking_our_work.check_crossentropy_gradient": lambda: Example(
        _ch("checking_our_work").crossentropy_gradient, budget=2),
    # fast_weights
    "tempnets.chapters.fast_weights.check_sigma": lambda: Example(_ch("fast_weights")._sigma, budget=2),
    "tempnets.chapters.fast_weights.check_latch_fixed_point": lambda: Example(
        float(_ch("fast_weights").latch_fixed_points()[2])),
    "tempnets.chapters.fast_weights.check_p_step_from_to": _a(_p_step_from_to, budget=2),
    "tempnets.chapters.fast_weights.train_baseline": None,      # private: the runners'
    "tempnets.chapters.fast_weights.equivalence_errors": None,  # private: run_linear_attention's
    "tempnets.chapters.fast_weights.check_linear_attention": lambda: Example(
        __import__("tempnets.models.fast_weights").models.fast_weights.linear_attention, budget=2),
    # focused_backprop
    "tempnets.chapters.focused_backprop.params_from_data": lambda: Example(
        _ch("focused_backprop")._params_data(se._focused_stack())),
    "tempnets.chapters.focused_backprop.figure5_verbs": _a([("shout", "SWt", 0), ("plead", "plEd", 0)]),
    "tempnets.chapters.focused_backprop.check_gamma": lambda: Example(
        _ch("focused_backprop")._gamma_reference, budget=2),
    "tempnets.chapters.focused_backprop.check_alpha_closed_form": lambda: Example(
        _ch("focused_backprop")._alpha_closed, budget=2),
    "tempnets.chapters.focused_backprop.check_rtrl_memory": _a(25 * (25 * (25 + 8 + 1)) / (25 * 9 + 2 * 25)),
    "tempnets.chapters.focused_backprop.first_runs": _a(
        {"sizes": {"runs": 2, "epochs": 10}, "focused": {"final": [90.0, 95.0], "epochs_to_criterion": [5, -1],
                                                         "params": {"arch": "focused", "W_in": [[0.1], [0.2]]}}}, 1),
    "tempnets.chapters.focused_backprop.constant_answer_score": lambda: Example(
        __import__("tempnets.tasks.verbs").tasks.verbs.verb_task(__import__("tempnets.tasks.verbs").tasks.verbs.regular_verbs()[:6], 3)),
    # graded_state_machines
    "tempnets.chapters.graded_state_machines.check_bptt31_gradient": _a(_bptt31, budget=2),
    "tempnets.chapters.graded_state_machines.train_problem3": None,  # private: run_problem3's
    # mozer_rates
    "tempnets.chapters.mozer_rates.search_grid": _a(_mozer_data(), "delay1", "full"),
    "tempnets.chapters.mozer_rates.side_by_side": _a([_ROW], [dict(_ROW, ours=80.0)], width=40),
    "tempnets.chapters.mozer_rates.untuned_tables": _a(2, budget=2),  # from the committed records
    # periodically_attentive_units
    "tempnets.chapters.periodically_attentive_units.check_attention_mask": lambda: Example(
        _ch("periodically_attentive_units").attention_mask, budget=2),
    # temporal_kernels
    "tempnets.chapters.temporal_kernels.check_kernel": lambda: Example(
        __import__("tempnets.models.tkrnn").models.tkrnn.kernel, budget=2),
    "tempnets.chapters.temporal_kernels.check_lambda_grad": lambda: Example(*_lambda_grad_case(), budget=3),
    "tempnets.chapters.temporal_kernels.check_half_life": _a(math.log(0.5) / math.log(0.9), 0.9),
    "tempnets.chapters.temporal_kernels.params_from_data": lambda: Example(
        {"params": {"TKRNN": [_ch("temporal_kernels")._jsonable_params(se.tk_params())]}}, "TKRNN", 0),
    "tempnets.chapters.temporal_kernels.search_choice": _a(
        [{"model": "TKRNN", "init_scale": 1.0, "learning_rate": 0.01, "val_string": 0.5, "final_loss": 1.0},
         {"model": "TKRNN", "init_scale": 0.5, "learning_rate": 0.01, "val_string": 0.4, "final_loss": None}],
        "TKRNN"),
    "tempnets.chapters.temporal_kernels.sizes_of": lambda: Example({"sizes": dataclasses.asdict(se.tk_sizes())}),
    "tempnets.chapters.temporal_kernels.training_choice": _a(
        [{"model": "TKRNN", "val_string": 0.5, "val_symbol": 0.6}], "TKRNN"),
    "tempnets.chapters.temporal_kernels.validation_batch": None,   # private: train_one's
    "tempnets.chapters.temporal_kernels.validation_scores": None,  # private: train_one's
}
