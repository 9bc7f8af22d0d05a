#!/usr/bin/python3
"""The "Add a schema field" recipe of docs/architecture.md, followed on a copy.

    add_field.py SOURCE_ROOT LIBRARY [--views-only] -- CXX [FLAGS...]

Copies schema/onnx.schema, scripts/gen_schema.py and scripts/schemagen/ (with
the files the generator writes, as committed) into a temporary directory,
adds the field the recipe shows (the schema lines between its RECIPE FIELD
markers) to the copy of the schema, and runs the recipe's commands there:
`scripts/gen_schema.py --check` must call the generated files stale, then
`scripts/gen_schema.py` writes them and `--check` calls them fresh. Then
tests/recipe/new_field.cpp, compiled with CXX against the generated headers
(and the generated schema table, unless --views-only) and LIBRARY, must read
the new field through the view, the cursor, verify(), the text printer and
field paths. Nothing in SOURCE_ROOT is written. Exit 0 when every step
passes, 1 naming the first that fails.
"""
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def fail(msg, detail=""):
    print(f"FAIL {msg}")
    if detail:
        print(detail.rstrip())
    sys.exit(1)


def recipe_field(doc):
    """(message header line, the line before the new one, the new line)."""
    text = doc.read_text(encoding="utf-8")
    m = re.search(r"<!-- BEGIN RECIPE FIELD -->\n```[a-z]*\n(.*?)```\n<!-- END RECIPE FIELD -->", text, re.S)
    if not m:
        fail(f"{doc}: no schema lines between the RECIPE FIELD markers")
    lines = [ln for ln in m.group(1).splitlines() if ln.strip() and ln.strip() != "..."]
    if len(lines) != 3 or not lines[0].startswith("message "):
        fail(f"{doc}: expected a message line, the field before the new one and the new field",
             "\n".join(lines))
    return lines


def run(cmd, cwd=None):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)


def main(argv):
    if "--" not in argv or len(argv) < argv.index("--") + 2:
        raise SystemExit(__doc__)
    sep = argv.index("--")
    opts, cxx = argv[:sep], argv[sep + 1:]
    views_only = "--views-only" in opts
    opts = [o for o in opts if o != "--views-only"]
    if len(opts) != 2:
        raise SystemExit(__doc__)
    root, library = Path(opts[0]).resolve(), Path(opts[1]).resolve()
    schema_before = hashlib.sha256((root / "schema/onnx.schema").read_bytes()).hexdigest()
    header, before, new = recipe_field(root / "docs/architecture.md")

    with tempfile.TemporaryDirectory(prefix="onnxview-recipe-") as tmp:
        work = Path(tmp)
        (work / "scripts").mkdir()
        shutil.copytree(root / "scripts/schemagen", work / "scripts/schemagen",
                        ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy2(root / "scripts/gen_schema.py", work / "scripts/gen_schema.py")
        (work / "schema").mkdir()
        shutil.copy2(root / "schema/onnx.schema", work / "schema/onnx.schema")
        # The generator keeps the hand-written parts of schema.hpp and
        # onnxview.h: copy them, then ask the generator which files it writes
        # and copy those.
        (work / "include/onnxview").mkdir(parents=True)
        shutil.copy2(root / "include/onnxview/schema.hpp", work / "include/onnxview/schema.hpp")
        shutil.copy2(root / "include/onnxview.h", work / "include/onnxview.h")
        gen = [sys.executable, str(work / "scripts/gen_schema.py")]
        listing = run(gen + ["--check"])
        outputs = re.findall(r"^stale: (\S+)", listing.stdout, re.M)
        if not outputs:
            fail("gen_schema.py --check did not list the files it writes", listing.stdout + listing.stderr)
        for p in outputs:
            (work / p).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / p, work / p)
        r = run(gen + ["--check"])
        if r.returncode != 0:
            fail("the copy is not fresh before the change", r.stdout + r.stderr)
        print(f"ok   copied the schema, the generator and the {len(outputs)} files it writes")

        # Step 1: the new line goes into its message, in field-number order.
        schema_path = work / "schema/onnx.schema"
        lines = schema_path.read_text(encoding="utf-8").split("\n")
        try:
            start = lines.index(header)
            at = lines.index(before, start)
        except ValueError:
            fail(f"schema/onnx.schema has no '{header}' followed by '{before}' (the recipe is out of date)")
        if "" in lines[start:at]:
            fail(f"'{before}' is not a field of '{header}'")
        lines.insert(at + 1, new)
        schema_path.write_text("\n".join(lines), encoding="utf-8")
        print(f"ok   added to {header.split()[1]}: {new.strip()}")

        # Step 2: generated_fresh (gen_schema.py --check) fails until the generator runs.
        r = run(gen + ["--check"])
        stale = re.findall(r"^stale: (\S+)", r.stdout, re.M)
        if r.returncode == 0 or "src/model/schema_table.cpp" not in stale:
            fail("gen_schema.py --check did not call the generated files stale", r.stdout + r.stderr)
        print(f"ok   gen_schema.py --check: {len(stale)} stale ({', '.join(stale)})")
        r = run(gen)
        if r.returncode != 0:
            fail("gen_schema.py failed", r.stdout + r.stderr)
        r = run(gen + ["--check"])
        if r.returncode != 0:
            fail("gen_schema.py --check after gen_schema.py", r.stdout + r.stderr)
        print("ok   gen_schema.py wrote them; --check: fresh")

        # Step 3: the field is in the views, the cursor and the runtime tables.
        sources = [str(root / "tests/recipe/new_field.cpp")]
        if not views_only:
            sources.append(str(work / "src/model/schema_table.cpp"))
        exe = work / "new_field"
        cmd = cxx + ["-I", str(work / "include"), "-I", str(root / "include")] + sources + \
            [str(library), "-o", str(exe)]
        r = run(cmd)
        if r.returncode != 0:
            fail("new_field.cpp does not compile against the generated headers", " ".join(cmd) + "\n" + r.stderr)
        print("ok   new_field.cpp compiles against the generated headers")
        r = run([str(exe)] + (["--views-only"] if views_only else []))
        print(r.stdout.rstrip())
        if r.returncode != 0:
            fail("the new field does not read back", r.stderr)

    after = hashlib.sha256((root / "schema/onnx.schema").read_bytes()).hexdigest()
    if after != schema_before:
        fail("the repository's schema/onnx.schema changed")
    print("recipe followed: the new field reads back")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
