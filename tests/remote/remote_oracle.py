#!/usr/bin/python3
"""Checks that onnxview reads a model over HTTP as it reads the file.

  remote_oracle.py --onnxview BUILD/tools/onnxview [--corpus DIR] [--limit N]

Models: every .onnx of testdata/ (subdirectories included: small_cnn.onnx has
its weights in small_cnn.weights beside it, the models of testdata/profile/
name weights that are deliberately absent), N models spread over the
corpus (every .onnx under --corpus, default /usr/share/libonnx-testdata;
N = --limit, default 40, 0 for all), and three models of megabytes made
here with python3-onnx when it is installed (see generate(): every other
model is under 64 KiB). nginx (tests/remote/servers.py) serves them on
loopback, testdata/ and the corpus through symlinks, so external data sits
beside each model's URL as beside its file.

For each model, each command
    info --json, check --json, dump, hash (when the CLI has it), profile --json
runs on the local path and on the URL: their exit codes must be equal, and
their stdouts equal byte for byte once the path (and the URL) is replaced by
MODEL. A few models are also read through /redirect/ (a 302 to another host).

Exits 77 (skipped) when nginx is absent or the CLI was built without remote
support.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "oracle"))
sys.path.insert(0, HERE)
from common import ROOT, SKIP, Checks, spread  # noqa: E402
from servers import Nginx, skip_reason  # noqa: E402

TIMEOUT = 60
COMMANDS = [["info", "--json"], ["check", "--json"], ["dump"], ["hash"], ["profile", "--json"]]
REDIRECTED = 4  # models also read through /redirect/
NO_REMOTE = "without remote support"


def run(exe, cmd, target):
    """(exit code, stdout bytes, stderr text) of `onnxview CMD... TARGET`; exit code None on a timeout
    or when it could not start."""
    try:
        p = subprocess.run([exe, cmd[0], target, *cmd[1:]], capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, b"", f"timed out after {TIMEOUT} s"
    except OSError as e:
        return None, b"", f"could not start: {e}"
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def first_difference(a, b):
    """The first differing line of two outputs, as a message."""
    la, lb = a.splitlines(keepends=True), b.splitlines(keepends=True)
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else None
        y = lb[i] if i < len(lb) else None
        if x != y:
            def show(line):
                return "(no line)" if line is None else repr(line.decode("utf-8", "replace"))[:300]
            return f"line {i + 1}: local {show(x)} / remote {show(y)}"
    return "identical"


def models(corpus, limit):
    """(relpath under the served root, local path) of the testdata models and a corpus sample."""
    out = [(os.path.join("testdata", os.path.relpath(p, os.path.join(ROOT, "testdata"))), p)
           for p in sorted(glob.glob(os.path.join(ROOT, "testdata", "**", "*.onnx"), recursive=True))]
    if corpus and os.path.isdir(corpus):
        found = sorted(glob.glob(os.path.join(corpus, "**", "*.onnx"), recursive=True))
        out += [(os.path.join("corpus", os.path.relpath(p, corpus)), p) for p in spread(found, limit)]
    return out


def generate(root):
    """Models over the CLI's first read (every model of testdata/ and the corpus fits in it), written under
    root/generated/ with python3-onnx: (relpath, path) of each, [] without python3-onnx.
      many_tensors.onnx           300 initializers of 8 KiB inline: their headers sit between payloads
      many_tensors_external.onnx  the same, the payloads in many_tensors_external.weights
      big_typed.onnx              one initializer of 300,000 floats in float_data (packed), not raw_data"""
    try:
        import numpy as np
        import onnx
        from onnx import TensorProto, helper
    except ImportError as e:
        print(f"generated models: not made ({e})")
        return []
    out_dir = os.path.join(root, "generated")
    os.makedirs(out_dir)
    rng = np.random.default_rng(7)

    def model(inits, n):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [n])
        y = helper.make_tensor_value_info(f"y{len(inits)}", TensorProto.FLOAT, [n])
        nodes = [helper.make_node("Add", [f"y{i}" if i else "x", t.name], [f"y{i + 1}"], name=f"add{i}")
                 for i, t in enumerate(inits)]
        g = helper.make_graph(nodes, "generated", [x], [y], initializer=inits)
        return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="remote_oracle")

    def raw(name, n):
        return helper.make_tensor(name, TensorProto.FLOAT, [n], rng.standard_normal(n).astype(np.float32).tobytes(),
                                  raw=True)

    many = model([raw(f"w{i}", 2048) for i in range(300)], 2048)
    onnx.save(many, os.path.join(out_dir, "many_tensors.onnx"))
    onnx.save(many, os.path.join(out_dir, "many_tensors_external.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="many_tensors_external.weights", size_threshold=0)
    typed = helper.make_tensor("w0", TensorProto.FLOAT, [300000], rng.standard_normal(300000).astype(np.float32))
    onnx.save(model([typed], 300000), os.path.join(out_dir, "big_typed.onnx"))
    names = ["many_tensors.onnx", "many_tensors_external.onnx", "big_typed.onnx"]
    return [(os.path.join("generated", n), os.path.join(out_dir, n)) for n in names]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--onnxview", required=True)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata")
    ap.add_argument("--limit", type=int, default=40, help="corpus models spread over it (0: all)")
    args = ap.parse_args()
    exe = os.path.abspath(args.onnxview)

    reason = skip_reason()
    if reason:
        print(f"SKIP: {reason}")
        return SKIP
    commands = list(COMMANDS)
    if subprocess.run([exe, "hash", "--help"], capture_output=True, timeout=TIMEOUT).returncode != 0:
        print("hash: not in this build, not compared")
        commands.remove(["hash"])
    todo = models(os.path.abspath(args.corpus), args.limit)
    if not todo:
        print(f"SKIP: no .onnx under {ROOT}/testdata or {args.corpus}")
        return SKIP

    # The served root: symlinks to testdata/ and the corpus (nginx follows
    # them), so that a model's URL has its external files beside it.
    root = tempfile.mkdtemp(prefix="onnxview-remote-")
    try:
        os.symlink(os.path.join(ROOT, "testdata"), os.path.join(root, "testdata"))
        if os.path.isdir(args.corpus):
            os.symlink(os.path.abspath(args.corpus), os.path.join(root, "corpus"))
        todo += generate(root)
        with Nginx(root) as web:
            return compare_all(exe, web, commands, todo)
    finally:
        shutil.rmtree(root, ignore_errors=True)


MISSING_EXTERNAL = [
    (b"the file callbacks failed (No such file or directory) [callback_failed]",
     b"cannot resolve the path (No such file or directory) [io_resolve_failed]"),
    (b'"problem": "callback_failed"', b'"problem": "io_resolve_failed"'),
]


def compare_all(exe, web, commands, todo):
    code, out, err = run(exe, ["info"], web.url(todo[0][0]))
    if NO_REMOTE in err or NO_REMOTE in out.decode("utf-8", "replace"):
        print(f"SKIP: {exe} is built {NO_REMOTE} ({err.strip().splitlines()[0] if err.strip() else 'no message'})")
        return SKIP

    checks = Checks()
    redirected = {rel for rel, _ in todo[:1] + spread(todo[1:], REDIRECTED - 1)}
    # Those with external weights: always through the redirect too.
    redirected |= {rel for rel, _ in todo if os.path.basename(rel) in ("small_cnn.onnx", "many_tensors_external.onnx")}
    web.clear_logs()
    for rel, local in todo:
        vias = ["origin", "redirect"] if rel in redirected else ["origin"]
        for cmd in commands:
            lcode, lout, lerr = run(exe, cmd, local)
            lout = lout.replace(local.encode(), b"MODEL")
            for via in vias:
                url = web.url(rel, via)
                rcode, rout, rerr = run(exe, cmd, url)
                rout = rout.replace(url.encode(), b"MODEL")
                # A missing external file: locally the path does not resolve,
                # remotely the server answers 404 through the resolver's
                # callbacks. The same errno; the code names the other route.
                for remote_words, local_words in MISSING_EXTERNAL:
                    rout = rout.replace(remote_words, local_words)
                what = f"onnxview {' '.join(cmd)} {rel} ({via}): "
                if lcode is None or rcode is None:
                    checks.check(False, what + f"local: {lerr if lcode is None else 'ran'}, "
                                 f"remote: {rerr if rcode is None else 'ran'}")
                elif lcode != rcode:
                    checks.check(False, what + f"exit {lcode} local, {rcode} remote; remote stderr: "
                                 + (rerr.strip().splitlines() or ["(empty)"])[0][:300])
                elif lout != rout:
                    checks.check(False, what + "stdout differs at " + first_difference(lout, rout))
                else:
                    checks.check(True, what)

    # What the remote runs asked for, for whoever tunes the reads (not checked).
    log = web.log_lines("origin") + web.log_lines("cdn")
    by_status = {}
    for e in log:
        by_status[e["status"]] = by_status.get(e["status"], 0) + 1
    size = sum(os.path.getsize(local) for _, local in todo)
    print(f"{len(todo)} models ({size} bytes), {len(commands)} commands: {len(log)} requests, "
          f"{sum(e['bytes'] for e in log)} bytes served, statuses {dict(sorted(by_status.items()))}")
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
