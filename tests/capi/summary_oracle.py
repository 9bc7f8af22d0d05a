#!/usr/bin/python3
"""The C API against python3-onnx: the summary (tests/oracle/README.md) that
tests/capi/summary.c makes through onnxview.h must equal the one
tests/oracle/export_summary.py makes, for every model of testdata/ and every
model.onnx of Debian's libonnx-testdata.

  summary_oracle.py CAPI_SUMMARY_EXE SOURCE_ROOT [CORPUS_ROOT]

Lines "error: ..." compare up to "error:" (the message is Python's). Exits
77 (skipped) when python3-onnx or the corpus is missing.
"""
import os
import subprocess
import sys

SKIP = 77


def split(text):
    """{path: summary} of a multi-file output ('== PATH' before each)."""
    out, path, lines = {}, None, []
    for line in text.splitlines(keepends=True):
        if line.startswith("== "):
            if path is not None:
                out[path] = "".join(lines)
            path, lines = line[3:].rstrip("\n"), []
        else:
            lines.append(line)
    if path is not None:
        out[path] = "".join(lines)
    return out


def line_matches(expected, actual):
    if expected == actual:
        return True
    body = expected.lstrip(" ")
    indent = len(expected) - len(body)
    return body.startswith("error:") and actual.startswith(expected[:indent + 6])


def first_difference(expected, actual):
    e, a = expected.splitlines(), actual.splitlines()
    for i in range(max(len(e), len(a))):
        el = e[i] if i < len(e) else "<end of summary>"
        al = a[i] if i < len(a) else "<end of summary>"
        if i >= len(e) or i >= len(a) or not line_matches(el, al):
            return f"line {i + 1}:\n  expected: {el}\n  actual:   {al}"
    return None


def main():
    exe, root = sys.argv[1], sys.argv[2]
    corpus = sys.argv[3] if len(sys.argv) > 3 else "/usr/share/libonnx-testdata"
    try:
        import onnx  # noqa: F401
    except ImportError:
        print("SKIP: /usr/bin/python3 without onnx (Debian package python3-onnx)")
        return SKIP
    files = sorted(os.path.join(root, "testdata", n) for n in os.listdir(os.path.join(root, "testdata"))
                   if n.endswith(".onnx"))
    corpus_files = []
    for d, _, names in os.walk(corpus):
        if "model.onnx" in names:
            corpus_files.append(os.path.join(d, "model.onnx"))
    files += sorted(corpus_files)
    exporter = os.path.join(root, "tests", "oracle", "export_summary.py")
    expected = split(subprocess.run([sys.executable, exporter] + files, check=True, capture_output=True,
                                    text=True).stdout)
    actual = split(subprocess.run([exe] + files, check=True, capture_output=True, text=True,
                                  errors="replace").stdout)
    bad = []
    for f in files:
        d = first_difference(expected.get(f, "<no oracle summary>\n"), actual.get(f, "<no summary>\n"))
        if d:
            bad.append(f"MISMATCH {f}: {d}")
    print(f"C API summaries: {len(files)} models ({len(corpus_files)} of {corpus}), "
          f"{len(files) - len(bad)} match python3-onnx, {len(bad)} differ")
    for b in bad[:20]:
        print(b)
    if not corpus_files:
        print(f"SKIP: no corpus at {corpus} (Debian package libonnx-testdata); testdata/ "
              f"{'matched' if not bad else 'DIFFERS'}")
        return 1 if bad else SKIP
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
