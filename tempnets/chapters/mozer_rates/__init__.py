r"""Mozer's learning rates, tuned as he says he tuned them: experiment ``mozer-rates``.

Mozer (1989/1995), "Implementation details", sets each connection type's learning rate by
:math:`\epsilon_k = \mathrm{mse}^{\mu}\,\rho\,\min(\omega, W_k/\nabla_k)`
(:mod:`tempnets.training.focused_training`), and writes: "The parameters μ, ρ, and ω had to be fine
tuned for most applications to give optimal performance", with μ "set to values in the
neighborhood of 0.75–1.0" and ρ "generally 0.02"; for the regular verbs, "Learning rate
parameters were adjusted to yield the best possible performance for each architecture".  He
prints neither the search nor the values.  The chapter's other experiments use fixed rates
per task (:data:`tempnets.chapters.focused_backprop.RATES`, some outside these ranges); this
one does the search, per task and architecture, inside the stated ranges, and then re-measures
the claims that compare the two architectures with the settings it chose.  The search is
not confined to the ranges he prints: it goes wherever the criterion leads (μ and ρ of the
chapter's fixed rates for sequence reproduction lie outside them too).

The search (:func:`search`)
    Each setting (μ, ρ, ω) trains the same ``select_runs`` networks (common initial weights,
    so settings differ only in their rates) for the task's full epoch budget, and is ranked on
    the criterion the claims use (:func:`choose`): how many of its networks learn the task
    perfectly, then how few epochs they need (a network that never does counts the whole
    budget), then the mean final % right; ties go to the setting nearest :data:`START`.  The
    paper-scale search starts from the 27 settings one step (:data:`STEPS`: μ ± 0.25, ρ × or
    ÷ 2, ω × or ÷ 10) around :data:`START` (μ = 0.75, ρ = 0.02, ω = 100), then moves: it adds
    the unseen neighbours of the best setting, again and again, until the best one has all its
    neighbours evaluated (:func:`inside`: it is not on the edge of what was searched) or
    :data:`MAX_ROUNDS` moves are made.  The choice uses training performance only, never a
    claim's outcome.  Tasks: the regular verbs (``verbs``, 2000 epochs), sequence reproduction
    at delay 1 (``delay1``, up to 5000 epochs) and delay 4 (``delay4``, up to 15 000), each for
    the focused and the full network.  The book scale evaluates two settings, without moving.

Separate seeds
    The networks of the search draw from the stream ``(seed, "mozer-rates", "select", task,
    arch)``; the networks that then measure the claims draw from the streams of
    ``mozer-verbs`` and ``mozer-reproduce`` (``(seed, "verbs", arch)``, ``(seed,
    "reproduce", delay, arch)``), so they start from the same initial weights as the first runs
    of the untuned records (30 or more at paper scale, by the sequential design of :data:`PLANS`;
    those train as many or more; a run's weights do not depend on how many are trained), take no part in the choice, and the tuned table and the untuned
    one on those runs (:func:`untuned_tables`) differ only in the rates.

Data and re-derivation
    ``data["search"][task][arch]`` holds the settings evaluated, in order, and each one's
    per-network training score, final % right and epochs to criterion; ``data["chosen"]`` the
    chosen index per task and architecture; ``data["tuned"]`` the measuring runs.  With
    ``trained=`` the runner replays the search's moves from its results and re-derives the
    choice, and refuses data whose moves or measuring runs do not follow from them.

Files of this package
    The chapter's code, split along its parts (each name is also here, in the package, as it
    was in the single module before the split):

    ===============  =====================================================================
    ``settings.py``  where the search starts (:data:`START`, :data:`STEPS`,
                     :data:`MAX_ROUNDS`, :data:`BOOK_GRID`), :data:`TASKS`, ``ARCHS``,
                     :class:`RateSizes`, :data:`RATE_SIZES`, :data:`PLANS`, :data:`EXPECT`,
                     :func:`task_config`
    ``tuning.py``    the search: :func:`neighbourhood`, :func:`choose`, :func:`inside`,
                     :func:`search` (each setting trained by ``_evaluate``)
    ``runner.py``    :func:`run_rates`: the measuring runs, the re-derivation of the
                     choices (``_replay``, ``_check_choices``), the tuned claims
    ``reading.py``   reading a record: :func:`search_grid`, :func:`delay4_summary`,
                     :func:`untuned_tables`, :func:`side_by_side`
    ===============  =====================================================================

    The runs, rows and seed streams shared with the untuned experiments are read from
    :mod:`tempnets.chapters.focused_backprop`.  A name replaced for a test is replaced where the
    code reads it, since setting a name on this package changes nothing the code reads:
    :data:`BOOK_GRID` and ``_start`` on ``runner``, ``_evaluate`` on ``tuning``, and
    focused_backprop's ``CHUNK`` on ``focused_backprop.runs``.  The dicts :data:`RATE_SIZES`,
    :data:`PLANS` and :data:`EXPECT` are one object in every file: a test replaces an entry
    (``monkeypatch.setitem``), never the name.
"""

from __future__ import annotations

# The modules the single module had as names, read as ``mr.T``, ``mr.V`` by the tests.
from ...book import claims, intervals, sequential  # noqa: F401
from ...models import focused as F  # noqa: F401
from ...tasks import verbs as V  # noqa: F401
from ...training import focused_training as T  # noqa: F401
from ..._numerics import checks  # noqa: F401
from .settings import (ARCHS, BOOK_GRID, EXPECT, MAX_ROUNDS, PLANS, RATE_SIZES, START, STEPS, TASKS,
                       RateSizes, _sequences, task_config)
from .tuning import (_check_grid, _distance, _evaluate, _merit, _search_rows, _tidy, choose, inside,
                     neighbourhood, search)
from .runner import _check_choices, _claims, _measure, _replay, _setting, _start, run_rates
from .reading import _delay4_finals, _short, delay4_summary, search_grid, side_by_side, untuned_tables

__all__ = ["START", "STEPS", "MAX_ROUNDS", "BOOK_GRID", "TASKS", "RateSizes", "RATE_SIZES", "EXPECT",
           "task_config", "neighbourhood", "search", "choose", "inside", "run_rates", "search_grid", "side_by_side",
           "delay4_summary", "untuned_tables"]
