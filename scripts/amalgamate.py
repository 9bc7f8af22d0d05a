#!/usr/bin/env python3
"""Writes single_include/onnxview.hpp: every public header of include/onnxview
(in dependency order) and the C API's include/onnxview.h, then every library
source of src/ under
#ifdef ONNXVIEW_IMPLEMENTATION, stb/cgltf style.

    scripts/amalgamate.py            # write the file
    scripts/amalgamate.py --check    # exit 1 if the committed file is stale

Define ONNXVIEW_IMPLEMENTATION in exactly one translation unit before
including the header.

The build (meson -Dsingle_header=true, see single_include/meson.build) also
uses it to test the amalgamation itself:

    --output FILE      write the header to FILE instead
    --depfile FILE     also write a Makefile depfile (FILE's inputs)
    --impl-cpp FILE    also write a .cpp that defines ONNXVIEW_IMPLEMENTATION
                       and includes the header (by FILE's relative path)
    --shims DIR        write DIR/onnxview/<x>.hpp for every public header, each
                       one line including the single header, so code written
                       against include/ compiles unchanged (DIR must be the
                       directory of --output, or single_include/ by default)
    --shims-only       write only the shims (meson does this at configure time)
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "single_include", "onnxview.hpp")
LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$')
SYSTEM_INCLUDE = re.compile(r'^\s*#\s*include\s+<([^>]+)>\s*$')


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def resolve(inc, from_file):
    for base in (os.path.join(ROOT, "include"), os.path.dirname(from_file), os.path.join(ROOT, "src")):
        p = os.path.normpath(os.path.join(base, inc))
        if os.path.exists(p):
            return p
    raise SystemExit(f"{from_file}: cannot resolve #include \"{inc}\"")


def ordered(files):
    """Files in an order where each comes after the local files it includes."""
    done, out = set(), []

    def visit(p, stack=()):
        if p in done:
            return
        if p in stack:
            raise SystemExit("include cycle: " + " -> ".join(stack + (p,)))
        for line in read(p).splitlines():
            m = LOCAL_INCLUDE.match(line)
            if m:
                visit(resolve(m.group(1), p), stack + (p,))
        done.add(p)
        out.append(p)

    for p in files:
        visit(p)
    return out


# Parts of the implementation a program may leave out (one translation unit
# pulls in whatever any function of it references, so this matters for static
# binaries): define the macro before the implementation include. The checker
# uses the text and io parts, so leaving either out leaves it out too; the
# writer uses io's heap, so leaving io out leaves it out too.
OPTIONAL_PARTS = [
    ("src/check/", "ONNXVIEW_NO_CHECK"),
    ("src/text/", "ONNXVIEW_NO_TEXT"),
    ("src/io/", "ONNXVIEW_NO_IO"),
    ("src/open/", "ONNXVIEW_NO_IO"),  # model_file opens files
    ("src/write/", "ONNXVIEW_NO_WRITE"),
    ("src/capi/", "ONNXVIEW_NO_IO"),  # the C API opens models through model_file
]
OPTIONAL_PRELUDE = (
    "#if defined(ONNXVIEW_NO_TEXT) || defined(ONNXVIEW_NO_IO)\n"
    "#ifndef ONNXVIEW_NO_CHECK\n#define ONNXVIEW_NO_CHECK  // the checker needs text/ and io/\n#endif\n"
    "#endif\n"
    "#if defined(ONNXVIEW_NO_IO) && !defined(ONNXVIEW_NO_WRITE)\n"
    "#define ONNXVIEW_NO_WRITE  // the writer takes its memory through io/'s heap\n"
    "#endif\n\n")


def optional_macro(path):
    rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
    for prefix, macro in OPTIONAL_PARTS:
        if rel == prefix or (prefix.endswith("/") and rel.startswith(prefix)):
            return macro
    return None


def guarded(path, system):
    text = body(path, system)
    macro = optional_macro(path)
    return f"#ifndef {macro}\n{text}#endif  // {macro}\n" if macro else text


def body(path, system):
    lines = []
    for line in read(path).splitlines():
        if LOCAL_INCLUDE.match(line):
            continue
        m = SYSTEM_INCLUDE.match(line)
        if m and not line.startswith(" "):
            system.add(m.group(1))
        lines.append(line)
    rel = os.path.relpath(path, ROOT)
    return f"// ---- {rel} ----\n" + "\n".join(lines) + "\n"


def inputs():
    """(public headers, library sources), absolute paths."""
    headers = []
    for dirpath, dirs, names in os.walk(os.path.join(ROOT, "include", "onnxview")):
        # include/onnxview/compare/ and remote/: the optional libraries over libxxhash and libcurl
        # (src/compare/, src/remote/), not part of the dependency-free single header.
        dirs[:] = [d for d in dirs if d not in ("compare", "remote")]
        # graph.hpp, profile.hpp, stats.hpp and scan.hpp: the optional
        # libraries onnxview_graph (src/graph/), onnxview_profile
        # (src/profile/), onnxview_stats (src/stats/) and onnxview_scan
        # (src/scan/), which allocate freely; not part of the single header
        # either.
        optional = ("graph.hpp", "profile.hpp", "scan.hpp", "stats.hpp")
        headers += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith(".hpp") and n not in optional]
    headers.append(os.path.join(ROOT, "include", "onnxview.h"))  # C programs include it as it is
    sources = []
    for part in ("wire", "model", "text", "io", "open", "check", "diagnose", "write", "capi"):
        d = os.path.join(ROOT, "src", part)
        if os.path.isdir(d):
            sources += [os.path.join(d, n) for n in sorted(os.listdir(d)) if n.endswith(".cpp")]
    return sorted(headers), sources


# The POSIX io code defines _FILE_OFFSET_BITS before its system includes (so a
# 32-bit host can stat and map files over 2 GiB). In one amalgamated file the
# API's standard headers come first, so the define is hoisted to the top; it
# works when onnxview.hpp is the first include of the implementation file.
PRELUDE = (
    "#if defined(ONNXVIEW_IMPLEMENTATION) && !defined(_WIN32) && !defined(_FILE_OFFSET_BITS)\n"
    "#define _FILE_OFFSET_BITS 64  // 32-bit hosts: files over 2 GiB (see src/io/file_posix.cpp)\n"
    "#endif\n\n")


def generate():
    headers, sources = inputs()
    public = ordered(headers)
    impl = [p for p in ordered(sources) if p not in public]
    system = set()
    api = "".join(body(p, system) for p in public)
    implementation = OPTIONAL_PRELUDE + "".join(guarded(p, system) for p in impl)
    return (
        "// onnxview.hpp - single-header onnxview: a zero-copy reader of ONNX model files.\n"
        "// Generated by scripts/amalgamate.py from include/ and src/; do not edit.\n"
        "//\n"
        "// In exactly one .cpp file:\n"
        "//     #define ONNXVIEW_IMPLEMENTATION\n"
        "//     #include \"onnxview.hpp\"\n"
        "// Everywhere else just #include \"onnxview.hpp\". Needs C++17; works with\n"
        "// -fno-exceptions -fno-rtti. See README.md for the API. Include it first in\n"
        "// the implementation file (32-bit POSIX hosts need _FILE_OFFSET_BITS=64\n"
        "// before any system header to open files over 2 GiB).\n"
        "//\n"
        "// Optional parts: defining ONNXVIEW_NO_CHECK (check_model), ONNXVIEW_NO_TEXT\n"
        "// (text/JSON printers, field paths), ONNXVIEW_NO_IO (mapped files,\n"
        "// external data) or ONNXVIEW_NO_WRITE (pack_model, same_tensors) before the\n"
        "// implementation include leaves that part out; its declarations stay, so\n"
        "// using it is a link error. Leaving out text or io leaves out the checker\n"
        "// too; leaving out io leaves out the writer.\n"
        + PRELUDE +
        "#ifndef ONNXVIEW_SINGLE_HEADER_HPP\n#define ONNXVIEW_SINGLE_HEADER_HPP\n\n"
        + api +
        "\n#endif  // ONNXVIEW_SINGLE_HEADER_HPP\n\n"
        "#ifdef ONNXVIEW_IMPLEMENTATION\n#ifndef ONNXVIEW_IMPLEMENTATION_DONE\n"
        "#define ONNXVIEW_IMPLEMENTATION_DONE\n\n" + implementation +
        "\n#endif  // ONNXVIEW_IMPLEMENTATION_DONE\n#endif  // ONNXVIEW_IMPLEMENTATION\n")


def write(path, text):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    try:
        if read(path) == text:
            return  # unchanged: keep the timestamp, nothing needs rebuilding
    except FileNotFoundError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def shims(out_dir, header):
    for h in (h for h in inputs()[0] if h.endswith(".hpp")):
        rel = os.path.relpath(h, os.path.join(ROOT, "include"))
        shim = os.path.join(out_dir, rel)
        target = os.path.relpath(header, os.path.dirname(shim)).replace(os.sep, "/")
        write(shim, f'#include "{target}"  // generated by scripts/amalgamate.py --shims\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the output file is stale")
    ap.add_argument("--output", default=OUT)
    ap.add_argument("--depfile")
    ap.add_argument("--impl-cpp")
    ap.add_argument("--shims")
    ap.add_argument("--shims-only", action="store_true", help="write only the --shims files")
    args = ap.parse_args()
    if args.shims_only:
        shims(args.shims, os.path.abspath(args.output))
        return 0
    text = generate()
    if args.check:
        try:
            same = read(args.output) == text
        except FileNotFoundError:
            same = False
        if not same:
            print(os.path.relpath(args.output, ROOT) + " is stale: run scripts/amalgamate.py",
                  file=sys.stderr)
            return 1
        return 0
    write(args.output, text)
    if args.depfile:
        deps = " ".join(p.replace(" ", "\\ ") for p in sum(inputs(), []) + [os.path.abspath(__file__)])
        write(args.depfile, f"{args.output}: {deps}\n")
    if args.impl_cpp:
        inc = os.path.relpath(args.output, os.path.dirname(os.path.abspath(args.impl_cpp)))
        write(args.impl_cpp, "// Generated by scripts/amalgamate.py: the whole library in one translation unit.\n"
              "#define ONNXVIEW_IMPLEMENTATION\n"
              f'#include "{inc.replace(os.sep, "/")}"\n')
    if args.shims:
        shims(args.shims, os.path.abspath(args.output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
