"""MindSpore 2.3+'s encrypted and hashed MindRecord files (issue 17).

The protected files are built here independently of our writer, laid out as
MindSpore's mindrecord/config.py (encrypt, append_hash_to_file) and its C++
Encrypt (AES-GCM, AES-CBC and SM4-CBC, 16-byte IV, magics 0x7F3A5ED8/9/A)
lay them out, with python3-cryptography and hashlib; our readers must read
them in place, and what our FileWriter protects must decrypt with the same
independent code."""
import hashlib
import os
import struct

import pytest

from mindrecord import (FileReader, FileWriter, MindDataset, MindPage, set_dec_mode, set_enc_key, set_enc_mode,
                        set_hash_mode)

from conftest import numpy_dicts

AESGCM = pytest.importorskip("cryptography.hazmat.primitives.ciphers.aead").AESGCM
from cryptography.hazmat.primitives import padding  # noqa: E402 (after the skip)
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

KEY = "0123456789012345"
MAGIC = {"AES-GCM": 0x7F3A5ED8, "AES-CBC": 0x7F3A5ED9, "SM4-CBC": 0x7F3A5EDA}
MIB64 = 64 << 20


def mindspore_hash(path, mode="sha256"):
    """append_hash_to_file: digest | len (4 bytes BE) | "HASH"."""
    data = open(path, "rb").read()
    digest = hashlib.new(mode, data).digest()
    with open(path, "ab") as f:
        f.write(digest + len(digest).to_bytes(4, "big") + b"HASH")


def cbc(mode, key, iv):
    return Cipher((algorithms.SM4 if mode == "SM4-CBC" else algorithms.AES)(key.encode()), modes.CBC(iv))


def mindspore_encrypt(path, key=KEY, block=MIB64, mode="AES-GCM"):
    """config.encrypt over crypto.cc's Encrypt: per block of plaintext
    BE length | LE magic | tag | LE 24+n | LE 16 | IV | LE n | ciphertext
    (AES-GCM), or BE length | LE magic | LE 24+c | LE 16 | IV | LE c |
    ciphertext with its PKCS#7 padding (AES-CBC, SM4-CBC: c bytes, no tag),
    then BE 0 | mode (7 chars) | "ENCRYPT"."""
    data = open(path, "rb").read()
    out = bytearray()
    for begin in range(0, len(data), block):
        chunk = data[begin:begin + block]
        iv = os.urandom(16)
        if mode == "AES-GCM":
            sealed = AESGCM(key.encode()).encrypt(iv, chunk, None)
            cipher, tag = sealed[:-16], sealed[-16:]
        else:
            padder = padding.PKCS7(128).padder()
            enc = cbc(mode, key, iv).encryptor()
            cipher, tag = enc.update(padder.update(chunk) + padder.finalize()) + enc.finalize(), b""
        body = struct.pack("<I", MAGIC[mode]) + tag + struct.pack("<ii", 24 + len(cipher), 16) + iv + \
            struct.pack("<i", len(cipher)) + cipher
        out += struct.pack(">i", len(body)) + body
    out += struct.pack(">i", 0) + mode.encode() + b"ENCRYPT"
    with open(path, "wb") as f:
        f.write(bytes(out))


def mindspore_decrypt(path, key=KEY, mode="AES-GCM"):
    """config.decrypt over crypto.cc's Decrypt, checking the layout."""
    data = open(path, "rb").read()
    assert data.endswith(mode.encode() + b"ENCRYPT") and data[-18:-14] == b"\0\0\0\0"
    tag_len = 16 if mode == "AES-GCM" else 0
    plain, off = bytearray(), 0
    while True:
        (length,) = struct.unpack(">i", data[off:off + 4])
        if length == 0:
            assert off + 4 == len(data) - 14
            return bytes(plain)
        body = data[off + 4:off + 4 + length]
        magic, = struct.unpack("<I", body[:4])
        tag = body[4:4 + tag_len]
        block_size, iv_len = struct.unpack("<ii", body[4 + tag_len:12 + tag_len])
        iv, (n,) = body[12 + tag_len:28 + tag_len], struct.unpack("<i", body[28 + tag_len:32 + tag_len])
        assert magic == MAGIC[mode] and iv_len == 16 and block_size == 24 + n == length - 8 - tag_len
        cipher = body[32 + tag_len:32 + tag_len + n]
        if mode == "AES-GCM":
            assert n <= MIB64
            plain += AESGCM(key.encode()).decrypt(iv, cipher + tag, None)
        else:
            assert n % 16 == 0 and n <= MIB64 + 16
            dec = cbc(mode, key, iv).decryptor()
            unpadder = padding.PKCS7(128).unpadder()
            plain += unpadder.update(dec.update(cipher) + dec.finalize()) + unpadder.finalize()
        off += 4 + length


def dataset_files(first):
    base = first[:-1] if first[-1].isdigit() else first
    shards = [first] if first == base else sorted(p for p in (os.path.join(os.path.dirname(first), f)
                                                               for f in os.listdir(os.path.dirname(first)))
                                                  if p.startswith(base) and not p.endswith(".db"))
    return [p for s in shards for p in (s, s + ".db")]


@pytest.fixture(autouse=True)
def plain_settings():
    yield
    set_enc_key(None)
    set_hash_mode(None)
    set_dec_mode(None)
    set_enc_mode("AES-GCM")


def write_rows(path, n, shard_num=1, blob=100, page_size=None):
    w = FileWriter(path, shard_num)
    w.add_schema({"id": {"type": "int64"}, "label": {"type": "int32"}, "blob": {"type": "bytes"}}, "enc")
    if page_size:
        w.set_page_size(page_size)
    w.write_raw_data([{"id": i, "label": i % 4, "blob": bytes([i % 256]) * blob} for i in range(n)])
    w.commit()
    return path if shard_num == 1 else path + "0"


def rows_of(path):
    return [(r["id"], r["label"], r["blob"]) for r in FileReader(path).get_next()]


@pytest.mark.parametrize("block", [MIB64, 4096])
def test_reads_mindspore_encrypted_and_hashed_files_in_place(tmp_path, block):
    first = write_rows(str(tmp_path / "e"), 300, shard_num=2, page_size=64 << 10)
    want = rows_of(first)
    before = set(os.listdir(tmp_path))
    for f in dataset_files(first):
        mindspore_hash(f)
        mindspore_encrypt(f, block=block)
    set_enc_key(KEY)
    set_hash_mode("sha256")
    assert rows_of(first) == want
    ds = MindDataset(first, shuffle=True, seed=3).batch(7)
    got = sorted(int(i) for b in ds.create_dict_iterator(num_epochs=1, output_numpy=True) for i in b["id"])
    assert got == list(range(300))
    page = MindPage(first)  # the .db indexes are decrypted in memory
    page.category_field = "label"
    assert sorted(int(r["id"]) for r in page.read_at_page_by_name("2", 0, 100)) == list(range(2, 300, 4))
    # MindSpore writes decrypted copies into .decrypt_mindrecord; nothing is written here.
    assert set(os.listdir(tmp_path)) == before


def test_random_access_across_many_blocks(tmp_path):
    path = write_rows(str(tmp_path / "r.mindrecord"), 64, blob=3000)
    want = {i: bytes([i]) * 3000 for i in range(64)}
    for f in dataset_files(path):
        mindspore_encrypt(f, block=1000)  # rows straddle blocks of 1,000 bytes
    set_enc_key(KEY)
    ds = MindDataset(path, shuffle=True, seed=1)
    for row in numpy_dicts(ds):
        assert row["blob"].tobytes() == want[int(row["id"])]


def test_encrypted_file_larger_than_one_block(tmp_path):
    # 66 MiB of rows: two blocks of MindSpore's 64 MiB.
    path = write_rows(str(tmp_path / "big.mindrecord"), 66, blob=1 << 20, page_size=4 << 20)
    size = os.path.getsize(path)
    assert size > MIB64
    ids_blobs = {i: bytes([i]) * (1 << 20) for i in range(66)}
    mindspore_encrypt(path)
    mindspore_encrypt(path + ".db")
    data = open(path, "rb").read()
    (first_len,) = struct.unpack(">i", data[:4])
    assert first_len == 48 + MIB64  # one full block, then the rest
    del data
    set_enc_key(KEY)
    got = [(r["id"], r["blob"] == ids_blobs[r["id"]]) for r in FileReader(path).get_next()]
    assert got == [(i, True) for i in range(66)]


def test_wrong_key_mode_or_settings_are_clear_errors(tmp_path):
    path = write_rows(str(tmp_path / "w.mindrecord"), 20)
    plain = str(tmp_path / "plain.mindrecord")
    write_rows(plain, 5)
    for f in dataset_files(path):
        mindspore_encrypt(f)
    with pytest.raises(RuntimeError, match="The mindrecord file is encrypted. You need to configure") as e:
        FileReader(path)
    assert "w.mindrecord" in str(e.value)
    set_enc_key("6543210987654321")
    with pytest.raises(RuntimeError, match="Failed to decrypt data, please check if enc_key"):
        FileReader(path)
    set_enc_key(KEY)
    with pytest.raises(RuntimeError, match="The mindrecord file is not encrypted"):
        FileReader(plain)
    cbc = str(tmp_path / "cbc.mindrecord")
    write_rows(cbc, 5)
    mindspore_encrypt(cbc, mode="AES-CBC")
    with pytest.raises(RuntimeError, match="encrypted with AES-CBC"):
        FileReader(cbc)
    with pytest.raises(ValueError, match="The length of input enc_key is not 16, 24, 32."):
        set_enc_key("short")
    with pytest.raises(ValueError, match="The input enc_key is not str."):
        set_enc_key(b"0123456789012345")
    with pytest.raises(ValueError, match="The input dec_mode is invalid."):
        set_dec_mode("AES-XYZ")
    with pytest.raises(NotImplementedError, match="user-defined"):
        set_dec_mode(lambda *a: None)


def test_hash_check(tmp_path):
    path = write_rows(str(tmp_path / "h.mindrecord"), 20)
    want = rows_of(path)
    plain = write_rows(str(tmp_path / "p.mindrecord"), 3)
    for f in dataset_files(path):
        mindspore_hash(f, "sha3_512")
    assert rows_of(path) == want  # no hash mode: read as it is
    with pytest.raises(NotImplementedError, match="this one is hashed"):
        FileWriter.open_for_append(path)  # the digest would no longer match
    FileWriter.open_for_append(plain).commit()
    set_hash_mode("sha3_512")
    assert rows_of(path) == want
    set_hash_mode("sha256")
    with pytest.raises(RuntimeError, match="hash check fail"):
        FileReader(path)
    set_hash_mode("sha3_512")
    with pytest.raises(RuntimeError, match="The mindrecord file is not hashed"):
        FileReader(plain)
    data = bytearray(open(path, "rb").read())
    data[-100] ^= 1  # inside the last page
    open(path, "wb").write(bytes(data))
    with pytest.raises(RuntimeError, match="h.mindrecord hash check fail. The file may be damaged"):
        FileReader(path)


def test_writer_protects_files_as_mindspore_does(tmp_path):
    os.makedirs(tmp_path / "plain")
    os.makedirs(tmp_path / "enc")
    plain = write_rows(str(tmp_path / "plain" / "x.mindrecord"), 50)  # the same name: the header holds it
    want = rows_of(plain)
    set_hash_mode("sha384")
    set_enc_key(KEY)
    path = write_rows(str(tmp_path / "enc" / "x.mindrecord"), 50)
    for f, ref in ((path, plain), (path + ".db", plain + ".db")):
        dec = mindspore_decrypt(f)
        # Hash first, then encrypt: the plaintext is the file and its digest.
        body, trailer = dec[:-56], dec[-56:]
        assert trailer[48:52] == (48).to_bytes(4, "big") and trailer[52:] == b"HASH"
        assert hashlib.sha384(body).digest() == trailer[:48]
        if f == path:
            assert body == open(ref, "rb").read()  # the same bytes as a plain write
    assert rows_of(path) == want
    got = [(int(r["id"]), r["blob"].tobytes()) for r in numpy_dicts(MindDataset(path, shuffle=False))]
    assert got == [(i, bytes([i]) * 100) for i in range(50)]
    with pytest.raises(NotImplementedError, match="this one is encrypted"):
        FileWriter.open_for_append(path)


def test_a_commit_that_cannot_protect_leaves_no_plain_dataset(tmp_path):
    # SM4-CBC takes 16-byte keys only: the commit fails. The rows must not
    # appear unencrypted under the dataset's names, nor in temporaries.
    set_enc_key("0123456789abcdef01234567")
    set_enc_mode("SM4-CBC")
    path = str(tmp_path / "x.mindrecord")
    w = FileWriter(path, 1)
    w.add_schema({"id": {"type": "int64"}}, "enc")
    w.write_raw_data([{"id": i} for i in range(10)])
    with pytest.raises(Exception, match="SM4-CBC takes a key of 16 bytes"):
        w.commit()
    assert os.listdir(tmp_path) == []


def test_converters_protect_their_output_as_filewriter_does(tmp_path):
    # MindSpore's converters write through its FileWriter, so set_enc_key and
    # set_hash_mode apply to what they write too.
    from mindrecord import CsvToMR
    csv = tmp_path / "in.csv"
    csv.write_text("id,name\n1,a\n2,b\n")
    set_hash_mode("sha256")
    set_enc_key(KEY)
    out = str(tmp_path / "x.mindrecord")
    CsvToMR(str(csv), out).transform()
    for f in (out, out + ".db"):
        dec = mindspore_decrypt(f)
        assert dec[-4:] == b"HASH" and hashlib.sha256(dec[:-40]).digest() == dec[-40:-8]
    assert [(r["id"], r["name"]) for r in FileReader(out).get_next()] == [(1, "a"), (2, "b")]
    set_enc_key(None)
    set_hash_mode(None)
    with pytest.raises(Exception, match="encrypted"):
        FileReader(out)


def test_dataset_save_protects_its_output_as_filewriter_does(tmp_path):
    # MindSpore's Dataset.save encrypts what it saved when a key is set, and
    # refuses more than one file then. (The settings apply to the reader
    # too: the source is protected as well.)
    set_hash_mode("sha256")
    set_enc_key(KEY)
    src = write_rows(str(tmp_path / "src.mindrecord"), 40)
    out = str(tmp_path / "saved.mindrecord")
    with pytest.raises(RuntimeError, match="automatic sharding function is unavailable"):
        MindDataset(src, shuffle=False).save(out, num_files=2)
    assert not [n for n in os.listdir(tmp_path) if n.startswith("saved")]
    MindDataset(src, shuffle=False).save(out)
    for f in (out, out + ".db"):
        dec = mindspore_decrypt(f)
        assert dec[-4:] == b"HASH" and hashlib.sha256(dec[:-40]).digest() == dec[-40:-8]
    got = [(int(r["id"]), r["blob"].tobytes()) for r in numpy_dicts(MindDataset(out, shuffle=False))]
    assert got == [(i, bytes([i]) * 100) for i in range(40)]
    set_enc_key(None)
    set_hash_mode(None)
    with pytest.raises(Exception, match="encrypted"):
        FileReader(out)


def test_multi_block_write_round_trip(tmp_path):
    set_enc_key("0123456789abcdef0123456789abcdef")  # AES-256
    path = write_rows(str(tmp_path / "w.mindrecord"), 70, blob=1 << 20, page_size=4 << 20)
    data = open(path, "rb").read()
    (first_len,) = struct.unpack(">i", data[:4])
    assert first_len == 48 + MIB64
    del data
    plain = mindspore_decrypt(path, key="0123456789abcdef0123456789abcdef")
    assert len(plain) > MIB64
    header_len = int.from_bytes(plain[:8], "little")
    assert plain[8:8 + header_len].startswith(b'{"header_size"')  # a MindRecord shard inside
    assert [r["id"] for r in FileReader(path).get_next()] == list(range(70))


@pytest.mark.parametrize("mode", ["AES-CBC", "SM4-CBC"])
def test_cbc_modes_read_in_place_and_written_as_mindspore_does(tmp_path, mode):
    # MindSpore-laid-out CBC files (blocks of 4 KiB: many blocks, rows and
    # pages across their edges) read in place; our writer's decrypt with the
    # independent code; a mismatched mode, a wrong key and a damaged block
    # are errors naming the file.
    key = KEY if mode == "SM4-CBC" else "0123456789abcdef01234567"  # SM4: 16 bytes; AES-192
    path = write_rows(str(tmp_path / "c.mindrecord"), 60, blob=700)
    want = rows_of(path)
    for f in dataset_files(path):
        mindspore_encrypt(f, key=key, block=4096, mode=mode)
    set_enc_key(key)
    with pytest.raises(RuntimeError, match="encrypted with %s, the decryption mode is AES-GCM" % mode):
        FileReader(path)
    set_dec_mode(mode)
    assert rows_of(path) == want
    got = [(int(r["id"]), r["blob"].tobytes()) for r in numpy_dicts(MindDataset(path, shuffle=True, num_samples=25))]
    assert len(got) == 25 and all(b == bytes([i % 256]) * 700 for i, b in got)
    set_enc_key(KEY[::-1] if mode == "SM4-CBC" else "76543210fedcba9876543210")
    with pytest.raises(RuntimeError, match="c.mindrecord.*(padding check|Failed to decrypt|header)"):
        FileReader(path)
    set_enc_key(key)
    # Our writer: the same layout (independent decrypt), the same rows.
    os.makedirs(tmp_path / "w")
    set_enc_mode(mode)
    written = write_rows(str(tmp_path / "w" / "c.mindrecord"), 60, blob=700)
    plain = mindspore_decrypt(written, key=key, mode=mode)
    assert plain[8:8 + int.from_bytes(plain[:8], "little")].startswith(b'{"header_size"')
    assert rows_of(written) == want
    # A damaged last cipher block fails its padding check.
    data = bytearray(open(written, "rb").read())
    data[-18 - 17] ^= 0x40  # the block before the last: flips the last plaintext byte, the padding length
    open(written, "wb").write(bytes(data))
    with pytest.raises(RuntimeError, match="c.mindrecord: encrypted block at offset .* fails its padding check"):
        FileReader(written)
    if mode == "SM4-CBC":
        set_enc_key("0123456789abcdef01234567")
        with pytest.raises(RuntimeError, match="SM4-CBC takes a key of 16 bytes"):
            FileReader(path)
