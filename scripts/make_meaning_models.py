#!/usr/bin/env python3
"""Writes the models that tell a walk with libprotobuf's meaning from one
without it (bench/meson.build's bench_meaning test).

  make_meaning_models.py OUT_DIR

meaning.onnx is a model libprotobuf reads, where reading every occurrence of
every field as it comes gives other sums: a singular string and a singular
int given twice (the last one wins), a string field sent as a varint (an
unknown field), an attribute type outside the closed enum AttributeType (an
unknown field), a dimension whose oneof is set twice (the last member wins).
deep100.onnx nests graphs inside node attributes down to 100 messages deep,
libprotobuf's recursion limit, which every reader reads; deep101.onnx adds a
node in the innermost graph, one level more, which every reader with that
limit refuses.

The bytes are written field by field (scripts/protobuf_wire.py), in orders and
wire types no protobuf serializer writes.
"""
import os
import sys

from protobuf_wire import f_bytes as len_field, f_fixed32 as fixed32_field, f_varint as int_field


def meaning_model():
    dims = (len_field(1, int_field(1, 3) + len_field(2, "N"))  # dim_value, then dim_param: N wins
            + len_field(1, len_field(2, "C") + int_field(1, 8)))  # dim_param, then dim_value: 8 wins
    tensor_type = int_field(1, 1) + len_field(2, dims)
    value_info = len_field(1, "X") + len_field(2, len_field(1, tensor_type))
    attribute = (len_field(1, "alpha")
                 + fixed32_field(2, 0x3F000000)  # f = 0.5
                 + int_field(20, 1)              # type FLOAT
                 + int_field(20, 99))            # not an AttributeType: unknown, FLOAT stays
    node = (len_field(1, "X") + len_field(2, "Y")
            + len_field(4, "Identity") + len_field(4, "LeakyRelu")  # op_type: the last one wins
            + int_field(3, 2)                   # name as a varint: an unknown field
            + len_field(7, "") + len_field(3, "n0")
            + len_field(5, attribute))
    output = len_field(1, "Y") + len_field(2, len_field(1, tensor_type))
    graph = len_field(1, node) + len_field(2, "g") + len_field(11, value_info) + len_field(12, output)
    opset = len_field(1, "") + int_field(2, 17)
    return (int_field(1, 8) + len_field(2, "first") + len_field(2, "p")  # producer_name: p wins
            + len_field(8, opset) + len_field(7, graph) + int_field(1, 9))  # ir_version: 9 wins


def deep_model(innermost_node):
    """Graphs nested in If nodes' attributes: model (0) > graph (1) > node (2)
    > attribute (3) > graph (4) > ... down to a graph at depth 100, with a
    node inside it (depth 101) when innermost_node."""
    graph = len_field(1, len_field(4, "Identity")) if innermost_node else len_field(2, "innermost")
    depth = 1
    while depth < 100:
        attribute = len_field(1, "then_branch") + int_field(20, 5) + len_field(6, graph)
        graph = len_field(1, len_field(4, "If") + len_field(5, attribute))
        depth += 3
    assert depth == 100, depth
    opset = len_field(1, "") + int_field(2, 17)
    return int_field(1, 8) + len_field(8, opset) + len_field(7, graph)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_meaning_models.py OUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "meaning.onnx"), "wb") as f:
        f.write(meaning_model())
    for name, innermost_node in (("deep100.onnx", False), ("deep101.onnx", True)):
        with open(os.path.join(out, name), "wb") as f:
            f.write(deep_model(innermost_node))


if __name__ == "__main__":
    main()
