"""The built book shows what today's code computes (issue 35, item 1).

jupyter-cache keys an executed chapter on its code cells only, so a change to the
library left ``make book`` showing the old library's outputs.  ``make book`` now runs
``python -m tempnets.book.bookconfig refresh-cache .`` first, which empties the cache when
the book's fingerprint (library source, ``book/paper_scale/``, installed packages,
``TEMPNETS_*`` variables) changed; the Pages workflow keys its cache on the same
fingerprint (tests/test_workflows.py).  The first test does what the issue did, on a
one-chapter book in a temporary folder with the repository's ``_config.yml``: build,
change the library, build again, and see the chapter executed again.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tempnets.book import bookconfig
from tempnets.book.bookconfig import FINGERPRINT_FILE, book_fingerprint, refresh_execution_cache

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _tiny_book(root: Path) -> Path:
    """A book with the repository's configuration, one chapter and a stand-in library.

    The stand-in ``tempnets`` package lives in ``root/tempnets/`` (where the fingerprint
    looks for the library) and the chapter's kernel imports it through ``PYTHONPATH``.
    """
    (root / "book" / "paper_scale").mkdir(parents=True)
    shutil.copy2(ROOT / "_config.yml", root / "_config.yml")
    shutil.copy2(ROOT / "book" / "references.bib", root / "book" / "references.bib")
    (root / "_toc.yml").write_text("format: jb-book\nroot: book/chapter\n")
    (root / "tempnets").mkdir()
    (root / "tempnets" / "__init__.py").write_text("ANSWER = 1\n")
    (root / "book" / "paper_scale" / "run.json").write_text('{"seed": 0}\n')
    code = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
            "source": ["import tempnets\n", "print('the library says', tempnets.ANSWER)"]}
    title = {"cell_type": "markdown", "metadata": {}, "source": ["# A chapter"]}
    nb = {"cells": [title, code], "nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}}
    (root / "book" / "chapter.ipynb").write_text(json.dumps(nb))
    return root


def _run(root: Path, command: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(root), "TEMPNETS_PROGRESS": "0"}
    done = subprocess.run(command, shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


def _book_recipe() -> list[str]:
    """The commands of the Makefile's ``book`` target up to the build (checks of the pages
    follow it), with ``$(RUN)`` and ``$(BIN)`` spelled out for this Python."""
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^book: .*\n((?:\t.*\n)+)", makefile, re.M).group(1).splitlines()
    commands = []
    for line in recipe:
        line = line.strip().replace("$(RUN) ", "").replace("$(BIN)/", f"{BIN}/")
        commands.append(line)
        if "jupyter-book build" in line:
            return commands
    raise AssertionError(f"the Makefile's book target runs no jupyter-book build: {recipe}")


OLD_RECIPE = [f"{BIN}/jupyter-book build . -n -W --keep-going"]
"""make book before issue 35: jupyter-cache alone decided what to execute."""


def _make_book(root: Path, recipe=None) -> tuple[str, bool]:
    """Run ``make book``'s commands in ``root``: what the chapter's page shows, and whether
    the chapter was executed (rather than taken from the cache)."""
    log = "".join(_run(root, command) for command in recipe or _book_recipe())
    page = (root / "_build" / "html" / "book" / "chapter.html").read_text(encoding="utf-8")
    return " ".join(re.findall(r"the library says \d+", page)), "chapter.ipynb: Executing notebook" in log


@pytest.mark.slow
def test_a_change_to_the_library_executes_the_chapter_again(tmp_path):
    root = _tiny_book(tmp_path)
    assert _make_book(root) == ("the library says 1", True)
    (root / "tempnets" / "__init__.py").write_text("ANSWER = 2\n")
    # What the issue found: the old make book keeps the old library's output.
    assert _make_book(root, OLD_RECIPE) == ("the library says 1", False), \
        "this test no longer shows the stale page it guards against"
    assert _make_book(root) == ("the library says 2", True), "a changed library left the old output"
    # Nothing changed: the chapter comes from the cache (the cache still saves time).
    assert _make_book(root) == ("the library says 2", False)
    stamp = (bookconfig.execution_cache_dir(root) / FINGERPRINT_FILE).read_text().strip()
    assert stamp == _run(root, f"{BIN}/python -m tempnets.book.bookconfig fingerprint .").strip()


def test_make_book_refreshes_the_cache_before_it_builds():
    """The Makefile's book recipe runs refresh-cache, in the build's environment, before executing,
    and builds every page afresh (Sphinx's saved state knows nothing of the library)."""
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^book: .*\n((?:\t.*\n)+)", makefile, re.M).group(1).splitlines()
    steps = [i for i, line in enumerate(recipe) if "tempnets.book.bookconfig refresh-cache ." in line]
    builds = [i for i, line in enumerate(recipe) if "jupyter-book build ." in line]
    assert steps and builds and steps[0] < builds[0], recipe
    assert "--all" in recipe[builds[0]].split()
    assert recipe[steps[0]].split()[0] == recipe[builds[0]].split()[0] == "$(RUN)", \
        "the fingerprint must see the build's TEMPNETS_* variables"
    fingerprint = re.search(r"^book-fingerprint: .*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    assert "$(RUN)" in fingerprint and "tempnets.book.bookconfig fingerprint ." in fingerprint


def test_the_cache_is_where_jupyter_book_puts_it():
    """_config.yml sets no execute.cache: myst-nb's default, beside the HTML (_build/html)."""
    assert bookconfig.execution_cache_dir(ROOT) == ROOT / "_build" / ".jupyter_cache"


# ----------------------------------------------------------------- the fingerprint

@pytest.fixture
def library(tmp_path):
    (tmp_path / "tempnets" / "chapters").mkdir(parents=True)
    (tmp_path / "book" / "paper_scale").mkdir(parents=True)
    (tmp_path / "tempnets" / "__init__.py").write_text("A = 1\n")
    (tmp_path / "tempnets" / "chapters" / "ch.py").write_text("B = 1\n")
    (tmp_path / "book" / "paper_scale" / "x.json").write_text("{}\n")
    (tmp_path / "book" / "ch.ipynb").write_text("{}\n")
    return tmp_path


@pytest.mark.parametrize("change", [
    lambda root: (root / "tempnets" / "__init__.py").write_text("A = 2\n"),
    lambda root: (root / "tempnets" / "chapters" / "ch.py").write_text("B = 2\n"),
    lambda root: (root / "tempnets" / "new.py").write_text(""),
    lambda root: (root / "book" / "paper_scale" / "x.json").write_text('{"a": 1}\n'),
    lambda root: (root / "book" / "paper_scale" / "x.json").rename(root / "book" / "paper_scale" / "y.json"),
], ids=["library", "chapter module", "new module", "record", "renamed record"])
def test_the_fingerprint_follows_the_library_and_the_records(library, change):
    before = book_fingerprint(library)
    assert book_fingerprint(library) == before  # deterministic
    change(library)
    assert book_fingerprint(library) != before


def test_the_fingerprint_follows_packages_and_tempnets_variables(library, monkeypatch):
    before = book_fingerprint(library)
    monkeypatch.setenv("TEMPNETS_SCALE", "paper")
    assert book_fingerprint(library) != before
    monkeypatch.delenv("TEMPNETS_SCALE")
    assert book_fingerprint(library) == before
    packages = bookconfig.installed_distributions()
    assert any(p.startswith("numpy==") for p in packages) and any(p.startswith("numba==") for p in packages)
    bumped = [re.sub(r"^numba==.*", "numba==0.0.1", p) for p in packages]
    monkeypatch.setattr(bookconfig, "installed_distributions", lambda: bumped)
    assert book_fingerprint(library) != before


def test_the_fingerprint_ignores_what_jupyter_cache_already_hashes(library):
    """A chapter's own cells are jupyter-cache's business: editing one must not re-run every chapter."""
    before = book_fingerprint(library)
    (library / "book" / "ch.ipynb").write_text('{"cells": []}\n')
    (library / "tempnets" / "notes.txt").write_text("not Python\n")
    assert book_fingerprint(library) == before


# ----------------------------------------------------------------- emptying the cache

def _filled_cache(folder: Path) -> Path:
    """A jupyter-cache holding one executed notebook, as myst-nb leaves it."""
    import nbformat
    from jupyter_cache import get_cache

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1", execution_count=1, outputs=[
        nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=1)])])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    source = folder.parent / "nb.ipynb"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(nbformat.writes(nb))
    get_cache(str(folder)).cache_notebook_file(source, check_validity=False)
    return folder


def test_refresh_empties_a_cache_filled_under_another_fingerprint(tmp_path):
    from jupyter_cache import get_cache

    cache_dir = _filled_cache(tmp_path / "build" / ".jupyter_cache")
    assert refresh_execution_cache(cache_dir, "abc") == 1  # no fingerprint yet: an old cache
    assert get_cache(str(cache_dir)).list_cache_records() == []
    assert not list((cache_dir / "executed").iterdir())
    assert (cache_dir / FINGERPRINT_FILE).read_text() == "abc\n"
    _filled_cache(cache_dir)
    assert refresh_execution_cache(cache_dir, "abc") is None  # same fingerprint: kept
    assert len(get_cache(str(cache_dir)).list_cache_records()) == 1
    assert refresh_execution_cache(cache_dir, "def") == 1
    assert get_cache(str(cache_dir)).list_cache_records() == []
    fresh = tmp_path / "none" / ".jupyter_cache"
    assert refresh_execution_cache(fresh, "abc") == 0 and (fresh / FINGERPRINT_FILE).exists()


def test_refresh_removes_nothing_it_did_not_make(tmp_path, capsys):
    cache_dir = _filled_cache(tmp_path / ".jupyter_cache")
    (cache_dir / "thesis.tex").write_text("mine")
    with pytest.raises(ValueError, match=r"holds thesis.tex, which jupyter-cache does not write: not emptying"):
        refresh_execution_cache(cache_dir, "abc")
    assert (cache_dir / "thesis.tex").read_text() == "mine"
    assert (cache_dir / "global.db").exists() and not (cache_dir / FINGERPRINT_FILE).exists()
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(ValueError, match="is a file, not a folder"):
        refresh_execution_cache(a_file, "abc")
    # The command says so in one line and exits 2.
    (tmp_path / "_config.yml").write_text("execute:\n  cache: .jupyter_cache\n")
    assert bookconfig.main(["refresh-cache", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: execution cache")
