"""What the runners of the focused back-propagation chapter share: storing and re-reading
runs, training them in pieces by an experiment's design, the rows several experiments add
(:mod:`tempnets.chapters.focused_backprop`)."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np

from ...book import claims
from ...models import focused as F
from ...training import focused_training as T
from ...book import intervals
from ...book import sequential
from ..._numerics import checks
from ..._numerics.checks import count
from ...book.experiments import Result
from ...book.scale import get_scale
from .sizes import PAPER, PAPER_DESIGN, PLANS, SIZES

CHUNK = 100
"""Runs per piece of a paper-scale run: each piece of each condition is saved in the run's
checkpoint as it finishes, so an interrupted run loses at most one piece's work."""


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
