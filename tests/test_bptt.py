"""The learning rules (tempnets.models.bptt) against the slow reference, the exact gradient and
brute-force truncated sums."""

import numpy as np
import pytest

import reference_srn as ref
from tempnets.models.gradcheck import GradientCheckError, check_gradient
from tempnets.models.srn import SRNParams
from tempnets.training.srn_trainers import TrainConfig, bptt_gradient, train_epochs

SHAPES = [(5, 4), (5, 5), (5,), (4, 5), (4,)]  # n_in=4, n_hidden=5, n_out=4


def kernel_train(params, strings, *, h=2, h_prime=1, lr=0.1, momentum=0.0, period=None,
                 phase=None, reset=True, xent=False, epochs=1, c0=0.0):
    """Train one network with the fast kernel on ``strings`` in the given order."""
    cfg = TrainConfig(n_hidden=params[1].shape[0], h=h, h_prime=h_prime, learning_rate=lr,
                      momentum=momentum, reset_context=reset, loss="xent" if xent else "sse",
                      context_init=c0,
                      period=None if period is None else tuple(period),
                      phase=None if phase is None else tuple(phase))
    hist = train_epochs(list(strings), n_epochs=epochs, config=cfg, params=SRNParams(*params),
                        shuffle=False, progress=False)
    return hist.params.network(0), hist


def assert_params_close(got, want, atol=1e-12, what=""):
    for name, a, b in zip(SRNParams._fields, got, want):
        err = np.max(np.abs(np.asarray(a) - np.asarray(b)))
        assert err <= atol, f"{what}: {name} differs from the reference by {err:.3g} > {atol}"


def flat(params):
    return np.concatenate([np.ravel(a) for a in params])


def unflat(x):
    out, i = [], 0
    for s in SHAPES:
        n = int(np.prod(s))
        out.append(x[i:i + n].reshape(s))
        i += n
    return tuple(out)


# ----------------------------------------------------------------------------- reference


@pytest.mark.parametrize("h,h_prime", [(1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (3, 2), (5, 3),
                                       (4, 4), (8, 2)])
def test_bptt_matches_unit_level_reference(h, h_prime):
    p = ref.random_params(h * 10 + h_prime)
    strings = ref.random_strings(h + 100 * h_prime, 6)
    got, hist = kernel_train(p, strings, h=h, h_prime=h_prime, lr=0.3, momentum=0.4)
    want, sse = ref.train(p, strings, h=h, h_prime=h_prime, lr=0.3, momentum=0.4)
    assert_params_close(got, want, what=f"BPTT({h},{h_prime})")
    assert not np.allclose(got[1], p[1]) or h == 1  # learning happened
    n_steps = sum(len(s) - 1 for s in strings)
    assert hist.sq_error[0, 0] == pytest.approx(sse / n_steps, rel=1e-12)


@pytest.mark.parametrize("h,h_prime,c0", [(2, 1, 0.0), (3, 1, 0.0), (5, 1, 0.0), (4, 2, 0.0),
                                          (6, 6, 0.0), (2, 1, 0.5), (4, 2, 0.5)])
def test_pa_rule_matches_reference(h, h_prime, c0):
    p = ref.random_params(7 + h)
    strings = ref.random_strings(8 + h_prime, 5, lo=4, hi=12)
    period, phase = [1, 1, 3, 3, 4], [0, 0, 0, 2, 1]
    got, _ = kernel_train(p, strings, h=h, h_prime=h_prime, lr=0.3, momentum=0.5,
                          period=period, phase=phase, c0=c0)
    want, _ = ref.train(p, strings, h=h, h_prime=h_prime, lr=0.3, momentum=0.5,
                        period=period, phase=phase, c0=c0)
    assert_params_close(got, want, what=f"PA-BPTT({h},{h_prime}), context_init={c0}")
    # and it is not the plain rule: attention changes the result
    plain, _ = kernel_train(p, strings, h=h, h_prime=h_prime, lr=0.3, momentum=0.5, c0=c0)
    assert np.max(np.abs(plain[1] - got[1])) > 1e-3
    if c0:  # and the initial context matters
        zero, _ = kernel_train(p, strings, h=h, h_prime=h_prime, lr=0.3, momentum=0.5,
                               period=period, phase=phase)
        assert np.max(np.abs(zero[1] - got[1])) > 1e-3


@pytest.mark.parametrize("h,xent", [(2, True), (4, True), (3, False)])
def test_stream_mode_and_cross_entropy_match_reference(h, xent):
    """reset_context=False: context, PA positions and history run across strings."""
    p = ref.random_params(40 + h)
    strings = ref.random_strings(41, 5)
    kw = dict(h=h, h_prime=1, lr=0.2, momentum=0.3, period=[1, 2, 1, 3, 1],
              phase=[0, 1, 0, 2, 0], reset=False, xent=xent)
    got, _ = kernel_train(p, strings, **kw)
    want, _ = ref.train(p, strings, **kw)
    assert_params_close(got, want, what=f"stream h={h} xent={xent}")


def test_epochs_match_reference():
    p = ref.random_params(3)
    strings = ref.random_strings(4, 3)
    got, _ = kernel_train(p, strings, h=3, lr=0.2, momentum=0.6, epochs=3)
    want, _ = ref.train(p, strings, h=3, lr=0.2, momentum=0.6, epochs=3)
    assert_params_close(got, want, what="3 epochs")


# ----------------------------------------------------------------------------- h <-> depth


def layered_srn_rule(params, strings, lr, momentum, extra_depth=0):
    """The SRN rule written in the layered view (Elman 1990; Servan-Schreiber et al. 1991):
    after each symbol, dy = (d - y) y (1 - y), dh = h (1 - h) W_ho.T dy, and, for
    ``extra_depth`` > 0, that many further steps back through W_hh."""
    W_ih, W_hh, b_h, W_ho, b_o = (np.array(a) for a in params)
    vel = [np.zeros_like(a) for a in (W_ih, W_hh, b_h, W_ho, b_o)]
    n_out = W_ho.shape[0]
    for string in strings:
        c = np.zeros(W_hh.shape[0])
        xs, cs, hs = [], [], []
        for x, d in zip(string[:-1], string[1:]):
            hid = ref.logistic(b_h + W_ih[:, x] + W_hh @ c)
            y = ref.logistic(b_o + W_ho @ hid)
            xs.append(x)
            cs.append(c)
            hs.append(hid)
            dy = (np.eye(n_out)[d] - y) * y * (1 - y)
            g = [np.zeros_like(a) for a in (W_ih, W_hh, b_h, W_ho, b_o)]
            g[3] += np.outer(dy, hid)
            g[4] += dy
            dh = hid * (1 - hid) * (W_ho.T @ dy)
            for k in range(min(extra_depth + 1, len(hs))):
                s = len(hs) - 1 - k
                if k > 0:
                    dh = hs[s] * (1 - hs[s]) * (W_hh.T @ dh)
                g[0][:, xs[s]] += dh
                g[1] += np.outer(dh, cs[s])
                g[2] += dh
            for v, gi, w in zip(vel, g, (W_ih, W_hh, b_h, W_ho, b_o)):
                v *= momentum
                v += lr * gi
                w += v
            c = hid
    return W_ih, W_hh, b_h, W_ho, b_o


def test_srn_rule_is_bptt_2_1_and_h_is_depth_plus_2():
    p = ref.random_params(11)
    strings = ref.random_strings(12, 8)
    srn = layered_srn_rule(p, strings, lr=0.2, momentum=0.5)
    got21, _ = kernel_train(p, strings, h=2, h_prime=1, lr=0.2, momentum=0.5)
    assert_params_close(got21, srn, what="BPTT(2,1) vs the layered SRN rule")
    # BPTT(h, 1) goes h - 2 steps back through W_hh
    for h in (3, 5):
        deep = layered_srn_rule(p, strings, lr=0.2, momentum=0.5, extra_depth=h - 2)
        got, _ = kernel_train(p, strings, h=h, h_prime=1, lr=0.2, momentum=0.5)
        assert_params_close(got, deep, what=f"BPTT({h},1) vs {h - 2} steps through W_hh")
        assert np.max(np.abs(got[1] - srn[1])) > 1e-4, f"BPTT({h},1) should differ from SRN"


# ----------------------------------------------------------------------------- gradients


def one_update_gradient(p, string, h, period=None, phase=None, c0=0.0):
    """-(change of the weights) after one BPTT(h, n) update at the end of the string (lr=1)."""
    n = len(string) - 1
    new, _ = kernel_train(p, [string], h=h, h_prime=min(n, h), lr=1.0, momentum=0.0,
                          period=period, phase=phase, c0=c0)
    return -(flat(new) - flat(p))


@pytest.mark.parametrize("pa,c0", [(False, 0.0), (True, 0.0), (True, 0.5), (False, 0.5)])
def test_untruncated_bptt_is_the_exact_gradient(pa, c0):
    """One BPTT(h >= L, h' = L - 1) update of a string of L symbols = minus the gradient of
    its loss, computed by central differences of a forward-only loss."""
    period, phase = ([1, 2, 1, 3, 1], [0, 1, 0, 0, 0]) if pa else (None, None)
    p = ref.random_params(21)
    string = ref.random_strings(22, 1, lo=9, hi=9)[0]
    n = len(string) - 1
    grad = one_update_gradient(p, string, h=n + 1, period=period, phase=phase, c0=c0)
    f = lambda x: ref.loss(unflat(x), string, period, phase, c0=c0)  # noqa: E731
    err = check_gradient(f, grad, flat(p), rtol=1e-7)
    assert err < 1e-7
    # h = L - 1 leaves out the first hidden step: no longer the exact gradient
    short = one_update_gradient(p, string, h=n, period=period, phase=phase, c0=c0)
    with pytest.raises(GradientCheckError):
        check_gradient(f, short, flat(p), rtol=1e-5)
    # bptt_gradient (fixed weights) agrees with the single update
    cfg = TrainConfig(n_hidden=5, h=n + 1, h_prime=n, period=period, phase=phase,
                      context_init=c0)
    g2 = bptt_gradient(SRNParams(*p), [string], config=cfg)
    np.testing.assert_allclose(flat(g2), grad, atol=1e-13)


def truncated_sum_loss(p0, string, h, h_prime, period=None, phase=None):
    """Brute force: BPTT(h, h') at fixed weights p0 is the gradient of a sum over updates.

    The update after step ``s_now`` covers the outputs since the previous update;
    for it, every hidden state before ``s_w = s_now - h + 2`` is frozen at its value
    under ``p0`` and the network runs live (with the weights being differentiated)
    from ``s_w`` on.  Returns that summed loss as a function of the flat weights.
    """
    _, hs = ref.forward(p0, [string], period, phase)
    hs = hs[0]
    n = len(string) - 1
    nh = p0[1].shape[0]
    per = np.ones(nh, int) if period is None else period
    pha = np.zeros(nh, int) if phase is None else phase
    ends = [s for s in range(n) if (s + 1) % h_prime == 0 or s == n - 1]
    starts = [0] + [e + 1 for e in ends[:-1]]

    def f(x):
        W_ih, W_hh, b_h, W_ho, b_o = unflat(x)
        total = 0.0
        for first_out, s_now in zip(starts, ends):
            s_w = max(0, s_now - h + 2)
            c = hs[s_w - 1] if s_w > 0 else np.zeros(nh)
            for s in range(s_now + 1):
                if s < s_w:
                    hid = hs[s]  # frozen
                else:
                    a = ref.attentive(s, per, pha)
                    hid = np.where(a == 1, ref.logistic(b_h + W_ih[:, string[s]] + W_hh @ c), c)
                    c = hid
                if s >= first_out:
                    y = ref.logistic(b_o + W_ho @ hid)
                    total += 0.5 * np.sum((np.eye(4)[string[s + 1]] - y) ** 2)
        return total
    return f


@pytest.mark.parametrize("h,h_prime,pa", [(1, 1, False), (2, 1, False), (3, 1, False),
                                          (5, 1, False), (4, 2, False), (5, 3, False),
                                          (3, 1, True), (5, 2, True)])
def test_truncated_bptt_equals_brute_force_truncated_sum(h, h_prime, pa):
    period, phase = ([1, 3, 1, 2, 4], [0, 1, 0, 1, 3]) if pa else (None, None)
    p = ref.random_params(30 + h)
    string = ref.random_strings(31 + h, 1, lo=11, hi=11)[0]
    cfg = TrainConfig(n_hidden=5, h=h, h_prime=h_prime, period=period, phase=phase)
    grad = flat(bptt_gradient(SRNParams(*p), [string], config=cfg))
    check_gradient(truncated_sum_loss(p, string, h, h_prime, period, phase), grad, flat(p),
                   rtol=1e-7)
    if h >= 2:  # and it differs from the truncation one step shorter
        with pytest.raises(GradientCheckError):
            check_gradient(truncated_sum_loss(p, string, h - 1, min(h_prime, h - 1), period,
                                              phase), grad, flat(p), rtol=1e-5)


# ----------------------------------------------------------------------------- PA properties


def test_pa_all_attentive_equals_bptt():
    """The PA rule with every unit attentive at every step is BPTT(h, h') (reference)."""
    p = ref.random_params(51)
    strings = ref.random_strings(52, 4)
    for h, hp in [(2, 1), (4, 2)]:
        got, _ = kernel_train(p, strings, h=h, h_prime=hp, lr=0.3, momentum=0.3,
                              period=[1] * 5, phase=[0] * 5)
        want, _ = ref.train(p, strings, h=h, h_prime=hp, lr=0.3, momentum=0.3)
        assert_params_close(got, want, what=f"all-attentive PA vs BPTT({h},{hp})")


def test_pa_unit_weights_frozen_and_activation_held_when_inattentive():
    from tempnets.models.srn import srn_forward

    p = ref.random_params(61)
    string = ref.random_strings(62, 1, lo=12, hi=12)[0]
    period, phase = [1, 3, 1, 4, 2], [0, 2, 0, 1, 1]
    n = len(string) - 1
    after = [flat(p)]  # weights after steps 0..n-1 (online, h'=1: prefixes suffice)
    for k in range(n):
        new, _ = kernel_train(p, [string[:k + 2]], lr=0.5, momentum=0.7, period=period,
                              phase=phase)
        after.append(flat(new))
    idx = np.arange(flat(p).size).reshape(-1)
    rows = {}  # flat indices of the weights into hidden unit u
    offs = np.cumsum([0] + [int(np.prod(s)) for s in SHAPES])
    for u in range(5):
        rows[u] = np.concatenate([idx[offs[0]:offs[1]].reshape(5, 4)[u],
                                  idx[offs[1]:offs[2]].reshape(5, 5)[u], [offs[2] + u]])
    checked = 0
    for k in range(n):
        for u in range(5):
            changed = np.any(after[k + 1][rows[u]] != after[k][rows[u]])
            attentive = (k - phase[u]) % period[u] == 0
            assert changed == attentive, \
                f"unit {u} step {k}: attentive={attentive}, weights changed={changed}"
            checked += not attentive
    assert checked > 10
    _, _, hid = srn_forward(SRNParams(*p), [string], period=period, phase=phase,
                            return_hidden=True)
    for k in range(1, n):
        for u in range(5):
            held = hid[k, u] == hid[k - 1, u]
            assert held == ((k - phase[u]) % period[u] != 0)


@pytest.mark.parametrize("h,reset", [(2, True), (3, False), (5, True)])
def test_fused_online_kernel_equals_general_kernel(h, reset, monkeypatch):
    """h' = 1 runs a fused kernel (tempnets.models.bptt._train_one_online); the general kernel
    (_train_one) must give the same weights, and both match the reference."""
    import tempnets.training.srn_trainers as training

    p = ref.random_params(70 + h)
    strings = ref.random_strings(71, 6, lo=4, hi=14)
    kw = dict(h=h, lr=0.3, momentum=0.6, period=[1, 2, 1, 3, 5], phase=[0, 1, 0, 1, 4],
              reset=reset)
    fast, _ = kernel_train(p, strings, **kw)
    monkeypatch.setattr(training, "_USE_FAST", False)
    general, _ = kernel_train(p, strings, **kw)
    assert_params_close(fast, general, what=f"fused vs general kernel, h={h}")
    want, _ = ref.train(p, strings, **kw)
    assert_params_close(general, want, what=f"general kernel vs reference, h={h}")



def test_the_documented_exact_gradient_recipe_is_the_exact_gradient():
    """The module docstring's recipe for one exact-gradient update per string, taken from the
    text itself, matches central differences (the text once said h' = h = len(string) - 1,
    which leaves out the first hidden step: 7.5e-2 off in W_ih)."""
    import re

    import tempnets.models.bptt

    doc = " ".join(tempnets.models.bptt.__doc__.split())
    found = re.search(r"``h = ([^`]+)``, ``h' = ([^`]+)`` is one exact-gradient update per string",
                      doc)
    assert found, "the bptt docstring no longer states its exact-gradient recipe"
    p = ref.random_params(5)
    string = ref.random_strings(6, 1, lo=7, hi=7)[0]
    h, h_prime = (int(eval(e, {"len": len, "string": string})) for e in found.groups())
    new, _ = kernel_train(p, [string], h=h, h_prime=h_prime, lr=1.0, momentum=0.0)
    f = lambda x: ref.loss(unflat(x), string, None, None)  # noqa: E731
    assert check_gradient(f, -(flat(new) - flat(p)), flat(p), rtol=1e-7) < 1e-7
