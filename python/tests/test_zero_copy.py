"""Zero-copy is real: an aligned tensor's array lies inside the process's
mapping of the model (or external) file at the payload's file offset
(/proc/self/maps says so, not onnxview); an unaligned one is a copy; reading
one tensor grows RSS by that tensor's pages, not the file's."""
import os
import subprocess
import sys
import textwrap

import numpy as np

import onnxview
from conftest import address_of, file_offset_of, mapping_of, require_onnx, same_values

onnx = require_onnx()
from onnx import helper, numpy_helper  # noqa: E402


def model_with_payload_at(tmp_path, values, alignment, aligned, name="model.onnx"):
    """A model whose one initializer's raw_data starts at a file offset that
    is (aligned=True) or is not a multiple of `alignment`; returns (path,
    offset). The name's length moves the payload (name precedes raw_data)."""
    for pad in range(64):
        t = numpy_helper.from_array(values, "w" + "x" * pad)
        g = helper.make_graph([], "g", [], [], initializer=[t])
        data = helper.make_model(g).SerializeToString()
        at = data.find(t.raw_data)
        if (at % alignment == 0) == aligned:
            path = tmp_path / name
            path.write_bytes(data)
            return path, at, t.name
    raise AssertionError("no padding gives that alignment")


def test_aligned_tensor_is_a_view_of_the_mapping(tmp_path):
    values = np.arange(64 * 1024, dtype=np.float32)
    path, at, name = model_with_payload_at(tmp_path, values, 64, True)
    with onnxview.open(str(path)) as m:
        a = m.get_tensor(name)
        b = m.get_tensor(name)
        assert file_offset_of(address_of(a), path) == at
        assert np.shares_memory(a, b) and not a.flags.owndata and not a.flags.writeable
        assert same_values(a, values)
        rows = m.get_slice(name)[1000:2000]
        assert file_offset_of(address_of(rows), path) == at + 1000 * 4


def test_unaligned_tensor_is_one_copy(tmp_path):
    values = np.arange(64 * 1024, dtype=np.float32) * 0.5
    path, at, name = model_with_payload_at(tmp_path, values, 4, False)
    with onnxview.open(str(path)) as m:
        a = m.get_tensor(name)
        assert file_offset_of(address_of(a), path) is None
        region = mapping_of(address_of(a))
        assert region is None or region[2] != os.path.realpath(path)
        assert same_values(a, values) and not a.flags.writeable
        stored, _ = m.get_tensor(name, raw=True)  # bytes need no alignment: still in place
        assert file_offset_of(address_of(stored), path) == at


def test_large_copies_are_whole_huge_pages_on_linux(tmp_path):
    # A copy of 2 MiB or more gets a buffer aligned to 2 MiB (advised
    # MADV_HUGEPAGE on Linux): unaligned raw_data, and float_data in one
    # packed chunk, read as numpy_helper reads them.
    values = np.linspace(-3, 3, 768 * 1024, dtype=np.float32)  # 3 MiB
    path, _, name = model_with_payload_at(tmp_path, values, 4, False)
    for pad in range(8):  # float_data's packed chunk at an unaligned offset
        typed = helper.make_tensor("t" * (pad + 1), onnx.TensorProto.FLOAT, [len(values)], values.tolist())
        data = helper.make_model(helper.make_graph([], "g", [], [], initializer=[typed])).SerializeToString()
        at = data.find(values.tobytes())
        if at >= 0 and at % 4 != 0:
            break
    assert not typed.raw_data and len(typed.float_data) == len(values) and at >= 0 and at % 4 != 0
    (tmp_path / "typed.onnx").write_bytes(data)
    for file, tensor in ((path, name), (tmp_path / "typed.onnx", typed.name)):
        expected = numpy_helper.to_array(onnx.load(str(file)).graph.initializer[0])
        with onnxview.open(str(file)) as m:
            a = m.get_tensor(tensor)
            assert same_values(a, expected) and not a.flags.writeable and a.dtype == np.float32
            assert file_offset_of(address_of(a), file) is None  # a copy
            if sys.platform.startswith("linux"):
                assert address_of(a) % (2 << 20) == 0
        assert same_values(a, expected)  # the buffer outlives the model


def test_external_tensor_is_a_view_of_the_external_file(tmp_path):
    values = np.linspace(-1, 1, 128 * 1024, dtype=np.float32)  # 512 KiB: mapped, not copied
    t = numpy_helper.from_array(values, "w")
    model = helper.make_model(helper.make_graph([], "g", [], [], initializer=[t]))
    onnx.save_model(model, str(tmp_path / "m.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="m.weights", size_threshold=0)
    with onnxview.open(str(tmp_path / "m.onnx")) as m:
        a = m.get_tensor("w")
        assert file_offset_of(address_of(a), tmp_path / "m.weights") == 0
        assert same_values(a, values)


def test_reading_one_tensor_grows_rss_by_its_pages(tmp_path):
    mib = 1 << 20
    tensors = [numpy_helper.from_array(np.full(4 * mib, i + 1, dtype=np.float32), "t%d" % i) for i in range(4)]
    pad = 0
    for _ in range(4):  # t2's payload aligned, so that it is read in place
        tensors[2].name = "t2" + " " * pad
        data = helper.make_model(helper.make_graph([], "g", [], [], initializer=tensors)).SerializeToString()
        at = data.find(tensors[2].raw_data)
        if at % 64 == 0:
            break
        pad += 64 - at % 64
    assert at % 64 == 0
    path = tmp_path / "big.onnx"
    path.write_bytes(data)
    assert path.stat().st_size > 64 * mib
    script = textwrap.dedent("""
        import sys, numpy, onnxview  # numpy first: its import is not the tensor's
        def rss():
            for line in open("/proc/self/status"):
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        with onnxview.open(sys.argv[1]) as m:
            m.keys()
            before = rss()
            total = float(m.get_tensor(m.keys()[2]).sum())
            print(rss() - before, total)
    """)
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True,
                         check=True, env=dict(os.environ)).stdout.split()
    growth, total = int(out[0]), float(out[1])
    assert total == 3.0 * 4 * mib
    assert 12 * mib <= growth <= 24 * mib, growth  # one 16 MiB tensor, not the 64 MiB file
