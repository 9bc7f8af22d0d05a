#!/usr/bin/python3
"""Checks tests/remote/fault_server.py with curl (and a few raw sockets): the
correct server (ranges, multipart, validators, conditionals, keep-alive), each
fault, the records, and that nothing hangs or leaks (slow and endless end
when the client goes; close() returns within seconds while responses are in
progress; no thread or connection is left).

  fault_server_test.py [--curl PATH]

Exits 77 (skipped) without curl. The last line is `N passed, M failed`.
"""
import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "oracle"))
from common import SKIP, Checks  # noqa: E402
import fault_server  # noqa: E402
from fault_server import FaultServer  # noqa: E402

CURL = "curl"


class Reply:
    def __init__(self, rc, info, head_text, body, elapsed):
        self.rc, self.info, self.body, self.elapsed = rc, info, body, elapsed
        # The last response's headers (after redirects curl followed).
        blocks = [b for b in re.split(r"\r?\n\r?\n", head_text) if b.strip()]
        last = blocks[-1] if blocks else ""
        lines = last.splitlines()
        self.status_line = lines[0] if lines else ""
        self.headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            self.headers.setdefault(k.strip().lower(), []).append(v.strip())
        self.status = info.get("http_code", 0)

    def h(self, name):
        v = self.headers.get(name.lower())
        return v[-1] if v else None

    def __repr__(self):
        return f"<rc {self.rc} status {self.status} headers {self.headers} body {len(self.body)} bytes>"


def curl(url, *args, timeout=30):
    with tempfile.TemporaryDirectory() as t:
        hf, bf = os.path.join(t, "h"), os.path.join(t, "b")
        start = time.monotonic()
        p = subprocess.run([CURL, "-s", "-S", "-D", hf, "-o", bf, "-w", "%{json}", *args, url],
                           capture_output=True, text=True, timeout=timeout)
        elapsed = time.monotonic() - start
        try:
            info = json.loads(p.stdout)
        except ValueError:
            info = {}
        head_text = open(hf, errors="replace").read() if os.path.exists(hf) else ""
        body = open(bf, "rb").read() if os.path.exists(bf) else b""
        return Reply(p.returncode, info, head_text, body, elapsed)


def multipart(reply):
    """The parts of a multipart/byteranges reply: [(content_range, content_type, data)], or None."""
    m = re.search(r"boundary=(\S+)", reply.h("content-type") or "")
    if not m:
        return None
    delim = b"--" + m.group(1).encode()
    body = reply.body
    if not body.endswith(delim + b"--\r\n"):
        return None
    out = []
    for chunk in body.split(delim)[1:-1]:
        if not chunk.startswith(b"\r\n") or not chunk.endswith(b"\r\n"):
            return None
        head, _, data = chunk[2:-2].partition(b"\r\n\r\n")
        hdrs = dict(line.split(b": ", 1) for line in head.split(b"\r\n"))
        out.append((hdrs.get(b"Content-Range", b"").decode(), hdrs.get(b"Content-Type", b"").decode(), data))
    return out


def raw_request(port, path, extra="", host="127.0.0.1"):
    """A connected socket that sent GET path (HTTP/1.1)."""
    s = socket.create_connection((host, port), timeout=10)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n{extra}\r\n".encode())
    return s


def read_headers(s):
    buf = b""
    while b"\r\n\r\n" not in buf:
        b = s.recv(4096)
        if not b:
            break
        buf += b
    head, _, rest = buf.partition(b"\r\n\r\n")
    return head.decode(errors="replace"), rest


def wait_until(pred, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def main():
    global CURL
    ap = argparse.ArgumentParser()
    ap.add_argument("--curl", default="curl")
    args = ap.parse_args()
    CURL = shutil.which(args.curl)
    if CURL is None:
        print(f"SKIP: {args.curl} is not installed")
        return SKIP
    c = Checks()
    work = tempfile.mkdtemp(prefix="fault-server-test-")
    try:
        run(c, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return c.finish()


def run(c, work):
    data = bytes((i * 7 + (i >> 8) * 13) & 0xFF for i in range(100_000))
    root = os.path.join(work, "root")
    os.makedirs(os.path.join(root, "sub"))
    with open(os.path.join(work, "secret.txt"), "w") as f:
        f.write("outside the root")
    os.symlink(os.path.join(work, "secret.txt"), os.path.join(root, "link.txt"))
    path = os.path.join(root, "m.bin")
    with open(path, "wb") as f:
        f.write(data)
    with open(os.path.join(root, "sub", "n.bin"), "wb") as f:
        f.write(data[:10])
    size = len(data)
    threads_before = threading.active_count()

    with FaultServer(root) as s:
        o = s.ports["origin"]
        u = s.url("m.bin")
        c.check(u == f"http://127.0.0.1:{o}/m.bin", f"url: {u}")

        # --- the correct server ----------------------------------------------------------
        r = curl(u)
        c.check(r.rc == 0 and r.status == 200 and r.body == data and r.h("content-length") == str(size),
                f"GET whole: {r}")
        etag = r.h("etag")
        c.check(etag is not None and re.fullmatch(r'"[^"]+"', etag) is not None, f"strong quoted ETag: {etag}")
        c.check(r.h("last-modified") is not None and r.h("last-modified").endswith(" GMT"), "Last-Modified")
        c.check(r.h("accept-ranges") == "bytes", "Accept-Ranges")
        r = curl(u, "-I")
        c.check(r.status == 200 and r.h("content-length") == str(size) and r.h("etag") == etag
                and s.records()[-1]["bytes"] == 0, f"HEAD: {r}")
        for spec, (a, b) in (("0-99", (0, 99)), ("99990-", (99990, size - 1)), ("-10", (size - 10, size - 1)),
                             ("99990-200000", (99990, size - 1)), ("5-5", (5, 5)), ("-200000", (0, size - 1))):
            r = curl(u, "-r", spec)
            c.check(r.status == 206 and r.body == data[a:b + 1] and r.h("content-range") == f"bytes {a}-{b}/{size}"
                    and r.h("content-length") == str(b - a + 1), f"range {spec}: {r}")
        r = curl(u, "-r", "0-9,20-29,99995-")
        parts = multipart(r)
        c.check(r.status == 206 and parts == [(f"bytes 0-9/{size}", "application/octet-stream", data[0:10]),
                                              (f"bytes 20-29/{size}", "application/octet-stream", data[20:30]),
                                              (f"bytes 99995-99999/{size}", "application/octet-stream",
                                               data[99995:])]
                and r.h("content-length") == str(len(r.body)), f"multi-range: {r} {parts}")
        r = curl(u, "-r", "0-9,200000-300000")  # one satisfiable: a single part
        c.check(r.status == 206 and r.h("content-range") == f"bytes 0-9/{size}" and r.body == data[:10],
                f"multi-range with one satisfiable: {r}")
        r = curl(u, "-r", "200000-")
        c.check(r.status == 416 and r.h("content-range") == f"bytes */{size}", f"416: {r}")
        r = curl(u, "-H", "Range: bytes=9-5")
        c.check(r.status == 200 and r.body == data, f"malformed range ignored: {r}")
        r = curl(u, "-H", "Range: items=0-5")
        c.check(r.status == 200 and r.body == data, f"other unit ignored: {r}")
        r = curl(u, "-r", ",".join(f"{i}-{i}" for i in range(fault_server.MAX_RANGES + 1)))
        c.check(r.status == 416, f"more than MAX_RANGES ranges: {r}")
        r = curl(u, "-r", "0-9", "-H", f"If-Match: {etag}")
        c.check(r.status == 206 and r.body == data[:10], f"If-Match matching: {r}")
        r = curl(u, "-r", "0-9", "-H", f'If-Match: "other", {etag}')
        c.check(r.status == 206, f"If-Match list: {r}")
        r = curl(u, "-r", "0-9", "-H", "If-Match: *")
        c.check(r.status == 206, f"If-Match *: {r}")
        r = curl(u, "-r", "0-9", "-H", 'If-Match: "nope"')
        c.check(r.status == 412, f"If-Match not matching: {r}")
        r = curl(u, "-r", "0-9", "-H", f"If-Match: W/{etag}")
        c.check(r.status == 412, f"If-Match weak (strong comparison): {r}")
        r = curl(u, "-H", "If-Unmodified-Since: Thu, 01 Jan 1970 00:00:01 GMT")
        c.check(r.status == 412, f"If-Unmodified-Since: {r}")
        r = curl(u, "-H", f"If-None-Match: {etag}")
        c.check(r.status == 304 and r.body == b"", f"If-None-Match: {r}")
        r = curl(u, "-r", "0-9", "-H", f"If-Range: {etag}")
        c.check(r.status == 206 and r.body == data[:10], f"If-Range matching: {r}")
        r = curl(u, "-r", "0-9", "-H", 'If-Range: "old"')
        c.check(r.status == 200 and r.body == data, f"If-Range not matching: whole file: {r}")
        r = curl(s.url("sub/n.bin"))
        c.check(r.status == 200 and r.body == data[:10], f"a file in a subdirectory: {r}")
        for bad in ("/nothing.bin", "/../secret.txt", "/sub/../../secret.txt", "/%2e%2e/secret.txt", "/sub",
                    "/link.txt", "/fault/truncate/../../secret.txt"):
            r = curl(f"http://127.0.0.1:{o}{bad}", "--path-as-is")
            c.check(r.status == 404, f"{bad}: 404: {r}")
        r = curl(s.url("m.bin", "no-such-fault"))
        c.check(r.status == 400, f"unknown fault: 400: {r}")
        r = curl(s.url("m.bin", via="cdn"), "-r", "10-19")
        c.check(r.status == 206 and r.body == data[10:20] and s.url("m.bin", via="cdn").startswith("http://127.0.0.2:"),
                f"the cdn listener: {r}")
        # Keep-alive: curl with two URLs on one command line reuses the connection.
        s.reset()
        p = subprocess.run([CURL, "-s", "-o", "/dev/null", "-o", "/dev/null", "-r", "0-9", "-w",
                            "%{num_connects}\n", u, u], capture_output=True, text=True, timeout=30)
        recs = s.records()
        c.check(p.stdout.split() == ["1", "0"] and len(recs) == 2 and recs[0]["connection"] == recs[1]["connection"],
                f"keep-alive: {p.stdout.split()} {recs}")
        s.reset()
        sock = raw_request(o, "/nothing", "")
        head, rest = read_headers(sock)
        sock.sendall(b"GET /m.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=0-3\r\n\r\n")
        buf = rest
        while buf.count(b"\r\n\r\n") < 1 or not buf.endswith(data[:4]):
            b = sock.recv(4096)
            if not b:
                break
            buf += b
        sock.close()
        c.check(head.startswith("HTTP/1.1 404") and b"206 Partial Content" in buf and buf.endswith(data[:4]),
                f"keep-alive after a 404: {head!r} {buf!r}")

        # --- records -------------------------------------------------------------------
        s.reset()
        curl(u, "-r", "0-99")
        curl(u, "-I")
        recs = s.records()
        c.check([(r["method"], r["path"], r["range"], r["status"], r["bytes"]) for r in recs]
                == [("GET", "/m.bin", "bytes=0-99", 206, 100), ("HEAD", "/m.bin", None, 200, 0)],
                f"records: {recs}")
        c.check(s.bytes_sent() == 100 and s.request_count() == 2 and s.request_count("cdn") == 0,
                "bytes_sent, request_count")

        # --- faults ----------------------------------------------------------------------
        # ignore-range
        r = curl(s.url("m.bin", "ignore-range"), "-r", "0-99")
        c.check(r.status == 200 and r.h("content-length") == str(size) and r.body == data
                and r.h("content-range") is None, f"ignore-range: {r}")
        r = curl(s.url("m.bin", "ignore-range"), "-r", "0-9,20-29")
        c.check(r.status == 200 and r.body == data, f"ignore-range, several: {r}")

        # etag-change
        fu = s.url("m.bin", "etag-change")
        r1 = curl(fu, "-r", "0-99")
        e1 = r1.h("etag")
        r2 = curl(fu, "-r", "0-99")
        e2 = r2.h("etag")
        xored = bytes(b ^ 0xFF for b in data)
        c.check(r1.status == 206 and r1.body == data[:100] and r2.status == 206 and e1 != e2
                and r2.body == xored[:100] and r1.h("last-modified") != r2.h("last-modified"),
                f"etag-change: {r1} {r2}")
        r = curl(fu, "-r", "0-99", "-H", f"If-Match: {e1}")
        c.check(r.status == 412 and r.h("etag") == e2, f"etag-change: If-Match of the old ETag: {r}")
        r = curl(fu, "-r", "0-99", "-H", f"If-Match: {e2}")
        c.check(r.status == 206 and r.body == xored[:100], f"etag-change: If-Match of the new ETag: {r}")
        r = curl(fu, "-r", "0-99", "-H", f"If-Range: {e1}")
        c.check(r.status == 200 and r.body == xored, f"etag-change: If-Range of the old ETag: {r}")
        r = curl(fu, "-I", "-H", f"If-Match: {e1}")
        c.check(r.status == 412, f"etag-change: HEAD with If-Match: {r}")
        s.reset()
        r = curl(fu, "-r", "0-9")
        c.check(r.h("etag") == e1 and r.body == data[:10], f"etag-change: reset() starts again: {r}")

        # etag-change-no-412
        fu = s.url("m.bin", "etag-change-no-412")
        r1 = curl(fu, "-r", "0-99")
        r2 = curl(fu, "-r", "0-99", "-H", f"If-Match: {r1.h('etag')}", "-H", f"If-Range: {r1.h('etag')}")
        c.check(r1.status == 206 and r2.status == 206 and r1.h("etag") != r2.h("etag") and r1.body == data[:100]
                and r2.body == xored[:100], f"etag-change-no-412: {r1} {r2}")

        # truncate
        r = curl(s.url("m.bin", "truncate"), "-r", "0-9999")
        c.check(r.rc == 18 and r.status == 206 and r.h("content-length") == "10000" and r.body == data[:5000],
                f"truncate: {r}")
        r = curl(s.url("m.bin", "truncate"))
        c.check(r.rc == 18 and r.status == 200 and r.h("content-length") == str(size) and r.body == data[:size // 2],
                f"truncate, no range: {r}")
        r = curl(s.url("m.bin", "truncate"), "-r", "0-999,5000-5999")
        c.check(r.rc == 18 and r.status == 206 and len(r.body) == int(r.h("content-length")) // 2,
                f"truncate, several: {r}")
        r = curl(s.url("m.bin", "truncate"), "-I")
        c.check(r.rc == 0 and r.status == 200, f"truncate, HEAD: {r}")
        # truncate-once: cut inside the body the first time, whole the second, and per range
        r1 = curl(s.url("m.bin", "truncate-once"), "-r", "0-9999")
        r2 = curl(s.url("m.bin", "truncate-once"), "-r", "0-9999")
        r3 = curl(s.url("m.bin", "truncate-once"), "-r", "0-8999")
        c.check(r1.rc == 18 and r1.status == 206 and r1.body == data[:6001] and r2.rc == 0 and r2.body == data[:10000]
                and r3.rc == 18 and r3.body == data[:5501], f"truncate-once: {r1} {r2} {r3}")

        # wrong-range
        r = curl(s.url("m.bin", "wrong-range"), "-r", "100-199")
        c.check(r.status == 206 and r.h("content-range") == f"bytes 101-200/{size}" and r.body == data[101:201],
                f"wrong-range: {r}")
        r = curl(s.url("m.bin", "wrong-range"), "-r", "-10")
        c.check(r.status == 206 and r.h("content-range") == f"bytes {size - 11}-{size - 2}/{size}"
                and r.body == data[size - 11:size - 1], f"wrong-range, suffix: {r}")
        r = curl(s.url("m.bin", "wrong-range"), "-r", "0-")
        c.check(r.status == 206 and r.h("content-range") == f"bytes 1-{size - 1}/{size}", f"wrong-range, 0-: {r}")
        r = curl(s.url("m.bin", "wrong-range"))
        c.check(r.status == 206 and r.h("content-range") == f"bytes 1-{size - 1}/{size}" and r.body == data[1:],
                f"wrong-range, no range: {r}")
        r = curl(s.url("m.bin", "wrong-range"), "-r", "0-9,20-29")
        parts = multipart(r)
        c.check(parts is not None and [p[0] for p in parts] == [f"bytes 1-10/{size}", f"bytes 21-30/{size}"]
                and [p[2] for p in parts] == [data[1:11], data[21:31]], f"wrong-range, several: {r}")

        # long-body, long-body-chunked
        for name in ("long-body", "long-body-chunked"):
            s.reset()
            r = curl(s.url("m.bin", name), "-r", "0-99")
            want = 100 + fault_server.LONG_EXTRA
            te = r.h("transfer-encoding")
            c.check(r.rc == 0 and r.status == 206 and r.h("content-range") == f"bytes 0-99/{size}"
                    and r.h("content-length") is None and (te == "chunked") == (name == "long-body-chunked")
                    and len(r.body) == want and r.body[:size] == data and r.body[size:size + 10] == bytes(10),
                    f"{name}: {r}")
            c.check(s.bytes_sent() >= want, f"{name}: bytes recorded {s.bytes_sent()}")
            # A client that stops reading: curl --max-filesize does not apply without a length, so a raw socket.
            s.reset()
            sock = raw_request(o, f"/fault/{name}/m.bin", "Range: bytes=0-99\r\n")
            head, rest = read_headers(sock)
            sock.close()
            c.check(head.startswith("HTTP/1.1 206") and wait_until(lambda: s.open_connections() == 0, 5)
                    and s.bytes_sent() < 2 * 1024 * 1024,
                    f"{name}: ends when the client goes: {s.open_connections()} open, {s.bytes_sent()} bytes")

        # flaky
        s.reset()
        fu = s.url("m.bin", "flaky")
        codes = [curl(fu, "-r", spec).status for spec in ("0-9", "0-9", "10-19", "10-19", "0-9")]
        c.check(codes == [500, 206, 500, 206, 206], f"flaky: {codes}")
        r = curl(fu, "-r", "0-9", "--retry", "3", "--retry-delay", "0")  # curl retries 500 too
        c.check(r.status == 206 and r.body == data[:10], f"flaky: retried: {r}")
        c.check([x["status"] for x in s.records()] == [500, 206, 500, 206, 206, 206], f"flaky records: {s.records()}")

        # always-500
        codes = [curl(s.url("m.bin", "always-500"), "-r", "0-9").status for _ in range(3)]
        c.check(codes == [503, 503, 503], f"always-500: {codes}")

        # slow: 1 byte a second; curl gives up; the handler ends soon after.
        s.reset()
        r = curl(s.url("m.bin", "slow"), "-r", "0-99", "--max-time", "3")
        c.check(r.rc == 28 and r.status == 206 and r.h("content-length") == "100" and 2 <= len(r.body) <= 4
                and r.body == data[:len(r.body)] and r.elapsed < 5, f"slow: {r} in {r.elapsed:.1f} s")
        c.check(wait_until(lambda: s.open_connections() == 0, 3),
                f"slow: the handler ends when curl goes ({s.open_connections()} open)")
        c.check(s.bytes_sent() <= 5, f"slow: {s.bytes_sent()} bytes")

        # endless
        s.reset()
        r = curl(s.url("m.bin", "endless"), "-r", "0-99", "--max-time", "2", "--limit-rate", "1M")
        c.check(r.rc == 28 and r.status == 206 and r.h("transfer-encoding") == "chunked"
                and r.h("content-range") == f"bytes 0-99/{size}" and len(r.body) > 1_000_000
                and r.body[:size] == data and r.body[size:size + 256] == bytes(range(256)), f"endless: {r.rc} {r.status} {len(r.body)} bytes {r.headers}")
        c.check(wait_until(lambda: s.open_connections() == 0, 3), "endless: ends when curl goes")
        sent = s.bytes_sent()
        time.sleep(0.5)
        c.check(s.bytes_sent() == sent, "endless: nothing sent after the client went")
        r = curl(s.url("m.bin", "endless"), "-I")
        c.check(r.rc == 0 and r.status == 200, f"endless, HEAD: {r}")

        # redirect: curl does not send a custom Authorization to another host.
        s.reset()
        r = curl(s.url("m.bin", "redirect"), "-r", "0-9")
        c.check(r.status == 302 and r.h("location") == s.url("m.bin", via="cdn"), f"redirect: {r}")
        s.reset()
        r = curl(s.url("m.bin", "redirect"), "-L", "-r", "0-9", "-H", "Authorization: Bearer secret")
        c.check(r.status == 206 and r.body == data[:10], f"redirect followed: {r}")
        c.check(s.seen_authorization("origin") == ["Bearer secret"] and s.seen_authorization("cdn") == [None]
                and s.seen_authorization("127.0.0.2") == [None] and s.seen_authorization(0) == ["Bearer secret"],
                f"seen_authorization: {s.seen_authorization('origin')} {s.seen_authorization('cdn')}")
        s.reset()
        r = curl(s.url("m.bin", "redirect"), "-L", "--location-trusted", "-r", "0-9", "-u", "u:p")
        c.check(s.seen_authorization("cdn") == ["Basic dTpw"], "redirect: --location-trusted forwards it")

        # status/CODE
        for code in (401, 403, 404, 416, 500):
            r = curl(s.url("x.onnx", f"status/{code}"))
            c.check(r.status == code and r.rc == 0, f"status/{code}: {r}")
        r = curl(s.url("m.bin", "status/401"))
        c.check('Bearer' in (r.h("www-authenticate") or ""), f"status/401: WWW-Authenticate: {r}")
        r = curl(s.url("m.bin", "status/416"))
        c.check(r.h("content-range") == f"bytes */{size}", f"status/416: {r}")
        r = curl(s.url("x.onnx", "status/404", userinfo="user:pass"))
        c.check(r.status == 404 and s.records()[-1]["authorization"] == "Basic dXNlcjpwYXNz",
                f"status/404 with user:pass@: {r}")
        r = curl(f"http://127.0.0.1:{o}/fault/status/99/m.bin")
        c.check(r.status == 400, f"status/99: {r}")

        # --- bounds -----------------------------------------------------------------------
        # A client that neither reads nor goes: the handler blocks in a write until close().
        held = []
        for name in ("endless", "ignore-range", "slow"):
            sock = raw_request(o, f"/fault/{name}/m.bin", "Range: bytes=0-99\r\n")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            held.append(sock)
        c.check(wait_until(lambda: s.open_connections() >= 3, 3), "three held connections")
        time.sleep(0.5)
        start = time.monotonic()
        left = s.close()
        took = time.monotonic() - start
        c.check(left == 0 and took < 3, f"close() with responses in progress: {took:.2f} s, {left} handlers left")
        for sock in held:
            sock.close()
        c.check(s.close() == 0, "close() twice")
    for port in s.ports.values():
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            refused = False
        except OSError:
            refused = True
        c.check(refused, f"port {port} closed")
    c.check(wait_until(lambda: threading.active_count() <= threads_before, 3),
            f"no thread left: {threading.enumerate()}")

    # --- a dict of files --------------------------------------------------------------
    with FaultServer({"/models/m.onnx": path, "n.bin": os.path.join(root, "sub", "n.bin")}) as s:
        r = curl(s.url("models/m.onnx"), "-r", "0-9")
        c.check(r.status == 206 and r.body == data[:10], f"dict: {r}")
        r = curl(s.url("n.bin", "truncate"))
        c.check(r.status == 200 and r.body == data[:5] and r.rc == 18, f"dict + fault: {r}")
        r = curl(s.url("m.bin"))
        c.check(r.status == 404, f"dict: not listed: {r}")
    # --- many connections ---------------------------------------------------------------
    with FaultServer(root) as s:
        o = s.ports["origin"]
        procs = [subprocess.Popen([CURL, "-s", "-o", "/dev/null", "-w", "%{http_code} %{size_download}",
                                   "-r", f"{i * 1000}-{i * 1000 + 999}", s.url("m.bin")], stdout=subprocess.PIPE,
                                  text=True) for i in range(16)]
        outs = [p.communicate(timeout=30)[0] for p in procs]
        c.check(outs == ["206 1000"] * 16, f"16 clients at once: {outs}")
        socks = []
        for _ in range(fault_server.MAX_CONNECTIONS + 40):
            socks.append(socket.create_connection(("127.0.0.1", o), timeout=5))
        time.sleep(0.5)
        c.check(s.open_connections() <= fault_server.MAX_CONNECTIONS and threading.active_count()
                <= threads_before + fault_server.MAX_CONNECTIONS + 2,
                f"{len(socks)} idle connections: {s.open_connections()} served, {threading.active_count()} threads")
        for k in socks:
            k.close()
        c.check(wait_until(lambda: s.open_connections() == 0, 5), "the idle connections end when closed")
        r = curl(s.url("m.bin"), "-r", "0-9")
        c.check(r.status == 206, f"serving again after the flood: {r}")
        c.check(s.requests() == s.records() and len(s.requests()) == 17, "requests() is records()")
    c.check(wait_until(lambda: threading.active_count() <= threads_before, 3),
            f"after the flood: no thread left: {threading.enumerate()}")

    # Start and stop quickly many times: nothing accumulates.
    for _ in range(20):
        with FaultServer(root) as s:
            curl(s.url("m.bin", "slow"), "-r", "0-9", "--max-time", "0.3")
    c.check(wait_until(lambda: threading.active_count() <= threads_before, 3),
            f"20 servers: no thread left: {threading.enumerate()}")
    fds = len(os.listdir("/proc/self/fd"))
    for _ in range(5):
        with FaultServer(root) as s:
            curl(s.url("m.bin"), "-r", "0-9")
    c.check(len(os.listdir("/proc/self/fd")) <= fds, "no descriptor left")


if __name__ == "__main__":
    sys.exit(main())
