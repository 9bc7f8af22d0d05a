#!/usr/bin/python3
"""The documentation shows the C API examples exactly as they are compiled:
README.md shows examples/model_facts_c.c and docs/c.md shows
examples/read_model_c.c, each between its BEGIN/END C EXAMPLE markers.

  readme_check.py SOURCE_ROOT
"""
import sys

SHOWN = [("README.md", "examples/model_facts_c.c"), ("docs/c.md", "examples/read_model_c.c")]


def block(path, begin="/* BEGIN C EXAMPLE */\n", end="/* END C EXAMPLE */"):
    text = open(path, encoding="utf-8").read()
    b, e = text.find(begin), text.find(end)
    if b < 0 or e < b:
        raise SystemExit(f"markers missing in {path}")
    return text[b + len(begin):e]


root = sys.argv[1]
failed = 0
for doc, example in SHOWN:
    here = block(f"{root}/{example}")
    if block(f"{root}/{doc}") != here:
        print(f"{doc}'s C API example differs from {example}")
        failed += 1
    else:
        print(f"{doc} shows {example} verbatim ({here.count(chr(10))} lines)")
sys.exit(1 if failed else 0)
