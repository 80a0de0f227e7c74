"""Experiment 1 (§3): the flip-flop with interfaces (4) and (5) and the RTRL baseline:
:func:`run_flipflop`, the best RTRL rate (:func:`best_baseline`), the 1992 paper's typical
solution (:func:`learned_flipflop_solution`) and the experiment's claims."""

from __future__ import annotations

from dataclasses import asdict, replace

import numpy as np

from ..._numerics import checks
from ...book import claims, intervals, sequential
from ...book.experiments import Result, executor
from ...book.scale import get_scale
from .sizes import BASELINE, EVERY, EXPECT, PAPER, PLANS, SIZES, Sizes
from .one_run import (LONG_RUN, _check_task, _sub, _train_baseline, make_net, make_stream, test_stream,
                      train_fast_weights)
from .runs import (_RUNS, _check_trained, _collect, _median_note, _runs, _share_of, _steps,
                   format_summary, summary)


# ----------------------------------------------------------------------------- flip-flop
def _flipflop_run(seed: int, cap: int, n_curves: int, k: int) -> dict:
    """Flip-flop run ``k``: interfaces (4) and (5) and RTRL at every rate, on stream ``k``."""
    pf = PAPER["flipflop"]
    test = test_stream("flipflop", seed)
    st = make_stream("flipflop", seed, k, cap)
    out = {name: train_fast_weights(st, make_net("flipflop", name), pf[name]["learning_rate"],
                                    _sub(seed, 10 + i, k), keep_curve=k < n_curves,
                                    keep_U=name == "per-weight", test=test)
           for i, name in enumerate(("per-weight", "from-to"))}
    for j, lr in enumerate(BASELINE["flipflop"]["rates"]):
        out[f"rtrl {lr:g}"] = _train_baseline(st, "flipflop", lr, _sub(seed, 20 + j, k), test)
    return out


_RUNS["flipflop"] = _flipflop_run


def run_flipflop(scale="book", seed=0, jobs=1, progress=None, trained=None, checkpoint=None) -> Result:
    """Experiment 1: the flip-flop with interfaces (4) and (5), and the RTRL baseline (paper
    scale: the sequential design of :data:`PLANS`; ``checkpoint``: resumable)."""
    scale = get_scale(scale)
    sz = SIZES["fw-flipflop"][scale]
    names = ["per-weight", "from-to"] + [f"rtrl {lr:g}" for lr in BASELINE["flipflop"]["rates"]]
    if trained is None:
        jobs = executor(jobs)  # cores of this machine, or a cluster's (--cluster)

        def data_of(res, design=None):
            return {"experiment": "fw-flipflop", "scale": scale, "seed": seed,
                    "sizes": asdict(replace(sz, n_seeds=len(res))), "runs": _collect(res, names),
                    **({"design": design} if design else {})}

        res, design = sequential.run(
            sequential.plan_for(scale, sz.n_seeds, PLANS["fw-flipflop"]),
            lambda a, b: _runs("flipflop", seed, sz, a, b, jobs, progress, checkpoint),
            lambda res, level: _flipflop_claims(data_of(res), level), what="runs")
        data = data_of(res, design)
    else:
        data = _check_trained(trained, "fw-flipflop", scale, seed, ["runs", "sizes"])
    return Result(_flipflop_claims(data, sequential.level_of(data)), data)


def best_baseline(runs: dict, task: str, cap: int) -> tuple:
    """The RTRL learning rate with the lowest median steps to solution, and its summary."""
    rates = BASELINE[_check_task(task)]["rates"]
    checks.instance("runs", runs, dict, "a dict of runs by condition (the data's 'runs')")
    missing = [f"rtrl {lr:g}" for lr in rates if not isinstance(runs.get(f"rtrl {lr:g}"), dict)
               or "solved" not in runs[f"rtrl {lr:g}"]]
    if missing:
        raise ValueError(f"runs must hold the 'solved' steps of every RTRL rate of {task}; "
                         f"it lacks {', '.join(missing)}")
    sms = {lr: summary(runs[f"rtrl {lr:g}"]["solved"], cap) for lr in rates}
    lr = min(rates, key=lambda r: (sms[r]["median"], sms[r]["failures"]))
    return lr, sms[lr]


def learned_flipflop_solution(U) -> bool:
    """The 1992 paper's typical solution: A writes a large change on w_B (sets it), B a large
    negative one (resets it), C a small one (|u| < 0.49 keeps w_B on its side of 0.5: holds),
    and every input writes negative changes on w_A and w_C (interface (4), rows A, B, C)."""
    U = checks.array("U", U, make_net("flipflop").shape_U)
    return bool(U[1, 0] > 0.5 and U[1, 1] < -0.5 and abs(U[1, 2]) < 0.49 and np.all(U[[0, 2]] < 0))


_NO_SPEED = ("our comparison: the paper times no recurrent net; its abstract says only that two "
             "feed-forward networks 'can solve tasks that only dynamic recurrent networks were "
             "supposed to solve'")


def _flipflop_claims(data, level: float = intervals.LEVEL) -> claims.ClaimsTable:
    """The claims of experiment 1 from its data, every interval at ``level``."""
    sz = Sizes(**data["sizes"])
    runs, cap = data["runs"], sz.cap
    t = claims.ClaimsTable(f"Experiment 1, the flip-flop ({sz.n_seeds} runs on independent streams, "
                           f"cap {cap:,} steps; solved = E(t) <= 0.05 for 100 steps in a row)")
    s4, s5 = summary(runs["per-weight"]["solved"], cap), summary(runs["from-to"]["solved"], cap)
    st4 = summary(runs["per-weight"]["strict"], cap)
    solved4 = runs["per-weight"]["solved"]
    t.add("interface (4), T = 10, eta = 1.0 solves the flip-flop within 300 steps (median run)",
          "§3, exp. 1", 300, s4["median"], claims.at_most(300), interval=intervals.median(_steps(solved4), level),
          expected=EXPECT["flipflop-within-300"][data["scale"]],
          note=f"{format_summary(s4, cap)}; {100 * s4['share_within'](300):.0f}% within 300; "
               f"strict reading |d - y| <= 0.05: {format_summary(st4, cap)}; " + _median_note(solved4, level))
    # "every run" can be refuted by runs, never established (no n clears 0 failures; issue 32):
    # tested as a share of runs with a stated threshold, which runs can decide either way
    k4 = s4["runs"] - s4["failures"]
    t.add(f"... and practically every run solves it: at least {EVERY:g}% of runs within the cap "
          "(our test of 'every run', which no number of runs could establish)", "ours", None,
          round(100 * k4 / s4["runs"], 1), claims.at_least(EVERY),
          expected=EXPECT["flipflop-every"][data["scale"]],
          interval=intervals.percent(k4, s4["runs"], level),
          note="runs whose w_B saturates at 0 or 1 early have sigma' ~ 0 and stop learning; "
               + intervals.share_note(k4, s4["runs"], level=level))
    p4 = runs["per-weight"]["perfect"]
    met = [p for p, v in zip(p4, solved4) if v > 0]
    t.add("a run that meets the criterion has learned the flip-flop: its final network is right "
          "at every step of a fresh 5000-step stream (share of runs meeting it, >= 95%)",
          "ours (a probe of the criterion)",
          None, **_share_of(sum(met), len(met), False, "no run met the criterion", claims.at_least(95.0),
                            level),
          note=(f"{sum(met)} of {len(met)}; the others let C set or reset w_B and fail about one "
                "step in twelve, which passes 100 steps in a row by luck; "
                + intervals.share_note(sum(met), len(met), level=level)) if met else "")
    s4l = summary(runs["per-weight"]["solved_1000"], cap)
    solved5 = runs["from-to"]["solved"]
    t.add("FROM/TO interface (5), T = 10, eta = 0.5 solves it within 800 steps (median run)",
          "§3, exp. 1", 800, s5["median"], claims.at_most(800), expected=False,
          interval=intervals.median(_steps(solved5), level),
          note=f"{format_summary(s5, cap)}; {100 * s5['share_within'](800):.0f}% within 800; "
               + _median_note(solved5, level))
    k5 = s5["runs"] - s5["failures"]
    t.add("interface (5): most runs solve it within the cap (>= 95%)", "§3, exp. 1", None,
          round(100 * k5 / s5["runs"], 1), claims.at_least(95.0),
          interval=intervals.percent(k5, s5["runs"], level), note=intervals.share_note(k5, s5["runs"], level=level))
    lr, sb = best_baseline(runs, "flipflop", cap)
    kb = sb["runs"] - sb["failures"]
    t.add("a fully recurrent net (RTRL, 3 units) solves it too: most runs within the cap (>= 95%)",
          "§1 (recurrent nets)", None, round(100 * kb / sb["runs"], 1),
          claims.at_least(95.0), interval=intervals.percent(kb, sb["runs"], level),
          note=f"best rate {lr:g}: {format_summary(sb, cap)}; " + intervals.share_note(kb, sb["runs"], level=level))
    rtrl = runs[f"rtrl {lr:g}"]
    t.add("the two feed-forward nets with (4) solve it at least twice as fast as the recurrent "
          "net (ratio of medians, RTRL / (4))", "ours", None, round(sb["median"] / s4["median"], 2),
          claims.at_least(2.0), interval=intervals.ratio_of_medians(_steps(rtrl["solved"]), _steps(solved4), level),
          note=f"{_NO_SPEED}; the RTRL rate is the best of "
               + ", ".join(f"{r:g}" for r in BASELINE["flipflop"]["rates"])
               + f" (chosen on these runs); {intervals.level_name(level)} interval: bootstrap, {s4['runs']} runs each, "
               "unsolved runs counted as never")
    sbl = summary(rtrl["solved_1000"], cap)
    t.add(f"... and with a window partial solutions cannot pass by luck ({LONG_RUN} steps in a row): "
          "ratio of medians RTRL / (4) >= 1", "ours", None,
          round(sbl["median"] / s4l["median"], 2), claims.at_least(1.0),
          expected=EXPECT["flipflop-long-vs-rtrl"][data["scale"]],
          interval=intervals.ratio_of_medians(_steps(rtrl["solved_1000"]),
                                              _steps(runs["per-weight"]["solved_1000"]), level),
          note=f"(4) {format_summary(s4l, cap)}; RTRL {format_summary(sbl, cap)}; final networks "
               f"perfect on the test stream: (4) "
               f"{sum(p4)} of {len(p4)}, RTRL {sum(rtrl['perfect'])} of {len(p4)}; "
               f"{intervals.level_name(level)} interval: bootstrap, {s4['runs']} runs each, unsolved runs counted as never")
    good = [u for u, p in zip(runs["per-weight"]["U"], p4) if p]
    typical = sum(learned_flipflop_solution(u) for u in good)
    t.add("runs that learned the flip-flop learned the typical solution: A sets w_B, B resets it, "
          "C holds it, w_A and w_C stay ~0", "1992 version, §3", None,
          **_share_of(typical, len(good), True, "no final network is right at every step of the "
                                                "test stream", claims.at_least(90.0), level),
          note=(f"% of the {len(good)} interface-(4) runs whose final network is perfect on the test "
                "stream; u(A->w_B) > 0.5, u(B->w_B) < -0.5, |u(C->w_B)| < 0.49, writes on w_A, "
                "w_C < 0; " + intervals.share_note(typical, len(good), level=level)) if good else "")
    return t
