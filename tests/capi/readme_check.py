#!/usr/bin/python3
"""README.md shows the C API example (examples/read_model_c.c, between its
BEGIN/END C EXAMPLE markers) exactly as it is compiled.

  readme_check.py SOURCE_ROOT
"""
import sys


def block(path, begin="/* BEGIN C EXAMPLE */\n", end="/* END C EXAMPLE */"):
    text = open(path, encoding="utf-8").read()
    b, e = text.find(begin), text.find(end)
    if b < 0 or e < b:
        raise SystemExit(f"markers missing in {path}")
    return text[b + len(begin):e]


root = sys.argv[1]
here = block(f"{root}/examples/read_model_c.c")
readme = block(f"{root}/README.md")
if here != readme:
    print("README.md's C API example differs from examples/read_model_c.c")
    sys.exit(1)
print(f"README shows examples/read_model_c.c verbatim ({here.count(chr(10))} lines)")
