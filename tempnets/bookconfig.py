"""Configurations of the book's editions.

The instructor's edition is ``_config.yml`` as it is.  The student edition
hides exercise solutions (sphinx-exercise's ``hide_solutions``), copies no page
sources and shows no download button, so the solutions cannot be read off the
published HTML.  Jupyter Book's ``--config`` replaces ``_config.yml`` rather
than merging with it, so this module writes the merged file::

    python -m tempnets.bookconfig student _config.yml _build/student-config.yml
"""

from __future__ import annotations

import copy
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


def student_config(config: dict) -> dict:
    """The student edition of a ``_config.yml`` mapping."""
    return merge(config, STUDENT_OVERRIDES)


def main(argv=None) -> int:
    import yaml

    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 3 or argv[0] != "student":
        print("usage: python -m tempnets.bookconfig student SOURCE_CONFIG OUTPUT_CONFIG", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as fh:
        config = yaml.safe_load(fh)
    with open(argv[2], "w", encoding="utf-8") as fh:
        yaml.safe_dump(student_config(config), fh, sort_keys=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
