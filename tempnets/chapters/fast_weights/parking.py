"""Experiment 2 (§3): car parking, WHERE-IS-MY-CAR?: :func:`run_parking` with interface (4),
the RTRL baseline and the departures of :data:`VARIANTS`, whether S binds the slots
(:func:`learned_binding`), and the experiment's claims, the literal reading of "100 time steps in
a row" among them."""

from __future__ import annotations

from dataclasses import asdict, replace
from itertools import zip_longest

import numpy as np

from ..._numerics import checks
from ...book import claims, intervals, sequential
from ...tasks import streams
from ...book.experiments import Result, executor
from ...book.scale import get_scale
from .sizes import BASELINE, EXPECT, PAPER, PLANS, SIZES, SOME, Sizes
from .one_run import (LONG_RUN, TASK_ID, _sub, _train_baseline, make_net, make_stream, test_stream,
                      train_fast_weights)
from .runs import (_RUNS, _check_trained, _collect, _median_note, _runs, _share_of, _steps, _unless,
                   format_summary, summary)


# ----------------------------------------------------------------------------- car parking
VARIANTS = {"query at every step": {"p_query": 1.0}, "no distractors": {"p_distractor": 0.0},
            "eta = 0.1": {"learning_rate": 0.1}, "rare questions": {"p_query": 0.1}}
"""Departures from our reconstruction tried on car parking (none is the paper's setting).
"rare questions" asks WHERE-IS-MY-CAR? with probability 0.1 per step instead of 0.5: then 100
time steps often hold no scored question at all, which the literal reading counts as right."""



def learned_binding(U) -> bool:
    """Slot detector I_k writes a positive change on w_k and negative ones on the other two,
    and no distractor writes enough to move a latched link across 0.5 (|u| < 0.49)."""
    U = checks.array("U", U, make_net("parking").shape_U)
    D = U[:, :3]
    return bool(np.all(np.diag(D) > 0) and np.all(D[~np.eye(3, dtype=bool)] < 0)
                and np.all(np.abs(U[:, 3:]) < 0.49))


def _parking_run(seed: int, cap: int, n_curves: int, k: int) -> dict:
    """Car-parking run ``k``: interface (4) at eta = 0.02 and RTRL at every rate, on stream ``k``."""
    test = test_stream("parking", seed)
    st = make_stream("parking", seed, k, cap)
    out = {"per-weight": train_fast_weights(st, make_net("parking"),
                                            PAPER["parking"]["per-weight"]["learning_rate"],
                                            _sub(seed, 30, k), block=500, keep_curve=k < n_curves,
                                            test=test, literal=True)}
    for j, lr in enumerate(BASELINE["parking"]["rates"]):
        out[f"rtrl {lr:g}"] = _train_baseline(st, "parking", lr, _sub(seed, 40 + j, k), test)
    return out


def _variant_run(seed: int, cap: int, n_curves: int, k: int) -> dict:
    """Run ``k`` of every departure of :data:`VARIANTS` (its own stream per variant)."""
    test = test_stream("parking", seed)
    lr0 = PAPER["parking"]["per-weight"]["learning_rate"]
    out = {}
    for name, change in VARIANTS.items():
        kw = {key: v for key, v in change.items() if key != "learning_rate"}
        st = streams.random_parking(cap, _sub(seed, TASK_ID["parking"], k), **kw)
        r = train_fast_weights(st, make_net("parking"), change.get("learning_rate", lr0),
                               _sub(seed, 30, k), keep_U=False, test=test, literal=True)
        out[name] = {key: r[key] for key in ("solved", "diverged", "literal", "literal_right")}
    return out


_RUNS.update({"parking": _parking_run, "variants": _variant_run})


def run_parking(scale="book", seed=0, jobs=1, progress=None, trained=None, checkpoint=None) -> Result:
    """Experiment 2: car parking with interface (4), eta = 0.02, the RTRL baseline and variants
    (paper scale: the sequential design of :data:`PLANS`, run ``k`` with variant run ``k``;
    book scale: the fixed sizes of :data:`SIZES`; ``checkpoint``: resumable)."""
    scale = get_scale(scale)
    sz, szv = SIZES["fw-parking"][scale], SIZES["fw-parking-variants"][scale]
    names = ["per-weight"] + [f"rtrl {lr:g}" for lr in BASELINE["parking"]["rates"]]
    if trained is None:
        jobs = executor(jobs)  # cores of this machine, or a cluster's (--cluster)

        # variant run k goes with run k: every run's at paper scale, the first szv.n_seeds' at book scale
        n_variants = PLANS["fw-parking"].cap if scale == "paper" else szv.n_seeds

        def train(a, b):
            main = _runs("parking", seed, sz, a, b, jobs, progress, checkpoint)
            var = _runs("variants", seed, szv, a, min(b, n_variants), jobs, progress, checkpoint) \
                if a < n_variants else []
            return list(zip_longest(main, var))

        def data_of(res, design=None):
            variants = [v for _, v in res if v is not None]
            return {"experiment": "fw-parking", "scale": scale, "seed": seed,
                    "sizes": asdict(replace(sz, n_seeds=len(res))),
                    "variant_sizes": asdict(replace(szv, n_seeds=len(variants))),
                    "runs": _collect([m for m, _ in res], names), "variants": _collect(variants, list(VARIANTS)),
                    **({"design": design} if design else {})}

        res, design = sequential.run(
            sequential.plan_for(scale, sz.n_seeds, PLANS["fw-parking"]), train,
            lambda res, level: _parking_claims(data_of(res), scale, level), what="runs")
        data = data_of(res, design)
    else:
        data = _check_trained(trained, "fw-parking", scale, seed, ["runs", "sizes", "variants",
                                                                   "variant_sizes"])
    return Result(_parking_claims(data, scale, sequential.level_of(data)), data)


def _parking_claims(data, scale, level: float = intervals.LEVEL) -> claims.ClaimsTable:
    """The claims of experiment 2 from its data, every interval at ``level``."""
    sz, szv = Sizes(**data["sizes"]), Sizes(**data["variant_sizes"])
    runs, cap = data["runs"], sz.cap
    t = claims.ClaimsTable(f"Experiment 2, car parking ({sz.n_seeds} runs, cap {cap:,} steps; solved = "
                           "E(t) <= 0.05 on 100 scored steps in a row)")
    solved = runs["per-weight"]["solved"]
    s = summary(solved, cap)
    n, k = s["runs"], s["runs"] - s["failures"]
    t.add("interface (4), T = 10, eta = 0.02 solves car parking within 6000 steps (median run)",
          "§3, exp. 2", 6000, s["median"], claims.at_most(6000), expected=False,
          interval=intervals.median(_steps(solved), level),
          note=f"{format_summary(s, cap)}; {100 * s['share_within'](6000):.0f}% within 6000; "
               + _median_note(solved, level))
    # "some runs" can be established, never refuted (0 of n runs leaves an interval above 1 run
    # at any n; issue 32): tested as a share of runs with a stated threshold
    t.add(f"a fair share of runs solve it within the cap: at least {SOME:g}% (our test of 'some "
          "runs', which no number of runs could refute)", "ours", None, round(100 * k / n, 1),
          claims.at_least(SOME), expected=EXPECT["parking-some"][scale],
          interval=intervals.percent(k, n, level), note=intervals.share_note(k, n, level=level))
    _literal_claims(t, runs["per-weight"], cap, "", None, level)
    met = [p for p, v in zip(runs["per-weight"]["perfect"], solved) if v > 0]
    t.add("a run that meets the criterion has learned the task: its final network is right at "
          "every scored step of a fresh 20,000-step life (share of runs meeting it, >= 95%)",
          "§3, exp. 2", None,
          **_share_of(sum(met), len(met), EXPECT["parking-perfect"][scale], "no run met the criterion",
                      claims.at_least(95.0), level),
          note=(f"{sum(met)} of {len(met)}; with {LONG_RUN} scored steps in a row: "
                + format_summary(summary(runs["per-weight"]["solved_1000"], cap), cap) + "; "
                + intervals.share_note(sum(met), len(met), level=level) + f" (at least {_runs_for_share(0.95, level)} runs, "
                "all right, are needed for the interval to clear 95%)") if met else "")
    good = [u for u, v in zip(runs["per-weight"]["U"], solved) if v > 0]
    binds = sum(learned_binding(u) for u in good)
    t.add("S learns to bind the slots: in solved runs detector I_k writes + on w_k, - on the "
          "others, the distractors ~0", "§3, exp. 2", None,
          **_share_of(binds, len(good), EXPECT["parking-binds"][scale], "no run solved the task",
                      claims.at_least(80.0), level),
          note=(f"% of the {len(good)} solved runs; " + intervals.share_note(binds, len(good), level=level)) if good else "")
    best = min(VARIANTS, key=lambda n: summary(data["variants"][n]["solved"], szv.cap)["median"])
    sv = summary(data["variants"][best]["solved"], szv.cap)
    t.add("a departure from our reconstruction reaches the bound (best variant's median <= 6000)",
          "what we tried", 6000, sv["median"], claims.at_most(6000), expected=False,
          interval=intervals.median(_steps(data["variants"][best]["solved"]), level),
          note=f"best of {', '.join(VARIANTS)}: {best}, {format_summary(sv, szv.cap)}; "
               + _median_note(data["variants"][best]["solved"], level))
    _literal_claims(t, data["variants"]["rare questions"], szv.cap,
                    "with rare questions (WHERE-IS-MY-CAR? on with probability 0.1 per step), ", True, level)
    rates = BASELINE["parking"]["rates"]
    solved_rtrl = {r: sum(v > 0 for v in runs[f"rtrl {r:g}"]["solved"]) for r in rates}
    lr = max(rates, key=lambda r: solved_rtrl[r])
    # "at least as often" is trivially true when neither solves it: the control failed
    why = "" if k or solved_rtrl[lr] else "neither the fast weights nor RTRL solve it in any run"
    lo, hi = intervals.share_difference(k, n, solved_rtrl[lr], n, level)
    t.add("the fast weights solve car parking at least as often as a fully recurrent net "
          "(RTRL, 5 units, its best rate): runs solved, (4) minus RTRL", "ours", None,
          k - solved_rtrl[lr], claims.at_least(0), expected=_unless(why, EXPECT["parking-vs-rtrl"][scale]),
          interval=(n * lo, n * hi), not_tested=why,
          design=intervals.Design("share_difference", (n, n), unit="count", level=level),
          do_nothing=-solved_rtrl[lr],  # fast weights that solve nothing: a row RTRL at 0 makes vacuous
          note=f"(4): {k} of {n}; RTRL at rate {lr:g}: {solved_rtrl[lr]} (rates "
               + ", ".join(f"{r:g}: {solved_rtrl[r]}" for r in rates) + ", the best chosen on "
               f"these runs); {intervals.level_name(level)} interval: Newcombe, {k} of {n} minus {solved_rtrl[lr]} of {n} runs")
    return t


def _literal_claims(t, runs: dict, cap: int, condition: str, within: bool | None,
                    level: float = intervals.LEVEL) -> None:
    """Two rows for the literal reading of "100 time steps in a row" (module docstring): when the
    median run meets it, and whether the network of that step has learned the task.
    ``condition`` ("" for our reconstruction) prefixes the statements; ``within`` is the stated
    verdict of the first row (``None``: the paper's bound is asserted not to be met)."""
    lit = runs["literal"]
    sl = summary(lit, cap)
    met = [v for v in lit if v > 0]
    source = "§3, exp. 2" if not condition else "what we tried"
    t.add(f"{condition}literal reading (every time step counts; a step with no scored question "
          "counts as right): the median run solves car parking within 6000 steps",
          source, 6000, sl["median"], claims.at_most(6000),
          expected=False if within is None else within, interval=intervals.median(_steps(lit), level),
          note=f"{format_summary(sl, cap)}; {100 * sl['share_within'](6000):.0f}% within 6000"
               + (f"; the fastest run at step {min(met):,}" if met else "") + "; " + _median_note(lit, level))
    right = [r for r, v in zip(runs["literal_right"], lit) if v > 0]
    good = sum(r >= 0.95 for r in right)
    t.add(f"... {condition}literal reading: a run that meets it has learned the task: the network "
          "of that step answers at least 95% of the questions of a fresh 20,000-step life right "
          "(share of runs meeting it, >= 95%)", source, None,
          **_share_of(good, len(right), False, "no run met the literal criterion", claims.at_least(95.0),
                      level),
          note=(f"{good} of {len(right)}; the share of questions its network answers right is "
                f"{100 * float(np.median(right)):.1f}% in the median run (range "
                f"{100 * min(right):.1f}-{100 * max(right):.1f}%; a network that always names "
                "one slot gets about a third); " + intervals.share_note(good, len(right), level=level)) if right else "")


def _runs_for_share(share: float, level: float = intervals.LEVEL) -> int:
    """The fewest runs, all of them a success, whose Wilson interval (at ``level``) lies above ``share``."""
    n = 1
    while intervals.share(n, n, level)[0] < share:
        n += 1
    return n
