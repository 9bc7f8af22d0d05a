#!/usr/bin/python3
"""Writes the models docs/profile.md profiles, into testdata/profile/:

  transformer_block.onnx  one pre-norm transformer encoder block as exporters
                          write it (d_model 768, 12 heads, MLP 3072), over
                          input x[batch, seq, 768]: LayerNormalization, Q/K/V
                          MatMuls, the head split by Reshape through a
                          Shape -> Gather -> Concat chain, Transpose, scaled
                          Q x K^T, Softmax, x V, output projection, residual
                          Adds, the MLP with Gelu written as Erf arithmetic
  lstm.onnx               a bidirectional LSTM (input 128, hidden 256) over
                          x[seq, batch, 128], then a Gemm classifier on the
                          last hidden state
  text_detector.onnx      a small text detector as Paddle2ONNX writes one
                          (dims p2o.DynamicDimension.0-2): strided Convs, a
                          feature map resized to an earlier one's size (sizes
                          from Shape -> Slice -> Concat), a Conv head, and the
                          probability map upsampled by float scales 2 x 2

Their weights are external data in a file that is not kept (the .onnx files
stay a few KB): profiling them shows that onnxview profile never reads a weight.

  scripts/make_profile_examples.py    (needs python3-onnx and numpy)
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "testdata", "profile")


def weight(name, shape):
    return numpy_helper.from_array(np.zeros(shape, dtype=np.float32), name)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def transformer_block(d=768, heads=12, mlp=3072):
    head = d // heads
    n = []
    inits = [weight("ln1.scale", [d]), weight("ln1.bias", [d]), weight("ln2.scale", [d]), weight("ln2.bias", [d]),
             weight("attn.q.weight", [d, d]), weight("attn.k.weight", [d, d]), weight("attn.v.weight", [d, d]),
             weight("attn.q.bias", [d]), weight("attn.k.bias", [d]), weight("attn.v.bias", [d]),
             weight("attn.out.weight", [d, d]), weight("attn.out.bias", [d]),
             weight("mlp.fc1.weight", [d, mlp]), weight("mlp.fc1.bias", [mlp]),
             weight("mlp.fc2.weight", [mlp, d]), weight("mlp.fc2.bias", [d]),
             ints("idx0", 0), ints("idx1", 1), ints("axes0", [0]),
             ints("heads_dims", [heads, head]), ints("model_dim", [d]),
             numpy_helper.from_array(np.array(head ** -0.5, dtype=np.float32), "scale"),
             numpy_helper.from_array(np.array(2 ** -0.5, dtype=np.float32), "inv_sqrt2"),
             numpy_helper.from_array(np.array(1.0, dtype=np.float32), "one"),
             numpy_helper.from_array(np.array(0.5, dtype=np.float32), "half")]
    n.append(helper.make_node("LayerNormalization", ["x", "ln1.scale", "ln1.bias"], ["ln1"], name="/ln1/LayerNorm", axis=-1))
    # The batch and sequence sizes as the exporter reads them at run time.
    n.append(helper.make_node("Shape", ["x"], ["x_shape"], name="/attn/Shape"))
    n.append(helper.make_node("Gather", ["x_shape", "idx0"], ["batch"], name="/attn/Gather_batch", axis=0))
    n.append(helper.make_node("Gather", ["x_shape", "idx1"], ["seq"], name="/attn/Gather_seq", axis=0))
    n.append(helper.make_node("Unsqueeze", ["batch", "axes0"], ["batch1"], name="/attn/Unsqueeze_batch"))
    n.append(helper.make_node("Unsqueeze", ["seq", "axes0"], ["seq1"], name="/attn/Unsqueeze_seq"))
    n.append(helper.make_node("Concat", ["batch1", "seq1", "heads_dims"], ["split_shape"], name="/attn/Concat_split", axis=0))
    n.append(helper.make_node("Concat", ["batch1", "seq1", "model_dim"], ["merge_shape"], name="/attn/Concat_merge", axis=0))
    for p in ("q", "k", "v"):
        n.append(helper.make_node("MatMul", ["ln1", f"attn.{p}.weight"], [f"{p}_mm"], name=f"/attn/{p}/MatMul"))
        n.append(helper.make_node("Add", [f"{p}_mm", f"attn.{p}.bias"], [f"{p}_lin"], name=f"/attn/{p}/Add"))
        n.append(helper.make_node("Reshape", [f"{p}_lin", "split_shape"], [f"{p}_split"], name=f"/attn/{p}/Reshape"))
        perm = [0, 2, 3, 1] if p == "k" else [0, 2, 1, 3]
        n.append(helper.make_node("Transpose", [f"{p}_split"], [f"{p}_heads"], name=f"/attn/{p}/Transpose", perm=perm))
    n.append(helper.make_node("MatMul", ["q_heads", "k_heads"], ["scores_raw"], name="/attn/MatMul_qk"))
    n.append(helper.make_node("Mul", ["scores_raw", "scale"], ["scores"], name="/attn/Mul_scale"))
    n.append(helper.make_node("Softmax", ["scores"], ["probs"], name="/attn/Softmax", axis=-1))
    n.append(helper.make_node("MatMul", ["probs", "v_heads"], ["ctx_heads"], name="/attn/MatMul_pv"))
    n.append(helper.make_node("Transpose", ["ctx_heads"], ["ctx_t"], name="/attn/Transpose_out", perm=[0, 2, 1, 3]))
    n.append(helper.make_node("Reshape", ["ctx_t", "merge_shape"], ["ctx"], name="/attn/Reshape_out"))
    n.append(helper.make_node("MatMul", ["ctx", "attn.out.weight"], ["attn_mm"], name="/attn/out/MatMul"))
    n.append(helper.make_node("Add", ["attn_mm", "attn.out.bias"], ["attn_out"], name="/attn/out/Add"))
    n.append(helper.make_node("Add", ["x", "attn_out"], ["res1"], name="/Add_residual1"))
    n.append(helper.make_node("LayerNormalization", ["res1", "ln2.scale", "ln2.bias"], ["ln2"], name="/ln2/LayerNorm", axis=-1))
    n.append(helper.make_node("MatMul", ["ln2", "mlp.fc1.weight"], ["fc1_mm"], name="/mlp/fc1/MatMul"))
    n.append(helper.make_node("Add", ["fc1_mm", "mlp.fc1.bias"], ["fc1"], name="/mlp/fc1/Add"))
    # Gelu as exporters before opset 20 write it: 0.5 * x * (1 + erf(x / sqrt(2))).
    n.append(helper.make_node("Mul", ["fc1", "inv_sqrt2"], ["gelu_a"], name="/mlp/gelu/Mul_a"))
    n.append(helper.make_node("Erf", ["gelu_a"], ["gelu_b"], name="/mlp/gelu/Erf"))
    n.append(helper.make_node("Add", ["gelu_b", "one"], ["gelu_c"], name="/mlp/gelu/Add"))
    n.append(helper.make_node("Mul", ["fc1", "gelu_c"], ["gelu_d"], name="/mlp/gelu/Mul_b"))
    n.append(helper.make_node("Mul", ["gelu_d", "half"], ["gelu"], name="/mlp/gelu/Mul_c"))
    n.append(helper.make_node("MatMul", ["gelu", "mlp.fc2.weight"], ["fc2_mm"], name="/mlp/fc2/MatMul"))
    n.append(helper.make_node("Add", ["fc2_mm", "mlp.fc2.bias"], ["fc2"], name="/mlp/fc2/Add"))
    n.append(helper.make_node("Add", ["res1", "fc2"], ["y"], name="/Add_residual2"))
    graph = helper.make_graph(n, "transformer_block",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", d])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", d])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="make_profile_examples")


def lstm(size=128, hidden=256, classes=10):
    inits = [weight("lstm.W", [2, 4 * hidden, size]), weight("lstm.R", [2, 4 * hidden, hidden]),
             weight("lstm.B", [2, 8 * hidden]), weight("fc.weight", [classes, 2 * hidden]), weight("fc.bias", [classes]),
             ints("flat_shape", [0, -1])]
    nodes = [
        helper.make_node("LSTM", ["x", "lstm.W", "lstm.R", "lstm.B"], ["y", "y_h", "y_c"], name="/lstm/LSTM",
                         hidden_size=hidden, direction="bidirectional"),
        helper.make_node("Transpose", ["y_h"], ["h_t"], name="/Transpose", perm=[1, 0, 2]),
        helper.make_node("Reshape", ["h_t", "flat_shape"], ["h"], name="/Reshape"),
        helper.make_node("Gemm", ["h", "fc.weight", "fc.bias"], ["logits"], name="/fc/Gemm", transB=1),
    ]
    graph = helper.make_graph(nodes, "lstm_classifier",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["seq", "batch", size])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", classes])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], producer_name="make_profile_examples")


def text_detector():
    dims = ["p2o.DynamicDimension.0", "p2o.DynamicDimension.1", "p2o.DynamicDimension.2"]
    inits = [weight("conv1.w", [16, 3, 3, 3]), weight("conv1.b", [16]), weight("conv2.w", [32, 16, 3, 3]),
             weight("conv2.b", [32]), weight("lateral.w", [16, 32, 1, 1]), weight("head.w", [1, 16, 3, 3]),
             ints("zero", [0]), ints("two", [2]), ints("four", [4]),
             numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), "up2")]
    nodes = [
        helper.make_node("Conv", ["x", "conv1.w", "conv1.b"], ["c1"], name="conv2d_0", strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu_0"),
        helper.make_node("Conv", ["r1", "conv2.w", "conv2.b"], ["c2"], name="conv2d_1", strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu_1"),
        helper.make_node("Conv", ["r2", "lateral.w"], ["lat"], name="conv2d_2"),
        # The lateral map resized to relu_0's size, read at run time as Paddle2ONNX writes it.
        helper.make_node("Shape", ["lat"], ["lat_shape"], name="shape_0"),
        helper.make_node("Shape", ["r1"], ["r1_shape"], name="shape_1"),
        helper.make_node("Slice", ["lat_shape", "zero", "two"], ["nc"], name="slice_0"),
        helper.make_node("Slice", ["r1_shape", "two", "four"], ["hw"], name="slice_1"),
        helper.make_node("Concat", ["nc", "hw"], ["sizes"], name="concat_0", axis=0),
        helper.make_node("Resize", ["lat", "", "", "sizes"], ["up"], name="resize_0", mode="nearest"),
        helper.make_node("Add", ["r1", "up"], ["fused"], name="add_0"),
        helper.make_node("Conv", ["fused", "head.w"], ["logit"], name="conv2d_3", pads=[1, 1, 1, 1]),
        helper.make_node("Sigmoid", ["logit"], ["prob"], name="sigmoid_0"),
        helper.make_node("Resize", ["prob", "", "up2"], ["maps"], name="resize_1", mode="nearest"),
    ]
    graph = helper.make_graph(nodes, "text_detector",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [dims[0], 3, dims[1], dims[2]])],
                              [helper.make_tensor_value_info("maps", TensorProto.FLOAT, [None] * 4)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_profile_examples")


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, model in (("transformer_block", transformer_block()), ("lstm", lstm()),
                        ("text_detector", text_detector())):
        onnx.checker.check_model(model)
        path = os.path.join(OUT, name + ".onnx")
        weights = name + ".weights"
        # Every tensor above 64 bytes external, in a file then deleted: the
        # model keeps its shapes and small shape constants only.
        onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location=weights,
                  size_threshold=64)
        os.remove(os.path.join(OUT, weights))
        print(f"{path}: {os.path.getsize(path)} bytes (weights not kept)")


if __name__ == "__main__":
    main()
