"""Reading a ``mozer-rates`` record: the search as a table, the delay-4 summary, the untuned
tables and the side-by-side view (:mod:`tempnets.chapters.mozer_rates`)."""

from __future__ import annotations

import numpy as np

from ...book import claims
from ...book import intervals
from ..._numerics import checks
from ..._numerics.checks import count
from ...book.experiments import Result, check_data
from ..focused_backprop import first_runs
from .settings import ARCHS, TASKS
from .tuning import _check_grid, choose

# ----------------------------------------------------------------------------- reading a record

def search_grid(data, task: str, arch: str):
    """The search of ``task`` and ``arch`` as a table for a figure: ``(perfect, mus, columns)``.

    ``perfect[i, j]`` is the number of the search's networks that learned the task perfectly
    with μ = ``mus[i]`` and the (ρ, ω) pair ``columns[j]`` (the criterion :func:`choose` ranks
    by first); ``nan`` where the search evaluated no such setting.  ``data`` is a
    ``mozer-rates`` result's or record's data.
    """
    data = check_data(data, ["search"], "mozer-rates")
    if task not in TASKS or arch not in ARCHS:
        raise ValueError(f"task must be one of {', '.join(TASKS)} and arch one of {', '.join(ARCHS)}, "
                         f"got {task!r}, {arch!r}")
    try:
        found = data["search"][task][arch]
    except (KeyError, TypeError, IndexError):
        raise ValueError(f"data holds no search of task {task!r} with arch {arch!r}") from None
    choose(found)  # validates the search result
    grid = _check_grid(found["settings"])
    perfect = (np.asarray(found["epochs_to_criterion"]) >= 0).sum(axis=1)
    mus = sorted({g[0] for g in grid})
    columns = sorted({g[1:] for g in grid})
    table = np.full((len(mus), len(columns)), np.nan)
    for (mu, rho, omega), k in zip(grid, perfect):
        table[mus.index(mu), columns.index((rho, omega))] = k
    return table, mus, columns


def _delay4_finals(data, tuned: bool) -> tuple:
    if tuned:
        return tuple(np.asarray(data["tuned"]["delay4"][a]["final"], float) for a in ARCHS)
    return tuple(np.asarray(data[f"{a}_delay4"]["final"], float) for a in ARCHS)


def delay4_summary(untuned=None, tuned=None) -> str:
    """One sentence on what tuning per architecture does to the delay-4 result, from the data
    of ``mozer-reproduce`` (fixed rates) and ``mozer-rates`` (tuned), the committed paper-scale
    records when not given: each network's mean final % right and the focused minus full
    difference with its 95% interval (Welch); the order "reverses", "keeps" or "becomes
    undecided" as the two intervals say.  Both sides are the same networks: the untuned data
    are cut to their first runs, as many as were tuned (:func:`~tempnets.chapters.focused_backprop.first_runs`)."""
    from ...book.experiments import read_record

    for name, value in (("untuned", untuned), ("tuned", tuned)):
        if value is not None and not isinstance(value, (dict, Result)):
            raise TypeError(f"{name} must be a record's data (a dict), a Result or None, got {type(value).__name__}")
    untuned = untuned.data if isinstance(untuned, Result) else untuned
    tuned = tuned.data if isinstance(tuned, Result) else tuned
    untuned = read_record("paper_scale/mozer-reproduce.json")["data"] if untuned is None else untuned
    tuned = read_record("paper_scale/mozer-rates.json")["data"] if tuned is None else tuned
    for name, value, keys in (("untuned", untuned, ("focused_delay4", "full_delay4")), ("tuned", tuned, ("tuned",))):
        missing = [k for k in keys if k not in value]
        if missing:
            raise ValueError(f"{name} must be the data of a {'mozer-reproduce' if name == 'untuned' else 'mozer-rates'} "
                             f"record; missing {', '.join(missing)}")

    def side(data, is_tuned):
        foc, full = _delay4_finals(data, is_tuned)
        lo, hi = intervals.mean_difference(foc, full)
        return foc.mean(), full.mean(), foc.mean() - full.mean(), lo, hi, (1 if lo > 0 else -1 if hi < 0 else 0)

    # the same networks on both sides: the first runs of the untuned record, as many as were tuned
    n = len(tuned["tuned"]["delay4"]["focused"]["final"])
    if "sizes" in untuned and untuned["sizes"].get("runs", n) > n:
        untuned = first_runs(untuned, n)
    f0, u0, d0, lo0, hi0, s0 = side(untuned, False)
    f1, u1, d1, lo1, hi1, s1 = side(tuned, True)
    order = {1: "the focused network ends higher", -1: "the full network ends higher", 0: "neither is clearly higher"}
    change = ("keeps" if s1 == s0 else "reverses" if s1 == -s0 and s0 else "becomes undecided" if s1 == 0
              else "changes")
    return (f"At delay 4, on the same {n} networks per architecture: with the chapter's fixed rates "
            f"(mozer-reproduce, its first {n} runs) {order[s0]}: focused {f0:.1f}% vs "
            f"full {u0:.1f}%, difference {d0:+.1f} [{lo0:+.1f}, {hi0:+.1f}]. With the rates tuned per "
            f"architecture on perfect runs (mozer-rates) the result {change}: tuned full {u1:.1f}% vs focused "
            f"{f1:.1f}%, difference (focused minus full) {d1:+.1f} [{lo1:+.1f}, {hi1:+.1f}] (95% intervals, Welch).")


def untuned_tables(n: int | None = None, reproduce=None, verbs=None) -> list:
    """The claims of ``mozer-reproduce`` and ``mozer-verbs`` (fixed rates) on their first ``n``
    runs, the networks ``mozer-rates`` trains with tuned rates, for :func:`side_by_side`.

    Parameters
    ----------
    n : int, optional
        Runs per network; when ``None``, as many as the committed paper-scale ``mozer-rates``
        record measured (its sequential design's ``n``).
    reproduce, verbs : dict or Result, optional
        The untuned data; the committed paper-scale records when not given.

    Returns
    -------
    list of tempnets.book.claims.ClaimsTable
        The two tables, re-derived (never trained) from the first ``n`` runs, as a fixed design
        of ``n`` runs (95% intervals: :func:`~tempnets.chapters.focused_backprop.first_runs`).
        Nothing in them is asserted (every stated verdict is ``None``): the chapter states its
        verdicts for all of a record's runs, not for its first ``n``.
    """
    import dataclasses

    from ...book.experiments import read_record
    from ..focused_backprop import run_reproduce, run_verbs

    n = (read_record("paper_scale/mozer-rates.json")["data"]["sizes"]["runs"] if n is None
         else count("n", n, 1))
    out = []
    for name, value, runner in (("mozer-reproduce", reproduce, run_reproduce), ("mozer-verbs", verbs, run_verbs)):
        if value is not None and not isinstance(value, (dict, Result)):
            raise TypeError(f"the data of {name} must be a dict, a Result or None, got {type(value).__name__}")
        data = read_record(f"paper_scale/{name}.json")["data"] if value is None else value
        table = runner("paper", trained=first_runs(data, n)).claims
        out.append(claims.ClaimsTable(f"{table.title} (the first {n} runs)",
                                      [dataclasses.replace(c, expected=None) for c in table.claims]))
    return out


def _short(statement: str, width: int) -> str:
    return statement if len(statement) <= width else statement[: width - 1] + "…"


def side_by_side(tuned, *untuned, width: int = 50) -> str:
    """A text table of each tuned claim beside the same claim with the chapter's fixed rates.

    ``tuned`` and ``untuned`` are claims tables (or their rows): the tuned table of
    ``mozer-rates`` and those of ``mozer-reproduce`` and ``mozer-verbs``.  A claim is matched
    by its statement (the tuned table's ``"verbs: "`` prefix left out); one the untuned
    tables do not make shows "—".  Statements are cut at ``width`` characters; the tables
    themselves give them in full.
    """
    def rows(t, name):
        out = t.rows() if isinstance(t, claims.ClaimsTable) else t
        keys = ("statement", "paper", "ours", "verdict")
        if not isinstance(out, (list, tuple)) or not all(isinstance(r, dict) and all(k in r for k in keys)
                                                         for r in out):
            raise TypeError(f"{name} must be a claims table or a list of its rows (dicts with "
                            f"{', '.join(keys)}), got {checks.shown(t)}")
        return list(out)

    def cell(r):
        if r is None:
            return "—"
        ours = r["ours"]
        value = "nan" if ours is None or (isinstance(ours, float) and np.isnan(ours)) else f"{ours:g}"
        verdict = r["verdict"].split(":")[0].replace(" (reported)", "").replace(" at this scale", "")
        return f"{value}, {verdict}"

    width = count("width", width, 10, 1000)
    tuned = rows(tuned, "tuned")
    before = {r["statement"]: r for i, t in enumerate(untuned) for r in rows(t, f"untuned[{i}]")}
    lines = [f"{'claim':{width}}  {'paper':>6}  {'fixed rates':22}  tuned rates",
             f"{'-' * width}  {'-' * 6}  {'-' * 22}  {'-' * 22}"]
    for r in tuned:
        old = before.get(r["statement"].removeprefix("verbs: "))
        paper = "—" if r["paper"] is None else f"{r['paper']:g}"
        lines.append(f"{_short(r['statement'], width):{width}}  {paper:>6}  {cell(old):22}  {cell(r)}")
    return "\n".join(lines)
