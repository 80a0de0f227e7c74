"""Issue 32 item 5: a committed record is written from a clean checkout.

A record's ``commit`` (:func:`tempnets.book.experiments.reproduce`, :func:`~tempnets.book.experiments.robustness`)
ends in ``-dirty`` when the package ran with local changes: the code that made the numbers is then
in no commit, and nobody can repeat the run.  Every record in ``book/paper_scale/`` (the records and
the ``.robustness.json`` ones) must name a clean commit, except those listed below, which were
written before this rule and are still to be re-run from a clean checkout.

The list only shrinks: a listed record that is clean fails (delete its line: it was re-run), and
so does an unlisted dirty one (re-run it from a clean checkout; never add a line here).
"""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORDS = sorted((ROOT / "book" / "paper_scale").glob("*.json"))

NOT_YET_RERUN_FROM_A_CLEAN_CHECKOUT: set = set()
"""Records written from a dirty worktree before issue 32 (file names in ``book/paper_scale/``)."""


def _commit(path: Path):
    return json.loads(path.read_text()).get("commit")


def test_there_are_records():
    assert RECORDS, "book/paper_scale/ holds no records"


@pytest.mark.parametrize("path", RECORDS, ids=[p.name for p in RECORDS])
def test_a_committed_record_names_a_clean_commit(path):
    commit = _commit(path)
    assert isinstance(commit, str) and commit, \
        f"{path.name}: names no commit ({commit!r}); write records from a checkout of this project"
    dirty = commit.endswith("-dirty")
    if path.name in NOT_YET_RERUN_FROM_A_CLEAN_CHECKOUT:
        assert dirty, f"{path.name} is clean now ({commit}): delete its line from " \
                      "NOT_YET_RERUN_FROM_A_CLEAN_CHECKOUT in tests/test_record_commits.py"
    else:
        assert not dirty, f"{path.name} was written from a dirty worktree ({commit}): commit the " \
                          "code, check `git status` is clean, and run it again"


def test_the_list_names_only_records_that_exist():
    gone = sorted(NOT_YET_RERUN_FROM_A_CLEAN_CHECKOUT - {p.name for p in RECORDS})
    assert not gone, f"listed but not in book/paper_scale/ (delete their lines): {gone}"
