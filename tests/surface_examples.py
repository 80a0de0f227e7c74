"""Valid example calls of every public function, for ``tests/test_public_surface.py``.

One entry per public callable (``"tempnets.<module>.<name>"``): a function returning an
:class:`Example`, the arguments of one call that must return normally.  The surface test
then replaces ONE argument at a time by bad values.  Keep sizes tiny (a function that trains
gets a few updates) and paths under a temporary directory.  A public function without an
entry fails the surface test ("add valid example arguments for X"): add one here.

:data:`NOT_PROBED` lists the few public callables that are deliberately not called, each
with the reason (they run a whole experiment; their arguments are checked elsewhere).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import tempfile

import numpy as np


class Example:
    """``fn(*args, **kwargs)`` must return normally.

    ``keep``: arguments never replaced (callables the test cannot meaningfully break, ...);
    ``work``: arguments that only say how much work to do (epochs, updates, strings): a huge
    value is a legitimate, interruptible long run, so they get every bad value but huge ones;
    ``budget``: Hypothesis examples per argument (smaller for slow functions).
    """

    def __init__(self, *args, keep=(), work=(), budget=8, **kwargs):
        self.args, self.kwargs, self.keep, self.budget = args, kwargs, set(keep), budget
        self.work = set(work)


def needs_example(obj) -> bool:
    """Whether a public name is something a user calls with arguments that must be checked:
    functions and classes with checks of their own (not exceptions, plain NamedTuples or
    dataclasses without ``__post_init__``, constants)."""
    if not callable(obj):
        return False
    if isinstance(obj, type):
        if issubclass(obj, BaseException):
            return False
        if issubclass(obj, tuple) and hasattr(obj, "_fields"):
            return False
        if dataclasses.is_dataclass(obj) and not hasattr(obj, "__post_init__"):
            return False
    try:
        inspect.signature(obj)
    except (TypeError, ValueError):
        return False
    return bool(inspect.signature(obj).parameters)


def example_for(qualname: str) -> Example | None:
    make = EXAMPLES.get(qualname)
    return None if make is None else make()


# ----------------------------------------------------------------------------- shared valid data
# (each built once per worker; the worker deep-copies arguments for every call)

@functools.cache
def tmp() -> str:
    return tempfile.mkdtemp(prefix="surface-files-")


@functools.cache
def srn_params():
    from tempnets.models import srn

    return srn.init_params(7, 3, 7, rng=0)


@functools.cache
def reber():
    from tempnets.tasks import grammars

    return grammars.reber()


@functools.cache
def reber_strings():
    return ["BTXSE", "BPVVE", "BTSXSE"]


def _flat(grammar, strings):
    """``(flat, offsets)`` of ``strings`` encoded by ``grammar``."""
    from tempnets.models import srn

    return srn.as_flat_strings([grammar.encode(s) for s in strings])


def _activations(strings, flat):
    """The example network's outputs on ``strings``, one ``(len(s) - 1, n_out)`` array each."""
    from tempnets.models import srn

    y = srn.srn_forward(srn_params(), *flat)[0]
    return np.split(y, np.cumsum([len(s) - 1 for s in strings])[:-1])


@functools.cache
def reber_flat():
    return _flat(reber(), reber_strings())


@functools.cache
def reber_activations():
    return _activations(reber_strings(), reber_flat())


@functools.cache
def focused_setup():
    from tempnets.models import focused

    rng = np.random.default_rng(0)
    inputs = [rng.normal(size=(4, 2)), rng.normal(size=(3, 2))]
    targets = [rng.normal(size=(4, 2)) * 0.1, rng.normal(size=(3, 2)) * 0.1]
    seqs = focused.make_sequences(inputs, targets)
    return focused.init_focused(2, 3, 2, rng=0), focused.init_full(2, 3, 2, rng=0), seqs, inputs, targets


@functools.cache
def fw_setup():
    from tempnets.models import fast_weights as fw

    net = fw.FastWeightNet(2, 2, 1)
    U = fw.init_slow_weights(net, rng=0)
    rng = np.random.default_rng(1)
    xs, xf = rng.normal(size=(5, 2)), rng.normal(size=(5, 2))
    d, mask = rng.uniform(size=(5, 1)), np.ones(5)
    return net, U, xs, xf, d, mask


@functools.cache
def rtrl_setup():
    from tempnets.models import rtrl

    net = rtrl.RecurrentNet(2, 3, 1)
    W = rtrl.init_weights(net, rng=0)
    rng = np.random.default_rng(1)
    return net, W, rng.normal(size=(5, 2)), rng.uniform(size=(5, 1)), np.ones(5)


@functools.cache
def tk_batch():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 2, 3))
    target = rng.integers(0, 5, size=(4, 2))
    mask = np.ones((4, 2))
    return x, target, mask


@functools.cache
def tk_params():
    from tempnets.models import tkrnn

    return tkrnn.init_params(3, 4, 5, rng=0)


@functools.cache
def rnn_params():
    from tempnets.models import rnn_baselines

    return rnn_baselines.rnn_init(3, 4, 5, rng=0)


@functools.cache
def lstm_params():
    from tempnets.models import rnn_baselines

    return rnn_baselines.lstm_init(3, 4, 5, rng=0)


@functools.cache
def recall_task():
    from tempnets.tasks import sequences

    return sequences.SerialRecall(alphabet=4, length=2, delays=(2, 3))


def _quadratic(x):
    return float(np.sum(np.asarray(x) ** 2))


def _quadratic_grad(x):
    return 2 * np.asarray(x, dtype=float)


def _tk_sample(rng):
    x, target, mask = tk_batch()
    return x, target, mask


def _tk_loss_and_grad(params, x, target, mask):
    from tempnets.models import tkrnn

    return tkrnn.tkrnn_loss_and_grad(params, x, target, mask)


_RECORD = "paper_scale/gsm-reber-count.json"  # the smallest committed record (found by find_record)


def _record():
    from tempnets.book import experiments

    record = experiments.read_record(_RECORD)
    return {k: v for k, v in record.items() if not k.startswith("_")}


# ----------------------------------------------------------------------------- the table

def _a(*args, **kwargs):
    return lambda: Example(*args, **kwargs)


def _lazy(build):
    """An entry whose arguments need the shared data above (built in the worker)."""
    return build


EXAMPLES = {
    # random
    "tempnets._numerics.random.as_generator": _a(0),
    "tempnets._numerics.random.spawn": _a(0, 2),
    "tempnets._numerics.random.perturbed": _a(np.ones(3)),
    "tempnets._numerics.random.perturbing": _a(0.0),
    # checks
    "tempnets._numerics.checks.count": _a("n", 3, 0, 10),
    "tempnets._numerics.checks.real": _a("lr", 0.5, low=0.0, high=1.0),
    "tempnets._numerics.checks.array": _a("x", np.ones((2, 3)), (2, "n"), {}, low=-5.0, high=5.0),
    # gradcheck
    "tempnets.models.gradcheck.relative_error": _a(np.ones(3), np.ones(3)),
    "tempnets.models.gradcheck.numerical_gradient": _a(_quadratic, np.ones(3), keep=["f"]),
    "tempnets.models.gradcheck.check_gradient": _a(_quadratic, _quadratic_grad(np.ones(3)), np.ones(3),
                                            keep=["f"]),
    "tempnets.models.gradcheck.check_directional": _a(_quadratic, _quadratic_grad(np.ones(3)), np.ones(3), rng=0,
                                               keep=["f"], work=["n_directions"]),
    # claims
    "tempnets.book.claims.within": _a(0.1),
    "tempnets.book.claims.relative": _a(0.1),
    "tempnets.book.claims.at_least": _a(0.5),
    "tempnets.book.claims.at_most": _a(0.5),
    "tempnets.book.claims.between": _a(0.1, 0.9),
    # scale, progress
    "tempnets.book.scale.get_scale": _a("book"),
    "tempnets.book.scale.choose": _a(1, 2, "book"),
    "tempnets.training.progress.progress_enabled": _a(False),
    "tempnets.training.progress.progress_bar": _a(3, "x", progress=False),
    # grammars
    "tempnets.tasks.grammars.n_letters": _a("BTXSE"),
    "tempnets.tasks.grammars.embedded_reber": _a(0.5),
    "tempnets.tasks.grammars.long_embedded_reber": _a(0.9),
    "tempnets.tasks.grammars.thesis_embedded_reber": _a(False, 0.5),
    "tempnets.tasks.grammars.embedded_subgrammar": _a(True, 0.8),
    # srn
    "tempnets.models.srn.check_memory": _a(100, "weights"),
    "tempnets.models.srn.check_params": _lazy(lambda: Example(srn_params())),
    "tempnets.models.srn.init_params": _a(7, 3, 7, rng=0),
    "tempnets.models.srn.pa_attention": _a(2, 2, 3),
    "tempnets.models.srn.check_attention": _a(np.array([1, 1, 2]), np.array([0, 0, 1]), 3),
    "tempnets._numerics.checks.is_finite_real": _a(0.5),
    "tempnets._numerics.checks.memory": _a(100, "weights"),
    "tempnets.tasks.grammars.check_grammar": _lazy(lambda: Example(reber())),
    "tempnets.tasks.grammars.check_strings": _a(["BTXSE", "BPVVE"]),
    "tempnets.models.srn.srn_forward": _lazy(lambda: Example(srn_params(), *reber_flat())),
    "tempnets.models.srn.as_flat_strings": _lazy(lambda: Example(*reber_flat())),
    # training
    "tempnets.training.srn_trainers.no_training": _a("a reason"),
    "tempnets.training.srn_trainers.train_epochs": _lazy(lambda: Example(
        *reber_flat(), n_epochs=1, config=_train_config(), rng=0, progress=False, budget=3,
        work=["n_epochs"])),
    "tempnets.training.srn_trainers.bptt_gradient": _lazy(lambda: Example(srn_params(), *reber_flat(),
                                                             config=_train_config())),
    "tempnets.training.srn_trainers.sample_strings": _lazy(lambda: Example(reber().tables(), 3, rng=0,
                                                             work=["n_strings"])),
    "tempnets.training.srn_trainers.train_online": _lazy(lambda: Example(
        reber().tables(), 3, config=_train_config(), rng=0, progress=False, budget=3,
        work=["n_strings"])),
    # metrics
    "tempnets.tasks.metrics.as_activation_list": _lazy(lambda: Example(
        reber_activations(), reber_strings(), reber())),
    "tempnets.tasks.metrics.luce_ratio": _a(np.array([[0.2, 0.5, 0.3]])),
    "tempnets.tasks.metrics.successor_activations": _lazy(lambda: Example(
        reber_activations(), reber_strings(), reber())),
    "tempnets.tasks.metrics.accepted": _lazy(lambda: Example(
        reber_activations(), reber_strings(), reber(), 0.3)),
    "tempnets.tasks.metrics.indicator_position": _a("BTBTXSETE"),
    "tempnets.tasks.metrics.embed_predicted": _lazy(lambda: Example(
        reber_activations(), reber_strings(), reber(), 0.3)),
    "tempnets.tasks.metrics.final_predicted": _lazy(lambda: Example(
        reber_activations(), reber_strings(), reber(), 0.6)),
    "tempnets.tasks.metrics.legal_successors": _a("BT", ["BTXSE", "BTSXSE", "BPVVE"]),
    # focused
    "tempnets.models.focused.connection_count": _lazy(lambda: Example(focused_setup()[0])),
    "tempnets.models.focused.init_focused": _a(2, 3, 2, 0),
    "tempnets.models.focused.init_full": _a(2, 3, 2, 0),
    "tempnets.models.focused.make_sequences": _lazy(lambda: Example(focused_setup()[3], focused_setup()[4])),
    "tempnets.models.focused.check_params": _lazy(lambda: Example(focused_setup()[0])),
    "tempnets.models.focused.check_sequences": _lazy(lambda: Example(focused_setup()[2], 2, 2)),
    "tempnets.models.focused.forward": _lazy(lambda: Example(focused_setup()[0], focused_setup()[2])),
    "tempnets.models.focused.trace_gradient": _lazy(lambda: Example(focused_setup()[0], focused_setup()[2])),
    "tempnets.models.focused.bptt_gradient": _lazy(lambda: Example(focused_setup()[1], focused_setup()[2])),
    "tempnets.models.focused.init_many": _a("focused", 2, 3, 2, 2, 0),
    # focused_training
    "tempnets.training.focused_training.train": _lazy(lambda: Example(
        focused_setup()[2], _focused_stack(), n_epochs=2, progress=False, budget=3,
        work=["n_epochs"])),
    "tempnets.training.focused_training.evaluate": _lazy(lambda: Example(focused_setup()[0], focused_setup()[2])),
    "tempnets.training.focused_training.zero_output_score": _lazy(lambda: Example(focused_setup()[2])),
    "tempnets.training.focused_training.learning_rates": _lazy(lambda: Example(focused_setup()[0],
                                                                      focused_setup()[2])),
    # verbs
    "tempnets.tasks.verbs.encode_symbols": _a("AB", {"A": [1.0, 0.0], "B": [0.0, 1.0]}),
    "tempnets.tasks.verbs.buffered": _a(np.eye(3), 2),
    "tempnets.tasks.verbs.dear_task": _a(("DEAR", "DEAN"), True, ("DEAR", "DEAN")),
    "tempnets.tasks.verbs.wickelements": _a("DEAR", True),
    "tempnets.tasks.verbs.phoneme_features": _a("kat"),
    "tempnets.tasks.verbs.verb_inputs": _a("kat", False),
    "tempnets.tasks.verbs.regular_class": _a("kat"),
    "tempnets.tasks.verbs.verb_task": _a([("cat", "kat", 0), ("dog", "dog", 1)], 2),
    "tempnets.tasks.verbs.rm_spelling": _a("cat", {"cat": [["K", "AE1", "T"]]}),
    "tempnets.tasks.verbs.large_verb_corpus": _a(None, budget=1),
    "tempnets.tasks.verbs.large_held_out": _a(None, budget=1),
    "tempnets.tasks.verbs.held_out_regulars": _a(None, False, budget=1, keep=["categories"]),
    "tempnets.tasks.verbs.reproduction_task": _a(1, "ABC"),
    # streams
    "tempnets.tasks.streams.flipflop": _a("ABCAB"),
    "tempnets.tasks.streams.random_flipflop": _a(10, 0),
    "tempnets.tasks.streams.parking": _a("dd1bbd2b", None, None),
    "tempnets.tasks.streams.random_parking": _a(10, 0),
    # fast_weights
    "tempnets.models.fast_weights.FastWeightNet": _a(2, 2, 1),
    "tempnets.models.fast_weights.init_slow_weights": _lazy(lambda: Example(fw_setup()[0], 0.1, 0)),
    "tempnets.models.fast_weights.initial_state": _lazy(lambda: Example(*fw_setup()[:2])),
    "tempnets.models.fast_weights.run": _lazy(lambda: Example(*fw_setup())),
    "tempnets.models.fast_weights.gradient": _lazy(lambda: Example(*fw_setup())),
    "tempnets.models.fast_weights.gradient_unfolded": _lazy(lambda: Example(*fw_setup())),
    "tempnets.models.fast_weights.train_online": _lazy(lambda: Example(*fw_setup())),
    "tempnets.models.fast_weights.solved_at": _a(np.full(5, 0.01), np.ones(5), 0.05, 2),
    "tempnets.models.fast_weights.linear_attention": _a(np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 3))),
    "tempnets.models.fast_weights.additive_memory": _a(np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 3))),
    # rtrl
    "tempnets.models.rtrl.RecurrentNet": _a(2, 3, 1),
    "tempnets.models.rtrl.init_weights": _lazy(lambda: Example(rtrl_setup()[0], 0.1, 0)),
    "tempnets.models.rtrl.gradient": _lazy(lambda: Example(*rtrl_setup())),
    "tempnets.models.rtrl.gradient_bptt": _lazy(lambda: Example(*rtrl_setup())),
    "tempnets.models.rtrl.train_online": _lazy(lambda: Example(*rtrl_setup())),
    # tkrnn
    "tempnets.models.tkrnn.init_params": _a(3, 4, 5, 1, 0),
    "tempnets.models.tkrnn.lam": _lazy(lambda: Example(tk_params())),
    "tempnets.models.tkrnn.tkrnn_forward": _lazy(lambda: Example(tk_params(), tk_batch()[0])),
    "tempnets.models.tkrnn.tkrnn_loss_and_grad": _lazy(lambda: Example(tk_params(), *tk_batch())),
    "tempnets.models.tkrnn.kernel": _a([1.0, -1.0], [0.9, 0.5], np.arange(1, 4)),
    "tempnets.models.tkrnn.blocks": _lazy(lambda: Example(tk_params())),
    "tempnets.models.tkrnn.n_params": _a(3, 4, 5, 1),
    "tempnets.models.tkrnn.multiply_adds": _a(3, 4, 5, 1),
    "tempnets.models.tkrnn.check_batch": _lazy(lambda: Example(*tk_batch(), 3, 5)),
    "tempnets.models.tkrnn.softmax_xent": _lazy(lambda: Example(np.zeros((4, 2, 5)), *tk_batch()[1:])),
    # rnn_baselines
    "tempnets.models.rnn_baselines.rnn_init": _a(3, 4, 5, 0),
    "tempnets.models.rnn_baselines.rnn_forward": _lazy(lambda: Example(rnn_params(), tk_batch()[0])),
    "tempnets.models.rnn_baselines.rnn_loss_and_grad": _lazy(lambda: Example(rnn_params(), *tk_batch())),
    "tempnets.models.rnn_baselines.lstm_init": _a(3, 4, 5, 0),
    "tempnets.models.rnn_baselines.lstm_forward": _lazy(lambda: Example(lstm_params(), tk_batch()[0])),
    "tempnets.models.rnn_baselines.lstm_loss_and_grad": _lazy(lambda: Example(lstm_params(), *tk_batch())),
    "tempnets.models.rnn_baselines.n_params": _a("lstm", 3, 4, 5),
    "tempnets.models.rnn_baselines.matched_hidden": _a("lstm", 3, 5, 200),
    # optim
    "tempnets.training.optim.adam_init": _lazy(lambda: Example(dict(tk_params()))),
    "tempnets.training.optim.adam_step": _lazy(lambda: Example(
        dict(tk_params()), {k: np.ones_like(v) for k, v in tk_params().items()},
        __import__("tempnets.training.optim").training.optim.adam_init(dict(tk_params())))),
    "tempnets.training.optim.clip_by_global_norm": _a({"a": np.ones(3)}, 1.0),
    "tempnets.training.optim.train": _lazy(lambda: Example(
        _tk_loss_and_grad, dict(tk_params()), _tk_sample, 2, rng=0, progress=False,
        keep=["loss_and_grad", "sample"], budget=3, work=["n_steps"])),
    # sequences
    "tempnets.tasks.sequences.SerialRecall": _a(4, 2, (2, 3)),
    "tempnets.tasks.sequences.encode": _lazy(lambda: Example(recall_task(), np.array([[0, 1], [2, 3]]),
                                                       np.array([2, 3]))),
    "tempnets.tasks.sequences.make_batch": _lazy(lambda: Example(recall_task(), 3, 0)),
    "tempnets.tasks.sequences.recall_scores": _lazy(lambda: Example(np.zeros((4, 2, 5)), *tk_batch()[1:])),
    # portable_math (the kernels engineer decides which of these stay public)
    "tempnets._numerics.portable_math.exp": _a(0.5),
    "tempnets._numerics.portable_math.log": _a(0.5),
    "tempnets._numerics.portable_math.tanh": _a(0.5),
    "tempnets._numerics.portable_math.logistic": _a(0.5),
    "tempnets._numerics.portable_math.matmul": _a(np.ones((2, 3)), np.ones((3, 4)), np.ones(4)),
    "tempnets._numerics.portable_math.outer": _a(np.ones((2, 4)), np.ones((2, 3))),
    "tempnets._numerics.portable_math.colsum": _a(np.ones((2, 4))),
    "tempnets._numerics.portable_math.colsum_products": _a(np.ones((2, 4)), np.ones((2, 4))),
    "tempnets._numerics.portable_math.sum_of_squares": _a(np.ones(4)),
    # portable (checked from Python; the compiled callers use the kernels)
    "tempnets._numerics.portable.logistic": _a(0.5),
    "tempnets._numerics.portable.dot4": _a(np.ones((1, 4)), 0, np.ones((1, 4)), 0, 4),
    "tempnets._numerics.portable.finite": _a(np.ones(3)),
    # the checkpoint format (.npz + JSON)
    "tempnets.training.checkpoint.encode": _a({"w": np.ones(2), "step": 3}, {}),
    "tempnets.training.checkpoint.decode": _lazy(lambda: Example(*_encoded())),
    "tempnets.training.checkpoint.read_value": _lazy(lambda: Example(_saved_value())),
    # claims' design check and control gate
    "tempnets.book.claims.design_check": _lazy(lambda: Example(_claims().at_least(0.5), None, _design())),
    "tempnets.book.claims.runs_needed": _lazy(lambda: Example(_claims().at_least(0.5), None, _design())),
    "tempnets.book.claims.control_gate": _lazy(lambda: Example(
        _claims().Claim("the baseline learns", "Fig. 1", 0.9, 0.95, _claims().at_least(0.5)))),
    # checkpoint
    "tempnets.training.checkpoint.Checkpoint": _lazy(lambda: Example(tmp() + "/ckpt-class")),
    # claims, grammars (classes with checks of their own)
    "tempnets.book.claims.Check": _a("at_least", 0.5),
    "tempnets.book.claims.Claim": _lazy(lambda: Example("s", "Fig. 1", 0.5, 0.5, _claims().within(0.1))),
    "tempnets.tasks.grammars.FiniteStateGrammar": _a("g", "BE", (("s", "B", "m", 1.0), ("m", "E", None, 1.0)), "s"),
    # metrics
    "tempnets.tasks.metrics.embed_final_many": _lazy(lambda: Example(
        np.concatenate(emb_activations())[None], emb_strings(), emb(), np.array([0, 8, 16]))),
    "tempnets.tasks.metrics.exit_outcomes": _lazy(lambda: Example(
        emb_activations(), emb_strings(), emb(), "TP", 0.6)),
    "tempnets.tasks.metrics.outcome_percentages": _a(np.array(["hit", "miss", "error"])),
    "tempnets.tasks.metrics.outcomes_by_embedding_length": _a(np.array(["hit", "miss"]),
                                                        ["BTBTXSETE", "BPBPVVEPE"], 7),
    "tempnets.tasks.metrics.generalisation_counts": _lazy(lambda: Example(
        reber_activations(), reber_strings(), reber(), None, 0.05, 0.3)),
    # analysis
    "tempnets.tasks.analysis.presentation_label": _a("BTXSE", 2, False),
    "tempnets.tasks.analysis.presentation_labels": _a(["BTXSE", "BPVVE"], False),
    "tempnets.tasks.analysis.node_labels": _lazy(lambda: Example(reber(), reber_strings())),
    "tempnets.tasks.analysis.successor_labels": _lazy(lambda: Example(reber(), reber_strings())),
    "tempnets.tasks.analysis.current_letter_labels": _a(["BTXSE", "BPVVE"]),
    "tempnets.tasks.analysis.cluster_hidden_states": _a(np.arange(12.0).reshape(4, 3) % 5, "average"),
    "tempnets.tasks.analysis.cluster_composition": _lazy(lambda: Example(_linkage(), ["a", "b", "a", "b"], 2)),
    "tempnets.tasks.analysis.cluster_purity": _lazy(lambda: Example(_linkage(), ["a", "b", "a", "b"], 2)),
    "tempnets.tasks.analysis.conditional_probabilities": _a(["BTXSE", "BPVVE"], "BTSPXVE", 1),
    "tempnets.tasks.analysis.path_probabilities": _lazy(lambda: Example(reber_strings(), reber(), 1)),
    "tempnets.tasks.analysis.acp_keys": _lazy(lambda: Example(reber(), reber_strings())),
    "tempnets.tasks.analysis.average_conditional_probabilities": _lazy(lambda: Example(
        reber_strings(), reber(), range(3))),
    "tempnets.tasks.analysis.network_averages": _lazy(lambda: Example(
        np.concatenate(reber_activations()), reber_strings(), reber(), _acp().keys, 2)),
    "tempnets.tasks.analysis.acp_r_squared": _lazy(lambda: Example(
        _acp(), np.concatenate(reber_activations()), reber_strings(), reber(), 2)),
    # plots
    "tempnets.book.plots.grammar_layout": _lazy(lambda: Example(reber())),
    "tempnets.book.plots.grammar_diagram": _lazy(lambda: Example(reber(), budget=2)),
    "tempnets.book.plots.srn_diagram": _a(None, 3, "BTSPXVE", budget=2),
    "tempnets.book.plots.network_state": _a({"input": np.array([0.0, 1.0]), "hidden": np.array([0.5, 0.2, 0.9])},
                                       budget=2),
    "tempnets.book.plots.dendrogram": _lazy(lambda: Example(_linkage(), ["a", "b", "c", "d"], budget=2)),
    "tempnets.book.plots.learning_curve": _a(np.arange(4.0), np.ones(4), budget=2),
    "tempnets.book.plots.acp_curves": _a(np.arange(3.0), np.full((3, 2), 0.5), budget=2),
    "tempnets.book.plots.hits_by_length": _a({"lengths": ["1", "2"], "hit": np.array([50.0, 60.0]),
                                         "error": np.array([10.0, 20.0]), "miss": np.array([40.0, 20.0]),
                                         "count": np.array([3, 4])}, budget=2),
    "tempnets.book.plots.hinton": _a(np.array([[0.5, -1.0], [0.2, 0.0]]), budget=2),
    "tempnets.book.plots.unfolded_network": _a(3, True, budget=2),
    # optim's config
    "tempnets.training.optim.OptimConfig": _a(0.01),
    # intervals
    "tempnets.book.intervals.share": _a(3, 10),
    "tempnets.book.intervals.count": _a(3, 10),
    "tempnets.book.intervals.percent": _a(3, 10),
    "tempnets.book.intervals.share_note": _a(3, 10, "runs"),
    "tempnets.book.intervals.level_name": _a(0.975),
    "tempnets.book.intervals.share_difference": _a(3, 10, 5, 10),
    "tempnets.book.intervals.mean": _a(np.array([1.0, 2.0, 4.0])),
    "tempnets.book.intervals.mean_difference": _a(np.array([1.0, 2.0, 4.0]), np.array([0.0, 1.0, 1.5])),
    "tempnets.book.intervals.median": _a(np.arange(8.0)),
    "tempnets.book.intervals.bootstrap": _a(np.median, np.arange(8.0), n_resamples=50, keep=["statistic"],
                                     work=["n_resamples"]),
    "tempnets.book.intervals.ratio_of_medians": _a(np.arange(1.0, 9.0), np.arange(2.0, 10.0)),
    # explorer
    "tempnets.book.explorer.string_states": _lazy(lambda: Example(srn_params(), reber(), "BTXSE")),
    "tempnets.book.explorer.state_figure": _lazy(lambda: Example(srn_params(), reber(), "BTXSE", budget=2)),
    "tempnets.book.explorer.explorer": _lazy(lambda: Example(srn_params(), reber(), "BTXSE", 0, budget=2)),
    # chapters.checking_our_work
    "tempnets.chapters.checking_our_work.crossentropy_gradient": _a(np.ones(4), np.ones(3), 1.0),
    # chapters.fast_weights
    "tempnets.chapters.fast_weights.make_stream": _a("flipflop", 0, 0, 20),
    "tempnets.chapters.fast_weights.make_net": _a("flipflop"),
    "tempnets.chapters.fast_weights.test_stream": _a("flipflop", 0, budget=2),
    "tempnets.chapters.fast_weights.train_fast_weights": _lazy(lambda: Example(
        _fwc().make_stream("flipflop", 0, 0, 30), _fwc().make_net("flipflop"), 1.0, 0, budget=2)),
    "tempnets.chapters.fast_weights.train_baseline": _lazy(lambda: Example(
        _fwc().make_stream("flipflop", 0, 0, 30), "flipflop", 1.0, 0, budget=2)),
    "tempnets.chapters.fast_weights.summary": _a(np.array([10, 20, -1]), 100),
    "tempnets.chapters.fast_weights.format_summary": _lazy(lambda: Example(
        _fwc().summary(np.array([10, 20, -1]), 100), 100)),
    "tempnets.chapters.fast_weights.best_baseline": _lazy(lambda: Example(
        {f"rtrl {lr:g}": {"solved": [10, 20, -1]} for lr in _fwc().BASELINE["flipflop"]["rates"]},
        "flipflop", 100)),
    "tempnets.chapters.fast_weights.learned_flipflop_solution": _lazy(lambda: Example(
        _fw_U("flipflop"))),
    "tempnets.chapters.fast_weights.learned_binding": _lazy(lambda: Example(_fw_U("parking"))),
    "tempnets.chapters.fast_weights.equivalence_errors": _a(0, 5, work=["n"]),
    "tempnets.chapters.fast_weights.system_diagram": _a(None, "per-weight", budget=2),
    "tempnets.chapters.fast_weights.latch_figure": _lazy(lambda: Example(_fw_U("flipflop"), "ABCAB", budget=2)),
    "tempnets.chapters.fast_weights.steps_histogram": _a(np.array([10, 20, -1]), 100, budget=2),
    "tempnets.chapters.fast_weights.explorer": _lazy(lambda: Example(_fw_U("flipflop"), "ABCAB", budget=2)),
    "tempnets.chapters.fast_weights.latch_fixed_points": _a(10.0),
    # chapters.focused_backprop
    "tempnets.chapters.focused_backprop.context_profile": _lazy(lambda: Example(
        focused_setup()[0], focused_setup()[2])),
    "tempnets.chapters.focused_backprop.operation_counts": _a(2, 3, 2, [4, 5]),
    "tempnets.chapters.focused_backprop.context_connections": _lazy(lambda: Example(focused_setup()[0])),
    # chapters.graded_state_machines
    "tempnets.chapters.graded_state_machines.comparisons_against": _a([np.array([1.0, 2.0, 3.0]),
                                                                       np.array([-1.0, 0.5, 2.0])]),
    "tempnets.chapters.graded_state_machines.config": _a(3),
    "tempnets.chapters.graded_state_machines.params_to_lists": _lazy(lambda: Example(srn_params())),
    "tempnets.chapters.graded_state_machines.params_from_lists": _lazy(lambda: Example(
        _gsm().params_to_lists(srn_params()))),
    "tempnets.chapters.graded_state_machines.outputs": _lazy(lambda: Example(srn_params(), reber(), reber_strings())),
    "tempnets.chapters.graded_state_machines.accepts": _lazy(lambda: Example(srn_params(), reber(), reber_strings())),
    "tempnets.chapters.graded_state_machines.random_sequences": _a(3, 0, work=["n"]),
    "tempnets.chapters.graded_state_machines.accept_flat": _lazy(lambda: Example(srn_params(), *reber_flat())),
    "tempnets.chapters.graded_state_machines.grammatical_flat": _lazy(lambda: Example(reber(), *reber_flat())),
    "tempnets.chapters.graded_state_machines.random_grammatical_probability": _lazy(lambda: Example(reber())),
    "tempnets.chapters.graded_state_machines.predicts_exactly_legal": _lazy(lambda: Example(
        srn_params(), reber(), "BTXSE")),
    "tempnets.chapters.graded_state_machines.node_separability": _a(
        np.arange(8.0).reshape(4, 2), np.array(["#1", "#3", "#1", "#3"])),
    "tempnets.chapters.graded_state_machines.length_statistics": _lazy(lambda: Example(reber(), 20)),
    "tempnets.chapters.graded_state_machines.length_constraint_predictions": _lazy(lambda: Example(
        srn_params(), reber())),
    "tempnets.chapters.graded_state_machines.tss": _lazy(lambda: Example(srn_params(), reber(), reber_strings())),
    "tempnets.chapters.graded_state_machines.optimal_tss": _lazy(lambda: Example(reber(), reber_strings())),
    "tempnets.chapters.graded_state_machines.figure15_purity": _lazy(lambda: Example(
        srn_params(), reber(), reber_strings())),
    "tempnets.chapters.graded_state_machines.acp_pattern_design": _lazy(lambda: Example(
        reber_strings(), reber_strings(), reber(), range(3))),
    "tempnets.chapters.graded_state_machines.acp_pattern_r_squared": _a(
        [(0, 1), (1, 2), (2, 3)], np.array([[0.1, 0.5, 0.9]]), np.full((3, 7), 0.3)),
    "tempnets.chapters.graded_state_machines.plausible_best_orders": _a(np.array([[0.1, 0.5], [0.2, 0.6]])),
    "tempnets.chapters.graded_state_machines.problem3_strings": _a(2),
    "tempnets.chapters.graded_state_machines.problem3_solved": _lazy(lambda: Example(
        [np.full((6, 7), 0.5)] * 2, _gsm().problem3_strings(2))),
    "tempnets.chapters.graded_state_machines.problem3_shared_learned": _lazy(lambda: Example(
        [np.full((6, 7), 0.5)] * 2, _gsm().problem3_strings(2))),
    "tempnets.chapters.graded_state_machines.train_problem3": _a(2, 1, 1, 2, 0, 1, budget=2,
                                                                  work=["max_epochs", "n_networks"]),
    "tempnets.chapters.graded_state_machines.growth_evidence": _a([10.0, 20.0, float("inf")]),
    "tempnets.chapters.graded_state_machines.growth_decided": _a([[1.0] * 6, [2.0] * 6]),
    "tempnets.chapters.graded_state_machines.twin_nearest_neighbours": _a(
        np.arange(8.0).reshape(4, 2), ["a", "a", "b", "b"], ["T", "P", "T", "P"]),
    "tempnets.chapters.graded_state_machines.embedded_states": _lazy(lambda: Example(
        srn_params(), _emb_gsm(), 4)),
    # chapters.mozer_rates
    "tempnets.chapters.mozer_rates.task_config": _a("delay1", 1.0, 0.02, 100.0),
    "tempnets.chapters.mozer_rates.choose": _a({"settings": [[0.75, 0.02, 100.0], [1.0, 0.04, 10.0]], "epochs": 10,
                                                "final": [[90.0], [100.0]], "epochs_to_criterion": [[-1], [5]]}),
    "tempnets.chapters.mozer_rates.inside": _a({"settings": [[0.75, 0.02, 100.0], [1.0, 0.04, 10.0]], "epochs": 10,
                                                "final": [[90.0], [100.0]], "epochs_to_criterion": [[-1], [5]]}),
    "tempnets.chapters.mozer_rates.neighbourhood": _a((0.75, 0.02, 100.0)),
    "tempnets.chapters.mozer_rates.delay4_summary": _a(None, None, budget=2),
    # chapters.periodically_attentive_units
    "tempnets.chapters.periodically_attentive_units.Sizes": _a(2, 10, 5, 10),
    "tempnets.chapters.periodically_attentive_units.condition_config": _a("SRN"),
    "tempnets.chapters.periodically_attentive_units.test_strings": _lazy(lambda: Example(
        emb(), 3, 0, work=["n"])),
    "tempnets.chapters.periodically_attentive_units.length_statistics": _a(["BTBTXSETE", "BPBPVVEPE"]),
    "tempnets.chapters.periodically_attentive_units.score": _lazy(lambda: Example(
        srn_params(), ["BTBTXSETE", "BPBPVVEPE"], emb(), _train_config())),
    "tempnets.chapters.periodically_attentive_units.complementary_pairs": _a(2, 0, work=["n"]),
    "tempnets.chapters.periodically_attentive_units.hidden_differences": _lazy(lambda: Example(
        srn_params(), _pau().complementary_pairs(2, 0), _train_config())),
    "tempnets.chapters.periodically_attentive_units.hidden_trace": _lazy(lambda: Example(
        srn_params(), "BTBTXSETE", _train_config())),
    "tempnets.chapters.periodically_attentive_units.indicator_units": _lazy(lambda: Example(
        srn_params(), ["BTBTXSETE", "BPBPVVEPE"], _train_config())),
    "tempnets.chapters.periodically_attentive_units.activation_table": _lazy(lambda: Example(
        srn_params(), "BTBTXSETE", _train_config())),
    "tempnets.chapters.periodically_attentive_units.failure_cases": _lazy(lambda: Example(
        srn_params(), ["BTBTXSETE", "BPBPVVEPE"], _train_config())),
    "tempnets.chapters.periodically_attentive_units.params_from_data": _lazy(lambda: Example(
        {"params": [v[None].tolist() for v in srn_params()]})),
    "tempnets.chapters.periodically_attentive_units.flat_params": _lazy(lambda: Example(srn_params())),
    "tempnets.chapters.periodically_attentive_units.unflat_params": _lazy(lambda: Example(
        _pau().flat_params(srn_params()), srn_params())),
    "tempnets.chapters.periodically_attentive_units.summed_error": _lazy(lambda: Example(
        srn_params(), ["BTBTXSETE", "BPBPVVEPE"], _train_config())),
    "tempnets.chapters.periodically_attentive_units.thesis_embedded_reber": _a(False, 0.5),
    "tempnets.chapters.periodically_attentive_units.attention_mask": _a((1, 2), (0, 1), 5),
    "tempnets.chapters.periodically_attentive_units.conclusion_claims": _a(
        {"experiment": "pa-4.2", "scale": "book", "seed": 0, "summary": {"PA": {"final": [10.0, 30.0]}}},
        {"experiment": "pa-8.1", "scale": "book", "seed": 0,
         "summary": {"BPTT(4,1)": {"final": [60.0, 90.0]}}}),
    # chapters.temporal_kernels
    "tempnets.chapters.temporal_kernels.model_functions": _a("TKRNN"),
    "tempnets.chapters.temporal_kernels.build": _lazy(lambda: Example("TKRNN", recall_task(), 4, 0)),
    "tempnets.chapters.temporal_kernels.hidden_drift": _lazy(lambda: Example(
        np.ones((recall_task().steps(2), 2, 4)), recall_task(), 2)),
    "tempnets.chapters.temporal_kernels.pulse_states": _a(np.array([0.5, 0.9]), 10),
    "tempnets.chapters.temporal_kernels.hidden_states": _lazy(lambda: Example("TKRNN", tk_params(), tk_batch()[0])),
    "tempnets.chapters.temporal_kernels.training_search_sizes": _a("book"),
    "tempnets.chapters.temporal_kernels.curriculum_task": _lazy(lambda: Example(tk_sizes(), 1)),
    "tempnets.chapters.temporal_kernels.validation_batch": _lazy(lambda: Example(tk_sizes(), 0, 0)),
    "tempnets.chapters.temporal_kernels.validation_scores": _lazy(lambda: Example(
        "TKRNN", _tkc().build("TKRNN", tk_sizes().task, tk_sizes().hidden, 0),
        _tkc().validation_batch(tk_sizes()))),
    "tempnets.chapters.temporal_kernels.evaluate": _lazy(lambda: Example(
        "TKRNN", _tkc().build("TKRNN", tk_sizes().task, tk_sizes().hidden, 0), tk_sizes(), 0, budget=2)),
    "tempnets.chapters.temporal_kernels.train_one": _lazy(lambda: Example("TKRNN", tk_sizes(), 0, 0,
                                                                          progress=False, budget=2)),
    "tempnets.chapters.mozer_rates.search": _a("delay1", "focused", ((1.0, 0.02, 100.0),), 1, 2, 0, False, 0,
                                               budget=2, work=["runs", "epochs"]),
    "tempnets.chapters.periodically_attentive_units.make_test_sets": _a(0, "embedded", "book", 5, budget=2,
                                                                              work=["n_test"]),
    "tempnets.chapters.periodically_attentive_units.train_condition": _lazy(lambda: Example(
        emb(), _train_config(), _pau().Sizes(1, 4, 2, 5),
        tests={"test": (_pau().test_strings(emb(), 3, 0), emb())}, progress=False, budget=2)),
    # experiments (what a reader calls; reproduce and robustness are NOT_PROBED)
    "tempnets.book.experiments.get": _a("gsm-reber-count"),
    "tempnets.book.experiments.read_record": _a(_RECORD),
    "tempnets.book.experiments.describe_record": _lazy(lambda: Example(_record())),
    "tempnets.book.experiments.rederive": _a(_RECORD, budget=2),
    "tempnets.book.experiments.robustness_counts": _a("gsm-reber-count"),
    "tempnets.book.experiments.paper_verdicts": _a("gsm-reber-count"),
    "tempnets.training.checkpoint.check_checkpoint": _lazy(lambda: Example(tmp() + "/ckpt-check", {"run": 1})),
    "tempnets.training.checkpoint.open_checkpoint": _lazy(lambda: Example(tmp() + "/ckpt-open", {"run": 1})),
}


def _claims():
    from tempnets.book import claims

    return claims


def _design():
    from tempnets.book import intervals

    return intervals.mean([0.2, 0.6, 0.9], bounds=(0.0, 1.0)).design


def _encoded():
    from tempnets.training import checkpoint

    arrays = {}
    return checkpoint.encode({"w": np.ones(2), "step": 3}, arrays), arrays


def _saved_value():
    from tempnets.training import checkpoint

    ck = checkpoint.open_checkpoint(tempfile.mkdtemp(dir=tmp()) + "/ck", {"run": 1})
    ck.save("w", {"w": np.ones(2)})
    return ck.directory + "/w.npz"


@functools.cache
def emb():
    from tempnets.tasks import grammars

    return grammars.embedded_reber()


def emb_strings():
    return ["BTBTXSETE", "BPBPVVEPE"]


@functools.cache
def emb_flat():
    return _flat(emb(), emb_strings())


@functools.cache
def emb_activations():
    return _activations(emb_strings(), emb_flat())


def _emb_gsm():
    return emb()


@functools.cache
def _linkage():
    from tempnets.tasks import analysis

    return analysis.cluster_hidden_states(np.array([[0.0, 1.0], [1.0, 0.0], [0.1, 0.9], [0.9, 0.2]]))


@functools.cache
def _acp():
    from tempnets.tasks import analysis

    return analysis.average_conditional_probabilities(reber_strings(), reber(), range(3))


def _fwc():
    from tempnets.chapters import fast_weights

    return fast_weights


def _gsm():
    from tempnets.chapters import graded_state_machines

    return graded_state_machines


def _pau():
    from tempnets.chapters import periodically_attentive_units

    return periodically_attentive_units


@functools.cache
def _fw_U(task):
    from tempnets.models import fast_weights as fw

    return fw.init_slow_weights(_fwc().make_net(task), rng=0)


@functools.cache
def tk_sizes():
    from tempnets.chapters import temporal_kernels as tk

    return tk.Sizes(4, 2, (2, 3), 4, 2, 2, 1e-2, 1, 1, (2,), 2)


def _tkc():
    from tempnets.chapters import temporal_kernels

    return temporal_kernels


@functools.cache
def _focused_stack():
    from tempnets.models import focused

    return focused.init_many("focused", 2, 3, 2, 2, 0)


def _train_config():
    from tempnets.training.srn_trainers import TrainConfig

    return TrainConfig(n_hidden=3)


# Public callables deliberately not called, with the reason.
_RUNNER = ("an experiment runner: trains at book scale for minutes, so it cannot be called once "
           "per bad input; its arguments reach it through experiments.reproduce, which checks "
           "them (tests/test_cli.py)")
NOT_PROBED: dict[str, str] = {
    **{f"tempnets.chapters.{name}": _RUNNER for name in (
        "fast_weights.run_flipflop", "fast_weights.run_parking", "fast_weights.run_linear_attention",
        "focused_backprop.run_dear", "focused_backprop.run_verbs", "focused_backprop.run_reversed",
        "focused_backprop.run_reproduce", "focused_backprop.run_large_verbs",
        "graded_state_machines.run_reber_count", "graded_state_machines.run_reber_3hu",
        "graded_state_machines.run_21_strings", "graded_state_machines.run_acp",
        "graded_state_machines.run_problem3", "graded_state_machines.run_embedded",
        "mozer_rates.run_rates",
        "periodically_attentive_units.run_fig2_1", "periodically_attentive_units.run_fig4_2",
        "periodically_attentive_units.run_fig5_2", "periodically_attentive_units.run_fig6_2",
        "periodically_attentive_units.run_fig8_1", "periodically_attentive_units.run_fig8_2_8_3",
        "periodically_attentive_units.run_fig8_4", "periodically_attentive_units.run_fig8_5",
        "periodically_attentive_units.run_framing",
        "temporal_kernels.run_long_delays", "temporal_kernels.run_kernels",
        "temporal_kernels.run_serial_recall", "temporal_kernels.run_search",
        "temporal_kernels.run_training_search")},
    "tempnets.chapters.graded_state_machines.generalisation_sweep": (
        "trains 45 networks for the chapter's sweep (minutes) whatever its sizes"),
    "tempnets.chapters.periodically_attentive_units.train_conditions": (
        "train_condition for each of several configs: probed through train_condition"),
    "tempnets.book.experiments.reproduce": (
        "runs a whole experiment (minutes to hours); its arguments are checked by the command "
        "line that calls it (tests/test_cli.py)"),
    "tempnets.book.experiments.robustness": (
        "runs a whole experiment once per seed; its arguments are checked by the command line "
        "that calls it (tests/test_cli.py)"),
}


# ----------------------------------------------------------------------------- tk-readings (issue 33)

def _tr():
    from tempnets.chapters import tk_readings

    return tk_readings


def _recall_batch():
    """A serial-recall batch of ``recall_task()``: ``(x, target, mask)``."""
    from tempnets.tasks import sequences

    return sequences.make_batch(recall_task(), 3, 0)[:3]


def _recall_logits():
    """``(logits, target, mask)``: outputs of a network of ``recall_task()``'s sizes."""
    x, target, mask = _recall_batch()
    return np.random.default_rng(0).normal(size=x.shape[:2] + (recall_task().n_out,)), target, mask


def _tk_data():
    """A tk-serial-recall result's data with one TKRNN of ``tk_sizes()``'s task."""
    from tempnets.models import tkrnn

    sz = tk_sizes()
    p = tkrnn.init_params(sz.task.n_in, sz.hidden, sz.task.n_out, rng=0)
    return {"sizes": dataclasses.asdict(sz), "params": {"TKRNN": [{k: v.tolist() for k, v in p.items()}]}}


def _screen_data():
    run = {"reading": "today's reading", "symbol": 0.5, "string": 0.0, "item": 1.0,
           "wrong_in_string": 1.0, "median_lambda_input": 0.9, "final_loss": 1.0}
    return {"runs": [run, {**run, "symbol": 0.4}], "readings": [["today's reading", {}]]}


def _readings_runs():
    """One reading's serial-recall data: two networks of every model, scored at delays 10 and 50."""
    from tempnets.chapters import temporal_kernels as tk

    run = {"string": [0.5, 0.25], "symbol": [0.9, 0.75]}
    return {"today's reading": {"sizes": {"test_delays": [10, 50]},
                                "models": {m: {"runs": [run, run]} for m in tk.MODELS}}}


EXAMPLES.update({
    "tempnets.tasks.recall_diagnostics.recalled": _lazy(lambda: Example(*_recall_logits())),
    "tempnets.tasks.recall_diagnostics.item_order": _lazy(lambda: Example(*_recall_logits())),
    "tempnets.tasks.recall_diagnostics.serial_position": _lazy(lambda: Example(*_recall_logits())),
    "tempnets.tasks.recall_diagnostics.decays": _lazy(lambda: Example(tk_params())),
    "tempnets.tasks.recall_diagnostics.decay_histogram": _lazy(lambda: Example(tk_params())),
    "tempnets.tasks.recall_diagnostics.without_input_output": _lazy(lambda: Example(tk_params())),
    "tempnets.chapters.tk_readings.Reading": _a(recall="teacher", decays="slow"),
    "tempnets.chapters.tk_readings.reading_sizes": _lazy(lambda: Example(tk_sizes(), _tr().Reading(ramp=0.2))),
    "tempnets.chapters.tk_readings.teacher_forced": _lazy(lambda: Example(*_recall_batch())),
    "tempnets.chapters.tk_readings.train_reading": _lazy(lambda: Example(
        "TKRNN", tk_sizes(), _tr().Reading(decays="slow"), 0, 0, progress=False, budget=2)),
    "tempnets.chapters.tk_readings.score_reading": _lazy(lambda: Example(
        "TKRNN", _tr().tk.params_from_data(_tk_data(), "TKRNN"), tk_sizes(), _tr().Reading(), 0, 3, budget=2)),
    "tempnets.chapters.tk_readings.screen_verdict": _a([0.5, 0.6], [0.1, 0.2]),
    "tempnets.chapters.tk_readings.screen_table": _lazy(lambda: Example(_screen_data())),
    "tempnets.chapters.tk_readings.readings_table": _lazy(lambda: Example(_readings_runs(), 50)),
    "tempnets.chapters.tk_readings.recorded_diagnostics": _lazy(lambda: Example(
        _tk_data(), "TKRNN", 0, 3, 4, 0, budget=2, work=["n"])),
})
NOT_PROBED.update({f"tempnets.chapters.tk_readings.{name}": _RUNNER
                   for name in ("run_readings", "run_reading_recall")})


# ----------------------------------------------------------------------------- claims_view, sequential

def _view_table():
    """A one-row claims table with a share's interval and design."""
    from tempnets.book import claims, intervals

    t = claims.ClaimsTable("most runs solve it (10 runs)")
    iv = intervals.share(9, 10)
    t.add("most runs solve it", "§1", None, 0.9, claims.at_least(0.5), expected=None,
          interval=tuple(iv), design=iv.design)
    return t


def _seq_train(start, stop):
    return [1] * (stop - start)


def _seq_claims(results, level):
    from tempnets.book import claims, intervals

    t = claims.ClaimsTable("t")
    iv = intervals.share(sum(results), len(results), level=level)
    t.add("most runs solve it", "§1", None, sum(results) / len(results), claims.at_least(0.5),
          expected=None, interval=tuple(iv), design=iv.design)
    return t


def _seq_plan():
    from tempnets.book import sequential

    return sequential.Plan(3, 3, 9)


EXAMPLES.update({
    "tempnets.book.claims.ClaimsTable": _a("a table", []),
    "tempnets.book.claims_view.verdict_key": _lazy(lambda: Example(_view_table().claims[0])),
    "tempnets.book.claims_view.math_html": _a("TKRNN^{+2} and w_B <= 3"),
    "tempnets.book.claims_view.number_html": _a(18510.0),
    "tempnets.book.claims_view.value_html": _lazy(lambda: Example(_view_table().claims[0])),
    "tempnets.book.claims_view.to_html": _lazy(lambda: Example(_view_table(), plot=False)),
    "tempnets.book.claims_view.forest_plot": _lazy(lambda: Example(_view_table(), budget=2)),
    "tempnets.book.claims_view.forest_svg": _lazy(lambda: Example(_view_table(), budget=2)),
    "tempnets.book.sequential.Plan": _a(3, 3, 9),
    "tempnets.book.sequential.plan_for": _lazy(lambda: Example("paper", 3, _seq_plan())),
    "tempnets.book.sequential.undecided": _lazy(lambda: Example(_view_table())),
    "tempnets.book.sequential.run": _lazy(lambda: Example(_seq_plan(), _seq_train, _seq_claims,
                                                     keep=["train", "claims"])),
    "tempnets.book.sequential.level_of": _a({"design": {"level": 0.99}}),
    "tempnets.book.scorecard.chapter_of": _a("gsm-reber-3hu"),
    "tempnets.book.scorecard.table_counts": _lazy(lambda: Example(_view_table())),
    "tempnets.book.cluster.check_address": _a("tcp://127.0.0.1:8786"),
    "tempnets.book.cluster.seed_costs": _a(10),
})
NOT_PROBED.update({
    "tempnets.book.scorecard.scorecard": "takes no argument: re-derives every record (minutes); tests/test_scorecard.py",
    "tempnets.book.cluster.connect": "starts or joins a Dask cluster; its address is checked by check_address, "
                                "which the surface test probes; tests/test_cluster.py",
    "tempnets.book.cluster.DaskExecutor": "wraps a connected Dask client made by connect(); tests/test_cluster.py",
})


# The chapters' examples (tests/surface_examples_chapters.py; None: a name made private).
EXAMPLES = {k: v for k, v in {**EXAMPLES, **__import__("surface_examples_chapters").EXAMPLES}.items() if v}
