#!/usr/bin/env python3
"""Generate src/model/schema_table.cpp (and the declaration block of
include/onnxview/schema.hpp) from the ONNX wire-schema fact sheet.

Usage: scripts/gen_schema.py PATH/TO/onnx-wire-schema.md [REPO_ROOT]

The fact sheet lives outside the repository; every fact the library needs
(numbers, names, types, labels, packing, first release in the non-ML
onnx.proto) is copied into the generated C++ file, which is committed.
Sections read: 3 (messages) and 4 (enums), plus the Version enum of 7.
"""
import re
import sys
from pathlib import Path

SCALARS = {"int32", "int64", "uint64", "float", "double", "string", "bytes"}
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


def json_name(name):
    # protobuf's ToJsonName: drop '_' and upper-case the next character.
    out, up = [], False
    for ch in name:
        if ch == "_":
            up = True
        elif up:
            out.append(ch.upper())
            up = False
        else:
            out.append(ch)
    return "".join(out)


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


LOOKUPS = r"""
namespace {
std::string_view strip_package(std::string_view name) noexcept {
    constexpr std::string_view pkg = "onnx.";
    // No substr: its out_of_range throw would pull the exception runtime into
    // static -fno-exceptions programs (see scripts/code_size.sh).
    if (name.size() >= pkg.size() && std::string_view(name.data(), pkg.size()) == pkg)
        name.remove_prefix(pkg.size());
    return name;
}
}  // namespace

const field_desc* message_desc::find(std::string_view field_name) const noexcept {
    for (std::uint16_t i = 0; i < field_count; ++i)
        if (field_name == fields[i].name) return &fields[i];
    return nullptr;
}

const message_desc* find_message(std::string_view full_name) noexcept {
    const std::string_view n = strip_package(full_name);
    for (const message_desc* m : all_messages())
        if (n == strip_package(m->full_name)) return m;
    return nullptr;
}

const enum_desc* find_enum(std::string_view full_name) noexcept {
    const std::string_view n = strip_package(full_name);
    for (const enum_desc* e : all_enums())
        if (n == strip_package(e->full_name)) return e;
    return nullptr;
}
"""


def cid(name):
    return name.replace(".", "_")


def rel(t):
    return "release(%d, %d, %d)" % t


def generate(messages, enums):
    msg_names = {m["name"] for m in messages}
    # Where a message or enum is defined (messages may be nested in others).
    out = []
    w = out.append
    w("// GENERATED by scripts/gen_schema.py from the ONNX wire-schema fact sheet")
    w("// (sections 3, 4 and 7). Do not edit by hand; re-run the script.")
    w("//")
    w("// Every message of onnx.proto, onnx-data.proto and onnx-operators.proto and")
    w("// every enum, with field numbers, types, labels, default packing and the")
    w("// first ONNX release whose non-ML onnx.proto has the field.")
    w('#include "onnxview/schema.hpp"')
    w("")
    w("#include <string_view>")
    w("")
    w("namespace onnxview {")
    w("namespace schema {")
    w("")
    for ename, vals in enums.items():
        w("static const enum_value ev_%s[] = {" % cid(ename))
        for n, v, s in vals:
            w('    {%d, "%s", %s},' % (v, n, rel(s)))
        w("};")
        w("const enum_desc %s = {\"onnx.%s\", \"%s\", ev_%s, %d};" % (
            "enum_" + cid(ename), ename, ename.split(".")[-1], cid(ename), len(vals)))
        w("")
    for m in messages:
        w("extern const message_desc msg_%s;" % cid(m["name"]))
    w("")
    for m in messages:
        fields = sorted(m["fields"], key=lambda f: f["number"])
        oneofs = []
        for f in fields:
            if f["oneof"] and f["oneof"] not in oneofs:
                oneofs.append(f["oneof"])
        w("static const field_desc fd_%s[] = {" % cid(m["name"]))
        for f in fields:
            pt = f["ptype"]
            msg_ref, enum_ref = "nullptr", "nullptr"
            if pt in SCALARS:
                t = {"float": "float_", "double": "double_"}.get(pt, pt)
            else:
                # Resolve as protobuf does: nested scope first, then top level.
                cands = [m["name"] + "." + pt, pt]
                scope = m["name"].split(".")[0]
                cands.insert(1, scope + "." + pt)
                hit = next((c for c in cands if c in msg_names), None)
                if hit:
                    t, msg_ref = "message", "&msg_" + cid(hit)
                else:
                    hit = next((c for c in cands if c in enums), None)
                    if not hit:
                        raise SystemExit("unresolved type %s in %s" % (pt, m["name"]))
                    t, enum_ref = "enum_", "&enum_" + cid(hit)
            oneof_index = oneofs.index(f["oneof"]) if f["oneof"] else -1
            w('    {%d, "%s", "%s", type::%s, label::%s, %d, %s, %s, %s, %s},' % (
                f["number"], f["name"], json_name(f["name"]), t,
                {"optional": "optional", "repeated": "repeated", "oneof": "oneof"}[f["label"]],
                oneof_index, "true" if f["packed"] else "false", msg_ref, enum_ref,
                rel(f["since"])))
        w("};")
        maxn = max(f["number"] for f in fields)
        idx = [0] * (maxn + 1)
        for k, f in enumerate(fields):
            idx[f["number"]] = k + 1
        w("static const std::uint8_t fi_%s[] = {%s};" % (cid(m["name"]), ", ".join(map(str, idx))))
        if oneofs:
            w("static const char* const on_%s[] = {%s};" % (
                cid(m["name"]), ", ".join('"%s"' % o for o in oneofs)))
        since = min(f["since"] for f in fields)
        w('const message_desc msg_%s = {"onnx.%s", "%s", "%s", fd_%s, %d, fi_%s, %d, %s, %d, %s};' % (
            cid(m["name"]), m["name"], m["name"].split(".")[-1], m["file"], cid(m["name"]),
            len(fields), cid(m["name"]), maxn + 1,
            ("on_" + cid(m["name"])) if oneofs else "nullptr", len(oneofs), rel(since)))
        w("")
    w("static const message_desc* const all_messages_[] = {")
    for m in messages:
        w("    &msg_%s," % cid(m["name"]))
    w("};")
    w("static const enum_desc* const all_enums_[] = {")
    for e in enums:
        w("    &enum_%s," % cid(e))
    w("};")
    w("")
    w("span<const message_desc* const> all_messages() noexcept {")
    w("    return {all_messages_, sizeof(all_messages_) / sizeof(all_messages_[0])};")
    w("}")
    w("span<const enum_desc* const> all_enums() noexcept {")
    w("    return {all_enums_, sizeof(all_enums_) / sizeof(all_enums_[0])};")
    w("}")
    w("")
    w(LOOKUPS)
    w("}  // namespace schema")
    w("}  // namespace onnxview")
    w("")
    decls = ["// BEGIN GENERATED (scripts/gen_schema.py)"]
    for e in enums:
        decls.append("extern const enum_desc enum_%s;" % cid(e))
    for m in messages:
        decls.append("extern const message_desc msg_%s;" % cid(m["name"]))
    decls.append("// END GENERATED")
    return "\n".join(out), "\n".join(decls)


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    md = Path(sys.argv[1]).read_text(encoding="utf-8")
    root = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).resolve().parent.parent
    messages, enums = parse(md)
    cpp, decls = generate(messages, enums)
    (root / "src/model/schema_table.cpp").write_text(cpp, encoding="utf-8")
    hpp = root / "include/onnxview/schema.hpp"
    text = hpp.read_text(encoding="utf-8")
    text = re.sub(r"// BEGIN GENERATED.*?// END GENERATED", lambda _: decls, text, flags=re.S)
    hpp.write_text(text, encoding="utf-8")
    print("%d messages, %d enums" % (len(messages), len(enums)))


if __name__ == "__main__":
    main()
