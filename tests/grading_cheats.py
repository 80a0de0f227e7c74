"""Submissions that try to get the marks of a coding exercise without the work (issue 38).

Each cheat starts from the honest wrong answer (the typical slip of :data:`TARGET`) and adds one
trick to the answer cell.  Graded with otter, every one of them must score exactly what the
honest wrong answer scores.  Used by tests/test_grading_cheats.py, and runnable on its own to
print the table of issue 38 for some chapters::

    python tests/grading_cheats.py OUT_DIR [CHAPTER ...] [CHEAT ...]   # e.g. check_replaced
"""

from __future__ import annotations

import ast
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TARGET = {
    # chapter: (a function question, a solution line, the typical slip that replaces it)
    "checking_our_work": ("checking_code", "return -(t - y) * np.append(x, 1.0)",
                          "return (t - y) * np.append(x, 1.0)"),
    "fast_weights": ("fw_pstep", "return fp * (P_from + s_b * x), fp * (P_to + s_a * x)",
                     "return fp * (P_from + s_a * x), fp * (P_to + s_b * x)"),
    "focused_backprop": ("fb_code_alpha", "(T - tau) * d ** (T - tau - 1) * s[tau - 1]",
                         "(T - tau) * d ** (T - tau) * s[tau - 1]"),
    "graded_state_machines": ("gsm_bptt3_code", "W_hh=-(d.T @ c)", "W_hh=-(c.T @ d)"),
    "periodically_attentive_units": ("pa_mask", "(t - np.asarray(phase)) % np.asarray(period) == 0",
                                     "(t + np.asarray(phase)) % np.asarray(period) == 0"),
    "temporal_kernels": ("tk_kernel", "lambdas[:, None] ** (lags[None, :] - 1)",
                         "lambdas[:, None] ** lags[None, :]"),
}
"""A function exercise of every chapter with an assignment, and its typical slip."""

# every self-check of every chapter, and the graders they are built on
PATCH_CHECKS = """
import sys as _sys
def _fake(*args, **kwargs):
    print('✓ correct')
for _m in list(_sys.modules.values()):
    if getattr(_m, '__name__', '').startswith(('tempnets.chapters', 'tempnets.book.selfcheck')):
        for _n in dir(_m):
            if _n.startswith('check_'):
                setattr(_m, _n, _fake)
{callee} = _fake
"""

PATCH_TESTING = """
import numpy.testing as _npt
for _n in dir(_npt):
    if _n.startswith('assert_'):
        setattr(_npt, _n, lambda *args, **kwargs: None)
np.testing = _npt
"""

FAKE_RESULTS = """
import json as _json, os as _os
_fake = {{"tests": [{tests}], "score": {total}, "possible": {total}}}
for _d in (".", "..", "../results"):  # otter runs the notebook in submission/, beside results/
    try:
        with open(_os.path.join(_d, "results.json"), "w") as _f:
            _json.dump(_fake, _f)
    except OSError:
        pass
"""

SYSTEM_EXIT = """
def {fn}(*args, **kwargs):
    raise SystemExit(0)
"""

FOREVER = """
def {fn}(*args, **kwargs):
    import signal, time
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    while True:
        try:
            time.sleep(0.5)
        except BaseException:
            pass
"""

CHEATS = ["honest wrong", "allclose patched", "check replaced", "numpy.testing patched",
          "SystemExit in the check", "fake results.json", "loops forever"]
"""The submissions of the table of issue 38, in its order (then the solved notebook)."""


def _answer_function(cell: str) -> str:
    """The name of the function the answer cell defines (its last ``def``)."""
    return [s.name for s in ast.parse(cell).body if isinstance(s, ast.FunctionDef)][-1]


def _callee(cell: str) -> str:
    """The self-check the answer cell calls, as written (``ch.check_x`` or ``check_x``)."""
    calls = [s.value.func for s in ast.parse(cell).body
             if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)]
    return ast.unparse(calls[-1])


def prelude(cheat: str, questions: dict, callee: str = "") -> str:
    """The code a cheat that acts before the self-check runs puts at the top of the answer cell
    ("" for the others); ``callee`` is the self-check as the cell calls it."""
    tests = ", ".join(json.dumps({"name": q, "score": p, "max_score": p}) for q, p in questions.items())
    return {"allclose patched": "import numpy\nnumpy.allclose = lambda *a, **k: True\nnp.allclose = numpy.allclose\n",
            "check replaced": PATCH_CHECKS.format(callee=callee),
            "numpy.testing patched": PATCH_TESTING,
            "fake results.json": FAKE_RESULTS.format(tests=tests, total=sum(questions.values()))}.get(cheat, "")


def cheat_source(cheat: str, cell: str, questions: dict) -> str:
    """The answer cell ``cell`` (already the honest wrong answer) with the trick ``cheat``.

    Tricks that act before the self-check runs go first (:func:`prelude`); answers that replace
    the function go just before the self-check call (the cell's last line)."""
    if cheat == "honest wrong":
        return cell
    before = prelude(cheat, questions, _callee(cell))
    if before:
        return before + "\n" + cell
    fn = _answer_function(cell)
    body, _, call = cell.rstrip().rpartition("\n")
    replaced = {"SystemExit in the check": SYSTEM_EXIT, "loops forever": FOREVER}[cheat].format(fn=fn)
    return body + "\n" + replaced + "\n" + call + "\n"


def submission(solved: dict, chapter: str, cheat: str, questions: dict) -> dict:
    """The solved notebook with :data:`TARGET`'s answer made the honest wrong one, then ``cheat``."""
    question, right, slip = TARGET[chapter]
    nb = json.loads(json.dumps(solved))
    hits = [c for c in nb["cells"] if "otter_assign_solution_cell" in c["metadata"].get("tags", [])
            and right in "".join(c["source"])]
    assert len(hits) == 1, f"{chapter}: {right!r} is in {len(hits)} answer cells: update TARGET"
    cell = "".join(hits[0]["source"]).replace(right, slip)
    hits[0]["source"] = cheat_source(cheat, cell, questions)
    return nb


def grade_cli(zip_: str, notebook: Path, out: Path, timeout: float) -> dict | str:
    """Grade with ``python -m tempnets.book.assignments grade`` in its own process group: the scores,
    or what went wrong (``"hung"`` after ``timeout`` seconds, or the command's last error line)."""
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "tempnets.book.assignments", "grade", zip_, str(notebook), str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return "hung"
    if not (out / "results.json").exists():
        return "error: " + (err.strip().splitlines() or ["?"])[-1][:80]
    from tempnets.book.assignments import scores

    return scores(out / "results.json")


def table(chapters, out: Path, timeout: float = 180.0, cheats=None) -> list[str]:
    """Rows ``chapter | submission | target question | total`` for every cheat and the solved notebook."""
    from tempnets.book import assignments as A

    rows = []
    for chapter in chapters:
        built = A.build_chapter(ROOT / "book" / f"{chapter}.ipynb", out / chapter)
        solved = json.loads(Path(built["solution"]).read_text(encoding="utf-8"))
        question = TARGET[chapter][0]
        for cheat in cheats or CHEATS + ["solved"]:
            nb = solved if cheat == "solved" else submission(solved, chapter, cheat, built["questions"])
            path = out / f"{chapter}-{cheat.replace(' ', '_')}.ipynb"
            path.write_text(json.dumps(nb), encoding="utf-8")
            got = grade_cli(built["zip"], path, out / f"{chapter}-{cheat.replace(' ', '_')}", timeout)
            if isinstance(got, dict):
                s, p = got.get(question, (0, built["questions"][question]))
                total = sum(v[0] for v in got.values())
                cell = f"{s:g}/{p:g} | {total:g}/{built['points']}"
            else:
                cell = f"{got} | {got}"
            rows.append(f"| {chapter} | {cheat} | {cell} |")
            print(rows[-1], flush=True)
    return rows


if __name__ == "__main__" and sys.argv[1:2] != ["--direct"]:
    out = Path(sys.argv[1])
    names = [a for a in sys.argv[2:] if a in TARGET] or list(TARGET)
    only = [a.replace("_", " ") for a in sys.argv[2:] if a.replace("_", " ") in CHEATS + ["solved"]]
    print("| chapter | submission | " + "target question | total |\n|---|---|---|---|")
    table(names, out, cheats=only or None)


# --- grading without otter: the grading test's own code, on an answer run in this process -------

def answer_cell(chapter: str) -> str:
    """The chapter's code cell that holds :data:`TARGET`'s solution line (the instructor's)."""
    nb = json.loads((ROOT / "book" / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    right = TARGET[chapter][1]
    (cell,) = [s for s in ("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
               if right in s and "# BEGIN SOLUTION" in s]
    return cell


def imports(chapter: str) -> str:
    """The top-level import statements of the chapter's code cells, as Python."""
    from tempnets.book.assignments import _code

    nb = json.loads((ROOT / "book" / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    return "\n".join(ast.unparse(s) for c in nb["cells"] if c["cell_type"] == "code"
                     for s in ast.parse(_code("".join(c["source"]))).body if isinstance(s, (ast.Import, ast.ImportFrom)))


def run_cell(source: str, namespace: dict, name: str) -> None:
    """Run ``source`` in ``namespace`` as a notebook does: its source kept in ``linecache``."""
    import linecache

    filename = f"<cell {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)


def notebook_namespace(chapter: str, cheat: str) -> dict:
    """A namespace as the graded kernel holds it after the answer cell of :data:`TARGET` was run
    with ``cheat`` ("solved" for the instructor's cell), without running its self-check call."""
    question, right, slip = TARGET[chapter]
    cell = answer_cell(chapter)
    if cheat != "solved":
        cell = cheat_source(cheat, cell.replace(right, slip), {question: 1})
    body, _, call = cell.rstrip().rpartition("\n")
    ns = {"__name__": "__main__"}
    run_cell(imports(chapter), ns, f"{chapter} imports")
    run_cell(body + "\n", ns, f"{chapter} {cheat}")
    return ns


def grade_directly(chapter: str, cheat: str, timeout: float = 300.0) -> tuple[bool, str]:
    """``(passed, message)`` of :data:`TARGET`'s grading test, run as otter runs it in the kernel
    but without otter: in a new Python (the kernel's stand-in) that holds
    :func:`notebook_namespace` (what a cheat does there must not reach this process)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:  # what the cheat writes (a fake results.json) stays in tmp
        cwd = Path(tmp) / "autograder" / "submission"
        cwd.mkdir(parents=True)
        proc = subprocess.run([sys.executable, __file__, "--direct", chapter, cheat], capture_output=True,
                              text=True, timeout=timeout, cwd=cwd)
    lines = proc.stdout.strip().splitlines()
    assert proc.returncode == 0 and lines, proc.stderr[-2000:]
    verdict = json.loads(lines[-1])
    return verdict["passed"], verdict["message"]


def _direct(chapter: str, cheat: str) -> dict:
    """:func:`grade_directly`'s kernel stand-in."""
    import ast as _ast

    from tempnets.book.assignments import _grade_elsewhere, _imports, exercises, self_check_of

    nb = json.loads((ROOT / "book" / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    (ex,) = [e for e in exercises(nb, chapter) if e.name == TARGET[chapter][0]]
    module, check = self_check_of(ex, _imports(nb))
    call = _ast.parse(ex.check).body[0].value
    names = sorted({n.id for a in call.args for n in _ast.walk(a) if isinstance(n, _ast.Name)})
    args = "(" + "".join(_ast.unparse(a) + ", " for a in call.args) + ")"
    ns = notebook_namespace(chapter, cheat)
    try:
        _grade_elsewhere(module, check, args, {n: ns.get(n) for n in names}, seconds=240)
    except AssertionError as e:
        return {"passed": False, "message": str(e)}
    return {"passed": True, "message": ""}


if __name__ == "__main__" and sys.argv[1:2] == ["--direct"]:
    verdict = _direct(*sys.argv[2:4])
    sys.stdout.flush()
    os.write(1, ("\n" + json.dumps(verdict) + "\n").encode())
    os._exit(0)  # whatever the cheat left behind (threads, handlers) does not decide the exit
