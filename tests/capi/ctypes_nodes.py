#!/usr/bin/python3
"""A second language over the C ABI: opens a model through libonnxview_c
with ctypes (the few functions declared by hand), prints each node as
"op_type name" with its inputs, and compares the list with what python3-onnx
reads (onnx.load); the model's initializer INIT is summed through
onnxview_tensor_copy_double and compared with numpy.

  ctypes_nodes.py LIBONNXVIEW_C MODEL INIT

Exits 77 (skipped) without python3-onnx.
"""
import ctypes
import sys

WORDS = 16  # ONNXVIEW_HANDLE_WORDS


class Error(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int32), ("sys_errno", ctypes.c_int32), ("offset", ctypes.c_uint64)]


class String(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t)]

    def bytes(self):
        return ctypes.string_at(self.data, self.size) if self.size else b""


class Handle(ctypes.Structure):
    _fields_ = [("opaque", ctypes.c_uint64 * WORDS)]


def declare(lib):
    P = ctypes.POINTER
    sigs = {
        "onnxview_abi_version": (ctypes.c_uint32, []),
        "onnxview_errc_name": (ctypes.c_char_p, [ctypes.c_int32]),
        "onnxview_open_path": (Error, [ctypes.c_char_p, ctypes.c_void_p, P(ctypes.c_void_p)]),
        "onnxview_close": (None, [ctypes.c_void_p]),
        "onnxview_model_graph": (Error, [ctypes.c_void_p, P(Handle)]),
        "onnxview_graph_node": (Error, [P(Handle), ctypes.c_size_t, P(Handle)]),
        "onnxview_node_next": (Error, [P(Handle), P(Handle)]),
        "onnxview_node_op_type": (String, [P(Handle)]),
        "onnxview_node_name": (String, [P(Handle)]),
        "onnxview_node_input_count": (ctypes.c_size_t, [P(Handle)]),
        "onnxview_node_input": (Error, [P(Handle), ctypes.c_size_t, P(String)]),
        "onnxview_graph_find_initializer": (Error, [P(Handle), ctypes.c_char_p, ctypes.c_size_t,
                                                    P(ctypes.c_int), P(Handle), ctypes.c_void_p]),
        "onnxview_tensor_copy_double": (Error, [P(Handle), P(ctypes.c_double), ctypes.c_size_t,
                                                P(ctypes.c_uint64)]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args


def check(lib, e, what):
    if e.code:
        raise SystemExit(f"{what}: {lib.onnxview_errc_name(e.code).decode()} at byte {e.offset}")


def main():
    lib_path, model, init = sys.argv[1], sys.argv[2], sys.argv[3]
    try:
        import numpy
        import onnx
        from onnx import numpy_helper
    except ImportError:
        print("SKIP: /usr/bin/python3 without onnx and numpy")
        return 77
    lib = ctypes.CDLL(lib_path)
    declare(lib)
    print(f"ABI {lib.onnxview_abi_version()}")
    m = ctypes.c_void_p()
    check(lib, lib.onnxview_open_path(model.encode(), None, ctypes.byref(m)), model)
    graph, node = Handle(), Handle()
    check(lib, lib.onnxview_model_graph(m, ctypes.byref(graph)), "graph")
    nodes = []
    e = lib.onnxview_graph_node(ctypes.byref(graph), 0, ctypes.byref(node))
    while e.code == 0:
        inputs = []
        for i in range(lib.onnxview_node_input_count(ctypes.byref(node))):
            s = String()
            check(lib, lib.onnxview_node_input(ctypes.byref(node), i, ctypes.byref(s)), "input")
            inputs.append(s.bytes().decode())
        nodes.append((lib.onnxview_node_op_type(ctypes.byref(node)).bytes().decode(),
                      lib.onnxview_node_name(ctypes.byref(node)).bytes().decode(), inputs))
        print(f"{nodes[-1][0]} {nodes[-1][1]} {nodes[-1][2]}")
        e = lib.onnxview_node_next(ctypes.byref(node), ctypes.byref(node))
    tensor, is_sparse, count = Handle(), ctypes.c_int(), ctypes.c_uint64()
    name = init.encode()
    check(lib, lib.onnxview_graph_find_initializer(ctypes.byref(graph), name, len(name), ctypes.byref(is_sparse),
                                                   ctypes.byref(tensor), None), init)
    values = (ctypes.c_double * 65536)()
    check(lib, lib.onnxview_tensor_copy_double(ctypes.byref(tensor), values, 65536, ctypes.byref(count)), init)
    ours = sum(values[i] for i in range(count.value))
    lib.onnxview_close(m)

    proto = onnx.load(model)
    expected = [(n.op_type, n.name, list(n.input)) for n in proto.graph.node]
    weight = [t for t in proto.graph.initializer if t.name == init][0]
    theirs = float(numpy.sum(numpy_helper.to_array(weight, base_dir=model.rsplit("/", 1)[0]).astype(numpy.float64)))
    print(f"{init}: {count.value} values, sum {ours!r} (python3-onnx: {theirs!r})")
    if nodes != expected:
        print(f"FAIL: nodes differ from python3-onnx's: {expected}")
        return 1
    if abs(ours - theirs) > 1e-9 * max(1.0, abs(theirs)):
        print("FAIL: sums differ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
