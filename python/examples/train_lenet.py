#!/usr/bin/env python3
"""Trains LeNet-5 on an MNIST-format MindRecord dataset on the CPU.

    python3 fixtures/make_mnist.py /tmp/mnist --train 6000 --test 1000
    build/mindrecord convert mnist /tmp/mnist /tmp/mnist.mindrecord   # or: --mnist-dir /tmp/mnist below
    PYTHONPATH=build/python python3 python/examples/train_lenet.py /tmp/mnist_train.mindrecord --steps 300

Reading, JPEG/PNG decoding, normalisation and batching run in the C++
pipeline (mindrecord.torch.MindRecordDataset); PyTorch only trains.
"""
import argparse
import os
import sys
import time

import torch
from torch import nn

from mindrecord import MnistToMR, vision
from mindrecord.torch import MindRecordDataset


class LeNet5(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
            nn.Linear(84, num_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


def loader_for(path, batch_size, seed, shuffle=True):
    ops = [vision.Decode(), vision.Normalize([33.0] * 3, [78.0] * 3), vision.HWC2CHW()]
    ds = MindRecordDataset(path, columns=["data", "label"], ops={"data": ops}, shuffle=shuffle, seed=seed,
                           batch_size=batch_size, drop_last=shuffle, num_threads=2)
    return ds, torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0)


def train(train_path, steps=300, batch_size=64, lr=0.05, seed=0, log_every=50, test_path=None):
    """Returns (per-step losses, test accuracy or None)."""
    torch.manual_seed(seed)
    model = LeNet5()
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    ds, loader = loader_for(train_path, batch_size, seed)
    losses, epoch, t0 = [], 0, time.time()
    while len(losses) < steps:
        ds.set_epoch(epoch)
        for batch in loader:
            x = batch["data"][:, :1]  # gray images decode to three equal channels
            y = batch["label"].long()
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
            if log_every and len(losses) % log_every == 0:
                print("step %4d  epoch %d  loss %.4f  (%.1f s)" % (len(losses), epoch, loss.item(), time.time() - t0))
            if len(losses) == steps:
                break
        epoch += 1
    accuracy = None
    if test_path:
        model.eval()
        correct = total = 0
        _, test_loader = loader_for(test_path, 256, 0, shuffle=False)
        with torch.no_grad():
            for batch in test_loader:
                pred = model(batch["data"][:, :1]).argmax(1)
                correct += (pred == batch["label"].long()).sum().item()
                total += pred.numel()
        accuracy = correct / max(total, 1)
        print("test accuracy %.3f on %d images" % (accuracy, total))
    return losses, accuracy


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dataset", nargs="?", help="MNIST MindRecord file (e.g. mnist_train.mindrecord)")
    p.add_argument("--mnist-dir", help="convert these MNIST idx.gz files first (writes next to --out)")
    p.add_argument("--out", default="/tmp/lenet_mnist.mindrecord", help="conversion output name")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    test_path = None
    if args.mnist_dir:
        conv = MnistToMR(args.mnist_dir, args.out, overwrite=True)
        conv.transform()  # SUCCESS, as MindSpore's; the report is conv.report
        rep = conv.report
        files = {o["split"]: o["files"][0] for o in rep["outputs"]}
        args.dataset, test_path = files["train"], files.get("test")
    elif args.dataset:
        guess = args.dataset.replace("_train.mindrecord", "_test.mindrecord")
        test_path = guess if guess != args.dataset and os.path.exists(guess) else None
    else:
        p.error("give a dataset or --mnist-dir")
    losses, _ = train(args.dataset, args.steps, args.batch_size, args.lr, args.seed, test_path=test_path)
    k = max(1, min(20, len(losses) // 4))
    print("mean loss: first %d steps %.4f, last %d steps %.4f" % (k, sum(losses[:k]) / k, k, sum(losses[-k:]) / k))
    return 0


if __name__ == "__main__":
    sys.exit(main())
