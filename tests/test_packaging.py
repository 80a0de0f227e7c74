"""Binder (environment.yml) and pip (pyproject.toml) must name the same packages."""

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
NOT_PACKAGES = {"python", "pip"}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def conda_names() -> set[str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    names = {_name(d) for d in env["dependencies"] if isinstance(d, str)}
    assert "conda-forge" in env["channels"]
    return names - NOT_PACKAGES


def pip_names() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        reqs += extra
    return {_name(r) for r in reqs} - {"tempnets"}


def test_environment_and_pyproject_name_the_same_packages():
    conda, pip = conda_names(), pip_names()
    assert conda - pip == set(), f"in environment.yml but not pyproject.toml: {sorted(conda - pip)}"
    assert pip - conda == set(), f"in pyproject.toml but not environment.yml: {sorted(pip - conda)}"


def test_name_parsing():
    assert _name("jupyter-book>=1.0.4,<2") == "jupyter-book"
    assert _name("tempnets[book]") == "tempnets"
    assert _name("sphinxcontrib_bibtex") == "sphinxcontrib-bibtex"


def test_postbuild_installs_tempnets_without_dependencies():
    assert "pip install --no-deps -e ." in (ROOT / "postBuild").read_text()


def test_ci_runs_the_readme_test_command():
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    assert "make test" in (ROOT / "README.md").read_text()


def test_a_hanging_test_fails_after_the_configured_timeout(request):
    """pytest-timeout is installed (test extras) and pyproject sets a per-test limit well under CI's 90 min."""
    assert request.config.pluginmanager.hasplugin("timeout")
    assert 0 < float(request.config.getini("timeout")) <= 15 * 60
