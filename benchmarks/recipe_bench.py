#!/usr/bin/python3
"""Training-recipe benchmarks (issue 24 targets), ratios of medians measured
in one invocation, images/s.

classification: RandomResizedCrop(224) + RandomHorizontalFlip + RandAugment +
  Normalize + HWC2CHW per image, batch 32, MixUp on the batch (one-hot
  labels), at 1 and 2 workers, three ways:
  - ours: MindDataset over `mindrecord convert imagefolder` of the images,
    the recipe in C++ ops (num_parallel_workers threads);
  - torchvision: ImageFolder + the same recipe in torchvision transforms
    (PIL) + DataLoader (num_workers processes), MixUp in torch on the batch;
  - adapter: the same MindRecord file through mindrecord.torch
    (MindRecordDataset, C++ decode) with the recipe in torchvision's Python
    transforms on the decoded tensors, in a DataLoader, MixUp in torch.
detection: VOC written by `mindrecord convert voc` read through MindDataset,
  decode + RandomCropWithBBox + RandomHorizontalFlipWithBBox +
  ResizeWithBBox, batch 16 with pad_info on the boxes (the converter stores
  boxes as xmin, ymin, xmax, ymax: a Python map turns them into MindSpore's
  x, y, w, h first); and the same on the raw folder through VOCDataset.

Images are generated (smooth synthetic 640x480 JPEGs, 10 classes) unless
--images-dir names a folder of JPEGs. Writes measurements in formats_bench's
JSON layout (report.py --extra).

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/recipe_bench.py --count 256 --work /tmp/rb --out recipes.json
"""
import argparse
import json
import os
import shutil
import statistics
import time

import numpy as np
from PIL import Image

import mindrecord
from mindrecord import MindDataset, VOCDataset, transforms as mtf, vision

MEAN, STD = [123.675, 116.28, 103.53], [58.395, 57.12, 57.375]
CLASSES = 10
BATCH = 32


def synthetic_jpeg(path, rng, w=640, h=480):
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    a, b, c = rng.uniform(0.005, 0.05, 3)
    img = np.stack([127 + 120 * np.sin(a * x + b * y), 127 + 120 * np.cos(b * x - c * y),
                    127 + 120 * np.sin(c * (x + y))], axis=2).astype(np.uint8)
    Image.fromarray(img).save(path, quality=90)


def make_images(src, folder, count, seed=0):
    """`count` JPEGs in CLASSES class folders (from `src` when given)."""
    shutil.rmtree(folder, ignore_errors=True)
    rng = np.random.default_rng(seed)
    files = []
    if src:
        files = sorted(os.path.join(r, f) for r, _, fs in os.walk(src) for f in fs if f.lower().endswith(".jpg"))
        files = files[:count]
    for i in range(count):
        d = os.path.join(folder, "c%02d" % (i % CLASSES))
        os.makedirs(d, exist_ok=True)
        dst = os.path.join(d, "%06d.jpg" % i)
        if files:
            os.symlink(files[i % len(files)], dst)
        else:
            synthetic_jpeg(dst, rng)
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(folder) for f in fs)


def make_voc(root, count, seed=0):
    """A VOC detection folder: `count` JPEGs with 1-4 boxes each."""
    shutil.rmtree(root, ignore_errors=True)
    for d in ("Annotations", "JPEGImages", "ImageSets/Main"):
        os.makedirs(os.path.join(root, d))
    rng = np.random.default_rng(seed)
    names = ["car", "cat", "dog", "person"]
    ids = []
    for i in range(count):
        idx = "%06d" % i
        ids.append(idx)
        synthetic_jpeg(os.path.join(root, "JPEGImages", idx + ".jpg"), rng, 500, 375)
        objs = []
        for _ in range(rng.integers(1, 5)):
            x0, y0 = rng.integers(0, 400), rng.integers(0, 280)
            x1, y1 = x0 + rng.integers(20, 100), y0 + rng.integers(20, 95)
            objs.append("<object><name>%s</name><difficult>0</difficult><truncated>0</truncated><bndbox><xmin>%d"
                        "</xmin><ymin>%d</ymin><xmax>%d</xmax><ymax>%d</ymax></bndbox></object>"
                        % (names[rng.integers(0, 4)], x0, y0, x1, y1))
        with open(os.path.join(root, "Annotations", idx + ".xml"), "w") as f:
            f.write("<annotation><size><width>500</width><height>375</height><depth>3</depth></size>%s</annotation>"
                    % "".join(objs))
    with open(os.path.join(root, "ImageSets", "Main", "train.txt"), "w") as f:
        f.write("\n".join(ids) + "\n")
    return sum(os.path.getsize(os.path.join(root, "JPEGImages", i + ".jpg")) for i in ids)


def time_runs(fn, runs, warmup):
    out, n = [], 0
    for i in range(warmup + runs):
        t0 = time.perf_counter()
        n = fn()
        dt = time.perf_counter() - t0
        if i >= warmup:
            out.append(dt)
    return out, n


def ours_classification(mr, workers):
    ds = MindDataset(mr, columns_list=["image", "label"], shuffle=True, num_parallel_workers=workers, seed=1)
    ds = ds.map([vision.Decode(), vision.RandomResizedCrop(224), vision.RandomHorizontalFlip(), vision.RandAugment(),
                 vision.Normalize(MEAN, STD), vision.HWC2CHW()], input_columns="image", num_parallel_workers=workers)
    ds = ds.map(mtf.OneHot(CLASSES), input_columns="label")
    ds = ds.batch(BATCH, drop_remainder=True)
    ds = ds.map(vision.MixUpBatch(), input_columns=["image", "label"])

    def run():
        return sum(len(b[1]) for b in ds.create_tuple_iterator(num_epochs=1, output_numpy=True))
    return run


def torch_mixup(images, labels, gen):
    import torch
    onehot = torch.nn.functional.one_hot(labels.long(), CLASSES).float()
    lam = float(np.random.default_rng(int(torch.randint(0, 1 << 30, (1,), generator=gen))).beta(1.0, 1.0))
    perm = torch.randperm(images.shape[0], generator=gen)
    return lam * images + (1 - lam) * images[perm], lam * onehot + (1 - lam) * onehot[perm]


def torchvision_classification(folder, workers):
    import torch
    import torchvision
    from torchvision import transforms as T
    tv = torchvision.datasets.ImageFolder(folder, transform=T.Compose([
        T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.RandAugment(), T.ToTensor(),
        T.Normalize([m / 255 for m in MEAN], [s / 255 for s in STD])]))
    gen = torch.Generator().manual_seed(0)

    def run():
        loader = torch.utils.data.DataLoader(tv, batch_size=BATCH, shuffle=True, num_workers=workers,
                                             drop_last=True)
        n = 0
        for x, y in loader:
            x, y = torch_mixup(x, y, gen)
            n += len(y)
        return n
    return run


def adapter_classification(mr, workers):
    import torch
    from torchvision import transforms as T
    from mindrecord.torch import MindRecordDataset
    inner = MindRecordDataset(mr, columns=["image", "label"], ops={"image": [vision.Decode()]}, seed=0)
    tf = T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.RandAugment(),
                    T.ConvertImageDtype(torch.float32),
                    T.Normalize([m / 255 for m in MEAN], [s / 255 for s in STD])])

    class Mapped(torch.utils.data.IterableDataset):
        def __iter__(self):
            for row in inner:
                yield tf(row["image"].permute(2, 0, 1)), row["label"]
    gen = torch.Generator().manual_seed(0)

    def run():
        loader = torch.utils.data.DataLoader(Mapped(), batch_size=BATCH, num_workers=workers, drop_last=True)
        n = 0
        for x, y in loader:
            x, y = torch_mixup(x, y, gen)
            n += len(y)
        return n
    return run


def xyxy_to_xywh(bbox):
    b = bbox.astype(np.float32).reshape(-1, 4).copy()
    b[:, 2:] -= b[:, :2]
    return b


def detection(ds, workers):
    ds = ds.map([vision.Decode()], input_columns="image", num_parallel_workers=workers)
    ds = ds.map([vision.RandomCropWithBBox(300, pad_if_needed=True), vision.RandomHorizontalFlipWithBBox(),
                 vision.ResizeWithBBox((320, 320))], input_columns=["image", "bbox"], num_parallel_workers=workers)
    ds = ds.batch(16, drop_remainder=True, pad_info={"bbox": ([None, 4], 0), "label": ([None], -1)})

    def run():
        return sum(len(b[0]) for b in ds.create_tuple_iterator(num_epochs=1, output_numpy=True))
    return run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--images-dir", default=None, help="JPEGs to use (default: generated)")
    ap.add_argument("--count", type=int, default=512, help="images per recipe")
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--max-workers", type=int, default=2)
    ap.add_argument("--only", default="classification,detection")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    only = set(a.only.split(","))
    ms = []
    load = open("/proc/loadavg").read().split()[:3]

    def measure(workload, task, system, role, fn, n, nbytes):
        secs, got = time_runs(fn, a.runs, a.warmup)
        ms.append({"workload": "recipes", "task": task, "system": system, "role": role, "unit": "images",
                   "items": got, "bytes": nbytes, "seconds": secs, "median_s": statistics.median(secs),
                   "extra": {}})
        print(f"  {task:60s} {system:52s} {got / statistics.median(secs):8.1f} images/s", flush=True)

    if "classification" in only:
        folder = os.path.join(a.work, "cls_src")
        nbytes = make_images(a.images_dir, folder, a.count)
        mr = os.path.join(a.work, "cls.mindrecord")
        mindrecord.convert("imagefolder", folder, mr, overwrite=True)
        n = a.count // BATCH * BATCH
        w = 1
        while w <= a.max_workers:
            task = f"classification (RRC+flip+RandAugment+normalize, MixUp), {w} worker{'s' if w > 1 else ''}"
            for system, role, fn in (("MindDataset + C++ ops", "ours", ours_classification(mr, w)),
                                     ("torchvision ImageFolder + DataLoader", "baseline",
                                      torchvision_classification(folder, w)),
                                     ("MindRecordDataset + torchvision transforms", "baseline",
                                      adapter_classification(mr, w))):
                measure("recipes", task, system, role, fn, n, nbytes)
            w *= 2
    if "detection" in only:
        voc = os.path.join(a.work, "voc")
        nbytes = make_voc(voc, a.count)
        mr = os.path.join(a.work, "voc.mindrecord")
        mindrecord.convert("voc", voc, mr, task="detection", overwrite=True)
        w = a.max_workers
        task = f"detection (decode+RandomCropWithBBox+flip+ResizeWithBBox, pad_info), {w} workers"
        conv = MindDataset(mr, columns_list=["image", "bbox", "label"], shuffle=True, num_parallel_workers=w, seed=1)
        conv = conv.map(xyxy_to_xywh, input_columns="bbox")
        measure("recipes", task, "MindDataset (mindrecord convert voc)", "ours", detection(conv, w), a.count, nbytes)
        raw = VOCDataset(voc, task="Detection", usage="train", num_parallel_workers=w, seed=1)
        raw = raw.project(["image", "bbox", "label"]).map(lambda x: x.reshape(-1), input_columns="label")
        measure("recipes", task, "VOCDataset (raw folder)", "ours", detection(raw, w), a.count, nbytes)
    json.dump({"measurements": ms, "recipes": {"images": a.count, "load_before": load}}, open(a.out, "w"),
              indent=1)
    print("load average before: %s" % " ".join(load))


if __name__ == "__main__":
    main()
