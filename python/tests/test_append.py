import os

import pytest

import mindrecord
from conftest import block_placement_order
from test_filewriter_reader import SCHEMA, check_row, make_row


@pytest.mark.parametrize("shards", [1, 3])
def test_open_for_append_continues_the_dataset(tmp_path, shards):
    path = str(tmp_path / "a.mindrecord")
    w = mindrecord.FileWriter(path, shards)
    w.add_schema(SCHEMA, "every type")
    w.add_index(["i32", "s"])
    w.set_page_size(64 * 1024)
    w.write_raw_data([make_row(i) for i in range(30)])
    w.commit()
    first = w.shard_paths[0]

    a = mindrecord.FileWriter.open_for_append(w.shard_paths[-1])
    assert a.shard_paths == w.shard_paths
    with pytest.raises(ValueError, match="already set"):
        a.add_schema({"x": {"type": "int64"}})
    with pytest.raises(ValueError, match="before the first write_raw_data"):
        a.add_index(["i32"])
    with pytest.raises(ValueError, match=r"row 30\b.*i32"):
        a.write_raw_data([{**make_row(30), "i32": "x"}])
    a.write_raw_data([make_row(i) for i in range(30, 50)])
    # Readers wait for the commit; the dataset is unchanged until then.
    with pytest.raises(OSError, match="append to this dataset is in progress"):
        mindrecord.FileReader(first)
    a.commit()

    with mindrecord.FileReader(first) as r:
        assert len(r) == 50
        assert r.index_fields == ["i32", "s"]
        rows = list(r.get_next())
    order = block_placement_order([30, 20], shards)
    for got, i in zip(rows, order):
        check_row(got, i)
    assert not [f for f in os.listdir(tmp_path) if "journal" in f]


def test_append_keeps_the_datasets_compression(tmp_path):
    path = str(tmp_path / "z.mindrecord")
    w = mindrecord.FileWriter(path, compression="zstd", dictionary=True)
    w.add_schema(SCHEMA)
    w.write_raw_data([make_row(i) for i in range(20)])
    w.commit()
    a = mindrecord.FileWriter.open_for_append(path)
    assert a.compression == "zstd:3+dict"
    a.write_raw_data([make_row(i) for i in range(20, 35)])
    a.commit()
    with mindrecord.FileReader(path) as r:
        rows = list(r.get_next())
    assert len(rows) == 35
    for i, got in enumerate(rows):
        check_row(got, i)


def test_abandoned_append_leaves_the_dataset_as_it_was(tmp_path):
    path = str(tmp_path / "b.mindrecord")
    w = mindrecord.FileWriter(path)
    w.add_schema(SCHEMA)
    w.write_raw_data([make_row(i) for i in range(10)])
    w.commit()
    before = {f: open(tmp_path / f, "rb").read() for f in os.listdir(tmp_path)}
    a = mindrecord.FileWriter.open_for_append(path)
    a.write_raw_data([make_row(i) for i in range(10, 40)])
    a.abandon()
    assert {f: open(tmp_path / f, "rb").read() for f in os.listdir(tmp_path)} == before
    with pytest.raises(FileNotFoundError):
        mindrecord.FileWriter.open_for_append(str(tmp_path / "missing"))
    with mindrecord.FileReader(path) as r:
        assert len(r) == 10
