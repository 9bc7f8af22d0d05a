"""External data through the Python package: read in place like inline data,
and every attack of the C++ tests (tests/io/external_data_test.cpp) raises
onnxview.Error with the library's code; none reads the file outside the
model's directory."""
import os

import numpy as np
import pytest

import onnxview
from conftest import SOURCE_ROOT, require_onnx, same_values

onnx = require_onnx()
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

SECRET = b"SECRETSECRETSECR"  # 16 bytes: four float32 values


@pytest.fixture
def layout(tmp_path):
    """tmp/model/ holds the models and w.bin; tmp/secret.bin lies outside."""
    (tmp_path / "model").mkdir()
    (tmp_path / "secret.bin").write_bytes(SECRET)
    (tmp_path / "model" / "w.bin").write_bytes(np.arange(8, dtype=np.float32).tobytes())
    return tmp_path


def external_model(directory, entries, dims=(4,), name="m.onnx"):
    t = TensorProto()
    t.name, t.data_type = "w", TensorProto.FLOAT
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for key, value in entries:
        e = t.external_data.add()
        e.key, e.value = key, value
    model = helper.make_model(helper.make_graph([], "g", [], [], initializer=[t]))
    path = directory / name
    path.write_bytes(model.SerializeToString())
    return path


def refused(path):
    with onnxview.open(str(path)) as m:
        with pytest.raises(onnxview.Error) as e:
            m.get_tensor("w")
    return e.value


def test_external_tensor_equals_onnx(layout):
    path = external_model(layout / "model", [("location", "w.bin"), ("offset", "16"), ("length", "16")])
    want = numpy_helper.to_array(onnx.load(str(path)).graph.initializer[0])
    with onnxview.open(str(path)) as m:
        assert same_values(m.get_tensor("w"), want)
        assert same_values(m.get_tensor("w"), np.arange(4, 8, dtype=np.float32))


def test_testdata_external_weights_equal_the_inline_model(testdata):
    with onnxview.open(str(testdata / "small_cnn.onnx")) as ext, \
            onnxview.open(str(testdata / "small_cnn_inline.onnx")) as inline:
        for name in ("conv2.weight", "fc.weight"):
            assert same_values(ext.get_tensor(name), inline.get_tensor(name))


ATTACKS = [
    ("missing location", [("offset", "0")], "external_missing_location"),
    ("empty location", [("location", "")], "external_empty_location"),
    ("NUL in location", [("location", "w.bin\0../secret.bin")], "external_nul_in_location"),
    ("parent component", [("location", "../secret.bin")], "external_parent_component"),
    ("parent inside a path", [("location", "a/../../secret.bin")], "external_parent_component"),
    ("absolute path", [("location", "/etc/passwd")], "external_absolute_path"),
    ("drive path", [("location", "C:\\secret.bin")], "external_drive_path"),
    ("drive-relative path", [("location", "C:secret.bin")], "external_drive_path"),
    ("UNC path", [("location", "\\\\server\\share\\secret.bin")], "external_unc_path"),
    ("UNC path with slashes", [("location", "//server/share/secret.bin")], "external_unc_path"),
    ("backslash", [("location", "sub\\secret.bin")], "external_backslash"),
    ("in-memory location", [("location", "#tensor0")], "external_in_memory_location"),
    ("location too long", [("location", "a" * 5000)], "external_location_too_long"),
    ("range past the end", [("location", "w.bin"), ("offset", "24"), ("length", "16")], "external_range_past_end"),
    ("offset past the end", [("location", "w.bin"), ("offset", "33")], "external_offset_past_end"),
    ("range overflows 64 bits", [("location", "w.bin"), ("offset", "18446744073709551615"), ("length", "16")],
     "external_range_overflow"),
    ("number above 2^64", [("location", "w.bin"), ("offset", "18446744073709551616")], "external_number_too_large"),
    ("offset not decimal", [("location", "w.bin"), ("offset", "0x10")], "external_offset_not_decimal"),
    ("negative offset", [("location", "w.bin"), ("offset", "-1")], "external_offset_not_decimal"),
    ("length not decimal", [("location", "w.bin"), ("length", "1e3")], "external_length_not_decimal"),
    ("length differs from dims", [("location", "w.bin"), ("length", "12")], "external_length_mismatch"),
    ("duplicate key", [("location", "w.bin"), ("location", "../secret.bin")], "external_duplicate_key"),
    ("missing file", [("location", "gone.bin")], "io_resolve_failed"),
]


@pytest.mark.parametrize("entries,code", [a[1:] for a in ATTACKS], ids=[a[0] for a in ATTACKS])
def test_attack_raises(layout, entries, code):
    e = refused(external_model(layout / "model", entries))
    assert e.code == code
    assert SECRET.decode() not in str(e)


def test_symlinked_directory_escaping_the_base(layout):
    os.symlink(layout, layout / "model" / "sub")
    assert refused(external_model(layout / "model", [("location", "sub/secret.bin")])).code == "external_symlink_escape"


def test_symlinked_file_escaping_the_base(layout):
    os.symlink(layout / "secret.bin", layout / "model" / "link.bin")
    assert refused(external_model(layout / "model", [("location", "link.bin")])).code == "external_symlink_escape"


def test_hard_link_refused(layout):
    os.link(layout / "secret.bin", layout / "model" / "hard.bin")
    assert refused(external_model(layout / "model", [("location", "hard.bin")])).code == "external_hard_link"


def test_directory_refused(layout):
    (layout / "model" / "subdir").mkdir()
    assert refused(external_model(layout / "model", [("location", "subdir")])).code == "is_directory"


def test_fifo_refused_without_blocking(layout):
    os.mkfifo(layout / "model" / "pipe.bin")
    assert refused(external_model(layout / "model", [("location", "pipe.bin")])).code == "not_regular_file"


# fuzz_pack finding 7: an EXTERNAL tensor without elements still names a place
# in a file; the package resolves it like the CLI and the C API, refusing an
# offset 8 bytes short of 2^64 (an unknown key beside it changes nothing).
EMPTY_EXTERNAL = SOURCE_ROOT / "fuzz" / "corpus" / "fuzz_pack" / "finding-empty-external-offset-near-2-64"


@pytest.mark.parametrize("weights,code", [(b"\0" * 100, "external_offset_past_end"), (None, "io_resolve_failed")],
                         ids=["next to a 100-byte file", "without the file"])
def test_empty_external_tensor_is_resolved(tmp_path, weights, code):
    path = tmp_path / "empty.onnx"
    path.write_bytes(EMPTY_EXTERNAL.read_bytes())
    if weights is not None:
        (tmp_path / "weights.bin").write_bytes(weights)
    with onnxview.open(str(path)) as m:
        assert m.keys() == ["w"]
        with pytest.raises(onnxview.Error) as e:
            m.get_tensor("w")
        assert e.value.code == code
        assert [f.code for f in m.check() if f.code == "external_data"] == ["external_data"]


def test_check_reports_unsafe_external_data(layout):
    path = external_model(layout / "model", [("location", "../secret.bin")])
    with onnxview.open(str(path)) as m:
        codes = [f.code for f in m.check()]
    assert "external_data" in codes
