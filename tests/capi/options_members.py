#!/usr/bin/env python3
"""onnxview_options (include/onnxview.h) mirrors onnxview::options
(include/onnxview/options.hpp) member for member, and the C API's from_c
(src/capi/model.cpp) copies every member: a member added to the C++ struct
without its C twin, or a C member the conversion forgets, fails here.

    options_members.py SOURCE_ROOT
"""
import re
import sys
from pathlib import Path

# Members only one side has, with the reason.
C_ONLY = {"abi_version"}  # the C struct's version stamp
# Members converted outside from_c, where the C callbacks are adapted.
CONVERTED_AT_OPEN = {"external_files"}


def struct_body(text: str, opening: str) -> str:
    start = text.index(opening)
    brace = text.index("{", start)
    depth = 0
    for i in range(brace, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[brace + 1:i]
    raise SystemExit(f"no end of {opening!r}")


def members(body: str):
    body = re.sub(r"//[^\n]*|/\*.*?\*/", "", body, flags=re.S)
    names = []
    for decl in body.split(";"):
        decl = decl.strip()
        if not decl:
            continue
        pointer = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)  # a function pointer
        if pointer:
            names.append(pointer.group(1))
            continue
        decl = decl.split("=", 1)[0].strip()
        names.append(re.findall(r"\w+", decl)[-1])
    return names


def main(root: Path) -> int:
    cpp = members(struct_body((root / "include/onnxview/options.hpp").read_text(), "struct options {"))
    c = members(struct_body((root / "include/onnxview.h").read_text(), "typedef struct onnxview_options {"))
    conversion = (root / "src/capi/model.cpp").read_text()
    body = conversion[conversion.index("error from_c("):]
    body = body[:body.index("\n}\n")]
    copied = set(re.findall(r"\bout\.(\w+)", body))
    problems = []
    problems += [f"C++ member {m} has no C twin in onnxview_options" for m in cpp if m not in c]
    problems += [f"C member {m} has no C++ twin in onnxview::options" for m in c if m not in cpp and m not in C_ONLY]
    problems += [f"from_c does not copy {m}" for m in cpp
                 if m in c and m not in copied and m not in CONVERTED_AT_OPEN]
    problems += [f"{m} is not converted" for m in CONVERTED_AT_OPEN if f".{m} =" not in conversion]
    print(f"onnxview::options: {len(cpp)} members; onnxview_options: {len(c)}")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    sys.exit(main(Path(sys.argv[1])))
