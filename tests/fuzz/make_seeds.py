#!/usr/bin/env python3
"""Writes seed corpora for the fuzz targets, cut from the compat files.

usage: make_seeds.py COMPAT_DIR OUT_DIR   (OUT_DIR/<target>/<seed>)
"""
import glob
import gzip
import json
import os
import sqlite3
import struct
import sys
import zlib

SEP = b"\n--mindrecord-fuzz-file--\n"  # tests/fuzz/fuzz_util.h kFileSeparator
# row_codec_fuzz schema ids (tests/fuzz/compat_schemas.h).
SCHEMA_ID = {"imagenet": 0, "graph": 1, "twobytes": 2}

compat, out = sys.argv[1], sys.argv[2]


def put(target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# recovery_fuzz: first byte even = append journal, odd = commit record. The
# journal's body is empty, so its checksum is XXH3-64 of no bytes.
def recovery_seeds():
    import json
    desc = {"shard": "d", "master": "d", "append_id": "1", "device": 1, "inode": 2, "size": 20000,
            "header_size": 16384, "header_bytes": 0, "regions": [[16384, 100, False]],
            "xxh3": "2d06800538d394c2", "shards": ["d", "d1"]}
    put("recovery", "journal", b"\x00mindrecord-append-journal 2\n" + json.dumps(desc).encode() + b"\n")
    put("recovery", "commit", b"\x01mindrecord-commit 2\n0000000000000000\n" +
        json.dumps([[".t", "d", 1, 2, 3], [".u", "d.db", 1, 2, 3]]).encode())


def read(path):
    with open(path, "rb") as f:
        return f.read()



recovery_seeds()


# encryption_fuzz: first byte bit 0 = key (tests/fuzz/encryption_fuzz.cc
# kFuzzKey), bit 1 = hash mode (bit 2: sha512, else sha256), bits 5-6 = the
# decryption mode (1: AES-CBC, 2: SM4-CBC, else AES-GCM). MindSpore's layout
# (mindrecord/encryption.h), with small blocks so a seed spans several.
def encryption_seeds(stored):
    import hashlib
    put("encryption", "plain", b"\0" + stored)
    hashed = stored + hashlib.sha256(stored).digest() + struct.pack(">I", 32) + b"HASH"
    put("encryption", "hashed", b"\2" + hashed)
    try:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError:
        return  # python3-cryptography missing: plain and hashed seeds only
    key = b"mindrecord-fuzz!"

    def encrypt(data, block):
        out = b""
        for at in range(0, len(data), block):
            chunk, iv = data[at:at + block], bytes(range(16))
            sealed = AESGCM(key).encrypt(iv, chunk, None)
            body, tag = sealed[:-16], sealed[-16:]
            n = len(body)
            out += (struct.pack(">I", 48 + n) + struct.pack("<I", 0x7F3A5ED8) + tag + struct.pack("<ii", 24 + n, 16) +
                    iv + struct.pack("<i", n) + body)
        return out + struct.pack(">I", 0) + b"AES-GCM" + b"ENCRYPT"

    def encrypt_cbc(data, block, sm4):
        from cryptography.hazmat.primitives import padding
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        out = b""
        for at in range(0, len(data), block):
            chunk, iv = data[at:at + block], bytes(range(16))
            padder = padding.PKCS7(128).padder()
            enc = Cipher((algorithms.SM4 if sm4 else algorithms.AES)(key), modes.CBC(iv)).encryptor()
            body = enc.update(padder.update(chunk) + padder.finalize()) + enc.finalize()
            c = len(body)
            out += (struct.pack(">I", 32 + c) + struct.pack("<I", 0x7F3A5EDA if sm4 else 0x7F3A5ED9) +
                    struct.pack("<ii", 24 + c, 16) + iv + struct.pack("<i", c) + body)
        return out + struct.pack(">I", 0) + (b"SM4-CBC" if sm4 else b"AES-CBC") + b"ENCRYPT"

    put("encryption", "aes_cbc_blocks", b"\x29" + encrypt_cbc(stored, 4096, False))
    put("encryption", "sm4_cbc_blocks", b"\x49" + encrypt_cbc(stored, 1000, True))
    put("encryption", "encrypted", b"\1" + encrypt(stored, 64 << 20))
    put("encryption", "encrypted_blocks", b"\x09" + encrypt(stored, 4096))
    put("encryption", "hashed_encrypted", b"\3" + encrypt(hashed, 1000))


def header(data):
    n = struct.unpack("<Q", data[:8])[0]
    return data[8:8 + n], json.loads(data[8:8 + n])


shards = {
    "graph": ["mindrecord/graph/testdata"],
    "twobytes": ["mindrecord/twobytes/twobytes.mindrecord"],
    "imagenet": ["mindrecord/imagenet/imagenet.mindrecord%d" % i for i in range(4)],
}
for kind, paths in shards.items():
    for path in paths:
        full = os.path.join(compat, path)
        if not os.path.exists(full):
            continue
        name = os.path.basename(path)
        data, db = read(full), read(full + ".db")
        text, h = header(data)
        put("header", name + ".json", text)
        put("index", name + ".db", db)
        if kind != "imagenet" or name.endswith("0"):
            put("page_walker", name, data)
        if len(h["shard_addresses"]) == 1:
            put("shard_reader", name, db + SEP + data)
        if kind == "twobytes":
            encryption_seeds(data[:8192])
        # Raw and blob parts at the index offsets, for row_codec and int_packing.
        v3 = h["version"] == "3.0"
        sel = SCHEMA_ID[kind] | (4 if v3 else 0)
        con = sqlite3.connect("file:%s?mode=ro" % (full + ".db"), uri=True)
        rows = con.execute("SELECT ROW_ID, PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_OFFSET_RAW_END, PAGE_ID_BLOB, "
                           "PAGE_OFFSET_BLOB, PAGE_OFFSET_BLOB_END FROM INDEXES ORDER BY ROW_ID LIMIT 8").fetchall()
        con.close()
        hs, ps = h["header_size"], h["page_size"]
        for row_id, rp, rb, re_, bp, bb, be in rows:
            raw = data[hs + rp * ps + rb + 8:hs + rp * ps + re_]
            blob = data[hs + bp * ps + bb + 8:hs + bp * ps + be]
            put("row_codec", "%s_%d_raw" % (name, row_id), bytes([sel]) + raw)
            if len(blob) < 4096:
                put("row_codec", "%s_%d_blob" % (name, row_id), bytes([sel | 8]) + blob)
            if kind == "graph":
                # Multi-blob framing: uint64 BE length + bytes per field, in
                # blob_fields order; the int32 ones are packed columns.
                blob_fields = h["schema"][0]["blob_fields"]
                types = h["schema"][0]["schema"]
                off = 0
                for field in blob_fields:
                    n = struct.unpack(">Q", blob[off:off + 8])[0]
                    part = blob[off + 8:off + 8 + n]
                    off += 8 + n
                    if types[field]["type"] == "int32":
                        put("int_packing", "%s_%d_%s" % (name, row_id, field), b"\0" + part)
put("remote", "content_range", b"\0bytes 0-65535/130804")
put("remote", "s3_error", b"\1<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code><Message>gone</Message></Error>")
put("remote", "aws_config", b"\2[default]\nregion = eu-west-1\n[profile x]\naws_access_key_id=AK\n")
put("int_packing", "five_int8_ones", b"\0" + bytes.fromhex("0000000500000101010101"))
put("int_packing", "mixed_int64", b"\1" + bytes.fromhex("000000051b") + b"\x01\x02\x01\x00\x00\x00\x00\x00\x00\x80\x00")


# compression_fuzz: first byte selects codec / dictionary / fields / raw part
# (see the target); values are tag + payload, built here by hand (stdlib only):
# tag 0 stored, tag 1 an LZ4 block of literals, tag 2 a zstd frame with one raw
# block, tag 3 the same frame without its magic number.
def lz4_value(b):
    assert len(b) < 15
    return b"\1" + struct.pack("<I", len(b)) + bytes([len(b) << 4]) + b


def zstd_value(b, magic=True):
    frame = bytes([0x20, len(b)]) + struct.pack("<I", 1 | (len(b) << 3))[:3] + b
    return (b"\2" + b"\x28\xb5\x2f\xfd" + frame) if magic else (b"\3" + frame)


def two_fields(a, b):
    return struct.pack(">Q", len(a)) + a + struct.pack(">Q", len(b)) + b


MSGPACK_ID1 = b"\x81\xa2id\x01"
for sel, name, part in [(0, "lz4_one", lz4_value(b"hello world")), (0, "stored_one", b"\0hello"),
                        (1, "zstd_one", zstd_value(b"hello world", magic=False)),
                        (1, "zstd_frame_one", zstd_value(b"hello world")),
                        (3, "zstd_dict_one", zstd_value(b"abcdefgh ijkl", magic=False)),
                        (4, "lz4_two", two_fields(lz4_value(b"abc"), b"\0xyz")),
                        (5, "zstd_two", two_fields(zstd_value(b"abc", magic=False), zstd_value(b"defg"))),
                        (8, "lz4_raw", lz4_value(MSGPACK_ID1)), (9, "zstd_raw", zstd_value(MSGPACK_ID1, magic=False))]:
    put("compression", name, bytes([sel]) + part)

# Converter sources.
mnist = os.path.join(compat, "sources/mnist")
for prefix in ("train", "t10k"):
    imgs = os.path.join(mnist, prefix + "-images-idx3-ubyte.gz")
    if os.path.exists(imgs):
        labels = os.path.join(mnist, prefix + "-labels-idx1-ubyte.gz")
        put("mnist", prefix, gzip.decompress(read(imgs)) + SEP + gzip.decompress(read(labels)))
for sel, path in ((2, "cifar10/data_batch_0"), (2, "cifar10/test_batch"), (3, "cifar100/train"), (3, "cifar100/test")):
    full = os.path.join(compat, "sources", path)
    if os.path.exists(full):
        put("cifar", path.replace("/", "_"), bytes([sel]) + read(full))
        put("pickle", path.replace("/", "_"), read(full))
put("cifar", "cifar10_bin", b"\0" + b"".join(bytes([i]) + bytes((j * 7 + i) % 256 for j in range(3072)) for i in range(2)))
put("cifar", "cifar100_bin", b"\1" + b"".join(bytes([i, 50 + i]) + bytes((j * 5 + i) % 256 for j in range(3072)) for i in range(2)))
for xml in sorted(glob.glob(os.path.join(compat, "sources/voc2012/Annotations/*.xml"))):
    put("voc", os.path.basename(xml), read(xml))
# image_decode_fuzz: first byte picks the op; a few of the compat photos and masks.
smallest = lambda pattern, n: sorted(glob.glob(os.path.join(compat, pattern)), key=os.path.getsize)[:n]
for img in smallest("sources/*/*/*.jpg", 2) + smallest("sources/voc2012/SegmentationObject/*.png", 2):
    for op in range(4):
        put("image_decode", "%s.%d" % (os.path.basename(img), op), bytes([op]) + read(img))
# The other formats whose headers are read before OpenCV decodes them: PNM and
# PAM by hand; BMP, TIFF (raw and deflated), WebP and JPEG 2000 through Pillow
# where the interpreter has it.
others = {"pgm": b"P5\n# seed\n4 3\n255\n" + bytes(range(12)),
          "pam": b"P7\nWIDTH 2\nHEIGHT 2\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n" + bytes(range(12))}
try:
    import io
    from PIL import Image
    pil_image = Image.new("RGB", (16, 12), (10, 20, 30))
    for ext, fmt, kw in [("bmp", "BMP", {}), ("tif", "TIFF", {}), ("deflate.tif", "TIFF", {"compression": "tiff_deflate"}),
                         ("webp", "WEBP", {"lossless": True}), ("lossy.webp", "WEBP", {}), ("jp2", "JPEG2000", {}),
                         ("j2k", "JPEG2000", {"irreversible": True})]:
        buf = io.BytesIO()
        try:
            pil_image.save(buf, fmt, **kw)
        except (OSError, KeyError, ValueError):
            continue  # a Pillow built without that codec
        others[ext] = buf.getvalue()
except ImportError:
    pass
for ext, data in sorted(others.items()):
    for op in range(4):
        put("image_decode", "synthetic.%s.%d" % (ext, op), bytes([op]) + data)
for js in sorted(glob.glob(os.path.join(compat, "sources/coco/annotations/*.json"))):
    put("coco", os.path.basename(js), read(js))
for tf in sorted(glob.glob(os.path.join(compat, "sources/tfrecord/*.tfrecord"))):
    put("tfrecord", os.path.basename(tf), read(tf))
for csv in sorted(glob.glob(os.path.join(compat, "sources/csv/*.csv"))):
    put("csv", os.path.basename(csv), read(csv))
    # text_file: the first byte is where the input is cut into two files.
    put("text_file", os.path.basename(csv), bytes([7]) + read(csv))
    # csv_source: the first byte picks the delimiter (low 2 bits) and the header (bit 2).
    put("csv_source", os.path.basename(csv), bytes([4]) + read(csv))
put("csv_source", "quoted", b'\x04id,score,name\n1,0.5,"a, b"\n2,1.5,"say ""hi"""\r\n\n3,-2e3,"multi\nline"\n5,3.25,')
put("text_file", "lines", b"\x05ab\r\n\n\ncaf\xc3\xa9\nlatin \xe9\n\xf0\x9f\x98\x80 end")

# Synthetic seeds for what the compat files lack: COCO polygon, RLE (count
# list and compressed string) and panoptic segmentations; TFRecord bytes lists
# of several and of no values.
coco_seg = {
    "images": [{"id": 1, "file_name": "img.jpg"}, {"id": 2, "file_name": "img.jpg"}],
    "categories": [{"id": 1, "name": "a"}],
    "annotations": [
        {"id": 1, "image_id": 1, "bbox": [1, 1, 4, 4], "category_id": 1, "iscrowd": 0, "area": 9,
         "segmentation": [[1.5, 1, 4, 1, 4, 4], [0, 0, 2, 0, 2, 2, 0, 2]], "keypoints": [1, 1, 2], "num_keypoints": 1},
        {"id": 2, "image_id": 1, "bbox": [0, 0, 8, 8], "category_id": 1, "iscrowd": 1, "area": 20,
         "segmentation": {"counts": [3, 20, 41], "size": [8, 8]}, "keypoints": [0, 0, 0], "num_keypoints": 0},
        {"id": 3, "image_id": 2, "bbox": [0, 0, 8, 8], "category_id": 1, "iscrowd": 1, "area": 20,
         "segmentation": {"counts": "1238", "size": [4, 4]}, "keypoints": [2, 2, 2], "num_keypoints": 1},
        {"image_id": 2, "file_name": "p.png", "caption": "x",
         "segments_info": [{"id": 7, "category_id": 1, "iscrowd": 0, "bbox": [0, 0, 2, 2], "area": 4}]},
    ],
}
put("coco", "synthetic_segmentation.json", json.dumps(coco_seg).encode())


def varint(n):
    out = b""
    while True:
        b, n = n & 0x7F, n >> 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def pb(num, payload):  # a length-delimited protobuf field
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    crc ^= 0xFFFFFFFF
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def example(features):  # {name: ("bytes", [b"..."]) | ("int64", [n])}
    entries = b""
    for name, (kind, values) in sorted(features.items()):
        if kind == "bytes":
            feature = pb(1, b"".join(pb(1, v) for v in values))
        else:
            feature = pb(3, pb(1, b"".join(varint(v) for v in values)))
        entries += pb(1, pb(1, name.encode()) + pb(2, feature))
    return pb(1, entries)


def tfrecord(records):
    out = b""
    for data in records:
        n = struct.pack("<Q", len(data))
        out += n + struct.pack("<I", crc32c(n)) + data + struct.pack("<I", crc32c(data))
    return out


put("tfrecord", "synthetic_bytes_lists", tfrecord([
    example({"tags": ("bytes", [b"a", b"", b"ccc"]), "label": ("int64", [1])}),
    example({"tags": ("bytes", []), "label": ("int64", [2])}),
    example({"tags": ("bytes", [b"\0x"]), "label": ("int64", [3])}),
]))


# cache_entry_fuzz: first byte 1 = the target fills in lengths and checksums.
# Entries laid out as pipeline/cache/cache_entry.h (two columns: a uint8 HWC
# image and an int64 scalar; one bytes column).
def cache_entry(cols):
    body = struct.pack("<II", len(cols), 0)
    for ttype, shape, data in cols:
        body += struct.pack("<BB6x", ttype, len(shape)) + b"".join(struct.pack("<q", d) for d in shape)
        body += struct.pack("<Q", len(data))
        body += b"\0" * ((16 - (48 + len(body)) % 16) % 16) + data
    return b"MRCACHE1" + struct.pack("<QQQQQ", 0x1234, 7, len(body), 0, 0) + body


put("cache_entry", "image_label", b"\1" + cache_entry([(0, [2, 3, 3], bytes(range(18))), (4, [], struct.pack("<q", 5))]))
put("cache_entry", "bytes", b"\1" + cache_entry([(7, [5], b"hello")]))


# op_spec_fuzz: byte 0 seeds the values; three 6-byte tensor descriptions
# (type as pipeline/tensor.h TensorType, rank | 0x80 for a read-only view, four
# dimensions); then an op's JSON spec, one per line of op_specs.jsonl (every
# registered op with typical parameters).
def op_input(seed, *descs):
    descs = list(descs) + [(0, 0, 0, 0, 0, 0)] * (3 - len(descs))
    return bytes([seed]) + b"".join(bytes(d) for d in descs)


OP_INPUTS = {
    "hwc": op_input(1, (0, 3, 12, 16, 3, 0), (5, 2, 2, 4, 0, 0), (3, 1, 5, 0, 0, 0)),  # + float32 boxes [2, 4]
    "hwc_f32_view": op_input(2, (5, 3 | 0x80, 10, 8, 3, 0), (5, 2 | 0x80, 1, 4, 0, 0)),
    "hw": op_input(4, (0, 2, 9, 7, 0, 0)),
    "nhwc": op_input(6, (0, 4, 2, 6, 6, 3), (5, 2, 2, 5, 0, 0)),  # a batch of 2 + one-hot labels [2, 5]
    "vector_i32": op_input(9, (3, 1, 10, 0, 0, 0)),
    "strings": op_input(10, (10, 1, 7, 0, 0, 0), (10, 1, 4, 0, 0, 0)),  # arrays of strings [7] and [4]
    "string": op_input(12, (8, 1, 20, 0, 0, 0)),  # one string of 20 bytes
}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "op_specs.jsonl")) as f:
    for i, line in enumerate(f):
        spec = json.loads(line)
        for kind, head in OP_INPUTS.items():
            put("op_spec", "%02d_%s_%s" % (i, spec["op"], kind), head + json.dumps(spec).encode())


# audio_fuzz: first byte = layout (0 yesno, 1 speechcommands, 2 ljspeech,
# 3 cmuarctic, 4 gtzan, 5 libritts, 6 tedlium), then a sound file, the file
# separator, the metadata file.
def riff_wav(rate, width, channels, frames, fmt_tag=1, big=False):
    e = ">" if big else "<"
    data = bytes((i * 37) & 255 for i in range(frames * width * channels))
    fmt = struct.pack(e + "HHIIHH", fmt_tag, channels, rate, rate * width * channels, width * channels, width * 8)
    body = b"WAVE" + b"fmt " + struct.pack(e + "I", len(fmt)) + fmt + b"data" + struct.pack(e + "I", len(data)) + data
    return (b"RIFX" if big else b"RIFF") + struct.pack(e + "I", len(body)) + body


def nist_sph(rate, count):
    head = ("NIST_1A\n   1024\nsample_count -i %d\nsample_n_bytes -i 2\nchannel_count -i 1\n"
            "sample_byte_format -s2 10\nsample_rate -i %d\nsample_coding -s3 pcm\nend_head\n" % (count, rate))
    return head.encode().ljust(1024, b"\0") + bytes((i * 11) & 255 for i in range(2 * count))


AUDIO_SEEDS = {
    "yesno_pcm16": (0, riff_wav(16000, 2, 1, 400), b""),
    "yesno_stereo24": (0, riff_wav(16000, 3, 2, 100), b""),
    "yesno_float_rifx": (0, riff_wav(8000, 4, 1, 50, fmt_tag=3, big=True), b""),
    "speech_commands": (1, riff_wav(16000, 2, 1, 100), b"a/x_nohash_1.wav\r\nb/y_nohash_2.wav\n"),
    "ljspeech": (2, riff_wav(22050, 2, 1, 100), b"a|text one|Text one\nb|two|Two\n"),
    "cmuarctic": (3, riff_wav(16000, 2, 1, 100), b'( arctic_a0001 "Dog." )\n( arctic_a0002 "Cat." )\n'),
    "gtzan": (4, riff_wav(22050, 2, 1, 100), b""),
    "libritts": (5, riff_wav(24000, 2, 1, 100), b"1_2_3_4\tgood morning\tGood morning\n1_2_3_5\ta\tA\n"),
    "tedlium": (6, nist_sph(16000, 1600), b"t 1 t 0.00 0.03 <o,f0,female> record one\n"
                                          b"t 1 t 0.02 0.09 <o,f0,female> record two\n;; comment\n"),
}
for name, (layout, sound, meta) in AUDIO_SEEDS.items():
    put("audio", name, bytes([layout]) + sound + SEP + meta)


# vectors_fuzz: first byte = kind (bits 0-1: Vectors, GloVe, FastText,
# CharNGram), lower_case_backup (bit 2), max_vectors (bits 3-4); then the file.
VECTORS_SEEDS = {
    "vectors": (0, b"the 0.418 0.24968 -0.41242\n, 0.013441 0.23682 -0.16899\nThe 1 2 3\n"),
    "glove_lower": (1 | 4, b"a 1e-3 +2 -0.5\nthe 7 7 7\r\n"),
    "fasttext_header": (2 | 8, b"2 3\na 1 2 3 \nb 4 5 6 \n"),
    "charngram": (3, b"2gram-#BEGIN#a 1 2\n2gram-a#END# 3 4\n3gram-#BEGIN#a#END# 5 6\n"),
}
for name, (pick, body) in VECTORS_SEEDS.items():
    put("vectors", name, bytes([pick]) + body)


# celeba_fuzz: first byte = usage (bits 0-1: all, train, valid, test), ".jpg"
# filter (bit 2), decode (bit 3); then list_attr_celeba.txt, the file
# separator, list_eval_partition.txt.
CELEBA_ATTR = b"2\n5_o_Clock_Shadow Arched_Eyebrows \n000001.jpg -1  1\r\n000002.png  1 -1\n"
CELEBA_PART = b"000001.jpg 0\n000002.png 2\n"  # also read as a Places365 list: "path label" pairs
for name, pick in {"all": 0, "train": 1, "test_jpg": 3 | 4, "valid_decode": 2 | 8}.items():
    put("celeba", name, bytes([pick]) + CELEBA_ATTR + SEP + CELEBA_PART)
# The first file read as a Food101 list too (meta/test.txt; class folder "a").
put("celeba", "food101_list", bytes([0]) + b"a/000001\r\n/a/000001\nb/2\n" + SEP + CELEBA_PART)

# catalog_fuzz: first byte = layout (modulo 18: lfw, flickr, kitti, widerface,
# manifest, sbu, multi30k, qmnist, stl10, usps, semeion, squad, iwslt,
# flowers102, caltech101, svhn, sb, photo_tour), second = variant
# (bit 0: LFW pairs / QMNIST's 8 label fields, bit 1: LFW 10fold, bit 2:
# decode); then up to two list files.
def mat_v5(variables, compress=False):
    """A MATLAB v5 .mat file of real arrays: {name: (dims, values column-major)}, doubles, or uint8 when the
    values are bytes; `compress`: each variable a zlib stream."""
    def element(kind, payload):
        return struct.pack("<II", kind, len(payload)) + payload + b"\0" * ((8 - len(payload) % 8) % 8)
    out = b"MATLAB 5.0 MAT-file, mindrecord fuzz seed".ljust(116, b" ") + b"\0" * 8 + struct.pack("<H", 0x0100) + b"IM"
    for name, (dims, values) in variables.items():
        cls, kind, data = (9, 2, values) if isinstance(values, bytes) else (6, 9, struct.pack("<%dd" % len(values),
                                                                                              *values))
        body = element(6, struct.pack("<II", cls, 0)) + element(5, struct.pack("<%di" % len(dims), *dims))
        body += element(1, name.encode()) + element(kind, data)
        matrix = struct.pack("<II", 14, len(body)) + body
        out += struct.pack("<II", 15, len(zlib.compress(matrix))) + zlib.compress(matrix) if compress else matrix
    return out


def mat_gtcls(compress):
    """An SBD cls/ID.mat: struct GTcls {Segmentation: uint8 2 x 3, Boundaries: 2 x 1 cell of logical sparse 2 x 3}."""
    def element(kind, payload):
        return struct.pack("<II", kind, len(payload)) + payload + b"\0" * ((8 - len(payload) % 8) % 8)

    def matrix(cls, dims, name, parts, flag_bits=0, nzmax=0):
        body = element(6, struct.pack("<II", cls | (flag_bits << 8), nzmax))
        body += element(5, struct.pack("<%di" % len(dims), *dims)) + element(1, name) + b"".join(parts)
        return struct.pack("<II", 14, len(body)) + body
    sparse = matrix(5, (2, 3), b"", [element(5, struct.pack("<2i", 0, 1)), element(5, struct.pack("<4i", 0, 1, 1, 2)),
                                     element(2, bytes([1, 1]))], flag_bits=0x02, nzmax=2)
    seg = matrix(9, (2, 3), b"", [element(2, bytes([0, 1, 2, 3, 4, 20]))])
    cell = matrix(1, (2, 1), b"", [sparse, sparse])
    names = b"".join(n.ljust(32, b"\0") for n in (b"Segmentation", b"Boundaries"))
    gtcls = matrix(2, (1, 1), b"GTcls", [struct.pack("<HHi", 5, 4, 32), element(1, names), seg, cell])
    if compress:
        gtcls = struct.pack("<II", 15, len(zlib.compress(gtcls))) + zlib.compress(gtcls)
    return b"MATLAB 5.0 MAT-file, mindrecord fuzz seed".ljust(116, b" ") + b"\0" * 8 + struct.pack("<H", 0x0100) + \
        b"IM" + gtcls


QMNIST_IMAGES = struct.pack(">IIII", 2051, 1, 28, 28) + bytes(range(256)) * 3 + bytes(16)
QMNIST_LABELS = struct.pack(">III", 3074, 1, 8) + struct.pack(">8I", 7, 1, 2, 3, 4, 5, 6, 8)
USPS_LINE = b"3 " + b" ".join(b"%d:%.4f" % (i + 1, (i % 7) / 3.5 - 1) for i in range(256)) + b" \n"
SEMEION_LINE = b" ".join([b"1.0000", b"0.0000"] * 128) + b" 0 0 1 0 0 0 0 0 0 0\n"
CATALOG = {
    "lfw_people": (0, 0, b"A 1\nB 2\n", b"2\nA 1\nB 2\n"),
    "lfw_pairs_10fold": (0, 1 | 2, b"A 1\n", b"1 1\nA 1 1\nA 1 B 1\n"),
    "flickr": (1, 4, b"a.jpg#0\tA dog.\r\na.jpg#1\tTwo.\n", b""),
    "kitti": (2, 0, b"Car 0.00 0 -1.5 1 2 3 4 1.5 1.6 3.9 1 2 3 -1.6\nDontCare -1 -1 -10 1 2 3 4 -1 -1 -1 -1 -1 -1 -10\n",
              b""),
    "widerface": (3, 0, b"0--P/a.jpg\n2\n1 2 3 4 0 0 0 0 0 0 \n5 6 7 8 1 1 1 1 1 1 \n0--P/b.jpg\n0\n0 0 0 0 0 0 0 0 0 0 \n",
                  b""),
    "manifest": (4, 0, b'{"source": "a.jpg", "usage": "train", "annotation": [{"name": "cat"}, {"name": "dog"}]}\n', b""),
    "sbu": (5, 0, b"http://static.flickr.com/1/a.jpg\nhttp://static.flickr.com/2/b.jpg\n", b" A cap \nB\n"),
    "multi30k": (6, 0, b"A man.\n\nTwo dogs.\n", b"Ein Mann.\n\nZwei Hunde.\n"),
    "qmnist": (7, 1, QMNIST_IMAGES, QMNIST_LABELS),
    "stl10": (8, 0, bytes(range(256)) * 108, b"\x03"),
    "usps": (9, 0, USPS_LINE + USPS_LINE, b""),
    "semeion": (10, 0, SEMEION_LINE, b""),
    "squad": (11, 0, json.dumps({"data": [{"title": "t", "paragraphs": [{"context": "Ab cd.", "qas": [
        {"id": "1", "question": "Q?", "answers": [{"text": "cd", "answer_start": 3}]},
        {"id": "2", "question": "R?", "answers": [], "plausible_answers": [{"text": "Ab", "answer_start": 0}],
         "is_impossible": True}]}]}]}).encode(),
              json.dumps({"version": "1.1", "data": [{"paragraphs": [{"qas": [{"question": "S?", "answers": [
                  {"text": "x", "answer_start": 0}, {"text": "y", "answer_start": 1}]}], "context": "xy"}]}]}).encode()),
    "iwslt_tags": (12, 0, b"<url>u</url>\n<talkid>1</talkid>\n Hallo Welt. \nIch.\n",
                   b"<url>u</url>\n<talkid>1</talkid>\nHello world.\nI.\n"),
    "iwslt_xml": (12, 1, b'<?xml version="1.0"?><mteval><srcset><doc docid="1"><seg id="1"> Ja &amp; nein. </seg>'
                         b'<seg id="2">Gut.</seg></doc></srcset></mteval>',
                  b'<mteval><refset><doc docid="1"><seg id="1">Yes &amp; no.</seg><seg id="2">Good.</seg></doc>'
                  b'</refset></mteval>'),
    "flowers102": (13, 0, mat_v5({"labels": ((1, 3), (5.0, 1.0, 102.0))}),
                   mat_v5({"trnid": ((1, 2), (2.0, 1.0)), "valid": ((1, 1), (3.0,)), "tstid": ((1, 1), (1.0,))})),
    "caltech101": (14, 0, mat_v5({"box_coord": ((1, 4), (1.0, 2.0, 3.0, 4.0)),
                                  "obj_contour": ((2, 3), (1.0, 2.0, 3.0, 4.0, 5.0, 6.0))}), b""),
    "svhn": (15, 0, mat_v5({"X": ((32, 32, 3, 2), bytes(range(256)) * 24), "y": ((2, 1), (10.0, 3.0))}, True), b""),
    "svhn_plain": (15, 0, mat_v5({"X": ((32, 32, 3, 1), bytes(range(256)) * 12), "y": ((1, 1), (7.0,))}), b""),
    "sb_boundaries": (16, 0, mat_gtcls(False), b""),
    "sb_segmentation": (16, 1, mat_gtcls(True), b""),
    "photo_tour_train": (17, 0, b"0 0\n1 0\n2 1\n300 1\n", b"0 0 0 1 0 0 0\n2 1 0 3 1 0 0\n"),
    "photo_tour_test": (17, 1, b"0 0\n1 0\n2 1\n3 1\n", b"0 0 0 1 0 0 0\n2 1 0 3 1 0 0\n"),
}
for name, (layout, pick, first, second) in CATALOG.items():
    put("catalog", name, bytes([layout, pick]) + first + SEP + second)
