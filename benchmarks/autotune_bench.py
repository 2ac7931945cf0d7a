#!/usr/bin/env python3
"""Autotune vs hand-picked worker counts (issue 23 item 1), as ratios measured
in the same invocation.

For each CPU set (taskset -c 0, then -c 0,1) a child process runs, in turn
per round, MindDataset with num_parallel_workers = 1, 2, 3, 4 and with
mindrecord.config.set_enable_autotune(True) (starting at the default worker
count, min(4, os.cpu_count())), on two workloads:

  records: ~1 KiB text records + int label, shuffled, batch 256, numpy out
  images:  JPEGs (640x480), Decode + RandomResizedCrop(224) + flip +
           Normalize + HWC2CHW, batch 32

Each figure is the median rows/s of --runs rounds (configurations
interleaved within a round, so load drift hits all alike). The report gives
autotune / best hand-picked and autotune / default, the settings autotune
ended with and its last decisions, and the load average before and after.

usage: PYTHONPATH=build/python python3 benchmarks/autotune_bench.py [--records N] [--images N] [--runs R]
       [--out benchmarks/results/AUTOTUNE.md]
"""
import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HAND = (1, 2, 3, 4)
CPU_SETS = ("0", "0,1")


def make_records(path, n):
    import mindrecord
    w = mindrecord.FileWriter(path, overwrite=True)
    w.add_schema({"id": {"type": "int64"}, "label": {"type": "int32"}, "text": {"type": "string"}})
    text = "x" * 1000
    for start in range(0, n, 10000):
        w.write_raw_data([{"id": i, "label": i % 1000, "text": text} for i in range(start, min(n, start + 10000))])
    w.commit()


def make_images(path, n):
    import mindrecord
    from PIL import Image
    rng = np.random.RandomState(0)
    base = (np.add.outer(np.arange(480), np.arange(640)) % 256).astype(np.uint8)
    w = mindrecord.FileWriter(path, overwrite=True)
    w.add_schema({"image": {"type": "bytes"}, "label": {"type": "int32"}})
    rows = []
    for i in range(n):
        px = np.stack([base, np.roll(base, i, 1), rng.randint(0, 256, (480, 640), dtype=np.uint8)], -1)
        buf = io.BytesIO()
        Image.fromarray(px).save(buf, "JPEG", quality=85)
        rows.append({"image": buf.getvalue(), "label": i % 10})
    w.write_raw_data(rows)
    w.commit()


def dataset(kind, path, workers):
    import mindrecord
    from mindrecord import vision
    if kind == "records":
        return mindrecord.MindDataset(path, columns_list=["id", "label"], num_parallel_workers=workers,
                                      shuffle=True, seed=1).batch(256)
    ds = mindrecord.MindDataset(path, columns_list=["image", "label"], num_parallel_workers=workers, shuffle=True,
                                seed=1)
    ops = [vision.Decode(), vision.RandomResizedCrop(224), vision.RandomHorizontalFlip(),
           vision.Normalize([123.675, 116.28, 103.53], [58.395, 57.12, 57.375]), vision.HWC2CHW()]
    return ds.map(ops, input_columns=["image"], num_parallel_workers=workers).batch(32)


def one_run(kind, path, workers, autotune):
    """rows/s of one epoch, and the pipeline's stats."""
    from mindrecord import config
    config.set_enable_autotune(autotune)
    try:
        ds = dataset(kind, path, workers)
    finally:
        config.set_enable_autotune(False)
    it = ds.create_tuple_iterator(num_epochs=1, output_numpy=True)
    t0 = time.perf_counter()
    rows = 0
    for batch in it:
        rows += len(batch[0])
    secs = time.perf_counter() - t0
    return rows / secs, it.stats()


def child(args):
    default = min(4, os.cpu_count() or 1)
    out = {"cpus": sorted(os.sched_getaffinity(0)), "default": default, "workloads": {}}
    for kind, path in (("records", args.records_path), ("images", args.images_path)):
        rates = {str(w): [] for w in HAND}
        rates["autotune"] = []
        last = None
        for _ in range(args.runs):
            for w in HAND:
                rates[str(w)].append(one_run(kind, path, w, False)[0])
            rate, stats = one_run(kind, path, default, True)
            rates["autotune"].append(rate)
            last = stats
        med = {k: statistics.median(v) for k, v in rates.items()}
        spread = {k: (max(v) - min(v)) / statistics.median(v) for k, v in rates.items()}
        out["workloads"][kind] = {"median": med, "spread": spread, "autotune": last.get("autotune"),
                                  "num_workers": last["num_workers"], "queue_depth": last["queue_depth"]}
    print(json.dumps(out))


def loadavg():
    return open("/proc/loadavg").read().split()[:3]


def report(results, runs, before, after):
    lines = ["# Autotune vs hand-picked worker counts", "",
             "`benchmarks/autotune_bench.py`: MindDataset through Python (numpy out), one epoch per figure, "
             "median of %d rounds (configurations interleaved within a round). Machine: the project's "
             "shared 2-core VM, **busy** (other sessions building): load average %s before, %s after. "
             "Ratios are measured in the same invocation; absolute rows/s are noisy." % (
                 runs, " ".join(before), " ".join(after)), ""]
    for r in results:
        lines.append("## taskset -c %s (default num_parallel_workers = %d)" % (
            ",".join(map(str, r["cpus"])), r["default"]))
        lines.append("")
        lines.append("| workload | 1 | 2 | 3 | 4 | autotune | autotune / best hand-picked | autotune / default "
                     "| autotune ended with |")
        lines.append("|---|---|---|---|---|---|---|---|---|")
        for kind, w in r["workloads"].items():
            med = w["median"]
            best_k = max((str(k) for k in HAND), key=lambda k: med[k])
            at = w["autotune"] or {}
            lines.append("| %s | %s | %.0f | %.2fx (best: %s) | %.2fx | %d workers, queue_depth %d, %d changes |" % (
                kind, " | ".join("%.0f" % med[str(k)] for k in HAND), med["autotune"],
                med["autotune"] / med[best_k], best_k, med["autotune"] / med[str(r["default"])],
                w["num_workers"], w["queue_depth"], at.get("changes", 0)))
        lines.append("")
        for kind, w in r["workloads"].items():
            decisions = (w["autotune"] or {}).get("decisions", [])
            lines.append("%s, last run's decisions: %s" % (kind, "; ".join(decisions[-6:]) or "none"))
            lines.append("")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=100000)
    ap.add_argument("--images", type=int, default=300)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=None)
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--records-path")
    ap.add_argument("--images-path")
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    with tempfile.TemporaryDirectory(prefix="mr_autotune_") as work:
        args.records_path = os.path.join(work, "records.mindrecord")
        args.images_path = os.path.join(work, "images.mindrecord")
        make_records(args.records_path, args.records)
        make_images(args.images_path, args.images)
        before = loadavg()
        results = []
        for cpus in CPU_SETS:
            cmd = ["taskset", "-c", cpus, sys.executable, os.path.abspath(__file__), "--child", "--runs",
                   str(args.runs), "--records-path", args.records_path, "--images-path", args.images_path]
            res = subprocess.run(cmd, check=True, capture_output=True, text=True)
            results.append(json.loads(res.stdout.strip().splitlines()[-1]))
        after = loadavg()
    text = report(results, args.runs, before, after)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
