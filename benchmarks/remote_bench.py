#!/usr/bin/env python3
"""A shuffled epoch over HTTP on localhost (nginx), with a cold and a warm
page cache, against the same local read: seconds, requests per epoch and
bytes fetched per byte used, per shuffle mode.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/remote_bench.py [--rows N] [--row-bytes B]
        [--page-size P] [--no-checksums] [--block-bytes B]

"Bytes used" is what the epoch reads: every row's stored bytes once (the
shards' used page bytes). Cold: a fresh cache folder and nothing in memory;
warm: the same folder, nothing in memory (a new process's view). Prints the
machine's load first: the numbers are only comparable at the same load.
"""
import argparse
import os
import shutil
import socket
import subprocess
import tempfile
import time

import numpy as np

import mindrecord
from mindrecord import _core


def start_nginx(root, scratch):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    conf = ("%sdaemon off;\nmaster_process off;\nworker_processes 1;\npid %s/nginx.pid;\nerror_log %s/error.log;\n"
            "events { worker_connections 256; }\nhttp {\n  access_log off;\n  client_body_temp_path %s/b;\n"
            "  proxy_temp_path %s/p;\n  fastcgi_temp_path %s/f;\n  uwsgi_temp_path %s/u;\n  scgi_temp_path %s/s;\n"
            "  server { listen 127.0.0.1:%d; root %s; }\n}\n"
            % ("user root;\n" if os.geteuid() == 0 else "", scratch, scratch, scratch, scratch, scratch, scratch,
               scratch, port, root))
    with open(os.path.join(scratch, "nginx.conf"), "w") as f:
        f.write(conf)
    proc = subprocess.Popen(["nginx", "-p", scratch, "-c", os.path.join(scratch, "nginx.conf"), "-e",
                             os.path.join(scratch, "error.log")])
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return proc, "http://127.0.0.1:%d" % port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("nginx did not start")


def epoch(path, mode, remote):
    ds = mindrecord.MindDataset(path, shuffle=mode, seed=3, num_parallel_workers=2, remote=remote)
    ds = ds.batch(256)
    rows = 0
    t = time.perf_counter()
    for b in ds.create_dict_iterator(output_numpy=True):
        rows += len(b["id"])
    return time.perf_counter() - t, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--row-bytes", type=int, default=1024)
    ap.add_argument("--page-size", type=int, default=1 << 20)
    ap.add_argument("--no-checksums", action="store_true")
    ap.add_argument("--block-bytes", type=int, default=1 << 20)
    args = ap.parse_args()
    print("load:", open("/proc/loadavg").read().split()[:3])
    work = tempfile.mkdtemp(prefix="mr-remote-bench-")
    try:
        root = os.path.join(work, "www")
        os.makedirs(root)
        path = os.path.join(root, "bench")
        w = mindrecord.FileWriter(path, 2, checksums=not args.no_checksums)
        w.add_schema({"id": {"type": "int64"}, "data": {"type": "bytes"}}, "bench")
        w.set_page_size(args.page_size)
        w.set_header_size(1 << 16)
        rng = np.random.default_rng(0)
        for start in range(0, args.rows, 5000):
            w.write_raw_data([{"id": i, "data": rng.bytes(args.row_bytes)}
                              for i in range(start, min(args.rows, start + 5000))])
        w.commit()
        # The pages (each file less its 64 KiB header): the rows' stored bytes.
        used = sum(os.path.getsize(os.path.join(root, s)) - (1 << 16) for s in ("bench0", "bench1"))
        scratch = os.path.join(work, "nginx")
        os.makedirs(scratch)
        proc, url = start_nginx(root, scratch)
        try:
            print("| shuffle | local s | cold s | cold requests | cold fetched/used | warm s | warm requests |")
            print("|---|---|---|---|---|---|---|")
            for mode in (False, mindrecord.Shuffle.FILES, mindrecord.Shuffle.PARTIAL, mindrecord.Shuffle.GLOBAL):
                local_s, n = epoch(os.path.join(root, "bench0"), mode, None)
                cache = os.path.join(work, "cache-%s" % mode)
                remote = {"cache_dir": cache, "block_bytes": args.block_bytes}
                _core.drop_remote_memory()
                c0 = _core.remote_counters()
                cold_s, n2 = epoch(url + "/bench0", mode, remote)
                c1 = _core.remote_counters()
                _core.drop_remote_memory()
                warm_s, n3 = epoch(url + "/bench0", mode, remote)
                c2 = _core.remote_counters()
                assert n == n2 == n3 == args.rows
                print("| %s | %.3f | %.3f | %d | %.2f | %.3f | %d |" % (
                    mode if mode is not False else "none", local_s, cold_s, c1["requests"] - c0["requests"],
                    (c1["bytes_fetched"] - c0["bytes_fetched"]) / used, warm_s, c2["requests"] - c1["requests"]))
        finally:
            proc.terminate()
            proc.wait()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
