"""Bounded memory and reference counts over many iterations."""
import gc
import sys
import tracemalloc

import numpy as np

import mindrecord
from conftest import write_simple, numpy_dicts


def assert_no_growth(one_round, probes):
    """After 5 warm-up rounds, 40 more leave the probes' reference counts,
    the number of live objects and traced memory where they were."""
    for _ in range(5):
        one_round()
    gc.collect()
    refs = [sys.getrefcount(x) for x in probes]
    objects = len(gc.get_objects())
    tracemalloc.start()
    for _ in range(40):
        one_round()
    gc.collect()
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert [sys.getrefcount(x) for x in probes] == refs
    assert len(gc.get_objects()) - objects < 200
    assert current < 1_000_000, current


def test_no_reference_or_memory_growth(tmp_path):
    path = write_simple(str(tmp_path / "l.mindrecord"), 64)
    reader = mindrecord.FileReader(path)
    ds = mindrecord.MindDataset(path, seed=1).batch(16)
    probe = {"id": 1, "label": 2, "vec": np.zeros(3, np.float32)}

    def one_round():
        for row in reader.get_next():
            assert row["id"] >= 0
        for b in numpy_dicts(ds):
            assert b["vec"].shape[1] == 3
        page = mindrecord.MindPage(path)
        page.category_field = "label"
        page.read_at_page_by_id(0, 0, 3)
        w = mindrecord.FileWriter(str(tmp_path / "w.mindrecord"), overwrite=True)
        w.add_schema({"id": {"type": "int64"}, "label": {"type": "int32"}, "vec": {"type": "float32", "shape": [3]}})
        w.write_raw_data([probe] * 8)
        try:
            w.write_raw_data([{"id": "bad"}])
        except ValueError:
            pass
        w.commit()

    assert_no_growth(one_round, (probe, probe["vec"]))


def test_batch_arrays_outlive_pipeline(tmp_path):
    path = write_simple(str(tmp_path / "k.mindrecord"), 40)
    kept = []
    for b in numpy_dicts(mindrecord.MindDataset(path, shuffle=False).batch(8)):
        kept.append(b["vec"])
    gc.collect()
    got = np.concatenate(kept)
    # write_simple rows are in stream order on one shard: vec = [i, i, i].
    np.testing.assert_array_equal(got[:, 0], np.arange(40, dtype=np.float32))


def test_callables_and_padding_do_not_leak(tmp_path):
    path = write_simple(str(tmp_path / "c.mindrecord"), 64)
    token = np.ones(5)

    def fn(v):
        return v + token[0]

    def boom(v):
        raise ValueError("boom")

    pad = {"id": -1, "label": 0, "vec": np.zeros(3, np.float32)}
    ds = mindrecord.MindDataset(path, seed=1, num_shards=3, shard_id=1, padded_sample=pad, num_padded=2)
    ds = ds.map([fn, mindrecord.vision.TypeCast("float64"), fn], input_columns="vec").batch(8)
    bad = mindrecord.MindDataset(path, shuffle=False).map(boom, input_columns="id")

    def one_round():
        assert sum(b["vec"].shape[0] for b in numpy_dicts(ds)) == 22
        try:
            list(bad)
        except RuntimeError:
            pass

    assert_no_growth(one_round, (fn, token, pad["vec"]))


def test_batch_allocator_buffers_are_used_and_released(tmp_path):
    """The pipeline's Python batch allocator (used by mindrecord.torch in
    DataLoader workers): batches are built in the buffers it returns, handed
    back as those objects, and every buffer is released."""
    import json
    import weakref

    from mindrecord import _core

    path = write_simple(str(tmp_path / "a.mindrecord"), 50)
    plan = json.dumps({"source": [path], "columns": ["id", "vec"], "sampler": {"type": "sequential"},
                       "batch": {"batch_size": 8}, "num_workers": 2, "queue_depth": 2})
    made = []

    def alloc(dtype, shape):
        a = np.empty(shape, dtype)
        made.append(weakref.ref(a))
        return a, a.ctypes.data, a.nbytes

    for _ in range(3):
        got = []
        pipe = _core.Pipeline(plan, None, alloc)
        while (item := pipe.next()) is not None:
            got.append(item[0])
        pipe.close()
        assert all(any(r() is b["vec"] for r in made) for b in got)
        np.testing.assert_array_equal(np.concatenate([b["vec"][:, 0] for b in got]), np.arange(50, dtype=np.float32))
        np.testing.assert_array_equal(np.concatenate([b["id"] for b in got]), np.arange(50))
        del got, item
    gc.collect()
    assert len(made) == 3 * 7 * 2 and all(r() is None for r in made)

    def short(dtype, shape):
        a = np.empty(1, dtype)
        return a, a.ctypes.data, a.nbytes

    def boom(dtype, shape):
        raise MemoryError("no shared memory")

    for bad, text in ((short, "bytes"), (boom, "no shared memory")):
        pipe = _core.Pipeline(plan, None, bad)
        try:
            pipe.next()
            raise AssertionError("expected an error")
        except RuntimeError as e:
            assert text in str(e)
        pipe.close()
