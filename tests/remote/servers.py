"""Real nginx on loopback for the remote-reading tests. Not a test itself.

    with Nginx(root, token="t0k3n") as web:
        url = web.url("a/model.onnx")                 # http://127.0.0.1:PORT_A/a/model.onnx
        web.url("a/model.onnx", via="redirect")      # 302 to http://127.0.0.2:PORT_B/a/model.onnx
        ...
        web.log_lines("origin")                      # [{"method": "GET", "status": 206, ...}, ...]

Two servers over the same root:
  origin  127.0.0.1:PORT_A
            /                    the files (single and multi-range requests)
            /private/            the same files; 401 without `Authorization: Bearer TOKEN`
            /redirect/           302 to the cdn server, same path without the prefix
            /private-redirect/   401 without the token, else 302 as /redirect/
  cdn     127.0.0.2:PORT_B      the files (another host name for HTTP clients,
                                 which must not send the origin's credentials there)

Everything nginx writes (config, pid, error log, access logs, temp dirs) is in
a fresh temp dir, removed on exit: /etc/nginx and /var/log are never touched.
"""
import argparse
import ctypes
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse

NGINX = os.environ.get("ONNXVIEW_NGINX", "/usr/sbin/nginx")
HOSTS = {"origin": "127.0.0.1", "cdn": "127.0.0.2"}
PREFIXES = {"origin": "", "private": "private/", "redirect": "redirect/", "private-redirect": "private-redirect/",
            "cdn": ""}

# One JSON object per line. escape=json escapes the values and turns an absent
# header into "" (not "-").
LOG_FORMAT = ("{"
              '"method":"$request_method",'
              '"uri":"$request_uri",'
              '"status":$status,'
              '"bytes":$body_bytes_sent,'
              '"bytes_total":$bytes_sent,'
              '"range":"$http_range",'
              '"authorization":"$http_authorization",'
              '"if_match":"$http_if_match",'
              '"if_range":"$http_if_range",'
              '"host":"$http_host",'
              '"user_agent":"$http_user_agent",'
              '"content_type":"$sent_http_content_type",'
              '"content_range":"$sent_http_content_range",'
              '"location":"$sent_http_location",'
              '"connection":$connection,'
              '"connection_requests":$connection_requests'
              "}")

# Characters safe inside a double-quoted nginx string that is also compiled
# as a complex value ($ would start a variable).
_TOKEN_RE = re.compile(r"^[A-Za-z0-9._~+/=-]+$")


def skip_reason():
    """None when nginx can run here, else why not."""
    if not os.path.exists(NGINX):
        return f"nginx is not installed ({NGINX} is absent)"
    if not os.access(NGINX, os.X_OK):
        return f"{NGINX} is not executable"
    return None


def cli_arguments(description):
    """A test's command line, `--onnxview PATH`, parsed; None (said why on stdout) when
    nginx cannot run here, which the test reports as skipped."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--onnxview", required=True)
    args = ap.parse_args()
    why = skip_reason()
    if why:
        print("SKIP:", why)
        return None
    return args


def _free_port(host):
    # The port is free when we close the socket; another process could take it
    # before nginx binds it, so start() retries on "Address already in use".
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _temp_path_directives(tmp):
    """client_body_temp_path and the *_temp_path of every module compiled in: each defaults to a
    path under /var/lib/nginx that nginx would try to create at start."""
    v = subprocess.run([NGINX, "-V"], capture_output=True, text=True).stderr
    lines = [f"client_body_temp_path {tmp}/client_body;"]
    for module in ("proxy", "fastcgi", "uwsgi", "scgi"):
        if f"--without-http_{module}_module" not in v:
            lines.append(f"{module}_temp_path {tmp}/{module};")
    return "\n    ".join(lines)


def _exit_on_sigterm(signum, frame):
    raise SystemExit(128 + signum)


def _die_with_parent():
    # In the child before exec: the master gets SIGTERM (nginx's fast
    # shutdown, workers included) if this process dies without stopping it,
    # killed by SIGKILL for one. (Linux sends it when the thread that started
    # nginx ends: use an Nginx in the thread that entered it.)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG


def _children(pid):
    """The pids whose parent is pid."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def _running(pid):
    """pid is a process that is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _quote(s):
    """A path as a double-quoted nginx string."""
    if any(c in s for c in '"\\$\n{};'):
        raise ValueError(f"path unusable in an nginx config: {s!r}")
    return f'"{s}"'


class Nginx:
    def __init__(self, root, token=None, start_timeout=10, stop_timeout=5):
        if token is not None and not _TOKEN_RE.match(token):
            raise ValueError(f"token must match {_TOKEN_RE.pattern}")
        self.root = os.path.abspath(root)
        self.token = token
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.tmp = None
        self.proc = None
        self.ports = {}

    # --- start and stop ---

    def __enter__(self):
        # Python ends on SIGTERM (what meson sends a test that timed out)
        # without leaving `with` blocks: nginx would outlive it. As SystemExit,
        # __exit__ stops it.
        self._old_sigterm = None
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            self._old_sigterm = signal.signal(signal.SIGTERM, _exit_on_sigterm)
        self.tmp = tempfile.mkdtemp(prefix="onnxview-nginx-")
        try:
            for attempt in range(3):
                self.ports = {name: _free_port(host) for name, host in HOSTS.items()}
                if self._start():
                    return self
                if attempt < 2 and "Address already in use" in self._read("error.log"):
                    continue
                raise RuntimeError(self._failure("nginx did not start"))
        except BaseException:
            self.__exit__()
            raise

    def __exit__(self, *exc):
        self._stop()
        shutil.rmtree(self.tmp, ignore_errors=True)
        if self._old_sigterm is not None:
            signal.signal(signal.SIGTERM, self._old_sigterm)
            self._old_sigterm = None
        return False

    def _start(self):
        """Starts nginx, True once both servers accept connections, False when nginx exited first."""
        with open(os.path.join(self.tmp, "nginx.conf"), "w") as f:
            f.write(self.config())
        for name in ("origin", "cdn", "error"):
            open(os.path.join(self.tmp, name + ".log"), "w").close()
        out = open(os.path.join(self.tmp, "stderr.log"), "ab")
        # nginx stays in our process group, so that meson's kill of a test
        # that timed out reaches it too.
        self.proc = subprocess.Popen([NGINX, "-p", self.tmp + "/", "-c", os.path.join(self.tmp, "nginx.conf"),
                                      "-e", os.path.join(self.tmp, "error.log")],
                                     stdin=subprocess.DEVNULL, stdout=out, stderr=out, preexec_fn=_die_with_parent)
        out.close()
        deadline = time.monotonic() + self.start_timeout
        waiting = dict(self.ports)
        while waiting:
            if self.proc.poll() is not None:
                self.proc = None
                return False
            for name, port in list(waiting.items()):
                try:
                    socket.create_connection((HOSTS[name], port), timeout=0.5).close()
                    del waiting[name]
                except OSError:
                    pass
            if waiting:
                if time.monotonic() > deadline:
                    self._stop()
                    raise RuntimeError(self._failure(f"nginx did not accept connections within {self.start_timeout} s"))
                time.sleep(0.05)
        return True

    def _stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            # The workers, known now: a master killed below would leave them running.
            workers = _children(self.proc.pid)
            self.proc.send_signal(signal.SIGQUIT)  # graceful: workers finish their requests, then exit
            try:
                self.proc.wait(self.stop_timeout)
            except subprocess.TimeoutExpired:
                for pid in [self.proc.pid] + workers:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                self.proc.wait()
                # Not our children: gone once /proc no longer lists them running.
                deadline = time.monotonic() + 2
                while any(_running(pid) for pid in workers) and time.monotonic() < deadline:
                    time.sleep(0.01)
        self.proc = None

    def _read(self, name):
        try:
            with open(os.path.join(self.tmp, name), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def _failure(self, what):
        """The message of a failed start: the temp dir is removed after it, so it holds the config too."""
        conf = "".join(f"{i:3} {line}\n" for i, line in enumerate(self._read("nginx.conf").splitlines(), 1))
        return (f"{what} ({NGINX} -p {self.tmp}/)\n--- error.log\n{self._read('error.log')}"
                f"--- stderr\n{self._read('stderr.log')}--- nginx.conf\n{conf}")

    # --- the config ---

    def config(self):
        t = self.tmp
        root = _quote(self.root)
        a, b = self.ports["origin"], self.ports["cdn"]
        cdn = f"http://{HOSTS['cdn']}:{b}"
        deny = f'if ($http_authorization != "Bearer {self.token}") {{ return 401; }}' if self.token else ""
        # Without `user`, workers started by root run as nobody, who cannot
        # read the temp dir (mode 0700) or files under it.
        user = "user root;" if os.geteuid() == 0 else ""
        return f"""daemon off;
master_process on;
{user}
worker_processes 1;
pid {t}/nginx.pid;
error_log {t}/error.log info;
events {{ worker_connections 256; }}
http {{
    {_temp_path_directives(t)}
    types {{ }}
    default_type application/octet-stream;
    sendfile on;
    keepalive_requests 10000;
    # A Range header listing a few hundred ranges is longer than the 8k default.
    large_client_header_buffers 4 32k;
    # max_ranges is not set: by default any number of ranges is served.
    log_format onnxview escape=json '{LOG_FORMAT}';
    access_log off;
    # The path after /redirect/ or /private-redirect/, as the client sent it
    # (not decoded, query string included).
    map $request_uri $cdn_path {{
        default "";
        "~^/(?:private-)?redirect/(?<rest>.*)$" $rest;
    }}
    server {{
        listen {HOSTS['origin']}:{a};
        server_name origin;
        root {root};
        access_log {t}/origin.log onnxview;
        location / {{ }}
        location /private/ {{
            {deny}
            alias {_quote(self.root + "/")};
        }}
        location /redirect/ {{
            return 302 {cdn}/$cdn_path;
        }}
        location /private-redirect/ {{
            {deny}
            return 302 {cdn}/$cdn_path;
        }}
    }}
    server {{
        listen {HOSTS['cdn']}:{b};
        server_name cdn;
        root {root};
        access_log {t}/cdn.log onnxview;
        location / {{ }}
    }}
}}
"""

    # --- for the tests ---

    def url(self, relpath, via="origin"):
        if via not in PREFIXES:
            raise ValueError(f"via must be one of {', '.join(PREFIXES)}")
        server = "cdn" if via == "cdn" else "origin"
        path = urllib.parse.quote(relpath.lstrip("/"))
        return f"http://{HOSTS[server]}:{self.ports[server]}/{PREFIXES[via]}{path}"

    def log_lines(self, server, at_least=0, timeout=2.0):
        """The parsed access log of "origin" or "cdn", oldest first. nginx writes a line once a
        response is sent, so a client can finish before its line is there: with at_least, waits
        (up to timeout seconds) for that many lines."""
        if server not in HOSTS:
            raise ValueError('server must be "origin" or "cdn"')
        deadline = time.monotonic() + timeout
        while True:
            text = self._read(server + ".log")
            lines = text.splitlines() if text.endswith("\n") else text.splitlines()[:-1]  # a line being written
            if len(lines) >= at_least or time.monotonic() > deadline:
                return [json.loads(line) for line in lines]
            time.sleep(0.02)

    def clear_logs(self):
        # nginx opens its logs with O_APPEND: it goes on writing at the new end.
        for server in HOSTS:
            open(os.path.join(self.tmp, server + ".log"), "w").close()

    def error_log(self):
        return self._read("error.log")
