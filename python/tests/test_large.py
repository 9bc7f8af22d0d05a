"""A model over 2 GiB in one file (protobuf's limit, which onnx.load cannot
pass): written sparse in the test's directory, so it costs no disk; opened,
listed and read in place, the tensor after the big one included."""
import os

import numpy as np
import pytest

import onnxview
from conftest import address_of, file_offset_of, same_values, varint

COLS = 1024
ROWS = 589824  # x 1024 float32 = 2.25 GiB


def key(number, wire_type):
    return varint(number << 3 | wire_type)


def lendelim(number, payload_len):
    return key(number, 2) + varint(payload_len)


def tensor_head(name, dims, payload_len):
    """TensorProto fields up to raw_data's length prefix (the payload follows)."""
    out = b"".join(key(1, 0) + varint(d) for d in dims) + key(2, 0) + varint(1)
    out += lendelim(8, len(name)) + name + lendelim(9, payload_len)
    return out


@pytest.fixture(scope="module")
def big_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("large") / "big.onnx"
    payload = ROWS * COLS * 4
    first = np.arange(2 * COLS, dtype=np.float32)
    last = -np.arange(2 * COLS, dtype=np.float32)
    after = np.array([1.5, -2.5, 3.5, 4.5], dtype=np.float32)
    small = tensor_head(b"after", [4], 16) + after.tobytes()
    for pad in range(64):  # the big payload 64-byte aligned in the file
        name = b"big" + b"_" * pad
        big = tensor_head(name, [ROWS, COLS], payload)
        graph_name = lendelim(2, 1) + b"g"
        graph_len = (len(graph_name) + len(lendelim(5, len(big) + payload)) + len(big) + payload +
                     len(lendelim(5, len(small))) + len(small))
        opset = lendelim(8, 2) + key(2, 0) + varint(13)
        head = (key(1, 0) + varint(8) + opset + lendelim(7, graph_len) + graph_name +
                lendelim(5, len(big) + payload) + big)
        if len(head) % 64 == 0:
            break
    with open(path, "wb") as f:
        f.write(head)
        f.write(first.tobytes())
        f.seek(len(head) + payload - last.nbytes)
        f.write(last.tobytes())
        f.write(lendelim(5, len(small)) + small)
    assert os.path.getsize(path) > 2 << 30
    return path, name.decode(), len(head), first, last, after


def test_opens_lists_and_reads_after_2_gib(big_model):
    path, name, at, first, last, after = big_model
    with onnxview.open(str(path)) as m:
        assert m.ir_version == 8
        assert m.keys() == [name, "after"]
        assert same_values(m.get_tensor("after"), after)
        s = m.get_slice(name)
        assert s.get_shape() == (ROWS, COLS)
        assert same_values(s[0:2], first.reshape(2, COLS))
        assert same_values(s[ROWS - 2:], last.reshape(2, COLS))
        assert same_values(s[ROWS // 2], np.zeros(COLS, dtype=np.float32))


def test_big_tensor_is_a_view_of_the_file(big_model):
    path, name, at, first, last, after = big_model
    with onnxview.open(str(path)) as m:
        big = m.get_tensor(name)
    assert big.shape == (ROWS, COLS) and big.dtype == np.float32
    assert file_offset_of(address_of(big), path) == at
    assert file_offset_of(address_of(big[ROWS - 1]), path) == at + (ROWS - 1) * COLS * 4
    assert same_values(big[-1, -4:], last[-4:])
    assert onnxview.open(str(path)).check() == []
