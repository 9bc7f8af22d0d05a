"""An HTTP server on loopback that misbehaves on request, for the remote-reading
tests (tests/remote/fault_test.py). Python's standard library only. Not a test
itself; tests/remote/fault_server_test.py checks it with curl.

    with FaultServer({"small.onnx": "/path/small.onnx"}) as srv:   # or FaultServer("/a/root/dir")
        srv.url("small.onnx")                      # http://127.0.0.1:PORT/small.onnx (a correct server)
        srv.url("small.onnx", "truncate")          # http://127.0.0.1:PORT/fault/truncate/small.onnx
        srv.url("small.onnx", "status/404")        # .../fault/status/404/small.onnx
        srv.url("small.onnx", via="cdn")           # http://127.0.0.2:PORT2/small.onnx
        srv.requests()                             # [{"method", "path", "range", "status", "bytes", ...}]
        srv.bytes_sent(), srv.seen_authorization("cdn")

Two listeners (threaded http.server, HTTP/1.1 with keep-alive, daemon threads):
  origin  127.0.0.1:PORT    the files, and the faults below
  cdn     127.0.0.2:PORT2   the same (another host name): where `redirect` points

A correct server by default: GET and HEAD, `Accept-Ranges: bytes`, single
ranges (`bytes=a-b`, `a-`, `-n`: 206 with Content-Range, 416 with
`Content-Range: bytes */SIZE` when none is satisfiable), several ranges
(206 multipart/byteranges, each part with its Content-Type and Content-Range),
a strong quoted `ETag`, `Last-Modified`, and the conditionals If-Match and
If-Unmodified-Since (412), If-None-Match and If-Modified-Since (304), If-Range
(the whole file, 200, when it does not match). A malformed Range is ignored
(200, as RFC 9110 says); more than MAX_RANGES ranges are refused (416).

Faults, by path prefix /fault/NAME/FILE (state is per server, per path):
  ignore-range        200 with the whole file (its Content-Length) whatever the Range
  etag-change         after the first request for the path: another ETag and
                      Last-Modified and other bytes (the file's XOR 0xFF); If-Match
                      of the old ETag gets 412, If-Range of it the whole (new) file
  etag-change-no-412  as etag-change, but every conditional header is ignored: the
                      client must notice that the ETag it is sent differs
  truncate            correct headers (206/200, Content-Length), then half the
                      body and the connection closed
  truncate-once       the first answer to each distinct (method, Range) as truncate
                      does, but cut 1001 bytes past the half (inside a page); then
                      correct answers
  wrong-range         206 with a Content-Range whose start is not the one asked
                      (shifted by one byte) and the bytes of that range; to a
                      request without Range, 206 `bytes 1-LAST/SIZE`
  long-body           206 with the right Content-Range but no Content-Length,
                      `Connection: close`, and a body longer than the range: the
                      range, then the file on after it, then zeros, LONG_EXTRA bytes
                      more than asked, then the connection closed (several ranges:
                      the whole multipart body, then as many bytes more)
  long-body-chunked   the same, chunked (Transfer-Encoding: chunked)
  flaky               500 to the first request for each distinct (method, Range),
                      then correct answers
  always-500          503, always (the name is the brief's)
  slow                the right headers (Content-Length), then the body 1 byte per
                      second until the client goes (or the body is complete, or
                      the server closes)
  endless             206 (200 without Range) with the right Content-Range and
                      Transfer-Encoding: chunked: the range, the file on after it,
                      then a filler without end until the client goes (sent as
                      fast as the client reads) or the server closes
  redirect            302 to the same file on the cdn listener
  status/CODE         that status (e.g. 401 with WWW-Authenticate, 403, 404, 416
                      with Content-Range: bytes */SIZE), a short text body

Every request is recorded (records(): listener, method, path, range, status,
body bytes sent, authorization, conditionals, connection number), at most
MAX_RECORDS of them. Everything is bounded: buffers of CHUNK bytes, a socket
timeout (IDLE_TIMEOUT) for every connection (a client that neither reads nor
closes ends its handler), small send buffers (so that `bytes` is close to what
the client received: what the server wrote, minus at most the kernel buffers),
and close() ends every connection, slow and endless ones included, within
a few seconds.
"""
import email.utils
import http.server
import os
import posixpath
import re
import select
import socket
import socketserver
import threading
import time
import urllib.parse
from collections import deque

HOSTS = {"origin": "127.0.0.1", "cdn": "127.0.0.2"}
FAULTS = ("ignore-range", "etag-change", "etag-change-no-412", "truncate", "truncate-once", "wrong-range", "long-body",
          "long-body-chunked", "flaky", "always-500", "slow", "endless", "redirect", "status")
CHUNK = 64 * 1024
MAX_RANGES = 256
MAX_RECORDS = 100_000
LONG_EXTRA = 16 * 1024 * 1024   # long-body: at most this many bytes more than the range
IDLE_TIMEOUT = 20.0             # seconds a connection may block in a read or a write
MAX_CONNECTIONS = 128           # open at once per server (each has a thread); more are closed at once
SNDBUF = 64 * 1024              # each connection's send buffer
XOR = bytes(b ^ 0xFF for b in range(256))
_RANGE_SPEC = re.compile(r"^\s*(\d*)\s*-\s*(\d*)\s*$")


def parse_range(header, size):
    """The ranges of a Range header for a file of `size` bytes: None when the header is
    absent or malformed (to be ignored), [] when no range is satisfiable (416), else
    [(first, last)] with last inclusive and clamped, in the order asked. More than
    MAX_RANGES ranges count as unsatisfiable."""
    if header is None:
        return None
    unit, sep, specs = header.partition("=")
    if not sep or unit.strip().lower() != "bytes":
        return None
    specs = specs.split(",")
    if len(specs) > MAX_RANGES:
        return []
    out = []
    for spec in specs:
        m = _RANGE_SPEC.match(spec)
        if not m or (m.group(1) == "" and m.group(2) == ""):
            return None
        a, b = m.group(1), m.group(2)
        if a == "":                       # -n: the last n bytes
            n = int(b)
            if n == 0 or size == 0:
                continue
            out.append((max(0, size - n), size - 1))
        else:
            first = int(a)
            last = int(b) if b != "" else size - 1
            if b != "" and last < first:
                return None               # invalid: the whole header is ignored
            if first >= size:
                continue                  # unsatisfiable, the others may be
            out.append((first, min(last, size - 1)))
    return out


def http_date(t):
    return email.utils.formatdate(t, usegmt=True)


def _parse_date(s):
    try:
        d = email.utils.parsedate_to_datetime(s)
        return d.timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _etag_list(header):
    """The entity tags of an If-Match / If-None-Match value ('*' as itself)."""
    if header.strip() == "*":
        return ["*"]
    return re.findall(r'(?:W/)?"[^"]*"', header)


def _shifted(a, b, size):
    """A range whose start is not a (the same length where the file allows)."""
    if b + 1 < size:
        return a + 1, b + 1
    if a > 0:
        return a - 1, b - 1
    return (a + 1, b) if a < b else (a, b)


class _Gone(Exception):
    """The client went, or the server is closing: stop sending."""


class _Listener(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, host, owner):
        self.owner = owner
        self.name = [k for k, v in HOSTS.items() if v == host][0]
        super().__init__((host, 0), _Handler)

    def process_request(self, request, client_address):
        if not self.owner._admit():
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.owner._leave()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.owner._leave()

    def server_bind(self):
        # HTTPServer.server_bind asks socket.getfqdn (a reverse DNS lookup, slow without network).
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "onnxview-fault-server/1"
    timeout = IDLE_TIMEOUT

    # --- connection bookkeeping ---

    def setup(self):
        super().setup()
        owner = self.server.owner
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SNDBUF)
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
        self.conn_id = owner._register(self.connection, threading.current_thread())

    def finish(self):
        try:
            super().finish()
        except OSError:
            pass
        finally:
            self.server.owner._unregister(self.connection, threading.current_thread())

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass

    def handle_one_request(self):
        if self.server.owner._stopping.is_set():
            self.close_connection = True
            return
        try:
            super().handle_one_request()
        except (_Gone, ConnectionError, BrokenPipeError, socket.timeout, OSError):
            self.close_connection = True

    def do_GET(self):
        self._serve(head=False)

    def do_HEAD(self):
        self._serve(head=True)

    # --- sending, counted ---

    def _write(self, data):
        if self.server.owner._stopping.is_set():
            raise _Gone()
        try:
            self.wfile.write(data)
        except (OSError, ValueError) as e:
            raise _Gone() from e
        self.record["bytes"] += len(data)

    def _start(self, status, headers, close=False):
        self.record["status"] = status
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()

    def _simple(self, status, text=None, headers=(), head=False):
        body = (text if text is not None else f"{status} {self.responses.get(status, ('',))[0]}\n").encode()
        self._start(status, [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body))),
                             *headers])
        if not head:
            self._write(body)

    def _client_gone(self, wait):
        """Waits up to `wait` seconds (less when the server closes); True when the client closed."""
        end = time.monotonic() + wait
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return False
            if self.server.owner._stopping.wait(0):
                raise _Gone()
            try:
                r, _, _ = select.select([self.connection], [], [], min(left, 0.1))
            except (OSError, ValueError):
                return True
            if r:
                try:
                    if self.connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                        return True
                except BlockingIOError:
                    pass
                except OSError:
                    return True
                time.sleep(min(left, 0.1))  # data (a pipelined request): not ours to read now

    # --- the file's bytes ---

    def _chunks(self, f, first, length, xor):
        """The bytes [first, first + length) of the open file f, CHUNK at a time (fewer at its end)."""
        f.seek(first)
        while length > 0:
            b = f.read(min(CHUNK, length))
            if not b:
                return
            length -= len(b)
            yield b.translate(XOR) if xor else b

    # --- a request ---

    def _serve(self, head):
        owner = self.server.owner
        raw_path = self.path
        self.record = owner._record(self.server.name, self.conn_id, self.command, raw_path, self.headers)
        path = urllib.parse.unquote(urllib.parse.urlsplit(raw_path).path)
        fault, arg, rel = None, None, path.lstrip("/")
        if rel.startswith("fault/"):
            parts = rel.split("/", 3)
            if len(parts) >= 3 and parts[1] == "status":
                if len(parts) < 4 or not parts[2].isdigit() or not 100 <= int(parts[2]) <= 599:
                    return self._simple(400, "bad fault path: /fault/status/CODE/FILE\n", head=head)
                fault, arg, rel = "status", int(parts[2]), parts[3]
            elif len(parts) >= 3 and parts[1] in FAULTS:
                fault, rel = parts[1], "/".join(parts[2:])
            else:
                return self._simple(400, f"unknown fault in {path}: one of {', '.join(FAULTS)}\n", head=head)
        self.record["fault"] = fault
        local = owner._resolve(rel)
        # The faults that need no file (status/416 tells the size when there is one).
        if fault == "status":
            return self._status(head, arg, rel, os.path.getsize(local) if local else None)
        if fault == "always-500":
            return self._simple(503, "503 always unavailable\n", head=head)
        if fault == "redirect":
            return self._simple(302, "302 moved to the cdn\n", [("Location", owner.url(rel, via="cdn"))], head=head)
        if fault == "flaky" and owner._first_time((path, self.command, self.headers.get("Range"))):
            return self._simple(500, "500 flaky: try again\n", head=head)
        if local is None:
            return self._simple(404, head=head)
        try:
            f = open(local, "rb")
        except OSError:
            return self._simple(404, head=head)
        with f:
            self._serve_file(head, fault, path, f, os.fstat(f.fileno()))

    def _status(self, head, code, rel, size):
        if code < 200:
            return self._simple(400, "fault status/CODE: CODE is 200 to 599\n", head=head)
        extra = []
        if code == 401:
            extra.append(("WWW-Authenticate", 'Bearer realm="onnxview-fault"'))
        if code == 416:
            extra.append(("Content-Range", f"bytes */{size or 0}"))
        if code in (301, 302, 303, 307, 308):
            extra.append(("Location", self.server.owner.url(rel)))
        if code in (204, 304):
            self._start(code, extra)  # no body, no Content-Length
            return None
        return self._simple(code, f"{code} {self.responses.get(code, ('status',))[0]} (fault)\n", extra, head=head)

    def _serve_file(self, head, fault, path, f, st):
        owner = self.server.owner
        size = st.st_size
        range_header = self.headers.get("Range")
        seen_before = owner._count(path)   # requests for this path before this one (etag-change)

        changed = fault in ("etag-change", "etag-change-no-412") and seen_before >= 1
        etag = f'"{st.st_ino:x}-{size:x}-{st.st_mtime_ns:x}{"-changed" if changed else ""}"'
        mtime = int(st.st_mtime) + (86400 if changed else 0)
        validators = [("ETag", etag), ("Last-Modified", http_date(mtime))]
        common = [("Accept-Ranges", "bytes"), *validators]

        if fault != "etag-change-no-412":
            status = self._conditionals(etag, mtime)
            if status is not None:
                if status == 304:
                    self._start(304, validators)
                    return
                return self._simple(412, "412 precondition failed\n", validators, head=head)
        if fault == "ignore-range":
            ranges = None
        elif fault == "etag-change-no-412" or self._if_range_holds(etag, mtime):
            ranges = parse_range(range_header, size)
        else:
            ranges = None               # If-Range does not hold: the whole (current) file
        xor = changed

        if ranges == []:
            return self._simple(416, f"416 range not satisfiable (size {size})\n",
                                [("Content-Range", f"bytes */{size}"), *validators], head=head)

        if fault == "wrong-range" and size > 1:
            if ranges is None:
                ranges = [(1, size - 1)]
            else:
                ranges = [_shifted(a, b, size) for a, b in ranges]

        # The body: pieces, each bytes or a (first, length) span of the file.
        if ranges is None:
            status, ctype, pieces = 200, [("Content-Type", "application/octet-stream")], [(0, size)]
        elif len(ranges) == 1:
            (a, b), = ranges
            status, pieces = 206, [(a, b - a + 1)]
            ctype = [("Content-Type", "application/octet-stream"), ("Content-Range", f"bytes {a}-{b}/{size}")]
        else:
            boundary = f"onnxview-fault-{threading.get_ident():x}-{time.monotonic_ns():x}"
            status, pieces = 206, []
            ctype = [("Content-Type", f"multipart/byteranges; boundary={boundary}")]
            for a, b in ranges:
                pieces += [(f"--{boundary}\r\nContent-Type: application/octet-stream\r\n"
                            f"Content-Range: bytes {a}-{b}/{size}\r\n\r\n").encode(), (a, b - a + 1), b"\r\n"]
            pieces.append(f"--{boundary}--\r\n".encode())
        total = sum(len(p) if isinstance(p, bytes) else p[1] for p in pieces)
        stream = fault in ("long-body", "long-body-chunked", "endless")
        chunked = fault in ("long-body-chunked", "endless")
        length = [] if stream else [("Content-Length", str(total))]
        coding = [("Transfer-Encoding", "chunked")] if chunked else []
        cut = fault == "truncate" or (fault == "truncate-once" and not head and
                                      owner._first_time(("truncate-once", path, self.command, range_header)))
        self._start(status, [*ctype, *length, *coding, *common], close=stream or cut)
        if head:
            return None
        budget = None if not cut else total // 2 if fault == "truncate" else min(total - 1, total // 2 + 1001)
        pace = 1.0 if fault == "slow" else None
        try:
            for p in pieces:
                if isinstance(p, bytes):
                    budget = self._out(p, budget, chunked)
                else:
                    for chunk in self._chunks(f, p[0], p[1], xor):
                        if pace is None:
                            budget = self._out(chunk, budget, chunked)
                            continue
                        for i in range(len(chunk)):
                            self._out(chunk[i:i + 1], None, False)
                            if self._client_gone(pace):
                                raise _Gone()
            if stream:
                # More than asked: the file on after the (last) range, then filler; LONG_EXTRA bytes
                # for long-body, without end for endless (until the client goes or the server closes).
                extra = float("inf") if fault == "endless" else LONG_EXTRA
                after = ranges[-1][1] + 1 if ranges else size
                for chunk in self._chunks(f, after, int(min(size - after, extra)), xor):
                    self._out(chunk, None, chunked)
                    extra -= len(chunk)
                filler = bytes(CHUNK) if fault != "endless" else bytes(range(256)) * (CHUNK // 256)
                while extra > 0:
                    n = int(min(CHUNK, extra))
                    self._out(filler[:n], None, chunked)
                    extra -= n
            if chunked:
                self._write(b"0\r\n\r\n")
        except _Truncated:
            pass
        if budget is not None or stream:
            self._hang_up()
        return None

    def _out(self, data, budget, chunked):
        """Sends data (as one chunk when chunked); with a budget, no more than it, raising _Truncated when
        it is spent. Returns what is left of the budget."""
        if budget is not None:
            data = data[:budget]
            budget -= len(data)
        if data:
            self._write(f"{len(data):x}\r\n".encode() + data + b"\r\n" if chunked else data)
        if budget == 0:
            raise _Truncated()
        return budget

    def _conditionals(self, etag, mtime):
        """412 or 304 when a precondition says so, else None (RFC 9110 13.2.2's order)."""
        h = self.headers
        im = h.get("If-Match")
        if im is not None:
            tags = _etag_list(im)
            if "*" not in tags and etag not in tags:   # strong comparison: W/ never matches
                return 412
        elif h.get("If-Unmodified-Since") is not None:
            t = _parse_date(h.get("If-Unmodified-Since"))
            if t is not None and mtime > t:
                return 412
        inm = h.get("If-None-Match")
        if inm is not None:
            tags = [t[2:] if t.startswith("W/") else t for t in _etag_list(inm)]
            if "*" in tags or etag in tags:
                return 304
        elif h.get("If-Modified-Since") is not None:
            t = _parse_date(h.get("If-Modified-Since"))
            if t is not None and mtime <= t:
                return 304
        return None

    def _if_range_holds(self, etag, mtime):
        v = self.headers.get("If-Range")
        if v is None:
            return True
        v = v.strip()
        if v.startswith('"'):
            return v == etag
        if v.startswith("W/"):
            return False
        t = _parse_date(v)
        return t is not None and int(t) == mtime

    def _hang_up(self):
        self.close_connection = True
        try:
            self.wfile.flush()
        except OSError:
            pass
        try:
            self.connection.shutdown(socket.SHUT_WR)
        except OSError:
            pass


class _Truncated(Exception):
    pass


class FaultServer:
    """The two listeners, their records and fault state. A context manager; close() is idempotent."""

    def __init__(self, files):
        if isinstance(files, (str, os.PathLike)):
            self.root = os.path.realpath(files)
            if not os.path.isdir(self.root):
                raise ValueError(f"not a directory: {files}")
            self.files = None
        else:
            self.root = None
            self.files = {k.lstrip("/"): os.path.abspath(v) for k, v in files.items()}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._records = deque(maxlen=MAX_RECORDS)
        self._counts = {}
        self._seen = set()
        self._conns = {}        # socket -> thread
        self._threads = set()
        self._next_conn = 0
        self._active = 0        # connections admitted and not yet done
        self._listeners = {}
        self._serve_threads = {}
        self.ports = {}
        self._closed = False

    # --- start and stop ---

    def start(self):
        try:
            for name, host in HOSTS.items():
                srv = _Listener(host, self)
                self._listeners[name] = srv
                self.ports[name] = srv.server_address[1]
            for name, srv in self._listeners.items():
                t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.1},
                                     name=f"fault-server-{name}", daemon=True)
                t.start()
                self._serve_threads[name] = t
        except BaseException:
            self.close()
            raise
        return self

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self, timeout=3.0):
        """Stops accepting, ends every connection (slow and endless responses too), and waits
        up to `timeout` seconds for the handlers. Returns the number of handler threads still
        alive (0 normally)."""
        if self._closed:
            return self.live_handlers()
        self._closed = True
        self._stopping.set()
        for name, srv in self._listeners.items():
            t = self._serve_threads.get(name)
            if t is not None and t.is_alive():
                srv.shutdown()
            srv.server_close()
        for t in self._serve_threads.values():
            t.join(timeout)
        with self._lock:
            conns = list(self._conns)
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        deadline = time.monotonic() + timeout
        for t in list(self._threads):
            t.join(max(0.0, deadline - time.monotonic()))
        return self.live_handlers()

    def live_handlers(self):
        with self._lock:
            return sum(1 for t in self._threads if t.is_alive())

    def open_connections(self):
        with self._lock:
            return len(self._conns)

    def _admit(self):
        """Whether one more connection may be served (MAX_CONNECTIONS at once), counting it."""
        with self._lock:
            if self._stopping.is_set() or self._active >= MAX_CONNECTIONS:
                return False
            self._active += 1
            return True

    def _leave(self):
        with self._lock:
            self._active -= 1

    def _register(self, conn, thread):
        with self._lock:
            self._next_conn += 1
            self._conns[conn] = thread
            self._threads.add(thread)
            # Forget finished threads: the set stays as small as the live connections.
            self._threads = {t for t in self._threads if t.is_alive()}
            return self._next_conn

    def _unregister(self, conn, thread):
        with self._lock:
            self._conns.pop(conn, None)
            self._threads.discard(thread)

    # --- files ---

    def _resolve(self, rel):
        """The local file for URL path `rel` (no leading slash), or None."""
        rel = rel.lstrip("/")
        if self.files is not None:
            p = self.files.get(rel)
            return p if p is not None and os.path.isfile(p) else None
        norm = posixpath.normpath("/" + rel).lstrip("/")
        if norm in ("", ".") or norm.startswith(".."):
            return None
        p = os.path.realpath(os.path.join(self.root, norm))
        if not p.startswith(self.root + os.sep) or not os.path.isfile(p):
            return None
        return p

    # --- state ---

    def _count(self, path):
        """How many requests for `path` came before this one (counted with it)."""
        with self._lock:
            n = self._counts.get(path, 0)
            if len(self._counts) < 10_000 or path in self._counts:
                self._counts[path] = n + 1
            return n

    def _first_time(self, key):
        with self._lock:
            if key in self._seen:
                return False
            if len(self._seen) >= 10_000:
                self._seen.clear()
            self._seen.add(key)
            return True

    def _record(self, listener, conn, method, path, headers):
        r = {"listener": listener, "connection": conn, "method": method, "path": path,
             "range": headers.get("Range"), "authorization": headers.get("Authorization"),
             "if_match": headers.get("If-Match"), "if_range": headers.get("If-Range"),
             "if_none_match": headers.get("If-None-Match"), "user_agent": headers.get("User-Agent"),
             "status": None, "bytes": 0, "fault": None, "time": time.time()}
        with self._lock:
            self._records.append(r)
        return r

    def reset(self):
        """Forgets the records and the fault state (etag-change's count, flaky's seen ranges)."""
        with self._lock:
            self._records.clear()
            self._counts.clear()
            self._seen.clear()

    # --- for the tests ---

    def _listener_name(self, listener):
        if listener in HOSTS:
            return listener
        if isinstance(listener, int):
            return list(HOSTS)[listener]
        for k, v in HOSTS.items():
            if v == listener:
                return k
        raise ValueError(f"listener: one of {', '.join(HOSTS)}, their addresses or 0/1, not {listener!r}")

    def url(self, rel, fault=None, via="origin", userinfo=None):
        """The URL of file `rel`, through `fault` ("truncate", "status/404", ...) when given."""
        name = self._listener_name(via)
        path = urllib.parse.quote(rel.lstrip("/"))
        if fault:
            path = f"fault/{fault}/{path}"
        auth = f"{userinfo}@" if userinfo else ""
        return f"http://{auth}{HOSTS[name]}:{self.ports[name]}/{path}"

    def records(self, listener=None):
        """The requests recorded, oldest first (copies), of one listener or both."""
        name = None if listener is None else self._listener_name(listener)
        with self._lock:
            return [dict(r) for r in self._records if name is None or r["listener"] == name]

    requests = records

    def request_count(self, listener=None):
        return len(self.records(listener))

    def bytes_sent(self, listener=None):
        """The body bytes written to clients (a connection's kernel buffers, SNDBUF and the
        client's receive buffer, may hold some the client never read)."""
        return sum(r["bytes"] for r in self.records(listener))

    def seen_authorization(self, listener):
        """The Authorization header of every request to that listener ("origin"/"cdn",
        "127.0.0.1"/"127.0.0.2" or 0/1), None where it was absent, oldest first."""
        return [r["authorization"] for r in self.records(listener)]

    def wait_idle(self, timeout=3.0):
        """Waits until no connection is open (a client's handlers done); True if so."""
        deadline = time.monotonic() + timeout
        while self.open_connections():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="Serve files with faults on 127.0.0.1 and 127.0.0.2 until Ctrl-C.")
    ap.add_argument("root", help="a directory, served as is")
    args = ap.parse_args()
    with FaultServer(args.root) as s:
        print(f"origin: http://127.0.0.1:{s.ports['origin']}/  cdn: http://127.0.0.2:{s.ports['cdn']}/", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
