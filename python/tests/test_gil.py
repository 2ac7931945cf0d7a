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


_COLLECTED_ON_ITS_OWN_WORKER = r'''
import gc, sys, threading
import mindrecord
path = sys.argv[1]
w = mindrecord.FileWriter(path)
w.add_schema({"id": {"type": "int64"}})
w.write_raw_data([{"id": i} for i in range(64)])
w.commit()
garbage, collected = threading.Event(), threading.Event()

def f(x):
    if int(x) == 1:  # a worker runs this while the main thread holds row 0
        garbage.wait(30)
        gc.collect()  # finds the abandoned iterator of this very pipeline
        collected.set()
    return x

gc.disable()  # only the worker's explicit collection may find it
it = mindrecord.MindDataset(path, shuffle=False, num_parallel_workers=1).map(
    f, input_columns="id").create_dict_iterator(num_epochs=1, output_numpy=True)
assert int(next(it)["id"]) == 0
it.cycle = it  # reachable only through a reference cycle: the GC's to free
del it
garbage.set()
assert collected.wait(30)
print("ok")
'''


def test_an_iterator_collected_on_its_own_worker_thread_stops_its_pipeline(tmp_path):
    # A map's Python callable can set off a garbage collection that frees the
    # (abandoned) iterator of the pipeline running the callable. Closing that
    # pipeline joins its workers, the calling thread among them: that aborted
    # the process. The pipeline is now stopped by another thread.
    import os
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run([sys.executable, "-c", _COLLECTED_ON_ITS_OWN_WORKER, str(tmp_path / "c.mindrecord")],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (r.returncode, r.stdout, r.stderr[-2000:])
