#!/usr/bin/python3
"""Checks `onnxview diff --git` and `onnxview hash --textconv` inside a real git repository.

  git_oracle.py --onnxview BUILD/tools/onnxview

In a temporary repository, with diff.onnx.command "onnxview diff --git" and
`*.onnx diff=onnx` in .gitattributes: testdata/small_cnn_inline.onnx is
committed, then again with pool1's strides changed by python3-onnx, then a
second model added and the first removed. `git diff` between the commits
must print onnxview's header and the attribute line (exit 0), `model added`
and `model removed` for the last commit. With diff.onnx.textconv "onnxview
hash --textconv" instead, `git log -p` must show the node's line removed and
added, and a commit that only re-encodes the weights (float_data for
raw_data) must show no line of the model changed; a rename gives git's nine
arguments, and the header names both paths; with external data, which
git does not hand over with an old blob, the weights are compared by type
and shape and the report says so. Also: --git with a wrong number of
arguments is a usage error (exit 2).

Exits 77 (skipped) when git or python3-onnx is absent.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def git(repo, *args):
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", HOME=repo, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t", GIT_PAGER="cat")
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, env=env)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxview", required=True)
    args = ap.parse_args()
    onnxview = os.path.abspath(args.onnxview)
    if shutil.which("git") is None:
        return SKIP
    try:
        import onnx
        import onnx.numpy_helper
    except ImportError:
        return SKIP
    failures = []
    with tempfile.TemporaryDirectory() as repo:
        git(repo, "init", "-q")
        git(repo, "config", "diff.onnx.command", f"{onnxview} diff --git")
        with open(os.path.join(repo, ".gitattributes"), "w") as f:
            f.write("*.onnx diff=onnx\n")
        model = onnx.load(os.path.join(ROOT, "testdata", "small_cnn_inline.onnx"))
        path = os.path.join(repo, "model.onnx")
        onnx.save(model, path)
        git(repo, "add", ".")
        git(repo, "commit", "-qm", "one")
        for n in model.graph.node:
            if n.name == "pool1":
                for a in n.attribute:
                    if a.name == "strides":
                        a.ints[:] = [1, 1]
        onnx.save(model, path)
        git(repo, "commit", "-qam", "two")
        r = git(repo, "diff", "HEAD~1", "HEAD")
        want = ["onnxview diff a/model.onnx b/model.onnx",
                "graph",
                "  graph: node 'pool1': attribute strides: [2, 2] -> [1, 1]",
                "0 signature, 1 graph, 0 weight changes"]
        if r.returncode != 0 or r.stdout.splitlines() != want:
            failures.append(f"git diff: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")

        # Another model, so that git sees no rename (nine arguments: below).
        onnx.save(onnx.load(os.path.join(ROOT, "testdata", "sparse.onnx")), os.path.join(repo, "other.onnx"))
        git(repo, "rm", "-q", "model.onnx")
        git(repo, "add", "other.onnx")
        git(repo, "commit", "-qm", "three")
        r = git(repo, "diff", "HEAD~1", "HEAD")
        for line in ("model added: other.onnx", "model removed: model.onnx"):
            if line not in r.stdout.splitlines() or r.returncode != 0:
                failures.append(f"git diff, add and remove: no '{line}' in {r.stdout!r} {r.stderr!r}")

        # textconv: the same history as lines, in git log -p.
        git(repo, "config", "--unset", "diff.onnx.command")
        git(repo, "config", "diff.onnx.textconv", f"{onnxview} hash --textconv")
        r = git(repo, "log", "-p", "--format=commit %s")
        old = ("-graph: node 'pool1' MaxPool ['relu1'] -> ['pool1'] kernel_shape=[2, 2] strides=[2, 2]")
        new = ("+graph: node 'pool1' MaxPool ['relu1'] -> ['pool1'] kernel_shape=[2, 2] strides=[1, 1]")
        lines = r.stdout.splitlines()
        if r.returncode != 0 or old not in lines or new not in lines:
            failures.append(f"git log -p with textconv: exit {r.returncode}, {r.stdout[:600]!r} {r.stderr!r}")
        changed = [l for l in lines if l and l[0] in "+-" and not l.startswith(("+++", "---"))]
        digest_lines = [l for l in changed if l[1:].startswith("digest ")]
        if r.returncode == 0 and (len(digest_lines) < 2):
            failures.append(f"git log -p with textconv: digest lines {digest_lines}")

        # Re-encoding is layout: no line of the textconv changes (typed
        # float_data instead of raw_data for every FLOAT initializer).
        cnn = os.path.join(repo, "cnn.onnx")
        shutil.copy(os.path.join(ROOT, "testdata", "small_cnn_inline.onnx"), cnn)
        git(repo, "add", "cnn.onnx")
        git(repo, "commit", "-qm", "four")
        m = onnx.load(cnn)
        for t in m.graph.initializer:
            if t.data_type == onnx.TensorProto.FLOAT and t.raw_data:
                values = onnx.numpy_helper.to_array(t).reshape(-1).tolist()
                t.ClearField("raw_data")
                t.float_data[:] = values
        onnx.save(m, cnn)
        git(repo, "commit", "-qam", "typed")
        r = git(repo, "log", "-p", "-1", "--format=commit %s", "--", "cnn.onnx")
        body = [l for l in r.stdout.splitlines() if l and l[0] in "+-@" and not l.startswith(("+++", "---"))]
        if r.returncode != 0 or body or not r.stdout.startswith("commit typed"):
            failures.append(f"re-encoded under textconv: git exit {r.returncode}, {r.stdout[:300]!r} {r.stderr[:300]!r}")

        # External data: git hands over the old blob alone, so its weights
        # are compared by type and shape, and the report says so.
        git(repo, "config", "--unset", "diff.onnx.textconv")
        git(repo, "config", "diff.onnx.command", f"{onnxview} diff --git")
        for f in ("small_cnn.onnx", "small_cnn.weights"):
            shutil.copy(os.path.join(ROOT, "testdata", f), os.path.join(repo, f))
        git(repo, "add", ".")
        git(repo, "commit", "-qm", "external")
        ext = onnx.load(os.path.join(repo, "small_cnn.onnx"), load_external_data=False)
        for n in ext.graph.node:
            for a in n.attribute:
                if n.name == "pool1" and a.name == "strides":
                    a.ints[:] = [1, 1]
        onnx.save(ext, os.path.join(repo, "small_cnn.onnx"))
        git(repo, "commit", "-qam", "external changed")
        r = git(repo, "diff", "HEAD~1", "HEAD")
        want = ["onnxview diff a/small_cnn.onnx b/small_cnn.onnx", "model",
                "  weights compared by type and shape only: the external data of 'a/small_cnn.onnx' is not there "
                "(git hands over the model alone)",
                "graph", "  graph: node 'pool1': attribute strides: [2, 2] -> [1, 1]",
                "0 signature, 1 graph, 0 weight changes"]
        if r.returncode != 0 or r.stdout.splitlines() != want:
            failures.append(f"git diff with external data: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")

        # A rename: git gives nine arguments, the header names both paths.
        git(repo, "mv", "other.onnx", "moved.onnx")
        git(repo, "commit", "-qm", "five")
        r = git(repo, "diff", "-M", "HEAD~1", "HEAD")
        if r.returncode != 0 or "onnxview diff a/other.onnx b/moved.onnx" not in r.stdout.splitlines():
            failures.append(f"git diff of a rename: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")

    r = subprocess.run([onnxview, "diff", "--git", "a", "b", "c"], capture_output=True, text=True)
    if r.returncode != 2 or "seven arguments" not in r.stderr:
        failures.append(f"--git with 3 arguments: exit {r.returncode}, {r.stderr!r}")
    for f in failures:
        print("FAIL", f)
    print("git_oracle:", "fail" if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
