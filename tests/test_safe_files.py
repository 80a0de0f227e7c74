"""Issue 31: nothing a user types deletes their files, runs code from a file, or leaves a record
that misdescribes its run (items 1, 3, 8, 9, 10 and "every command that writes files says what
it will write where and refuses to overwrite what it did not create").

Each test fails on the code before the fix (83d91ed): the directory given to --checkpoint was
deleted, checkpoints were pickles, $TEMPNETS_PERTURB perturbed runs silently, robustness records
were barely checked and ``rederive --update`` rewrote the packaged record.
"""

import dataclasses
import json
import os
import pickle
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

from tempnets.training import checkpoint as ckpt
from tempnets.book import claims, experiments
from tempnets.training import optim
from tempnets.models import srn
from tempnets.__main__ import main
from tempnets.chapters import temporal_kernels as tk
from tempnets.training.checkpoint import IDENTITY, CheckpointError, decode, encode, open_checkpoint, read_value

ROOT = Path(__file__).resolve().parents[1]
PACKAGED = ROOT / "book" / "paper_scale"
TINY = tk.Sizes(3, 2, (1, 3), 6, 8, 40, 1e-2, 2, 10, (1, 3, 50), 20)
"""tk-serial-recall made small (as in test_checkpoint): a second or two."""


def _one_line_error(capsys, *parts):
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    for part in parts:
        assert part in err, err
    return err


def _fake(monkeypatch, runner, id_="fake"):
    fake = experiments.Experiment(id_, "a fake experiment", "x:y")
    monkeypatch.setattr(experiments, "EXPERIMENTS", experiments.EXPERIMENTS + (fake,))
    monkeypatch.setattr(experiments.Experiment, "runner", lambda self: runner)


def _table(v=1.0):
    t = claims.ClaimsTable("t")
    t.add("v is at least 1", "s", None, v, claims.at_least(1.0))
    return t


# ----------------------------------------------------------------------------- item 1: never delete the user's files

@pytest.mark.parametrize("where", ["my_project", "."])
def test_a_directory_of_the_users_files_is_refused_and_kept(where, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(tk.SIZES, "book", TINY)
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / where
    folder.mkdir(exist_ok=True)
    (folder / "thesis.tex").write_text("years of work")
    (folder / "data.npz").write_bytes(b"not ours")
    code = main(["reproduce", "tk-serial-recall", "--no-progress", "--out", str(tmp_path / "r.json"),
                 "--checkpoint", where])
    assert code == 2
    _one_line_error(capsys, "not empty and not a tempnets checkpoint", "'thesis.tex'",
                    "give --checkpoint a new or empty directory", "--resume")
    assert (folder / "thesis.tex").read_text() == "years of work"
    assert (folder / "data.npz").read_bytes() == b"not ours"
    assert not (tmp_path / "r.json").exists()


def test_a_finished_run_removes_only_its_own_files(tmp_path, monkeypatch, capsys):
    """An empty directory the user made is left (emptied of our files only); one the run
    made is removed; a file the user put in a checkpoint during the run stays, with its folder."""
    monkeypatch.setitem(tk.SIZES, "book", TINY)
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    assert main(["reproduce", "tk-serial-recall", "--no-progress", "--out", str(tmp_path / "a.json"),
                 "--checkpoint", str(theirs)]) in (0, 1)
    assert theirs.is_dir() and list(theirs.iterdir()) == []
    assert main(["reproduce", "tk-serial-recall", "--no-progress", "--out", str(tmp_path / "b.json")]) in (0, 1)
    assert not (tmp_path / "b.checkpoint").exists()

    ck = open_checkpoint(tmp_path / "made", {"run": 1})
    ck.save("x", [1.0, 2.0])
    (tmp_path / "made" / "notes.txt").write_text("mine")
    ck.remove()
    assert [p.name for p in (tmp_path / "made").iterdir()] == ["notes.txt"]


def test_a_checkpoint_that_saved_nothing_is_reused_but_one_with_work_is_kept(tmp_path):
    ident = {"run": 1}
    first = open_checkpoint(tmp_path / "ck", ident)
    again = open_checkpoint(tmp_path / "ck", ident)  # nothing saved: a fresh start reuses it
    assert again.created and first.created
    again.save("x", 1)
    with pytest.raises(ValueError, match="interrupted run"):
        open_checkpoint(tmp_path / "ck", ident)
    assert open_checkpoint(tmp_path / "ck", ident, resume=True).load("x") == 1


# ----------------------------------------------------------------------------- item 3: no pickles

def _same(a, b, where="value"):
    """Equal in type, dtype and bits, all the way down."""
    assert type(a) is type(b), f"{where}: {type(a)} vs {type(b)}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), where
    elif isinstance(a, np.generic):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), where
    elif isinstance(a, float):
        assert np.float64(a).tobytes() == np.float64(b).tobytes(), where
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            _same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    elif dataclasses.is_dataclass(a):
        _same(dataclasses.asdict(a), dataclasses.asdict(b), where)
        assert a == b
    else:
        assert a == b, where


def test_every_kind_of_value_comes_back_with_the_same_types_and_bits(tmp_path):
    gen = np.random.default_rng(3)
    weird = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, 1.0 + 2**-52])
    value = {
        "arrays": [weird, weird.astype(np.float32), np.arange(6, dtype=np.int8).reshape(2, 3),
                   np.array([True, False]), np.array([1 + 2j]), np.zeros((0, 3)),
                   np.asfortranarray(gen.standard_normal((3, 4)))],
        "scalars": (np.float64(0.1), np.float32(-0.0), np.int64(-7), np.bool_(True), np.uint8(255)),
        "np floats": [np.float64(x) for x in gen.standard_normal(50)],  # a loss history
        "f32 floats": [np.float32(x) for x in gen.standard_normal(9)],
        "floats": [0.1, -0.0, float("nan"), float("inf")] * 5,
        "mixed": [1, 2.5, "x", None, True, np.float64(2.0), [], {}, ()],
        "tuples": ((1, (2, 3)), [4, (5,)]),
        "int keys": {1: "a", (2, 3): "b"},
        "$tag-like": {"$array": "a0"},
        "rng": np.random.default_rng(5).bit_generator.state,  # 128-bit integers
        "big": 2**100,
        "history": optim.TrainHistory([np.float64(1.5)] * 10, [2.0], [4], [np.float64(0.25)], 3.5),
        "config": optim.OptimConfig(learning_rate=3e-3, final_rate=3e-4),
        "srn": srn.init_params(3, 4, 3, rng=1),
        "sizes": dataclasses.asdict(TINY),  # as the chapters save their sizes
    }
    made_from = {"sizes": dataclasses.asdict(TINY), "seed": 0}
    ck = open_checkpoint(tmp_path / "ck", {"run": 1})
    ck.save("v", value, made_from)
    _same(ck.load("v", made_from), value)
    arrays = {}
    _same(decode(json.loads(json.dumps(encode(value, arrays))), arrays), value)


def test_every_type_a_checkpoint_may_hold_is_a_dataclass_or_namedtuple_of_that_name():
    for name in ckpt.SAVABLE:
        cls = ckpt._savable_type(name)
        assert dataclasses.is_dataclass(cls) or hasattr(cls, "_fields"), name
    assert not [n for n in ckpt.SAVABLE if ".chapters." in n]  # the layers: no chapter imported


def test_a_resumed_training_state_is_exactly_the_saved_one(tmp_path):
    """optim.train's state: weights and Adam's moments in float32, the rng's 128-bit state."""
    params = {"W": np.random.default_rng(0).standard_normal((3, 3)).astype(np.float32)}
    gen = np.random.default_rng(9)
    gen.standard_normal(7)
    state = {"step": 14, "params": params, "adam": optim.adam_init(params), "rng": gen.bit_generator.state,
             "history": dataclasses.asdict(optim.TrainHistory([np.float32(0.5)] * 14, [0.25] * 14))}
    ck = open_checkpoint(tmp_path / "ck", {"run": 1})
    ck.save("training", state, {"n_steps": 30})
    back = ck.load("training", {"n_steps": 30})
    _same(back, state)
    assert [p.name for p in (tmp_path / "ck").glob("training.*")] == ["training.npz"]
    again = np.random.default_rng(0)
    again.bit_generator.state = back["rng"]
    assert again.standard_normal() == gen.standard_normal()


class _Bomb:
    """A pickle that, when loaded, creates a file (as a crafted one could run any command)."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_crafted_pickle_in_a_checkpoint_is_refused_never_loaded(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(tk.SIZES, "book", TINY)
    out, ck = tmp_path / "r.json", tmp_path / "r.checkpoint"
    open_checkpoint(ck, experiments.checkpoint_identity("tk-serial-recall", "book", 0, 0.0))
    marker = tmp_path / "the-pickle-ran"
    (ck / "RNN-0.pkl").write_bytes(pickle.dumps({"made_from": None, "value": _Bomb(marker)}))
    for resume in ([], ["--resume"]):
        assert main(["reproduce", "tk-serial-recall", "--no-progress", "--out", str(out), *resume]) == 2
        _one_line_error(capsys, "RNN-0.pkl", "never loaded (a pickle can run code)")
    assert not marker.exists()
    assert (ck / "RNN-0.pkl").exists()  # and not deleted either


def test_a_value_file_with_a_pickled_array_or_a_foreign_type_is_refused(tmp_path):
    import io

    ck = open_checkpoint(tmp_path / "ck", {"run": 1})
    marker = tmp_path / "the-pickle-ran"
    doc = np.frombuffer(json.dumps({"made_from": None, "value": {"$array": "a0"}}).encode(), np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, json=doc, a0=np.array([_Bomb(marker)], dtype=object))  # numpy pickles it
    (tmp_path / "ck" / "bomb.npz").write_bytes(buffer.getvalue())
    with pytest.raises(CheckpointError, match="bomb.npz cannot be read"):
        ck.load("bomb")
    assert not marker.exists()
    for name in ("os:system", "subprocess:Popen", "tempnets.training.checkpoint:Checkpoint"):
        arrays = {}
        node = {"$object": [name, {"directory": "x"}]}
        with pytest.raises(ValueError, match=f"names the type '{name}', not one a checkpoint may hold"):
            decode(node, arrays)
    with pytest.raises(TypeError, match="cannot save a tempnets.training.checkpoint:Checkpoint in a checkpoint"):
        ck.save("x", ck)
    with pytest.raises(TypeError, match="array of Python objects"):
        ck.save("x", np.array([None]))
    assert ck.keys() == ["bomb"]  # nothing written by the refused saves


def test_the_identity_is_checked_before_any_value_is_read(tmp_path, monkeypatch):
    where = tmp_path / "ck"
    open_checkpoint(where, {"seed": 0}).save("x", 1)
    read = []
    monkeypatch.setattr(ckpt, "read_value", lambda path: read.append(path))
    with pytest.raises(ValueError, match=r"checkpoint of another run or code: seed 0 \(this run: 1\)"):
        open_checkpoint(where, {"seed": 1}, resume=True)
    assert read == []


# ----------------------------------------------------------------------------- item 8: $TEMPNETS_PERTURB

def _records_initial_weights(seen):
    def runner(scale, seed, jobs, progress):
        seen.append(srn.init_params(3, 4, 3, rng=5))
        return experiments.Result(_table())
    return runner


def test_a_perturbation_left_in_the_environment_is_refused(tmp_path, monkeypatch, capsys):
    seen = []
    _fake(monkeypatch, _records_initial_weights(seen))
    out = tmp_path / "p.json"
    monkeypatch.setenv("TEMPNETS_PERTURB", "0.3")
    assert main(["reproduce", "fake", "--out", str(out)]) == 2
    _one_line_error(capsys, "$TEMPNETS_PERTURB=0.3 is set, but this run asks for perturbation 0.0",
                    "a record must describe the run that made it")
    assert not out.exists() and seen == []
    with pytest.raises(ValueError, match=r"\$TEMPNETS_PERTURB=0.3 is set"):
        experiments.reproduce("fake", seed=0)
    # the same value on the command line is the run the record describes
    assert main(["reproduce", "fake", "--perturb", "0.3", "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["perturb"] == 0.3 and record["command"].endswith("--perturb 0.3")
    monkeypatch.setenv("TEMPNETS_PERTURB", "garbage")
    assert main(["reproduce", "fake", "--out", str(out)]) == 2
    _one_line_error(capsys, "$TEMPNETS_PERTURB must be a number in [0, 1), got 'garbage'")
    assert main(["robustness", "fake", "--seeds", "2", "--out", str(tmp_path / "r.json")]) == 2
    _one_line_error(capsys, "$TEMPNETS_PERTURB must be a number")


@pytest.mark.parametrize("eps", ["1e-17", "1e-400", "2.2e-16"])
def test_a_perturbation_too_small_to_change_a_float64_is_refused(eps, tmp_path, monkeypatch, capsys):
    _fake(monkeypatch, _records_initial_weights([]))
    with pytest.raises(SystemExit) as info:
        main(["reproduce", "fake", "--perturb", eps, "--out", str(tmp_path / "p.json")])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert f"'{eps}' is too small to change a float64 weight: give 0 or at least 2**-52 = 2.22e-16" in err
    if eps == "1e-17":
        with pytest.raises(ValueError, match=r"perturb 1e-17 is too small .* at least 2\*\*-52"):
            experiments.reproduce("fake", perturb=1e-17)


def test_the_smallest_perturbation_accepted_changes_the_weights(tmp_path, monkeypatch):
    from tempnets._numerics.random import perturbing

    seen = []
    _fake(monkeypatch, _records_initial_weights(seen))
    assert main(["reproduce", "fake", "--perturb", repr(2.0**-52), "--out", str(tmp_path / "p.json")]) == 0
    plain = srn.init_params(3, 4, 3, rng=5)
    changed = sum(int(np.sum(a != b)) for a, b in zip(seen[0], plain))
    assert changed > 0
    with pytest.raises(SystemExit):
        main(["reproduce", "fake", "--perturb", repr(2.0**-54), "--out", str(tmp_path / "q.json")])
    assert not (tmp_path / "q.json").exists()
    with perturbing(2.0**-54):  # below the bound: leaves most weights as they were
        tiny = srn.init_params(3, 4, 3, rng=5)
    assert sum(int(np.sum(a != b)) for a, b in zip(tiny, plain)) < changed


# ----------------------------------------------------------------------------- item 9: records checked whole

def _robustness_record(tmp_path, name="x.robustness.json", **changes):
    record = json.loads((PACKAGED / "gsm-reber-count.robustness.json").read_text())
    record.update(changes)
    path = tmp_path / name
    path.write_text(json.dumps(record))
    return path, record


@pytest.mark.parametrize("change, message", [
    ({"scale": "huge"}, "scale must be one of book, paper, got 'huge'"),
    ({"seeds": -1}, "seeds must be an integer >= 1, got -1"),
    ({"runs": []}, "runs must be a list of 10 runs (one per seed), got []"),
    ({"runs": 5}, "runs must be a list of 10 runs (one per seed), got 5"),
    ({"runs": ["x"] * 10}, "runs[0] must be an object with seed, claims and data, got 'x'"),
    ({"id": "no-such"}, "unknown experiment id 'no-such'"),
    ({"counts": None}, "counts must be an object, got None"),
])
def test_a_broken_robustness_record_is_one_line_naming_the_field(change, message, tmp_path, capsys):
    path, _ = _robustness_record(tmp_path, **change)
    assert main(["rederive", str(path), "--update"]) == 2
    _one_line_error(capsys, str(path), message)
    with pytest.raises(ValueError, match=re.escape(message)):
        experiments.read_robustness_record(path)


def test_robustness_runs_are_checked_seed_by_seed(tmp_path, capsys):
    _, record = _robustness_record(tmp_path)
    runs = record["runs"]
    for i, (field, value, message) in enumerate([
            ("seed", -1, "runs[0].seed must be 0 (seeds 0 .. 9 in order), got -1"),
            ("claims", "x", "runs[0].claims must be a list of claim rows"),
            ("data", [1], "runs[0].data must be an object (or null), got [1]")]):
        path, _ = _robustness_record(tmp_path, f"{i}.robustness.json",
                                     runs=[{**runs[0], field: value}] + runs[1:])
        assert main(["rederive", str(path)]) == 2
        _one_line_error(capsys, message)
    path, _ = _robustness_record(tmp_path, "big.robustness.json",
                                 runs=[{**runs[0], "data": {**runs[0]["data"], "n_params": 10**400}}] + runs[1:])
    assert main(["rederive", str(path)]) == 2
    _one_line_error(capsys, "integers in a record are below 2**63")


def test_a_record_whose_data_is_null_is_refused(tmp_path, capsys):
    record = json.loads((PACKAGED / "gsm-reber-count.json").read_text())
    path = tmp_path / "gsm-reber-count.json"
    path.write_text(json.dumps({**record, "data": None}))
    before = path.read_bytes()
    assert main(["rederive", str(path), "--update"]) == 2
    _one_line_error(capsys, "data must be an object (what the run computed), got None")
    assert path.read_bytes() == before
    path.write_text(json.dumps({**record, "data": {"n": 10**400}}))
    assert main(["rederive", str(path)]) == 2
    _one_line_error(capsys, "integers in a record are below 2**63")


@pytest.mark.parametrize("name", ["gsm-reber-count.json", "gsm-reber-count.robustness.json"])
def test_rederive_update_never_writes_the_packaged_record_unless_given_its_path(name, tmp_path, monkeypatch,
                                                                              capsys):
    packaged = PACKAGED / name
    before = (packaged.read_bytes(), packaged.stat().st_mtime_ns)
    monkeypatch.chdir(tmp_path)  # no paper_scale/ here
    assert main(["rederive", f"paper_scale/{name}", "--update"]) == 2
    _one_line_error(capsys, f"paper_scale/{name}: no such file (from the directory {tmp_path})")
    assert (packaged.read_bytes(), packaged.stat().st_mtime_ns) == before
    # a copy of it here is the one updated
    (tmp_path / "paper_scale").mkdir()
    shutil.copy(packaged, tmp_path / "paper_scale" / name)
    assert main(["rederive", f"paper_scale/{name}", "--update"]) == 0
    assert f"of paper_scale/{name} updated" in capsys.readouterr().out
    assert (packaged.read_bytes(), packaged.stat().st_mtime_ns) == before


def test_deeply_nested_json_is_one_line(tmp_path, capsys):
    for name in ("deep.json", "deep.robustness.json"):
        path = tmp_path / name
        path.write_text("[" * 100_000 + "]" * 100_000)
        assert main(["rederive", str(path)]) == 2
        _one_line_error(capsys, str(path), "nested too deeply")


# ----------------------------------------------------------------------------- item 10: one line, never a traceback

def _resume(tmp_path, monkeypatch):
    """A checkpoint of tk-serial-recall (book, seed 0) at tmp_path/r.checkpoint, and a
    function running ``reproduce --resume`` on it (or afresh)."""
    monkeypatch.setitem(tk.SIZES, "book", TINY)
    ck = open_checkpoint(tmp_path / "r.checkpoint",
                         experiments.checkpoint_identity("tk-serial-recall", "book", 0, 0.0))

    def run(*extra):
        return main(["reproduce", "tk-serial-recall", "--no-progress", "--out", str(tmp_path / "r.json"),
                     *extra])
    return ck, run


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04trunc", b"\x89PNG\r\n\x1a\n....", "list", "truncated",
                                     "directory"])
def test_a_damaged_or_foreign_value_is_one_line(content, tmp_path, monkeypatch, capsys):
    ck, run = _resume(tmp_path, monkeypatch)
    path = tmp_path / "r.checkpoint" / "RNN-0.npz"
    if content == "list":
        ck.save("RNN-0", None)
        doc = np.frombuffer(b"[1, 2]", np.uint8)
        np.savez(path, json=doc)
    elif content == "truncated":
        ck.save("RNN-0", {"w": np.ones(1000)})
        path.write_bytes(path.read_bytes()[:3000])
    elif content == "directory":
        path.mkdir()
    else:
        path.write_bytes(content)
    assert run("--resume") == 2
    _one_line_error(capsys, "RNN-0.npz")
    assert path.exists()


@pytest.mark.parametrize("content", [b"[1, 2]", b"null", b'"a string"', b"{", b"", b"\xff\xfe",
                                     b'{"format": "tempnets checkpoint 2"}', "huge", "directory"])
def test_a_broken_identity_is_one_line_and_never_read_whole(content, tmp_path, monkeypatch, capsys):
    _, run = _resume(tmp_path, monkeypatch)
    marker = tmp_path / "r.checkpoint" / IDENTITY
    marker.unlink()
    if content == "huge":  # 3 GB, sparse: reading it whole would take the machine's memory
        with open(marker, "wb") as fh:
            fh.truncate(3 * 10**9)
    elif content == "directory":
        marker.mkdir()
    else:
        marker.write_bytes(content)
    for extra in (["--resume"], []):
        assert run(*extra) == 2
        _one_line_error(capsys, "identity")
    assert os.path.lexists(marker)


def test_a_read_only_checkpoint_directory_is_one_line(tmp_path, monkeypatch, capsys):
    _, run = _resume(tmp_path, monkeypatch)
    shutil.rmtree(tmp_path / "r.checkpoint")
    locked = tmp_path / "r.checkpoint"
    locked.mkdir()
    locked.chmod(0o555)
    if os.geteuid() == 0:  # root writes anywhere: refuse as the kernel would refuse a user
        real_mkstemp = tempfile.mkstemp

        def mkstemp(*args, dir=None, **kwargs):
            if dir is not None and Path(dir) == locked:
                raise PermissionError(13, "Permission denied")
            return real_mkstemp(*args, dir=dir, **kwargs)
        monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    try:
        assert run() == 2
        _one_line_error(capsys, "cannot write in", "Permission denied")
    finally:
        locked.chmod(0o755)


def test_a_checkpoint_directory_removed_during_the_run_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(tk.SIZES, "book", TINY)
    save = ckpt.Checkpoint.save

    def save_then_vanish(self, key, value, made_from=None):
        save(self, key, value, made_from)
        shutil.rmtree(self.directory)  # (a user's cleanup script, say)
    monkeypatch.setattr(ckpt.Checkpoint, "save", save_then_vanish)
    assert main(["reproduce", "tk-serial-recall", "--no-progress", "--checkpoint-every", "0",
                 "--out", str(tmp_path / "r.json")]) == 2
    _one_line_error(capsys, "r.checkpoint", "cannot save", "No such file or directory")
    assert not (tmp_path / "r.json").exists()


def test_an_empty_checkpoint_name_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "keep.txt").write_text("x")
    for experiment in ("tk-serial-recall", "gsm-reber-count"):
        assert main(["reproduce", experiment, "--checkpoint", "", "--out", "r.json"]) == 2
        _one_line_error(capsys, "--checkpoint must name a directory, got ''")
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_the_out_directory_vanishing_during_robustness_is_one_line(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "out"
    folder.mkdir()

    def runner(scale, seed, jobs, progress, trained=None):
        shutil.rmtree(folder, ignore_errors=True)
        return experiments.Result(_table(), {"v": 1.0})
    _fake(monkeypatch, runner)
    assert main(["robustness", "fake", "--seeds", "2", "--no-progress", "--out", str(folder / "r.json")]) == 2
    _one_line_error(capsys, "the runs finished but the robustness record could not be written to")


# ----------------------------------------------------------------------------- writing: say where, never overwrite others' files

def test_reproduce_says_where_it_writes_before_running(tmp_path, monkeypatch, capsys):
    out = tmp_path / "r.json"
    monkeypatch.setitem(tk.SIZES, "book", TINY)
    assert main(["reproduce", "tk-serial-recall", "--no-progress", "--out", str(out)]) in (0, 1)
    assert capsys.readouterr().out.startswith(
        f"writing the record to {out} (checkpoint in {tmp_path / 'r.checkpoint'}, removed once the "
        "record is written)\n")
    said = []

    def runner(scale, seed, jobs, progress, trained=None):
        said.append(capsys.readouterr().out)
        return experiments.Result(_table(), {"v": 1.0})
    _fake(monkeypatch, runner)
    assert main(["reproduce", "fake", "--out", str(out)]) == 0
    assert said == [f"writing the record to {out}\n"]
    capsys.readouterr()
    assert main(["robustness", "fake", "--seeds", "1", "--no-progress", "--out", str(tmp_path / "b.json")]) == 0
    assert said[1] == f"writing the robustness record to {tmp_path / 'b.json'}\n"


@pytest.mark.parametrize("command", ["reproduce", "robustness"])
def test_out_never_overwrites_a_file_that_is_not_a_record(command, tmp_path, monkeypatch, capsys):
    ran = []

    def runner(scale, seed, jobs, progress, trained=None):
        ran.append(seed)
        return experiments.Result(_table(), {"v": 1.0})
    _fake(monkeypatch, runner)
    out = tmp_path / "notes.json"
    extra = ["--seeds", "2", "--no-progress"] if command == "robustness" else []
    for mine in ('{"my": "notes"}', "not json at all", "[1, 2]"):
        out.write_text(mine)
        assert main([command, "fake", "--out", str(out), *extra]) == 2
        _one_line_error(capsys, f"--out '{out}' exists and is not a", "never overwrites a file it did not write")
        assert out.read_text() == mine and ran == []
    # a record of the same command is replaced (re-running to the same --out)
    out.unlink()
    assert main([command, "fake", "--out", str(out), "--seed" if command == "reproduce" else "--seeds", "3"]) == 0
    first = out.read_text()
    assert main([command, "fake", "--out", str(out), *extra]) == 0
    assert out.read_text() != first
    other = "robustness" if command == "reproduce" else "reproduce"
    assert main([other, "fake", "--out", str(out), *(["--seeds", "2"] if other == "robustness" else [])]) == 2
    _one_line_error(capsys, "exists and is not a")
