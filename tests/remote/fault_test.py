#!/usr/bin/python3
"""`onnxview info URL` against a server that misbehaves (tests/remote/fault_server.py):
the exit code, a phrase of stderr, the time taken and the bytes the server sent,
for each fault.

  fault_test.py --onnxview BUILD/tools/onnxview [--only SUBSTRING]... [--keep] [-v]

Models: the smallest .onnx of testdata/ ("small"), and two made here with
python3-onnx and numpy ("big": four initializers of 8 MiB each, inline as
raw_data, a 32 MiB file of which `info` needs only the metadata; "dense":
see below). Each case
runs the CLI (a 60 s limit) against a fresh server:

  correct             exit 0, stdout as `info LOCALPATH` but for the path;
                      big: fewer than 8 MiB sent
  ignore-range        big: exit 2, "ignored the byte range", < 8 MiB sent;
                      with --allow-full-download: exit 0, the same output, "full download"
  etag-change(-no-412) big: exit 2, "changed while"
  truncate            exit 2, "truncated" or "ended after"
  wrong-range         big: exit 2, "Content-Range"
  long-body(-chunked) big: exit 0 and the same output, or exit 2 and "more than"; < 8 MiB sent
  flaky               exit 0 (retried), the same output
  always-500          exit 2, "503", in under 30 s
  slow, endless       big, `--timeout 3`: exit 2 in under 20 s, "timeout"/"timed out"
                      (endless: or "more than"); endless: < 8 MiB sent
  redirect            ONNXVIEW_HTTP_BEARER=secret: exit 0, the same output; the
                      127.0.0.1 listener saw `Authorization: Bearer secret`, the
                      127.0.0.2 one (another host) no Authorization at all
  status/401, /403    exit 2, the code, and a hint naming HF_TOKEN or credentials
  status/404          exit 2, "404"; with user:pass@ in the URL, "pass" never printed
  --stats             big: exit 0, the same output; the line's "N bytes" and "R requests":
                      R is the number of requests the server saw, N < 8 MiB; where it says
                      "B bytes received", B is the number of body bytes the server sent

  dense               a graph of 80,000 nodes (about 8 MB of metadata, read as a
                      stream) before two 8 MiB payloads: correct, ignore-range,
                      etag-change(-no-412), truncate, wrong-range, long-body, flaky,
                      slow, endless as above, within the metadata and 8 MiB sent (flaky:
                      16 MiB more, the window a failed stream gives way to); --stats:
                      the server's requests, and its bytes less fewer than 8 MiB in flight
  truncate-once       dense and big, each answer cut inside a page the first time:
                      exit 0 and the local output (the rest is asked again)

Exits 77 (skipped) when the CLI says it was built "without remote support".
The environment's proxies, HF_TOKEN and ONNXVIEW_HTTP_BEARER are not passed to
the CLI. The last line is `N passed, M failed`.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "oracle"))
from common import ROOT, SKIP, Checks  # noqa: E402
from fault_server import FaultServer  # noqa: E402

MiB = 1024 * 1024
LIMIT = 60          # seconds for any run of the CLI
BYTES_BOUND = 8 * MiB
DROPPED_ENV = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
               "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "ONNXVIEW_HTTP_BEARER", "CURL_CA_BUNDLE")


class Run:
    def __init__(self, rc, out, err, elapsed):
        self.rc, self.out, self.err, self.elapsed = rc, out, err, elapsed

    def __str__(self):
        err = " | ".join(self.err.strip().splitlines()[-3:])
        return f"exit {self.rc} in {self.elapsed:.1f} s, stderr: {err[:400]!r}"


def run_cli(exe, args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,127.0.0.2,localhost"
    env.update(env_extra or {})
    start = time.monotonic()
    try:
        p = subprocess.run([exe, *args], capture_output=True, text=True, errors="replace", timeout=LIMIT, env=env,
                           stdin=subprocess.DEVNULL)
        return Run(p.returncode, p.stdout, p.stderr, time.monotonic() - start)
    except subprocess.TimeoutExpired as e:
        def text(b):
            return (b.decode(errors="replace") if isinstance(b, bytes) else b) or ""
        return Run(None, text(e.stdout), text(e.stderr) + f"\n(killed after {LIMIT} s)", time.monotonic() - start)


def make_big(onnx, path):
    """Four FLOAT initializers of 8 MiB each as raw_data: y = x + w0 + w1 + w2 + w3."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    n = 2 * MiB  # floats: 8 MiB
    inits, nodes, prev = [], [], "x"
    for i in range(4):
        w = (np.arange(n, dtype=np.float32) * np.float32(0.001 * (i + 1))).astype(np.float32)
        t = numpy_helper.from_array(w, f"w{i}")
        assert len(t.raw_data) == 4 * n, "numpy_helper.from_array did not give raw_data"
        inits.append(t)
        out = "y" if i == 3 else f"s{i}"
        nodes.append(helper.make_node("Add", [prev, f"w{i}"], [out], name=f"add{i}"))
        prev = out
    g = helper.make_graph(nodes, "big", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n])], initializer=inits)
    m = helper.make_model(g, producer_name="onnxview-fault_test", opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, path)
    return path


def make_dense(onnx, path):
    """A graph of 80,000 nodes (about 6 MB of metadata, which the reader streams,
    src/remote/remote_file.cpp) followed by two FLOAT initializers of 8 MiB each.
    Returns (path, bytes of metadata)."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    n = 2 * MiB
    nodes, prev = [], "x"
    for i in range(80000):
        out = f"/encoder/block.{i}/act_output_0"
        nodes.append(helper.make_node("Relu", [prev], [out], name=f"/encoder/block.{i}/Relu"))
        prev = out
    inits = [numpy_helper.from_array(np.full(n, i + 1, dtype=np.float32), f"w{i}") for i in range(2)]
    g = helper.make_graph(nodes, "dense", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n])],
                          [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [n])], initializer=inits)
    m = helper.make_model(g, producer_name="onnxview-fault_test", opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, path)
    return path, os.path.getsize(path) - 2 * 4 * n


def smallest_testdata():
    models = sorted(glob.glob(os.path.join(ROOT, "testdata", "*.onnx")), key=lambda p: (os.path.getsize(p), p))
    return models[0] if models else None


def normalized(text, *paths):
    for p in paths:
        text = text.replace(p, "<FILE>")
    return text


def first_diff(a, b):
    al, bl = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(al, bl)):
        if x != y:
            return f"line {i + 1}: {x!r} != {y!r}"
    return f"{len(al)} lines != {len(bl)} lines" if len(al) != len(bl) else "equal"


def has(text, *phrases):
    """Whether text says one of the phrases (case-insensitive) outside URLs and --options: the
    URL's path holds the fault's name and status, and "unknown option '--timeout'" says no timeout."""
    low = re.sub(r"--[a-z][a-z0-9-]*", "<OPTION>", re.sub(r"[a-z][a-z0-9+.-]*://[^\s'\"<>]*", "<URL>", text)).lower()
    return any(p.lower() in low for p in phrases)


class Suite:
    def __init__(self, exe, models, verbose, only):
        self.exe = exe
        self.models = models           # name -> local path
        self.files = {os.path.basename(p): p for p in models.values()}
        self.local = {}
        self.c = Checks()
        self.verbose = verbose
        self.only = only

    def local_info(self, name):
        if name not in self.local:
            path = self.models[name]
            r = run_cli(self.exe, ["info", path])
            if r.rc != 0:
                raise RuntimeError(f"onnxview info {path}: {r}")
            self.local[name] = normalized(r.out, path)
        return self.local[name]

    def case(self, title, model, fault=None, global_opts=(), env=None, userinfo=None, check=None):
        """Runs `onnxview GLOBAL_OPTS info URL` against a fresh server; check(run, server, url, same) -> [(ok, what)]."""
        if self.only and not any(o in title for o in self.only):
            return
        if model not in self.models:
            print(f"skip {title}: no {model} model")
            return
        rel = os.path.basename(self.models[model])
        with FaultServer(self.files) as s:
            url = s.url(rel, fault, userinfo=userinfo)
            r = run_cli(self.exe, [*global_opts, "info", url], env)
            s.wait_idle(5)
            recs = s.records()
            sent = s.bytes_sent()
            same_out = normalized(r.out, url, s.url(rel), s.url(rel, via="cdn"))

            def same():
                return r.rc == 0 and same_out == self.local_info(model)
            same.diff = lambda: first_diff(same_out, self.local_info(model))

            results = check(r, s, url, same) if check else []
        left = s.close()
        results.append((left == 0, f"the server closed with {left} handlers left"))
        failed = [w for ok, w in results if not ok]
        for ok, what in results:
            self.c.check(ok, f"{title}: {what}")
        line = (f"{'ok  ' if not failed else 'FAIL'} {title}: exit {r.rc}, {r.elapsed:.1f} s, "
                f"{len(recs)} requests, {sent} bytes sent")
        print(line)
        if failed or self.verbose:
            for w in failed:
                print(f"       not: {w}")
            for ln in r.err.strip().splitlines()[-4:]:
                print(f"       stderr: {ln[:300]}")
            if self.verbose:
                for x in recs[:20]:
                    print(f"       {x['listener']} {x['method']} {x['path']} {x['range']} -> {x['status']}, "
                          f"{x['bytes']} bytes, auth {x['authorization']!r}")

    def run_all(self):
        run_all_cases(self)
        return self.c.finish()


def expect_same(r, same):
    """Exit 0 and stdout as `info LOCALPATH`'s but for the path."""
    return [(r.rc == 0, "exit 0"), (same(), f"stdout as local ({same.diff()})" if r.rc == 0 else "stdout as local")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--only", action="append", default=[], help="only the cases whose title contains this")
    ap.add_argument("--keep", action="store_true", help="keep the generated model's directory")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    exe = os.path.abspath(args.onnxview)
    if not os.access(exe, os.X_OK):
        print(f"onnxview not found: {exe}")
        return 2
    small = smallest_testdata()
    if small is None:
        print("SKIP: no .onnx in testdata/")
        return SKIP

    work = tempfile.mkdtemp(prefix="onnxview-fault-test-")
    try:
        models = {"small": small}
        try:
            import onnx
            big = make_big(onnx, os.path.join(work, "big.onnx"))
            models["big"] = big
            dense, metadata = make_dense(onnx, os.path.join(work, "dense.onnx"))
            models["dense"] = dense
            print(f"models: small {small} ({os.path.getsize(small)} bytes), big {big} ({os.path.getsize(big)} bytes), "
                  f"dense {dense} ({os.path.getsize(dense)} bytes, {metadata} of metadata)")
        except ImportError as e:
            print(f"models: small {small}; no big model, python3-onnx or numpy is missing ({e}): its cases skipped")

        # Remote reading at all?
        with FaultServer({os.path.basename(small): small}) as s:
            probe = run_cli(exe, ["info", s.url(os.path.basename(small))])
        if "without remote support" in probe.err:
            print(f"SKIP: {probe.err.strip()}")
            return SKIP
        suite = Suite(exe, models, args.verbose, args.only)
        suite.dense_bound = metadata + BYTES_BOUND if "dense" in models else 0
        return suite.run_all()
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def run_all_cases(t):
    def same_as_local(r, s, url, same):
        return expect_same(r, same)

    def bounded(s):
        return (s.bytes_sent() < BYTES_BOUND, f"fewer than {BYTES_BOUND} bytes sent ({s.bytes_sent()})")

    def fails_with(*phrases, bound=False, seconds=None):
        def check(r, s, url, same):
            out = [(r.rc == 2, "exit 2"), (has(r.err, *phrases), "stderr says " + " or ".join(map(repr, phrases)))]
            if bound:
                out.append(bounded(s))
            if seconds is not None:
                out.append((r.elapsed < seconds, f"finished within {seconds} s"))
            return out
        return check

    # A correct server.
    t.case("correct small", "small", check=same_as_local)
    t.case("correct big", "big", check=lambda r, s, url, same: expect_same(r, same) + [bounded(s)])

    # The server ignores Range.
    t.case("ignore-range big", "big", "ignore-range", check=fails_with("ignored the byte range", bound=True))
    t.case("ignore-range big --allow-full-download", "big", "ignore-range", ["--allow-full-download"],
           check=lambda r, s, url, same: expect_same(r, same) +
           [(has(r.err, "full download"), "stderr says 'full download'")])

    # The file changes while it is read.
    t.case("etag-change big", "big", "etag-change", check=fails_with("changed while"))
    t.case("etag-change-no-412 big", "big", "etag-change-no-412", check=fails_with("changed while"))

    # Broken bodies and headers.
    t.case("truncate small", "small", "truncate", check=fails_with("truncated", "ended after"))
    t.case("truncate big", "big", "truncate", check=fails_with("truncated", "ended after"))
    t.case("wrong-range big", "big", "wrong-range", check=fails_with("Content-Range"))

    def long_body(r, s, url, same):
        ok = (r.rc == 0 and same()) or (r.rc == 2 and has(r.err, "more than"))
        return [(ok, "exit 0 and the local output, or exit 2 and 'more than'"), bounded(s)]
    t.case("long-body big", "big", "long-body", check=long_body)
    t.case("long-body-chunked big", "big", "long-body-chunked", check=long_body)

    # Errors worth a retry, and not.
    t.case("flaky small", "small", "flaky", check=same_as_local)
    t.case("flaky big", "big", "flaky", check=same_as_local)
    t.case("always-500 small", "small", "always-500", check=fails_with("503", seconds=30))

    # Timeouts.
    t.case("slow big --timeout 3", "big", "slow", ["--timeout", "3"],
           check=fails_with("timeout", "timed out", seconds=20))
    t.case("endless big --timeout 3", "big", "endless", ["--timeout", "3"],
           check=fails_with("timeout", "timed out", "more than", bound=True, seconds=20))

    # A redirect to another host: the credentials stay behind.
    def redirect():
        def check(r, s, url, same):
            origin, cdn = s.seen_authorization("origin"), s.seen_authorization("cdn")
            return expect_same(r, same) + [
                (len(cdn) > 0, f"the cdn listener was asked ({len(cdn)} requests)"),
                (all(a is None for a in cdn), f"no Authorization sent to 127.0.0.2 ({cdn})"),
                (len(origin) > 0 and all(a == "Bearer secret" for a in origin),
                 f"'Authorization: Bearer secret' sent to 127.0.0.1 ({origin})")]
        return check
    env = {"ONNXVIEW_HTTP_BEARER": "secret"}
    t.case("redirect small", "small", "redirect", env=env, check=redirect())
    t.case("redirect big", "big", "redirect", env=env, check=redirect())

    # Statuses.
    for code in (401, 403):
        t.case(f"status/{code} small", "small", f"status/{code}",
               check=lambda r, s, url, same, code=code: fails_with(str(code))(r, s, url, same) +
               [(has(r.err, "HF_TOKEN", "credentials"), "a hint naming HF_TOKEN or credentials")])
    t.case("status/404 small", "small", "status/404", check=fails_with("404"))

    def no_password(r, s, url, same):
        text = r.err + r.out
        return [(r.rc == 2, "exit 2"), (has(r.err, "404"), "stderr says '404'"),
                (re.search(r"\bpass\b", text) is None, "the password 'pass' is never printed")]
    t.case("status/404 user:pass@", "small", "status/404", userinfo="user:pass", check=no_password)

    # --stats: what the CLI counts is what the server saw.
    def stats(r, s, url, same):
        line = next((ln for ln in r.err.splitlines() if re.search(r"\d\s*requests?\b", ln)), None)
        n = m = got = None
        if line:
            m_bytes = re.search(r"(\d[\d,]*)\s*bytes", line)
            m_reqs = re.search(r"(\d[\d,]*)\s*requests?\b", line)
            m_got = re.search(r"(\d[\d,]*)\s*bytes received", line)
            n = int(m_bytes.group(1).replace(",", "")) if m_bytes else None
            m = int(m_reqs.group(1).replace(",", "")) if m_reqs else None
            got = int(m_got.group(1).replace(",", "")) if m_got else None
        out = expect_same(r, same) + [
            (line is not None and n is not None, "a stats line with 'N bytes' and 'R requests'"),
            (m == s.request_count(), f"its request count {m} is the server's {s.request_count()}"),
            (n is not None and n < BYTES_BOUND, f"its bytes {n} fewer than {BYTES_BOUND}")]
        if got is not None:  # "B bytes received", when the line says it: the body bytes the server sent
            out.append((got == s.bytes_sent(), f"its {got} bytes received are the {s.bytes_sent()} the server sent"))
        return out
    t.case("--stats big", "big", global_opts=["--stats"], check=stats)

    # A dense graph before the weights: its metadata comes as a stream that
    # the walk reads while it arrives, paused a little past each need, and
    # left at the first payload. Each fault must give what it gives to the
    # windows, the stream costing no more than the metadata and a bound.
    if "dense" not in t.models:
        return

    def dense_bounded(s, bound):
        return (s.bytes_sent() < bound, f"fewer than {bound} bytes sent ({s.bytes_sent()})")

    def with_bound(check, more=0):
        return lambda r, s, url, same: check(r, s, url, same) + [dense_bounded(s, t.dense_bound + more)]

    t.case("correct dense", "dense", check=with_bound(same_as_local))
    t.case("ignore-range dense", "dense", "ignore-range", check=with_bound(fails_with("ignored the byte range")))
    t.case("etag-change dense", "dense", "etag-change", check=fails_with("changed while"))
    t.case("etag-change-no-412 dense", "dense", "etag-change-no-412", check=fails_with("changed while"))
    t.case("truncate dense", "dense", "truncate", check=fails_with("truncated", "ended after"))
    t.case("wrong-range dense", "dense", "wrong-range", check=fails_with("Content-Range"))
    # A stream cut inside a page: what arrived is kept in whole pages, the rest fetched
    # again (the pages never fetched stay inaccessible: a read of one would crash).
    t.case("truncate-once dense", "dense", "truncate-once", check=with_bound(same_as_local, 16 * MiB))
    t.case("truncate-once big", "big", "truncate-once", check=same_as_local)
    t.case("long-body dense", "dense", "long-body", check=with_bound(
        lambda r, s, url, same: [((r.rc == 0 and same()) or (r.rc == 2 and has(r.err, "more than")),
                                  "exit 0 and the local output, or exit 2 and 'more than'")]))
    # A stream answered with 500 gives way to the window it stood for, fetched whole (16 MiB at most).
    t.case("flaky dense", "dense", "flaky", check=with_bound(same_as_local, 16 * MiB))
    t.case("slow dense --timeout 3", "dense", "slow", ["--timeout", "3"],
           check=fails_with("timeout", "timed out", seconds=20))
    t.case("endless dense --timeout 3", "dense", "endless", ["--timeout", "3"],
           check=with_bound(fails_with("timeout", "timed out", "more than", seconds=20)))
    # The stream left at the first payload had bytes in flight that the client never read:
    # the server sent at least what the client counts, and at most the bytes in flight more.
    def dense_stats(r, s, url, same):
        m = re.search(r"in (\d+) requests \((\d+) bytes received\)", r.err)
        made, got = (int(m.group(1)), int(m.group(2))) if m else (None, None)
        return [(r.rc == 0 and same(), "exit 0, the local output"),
                (made == s.request_count(), f"its {made} requests are the server's {s.request_count()}"),
                (got is not None and got <= s.bytes_sent() < got + BYTES_BOUND,
                 f"its {got} bytes received are the {s.bytes_sent()} the server sent, less fewer than {BYTES_BOUND} "
                 "in flight")]
    t.case("--stats dense", "dense", global_opts=["--stats"], check=dense_stats)


if __name__ == "__main__":
    sys.exit(main())
