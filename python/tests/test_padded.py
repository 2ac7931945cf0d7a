"""MindDataset padded_sample / num_padded (MindSpore semantics)."""
import numpy as np
import pytest

import mindrecord
from mindrecord import vision
from conftest import write_simple, numpy_dicts

PAD = {"id": -1, "label": 9, "vec": np.array([0.5, 1.5, 2.5], np.float32)}


@pytest.fixture(scope="module")
def ten(tmp_path_factory):
    d = tmp_path_factory.mktemp("pad")
    return write_simple(str(d / "ten.mindrecord"), 10)


def rows_of(ds):
    return [{k: np.asarray(v) for k, v in r.items()} for r in numpy_dicts(ds)]


def shard_rows(path, num_shards, **kw):
    return [rows_of(mindrecord.MindDataset(path, num_shards=num_shards, shard_id=s, padded_sample=PAD,
                                           num_padded=kw.pop("num_padded", 2), **kw))
            for s in range(num_shards)]


def test_padded_rows_fill_every_shard_evenly(ten):
    shards = shard_rows(ten, 4, shuffle=False)
    assert [len(s) for s in shards] == [3, 3, 3, 3]
    ids = sorted(int(r["id"]) for s in shards for r in s)
    assert ids == [-1, -1] + list(range(10))
    pads = [r for s in shards for r in s if int(r["id"]) == -1]
    for r in pads:
        assert int(r["label"]) == 9
        assert r["vec"].dtype == np.float32 and r["vec"].tolist() == [0.5, 1.5, 2.5]
    ds = mindrecord.MindDataset(ten, num_shards=4, shard_id=3, shuffle=False, padded_sample=PAD, num_padded=2)
    assert ds.get_dataset_size() == 3


def test_padded_rows_are_shuffled_and_mapped_and_batched(ten):
    def plus_one(v):
        return v + 1

    got = []
    for w in (1, 3):
        per_shard = []
        for s in range(2):
            ds = mindrecord.MindDataset(ten, num_shards=2, shard_id=s, seed=5, num_parallel_workers=w,
                                        padded_sample=PAD, num_padded=4)
            ds = ds.map([vision.TypeCast("float64"), plus_one], input_columns="vec").batch(4)
            assert ds.get_dataset_size() == 2
            batches = list(numpy_dicts(ds))
            assert [b["id"].shape[0] for b in batches] == [4, 3]
            assert all(b["vec"].dtype == np.float64 for b in batches)
            per_shard.append([(int(i), v.tolist()) for b in batches for i, v in zip(b["id"], b["vec"])])
        got.append(per_shard)
    assert got[0] == got[1]  # the same order for any worker count
    flat = [x for s in got[0] for x in s]
    assert sorted(i for i, _ in flat) == [-1] * 4 + list(range(10))
    assert all(v == [1.5, 2.5, 3.5] for i, v in flat if i == -1)
    assert all(v == [i + 1.0] * 3 for i, v in flat if i >= 0)
    ordered = sorted(flat, key=lambda x: x[0])
    assert [i for i, _ in flat] != [i for i, _ in ordered]  # shuffled


def test_padded_resume_continues_exactly(ten):
    def make():
        return mindrecord.MindDataset(ten, num_shards=3, shard_id=2, seed=11, padded_sample=PAD,
                                      num_padded=2).batch(2)

    full = [b["id"].tolist() for b in numpy_dicts(make())]
    assert sum(len(b) for b in full) == 4
    ds = make()
    it = iter(numpy_dicts(ds))
    first = next(it)["id"].tolist()
    state = ds.state_dict()
    it.close()
    again = make()
    again.load_state_dict(state)
    rest = [b["id"].tolist() for b in numpy_dicts(again)]
    assert [first] + rest == full
    # Another padding is another dataset: its state is refused.
    other = mindrecord.MindDataset(ten, num_shards=3, shard_id=2, seed=11, padded_sample=dict(PAD, id=-2),
                                   num_padded=2).batch(2)
    with pytest.raises(ValueError, match="another dataset"):
        other.load_state_dict(state)


def test_padded_bytes_string_and_ragged_columns(tmp_path):
    path = str(tmp_path / "mixed.mindrecord")
    w = mindrecord.FileWriter(path, 2)
    w.add_schema({"img": {"type": "bytes"}, "name": {"type": "string"}, "box": {"type": "int64", "shape": [-1, 2]},
                  "score": {"type": "float64"}})
    w.write_raw_data([{"img": bytes([i]) * (i + 1), "name": "n%d" % i, "box": np.full((i + 1, 2), i, np.int64),
                       "score": i / 2} for i in range(5)])
    w.commit()
    pad = {"img": b"\x00\xffpad", "name": "padded é", "box": np.array([[7, 8]], np.int64), "score": 0.25}
    rows = []
    for s in range(4):
        rows += list(numpy_dicts(mindrecord.MindDataset(path + "0", num_shards=4, shard_id=s, shuffle=False,
                                                        padded_sample=pad, num_padded=3)))
    assert len(rows) == 8
    pads = [r for r in rows if r["name"] == "padded é"]
    assert len(pads) == 3
    for r in pads:
        assert r["img"].dtype == np.uint8 and r["img"].tobytes() == b"\x00\xffpad"  # MindSpore's bytes
        assert r["box"].tolist() == [[7, 8]] and r["box"].dtype == np.int64
        assert float(r["score"]) == 0.25
    # Only the columns read must be given.
    sub = mindrecord.MindDataset(path + "1", columns_list=["name"], num_shards=3, shard_id=0, shuffle=False,
                                 padded_sample={"name": "x"}, num_padded=1)
    assert len(list(sub)) == 2


def test_padded_bad_arguments(ten):
    def make(**kw):
        args = dict(num_shards=4, shard_id=0, padded_sample=PAD, num_padded=2)
        args.update(kw)
        return mindrecord.MindDataset(ten, **args)

    # MindSpore's checks and wording (issue 17).
    with pytest.raises(RuntimeError, match="num_padded is specified but padded_sample is not."):
        make(padded_sample=None)
    with pytest.raises(RuntimeError, match="padded_sample is specified and requires num_padded as well."):
        make(num_padded=None)
    with pytest.raises(ValueError, match=r"padded_sample cannot match columns_list.*\['vec'\]"):
        make(padded_sample={"id": 1, "label": 2})
    with pytest.raises(ValueError, match=r"Invalid input, number of padding samples: 1 plus dataset size 10 is not "
                                         r"divisible by num_shards: 4."):
        make(num_padded=1)
    with pytest.raises(ValueError, match="num_padded is invalid, num_padded=-2."):
        make(num_padded=-2)
    with pytest.raises(ValueError, match="padded_sample must be a dict"):
        make(padded_sample=[1, 2])
    with pytest.raises(ValueError, match="padded_sample.*'label'.*out of int32 range"):
        make(padded_sample=dict(PAD, label=2 ** 40))
    with pytest.raises(ValueError, match="padded_sample.*'vec'"):
        make(padded_sample=dict(PAD, vec=np.zeros(4, np.float32)))
    with pytest.raises(ValueError, match="padded_sample.*'id'"):
        make(padded_sample=dict(PAD, id="seven"))
    # num_padded 0 is allowed when the rows already divide evenly.
    assert len(list(make(num_shards=5, shard_id=1, num_padded=0))) == 2
