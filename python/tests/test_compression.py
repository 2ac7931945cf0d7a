"""FileWriter compression (lz4 / zstd / zstd + dictionary), read back by every reader."""
import os

import numpy as np
import pytest

import mindrecord

from conftest import numpy_dicts


def text_rows(n):
    rng = np.random.RandomState(3)
    words = [b"alpha", b"beta", b"gamma", b"delta", b"epsilon", b"zeta", b"theta"]
    rows = []
    for i in range(n):
        text = b" ".join(words[j] for j in rng.randint(0, len(words), 200))
        rows.append({"text": text, "id": i, "name": "row %d" % i,
                     "emb": rng.randint(0, 4, size=(16,)).astype(np.float32),
                     "tok": np.arange(i % 7 + 1, dtype=np.int64)})
    return rows


SCHEMA = {"text": {"type": "bytes"}, "id": {"type": "int64"}, "name": {"type": "string"},
          "emb": {"type": "float32", "shape": [16]}, "tok": {"type": "int64", "shape": [-1]}}


def write(path, rows, shard_num=1, **kw):
    w = mindrecord.FileWriter(path, shard_num, **kw)
    w.add_schema(SCHEMA, "compressed")
    w.set_page_size(1 << 15)  # small pages: file sizes follow the data
    w.write_raw_data(rows)
    w.commit()
    return w


def same(a, b):
    assert sorted(a) == sorted(b)
    for k in a:
        if isinstance(a[k], np.ndarray):
            assert a[k].dtype == np.asarray(b[k]).dtype and np.array_equal(a[k], b[k]), k
        else:
            assert a[k] == b[k], k


@pytest.mark.parametrize("kw,codec,version", [
    (dict(compression="lz4"), "lz4", "3.0+mr-lz4"),
    (dict(compression="zstd"), "zstd:3", "3.0+mr-zstd"),
    (dict(compression="zstd", compression_level=9), "zstd:9", "3.0+mr-zstd"),
    (dict(compression="zstd", dictionary=True), "zstd:3+dict", "3.0+mr-zstd"),
    (dict(compression="zstd", dictionary=True, compress_raw=True), "zstd:3+dict+raw", "3.0+mr-zstd"),
    (dict(compression="lz4", compress_raw=True), "lz4+raw", "3.0+mr-lz4"),
])
@pytest.mark.parametrize("shard_num", [1, 3])
def test_round_trip_and_header(tmp_path, kw, codec, version, shard_num):
    rows = text_rows(300)
    plain = str(tmp_path / "plain.mindrecord")
    packed = str(tmp_path / "packed.mindrecord")
    write(plain, rows, shard_num)
    w = write(packed, rows, shard_num, **kw)
    assert w.compression == codec
    first = packed if shard_num == 1 else packed + "0"
    with mindrecord.FileReader(first) as r:
        assert r.version == version
        info = r.compression()
        assert info["codec"] == codec
        assert info["stored_bytes"] < info["raw_bytes"]
        got = sorted(r.get_next(), key=lambda x: x["id"])
    assert len(got) == 300
    for a, b in zip(got, rows):
        same(a, b)
    with mindrecord.FileReader(plain if shard_num == 1 else plain + "0") as r:
        assert r.version == "3.0" and r.compression() == {"codec": "none"}
    size = lambda p: sum(os.path.getsize(x) for x in ([p] if shard_num == 1 else [p + str(i) for i in range(3)]))
    assert size(packed) < size(plain)
    # Random access through MindDataset (batched, shuffled) gives the same values.
    ds = mindrecord.MindDataset(first, columns_list=["id", "text", "tok"], seed=2).batch(16)
    seen = 0
    for b in numpy_dicts(ds):
        for i, text, tok in zip(b["id"], b["text"], b["tok"]):
            # bytes come out as uint8 arrays (MindSpore's MindDataset)
            assert text.tobytes() == rows[int(i)]["text"] and np.array_equal(tok, rows[int(i)]["tok"])
            seen += 1
    assert seen == 300


def test_set_compression_and_bad_arguments(tmp_path):
    w = mindrecord.FileWriter(str(tmp_path / "a.mindrecord"))
    assert w.compression == "none"
    assert w.set_compression("zstd", 5, dictionary=True) == 0
    assert w.compression == "zstd:5+dict"
    w.add_schema(SCHEMA)
    w.write_raw_data(text_rows(20))
    with pytest.raises(ValueError, match="set_compression"):
        w.set_compression("lz4")
    w.commit()
    with mindrecord.FileReader(str(tmp_path / "a.mindrecord")) as r:
        assert r.compression()["codec"] == "zstd:5+dict"
        assert [x["id"] for x in r.get_next()] == list(range(20))

    p = str(tmp_path / "b.mindrecord")
    with pytest.raises(ValueError, match="compression must be"):
        mindrecord.FileWriter(p, compression="gzip")
    with pytest.raises(ValueError, match="zstd only"):
        mindrecord.FileWriter(p, compression="lz4", compression_level=3)
    with pytest.raises(ValueError, match=r"compression_level must be an int in \[1, 22\]"):
        mindrecord.FileWriter(p, compression="zstd", compression_level=0)
    with pytest.raises(ValueError, match="dictionary=True needs"):
        mindrecord.FileWriter(p, compression="lz4", dictionary=True)
    with pytest.raises(ValueError, match="version"):
        mindrecord.FileWriter(p, compression="zstd", version="2.0")
    with pytest.raises(ValueError, match="compress_raw=True needs"):
        mindrecord.FileWriter(p, compress_raw=True)
    with pytest.raises(ValueError, match="compress_raw must be a bool"):
        mindrecord.FileWriter(p, compression="lz4", compress_raw="yes")
    # Uncompressed output with checksums off stays byte-identical to the default writer's.
    os.makedirs(str(tmp_path / "c1"))
    os.makedirs(str(tmp_path / "c2"))
    a, b = str(tmp_path / "c1" / "c.mindrecord"), str(tmp_path / "c2" / "c.mindrecord")
    write(a, text_rows(10), checksums=False)
    write(b, text_rows(10), checksums=False, compression=None)
    assert open(a, "rb").read() == open(b, "rb").read()


def test_compress_raw_shrinks_string_fields(tmp_path):
    # Text in a string field lives in the raw part: only compress_raw shrinks it.
    schema = {"id": {"type": "int64"}, "body": {"type": "string"}}
    rows = [{"id": i, "body": r["text"].decode()} for i, r in enumerate(text_rows(300))]
    sizes = {}
    for name, raw in (("blob_only", False), ("raw_too", True)):
        path = str(tmp_path / (name + ".mindrecord"))
        w = mindrecord.FileWriter(path, compression="zstd", dictionary=True, compress_raw=raw)
        w.add_schema(schema)
        w.set_header_size(1 << 18)
        w.set_page_size(1 << 15)
        w.write_raw_data(rows)
        w.commit()
        sizes[name] = os.path.getsize(path) - (1 << 18)  # the pages
        with mindrecord.FileReader(path) as r:
            got = sorted(r.get_next(), key=lambda x: x["id"])
        assert got == rows
        page = mindrecord.MindPage(path)
        page.category_field = "id"
        assert page.read_at_page_by_name("7", 0, 1)[0]["body"] == rows[7]["body"]
    assert sizes["raw_too"] * 2 < sizes["blob_only"], sizes


def test_cli_inspect_shows_the_codec(tmp_path):
    import json
    import subprocess
    from conftest import ROOT
    cli = os.path.join(ROOT, "build", "mindrecord")
    if not os.path.exists(cli):
        pytest.skip("the CLI is not built")
    path = str(tmp_path / "i.mindrecord")
    write(path, text_rows(100), compression="lz4")
    out = json.loads(subprocess.run([cli, "inspect", path, "--json"], check=True, capture_output=True,
                                    text=True).stdout)
    assert out["version"] == "3.0+mr-lz4"
    assert out["compression"]["codec"] == "lz4" and out["compression"]["stored_bytes"] > 0
