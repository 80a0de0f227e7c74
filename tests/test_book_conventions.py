"""The conventions of CONTRIBUTING.md, checked for every notebook in book/ (new chapters included):
the Colab guard opens the code; objectives, prerequisites and runtime open the chapter and a summary
closes it; exercises are numbered within the chapter and labelled; coding exercises are scaffolded
and self-checked; the student version of a notebook holds no solution."""

import json
import re
from pathlib import Path

import pytest
import yaml

from tempnets.book.bookconfig import BEGIN, END, SOLUTION_DIRECTIVE, student_code, student_notebook

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = [p for p in sorted((ROOT / "book").rglob("*.ipynb")) if ".ipynb_checkpoints" not in p.parts]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())


def cells(path) -> list:
    return json.loads(Path(path).read_text(encoding="utf-8"))["cells"]


def text(cell) -> str:
    return "".join(cell["source"])


def colab_guard() -> str:
    """The first lines of every chapter's first code cell (CONTRIBUTING.md), for the configured repository."""
    repo = CONFIG["repository"]
    url = f"git+{repo['url'].rstrip('/')}@{repo.get('branch', 'main')}"
    return ("import importlib.util\n"
            'if importlib.util.find_spec("tempnets") is None:  # Colab: install this book\'s library first\n'
            f'    %pip install --quiet "tempnets @ {url}"\n')


def by_notebook(f):
    return pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)(f)


# ------------------------------------------------------------------------ Colab

@by_notebook
def test_first_code_cell_installs_tempnets_only_where_it_is_missing(path):
    first = next(text(c) for c in cells(path) if c["cell_type"] == "code")
    assert first.startswith(colab_guard()), \
        f"{path.name}: the first code cell must start with the Colab guard of CONTRIBUTING.md:\n{colab_guard()}"
    assert "import tempnets" in first and "tempnets.__version__" in first


def run_guard(monkeypatch, missing: bool) -> list:
    """Run the guard as IPython would (``%pip`` inside the ``if``); return the magics it called."""
    import importlib.util

    from IPython.core.inputtransformer2 import TransformerManager

    python = TransformerManager().transform_cell(colab_guard())
    assert "%pip" not in python, python            # IPython turned the magic into a call
    code = compile(python, "<colab guard>", "exec")  # and the result is valid Python
    calls = []

    class Shell:
        def run_line_magic(self, name, line):
            calls.append((name, line))

    if missing:
        real = importlib.util.find_spec
        monkeypatch.setattr(importlib.util, "find_spec",
                            lambda name, *a: None if name == "tempnets" else real(name, *a))
    exec(code, {"get_ipython": lambda: Shell()})
    return calls


def test_colab_guard_does_nothing_where_tempnets_is_installed(monkeypatch):
    # Binder, a local checkout and `make test` all have tempnets installed (as here).
    assert run_guard(monkeypatch, missing=False) == []


def test_colab_guard_installs_the_configured_repository_where_tempnets_is_missing(monkeypatch):
    calls = run_guard(monkeypatch, missing=True)
    assert calls == [("pip", f'install --quiet "tempnets @ git+{CONFIG["repository"]["url"]}@main"')]


# ------------------------------------------------------------ opening and closing

@by_notebook
def test_every_cell_has_an_id(path):
    """nbformat 4.5 cell ids: without one, make student-book fails (jupyter-cache matches the
    executed outputs to the cells by id)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert (nb["nbformat"], nb["nbformat_minor"]) >= (4, 5)
    ids = [c.get("id") for c in nb["cells"]]
    missing = [i for i, x in enumerate(ids) if not x]
    assert not missing, f"{path.name}: cells {missing} have no id"
    assert len(set(ids)) == len(ids), f"{path.name}: repeated cell ids"


BINDER_ONLY = re.compile(r"(?:^|[.!?]\s+)In\s+Binder\b")


@by_notebook
def test_no_instruction_assumes_binder(path):
    """The student edition has no launch buttons: a sentence that tells the reader what to do
    "In Binder" is false there; say "running the notebook yourself (in Binder or on your
    machine)" instead."""
    bad = [i for i, c in enumerate(cells(path)) if c["cell_type"] == "markdown"
           and BINDER_ONLY.search(text(c))]
    assert not bad, f"{path.name}: cells {bad} give instructions for Binder only"


def test_binder_only_instructions_are_found():
    assert BINDER_ONLY.search("The static book shows *explain*. In Binder, try verbs")
    assert not BINDER_ONLY.search("Running the notebook yourself (in Binder or on your machine), try")


@by_notebook
def test_chapter_opens_with_objectives_prerequisites_and_runtime(path):
    first = cells(path)[0]
    assert first["cell_type"] == "markdown" and text(first).startswith("# "), f"{path.name}: no title cell"
    body = text(first)
    m = re.search(r"Learning objectives.*?\n((?:[-*] .+\n?)+)", body)
    assert m, f"{path.name}: the first cell has no 'Learning objectives' list"
    n = len(re.findall(r"^[-*] ", m.group(1), re.M))
    assert 3 <= n <= 5, f"{path.name}: {n} learning objectives (3-5 wanted)"
    assert re.search(r"Prerequisites\W", body), f"{path.name}: the first cell names no prerequisites"
    assert re.search(r"Runtime\W.*?\d+\s*min", body, re.S), f"{path.name}: the first cell gives no runtime in minutes"


@by_notebook
def test_chapter_closes_with_a_summary(path):
    headings = [line for c in cells(path) if c["cell_type"] == "markdown"
                for line in text(c).splitlines() if re.match(r"## \S", line)]
    assert headings and headings[-1].strip() == "## Summary", \
        f"{path.name}: the last section is {headings[-1:]}, not '## Summary'"
    summary = next(text(c) for c in cells(path) if text(c).startswith("## Summary"))
    n = len(re.findall(r"^[-*] ", summary, re.M))
    assert 5 <= n <= 8, f"{path.name}: the summary has {n} bullets (5-8 wanted)"


# -------------------------------------------------------------------- exercises

EXERCISE = re.compile(r"^(`{3,}|:{3,})\{exercise\}(.*)\n((?::\w+:.*\n)*)", re.M)
TITLE = re.compile(r"^ (\d+)\. \S.* — (★{1,3}), [^,]+, (\d+) min$")


def exercises(path) -> list[dict]:
    found = []
    for c in cells(path):
        if c["cell_type"] == "markdown":
            for m in EXERCISE.finditer(text(c)):
                options = dict(re.findall(r"^:(\w+):\s*(.*)$", m.group(3), re.M))
                found.append({"title": m.group(2), **options})
    return found


@by_notebook
def test_exercises_are_numbered_within_the_chapter_with_difficulty_and_time(path):
    found = exercises(path)
    for k, ex in enumerate(found, start=1):
        m = TITLE.match(ex["title"])
        assert m, (f"{path.name}: exercise title {ex['title']!r} is not "
                   "'N. Short title — ★★, kind, M min' (CONTRIBUTING.md)")
        assert int(m.group(1)) == k, f"{path.name}: exercise {ex['title']!r} should be number {k}"
        assert "nonumber" in ex, f"{path.name}: exercise {k} needs :nonumber: (its number is in the title)"
        assert ex.get("label", "").startswith("ex-"), f"{path.name}: exercise {k} has no ex-... label"
    labels = [ex["label"] for ex in found]
    solved = re.findall(r"\{solution\}\s*(\S+)", "\n".join(text(c) for c in cells(path)))
    assert sorted(labels) == sorted(solved), f"{path.name}: exercises {labels} vs solutions {solved}"


def solution_blocks(source: str) -> list[str]:
    return re.findall(rf"^[ \t]*{re.escape(BEGIN)}\n(.*?)^[ \t]*{re.escape(END)}", source, re.S | re.M)


@by_notebook
def test_coding_exercises_are_scaffolded_and_self_checked(path):
    from IPython.core.inputtransformer2 import TransformerManager

    for c in cells(path):
        source = text(c)
        if c["cell_type"] != "code" or BEGIN not in source:
            continue
        assert source.count(BEGIN) == source.count(END) == len(solution_blocks(source)), source
        after = source[source.rindex(END):]
        assert re.search(r"\bcheck_\w+\(", after), f"{path.name}: no self-check after the solution:\n{source}"
        scaffold = student_code(source)
        compile(TransformerManager().transform_cell(scaffold), path.name, "exec")
        assert "# YOUR CODE HERE" in scaffold


def _imports(path) -> str:
    """Every top-level import line of a notebook's code cells (no magics, no installs)."""
    return "".join(line for c in cells(path) if c["cell_type"] == "code"
                   for line in text(c).splitlines(keepends=True)
                   if line.startswith(("import ", "from ")))


@by_notebook
def test_student_scaffolds_say_no_answer_yet(path):
    """A student who runs a coding exercise's cell before writing anything reads the
    self-check's "no answer yet" / "not written yet", not a NameError."""
    from tempnets.book.selfcheck import CheckFailed

    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    for c in cells(path):
        source = text(c)
        if c["cell_type"] != "code" or BEGIN not in source:
            continue
        namespace: dict = {}
        exec(_imports(path), namespace)  # noqa: S102 - the chapter's own imports
        with pytest.raises(CheckFailed, match="no answer yet|not written yet"):
            exec(student_code(source), namespace)  # noqa: S102


def test_the_book_has_self_checked_coding_exercises():
    coding = [p.name for p in NOTEBOOKS for c in cells(p) if c["cell_type"] == "code" and BEGIN in text(c)]
    assert len(coding) >= 3, f"coding exercises found: {coding}"


# ------------------------------------------------------------- student edition

def plain_words(markdown: str) -> str:
    """The words of three letters or more, outside math and inline code, joined by single spaces."""
    return " ".join(re.findall(r"[A-Za-z]{3,}", re.sub(r"\$[^$]*\$|`[^`]*`", " ", markdown)))


def solution_probes(path) -> dict[str, list[str]]:
    """Runs of six words from every solution's text, and every line of solution code
    that appears nowhere else in the notebook."""
    nb = cells(path)
    probes = {}
    # The notebook without its solutions (cut out by regexes, independently of student_notebook):
    # a run of words that also occurs there is no evidence of a leak.
    block = re.compile(rf"^[ \t]*{re.escape(BEGIN)}\n.*?^[ \t]*{re.escape(END)}\n?", re.S | re.M)
    outside = "\n".join(block.sub("", text(c)) for c in nb if c["cell_type"] == "code")
    outside_words = plain_words("\n".join(SOLUTION_DIRECTIVE.sub("", text(c)) for c in nb) )
    for c in nb:
        if c["cell_type"] != "markdown":
            continue
        for m in SOLUTION_DIRECTIVE.finditer(text(c)):
            body = " ".join(line for line in m.group(0).splitlines()[1:] if not line.startswith(":"))
            words = plain_words(body).split()
            runs = [" ".join(words[i:i + 6]) for i in range(0, max(len(words) - 5, 0), 6)]
            probes[f"{path.name}: {m.group(0).splitlines()[0]}"] = [r for r in runs if r not in outside_words]
    for c in nb:
        for k, body in enumerate(solution_blocks(text(c)) if c["cell_type"] == "code" else []):
            lines = [line.split("  # ")[0].strip() for line in body.splitlines()]
            probes[f"{path.name}: solution code {k + 1} in cell {nb.index(c)}"] = \
                [line for line in lines if len(line) >= 12 and line not in outside and not line.startswith("#")]
    return probes


@by_notebook
def test_student_notebook_holds_no_solution(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    student = student_notebook(nb)
    everything = "\n".join(text(c) for c in student["cells"])
    assert "{solution}" not in everything and BEGIN not in everything and END not in everything
    words = plain_words(everything)
    probes = solution_probes(path)
    # Every written solution has words of its own (solution code may repeat the chapter's lines).
    empty = [n for n, r in probes.items() if not r and "solution code" not in n]
    assert not empty, f"solutions with nothing to look for: {empty}"
    for name, runs in probes.items():
        leaked = [r for r in runs if r in words or r in everything]
        assert not leaked, f"{name} leaks into the student notebook: {leaked[:3]}"
    scaffolds = [c for c in student["cells"] if "# YOUR CODE HERE" in text(c)]
    assert all("raises-exception" in c["metadata"]["tags"] and not c["outputs"] for c in scaffolds)
    # Nothing else changes: the instructor's cells, in order, with their tags.
    assert len(student["cells"]) == len(nb["cells"])
    assert nb == json.loads(path.read_text(encoding="utf-8")), "student_notebook modified its argument"


def test_student_notebook_takes_outputs_from_the_executed_notebook():
    code = lambda src, out=(): {"cell_type": "code", "source": src, "metadata": {},  # noqa: E731
                                "outputs": list(out), "execution_count": None}
    exercise = "def f():\n    # BEGIN SOLUTION\n    return 1\n    # END SOLUTION\ncheck_f(f)\n"
    nb = {"cells": [code("x = 1\n"), code(exercise)]}
    shown = {"output_type": "stream", "name": "stdout", "text": "1\n"}
    ran = {"cells": [code("x = 1\n", [shown]), code(exercise, [shown])]}
    student = student_notebook(nb, ran)
    assert student["cells"][0]["outputs"] == [shown]
    assert student["cells"][1]["outputs"] == [] and "return 1" not in text(student["cells"][1])
    with pytest.raises(ValueError, match="does not match"):
        student_notebook(nb, {"cells": [code("x = 2\n"), code(exercise)]})


def test_student_outputs_come_from_the_build_cache_when_jupyter_execute_has_none(tmp_path):
    """myst-nb writes a notebook it took from its cache to jupyter_execute without outputs; the
    student edition then lost every output of that page (seen after an interrupted build)."""
    import nbformat
    from jupyter_cache import get_cache

    from tempnets.book.bookconfig import executed_notebook

    source = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])
    done = nbformat.from_dict(json.loads(nbformat.writes(source)))
    done.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    (tmp_path / "done.ipynb").write_text(nbformat.writes(done))
    build = tmp_path / "_build"
    get_cache(str(build / ".jupyter_cache")).cache_notebook_file(str(tmp_path / "done.ipynb"),
                                                                  check_validity=False)
    ran = build / "jupyter_execute" / "book" / "page.ipynb"
    ran.parent.mkdir(parents=True)
    ran.write_text(nbformat.writes(source))  # what myst-nb leaves there on a cache hit
    nb = json.loads(nbformat.writes(source))
    assert "".join(executed_notebook(nb, ran)["cells"][0]["outputs"][0]["text"]) == "1\n"
    other = json.loads(nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 2")])))
    ran.write_text(json.dumps(other))
    with pytest.raises(ValueError, match="has no outputs"):
        executed_notebook(other, ran)  # not in the cache, and no outputs: refuse, do not lose them
    with pytest.raises(FileNotFoundError, match="make book"):
        executed_notebook(other, build / "jupyter_execute" / "book" / "missing.ipynb")


def test_student_code_rejects_unbalanced_markers():
    for bad in (f"{BEGIN}\nx = 1\n", f"x = 1\n{END}\n", f"{BEGIN}\n{BEGIN}\n{END}\n"):
        with pytest.raises(ValueError):
            student_code(bad)


# ------------------------------------------------------------------------ licence

def test_code_and_content_licences_are_stated_and_shown_in_the_footer():
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "MIT License" in licence and "Permission is hereby granted, free of charge" in licence
    assert "CC BY 4.0" in licence and "creativecommons.org/licenses/by/4.0" in licence
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'license\s*=\s*\{\s*text\s*=\s*"MIT"', pyproject)
    footer = CONFIG["html"]["extra_footer"]
    assert "MIT" in footer and "CC BY 4.0" in footer and "creativecommons.org/licenses/by/4.0" in footer


def test_the_notation_page_is_in_the_book():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    assert "file: book/notation" in toc
    page = (ROOT / "book" / "notation.md").read_text(encoding="utf-8")
    for code_name in ("W_ih", "W_hh", "W_ho", "b_h", "b_o", "learning_rate", "momentum", "h_prime"):
        assert f"`p.{code_name}`" in page or f"`cfg.{code_name}`" in page, code_name


def test_bibliography_parses_with_unique_keys():
    """A merge that drops a brace or repeats a key breaks the whole book build; catch it in a second."""
    pybtex = pytest.importorskip("pybtex.database")
    source = (ROOT / "book" / "references.bib").read_text(encoding="utf-8")
    keys = re.findall(r"^@\w+\{([^,]+),", source, flags=re.M)
    assert len(keys) == len(set(keys)), f"repeated keys: {sorted({k for k in keys if keys.count(k) > 1})}"
    assert len(pybtex.parse_string(source, "bibtex").entries) == len(keys)


def table_shown_twice(code_cells) -> list:
    """Pairs of consecutive code cells where the first ends by showing ``E`` (``E`` or
    ``display(E)``) and the next ends with ``E.verify()``, which shows the same table again."""
    last = [text(c).rstrip().splitlines()[-1].strip() if text(c).strip() else "" for c in code_cells]
    shown = [m.group(1) if (m := re.fullmatch(r"(?:display\()?([\w.]+)\)?", s)) else None for s in last]
    return [(i, last[i + 1]) for i in range(len(last) - 1)
            if shown[i] and last[i + 1] == f"{shown[i]}.verify()"]


def test_table_shown_twice_is_found():
    cell = lambda s: {"cell_type": "code", "source": s}
    assert table_shown_twice([cell("plot()\nr.claims"), cell("r.claims.verify()")]) == [(0, "r.claims.verify()")]
    assert table_shown_twice([cell("display(r.claims)"), cell("r.claims.verify()")])
    assert not table_shown_twice([cell("r.claims"), cell("r.claims.verify();")])
    assert not table_shown_twice([cell("plot()"), cell("r.claims.verify()")])


@by_notebook
def test_no_claims_table_is_shown_twice_in_a_row(path):
    """The verify cell after a cell that shows the table ends with ';' (else the reader sees it twice)."""
    code = [c for c in cells(path) if c["cell_type"] == "code"]
    assert not table_shown_twice(code), f"{path.name}: end these verify cells with ';': {table_shown_twice(code)}"
