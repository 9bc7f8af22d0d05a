#!/usr/bin/env python3
"""Remote reading against downloading, over HTTP with added latency: nginx on
loopback behind a proxy that delays every chunk by half the round trip in
each direction (20 ms round trips by default), `onnxview --stats info URL`
against `curl -o /dev/null URL` of the same file, and against what reading
the model otherwise takes: downloading it (`curl -o FILE URL`) and running
`onnxview info FILE`. Prints a Markdown table.

Usage: bench/remote_latency.py ONNXVIEW MODEL... [--rtt-ms 20] [--runs 3]
(default models: bench/cache/weights.onnx and meta.onnx)
"""
import argparse
import asyncio
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "remote"))
from servers import Nginx  # noqa: E402


def start_delay_proxy(target_port, delay):
    """A TCP proxy on 127.0.0.1 adding `delay` seconds to each chunk, each way; returns its port."""
    ready = threading.Event()
    port = []

    async def pipe(reader, writer):
        # Each chunk leaves `delay` after it arrived; reading goes on
        # meanwhile, so the delay adds latency, not a limit on throughput.
        loop = asyncio.get_running_loop()
        queue = asyncio.Queue()

        async def send():
            while True:
                due, data = await queue.get()
                if data is None:
                    break
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                writer.write(data)
                await writer.drain()
            writer.close()

        sender = asyncio.ensure_future(send())
        try:
            while True:
                data = await reader.read(1 << 16)
                await queue.put((loop.time() + delay, data or None))
                if not data:
                    break
        except (ConnectionError, asyncio.CancelledError):
            await queue.put((0, None))
        try:
            await sender
        except ConnectionError:
            pass

    async def handle(cr, cw):
        sr, sw = await asyncio.open_connection("127.0.0.1", target_port)
        await asyncio.gather(pipe(cr, sw), pipe(sr, cw))

    async def serve():
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port.append(server.sockets[0].getsockname()[1])
        ready.set()
        async with server:
            await server.serve_forever()

    threading.Thread(target=lambda: asyncio.run(serve()), daemon=True).start()
    ready.wait(10)
    return port[0]


def best_of(runs, argv, shell=False):
    best, err = None, ""
    for _ in range(runs):
        t = time.perf_counter()
        r = subprocess.run(argv, capture_output=True, timeout=600, shell=shell)
        took = time.perf_counter() - t
        if r.returncode != 0:
            sys.exit(f"{argv}: exit {r.returncode}: {r.stderr.decode()[:300]}")
        best = took if best is None else min(best, took)
        err = r.stderr.decode()
    return best, err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onnxview")
    ap.add_argument("models", nargs="*")
    ap.add_argument("--rtt-ms", type=float, default=20)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    models = a.models or [os.path.join(ROOT, "bench", "cache", m) for m in ("weights.onnx", "meta.onnx")]
    root = tempfile.mkdtemp(prefix="onnxview-latency-")
    try:
        for m in models:
            os.symlink(os.path.abspath(m), os.path.join(root, os.path.basename(m)))
        with Nginx(root) as web:
            origin = int(re.search(r":(\d+)/", web.url("x")).group(1))
            proxy = start_delay_proxy(origin, a.rtt_ms / 2000.0)
            print("| model | size | `onnxview info URL` | fetched | requests | `curl -o /dev/null URL` "
                  "| `curl -o FILE URL && onnxview info FILE` |")
            print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
            for m in models:
                url = f"http://127.0.0.1:{proxy}/{os.path.basename(m)}"
                took, err = best_of(a.runs, [a.onnxview, "--stats", "info", url])
                s = re.search(r"fetched (\d+) bytes of (\d+) \(([0-9.]+)%\) in (\d+) requests", err)
                curl, _ = best_of(a.runs, ["curl", "-s", "-o", "/dev/null", url])
                copy = os.path.join(root, "downloaded.onnx")
                then_info, _ = best_of(a.runs, f"curl -s -o {shlex.quote(copy)} {shlex.quote(url)} && "
                                               f"{shlex.quote(a.onnxview)} info {shlex.quote(copy)} >/dev/null", shell=True)
                os.unlink(copy)
                size = os.path.getsize(m)
                print(f"| {os.path.basename(m)} | {size / 1e6:.1f} MB | {took:.2f} s | {int(s.group(1)) / 1e6:.1f} MB "
                      f"({s.group(3)}%) | {s.group(4)} | {curl:.2f} s | {then_info:.2f} s |")
            print(f"\n{a.rtt_ms:g} ms round trips (a proxy delays each chunk), nginx on loopback, best of {a.runs}.")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
