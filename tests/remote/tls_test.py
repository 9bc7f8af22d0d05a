#!/usr/bin/env python3
"""TLS is verified: nginx on loopback serves testdata/ over https with a
certificate made for the test. Without it in CURL_CA_BUNDLE, `onnxview info`
fails with "TLS failed" (exit 2); with it, the output is the local file's.

Usage: tls_test.py --onnxview PATH (exit 77 without nginx, openssl or remote support)
"""
import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "oracle"))
from common import SKIP, Checks  # noqa: E402

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
MODEL = "small_cnn.onnx"  # with external data next to it

CONFIG = """
{user}
daemon off;
master_process off;
error_log {tmp}/error.log;
pid {tmp}/nginx.pid;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    server {{
        listen 127.0.0.1:{port} ssl;
        ssl_certificate {tmp}/cert.pem;
        ssl_certificate_key {tmp}/key.pem;
        root {root};
    }}
}}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxview", required=True)
    args = ap.parse_args()
    if not os.path.exists(NGINX) or shutil.which("openssl") is None:
        print("SKIP: nginx or openssl is not installed")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="onnxview-tls-")
    nginx = None
    checks = Checks()
    try:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", os.path.join(tmp, "key.pem"), "-out", os.path.join(tmp, "cert.pem")],
                       check=True, capture_output=True, timeout=60)
        port = free_port()
        with open(os.path.join(tmp, "nginx.conf"), "w") as f:
            f.write(CONFIG.format(user="user root;" if os.geteuid() == 0 else "", tmp=tmp, port=port,
                                  root=os.path.join(ROOT, "testdata")))
        nginx = subprocess.Popen([NGINX, "-p", tmp, "-c", os.path.join(tmp, "nginx.conf"), "-e",
                                  os.path.join(tmp, "error.log")], start_new_session=True)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        url = f"https://127.0.0.1:{port}/{MODEL}"
        local = os.path.join(ROOT, "testdata", MODEL)
        env = {k: v for k, v in os.environ.items() if k != "CURL_CA_BUNDLE"}

        r = subprocess.run([args.onnxview, "info", url], capture_output=True, timeout=60, env=env)
        err = r.stderr.decode("utf-8", "replace")
        if "without remote support" in err:
            print(f"SKIP: {args.onnxview} is built without remote support")
            return SKIP
        checks.check(r.returncode == 2 and "TLS failed" in err,
                     f"an unknown certificate: exit {r.returncode}, stderr {err.strip()[:300]!r}")

        env["CURL_CA_BUNDLE"] = os.path.join(tmp, "cert.pem")
        for cmd in (["info", "--json"], ["check", "--json"]):
            lr = subprocess.run([args.onnxview] + cmd + [local], capture_output=True, timeout=60)
            rr = subprocess.run([args.onnxview] + cmd + [url], capture_output=True, timeout=60, env=env)
            checks.check(rr.returncode == lr.returncode and
                         rr.stdout.replace(url.encode(), b"M") == lr.stdout.replace(local.encode(), b"M"),
                         f"{' '.join(cmd)} over https with the certificate trusted: exit {rr.returncode}, "
                         f"stderr {rr.stderr.decode()[:300]!r}")
    finally:
        if nginx is not None:
            os.killpg(nginx.pid, signal.SIGTERM)
            try:
                nginx.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(nginx.pid, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
