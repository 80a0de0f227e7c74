"""Issue 36: seeds and networks as Dask tasks (``--cluster ADDRESS``).

A run on a Dask cluster (a ``LocalCluster`` of 2 worker processes of one thread each) writes
the record ``--jobs 1`` writes, apart from its timing fields; a worker killed during a piece
has its piece run again, to the same record; a lost scheduler stops the run with one line
and ``--resume`` continues from the pieces saved; an unreachable address, a missing Dask or
an experiment that does not split into pieces is one line and exit 2.

Seeds of ``pa-2.1`` at book scale (about 2 s each) and ``tk-serial-recall`` made tiny are the
pieces: the whole file takes about a minute on a busy 2-core machine.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from tempnets.book import cluster, experiments
from tempnets.__main__ import main
from tempnets.chapters import fast_weights as fw
from tempnets.chapters import temporal_kernels as tk

distributed = pytest.importorskip("distributed")

TINY = tk.Sizes(3, 2, (1, 3), 6, 8, 40, 1e-2, 2, 10, (1, 3, 50), 20)
"""tk-serial-recall made small: 8 networks of 40 updates."""

CHEAP = "pa-2.1"
"""An experiment whose book-scale seed trains in about 2 s."""


@pytest.fixture(scope="module")
def scheduler():
    """The address of a LocalCluster of 2 worker processes, one thread each."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", silence_logs=40) as local:
        yield local.scheduler_address


TIMING = {"wall_time_s", "seconds"}
"""The fields that say how long something took (in a record, its seeds' runs and their data)."""


def _without_timing(record):
    """A record (as written) without the fields no two runs share: :data:`TIMING`, at any depth."""
    if isinstance(record, dict):
        return {k: _without_timing(v) for k, v in record.items() if k not in TIMING}
    if isinstance(record, list):
        return [_without_timing(v) for v in record]
    return record


def _as_written(record):
    return json.loads(json.dumps(experiments._standard(
        {k: v for k, v in record.items() if not k.startswith("_")})))


def _one_line_error(capsys, *parts):
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    for part in parts:
        assert part in err, err


# ----------------------------------------------------------------------------- the same record

def test_robustness_on_a_cluster_writes_the_record_of_jobs_1(scheduler, tmp_path, capsys):
    one, many = tmp_path / "one.json", tmp_path / "many.json"
    assert main(["robustness", CHEAP, "--seeds", "2", "--no-progress", "--out", str(one)]) == 0
    assert main(["robustness", CHEAP, "--seeds", "2", "--no-progress", "--out", str(many),
                 "--cluster", scheduler]) == 0
    said = capsys.readouterr().out
    assert f"each seed saved in {tmp_path / 'many.checkpoint'}" in said
    a, b = json.loads(one.read_text()), json.loads(many.read_text())
    assert _without_timing(a) == _without_timing(b)
    assert a["runs"][0]["data"] != a["runs"][1]["data"]  # two seeds, two different runs
    assert sorted(p.name for p in tmp_path.iterdir()) == ["many.json", "one.json"]  # checkpoint removed


def test_reproduce_on_a_cluster_writes_the_record_of_jobs_1(scheduler, tmp_path, monkeypatch):
    monkeypatch.setitem(tk.SIZES, "book", TINY)  # (the pieces carry their sizes to the workers)
    one, many = tmp_path / "one.json", tmp_path / "many.json"
    assert main(["reproduce", "tk-serial-recall", "--no-progress", "--out", str(one)]) in (0, 1)
    assert main(["reproduce", "tk-serial-recall", "--no-progress", "--out", str(many),
                 "--cluster", scheduler]) in (0, 1)
    a, b = json.loads(one.read_text()), json.loads(many.read_text())
    assert _without_timing(a) == _without_timing(b)
    assert b["jobs"] == 1 and b["command"] == a["command"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["many.json", "one.json"]


@pytest.mark.parametrize("experiment", ["fw-flipflop", "fw-linear-attention"])
def test_fast_weights_on_a_cluster_write_the_record_of_jobs_1(experiment, scheduler, tmp_path,
                                                              monkeypatch):
    # 60 runs in two pieces of fw.CHUNK (50 and 10), each run capped at 300 steps
    monkeypatch.setitem(fw.SIZES, experiment, {"book": fw.Sizes(60, 300, 2),
                                               "paper": fw.SIZES[experiment]["paper"]})
    one, many = tmp_path / "one.json", tmp_path / "many.json"
    assert main(["reproduce", experiment, "--no-progress", "--out", str(one)]) in (0, 1)
    assert main(["reproduce", experiment, "--no-progress", "--out", str(many),
                 "--cluster", scheduler]) in (0, 1)
    a, b = json.loads(one.read_text()), json.loads(many.read_text())
    assert _without_timing(a) == _without_timing(b)
    assert b["jobs"] == 1 and b["command"] == a["command"]


# ----------------------------------------------------------------------------- faults

def _pids(client) -> dict:
    return client.run(os.getpid)


def test_a_worker_killed_during_a_piece_has_it_run_again_to_the_same_record(scheduler, tmp_path):
    whole = experiments.robustness(CHEAP, 2, "book", 1, progress=False)
    client = distributed.Client(scheduler)
    before = _pids(client)
    killed = []

    def kill_a_worker_in_the_middle_of_a_piece():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            busy = [w for w, tasks in client.processing().items() if tasks]
            if busy:
                time.sleep(0.5)  # well inside a piece of about 2 s
                os.kill(before[busy[0]], signal.SIGKILL)
                killed.append(busy[0])
            time.sleep(0.05)

    killer = threading.Thread(target=kill_a_worker_in_the_middle_of_a_piece)
    killer.start()
    try:
        with cluster.connect(scheduler) as executor:
            again = experiments.robustness(CHEAP, 2, "book", executor, progress=False,
                                           checkpoint_dir=tmp_path / "ck")
    finally:
        killer.join()
    assert killed, "no piece was seen running"
    client.wait_for_workers(2, timeout=60)  # the nanny started a new worker in its place
    assert set(_pids(client).values()) != set(before.values())
    client.close()
    assert _without_timing(_as_written(again)) == _without_timing(_as_written(whole))


def test_a_lost_scheduler_stops_the_run_in_one_line_and_resume_continues(tmp_path, monkeypatch, capsys):
    out = tmp_path / "r.json"
    ck = tmp_path / "r.checkpoint"
    # a cluster of its own, shut down once the first seed is saved
    local = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                     dashboard_address=":0", silence_logs=40)

    def lose_the_scheduler_after_the_first_seed():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (ck / "seed-0.npz").exists():
            time.sleep(0.05)
        local.close()

    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 3.0)
    closer = threading.Thread(target=lose_the_scheduler_after_the_first_seed)
    closer.start()
    cmd = ["robustness", CHEAP, "--seeds", "2", "--no-progress", "--out", str(out)]
    try:
        code = main(cmd + ["--cluster", local.scheduler_address])
    finally:
        closer.join()
    assert code == 2
    _one_line_error(capsys, "lost the Dask scheduler at", "--resume")
    assert not out.exists() and (ck / "seed-0.npz").exists()

    submitted = []
    results = cluster.DaskExecutor.results

    def counted(self, pieces, *a, **k):
        submitted.extend(p.key for p in pieces)
        return results(self, pieces, *a, **k)
    monkeypatch.setattr(cluster.DaskExecutor, "results", counted)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", silence_logs=40) as again:
        assert main(cmd + ["--cluster", again.scheduler_address, "--resume"]) == 0
    assert submitted == ["seed-1"]  # seed 0 came from the checkpoint
    whole = experiments.robustness(CHEAP, 2, "book", 1, progress=False)
    assert _without_timing(json.loads(out.read_text())) == _without_timing(_as_written(whole))
    assert not ck.exists()


CTRL_C = """\
import signal, sys
from tempnets.__main__ import _exit, main
# Python installs its Ctrl-C handler only where SIGINT is not ignored at start (a background job)
signal.signal(signal.SIGINT, signal.default_int_handler)
if __name__ == "__main__":
    _exit(main(sys.argv[1:]))
"""


def test_ctrl_c_on_a_cluster_keeps_the_seeds_finished(scheduler, tmp_path):
    script = tmp_path / "run.py"
    script.write_text(CTRL_C)
    out, ck = tmp_path / "r.json", tmp_path / "r.checkpoint"
    proc = subprocess.Popen([sys.executable, str(script), "robustness", CHEAP, "--seeds", "4",
                             "--no-progress", "--out", str(out), "--cluster", scheduler],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (ck / "seed-0.npz").exists() and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)  # the user's Ctrl-C, once a seed is saved
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.splitlines()[-1] == ("interrupted: nothing was written (an earlier record is unchanged); "
                                    f"the work so far is kept in {ck}: add --resume to continue")
    assert not out.exists() and (ck / "seed-0.npz").exists()


def test_a_worker_running_other_code_or_perturbing_weights_is_refused(tmp_path, monkeypatch, capsys):
    """A worker started with $TEMPNETS_PERTURB set would perturb every piece: its pieces are
    refused, so that the record describes the run that made it."""
    monkeypatch.setitem(tk.SIZES, "book", TINY)
    out = tmp_path / "r.json"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", silence_logs=40,
                                  env={"TEMPNETS_PERTURB": "1e-12"}) as perturbing:
        assert main(["reproduce", "tk-serial-recall", "--no-progress", "--out", str(out),
                     "--cluster", perturbing.scheduler_address]) == 2
    _one_line_error(capsys, "runs other code than this process (perturb 1e-12 there, 0.0 here)",
                    "a record comes from one code")
    assert not out.exists()


# ----------------------------------------------------------------------------- one-line refusals

def test_an_unreachable_address_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 2.0)
    out = tmp_path / "r.json"
    assert main(["robustness", CHEAP, "--seeds", "2", "--out", str(out), "--cluster",
                 "tcp://127.0.0.1:9"]) == 2
    _one_line_error(capsys, "--cluster tcp://127.0.0.1:9: no Dask scheduler answered within 2 s")
    assert not out.exists()


@pytest.mark.parametrize("argv, message", [
    (["reproduce", "gsm-reber-count", "--cluster", "local"],
     "--cluster: gsm-reber-count does not split into pieces a cluster can run; experiments that "
     "do: fw-flipflop, fw-parking, fw-linear-attention, tk-serial-recall, tk-long-delays, "
     "tk-search, tk-training-search, tk-readings, tk-reading-recall"),
    (["robustness", CHEAP, "--cluster", "my-laptop"],
     "--cluster must be a Dask scheduler's address such as tcp://host:8786, or 'local'"),
    (["robustness", CHEAP, "--cluster", "local", "--jobs", "2"], "--jobs 2 and --cluster: give one"),
    (["robustness", CHEAP, "--resume"], "--resume: only a robustness run with --cluster keeps"),
    (["reproduce", "tk-serial-recall", "--cluster", "local", "--perturb", "1e-12"],
     "--perturb and --cluster: a perturbed run runs with --jobs"),
])
def test_what_cannot_run_on_a_cluster_is_refused_in_one_line(argv, message, tmp_path, capsys):
    assert main(argv + ["--out", str(tmp_path / "r.json")]) == 2
    _one_line_error(capsys, message)
    assert list(tmp_path.iterdir()) == []


def test_without_dask_cluster_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed: ImportError
    assert main(["robustness", CHEAP, "--seeds", "2", "--out", str(tmp_path / "r.json"),
                 "--cluster", "local"]) == 2
    _one_line_error(capsys, "--cluster needs Dask distributed, which is not installed: "
                            "pip install 'tempnets[cluster]'")


def test_nothing_but_the_cluster_module_imports_dask():
    code = ("import sys, tempnets, tempnets.__main__, tempnets.book.experiments, tempnets.book.cluster, "
            "tempnets.chapters.temporal_kernels; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
