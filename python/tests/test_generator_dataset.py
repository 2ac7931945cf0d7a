"""GeneratorDataset (MindSpore's) over random-accessible Python sources,
written the MindSpore way."""
import os
import threading
import time

import numpy as np
import pytest

import mindrecord
from mindrecord import DistributedSampler, GeneratorDataset, SequentialSampler


class Squares:
    """Row i: (int32 [2] of i, float32 i / 2, the text 'r<i>')."""

    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return np.full((2,), i, np.int32), np.float32(i / 2), "r%d" % i

    def __len__(self):
        return self.n


class Pids:
    """Row i: (i, the id of the process that made the row)."""

    def __getitem__(self, i):
        return np.int64(i), np.int64(os.getpid())

    def __len__(self):
        return 12


class FailsAt:
    def __init__(self, bad):
        self.bad = bad

    def __getitem__(self, i):
        if i == self.bad:
            raise KeyError("no row %d here" % i)
        return np.int64(i)

    def __len__(self):
        return 10


def rows(ds, columns=None):
    return list(ds.create_dict_iterator(num_epochs=1, output_numpy=True))


def test_rows_columns_and_types():
    ds = GeneratorDataset(Squares(10), column_names=["vec", "half", "name"], shuffle=False)
    assert ds.get_col_names() == ["vec", "half", "name"] and ds.get_dataset_size() == 10
    got = rows(ds)
    assert [int(r["vec"][0]) for r in got] == list(range(10))
    assert got[3]["vec"].dtype == np.int32 and got[3]["vec"].shape == (2,)
    assert got[3]["half"].dtype == np.float32 and float(got[3]["half"]) == 1.5
    assert str(got[3]["name"]) == "r3"
    # One column: source[i] may be the value itself; Python numbers become numpy's types.
    class Plain:
        def __getitem__(self, i):
            return i * 10

        def __len__(self):
            return 4
    one = rows(GeneratorDataset(Plain(), "x", shuffle=False))
    assert [int(r["x"]) for r in one] == [0, 10, 20, 30] and one[0]["x"].dtype == np.int64
    cast = rows(GeneratorDataset(Plain(), ["x"], column_types=[np.int16], shuffle=False))
    assert cast[2]["x"].dtype == np.int16 and int(cast[2]["x"]) == 20


def test_a_schema_gives_column_names_and_types(tmp_path):
    schema = mindrecord.Schema()
    schema.add_column("vec", de_type="int64", shape=[2])
    schema.add_column("half", de_type=np.float64)
    schema.add_column("name", de_type="string")
    got = rows(GeneratorDataset(Squares(4), schema=schema, shuffle=False))
    assert list(got[0]) == ["vec", "half", "name"]
    assert got[3]["vec"].dtype == np.int64 and got[3]["vec"].tolist() == [3, 3]
    assert got[3]["half"].dtype == np.float64 and str(got[3]["name"]) == "r3"
    path = tmp_path / "schema.json"
    path.write_text(schema.to_json())  # a file's columns object is read in name order
    from_file = GeneratorDataset(Squares(4), schema=str(path), shuffle=False)
    assert from_file.get_col_names() == ["half", "name", "vec"]
    with pytest.raises(ValueError, match="differ"):
        GeneratorDataset(Squares(4), column_names=["a", "b", "c"], schema=schema)
    with pytest.raises(ValueError, match="not both"):
        GeneratorDataset(Squares(4), column_types=[np.int32] * 3, schema=schema)


def test_shuffled_by_default_and_the_same_for_any_worker_count():
    orders = [[int(r["vec"][0]) for r in rows(GeneratorDataset(Squares(50), ["vec", "half", "name"], seed=3,
                                                                  num_parallel_workers=w,
                                                                  python_multiprocessing=False))]
              for w in (1, 3)]
    assert orders[0] == orders[1] and sorted(orders[0]) == list(range(50)) and orders[0] != list(range(50))


def test_samplers_shards_and_num_samples():
    cols = ["vec", "half", "name"]
    picked = rows(GeneratorDataset(Squares(10), cols, sampler=[7, 2, 5]))
    assert [int(r["vec"][0]) for r in picked] == [7, 2, 5]
    seq = rows(GeneratorDataset(Squares(10), cols, sampler=SequentialSampler(start_index=4, num_samples=3)))
    assert [int(r["vec"][0]) for r in seq] == [4, 5, 6]
    shards = [[int(r["vec"][0]) for r in rows(GeneratorDataset(Squares(10), cols, num_shards=2, shard_id=k,
                                                                 shuffle=False))] for k in (0, 1)]
    assert sorted(shards[0] + shards[1]) == list(range(10)) and len(shards[0]) == 5
    dist = rows(GeneratorDataset(Squares(10), cols, sampler=DistributedSampler(5, 1, shuffle=False)))
    assert [int(r["vec"][0]) for r in dist] == [1, 6]
    assert len(rows(GeneratorDataset(Squares(10), cols, num_samples=4))) == 4


def test_split_as_mindspore_splits_a_mappable_source():
    # `train, test = ds.split([0.8, 0.2])` on GeneratorDataset and
    # NumpySlicesDataset, as on MindDataset: disjoint, the same rows in the
    # same order every epoch; consecutive rows without randomize.
    ds = GeneratorDataset(Squares(10), ["vec", "half", "name"], shuffle=False, seed=5)
    train, test = ds.split([0.8, 0.2])
    assert train.get_dataset_size() == 8 and test.get_dataset_size() == 2
    a = [str(r["name"]) for r in rows(train)]
    b = [str(r["name"]) for r in rows(test)]
    assert sorted(a + b) == sorted("r%d" % i for i in range(10)) and rows(train) and a != sorted(a)
    assert [str(r["name"]) for r in rows(train)] == a
    first, rest = mindrecord.NumpySlicesDataset(np.arange(10), column_names=["x"], shuffle=False).split(
        [7, 3], randomize=False)
    assert [int(x) for (x,) in first] == list(range(7)) and [int(x) for (x,) in rest] == [7, 8, 9]
    # The rows a sequential sampler reads: its start and num_samples.
    some = GeneratorDataset(Squares(10), ["vec", "half", "name"], sampler=SequentialSampler(2, 6))
    head, tail = some.split([0.5, 0.5], randomize=False)
    assert [str(r["name"]) for r in rows(head)] == ["r2", "r3", "r4"]
    assert [str(r["name"]) for r in rows(tail)] == ["r5", "r6", "r7"]
    with pytest.raises(NotImplementedError, match="samples 4 of its 10 rows in a random order"):
        GeneratorDataset(Squares(10), ["vec", "half", "name"], num_samples=4).split([2, 2])
    with pytest.raises(NotImplementedError, match="split the source dataset itself"):
        ds.map(lambda v: v, input_columns="vec").split([5, 5])


def test_map_batch_and_save_as_mindspore_documents_it(tmp_path):
    ds = GeneratorDataset(Squares(20), ["vec", "half", "name"], shuffle=False)
    ds = ds.map(lambda v: v * 3, input_columns=["vec"]).project(["vec", "half"]).batch(8)
    batches = rows(ds)
    assert [b["vec"].shape for b in batches] == [(8, 2), (8, 2), (4, 2)]
    assert ds.get_batch_size() == 8 and ds.repeat(2).get_batch_size() == 8
    assert GeneratorDataset(Squares(20), ["vec", "half", "name"]).get_batch_size() == 1
    assert batches[1]["vec"][0].tolist() == [24, 24]
    # MindSpore's way to write a MindRecord file from Python data.
    out = str(tmp_path / "gen.mindrecord")
    GeneratorDataset(Squares(20), ["vec", "half", "name"], shuffle=False).save(out)
    with mindrecord.FileReader(out) as r:
        assert r.schema() == {"vec": {"type": "int32", "shape": [-1]}, "half": {"type": "float32"},
                              "name": {"type": "string"}}
        back = list(r.get_next())
    assert [b["name"] for b in back] == ["r%d" % i for i in range(20)]
    np.testing.assert_array_equal(back[7]["vec"], [7, 7])


def test_resume_continues_exactly():
    def make():
        return GeneratorDataset(Squares(30), ["vec", "half", "name"], seed=9).batch(4)
    ds = make()
    it = ds.create_dict_iterator(num_epochs=1, output_numpy=True)
    first = [next(it)["vec"][:, 0].tolist() for _ in range(3)]
    state = ds.state_dict()
    rest = [b["vec"][:, 0].tolist() for b in it]
    again = make()
    again.load_state_dict(state)
    assert [b["vec"][:, 0].tolist() for b in again.create_dict_iterator(num_epochs=1, output_numpy=True)] == rest
    assert sorted(sum(first + rest, [])) == list(range(30))


def test_worker_processes_with_python_multiprocessing():
    ds = GeneratorDataset(Pids(), ["i", "pid"], shuffle=False, num_parallel_workers=2)
    got = rows(ds)
    assert [int(r["i"]) for r in got] == list(range(12))
    pids = {int(r["pid"]) for r in got}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    threads = rows(GeneratorDataset(Pids(), ["i", "pid"], shuffle=False, num_parallel_workers=2,
                                    python_multiprocessing=False))
    assert {int(r["pid"]) for r in threads} == {os.getpid()}

    class Local:  # not picklable: spawned workers could not load it
        def __getitem__(self, i):
            return i

        def __len__(self):
            return 3
    with pytest.raises(TypeError, match="GeneratorDataset.*cannot be sent to the worker processes"):
        GeneratorDataset(Local(), ["x"], num_parallel_workers=2)


def test_an_exception_in_the_source_names_it_and_the_row():
    ds = GeneratorDataset(FailsAt(6), ["x"], shuffle=False)
    with pytest.raises(RuntimeError, match=r"GeneratorDataset source 'FailsAt' \(row 6\) raised KeyError") as e:
        rows(ds)
    assert isinstance(e.value.__cause__, KeyError)

    class TwoForThree:
        def __getitem__(self, i):
            return 1, 2

        def __len__(self):
            return 2
    with pytest.raises(ValueError, match=r"gave 2 value\(s\) for 3 column\(s\)"):
        rows(GeneratorDataset(TwoForThree(), ["a", "b", "c"], shuffle=False))

    class Objects:
        def __getitem__(self, i):
            return np.array([{}, None])

        def __len__(self):
            return 2
    with pytest.raises(ValueError, match="dtype object"):
        rows(GeneratorDataset(Objects(), ["a"], shuffle=False))

    class Dicts:
        def __getitem__(self, i):
            return {"a": i}

        def __len__(self):
            return 2
    for types in (None, [np.int64]):  # read by the C++ source itself, and through the cast
        with pytest.raises(ValueError, match=r"is a dict; GeneratorDataset rows are tuples"):
            rows(GeneratorDataset(Dicts(), ["a"], column_types=types, shuffle=False))


def test_arguments_and_what_is_not_implemented():
    def gen():
        yield (np.array(1),)
    with pytest.raises(NotImplementedError, match="an iterator .* can be read only once"):
        GeneratorDataset(gen(), ["x"])
    for key, value in (("shuffle", True), ("sampler", [0]), ("num_shards", 2)):
        with pytest.raises(ValueError, match="%s is not supported if source does not have attribute '__getitem__'"
                                             % key):
            GeneratorDataset(gen, ["x"], **{key: value})
    with pytest.raises(TypeError, match="schema must be a path to a schema file or a mindrecord.Schema"):
        GeneratorDataset(Squares(3), schema={"x": "int32"})
    with pytest.raises(ValueError, match="Neither columns_names nor schema"):
        GeneratorDataset(Squares(3))
    with pytest.raises(TypeError, match="not callable, iterable or random accessible"):
        GeneratorDataset(5, ["x"])

    class NoLen:
        def __getitem__(self, i):
            return i
    with pytest.raises(TypeError, match="__len__"):
        GeneratorDataset(NoLen(), ["x"])
    with pytest.raises(ValueError, match="names a column twice"):
        GeneratorDataset(Squares(3), ["a", "a", "b"])
    with pytest.raises(ValueError, match="num_parallel_workers"):
        GeneratorDataset(Squares(3), ["a", "b", "c"], num_parallel_workers=0)
    with pytest.raises(TypeError, match="no numpy dtype"):
        GeneratorDataset(Squares(3), ["a", "b", "c"], column_types=["int32", "float32", object()])


def test_torch_dataloader_workers_read_it():
    torch = pytest.importorskip("torch")
    from mindrecord.torch import MindRecordDataset
    ds = GeneratorDataset(Squares(24), ["vec", "half", "name"], shuffle=False).project(["vec", "half"])
    loader = torch.utils.data.DataLoader(MindRecordDataset(ds, batch_size=4), batch_size=None, num_workers=2)
    got = sorted(int(v) for b in loader for v in b["vec"][:, 0])
    assert got == list(range(24))


class Calls:
    """A generator function counting its calls: rows (i, i * i) for i < n."""

    def __init__(self, n):
        self.n, self.calls = n, 0

    def __call__(self):
        self.calls += 1
        for i in range(self.n):
            yield np.int64(i), np.int64(i * i)


def test_a_generator_function_is_read_in_order_each_epoch():
    src = Calls(3000)
    ds = GeneratorDataset(src, ["i", "sq"])
    assert src.calls == 1 and ds.get_dataset_size() == 3000  # counted once, as get_dataset_size() does in MindSpore

    def slow_odd(i):
        if int(i) % 7 == 1:
            time.sleep(0.0005)  # workers finish out of order and ask for positions out of order
        return i
    mapped = ds.map(slow_odd, input_columns=["i"], num_parallel_workers=4).batch(16)
    it = mapped.create_dict_iterator(num_epochs=2, output_numpy=True)
    for _ in range(2):
        got = [int(v) for b in it for v in b["i"]]
        assert got == list(range(3000))
    # One pass per epoch: rows made ahead of a request wait for the worker that asks for them.
    assert src.calls == 3
    # Each epoch is its own iteration of the source, also when the epochs overlap in the workers.
    class Tagged:
        def __init__(self):
            self.calls = 0

        def __call__(self):
            self.calls += 1
            tag = self.calls
            for i in range(500):
                yield np.int64(i), np.int64(tag)
    tagged = GeneratorDataset(Tagged(), ["i", "tag"]).map(slow_odd, input_columns=["i"], num_parallel_workers=4)
    it = tagged.batch(5).create_dict_iterator(num_epochs=3, output_numpy=True)
    for epoch in range(3):
        got = [(int(i), int(t)) for b in it for i, t in zip(b["i"], b["tag"])]
        assert got == [(i, epoch + 2) for i in range(500)]  # call 1 counted the rows
    rows_ = rows(GeneratorDataset(Calls(10), ["i", "sq"]).project(["sq"]))
    assert [int(r["sq"]) for r in rows_] == [i * i for i in range(10)]


def test_generators_with_take_skip_num_samples_and_save(tmp_path):
    def ids(ds):
        return [int(r["i"]) for r in rows(ds)]
    assert ids(GeneratorDataset(Calls(20), ["i", "sq"]).take(4).repeat(2)) == [0, 1, 2, 3] * 2
    assert ids(GeneratorDataset(Calls(20), ["i", "sq"]).skip(17)) == [17, 18, 19]
    small = GeneratorDataset(Calls(20), ["i", "sq"], num_samples=5)
    assert small.get_dataset_size() == 5 and ids(small) == [0, 1, 2, 3, 4]

    class Letters:  # an iterable: iter() each epoch
        def __iter__(self):
            return iter([("a",), ("b",), ("c",)])
    assert [str(r["ch"]) for r in rows(GeneratorDataset(Letters(), ["ch"]))] == ["a", "b", "c"]
    out = str(tmp_path / "gen.mindrecord")
    GeneratorDataset(Calls(30), ["i", "sq"]).save(out)
    with mindrecord.FileReader(out) as r:
        assert [row["sq"] for row in r.get_next()] == [i * i for i in range(30)]


def test_a_pass_shorter_than_counted_is_an_error():
    class Shrinking:
        def __init__(self):
            self.n = 6

        def __call__(self):
            self.n -= 1
            return iter([(np.int64(i),) for i in range(self.n)])
    ds = GeneratorDataset(Shrinking(), ["x"])  # counted 5 rows
    with pytest.raises(RuntimeError, match="gave 4 rows in this pass, 5 when it was counted"):
        rows(ds)


def test_numpy_slices_as_mindspore_documents_them():
    from mindrecord import NumpySlicesDataset
    assert [int(r["column_0"]) for r in rows(NumpySlicesDataset([1, 2, 3], shuffle=False))] == [1, 2, 3]
    by_key = rows(NumpySlicesDataset({"a": [1, 2], "b": [3, 4]}, shuffle=False))
    assert [(int(r["a"]), int(r["b"])) for r in by_key] == [(1, 3), (2, 4)]
    tup = rows(NumpySlicesDataset(([1, 2], [3, 4], [5, 6]), column_names=["x", "y", "z"], shuffle=False))
    assert [int(r["z"]) for r in tup] == [5, 6]
    images = np.arange(5 * 4 * 3, dtype=np.uint8).reshape(5, 4, 3)
    sliced = rows(NumpySlicesDataset((images, np.arange(5)), column_names=["img", "label"], shuffle=False))
    np.testing.assert_array_equal(sliced[3]["img"], images[3])
    shuffled = [int(r["label"]) for r in rows(NumpySlicesDataset((images, np.arange(5)), ["img", "label"], seed=2))]
    assert sorted(shuffled) == list(range(5))
    with pytest.raises(ValueError, match="Data length in each column is not equal"):
        NumpySlicesDataset(([1, 2], [3]))


def test_numpy_slices_of_numbers_are_sliced_without_python():
    # Numeric columns are sliced by the C++ source (no Python per row, no
    # worker processes): the same rows, whatever the arrays' layout and byte
    # order, shuffled, sharded and mapped as any source.
    from mindrecord import NumpySlicesDataset
    big_endian = np.arange(12, dtype=">i4").reshape(6, 2)
    transposed = np.arange(18, dtype=np.float64).reshape(3, 6).T  # not C-contiguous
    flags = np.array([True, False, True, True, False, False])
    numeric = NumpySlicesDataset((big_endian, transposed, flags), ["a", "b", "c"], shuffle=False)
    assert numeric._plan["tree"]["kind"] == "numpy"
    got = rows(numeric)
    for i, r in enumerate(got):
        np.testing.assert_array_equal(r["a"], big_endian[i])
        assert r["a"].dtype == np.int32
        np.testing.assert_array_equal(r["b"], transposed[i])
        assert bool(r["c"]) == flags[i] and r["c"].shape == ()
    ds = NumpySlicesDataset({"x": np.arange(40, dtype=np.int64)}, num_parallel_workers=2, num_shards=2, shard_id=1,
                            seed=5)
    xs = [int(r["x"]) for r in rows(ds.map(lambda x: x * 10, input_columns=["x"]))]
    assert len(xs) == 20 and len(set(xs)) == 20 and all(x % 10 == 0 for x in xs)
    assert xs != sorted(xs)  # shuffled
    # Strings keep the Python path.
    # Rows are views of the arrays: they keep them alive past the dataset.
    import gc
    data = np.arange(12, dtype=np.float32).reshape(6, 2)
    views = NumpySlicesDataset(data.copy(), ["v"], shuffle=False)
    kept = [r["v"] for r in views.create_dict_iterator(num_epochs=1, output_numpy=True, do_copy=False)]
    del views
    gc.collect()
    for i, k in enumerate(kept):
        np.testing.assert_array_equal(k, data[i])
    strings = NumpySlicesDataset(["p", "q"], shuffle=False)
    assert strings._plan["tree"]["kind"] == "python"
    assert [str(r["column_0"]) for r in rows(strings)] == ["p", "q"]


def test_numpy_slices_batches_are_gathered_as_the_rows_would_batch():
    # Batches of unmapped numeric slices are copied by the source straight
    # into the batch (stats: batches_gathered); a map keeps the row path.
    # Both give the same batches, shuffled, sharded, over epochs.
    from mindrecord import NumpySlicesDataset
    x = np.random.RandomState(0).rand(50, 3, 2).astype(np.float32)
    y = np.arange(50, dtype=np.int64)

    def batches(mapped):
        ds = NumpySlicesDataset((x, y), ["x", "y"], seed=4, num_shards=2, shard_id=1)
        if mapped:
            ds = ds.map(lambda v: v, input_columns=["y"])
        it = ds.batch(4).create_dict_iterator(num_epochs=2, output_numpy=True)
        got = [(b["x"].copy(), b["y"].copy()) for _ in range(2) for b in it]
        return got, it.stats()

    gathered, stats = batches(False)
    by_rows, row_stats = batches(True)
    assert stats["batches_gathered"] == len(gathered) == 14 and row_stats["batches_gathered"] == 0
    assert len(gathered) == len(by_rows)
    for (gx, gy), (rx, ry) in zip(gathered, by_rows):
        assert gx.dtype == np.float32 and gx.shape == (len(gy), 3, 2) and gy.dtype == np.int64
        np.testing.assert_array_equal(gx, rx)
        np.testing.assert_array_equal(gy, ry)
        np.testing.assert_array_equal(gx, x[gy])
    assert [int(v) for _, gy in gathered[:7] for v in gy] != [int(v) for _, gy in gathered[7:] for v in gy]  # reshuffled


def test_padded_samples_in_order():
    from mindrecord import PaddedDataset
    p = PaddedDataset([{"image": np.zeros(1, np.uint8), "label": np.int32(-1)},
                       {"image": np.zeros(2, np.uint8), "label": np.int32(-2)}])
    got = rows(p)
    assert [r["image"].shape for r in got] == [(1,), (2,)] and [int(r["label"]) for r in got] == [-1, -2]
    with pytest.raises(ValueError, match="cannot be empty"):
        PaddedDataset([])
    with pytest.raises(TypeError, match="list of dict"):
        PaddedDataset([1])


def test_a_source_is_released_with_the_last_dataset_made_from_it():
    import gc
    import weakref
    from mindrecord import NumpySlicesDataset
    src = Squares(8)
    probe = weakref.ref(src)
    a = GeneratorDataset(src, ["vec", "half", "name"], shuffle=False).project(["vec"])
    b = NumpySlicesDataset({"k": np.arange(8)}, shuffle=False)
    zipped = mindrecord.zip((a, b))
    del src, a, b
    gc.collect()
    assert probe() is not None  # the zip still reads it
    assert [int(r["k"]) for r in rows(zipped)] == list(range(8))
    del zipped
    gc.collect()
    assert probe() is None  # a dataset's data is not kept for the life of the process


def test_python_code_keeps_its_thread_locals_from_row_to_row():
    # The pipeline's threads keep their Python thread state between rows, so
    # what a source or a callable keeps in threading.local lasts (a decoder, a
    # generator of random numbers): 1, 2, 3, ... on each thread, not 1 every time.
    seen = threading.local()

    def count():
        seen.n = getattr(seen, "n", 0) + 1
        return seen.n

    class Counting:
        def __getitem__(self, i):
            return np.int64(count())

        def __len__(self):
            return 200
    got = [int(r["n"]) for r in rows(GeneratorDataset(Counting(), ["n"], shuffle=False))]
    assert max(got) == 200  # one worker: the source's thread counted every row
    mapped = GeneratorDataset(Counting(), ["n"], shuffle=False).map(lambda n: np.int64(count()), input_columns=["n"],
                                                                    num_parallel_workers=2,
                                                                    python_multiprocessing=False)
    got = [int(r["n"]) for r in rows(mapped)]
    assert max(got) >= 100  # two map threads: one of them mapped at least half of the rows


def test_scalars_become_what_numpy_asarray_makes_of_them():
    # Python and numpy scalars are converted without an array (a fast path):
    # the same dtype and value as numpy.asarray gives; others as before.
    values = [1, -2**63, 2.5, True, np.int64(3), np.float32(1.5), np.float64(2.25), np.bool_(False), np.uint8(200),
              np.int8(-3), np.int16(-300), np.int32(70000), np.float32("nan")]
    got = [r["x"] for r in rows(GeneratorDataset(values, ["x"], shuffle=False))]
    for v, g in zip(values, got):
        want = np.asarray(v)
        assert g.dtype == want.dtype and g.shape == () and (g == want or (np.isnan(g) and np.isnan(want))), (v, g)
    with pytest.raises(ValueError, match="dtype object"):
        rows(GeneratorDataset([2**70], ["x"], shuffle=False))  # past int64: numpy's object array, refused
