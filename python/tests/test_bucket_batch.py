"""bucket_batch_by_length, written as MindSpore code with only the import
changed: MindSpore's documented example, the batches a plain Python model of
its BucketBatchByLengthOp makes (any worker count, shuffled, filtered,
drop_remainder), resuming in the middle of an epoch, and bad arguments."""
import numpy as np
import pytest

import mindrecord as ds
from mindrecord import FileWriter, MindDataset


@pytest.fixture(scope="module")
def tokens(tmp_path_factory):
    """60 rows of token ids of 1..23 tokens, a string and a label."""
    path = str(tmp_path_factory.mktemp("bucket") / "t.mindrecord")
    w = FileWriter(path, 1)
    w.add_schema({"ids": {"type": "int32", "shape": [-1]}, "text": {"type": "string"}, "label": {"type": "int32"}}, "t")
    rng = np.random.default_rng(3)
    w.write_raw_data([{"ids": np.arange(n, dtype=np.int32) + 100 * i, "text": "row %d" % i, "label": i}
                      for i, n in enumerate(rng.integers(1, 24, 60))])
    w.commit()
    return path


def model(rows, length, bounds, sizes, drop):
    """MindSpore's BucketBatchByLengthOp over `rows` (lists of row dicts out)."""
    buckets = [[] for _ in sizes]
    out = []
    for r in rows:
        b = sum(1 for x in bounds if length(r) >= x)
        buckets[b].append(r)
        if len(buckets[b]) == sizes[b]:
            out.append(buckets[b])
            buckets[b] = []
    if not drop:
        out.extend(b for b in buckets if b)
    return out


def labels(batches):
    return [b["label"].tolist() for b in batches]


def test_mindspores_example_pads_to_the_bucket_boundary():
    # The example of MindSpore's bucket_batch_by_length docstring.
    def generate_2_columns(n):
        for i in range(n):
            yield (np.array([i]), np.array([j for j in range(i + 1)]))

    column_names = ["col1", "col2"]
    # (A generator function, not its single-pass iterator: see the parity table.)
    dataset = ds.GeneratorDataset(lambda: generate_2_columns(8), column_names)
    dataset = dataset.bucket_batch_by_length(column_names, [5, 10], [2, 1, 1],
                                             lambda col1, col2: max(len(col1), len(col2)),
                                             {"col2": ([None], -1)}, True)
    assert dataset.get_col_names() == column_names
    got = list(dataset.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert [c1.tolist() for c1, _ in got] == [[[0], [1]], [[2], [3]], [[4]], [[5]], [[6]], [[7]]]
    assert [c2.shape for _, c2 in got] == [(2, 4), (2, 4), (1, 9), (1, 9), (1, 9), (1, 9)]
    assert got[0][1].tolist() == [[0, -1, -1, -1], [0, 1, -1, -1]]
    assert got[5][1].tolist() == [[0, 1, 2, 3, 4, 5, 6, 7, -1]]
    assert dataset.get_dataset_size() == 6


@pytest.mark.parametrize("workers", [1, 3])
@pytest.mark.parametrize("drop", [False, True])
def test_batches_are_mindspores_for_any_worker_count(tokens, workers, drop):
    src = MindDataset(tokens, shuffle=True, seed=7, num_parallel_workers=workers)
    rows = list(MindDataset(tokens, shuffle=True, seed=7).create_dict_iterator(num_epochs=1, output_numpy=True))
    bounds, sizes = [5, 10, 15], [4, 3, 5, 2]
    want = model(rows, lambda r: len(r["ids"]), bounds, sizes, drop)
    # Default length: the first dimension of the one column named.
    out = src.bucket_batch_by_length(["ids"], bounds, sizes, pad_info={"ids": ([None], 0)}, drop_remainder=drop)
    got = list(out.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert labels(got) == [[r["label"].item() for r in b] for b in want]
    for b, w in zip(got, want):
        longest = max(len(r["ids"]) for r in w)
        assert b["ids"].shape == (len(w), longest)
        assert b["ids"].tolist() == [r["ids"].tolist() + [0] * (longest - len(r["ids"])) for r in w]
        assert b["text"].tolist() == [r["text"].item() for r in w]
    assert out.get_dataset_size() == len(want)
    # A Python length function of two columns; the columns keep their order.
    fn = lambda ids, label: len(ids) + int(label) % 4  # noqa: E731
    out = src.bucket_batch_by_length(["ids", "label"], bounds, sizes, fn, drop_remainder=drop)
    assert out.get_col_names() == src.get_col_names()
    want = model(rows, lambda r: fn(r["ids"], r["label"]), bounds, sizes, drop)
    assert labels(out.create_dict_iterator(num_epochs=1, output_numpy=True)) == [[r["label"].item() for r in b]
                                                                                 for b in want]


def test_after_a_filter_and_a_map_and_under_a_repeat(tokens):
    keep = lambda label: int(label) % 3 != 0  # noqa: E731
    rows = [r for r in MindDataset(tokens, shuffle=False).create_dict_iterator(num_epochs=1, output_numpy=True)
            if keep(r["label"])]
    want = model(rows, lambda r: len(r["ids"]), [8], [3, 2], False)
    out = (MindDataset(tokens, shuffle=False).filter(keep, ["label"])
           .map(lambda ids: ids * 2, input_columns="ids")
           .bucket_batch_by_length(["ids"], [8], [3, 2], pad_info={}).repeat(2))
    got = list(out.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert labels(got) == [[r["label"].item() for r in b] for b in want] * 2
    for b, w in zip(got, want):  # pad_info={}: every column padded with 0 to the batch's longest
        longest = max(len(r["ids"]) for r in w)
        assert b["ids"].tolist() == [(r["ids"] * 2).tolist() + [0] * (longest - len(r["ids"])) for r in w]


@pytest.mark.parametrize("stop", [1, 4, 9])
def test_state_dict_resumes_in_the_middle_of_an_epoch(tokens, stop):
    def make():
        return MindDataset(tokens, shuffle=True, seed=5, num_parallel_workers=2).bucket_batch_by_length(
            ["ids"], [6, 12], [4, 3, 2], pad_info={"ids": ([None], -1)})

    full = labels(make().create_dict_iterator(num_epochs=2, output_numpy=True))
    first = make()
    it = first.create_dict_iterator(num_epochs=2, output_numpy=True)
    head = [next(it)["label"].tolist() for _ in range(stop)]
    state = first.state_dict()
    # Rows still in buckets are listed: the resume reads them again.
    assert state.get("bucketed") and state["position"] == state["bucketed"][0]
    second = make()
    second.load_state_dict(state)
    rest = labels(second.create_dict_iterator(num_epochs=2, output_numpy=True))
    assert head + rest == full


def test_bad_arguments_are_mindspores_errors(tokens):
    d = MindDataset(tokens, shuffle=False)
    with pytest.raises(ValueError, match="strictly increasing"):
        d.bucket_batch_by_length(["ids"], [5, 5], [1, 1, 1])
    with pytest.raises(ValueError, match="one element more"):
        d.bucket_batch_by_length(["ids"], [5], [1, 1, 1])
    with pytest.raises(ValueError, match="positive"):
        d.bucket_batch_by_length(["ids"], [0, 5], [1, 1, 1])
    with pytest.raises(TypeError, match="list of int"):
        d.bucket_batch_by_length(["ids"], (5,), [1, 1])
    with pytest.raises(ValueError, match="name one column"):
        d.bucket_batch_by_length(["ids", "label"], [5], [1, 1])
    with pytest.raises(ValueError, match="no such column"):
        d.bucket_batch_by_length(["nope"], [5], [1, 1])
    with pytest.raises(TypeError, match="callable"):
        d.bucket_batch_by_length(["ids"], [5], [1, 1], element_length_function=3)
    with pytest.raises(ValueError, match="already applied"):
        d.batch(2).bucket_batch_by_length(["ids"], [5], [1, 1])
    # Rows the length function rejects, and rows past the last boundary
    # when padding to the bucket's boundary, stop the iteration naming why.
    bad = d.bucket_batch_by_length(["ids"], [5], [2, 2], element_length_function=lambda ids: -len(ids))
    with pytest.raises(RuntimeError, match="non negative"):
        list(bad.create_tuple_iterator(num_epochs=1))
    last = d.bucket_batch_by_length(["ids"], [5], [2, 2], pad_info={"ids": ([None], 0)}, pad_to_bucket_boundary=True)
    with pytest.raises(RuntimeError, match="last bucket"):
        list(last.create_tuple_iterator(num_epochs=1))
