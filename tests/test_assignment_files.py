"""``python -m tempnets.book.assignments`` removes or overwrites only what it wrote, says where it
writes, and answers bad paths with one line and exit 2 (issue 31, items 2 and 10)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tempnets.book import assignments as A

BOOK = Path(__file__).resolve().parents[1] / "book"
CHAPTER = "fast_weights"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = A.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, err, *words):
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, (code, err)
    for w in words:
        assert w in err, (w, err)


def test_an_instructors_folder_is_never_removed(tmp_path, capsys):
    mine = tmp_path / "out" / CHAPTER
    mine.mkdir(parents=True)
    (mine / "notes.md").write_text("my grading notes")
    code, out, err = run(capsys, "build", str(tmp_path / "out"), "--chapter", CHAPTER, "--book", str(BOOK))
    one_line_error(code, err, str(mine), "notes.md", "did not write")
    assert out == "" and [p.name for p in mine.iterdir()] == ["notes.md"]
    assert (mine / "notes.md").read_text() == "my grading notes"


@pytest.mark.parametrize("kind", ["file", "symlink"])
def test_a_chapter_path_that_is_a_file_or_a_link_is_refused(kind, tmp_path, capsys):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "keep.txt").write_text("keep")
    if kind == "file":
        (out_dir / CHAPTER).write_text("a file")
    else:
        (out_dir / CHAPTER).symlink_to(target)
    code, out, err = run(capsys, "build", str(out_dir), "--chapter", CHAPTER, "--book", str(BOOK))
    one_line_error(code, err, "a file" if kind == "file" else "a symbolic link")
    assert (target / "keep.txt").read_text() == "keep" and len(list(target.iterdir())) == 1
    assert (out_dir / CHAPTER).is_symlink() == (kind == "symlink")


def test_a_book_that_is_missing_or_has_no_exercises_is_refused(tmp_path, capsys):
    code, _, err = run(capsys, "build", str(tmp_path / "out"), "--book", "/nonexistent")
    one_line_error(code, err, "--book '/nonexistent' is not a directory")
    code, _, err = run(capsys, "build", str(tmp_path / "out"), "--book", str(tmp_path))
    one_line_error(code, err, "has no chapter notebooks with coding exercises")
    assert not (tmp_path / "out").exists()


def test_an_unknown_chapter_is_refused_with_exit_2(tmp_path, capsys):
    code, _, err = run(capsys, "build", str(tmp_path), "--chapter", "nope", "--book", str(BOOK))
    one_line_error(code, err, "--chapter 'nope'", CHAPTER)


def test_grading_into_a_file_or_over_results_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("ag.zip", "nb.ipynb", "taken"):
        (tmp_path / name).write_text("")
    code, _, err = run(capsys, "grade", "ag.zip", "nb.ipynb", "taken")
    one_line_error(code, err, "out_dir must be a directory", "'taken'")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "results.json").write_text("{}")
    code, _, err = run(capsys, "grade", "ag.zip", "nb.ipynb", "out")
    one_line_error(code, err, "results.json exists")
    assert (tmp_path / "out" / "results.json").read_text() == "{}"


def fake_build(out: Path, files: dict) -> None:
    for name, text in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text)
    A._write_manifest(out)


def test_an_earlier_build_is_cleared_and_only_it(tmp_path):
    out = tmp_path / CHAPTER
    fake_build(out, {"a.ipynb": "1", "student/a.ipynb": "2", "autograder/a.zip": "3"})
    A.clear_own_build(out)
    assert not any(out.rglob("*"))
    fake_build(out, {"a.ipynb": "1", "student/a.ipynb": "2"})
    (out / "student" / "mine.txt").write_text("the instructor's")
    with pytest.raises(ValueError, match=r"holds files this command did not write \(student/mine.txt\)"):
        A.clear_own_build(out)
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == [
        A.MANIFEST, "a.ipynb", "student/a.ipynb", "student/mine.txt"]


def test_a_manifest_that_lists_a_link_removes_the_link_not_its_target(tmp_path):
    out, target = tmp_path / CHAPTER, tmp_path / "target.txt"
    target.write_text("keep")
    out.mkdir()
    (out / "link").symlink_to(target)
    A._write_manifest(out)
    A.clear_own_build(out)
    assert target.read_text() == "keep" and not (out / "link").exists()


def test_a_build_says_where_it_writes_and_can_be_repeated(tmp_path, capsys):
    argv = ("build", str(tmp_path / "out"), "--chapter", CHAPTER, "--book", str(BOOK))
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert out.splitlines()[0].startswith(f"writing {tmp_path / 'out' / CHAPTER}/ ")
    manifest = json.loads((tmp_path / "out" / CHAPTER / A.MANIFEST).read_text())
    assert f"student/{CHAPTER}.ipynb" in manifest["files"]
    code, out, err = run(capsys, *argv)  # its own earlier build: replaced
    assert code == 0, err
