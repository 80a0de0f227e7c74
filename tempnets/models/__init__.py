"""Models: the papers' networks and the learning rules the chapters derive.

Each module is public through its own ``__all__`` (its entry points check their arguments);
its compiled kernels are ``_private`` and trust their caller.  May import
:mod:`tempnets._numerics` only.

===================  ==============================================================
``srn``              Elman's simple recurrent network, with periodically attentive units
``bptt``             the SRN rule, BPTT(h, h') and the PA delta rule (O'Connell, ch. 7-8)
``focused``          Mozer's focused network (α/β/γ traces) and the full network's BPTT
``fast_weights``     Schmidhuber's slow net programming a fast net; linear attention
``rtrl``             a fully recurrent network trained on-line by RTRL (the baseline)
``tkrnn``            temporal-kernel RNNs (TKRNN^{+n}): forward and O(T) backward
``rnn_baselines``    the standard RNN and the LSTM on the TKRNN's batch layout
``gradcheck``        central-difference gradient checks (how every rule is proven)
===================  ==============================================================
"""

from .._layers import LAYERS, submodules_on_demand

__all__ = list(LAYERS["models"])
__getattr__ = submodules_on_demand(__name__, __all__)
