"""The graders of tempnets.book.selfcheck and every chapter's self-checks: each accepts the solution
and rejects the typical wrong answers, with a message that says what is wrong."""

import numpy as np
import pytest

from tempnets.chapters import checking_our_work as cow
from tempnets.chapters import graded_state_machines as gsm
from tempnets.chapters import periodically_attentive_units as pa
from tempnets.book.selfcheck import CheckFailed, check_function, check_value
from tempnets.models.srn import SRNParams, init_params, srn_forward
from tempnets.training.srn_trainers import TrainConfig, bptt_gradient


# ------------------------------------------------------------------ core graders

def test_check_value_accepts_the_answer_within_tolerance(capsys):
    check_value("count", 43, 43)
    check_value("rate", 0.1 + 1e-9, 0.1)
    check_value("vector", [1.0, 2.0], np.array([1.0, 2.0]))
    assert capsys.readouterr().out.count("✓") == 3


@pytest.mark.parametrize("answer, message", [
    (..., "no answer yet"), (None, "no answer yet"), ("forty-three", "expected a number"),
    ([43, 43], "expected shape"), (float("nan"), "NaN"), (42, "you have 42 but the answer is 43"),
])
def test_check_value_rejects_wrong_answers(answer, message):
    with pytest.raises(CheckFailed, match=message) as info:
        check_value("count", answer, 43, hint="count the strings")
    assert "Hint: count the strings" in str(info.value)
    assert isinstance(info.value, AssertionError)  # so a failing check fails nbval


def test_check_value_names_the_worst_difference_of_an_array():
    with pytest.raises(CheckFailed, match="differ from the answer by up to 0.5"):
        check_value("vector", [1.0, 2.5], [1.0, 2.0])


def test_check_function_accepts_the_reference(capsys):
    check_function("square", lambda x: x ** 2, np.square, [(2.0,), (np.arange(3.0),)])
    check_function("pair", lambda x: (x, -x), lambda x: [x, -x], [(1.0,)])
    assert "✓ square: correct on 2 test case(s)" in capsys.readouterr().out


def not_written(x):
    raise NotImplementedError


@pytest.mark.parametrize("fn, message", [
    (3.0, "expected a function"), (not_written, "not written yet"),
    (lambda x: (x, x), "returned 2 value"), (lambda x: np.array([x]), "expected shape"),
    (lambda x: x ** 2 + 1e-3, r"test case 1\): differs from the correct result by up to 0.001"),
])
def test_check_function_rejects_wrong_functions(fn, message):
    with pytest.raises(CheckFailed, match=message):
        check_function("square", fn, np.square, [(2.0,)])


# ------------------------------------------- checking our work: cross-entropy

def test_crossentropy_check_accepts_the_solution():
    def ce_gradient(theta, x, t):
        y = 1 / (1 + np.exp(-(theta[:3] @ x + theta[3])))
        return -(t - y) * np.append(x, 1.0)
    cow.check_crossentropy_gradient(ce_gradient)


def test_crossentropy_reference_is_the_gradient_of_the_loss():
    from tempnets.models import gradcheck
    rng = np.random.default_rng(0)
    x, t, theta = rng.uniform(-1, 1, 3), 1.0, rng.uniform(-1, 1, 4)

    def loss(th):
        y = 1 / (1 + np.exp(-(th[:3] @ x + th[3])))
        return -t * np.log(y) - (1 - t) * np.log(1 - y)
    gradcheck.check_gradient(loss, cow.crossentropy_gradient(theta, x, t), theta, rtol=1e-7)


def squared_error_delta(theta, x, t):          # the chapter's delta rule: keeps y(1 - y)
    y = 1 / (1 + np.exp(-(theta[:3] @ x + theta[3])))
    return -y * (1 - y) * (t - y) * np.append(x, 1.0)


@pytest.mark.parametrize("wrong", [
    squared_error_delta,
    lambda theta, x, t: -cow.crossentropy_gradient(theta, x, t),            # sign: the update, not dL/dw
    lambda theta, x, t: cow.crossentropy_gradient(theta, x, t)[:3],         # forgot the bias
    lambda theta, x, t: -(t - 1 / (1 + np.exp(-theta[:3] @ x))) * np.append(x, 1.0),  # bias left out of net
])
def test_crossentropy_check_rejects_typical_mistakes(wrong):
    with pytest.raises(CheckFailed):
        cow.check_crossentropy_gradient(wrong)


# ------------------------------------ graded state machines: BPTT(3,1) by hand

def bptt31(params, codes, *, earlier_derivative=True, transpose=False, steps_back=1, sign=1.0):
    """BPTT(3,1) written out layer by layer, with switches for typical mistakes."""
    y, _, h = srn_forward(params, [codes], return_hidden=True)
    x_in, target = codes[:-1], codes[1:]
    dy = (np.eye(7)[target] - y) * y * (1 - y)
    dh = h * (1 - h) * (dy @ params.W_ho)                      # the SRN rule's hidden deltas
    back = np.zeros_like(dh)
    W = params.W_hh.T if transpose else params.W_hh
    if steps_back:
        back[:-1] = (dh[1:] @ W) * (h[:-1] * (1 - h[:-1]) if earlier_derivative else 1.0)
    d = dh + back
    c = np.vstack([np.zeros(h.shape[1]), h[:-1]])
    g_ih = np.zeros_like(params.W_ih)
    np.add.at(g_ih.T, x_in, d)
    return SRNParams(*(sign * -g for g in (g_ih, d.T @ c, d.sum(0), dy.T @ h, dy.sum(0))))


def test_bptt31_check_accepts_the_solution():
    gsm.check_bptt31_gradient(bptt31)


@pytest.mark.parametrize("wrong", [
    lambda p, c: bptt31(p, c, steps_back=0),                  # the SRN rule, BPTT(2,1)
    lambda p, c: bptt31(p, c, earlier_derivative=False),      # forgot h(s-1)(1 - h(s-1))
    lambda p, c: bptt31(p, c, transpose=True),                # W_hh instead of its transpose
    lambda p, c: bptt31(p, c, sign=-1.0),                     # the weight change, not the gradient
    lambda p, c: tuple(bptt_gradient(p, [c], config=TrainConfig(h=len(c) + 1, h_prime=len(c)))),  # exact BPTT
    lambda p, c: bptt31(p, c)[:4],                            # forgot the output bias
])
def test_bptt31_check_rejects_typical_mistakes(wrong):
    with pytest.raises(CheckFailed):
        gsm.check_bptt31_gradient(wrong)


# ------------------------------------- periodically attentive units: attention

def test_attention_mask_check_accepts_the_solution():
    def mask(period, phase, n_steps):
        return np.array([[(t - q) % p == 0 for p, q in zip(period, phase)] for t in range(n_steps)])
    pa.check_attention_mask(mask)


def test_attention_mask_reference_matches_the_training_engine():
    # The engine's held units are exactly those the mask calls inattentive.
    grammar = pa.thesis_embedded_reber()
    cfg = TrainConfig.pa()
    net = init_params(7, 15, 7, rng=3)
    s = "BPTSXXVVPE"
    tr = pa.hidden_trace(net, s, cfg, grammar)
    assert np.array_equal(tr["attentive"], pa.attention_mask(cfg.period, cfg.phase, len(s) - 1))


@pytest.mark.parametrize("wrong", [
    lambda period, phase, n: pa.attention_mask(period, phase, n).T,                   # units as rows
    lambda period, phase, n: (np.arange(n)[:, None] + phase) % period == 0,           # + phase
    lambda period, phase, n: (np.arange(1, n + 1)[:, None] - phase) % period == 0,    # steps from 1
    lambda period, phase, n: np.ones((n, len(period)), dtype=bool),                    # all attentive
])
def test_attention_mask_check_rejects_typical_mistakes(wrong):
    with pytest.raises(CheckFailed):
        pa.check_attention_mask(wrong)


# ------------------------------------------------------------------ issue 21 items 4 and 6

def test_item4_answers_that_change_their_arguments_cannot_fool_the_check(capsys):
    def reference(P, x):
        return 2.0 * (P + x)

    def correct_in_place(P, x):  # rejected when the reference saw the mutated P
        P += x
        P *= 2.0
        return P

    check_function("in place", correct_in_place, reference, [(np.ones(3), np.arange(3.0))])

    def zeroes_its_input(P, x):  # wrong, but "correct" when the reference ran afterwards
        x[:] = 0.0
        return 2.0 * P

    with pytest.raises(CheckFailed, match="differs from the correct result"):
        check_function("zeroing", zeroes_its_input, reference, [(np.ones(3), np.arange(3.0))])


def test_item6_lists_and_tuples_that_convert_cleanly_are_accepted(capsys):
    check_function("square", lambda x: [v ** 2 for v in x], np.square, [(np.arange(5.0),)])
    check_function("square", lambda x: tuple(v ** 2 for v in x), np.square, [(np.arange(5.0),)])
    check_value("vector", (1.0, 2.0), np.array([1.0, 2.0]))
    assert capsys.readouterr().out.count("✓") == 3


@pytest.mark.parametrize("fn, message", [
    (lambda x: None, r"square \(test case 1\): your function returned None — did you forget `return`\?"),
    (lambda x: "abc", r"your function returned a str \('abc'\), expected an array of shape \(5,\)"),
    (lambda x: {"a": 1}, r"your function returned a dict"),
    (lambda x: x * np.nan, r"your result has NaN or infinite entries"),
    (lambda x: x[:4], r"expected shape \(5,\), got \(4,\)"),
])
def test_item6_each_wrong_kind_of_answer_is_said_in_one_sentence(fn, message):
    with pytest.raises(CheckFailed, match=message) as info:
        check_function("square", fn, np.square, [(np.arange(5.0),)])
    assert "\n" not in str(info.value)


def test_item6_a_runaway_answer_is_stopped():
    import time

    def forever(x):
        while True:
            time.sleep(0.01)

    start = time.perf_counter()
    with pytest.raises(CheckFailed, match=r"stopped after 0.2 s without an answer — does a loop never end\?"):
        check_function("square", forever, np.square, [(2.0,)], time_limit=0.2)
    assert time.perf_counter() - start < 5
