#!/usr/bin/python3
"""The schema generator refuses a source the readers could not hold to.

    schema_refusals.py SOURCE_ROOT

Each case edits a copy of schema/onnx.schema (in memory) and must make
schemagen.source.parse raise SchemaError with the expected words; the
unedited source must parse. Exit 0 when all hold, 1 naming the first that
does not.
"""
import sys
from pathlib import Path

root = Path(sys.argv[1])
sys.path.insert(0, str(root / "scripts"))
from schemagen import source  # noqa: E402

text = (root / "schema" / "onnx.schema").read_text(encoding="utf-8")
source.parse(text)

# (what, old line, new line, words the error must hold)
CASES = [
    # Closed enums are tested as a range 0..max (wire::closed_enum_takes).
    ("an enum with a gap", "  1   STABLE                 stable             since=1.0.0",
     "  2   STABLE                 stable             since=1.0.0", "without gaps"),
    ("an enum not starting at 0", "  0   EXPERIMENTAL           experimental       since=1.0.0",
     "  2   EXPERIMENTAL           experimental       since=1.0.0", "without gaps"),
]

for what, old, new, words in CASES:
    if text.count(old + "\n") != 1:
        print(f"FAIL {what}: the schema no longer has the line {old!r}")
        sys.exit(1)
    try:
        source.parse(text.replace(old + "\n", new + "\n"))
    except source.SchemaError as e:
        if words not in str(e):
            print(f"FAIL {what}: refused, but with {e!r}, not {words!r}")
            sys.exit(1)
        print(f"ok   {what}: {e}")
        continue
    print(f"FAIL {what}: accepted")
    sys.exit(1)
