#!/usr/bin/python3
"""hf:// URLs against a pretend Hugging Face Hub: nginx on loopback
(tests/remote/servers.py) serving a tree laid out as the Hub's resolve URLs.

  hub_test.py --onnxview BUILD/tools/onnxview [-v]

The served root:
  owner/repo/resolve/main/model.onnx         testdata/small_cnn_inline.onnx
  owner/repo/resolve/main/small_cnn.onnx     testdata/small_cnn.onnx, its small_cnn.weights beside it
  owner/repo/resolve/v1/model.onnx           testdata/tensors_all_types.onnx (another revision, another model)
  owner/repo/resolve/refs/pr/1/model.onnx    testdata/sparse.onnx (a revision with slashes)
  datasets/owner/data/resolve/main/model.onnx  testdata/nested_subgraphs.onnx

hf://owner/repo[@rev]/path is ENDPOINT/owner/repo/resolve/REV/path with
ENDPOINT = $HF_ENDPOINT: http://127.0.0.1:PORT, or .../private (401 without
`Authorization: Bearer secret`), or .../private-redirect (the same, then a
302 to the CDN, another host). For each, `info --json` and `check --json`
of the URL must equal those of the local file (path and URL replaced by
MODEL), the server must have seen the paths expected, HF_TOKEN as bearer
token at the Hub and never at the CDN. Also: no or a wrong HF_TOKEN at the
private Hub exits 2 naming 401 and HF_TOKEN; HF_TOKEN is not sent to an
http:// URL; malformed hf:// URLs exit 2 with their sentence.

Exits 77 (skipped) when nginx is absent or the CLI was built without remote
support. The last line is `N passed, M failed`.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "oracle"))
sys.path.insert(0, HERE)
from common import ROOT, SKIP, Checks  # noqa: E402
from servers import Nginx, skip_reason  # noqa: E402

TIMEOUT = 60
TOKEN = "secret"
NO_REMOTE = "without remote support"
DROPPED_ENV = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
               "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_ENDPOINT", "ONNXVIEW_HTTP_BEARER", "CURL_CA_BUNDLE")

# (path under the served root, testdata file)
LAYOUT = [
    ("owner/repo/resolve/main/model.onnx", "small_cnn_inline.onnx"),
    ("owner/repo/resolve/main/small_cnn.onnx", "small_cnn.onnx"),
    ("owner/repo/resolve/main/small_cnn.weights", "small_cnn.weights"),
    ("owner/repo/resolve/v1/model.onnx", "tensors_all_types.onnx"),
    ("owner/repo/resolve/refs/pr/1/model.onnx", "sparse.onnx"),
    ("datasets/owner/data/resolve/main/model.onnx", "nested_subgraphs.onnx"),
]
# (hf:// URL, testdata file, paths the Hub serves for it)
CASES = [
    ("hf://owner/repo/model.onnx", "small_cnn_inline.onnx", ["owner/repo/resolve/main/model.onnx"]),
    ("hf://owner/repo@v1/model.onnx", "tensors_all_types.onnx", ["owner/repo/resolve/v1/model.onnx"]),
    ("hf://owner/repo@main/small_cnn.onnx", "small_cnn.onnx",
     ["owner/repo/resolve/main/small_cnn.onnx", "owner/repo/resolve/main/small_cnn.weights"]),
    ("hf://owner/repo@refs/pr/1/model.onnx", "sparse.onnx", ["owner/repo/resolve/refs/pr/1/model.onnx"]),
    ("hf://datasets/owner/data/model.onnx", "nested_subgraphs.onnx", ["datasets/owner/data/resolve/main/model.onnx"]),
]
COMMANDS = [["info", "--json"], ["check", "--json"]]


def run_cli(exe, args, env_extra):
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,127.0.0.2,localhost"
    env.update(env_extra)
    try:
        p = subprocess.run([exe, *args], capture_output=True, timeout=TIMEOUT, env=env, stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, b"", f"timed out after {TIMEOUT} s"


def first_difference(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else None
        y = lb[i] if i < len(lb) else None
        if x != y:
            return f"line {i + 1}: local {x!r:.200} / hub {y!r:.200}"
    return "identical"


def logged(web, server):
    """The access log of `server` once every request made so far is in it: nginx (one worker) logs a
    request when its answer is sent, so a marker request made now is logged after them."""
    marker = "/__marker_" + os.urandom(6).hex()
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        opener.open(web.url("", via="cdn" if server == "cdn" else "origin").rstrip("/") + marker, timeout=5).read()
    except urllib.error.HTTPError:
        pass  # 404, as wanted
    for _ in range(100):
        lines = web.log_lines(server, at_least=1)
        if any(e["uri"] == marker for e in lines):
            return [e for e in lines if e["uri"] != marker]
        web.log_lines(server, at_least=len(lines) + 1, timeout=0.05)
    raise RuntimeError(f"the marker request {marker} never reached the {server} log")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    exe = os.path.abspath(args.onnxview)
    reason = skip_reason()
    if reason:
        print(f"SKIP: {reason}")
        return SKIP
    _, out, err = run_cli(exe, ["info", "hf://probe/probe/probe.onnx"], {"HF_ENDPOINT": "http://127.0.0.1:1"})
    if NO_REMOTE in err or NO_REMOTE in out.decode("utf-8", "replace"):
        print(f"SKIP: {exe} is built {NO_REMOTE}")
        return SKIP

    root = tempfile.mkdtemp(prefix="onnxview-hub-")
    try:
        for rel, name in LAYOUT:
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            os.symlink(os.path.join(ROOT, "testdata", name), os.path.join(root, rel))
        with Nginx(root, token=TOKEN) as web:
            return run_all(exe, web, args.verbose)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run_all(exe, web, verbose):
    checks = Checks()
    base = {via: web.url("", via=via).rstrip("/") for via in ("origin", "private", "private-redirect")}
    prefix = {"origin": "/", "private": "/private/", "private-redirect": "/private-redirect/"}

    def same_as_local(url, local_name, env, what):
        local = os.path.join(ROOT, "testdata", local_name)
        ok = True
        for cmd in COMMANDS:
            lcode, lout, _ = run_cli(exe, [cmd[0], local, *cmd[1:]], {})
            rcode, rout, rerr = run_cli(exe, [cmd[0], url, *cmd[1:]], env)
            lout, rout = lout.replace(local.encode(), b"MODEL"), rout.replace(url.encode(), b"MODEL")
            label = f"onnxview {' '.join(cmd)} {url} ({what})"
            if lcode != rcode:
                ok &= checks.check(False, f"{label}: exit {lcode} local, {rcode} hub; stderr: "
                                   + (rerr.strip().splitlines() or ["(empty)"])[-1][:300])
            else:
                ok &= checks.check(lout == rout, f"{label}: stdout differs at {first_difference(lout, rout)}")
        return ok

    # The Hub serves the files itself (public, then behind the token), or
    # redirects to the CDN.
    for via in ("origin", "private", "private-redirect"):
        for endpoint in (base[via], base[via] + "/"):  # a trailing slash is dropped
            env = {"HF_ENDPOINT": endpoint, "HF_TOKEN": TOKEN}
            for url, local_name, paths in CASES:
                web.clear_logs()
                what = f"HF_ENDPOINT={endpoint}"
                if not same_as_local(url, local_name, env, what):
                    continue
                hub = logged(web, "origin")
                cdn = logged(web, "cdn") if via == "private-redirect" else []
                want = {prefix[via] + p for p in paths}
                seen = {e["uri"] for e in hub}
                checks.check(seen == want, f"{url} ({what}): the Hub was asked {sorted(seen)}, not {sorted(want)}")
                checks.check(all(e["authorization"] == f"Bearer {TOKEN}" for e in hub),
                             f"{url} ({what}): a request reached the Hub without HF_TOKEN: "
                             f"{[e['uri'] for e in hub if e['authorization'] != f'Bearer {TOKEN}']}")
                if via == "private-redirect":
                    checks.check(all(e["status"] == 302 for e in hub), f"{url} ({what}): the Hub did not redirect")
                    checks.check({e["uri"] for e in cdn} == {"/" + p for p in paths},
                                 f"{url} ({what}): the CDN was asked {sorted({e['uri'] for e in cdn})}")
                    checks.check(bool(cdn) and all(e["authorization"] == "" for e in cdn),
                                 f"{url} ({what}): the CDN got an Authorization header: "
                                 f"{[e['authorization'] for e in cdn if e['authorization']]}")
                if verbose:
                    for e in hub + cdn:
                        print(f"    {e['status']} {e['host']}{e['uri']} {e['range']} auth={e['authorization']!r}")

    def fails(url, env, phrases, what):
        code, _, err = run_cli(exe, ["info", url], env)
        ok = code == 2 and all(any(p in err for p in alternatives) for alternatives in phrases)
        checks.check(ok, f"{what}: exit {code}, stderr {err.strip()[-300:]!r}; expected exit 2 and {phrases}")
        if verbose:
            print(f"  {what}: {err.strip()}")

    private = base["private"]
    fails("hf://owner/repo/model.onnx", {"HF_ENDPOINT": private}, [["401"], ["HF_TOKEN"]], "no HF_TOKEN")
    fails("hf://owner/repo/model.onnx", {"HF_ENDPOINT": private, "HF_TOKEN": "wrong"}, [["401"], ["HF_TOKEN"]],
          "a wrong HF_TOKEN")
    fails("hf://owner/repo/model.onnx", {"HF_ENDPOINT": base["private-redirect"]}, [["401"], ["HF_TOKEN"]],
          "no HF_TOKEN, redirecting Hub")
    fails("hf://owner/repo@v2/model.onnx", {"HF_ENDPOINT": base["origin"], "HF_TOKEN": TOKEN}, [["404"]],
          "a revision the Hub lacks")
    # HF_TOKEN is for hf:// URLs: an http:// URL does not carry it.
    web.clear_logs()
    fails(web.url("owner/repo/resolve/main/model.onnx", via="private"), {"HF_TOKEN": TOKEN}, [["401"]],
          "http:// URL with HF_TOKEN only")
    leaked = [e for e in logged(web, "origin") if e["authorization"]]
    checks.check(not leaked, f"HF_TOKEN sent with an http:// URL: {leaked[:1]}")
    for url, phrase in (("hf://owner/repo", "owner/repo[@revision]/path"),
                        ("hf://owner/repo/", "owner/repo[@revision]/path"),
                        ("hf://owner", "owner/repo[@revision]/path"),
                        ("hf://owner/repo@/model.onnx", "@revision is empty")):
        fails(url, {"HF_ENDPOINT": base["origin"]}, [[phrase]], f"malformed {url}")
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
