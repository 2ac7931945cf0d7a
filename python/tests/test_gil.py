"""Long C++ calls release the GIL: another Python thread keeps running
throughout (no pause anywhere near the call's length)."""
import threading
import time

import numpy as np

import mindrecord
from mindrecord import _core


def longest_pause_during(fn):
    """(longest gap between main-thread iterations while fn ran in a thread, fn's duration, fn's result)."""
    done = threading.Event()
    result = {}

    def run():
        t0 = time.perf_counter()
        result["value"] = fn()
        result["secs"] = time.perf_counter() - t0
        done.set()

    t = threading.Thread(target=run)
    last = time.perf_counter()  # a pause inside start() counts too
    t.start()
    longest = 0.0
    while not done.is_set():
        now = time.perf_counter()
        longest = max(longest, now - last)
        last = now
    t.join()
    return longest, result["secs"], result["value"]


def test_pipeline_and_reads_release_the_gil(tmp_path):
    path = str(tmp_path / "g.mindrecord")
    w = mindrecord.FileWriter(path)
    w.add_schema({"id": {"type": "int64"}, "v": {"type": "float32", "shape": [256]}})
    w.write_raw_data([{"id": i, "v": np.full(256, i, np.float32)} for i in range(40000)])
    w.commit()
    plan = mindrecord.MindDataset(path, seed=1, num_parallel_workers=2).batch(64).plan()
    # Four epochs: one takes ~45 ms here, too short to tell a pause from the call.
    pause, secs, drained = longest_pause_during(lambda: [_core.drain_pipeline(plan) for _ in range(4)])
    assert [d[0] for d in drained] == [40000] * 4
    assert secs > 0.05 and pause < 0.5 * secs, (pause, secs)
    # The benchmarks' copying consumer: every row, every batch, GIL released.
    pause, secs, drained = longest_pause_during(lambda: [_core.drain_pipeline(plan, copy=True) for _ in range(4)])
    assert [d[:2] for d in drained] == [(40000, 625)] * 4
    assert pause < 0.5 * secs, (pause, secs)
    reader = mindrecord.FileReader(path, columns=["id"])
    pause, secs, rows = longest_pause_during(lambda: reader.read(0, 40000))
    assert len(rows) == 40000
    assert pause < 0.8 * secs, (pause, secs)  # only the final dict building holds the GIL
