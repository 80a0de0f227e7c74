"""The chapter's self-check: :func:`check_bptt31_gradient`, the exercise on the BPTT(3, 1)
gradient (the SRN rule is BPTT(2, 1); one more step back through the context weights)."""

from __future__ import annotations

from ...tasks.grammars import reber
from ...training.srn_trainers import TrainConfig

# ------------------------------------------------------------------ self-checks
def check_bptt31_gradient(fn) -> None:
    """Check ``fn(params, codes)``: the BPTT(3, 1) gradient of one string's summed error.

    ``codes`` are the string's symbol indices (B first, E last); the answer is
    an :class:`~tempnets.models.srn.SRNParams` (or a 5-tuple in its field order) of
    :math:`-\\Delta w / \\eta` summed over the string's steps: the SRN rule
    plus, for every step, its hidden deltas carried one step further back
    through the context weights (the context is 0 before the first step).
    The reference is :func:`tempnets.training.srn_trainers.bptt_gradient` with ``h=3``.
    """
    from ...book.selfcheck import check_function
    from ...models.srn import init_params
    from ...training.srn_trainers import bptt_gradient

    g = reber()
    cases = [(init_params(7, nh, 7, r=0.5, rng=k), g.encode(s))
             for k, (nh, s) in enumerate([(3, "BTXSE"), (4, "BTSXXVVE"), (5, "BPTVPXVVE")])]
    check_function("BPTT(3,1) gradient", fn,
                   lambda p, codes: tuple(bptt_gradient(p, [codes], config=TrainConfig(h=3, h_prime=1))),
                   cases, hint="the order is W_ih, W_hh, b_h, W_ho, b_o, each dE/dw (minus the weight "
                               "change over the learning rate). Step s's hidden deltas reach h(s-1) "
                               "through W_hh once, times h(s-1)(1 - h(s-1)), and no further; the output "
                               "weights are the SRN rule's.")

