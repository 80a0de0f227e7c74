"""Progress bars for long runs.

Training functions accept ``progress=None|bool`` and report through
:func:`progress_bar`; model code never prints.  A bar is a ``tqdm`` widget in
Jupyter and a text bar in a terminal.  ``progress=None`` means "on, unless the
environment variable ``TEMPNETS_PROGRESS`` is ``0``" — the book build and the
notebook tests set it to ``0`` so that executed pages carry no widget debris.
"""

from __future__ import annotations

import contextlib
import os

__all__ = ["progress_enabled", "progress_bar"]


def progress_enabled(progress: bool | None = None) -> bool:
    """Resolve a ``progress`` argument: an explicit bool wins, else ``TEMPNETS_PROGRESS``."""
    if progress is None:
        return os.environ.get("TEMPNETS_PROGRESS", "1").strip() not in ("0", "false", "no", "off")
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True, False or None, got {progress!r}")
    return progress


class _Silent:
    """Stand-in bar with the same interface, for disabled progress."""

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str) -> None:
        pass


@contextlib.contextmanager
def progress_bar(total: int, desc: str = "", progress: bool | None = None, unit: str = "it"):
    """Context manager yielding a bar with ``update(n)`` and ``set_postfix_str(s)``.

    Parameters
    ----------
    total : int
        Expected number of units of work.
    desc : str
        Label shown before the bar.
    progress : bool or None
        See :func:`progress_enabled`.
    unit : str
        Name of one unit of work (e.g. ``"strings"``).
    """
    if not progress_enabled(progress):
        yield _Silent()
        return
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=desc, unit=unit, unit_scale=True, leave=True)
    try:
        yield bar
    finally:
        bar.close()
