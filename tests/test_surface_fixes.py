"""The argument checks the public-surface test (issue 31) made us add, one case each.

``tests/test_public_surface.py`` finds these by brute force in a subprocess; here each fix
has a fast, exact test (and the mutation audit, ``tests/mutation_audit.py``, sees it).
"""

import numpy as np
import pytest

from tempnets._numerics import checks

from tempnets.book import claims, intervals

from tempnets.models import fast_weights, focused, gradcheck

from tempnets.tasks import grammars, metrics
from tempnets.book import plots
from tempnets._numerics import random
from tempnets.models import rtrl, srn
from tempnets.tasks import streams, verbs
from tempnets.training import srn_trainers as training
from tempnets.chapters import checking_our_work, fast_weights as fw_chapter, temporal_kernels

HUGE = 10**12


def _fast_weights_run():
    net = fast_weights.FastWeightNet(2, 2, 1)
    return net, fast_weights.init_slow_weights(net, rng=0), np.ones((5, 2)), np.ones((5, 2)), np.ones((5, 1))

CASES = [
    # sizes that cannot fit: our size check before numpy's MemoryError (or an hour-long loop)
    (lambda: random.spawn(0, 10**6), ValueError, "n must be at most 100,000 generators"),
    (lambda: srn.init_params(HUGE, 3, 2), ValueError, "init_params: a network of"),
    (lambda: focused.init_focused(2, HUGE, 2), ValueError, "init_focused: a 2-1000000000000-2 network"),
    (lambda: focused.init_full(2, 10**6, 2), ValueError, "init_full: a 2-1000000-2 network"),
    (lambda: fast_weights.FastWeightNet(HUGE, 2, 1), ValueError, "FastWeightNet: n_s_in="),
    (lambda: rtrl.RecurrentNet(2, 10**6, 1), ValueError, "RecurrentNet: n_in=2, n_units=1000000"),
    (lambda: training.TrainConfig(n_hidden=HUGE).validate(), ValueError, "TrainConfig: n_hidden="),
    (lambda: training.sample_strings(grammars.reber().tables(), HUGE, 0), ValueError,
     "sample_strings: n_strings="),
    (lambda: streams.random_flipflop(HUGE, 0), ValueError, "random_flipflop: a stream of"),
    (lambda: streams.random_parking(HUGE, 0), ValueError, "random_parking: a stream of"),
    (lambda: plots.srn_diagram(n_hidden=10**6), ValueError, "n_hidden must be at most 100 units"),
    (lambda: srn.pa_attention(HUGE, 2, 3), ValueError, "pa_attention: 1000000000000 \\+ 2 units"),
    (lambda: srn.check_memory(10**400, "x"), ValueError, "x would need more than"),
    # integers a float or an int64 cannot hold
    (lambda: checks.real("lr", 10**400), ValueError, "lr must be a finite number"),
    (lambda: claims.at_least(10**400), ValueError, "threshold must be a number a float can hold"),
    (lambda: training.sample_strings(grammars.reber().tables(), 2, 0, max_length=10**400), ValueError,
     "max_length must be at most"),
    (lambda: verbs.reproduction_task(10**400), ValueError, "delay must be an integer in"),
    (lambda: fast_weights.FastWeightNet(2, 2, 1, T=10**400), ValueError, "T must be a positive finite"),
    (lambda: srn.pa_attention(2, 2, 10**400), ValueError, "period must be an integer in"),
    # wrong types and values, named
    (lambda: claims.within(-1.0), ValueError, "tol \\(the tolerance\\) must be non-negative"),
    (lambda: claims.Claim("s", "src", 1.0, 1.0, claims.within(0.1), interval="x"), TypeError,
     "interval must be \\(low, high\\)"),
    (lambda: grammars.embedded_reber("x"), ValueError, "p_loop must be a finite number"),
    (lambda: grammars.long_embedded_reber(None), ValueError, "p_no_closer must be a finite number"),
    (lambda: grammars.FiniteStateGrammar("g", "BE", None, "s"), TypeError, "arcs must be a tuple"),
    (lambda: grammars.FiniteStateGrammar("g", "BE", (("s", "B", None, 1.0),), {}), ValueError,
     "start state \\{\\} has no arcs"),
    (lambda: grammars.check_grammar(None), TypeError, "grammar must be a FiniteStateGrammar"),
    (lambda: grammars.check_strings("BTXSE"), TypeError, "strings must be a sequence of str"),
    (lambda: grammars.check_strings(["BTXSE", 5]), TypeError, "strings\\[1\\] must be a str"),
    (lambda: plots.hinton(np.eye(2), ax="x"), TypeError, "ax must be matplotlib Axes or None"),
    (lambda: metrics.luce_ratio("x"), TypeError, "activations must be an array of real numbers"),
    (lambda: metrics.indicator_position(None), TypeError, "string must be a str"),
    (lambda: intervals.share(None, 10), ValueError, "k must be a whole number of runs"),
    (lambda: intervals.share(3, 10, level=5), ValueError, "level must be a finite number"),
    (lambda: intervals.share_difference(1, 0, 1, 2), ValueError, "k1 of n1 runs needs 0 <= k1 <= n1"),
    (lambda: intervals.mean("x"), TypeError, "x must be an array of real numbers"),
    (lambda: intervals.bootstrap(None, [1.0, 2.0]), TypeError, "statistic must be a function"),
    (lambda: intervals.bootstrap(np.median, [1.0], n_resamples=0), ValueError, "n_resamples must be"),
    (lambda: gradcheck.relative_error(np.ones(2), np.ones(2), floor=None), ValueError,
     "floor must be positive"),
    (lambda: gradcheck.check_directional(np.sum, np.ones(2), np.ones(2), n_directions=None), ValueError,
     "n_directions must be an integer >= 1"),
    (lambda: fast_weights.train_online(*_fast_weights_run(), learning_rate=10**400),
     ValueError, "learning_rate must be a finite number >= 0"),
    (lambda: checking_our_work.crossentropy_gradient(None, np.ones(3), 1.0), TypeError,
     "theta must be an array of real numbers"),
    (lambda: fw_chapter.make_net(None), ValueError, "unknown task None"),
    (lambda: temporal_kernels.training_search_sizes(None), ValueError, "scale must be one of"),
]


@pytest.mark.parametrize("call,error,message", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_bad_argument_gets_our_error(call, error, message):
    with pytest.raises(error, match=message):
        call()
