"""Recorded runs: every committed record re-derives (fast, never training) to the verdicts it
records; a record written by today's CLI is what the chapters read; errors name the file."""

import inspect
import json
import re
import time
from pathlib import Path

import pytest

from tempnets.book import experiments

from tempnets.training import srn_trainers as training

ROOT = Path(__file__).resolve().parents[1]
RECORDS = sorted(p for p in (ROOT / "book" / "paper_scale").glob("*.json")
                 if not p.name.endswith(".robustness.json"))
ROBUSTNESS = sorted((ROOT / "book" / "paper_scale").glob("*.robustness.json"))


def test_there_are_committed_records():
    assert RECORDS, "book/paper_scale/ holds no records"


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_every_committed_record_rederives_to_its_recorded_verdicts(path):
    """Today's code re-derives the same verdicts from the recorded data, without training.

    When a change of a chapter's claims changes a verdict on purpose, re-derive the record
    with ``python -m tempnets rederive book/paper_scale/<id>.json --update`` (data unchanged).
    """
    start = time.perf_counter()
    result, record = experiments.rederive(path)
    took = time.perf_counter() - start
    now = result.claims.rows()
    assert [r["verdict"] for r in now] == [r["verdict"] for r in record["claims"]], (
        f"{path.name}: re-derived verdicts differ from the recorded ones:\n" + "\n".join(
            f"  {r['statement'][:70]!r}: recorded {o['verdict']!r}, now {r['verdict']!r}"
            for r, o in zip(now, record["claims"]) if r["verdict"] != o["verdict"]))
    assert [r["holds"] for r in now] == [r["holds"] for r in record["claims"]]
    assert not result.claims.failures(), f"{path.name}: a claim is not as the chapter states"
    assert record["command"] == experiments.command_line(record["id"], record["scale"], record["seed"],
                                                         record["jobs"]), f"{path.name}: not today's command"
    assert "argv" not in record, f"{path.name}: an old record field (argv, a local path) is left"
    assert took < 20, f"re-deriving {path.name} took {took:.1f} s"


@pytest.mark.parametrize("path", ROBUSTNESS, ids=[p.name.split(".")[0] for p in ROBUSTNESS])
def test_every_robustness_record_rederives_to_its_counts(path):
    """A robustness record's counts follow from its seeds' claims, and (where its seeds' data
    were small enough to keep) today's code re-derives the same claims from the data."""
    record = json.loads(path.read_text())
    assert record["scale"] == "book" and record["seeds"] == len(record["runs"]) >= 10
    assert [r["seed"] for r in record["runs"]] == list(range(record["seeds"]))
    assert record["counts"] == experiments.outcome_counts([r["claims"] for r in record["runs"]])
    live = {c["statement"] for c in record["runs"][0]["claims"]}
    assert live <= set(record["counts"])
    if all(r["data"] is not None for r in record["runs"]) and not experiments.get(record["id"]).needs:
        again = experiments.rederive_robustness(path)
        assert again["counts"] == record["counts"], f"{path.name}: re-derived counts differ; " \
            f"python -m tempnets rederive {path.relative_to(ROOT)} --update"


def test_every_short_experiment_has_a_robustness_record():
    """Every experiment whose book-scale run takes under a minute records 10 seeds."""
    long = {"tk-serial-recall", "tk-long-delays", "tk-search",  # several minutes each at book scale
            "tk-reading-recall"}  # (tk-serial-recall's book scale under a reading)
    have = {p.name.split(".robustness")[0] for p in ROBUSTNESS}
    missing = {e.id for e in experiments.EXPERIMENTS} - long - have
    assert not missing, f"no robustness record for {sorted(missing)}"


def test_every_registered_runner_can_rederive():
    """The runner convention (CONTRIBUTING.md): ``trained=None`` re-derives from data."""
    for e in experiments.EXPERIMENTS:
        params = inspect.signature(e.runner()).parameters
        assert list(params)[:4] == ["scale", "seed", "jobs", "progress"], e.id
        assert "trained" in params and params["trained"].default is None, e.id
        for keyword, other in e.needs:
            assert keyword in params, (e.id, keyword)
            experiments.get(other)


# ----------------------------------------------------------------------------- errors

def _record(tmp_path, **changes):
    src = json.loads((ROOT / "book" / "paper_scale" / "gsm-reber-count.json").read_text())
    src.update(changes)
    path = tmp_path / f"{src.get('id', 'x')}.json"
    path.write_text(json.dumps(src))
    return path


@pytest.mark.parametrize("text, message", [
    ("", "the file is empty"),
    ('{"id": "gsm-reber-count", "scale": "pap', "invalid JSON"),
    ("[1, 2]", "a JSON list"),
    ('{"id": "x"}', "missing claims, claims_title, scale, seed, wall_time_s"),
    ('{"id": "x", "scale": "book", "seed": 0, "wall_time_s": 1, "claims_title": "t", "claims": [{}]}',
     "claims cannot be read"),
])
def test_reading_a_broken_record_names_the_file(tmp_path, text, message):
    path = tmp_path / "broken.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=re.escape(str(path))) as info:
        experiments.read_record(path)
    assert message in str(info.value)


def test_rederive_errors_name_the_file_and_what_is_missing(tmp_path):
    unknown = _record(tmp_path, id="no-such-experiment")
    with pytest.raises(ValueError, match=f"{re.escape(str(unknown))}: unknown experiment id"):
        experiments.rederive(unknown)
    no_strings = _record(tmp_path, data={"by_length": {}})
    with pytest.raises(ValueError, match=f"{re.escape(str(no_strings))}.*missing strings"):
        experiments.rederive(no_strings)
    no_data = _record(tmp_path)
    rec = json.loads(no_data.read_text())
    del rec["data"]
    no_data.write_text(json.dumps(rec))
    with pytest.raises(ValueError, match="has no 'data'"):
        experiments.rederive(no_data)


def test_rederive_finds_the_record_an_experiment_compares_with(tmp_path):
    src = ROOT / "book" / "paper_scale" / "pa-8.4.json"
    alone = tmp_path / "pa-8.4.json"
    alone.write_text(src.read_text())
    with pytest.raises(ValueError, match=r"needs the record of pa-8.1 \(baseline=\);.*pa-8.1.json "
                                         "does not exist"):
        experiments.rederive(alone)


def test_rederive_never_trains(tmp_path, monkeypatch):
    """A runner that would train (its record lacks what it needs) is an error naming the file."""
    from tempnets.book import claims

    def runner(scale, seed, jobs, progress, trained=None):
        training.train_online(None, 10)  # what a runner does when `trained` is not enough
        return experiments.Result(claims.ClaimsTable("t"))

    fake = experiments.Experiment("fake", "trains anyway", "x:y")
    monkeypatch.setattr(experiments, "EXPERIMENTS", experiments.EXPERIMENTS + (fake,))
    monkeypatch.setattr(experiments.Experiment, "runner", lambda self: runner)
    path = _record(tmp_path, id="fake")
    with pytest.raises(ValueError, match=f"{re.escape(str(path))}: train_online was called while "
                                         "re-deriving"):
        experiments.rederive(path)
    with training.no_training("testing"), pytest.raises(training.TrainingForbidden):
        training.train_epochs([[0, 1]], n_epochs=1)
    training.train_epochs([[0, 1]], n_epochs=1, progress=False)  # allowed again outside


# ----------------------------------------------------------------------------- chapters

def _record_reading_cells():
    """(notebook, cell source, record keys the cell reads) of every cell that reads records."""
    out = []
    for nb in sorted((ROOT / "book").glob("*.ipynb")):
        for cell in json.loads(nb.read_text())["cells"]:
            src = "".join(cell["source"])
            if cell["cell_type"] != "code" or not re.search(r"experiments\.(rederive|read_record)", src):
                continue
            names = re.findall(r"(\w+)\s*=\s*experiments\.read_record\(", src)
            names += re.findall(r"\w+\s*,\s*(\w+)\s*=\s*experiments\.rederive\(", src)
            keys = {k for n in names for k in re.findall(rf"\b{n}\[[\"'](\w+)[\"']\]", src)}
            out.append((nb.name, src, keys))
    return out


def test_a_record_written_by_todays_cli_is_read_by_every_chapter_cell_that_reads_records(
        tmp_path, capsys):
    from tempnets.__main__ import main

    cells = _record_reading_cells()
    assert len(cells) >= 7, "the chapters' record-reading cells were not found"
    out = tmp_path / "gsm-reber-count.json"
    assert main(["reproduce", "gsm-reber-count", "--out", str(out), "--no-progress"]) == 0
    written = experiments.read_record(out)
    for nb, src, keys in cells:
        missing = keys - set(written)
        assert not missing, f"{nb}: a cell reads {sorted(missing)}, which today's CLI does not write"
    assert {"command", "commit", "wall_time_s", "data"} <= set(written)
    assert "argv" not in written and str(tmp_path) not in written["command"]
    result, _ = experiments.rederive(out)
    assert result.claims.rows() == written["claims"]
    for e in experiments.EXPERIMENTS:  # every committed record has the same fields
        path = ROOT / "book" / "paper_scale" / f"{e.id}.json"
        if path.exists():
            assert set(experiments.RECORD_FIELDS) <= set(experiments.read_record(path)), path.name


@pytest.mark.parametrize("experiment", experiments.EXPERIMENTS, ids=lambda e: e.id)
def test_a_runner_given_incomplete_data_says_what_is_missing_without_training(experiment):
    runner = experiment.runner()
    with training.no_training("testing"), pytest.raises(ValueError, match="trained="):
        runner(scale="paper", seed=0, jobs=1, progress=False, trained={})


def test_numpy_integer_seeds_and_jobs_are_accepted():
    import numpy as np

    from tempnets.chapters import periodically_attentive_units as pa

    record = experiments.reproduce("gsm-reber-count", seed=np.int64(3), jobs=np.int64(1),
                                   progress=False)
    assert record["seed"] == 3 and type(record["seed"]) is int and type(record["jobs"]) is int
    assert pa._seed(np.int64(3), "test") == pa._seed(3, "test")
    import numba

    old = numba.get_num_threads()
    with experiments.numba_threads(np.int64(1)):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == old
    with pytest.raises(ValueError, match="jobs must be an integer >= 1, got 0"):
        with experiments.numba_threads(0):
            pass


# ----------------------------------------------------------------------------- finding records

def test_a_chapter_finds_its_records_from_any_working_directory(tmp_path, monkeypatch):
    """Colab runs a chapter in an empty folder: ``paper_scale/<id>.json`` must still resolve."""
    monkeypatch.chdir(tmp_path)
    assert experiments.find_record("paper_scale/pa-8.4.json") == ROOT / "book" / "paper_scale" / "pa-8.4.json"
    result, record = experiments.rederive("paper_scale/pa-8.4.json")  # needs pa-8.1, found alike
    assert record["id"] == "pa-8.4" and not result.claims.failures()
    assert experiments.find_record("elsewhere/pa-8.4.json") == Path("elsewhere/pa-8.4.json")
    with pytest.raises(FileNotFoundError, match="no-such-record"):
        experiments.read_record("paper_scale/no-such-record.json")


def test_the_package_ships_every_committed_record(tmp_path):
    """A wheel (what Colab's ``pip install`` builds) holds book/paper_scale/ as tempnets/paper_scale/."""
    import subprocess
    import sys
    import zipfile

    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(tmp_path), str(ROOT)], check=True, cwd=tmp_path)
    (wheel,) = tmp_path.glob("tempnets-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {f"tempnets/paper_scale/{p.name}" for p in RECORDS} <= names
    assert "tempnets/chapters/__init__.py" in names


def test_describe_record_gives_the_command_and_the_note_when_there_is_one():
    record = {"command": "python -m tempnets reproduce x --scale paper --seed 0 --jobs 2",
              "commit": "abc1234", "wall_time_s": 90.0, "jobs": 2}
    assert experiments.describe_record(record) == (
        "recorded run: python -m tempnets reproduce x --scale paper --seed 0 --jobs 2\n"
        "  (tempnets commit abc1234, 1.5 min on 2 thread(s))")
    assert experiments.describe_record({**record, "note": "paused for 16 min"}).endswith(
        "thread(s))\nnote: paused for 16 min")
    # a long note is wrapped (no sideways scrolling on the page) and loses no word
    long = " ".join(f"word{i}" for i in range(60))
    text = experiments.describe_record({**record, "note": long})
    assert max(len(line) for line in text.splitlines()) <= 100
    assert text.split("note: ", 1)[1].split() == long.split()


def _refuse_constant(name):
    raise ValueError(f"{name} is not standard JSON (write null for a missing value)")


@pytest.mark.parametrize("path", RECORDS + ROBUSTNESS, ids=[p.name for p in RECORDS + ROBUSTNESS])
def test_every_committed_record_is_standard_json(path):
    """Issue 21 item 13: no bare NaN or Infinity, which standard JSON parsers refuse."""
    json.loads(path.read_text(encoding="utf-8"), parse_constant=_refuse_constant)


def test_records_are_written_as_standard_json(tmp_path):
    """NaN (a missing value) becomes null, an infinity "inf"/"-inf" (float() reads it back)."""
    import numpy as np

    path = tmp_path / "r.json"
    experiments.write_record({"a": float("nan"), "b": [np.inf, -np.inf, np.float64(1.5)],
                              "c": np.array([np.nan, 2.0]), "_table": object()}, path)
    back = json.loads(path.read_text(), parse_constant=_refuse_constant)
    assert back == {"a": None, "b": ["inf", "-inf", 1.5], "c": [None, 2.0]}
    assert [float(v) for v in back["b"]] == [np.inf, -np.inf, 1.5]


def test_the_cluster_pages_costs_add_up_the_paper_scale_records():
    """Issue 36: the cost of a paper-scale sweep, computed from the records (book/cluster.md)."""
    from tempnets.book import cluster

    costs = cluster.seed_costs(10)
    records = {p.stem: experiments.read_record(p) for p in RECORDS}
    paper = {name: rec for name, rec in records.items() if rec["scale"] == "paper"}
    assert {r["id"] for r in costs["rows"]} == set(paper)
    for r in costs["rows"]:
        rec = paper[r["id"]]
        assert r["one_core"] == pytest.approx((rec["wall_time_s"] / 60, rec["wall_time_s"] * rec["jobs"] / 60))
    low = sum(r["one_core"][0] for r in costs["rows"]) / 60
    assert costs["seed_core_hours"][0] == pytest.approx(low)
    assert costs["sweep_core_hours"] == pytest.approx(tuple(10 * h for h in costs["seed_core_hours"]))
    with pytest.raises(ValueError, match="seeds must be an integer in \\[1, 1000000\\]"):
        cluster.seed_costs(0)
