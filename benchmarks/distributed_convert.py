#!/usr/bin/python3
"""Distributed convert: an ImageFolder of JPEGs converted by 1, 2 and 4
(oversubscribed) mpirun ranks, against one process without ranks.

For each configuration, the median of --runs runs: wall seconds (process
start to exit, mpirun's start-up included), convert seconds (rank 0's
`convert --json` "seconds": planning, the ranks' exchanges, writing and
finishing the dataset), MB/s over the convert seconds, MB/s per rank (payload
bytes a rank converted / the seconds its shards took, `--json`'s "ranks") and
the ratio of the convert throughput to the one-process run. Every run writes the same bytes (the script checks it). Not part of
run.sh's default workloads: it needs mpirun and a few minutes.

usage: /usr/bin/python3 benchmarks/distributed_convert.py [--images 20000] [--shards 4] [--workers 1]
       [--ranks 1,2,4] [--runs 3] [--bind none] [--work /tmp/mr_dist_bench] [--cli build/mindrecord]
"""
import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import time


def make_folder(root, images, seed=1):
    """`images` random JPEGs in 100 classes: 9 in 10 of 96x96, 1 in 10 of
    384x288 (inputs of mixed sizes, as real folders are)."""
    import numpy as np
    from PIL import Image
    marker = os.path.join(root, ".complete-%d" % images)
    if os.path.exists(marker):
        return
    shutil.rmtree(root, ignore_errors=True)
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 255, (288, 384, 3), dtype=np.uint8)
    for i in range(images):
        cls = os.path.join(root, "c%03d" % (i % 100))
        os.makedirs(cls, exist_ok=True)
        h, w = (288, 384) if i % 10 == 9 else (96, 96)
        y, x = rng.integers(0, 288 - h + 1), rng.integers(0, 384 - w + 1)
        Image.fromarray(base[y:y + h, x:x + w]).save(os.path.join(cls, "%06d.jpg" % i), quality=90)
    open(marker, "w").close()


def run(cmd, env=None):
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    return time.perf_counter() - t0, out.stdout


def same_files(a, b):
    names = sorted(os.listdir(a))
    return names == sorted(os.listdir(b)) and all(filecmp.cmp(os.path.join(a, n), os.path.join(b, n), shallow=False)
                                                  for n in names)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--images", type=int, default=20000)
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--workers", type=int, default=1, help="convert threads per rank")
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bind", default="none", help="mpirun --bind-to (none, core, ...)")
    ap.add_argument("--work", default="/tmp/mr_dist_bench")
    ap.add_argument("--cli", default=os.path.join(os.path.dirname(__file__), "..", "build", "mindrecord"))
    a = ap.parse_args()
    src = os.path.join(a.work, "images")
    make_folder(src, a.images)
    env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none")
    common = ["convert", "imagefolder", src, None, "--shards", str(a.shards), "--workers", str(a.workers),
              "--json"]
    print("load before: %s" % open("/proc/loadavg").read().strip())
    configs = [("one process", 0)] + [("mpirun -n %s" % w, int(w)) for w in a.ranks.split(",")]
    samples = {label: [] for label, _ in configs}
    outputs = {}
    # Configurations take turns, so that a change in the machine's load
    # touches them all alike.
    for _ in range(a.runs):
        for label, ranks in configs:
            out_dir = os.path.join(a.work, "out-%d" % ranks)
            args = [a.cli] + common
            args[args.index(None)] = os.path.join(out_dir, "data")
            if ranks:
                # mpirun binds each of up to 2 ranks to one core by default, which
                # starves a rank's writer, index and I/O threads (see README).
                args = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", a.bind, "-n", str(ranks)] + args
            shutil.rmtree(out_dir, ignore_errors=True)
            os.makedirs(out_dir)
            subprocess.run(["sync"], check=True)
            wall, stdout = run(args, env)
            report = json.loads(stdout)
            mb = report["bytes"] / 1e6
            per_rank = [r["bytes"] / 1e6 / r["seconds"] for r in report["ranks"] if r["seconds"] > 0]
            samples[label].append((report["seconds"], wall, sum(per_rank) / len(per_rank)))
            outputs[label] = out_dir
    rows = []
    for label, ranks in configs:
        runs = sorted(samples[label])
        seconds, wall, per = runs[len(runs) // 2]
        rows.append((label, ranks or 1, wall, seconds, mb / seconds, per))
    base = rows[0][4]
    print("%d images, %.0f MB, %d shards, %d worker thread(s) per rank, %d cores, mpirun --bind-to %s, "
          "medians of %d runs" % (a.images, mb, a.shards, a.workers, os.cpu_count(), a.bind, a.runs))
    print("| run | ranks | wall s | convert s | MB/s | MB/s per rank | vs one process |")
    print("|---|---|---|---|---|---|---|")
    for label, ranks, wall, seconds, mbps, per in rows:
        print("| %s | %d | %.2f | %.2f | %.0f | %.0f | %.2fx |" % (label, ranks, wall, seconds, mbps, per, mbps / base))
    print("load after: %s" % open("/proc/loadavg").read().strip())
    first = outputs["one process"]
    for label, d in outputs.items():
        if not same_files(first, d):
            print("FAIL: %s wrote other bytes than one process" % label)
            return 1
    print("every run wrote the same bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
