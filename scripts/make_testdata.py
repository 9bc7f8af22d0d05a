#!/usr/bin/python3
"""Generate the ONNX models shipped in testdata/.

Needs Debian's python3-onnx (onnx 1.12) and numpy.  The output is
deterministic: running the script twice produces byte-identical files.

    /usr/bin/python3 scripts/make_testdata.py [OUTDIR]   (default: testdata/)

Files written:
  small_cnn.onnx + small_cnn.weights  CNN with If/Loop subgraphs, a local
                                      function and external data
  small_cnn_inline.onnx               the same model, all weights inline
  tensors_all_types.onnx              initializers of every data type, raw
                                      and typed storage, edge values
  sparse.onnx                         sparse initializers (2-D and linear
                                      indices) and a sparse Constant
  nested_subgraphs.onnx               If -> Loop -> If, three levels deep
  attributes_and_types.onnx           attributes of every type, graph
                                      inputs of every value type
  summaries/NAME.onnx.summary         oracle summary of each model, made by
                                      tests/oracle/export_summary.py
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
IR_VERSION = 8
PRODUCER = "onnxview-make_testdata"
PRODUCER_VERSION = "1.0"
LOCAL_DOMAIN = "onnxview.local"


def _model(graph, opsets, functions=(), doc="", metadata=None):
    m = helper.make_model(
        graph,
        ir_version=IR_VERSION,
        opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
        producer_name=PRODUCER,
        producer_version=PRODUCER_VERSION,
        domain="org.onnxview.testdata",
        model_version=1,
        doc_string=doc,
        functions=list(functions),
    )
    for k, v in (metadata or {}).items():
        p = m.metadata_props.add()
        p.key = k
        p.value = v
    return m


def _check_and_save(model, path, **kwargs):
    onnx.checker.check_model(model)
    onnx.save_model(model, path, **kwargs)
    onnx.checker.check_model(path)


# ---------------------------------------------------------------------------
# small_cnn
# ---------------------------------------------------------------------------

def build_small_cnn():
    rng = np.random.RandomState(20240601)

    def w(name, shape, scale):
        arr = (rng.standard_normal(shape) * scale).astype(np.float32)
        return numpy_helper.from_array(arr, name)

    conv1_w = w("conv1.weight", (8, 3, 3, 3), 0.2)        # 864 B: inline
    conv1_b = w("conv1.bias", (8,), 0.1)                  # inline
    conv2_w = w("conv2.weight", (16, 8, 3, 3), 0.1)       # 4608 B: external
    conv2_b = w("conv2.bias", (16,), 0.1)                 # inline
    fc_w = w("fc.weight", (10, 256), 0.05)                # 10240 B: external
    fc_b = w("fc.bias", (10,), 0.1)                       # inline
    flat_shape = numpy_helper.from_array(
        np.array([-1, 256], dtype=np.int64), "flat_shape")
    trip_count = numpy_helper.from_array(np.array(2, dtype=np.int64), "loop_trip_count")
    loop_cond = numpy_helper.from_array(np.array(True), "loop_cond")
    loop_scale = numpy_helper.from_array(np.array([0.5], dtype=np.float32), "loop_scale")
    zero = numpy_helper.from_array(np.array(0.0, dtype=np.float32), "zero")
    for t in (conv1_w, conv2_w, fc_w):
        t.doc_string = "weights drawn from N(0, s^2), seed 20240601"

    # If: in-graph condition (sum(image) > 0) picks Flatten or Reshape.
    then_g = helper.make_graph(
        [helper.make_node("Flatten", ["pool2"], ["then_out"], name="then_flatten", axis=1)],
        "then_branch",
        [],
        [helper.make_tensor_value_info("then_out", TensorProto.FLOAT, ["N", 256])],
        doc_string="flatten the pooled features",
    )
    else_g = helper.make_graph(
        [helper.make_node("Reshape", ["pool2", "flat_shape"], ["else_out"], name="else_reshape")],
        "else_branch",
        [],
        [helper.make_tensor_value_info("else_out", TensorProto.FLOAT, ["N", 256])],
        doc_string="reshape the pooled features to [-1, 256]",
    )

    # Loop body: (iter, cond, acc) -> (cond, acc * loop_scale + acc), scan output acc.
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond"),
            helper.make_node("Mul", ["acc_in", "loop_scale"], ["acc_scaled"], name="body_mul"),
            helper.make_node("Add", ["acc_in", "acc_scaled"], ["acc_out"], name="body_add"),
        ],
        "loop_body",
        [
            helper.make_tensor_value_info("iter", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, ["N", 256]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, ["N", 256]),
        ],
    )

    nodes = [
        helper.make_node("Conv", ["image", "conv1.weight", "conv1.bias"], ["conv1"],
                         name="conv1", kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         strides=[1, 1], doc_string="3x3 conv, 8 channels"),
        helper.make_node("Relu", ["conv1"], ["relu1"], name="relu1"),
        helper.make_node("MaxPool", ["relu1"], ["pool1"], name="pool1",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["pool1", "conv2.weight", "conv2.bias"], ["conv2"],
                         name="conv2", kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         strides=[2, 2], auto_pad="NOTSET"),
        helper.make_node("Swish", ["conv2"], ["swish2"], name="swish2",
                         domain=LOCAL_DOMAIN),
        helper.make_node("MaxPool", ["swish2"], ["pool2"], name="pool2",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("ReduceSum", ["image"], ["image_sum"], name="image_sum", keepdims=0),
        helper.make_node("Greater", ["image_sum", "zero"], ["is_positive"], name="is_positive"),
        helper.make_node("If", ["is_positive"], ["flat"], name="choose_flatten",
                         then_branch=then_g, else_branch=else_g,
                         doc_string="both branches give the same [N, 256] tensor"),
        helper.make_node("Loop", ["loop_trip_count", "loop_cond", "flat"], ["features"],
                         name="scale_loop", body=body),
        helper.make_node("Gemm", ["features", "fc.weight", "fc.bias"], ["logits"],
                         name="fc", alpha=1.0, beta=1.0, transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1),
    ]

    swish = helper.make_function(
        LOCAL_DOMAIN,
        "Swish",
        ["X"],
        ["Y"],
        [
            helper.make_node("Sigmoid", ["X"], ["S"], name="sigmoid"),
            helper.make_node("Mul", ["X", "S"], ["Y"], name="mul"),
        ],
        [helper.make_opsetid("", OPSET)],
        attributes=[],
    )
    swish.doc_string = "Swish(x) = x * sigmoid(x)"

    graph = helper.make_graph(
        nodes,
        "small_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, 32, 32])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["N", 10])],
        initializer=[conv1_w, conv1_b, conv2_w, conv2_b, fc_w, fc_b, flat_shape,
                     trip_count, loop_cond, loop_scale, zero],
        doc_string="Conv-Relu-MaxPool, Conv-Swish-MaxPool, If(Flatten|Reshape), Loop, Gemm, Softmax",
        value_info=[
            helper.make_tensor_value_info("conv1", TensorProto.FLOAT, ["N", 8, 32, 32]),
            helper.make_tensor_value_info("pool1", TensorProto.FLOAT, ["N", 8, 16, 16]),
            helper.make_tensor_value_info("conv2", TensorProto.FLOAT, ["N", 16, 8, 8]),
            helper.make_tensor_value_info("pool2", TensorProto.FLOAT, ["N", 16, 4, 4]),
            helper.make_tensor_value_info("is_positive", TensorProto.BOOL, []),
            helper.make_tensor_value_info("flat", TensorProto.FLOAT, ["N", 256]),
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10]),
        ],
    )
    graph.input[0].doc_string = "RGB image, NCHW"
    model = _model(
        graph,
        [("", OPSET), (LOCAL_DOMAIN, 1)],
        functions=[swish],
        doc="A small CNN used as onnxview test data.",
        metadata={"author": "onnxview", "license": "MIT", "purpose": "tests: external data, subgraphs, functions"},
    )
    return model


def write_small_cnn(outdir):
    model = build_small_cnn()
    _check_and_save(model, os.path.join(outdir, "small_cnn_inline.onnx"))
    # save_model appends to an existing external data file: start from scratch.
    weights = os.path.join(outdir, "small_cnn.weights")
    if os.path.exists(weights):
        os.remove(weights)
    ext = onnx.ModelProto()
    ext.CopyFrom(model)
    _check_and_save(ext, os.path.join(outdir, "small_cnn.onnx"),
                    save_as_external_data=True, all_tensors_to_one_file=True,
                    location="small_cnn.weights", size_threshold=1024)


# ---------------------------------------------------------------------------
# tensors_all_types
# ---------------------------------------------------------------------------

def _f32(bits):
    return np.array(bits, dtype=np.uint32).view(np.float32)


def all_type_values():
    """(name, TensorProto type, numpy array in that type, dims) for every type."""
    inf, nan = float("inf"), float("nan")
    f32 = np.array([1.5, -0.0, 0.0, inf, -inf, nan, 3.4028234663852886e38,
                    1.1754943508222875e-38, 1.401298464324817e-45, -2.5, 0.1, 1e-8],
                   dtype=np.float32)
    f64 = np.array([1.5, -0.0, inf, -inf, nan, 1.7976931348623157e308,
                    5e-324, 2.2250738585072014e-308, 0.1, -1e300, 1e-300, 42.0],
                   dtype=np.float64)
    # float16 bit patterns: 1, -0, inf, -inf, nan, max 65504, min normal,
    # smallest subnormal, largest subnormal, -2.5, 0.1 (rounded), 1/3 (rounded)
    f16_bits = np.array([0x3C00, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7BFF, 0x0400,
                         0x0001, 0x03FF, 0xC100, 0x2E66, 0x3555], dtype=np.uint16)
    # bfloat16 bit patterns: 1, -0, inf, -inf, nan, max, min normal,
    # smallest subnormal, largest subnormal, -2.5, 0.1 (trunc), 3
    bf16_bits = np.array([0x3F80, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x7F7F, 0x0080,
                          0x0001, 0x007F, 0xC020, 0x3DCC, 0x4040], dtype=np.uint16)
    ii8, iu8 = np.iinfo(np.int8), np.iinfo(np.uint8)
    ii16, iu16 = np.iinfo(np.int16), np.iinfo(np.uint16)
    ii32, iu32 = np.iinfo(np.int32), np.iinfo(np.uint32)
    ii64, iu64 = np.iinfo(np.int64), np.iinfo(np.uint64)
    return [
        ("float", TensorProto.FLOAT, f32, [3, 4]),
        ("uint8", TensorProto.UINT8, np.array([0, 1, 127, 128, iu8.max, 42], np.uint8), [6]),
        ("int8", TensorProto.INT8, np.array([ii8.min, -1, 0, 1, ii8.max, -42], np.int8), [2, 3]),
        ("uint16", TensorProto.UINT16, np.array([0, 1, 32767, 32768, iu16.max, 4242], np.uint16), [6]),
        ("int16", TensorProto.INT16, np.array([ii16.min, -1, 0, 1, ii16.max, -4242], np.int16), [6]),
        ("int32", TensorProto.INT32, np.array([ii32.min, -1, 0, 1, ii32.max, -424242], np.int32), [3, 2]),
        ("int64", TensorProto.INT64, np.array([ii64.min, -1, 0, 1, ii64.max, 1 << 53, (1 << 53) + 1], np.int64), [7]),
        ("bool", TensorProto.BOOL, np.array([True, False, False, True, True], np.bool_), [5]),
        ("float16", TensorProto.FLOAT16, f16_bits.view(np.float16), [12]),
        ("double", TensorProto.DOUBLE, f64, [2, 2, 3]),
        ("uint32", TensorProto.UINT32, np.array([0, 1, 1 << 31, iu32.max, 424242], np.uint32), [5]),
        ("uint64", TensorProto.UINT64, np.array([0, 1, 1 << 63, iu64.max, (1 << 53) + 1], np.uint64), [5]),
        ("complex64", TensorProto.COMPLEX64,
         np.array([1 + 2j, -0.0 - 0.0j, complex(inf, nan), 0.5 - 0.25j], np.complex64), [2, 2]),
        ("complex128", TensorProto.COMPLEX128,
         np.array([1 + 2j, complex(-0.0, 1e-310), complex(nan, -inf), 1e300 - 1e-300j], np.complex128), [4]),
        ("bfloat16", TensorProto.BFLOAT16, bf16_bits, [3, 4]),
    ]


def _raw_tensor(name, dtype, arr, dims):
    t = TensorProto()
    t.name = name
    t.data_type = dtype
    t.dims.extend(dims)
    t.raw_data = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
    return t


def _typed_tensor(name, dtype, arr, dims):
    t = TensorProto()
    t.name = name
    t.data_type = dtype
    t.dims.extend(dims)
    flat = arr.reshape(-1)
    if dtype == TensorProto.FLOAT:
        t.float_data.extend(flat.tolist())
    elif dtype in (TensorProto.UINT8, TensorProto.INT8, TensorProto.UINT16,
                   TensorProto.INT16, TensorProto.INT32):
        t.int32_data.extend(int(x) for x in flat)
    elif dtype == TensorProto.BOOL:
        t.int32_data.extend(int(bool(x)) for x in flat)
    elif dtype == TensorProto.FLOAT16:
        t.int32_data.extend(int(x) for x in flat.view(np.uint16))
    elif dtype == TensorProto.BFLOAT16:
        t.int32_data.extend(int(x) for x in flat.view(np.uint16))
    elif dtype == TensorProto.INT64:
        t.int64_data.extend(int(x) for x in flat)
    elif dtype == TensorProto.DOUBLE:
        t.double_data.extend(flat.tolist())
    elif dtype in (TensorProto.UINT32, TensorProto.UINT64):
        t.uint64_data.extend(int(x) for x in flat)
    elif dtype == TensorProto.COMPLEX64:
        for c in flat:
            t.float_data.extend([float(c.real), float(c.imag)])
    elif dtype == TensorProto.COMPLEX128:
        for c in flat:
            t.double_data.extend([float(c.real), float(c.imag)])
    else:
        raise ValueError(dtype)
    return t


def build_tensors_all_types():
    inits = []
    for name, dtype, arr, dims in all_type_values():
        inits.append(_raw_tensor(name + "_raw", dtype, arr, dims))
        inits.append(_typed_tensor(name + "_typed", dtype, arr, dims))
    # STRING has no raw form: only string_data.
    s = TensorProto()
    s.name = "string_typed"
    s.data_type = TensorProto.STRING
    s.dims.extend([2, 3])
    s.string_data.extend([b"", b"hello", b"quote\" back\\slash", b"tab\tnl\n",
                          "caf\u00e9 \u2713".encode("utf-8"), b"\x00\x01\x7f"])
    inits.append(s)
    # scalar (no dims) and empty (a zero dim) tensors
    inits.append(numpy_helper.from_array(np.array(7.25, dtype=np.float32), "scalar_float_raw"))
    sc = helper.make_tensor("scalar_int64_typed", TensorProto.INT64, [], [-9])
    inits.append(sc)
    inits.append(helper.make_tensor("empty_float_typed", TensorProto.FLOAT, [0, 3], []))
    e = _raw_tensor("empty_int32_raw", TensorProto.INT32, np.zeros([0], np.int32), [2, 0])
    inits.append(e)
    inits[0].doc_string = "float32 edge values: -0, inf, nan, max, min normal, min subnormal"

    graph = helper.make_graph(
        [helper.make_node("Identity", ["float_raw"], ["out"], name="identity")],
        "tensors_all_types",
        [],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [3, 4])],
        initializer=inits,
        doc_string="every TensorProto data type, in raw_data and in typed fields",
    )
    return _model(graph, [("", OPSET)], doc="initializers of every data type")


# ---------------------------------------------------------------------------
# sparse
# ---------------------------------------------------------------------------

def build_sparse():
    # dense shape [4, 5], 3 non-zeros, indices as [NNZ, rank]
    vals_a = numpy_helper.from_array(np.array([1.5, -2.0, 3.25], np.float32), "sparse_2d")
    idx_a = numpy_helper.from_array(np.array([[0, 1], [2, 3], [3, 4]], np.int64), "sparse_2d_indices")
    sp_a = helper.make_sparse_tensor(vals_a, idx_a, [4, 5])
    # dense shape [3, 4], 4 non-zeros, linearized indices [NNZ]
    vals_b = numpy_helper.from_array(np.array([10, -20, 30, 40], np.int64), "sparse_linear")
    idx_b = numpy_helper.from_array(np.array([0, 5, 6, 11], np.int64), "sparse_linear_indices")
    sp_b = helper.make_sparse_tensor(vals_b, idx_b, [3, 4])
    # sparse Constant attribute
    vals_c = numpy_helper.from_array(np.array([7.0, 8.0], np.float32), "sparse_const_values")
    idx_c = numpy_helper.from_array(np.array([1, 6], np.int64), "sparse_const_indices")
    sp_c = helper.make_sparse_tensor(vals_c, idx_c, [8])
    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["sparse_const"], name="sparse_constant", sparse_value=sp_c),
         helper.make_node("Identity", ["x"], ["y"], name="identity")],
        "sparse",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("sparse_const", TensorProto.FLOAT, [8])],
        initializer=[numpy_helper.from_array(np.array([1, 2], np.int32), "dense_init")],
        doc_string="two sparse initializers and a sparse Constant",
    )
    graph.sparse_initializer.extend([sp_a, sp_b])
    return _model(graph, [("", OPSET)], doc="sparse tensors")


# ---------------------------------------------------------------------------
# nested_subgraphs: If(outer) -> Loop -> If(inner)
# ---------------------------------------------------------------------------

def build_nested():
    f = TensorProto.FLOAT
    inner_then = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "one"], ["inner_then_out"], name="inner_then_add")],
        "inner_then", [], [helper.make_tensor_value_info("inner_then_out", f, [2])])
    inner_else = helper.make_graph(
        [helper.make_node("Sub", ["acc_in", "one"], ["inner_else_out"], name="inner_else_sub")],
        "inner_else", [], [helper.make_tensor_value_info("inner_else_out", f, [2])])
    body = helper.make_graph(
        [
            helper.make_node("Cast", ["i"], ["i_float"], name="cast_iter", to=f),
            helper.make_node("Less", ["i_float", "half_trip"], ["first_half"], name="first_half"),
            helper.make_node("If", ["first_half"], ["acc_out"], name="inner_if",
                             then_branch=inner_then, else_branch=inner_else),
            helper.make_node("Identity", ["c_in"], ["c_out"], name="keep_going"),
            helper.make_node("Identity", ["acc_out"], ["scan_out"], name="scan"),
        ],
        "loop_body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", f, [2])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", f, [2]),
         helper.make_tensor_value_info("scan_out", f, [2])],
        initializer=[numpy_helper.from_array(np.array(1.5, np.float32), "half_trip")],
    )
    outer_then = helper.make_graph(
        [helper.make_node("Loop", ["trips", "", "x"], ["then_acc", "then_scan"], name="loop", body=body)],
        "outer_then", [],
        [helper.make_tensor_value_info("then_acc", f, [2]),
         helper.make_tensor_value_info("then_scan", f, [None, 2])])
    outer_else = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["else_acc"], name="else_acc"),
         helper.make_node("Unsqueeze", ["x", "axes0"], ["else_scan"], name="else_scan")],
        "outer_else", [],
        [helper.make_tensor_value_info("else_acc", f, [2]),
         helper.make_tensor_value_info("else_scan", f, [1, 2])])
    graph = helper.make_graph(
        [helper.make_node("If", ["use_loop"], ["acc", "scan"], name="outer_if",
                          then_branch=outer_then, else_branch=outer_else)],
        "nested_subgraphs",
        [helper.make_tensor_value_info("use_loop", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x", f, [2])],
        [helper.make_tensor_value_info("acc", f, [2]),
         helper.make_tensor_value_info("scan", f, ["S", 2])],
        initializer=[numpy_helper.from_array(np.array(3, np.int64), "trips"),
                     numpy_helper.from_array(np.array([1.0, 1.0], np.float32), "one"),
                     numpy_helper.from_array(np.array([0], np.int64), "axes0")],
    )
    return _model(graph, [("", OPSET)], doc="If inside Loop inside If")


# ---------------------------------------------------------------------------
# attributes_and_types
# ---------------------------------------------------------------------------

def build_attributes_and_types():
    f = TensorProto.FLOAT
    t1 = numpy_helper.from_array(np.array([1.0, 2.0], np.float32), "attr_t1")
    t2 = numpy_helper.from_array(np.array([[3, 4]], np.int64), "attr_t2")
    sp = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([5.0], np.float32), "sp_values"),
        numpy_helper.from_array(np.array([2], np.int64), "sp_indices"), [4])
    g1 = helper.make_graph([helper.make_node("Identity", ["a"], ["b"])], "attr_g1",
                           [helper.make_tensor_value_info("a", f, [1])],
                           [helper.make_tensor_value_info("b", f, [1])])
    g2 = helper.make_graph([helper.make_node("Neg", ["c"], ["d"])], "attr_g2",
                           [helper.make_tensor_value_info("c", f, None)],
                           [helper.make_tensor_value_info("d", f, None)])
    tp_tensor = helper.make_tensor_type_proto(f, ["B", None, 3])
    tp_seq = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.INT64, None))
    node = helper.make_node(
        "AllAttributes", ["t"], ["u"], name="all_attributes", domain="onnxview.test",
        doc_string="one attribute of each AttributeProto type",
        f_float=0.1, f_neg=-2.5, i_int=-7, s_string="caf\u00e9 \"x\"",
        t_tensor=t1, g_graph=g1, sp_sparse=sp, tp_type=tp_tensor,
        floats=[1.0, -0.0, 1e-30], ints=[0, -1, 1 << 40], strings=["a", "", "b\\c"],
        tensors=[t1, t2], graphs=[g1, g2], sparse_tensors=[sp], type_protos=[tp_tensor, tp_seq],
    )
    # attribute with an explicit doc_string
    node.attribute[0].doc_string = "a float attribute"

    def vi(name, tp):
        return helper.make_value_info(name, tp)

    map_tp = onnx.TypeProto()
    map_tp.map_type.key_type = TensorProto.STRING
    map_tp.map_type.value_type.CopyFrom(helper.make_tensor_type_proto(f, [2]))

    inputs = [
        helper.make_tensor_value_info("t", f, ["B", None, 3]),
        helper.make_tensor_value_info("scalar", TensorProto.DOUBLE, []),
        vi("seq", tp_seq),
        vi("map", map_tp),
        vi("opt", helper.make_optional_type_proto(tp_seq)),
        helper.make_sparse_tensor_value_info("sparse_in", f, [10, "M"]),
    ]
    value_info = [
        helper.make_tensor_value_info("unknown_rank", TensorProto.INT32, None),
        vi("no_type", onnx.TypeProto()),
    ]
    graph = helper.make_graph(
        [node, helper.make_node("Identity", ["t"], ["v"], name="")],
        "attributes_and_types",
        inputs,
        [helper.make_tensor_value_info("u", f, [1]), helper.make_tensor_value_info("v", f, ["B", None, 3])],
        value_info=value_info,
    )
    return _model(graph, [("", OPSET), ("onnxview.test", 1)], doc="attribute and value types",
                  metadata={"empty": "", "k\tey": "v\nalue"})


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "testdata")
    os.makedirs(outdir, exist_ok=True)
    write_small_cnn(outdir)
    _check_and_save(build_tensors_all_types(), os.path.join(outdir, "tensors_all_types.onnx"))
    _check_and_save(build_sparse(), os.path.join(outdir, "sparse.onnx"))
    _check_and_save(build_nested(), os.path.join(outdir, "nested_subgraphs.onnx"))
    _check_and_save(build_attributes_and_types(), os.path.join(outdir, "attributes_and_types.onnx"))
    write_summaries(here, outdir)


def write_summaries(here, outdir):
    """Reference oracle summaries: testdata/summaries/NAME.onnx.summary."""
    sys.path.insert(0, os.path.join(here, "..", "tests", "oracle"))
    import export_summary  # noqa: E402  (tests/oracle/export_summary.py)
    sumdir = os.path.join(outdir, "summaries")
    os.makedirs(sumdir, exist_ok=True)
    for name in sorted(os.listdir(outdir)):
        if name.endswith(".onnx"):
            with open(os.path.join(sumdir, name + ".summary"), "w", encoding="ascii", newline="\n") as f:
                f.write(export_summary.summarize(os.path.join(outdir, name)))


if __name__ == "__main__":
    main()
