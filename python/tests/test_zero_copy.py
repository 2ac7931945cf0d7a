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


def test_file_reader_copies_rows_out_of_the_mapping_by_default(tmp_path):
    # A dataset that fits in memory is mapped for copies too (one copy per
    # row, from the page cache); the copies are the caller's, the file stays.
    path = _write(str(tmp_path / "m.mindrecord"))
    before = _digest(path)
    r = mindrecord.FileReader(path)
    assert r._reader.shard_io_modes == ["mmap"]
    rows = list(r.get_next())
    r.close()
    assert [x["data"] for x in rows] == [bytes([i % 251]) * (100 + i) for i in range(50)]
    assert all(type(x["data"]) is bytes for x in rows)
    page = mindrecord.MindPage(path)
    assert page._reader.shard_io_modes == ["mmap"]
    page.category_field = "id"
    assert page.read_at_page_by_name("7", 0, 1)[0]["data"] == bytes([7]) * 107
    assert _digest(path) == before


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



def _address(a):
    return a.__array_interface__["data"][0]


def _two_epochs(path, do_copy, batch, io_mode="mmap"):
    """{row id: value of `column`} per epoch, two epochs of one iterator (one
    reader: a view of a row has the same address in both)."""
    ds = mindrecord.MindDataset(path, shuffle=True, seed=5, io_mode=io_mode).batch(batch)
    it = ds.create_dict_iterator(num_epochs=2, output_numpy=True, do_copy=do_copy)
    epochs = []
    for _ in range(2):  # each loop over the iterator is one epoch, as in MindSpore
        epochs.append({rid: b for b in it for rid in b["id"].tolist()})
    return epochs


def test_batches_do_copy_false_hand_out_views_of_the_mapped_shard(tmp_path):
    path = _write(str(tmp_path / "b.mindrecord"), rows=60)  # rows of 100-159 bytes
    before = _digest(path)
    viewed, copied = _two_epochs(path, False, 8), _two_epochs(path, True, 8)
    gc.collect()  # the datasets and iterators are gone: the views keep the mapping
    for epochs in (viewed, copied):
        assert [sorted(e) for e in epochs] == [list(range(60))] * 2

    def value(batch, rid):
        return batch["data"][batch["id"].tolist().index(rid)]

    for i in range(60):
        data, again = value(viewed[0][i], i), value(viewed[1][i], i)
        assert data.dtype == np.uint8 and not data.flags.writeable
        assert data.tobytes() == bytes([i % 251]) * (100 + i)
        # A view of the shard, not a copy: the same bytes in both epochs.
        assert _address(data) == _address(again)
        with pytest.raises(ValueError):
            data[0] = 1
        c_data, c_again = value(copied[0][i], i), value(copied[1][i], i)
        assert c_data.flags.writeable and c_data.tobytes() == data.tobytes()
        assert _address(c_data) != _address(c_again)
        c_data[:] = 0
    assert _digest(path) == before
    # Read with pread there is no mapping to view: writable copies either way.
    for b in _two_epochs(path, False, 8, io_mode="pread")[0].values():
        assert all(a.flags.writeable for a in b["data"])


def test_batched_ragged_arrays_do_copy_false_are_views(tmp_path):
    path = str(tmp_path / "a.mindrecord")
    w = mindrecord.FileWriter(path, 1)
    # One blob field: every array stays 4-aligned in its page, so it can be viewed.
    w.add_schema({"id": {"type": "int64"}, "vec": {"type": "float32", "shape": [-1]}}, "ragged arrays")
    w.write_raw_data([{"id": i, "vec": np.arange(1 + i % 5, dtype=np.float32) + i} for i in range(60)])
    w.commit()
    viewed = _two_epochs(path, False, 4)
    for i in range(60):
        b, again = viewed[0][i], viewed[1][i]
        vec = b["vec"][b["id"].tolist().index(i)]
        assert not vec.flags.writeable and np.array_equal(vec, np.arange(1 + i % 5, dtype=np.float32) + i)
        assert _address(vec) == _address(again["vec"][again["id"].tolist().index(i)])
    copied = _two_epochs(path, True, 4)
    assert all(a.flags.writeable for e in copied for b in e.values() for a in b["vec"])
    # Unbatched rows through the pipeline (a map on another column): each
    # row's array is a view too; a copy by default.
    for do_copy in (False, True):
        ds = mindrecord.MindDataset(path, shuffle=False, io_mode="mmap").map(lambda i: i + 1, input_columns=["id"])
        rows = list(ds.create_dict_iterator(num_epochs=1, output_numpy=True, do_copy=do_copy))
        assert [int(r["id"]) for r in rows] == list(range(1, 61))
        for i, r in enumerate(rows):
            assert np.array_equal(r["vec"], np.arange(1 + i % 5, dtype=np.float32) + i)
            assert r["vec"].flags.writeable == do_copy


def test_bytes_of_one_length_are_stacked_copies_and_single_rows_views_with_do_copy_false(tmp_path):
    path = _write(str(tmp_path / "s.mindrecord"))
    ds = mindrecord.MindDataset(path, columns_list=["data"], shuffle=False, io_mode="mmap")
    ds = ds.map(lambda d: d[:50], input_columns=["data"]).batch(5)  # every row 50 bytes
    b = next(ds.create_dict_iterator(num_epochs=1, output_numpy=True, do_copy=False))
    assert b["data"].shape == (5, 50) and b["data"].flags.writeable  # stacked, as MindSpore batches them
    assert b["data"][3].tobytes() == bytes([3]) * 50
    # Unbatched rows through the pipeline (a map on another column): each
    # row's bytes are a view, as on the rows path; copies by default.
    for do_copy in (False, True):
        ds = mindrecord.MindDataset(path, shuffle=False, io_mode="mmap").map(lambda i: i + 1, input_columns=["id"])
        rows = list(ds.create_dict_iterator(num_epochs=1, output_numpy=True, do_copy=do_copy))
        assert [int(r["id"]) for r in rows] == list(range(1, 51))
        assert [r["data"].tobytes() for r in rows] == [bytes([i % 251]) * (100 + i) for i in range(50)]
        assert all(r["data"].flags.writeable == do_copy and r["data"].ndim == 1 for r in rows)


def test_batches_of_compressed_rows_with_do_copy_false_are_copies(tmp_path):
    w = mindrecord.FileWriter(str(tmp_path / "zb.mindrecord"), 1, compression="zstd")
    w.add_schema({"id": {"type": "int64"}, "data": {"type": "bytes"}}, "rows")
    w.write_raw_data([{"id": i, "data": bytes([i]) * (300 + i)} for i in range(20)])
    w.commit()
    ds = mindrecord.MindDataset(str(tmp_path / "zb.mindrecord"), shuffle=False, io_mode="mmap").batch(6)
    seen = 0
    for b in ds.create_dict_iterator(num_epochs=1, output_numpy=True, do_copy=False):
        for rid, a in zip(b["id"].tolist(), b["data"]):
            # Decompressed bytes are no view of the file: writable copies.
            assert a.flags.writeable and a.tobytes() == bytes([rid]) * (300 + rid)
            seen += 1
    assert seen == 20


def test_a_batch_of_views_and_copies_with_do_copy_false(tmp_path):
    # A concat of a compressed dataset (rows decompressed: copies) and a plain
    # one (rows viewed in the mapping); a batch spans both.
    w = mindrecord.FileWriter(str(tmp_path / "c.mindrecord"), 1, compression="zstd")
    w.add_schema({"id": {"type": "int64"}, "data": {"type": "bytes"}}, "rows")
    w.write_raw_data([{"id": i, "data": bytes([i]) * (300 + i)} for i in range(5)])
    w.commit()
    plain = _write(str(tmp_path / "p.mindrecord"), rows=5)
    ds = (mindrecord.MindDataset(str(tmp_path / "c.mindrecord"), shuffle=False, io_mode="mmap")
          + mindrecord.MindDataset(plain, shuffle=False, io_mode="mmap")).batch(10)
    b = next(ds.create_dict_iterator(num_epochs=1, output_numpy=True, do_copy=False))
    assert b["id"].tolist() == list(range(5)) * 2
    assert [a.tobytes() for a in b["data"]] == ([bytes([i]) * (300 + i) for i in range(5)]
                                                + [bytes([i]) * (100 + i) for i in range(5)])
    assert [a.flags.writeable for a in b["data"]] == [True] * 5 + [False] * 5


def test_default_batches_are_buffers_the_workers_filled_and_the_caller_owns(tmp_path):
    # do_copy=True (the default): the workers copy a batch's ragged rows out
    # of the mapping into one buffer per batch (Plan copy_views), so the
    # consumer wraps them without copying: writable arrays over that buffer
    # (their base keeps it alive), each row its own bytes.
    path = _write(str(tmp_path / "d.mindrecord"), rows=60)
    before = _digest(path)
    epochs = _two_epochs(path, True, 8)
    gc.collect()
    for e in epochs:
        for rid, b in e.items():
            assert len(b["data"]) == len(b["id"])
    for i in range(60):
        b = epochs[0][i]
        arrays = b["data"]
        a = arrays[b["id"].tolist().index(i)]
        assert a.flags.writeable and a.tobytes() == bytes([i % 251]) * (100 + i)
        assert not isinstance(a.base, np.ndarray)  # not a block the consumer copied into
        a[:] = 7  # the caller's own bytes: nothing else changes
        for rid, other in zip(b["id"].tolist(), arrays):
            if rid != i:
                assert other.tobytes() == bytes([rid % 251]) * (100 + rid) or other.tobytes() == b"\x07" * len(other)
        again = epochs[1][i]
        assert again["data"][again["id"].tolist().index(i)].tobytes() == bytes([i % 251]) * (100 + i)
    assert _digest(path) == before
    # Bytes of one length: the batch the workers stacked, handed out as it is.
    ds = mindrecord.MindDataset(path, columns_list=["data"], shuffle=False, io_mode="mmap")
    ds = ds.map(lambda d: d[:50], input_columns=["data"]).batch(5)
    it = ds.create_dict_iterator(num_epochs=2, output_numpy=True)
    first = [b["data"] for b in it]
    for k, a in enumerate(first):
        assert a.shape == (5, 50) and a.flags.writeable
        assert [r.tobytes() for r in a] == [bytes([i]) * 50 for i in range(5 * k, 5 * k + 5)]
        a[:] = 0
    assert [b["data"][1].tobytes() for b in it][:2] == [bytes([1]) * 50, bytes([6]) * 50]


@pytest.mark.parametrize("pad_shape", [[160], None])
def test_padded_bytes_batches_are_the_callers_own_arrays(tmp_path, pad_shape):
    # Rows of different lengths padded to one (MindSpore's pad_info): one
    # uint8 array a batch, the rows' bytes then the pad value, writable and
    # independent of the shard and of the batches after it.
    path = _write(str(tmp_path / "p.mindrecord"), rows=40)
    before = _digest(path)
    ds = mindrecord.MindDataset(path, columns_list=["id", "data"], shuffle=False)
    batches = list(ds.batch(8, pad_info={"data": (pad_shape, 255)}).create_tuple_iterator(output_numpy=True))
    assert len(batches) == 5
    for ids, data in batches:
        assert data.dtype == np.uint8 and data.flags.writeable
        longest = 100 + int(ids.max())
        assert data.shape == (8, pad_shape[0] if pad_shape else longest)
        for i, row in zip(ids.tolist(), data):
            assert bytes(row[:100 + i]) == bytes([i % 251]) * (100 + i)
            assert (row[100 + i:] == 255).all()
        data[:] = 1
    assert [int(b[0][0]) for b in batches] == [0, 8, 16, 24, 32]
    assert all((b[1] == 1).all() for b in batches)
    assert _digest(path) == before
