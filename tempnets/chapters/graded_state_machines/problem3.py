"""Experiment 4: problem [3], PSSSP versus TSSST, and the network-size sweep (§5.1).

The strings and our criteria (:func:`problem3_strings`, :func:`problem3_solved`,
:func:`problem3_shared_learned`); training to criterion (:func:`_train_problem3`); whether the
epochs to criterion grow with the number of S's (:func:`growth_evidence`,
:func:`growth_decided`); the paper-scale sequential design (:data:`PROBLEM3_PLAN`) and
:func:`run_problem3`.
"""

from __future__ import annotations

import math

import numpy as np

from ..._numerics import checks
from ...book import claims, intervals, sequential
from ..._numerics.checks import count
from ...book.experiments import Piece, Result, numba_threads, run_pieces
from ...tasks.grammars import check_strings, reber
from ..._numerics.random import as_generator
from ...book.scale import choose, get_scale
from ...models.srn import srn_forward
from ...training.srn_trainers import train_epochs
from .settings import EXPECT, _sub, config

# ------------------------------------------------------------------ experiment 4
def problem3_strings(n_s: int) -> list:
    """Problem [3] of §5.1 with ``n_s`` intermediate S's: ``["BP" + "S"*n + "PE", "BT" + "S"*n + "TE"]``."""
    n_s = count("n_s", n_s, 1, 10**6)
    return [f"B{a}{'S' * n_s}{a}E" for a in "PT"]


def problem3_solved(y_list, strings, alphabet: str = "BTSPXVE", margin: float = 0.6) -> bool:
    """Criterion for problem [3] (ours; the paper does not state its criterion).

    In both strings, at the prediction of the last letter (after the last S)
    the correct letter's activation is ``>= margin`` and the other's
    ``<= 1 - margin``.
    """
    y_list = _problem3_outputs(y_list, strings, alphabet, margin)
    for y, s in zip(y_list, strings):
        right, wrong = alphabet.index(s[-2]), alphabet.index("P" if s[-2] == "T" else "T")
        row = np.asarray(y)[len(s) - 3]
        if not (row[right] >= margin and row[wrong] <= 1 - margin):
            return False
    return True


def _problem3_outputs(y_list, strings, alphabet, margin) -> list:
    """The arguments of the problem [3] criteria, checked: ``y_list`` as arrays, one of shape
    ``(len(s) - 1, len(alphabet))`` (or more rows) per string ``s`` of :func:`problem3_strings`."""
    strings = check_strings(strings, "strings")
    checks.instance("alphabet", alphabet, str, "a string of letters")
    checks.real("margin", margin, low=0.5, high=1.0)
    if len(strings) != 2 or any(len(s) < 5 or any(c not in alphabet for c in s) or s[-2] not in "PT"
                                for s in strings):
        raise ValueError(f"strings must be the two strings of problem3_strings() in the letters of "
                         f"alphabet {alphabet!r}, got {checks.shown(strings)}")
    checks.instance("y_list", y_list, (list, tuple), "a list of output arrays, one per string")
    if len(y_list) != len(strings):
        raise ValueError(f"y_list must hold one output array per string ({len(strings)}), got {len(y_list)}")
    out = [checks.array(f"y_list[{i}]", y, (None, len(alphabet)), finite=False) for i, y in enumerate(y_list)]
    short = [i for i, (y, s) in enumerate(zip(out, strings)) if len(y) < len(s) - 1]
    if short:
        raise ValueError(f"y_list[{short[0]}] must hold an output row per step of strings[{short[0]}] "
                         f"({len(strings[short[0]]) - 1}), got {len(out[short[0]])}")
    return out


def problem3_shared_learned(y_list, strings, alphabet: str = "BTSPXVE", margin: float = 0.6) -> bool:
    """The shared predictions are learned: each S, and E after the last letter, ``>= margin``.

    All steps except the first (after B: T or P) and the last letter's.
    """
    y_list = _problem3_outputs(y_list, strings, alphabet, margin)
    for y, s in zip(y_list, strings):
        y = np.asarray(y)
        for t in list(range(1, len(s) - 3)) + [len(s) - 2]:
            if y[t, alphabet.index(s[t + 1])] < margin:
                return False
    return True


def _train_problem3(n_hidden: int, n_s: int, n_networks: int, max_epochs: int, seed: int,
                   test_every: int = 100, progress=None, part: int = 0) -> dict:
    """Train ``n_networks`` SRNs on problem [3] until solved or ``max_epochs``.

    ``part`` numbers independent groups of networks of the same cell (a sequential design adds
    groups): part 0 draws its networks as always, part ``p > 0`` from streams of its own.

    Returns epochs to criterion (``None``: censored at ``max_epochs``), epochs
    until the shared predictions were learned, and the error on the last
    letter at every test.  Tests every ``test_every`` epochs (training calls
    in between start with zero momentum).
    """
    strings = problem3_strings(n_s)
    enc = [reber().encode(s) for s in strings]
    from ...models.srn import init_params

    keys = (4, n_hidden, n_s) if part == 0 else (4, n_hidden, n_s, 2, count("part", part))
    params = init_params(7, n_hidden, 7, r=0.5, rng=_sub(seed, *keys), n_networks=n_networks)
    gen = as_generator(_sub(seed, *keys, 1))
    solved = [None] * n_networks
    shared = [None] * n_networks
    last_err, tests = [], []
    epoch = 0
    while epoch < max_epochs and any(v is None for v in solved):
        hist = train_epochs(enc, n_epochs=test_every, config=config(n_hidden), n_networks=n_networks,
                            rng=gen, params=params, progress=False)  # short calls: no bars
        params = hist.params
        epoch += test_every
        y, off = srn_forward(params, enc)
        errs = []
        for k in range(n_networks):
            yl = [y[k, off[i]:off[i + 1]] for i in range(2)]
            if solved[k] is None and problem3_solved(yl, strings):
                solved[k] = epoch
            if shared[k] is None and problem3_shared_learned(yl, strings):
                shared[k] = epoch
            errs.append(float(sum((1 - yl[i][len(s) - 3, "BTSPXVE".index(s[-2])]) ** 2
                                  for i, s in enumerate(strings))))
        tests.append(epoch)
        last_err.append(errs)
    return {"n_hidden": n_hidden, "n_s": n_s, "epochs_to_criterion": solved,
            "shared_learned": shared, "tests": tests, "last_letter_error": last_err,
            "max_epochs": max_epochs}


def growth_evidence(medians) -> dict:
    """Do epochs to criterion grow with the number of S's?  Pairwise evidence from censored medians.

    ``medians`` is a sequence of medians over increasing numbers of S's
    (``inf``: more than half of the runs censored at the cap).  Each
    consecutive pair is *increasing* (finite then larger finite, or finite
    then censored), *decreasing* (the second smaller, or censored then
    finite) or *untestable* (both censored: "more than the cap" twice says
    nothing about their order).
    """
    checks.instance("medians", medians, (list, tuple, np.ndarray), "a sequence of medians (numbers or inf)")
    m = [float(v) for v in checks.array("medians", medians, (None,), finite=False)]
    if any(math.isnan(v) for v in m):
        raise ValueError(f"medians must be numbers or inf, got {medians!r}")
    out = {"increasing": 0, "decreasing": 0, "untestable": 0}
    for a, b in zip(m[:-1], m[1:]):
        if math.isinf(a) and math.isinf(b):
            out["untestable"] += 1
        elif a < b:
            out["increasing"] += 1
        else:
            out["decreasing"] += 1
    return out


def growth_decided(cells) -> dict:
    """Do epochs to criterion grow with the number of S's?  Each consecutive pair, decided by its
    95% interval.

    ``cells`` holds, over increasing numbers of S's, each cell's epochs to criterion per run
    (``inf``: censored at the cap).  A pair *grows* when the percentile bootstrap interval of the
    ratio of its medians, second over first (:func:`tempnets.book.intervals.ratio_of_medians`), lies
    above 1, *shrinks* when it lies below 1, and is *undecided* otherwise -- in particular when
    both medians are mostly censored (``inf / inf`` is undefined), or when a cell has fewer than
    6 runs (a median of so few has no 95% interval, and bootstrapping it is not valid).
    """
    checks.instance("cells", cells, (list, tuple), "a list of cells, each a list of epochs (None: censored)")
    for i, c in enumerate(cells):
        checks.instance(f"cells[{i}]", c, (list, tuple, np.ndarray), "a list of epochs (None: censored)")
    runs = [checks.array(f"cells[{i}]", [math.inf if e is None else e for e in c], (None,), finite=False)
            for i, c in enumerate(cells)]
    nan = [i for i, r in enumerate(runs) if np.isnan(r).any()]
    if nan:
        raise ValueError(f"cells[{nan[0]}] must hold epochs or inf (censored), got NaN")
    out = {"grows": 0, "shrinks": 0, "undecided": 0}
    for a, b in zip(runs[:-1], runs[1:]):
        if min(a.size, b.size) < 6:
            out["undecided"] += 1
            continue
        lo, hi = intervals.ratio_of_medians(b, a)
        out["grows" if lo > 1 else "shrinks" if hi < 1 else "undecided"] += 1
    return out


SIZE_EFFECT_AT_LEAST = 0.5
"""Our test of "learning was faster when the number of hidden units was larger": at the largest
number of S's, the largest network's share of runs solved within the cap exceeds the smallest
network's by at least this much."""


PROBLEM3_PLAN = sequential.Plan(8, 4, 24)
"""Paper scale: the 15-unit networks on three S's (the claims "about 10,000 epochs" and "a long
plateau") by a sequential design (:mod:`tempnets.book.sequential`): 8 networks, then groups of 4 up to
24, every interval of those two claims at 99% (5 looks).  A median needs 6 networks for a 95%
interval at all, 8 at 99%; the 5-network record before it could not decide.  The sweep keeps a
fixed 10 networks per cell (its claims at 95%)."""


def _problem3_main_claims(table, ep, shared, scale: str, level: float = intervals.LEVEL) -> None:
    """The two claims on the 15-unit networks on three S's (epochs to criterion ``ep``, ``None``
    when censored; ``shared``: the epoch their shared predictions were learned), at ``level``."""
    n = len(ep)
    solved = [e for e in ep if e is not None]
    censored = [e if e is not None else math.inf for e in ep]
    plateau = [(e - s) / e for e, s in zip(ep, shared) if e is not None and s is not None]
    pct = intervals.level_name(level)
    table.add("15 hidden units learn PSSSP/TSSST in about 10,000 epochs (median)", "§5.1", 10_000,
              float(np.median(censored)), claims.between(3_000, 30_000),
              expected=EXPECT["problem3-median"][scale], interval=intervals.median(censored, level),
              note=f"{len(solved)} of {n} solved; epochs {ep}; criterion: ours (last letter ≥ 0.6, "
                   f"other ≤ 0.4); {pct} interval: order statistics, {n} runs (censored runs as "
                   "more than the cap; fewer than 6 runs give no bounded 95% interval)")
    table.add("a long plateau: share of training spent with the shared letters learned but the "
              "last one not", "§5.1", "very long plateau", float(np.mean(plateau)) if plateau else math.nan,
              claims.at_least(0.5), expected=EXPECT["problem3-plateau"][scale],
              interval=intervals.mean(plateau, level) if plateau else (-math.inf, math.inf),
              note=f"mean over the {len(plateau)} solved networks; {pct} interval: t"
                   + (" (none with fewer than 2)" if len(plateau) < 2 else ""))


def _problem3_piece(n_hidden, n_s, n_networks, max_epochs, seed, part, checkpoint=None,
                    progress=None) -> dict:
    """:func:`_train_problem3` as a piece of a run (:func:`tempnets.book.experiments.run_pieces`)."""
    return _train_problem3(n_hidden, n_s, n_networks, max_epochs, seed, progress=progress, part=part)


def _problem3_cells(cells, seed, progress, checkpoint) -> list:
    """:func:`_train_problem3` of each ``(n_hidden, n_s, n_networks, max_epochs, part)`` in
    ``cells``, one after another, each kept in ``checkpoint`` (if any) as it finishes."""
    pieces = [Piece(f"problem3-{nh}-{ns}-{part}", {"seed": seed, "n_hidden": nh, "n_s": ns,
                                                    "n_networks": r, "max_epochs": cap, "part": part},
                    _problem3_piece, (nh, ns, r, cap, seed, part))
              for nh, ns, r, cap, part in cells]
    return run_pieces(pieces, 1, progress, checkpoint, what="cells")


def _problem3_main(scale: str, seed: int, progress, checkpoint=None) -> tuple:
    """``(main, more, design)``: the 15-unit networks on three S's by their design, at book scale
    a fixed 3 networks (30,000 epochs, one look; ``more`` empty), at paper scale
    :data:`PROBLEM3_PLAN` (100,000 epochs): ``main`` its first group, ``more`` the later ones."""
    plan, cap = sequential.plan_for(scale, 3, PROBLEM3_PLAN), choose(30_000, 100_000, scale)
    groups = []

    def train(a, b):  # (book scale keeps no piece: its sweep has a cell of the same name)
        groups.extend(_problem3_cells([(15, 3, b - a, cap, len(groups))], seed, progress,
                                      checkpoint if scale == "paper" else None))
        return list(zip(groups[-1]["epochs_to_criterion"], groups[-1]["shared_learned"]))

    def table(results, level):
        t = claims.ClaimsTable("problem [3], 15 units")
        _problem3_main_claims(t, [e for e, _ in results], [s for _, s in results], scale, level)
        return t

    _, design = sequential.run(plan, train, table, what="networks")
    return groups[0], groups[1:], design


def run_problem3(scale="book", seed=0, jobs=1, progress=None, trained=None, checkpoint=None) -> Result:
    """§5.1: problem [3] (PSSSP vs TSSST) and the network-size × embedding-length sweep.

    The 15-unit network on three S's: "able to solve this problem very
    accurately after approximately 10,000 epochs ... until a very long
    plateau in the error is reached".  The sweep: "four different networks
    (with 7, 15, 30 or 120 hidden units) were trained on each of four
    different versions of problem [3] (with 2, 4, 6 or 12 intermediate
    elements)".  ``book``: 8 networks per cell, hidden {7, 15, 30} × S's
    {2, 3, 4}, capped at 20,000 epochs (the main run: 3 networks on 3 S's,
    30,000 epochs); ``paper``: 10 networks per cell, the full 4 × 4 sweep,
    capped at 100,000 (the main run: 8 to 24 networks by the sequential design
    of :data:`PROBLEM3_PLAN`, 100,000 epochs).  Runs that do not reach criterion
    are censored (reported as "> cap").

    ``trained``: the ``data`` of an earlier run (e.g. a recorded paper-scale
    run) whose claims are re-derived without training; its sizes are used.
    ``checkpoint``: each cell (and each group of the main run) is kept there as it
    finishes, so an interrupted run resumes from them.
    """
    if trained is None:
        R = choose(8, 10, scale)
        hidden = choose((7, 15, 30), (7, 15, 30, 120), scale)
        n_ss = choose((2, 3, 4), (2, 4, 6, 12), scale)
        cap = choose(20_000, 100_000, scale)
        with numba_threads(jobs):
            main, more, design = _problem3_main(get_scale(scale), seed, progress, checkpoint)
            sweep = _problem3_cells([(nh, ns, R, cap, 0) for nh in hidden for ns in n_ss], seed,
                                    progress, checkpoint)
    else:
        missing = {"main", "sweep", "hidden", "n_s", "cap", "n_networks"} - set(trained)
        if missing:
            raise ValueError(f"trained= must be the data of a run_problem3 result; missing "
                             f"{', '.join(sorted(missing))}")
        main, sweep, hidden, n_ss, cap, R = (trained[k] for k in ("main", "sweep", "hidden", "n_s",
                                                                   "cap", "n_networks"))
        more, design = trained.get("main_more", []), trained.get("design")
    scale = get_scale(scale)
    groups = [main] + list(more)
    ep = [e for g in groups for e in g["epochs_to_criterion"]]
    shared = [s for g in groups for s in g["shared_learned"]]

    def cell(nh, ns):
        return next(c for c in sweep if c["n_hidden"] == nh and c["n_s"] == ns)

    def median(c):
        return float(np.median([e if e is not None else math.inf for e in c["epochs_to_criterion"]]))

    def n_solved(c):
        return sum(e is not None for e in c["epochs_to_criterion"])

    grid = np.array([[median(cell(nh, ns)) for ns in n_ss] for nh in hidden])
    table = claims.ClaimsTable("Problem [3]: PSSSP vs TSSST (§5.1)")
    _problem3_main_claims(table, ep, shared, scale, sequential.level_of({"design": design}))
    ev = [growth_evidence(row) for row in grid]
    total = {k: sum(e[k] for e in ev) for k in ("increasing", "decreasing", "untestable")}
    decided = [growth_decided([cell(nh, ns)["epochs_to_criterion"] for ns in n_ss]) for nh in hidden]
    dec = {k: sum(e[k] for e in decided) for k in ("grows", "shrinks", "undecided")}
    n_pairs = len(hidden) * (len(n_ss) - 1)
    table.add(f"epochs to criterion grow with the number of S's, for every network size: consecutive "
              f"pairs of medians (of {n_pairs}) that do not increase (two censored medians cannot)",
              "§5.1", "exponential", total["decreasing"] + total["untestable"], claims.at_most(0),
              expected=EXPECT["problem3-growth"][scale],
              interval=(dec["shrinks"], dec["shrinks"] + dec["undecided"]),
              note=f"pairs increasing {total['increasing']}, decreasing {total['decreasing']}, "
                   f"untestable {total['untestable']}; medians (> cap: censored): " + "; ".join(
                       f"{nh} units: " + ", ".join("> cap" if math.isinf(v) else f"{v:.0f}" for v in row)
                       for nh, row in zip(hidden, grid))
                   + f"; 95% range: each pair decided by a bootstrap interval of its ratio of medians "
                     f"({R} runs per cell): {dec['grows']} grow, {dec['shrinks']} shrink, "
                     f"{dec['undecided']} undecided")
    k_big, k_small = n_solved(cell(hidden[-1], n_ss[-1])), n_solved(cell(hidden[0], n_ss[-1]))
    n_big, n_small = (len(cell(nh, n_ss[-1])["epochs_to_criterion"]) for nh in (hidden[-1], hidden[0]))
    table.add(f"more hidden units help: with {n_ss[-1]} S's, share of runs solved within the cap, "
              f"{hidden[-1]} minus {hidden[0]} units", "§5.1", "faster with more units",
              k_big / n_big - k_small / n_small, claims.at_least(SIZE_EFFECT_AT_LEAST), do_nothing=0.0,
              expected=EXPECT["problem3-size-effect"][scale],
              interval=intervals.share_difference(k_big, n_big, k_small, n_small),
              note=f"{R} runs per cell, cap {cap:,} epochs; solved within the cap: " + "; ".join(
                  f"{nh} units: " + ", ".join(f"{100 * n_solved(cell(nh, ns)) / R:.0f}%" for ns in n_ss)
                  for nh in hidden) + f" (S's {', '.join(map(str, n_ss))}); 95% interval: Newcombe, "
                  f"{k_big} of {n_big} vs {k_small} of {n_small} runs",
              not_tested="neither size solves any run" if k_big == k_small == 0 else "")

    def finite(x):
        return None if math.isinf(x) else x

    data = {"main": main, "sweep": sweep, "hidden": list(hidden), "n_s": list(n_ss), "cap": cap,
            "median_grid": [[finite(v) for v in row] for row in grid.tolist()], "n_networks": R,
            "growth_evidence": total, "growth_decided": dec,
            **({"main_more": more, "design": design} if design else {})}
    return Result(table, data)
