import json
import subprocess
import sys

import pytest

from tempnets import experiments
from tempnets.__main__ import main


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


def test_reproduce_exits_1_when_a_claim_is_not_as_stated(monkeypatch, tmp_path, capsys):
    from tempnets import claims

    def runner(scale, seed, jobs, progress):
        t = claims.ClaimsTable("broken")
        t.add("one equals two", "nowhere", 2.0, 1.0, claims.within(0.0))
        return experiments.Result(t)

    fake = experiments.Experiment("fake", "a failing experiment", "x:y")
    monkeypatch.setattr(experiments, "EXPERIMENTS", experiments.EXPERIMENTS + (fake,))
    monkeypatch.setattr(experiments.Experiment, "runner", lambda self: runner)
    assert main(["reproduce", "fake", "--out", str(tmp_path / "f.json")]) == 1
    assert "did not come out as stated" in capsys.readouterr().err
