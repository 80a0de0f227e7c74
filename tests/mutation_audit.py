"""Audit by mutation of the argument checks: does a test fail when a check is taken out?

A developer tool (not part of ``make test``).  In each module of ``TEST_FILES`` (those of
issue 21, the CLI and those issue 31 added) it finds every argument-validation statement,

- a ``raise <Name>Error(...)`` under an ``if``/``elif``/``else``: mutated to a no-op;
- a call of a :mod:`tempnets._numerics.checks` helper (``count``, ``real``, ``array``): mutated to its
  value argument (``U = checks.array("U", U, shape)`` becomes ``U = U``),

and takes them out one at a time, running the tests that could notice: those of
``tests/test_validation.py`` and of the module's own test files in which the statement
raised.  One traced run of those files finds them first; a test in which a check never
raises cannot notice it is gone (at most that its conversion is), so this is both cheap and
to the point.  A mutant is

- *killed* when a selected test fails (or its process crashes: without the check a kernel
  reads out of bounds);
- *survived* when the selected tests all pass (a test provokes the error but accepts what
  comes instead, e.g. ``pytest.raises(ValueError)`` with no message);
- *unreached* when no test makes the statement raise (nothing to run: it cannot be killed);
- *timeout* (a hang: not counted as killed; look at it);
- *error*: the tests' process was stopped by something other than a crash.

How, cheaply: the tracked files are copied to ``<scratch>/repo`` (default ``/tmp/mut``;
``/work/main/tempnets`` is never touched) and one Python process, with ``PYTHONPATH`` on the
copy and ``NUMBA_CACHE_DIR=<scratch>/numba``, imports the audited modules through a hook
that compiles every mutant into them at once, each behind a switch
(``if __mutation_audit__.on != 17: raise ...``).  Line numbers and the files on disk do not
change, so numba's cache holds.  The process runs the traced pytest session (which also
loads every kernel), then for each mutant forks a child that turns that mutant on and runs
its selected tests (``-x``, a timeout per run), one child at a time.  A test's own
subprocesses (the CLI) get the same hook and switch through ``sitecustomize``.  Checks live
in Python, never in a compiled kernel: a statement inside a ``@numba.njit`` function is
refused.

Usage (from the repository root)::

    .venv/bin/python tests/mutation_audit.py                 # every module, ~8 min
    .venv/bin/python tests/mutation_audit.py streams optim   # some modules
    .venv/bin/python tests/mutation_audit.py --list          # the statements, no runs
    .venv/bin/python tests/mutation_audit.py --rev HEAD --with tests/test_validation.py
                       # the committed code, with the tests you are writing
    .venv/bin/python tests/mutation_audit.py --json out.json # every result, as JSON

It prints each mutant not killed (``file:line  function  statement``), then the counts and
the time taken; the exit status is 1 when a mutant is not killed.  A first run compiles
the kernels into the scratch cache (a few minutes more); later runs reuse it.  (About 8 min
for 207 mutants with warm caches on two cores shared with other work: a 1-2 min traced run,
then about 1.5 s per mutant.)
"""

from __future__ import annotations

import argparse
import ast
import builtins
import copy
import hashlib
import importlib.abc
import importlib.machinery
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The modules added for the three new chapters (issue 21) and the CLI, with their own tests.
TEST_FILES = {
    "focused": ["test_focused.py", "test_surface_fixes.py"],
    "focused_training": ["test_focused.py", "test_focused_backprop.py"],
    "verbs": ["test_verbs.py", "test_surface_fixes.py"],
    "fast_weights": ["test_fast_weights.py", "test_surface_fixes.py"],
    "tkrnn": ["test_tkrnn.py"],
    "rnn_baselines": ["test_rnn_baselines.py"],
    "sequences": ["test_sequences.py"],
    "optim": ["test_optim.py"],
    "streams": ["test_streams.py", "test_surface_fixes.py"],
    "rtrl": ["test_rtrl.py", "test_surface_fixes.py"],
    "selfcheck": ["test_selfcheck.py"],
    # a chapter that is a package (issue 37) is audited file by file, every file of it
    "chapters/focused_backprop": ["test_focused_backprop.py", "test_selfcheck.py"],
    "chapters/fast_weights": ["test_fast_weights_chapter.py", "test_selfcheck.py"],
    "chapters/temporal_kernels": ["test_temporal_kernels.py", "test_selfcheck.py"],
    "chapters/checking_our_work": ["test_selfcheck.py"],
    "__main__": ["test_cli.py"],
    # Added for issue 31: the modules that gained argument checks since (the kernels' public
    # wrappers, checkpoints, assignments, self-checks' helpers) and those the public-surface
    # test made check their arguments (random, claims, intervals, explorer, grammars).
    "portable": ["test_portable.py", "test_portable_float32.py"],
    "portable_math": ["test_portable.py", "test_portable_float32.py", "test_precision.py"],
    "checkpoint": ["test_checkpoint.py", "test_cli.py"],
    "experiments": ["test_records.py", "test_cli.py", "test_perturbation.py"],
    "assignments": ["test_assignments.py"],
    "random": ["test_random.py", "test_perturbation.py", "test_surface_fixes.py"],
    "claims": ["test_claims.py", "test_surface_fixes.py"],
    "intervals": ["test_intervals.py", "test_surface_fixes.py"],
    "explorer": ["test_explorer.py", "test_surface_fixes.py"],
    "grammars": ["test_grammars.py", "test_surface_fixes.py"],
}
MODULES = list(TEST_FILES)
VALIDATION_TESTS = "test_validation.py"
CHECK_HELPERS = {"count", "real", "array"}
# Tests left out (``-k "not ..."``): they check something else and take tens of seconds each
# here (a subprocess that recompiles every kernel; book-scale runs re-derived; the graded
# state machines' BPTT self-check).  Add more with --deselect.
DESELECT = ["test_item10_no_cache_locator_falls_back_with_one_warning_line",
            "test_runner_rederives_its_claims_from_its_data",
            "test_same_seed_same_networks_whatever_the_jobs", "bptt31"]
PYTEST = ["-q", "-p", "no:cacheprovider", "-p", "no:nbval", "-o", "addopts="]
SWITCH = "__mutation_audit__"


@dataclass
class Mutant:
    id: int
    module: str
    path: str            # relative to the repository
    line: int
    kind: str            # "raise" or "check"
    function: str
    statement: str       # the first line of the statement, as written
    where: list          # lineno, col_offset, end_lineno, end_col_offset of the node
    status: str = ""     # killed | survived | unreached | timeout
    by: str = ""         # the test that killed it
    tests: list = field(default_factory=list)  # the tests in which it raised, fastest first


# ----------------------------------------------------------------------------- finding statements

def _helper_names(tree: ast.Module) -> tuple[set, set]:
    """Names bound to the ``tempnets._numerics.checks`` helpers, and names bound to the module itself."""
    helpers, modules = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if mod.split(".")[-1] == "checks":
                helpers |= {a.asname or a.name for a in node.names if a.name in CHECK_HELPERS}
            elif mod in ("", "tempnets") or mod.split(".")[-1] == "_numerics":
                modules |= {a.asname or a.name for a in node.names if a.name == "checks"}
    return helpers, modules


def _value_argument(call: ast.Call):
    """The checked value of a helper call: its second positional argument or ``value=``."""
    if len(call.args) > 1:
        return call.args[1]
    return next((k.value for k in call.keywords if k.arg == "value"), None)


def _kind(node, parent_is_if, helpers, check_modules):
    if isinstance(node, ast.Raise) and parent_is_if and node.exc is not None:
        exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        name = exc.attr if isinstance(exc, ast.Attribute) else getattr(exc, "id", "")
        return "raise" if name.endswith(("Error", "Failed", "Exit")) else None
    if isinstance(node, ast.Call) and _value_argument(node) is not None:
        f = node.func
        if ((isinstance(f, ast.Name) and f.id in helpers)
                or (isinstance(f, ast.Attribute) and f.attr in CHECK_HELPERS
                    and isinstance(f.value, ast.Name) and f.value.id in check_modules)):
            return "check"
    return None


def _where(node) -> tuple:
    return node.lineno, node.col_offset, node.end_lineno, node.end_col_offset


def module_paths(module: str, root: Path) -> list[str]:
    """``["tempnets/models/srn.py"]`` of ``srn``, or every file of a package (a chapter split
    into files).  The names above are the modules' flat names of before the layers (issue 37);
    :data:`tempnets._layers.MOVED` says where each went."""
    from tempnets._layers import MOVED

    dotted = "tempnets." + module.replace("/", ".")
    rel = MOVED.get(dotted, dotted).replace(".", "/")
    if (root / rel).is_dir():
        return sorted(p.relative_to(root).as_posix() for p in (root / rel).glob("*.py"))
    return [rel + ".py"]


def find_mutants(module: str, root: Path, first_id: int = 0) -> list[Mutant]:
    found = []
    for rel in module_paths(module, root):
        found += _file_mutants(module, rel, root, first_id + len(found))
    return found


def _file_mutants(module: str, rel: str, root: Path, first_id: int) -> list[Mutant]:
    source = (root / rel).read_text()
    lines = source.split("\n")
    helpers, check_modules = _helper_names(tree := ast.parse(source))
    found = []

    def visit(node, function, jitted):
        for child in ast.iter_child_nodes(node):
            fn, jit = function, jitted
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                fn = child.name if function == "<module>" else f"{function}.{child.name}"
                jit = jitted or any("jit" in ast.unparse(d) for d in child.decorator_list)
            kind = _kind(child, isinstance(node, ast.If), helpers, check_modules)
            if kind:
                if jit:
                    sys.exit(f"{rel}:{child.lineno}: a check inside a compiled kernel; the audit "
                             "keeps numba's cache and cannot mutate it")
                found.append(Mutant(first_id + len(found), module, rel, child.lineno, kind, fn,
                                    lines[child.lineno - 1].strip(), list(_where(child))))
            visit(child, fn, jit)

    visit(tree, "<module>", False)
    return found


# ----------------------------------------------------------------------------- the mutants, compiled in

class _Switched(ast.NodeTransformer):
    """Put each planned mutant of one file behind ``__mutation_audit__.on == id``."""

    def __init__(self, plan: dict):
        self.plan = plan  # (lineno, col, end_lineno, end_col) -> (id, kind)

    def _switch(self, op, mid, node):
        return ast.Compare(ast.Attribute(ast.Name(SWITCH, ast.Load()), "on", ast.Load()), [op],
                           [ast.Constant(mid)])

    def visit_Raise(self, node):
        self.generic_visit(node)
        mid, kind = self.plan.get(_where(node), (None, None))
        if kind != "raise":
            return node
        return ast.copy_location(ast.If(self._switch(ast.NotEq(), mid, node), [node], []), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        mid, kind = self.plan.get(_where(node), (None, None))
        if kind != "check":
            return node
        value = copy.deepcopy(_value_argument(node))
        return ast.copy_location(ast.IfExp(self._switch(ast.Eq(), mid, node), value, node), node)


class _Loader(importlib.machinery.SourceFileLoader):
    plans: dict = {}

    def get_code(self, fullname):  # never a .pyc: always the switched source
        tree = ast.parse(self.get_data(self.path), self.path)
        tree = ast.fix_missing_locations(_Switched(self.plans[self.path]).visit(tree))
        return compile(tree, self.path, "exec", dont_inherit=True)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if not name.startswith("tempnets"):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.origin in _Loader.plans:
            spec.loader = _Loader(name, spec.origin)
        return spec


class _State:
    on = -1


def install(plan_file: str) -> None:
    """Compile the planned mutants into the audited modules (all off: ``on`` is -1)."""
    plans = {}
    for m in json.loads(Path(plan_file).read_text())["mutants"]:
        plans.setdefault(m["file"], {})[tuple(m["where"])] = (m["id"], m["kind"])
    _Loader.plans = plans
    state = getattr(builtins, SWITCH, None) or _State()
    state.on = int(os.environ.get("MUTATION_AUDIT_ON", "-1"))
    setattr(builtins, SWITCH, state)
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


# ----------------------------------------------------------------------------- tracing

class Tracer:
    """Records, per test, the probe lines at which an exception was raised or passed."""

    def __init__(self, probes: dict):
        self.probes, self.hits = probes, set()

    def local(self, frame, event, arg):
        if event == "exception" and frame.f_lineno in self.probes[frame.f_code.co_filename]:
            self.hits.add((os.environ.get("MUTATION_AUDIT_TEST", "?"), frame.f_code.co_filename,
                           frame.f_lineno))
        return self.local

    def global_(self, frame, event, arg):
        return self.local if frame.f_code.co_filename in self.probes else None

    def start(self):
        sys.settrace(self.global_)
        import threading

        threading.settrace(self.global_)

    def stop(self):
        sys.settrace(None)
        import threading

        threading.settrace(None)

    def dump(self, out: str):
        with open(os.path.join(out, f"{os.getpid()}.json"), "w") as fh:
            json.dump(sorted(self.hits), fh)


def _probes(plan):
    probes = {}
    for m in plan["mutants"]:
        probes.setdefault(m["file"], set()).add(m["line"])
    return probes


SITECUSTOMIZE = '''
import os
if os.environ.get("MUTATION_AUDIT_PLAN"):  # a test's subprocess: the same mutants and switch
    import atexit, json, _mutation_audit as audit
    audit.install(os.environ["MUTATION_AUDIT_PLAN"])
    if os.environ.get("MUTATION_AUDIT_TRACE"):
        _t = audit.Tracer(audit._probes(json.load(open(os.environ["MUTATION_AUDIT_PLAN"]))))
        _t.start()
        atexit.register(_t.dump, os.environ["MUTATION_AUDIT_TRACE"])
'''


class _TestName:
    """pytest plugin: the running test's id, for the tracer (and the test's subprocesses)."""

    @staticmethod
    def pytest_runtest_setup(item):
        os.environ["MUTATION_AUDIT_TEST"] = item.nodeid

    @staticmethod
    def pytest_runtest_teardown(item):
        os.environ["MUTATION_AUDIT_TEST"] = "?"


# ----------------------------------------------------------------------------- the audit process

def run_plan(plan_file: str) -> None:
    """In the scratch copy: the traced session, then one forked child per reached mutant."""
    import pytest

    plan = json.loads(Path(plan_file).read_text())
    out = Path(plan["out"])
    install(plan_file)  # (sitecustomize did it already; harmless)
    trace_dir = out / "trace"
    shutil.rmtree(trace_dir, ignore_errors=True)
    trace_dir.mkdir(parents=True)
    os.environ["MUTATION_AUDIT_TRACE"] = str(trace_dir)
    tracer = Tracer(_probes(plan))
    report = out / "traced.txt"
    t0 = time.time()
    with open(report, "w") as fh:
        saved = os.dup(1), os.dup(2)
        os.dup2(fh.fileno(), 1)
        os.dup2(fh.fileno(), 2)
        tracer.start()
        try:
            code = pytest.main([*PYTEST, "-rfE", "--durations=0", "--timeout", str(plan["timeout"] * 10),
                                *plan["files"], *plan["select"]], plugins=[_TestName()])
        finally:
            tracer.stop()
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
    del os.environ["MUTATION_AUDIT_TRACE"]
    tracer.dump(str(trace_dir))
    text = report.read_text()
    failed = sorted({r.split()[1] for r in text.splitlines() if r.startswith(("FAILED ", "ERROR "))})
    durations = {}
    for row in text.splitlines():
        parts = row.split()
        if len(parts) == 3 and parts[0].endswith("s") and parts[1] in ("call", "setup", "teardown"):
            durations[parts[2]] = durations.get(parts[2], 0.0) + float(parts[0][:-1])
    hits = {}
    for f in trace_dir.glob("*.json"):
        for test, path, line in json.loads(f.read_text()):
            hits.setdefault((path, line), set()).add(test)
    result = {"traced_s": time.time() - t0, "traced_exit": int(code), "failed": failed, "mutants": {}}

    for m in plan["mutants"]:
        allowed = {VALIDATION_TESTS, *TEST_FILES[m["module"]]}
        tests = sorted((t for t in hits.get((m["file"], m["line"]), ()) if t not in failed
                        and t.split("::")[0].split("/")[-1] in allowed),
                       key=lambda t: (durations.get(t, 0.0), t))
        r = {"tests": tests, "status": "unreached", "by": ""}
        result["mutants"][str(m["id"])] = r
        if tests:
            r["status"], r["by"] = _run_mutant(m["id"], tests, plan["timeout"], out)
    (out / "result.json").write_text(json.dumps(result))


def _run_mutant(mid: int, tests: list, timeout: float, out: Path) -> tuple[str, str]:
    import pytest

    log = out / "mutant.txt"
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: this mutant on, its tests, and out
        code = 3
        try:
            os.setpgid(0, 0)
            getattr(builtins, SWITCH).on = mid
            os.environ["MUTATION_AUDIT_ON"] = str(mid)
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            code = pytest.main([*PYTEST, "-x", "-rfE", "-p", "no:randomly", "--timeout", str(int(timeout)),
                                *tests])
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(int(code))
    deadline = time.time() + timeout + 30
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.time() > deadline:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "timeout", f"no result after {timeout:g} s"
        time.sleep(0.05)
    if os.WIFSIGNALED(status):  # a crash counts; another signal means the audit is broken
        sig = signal.Signals(os.WTERMSIG(status))
        crashed = sig in (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS, signal.SIGFPE, signal.SIGILL)
        return "killed" if crashed else "error", f"the tests' process died ({sig.name})"
    code = os.WEXITSTATUS(status)
    text = log.read_text(errors="replace")
    if code == 0:
        return "survived", ""
    if code == 1:
        failed = [r.split()[1] for r in text.splitlines() if r.startswith(("FAILED ", "ERROR "))]
        return "killed", failed[0] if failed else "?"
    return "killed", f"pytest exit {code}: " + " / ".join(text.strip().splitlines()[-2:])


# ----------------------------------------------------------------------------- the scratch copy

def make_scratch(scratch: Path, rev: str | None, worktree: list) -> Path:
    """Copy the tracked files to ``scratch/repo``: as they are on disk, or as committed in
    ``rev`` except the ``worktree`` paths (taken from disk).  Each file's modification time is
    derived from its content, so numba's cache in ``scratch/numba`` stays valid from one audit
    to the next for every file that did not change."""
    repo = scratch / "repo"
    if repo.exists():
        shutil.rmtree(repo)
    repo.mkdir(parents=True)
    if rev:
        archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        tarfile.open(fileobj=io.BytesIO(archive)).extractall(repo)
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split("\0")
    for f in filter(None, worktree if rev else files):
        if (ROOT / f).is_file():
            (repo / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / f, repo / f)
    for f in repo.rglob("*"):
        if f.is_file():
            stamp = int(hashlib.sha1(f.read_bytes()).hexdigest()[:7], 16)  # 1970 to 1978
            os.utime(f, (stamp, stamp))
    tools = scratch / "tools"
    tools.mkdir(exist_ok=True)
    shutil.copyfile(__file__, tools / "_mutation_audit.py")
    (tools / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return repo


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("modules", nargs="*", default=MODULES,
                   help=f"modules under tempnets/ (default: all of {', '.join(MODULES)})")
    p.add_argument("--scratch", type=Path, default=Path(tempfile.gettempdir()) / "mut")
    p.add_argument("--timeout", type=int, default=30, help="seconds per mutant's run (default 30)")
    p.add_argument("--deselect", action="append", default=list(DESELECT), metavar="NAME",
                   help="leave out every test whose name contains NAME")
    p.add_argument("--rev", help="audit the files of this commit (default: the working tree)")
    p.add_argument("--with", dest="worktree", action="append", default=[], metavar="PATH",
                   help="with --rev: take PATH from the working tree (e.g. the tests you are writing)")
    p.add_argument("--list", action="store_true", help="list the statements found and stop")
    p.add_argument("--json", type=Path, help="write every mutant's result here")
    args = p.parse_args(argv)
    for mod in args.modules:
        if mod not in TEST_FILES:
            p.error(f"unknown module {mod!r}; allowed: {', '.join(MODULES)}")
    scratch = args.scratch.resolve()
    if ROOT in (scratch, *scratch.parents):
        p.error(f"--scratch must be outside the repository, got {scratch}")

    t0 = time.time()
    scratch.mkdir(parents=True, exist_ok=True)
    repo = make_scratch(scratch, args.rev, args.worktree)
    mutants = []
    for mod in args.modules:
        mutants += find_mutants(mod, repo, len(mutants))
    if args.list:
        for m in mutants:
            print(f"{m.path}:{m.line}\t{m.kind}\t{m.function}\t{m.statement}")
        print(f"{len(mutants)} statements")
        return 0
    files = sorted({VALIDATION_TESTS} | {f for mod in args.modules for f in TEST_FILES[mod]})
    plan = {"out": str(scratch), "timeout": args.timeout, "files": [f"tests/{f}" for f in files],
            "select": ["-k", " and ".join(f"not {d}" for d in args.deselect)] if args.deselect else [],
            "mutants": [dict(asdict(m), file=str(repo / m.path)) for m in mutants]}
    (scratch / "plan.json").write_text(json.dumps(plan))
    (scratch / "result.json").unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MUTATION_AUDIT_")}
    env.update(PYTHONPATH=f"{repo}{os.pathsep}{scratch / 'tools'}", NUMBA_CACHE_DIR=str(scratch / "numba"),
               PYTHONDONTWRITEBYTECODE="1", TEMPNETS_PROGRESS="0", MPLBACKEND="Agg",
               # GNU OpenMP stops a forked child at its next parallel kernel (SIGTERM); the
               # work-queue layer gives the same results (one prange iteration per network)
               NUMBA_THREADING_LAYER="workqueue",
               MUTATION_AUDIT_PLAN=str(scratch / "plan.json"))
    print(f"{len(mutants)} statements in {len(args.modules)} modules; tests: {', '.join(files)}",
          flush=True)
    code = subprocess.run([sys.executable, "-c", "import _mutation_audit as a, sys; "
                           "a.run_plan(sys.argv[1])", str(scratch / "plan.json")], cwd=repo, env=env).returncode
    if code != 0 or not (scratch / "result.json").exists():
        print(f"the audit process failed (exit {code}); see {scratch / 'traced.txt'}", file=sys.stderr)
        return 2
    result = json.loads((scratch / "result.json").read_text())
    print(f"traced run: {result['traced_s']:.0f} s (pytest exit {result['traced_exit']})")
    for t in result["failed"]:
        print(f"left out: {t} fails on the real code")
    for m in mutants:
        r = result["mutants"][str(m.id)]
        m.status, m.by, m.tests = r["status"], r["by"], r["tests"]
        if m.status != "killed":
            print(f"{m.status:9s} {m.path}:{m.line}  {m.function}  {m.statement}"
                  + (f"  ({m.by})" if m.by else ""))
    counts = {s: sum(m.status == s for m in mutants)
              for s in ("killed", "survived", "unreached", "timeout", "error")}
    elapsed = time.time() - t0
    print(f"{len(mutants)} mutants: " + ", ".join(f"{v} {k}" for k, v in counts.items())
          + f"; {elapsed / 60:.1f} min")
    if args.json:
        args.json.write_text(json.dumps(dict(elapsed_s=round(elapsed, 1), counts=counts,
                                             left_out=result["failed"],
                                             mutants=[asdict(m) for m in mutants]), indent=1))
    return 1 if counts["killed"] < len(mutants) else 0


if __name__ == "__main__":
    sys.exit(main())
