"""MindDataset.map with Python callables, alone and mixed with C++ ops."""
import os
import threading
import time

import numpy as np
import pytest

import mindrecord
from mindrecord import vision
from conftest import write_simple, numpy_dicts


@pytest.fixture(scope="module")
def simple(tmp_path_factory):
    d = tmp_path_factory.mktemp("fn")
    return write_simple(str(d / "s.mindrecord"), 50, shard_num=2)


def widen(v):
    # float32 [3] -> int16 [2, 3]
    return np.stack([v, v * 2]).astype(np.int16)


def test_callable_changes_dtype_and_shape(simple):
    ds = mindrecord.MindDataset(simple + "0", shuffle=False).map(widen, input_columns="vec").batch(8)
    batches = list(numpy_dicts(ds))
    assert len(batches) == 7
    b = batches[0]
    assert b["vec"].dtype == np.int16 and b["vec"].shape == (8, 2, 3)
    for i, v in zip(b["id"], b["vec"]):
        assert v.tolist() == [[int(i)] * 3, [2 * int(i)] * 3]
    assert batches[-1]["vec"].shape == (2, 2, 3)


def test_callable_bool_arrays_stay_bool(simple):
    # numpy bool results keep their dtype, row by row and batched, and a
    # later callable or TypeCast gets them as bool.
    seen = []

    def odd(v):
        return v.astype(np.int64) % 2 == 1

    def record(v):
        seen.append(v.dtype)
        return v

    ds = mindrecord.MindDataset(simple + "0", shuffle=False).map([odd, record], input_columns="vec")
    rows = list(numpy_dicts(ds))
    assert seen and all(d == np.bool_ for d in seen)
    for r in rows:
        assert r["vec"].dtype == np.bool_ and r["vec"].tolist() == [int(r["id"]) % 2 == 1] * 3
    b = next(iter(numpy_dicts(ds.batch(4))))
    assert b["vec"].dtype == np.bool_ and b["vec"].shape == (4, 3)
    as_int = mindrecord.MindDataset(simple + "0", shuffle=False).map([odd, vision.TypeCast("int32")],
                                                                     input_columns="vec")
    assert [r["vec"].tolist() for r in numpy_dicts(as_int)] == [[int(r["id"]) % 2] * 3 for r in rows]


def test_mixed_list_runs_in_order(simple):
    seen = []

    def check_and_scale(v):
        seen.append(v.dtype)
        return v * 10

    ops = [vision.TypeCast("float64"), check_and_scale, vision.TypeCast("int32"), lambda v: v - 1]
    rows = list(numpy_dicts(mindrecord.MindDataset(simple + "0", shuffle=False).map(ops, input_columns=["vec"])))
    assert all(d == np.float64 for d in seen) and len(seen) == 50
    for r in rows:
        assert r["vec"].dtype == np.int32
        assert r["vec"].tolist() == [int(r["id"]) * 10 - 1] * 3


def test_same_order_for_any_worker_count(simple):
    def stamp(v):
        return np.asarray(v * 3 + 1, np.int64)

    runs = []
    for w in (1, 2, 6):
        ds = mindrecord.MindDataset(simple + "0", num_parallel_workers=w, seed=4)
        ds = ds.map(stamp, input_columns="id").map([vision.TypeCast("float64"), np.sqrt], input_columns="vec")
        runs.append([(int(b["id"][i]), b["vec"][i].tolist()) for b in numpy_dicts(ds.batch(7)) for i in range(len(b["id"]))])
    assert runs[0] == runs[1] == runs[2]
    assert sorted(i for i, _ in runs[0]) == [3 * i + 1 for i in range(50)]
    assert [i for i, _ in runs[0]] != sorted(i for i, _ in runs[0])
    for i, v in runs[0]:
        assert v == pytest.approx([np.sqrt((i - 1) // 3)] * 3)


def test_callables_run_off_the_main_thread_and_bytes_strings(tmp_path):
    path = str(tmp_path / "b.mindrecord")
    w = mindrecord.FileWriter(path)
    w.add_schema({"data": {"type": "bytes"}, "name": {"type": "string"}, "n": {"type": "int32"}})
    w.write_raw_data([{"data": bytes(range(i, i + 4)), "name": "row%d" % i, "n": i} for i in range(6)])
    w.commit()
    threads = set()

    def byte_sum(a):
        threads.add(threading.get_ident())
        assert a.dtype == np.uint8 and a.ndim == 1
        return np.asarray(a.sum(), np.int64)

    def upper(s):
        assert isinstance(s, np.ndarray) and s.ndim == 0
        return str(s).upper()

    def as_bytes(s):
        return str(s).encode() + b"!"

    ds = mindrecord.MindDataset(path, shuffle=False, num_parallel_workers=2)
    ds = ds.map(byte_sum, input_columns="data").map(upper, input_columns="name")
    rows = list(numpy_dicts(ds))
    assert [int(r["data"]) for r in rows] == [4 * i + 6 for i in range(6)]
    assert [r["name"] for r in rows] == ["ROW%d" % i for i in range(6)]
    assert threading.get_ident() not in threads
    rows = list(numpy_dicts(mindrecord.MindDataset(path, shuffle=False).map(as_bytes, input_columns="name").batch(3)))
    # Bytes of equal length batch into one uint8 array, as in MindSpore.
    assert rows[0]["name"].dtype == np.uint8 and [bytes(x) for x in rows[0]["name"]] == [b"row0!", b"row1!", b"row2!"]


def test_exception_in_callable_names_column_and_row(simple):
    def fails_on_seven(v):
        if int(v) == 7:
            raise KeyError("no seven here")
        return v

    ds = mindrecord.MindDataset(simple + "0", shuffle=False, num_parallel_workers=3)
    ds = ds.map(fails_on_seven, input_columns="id").batch(4)
    with pytest.raises(RuntimeError) as info:
        for _ in ds:
            pass
    msg = str(info.value)
    assert "fails_on_seven" in msg and "column 'id'" in msg and "KeyError" in msg and "no seven here" in msg
    # Row 7 is local row 7 of shard 0 (one write call: shard 0 holds rows 0..24).
    assert "row 7 (shard 0" in msg and "local row 7" in msg
    assert isinstance(info.value.__cause__, KeyError)


def test_error_samples_mode_skip_drops_the_failing_rows(simple):
    # MindSpore's config.set_error_samples_mode(ErrorSamplesMode.SKIP): the
    # rows a map fails on are dropped, batches stay full, stats() name them.
    from mindrecord.config import ErrorSamplesMode, get_error_samples_mode, set_error_samples_mode

    def fails_on_sevens(v):
        if int(v) % 10 == 7:
            raise KeyError("no sevens here")
        return v

    ds = mindrecord.MindDataset(simple + "0", shuffle=False, num_parallel_workers=3)
    assert get_error_samples_mode() is ErrorSamplesMode.RETURN
    with pytest.raises(TypeError, match="ErrorSamplesMode"):
        set_error_samples_mode("skip")
    with pytest.raises(NotImplementedError, match="REPLACE"):
        set_error_samples_mode(ErrorSamplesMode.REPLACE)
    set_error_samples_mode(ErrorSamplesMode.SKIP)
    try:
        it = ds.map(fails_on_sevens, input_columns="id").batch(4).create_dict_iterator(num_epochs=1,
                                                                                     output_numpy=True)
        ids = [i for b in it for i in b["id"].tolist()]
        stats = it.stats()
        # Unbatched rows without ops skip too (they take the pipeline, not the row stream).
        plain = [int(r["id"]) for r in mindrecord.MindDataset(simple + "0", shuffle=False).create_dict_iterator(
            num_epochs=1, output_numpy=True)]
    finally:
        set_error_samples_mode(ErrorSamplesMode.RETURN)
    assert ids == [i for i in range(50) if i % 10 != 7]
    assert stats["rows_skipped"] == 5 and "no sevens here" in stats["skipped_errors"][0]
    assert plain == list(range(50))
    with pytest.raises(RuntimeError, match="no sevens here"):
        list(ds.map(fails_on_sevens, input_columns="id"))


def test_bad_callable_results(simple):
    ds = mindrecord.MindDataset(simple + "0", shuffle=False)
    with pytest.raises(ValueError, match="dtype complex128"):
        list(ds.map(lambda v: v.astype(np.complex128), input_columns="vec"))
    with pytest.raises(ValueError, match="returned a tuple"):
        list(ds.map(lambda v: (v, v), input_columns="vec"))
    with pytest.raises(TypeError):
        ds.map([vision.HWC2CHW(), 3], input_columns="vec")


def test_resume_with_callable_in_a_new_dataset(simple):
    def make():
        # A new function object each time, as a restarted process would build.
        return mindrecord.MindDataset(simple + "0", seed=9).map(lambda v: v + 1, input_columns="id").batch(6)

    full = [b["id"].tolist() for b in numpy_dicts(make())]
    ds = make()
    it = iter(numpy_dicts(ds))
    head = [next(it)["id"].tolist(), next(it)["id"].tolist()]
    state = ds.state_dict()
    it.close()
    again = make()
    again.load_state_dict(state)
    assert head + [b["id"].tolist() for b in numpy_dicts(again)] == full
    assert sorted(x for b in full for x in b) == list(range(1, 51))


def test_gil_is_free_while_cpp_works_around_callables(tmp_path):
    from test_gil import longest_pause_during
    from mindrecord import _core
    path = str(tmp_path / "g.mindrecord")
    w = mindrecord.FileWriter(path)
    w.add_schema({"id": {"type": "int64"}, "v": {"type": "float32", "shape": [256]}})
    # Few rows: the measuring loop holds the GIL, so each call waits up to a
    # switch interval (5 ms) for it.
    # Enough rows for the run to last well over 0.05 s on a fast machine (3,000 once took 0.047 s).
    w.write_raw_data([{"id": i, "v": np.full(256, i, np.float32)} for i in range(8000)])
    w.commit()
    calls = []

    def count(x):
        calls.append(1)
        return x

    ds = mindrecord.MindDataset(path, seed=1, num_parallel_workers=2)
    plan = ds.map(count, input_columns="id").map(vision.TypeCast("float64"), input_columns="v").batch(64).plan()
    pause, secs, (n, _, _) = longest_pause_during(lambda: _core.drain_pipeline(plan))
    assert n == 8000 and len(calls) == 8000
    assert secs > 0.05 and pause < 0.5 * secs, (pause, secs)


def test_interpreter_exits_cleanly_with_a_live_iterator(simple, tmp_path):
    import os
    import subprocess
    import sys
    script = tmp_path / "live.py"
    script.write_text(
        "import time, mindrecord\n"
        "def slow(v):\n"
        "    time.sleep(0.001)\n"
        "    return v * 2\n"
        "ds = mindrecord.MindDataset(%r, seed=1, num_parallel_workers=4).map(slow, input_columns='vec').batch(4)\n"
        "live = iter(ds)\n"
        "next(live)\n"
        "print('ok')\n" % (simple + "0",))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def _os_threads():
    return len(os.listdir("/proc/self/task"))


def test_an_error_stops_the_workers_before_it_is_raised(simple):
    """The pipeline's worker threads are joined when a callable's error reaches
    the caller, not when the iterator is collected: a caught exception's
    traceback keeps the iterator alive, and its workers must not go on calling
    Python (they did, and raced with the interpreter)."""
    calls = []

    def boom(v):
        calls.append(1)
        raise ValueError("boom")

    before = _os_threads()
    it = iter(mindrecord.MindDataset(simple + "0", shuffle=False, num_parallel_workers=4).map(boom, input_columns="id"))
    with pytest.raises(RuntimeError) as info:
        next(it)
    assert info.value is not None  # the traceback (and through it the iterator) is still held
    # A joined thread may stay listed for a moment (pthread_join returns when
    # the kernel clears its id, before it is reaped); one not joined stays.
    deadline = time.monotonic() + 2
    while _os_threads() > before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _os_threads() <= before
    n = len(calls)
    time.sleep(0.2)
    assert len(calls) == n
