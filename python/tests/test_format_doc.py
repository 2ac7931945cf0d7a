"""mindrecord/FORMAT.md describes the bytes: a reader written only from that document
(below, plain Python: struct, json, msgpack, numpy, xxhash, zstandard, lz4) reads the same
rows as the library, from files we write (v3.0 and v2.0, several shards and pages, several
blob fields, packed integer arrays, checksums, lz4/zstd compression with a dictionary) and
from files MindSpore wrote."""
import base64
import collections
import json
import os
import re
import struct

import lz4.block
import msgpack
import numpy as np
import pytest
import xxhash
import zstandard

from conftest import compat_path
from mindrecord import FileReader, FileWriter

_DTYPES = {"int32": "<i4", "int64": "<i8", "float32": "<f4", "float64": "<f8"}


def _u64(data, off):
    return struct.unpack_from("<Q", data, off)[0]


def _unpack_ints(part):
    # v3.0 packing: BE uint32 count, a 2-bit width per element (MSB first), values LE.
    n = struct.unpack_from(">I", part, 0)[0]
    bitmap, off, out = part[4:4 + (n + 3) // 4], 4 + (n + 3) // 4, []
    for i in range(n):
        width = 1 << ((bitmap[i // 4] >> (2 * (3 - i % 4))) & 3)
        out.append(int.from_bytes(part[off:off + width], "little", signed=True))
        off += width
    assert off == len(part)
    return out


def _decode_blob(spec, part, version):
    if spec["type"] == "bytes":
        return part
    if spec["type"] in ("int32", "int64") and version.startswith("3.0"):  # "3.0" and "3.0+mr-..."
        return np.array(_unpack_ints(part))
    return np.frombuffer(part, _DTYPES[spec["type"]])


TAGS = collections.Counter()  # compression tags seen, so tests know what they exercised


def _check_checksums(data, header, slot):
    text = data[8:8 + _u64(data, 0)].decode()
    if "mr_header_xxh3" in header:
        zeroed = re.sub(r'("mr_header_xxh3":")[0-9a-f]{16}"', lambda m: m.group(1) + "0" * 16 + '"', text)
        assert xxhash.xxh3_64_hexdigest(zeroed) == header["mr_header_xxh3"]
    for p in header["page"]:
        if "mr_xxh3" in p:
            assert xxhash.xxh3_64_hexdigest(data[slot(p):slot(p) + p["page_size"]]) == p["mr_xxh3"]
            TAGS["page checksums"] += 1


def _untagger(header):
    """value -> its bytes, for datasets with "mr_compression"; None for plain ones."""
    if not header["version"].endswith(("+mr-zstd", "+mr-lz4")):
        return None
    comp = header["mr_compression"]
    kw = {}
    if comp.get("dictionary"):
        kw["dict_data"] = zstandard.ZstdCompressionDict(base64.b64decode(comp["dictionary"]))

    def untag(value):
        tag, payload = value[0], value[1:]
        TAGS[tag] += 1
        if tag == 0:
            return payload
        if tag == 1:
            return lz4.block.decompress(payload[4:], uncompressed_size=struct.unpack_from("<I", payload)[0])
        fmt = zstandard.FORMAT_ZSTD1 if tag == 2 else zstandard.FORMAT_ZSTD1_MAGICLESS
        assert tag in (2, 3)
        # Streaming: python-zstandard's one-shot decompress() reads the content size as if the
        # frame had its magic number.
        return zstandard.ZstdDecompressor(format=fmt, **kw).decompressobj().decompress(payload)
    return untag, bool(comp.get("raw"))


def read_shard(path):
    """Every row of one shard file, in row order, decoded as FORMAT.md says."""
    data = open(path, "rb").read()
    header = json.loads(data[8:8 + _u64(data, 0)])
    schema = header["schema"][0]
    fields, blob_fields, version = schema["schema"], schema["blob_fields"], header["version"]
    slot = lambda page: header["header_size"] + page["page_id"] * header["page_size"]  # noqa: E731
    _check_checksums(data, header, slot)
    untag = _untagger(header)
    blob_pages = sorted((p for p in header["page"] if p["page_type"] == "BLOB_DATA"),
                        key=lambda p: p["page_type_id"])
    raw_groups = {}
    for p in header["page"]:
        if p["page_type"] == "RAW_DATA":
            for g in p["row_group_ids"]:
                raw_groups[g["id"]] = slot(p) + g["offset"]
    rows = []
    for bp in blob_pages:
        b, r = slot(bp), raw_groups[bp["page_type_id"]]
        for _ in range(bp["end_row_id"] - bp["start_row_id"]):
            blob = data[b + 8:b + 8 + _u64(data, b)]
            b += 8 + len(blob)
            raw = data[r + 8:r + 8 + _u64(data, r)]
            r += 8 + len(raw)
            if untag and untag[1]:
                raw = untag[0](raw)
            row = msgpack.unpackb(raw, raw=False)
            if len(blob_fields) == len(fields):
                assert row == {"id": 0}
                row = {}
            if len(blob_fields) == 1:
                parts = [blob]
            elif blob_fields:
                parts, off = [], 0
                for _ in blob_fields:
                    n = struct.unpack_from(">Q", blob, off)[0]
                    parts.append(blob[off + 8:off + 8 + n])
                    off += 8 + n
                assert off == len(blob)
            else:
                assert blob == b"\0\0\0\0"
                parts = []
            for name, part in zip(blob_fields, parts):
                row[name] = _decode_blob(fields[name], untag[0](part) if untag else part, version)
            rows.append(row)
    return header, rows


def read_dataset(any_shard):
    header, _ = read_shard(any_shard)
    folder = os.path.dirname(any_shard)
    rows = []
    for name in header["shard_addresses"]:
        rows += read_shard(os.path.join(folder, name))[1]
    return rows


def assert_same_rows(path):
    doc_rows = read_dataset(path)
    with FileReader(path) as r:
        lib_rows = list(r.get_next())
    assert len(doc_rows) == len(lib_rows) > 0
    for i, (d, lib) in enumerate(zip(doc_rows, lib_rows)):
        assert sorted(d) == sorted(lib), i
        for k, v in lib.items():
            if isinstance(v, np.ndarray):
                np.testing.assert_array_equal(np.asarray(d[k]).ravel(), v.ravel(), err_msg="row %d %s" % (i, k))
            else:
                assert d[k] == v, (i, k)


@pytest.mark.parametrize("version", ["3.0", "2.0"])
def test_our_files_read_as_documented(tmp_path, version):
    path = str(tmp_path / "doc.mindrecord")
    w = FileWriter(path, 3, version=version)
    w.add_schema({"id": {"type": "int64"}, "label": {"type": "int32"}, "name": {"type": "string"},
                  "score": {"type": "float64"}, "img": {"type": "bytes"},
                  "box": {"type": "float32", "shape": [-1, 4]}, "ids": {"type": "int64", "shape": [-1]}}, "doc")
    w.set_page_size(32 * 1024)
    rng = np.random.default_rng(5)
    w.write_raw_data([{"id": i, "label": i % 7 - 3, "name": "n%d" % i, "score": i / 3,
                       "img": bytes(rng.integers(0, 256, 200 + i % 50, dtype=np.uint8)),
                       "box": np.full((i % 3, 4), i, np.float32),
                       "ids": np.array([i, -i, 1 << 40, 300, -70000][:1 + i % 5], np.int64)} for i in range(400)])
    w.commit()
    assert_same_rows(path + "1")


def test_only_blob_fields_and_no_blob_fields(tmp_path):
    for schema, row in (({"a": {"type": "bytes"}, "b": {"type": "int32", "shape": [2]}},
                         {"a": b"xyz", "b": np.array([1, 2], np.int32)}),
                        ({"a": {"type": "int32"}, "s": {"type": "string"}}, {"a": 5, "s": "t"})):
        path = str(tmp_path / ("d%d.mindrecord" % len(os.listdir(tmp_path))))
        w = FileWriter(path)
        w.add_schema(schema, "edge")
        w.write_raw_data([row] * 3)
        w.commit()
        assert_same_rows(path)


@pytest.mark.parametrize("name", ["imagenet/imagenet.mindrecord0", "twobytes/twobytes.mindrecord", "graph/testdata"])
def test_mindspore_files_read_as_documented(name):
    assert_same_rows(compat_path("mindrecord", name))


@pytest.mark.parametrize("codec", [dict(compression="lz4"), dict(compression="zstd", dictionary=True, compress_raw=True)])
def test_compressed_files_read_as_documented(tmp_path, codec):
    path = str(tmp_path / "c.mindrecord")
    w = FileWriter(path, 2, **codec)
    w.add_schema({"id": {"type": "int64"}, "text": {"type": "string"}, "body": {"type": "bytes"},
                  "jpeg": {"type": "bytes"}, "v": {"type": "int32", "shape": [-1]}}, "compressed")
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    w.write_raw_data([{"id": i, "text": " ".join(words[(i + k) % 6] for k in range(40)),
                       "body": (" ".join(words[(i * k) % 6] for k in range(60))).encode(),
                       "jpeg": b"\xff\xd8\xff" + bytes(range(i % 50)), "v": np.arange(i % 9, dtype=np.int32)}
                      for i in range(600)])
    w.commit()
    TAGS.clear()
    assert_same_rows(path + "0")
    assert TAGS[0] > 0 and TAGS[1 if codec["compression"] == "lz4" else 3] > 0, TAGS
    assert TAGS["page checksums"] > 0
