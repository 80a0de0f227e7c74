"""Checkpoints: what a long run has done so far, kept on disk so that an interrupted run can
continue (``python -m tempnets reproduce ID --resume``) and end with the same record.

A checkpoint is a directory of values, each saved under a key (``"LSTM-3"``, a finished
network; ``"LSTM-3.training"``, one being trained) as ``KEY.npz``, written atomically: to a
temporary file in the same directory, then renamed over the old one, so that an interrupt
or a full disk leaves the previous value whole and never a partial file.  The directory
also holds ``identity.json`` (the run that made it: experiment, scale, seed, perturbation,
package version, commit; and whether the run created the directory) and one ``session-N``
file per session (its start time; its modification time is the session's last save), from
which a resumed run tells how long its earlier sessions worked.

Nothing in a checkpoint can run code when it is read (a pickle can: checkpoints are never
pickles, and the ``.pkl`` files of older versions are refused, never loaded).  A value is
saved as one ``.npz`` file: its arrays (read back with ``allow_pickle=False``) and a JSON
document describing everything else (:func:`encode`): dicts, lists, tuples, strings,
numbers, ``None``, numpy arrays and scalars, and instances of the dataclasses and
NamedTuples in :data:`SAVABLE` (rebuilt by name from that list, never by importing a name
found in a file).  Loading gives back the same types, dtypes and bits.

A value can be saved with ``made_from`` (what it was computed from: sizes, seed, initial
weights...): loading it with a different ``made_from`` raises instead of continuing someone
else's computation.

A run removes only what it wrote: :func:`open_checkpoint` refuses a directory holding files
that are not a checkpoint's, and :meth:`Checkpoint.remove` deletes the checkpoint's own
files, and the directory only if the run created it and it is then empty.

A :class:`Checkpoint` is a small frozen value, so it travels to the worker processes of a
parallel run; each worker saves its own keys.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import io
import json
import os
import re
import stat
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._layers import moved_name
from .._numerics.checks import count, real

__all__ = ["Checkpoint", "CheckpointError", "open_checkpoint", "check_checkpoint", "read_value",
           "encode", "decode", "IDENTITY", "SAVABLE"]


class CheckpointError(ValueError):
    """A saved value that cannot be read, or was made from something else than the run
    asking for it (raised from inside a run: the command line reports it in one line)."""

IDENTITY = "identity.json"
"""The file naming the run a checkpoint belongs to."""

FORMAT = "tempnets checkpoint 2"
"""What ``identity.json`` says it is (version 1 stored pickles: refused)."""

SAVABLE = ("tempnets.training.optim:TrainHistory", "tempnets.training.optim:OptimConfig",
           "tempnets.training.srn_trainers:TrainConfig", "tempnets.training.srn_trainers:History",
           "tempnets.training.focused_training:FocusedConfig", "tempnets.training.focused_training:History",
           "tempnets.models.srn:SRNParams", "tempnets.models.focused:FocusedParams", "tempnets.models.focused:FullParams",
           "tempnets.tasks.sequences:SerialRecall")
"""The dataclasses and NamedTuples (``module:name``) a checkpoint can hold.  Only these are
ever rebuilt when a checkpoint is read, by looking their name up here.  (A chapter's sizes
are saved as ``dataclasses.asdict``: this module imports no chapter.)"""

MAX_IDENTITY_BYTES = 1_000_000
"""Largest ``identity.json`` read (ours are a few hundred bytes)."""

MAX_VALUE_BYTES = 2**31
"""Largest saved value read (its file, and its arrays once decompressed)."""

_KEY = re.compile(r"[A-Za-z0-9_.+-]+")
_SUFFIX = ".npz"
_OLD_SUFFIX = ".pkl"
_SESSION = re.compile(r"session-[0-9]+")
_TEMPORARY = re.compile(r"\.(identity\.json|session-[0-9]+|[A-Za-z0-9_.+-]+\.npz)\.[A-Za-z0-9_]+\.tmp")
_JSON = "json"  # the member of a value's .npz holding its JSON document


def _write_atomic(path: Path, payload: bytes) -> None:
    """Write ``payload`` to ``path`` through a temporary file in the same directory (renamed
    over ``path`` only once complete and synced), removing the temporary file on any failure."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:  # KeyboardInterrupt included: no temporary file is left behind
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _differences(saved: dict, wanted: dict) -> list[str]:
    return [f"{k} {saved.get(k)!r} (this run: {wanted.get(k)!r})"
            for k in sorted(set(saved) | set(wanted)) if saved.get(k) != wanted.get(k)]


# ----------------------------------------------------------------------------- values <-> JSON + arrays

def _type_name(cls) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _is_record_type(cls) -> bool:
    """A dataclass or a NamedTuple class."""
    return isinstance(cls, type) and (dataclasses.is_dataclass(cls) or (
        issubclass(cls, tuple) and hasattr(cls, "_fields")))


def _fields(value) -> dict:
    if dataclasses.is_dataclass(value):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    return dict(zip(value._fields, value))


def _encode(value, arrays: dict):
    """A JSON-able description of ``value``, its arrays and numpy scalars stored in ``arrays``
    (``name -> numpy array``) and named in the description.

    A dict with string keys is a JSON object; anything else is tagged by an object of one key
    starting with ``$``: ``$tuple``, ``$dict`` (other keys, as pairs), ``$array`` (a numpy array),
    ``$scalar`` (a numpy scalar, as a 0-d array), ``$scalars`` / ``$floats`` (a list of numpy
    scalars of one dtype / of Python floats, as one array), ``$object`` (a dataclass or
    NamedTuple of :data:`SAVABLE`, as its name and fields).

    Raises
    ------
    TypeError
        For anything else, naming its type (a checkpoint holds only what it can give back).
    """
    def put(array):
        name = f"a{len(arrays)}"
        arrays[name] = array
        return name

    if value is None or isinstance(value, (bool, str)) or type(value) in (int, float):
        return value
    if type(value) is np.ndarray:
        if value.dtype.hasobject:
            raise TypeError("cannot save an array of Python objects in a checkpoint")
        return {"$array": put(value)}
    if isinstance(value, np.generic):
        if value.dtype.hasobject:
            raise TypeError("cannot save a numpy object scalar in a checkpoint")
        return {"$scalar": put(np.asarray(value))}
    if type(value) is dict:
        if all(isinstance(k, str) and not k.startswith("$") for k in value):
            return {k: _encode(v, arrays) for k, v in value.items()}
        return {"$dict": [[_encode(k, arrays), _encode(v, arrays)] for k, v in value.items()]}
    if type(value) is list:
        kinds = {type(v) for v in value}
        if len(value) >= 8 and kinds == {float}:
            return {"$floats": put(np.array(value, dtype=np.float64))}
        if len(value) >= 8 and len(kinds) == 1 and issubclass(kinds.pop(), np.generic) \
                and not value[0].dtype.hasobject:
            return {"$scalars": put(np.array(value, dtype=value[0].dtype))}
        return [_encode(v, arrays) for v in value]
    if type(value) is tuple:
        return {"$tuple": [_encode(v, arrays) for v in value]}
    if _is_record_type(type(value)) and _type_name(type(value)) in SAVABLE:
        return {"$object": [_type_name(type(value)),
                            {k: _encode(v, arrays) for k, v in _fields(value).items()}]}
    raise TypeError(f"cannot save a {_type_name(type(value))} in a checkpoint (it holds dicts, "
                    "lists, tuples, str, int, float, bool, None, numpy arrays and scalars, and "
                    f"the types of tempnets.training.checkpoint.SAVABLE)")


def _savable_type(name):
    """The class ``name`` of :data:`SAVABLE`; any other name is refused, never imported.  A
    checkpoint saved before the layers (issue 37) names ``tempnets.srn:SRNParams``: read as
    the class's path of today."""
    if isinstance(name, str):
        name = moved_name(name)
    if not isinstance(name, str) or name not in SAVABLE:
        raise ValueError(f"it names the type {name!r}, not one a checkpoint may hold")
    module, _, qualname = name.partition(":")
    cls = importlib.import_module(module)
    for part in qualname.split("."):
        cls = getattr(cls, part)
    if not _is_record_type(cls) or _type_name(cls) != name:  # (a renamed or moved class)
        raise ValueError(f"it names the type {name!r}, which is no longer a dataclass or NamedTuple there")
    return cls


def _decode(node, arrays: dict):
    """The value :func:`encode` described as ``node`` (its arrays in ``arrays``).

    Raises
    ------
    ValueError
        When ``node`` is not such a description (naming what is wrong).
    """
    if node is None or isinstance(node, (bool, str, int, float)):
        return node
    if isinstance(node, list):
        return [_decode(v, arrays) for v in node]
    if not isinstance(node, dict):
        raise ValueError(f"it holds a {type(node).__name__}")
    tags = [k for k in node if k.startswith("$")]
    if not tags:
        return {k: _decode(v, arrays) for k, v in node.items()}
    if len(node) != 1:
        raise ValueError(f"an object mixes the tag {tags[0]!r} with other keys")
    tag, body = next(iter(node.items()))

    def array(name):
        if not isinstance(name, str) or name not in arrays:
            raise ValueError(f"it refers to an array {name!r} it does not hold")
        return arrays[name]

    if tag == "$array":
        return array(body)
    if tag == "$scalar":
        return array(body)[()]
    if tag == "$scalars":
        return list(array(body))
    if tag == "$floats":
        return array(body).tolist()
    if tag == "$tuple" and isinstance(body, list):
        return tuple(_decode(v, arrays) for v in body)
    if tag == "$dict" and isinstance(body, list) and all(
            isinstance(p, list) and len(p) == 2 for p in body):
        return {_decode(k, arrays): _decode(v, arrays) for k, v in body}
    if tag == "$object" and isinstance(body, list) and len(body) == 2 and isinstance(body[1], dict):
        cls = _savable_type(body[0])
        fields = {k: _decode(v, arrays) for k, v in body[1].items()}
        if dataclasses.is_dataclass(cls):
            wanted = {f.name for f in dataclasses.fields(cls) if f.init}
        else:
            wanted = set(cls._fields)
        if set(fields) != wanted:
            raise ValueError(f"its {body[0]} has fields {sorted(fields)}, today's has {sorted(wanted)}")
        return cls(**fields)
    raise ValueError(f"it holds an unknown tag {tag!r}")


def _pack(document, arrays: dict) -> bytes:
    """One ``.npz`` file's bytes: ``arrays`` and the JSON ``document``."""
    buffer = io.BytesIO()
    text = json.dumps(document, separators=(",", ":")).encode("utf-8")
    np.savez(buffer, allow_pickle=False, **{_JSON: np.frombuffer(text, np.uint8)}, **arrays)
    return buffer.getvalue()


def _regular_file(path: Path, limit: int) -> int:
    """The size of ``path`` after checking it is a regular file (not a link, directory or
    device) of at most ``limit`` bytes; ``FileNotFoundError`` when there is none."""
    info = path.lstat()
    if not stat.S_ISREG(info.st_mode):
        raise ValueError("not a regular file")
    if info.st_size > limit:
        raise ValueError(f"{info.st_size / 1e6:.0f} MB, more than the {limit / 1e6:.0f} MB allowed")
    return info.st_size


def _unpack(path: Path):
    """The JSON document and the arrays of a ``.npz`` file written by :func:`_pack`, read with
    ``allow_pickle=False`` and within :data:`MAX_VALUE_BYTES` (decompressed)."""
    _regular_file(path, MAX_VALUE_BYTES)
    with zipfile.ZipFile(path) as z:
        if sum(i.file_size for i in z.infolist()) > MAX_VALUE_BYTES:
            raise ValueError(f"its arrays hold more than {MAX_VALUE_BYTES / 1e6:.0f} MB")
    with np.load(path, allow_pickle=False) as npz:
        if _JSON not in npz.files:
            raise ValueError("not a tempnets checkpoint value (no JSON part)")
        arrays = {name: npz[name] for name in npz.files}
    text = arrays.pop(_JSON)
    if text.dtype != np.uint8 or text.ndim != 1:
        raise ValueError("not a tempnets checkpoint value (its JSON part is not bytes)")
    return json.loads(text.tobytes().decode("utf-8")), arrays


_UNREADABLE = (OSError, ValueError, TypeError, KeyError, EOFError, zipfile.BadZipFile,
               MemoryError, RecursionError, UnicodeDecodeError)
"""What reading a damaged or foreign file can raise (json's and numpy's errors are ValueErrors)."""


def encode(value, arrays: dict):
    """A JSON-able description of ``value``; its arrays go into the dict ``arrays`` (see
    :func:`_encode` for the format).

    Raises
    ------
    TypeError
        When ``arrays`` is not a dict, or ``value`` holds something a checkpoint cannot give
        back (naming its type).
    """
    if not isinstance(arrays, dict):
        raise TypeError(f"arrays must be a dict (name -> numpy array) to store the arrays in, "
                        f"got {type(arrays).__name__}")
    return _encode(value, arrays)


def decode(node, arrays: dict):
    """The value :func:`encode` described as ``node``, its arrays taken from the dict ``arrays``.

    Raises
    ------
    TypeError
        When ``arrays`` is not a dict.
    ValueError
        When ``node`` is not such a description (naming what is wrong).
    """
    if not isinstance(arrays, dict):
        raise TypeError(f"arrays must be a dict (name -> numpy array), got {type(arrays).__name__}")
    try:
        return _decode(node, arrays)
    except ValueError as err:
        raise ValueError(f"node is not a description made by encode: {err}") from None


def read_value(path) -> dict:
    """``{"made_from": ..., "value": ...}`` saved in the file ``path`` by :meth:`Checkpoint.save`.

    Raises
    ------
    FileNotFoundError
        When there is no such file.
    ValueError
        When it is not one (naming the file and why), without running anything in it.
    """
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise TypeError(f"path must be the name of a checkpoint file, got {path!r}")
    path = Path(path)
    try:
        document, arrays = _unpack(path)
        if not (isinstance(document, dict) and set(document) == {"made_from", "value"}):
            raise ValueError("not a tempnets checkpoint value")
        return {k: _decode(v, arrays) for k, v in document.items()}
    except FileNotFoundError:
        raise
    except _UNREADABLE as err:
        why = str(err) if isinstance(err, ValueError) else f"{type(err).__name__}: {err}"
        raise CheckpointError(f"checkpoint file {path} cannot be read ({why}); remove it to redo "
                              "that part of the run") from None


# ----------------------------------------------------------------------------- the directory

@dataclass(frozen=True)
class Checkpoint:
    """A checkpoint directory (made by :func:`open_checkpoint`) and how often to save.

    Attributes
    ----------
    directory : str
    every_seconds : float
        A training loop saves its state when this much time has passed since its last
        save (0: after every update).
    every_updates : int or None
        ... or when this many updates have passed (``None``: by time only).
    session : int
        0 for a fresh run, 1 for its first resumption, ...
    created : bool
        Whether the run created ``directory`` (only then does :meth:`remove` remove it).
    """

    directory: str
    every_seconds: float = 300.0
    every_updates: int | None = None
    session: int = 0
    created: bool = False

    def _path(self, key: str) -> Path:
        if not isinstance(key, str) or not _KEY.fullmatch(key):
            raise ValueError(f"checkpoint key must be letters, digits and _ . + -, got {key!r}")
        return Path(self.directory) / (key + _SUFFIX)

    def due(self, since_seconds: float, since_updates: int) -> bool:
        """Whether a loop that saved ``since_seconds`` and ``since_updates`` ago saves now."""
        return since_seconds >= self.every_seconds or (
            self.every_updates is not None and since_updates >= self.every_updates)

    def save(self, key: str, value, made_from=None) -> None:
        """Save ``value`` under ``key`` (atomically), with what it was ``made_from``.

        Raises
        ------
        TypeError
            When ``value`` or ``made_from`` holds something a checkpoint cannot hold
            (see :func:`encode`); nothing is written then.
        CheckpointError
            When the file cannot be written (a full disk, the directory removed): the run
            stops, with what it saved before intact.
        """
        path = self._path(key)
        arrays: dict = {}
        document = {"made_from": _encode(made_from, arrays), "value": _encode(value, arrays)}
        try:
            _write_atomic(path, _pack(document, arrays))
        except OSError as err:
            raise CheckpointError(f"cannot save {path} ({err.strerror or err}); what was saved "
                                  "before is intact: make room and continue with --resume") from None
        session = Path(self.directory) / f"session-{self.session}"
        with contextlib.suppress(OSError):  # the time of the last save: see earlier_seconds
            os.utime(session)

    def load(self, key: str, made_from=None):
        """The value saved under ``key``, or ``None`` when there is none.

        Raises
        ------
        ValueError
            When the value was made from something else than ``made_from`` (naming what
            differs), or its file cannot be read.
        """
        path = self._path(key)
        try:
            saved = read_value(path)
        except FileNotFoundError:
            return None
        if saved["made_from"] != made_from:
            a, b = saved["made_from"], made_from
            what = (", ".join(_differences(a, b)) if isinstance(a, dict) and isinstance(b, dict)
                    else f"{a!r} (this run: {b!r})")
            raise CheckpointError(f"checkpoint {path} was made from something else: {what}")
        return saved["value"]

    def computed(self, key: str, made_from, compute):
        """The value saved under ``key`` (made from ``made_from``), or ``compute()``, saved
        there before it is returned: a piece of a run finished before an interruption (a
        trained network, say) is not computed again."""
        done = self.load(key, made_from)
        if done is None:
            done = compute()
            self.save(key, done, made_from)
        return done

    def keys(self) -> list[str]:
        """The keys saved so far, sorted."""
        return sorted(p.name[:-len(_SUFFIX)] for p in _saved(Path(self.directory)))

    def earlier_seconds(self) -> float:
        """The time the earlier sessions of this run worked, each from its start to its last save."""
        total = 0.0
        for i in range(self.session):
            path = Path(self.directory) / f"session-{i}"
            with contextlib.suppress(OSError, ValueError):
                total += max(path.stat().st_mtime - float(path.read_text()), 0.0)
        return total

    def remove(self) -> None:
        """Delete the checkpoint's own files (when the run's record is safely written), and its
        directory if the run created it and nothing else is left in it: whatever else is
        there stays."""
        directory = Path(self.directory)
        for path in _own_files(directory):
            with contextlib.suppress(OSError):
                path.unlink()
        if self.created:
            with contextlib.suppress(OSError):  # not empty: someone else's files are in it
                directory.rmdir()


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def _is_value_name(name: str) -> bool:
    return name.endswith(_SUFFIX) and bool(_KEY.fullmatch(name[:-len(_SUFFIX)]))


def _ours(name: str) -> bool:
    """Whether a file of this name is one a checkpoint writes."""
    return (name == IDENTITY or bool(_SESSION.fullmatch(name)) or _is_value_name(name)
            or bool(_TEMPORARY.fullmatch(name)))


def _own_files(directory: Path) -> list[Path]:
    """The regular files in ``directory`` that a checkpoint writes (by their names)."""
    with contextlib.suppress(OSError):
        return [p for p in directory.iterdir() if _ours(p.name) and _is_regular(p)]
    return []


def _saved(directory: Path) -> list[Path]:
    """The saved values in ``directory`` (whatever their type: :func:`_check_saved` checks)."""
    return [p for p in directory.iterdir() if _is_value_name(p.name)]


def _where(directory) -> Path:
    if not isinstance(directory, (str, os.PathLike)) or not str(directory).strip():
        raise ValueError(f"--checkpoint must name a directory, got {str(directory)!r}")
    return Path(directory)


def _read_identity(directory: Path) -> dict | None:
    """What ``identity.json`` in ``directory`` says (``{"format", "created_directory", "run"}``),
    ``None`` when there is none; read only if it is a small regular file.

    Raises
    ------
    ValueError
        When it is not the identity of a checkpoint of this version (naming why).
    """
    marker = directory / IDENTITY
    if not os.path.lexists(marker):
        return None
    try:
        _regular_file(marker, MAX_IDENTITY_BYTES)
        saved = json.loads(marker.read_bytes().decode("utf-8"))
    except (OSError, ValueError, RecursionError) as err:  # json's errors are ValueErrors
        raise ValueError(f"{marker} is not a tempnets checkpoint's identity ({err})") from None
    if not (isinstance(saved, dict) and saved.get("format") == FORMAT
            and isinstance(saved.get("run"), dict)
            and isinstance(saved.get("created_directory"), bool)):
        raise ValueError(f"{marker} is not the identity of a {FORMAT!r} (it holds "
                         f"{type(saved).__name__ if not isinstance(saved, dict) else 'other fields'})")
    return saved


def _refuse_pickles(directory: Path) -> None:
    old = sorted(p.name for p in directory.glob("*" + _OLD_SUFFIX))
    if old:
        raise ValueError(f"{directory} holds pickle files ({', '.join(old[:3])}"
                         f"{', ...' if len(old) > 3 else ''}) of an older tempnets: they are never "
                         "loaded (a pickle can run code); remove them or give --checkpoint another "
                         "directory, and run afresh")


def _check_saved(directory: Path) -> None:
    """Read every saved value once (nothing in them can run), so that a damaged one is
    reported before the run starts rather than hours into it."""
    for path in _saved(directory):
        read_value(path)


def _check_can_write(directory: Path) -> None:
    """Raise unless a file can be created in ``directory`` (or, if it does not exist yet, the
    directory created in its parent)."""
    where = directory if directory.is_dir() else directory.parent
    try:
        fd, probe = tempfile.mkstemp(dir=where, prefix=".tempnets-checkpoint.", suffix=".probe")
    except OSError as err:
        raise ValueError(f"checkpoint {str(directory)!r}: cannot write in {str(where)!r} "
                         f"({err.strerror or err})") from None
    os.close(fd)
    os.unlink(probe)


def check_checkpoint(directory, identity: dict, resume: bool = False) -> None:
    """Raise ``ValueError`` unless :func:`open_checkpoint` would succeed; changes nothing.

    With ``resume`` the directory must hold a checkpoint of the run ``identity`` describes
    (its ``identity.json`` is read and checked before anything else); without it, it must be
    missing, empty, or a checkpoint with no saved work (an interrupted run's work is never
    discarded silently, and a directory of other files is never used).  Either way it
    must be writable and hold no pickles of older versions.
    """
    directory = _where(directory)
    try:
        exists, is_dir = os.path.lexists(directory), directory.is_dir()
    except OSError as err:  # e.g. a name over the file system's 255 bytes
        raise ValueError(f"checkpoint directory {str(directory)!r:.80}: {err.strerror or err}") from None
    if exists and not is_dir:
        raise ValueError(f"checkpoint {str(directory)!r} is a file, not a directory")
    if not directory.parent.is_dir():
        raise ValueError(f"checkpoint {str(directory)!r}: the directory {str(directory.parent)!r} "
                         "does not exist")
    if resume:
        _check_resumable(directory, identity)
    elif is_dir:
        _check_fresh(directory)
    _check_can_write(directory)


def _check_resumable(directory: Path, identity: dict) -> None:
    if not directory.is_dir() or not os.path.lexists(directory / IDENTITY):
        raise ValueError(f"nothing to resume: {directory} holds no checkpoint (a run keeps it "
                         "beside its --out file: give the interrupted run's --out, or its "
                         "--checkpoint directory)")
    _refuse_pickles(directory)
    try:
        saved = _read_identity(directory)["run"]
    except ValueError as err:
        raise ValueError(f"{err}; remove {directory} to start afresh") from None
    diffs = _differences(saved, identity)
    if diffs:
        raise ValueError(f"{directory} is the checkpoint of another run or code: "
                         f"{'; '.join(diffs)}; resume with the same options and code, or remove "
                         "the directory to start afresh")
    _check_saved(directory)


def _check_fresh(directory: Path) -> None:
    _refuse_pickles(directory)
    try:
        mine = _read_identity(directory)
    except ValueError as err:
        raise ValueError(f"{err}: a run never uses a directory of files it did not write; give "
                         "--checkpoint a new or empty directory") from None
    others = sorted(p.name for p in directory.iterdir())
    if mine is None and others:
        raise ValueError(f"checkpoint directory {directory} is not empty and not a tempnets "
                         f"checkpoint (it holds {', '.join(map(repr, others[:3]))}"
                         f"{', ...' if len(others) > 3 else ''}): a run never uses a directory of "
                         "files it did not write; give --checkpoint a new or empty directory (to "
                         "continue an interrupted run, give its directory with --resume)")
    saved = _saved(directory)
    if mine is not None and saved:
        raise ValueError(f"{directory} holds the checkpoint of an interrupted run "
                         f"({len(saved)} saved part(s)); continue it with "
                         "--resume, or remove the directory to start afresh")


def open_checkpoint(directory, identity: dict, resume: bool = False, every_seconds: float = 300.0,
                    every_updates: int | None = None) -> Checkpoint:
    """Start (or, with ``resume``, continue) the checkpoint of the run ``identity`` describes.

    ``identity`` is a JSON-able dict (what makes two runs the same run); see
    :func:`check_checkpoint` for what is refused.  A fresh start reuses a checkpoint that
    saved nothing (a run interrupted before its first save), replacing its identity.

    Raises
    ------
    ValueError
        As :func:`check_checkpoint`, or when the directory cannot be written.
    """
    real("every_seconds", every_seconds, low=0.0)
    if every_updates is not None:
        count("every_updates", every_updates, 1)
    check_checkpoint(directory, identity, resume)
    directory = Path(directory)
    earlier = _read_identity(directory) if directory.is_dir() else None
    created = earlier["created_directory"] if earlier else not directory.exists()
    try:
        if not resume and earlier:
            for leftover in [directory / IDENTITY, *directory.glob("session-*")]:
                if _ours(leftover.name) and _is_regular(leftover):
                    leftover.unlink()
        directory.mkdir(exist_ok=True)
        session = sum(1 for p in directory.iterdir() if _SESSION.fullmatch(p.name))
        if not resume:
            document = {"format": FORMAT, "created_directory": created, "run": identity}
            _write_atomic(directory / IDENTITY, (json.dumps(document, indent=1) + "\n").encode())
        _write_atomic(directory / f"session-{session}", repr(time.time()).encode())
    except OSError as err:
        raise ValueError(f"checkpoint {str(directory)!r} cannot be written ({err.strerror or err})") from None
    return Checkpoint(str(directory), float(every_seconds), every_updates, session, created)
