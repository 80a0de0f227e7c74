"""Issue 23, item 4: runs that survive interruption.

A run interrupted (Ctrl-C) and resumed from its checkpoint must end with the same bits as a
run never interrupted: :func:`tempnets.training.optim.train` first, then a whole ``python -m tempnets
reproduce tk-serial-recall`` interrupted by SIGINT in a subprocess and resumed.
"""

import dataclasses
import json
import os
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

from tempnets.book import experiments

from tempnets.training import optim

from tempnets.models import rnn_baselines, tkrnn

from tempnets.tasks import sequences
from tempnets.__main__ import main
from tempnets.chapters import temporal_kernels as tk
from tempnets.chapters.temporal_kernels import networks as tk_networks
from tempnets.training.checkpoint import IDENTITY, check_checkpoint, open_checkpoint, read_value

TASK = sequences.SerialRecall(4, 2, (1, 4))
TINY = tk.Sizes(3, 2, (1, 3), 6, 8, 40, 1e-2, 2, 10, (1, 3, 50), 20)
"""tk-serial-recall made small: 8 networks of 40 updates (a second or two in all)."""


class Interrupt:
    """``sample`` that raises KeyboardInterrupt (as Ctrl-C would) when asked for batch ``at``."""

    def __init__(self, at):
        self.at, self.calls = at, 0

    def __call__(self, gen):
        self.calls += 1
        if self.calls == self.at:
            raise KeyboardInterrupt
        return sequences.make_batch(TASK, 8, rng=gen)[:3]


def _train(model, dtype, sample=None, n=30, checkpoint=None, **kw):
    init, loss_and_grad = {
        "tkrnn+2": (lambda: tkrnn.init_params(TASK.n_in, 8, TASK.n_out, 2, rng=0), tkrnn.tkrnn_loss_and_grad),
        "lstm": (lambda: rnn_baselines.lstm_init(TASK.n_in, 6, TASK.n_out, rng=0), rnn_baselines.lstm_loss_and_grad),
    }[model]
    fwd = tkrnn.tkrnn_forward if model.startswith("tk") else rnn_baselines.lstm_forward
    vx, vt, vm, _, _ = sequences.make_batch(TASK, 16, rng=99)
    return optim.train(loss_and_grad, init(), sample or Interrupt(0), n,
                       config=optim.OptimConfig(learning_rate=3e-2), rng=np.random.default_rng(5),
                       evaluate=lambda p: sequences.recall_scores(fwd(p, vx), vt, vm)["symbol"],
                       eval_every=4, progress=False, dtype=dtype, checkpoint=checkpoint, **kw)


def _same_run(a, b):
    (pa, ha), (pb, hb) = a, b
    assert sorted(pa) == sorted(pb)
    for k in pa:
        assert pa[k].dtype == pb[k].dtype and np.array_equal(pa[k], pb[k]), k
    for f in ("loss", "grad_norm", "eval_steps", "evals"):  # seconds: wall time, not compared
        assert getattr(ha, f) == getattr(hb, f), f


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("model", ["tkrnn+2", "lstm"])
def test_train_interrupted_then_resumed_gives_the_same_bits(model, dtype, tmp_path):
    whole = _train(model, dtype)
    ck = open_checkpoint(tmp_path / "ck", {"test": 1}, every_seconds=0.0)
    with pytest.raises(KeyboardInterrupt):
        _train(model, dtype, Interrupt(at=11), checkpoint=ck)  # the state after update 10 is saved
    assert ck.keys() == ["training"]
    resumed = _train(model, dtype, checkpoint=ck)
    _same_run(resumed, whole)
    assert resumed[1].seconds > 0


def test_train_resumes_from_the_last_save_and_replays_what_came_after(tmp_path):
    """Saved every 7 updates, interrupted at update 20: updates 15-19 are computed again, from
    the batch generator's state after update 14."""
    whole = _train("tkrnn+2", "float64")
    ck = open_checkpoint(tmp_path / "ck", {"test": 1}, every_seconds=1e9, every_updates=7)
    with pytest.raises(KeyboardInterrupt):
        _train("tkrnn+2", "float64", Interrupt(at=20), checkpoint=ck)
    assert read_value(tmp_path / "ck" / "training.npz")["value"]["step"] == 14
    counted = Interrupt(0)
    _same_run(_train("tkrnn+2", "float64", counted, checkpoint=ck), whole)
    assert counted.calls == 30 - 14


def test_a_checkpoint_of_another_training_is_refused(tmp_path):
    ck = open_checkpoint(tmp_path / "ck", {"test": 1}, every_seconds=0.0)
    with pytest.raises(KeyboardInterrupt):
        _train("tkrnn+2", "float64", Interrupt(at=5), checkpoint=ck)
    with pytest.raises(ValueError, match=r"was made from something else: n_steps 30 \(this run: 40\)"):
        _train("tkrnn+2", "float64", n=40, checkpoint=ck)
    with pytest.raises(ValueError, match=r"dtype 'float64' \(this run: 'float32'\)"):
        _train("tkrnn+2", "float32", checkpoint=ck)
    _same_run(_train("lstm", "float64", checkpoint=ck, checkpoint_key="other"), _train("lstm", "float64"))


# ----------------------------------------------------------------------------- the directory

def test_saves_are_atomic_and_a_broken_file_is_named(tmp_path, monkeypatch):
    ck = open_checkpoint(tmp_path / "ck", {"run": 1})
    ck.save("a", [1, 2])

    def interrupted(fd):  # Ctrl-C while the new value is being written
        raise KeyboardInterrupt
    with monkeypatch.context() as m, pytest.raises(KeyboardInterrupt):
        m.setattr(os, "fsync", interrupted)
        ck.save("a", [3, 4])
    assert ck.load("a") == [1, 2]  # the earlier value, whole
    assert sorted(p.name for p in (tmp_path / "ck").iterdir()) == ["a.npz", IDENTITY, "session-0"]
    assert ck.load("b") is None
    (tmp_path / "ck" / "a.npz").write_bytes(b"\x80\x05garbage")
    with pytest.raises(ValueError, match=r"a.npz cannot be read .*remove it to redo that part"):
        ck.load("a")
    with pytest.raises(ValueError, match=r"checkpoint key must be letters, digits and _ . \+ -, got '../x'"):
        ck.save("../x", 1)
    assert pickle.loads(pickle.dumps(ck)) == ck  # it travels to worker processes


def test_a_checkpoint_of_another_run_is_refused(tmp_path):
    where = tmp_path / "ck"
    ident = {"experiment": "tk-serial-recall", "scale": "book", "seed": 0}
    ck = open_checkpoint(where, ident)
    with pytest.raises(ValueError, match=r"nothing to resume: .*nope holds no checkpoint"):
        check_checkpoint(tmp_path / "nope", ident, resume=True)
    open_checkpoint(where, ident)  # nothing saved yet: a fresh start may reuse it
    ck.save("x", 1)
    with pytest.raises(ValueError, match=r"holds the checkpoint of an interrupted run \(1 saved part\(s\)\); "
                                         "continue it with --resume"):
        open_checkpoint(where, ident)
    with pytest.raises(ValueError, match=r"checkpoint of another run or code: scale 'book' \(this run: "
                                         r"'paper'\); seed 0 \(this run: 1\); resume with the same"):
        open_checkpoint(where, {**ident, "scale": "paper", "seed": 1}, resume=True)
    for bad, message in (({"every_seconds": -1.0}, "every_seconds must be a finite number >= 0, got -1.0"),
                         ({"every_updates": 0}, "every_updates must be an integer >= 1, got 0")):
        with pytest.raises(ValueError, match=re.escape(message)):
            open_checkpoint(where, ident, resume=True, **bad)
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="checkpoint '.*file' is a file, not a directory"):
        open_checkpoint(tmp_path / "file", ident)
    again = open_checkpoint(where, ident, resume=True)
    assert again.session == 1 and again.load("x") == 1 and again.earlier_seconds() >= 0


def test_finished_networks_are_saved_whole_and_not_trained_again(tmp_path, monkeypatch):
    """Workers of a parallel run (spawned processes) save into the same checkpoint; a run that
    finds every network there trains none, and gives the same data."""
    ck = open_checkpoint(tmp_path / "ck", {"run": 1}, every_seconds=1e9)
    first = tk._models_data(tk._train_networks(TINY, 3, 0, TINY.seeds, 2, False, ck))
    assert ck.keys() == sorted(f"{m}-{k}" for m in tk.MODELS for k in range(TINY.seeds))
    monkeypatch.setattr(tk_networks, "train_one", lambda *a, **k: pytest.fail("a finished network was trained again"))
    assert tk._models_data(tk._train_networks(TINY, 3, 0, TINY.seeds, 1, False, ck)) == first
    with pytest.raises(ValueError, match=r"RNN-0.npz was made from something else: .*seed 3 \(this run: 4\)"):
        tk._models_data(tk._train_networks(TINY, 4, 0, TINY.seeds, 1, False, ck))


# ----------------------------------------------------------------------------- a whole run, by SIGINT

SCRIPT = """\
import os, signal, sys
from tempnets.training import checkpoint
from tempnets.chapters import temporal_kernels as tk
from tempnets.__main__ import _exit, main
tk.SIZES["book"] = tk.Sizes(*{sizes!r})
# Python installs its Ctrl-C handler only where SIGINT is not ignored at start, and a
# background job (`make test &`, nohup) starts with it ignored: install it here
signal.signal(signal.SIGINT, signal.default_int_handler)
save = checkpoint.Checkpoint.save
def save_then_ctrl_c(self, key, value, made_from=None):
    # the user's Ctrl-C, at a point the test knows: once network RNN-1 has saved its third
    # update (a timed signal from the test raced the run on a busy machine)
    save(self, key, value, made_from)
    if os.environ.get("INTERRUPT") and key == "RNN-1.training" and value["step"] == 3:
        os.kill(os.getpid(), signal.SIGINT)
checkpoint.Checkpoint.save = save_then_ctrl_c
_exit(main(sys.argv[1:]))
"""


def _comparable(record):
    """A record's claims and data without wall times (which no two runs share)."""
    data = json.loads(json.dumps(record["data"]))
    for model in data["models"].values():
        for run in model["runs"]:
            run.pop("seconds")
    return record["claims"], data


def test_reproduce_interrupted_by_sigint_then_resumed_gives_the_same_record(tmp_path, monkeypatch):
    slow = dataclasses.replace(TINY, updates=200)  # long enough to be caught mid-training
    monkeypatch.setitem(tk.SIZES, "book", slow)
    assert main(["reproduce", "tk-serial-recall", "--no-progress", "--out", str(tmp_path / "slow.json")]) in (0, 1)
    slow_whole = json.loads((tmp_path / "slow.json").read_text())
    assert not (tmp_path / "slow.checkpoint").exists()  # removed once the record was written

    script = tmp_path / "run.py"
    script.write_text(SCRIPT.format(sizes=dataclasses.astuple(slow)))
    out, ck = tmp_path / "r.json", tmp_path / "r.checkpoint"
    # a save after every update; the script sends itself SIGINT after RNN-1's third
    cmd = [sys.executable, str(script), "reproduce", "tk-serial-recall", "--scale", "book",
           "--no-progress", "--out", str(out), "--checkpoint-every", "0"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "INTERRUPT": "1"})
    err = proc.stderr
    assert proc.returncode == 130, err
    assert err.splitlines()[-1] == (f"interrupted: nothing was written (an earlier record is unchanged); "
                                    f"the work so far is kept in {ck}: add --resume to continue")
    assert not out.exists()
    left = sorted(p.name for p in ck.iterdir())
    assert "RNN-0.npz" in left and "LSTM-1.npz" not in left  # interrupted in the middle
    assert not [n for n in left if n.endswith(".tmp")]  # never a half-written file

    run = subprocess.run(cmd + ["--resume"], capture_output=True, text=True, timeout=120)
    assert run.returncode in (0, 1), run.stderr
    resumed = json.loads(out.read_text())
    assert _comparable(resumed) == _comparable(slow_whole)
    assert resumed["resumed"]["sessions"] == 2 and "resumed from a checkpoint" in resumed["note"]
    assert resumed["command"] == slow_whole["command"]
    assert not ck.exists()


def test_resume_mistakes_are_one_line_errors(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(tk.SIZES, "book", TINY)
    out = tmp_path / "r.json"
    assert main(["reproduce", "tk-serial-recall", "--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: nothing to resume: {tmp_path / 'r.checkpoint'} holds no checkpoint")
    assert len(err.splitlines()) == 1 and not out.exists()
    assert main(["reproduce", "gsm-reber-count", "--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --resume: gsm-reber-count keeps no checkpoint (it cannot be "
                          "interrupted and continued); experiments that do: ") and "tk-serial-recall" in err
    # a checkpoint of seed 0 is not continued by seed 1
    ck = open_checkpoint(tmp_path / "r.checkpoint",
                         experiments.checkpoint_identity("tk-serial-recall", "book", 0, 0.0))
    ck.save("RNN-0", None)
    assert main(["reproduce", "tk-serial-recall", "--seed", "1", "--out", str(out), "--resume"]) == 2
    assert "seed 0 (this run: 1)" in capsys.readouterr().err
    assert main(["reproduce", "tk-serial-recall", "--out", str(out)]) == 2  # without --resume
    assert "continue it with --resume, or remove the directory" in capsys.readouterr().err
    assert (tmp_path / "r.checkpoint" / "RNN-0.npz").exists()  # an interrupted run's work is kept


def test_the_help_names_the_experiments_that_keep_a_checkpoint():
    from tempnets.__main__ import _parser

    resumable = [e.id for e in experiments.EXPERIMENTS if experiments.resumable(e.id)]
    assert {"tk-serial-recall", "gsm-problem3", "mozer-rates", "fw-parking"} <= set(resumable)
    # every PA record's runner keeps one (issue 32 item 5), but pa-2.1, whose hooks cannot resume
    assert {"pa-4.2", "pa-5.2", "pa-6.2", "pa-8.1", "pa-8.2-8.3", "pa-8.4", "pa-8.5", "pa-framing"} <= set(resumable)
    assert "pa-2.1" not in resumable
    reproduce = _parser()._subparsers._group_actions[0].choices["reproduce"]
    assert ("only experiments that keep a checkpoint (" + ", ".join(resumable) + ") accept it"
            in " ".join(reproduce._option_string_actions["--resume"].help.split()))


def test_every_long_paper_scale_record_can_be_resumed():
    """Issue 32 item 5: a paper-scale run long enough to be interrupted (over 10 minutes when it
    was recorded) belongs to an experiment that keeps a checkpoint (``--resume``)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "book" / "paper_scale"
    long_ones = []
    for path in sorted(root.glob("*.json")):
        if path.name.endswith(".robustness.json"):
            continue
        record = json.loads(path.read_text(encoding="utf-8"))
        if record["wall_time_s"] > 600 and not experiments.resumable(record["id"]):
            long_ones.append(f"{record['id']} ({record['wall_time_s'] / 60:.0f} min)")
    assert not long_ones, f"paper-scale runs over 10 minutes that cannot resume: {long_ones}"
