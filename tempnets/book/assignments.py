"""Otter-grader assignments made from the chapters' coding exercises.

An instructor assigns a chapter's coding exercises and grades the notebooks students hand in
with `otter-grader <https://otter-grader.readthedocs.io>`_ (the ``instructor`` extra)::

    python -m tempnets.book.assignments build _build/assignments [--chapter NAME]
    python -m tempnets.book.assignments grade AUTOGRADER_ZIP SUBMISSION.ipynb OUT_DIR

``build`` writes, for every chapter notebook in ``book/`` that has coding exercises (it says where
first, and replaces only what an earlier ``build`` wrote there: :func:`clear_own_build`),
``OUT/<chapter>/<chapter>.ipynb`` (a master notebook in Otter Assign's format, made by
:func:`master_notebook`) and runs ``otter assign`` on it, which writes the student notebook
``OUT/<chapter>/student/<chapter>.ipynb``, the solved one ``OUT/<chapter>/autograder/<chapter>.ipynb``
and the autograder
``OUT/<chapter>/autograder/<chapter>-autograder_<timestamp>.zip``.  ``grade`` is ``otter run``
(no Docker): it executes the submission in this environment and writes ``results.json``, a score
per exercise; :func:`scores` reads it.

A *coding exercise* is what CONTRIBUTING.md defines: a code cell with solution lines between
``# BEGIN SOLUTION`` and ``# END SOLUTION`` that calls a self-check ``check_<what>(...)``,
under an ``{exercise}`` directive whose title carries the difficulty (★ to ★★★).  Each becomes
one question (:func:`exercises`):

- its points are its stars (:data:`POINTS`);
- its grading test runs its own self-check, so a student's answer is graded by exactly the check
  they saw in the book, but not in the graded notebook: the test sends the answer (a function by
  its source, values as JSON; :func:`tempnets.book.selfcheck._ship`) to a fresh ``python -I`` that
  imports numpy and tempnets itself and runs the check there (:func:`_grade_elsewhere`,
  :func:`tempnets.book.selfcheck.grade`), and the student's function runs in yet another process,
  stopped after :data:`tempnets.book.selfcheck.TIME_LIMIT` seconds.  What a notebook does to numpy, to
  tempnets or to the check cannot reach the process that decides (the *For instructors* page says
  what can);
- the student's cell is the student edition's scaffold (:func:`tempnets.book.bookconfig.student_code`,
  put in otter's student notebook in place of otter's own (:func:`scaffold`), so the markers
  are parsed in one place and a student sees the same cell as in the student edition).

The notebook keeps only what the exercises need (:func:`context_cells`): the chapter's first
code cell (install and imports), every cell tagged ``assignment`` (:data:`KEEP_TAG`), and the
cells that define a name an exercise uses, followed back through the cells they use in turn (a
def-use slice, read from the cells' symbol tables).  Training cells an exercise does not use are
dropped, so a submission grades in seconds.  The slice sees names, not side effects: a cell that
changes an object only through a method call (``params.update(...)``) or a setting the
exercises rely on is kept by tagging it ``assignment``.
"""

from __future__ import annotations

import ast
import builtins
import copy
import json
import os
import re
import signal
import subprocess
import sys
import symtable
from dataclasses import dataclass
from pathlib import Path

from .bookconfig import BEGIN, END, _lines, _text, student_code, student_markdown
from .selfcheck import _ship

POINTS = {1: 1, 2: 2, 3: 3}
"""Points of a question by its exercise's difficulty (number of stars)."""

KEEP_TAG = "assignment"
"""A chapter cell with this tag is always copied into the assignment (a side effect it needs)."""

EXERCISE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{exercise\}[ \t]*(?P<title>.*?)[ \t]*\n"
                      r"(?P<body>.*?)^(?P=fence)[ \t]*$", re.S | re.M)
"""An ``{exercise}`` directive, fence to fence: its title and its body (options first)."""

OPTION = re.compile(r"^:(\w+):[ \t]*(.*)$", re.M)


@dataclass(frozen=True)
class Exercise:
    """One coding exercise of a chapter, as it becomes an otter question.

    Attributes
    ----------
    cell : int
        Index of its code cell in the chapter notebook.
    prompt_cell : int
        Index of the markdown cell that holds its ``{exercise}`` directive.
    name : str
        The question's name: the directive's label without ``ex-``, ``-`` → ``_``.
    title : str
        The directive's title, e.g. ``"2. Code the cross-entropy gradient — ★, coding, 10 min"``.
    prompt : str
        The directive's text without its options (what the student reads).
    points : int
        ``POINTS[stars]``.
    check : str
        Source of the cell's last top-level self-check call, e.g. ``"ch.check_sigma(sigma)"``.
    """

    cell: int
    prompt_cell: int
    name: str
    title: str
    prompt: str
    points: int
    check: str


def _code(source: str) -> str:
    """``source`` as Python: IPython's magics and shell escapes become calls (as the kernel runs it)."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def _check_call(source: str) -> ast.stmt | None:
    """The last top-level statement of ``source`` that calls a ``check_...`` function, or None."""
    found = None
    for stmt in ast.parse(_code(source)).body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            f = stmt.value.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name.startswith("check_"):
                found = stmt
    return found


def exercises(nb: dict, chapter: str = "notebook") -> list[Exercise]:
    """The coding exercises of a chapter notebook (a JSON mapping), in order.

    Raises
    ------
    ValueError
        A cell with solution markers has no self-check call, no ``{exercise}`` directive in the
        markdown cells above it (back to the previous code cell), or a title without 1–3 stars;
        or two exercises share a label.
    """
    cells, out = nb["cells"], []
    for i, cell in enumerate(cells):
        source = _text(cell["source"])
        if cell["cell_type"] != "code" or BEGIN not in source:
            continue
        where = f"{chapter} cell {i}"
        try:
            student_code(source)  # the student edition's parser: refuses unbalanced markers
        except ValueError as e:
            raise ValueError(f"{where}: {str(e).splitlines()[0].removesuffix(' in:')}") from None
        stmt = _check_call(source)
        if stmt is None:
            raise ValueError(f"{where}: a coding exercise must end with a self-check call check_<what>(...)")
        directive, j = None, i - 1
        while j >= 0 and cells[j]["cell_type"] != "code" and directive is None:
            found = list(EXERCISE.finditer(_text(cells[j]["source"]))) if cells[j]["cell_type"] == "markdown" else []
            directive = found[-1] if found else None
            j -= 1
        if directive is None:
            raise ValueError(f"{where}: no {{exercise}} directive in the markdown cells above it")
        title, body = directive["title"], directive["body"]
        stars = title.count("★")
        if stars not in POINTS:
            raise ValueError(f"{where}: exercise title {title!r} has {stars} stars, allowed: 1 to 3")
        options = dict(OPTION.findall(body))
        label = options.get("label", f"ex-{len(out) + 1}")
        name = re.sub(r"\W", "_", label.removeprefix("ex-"))
        if any(e.name == name for e in out):
            raise ValueError(f"{where}: a second exercise labelled {label!r}")
        text = OPTION.sub("", body).strip()
        out.append(Exercise(cell=i, prompt_cell=j + 1, name=name, title=title,
                            prompt=f"### Exercise {title}\n\n{text}\n", points=POINTS[stars],
                            check=ast.unparse(stmt)))
    return out


def _scope_uses(table: symtable.SymbolTable, out: set) -> None:
    """Add to ``out`` the global names that the nested scopes of ``table`` read."""
    for child in table.get_children():
        for s in child.get_symbols():
            if s.is_referenced() and s.is_global():  # read from the module when called
                out.add(s.get_name())
        _scope_uses(child, out)


def _statement_names(stmt: ast.stmt) -> tuple[set, set, set]:
    """``(reads, binds, changes)``: the global names a top-level statement reads (in functions it
    defines too, which read them when called), binds, and changes in place (``x[i] = ...``,
    ``x.a = ...``, ``x += ...``)."""
    table = symtable.symtable(ast.unparse(stmt), "<cell>", "exec")
    reads, binds = set(), set()
    for s in table.get_symbols():
        if s.is_referenced():
            reads.add(s.get_name())
        if s.is_assigned() or s.is_imported() or s.is_namespace():
            binds.add(s.get_name())
    _scope_uses(table, reads)
    changes = set()
    for node in _top_level_nodes(stmt):
        targets = (node.targets if isinstance(node, ast.Assign) else
                   [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
        for t in targets:
            if isinstance(node, ast.AugAssign) and isinstance(t, ast.Name):
                changes.add(t.id)
            while isinstance(t, (ast.Attribute, ast.Subscript)):
                t = t.value
                if isinstance(t, ast.Name):
                    changes.add(t.id)
    return reads, binds, changes


def _top_level_nodes(node: ast.AST):
    """``node`` and the nodes under it, without entering function, class or lambda bodies
    (whose assignments bind local names)."""
    yield node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
        for child in ast.iter_child_nodes(node):
            yield from _top_level_nodes(child)


def cell_names(source: str) -> tuple[set, set]:
    """``(needs, gives)`` of a code cell: the names it reads or changes in place before binding
    them itself, and the names it binds or changes.  Builtins are not counted."""
    needs, gives = set(), set()
    for stmt in ast.parse(_code(source)).body:
        reads, binds, changes = _statement_names(stmt)
        needs |= (reads | changes) - gives
        gives |= binds | changes
    return needs - set(dir(builtins)), gives


def context_cells(nb: dict, chosen) -> list[int]:
    """Indices of the code cells the cells ``chosen`` (indices) need, ``chosen`` included.

    Always the first code cell (install and imports) and every cell tagged :data:`KEEP_TAG`;
    then, going back from the last chosen cell, every cell that binds or changes a name a kept
    cell after it still needs, and what that cell needs in turn.  A name bound afresh (not
    changed in place) by a kept cell is no longer needed from the cells before it.
    """
    cells = nb["cells"]
    code = [i for i, c in enumerate(cells) if c["cell_type"] == "code"]
    keep = set(chosen) | set(code[:1]) | {i for i in code if KEEP_TAG in cells[i].get("metadata", {}).get("tags", [])}
    needed: set = set()
    for i in reversed(code):
        needs, gives = cell_names(_text(cells[i]["source"]))
        if i in keep or needed & gives:
            keep.add(i)
            needed = (needed - (gives - needs)) | needs
    return sorted(keep)


def _raw(text: str) -> dict:
    return {"cell_type": "raw", "metadata": {}, "source": _lines(text)}


def _markdown(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": _lines(text)}


def _grade_elsewhere(module: str, check: str, args: str, values: dict, seconds: float = 600.0) -> None:
    """A grading test's body, run in the student's kernel: send the student's answer (``values``,
    by :func:`tempnets.book.selfcheck._ship`) to a fresh ``python -I -m tempnets.book.selfcheck grade``, which
    runs the self-check ``module.check`` on ``args`` there, and pass or fail with its verdict.

    Copied into each test with :func:`tempnets.book.selfcheck._ship` and ``_to_plain`` (so a notebook
    that replaces this function, ``inspect`` or a ``check_...`` changes nothing); it imports what it
    uses itself.  The verdict is the grader's last line carrying a token only this test knows.
    """
    import json
    import os
    import secrets
    import signal
    import subprocess
    import sys

    token = secrets.token_hex(16)
    request = {**_ship(values), "args": args, "token": token}
    proc = subprocess.Popen([sys.executable, "-I", "-m", "tempnets.book.selfcheck", "grade", module, check],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(json.dumps(request) + "\n", timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError(f"the grader stopped after {seconds:g} s without a verdict") from None
    for line in reversed(out.splitlines()):
        try:
            verdict = json.loads(line)
        except ValueError:
            continue
        if isinstance(verdict, dict) and verdict.get("token") == token:
            break
    else:
        raise AssertionError("the grader gave no verdict: " + (err.strip().splitlines() or ["?"])[-1])
    if not verdict["passed"]:
        raise AssertionError(verdict["message"])
    print(verdict["message"])


def _imports(nb: dict) -> dict:
    """``{name: dotted path}`` of every name a chapter's code cells bind by ``import``."""
    out = {}
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        for node in ast.walk(ast.parse(_code(_text(cell["source"])))):
            if isinstance(node, ast.Import):
                out.update({a.asname or a.name.split(".")[0]: a.name if a.asname else a.name.split(".")[0]
                            for a in node.names})
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                out.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
    return out


def self_check_of(ex: Exercise, imports: dict) -> tuple[str, str]:
    """``(module, function)`` of the self-check ``ex`` calls, found through the chapter's imports,
    so that the grader can import it afresh.

    Raises
    ------
    ValueError
        The check is not imported from a module, or its call uses keywords or ``*``.
    """
    call = ast.parse(ex.check).body[0].value
    f = call.func
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in imports:
        module, name = imports[f.value.id], f.attr
    elif isinstance(f, ast.Name) and f.id in imports:
        module, _, name = imports[f.id].rpartition(".")
    else:
        raise ValueError(f"{ex.name}: the self-check {ex.check!r} is not imported from a module")
    if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        raise ValueError(f"{ex.name}: the self-check call {ex.check!r} may pass positional arguments only")
    import importlib

    if not callable(getattr(importlib.import_module(module), name, None)):
        raise ValueError(f"{ex.name}: {module} has no self-check {name}")
    return module, name


def _indented(source: str) -> str:
    return "".join("    " + line if line.strip() else line for line in source.splitlines(True))


def _test_cell(ex: Exercise, imports: dict) -> dict:
    """The grading test of ``ex``: its parameters are the names its self-check's arguments use
    (otter passes each from the graded notebook's namespace); it sends them to a fresh Python
    that runs the self-check there (:func:`_grade_elsewhere`)."""
    import inspect

    from . import selfcheck

    module, name = self_check_of(ex, imports)
    call = ast.parse(ex.check).body[0].value
    names = sorted({n.id for a in call.args for n in ast.walk(a) if isinstance(n, ast.Name)} - set(dir(builtins)))
    args = "(" + "".join(ast.unparse(a) + ", " for a in call.args) + ")"
    helpers = "\n\n".join(inspect.getsource(f) for f in (selfcheck._to_plain, selfcheck._ship, _grade_elsewhere))
    values = "{" + ", ".join(f"{n!r}: {n}" for n in names) + "}"
    src = (f'""" # BEGIN TEST CONFIG\npoints: {ex.points}\n""" # END TEST CONFIG\n'
           f"def test_{ex.name}({', '.join(names)}):\n"
           f"    # The answer is checked by tempnets' self-check {module}.{name} in a fresh Python.\n"
           f"{_indented(helpers)}\n"
           f"    _grade_elsewhere({module!r}, {name!r}, {args!r}, {values})\n")
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": _lines(src)}


def master_notebook(nb: dict, chapter: str) -> tuple[dict, list[Exercise]]:
    """The Otter Assign master notebook of a chapter, and its exercises.

    After otter's configuration and a title (the chapter's first heading, the questions and
    their points), the chapter's cells are copied in order, without outputs: the context cells
    (:func:`context_cells`) and, for each coding exercise, a question block (its prompt as
    markdown, its code cell as in the chapter as the solution, its self-check as the test).  Each copied cell
    keeps its ``id``; the new cells get ``assignment-<n>``.

    Raises
    ------
    ValueError
        The chapter has no coding exercises (or see :func:`exercises`).
    """
    exs = exercises(nb, chapter)
    if not exs:
        raise ValueError(f"{chapter} has no coding exercises (cells with {BEGIN!r})")
    cells = nb["cells"]
    config = {
        "name": chapter,
        "init_cell": True,
        "check_all_cell": True,
        "export_cell": {"pdf": False, "instructions": "Hand in the zip file this cell writes."},
        "generate": {"pdf": False, "show_stdout": True},
        "tests": {"files": False, "ok_format": False},
        "solutions_pdf": False,
    }
    title = next((_text(c["source"]).splitlines()[0] for c in cells if c["cell_type"] == "markdown"), chapter)
    out = [_raw("# ASSIGNMENT CONFIG\n" + json.dumps(config, indent=1, ensure_ascii=False)),
           _markdown(f"{title} — exercises\n\nThe coding exercises of the chapter "
                     f"(`{chapter}.ipynb`), graded with otter-grader: "
                     + ", ".join(f"{e.name} ({e.points} pt)" for e in exs)
                     + f", {sum(e.points for e in exs)} points.  The code cells before each exercise "
                     "are the chapter's cells it needs; run the notebook from the top.")]
    by_cell, imports = {e.cell: e for e in exs}, _imports(nb)
    for i in context_cells(nb, by_cell):
        cell = copy.deepcopy(cells[i])
        cell["outputs"], cell["execution_count"] = [], None
        ex = by_cell.get(i)
        if ex is None:
            out.append(cell)
            continue
        out += [_raw(f"# BEGIN QUESTION\nname: {ex.name}\npoints: {ex.points}"),
                _markdown(student_markdown(ex.prompt)),
                _raw("# BEGIN SOLUTION"), cell, _raw("# END SOLUTION"),
                _raw("# BEGIN TESTS"), _test_cell(ex, imports), _raw("# END TESTS"), _raw("# END QUESTION")]
    for n, c in enumerate(out):  # nbformat 4.5 wants an id on every cell
        c.setdefault("id", f"assignment-{n}")
    master = {"cells": out, "metadata": copy.deepcopy(nb.get("metadata", {})),
              "nbformat": nb.get("nbformat", 4), "nbformat_minor": nb.get("nbformat_minor", 5)}
    return master, exs


ANSWER_TAG = "otter_answer_cell"
"""The tag otter assign gives a question's answer cell in the student notebook."""


def scaffold(student: dict, nb: dict, exs: list[Exercise]) -> dict:
    """Otter's student notebook ``student`` with each answer cell made the student edition's
    scaffold of its exercise (:func:`tempnets.book.bookconfig.student_code` of the chapter cell).

    Otter replaces a solution block by ``...``, which a self-check reports as a function that
    returns None; the student edition's placeholder (``raise NotImplementedError`` in a
    function, ``answer = ...`` kept at the top level) makes it say "not written yet" or "no
    answer yet", and a student sees the same cell as in the book.  ``student`` is changed in place.

    Raises
    ------
    ValueError
        The notebook does not have one answer cell per exercise.
    """
    answers = [c for c in student["cells"] if ANSWER_TAG in c.get("metadata", {}).get("tags", [])]
    if len(answers) != len(exs):
        raise ValueError(f"otter assign wrote {len(answers)} answer cells for {len(exs)} exercises")
    for cell, ex in zip(answers, exs):
        cell["source"] = student_code(_text(nb["cells"][ex.cell]["source"]))
        tags = cell["metadata"]["tags"]
        if "raises-exception" not in tags:  # its self-check fails until answered, as in the student edition
            tags.append("raises-exception")
    return student


def otter() -> str:
    """The ``otter`` command beside this Python (the venv's), or a clear error."""
    path = Path(sys.executable).with_name("otter")
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: install the instructor extra (pip install -e '.[instructor]')")
    return str(path)


def build_chapter(notebook, out) -> dict:
    """Write ``out/<chapter>.ipynb`` (:func:`master_notebook`) and run ``otter assign`` on it (into ``out/student`` and
    ``out/autograder``), without otter's run of the tests on the solutions (tests/test_assignments.py
    grades the solved notebook with ``otter run`` instead; ``otter assign`` run by hand on the
    master notebook does it).

    Returns
    -------
    dict
        ``chapter``, ``questions`` (name → points), ``points``, ``student`` (the student
        notebook), ``zip`` (the autograder) and ``context`` (the chapter's code cells copied).
    """
    notebook, out = Path(notebook), Path(out)
    chapter = notebook.stem
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    master, exs = master_notebook(nb, chapter)
    clear_own_build(out)
    out.mkdir(parents=True, exist_ok=True)
    # otter names the student notebook, the solved one and the zip after the master notebook.
    (out / f"{chapter}.ipynb").write_text(json.dumps(master, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    cmd = [otter(), "assign", "--no-run-tests", f"{chapter}.ipynb", "."]
    done = subprocess.run(cmd, cwd=out, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"otter assign failed for {chapter}:\n{done.stdout}\n{done.stderr}")
    student = out / "student" / f"{chapter}.ipynb"
    fixed = scaffold(json.loads(student.read_text(encoding="utf-8")), nb, exs)
    student.write_text(json.dumps(fixed, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    zips = sorted((out / "autograder").glob("*.zip"))
    if len(zips) != 1:
        raise RuntimeError(f"otter assign wrote {len(zips)} autograder zips for {chapter}, expected 1")
    _write_manifest(out)
    code = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"]
    kept = context_cells(nb, [e.cell for e in exs])
    return {"chapter": chapter, "questions": {e.name: e.points for e in exs},
            "points": sum(e.points for e in exs), "student": str(student),
            "solution": str(out / "autograder" / f"{chapter}.ipynb"), "zip": str(zips[0]),
            "context": f"{len(kept)} of {len(code)} code cells"}


MANIFEST = ".tempnets-assignment.json"
"""The file in ``OUT/<chapter>/`` that lists what ``build`` wrote there (all it may remove)."""


def _files(out: Path) -> list[str]:
    """Every file and link under ``out`` (not following links), relative, sorted."""
    return sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_symlink() or not p.is_dir())


def _write_manifest(out: Path) -> None:
    files = [f for f in _files(out) if f != MANIFEST]
    (out / MANIFEST).write_text(json.dumps({"written_by": "python -m tempnets.book.assignments build",
                                            "files": files}, indent=1) + "\n", encoding="utf-8")


def clear_own_build(out, remove: bool = True) -> None:
    """Remove an earlier build in ``out`` before building again, and nothing else (``remove=False``:
    only say whether it could).

    ``out`` may be missing or an empty directory.  A directory holding a build is cleared only
    when it holds nothing but the files its :data:`MANIFEST` lists (what ``build`` wrote).

    Raises
    ------
    ValueError
        ``out`` is a file or a link, or holds files ``build`` did not write (named in the message).
    """
    out = Path(out)
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        kind = "a symbolic link" if out.is_symlink() else "a file"
        raise ValueError(f"{out} is {kind}, not a directory: pick another OUT or move it away")
    if not out.exists():
        return
    found = _files(out)
    if not found:
        return
    try:
        listed = json.loads((out / MANIFEST).read_text(encoding="utf-8"))["files"]
        assert isinstance(listed, list) and all(isinstance(f, str) for f in listed)
    except (OSError, ValueError, KeyError, TypeError, AssertionError):
        raise ValueError(f"{out} holds files this command did not write ({', '.join(found[:3])}"
                         f"{', ...' if len(found) > 3 else ''}): pick another OUT or move them away") from None
    strangers = [f for f in found if f not in listed and f != MANIFEST]
    if strangers:
        raise ValueError(f"{out} holds files this command did not write ({', '.join(strangers[:3])}"
                         f"{', ...' if len(strangers) > 3 else ''}): move them away or pick another OUT")
    if not remove:
        return
    for f in listed + [MANIFEST]:
        if (out / f).is_symlink() or (out / f).exists():
            (out / f).unlink()
    for d in sorted((p for p in out.rglob("*") if p.is_dir() and not p.is_symlink()), key=lambda p: -len(p.parts)):
        if not any(d.iterdir()):
            d.rmdir()


def chapters(book="book") -> list[Path]:
    """The chapter notebooks in ``book`` that have coding exercises, in name order."""
    return [p for p in sorted(Path(book).glob("*.ipynb")) if BEGIN in p.read_text(encoding="utf-8")]


def plan(out, book="book", chapter: str | None = None) -> list[Path]:
    """The chapter notebooks ``build`` would build (all, or ``chapter`` only), after checking that it
    may write ``out/<chapter>/`` for each.

    Raises
    ------
    ValueError
        ``book`` is not a directory with chapter notebooks that have coding exercises, ``chapter``
        is not one of them, ``out`` is not a directory, or an ``out/<chapter>`` is a file or a link
        or holds what ``build`` did not write (:func:`clear_own_build`).
    """
    if not Path(book).is_dir():
        raise ValueError(f"--book {str(book)!r} is not a directory; it should be the book's folder of chapter notebooks")
    found = chapters(book)
    if not found:
        raise ValueError(f"--book {str(book)!r} has no chapter notebooks with coding exercises ({BEGIN!r})")
    if chapter is not None:
        found = [p for p in found if p.stem == chapter]
        if not found:
            names = ", ".join(p.stem for p in chapters(book))
            raise ValueError(f"--chapter {chapter!r} is not a chapter with coding exercises; allowed: {names}")
    if Path(out).is_symlink() or (Path(out).exists() and not Path(out).is_dir()):
        raise ValueError(f"OUT {str(out)!r} is not a directory: pick another OUT")
    for p in found:
        clear_own_build(Path(out) / p.stem, remove=False)
    return found


def build(out, book="book", chapter: str | None = None) -> list[dict]:
    """Build the assignment of every chapter (or of ``chapter`` only) under ``out/<chapter>/``,
    replacing only an earlier build (:func:`clear_own_build`).  Nothing is written when
    :func:`plan` refuses."""
    return [build_chapter(p, Path(out) / p.stem) for p in plan(out, book, chapter)]


GRADE_TIME_LIMIT = 1800.0
"""Seconds ``grade`` lets ``otter run`` take on one submission."""


def grade(autograder_zip, submission, out_dir, time_limit: float = GRADE_TIME_LIMIT) -> dict:
    """Grade one submitted notebook with ``otter run`` (no Docker) and return :func:`scores`.

    ``out_dir`` (a directory, made if missing, without a ``results.json``) receives otter's
    ``results.json``.  The submission runs in this environment (see the *For instructors* page
    on what that allows); otter, its kernel and what they started are killed after
    ``time_limit`` seconds (otter has no time limit per cell: a cell that never ends stops
    every later cell and test).

    Raises
    ------
    ValueError
        ``autograder_zip`` is not an existing ``.zip`` file or ``submission`` not an existing
        ``.ipynb`` (unzip a submission otter's export cell wrote first), or ``out_dir`` is a file
        or holds a ``results.json``.
    RuntimeError
        ``otter run`` failed (its output is in the message) or was stopped after ``time_limit``.
    """
    for arg, path, suffix in (("autograder_zip", autograder_zip, ".zip"), ("submission", submission, ".ipynb")):
        if Path(path).suffix != suffix or not Path(path).is_file():
            raise ValueError(f"{arg} must be an existing {suffix} file, got {str(path)!r}")
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"out_dir must be a directory, got the file {str(out_dir)!r}")
    if (out_dir / "results.json").exists() or (out_dir / "results.json").is_symlink():
        raise ValueError(f"{out_dir / 'results.json'} exists: pick another out_dir or move it away")
    out_dir.mkdir(parents=True, exist_ok=True)
    cmd = [otter(), "run", "--no-logo", "-a", str(Path(autograder_zip).resolve()), "-o", str(out_dir.resolve()),
           str(Path(submission).resolve())]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=time_limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # otter, its kernel and what the notebook started
        proc.communicate()
        raise RuntimeError(f"otter run stopped after {time_limit:g} s on {submission}: a cell never finished "
                           "(a loop that never ends at the top level of a cell?); grade it by hand") from None
    done = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    if done.returncode or not (out_dir / "results.json").exists():
        raise RuntimeError(f"otter run failed on {submission}:\n{done.stdout}\n{done.stderr}")
    return scores(out_dir / "results.json")


def scores(results) -> dict:
    """``{question: (score, possible)}`` from otter's ``results.json`` (file or mapping)."""
    if not isinstance(results, dict):
        results = json.loads(Path(results).read_text(encoding="utf-8"))
    out = {}
    for test in results.get("tests", []):
        if "score" in test:  # otter adds a summary entry ("Public Tests") without a score
            out[test["name"]] = (test["score"], test["max_score"])
    return out


USAGE = ("usage: python -m tempnets.book.assignments build OUT [--chapter NAME] [--book DIR]\n"
         "       python -m tempnets.book.assignments grade AUTOGRADER_ZIP SUBMISSION OUT_DIR")


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tempnets.book.assignments", usage=USAGE)
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="an otter assignment per chapter with coding exercises")
    b.add_argument("out")
    b.add_argument("--chapter", default=None)
    b.add_argument("--book", default="book")
    g = sub.add_parser("grade", help="grade one submission with otter run (writes OUT_DIR/results.json)")
    g.add_argument("autograder_zip")
    g.add_argument("submission")
    g.add_argument("out_dir")
    args = parser.parse_args(argv)
    try:
        if args.command == "build":
            found = plan(args.out, args.book, args.chapter)
            print(f"writing {', '.join(str(Path(args.out) / p.stem) + '/' for p in found)} (each: the master "
                  f"notebook, student/, autograder/ and {MANIFEST}); an earlier build there is replaced",
                  flush=True)
            for r in build(args.out, args.book, args.chapter):
                n = len(r["questions"])
                print(f"{r['chapter']}: {n} question{'s' * (n != 1)}, {r['points']} point{'s' * (r['points'] != 1)}, "
                      f"{r['context']}, autograder {Path(r['zip']).name} ({Path(r['zip']).stat().st_size} bytes)")
            return 0
        result = grade(args.autograder_zip, args.submission, args.out_dir)
    except (ValueError, OSError) as e:  # what was typed: one line, and what to do
        print(f"error: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:  # otter failed on a good input: its output follows
        print(f"error: {e}", file=sys.stderr)
        return 1
    total = sum(s for s, _ in result.values()), sum(p for _, p in result.values())
    for name, (s, p) in result.items():
        print(f"{name}: {s:g}/{p:g}")
    print(f"total: {total[0]:g}/{total[1]:g} (otter's results: {Path(args.out_dir) / 'results.json'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
