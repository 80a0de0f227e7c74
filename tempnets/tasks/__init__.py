"""Tasks: what the networks must learn, and how their answers are scored.

Each module is public through its own ``__all__``.  May import :mod:`tempnets.models` (the
verbs' phoneme code is the focused network's input) and :mod:`tempnets._numerics`.

=======================  ==========================================================
``grammars``             finite-state grammars: Reber, embedded Reber and variants
``verbs``                Mozer's data: DEAR/DEAN code, Table 2's verbs, a CMUdict verb set
``streams``              endless event streams: the flip-flop, the car owner's day
``sequences``            the serial-recall task (string, delay, cue, recall)
``metrics``              acceptance, Luce ratios, embed/final, generalisation counts
``analysis``             clusters of hidden states, average conditional probabilities
``recall_diagnostics``   what a serial-recall network remembers: items, order, decays
=======================  ==========================================================
"""

from .._layers import LAYERS, submodules_on_demand

__all__ = list(LAYERS["tasks"])
__getattr__ = submodules_on_demand(__name__, __all__)
