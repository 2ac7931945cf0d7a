#!/usr/bin/env python3
"""Python row loops: mindrecord against LMDB (python3-lmdb), one invocation.

The same N rows of ~1 KiB (bytes) are written to a MindRecord dataset and to
an LMDB environment (8-byte big-endian keys). Every case reads them all once
and is timed over several rounds (each round runs every case once, so load
changes fall on all alike; a case faster than --min-round reads them several
times a round); the median epoch is reported with its ratio to the
LMDB baseline measured in the same run:

  shuffled rows  for row in MindDataset(path, columns_list=["data"], shuffle=True)
                 vs  for k in keys_in_a_shuffled_order: txn.get(k)
  batches of 256 for b in MindDataset(...).batch(256)
                 vs  cursor.getmulti(256 shuffled keys) per batch
                 (also: the same pipeline drained by its C++ consumer, which
                 only counts the rows, by one that copies each batch's bytes
                 out, as a consumer handing them on must, and the pipeline as
                 do_copy=True runs it, its workers copying the rows out of the
                 mapping, drained by the counting consumer)
  padded batches for b in MindDataset(...).batch(256, pad_info={"data": ([size + 64], 0)})
                 (MindSpore's way to batch rows of different lengths: one array a batch)
                 vs  cursor.getmulti(256 shuffled keys) padded into one numpy array per batch
                 (also: the same pipeline drained by its C++ consumer)
  sequential     for row in FileReader(path, columns=["data"]).get_next()
                 vs  for k in keys_in_order: txn.get(k)
  torch rows     for row in mindrecord.torch.MindRecordDataset(path, columns=["data"])
                 (batch_size=None, in process; shuffled) vs the shuffled txn.get loop
                 (only when torch imports)
  variants       the shuffled rows and batches with do_copy=False (views of the mapped shard),
                 and with MindSpore's value types (bytes as uint8 arrays, what MindDataset
                 returns once its types follow MindSpore's: the same C++ row stream with
                 value_style="mindspore"); FileReader with do_copy=False

usage: PYTHONPATH=build/python python3 benchmarks/rows_vs_lmdb.py [--rows 200000] [--size 1024] [--runs 5]
       [--min-round SECONDS]  (cases faster than this run several epochs a round; default 0.3)
       [--only TEXT ...]   (only the cases whose name contains TEXT)
       [--workers N]       (num_parallel_workers of the batch(256) cases; default MindDataset's)
Needs python3-lmdb (Debian). The machine's load is printed before and after.
"""
import argparse
import itertools
import math
import json
import os
import random
import shutil
import statistics
import tempfile
import time

import lmdb
import numpy as np

import mindrecord
from mindrecord import _core


# The cases the benchmark report shows (benchmarks/run.sh, --out): case ->
# (task, system, role[, twin]). A "ceiling" is the same pipeline drained in
# C++; its twin is the Python loop that runs exactly that pipeline, which the
# report compares with it.
REPORTED = {
    "lmdb txn.get, shuffled": ("shuffled rows", "LMDB txn.get (python3-lmdb)", "baseline"),
    "MindDataset rows, shuffled": ("shuffled rows", "MindDataset rows", "ours"),
    "MindDataset rows do_copy=False, shuffled": ("shuffled rows", "MindDataset rows, do_copy=False", "ours"),
    "torch MindRecordDataset rows, shuffled": ("shuffled rows", "torch MindRecordDataset rows", "ours"),
    "lmdb getmulti x256, shuffled": ("shuffled batches of 256", "LMDB cursor.getmulti (python3-lmdb)", "baseline"),
    "MindDataset batch(256), shuffled": ("shuffled batches of 256", "MindDataset batch(256)", "ours"),
    "MindDataset batch(256) do_copy=False, shuffled": ("shuffled batches of 256",
                                                       "MindDataset batch(256), do_copy=False", "ours"),
    "C++ consumer batch(256), shuffled": ("shuffled batches of 256", "C++ consumer of the zero-copy pipeline",
                                          "ceiling", "MindDataset batch(256), do_copy=False"),
    "C++ consumer copying, batch(256), shuffled": ("shuffled batches of 256",
                                                   "C++ consumer of the zero-copy pipeline, copying", "ceiling"),
    "C++ consumer do_copy=True, batch(256), shuffled": (
        "shuffled batches of 256", "C++ consumer of the pipeline as do_copy=True runs it", "ceiling",
        "MindDataset batch(256)"),
    "lmdb getmulti x256 padded, shuffled": ("shuffled batches of 256, padded", "LMDB cursor.getmulti + numpy padding",
                                            "baseline"),
    "MindDataset batch(256, pad_info), shuffled": ("shuffled batches of 256, padded",
                                                   "MindDataset batch(256, pad_info)", "ours"),
    "C++ consumer batch(256, pad_info), shuffled": ("shuffled batches of 256, padded",
                                                    "C++ consumer of the same pipeline", "ceiling",
                                                    "MindDataset batch(256, pad_info)"),
    "lmdb txn.get, key order": ("rows in key order", "LMDB txn.get (python3-lmdb)", "baseline"),
    "FileReader.get_next, row order": ("rows in key order", "FileReader.get_next", "ours"),
    "FileReader do_copy=False, row order": ("rows in key order", "FileReader.get_next, do_copy=False", "ours"),
}


def timed_rounds(cases, runs, rows, min_round_s):
    """Runs every case once per round, `runs` rounds after a warm-up round, so
    that changes in the machine's load fall on all cases alike; returns the
    seconds of one epoch per case and round. A case whose epoch took less than
    `min_round_s` in the warm-up round runs that many epochs back to back in
    each round (its time divided by them): single epochs of the fast cases
    last ~0.05 s, where one scheduler hiccup moves a median by a tenth."""
    secs = {name: [] for name, _ in cases}
    epochs = {name: 1 for name, _ in cases}
    for r in range(runs + 1):
        for name, fn in cases:
            t = time.perf_counter()
            for _ in range(epochs[name]):
                n = fn()
                assert n == rows, (name, n)
            dt = time.perf_counter() - t
            if r == 0:  # warms the page cache, is dropped, and sets the epochs per round
                epochs[name] = max(1, math.ceil(min_round_s / max(dt, 1e-6)))
            else:
                secs[name].append(dt / epochs[name])
    return secs, epochs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=200000)
    ap.add_argument("--size", type=int, default=1024, help="bytes per row (each row's size varies by +-64)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--min-round", type=float, default=0.3, metavar="SECONDS",
                    help="a case whose epoch is shorter runs several epochs per round, lasting at least this long")
    ap.add_argument("--work", default=None)
    ap.add_argument("--out", default=None, help="also write the measurements as JSON for benchmarks/report.py")
    ap.add_argument("--only", action="append", default=[], metavar="TEXT",
                    help="run only the cases whose name contains TEXT (repeatable), e.g. --only 'batch(256)'")
    ap.add_argument("--workers", type=int, default=None,
                    help="num_parallel_workers of the batch(256) cases (the Python loop and both C++ consumers)")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="rows_vs_lmdb_", dir=args.work)
    try:
        run(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(args, work):
    rng = random.Random(1)
    values = [rng.randbytes(args.size + rng.randint(-64, 64)) for _ in range(args.rows)]
    path = os.path.join(work, "rows.mindrecord")
    w = mindrecord.FileWriter(path, 1)
    w.add_schema({"id": {"type": "int64"}, "data": {"type": "bytes"}}, "rows of bytes")
    for b in range(0, args.rows, 10000):
        w.write_raw_data([{"id": i, "data": values[i]} for i in range(b, min(args.rows, b + 10000))])
    w.commit()
    env = lmdb.open(os.path.join(work, "lmdb"), map_size=4 * args.rows * (args.size + 256) + (64 << 20),
                    readonly=False, lock=False)
    keys = [i.to_bytes(8, "big") for i in range(args.rows)]
    with env.begin(write=True) as txn:
        for k, v in zip(keys, values):
            txn.put(k, v)
    shuffled = keys[:]
    random.Random(2).shuffle(shuffled)
    load_before = os.getloadavg()
    print("load before: %s" % (load_before,))
    print("%d rows of ~%d bytes; median of %d rounds (after one warm-up round)\n" % (args.rows, args.size, args.runs))

    def lmdb_get(order):
        def f():
            n = 0
            with env.begin(buffers=False) as txn:
                get = txn.get
                for k in order:
                    get(k)
                    n += 1
            return n
        return f

    def lmdb_getmulti():
        n = 0
        with env.begin() as txn:
            cur = txn.cursor()
            for b in range(0, len(shuffled), 256):
                n += len(cur.getmulti(shuffled[b:b + 256]))
        return n

    def md_rows():
        n = 0
        for _ in mindrecord.MindDataset(path, columns_list=["data"], shuffle=True, seed=3):
            n += 1
        return n

    def md_rows_nocopy():
        n = 0
        ds = mindrecord.MindDataset(path, columns_list=["data"], shuffle=True, seed=3)
        for _ in ds.create_dict_iterator(num_epochs=1, output_numpy=True, do_copy=False):
            n += 1
        return n

    plan_rows = json.dumps(mindrecord.MindDataset(path, columns_list=["data"], shuffle=True, seed=3)._full_plan(1))

    def md_rows_mindspore_types():
        stream = _core.RowStream(plan_rows, None, 16 << 20, "mindspore", False)
        chunks = iter(stream.next_chunk, None)
        n = 0
        for _ in itertools.chain.from_iterable(chunks):
            n += 1
        return n

    def batched(**batch_args):
        workers = {} if args.workers is None else {"num_parallel_workers": args.workers}
        ds = mindrecord.MindDataset(path, columns_list=["data"], shuffle=True, seed=3, **workers)
        return ds.batch(256, **batch_args)

    def md_batches():
        n = 0
        for (data,) in batched():  # MindSpore's lists of Tensors
            n += len(data)
        return n

    def md_batches_nocopy():
        n = 0
        for b in batched().create_dict_iterator(num_epochs=1, output_numpy=True, do_copy=False):
            n += len(b["data"])
        return n

    plan = batched().plan()

    def cpp_batches():
        return _core.drain_pipeline(plan)[0]

    def cpp_batches_copy():
        return _core.drain_pipeline(plan, copy=True)[0]

    # What the default Python loop runs: the workers copy each batch's rows
    # out of the mapping (the plan's copy_views, set by do_copy=True).
    plan_copy_views = json.dumps(dict(json.loads(plan), copy_views=True))

    def cpp_batches_copy_views():
        return _core.drain_pipeline(plan_copy_views)[0]

    pad_to = args.size + 64  # the longest value

    def lmdb_getmulti_padded():
        n = 0
        with env.begin() as txn:
            cur = txn.cursor()
            for b in range(0, len(shuffled), 256):
                got = cur.getmulti(shuffled[b:b + 256])
                batch = np.zeros((len(got), pad_to), np.uint8)
                for i, (_, v) in enumerate(got):
                    batch[i, :len(v)] = np.frombuffer(v, np.uint8)
                n += len(batch)
        return n

    def padded():
        return batched(pad_info={"data": ([pad_to], 0)})

    def md_batches_padded():
        n = 0
        for (data,) in padded():
            n += len(data)
        return n

    plan_padded = padded().plan()

    def fr_rows():
        n = 0
        for _ in mindrecord.FileReader(path, columns=["data"]).get_next():
            n += 1
        return n

    def fr_rows_nocopy():
        n = 0
        for _ in mindrecord.FileReader(path, columns=["data"], do_copy=False).get_next():
            n += 1
        return n

    try:
        from mindrecord.torch import MindRecordDataset
    except ImportError:
        MindRecordDataset = None

    def torch_rows():
        n = 0
        for _ in MindRecordDataset(path, columns=["data"], seed=3):
            n += 1
        return n

    cases = [("lmdb txn.get, shuffled", lmdb_get(shuffled)),
             ("MindDataset rows, shuffled", md_rows),
             ("MindDataset rows do_copy=False, shuffled", md_rows_nocopy),
             ("rows as MindSpore types, shuffled", md_rows_mindspore_types),
             ("lmdb getmulti x256, shuffled", lmdb_getmulti),
             ("MindDataset batch(256), shuffled", md_batches),
             ("MindDataset batch(256) do_copy=False, shuffled", md_batches_nocopy),
             ("C++ consumer batch(256), shuffled", cpp_batches),
             ("C++ consumer copying, batch(256), shuffled", cpp_batches_copy),
             ("C++ consumer do_copy=True, batch(256), shuffled", cpp_batches_copy_views),
             ("lmdb getmulti x256 padded, shuffled", lmdb_getmulti_padded),
             ("MindDataset batch(256, pad_info), shuffled", md_batches_padded),
             ("C++ consumer batch(256, pad_info), shuffled", lambda: _core.drain_pipeline(plan_padded)[0]),
             ("lmdb txn.get, key order", lmdb_get(keys)),
             ("FileReader.get_next, row order", fr_rows),
             ("FileReader do_copy=False, row order", fr_rows_nocopy)]
    if MindRecordDataset is not None:
        cases.append(("torch MindRecordDataset rows, shuffled", torch_rows))
    if args.only:
        cases = [(name, fn) for name, fn in cases if any(t in name for t in args.only)]
        if not cases:
            raise SystemExit("--only %s: no case matches" % args.only)
    secs, epochs = timed_rounds(cases, args.runs, args.rows, args.min_round)
    results = {name: args.rows / statistics.median(s) for name, s in secs.items()}
    for name, _ in cases:
        print("%-48s %12.0f rows/s  (%d epoch%s a round, spread %.0f%%)"
              % (name, results[name], epochs[name], "" if epochs[name] == 1 else "s",
                 100 * (max(secs[name]) - min(secs[name])) / statistics.median(secs[name])))
    print()
    for ours, base in (("MindDataset rows, shuffled", "lmdb txn.get, shuffled"),
                       ("MindDataset rows do_copy=False, shuffled", "lmdb txn.get, shuffled"),
                       ("rows as MindSpore types, shuffled", "lmdb txn.get, shuffled"),
                       ("MindDataset batch(256), shuffled", "lmdb getmulti x256, shuffled"),
                       ("MindDataset batch(256), shuffled", "C++ consumer batch(256), shuffled"),
                       ("MindDataset batch(256), shuffled", "C++ consumer copying, batch(256), shuffled"),
                       ("MindDataset batch(256), shuffled", "C++ consumer do_copy=True, batch(256), shuffled"),
                       ("MindDataset batch(256) do_copy=False, shuffled", "C++ consumer batch(256), shuffled"),
                       ("MindDataset batch(256, pad_info), shuffled", "lmdb getmulti x256 padded, shuffled"),
                       ("MindDataset batch(256, pad_info), shuffled", "C++ consumer batch(256, pad_info), shuffled"),
                       ("FileReader.get_next, row order", "lmdb txn.get, key order"),
                       ("FileReader do_copy=False, row order", "lmdb txn.get, key order"),
                       ("torch MindRecordDataset rows, shuffled", "lmdb txn.get, shuffled")):
        if ours not in results or base not in results:
            continue
        print("%-48s / %-42s = %5.2fx" % (ours, base, results[ours] / results[base]))
    print("\nload after: %s" % (os.getloadavg(),))
    print(json.dumps({"rows": args.rows, "size": args.size, "rows_per_s": results}))
    if args.out:
        nbytes = sum(len(v) for v in values)
        ms = [{"workload": "python", "task": REPORTED[name][0], "system": REPORTED[name][1],
               "role": REPORTED[name][2], "unit": "rows", "items": args.rows, "bytes": nbytes, "seconds": secs[name],
               "median_s": statistics.median(secs[name]),
               "extra": dict({"twin": REPORTED[name][3]} if len(REPORTED[name]) > 3 else {},
                              epochs_per_round=epochs[name])}
              for name, _ in cases if name in REPORTED]
        with open(args.out, "w") as f:
            json.dump({"measurements": ms, "python": {"rows": args.rows, "size": args.size,
                                                      "load_before": ["%.2f" % x for x in load_before]}}, f, indent=1)


if __name__ == "__main__":
    main()
