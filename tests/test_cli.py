import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tempnets.book import experiments
from tempnets.__main__ import main

EARLIER = '{"id": "gsm-reber-count", "command": "python -m tempnets reproduce gsm-reber-count", "earlier": "record"}\n'
"""An earlier record at --out (a run replaces only a record of its command: issue 31)."""


def test_list_runs_as_a_module():
    out = subprocess.run([sys.executable, "-m", "tempnets", "list"], capture_output=True, text=True,
                         check=True).stdout
    for e in experiments.EXPERIMENTS:
        assert e.id in out and e.description in out


def test_every_registered_experiment_resolves_to_a_runner():
    ids = [e.id for e in experiments.EXPERIMENTS]
    assert len(ids) == len(set(ids)), "duplicate experiment ids"
    for e in experiments.EXPERIMENTS:
        assert callable(e.runner()), e.id


def test_unknown_id_is_a_clear_error(capsys):
    assert main(["reproduce", "no-such-thing"]) == 2
    err = capsys.readouterr().err
    assert "unknown experiment id 'no-such-thing'" in err and "known ids:" in err


@pytest.mark.parametrize("args, message", [
    (["reproduce", "gsm-reber-count", "--scale", "huge"], "invalid choice"),
    (["reproduce", "gsm-reber-count", "--seed", "-3"], "non-negative integer"),
    (["reproduce", "gsm-reber-count", "--jobs", "0"], "positive integer"),
    (["reproduce", "tk-serial-recall", "--checkpoint-every", "-1"], "must be a number of seconds >= 0, got '-1'"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_options_exit_non_zero_with_a_message(args, message, capsys):
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_reproduce_prints_the_table_and_writes_the_record(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["reproduce", "gsm-reber-count", "--seed", "3", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "paper" in printed and "holds" in printed
    record = json.loads(out.read_text())
    assert record["seed"] == 3 and record["scale"] == "book" and record["wall_time_s"] >= 0
    assert record["versions"]["numpy"] and record["claims"][0]["holds"] is True
    assert "commit" in record  # the source tree's commit (None outside a git checkout)
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # (it keeps no checkpoint)


def test_reproduce_exits_1_when_a_claim_is_not_as_stated(monkeypatch, tmp_path, capsys):
    from tempnets.book import claims

    def runner(scale, seed, jobs, progress):
        t = claims.ClaimsTable("broken")
        t.add("one equals two", "nowhere", 2.0, 1.0, claims.within(0.0))
        return experiments.Result(t)

    fake = experiments.Experiment("fake", "a failing experiment", "x:y")
    monkeypatch.setattr(experiments, "EXPERIMENTS", experiments.EXPERIMENTS + (fake,))
    monkeypatch.setattr(experiments.Experiment, "runner", lambda self: runner)
    assert main(["reproduce", "fake", "--out", str(tmp_path / "f.json")]) == 1
    assert "did not come out as stated" in capsys.readouterr().err
    # another seed: the chapter's expectations are its own seed's; a finished run exits 0
    assert main(["reproduce", "fake", "--seed", "1", "--out", str(tmp_path / "g.json")]) == 0
    assert "a finding, not an error" in capsys.readouterr().out


def test_perturb_multiplies_every_initial_weight(monkeypatch, tmp_path):
    from tempnets.book import claims
    from tempnets.models import srn, tkrnn

    seen = {}

    def runner(scale, seed, jobs, progress):
        seen["srn"] = srn.init_params(3, 4, 3, rng=5)
        seen["tk"] = tkrnn.init_params(2, 3, 2, rng=5)
        t = claims.ClaimsTable("t")
        t.add("fine", "s", None, 1.0, claims.at_least(0.0))
        return experiments.Result(t)

    fake = experiments.Experiment("fake", "records its initial weights", "x:y")
    monkeypatch.setattr(experiments, "EXPERIMENTS", experiments.EXPERIMENTS + (fake,))
    monkeypatch.setattr(experiments.Experiment, "runner", lambda self: runner)
    assert main(["reproduce", "fake", "--perturb", "1e-6", "--out", str(tmp_path / "p.json")]) == 0
    record = json.loads((tmp_path / "p.json").read_text())
    assert record["perturb"] == 1e-6 and record["command"].endswith("--perturb 1e-06")
    plain_srn, plain_tk = srn.init_params(3, 4, 3, rng=5), tkrnn.init_params(2, 3, 2, rng=5)
    for a, b in zip(seen["srn"], plain_srn):
        rel = np.abs(a / b - 1)
        assert 0 < rel.max() <= 1e-6 and not np.array_equal(a, b)
    assert not np.array_equal(seen["tk"]["W_h"], plain_tk["W_h"])
    assert np.array_equal(seen["tk"]["b_h"], plain_tk["b_h"])  # zeros stay zeros
    assert "TEMPNETS_PERTURB" not in os.environ  # restored after the run


def test_robustness_counts_each_outcome_per_claim(monkeypatch, tmp_path, capsys):
    from tempnets.book import claims

    def runner(scale, seed, jobs, progress, trained=None):
        t = claims.ClaimsTable("t")
        v = trained["v"] if trained else float(seed % 3)
        t.add("v is at least 1", "s", None, v, claims.at_least(1.0))
        return experiments.Result(t, {"v": v})

    fake = experiments.Experiment("fake", "a coin", "x:y")
    monkeypatch.setattr(experiments, "EXPERIMENTS", experiments.EXPERIMENTS + (fake,))
    monkeypatch.setattr(experiments.Experiment, "runner", lambda self: runner)
    out = tmp_path / "fake.robustness.json"
    assert main(["robustness", "fake", "--seeds", "6", "--out", str(out), "--no-progress"]) == 0
    record = json.loads(out.read_text())
    assert record["counts"] == {"v is at least 1": {"does not hold": 2, "holds": 4}}
    assert "holds in 4/6" in capsys.readouterr().out
    assert main(["rederive", str(out)]) == 0
    table = claims.ClaimsTable("t")
    table.add("v is at least 1", "s", None, 2.0, claims.at_least(1.0))
    table.with_robustness(record["counts"])
    assert "holds in 4/6" in str(table)


# ----------------------------------------------------------------------------- nothing lost

def _never_train(monkeypatch):
    """Make every runner fail loudly: the checks under test must come before training."""
    def runner(**kwargs):
        raise AssertionError("trained before checking the arguments")
    monkeypatch.setattr(experiments.Experiment, "runner", lambda self: runner)


@pytest.mark.parametrize("where, message", [
    ("missing/r.json", "does not exist"),
    (".", "is a directory"),
    ("/proc/tempnets-record.json", "cannot write in"),
])
def test_out_is_checked_before_training(where, message, tmp_path, monkeypatch, capsys):
    _never_train(monkeypatch)
    out = where if where.startswith("/") else str(tmp_path / where)
    assert main(["reproduce", "gsm-reber-count", "--out", out]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.splitlines()) == 1


def test_user_mistakes_end_with_one_line(monkeypatch, capsys):
    _never_train(monkeypatch)
    monkeypatch.setenv("TEMPNETS_SCALE", "garbage")
    assert main(["reproduce", "gsm-reber-count"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == ["error: unknown scale 'garbage' (from TEMPNETS_SCALE); allowed: book, paper"]
    with pytest.raises(SystemExit) as info:
        main(["reproduce", "gsm-reber-count", "--seed", "x"])
    assert info.value.code == 2 and len(capsys.readouterr().err.splitlines()) == 1


def test_ctrl_c_ends_with_one_line_and_leaves_an_earlier_record(monkeypatch, tmp_path, capsys):
    def runner(**kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(experiments.Experiment, "runner", lambda self: runner)
    out = tmp_path / "r.json"
    out.write_text(EARLIER)
    assert main(["reproduce", "gsm-reber-count", "--out", str(out)]) == 130
    assert capsys.readouterr().err.splitlines() == [
        "interrupted: nothing was written (an earlier record is unchanged)"]
    assert out.read_text() == EARLIER


def test_a_record_survives_a_non_utf8_terminal(tmp_path):
    """The record is written before printing, and printing falls back to ASCII (≤ -> <=)."""
    import os

    out = tmp_path / "r.json"
    env = dict(os.environ, PYTHONIOENCODING="cp1252", TEMPNETS_PROGRESS="0")
    run = subprocess.run([sys.executable, "-m", "tempnets", "reproduce", "gsm-reber-count", "--out",
                          str(out)], capture_output=True, env=env)
    assert run.returncode == 0, run.stderr.decode("cp1252")
    assert "|ours - paper| <= 0" in run.stdout.decode("cp1252")
    assert json.loads(out.read_text())["claims"][0]["holds"] is True


def test_a_full_disk_leaves_the_earlier_record_whole(tmp_path):
    import os
    import resource

    out = tmp_path / "r.json"
    out.write_text(EARLIER)
    env = dict(os.environ, TEMPNETS_PROGRESS="0")
    run = subprocess.run(
        [sys.executable, "-m", "tempnets", "reproduce", "gsm-reber-count", "--out", str(out)],
        capture_output=True, text=True, env=env,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512)))
    assert run.returncode == 1
    assert "could not be written" in run.stderr and len(run.stderr.splitlines()) == 1
    assert out.read_text() == EARLIER
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary file left


def test_the_record_holds_the_real_thread_count_and_a_portable_command(tmp_path):
    from tempnets.book.experiments import threads_used

    out = tmp_path / "r.json"
    assert main(["reproduce", "gsm-reber-count", "--jobs", "1000", "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["jobs"] == threads_used(1000) < 1000
    assert record["command"] == (f"python -m tempnets reproduce gsm-reber-count --scale book "
                                 f"--seed 0 --jobs {record['jobs']}")
    assert "argv" not in record


def test_the_commit_is_recorded_only_from_this_projects_checkout(tmp_path):
    from tempnets.book.experiments import _commit

    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    pkg = tmp_path / "tempnets"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    assert _commit(pkg) is None  # a git checkout, but not of this project
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "tempnets"\n')
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "y")
    clean = _commit(pkg)
    assert clean and not clean.endswith("-dirty")
    (pkg / "__init__.py").write_text("x = 1\n")
    assert _commit(pkg) == clean + "-dirty"
    site = tmp_path / "venv" / "site-packages" / "tempnets"  # installed inside another checkout
    site.mkdir(parents=True)
    assert _commit(site) is None


def test_version_flag(capsys):
    import tempnets

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"tempnets {tempnets.__version__}"


def test_rederive_command_prints_the_table_and_names_a_broken_record(tmp_path, capsys):
    from pathlib import Path

    record = Path(__file__).resolve().parents[1] / "book" / "paper_scale" / "gsm-reber-count.json"
    assert main(["rederive", str(record)]) == 0
    assert "number of strings of 3 to 8 letters" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text('{"id": "gsm-reber-count", "sca')
    assert main(["rederive", str(bad)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {bad}: not an experiment record")


def test_ctrl_c_does_not_wait_for_workers_still_computing(tmp_path):
    """Issue 21, item 7: after Ctrl-C with --jobs 2, the process waited for the worker threads to
    finish the kernels they were in (71 s). A worker here sleeps 60 s (as a compiled kernel would
    compute, without the GIL); the interrupted command must still end at once, with exit 130."""
    import time

    script = tmp_path / "interrupted.py"
    script.write_text(
        "import concurrent.futures, time\n"
        "from tempnets import experiments\n"
        "from tempnets.__main__ import _exit, main\n"
        "def runner(**kwargs):\n"
        "    pool = concurrent.futures.ThreadPoolExecutor(1)\n"
        "    pool.submit(time.sleep, 60)\n"
        "    raise KeyboardInterrupt\n"
        "experiments.Experiment.runner = lambda self: runner\n"
        "_exit(main(['reproduce', 'gsm-reber-count', '--out', r'%s']))\n" % (tmp_path / "r.json"))
    start = time.perf_counter()
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 130, run.stderr
    assert time.perf_counter() - start < 30, "the interrupted command waited for its worker"
    assert run.stderr.splitlines()[-1] == "interrupted: nothing was written (an earlier record is unchanged)"
