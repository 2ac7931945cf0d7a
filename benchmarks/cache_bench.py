#!/usr/bin/env python3
"""Dataset cache (DatasetCache / the plan's cache node): what caching the
deterministic prefix of an image pipeline buys, as ratios measured in one run.

Workload: N synthetic JPEGs (640x480, noise + gradients, quality 90) in one
MindRecord file; MindDataset(shuffle=True) -> map([Decode, Resize(256)],
cache=DatasetCache(...)) -> map([RandomResizedCrop(224), RandomHorizontalFlip,
Normalize]) -> batch(64).

1. Epoch 2 vs epoch 1 of one job (the first fills the cache, the second is
   served from it).
2. A warm second job (a new process, the cache already full) vs a cold one
   (a new process, the cache empty): their first epochs.
3. Memory: the cache's bytes in /dev/shm (entry files) against the
   configured cap, the job's peak RSS (which counts the mapped dataset's
   pages) and its anonymous memory (RssAnon: buffers, queues, the tensor
   pool) at the end of each epoch.

Each figure is the median of --runs runs (a fresh cache per run). The
ratios are what matter: the machine's load (printed, `uptime`) moves the
absolute numbers.

usage: PYTHONPATH=build/python python3 benchmarks/cache_bench.py [--images N] [--workers W] [--runs R]
"""
import argparse
import io
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

JOB = r"""
import json, resource, sys, time
from mindrecord import DatasetCache, MindDataset, vision
path, cache_dir, workers, epochs, size_mb = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
cache = DatasetCache(session_id="bench", size=size_mb, dir=cache_dir) if cache_dir != "-" else None
ds = MindDataset(path, columns_list=["image", "label"], shuffle=True, seed=1, num_parallel_workers=workers)
ds = ds.map([vision.Decode(), vision.Resize(256)], input_columns=["image"], cache=cache)
ds = ds.map([vision.RandomResizedCrop(224), vision.RandomHorizontalFlip(),
             vision.Normalize([123.7, 116.3, 103.5], [58.4, 57.1, 57.4])], input_columns=["image"])
ds = ds.batch(64)
it = ds.create_tuple_iterator(num_epochs=epochs, output_numpy=True)
def rss_anon_mb():  # RSS less file mappings (the mapped dataset): the job's own memory
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
times, anon = [], 0
for _ in range(epochs):
    t0 = time.perf_counter()
    n = sum(b[0].shape[0] for b in it)
    times.append(n / (time.perf_counter() - t0))
    anon = max(anon, rss_anon_mb())
st = it.stats()
print(json.dumps({"img_s": times, "cache": st.get("cache", [None])[0],
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "anon_mb": anon}))
"""


def make_images(path, n):
    import mindrecord
    from PIL import Image
    w = mindrecord.FileWriter(path, overwrite=True)
    w.add_schema({"image": {"type": "bytes"}, "label": {"type": "int32"}})
    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:480, 0:640]
    rows = []
    for i in range(n):
        base = ((xx * (i % 7 + 1) + yy * (i % 5 + 1)) % 256).astype(np.uint8)
        img = np.stack([base, np.roll(base, i, 0), np.roll(base, i, 1)], -1)
        img = np.clip(img.astype(np.int16) + rng.integers(-20, 20, img.shape), 0, 255).astype(np.uint8)
        buf = io.BytesIO()
        Image.fromarray(img).save(buf, "JPEG", quality=90)
        rows.append({"image": buf.getvalue(), "label": i % 1000})
        if len(rows) == 500:
            w.write_raw_data(rows)
            rows = []
    if rows:
        w.write_raw_data(rows)
    w.commit()


def job(path, cache_dir, workers, epochs, size_mb):
    r = subprocess.run([sys.executable, "-c", JOB, path, cache_dir, str(workers), str(epochs), str(size_mb)],
                       capture_output=True, text=True, check=True, env=dict(os.environ))
    return json.loads(r.stdout.strip().splitlines()[-1])


def shm_bytes(folder):
    total = 0
    for root, _, files in os.walk(folder):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--images", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--size-mb", type=int, default=None,
                    help="the cache's cap (default: room for every row, 0.3 MiB per image + 64 MiB)")
    a = ap.parse_args()
    if a.size_mb is None:
        a.size_mb = int(a.images * 0.3) + 64  # a 256x341 RGB entry is ~0.25 MiB
    tmp = tempfile.mkdtemp(prefix="mr_cache_bench_")
    shm_root = tempfile.mkdtemp(prefix="mr_cache_bench_", dir="/dev/shm")
    try:
        path = os.path.join(tmp, "images.mindrecord")
        make_images(path, a.images)
        print("load before: %s" % os.popen("uptime").read().strip())
        rows = []
        for r in range(a.runs):
            cache_dir = os.path.join(shm_root, "run%d" % r)
            plain = job(path, "-", a.workers, 2, a.size_mb)
            cold = job(path, cache_dir, a.workers, 2, a.size_mb)
            shm = shm_bytes(cache_dir)
            warm = job(path, cache_dir, a.workers, 1, a.size_mb)
            rows.append({"plain_e1": plain["img_s"][0], "cold_e1": cold["img_s"][0], "cold_e2": cold["img_s"][1],
                         "warm_e1": warm["img_s"][0], "shm_mb": shm / 2**20, "rss_mb": cold["rss_mb"],
                         "anon_mb": cold["anon_mb"],
                         "entries": cold["cache"]["entries"], "warm_hits": warm["cache"]["hits"]})
            shutil.rmtree(cache_dir)
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        print("load after:  %s" % os.popen("uptime").read().strip())
        print("images=%d workers=%d runs=%d cap=%d MiB (medians)" % (a.images, a.workers, a.runs, a.size_mb))
        print("| figure | value |")
        print("|---|---|")
        print("| no cache, epoch 1 (img/s) | %.0f |" % med["plain_e1"])
        print("| cached job, epoch 1: fills the cache (img/s) | %.0f |" % med["cold_e1"])
        print("| cached job, epoch 2: served from it (img/s) | %.0f |" % med["cold_e2"])
        print("| **epoch 2 / epoch 1** | **%.2fx** |" % (med["cold_e2"] / med["cold_e1"]))
        print("| warm second job, epoch 1 (img/s) | %.0f |" % med["warm_e1"])
        print("| **warm second job / cold job, first epoch** | **%.2fx** |" % (med["warm_e1"] / med["cold_e1"]))
        print("| cache in /dev/shm (MiB, %d entries) vs cap | %.0f / %d |" % (med["entries"], med["shm_mb"], a.size_mb))
        print("| peak RSS of the cached job (MiB; counts the mapped dataset's pages) | %.0f |" % med["rss_mb"])
        print("| its anonymous memory at epoch ends (MiB; RssAnon, not the dataset) | %.0f |" % med["anon_mb"])
        print("| cache hits of the warm job | %d of %d |" % (med["warm_hits"], a.images))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(shm_root, ignore_errors=True)


if __name__ == "__main__":
    main()
