"""The scorecard: every claim of the book by chapter, at book and at paper scale (issue 32).

Each claim counts as one of :data:`tempnets.book.claims.CATEGORIES` (holds, does not hold,
inconclusive, undecidable by design, not tested); the computations (``kind="computation"``:
rows true of any network) and the screens (``kind="screen"``: comparisons of our own
reconstruction's choices) are counted apart from the replications.

Where the claims come from, without training anything:

* **paper scale**: every committed record ``book/paper_scale/<id>.json`` re-derived with
  today's code (:func:`tempnets.book.experiments.rederive`), and the experiments a chapter derives
  from another's record (``pa-5.2`` from ``pa-4.2``, ``pa-8.2-8.3`` from ``pa-8.1``), as the
  chapters show them.  A record made at book scale (``tk-search``) counts at book scale.
* **book scale**: the run with the chapter's seed (0) of each robustness record
  (``<id>.robustness.json``, made at book scale) re-derived from its data.  A robustness
  record whose data was too large to keep cannot be re-derived; those experiments are listed
  as missing (:attr:`Scorecard.missing`), not guessed: their verdicts are in the chapters.

:func:`scorecard` collects them; :meth:`Scorecard.summary` and :meth:`Scorecard.details`
render the page ``book/scorecard.ipynb``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from . import experiments
from .claims import CATEGORIES, KINDS, ClaimsTable

CHAPTERS = {"gsm": "Graded state machines", "pa": "Periodically attentive units",
            "mozer": "Focused back-propagation", "fw": "Fast weights", "tk": "Temporal kernels"}
"""Chapter of each experiment id's prefix, in the book's order."""

DERIVED = {"pa-5.2": "pa-4.2", "pa-8.2-8.3": "pa-8.1"}
"""Experiments with no record of their own, derived from another's (``trained=`` its result)."""

SUPERSEDED = {"tk-serial-recall": "tk-reading-recall"}
"""Paper-scale records made under a reading of the paper the chapter no longer adopts -> the
experiment whose record replaced them (issue 33: the 35-bit task, blank recall -> teacher-forced
recall).  Once the replacing record exists the old one is not counted at paper scale (it is listed
as missing, with the reason): the chapter shows it in its readings table, not as its claims."""

SCALES = ("book", "paper")


__all__ = ["Scorecard", "chapter_of", "scorecard", "table_counts"]


def chapter_of(experiment_id: str) -> str:
    """The chapter of an experiment, from its id's prefix (``"mozer-dear"`` -> Focused ...)."""
    if not isinstance(experiment_id, str):
        raise TypeError(f"experiment_id must be an experiment's id (a str), got {type(experiment_id).__name__}")
    prefix = experiment_id.split("-", 1)[0]
    if prefix not in CHAPTERS:
        raise ValueError(f"experiment_id {experiment_id!r}: unknown chapter prefix {prefix!r}; "
                         f"known: {', '.join(CHAPTERS)}")
    return CHAPTERS[prefix]


@dataclass
class Scorecard:
    """The claims tables the scorecard counts: ``tables[scale][experiment_id]``, and what is
    ``missing[scale]`` (experiment id -> why)."""

    tables: dict = field(default_factory=lambda: {s: {} for s in SCALES})
    missing: dict = field(default_factory=lambda: {s: {} for s in SCALES})
    records: dict = field(default_factory=dict)
    """Paper-scale record id -> its ``wall_time_s``, ``jobs`` and ``commit``."""

    def counts(self, scale: str, kind: str = "replication") -> dict:
        """``{chapter: {category: n}}`` over the tables of ``scale`` (every chapter, in order)."""
        out = {ch: dict.fromkeys(CATEGORIES, 0) for ch in CHAPTERS.values()}
        for eid, table in self.tables[scale].items():
            for cat, n in table.counts(kind).items():
                out[chapter_of(eid)][cat] += n
        return out

    def claims(self, scale: str, category: str | None = None):
        """``(experiment_id, claim)`` of every replication row of ``scale`` (of ``category``)."""
        return [(eid, c) for eid, t in self.tables[scale].items() for c in t.claims
                if c.kind == "replication" and (category is None or c.category == category)]

    def summary(self) -> str:
        """A Markdown table: per chapter and scale, holds / does not hold / inconclusive
        (of which undecidable by design) / not tested, and the computations and screens apart."""
        head = ("| chapter | book scale: holds / does not / inconclusive (by design) / not tested "
                "| paper scale: same | computations (book; paper): holds / other "
                "| screens of our choices (book; paper): holds / other |\n|---|---|---|---|---|")
        lines = [head]
        reps = {s: self.counts(s) for s in SCALES}
        comps = {s: self.counts(s, "computation") for s in SCALES}
        screens = {s: self.counts(s, "screen") for s in SCALES}
        total = {s: dict.fromkeys(CATEGORIES, 0) for s in SCALES}
        for ch in CHAPTERS.values():
            for s in SCALES:
                for k, v in reps[s][ch].items():
                    total[s][k] += v
            lines.append(f"| {ch} | {_cell(reps['book'][ch])} | {_cell(reps['paper'][ch])} | "
                         f"{_comp_cell(comps['book'][ch])}; {_comp_cell(comps['paper'][ch])} | "
                         f"{_comp_cell(screens['book'][ch])}; {_comp_cell(screens['paper'][ch])} |")
        lines.append(f"| **all** | {_cell(total['book'])} | {_cell(total['paper'])} | | |")
        return "\n".join(lines)

    def details(self, chapter: str) -> str:
        """A Markdown table of every claim of ``chapter``: experiment, claim, kind, and its
        outcome at each scale (matched by statement; ``—`` where that scale has no such row)."""
        rows = {}
        for s in SCALES:
            for eid, table in self.tables[s].items():
                if chapter_of(eid) != chapter:
                    continue
                for c in table.claims:
                    key = (eid, c.statement)
                    rows.setdefault(key, {"kind": c.kind})[s] = c.category
        lines = ["| experiment | claim | book scale | paper scale |", "|---|---|---|---|"]
        for (eid, statement), r in rows.items():
            mark = f" *({r['kind']})*" if r["kind"] != "replication" else ""
            text = statement.replace("|", "\\|")
            lines.append(f"| {eid} | {text}{mark} | {r.get('book', '—')} | {r.get('paper', '—')} |")
        return "\n".join(lines)


    def why_inconclusive(self, scale: str = "paper") -> str:
        """A Markdown list: every inconclusive replication row of ``scale`` and why
        (:attr:`tempnets.book.claims.Claim.why_inconclusive`), or ``"None."``."""
        if scale not in SCALES:
            raise ValueError(f"scale must be one of {', '.join(SCALES)}, got {scale!r}")
        return "\n".join(f"- `{eid}`: {c.statement} — {c.why_inconclusive or 'its interval straddles the test'}"
                         for eid, c in self.claims(scale, "inconclusive")) or "None."


    def runs_table(self) -> str:
        """A Markdown table of the paper-scale records: the runs per group their claims rest on
        (the sizes of the claims' designs), the wall time and cores of the run, and its commit;
        then the total time."""
        lines = ["| record | sample sizes of its claims (per group) | wall time (min) | cores | commit |",
                 "|---|---|---|---|---|"]
        total = 0.0
        for eid, meta in self.records.items():
            table = self.tables["paper"].get(eid)
            sizes = sorted({n for c in (table.claims if table else []) if c.design is not None
                            for n in c.design.sizes})
            total += meta["wall_time_s"]
            lines.append(f"| `{eid}` | {', '.join(map(str, sizes)) or '—'} | "
                         f"{meta['wall_time_s'] / 60:.1f} | {meta['jobs']} | `{meta['commit']}` |")
        lines.append(f"| **all** | | **{total / 60:.0f}** | | |")
        return "\n".join(lines)


def _cell(c: dict) -> str:
    total = sum(c.values())
    inconclusive = c["inconclusive"] + c["undecidable by design"]
    share = f" ({100 * inconclusive / total:.0f}% inconclusive)" if total else ""
    return (f"{c['holds']} / {c['does not hold']} / {inconclusive} ({c['undecidable by design']}) / "
            f"{c['not tested']}{share}")


def _comp_cell(c: dict) -> str:
    return f"{c['holds']} / {sum(c.values()) - c['holds']}"


def _book_table(experiment_id: str):
    """The book-scale table of the chapter's seed from the robustness record, or why not."""
    from ..training.srn_trainers import no_training

    path = experiments.find_record(experiments.robustness_path(experiment_id))
    if not path.is_file():
        return None, "no robustness record"
    record = json.loads(path.read_text(encoding="utf-8"))
    run = next((r for r in record["runs"] if r["seed"] == experiments.CHAPTER_SEED), None)
    if record["scale"] != "book" or run is None:
        return None, f"the robustness record has no book-scale run of seed {experiments.CHAPTER_SEED}"
    if run.get("data") is None:
        return None, "its robustness record kept no data (too large); see the chapter"
    experiment = experiments.get(experiment_id)
    if experiment.needs:
        return None, "it compares with another experiment's run; see the chapter"
    with no_training(f"the scorecard re-deriving {path}"):
        result = experiment.runner()(scale="book", seed=experiments.CHAPTER_SEED, jobs=1,
                                     progress=False, trained=run["data"])
    return result.claims, ""


def scorecard() -> Scorecard:
    """Re-derive every committed record (never trains) and collect the claims tables."""
    from ..training.srn_trainers import no_training

    card = Scorecard()
    results = {}
    for e in experiments.EXPERIMENTS:
        path = experiments.find_record(f"paper_scale/{e.id}.json")
        by = SUPERSEDED.get(e.id)
        if by is not None and experiments.find_record(f"paper_scale/{by}.json").is_file():
            card.missing["paper"][e.id] = (f"superseded by {by}'s record (the reading the chapter "
                                           "adopts); shown in the chapter's readings table")
            continue
        if path.is_file():
            result, record = experiments.rederive(path)
            results[e.id] = result
            card.tables[record["scale"]][e.id] = result.claims
            if record["scale"] == "paper":
                card.records[e.id] = {k: record[k] for k in ("wall_time_s", "jobs", "commit")}
    for eid, source in DERIVED.items():
        if source in results and eid not in card.tables["paper"]:
            runner = experiments.get(eid).runner()
            with no_training(f"the scorecard deriving {eid} from the record of {source}"):
                card.tables["paper"][eid] = runner("paper", experiments.CHAPTER_SEED, jobs=1,
                                                   progress=False, trained=results[source]).claims
    for e in experiments.EXPERIMENTS:
        if e.id not in card.tables["book"]:
            table, why = _book_table(e.id)
            if table is None:
                card.missing["book"][e.id] = why
            else:
                card.tables["book"][e.id] = table
        if e.id not in card.tables["paper"] and e.id not in card.missing["paper"]:
            card.missing["paper"][e.id] = "no paper-scale record"
    return card


def table_counts(table: ClaimsTable, kind: str = "replication") -> dict:
    """The categories of a table's rows counted from what the table *shows* (its verdict
    column), independently of :attr:`Claim.category`: for the test that keeps the scorecard
    equal to the tables."""
    if not isinstance(table, ClaimsTable):
        raise TypeError(f"table must be a tempnets.book.claims.ClaimsTable, got {type(table).__name__}")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    out = dict.fromkeys(CATEGORIES, 0)
    for row, claim in zip(table.rows(), table.claims):
        if claim.kind != kind:
            continue
        v = row["verdict"]
        cat = ("not tested" if v.startswith("not tested") else
               "undecidable by design" if v.startswith("shown, not decided") else
               "holds" if v == "holds" else
               "does not hold" if v.startswith("does not hold") else
               "inconclusive" if v.startswith("inconclusive") else None)
        if cat is None:
            raise ValueError(f"{table.title}: the row {row['statement']!r} shows {v!r}, not as "
                             "the chapter states")
        out[cat] += 1
    return out
