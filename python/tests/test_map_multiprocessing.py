"""MindSpore's map(..., python_multiprocessing=True) and
batch(..., per_batch_map=..., python_multiprocessing=True): callables run in
worker processes (spawned), arrays through shared memory, with the rows,
order, errors and resume state of the thread path."""
import gc
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import mindrecord
from mindrecord import _mp_pool, vision
from conftest import write_simple, numpy_dicts

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def simple(tmp_path_factory):
    d = tmp_path_factory.mktemp("mp")
    return write_simple(str(d / "s.mindrecord"), 40, shard_num=2) + "0"


# Module-level callables: worker processes are spawned, so callables pickle
# by reference to this module.

def heavy(v):
    """A CPU-bound per-row callable (numpy and pure Python)."""
    acc = 0.0
    for k in range(200):
        acc += float(np.sin(v + k).sum())
    return (v * 2 + acc * 0).astype(np.float64)


def split3(i, vec):
    return np.asarray(i * 10, np.int64), vec.sum(keepdims=True), np.stack([vec, vec])


def pair_to_one(i, label):
    return np.asarray(int(i) * 100 + int(label), np.int64)


def fan_out(vec):
    return vec[:1], vec[1:], vec.astype(np.int32), np.asarray(vec.size, np.int64)


def whose_pid(i):
    return np.asarray(os.getpid(), np.int64)


def fails_on_seven(i):
    if int(i) == 7:
        raise KeyError("no seven here")
    return i


def exits_on_five(i):
    if int(i) == 5:
        os._exit(3)
    return i


def segfaults_on_five(i):
    if int(i) == 5:
        os.kill(os.getpid(), signal.SIGSEGV)
    return i


def big_output(i):
    return np.zeros((3, 1024, 1024), np.uint8) + np.uint8(int(i) % 200)


def slow(i):
    time.sleep(0.05)
    return i


def slower_on_three(i):
    if int(i) == 3:
        time.sleep(2.5)
    return i


def label_batch(ids, labels, info):
    return [i * 2 for i in ids], np.stack(labels) + info.get_batch_num() * 1000


def _rows(ds):
    out = []
    for b in ds.create_dict_iterator(num_epochs=1, output_numpy=True):
        out.append({k: (v.tolist() if isinstance(v, np.ndarray) else [x.tolist() for x in v]) for k, v in b.items()})
    return out


def _segments():
    prefix = "mr_mp_%d_" % os.getpid()
    return sorted(n for n in os.listdir("/dev/shm") if n.startswith(prefix))


def _alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


def _wait_gone(pids, deadline_s=30):
    """Waits for processes to go (no timing is asserted: the deadline only
    keeps a broken implementation from hanging the suite)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end and any(_alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


def test_rows_equal_the_thread_path(simple):
    def build(mp):
        ds = mindrecord.MindDataset(simple, shuffle=True, seed=11, num_parallel_workers=2)
        ds = ds.map(heavy, input_columns="vec", num_parallel_workers=2, python_multiprocessing=mp)
        return ds.batch(6)
    threads = _rows(build(False))
    procs = _rows(build(True))
    assert procs == threads and len(procs) == 7
    assert _segments() == []


def test_callables_run_in_other_processes(simple):
    ds = mindrecord.MindDataset(simple, shuffle=False).map(whose_pid, input_columns="id", output_columns="pid",
                                                         num_parallel_workers=2, python_multiprocessing=True)
    pids = {int(r["pid"]) for r in numpy_dicts(ds)}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    assert _wait_gone(pids) == []  # the iteration ended: its workers were stopped


def test_multi_column_maps_with_c_ops(simple):
    def build(mp):
        ds = mindrecord.MindDataset(simple, shuffle=False, num_parallel_workers=3)
        ds = ds.map(split3, input_columns=["id", "vec"],
                    output_columns=["a", "b", "c"], python_multiprocessing=mp, num_parallel_workers=2)
        ds = ds.map(pair_to_one, input_columns=["a", "label"], output_columns="al", python_multiprocessing=mp)
        ds = ds.map([vision.TypeCast("float64"), fan_out], input_columns="c", output_columns=["w", "x", "y", "z"],
                    python_multiprocessing=mp, max_rowsize=[1, 2])
        return ds.batch(8)
    threads, procs = _rows(build(False)), _rows(build(True))
    assert procs == threads
    first = procs[0]
    assert sorted(first) == ["al", "b", "w", "x", "y", "z"]
    assert first["al"] == [i * 1000 + i % 5 for i in range(8)]
    assert first["y"][3] == [[3, 3, 3], [3, 3, 3]] and first["z"] == [6] * 8


def test_per_batch_map_in_processes(simple):
    def build(mp):
        ds = mindrecord.MindDataset(simple, shuffle=False)
        return ds.batch(5, per_batch_map=label_batch, input_columns=["id", "label"], python_multiprocessing=mp,
                        num_parallel_workers=2)
    threads, procs = _rows(build(False)), _rows(build(True))
    assert procs == threads
    assert procs[1]["id"] == [10, 12, 14, 16, 18] and procs[1]["label"] == [1000, 1001, 1002, 1003, 1004]


def test_exception_names_callable_and_row(simple):
    ds = mindrecord.MindDataset(simple, shuffle=False, num_parallel_workers=2)
    ds = ds.map(fails_on_seven, input_columns="id", python_multiprocessing=True).batch(4)
    with pytest.raises(RuntimeError) as info:
        for _ in ds:
            pass
    msg = str(info.value)
    assert "fails_on_seven" in msg and "column 'id'" in msg and "KeyError" in msg and "no seven here" in msg
    assert "row 7 (shard 0" in msg
    cause = info.value.__cause__
    assert isinstance(cause, KeyError)
    assert "In the worker process" in str(cause.__cause__) and "fails_on_seven" in str(cause.__cause__)
    assert _segments() == []


@pytest.mark.parametrize("fn, how", [(exits_on_five, "exited with code 3"),
                                     (segfaults_on_five, "killed by signal SIGSEGV")])
def test_a_dead_worker_is_an_error_naming_it(simple, fn, how):
    ds = mindrecord.MindDataset(simple, shuffle=False, num_parallel_workers=2)
    ds = ds.map(fn, input_columns="id", python_multiprocessing=True)
    with pytest.raises(RuntimeError) as info:
        list(ds)
    msg = str(info.value)
    assert "python_multiprocessing worker process" in msg and how in msg and fn.__name__ in msg
    assert "row 5 (shard 0" in msg
    assert _segments() == []


def test_unpicklable_callable_is_refused_at_map(simple):
    ds = mindrecord.MindDataset(simple, shuffle=False)
    with pytest.raises(TypeError, match=r"<lambda>' cannot be sent to the worker processes.*spawn.*pickle"):
        ds.map(lambda v: v, input_columns="vec", python_multiprocessing=True)

    def local(v):
        return v
    with pytest.raises(TypeError, match="local"):
        ds.batch(2, per_batch_map=local, python_multiprocessing=True)


def test_bad_keywords(simple):
    ds = mindrecord.MindDataset(simple, shuffle=False)
    with pytest.raises(TypeError, match="python_multiprocessing must be a bool"):
        ds.map(heavy, input_columns="vec", python_multiprocessing=1)
    for bad in (0, -2, [1], "16", 1.5):
        with pytest.raises(ValueError, match="max_rowsize"):
            ds.map(heavy, input_columns="vec", python_multiprocessing=True, max_rowsize=bad)


def test_start_method_config():
    from mindrecord import config
    assert config.get_multiprocessing_start_method() == "spawn"
    config.set_multiprocessing_start_method("spawn")
    with pytest.raises(NotImplementedError, match="fork"):
        config.set_multiprocessing_start_method("fork")
    with pytest.raises(ValueError, match="forkserver"):
        config.set_multiprocessing_start_method("forkserver")
    with pytest.raises(TypeError):
        config.set_multiprocessing_start_method(1)


def test_max_rowsize(simple):
    ds = mindrecord.MindDataset(simple, shuffle=False, num_parallel_workers=2)
    small = ds.map(big_output, input_columns="id", output_columns="img", python_multiprocessing=True,
                   max_rowsize=2)
    with pytest.raises(RuntimeError, match=r"big_output.*3145728 bytes, more than max_rowsize \(2 MB\)"):
        list(small)
    # Default (None, as -1): slots grow to the rows.
    grown = ds.map(big_output, input_columns="id", output_columns="img", python_multiprocessing=True)
    rows = list(numpy_dicts(grown.take(4)))
    assert [int(r["img"][2, 1000, 1000]) for r in rows] == [0, 1, 2, 3]
    assert rows[3]["img"].shape == (3, 1024, 1024)
    assert _segments() == []


def test_without_shared_memory_rows_travel_through_the_pipes(simple):
    # MindSpore's config.set_enable_shared_mem(False): nothing in /dev/shm,
    # the same rows (arrays larger than the default slot, strings, ints).
    want = _rows(mindrecord.MindDataset(simple, shuffle=False).map(split3, input_columns=["id", "vec"],
                                                                   output_columns=["a", "b", "c"]))
    assert mindrecord.config.get_enable_shared_mem() is True
    mindrecord.config.set_enable_shared_mem(False)
    try:
        assert mindrecord.config.get_enable_shared_mem() is False
        ds = mindrecord.MindDataset(simple, shuffle=False, num_parallel_workers=2)
        piped = ds.map(split3, input_columns=["id", "vec"], output_columns=["a", "b", "c"],
                       python_multiprocessing=True)
        big = ds.map(big_output, input_columns="id", output_columns="img", python_multiprocessing=True,
                     max_rowsize=1)
        it = piped.create_dict_iterator(num_epochs=1, output_numpy=True)
        first = next(it)
        assert _segments() == []  # workers running, no segment made
        got = [first] + list(it)
        imgs = [int(r["img"][2, 1000, 1000]) for r in numpy_dicts(big.take(3))]
    finally:
        mindrecord.config.set_enable_shared_mem(True)
    assert [{k: v.tolist() for k, v in r.items()} for r in got] == want
    assert imgs == [0, 1, 2]
    with pytest.raises(TypeError, match="enable must be a bool"):
        mindrecord.config.set_enable_shared_mem(0)


def test_a_slow_worker_is_logged_each_timeout_interval(simple, caplog):
    # MindSpore's config.set_multiprocessing_timeout_interval: a warning per
    # interval while a worker process has not answered; the rows still come.
    assert mindrecord.config.get_multiprocessing_timeout_interval() == 300
    mindrecord.config.set_multiprocessing_timeout_interval(1)
    try:
        ds = mindrecord.MindDataset(simple, shuffle=False, num_parallel_workers=1).map(
            slower_on_three, input_columns="id", python_multiprocessing=True)
        with caplog.at_level("WARNING", logger="mindrecord"):
            got = [int(r["id"]) for r in numpy_dicts(ds.take(5))]
    finally:
        mindrecord.config.set_multiprocessing_timeout_interval(300)
    assert got == [0, 1, 2, 3, 4]
    # Row 3 takes 2.5 s: at least the warnings after 1 and 2 s (a loaded
    # machine may add some, e.g. while a process starts).
    waits = [r.getMessage() for r in caplog.records if "has not answered" in r.getMessage()]
    assert all("slower_on_three" in w for w in waits)
    assert any("for 1 s " in w for w in waits) and any("for 2 s " in w for w in waits)
    for bad, err in ((0, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(err):
            mindrecord.config.set_multiprocessing_timeout_interval(bad)


def test_state_dict_resumes_exactly(simple):
    def build(mp):
        ds = mindrecord.MindDataset(simple, shuffle=True, seed=5, num_parallel_workers=2)
        return ds.map(heavy, input_columns="vec", python_multiprocessing=mp).batch(4)
    expected = _rows(build(False))
    ds = build(True)
    it = ds.create_dict_iterator(num_epochs=1, output_numpy=True)
    head = [next(it)["vec"].tolist() for _ in range(3)]
    state = ds.state_dict()
    it.close()
    again = build(True)
    again.load_state_dict(state)
    tail = [b["vec"] for b in _rows(again)]
    assert head + tail == [b["vec"] for b in expected]
    assert _segments() == []


def test_closed_or_collected_iterators_stop_their_workers(simple):
    ds = mindrecord.MindDataset(simple, shuffle=False, num_parallel_workers=2)
    ds = ds.map(slow, input_columns="id", python_multiprocessing=True, num_parallel_workers=2)
    pool = _mp_pool.pools_in(ds._full_plan(1))[0]
    it = ds.create_dict_iterator(num_epochs=1)
    next(it)
    pids = pool.pids()
    assert len(pids) == 2 and all(_alive(p) for p in pids) and _segments()
    it.close()
    assert _wait_gone(pids) == [] and _segments() == []
    # Collected with its dataset (which holds its live iterator).
    it = iter(ds)
    next(it)
    pids = pool.pids()
    assert len(pids) == 2
    del it, ds
    gc.collect()
    assert pool.pids() == [] and _wait_gone(pids) == [] and _segments() == []


def test_torch_adapter_runs_the_map_in_processes(simple):
    torch_mod = pytest.importorskip("mindrecord.torch")

    def build(mp):
        ds = mindrecord.MindDataset(simple, shuffle=False)
        return ds.map(split3, input_columns=["id", "vec"], output_columns=["a", "b", "c"], python_multiprocessing=mp)
    got = []
    for mp in (False, True):
        tds = torch_mod.MindRecordDataset(build(mp), batch_size=8)
        got.append([{k: v.tolist() for k, v in b.items()} for b in tds])
    assert got[0] == got[1] and len(got[1]) == 5
    assert got[1][0]["a"] == [i * 10 for i in range(8)]


def test_dataloader_workers_start_their_own_processes(simple):
    torch = pytest.importorskip("torch")
    from mindrecord.torch import MindRecordDataset

    def build(mp):
        ds = mindrecord.MindDataset(simple, shuffle=False)
        return ds.map(split3, input_columns=["id", "vec"], output_columns=["a", "b", "c"], python_multiprocessing=mp,
                      num_parallel_workers=1)
    want = [{k: v.tolist() for k, v in b.items()} for b in MindRecordDataset(build(False), batch_size=8)]
    loader = torch.utils.data.DataLoader(MindRecordDataset(build(True), batch_size=8), batch_size=None,
                                         num_workers=2)
    got = [{k: v.tolist() for k, v in b.items()} for b in loader]
    assert sorted(got, key=lambda b: b["a"][0]) == want


def test_callables_nested_in_compose_run_in_processes(simple):
    from mindrecord import transforms
    ds = mindrecord.MindDataset(simple, shuffle=False).map(
        [vision.TypeCast("int64"), transforms.Compose([whose_pid])], input_columns="id", output_columns="pid",
        python_multiprocessing=True, num_parallel_workers=2)
    pids = {int(r["pid"]) for r in numpy_dicts(ds)}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2


_PARENT = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    sys.path.insert(0, {here!r})
    import mindrecord
    from test_map_multiprocessing import slow

    if __name__ == "__main__":
        ds = mindrecord.MindDataset({path!r}, shuffle=False, num_parallel_workers=2)
        ds = ds.map(slow, input_columns="id", python_multiprocessing=True, num_parallel_workers=2)
        it = iter(ds)
        next(it)
        from mindrecord import _mp_pool
        pool = _mp_pool.pools_in(ds._full_plan(1))[0]
        print(" ".join(map(str, [os.getpid()] + pool.pids())), flush=True)
        time.sleep(600)
""")


def test_parent_killed_leaves_no_worker_and_no_segment(simple, tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(_PARENT.format(here=HERE, path=simple))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        line = proc.stdout.readline().decode()
        assert line, proc.stderr.read().decode()
        parent, *workers = map(int, line.split())
        assert len(workers) == 2 and all(_alive(w) for w in workers)
        prefix = "mr_mp_%d_" % parent
        assert any(n.startswith(prefix) for n in os.listdir("/dev/shm"))
        os.kill(parent, signal.SIGKILL)
        proc.wait()
        assert _wait_gone(workers) == []
        end = time.monotonic() + 30  # the resource tracker unlinks after the workers exit
        while time.monotonic() < end and any(n.startswith(prefix) for n in os.listdir("/dev/shm")):
            time.sleep(0.05)
        assert not [n for n in os.listdir("/dev/shm") if n.startswith(prefix)]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_callable_proxies_do_not_pickle_array_data(simple):
    """The layout sent through the pipe holds no array bytes."""
    from mindrecord import _mp_shm
    arr = np.arange(1 << 16, dtype=np.float32)
    layout, need = _mp_shm.plan((arr, b"x" * 1000, "label", [arr[:3]]))
    assert need >= arr.nbytes + 1000 and len(pickle.dumps(layout)) < 300


_UNGUARDED = """
import numpy as np
import mindrecord


class Big:  # a callable that pickles to 1 MB, more than a pipe holds
    def __init__(self):
        self.table = bytes(1 << 20)

    def __call__(self, x):
        return x


# No `if __name__ == "__main__":`: each spawned worker runs this again while
# it starts, and multiprocessing refuses to start processes from there.
ds = mindrecord.NumpySlicesDataset(np.arange(8), column_names=["x"], shuffle=False)
ds = ds.map(Big(), input_columns="x", num_parallel_workers=2, python_multiprocessing=True)
print(sum(1 for _ in ds.create_tuple_iterator(num_epochs=1, output_numpy=True)))
"""


def test_a_script_without_the_main_guard_is_an_error_not_a_hang(tmp_path):
    # The callables used to travel as the worker process's arguments, which
    # spawn writes into a pipe the parent still holds: a worker that died
    # while starting left the parent blocked in Process.start() for good.
    script = tmp_path / "unguarded.py"
    script.write_text(_UNGUARDED)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, env=env, timeout=120)
    err = done.stderr.decode()
    assert done.returncode == 1, err[-2000:]
    assert "exited with code 1 while starting" in err and 'if __name__ == "__main__":' in err, err[-2000:]
