#!/usr/bin/env python3
"""Python-layer throughput, as ratios measured in the same run.

1. rows/s: mindrecord.MindDataset (batch 256, numpy out) vs the same C++
   pipeline drained by a C++ consumer (no Python objects), same plan.
2. images/s: mindrecord.torch.MindRecordDataset + DataLoader vs torchvision
   ImageFolder + DataLoader (PIL), same JPEGs, same transform chain
   (RandomResizedCrop 224, flip, normalize, CHW), same worker count, with
   workers started afresh each epoch and with persistent workers.

usage: PYTHONPATH=build/python python3 benchmarks/python_bench.py [--rows N] [--images N] [--workers W]

Large per-image tensors (224x224x3 float32) come from the pipeline's pool of
tensor buffers (pipeline/tensor.h), so their pages stay mapped; the images
part also runs the DataLoader case with the pool off (capacity 0) to show
what the page faults cost.
"""
import argparse
import json
import os
import shutil
import tempfile
import time

import numpy as np

import mindrecord
from mindrecord import _core, vision


def make_rows_dataset(path, n):
    w = mindrecord.FileWriter(path, overwrite=True)
    w.add_schema({"id": {"type": "int64"}, "label": {"type": "int32"},
                  "feat": {"type": "float32", "shape": [64]}, "blob": {"type": "bytes"}})
    rng = np.random.RandomState(0)
    feat = rng.rand(64).astype(np.float32)
    blob = bytes(rng.randint(0, 256, 512, dtype=np.uint8))
    for start in range(0, n, 10000):
        w.write_raw_data([{"id": i, "label": i % 1000, "feat": feat, "blob": blob}
                          for i in range(start, min(n, start + 10000))])
    w.commit()


def bench_rows(path, workers, repeats=3):
    ds = mindrecord.MindDataset(path, columns_list=["id", "label", "feat"], num_parallel_workers=workers,
                                shuffle=True, seed=1).batch(256)
    plan = json.loads(ds.plan())
    best_c = best_py = 0.0
    consumer_cpu = None
    for _ in range(repeats):
        rows, _, secs = _core.drain_pipeline(json.dumps(plan))
        best_c = max(best_c, rows / secs)
        fresh = mindrecord.MindDataset(path, columns_list=["id", "label", "feat"], num_parallel_workers=workers,
                                       shuffle=True, seed=1).batch(256)
        t0, cpu0 = time.perf_counter(), time.thread_time()
        n = 0
        for b in fresh:  # opening the pipeline is timed in both
            n += len(b["id"])
        secs = time.perf_counter() - t0
        if n / secs > best_py:
            best_py, consumer_cpu = n / secs, (time.thread_time() - cpu0) / secs
    return best_c, best_py, consumer_cpu


def make_images(root, n, classes=10):
    from PIL import Image
    rng = np.random.RandomState(0)
    for c in range(classes):
        os.makedirs(os.path.join(root, "class%02d" % c), exist_ok=True)
    base = (rng.rand(48, 64, 3) * 255).astype(np.uint8)
    for i in range(n):
        h, w = 300 + (i % 7) * 20, 400 + (i % 5) * 24
        img = Image.fromarray(base).resize((w, h), Image.BILINEAR)
        arr = np.asarray(img).copy()
        arr[(i * 7) % h, :, :] = 255
        Image.fromarray(arr).save(os.path.join(root, "class%02d" % (i % classes), "%05d.jpg" % i), quality=90)


def bench_images(root, mr_path, workers, batch, epochs=3):
    """images/s, best epoch of `epochs`, per loader. DataLoader workers
    either start afresh each epoch (DataLoader's default) or persist
    (persistent_workers=True: the first epoch starts them and is not
    counted); both systems run both ways."""
    import torch
    import torchvision
    from torchvision import transforms as T
    from mindrecord.torch import MindRecordDataset

    tv = torchvision.datasets.ImageFolder(root, T.Compose([
        T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(),
        T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])]))
    ops = [vision.Decode(), vision.RandomResizedCrop(224), vision.RandomHorizontalFlip(),
           vision.Normalize([123.675, 116.28, 103.53], [58.395, 57.12, 57.375]), vision.HWC2CHW()]

    def tv_loader(persistent):
        return None, torch.utils.data.DataLoader(tv, batch_size=batch, shuffle=True, num_workers=workers,
                                                 persistent_workers=persistent)

    def mr_loader(loader_workers, threads, persistent=False):
        ds = MindRecordDataset(mr_path, columns=["image", "label"], ops={"image": ops}, batch_size=batch,
                               num_threads=threads, seed=0)
        return ds, torch.utils.data.DataLoader(ds, batch_size=None, num_workers=loader_workers,
                                               persistent_workers=persistent)

    def rate(made, persistent=False):
        ds, loader = made
        best = 0.0
        for e in range(epochs + (1 if persistent else 0)):
            if ds is not None:
                ds.set_epoch(e)
            t0 = time.perf_counter()
            n = 0
            for b in loader:
                x = b[0] if isinstance(b, (list, tuple)) else b["image"]
                assert x.shape[1:] == (3, 224, 224)
                n += x.shape[0]
            if not persistent or e > 0:
                best = max(best, n / (time.perf_counter() - t0))
        return best

    r = {}
    r["tv"] = rate(tv_loader(False))
    r["mr"] = rate(mr_loader(workers, 1))
    r["tv_persistent"] = rate(tv_loader(True), True)
    r["mr_persistent"] = rate(mr_loader(workers, 1, True), True)
    r["mr_threads"] = rate(mr_loader(0, workers))
    # DataLoader workers are forked, so they inherit the capacity set here.
    capacity = _core.tensor_pool_stats()["capacity"]
    _core.set_tensor_pool_capacity(0)
    try:
        r["mr_nopool"] = rate(mr_loader(workers, 1))
    finally:
        _core.set_tensor_pool_capacity(capacity)
    return r


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=200000)
    p.add_argument("--images", type=int, default=1000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--dir", default=None, help="work folder (default: a temporary one, removed after)")
    args = p.parse_args()
    work = args.dir or tempfile.mkdtemp(prefix="mr_pybench_")
    try:
        rows_path = os.path.join(work, "rows.mindrecord")
        make_rows_dataset(rows_path, args.rows)
        c_rate, py_rate, cpu_share = bench_rows(rows_path, args.workers)
        print("rows/s at batch 256, %d workers: C++ consumer %.0f, Python MindDataset %.0f -> ratio %.2f"
              % (args.workers, c_rate, py_rate, py_rate / c_rate))
        # Load-independent: the Python consumer's own CPU time as a share of the run.
        print("  Python consumer thread CPU: %.1f%% of the run's wall time" % (100 * cpu_share))
        root = os.path.join(work, "images")
        make_images(root, args.images)
        mr_path = os.path.join(work, "images.mindrecord")
        mindrecord.ImageFolderToMR(root, mr_path, overwrite=True).transform()
        r = bench_images(root, mr_path, args.workers, args.batch)
        print("images/s, %d JPEGs ~400x300, batch %d, %d workers (best of 3 epochs):" % (args.images, args.batch, args.workers))
        print("  workers started afresh each epoch: torchvision ImageFolder+PIL %.0f, MindRecordDataset %.0f"
              " -> ratio %.2f" % (r["tv"], r["mr"], r["mr"] / r["tv"]))
        print("  persistent_workers=True:           torchvision ImageFolder+PIL %.0f, MindRecordDataset %.0f"
              " -> ratio %.2f" % (r["tv_persistent"], r["mr_persistent"], r["mr_persistent"] / r["tv_persistent"]))
        print("  MindRecordDataset in one process, %d C++ threads: %.0f -> ratio %.2f to the first torchvision"
              % (args.workers, r["mr_threads"], r["mr_threads"] / r["tv"]))
        print("  first line's MindRecordDataset, tensor buffer pool off: %.0f -> ratio %.2f"
              % (r["mr_nopool"], r["mr_nopool"] / r["tv"]))
        print("  load average after the run: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
    finally:
        if args.dir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
