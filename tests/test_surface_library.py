"""The argument checks issue 31 asked of the library outside the chapters, one fast case each.

``tests/test_public_surface.py`` finds these failures by brute force in a subprocess (they were
its ``UNFIXED``/``PENDING`` entries outside ``tempnets.chapters``); here each fix has an exact,
quick test: the valid example call of ``tests/surface_examples.py`` with ONE argument replaced
by the bad value that used to give a raw error (or a crash), and the one-line error we give now.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import surface_examples  # noqa: E402

TE, VE = TypeError, ValueError
NAN2 = np.array([[0.0, 1.0], [np.nan, 0.5]])


def call_with(qualname: str, arg: str, bad):
    """``qualname``'s valid example call with argument ``arg`` replaced by ``bad``."""
    module, name = qualname.rsplit(".", 1)
    fn = getattr(importlib.import_module(module), name)
    example = surface_examples.example_for(qualname)
    bound = inspect.signature(fn).bind(*copy.deepcopy(example.args), **copy.deepcopy(example.kwargs))
    bound.apply_defaults()
    bound.arguments[arg] = bad
    return fn(*bound.args, **bound.kwargs)


def _focused_config(**changes):
    import dataclasses

    from tempnets.training.focused_training import FocusedConfig

    return dataclasses.replace(FocusedConfig(), **changes)


def _nan_params():
    params = surface_examples.srn_params()
    return params._replace(W_ih=np.full(params.W_ih.shape, np.nan))


CASES = [
    # the checkers' own parameters
    ("tempnets._numerics.checks.count", "minimum", None, TE, r"count: minimum must be an integer, got None"),
    ("tempnets._numerics.checks.count", "maximum", 2.5, TE, r"count: maximum must be an integer"),
    ("tempnets._numerics.checks.real", "low", "x", TE, r"real: low must be None or a finite real number"),
    ("tempnets._numerics.checks.real", "high", 10**400, TE, r"real: high must be None or a finite real number"),
    ("tempnets._numerics.checks.array", "shape", "n", TE, r"array: shape must be None or a tuple of sizes"),
    ("tempnets._numerics.checks.array", "dims", [], TE, r"array: dims must be None or a dict"),
    ("tempnets._numerics.checks.array", "low", 1j, TE, r"array: low must be None or a finite real number"),
    ("tempnets._numerics.checks.array", "value", np.zeros((2, 1), complex), TE,
     r"x must be an array of real numbers, got ndarray of dtype complex128"),  # (one line)
    # intervals, streams
    ("tempnets.book.intervals.share_difference", "k1", 11, VE, r"k1 of n1 runs needs 0 <= k1 <= n1"),
    ("tempnets.tasks.streams.parking", "labels", "x", VE, r"labels 'x' has 'x' at position 0"),
    # verbs
    ("tempnets.tasks.verbs.encode_symbols", "code", None, TE, r"code must be a dict"),
    ("tempnets.tasks.verbs.encode_symbols", "word", "", VE, r"word: need a non-empty string of symbols"),
    ("tempnets.tasks.verbs.phoneme_features", "spelling", "kQ", VE, r"spelling 'kQ' has symbol 'Q'"),
    ("tempnets.tasks.verbs.regular_class", "spelling", "", VE, r"spelling: need a non-empty string"),
    ("tempnets.tasks.verbs.verb_inputs", "spelling", 5, VE, r"spelling must be a non-empty phoneme string"),
    ("tempnets.tasks.verbs.wickelements", "word", "x", VE, r"word 'x' has symbol 'x'"),
    ("tempnets.tasks.verbs.buffered", "codes", np.ones((1, 3)), VE, r"codes: need at least 2 coded elements"),
    ("tempnets.tasks.verbs.dear_task", "words", ("x",), VE, r"words '—x—' has symbol 'x'"),
    ("tempnets.tasks.verbs.dear_task", "words", None, TE, r"words must be a sequence of str words"),
    ("tempnets.tasks.verbs.verb_task", "items", None, TE, r"items must be a sequence of \(verb, spelling, class\)"),
    ("tempnets.tasks.verbs.verb_task", "items", [("cat", "kat")], TE, r"items\[0\] must be a \(verb, spelling"),
    ("tempnets.tasks.verbs.rm_spelling", "dictionary", None, TE, r"dictionary must be a dict"),
    ("tempnets.tasks.verbs.rm_spelling", "dictionary", {"cat": "x"}, TE, r"dictionary\['cat'\] must be a list"),
    ("tempnets.tasks.verbs.rm_spelling", "dictionary", {"cat": [["Q"]]}, VE,
     r"dictionary\['cat'\]: the pronunciation \['Q'\] is not a list of ARPAbet phonemes"),
    ("tempnets.tasks.verbs.large_verb_corpus", "dictionary", {"n": [["N"]]}, VE,
     r"word '\w+' is not in the CMU Pronouncing Dictionary \(the dictionary given\)"),
    ("tempnets.tasks.verbs.held_out_regulars", "dictionary", [], TE, r"dictionary must be a dict"),
    # analysis
    ("tempnets.tasks.analysis.presentation_label", "t", "x", VE, r"t must be an integer >= 0"),
    ("tempnets.tasks.analysis.cluster_hidden_states", "hidden", np.full((3, 2), 1e300), VE,
     r"hidden must hold values of magnitude at most"),
    ("tempnets.tasks.analysis.cluster_hidden_states", "hidden", "x", TE, r"hidden must be an array of real numbers"),
    ("tempnets.tasks.analysis.cluster_hidden_states", "method", {}, VE, r"method: unknown linkage method"),
    ("tempnets.tasks.analysis.cluster_composition", "linkage_matrix", np.ones((3, 4)) + 1j, TE,
     r"linkage_matrix must be an array of real numbers"),
    ("tempnets.tasks.analysis.cluster_purity", "linkage_matrix", -np.ones((3, 4)), VE,
     r"linkage_matrix is not a linkage matrix"),
    ("tempnets.tasks.analysis.cluster_purity", "labels", None, TE, r"labels must be a sequence"),
    ("tempnets.tasks.analysis.conditional_probabilities", "alphabet", None, TE, r"alphabet must be a non-empty str"),
    ("tempnets.tasks.analysis.conditional_probabilities", "alphabet", "BT", VE,
     r"corpus: string 'BTXSE' has letter 'X', not in alphabet 'BT'"),
    ("tempnets.tasks.analysis.average_conditional_probabilities", "orders", None, TE, r"orders must be a sequence"),
    ("tempnets.tasks.analysis.network_averages", "activations", "x", TE, r"activations must be an array of real"),
    ("tempnets.tasks.analysis.network_averages", "keys", [1], TE, r"keys: each key must be a \(node, letter\) pair"),
    ("tempnets.tasks.analysis.acp_r_squared", "table", None, TE, r"table must be an ACPTable"),
    # metrics
    ("tempnets.tasks.metrics.as_activation_list", "activations", None, TE, r"activations must be a sequence"),
    ("tempnets.tasks.metrics.as_activation_list", "activations", ["x"], TE, r"activations\[0\] must be an array"),
    ("tempnets.tasks.metrics.embed_final_many", "offsets", np.zeros((3, 2)), TE,
     r"offsets must be an array of integers"),
    ("tempnets.tasks.metrics.accepted", "threshold", "x", VE, r"threshold must be a finite number"),
    ("tempnets.tasks.metrics.embed_predicted", "threshold", None, VE, r"threshold must be a finite number"),
    ("tempnets.tasks.metrics.final_predicted", "criterion", {}, VE, r"criterion must be a finite number"),
    ("tempnets.tasks.metrics.embed_final_many", "activations", np.zeros((0, 0, 0)), VE,
     r"activations must have shape \(R, steps, n_out\)"),
    ("tempnets.tasks.metrics.exit_outcomes", "choices", "Q", VE, r"choices must be a non-empty string of letters"),
    ("tempnets.tasks.metrics.outcomes_by_embedding_length", "outcomes", None, TE, r"outcomes must be a sequence"),
    ("tempnets.tasks.metrics.legal_successors", "prefix", None, TE, r"prefix must be a str"),
    ("tempnets.tasks.metrics.legal_successors", "language", "BTXSE", TE, r"language must be a sequence of str"),
    ("tempnets.tasks.metrics.generalisation_counts", "incorrect_above", "x", VE, r"incorrect_above must be a finite"),
    # explorer
    ("tempnets.book.explorer.state_figure", "params", _nan_params(), VE, r"params.W_ih must be finite"),
    ("tempnets.book.explorer.state_figure", "t", "x", VE, r"t must be an integer >= 0"),
    ("tempnets.book.explorer.state_figure", "threshold", None, VE, r"threshold must be a finite number"),
    ("tempnets.book.explorer.explorer", "string", 5, TE, r"string must be a str"),
    # plots
    ("tempnets.book.plots.grammar_diagram", "node_radius", -1.0, VE, r"node_radius must be a finite number > 0"),
    ("tempnets.book.plots.grammar_diagram", "layout", 1j, TE, r"layout must be None or a dict"),
    ("tempnets.book.plots.network_state", "layers", "x", VE, r"layers must be a non-empty dict"),
    ("tempnets.book.plots.network_state", "unit_labels", "x", TE, r"unit_labels must be None or a dict"),
    ("tempnets.book.plots.dendrogram", "linkage_matrix", "x", TE, r"linkage_matrix must be an array of real"),
    ("tempnets.book.plots.dendrogram", "orientation", "x", VE, r"orientation must be 'left', 'right'"),
    ("tempnets.book.plots.learning_curve", "x", "x", TE, r"x must be an array of real numbers"),
    ("tempnets.book.plots.learning_curve", "label", {}, TE, r"label must be a str or None"),
    ("tempnets.book.plots.acp_curves", "tests", [np.nan, 1.0, 2.0], VE, r"tests must be finite"),
    ("tempnets.book.plots.acp_curves", "orders", 5, TE, r"orders must be a sequence"),
    ("tempnets.book.plots.hits_by_length", "result", "x", TE, r"result must be the dict of outcomes_by_embedding"),
    ("tempnets.book.plots.hinton", "weights", NAN2, VE, r"weights must be finite"),
    ("tempnets.book.plots.hinton", "row_labels", ["a"], VE, r"row_labels must hold 2 labels"),
    ("tempnets.book.plots.hinton", "col_labels", "x", TE, r"col_labels must be a sequence of labels"),
    ("tempnets.book.plots.unfolded_network", "T", 10**6, VE, r"T must be an integer in \[1, 20\]"),
    # fast_weights, focused, focused_training
    ("tempnets.models.fast_weights.linear_attention", "q", "x", TE, r"q must be an array of real numbers"),
    ("tempnets.models.fast_weights.additive_memory", "v", np.full((4, 3), np.nan), VE, r"v must be finite"),
    ("tempnets.models.focused.init_many", "arch", {}, VE, r"arch: unknown architecture \{\}; allowed: focused, full"),
    ("tempnets.models.focused.init_many", "n_networks", 10**6, VE, r"n_networks must be at most 100,000 \(one random generator each\)"),
    ("tempnets.models.focused.init_many", "n_in", 10**12, VE, r"init_many: 2 networks of n_in=1000000000000"),
    ("tempnets.models.focused.make_sequences", "inputs", None, TE, r"inputs must be a sequence of arrays"),
    ("tempnets.models.focused.make_sequences", "targets", ["x", "y"], TE, r"targets\[0\] must be an array"),
    ("tempnets.training.focused_training.train", "config", {}, TE, r"config must be a FocusedConfig, got dict"),
    ("tempnets.training.focused_training.train", "config", _focused_config(stop_at_criterion="x"), TE,
     r"stop_at_criterion must be True or False"),
    ("tempnets.training.focused_training.evaluate", "params", "x", TE, r"params must be FocusedParams or FullParams"),
    ("tempnets.training.focused_training.zero_output_score", "config", None, TE, r"config must be a FocusedConfig"),
    ("tempnets.training.focused_training.learning_rates", "config", "x", TE, r"config must be a FocusedConfig"),
    # training
    ("tempnets.training.srn_trainers.train_epochs", "n_networks", "x", VE, r"n_networks \(a network index\) must be"),
    ("tempnets.training.srn_trainers.train_epochs", "params", "x", TE, r"params must be an SRNParams, got str"),
    ("tempnets.training.srn_trainers.train_online", "params", 5, TE, r"params must be a sequence of SRNParams"),
    ("tempnets.training.srn_trainers.train_online", "n_networks", 10**400, VE, r"training 1000000000000.* networks .* would need"),
    ("tempnets.training.srn_trainers.bptt_gradient", "config", "x", TE, r"config must be a TrainConfig"),
    # sequences, tkrnn, rnn_baselines, optim, checkpoint
    ("tempnets.tasks.sequences.encode", "delays", [-1, 3], VE, r"delays must be an integer >= 0, got"),
    ("tempnets.tasks.sequences.encode", "delays", None, TE, r"delays must be an array of integers"),
    ("tempnets.tasks.sequences.make_batch", "batch_size", 10**12, VE, r"task and batch_size: a batch of"),
    ("tempnets.tasks.sequences.recall_scores", "mask", np.zeros((4, 2)), VE,
     r"mask: every sequence must have the same number of recall steps"),
    ("tempnets.models.tkrnn.tkrnn_loss_and_grad", "target", None, TE, r"target must be integer class indices"),
    ("tempnets.models.tkrnn.kernel", "lags", np.zeros((3, 2)), VE, r"lags must be integers >= 1 .*got \[\[0.0, 0.0\]"),
    ("tempnets.models.rnn_baselines.rnn_loss_and_grad", "target", None, TE, r"target must be integer class indices"),
    ("tempnets.models.rnn_baselines.lstm_loss_and_grad", "target", None, TE, r"target must be integer class indices"),
    ("tempnets.training.optim.train", "checkpoint", "x", TE, r"checkpoint must be None or a tempnets.training.checkpoint.Checkpoint"),
    ("tempnets.training.checkpoint.check_checkpoint", "directory", "x" * 10_000, VE, r"checkpoint directory 'xxx"),
    # experiments
    ("tempnets.book.experiments.get", "experiment_id", None, VE, r"unknown experiment id None; known ids:"),
    ("tempnets.book.experiments.read_record", "path", None, TE, r"path must name a record file"),
    ("tempnets.book.experiments.rederive", "path", "no-such-record.json", ValueError, r"No such record file \(path\)"),
    ("tempnets.book.experiments.describe_record", "record", None, TE, r"record must be a record dict"),
    ("tempnets.book.experiments.describe_record", "width", -1, VE, r"width must be an integer >= 20"),
    ("tempnets.book.experiments.robustness_counts", "experiment_id", "nope", VE, r"unknown experiment id 'nope'"),
]


@pytest.mark.parametrize("qualname, arg, bad, error, message", CASES,
                         ids=[f"{q.split('.', 1)[1]}-{a}-{i}" for i, (q, a, *_) in enumerate(CASES)])
def test_bad_argument_gets_our_one_line_error(qualname, arg, bad, error, message):
    with pytest.raises(error, match=message) as info:
        call_with(qualname, arg, bad)
    assert "\n" not in str(info.value)


def test_the_examples_still_return_normally():
    """The cases above change one argument of a call that works: it must work as given."""
    for qualname in sorted({q for q, *_ in CASES}):
        module, name = qualname.rsplit(".", 1)
        example = surface_examples.example_for(qualname)
        getattr(importlib.import_module(module), name)(*example.args, **example.kwargs)


def test_verb_task_makes_one_hot_targets_without_an_identity_matrix():
    """``np.eye(n_classes)`` was n_classes² floats: 10**5 classes asked for 80 GB."""
    from tempnets.tasks import verbs

    seqs = verbs.verb_task([("cat", "kat", 3)], 10**5)
    assert seqs.Y.shape[1] == 10**5 and seqs.Y[-1, 3] == 1.0 and seqs.Y.sum() == 1.0


def test_outcomes_by_embedding_length_takes_any_group_from():
    from tempnets.tasks import metrics

    res = metrics.outcomes_by_embedding_length(["hit"], ["BTBTXSETE"], 10**400)
    assert res["lengths"] == ["5"] and list(res["hit"]) == [100.0]


def test_unknown_ids_and_missing_records_are_still_the_errors_callers_catch():
    from tempnets.book import experiments

    with pytest.raises(KeyError):
        experiments.get("nope")
    with pytest.raises(FileNotFoundError, match="no-such-record"):
        experiments.read_record("no-such-record.json")
    assert {"rederive", "read_record", "describe_record", "robustness_counts"} <= set(experiments.__all__)


def test_a_long_ungrammatical_string_is_explored_in_linear_time(monkeypatch):
    """Every prefix after the first ungrammatical one was asked for its successors again
    (quadratic: 10,000 letters took minutes); an ungrammatical prefix stays ungrammatical."""
    from tempnets.book import explorer
    from tempnets.tasks import grammars
    from tempnets.models import srn

    calls = []
    g = grammars.reber()
    real_successors = type(g).successors
    monkeypatch.setattr(type(g), "successors",
                        lambda self, prefix: calls.append(prefix) or real_successors(self, prefix))
    states = explorer.string_states(srn.init_params(7, 3, 7, rng=0), g, "X" * 200)
    assert states["legal"] == [None] * 200 and len(calls) == 1


def test_training_refuses_what_the_address_space_cannot_hold_instead_of_a_system_error():
    """The SystemError of the surface test: a symbol index of 10**7 makes a network of 10**7
    inputs; its weights fit the machine, but under an address-space limit (the surface
    worker's 3 GiB) the kernel's own copies did not, and a MemoryError raised inside the
    kernel's parallel loop surfaces as ``SystemError: ... returned a result with an exception
    set``.  The size check now counts the kernel's copies and the process's limit."""
    code = textwrap.dedent("""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))
        import numpy as np
        from tempnets.training import srn_trainers as training
        flat = np.array([0, 1, 2, 0, 10**7, 2], dtype=np.int64)
        try:
            training.train_epochs(flat, np.array([0, 3, 6]), n_epochs=1, progress=False,
                                  config=training.TrainConfig(n_hidden=3), rng=0)
        except ValueError as err:
            print("refused:", err)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert "refused: training 1 networks of 10000001-3-10000001 units" in out.stdout, out.stderr[-2000:]
    assert "this process may map only" in out.stdout


def test_address_space_left_is_unlimited_without_a_limit():
    import resource

    from tempnets._numerics import checks

    if resource.getrlimit(resource.RLIMIT_AS)[0] == resource.RLIM_INFINITY:
        assert checks.address_space_left() == float("inf")
    checks.memory(1000, "a small array")
