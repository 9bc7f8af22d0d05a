"""onnxview.open(URL): a model served over HTTP by real nginx on loopback
(tests/remote/servers.py) reads as its file does (keys, tensors, findings),
its external data beside the URL; a tensor costs its own byte range, not the
file; 404 and 401 raise onnxview.Error naming the status, and
ONNXVIEW_HTTP_BEARER opens the /private/ location.

Skipped when nginx is absent or the package was built without remote
support (no libcurl)."""
import glob
import importlib.util
import os
import urllib.error
import urllib.request

import numpy as np
import pytest

import onnxview
from conftest import SOURCE_ROOT, TESTDATA, require_onnx, same_values

MiB = 1024 * 1024
TOKEN = "secret"
# What the library must not take from the environment of whoever runs the tests.
DROPPED_ENV = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
               "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "ONNXVIEW_HTTP_BEARER", "CURL_CA_BUNDLE")


def _load_servers():
    path = SOURCE_ROOT / "tests" / "remote" / "servers.py"
    spec = importlib.util.spec_from_file_location("onnxview_test_servers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


servers = _load_servers()
if servers.skip_reason():
    pytest.skip(servers.skip_reason(), allow_module_level=True)


def _remote_support():
    """None when onnxview.open takes URLs, else why not (port 1 of loopback refuses at once)."""
    try:
        onnxview.open("http://127.0.0.1:1/probe.onnx")
    except onnxview.Error as e:
        if "without remote support" in str(e):
            return str(e)
    return None


if _remote_support():
    pytest.skip(_remote_support(), allow_module_level=True)

onnx = require_onnx()
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

TESTDATA_MODELS = sorted(os.path.relpath(p, TESTDATA)
                         for p in glob.glob(str(TESTDATA / "**" / "*.onnx"), recursive=True))


def _model(inits, n, name):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [n])
    y = helper.make_tensor_value_info(f"s{len(inits) - 1}", TensorProto.FLOAT, [n])
    nodes = [helper.make_node("Add", [f"s{i - 1}" if i else "x", t.name], [f"s{i}"], name=f"add{i}")
             for i, t in enumerate(inits)]
    g = helper.make_graph(nodes, name, [x], [y], initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="test_remote")
    m.ir_version = 8
    return m


def _generate(root):
    """root/generated/: ext.onnx (its weights in ext.data beside it), nested.onnx (its weights
    in weights/nested.bin), big.onnx (five 4 MiB float initializers inline as raw_data).
    Returns {name: [(tensor name, array)]}."""
    out = root / "generated"
    (out / "weights").mkdir(parents=True)
    rng = np.random.default_rng(3)
    arrays = [(f"w{i}", rng.standard_normal(1000 + 37 * i).astype(np.float32)) for i in range(4)]
    arrays.append(("ints", np.arange(1000, dtype=np.int64) - 500))
    n = 1000
    # An Add chain needs a shape; the graph is not run, only read.
    inits = [numpy_helper.from_array(a, name) for name, a in arrays]
    onnx.save(_model(inits, n, "ext"), str(out / "ext.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="ext.data", size_threshold=0)
    onnx.save(_model(inits, n, "nested"), str(out / "nested.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="weights/nested.bin", size_threshold=0)
    # A model with an external file the server does not have.
    onnx.save(_model(inits[:1], n, "missing"), str(out / "missing.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="missing.data", size_threshold=0)
    os.remove(out / "missing.data")

    big_n = 1 << 20  # floats: 4 MiB each
    big = [(f"b{i}", np.arange(big_n, dtype=np.float32) * np.float32(i + 1) - np.float32(i)) for i in range(5)]
    big_inits = [numpy_helper.from_array(a, name) for name, a in big]
    assert all(len(t.raw_data) == 4 * big_n for t in big_inits)
    onnx.save(_model(big_inits, big_n, "big"), str(out / "big.onnx"))
    return {"ext": arrays, "nested": arrays, "big": big}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(nginx, served root): testdata/ (a symlink) and generated/ under one root."""
    root = tmp_path_factory.mktemp("remote")
    os.symlink(TESTDATA, root / "testdata")
    arrays = _generate(root)
    with servers.Nginx(str(root), token=TOKEN) as web:
        web.arrays = arrays
        yield web, root


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in DROPPED_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,127.0.0.2,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,127.0.0.2,localhost")


def requests_since_clear(web, server="origin"):
    """The log lines of `server` since clear_logs(), once every earlier request is logged: nginx (one
    worker) logs a request when its answer is sent, so a marker request made now is logged after them."""
    marker = f"/__marker_{os.urandom(6).hex()}"
    base = web.url("", via="cdn" if server == "cdn" else "origin").rstrip("/")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        opener.open(base + marker, timeout=5).read()
    except urllib.error.HTTPError:
        pass  # 404, as wanted
    for _ in range(100):
        lines = web.log_lines(server, at_least=1)
        if any(e["uri"] == marker for e in lines):
            return [e for e in lines if e["uri"] != marker]
        web.log_lines(server, at_least=len(lines) + 1, timeout=0.05)
    raise AssertionError(f"the marker request {marker} never reached the {server} log")


def findings(model, **kw):
    return [(f.severity, f.code, f.path, _as_local(f.message), f.offset, f.tensor, f.count)
            for f in model.check(**kw)]


def tensor_or_error(model, name):
    try:
        return model.get_tensor(name)
    except onnxview.Error as e:
        return e


# A missing external file: locally its path does not resolve, remotely the
# server's 404 comes through the resolver's callbacks. The same errno and
# offset; the code names the route.
SAME_FAILURE = {("io_resolve_failed", "callback_failed")}
MISSING_EXTERNAL_MESSAGE = [("the file callbacks failed (No such file or directory) [callback_failed]",
                             "cannot resolve the path (No such file or directory) [io_resolve_failed]"),
                            ("values not checked: the file callbacks failed",
                             "values not checked: cannot resolve the path")]


def _as_local(message):
    for remote_words, local_words in MISSING_EXTERNAL_MESSAGE:
        message = message.replace(remote_words, local_words)
    return message


def assert_same_model(local, remote, what):
    assert remote.keys() == local.keys(), what
    assert (remote.ir_version, remote.producer, remote.opsets, remote.metadata) == \
           (local.ir_version, local.producer, local.opsets, local.metadata), what
    for name in local.keys():
        want, got = tensor_or_error(local, name), tensor_or_error(remote, name)
        if isinstance(want, onnxview.Error) or isinstance(got, onnxview.Error):
            assert isinstance(want, onnxview.Error) and isinstance(got, onnxview.Error), \
                f"{what} {name}: local {want!r:.200}, remote {got!r:.200}"
            assert want.code == got.code or (want.code, got.code) in SAME_FAILURE, f"{what} {name}: {want} / {got}"
            assert (want.errno, want.offset, want.path) == (got.errno, got.offset, got.path), f"{what} {name}"
            continue
        assert type(got) is type(want), f"{what} {name}"
        if isinstance(want, np.ndarray):
            assert got.dtype == want.dtype, f"{what} {name}"
            assert same_values(got, want), f"{what} {name}"
        else:  # a SparseTensor
            assert same_values(got.to_dense(), want.to_dense()), f"{what} {name}"
    assert findings(remote) == findings(local), what
    assert findings(remote, numeric=True) == findings(local, numeric=True), what


@pytest.mark.parametrize("rel", TESTDATA_MODELS)
def test_testdata_model_reads_as_its_file(served, rel):
    web, _ = served
    with onnxview.open(str(TESTDATA / rel)) as local, onnxview.open(web.url("testdata/" + rel)) as remote:
        assert_same_model(local, remote, rel)


@pytest.mark.parametrize("name", ["ext", "nested"])
def test_external_data_resolves_next_to_the_url(served, name):
    web, root = served
    location = {"ext": "ext.data", "nested": "weights/nested.bin"}[name]
    web.clear_logs()
    with onnxview.open(str(root / "generated" / f"{name}.onnx")) as local, \
            onnxview.open(web.url(f"generated/{name}.onnx")) as remote:
        for tensor, array in web.arrays[name]:
            got = remote.get_tensor(tensor)
            assert got.dtype == array.dtype and np.array_equal(got, array), tensor
        assert_same_model(local, remote, name)
    uris = {e["uri"] for e in requests_since_clear(web)}
    assert uris == {f"/generated/{name}.onnx", f"/generated/{location}"}, uris


def test_external_data_through_a_redirect_keeps_to_the_cdn(served):
    """/redirect/ answers 302 to the other host: the model and its weights come from there."""
    web, root = served
    web.clear_logs()
    with onnxview.open(str(root / "generated" / "ext.onnx")) as local, \
            onnxview.open(web.url("generated/ext.onnx", via="redirect")) as remote:
        assert_same_model(local, remote, "ext via redirect")
    assert {e["uri"] for e in requests_since_clear(web, "cdn")} == {"/generated/ext.onnx", "/generated/ext.data"}


def test_missing_external_file_raises_on_its_tensor(served):
    web, root = served
    with onnxview.open(web.url("generated/missing.onnx")) as remote:
        assert remote.keys() == ["w0"]
        with pytest.raises(onnxview.Error) as e:
            remote.get_tensor("w0")
    assert e.value.code == "callback_failed"


def _payload_span(path, array):
    """[start, end) of array's bytes (raw_data) in the file."""
    data = path.read_bytes()
    raw = array.tobytes()
    start = data.find(raw[:4096])
    assert start >= 0 and data[start:start + len(raw)] == raw and data.find(raw[:4096], start + 1) < 0
    return start, start + len(raw)


def _served_spans(lines):
    """The byte spans the log's 206 answers cover, multi-range ones from their Range header."""
    spans = []
    for e in lines:
        assert e["status"] == 206, e
        for part in e["range"].removeprefix("bytes=").split(","):
            first, last = part.split("-")
            spans.append((int(first), int(last) + 1))
    return spans


def test_get_tensor_fetches_its_range_not_the_file(served):
    web, root = served
    path = root / "generated" / "big.onnx"
    size = path.stat().st_size
    assert size > 20 * MiB
    big = dict(web.arrays["big"])
    web.clear_logs()
    with onnxview.open(web.url("generated/big.onnx")) as remote:
        opened = requests_since_clear(web)
        # The metadata: the graph and every tensor's header, never a payload.
        assert opened and sum(e["bytes"] for e in opened) < 1 * MiB, opened
        assert remote.keys() == list(big)

        for name in ("b2", "b4", "b0"):
            start, end = _payload_span(path, big[name])
            web.clear_logs()
            got = remote.get_tensor(name)
            assert got.dtype == np.float32 and np.array_equal(got, big[name]), name
            lines = requests_since_clear(web)
            sent = sum(e["bytes"] for e in lines)
            # Its payload, less what the metadata reads brought already, plus at most a page each side.
            assert 0 < sent <= (end - start) + 256 * 1024, (name, sent, lines)
            for first, last in _served_spans(lines):
                assert first < end and last > start - 256 * 1024 and last <= end + 256 * 1024, \
                    (name, (start, end), (first, last))
            # The file's version was pinned by the first answer.
            assert all(e["if_match"] for e in lines), lines

        web.clear_logs()
        again = remote.get_tensor("b2")  # already fetched: no request
        assert np.array_equal(again, big["b2"])
        assert requests_since_clear(web) == []


def test_404_raises_error_naming_it(served):
    web, _ = served
    with pytest.raises(onnxview.Error) as e:
        onnxview.open(web.url("testdata/no_such_model.onnx"))
    assert "404" in str(e.value)
    assert e.value.code == "remote_failed"


def test_private_location_needs_the_bearer_token(served, monkeypatch):
    web, _ = served
    url = web.url("testdata/small_cnn.onnx", via="private")
    with pytest.raises(onnxview.Error) as e:
        onnxview.open(url)
    assert "401" in str(e.value)

    monkeypatch.setenv("ONNXVIEW_HTTP_BEARER", "wrong")
    with pytest.raises(onnxview.Error) as e:
        onnxview.open(url)
    assert "401" in str(e.value)

    monkeypatch.setenv("ONNXVIEW_HTTP_BEARER", TOKEN)
    web.clear_logs()
    with onnxview.open(str(TESTDATA / "small_cnn.onnx")) as local, onnxview.open(url) as remote:
        # small_cnn.weights beside it, through /private/ with the token too.
        assert_same_model(local, remote, "small_cnn.onnx via /private/")
    lines = requests_since_clear(web)
    assert {e["uri"] for e in lines} == {"/private/testdata/small_cnn.onnx", "/private/testdata/small_cnn.weights"}
    assert all(e["authorization"] == f"Bearer {TOKEN}" and e["status"] == 206 for e in lines), lines


def test_bearer_token_is_not_sent_to_the_redirect_target(served, monkeypatch):
    web, _ = served
    monkeypatch.setenv("ONNXVIEW_HTTP_BEARER", TOKEN)
    web.clear_logs()
    with onnxview.open(str(TESTDATA / "small_cnn.onnx")) as local, \
            onnxview.open(web.url("testdata/small_cnn.onnx", via="private-redirect")) as remote:
        assert_same_model(local, remote, "small_cnn.onnx via /private-redirect/")
    origin, cdn = requests_since_clear(web), requests_since_clear(web, "cdn")
    assert origin and all(e["status"] == 302 and e["authorization"] == f"Bearer {TOKEN}" for e in origin), origin
    assert cdn and all(e["authorization"] == "" for e in cdn), cdn
