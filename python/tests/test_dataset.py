import os
import numpy as np
import pytest

import mindrecord
from mindrecord import vision
from conftest import block_placement_order, write_simple, numpy_dicts


@pytest.fixture(scope="module")
def simple(tmp_path_factory):
    d = tmp_path_factory.mktemp("ds")
    return write_simple(str(d / "s.mindrecord"), 103, shard_num=3)


def ids_of(ds, num_epochs=1, **kw):
    out = []
    it = ds.create_dict_iterator(num_epochs=num_epochs, output_numpy=True, **kw)
    for _ in range(num_epochs):  # one loop per epoch, as in MindSpore
        for b in it:
            out.extend(np.atleast_1d(b["id"]).tolist())
    return out


def test_sequential_rows_and_types(simple):
    ds = mindrecord.MindDataset(simple + "0", shuffle=False)
    rows = list(numpy_dicts(ds))
    assert len(rows) == 103 == ds.get_dataset_size() == len(ds)
    # One write_raw_data call is cut into one block per shard (as MindSpore
    # writes), so shard order is the written order.
    want = block_placement_order([103], 3)
    assert want == list(range(103))
    assert [int(r["id"]) for r in rows] == want
    assert rows[5]["vec"].dtype == np.float32 and rows[5]["vec"].shape == (3,)
    assert sorted(rows[0]) == ["id", "label", "vec"]


def test_batches_are_zero_copy_numpy(simple):
    ds = mindrecord.MindDataset(simple + "0", columns_list=["vec", "label"], shuffle=False).batch(10)
    batches = list(numpy_dicts(ds))
    assert len(batches) == len(ds) == 11
    b = batches[0]
    assert list(b) == ["vec", "label"]
    assert b["vec"].shape == (10, 3) and b["label"].dtype == np.int32
    assert not b["vec"].flags.owndata and b["vec"].base is not None  # backed by the C++ batch buffer
    b["vec"][0, 0] = 42.0  # the consumer owns the buffer
    assert b["vec"][0, 0] == 42.0
    assert batches[-1]["vec"].shape == (3, 3)
    dropped = mindrecord.MindDataset(simple + "0", shuffle=False).batch(10, drop_remainder=True)
    assert len(dropped) == 10 and all(x["id"].shape == (10,) for x in numpy_dicts(dropped))


def test_shuffle_same_seed_same_order_any_workers(simple):
    orders = [ids_of(mindrecord.MindDataset(simple + "0", num_parallel_workers=w, seed=7).batch(8))
              for w in (1, 3, 8)]
    assert orders[0] == orders[1] == orders[2]
    assert sorted(orders[0]) == list(range(103))
    assert orders[0] != sorted(orders[0])
    other = ids_of(mindrecord.MindDataset(simple + "0", seed=8).batch(8))
    assert other != orders[0] and sorted(other) == list(range(103))


def test_epochs_reshuffle_and_continue(simple):
    ds = mindrecord.MindDataset(simple + "0", seed=3).batch(16)
    e0 = ids_of(ds)
    e1 = ids_of(ds)
    assert sorted(e0) == sorted(e1) == list(range(103)) and e0 != e1
    two = ids_of(mindrecord.MindDataset(simple + "0", seed=3).batch(16), num_epochs=2)
    assert two == e0 + e1


def test_exact_resume_across_worker_counts(simple):
    full = ids_of(mindrecord.MindDataset(simple + "0", seed=11, num_parallel_workers=2).batch(5), num_epochs=2)
    ds = mindrecord.MindDataset(simple + "0", seed=11, num_parallel_workers=2).batch(5)
    it = ds.create_dict_iterator(num_epochs=2)
    head = []
    for _ in range(21):  # the first epoch's 21 batches
        head.extend(next(it)["id"].tolist())
    with pytest.raises(StopIteration):  # its end; the next call starts the second epoch
        next(it)
    for _ in range(9):
        head.extend(next(it)["id"].tolist())
    state = ds.state_dict()  # read from the running pipeline
    assert state["epoch"] == 1 and state["position"] == 45
    del it  # abandoned: state_dict() keeps the exact place ...
    assert ds.state_dict() == state
    # ... and a new iterator starts that epoch afresh, as MindSpore's does
    assert ids_of(ds, num_epochs=1) == full[103:]
    ds2 = mindrecord.MindDataset(simple + "0", seed=999, num_parallel_workers=5).batch(5)
    ds2.load_state_dict(state)  # takes the seed from the state
    rest = ids_of(ds2)
    assert head + rest == full


@pytest.mark.parametrize("batch", [None, 5])
def test_new_iterator_starts_the_unfinished_epoch_afresh(simple, batch):
    # MindSpore builds a fresh pipeline per create_*_iterator: a peek with
    # next() and then a loop gives the loop the whole epoch.
    def make():
        ds = mindrecord.MindDataset(simple + "0", seed=11, num_parallel_workers=2)
        return ds.batch(batch) if batch else ds
    full = ids_of(make(), num_epochs=3)
    ds = make()
    peek = next(ds.create_dict_iterator(output_numpy=True))
    assert np.atleast_1d(peek["id"]).tolist() == full[:len(np.atleast_1d(peek["id"]))]
    assert ids_of(ds) == full[:103]
    # A finished epoch: the next iterator goes on with the next one (a new shuffle).
    assert ids_of(ds) == full[103:206]
    # A loop left by break: state_dict() keeps where it stopped, the next
    # iterator starts the epoch again.
    taken = []
    for b in ds.create_dict_iterator(output_numpy=True):
        taken.extend(np.atleast_1d(b["id"]).tolist())
        if len(taken) >= 20:
            break
    assert taken == full[206:206 + len(taken)]
    assert ds.state_dict()["epoch"] == 2 and ds.state_dict()["position"] == len(taken)
    assert ids_of(ds) == full[206:]
    # load_state_dict() resumes exactly, and an iterator left unfinished after
    # it starts again where the loaded state started.
    ds = make()
    ds.load_state_dict(dict(ds.state_dict(), epoch=1, position=20))
    it = ds.create_dict_iterator(output_numpy=True)
    next(it)
    del it
    assert ids_of(ds) == full[123:206]


def test_resume_state_from_other_dataset_refused(simple):
    a = mindrecord.MindDataset(simple + "0", seed=1).batch(5)
    b = mindrecord.MindDataset(simple + "0", seed=1).batch(6)
    with pytest.raises(ValueError):
        b.load_state_dict(a.state_dict())


@pytest.mark.parametrize("mode", [True, False, mindrecord.Shuffle.FILES, mindrecord.Shuffle.INFILE])
def test_distributed_no_duplicates_no_gaps(simple, mode):
    parts = [ids_of(mindrecord.MindDataset(simple + "0", num_shards=4, shard_id=i, shuffle=mode, seed=5).batch(7))
             for i in range(4)]
    flat = [x for p in parts for x in p]
    # As MindSpore: every rank gets ceil(103 / 4) = 26 rows, the last made
    # up by repeating the first row of the order (issue 17).
    assert sorted(set(flat)) == list(range(103))
    assert [len(p) for p in parts] == [26, 26, 26, 26] and len(flat) - len(set(flat)) == 1


def test_samplers(simple):
    ds = mindrecord.MindDataset(simple + "0", sampler=mindrecord.SubsetSampler([5, 1, 9]))
    assert ids_of(ds) == [5, 1, 9]  # global row ids 5, 1, 9 (shard 0 holds rows 0..34)
    ds = mindrecord.MindDataset(simple + "0", sampler=mindrecord.SequentialSampler(num_samples=4))
    assert len(ds) == 4
    pk = mindrecord.MindDataset(simple + "0", columns_list=["label"], sampler=mindrecord.PKSampler(2))
    labels = [int(r["label"]) for r in numpy_dicts(pk)]
    assert labels == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    ds = mindrecord.MindDataset(simple + "0", shuffle=True, num_samples=10, seed=1)
    assert len(ds) == 10 and len(set(ids_of(ds))) == 10


def test_bad_arguments(simple, tmp_path):
    with pytest.raises(FileNotFoundError):
        mindrecord.MindDataset(str(tmp_path / "none.mindrecord"))
    with pytest.raises(ValueError):
        mindrecord.MindDataset(simple + "0", num_shards=2)
    with pytest.raises(ValueError):
        mindrecord.MindDataset(simple + "0", num_shards=2, shard_id=2)
    with pytest.raises(ValueError):
        mindrecord.MindDataset(simple + "0", sampler=mindrecord.RandomSampler(), shuffle=True)
    with pytest.raises(ValueError):
        mindrecord.MindDataset(simple + "0", sampler=mindrecord.RandomSampler(), num_samples=3)
    with pytest.raises(ValueError):
        mindrecord.MindDataset(simple + "0", padded_sample={"id": 0}, num_padded=1)
    with pytest.raises(ValueError):
        mindrecord.MindDataset(simple + "0", columns_list=["nope"])
    ds = mindrecord.MindDataset(simple + "0")
    with pytest.raises(ValueError):
        ds.batch(0)
    with pytest.raises(TypeError):
        ds.map("Decode", input_columns="vec")
    with pytest.raises(ValueError):
        ds.map(vision.Resize(4), input_columns=["vec", "id"])


def _png(w, h, seed):
    import struct
    import zlib
    rng = np.random.RandomState(seed)
    px = rng.randint(0, 256, size=(h, w, 3), dtype=np.uint8)
    raw = b"".join(b"\x00" + px[r].tobytes() for r in range(h))

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")), px


def test_map_image_ops(tmp_path):
    path = str(tmp_path / "img.mindrecord")
    w = mindrecord.FileWriter(path)
    w.add_schema({"image": {"type": "bytes"}, "label": {"type": "int32"}})
    pixels = []
    rows = []
    for i in range(12):
        data, px = _png(20 + i, 16, i)
        pixels.append(px)
        rows.append({"image": data, "label": i})
    w.write_raw_data(rows)
    w.commit()
    ds = mindrecord.MindDataset(path, shuffle=False).map(vision.Decode(), input_columns="image")
    for r, px in zip(numpy_dicts(ds), pixels):
        np.testing.assert_array_equal(r["image"], px)  # PNG is lossless
    ds = (mindrecord.MindDataset(path, shuffle=True, seed=2)
          .map([vision.Decode(), vision.RandomResizedCrop(8), vision.RandomHorizontalFlip(),
                vision.Normalize([127.5] * 3, [127.5] * 3), vision.HWC2CHW()], input_columns="image")
          .batch(5))
    first = list(numpy_dicts(ds))
    assert [b["image"].shape for b in first] == [(5, 3, 8, 8), (5, 3, 8, 8), (2, 3, 8, 8)]
    assert first[0]["image"].dtype == np.float32
    assert np.abs(first[0]["image"]).max() <= 1.0 + 1e-6
    again = list(numpy_dicts(mindrecord.MindDataset(path, shuffle=True, seed=2, num_parallel_workers=1)
                             .map([vision.Decode(), vision.RandomResizedCrop(8), vision.RandomHorizontalFlip(),
                                   vision.Normalize([127.5] * 3, [127.5] * 3), vision.HWC2CHW()],
                                  input_columns="image")
                             .batch(5)))
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a["image"], b["image"])  # random ops seeded per row


def test_decode_error_is_value_error_naming_row(tmp_path):
    path = str(tmp_path / "bad.mindrecord")
    w = mindrecord.FileWriter(path)
    w.add_schema({"image": {"type": "bytes"}})
    w.write_raw_data([{"image": b"not an image"}])
    w.commit()
    ds = mindrecord.MindDataset(path).map(vision.Decode(), input_columns="image")
    with pytest.raises(Exception) as e:
        list(ds)
    assert isinstance(e.value, (ValueError, OSError))
    assert "row" in str(e.value)


def _direct_supported(path):
    try:
        mindrecord._core.Reader(path, [], "direct")
        return True
    except mindrecord.UnsupportedError:  # the file system refuses O_DIRECT
        return False


def test_io_mode_keyword(simple):
    want = ids_of(mindrecord.MindDataset(simple + "0", seed=4).batch(8))
    direct = _direct_supported(simple + "0")
    # auto (the default) on a small dataset maps it; every mode reads the same rows.
    for mode, reported in (("auto", "mmap"), ("mmap", "mmap"), ("pread", "pread"), ("direct", "direct")):
        if mode == "direct" and not direct:
            continue
        ds = mindrecord.MindDataset(simple + "0", seed=4, io_mode=mode).batch(8)
        assert '"io_mode":"%s"' % mode in ds.plan()
        it = ds.create_dict_iterator()
        got = []
        for b in it:
            got.extend(b["id"].tolist())
            stats = it.stats()
        assert got == want
        assert stats["io_mode"] == reported and stats["shard_io_modes"] == [reported] * 3
    # The default is auto, and the resume state does not depend on the mode.
    assert '"io_mode":"auto"' in mindrecord.MindDataset(simple + "0").plan()
    a = mindrecord.MindDataset(simple + "0", seed=4, io_mode="pread").batch(8)
    b = mindrecord.MindDataset(simple + "0", seed=4, io_mode="mmap").batch(8)
    assert a.state_dict()["fingerprint"] == b.state_dict()["fingerprint"]
    for bad in ("aio", "", None, 3, "PREAD"):
        with pytest.raises(ValueError, match="io_mode"):
            mindrecord.MindDataset(simple + "0", io_mode=bad)


def test_auto_direct_threshold_and_fallback_keywords(simple):
    def run(**kw):
        it = mindrecord.MindDataset(simple + "0", seed=4, **kw).batch(8).create_dict_iterator()
        ids, modes = [], None
        for b in it:
            ids.extend(b["id"].tolist())
            modes = it.stats()["shard_io_modes"]  # (None once the iterator is done)
        return ids, modes
    want, modes = run(auto_direct_above=1 << 40)
    assert modes == ["mmap"] * 3  # fits: cached reads
    # Above a 1-byte threshold "auto" reads directly (pread where O_DIRECT is refused).
    got, modes = run(auto_direct_above=1)
    assert got == want
    assert modes == (["direct"] * 3 if _direct_supported(simple + "0") else ["pread"] * 3)
    got, modes = run(io_mode="direct", direct_fallback=True)
    assert got == want and set(modes) <= {"direct", "pread"}
    plan = mindrecord.MindDataset(simple + "0", io_mode="direct", direct_fallback=True, auto_direct_above=5).plan()
    assert '"direct_fallback":true' in plan and '"auto_direct_above":5' in plan
    for kw in ({"direct_fallback": 1}, {"direct_fallback": None}, {"auto_direct_above": -1},
               {"auto_direct_above": 1.5}, {"auto_direct_above": True}):
        with pytest.raises(ValueError, match=list(kw)[0]):
            mindrecord.MindDataset(simple + "0", **kw)


def test_reader_reports_its_io_modes(simple):
    assert mindrecord._core.Reader(simple + "0").shard_io_modes == ["pread"] * 3  # auto: fits in memory
    assert mindrecord._core.Reader(simple + "0", [], "mmap").shard_io_modes == ["mmap"] * 3
    with pytest.raises(ValueError, match="io_mode"):
        mindrecord._core.Reader(simple + "0", [], "aio")


def test_unbatched_rows_match_the_pipeline_and_resume_mid_chunk(simple, tmp_path):
    # Unbatched rows without map ops come from the chunked C++ row stream;
    # the same order, values and types as a batch of one from the pipeline.
    ds = mindrecord.MindDataset(simple + "0", shuffle=True, seed=9)
    rows = list(numpy_dicts(ds))
    assert ds._live is None or ds._live._rows
    ref = []
    for b in numpy_dicts(mindrecord.MindDataset(simple + "0", shuffle=True, seed=9).batch(1)):
        ref.append({k: v[0, ...] for k, v in b.items()})  # MindSpore's 0-d arrays for scalars
    assert [int(r["id"]) for r in rows] == [int(r["id"]) for r in ref]
    for got, want in zip(rows, ref):
        assert list(got) == list(want)
        for k in got:
            assert type(got[k]) is type(want[k]), k
            assert np.array_equal(got[k], want[k])
    # A temporary dataset iterated to its end (the loop holds only the C++ iterator).
    assert sum(1 for _ in mindrecord.MindDataset(simple + "0", shuffle=True, seed=9)) == 103
    # state_dict() mid-chunk is exact, and either path resumes it.
    ds = mindrecord.MindDataset(simple + "0", shuffle=True, seed=9)
    it = ds.create_dict_iterator(num_epochs=2)
    head = [int(next(it)["id"]) for _ in range(40)]
    state = ds.state_dict()
    assert state["epoch"] == 0 and state["position"] == 40
    ds2 = mindrecord.MindDataset(simple + "0", shuffle=True, seed=1)
    ds2.load_state_dict(state)
    rest = [int(r["id"]) for r in numpy_dicts(ds2)]
    assert head + rest == [int(r["id"]) for r in rows]
    # A large row set: chunks are capped in bytes as well as rows.
    path = str(tmp_path / "big.mindrecord")
    w = mindrecord.FileWriter(path, 1)
    w.add_schema({"id": {"type": "int64"}, "data": {"type": "bytes"}}, "big rows")
    w.write_raw_data([{"id": i, "data": bytes([i]) * (64 << 10)} for i in range(20)])
    w.commit()
    # The stream holds two chunks (the one handed out, the next one read
    # meanwhile), each at most half the read-ahead: 3 rows of 64 KiB fit
    # 200 KiB, not 4. Their copies are pooled tensor buffers.
    live = mindrecord._core.tensor_pool_stats()["live_bytes"]
    mindrecord._core.set_tensor_pool_capacity(None)  # restarts the peak count
    stream = mindrecord._core.RowStream(mindrecord.MindDataset(path, shuffle=False).plan(), None, 400 << 10)
    first = stream.next_chunk()
    assert [int(r["id"]) for r in first] == [0, 1, 2]
    assert first[0]["data"].tobytes() == bytes([0]) * (64 << 10)  # bytes as uint8 arrays (MindSpore's)
    rest = [int(r["id"]) for r in first]
    del first
    while True:
        chunk = stream.next_chunk()
        if chunk is None:
            break
        assert 1 <= len(chunk) <= 3
        rest.extend(int(r["id"]) for r in chunk)
        del chunk
    assert rest == list(range(20))
    peak = mindrecord._core.tensor_pool_stats()["peak_live_bytes"]
    # (A pooled buffer is rounded up to its size class: at most a quarter more.)
    assert peak - live <= (400 << 10) * 5 // 4, (peak, live)


def test_row_stream_chunks_start_small_and_grow(tmp_path):
    # The first chunk is read while the caller waits: 256 rows, so the first
    # row comes quickly; each next one doubles, up to 4,096 rows (fewer
    # handoffs between the reader thread and the caller), in order, no gaps.
    path = str(tmp_path / "many.mindrecord")
    w = mindrecord.FileWriter(path, 1)
    w.add_schema({"id": {"type": "int64"}}, "many small rows")
    w.write_raw_data([{"id": i} for i in range(20000)])
    w.commit()
    stream = mindrecord._core.RowStream(mindrecord.MindDataset(path, shuffle=False).plan(), None, 16 << 20)
    sizes, ids = [], []
    for chunk in iter(stream.next_chunk, None):
        sizes.append(len(chunk))
        ids.extend(int(r["id"]) for r in chunk)
    assert sizes == [256, 512, 1024, 2048, 4096, 4096, 4096, 3872], sizes
    assert ids == list(range(20000))


@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("num_epochs", [-1, 3])
def test_mindspore_epoch_loop(simple, batched, num_epochs):
    # MindSpore's loop: one iterator, one `for` per epoch (it yielded [all, 0, 0]).
    ds = mindrecord.MindDataset(simple + "0", seed=5)
    if batched:
        ds = ds.batch(10)
    it = ds.create_dict_iterator(num_epochs=num_epochs, output_numpy=True)
    epochs = []
    for _ in range(3):
        epochs.append([int(i) for b in it for i in np.atleast_1d(b["id"])])
    assert [sorted(e) for e in epochs] == [list(range(103))] * 3
    assert epochs[0] != epochs[1] != epochs[2]  # reshuffled each epoch
    # The same sequence as three epochs read one after the other.
    assert sum(epochs, []) == ids_of(mindrecord.MindDataset(simple + "0", seed=5).batch(10 if batched else 1),
                                     num_epochs=3)
    if num_epochs == 3:
        assert list(it) == []  # all epochs handed out


def test_epoch_end_state_and_next(simple):
    ds = mindrecord.MindDataset(simple + "0", seed=6).batch(50)  # 3 batches an epoch
    it = ds.create_dict_iterator(output_numpy=True)
    first = [next(it)["id"].tolist() for _ in range(3)]
    with pytest.raises(StopIteration):
        next(it)  # the epoch's end (the next epoch's first batch is read ahead)
    state = ds.state_dict()
    assert (state["epoch"], state["position"], state["rows"]) == (1, 0, 103)
    second = [b["id"].tolist() for b in it]
    assert len(second) == 3 and sorted(sum(second, [])) == list(range(103)) and second != first
    again = mindrecord.MindDataset(simple + "0", seed=0).batch(50)
    again.load_state_dict(state)
    assert [b["id"].tolist() for b in again.create_dict_iterator(num_epochs=1, output_numpy=True)] == second


def test_iterator_keywords(simple):
    ds = mindrecord.MindDataset(simple + "0", shuffle=False)
    # output_numpy=False (MindSpore's default): Tensors with asnumpy().
    row = next(ds.create_dict_iterator(do_copy=False))
    assert isinstance(row["vec"], mindrecord.Tensor) and type(row["vec"].asnumpy()) is np.ndarray
    assert row["vec"].asnumpy().tolist() == [0.0, 0.0, 0.0] and int(row["id"].asnumpy()) == 0
    row = next(ds.create_dict_iterator(output_numpy=True))
    assert type(row["vec"]) is np.ndarray
    # create_tuple_iterator(columns=...) in the order asked.
    # (A new iterator continues where the last one stopped: a fresh dataset each.)
    ds = mindrecord.MindDataset(simple + "0", shuffle=False)
    want = next(ds.create_dict_iterator(output_numpy=True))
    ds = mindrecord.MindDataset(simple + "0", shuffle=False)
    tup = next(ds.create_tuple_iterator(columns=["label", "id"], output_numpy=True))
    assert [int(v) for v in tup] == [int(want["label"]), int(want["id"])]
    ds = mindrecord.MindDataset(simple + "0", shuffle=False).batch(4)
    want = next(ds.create_dict_iterator(output_numpy=True))
    ds = mindrecord.MindDataset(simple + "0", shuffle=False).batch(4)
    batch = next(ds.create_tuple_iterator(columns="id", output_numpy=True))
    assert [b.tolist() for b in batch] == [want["id"].tolist()]
    with pytest.raises(ValueError, match="nope"):
        ds.create_tuple_iterator(columns=["nope"])
    with pytest.raises(ValueError, match="num_epochs"):
        ds.create_dict_iterator(num_epochs=0)
    with pytest.raises(TypeError, match="output_numpy"):
        ds.create_dict_iterator(output_numpy="yes")


def test_mindspore_keywords_are_taken_or_refused_by_name(simple):
    ds = mindrecord.MindDataset(simple + "0", shuffle=False)
    with pytest.raises(TypeError, match="drop_remainer"):
        ds.batch(8, drop_remainer=True)
    with pytest.raises(TypeError, match="python_multiprocessing=True.*<lambda>'.*pickle"):
        ds.map([lambda x: x], input_columns="id", python_multiprocessing=True)  # (implemented: spawned workers)
    with pytest.raises(TypeError, match="DatasetCache"):
        ds.map([lambda x: x], input_columns="id", cache=object())
    with pytest.raises(NotImplementedError, match="offload"):  # (per_batch_map is implemented now)
        ds.map([lambda x: x], input_columns="id", offload=True)
    # Their defaults mean what mindrecord does.
    b = ds.map([lambda x: x + 1], input_columns="id", python_multiprocessing=False, cache=None,
               max_rowsize=16).batch(8, drop_remainder=True, python_multiprocessing=False, per_batch_map=None)
    want = next(ds.batch(8).create_dict_iterator(output_numpy=True))["id"]
    ds = mindrecord.MindDataset(simple + "0", shuffle=False)
    b = ds.map([lambda x: x + 1], input_columns="id", python_multiprocessing=False, cache=None,
               max_rowsize=16).batch(8, drop_remainder=True, python_multiprocessing=False, per_batch_map=None)
    assert next(b.create_dict_iterator(output_numpy=True))["id"].tolist() == (want + 1).tolist()


def _forked_child_status(child_body):
    """Runs child_body() in a forked child that then exits 0 through os._exit
    (as a DataLoader worker does); the child's wait status, or None when it
    did not end within 30 s (then it is killed)."""
    import signal
    import time
    pid = os.fork()
    if pid == 0:
        try:
            child_body()
        finally:
            os._exit(0)
    # 600 polls 50 ms apart rather than a deadline on the clock: when the
    # (virtual) machine is paused, the clock jumps past any deadline at once.
    for _ in range(600):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None


@pytest.mark.parametrize("batched", [False, True])
def test_forked_child_collecting_a_live_iterator_leaves_the_parents_pipeline_alone(simple, batched):
    # Rows through a map or batches: both run the threaded pipeline.
    # A DataLoader worker is a forked copy of its parent, live iterators
    # included: collecting one there must not close (join) pipeline threads
    # that exist only in the parent (the child crashed or hung).
    import gc
    ds = mindrecord.MindDataset(simple + "0", shuffle=False, num_parallel_workers=2)
    ds = ds.batch(4) if batched else ds.map(mindrecord.transforms.TypeCast(np.int32), input_columns="id")
    it = ds.create_dict_iterator(output_numpy=True, num_epochs=1)
    first = next(it)

    def child():
        nonlocal it
        it.close()
        it = None
        gc.collect()

    assert _forked_child_status(child) == 0
    # The parent's iterator goes on where it was.
    rest = [first] + list(it)
    assert len(rest) == (26 if batched else 103)


def test_forked_child_and_the_row_streams_reader_thread(simple):
    # Unbatched rows without map ops: a stream whose reader thread reads the
    # next chunk ahead. In a forked child (a DataLoader worker) that thread
    # does not exist: collecting the copy must not join it, reading from the
    # copy refuses (it would wait forever), a new iterator there reads, and
    # the parent's goes on where it was.
    import gc
    ds = mindrecord.MindDataset(simple + "0", shuffle=True, seed=4)
    want = [int(r["id"]) for r in numpy_dicts(mindrecord.MindDataset(simple + "0", shuffle=True, seed=4))]
    it = ds.create_dict_iterator(output_numpy=True, num_epochs=1)
    first = next(it)

    def child():
        try:
            list(it)  # the rows already handed to Python, then the next chunk
            os._exit(2)  # read through a thread that is not there
        except mindrecord.UnsupportedError as e:
            if "read from in another process" not in str(e):
                os._exit(4)
        fresh = [int(r["id"]) for r in mindrecord.MindDataset(simple + "0", shuffle=True, seed=4)]
        if fresh != want:
            os._exit(3)
        gc.collect()

    assert _forked_child_status(child) == 0
    assert [int(first["id"])] + [int(r["id"]) for r in it] == want
