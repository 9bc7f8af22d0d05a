"""The protobuf wire format by hand, for the scripts that write models field by
field (scripts/make_bench_models.py, scripts/make_meaning_models.py): no
protobuf runtime, any field order, any size."""

VARINT, FIXED64, LEN, FIXED32 = 0, 1, 2, 5


def varint(v):
    assert v >= 0
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def tag(number, wire_type):
    return varint((number << 3) | wire_type)


def f_varint(number, v):
    if v < 0:
        v += 1 << 64  # int64 negatives are 10-byte two's complement varints
    return tag(number, VARINT) + varint(v)


def f_bytes(number, payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return tag(number, LEN) + varint(len(payload)) + payload


def f_fixed32(number, bits):
    return tag(number, FIXED32) + bits.to_bytes(4, "little")


def len_header(number, length):
    return tag(number, LEN) + varint(length)


def packed_varints(number, values):
    body = b"".join(varint(v if v >= 0 else v + (1 << 64)) for v in values)
    return f_bytes(number, body)
