#!/usr/bin/python3
"""Writes the files `onnxview scan` is tested on (tests/oracle/scan_oracle.py,
tests/oracle/scan_dask_test.py): small models with one known problem each,
clean twins, and files that are not models.

  make_scan_fixtures.py OUTDIR

Layout: the models go to OUTDIR/models/, OUTDIR/outside.bin is a data file
outside that folder (the target of the escaping locations), and
OUTDIR/expected.json maps each scanned file's path relative to OUTDIR
("models/clean.onnx") to the sorted list of the finding codes a scan of it
must report (a code appears once per finding; [] for a clean model). Only
files whose name ends in .onnx are listed: the .bin files next to them are
not scan targets.

Every model computes y = Relu(x @ W + B) (x FLOAT[1,4], W FLOAT[4,3], B
FLOAT[3], IR 8, opset 13) unless said otherwise; in the external-data
fixtures W (48 bytes) is external and B inline. External data is written by
hand: raw little-endian bytes and the tensor's external_data entries.

  clean.onnx                  inline weights                     []
  clean_external.onnx         W and B in clean_external.bin      []
  external_absolute.onnx      W at location "/etc/passwd"        external_absolute, invalid_model (*)
  external_escape.onnx        W at "../outside.bin"              external_escape, invalid_model (*)
  external_symlink_escape.onnx  W at "link.bin", a symlink in models/ to ../outside.bin
                                                                 external_symlink_escape, invalid_model (*)
  external_hard_link.onnx     W in external_hard_link.bin, which has a second name
                              (external_hard_link_second_name.bin)
                                                                 external_hard_link, invalid_model (*)
  external_missing.onnx       W in external_missing.bin, absent  external_missing, invalid_model (*)
  external_out_of_range.onnx  W at offset 16, length 48 of a 48-byte file
                                                                 external_out_of_range, invalid_model (*)
  external_overlap.onnx       W [0, 48) and B [40, 52) of one 64-byte file
                                                                 external_overlap
  external_duplicate_key.onnx W's entries: location, location (same value), offset, length
                                                                 external_duplicate_key, invalid_model (*)
  python_op.onnx              y = com.microsoft PythonOp(x)      dangerous_op
  custom_domain.onnx          y = com.example.custom Blend(x), the domain imported at version 1
                                                                 custom_domain
  huge_constant_of_shape.onnx y = ConstantOfShape(shape), shape an INT64 initializer
                              [1048576, 1048576] (2^40 elements) huge_elements
  huge_expand.onnx            y = Expand(x1, shape), the same stored shape
                                                                 huge_elements
  huge_dims.onnx              y = Identity(x), x declared FLOAT[1048576, 1048576]
                                                                 huge_elements
  lfs_pointer.onnx            a Git LFS pointer (text)           lfs_pointer
  truncated.onnx              the first half of clean.onnx's bytes
                                                                 truncated
  not_a_model.onnx            an HTML page (a 404 saved as the model)
                                                                 not_a_model
  invalid.onnx                Add(x, 'undefined_tensor'): an input no node, initializer or
                              graph input defines                invalid_model

The huge fixtures declare the outputs of ConstantOfShape, Expand and
Identity with symbolic dims ([d0, d1]), so that only the stored shape (or
the declared input) asks for 2^40 elements: one finding each.

(*) Why most external fixtures expect two codes: invalid_model is "the checker
found errors", and the checker (`onnxview check`, whose counts a record
carries in model.check) reports an absolute, escaping, symlinked,
hard-linked, missing, out-of-range or twice-keyed external location as an
error of its own (code external_data). So these fixtures give their
external_* code and invalid_model; external_overlap.onnx gives
external_overlap alone, as the checker does not look at extents of
different tensors. Should scan's invalid_model come to leave out the
checker's external_data errors (counting them only as external_* findings),
set EXTERNAL_ALSO_INVALID = False below: every fixture then expects one code.

Every model here except invalid.onnx, external_missing.onnx and
external_absolute.onnx passes onnx.checker.check_model(PATH) (checked after
writing; python3-onnx 1.12 checks that an external file can be opened
relative to the model and that the location is not absolute, not where a
relative one leads, nor its extents), and those three fail it.

The output is deterministic (no random bytes); the symlink is relative, so
OUTDIR can be moved as a whole. Hard links do not survive a copy: regenerate
rather than copy.
"""
import json
import os
import struct
import sys

import onnx
from onnx import TensorProto, helper

# The checker's external_data errors make invalid_model too (see the docstring).
EXTERNAL_ALSO_INVALID = True

W = [0.5, -1.25, 2.0, 3.5, -0.75, 1.5, 4.0, -2.5, 0.25, 1.75, -3.0, 2.25]  # [4, 3]
B = [0.125, -0.5, 1.0]
HUGE = [1048576, 1048576]  # 2^40 elements


def f32(values):
    return struct.pack(f"<{len(values)}f", *values)


def inline(name, dims, values):
    return helper.make_tensor(name, TensorProto.FLOAT, dims, f32(values), raw=True)


def external(name, dims, entries):
    """A FLOAT tensor whose payload is elsewhere: entries is a list of (key, value)."""
    t = TensorProto()
    t.name = name
    t.data_type = TensorProto.FLOAT
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for k, v in entries:
        e = t.external_data.add()
        e.key, e.value = k, str(v)
    return t


def mlp(name, w, b, producer="onnxview-make_scan_fixtures"):
    nodes = [helper.make_node("MatMul", ["x", "W"], ["xw"], name="matmul"),
             helper.make_node("Add", ["xw", "B"], ["xwb"], name="add"),
             helper.make_node("Relu", ["xwb"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])], [w, b])
    return model(graph, producer=producer)


def model(graph, opsets=(("", 13),), producer="onnxview-make_scan_fixtures"):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                          producer_name=producer, producer_version="1.0")
    m.ir_version = 8
    return m


def single(name, node, inputs, initializers=(), opsets=(("", 13),)):
    """A graph of one node whose output y is declared of shape [d0, d1] (symbolic dims)."""
    graph = helper.make_graph([node], name, inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["d0", "d1"])],
                              list(initializers))
    return model(graph, opsets)


def main():
    if len(sys.argv) != 2:
        print("usage: make_scan_fixtures.py OUTDIR", file=sys.stderr)
        return 2
    out = sys.argv[1]
    models = os.path.join(out, "models")
    os.makedirs(models, exist_ok=True)
    expected = {}
    check = {}  # name -> whether onnx.checker must accept the proto

    def write_bytes(rel, data):
        with open(os.path.join(out, rel), "wb") as f:
            f.write(data)

    def save(name, m, codes, valid=True):
        rel = "models/" + name
        write_bytes(rel, m.SerializeToString())
        expected[rel] = sorted(codes)
        check[name] = (m, valid)

    def ext(codes, checker_flags_it=True):
        return codes + (["invalid_model"] if EXTERNAL_ALSO_INVALID and checker_flags_it else [])

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])

    # Clean models.
    clean = mlp("clean", inline("W", [4, 3], W), inline("B", [3], B))
    save("clean.onnx", clean, [])
    write_bytes("models/clean_external.bin", f32(W) + f32(B))
    save("clean_external.onnx", mlp("clean_external",
                                    external("W", [4, 3], [("location", "clean_external.bin"), ("offset", 0),
                                                           ("length", 48)]),
                                    external("B", [3], [("location", "clean_external.bin"), ("offset", 48),
                                                        ("length", 12)])), [])

    # External data.
    write_bytes("outside.bin", f32(W) * 4)
    save("external_absolute.onnx", mlp("external_absolute",
                                       external("W", [4, 3], [("location", "/etc/passwd"), ("offset", 0),
                                                              ("length", 48)]),
                                       inline("B", [3], B)), ext(["external_absolute"]), valid=False)
    save("external_escape.onnx", mlp("external_escape",
                                     external("W", [4, 3], [("location", "../outside.bin"), ("offset", 0),
                                                            ("length", 48)]),
                                     inline("B", [3], B)), ext(["external_escape"]))
    link = os.path.join(models, "link.bin")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(os.path.join("..", "outside.bin"), link)
    save("external_symlink_escape.onnx", mlp("external_symlink_escape",
                                             external("W", [4, 3], [("location", "link.bin"), ("offset", 0),
                                                                    ("length", 48)]),
                                             inline("B", [3], B)), ext(["external_symlink_escape"]))
    write_bytes("models/external_hard_link.bin", f32(W))
    second = os.path.join(models, "external_hard_link_second_name.bin")
    if os.path.lexists(second):
        os.remove(second)
    os.link(os.path.join(models, "external_hard_link.bin"), second)
    save("external_hard_link.onnx", mlp("external_hard_link",
                                        external("W", [4, 3], [("location", "external_hard_link.bin"),
                                                               ("offset", 0), ("length", 48)]),
                                        inline("B", [3], B)), ext(["external_hard_link"]))
    missing = os.path.join(models, "external_missing.bin")
    if os.path.lexists(missing):
        os.remove(missing)
    save("external_missing.onnx", mlp("external_missing",
                                      external("W", [4, 3], [("location", "external_missing.bin"), ("offset", 0),
                                                             ("length", 48)]),
                                      inline("B", [3], B)), ext(["external_missing"]), valid=False)
    write_bytes("models/external_out_of_range.bin", f32(W))
    save("external_out_of_range.onnx", mlp("external_out_of_range",
                                           external("W", [4, 3], [("location", "external_out_of_range.bin"),
                                                                  ("offset", 16), ("length", 48)]),
                                           inline("B", [3], B)), ext(["external_out_of_range"]))
    write_bytes("models/external_overlap.bin", f32(W) + f32(B) + b"\0" * 4)
    save("external_overlap.onnx", mlp("external_overlap",
                                      external("W", [4, 3], [("location", "external_overlap.bin"), ("offset", 0),
                                                             ("length", 48)]),
                                      external("B", [3], [("location", "external_overlap.bin"), ("offset", 40),
                                                          ("length", 12)])),
         ext(["external_overlap"], checker_flags_it=False))
    write_bytes("models/external_duplicate_key.bin", f32(W))
    save("external_duplicate_key.onnx", mlp("external_duplicate_key",
                                            external("W", [4, 3], [("location", "external_duplicate_key.bin"),
                                                                   ("location", "external_duplicate_key.bin"),
                                                                   ("offset", 0), ("length", 48)]),
                                            inline("B", [3], B)), ext(["external_duplicate_key"]))

    # Operators and domains.
    save("python_op.onnx", single("python_op", helper.make_node("PythonOp", ["x"], ["y"], name="python",
                                                                domain="com.microsoft"), [x],
                                  opsets=(("", 13), ("com.microsoft", 1))), ["dangerous_op"])
    save("custom_domain.onnx", single("custom_domain", helper.make_node("Blend", ["x"], ["y"], name="blend",
                                                                        domain="com.example.custom"), [x],
                                      opsets=(("", 13), ("com.example.custom", 1))), ["custom_domain"])

    # Sizes.
    shape = helper.make_tensor("shape", TensorProto.INT64, [2], HUGE)
    save("huge_constant_of_shape.onnx",
         single("huge_constant_of_shape", helper.make_node("ConstantOfShape", ["shape"], ["y"], name="fill"), [],
                [shape]), ["huge_elements"])
    save("huge_expand.onnx", single("huge_expand", helper.make_node("Expand", ["x1", "shape"], ["y"], name="expand"),
                                    [helper.make_tensor_value_info("x1", TensorProto.FLOAT, [1, 1])], [shape]),
         ["huge_elements"])
    save("huge_dims.onnx", single("huge_dims", helper.make_node("Identity", ["x"], ["y"], name="identity"),
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, HUGE)]), ["huge_elements"])

    # Files that are not models.
    write_bytes("models/lfs_pointer.onnx",
                b"version https://git-lfs.github.com/spec/v1\n"
                b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
                b"size 12345\n")
    expected["models/lfs_pointer.onnx"] = ["lfs_pointer"]
    data = clean.SerializeToString()
    write_bytes("models/truncated.onnx", data[:len(data) // 2])
    expected["models/truncated.onnx"] = ["truncated"]
    write_bytes("models/not_a_model.onnx",
                b"<!DOCTYPE html>\n<html>\n<head><title>404 Not Found</title></head>\n"
                b"<body>\n<h1>Not Found</h1>\n<p>The requested URL /models/model.onnx was not found on this "
                b"server.</p>\n</body>\n</html>\n")
    expected["models/not_a_model.onnx"] = ["not_a_model"]

    # The checker's error.
    save("invalid.onnx", single("invalid", helper.make_node("Add", ["x", "undefined_tensor"], ["y"], name="add"),
                                [x]), ["invalid_model"], valid=False)

    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(dict(sorted(expected.items())), f, indent=1)
        f.write("\n")

    problems = []
    for name, (m, valid) in sorted(check.items()):
        try:
            onnx.checker.check_model(os.path.join(models, name))  # external data relative to the model
            ok = True
        except onnx.checker.ValidationError:
            ok = False
        if ok != valid:
            problems.append(f"{name}: onnx.checker {'accepts' if ok else 'rejects'} it")
    for p in problems:
        print("make_scan_fixtures.py:", p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
