"""The public API, one behaviour per test: metadata, keys, get_tensor (all
27 data types; the types onnx 1.12 lacks against decoders written here from
the ONNX spec), raw bytes, slices, graphs, check(), load_tensor, errors."""
import numpy as np
import pytest

import onnxview
from conftest import require_onnx, same_values

onnx = require_onnx()
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def save_model(tmp_path, initializers, nodes=(), inputs=(), outputs=(), name="model.onnx", **kw):
    g = helper.make_graph(list(nodes), "g", list(inputs), list(outputs), initializer=list(initializers))
    m = helper.make_model(g, producer_name="tests", opset_imports=[helper.make_opsetid("", 13)], **kw)
    path = tmp_path / name
    onnx.save(m, str(path))
    return path


def tensor(name, data_type, dims, raw=None, int32=None):
    t = TensorProto()
    t.name, t.data_type = name, data_type
    t.dims.extend(dims)
    if raw is not None:
        t.raw_data = bytes(raw)
    if int32 is not None:
        t.int32_data.extend(int32)
    return t


# --- decoders of the narrow formats, from the ONNX specification (docs/Operators.md
# Cast, docs/docsgen "Float stored in 8 bits", "4 bit floating point")

def _minifloat(bits, exp_bits, man_bits, bias, nan, inf=None, has_negzero=True):
    out = []
    for b in bits:
        sign = -1.0 if b >> (exp_bits + man_bits) & 1 else 1.0
        e = (b >> man_bits) & ((1 << exp_bits) - 1)
        m = b & ((1 << man_bits) - 1)
        if nan(b):
            out.append(np.nan)
        elif inf is not None and inf(b):
            out.append(sign * np.inf)
        elif e == 0:
            out.append(sign * m / (1 << man_bits) * 2.0 ** (1 - bias))
        else:
            out.append(sign * (1 + m / (1 << man_bits)) * 2.0 ** (e - bias))
    return np.array(out, dtype=np.float32)


ALL_BYTES = list(range(256))
NARROW = {
    17: lambda b: _minifloat(b, 4, 3, 7, lambda x: x & 0x7F == 0x7F),
    18: lambda b: _minifloat(b, 4, 3, 8, lambda x: x == 0x80),
    19: lambda b: _minifloat(b, 5, 2, 15, lambda x: x & 0x7C == 0x7C and x & 3, lambda x: x & 0x7F == 0x7C),
    20: lambda b: _minifloat(b, 5, 2, 16, lambda x: x == 0x80),
    24: lambda b: np.array([np.nan if x == 0xFF else 2.0 ** (x - 127) for x in b], dtype=np.float32),
}


@pytest.mark.parametrize("data_type", [17, 18, 19, 20, 24])
def test_float8_types_decode_as_the_spec(tmp_path, data_type):
    raw = tensor("raw", data_type, [16, 16], raw=ALL_BYTES)
    typed = tensor("typed", data_type, [256], int32=ALL_BYTES)
    path = save_model(tmp_path, [raw, typed])
    want = NARROW[data_type](ALL_BYTES)
    with onnxview.open(str(path)) as m:
        assert same_values(m.get_tensor("raw"), want.reshape(16, 16))
        assert same_values(m.get_tensor("typed"), want)
        assert same_values(m.get_slice("raw")[3:5], want.reshape(16, 16)[3:5])
        stored, type_name = m.get_tensor("typed", raw=True)
        assert bytes(stored) == bytes(ALL_BYTES)
        assert type_name.startswith("FLOAT8")


def test_bfloat16_is_the_top_half_of_a_float32(tmp_path):
    patterns = np.array([0x3F80, 0x8000, 0x7F80, 0xFF80, 0x7FC1, 0x0001, 0xC2F7], dtype=np.uint16)
    path = save_model(tmp_path, [tensor("b", 16, [7], raw=patterns.tobytes())])
    with onnxview.open(str(path)) as m:
        want = (patterns.astype(np.uint32) << 16).view(np.float32)
        got = m.get_tensor("b")
        assert got.dtype == np.float32
        assert np.array_equal(got.view(np.uint32) >> 16 != 0, want.view(np.uint32) >> 16 != 0)
        assert same_values(got, want)


def _nibbles(values, bits):
    """Pack values (masked to `bits`) low bits first, as onnx.proto says for 4- and 2-bit types."""
    per = 8 // bits
    out = bytearray((len(values) + per - 1) // per)
    for i, v in enumerate(values):
        out[i // per] |= (v & ((1 << bits) - 1)) << ((i % per) * bits)
    return bytes(out)


@pytest.mark.parametrize("data_type,bits,signed", [(21, 4, False), (22, 4, True), (25, 2, False), (26, 2, True)])
def test_sub_byte_integers_unpack_to_one_value_each(tmp_path, data_type, bits, signed):
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    values = [lo + (i * 3) % (hi - lo + 1) for i in range(13)]  # odd count: padding bits at the end
    packed = _nibbles(values, bits)
    path = save_model(tmp_path, [tensor("raw", data_type, [13], raw=packed),
                                 tensor("typed", data_type, [13], int32=list(packed))])
    want = np.array(values, dtype=np.int8 if signed else np.uint8)
    with onnxview.open(str(path)) as m:
        assert same_values(m.get_tensor("raw"), want)
        assert same_values(m.get_tensor("typed"), want)
        assert bytes(m.get_tensor("typed", raw=True)[0]) == packed
        assert bytes(m.get_tensor("raw", raw=True)[0]) == packed


def test_float4e2m1_magnitudes(tmp_path):
    codes = list(range(16))
    path = save_model(tmp_path, [tensor("f4", 23, [16], raw=_nibbles(codes, 4))])
    magnitudes = [0, 0.5, 1, 1.5, 2, 3, 4, 6]
    want = np.array([(-1.0 if c & 8 else 1.0) * magnitudes[c & 7] for c in codes], dtype=np.float32)
    with onnxview.open(str(path)) as m:
        assert same_values(m.get_tensor("f4"), want)


def test_every_data_type_has_a_dtype():
    names = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
             8: "object", 9: "bool", 10: "float16", 11: "float64", 12: "uint32", 13: "uint64",
             14: "complex64", 15: "complex128", 16: "float32", 17: "float32", 18: "float32",
             19: "float32", 20: "float32", 21: "uint8", 22: "int8", 23: "float32", 24: "float32",
             25: "uint8", 26: "int8"}
    for number, name in names.items():
        assert onnxview.dtype_of(number) == np.dtype(name), number
    assert onnxview.dtype_of(0) is None and onnxview.dtype_of(99) is None


def test_metadata_and_keys(testdata):
    proto = onnx.load(str(testdata / "small_cnn.onnx"), load_external_data=False)
    with onnxview.open(str(testdata / "small_cnn.onnx")) as m:
        assert m.ir_version == proto.ir_version == 8
        assert m.producer == proto.producer_name
        assert m.opsets == {"": 13, "onnxview.local": 1}
        assert m.metadata == {e.key: e.value for e in proto.metadata_props}
        assert m.keys() == [t.name for t in proto.graph.initializer]
        assert "fc.weight" in m and "nope" not in m
        assert repr(m).startswith("<onnxview.Model")


def test_get_tensor_unknown_name_is_a_key_error(testdata):
    with onnxview.open(str(testdata / "small_cnn.onnx")) as m:
        with pytest.raises(KeyError):
            m.get_tensor("no such tensor")


def test_raw_bytes_are_the_stored_bytes(testdata):
    proto = onnx.load(str(testdata / "small_cnn_inline.onnx"))
    with onnxview.open(str(testdata / "small_cnn_inline.onnx")) as m:
        for t in proto.graph.initializer:
            stored, name = m.get_tensor(t.name, raw=True)
            assert stored.dtype == np.uint8 and not stored.flags.writeable
            assert bytes(stored) == t.raw_data
            assert name == TensorProto.DataType.Name(t.data_type)


def test_raw_of_typed_data_is_the_raw_data_layout(testdata):
    proto = onnx.load(str(testdata / "tensors_all_types.onnx"))
    with onnxview.open(str(testdata / "tensors_all_types.onnx")) as m:
        for t in proto.graph.initializer:
            if not t.name.endswith("_typed") or t.data_type == TensorProto.STRING:
                continue
            raw_twin = next((r for r in proto.graph.initializer if r.name == t.name[:-len("typed")] + "raw"), None)
            if raw_twin is None:
                continue
            assert bytes(m.get_tensor(t.name, raw=True)[0]) == raw_twin.raw_data, t.name
        with pytest.raises(onnxview.Error) as e:
            m.get_tensor("string_typed", raw=True)
        assert e.value.code == "bad_data_type"


def test_slices_read_rows(testdata):
    with onnxview.open(str(testdata / "small_cnn.onnx")) as m:
        whole = m.get_tensor("fc.weight")
        s = m.get_slice("fc.weight")
        assert s.get_shape() == s.shape == whole.shape and len(s) == whole.shape[0]
        assert s.get_dtype() == whole.dtype
        for key in [slice(0, 3), slice(2, 9, 3), slice(None, None, -1), slice(8, 1, -2), slice(5, 5),
                    4, -1, (slice(1, 4), slice(10, 20)), (2, 7), (slice(None), 3), slice(-3, None)]:
            assert same_values(np.asarray(s[key]), np.asarray(whole[key])), key
        with pytest.raises(IndexError):
            s[10]
    with onnxview.open(str(testdata / "tensors_all_types.onnx")) as m:
        for name in m.keys():  # typed storage, strings and complex go through the whole tensor
            whole = m.get_tensor(name)
            if whole.ndim:
                assert same_values(m.get_slice(name)[1:], whole[1:]), name


def test_graph_nodes_attributes_and_values(testdata):
    proto = onnx.load(str(testdata / "attributes_and_types.onnx"))
    with onnxview.open(str(testdata / "attributes_and_types.onnx")) as m:
        g = m.graph
        node = next(n for n in g.nodes if n.attributes)
        values = node.attributes
        kinds = {k: type(v).__name__ for k, v in values.items()}
        assert set(kinds.values()) >= {"float", "int", "bytes", "ndarray", "Graph", "SparseTensor", "Type", "list"}
        assert [v.name for v in g.inputs] == [v.name for v in proto.graph.input]
        shapes = {v.name: v.shape for v in g.inputs}
        assert any(isinstance(d, str) for s in shapes.values() if s for d in s)
        sparse = next(v for v in values.values() if isinstance(v, onnxview.SparseTensor))
        assert sparse.to_dense().shape == sparse.dims
        assert repr(node).startswith("<onnxview.Node")


def test_check_reports_what_onnx_checker_rejects(tmp_path):
    node = helper.make_node("Relu", ["undefined"], ["y"])
    path = save_model(tmp_path, [], nodes=[node],
                      outputs=[helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    with pytest.raises(onnx.checker.ValidationError):
        onnx.checker.check_model(onnx.load(str(path)))
    with onnxview.open(str(path)) as m:
        findings = m.check()
        assert [f.code for f in findings if f.severity == "error"] == ["undefined_input"]
        assert findings[0].path.startswith("graph.node[0]")
        assert m.check(errors_only=True)


def test_check_of_a_valid_model_is_empty(testdata):
    onnx.checker.check_model(str(testdata / "small_cnn.onnx"))
    with onnxview.open(str(testdata / "small_cnn.onnx")) as m:
        assert m.check() == []


def test_load_tensor(tmp_path):
    t = numpy_helper.from_array(np.arange(12, dtype=np.int16).reshape(3, 4), "x")
    (tmp_path / "x.pb").write_bytes(t.SerializeToString())
    got = onnxview.load_tensor(str(tmp_path / "x.pb"))
    assert same_values(got, np.arange(12, dtype=np.int16).reshape(3, 4))
    with pytest.raises(onnxview.Error) as e:
        onnxview.load_tensor(str(tmp_path / "missing.pb"))
    assert e.value.group == "io_error" and e.value.errno != 0


def test_errors_carry_code_offset_and_path(tmp_path, testdata):
    data = bytearray((testdata / "small_cnn_inline.onnx").read_bytes())
    at = data.find(b"\x1a\x05relu1")  # NodeProto.name (field 3, length-delimited) of node 1
    assert at > 0
    data[at] = 0x1F  # field 3 with wire type 7, which protobuf refuses
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(bytes(data))
    with pytest.raises(onnxview.Error) as e:
        with onnxview.open(str(bad), verify=True):
            pass
    assert e.value.code == "bad_wire_type"
    assert e.value.offset == at
    assert e.value.path.startswith("graph.node[1]")
    assert "bad_wire_type" in str(e.value) and str(at) in str(e.value)
    with onnxview.open(str(bad)) as m:  # without verify the node is read when asked for
        with pytest.raises(onnxview.Error) as e2:
            [n.name for n in m.graph.nodes]
        assert e2.value.code == "bad_wire_type"


def test_paths_may_be_path_objects_or_bytes(testdata, tmp_path):
    with onnxview.open(testdata / "small_cnn.onnx") as m, \
            onnxview.open(bytes(testdata / "small_cnn.onnx")) as n:
        assert m.keys() == n.keys()
    t = numpy_helper.from_array(np.arange(3, dtype=np.int8), "x")
    (tmp_path / "x.pb").write_bytes(t.SerializeToString())
    assert same_values(onnxview.load_tensor(tmp_path / "x.pb"), np.arange(3, dtype=np.int8))


def test_closed_model_refuses_use(testdata):
    m = onnxview.open(str(testdata / "small_cnn.onnx"))
    assert not m.closed
    m.close()
    assert m.closed
    with pytest.raises(ValueError):
        m.keys()
    with onnxview.open(str(testdata / "small_cnn.onnx")) as m2:
        pass
    assert m2.closed


def test_help_is_useful():
    assert "maps the" in onnxview.open.__doc__.lower()
    assert "zero-copy" in onnxview.Model.get_tensor.__doc__ or "bytes" in onnxview.Model.get_tensor.__doc__
    assert onnxview.__doc__ and "get_slice" in onnxview.__doc__


def test_type_stubs_name_what_the_module_has():
    import ast
    import pathlib
    stub = ast.parse((pathlib.Path(onnxview.__file__).with_name("__init__.pyi")).read_text())
    classes = {n.name: {f.name for f in n.body if isinstance(f, ast.FunctionDef)} |
               {f.target.id for f in n.body if isinstance(f, ast.AnnAssign)}
               for n in stub.body if isinstance(n, ast.ClassDef)}
    functions = {n.name for n in stub.body if isinstance(n, ast.FunctionDef)}
    assert set(onnxview.__all__) == set(classes) | functions
    for name, members in classes.items():
        runtime = {m for m in dir(getattr(onnxview, name)) if not m.startswith("_") or m in members}
        if name == "Error":
            continue  # attributes are set per instance
        assert members - {"__enter__", "__exit__", "__contains__", "__len__", "__getitem__"} <= runtime, name
        public = {m for m in runtime if not m.startswith("_")}
        assert public <= members, (name, public - members)


def test_open_says_what_a_file_that_is_no_model_is(tmp_path, testdata):
    lfs = tmp_path / "lfs.onnx"
    lfs.write_text("version https://git-lfs.github.com/spec/v1\n"
                   "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")
    tensor_file = tmp_path / "input_0.onnx"
    tensor_file.write_bytes(numpy_helper.from_array(np.arange(6, dtype=np.float32), "x").SerializeToString())
    cut = tmp_path / "cut.onnx"
    cut.write_bytes((testdata / "small_cnn_inline.onnx").read_bytes()[:1000])
    for path, kind in ((lfs, "git_lfs_pointer"), (tensor_file, "tensor_proto"), (cut, "truncated")):
        with pytest.raises(onnxview.Error) as e:
            onnxview.open(str(path), verify=True)
        assert e.value.diagnosis == kind, path
    with pytest.raises(onnxview.Error) as e:
        onnxview.open(str(tmp_path / "missing.onnx"))
    assert e.value.diagnosis is None and e.value.code == "io_stat_failed"
