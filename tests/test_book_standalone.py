"""The book stands alone (issue 22): it never sends a reader to notes outside the repository.

What each chapter reconstructs is explained on the book's own page, ``book/reconstructions.md``
(*Reconstructions*). These tests check that

* nothing a reader or a user of the library sees (``book/``, ``tempnets/``, ``README.md``,
  ``CONTRIBUTING.md``) names the internal notes ``RECONSTRUCTIONS.md``, ``REPLICATION.md``,
  ``REPLICATION_DATA.md`` or a path into ``../shared`` / ``/work/shared``;
* every ``reconstructions-*`` label that a chapter, page or docstring refers to exists on the page,
  and the page has one section label per chapter;
* each chapter's Fidelity note links to its chapter's section of the page;
* every ``tempnets.…`` name the page gives resolves, and the values the page states agree with
  the library (so the page cannot drift from the code without a test failing).
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "reconstructions.md"

# Case-sensitive on purpose: the book's own page is ``reconstructions.md`` (lower case).
OUTSIDE = re.compile(r"RECONSTRUCTIONS\.md|REPLICATION_DATA\.md|REPLICATION\.md|\.\./shared|/work/shared")

CHAPTERS = {  # notebook stem -> the label of its section on the page
    "graded_state_machines": "reconstructions-gsm",
    "periodically_attentive_units": "reconstructions-pa",
    "focused_backprop": "reconstructions-focused",
    "fast_weights": "reconstructions-fast-weights",
    "temporal_kernels": "reconstructions-temporal-kernels",
}


LABEL = re.compile(r"^\((reconstructions(?:-[a-z0-9]+)*)\)=\s*$", re.M)
MENTION = re.compile(r"reconstructions(?:-[a-z0-9]+)+")
LINK = re.compile(r"\{ref\}`(?:[^`<]*<)?(reconstructions(?:-[a-z0-9]+)*)>?`"
                  r"|\]\((?:reconstructions(?:\.md)?)?#(reconstructions(?:-[a-z0-9]+)*)\)")
NAME = re.compile(r"`(tempnets(?:\.\w+)+)`")


def scanned_files() -> list:
    """Every text file a reader or a library user sees: ``book/``, ``tempnets/``, README, CONTRIBUTING."""
    out = [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
    for top in ("book", "tempnets"):
        for p in sorted((ROOT / top).rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts and not any(
                    part.startswith((".", "_build")) for part in p.relative_to(ROOT).parts):
                out.append(p)
    return out


def outside_mentions(text: str) -> list:
    """``(line number, line)`` of each line of ``text`` that names a file outside the repository."""
    return [(k, line.strip()) for k, line in enumerate(text.splitlines(), 1) if OUTSIDE.search(line)]


def page_labels() -> list:
    return LABEL.findall(PAGE.read_text(encoding="utf-8"))


def markdown_of(path: Path) -> str:
    """The markdown a reader sees in a notebook (cells joined) or a ``.md`` page."""
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        return "\n\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    return path.read_text(encoding="utf-8")


def fidelity_section(markdown: str) -> str:
    """The text of the "Fidelity note" section: from its heading to the next heading as high or higher."""
    m = re.search(r"^(#+)\s+Fidelity note\b.*$", markdown, re.M)
    if m is None:
        return ""
    level = len(m.group(1))
    rest = markdown[m.end():]
    end = re.search(rf"^#{{1,{level}}}\s", rest, re.M)
    return rest[:end.start()] if end else rest


def resolve(dotted: str):
    """The object a dotted ``tempnets.…`` name stands for (the longest importable module, then attributes)."""
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ModuleNotFoundError:
            continue
        for attr in parts[k:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(dotted)


def flat(text: str) -> str:
    return " ".join(text.split())


# ----------------------------------------------------------------------------- the detectors

def test_the_detectors_find_what_they_look_for():
    assert outside_mentions("x\nsee RECONSTRUCTIONS.md §A5\n") == [(2, "see RECONSTRUCTIONS.md §A5")]
    for s in ("REPLICATION.md section 1", "REPLICATION_DATA.md", "../shared/papers/", "/work/shared/x"):
        assert outside_mentions(s), s
    assert outside_mentions("the book's page book/reconstructions.md") == []  # the page itself is fine
    assert LINK.findall("{ref}`what we reconstruct <reconstructions-fast-weights>`") \
        == [("reconstructions-fast-weights", "")]
    assert LINK.findall("{ref}`reconstructions-pa`") == [("reconstructions-pa", "")]
    assert LINK.findall("[why](reconstructions.md#reconstructions-gsm-grammar)") \
        == [("", "reconstructions-gsm-grammar")]
    md = "## Fidelity note\n\ntext {ref}`x <reconstructions-pa>`\n\n### sub\nmore\n\n## Exercises\nno"
    assert fidelity_section(md).strip().endswith("more") and "Exercises" not in fidelity_section(md)
    assert fidelity_section("## Summary\n") == ""


def test_every_place_a_reader_sees_is_scanned():
    files = {p.relative_to(ROOT).as_posix() for p in scanned_files()}
    for must in ("README.md", "CONTRIBUTING.md", "book/intro.md", "book/reconstructions.md",
                 "book/references.bib", "tempnets/__init__.py", "tempnets/chapters/fast_weights/__init__.py",
                 *(f"book/{stem}.ipynb" for stem in CHAPTERS)):
        assert must in files, must
    assert any(f.startswith("book/paper_scale/") and f.endswith(".json") for f in files)


# ----------------------------------------------------------------------------- nothing points outside

@pytest.mark.parametrize("path", [pytest.param(p, id=p.relative_to(ROOT).as_posix())
                                  for p in scanned_files()])
def test_nothing_sends_a_reader_outside_the_repository(path):
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return  # a binary file (an image) names nothing
    found = outside_mentions(text)
    assert not found, (f"{path.relative_to(ROOT)} names notes that are not in the repository; say it "
                       f"in our own words or point to the book's Reconstructions page "
                       f"(book/reconstructions.md): " + "; ".join(f"line {k}: {s[:120]}" for k, s in found))


# ----------------------------------------------------------------------------- the page's labels

def test_the_page_has_one_section_per_chapter_and_unique_labels():
    labels = page_labels()
    assert len(labels) == len(set(labels)), sorted({x for x in labels if labels.count(x) > 1})
    for stem, label in CHAPTERS.items():
        assert label in labels, f"book/reconstructions.md has no ({label})= section for {stem}"
        assert f"]({stem}.ipynb)" in PAGE.read_text(encoding="utf-8"), f"the page does not link {stem}"
    assert all(x.startswith(tuple(CHAPTERS.values())) or x == "reconstructions-sources" for x in labels), \
        "every label on the page belongs to a chapter's section"


def test_the_page_is_in_the_book_before_the_glossary():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    assert "file: book/reconstructions" in toc
    assert toc.index("book/reconstructions") < toc.index("book/glossary")


def referring_files() -> list:
    return [p for p in scanned_files() if p != PAGE and p.suffix in (".md", ".ipynb", ".py")]


def test_every_label_referred_to_exists_on_the_page():
    labels = set(page_labels())
    missing = {}
    for p in referring_files():
        text = markdown_of(p) if p.suffix != ".py" else p.read_text(encoding="utf-8")
        for name in set(MENTION.findall(text)) - labels:
            missing.setdefault(name, []).append(p.relative_to(ROOT).as_posix())
    assert not missing, ("labels referred to but not defined on book/reconstructions.md: "
                         + "; ".join(f"{k} (in {', '.join(v)})" for k, v in sorted(missing.items())))


@pytest.mark.parametrize("stem", list(CHAPTERS))
def test_each_fidelity_note_links_its_section_of_the_page(stem):
    section = fidelity_section(markdown_of(ROOT / "book" / f"{stem}.ipynb"))
    assert section, f"book/{stem}.ipynb has no 'Fidelity note' heading"
    label = CHAPTERS[stem]
    targets = {a or b for a, b in LINK.findall(section)}
    assert any(t == label or t.startswith(label + "-") for t in targets), \
        (f"book/{stem}.ipynb: the Fidelity note does not link its section of the Reconstructions page; "
         f"add {{ref}}`what we reconstruct <{label}>` (it links {sorted(targets) or 'nothing'})")


# ----------------------------------------------------------------------------- the page agrees with the code

def test_every_library_name_on_the_page_exists():
    names = sorted(set(NAME.findall(PAGE.read_text(encoding="utf-8"))))
    assert len(names) >= 20, names  # the page names where each value lives
    bad = []
    for n in names:
        try:
            resolve(n)
        except (ImportError, AttributeError) as e:
            bad.append(f"{n} ({type(e).__name__}: {e})")
    assert not bad, "the Reconstructions page names what the library does not have: " + "; ".join(bad)


def _gsm():
    return importlib.import_module("tempnets.chapters.graded_state_machines")


def _default(fn, name):
    return inspect.signature(fn).parameters[name].default


def _close(pair, want, places):
    return tuple(round(float(v), places) for v in pair) == want


def _subgrammar_stats(symmetric, literal=False):
    from tempnets.tasks.grammars import embedded_subgrammar
    g = _gsm().literal_asymmetrical_subgrammar() if literal else embedded_subgrammar(symmetric)
    return _gsm().length_statistics(g)


def _pattern_counts(strings):
    from tempnets.tasks.grammars import n_letters
    return sum(n_letters(s) + 1 for s in strings), sum(n_letters(s) for s in strings)


def _reber_43():
    from tempnets.tasks.grammars import reber
    return len(reber().enumerate(8, 3)) == 43


FACTS = [
    # (words on the page, the library agrees)
    ("the grammar has exactly 43 strings of 3 to 8 letters", _reber_43),
    ("They make 156 patterns if the prediction after the begin symbol B counts, and 135 if it does not",
     lambda: _pattern_counts(importlib.import_module("tempnets.tasks.grammars").SERVAN_SCHREIBER_TRAINING)
     == (156, 135)),
    ("the 43 strings of the grammar make 328 or 285 patterns",
     lambda: _pattern_counts(importlib.import_module("tempnets.tasks.grammars").reber().enumerate(8, 3))
     == (328, 285)),
    ("Its strings have mean length 6.50 and sd 2.14", lambda: _close(_subgrammar_stats(True), (6.50, 2.14), 2)),
    ("the mean becomes 7.6 (sd 3.3", lambda: _close(_subgrammar_stats(False, literal=True), (7.6, 3.3), 1)),
    ("the mean is 5.75 and the sd 1.28", lambda: _close(_subgrammar_stats(False), (5.75, 1.28), 2)),
    ("Learning rate 0.01 and momentum 0.9 in every experiment",
     lambda: _gsm().RULE == {"learning_rate": 0.01, "momentum": 0.9}),
    ("with weights drawn uniformly from $[-0.5, 0.5]$", lambda: _gsm().config(3).init_range == 0.5),
    ("nine settings across both ranges",
     lambda: len(_default(_gsm().generalisation_sweep, "learning_rates"))
     * len(_default(_gsm().generalisation_sweep, "momenta")) == 9),
    ("at most 10% above 50", lambda: _gsm().TSS_AT_MOST == 55.0),
    ("using the acceptance threshold 0.3 of §2.5", lambda: _gsm().THRESHOLD == 0.3),
    ("the last letter's output is at least 0.6 and the other letter's at most 0.4",
     lambda: _default(_gsm().problem3_solved, "margin") == 0.6),
    ("**What we did (reconstructed).** 0.5.",
     lambda: importlib.import_module("tempnets.chapters.periodically_attentive_units").CONTEXT_INIT == 0.5),
    ("8 normal units and 7 PA units of period 7, phases 0 to 6",
     lambda: (lambda c: c.n_hidden == 15 and set(c.period[8:]) == {7} and sorted(c.phase[8:]) == list(range(7))
              and set(c.period[:8]) == {1})(importlib.import_module("tempnets.training.srn_trainers").TrainConfig.pa())),
    ("$\\omega = 100$ (`tempnets.training.focused_training.FocusedConfig`)",
     lambda: all(c.omega == 100.0 for c in
                 importlib.import_module("tempnets.chapters.focused_backprop").RATES.values())),
    ("$z_i = -0.5$; $d_i$ uniform in $[0.99, 1.01]$",
     lambda: _default(importlib.import_module("tempnets.models.focused").init_focused, "z0") == -0.5),
    ("all 112 verbs of `HELD_OUT_REGULAR`", lambda: len(importlib.import_module("tempnets.tasks.verbs").HELD_OUT_REGULAR) == 112),
    ("*swim*, *sing*, *ring* and *sit*",
     lambda: set(importlib.import_module("tempnets.tasks.verbs").IRREGULAR[10].split()) == {"swim", "sing", "ring", "sit"}),
    ("S's weights uniform in $[-0.1, 0.1]$",
     lambda: importlib.import_module("tempnets.chapters.fast_weights").PAPER["init_range"] == 0.1),
    ("the squash (7) with $T = 10$",
     lambda: importlib.import_module("tempnets.chapters.fast_weights").PAPER["T"] == 10.0),
    ("at a cap of 20,000 steps (flip-flop) or 50,000 (car parking)",
     lambda: (lambda s: s["fw-flipflop"]["paper"].cap == 20_000 and s["fw-parking"]["paper"].cap == 50_000)(
         importlib.import_module("tempnets.chapters.fast_weights").SIZES)),
    ("a 1000-step window is reported beside the paper's 100",
     lambda: importlib.import_module("tempnets.chapters.fast_weights").LONG_RUN == 1000),
    ("A, B and C each come with probability 1/3",
     lambda: _default(importlib.import_module("tempnets.tasks.streams").random_flipflop, "p") == (1 / 3,) * 3),
    ("So S has 4 outputs",
     lambda: importlib.import_module("tempnets.models.fast_weights").FastWeightNet(3, 3, 1, interface="from-to").n_s_out == 4),
    ("Each random input is on with probability 0.5",
     lambda: _default(importlib.import_module("tempnets.tasks.streams").random_parking, "p_distractor") == 0.5),
    ("Asked with probability 0.5 at every step (`p_query`)",
     lambda: _default(importlib.import_module("tempnets.tasks.streams").random_parking, "p_query") == 0.5),
    ("with 3 units for the flip-flop and 5 for car parking",
     lambda: (lambda b: b["flipflop"]["n_units"] == 3 and b["parking"]["n_units"] == 5)(
         importlib.import_module("tempnets.chapters.fast_weights").BASELINE)),
    ("Initial decays uniform in $(0.5, 0.95)$",
     lambda: _default(importlib.import_module("tempnets.models.tkrnn").init_params, "lam_range") == (0.5, 0.95)),
    ("clipped to a global norm of 1.0",
     lambda: importlib.import_module("tempnets.training.optim").OptimConfig().clip_norm == 1.0),
    ("a learning rate of $10^{-3}$ by default",
     lambda: importlib.import_module("tempnets.training.optim").OptimConfig().learning_rate == 1e-3),
    ("TKRNN$^{+n}$ with $n = 2$",
     lambda: "TKRNN+2" in importlib.import_module("tempnets.chapters.temporal_kernels").MODELS),
    ("whose bias starts at 1",
     lambda: _default(importlib.import_module("tempnets.models.rnn_baselines").lstm_init, "forget_bias") == 1.0),
    ("at least 99% of strings recalled perfectly",
     lambda: importlib.import_module("tempnets.chapters.temporal_kernels").CRITERION == 0.99),
    ("change by at most 1% of their range per step",
     lambda: importlib.import_module("tempnets.chapters.temporal_kernels").STABLE == 0.01),
    ("We read 35 bits as 7 letters from 32",
     lambda: (lambda s: (s.alphabet, s.length) == (32, 7))(
         importlib.import_module("tempnets.chapters.temporal_kernels").SIZES["paper"])),
]


@pytest.mark.parametrize("words, agrees", FACTS, ids=[w[:50] for w, _ in FACTS])
def test_the_page_states_what_the_library_does(words, agrees):
    assert flat(words) in flat(PAGE.read_text(encoding="utf-8")), \
        f"book/reconstructions.md no longer says {words!r}: update this test with the page"
    assert agrees(), f"book/reconstructions.md says {words!r}, but the library now does something else"
