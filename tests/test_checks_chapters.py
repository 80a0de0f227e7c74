"""The argument checks added for the chapter helpers (issue 31): each returns the value it
accepts and refuses a bad one with one line naming the argument, what was wrong and what is
allowed."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from tempnets._numerics import checks  # noqa: E402


def test_instance():
    assert checks.instance("task", "flipflop", str) == "flipflop"
    with pytest.raises(TypeError, match=r"^task must be a str, got int \(3\)$"):
        checks.instance("task", 3, str)
    with pytest.raises(TypeError, match=r"^runs must be a dict of runs, got list \(\[\]\)$"):
        checks.instance("runs", [], dict, "a dict of runs")
    with pytest.raises(TypeError, match="x must be an int or a float"):
        checks.instance("x", "1", (int, float))


def test_flag():
    assert checks.flag("outline", np.bool_(True)) is True
    for bad in (1, "yes", None):
        with pytest.raises(TypeError, match="^outline must be True or False, got "):
            checks.flag("outline", bad)


def test_one_of():
    assert checks.one_of("interface", "from-to", ("per-weight", "from-to")) == "from-to"
    with pytest.raises(ValueError, match=r"^interface must be one of 'per-weight', 'from-to', got 'x'$"):
        checks.one_of("interface", "x", ("per-weight", "from-to"))
    for bad in (np.ones(2), {}, None):  # an array, an unhashable value: refused, not a raw error
        with pytest.raises(ValueError, match="^interface must be one of"):
            checks.one_of("interface", bad, ("per-weight",))


def test_strings():
    assert checks.strings("labels", ("a", "b")) == ["a", "b"]
    assert checks.strings("labels", np.array(["a", "b"])) == ["a", "b"]
    with pytest.raises(TypeError, match=r"^labels must be a list of strings, got str \('ab'\)$"):
        checks.strings("labels", "ab")  # read letter by letter, it would pass silently
    with pytest.raises(TypeError, match="^labels must be a list of strings, got 1 at index 1$"):
        checks.strings("labels", ["a", 1])
    with pytest.raises(ValueError, match="^labels must hold at least 1 string"):
        checks.strings("labels", [], minimum=1)


def test_shown_is_one_short_line():
    text = checks.shown(np.zeros((3, 3)))
    assert "\n" not in text and len(text) <= 60


def test_axes_and_color():
    fig, axes = plt.subplots(2)
    try:
        assert checks.axes("ax", None) is None and checks.axes("ax", axes[0]) is axes[0]
        assert list(checks.axes("axes", axes, 2)) == list(axes)
        with pytest.raises(TypeError, match="^ax must be None or a matplotlib Axes, got str"):
            checks.axes("ax", "x")
        with pytest.raises(TypeError, match=r"^axes must be None or 2 matplotlib Axes"):
            checks.axes("axes", axes[:1], 2)
    finally:
        plt.close(fig)
    assert checks.color("color", "tab:red") == "tab:red" and checks.color("color", None) is None
    with pytest.raises(ValueError, match="^color must be None or a matplotlib colour"):
        checks.color("color", "no-such-colour")


def test_array_type_error_is_one_line():
    """A small 2-D array's repr spans lines: the message shows its dtype instead."""
    with pytest.raises(TypeError) as err:
        checks.array("r2", np.ones((2, 2)) + 1j)
    assert "\n" not in str(err.value) and "complex128" in str(err.value)
