r"""The serial-recall task: store a string through a variable delay, reproduce it on a cue.

Paper: Sutskever & Hinton (2010), section 1: "an arbitrary sequence of characters
must be stored for a variable length of time until a cue is presented. After
the cue is presented, the RNN must reproduce the stored sequence"; their TKRNN
stores "35 bits of information for at least 50 timesteps".  Everything else
(alphabet, string length, delays, coding, loss) is missing from our copy and
reconstructed after Sutskever's own memorisation task (``raw_mem`` in his 2011
HF-RNN code), the closest task by the same author whose layout is published: our
reconstruction, the book's *Reconstructions* page, temporal-kernels section.

Layout of one sequence with string length ``L``, alphabet size ``A`` and delay ``D``
(steps ``t = 0 .. 2L + D``, so ``T = 2L + D + 1``)::

    t:       0 .. L-1     L .. L+D-1    L+D     L+D+1 .. 2L+D
    input:   the letters  blank         cue     blank
    target:  (not scored) (not scored)  (n.s.)  the letters, in order

Inputs are one-hot over ``A + 2`` symbols (letters ``0 .. A-1``, blank ``A``, cue
``A + 1``); outputs are a softmax over ``A + 1`` classes (letters, blank).  The
loss is scored on the ``L`` recall steps only.  ``L log2 A`` bits are stored
(35 for ``A = 32, L = 7``).  In a batch, shorter sequences are padded at the end
with blank, unscored steps: the models are causal, so padding after a sequence's
recall cannot change it.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from .._numerics.checks import array, memory, count
from .._numerics.random import as_generator

__all__ = ["SerialRecall", "make_batch", "encode", "recall_scores"]


@dataclass(frozen=True)
class SerialRecall:
    """A serial-recall task.

    Attributes
    ----------
    alphabet : int
        Letters ``A >= 2``.
    length : int
        Letters per string ``L >= 1``.
    delays : (int, int)
        Training delays are uniform on ``{low, ..., high}``, ``0 <= low <= high``.
    min_length : int or None
        With ``1 <= min_length < length``, each training string's length is uniform on
        ``{min_length, ..., length}`` (lists of varying length, as in Botvinick & Plaut's
        (2006) model of serial recall); ``None`` (the default): every string has ``length``
        letters.  Tests are at ``length`` (:func:`make_batch`'s ``length``).
    """

    alphabet: int = 32
    length: int = 7
    delays: tuple = (10, 50)
    min_length: int | None = None

    def __post_init__(self):
        for name, low in (("alphabet", 2), ("length", 1)):
            count(name, getattr(self, name), low)
        d = self.delays
        if (not isinstance(d, (tuple, list)) or len(d) != 2
                or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in d)
                or d[0] < 0 or d[0] > d[1]):
            raise ValueError(f"delays must be (low, high) integers with 0 <= low <= high, got {d!r}")
        object.__setattr__(self, "delays", (int(d[0]), int(d[1])))
        m = self.min_length
        if m is not None and (isinstance(m, bool) or not isinstance(m, numbers.Integral)
                              or not 1 <= m <= self.length):
            raise ValueError(f"min_length must be None or an integer in [1, {self.length}] (the "
                             f"string length), got {m!r}")

    @property
    def n_in(self) -> int:
        """Input units: letters, blank, cue."""
        return self.alphabet + 2

    @property
    def n_out(self) -> int:
        """Output classes: letters, blank."""
        return self.alphabet + 1

    @property
    def bits(self) -> float:
        """Information in one string: ``L log2 A``."""
        return self.length * math.log2(self.alphabet)

    def steps(self, delay: int) -> int:
        """Sequence length ``2L + D + 1``."""
        return 2 * self.length + count("a delay", delay) + 1


def encode(task: SerialRecall, strings, delays, lengths=None):
    """Build a batch from given strings and delays.

    Parameters
    ----------
    task : SerialRecall
    strings : array_like of int, shape (B, L)
        Letters in ``[0, A)``.
    delays : int or array_like of int, shape (B,)
        Each sequence's delay ``>= 0``.
    lengths : int or array_like of int, shape (B,), optional
        Letters each sequence stores, in ``[1, L]``: sequence ``b`` holds
        ``strings[b, :lengths[b]]`` (the rest of its row is unused) and lasts
        ``2 lengths[b] + delays[b] + 1`` steps.  Default: all ``L``.

    Returns
    -------
    x : ndarray (T, B, A + 2)
    target : ndarray (T, B) of int
    mask : ndarray (T, B) of float, 1 on the recall steps
    """
    _task(task)
    try:
        s = np.asarray(strings)
    except (TypeError, ValueError):  # (ragged rows)
        s = np.asarray(None)
    if s.ndim != 2 or s.shape[1] != task.length or not np.issubdtype(s.dtype, np.integer):
        raise ValueError(f"strings must be integer letters of shape (B, {task.length}) "
                         f"(the task's string length), got {s.dtype} {s.shape}")
    if s.size and (s.min() < 0 or s.max() >= task.alphabet):
        raise ValueError(f"letters must be in [0, {task.alphabet}) (the task's alphabet; the model's "
                         f"outputs have {task.n_out} classes), got values in [{s.min()}, {s.max()}]")
    B, L = s.shape
    if B == 0:
        raise ValueError(f"strings must hold at least one string (shape (B, {task.length}) with B >= 1), "
                         f"got shape {s.shape}")
    try:
        d = np.broadcast_to(array("delays", delays, dtype="int"), (B,))
    except ValueError:
        raise ValueError(f"delays must be one delay or {B} delays (one per string), got shape "
                         f"{np.shape(delays)}") from None
    for v in np.unique(d):
        count("delays", v)  # numpy integers pass; floats, bools and negatives do not
    d = d.astype(np.int64)
    if lengths is None:
        n = np.full(B, L)
    else:
        try:
            n = np.broadcast_to(np.asarray(lengths), (B,))
        except ValueError:
            raise ValueError(f"lengths must be one length or {B} lengths (one per string), got "
                             f"shape {np.shape(lengths)}") from None
        if not np.issubdtype(n.dtype, np.integer) or n.min() < 1 or n.max() > L:
            raise ValueError(f"lengths must be integers in [1, {L}] (letters stored per string), "
                             f"got {n.tolist() if n.size < 10 else n}")
        n = n.astype(np.int64)
    T = int((2 * n + d).max()) + 1
    A = task.alphabet
    _check_fits(T, B, A, "task, strings and delays")
    sym = np.full((T, B), A)  # blank everywhere ...
    target = np.full((T, B), A)
    mask = np.zeros((T, B))
    pos = np.arange(L)[:, None]  # (L, 1): letter positions; (L, B) masks of the letters kept
    keep = pos < n[None, :]
    cols = np.broadcast_to(np.arange(B)[None, :], (L, B))
    sym[:L][keep] = s.T[keep]  # ... the letters first
    sym[n + d, np.arange(B)] = A + 1  # the cue after each delay
    rows = n[None, :] + d[None, :] + 1 + pos  # (L, B) recall steps
    target[rows[keep], cols[keep]] = s.T[keep]
    mask[rows[keep], cols[keep]] = 1.0
    x = np.zeros((T, B, A + 2))  # one-hot: the rows of np.eye(A + 2), without making it
    np.put_along_axis(x, sym[:, :, None], 1.0, axis=2)
    return x, target, mask


def _task(task) -> None:
    if not isinstance(task, SerialRecall):
        raise TypeError(f"task must be a SerialRecall, got {type(task).__name__}")


def _check_fits(T, B, A, given: str) -> None:
    """Refuse a batch of ``B`` sequences of ``T`` steps over ``A`` letters that cannot fit in
    memory (inputs ``A + 2`` values per step, target, mask and symbols 3 more); ``given``
    names the arguments that set those sizes."""
    memory(T * B * (A + 5), f"{given}: a batch of {B} sequences of {T} steps with {A + 2} input "
                            "units (the task's alphabet + 2)")


def make_batch(task: SerialRecall, batch_size: int, rng=None, delay=None, length=None):
    """A random batch: uniform letters, delays uniform on ``task.delays`` (or fixed ``delay``),
    lengths uniform on ``{task.min_length, ..., task.length}`` when the task sets
    ``min_length`` (or fixed ``length``; else every string has ``task.length`` letters).

    Returns ``(x, target, mask, strings, delays)`` (see :func:`encode`); ``strings`` has
    ``task.length`` columns, of which a string of length ``n`` uses the first ``n``.
    """
    _task(task)
    count("batch_size", batch_size, 1)
    longest = task.delays[1] if delay is None else count("a delay", delay)
    _check_fits(task.steps(longest), batch_size, task.alphabet, "task and batch_size")
    gen = as_generator(rng)
    strings = gen.integers(0, task.alphabet, (batch_size, task.length))
    if delay is None:
        delays = gen.integers(task.delays[0], task.delays[1] + 1, batch_size)
    else:
        delays = np.full(batch_size, count("a delay", delay))
    if length is not None:
        count("length", length, 1)
        if length > task.length:
            raise ValueError(f"length must be in [1, {task.length}] (the task's string length), "
                             f"got {length}")
        lengths = length
    elif task.min_length is not None:
        lengths = gen.integers(task.min_length, task.length + 1, batch_size)
    else:
        lengths = None
    return (*encode(task, strings, delays, lengths), strings, delays)


def make_bucketed_batch(task: SerialRecall, batch_size: int, rng=None):
    """A random batch whose sequences share one delay, drawn uniformly on ``task.delays``.

    A batch of mixed delays is padded to its longest sequence, and the padded steps
    cost as much as real ones (about 30% of the work at the paper's sizes); a batch of
    one delay has none. Over many batches every delay is drawn as often as with
    :func:`make_batch`; only which sequences share a batch changes.  Returns what
    :func:`make_batch` returns.
    """
    _task(task)
    gen = as_generator(rng)
    return make_batch(task, batch_size, gen, delay=int(gen.integers(task.delays[0], task.delays[1] + 1)))


def recall_scores(logits, target, mask) -> dict:
    """Accuracy of the recalled letters (argmax of the outputs at the recall steps).

    Returns ``symbol`` (fraction of recalled letters right), ``string`` (fraction
    of strings with every letter right) and ``correct`` (B, L) booleans.  A step whose
    logits are not all finite (a diverged model) is wrong, whatever its argmax.
    """
    dims = {}
    target = array("target", target, ("T", "B"), dims, dtype="int")
    mask = array("mask", mask, ("T", "B"), dims)
    logits = array("logits", logits, ("T", "B", None), dims, finite=False)
    if not np.all((mask == 0) | (mask == 1)):
        raise ValueError(f"mask must hold 0/1 values, got {mask[(mask != 0) & (mask != 1)][0].item()!r}")
    T, B = target.shape
    hit = (logits.argmax(axis=-1) == target) & np.isfinite(logits).all(axis=-1)  # NaN: no answer
    L = int(mask[:, 0].sum())
    if L == 0 or np.any(mask.sum(axis=0) != L):
        raise ValueError("mask: every sequence must have the same number of recall steps (> 0)")
    bb, tt = np.nonzero(mask.T)  # sequence by sequence, each in time order
    correct = hit[tt, bb].reshape(B, L)
    return {"symbol": float(correct.mean()), "string": float(correct.all(axis=1).mean()),
            "correct": correct}
