"""Argument checks shared by the library: a clear error naming the value and what is allowed.

Every public function that hands arrays to a compiled kernel checks them here first
(``docs``: "public functions validate, private kernels compute"): :func:`array` checks one
array's dtype, shape, finiteness and range, and binds named sizes (``"n_ctx"``) in a
``dims`` dict shared by the arrays of one call, so that each array is checked against the
others; :func:`count` and :func:`real` check scalars.  Every error names the argument, the
value and what is allowed.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = ["count", "real", "array", "is_finite_real", "memory", "DivergenceError"]


class DivergenceError(FloatingPointError):
    """Training produced non-finite outputs or weights.

    Defined here, below the models, because the models' own trainers (fast weights, RTRL)
    raise it too; :mod:`tempnets.training` exports it.
    """


def count(name: str, value, minimum: int = 0, maximum: int | None = None) -> int:
    """``value`` as an ``int`` after checking it is an integer in ``[minimum, maximum]``
    (``bool`` is refused).

    Raises
    ------
    ValueError
        ``"<name> must be an integer >= <minimum>, got <value>"`` (``in [min, max]`` with a
        ``maximum``).
    """
    _integer_bound("count", "minimum", minimum)
    if maximum is not None:
        _integer_bound("count", "maximum", maximum)
    ok = not isinstance(value, bool) and isinstance(value, numbers.Integral) and value >= minimum
    if maximum is None:
        if not ok:
            raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    elif not (ok and value <= maximum):
        raise ValueError(f"{name} must be an integer in [{minimum}, {maximum}], got {value!r}")
    return int(value)


def _bounds(low, high, low_open, high_open) -> str:
    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {low:g}")
    if high is not None:
        parts.append(f"{'<' if high_open else '<='} {high:g}")
    return " and ".join(parts)


def real(name: str, value, *, low: float | None = None, high: float | None = None,
         low_open: bool = False, high_open: bool = False) -> float:
    """``value`` as a ``float`` after checking it is a finite real number within the bounds.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value
        A real number (``bool``, strings, NaN and infinities are refused).
    low, high : float, optional
        Bounds; inclusive unless ``low_open`` / ``high_open``.

    Raises
    ------
    ValueError
        ``"<name> must be a finite number [>= low] [and <= high], got <value>"``.
    """
    _real_bounds("real", low, high)
    ok = (not isinstance(value, bool) and isinstance(value, numbers.Real) and is_finite_real(value)
          and (low is None or (value > low if low_open else value >= low))
          and (high is None or (value < high if high_open else value <= high)))
    if not ok:
        rng = _bounds(low, high, low_open, high_open)
        raise ValueError(f"{name} must be a finite number{' ' + rng if rng else ''}, got {value!r}")
    return float(value)


def _first(a, bad) -> str:
    """``"<value> at index <i>"`` of the first entry where ``bad`` is true."""
    i = tuple(int(k) for k in np.argwhere(bad)[0])
    return f"{a[i].item()!r} at index {i if len(i) != 1 else i[0]}"


def array(name: str, value, shape=None, dims: dict | None = None, *, dtype: str = "float",
          finite: bool = True, low: float | None = None, high: float | None = None) -> np.ndarray:
    """``value`` as a C-contiguous array after checking its dtype, shape, finiteness and range.

    Parameters
    ----------
    name : str
        The argument's name, for the message (``"z"``, ``"params.W_out"``).
    value : array_like
        Lists and tuples are accepted when they convert cleanly.
    shape : tuple of (int, str or None), optional
        The expected shape.  An int is a fixed size, ``None`` any size, a str a named
        size: bound in ``dims`` to this array's size on first sight, checked against it
        afterwards (so ``W_in`` fixes ``"n_ctx"`` and ``z`` must then agree).
    dims : dict, optional
        Named sizes shared by the arrays of one call: ``{"n_ctx": (2, "W_in")}``, size and
        the argument that fixed it (a plain int is accepted when seeding).  Updated in place.
    dtype : {"float", "int"}
        ``"float"``: any real numbers, returned as ``float64``; ``"int"``: integers (not
        bools), returned as ``int64``.
    finite : bool
        Refuse NaN and infinities (floats only).
    low, high : float, optional
        Inclusive bounds on every entry.

    Returns
    -------
    ndarray
        ``float64`` or ``int64``, C-contiguous (a copy only when conversion needs one).

    Raises
    ------
    TypeError
        Not an array of numbers of the right kind (the message gives what was passed).
    ValueError
        A wrong shape (naming the size that disagrees and the argument that fixed it), a
        NaN or infinite entry, or an entry out of range (naming the first and its index).
    """
    _array_parameters(shape, dims, dtype, low, high)
    kinds = {"float": "biuf", "int": "iu"}[dtype]
    try:
        a = np.asarray(value)
    except (TypeError, ValueError) as err:  # e.g. ragged nested lists
        raise TypeError(f"{name} must be an array of numbers, got {type(value).__name__} ({err})") from None
    if a.dtype.kind not in kinds:
        what = "integers" if dtype == "int" else "real numbers"
        text = repr(value)
        shown = text if len(text) <= 60 and "\n" not in text else f"{type(value).__name__} of dtype {a.dtype}"
        raise TypeError(f"{name} must be an array of {what}, got {shown}")
    a = np.ascontiguousarray(a, dtype=np.float64 if dtype == "float" else np.int64)
    if shape is not None:
        _check_shape(name, a.shape, tuple(shape), {} if dims is None else dims)
    if finite and dtype == "float" and not np.isfinite(a).all():
        raise ValueError(f"{name} must be finite, got {_first(a, ~np.isfinite(a))}")
    if low is not None and (a < low).any():
        raise ValueError(f"{name} must be >= {low:g} everywhere, got {_first(a, a < low)}")
    if high is not None and (a > high).any():
        raise ValueError(f"{name} must be <= {high:g} everywhere, got {_first(a, a > high)}")
    return a


def _check_shape(name, got, want, dims):
    """Check ``got`` against ``want``, binding unknown named sizes in ``dims`` (see :func:`array`)."""
    def known(k):
        v = dims.get(k)
        return v if v is None or isinstance(v, tuple) else (int(v), None)

    new, ok = {}, len(got) == len(want)
    for g, k in zip(got, want):
        if isinstance(k, str):
            size = known(k) or new.get(k)
            if size is None:
                new[k] = (g, name)
            elif g != size[0]:
                ok = False
        elif k is not None and g != k:
            ok = False
    if not ok:
        parts, fixed = [], []
        for k in want:
            if isinstance(k, str) and known(k):
                size, source = known(k)
                parts.append(f"{k}={size}")
                if source:
                    fixed.append(f"{k} from {source}")
            else:
                parts.append("any" if k is None else str(k))
        shown = "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        where = f" ({'; '.join(dict.fromkeys(fixed))})" if fixed else ""
        raise ValueError(f"{name} must have shape {shown}{where}, got shape {got}")
    dims.update(new)


def is_finite_real(value) -> bool:
    """Whether ``value`` is a finite real number (not a bool, not NaN or infinite, and not an
    integer too large for a float such as ``10**400``, on which ``math.isfinite`` raises)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def memory(n_floats, what: str, itemsize: int = 8) -> None:
    """Refuse, before allocating, ``n_floats`` values of ``itemsize`` bytes (float64: 8,
    float32: 4) that cannot fit in memory.

    Raises ``ValueError`` naming ``what`` and the size when they would take more than the
    machine's physical memory or the address space this process has left
    (:func:`address_space_left`): numpy would try and fail with a ``MemoryError``, a compiled
    parallel loop with a bare ``SystemError``, or a Python loop would run for hours first.
    """
    import os

    n_bytes = count("itemsize", itemsize, 1, 16) * count("n_floats", n_floats)
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):  # not POSIX: assume a large machine
        total = 1 << 40
    if n_bytes > total:
        need = f"{n_bytes / 2**30:,.1f}" if n_bytes < 2**80 else f"more than {2**50:,}"  # a float holds it
        raise ValueError(f"{what} would need {need} GiB; this machine has "
                         f"{total / 2**30:,.1f} GiB of memory")
    left = address_space_left()  # under ulimit -v an allocation fails below the machine's memory,
    if n_bytes > left:           # inside a compiled parallel loop as a bare SystemError
        raise ValueError(f"{what} would need {n_bytes / 2**30:,.1f} GiB; this process may map only "
                         f"{max(left, 0) / 2**30:,.1f} GiB more (its address-space limit, ulimit -v)")


def array_in(name: str, value, dtype, shape=None, dims: dict | None = None, *,
             finite: bool = True, low: float | None = None, high: float | None = None) -> np.ndarray:
    """:func:`array`, but returned in ``dtype`` (``numpy.float32`` or ``numpy.float64``: the
    precision a kernel will compute in) and checked in it.

    A value can be finite in float64 and not in float32 (``1e39`` becomes ``inf`` when cast):
    the finiteness check runs after the cast, so such a value is refused, naming it, instead
    of reaching the kernel as ``inf``.
    """
    a = array(name, value, shape, dims, finite=False, low=low, high=high)  # type, shape, range
    with np.errstate(over="ignore"):  # (an overflow is reported below, by value)
        cast = a.astype(dtype, copy=False)
    if finite and not np.isfinite(cast).all():
        bad = ~np.isfinite(cast)
        if np.isfinite(a).all():
            limit = float(np.finfo(dtype).max)
            raise ValueError(f"{name} must be finite in {np.dtype(dtype).name} (the precision the "
                             f"model computes in, largest {limit:.3g}), got {_first(a, bad)}")
        raise ValueError(f"{name} must be finite, got {_first(a, ~np.isfinite(a))}")
    return cast


# ----------------------------------------------------------------------------- the checkers' own parameters
# A caller's mistake in calling a checker (a bound of None, a shape "n") is refused here in one
# line naming the checker's parameter, instead of a raw comparison error deep inside it.

def _integer_bound(function: str, name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{function}: {name} must be an integer, got {value!r:.60}")


def _real_bounds(function: str, low, high) -> None:
    for name, v in (("low", low), ("high", high)):
        if v is not None and not is_finite_real(v):
            raise TypeError(f"{function}: {name} must be None or a finite real number, got {v!r:.60}")


def _array_parameters(shape, dims, dtype, low, high) -> None:
    """Refuse parameters of :func:`array` it cannot use (the value itself is checked there)."""
    if shape is not None:
        if not isinstance(shape, (tuple, list)) or not all(
                k is None or isinstance(k, str) or (isinstance(k, numbers.Integral)
                                                    and not isinstance(k, bool) and k >= 0)
                for k in shape):
            raise TypeError("array: shape must be None or a tuple of sizes, each an integer >= 0, "
                            f"a named size (str) or None (any), got {shape!r:.60}")
    if dims is not None and not isinstance(dims, dict):
        raise TypeError(f"array: dims must be None or a dict of named sizes, got {dims!r:.60}")
    if not isinstance(dtype, str) or dtype not in ("float", "int"):
        raise ValueError(f"array: dtype must be 'float' or 'int', got {dtype!r:.60}")
    _real_bounds("array", low, high)


def items(name: str, value, what: str = "arrays, one per sequence") -> list:
    """``value`` as a list after checking it is a sequence (a list, a tuple, an array's rows...),
    not a single string, dict, number or None, whose items a caller then checks one by one.

    Raises
    ------
    TypeError
        ``"<name> must be a sequence of <what>, got <type>"``.
    """
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__") or (
            isinstance(value, np.ndarray) and value.ndim == 0):
        raise TypeError(f"{name} must be a sequence of {what}, got {type(value).__name__}")
    return list(value)


def address_space_left() -> float:
    """Bytes this process may still map: its address-space limit (``RLIMIT_AS``, set by
    ``ulimit -v`` or a sandbox) less what it has mapped now; infinite without a limit (or
    where it cannot be read)."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY:
            return math.inf
        import os

        with open("/proc/self/statm") as fh:
            mapped = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError, IndexError):
        return math.inf
    return float(soft - mapped)


# ----------------------------------------------------------------------------- chapters' arguments
# (issue 31: the chapter helpers' arguments; appended here, so that the helpers above keep
# their behaviour)

def shown(value) -> str:
    """``repr(value)``, cut to 60 characters (a message stays one short line)."""
    text = " ".join(repr(value).split())  # one line, whatever the value's repr
    return text if len(text) <= 60 else text[:57] + "..."


def instance(name: str, value, kinds, what: str | None = None):
    """``value`` after checking it is an instance of ``kinds`` (a class or a tuple of them).

    Raises
    ------
    TypeError
        ``"<name> must be <what>, got <type> (<value>)"``; ``what`` defaults to the classes' names.
    """
    if not isinstance(value, kinds):
        kinds = kinds if isinstance(kinds, tuple) else (kinds,)
        what = what or " or ".join(f"{'an' if k.__name__[0] in 'AEIOUaeiou' else 'a'} {k.__name__}"
                                  for k in kinds)
        raise TypeError(f"{name} must be {what}, got {type(value).__name__} ({shown(value)})")
    return value


def flag(name: str, value) -> bool:
    """``value`` as a ``bool`` after checking it is ``True`` or ``False`` (not ``1``, not ``"yes"``).

    Raises
    ------
    TypeError
        ``"<name> must be True or False, got <value>"``.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {shown(value)}")
    return bool(value)


def one_of(name: str, value, allowed):
    """``value`` after checking it is one of ``allowed`` (strings, or other hashable values).

    Raises
    ------
    ValueError
        ``"<name> must be one of 'a', 'b', got <value>"``.
    """
    allowed = list(allowed)
    try:
        ok = any(isinstance(value, type(a)) and value == a for a in allowed)
    except (TypeError, ValueError):  # e.g. an array compared with a string
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {shown(value)}")
    return value


def strings(name: str, value, *, minimum: int = 0) -> list:
    """``value`` as a list of ``str`` after checking it is a list or tuple (or array) of strings
    with at least ``minimum`` of them.

    Raises
    ------
    TypeError
        Not a sequence of strings (a single string is refused: it would be read letter by letter).
    ValueError
        Fewer than ``minimum`` strings.
    """
    if isinstance(value, np.ndarray) and value.ndim == 1:
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list of strings, got {type(value).__name__} ({shown(value)})")
    bad = [i for i, s in enumerate(value) if not isinstance(s, str)]
    if bad:
        raise TypeError(f"{name} must be a list of strings, got {shown(value[bad[0]])} at index {bad[0]}")
    if len(value) < minimum:
        raise ValueError(f"{name} must hold at least {minimum} string(s), got {len(value)}")
    return list(value)


def axes(name: str, value, n: int | None = None):
    """``value`` after checking it is ``None`` or a matplotlib ``Axes`` (with ``n``: a sequence of
    ``n`` of them, as ``plt.subplots(n)`` returns).

    Raises
    ------
    TypeError
        ``"<name> must be None or a matplotlib Axes, got <value>"``.
    """
    if value is None:
        return value
    from matplotlib.axes import Axes

    if n is None:
        return instance(name, value, Axes, "None or a matplotlib Axes")
    what = f"None or {n} matplotlib Axes (as plt.subplots({n}) returns)"
    if isinstance(value, np.ndarray):
        value = list(value.ravel())
    if not isinstance(value, (list, tuple)) or len(value) != n or not all(isinstance(a, Axes) for a in value):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__} ({shown(value)})")
    return value


def color(name: str, value):
    """``value`` after checking it is ``None`` or a colour matplotlib understands.

    Raises
    ------
    ValueError
        ``"<name> must be None or a matplotlib colour ('tab:red', '0.5', '#1f77b4', ...), got <value>"``.
    """
    from matplotlib.colors import is_color_like

    if value is not None and not is_color_like(value):
        raise ValueError(f"{name} must be None or a matplotlib colour ('tab:red', '0.5', '#1f77b4', ...), "
                         f"got {shown(value)}")
    return value
