#!/usr/bin/env python3
"""python_multiprocessing=True: a CPU-bound Python callable in a map at 1 and
2 worker processes, and on the pipeline's threads (the GIL path), as ratios
measured in the same invocation (median of --runs runs, interleaved).

usage: PYTHONPATH=build/python /usr/bin/python3 benchmarks/mp_map_bench.py [--rows N] [--runs R] [--json OUT]

Rates are steady-state rows/s from the first batch to the last (the worker
processes' start is reported apart, as "start_s"). "bare_pool_N" runs the
same callable over the same rows in a plain multiprocessing.Pool(N): the
scaling the machine gives N processes at that moment, the ceiling for ours
(on a shared machine with autogroup scheduling, all processes of one
session share one CPU share, so neither scales there). The callable's own CPU
time per row is measured in this process, so a loaded machine shows in the
rates, not in that figure. Prints one JSON object; the load average
(`uptime`) is part of it.
"""
import argparse
import json
import os
import statistics
import tempfile
import time

import numpy as np

import mindrecord

DIM = 4096
LOOP = 150000  # pure-Python iterations per row: about 10 ms of CPU on a 2020s x86 core


def cpu_bound(vec):
    """numpy and pure-Python work on one row (about 10 ms of CPU)."""
    acc = 0.0
    for k in range(40):
        acc += float(np.tanh(vec * (k + 1)).sum())
    total = 0
    for k in range(LOOP):
        total += k * k % 7
    return (vec * 0.5 + (acc + total) * 0.0).astype(np.float32)


_moved = []


def cpu_bound_own_session(vec):
    """cpu_bound, run after moving this worker process to a session of its
    own (once): --own-sessions."""
    if not _moved:
        _moved.append(os.getpid())
        if os.getpid() != os.getsid(0):
            os.setsid()
    return cpu_bound(vec)


def make(path, rows):
    w = mindrecord.FileWriter(path, overwrite=True)
    w.add_schema({"id": {"type": "int64"}, "vec": {"type": "float32", "shape": [DIM]}}, "mp_bench")
    rng = np.random.RandomState(0)
    w.write_raw_data([{"id": i, "vec": rng.rand(DIM).astype(np.float32)} for i in range(rows)])
    w.commit()


def run_once(path, procs, threads, fn):
    ds = mindrecord.MindDataset(path, shuffle=False, num_parallel_workers=max(2, procs or threads))
    if procs:
        ds = ds.map(fn, input_columns="vec", num_parallel_workers=procs, python_multiprocessing=True)
    else:
        ds = ds.map(cpu_bound, input_columns="vec", num_parallel_workers=threads)
    ds = ds.batch(8)
    t0 = time.perf_counter()
    it = ds.create_dict_iterator(num_epochs=1, output_numpy=True)
    next(it)  # the first batch: the processes have started
    t1 = time.perf_counter()
    n = 0
    for b in it:
        n += len(b["id"])
    t2 = time.perf_counter()
    it.close()
    assert n > 0
    return n / (t2 - t1), t1 - t0


def run_bare(vecs, procs, fn):
    """The ceiling: the same callable over the same rows in a plain
    multiprocessing.Pool of `procs` spawned processes (what the machine
    gives this many processes now), rows/s."""
    import multiprocessing
    with multiprocessing.get_context("spawn").Pool(procs) as pool:
        pool.map(fn, vecs[:procs])  # started and warm
        t0 = time.perf_counter()
        pool.map(fn, vecs, chunksize=1)
        return len(vecs) / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=160)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", help="also write the result here")
    ap.add_argument("--own-sessions", action="store_true",
                    help="an experiment for shared machines: each worker process moves to a session of its own "
                         "(os.setsid) before its first row, so that autogroup scheduling gives it its own CPU share "
                         "as an idle machine would (mindrecord's workers stay in the parent's session)")
    a = ap.parse_args()
    fn = cpu_bound_own_session if a.own_sessions else cpu_bound
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "mp.mindrecord")
        make(path, a.rows)
        vec = np.random.RandomState(1).rand(DIM).astype(np.float32)
        c0 = time.process_time()
        for _ in range(20):
            cpu_bound(vec)
        cpu_ms = (time.process_time() - c0) / 20 * 1e3
        cases = {"threads_2": (0, 2), "procs_1": (1, 0), "procs_2": (2, 0)}
        rates = {k: [] for k in list(cases) + ["bare_pool_1", "bare_pool_2"]}
        starts = {k: [] for k in cases}
        vecs = [np.random.RandomState(i).rand(DIM).astype(np.float32) for i in range(a.rows)]
        load_before = os.getloadavg()
        for _ in range(a.runs):
            for k, (procs, threads) in cases.items():
                r, s = run_once(path, procs, threads, fn)
                rates[k].append(r)
                starts[k].append(s)
            for procs in (1, 2):
                rates["bare_pool_%d" % procs].append(run_bare(vecs, procs, fn))
        load_after = os.getloadavg()
    med = {k: statistics.median(v) for k, v in rates.items()}
    out = {
        "benchmark": "map python_multiprocessing, CPU-bound callable",
        "rows": a.rows, "runs": a.runs, "cpus": os.cpu_count(), "own_sessions": a.own_sessions,
        "callable_cpu_ms_per_row": round(cpu_ms, 2),
        "rows_per_s_median": {k: round(v, 1) for k, v in med.items()},
        "rows_per_s_all": {k: [round(x, 1) for x in v] for k, v in rates.items()},
        "start_s_median": {k: round(statistics.median(v), 3) for k, v in starts.items()},
        "procs_2_over_procs_1": round(med["procs_2"] / med["procs_1"], 2),
        "procs_2_over_threads_2": round(med["procs_2"] / med["threads_2"], 2),
        "bare_pool_2_over_bare_pool_1": round(med["bare_pool_2"] / med["bare_pool_1"], 2),
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in load_after],
    }
    text = json.dumps(out, indent=1)
    print(text)
    if a.json:
        with open(a.json, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
