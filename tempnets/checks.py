"""Argument checks shared by the library: a clear error naming the value and what is allowed."""

from __future__ import annotations

import numbers

__all__ = ["count"]


def count(name: str, value, minimum: int = 0) -> int:
    """``value`` as an ``int`` after checking it is an integer ``>= minimum`` (``bool`` is refused).

    Raises
    ------
    ValueError
        ``"<name> must be an integer >= <minimum>, got <value>"``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)
