"""make test fits in ten minutes on two cores without dropping a check (issue 35, item 2):
it runs on every core, and what it leaves out (tests marked ``long``) is ``make test-long``,
which CI runs too."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _recipe(target: str) -> list[str]:
    makefile = (ROOT / "Makefile").read_text()
    found = re.search(rf"^{re.escape(target)}: .*\n((?:\t.*\n)+)", makefile, re.M)
    assert found, f"the Makefile has no {target} target"
    return [line.strip() for line in found.group(1).splitlines()]


def _collected(*args) -> set[str]:
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return {line for line in done.stdout.splitlines() if "::" in line}


def test_make_test_runs_on_every_core_and_make_test_long_runs_the_rest():
    test, long = _recipe("test"), _recipe("test-long")
    library = [c for c in test if "pytest" in c and "tests/" in c]
    notebooks = [c for c in test if "--nbval-lax book/" in c]
    assert len(library) == 1 and "-n auto" in library[0] and '-m "not long"' in library[0], test
    # nbval's cells of one notebook run in order in one kernel: one notebook per worker
    assert len(notebooks) == 1 and "-n auto" in notebooks[0] and "--dist loadfile" in notebooks[0], test
    assert [c for c in long if "pytest" in c] == ["$(RUN) $(BIN)/python -m pytest -m long tests/"], long
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert ci.index("make test") < ci.index("make test-long"), "CI runs both targets"
    assert "make test-long" in (ROOT / "README.md").read_text()


def test_make_test_long_collects_the_perturbation_checks():
    """-m long and -m "not long" split the tests in two; test-long must not collect nothing."""
    from tempnets.book.experiments import EXPERIMENTS

    long = _collected("-m", "long", "tests/test_perturbation.py", "tests/test_book_warm_start.py")
    perturbation = {t for t in long if "test_every_verdict_survives" in t}
    assert len(perturbation) == len(EXPERIMENTS) and len(long - perturbation) == 1, long
