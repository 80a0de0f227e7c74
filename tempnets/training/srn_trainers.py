"""Training SRNs: epochs over a fixed list of strings, or online on a random string stream.

Papers: Servan-Schreiber, Cleeremans & McClelland (1991), section 2 (60,000
random strings, one update per letter) and section 3 (a fixed training set,
per-pattern updates, epochs); O'Connell (1995), chapter 4 (2.4 million random
strings per network, 20 networks per condition, learning rate 0.01, momentum
0.3, weights in [-1, 1]) and chapters 7-8 (BPTT(h, 1), PA-BPTT).  The learning
rules themselves are in :mod:`tempnets.models.bptt`.

Both trainers run ``R`` independent networks side by side (in parallel over
cores), in chunks of strings so that a progress bar can advance and
``KeyboardInterrupt`` is seen between chunks.  Network ``k`` draws everything
(initial weights, then string order or the random strings) from
``spawn(rng, R)[k]``; with an integer seed it is bit-for-bit the same network
whether trained alone or among ``R``, on any number of threads.

Strings sampled online follow a grammar's tables (``GrammarTables(symbol,
target, cumprob, start)``, see :mod:`tempnets.tasks.grammars`): from ``start``, draw
``u ~ U[0, 1)``, take the first arc with ``u < cumprob``, emit its symbol, go
to its target, stop after an arc with target ``-1``.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import numbers
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numba
import numpy as np

from ..models import bptt
from .._numerics.checks import DivergenceError, count, items, memory
from .progress import progress_bar
from .._numerics.random import as_generator, spawn
from ..models.srn import (SRNParams, _draw_params, as_flat_strings, check_attention, check_memory,
                  check_params, check_symbols, pa_attention)

__all__ = ["TrainConfig", "History", "DivergenceError", "TrainingForbidden", "no_training",
           "train_epochs", "train_online", "sample_strings", "bptt_gradient"]


class TrainingForbidden(RuntimeError):
    """A trainer was called inside :func:`no_training`."""


# why training is forbidden in the current context (None: allowed); a context variable, so
# that it is scoped to one `with no_training(...)` block and to its thread
_FORBIDDEN: contextvars.ContextVar = contextvars.ContextVar("tempnets_no_training", default=None)


@contextlib.contextmanager
def no_training(reason: str):
    """Within this block :func:`train_epochs` and :func:`train_online` raise
    :class:`TrainingForbidden` mentioning ``reason`` instead of training.

    :func:`tempnets.book.experiments.rederive` re-derives recorded claims inside it,
    so that a record lacking what its runner needs is an error, never an
    hour of silent retraining.
    """
    token = _FORBIDDEN.set(str(reason))
    try:
        yield
    finally:
        _FORBIDDEN.reset(token)


def _check_training_allowed(what: str) -> None:
    reason = _FORBIDDEN.get()
    if reason is not None:
        raise TrainingForbidden(f"{what} was called while {reason}; re-deriving never trains")


@dataclass(frozen=True)
class TrainConfig:
    """Network size, initialisation and learning rule.  Defaults: O'Connell (1995) ch. 4.

    Attributes
    ----------
    n_hidden : int
        Hidden units (15 in both papers' main runs).
    init_range : float
        Initial weights and biases uniform in ``[-init_range, init_range]``:
        1.0 (O'Connell), 0.5 (Servan-Schreiber et al., note 1).
    learning_rate : float
        eta: 0.01 (O'Connell); 0.01-0.02 (Servan-Schreiber et al.).
    momentum : float
        alpha in ``[0, 1)``: 0.3 (O'Connell); 0.5-0.9 (Servan-Schreiber et al.).
    h, h_prime : int
        BPTT(h, h') of Williams & Peng in O'Connell's unit-level counting
        (``1 <= h' <= h``).  ``h=2, h_prime=1`` is the SRN rule; BPTT(h, 1)
        backpropagates ``h - 2`` steps through the recurrent weights.
    period, phase : tuple of int or None
        Attention pattern of the hidden units (``None``: all attentive; see
        :func:`tempnets.models.srn.pa_attention`).
    loss : {"sse", "xent"}
        Squared error (the papers) or cross-entropy on the logistic outputs.
    reset_context : bool
        Reset context and PA positions at every string start (the papers).
    context_init : float
        The context after a reset, i.e. the activation every hidden unit holds
        before its first update, in ``[0, 1]``: 0.0 (Servan-Schreiber et al.;
        our default) or 0.5 (O'Connell: the PA units of Figure 4.4 hold 0.5
        until their first attentive step).
    n_in, n_out : int or None
        Input/output units; ``None``: the number of symbols of the data.
    """

    n_hidden: int = 15
    init_range: float = 1.0
    learning_rate: float = 0.01
    momentum: float = 0.3
    h: int = 2
    h_prime: int = 1
    period: tuple | None = None
    phase: tuple | None = None
    loss: str = "sse"
    reset_context: bool = True
    context_init: float = 0.0
    n_in: int | None = None
    n_out: int | None = None

    @classmethod
    def servan_schreiber(cls, **changes) -> "TrainConfig":
        """Servan-Schreiber et al. (1991), note 1: r = 0.5, eta = 0.01, alpha = 0.5.

        Their ranges: eta 0.01-0.02, alpha 0.5-0.9.
        """
        return dataclasses.replace(cls(init_range=0.5, learning_rate=0.01, momentum=0.5), **changes)

    @classmethod
    def pa(cls, n_normal: int = 8, n_pa: int = 7, period: int = 7, **changes) -> "TrainConfig":
        """O'Connell's PA network: ``n_normal`` normal + ``n_pa`` PA units (Figure 4.1 pattern).

        O'Connell's defaults (chapter 4) with every string starting from the
        context 0.5, as in the thesis (its Figure 4.4 shows the PA units at 0.5
        before their first attentive step); ``changes`` override any field.
        """
        p, q = pa_attention(n_normal, n_pa, period)
        return dataclasses.replace(cls(n_hidden=n_normal + n_pa, period=tuple(int(v) for v in p),
                                       phase=tuple(int(v) for v in q), context_init=0.5),
                                   **changes)

    def validate(self) -> "TrainConfig":
        """Raise ``ValueError``/``TypeError`` naming the bad field and what is allowed."""
        def integer(name, v, lo):
            if not isinstance(v, numbers.Integral) or isinstance(v, bool):
                raise TypeError(f"{name} must be an integer, got {v!r}")
            if v < lo:
                raise ValueError(f"{name} must be >= {lo}, got {v}")

        def real(name, v):
            if not isinstance(v, numbers.Real) or isinstance(v, bool) or not np.isfinite(v):
                raise TypeError(f"{name} must be a finite real number, got {v!r}")

        integer("n_hidden", self.n_hidden, 1)
        check_memory(self.n_hidden ** 2, f"TrainConfig: n_hidden={self.n_hidden} (its recurrent weights)")
        integer("h", self.h, 1)
        integer("h_prime", self.h_prime, 1)
        if self.h_prime > self.h:
            raise ValueError(f"h_prime must satisfy 1 <= h_prime <= h; got h={self.h}, "
                             f"h_prime={self.h_prime}")
        real("init_range", self.init_range)
        if self.init_range <= 0:
            raise ValueError(f"init_range (r) must be > 0, got {self.init_range}")
        real("learning_rate", self.learning_rate)
        if self.learning_rate < 0:
            raise ValueError(f"learning_rate must be >= 0, got {self.learning_rate}")
        real("momentum", self.momentum)
        if not 0 <= self.momentum < 1:
            raise ValueError(f"momentum must be in [0, 1), got {self.momentum}")
        if self.loss not in ("sse", "xent"):
            raise ValueError(f"loss must be 'sse' or 'xent', got {self.loss!r}")
        if not isinstance(self.reset_context, bool):
            raise TypeError(f"reset_context must be True or False, got {self.reset_context!r}")
        real("context_init", self.context_init)
        if not 0 <= self.context_init <= 1:
            raise ValueError(f"context_init must be in [0, 1] (a logistic unit's activation), "
                             f"got {self.context_init}")
        for name in ("n_in", "n_out"):
            v = getattr(self, name)
            if v is not None:
                integer(name, v, 1)
        check_attention(self.period, self.phase, self.n_hidden)
        return self


@dataclass
class History:
    """What a training run returns.

    Attributes
    ----------
    params : SRNParams
        Final weights, stacked ``(R, ...)``.
    strings_seen : ndarray
        ``(n_chunks,)``: strings each network had trained on at the end of each chunk.
    sq_error : ndarray
        ``(R, n_chunks)``: mean over the chunk's steps of ``sum_o e_o^2`` (the
        error measured online, before each step's update).
    n_steps : ndarray
        ``(R,)``: symbol steps (updates of the SRN rule) each network trained on.
    wall_time : float
        Seconds.
    config : TrainConfig
    """

    params: SRNParams
    strings_seen: np.ndarray
    sq_error: np.ndarray
    n_steps: np.ndarray
    wall_time: float
    config: TrainConfig

    @property
    def n_networks(self) -> int:
        return self.params.W_ih.shape[0]


# ----------------------------------------------------------------------------- helpers


def _check_config_type(config):
    if not isinstance(config, TrainConfig):
        raise TypeError(f"config must be a TrainConfig, got {type(config).__name__}")


def _start(config, n_in, n_out, n_networks, rng, params):
    """Validate, spawn one generator per network and build initial parameters (copies)."""
    if not isinstance(config, TrainConfig):
        raise TypeError(f"config must be a TrainConfig, got {type(config).__name__}")
    config.validate()
    if isinstance(n_networks, numbers.Integral) and not isinstance(n_networks, bool):
        ids = range(count("n_networks", n_networks, 1))
    else:
        try:
            ids = [count("n_networks (a network index)", i) for i in n_networks]
        except TypeError:
            raise TypeError("n_networks must be an int R (networks 0..R-1) or a sequence of "
                            f"network indices, got {n_networks!r}") from None
        if not ids:
            raise ValueError("n_networks: the sequence of network indices is empty")
    # (len(range) and max(range) fail or loop on a huge range: its stop is R)
    R, top = (ids.stop, ids.stop - 1) if isinstance(ids, range) else (len(ids), max(ids))
    nh = config.n_hidden
    B = max(config.h, config.h_prime) + 1
    ring = B * (4 * nh + n_out + 1)
    # what the kernel makes of each network while it trains (bptt._train_one_online): its
    # weights and momentum as padded rows (width S = n_hidden + n_in, padded), and a ring of
    # B input rows; counted, since they are as large as the weights themselves
    P = (nh + 4) // 4 * 4  # (the widths of srn._row_widths)
    S = (P + n_in + 3) // 4 * 4
    workspace = 2 * (nh * S + n_out * P) + B * S
    # weights (3 copies: momentum, and the drawn ones while they are stacked), the kernels' ring
    # buffers and workspace of every network, and a random generator (about 2 KB) for every
    # index up to the largest
    weights = nh * (n_in + nh + 1 + n_out) + n_out
    memory(R * (3 * weights + ring + workspace) + 256 * (top + 1),
                      f"training {R} networks of {n_in}-{nh}-{n_out} units (n_in-n_hidden-n_out; "
                      f"largest index {top})")
    children = spawn(rng, top + 1)
    gens = [children[i] for i in ids]
    if params is None:
        nets = [_draw_params(g, n_in, nh, n_out, float(config.init_range)) for g in gens]
        p = SRNParams(*(np.stack(a) for a in zip(*nets)))
    else:
        p = _stack_params(params, R, n_in, nh, n_out)
    return R, gens, p


def _stack_params(params, R, n_in, nh, n_out):
    """``params`` checked and copied as a C-contiguous stack of ``R`` networks."""
    p = check_params(params)
    if p.W_ih.shape[0] == 1 and R > 1:
        p = SRNParams(*(np.repeat(a, R, axis=0) for a in p))
    want = [(R, nh, n_in), (R, nh, nh), (R, nh), (R, n_out, nh), (R, n_out)]
    for name, a, w in zip(SRNParams._fields, p, want):
        if a.shape != w:
            raise ValueError(f"params.{name} has shape {a.shape}; expected {w} "
                             f"(R={R}, n_in={n_in}, n_hidden={nh}, n_out={n_out})")
    return SRNParams(*(np.array(a, dtype=np.float64, order="C") for a in p))


_USE_FAST = True  # h' = 1: the fused kernel (tests switch it off to compare the two kernels)


class _Engine:
    """Momentum buffers, ring buffers and counters of R networks (the kernels' state)."""

    def __init__(self, p: SRNParams, config: TrainConfig):
        R, nh, n_in = p.W_ih.shape
        n_out = p.W_ho.shape[1]
        B = max(config.h, config.h_prime) + 1
        period, phase = check_attention(config.period, config.phase, nh)
        self.p, self.config, self.period, self.phase = p, config, period, phase
        self.V = [np.zeros_like(a) for a in p]
        self.rings = [np.zeros((R, B, nh)) for _ in range(4)] + [np.zeros((R, B, n_out)),
                                                                   np.zeros((R, B), np.int64)]
        self.cnt = np.tile((period - phase) % period, (R, 1))
        self.istate = np.zeros((R, 2), np.int64)
        self.status = np.zeros((R, 3), np.int64)

    def run(self, flat, offsets, order, item0, apply=True):
        """Train every network on its ``order`` row; return per-network ``[sum e^2, steps]``."""
        c = self.config
        R = self.p.W_ih.shape[0]
        stats = np.zeros((R, 2))
        if _USE_FAST and apply and c.h_prime == 1:
            bptt._train_many_online(*self.p, *self.V, flat, offsets, order, c.h,
                                    float(c.learning_rate), float(c.momentum), c.reset_context,
                                    c.loss == "xent", self.period, self.phase,
                                    float(c.context_init), *self.rings,
                                    self.cnt, self.istate, stats, self.status, item0)
        else:
            bptt._train_many(*self.p, *self.V, flat, offsets, order, c.h, c.h_prime,
                             float(c.learning_rate), float(c.momentum), c.reset_context,
                             c.loss == "xent", self.period, self.phase,
                             float(c.context_init), *self.rings, self.cnt,
                             self.istate, stats, self.status, item0, apply)
        bad = np.flatnonzero(self.status[:, 0])
        if bad.size:
            k = int(bad[0])
            code, string, step = (int(v) for v in self.status[k])
            what = "non-finite output activations" if code == 1 else "non-finite weights"
            raise DivergenceError(
                f"network {k} diverged at string {string} (step {step} of that string): {what}; "
                f"try a smaller learning_rate (now {c.learning_rate}) or momentum "
                f"(now {c.momentum})")
        return stats


def _finish(engine, seen, errs, steps, t0, config):
    err = np.array(errs).T if errs else np.zeros((engine.p.W_ih.shape[0], 0))
    return History(params=SRNParams(*(np.array(a) for a in engine.p)),
                   strings_seen=np.array(seen, dtype=np.int64), sq_error=err,
                   n_steps=steps, wall_time=time.perf_counter() - t0, config=config)


# ----------------------------------------------------------------------------- epochs


def train_epochs(strings, offsets=None, *, n_epochs: int, config: TrainConfig = TrainConfig(),
                 n_networks=1, rng=None, params: SRNParams | None = None,
                 shuffle: bool = True, chunk_strings: int = 20000,
                 progress: bool | None = None) -> History:
    """Train on a fixed list of strings for ``n_epochs`` epochs, updating after every symbol.

    Servan-Schreiber et al. (1991) section 3: the training set is presented
    string by string, per-pattern (online) updates.

    Parameters
    ----------
    strings, offsets
        The training strings, ``(flat, offsets)`` or a list of 1-D ``int64``
        arrays (see :func:`tempnets.models.srn.as_flat_strings`).
    n_epochs : int
        Passes over the training set.
    config : TrainConfig
        Network and rule (default: O'Connell's SRN rule settings).
    n_networks : int or sequence of int
        ``R`` independent replications (networks ``0 .. R-1``), or the indices
        of the networks to train (``[3]``: network 3 of the seed, alone).
    rng : numpy.random.Generator, int or None
        Network ``k`` uses ``spawn(rng, R)[k]``: initial weights (unless
        ``params`` is given), then one permutation per epoch if ``shuffle``.
    params : SRNParams, optional
        Initial weights (one network, copied to all, or a stack of ``R``);
        not modified.  Momentum starts at zero.
    shuffle : bool
        Random string order in each epoch (per network); else the given order.
    chunk_strings : int
        Strings per network between progress updates (rounded to whole epochs).
    progress : bool or None
        See :func:`tempnets.training.progress.progress_enabled`.

    Returns
    -------
    History
        One chunk entry per group of epochs.
    """
    _check_training_allowed("train_epochs")
    _check_config_type(config)
    config.validate()
    if params is not None:
        check_params(params)
    flat, offsets = as_flat_strings(strings, offsets)
    n_str = offsets.size - 1
    if n_str < 1:
        raise ValueError("need at least one training string")
    n_epochs = count("n_epochs", n_epochs)
    chunk_strings = count("chunk_strings", chunk_strings, 1)
    n_sym = int(flat.max()) + 1 if flat.size else 1
    n_in = config.n_in or (params.sizes[0] if params is not None else n_sym)
    n_out = config.n_out or (params.sizes[2] if params is not None else n_sym)
    check_symbols(flat, offsets, n_in, n_out)
    t0 = time.perf_counter()
    R, gens, p = _start(config, n_in, n_out, n_networks, rng, params)
    engine = _Engine(p, config)
    per_chunk = max(1, chunk_strings // n_str)
    seen, errs = [], []
    steps = np.zeros(R, np.int64)
    done = 0
    with progress_bar(n_epochs * n_str * R, desc=f"training {R} SRN(s)", progress=progress,
                      unit="strings") as bar:
        while done < n_epochs:
            k = min(per_chunk, n_epochs - done)
            order = np.empty((R, k * n_str), np.int64)
            for r, g in enumerate(gens):
                for e in range(k):
                    order[r, e * n_str:(e + 1) * n_str] = (g.permutation(n_str) if shuffle
                                                           else np.arange(n_str))
            stats = engine.run(flat[None], offsets[None], order, done * n_str)
            done += k
            seen.append(done * n_str)
            errs.append(stats[:, 0] / np.maximum(stats[:, 1], 1))
            steps += stats[:, 1].astype(np.int64)
            bar.update(k * n_str * R)
    return _finish(engine, seen, errs, steps, t0, config)


def bptt_gradient(params: SRNParams, strings, offsets=None, *,
                  config: TrainConfig = TrainConfig()) -> SRNParams:
    r"""The sum over all BPTT(h, h') / PA updates of ``config``'s rule, at *fixed* weights.

    What :func:`train_epochs` would change (divided by ``-learning_rate``,
    without momentum) if the weights did not move during the pass over
    ``strings``: the rule's (truncated) gradient of the summed error
    :math:`\sum_s \frac12 \sum_o e_o(s)^2`.  With ``h`` at least the string
    length and ``h_prime`` its number of steps it is the exact gradient; the
    chapters check it with :mod:`tempnets.models.gradcheck`.  ``learning_rate`` and
    ``momentum`` of ``config`` are ignored.

    Returns
    -------
    SRNParams
        Gradient arrays shaped like ``params`` (one network, or a stack).
    """
    check_params(params)
    _check_config_type(config)
    config.validate()
    flat, offsets = as_flat_strings(strings, offsets)
    n_in, nh, n_out = params.sizes
    if config.n_hidden != nh:
        config = dataclasses.replace(config, n_hidden=nh)
    check_symbols(flat, offsets, n_in, n_out)
    p = params.stack()
    config = dataclasses.replace(config, learning_rate=1.0, momentum=0.0, n_in=n_in, n_out=n_out)
    R, _, p = _start(config, n_in, n_out, p.W_ih.shape[0], None, p)
    engine = _Engine(p, config)
    engine.config = dataclasses.replace(config, momentum=1.0)  # V accumulates every update
    order = np.tile(np.arange(offsets.size - 1, dtype=np.int64), (R, 1))
    engine.run(flat[None], offsets[None], order, 0, apply=False)
    grad = SRNParams(*(-v for v in engine.V))
    return grad if params.stacked else grad.network(0)


# ----------------------------------------------------------------------------- online


def _check_tables(tables):
    try:
        symbol, target, cumprob, start = (tables.symbol, tables.target, tables.cumprob,
                                          tables.start)
    except AttributeError:
        raise TypeError("tables must have fields symbol, target, cumprob, start "
                        "(a GrammarTables from grammar.tables())") from None
    symbol = np.asarray(symbol)
    target = np.asarray(target)
    cumprob = np.asarray(cumprob, dtype=np.float64)
    if symbol.ndim != 2 or symbol.shape != target.shape or symbol.shape != cumprob.shape:
        raise ValueError(f"tables.symbol, target, cumprob must be 2-D arrays of one shape "
                         f"(n_states, max_arcs); got {symbol.shape}, {target.shape}, "
                         f"{cumprob.shape}")
    n_states = symbol.shape[0]
    if not isinstance(start, numbers.Integral) or not 0 <= start < n_states:
        raise ValueError(f"tables.start must be a state index in 0..{n_states - 1}, got {start!r}")
    if np.any(symbol < -1) or np.any(target < -1) or np.any(target >= n_states):
        raise ValueError("tables: symbols must be >= -1 (-1 = no arc) and targets in "
                         f"-1..{n_states - 1}")
    for s in range(n_states):
        real = symbol[s] >= 0
        n = int(real.sum())
        if n and not np.all(real[:n]):
            raise ValueError(f"tables: state {s} has padding (-1) before a real arc")
        if n == 0:
            if s == start or np.any(target[symbol >= 0] == s):
                raise ValueError(f"tables: state {s} is entered but has no outgoing arc")
            continue
        c = cumprob[s, :n]
        if np.any(np.diff(c) < 0) or c[0] < 0 or abs(c[-1] - 1.0) > 1e-9:
            raise ValueError(f"tables: cumprob of state {s} must be non-decreasing and end "
                             f"at 1.0 on its last arc, got {c}")
    if not np.any(target[symbol >= 0] == -1):
        raise ValueError("tables: no arc ends a string (target -1)")
    # the sampler's form: arc k is taken when x >= edges[k - 1] and x < edges[k]; the last
    # arc's edge is 2 (x < 1 always), so that it also takes what rounding leaves below 1
    edges = np.where(np.arange(symbol.shape[1]) < (symbol >= 0).sum(axis=1, keepdims=True) - 1,
                     cumprob, 2.0)
    return (symbol.astype(np.int64), target.astype(np.int64), edges, int(start))


@numba.njit(cache=True, nogil=True)
def _sample_kernel(symbol, target, edges, start, u, n_want, done, pos, flat, offsets,
                   max_len):
    """Append whole strings to ``flat``/``offsets`` using uniforms ``u`` in order.

    From state ``st`` a uniform ``x`` takes the first arc whose cumulative
    probability exceeds ``x`` (the last arc if none does): the number of
    ``edges[st]`` that ``x`` reaches (see :func:`_check_tables`), counted without
    branches, which a random choice would mispredict half the time.

    Returns ``(done, pos, used, code)``: code 0 all wanted strings made, 1 out
    of uniforms, 2 out of room in ``flat``, 3 a string longer than ``max_len``.
    A string that does not fit is rolled back (its uniforms are not used).
    """
    used = 0
    # while strings wanted: walk the grammar from start, one uniform per arc
    while done < n_want:
        st = start
        p0, u0 = pos, used
        while True:
            if used >= u.shape[0]:
                return done, p0, u0, 1
            if pos >= flat.shape[0]:
                return done, p0, u0, 2
            if pos - p0 >= max_len:
                return done, p0, u0, 3
            x = u[used]
            used += 1
            k = 0
            for j in range(edges.shape[1]):
                k += x >= edges[st, j]
            flat[pos] = symbol[st, k]
            pos += 1
            st = target[st, k]
            if st < 0:
                break
        done += 1
        offsets[done] = pos
    return done, pos, used, 0


_U_BLOCK = 4096


def _sample_into(tables, gen, u, n, max_len, flat, offsets, done=0, pos=0):
    """Strings ``done .. n - 1`` for one network, into the buffers ``flat``/``offsets``.

    Uses the uniforms ``u`` first, then draws more from ``gen``.  Returns
    ``(done, pos, leftover uniforms, full)``; ``full`` means ``flat`` ran out of
    room (call again with a larger buffer holding the first ``pos`` symbols).
    """
    symbol, target, edges, start = tables
    while True:
        done, pos, used, code = _sample_kernel(symbol, target, edges, start, u, n, done, pos,
                                               flat, offsets, max_len)
        u = u[used:]
        if code == 0:
            return done, pos, u, False
        if code == 1:
            # enough for the strings still wanted (about 10 uniforms a string in the
            # grammars here); the stream is the same whatever the block sizes
            u = np.concatenate([u, gen.random(max(_U_BLOCK, 12 * (n - done)))])
        elif code == 2:
            return done, pos, u, True
        else:
            raise ValueError(f"a sampled string exceeded max_length={max_len} symbols; "
                             "does every state of the grammar lead to an end arc?")


def _sample_for(tables, gen, leftover, n, max_len, cap):
    """``n`` strings for one network; returns ``(flat, offsets, leftover uniforms)``."""
    flat = np.empty(max(cap, 16), np.int64)
    offsets = np.zeros(n + 1, np.int64)
    done, pos, u, full = _sample_into(tables, gen, leftover, n, max_len, flat, offsets)
    while full:
        flat = np.concatenate([flat, np.empty(flat.size, np.int64)])
        done, pos, u, full = _sample_into(tables, gen, u, n, max_len, flat, offsets, done, pos)
    return flat[:pos], offsets, u


MAX_INDEX = int(np.iinfo(np.int64).max)


def _max_length(value, minimum):
    n = count("max_length", value, minimum)
    if n > MAX_INDEX:
        raise ValueError(f"max_length must be at most {MAX_INDEX} (an int64), got {n}")
    return n


def sample_strings(tables, n_strings: int, rng=None, *, max_length: int = 100_000):
    """Sample ``n_strings`` strings from grammar tables (as in training); ``(flat, offsets)``.

    Uses the same procedure (and the same stream of uniforms) as
    :func:`train_online`, so ``sample_strings(t, n, spawn(seed, R)[k])`` after
    the initial weights shows the strings network ``k`` trained on.
    """
    t = _check_tables(tables)
    gen = as_generator(rng)
    n_strings = count("n_strings", n_strings)
    check_memory(17 * n_strings, f"sample_strings: n_strings={n_strings:,} strings")
    flat, offsets, _ = _sample_for(t, gen, np.zeros(0), n_strings,
                                   _max_length(max_length, 1), 16 * n_strings)
    return flat, offsets


def train_online(tables, n_strings: int, *, config: TrainConfig = TrainConfig(),
                 n_networks=1, rng=None, params: SRNParams | None = None,
                 chunk_strings: int = 5000, max_length: int = 100_000,
                 progress: bool | None = None) -> "History | list[History]":
    """Train on ``n_strings`` random strings drawn from grammar tables, updating after every symbol.

    O'Connell (1995) ch. 4: 2.4 million random strings per network;
    Servan-Schreiber et al. (1991) section 2: 60,000.

    Parameters
    ----------
    tables : GrammarTables
        ``symbol``, ``target``, ``cumprob`` (``(n_states, max_arcs)``) and
        ``start`` (see the module docstring); e.g. ``grammar.tables()``.
    n_strings : int
        Strings per network.
    config : TrainConfig or sequence of TrainConfig
        As in :func:`train_epochs`.  A sequence trains one set of networks per
        config side by side on strings sampled once: network ``k`` of every
        config starts from the same weights and sees the same strings, exactly
        as if trained alone (O'Connell's conditions share strings this way).
        The configs must agree on the network's sizes and ``init_range``.
    n_networks, progress
        As in :func:`train_epochs`.
    params : SRNParams, sequence of SRNParams, or None
        Initial weights (as in :func:`train_epochs`); with a sequence of
        configs, one per config (or one for all).
    rng : numpy.random.Generator, int or None
        Network ``k`` uses ``spawn(rng, R)[k]``: initial weights (unless
        ``params``), then uniforms for the strings, drawn in blocks; the
        strings do not depend on ``chunk_strings``.
    chunk_strings : int
        Strings per network between progress updates (and history entries).
    max_length : int
        Longest string allowed (guards against grammars that never end).

    Returns
    -------
    History, or a list of History (one per config) when ``config`` is a sequence.
    """
    _check_training_allowed("train_online")
    configs = list(config) if isinstance(config, (list, tuple)) else [config]
    if not configs:
        raise ValueError("config: the sequence of TrainConfigs is empty")
    for c in configs:
        _check_config_type(c)
        c.validate()
    shape = [(c.n_in, c.n_hidden, c.n_out, c.init_range) for c in configs]
    if len(set(shape)) > 1:
        raise ValueError("configs trained side by side must agree on n_in, n_hidden, n_out and "
                         f"init_range; got {shape}")
    inits = [params] * len(configs) if params is None or isinstance(params, SRNParams) \
        else items("params", params, "SRNParams, one per config")
    if len(inits) != len(configs) or len({p is None for p in inits}) > 1:
        raise ValueError(f"params: give None, one SRNParams, or one per config ({len(configs)}); "
                         f"got {len(inits)} entries")
    for p in inits:
        if p is not None:
            check_params(p)
    t = _check_tables(tables)
    n_strings = count("n_strings", n_strings)
    chunk_strings = count("chunk_strings", chunk_strings, 1)
    max_length = _max_length(max_length, 2)
    n_sym = int(t[0].max()) + 1
    first = inits[0]
    n_in = configs[0].n_in or (first.sizes[0] if first is not None else n_sym)
    n_out = configs[0].n_out or (first.sizes[2] if first is not None else n_sym)
    if n_sym > min(n_in, n_out):
        raise ValueError(f"the grammar emits symbol indices up to {n_sym - 1} but the network "
                         f"has {n_in} inputs and {n_out} outputs")
    t0 = time.perf_counter()
    R, gens, p = _start(configs[0], n_in, n_out, n_networks, rng, first)
    engines = [_Engine(p, configs[0])]
    for c, p0 in zip(configs[1:], inits[1:]):  # the same start: the first config's copies
        c.validate()
        pc = SRNParams(*(a.copy() for a in p)) if p0 is None else \
            _stack_params(p0, R, n_in, c.n_hidden, n_out)
        engines.append(_Engine(pc, c))
    leftovers = [np.zeros(0) for _ in range(R)]
    # one buffer for every chunk's strings (row r: network r's), grown when a chunk needs it
    k = min(chunk_strings, n_strings)
    flat = np.zeros((R, 12 * k), np.int64)
    offsets = np.zeros((R, k + 1), np.int64)
    seen = []
    errs = [[] for _ in engines]
    steps = [np.zeros(R, np.int64) for _ in engines]
    done = 0

    def sample(r):
        return _sample_into(t, gens[r], leftovers[r], k, max_length, flat[r], offsets[r])

    # each network's strings come from its own generator: threads cannot change them
    with progress_bar(n_strings * R * len(engines), desc=f"training {R * len(engines)} SRN(s)",
                      progress=progress, unit="strings") as bar, \
            ThreadPoolExecutor(min(R, numba.get_num_threads())) as pool:
        while done < n_strings:
            if n_strings - done < k:
                k = n_strings - done
                offsets = np.zeros((R, k + 1), np.int64)
            sampled_width = flat.shape[1]
            for r, (n_done, pos, u, full) in enumerate(list(pool.map(sample, range(R)))):
                width = sampled_width
                while full:  # network r filled a row of `width` symbols
                    if flat.shape[1] == width:
                        flat = np.concatenate([flat, np.zeros_like(flat)], axis=1)
                    width = flat.shape[1]
                    n_done, pos, u, full = _sample_into(t, gens[r], u, k, max_length, flat[r],
                                                        offsets[r], n_done, pos)
                leftovers[r] = u
            order = np.tile(np.arange(k, dtype=np.int64), (R, 1))
            for e, engine in enumerate(engines):
                stats = engine.run(flat, offsets, order, done)
                errs[e].append(stats[:, 0] / np.maximum(stats[:, 1], 1))
                steps[e] += stats[:, 1].astype(np.int64)
                bar.update(k * R)
            done += k
            seen.append(done)
    out = [_finish(e, seen, err, st, t0, e.config) for e, err, st in zip(engines, errs, steps)]
    return out[0] if isinstance(config, TrainConfig) else out
