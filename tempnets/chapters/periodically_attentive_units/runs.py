"""What the runners share: the test sets (:func:`make_test_sets`), training every condition of
an experiment by its design (:func:`_run_conditions`), re-deriving from an earlier run's
data, and the runs' summaries."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..._numerics import checks
from ...book import claims, sequential
from ..._numerics.checks import count
from ...book.experiments import Result, check_data, numba_threads
from ...book.scale import get_scale
from . import sizes, trainer
from .sizes import Sizes, WATCH, _grammar, _seed, _sizes, condition_config
from .scoring import length_statistics, test_strings


# ----------------------------------------------------------------------------- shared runner parts


def make_test_sets(seed: int = 0, grammar_name: str = "embedded", scale=None, n_test: int = 1000,
                   long: bool = False, framing: str = "thesis") -> dict:
    """The test sets the runners use: ``name -> (strings, grammar)``.

    ``"original"``: ``n_test`` distinct strings of ``grammar_name``
    (``"embedded"`` or ``"time-varying"``); with ``long=True`` also
    ``"len>=50"`` (1000 strings) and ``"len>=300"`` (100 strings) of the
    long-string grammar (chapter 5, :data:`LONG_TESTS`).  Each set has its own
    random stream derived from ``seed`` and its name, so it is the same in
    every experiment of that seed.
    """
    checks.one_of("grammar_name", grammar_name, ("embedded", "time-varying")), checks.flag("long", long)
    count("n_test", n_test, 1, 100_000)
    g = _grammar(grammar_name, framing)
    out = {"original": (test_strings(g, n_test, _seed(seed, "test", grammar_name)), g)}
    if long:
        gl = _grammar("long", framing)
        for name, (n, lo) in sizes.LONG_TESTS[get_scale(scale)].items():
            out[name] = (test_strings(gl, n, _seed(seed, "test", name), min_letters=lo), gl)
    return out


def _run_conditions(exp_id, names, grammar_name, scale, seed, jobs, progress, long=False,
                    trained=None, checkpoint=None, table=None, first_only=()):
    """Train every condition of ``names`` by the experiment's design (or take them from
    ``trained``, the data of an earlier run of the same experiment, scale and seed, so its claims
    can be re-derived without training again): at paper scale its plan in :data:`PLANS`, if
    any, else one look at all of :data:`SIZES`'s networks (:func:`tempnets.book.sequential.plan_for`).

    ``table(runs, sizes, tests, level)`` makes the claims table from the runs so far (needed by
    an experiment with a plan; without one, the claims are made after the runs).  Networks are
    trained in the groups of the design, each kept in ``checkpoint`` under its own key
    (``pa-4.2.40-240``) after each test, so an interrupted run continues from its last test.
    ``first_only``: conditions trained in the design's first group only (rows on them decided
    there), so their runs have fewer networks than the others'.

    Returns ``(runs, test-set statistics, sizes, test sets, design)``: the runs of every network
    trained, ``sizes`` with their number, and the record of the design (``None`` when re-derived
    from data that has none)."""
    data = _check_reuse(trained, exp_id, scale, seed)
    sz = _sizes(exp_id, scale) if data is None else Sizes(**data["sizes"])
    tests = make_test_sets(seed, grammar_name, scale, sz.n_test, long)
    if data is not None:
        return ({n: data["runs"][n] for n in names}, data["test_stats"], sz, tests,
                data.get("design"))
    plan = sequential.plan_for(scale, sz.n_networks, sizes.PLANS.get(exp_id))
    if table is None and plan.looks > 1:
        raise ValueError(f"{exp_id}'s sequential design needs its claims (table=) at each look")
    unknown = set(first_only) - set(names)
    if unknown:
        raise ValueError(f"first_only names conditions not trained: {sorted(unknown)}; "
                         f"trained: {list(names)}")
    g, configs = _grammar(grammar_name), {name: condition_config(name) for name in names}

    def train(a, b):
        group = {n: c for n, c in configs.items() if a == 0 or n not in first_only}
        with numba_threads(jobs):  # side by side: the conditions share their strings, sampled once
            piece = trainer.train_conditions(g, group, dataclasses.replace(sz, n_networks=b), seed=seed,
                                     tests=tests, networks=range(a, b), progress=progress,
                                     checkpoint=checkpoint, key=f"{exp_id}.{a}-{b}")
        return [piece] * (b - a)  # one result per network: the group's runs, joined once

    def look(results, level):
        if table is None:  # one look, claims made by the caller
            return claims.ClaimsTable(exp_id)
        return table(_joined(results), dataclasses.replace(sz, n_networks=len(results)), tests, level)

    watched = WATCH.get(exp_id, ()) if plan.looks > 1 else ()
    results, design = sequential.run(plan, train, look,
                                     watch=(lambda c: c.statement in watched) if watched else None)
    if watched:
        design["watches"] = list(watched)
    stats = {name: length_statistics(s) for name, (s, _) in tests.items()}
    return _joined(results), stats, dataclasses.replace(sz, n_networks=len(results)), tests, design


def _weights_kept(runs, keep=()) -> dict:
    """``runs`` with the final weights (``params``) of the conditions ``keep`` only: a record keeps
    what its claims and the chapter read, and a sequential design's hundreds of networks would
    make the weights nobody reads most of it (as :mod:`tempnets.chapters.mozer_rates` does)."""
    return {name: run if name in keep else {k: v for k, v in run.items() if k != "params"}
            for name, run in runs.items()}


def _joined(results) -> dict:
    """The runs of :func:`_run_conditions`'s results (each network's entry is its group's runs) as
    :func:`train_conditions` returns them for all those networks: the groups joined in order (a
    condition trained in the first group only, its runs of that group)."""
    groups = [r for i, r in enumerate(results) if i == 0 or r is not results[i - 1]]
    if len(groups) == 1:
        return groups[0]

    def join(runs):
        first = runs[0]
        return {**first,
                "scores": {test: {k: [row for r in runs for row in r["scores"][test][k]]
                                  for k in first["scores"][test]} for test in first["scores"]},
                "params": [[w for r in runs for w in r["params"][i]] for i in range(len(first["params"]))],
                "networks": [k for r in runs for k in r["networks"]],
                "wall_time_s": round(sum(r["wall_time_s"] for r in runs), 2)}

    return {name: join([g[name] for g in groups if name in g]) for name in groups[0]}


def _final(run, test="original"):
    """Last test's (embed, final) arrays of shape (R,)."""
    s = run["scores"][test]
    return np.array(s["embed"])[:, -1], np.array(s["final"])[:, -1]


def _summary(runs, test="original") -> dict:
    out = {}
    for name, run in runs.items():
        e, f = _final(run, test)
        out[name] = {"embed": e.round(1).tolist(), "final": f.round(1).tolist(),
                     "embed_mean": round(float(e.mean()), 1), "final_mean": round(float(f.mean()), 1)}
    return out


def _own_data(trained, exp_id, scale, seed, keys):
    """``trained``'s data if it is an earlier result of ``exp_id`` itself (checked), else None."""
    data = trained.data if isinstance(trained, Result) else trained
    if not isinstance(data, dict) or data.get("experiment") != exp_id:
        return None
    return check_data(_check_reuse(data, exp_id, scale, seed), keys, exp_id)


def _check_reuse(trained, exp_id, scale, seed):
    if trained is None:
        return None
    data = trained.data if isinstance(trained, Result) else trained
    if data.get("experiment") != exp_id or data.get("scale") != get_scale(scale) \
            or data.get("seed") != seed:
        raise ValueError(f"trained= must be the Result of {exp_id} at scale {get_scale(scale)!r}, "
                         f"seed {seed}; got {data.get('experiment')!r}, {data.get('scale')!r}, "
                         f"seed {data.get('seed')!r}")
    return data


