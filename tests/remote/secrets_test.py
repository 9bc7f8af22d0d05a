#!/usr/bin/python3
"""No command prints a URL's credentials or query.

  secrets_test.py --onnxview BUILD/tools/onnxview

A presigned URL carries its signature in the query string, and a URL may
carry user:password@: both must stay out of everything a command writes
(stdout, reports, error lines), which CI logs and SARIF uploads keep. Every
read-only command runs on testdata/small_cnn.onnx (external weights beside
it) served by nginx on loopback, through such a URL, in its text and JSON
forms and in a few failing forms (a tensor that is not there, a model that
does not parse): the secrets never appear, and where a command names its
file it names the URL without them.

Exits 77 (skipped) when nginx is absent or the CLI was built without remote
support.
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "oracle"))
sys.path.insert(0, HERE)
from common import ROOT, SKIP, Checks  # noqa: E402
from servers import Nginx, cli_arguments  # noqa: E402

SECRETS = ("s3cr3tsig", "AKIDEXAMPLE", "hunter2", "frag-token")
QUERY = "?X-Amz-Signature=s3cr3tsig&X-Amz-Credential=AKIDEXAMPLE%2F20261207#frag-token"


def run(exe, args):
    p = subprocess.run([exe, *args], capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def main():
    a = cli_arguments(__doc__.splitlines()[0])
    if a is None:
        return SKIP
    root = tempfile.mkdtemp(prefix="onnxview-secrets-")
    try:
        for name in ("small_cnn.onnx", "small_cnn.weights"):
            shutil.copy(os.path.join(ROOT, "testdata", name), os.path.join(root, name))
        with open(os.path.join(root, "not_a_model.onnx"), "wb") as f:
            f.write(b"\xff" * 100)
        c = Checks()
        with Nginx(root) as web:
            plain = web.url("small_cnn.onnx")
            secret = plain.replace("://", "://alice:hunter2@", 1) + QUERY
            broken = web.url("not_a_model.onnx").replace("://", "://alice:hunter2@", 1) + QUERY
            r = run(a.onnxview, ["info", secret])
            if r[0] == 2 and "without remote support" in r[2]:
                print("skipped: the CLI was built without remote support")
                return SKIP
            runs = [
                (["info", secret], plain),
                (["info", secret, "--json"], plain),
                (["--stats", "info", secret], None),
                (["--stats=json", "info", secret], None),
                (["check", secret], None),
                (["check", secret, "--json"], plain),
                (["check", secret, "--sarif"], None),
                (["check", secret, "--numeric"], None),
                (["stats", secret, "--json"], plain),
                (["dump", secret], None),
                (["tensor", secret, "no_such_tensor"], plain),
                (["doctor", secret], plain),
                (["doctor", secret, "--json"], plain),
                (["hash", secret], None),
                (["hash", secret, "--manifest"], plain),
                (["profile", secret, "--json"], None),
                (["graph", secret, "--format", "html"], None),
                (["graph", secret, "--within", "no/such/scope"], plain),
                (["diff", secret, secret], None),
                (["diff", secret, secret, "--json"], None),
                (["info", broken], None),
                (["check", broken, "--json"], None),
                (["dump", broken], None),
                (["info", secret.replace("small_cnn", "absent")], None),
            ]
            for args, names in runs:
                rc, out, err = run(a.onnxview, args)
                what = "onnxview " + " ".join(x.replace(secret, "URL").replace(broken, "BROKEN") for x in args)
                c.check(rc in (0, 1, 2), f"{what}: exit {rc} (0, 1 or 2)")
                for s in SECRETS:
                    c.check(s not in out, f"{what}: '{s}' is not on stdout")
                    c.check(s not in err, f"{what}: '{s}' is not on stderr ({err.strip()[:200]})")
                c.check("alice" not in out + err, f"{what}: the user name is not printed")
                if names:
                    c.check(names in out + err, f"{what}: names the file as {names}")
        return c.finish()
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
