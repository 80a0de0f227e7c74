"""Trainers (tempnets.training.srn_trainers): sampling, determinism, replications, validation, divergence."""

import numba
import numpy as np
import pytest

import reference_srn as ref
from tempnets._numerics.random import spawn
from tempnets.models.srn import SRNParams, _draw_params
from tempnets.training.srn_trainers import (DivergenceError, TrainConfig, bptt_gradient, sample_strings,
                               train_epochs, train_online)

TABLES = ref.reber_tables()
SMALL = TrainConfig(n_hidden=6, learning_rate=0.1, momentum=0.5)


def assert_same(p, q):
    for name, a, b in zip(SRNParams._fields, p, q):
        assert np.array_equal(a, b), f"{name} differs"


def test_sampled_strings_are_reber_strings_with_the_right_statistics():
    flat, offsets = sample_strings(TABLES, 3000, rng=4)
    strings = [flat[offsets[i]:offsets[i + 1]] for i in range(3000)]
    assert all(ref.is_reber(s) for s in strings)
    lengths = np.array([len(s) - 2 for s in strings])  # letters only
    # P(first letter T) = 0.5; letters >= 3 always
    first_t = np.mean([s[1] == 1 for s in strings])
    assert abs(first_t - 0.5) < 0.04
    assert lengths.min() >= 3
    # strings do not depend on the block size of uniforms: same seed, same strings
    flat2, _ = sample_strings(TABLES, 3000, rng=4)
    np.testing.assert_array_equal(flat, flat2)


def test_online_training_is_training_on_the_sampled_strings():
    """train_online(seed) == init from spawn(seed,1)[0], then train_epochs on the strings the
    same generator samples next, in order."""
    hist = train_online(TABLES, 300, config=SMALL, rng=8, progress=False, chunk_strings=77)
    gen = spawn(8, 1)[0]
    p0 = _draw_params(gen, 7, 6, 7, SMALL.init_range)
    flat, offsets = sample_strings(TABLES, 300, rng=gen)
    hist2 = train_epochs(flat, offsets, n_epochs=1, config=SMALL, params=p0, shuffle=False,
                         progress=False)
    assert_same(hist.params.network(0), hist2.params.network(0))
    assert hist.strings_seen.tolist() == [77, 154, 231, 300]
    assert hist.sq_error.shape == (1, 4)
    assert hist.n_steps[0] == flat.size - 300


def test_strings_longer_than_the_buffer_expects_give_the_same_training():
    """train_online samples each chunk into a buffer of 12 symbols a string per network and
    grows it when a chunk needs more: with long strings the result is still the networks
    trained alone on the strings sample_strings draws."""
    from tempnets.tasks.grammars import long_embedded_reber

    tables = long_embedded_reber().tables()
    many = train_online(tables, 40, config=SMALL, n_networks=3, rng=4, progress=False,
                        chunk_strings=6)
    for k, gen in enumerate(spawn(4, 3)):  # (the buffer grows when some rows are half full)
        p0 = _draw_params(gen, 7, 6, 7, SMALL.init_range)
        flat, offsets = sample_strings(tables, 40, rng=gen)
        assert flat.size / 40 > 12  # the buffer had to grow
        alone = train_epochs(flat, offsets, n_epochs=1, config=SMALL, params=p0, shuffle=False,
                             progress=False)
        assert_same(many.params.network(k), alone.params.network(0))
        assert many.n_steps[k] == flat.size - 40


def test_network_k_alone_equals_network_k_among_R_on_any_thread_count():
    cfg = TrainConfig.pa(n_normal=3, n_pa=3, period=3, h=3, learning_rate=0.05)
    many = train_online(TABLES, 400, config=cfg, n_networks=4, rng=11, progress=False,
                        chunk_strings=150)
    alone = train_online(TABLES, 400, config=cfg, n_networks=[2], rng=11, progress=False,
                         chunk_strings=400)
    assert_same(many.params.network(2), alone.params.network(0))
    assert not np.array_equal(many.params.W_hh[1], many.params.W_hh[2])
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one_thread = train_online(TABLES, 400, config=cfg, n_networks=4, rng=11, progress=False,
                                  chunk_strings=150)
    finally:
        numba.set_num_threads(old)
    for k in range(4):
        assert_same(many.params.network(k), one_thread.params.network(k))
    np.testing.assert_array_equal(many.sq_error, one_thread.sq_error)


def test_configs_side_by_side_equal_each_config_alone():
    """A sequence of configs shares one sample of strings; each config's networks are the
    ones it trains alone (same initial weights, same strings), from a seed or from params."""
    configs = [SMALL, TrainConfig(n_hidden=6, learning_rate=0.1, momentum=0.5, period=[1, 3] * 3,
                                  phase=[0, 1] * 3), TrainConfig(n_hidden=6, h=3, momentum=0.5)]
    together = train_online(TABLES, 120, config=configs, n_networks=3, rng=5, progress=False,
                            chunk_strings=50)
    assert isinstance(together, list) and len(together) == 3
    for cfg, h in zip(configs, together):
        alone = train_online(TABLES, 120, config=cfg, n_networks=3, rng=5, progress=False,
                             chunk_strings=50)
        assert h.config is cfg
        assert_same(h.params, alone.params)
        np.testing.assert_array_equal(h.sq_error, alone.sq_error)
        np.testing.assert_array_equal(h.n_steps, alone.n_steps)
    # the configs differ, so the test can fail
    assert not np.array_equal(together[0].params.W_hh, together[1].params.W_hh)
    # continuing from each config's own weights (one SRNParams per config)
    again = train_online(TABLES, 40, config=configs[:2], n_networks=3, rng=6, progress=False,
                         params=[h.params for h in together[:2]])
    for cfg, h, g in zip(configs, together, again):
        assert_same(g.params, train_online(TABLES, 40, config=cfg, n_networks=3, rng=6,
                                           params=h.params, progress=False).params)
    with pytest.raises(ValueError, match="must agree on n_in, n_hidden"):
        train_online(TABLES, 5, config=[SMALL, TrainConfig(n_hidden=7)], progress=False)
    with pytest.raises(ValueError, match="one per config"):
        train_online(TABLES, 5, config=configs, params=[together[0].params], progress=False)
    with pytest.raises(TypeError, match="config must be a TrainConfig"):
        train_online(TABLES, 5, config=[SMALL, "PA"], progress=False)


def test_epoch_training_deterministic_and_shuffled_per_network():
    strings = [ref.encode(s) for s in ("BTSXSE", "BPVVE", "BTXXVVE", "BPTVPSE")]
    a = train_epochs(strings, n_epochs=5, config=SMALL, n_networks=2, rng=3, progress=False)
    b = train_epochs(strings, n_epochs=5, config=SMALL, n_networks=2, rng=3, progress=False)
    assert_same(a.params, b.params)
    c = train_epochs(strings, n_epochs=5, config=SMALL, n_networks=[1], rng=3, progress=False,
                     chunk_strings=1)
    assert_same(a.params.network(1), c.params.network(0))
    assert c.strings_seen.tolist() == [4, 8, 12, 16, 20]
    # shuffling changes the result (vs the fixed order, same initial weights)
    d = train_epochs(strings, n_epochs=5, config=SMALL, n_networks=2, rng=3, shuffle=False,
                     progress=False)
    assert not np.array_equal(a.params.W_hh, d.params.W_hh)


def test_training_reduces_error_on_reber_strings():
    cfg = TrainConfig(n_hidden=8, learning_rate=0.1, momentum=0.5)
    hist = train_online(TABLES, 3000, config=cfg, rng=0, progress=False, chunk_strings=500)
    assert hist.sq_error[0, -1] < 0.8 * hist.sq_error[0, 0]


def test_params_argument_is_not_modified_and_broadcast():
    p = SRNParams(*ref.random_params(1, n_in=7, nh=6, n_out=7))
    keep = p.copy()
    hist = train_online(TABLES, 50, config=SMALL, n_networks=2, params=p, rng=0, progress=False)
    assert_same(p, keep)
    assert hist.params.W_ih.shape == (2, 6, 7)
    assert not np.array_equal(hist.params.W_ih[0], hist.params.W_ih[1])  # different strings


@pytest.mark.parametrize("changes,exc,match", [
    (dict(h=0), ValueError, "h must be >= 1, got 0"),
    (dict(h=2, h_prime=3), ValueError, "1 <= h_prime <= h; got h=2, h_prime=3"),
    (dict(h_prime=0), ValueError, "h_prime must be >= 1"),
    (dict(h=2.5), TypeError, "h must be an integer"),
    (dict(learning_rate=-0.1), ValueError, "learning_rate must be >= 0"),
    (dict(momentum=1.0), ValueError, r"momentum must be in \[0, 1\)"),
    (dict(momentum=-0.1), ValueError, r"momentum must be in \[0, 1\)"),
    (dict(init_range=0.0), ValueError, r"init_range \(r\) must be > 0"),
    (dict(loss="mse"), ValueError, "loss must be 'sse' or 'xent'"),
    (dict(context_init=-0.1), ValueError, r"context_init must be in \[0, 1\]"),
    (dict(context_init="0.5"), TypeError, "context_init must be a finite real number"),
    (dict(period=(1, 1, 1, 1, 1, 0)), ValueError, "period must be >= 1 .* unit 5 has period 0"),
    (dict(period=(1, 1, 1, 1, 1, 7), phase=(0, 0, 0, 0, 0, 7)), ValueError,
     "unit 5 has phase 7 with period 7"),
    (dict(period=(1, 2)), ValueError, r"period must have shape \(6,\)"),
])
def test_bad_config_raises_clear_errors(changes, exc, match):
    import dataclasses

    cfg = dataclasses.replace(SMALL, **changes)
    with pytest.raises(exc, match=match):
        train_online(TABLES, 5, config=cfg, rng=0, progress=False)
    with pytest.raises(exc, match=match):
        train_epochs([ref.encode("BTXSE")], n_epochs=1, config=cfg, rng=0, progress=False)


def test_bad_data_raises_clear_errors():
    with pytest.raises(ValueError, match="string 1 has symbol index 9, not in 0..6"):
        train_epochs([ref.encode("BTXSE"), np.array([0, 9, 6])], n_epochs=1,
                     config=TrainConfig(n_in=7, n_out=7), progress=False)
    with pytest.raises(ValueError, match="string 0 has 1 symbols; each string needs at least 2"):
        train_epochs([np.array([0])], n_epochs=1, progress=False)
    with pytest.raises(ValueError,
                       match=r"params.W_ih has shape \(1, 3, 7\); expected \(1, 6, 7\)"):
        train_epochs([ref.encode("BTXSE")], n_epochs=1, config=SMALL, progress=False,
                     params=SRNParams(*ref.random_params(0, n_in=7, nh=3, n_out=7)))
    with pytest.raises(ValueError, match="n_epochs must be an integer >= 0"):
        train_epochs([ref.encode("BTXSE")], n_epochs=-1, progress=False)
    with pytest.raises(ValueError, match="grammar emits symbol indices up to 6 but the network "
                                         "has 5 inputs"):
        train_online(TABLES, 5, config=TrainConfig(n_in=5), progress=False)
    bad = TABLES._replace(cumprob=TABLES.cumprob * 0.9)
    with pytest.raises(ValueError,
                       match="cumprob of state 0 must be non-decreasing and end at 1.0"):
        train_online(TABLES._replace(cumprob=bad.cumprob), 5, progress=False)
    with pytest.raises(TypeError, match="tables must have fields symbol, target, cumprob, start"):
        train_online(object(), 5, progress=False)
    with pytest.raises(TypeError, match="config must be a TrainConfig"):
        train_online(TABLES, 5, config=dict(h=2), progress=False)
    loop = TABLES._replace(target=np.where(TABLES.target == -1, 5, TABLES.target))
    with pytest.raises(ValueError, match="no arc ends a string"):
        train_online(loop, 5, progress=False)


def test_divergence_names_network_and_string():
    cfg = dataclasses_replace(SMALL, learning_rate=1e308, momentum=0.9, loss="xent")
    with pytest.raises(DivergenceError, match=r"network 0 diverged at string \d+ \(step \d+"):
        train_online(TABLES, 200, config=cfg, rng=0, progress=False)
    # network indices in the message are the caller's
    with pytest.raises(DivergenceError, match="network 1 diverged"):
        p = SRNParams(*ref.random_params(0, n_in=7, nh=6, n_out=7))
        stack = SRNParams(*(np.stack([a, a]) for a in p))
        stack.W_hh[1, 0, 0] = np.nan
        train_online(TABLES, 5, config=SMALL, n_networks=2, params=stack, rng=0, progress=False)


def dataclasses_replace(cfg, **kw):
    import dataclasses

    return dataclasses.replace(cfg, **kw)


def test_bptt_gradient_stack_and_sign():
    """bptt_gradient of a stack = each network's; a small step against it lowers the loss."""
    p = SRNParams(*ref.random_params(3, n_in=7, nh=6, n_out=7))
    string = ref.encode("BTSSXXVVE")
    g = bptt_gradient(p, [string], config=TrainConfig(n_hidden=6, h=9, h_prime=8))
    loss0 = ref.loss(p, string)
    loss1 = ref.loss(tuple(a - 1e-3 * b for a, b in zip(p, g)), string)
    assert loss1 < loss0
    stack = SRNParams(*(np.stack([a, 2 * a]) for a in p))
    gs = bptt_gradient(stack, [string], config=TrainConfig(n_hidden=6, h=9, h_prime=8))
    assert_same(gs.network(0), g)


def test_engine_runs_on_the_grammars_module_tables():
    """Integration: tempnets.tasks.grammars' Reber tables drive the sampler like the hand-built ones."""
    grammars = pytest.importorskip("tempnets.tasks.grammars")
    g = grammars.reber()
    assert g.alphabet == ref.REBER_ALPHABET
    flat, offsets = sample_strings(g.tables(), 500, rng=2)
    assert all(ref.is_reber(flat[offsets[i]:offsets[i + 1]]) for i in range(500))
    hist = train_online(g.tables(), 100, config=SMALL, rng=0, progress=True, chunk_strings=50)
    assert hist.params.W_ih.shape == (1, 6, 7) and hist.sq_error.shape == (1, 2)


def test_training_sizes_that_cannot_fit_are_refused_before_allocating():
    """n_networks=10**9 built a list of 10**9 indices and spawned as many generators."""
    from tempnets.tasks.grammars import reber

    t = reber().tables()
    with pytest.raises(ValueError, match=r"training 1000000000 networks of 7-15-7 units .* would "
                                         r"need [\d,.]+ GiB; this machine has"):
        train_online(t, 10, n_networks=10**9, rng=0, progress=False)
    with pytest.raises(ValueError, match=r"largest index 1000000000\) would need"):
        train_online(t, 10, n_networks=[10**9], rng=0, progress=False)


def test_trainers_check_parameter_shapes():
    p = _draw_params(np.random.default_rng(0), 7, 5, 7, 1.0)
    with pytest.raises(ValueError, match=r"params.b_h has shape \(3,\); expected \(5,\)"):
        bptt_gradient(p._replace(b_h=p.b_h[:3]), [np.array([0, 1, 6])])


def test_numpy_integer_seeds_train_the_same_networks():
    from tempnets.tasks.grammars import reber

    t = reber().tables()
    a = train_online(t, 20, n_networks=np.int64(2), rng=np.int64(5), progress=False)
    b = train_online(t, 20, n_networks=2, rng=5, progress=False)
    assert all(np.array_equal(x, y) for x, y in zip(a.params, b.params))


def test_the_pa_config_is_oconnells_network_with_its_initial_context():
    """TrainConfig.pa() is documented as O'Connell's PA network: its strings start from the
    context 0.5 (thesis Figure 4.4), as the chapter's conditions do."""
    from tempnets.chapters.periodically_attentive_units import CONTEXT_INIT, condition_config

    assert TrainConfig.pa().context_init == CONTEXT_INIT == 0.5
    assert TrainConfig.pa(h=3) == condition_config("PA-BPTT(3,1)")
    assert TrainConfig.pa(context_init=0.0).context_init == 0.0
