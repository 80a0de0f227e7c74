r"""Experiments of Schmidhuber (1991), *Learning temporary variable binding with dynamic
links* (``papers/001``), as runners for ``python -m tempnets reproduce`` and for the
chapter ``book/fast_weights``.

==============================  ===================================================
runner                          paper
==============================  ===================================================
:func:`run_flipflop`            §3 experiment 1: the flip-flop, interfaces (4), (5)
:func:`run_parking`             §3 experiment 2: car parking, WHERE-IS-MY-CAR?
:func:`run_linear_attention`    the modern link (Schlag, Irie & Schmidhuber 2021)
==============================  ===================================================

The paper reports one run per setting ("the system learned to solve the task
within N time steps").  We run many seeds on independent streams and report the
distribution of the *steps to solution*: the time step ``t`` at which the
criterion is first met, i.e. the last of the first 100 scored steps in a row
with ``E(t) = ½ Σ_b (d_b - y_b)² <= 0.05`` (the paper's "error", read as its
E(t); :func:`tempnets.models.fast_weights.solved_at`).  We also report the stricter
reading ``max_b |d_b - y_b| <= 0.05``.  A run that never meets the criterion
within the cap counts as a failure; medians and percentiles count failures as
"more than the cap" (``cap + 1``).  Because a network with part of the solution
can meet a 100-step criterion by luck, every final network is also tested,
frozen, on a fresh stream (:func:`test_stream`), and a 1000-step window is
reported beside the paper's (:data:`LONG_RUN`).

Car parking scores F only on some steps (a question on a business step), so the paper's "for
100 time steps in a row F's error did not exceed 0.05" has two readings.  Ours counts 100
*scored* steps in a row; the other steps neither extend nor break the run.  The *literal*
reading counts every time step, and a step without a scored question (error 0) extends the
run; it is reported beside ours, with the share of questions the network of that step
answers right (:func:`train_fast_weights` with ``literal=True``).  On the flip-flop every
step is scored and the two readings coincide.

How many runs: at book scale a fixed number (:data:`SIZES`); at paper scale a sequential design
(:data:`PLANS`, :mod:`tempnets.book.sequential`): runs are added in groups until every claim of the
experiment is decided or the plan's cap is reached, every interval at ``1 - 0.05 / K`` for ``K``
planned looks, and the record's ``data["design"]`` states the rule, ``n`` and why it stopped (at
book scale: a fixed design, one look at 95%).
Run ``k`` of a seed is the same network on the same stream whatever the design.

Every value estimated from runs carries its 95% interval (:mod:`tempnets.book.intervals`): a
share or count of runs by Wilson's, a difference of two shares by Newcombe's, a median
of steps to solution by order statistics (a run that never solved counts as ``inf``), a
ratio of medians by the bootstrap.  A claim about a set of runs that is empty (no run met
the criterion, say), or against a control that fails too, is *not tested* in that run: it is
shown as "not tested: <why>", with no value where there is none, and never asserted.

The conventional baseline is a fully recurrent network trained on-line by RTRL
(:mod:`tempnets.models.rtrl`) on the same streams, at the best of a few learning rates
(chosen on the same seeds, which favours the baseline).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from itertools import zip_longest

import numpy as np

from .._numerics import checks
from ..book import claims, intervals, sequential
from ..models import fast_weights as fw, rtrl
from ..tasks import streams
from .._numerics.checks import count
from ..book.experiments import Piece, Result, executor, run_pieces
from ..training.progress import progress_bar
from ..book.scale import get_scale
from ..book.selfcheck import check_function, check_value
from ..training.srn_trainers import DivergenceError

__all__ = ["PAPER", "SIZES", "EXPECT", "VARIANTS", "Sizes", "make_stream", "make_net",
           "test_stream", "train_fast_weights", "summary", "format_summary",
           "run_flipflop", "best_baseline", "learned_flipflop_solution", "learned_binding",
           "run_parking", "PLANS", "run_linear_attention", "system_diagram",
           "latch_figure", "steps_histogram", "explorer", "check_sigma", "latch_fixed_points",
           "check_latch_fixed_point", "check_p_step_from_to", "check_linear_attention"]

PAPER = {
    "T": 10.0, "init_range": 0.1, "run": 100, "threshold": 0.05,
    "flipflop": {"per-weight": {"learning_rate": 1.0, "bound": 300},
                 "from-to": {"learning_rate": 0.5, "bound": 800}},
    "parking": {"per-weight": {"learning_rate": 0.02, "bound": 6000}},
}
"""The paper's settings and results (§3): T, S's initial weight range, the "solved"
criterion (100 steps in a row, error <= 0.05), learning rates and "within N steps"."""

BASELINE = {"flipflop": {"n_units": 3, "rates": (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)},
            "parking": {"n_units": 5, "rates": (0.1, 0.5, 1.0)}}
"""RTRL baseline: units (the first 1 or 3 are outputs) and the learning rates tried.  Each grid
has its best rate inside it, not on an edge (flip-flop, 200 runs: median steps to solution 986
at rate 4, 928 at 8, 1808 at 16; car parking: most runs solved at 0.5).  A rate added at the end
of a grid leaves the streams and initial weights of the others unchanged."""


@dataclass(frozen=True)
class Sizes:
    """How many independent runs (seeds) and how many steps each may take."""

    n_seeds: int
    cap: int
    n_curves: int = 8  # runs whose error curve is kept for the figures


SIZES = {
    "fw-flipflop": {"book": Sizes(200, 20_000), "paper": Sizes(500, 20_000)},
    "fw-parking": {"book": Sizes(40, 50_000), "paper": Sizes(100, 50_000)},
    "fw-parking-variants": {"book": Sizes(10, 50_000), "paper": Sizes(50, 50_000)},
    "fw-linear-attention": {"book": Sizes(40, 5_000), "paper": Sizes(200, 20_000)},
}
"""Runs and the cap on steps per run.  At paper scale only the cap and ``n_curves`` are used: how
many runs comes from the sequential design of :data:`PLANS` (the record's ``sizes`` give the
runs it took; car parking's variants are as many as its runs)."""

PLANS = {"fw-flipflop": sequential.Plan(300, 300, 900),
         "fw-parking": sequential.Plan(200, 100, 400),
         "fw-linear-attention": sequential.Plan(200, 200, 1000)}
"""Paper scale: the sequential design of each experiment (:mod:`tempnets.book.sequential`; each
"run" is one stream with every condition trained on it, and for car parking one run of each
variant too).  Chosen from the fixed-``n`` records before them (flip-flop: 500 runs decided
every claim but "every run", whose test was then redesigned, and "at least 98% of runs" can
hold at the 98.3% of 3 looks only from about 290 runs on; linear attention: 0 of 200
additive runs solved, and "at most 1% of runs" needs about 660 runs at the 99% of 5 looks;
car parking: a design capped at 150 runs stopped there with 50 solved, too few for the share
">= 95% of runs that meet the criterion" to be decided at all; at the 98.3% of 3 looks it
needs about 110 solved runs, about 330 runs at a third solving, so the cap is 400 runs,
about half an hour on this machine).  Book scale: the fixed ``n`` of :data:`SIZES`."""

EVERY, NONE, SOME = 98.0, 1.0, 10.0
"""How "every run", "no run" and "some runs" are tested (issue 32: a claim must be able to
come out either way; "every run" can be refuted by runs but never established, at any ``n``):
as shares of runs with a stated threshold, in %: at least 98% of runs, at most 1%, at least 10%."""

EXPECT = {"flipflop-within-300": {"book": None, "paper": True},
          "parking-binds": {"book": None, "paper": True},
          "flipflop-long-vs-rtrl": {"book": True, "paper": True},
          "parking-vs-rtrl": {"book": None, "paper": None},
          "parking-perfect": {"book": None, "paper": None},
          "additive-none": {"book": None, "paper": True},
          "flipflop-every": {"book": False, "paper": False},
          "parking-some": {"book": True, "paper": True}}
"""What the chapter states per scale about claims whose outcome could differ between scales
(``None``: inconclusive at that scale, shown and not asserted).

* ``flipflop-within-300``: at book scale (200 runs) the order-statistic interval of the
  median is [214, 300], its upper end on the bound; over ten seeds it holds in 2 and is
  inconclusive in 8.  The paper-scale record (500 runs) gives [215, 246].
* ``parking-perfect``: a share of runs >= 95% needs at least 73 runs, all right, for its
  Wilson interval to clear 95% (109 at the 98.3% of the paper-scale design); book scale has
  about 16 solved runs, too few; the paper-scale design, 400 runs, has 127, of which 120 pass
  (94.5%, [87.5, 97.7]): decidable, and inconclusive at its cap.
* ``parking-binds``: at book scale all 16 solved runs bind, and 16 of 16 is just enough for
  the interval to clear 80% (15 of 15 is not); how many runs solve car parking changes with
  the last bit of the arithmetic (16 unperturbed, 18 with ``--perturb 1e-12``); over ten
  seeds it holds in 2 and is inconclusive in 8.
* ``parking-vs-rtrl``: the difference in runs solved is 16 - 15 of 40 at book scale, whose
  Newcombe interval reaches below 0.  An earlier fixed record of 100 runs had 40 - 23, [4.1,
  29.1]; the paper-scale sequential design, 400 runs, has 127 - 109, whose interval at 98.3%
  reaches below 0 again: not decided at its cap.
* ``additive-none``: "no run solves it" can be refuted by runs, never established: 0 of n
  has a Wilson interval reaching above 0 runs at any n.  Tested as "at most 1% of runs"
  (:data:`NONE`), which 0 of 200 cannot decide (Wilson reaches 1.9%).
* ``flipflop-every``: "every run solves it", tested as "at least 98% of runs" (:data:`EVERY`):
  the 500-run record before the sequential design had 468 solved (93.6%, [91.2, 95.4]); at
  book scale seeds 0-9 leave 12 to 27 of 200 runs unsolved, every one an interval below 98%.
* ``parking-some``: "some runs solve it", tested as "at least 10% of runs" (:data:`SOME`): it
  holds in all ten book-scale seeds (robustness record) and at paper scale.
"""




def _steps(solved) -> np.ndarray:
    """Steps to solution with a run that never solved as ``inf`` (for :func:`intervals.median`)."""
    s = np.asarray(solved, dtype=float)
    return np.where(s > 0, s, np.inf)


def _unless(why: str, stated):
    """The stated verdict of a claim that may be not tested: ``None`` (never asserted) when
    ``why`` is set, since whether any run solves is known only after the runs."""
    return None if why else stated


def _share_of(k: int, n: int, stated, why: str, check, level: float = intervals.LEVEL) -> dict:
    """The keywords ``ours`` (percent), ``check``, ``interval``, ``expected`` and ``not_tested``
    of :meth:`~tempnets.book.claims.ClaimsTable.add` for a claim on ``k`` of ``n`` runs: with no runs
    (``n = 0``) the claim is not tested (``why``), has no value and is never asserted; with too
    few runs for ``check`` to come out either way (:func:`tempnets.book.claims.design_check`) it is
    shown, not asserted, since how many runs it is about is known only after the runs."""
    if n:
        interval = intervals.percent(k, n, level)
        decidable = not claims.design_check(check, None, interval.design)
        return {"ours": round(100 * k / n, 1), "check": check, "interval": interval,
                "expected": stated if decidable else None}
    return {"ours": None, "check": check, "interval": None, "expected": None, "not_tested": why}


def _median_note(solved, level: float = intervals.LEVEL) -> str:
    return f"{intervals.level_name(level)} interval: order statistics, {len(solved)} runs, unsolved runs counted as never"

TASK_ID = {"flipflop": 1, "parking": 2}


def _sub(seed: int, *keys: int) -> int:
    """An integer seed derived from ``seed`` and ``keys`` (independent streams per part)."""
    return int(np.random.SeedSequence([int(seed), *map(int, keys)]).generate_state(1)[0])


def _check_task(task) -> str:
    if not isinstance(task, str) or task not in TASK_ID:
        raise ValueError(f"unknown task {task!r}; allowed: 'flipflop', 'parking'")
    return task


def make_stream(task: str, seed: int, k: int, n_steps: int) -> streams.Stream:
    """Stream ``k`` of ``seed`` for ``task`` (shared by every condition and the baseline)."""
    _check_task(task)
    count("seed", seed), count("k", k), count("n_steps", n_steps, 1)
    if task == "flipflop":
        return streams.random_flipflop(n_steps, _sub(seed, TASK_ID[task], k))
    if task == "parking":
        return streams.random_parking(n_steps, _sub(seed, TASK_ID[task], k))
    raise ValueError(f"unknown task {task!r}; allowed: 'flipflop', 'parking'")


def make_net(task: str, interface: str = "per-weight", squash: str = "logistic",
             T: float = PAPER["T"]) -> fw.FastWeightNet:
    """The paper's S/F sizes: flip-flop S 3 in, F 3 in 1 out; parking S 6 in, F 1 in 3 out."""
    sizes = {"flipflop": (3, 3, 1), "parking": (6, 1, 3)}[_check_task(task)]
    return fw.FastWeightNet(*sizes, interface=interface, T=T, squash=squash)


def _curve(E, mask, block: int) -> list:
    """Mean E over the scored steps of each block of ``block`` steps (NaN-free: 0 if none)."""
    n = E.size // block * block
    e = (E[:n] * mask[:n]).reshape(-1, block).sum(1)
    m = mask[:n].reshape(-1, block).sum(1)
    return np.round(np.where(m > 0, e / np.maximum(m, 1), 0.0), 5).tolist()


LONG_RUN = 1000
"""A stricter window: E(t) <= 0.05 for 1000 scored steps in a row.  A network that has only
part of the solution (e.g. a flip-flop whose C also resets) fails about one step in twelve and
passes 100 steps in a row by luck now and then, but practically never 1000."""

TEST_STEPS = {"flipflop": 5000, "parking": 20_000}


def test_stream(task: str, seed: int) -> streams.Stream:
    """The fresh stream every final network of a runner is tested on, frozen."""
    count("seed", seed)
    return make_stream(task, _sub(seed, 99), 0, TEST_STEPS[_check_task(task)])


def _perfect(E, mask) -> bool:
    return bool(np.all(E[mask == 1] <= PAPER["threshold"]))


def _share_right(E, mask) -> float:
    """The share of scored steps with E(t) <= 0.05 (questions answered right)."""
    return round(float(np.mean(E[mask == 1] <= PAPER["threshold"])), 4)


def train_fast_weights(stream, net, learning_rate, rng, block=100, keep_curve=False,
                       keep_U=True, test=None, literal=False) -> dict:
    """Train one S/F system on all of one stream: the steps to solution (paper's criterion,
    strict reading, 1000 in a row) and whether the final network is perfect on ``test``.

    With ``literal=True`` (car parking, whose stream has unscored steps) also the *literal
    reading* of "100 time steps in a row": every time step counts, and a step without a scored
    question has error 0 (see the module docstring).  ``"literal"`` is the step at which it is first
    met; ``"literal_right"`` the share of ``test``'s questions that the network of that very
    step answers right (the run is trained again up to that step: training is causal, so this
    is the network it had then)."""
    _check_streams(stream, test)
    checks.instance("net", net, fw.FastWeightNet, "a fast_weights.FastWeightNet (from make_net)")
    count("block", block, 1), checks.flag("keep_curve", keep_curve), checks.flag("keep_U", keep_U)
    checks.flag("literal", literal)
    U0 = fw.init_slow_weights(net, PAPER["init_range"], rng=rng)
    try:
        r = fw.train_online(net, U0, stream.xs, stream.xf, stream.d, stream.mask,
                            learning_rate=learning_rate)
    except DivergenceError:
        out = {"solved": -1, "strict": -1, "solved_1000": -1, "perfect": False, "diverged": True,
               "U": None, "curve": None}
        return dict(out, literal=-1, literal_right=None) if literal else out
    out = {"solved": fw.solved_at(r.E, stream.mask, PAPER["threshold"], PAPER["run"]),
           "strict": fw.solved_at(r.err, stream.mask, PAPER["threshold"], PAPER["run"]),
           "solved_1000": fw.solved_at(r.E, stream.mask, PAPER["threshold"], LONG_RUN),
           "perfect": None, "diverged": False,
           "U": np.round(r.U, 4).tolist() if keep_U else None, "curve": None}
    if test is not None:
        out["perfect"] = _perfect(fw.run(net, r.U, test.xs, test.xf, test.d, test.mask)["E"], test.mask)
    if literal:
        # E(t) is 0 on unscored steps, so with no mask every time step counts
        out["literal"] = fw.solved_at(r.E, None, PAPER["threshold"], PAPER["run"])
        out["literal_right"] = None
        if out["literal"] > 0 and test is not None:
            upto = stream.slice(0, out["literal"])
            then = fw.train_online(net, U0, upto.xs, upto.xf, upto.d, upto.mask,
                                   learning_rate=learning_rate).U
            out["literal_right"] = _share_right(fw.run(net, then, test.xs, test.xf, test.d,
                                                       test.mask)["E"], test.mask)
    if keep_curve:
        out["curve"] = _curve(r.E, stream.mask, block)
    return out


def _check_streams(stream, test) -> None:
    """A training stream and an optional test stream (``None``), each a :class:`streams.Stream`."""
    checks.instance("stream", stream, streams.Stream, "a streams.Stream (from make_stream)")
    if test is not None:
        checks.instance("test", test, streams.Stream, "None or a streams.Stream (from test_stream)")


def _train_baseline(stream, task, learning_rate, rng, test=None) -> dict:
    """Train the RTRL network on one stream (it sees S's and F's inputs); as above."""
    def inputs(st):
        return st.xs if task == "flipflop" else np.hstack([st.xs, st.xf])
    x = inputs(stream)
    net = rtrl.RecurrentNet(x.shape[1], BASELINE[task]["n_units"], stream.d.shape[1])
    W0 = rtrl.init_weights(net, PAPER["init_range"], rng=rng)
    try:
        r = rtrl.train_online(net, W0, x, stream.d, stream.mask, learning_rate=learning_rate)
    except DivergenceError:
        return {"solved": -1, "solved_1000": -1, "perfect": False, "diverged": True}
    out = {"solved": fw.solved_at(r.E, stream.mask, PAPER["threshold"], PAPER["run"]),
           "solved_1000": fw.solved_at(r.E, stream.mask, PAPER["threshold"], LONG_RUN),
           "perfect": None, "diverged": False}
    if test is not None:  # frozen (rate 0), from rest
        frozen = rtrl.train_online(net, r.W, inputs(test), test.d, test.mask, learning_rate=0.0)
        out["perfect"] = _perfect(frozen.E, test.mask)
    return out


CHUNK = 50
"""Runs per piece (:func:`tempnets.book.experiments.run_pieces`): each piece is saved in the run's
checkpoint as it finishes, so an interrupted run loses at most one piece's work."""


def _chunk(what: str, seed: int, cap: int, n_curves: int, start: int, stop: int,
           checkpoint=None, progress=None) -> list:
    """Runs ``start .. stop - 1`` of ``what`` (a key of :data:`_RUNS`), one piece of a run."""
    one = _RUNS[what]
    with progress_bar(stop - start, desc=f"{what} runs {start}-{stop - 1}", progress=progress,
                      unit="runs") as bar:
        out = []
        for k in range(start, stop):
            out.append(one(seed, cap, n_curves, k))
            bar.update(1)
    return out


def _runs(what: str, seed: int, sz: "Sizes", start: int, stop: int, jobs, progress,
          checkpoint) -> list:
    """Runs ``start .. stop - 1`` of ``what`` (one result per run, in order), in pieces of
    :data:`CHUNK` runs on ``jobs`` cores, each piece kept in ``checkpoint`` (if any)."""
    pieces = [Piece(f"{what}-{a}-{min(a + CHUNK, stop)}",
                    {"what": what, "seed": seed, "cap": sz.cap, "n_curves": sz.n_curves,
                     "runs": [a, min(a + CHUNK, stop)]},
                    _chunk, (what, seed, sz.cap, sz.n_curves, a, min(a + CHUNK, stop)))
              for a in range(start, stop, CHUNK)]
    return [r for chunk in run_pieces(pieces, jobs, progress, checkpoint, what="pieces") for r in chunk]


def _collect(results, names) -> dict:
    return {name: {key: [r[name][key] for r in results] for key in results[0][name]}
            for name in names}


def summary(solved, cap: int) -> dict:
    """Median, 90th percentile (failures counted as ``cap + 1``), failures, runs."""
    count("cap", cap, 1, 10**15)
    s = checks.array("solved", solved, (None,), finite=False)  # steps to solution, -1 if never
    if not s.size:
        raise ValueError("solved must hold the steps to solution of at least one run, got none")
    s = np.where(s > 0, s, cap + 1)
    return {"median": float(np.median(s)), "p90": float(np.percentile(s, 90)),
            "failures": int(np.sum(s > cap)), "runs": int(s.size),
            "share_within": lambda bound: float(np.mean(s <= bound))}


def format_summary(sm, cap) -> str:
    """One line: median, 90th percentile and failures of a :func:`summary`."""
    count("cap", cap, 1, 10**15)
    checks.instance("sm", sm, dict, "a dict from summary()")
    missing = [k for k in ("median", "p90", "failures", "runs") if k not in sm]
    if missing:
        raise ValueError(f"sm must be a summary() of steps to solution; it lacks {', '.join(missing)}")
    checks.real("median", sm["median"]), checks.real("p90", sm["p90"])
    count("failures", sm["failures"]), count("runs", sm["runs"])
    def f(v):
        return f"> {cap:,}" if v > cap else f"{v:,.0f}"
    return f"median {f(sm['median'])}, 90th pct {f(sm['p90'])}, {sm['failures']} of {sm['runs']} unsolved by {cap:,}"


def _check_trained(trained, exp_id, scale, seed, keys):
    data = trained.data if isinstance(trained, Result) else trained
    if not isinstance(data, dict):
        raise TypeError(f"trained= must be a Result or its data dict, got {type(trained).__name__}")
    if data.get("experiment") != exp_id or data.get("scale") != get_scale(scale) \
            or data.get("seed") != seed:
        raise ValueError(f"trained= must be the data of {exp_id} at scale {get_scale(scale)!r}, seed "
                         f"{seed}; got {data.get('experiment')!r}, {data.get('scale')!r}, seed "
                         f"{data.get('seed')!r}")
    missing = [k for k in keys if k not in data]
    if missing:
        raise ValueError(f"trained= data of {exp_id} lacks {', '.join(missing)}")
    return data


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


_RUNS = {"flipflop": _flipflop_run, "parking": _parking_run, "variants": _variant_run}


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


# ----------------------------------------------------------------------------- linear attention
def _equivalence_errors(seed: int = 0, n: int = 50) -> dict:
    """Largest differences: attention vs additive memory, and the 1991 system vs attention."""
    g = np.random.default_rng(_sub(seed, 50))
    q, k, v = g.normal(size=(n, 6)), g.normal(size=(n, 6)), g.normal(size=(n, 4))
    att = fw.linear_attention(q, k, v)
    mem = fw.additive_memory(q, k, v)
    net = fw.FastWeightNet(5, 6, 4, interface="from-to", squash="none")
    U = g.normal(size=net.shape_U) / 2
    xs = g.normal(size=(n, 5))
    s = xs @ U.T
    y = fw.run(net, U, xs, q)["y"]
    att91 = fw.linear_attention(q, s[:, :6], s[:, 6:], include_current=False)
    rel = lambda a, b: float(np.max(np.abs(a - b)) / max(1.0, np.max(np.abs(b))))  # noqa: E731
    return {"attention_vs_memory": rel(mem, att), "fw1991_vs_attention": rel(y, att91)}


ADDITIVE_RATES = (1.0, 0.1, 0.01)
"""Learning rates tried for the additive write (the squashed write of eq. 7 at eta = 1)."""


def _additive_run(seed: int, cap: int, n_curves: int, k: int) -> dict:
    """Flip-flop run ``k`` with the squash of eq. 7 and with the additive write at every rate."""
    st = make_stream("flipflop", seed, k, cap)
    out = {}
    for name, squash, lr in [("eq. 7", "logistic", 1.0)] + [(f"additive {r:g}", "none", r)
                                                             for r in ADDITIVE_RATES]:
        r = train_fast_weights(st, make_net("flipflop", squash=squash), lr, _sub(seed, 10, k))
        out[name] = {"solved": r["solved"], "diverged": r["diverged"]}
    return out


_RUNS["additive"] = _additive_run


def run_linear_attention(scale="book", seed=0, jobs=1, progress=None, trained=None,
                         checkpoint=None) -> Result:
    """The modern link, then one consequence of the squash: additive writes cannot latch
    (paper scale: the sequential design of :data:`PLANS`; ``checkpoint``: resumable)."""
    scale = get_scale(scale)
    sz = SIZES["fw-linear-attention"][scale]
    names = ["eq. 7"] + [f"additive {lr:g}" for lr in ADDITIVE_RATES]
    if trained is None:
        jobs = executor(jobs)  # cores of this machine, or a cluster's (--cluster)
        errors = _equivalence_errors(seed)

        def data_of(res, design=None):
            return {"experiment": "fw-linear-attention", "scale": scale, "seed": seed,
                    "sizes": asdict(replace(sz, n_seeds=len(res))), "errors": errors,
                    "runs": _collect(res, names), **({"design": design} if design else {})}

        res, design = sequential.run(
            sequential.plan_for(scale, sz.n_seeds, PLANS["fw-linear-attention"]),
            lambda a, b: _runs("additive", seed, sz, a, b, jobs, progress, checkpoint),
            lambda res, level: _linear_attention_claims(data_of(res), scale, level), what="runs")
        data = data_of(res, design)
    else:
        data = _check_trained(trained, "fw-linear-attention", scale, seed, ["runs", "sizes", "errors"])
    return Result(_linear_attention_claims(data, scale, sequential.level_of(data)), data)


def _linear_attention_claims(data, scale, level: float = intervals.LEVEL) -> claims.ClaimsTable:
    """The claims of the modern link from its data, every interval at ``level``."""
    sz = Sizes(**data["sizes"])
    t = claims.ClaimsTable(f"The modern link ({sz.n_seeds} flip-flop runs, cap {sz.cap:,})")
    e = data["errors"]
    t.add("causal unnormalised linear attention == an additive outer-product fast-weight memory",
          "Schlag et al. 2021", None, e["attention_vs_memory"], claims.at_most(1e-12),
          note="largest difference relative to the largest output", kind="computation")
    t.add("the 1991 system with (5) and an additive write == linear attention (keys = FROM, "
          "values = TO, query = F's input, read before write)", "§2, eq. 5", None,
          e["fw1991_vs_attention"], claims.at_most(1e-12), kind="computation")
    runs = data["runs"]
    solved7 = sum(s > 0 for s in runs["eq. 7"]["solved"])
    n = len(runs["eq. 7"]["solved"])
    t.add("with the squash of eq. 7 (interface (4), eta = 1) most runs solve the flip-flop",
          "§3, exp. 1", None, round(100 * solved7 / n, 1), claims.at_least(60.0),
          interval=intervals.percent(solved7, n, level), note=intervals.share_note(solved7, n, level=level))
    add = {name: v for name, v in runs.items() if name.startswith("additive")}
    best = max(sum(s > 0 for s in v["solved"]) for v in add.values())
    div = {name: int(sum(v["diverged"])) for name, v in add.items()}
    # additive writes failing says nothing when the squashed control (eq. 7) fails too
    why = "" if solved7 else "the squash of eq. 7, the control, solves no run either"
    # "no run" can be refuted by runs, never established (0 of n has a Wilson interval above 0
    # at any n; issue 32): tested as a share of runs with a stated threshold.  At the best rate:
    # its interval below the threshold puts every rate's below it too (the same runs)
    t.add(f"with the additive write (linear attention's sum rule) practically no run solves it: "
          f"at most {NONE:g}% of runs at the best rate tried (our test of 'no run', which no "
          "number of runs could establish)", "consequence of (i)", None, round(100 * best / n, 1),
          claims.at_most(NONE), expected=_unless(why, EXPECT["additive-none"][scale]),
          interval=intervals.percent(best, n, level), not_tested=why,
          note="rates " + ", ".join(n_.split()[1] for n_ in add) + "; diverged: "
               + ", ".join(f"{n_.split()[1]}: {d}" for n_, d in div.items())
               + f"; runs solved at the best rate: {best}; {intervals.share_note(best, n, level=level)} (Exercise 8 "
               "proves that an additive write cannot latch)")
    return t


# ----------------------------------------------------------------------------- figures
def system_diagram(ax=None, interface: str = "per-weight"):
    """S (slow, feed-forward) writes F's weights (fast, feed-forward): the flip-flop system.

    Red: F's fast weights.  Blue: S's outputs, with a dashed arrow from each to the fast
    weight(s) it writes (one per weight for (4); for (5) a FROM unit writes every weight
    leaving its F unit and the TO unit every weight entering y)."""
    import matplotlib.pyplot as plt

    checks.axes("ax", ax), checks.one_of("interface", interface, fw.INTERFACES)
    ax = ax or plt.subplots(figsize=(7, 3.6))[1]
    ax.set_axis_off()
    ev = "ABC"
    s_in = [(0.0, 0.8 - 0.3 * i) for i in range(3)]
    n_out = 3 if interface == "per-weight" else 4
    s_out = [(1.2, 0.95 - 0.3 * i) for i in range(n_out)]
    f_in = [(2.6, 0.8 - 0.3 * i) for i in range(3)]
    f_out = (3.8, 0.5)
    for (x, y), c in zip(s_in, ev):
        ax.text(x - 0.12, y, c, ha="right", va="center")
        for o in s_out:
            ax.plot([x, o[0]], [y, o[1]], color="0.6", lw=0.8, zorder=1)
    for i, (x, y) in enumerate(f_in):
        ax.text(x - 0.12, y, ev[i], ha="right", va="center")
        ax.plot([x, f_out[0]], [y, f_out[1]], color="tab:red", lw=2.0, zorder=1)

    def on_weight(a, frac):  # a point on the fast weight from F's input a to y
        return (f_in[a][0] + frac * (f_out[0] - f_in[a][0]), f_in[a][1] + frac * (f_out[1] - f_in[a][1]))

    arrow = dict(arrowstyle="->", ls="--", color="tab:blue", lw=0.9, shrinkA=8, shrinkB=2)
    for i, o in enumerate(s_out):
        if interface == "per-weight":  # s_ab writes w_ab
            targets, label = [on_weight(i, 0.5)], f"$s_{{{ev[i]}}}$"
        elif i < 3:                    # FROM unit a writes every weight leaving F's input a
            targets, label = [on_weight(i, 0.35)], f"FROM {ev[i]}"
        else:                          # TO unit y writes every weight entering y
            targets, label = [on_weight(a, 0.8) for a in range(3)], "TO y"
        bend = dict(connectionstyle="arc3,rad=0.3") if label == "TO y" else {}  # pass below F's inputs
        for tgt in targets:
            ax.annotate("", tgt, o, arrowprops={**arrow, **bend}, zorder=2)
        ax.text(o[0], o[1] + 0.08, label, fontsize=8, color="tab:blue", ha="center", va="bottom")
    for pts, col in ((s_in, "0.3"), (s_out, "tab:blue"), (f_in, "0.3"), ([f_out], "tab:red")):
        ax.scatter(*zip(*pts), s=160, color="white", edgecolor=col, zorder=3, lw=1.5)
    ax.text(f_out[0] + 0.15, f_out[1], "y", va="center")
    top = 1.22
    ax.text(0.6, top, "slow net S\n(weights U, learned)", ha="center", va="bottom", fontsize=9)
    ax.text(3.2, top, "fast net F\n(weights W(t), written by S)", ha="center", va="bottom", fontsize=9)
    if interface == "from-to":
        ax.text(2.0, -0.3, "\u25a1w_ab(t) = s_a(t) s_b(t) (eq. 5): outer product of FROM and TO",
                ha="center", fontsize=9, color="tab:blue")
    else:
        ax.text(2.0, -0.3, "\u25a1w_ab(t) = s_ab(t) (eq. 4): one S output per fast weight",
                ha="center", fontsize=9, color="tab:blue")
    ax.set_xlim(-0.4, 4.2)
    ax.set_ylim(-0.4, 1.65)
    return ax


def latch_figure(U, events: str, interface: str = "per-weight", axes=None):
    """Fast weights, F's output and the target over a typed flip-flop stream (static or in the explorer).

    Both panels share one axis of time steps, one column per event: the top panel shows at
    column t the fast weights F reads there, w(t-1) (they change between columns, when S
    writes w(t) after the read), the bottom one F's output y(t) and the target."""
    import matplotlib.pyplot as plt

    checks.axes("axes", axes, 2)
    st = streams.flipflop(events)
    net = make_net("flipflop", interface)
    out = fw.run(net, U, st.xs, st.xf, st.d, st.mask)
    if axes is None:
        _, axes = plt.subplots(2, 1, figsize=(max(6, 0.32 * len(st) + 2), 4.2), sharex=True)
    n = len(st)
    edges = np.arange(n + 1) + 0.5  # w(t) is read at step t + 1: it fills column t + 1
    for a, c in enumerate("ABC"):
        axes[0].step(np.append(0.5, edges), np.append(out["W"][0, 0, a], out["W"][:, 0, a]),
                     where="post", label=f"$w_{c}$")
    axes[0].set_ylabel("fast weight read")
    axes[0].set_ylim(-0.05, 1.05)
    axes[0].legend(fontsize=8, ncol=3, loc="upper left")
    ts = np.arange(1, n + 1)
    axes[1].bar(ts, st.d[:, 0], color="0.85", label="target d(t)")
    axes[1].plot(ts, out["y"][:, 0], "o-", color="tab:red", label="F's output y(t) = w(t-1)·x(t)")
    axes[1].set_xlabel("event at step t")
    axes[1].set_ylim(-0.05, 1.1)
    axes[1].legend(fontsize=8, loc="upper left")
    for ax in axes:  # one column per event on both panels, whether or not they share x
        ax.set_xlim(0.5, n + 0.5)
        ax.set_xticks(ts)
    axes[0].tick_params(labelbottom=False)
    axes[1].set_xticklabels(list(st.labels))
    return axes


def steps_histogram(solved, cap: int, bound=None, ax=None, label: str = "", color=None,
                    outline: bool = False):
    """Histogram of steps to solution (log bins), the failures in the legend, and the paper's
    bound as a dashed line (if ``bound`` is given).  ``outline=True`` draws only its outline,
    so that it does not hide histograms drawn before it."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    count("cap", cap, 1, 10**15), checks.axes("ax", ax), checks.color("color", color)
    checks.instance("label", label, str), checks.flag("outline", outline)
    if bound is not None:
        checks.real("bound", bound, low=0.0, low_open=True)
    ax = ax or plt.subplots(figsize=(6, 3.5))[1]
    s = checks.array("solved", solved, (None,), finite=False)  # steps to solution, -1 if never
    ok = s[s > 0]
    bins = np.logspace(np.log10(max(50, ok.min() if ok.size else 50)), np.log10(cap), 30)
    style = dict(histtype="step", lw=1.8) if outline else dict(alpha=0.6)
    ax.hist(ok, bins=bins, color=color, label=f"{label} ({int((s <= 0).sum())} unsolved by {cap:,})",
            **style)
    if bound is not None:  # labelled along the line, below where the legend sits
        ax.axvline(bound, color="k", ls="--")
        ax.text(bound, 0.35, f"paper: within {bound:,} ", rotation=90, ha="right", va="center",
                fontsize=8, transform=ax.get_xaxis_transform(),
                bbox=dict(facecolor="white", edgecolor="none", alpha=0.8, pad=1))
    ax.set_xscale("log")
    ax.set_xlabel("steps to solution")
    ax.set_ylabel("runs")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # a count of runs: no 2.5 runs
    ax.legend(fontsize=8, loc="upper right")
    return ax


def explorer(U, events: str = "ACCBBABCAB", interface: str = "per-weight"):
    """Type a flip-flop stream; watch the fast weights and F's output (ipywidgets)."""
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    checks.instance("events", events, str, "a string of flip-flop events (A, B, C)")
    streams.flipflop(events.strip() or "A")  # latch_figure's checks, before any widget is made
    checks.array("U", U, make_net("flipflop", interface).shape_U)
    text = widgets.Text(value=events, description="events")
    out = widgets.Output()

    def redraw(*_):
        with out:
            out.clear_output(wait=True)
            try:
                latch_figure(U, text.value.strip() or "A", interface)
                plt.show()
            except ValueError as e:
                print(e)

    text.observe(redraw, names="value")
    redraw()
    return widgets.VBox([text, out])


# ----------------------------------------------------------------------------- self-checks
def _sigma(w_old, box, T=10.0):
    w = 1.0 / (1.0 + np.exp(-T * (np.asarray(w_old) + np.asarray(box) - 0.5)))
    return w, T * w * (1 - w)


def check_sigma(fn) -> None:
    """Exercise: ``fn(w_old, box, T)`` returns eq. (7)'s new weight and its derivative."""
    cases = [(0.0, 0.0, 10.0), (0.9, 0.2, 10.0), (np.array([0.1, 0.5]), np.array([-1.0, 0.3]), 3.0)]
    check_function("sigma", fn, _sigma, cases,
                   hint="sigma = 1 / (1 + exp(-T (w_old + box - 0.5))); both partials equal T sigma (1 - sigma)")


def latch_fixed_points(T: float = 10.0) -> np.ndarray:
    """The three fixed points of ``w -> σ(w, 0)`` for T = 10 (low, middle, high), by bisection.

    There are three only for T > 4 (the slope of σ at w = 0.5 is T/4); a smaller T is refused."""
    T = checks.real("T", T, low=4.0, low_open=True)
    f = lambda w: 1.0 / (1.0 + np.exp(-T * (w - 0.5))) - w  # noqa: E731
    out = []
    for lo, hi in ((0.0, 0.3), (0.3, 0.7), (0.7, 1.0)):
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(lo) * f(mid) > 0 else (lo, mid)
        out.append((lo + hi) / 2)
    return np.array(out)


def check_latch_fixed_point(value) -> None:
    """Exercise: the upper fixed point of w -> σ(10 (w - 0.5)) (where a set weight settles)."""
    check_value("upper fixed point", value, latch_fixed_points()[2], rtol=1e-6,
                hint="iterate w = sigma(10 (w - 0.5)) from w = 1, or bisect on [0.7, 1]")


def check_p_step_from_to(fn) -> None:
    """Exercise: ``fn(P_from, P_to, w_new, s_from, s_to, x, T)`` -> the new (P_from, P_to) of
    one fast weight w_ab under interface (5) (eq. 3 with eq. 6)."""
    def ref(P_from, P_to, w_new, s_a, s_b, x, T):
        fp = T * w_new * (1 - w_new)
        return fp * (P_from + s_b * x), fp * (P_to + s_a * x)
    g = np.random.default_rng(3)
    cases = [(g.normal(size=3), g.normal(size=3), 0.3, 0.5, -0.7, np.array([1.0, 0.0, 0.0]), 10.0),
             (g.normal(size=3), g.normal(size=3), 0.9, -0.2, 0.4, g.normal(size=3), 5.0)]
    check_function("p-variable step for (5)", fn, ref, cases,
                   hint="the FROM row's derivative of s_a s_b is s_b x, the TO row's is s_a x; "
                        "multiply the sum by sigma' = T w(1 - w)")


def check_linear_attention(fn) -> None:
    """Exercise: ``fn(q, k, v)`` -> causal unnormalised linear attention, via one carried matrix."""
    g = np.random.default_rng(4)
    cases = [(g.normal(size=(6, 3)), g.normal(size=(6, 3)), g.normal(size=(6, 2))),
             (g.normal(size=(1, 2)), g.normal(size=(1, 2)), g.normal(size=(1, 4)))]
    check_function("linear attention", fn, fw.linear_attention, cases, rtol=1e-9,
                   hint="W = W + outer(v_t, k_t), then y_t = W q_t (write first, then read)")
