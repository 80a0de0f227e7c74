"""Configurations of the book's editions.

It also checks a built book: :func:`pages_missing_figures` finds chapters
whose code draws figures but whose HTML page shows none (which is what a
non-inline matplotlib backend such as ``MPLBACKEND=Agg`` does to a build)::

    python -m tempnets.bookconfig check-figures book _build/html

The instructor's edition is ``_config.yml`` as it is.  The student edition
hides exercise solutions (sphinx-exercise's ``hide_solutions``), copies no page
sources and shows no download button, so the solutions cannot be read off the
published HTML.  Jupyter Book's ``--config`` replaces ``_config.yml`` rather
than merging with it, so this module writes the merged file::

    python -m tempnets.bookconfig student _config.yml _build/student-config.yml
"""

from __future__ import annotations

import copy
import re
import sys

STUDENT_OVERRIDES = {
    "sphinx": {
        "recursive_update": True,  # without it the launch buttons vanish
        "config": {
            "hide_solutions": True,
            "html_copy_source": False,
            "html_show_sourcelink": False,
            "html_theme_options": {"use_download_button": False},
        },
    },
}


def merge(base: dict, update: dict) -> dict:
    """Return ``base`` updated recursively by ``update`` (neither is modified)."""
    out = copy.deepcopy(base)
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def student_config(config: dict, cache: str | None = None) -> dict:
    """The student edition of a ``_config.yml`` mapping.

    ``cache`` (an absolute path) points the execution cache at the instructor
    build's, so a student build right after ``make book`` executes nothing again.
    """
    out = merge(config, STUDENT_OVERRIDES)
    return merge(out, {"execute": {"cache": cache}}) if cache else out


def pages_missing_figures(book_dir, html_dir) -> list[str]:
    """Chapters (``.ipynb`` under ``book_dir``) that call matplotlib but whose page has no image."""
    import json
    from pathlib import Path

    missing = []
    for nb_path in sorted(Path(book_dir).rglob("*.ipynb")):
        cells = json.loads(nb_path.read_text(encoding="utf-8"))["cells"]
        draws = any("plt." in "".join(c["source"]) for c in cells if c["cell_type"] == "code")
        page = Path(html_dir) / nb_path.relative_to(Path(book_dir).parent).with_suffix(".html")
        # Theme images (launch-button logos) live in _static; figures do not.
        figures = [m for m in re.findall(r"<img[^>]*src=[\"']([^\"']+)", page.read_text(encoding="utf-8"))
                   if "_static/" not in m] if page.exists() else None
        if draws and figures == []:
            missing.append(str(page))
    return missing


USAGE = ("usage: python -m tempnets.bookconfig student SOURCE_CONFIG OUTPUT_CONFIG [CACHE_DIR]\n"
         "       python -m tempnets.bookconfig check-figures BOOK_DIR HTML_DIR")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 3 and argv[0] == "check-figures":
        missing = pages_missing_figures(argv[1], argv[2])
        for page in missing:
            print(f"error: {page} shows no figure although its notebook draws some "
                  "(is MPLBACKEND set to a non-inline backend?)", file=sys.stderr)
        return 1 if missing else 0
    if len(argv) not in (3, 4) or argv[0] != "student":
        print(USAGE, file=sys.stderr)
        return 2
    import yaml

    with open(argv[1], encoding="utf-8") as fh:
        config = yaml.safe_load(fh)
    with open(argv[2], "w", encoding="utf-8") as fh:
        yaml.safe_dump(student_config(config, *argv[3:]), fh, sort_keys=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
