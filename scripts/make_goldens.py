#!/usr/bin/python3
"""Golden outputs of `onnxview dump` for the models in testdata/.

For every testdata/NAME.onnx, testdata/golden/ holds
  NAME.txtpb  the output of `protoc --decode=onnx.ModelProto onnx.proto`
              (Debian's protoc 3.21, /usr/include/onnx/onnx.proto 1.12);
  NAME.json   the bytes of `onnxview dump --json`, written only after they
              were checked equal to google.protobuf.json_format.MessageToJson
              as parsed JSON, keys in the same order.  The JSON mapping fixes
              values, not bytes (MessageToJson prints 1.0 where onnxview prints
              1), so the reference's meaning is checked once here, and the
              golden test then pins onnxview's exact bytes.

    /usr/bin/python3 scripts/make_goldens.py --onnxview BUILD/tools/onnxview
        writes the goldens; fails when protoc, onnx.proto or python3-onnx is
        missing, or when onnxview's JSON means something else than MessageToJson's.
    scripts/make_goldens.py --check
        exit 0 when the goldens are still what protoc and MessageToJson give,
        1 when one is stale or missing, 77 (skipped) without those tools.
    scripts/make_goldens.py --compare BUILD/tools/onnxview
        the golden test: `onnxview dump` and `dump --json` of every model equal
        the goldens byte for byte.  Needs only python3.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTDATA = os.path.join(ROOT, "testdata")
GOLDEN = os.path.join(TESTDATA, "golden")
PROTO_DIR = "/usr/include/onnx"  # as tests/text/oracle_test.cpp
SKIPPED = 77  # meson: test skipped


def models():
    """(name, path) of every testdata model, sorted by name."""
    return [(f[: -len(".onnx")], os.path.join(TESTDATA, f))
            for f in sorted(os.listdir(TESTDATA)) if f.endswith(".onnx")]


def golden_path(name, ext):
    return os.path.join(GOLDEN, name + ext)


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def onnxview_dump(onnxview, model, json_output):
    args = [onnxview, "dump"] + (["--json"] if json_output else []) + [model]
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(args), r.returncode,
                                                 r.stderr.decode(errors="replace").strip()))
    return r.stdout


def first_difference(expected, got, expected_label, got_label):
    """Where two outputs part, with the differing lines."""
    a, b = expected.split(b"\n"), got.split(b"\n")
    for i in range(max(len(a), len(b))):
        ea = a[i] if i < len(a) else b"<end of output>"
        gb = b[i] if i < len(b) else b"<end of output>"
        if ea != gb:
            return "line %d: %s %r, %s %r" % (i + 1, expected_label, ea[:200], got_label, gb[:200])
    return "same lines, different bytes"


def missing_reference_tools():
    """Why the reference tools cannot run, or None when they can."""
    if shutil.which("protoc") is None:
        return "protoc not found (Debian: protobuf-compiler)"
    if not os.access(os.path.join(PROTO_DIR, "onnx.proto"), os.R_OK):
        return "%s/onnx.proto not found (Debian: libonnx-dev)" % PROTO_DIR
    try:
        import onnx  # noqa: F401
        from google.protobuf import json_format  # noqa: F401
    except ImportError as e:
        return "cannot import onnx/protobuf in %s: %s (Debian: python3-onnx)" % (sys.executable, e)
    return None


def protoc_text(model):
    r = subprocess.run(["protoc", "--decode=onnx.ModelProto", "onnx.proto"], cwd=PROTO_DIR,
                       input=read_bytes(model), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise RuntimeError("protoc refused %s: %s" % (model, r.stderr.decode(errors="replace").strip()))
    return r.stdout


def message_to_json(model):
    """MessageToJson with the JSON oracle's settings (tests/text/json_oracle.py)."""
    import onnx
    from google.protobuf import json_format
    m = onnx.ModelProto()
    m.ParseFromString(read_bytes(model))  # not onnx.load: external data stays a reference
    return json_format.MessageToJson(m)


def parsed_in_order(text):
    """JSON parsed with every object as a list of (key, value): equal values, same key order."""
    return json.loads(text, object_pairs_hook=list)


def write_goldens(onnxview):
    why = missing_reference_tools()
    if why:
        sys.exit("make_goldens: cannot write goldens: " + why)
    os.makedirs(GOLDEN, exist_ok=True)
    for name, model in models():
        text = protoc_text(model)
        ours = onnxview_dump(onnxview, model, json_output=True)
        if parsed_in_order(ours.decode("utf-8")) != parsed_in_order(message_to_json(model)):
            sys.exit("make_goldens: %s: onnxview dump --json differs from MessageToJson as parsed "
                     "JSON; no golden written for it" % model)
        for ext, data in ((".txtpb", text), (".json", ours)):
            path = golden_path(name, ext)
            unchanged = os.path.exists(path) and read_bytes(path) == data
            with open(path, "wb") as f:
                f.write(data)
            print("wrote %s (%d bytes%s)" % (os.path.relpath(path, ROOT), len(data),
                                              ", unchanged" if unchanged else ""))


def check_goldens():
    """The committed goldens against the reference tools; returns the exit code."""
    why = missing_reference_tools()
    if why:
        print("make_goldens --check: skipped:", why)
        return SKIPPED
    stale = 0
    for name, model in models():
        try:
            text = read_bytes(golden_path(name, ".txtpb"))
            ours = read_bytes(golden_path(name, ".json")).decode("utf-8")
        except OSError as e:
            print("missing golden:", e)
            stale += 1
            continue
        expected = protoc_text(model)
        if text != expected:
            print("stale %s: %s" % (golden_path(name, ".txtpb"),
                                    first_difference(expected, text, "protoc gives", "the golden has")))
            stale += 1
        if parsed_in_order(ours) != parsed_in_order(message_to_json(model)):
            print("stale %s: differs from MessageToJson as parsed JSON" % golden_path(name, ".json"))
            stale += 1
    print("make_goldens --check: %d models, %d stale or missing goldens" % (len(models()), stale))
    return 1 if stale else 0


def compare_with_goldens(onnxview):
    """onnxview's output against the committed goldens; returns the exit code."""
    failed = compared = 0
    expected_files = set()
    for name, model in models():
        for ext, json_output in ((".txtpb", False), (".json", True)):
            path = golden_path(name, ext)
            expected_files.add(os.path.basename(path))
            if not os.path.exists(path):
                print("FAIL: no golden %s (scripts/make_goldens.py writes it)" % path)
                failed += 1
                continue
            expected = read_bytes(path)
            compared += 1
            try:
                got = onnxview_dump(onnxview, model, json_output)
            except RuntimeError as e:
                print("FAIL:", e)
                failed += 1
                continue
            if got != expected:
                print("FAIL: onnxview dump%s %s differs from %s: %s" % (
                    " --json" if json_output else "", os.path.basename(model),
                    os.path.relpath(path, ROOT),
                    first_difference(expected, got, "the golden has", "onnxview prints")))
                failed += 1
    for orphan in sorted(set(os.listdir(GOLDEN)) - expected_files):
        print("FAIL: testdata/golden/%s has no model in testdata/" % orphan)
        failed += 1
    print("golden test: %d models, %d outputs compared, %d failed" % (len(models()), compared, failed))
    return 1 if failed else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--onnxview", metavar="EXE", help="write the goldens, JSON from this onnxview")
    mode.add_argument("--check", action="store_true", help="the goldens against protoc and MessageToJson")
    mode.add_argument("--compare", metavar="EXE", help="this onnxview's output against the goldens")
    a = p.parse_args()
    if a.check:
        return check_goldens()
    if a.compare:
        return compare_with_goldens(a.compare)
    write_goldens(a.onnxview)
    return 0


if __name__ == "__main__":
    sys.exit(main())
