"""Checkpoints: what a long run has done so far, kept on disk so that an interrupted run can
continue (``python -m tempnets reproduce ID --resume``) and end with the same record.

A checkpoint is a directory of values, each saved under a key (``"LSTM-3"``, a finished
network; ``"LSTM-3.training"``, one being trained) as a pickle written atomically: to a
temporary file in the same directory, then renamed over the old one, so that an interrupt
or a full disk leaves the previous value whole and never a partial file.  The directory
also holds ``identity.json`` (the run that made it: experiment, scale, seed, perturbation,
package version, commit) and one ``session-N`` file per session (its start time; its
modification time is the session's last save), from which a resumed run tells how long
its earlier sessions worked.

A value can be saved with ``made_from`` (what it was computed from: sizes, seed, initial
weights...): loading it with a different ``made_from`` raises instead of continuing someone
else's computation.  Values are pickles: load only checkpoints you made.

A :class:`Checkpoint` is a small frozen value, so it travels to the worker processes of a
parallel run; each worker saves its own keys.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .checks import count, real

__all__ = ["Checkpoint", "open_checkpoint", "check_checkpoint", "IDENTITY"]

IDENTITY = "identity.json"
"""The file naming the run a checkpoint belongs to."""

_KEY = re.compile(r"[A-Za-z0-9_.+-]+")
_SUFFIX = ".pkl"


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
    """

    directory: str
    every_seconds: float = 300.0
    every_updates: int | None = None
    session: int = 0

    def _path(self, key: str) -> Path:
        if not isinstance(key, str) or not _KEY.fullmatch(key):
            raise ValueError(f"checkpoint key must be letters, digits and _ . + -, got {key!r}")
        return Path(self.directory) / (key + _SUFFIX)

    def due(self, since_seconds: float, since_updates: int) -> bool:
        """Whether a loop that saved ``since_seconds`` and ``since_updates`` ago saves now."""
        return since_seconds >= self.every_seconds or (
            self.every_updates is not None and since_updates >= self.every_updates)

    def save(self, key: str, value, made_from=None) -> None:
        """Save ``value`` under ``key`` (atomically), with what it was ``made_from``."""
        payload = pickle.dumps({"made_from": made_from, "value": value},
                               protocol=pickle.HIGHEST_PROTOCOL)
        _write_atomic(self._path(key), payload)
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
            with open(path, "rb") as fh:
                saved = pickle.load(fh)
        except FileNotFoundError:
            return None
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError) as err:
            raise ValueError(f"checkpoint file {path} cannot be read ({type(err).__name__}: {err}); "
                             "remove it to redo that part of the run") from None
        if saved.get("made_from") != made_from:
            a, b = saved.get("made_from"), made_from
            what = (", ".join(_differences(a, b)) if isinstance(a, dict) and isinstance(b, dict)
                    else f"{a!r} (this run: {b!r})")
            raise ValueError(f"checkpoint {path} was made from something else: {what}")
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
        return sorted(p.name[:-len(_SUFFIX)] for p in Path(self.directory).glob("*" + _SUFFIX))

    def earlier_seconds(self) -> float:
        """The time the earlier sessions of this run worked, each from its start to its last save."""
        total = 0.0
        for i in range(self.session):
            path = Path(self.directory) / f"session-{i}"
            with contextlib.suppress(OSError, ValueError):
                total += max(path.stat().st_mtime - float(path.read_text()), 0.0)
        return total

    def remove(self) -> None:
        """Delete the checkpoint directory (when the run's record is safely written)."""
        shutil.rmtree(self.directory, ignore_errors=True)


def _saved_keys(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.glob("*" + _SUFFIX))


def check_checkpoint(directory, identity: dict, resume: bool = False) -> None:
    """Raise ``ValueError`` unless :func:`open_checkpoint` would succeed; changes nothing.

    With ``resume`` the directory must hold a checkpoint of the run ``identity`` describes;
    without it, it must hold no saved work (an interrupted run's work is never discarded
    silently).
    """
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise ValueError(f"checkpoint {str(directory)!r} is a file, not a directory")
    if not directory.parent.is_dir():
        raise ValueError(f"checkpoint {str(directory)!r}: the directory {str(directory.parent)!r} "
                         "does not exist")
    marker = directory / IDENTITY
    if not resume:
        if marker.is_file() and _saved_keys(directory):
            raise ValueError(f"{directory} holds the checkpoint of an interrupted run "
                             f"({len(_saved_keys(directory))} saved part(s)); continue it with "
                             "--resume, or remove the directory to start afresh")
        return
    if not marker.is_file():
        raise ValueError(f"nothing to resume: {directory} holds no checkpoint (a run keeps it "
                         "beside its --out file: give the interrupted run's --out, or its "
                         "--checkpoint directory)")
    try:
        saved = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ValueError(f"{marker} cannot be read ({err}); remove {directory} to start "
                         "afresh") from None
    diffs = _differences(saved, identity)
    if diffs:
        raise ValueError(f"{directory} is the checkpoint of another run or code: "
                         f"{'; '.join(diffs)}; resume with the same options and code, or remove "
                         "the directory to start afresh")


def open_checkpoint(directory, identity: dict, resume: bool = False, every_seconds: float = 300.0,
                    every_updates: int | None = None) -> Checkpoint:
    """Start (or, with ``resume``, continue) the checkpoint of the run ``identity`` describes.

    ``identity`` is a JSON-able dict (what makes two runs the same run); see
    :func:`check_checkpoint` for what is refused.  A fresh start clears an empty leftover
    directory (one interrupted before it saved anything).
    """
    real("every_seconds", every_seconds, low=0.0)
    if every_updates is not None:
        count("every_updates", every_updates, 1)
    check_checkpoint(directory, identity, resume)
    directory = Path(directory)
    if not resume and directory.is_dir():
        for leftover in [directory / IDENTITY, *directory.glob("session-*")]:
            leftover.unlink(missing_ok=True)
    directory.mkdir(exist_ok=True)
    session = len(list(directory.glob("session-*")))
    if not resume:
        _write_atomic(directory / IDENTITY, (json.dumps(identity, indent=1) + "\n").encode())
    _write_atomic(directory / f"session-{session}", repr(time.time()).encode())
    return Checkpoint(str(directory), float(every_seconds), every_updates, session)
