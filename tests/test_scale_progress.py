import pytest

from tempnets.training.progress import progress_bar, progress_enabled
from tempnets.book.scale import choose, get_scale


def test_default_scale_is_book(monkeypatch):
    monkeypatch.delenv("TEMPNETS_SCALE", raising=False)
    assert get_scale() == "book"


def test_scale_from_environment_and_argument(monkeypatch):
    monkeypatch.setenv("TEMPNETS_SCALE", "paper")
    assert get_scale() == "paper"
    assert get_scale("book") == "book"
    assert choose(10, 2_400_000) == 2_400_000


@pytest.mark.parametrize("bad", ["huge", "", 3])
def test_unknown_scale_is_a_clear_error(bad):
    with pytest.raises(ValueError, match="allowed: book, paper"):
        get_scale(bad)


def test_unknown_scale_in_environment_names_the_variable(monkeypatch):
    monkeypatch.setenv("TEMPNETS_SCALE", "medium")
    with pytest.raises(ValueError, match="TEMPNETS_SCALE"):
        get_scale()


def test_progress_switch(monkeypatch):
    monkeypatch.setenv("TEMPNETS_PROGRESS", "0")
    assert progress_enabled() is False
    assert progress_enabled(True) is True
    monkeypatch.delenv("TEMPNETS_PROGRESS")
    assert progress_enabled() is True
    with pytest.raises(TypeError):
        progress_enabled("yes")


def test_disabled_bar_prints_nothing(capsys):
    with progress_bar(10, "training", progress=False) as bar:
        bar.update(5)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_enabled_bar_reports_in_a_terminal(capsys):
    with progress_bar(10, "training", progress=True, unit="strings") as bar:
        bar.update(10)
    assert "training" in capsys.readouterr().err
