"""Every public name of every documented module refuses bad input with one of our errors.

Issue 31, "the mechanism": the rule "every public function validates its arguments before a
compiled kernel sees them" is enforced here, for every module at once, so that a new module
or a new function cannot slip through.  For each module of :data:`DOCUMENTED` (what each layer's
``__init__`` exports, the private layer's modules and the chapters; a module without
``__all__`` fails) and
of :data:`IF_EXPORTED` (when it has an ``__all__``), ``tests/surface_worker.py`` runs in a
subprocess and calls every callable public name with a battery of bad inputs, ONE argument
bad at a time and the others taken from the valid example call in
``tests/surface_examples.py`` (a function with no entry there fails: "add valid example
arguments for X").  Wrong shapes, dtypes, NaN/inf, negative, huge (10**6, 10**12, 10**400)
and empty values, wrong types; the arrays are drawn by Hypothesis, derandomised, with a
small fixed budget, so every run makes the same calls.

A call passes when it returns normally or raises one of our one-line errors: a
``ValueError``/``TypeError`` raised in ``tempnets/`` whose message names an argument (or an
exception class of ours).  It fails on a crash (segfault, abort), a hang, a ``MemoryError`` or
any raw error (``IndexError``, numba's ``TypingError``, numpy's ``ValueError``...).  A crash or
hang stops the worker; it is restarted after the function that crashed.

:data:`PENDING` lists the names known to fail in modules other engineers are changing, and
:data:`UNFIXED` those known to fail elsewhere that were not fixed yet: each is an
``xfail(strict=True)``, so it fails the suite the moment it is fixed (then remove its line).

For whoever fixes them: ``SURFACE_RESULTS=out.json`` writes every failure found (up to 4 per
function, one per argument), ``SURFACE_LOG=file`` every call as it is made (to see what
hangs), ``SURFACE_CALL_TIMEOUT=seconds`` sets the hang limit (default 120: the first calls
compile kernels).
"""

from __future__ import annotations

import importlib
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import surface_examples  # noqa: E402



PUBLIC_LAYERS = ("models", "tasks", "training", "book")


def documented_modules() -> list[str]:
    """The modules each public layer's ``__init__`` exports (``models.srn``, ...), so that a
    module added to a layer is walked without editing this file, and the private layer's
    modules, whose entry points check their arguments too (walked as well)."""
    from tempnets._layers import LAYERS

    exported = [f"{layer}.{m}" for layer in PUBLIC_LAYERS
                for m in importlib.import_module(f"tempnets.{layer}").__all__]
    return [m for m in exported if m not in IF_EXPORTED] + [f"_numerics.{m}" for m in LAYERS["_numerics"]]


# Public modules walked once they have an ``__all__`` (today they have none).
IF_EXPORTED = ["book.selfcheck", "book.assignments", "book.bookconfig"]
DOCUMENTED = documented_modules()
# Seconds without a word from the worker: a hang (the first calls compile kernels, so generous).
CALL_TIMEOUT = float(os.environ.get("SURFACE_CALL_TIMEOUT", 120))

# Known failures in modules owned by other engineers (issue 31), each an xfail(strict=True):
# when one is fixed its test XPASSes, which fails the suite: then delete its line here.
PENDING = {
}

# Known failures left in modules this test's author could change but did not reach in the time
# given (issue 31, "the mechanism": the first run found them; each is a raw error on a bad
# argument, never a crash).  Same rule: an xfail(strict=True); fix one, delete its line.
UNFIXED = {
}


def chapter_modules() -> list[str]:
    import pkgutil

    import tempnets.chapters

    return [f"chapters.{m.name}" for m in pkgutil.iter_modules(tempnets.chapters.__path__)]


def surface() -> tuple[list, list]:
    """The modules walked, and ``(module, name)`` of every public callable that needs a check."""
    modules = [f"tempnets.{m}" for m in DOCUMENTED + chapter_modules()]
    modules += [f"tempnets.{m}" for m in IF_EXPORTED
                if hasattr(importlib.import_module(f"tempnets.{m}"), "__all__")]
    names = []
    for mod in modules:
        module = importlib.import_module(mod)
        for name in getattr(module, "__all__", []):
            if surface_examples.needs_example(getattr(module, name, None)):
                names.append((mod, name))
    return modules, names


MODULES, NAMES = surface()


# ----------------------------------------------------------------------------- running the workers

def run_modules(modules: list) -> dict:
    """``{qualname: [failure, ...]}``, from one worker for all ``modules`` (importing once is
    most of a worker's start), restarted after the function that crashed or hung."""
    results, skip = {}, []
    while True:
        current, last_call, ended = None, None, False
        env = dict(os.environ, TEMPNETS_PROGRESS="0", MPLBACKEND="Agg", NUMBA_NUM_THREADS="1",
                   OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", PYTHONFAULTHANDLER="")
        errors = tempfile.TemporaryFile()  # not a pipe: a chatty worker must not block on it
        proc = subprocess.Popen([sys.executable, str(HERE / "surface_worker.py"), *modules,
                                 "--skip=" + ",".join(skip)],
                                stdout=subprocess.PIPE, stderr=errors, env=env)
        hung, log = False, os.environ.get("SURFACE_LOG")  # SURFACE_LOG=file: every line, for debugging
        for line in _lines(proc):
            if line is None:
                hung = True
                break
            if log:
                with open(log, "a") as fh:
                    fh.write(f"{time.time():.2f} {line}\n")
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "start" in rec:
                current, last_call = rec["start"], None
            elif "call" in rec:
                last_call = rec
            elif "done" in rec:
                results[rec["done"]] = rec["failures"]
                skip.append(rec["done"])
                current = None
            elif "end" in rec:
                ended = True
        if hung:
            proc.kill()
        proc.wait()
        errors.seek(0)
        stderr = errors.read().decode(errors="replace").strip().splitlines()
        errors.close()
        if ended:
            return results
        what = (f"{last_call['arg']}={last_call['value']}: " if last_call else "")
        if current is None:  # the worker died outside any function or module
            raise RuntimeError(f"the surface worker failed (exit {proc.returncode}): "
                               + " / ".join(stderr[-5:]))
        cause = (f"hung (no answer in {CALL_TIMEOUT} s)" if hung
                 else f"crashed the process (exit {proc.returncode}): " + " / ".join(stderr[-2:]))
        results[current] = [what + cause]
        skip.append(current)


def _lines(proc):
    """The worker's lines; ``None`` when it says nothing for ``CALL_TIMEOUT`` seconds."""
    buf = b""
    fd = proc.stdout.fileno()
    while True:
        ready, _, _ = select.select([fd], [], [], CALL_TIMEOUT)
        if not ready:
            yield None
            return
        chunk = os.read(fd, 65536)
        if not chunk:
            return
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for line in lines:
            yield line.decode()


@pytest.fixture(scope="module")
def results():
    """Every public name's failures (run once for the whole file, in one worker)."""
    found = run_modules([m for m in MODULES if hasattr(importlib.import_module(m), "__all__")])
    if os.environ.get("SURFACE_RESULTS"):  # SURFACE_RESULTS=file.json: every failure, for a fixer
        Path(os.environ["SURFACE_RESULTS"]).write_text(json.dumps(found, indent=1))
    return found


# ----------------------------------------------------------------------------- the tests

def _param(qualname):
    known = PENDING.get(qualname) or UNFIXED.get(qualname)
    marks = [pytest.mark.xfail(strict=True, reason=known)] if known else []
    return pytest.param(qualname, marks=marks, id=qualname)


@pytest.mark.parametrize("module", [_param(m) for m in MODULES])
def test_module_declares_its_public_names(module):
    """A documented module says what is public (``__all__``): nothing else is walked."""
    assert hasattr(importlib.import_module(module), "__all__"), (
        f"{module} has no __all__: list its public names (and make raw kernels private)")


@pytest.mark.parametrize("qualname", [_param(f"{m}.{n}") for m, n in NAMES])
def test_public_name_refuses_bad_input_with_our_errors(qualname, results):
    module = qualname.rsplit(".", 1)[0]
    assert not results.get(module), f"{module}: " + "; ".join(results[module])
    assert qualname in results, f"{qualname} was not called (see the worker's output)"
    failures = results[qualname]
    assert not failures, f"{qualname}:\n  " + "\n  ".join(failures)


def test_every_example_names_a_public_function():
    """An entry of the examples table for a name that is no longer public is stale."""
    public = {f"{m}.{n}" for m in MODULES for n in getattr(importlib.import_module(m), "__all__", [])}
    stale = sorted((set(surface_examples.EXAMPLES) | set(surface_examples.NOT_PROBED)) - public)
    assert not stale, f"tests/surface_examples.py has entries for names that are not public: {stale}"


def test_the_documented_modules_are_found():
    assert {"models.srn", "models.tkrnn", "training.optim", "_numerics.checks"} <= set(DOCUMENTED), DOCUMENTED
    assert "chapters.temporal_kernels" in chapter_modules()


def test_pending_names_are_public():
    public = {f"{m}.{n}" for m, n in NAMES} | set(MODULES)
    stale = sorted((set(PENDING) | set(UNFIXED)) - public)
    assert not stale, f"PENDING names that are not public (remove them): {stale}"


def test_every_module_is_walked_or_listed():
    """A new module cannot slip past this test: each module of a public layer is exported by
    its layer's ``__init__`` (walked, and must have ``__all__``) or in :data:`IF_EXPORTED`
    (walked once it has ``__all__``), and each module of the private layer is walked."""
    import pkgutil

    missing = []
    for layer in (*PUBLIC_LAYERS, "_numerics"):
        package = importlib.import_module(f"tempnets.{layer}")
        missing += [f"{layer}.{m.name}" for m in pkgutil.iter_modules(package.__path__)
                    if not m.name.startswith("_")
                    and f"{layer}.{m.name}" not in set(DOCUMENTED) | set(IF_EXPORTED)]
    assert not missing, f"modules of a layer that its __init__ does not export (so never walked): {missing}"
