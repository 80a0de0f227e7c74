r"""Experiments of Mozer (1989/1995), *A focused backpropagation algorithm for temporal
pattern recognition* (``papers/000``), as runners for ``python -m tempnets reproduce
mozer-*`` and for the chapter ``book/focused_backprop``.

=========================  ===============================================  =====================
id                         what                                             paper
=========================  ===============================================  =====================
``mozer-dear``             DEAR/DEAN/BEAR/BEAN, 6-2-4, 50 runs              Table 1, Figure 3
``mozer-verbs``            60 regular verbs, 8-2-3, focused vs full         Table 2, Figures 4, 5
``mozer-reversed``         the same verbs reversed                          Figure 6
``mozer-reproduce``        sequence reproduction, delay 1 and 4, 6-3-3      Table 3, Figure 7
``mozer-large-verbs``      136 verbs, 13 categories, 25 vs 16 context units Table 4, Figures 8, 9
=========================  ===============================================  =====================

Every runner is ``run_*(scale, seed, jobs, progress, trained=None) -> Result``; with
``trained=`` (an earlier result or a record's ``data``) it re-derives every claim from the
stored per-run numbers and final weights without training.  At paper scale sequence
reproduction and the reversed verbs add runs by a sequential design (:data:`PLANS`) and take a
``checkpoint=`` too (resumable, in pieces of :data:`CHUNK` runs).

Learning rates (:data:`RATES`): Mozer tuned μ, ρ, ω "for most applications", and per
architecture for the comparisons, without printing the values.  Ours are fixed per task
from short sweeps (recorded in the chapter's Fidelity note): the paper's nominal
μ = 1, ρ = 0.02 for DEAR; μ = 0.75 for the regular verbs; μ = 0.5 and larger ρ where
the error is dominated by easy zero targets (sequence reproduction) or the task is big.
ω = 100 throughout (not given in the paper).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..book import claims
from ..models import focused as F
from ..training import focused_training as T
from ..book import intervals
from ..book import sequential
from ..tasks import verbs as V
from .._numerics import checks
from .._numerics.checks import count
from ..book.experiments import Result, numba_threads
from ..book.scale import get_scale
from ..book.selfcheck import check_function, check_value

__all__ = ["PAPER", "PAPER_DESIGN", "RATES", "SIZES", "Sizes", "first_runs", "constant_answer_score",
           "context_connections", "run_dear", "run_verbs", "run_reversed", "run_reproduce",
           "run_large_verbs", "params_from_data", "context_profile", "figure5_verbs",
           "check_gamma", "check_alpha_closed_form", "check_rtrl_memory", "operation_counts"]

PAPER = {
    "dear_median_epochs": 488, "dear_runs": 50,
    "verbs_runs": 15, "reversed_full_best": 75.0, "verbs_context_connections": 6,
    "reproduce_delay1_epochs": {"focused": 767, "full": 620}, "reproduce_delay1_t": 0.958,
    "reproduce_delay4_perfect": {"focused": 12, "full": 2}, "reproduce_runs": 15,
    "reproduce_delay4_mean": {"focused": 98.5, "full": 72.9}, "reproduce_delay4_t": 8.42,
    "reproduce_max_epochs": 15000,
    "large_weights": {"focused": 613, "full": 621}, "large_runs": 10,
    "figure5_largest_decay": 0.02, "flops_ratio": 2 / 3,
}
"""The paper's printed numbers."""

RATES = {
    "dear": T.FocusedConfig(mu=1.0, rho=0.02),
    "verbs": T.FocusedConfig(mu=0.75, rho=0.02),
    "reproduce": T.FocusedConfig(mu=0.5, rho=0.1, score="quantised", feedback=3, stop_at_criterion=True),
    "large": T.FocusedConfig(mu=0.5, rho=0.05),
}
"""Training settings per task (both architectures; ω = 100)."""

EXPECT = {
    "dear-most-learn": {"book": True, "paper": True},
    "dear-median": {"book": None, "paper": True},
    "dear-arbe": {"paper": {"book": False, "paper": False}, "fig3": {"book": False, "paper": False}},
    "dear-daer": {"paper": {"book": False, "paper": False}, "fig3": {"book": False, "paper": False}},
    "dear-none-kept": {"paper": {"book": True, "paper": True}, "fig3": {"book": False, "paper": False}},
    "verbs-full-quicker": {"book": None, "paper": False},
    "verbs-unvoiced": {"book": None, "paper": True},
    "reversed-slower": {"book": None, "paper": True},
    "reversed-full-fails": {"book": True, "paper": False},
    "reversed-full-learns-some": {"book": True, "paper": True},
    "reproduce-delay1-learn": {"focused": {"book": None, "paper": True}, "full": {"book": None, "paper": True}},
    "reproduce-delay4-full-some": {"book": False, "paper": False},
    "reproduce-delay4-focused": {"book": None, "paper": False},
    "reproduce-delay4-difference": {"book": None, "paper": True},
    "reproduce-delay4-full-above-zeros": {"book": False, "paper": None},
    "large-learns": {"focused": {"book": True, "paper": True}, "full": {"book": None, "paper": True}},
    "large-ring": {"focused": {"book": False, "paper": False}, "full": {"book": None, "paper": True}},
}
"""What the chapter states per scale for the claims whose interval (95%; at paper scale, the
level of the experiment's sequential design, :data:`PLANS`) may straddle their threshold
(``None``: inconclusive at that scale, shown and not asserted)."""




FULL_SWEEP = ((0.75, 0.02), (1.0, 0.02), (1.0, 0.05), (0.5, 0.05))
"""(μ, ρ) settings tried for the full network on reversed verbs ("a wide range of learning rate
parameters"): its best single run over all of them is the claim."""


@dataclass(frozen=True)
class Sizes:
    """Runs per condition and epochs (the cap, where training stops at criterion)."""

    runs: int
    epochs: int
    epochs_delay4: int = 0


SIZES = {
    "mozer-dear": {"book": Sizes(50, 3000), "paper": Sizes(150, 5000)},
    # With the paper's 15 runs, 11 (73.3%) had a unit coding "final phoneme unvoiced", and the
    # 95% interval (48% to 89%) straddled the bound 50%: inconclusive.  At that share about 18
    # runs decide it; the paper scale trains 60, which decide it 97 times in 100 if the share is
    # as measured (fixed before the run, never raised after it).  Runs 0-14 are the same.
    "mozer-verbs": {"book": Sizes(15, 2000), "paper": Sizes(60, 2000)},
    # 60 per condition was the fixed record before the sequential design of PLANS: ``runs`` is
    # its first look.
    "mozer-reversed": {"book": Sizes(15, 2000), "paper": Sizes(60, 5000)},
    # With the paper's 15 runs, 13 of each network (86.7%) learned delay 1 perfectly, an interval
    # (62% to 96%) across the bound 75%, and the focused network's margin of perfect runs at delay
    # 4 (5 against 0) was undecided.  At those shares about 67 runs decide delay 1; 120 were
    # trained.  That record left two rows undecided, so at paper scale the runs now come from the
    # sequential design of PLANS (its first look is these 120 runs); ``runs`` is its first look.
    "mozer-reproduce": {"book": Sizes(15, 5000, 15000), "paper": Sizes(120, 5000, 15000)},
    # The paper shows one network's "typical responses" to ring and bring (Figure 9); 10 runs of
    # each kind got both right in 10 of 20 networks, undecided: the sequential design of PLANS
    # adds runs from there (10 is its first look).
    "mozer-large-verbs": {"book": Sizes(4, 1500), "paper": Sizes(10, 5000)},
}
"""Runs and epochs of each experiment.  At paper scale DEAR trains 150 networks (the paper: 50),
the regular verbs 60 (the paper: 15), and the reversed verbs, sequence reproduction and the
large verb set start from 60 per condition, 120 (the paper: 15) and 10 (the paper shows one)
and add networks by the sequential designs of :data:`PLANS`: with the paper's numbers, the
intervals of DEAR's median epochs, of the reversed verbs' ratio of medians and full-network
mean, of the share of runs with an "unvoiced" unit and of the shares that learn sequence
reproduction straddled their thresholds (issue 32: enough
networks that each claim can decide).  150 decide DEAR's median.  Network ``k`` draws from a
stream that does not depend on how many are trained (:func:`tempnets.models.focused.init_many`), so the
first 15 are the paper's design (the rows that use it: :data:`PAPER_DESIGN`) and the networks
``mozer-rates`` measures with tuned rates."""

# The two plans below were fixed, and committed, after their first look had been seen: the
# fixed-n records of 120 and 60 runs, whose undecided rows are why these designs exist.  That
# look counts as look 1 of the K planned looks, so its intervals too are at 1 - 0.05 / K, and
# K = 2 (one more look, at the cap) keeps them as narrow as a design that looks again can: a
# look between would stop early only if the least likely row to decide had, and costs every
# interval some width.  Power is computed at the effect and spread those records measured, each
# interval at 97.5%:
#
# * mozer-reproduce, Plan(120, 1200, 1320): "delay 1: the focused runs learn the task perfectly"
#   was 96 of 120 (80%) against the bound 75%: with a true share of 80%, 1,320 runs decide it
#   (Wilson at 97.5%) with probability 0.98 (0.94 at 1,000).  "Delay 4: the full network does
#   better than outputting zeros" (the control of the delay-4 t-test) was 0.74 points (sd 4.4;
#   115 of 120 runs end on the baseline) against the bound 1: resampling those 120 runs, 1,320
#   decide it with probability 0.48 (0.85 would take about 3,000).  At about 1 s per run (four
#   networks) the cap is about 22 minutes on one core.
# * mozer-reversed, Plan(60, 360, 420): "the full network does not succeed" was a mean of 75.7%
#   (sd 7.5) against the bound 75%: resampling those 60 runs, 420 decide it with probability
#   0.37 (0.48 at 540).  The ratio of median epochs to 90% sat on its threshold, 1.0 [0.86,
#   1.5]: no n in reach is likely to decide it.  At about 3 s per run (six networks) the cap is
#   about 22 minutes.
#
# The caps were set by the time the session that fixed them had (about 30 minutes per record on
# one core; issue 32 allows 120 on two), from estimates about twice the times measured (687 s and
# 654 s): a design with more room should raise the cap in a new plan, not after seeing these.
# * mozer-large-verbs, Plan(10, 180, 190), fixed on 2026-11-27 before any run past 10 was trained:
#   "ring and bring are both classified right" was 10 of 20 networks (50%, Wilson [29.9, 70.1])
#   against the bound 50%, on its threshold.  If the true share is as uncertain as those 20 say
#   (a Beta(11, 11)), 380 networks (190 runs of each) decide it at 97.5% with probability about
#   0.6; no affordable n does much better, since the share may sit at 50%.  At about 18 core-
#   seconds per run (two networks) the cap is about 30 minutes on two cores.  (That estimate came
#   from the 10-run record's 177 s, mostly compilation: the 380 networks took about 10 minutes of
#   two cores.  The record stopped at its cap, 181 of 380, 47.6% [42.0, 53.4]: on its threshold.)
#   That share pooled the two kinds of network, which the 380 showed differ widely: 25 of 190
#   focused networks, 156 of 190 full ones.  A pooled share measures our one-to-one mix of them,
#   not a typical network of either kind, so the row became one per kind (2026-11-28, after the
#   record was seen; the same networks, re-derived): focused 13.2% [8.6, 19.6] does not hold,
#   full 82.1% [75.1, 87.5] holds.  The record's design still names the pooled row it watched.
PLANS = {"mozer-reproduce": sequential.Plan(120, 1200, 1320),
         "mozer-reversed": sequential.Plan(60, 360, 420),
         "mozer-large-verbs": sequential.Plan(10, 180, 190)}
"""Paper scale: the sequential design (:mod:`tempnets.book.sequential`) of sequence reproduction and of
the reversed verbs, one "run" being network ``k`` of every condition.  Its first look is the
paper-scale ``runs`` of :data:`SIZES`; every interval of the record is at the plan's level
(:func:`tempnets.book.sequential.level_of`), the rows on the paper's first 15 runs aside (they have
none).  Book scale: the fixed ``runs`` of :data:`SIZES`."""

CHUNK = 100
"""Runs per piece of a paper-scale run: each piece of each condition is saved in the run's
checkpoint as it finishes, so an interrupted run loses at most one piece's work."""


PAPER_DESIGN = PAPER["reproduce_runs"]
"""The runs per network of the paper's sequence reproduction (its t(28)).  The rows whose value
depends on the number of runs in one direction only, a t-test's p (it shrinks as runs are added)
and "some runs learn" (a count that only grows), are computed on the first this many runs of
each network, so that more runs never make them easier to pass."""


def _rng(seed, *tags):
    seed = count("seed", seed)
    return np.random.default_rng([seed] + [sum((i + 1) * ord(c) for i, c in enumerate(str(t))) for t in tags])


# ----------------------------------------------------------------------------- storing runs

def _params_data(stack) -> dict:
    arch = "focused" if isinstance(stack, F.FocusedParams) else "full"
    return {"arch": arch, **{k: np.round(np.asarray(v), 8).tolist() for k, v in stack._asdict().items()}}


def params_from_data(d: dict):
    """The stack of networks stored by a runner (``data[...]["params"]``)."""
    checks.instance("d", d, dict, "a dict of stored networks (a runner's data[...]['params'])")
    cls = {"focused": F.FocusedParams, "full": F.FullParams}[checks.one_of("arch", d.get("arch"),
                                                                           ("focused", "full"))]
    missing = [k for k in cls._fields if k not in d]
    if missing:
        raise ValueError(f"d must hold every array of a {d['arch']} network; it lacks {', '.join(missing)}")
    return cls(*(checks.array(k, d[k], finite=False) for k in cls._fields))


def _condition(seqs, arch, n_ctx, sz_runs, n_epochs, cfg, rng, progress, tests=None, start=0) -> dict:
    """Networks ``start .. sz_runs - 1`` of one condition, trained (network ``k`` is the same
    whatever ``start`` and ``sz_runs``: it draws from child ``k`` of ``rng`` and trains alone)."""
    n_in, n_out = seqs.X.shape[1], seqs.Y.shape[1]
    init = F.init_many(arch, n_in, n_ctx, n_out, sz_runs, rng)
    if start:
        init = type(init)(*(np.asarray(a)[start:] for a in init))
    h = T.train(seqs, init, n_epochs=n_epochs, config=cfg, progress=progress)
    every = max(1, n_epochs // 100)  # about 100 points per learning curve
    keep = np.unique(np.r_[np.arange(0, n_epochs + 1, every), n_epochs])
    out = {"arch": arch, "n_ctx": n_ctx, "config": asdict(cfg), "n_epochs": n_epochs,
           "curve_epochs": keep.tolist(), "performance": h.performance[:, keep].round(3).tolist(),
           "final": h.performance[:, -1].round(3).tolist(),
           "epochs_to_criterion": h.epochs_to_criterion.tolist(),
           "connections": F.connection_count(init.network(0)), "params": _params_data(h.params)}  # curves: performance at curve_epochs
    for name, s in (tests or {}).items():
        out[f"test_{name}"] = T.evaluate(h.params, s, cfg).round(3).tolist()
    return out


CONTEXT_LAYER = {"focused": "d, z and a bias per unit", "full": "the recurrent weights and a bias per unit"}
"""What the paper counts as a connection within the context layer (the regular verbs' note 1)."""


def context_connections(params) -> int:
    """Connections within the context layer of one network, as the paper counts them for the
    regular verbs ("the focused network requires six connections within the context layer, two
    for the d_i, two for the z_i, and two for the biases; the full network also requires six,
    four to connect each unit to each other and two for the biases")."""
    if not isinstance(params, (F.FocusedParams, F.FullParams)):
        raise TypeError(f"params must be FocusedParams or FullParams, got {type(params).__name__}")
    inside = (params.d, params.z) if isinstance(params, F.FocusedParams) else (params.W_cc,)
    return int(sum(np.asarray(a).size for a in inside + (params.b_c,)))


def _need(trained, keys, runner):
    data = trained.data if isinstance(trained, Result) else trained
    if not isinstance(data, dict):
        raise TypeError(f"trained= must be a Result or its data dict, got {type(trained).__name__}")
    missing = [k for k in keys if k not in data]
    if missing:
        raise ValueError(f"trained= is not the data of {runner}: missing {', '.join(missing)}")
    return data


def _sizes(exp, scale):
    return SIZES[exp][get_scale(scale)]


def _ttest(a, b):
    """Student's two-sample t-test (pooled variance, as the paper's t(28)): ``(t, p)``."""
    import warnings

    from scipy import stats

    with warnings.catch_warnings():
        # One group may be constant (every full delay-4 run stops at 70%): scipy then warns of
        # "precision loss", yet the pooled variance, and so t and p, are well defined.
        warnings.filterwarnings("ignore", "Precision loss occurred", RuntimeWarning)
        r = stats.ttest_ind(np.asarray(a, float), np.asarray(b, float))
    return float(r.statistic), float(r.pvalue)


def constant_answer_score(seqs) -> float:
    """The % right (argmax scoring, :func:`tempnets.training.focused_training.evaluate`) of the best network
    that gives every sequence the same answer: the share of sequences whose target is the
    commonest one.  The do-nothing score of a classification task (a network that learned
    nothing of its input can do no better)."""
    seqs = T.check_sequences(seqs)
    targets = seqs.Y[seqs.M > 0].argmax(axis=1)
    return 100.0 * float(np.bincount(targets).max()) / targets.size


def _epochs_to(curve_epochs, perf, level):
    """First stored epoch at which each run's performance reaches ``level`` (nan if never)."""
    perf = np.asarray(perf)
    out = []
    for row in perf:
        hit = np.flatnonzero(row >= level)
        out.append(float(curve_epochs[hit[0]]) if hit.size else np.nan)
    return np.array(out)


ALL_RUNS_BOUND = 75.0
"""The bound of the rows for the paper's "the task was successfully learned on all runs": the
share of runs that learn must clear it.  "Every run" can be refuted by runs, never established;
75% is the highest round bound that 15 runs can clear when all learn (their 95% Wilson interval
is 79.6% to 100%), and 7 of 15 or fewer fail it, so the row can come out either way."""


def add_all_learn(t, statement, k, n, expected, note="", level: float = intervals.LEVEL) -> None:
    """Add the row for "the task was learned on all runs": % of ``n`` runs that learned (``k``)
    against :data:`ALL_RUNS_BOUND`, the paper's value 100, its interval at ``level``."""
    t.add(statement, "text", 100.0, round(100.0 * k / n, 1), claims.at_least(ALL_RUNS_BOUND), expected=expected,
          interval=intervals.percent(k, n, level), do_nothing=0.0,
          note=(note + "; " if note else "") + f"design: the {intervals.level_name(level)} Wilson interval of {n} runs' share "
               f"must clear {ALL_RUNS_BOUND:g}% ({n} of {n} runs would hold, none would fail); "
               + intervals.share_note(k, n, level=level))


def add_some_learn(t, statement, paper, k, n, expected, note="") -> None:
    """Add the row for "the network learned the task on only ``paper`` runs": at least one of
    our ``n`` runs learned (``k`` of them).  A count of these runs, with no interval: a network
    that never learns (0) fails it, one run that learns passes; that the paper's rate is rare
    is the next rows' comparison with the focused network."""
    t.add(statement, "text", paper, k, claims.at_least(1), expected=expected, do_nothing=0,
          note=(note + "; " if note else "") + f"design: a count over these {n} runs, no interval "
               "(0 fails, any run that learns passes); " + intervals.share_note(k, n))


PER_RUN = ("performance", "final", "epochs_to_criterion")
"""The per-run entries of a condition stored by a runner (besides its ``params`` and ``test_*``)."""


def first_runs(data, n: int) -> dict:
    """A runner's data cut to its first ``n`` runs per condition, as if it had trained ``n``.

    Network ``k`` starts from the same weights whatever the number trained (each draws from a
    stream of its own, :func:`tempnets.models.focused.init_many`) and trains alone, so these are the
    first ``n`` runs of any larger run with the same seed: the runs ``mozer-rates`` measures, and
    the paper's design (:data:`PAPER_DESIGN`).

    Parameters
    ----------
    data : dict or Result
        The data of ``mozer-verbs``, ``mozer-reproduce`` or ``mozer-reversed`` (a result or a
        record's ``data``): conditions holding ``final``, ``params``, ... and ``sizes``.
    n : int
        Runs to keep, from 1 to ``data["sizes"]["runs"]``.

    Returns
    -------
    dict
        The same data with ``n`` runs per condition and ``sizes["runs"] = n``; what a runner
        re-derives from its runs (the verbs' ``reading``) is left out, and so is the record of
        the design of all the runs (``design``, sequential or fixed): ``n`` runs looked at once
        are a fixed design of ``n``, whose intervals are at 95%.
    """
    data = data.data if isinstance(data, Result) else data
    checks.instance("data", data, dict, "a runner's data (a Result or a record's data)")
    try:
        runs = count("data['sizes']['runs']", data["sizes"]["runs"], 1)
    except (KeyError, TypeError):
        raise ValueError("data must hold sizes['runs'] (the data of mozer-verbs, mozer-reversed or "
                         "mozer-reproduce)") from None
    n = count("n", n, 1, runs)

    def cut(cond):
        for key, value in cond.items():
            if (key in PER_RUN or key.startswith("test_")) and len(value) != runs:
                raise ValueError(f"data: {key} holds {len(value)} runs, sizes say {runs}")
        return _cut(cond, 0, n)

    out = {}
    for key, value in data.items():
        if key == "reading":
            continue
        if isinstance(value, dict) and "final" in value and "params" in value:
            value = cut(value)
        elif isinstance(value, list) and value and all(isinstance(v, dict) and "final" in v for v in value):
            value = [cut(v) for v in value]  # the reversed verbs' sweep
        out[key] = value
    out["sizes"] = dict(data["sizes"], runs=n)
    out.pop("design", None)  # n runs looked at once: not the design of all of them
    return out


def _cut(cond: dict, a: int, b: int) -> dict:
    """Runs ``a .. b - 1`` of one condition's data (:func:`_condition`'s dict)."""
    out = dict(cond)
    for key, value in cond.items():
        if key in PER_RUN or key.startswith("test_"):
            out[key] = list(value[a:b])
        elif key == "params":
            out[key] = {k: (v if k == "arch" else list(v[a:b])) for k, v in value.items()}
    return out


def _join(conds) -> dict:
    """One condition's data from its pieces (each :func:`_condition`'s dict), runs in order."""
    out = dict(conds[0])
    for key, value in conds[0].items():
        if key in PER_RUN or key.startswith("test_"):
            out[key] = [x for c in conds for x in c[key]]
        elif key == "params":
            out[key] = {k: (v if k == "arch" else [x for c in conds for x in c[key][k]])
                        for k, v in value.items()}
    return out


def _each_run(group: dict, n: int) -> list:
    """``group`` (conditions, or lists of conditions, of ``n`` runs each) as ``n`` results, one
    per run: the results :func:`tempnets.book.sequential.run` gathers."""
    def one(value, i):
        return [_cut(c, i, i + 1) for c in value] if isinstance(value, list) else _cut(value, i, i + 1)
    return [{key: one(value, i) for key, value in group.items()} for i in range(n)]


def _gather(results) -> dict:
    """The conditions of :func:`_each_run`'s results, joined (all their runs, in order)."""
    out = {}
    for key, value in results[0].items():
        if isinstance(value, list):
            out[key] = [_join([r[key][j] for r in results]) for j in range(len(value))]
        else:
            out[key] = _join([r[key] for r in results])
    return out


def _pieces(conditions, start: int, stop: int, checkpoint, made: dict) -> list:
    """Runs ``start .. stop - 1`` of every condition, one result per run (:func:`_each_run`).

    ``conditions`` maps a name to ``train(a, b)``, which trains networks ``a .. b - 1`` of that
    condition (a dict, or a list of dicts for a sweep); they are trained in pieces of
    :data:`CHUNK` runs, each saved in ``checkpoint`` (if any, with ``made``: what the run is) and
    not trained again when an interrupted run continues."""
    if checkpoint is not None and not callable(getattr(checkpoint, "computed", None)):
        raise TypeError(f"checkpoint must be a tempnets.training.checkpoint.Checkpoint or None, got "
                        f"{type(checkpoint).__name__}")
    out = []
    for a in range(start, stop, CHUNK):
        b = min(a + CHUNK, stop)
        group = {}
        for name, train in conditions.items():
            work = lambda train=train: train(a, b)  # noqa: E731
            group[name] = work() if checkpoint is None else checkpoint.computed(
                f"{name}-{a}-{b}", {**made, "condition": name, "runs": [a, b]}, work)
        out += _each_run(group, b - a)
    return out


def _run_conditions(experiment: str, scale: str, seed: int, sz: "Sizes", conditions: dict, checkpoint,
                    claims_of) -> dict:
    """The data of ``experiment``'s runs of every condition (:func:`_pieces`) by its design, whose
    record the data keep: at paper scale the sequential :data:`PLANS`, at book scale a fixed
    ``sz.runs`` (one look, 95%).  ``claims_of(data, level)`` makes the claims the design watches."""
    made = {"experiment": experiment, "scale": scale, "seed": seed, "sizes": asdict(sz)}

    def data_of(results, design=None):
        return {"sizes": dict(asdict(sz), runs=len(results)), **_gather(results),
                **({"design": design} if design else {})}

    results, design = sequential.run(sequential.plan_for(scale, sz.runs, PLANS.get(experiment)),
                                     lambda a, b: _pieces(conditions, a, b, checkpoint, made),
                                     lambda res, level: claims_of(data_of(res), level), what="runs")
    return data_of(results, design)


def _paper_ttest(a, b) -> tuple:
    """Student's t-test (:func:`_ttest`) on the first :data:`PAPER_DESIGN` runs of ``a`` and of
    ``b`` (run order), the paper's t(28): ``(t, p, m_a, m_b)`` with the runs used.  A p-value falls
    as runs are added, so a row comparing it with the paper's bound is computed on the paper's
    number of runs, whatever our number."""
    a, b = (np.asarray(x, float)[:PAPER_DESIGN] for x in (a, b))
    tt, p = _ttest(a, b) if min(a.size, b.size) > 1 else (float("nan"), float("nan"))
    return tt, p, a.size, b.size


def _add_delay1_p(t, e, expected, note="") -> None:
    """Add delay 1's "the difference is not significant (t-test p > 0.3)": epochs to perfect of
    the runs that got there among the first :data:`PAPER_DESIGN` of each network (``e``: per
    architecture, each run's epochs to criterion, -1 where never); ``note`` ends the row's note."""
    got = {a: np.asarray(e[a])[:PAPER_DESIGN] for a in ("focused", "full")}
    a_, b_ = (got[a][got[a] >= 0] for a in ("focused", "full"))
    tt, p, _, _ = _paper_ttest(a_, b_)
    t.add("delay 1: the difference is not significant (t-test p > 0.3)", "text, t(28) = 0.958", 0.3,
          round(p, 4), claims.at_least(0.3), expected=expected,
          note=f"ours t = {tt:.2f}, over the runs that got there among the first {PAPER_DESIGN} of each "
               f"({a_.size} and {b_.size}): the paper's design, since p falls as runs are added"
               + (f"; {note}" if note else ""),
          not_tested="" if min(a_.size, b_.size) > 1 else "fewer than two runs of a network got there")


def _add_delay4_perfect(t, crit4, expected, notes=None, level: float = intervals.LEVEL) -> None:
    """Add delay 4's rows on perfect runs (Table 3's text, "12 of 15 runs" against "only 2").

    ``crit4``: per architecture, each run's epochs to criterion (-1: never); ``expected``: the
    stated verdicts, keys ``"focused"``, ``"full"``, ``"difference"``; ``notes``: per
    architecture, a note to open its row with; ``level``: that of the intervals.  The paper's counts are of its 15 runs, so the
    focused network's count and the margin over the full one are compared as shares of runs
    (the paper's 12 of 15 is 80%, its tolerance of 3 runs 20 points); "some full runs learn", a
    count that only grows with the runs, is counted over the first :data:`PAPER_DESIGN`.
    """
    notes = notes or {}
    crit4 = {a: np.asarray(crit4[a]) for a in ("focused", "full")}
    k4 = {a: int((crit4[a] >= 0).sum()) for a in crit4}
    n4 = {a: crit4[a].size for a in crit4}
    m = PAPER_DESIGN
    paper = {a: 100.0 * PAPER["reproduce_delay4_perfect"][a] / m for a in crit4}
    tol = 100.0 * 3 / m  # the former tolerance of 3 of the paper's 15 runs, as a share
    lead = {a: notes[a] + "; " if notes.get(a) else "" for a in crit4}
    t.add("delay 4: focused runs learning perfectly (% of runs)", "text",
          round(paper["focused"], 1), round(100.0 * k4["focused"] / n4["focused"], 1), claims.within(tol),
          expected=expected["focused"], interval=intervals.percent(k4["focused"], n4["focused"], level), do_nothing=0.0,
          note=lead["focused"] + f"the paper: {PAPER['reproduce_delay4_perfect']['focused']} of its {m} runs; "
               f"the tolerance, 3 of its runs, as a share ({tol:.0f} points); "
               + intervals.share_note(k4["focused"], n4["focused"], level=level))
    first = crit4["full"][:PAPER_DESIGN]
    k_first = int((first >= 0).sum())
    add_some_learn(t, f"delay 4: some full runs learn perfectly (runs, of the first {PAPER_DESIGN}: the "
                      "paper's number)", PAPER["reproduce_delay4_perfect"]["full"], k_first, first.size,
                   expected["full"],
                   note=lead["full"] + f"a count that only grows with the runs, so over the paper's {m} "
                        f"(the first {first.size}); {k4['full']} of all {n4['full']} runs")
    if n4["focused"] == n4["full"]:
        n = n4["focused"]
        lo, hi = intervals.share_difference(k4["focused"], n, k4["full"], n, level)
        diff_interval = (100.0 * lo, 100.0 * hi)
        diff_note = f"{intervals.level_name(level)} interval: Newcombe, {k4['focused']} vs {k4['full']} of {n} runs"
        diff_design = intervals.Design("share_difference", (n, n), unit="percent", level=level)
    else:
        diff_interval, diff_note = None, "no interval: the two sets of runs differ in size"
        diff_design = None
    t.add("delay 4: focused learns perfectly more often than full (% of runs, difference)", "text",
          round(paper["focused"] - paper["full"], 1),
          round(100.0 * (k4["focused"] / n4["focused"] - k4["full"] / n4["full"]), 1),
          claims.at_least(tol), expected=expected["difference"], interval=diff_interval, design=diff_design,
          do_nothing=0.0,
          note=f"the paper: {PAPER['reproduce_delay4_perfect']['focused']} vs "
               f"{PAPER['reproduce_delay4_perfect']['full']} of {m} runs; the bound, a margin of 3 of its "
               f"runs, as a share ({tol:.0f} points); {diff_note}")


def _add_delay4_p(t, final4, expected, why="") -> None:
    """Add "delay 4: focused > full, significant (t-test p < 0.001)" on the first
    :data:`PAPER_DESIGN` runs of each network (``final4``: per architecture, final % right), the
    paper's t(28) = 8.42: p falls as runs are added, so more runs must not make it easier to pass.
    ``why``: the reason it is not tested (:func:`tempnets.book.claims.control_gate`), or ``""``."""
    tt, p, ma, mb = _paper_ttest(final4["focused"], final4["full"])
    t.add("delay 4: focused > full, significant (t-test p < 0.001)", "text, t(28) = 8.42", 0.001,
          round(p, 6) if np.isfinite(p) else float("nan"), claims.at_most(0.001),
          expected=None if why else expected, not_tested=why,
          note=f"ours t({ma + mb - 2}) = {tt:.2f} (two-sided; a negative t: the full network ends higher), on "
               f"the first {ma} and {mb} runs, the paper's design: p falls as runs are added")


# ----------------------------------------------------------------------------- DEAR

DEAR_WORDS = ("DEAR", "DEAN", "BEAR", "BEAN")
"""The four training words, in the order of the output units."""

DEAR_KEYS = {"D": ("—D", "DE"), "B": ("—B", "BE"), "R": ("R—", "AR"), "N": ("N—", "AN")}
"""The training Wickelements (delimiters included, :func:`tempnets.tasks.verbs.wickelements`) that
carry each key letter, as (boundary pair, inner pair): Mozer's discriminators respond to
"D or DE" and "R or AR"."""

DEAR_PRESERVING = ("ARDE", "ANDE", "ARBE", "ANBE")
"""The paper's "preserving" example ARBE and its kin (targets DEAR, DEAN, BEAR, BEAN): they keep
the inner pairs DE/BE and AR/AN, and lose the boundary pairs —D/—B and R—/N—."""
DEAR_DESTROYING = ("DAER", "DAEN", "BAER", "BAEN")
"""The paper's "destroying" example DAER and its kin: they lose DE/BE and AR/AN, but with the
delimiters they keep the boundary pairs —D/—B and R—/N—."""
DEAR_TWO_LETTER = ("RD", "ND", "RB", "NB")
"""The paper's "destroying" example RB and its kin: with the delimiters (—R, RB, B—) no key
pair is kept."""


def dear_kept(string: str, letter: str, boundaries: bool = True) -> str:
    """Which of the training Wickelements of key ``letter`` (:data:`DEAR_KEYS`) ``string`` keeps:
    ``"both"``, ``"boundary"`` (—D, R—, ...), ``"inner"`` (DE, AR, ...) or ``"neither"``."""
    if letter not in DEAR_KEYS:
        raise ValueError(f"letter must be one of {', '.join(DEAR_KEYS)}, got {letter!r}")
    pairs = set(V.wickelements(string, boundaries))
    edge, inner = (k in pairs for k in DEAR_KEYS[letter])
    return {(True, True): "both", (True, False): "boundary", (False, True): "inner"}.get((edge, inner), "neither")


def dear_permutations() -> tuple:
    """The 96 orderings of the four training words' letters, each word's 24 in turn."""
    import itertools

    return tuple("".join(p) for w in DEAR_WORDS for p in itertools.permutations(w))


def _keys(string: str) -> tuple:
    """The key letters of a probe: (D or B, R or N)."""
    return "DB"["B" in string], "RN"["N" in string]


DEAR_NONE_KEPT = tuple(s for s in dear_permutations() if all(dear_kept(s, k) == "neither" for k in _keys(s)))
"""Permutations that keep none of the key Wickelements, delimiters included (EDRA, ...): the
first-letter key D/B stands neither first nor before E, the last-letter key R/N neither last
nor after A.  By the paper's definition these, and only these, destroy every Wickelement its
discriminators use."""


def _probe(params, strings, boundaries=True) -> tuple:
    """Per network of the stack: the predicted word index for each of ``strings``, shape
    ``(n_nets, n_strings)``."""
    seqs = V.dear_task(strings, boundaries=boundaries)
    out = []
    for k in range(params.W_in.shape[0]):
        y, _ = F.forward(params.network(k), seqs)
        out.append(y[seqs.offsets[1:] - 1].argmax(1))
    return np.array(out).reshape(len(out), len(strings))


def _word_right(pred, strings) -> np.ndarray:
    """% of ``strings`` classified as the word of their key letters, per network."""
    target = [2 * ("B" in s) + ("N" in s) for s in strings]  # DEAR, DEAN, BEAR, BEAN
    return 100.0 * np.mean(pred == np.array(target)[None, :], axis=1)


def _decision_right(pred, strings, side, kept) -> np.ndarray:
    """% right, per network, of one decision (``side`` "first": D or B; "last": R or N) over the
    strings whose key letter on that side keeps ``kept`` (:func:`dear_kept`)."""
    first = side == "first"
    idx = [i for i, s in enumerate(strings) if dear_kept(s, _keys(s)[1 - first]) == kept]
    truth = np.array([_keys(strings[i])[1 - first] in "BN" for i in idx])
    said = (pred[:, idx] >= 2) if first else (pred[:, idx] % 2 == 1)
    return 100.0 * np.mean(said == truth[None, :], axis=1)


def _learned(d):
    """The learned networks of one condition (stack): those that met the criterion and whose
    final network still meets it.  Training goes on after the criterion (DEAR has no stop at
    criterion), and a network can end on a near tie that misclassifies a word (run 120 of the
    150-network record: met at epoch 391, 75% at the end); the probes test final networks."""
    p = params_from_data(d["params"])
    met = np.asarray(d["epochs_to_criterion"]) >= 0
    keep = np.flatnonzero(met & (_word_right(_probe(p, DEAR_WORDS), DEAR_WORDS) >= 100.0))
    return type(p)(*(np.asarray(a)[keep] for a in p))


def dear_probes(d) -> dict:
    """What one condition's learned networks respond to: % right per network for each probe.

    Keys: the paper's examples as word-level scores (``"ARBE"``: :data:`DEAR_PRESERVING`,
    ``"DAER"``: :data:`DEAR_DESTROYING`, ``"RB"``: :data:`DEAR_TWO_LETTER`, ``"DAER, no —"`` and
    ``"DEAR, no —"`` without the end delimiters, ``"none kept"``: :data:`DEAR_NONE_KEPT`), and
    ``(side, kept)`` per decision over all 96 permutations (chance 50%).
    """
    p = _learned(d)
    out = {}
    for key, strings, bound in (("ARBE", DEAR_PRESERVING, True), ("DAER", DEAR_DESTROYING, True),
                                ("RB", DEAR_TWO_LETTER, True), ("DAER, no —", DEAR_DESTROYING, False),
                                ("DEAR, no —", DEAR_WORDS, False), ("none kept", DEAR_NONE_KEPT, True)):
        out[key] = _word_right(_probe(p, strings, bound), strings)
    perms = dear_permutations()
    pred = _probe(p, perms)
    for side in ("first", "last"):
        for kept in ("both", "boundary", "inner", "neither"):
            out[(side, kept)] = _decision_right(pred, perms, side, kept)
    return out


_PROBE_LABELS = {
    "ARBE": ("ARBE, ARDE, ... (the paper's 'preserving')", "inner: AR, BE", 25),
    "DAER": ("DAER, BAEN, ... (the paper's 'destroying')", "boundary: —D, R—", 25),
    "RB": ("RB, ND, ... (the paper's 'destroying')", "none", 25),
    "DAER, no —": ("DAER, ... without the end delimiters", "none", 25),
    "DEAR, no —": ("DEAR, ... without the end delimiters", "inner: DE, AR", 25),
    "none kept": ("EDRA, ... (every permutation keeping no key pair)", "none", 25),
}


def dear_probe_table(data) -> str:
    """The probes of :func:`dear_probes` for both conditions of a DEAR run, as a text table:
    mean % right over the learned networks and its 95% interval (t)."""
    probes = {name: dear_probes(data[name]) for name in ("paper", "fig3")}
    rows = []
    for key, (label, kept, chance) in _PROBE_LABELS.items():
        rows.append((label, kept, chance, key))
    for side, what in (("first", "first letter D/B"), ("last", "last letter R/N")):
        for kept in ("both", "boundary", "inner", "neither"):
            n = sum(dear_kept(s, _keys(s)[side == "last"]) == kept for s in dear_permutations())
            rows.append((f"{what}, {n} of the 96 permutations", kept, 50, (side, kept)))

    def cell(x):
        if len(x) == 0:
            return "no network learned"
        lo, hi = intervals.mean(x)
        return f"{np.mean(x):5.1f} [{lo:5.1f}, {hi:5.1f}]"

    n = {name: len(next(iter(p.values()))) for name, p in probes.items()}
    head = (f"{'probe (% classified by its key letters)':<55} {'key pairs kept':<17} {'chance':>6}  "
            f"{'paper init, ' + str(n['paper']) + ' nets':<22}  {'Figure 3, ' + str(n['fig3']) + ' nets':<22}")
    lines = [head, "-" * len(head)]
    for label, kept, chance, key in rows:
        lines.append(f"{label:<55} {kept:<17} {chance:>5}%  {cell(probes['paper'][key]):<22}  "
                     f"{cell(probes['fig3'][key]):<22}")
    return "\n".join(lines)


def context_profile(params, seqs, variant="eq1") -> np.ndarray:
    """Final context activity of each sequence, shape ``(n_seq, n_ctx)``."""
    _, C = F.forward(params, seqs, variant=variant)
    return C[seqs.offsets[1:] - 1]


def _discriminators(fin) -> bool:
    """Whether one context unit separates D from B and the other R from N (words in DEAR,
    DEAN, BEAR, BEAN order): each group's values lie on one side of the other group's."""
    def sep(u, a, b):
        return max(fin[a, u].min() - fin[b, u].max(), fin[b, u].min() - fin[a, u].max()) > 0
    return any(sep(u, [0, 1], [2, 3]) and sep(1 - u, [0, 2], [1, 3]) for u in range(2))


def run_dear(scale="book", seed=0, jobs=1, progress=None, trained=None) -> Result:
    """DEAR/DEAN/BEAR/BEAN (Figure 3): epochs to criterion, the two discriminators, permutations.

    Two conditions of 50 runs: ``"paper"`` (the stated initialisation, z = −0.5, the rule as
    stated) and ``"fig3"`` (Figure 3's run: z started at 0, decay and zero-point rates ×0.1).
    """
    if trained is None:
        sz = _sizes("mozer-dear", scale)
        seqs = V.dear_task()
        data = {"sizes": asdict(sz)}
        with numba_threads(jobs):
            data["paper"] = _condition(seqs, "focused", 2, sz.runs, sz.epochs, RATES["dear"],
                                       _rng(seed, "dear"), progress)
            fig3 = F.init_many("focused", 6, 2, 4, sz.runs, _rng(seed, "dear"), z0=0.0)
            h = T.train(seqs, fig3, n_epochs=sz.epochs, config=T.FocusedConfig(slow_dz=0.1), progress=progress)
            data["fig3"] = {"epochs_to_criterion": h.epochs_to_criterion.tolist(),
                            "params": _params_data(h.params)}
    else:
        data = _need(trained, ["sizes", "paper", "fig3"], "run_dear")
    scale = get_scale(scale)
    seqs = V.dear_task()
    t = claims.ClaimsTable(f"DEAR/DEAN/BEAR/BEAN (Figure 3): {data['sizes']['runs']} runs, "
                           f"up to {data['sizes']['epochs']} epochs")
    for name, label in (("paper", "paper's initialisation"), ("fig3", "Figure 3's settings")):
        d = data[name]
        e = np.array(d["epochs_to_criterion"], float)
        e[e < 0] = np.inf
        learned = np.isfinite(e)
        if name == "paper":
            k, n = int(learned.sum()), len(e)
            t.add("more than half of the runs learn the task, as a median epoch count needs (most active "
                  "output right for all 4 words; % of runs)", "text", None, round(100.0 * k / n, 1),
                  claims.at_least(50.0), expected=EXPECT["dear-most-learn"][scale], interval=intervals.percent(k, n),
                  do_nothing=0.0,
                  note="the paper: 'Fifty replications ... The task was learned in a median of 488 training "
                       "epochs', which needs more than 25 of the 50 to learn, and says no more; design: the 95% "
                       f"Wilson interval of {n} runs' share must clear 50% (all would hold, none would fail); "
                       + intervals.share_note(k, n))
            t.add("median epochs to criterion", "text", PAPER["dear_median_epochs"], float(np.median(e)),
                  claims.relative(0.25), expected=EXPECT["dear-median"][scale], interval=intervals.median(e),
                  note="ρ = 0.02, μ = 1, ω = 100; 95% interval: order statistics")
        p = params_from_data(d["params"])
        roles = [_discriminators(context_profile(p.network(k), seqs)) for k in np.flatnonzero(learned)]
        wilson = intervals.share_note(np.sum(roles), len(roles))
        t.add(f"{label}: one context unit tells D from B, the other N from R (% of learned runs)",
              "Figure 3", None, round(100 * float(np.mean(roles)), 1) if roles else float("nan"), claims.at_least(50.0),
              expected=(name == "fig3"), interval=intervals.percent(np.sum(roles), len(roles)) if roles else None,
              note=("with the stated start (z = −0.5) and free d, z the decays grow and one unit "
                    "often carries both contrasts; " if name == "paper" else "") + wilson)
        # The generalisation test, from the stored networks (learned runs only): the paper's
        # examples, and the strings that by its definition destroy every key Wickelement.
        probe = dear_probes(d)
        n_nets = len(probe["ARBE"])
        for key, check, statement, note in (
                ("ARBE", claims.at_least(75.0),
                 "permutations keeping the Wickelements, like ARBE (keeps AR and BE), are classified "
                 "like their originals (% right, mean over learned runs)",
                 "with the delimiters ARBE loses the boundary pairs —B and R—"),
                ("DAER", claims.at_most(50.0),
                 "permutations destroying them, like DAER, are not: % right ≤ 50",
                 "with the delimiters DAER keeps —D and R—, which by the paper's definition are "
                 "Wickelements too (its unit 1 is 'activated partly by D', the buffer —D)"),
                ("none kept", claims.at_most(50.0),
                 f"permutations destroying every key Wickelement, delimiters included ({len(DEAR_NONE_KEPT)} "
                 "strings: EDRA, ...), are not: % right ≤ 50",
                 "chance is 25%")):
            t.add(f"{label}: {statement} (tests the networks' classification; the paper "
                  "compares context-unit responses with the originals')",
                  "text", None,
                  round(float(np.mean(probe[key])), 1) if n_nets else float("nan"), check,
                  expected=EXPECT[f"dear-{key.replace(' ', '-').lower()}"][name][scale] if n_nets else None,
                  interval=intervals.mean(probe[key]) if n_nets else None,
                  note=f"{note}; 95% interval: t, {n_nets} networks",
                  not_tested="" if n_nets else "no run learned the task")
    return Result(t, data)


# ----------------------------------------------------------------------------- regular verbs

FIGURE5_FINALS = {"ends in /t/": "t", "ends in /d/": "d", "unvoiced": "pksSC", "voiced": None}


def figure5_verbs(held) -> list:
    """Twenty held-out verbs for Figure 5: five ending in /t/, /d/, an unvoiced consonant and
    a voiced consonant or vowel."""
    checks.instance("held", held, (list, tuple), "a list of (word, spelling, category) verbs")
    for i, it in enumerate(held):
        if not (isinstance(it, (list, tuple)) and len(it) == 3 and isinstance(it[1], str) and it[1]):
            raise TypeError(f"held must be a list of (word, spelling, category) verbs, got "
                            f"{checks.shown(it)} at index {i}")
    out = []
    for label, finals in FIGURE5_FINALS.items():
        pick = [it for it in held if (it[1][-1] in finals if finals else V.regular_class(it[1]) == 2)]
        out += pick[:5]
    return out


def _verb_tests(cmu, reverse):
    return {"held_out": V.verb_task(V.held_out_regulars(cmu), 3, reverse=reverse)}


def _auc(x, y) -> float:
    """How well a threshold on ``x`` separates ``y`` True from False (area under the ROC curve,
    either direction): 1.0 perfectly, 0.5 not at all."""
    a, b = x[y], x[~y]
    gt = np.mean(a[:, None] > b[None, :]) + 0.5 * np.mean(a[:, None] == b[None, :])
    return float(max(gt, 1.0 - gt))


def _unit_reading(params, seqs, spellings) -> dict:
    """Figure 5's reading, per network: how well the best single context unit separates verbs
    whose final phoneme is dental (unvoiced) from the rest (:func:`_auc` of its final activity)."""
    dental = np.array([sp[-1] in V.DENTALS for sp in spellings])
    unvoiced = np.array([sp[-1] in V.UNVOICED for sp in spellings])
    out = {"dental": [], "unvoiced": []}
    for k in range(params.W_in.shape[0]):
        fin = context_profile(params.network(k), seqs)
        for key, feat in (("dental", dental), ("unvoiced", unvoiced)):
            out[key].append(round(max(_auc(fin[:, u], feat) for u in range(fin.shape[1])), 4))
    return out


def run_verbs(scale="book", seed=0, jobs=1, progress=None, trained=None) -> Result:
    """Regular verbs (Table 2; Figures 4, 5): focused vs full, learning curves, generalisation."""
    cmu = V.load_cmudict()
    items = V.regular_verbs()
    seqs = V.verb_task(items, 3)
    if trained is None:
        sz = _sizes("mozer-verbs", scale)
        data = {"sizes": asdict(sz), "held_out": [list(it) for it in V.held_out_regulars(cmu)]}
        with numba_threads(jobs):
            for arch in ("focused", "full"):
                data[arch] = _condition(seqs, arch, 2, sz.runs, sz.epochs, RATES["verbs"], _rng(seed, "verbs", arch),
                                        progress, _verb_tests(cmu, False))
    else:
        data = _need(trained, ["sizes", "held_out", "focused", "full"], "run_verbs")
    scale = get_scale(scale)
    foc, full = data["focused"], data["full"]
    t = claims.ClaimsTable(f"Regular verbs (Figure 4): {data['sizes']['runs']} runs per network, "
                           f"{data['sizes']['epochs']} epochs")
    for name, d in (("focused", foc), ("full", full)):
        t.add(f"{name}: connections within the context layer ({CONTEXT_LAYER[name]})", "text, note 1",
              PAPER["verbs_context_connections"], context_connections(params_from_data(d["params"]).network(0)),
              claims.within(0), kind="computation",
              note=f"{d['connections']} adjustable weights per network in all, by our count (the paper "
                   "prints no total)")
    for name, d in (("focused", foc), ("full", full)):
        t.add(f"{name} network learns the task: final % right (mean)", "Figure 4", None,
              round(float(np.mean(d["final"])), 1), claims.at_least(95.0), interval=intervals.mean(d["final"]))
        t.add(f"{name} network generalises to {len(data['held_out'])} held-out regular verbs "
              "(% right, mean)", "Figure 4, far right", None, round(float(np.mean(d["test_held_out"])), 1),
              claims.at_least(85.0), interval=intervals.mean(d["test_held_out"]), note="the paper: 'excellent'")
    quarter = [np.asarray(d["performance"])[:, : len(d["curve_epochs"]) // 4].mean(axis=1) for d in (foc, full)]
    q = [round(float(np.mean(x)), 1) for x in quarter]
    t.add("the full network learns somewhat more quickly: mean % right over the first quarter of "
          "training, full minus focused", "Figure 4", None, round(q[1] - q[0], 1), claims.at_least(0.0),
          expected=EXPECT["verbs-full-quicker"][scale], interval=intervals.mean_difference(quarter[1], quarter[0]),
          note=f"focused {q[0]}, full {q[1]}; 95% interval: Welch, {len(quarter[0])} runs each")
    p = params_from_data(foc["params"])
    bigd = np.abs(p.d).max(axis=1)
    t.add("the decays of the focused network are small: largest |d_i| (median over runs)", "Figure 5",
          PAPER["figure5_largest_decay"], round(float(np.median(bigd)), 3), claims.at_most(0.2),
          expected=False, interval=intervals.median(bigd),
          note=f"ours start near 1 and fall to {bigd.min():.2f}–{bigd.max():.2f}; one unit's ends "
               f"near 0 (|d| < 0.05) in {int((np.abs(p.d).min(axis=1) < 0.05).sum())} of {len(bigd)} runs")
    spell = [it[1] for it in data["held_out"]]
    reading = _unit_reading(p, V.verb_task([tuple(it) for it in data["held_out"]], 3), spell)
    coded = {key: np.array(reading[key]) >= 0.95 for key in ("unvoiced", "dental")}
    t.add("one context unit codes 'final phoneme unvoiced' (held-out verbs, AUC ≥ 0.95; % of runs)",
          "Figure 5", None, round(100 * float(np.mean(coded["unvoiced"])), 1), claims.at_least(50.0),
          expected=EXPECT["verbs-unvoiced"][scale],
          interval=intervals.percent(coded["unvoiced"].sum(), coded["unvoiced"].size),
          note=intervals.share_note(coded["unvoiced"].sum(), coded["unvoiced"].size))
    t.add("the other codes 'final phoneme dental' (AUC ≥ 0.95; % of runs)", "Figure 5", None,
          round(100 * float(np.mean(coded["dental"])), 1), claims.at_least(50.0),
          expected=False, interval=intervals.percent(coded["dental"].sum(), coded["dental"].size),
          note="ours code dental jointly: /t/ sits with the unvoiced, /d/ apart from the voiced; "
               + intervals.share_note(coded["dental"].sum(), coded["dental"].size))
    data["reading"] = reading
    return Result(t, data)


def run_reversed(scale="book", seed=0, jobs=1, progress=None, trained=None, checkpoint=None) -> Result:
    """Reversed regular verbs (Figure 6): the focused net learns, the full net does not (paper
    scale: the sequential design of :data:`PLANS`; ``checkpoint``: resumable)."""
    cmu = V.load_cmudict()
    items = V.regular_verbs()
    scale = get_scale(scale)
    if trained is None:
        sz = _sizes("mozer-reversed", scale)
        conditions = {}
        for rev in (False, True):
            def train(a, b, rev=rev):
                return _condition(V.verb_task(items, 3, reverse=rev), "focused", 2, b, sz.epochs, RATES["verbs"],
                                  _rng(seed, "verbs", "focused"), progress, _verb_tests(cmu, rev), start=a)
            conditions[f"focused_{'reversed' if rev else 'forward'}"] = train

        def sweep(a, b):
            seqs, out = V.verb_task(items, 3, reverse=True), []
            for mu, rho in FULL_SWEEP:
                cfg = T.FocusedConfig(mu=mu, rho=rho)
                d = _condition(seqs, "full", 2, b, sz.epochs, cfg, _rng(seed, "verbs", "full"), progress,
                               _verb_tests(cmu, True), start=a)
                if (mu, rho) != (RATES["verbs"].mu, RATES["verbs"].rho):
                    d = {k: d[k] for k in ("config", "final", "test_held_out")}
                out.append(d)
            return out
        conditions["full_sweep"] = sweep
        with numba_threads(jobs):
            # every replication row is about the networks the design adds (the best single run
            # over the sweep has no interval): it waits for them all
            data = _run_conditions("mozer-reversed", scale, seed, sz, conditions, checkpoint,
                                   lambda d, level: _reversed_claims(d, scale, level, items))
    else:
        data = _need(trained, ["sizes", "focused_forward", "focused_reversed", "full_sweep"], "run_reversed")
    return Result(_reversed_claims(data, scale, sequential.level_of(data), items), data)


def _reversed_claims(data, scale: str, level: float, items) -> claims.ClaimsTable:
    """The claims of the reversed verbs from their data (``items``: the regular verbs), every
    interval at ``level``."""
    fwd, rev = data["focused_forward"], data["focused_reversed"]
    full = data["full_sweep"][0]
    t = claims.ClaimsTable(f"Reversed regular verbs (Figure 6): {data['sizes']['runs']} runs, "
                           f"{data['sizes']['epochs']} epochs")
    rev_learns = t.add("the focused network learns reversed verbs: final % right (mean)", "Figure 6", None,
                       round(float(np.mean(rev["final"])), 1), claims.at_least(90.0),
                       interval=intervals.mean(rev["final"], level), note=f"{intervals.level_name(level)} interval: t")
    e_f, e_r = (np.where(np.isnan(e), np.inf, e) for e in (_epochs_to(fwd["curve_epochs"], fwd["performance"], 90.0),
                                                          _epochs_to(rev["curve_epochs"], rev["performance"], 90.0)))
    med = [float(np.median(e)) for e in (e_f, e_r)]
    t.add("...but needs more epochs than unreversed: median epochs to 90%, reversed / unreversed",
          "text", None, round(med[1] / med[0], 2) if med[0] > 0 else float("inf"), claims.at_least(1.0),
          expected=EXPECT["reversed-slower"][scale], interval=intervals.ratio_of_medians(e_r, e_f, level),
          note=f"unreversed {med[0]:g}, reversed {med[1]:g}; {intervals.level_name(level)} interval: bootstrap, {e_f.size} runs each")
    gf, gr = float(np.mean(fwd["test_held_out"])), float(np.mean(rev["test_held_out"]))
    # two networks that learned nothing generalise equally (badly): "as good" says something only
    # once the reversed network has decidedly learned its verbs (issue 32)
    why = claims.control_gate(rev_learns)
    t.add("generalisation is as good for reversed as unreversed verbs: difference in % right (held out)",
          "text", None, round(gr - gf, 1), claims.between(-5.0, 5.0), expected=None if why else True,
          interval=intervals.mean_difference(rev["test_held_out"], fwd["test_held_out"], level), not_tested=why,
          note=f"unreversed {gf:.1f}, reversed {gr:.1f}; {intervals.level_name(level)} interval: Welch")
    # "Does not succeed" (at most 75%) is passed by a network that learns nothing; it says
    # something of the full network only when that network decidedly learned something (issue 32).
    constant = constant_answer_score(V.verb_task(items, 3, reverse=True))
    learned_some = t.add(
        f"the full network learns more than doing nothing: final % right (mean) at least a point above the "
        f"best constant answer ({constant:.1f}%)", "Figure 6", None, round(float(np.mean(full["final"])), 1),
        claims.at_least(constant + 1.0), expected=EXPECT["reversed-full-learns-some"][scale],
        interval=intervals.mean(full["final"], level, bounds=(0, 100)), do_nothing=constant,
        note="a network that gives every verb the same ending is right on the verbs of the commonest "
             f"ending, {constant:.1f}% (% right: the most active output is the right ending); "
             f"{intervals.level_name(level)} interval: t")
    why = claims.control_gate(learned_some)
    t.add("the full network does not succeed: final % right (mean)", "Figure 6", None,
          round(float(np.mean(full["final"])), 1), claims.at_most(75.0), interval=intervals.mean(full["final"], level),
          expected=None if why else EXPECT["reversed-full-fails"][scale], not_tested=why,
          note="the threshold is the paper's best single run, 75% (next row); it gives no mean; "
               f"{intervals.level_name(level)} interval: t")
    best = max(max(d["final"]) for d in data["full_sweep"])
    t.add(f"the full network's best single run over {len(data['full_sweep'])} learning-rate settings "
          "is at most 75%", "text", PAPER["reversed_full_best"], round(float(best), 1), claims.at_most(75.0),
          expected=False, note="some of our full runs get further, still far from the focused network")
    t.add("focused minus full on reversed verbs, final % right (means)", "Figure 6", None,
          round(float(np.mean(rev["final"]) - np.mean(full["final"])), 1), claims.at_least(15.0), do_nothing=0.0,
          interval=intervals.mean_difference(rev["final"], full["final"], level),
          note=f"{intervals.level_name(level)} interval: Welch")
    return t


# ----------------------------------------------------------------------------- sequence reproduction

def run_reproduce(scale="book", seed=0, jobs=1, progress=None, trained=None, checkpoint=None) -> Result:
    """Sequence reproduction (Table 3, Figure 7) with playback delays 1 and 4 (paper scale: the
    sequential design of :data:`PLANS`; ``checkpoint``: resumable)."""
    scale = get_scale(scale)
    if trained is None:
        sz = _sizes("mozer-reproduce", scale)
        conditions = {}
        for delay, cap in ((1, sz.epochs), (4, sz.epochs_delay4)):
            for arch in ("focused", "full"):
                def train(a, b, delay=delay, cap=cap, arch=arch):
                    return _condition(V.reproduction_task(delay), arch, 3, b, cap, RATES["reproduce"],
                                      _rng(seed, "reproduce", delay, arch), progress, start=a)
                conditions[f"{arch}_delay{delay}"] = train
        with numba_threads(jobs):
            # every replication row is about the networks the design adds (the rows on the paper's
            # first 15 runs have no interval, so they are never undecided): it waits for them all
            data = _run_conditions("mozer-reproduce", scale, seed, sz, conditions, checkpoint,
                                   lambda d, level: _reproduce_claims(d, scale, level))
    else:
        data = _need(trained, ["sizes", "focused_delay1", "full_delay1", "focused_delay4", "full_delay4"],
                     "run_reproduce")
    return Result(_reproduce_claims(data, scale, sequential.level_of(data)), data)


def _reproduce_claims(data, scale: str, level: float = intervals.LEVEL) -> claims.ClaimsTable:
    """The claims of sequence reproduction from its data, every interval at ``level``."""
    scale = get_scale(scale)
    t = claims.ClaimsTable(f"Sequence reproduction (Table 3): {data['sizes']['runs']} runs; delay 1 up to "
                           f"{data['sizes']['epochs']} epochs, delay 4 up to {data['sizes']['epochs_delay4']}")
    n = data["sizes"]["runs"]
    e = {a: np.array(data[f"{a}_delay1"]["epochs_to_criterion"]) for a in ("focused", "full")}
    for a in ("focused", "full"):
        add_all_learn(t, f"delay 1: the {a} runs learn the task perfectly (% of runs; the paper: all)",
                      int((e[a] >= 0).sum()), n, EXPECT["reproduce-delay1-learn"][a][scale], level=level)
    for a in ("focused", "full"):
        ok = e[a][e[a] >= 0]
        t.add(f"delay 1: mean epochs to perfect, {a} (runs that got there)", "text",
              PAPER["reproduce_delay1_epochs"][a], round(float(ok.mean()), 1) if ok.size else float("nan"),
              claims.relative(0.5), expected=False, interval=intervals.mean(ok, level) if ok.size else None,
              note=f"our rates learn this task 2-3 times more slowly; {intervals.level_name(level)} interval: t")
    _add_delay1_p(t, e, False, note="the focused net is reliably slower")
    final4 = {a: np.array(data[f"{a}_delay4"]["final"]) for a in ("focused", "full")}
    crit4 = {a: data[f"{a}_delay4"]["epochs_to_criterion"] for a in ("focused", "full")}
    _add_delay4_perfect(t, crit4, {"focused": EXPECT["reproduce-delay4-focused"][scale],
                                  "full": EXPECT["reproduce-delay4-full-some"][scale],
                                  "difference": EXPECT["reproduce-delay4-difference"][scale]},
                       {"focused": "fewer than the paper's, but far more than the full network's (next rows)"}, level)
    # The do-nothing baseline: zeros at every step score 70% at delay 4 (7 of 10 targets are
    # zero), so a mean-performance check that this baseline passes says nothing of learning.
    zero = T.zero_output_score(V.reproduction_task(4), RATES["reproduce"])
    for a in ("focused", "full"):
        check = claims.within(5.0)
        vacuous = check.holds(zero, PAPER["reproduce_delay4_mean"][a])
        t.add(f"delay 4: mean final performance, {a} (% of steps right)", "text",
              PAPER["reproduce_delay4_mean"][a], round(float(final4[a].mean()), 1), check,
              expected=None if vacuous else False, interval=intervals.mean(final4[a], level, bounds=(0, 100)),
              note=f"outputting zeros everywhere scores {zero:.1f}%; {intervals.level_name(level)} interval: t", do_nothing=zero,
              not_tested=f"outputting zeros everywhere ({zero:.1f}%) passes this check too" if vacuous else "")
    above_zeros = t.add(
          f"delay 4: the full network does better than outputting zeros ({zero:.1f}%): mean final "
          "performance minus that baseline (points)", "text",
          round(PAPER["reproduce_delay4_mean"]["full"] - zero, 1), round(float(final4["full"].mean() - zero), 1),
          claims.at_least(1.0), expected=EXPECT["reproduce-delay4-full-above-zeros"][scale],
          interval=intervals.mean(final4["full"] - zero, level),
          note=f"paper: 72.9 − {zero:.1f}, our subtraction (the paper does not define its percentage, "
               "so how its networks that did not learn would score by ours is unknown); ours: "
               f"{int(np.sum(final4['full'] <= zero))} of {final4['full'].size} runs end at or below the baseline; "
               f"{intervals.level_name(level)} interval: t",
          do_nothing=0.0)
    # focused > full says nothing of Mozer's comparison while the full network sits on the
    # do-nothing score: the row rests on that control (issue 32)
    why = claims.control_gate(above_zeros)
    _add_delay4_p(t, final4, True, why)
    return t


# ----------------------------------------------------------------------------- large verb set

def run_large_verbs(scale="book", seed=0, jobs=1, progress=None, trained=None, checkpoint=None) -> Result:
    """136 verbs in 13 categories (Table 4; Figures 8, 9): focused (25 units) vs full (16 units)
    (paper scale: the sequential design of :data:`PLANS`; ``checkpoint``: resumable)."""
    cmu = V.load_cmudict()
    corpus = V.large_verb_corpus(cmu)
    held = V.large_held_out(cmu)
    scale = get_scale(scale)
    if trained is None:
        sz = _sizes("mozer-large-verbs", scale)
        seqs = V.verb_task(corpus, 13)
        tests = {"held_out": V.verb_task(held, 13)}
        words = {"scale": scale, "corpus": [list(c) for c in corpus], "held_out": [list(h) for h in held]}
        conditions = {arch: (lambda a, b, arch=arch, n_ctx=n_ctx: _condition(
            seqs, arch, n_ctx, b, sz.epochs, RATES["large"], _rng(seed, "large", arch), progress, tests,
            start=a)) for arch, n_ctx in (("focused", 25), ("full", 16))}
        with numba_threads(jobs):
            data = _run_conditions("mozer-large-verbs", scale, seed, sz, conditions, checkpoint,
                                   lambda d, level: _large_verbs_claims({**d, **words}, scale, level))
        data = {**data, **words}
    else:
        data = _need(trained, ["sizes", "corpus", "held_out", "focused", "full"], "run_large_verbs")
    return Result(_large_verbs_claims(data, scale, sequential.level_of(data)), data)


def _large_verbs_claims(data, scale: str, level: float) -> claims.ClaimsTable:
    """The claims of the large verb set from its data, every interval at ``level``."""
    foc, full = data["focused"], data["full"]
    t = claims.ClaimsTable(f"Large verb set (Figure 8): 136 verbs, {data['sizes']['runs']} runs, "
                           f"{data['sizes']['epochs']} epochs")
    for a, d in (("focused", foc), ("full", full)):
        t.add(f"{a}: number of weights", "text", PAPER["large_weights"][a], d["connections"], claims.within(0),
              kind="computation")  # a count of the architecture's connections, true of any run
    learns = {}
    for a, d in (("focused", foc), ("full", full)):
        learns[a] = t.add(f"{a} network learns the task: final % right (mean)", "Figure 8", None,
                          round(float(np.mean(d["final"])), 1), claims.at_least(85.0),
                          interval=intervals.mean(d["final"], level), expected=EXPECT["large-learns"][a][scale])
    halves = [np.asarray(d["performance"])[:, : len(d["curve_epochs"]) // 2].mean(axis=1) for d in (foc, full)]
    half = [float(np.mean(x)) for x in halves]
    t.add("the full network learns somewhat more quickly: mean % right over the first half, full minus "
          "focused", "Figure 8", None, round(half[1] - half[0], 1), claims.at_least(0.0), expected=False,
          interval=intervals.mean_difference(halves[1], halves[0], level),
          note=f"focused {half[0]:.1f}, full {half[1]:.1f}; {intervals.level_name(level)} interval: Welch, "
               f"{len(halves[0])} runs each")
    for a, d in (("focused", foc), ("full", full)):
        # poor generalisation is what a network that learned nothing shows too: the row says
        # something only of a network that decidedly learned the task (issue 32)
        why = claims.control_gate(learns[a])
        g = float(np.mean(d["test_held_out"]))
        t.add(f"{a}: generalisation to held-out regular verbs is poor (% right, mean)", "Figure 8, far right",
              None, round(g, 1), claims.at_most(75.0), interval=intervals.mean(d["test_held_out"], level),
              expected=None if why else True, not_tested=why)
    held_seqs = V.verb_task([tuple(h) for h in data["held_out"]], 13)
    corpus_seqs = V.verb_task([tuple(c) for c in data["corpus"]], 13)
    irregular, answers = [], {}
    words = [c[0] for c in data["corpus"]]
    i_ring, i_bring = words.index("ring"), words.index("bring")
    for a, d in (("focused", foc), ("full", full)):
        p = params_from_data(d["params"])
        answers[a] = []
        for k in range(p.W_in.shape[0]):
            y, _ = F.forward(p.network(k), held_seqs)
            pred = y[held_seqs.offsets[1:] - 1].argmax(1)
            truth = np.array([h[2] for h in data["held_out"]])
            wrong = pred != truth
            if wrong.any():
                irregular.append(float(np.mean(pred[wrong] >= 3)))
            y, _ = F.forward(p.network(k), corpus_seqs)
            last = y[corpus_seqs.offsets[1:] - 1].argmax(1)
            answers[a].append(last[[i_ring, i_bring]])
    t.add("most generalisation errors take a regular verb for an irregular one (% of errors, mean)",
          "text", None, round(100 * float(np.mean(irregular)), 1) if irregular else float("nan"),
          claims.at_least(50.0), interval=intervals.mean(100 * np.array(irregular), level) if irregular else None,
          note=f"{intervals.level_name(level)} interval: t, over the {len(irregular)} networks that made errors")
    book = data.get("scale", "book") == "book"
    # One row per network: the two kinds differ widely (at paper scale 13% of focused networks,
    # 82% of full ones), so a share pooled over both would measure our one-to-one mix of them,
    # not what a typical network of either kind does (Figure 9 shows "the network").  A network
    # that learned nothing gets neither verb right, so each row rests on its "learns" row too.
    for a in ("focused", "full"):
        ring, bring = np.array(answers[a]).T
        both = int(np.sum((ring == 9) & (bring == 7)))
        wrong = bring[bring != 7] + 1
        usual = (f"; bring, when wrong, most often taken for category {np.bincount(wrong).argmax()}"
                 if wrong.size else "")
        why = claims.control_gate(learns[a])
        t.add(f"{a}: ring (category 10) and bring (category 8) are both classified right (% of "
              f"networks)", "Figure 9", None, round(100 * both / ring.size, 1), claims.at_least(50.0),
              expected=None if why else EXPECT["large-ring"][a][scale], not_tested=why,
              interval=intervals.percent(both, ring.size, level),
              note=f"ring right in {int(np.sum(ring == 9))} of {ring.size}, bring in "
                   f"{int(np.sum(bring == 7))}{usual}" + (" (book scale stops early)" if book else "")
                   + "; " + intervals.share_note(both, ring.size, "networks", level))
    return t


# ----------------------------------------------------------------------------- cost

def operation_counts(n_in: int, n_ctx: int, n_out: int, lengths) -> dict:
    """Floating-point operations (multiplies and adds; a logistic counts 4) of one batch
    gradient of a focused network (eq. 1) by the traces and by BPTT, one target per sequence.

    Per step both run the forward pass, ``2nm + 7n`` (n context units, m inputs; the bias
    is a weight).  The traces add s', α, β, γ: ``3n(m+1) + 6n``.  BPTT instead stores the
    step and, going back, forms ``δ s'``, the weight gradients and ``d δ``: ``2n(m+1) + 6n``.
    At the target both compute the outputs and their error, ``4on + 5o``; the traces then
    multiply the error into them once, ``2n(m+1) + 4n``.  Returns the totals and their ratio.
    """
    n, m, o = (count(k, v, 1, 10**6) for k, v in (("n_ctx", n_ctx), ("n_in", n_in), ("n_out", n_out)))
    lengths = checks.array("lengths", lengths, (None,), low=1.0, high=1e12)
    steps, seqs = lengths.sum(), lengths.size
    forward = (2 * n * m + 7 * n) * steps + (2 * o * n + 4 * o) * seqs
    traces = forward + (3 * n * (m + 1) + 6 * n) * steps + (2 * o * n + o + 2 * n * (m + 1) + 4 * n) * seqs
    bptt = forward + (2 * n * (m + 1) + 6 * n) * steps + (2 * o * n + o) * seqs
    return {"traces": int(traces), "bptt": int(bptt), "ratio": float(traces / bptt)}


# ----------------------------------------------------------------------------- exercises

def _gamma_reference(d, T):
    g, out = 0.0, []
    for _ in range(T):
        g = 1.0 + d * g
        out.append(g)
    return np.array(out)


def check_gamma(fn) -> None:
    """Exercise: ``fn(d, T)`` returns γ(1..T) for a focused unit with decay ``d`` (eq. 1)."""
    check_function("gamma trace", fn, _gamma_reference, [(0.9, 5), (1.0, 4), (0.0, 3), (1.1, 6)],
                   hint="γ(t) = ∂c(t)/∂z = 1 + d γ(t−1) with γ(0) = 0, so γ(t) = Σ_{k<t} d^k")


def _alpha_closed(d, s):
    s = np.asarray(s, float)
    T = len(s)
    return float(sum((T - tau) * d ** (T - tau - 1) * s[tau - 1] for tau in range(1, T)))


def check_alpha_closed_form(fn) -> None:
    """Exercise: ``fn(d, s)`` returns α(T) = ∂c(T)/∂d from the squashed inputs ``s`` = s[net(1..T)]."""
    check_function("alpha from A.4", fn, _alpha_closed, [(0.9, [0.2, 0.5, 0.1]), (1.2, [1.0, -0.3, 0.4, 0.6]),
                                                         (0.5, [0.7])],
                   hint="A.4: α(t) = Σ_{τ=1}^{t−1} (t−τ) d^{t−τ−1} s[net(τ)]")


def check_rtrl_memory(answer) -> None:
    """Exercise: the number of sensitivities RTRL keeps for a fully recurrent net with 25
    units, 8 inputs and biases, against the focused net's traces (β, α, γ) for 25 units."""
    n, m = 25, 8
    rtrl = n * (n * (n + m + 1))          # p^k_ij for every unit k and every weight w_ij
    focused = n * (m + 1) + 2 * n          # β_ji (with the bias) + α_i + γ_i
    check_value("RTRL / focused trace count", answer, rtrl / focused,
                hint="RTRL: one sensitivity per (unit, weight) pair, n·n(n+m+1); focused: n(m+1) + 2n")
