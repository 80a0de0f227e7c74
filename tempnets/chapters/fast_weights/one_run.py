"""One run: the streams (:func:`make_stream`, :func:`test_stream`), the S/F system of the
paper's sizes (:func:`make_net`), training it on one stream (:func:`train_fast_weights`) and the
RTRL baseline (``_train_baseline``), with the 1000-step window (:data:`LONG_RUN`)."""

from __future__ import annotations

import numpy as np

from ..._numerics import checks
from ...models import fast_weights as fw, rtrl
from ...tasks import streams
from ..._numerics.checks import count
from ...training.srn_trainers import DivergenceError
from .sizes import BASELINE, PAPER


TASK_ID = {"flipflop": 1, "parking": 2}


def _sub(seed: int, *keys: int) -> int:
    """An integer seed derived from ``seed`` and ``keys`` (independent streams per part)."""
    return int(np.random.SeedSequence([int(seed), *map(int, keys)]).generate_state(1)[0])


def _check_task(task) -> str:
    if not isinstance(task, str) or task not in TASK_ID:
        raise ValueError(f"unknown task {task!r}; allowed: 'flipflop', 'parking'")
    return task


def make_stream(task: str, seed: int, k: int, n_steps: int) -> streams.Stream:
    """Stream ``k`` of ``seed`` for ``task`` (shared by every condition and the baseline)."""
    _check_task(task)
    count("seed", seed), count("k", k), count("n_steps", n_steps, 1)
    if task == "flipflop":
        return streams.random_flipflop(n_steps, _sub(seed, TASK_ID[task], k))
    if task == "parking":
        return streams.random_parking(n_steps, _sub(seed, TASK_ID[task], k))
    raise ValueError(f"unknown task {task!r}; allowed: 'flipflop', 'parking'")


def make_net(task: str, interface: str = "per-weight", squash: str = "logistic",
             T: float = PAPER["T"]) -> fw.FastWeightNet:
    """The paper's S/F sizes: flip-flop S 3 in, F 3 in 1 out; parking S 6 in, F 1 in 3 out."""
    sizes = {"flipflop": (3, 3, 1), "parking": (6, 1, 3)}[_check_task(task)]
    return fw.FastWeightNet(*sizes, interface=interface, T=T, squash=squash)


def _curve(E, mask, block: int) -> list:
    """Mean E over the scored steps of each block of ``block`` steps (NaN-free: 0 if none)."""
    n = E.size // block * block
    e = (E[:n] * mask[:n]).reshape(-1, block).sum(1)
    m = mask[:n].reshape(-1, block).sum(1)
    return np.round(np.where(m > 0, e / np.maximum(m, 1), 0.0), 5).tolist()


LONG_RUN = 1000
"""A stricter window: E(t) <= 0.05 for 1000 scored steps in a row.  A network that has only
part of the solution (e.g. a flip-flop whose C also resets) fails about one step in twelve and
passes 100 steps in a row by luck now and then, but practically never 1000."""

TEST_STEPS = {"flipflop": 5000, "parking": 20_000}


def test_stream(task: str, seed: int) -> streams.Stream:
    """The fresh stream every final network of a runner is tested on, frozen."""
    count("seed", seed)
    return make_stream(task, _sub(seed, 99), 0, TEST_STEPS[_check_task(task)])


def _perfect(E, mask) -> bool:
    return bool(np.all(E[mask == 1] <= PAPER["threshold"]))


def _share_right(E, mask) -> float:
    """The share of scored steps with E(t) <= 0.05 (questions answered right)."""
    return round(float(np.mean(E[mask == 1] <= PAPER["threshold"])), 4)


def train_fast_weights(stream, net, learning_rate, rng, block=100, keep_curve=False,
                       keep_U=True, test=None, literal=False) -> dict:
    """Train one S/F system on all of one stream: the steps to solution (paper's criterion,
    strict reading, 1000 in a row) and whether the final network is perfect on ``test``.

    With ``literal=True`` (car parking, whose stream has unscored steps) also the *literal
    reading* of "100 time steps in a row": every time step counts, and a step without a scored
    question has error 0 (see the module docstring).  ``"literal"`` is the step at which it is first
    met; ``"literal_right"`` the share of ``test``'s questions that the network of that very
    step answers right (the run is trained again up to that step: training is causal, so this
    is the network it had then)."""
    _check_streams(stream, test)
    checks.instance("net", net, fw.FastWeightNet, "a fast_weights.FastWeightNet (from make_net)")
    count("block", block, 1), checks.flag("keep_curve", keep_curve), checks.flag("keep_U", keep_U)
    checks.flag("literal", literal)
    U0 = fw.init_slow_weights(net, PAPER["init_range"], rng=rng)
    try:
        r = fw.train_online(net, U0, stream.xs, stream.xf, stream.d, stream.mask,
                            learning_rate=learning_rate)
    except DivergenceError:
        out = {"solved": -1, "strict": -1, "solved_1000": -1, "perfect": False, "diverged": True,
               "U": None, "curve": None}
        return dict(out, literal=-1, literal_right=None) if literal else out
    out = {"solved": fw.solved_at(r.E, stream.mask, PAPER["threshold"], PAPER["run"]),
           "strict": fw.solved_at(r.err, stream.mask, PAPER["threshold"], PAPER["run"]),
           "solved_1000": fw.solved_at(r.E, stream.mask, PAPER["threshold"], LONG_RUN),
           "perfect": None, "diverged": False,
           "U": np.round(r.U, 4).tolist() if keep_U else None, "curve": None}
    if test is not None:
        out["perfect"] = _perfect(fw.run(net, r.U, test.xs, test.xf, test.d, test.mask)["E"], test.mask)
    if literal:
        # E(t) is 0 on unscored steps, so with no mask every time step counts
        out["literal"] = fw.solved_at(r.E, None, PAPER["threshold"], PAPER["run"])
        out["literal_right"] = None
        if out["literal"] > 0 and test is not None:
            upto = stream.slice(0, out["literal"])
            then = fw.train_online(net, U0, upto.xs, upto.xf, upto.d, upto.mask,
                                   learning_rate=learning_rate).U
            out["literal_right"] = _share_right(fw.run(net, then, test.xs, test.xf, test.d,
                                                       test.mask)["E"], test.mask)
    if keep_curve:
        out["curve"] = _curve(r.E, stream.mask, block)
    return out


def _check_streams(stream, test) -> None:
    """A training stream and an optional test stream (``None``), each a :class:`streams.Stream`."""
    checks.instance("stream", stream, streams.Stream, "a streams.Stream (from make_stream)")
    if test is not None:
        checks.instance("test", test, streams.Stream, "None or a streams.Stream (from test_stream)")


def _train_baseline(stream, task, learning_rate, rng, test=None) -> dict:
    """Train the RTRL network on one stream (it sees S's and F's inputs); as above."""
    def inputs(st):
        return st.xs if task == "flipflop" else np.hstack([st.xs, st.xf])
    x = inputs(stream)
    net = rtrl.RecurrentNet(x.shape[1], BASELINE[task]["n_units"], stream.d.shape[1])
    W0 = rtrl.init_weights(net, PAPER["init_range"], rng=rng)
    try:
        r = rtrl.train_online(net, W0, x, stream.d, stream.mask, learning_rate=learning_rate)
    except DivergenceError:
        return {"solved": -1, "solved_1000": -1, "perfect": False, "diverged": True}
    out = {"solved": fw.solved_at(r.E, stream.mask, PAPER["threshold"], PAPER["run"]),
           "solved_1000": fw.solved_at(r.E, stream.mask, PAPER["threshold"], LONG_RUN),
           "perfect": None, "diverged": False}
    if test is not None:  # frozen (rate 0), from rest
        frozen = rtrl.train_online(net, r.W, inputs(test), test.d, test.mask, learning_rate=0.0)
        out["perfect"] = _perfect(frozen.E, test.mask)
    return out
