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

from tempnets.book.bookconfig import (cells_with_stderr, main, merge, pages_missing_figures, student_config,
                                 wide_figures_not_full_width)

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


def test_markdown_a_cell_displays_is_parsed_with_tables():
    """The scorecard and cluster pages display computed Markdown tables; MyST-NB's default
    ("commonmark") has no tables and prints their pipes as a paragraph (seen in a build)."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["sphinx"]["config"]["nb_render_markdown_format"] in ("myst", "gfm")
    student = student_config(config)
    assert student["sphinx"]["config"]["nb_render_markdown_format"] == config["sphinx"]["config"]["nb_render_markdown_format"]


def test_student_config_overrides_without_losing_settings():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    student = student_config(config)
    assert student["sphinx"]["config"]["hide_solutions"] is True
    assert student["sphinx"]["config"]["html_theme_options"]["use_download_button"] is True
    # no button may open the instructor's notebooks on the main branch
    assert not any(student["launch_buttons"][k] for k in ("binderhub_url", "colab_url", "jupyterhub_url"))
    assert student["html"]["use_repository_button"] is False and student["html"]["use_issues_button"] is False
    # the student sources carry the instructor build's outputs
    assert student["execute"]["execute_notebooks"] == "off"
    assert student["sphinx"]["extra_extensions"] == config["sphinx"]["extra_extensions"]
    assert student["html"]["extra_footer"] == config["html"]["extra_footer"]
    assert student["repository"] == config["repository"]
    assert merge({"a": {"b": 1, "c": 2}}, {"a": {"b": 3}}) == {"a": {"b": 3, "c": 2}}


# ---------------------------------------------------------------- student edition

def all_probes() -> dict[str, list[str]]:
    """Runs of words from every solution and lines of every coding exercise's solution."""
    from test_book_conventions import solution_probes

    return {name: runs for path in NOTEBOOKS for name, runs in solution_probes(path).items() if runs}


def plain_words(text: str) -> str:
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    return " ".join(re.findall(r"[A-Za-z]{3,}", re.sub(r"\\\(.*?\\\)|\$[^$]*\$", " ", text)))


def leaks(build: Path, probes: dict[str, list[str]]) -> dict[str, list[str]]:
    """Map each file under ``build`` to the solutions whose text or code it contains."""
    found = {}
    for f in build.rglob("*"):
        if not f.is_file():
            continue
        try:
            raw = f.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # images, fonts, pickles: no readable solution text
        # Code is compared on the page's text without tags and with whitespace runs collapsed.
        flat = " ".join(html.unescape(re.sub(r"<[^>]+>", "", raw)).split())
        text = plain_words(raw)
        hits = [name for name, runs in probes.items()
                if any((" ".join(r.split()) in flat) if "solution code" in name else (r in text) for r in runs)]
        if hits:
            found[str(f.relative_to(build))] = hits
    return found


def build_book(config: dict, out: Path, source: Path = ROOT) -> Path:
    """Build the book in ``source`` without executing notebooks and return the output folder."""
    config = merge(config, {"execute": {"execute_notebooks": "off"}})
    out.mkdir(parents=True)
    cfg = out / "config.yml"
    cfg.write_text(yaml.safe_dump(config))
    jb = Path(sys.executable).with_name("jupyter-book")
    run = subprocess.run([str(jb), "build", str(source), "--config", str(cfg), "--path-output", str(out),
                          "-n", "-W", "--keep-going"], capture_output=True, text=True)
    assert run.returncode == 0, f"book build failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    return out / "_build"


def links(build: Path) -> dict[str, set[str]]:
    """Every href/src of every HTML page under ``build``, by page."""
    return {str(p.relative_to(build)): set(re.findall(r'(?:href|src)="([^"]+)"', p.read_text(encoding="utf-8")))
            for p in build.rglob("*.html")}


def forbidden(url: str, repo: str) -> bool:
    """A link that opens the instructor's material: a launch service or the repository itself
    (except a library file outside tempnets/chapters/, which holds no solution: ``tempnets/models/bptt.py``)."""
    if any(host in url for host in ("mybinder.org", "colab.research.google.com", "jupyterhub")):
        return True
    if url.startswith(repo):
        return not re.match(re.escape(repo) + r"/blob/[^/]+/tempnets/(?!chapters/)(\w+/)?\w+\.py$", url)
    return False


@pytest.mark.slow
def test_student_edition_contains_no_solution_and_no_link_to_one(tmp_path):
    from tempnets.book.bookconfig import write_student_sources

    probes = all_probes()
    assert probes and any("solution code" in n for n in probes), "found no solutions to look for"
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    repo = config["repository"]["url"].rstrip("/")

    # The detectors must see the solutions and the launch links where they are meant to be:
    # the instructor's edition.
    instructor = build_book(config, tmp_path / "instructor")
    seen = {name for hits in leaks(instructor / "html", probes).values() for name in hits}
    assert set(probes) <= seen, f"detector missed solutions in the instructor build: {set(probes) - seen}"
    assert any(forbidden(u, repo) for page in links(instructor / "html").values() for u in page), \
        "the instructor build has no launch links: the link detector would prove nothing"
    # Display math written inside a paragraph or list item must render as math, not as "$...$".
    stray = [p.name for p in (instructor / "html").rglob("*.html")
             if re.search(r'\$<span class="math|</span>\$', p.read_text(encoding="utf-8"))]
    assert not stray, f"unrendered $$ display math in {stray} (is myst_dmath_double_inline set?)"

    # What make student-book publishes: the HTML folder built from the student sources.
    write_student_sources(ROOT, tmp_path / "src")
    student = build_book(student_config(config), tmp_path / "student", source=tmp_path / "src") / "html"
    assert not leaks(student, probes), "solution text or code in the student edition"
    bad = {page: sorted(u for u in urls if forbidden(u, repo)) for page, urls in links(student).items()}
    assert not {p: u for p, u in bad.items() if u}, f"links that reach the instructor's notebooks: {bad}"
    # Each chapter offers its (solution-free) notebook for download, and it is there.
    for nb in NOTEBOOKS:
        rel = nb.relative_to(ROOT)
        page = (student / rel.with_suffix(".html")).read_text(encoding="utf-8")
        assert f"_sources/{rel.as_posix()}" in page, f"{rel}: no download link to its notebook"
        assert (student / "_sources" / rel).exists()


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


def test_output_check_flags_a_cell_that_shows_a_warning(tmp_path, capsys):
    quiet = {"cell_type": "code", "source": [], "outputs": [{"output_type": "stream", "name": "stdout", "text": ["ok\n"]}]}
    warned = {"cell_type": "code", "source": [], "outputs": [
        {"output_type": "stream", "name": "stderr", "text": ["x.py:1: RuntimeWarning: Precision loss\n", "  more\n"]}]}
    (tmp_path / "a.ipynb").write_text(json.dumps({"cells": [quiet, warned]}))
    assert cells_with_stderr(tmp_path) == ["a.ipynb cell 1: x.py:1: RuntimeWarning: Precision loss"]
    assert main(["check-outputs", str(tmp_path)]) == 1
    assert "RuntimeWarning" in capsys.readouterr().err
    (tmp_path / "a.ipynb").write_text(json.dumps({"cells": [quiet]}))
    assert main(["check-outputs", str(tmp_path)]) == 0
    blank = {"cell_type": "code", "source": [], "outputs": [{"output_type": "stream", "name": "stderr", "text": ["\n"]}]}
    (tmp_path / "a.ipynb").write_text(json.dumps({"cells": [blank]}))
    assert cells_with_stderr(tmp_path) == ["a.ipynb cell 0: (empty)"]


def test_output_check_flags_a_wide_figure_without_the_full_width_tag(tmp_path):
    import base64
    import io

    from PIL import Image

    def figure_cell(width, tags=()):
        buf = io.BytesIO()
        Image.new("RGB", (width, 10)).save(buf, format="PNG")
        return {"cell_type": "code", "source": [], "metadata": {"tags": list(tags)},
                "outputs": [{"output_type": "display_data",
                             "data": {"image/png": base64.b64encode(buf.getvalue()).decode()}}]}

    cells = [figure_cell(700), figure_cell(1190), figure_cell(1190, ["full-width"])]
    (tmp_path / "a.ipynb").write_text(json.dumps({"cells": cells}))
    assert wide_figures_not_full_width(tmp_path) == ["a.ipynb cell 1: figure 1190 px wide"]
    assert main(["check-outputs", str(tmp_path)]) == 1
    (tmp_path / "a.ipynb").write_text(json.dumps({"cells": [cells[0], cells[2]]}))
    assert main(["check-outputs", str(tmp_path)]) == 0
