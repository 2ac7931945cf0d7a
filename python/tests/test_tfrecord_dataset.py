"""TFRecordDataset (MindSpore's) and Schema: tf.train.Example records as rows."""
import gzip
import json
import os
import random
import struct
import zlib

import numpy as np
import pytest

import mindrecord
from mindrecord import Schema, Shuffle, TFRecordDataset
from conftest import compat_path

# --- writing TFRecord files (TensorFlow's framing, tf.train.Example by hand) ---

_CRC_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _CRC_TABLE.append(_c)


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked(data):
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(num, payload):
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def feature(value):
    """A tf.train.Feature: bytes / list of bytes -> bytes_list, float(s) ->
    float_list, int(s) -> int64_list."""
    values = value if isinstance(value, list) else [value]
    if all(isinstance(v, bytes) for v in values):
        return field(1, b"".join(field(1, v) for v in values))
    if all(isinstance(v, float) for v in values):
        return field(2, field(1, b"".join(struct.pack("<f", v) for v in values)))
    return field(3, field(1, b"".join(varint(v) for v in values)))


def example(features):
    entries = b"".join(field(1, field(1, k.encode()) + field(2, feature(v))) for k, v in features.items())
    return field(1, entries)


def write_tfrecord(path, rows):
    with open(path, "wb") as f:
        for feats in rows:
            data = example(feats)
            length = struct.pack("<Q", len(data))
            f.write(length + struct.pack("<I", masked(length)) + data + struct.pack("<I", masked(data)))


def rows_of(ds, numpy=True):
    return list(ds.create_dict_iterator(num_epochs=1, output_numpy=numpy))


@pytest.fixture()
def tfdir(tmp_path):
    for name, ids in (("b.tfrecord", range(3, 5)), ("a.tfrecord", range(0, 3)), ("c.tfrecord", range(5, 6))):
        write_tfrecord(str(tmp_path / name), [
            {"id": i, "pair": [i, -i], "score": float(i) / 2, "name": ("row %d" % i).encode(),
             "blobs": [b"x" * (i + 1), b"yy"]} for i in ids])
    return tmp_path


# --- reading ---

def test_columns_of_the_first_record_without_a_schema(tfdir):
    ds = TFRecordDataset(str(tfdir / "*.tfrecord"), shuffle=False)
    assert ds.get_col_names() == ["blobs", "id", "name", "pair", "score"]  # sorted, as MindSpore
    assert ds.get_dataset_size() == 6
    rows = rows_of(ds)
    assert [int(r["id"][0]) for r in rows] == list(range(6))  # files sorted by name, records in order
    r = rows[2]
    assert r["id"].dtype == np.int64 and r["id"].shape == (1,)
    assert r["pair"].tolist() == [2, -2]
    assert r["score"].dtype == np.float32 and r["score"].tolist() == [1.0]
    assert r["name"].dtype == np.uint8 and bytes(r["name"]) == b"row 2"
    # Two values of a bytes_list: each padded with zeros to the longest.
    assert r["blobs"].tolist() == list(b"xxx") + list(b"yy\0")


def test_a_schema_file_gives_types_shapes_and_rows(tfdir, tmp_path):
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps({"datasetType": "TF", "numRows": 4, "columns": {
        "id": {"type": "int32", "rank": 0},
        "pair": {"type": "int16", "rank": 1, "shape": [2]},
        "score": {"type": "float32", "rank": 0},
        "name": {"type": "string", "rank": 0},
        "blobs": {"type": "uint8", "rank": 2, "shape": [-1, 4]}}}))
    ds = TFRecordDataset(str(tfdir / "*.tfrecord"), str(schema_file), shuffle=False)
    # numRows caps the rows; a dict of columns is in name order, as MindSpore's JSON parser keeps it.
    assert ds.get_dataset_size() == 4
    assert ds.get_col_names() == ["blobs", "id", "name", "pair", "score"]
    rows = rows_of(ds)
    r = rows[1]
    assert r["id"].dtype == np.int32 and r["id"].shape == () and int(r["id"]) == 1
    assert r["pair"].dtype == np.int16 and r["pair"].tolist() == [1, -1]
    assert r["score"].shape == () and float(r["score"]) == 0.5
    assert r["name"].dtype.kind == "U" and str(r["name"]) == "row 1"
    assert r["blobs"].shape == (2, 4) and r["blobs"].tolist() == [list(b"xx\0\0"), list(b"yy\0\0")]
    # columns_list picks and orders; num_samples wins over numRows.
    picked = TFRecordDataset(str(tfdir / "*.tfrecord"), str(schema_file), columns_list=["pair", "id"],
                             num_samples=6, shuffle=False)
    assert picked.get_col_names() == ["pair", "id"] and picked.get_dataset_size() == 6
    # The same schema built in Python.
    s = Schema()
    s.add_column("id", de_type=np.int64)
    s.add_column("pair", "int64", shape=[1, 2])
    got = rows_of(TFRecordDataset(str(tfdir / "a.tfrecord"), schema=s, shuffle=False))
    assert [r["id"].tolist() for r in got] == [[0], [1], [2]]
    assert got[2]["pair"].shape == (1, 2) and got[2]["pair"].tolist() == [[2, -2]]


def test_schema_json_round_trip_and_errors(tmp_path):
    s = Schema()
    s.add_column("image", "uint8")
    s.add_column("label", np.int32, [1])
    s.num_rows = 7
    # As MindSpore's add_column writes them (its schema loader requires a rank).
    assert json.loads(s.to_json())["columns"] == {"image": {"type": "uint8", "rank": 1},
                                                  "label": {"type": "int32", "shape": [1], "rank": 1}}
    t = Schema()
    t.from_json(json.loads(s.to_json()))
    assert t.columns == s.columns and t.num_rows == 7
    t.parse_columns([{"name": "x", "type": "float32", "rank": 0}])
    assert t.columns == [{"name": "x", "type": "float32", "rank": 0}]
    with pytest.raises(TypeError, match="Unknown column type"):
        s.add_column("bad", "complex64")
    with pytest.raises(ValueError, match="already"):
        s.add_column("image", "uint8")
    with pytest.raises(ValueError, match="at most one -1"):
        s.add_column("z", "uint8", [-1, -1])
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(RuntimeError, match="not valid JSON"):
        Schema(str(bad))
    bad.write_text(json.dumps({"columns": {"a": {"type": "int64"}}, "numRow": 3}))
    with pytest.raises(RuntimeError, match="unknown schema key"):
        Schema(str(bad))


def test_the_compat_file_reads_as_its_conversion(tmp_path):
    src = compat_path("sources", "tfrecord", "dummy.tfrecord")
    ds = TFRecordDataset(src, shuffle=False)
    assert ds.get_dataset_size() == 10
    out = str(tmp_path / "tf.mindrecord")
    mindrecord.TFRecordToMR(src, out).transform()
    converted = rows_of(mindrecord.MindDataset(out, shuffle=False))
    ours = rows_of(ds)
    assert len(converted) == len(ours) == 10
    for a, b in zip(ours, converted):  # the converter names fields without '/'
        assert int(a["image/class/label"][0]) == int(np.asarray(b["image_class_label"]).reshape(-1)[0])
        assert bytes(a["image/encoded"]) == bytes(np.asarray(b["image_encoded"]))


def test_shuffle_sharding_and_samples(tfdir):
    pattern = str(tfdir / "*.tfrecord")

    def ids(ds):
        return [int(r["id"][0]) for r in rows_of(ds)]
    shuffled = ids(TFRecordDataset(pattern, columns_list=["id"], seed=3))
    assert sorted(shuffled) == list(range(6)) and shuffled != list(range(6))
    assert ids(TFRecordDataset(pattern, columns_list=["id"], seed=3)) == shuffled
    orders = set()
    for seed in range(8):
        order = ids(TFRecordDataset(pattern, columns_list=["id"], shuffle=Shuffle.FILES, seed=seed))
        # Whole files move; a file's records keep their order.
        assert order in ([0, 1, 2, 3, 4, 5], [0, 1, 2, 5, 3, 4], [3, 4, 0, 1, 2, 5], [3, 4, 5, 0, 1, 2],
                         [5, 0, 1, 2, 3, 4], [5, 3, 4, 0, 1, 2]), order
        orders.add(tuple(order))
    assert len(orders) > 1
    # Default sharding: whole files, shard k reads files k, k + num_shards, ...
    by_file = [ids(TFRecordDataset(pattern, columns_list=["id"], shuffle=False, num_shards=2, shard_id=k))
               for k in (0, 1)]
    assert by_file == [[0, 1, 2, 5], [3, 4]]
    equal = [ids(TFRecordDataset(pattern, columns_list=["id"], shuffle=False, num_shards=2, shard_id=k,
                                 shard_equal_rows=True)) for k in (0, 1)]
    assert len(equal[0]) == len(equal[1]) == 3 and sorted(equal[0] + equal[1]) == list(range(6))
    with pytest.raises(ValueError, match="3 file.*4 shards"):
        TFRecordDataset(pattern, num_shards=4, shard_id=0)
    assert len(ids(TFRecordDataset(pattern, columns_list=["id"], num_samples=2))) == 2


def test_pipeline_ops_and_save(tfdir, tmp_path):
    ds = TFRecordDataset(str(tfdir / "*.tfrecord"), columns_list=["id", "pair"], shuffle=False)
    ds = ds.map(lambda p: (p * 10).astype(np.int64), input_columns=["pair"]).batch(3)
    batches = [b["pair"].tolist() for b in ds.create_dict_iterator(num_epochs=1, output_numpy=True)]
    assert batches[0] == [[0, 0], [10, -10], [20, -20]]
    out = str(tmp_path / "saved.mindrecord")
    TFRecordDataset(str(tfdir / "*.tfrecord"), columns_list=["id", "score"], shuffle=False).save(out)
    with mindrecord.FileReader(out) as r:
        assert [int(np.asarray(row["id"]).reshape(-1)[0]) for row in r.get_next()] == list(range(6))


def test_arguments_not_implemented_are_errors_naming_them(tfdir, tmp_path):
    pattern = str(tfdir / "*.tfrecord")
    with pytest.raises(ValueError, match="compression_type"):
        TFRecordDataset(pattern, compression_type="LZ4")
    with pytest.raises(NotImplementedError, match="cache"):
        TFRecordDataset(pattern, cache=object())
    s = Schema()
    s.add_column("id", "uint32")
    with pytest.raises(NotImplementedError, match="'id' of type uint32"):
        TFRecordDataset(pattern, schema=s)
    with pytest.raises(ValueError, match="failed to find column name.*nope"):
        TFRecordDataset(pattern, columns_list=["id", "nope"])
    with pytest.raises(ValueError, match="did not match"):
        TFRecordDataset(str(tmp_path / "none*.tfrecord"))


def test_damaged_files_are_errors_naming_file_and_offset(tfdir, tmp_path):
    a = tfdir / "a.tfrecord"
    data = bytearray(a.read_bytes())
    # The second record's data: a flipped byte is that row's error.
    first = 12 + struct.unpack("<Q", bytes(data[:8]))[0] + 4
    damaged = tmp_path / "damaged.tfrecord"
    data[first + 14] ^= 0x40
    damaged.write_bytes(bytes(data))
    ds = TFRecordDataset(str(damaged), shuffle=False)
    with pytest.raises(RuntimeError, match="damaged.tfrecord.*checksum|checksum.*damaged.tfrecord") as e:
        rows_of(ds)
    assert "byte %d" % first in str(e.value)
    # A damaged length: the framing cannot be followed, the dataset does not open.
    data = bytearray(a.read_bytes())
    data[first + 2] ^= 0x01
    damaged.write_bytes(bytes(data))
    with pytest.raises(Exception, match="damaged.tfrecord.*record 1 at byte %d" % first):
        TFRecordDataset(str(damaged))
    damaged.write_bytes(a.read_bytes()[:-3])
    with pytest.raises(Exception, match="truncated"):
        TFRecordDataset(str(damaged))
    # A record without a column's feature, and a feature of another kind.
    odd = tmp_path / "odd.tfrecord"
    write_tfrecord(str(odd), [{"id": 1, "v": 1.5}, {"id": 2}, {"id": b"two", "v": 2.5}])
    with pytest.raises(RuntimeError, match="no feature 'v'"):
        rows_of(TFRecordDataset(str(odd), shuffle=False))
    with pytest.raises(RuntimeError, match="column 'id'.*bytes_list"):
        rows_of(TFRecordDataset(str(odd), columns_list=["id"], shuffle=False))
    assert os.path.getsize(str(odd)) > 0
    # Padding may not turn a small record into a huge tensor: 100,001 values padded to 3,000 bytes.
    wide = tmp_path / "wide.tfrecord"
    write_tfrecord(str(wide), [{"b": [b""] * 100000 + [b"x" * 3000]}])
    with pytest.raises(RuntimeError, match="more than a row may hold"):
        rows_of(TFRecordDataset(str(wide), shuffle=False))
    with pytest.raises(Exception, match="more elements than a row may"):
        s = Schema()
        s.add_column("b", "uint8", [1 << 20, 1 << 20])
        rows_of(TFRecordDataset(str(wide), schema=s, shuffle=False))


# --- files compressed whole (compression_type GZIP / ZLIB) ---

def compressed_copies(tmp_path, n=2500):
    """An uncompressed TFRecord file of ~4.5 MB and its gzip, zlib and
    two-member gzip copies."""
    rng = random.Random(5)
    plain = tmp_path / "plain.tfrecord"
    write_tfrecord(str(plain), [{"id": i, "blob": rng.randbytes(rng.randint(0, 3000)) + b"text " * rng.randint(0, 300)}
                                for i in range(n)])
    data = plain.read_bytes()
    (tmp_path / "gz").mkdir()
    (tmp_path / "zl").mkdir()
    (tmp_path / "gz" / "a.tfrecord").write_bytes(gzip.compress(data))
    (tmp_path / "zl" / "a.tfrecord").write_bytes(zlib.compress(data))
    cut = 0
    for _ in range(n // 2):  # the boundary after record n/2
        cut += 12 + struct.unpack("<Q", data[cut:cut + 8])[0] + 4
    (tmp_path / "gz2").mkdir()
    (tmp_path / "gz2" / "a.tfrecord").write_bytes(gzip.compress(data[:cut]) + gzip.compress(data[cut:]))
    return plain


def test_gzip_and_zlib_files_read_as_the_uncompressed_file(tmp_path):
    plain = compressed_copies(tmp_path)

    def rows(path, compression, **kw):
        ds = TFRecordDataset(str(path), compression_type=compression, **kw)
        return [(int(r["id"][0]), bytes(r["blob"])) for r in rows_of(ds)]
    want = rows(plain, None, shuffle=False)
    shuffled = rows(plain, None, seed=11)
    assert len(want) == 2500 and shuffled != want
    for sub, compression in (("gz", "GZIP"), ("zl", "ZLIB"), ("gz2", "GZIP")):
        path = tmp_path / sub / "a.tfrecord"
        ds = TFRecordDataset(str(path), compression_type=compression, shuffle=False)
        assert ds.get_dataset_size() == 2500 and ds.get_col_names() == ["blob", "id"]
        assert rows(path, compression, shuffle=False) == want, sub
        # A global shuffle reads the records in the uncompressed file's shuffled order.
        assert rows(path, compression, seed=11) == shuffled, sub
        # Four workers reading at once, batches of the rows in order.
        ds = TFRecordDataset(str(path), columns_list=["id"], compression_type=compression, shuffle=False,
                             num_parallel_workers=4).batch(7, drop_remainder=True)
        ids = [i for b in ds.create_dict_iterator(num_epochs=1, output_numpy=True) for i in b["id"].reshape(-1)]
        assert ids == list(range(2499)), sub


def test_damaged_compressed_files_are_errors_naming_file_and_offset(tmp_path):
    plain = compressed_copies(tmp_path, n=300)
    gz = (tmp_path / "gz" / "a.tfrecord").read_bytes()
    bad = tmp_path / "bad.tfrecord.gz"
    bad.write_bytes(gz[:len(gz) // 2])
    with pytest.raises(Exception, match="bad.tfrecord.gz: the gzip stream at compressed byte .*truncated"):
        TFRecordDataset(str(bad), compression_type="GZIP")
    flipped = bytearray(gz)
    flipped[len(gz) // 2] ^= 0x10
    bad.write_bytes(bytes(flipped))
    with pytest.raises(Exception, match="bad.tfrecord.gz: the gzip stream at compressed byte [0-9]+: damaged"):
        TFRecordDataset(str(bad), columns_list=["id"], compression_type="GZIP")
    # The wrong compression_type, or none for a compressed file.
    with pytest.raises(Exception, match="a.tfrecord: the zlib stream at compressed byte [0-9]+: damaged"):
        TFRecordDataset(str(tmp_path / "gz" / "a.tfrecord"), compression_type="ZLIB")
    with pytest.raises(Exception, match="a.tfrecord: record 0 at byte 0: the file starts as a gzip stream: .*"
                                        "compression_type='GZIP'"):
        TFRecordDataset(str(tmp_path / "gz" / "a.tfrecord"))
    with pytest.raises(Exception, match="compression_type='ZLIB'"):
        TFRecordDataset(str(tmp_path / "zl" / "a.tfrecord"), shuffle=False)
    with pytest.raises(Exception, match="plain.tfrecord: the gzip stream at compressed byte [0-9]+: damaged"):
        TFRecordDataset(str(plain), compression_type="GZIP")
    # A stream that inflates but whose records break: the decompressed offset.
    data = bytearray(plain.read_bytes())
    second = 12 + struct.unpack("<Q", bytes(data[:8]))[0] + 4
    data[second + 2] ^= 0x01
    bad.write_bytes(zlib.compress(bytes(data)))
    with pytest.raises(Exception, match="bad.tfrecord.gz: record 1 at byte %d of the decompressed stream" % second):
        TFRecordDataset(str(bad), columns_list=["id"], compression_type="ZLIB")
    bad.write_bytes(zlib.compress(plain.read_bytes()[:-3]))
    with pytest.raises(Exception, match="bad.tfrecord.gz: record 299 .*of the decompressed stream: truncated"):
        TFRecordDataset(str(bad), columns_list=["id"], compression_type="ZLIB")
    # A record's damaged data: that row's error, at its decompressed offset.
    data = bytearray(plain.read_bytes())
    data[second + 14] ^= 0x40
    bad.write_bytes(gzip.compress(bytes(data)))
    with pytest.raises(RuntimeError, match="byte %d of '.*bad.tfrecord.gz' decompressed.*checksum" % second):
        rows_of(TFRecordDataset(str(bad), compression_type="GZIP", shuffle=False))


def test_more_records_than_a_source_may_index_are_an_error(tmp_path, monkeypatch):
    # A few kilobytes of gzip can frame millions of empty records; a source
    # keeps at most MINDRECORD_MAX_INDEXED_ROWS locators (all its files together).
    path = tmp_path / "many.tfrecord.gz"
    write_tfrecord(str(tmp_path / "plain"), [{"id": 1}] + [{}] * 5000)
    path.write_bytes(gzip.compress((tmp_path / "plain").read_bytes()))
    assert path.stat().st_size < 2000
    assert TFRecordDataset(str(path), compression_type="GZIP").get_dataset_size() == 5001
    monkeypatch.setenv("MINDRECORD_MAX_INDEXED_ROWS", "5000")
    with pytest.raises(mindrecord.UnsupportedError, match="many.tfrecord.gz: more than 5000 records to index in "
                                                          "memory.*MINDRECORD_MAX_INDEXED_ROWS"):
        TFRecordDataset(str(path), compression_type="GZIP")
    with pytest.raises(mindrecord.UnsupportedError, match="plain: more than 5000 records"):
        TFRecordDataset(str(tmp_path / "plain"))
    write_tfrecord(str(tmp_path / "small"), [{"id": 1}] * 10)
    monkeypatch.setenv("MINDRECORD_MAX_INDEXED_ROWS", "5010")
    with pytest.raises(mindrecord.UnsupportedError, match="small: more than 5010 records"):
        TFRecordDataset([str(tmp_path / "plain"), str(tmp_path / "small")], columns_list=["id"])
    monkeypatch.setenv("MINDRECORD_MAX_INDEXED_ROWS", "5011")
    ds = TFRecordDataset([str(tmp_path / "plain"), str(tmp_path / "small")], columns_list=["id"], shuffle=False)
    assert ds.get_dataset_size() == 5011
    monkeypatch.setenv("MINDRECORD_MAX_INDEXED_ROWS", "lots")
    with pytest.raises(ValueError, match="MINDRECORD_MAX_INDEXED_ROWS='lots'"):
        TFRecordDataset(str(path), compression_type="GZIP")
