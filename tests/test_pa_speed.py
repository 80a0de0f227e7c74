"""Issue 35, item 6: the PA paper-scale runs do no work they do not use, with the same results.

``pa-8.4`` and ``pa-framing`` compare with networks of ``pa-8.1``; without its result they
trained all of ``pa-8.1`` (three conditions, long test sets) and used two conditions or one.
Test sets are encoded and checked once per run, not at every test of every condition.
"""

import json

import numpy as np
import pytest

from tempnets.tasks import metrics
from tempnets.chapters import periodically_attentive_units as pa
from tempnets.chapters.periodically_attentive_units import trainer as pa_trainer

from test_periodically_attentive_units import TINY, tiny  # noqa: F401 (the chapter tests' tiny sizes)


@pytest.fixture
def trained(monkeypatch):
    """The condition names and test sets of every ``train_conditions`` call, in order."""
    calls = []
    real = pa.train_conditions

    def spy(grammar, configs, sizes, **kw):
        calls.append((sorted(configs), sorted(kw["tests"])))
        return real(grammar, configs, sizes, **kw)

    monkeypatch.setattr(pa_trainer, "train_conditions", spy)  # the runners call trainer.train_conditions
    return calls


def _data(result):
    """A result's data as its record would hold it, without wall times."""
    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k != "wall_time_s"}
        return [strip(v) for v in x] if isinstance(x, list) else x
    return strip(json.loads(json.dumps(result.data)))


def test_figure_8_4_alone_trains_only_the_two_bptt_conditions_it_compares_with(tiny, trained):
    alone = pa.run_fig8_4(scale="book", seed=0, progress=False)
    assert trained == [(["PA-BPTT(3,1)", "PA-BPTT(4,1)", "PA-BPTT(5,1)"], ["original"]),
                       (["BPTT(3,1)", "BPTT(4,1)"], ["original"])]
    # the same data and claims as with the whole pa-8.1 result as its baseline
    r81 = pa.run_fig8_1(scale="book", seed=0, progress=False)
    given = pa.run_fig8_4(scale="book", seed=0, progress=False, baseline=r81)
    assert _data(alone) == _data(given)
    assert json.dumps(alone.claims.rows()) == json.dumps(given.claims.rows())


def test_framing_alone_trains_only_bptt_5_in_the_thesis_framing(tiny, trained):
    alone = pa.run_framing(scale="book", seed=0, progress=False)
    assert trained[0] == (["BPTT(5,1)"], ["original"]) and len(trained) == 2
    r81 = pa.run_fig8_1(scale="book", seed=0, progress=False)
    given = pa.run_framing(scale="book", seed=0, progress=False, baseline=r81)
    assert _data(alone) == _data(given)
    assert json.dumps(alone.claims.rows()) == json.dumps(given.claims.rows())


def test_a_test_set_is_encoded_once_per_run_not_per_test(monkeypatch):
    g = pa._grammar("embedded")
    tests = {"original": (pa.test_strings(g, 30, 5), g)}
    encoded = []
    real = type(g).encode
    monkeypatch.setattr(type(g), "encode", lambda self, s: encoded.append(s) or real(self, s))
    sz = pa.Sizes(2, 400, 100, 30)  # 5 tests of 2 conditions
    pa.train_conditions(g, {n: pa.condition_config(n) for n in ("SRN", "PA")}, sz, seed=0,
                        tests=tests, progress=False)
    # each of the 30 test strings encoded twice (its symbols, its successors) in the whole run
    assert len(encoded) == 2 * 30


def test_scores_of_an_encoded_test_set_are_those_of_the_metrics():
    g = pa._grammar("time-varying")
    strings = pa.test_strings(g, 60, 3)
    net = pa.train_condition(g, pa.condition_config("PA"), pa.Sizes(3, 300, 300, 60), seed=1,
                             tests={"original": (strings, g)}, progress=False)
    p = pa.params_from_data(net)
    s = pa.score(p, strings, g, pa.condition_config("PA"))
    from tempnets.models.srn import srn_forward
    y, off = srn_forward(p.stack(), [g.encode(x) for x in strings],
                         **pa._attention(pa.condition_config("PA")))
    e, f = metrics.embed_final_many(y, strings, g, off)
    assert np.array_equal(s["embed_ok"], e) and np.array_equal(s["final_ok"], f)
    assert np.array_equal(s["final"], 100.0 * f.mean(axis=1))
