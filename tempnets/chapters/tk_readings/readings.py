"""The readings of what the paper leaves out: :class:`Reading`, :data:`READINGS`, the screen's
plan (:data:`SCREEN`), :func:`reading_sizes`, and how a reading poses a batch
(:func:`teacher_forced`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ...models import tkrnn
from ..._numerics.checks import array, count, real
from .. import temporal_kernels as tk


TODAY_LAM_RANGE = (0.5, 0.95)
"""The initial decays of today's reading (:func:`tempnets.models.tkrnn.init_params`'s default)."""


def _check_model(name) -> str:
    if not isinstance(name, str) or name not in tk.MODELS:
        raise ValueError(f"name must be one of {', '.join(map(repr, tk.MODELS))}, got {name!r}")
    return name


def _optional(name, value, check):
    """``value`` if it is ``None``, else ``check(name, value)`` (a check of :mod:`tempnets._numerics.checks`)."""
    return None if value is None else check(name, value)


def _check_reading(reading) -> None:
    if not isinstance(reading, Reading):
        raise TypeError(f"reading must be a tk_readings.Reading (e.g. Reading(recall='teacher')), got "
                        f"{type(reading).__name__}")


@dataclass(frozen=True)
class Reading:
    """One reading of what the paper leaves out; every default is today's reading.

    Attributes
    ----------
    recall : {"blank", "teacher"}
        The inputs during recall: blank, or the true previous letter (teacher forcing).
    decays : {"learned", "frozen", "capped", "slow"}
        How the TKRNN's decays λ train (see the module docstring).
    decay_cap : float
        Largest decay with ``decays="capped"``, in (0, 1).
    decay_rate : float
        With ``decays="slow"``, the decays' learning rate as a fraction of the others', in (0, 1].
    lam_range : (float, float)
        The initial decays' range (:func:`tempnets.models.tkrnn.init_params`).
    input_output : bool
        Whether the outputs have kernels from the inputs (W_{x→z}).
    alphabet, length : int or None
        Letters and letters per string; ``None``: the sizes'.
    ramp : float or None
        The curriculum's share of the updates (:func:`tempnets.chapters.temporal_kernels.curriculum_task`);
        ``None``: the model's recipe's.
    learning_rate, final_rate : float or None
        Adam's rate at the first and the last update; ``None``: the recipe's.
    updates_factor : int
        Multiplies the number of updates (and the updates between validation tests), 1 to 100.
    """

    recall: str = "blank"
    decays: str = "learned"
    decay_cap: float = 0.95
    decay_rate: float = 0.1
    lam_range: tuple = TODAY_LAM_RANGE
    input_output: bool = True
    alphabet: int | None = None
    length: int | None = None
    ramp: float | None = None
    learning_rate: float | None = None
    final_rate: float | None = None
    updates_factor: int = 1

    def __post_init__(self):
        for name, allowed in (("recall", ("blank", "teacher")),
                              ("decays", ("learned", "frozen", "capped", "slow"))):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got "
                                 f"{getattr(self, name)!r}")
        object.__setattr__(self, "lam_range", tuple(float(v) for v in tkrnn._lam_range(self.lam_range)))
        tkrnn.check_lambda(self.decay_cap, "decay_cap")
        if not (isinstance(self.decay_rate, (int, float)) and 0 < self.decay_rate <= 1):
            raise ValueError(f"decay_rate must be a fraction in (0, 1] of the learning rate, got "
                             f"{self.decay_rate!r}")
        if self.decays == "capped" and self.lam_range[1] >= self.decay_cap:
            raise ValueError(f"lam_range {self.lam_range} reaches decay_cap {self.decay_cap}: the "
                             "initial decays must lie below the cap")
        if not isinstance(self.input_output, bool):
            raise TypeError(f"input_output must be True or False, got {self.input_output!r}")
        for name, low in (("alphabet", 2), ("length", 1)):
            _optional(f"{name} (or None)", getattr(self, name), lambda n, v: count(n, v, low))
        _optional("ramp (or None)", self.ramp, lambda n, v: real(n, v, low=0.0, high=1.0))
        for name in ("learning_rate", "final_rate"):
            _optional(f"{name} (or None)", getattr(self, name),
                      lambda n, v: real(n, v, low=0.0, low_open=True))
        count("updates_factor (a multiple of the updates, at most 100)", self.updates_factor, 1, 100)

    @property
    def model_switches(self) -> bool:
        """Whether the reading changes the TKRNN itself (decays, initial range, read-out)."""
        return (self.decays != "learned" or self.lam_range != TODAY_LAM_RANGE
                or not self.input_output)


READINGS = (
    ("today's reading", {}),
    ("teacher-forced recall", {"recall": "teacher"}),
    ("no input→output kernel", {"input_output": False}),
    ("λ frozen at their initial values", {"decays": "frozen"}),
    ("λ capped at 0.95", {"decays": "capped", "lam_range": (0.5, 0.9)}),
    ("λ learning at a tenth of the rate", {"decays": "slow"}),
    ("initial λ in (0.5, 0.99): half-lives reaching the delay", {"lam_range": (0.5, 0.99)}),
    ("5 letters of 128", {"alphabet": 128, "length": 5}),
    ("curriculum reaching 7 letters by 20% of the run", {"ramp": 0.2}),
    ("Adam 3e-2 falling to 3e-3 (the rate grid extended)", {"learning_rate": 3e-2, "final_rate": 3e-3}),
)
"""The readings of issue 33 the screen runs, in its order, each one switch away from today's
(the cap's initial range is lowered to (0.5, 0.9) so that λ can start below 0.95 and move).
Longer training (``updates_factor``) is not screened: on a reduced budget more updates are a
larger budget, not another reading; it is a switch of the paper-scale run, where the loss of
today's TKRNNs was still falling at the last update."""

SCREEN = {
    "model": "TKRNN",
    "networks": 4,
    "first_network": 200,
    "base": {"book": {"updates": 10, "eval_every": 5, "batch": 8, "n_test": 32, "delays": (1, 5),
                      "test_delays": (5,)},
             "paper": {"updates": 3000, "eval_every": 1000, "n_test": 1000}},
}
"""``tk-readings``: ``networks`` TKRNNs per reading (numbered from ``first_network``: networks no
comparison uses), each trained with the TKRNN's paper-scale recipe (``tk-serial-recall``'s
sizes, :data:`tempnets.chapters.temporal_kernels.PAPER_CHOICES`) changed by the reading, on a
reduced budget (``base``; ``book``: delays 1-5 and a few updates, seconds, to show the method).  Four networks because the
screen's rule (:func:`screen_verdict`) needs them: with 4 against 4, "every network of the
reading above every network of today's" has a one-sided rank-test p of 1/70 = 0.014; with 3
against 3 the best possible p is 1/20 = 0.05, which cannot clear 0.05."""


def reading_sizes(sz: tk.Sizes, reading: Reading) -> tk.Sizes:
    """The sizes a model trains with under ``reading``: ``sz`` (one model's, without ``recipes``)
    with the reading's task and training switches applied; ``sz`` itself for today's."""
    tk._check_sizes(sz)
    _check_reading(reading)
    if sz.recipes is not None:
        raise ValueError("sizes must be one model's (Sizes.for_model(name)), not a table of recipes")
    changes = {k: getattr(reading, k) for k in ("alphabet", "length", "ramp", "learning_rate",
                                                "final_rate") if getattr(reading, k) is not None}
    if reading.updates_factor != 1:
        changes.update(updates=sz.updates * reading.updates_factor,
                       eval_every=sz.eval_every * reading.updates_factor)
    if not changes:
        return sz
    out = dataclasses.replace(sz, **changes)
    if "learning_rate" in changes and out.settings is not None:  # the rate lives in settings too
        out = dataclasses.replace(out, settings={n: [s[0], out.learning_rate]
                                                 for n, s in out.settings.items()})
    return out


def teacher_forced(x, target, mask) -> tuple:
    """``(x', target, mask)``: the batch with, at every recall step after a sequence's first, the
    input set to the previous step's target letter (one-hot) instead of blank.  ``x`` (T, B, I),
    ``target`` (T, B) classes below ``I``, ``mask`` (T, B) of 0/1, as
    :func:`tempnets.tasks.sequences.make_batch` returns them."""
    dims = {}
    x = np.array(array("x", x, ("T", "B", "I"), dims), copy=True)
    target = array("target", target, ("T", "B"), dims, dtype="int")
    mask = array("mask", mask, ("T", "B"), dims)
    if target.size and (target.min() < 0 or target.max() >= x.shape[2]):
        raise ValueError(f"target must hold classes in [0, {x.shape[2]}) (one-hot inputs of x), got "
                         f"values in [{target.min()}, {target.max()}]")
    if not np.all((mask == 0) | (mask == 1)):
        raise ValueError("mask must hold 0/1 values (1 on the scored steps)")
    tt, bb = np.nonzero((mask[:-1] == 1) & (mask[1:] == 1))  # scored steps followed by one
    x[tt + 1, bb, :] = 0.0
    x[tt + 1, bb, target[tt, bb]] = 1.0
    return x, target, mask


def _poser(reading: Reading):
    """The function that turns a task's batch ``(x, target, mask)`` into the reading's."""
    if reading.recall == "teacher":
        return teacher_forced
    return lambda x, target, mask: (x, target, mask)
