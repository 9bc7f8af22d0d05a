#!/usr/bin/python3
"""s3:// URLs against s3rver (an S3-compatible server on Node.js, from npm) on loopback.

  s3_test.py --onnxview BUILD/tools/onnxview [--s3rver-dir DIR] [-v]

s3rver (DIR/node_modules/s3rver; DIR is $ONNXVIEW_S3RVER_DIR, default
/opt/s3rver, where scripts/install-deps.sh installs it) listens on 127.0.0.1,
a free port, its objects in a temp dir; a hook logs every request it answers
(method, path, headers, status, body bytes) as JSON lines. The test creates
a bucket, uploads the models of testdata/ (small_cnn.onnx beside its
small_cnn.weights; sparse.onnx again as testdata/odd/v=1,a@b+c.onnx, a key
whose characters SigV4 encodes) and, with python3-onnx, models made here (one with its
external data in a "subfolder" of keys, one of 16 MiB with four inline
tensors), then runs

  info --json, check --json, hash (when the CLI has it), dump

on each local file and on s3://models/KEY with AWS_ENDPOINT_URL=http://127.0.0.1:PORT,
AWS_ACCESS_KEY_ID=S3RVER, AWS_SECRET_ACCESS_KEY=S3RVER (s3rver's account),
AWS_REGION=us-east-1: exit codes equal, stdouts equal once the path and the
URL are replaced by MODEL.

From the request log:
  * every GET asks one range, "bytes=FIRST-LAST" (S3 answers a list of
    ranges with the whole file, s3rver with a wrong range; neither takes
    suffix ranges as s3rver misreads them);
  * every signed request is a valid AWS Signature V4 for the secret
    (s3rver checks the key id only: the signature is recomputed here),
    with host, x-amz-date and x-amz-content-sha256 signed (real S3 refuses
    a request without x-amz-content-sha256), the credential scope naming the
    region (AWS_REGION, else AWS_DEFAULT_REGION) and s3, and with
    AWS_SESSION_TOKEN an x-amz-security-token header, signed;
  * `info` of the 16 MiB model costs its metadata, not its weights.
And: without keys the requests go unsigned (s3rver serves anonymous reads:
the same output); an unknown key id (s3rver: 403 InvalidAccessKeyId) exits
2 naming 403 and the credentials hint; a missing key or bucket exits 2
naming 404; s3://bucket without a key exits 2.

What s3rver does with Range, If-Match and lists of ranges is printed first
(not checked: it is the server's behaviour, not onnxview's).

Exits 77 (skipped) when node or s3rver is missing or the CLI was built
without remote support. The last line is `N passed, M failed`.
"""
import argparse
import glob
import hashlib
import hmac
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "oracle"))
from common import ROOT, SKIP, Checks  # noqa: E402

TIMEOUT = 60          # seconds for any run of the CLI
START_TIMEOUT = 20    # seconds for s3rver to listen
STOP_TIMEOUT = 5
MiB = 1024 * 1024
BUCKET = "models"
KEY_ID = SECRET = "S3RVER"   # s3rver's built-in account
NO_REMOTE = "without remote support"
COMMANDS = [["info", "--json"], ["check", "--json"], ["hash"], ["dump"]]
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
DROPPED_ENV = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
               "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "ONNXVIEW_HTTP_BEARER", "CURL_CA_BUNDLE",
               "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION",
               "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_PROFILE")

# Starts s3rver and logs each request once answered. Run as `node -e`, its
# settings in the environment; prints {"port": N} once listening.
LAUNCHER = r"""
const S3rver = require(require.resolve('s3rver', {paths: [process.env.S3RVER_DIR]}));
const fs = require('fs');
const log = fs.openSync(process.env.S3_LOG, 'a');
const server = new S3rver({address: '127.0.0.1', port: 0, silent: true, directory: process.env.S3_DATA});
server.run().then(addr => {
  server.httpServer.prependListener('request', (req, res) => {
    let bytes = 0;
    const count = chunk => { if (chunk && typeof chunk !== 'function') bytes += Buffer.byteLength(chunk); };
    const write = res.write, end = res.end;
    res.write = function (chunk, ...rest) { count(chunk); return write.call(this, chunk, ...rest); };
    res.end = function (chunk, ...rest) { count(chunk); return end.call(this, chunk, ...rest); };
    res.on('finish', () => fs.writeSync(log, JSON.stringify({
      method: req.method, path: req.url, headers: req.headers, status: res.statusCode, bytes,
      content_range: String(res.getHeader('content-range') || ''), etag: String(res.getHeader('etag') || ''),
    }) + '\n'));
  });
  process.stdout.write(JSON.stringify({port: addr.port}) + '\n');
}, err => { console.error(String(err && err.stack || err)); process.exit(1); });
process.on('SIGTERM', () => server.close().then(() => process.exit(0), () => process.exit(0)));
"""


def _exit_on_sigterm(signum, frame):
    raise SystemExit(128 + signum)


def _die_with_parent():
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG


class S3rver:
    """s3rver on 127.0.0.1 at a free port, its objects and log in a temp dir removed on exit."""

    def __init__(self, package_dir):
        self.package_dir = package_dir
        self.tmp = tempfile.mkdtemp(prefix="onnxview-s3rver-")
        self.log_path = os.path.join(self.tmp, "requests.log")
        self.proc = None
        self.port = None
        self.stderr = None

    def __enter__(self):
        os.makedirs(os.path.join(self.tmp, "data"))
        open(self.log_path, "w").close()
        env = dict(os.environ, S3RVER_DIR=self.package_dir, S3_LOG=self.log_path,
                   S3_DATA=os.path.join(self.tmp, "data"))
        self.stderr = open(os.path.join(self.tmp, "stderr.log"), "wb")
        try:
            self.proc = subprocess.Popen(["node", "-e", LAUNCHER], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=self.stderr, env=env, preexec_fn=_die_with_parent)
            line = []
            reader = threading.Thread(target=lambda: line.append(self.proc.stdout.readline()), daemon=True)
            reader.start()
            reader.join(START_TIMEOUT)
            if not line or not line[0]:
                raise RuntimeError(f"s3rver did not start within {START_TIMEOUT} s: {self._stderr()}")
            self.port = json.loads(line[0])["port"]
            return self
        except BaseException:
            self.__exit__()
            raise

    def __exit__(self, *exc):
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            self.proc.stdout.close()
            self.proc = None
        if self.stderr is not None:
            self.stderr.close()
            self.stderr = None
        shutil.rmtree(self.tmp, ignore_errors=True)
        return False

    def _stderr(self):
        with open(os.path.join(self.tmp, "stderr.log"), errors="replace") as f:
            return f.read().strip()[-2000:]

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    def request(self, method, path, body=None, headers=None):
        """(status, headers, body) of a plain (unsigned) request."""
        req = urllib.request.Request(self.endpoint + path, data=body, method=method, headers=headers or {})
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(req, timeout=10) as r:
                return r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read()

    def put(self, key, path):
        with open(path, "rb") as f:
            status, _, body = self.request("PUT", f"/{BUCKET}/{urllib.parse.quote(key)}", f.read(),
                                           {"Content-Type": "application/octet-stream"})
        if status != 200:
            raise RuntimeError(f"PUT {key}: HTTP {status} {body[:300]!r}")

    def log(self):
        """Every request answered since clear_log(), oldest first. A request is logged once its answer
        is handed to the socket, which a client may read first: a marker request made now is logged
        after every earlier one, and is waited for."""
        marker = "/__marker_" + os.urandom(6).hex()
        self.request("GET", marker)
        deadline = time.monotonic() + 5
        while True:
            with open(self.log_path) as f:
                entries = [json.loads(line) for line in f if line.endswith("\n")]
            if any(e["path"] == marker for e in entries):
                return [e for e in entries if not e["path"].startswith("/__marker_")]
            if time.monotonic() > deadline:
                raise RuntimeError(f"the marker request {marker} never reached s3rver's log")
            time.sleep(0.01)

    def clear_log(self):
        self.log()  # every request made so far logged, so none is logged after the truncation
        with open(self.log_path, "w"):
            pass


# --- AWS Signature Version 4, recomputed ---------------------------------------

def _hmac(key, text):
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def _uri_encode(s, slash_too):
    return urllib.parse.quote(s, safe="-_.~" + ("" if slash_too else "/"))


def sigv4_problem(entry, secret, region, session_token):
    """None when the logged request carries a valid S3 SigV4 Authorization header for `secret`, else why not."""
    h = entry["headers"]
    auth = h.get("authorization", "")
    m = re.fullmatch(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, "
                     r"SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})", auth)
    if not m:
        return f"Authorization is no SigV4 header: {auth!r}"
    key_id, date, scope_region, service, signed, signature = m.groups()
    signed_list = signed.split(";")
    if scope_region != region or service != "s3":
        return f"credential scope {date}/{scope_region}/{service}, not {region}/s3"
    for required in ("host", "x-amz-date", "x-amz-content-sha256"):
        if required not in signed_list:
            return f"{required} is not signed (SignedHeaders={signed})"
    if session_token is not None:
        if h.get("x-amz-security-token") != session_token:
            return f"x-amz-security-token is {h.get('x-amz-security-token')!r}, not the session token"
        if "x-amz-security-token" not in signed_list:
            return "x-amz-security-token is not signed"
    unsigned = [k for k in h if k.startswith("x-amz-") and k not in signed_list]
    if unsigned:
        return f"x-amz-* headers not signed: {unsigned}"
    if signed_list != sorted(signed_list):
        return f"SignedHeaders not sorted: {signed}"
    amz_date = h.get("x-amz-date", "")
    if not amz_date.startswith(date):
        return f"x-amz-date {amz_date!r} is not of the scope's date {date}"
    payload = h.get("x-amz-content-sha256", "")
    if payload not in (EMPTY_SHA256, "UNSIGNED-PAYLOAD"):
        return f"x-amz-content-sha256 of a GET is {payload!r}"
    parsed = urllib.parse.urlsplit(entry["path"])
    uri = "/".join(_uri_encode(urllib.parse.unquote(seg), True) for seg in parsed.path.split("/"))
    query = "&".join(sorted(f"{_uri_encode(k, True)}={_uri_encode(v, True)}"
                            for k, v in urllib.parse.parse_qsl(parsed.query, keep_blank_values=True)))
    headers = "".join(f"{name}:{' '.join(h.get(name, '').split())}\n" for name in signed_list)
    canonical = "\n".join([entry["method"], uri, query, headers, signed, payload])
    scope = f"{date}/{scope_region}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    k = _hmac(("AWS4" + secret).encode(), date)
    for part in (scope_region, "s3", "aws4_request"):
        k = _hmac(k, part)
    want = hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest()
    if want != signature:
        return f"signature {signature[:16]}... is not the one recomputed for the canonical request {canonical!r}"
    return None


# --- the models ------------------------------------------------------------------

def generate(out_dir):
    """Models made with python3-onnx under out_dir: [(key, path)] ([] without it). ext.onnx has its
    weights under weights/ (another "folder" of keys); big.onnx is four 4 MiB float tensors inline."""
    try:
        import numpy as np
        import onnx
        from onnx import TensorProto, helper, numpy_helper
    except ImportError as e:
        print(f"generated models: not made ({e})")
        return []
    os.makedirs(os.path.join(out_dir, "weights"))

    def model(arrays, n, name):
        inits = [numpy_helper.from_array(a, f"w{i}") for i, a in enumerate(arrays)]
        nodes = [helper.make_node("Add", [f"s{i - 1}" if i else "x", f"w{i}"], [f"s{i}"], name=f"add{i}")
                 for i in range(len(arrays))]
        g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n])],
                              [helper.make_tensor_value_info(f"s{len(arrays) - 1}", TensorProto.FLOAT, [n])],
                              initializer=inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="s3_test")
        m.ir_version = 8
        return m

    rng = np.random.default_rng(5)
    small = [rng.standard_normal(3000).astype(np.float32) for _ in range(3)]
    onnx.save(model(small, 3000, "ext"), os.path.join(out_dir, "ext.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="weights/ext.bin", size_threshold=0)
    n = MiB  # floats: 4 MiB a tensor
    big = [np.arange(n, dtype=np.float32) * np.float32(i + 1) for i in range(4)]
    onnx.save(model(big, n, "big"), os.path.join(out_dir, "big.onnx"))
    return [("generated/ext.onnx", os.path.join(out_dir, "ext.onnx")),
            ("generated/weights/ext.bin", os.path.join(out_dir, "weights", "ext.bin")),
            ("generated/big.onnx", os.path.join(out_dir, "big.onnx"))]


# --- running the CLI -------------------------------------------------------------

def run_cli(exe, args, env_extra):
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    env.update(env_extra)
    try:
        p = subprocess.run([exe, *args], capture_output=True, timeout=TIMEOUT, env=env, stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, b"", f"timed out after {TIMEOUT} s"


# A missing external file: locally its path does not resolve, remotely the
# server's 404 comes through the resolver's callbacks (remote_oracle.py).
MISSING_EXTERNAL = [
    (b"the file callbacks failed (No such file or directory) [callback_failed]",
     b"cannot resolve the path (No such file or directory) [io_resolve_failed]"),
    (b'"problem": "callback_failed"', b'"problem": "io_resolve_failed"'),
]


def first_difference(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else None
        y = lb[i] if i < len(lb) else None
        if x != y:
            return f"line {i + 1}: local {x!r:.200} / s3 {y!r:.200}"
    return "identical"


def compare(checks, exe, cmd, local, url, env, what):
    lcode, lout, lerr = run_cli(exe, [cmd[0], local, *cmd[1:]], {})
    rcode, rout, rerr = run_cli(exe, [cmd[0], url, *cmd[1:]], env)
    lout = lout.replace(local.encode(), b"MODEL")
    rout = rout.replace(url.encode(), b"MODEL")
    for remote_words, local_words in MISSING_EXTERNAL:
        rout = rout.replace(remote_words, local_words)
    what = f"onnxview {' '.join(cmd)} {url} ({what})"
    if lcode is None or rcode is None or lcode != rcode:
        return checks.check(False, f"{what}: exit {lcode} local, {rcode} s3; s3 stderr: "
                            + (rerr.strip().splitlines() or ["(empty)"])[-1][:300])
    return checks.check(lout == rout, f"{what}: stdout differs at {first_difference(lout, rout)}")


def probe_server(s3, key, size):
    """What s3rver answers to what onnxview never sends: printed for whoever reads the log."""
    asks = [
        ("bytes=0-99", None, ""),
        ("bytes=0-99,200-299", None, "S3 takes one range a request"),
        ("bytes=0-0", None, "the first byte asked"),
        ("bytes=-100", None, "a suffix: the last 100 bytes asked"),
        (f"bytes={size - 10}-{size + 100}", None, "past the end: clipped"),
        (f"bytes={size}-", None, "from the end: 416"),
        ("bytes=0-99", {"If-Match": '"nope"'}, "S3: 412"),
        ("bytes=0-99", {"If-None-Match": "*"}, ""),
    ]
    print(f"s3rver, GET of a {size}-byte object with:")
    for rng, extra, note in asks:
        headers = dict({"Range": rng}, **(extra or {}))
        status, answer, body = s3.request("GET", f"/{BUCKET}/{key}", headers=headers)
        asked = "Range " + rng + "".join(f", {k}: {v}" for k, v in (extra or {}).items())
        print(f"  {asked:<36} -> {status}, Content-Range {answer.get('Content-Range')!r}, {len(body)} bytes"
              + (f"  ({note})" if note else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--s3rver-dir", default=os.environ.get("ONNXVIEW_S3RVER_DIR", "/opt/s3rver"))
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    exe = os.path.abspath(args.onnxview)
    package_dir = os.path.abspath(args.s3rver_dir)

    if shutil.which("node") is None:
        print("SKIP: node is not installed")
        return SKIP
    if not os.path.exists(os.path.join(package_dir, "node_modules", "s3rver", "package.json")):
        print(f"SKIP: s3rver is not installed in {package_dir} (scripts/install-deps.sh; --s3rver-dir, "
              "ONNXVIEW_S3RVER_DIR)")
        return SKIP
    code, out, err = run_cli(exe, ["info", "s3://probe/probe.onnx"], {"AWS_ENDPOINT_URL": "http://127.0.0.1:1"})
    if NO_REMOTE in err or NO_REMOTE in out.decode("utf-8", "replace"):
        print(f"SKIP: {exe} is built {NO_REMOTE}")
        return SKIP
    commands = [c for c in COMMANDS
                if c != ["hash"] or run_cli(exe, ["hash", "--help"], {})[0] == 0]

    old_sigterm = None
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        old_sigterm = signal.signal(signal.SIGTERM, _exit_on_sigterm)
    work = tempfile.mkdtemp(prefix="onnxview-s3-")
    try:
        todo = [(os.path.join("testdata", os.path.relpath(p, os.path.join(ROOT, "testdata"))), p)
                for p in sorted(glob.glob(os.path.join(ROOT, "testdata", "**", "*.onnx"), recursive=True))]
        uploads = todo + [("testdata/small_cnn.weights", os.path.join(ROOT, "testdata", "small_cnn.weights"))]
        # A key with characters that SigV4 percent-encodes in its canonical URI (S3 encodes the
        # key's bytes but A-Z a-z 0-9 - _ . ~ and /): a client sending them raw must sign them encoded.
        odd = ("testdata/odd/v=1,a@b+c.onnx", os.path.join(ROOT, "testdata", "sparse.onnx"))
        uploads.append(odd)
        todo.append(odd)
        generated = generate(os.path.join(work, "generated"))
        uploads += generated
        todo += [(k, p) for k, p in generated if k.endswith(".onnx")]
        with S3rver(package_dir) as s3:
            return run_all(exe, s3, commands, todo, uploads, args.verbose)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if old_sigterm is not None:
            signal.signal(signal.SIGTERM, old_sigterm)


def run_all(exe, s3, commands, todo, uploads, verbose):
    checks = Checks()
    status, _, body = s3.request("PUT", f"/{BUCKET}")
    if status != 200:
        raise RuntimeError(f"creating the bucket: HTTP {status} {body[:300]!r}")
    for key, path in uploads:
        s3.put(key, path)
    probe_key, probe_path = uploads[0]
    probe_server(s3, probe_key, os.path.getsize(probe_path))

    keyed = {"AWS_ENDPOINT_URL": s3.endpoint, "AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET,
             "AWS_REGION": "us-east-1"}

    def requests_ok(what, region="us-east-1", session_token=None, signed=True):
        """The log since the last clear: one plain range per GET, each signed (or not) as it should be."""
        log = s3.log()
        s3.clear_log()
        bad = []
        etags = {}
        for e in log:
            rng = e["headers"].get("range", "")
            if e["method"] != "GET":
                bad.append(f"{e['method']} {e['path']}: not a GET")
            elif not re.fullmatch(r"bytes=\d+-\d+", rng) or rng == "bytes=0-0":
                bad.append(f"GET {e['path']}: Range {rng!r} is not one FIRST-LAST range")
            if e["etag"]:
                etags.setdefault(e["path"], e["etag"])
            if_match = e["headers"].get("if-match")
            if if_match is not None and if_match != etags.get(e["path"]):
                bad.append(f"GET {e['path']}: If-Match {if_match!r}, the object's ETag {etags.get(e['path'])!r}")
            if signed:
                why = sigv4_problem(e, SECRET, region, session_token)
                if why:
                    bad.append(f"GET {e['path']}: {why}")
            elif "authorization" in e["headers"]:
                bad.append(f"GET {e['path']}: signed without keys ({e['headers']['authorization'][:80]})")
        if verbose:
            for e in log:
                print(f"    {e['status']} {e['path']} {e['headers'].get('range', '')} {e['bytes']} bytes"
                      f" if-match={e['headers'].get('if-match', '')}")
        bad = list(dict.fromkeys(bad))  # each problem once
        checks.check(not bad and bool(log), f"{what}: requests: " + ("; ".join(bad[:2]) or "none logged")
                     + (f" (and {len(bad) - 2} more)" if len(bad) > 2 else ""))
        return log

    # Every model, every command, signed.
    s3.clear_log()
    for key, local in todo:
        url = f"s3://{BUCKET}/{key}"
        for cmd in commands:
            compare(checks, exe, cmd, local, url, keyed, "signed")
        requests_ok(f"{key}, signed")

    # The 16 MiB model: info fetches its metadata, not its weights.
    big = [(k, p) for k, p in todo if k == "generated/big.onnx"]
    if big:
        key, local = big[0]
        code, _, err = run_cli(exe, ["info", f"s3://{BUCKET}/{key}"], keyed)
        log = requests_ok(f"info {key}")
        sent = sum(e["bytes"] for e in log)
        checks.check(code == 0 and sent < 2 * MiB,
                     f"info s3://{BUCKET}/{key}: exit {code}, {sent} bytes sent of {os.path.getsize(local)} "
                     f"(< 2 MiB expected) {err.strip()[:200]}")

    # Region from AWS_DEFAULT_REGION; a session token, sent and signed.
    small_key, small_local = "testdata/small_cnn.onnx", os.path.join(ROOT, "testdata", "small_cnn.onnx")
    env = dict(keyed, AWS_DEFAULT_REGION="eu-west-3")
    del env["AWS_REGION"]
    compare(checks, exe, ["info", "--json"], small_local, f"s3://{BUCKET}/{small_key}", env, "AWS_DEFAULT_REGION")
    requests_ok("AWS_DEFAULT_REGION=eu-west-3", region="eu-west-3")
    env = dict(keyed, AWS_SESSION_TOKEN="session/token+value==")
    compare(checks, exe, ["info", "--json"], small_local, f"s3://{BUCKET}/{small_key}", env, "session token")
    requests_ok("AWS_SESSION_TOKEN", session_token="session/token+value==")

    # Anonymous: s3rver serves unsigned reads.
    anonymous = {"AWS_ENDPOINT_URL": s3.endpoint}
    for cmd in (["info", "--json"], ["check", "--json"]):
        compare(checks, exe, cmd, small_local, f"s3://{BUCKET}/{small_key}", anonymous, "anonymous")
    requests_ok("anonymous", signed=False)

    # Refusals.
    def fails(env, url, phrases, what):
        code, out, err = run_cli(exe, ["info", url], env)
        s3.clear_log()
        ok = code == 2 and all(any(p in err for p in alternatives) for alternatives in phrases)
        checks.check(ok, f"{what}: exit {code}, stderr {err.strip()[-300:]!r}; expected exit 2 and {phrases}")
        if verbose:
            print(f"  {what}: {err.strip()}")

    fails(dict(keyed, AWS_ACCESS_KEY_ID="NOSUCHKEY"), f"s3://{BUCKET}/{small_key}",
          [["403"], ["AWS_ACCESS_KEY_ID", "credentials"]], "unknown key id (403 InvalidAccessKeyId)")
    fails(keyed, f"s3://{BUCKET}/testdata/no_such_model.onnx", [["404"]], "missing key")
    fails(keyed, f"s3://no-such-bucket/{small_key}", [["404"]], "missing bucket")
    fails(keyed, f"s3://{BUCKET}", [["bucket/key"]], "s3:// URL without a key")
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
