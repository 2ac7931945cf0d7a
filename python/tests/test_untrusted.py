"""Hostile inputs through the Python API: clear errors, never an abort."""
import os

import numpy as np
import pytest

import mindrecord
from conftest import write_simple

PAD = {"id": -1, "label": 9, "vec": np.array([0.5, 1.5, 2.5], np.float32)}


def test_absurd_num_padded_is_refused(tmp_path):
    # 2**42 padded rows was accepted and aborted the process on the first row.
    ten = write_simple(str(tmp_path / "ten.mindrecord"), 10)
    with pytest.raises(ValueError, match=r"num_padded 4398046511104 is more than the dataset's 10 rows plus "
                                         r"num_shards 2"):
        mindrecord.MindDataset(ten, num_shards=2, shard_id=0, padded_sample=PAD, num_padded=2 ** 42)
    # The largest allowed count still works.
    ds = mindrecord.MindDataset(ten, num_shards=2, shard_id=1, padded_sample=PAD, num_padded=12, shuffle=False)
    assert ds.get_dataset_size() == 11


def test_lone_surrogate_is_a_value_error(tmp_path):
    w = mindrecord.FileWriter(str(tmp_path / "s.mindrecord"))
    w.add_schema({"s": {"type": "string"}, "f": {"type": "float32"}})
    with pytest.raises(ValueError, match=r"row 0: field 's' \(string\): the string 'a\\udc80b' holds a lone "
                                         r"surrogate"):
        w.write_raw_data([{"s": "a\udc80b", "f": 1.0}])
    with pytest.raises(ValueError, match=r"field 'f' \(float32\): beyond float32's range"):
        w.write_raw_data([{"s": "ok", "f": 1e300}])
    # An int the float32 field cannot hold exactly: 2**40 + 1 was stored as 2**40.
    with pytest.raises(ValueError, match=r"field 'f' \(float32\): the integer does not fit float32 exactly, "
                                         r"got 1099511627777"):
        w.write_raw_data([{"s": "ok", "f": 2 ** 40 + 1}])
    with pytest.raises(ValueError, match=r"field 'f' \(float32\): 1180591620717411303425 does not fit float32 "
                                         r"exactly"):
        w.write_raw_data([{"s": "ok", "f": 2 ** 70 + 1}])
    w.write_raw_data([{"s": "ok", "f": 0.1}, {"s": "int", "f": 2 ** 40}, {"s": "big", "f": 2 ** 70}])
    w.commit()
    rows = list(mindrecord.FileReader(str(tmp_path / "s.mindrecord")).get_next())
    assert [(r["s"], float(r["f"])) for r in rows] == [("ok", float(np.float32(0.1))), ("int", 2.0 ** 40),
                                                       ("big", 2.0 ** 70)]


def _inflating(tmp_path, rows=40, row_bytes=256 << 10):
    """zstd-compressed rows that store a few hundred bytes and read back as row_bytes each."""
    path = str(tmp_path / "inflating.mindrecord")
    w = mindrecord.FileWriter(path, 1, compression="zstd")
    w.add_schema({"id": {"type": "int64"}, "data": {"type": "bytes"}}, "inflating rows")
    w.write_raw_data([{"id": i, "data": bytes([i]) * row_bytes} for i in range(rows)])
    w.commit()
    return path, row_bytes


def _held_after_first(it):
    import tracemalloc
    tracemalloc.start()
    try:
        first = next(it)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return first, held


def test_file_reader_read_ahead_counts_decompressed_bytes(tmp_path):
    # The chunk was cut by stored (compressed) bytes: 40 rows that store a few
    # hundred bytes each were read at once, 10 MiB for a 1 MiB cap (a dataset
    # of rows inflating to 256 MiB each would take 1,024 x 256 MiB).
    path, row_bytes = _inflating(tmp_path)
    it = mindrecord.FileReader(path, num_consumer=2, read_ahead_bytes=1 << 20).get_next()
    first, held = _held_after_first(it)
    assert first["id"] == 0 and first["data"] == bytes([0]) * row_bytes
    assert held < 2 * (1 << 20), held
    rest = list(it)
    assert [x["id"] for x in rest] == list(range(1, 40))
    assert all(x["data"] == bytes([x["id"]]) * row_bytes for x in rest)


def test_dataset_rows_read_ahead_counts_decompressed_bytes(tmp_path, monkeypatch):
    path, row_bytes = _inflating(tmp_path)
    import mindrecord.iterators as it_module
    monkeypatch.setattr(it_module, "ROW_READ_AHEAD_BYTES", 1 << 20)
    ds = mindrecord.MindDataset(path, shuffle=False)
    it = iter(ds.create_dict_iterator(output_numpy=True, num_epochs=1))
    first, held = _held_after_first(it)
    assert int(first["id"]) == 0
    assert held < 2 * (1 << 20), held
    rest = list(it)
    assert [int(r["id"]) for r in rest] == list(range(1, 40))
    assert all(bytes(r["data"]) == bytes([int(r["id"])]) * row_bytes for r in rest)


def test_mindpage_refuses_a_row_its_index_misfiles(tmp_path):
    # The index (.db) said row 1 had label 4: MindPage returned it as one of
    # label 4's rows, and nothing said the index was wrong.
    import sqlite3
    path = write_simple(str(tmp_path / "d.mindrecord"), 10)
    db = sqlite3.connect(path + ".db")
    db.execute("UPDATE INDEXES SET label_0 = 4 WHERE ROW_ID = 1")
    db.commit()
    db.close()
    page = mindrecord.MindPage(path)
    page.set_category_field("label")
    assert [r["id"] for r in page.read_at_page_by_name("0", 0, 5)] == [0, 5]
    with pytest.raises(mindrecord.CorruptionError, match=r"d.mindrecord: the index lists row 1 under label '4', "
                                                         r"but the row holds '1'"):
        page.read_at_page_by_name("4", 0, 5)


def test_mindpage_page_holds_at_most_page_bytes(tmp_path, monkeypatch):
    # A page of rows that store a few hundred bytes each and inflate to
    # 256 KiB was read whole, whatever it held once decompressed.
    import mindrecord.mindpage as mindpage
    path = str(tmp_path / "inflating.mindrecord")
    w = mindrecord.FileWriter(path, 1, compression="zstd")
    w.add_schema({"id": {"type": "int64"}, "label": {"type": "int32"}, "data": {"type": "bytes"}}, "inflating")
    w.add_index(["label"])
    w.write_raw_data([{"id": i, "label": 0, "data": bytes([i]) * (256 << 10)} for i in range(40)])
    w.commit()
    monkeypatch.setattr(mindpage, "PAGE_BYTES", 1 << 20)
    page = mindrecord.MindPage(path)
    page.set_category_field("label")
    assert [r["id"] for r in page.read_at_page_by_id(0, 1, 3)] == [3, 4, 5]
    with pytest.raises(ValueError, match=r"the 40 rows asked for hold more than 1048576 bytes once read "
                                         r"\(the first 4 of them, up to row 3, hold 10486\d\d\); ask for fewer rows at a time"):
        page.read_at_page_by_id(0, 0, 40)


def test_recover_rolls_back_a_folder_copied_during_an_append(tmp_path):
    # An append killed after its journal (a child process exits before it
    # commits), then the folder copied: its shards are other files than those
    # journaled, so no open applies the journal; recover(roll_back=True) does.
    import multiprocessing
    import shutil
    src = tmp_path / "a"
    src.mkdir()
    path = write_simple(str(src / "d.mindrecord"), 10)
    before = open(path, "rb").read()
    ctx = multiprocessing.get_context("fork")
    child = ctx.Process(target=_append_and_die, args=(path,))
    child.start()
    child.join()
    assert child.exitcode == 0 and os.path.exists(path + ".mr-journal")
    shutil.copytree(src, tmp_path / "b")
    copy = str(tmp_path / "b" / "d.mindrecord")
    with pytest.raises(mindrecord.CorruptionError, match=r"the folder was copied.*`mindrecord recover --roll-back "):
        mindrecord.FileReader(copy)
    with pytest.raises(ValueError, match="exclude each other"):
        mindrecord.recover(copy, roll_back=True, discard=True)
    assert mindrecord.recover(copy, roll_back=True) == [
        "rolled back the interrupted append recorded in %s.mr-journal" % copy]
    assert open(copy, "rb").read() == before
    assert [r["id"] for r in mindrecord.FileReader(copy).get_next()] == list(range(10))
    assert mindrecord.recover(copy) == ["nothing to recover: no interrupted append or commit"]


def _append_and_die(path):
    w = mindrecord.FileWriter.open_for_append(path)
    w.write_raw_data([{"id": 100, "label": 1, "vec": np.zeros(3, np.float32)}])
    os._exit(0)  # no commit, no clean-up: as if killed


def test_deeply_nested_header_json_is_an_error_not_a_crash(tmp_path):
    # An unknown header key holding 300,000 nested arrays: SIGSEGV in Python
    # (the parser's recursion), now refused before parsing.
    import struct
    path = str(tmp_path / "d.mindrecord")
    w = mindrecord.FileWriter(path, checksums=False)  # as MindSpore writes it: nothing to fail first
    w.add_schema({"id": {"type": "int64"}}, "nested")
    w.write_raw_data([{"id": i} for i in range(3)])
    w.commit()
    data = bytearray(open(path, "rb").read())
    n = struct.unpack("<Q", data[:8])[0]
    text = data[8:8 + n].decode()
    text = text[:-1] + ',"zz":' + "[" * 300000 + "]" * 300000 + "}"
    assert 8 + len(text) <= len(data)
    data[:8 + max(n, len(text))] = b"\0" * (8 + max(n, len(text)))
    data[:8] = struct.pack("<Q", len(text))
    data[8:8 + len(text)] = text.encode()
    open(path, "wb").write(bytes(data))
    with pytest.raises(mindrecord.CorruptionError, match=r"d.mindrecord: header: JSON nests deeper than 64 levels"):
        mindrecord.FileReader(path)
    with pytest.raises(mindrecord.CorruptionError, match="nests deeper than 64 levels"):
        mindrecord.MindDataset(path)


def _webp(claimed=None):
    """A 16 x 12 lossless WebP; with claimed, its header claims that width and height."""
    import io
    from PIL import Image
    buf = io.BytesIO()
    Image.new("RGB", (16, 12), (10, 20, 30)).save(buf, "WEBP", lossless=True)
    data = bytearray(buf.getvalue())
    if claimed:
        assert data[12:16] == b"VP8L"
        data[21:25] = ((claimed[0] - 1) | (claimed[1] - 1) << 14).to_bytes(4, "little")
    return bytes(data)


def test_decode_sizes_every_format_before_decoding(tmp_path):
    # A 38-byte WebP can claim 16384 x 16384 pixels; a real one of 16000 x
    # 16000 (9.8 KB) made OpenCV hold 933 MB. Decode refuses it from its header.
    from mindrecord import vision
    path = str(tmp_path / "images.mindrecord")
    w = mindrecord.FileWriter(path)
    w.add_schema({"image": {"type": "bytes"}, "id": {"type": "int32"}})
    hdr = b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 4 +X 4\n" + b"\x80" * 64
    w.write_raw_data([{"image": _webp(), "id": 0}, {"image": _webp((16384, 16384)), "id": 1},
                      {"image": hdr, "id": 2}])
    w.commit()

    def decoded(row_id):
        ds = mindrecord.MindDataset(path, shuffle=False).filter(lambda i: i == row_id, input_columns=["id"])
        ds = ds.map(operations=[vision.Decode()], input_columns="image")
        return [r["image"].shape for r in ds.create_dict_iterator(output_numpy=True)]

    assert decoded(0) == [(12, 16, 3)]
    with pytest.raises(RuntimeError, match=r"WebP header claims 16384 x 16384 pixels, more than the 178956970"):
        decoded(1)
    with pytest.raises(RuntimeError, match=r"Radiance HDR images are not decoded \(OpenCV's decoder for them "
                                           r"writes the bytes to a temporary file\)"):
        decoded(2)
