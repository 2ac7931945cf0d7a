"""Zero-copy reads from Python: FileReader(do_copy=False) and MindDataset
iterators with do_copy=False hand out read-only views of the mapped shard;
the default hands out copies the caller owns; nothing writes the file."""
import gc
import hashlib

import numpy as np
import pytest

import mindrecord


def _write(path, rows=50, shards=1):
    w = mindrecord.FileWriter(path, shards)
    # One blob field per dataset keeps every array 8-aligned in its page.
    w.add_schema({"id": {"type": "int64"}, "data": {"type": "bytes"}}, "rows")
    w.write_raw_data([{"id": i, "data": bytes([i % 251]) * (100 + i)} for i in range(rows)])
    w.commit()
    return path if shards == 1 else path + "0"


def _digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def test_file_reader_do_copy_false_gives_read_only_views_that_outlive_close(tmp_path):
    path = _write(str(tmp_path / "z.mindrecord"))
    before = _digest(path)
    r = mindrecord.FileReader(path, do_copy=False)
    rows = list(r.get_next())
    r.close()
    del r
    gc.collect()
    assert [int(x["id"]) for x in rows] == list(range(50))
    for x in rows:
        v = x["data"]
        assert isinstance(v, memoryview) and v.readonly
        assert bytes(v) == bytes([x["id"] % 251]) * (100 + x["id"])  # read after close(): the mapping lives on
        with pytest.raises(TypeError):
            v[0] = 1
    assert _digest(path) == before
    # The default: bytes, as MindSpore's FileReader returns them.
    with mindrecord.FileReader(path) as r:
        first = next(r.get_next())
        assert type(first["data"]) is bytes
        assert r.read(3, 5)[1]["data"] == bytes([4]) * 104
    with mindrecord.FileReader(path, do_copy=False) as r:
        assert isinstance(r.read(3, 5)[1]["data"], memoryview)
    with pytest.raises(TypeError, match="do_copy"):
        mindrecord.FileReader(path, do_copy=0)


def test_file_reader_views_of_compressed_rows_are_copies(tmp_path):
    w = mindrecord.FileWriter(str(tmp_path / "zc.mindrecord"), 1, compression="zstd")
    w.add_schema({"id": {"type": "int64"}, "data": {"type": "bytes"}}, "rows")
    w.write_raw_data([{"id": i, "data": bytes([i]) * 300} for i in range(20)])
    w.commit()
    with mindrecord.FileReader(str(tmp_path / "zc.mindrecord"), do_copy=False) as r:
        rows = list(r.get_next())
    # Decompressed bytes cannot be a view of the file: plain bytes objects.
    assert all(type(x["data"]) is bytes and x["data"] == bytes([x["id"]]) * 300 for x in rows)


def test_dataset_rows_do_copy_false(tmp_path):
    path = _write(str(tmp_path / "d.mindrecord"), shards=2)
    ds = mindrecord.MindDataset(path, columns_list=["data", "id"], shuffle=True, seed=4)
    copied = list(ds.create_dict_iterator(num_epochs=1, output_numpy=True))
    ds = mindrecord.MindDataset(path, columns_list=["data", "id"], shuffle=True, seed=4)
    viewed = list(ds.create_dict_iterator(num_epochs=1, output_numpy=True, do_copy=False))
    del ds
    gc.collect()
    assert [int(x["id"]) for x in copied] == [int(x["id"]) for x in viewed]
    # MindSpore's types: bytes as uint8 arrays, writable copies or read-only
    # views of the mapped shard.
    for c, v in zip(copied, viewed):
        assert c["data"].dtype == np.uint8 and c["data"].flags.writeable
        assert v["data"].dtype == np.uint8 and not v["data"].flags.writeable
        assert v["data"].tobytes() == c["data"].tobytes()


def test_ragged_arrays_of_a_mapped_shard_come_out_writable_without_touching_the_file(tmp_path):
    path = str(tmp_path / "a.mindrecord")
    w = mindrecord.FileWriter(path, 1)
    w.add_schema({"vec": {"type": "float32", "shape": [-1]}}, "ragged arrays")
    w.write_raw_data([{"vec": np.arange(1 + i % 5, dtype=np.float32) + i} for i in range(40)])
    w.commit()
    before = _digest(path)
    # Batched ragged arrays are one array per row, read as views of the
    # mapping: handed to Python they must be copies the caller may write.
    ds = mindrecord.MindDataset(path, shuffle=False, io_mode="mmap").batch(4)
    seen = 0
    for batch in ds.create_dict_iterator(num_epochs=1, output_numpy=True):
        for k, a in enumerate(batch["vec"]):
            assert a.flags.writeable
            assert np.array_equal(a, np.arange(1 + (seen + k) % 5, dtype=np.float32) + seen + k)
            a[:] = -1
        seen += len(batch["vec"])
    assert seen == 40
    assert _digest(path) == before
    again = next(iter(mindrecord.MindDataset(path, shuffle=False).batch(4).create_dict_iterator(
        num_epochs=1, output_numpy=True)))
    assert np.array_equal(again["vec"][1], np.arange(2, dtype=np.float32) + 1)
