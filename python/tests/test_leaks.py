"""Bounded memory and reference counts over many iterations."""
import gc
import sys
import tracemalloc

import numpy as np

import mindrecord
from conftest import write_simple


def test_no_reference_or_memory_growth(tmp_path):
    path = write_simple(str(tmp_path / "l.mindrecord"), 64)
    reader = mindrecord.FileReader(path)
    ds = mindrecord.MindDataset(path, seed=1).batch(16)
    probe = {"id": 1, "label": 2, "vec": np.zeros(3, np.float32)}

    def one_round():
        for row in reader.get_next():
            assert row["id"] >= 0
        for b in ds:
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

    for _ in range(5):
        one_round()
    gc.collect()
    refs = [sys.getrefcount(x) for x in (probe, probe["vec"], None, 1, 2)]
    objects = len(gc.get_objects())
    tracemalloc.start()
    for _ in range(40):
        one_round()
    gc.collect()
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert [sys.getrefcount(x) for x in (probe, probe["vec"])] == refs[:2]
    assert len(gc.get_objects()) - objects < 200
    assert current < 1_000_000, current


def test_batch_arrays_outlive_pipeline(tmp_path):
    path = write_simple(str(tmp_path / "k.mindrecord"), 40)
    kept = []
    for b in mindrecord.MindDataset(path, shuffle=False).batch(8):
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
        assert sum(b["vec"].shape[0] for b in ds) == 22
        try:
            list(bad)
        except RuntimeError:
            pass

    for _ in range(5):
        one_round()
    gc.collect()
    refs = [sys.getrefcount(x) for x in (fn, token, pad["vec"])]
    objects = len(gc.get_objects())
    tracemalloc.start()
    for _ in range(40):
        one_round()
    gc.collect()
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert [sys.getrefcount(x) for x in (fn, token, pad["vec"])] == refs
    assert len(gc.get_objects()) - objects < 200
    assert current < 1_000_000, current
