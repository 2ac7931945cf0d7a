"""MindSpore parity (issue 17): MindDataset written the MindSpore way
(`from mindrecord import ...` in place of `mindspore.dataset` /
`mindspore.mindrecord`), each asserting MindSpore's documented result."""
import gc

import numpy as np
import pytest

from mindrecord import (DistributedSampler, FileWriter, MindDataset, RandomSampler, SequentialSampler, Shuffle,
                        SubsetRandomSampler, SubsetSampler)

SCHEMA = {"id": {"type": "int64"}, "label": {"type": "int32"}, "score": {"type": "float32"},
          "name": {"type": "string"}, "data": {"type": "bytes"}, "vec": {"type": "float64", "shape": [2]}}


def write(path, n, shard_num=1):
    w = FileWriter(path, shard_num)
    w.add_schema(SCHEMA, "parity")
    w.write_raw_data([{"id": i, "label": i % 3, "score": i / 4, "name": "n%d" % i, "data": bytes([i]) * (i % 4 + 1),
                       "vec": np.array([i, -i], np.float64)} for i in range(n)])
    w.commit()
    return path if shard_num == 1 else path + "0"


@pytest.fixture(scope="module")
def ten(tmp_path_factory):
    return write(str(tmp_path_factory.mktemp("p") / "ten.mindrecord"), 10)


@pytest.fixture(scope="module")
def four_shards(tmp_path_factory):
    return write(str(tmp_path_factory.mktemp("p4") / "four"), 10, shard_num=4)


def ids(ds):
    return [int(r["id"]) for r in ds.create_dict_iterator(num_epochs=1, output_numpy=True)]


def test_values_have_mindspores_types(ten):
    # Unbatched rows (C++ row stream) and rows through the pipeline (a map op
    # forces it) give the same MindSpore types: 0-d arrays for scalars, uint8
    # arrays for bytes, numpy str arrays for strings.
    plain = next(iter(MindDataset(ten, shuffle=False).create_dict_iterator(output_numpy=True)))
    mapped = next(iter(MindDataset(ten, shuffle=False).map(lambda v: v, input_columns="vec")
                       .create_dict_iterator(output_numpy=True)))
    for row in (plain, mapped):
        assert row["id"].shape == () and row["id"].dtype == np.int64 and int(row["id"]) == 0
        assert row["label"].shape == () and row["label"].dtype == np.int32
        assert row["score"].shape == () and row["score"].dtype == np.float32
        assert row["data"].dtype == np.uint8 and row["data"].tobytes() == b"\x00"
        assert row["name"].shape == () and str(row["name"]) == "n0" and row["name"].dtype.kind == "U"
        assert row["vec"].shape == (2,) and row["vec"].dtype == np.float64
    batch = next(iter(MindDataset(ten, shuffle=False).batch(3).create_dict_iterator(output_numpy=True)))
    assert batch["id"].tolist() == [0, 1, 2]
    assert batch["name"].tolist() == ["n0", "n1", "n2"] and batch["name"].dtype.kind == "U"
    assert [x.tobytes() for x in batch["data"]] == [b"\x00", b"\x01\x01", b"\x02\x02\x02"]
    tensor_row = next(iter(MindDataset(ten, shuffle=False).create_tuple_iterator(columns=["id"])))
    assert tensor_row[0].asnumpy().shape == ()


def test_iterating_a_dataset_gives_lists_of_tensors_in_column_order(ten):
    # MindSpore's Dataset.__iter__ is create_tuple_iterator(num_epochs=1):
    # a list of Tensors per row or batch, so `for a, b in ds` unpacks values.
    ds = MindDataset(ten, columns_list=["id", "name", "data", "vec"], shuffle=False)
    assert ds.get_col_names() == ["id", "name", "data", "vec"]
    want = list(ds.create_dict_iterator(num_epochs=1, output_numpy=True))
    got = []
    for i, name, data, vec in ds:
        got.append((i, name, data, vec))
        assert all(type(v).__name__ == "Tensor" for v in (i, name, data, vec))
        assert i.asnumpy().shape == () and data.asnumpy().dtype == np.uint8
    assert len(got) == len(want) == 10
    for g, w in zip(got, want):
        assert [np.asarray(v).tolist() for v in g] == [w[c].tolist() for c in ds.get_col_names()]
    data = got[3][2]
    data[0] = 7  # a copy the caller owns, as do_copy=True gives
    assert want[3]["data"].tolist() == [3, 3, 3, 3]
    # Rows without ops come from the C++ row stream as lists of Tensors: no
    # Python step per row.
    it = ds.create_tuple_iterator(num_epochs=1)
    assert it._rows and it._shape is None
    assert [[np.asarray(v).tolist() for v in r] for r in it] == [[w[c].tolist() for c in ds.get_col_names()]
                                                                  for w in want]
    # Left out of the cycle collector (they hold no container): thousands per
    # chunk made it run full collections, at half the speed after `import torch`.
    row = next(iter(ds))
    assert type(row) is list and not gc.is_tracked(row) and not any(gc.is_tracked(v) for v in row)
    first = next(iter(ds.create_dict_iterator(num_epochs=1)))
    assert not gc.is_tracked(first) and type(first["id"]).__name__ == "Tensor"
    # do_copy=False: read-only views of the mapped shard, as lists too.
    views = list(ds.create_tuple_iterator(num_epochs=1, output_numpy=True, do_copy=False))
    assert type(views[0][2]) is np.ndarray and not views[0][2].flags.writeable
    tensor_views = list(ds.create_tuple_iterator(num_epochs=1, do_copy=False))
    assert type(tensor_views[3][2]).__name__ == "Tensor" and not tensor_views[3][2].flags.writeable
    assert tensor_views[3][2].asnumpy().tolist() == [3, 3, 3, 3]
    assert [v[2].tolist() for v in views] == [w["data"].tolist() for w in want]
    # Columns picked or reordered: in that order.
    picked = list(ds.create_tuple_iterator(columns=["vec", "id"], num_epochs=1, output_numpy=True))
    assert [(p[0].tolist(), int(p[1])) for p in picked] == [(w["vec"].tolist(), int(w["id"])) for w in want]
    # Batches, and rows through the pipeline (a map), as lists too.
    for ids_, names, _, _ in ds.batch(4):
        assert type(ids_).__name__ == "Tensor" and names.asnumpy().dtype.kind == "U"
        break
    mapped = [int(i) for i, _, _, _ in ds.map(lambda v: v + 1, input_columns="id")]
    assert mapped == list(range(1, 11))


def test_batched_bytes_stack_when_lengths_agree_and_are_writable_arrays(ten):
    # MindSpore batches equal-length bytes into one [rows, length] uint8
    # array; rows of other lengths come out as one uint8 array each, every
    # one writable and holding only its own bytes.
    ds = MindDataset(ten, columns_list=["data", "name"], shuffle=False)
    rows = [b for b in ds.batch(1).create_dict_iterator(output_numpy=True)]
    assert rows[5]["data"].shape == (1, 2) and rows[5]["data"].dtype == np.uint8
    same = MindDataset(ten, sampler=SubsetSampler([1, 5, 9]), columns_list=["data"])  # all 2 bytes long
    batch = next(iter(same.batch(3).create_dict_iterator(output_numpy=True)))
    assert batch["data"].shape == (3, 2) and batch["data"].tolist() == [[1, 1], [5, 5], [9, 9]]
    batch["data"][0, 0] = 7  # writable, as np.stack's result is
    ragged = next(iter(ds.batch(4).create_dict_iterator(output_numpy=True)))["data"]
    assert [a.dtype for a in ragged] == [np.uint8] * 4 and [a.tolist() for a in ragged] == [
        [0], [1, 1], [2, 2, 2], [3, 3, 3, 3]]
    ragged[1][:] = 9
    assert [a.tolist() for a in ragged] == [[0], [9, 9], [2, 2, 2], [3, 3, 3, 3]]
    mapped = next(iter(ds.map(lambda v: v, input_columns="name").batch(4).create_dict_iterator(output_numpy=True)))
    assert [a.tolist() for a in mapped["data"]] == [[0], [1, 1], [2, 2, 2], [3, 3, 3, 3]]
    assert mapped["name"].tolist() == ["n0", "n1", "n2", "n3"]


def test_num_shards_gives_every_rank_ceil_rows_dealt_by_interval(ten, monkeypatch):
    monkeypatch.delenv("MS_DEV_MINDRECORD_SHARD_BY_BLOCK", raising=False)
    parts = [ids(MindDataset(ten, num_shards=4, shard_id=i, shuffle=False)) for i in range(4)]
    assert parts == [[0, 4, 8], [1, 5, 9], [2, 6, 0], [3, 7, 1]]
    assert [MindDataset(ten, num_shards=4, shard_id=i).get_dataset_size() for i in range(4)] == [3, 3, 3, 3]
    monkeypatch.setenv("MS_DEV_MINDRECORD_SHARD_BY_BLOCK", "true")
    parts = [ids(MindDataset(ten, num_shards=4, shard_id=i, shuffle=False)) for i in range(4)]
    assert parts == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 0, 1]]
    # num_samples caps the rows per shard (MindSpore allows it with num_shards).
    assert ids(MindDataset(ten, num_shards=4, shard_id=1, shuffle=False, num_samples=2)) == [3, 4]


def test_shuffle_modes_and_their_rules(ten):
    assert Shuffle.ADAPTIVE == "adaptive" and Shuffle.GLOBAL == "global"
    ds = MindDataset(ten, seed=3)
    assert '"mode":"adaptive"' in ds.plan().replace(" ", "")  # MindSpore 2.6's default
    assert sorted(ids(ds)) == list(range(10))
    assert sorted(ids(MindDataset(ten, shuffle=Shuffle.ADAPTIVE, seed=3))) == list(range(10))
    with pytest.raises(ValueError, match="'Shuffle.FILES' or 'Shuffle.INFILE' and 'num_samples' cannot be specified"):
        MindDataset(ten, shuffle=Shuffle.FILES, num_samples=3)
    with pytest.raises(TypeError):
        MindDataset(ten, shuffle=3)
    with pytest.raises(RuntimeError):
        MindDataset(ten, num_shards=2)  # shard_id missing


def test_samplers_as_mindspore_defines_them(ten):
    assert ids(MindDataset(ten, sampler=SequentialSampler(start_index=2, num_samples=10))) == \
        [2, 3, 4, 5, 6, 7, 8, 9, 0, 1]
    assert ids(MindDataset(ten, sampler=SequentialSampler(start_index=7, num_samples=4))) == [7, 8, 9, 0]
    # Indices outside [0, rows) are taken modulo the rows.
    assert ids(MindDataset(ten, sampler=SubsetSampler([1, -1, 12]))) == [1, 9, 2]
    assert sorted(ids(MindDataset(ten, sampler=SubsetRandomSampler([0, 11, -2])))) == [0, 1, 8]
    with pytest.raises(TypeError, match="Type of indices element must be int"):
        SubsetSampler([1, "2"])
    assert ids(MindDataset(ten, sampler=DistributedSampler(3, 2, shuffle=False))) == [2, 5, 8, 1]


def test_padded_sample_rules(ten):
    pad = {"id": -1, "label": 0, "score": 0.0, "name": "pad", "data": b"", "vec": np.zeros(2), "extra": 1}
    # More keys than the columns read are allowed, and padding needs no sharding.
    ds = MindDataset(ten, columns_list=["id", "name"], shuffle=False, padded_sample=pad, num_padded=2)
    assert ids(ds) == list(range(10)) + [-1, -1]
    both = [ids(MindDataset(ten, columns_list=["id"], num_shards=4, shard_id=s, shuffle=False,
                            padded_sample={"id": -1}, num_padded=2)) for s in range(4)]
    assert [len(p) for p in both] == [3, 3, 3, 3] and sorted(x for p in both for x in p) == [-1, -1] + list(range(10))
    with pytest.raises(ValueError, match="padded_sample cannot match columns_list"):
        MindDataset(ten, columns_list=["id", "name"], padded_sample={"id": -1}, num_padded=1)


def test_file_list_reads_exactly_the_files_listed(four_shards):
    base = four_shards[:-1]
    assert ids(MindDataset([base + "2"], shuffle=False)) == [6, 7]
    assert ids(MindDataset([base + "3", base + "0"], shuffle=False)) == [8, 9, 0, 1, 2]
    assert ids(MindDataset(base + "2", shuffle=False)) == list(range(10))  # a str: every sibling


def test_repeat_before_and_after_batch(ten):
    ds = MindDataset(ten, shuffle=False).repeat(2)
    assert ds.get_dataset_size() == 20 and ds.get_repeat_count() == 2
    assert ids(ds) == list(range(10)) * 2
    # Before batch the passes run back to back: 20 rows in batches of 3 = 7.
    before = MindDataset(ten, shuffle=False).repeat(2).batch(3)
    sizes = [len(b["id"]) for b in before.create_dict_iterator(num_epochs=1, output_numpy=True)]
    assert sizes == [3, 3, 3, 3, 3, 3, 2] and before.get_dataset_size() == 7
    # After batch each pass is batched alone: 2 x (3, 3, 3, 1).
    after = MindDataset(ten, shuffle=False).batch(3).repeat(2)
    sizes = [len(b["id"]) for b in after.create_dict_iterator(num_epochs=1, output_numpy=True)]
    assert sizes == [3, 3, 3, 1] * 2 and after.get_dataset_size() == 8
    # Each pass is shuffled anew.
    passes = ids(MindDataset(ten, seed=4).repeat(2))
    assert sorted(passes[:10]) == sorted(passes[10:]) == list(range(10)) and passes[:10] != passes[10:]
    endless = MindDataset(ten, shuffle=False).repeat()
    it = endless.create_dict_iterator(num_epochs=1, output_numpy=True)
    got = [int(next(it)["id"]) for _ in range(25)]
    assert got == (list(range(10)) * 3)[:25] and endless.get_repeat_count() == -1


def test_shuffle_buffer(ten):
    ds = MindDataset(ten, shuffle=False, seed=5).shuffle(buffer_size=4)
    order = ids(ds)
    assert sorted(order) == list(range(10)) and order != list(range(10))
    # A buffer of 4: the first row out is one of the first four.
    assert order[0] < 4
    assert ids(ds) != order  # a new order the next epoch
    with pytest.raises(ValueError):
        MindDataset(ten).shuffle(buffer_size=1)
    with pytest.raises(NotImplementedError, match="before batch"):
        MindDataset(ten).batch(2).shuffle(4)


def test_split_and_use_sampler(ten):
    d = MindDataset(ten, shuffle=False, seed=111)
    d1, d2 = d.split([0.8, 0.2])
    assert d.get_dataset_size() == 10 and d1.get_dataset_size() == 8 and d2.get_dataset_size() == 2
    a, b = ids(d1), ids(d2)
    assert sorted(a + b) == list(range(10))
    assert ids(d1) == a  # the same rows in the same order every epoch
    d1.use_sampler(DistributedSampler(2, 0, shuffle=False))
    assert d1.get_dataset_size() == 4 and ids(d1) == a[0::2]
    seq1, seq2 = d.split([7, 3], randomize=False)
    assert ids(seq1) == list(range(7)) and ids(seq2) == [7, 8, 9]
    head1, head2 = MindDataset(ten, shuffle=False, num_samples=6).split([0.5, 0.5], randomize=False)
    assert ids(head1) == [0, 1, 2] and ids(head2) == [3, 4, 5]  # the rows the dataset reads
    with pytest.raises(RuntimeError, match="Dataset should not be sharded before split."):
        MindDataset(ten, num_shards=2, shard_id=0).split([0.5, 0.5])
    # use_sampler on the dataset itself replaces its sampler.
    whole = MindDataset(ten, seed=2)
    whole.use_sampler(SequentialSampler(start_index=8))
    assert ids(whole) == [8, 9, 0, 1, 2, 3, 4, 5, 6, 7]
    whole.use_sampler(RandomSampler(num_samples=3))
    assert whole.get_dataset_size() == 3


def test_reset_starts_the_next_epoch(ten):
    ds = MindDataset(ten, shuffle=False)
    it = ds.create_dict_iterator(num_epochs=1, output_numpy=True)
    assert [int(next(it)["id"]) for _ in range(4)] == [0, 1, 2, 3]
    ds.reset()
    state = ds.state_dict()
    assert state["epoch"] == 1 and state["position"] == 0
    assert ids(ds) == list(range(10))


def test_output_shapes_and_types(ten):
    ds = MindDataset(ten, columns_list=["id", "vec", "name"], shuffle=False)
    assert ds.output_shapes() == [[], [2], []]
    assert ds.output_types() == [np.dtype(np.int64), np.dtype(np.float64), np.dtype("<U2")]
    batched = ds.batch(4, drop_remainder=True)
    assert batched.output_shapes() == [[4], [4, 2], [4]] and batched.get_batch_size() == 4
    assert ids(ds)[:2] == [0, 1]  # the dataset's own position is untouched


def test_apply_num_classes_and_input_indexs(ten):
    ds = MindDataset(ten, shuffle=False)

    def chain(d):
        return d.repeat(2).batch(4)
    applied = ds.apply(chain)
    assert applied.get_dataset_size() == 5 and applied.get_batch_size() == 4
    with pytest.raises(TypeError, match="must be a function"):
        ds.apply(3)
    with pytest.raises(TypeError, match="must return a dataset"):
        ds.apply(lambda d: [d])
    # A MindRecord source names no classes (MindSpore: None).
    assert ds.num_classes() is None and applied.num_classes() is None
    assert ds.input_indexs == ()
    ds.input_indexs = (1, 0)
    assert ds.input_indexs == (1, 0) and ds.batch(2).input_indexs == (1, 0)


def test_mstype_names_run_unchanged(ten):
    # import mindspore.common.dtype as mstype
    # import mindspore.dataset.transforms as C
    import mindrecord as ds
    from mindrecord import dtype as mstype
    from mindrecord import transforms as C

    type_cast_op = C.TypeCast(mstype.int32)
    data = MindDataset(ten, columns_list=["id", "score"], shuffle=False)
    data = data.map(operations=type_cast_op, input_columns="id")
    data = data.map(operations=C.TypeCast(mstype.float64), input_columns="score")
    assert data.output_types() == [mstype.int32, mstype.float64]
    rows = list(data.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert rows[3]["id"].dtype == np.int32 and rows[3]["id"] == 3 and rows[3]["score"] == 0.75
    gen = ds.GeneratorDataset(lambda: ((np.array([i, i]),) for i in range(3)), ["x"], column_types=[mstype.int16])
    assert [r["x"].dtype for r in gen.create_dict_iterator(output_numpy=True)] == [np.int16] * 3
    schema = ds.Schema()
    schema.add_column("col", de_type=mstype.int64, shape=[2])
    assert schema.columns[0]["type"] == "int64"
    # A type the pipeline has no tensors for fails, naming it.
    with pytest.raises(ValueError, match="TypeCast: unknown tensor type 'float16'"):
        half = MindDataset(ten, columns_list=["score"]).map(C.TypeCast(mstype.float16), input_columns="score")
        next(half.create_tuple_iterator(num_epochs=1))
