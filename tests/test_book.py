"""The book's own rules: every chapter is in the table of contents, committed
without outputs, opens by importing tempnets; the README's Binder badge points at
the configured repository; the student edition leaks no solution text."""

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tempnets.bookconfig import merge, pages_missing_figures, student_config

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "book").rglob("*.ipynb"))
NOTEBOOKS = [p for p in NOTEBOOKS if ".ipynb_checkpoints" not in p.parts]


def toc_files() -> set[str]:
    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                yield node["file"]
            for v in node.values():
                yield from walk(v)
        elif isinstance(node, list):
            for v in node:
                yield from walk(v)
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return {toc["root"], *walk(toc)}


def test_there_are_notebooks_for_nbval_to_run():
    assert NOTEBOOKS, "no .ipynb under book/: 'pytest --nbval-lax book/' would collect nothing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_in_the_toc(path):
    stem = str(path.relative_to(ROOT).with_suffix(""))
    assert stem in toc_files(), f"{stem} is not listed in _toc.yml"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_without_outputs(path):
    nb = json.loads(path.read_text())
    dirty = [i for i, c in enumerate(nb["cells"])
             if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))]
    assert not dirty, f"{path.name}: cells {dirty} have outputs or execution counts"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_first_code_cell_prints_the_tempnets_version(path):
    nb = json.loads(path.read_text())
    first = next("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert "import tempnets" in first and "tempnets.__version__" in first


def test_toc_entries_exist():
    for entry in toc_files():
        assert any((ROOT / (entry + ext)).exists() for ext in ("", ".md", ".ipynb")), entry


def test_readme_binder_badge_matches_the_configured_repository():
    url = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
    owner_repo = url.rstrip("/").removeprefix("https://github.com/")
    assert f"mybinder.org/v2/gh/{owner_repo}/" in (ROOT / "README.md").read_text()


def test_config_keeps_launch_buttons_and_runs_every_cell_strictly():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["sphinx"]["recursive_update"] is True
    assert config["launch_buttons"]["binderhub_url"] and config["launch_buttons"]["colab_url"]
    assert config["execute"]["allow_errors"] is False and config["only_build_toc_files"] is True


def test_student_config_overrides_without_losing_settings():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    student = student_config(config)
    assert student["sphinx"]["config"]["hide_solutions"] is True
    assert student["sphinx"]["config"]["html_copy_source"] is False
    assert student["sphinx"]["config"]["html_theme_options"]["use_download_button"] is False
    assert student["launch_buttons"] == config["launch_buttons"]
    assert student["sphinx"]["extra_extensions"] == config["sphinx"]["extra_extensions"]
    assert merge({"a": {"b": 1, "c": 2}}, {"a": {"b": 3}}) == {"a": {"b": 3, "c": 2}}
    shared = student_config(config, "/abs/_build/.jupyter_cache")
    assert shared["execute"]["cache"] == "/abs/_build/.jupyter_cache"
    assert shared["execute"]["execute_notebooks"] == config["execute"]["execute_notebooks"]


# ---------------------------------------------------------------- student edition

SOLUTION = re.compile(r"^(`{3,}|:{3,})\{solution\}.*?$(.*?)^\1\s*$", re.S | re.M)


def solution_probes() -> dict[str, list[str]]:
    """For every solution in the book, a few runs of six plain words from its text."""
    probes = {}
    for path in NOTEBOOKS:
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            for m in SOLUTION.finditer("".join(cell["source"])):
                body = " ".join(line for line in m.group(2).splitlines() if not line.startswith(":"))
                words = re.findall(r"[A-Za-z]{3,}", re.sub(r"\$[^$]*\$|`[^`]*`", " ", body))
                runs = [" ".join(words[i:i + 6]) for i in range(0, max(len(words) - 5, 0), 6)]
                probes[f"{path.name}: {m.group(0).splitlines()[0]}"] = runs
    return probes


def plain_words(text: str) -> str:
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    return " ".join(re.findall(r"[A-Za-z]{3,}", re.sub(r"\\\(.*?\\\)|\$[^$]*\$", " ", text)))


def leaks(build: Path, probes: dict[str, list[str]]) -> dict[str, list[str]]:
    """Map each file under ``build`` to the solutions whose text it contains."""
    found = {}
    for f in build.rglob("*"):
        if not f.is_file():
            continue
        try:
            text = plain_words(f.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            continue  # images, fonts, pickles: no readable solution text
        hits = [name for name, runs in probes.items() if any(r in text for r in runs)]
        if hits:
            found[str(f.relative_to(build))] = hits
    return found


def build_book(config: dict, out: Path) -> Path:
    """Build the book without executing notebooks (solutions are text) and return the output folder."""
    config = merge(config, {"execute": {"execute_notebooks": "off"}})
    out.mkdir(parents=True)
    cfg = out / "config.yml"
    cfg.write_text(yaml.safe_dump(config))
    jb = Path(sys.executable).with_name("jupyter-book")
    run = subprocess.run([str(jb), "build", str(ROOT), "--config", str(cfg), "--path-output", str(out),
                          "-n", "-W", "--keep-going"], capture_output=True, text=True)
    assert run.returncode == 0, f"book build failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    return out / "_build"


@pytest.mark.slow
def test_student_edition_contains_no_solution_text(tmp_path):
    probes = solution_probes()
    assert probes and all(probes.values()), "found no solutions to look for"
    config = yaml.safe_load((ROOT / "_config.yml").read_text())

    # The detector must see the solutions where they are meant to be: the instructor's edition.
    instructor = build_book(config, tmp_path / "instructor")
    seen = {name for hits in leaks(instructor / "html", probes).values() for name in hits}
    assert seen == set(probes), f"detector missed solutions in the instructor build: {set(probes) - seen}"
    # Display math written inside a paragraph or list item must render as math, not as "$...$".
    stray = [p.name for p in (instructor / "html").rglob("*.html")
             if re.search(r'\$<span class="math|</span>\$', p.read_text(encoding="utf-8"))]
    assert not stray, f"unrendered $$ display math in {stray} (is myst_dmath_double_inline set?)"

    # What make student-book publishes: the HTML folder.
    student = build_book(student_config(config), tmp_path / "student")
    assert not leaks(student / "html", probes), "solution text in the student edition"
    assert not (student / "html" / "_sources").exists() or not any((student / "html" / "_sources").iterdir())


def test_figure_check_flags_a_page_without_images(tmp_path):
    book, html_dir = tmp_path / "book", tmp_path / "html" / "book"
    book.mkdir()
    html_dir.mkdir(parents=True)
    cell = {"cell_type": "code", "source": ["plt.plot([1, 2])\n", "plt.show()"], "outputs": []}
    for name in ("drawn", "blank"):
        (book / f"{name}.ipynb").write_text(json.dumps({"cells": [cell]}))
    (html_dir / "drawn.html").write_text("<p>x</p><img src='a.png'>")
    (html_dir / "blank.html").write_text("<p>x</p><img alt='Binder logo' src='../_static/images/logo.svg'>")
    assert pages_missing_figures(book, tmp_path / "html") == [str(html_dir / "blank.html")]
