"""The README's Python example runs from the source tree and prints exactly
the output the README shows."""
import subprocess
import sys

from conftest import SOURCE_ROOT


def between(text, begin, end):
    return text[text.index(begin) + len(begin):text.index(end)]


def test_readme_python_example_prints_what_the_readme_says():
    readme = (SOURCE_ROOT / "README.md").read_text()
    code = between(readme, "# BEGIN PYTHON EXAMPLE\n", "# END PYTHON EXAMPLE")
    want = between(readme, "# BEGIN PYTHON OUTPUT\n", "# END PYTHON OUTPUT")
    r = subprocess.run([sys.executable, "-c", code], cwd=SOURCE_ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == want
