"""The models of the temporal-kernels chapter and how one network trains and is tested
(:func:`build`, :func:`train_one`, :func:`evaluate`, :func:`curriculum_task`), and the
networks of a run as pieces (``NAME-K``)."""

from __future__ import annotations

import dataclasses

import numpy as np

from ...training import optim
from ...models import rnn_baselines as rb, tkrnn
from ...tasks import sequences as sq
from ..._numerics import checks
from ..._numerics.checks import count
from ...book.experiments import Piece, run_pieces
from .sizes import CRITERION, MODELS, Sizes


# ----------------------------------------------------------------------------- models

def model_functions(name: str):
    """``(forward(params, x, return_states), loss_and_grad)`` of a model of :data:`MODELS`."""
    checks.instance("name", name, str, f"a model name ({', '.join(MODELS)})")
    if name == "RNN":
        return rb.rnn_forward, rb.rnn_loss_and_grad
    if name == "LSTM":
        return rb.lstm_forward, rb.lstm_loss_and_grad
    if name.startswith("TKRNN"):
        return tkrnn.tkrnn_forward, tkrnn.tkrnn_loss_and_grad
    raise ValueError(f"unknown model name {name!r}; known: {', '.join(MODELS)}")


def _kernels(name: str) -> int:
    return int(name.partition("+")[2] or 1)


def build(name: str, task: sq.SerialRecall, hidden: int, rng=None, scale: float = 1.0,
          forget_bias: float = 1.0) -> dict:
    """Initial parameters of model ``name``; the RNN and LSTM sized to the TKRNN's parameter count.

    ``scale`` multiplies every initial weight of the model's own initialiser
    (:func:`tempnets.models.tkrnn.init_params`, :func:`tempnets.models.rnn_baselines.rnn_init`,
    :func:`~tempnets.models.rnn_baselines.lstm_init`); ``forget_bias`` is the LSTM's."""
    model_functions(name)
    checks.instance("task", task, sq.SerialRecall, "a sequences.SerialRecall")
    count("hidden", hidden, 1, 100_000)
    checks.real("scale", scale, low=0.0, low_open=True), checks.real("forget_bias", forget_bias)
    I, O = task.n_in, task.n_out
    if name.startswith("TKRNN"):
        return tkrnn.init_params(I, hidden, O, _kernels(name), rng=rng, scale=scale)
    target = tkrnn.n_params(I, hidden, O, 1)
    kind = name.lower()
    h = rb.matched_hidden(kind, I, O, target)
    if kind == "rnn":
        return rb.rnn_init(I, h, O, rng=rng, scale=scale)
    return rb.lstm_init(I, h, O, rng=rng, scale=scale, forget_bias=forget_bias)


def _rngs(seed: int, k: int):
    """Generators for network ``k`` of run ``seed``: initial weights, training batches.

    Every model of one ``(seed, k)`` sees the same training batches."""
    ss = np.random.SeedSequence([seed, k])
    a, b = ss.spawn(2)
    return np.random.default_rng(a), np.random.default_rng(b)


def train_one(name: str, sz: Sizes, seed: int = 0, k: int = 0, progress=None, checkpoint=None,
              key: str | None = None):
    """Train network ``k`` of model ``name`` at sizes ``sz``.  Returns ``(params, history)``.

    The history's ``evals`` are string accuracies on 256 fixed validation strings
    at the longest training delay, every ``sz.eval_every`` updates.  The initial
    scale and the learning rate are the model's :meth:`Sizes.setting`.  With a
    :class:`~tempnets.training.checkpoint.Checkpoint`, the training saves its state under ``key``
    (default ``"NAME-K.training"``) and continues from it (:func:`tempnets.training.optim.train`).
    """
    model_functions(name), _check_sizes(sz), count("seed", seed), count("k", k)
    if checkpoint is not None:
        from ...training.checkpoint import Checkpoint

        checks.instance("checkpoint", checkpoint, Checkpoint, "None or a tempnets.training.checkpoint.Checkpoint")
    if key is not None:
        checks.instance("key", key, str)
    sz = sz.for_model(name)
    task = sz.task
    init_scale, rate = sz.setting(name)
    init_rng, batch_rng = _rngs(seed, k)
    params = build(name, task, sz.hidden, init_rng, scale=init_scale, forget_bias=sz.forget_bias)
    _, lg = model_functions(name)
    draw = sq.make_bucketed_batch if sz.bucketed else sq.make_batch
    validation = _validation_batch(sz, seed, k)

    def evaluate(p):
        return _validation_scores(name, p, validation)["string"]

    def sample(g, step):
        return draw(_curriculum_task(sz, step), sz.batch, g)[:3]  # sz checked once, above

    return optim.train(lg, params, sample, sz.updates, sample_with_step=True,
                       config=optim.OptimConfig(learning_rate=rate, final_rate=sz.final_rate),
                       rng=batch_rng, evaluate=evaluate, eval_every=sz.eval_every,
                       progress=progress, desc=f"{name} #{k}", checkpoint=checkpoint,
                       checkpoint_key=key or f"{name}-{k}.training", dtype=sz.dtype)


def _check_sizes(sz) -> None:
    """``sz`` is a :class:`Sizes` whose fields can train and test (a :class:`Sizes` checks none itself)."""
    checks.instance("sz", sz, Sizes, "a temporal_kernels.Sizes (SIZES[scale], sizes_of(data))")
    for field in ("delays", "test_delays"):
        checks.instance(field, getattr(sz, field), (tuple, list), "a tuple of delays")
    sz.task  # noqa: B018  (SerialRecall checks alphabet, length, delays and min_length)
    for field, top in (("hidden", 100_000), ("batch", 10**6), ("updates", 10**9), ("seeds", 10_000),
                       ("eval_every", None), ("n_test", 10**6)):
        count(field, getattr(sz, field), 1, top)
    for i, d in enumerate(sz.test_delays):
        count(f"test_delays[{i}]", d, 0, 10**6)
    checks.real("learning_rate", sz.learning_rate, low=0.0, low_open=True)
    if sz.final_rate is not None:
        checks.real("final_rate", sz.final_rate, low=0.0)
    checks.real("ramp", sz.ramp, low=0.0, high=1.0), checks.real("forget_bias", sz.forget_bias)
    checks.flag("bucketed", sz.bucketed), checks.one_of("dtype", sz.dtype, ("float64", "float32"))
    for field in ("settings", "recipes"):
        if getattr(sz, field) is not None:
            checks.instance(field, getattr(sz, field), dict, "None or a dict by model name")


def curriculum_task(sz: Sizes, step: int) -> sq.SerialRecall:
    """The task update ``step`` (1 .. ``sz.updates``) trains on: ``sz.task``, or during a curriculum
    (the first ``R = round(sz.ramp * sz.updates)`` updates) the task whose longest delay is
    ``low + (high - low) s // R`` and whose strings have ``m + (L - m) s // R`` letters at
    ``s = step - 1`` (``low, high``: the training delays; ``L`` the string length; ``m`` =
    ``min_length``, or 1), and with ``min_length`` the strings keep lengths from ``m`` up to
    that.  Integer arithmetic, so every machine trains on the same batches."""
    _check_sizes(sz), count("step", step, 1)
    return _curriculum_task(sz, step)


def _curriculum_task(sz: Sizes, step: int) -> sq.SerialRecall:
    """:func:`curriculum_task` unchecked: :func:`train_one` calls it at every update."""
    task = sz.task
    ramp = round(sz.ramp * sz.updates)
    s = step - 1
    if s >= ramp:
        return task
    (low, high), L = task.delays, task.length
    m = task.min_length or 1
    return sq.SerialRecall(task.alphabet, m + (L - m) * s // ramp,
                           (low, low + (high - low) * s // ramp), task.min_length)


def hidden_states(name, params, x):
    """``(logits, hidden activations (T, B, units))``: y of the RNN and TKRNNs, h of the LSTM.

    (The LSTM's cells c are not bounded and may integrate; its units' activations h
    are what the next step and the outputs see.)"""
    fwd, _ = model_functions(name)
    if not isinstance(params, dict):
        raise TypeError(f"params must be a model's parameters (a dict from build), got "
                        f"{checks.shown(params)}")
    out = fwd(params, x, return_states=True)
    return out[0], out[1]


def hidden_drift(states, task: sq.SerialRecall, delay: int) -> np.ndarray:
    """RMS change of the hidden state per step during the delay, ``(delay,)``.

    Entry ``j`` is ``sqrt(mean over units and sequences of (s_t - s_{t-1})^2)`` at the
    ``j``-th delay step ``t = L + j``: a stable state has drift near 0."""
    checks.instance("task", task, sq.SerialRecall, "a sequences.SerialRecall")
    delay = count("delay", delay, 1)
    states = checks.array("states", states, (None, None, None), finite=False)  # (T, B, units)
    if len(states) < task.length + delay:
        raise ValueError(f"states must cover the task's {task.length} letters and a delay of {delay} "
                         f"({task.length + delay} steps), got {len(states)}")
    L = task.length
    d = np.diff(states[L - 1:L + delay], axis=0)
    return np.sqrt(np.mean(d ** 2, axis=(1, 2)))


def _validation_batch(sz: Sizes, seed: int = 0, k: int = 0) -> tuple:
    """``(x, target, mask)`` of network ``k``'s 256 validation strings (:func:`train_one`'s):
    whole strings at the longest training delay, from a stream of their own."""
    task = sz.task
    return sq.make_batch(task, 256, np.random.default_rng([seed, 10_000 + k]),
                         delay=task.delays[1], length=task.length)[:3]


def _validation_scores(name: str, params, batch) -> dict:
    """``recall_scores`` of ``name``'s network ``params`` on a :func:`_validation_batch`."""
    x, target, mask = batch
    return sq.recall_scores(model_functions(name)[0](params, x), target, mask)


def evaluate(name: str, params, sz: Sizes, seed: int = 0) -> dict:
    """Test a trained network on fresh strings.

    Returns per test delay (``sz.test_delays``) the accuracy per symbol and per string and
    the accuracy at each position of the string (``position``: the serial-position curve);
    the drift of the hidden state during the longest test delay (:func:`hidden_drift`); and
    the string accuracy for each list length ``1 .. L`` at the longest training delay
    (``by_length``: shorter lists than the task's, which the network may or may not have
    trained on).  ``sz.n_test`` strings per delay and per length."""
    model_functions(name), _check_sizes(sz), count("seed", seed)
    if not isinstance(params, dict):
        raise TypeError(f"params must be a model's parameters (a dict from build), got "
                        f"{checks.shown(params)}")
    task = sz.task
    out = {"symbol": [], "string": [], "position": []}
    for j, d in enumerate(sz.test_delays):
        x, t, m, _, _ = sq.make_batch(task, sz.n_test, np.random.default_rng([seed, 20_000 + j]),
                                      delay=d, length=task.length)
        logits, states = hidden_states(name, params, x)
        sc = sq.recall_scores(logits, t, m)
        out["symbol"].append(sc["symbol"])
        out["string"].append(sc["string"])
        out["position"].append(sc["correct"].mean(axis=0).tolist())
    out["drift"] = hidden_drift(states, task, sz.test_delays[-1]).tolist()
    out["by_length"] = []
    for n in range(1, task.length + 1):
        x, t, m, _, _ = sq.make_batch(task, sz.n_test, np.random.default_rng([seed, 30_000 + n]),
                                      delay=task.delays[1], length=n)
        out["by_length"].append(sq.recall_scores(hidden_states(name, params, x)[0], t, m)["string"])
    return out


def _jsonable_params(p):
    return {k: np.asarray(v).tolist() for k, v in p.items()}


def params_from_data(data: dict, name: str, k: int = 0) -> dict:
    """The recorded final parameters of network ``k`` of model ``name`` (``data["params"]``)."""
    checks.instance("data", data, dict, "a tk-serial-recall result's data (a dict)")
    checks.instance("name", name, str, f"a model name ({', '.join(MODELS)})"), count("k", k)
    if not isinstance(data.get("params"), dict) or name not in data["params"]:
        raise ValueError(f"the data has no recorded parameters for {name!r} (missing key 'params')")
    nets = data["params"][name]
    if not isinstance(nets, list) or k >= len(nets) or not isinstance(nets[k], dict):
        raise ValueError(f"k must be one of the {len(nets) if isinstance(nets, list) else 0} recorded "
                         f"networks of {name!r}, got {k}")
    return {kk: np.asarray(v) for kk, v in nets[k].items()}


def _windowed(values, w):
    v = np.asarray(values, dtype=float)
    n = len(v) // w
    return v[:n * w].reshape(n, w).mean(axis=1).tolist()


def _train_task(name, sz, seed, k, checkpoint=None, progress=False):
    """Train and test network ``k`` of ``name``: its run record and its final parameters."""
    params, h = train_one(name, sz, seed, k, progress, checkpoint)
    ev = evaluate(name, params, sz, seed)
    crit = next((s for s, a in zip(h.eval_steps, h.evals) if a >= CRITERION), None)
    run = {"loss": _windowed(h.loss, max(sz.updates // 100, 1)), "eval_steps": h.eval_steps,
           "val_string": h.evals, "updates_to_criterion": crit, "seconds": round(h.seconds, 2),
           **ev}
    return run, _jsonable_params(params)


def _train_piece(name, sz, seed, k) -> Piece:
    """Network ``k`` of ``name`` as a piece of the run (:func:`_train_task`, key ``NAME-K``)."""
    made_from = {"model": name, "sizes": dataclasses.asdict(sz), "seed": seed, "network": k}
    return Piece(f"{name}-{k}", made_from, _train_task, (name, sz, seed, k))


def _train_networks(sz, seed, start, stop, jobs, progress, checkpoint=None) -> list:
    """Networks ``start .. stop - 1`` of every model, each a piece
    (:func:`tempnets.book.experiments.run_pieces`: ``jobs`` cores or a cluster, the same results):
    one dict per network ``k``, model name -> ``(run, params)`` (:func:`_train_task`).  Network
    ``k`` is the same whatever else is trained (its streams are child ``k`` of the seed)."""
    tasks = [(name, k) for name in MODELS for k in range(start, stop)]
    results = run_pieces([_train_piece(name, sz, seed, k) for name, k in tasks], jobs, progress,
                         checkpoint)
    done = dict(zip(tasks, results))
    return [{name: done[(name, k)] for name in MODELS} for k in range(start, stop)]


def _models_data(networks) -> dict:
    """``{"models": ..., "params": ...}`` of :func:`_train_networks`'s networks (in order)."""
    data = {"models": {}, "params": {}}
    for name in MODELS:
        mine = [net[name] for net in networks]
        data["models"][name] = {"n_params": int(sum(np.size(v) for v in mine[0][1].values())),
                                "runs": [r[0] for r in mine]}
        data["params"][name] = [r[1] for r in mine[:2]]  # two networks per model, for the figures
    return data


def _need(data, keys, experiment="tk-serial-recall"):
    missing = [k for k in keys if k not in data]
    if missing:
        raise ValueError(f"trained= data is missing {', '.join(missing)} (pass a {experiment} "
                         "result's data or a record's data)")


def _median(runs, key, j):
    """Median over the networks of entry ``j`` (a test delay) of each run's ``key``."""
    return float(np.median([r[key][j] for r in runs]))
