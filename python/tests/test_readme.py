"""The Python examples of README.md and docs/python.md run from the source
tree and print exactly the output each page shows."""
import subprocess
import sys

import pytest

from conftest import SOURCE_ROOT


def between(text, begin, end):
    return text[text.index(begin) + len(begin):text.index(end)]


@pytest.mark.parametrize("page", ["README.md", "docs/python.md"])
def test_python_example_prints_what_the_page_says(page):
    text = (SOURCE_ROOT / page).read_text()
    code = between(text, "# BEGIN PYTHON EXAMPLE\n", "# END PYTHON EXAMPLE")
    want = between(text, "# BEGIN PYTHON OUTPUT\n", "# END PYTHON OUTPUT")
    r = subprocess.run([sys.executable, "-c", code], cwd=SOURCE_ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == want
