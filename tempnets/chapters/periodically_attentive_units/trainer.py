"""Training: :func:`train_condition` and :func:`train_conditions`, the procedure shared by
every condition (online, in segments between tests, resumable from a checkpoint).

The runners call :func:`train_conditions` as ``trainer.train_conditions``, an attribute of
this module, and it calls :func:`tempnets.training.srn_trainers.train_online` as this module's
``train_online``: a test that replaces either sets it on this module."""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from ..._numerics import checks
from ..._numerics.checks import count
from ..._numerics.random import spawn
from ...models.srn import init_params, SRNParams
from ...tasks.grammars import check_grammar
from ...training.checkpoint import Checkpoint
from ...training.srn_trainers import TrainConfig, train_online
from .sizes import Sizes, _seed
from .scoring import _check_letters, _encoded, _score


# ----------------------------------------------------------------------------- training


def train_condition(grammar, config: TrainConfig, sizes: Sizes, *, seed: int = 0, tests: dict,
                    networks=None, progress=None, on_test=None, checkpoint=None, key="run") -> dict:
    """Train ``sizes.n_networks`` networks of one condition, testing every ``sizes.test_every`` strings.

    Network ``k`` starts from the initial weights of ``spawn(seed, R)[k]`` (so
    the same in every condition with 15 hidden units) and segment ``j`` of its
    training strings comes from a seed derived from ``(seed, j)`` only: every
    condition of one seed sees the same strings.

    Parameters
    ----------
    grammar : FiniteStateGrammar
        Training strings are drawn from ``grammar.tables()``.
    config : TrainConfig
        The learning rule and attention pattern (see :func:`condition_config`).
    sizes : Sizes
    seed : int
    tests : dict
        ``name -> (list of str, grammar)``: test sets scored at every test.
    networks : sequence of int, optional
        Train only these network indices (default: all ``0 .. R-1``).
    progress : bool or None
        Progress bars of :func:`tempnets.training.srn_trainers.train_online`.
    on_test : callable, optional
        Called as ``on_test(strings_seen, params)`` after each test (e.g. for
        the hidden-state differences of Figure 2.1).
    checkpoint : tempnets.training.checkpoint.Checkpoint, optional
        Keep the weights and scores there after each test, under ``key``, and continue from
        what is kept (see :func:`train_conditions`).
    key : str
        The checkpoint key.

    Returns
    -------
    dict
        ``strings_seen`` (list of int, the tests, starting at 0), per test set
        ``scores[name] = {"embed": (R, n_tests), "final": (R, n_tests)}`` as
        nested lists, ``params`` (final weights as nested lists, see
        :func:`params_from_data`), ``networks`` and ``wall_time_s``.
    """
    check_grammar(grammar), count("seed", seed)
    checks.instance("config", config, TrainConfig, "a TrainConfig (from condition_config)").validate()
    checks.instance("sizes", sizes, Sizes, "a Sizes (the experiment's sizes)")
    if networks is not None:
        checks.instance("networks", networks, (list, tuple, range), "None or a sequence of network indices")
        if not len(networks):
            raise ValueError("networks must name at least one network (or be None: all of them)")
        for i, k in enumerate(networks):
            count(f"networks[{i}]", k, 0, sizes.n_networks - 1)
    checks.instance("tests", tests, dict, "a dict name -> (strings, grammar) (from make_test_sets)")
    for name, t in tests.items():
        if not (isinstance(t, tuple) and len(t) == 2):
            raise TypeError(f"tests[{name!r}] must be a (strings, grammar) pair, got {checks.shown(t)}")
        _check_letters(t[0], check_grammar(t[1], f"tests[{name!r}]'s grammar"), f"tests[{name!r}]'s strings")
    if on_test is not None and not callable(on_test):
        raise TypeError(f"on_test must be None or a function on_test(strings_seen, params), got "
                        f"{checks.shown(on_test)}")
    hook = None if on_test is None else {"run": on_test}
    return train_conditions(grammar, {"run": config}, sizes, seed=seed, tests=tests,
                            networks=networks, progress=progress, on_test=hook,
                            checkpoint=checkpoint, key=key)["run"]


def train_conditions(grammar, configs: dict, sizes: Sizes, *, seed: int = 0, tests: dict,
                     networks=None, progress=None, on_test=None, checkpoint=None,
                     key="conditions") -> dict:
    """:func:`train_condition` for several conditions side by side, sampling the strings once.

    ``configs`` maps names to :class:`TrainConfig` (same network sizes); the
    result maps the same names to what :func:`train_condition` returns for
    each, with the same numbers (the strings are shared, not changed), and
    ``on_test`` is ``None`` or a dict ``name -> callable``.  ``wall_time_s`` is
    the time of the whole call (of its last session, when resumed), and
    ``trained_with`` lists the conditions that shared it.

    With ``checkpoint`` (a :class:`tempnets.training.checkpoint.Checkpoint`), the weights and the
    scores so far are saved under ``key`` after each test, and a run that finds them there
    continues from that test: each segment of strings depends only on the seed, its index and
    the weights it starts from, so a resumed run ends with the same bits.  A run with
    ``on_test`` keeps no checkpoint (what the hooks gathered before an interruption is lost).
    """
    t0 = time.perf_counter()
    names = list(configs)
    hooks = on_test or {}
    if checkpoint is not None:
        checks.instance("checkpoint", checkpoint, Checkpoint, "None or a tempnets.training.checkpoint.Checkpoint")
        checks.instance("key", key, str)  # (load, below, refuses one a checkpoint cannot hold)
    if checkpoint is not None and hooks:
        raise ValueError("train_conditions keeps no checkpoint with on_test (the hooks' earlier "
                         "calls would be lost on resuming): pass one or the other")
    nets = list(range(sizes.n_networks)) if networks is None else [int(k) for k in networks]
    tables = grammar.tables()
    seen, params = [], None
    sc = {n: {name: {"embed": [], "final": []} for name in tests} for n in names}
    encoded = {name: _encoded(strings, g) for name, (strings, g) in tests.items()}  # once, not per test

    def test(n_seen, ps):
        seen.append(n_seen)
        for n, p in zip(names, ps):
            for name in tests:
                s = _score(p, encoded[name], configs[n])
                sc[n][name]["embed"].append(s["embed"])
                sc[n][name]["final"].append(s["final"])
            if n in hooks:
                hooks[n](n_seen, p)

    gens = spawn(seed, max(nets) + 1)
    for n in names[1:]:
        if configs[n].n_hidden != configs[names[0]].n_hidden:
            raise ValueError(f"conditions trained side by side need the same n_hidden; "
                             f"{names[0]!r} has {configs[names[0]].n_hidden}, {n!r} "
                             f"{configs[n].n_hidden}")
    n_seg = sizes.n_strings // sizes.test_every
    cfgs = [configs[n] for n in names]
    made_from = {"sizes": dataclasses.asdict(sizes), "seed": int(seed), "grammar": grammar.name,
                 "conditions": [[n, repr(c)] for n, c in zip(names, cfgs)], "networks": nets,
                 "tests": list(tests)}
    kept = None if checkpoint is None else checkpoint.load(key, made_from)
    if kept is None:
        start = 0
        p0 = [init_params(7, configs[names[0]].n_hidden, 7, r=configs[names[0]].init_range,
                          rng=gens[k]) for k in nets]
        p0 = SRNParams(*(np.stack(a) for a in zip(*p0)))
        test(0, [p0] * len(names))
    else:  # the tests so far and the weights they scored, as the interrupted run left them
        start, params = kept["segments"], kept["params"]
        seen.extend(kept["seen"])
        sc.update(kept["scores"])  # (made from the same conditions and tests: same keys)
    for j in range(start, n_seg):
        if j == 0:
            # initial weights then strings from spawn(seed, R)[k], exactly as train_online draws them
            hs = train_online(tables, sizes.test_every, config=cfgs, n_networks=nets, rng=seed,
                              progress=progress, chunk_strings=min(sizes.test_every, 50_000))
        else:
            hs = train_online(tables, sizes.test_every, config=cfgs, n_networks=nets,
                              rng=_seed(seed, "segment", j), params=params, progress=progress,
                              chunk_strings=min(sizes.test_every, 50_000))
        params = [h.params for h in hs]
        test((j + 1) * sizes.test_every, params)
        if checkpoint is not None:
            checkpoint.save(key, {"segments": j + 1, "params": params, "seen": seen, "scores": sc},
                            made_from)
    wall = round(time.perf_counter() - t0, 2)
    return {n: {
        "strings_seen": list(seen),
        "scores": {name: {k: np.array(v).T.round(2).tolist() for k, v in d.items()}
                   for name, d in sc[n].items()},
        "params": [a.tolist() for a in p],
        "networks": nets,
        "config": {"h": c.h, "h_prime": c.h_prime, "context_init": c.context_init,
                   "period": c.period,
                   "phase": c.phase},
        "wall_time_s": wall,
        **({"trained_with": names} if len(names) > 1 else {}),
    } for n, c, p in zip(names, cfgs, params)}


