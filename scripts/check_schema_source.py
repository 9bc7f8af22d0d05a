#!/usr/bin/env python3
"""Compares the schema source (schema/onnx.schema) with an independent
description of the newest ONNX schema: the ONNX wire-schema fact sheet, a
Markdown file kept outside the repository. Run by hand after editing either:

    scripts/check_schema_source.py PATH/TO/onnx-wire-schema.md

Every message (its file, field numbers, names, types, labels, oneofs,
packing, first release) and every enum value (number, name, first release)
must agree; it prints each difference and exits 1 if there is one. The build
never reads the fact sheet: scripts/gen_schema.py reads only the source.
Sheet sections read: 3 (messages) and 4 (enums), plus the Version enum of 7.
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from schemagen import source  # noqa: E402

LATEST_UNRELEASED = (1, 23, 0)  # "main" / "IR 14 (unreleased)" in the sheet


def parse_release(text):
    """First release in the non-ML onnx.proto ("all builds" when given)."""
    if "all builds:" in text:
        text = text.split("all builds:", 1)[1]
    text = text.strip()
    if text.startswith("pre-1.0"):
        return (0, 1, 0)
    if text.startswith("main") or "unreleased" in text.split("/")[0] or text.startswith("IR 14"):
        return LATEST_UNRELEASED
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    if not m:
        raise SystemExit("cannot parse release: %r" % text)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse(md):
    lines = md.splitlines()
    sec3 = next(i for i, l in enumerate(lines) if l.startswith("## 3."))
    sec4 = next(i for i, l in enumerate(lines) if l.startswith("## 4."))
    sec5 = next(i for i, l in enumerate(lines) if l.startswith("## 5."))
    sec7 = next(i for i, l in enumerate(lines) if l.startswith("## 7."))
    sec8 = next(i for i, l in enumerate(lines) if l.startswith("## 8."))

    messages = []  # (name, file, [fields])
    cur = None
    for l in lines[sec3:sec4]:
        m = re.match(r"### (\S+)$", l)
        if m:
            cur = {"name": m.group(1), "file": "onnx.proto", "fields": []}
            messages.append(cur)
            continue
        if cur is None:
            continue
        m = re.match(r"Defined in `onnx/([^`]+)`", l)
        if m:
            f = m.group(1)
            cur["file"] = ("onnx-data.proto" if "data" in f else
                           "onnx-operators.proto" if "operators" in f else "onnx.proto")
            continue
        if l.startswith("| ") and re.match(r"\| \d+ \|", l):
            c = cells(l)
            number, name, ptype, label, _tag, first = c[0], c[1], c[2], c[3], c[4], c[5]
            name = name.strip("`")
            packed = "[packed=true]" in label
            oneof = None
            if label.startswith("oneof"):
                oneof = re.search(r"`(\w+)`", label).group(1)
                lab = "oneof"
            elif label.startswith("repeated"):
                lab = "repeated"
            else:
                lab = "optional"
            cur["fields"].append({
                "number": int(number), "name": name, "ptype": ptype, "label": lab,
                "oneof": oneof, "packed": packed, "since": parse_release(first),
            })

    enums = {}  # full short name -> list of (name, number, since)
    sec4_lines = lines[sec4:sec5]
    # 4.1 DataType table
    i = next(k for k, l in enumerate(sec4_lines) if l.startswith("### 4.1"))
    vals = []
    for l in sec4_lines[i:]:
        if l.startswith("#### ") or l.startswith("### 4.2"):
            break
        if re.match(r"\| \d+ \|", l):
            c = cells(l)
            vals.append((c[1], int(c[0]), parse_release(c[-1])))
    enums["TensorProto.DataType"] = vals
    # 4.2 other enums
    text42 = "\n".join(sec4_lines[next(k for k, l in enumerate(sec4_lines) if l.startswith("### 4.2")):])
    m = re.search(r"`TensorProto\.DataLocation`[^\n]*", text42)
    enums["TensorProto.DataLocation"] = [(n, int(v), (1, 4, 0)) for n, v in
                                         re.findall(r"`(\w+) = (\d+)`", m.group(0))]
    vals = []
    started = False
    for l in text42.splitlines():
        if "`AttributeProto.AttributeType`" in l:
            started = True
            continue
        if started and re.match(r"\| \d+ \|", l):
            c = cells(l)
            vals.append((c[1], int(c[0]), parse_release(c[-1])))
        elif started and vals and not l.startswith("|"):
            break
    enums["AttributeProto.AttributeType"] = vals
    m = re.search(r"`OperatorStatus`[^\n]*", text42)
    enums["OperatorStatus"] = [(n, int(v), (1, 0, 0)) for n, v in
                               re.findall(r"`(\w+) = (\d+)`", m.group(0))]
    m = re.search(r"`SequenceProto\.DataType` and `OptionalProto\.DataType`[^\n]*\n([^\n]*)", text42)
    dv = re.findall(r"`(\w+) = (\d+)`", m.group(1))
    enums["SequenceProto.DataType"] = [(n, int(v), (1, 10, 0) if n == "OPTIONAL" else (1, 8, 0))
                                       for n, v in dv]
    enums["OptionalProto.DataType"] = [(n, int(v), (1, 10, 0)) for n, v in dv]
    # 7 Version enum
    vals = []
    for l in lines[sec7:sec8]:
        if re.match(r"\| \d+ \|", l):
            c = cells(l)
            m = re.match(r"`(\w+)` \((\d+)\)", c[1])
            rel = re.match(r"(\d+)\.(\d+)", c[3])
            since = (int(rel.group(1)), int(rel.group(2)), 0) if rel else (
                (0, 1, 0) if int(m.group(2)) <= 1 else LATEST_UNRELEASED)
            vals.append((m.group(1), int(m.group(2)), since))
    enums["Version"] = vals
    return messages, enums


def compare(sheet_messages, sheet_enums, schema):
    """Differences between the fact sheet and the schema source, as lines."""
    diffs = []
    ours = {m.name: m for m in schema.messages}
    for sm in sheet_messages:
        m = ours.pop(sm["name"], None)
        if m is None:
            diffs.append(f"{sm['name']}: in the sheet, not in the source")
            continue
        if m.file != sm["file"]:
            diffs.append(f"{m.name}: file {m.file}, sheet {sm['file']}")
        fields = {f.number: f for f in m.fields}
        for sf in sm["fields"]:
            f = fields.pop(sf["number"], None)
            where = f"{m.name}.{sf['number']}"
            if f is None:
                diffs.append(f"{where} {sf['name']}: in the sheet, not in the source")
                continue
            got = (f.name, f.ptype, f.label, f.oneof, f.packed, f.since)
            want = (sf["name"], sf["ptype"], sf["label"], sf["oneof"], sf["packed"], sf["since"])
            if got != want:
                diffs.append(f"{where}: source {got}, sheet {want}")
        for f in fields.values():
            diffs.append(f"{m.name}.{f.number} {f.name}: in the source, not in the sheet")
    for name in ours:
        diffs.append(f"{name}: in the source, not in the sheet")
    our_enums = {e.name: e for e in schema.enums}
    for name, values in sheet_enums.items():
        e = our_enums.pop(name, None)
        if e is None:
            diffs.append(f"enum {name}: in the sheet, not in the source")
            continue
        got = {v.number: (v.name, v.since) for v in e.values}
        want = {number: (value_name, since) for value_name, number, since in values}
        for number in sorted(set(got) | set(want)):
            if got.get(number) != want.get(number):
                diffs.append(f"enum {name} = {number}: source {got.get(number)}, sheet {want.get(number)}")
    for name in our_enums:
        diffs.append(f"enum {name}: in the source, not in the sheet")
    return diffs


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    sheet_messages, sheet_enums = parse(Path(sys.argv[1]).read_text(encoding="utf-8"))
    root = Path(__file__).resolve().parent.parent
    schema = source.parse((root / "schema" / "onnx.schema").read_text(encoding="utf-8"))
    diffs = compare(sheet_messages, sheet_enums, schema)
    for d in diffs:
        print(d)
    print("schema source against the sheet:", "agree" if not diffs else f"{len(diffs)} differences")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
