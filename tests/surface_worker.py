"""Worker of ``tests/test_public_surface.py``: calls one module's public names with bad inputs.

Run as ``python tests/surface_worker.py MODULE ... [--skip=NAME,NAME]`` (never imported by pytest's
process: a bad input may crash this process, which is the point).  For each public name of
each ``MODULE`` (its ``__all__``) that is callable and not in ``SKIP``, it takes the valid example
call of :data:`surface_examples.EXAMPLES` and calls the function again and again with ONE
argument replaced by a bad value (the fixed battery of :func:`fixed_battery` and, for arrays
and numbers, values drawn by Hypothesis with a fixed, derandomised budget).  Each outcome is
judged by :func:`verdict`; the worker prints one JSON object per line on stdout:

- ``{"start": name}`` before a function, ``{"call": name, "arg": arg, "value": desc}`` before
  each call (so the parent can say which call crashed or hung), and
- ``{"done": name, "calls": n, "failures": [...]}`` after it; ``{"end": true}`` at the end.

Memory is capped (``RLIMIT_AS``) so that a huge size gives a ``MemoryError`` (a failure: it
should have been refused by a size check) instead of swapping the machine.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import json
import math
import os
import re
import resource
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import surface_examples  # noqa: E402  (the table of valid example calls)

PACKAGE = str(Path(importlib.util.find_spec("tempnets").origin).resolve().parent)
MEMORY_LIMIT = 3 * 2**30   # bytes of address space: numba and numpy need about 1.5 GiB
MAX_FAILURES = 4           # reported per function (the first ones, distinct by argument)
ARRAY_EXAMPLES = 8         # Hypothesis examples per array argument
NUMBER_EXAMPLES = 4        # Hypothesis examples per scalar argument


PROTOCOL = None  # the worker's real stdout; fd 1 itself goes to stderr (a function may print)


def emit(**record):
    PROTOCOL.write(json.dumps(record) + "\n")
    PROTOCOL.flush()


# ----------------------------------------------------------------------------- bad values

class Bad:
    """A bad value and a short description of it (for the report)."""

    def __init__(self, value, desc: str):
        self.value, self.desc = value, desc


def describe(v) -> str:
    try:
        return _describe(v)
    except Exception:  # noqa: BLE001
        return f"<{type(v).__name__}>"


def _describe(v) -> str:
    if isinstance(v, np.ndarray):
        flat = v.ravel()
        head = ", ".join(repr(x) for x in flat[:3].tolist()) if v.dtype != object else "..."
        return f"array(shape={v.shape}, dtype={v.dtype}, [{head}{', ...' if flat.size > 3 else ''}])"
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


UNIVERSAL = [None, "x", {}, [], 1j, object()]


def fixed_battery(valid) -> list:
    """Bad values chosen by the type of a valid value (the universal ones first)."""
    out = [v for v in UNIVERSAL if not (v is None and valid is None)]
    if isinstance(valid, (bool, np.bool_)):
        out += [2, "yes"]
    elif isinstance(valid, (int, np.integer)):
        out += [-1, 0, 10**6, 10**12, 10**400, -10**400, 2.5, math.nan, np.int64(-5)]
    elif isinstance(valid, (float, np.floating)):
        out += [math.nan, math.inf, -math.inf, -1.0, 0.0, 1e300, 10**400, 5e-324]
    elif isinstance(valid, str):
        out += ["", "no-such-thing", 5, "x" * 10_000]
    elif isinstance(valid, np.ndarray):
        out += _array_battery(valid)
    elif isinstance(valid, tuple) and hasattr(valid, "_fields"):
        out += _fields_battery(valid)
    elif isinstance(valid, (list, tuple)):
        out += [type(valid)([None]), type(valid)(["x"]), type(valid)([math.nan] * max(1, len(valid)))]
    elif isinstance(valid, dict):
        out += _dict_battery(valid)
    return out


class _Unmade:
    """A bad value that could not be made from this valid value (e.g. a str array as complex)."""


def _made(make):
    try:
        return make()
    except Exception:  # noqa: BLE001
        return _Unmade()


def _array_battery(valid: np.ndarray) -> list:
    if valid.dtype.kind not in "biuf":
        return [np.empty((0,)), valid.reshape(-1)[:0], np.zeros(valid.shape + (2,))]
    out = [np.empty((0,)), np.empty((0,) * max(valid.ndim, 1)), np.zeros(valid.shape + (2,)),
           valid.reshape(-1)[:1].copy() if valid.size else np.zeros(1),
           valid.astype(complex) + 1j, valid.astype(str), valid.astype(object)]
    if valid.ndim:
        out.append(np.zeros(valid.shape[:-1] + (valid.shape[-1] + 3,), valid.dtype))
        out.append(np.zeros((valid.shape[0] + 2,) + valid.shape[1:], valid.dtype))
    if valid.dtype.kind == "f" and valid.size:
        for bad in (math.nan, math.inf, 1e300):
            a = valid.copy()
            a.flat[0] = bad
            out.append(a)
        out.append(valid.astype(np.float32))
    if valid.dtype.kind in "iu" and valid.size:
        for delta in (-10**6, 10**7, 2**62):
            a = valid.astype(np.int64).copy()
            a.flat[0] = delta
            out.append(a)
        out.append(valid.astype(float) + 0.5)
    if valid.dtype.kind == "b":
        out.append(valid.astype(float) * 2.5)
    return out


def _fields_battery(valid) -> list:
    """A NamedTuple (network parameters, tasks): one array field wrong at a time."""
    out = [tuple(valid), valid[:-1] if len(valid) > 1 else ()]
    for i, v in enumerate(valid):
        if isinstance(v, np.ndarray) and v.size:
            wrong = np.zeros(v.shape[:-1] + (v.shape[-1] + 1,), v.dtype)
            out.append(valid._replace(**{valid._fields[i]: wrong}))
            if v.dtype.kind == "f":
                a = v.copy()
                a.flat[-1] = math.nan
                out.append(valid._replace(**{valid._fields[i]: a}))
    return out


def _dict_battery(valid: dict) -> list:
    out = []
    if valid:
        first = next(iter(valid))
        out.append({k: v for k, v in valid.items() if k != first})
        out.append({**valid, first: "x"})
        for k, v in valid.items():
            if isinstance(v, np.ndarray) and v.size:
                out.append({**valid, k: np.zeros(v.shape[:-1] + (v.shape[-1] + 1,), v.dtype)})
                if v.dtype.kind == "f":
                    a = v.copy()
                    a.flat[0] = math.nan
                    out.append({**valid, k: a})
                break
    return out


def dataclass_battery(valid) -> list:
    """Configs: each field given a few bad values (built in the call, so a refusal by the
    config's own checks counts as a refusal)."""
    out = []
    for f in dataclasses.fields(valid):
        if not f.init:
            continue
        for bad in (None, "x", -1, math.nan, 10**12):
            out.append(_Replaced(valid, f.name, bad))
    return out


class _Replaced:
    """``dataclasses.replace(valid, name=bad)``, built when the call is made."""

    def __init__(self, valid, name, bad):
        self.valid, self.name, self.bad = valid, name, bad

    def build(self):
        return dataclasses.replace(self.valid, **{self.name: self.bad})

    def __repr__(self):
        return f"{type(self.valid).__name__}(..., {self.name}={describe(self.bad)})"


def make_battery(valid, budget: int) -> list:
    """Every bad value for an argument whose valid value is ``valid``."""
    try:
        battery = fixed_battery(valid)
        if dataclasses.is_dataclass(valid) and not isinstance(valid, type):
            battery += dataclass_battery(valid)
        battery += hypothesis_values(valid, budget)
    except Exception:  # noqa: BLE001  (a value this battery cannot vary: the universal ones)
        battery = [v for v in UNIVERSAL if v is not valid]
    return [b for b in battery if not isinstance(b, _Unmade)]


def _huge(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v > 1000


def hypothesis_values(valid, n_examples: int):
    """Bad values drawn by Hypothesis (derandomised: the same values on every run)."""
    from hypothesis import HealthCheck, Phase, given, settings, strategies as st
    from hypothesis.extra import numpy as hnp

    if isinstance(valid, np.ndarray):
        floats = st.floats(allow_nan=True, allow_infinity=True, width=64)
        kinds = st.sampled_from([np.float64, np.float32, np.int64, np.int8, np.uint64, np.bool_,
                                 np.complex128])
        strategy = st.one_of(
            hnp.arrays(np.float64, valid.shape, elements=floats),
            hnp.arrays(np.int64, valid.shape),
            hnp.arrays(kinds, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=6)),
        )
        n = ARRAY_EXAMPLES
    elif isinstance(valid, (bool, np.bool_)):
        return []
    elif isinstance(valid, (int, np.integer)):
        strategy = st.integers(min_value=-2**70, max_value=2**70)
        n = NUMBER_EXAMPLES
    elif isinstance(valid, (float, np.floating)):
        strategy = st.floats(allow_nan=True, allow_infinity=True)
        n = NUMBER_EXAMPLES
    else:
        return []
    drawn = []

    @settings(derandomize=True, max_examples=min(n, n_examples), deadline=None, database=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(strategy)
    def draw(value):
        drawn.append(value)

    draw()
    return drawn


# ----------------------------------------------------------------------------- judging an outcome

def accepted_names(sig: inspect.Signature, bound: dict) -> set:
    """What an error message may name: the parameters, the fields of structured arguments,
    and short identifiers passed as strings (``checks.count("n", ...)`` names ``n``)."""
    names = set(sig.parameters)
    for v in bound.values():
        if hasattr(v, "_fields"):
            names |= set(v._fields)
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            names |= {f.name for f in dataclasses.fields(v)}
        elif isinstance(v, dict):
            names |= {k for k in v if isinstance(k, str)}
        elif isinstance(v, str) and re.fullmatch(r"[A-Za-z_][\w.]*", v):
            names.add(v)
    return names


def _names(message: str, names: set) -> bool:
    return any(re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", message) for n in names)


def verdict(exc: BaseException, names: set, function: str = "") -> str | None:
    """``None`` when ``exc`` is one of our one-line errors, else why it is not.  Ours: a
    ``ValueError``/``TypeError`` raised in ``tempnets/`` (not in numpy, numba, ...) whose one-line
    message names an argument (or the function: ``"init_params: ... would need 7 TiB"``),
    or an exception class of ours."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = frames[-1] if frames else None
    ours = where is not None and os.path.realpath(where.filename).startswith(PACKAGE + os.sep)
    at = f"{Path(where.filename).name}:{where.lineno}" if where else "?"
    kind = type(exc).__name__
    msg = str(exc).strip()
    head = f"{kind}: {msg.splitlines()[0][:160] if msg else ''} (raised at {at})"
    own_class = type(exc).__module__.startswith("tempnets")
    if isinstance(exc, MemoryError) or not isinstance(exc, (ValueError, TypeError)) and not own_class:
        return head
    if not ours:
        return head + ": raised outside tempnets, not by an argument check"
    if "\n" in msg:
        return head + ": a message of several lines"
    if not own_class and not _names(msg, names | {function}):
        return head + ": the message names no argument"
    return None


# ----------------------------------------------------------------------------- one function

def probe(qualname: str, fn, example) -> tuple[int, list]:
    """Call ``fn`` with one bad argument at a time; the number of calls and the failures."""
    args, kwargs = example.args, example.kwargs
    sig = inspect.signature(fn)
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    values = dict(bound.arguments)
    names = accepted_names(sig, values)
    failures, failed_args, calls = [], set(), 0
    for pname, param in sig.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD) or pname in example.keep:
            continue
        valid = values.get(pname, None)
        battery = make_battery(valid, example.budget)
        if pname in example.work:  # a huge amount of work is a long run, not a bad input
            battery = [v for v in battery if not _huge(v)]
        for bad in battery:
            if pname in failed_args:
                break
            emit(call=qualname, arg=pname, value=describe(bad))
            calls += 1
            why = call_once(fn, sig, values, pname, bad, names)
            if why:
                failed_args.add(pname)
                failures.append(f"{pname}={describe(bad)}: {why}")
                if len(failures) >= MAX_FAILURES:
                    return calls, failures
    return calls, failures


def call_once(fn, sig, values, pname, bad, names) -> str | None:
    import matplotlib.pyplot as plt

    fresh = copy.deepcopy(values)
    try:
        fresh[pname] = bad.build() if isinstance(bad, _Replaced) else bad
        call = inspect.BoundArguments(sig, fresh)
        with warnings.catch_warnings():
            warnings.simplefilter("error", np.exceptions.ComplexWarning)
            fn(*call.args, **call.kwargs)
    except (KeyboardInterrupt, SystemExit) as exc:
        return f"{type(exc).__name__} {exc}"
    except BaseException as exc:  # noqa: BLE001  (judged, not swallowed)
        return verdict(exc, names, getattr(fn, "__name__", ""))
    finally:
        plt.close("all")
    return None


def valid_call_problem(fn, example) -> str | None:
    """Why the valid example call does not return normally (the table is wrong), or None."""
    import matplotlib.pyplot as plt

    try:
        fn(*copy.deepcopy(example.args), **copy.deepcopy(example.kwargs))
    except BaseException as exc:  # noqa: BLE001
        return f"{type(exc).__name__}: {str(exc).strip()[:200]}"
    finally:
        plt.close("all")
    return None


def main(argv: list) -> int:
    global PROTOCOL
    PROTOCOL = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    modules = [a for a in argv if not a.startswith("--skip=")]
    skip = {n for a in argv if a.startswith("--skip=") for n in a[7:].split(",")}
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    os.chdir(tempfile.mkdtemp(prefix="surface-"))  # a stray file lands here, not in the repository
    import matplotlib

    matplotlib.use("Agg")
    warnings.simplefilter("ignore")  # a warning is not an error here (ComplexWarning is, above)
    for module_name in modules:
        if module_name not in skip:
            emit(start=module_name)
            module = importlib.import_module(module_name)
            emit(done=module_name, calls=0, failures=[])
            probe_module(module_name, module, skip)
    emit(end=True)
    return 0


def probe_module(module_name, module, skip):
    for name in getattr(module, "__all__", []):
        qualname = f"{module_name}.{name}"
        obj = getattr(module, name)
        if qualname in skip or not surface_examples.needs_example(obj):
            continue
        emit(start=qualname)
        if qualname in surface_examples.NOT_PROBED:
            emit(done=qualname, calls=0, failures=[])
            continue
        example = surface_examples.example_for(qualname)
        if example is None:
            emit(done=qualname, calls=0, failures=[f"add valid example arguments for {qualname} "
                                                   "to tests/surface_examples.py"])
            continue
        problem = valid_call_problem(obj, example)
        if problem:
            emit(done=qualname, calls=1, failures=[f"the valid example call of {qualname} in "
                                                   f"tests/surface_examples.py fails: {problem}"])
            continue
        t0 = time.perf_counter()
        calls, failures = probe(qualname, obj, example)
        emit(done=qualname, calls=calls, failures=failures, seconds=round(time.perf_counter() - t0, 2))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
