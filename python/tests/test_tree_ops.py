"""The execution tree from Python, written as MindSpore code with only the
import changed: multi-column map (MindSpore 2.x's column order), map after
batch, filter / project / rename / take / skip / concat / + / zip / repeat,
the drop_remainder epoch fix, config setters; determinism across
num_parallel_workers, exact resume through state_dict() and num_shards."""
import os

import numpy as np
import pytest

import mindrecord
from mindrecord import FileWriter, MindDataset, vision


def write(path, n, first=0):
    w = FileWriter(path, 1)
    w.add_schema({"id": {"type": "int64"}, "label": {"type": "int32"}, "x": {"type": "float32", "shape": [1, 2]}}, "t")
    w.write_raw_data([{"id": i, "label": i % 3, "x": np.array([[i, -i]], np.float32)}
                      for i in range(first, first + n)])
    w.commit()
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("tree")
    return {"a": write(str(d / "a.mindrecord"), 20), "b": write(str(d / "b.mindrecord"), 6, first=100),
            "ten": write(str(d / "ten.mindrecord"), 10)}


def ds_of(path, **kw):
    kw.setdefault("shuffle", False)
    return MindDataset(path, columns_list=["id", "label", "x"], **kw)


def rows(ds, column="id"):
    return [r[column].tolist() for r in ds.create_dict_iterator(num_epochs=1, output_numpy=True)]


def items(ds):
    """One epoch of dicts of plain python values."""
    return [{k: v.tolist() for k, v in r.items()} for r in ds.create_dict_iterator(num_epochs=1, output_numpy=True)]


def test_multi_column_map_follows_mindspores_column_order(files):
    ds = ds_of(files["a"])
    # Fewer outputs than inputs: outputs first, then the other columns in order.
    m = ds.map(lambda i, l: i + l, input_columns=["id", "label"], output_columns=["s"])
    assert m.get_col_names() == ["s", "x"]
    got = items(m)
    assert [r["s"] for r in got] == [i + i % 3 for i in range(20)]
    assert list(got[0]) == ["s", "x"]
    # As many: the outputs take the inputs' places (renamed).
    m = ds.map(lambda i, l: (l, i), input_columns=["id", "label"], output_columns=["p", "q"])
    assert m.get_col_names() == ["p", "q", "x"]
    assert rows(m, "p") == [i % 3 for i in range(20)] and rows(m, "q") == list(range(20))
    # More: outputs first.
    m = ds.map(lambda l: (l, l * 2), input_columns=["label"], output_columns=["a", "b"])
    assert m.get_col_names() == ["a", "b", "id", "x"]
    assert rows(m, "b") == [2 * (i % 3) for i in range(20)]
    # Each op takes what the previous gave; C++ ops and callables mixed.
    m = ds.map([vision.TypeCast("float64"), lambda v: (v, v + 1), lambda a, b: a * b], input_columns="id",
               output_columns="sq")
    assert m.get_col_names() == ["sq", "label", "x"]
    assert rows(m, "sq") == [float(i * (i + 1)) for i in range(20)]
    # input_columns=None: every column goes to the first op.
    m = ds.map(lambda i, l, x: (x, i), output_columns=["x2", "i2"])
    assert m.get_col_names() == ["x2", "i2"] and rows(m, "i2") == list(range(20))
    # A count the callable does not return is an error naming it and the row.
    bad = ds.map(lambda i, l: (i, l, i), input_columns=["id", "label"], output_columns=["a", "b"])
    with pytest.raises(RuntimeError, match="gave 3 column.*declares 2 \\(the map's output_columns\\)"):
        rows(bad)


def test_map_after_batch_sees_whole_batches(files):
    seen = []

    def swap(i, l):
        seen.append(i.shape)
        return l, i

    ds = ds_of(files["a"]).batch(8).map(swap, input_columns=["id", "label"])
    got = items(ds)
    assert [len(b["id"]) for b in got] == [8, 8, 4]
    assert got[0]["id"] == [i % 3 for i in range(8)] and got[0]["label"] == list(range(8))
    assert (8,) in seen
    # project / rename after batch.
    b = items(ds_of(files["a"]).batch(5).rename("x", "vec").project(["vec", "id"]))[0]
    assert list(b) == ["vec", "id"] and np.array(b["vec"]).shape == (5, 1, 2)


def test_filter_project_rename_take_skip(files):
    ds = ds_of(files["a"])
    even = ds.filter(lambda i: i % 2 == 0, input_columns=["id"])
    assert rows(even) == list(range(0, 20, 2))
    assert even.get_dataset_size() == 10
    batched = even.batch(3)
    assert [b["id"] for b in items(batched)] == [[0, 2, 4], [6, 8, 10], [12, 14, 16], [18]]
    assert batched.get_dataset_size() == 4
    # filter's predicate with every column by default
    assert rows(ds.filter(lambda i, l, x: l == 0)) == list(range(0, 20, 3))
    p = ds.project(["x", "id"])
    assert p.get_col_names() == ["x", "id"] and list(items(p)[0]) == ["x", "id"]
    r = ds.rename(["id", "label"], ["ident", "lab"])
    assert r.get_col_names() == ["ident", "lab", "x"] and rows(r, "ident") == list(range(20))
    assert rows(ds.take(5)) == [0, 1, 2, 3, 4]
    assert rows(ds.skip(15)) == [15, 16, 17, 18, 19]
    assert rows(ds.skip(3).take(2)) == [3, 4]
    assert rows(ds.take(-1)) == list(range(20))
    # After a filter: the first rows that pass it.
    assert rows(even.take(3)) == [0, 2, 4]
    assert rows(even.skip(7)) == [14, 16, 18]
    # Of batches after batch().
    assert [b["id"] for b in items(ds.batch(4).skip(1).take(2))] == [[4, 5, 6, 7], [8, 9, 10, 11]]
    assert [b["id"] for b in items(even.batch(4).take(2))] == [[0, 2, 4, 6], [8, 10, 12, 14]]
    assert ds.batch(4).take(2).get_dataset_size() == 2
    with pytest.raises(ValueError, match="count should be -1 or within"):
        ds.take(0)
    with pytest.raises(ValueError, match="count should be within"):
        ds.skip(-1)
    with pytest.raises(ValueError, match="column 'nope' is not a column of its input"):
        ds.project(["nope"])
    with pytest.raises(NotImplementedError, match="filter\\(\\) of a batched dataset"):
        ds.batch(2).filter(lambda i: True)


def test_concat_add_zip_repeat(files):
    a, b = ds_of(files["a"]), ds_of(files["b"])
    assert rows(a + b) == list(range(20)) + list(range(100, 106))
    assert rows(b.concat([a.take(2), b.take(1)])) == list(range(100, 106)) + [0, 1, 100]
    assert (a + b).get_dataset_size() == 26
    z = mindrecord.zip((a.project(["id"]), b.rename(["id", "label", "x"], ["bid", "blabel", "bx"])))
    assert z.get_col_names() == ["id", "bid", "blabel", "bx"]
    got = items(z)
    assert [r["id"] for r in got] == list(range(6)) and [r["bid"] for r in got] == list(range(100, 106))
    assert z.get_dataset_size() == 6
    assert rows(a.project(["id"]).zip(b.project(["label"])), "label") == [i % 3 for i in range(100, 106)]
    with pytest.raises(ValueError, match="zip: rename the inputs' columns apart first"):
        mindrecord.zip((a, b))
    with pytest.raises(ValueError, match="same columns in every input"):
        a + b.project(["id"])
    assert rows(a.take(3).repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert rows((a.take(2) + b.take(1)).repeat(2)) == [0, 1, 100, 0, 1, 100]
    twice = (a.take(2) + b.take(1)).batch(2).repeat(2)
    assert [x["id"] for x in items(twice)] == [[0, 1], [100], [0, 1], [100]]
    # A map after it maps each batch; counting batches across the passes is refused.
    assert [x["id"] for x in items(twice.map(lambda i: i + 1, input_columns="id"))] == [[1, 2], [101], [1, 2], [101]]
    with pytest.raises(NotImplementedError, match="take\\(\\) after repeat\\(\\) after batch\\(\\)"):
        twice.take(1)
    # shuffle() of a combined dataset: each epoch a permutation of it.
    sh = (a + b).shuffle(32)
    it = sh.create_dict_iterator(num_epochs=2, output_numpy=True)
    e0, e1 = [int(r["id"]) for r in it], [int(r["id"]) for r in it]
    assert sorted(e0) == sorted(e1) == list(range(20)) + list(range(100, 106)) and e0 != e1


def test_drop_remainder_loops_are_whole_epochs(files):
    # 10 rows, batch 4, drop_remainder: each `for` loop is one epoch of 2
    # batches (it gave [2, 0, 0] when the dropped rows kept the state at 8).
    ds = MindDataset(files["ten"], shuffle=False).batch(4, drop_remainder=True)
    assert [len(list(ds)) for _ in range(3)] == [2, 2, 2]
    assert ds.get_dataset_size() == 2
    it = ds.create_tuple_iterator(num_epochs=3)
    assert [sum(1 for _ in it) for _ in range(4)] == [2, 2, 2, 0]
    # Without drop_remainder: 3 batches a loop, as before.
    ds = MindDataset(files["ten"], shuffle=False).batch(4)
    assert [len(list(ds)) for _ in range(3)] == [3, 3, 3]
    # The state after an epoch's last full batch is the next epoch's start.
    ds = MindDataset(files["ten"], shuffle=False).batch(4, drop_remainder=True)
    it = ds.create_dict_iterator(num_epochs=1)
    next(it), next(it)
    assert (ds.state_dict()["epoch"], ds.state_dict()["position"]) == (1, 0)


def pipeline(files, workers, seed=5):
    a = MindDataset(files["a"], columns_list=["id", "label", "x"], shuffle=True, seed=seed,
                    num_parallel_workers=workers)
    b = MindDataset(files["b"], columns_list=["id", "label", "x"], shuffle=True, seed=seed,
                    num_parallel_workers=workers)
    ds = (a + b).map([vision.RandomHorizontalFlip(0.5)], input_columns="x")
    ds = ds.map(lambda i, l: (i * 10 + l, l), input_columns=["id", "label"], output_columns=["k", "label"])
    ds = ds.filter(lambda k: k % 4 != 1, input_columns=["k"])
    return ds.batch(3)


def epochs_of(ds, n=2):
    it = ds.create_dict_iterator(num_epochs=n, output_numpy=True)
    return [[{k: v.tolist() for k, v in b.items()} for b in it] for _ in range(n)]


def test_same_output_for_any_worker_count(files):
    one = epochs_of(pipeline(files, 1))
    assert one == epochs_of(pipeline(files, 3))
    assert one[0] != one[1]  # a new shuffle and new flips each epoch
    flat = [k for e in one for b in e for k in b["k"]]
    assert all(k % 4 != 1 for k in flat)


def resume_matches(make, cuts, num_epochs=2):
    """For each cut: the batches before it, then a fresh dataset resumed from
    state_dict(), give exactly the uninterrupted run."""
    full = [b for e in epochs_of(make(), num_epochs) for b in e]
    assert full
    for k in [c for c in cuts if c < len(full)]:
        ds = make()
        it = ds.create_dict_iterator(num_epochs=num_epochs, output_numpy=True)
        head = []
        while len(head) < k:
            for b in it:
                head.append({c: v.tolist() for c, v in b.items()})
                if len(head) == k:
                    break
        state = ds.state_dict()
        it.close()
        again = make()
        again.load_state_dict(state)
        # num_epochs counts from where the iterator starts: the epochs left.
        it2 = again.create_dict_iterator(num_epochs=num_epochs - int(state["epoch"]), output_numpy=True)
        rest = []
        for _ in range(num_epochs + 1):
            rest.extend({c: v.tolist() for c, v in b.items()} for b in it2)
        assert head + rest == full, (k, state)


@pytest.mark.parametrize("name", ["take", "skip", "concat", "zip", "filter", "multimap", "filter_take", "repeat"])
def test_exact_resume_mid_epoch_for_each_combinator(files, name):
    def make():
        a = MindDataset(files["a"], columns_list=["id", "label", "x"], shuffle=True, seed=3,
                        num_parallel_workers=2)
        b = MindDataset(files["b"], columns_list=["id", "label", "x"], shuffle=True, seed=3)
        ds = {"take": lambda: a.take(13), "skip": lambda: a.skip(5),
              "concat": lambda: a + b,
              "zip": lambda: mindrecord.zip((a.project(["id", "x"]), b.project(["label"]))),
              "filter": lambda: a.filter(lambda l: l != 1, input_columns="label"),
              "multimap": lambda: a.map(lambda i, x: (x * 2, i + 1), input_columns=["id", "x"],
                                        output_columns=["x2", "i1"]),
              "filter_take": lambda: a.filter(lambda l: l != 1, input_columns="label").take(9),
              "repeat": lambda: (a.take(4) + b.take(3)).repeat(2)}[name]()
        return ds.batch(2)
    resume_matches(make, [1, 3, 5, 7])


def test_num_shards_compose_with_combinators(files):
    seen = []
    for shard in range(2):
        a = MindDataset(files["a"], columns_list=["id", "label", "x"], shuffle=False, num_shards=2, shard_id=shard)
        b = MindDataset(files["b"], columns_list=["id", "label", "x"], shuffle=False, num_shards=2, shard_id=shard)
        seen += rows((a + b).filter(lambda i: i != 7, input_columns="id"))
    assert sorted(seen) == [i for i in range(20) if i != 7] + list(range(100, 106))


def test_config_setters_take_effect(files):
    from mindrecord import config
    try:
        config.set_seed(77)
        config.set_num_parallel_workers(2)
        config.set_prefetch_size(3)
        a, b = MindDataset(files["a"], shuffle=True), MindDataset(files["a"], shuffle=True)
        assert a.state_dict()["seed"] == 77 and rows(a) == rows(b)  # the same seed: the same shuffle
        assert config.get_seed() == 77 and a._plan["num_workers"] == 2 and a._plan["queue_depth"] == 3
        assert np.random.randint(0, 2 ** 30) == np.random.RandomState(77).randint(0, 2 ** 30)
        with pytest.raises(ValueError):
            config.set_prefetch_size(0)
        with pytest.raises(TypeError):
            config.set_seed("1")
    finally:
        config._defaults.update(seed=None, num_parallel_workers=None, prefetch_size=None)
    # Unset again: a dataset draws its own seed (get_seed() says MindSpore's 5489, as MindSpore's does);
    # its queue is MindSpore's default prefetch size.
    assert config.get_seed() == 5489
    d, e = MindDataset(files["a"]), MindDataset(files["a"])
    assert d.state_dict()["seed"] != e.state_dict()["seed"]
    assert config.get_prefetch_size() == 16 and d._plan["queue_depth"] == 16
    # The default worker count, an int as MindSpore's getter gives.
    assert config.get_num_parallel_workers() == d._plan["num_workers"] == min(4, os.cpu_count() or 1)


def test_mindspore_switches_this_package_has_off_only():
    # Scripts turning them off run; turning them on says why it is refused.
    from mindrecord import config
    for name in ("numa_enable", "auto_offload", "debug_mode"):
        getattr(config, "set_" + name)(False)
        assert getattr(config, "get_" + name)() is False
        with pytest.raises(NotImplementedError, match=r"set_%s\(True\) is not supported by mindrecord: " % name):
            getattr(config, "set_" + name)(True)
        with pytest.raises(TypeError, match="must be a bool"):
            getattr(config, "set_" + name)(1)
    with pytest.raises(NotImplementedError, match="debug_hook_list"):
        config.set_debug_mode(False, debug_hook_list=[print])
    assert config.get_fast_recovery() is True
    config.set_fast_recovery(False)
    assert config.get_fast_recovery() is False
    config.set_fast_recovery(True)


def test_multi_column_vision_ops_in_maps(tmp_path):
    # MindSpore's detection and batch recipes: image + boxes through a map
    # over both columns, one-hot labels mixed with their images after batch.
    from mindrecord import transforms
    path = str(tmp_path / "det.mindrecord")
    w = FileWriter(path, 1)
    w.add_schema({"image": {"type": "float32", "shape": [4, 6, 3]}, "bbox": {"type": "float32", "shape": [-1, 4]},
                  "label": {"type": "int32"}}, "det")
    rng = np.random.default_rng(0)
    src = [{"image": rng.random((4, 6, 3), dtype=np.float32),
            "bbox": np.array([[1, 0, 2, 3]] * (1 + i % 2), np.float32), "label": i % 3} for i in range(8)]
    w.write_raw_data(src)
    w.commit()
    ds = MindDataset(path, columns_list=["image", "bbox", "label"], shuffle=False)
    flipped = ds.map(vision.RandomHorizontalFlipWithBBox(1.0), input_columns=["image", "bbox"])
    got = list(flipped.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert len(got) == 8
    for r, s in zip(got, src):
        assert np.array_equal(r["image"], s["image"][:, ::-1])
        assert r["bbox"].tolist() == [[3, 0, 2, 3]] * len(s["bbox"])  # x' = width - x - box width

    def mixed(workers):
        d = MindDataset(path, columns_list=["image", "label"], shuffle=False, num_parallel_workers=workers, seed=3)
        d = d.map(transforms.OneHot(3), input_columns="label").map(vision.TypeCast("float32"), input_columns="label")
        return list(d.batch(4).map(vision.MixUpBatch(1.0), input_columns=["image", "label"]).create_dict_iterator(
            num_epochs=1, output_numpy=True))

    one = mixed(1)
    assert [b["image"].shape for b in one] == [(4, 4, 6, 3)] * 2
    labels = np.concatenate([b["label"] for b in one])
    assert labels.shape == (8, 3) and np.allclose(labels.sum(axis=1), 1)
    assert not np.array_equal(labels, np.eye(3, dtype=np.float32)[[i % 3 for i in range(8)]])  # mixed
    three = mixed(3)
    assert all(np.array_equal(a["image"], b["image"]) and np.array_equal(a["label"], b["label"])
               for a, b in zip(one, three))
    # A multi-column op in a one-column map is refused, naming it.
    with pytest.raises(ValueError, match="RandomHorizontalFlipWithBBox"):
        list(ds.map(vision.RandomHorizontalFlipWithBBox(1.0), input_columns="image").create_dict_iterator(
            num_epochs=1))
