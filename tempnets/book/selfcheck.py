"""Self-checks for the book's coding exercises: grade a student's answer with a clear message.

A chapter's check functions (``check_<what>(answer)``) live in its chapter module
(:mod:`tempnets.chapters`) and are built from the two graders here.  A check
prints one line starting with ``✓`` when the answer is right and raises
:class:`CheckFailed` (an ``AssertionError``, so a failing check fails nbval)
with a message that says what was wrong and gives a hint when it is wrong.

A self-check is the student's friendly, instant check; the grade is the autograder's
(:mod:`tempnets.book.assignments`), which runs the same check in a fresh Python that the
student's notebook cannot reach (:func:`grade`).  The student's function runs in a fresh
Python, rebuilt from its source (:func:`_ship`), that is killed after :data:`TIME_LIMIT` seconds,
so an answer that loops forever, catches every exception, disables ``SIGALRM`` or runs a
compiled loop is stopped for certain, and what it patches (``np.allclose = ...``) stays in
that process.  Its results come back as JSON (:func:`_to_plain`), never as a pickle.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import select
import signal
import sys
import threading
import time
import traceback
from typing import Callable

import numpy as np
# Bound when tempnets is imported: a notebook that later sets np.allclose = ... does not reach them.
from numpy import abs as _abs, all as _all, allclose as _allclose, asarray as _asarray, isfinite as _isfinite, \
    max as _max

TIME_LIMIT = 30.0
"""Seconds a student's function may take on one test case (see :func:`check_function`).  A right
answer takes well under a second; the limit also covers the fresh Python's first calls of the
library (loading its compiled kernels from numba's cache), which a loaded machine — a test
suite on every core, a shared Binder — can stretch past ten seconds."""

SETUP_LIMIT = 120.0
"""Seconds a runner may take to rebuild a student's answer (importing the modules it uses)."""


class CheckFailed(AssertionError):
    """A student's answer is not right; the message says how and gives a hint."""


class _TooSlow(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float | None):
    """Raise :class:`_TooSlow` inside the block after ``seconds`` (``SIGALRM``: the main thread
    of a Unix process; used only where a process cannot fork; elsewhere, or with ``None``, no limit)."""
    usable = (seconds and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def stop(signum, frame):
        raise _TooSlow

    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# ------------------------------------------------------------------ answers as JSON
# _to_plain and _from_plain are copied into each grading test of an assignment (tempnets.book.assignments),
# which runs in the student's kernel: they import what they use themselves and use no other name here.

def _to_plain(value, depth=0):
    """``value`` as JSON-ready data that :func:`_from_plain` turns back into numbers and arrays
    (dtype and shape kept, complex parts kept, tuples and named tuples kept); anything else becomes
    a description of it (its type and a short repr), so a wrong answer is reported, never run."""
    import numpy as np

    def described(kind):
        try:
            shown = repr(value)
        except BaseException:
            shown = "?"
        return {"object": kind, "repr": shown if len(shown) <= 60 else shown[:57] + "..."}

    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind not in "biufc" or value.size > 10 ** 6:
            return described(f"numpy array of {value.dtype} with shape {value.shape}")
        flat = np.asarray(value).ravel()
        out = {"array": [_to_plain(v) for v in flat.real.tolist()], "dtype": value.dtype.name,
               "shape": list(value.shape)}
        if value.dtype.kind == "c":
            out["imag"] = [_to_plain(v) for v in flat.imag.tolist()]
        return out
    if value is None or isinstance(value, (bool, int, float, str)):
        if isinstance(value, float) and value != value:
            return {"float": "nan"}
        if isinstance(value, float) and value in (float("inf"), float("-inf")):
            return {"float": "inf" if value > 0 else "-inf"}
        return value if type(value) in (bool, int, float, str) or value is None else described(type(value).__name__)
    if isinstance(value, complex):
        return {"complex": [_to_plain(value.real), _to_plain(value.imag)]}
    if depth > 20:
        return described(type(value).__name__)
    if isinstance(value, (tuple, list)):
        out = {"tuple" if isinstance(value, tuple) else "list": [_to_plain(v, depth + 1) for v in value]}
        if isinstance(value, tuple) and hasattr(type(value), "_fields"):
            out["type"] = f"{type(value).__module__}:{type(value).__qualname__}"
        return out
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"dict": {k: _to_plain(v, depth + 1) for k, v in value.items()}}
    if callable(value):
        return {"function": getattr(value, "__name__", "?")}
    return described(type(value).__name__)


def _from_plain(plain):
    """The value :func:`_to_plain` described: numbers, arrays, tuples, lists, dicts, strings; a
    named tuple of a ``tempnets`` module is rebuilt as one; a function or an object it could
    not send becomes a stand-in of the same type name that no check accepts."""
    import importlib
    import numpy as np

    if not isinstance(plain, dict):
        return plain
    if "float" in plain:
        return float(plain["float"])
    if "complex" in plain:
        return complex(_from_plain(plain["complex"][0]), _from_plain(plain["complex"][1]))
    if "array" in plain:
        dtype = np.dtype(plain["dtype"])
        if dtype.kind not in "biufc":
            raise ValueError(f"not an array of numbers: {plain['dtype']}")
        real = np.array([_from_plain(v) for v in plain["array"]], dtype=float if dtype.kind == "c" else dtype)
        if dtype.kind == "c":
            real = real + 1j * np.array([_from_plain(v) for v in plain["imag"]], dtype=float)
        return real.astype(dtype).reshape(plain["shape"])
    if "tuple" in plain or "list" in plain:
        items = [_from_plain(v) for v in plain.get("tuple", plain.get("list"))]
        if "list" in plain:
            return items
        module, _, name = plain.get("type", "").partition(":")
        if module.split(".")[0] == "tempnets":
            cls = getattr(importlib.import_module(module), name, None)
            if isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields"):
                return cls(*items)
        return tuple(items)
    if "dict" in plain:
        return {k: _from_plain(v) for k, v in plain["dict"].items()}
    if "function" in plain:
        def stand_in(*args, **kwargs):
            raise TypeError("this function ran in another process")
        stand_in.__name__ = str(plain["function"])
        return stand_in
    shown = str(plain.get("repr", "?"))
    return type(str(plain.get("object", "object")), (), {"__repr__": lambda self: shown})()


# ------------------------------------------------------------------ sending a student's function elsewhere
# _ship (with _to_plain) also runs in the student's kernel, copied into each grading test of an
# assignment (tempnets.book.assignments): it imports what it uses itself and uses no other name here.

def _ship(values: dict) -> dict:
    """A package from which a fresh Python rebuilds ``values`` (name → value) without pickles:
    each function by its source and the names it uses (modules and library functions by name,
    functions of a notebook or test module by source in turn, closures and data as
    :func:`_to_plain`).  No code of the student's runs here.

    Returns ``{"functions": {key: {"name", "source", "lambda", "env"}}, "names": {name: ref}}``,
    a ref being ``{"module": m}``, ``{"attr": [m, qualname]}``, ``{"function": key}`` or
    ``{"value": plain}``.

    Raises
    ------
    OSError, TypeError
        The source of a function is not available (defined by ``exec``, or built in).
    """
    import ast
    import inspect
    import linecache
    import sys
    import textwrap
    import types

    functions, keys = {}, {}
    installed = {"numpy", "tempnets", "scipy", "numba", "math"}

    def library(module):
        top = (module or "").split(".")[0]
        if not top or module == "__main__":
            return False
        path = getattr(sys.modules.get(top), "__file__", "") or ""
        return top in installed or top in sys.stdlib_module_names or "-packages" in path

    def lambda_source(fn):
        code = fn.__code__
        tree = ast.parse("".join(linecache.getlines(code.co_filename)))
        spots = [(p[0], p[2]) for p in code.co_positions() if p[0] is not None and p[2] is not None
                 and p[0] >= code.co_firstlineno]
        for node in ast.walk(tree):
            if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno:
                body = node.body
                if all((body.lineno, body.col_offset) <= s <= (body.end_lineno, body.end_col_offset)
                       for s in spots):
                    return ast.unparse(node)
        raise OSError(f"the source of a lambda on line {code.co_firstlineno} is not available")

    def names_used(code):
        out = set(code.co_names)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                out |= names_used(const)
        return out

    def define(fn):
        if id(fn) in keys:
            return keys[id(fn)]
        key = keys[id(fn)] = str(len(keys))
        is_lambda = fn.__name__ == "<lambda>"
        source = lambda_source(fn) if is_lambda else textwrap.dedent(inspect.getsource(fn))
        entry = functions[key] = {"name": fn.__name__, "source": source, "lambda": is_lambda, "env": {}}
        used = names_used(fn.__code__)
        if not is_lambda:  # and its decorators' names, which its code does not hold
            for deco in ast.parse(source).body[0].decorator_list:
                used |= {n.id for n in ast.walk(deco) if isinstance(n, ast.Name)}
        for name in sorted(used):
            if name in fn.__globals__:
                entry["env"][name] = ref(fn.__globals__[name])
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                entry["env"][name] = ref(cell.cell_contents)
            except ValueError:  # a cell not filled yet
                pass
        return key

    def ref(value):
        if isinstance(value, types.ModuleType):
            return {"module": value.__name__}
        function = getattr(value, "py_func", value)  # a numba dispatcher: its Python function
        module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", "")
        if callable(value) and library(module) and qualname and "<" not in qualname:
            return {"attr": [module, qualname]}
        if isinstance(function, types.FunctionType):
            return {"function": define(function)}
        if callable(value):  # a ufunc or builtin that does not say where it lives: numpy's or math's?
            for name in ("numpy", "math"):
                if getattr(sys.modules.get(name), getattr(value, "__name__", ""), None) is value:
                    return {"attr": [name, value.__name__]}
        return {"value": _to_plain(value)}

    names = {name: ref(value) for name, value in values.items()}
    return {"functions": functions, "names": names}


def _runner_main() -> None:
    """The loop of a runner process (:class:`_Runner`): rebuild what :func:`_ship` sent, evaluate
    an expression of it, call its functions on the arguments sent, one JSON line per request."""
    import importlib
    import io
    import json
    import os
    import sys
    import traceback

    reply_to = os.fdopen(os.dup(1), "w")  # the answers; the student's prints are captured below
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    made, handles = {}, []

    def resolve(ref):
        if "module" in ref:
            return importlib.import_module(ref["module"])
        if "attr" in ref:
            obj = importlib.import_module(ref["attr"][0])
            for part in ref["attr"][1].split("."):
                obj = getattr(obj, part)
            return obj
        return made[ref["function"]] if "function" in ref else _from_plain(ref["value"])

    def define(functions):
        spaces = {key: {"__builtins__": __builtins__, "__name__": "answer"} for key in functions}
        for key, f in functions.items():
            spaces[key].update({n: resolve(r) for n, r in f["env"].items() if "function" not in r})
            if f["lambda"]:
                made[key] = eval(f["source"], spaces[key])
            else:
                exec(f["source"], spaces[key])
                made[key] = spaces[key][f["name"]]
        for key, f in functions.items():
            spaces[key].update({n: made[r["function"]] for n, r in f["env"].items() if "function" in r})

    def handle(request):
        if "define" in request:
            d = request["define"]
            define(d["functions"])
            values = {n: resolve(r) for n, r in d["names"].items()}
            out = []
            for value in eval(d["args"], {"__builtins__": __builtins__}, values):
                if callable(value):
                    handles.append(value)
                    out.append({"handle": len(handles) - 1})
                else:
                    out.append(_to_plain(value))
            return {"args": out}
        return {"result": _to_plain(handles[request["call"]](*_from_plain(request["args"])))}

    for line in sys.stdin:
        printed = sys.stdout = sys.stderr = io.StringIO()
        try:
            reply = handle(json.loads(line))
        except BaseException as e:  # SystemExit too: the runner reports it and goes on
            reply = {"raised": type(e).__name__, "message": str(e)[:300],
                     "traceback": "".join(traceback.format_exception(type(e), e, e.__traceback__)[-3:])}
        reply["output"] = printed.getvalue()[-5000:]
        reply_to.write(json.dumps(reply) + "\n")
        reply_to.flush()


class _Runner:
    """A fresh Python (``python -I``: nothing from the working directory) that runs a student's
    functions sent by :func:`_ship`; each request gets ``seconds`` before the process is killed."""

    def __init__(self):
        import subprocess
        import tempfile

        self.errors = tempfile.TemporaryFile()  # the runner's own failures, for the message
        self.proc = subprocess.Popen([sys.executable, "-I", "-c", _RUNNER_CODE], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.errors)

    def died(self) -> dict:
        """The report of a runner that ended: its exit status and its last line on stderr."""
        code = self.proc.wait()
        self.errors.seek(0)
        last = (self.errors.read().decode(errors="replace").strip().splitlines() or [""])[-1]
        return {"died": code, "why": last[:300]}

    def ask(self, request: dict, seconds: float | None) -> dict:
        """Send ``request``; its reply, ``{"stopped": seconds}`` or ``{"died": returncode}``."""
        if self.proc.poll() is not None:
            return self.died()
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            return self.died()
        fd, data = self.proc.stdout.fileno(), b""
        deadline = None if seconds is None else time.monotonic() + seconds
        while not data.endswith(b"\n"):
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([fd], [], [], wait)[0]:
                self.close()
                return {"stopped": seconds}
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return self.died()
            data += chunk
        return json.loads(data)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.errors.close()


def _runner_code() -> str:
    import inspect

    return "\n".join(inspect.getsource(f) for f in (_to_plain, _from_plain, _runner_main)) + "\n_runner_main()\n"


_RUNNER_CODE = _runner_code()
"""What a runner runs, read once when this module is imported (a later edit of the file cannot
make it inconsistent)."""


class _Remote:
    """A student's function that lives in a runner (the grader's view of it: :func:`grade`)."""

    def __init__(self, runner: _Runner, handle: int):
        self.runner, self.handle = runner, handle

    def __call__(self, *args):
        raise TypeError("a _Remote runs through check_function")


def _runs(fn: Callable, seconds: float | None):
    """``(run, close)``: ``run(case)`` runs ``fn(*case)`` elsewhere and returns its report (see
    :func:`_answer`), ``close()`` ends the runner.  Where ``fn``'s source is not available
    (defined by ``exec``, built in), it runs here under :func:`_time_limit`."""
    if isinstance(fn, _Remote):
        return (lambda case: fn.runner.ask({"call": fn.handle, "args": _to_plain(tuple(case))}, seconds)), (lambda: None)
    try:
        package = _ship({"fn": fn})
    except (OSError, TypeError, SyntaxError):
        return (lambda case: _run_here(fn, copy.deepcopy(tuple(case)), seconds)), (lambda: None)
    runner = _Runner()
    reply = runner.ask({"define": {**package, "args": "(fn,)"}}, SETUP_LIMIT)
    if "args" not in reply:
        runner.close()
        return (lambda case: reply), (lambda: None)
    handle = reply["args"][0]["handle"]
    return (lambda case: runner.ask({"call": handle, "args": _to_plain(tuple(case))}, seconds)), runner.close


def _run_here(fn, args, seconds) -> dict:
    """``fn(*args)`` in this process under :func:`_time_limit`, reported as a runner does."""
    try:
        with _time_limit(seconds):
            return {"result": _to_plain(fn(*args)), "output": ""}
    except _TooSlow:
        return {"stopped": seconds, "output": ""}
    except Exception as e:
        return {"raised": type(e).__name__, "message": str(e)[:300], "output": "",
                "traceback": "".join(traceback.format_exception(type(e), e, e.__traceback__)[-3:])}


def _answer(name: str, k: int, run: dict, tail: str):
    """The value a run of the student's function returned, or :class:`CheckFailed` saying why
    there is none."""
    if run.get("output"):
        print(run["output"], end="" if run["output"].endswith("\n") else "\n")
    if "result" in run:
        return _from_plain(run["result"])
    case = f"{name} (test case {k + 1})"
    if "stopped" in run:
        raise CheckFailed(f"{case}: stopped after {run['stopped']:g} s without an answer — does a loop "
                          f"never end?{tail}")
    if "died" in run:
        why = f": {run['why']}" if run.get("why") else ""
        raise CheckFailed(f"{case}: the process running your function ended without an answer (exit "
                          f"status {run['died']}{why}).{tail}")
    if run["raised"] == "NotImplementedError":
        raise CheckFailed(f"{name}: not written yet (it raises NotImplementedError).{tail}")
    print(run.get("traceback", ""), file=sys.stderr, end="")
    raise CheckFailed(f"{case}: your function raised {run['raised']}: {run['message']} (its traceback "
                      f"is above).{tail}")


# ------------------------------------------------------------------ the grader's side

def grade(module: str, check: str, request: dict) -> dict:
    """Run the self-check ``module.check`` on a student's answer sent by :func:`_ship`, here (a
    fresh Python the student's notebook never ran in); the student's functions run in a runner.

    ``request`` is :func:`_ship`'s package plus ``"args"``: the Python expression of the
    check's arguments over the package's names, and ``"token"``, returned with the verdict.
    Returns ``{"token", "passed", "message"}``.
    """
    import importlib
    import io

    checker = getattr(importlib.import_module(module), check)
    runner = _Runner()
    printed = io.StringIO()
    try:
        reply = runner.ask({"define": request}, SETUP_LIMIT)
        if "args" not in reply:
            _answer(check, 0, reply, "")
        args = [_Remote(runner, a["handle"]) if isinstance(a, dict) and "handle" in a else _from_plain(a)
                for a in reply["args"]]
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
            checker(*args)
        passed, message = True, printed.getvalue().strip().splitlines()[-1]
    except CheckFailed as e:
        passed, message = False, str(e).replace(" (its traceback is above)", "")
    except Exception as e:
        passed, message = False, f"{type(e).__name__}: {e}"
    finally:
        runner.close()
    return {"token": request.get("token"), "passed": passed, "message": message}


def main(argv=None) -> int:
    """``python -I -m tempnets.book.selfcheck grade MODULE CHECK``: the request (JSON) on stdin, the
    verdict (JSON) as the last line on stdout."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 3 or argv[0] != "grade":
        print("usage: python -I -m tempnets.book.selfcheck grade MODULE CHECK < request.json", file=sys.stderr)
        return 2
    request = json.loads(sys.stdin.readline())
    print(json.dumps(grade(argv[1], argv[2], request)))
    return 0


# ------------------------------------------------------------------ the graders

def _numbers(label: str, value, want_shape, tail: str, what: str) -> np.ndarray:
    """``value`` as a float array of ``want_shape``, or :class:`CheckFailed` saying in one
    sentence what is wrong (None, a string or dict, complex numbers, a number too large for a
    float, a wrong shape, NaN)."""
    if value is None:
        raise CheckFailed(f"{label}: {what} None — did you forget `return`?{tail}")
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    if isinstance(value, (str, bytes, dict, set)) or callable(value):
        raise CheckFailed(f"{label}: {what} a {type(value).__name__} ({shown}), expected "
                          f"{'a number' if want_shape == () else f'an array of shape {want_shape}'}.{tail}")
    try:
        raw = _asarray(value)
        if raw.dtype.kind == "c":
            if np.any(raw.imag != 0):
                raise CheckFailed(f"{label}: {what} complex numbers (imaginary parts up to "
                                  f"{float(_max(_abs(raw.imag))):.3g}), expected real numbers.{tail}")
            raw = raw.real
        got = _asarray(raw, dtype=float)
    except OverflowError:
        raise CheckFailed(f"{label}: {what} a number too large for a float (above 1.8e308).{tail}") from None
    except (TypeError, ValueError):
        raise CheckFailed(f"{label}: {what} {type(value).__name__} {shown}, expected a number or an "
                          f"array of numbers.{tail}") from None
    if got.shape != want_shape:
        raise CheckFailed(f"{label}: expected shape {want_shape}, got {got.shape}.{tail}")
    if not _all(_isfinite(got)):
        raise CheckFailed(f"{label}: your result has NaN or infinite entries.{tail}")
    return got


def check_value(name: str, answer, expected, *, rtol: float = 1e-6, atol: float = 0.0,
                hint: str = "") -> None:
    """Check that ``answer`` equals ``expected`` (numbers or arrays, to ``rtol``/``atol``).

    A list or tuple is accepted where an array is expected when it converts cleanly.

    Raises
    ------
    CheckFailed
        If ``answer`` is missing (``...``/``None``), not numbers, of the wrong shape, not
        finite, or differs.
    """
    tail = f" Hint: {hint}" if hint else ""
    if answer is ... or answer is None:
        raise CheckFailed(f"{name}: no answer yet (replace the `...` with your answer).{tail}")
    want = _asarray(expected, dtype=float)
    got = _numbers(name, answer, want.shape, tail, "you have")
    if not _allclose(got, want, rtol=rtol, atol=atol):
        worst = float(_max(_abs(got - want)))
        shown = f"{float(got):.6g} but the answer is {float(want):.6g}" if got.ndim == 0 else \
            f"values that differ from the answer by up to {worst:.3g}"
        raise CheckFailed(f"{name}: you have {shown}.{tail}")
    print(f"✓ {name}: correct")


def _compare(name, k, got, want, rtol, atol, tail) -> None:
    """:class:`CheckFailed` unless the answer ``got`` of test case ``k`` equals ``want``."""
    several = isinstance(want, (tuple, list))
    wants = want if several else (want,)
    if several:
        if not isinstance(got, (tuple, list)) or len(got) != len(wants):
            n = len(got) if isinstance(got, (tuple, list)) else 1
            raise CheckFailed(f"{name}: returned {n} value(s), expected {len(wants)}.{tail}")
        gots = got
    elif isinstance(got, tuple) and np.shape(want) != (len(got),):
        raise CheckFailed(f"{name}: returned {len(got)} value(s), expected 1.{tail}")
    else:
        gots = (got,)
    for i, (g, w) in enumerate(zip(gots, wants)):
        label = f"{name} (test case {k + 1}" + (f", output {i + 1})" if len(wants) > 1 else ")")
        w = _asarray(w, dtype=float)
        g = _numbers(label, g, w.shape, tail, "your function returned")
        if not _allclose(g, w, rtol=rtol, atol=atol):
            worst = float(_max(_abs(g - w)))
            raise CheckFailed(f"{label}: differs from the correct result by up to {worst:.3g}.{tail}")


def check_function(name: str, fn: Callable, reference: Callable, cases, *, rtol: float = 1e-6,
                   atol: float = 1e-10, hint: str = "", time_limit: float | None = TIME_LIMIT) -> None:
    """Check that ``fn(*case)`` equals ``reference(*case)`` for every argument tuple in ``cases``.

    Results may be numbers, arrays or tuples/lists of arrays (compared item by item; when
    the reference returns one array, a list or tuple that converts to it is accepted).  The
    reference runs first, here; ``fn`` runs in a fresh Python (:class:`_Runner`, rebuilt from its
    source by :func:`_ship`) on a copy of the case, so an answer that changes its arguments in
    place can neither be wrongly rejected nor fool the reference, and what it changes (numpy,
    this module) stays there.  ``fn`` is stopped after ``time_limit`` seconds per case (``None``:
    no limit).
    """
    tail = f" Hint: {hint}" if hint else ""
    if not callable(fn):
        raise CheckFailed(f"{name}: expected a function, got {type(fn).__name__}.{tail}")
    run, close = _runs(fn, time_limit)
    try:
        for k, case in enumerate(cases):
            want = reference(*copy.deepcopy(case))
            _compare(name, k, _answer(name, k, run(case), tail), want, rtol, atol, tail)
    finally:
        close()
    print(f"✓ {name}: correct on {len(cases)} test case(s)")


if __name__ == "__main__":  # run as the module tempnets.book.selfcheck, whose classes the chapters' checks use
    from tempnets.book import selfcheck

    sys.exit(selfcheck.main())
