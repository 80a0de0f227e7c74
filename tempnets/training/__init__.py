"""Training: the trainers that run many networks at once, the optimiser, checkpoints.

Each module is public through its own ``__all__``.  May import :mod:`tempnets.tasks`,
:mod:`tempnets.models` and :mod:`tempnets._numerics`.

=====================  ============================================================
``srn_trainers``       compiled online and epoch training of SRNs, BPTT and PA networks
``focused_training``   batch training with Mozer's adaptive learning rates
``optim``              Adam with gradient-norm clipping; minibatch training
``checkpoint``         a long run's progress on disk (arrays and JSON, never pickles)
``progress``           progress bars for long runs (never called by model code)
=====================  ============================================================

Before the layers, ``tempnets.training`` was the module now called ``srn_trainers``; its
names (``tempnets.training.TrainConfig``, ``train_online``...) still load from here, so code
written then keeps running.
"""

import importlib

from .._layers import LAYERS, submodules_on_demand

__all__ = list(LAYERS["training"])


def _old_module_names(name):
    trainers = importlib.import_module(f"{__name__}.srn_trainers")
    if name in trainers.__all__:
        return getattr(trainers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__getattr__ = submodules_on_demand(__name__, __all__, extra=_old_module_names)
