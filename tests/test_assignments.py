"""The otter-grader assignments (tempnets.book.assignments): each chapter's coding exercises become
questions worth their stars, graded by the chapters' own self-checks.

The grading tests run otter for real: the instructor's solved notebook scores full marks, the
untouched student notebook scores zero, and a notebook with one typical wrong answer loses exactly
that exercise's points.  ``make test`` does this for one chapter (:data:`CHAPTER`, the quickest
to grade); ``TEMPNETS_ALL_ASSIGNMENTS=1`` (``make test-assignments``) for every chapter.
"""

from __future__ import annotations

import json
import re
import os
from pathlib import Path

import pytest

from tempnets.book import assignments as A
from tempnets.book.bookconfig import BEGIN, END, student_code

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
CHAPTER = "fast_weights"
"""The chapter graded in ``make test``: as quick to grade as the quickest (one ``otter run``, about
15 s of CPU, like periodically_attentive_units; temporal_kernels takes 27 s), and it has four
questions, so that a wrong answer is seen to cost its own points and no others."""

ALL = os.environ.get("TEMPNETS_ALL_ASSIGNMENTS") == "1"

WRONG = {
    # chapter: (question, a solution line, the typical slip that replaces it)
    "checking_our_work": ("checking_code", "return -(t - y) * np.append(x, 1.0)",
                          "return (t - y) * np.append(x, 1.0)"),  # the update's sign, not dL/dθ
    "fast_weights": ("fw_pstep", "return fp * (P_from + s_b * x), fp * (P_to + s_a * x)",
                     "return fp * (P_from + s_a * x), fp * (P_to + s_b * x)"),  # each row's own activation
    "focused_backprop": ("fb_code_alpha", "(T - tau) * d ** (T - tau - 1) * s[tau - 1]",
                         "(T - tau) * d ** (T - tau) * s[tau - 1]"),  # the power of d one too high
    "graded_state_machines": ("gsm_bptt3_code", "W_hh=-(d.T @ c)", "W_hh=-(c.T @ d)"),  # transposed
    "periodically_attentive_units": ("pa_mask", "(t - np.asarray(phase)) % np.asarray(period) == 0",
                                     "(t + np.asarray(phase)) % np.asarray(period) == 0"),  # + phase
    "temporal_kernels": ("tk_lambdagrad", "answer = (dlam * lam * (1 - lam)).reshape(n, HI)",
                         "answer = dlam.reshape(n, HI)"),  # forgot dλ/dθ = λ(1 - λ)
}


def load(name):
    return json.loads((BOOK / f"{name}.ipynb").read_text(encoding="utf-8"))


def notebook(*sources, markdown=None):
    """A notebook of code cells (``markdown``: {index: text} of markdown cells to insert)."""
    cells = [{"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None}
             for s in sources]
    for i, text in sorted((markdown or {}).items()):
        cells.insert(i, {"cell_type": "markdown", "metadata": {}, "source": text})
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


EXERCISE_MD = "````{exercise} 1. Do it — ★★, coding, 5 min\n:label: ex-x-do\n:nonumber:\n\nDo it.\n````\n"
ANSWER = f"def f(a):\n    {BEGIN}\n    return a + k\n    {END}\n\nch.check_f(f)\n"


# --- the questions -------------------------------------------------------------------------------

@pytest.mark.parametrize("path", A.chapters(BOOK), ids=lambda p: p.stem)
def test_every_coding_exercise_is_a_question_worth_its_stars(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    exs = A.exercises(nb, path.stem)
    marked = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code" and BEGIN in "".join(c["source"])]
    assert [e.cell for e in exs] == marked
    for e in exs:
        assert e.points == e.title.count("★") and 1 <= e.points <= 3
        assert e.title in e.prompt and ":label:" not in e.prompt and "{solution}" not in e.prompt
        assert ".check_" in e.check or e.check.startswith("check_")
    assert len({e.name for e in exs}) == len(exs)


def test_a_question_is_read_from_its_directive_and_its_self_check():
    nb = notebook("import x", ANSWER, markdown={1: EXERCISE_MD})
    (ex,) = A.exercises(nb)
    assert (ex.cell, ex.prompt_cell, ex.name, ex.points, ex.check) == (2, 1, "x_do", 2, "ch.check_f(f)")
    assert ex.prompt == "### Exercise 1. Do it — ★★, coding, 5 min\n\nDo it.\n"


@pytest.mark.parametrize("cells, message", [
    ((EXERCISE_MD, "x = ...\n# BEGIN SOLUTION\nx = 1\n# END SOLUTION\nprint(x)\n"), "must end with a self-check"),
    (("Some text.", ANSWER), r"no \{exercise\} directive"),
    ((EXERCISE_MD.replace("★★", "★★★★"), ANSWER), "has 4 stars, allowed: 1 to 3"),
    ((EXERCISE_MD, ANSWER.replace(END, "")), "'# BEGIN SOLUTION' without '# END SOLUTION'$"),
])
def test_a_malformed_exercise_is_a_one_line_error_naming_its_cell(cells, message):
    nb = notebook("import x", cells[1], markdown={1: cells[0]})
    with pytest.raises(ValueError, match=message) as caught:
        A.exercises(nb, "chap")
    assert str(caught.value).startswith("chap cell 2: ") and "\n" not in str(caught.value)


def test_two_exercises_with_one_label_are_refused():
    nb = notebook("import x", ANSWER, ANSWER, markdown={1: EXERCISE_MD, 3: EXERCISE_MD})
    with pytest.raises(ValueError, match="a second exercise labelled 'ex-x-do'"):
        A.exercises(nb, "chap")


# --- what the notebook keeps ---------------------------------------------------------------------

def test_cell_names_follow_python_scopes():
    needs, gives = A.cell_names("def f(a):\n    y = a + k\n    return y\nz = [q for q in w]\nv = v + 1\n")
    assert needs == {"k", "w", "v"} and gives == {"f", "z", "v"}
    needs, gives = A.cell_names("h = 1\nh[0] = 2\np.a = 3\n%matplotlib inline\nq += 1\n")
    assert needs == {"p", "q", "get_ipython"} and gives == {"h", "p", "q"}


def test_the_slice_keeps_what_an_exercise_uses_and_drops_the_rest():
    nb = notebook("import numpy as np",                  # 0: always (install and imports)
                  "k = 2\nslow = train(k)",              # 1: defines k (and trains)
                  "shown = np.plot(slow)",               # 2: only a figure: dropped
                  "k = 3",                               # 3: rebinds k: the k the exercise uses
                  "k[0] = 4",                            # 4: changes k in place: kept, and so is 3
                  ANSWER,                                # 5: the exercise (reads k, ch)
                  "after = k")                           # 6: after the exercise: dropped
    assert A.context_cells(nb, [5]) == [0, 3, 4, 5]
    nb["cells"][2]["metadata"]["tags"] = [A.KEEP_TAG]
    assert A.context_cells(nb, [5]) == [0, 1, 2, 3, 4, 5]  # a tagged cell, and the cell it needs
    nb["cells"][2]["metadata"]["tags"] = []
    nb["cells"][3]["source"], nb["cells"][4]["source"] = "j = 3", "ch = load()"
    assert A.context_cells(nb, [5]) == [0, 1, 4, 5]  # k now comes from cell 1, ch from cell 4


def test_the_quick_chapter_runs_no_training_cell():
    nb = load(CHAPTER)
    exs = A.exercises(nb, CHAPTER)
    code = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"]
    kept = A.context_cells(nb, [e.cell for e in exs])
    assert len(kept) < len(code) / 2
    assert not any("run_" in "".join(nb["cells"][i]["source"]) for i in kept)


def test_the_master_notebook_is_one_question_block_per_exercise():
    answer = ANSWER.replace("ch.check_f(f)", "ch.check_sigma(f)")
    nb = notebook("from tempnets.chapters import fast_weights as ch", "unused = 1", answer, markdown={2: EXERCISE_MD})
    master, (ex,) = A.master_notebook(nb, "chap")
    kinds = [(c["cell_type"], "".join(c["source"]).splitlines()[0]) for c in master["cells"]]
    assert kinds[0] == ("raw", "# ASSIGNMENT CONFIG")
    assert [k for _, k in kinds[2:]] == [
        "from tempnets.chapters import fast_weights as ch", "# BEGIN QUESTION", "### Exercise 1. Do it — ★★, coding, 5 min", "# BEGIN SOLUTION",
        "def f(a):", "# END SOLUTION", "# BEGIN TESTS", '""" # BEGIN TEST CONFIG', "# END TESTS",
        "# END QUESTION"]
    assert "".join(master["cells"][3]["source"]) == "# BEGIN QUESTION\nname: x_do\npoints: 2"
    test = "".join(master["cells"][9]["source"])  # the check runs in a fresh Python, on f sent there
    assert "\ndef test_x_do(f):\n" in test
    assert test.endswith("    _grade_elsewhere('tempnets.chapters.fast_weights', 'check_sigma', '(f, )', {'f': f})\n")
    assert len({c["id"] for c in master["cells"]}) == len(master["cells"])
    with pytest.raises(ValueError, match="has no coding exercises"):
        A.master_notebook(notebook("import x"), "chap")


def test_the_student_cell_is_the_student_editions_scaffold():
    nb = notebook("import x", ANSWER, markdown={1: EXERCISE_MD})
    exs = A.exercises(nb)
    student = {"cells": [{"cell_type": "code", "metadata": {"tags": [A.ANSWER_TAG]}, "source": "otter's"}]}
    A.scaffold(student, nb, exs)
    assert student["cells"][0]["source"] == student_code(ANSWER)
    assert "NotImplementedError" in student["cells"][0]["source"]
    assert student["cells"][0]["metadata"]["tags"] == [A.ANSWER_TAG, "raises-exception"]
    with pytest.raises(ValueError, match="wrote 0 answer cells for 1 exercises"):
        A.scaffold({"cells": []}, nb, exs)


def test_an_unknown_chapter_is_a_one_line_error(capsys, tmp_path):
    assert A.main(["build", str(tmp_path), "--chapter", "nope", "--book", str(BOOK)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--chapter 'nope'" in err and CHAPTER in err


@pytest.mark.parametrize("args, message", [
    (("missing.zip", "nb.ipynb"), "autograder_zip must be an existing .zip file, got 'missing.zip'"),
    (("ag.zip", "nb.zip"), "submission must be an existing .ipynb file, got 'nb.zip'"),
])
def test_grading_refuses_a_wrong_file_in_one_line(args, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name in ("ag.zip", "nb.ipynb", "nb.zip"):
        (tmp_path / name).write_text("")
    assert A.main(["grade", *args, "out"]) == 2
    assert capsys.readouterr().err == f"error: {message}\n"


def test_scores_reads_one_score_per_question():
    results = {"tests": [{"name": "Public Tests", "status": "passed"},
                         {"name": "a", "score": 2, "max_score": 2}, {"name": "b", "score": 0, "max_score": 1}]}
    assert A.scores(results) == {"a": (2, 2), "b": (0, 1)}


# --- grading with otter ----------------------------------------------------------------------------

def wrong_notebook(solved: Path, chapter: str, out: Path) -> tuple[str, Path]:
    """The solved notebook with one typical wrong answer (:data:`WRONG`); returns its question."""
    question, right, slip = WRONG[chapter]
    nb = json.loads(solved.read_text(encoding="utf-8"))
    # Only in otter's solution cells: a context cell may hold the same line (checking_our_work does).
    hits = [c for c in nb["cells"] if "otter_assign_solution_cell" in c["metadata"].get("tags", [])
            and right in "".join(c["source"])]
    assert len(hits) == 1, f"{chapter}: the solution line {right!r} of {question} is in {len(hits)} answer cells: update WRONG"
    hits[0]["source"] = "".join(hits[0]["source"]).replace(right, slip)
    out.write_text(json.dumps(nb), encoding="utf-8")
    return question, out


def grade_three(chapter: str, tmp: Path) -> dict:
    """Build ``chapter``'s assignment and grade its solved, untouched and wrong notebooks."""
    built = A.build_chapter(BOOK / f"{chapter}.ipynb", tmp / chapter)
    zip_ = built["zip"]
    solved = Path(built["solution"])
    question, wrong = wrong_notebook(solved, chapter, tmp / f"{chapter}-wrong.ipynb")
    return {"built": built, "question": question, "tmp": tmp,
            "solved": A.grade(zip_, solved, tmp / "solved"),
            "untouched": A.grade(zip_, built["student"], tmp / "untouched"),
            "wrong": A.grade(zip_, wrong, tmp / "wrong")}


def assert_graded(result: dict) -> None:
    points = result["built"]["questions"]
    full = {q: (p, p) for q, p in points.items()}
    assert result["solved"] == full
    assert result["untouched"] == {q: (0, p) for q, p in points.items()}
    q = result["question"]
    assert result["wrong"] == {**full, q: (0, points[q])}
    assert Path(result["built"]["zip"]).stat().st_size < 100_000


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    return grade_three(CHAPTER, tmp_path_factory.mktemp("assignments"))


def test_the_quick_chapter_grades_solved_untouched_and_wrong_notebooks(quick):
    assert_graded(quick)


def test_the_untouched_notebook_is_told_what_is_missing(quick):
    results = json.loads((quick["tmp"] / "untouched" / "results.json").read_text(encoding="utf-8"))
    outputs = " ".join(t.get("output", "") for t in results["tests"])
    assert "not written yet" in outputs or "no answer yet" in outputs


@pytest.mark.skipif(not ALL, reason="every chapter: TEMPNETS_ALL_ASSIGNMENTS=1 (make test-assignments)")
@pytest.mark.parametrize("chapter", [p.stem for p in A.chapters(BOOK)])
def test_every_chapter_grades_solved_untouched_and_wrong_notebooks(chapter, tmp_path):
    assert chapter in WRONG, f"add a typical wrong answer of {chapter} to WRONG"
    assert_graded(grade_three(chapter, tmp_path))


# --- the page ------------------------------------------------------------------------------------

def test_the_instructors_page_lists_every_chapters_questions_and_points():
    page = (BOOK / "for_instructors.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| \[[^]]+\]\((\w+)\.ipynb\) \| (.*) \| (\d+) \|$", page, re.M)
    stated = {chapter: ({q: int(p) for q, p in re.findall(r"`(\w+)` \((\d)\)", questions)}, int(total))
              for chapter, questions, total in rows}
    actual = {}
    for path in A.chapters(BOOK):
        exs = A.exercises(json.loads(path.read_text(encoding="utf-8")), path.stem)
        actual[path.stem] = ({e.name: e.points for e in exs}, sum(e.points for e in exs))
    assert stated == actual
    for command in ("make student-book", "make assignments", "otter run -a", "results.json",
                    "python -m tempnets.book.assignments grade"):
        assert command in page
    assert re.search(r"^## Publishing the book$", page, re.M)
