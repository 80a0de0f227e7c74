"""Grades a student cannot game (issue 38): every cheating submission of tests/grading_cheats.py
scores exactly what the honest wrong answer scores, and the solved notebook full marks.

- Without otter (the grading test's own code, run in a stand-in for the student's kernel): every
  cheat on one chapter in ``make test``, on every chapter with ``TEMPNETS_ALL_ASSIGNMENTS=1``.
- With otter: one notebook that stacks the cheats on the quick chapter in ``make test``; every
  cheat, one notebook each, on every chapter with ``TEMPNETS_ALL_ASSIGNMENTS=1`` (the table of
  the issue: ``python tests/grading_cheats.py OUT`` prints it).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import grading_cheats as G  # noqa: E402

from tempnets.book import assignments as A  # noqa: E402
from tempnets.book import selfcheck  # noqa: E402

ALL = os.environ.get("TEMPNETS_ALL_ASSIGNMENTS") == "1"
QUICK = "checking_our_work"
"""The chapter whose cheats ``make test`` grades without otter (its one question is the quickest)."""
OTTER_CHAPTER = "fast_weights"
"""The chapter graded with otter in ``make test`` (as in tests/test_assignments.py)."""
every = pytest.mark.skipif(not ALL, reason="every chapter: TEMPNETS_ALL_ASSIGNMENTS=1 (make test-assignments)")


def test_every_chapter_with_an_assignment_has_a_target():
    assert sorted(G.TARGET) == sorted(p.stem for p in A.chapters(G.ROOT / "book"))


# --- without otter --------------------------------------------------------------------------------

def assert_graded_as_honest_wrong(chapter):
    passed, honest = G.grade_directly(chapter, "honest wrong")
    assert not passed and "differs from the correct result" in honest
    for cheat in G.CHEATS[1:]:
        passed, message = G.grade_directly(chapter, cheat)
        assert not passed, f"{chapter}: {cheat} passed"
        if cheat == "loops forever":
            assert f"stopped after {selfcheck.TIME_LIMIT:g} s without an answer" in message
        elif cheat == "SystemExit in the check":
            assert "your function raised SystemExit" in message
        else:
            assert message == honest, (cheat, message)
    passed, message = G.grade_directly(chapter, "solved")
    assert passed, message


def test_no_cheat_passes_the_grading_test_of_the_quick_chapter():
    assert_graded_as_honest_wrong(QUICK)


@every
@pytest.mark.parametrize("chapter", sorted(set(G.TARGET) - {QUICK}))
def test_no_cheat_passes_the_grading_test_of_any_chapter(chapter):
    assert_graded_as_honest_wrong(chapter)


# --- with otter -----------------------------------------------------------------------------------

def stacked(solved: dict, questions: dict) -> dict:
    """The solved notebook of :data:`OTTER_CHAPTER` with every cheat at once: its target question
    answered wrong after patching numpy, numpy.testing and every ``check_...`` and writing a fake
    results.json, its function replaced by one that loops forever; and ``fw_sigma``'s function
    replaced by one that raises SystemExit."""
    nb = G.submission(solved, OTTER_CHAPTER, "loops forever", questions)
    cell = next(c for c in nb["cells"] if "otter_assign_solution_cell" in c["metadata"].get("tags", [])
                and "def p_step" in "".join(c["source"]))
    before = "".join(G.prelude(cheat, questions, "ch.check_p_step_from_to")
                     for cheat in ("allclose patched", "numpy.testing patched", "fake results.json", "check replaced"))
    cell["source"] = before + "".join(cell["source"])
    sigma = next(c for c in nb["cells"] if "otter_assign_solution_cell" in c["metadata"].get("tags", [])
                 and "def sigma" in "".join(c["source"]))
    sigma["source"] = G.cheat_source("SystemExit in the check", "".join(sigma["source"]), questions)
    return nb


def test_a_notebook_with_every_cheat_loses_exactly_the_points_it_cheated_on(tmp_path):
    built = A.build_chapter(G.ROOT / "book" / f"{OTTER_CHAPTER}.ipynb", tmp_path / OTTER_CHAPTER)
    solved = json.loads(Path(built["solution"]).read_text(encoding="utf-8"))
    path = tmp_path / "cheats.ipynb"
    path.write_text(json.dumps(stacked(solved, built["questions"])), encoding="utf-8")
    got = A.grade(built["zip"], path, tmp_path / "graded")
    points = built["questions"]
    assert got == {**{q: (p, p) for q, p in points.items()}, "fw_sigma": (0, 1), "fw_pstep": (0, 2)}


@every
@pytest.mark.parametrize("chapter", sorted(G.TARGET))
def test_every_cheat_scores_what_the_honest_wrong_answer_scores(chapter, tmp_path):
    built = A.build_chapter(G.ROOT / "book" / f"{chapter}.ipynb", tmp_path / chapter)
    solved = json.loads(Path(built["solution"]).read_text(encoding="utf-8"))
    scores = {}
    for cheat in G.CHEATS:
        path = tmp_path / f"{cheat.replace(' ', '_')}.ipynb"
        path.write_text(json.dumps(G.submission(solved, chapter, cheat, built["questions"])), encoding="utf-8")
        scores[cheat] = A.grade(built["zip"], path, tmp_path / cheat.replace(" ", "_"))
    question, points = G.TARGET[chapter][0], built["questions"]
    assert scores["honest wrong"] == {**{q: (p, p) for q, p in points.items()}, question: (0, points[question])}
    assert all(s == scores["honest wrong"] for s in scores.values()), scores
