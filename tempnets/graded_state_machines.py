"""Experiments of Servan-Schreiber, Cleeremans & McClelland (1991), *Graded
State Machines* (``papers/004``), as runners for ``python -m tempnets
reproduce`` and for the chapter ``book/graded_state_machines``.

Each runner has the signature ``run_*(scale, seed, jobs, progress) -> Result``
(see :mod:`tempnets.experiments`) and returns the experiment's claims table.
"""

from __future__ import annotations

from . import claims
from .experiments import Result
from .grammars import n_letters, reber


def run_reber_count(scale="book", seed=0, jobs=1, progress=None) -> Result:
    """§3.1: the Reber grammar generates exactly 43 strings of 3 to 8 letters.

    Exhaustive enumeration; ``scale``, ``seed``, ``jobs`` and ``progress``
    do not affect it (there is nothing random or long about it).
    """
    strings = reber().enumerate(max_letters=8, min_letters=3)
    by_length = {n: sum(n_letters(s) == n for s in strings) for n in range(3, 9)}
    table = claims.ClaimsTable("The Reber grammar (Servan-Schreiber et al. 1991, §3.1)")
    table.add("number of strings of 3 to 8 letters", "§3.1", 43, len(strings), claims.within(0))
    return Result(table, {"strings": strings, "by_length": by_length})
