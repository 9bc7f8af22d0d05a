#!/usr/bin/python3
"""Compare onnxview's JSON with google.protobuf.json_format.MessageToJson.

Usage: json_oracle.py LIST  -- each line: TYPE<TAB>MESSAGE_FILE<TAB>OUR_JSON_FILE
Exit 0 when every pair is equal as parsed JSON, 1 otherwise, 77 when
onnx/protobuf are not importable (Debian's /usr/bin/python3 has them).
"""
import json
import sys

try:
    import onnx
    from google.protobuf import json_format
except ImportError as e:  # pragma: no cover
    print("json_oracle: skipped, cannot import onnx/protobuf:", e)
    sys.exit(77)

bad = 0
n = 0
for line in open(sys.argv[1], encoding="utf-8"):
    typ, msg_path, ours_path = line.rstrip("\n").split("\t")
    msg = getattr(onnx, typ)()
    with open(msg_path, "rb") as f:
        msg.ParseFromString(f.read())
    expected = json.loads(json_format.MessageToJson(msg))
    with open(ours_path, encoding="utf-8") as f:
        got = json.loads(f.read())
    n += 1
    if expected != got:
        bad += 1
        print("JSON differs:", msg_path)
        for k in sorted(set(expected) | set(got)):
            if expected.get(k) != got.get(k):
                print("  ", k, "expected", str(expected.get(k))[:300], "got", str(got.get(k))[:300])
print("json_oracle: %d of %d differ" % (bad, n))
sys.exit(1 if bad else 0)
