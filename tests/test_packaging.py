"""Binder (environment.yml) and pip (pyproject.toml) must name the same packages."""

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
NOT_PACKAGES = {"python", "pip"}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def environment_names() -> tuple[set[str], set[str]]:
    """The packages environment.yml takes from conda-forge, and those under its ``pip:`` section."""
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert "conda-forge" in env["channels"]
    conda = {_name(d) for d in env["dependencies"] if isinstance(d, str)} - NOT_PACKAGES
    sections = [d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d]
    assert len(sections) <= 1, "environment.yml: one pip: section"
    pip = {_name(r) for r in (sections[0] if sections else [])}
    return conda, pip


def conda_names() -> set[str]:
    """Every package environment.yml installs (conda-forge and pip: alike)."""
    conda, pip = environment_names()
    return conda | pip


NOT_ON_BINDER = {"cluster"}
"""Extras Binder does not install (environment.yml leaves them out): Dask, for running at
paper scale on a cluster (book/cluster.md), is of no use in a 1-2 core Binder session."""


def pip_names(skip=NOT_ON_BINDER) -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for name, extra in project["optional-dependencies"].items():
        if name not in skip:
            reqs += extra
    return {_name(r) for r in reqs} - {"tempnets"}


def test_binder_does_not_install_the_extras_it_leaves_out():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert NOT_ON_BINDER <= set(extras), f"no such extras: {sorted(NOT_ON_BINDER - set(extras))}"
    left_out = pip_names(skip=()) - pip_names()
    assert left_out, "the extras Binder leaves out add no package"
    assert not left_out & conda_names(), f"environment.yml installs {sorted(left_out & conda_names())}"


def test_environment_and_pyproject_name_the_same_packages():
    conda, pip = conda_names(), pip_names()
    assert conda - pip == set(), f"in environment.yml but not pyproject.toml: {sorted(conda - pip)}"
    assert pip - conda == set(), f"in pyproject.toml but not environment.yml: {sorted(pip - conda)}"


PYPI_ONLY = {"otter-grader", "check-jsonschema"}
"""Packages we have not seen on conda-forge: Binder would fail to solve them there, so
environment.yml must install them with pip."""


def test_environment_installs_pypi_only_packages_with_pip():
    conda, pip = environment_names()
    assert "pip" in yaml.safe_load((ROOT / "environment.yml").read_text())["dependencies"]
    assert not conda & pip, f"listed twice in environment.yml: {sorted(conda & pip)}"
    assert PYPI_ONLY <= pip, f"PyPI-only packages missing from pip: {sorted(PYPI_ONLY - pip)}"
    assert not conda & PYPI_ONLY, f"PyPI-only packages in the conda list: {sorted(conda & PYPI_ONLY)}"


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
