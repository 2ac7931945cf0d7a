"""MindSpore-written files read through Python, checked against values taken
independently from the SQLite index (sqlite3 module) and the raw bytes at the
offsets it records."""
import json
import os
import sqlite3
import struct

import pytest

import mindrecord
from conftest import compat_path, numpy_dicts


def header_of(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        return json.loads(f.read(n))


def index_rows(shard, fields):
    con = sqlite3.connect("file:%s.db?mode=ro" % shard, uri=True)
    cols = ", ".join("%s_0" % f for f in fields)
    q = "SELECT ROW_ID, PAGE_ID_BLOB, PAGE_OFFSET_BLOB, PAGE_OFFSET_BLOB_END, %s FROM INDEXES ORDER BY ROW_ID" % cols
    rows = con.execute(q).fetchall()
    con.close()
    return rows


def blob_at(shard, header, page_id, begin, end):
    with open(shard, "rb") as f:
        f.seek(header["header_size"] + page_id * header["page_size"] + begin)
        data = f.read(end - begin)
    n = struct.unpack("<Q", data[:8])[0]
    assert n == len(data) - 8
    return data[8:]


def split_blobs(blob, names):
    out, pos = {}, 0
    for name in names:
        n = struct.unpack(">Q", blob[pos:pos + 8])[0]
        out[name] = blob[pos + 8:pos + 8 + n]
        pos += 8 + n
    assert pos == len(blob)
    return out


def expected_imagenet():
    d = compat_path("mindrecord", "imagenet")
    shards = [os.path.join(d, "imagenet.mindrecord%d" % i) for i in range(4)]
    want = []
    for s in shards:
        h = header_of(s)
        for _, page, b, e, label, name in index_rows(s, ["label", "file_name"]):
            # MindSpore 2.0 stored string index values JSON-quoted.
            if name.startswith('"'):
                name = json.loads(name)
            want.append({"data": blob_at(s, h, page, b, e), "label": label, "file_name": name})
    return shards, want


@pytest.mark.parametrize("opened", [0, 2])
def test_imagenet_v2_four_shards(opened):
    shards, want = expected_imagenet()
    with mindrecord.FileReader(shards[opened]) as r:
        assert r.version == "2.0"
        assert len(r) == 20
        got = list(r.get_next())
    assert got == want
    assert all(g["data"][:2] == b"\xff\xd8" for g in got)  # JPEG


def test_imagenet_listed_shards_and_dataset():
    shards, want = expected_imagenet()
    r = mindrecord.FileReader(shards)
    assert list(r.get_next()) == want
    ds = mindrecord.MindDataset(shards, columns_list=["label", "file_name"], shuffle=False)
    got = list(numpy_dicts(ds))
    assert [int(g["label"]) for g in got] == [w["label"] for w in want]
    assert [g["file_name"] for g in got] == [w["file_name"] for w in want]


def test_imagenet_mindpage_matches_sql():
    shards, want = expected_imagenet()
    counts = {}
    for s in shards:
        con = sqlite3.connect("file:%s.db?mode=ro" % s, uri=True)
        for name, c in con.execute("SELECT label_0, COUNT(label_0) FROM INDEXES GROUP BY label_0"):
            counts[str(name)] = counts.get(str(name), 0) + c
        con.close()
    page = mindrecord.MindPage(shards[1])
    assert set(page.candidate_fields) == {"label", "file_name"}
    page.category_field = "label"
    info = json.loads(page.read_category_info())
    assert info["key"] == "label_0"
    assert [(c["id"], c["name"], c["count"]) for c in info["categories"]] == [
        (i, n, counts[n]) for i, n in enumerate(sorted(counts))]
    for c in info["categories"]:
        rows = [w for w in want if str(w["label"]) == c["name"]]
        got = page.read_at_page_by_id(c["id"], 0, 100)
        assert [g["file_name"] for g in got] == [w["file_name"] for w in rows]
        assert [g["data"] for g in got] == [w["data"] for w in rows]
        if len(rows) > 1:
            assert page.read_at_page_by_name(c["name"], 1, 1)[0]["file_name"] == rows[1]["file_name"]


def test_twobytes_multi_blob_framing():
    d = compat_path("mindrecord", "twobytes")
    path = os.path.join(d, "twobytes.mindrecord")
    h = header_of(path)
    schema = h["schema"][0]
    blob_names = schema["blob_fields"]
    assert blob_names == sorted(blob_names) and len(blob_names) == 2
    con = sqlite3.connect("file:%s.db?mode=ro" % path, uri=True)
    locs = con.execute("SELECT PAGE_ID_BLOB, PAGE_OFFSET_BLOB, PAGE_OFFSET_BLOB_END FROM INDEXES "
                       "ORDER BY ROW_ID").fetchall()
    con.close()
    got = list(mindrecord.FileReader(path).get_next())
    assert len(got) == len(locs) == 5
    for row, (page, b, e) in zip(got, locs):
        parts = split_blobs(blob_at(path, h, page, b, e), blob_names)
        for name in blob_names:
            assert row[name] == parts[name]
    assert mindrecord.FileReader(path).schema().keys() == schema["schema"].keys()


def test_graph_v3_index_values_and_arrays():
    d = compat_path("mindrecord", "graph")
    path = os.path.join(d, "testdata")
    h = header_of(path)
    index = [f["index_field"] for f in h["index_fields"]]
    con = sqlite3.connect("file:%s.db?mode=ro" % path, uri=True)
    cols = ", ".join("%s_0" % f for f in index)
    sql_rows = con.execute("SELECT %s FROM INDEXES ORDER BY ROW_ID" % cols).fetchall()
    con.close()
    r = mindrecord.FileReader(path)
    assert r.version == "3.0" and len(r) == 60
    got = list(r.get_next())
    for row, sql in zip(got, sql_rows):
        for f, v in zip(index, sql):
            assert row[f] == pytest.approx(v, rel=1e-6), f
    blob_fields = h["schema"][0]["blob_fields"]
    for row in got:
        for f in blob_fields:
            assert row[f].ndim == 1 and row[f].dtype.kind in "if"


def rewrite(src, out, version):
    """Writes src's rows back through FileWriter with src's settings."""
    h = header_of(src)
    r = mindrecord.FileReader(src)
    w = mindrecord.FileWriter(out, checksums=False, version=version)
    w.add_schema(r.schema(), h["schema"][0]["desc"])
    if h["index_fields"]:
        w.add_index([f["index_field"] for f in h["index_fields"]])
    w.set_header_size(h["header_size"])
    w.set_page_size(h["page_size"])
    w.write_raw_data(list(r.get_next()))
    w.commit()
    return r


def test_twobytes_rewrite_is_byte_identical(tmp_path):
    src = os.path.join(compat_path("mindrecord", "twobytes"), "twobytes.mindrecord")
    out = str(tmp_path / "twobytes.mindrecord")
    rewrite(src, out, "2.0")
    with open(src, "rb") as a, open(out, "rb") as b:
        assert a.read() == b.read()


def test_graph_rewrite_reads_back_equal(tmp_path):
    src = os.path.join(compat_path("mindrecord", "graph"), "testdata")
    out = str(tmp_path / "testdata")
    r = rewrite(src, out, "3.0")
    for a, b in zip(r.get_next(), mindrecord.FileReader(out).get_next()):
        assert a.keys() == b.keys()
        for k in a:
            if hasattr(a[k], "dtype"):
                assert a[k].dtype == b[k].dtype and (a[k] == b[k]).all()
            else:
                assert a[k] == b[k]
    h_src, h_out = header_of(src), header_of(out)
    assert h_out["schema"] == h_src["schema"] and h_out["index_fields"] == h_src["index_fields"]
    assert "mr_header_xxh3" not in h_out  # checksums=False: no extension keys


def test_files_without_their_index_read_the_same_with_a_warning(tmp_path):
    import shutil
    import warnings
    shards, want = expected_imagenet()
    for s in shards:  # the shards only, not their .db files
        shutil.copy(s, tmp_path / os.path.basename(s))
    copy = str(tmp_path / "imagenet.mindrecord1")
    with pytest.warns(RuntimeWarning, match=r"imagenet\.mindrecord0\.db.*missing"):
        r = mindrecord.FileReader(copy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert list(r.get_next()) == want
        with pytest.warns(RuntimeWarning, match="missing"):
            ds = mindrecord.MindDataset(copy, columns_list=["label", "file_name"], shuffle=False)
        got = list(numpy_dicts(ds))
        assert [int(g["label"]) for g in got] == [w["label"] for w in want]
        assert [g["file_name"] for g in got] == [w["file_name"] for w in want]
        # Field queries need the index: the error names it.
        with pytest.raises(Exception, match=r"\.db"):
            mindrecord.MindPage(copy).set_category_field("label")
