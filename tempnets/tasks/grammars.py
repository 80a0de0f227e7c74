"""Finite-state grammars: Reber, embedded Reber and their variants.

Sources
-------
* Servan-Schreiber, Cleeremans & McClelland (1991), *Graded state machines*
  (``papers/004``): the Reber grammar (section 2.1, Figure 3), the 21 training
  strings of length 3–8 (section 3.1, Figure 12) and the embedded sub-grammar
  of section 5.2 (Figure 18, symmetrical and asymmetrical versions).
* O'Connell (1995), *Periodically attentive units* (``papers/003``): the
  embedded Reber grammar (chapter 1, Figure 1.3), the long-string generator
  (chapter 5, Figure 5.1) and the time-varying indicator grammar (chapter 6,
  Figure 6.1).

All figures of grammars are missing from our copies; every grammar here is
rebuilt from the text, and each constructor's docstring says how.

A grammar is a list of arcs ``(source, symbol, target, probability)``.  *Every*
symbol is emitted by an arc, the begin symbol ``B`` and the end symbol ``E``
included: the start state emits ``B``; an arc whose target is :data:`END`
emits the last symbol (``E``) and ends the string.

Strings
-------
User-facing strings are always **full strings**, with their ``B`` and ``E``
(``"BTXSE"``; prefixes such as ``"BTX"`` start with ``B``).  The papers count
*letters*, which excludes the outer ``B`` and ``E``: :func:`n_letters` is
``len(s) - 2`` (the inner ``B``/``E`` of an embedded Reber string count as
letters).  ``s[1:-1]`` gives the paper's spelling (``"TXS"``).

=====================  ==============================================
paper                  code
=====================  ==============================================
node #k (Figure 3)     state ``"#k"`` of :func:`reber`
begin / end bits       symbols ``B`` / ``E`` (alphabet ``BTSPXVE``)
string of n letters    full string of ``n + 2`` symbols
=====================  ==============================================

Sampling contract (shared with the compiled training engine)
------------------------------------------------------------
:meth:`FiniteStateGrammar.tables` gives arrays ``symbol``, ``target``,
``cumprob`` (shape ``(n_states, max_arcs)``) and ``start``.  A string is drawn
by: ``state = start``; repeat { draw one ``u ~ U[0, 1)``; take the first arc
``k`` with ``u < cumprob[state, k]``; emit ``symbol[state, k]``;
``state = target[state, k]`` } until the arc taken had target ``-1``.  One
uniform is drawn for **every** arc step, also in states with a single arc, so
that a kernel and :meth:`FiniteStateGrammar.strings_from_uniforms` consume the
same stream.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import namedtuple
from typing import NamedTuple

import numpy as np

from tempnets._numerics.checks import count, is_finite_real, real
from tempnets._numerics.random import as_generator

__all__ = ["END", "REBER_ALPHABET", "Arc", "SERVAN_SCHREIBER_TRAINING", "GrammarTables",
           "n_letters", "FiniteStateGrammar", "reber", "embedded_reber",
           "long_embedded_reber", "time_varying_embedded_reber", "thesis_embedded_reber",
           "embedded_subgrammar", "generalisation_strings", "check_grammar", "check_strings"]

END = None
"""Target of an arc that ends the string."""

REBER_ALPHABET = "BTSPXVE"

MAX_REJECTIONS = 1_000_000
""":meth:`FiniteStateGrammar.sample` refuses length bounds met by fewer than one random string in this many."""

Arc = namedtuple("Arc", "source symbol target prob")
Arc.__doc__ = "One arc: from state ``source`` emit ``symbol``, go to ``target`` (``END`` ends)."


class GrammarTables(NamedTuple):
    """Array form of a grammar for compiled samplers (see the module docstring).

    Attributes
    ----------
    symbol : ndarray of int64, shape (n_states, max_arcs)
        Symbol index emitted by each arc; ``-1`` pads missing arcs.
    target : ndarray of int64, shape (n_states, max_arcs)
        Next state of each arc; ``-1`` means the string ends after this arc
        (and pads missing arcs).
    cumprob : ndarray of float64, shape (n_states, max_arcs)
        Cumulative arc probabilities per state; the last real arc is exactly
        1.0 and padding is 1.0 (never reached, since ``u < 1``).
    start : int
        Index of the start state.
    """

    symbol: np.ndarray
    target: np.ndarray
    cumprob: np.ndarray
    start: int


def n_letters(string: str) -> int:
    """Number of letters of a full string: its length without the outer B and E.

    Raises
    ------
    TypeError
        If ``string`` is not a str.
    ValueError
        If it is not a full string (``"B" ... "E"``, at least those two symbols).
    """
    if not isinstance(string, str):
        raise TypeError(f"string must be a str, got {type(string).__name__} ({string!r})")
    if len(string) < 2 or string[0] != "B" or string[-1] != "E":
        raise ValueError(f"n_letters needs a full string, B ... E; got {string!r}")
    return len(string) - 2


def _check_arcs(arcs) -> tuple:
    """``arcs`` as a tuple of :class:`Arc` after checking each is ``(source, symbol, target,
    prob)``: states named by str (``target`` may be :data:`END`), one symbol, a real ``prob``."""
    if isinstance(arcs, (str, bytes, dict)) or not hasattr(arcs, "__iter__"):
        raise TypeError(f"arcs must be a tuple of (source, symbol, target, prob), got {arcs!r:.80}")
    out = []
    for i, a in enumerate(arcs):
        if isinstance(a, (str, bytes, dict)) or not hasattr(a, "__len__") or len(a) != 4:
            raise TypeError(f"arcs[{i}] must be (source, symbol, target, prob), got {a!r:.80}")
        a = Arc(*a)
        if not (isinstance(a.source, str) and isinstance(a.symbol, str) and len(a.symbol) == 1
                and (a.target is END or isinstance(a.target, str)) and is_finite_real(a.prob)):
            raise TypeError(f"arcs[{i}] must be (source str, one-letter symbol, target str or END, "
                            f"probability), got {a!r:.80}")
        out.append(a)
    return tuple(out)


class _Sampling:
    """Drawing strings: the papers' training and test sets are random walks through the
    grammar, one uniform per arc (the contract in the module docstring).  A part of
    :class:`FiniteStateGrammar`, which holds the arcs these methods walk."""

    def strings_from_uniforms(self, u, n: int | None = None) -> tuple[list, int]:
        """Walk the grammar consuming the uniforms ``u`` in order (the reference sampler).

        Parameters
        ----------
        u : array_like of float, 1-D, values in [0, 1)
            The uniform stream; one value per arc step (see module docstring).
        n : int, optional
            Stop after ``n`` strings; default: as many complete strings as ``u`` allows.

        Returns
        -------
        strings : list of str
            Complete full strings, in order.
        used : int
            Number of uniforms consumed by these strings.
        """
        u = np.asarray(u, dtype=np.float64)
        if u.ndim != 1 or (u.size and (u.min() < 0.0 or u.max() >= 1.0)):
            raise ValueError("u must be a 1-D array of uniforms in [0, 1)")
        t = self.tables()
        sym, tgt, cum = t.symbol.tolist(), t.target.tolist(), t.cumprob.tolist()
        strings, used, pos, uu = [], 0, 0, u.tolist()
        while (n is None or len(strings) < n) and pos < len(uu):
            state, out = t.start, []
            while state != -1 and pos < len(uu):
                x, row, k = uu[pos], cum[state], 0
                pos += 1
                while not x < row[k]:
                    k += 1
                out.append(sym[state][k])
                state = tgt[state][k]
            if state != -1:
                break  # ran out of uniforms mid-string
            strings.append("".join(self.alphabet[i] for i in out))
            used = pos
        return strings, used

    def sample(self, n: int, rng=None, min_letters: int | None = None,
               max_letters: int | None = None, distinct: bool = False) -> list:
        """Draw ``n`` random strings (full strings, with B and E).

        Strings are generated one after another from the stream of uniforms
        ``rng.random(4096)``, ``rng.random(4096)``, ... exactly as
        :meth:`strings_from_uniforms` walks it; a string whose letter count
        (:func:`n_letters`) is outside ``[min_letters, max_letters]`` is walked
        to its end and discarded (rejection sampling).

        Parameters
        ----------
        n : int
            Number of strings, ``n >= 0``.
        rng : numpy.random.Generator, int or None
            See :func:`tempnets._numerics.random.as_generator`.
        min_letters, max_letters : int, optional
            Inclusive bounds on the number of letters.
        distinct : bool
            Skip strings already drawn, until ``n`` different strings are
            found (O'Connell's test sets: "duplicate test strings were
            removed").  Raises if the grammar has fewer than ``n`` strings in
            the length bounds.

        Raises
        ------
        ValueError
            Before drawing, if no string has ``min_letters`` to
            ``max_letters`` letters, if fewer than one random string in
            :data:`MAX_REJECTIONS` has (rejection sampling would run for
            hours), or, with ``distinct``, if fewer than ``n`` strings do.
        """
        count("n", n)
        lo = 0 if min_letters is None else count("min_letters", min_letters)
        hi = None if max_letters is None else count("max_letters", max_letters)
        if hi is not None and hi < lo:
            raise ValueError(f"max_letters ({hi}) < min_letters ({lo})")
        self._check_sampleable(n, lo, hi, distinct)
        rng = as_generator(rng)
        out, buf = [], np.empty(0)
        while len(out) < n:
            buf = np.concatenate([buf, rng.random(4096)])
            strings, used = self.strings_from_uniforms(buf)
            buf = buf[used:]
            out += [s for s in strings if lo <= n_letters(s) and (hi is None or n_letters(s) <= hi)]
            if distinct:
                out = list(dict.fromkeys(out))
        return out[:n]

    def _check_sampleable(self, n: int, lo: int, hi: int | None, distinct: bool) -> None:
        """Refuse, before drawing, length bounds that rejection sampling cannot meet."""
        bounds = f"{lo} to {hi} letters" if hi is not None else f"at least {lo} letters"
        if n == 0:
            return
        if not self._has_string(lo, hi):
            raise ValueError(f"grammar {self.name!r} has 0 strings of {bounds}")
        p = self._length_probability(lo, hi)
        if p * MAX_REJECTIONS < 1:
            chance = f"{p:.3g}" if p > 0 else "below 1e-300"
            raise ValueError(f"a random string of grammar {self.name!r} has {bounds} with probability "
                             f"{chance}: rejection sampling would walk about 1/p strings per string; "
                             f"allowed: bounds met by at least 1 in {MAX_REJECTIONS:,} strings")
        if distinct:
            available = self._count_strings(lo, hi, n)
            if available < n:
                raise ValueError(f"grammar {self.name!r} has {available} strings of {bounds}; "
                                 f"asked for {n} distinct")


class _Language:
    """Which strings the grammar has and how long they are: counting, enumerating, the
    distribution of lengths (how the papers size their sets).  A part of
    :class:`FiniteStateGrammar`."""

    def _transitions(self):
        """``(M, e)``: ``M[i, j]`` probability of an arc from state i to j, ``e[i]`` of ending."""
        m, e = np.zeros((len(self.states),) * 2), np.zeros(len(self.states))
        for i, out in enumerate(self._arc_lists):
            for _, tgt, p in out:
                if tgt < 0:
                    e[i] += p
                else:
                    m[i, tgt] += p
        return m, e

    def _length_probability(self, lo: int, hi: int | None) -> float:
        """Probability that a random string has ``lo`` to ``hi`` letters (``hi=None``: no upper bound).

        The string goes on past ``k`` symbols with probability ``start @ M**k @ 1``, so
        ``P(letters >= lo) = start @ M**(lo + 1) @ 1`` (the B and E are 2 of its symbols);
        matrix powers keep this cheap for any bound.
        """
        m, _ = self._transitions()
        start = np.eye(len(self.states))[self.states.index(self.start)]

        def going_on(k):
            return float(start @ np.linalg.matrix_power(m, k) @ np.ones(len(start)))

        return max(0.0, going_on(lo + 1) - (going_on(hi + 2) if hi is not None else 0.0))

    def _has_string(self, lo: int, hi: int | None) -> bool:
        """Whether some string has ``lo`` to ``hi`` letters (exact: paths, not probabilities)."""
        m, e = self._transitions()
        a, ends = (m > 0).astype(np.int64), e > 0
        reach = np.eye(len(self.states), dtype=np.int64)[self.states.index(self.start)]
        k, power = lo + 1, a.copy()  # reach after lo + 1 symbols: start @ a**(lo + 1)
        while k:
            if k & 1:
                reach = np.minimum(reach @ power, 1)
            power, k = np.minimum(power @ power, 1), k >> 1
        # a string of lo + 2 + j symbols ends after j more arcs; if any string at least that
        # long exists, one exists with j < n_states (a longer one repeats a state: cut the loop)
        last = len(self.states) if hi is None else min(hi - lo + 1, len(self.states))
        for _ in range(last):
            if np.any(reach.astype(bool) & ends):
                return True
            reach = np.minimum(reach @ a, 1)
        return False

    def _count_strings(self, lo: int, hi: int | None, enough: int) -> int:
        """Number of distinct strings of ``lo`` to ``hi`` letters, counted up to ``enough``.

        Counts prefixes by the set of states they can be in (so a grammar whose
        paths share strings is counted right), one symbol at a time: never
        lists the strings.
        """
        live = {frozenset([self.states.index(self.start)]): 1}  # state set -> prefixes
        total, k = 0, 0  # k: symbols in the prefixes
        while live and (hi is None or k < hi + 2) and total < enough:
            grown = {}
            for states, n_prefixes in live.items():
                by_symbol = {}
                for i in states:
                    for sym, tgt, _ in self._out(i):
                        by_symbol.setdefault(sym, set()).add(tgt)
                for targets in by_symbol.values():
                    if -1 in targets and lo + 2 <= k + 1:
                        total += n_prefixes
                    rest = frozenset(targets - {-1})
                    if rest:
                        grown[rest] = grown.get(rest, 0) + n_prefixes
            live, k = grown, k + 1
        return total

    def length_distribution(self, max_letters: int) -> np.ndarray:
        """Exact probability that a random string has ``k`` letters, for ``k = 0..max_letters``.

        Computed by propagating the state distribution one arc at a time (the
        grammar as a Markov chain); the tail beyond ``max_letters`` is
        ``1 - result.sum()``.
        """
        count("max_letters", max_letters)
        alpha = np.zeros(len(self.states))
        alpha[self.states.index(self.start)] = 1.0
        ended = np.zeros(max_letters + 3)  # ended[j]: strings of j symbols
        for j in range(1, max_letters + 3):
            new = np.zeros_like(alpha)
            for i in np.flatnonzero(alpha):
                for _, tgt, p in self._out(i):
                    if tgt == -1:
                        ended[j] += alpha[i] * p
                    else:
                        new[tgt] += alpha[i] * p
            alpha = new
        return ended[2:]

    # ------------------------------------------------------------ language
    def enumerate(self, max_letters: int, min_letters: int = 0) -> list:
        """All strings of ``min_letters`` to ``max_letters`` letters, sorted by length then alphabet order."""
        count("max_letters", max_letters)
        count("min_letters", min_letters)
        found, stack = set(), [(self.states.index(self.start), "")]
        while stack:
            state, s = stack.pop()
            for sym, tgt, _ in self._out(state):
                t = s + self.alphabet[sym]
                if len(t) > max_letters + 2:
                    continue
                if tgt == -1:
                    if len(t) >= min_letters + 2:
                        found.add(t)
                else:
                    stack.append((tgt, t))
        return sorted(found, key=lambda s: (len(s), [self.alphabet.index(c) for c in s]))


class _Reading:
    """Reading a prefix: the states it may have reached and the legal next symbols, the
    targets a network learns to predict (Servan-Schreiber et al., section 2).  A part of
    :class:`FiniteStateGrammar`."""

    def _forward(self, prefix: str, strict: bool = True) -> tuple[np.ndarray, float]:
        """Probability of each state after ``prefix`` (unnormalised) and of having ended."""
        self.validate(prefix, "prefix")
        alpha = np.zeros(len(self.states))
        alpha[self.states.index(self.start)] = 1.0
        ended = 0.0
        for ch in prefix:
            sym, new, ended = self.alphabet.index(ch), np.zeros_like(alpha), 0.0
            for i in np.flatnonzero(alpha):
                for s, tgt, p in self._out(i):
                    if s == sym:
                        if tgt == -1:
                            ended += alpha[i] * p
                        else:
                            new[tgt] += alpha[i] * p
            alpha = new
        if strict and alpha.sum() + ended == 0.0:
            raise ValueError(f"{prefix!r} is not a prefix of any string of the grammar {self.name!r}")
        return alpha, ended

    def is_member(self, s: str) -> bool:
        """True if ``s`` is a complete string of the grammar."""
        return self._forward(s, strict=False)[1] > 0.0

    def states_after(self, prefix: str) -> frozenset:
        """Names of the states the grammar can be in after ``prefix`` (empty once the string ended).

        Raises
        ------
        ValueError
            If ``prefix`` is not a prefix of a string of the grammar.
        """
        alpha, _ = self._forward(prefix)
        return frozenset(self.states[i] for i in np.flatnonzero(alpha))

    def successor_probabilities(self, prefix: str) -> np.ndarray:
        """Exact probabilities of the next symbol given ``prefix`` (forward algorithm).

        Returns
        -------
        ndarray of float64, shape (len(alphabet),)
            Sums to 1, or all zeros if ``prefix`` is a complete string.
        """
        alpha, _ = self._forward(prefix)
        probs = np.zeros(len(self.alphabet))
        for i in np.flatnonzero(alpha):
            for s, _, p in self._out(i):
                probs[s] += alpha[i] * p
        total = probs.sum()
        return probs / total if total > 0 else probs

    def successors(self, prefix: str) -> frozenset:
        """The set of legal next symbols after ``prefix``."""
        p = self.successor_probabilities(prefix)
        return frozenset(self.alphabet[i] for i in np.flatnonzero(p))



@dataclasses.dataclass(frozen=True)
class FiniteStateGrammar(_Sampling, _Language, _Reading):
    """A probabilistic finite-state grammar whose arcs emit every symbol.

    Parameters
    ----------
    name : str
        Human-readable name.
    alphabet : str
        The symbols, in unit order (``"BTSPXVE"`` for the Reber family).
    arcs : tuple of Arc
        ``(source, symbol, target, prob)``; states are named by strings,
        ``target`` is a state name or :data:`END`.  The probabilities of the
        arcs leaving a state sum to 1.  States are numbered in order of first
        appearance as a source.
    start : str
        The start state (its arcs emit ``B``).
    """

    name: str
    alphabet: str
    arcs: tuple
    start: str

    def __post_init__(self):
        if not isinstance(self.alphabet, str) or len(set(self.alphabet)) != len(self.alphabet):
            raise ValueError(f"alphabet must be a str of distinct symbols, got {self.alphabet!r}")
        arcs = _check_arcs(self.arcs)
        object.__setattr__(self, "arcs", arcs)
        sources = {a.source for a in arcs}
        if not isinstance(self.start, str) or self.start not in sources:
            raise ValueError(f"start state {self.start!r} has no arcs; states: {sorted(sources)}")
        for a in arcs:
            if a.symbol not in self.alphabet:
                raise ValueError(f"arc {a} emits {a.symbol!r}, not in the alphabet {self.alphabet}")
            if a.target is not END and a.target not in sources:
                raise ValueError(f"arc {a} goes to state {a.target!r}, which has no arcs")
            if not (0.0 < a.prob <= 1.0):
                raise ValueError(f"arc {a} has probability {a.prob}; allowed: 0 < p <= 1")
        for s in sources:
            total = sum(a.prob for a in arcs if a.source == s)
            if abs(total - 1.0) > 1e-9:
                raise ValueError(f"the arcs leaving state {s!r} have probabilities summing to {total}, not 1")

    # ----------------------------------------------------------------- states
    @functools.cached_property
    def states(self) -> tuple:
        """State names, in index order (order of first appearance as a source)."""
        return tuple(dict.fromkeys(a.source for a in self.arcs))

    def _out(self, state_index: int) -> list:
        """Arcs leaving a state as ``(symbol_index, target_index or -1, prob)``."""
        return self._arc_lists[state_index]

    @functools.cached_property
    def _arc_lists(self) -> list:
        index = {s: i for i, s in enumerate(self.states)}
        out = [[] for _ in self.states]
        for a in self.arcs:
            tgt = -1 if a.target is END else index[a.target]
            out[index[a.source]].append((self.alphabet.index(a.symbol), tgt, float(a.prob)))
        return out

    # ----------------------------------------------------------- conversions
    def validate(self, s, what: str = "string") -> str:
        """Return ``s`` if it is a str of alphabet letters, else raise a clear TypeError/ValueError."""
        if not isinstance(s, str):
            raise TypeError(f"{what} must be a str, got {type(s).__name__} ({s!r})")
        if not set(s) <= set(self.alphabet):
            ch = next(ch for ch in s if ch not in self.alphabet)
            raise ValueError(f"{what} {s!r} has letter {ch!r}, not in the alphabet {self.alphabet}")
        return s

    def encode(self, s: str) -> np.ndarray:
        """Return the symbol indices of ``s`` as a 1-D ``int64`` array."""
        self.validate(s)
        return np.fromiter(map(self.alphabet.index, s), dtype=np.int64, count=len(s))

    def decode(self, indices) -> str:
        """Return the string spelled by symbol indices (inverse of :meth:`encode`)."""
        arr = np.asarray(indices)
        if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
            raise ValueError(f"indices must be a 1-D integer array, got shape {arr.shape}, dtype {arr.dtype}")
        bad = arr[(arr < 0) | (arr >= len(self.alphabet))]
        if bad.size:
            raise ValueError(f"symbol index {int(bad[0])} out of range 0..{len(self.alphabet) - 1} "
                             f"for the alphabet {self.alphabet}")
        return "".join(self.alphabet[i] for i in arr)

    def tables(self) -> GrammarTables:
        """Return the :class:`GrammarTables` (array form) of the grammar."""
        n, m = len(self.states), max(len(o) for o in self._arc_lists)
        symbol = np.full((n, m), -1, dtype=np.int64)
        target = np.full((n, m), -1, dtype=np.int64)
        cumprob = np.ones((n, m), dtype=np.float64)
        for i, out in enumerate(self._arc_lists):
            c = np.cumsum([p for _, _, p in out])
            c[-1] = 1.0
            for k, (sym, tgt, _) in enumerate(out):
                symbol[i, k], target[i, k], cumprob[i, k] = sym, tgt, c[k]
        return GrammarTables(symbol, target, cumprob, self.states.index(self.start))


# ------------------------------------------------------------------ grammars
_REBER_INNER = (  # (from, letter, to) of Figure 3, rebuilt from the text (book: Reconstructions, GSM)
    ("#0", "T", "#1"), ("#0", "P", "#2"),
    ("#1", "S", "#1"), ("#1", "X", "#3"),
    ("#2", "T", "#2"), ("#2", "V", "#4"),
    ("#3", "X", "#2"), ("#3", "S", "#5"),
    ("#4", "P", "#3"), ("#4", "V", "#5"),
)


def _reber_arcs(prefix: str, exit_symbol: str, exit_target, probs=None, drop=()) -> list:
    """Arcs of one copy of the Reber grammar #0..#5 with state names prefixed.

    ``#5`` emits ``exit_symbol`` to ``exit_target``; ``probs`` maps
    ``(from, letter)`` to a probability (default 0.5, or 1.0 for a lone arc);
    ``drop`` lists ``(from, letter)`` arcs to remove.
    """
    probs = probs or {}
    inner = [a for a in _REBER_INNER if (a[0], a[1]) not in drop]
    arcs = []
    for src, letter, dst in inner:
        n_out = sum(1 for a in inner if a[0] == src)
        p = probs.get((src, letter), 1.0 / n_out)
        arcs.append(Arc(prefix + src, letter, prefix + dst, p))
    arcs.append(Arc(prefix + "#5", exit_symbol, exit_target, 1.0))
    return arcs


def reber() -> FiniteStateGrammar:
    """The Reber (1976) grammar of Servan-Schreiber et al. (1991), Figure 3.

    States ``"start"`` (emits B) and ``"#0"`` .. ``"#5"`` (the paper's nodes;
    ``#5`` emits E).  Every choice has probability 0.5 (section 2.4).  Figure 3
    is missing from our copy; the arcs are our reconstruction from the text (the book's *Reconstructions* page,
    graded-state-machines section),
    which reproduce the paper's check of exactly 43 strings of 3–8 letters
    (section 3.1) and its example strings TXS, PTVV, TSXXTVPS.

    Its strings have mean 6.0 letters (sd 3.37); section 2.4 reports "mean: 7,
    sd: 3.3" for its 60,000 training strings, i.e. the number of training
    patterns per string (letters + 1, the B step included).
    """
    arcs = [Arc("start", "B", "#0", 1.0)] + _reber_arcs("", "E", END)
    return FiniteStateGrammar("Reber", REBER_ALPHABET, tuple(arcs), "start")


def embedded_reber(p_loop: float | None = None) -> FiniteStateGrammar:
    """O'Connell's (1995) embedded Reber grammar (chapter 1, Figure 1.3).

    ``B``, an indicator ``T`` or ``P`` (0.5 each), a complete Reber string
    **with its own B and E**, the same indicator again, ``E``; e.g.
    ``"BTBTXSETE"`` (as in Hochreiter & Schmidhuber 1997).  Figure 1.3 is
    missing; the text says "the first symbol after the B serves as an
    indicator which uniquely determines the last symbol in the string before
    the E.  Embedded between these two symbols are strings generated by the
    Reber grammar".  The finite-state machine needs two copies of the Reber
    states: ``"T#k"`` after an initial T, ``"P#k"`` after an initial P.

    Test-set statistics (chapter 4: 1000 strings, "duplicate test strings
    were removed", mean length 16.4, min 6, max 34).  ``sample(1000, rng,
    distinct=True)`` gives a mean of 17.5 letters (min 7, max 35–49 over 12
    seeds).  The thesis's own strings have no inner B and E: see
    :func:`thesis_embedded_reber`, which the O'Connell chapter uses.

    Parameters
    ----------
    p_loop : float, optional
        Used by :func:`long_embedded_reber`; leave ``None`` for 0.5 everywhere.
    """
    arcs = [Arc("start", "B", "ind", 1.0),
            Arc("ind", "T", "T:B", 0.5), Arc("ind", "P", "P:B", 0.5)]
    arcs += _embedded_copies(p_loop)
    arcs.append(Arc("last", "E", END, 1.0))
    return FiniteStateGrammar("embedded Reber", REBER_ALPHABET, tuple(arcs), "start")


def _embedded_copies(p_loop):
    """The two Reber copies (with their B and E) of the embedded Reber grammar."""
    probs = None
    if p_loop is not None:
        p_loop = real("p_loop", p_loop, low=0.0, high=1.0, low_open=True, high_open=True)
        q = 1.0 - p_loop
        # arcs that do not move closer to the accepting state (see long_embedded_reber)
        probs = {("#1", "S"): p_loop, ("#1", "X"): q, ("#2", "T"): p_loop, ("#2", "V"): q,
                 ("#3", "X"): p_loop, ("#3", "S"): q, ("#4", "P"): p_loop, ("#4", "V"): q}
    arcs = []
    for ind in "TP":
        arcs.append(Arc(f"{ind}:B", "B", f"{ind}#0", 1.0))
        arcs += _reber_arcs(ind, "E", f"{ind}:E", probs)
        arcs.append(Arc(f"{ind}:E", ind, "last", 1.0))
    return arcs


def long_embedded_reber(p_no_closer: float = 0.9) -> FiniteStateGrammar:
    """The embedded Reber grammar biased toward long strings (O'Connell chapter 5, Figure 5.1).

    Reconstruction (Figure 5.1 is missing).  The text: "At each transition
    where there was a choice of moving to a state closer to the accepting
    state or moving to a state whose distance from the accepting state is
    greater than or equal to the current distance, the probability of getting
    no closer to the accepting state was set to 0.9", and "the T-loop appears
    within the V-P-X loop".  With distance = fewest arcs to the end, in each
    Reber copy node #5 is at distance d, #3 and #4 at d+1, #1 and #2 at d+2,
    #0 at d+3.  So #1→S (loop), #2→T (loop), #3→X (to #2, farther) and #4→P
    (to #3, same distance) get 0.9; their alternatives get 0.1.  The choices
    at the indicator and at #0 (both arcs get equally closer) stay at 0.5.

    The thesis's test sets condition on length: ``sample(1000, rng,
    min_letters=50)`` and ``sample(100, rng, min_letters=300)``.  Computed
    exactly (length distribution of the Markov chain), this reconstruction's
    mean length in symbols is 112.4 given >= 50 letters and 362.4 given
    >= 300 letters (:func:`n_letters`: the inner B and E count); the thesis
    reports 113 (1000 strings) and 367 (100 strings, whose mean has a
    standard error of about 6).  A string is >= 50 letters with probability
    0.52 and >= 300 with probability 0.0085, so rejection sampling is cheap.
    """
    p_no_closer = real("p_no_closer", p_no_closer, low=0.0, high=1.0, low_open=True, high_open=True)
    g = embedded_reber(p_loop=p_no_closer)
    return dataclasses.replace(g, name=f"embedded Reber, long strings (p={p_no_closer})")


def time_varying_embedded_reber() -> FiniteStateGrammar:
    """O'Connell's embedded Reber grammar with time-varying indicators (chapter 6, Figure 6.1).

    Reconstruction (Figure 6.1 is missing).  The text: "a slightly modified
    grammar in which the indicator symbol is preceded by any number of X's
    followed by a V.  Thus, the indicator symbol will not appear at the same
    numerical position in every string."  So: ``B``, ``X*`` (zero or more;
    each further X with probability 0.5, the thesis's default for every
    choice), ``V``, then the embedded Reber grammar from the indicator on:
    e.g. ``"BXXVTBTXSETE"``, ``"BVPBPVVEPE"``.  "Any number" is read as
    including zero X's.
    """
    arcs = [Arc("start", "B", "pre", 1.0),
            Arc("pre", "X", "pre", 0.5), Arc("pre", "V", "ind", 0.5),
            Arc("ind", "T", "T:B", 0.5), Arc("ind", "P", "P:B", 0.5)]
    arcs += _embedded_copies(None)
    arcs.append(Arc("last", "E", END, 1.0))
    return FiniteStateGrammar("embedded Reber, time-varying indicator", REBER_ALPHABET,
                              tuple(arcs), "start")


def thesis_embedded_reber(time_varying: bool = False, p_no_closer: float | None = None):
    """The embedded Reber grammar as O'Connell's thesis presents its strings: no inner B and E.

    This is the framing the O'Connell chapter uses.  Evidence (chapter 4): the
    inputs of Figures 4.4 and 4.5 are ``B P P V V P`` and ``B P T S X X T V P X
    V P X T V V P``; 1000 distinct strings of this grammar have mean length
    16.4 letters, min 6 (thesis: 16.4, 6, max 34); and truncated BPTT
    reproduces chapter 8 only in this framing (BPTT(5,1) reaches the
    indicator of the shortest strings).  :func:`embedded_reber` keeps
    Hochreiter & Schmidhuber's (1997) framing with the inner B and E.

    ``B``, the indicator ``T`` or ``P`` (0.5 each), the letters of a Reber
    string, the indicator again, ``E``: e.g. ``BPPVVPE`` (Figure 4.4) and
    ``BPTSXXTVPXVPXTVVPE`` (Figure 4.5).  ``time_varying=True`` puts ``X*V``
    before the indicator (chapter 6, as :func:`time_varying_embedded_reber`);
    ``p_no_closer=0.9`` biases towards long strings (chapter 5, as
    :func:`long_embedded_reber`).  Built from the same arcs
    as those grammars, with the inner ``B``/``E`` arcs left out.
    """
    probs = None
    if p_no_closer is not None:
        p_no_closer = real("p_no_closer", p_no_closer, low=0.0, high=1.0, low_open=True, high_open=True)
        q = 1.0 - p_no_closer
        probs = {("#1", "S"): p_no_closer, ("#1", "X"): q, ("#2", "T"): p_no_closer, ("#2", "V"): q,
                 ("#3", "X"): p_no_closer, ("#3", "S"): q, ("#4", "P"): p_no_closer, ("#4", "V"): q}
    if time_varying:
        arcs = [Arc("start", "B", "pre", 1.0), Arc("pre", "X", "pre", 0.5),
                Arc("pre", "V", "ind", 0.5)]
    else:
        arcs = [Arc("start", "B", "ind", 1.0)]
    arcs += [Arc("ind", "T", "T#0", 0.5), Arc("ind", "P", "P#0", 0.5)]
    for ind in "TP":
        arcs += _reber_arcs(ind, ind, "last", probs)
    arcs.append(Arc("last", "E", END, 1.0))
    name = "embedded Reber (thesis framing)" + (", time-varying indicator" if time_varying else "") \
        + (f", long strings (p={p_no_closer})" if p_no_closer is not None else "")
    return FiniteStateGrammar(name, REBER_ALPHABET, tuple(arcs), "start")


def embedded_subgrammar(symmetric: bool = True, p_exit: float = 0.8) -> FiniteStateGrammar:
    """Servan-Schreiber et al.'s embedded sub-grammar (section 5.2, Figure 18).

    Reconstruction (Figure 18 is missing).  The text: the first letter is T
    or P and the last letter is the same; "in between ... almost the same
    finite state grammar ... (Reber's) ... modified ... by eliminating the
    'S' loop and the 'T' loop".  So a string is ``B``, ``T`` or ``P`` (0.5),
    a Reber path #0→#5 without the loops #1→S→#1 and #2→T→#2 (and without
    the Reber B and E), the same first letter, ``E``: e.g. ``"BTTXSTE"``.
    Two copies of the inner states: ``"T#k"`` (top) and ``"P#k"`` (bottom).

    Counting the two matching letters and the inner letters (:func:`n_letters`),
    the symmetrical version has mean length 6.50 and sd 2.14 (paper: 6.5,
    sd 2.1).

    The asymmetrical version: the text says "the second X arc has a 0.8
    probability ... in the bottom sub-grammar, the second P arc had a
    probability of 0.8" and gives mean 5.8, sd 1.3.  Read literally (top
    #3→X 0.8, bottom #4→P 0.8) the mean would be 7.6 (sd 3.3).  Giving 0.8 to
    the *exit* arcs instead (top #3→S, bottom #4→V) gives mean 5.75 and sd 1.28,
    the stated 5.8 (sd 1.3) to the paper's precision, so we use that reading (the book's *Reconstructions* page, graded-state-machines section).

    Parameters
    ----------
    symmetric : bool
        ``True`` for the symmetrical grammar (all choices 0.5), ``False`` for
        the asymmetrical one.
    p_exit : float
        In the asymmetrical version, the probability of the exit arcs (top
        #3→S, bottom #4→V; the paper: 0.8); the other arc of the node gets
        ``1 - p_exit``.  Ignored when ``symmetric``.
    """
    if not isinstance(symmetric, bool):
        raise TypeError(f"symmetric must be True or False, got {symmetric!r}")
    if isinstance(p_exit, bool) or not isinstance(p_exit, (int, float)) or not 0 < p_exit < 1:
        raise ValueError(f"p_exit must be a probability strictly between 0 and 1, got {p_exit!r}")
    drop = (("#1", "S"), ("#2", "T"))
    arcs = [Arc("start", "B", "ind", 1.0),
            Arc("ind", "T", "T#0", 0.5), Arc("ind", "P", "P#0", 0.5)]
    top = None if symmetric else {("#3", "S"): p_exit, ("#3", "X"): 1 - p_exit}
    bottom = None if symmetric else {("#4", "V"): p_exit, ("#4", "P"): 1 - p_exit}
    arcs += _reber_arcs("T", "T", "last", top, drop)
    arcs += _reber_arcs("P", "P", "last", bottom, drop)
    arcs.append(Arc("last", "E", END, 1.0))
    kind = "symmetrical" if symmetric else "asymmetrical"
    return FiniteStateGrammar(f"embedded sub-grammar ({kind})", REBER_ALPHABET, tuple(arcs), "start")


# ------------------------------------------------------- Servan-Schreiber sets
SERVAN_SCHREIBER_TRAINING = tuple("B" + s + "E" for s in (
    "TSXS TXS TSSSXS TSSXXVV TSSSXXVV TXXVPXVV TXXTTVV TSXXTVV TSSXXVPS TSXXTVPS "
    "TXXTVPS TXXVPS PVV PTTVV PTVPXVV PVPXVV PTVPXTVV PVPXVPS PTVPS PVPXTVPS PTTTVPS"
).split())
"""The 21 training strings of Servan-Schreiber et al. (1991), Figure 12, as full strings.

Figure 12 is OCR-damaged in our copy (e.g. ``TSSXXXVV``, ``PTTVVV``); each
entry was corrected to the grammatical string of 3–8 letters it must be
(the book's *Reconstructions* page, graded-state-machines section).
"""


def generalisation_strings() -> tuple:
    """The 22 Reber strings of 3–8 letters not in :data:`SERVAN_SCHREIBER_TRAINING` (section 3.1)."""
    train = set(SERVAN_SCHREIBER_TRAINING)
    return tuple(s for s in reber().enumerate(8, 3) if s not in train)


def check_grammar(grammar, name: str = "grammar") -> FiniteStateGrammar:
    """``grammar`` after checking it is a :class:`FiniteStateGrammar` (``reber()``, ...)."""
    if not isinstance(grammar, FiniteStateGrammar):
        raise TypeError(f"{name} must be a FiniteStateGrammar (e.g. tempnets.tasks.grammars.reber()), "
                        f"got {type(grammar).__name__}")
    return grammar


def check_strings(strings, name: str = "strings") -> list:
    """``strings`` as a list after checking it is a sequence of ``str`` (one string alone is
    refused: iterating it would give its letters)."""
    if isinstance(strings, (str, bytes)) or not hasattr(strings, "__iter__") or isinstance(strings, dict):
        raise TypeError(f"{name} must be a sequence of str (e.g. ['BTXSE', 'BPVVE']), "
                        f"got {type(strings).__name__}")
    out = list(strings)
    for i, s in enumerate(out):
        if not isinstance(s, str):
            raise TypeError(f"{name}[{i}] must be a str of letters, got {type(s).__name__} ({s!r:.40})")
    return out
