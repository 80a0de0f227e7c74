# The README's commands. Each creates .venv (with the Python 3.10+ found as
# $(PYTHON)) and installs tempnets with its extras when pyproject.toml changes.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# Executed pages carry no progress widgets. (Do not set MPLBACKEND: it overrides
# the kernel's inline backend and the built pages lose their figures.)
RUN    := TEMPNETS_PROGRESS=0

.PHONY: test test-long book book-fingerprint student-book bench clean assignments test-assignments

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; v = sys.version_info; sys.exit(0 if v >= (3, 10) else "Python 3.10+ is needed, $(PYTHON) is %d.%d" % v[:2])'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --editable '.[book,test]'
	touch $@

# make test: the library tests, then every chapter notebook (nbval), each on every core
# (pytest-xdist; a notebook's cells stay together on one worker, in order). The checks that
# take minutes of CPU each (marked long: every experiment trained at book scale twice, the
# Binder warm-up) are make test-long, a second target; .ci/run runs both.
test: $(STAMP)
	$(RUN) $(BIN)/python -m pytest -n auto -m "not long" tests/
	$(RUN) $(BIN)/python -m pytest -n auto --dist loadfile --nbval-lax book/

test-long: $(STAMP)
	$(RUN) $(BIN)/python -m pytest -m long tests/

# jupyter-cache keys a chapter on its code cells only: refresh-cache empties the cache
# when the library, the records in book/paper_scale/ or the installed packages changed
# (tempnets.book.bookconfig.book_fingerprint), so the book never shows what older code computed.
# --all: Sphinx re-reads every page (an unchanged chapter comes from the cache), since its
# own saved state would keep an unchanged notebook's old page without asking the cache.
book: $(STAMP)
	$(RUN) $(BIN)/python -m tempnets.book.bookconfig refresh-cache .
	$(RUN) $(BIN)/jupyter-book build . --all -n -W --keep-going
	$(BIN)/python -m tempnets.book.bookconfig check-figures book _build/html
	$(BIN)/python -m tempnets.book.bookconfig check-outputs _build/jupyter_execute
	@echo "Open _build/html/index.html"

# The fingerprint refresh-cache compares, in make book's environment (the Pages workflow keys
# its saved cache on it).
book-fingerprint: $(STAMP)
	@$(RUN) $(BIN)/python -m tempnets.book.bookconfig fingerprint .

# Student edition: built from student notebooks (no solutions; coding exercises
# scaffolded, their solution lines replaced by a placeholder), which each page offers
# for download; no Binder, Colab or repository buttons (they would open the instructor's
# notebooks on main). The notebooks take their outputs from the instructor build, so
# nothing is executed again; only the HTML is kept.
student-book: book
	rm -rf _build/student _build/student-work _build/student-src
	$(BIN)/python -m tempnets.book.bookconfig student _config.yml _build/student-config.yml
	$(BIN)/python -m tempnets.book.bookconfig student-sources . _build/student-src _build/jupyter_execute
	$(RUN) $(BIN)/jupyter-book build _build/student-src --config _build/student-config.yml --path-output _build/student-work -n -W --keep-going
	mv _build/student-work/_build/html _build/student
	rm -rf _build/student-work _build/student-src _build/student-config.yml
	@echo "Open _build/student/index.html"

# Otter-grader assignments from the chapters' coding exercises (book/for_instructors.md):
# _build/assignments/<chapter>/ (student notebook, solved notebook, autograder zip).
assignments: $(STAMP)
	$(BIN)/python -m tempnets.book.assignments build _build/assignments

# Every chapter's assignment graded for real (solved, untouched, one wrong answer); make test grades one.
test-assignments: $(STAMP)
	TEMPNETS_ALL_ASSIGNMENTS=1 $(RUN) $(BIN)/python -m pytest tests/test_assignments.py tests/test_grading_cheats.py

# One script per engine (benchmarks/bench_*.py), each printing its lines.
bench: $(STAMP)
	set -e; for f in benchmarks/bench_*.py; do $(BIN)/python $$f; done

clean:
	rm -rf _build .pytest_cache
