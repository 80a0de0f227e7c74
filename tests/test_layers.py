"""The package in layers (issue 37): the import graph as data, and the old paths kept.

Layers from the bottom up: ``_numerics`` (private), ``models``, ``tasks``, ``training``,
``book``, ``chapters``; ``tempnets/__main__.py`` (the command line) stands on top of them all.
A module may import its own layer and the layers below it, never one above: every
``import`` is read from the source (those inside functions too), so a lazy import cannot hide
an upward arrow.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tempnets import _layers

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tempnets"
ORDER = list(_layers.LAYERS)  # bottom up
TOP = len(ORDER)  # tempnets/__main__.py


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, root: Path = ROOT) -> set[str]:
    """Every ``tempnets`` module or name ``path`` imports, as absolute dotted paths."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "tempnets"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] == "tempnets":
                found |= {f"{module}.{a.name}" for a in node.names}
    return found


def layer_of(dotted: str) -> int | None:
    """Where ``tempnets.<layer>...`` stands (``None``: the package's own root modules)."""
    parts = dotted.split(".")
    if len(parts) > 1 and parts[1] in ORDER:
        return ORDER.index(parts[1])
    if len(parts) > 1 and parts[1] == "__main__":
        return TOP
    return None


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports(p) for p in sorted(PACKAGE.rglob("*.py"))}


def test_the_graph_is_read():
    g = graph()
    assert "tempnets.models.bptt" in g and "tempnets.models.srn.SRNParams" in g["tempnets.training.srn_trainers"]
    assert len(g) >= 45, sorted(g)


def test_no_layer_imports_a_layer_above_it():
    upward = []
    for module, targets in graph().items():
        here = layer_of(module)
        for target in targets:
            there = layer_of(target)
            if here is not None and there is not None and there > here:
                upward.append(f"{module} ({ORDER[here] if here < TOP else '__main__'}) imports {target}")
    assert not upward, "imports that point up a layer:\n  " + "\n  ".join(sorted(upward))


def test_every_import_names_a_module_of_today():
    """No import (a relative one included) goes through an old flat path's alias."""
    stale = [f"{module} imports {target}" for module, targets in graph().items() for target in targets
             if ".".join(target.split(".")[:2]) in _layers.MOVED]
    assert not stale, "\n  ".join(stale)


def test_the_root_modules_import_no_layer():
    """``tempnets/__init__.py`` and ``_layers.py`` stand outside the layers: importing the
    package imports none of them."""
    g = graph()
    for module in ("tempnets", "tempnets._layers"):
        assert all(layer_of(t) is None for t in g[module]), (module, g[module])


def test_the_check_can_fail(tmp_path):
    """The same reading finds an upward arrow where there is one, inside a function too."""
    fake = tmp_path / "tempnets" / "models" / "x.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("def f():\n    from ..book import claims\n")
    assert imports(fake, tmp_path) == {"tempnets.book.claims"}
    assert layer_of("tempnets.book.claims") > layer_of(module_name(fake, tmp_path))


@pytest.mark.parametrize("layer", ORDER)
def test_each_layer_says_what_it_holds_and_may_import(layer):
    doc = importlib.import_module(f"tempnets.{layer}").__doc__
    assert doc and ("import" in doc.lower()), f"tempnets/{layer}/__init__.py: say what it holds and may import"


@pytest.mark.parametrize("layer", ["models", "tasks", "training", "book"])
def test_a_layer_exports_exactly_its_modules(layer):
    """The public surface is what each layer's ``__init__`` exports: its modules, each public
    through its own ``__all__`` (tests/test_public_surface.py walks them)."""
    import pkgutil

    package = importlib.import_module(f"tempnets.{layer}")
    on_disk = {m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")}
    assert set(package.__all__) == on_disk == set(_layers.LAYERS[layer])
    for name in package.__all__:
        assert f"``{name}``" in package.__doc__, f"tempnets.{layer}'s table does not describe {name}"
        assert getattr(package, name) is importlib.import_module(f"tempnets.{layer}.{name}")


def test_the_private_layer_exports_nothing():
    import tempnets._numerics as numerics

    assert numerics.__all__ == []


def test_no_public_module_exports_a_private_function():
    """A function of the private layer (a kernel's helper, a check) is not re-exported as
    public by a layer above (error classes such as DivergenceError may be)."""
    leaks = []
    for layer in ("models", "tasks", "training", "book"):
        for name in importlib.import_module(f"tempnets.{layer}").__all__:
            if name in ("selfcheck", "assignments", "bookconfig"):
                continue  # no __all__ yet (tests/test_public_surface.py IF_EXPORTED)
            module = importlib.import_module(f"tempnets.{layer}.{name}")
            for public in module.__all__:
                obj = getattr(module, public)
                if callable(obj) and not isinstance(obj, type) and \
                        getattr(obj, "__module__", "").startswith("tempnets._numerics"):
                    leaks.append(f"tempnets.{layer}.{name}.{public}")
    assert not leaks, leaks


# ----------------------------------------------------------------------------- the old paths

def test_old_paths_load_as_the_same_modules():
    """Records, checkpoints and readers' notebooks written before the layers still load; a
    monkeypatch through either path is seen through the other."""
    code = ("import tempnets.srn as a, tempnets.models.srn as b; from tempnets import bptt;"
            "from tempnets.training import TrainConfig, train_online;"
            "import tempnets.training.srn_trainers as t; import tempnets.bookconfig as c;"
            "assert a is b and bptt.__name__ == 'tempnets.models.bptt' and TrainConfig is t.TrainConfig;"
            "assert c.__name__ == 'tempnets.book.bookconfig'; a.X = 1; assert b.X == 1; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]


def test_an_old_path_runs_with_python_m():
    """Instructors' scripts may say ``python -m tempnets.bookconfig student ...``."""
    done = subprocess.run([sys.executable, "-m", "tempnets.bookconfig"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2 and "usage: python -m tempnets.book.bookconfig" in done.stderr, done.stderr[-2000:]


@pytest.mark.parametrize("old, new", [
    ("tempnets.srn:SRNParams", "tempnets.models.srn:SRNParams"),
    ("tempnets.training:TrainConfig", "tempnets.training.srn_trainers:TrainConfig"),
    ("tempnets.sequences:SerialRecall", "tempnets.tasks.sequences:SerialRecall"),
    ("tempnets.chapters.tk_readings:run_readings", "tempnets.chapters.tk_readings:run_readings"),
    ("tempnets.training.optim:TrainHistory", "tempnets.training.optim:TrainHistory"),
])
def test_moved_names(old, new):
    assert _layers.moved_name(old) == new


def test_every_savable_type_of_before_is_still_read():
    from tempnets.training import checkpoint

    before = ["tempnets.optim:TrainHistory", "tempnets.optim:OptimConfig", "tempnets.training:TrainConfig",
              "tempnets.training:History", "tempnets.focused_training:FocusedConfig",
              "tempnets.focused_training:History", "tempnets.srn:SRNParams", "tempnets.focused:FocusedParams",
              "tempnets.focused:FullParams", "tempnets.sequences:SerialRecall"]
    for name in before:
        assert checkpoint._savable_type(name).__name__ == name.partition(":")[2]
    with pytest.raises(ValueError, match="not one a checkpoint may hold"):
        checkpoint._savable_type("tempnets.srn:srn_forward")


def test_every_record_target_loads():
    """Records name their experiment's function by module path (``module:function``)."""
    from tempnets.book import experiments

    assert len(experiments.EXPERIMENTS) > 30
    for exp in experiments.EXPERIMENTS:
        module, _, function = exp.target.partition(":")
        assert callable(getattr(importlib.import_module(module), function))
    targets = set()
    for record in (ROOT / "book" / "paper_scale").glob("*.json"):
        targets |= set(re.findall(r'"(tempnets\.chapters\.\w+:\w+)"', record.read_text(encoding="utf-8")))
    for target in sorted(targets):
        module, _, function = target.partition(":")
        assert callable(getattr(importlib.import_module(module), function)), target


OLD = re.compile(r"(?<![\w.])tempnets[./](" + "|".join(
    sorted((m.split(".", 1)[1] for m in _layers.MOVED), key=len, reverse=True)) + r")(?![\w/])")


def test_nothing_here_uses_an_old_path():
    """The aliases are for code outside this repository: ours names each module's place."""
    files = [p for pattern in ("tempnets/**/*.py", "tests/**/*.py", "benchmarks/**/*.py", "book/*.md",
                               "book/*.ipynb", "*.md", "Makefile", "postBuild", ".ci/*",
                               ".github/workflows/*", "_config.yml", "_toc.yml")
             for p in ROOT.glob(pattern) if p.is_file()]
    assert len(files) > 50
    # the aliases, the package docstring and the checkpoint reader name the old paths on purpose
    allowed = {PACKAGE / "_layers.py", PACKAGE / "__init__.py", PACKAGE / "training" / "checkpoint.py",
               Path(__file__).resolve()}
    found = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in files if p.resolve() not in allowed
             for m in OLD.finditer(p.read_text(encoding="utf-8"))]
    assert not found, "old flat paths (use the layer's):\n  " + "\n  ".join(found[:30])
