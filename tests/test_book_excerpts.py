"""A code block that a chapter calls "an excerpt of `path`" is a verbatim (dedented) slice of that
file, so the readable references shown beside the equations cannot drift from the tested code."""

import json
import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = [p for p in sorted((ROOT / "book").rglob("*.ipynb")) if ".ipynb_checkpoints" not in p.parts]
EXCERPT = re.compile(r"an excerpt of `([^`]+)`.*?\n```\w*\n(.*?)\n```", re.S)


def excerpts():
    for path in NOTEBOOKS:
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown":
                for m in EXCERPT.finditer("".join(cell["source"])):
                    yield pytest.param(m.group(1), m.group(2), id=f"{path.name}:{m.group(1)}")


def is_slice_of(block: str, source: str) -> bool:
    lines, want = source.splitlines(), block.splitlines()
    return any(textwrap.dedent("\n".join(lines[i:i + len(want)])) == block
               for i in range(len(lines) - len(want) + 1))


@pytest.mark.parametrize("source, block", list(excerpts()))
def test_excerpt_is_a_verbatim_slice_of_its_file(source, block):
    assert is_slice_of(block, (ROOT / source).read_text(encoding="utf-8")), \
        f"the excerpt of {source} shown in the book is no longer in that file"


def test_excerpt_check_can_fail():
    source = "def f(x):\n    y = x + 1\n    return y\n"
    assert is_slice_of("y = x + 1\nreturn y", source)
    assert not is_slice_of("y = x + 2\nreturn y", source)


def test_the_book_shows_an_excerpt():
    assert list(excerpts()), "no excerpt found: did the PA chapter's reference excerpt move?"
