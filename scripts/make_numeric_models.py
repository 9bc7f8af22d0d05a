#!/usr/bin/python3
"""Writes small ONNX models with one known numeric fault each, and a clean twin
of each, for `onnxview check --numeric` (tests/oracle/numeric_oracle.py).

  make_numeric_models.py OUTDIR

For every fault F it writes OUTDIR/F.onnx (the fault) and OUTDIR/F_clean.onnx
(the same graph, the faulty values replaced by ordinary ones), and
OUTDIR/expected.json: {"F.onnx": [{"code", "tensor", "count"}, ...],
"F_clean.onnx": [], ...}, the numeric findings `check --numeric` must report
(count null where the finding has none). The faults:

  nan               FLOAT initializer w with 2 NaN              non_finite 2
  inf               w with +Inf and -Inf                        non_finite 2
  fp16_overflow     w holds 70000.0                             fp16_overflow 1
  bf16_overflow     w holds 3.4e38 (> bfloat16's largest        bf16_overflow 1 and
                    finite 3.3895e38, so > 65504 too)           fp16_overflow 1
  fp16_underflow    w holds 1e-8 (<= 2**-25)                    fp16_underflow 1
  subnormal         w holds 3 float32 subnormals (1e-40 ...)    subnormal 3 and
                    (also 0 < |x| <= 2**-25)                    fp16_underflow 3
  all_zero          w of 8 zeros                                all_zero 8 (info)
  constant          w of 20 values 0.5                          constant 20 (info)
  duplicate         w2 (16 values) equal to w1                  duplicate on w2, null (info)
  fp16_nan          FLOAT16 initializer with a NaN              non_finite 1
  fp16_subnormal    FLOAT16 initializer with 1e-6 (fp16 subnormal)  subnormal 1
  quant_scale_negative  DequantizeLinear scale -0.1             quant_scale on scale, 1
  quant_scale_zero      DequantizeLinear scale 0                quant_scale on scale, 1
  quant_scale_nan       DequantizeLinear scale NaN              quant_scale 1 and non_finite 1
  quant_zero_point  QuantizeLinear, UINT8 zero point 300 in int32_data
                                                                quant_zero_point on zp, 1
  quant_shape       per-axis DequantizeLinear (axis 0, x INT8 [4,3]) with a scale of
                    3 values instead of 4                       quant_shape on scale, null
  packing           INT4 initializer of 5 elements with 4 bytes of raw_data (3 needed)
                                                                packing on w4, null
                    (`payload_size_mismatch`, a structural error, also applies)

Reading of the specification behind the counts: all_zero and constant carry
the number of values concerned (the tensor's value count), duplicate,
quant_shape and packing carry null; a float32 subnormal is also an fp16
underflow (0 < |x| <= 2**-25), and a NaN scale is also a non-finite value.

Every initializer is consumed by a node (Add, DequantizeLinear,
QuantizeLinear, Identity) and every scalar or short tensor that is not the
fault holds distinct nonzero ordinary values, so that no other numeric rule
applies. Models use IR 8 and opset 13 and pass onnx.checker (python3-onnx
1.12; checked here when it is importable), except packing*.onnx: INT4
(data type 22) needs IR 10 and opset 21, which onnx 1.12 does not know, so
its data_type is set by hand and it is not checked by onnx. The output is
deterministic.
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INT4 = 22
ORDINARY = [0.5, -1.25, 2.0, 3.5, -0.75, 1.5, 4.0, -2.5]


def make_model(nodes, inputs, outputs, inits, opset=13, ir=8):
    graph = helper.make_graph(nodes, "numeric", inputs, outputs, initializer=inits)
    model = helper.make_model(graph, producer_name="make_numeric_models",
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir
    return model


def add_model(values, dtype=np.float32, elem=TensorProto.FLOAT):
    """y = x + w, w an initializer of the given values."""
    w = numpy_helper.from_array(np.array(values, dtype=dtype), "w")
    n = len(values)
    return make_model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                      [helper.make_tensor_value_info("x", elem, [n])],
                      [helper.make_tensor_value_info("y", elem, [n])], [w])


def float_fault(fault_values, clean_values=ORDINARY, dtype=np.float32, elem=TensorProto.FLOAT):
    return add_model(fault_values, dtype, elem), add_model(clean_values, dtype, elem)


def duplicate(fault):
    w1 = np.arange(1, 17, dtype=np.float32) * 0.25
    w2 = w1.copy() if fault else w1[::-1].copy()
    inits = [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")]
    return make_model([helper.make_node("Add", ["x", "w1"], ["t"], name="add1"),
                       helper.make_node("Add", ["t", "w2"], ["y"], name="add2")],
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16])], inits)


def dequantize(scale):
    """y = x + DequantizeLinear(xq, scale, zp), a per-tensor scale."""
    inits = [numpy_helper.from_array(np.array([-7, 3, 12, -40, 25, 1], dtype=np.int8), "xq"),
             numpy_helper.from_array(np.array(scale, dtype=np.float32), "scale"),
             numpy_helper.from_array(np.array(2, dtype=np.int8), "zp")]
    return make_model([helper.make_node("DequantizeLinear", ["xq", "scale", "zp"], ["d"], name="dq"),
                       helper.make_node("Add", ["x", "d"], ["y"], name="add")],
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [6])], inits)


def quantize(zero_point):
    """y = QuantizeLinear(x, scale, zp), zp a UINT8 scalar in int32_data."""
    inits = [numpy_helper.from_array(np.array(0.1, dtype=np.float32), "scale"),
             helper.make_tensor("zp", TensorProto.UINT8, [], [zero_point])]
    return make_model([helper.make_node("QuantizeLinear", ["x", "scale", "zp"], ["y"], name="q")],
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6])],
                      [helper.make_tensor_value_info("y", TensorProto.UINT8, [6])], inits)


def per_axis(scale_len):
    """y = x + DequantizeLinear(xq [4,3], scale [scale_len], axis=0)."""
    xq = np.array([[1, -2, 3], [-4, 5, -6], [7, -8, 9], [-10, 11, -12]], dtype=np.int8)
    scale = np.array([0.125, 0.25, 0.375, 0.5][:scale_len], dtype=np.float32)
    inits = [numpy_helper.from_array(xq, "xq"), numpy_helper.from_array(scale, "scale")]
    return make_model([helper.make_node("DequantizeLinear", ["xq", "scale"], ["d"], name="dq", axis=0),
                       helper.make_node("Add", ["x", "d"], ["y"], name="add")],
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 3])], inits)


def int4(raw):
    """y = Identity(w4), w4 an INT4 [5] initializer with the given raw_data."""
    w4 = TensorProto()
    w4.name = "w4"
    w4.data_type = INT4
    w4.dims.extend([5])
    w4.raw_data = raw
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, [5])
    out.type.tensor_type.elem_type = INT4
    return make_model([helper.make_node("Identity", ["w4"], ["y"], name="id")], [], [out], [w4],
                      opset=21, ir=10)


def finding(code, tensor, count):
    return {"code": code, "tensor": tensor, "count": count}


def models():
    """(name, fault model, clean model, expected findings of the fault model)."""
    nan, inf = float("nan"), float("inf")
    out = []

    def f32(name, values, expected):
        fault, clean = float_fault(values)
        out.append((name, fault, clean, expected))

    f32("nan", [0.5, nan, -1.25, 2.0, nan, 3.5, -0.75, 1.5], [finding("non_finite", "w", 2)])
    f32("inf", [0.5, inf, -1.25, 2.0, -inf, 3.5, -0.75, 1.5], [finding("non_finite", "w", 2)])
    f32("fp16_overflow", [0.5, -1.25, 70000.0, 3.5, -0.75, 1.5, 4.0, -2.5], [finding("fp16_overflow", "w", 1)])
    f32("bf16_overflow", [0.5, -1.25, 2.0, 3.4e38, -0.75, 1.5, 4.0, -2.5],
        [finding("bf16_overflow", "w", 1), finding("fp16_overflow", "w", 1)])
    f32("fp16_underflow", [0.5, -1.25, 2.0, 3.5, 1e-8, 1.5, 4.0, -2.5], [finding("fp16_underflow", "w", 1)])
    f32("subnormal", [0.5, 1e-40, 2.0, -2e-40, -0.75, 3e-40, 4.0, -2.5],
        [finding("subnormal", "w", 3), finding("fp16_underflow", "w", 3)])
    f32("all_zero", [0.0] * 8, [finding("all_zero", "w", 8)])
    fault, clean = float_fault([0.5] * 20, [0.25 * (i + 1) for i in range(20)])
    out.append(("constant", fault, clean, [finding("constant", "w", 20)]))
    out.append(("duplicate", duplicate(True), duplicate(False), [finding("duplicate", "w2", None)]))
    fault, clean = float_fault([0.5, -1.25, nan, 3.5, -0.75, 1.5, 4.0, -2.5], dtype=np.float16,
                               elem=TensorProto.FLOAT16)
    out.append(("fp16_nan", fault, clean, [finding("non_finite", "w", 1)]))
    fault, clean = float_fault([0.5, -1.25, 1e-6, 3.5, -0.75, 1.5, 4.0, -2.5], dtype=np.float16,
                               elem=TensorProto.FLOAT16)
    out.append(("fp16_subnormal", fault, clean, [finding("subnormal", "w", 1)]))
    out.append(("quant_scale_negative", dequantize(-0.1), dequantize(0.1), [finding("quant_scale", "scale", 1)]))
    out.append(("quant_scale_zero", dequantize(0.0), dequantize(0.1), [finding("quant_scale", "scale", 1)]))
    out.append(("quant_scale_nan", dequantize(nan), dequantize(0.1),
                [finding("quant_scale", "scale", 1), finding("non_finite", "scale", 1)]))
    out.append(("quant_zero_point", quantize(300), quantize(128), [finding("quant_zero_point", "zp", 1)]))
    out.append(("quant_shape", per_axis(3), per_axis(4), [finding("quant_shape", "scale", None)]))
    # INT4 packs two values per byte, low nibble first: 1 2 | 3 4 | 5 (pad).
    out.append(("packing", int4(bytes([0x21, 0x43, 0x05, 0x00])), int4(bytes([0x21, 0x43, 0x05])),
                [finding("packing", "w4", None)]))
    return out


def onnx_check(name, model, clean):
    """onnx.checker on the models onnx 1.12 knows (not INT4); full_check (shape
    inference) on the clean twins only: a fault may be one inference refuses."""
    if name.startswith("packing"):
        return
    onnx.checker.check_model(model, full_check=clean)


def main():
    if len(sys.argv) != 2:
        print("usage: make_numeric_models.py OUTDIR", file=sys.stderr)
        return 2
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    expected = {}
    for name, fault, clean, findings in models():
        for file, model, want, is_clean in ((name + ".onnx", fault, findings, False),
                                            (name + "_clean.onnx", clean, [], True)):
            onnx_check(name, model, is_clean)
            with open(os.path.join(outdir, file), "wb") as f:
                f.write(model.SerializeToString())
            expected[file] = want
    with open(os.path.join(outdir, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
