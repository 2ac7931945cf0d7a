"""TFRecordDataset over gzip / zlib files (compression_type) against the same
records uncompressed, in each shuffle mode: rows per second, median of
--runs epochs (the files interleaved in each round), and the ratio to the
uncompressed file in the same run.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/tfrecord_compressed_bench.py [--records N] [--runs R]

The records: an int64 "id" and a bytes "blob" of 512 random bytes and 500
bytes of text (about half of each file compresses away).
"""
import argparse
import gzip
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import zlib

from mindrecord import Shuffle, TFRecordDataset

# TensorFlow's framing and tf.train.Example, as the tests write them.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "tests"))
from test_tfrecord_dataset import write_tfrecord  # noqa: E402


def write(path, n):
    rng = random.Random(1)
    write_tfrecord(path, ({"id": i, "blob": rng.randbytes(512) + b"text " * 100} for i in range(n)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="tfrecord_compressed_")
    try:
        plain = os.path.join(work, "plain.tfrecord")
        write(plain, args.records)
        data = open(plain, "rb").read()
        files = {None: plain, "GZIP": os.path.join(work, "a.tfrecord.gz"), "ZLIB": os.path.join(work, "a.tfrecord.z")}
        open(files["GZIP"], "wb").write(gzip.compress(data))
        open(files["ZLIB"], "wb").write(zlib.compress(data))
        print("load before: %s" % (os.getloadavg(),))
        print("%d records, %.1f MB; gzip %.1f MB; median of %d epochs, %d workers\n"
              % (args.records, len(data) / 1e6, os.path.getsize(files["GZIP"]) / 1e6, args.runs, args.workers))
        print("%-6s %-14s %12s %10s" % ("file", "shuffle", "rows/s", "vs plain"))
        for shuffle in (False, Shuffle.FILES, True):
            # The three files take turns in each round (load drift hits them alike).
            times = {comp: [] for comp in files}
            for _ in range(args.runs + 1):  # the first round: warm-up
                for comp, path in files.items():
                    ds = TFRecordDataset(path, compression_type=comp, shuffle=shuffle,
                                         num_parallel_workers=args.workers, seed=3)
                    t = time.perf_counter()
                    n = sum(1 for _ in ds.create_tuple_iterator(num_epochs=1, output_numpy=True))
                    times[comp].append(time.perf_counter() - t)
                    assert n == args.records
            plain_rate = args.records / statistics.median(times[None][1:])
            for comp in files:
                rate = args.records / statistics.median(times[comp][1:])
                print("%-6s %-14s %12.0f %9.2fx" % (comp or "none", shuffle, rate, rate / plain_rate))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
