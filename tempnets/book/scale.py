"""Experiment sizes: ``book`` (the default: fits a chapter's 3-minute budget on
one core) or ``paper`` (the paper's own sizes; run from the command line).

The scale comes from an explicit argument, else the environment variable
``TEMPNETS_SCALE``, else ``book``.  Configs hold both sizes side by side and
pick one with :func:`choose`.
"""

from __future__ import annotations

import os

__all__ = ["SCALES", "get_scale", "choose"]

SCALES = ("book", "paper")


def get_scale(scale: str | None = None) -> str:
    """Return the scale to run at: ``scale`` if given, else ``$TEMPNETS_SCALE``, else ``"book"``.

    Raises
    ------
    ValueError
        If the scale (from either source) is not one of ``"book"``, ``"paper"``.
    """
    source = "scale argument"
    if scale is None:
        scale = os.environ.get("TEMPNETS_SCALE") or "book"
        source = "TEMPNETS_SCALE" if os.environ.get("TEMPNETS_SCALE") else "default"
    if not isinstance(scale, str) or scale.strip().lower() not in SCALES:
        raise ValueError(f"unknown scale {scale!r} (from {source}); allowed: {', '.join(SCALES)}")
    return scale.strip().lower()


def choose(book, paper, scale: str | None = None):
    """Return ``book`` or ``paper`` according to :func:`get_scale`."""
    return paper if get_scale(scale) == "paper" else book
