import os
import sqlite3

import numpy as np
import pytest

import mindrecord
from conftest import block_placement_order, write_simple

SCHEMA = {
    "i32": {"type": "int32"}, "i64": {"type": "int64"}, "f32": {"type": "float32"}, "f64": {"type": "float64"},
    "s": {"type": "string"}, "b": {"type": "bytes"},
    "ai32": {"type": "int32", "shape": [-1]}, "ai64": {"type": "int64", "shape": [2, -1]},
    "af32": {"type": "float32", "shape": [-1]}, "af64": {"type": "float64", "shape": [2, 2]},
}


def make_row(i):
    return {
        "i32": np.int32(-i), "i64": 2 ** 40 + i, "f32": 0.5 * i, "f64": np.float64(i / 3.0),
        "s": "row %d \u00e9" % i, "b": bytes(range(i % 256)) * 3,
        "ai32": list(range(-i, i)), "ai64": np.arange(2 * (i + 1), dtype=np.int64).reshape(2, -1) * 2 ** 35,
        "af32": np.linspace(0, 1, i + 1, dtype=np.float32), "af64": np.eye(2) * i,
    }


def check_row(got, i):
    want = make_row(i)
    assert got["i32"] == -i and type(got["i32"]) is int
    assert got["i64"] == 2 ** 40 + i
    assert got["f32"] == 0.5 * i
    assert got["f64"] == i / 3.0
    assert got["s"] == want["s"] and got["b"] == want["b"]
    np.testing.assert_array_equal(got["ai32"], np.array(want["ai32"], np.int32))
    assert got["ai32"].dtype == np.int32 and got["ai64"].dtype == np.int64
    np.testing.assert_array_equal(got["ai64"], want["ai64"])
    np.testing.assert_array_equal(got["af32"], want["af32"])
    np.testing.assert_array_equal(got["af64"], want["af64"])
    assert got["af64"].shape == (2, 2)


@pytest.mark.parametrize("shards", [1, 3])
def test_round_trip_every_type(tmp_path, shards):
    path = str(tmp_path / "all.mindrecord")
    w = mindrecord.FileWriter(path, shards)
    assert w.add_schema(SCHEMA, "every type") == 0
    w.add_index(["i32", "s"])
    w.set_page_size(64 * 1024)
    w.set_header_size(32 * 1024)
    w.write_raw_data([make_row(i) for i in range(20)])
    w.write_raw_data([make_row(i) for i in range(20, 45)])
    w.commit()
    first = path if shards == 1 else path + "0"
    with mindrecord.FileReader(first, num_consumer=3) as r:
        assert len(r) == 45 and r.len() == 45
        assert r.schema() == SCHEMA
        assert r.index_fields == ["i32", "s"]
        rows = list(r.get_next())
    assert len(rows) == 45
    # Each call is cut into one block per shard; shard 0's rows come first.
    order = block_placement_order([20, 25], shards)
    for got, i in zip(rows, order):
        check_row(got, i)


def test_columns_projection(tmp_path):
    path = write_simple(str(tmp_path / "p.mindrecord"), 10)
    r = mindrecord.FileReader(path, columns=["label"])
    assert [x for x in r.get_next()] == [{"label": i % 5} for i in range(10)]
    with pytest.raises(ValueError):
        mindrecord.FileReader(path, columns=["nope"])


def test_core_reader_io_modes_read_the_same_rows(tmp_path):
    from mindrecord import _core
    path = write_simple(str(tmp_path / "io.mindrecord"), 300, shard_num=3) + "0"
    want = _core.Reader(path, [], "pread").read_range(0, 300)
    for mode in ("mmap", "direct"):
        r = _core.Reader(path, [], mode)
        got = r.read_range(0, 300, 3)
        assert len(got) == 300
        for a, b in zip(got, want):
            assert a.keys() == b.keys() and a["id"] == b["id"] and np.array_equal(a["vec"], b["vec"])
        assert [x["id"] for x in r.read_ids([299, 0, 150])] == [want[299]["id"], want[0]["id"], want[150]["id"]]
    with pytest.raises(ValueError):
        _core.Reader(path, [], "aio")


def test_header_and_index_written(tmp_path):
    path = write_simple(str(tmp_path / "h.mindrecord"), 7)
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = f.read(n)
    assert b'"version":"3.0"' in header
    con = sqlite3.connect(path + ".db")
    assert con.execute("SELECT COUNT(*) FROM INDEXES").fetchone()[0] == 7
    assert sorted(r[0] for r in con.execute("SELECT label_0 FROM INDEXES")) == sorted(i % 5 for i in range(7))


def test_bad_row_names_row_and_field(tmp_path):
    path = str(tmp_path / "bad.mindrecord")
    w = mindrecord.FileWriter(path)
    w.add_schema({"a": {"type": "int32"}, "v": {"type": "float32", "shape": [2]}})
    good = {"a": 1, "v": [1.0, 2.0]}
    cases = [
        ({"a": "x", "v": [1.0, 2.0]}, "field 'a'"),
        ({"a": 1.5, "v": [1.0, 2.0]}, "field 'a'"),
        ({"a": 2 ** 40, "v": [1.0, 2.0]}, "int32 range"),
        ({"a": 1, "v": [1.0, 2.0, 3.0]}, "field 'v'"),
        ({"a": 1}, "field 'v' is missing"),
        ({"a": 1, "v": ["x", "y"]}, "field 'v'"),
        ("not a dict", "expected a dict"),
    ]
    for bad, msg in cases:
        with pytest.raises(ValueError) as e:
            w.write_raw_data([good, good, bad])
        assert "row 2" in str(e.value) and msg in str(e.value), str(e.value)
    w.write_raw_data([good])
    w.commit()
    assert len(mindrecord.FileReader(path)) == 1  # nothing from the refused batches


def test_float_into_int_array_refused(tmp_path):
    w = mindrecord.FileWriter(str(tmp_path / "x.mindrecord"))
    w.add_schema({"v": {"type": "int64", "shape": [-1]}})
    with pytest.raises(ValueError, match="cannot be stored losslessly"):
        w.write_raw_data([{"v": np.array([1.5])}])
    with pytest.raises(ValueError, match="int32 range"):
        w2 = mindrecord.FileWriter(str(tmp_path / "y.mindrecord"))
        w2.add_schema({"v": {"type": "int32", "shape": [-1]}})
        w2.write_raw_data([{"v": np.array([2 ** 33])}])


def test_schema_and_setting_errors(tmp_path):
    w = mindrecord.FileWriter(str(tmp_path / "s.mindrecord"))
    with pytest.raises(ValueError):
        w.add_schema({"bad name!": {"type": "int32"}})
    with pytest.raises(ValueError):
        w.add_schema({"a": {"type": "complex"}})
    w.add_schema({"a": {"type": "int32"}, "b": {"type": "bytes"}})
    with pytest.raises(ValueError):
        w.add_index(["b"])  # bytes fields cannot be indexed
    with pytest.raises(ValueError):
        w.add_index(["nope"])
    with pytest.raises(ValueError):
        w.set_header_size(1000)
    with pytest.raises(ValueError):
        w.set_page_size(32 * 1024 + 2)
    with pytest.raises(ValueError):
        mindrecord.FileWriter(str(tmp_path / "t"), shard_num=0)


def test_existing_output_and_overwrite(tmp_path):
    path = write_simple(str(tmp_path / "e.mindrecord"), 3)
    with pytest.raises(FileExistsError):
        mindrecord.FileWriter(path)
    write_simple_over = mindrecord.FileWriter(path, overwrite=True)
    write_simple_over.add_schema({"x": {"type": "int64"}})
    write_simple_over.write_raw_data([{"x": 5}])
    write_simple_over.commit()
    assert list(mindrecord.FileReader(path).get_next()) == [{"x": 5}]


def test_uncommitted_writer_leaves_nothing(tmp_path):
    path = str(tmp_path / "u.mindrecord")
    w = mindrecord.FileWriter(path)
    w.add_schema({"x": {"type": "int64"}})
    w.write_raw_data([{"x": 1}])
    w.abandon()
    assert os.listdir(tmp_path) == []


def test_missing_and_corrupt_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        mindrecord.FileReader(str(tmp_path / "absent.mindrecord"))
    path = write_simple(str(tmp_path / "c.mindrecord"), 4)
    with open(path, "r+b") as f:
        f.write((10 ** 12).to_bytes(8, "little"))  # header length past the file
    with pytest.raises(OSError) as e:
        mindrecord.FileReader(path)
    assert isinstance(e.value, mindrecord.CorruptionError)
    assert "c.mindrecord" in str(e.value)
    not_mr = tmp_path / "junk.mindrecord"
    not_mr.write_bytes(b"\x00" * 100)
    with pytest.raises(OSError):
        mindrecord.FileReader(str(not_mr))


def test_closed_reader(tmp_path):
    path = write_simple(str(tmp_path / "r.mindrecord"), 2)
    r = mindrecord.FileReader(path)
    r.close()
    with pytest.raises(ValueError):
        len(r)


def test_context_manager_commits_or_abandons(tmp_path):
    ok = str(tmp_path / "ok.mindrecord")
    with mindrecord.FileWriter(ok) as w:
        w.add_schema({"x": {"type": "int64"}})
        w.write_raw_data([{"x": 1}, {"x": 2}])
    assert [r["x"] for r in mindrecord.FileReader(ok).get_next()] == [1, 2]
    bad = str(tmp_path / "bad.mindrecord")
    with pytest.raises(RuntimeError):
        with mindrecord.FileWriter(bad) as w:
            w.add_schema({"x": {"type": "int64"}})
            w.write_raw_data([{"x": 1}])
            raise RuntimeError("stop")
    assert not os.path.exists(bad)
    with pytest.raises(ValueError):
        w.write_raw_data([{"x": 3}])  # abandoned writers refuse further rows


def test_numpy_scalars_and_buffers(tmp_path):
    path = str(tmp_path / "n.mindrecord")
    w = mindrecord.FileWriter(path)
    w.add_schema({"a": {"type": "int64"}, "f": {"type": "float32"}, "b": {"type": "bytes"},
                  "v": {"type": "int32", "shape": [-1]}})
    w.write_raw_data([{"a": np.uint16(7), "f": np.float16(0.5), "b": bytearray(b"xy"), "v": np.array([1, 2], np.uint8)},
                      {"a": np.int64(-2 ** 62), "f": 3, "b": memoryview(b"z"), "v": (5,)}])
    w.commit()
    rows = list(mindrecord.FileReader(path).get_next())
    assert rows[0]["a"] == 7 and rows[0]["f"] == 0.5 and rows[0]["b"] == b"xy"
    assert rows[0]["v"].tolist() == [1, 2] and rows[0]["v"].dtype == np.int32
    assert rows[1]["a"] == -2 ** 62 and rows[1]["f"] == 3.0 and rows[1]["b"] == b"z" and rows[1]["v"].tolist() == [5]


def test_unsupported_version_and_partial_shard_list(tmp_path):
    path = str(tmp_path / "v.mindrecord")
    w = mindrecord.FileWriter(path, checksums=False)
    w.add_schema({"x": {"type": "int64"}})
    w.write_raw_data([{"x": 1}])
    w.commit()
    data = bytearray(open(path, "rb").read())
    i = data.find(b'"version":"3.0"')
    data[i + 11:i + 14] = b"9.9"
    open(path, "wb").write(bytes(data))
    with pytest.raises(mindrecord.UnsupportedError) as e:
        mindrecord.FileReader(path)
    assert isinstance(e.value, ValueError) and "9.9" in str(e.value)
    multi = str(tmp_path / "m.mindrecord")
    write_simple(multi, 6, shard_num=3)
    # A list is read exactly as listed (MindSpore's file lists, issue 17).
    assert len(mindrecord.FileReader([multi + "0", multi + "1"])) == 4
    assert len(mindrecord.FileReader([multi + "0", multi + "1", multi + "2"])) == 6
    with pytest.raises(ValueError, match="listed twice"):
        mindrecord.FileReader([multi + "0", multi + "0"])


@pytest.mark.parametrize("shards", [1, 3])
def test_write_modes_write_the_same_bytes(tmp_path, shards):
    # Small pages so rows fill several pages and row groups move.
    rows = [{"id": i, "data": bytes([i % 251]) * (700 + 37 * (i % 50))} for i in range(400)]

    def write(mode):  # the same file names (the header lists them), in a folder per mode
        folder = tmp_path / mode
        folder.mkdir()
        w = mindrecord.FileWriter(str(folder / "d.mindrecord"), shards, write_mode=mode)
        w.add_schema({"id": {"type": "int64"}, "data": {"type": "bytes"}}, "modes")
        w.set_page_size(1 << 16)
        w.write_raw_data(rows[:150])
        direct = w._writer.direct_shards
        w.write_raw_data(rows[150:])
        w.commit()
        return {n: (folder / n).read_bytes() for n in os.listdir(folder) if not n.endswith(".db")}, direct

    buffered, none = write("buffered")
    default, none_by_default = write("auto")  # buffered, flushed in the background
    direct, used = write("direct")
    assert none == 0 and none_by_default == 0
    assert buffered == direct == default and len(direct) == shards
    if used == 0:
        pytest.skip("this file system takes no O_DIRECT writes: only the buffered path ran")
    assert used == shards


def test_write_mode_is_checked(tmp_path):
    with pytest.raises(ValueError, match="write_mode"):
        mindrecord.FileWriter(str(tmp_path / "x.mindrecord"), write_mode="fast")


def test_get_next_read_ahead_is_capped_in_bytes(tmp_path):
    import tracemalloc
    path = str(tmp_path / "big.mindrecord")
    w = mindrecord.FileWriter(path, 1)
    w.add_schema({"id": {"type": "int64"}, "data": {"type": "bytes"}}, "big rows")
    row_bytes = 256 << 10
    w.write_raw_data([{"id": i, "data": bytes([i]) * row_bytes} for i in range(40)])
    w.commit()
    with pytest.raises(ValueError, match="read_ahead_bytes"):
        mindrecord.FileReader(path, read_ahead_bytes=0)
    r = mindrecord.FileReader(path, num_consumer=2, read_ahead_bytes=1 << 20)
    tracemalloc.start()
    try:
        it = r.get_next()
        first = next(it)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert first["id"] == 0 and first["data"] == bytes([0]) * row_bytes
    # At most 1 MiB of rows read ahead (4 of these rows); all 40 would be 10 MiB.
    assert held < 2 * (1 << 20), held
    rest = list(it)
    assert [x["id"] for x in rest] == list(range(1, 40))
    assert all(x["data"] == bytes([x["id"]]) * row_bytes for x in rest)
    # A row larger than the cap is read alone.
    assert [x["id"] for x in mindrecord.FileReader(path, read_ahead_bytes=1).get_next()] == list(range(40))


def test_get_next_splits_large_chunks_across_threads(tmp_path):
    # A chunk of 24 MiB over 2 shards and several pages per shard: read by 4
    # threads (each scans a part of at least 4 MiB); rows come back in
    # order, each with its own bytes.
    path = str(tmp_path / "wide.mindrecord")
    w = mindrecord.FileWriter(path, 2)
    w.add_schema({"id": {"type": "int64"}, "data": {"type": "bytes"}}, "wide rows")
    w.set_page_size(4 << 20)
    row_bytes = 512 << 10
    w.write_raw_data([{"id": i, "data": bytes([i]) * row_bytes} for i in range(48)])
    w.commit()
    order = block_placement_order([48], 2)  # shard 0's rows first: the written order
    for threads in (1, 4):
        rows = list(mindrecord.FileReader(path + "0", num_consumer=threads).get_next())
        assert [r["id"] for r in rows] == order
        assert all(r["data"] == bytes([r["id"]]) * row_bytes for r in rows)
