"""Parses schema/onnx.schema (its syntax is described at its top)."""
import re
from dataclasses import dataclass, field as dc_field
from typing import Dict, List, Optional, Tuple

SCALARS = ("int32", "int64", "uint64", "float", "double", "string", "bytes")
Release = Tuple[int, int, int]


@dataclass
class EnumValue:
    number: int
    name: str
    cpp: Optional[str]
    since: Release
    facts: Dict[str, str]  # data-type and attribute-type facts


@dataclass
class Enum:
    name: str  # "TensorProto.DataType"
    cpp: Optional[str]
    values: List[EnumValue] = dc_field(default_factory=list)

    @property
    def max_number(self) -> int:
        return max(v.number for v in self.values)


@dataclass
class Field:
    number: int
    name: str
    ptype: str  # as written; resolved into kind/target by Schema
    label: str  # optional | repeated | oneof
    oneof: Optional[str]
    packed: bool
    since: Release
    kind: str = ""  # a scalar name, "message" or "enum"
    message: Optional["Message"] = None
    enum: Optional[Enum] = None

    @property
    def repeated(self) -> bool:
        return self.label == "repeated"

    @property
    def cpp_name(self) -> str:
        """The accessor's name: the field's, with '_' after a C++ keyword."""
        return self.name + "_" if self.name in CPP_KEYWORDS else self.name


CPP_KEYWORDS = {"operator"}


@dataclass
class Message:
    name: str  # "TensorProto.Segment"
    view: str
    group: str
    file: str
    fields: List[Field] = dc_field(default_factory=list)

    @property
    def oneofs(self) -> List[str]:
        out = []
        for f in self.fields:
            if f.oneof and f.oneof not in out:
                out.append(f.oneof)
        return out


@dataclass
class Schema:
    enums: List[Enum]
    messages: List[Message]

    def enum(self, name: str) -> Enum:
        return next(e for e in self.enums if e.name == name)

    def message(self, name: str) -> Message:
        return next(m for m in self.messages if m.name == name)


class SchemaError(Exception):
    pass


def parse_release(text: str, where: str) -> Release:
    m = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", text)
    if not m:
        raise SchemaError(f"{where}: since= needs MAJOR.MINOR.PATCH, got {text!r}")
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)))


def _attrs(words, where):
    out = {}
    flags = set()
    for w in words:
        if "=" in w:
            k, v = w.split("=", 1)
            if k in out:
                raise SchemaError(f"{where}: {k}= given twice")
            out[k] = v
        else:
            flags.add(w)
    return out, flags


def parse(text: str, path: str = "schema/onnx.schema") -> Schema:
    enums: List[Enum] = []
    messages: List[Message] = []
    current = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        where = f"{path}:{lineno}"
        line = raw.split("#", 1)[0].rstrip()
        if not line:
            continue
        words = line.split()
        if not raw[0].isspace():
            kw, name, rest = words[0], words[1] if len(words) > 1 else "", words[2:]
            attrs, flags = _attrs(rest, where)
            if flags:
                raise SchemaError(f"{where}: unexpected {sorted(flags)}")
            if kw == "enum":
                current = Enum(name, attrs.pop("cpp", None))
                enums.append(current)
            elif kw == "message":
                try:
                    current = Message(name, attrs.pop("view"), attrs.pop("group"), attrs.pop("file"))
                except KeyError as e:
                    raise SchemaError(f"{where}: message needs {e.args[0]}=") from None
                messages.append(current)
            else:
                raise SchemaError(f"{where}: expected 'enum' or 'message', got {kw!r}")
            if attrs:
                raise SchemaError(f"{where}: unknown {sorted(attrs)}")
            continue
        if current is None:
            raise SchemaError(f"{where}: a member line before any enum or message")
        if isinstance(current, Enum):
            number, name = int(words[0]), words[1]
            rest = words[2:]
            cpp = None
            if current.cpp is not None:
                if not rest or "=" in rest[0]:
                    raise SchemaError(f"{where}: enum {current.name} has cpp=, so each value needs a C++ name")
                cpp, rest = rest[0], rest[1:]
            attrs, flags = _attrs(rest, where)
            if flags:
                raise SchemaError(f"{where}: unexpected {sorted(flags)}")
            since = parse_release(attrs.pop("since", ""), where)
            current.values.append(EnumValue(number, name, cpp, since, attrs))
        else:
            number, name, ptype = int(words[0]), words[1], words[2]
            attrs, flags = _attrs(words[3:], where)
            labels = flags & {"optional", "repeated"}
            oneof = attrs.pop("oneof", None)
            if len(labels) + (oneof is not None) != 1:
                raise SchemaError(f"{where}: exactly one of optional, repeated, oneof=NAME")
            label = "oneof" if oneof else labels.pop()
            packed = "packed" in flags
            unknown = flags - {"optional", "repeated", "packed"}
            since = parse_release(attrs.pop("since", ""), where)
            if unknown or attrs:
                raise SchemaError(f"{where}: unknown {sorted(unknown) + sorted(attrs)}")
            current.fields.append(Field(number, name, ptype, label, oneof, packed, since))
    schema = Schema(enums, messages)
    _resolve(schema)
    _validate(schema)
    return schema


def _resolve(schema: Schema):
    msgs = {m.name: m for m in schema.messages}
    enums = {e.name: e for e in schema.enums}
    for m in schema.messages:
        for f in m.fields:
            if f.ptype in SCALARS:
                f.kind = f.ptype
                continue
            # Protobuf's scoping: the message's own scope first, its outer
            # message's, then the top level.
            cands = [m.name + "." + f.ptype, m.name.split(".")[0] + "." + f.ptype, f.ptype]
            hit = next((c for c in cands if c in msgs), None)
            if hit:
                f.kind, f.message = "message", msgs[hit]
                continue
            hit = next((c for c in cands if c in enums), None)
            if not hit:
                raise SchemaError(f"{m.name}.{f.name}: unknown type {f.ptype}")
            f.kind, f.enum = "enum", enums[hit]


def _validate(schema: Schema):
    seen_views = set()
    for m in schema.messages:
        numbers = [f.number for f in m.fields]
        if numbers != sorted(set(numbers)):
            raise SchemaError(f"{m.name}: field numbers must be unique and ascending")
        if m.view in seen_views:
            raise SchemaError(f"{m.name}: view {m.view} used twice")
        seen_views.add(m.view)
        for f in m.fields:
            if f.packed and (not f.repeated or f.kind in ("string", "bytes", "message")):
                raise SchemaError(f"{m.name}.{f.name}: only repeated numbers can be packed")
            if f.kind == "enum" and f.enum.cpp is None:
                raise SchemaError(f"{m.name}.{f.name}: enum {f.enum.name} needs cpp= to be a field type")
    for e in schema.enums:
        # The readers test a closed enum's value as a range, 0..max
        # (wire::closed_enum_takes), and find a value by its number.
        if [v.number for v in e.values] != list(range(len(e.values))):
            raise SchemaError(f"{e.name}: values must be numbered 0, 1, 2, ... without gaps")
