#!/usr/bin/env python3
"""The bytes and requests a remote `onnxview info` may cost, as budgets (not
timings), over nginx on loopback:

  - a model laid out like bench/cache/weights.onnx (750 layers of a 2 MiB
    weight and a 4 KiB bias stored inline, 1.5 GB): at most 2% of the file
    in at most 16 requests, and the same output as the local file;
  - a model of 11 MB of nodes and no weights: fetched whole, in at most 5
    requests (the first bytes, two windows, then one stream for the rest);
  - for both, the bytes nginx sent (its log) are at most those the CLI
    counts plus 8 MiB (a stream left behind has bytes in flight).

The 1.5 GB file is written sparse (its weights are holes of zeros), so it
costs no disk; nginx serves it as any file. Usage: budget_test.py --onnxview PATH
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "oracle"))
from common import SKIP, Checks  # noqa: E402
from servers import Nginx, cli_arguments  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts"))
from protobuf_wire import f_bytes as field_bytes, f_varint as field_varint, tag as key, varint  # noqa: E402

NO_REMOTE = "without remote support"


class Hole:
    """Bytes that are zeros on disk and never written."""

    def __init__(self, size):
        self.size = size


def length(pieces):
    return sum(p.size if isinstance(p, Hole) else len(p) for p in pieces)


def field_message(number, pieces):
    return [key(number, 2) + varint(length(pieces))] + pieces


def tensor(name, dims, payload_bytes):
    head = b"".join(field_varint(1, d) for d in dims) + field_varint(2, 1) + field_bytes(8, name.encode())
    return [head, key(9, 2) + varint(payload_bytes), Hole(payload_bytes)]


def node(op, inputs, outputs, name):
    body = b"".join(field_bytes(1, i.encode()) for i in inputs)
    body += b"".join(field_bytes(2, o.encode()) for o in outputs)
    return field_bytes(1, body + field_bytes(3, name.encode()) + field_bytes(4, op.encode()))


def value_info(name):
    # type { tensor_type { elem_type: FLOAT } }
    return field_bytes(1, name.encode()) + field_bytes(2, field_bytes(1, field_varint(1, 1)))


def model(graph_pieces):
    header = field_varint(1, 8) + field_bytes(2, b"budget_test") + field_bytes(8, field_varint(2, 13))
    return [header] + field_message(7, graph_pieces)


def weights_like(layers):
    """bench/cache/weights.onnx's layout: nodes first, then per layer a 2 MiB weight and a 4 KiB bias."""
    nodes = []
    prev = "x"
    for k in range(layers):
        nodes.append(node("MatMul", [prev, f"w{k}"], [f"m{k}"], f"matmul{k}"))
        nodes.append(node("Add", [f"m{k}", f"b{k}"], [f"y{k}"], f"add{k}"))
        prev = f"y{k}"
    pieces = [b"".join(nodes), field_bytes(2, b"weights")]
    for k in range(layers):
        pieces += field_message(5, tensor(f"w{k}", [512, 1024], 512 * 1024 * 4))
        pieces += field_message(5, tensor(f"b{k}", [1024], 1024 * 4))
    pieces.append(field_bytes(11, value_info("x")))
    pieces.append(field_bytes(12, value_info(prev)))
    return model(pieces)


def nodes_only(count):
    body = b"".join(node("Relu", [f"v{i}"], [f"v{i + 1}"], f"relu_with_a_longer_name_{i}") for i in range(count))
    return model([body, field_bytes(2, b"dense"), field_bytes(11, value_info("v0")),
                  field_bytes(12, value_info(f"v{count}"))])


def write(path, pieces):
    with open(path, "wb") as f:
        for p in pieces:
            if isinstance(p, Hole):
                f.seek(p.size, os.SEEK_CUR)
            else:
                f.write(p)
        f.truncate(f.tell())


STATS = re.compile(r"fetched (\d+) bytes of (\d+) \([0-9.]+%\) in (\d+) requests")


def main():
    args = cli_arguments(__doc__.splitlines()[0])
    if args is None:
        return SKIP
    root = tempfile.mkdtemp(prefix="onnxview-budget-")
    checks = Checks()
    try:
        write(os.path.join(root, "weights.onnx"), weights_like(750))
        write(os.path.join(root, "dense.onnx"), nodes_only(200000))
        budgets = {"weights.onnx": (0.02, 16), "dense.onnx": (1.0, 5)}
        with Nginx(root) as web:
            for name, (share, requests) in budgets.items():
                local = os.path.join(root, name)
                url = web.url(name)
                lr = subprocess.run([args.onnxview, "info", local], capture_output=True, timeout=120)
                web.clear_logs()
                rr = subprocess.run([args.onnxview, "--stats", "info", url], capture_output=True, timeout=120)
                err = rr.stderr.decode("utf-8", "replace")
                if NO_REMOTE in err:
                    print(f"SKIP: {args.onnxview} is built {NO_REMOTE}")
                    return SKIP
                same = lr.returncode == rr.returncode == 0 and \
                    lr.stdout.replace(local.encode(), b"M") == rr.stdout.replace(url.encode(), b"M")
                checks.check(same, f"{name}: info over HTTP differs from the local file's ({err.strip()[:200]})")
                m = STATS.search(err)
                if not checks.check(m is not None, f"{name}: no --stats line in {err!r}"):
                    continue
                fetched, size, made = int(m.group(1)), int(m.group(2)), int(m.group(3))
                print(f"{name}: {size} bytes, fetched {fetched} ({100.0 * fetched / size:.2f}%) in {made} requests")
                checks.check(fetched <= share * size, f"{name}: fetched {fetched} of {size} bytes, over {share:.0%}")
                checks.check(made <= requests, f"{name}: {made} requests, over {requests}")
                log = web.log_lines("origin", at_least=made)
                sent = sum(line["bytes"] for line in log)
                checks.check(len(log) == made and sent <= fetched + 8 * 2**20,
                             f"{name}: nginx sent {sent} bytes in {len(log)} requests, the CLI counts {fetched} in {made}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
