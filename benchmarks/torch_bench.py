#!/usr/bin/python3
"""PyTorch comparison: torchvision ImageFolder + DataLoader against
MindRecordDataset + DataLoader, same images, same transforms (decode,
RandomResizedCrop(224), horizontal flip, to float CHW, normalize), batch 32,
the same number of DataLoader worker processes (MindRecord: one C++ thread
per worker). Writes measurements in formats_bench's JSON layout.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/torch_bench.py \
        --images-dir SRC --mindrecord-cli build/mindrecord --count N --work DIR --out torch.json
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import time

import torch
import torch.utils.data
import torchvision
from torchvision import transforms

from mindrecord import vision
from mindrecord.torch import MindRecordDataset

MEAN, STD = [123.675, 116.28, 103.53], [58.395, 57.12, 57.375]


def subset_folder(src, dst, count):
    """The first `count` images of SRC (sorted), symlinked into an ImageFolder."""
    files = sorted(os.path.join(r, f) for r, _, fs in os.walk(src) for f in fs if f.endswith(".jpg"))[:count]
    shutil.rmtree(dst, ignore_errors=True)
    for f in files:
        cls = os.path.basename(os.path.dirname(f))
        os.makedirs(os.path.join(dst, cls), exist_ok=True)
        os.symlink(f, os.path.join(dst, cls, os.path.basename(f)))
    return sum(os.path.getsize(f) for f in files), len(files)


def time_runs(fn, runs, warmup):
    out = []
    for i in range(warmup + runs):
        t0 = time.perf_counter()
        n = fn()
        dt = time.perf_counter() - t0
        if i >= warmup:
            out.append(dt)
    return out, n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--images-dir", required=True)
    ap.add_argument("--mindrecord-cli", required=True)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--max-workers", type=int, default=2)
    a = ap.parse_args()
    folder = os.path.join(a.work, "torch_src")
    nbytes, n = subset_folder(a.images_dir, folder, a.count)
    mr = os.path.join(a.work, "torch.mindrecord")
    subprocess.run([a.mindrecord_cli, "convert", "imagefolder", folder, mr, "--overwrite"], check=True,
                   stdout=subprocess.DEVNULL)

    tv = torchvision.datasets.ImageFolder(folder, transform=transforms.Compose([
        transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(),
        transforms.Normalize([m / 255 for m in MEAN], [s / 255 for s in STD])]))
    ours = MindRecordDataset(mr, columns=["image", "label"], batch_size=32, seed=0, num_threads=1, ops={
        "image": [vision.Decode(), vision.RandomResizedCrop(224), vision.RandomHorizontalFlip(),
                  vision.Normalize(MEAN, STD), vision.HWC2CHW()]})

    def run_tv(workers):
        loader = torch.utils.data.DataLoader(tv, batch_size=32, shuffle=True, num_workers=workers)
        return sum(len(y) for _, y in loader)

    def run_ours(workers):
        loader = torch.utils.data.DataLoader(ours, batch_size=None, num_workers=workers)
        return sum(len(b["label"]) for b in loader)

    ms = []
    w = 1
    while w <= a.max_workers:
        task = f"decode+crop+flip+normalize, {w} DataLoader worker{'s' if w > 1 else ''}"
        for system, role, fn in (("MindRecordDataset + DataLoader", "ours", run_ours),
                                 ("torchvision ImageFolder + DataLoader", "baseline", run_tv)):
            secs, got = time_runs(lambda: fn(w), a.runs, a.warmup)
            if got != n:
                raise SystemExit(f"{system} returned {got} rows, expected {n}")
            ms.append({"workload": "torch", "task": task, "system": system, "role": role, "unit": "images",
                       "items": n, "bytes": nbytes, "seconds": secs, "median_s": statistics.median(secs),
                       "extra": {}})
            print(f"  torch {task:45s} {system:38s} {n / statistics.median(secs):8.1f} images/s", flush=True)
        w *= 2
    json.dump({"measurements": ms, "torch": {"images": n, "torch": torch.__version__,
                                             "torchvision": torchvision.__version__}}, open(a.out, "w"), indent=1)
    shutil.rmtree(folder, ignore_errors=True)
    for f in (mr, mr + ".db"):
        if os.path.exists(f):
            os.remove(f)


if __name__ == "__main__":
    main()
