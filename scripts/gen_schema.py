#!/usr/bin/env python3
"""Writes every file derived from the schema source, schema/onnx.schema:

  include/onnxview/views/*.hpp        the typed views and their field numbers
  include/onnxview/enums.hpp          the C++ enums, newest_ir_version
  include/onnxview/data_type_table.hpp  the schema half of the data-type table
  include/onnxview/schema.hpp         (its generated declaration block only)
  include/onnxview.h                  (its generated block only: the C constants
                                       of AttributeType and DataType)
  src/model/schema_table.cpp          the runtime descriptors
  src/model/enums.cpp                 the names of enum values and typed fields
  tests/model/accessors_test.cpp      a test per accessor
  fuzz/cursor_walk.hpp                a cursor walk over every field

    scripts/gen_schema.py            # write them
    scripts/gen_schema.py --check    # exit 1, naming them, if any is stale

It reads nothing outside the repository. After editing schema/onnx.schema,
run it and commit the result (then scripts/amalgamate.py for the single
header). scripts/check_schema_source.py compares the source with an
independent description of the schema.
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from schemagen import source, tables, tests, views  # noqa: E402


def outputs():
    text = (ROOT / "schema" / "onnx.schema").read_text(encoding="utf-8")
    try:
        schema = source.parse(text)
    except source.SchemaError as e:
        raise SystemExit(f"gen_schema.py: {e}")
    files = {}
    files.update(views.generate(schema))
    files.update(tables.generate(schema, lambda p: (ROOT / p).read_text(encoding="utf-8")))
    files.update(tests.generate(schema))
    return files


def main(argv):
    if argv not in ([], ["--check"]):
        raise SystemExit(__doc__)
    files = outputs()
    if argv == ["--check"]:
        stale = [p for p, text in sorted(files.items())
                 if not (ROOT / p).is_file() or (ROOT / p).read_text(encoding="utf-8") != text]
        for p in stale:
            print(f"stale: {p} (run scripts/gen_schema.py)")
        print("generated files:", "fresh" if not stale else f"{len(stale)} stale of {len(files)}")
        return 1 if stale else 0
    for p, text in sorted(files.items()):
        path = ROOT / p
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print("wrote", p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
