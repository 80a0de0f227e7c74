"""Configurations of the book's editions.

It also checks a built book: :func:`pages_missing_figures` finds chapters
whose code draws figures but whose HTML page shows none (which is what a
non-inline matplotlib backend such as ``MPLBACKEND=Agg`` does to a build), and
:func:`cells_with_stderr` finds executed cells that show a reader a warning, and
:func:`wide_figures_not_full_width` wide figures that would be shrunk into the text column::

    python -m tempnets.book.bookconfig check-figures book _build/html
    python -m tempnets.book.bookconfig check-outputs _build/jupyter_execute

The instructor's edition is ``_config.yml`` as it is.  The student edition is
built from *student notebooks* (:func:`student_notebook`): every
``{solution}`` directive is gone and every coding exercise's solution lines
(between ``# BEGIN SOLUTION`` and ``# END SOLUTION``) are replaced by a
placeholder.  Its pages offer those notebooks for download and have no
Binder, Colab or repository buttons, which could only open the instructor's
notebooks on the main branch.  :func:`write_student_sources` writes that
book's sources, taking the outputs of every other cell from the instructor
build, so nothing is executed again.  Jupyter Book's ``--config`` replaces
``_config.yml`` rather than merging with it, so this module also writes the
merged configuration::

    python -m tempnets.book.bookconfig student _config.yml _build/student-config.yml
    python -m tempnets.book.bookconfig student-sources . _build/student-src _build/jupyter_execute

The book executes its chapters through jupyter-cache, which keys a notebook on its own
code cells only: a change to the library, to a committed record or to an installed
package would leave every page showing what the old code computed.  So ``make book``
first runs :func:`refresh_execution_cache`, which empties the cache whenever
:func:`book_fingerprint` (a hash of everything else a chapter's outputs depend on)
differs from the one the cache was filled under; the Pages workflow keys its saved
cache on the same fingerprint::

    python -m tempnets.book.bookconfig fingerprint .
    python -m tempnets.book.bookconfig refresh-cache .
"""

from __future__ import annotations

import copy
import re
import sys

STUDENT_OVERRIDES = {
    # The student sources carry the instructor build's outputs (write_student_sources).
    "execute": {"execute_notebooks": "off"},
    # Launch and repository buttons would open the instructor's notebooks on main.
    "launch_buttons": {"binderhub_url": "", "colab_url": "", "jupyterhub_url": "", "thebe": False},
    "html": {"use_repository_button": False, "use_issues_button": False,
             "use_edit_page_button": False},
    "sphinx": {
        "recursive_update": True,
        "config": {
            "hide_solutions": True,  # belt and braces: the student sources have none
            "html_theme_options": {"use_download_button": True},  # the student notebook
        },
    },
}

BEGIN, END = "# BEGIN SOLUTION", "# END SOLUTION"
"""Markers around a coding exercise's solution lines (CONTRIBUTING.md)."""

SOLUTION_DIRECTIVE = re.compile(r"^(`{3,}|:{3,})\{solution\}.*?^\1[ \t]*$\n?", re.S | re.M)
"""A ``{solution}`` directive, fence to fence (backticks or colons)."""


def merge(base: dict, update: dict) -> dict:
    """Return ``base`` updated recursively by ``update`` (neither is modified)."""
    out = copy.deepcopy(base)
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def student_config(config: dict) -> dict:
    """The student edition of a ``_config.yml`` mapping (see :data:`STUDENT_OVERRIDES`)."""
    return merge(config, STUDENT_OVERRIDES)


def student_code(source: str) -> str:
    """A code cell's source with each solution block replaced by a placeholder.

    At the top level the placeholder is a comment (the cell should set the
    answer to ``...`` before the block, so its self-check says "no answer
    yet"); inside a function it also raises ``NotImplementedError``, which the
    self-check reports as "not written yet", unless the line before the block
    sets a name to ``...`` (the function then returns that, and the check says
    "no answer yet" even where the function is called outside the check).
    """
    out, inside = [], False
    for line in source.splitlines(keepends=True):
        stripped = line.strip()
        if stripped == BEGIN:
            if inside:
                raise ValueError(f"nested {BEGIN!r} in:\n{source}")
            inside, indent = True, line[:len(line) - len(line.lstrip())]
            out.append(f"{indent}# YOUR CODE HERE\n")
            placeholder = len(out) > 1 and re.fullmatch(r"\s*\w+ = \.\.\.(\s*#.*)?\n?", out[-2])
            if indent and not placeholder:  # a function that returns its `...` needs no raise
                out.append(f'{indent}raise NotImplementedError("replace this line with your code")\n')
        elif stripped == END:
            if not inside:
                raise ValueError(f"{END!r} without {BEGIN!r} in:\n{source}")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError(f"{BEGIN!r} without {END!r} in:\n{source}")
    return "".join(out)


def student_markdown(source: str) -> str:
    """A markdown cell's source without its ``{solution}`` directives."""
    return SOLUTION_DIRECTIVE.sub("", source)


def student_notebook(nb: dict, executed: dict | None = None) -> dict:
    """The student version of a notebook (a JSON mapping; neither argument is modified).

    Solutions are removed (:func:`student_markdown`, :func:`student_code`);
    a coding exercise's cell is tagged ``raises-exception`` (its self-check
    fails until the student answers) and has no outputs.  ``executed``, the
    same notebook as executed by the instructor build, supplies the outputs
    of every other code cell.
    """
    out = copy.deepcopy(nb)
    if executed is not None:
        ran = [c for c in executed["cells"] if c["cell_type"] == "code"]
        mine = [c for c in out["cells"] if c["cell_type"] == "code"]
        if [_text(c["source"]) for c in ran] != [_text(c["source"]) for c in mine]:
            raise ValueError("the executed notebook does not match its source (build the instructor "
                             "edition again: make book)")
        for c, r in zip(mine, ran):
            c["outputs"], c["execution_count"] = copy.deepcopy(r.get("outputs", [])), r.get("execution_count")
    for cell in out["cells"]:
        text = _text(cell["source"])
        if cell["cell_type"] == "markdown":
            cell["source"] = _lines(student_markdown(text))
        elif cell["cell_type"] == "code" and BEGIN in text:
            cell["source"] = _lines(student_code(text))
            cell["outputs"], cell["execution_count"] = [], None
            tags = cell.setdefault("metadata", {}).setdefault("tags", [])
            if "raises-exception" not in tags:
                tags.append("raises-exception")
    return out


def _text(source) -> str:
    return source if isinstance(source, str) else "".join(source)


def _lines(text: str) -> list:
    return text.splitlines(keepends=True)


def executed_notebook(nb: dict, ran) -> dict:
    """The instructor build's executed copy of ``nb``, whose copy is ``ran`` (in ``jupyter_execute``).

    Taken from the build's jupyter-cache (``_build/.jupyter_cache``, beside
    ``jupyter_execute``) when it holds ``nb``: myst-nb writes a notebook it took
    from the cache to ``jupyter_execute`` without its outputs.  Otherwise ``ran``
    itself, which must then hold outputs.

    Raises
    ------
    FileNotFoundError
        Neither the cache nor ``ran`` has the notebook (build the instructor edition first).
    ValueError
        The executed notebook has code but no outputs at all.
    """
    import json
    from pathlib import Path

    ran = Path(ran)
    cache_dir = None
    for folder in ran.parents:
        if folder.name == "jupyter_execute":
            cache_dir = folder.parent / ".jupyter_cache"
            break
    if cache_dir is not None and cache_dir.is_dir():
        import nbformat
        from jupyter_cache import get_cache

        try:
            _, merged = get_cache(str(cache_dir)).merge_match_into_notebook(nbformat.from_dict(nb))
            return json.loads(nbformat.writes(merged))
        except KeyError:
            pass  # not in the cache (executed otherwise): use jupyter_execute
    if not ran.exists():
        raise FileNotFoundError(f"{ran} is missing: build the instructor edition first (make book)")
    executed = json.loads(ran.read_text(encoding="utf-8"))
    code = [c for c in executed["cells"] if c["cell_type"] == "code" and _text(c["source"]).strip()]
    if code and not any(c.get("outputs") for c in code):
        raise ValueError(f"{ran} has no outputs (and the build's jupyter-cache does not hold it): "
                         "build the instructor edition afresh (make clean book)")
    return executed


def write_student_sources(root, out, executed_dir=None) -> list:
    """Write the student edition's sources: ``root``'s ``_toc.yml`` and ``book/`` with student notebooks.

    ``executed_dir`` (the instructor build's ``jupyter_execute`` folder) supplies
    the outputs; without it the notebooks have none.  Returns the notebooks written.
    """
    import json
    import shutil
    from pathlib import Path

    root, out = Path(root), Path(out)
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(root / "book", out / "book",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__", ".pytest_cache"))
    shutil.copy2(root / "_toc.yml", out / "_toc.yml")
    written = []
    for path in sorted((out / "book").rglob("*.ipynb")):
        rel = path.relative_to(out)
        nb = json.loads((root / rel).read_text(encoding="utf-8"))
        executed = None if executed_dir is None else executed_notebook(nb, Path(executed_dir) / rel)
        path.write_text(json.dumps(student_notebook(nb, executed), indent=1, ensure_ascii=False) + "\n",
                        encoding="utf-8")
        written.append(path)
    return written


def _notebooks(folder):
    """``(path, cells)`` of every ``.ipynb`` under ``folder``, in a stable order."""
    import json
    from pathlib import Path

    for nb_path in sorted(Path(folder).rglob("*.ipynb")):
        yield nb_path, json.loads(nb_path.read_text(encoding="utf-8"))["cells"]


def pages_missing_figures(book_dir, html_dir) -> list[str]:
    """Chapters (``.ipynb`` under ``book_dir``) that call matplotlib but whose page has no image."""
    from pathlib import Path

    missing = []
    for nb_path, cells in _notebooks(book_dir):
        draws = any("plt." in "".join(c["source"]) for c in cells if c["cell_type"] == "code")
        page = Path(html_dir) / nb_path.relative_to(Path(book_dir).parent).with_suffix(".html")
        # Theme images (launch-button logos) live in _static; figures do not.
        figures = [m for m in re.findall(r"<img[^>]*src=[\"']([^\"']+)", page.read_text(encoding="utf-8"))
                   if "_static/" not in m] if page.exists() else None
        if draws and figures == []:
            missing.append(str(page))
    return missing


def cells_with_stderr(executed_dir) -> list[str]:
    """``"<notebook> cell <i>: <first line>"`` for every executed cell (``.ipynb`` under
    ``executed_dir``) that printed to stderr or raised: a warning a reader would see on the page."""
    found = []
    for nb_path, cells in _notebooks(executed_dir):
        for i, c in enumerate(cells):
            for o in c.get("outputs", []):
                if o.get("output_type") == "error" or o.get("name") == "stderr":
                    text = ("".join(o.get("text", [])) or o.get("ename", "")).strip()
                    found.append(f"{nb_path.name} cell {i}: {text.splitlines()[0][:200] if text else '(empty)'}")
    return found


WIDE_FIGURE_PX = 1000
"""A figure this many pixels wide or wider (about 10 inches at matplotlib's 100 dpi) is shrunk
by more than a third in the text column; its cell gets the ``full-width`` tag, which lets the
output use the right margin too."""


def wide_figures_not_full_width(executed_dir, limit: int = WIDE_FIGURE_PX) -> list[str]:
    """``"<notebook> cell <i>: figure <w> px wide"`` for every executed cell whose figure is at
    least ``limit`` pixels wide but which lacks the ``full-width`` tag."""
    import base64

    found = []
    for nb_path, cells in _notebooks(executed_dir):
        for i, c in enumerate(cells):
            if "full-width" in c.get("metadata", {}).get("tags", []):
                continue
            pngs = [o["data"]["image/png"] for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
            # A PNG's width is the big-endian integer at bytes 16-19 (its IHDR chunk).
            widths = [int.from_bytes(base64.b64decode(png)[16:20], "big") for png in pngs]
            if widths and max(widths) >= limit:
                found.append(f"{nb_path.name} cell {i}: figure {max(widths)} px wide")
    return found


# ---------------------------------------------------------------- the execution cache

FINGERPRINT_FILE = "tempnets-fingerprint.txt"
"""Kept inside the jupyter-cache folder: the :func:`book_fingerprint` its notebooks ran under."""

JUPYTER_CACHE_ENTRIES = frozenset({"global.db", "global.db-journal", "__version__.txt", "executed"})
"""What jupyter-cache (1.x) writes in its folder: anything else there is not ours to empty."""


def book_fingerprint(root) -> str:
    """A hash of everything a chapter's outputs depend on besides its own code cells.

    jupyter-cache hashes a notebook's code cells only, so these must be hashed here:
    the library's source (``tempnets/**/*.py`` under ``root``), the committed records
    (``book/paper_scale/``), the Python version and the version of every installed
    distribution (``pip freeze`` without the editable install's commit, which would
    change at every commit), and the ``TEMPNETS_*`` environment variables
    (``TEMPNETS_SCALE=paper`` runs a chapter at paper scale).

    Returns
    -------
    str
        A SHA-256 hex digest: equal digests, same inputs.
    """
    import hashlib
    import os
    import platform
    from pathlib import Path

    root = Path(root)
    records = root / "book" / "paper_scale"
    files = sorted(root.glob("tempnets/**/*.py"))
    files += sorted(p for p in records.rglob("*") if p.is_file()) if records.is_dir() else []
    digest = hashlib.sha256()
    for path in files:
        digest.update(f"file {path.relative_to(root).as_posix()}\n".encode())
        digest.update(hashlib.sha256(path.read_bytes()).hexdigest().encode())
    digest.update(f"python {platform.python_implementation()} {platform.python_version()} "
                  f"{platform.machine()}\n".encode())
    for line in installed_distributions():
        digest.update(f"package {line}\n".encode())
    for key in sorted(k for k in os.environ if k.startswith("TEMPNETS_")):
        digest.update(f"env {key}={os.environ[key]}\n".encode())
    return digest.hexdigest()


def installed_distributions() -> list[str]:
    """``name==version`` of every distribution this Python can import, sorted, names normalised."""
    from importlib import metadata

    found = set()
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:  # a broken install (no METADATA) has no name: it cannot be imported by name either
            found.add(f"{re.sub(r'[-_.]+', '-', name).lower()}=={dist.version}")
    return sorted(found)


def execution_cache_dir(root):
    """The jupyter-cache folder ``jupyter-book build root`` uses.

    ``execute.cache`` of ``root/_config.yml`` when it is set (relative to ``root``),
    otherwise myst-nb's default: ``.jupyter_cache`` beside the HTML, ``root/_build/.jupyter_cache``.
    """
    from pathlib import Path

    import yaml

    root = Path(root)
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8")) or {}
    chosen = (config.get("execute") or {}).get("cache")
    return root / chosen if chosen else root / "_build" / ".jupyter_cache"


def refresh_execution_cache(cache_dir, fingerprint: str) -> int | None:
    """Empty the jupyter-cache in ``cache_dir`` unless its notebooks ran under ``fingerprint``.

    The cache's own records are removed through jupyter-cache (each executed notebook
    and its folder), and ``fingerprint`` is written beside them, so the next build
    executes every chapter again with today's library, records and packages.  Nothing
    else is removed: a folder holding files jupyter-cache does not write is refused.

    Returns
    -------
    int or None
        None when the cache was kept; otherwise the number of executed notebooks removed.

    Raises
    ------
    ValueError
        ``cache_dir`` is not a folder, or holds files that are not jupyter-cache's.
    """
    from pathlib import Path

    cache_dir = Path(cache_dir)
    stamp = cache_dir / FINGERPRINT_FILE
    if stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == fingerprint:
        return None
    removed = 0
    if cache_dir.exists():
        if not cache_dir.is_dir():
            raise ValueError(f"execution cache {cache_dir} is a file, not a folder: move it away")
        strangers = sorted(p.name for p in cache_dir.iterdir()
                           if p.name not in JUPYTER_CACHE_ENTRIES | {FINGERPRINT_FILE})
        if strangers:
            raise ValueError(f"execution cache {cache_dir} holds {', '.join(strangers)}, which jupyter-cache "
                             "does not write: not emptying it (if the folder is only a cache, remove it)")
        if (cache_dir / "global.db").exists():
            removed = _remove_cached_notebooks(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    stamp.write_text(fingerprint + "\n", encoding="utf-8")
    return removed


def _remove_cached_notebooks(cache_dir) -> int:
    """Remove every executed notebook jupyter-cache holds in ``cache_dir``; return how many."""
    from jupyter_cache import get_cache
    from jupyter_cache.cache.db import NbCacheRecord

    cache = get_cache(str(cache_dir))
    records = cache.list_cache_records()
    for record in records:
        try:
            cache.remove_cache(record.pk)
        except KeyError:  # its notebook file is already gone: drop the record alone
            NbCacheRecord.remove_records([record.pk], cache.db)
    return len(records)


USAGE = ("usage: python -m tempnets.book.bookconfig student SOURCE_CONFIG OUTPUT_CONFIG\n"
         "       python -m tempnets.book.bookconfig student-sources ROOT OUT [EXECUTED_DIR]\n"
         "       python -m tempnets.book.bookconfig check-figures BOOK_DIR HTML_DIR\n"
         "       python -m tempnets.book.bookconfig check-outputs EXECUTED_DIR\n"
         "       python -m tempnets.book.bookconfig fingerprint ROOT\n"
         "       python -m tempnets.book.bookconfig refresh-cache ROOT")


def _refresh_cache_command(root) -> int:
    cache_dir = execution_cache_dir(root)
    fingerprint = book_fingerprint(root)
    try:
        removed = refresh_execution_cache(cache_dir, fingerprint)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if removed is None:
        print(f"{cache_dir}: kept (library, records and packages unchanged, fingerprint {fingerprint[:12]})")
    else:
        print(f"{cache_dir}: emptied ({removed} executed notebook(s) removed): the library, the records "
              f"or the packages changed (fingerprint {fingerprint[:12]}); every chapter runs again")
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 3 and argv[0] == "check-figures":
        missing = pages_missing_figures(argv[1], argv[2])
        for page in missing:
            print(f"error: {page} shows no figure although its notebook draws some "
                  "(is MPLBACKEND set to a non-inline backend?)", file=sys.stderr)
        return 1 if missing else 0
    if len(argv) == 2 and argv[0] == "check-outputs":
        found = cells_with_stderr(argv[1])
        for line in found:
            print(f"error: a page shows a warning or error: {line}", file=sys.stderr)
        wide = wide_figures_not_full_width(argv[1])
        for line in wide:
            print(f"error: {line}; tag the cell 'full-width' (or draw it narrower)", file=sys.stderr)
        return 1 if found or wide else 0
    if len(argv) == 2 and argv[0] == "fingerprint":
        print(book_fingerprint(argv[1]))
        return 0
    if len(argv) == 2 and argv[0] == "refresh-cache":
        return _refresh_cache_command(argv[1])
    if len(argv) in (3, 4) and argv[0] == "student-sources":
        write_student_sources(*argv[1:])
        return 0
    if len(argv) != 3 or argv[0] != "student":
        print(USAGE, file=sys.stderr)
        return 2
    import yaml

    with open(argv[1], encoding="utf-8") as fh:
        config = yaml.safe_load(fh)
    with open(argv[2], "w", encoding="utf-8") as fh:
        yaml.safe_dump(student_config(config), fh, sort_keys=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
