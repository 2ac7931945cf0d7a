"""Batch maps (per_batch_map with BatchInfo, pad_info), weighted mixing
(mindrecord.mix), DSCallback and the torch adapter over combined datasets,
written as MindSpore code with only the import changed."""
import time

import numpy as np
import pytest

import mindrecord
from mindrecord import DSCallback, FileWriter, MindDataset


def write(path, n, first=0):
    w = FileWriter(path, 1)
    w.add_schema({"id": {"type": "int64"}, "label": {"type": "int32"}, "x": {"type": "float32", "shape": [-1]}}, "t")
    w.write_raw_data([{"id": i, "label": i % 3, "x": np.arange(1 + i % 3, dtype=np.float32)}
                      for i in range(first, first + n)])
    w.commit()
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("bm")
    return {"a": write(str(d / "a.mindrecord"), 40), "b": write(str(d / "b.mindrecord"), 10, first=1000)}


def ds_of(path, **kw):
    kw.setdefault("shuffle", False)
    return MindDataset(path, columns_list=["id", "label", "x"], **kw)


def epochs(ds, n=1):
    it = ds.create_dict_iterator(num_epochs=n, output_numpy=True)
    return [[{k: (v.tolist() if isinstance(v, np.ndarray) else [a.tolist() for a in v]) for k, v in b.items()}
             for b in it] for _ in range(n)]


def test_per_batch_map_gets_lists_and_batchinfo(files):
    calls = []

    def add_info(ids, labels, info):
        calls.append((info.get_epoch_num(), info.get_batch_num(), type(ids).__name__, ids[0].shape))
        return [i + 1000 * info.get_epoch_num() for i in ids], np.array([info.get_batch_num()] * len(ids))

    ds = ds_of(files["a"]).take(10).batch(4, input_columns=["id", "label"], output_columns=["id", "batch"],
                                          per_batch_map=add_info)
    assert ds.get_col_names() == ["id", "batch", "x"]
    got = epochs(ds, 2)
    assert [b["batch"] for b in got[0]] == [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2]]
    assert [b["id"] for b in got[1]] == [[1000, 1001, 1002, 1003], [1004, 1005, 1006, 1007], [1008, 1009]]
    assert sorted(set(c[:2] for c in calls)) == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert all(c[2] == "list" and c[3] == () for c in calls)
    # One column renamed in place; counts that differ put the outputs first, as map.
    one = ds_of(files["a"]).batch(8, drop_remainder=True, input_columns=["label"], output_columns=["l2"],
                                  per_batch_map=lambda labels, info: ([l * 2 for l in labels],))
    assert one.get_col_names() == ["id", "l2", "x"]
    assert epochs(one)[0][1]["l2"] == [2 * (i % 3) for i in range(8, 16)]
    two = ds_of(files["a"]).batch(8, input_columns=["label"], output_columns=["l2", "l3"],
                                  per_batch_map=lambda labels, info: (labels, [l + 1 for l in labels]))
    assert two.get_col_names() == ["l2", "l3", "id", "x"]
    assert epochs(two)[0][0]["l3"] == [i % 3 + 1 for i in range(8)]
    # After a filter the consumer numbers the batches: still 0, 1, 2, ...
    f = ds_of(files["a"]).filter(lambda i: i % 2 == 1, input_columns="id").batch(
        5, input_columns=["id"], per_batch_map=lambda ids, info: ([info.get_batch_num()] * len(ids),))
    assert [b["id"] for b in epochs(f)[0]] == [[k] * 5 for k in range(4)]
    bad = ds_of(files["a"]).batch(4, input_columns=["id"], per_batch_map=lambda ids, info: 1 / 0)
    with pytest.raises(RuntimeError, match="per_batch_map.*ZeroDivisionError") as e:
        epochs(bad)
    assert isinstance(e.value.__cause__, ZeroDivisionError)
    with pytest.raises(ValueError, match="go with a per_batch_map"):
        ds_of(files["a"]).batch(2, input_columns=["id"])


@pytest.mark.parametrize("where", ["per_batch_map", "map"])
def test_the_error_keeps_its_cause_and_no_callable_runs_after_it(files, where):
    # Both workers' callables raise before the consumer looks. The error it
    # raises is chained to the first batch's exception, not to the other
    # one; and once a batch failed no further batch is started (the
    # consumer stops at the error: their work would be thrown away).
    calls = []

    def raise_per_batch(ids, info):
        calls.append(info.get_batch_num())
        raise KeyError("batch %d" % info.get_batch_num())

    def raise_per_row(i):
        calls.append(int(i))
        raise KeyError("row %d" % int(i))

    ds = ds_of(files["a"])
    if where == "map":
        ds = ds.map(raise_per_row, input_columns="id", num_parallel_workers=2).batch(1)
    else:
        ds = ds.batch(1, input_columns=["id"], per_batch_map=raise_per_batch, num_parallel_workers=2)
    it = ds.create_dict_iterator(num_epochs=1, output_numpy=True)
    # Until the workers have been idle for a while.
    deadline = time.monotonic() + 10
    seen = -1
    while len(calls) != seen and time.monotonic() < deadline:
        seen = len(calls)
        time.sleep(0.3)
    assert 1 <= len(calls) <= 2  # one task per worker at most was under way
    with pytest.raises(RuntimeError, match="KeyError") as e:
        next(it)
    assert isinstance(e.value.__cause__, KeyError)
    assert e.value.__cause__.args == ("batch 0" if where == "per_batch_map" else "row 0",)


def test_pad_info_pads_to_a_shape(files):
    # x has 1..3 elements: pad to 4 with -1, or to the batch's largest.
    ds = ds_of(files["a"]).batch(3, pad_info={"x": ([4], -1)})
    b = epochs(ds)[0][0]
    assert np.array(b["x"]).shape == (3, 4)
    assert b["x"][1] == [0, 1, -1, -1]
    b = epochs(ds_of(files["a"]).batch(3, pad_info={"x": (None, 7)}))[0][0]
    assert b["x"] == [[0, 7, 7], [0, 1, 7], [0, 1, 2]]
    # Our pad_columns (flat plan): to the batch's largest shape.
    b = epochs(ds_of(files["a"]).batch(3, pad_columns={"x": -2}))[0][0]
    assert b["x"] == [[0, -2, -2], [0, 1, -2], [0, 1, 2]]
    b = epochs(ds_of(files["a"]).padded_batch(2))[0][0]
    assert b["x"] == [[0, 0], [0, 1]]
    with pytest.raises(RuntimeError, match="larger than the pad shape"):
        epochs(ds_of(files["a"]).batch(3, pad_info={"x": ([2], 0)}))


def test_mix_by_weight_with_each_policy(files):
    a, b = ds_of(files["a"], shuffle=True, seed=2), ds_of(files["b"])
    # drop: every row of both once, each in its own order.
    m = mindrecord.mix([a, b], [3, 1], seed=9, policy="drop")
    it = m.create_dict_iterator(num_epochs=1, output_numpy=True)
    ids = [int(r["id"]) for r in it]
    assert len(ids) == 50 and sorted(i for i in ids if i < 1000) == list(range(40))
    assert [i for i in ids if i >= 1000] == list(range(1000, 1010))
    assert it.stats()["mix_rows"] == [[40, 10]]
    # stop: the epoch ends when a drawn dataset has run out.
    ids = [int(r["id"]) for r in mindrecord.mix([a, b], [1, 1], seed=9).create_dict_iterator(num_epochs=1)]
    assert len([i for i in ids if i >= 1000]) == 10 and len(ids) < 50
    # restart: a new pass (reshuffled) of a dataset that ran out.
    r = mindrecord.mix([a, b], [1, 0], policy="restart", num_samples=100, seed=1)
    ids = [int(x["id"]) for x in r.create_dict_iterator(num_epochs=1)]
    assert len(ids) == 100 and sorted(ids[:40]) == sorted(ids[40:80]) == list(range(40)) and ids[:40] != ids[40:80]
    assert r.get_dataset_size() == 100
    # The same seed gives the same sequence for any worker count; resumes exactly.
    def make(workers=2):
        a2 = ds_of(files["a"], shuffle=True, seed=2, num_parallel_workers=workers)
        return mindrecord.mix([a2, ds_of(files["b"])], [2, 1], seed=4, policy="restart").project(
            ["id", "label"]).batch(4)
    assert epochs(make(1), 2) == epochs(make(3), 2)
    from test_tree_ops import resume_matches
    resume_matches(make, [1, 4, 9, 13])
    with pytest.raises(ValueError, match="policy"):
        mindrecord.mix([a, b], [1, 1], policy="loop")
    with pytest.raises(ValueError, match="weights"):
        mindrecord.mix([a, b], [1])


def test_mix_under_num_shards(files):
    seen = []
    for shard in range(2):
        parts = [MindDataset(files[k], columns_list=["id"], shuffle=False, num_shards=2, shard_id=shard)
                 for k in ("a", "b")]
        seen += [int(r["id"]) for r in mindrecord.mix(parts, [1, 1], policy="drop").create_dict_iterator(
            num_epochs=1)]
    assert sorted(seen) == list(range(40)) + list(range(1000, 1010))


class Recorder(DSCallback):
    def __init__(self, step_size=1):
        super().__init__(step_size)
        self.calls = []

    def _add(self, what, ctx):
        self.calls.append((what, ctx.cur_epoch_num, ctx.cur_step_num_in_epoch, ctx.cur_step_num))

    def ds_begin(self, ctx):
        self._add("begin", ctx)

    def ds_epoch_begin(self, ctx):
        self._add("epoch_begin", ctx)

    def ds_epoch_end(self, ctx):
        self._add("epoch_end", ctx)

    def ds_step_begin(self, ctx):
        self._add("step_begin", ctx)

    def ds_step_end(self, ctx):
        self._add("step_end", ctx)


def test_callbacks_run_in_order_with_mindspores_run_context(files):
    cb = Recorder(step_size=2)
    ds = ds_of(files["a"]).take(5).map(lambda i: i, input_columns="id", callbacks=[cb]).batch(2)
    it = ds.create_tuple_iterator(num_epochs=2)
    assert [len(list(it)), len(list(it))] == [3, 3]
    epoch1 = [("epoch_begin", 1, 0, 0), ("step_begin", 1, 1, 1), ("step_end", 1, 1, 1),
              ("step_begin", 1, 3, 3), ("step_end", 1, 3, 3), ("step_begin", 1, 5, 5), ("step_end", 1, 5, 5),
              ("epoch_end", 1, 5, 5)]
    assert cb.calls[0] == ("begin", 0, 0, 0)
    assert cb.calls[1:9] == epoch1
    assert cb.calls[9] == ("epoch_begin", 2, 0, 5) and cb.calls[-1] == ("epoch_end", 2, 5, 10)
    # A map after batch counts batches.
    cb2 = Recorder()
    list(ds_of(files["a"]).batch(10).map(lambda i: i, input_columns="id", callbacks=cb2))
    assert [c for c in cb2.calls if c[0] == "step_end"] == [("step_end", 1, k, k) for k in range(1, 5)]
    with pytest.raises(TypeError, match="DSCallback"):
        ds_of(files["a"]).map(lambda i: i, input_columns="id", callbacks=[object()])
    with pytest.raises(ValueError, match="step_size"):
        DSCallback(0)


def test_torch_adapter_reads_combined_datasets(files):
    torch = pytest.importorskip("torch")
    from mindrecord.torch import MindRecordDataset, StatefulDataLoader
    tree = (ds_of(files["a"]).take(12) + ds_of(files["b"])).map(lambda i: i * 2, input_columns="id")
    want = [2 * i for i in list(range(12)) + list(range(1000, 1010))]
    ds = MindRecordDataset(tree, columns=["id", "label"], batch_size=4)
    assert len(ds) == 6
    for workers in (0, 2):
        got = [int(v) for b in torch.utils.data.DataLoader(ds, batch_size=None, num_workers=workers)
               for v in b["id"]]
        assert got == want
    # Ranks split it by position: disjoint and complete.
    split = []
    for rank in range(2):
        split += [int(v) for b in MindRecordDataset(tree, batch_size=3, rank=rank, world_size=2) for v in b["id"]]
    assert sorted(split) == sorted(want)
    # Mid-epoch resume through StatefulDataLoader.
    loader = StatefulDataLoader(ds, num_workers=2)
    it = iter(loader)
    first = [next(it)["id"].tolist() for _ in range(2)]
    state = loader.state_dict()
    loader2 = StatefulDataLoader(MindRecordDataset(tree, columns=["id", "label"], batch_size=4), num_workers=0)
    loader2.load_state_dict(state)
    rest = [b["id"].tolist() for b in loader2]
    assert [v for b in first + rest for v in b] == want
    assert int(ds[13]["id"]) == 2 * 1001
    # A filter: rows are read, but there is no len() and no mid-epoch resume.
    filtered = MindRecordDataset(tree.filter(lambda i: i % 4 == 0, input_columns="id"), batch_size=4)
    assert [int(v) for b in filtered for v in b["id"]] == [v for v in want if v % 4 == 0]
    with pytest.raises(TypeError, match="no len"):
        len(filtered)
    with pytest.raises(NotImplementedError, match="resume"):
        filtered.state_dict()
    with pytest.raises(ValueError, match="shuffle is the dataset's own"):
        MindRecordDataset(tree, shuffle=True)
    mixed = mindrecord.mix([ds_of(files["a"]), ds_of(files["b"])], [1, 1], policy="drop")
    assert sorted(int(v) for b in MindRecordDataset(mixed, batch_size=8) for v in b["id"]) == \
        list(range(40)) + list(range(1000, 1010))


def test_callable_batch_size_as_mindspores(files):
    # MindSpore's batch() docstring, example (3): the batch size grows by one each batch.
    import mindrecord as ds

    def add_one(BatchInfo):
        return BatchInfo.get_batch_num() + 1

    dataset = ds.NumpySlicesDataset([i for i in range(10)], "column1", shuffle=False)
    dataset = dataset.padded_batch(batch_size=add_one, drop_remainder=True)
    got = [b[0].tolist() for b in dataset.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    assert got == [[0], [1, 2], [3, 4, 5], [6, 7, 8, 9]]
    assert dataset.get_dataset_size() == 4 and dataset.get_batch_size() == 1
    # The epoch is the callable's too; every epoch starts at batch 0; drop_remainder drops the short last one.
    by_epoch = ds_of(files["a"]).take(10).batch(lambda info: 3 + info.get_epoch_num(), drop_remainder=True)
    assert [[len(b["id"]) for b in e] for e in epochs(by_epoch, 2)] == [[3, 3, 3], [4, 4]]
    # After a filter and with a per_batch_map, any worker count, the same batches.
    sizes = lambda info: info.get_batch_num() % 3 + 2  # noqa: E731
    want = None
    for workers in (1, 3):
        d = ds_of(files["a"], num_parallel_workers=workers, shuffle=True, seed=3).filter(lambda i: int(i) % 4 != 1, ["id"])
        d = d.batch(sizes, per_batch_map=lambda ids, info: ([i * 10 for i in ids],), input_columns=["id"])
        got = [b["id"] for b in epochs(d, 2)[1]]
        assert [len(b) for b in got] == [2, 3, 4] * 3 + [2, 1]  # 30 rows pass the filter
        assert all(i % 10 == 0 and (i // 10) % 4 != 1 for b in got for i in b)
        want = want or got
        assert got == want


def test_callable_batch_size_resumes_and_reports_bad_sizes(files):
    def make():
        return ds_of(files["a"], shuffle=True, seed=9, num_parallel_workers=2).batch(
            lambda info: info.get_batch_num() % 4 + 1)

    full = [b["id"] for b in epochs(make(), 1)[0]]
    first = make()
    it = first.create_dict_iterator(num_epochs=1, output_numpy=True)
    head = [next(it)["id"].tolist() for _ in range(5)]
    state = first.state_dict()
    second = make()
    second.load_state_dict(state)
    assert head + [b["id"] for b in epochs(second, 1)[0]] == full
    for bad, err in ((lambda info: 0, "not a batch size"), (lambda info: "4", "must return an int")):
        with pytest.raises(RuntimeError, match=err):
            list(ds_of(files["a"]).batch(bad).create_tuple_iterator(num_epochs=1))
