"""mindrecord.transforms' general tensor ops (MindSpore's Fill, Mask, Slice,
PadEnd, Concatenate, Duplicate, Unique): values against numpy references
worked out from MindSpore's kernels, argument errors naming the op, eager
calls, and MindDataset.map pipelines (the extra columns of Duplicate and
Unique included)."""
import operator

import numpy as np
import pytest

import mindrecord
from mindrecord import transforms
from mindrecord.transforms import Relational

from conftest import numpy_dicts

DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float32, np.float64]
SHAPES = [(), (5,), (2, 3), (2, 1, 4)]
RELATIONS = {Relational.EQ: operator.eq, Relational.NE: operator.ne, Relational.GT: operator.gt,
             Relational.GE: operator.ge, Relational.LT: operator.lt, Relational.LE: operator.le}


def sample(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.integers(-20, 20, size=shape) * 0.75).astype(dtype)


def c_cast(value, dtype):
    """value converted as MindSpore's TypeCast (a C++ static_cast); numpy's
    astype agrees for the values used here (no negative or out-of-range
    float to integer)."""
    return np.array(value).astype(dtype)


# ---- Fill ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_fill_matches_numpy_in_every_type_and_shape(dtype):
    for shape in SHAPES:
        x = sample(dtype, shape)
        for value in (3, 2.7, True, 0, 100):
            out = transforms.Fill(value)(x)
            assert out.dtype == x.dtype and out.shape == x.shape, (dtype, shape, value)
            np.testing.assert_array_equal(out, np.full(shape, c_cast(value, dtype), dtype))


def test_fill_conversions_and_strings():
    np.testing.assert_array_equal(transforms.Fill(300)(np.zeros(2, np.uint8)), [44, 44])  # wraps, as a C cast
    np.testing.assert_array_equal(transforms.Fill(-1)(np.zeros(2, np.uint8)), [255, 255])
    np.testing.assert_array_equal(transforms.Fill(-2.9)(np.zeros(2, np.int16)), [-2, -2])  # truncates
    assert np.isnan(transforms.Fill(float("nan"))(np.zeros(3, np.float32))).all()
    assert (transforms.Fill(float("-inf"))(np.zeros(1)) == -np.inf).all()
    assert transforms.Fill("abc")("xyz").item() == "abc"
    assert transforms.Fill(b"ab")("xyz").item() == "ab"  # bytes fill strings too
    with pytest.raises(ValueError, match="Fill: fill_value is a string"):
        transforms.Fill("a")(np.zeros(2))
    with pytest.raises(ValueError, match="Fill: fill_value 1 is not a string"):
        transforms.Fill(1)("text")


def test_fill_argument_errors():
    for bad in ([1], None, np.int64(3), np.float32(1.0), {"a": 1}):
        with pytest.raises(TypeError, match="Fill: fill_value"):
            transforms.Fill(bad)
    with pytest.raises(ValueError, match="Fill: fill_value must fit int64"):
        transforms.Fill(2 ** 64)
    with pytest.raises(ValueError, match="Fill: fill_value must be UTF-8"):
        transforms.Fill(b"\xff")
    assert transforms.Fill(np.float64(1.5)).spec()["fill_value"] == 1.5  # a float subclass, as MindSpore takes


# ---- Mask ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_mask_matches_numpy_with_the_constant_in_the_input_type(dtype):
    for shape in SHAPES:
        x = sample(dtype, shape, seed=1)
        for rel, fn in RELATIONS.items():
            for constant in (2, 2.5, 0, True):
                out = transforms.Mask(rel, constant)(x)
                assert out.dtype == np.bool_ and out.shape == x.shape
                np.testing.assert_array_equal(out, fn(x, c_cast(constant, dtype)), err_msg=str((dtype, rel, constant)))


def test_mask_output_dtype_and_strings():
    x = np.array([1, 2, 3, 4], np.int32)
    assert transforms.Mask(Relational.GE, 2.5)(x).tolist() == [False, True, True, True]  # 2.5 -> 2, as MindSpore
    for dtype, want in ((np.int32, np.int32), ("float32", np.float32), ("Int64", np.int64), (np.uint8, np.uint8),
                        (bool, np.bool_)):
        out = transforms.Mask(Relational.EQ, 3, dtype)(x)
        assert out.dtype == want and out.tolist() == [0, 0, 1, 0]
    assert transforms.Mask(Relational.EQ, "ab")("ab").item() is True
    assert transforms.Mask(Relational.LT, "b")("ab").item() is True
    assert transforms.Mask(Relational.GT, b"b")("ab").item() is False
    with pytest.raises(ValueError, match="Mask: the input .* must both be numeric or both be strings"):
        transforms.Mask(Relational.EQ, "a")(x)
    with pytest.raises(ValueError, match="must both be numeric"):
        transforms.Mask(Relational.EQ, 1)("a")


def test_mask_argument_errors():
    with pytest.raises(TypeError, match="Mask: operator"):
        transforms.Mask(0, 1)
    with pytest.raises(TypeError, match="Mask: constant"):
        transforms.Mask(Relational.EQ, [1])
    for bad in ("string", np.float16, None, True, "complex64"):
        with pytest.raises(TypeError, match="Mask: dtype"):
            transforms.Mask(Relational.EQ, 1, bad)
    assert transforms.Mask(Relational.NE, 1).spec() == {"op": "Mask", "operator": "NE", "constant": 1,
                                                        "dtype": "bool"}


# ---- Slice --------------------------------------------------------------------


def test_slice_matches_mindspore_indexing():
    v = np.arange(10, dtype=np.int64) * 3
    cases = [((1,), v[[1]]), ((-1,), v[[-1]]), (([0, 3, -2],), v[[0, 3, -2]]), ((slice(4),), v[:4]),
             ((slice(2, 7),), v[2:7]), ((slice(1, 9, 3),), v[1:9:3]), ((slice(-3, 100),), v[-3:]),
             ((slice(8, 2, -2),), v[8:2:-2]), ((slice(100, -100, -3),), v[9:0:-3]), ((slice(5, 2),), v[5:2]),
             ((None,), v), ((Ellipsis,), v), ((True,), v), ((), v)]
    for args, want in cases:
        out = transforms.Slice(*args)(v)
        assert out.dtype == v.dtype, args
        np.testing.assert_array_equal(out, want, err_msg=str(args))
    for dtype in DTYPES:
        m = sample(dtype, (4, 5, 3), seed=2)
        np.testing.assert_array_equal(transforms.Slice([0, 2], slice(1, 4))(m), m[[0, 2]][:, 1:4])
        np.testing.assert_array_equal(transforms.Slice(None, -1)(m), m[:, [-1]])
        # Ellipsis stands for one dimension, as in MindSpore (not numpy's "all the rest").
        np.testing.assert_array_equal(transforms.Slice(..., 1)(m), m[:, [1], :])
        np.testing.assert_array_equal(transforms.Slice(slice(3, 0, -1), [2, 0], [1])(m),
                                      m[3:0:-1][:, [2, 0]][:, :, [1]])
    assert transforms.Slice(slice(2, 4))(b"abcdef").tolist() == [ord("c"), ord("d")]  # bytes are uint8
    with pytest.raises(ValueError, match="Slice: index 10 is out of bounds for dimension 0 of size 10"):
        transforms.Slice(10)(v)
    with pytest.raises(ValueError, match="Slice: 2 slices for"):
        transforms.Slice(1, 1)(v)
    with pytest.raises(ValueError, match="Slice: a string value is a scalar"):
        transforms.Slice(0)("text")


def test_slice_argument_errors():
    for bad in (1.5, (1, 2), "a", [1, True], [1, 2.0], np.int64(1), slice(1.0, 2)):
        with pytest.raises(TypeError, match="Slice: "):
            transforms.Slice(bad)
    # Forms MindSpore's SliceOption refuses ("Wrong slice object") or that select nothing.
    for bad in (False, [], slice(1, None), slice(None), slice(None, None, -1), slice(None, 3, 2), slice(0, 3, 0)):
        with pytest.raises(ValueError, match="Slice: "):
            transforms.Slice(bad)
    assert transforms.Slice(2, [1, -1], slice(5), None).spec()["slices"] == [
        [2], [1, -1], {"start": 0, "stop": 5, "step": 1}, True]


# ---- PadEnd -------------------------------------------------------------------


def pad_reference(x, pad_shape, value):
    target = tuple(x.shape[i] if d is None else d for i, d in enumerate(pad_shape))
    fill = np.float32(0 if value is None else value).astype(x.dtype)  # float32 first, as MindSpore
    out = np.full(target, fill, x.dtype)
    common = tuple(slice(0, min(a, b)) for a, b in zip(x.shape, target))
    out[common] = x[common]
    return out


@pytest.mark.parametrize("dtype", DTYPES)
def test_pad_end_matches_numpy(dtype):
    for shape, pad_shape in (((3,), [5]), ((3,), [2]), ((2, 3), [4, 4]), ((2, 3), [1, 5]), ((2, 3), [None, 6]),
                             ((2, 1, 4), [3, 2, 2]), ((2, 3), [2, 3])):
        x = sample(dtype, shape, seed=3)
        for value in (None, 7, 1.7, True):
            out = transforms.PadEnd(pad_shape, value)(x)
            assert out.dtype == x.dtype
            np.testing.assert_array_equal(out, pad_reference(x, pad_shape, value), err_msg=str((shape, pad_shape)))


def test_pad_end_rules():
    big = transforms.PadEnd([3], 2 ** 24 + 1)(np.zeros(1, np.int64))
    assert big.tolist() == [0, 2 ** 24, 2 ** 24]  # through float32, as MindSpore
    assert transforms.PadEnd([4])(np.float32(2.5)) == 2.5  # scalars stay as they are
    assert transforms.PadEnd([4], "z")("ab").item() == "ab"  # a string value is a scalar
    assert transforms.PadEnd([4], 120)(b"ab").tolist() == [97, 98, 120, 120]  # bytes are uint8
    with pytest.raises(ValueError, match=r"PadEnd: pad_shape \[5\] has 1 dimensions"):
        transforms.PadEnd([5])(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="PadEnd: pad_value .* must both be numeric or both be strings"):
        transforms.PadEnd([5], "x")(np.zeros(2))
    for bad in ((3,), 3, None):
        with pytest.raises(TypeError, match="PadEnd: pad_shape must be a list"):
            transforms.PadEnd(bad)
    for bad in ([True], [2.0], ["3"]):
        with pytest.raises(TypeError, match="PadEnd: pad_shape"):
            transforms.PadEnd(bad)
    with pytest.raises(ValueError, match="PadEnd: pad_shape"):
        transforms.PadEnd([0])
    with pytest.raises(TypeError, match="PadEnd: pad_value"):
        transforms.PadEnd([2], [0])


# ---- Concatenate --------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_concatenate_matches_numpy(dtype):
    a, b = sample(dtype, (4,), seed=4), sample(dtype, (2,), seed=5)
    pre, post = sample(dtype, (3,), seed=6), sample(dtype, (1,), seed=7)
    np.testing.assert_array_equal(transforms.Concatenate()(a), a)
    np.testing.assert_array_equal(transforms.Concatenate(0, pre, post)(a, b), np.concatenate([pre, a, b, post]))
    np.testing.assert_array_equal(transforms.Concatenate(-1, append=post)(a, b, a), np.concatenate([a, b, a, post]))
    out = transforms.Concatenate(prepend=pre)(np.zeros(0, dtype))
    assert out.dtype == dtype and out.tolist() == pre.tolist()


def test_concatenate_errors():
    with pytest.raises(ValueError, match="Concatenate: prepend is int64; every input must have the first input's type"):
        transforms.Concatenate(prepend=np.array([1]))(np.zeros(2, np.int32))
    with pytest.raises(ValueError, match="Concatenate: input .* is float32"):
        transforms.Concatenate()(np.zeros(2, np.int32), np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="Concatenate: only 1-D inputs are supported"):
        transforms.Concatenate()(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="Concatenate: axis must be 0 or -1"):
        transforms.Concatenate(1)
    for bad in (True, None, 0.0):
        with pytest.raises(TypeError, match="Concatenate: axis"):
            transforms.Concatenate(bad)
    with pytest.raises(TypeError, match="Concatenate: prepend must be a numpy.ndarray"):
        transforms.Concatenate(prepend=[1, 2])
    with pytest.raises(ValueError, match="Concatenate: append must be a 1-D array"):
        transforms.Concatenate(append=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="Concatenate: prepend of dtype complex128 is not supported"):
        transforms.Concatenate(prepend=np.array([1j]))  # (str arrays join arrays of strings: test_text.py)
    nan = transforms.Concatenate(append=np.array([np.nan, np.inf], np.float32))(np.ones(1, np.float32))
    assert nan[0] == 1 and np.isnan(nan[1]) and nan[2] == np.inf


# ---- Duplicate, Unique --------------------------------------------------------


def unique_reference(x):
    """MindSpore's Unique: values in first-occurrence order, int32 indices and counts."""
    flat = x.reshape(-1)
    _, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True, return_counts=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return flat[np.sort(first)], rank[inverse.reshape(-1)].astype(np.int32), counts[order].astype(np.int32)


def test_duplicate_and_unique_eager():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    a, b = transforms.Duplicate()(x)
    np.testing.assert_array_equal(a, x)
    np.testing.assert_array_equal(b, x)
    assert a.dtype == b.dtype == np.float32 and not np.shares_memory(a, b)
    for dtype in DTYPES[1:]:
        for shape in ((2, 3), (4, 5), (3, 2, 2)):
            x = sample(dtype, shape, seed=8)
            out, idx, cnt = transforms.Unique()(x)
            want = unique_reference(x)
            assert out.dtype == dtype and idx.dtype == np.int32 and cnt.dtype == np.int32
            for got, ref in zip((out, idx, cnt), want):
                np.testing.assert_array_equal(got, ref, err_msg=str((dtype, shape)))
    out, idx, cnt = transforms.Unique()(np.array([[0, 1, 2], [1, 2, 3]]))  # MindSpore's documented example
    assert out.tolist() == [0, 1, 2, 3] and idx.tolist() == [0, 1, 2, 1, 2, 3] and cnt.tolist() == [1, 2, 2, 1]
    with pytest.raises(ValueError, match="Unique: input must be at least 2-D"):
        transforms.Unique()(np.arange(3))
    with pytest.raises(ValueError, match="Unique: only numeric input"):
        transforms.Unique()(np.zeros((2, 2), np.bool_))
    with pytest.raises(ValueError, match="takes 1 input"):
        transforms.Duplicate()(x, x)


# ---- pipelines ----------------------------------------------------------------


def write_rows(path, n=12):
    w = mindrecord.FileWriter(path)
    w.add_schema({"id": {"type": "int64"}, "x": {"type": "int32", "shape": [-1]},
                  "f": {"type": "float32", "shape": [4]}, "name": {"type": "string"}, "raw": {"type": "bytes"}})
    w.write_raw_data([{"id": i, "x": (np.arange(i % 4 + 1) * (i - 5)).astype(np.int32),
                       "f": np.array([i, -i, 0.5 * i, 3], np.float32), "name": "row%d" % (i % 3),
                       "raw": bytes(range(i, i + 3))} for i in range(n)])
    w.commit()
    return path


@pytest.fixture(scope="module")
def rows_path(tmp_path_factory):
    return write_rows(str(tmp_path_factory.mktemp("tensor_ops") / "rows.mindrecord"))


def dataset(path, workers=1):
    return mindrecord.MindDataset(path, shuffle=False, num_parallel_workers=workers)


def source_rows(path):
    return list(dataset(path).create_dict_iterator(output_numpy=True))


@pytest.mark.parametrize("workers", [1, 3])
def test_pipeline_duplicate_adds_a_column(rows_path, workers):
    ds = dataset(rows_path, workers).map(transforms.Duplicate(), input_columns=["f"], output_columns=["f", "f2"])
    src = dataset(rows_path).get_col_names()
    assert ds.get_col_names() == ["f", "f2"] + [c for c in src if c != "f"]  # outputs first, as MindSpore orders them
    got = list(ds.create_dict_iterator(output_numpy=True))
    assert len(got) == 12
    for r, s in zip(got, source_rows(rows_path)):
        np.testing.assert_array_equal(r["f"], s["f"])
        np.testing.assert_array_equal(r["f2"], s["f"])
        assert r["id"] == s["id"] and r["name"] == s["name"]
    tuples = next(iter(ds.create_tuple_iterator(output_numpy=True)))
    assert len(tuples) == len(src) + 1
    # Batched, the copy is a column of its own.
    b = next(iter(numpy_dicts(ds.batch(4))))
    np.testing.assert_array_equal(b["f"], b["f2"])
    assert b["f2"].shape == (4, 4)


def test_pipeline_duplicate_then_a_callable_in_a_one_column_map(rows_path):
    # An op giving 2 columns in a one-column map: the callable after it takes both.
    ds = dataset(rows_path, 2).map([transforms.Duplicate(), lambda a, b: a + 2 * b], input_columns="f")
    for r, s in zip(ds.create_dict_iterator(output_numpy=True), source_rows(rows_path)):
        np.testing.assert_array_equal(r["f"], 3 * s["f"])


def test_pipeline_unique_gives_three_columns(rows_path):
    ds = dataset(rows_path).map(transforms.PadEnd([4], -1), input_columns="x").batch(3)
    ds = ds.map(transforms.Unique(), input_columns=["x"], output_columns=["x", "idx", "cnt"])
    assert ds.get_col_names()[:3] == ["x", "idx", "cnt"]
    plain = list(numpy_dicts(dataset(rows_path).map(transforms.PadEnd([4], -1), input_columns="x").batch(3)))
    got = list(numpy_dicts(ds))
    assert len(got) == len(plain) == 4
    for g, p in zip(got, plain):
        for col, ref in zip(("x", "idx", "cnt"), unique_reference(p["x"])):
            np.testing.assert_array_equal(g[col], ref)
        np.testing.assert_array_equal(g["id"], p["id"])
    with pytest.raises(ValueError, match="Unique: input must be at least 2-D"):
        list(dataset(rows_path).map(transforms.Unique(), input_columns=["x"], output_columns=["a", "b", "c"]))


def test_pipeline_column_count_errors(rows_path):
    with pytest.raises(ValueError, match="gives 2 column"):
        list(dataset(rows_path).map(transforms.Duplicate(), input_columns=["x"]))
    with pytest.raises(ValueError, match="the last op gives 3 column"):
        list(dataset(rows_path).map(transforms.Unique(), input_columns=["x"], output_columns=["a", "b"]))


def test_pipeline_element_and_shape_ops_match_numpy(rows_path):
    ds = dataset(rows_path, 2)
    ds = ds.map([transforms.Mask(Relational.GT, 0, np.int32), transforms.PadEnd([6], 9)], input_columns="x",
                output_columns="pos")
    ds = ds.map(transforms.Slice(slice(3, 0, -1)), input_columns="f")
    ds = ds.map(transforms.Fill(2.5), input_columns="id")
    ds = ds.map(transforms.Mask(Relational.EQ, "row1"), input_columns="name")
    ds = ds.map(transforms.Slice([0, -1]), input_columns="raw")
    for r, s in zip(ds.create_dict_iterator(output_numpy=True), source_rows(rows_path)):
        np.testing.assert_array_equal(r["pos"], pad_reference((s["x"] > 0).astype(np.int32), [6], 9))
        np.testing.assert_array_equal(r["f"], s["f"][3:0:-1])
        assert r["id"].dtype == np.int64 and r["id"] == 2
        assert r["name"].dtype == np.bool_ and r["name"] == (s["name"] == "row1")
        assert r["raw"].dtype == np.uint8 and r["raw"].tolist() == [s["raw"][0], s["raw"][-1]]


def test_pipeline_concatenate_joins_columns(rows_path):
    ds = dataset(rows_path).map(transforms.TypeCast("float32"), input_columns="x")
    ds = ds.map(transforms.Concatenate(prepend=np.array([-7], np.float32)), input_columns=["f", "x"],
                output_columns=["fx"])
    assert ds.get_col_names()[0] == "fx" and "f" not in ds.get_col_names() and "x" not in ds.get_col_names()
    for r, s in zip(ds.create_dict_iterator(output_numpy=True), source_rows(rows_path)):
        np.testing.assert_array_equal(r["fx"], np.concatenate([[-7], s["f"], s["x"]]).astype(np.float32))
    # Duplicate then Concatenate in one map, and inside Compose.
    for ops in ([transforms.Duplicate(), transforms.Concatenate()],
                transforms.Compose([transforms.Duplicate(), transforms.Concatenate()])):
        twice = dataset(rows_path).map(ops, input_columns=["x"], output_columns=["xx"])
        for r, s in zip(twice.create_dict_iterator(output_numpy=True), source_rows(rows_path)):
            np.testing.assert_array_equal(r["xx"], np.concatenate([s["x"], s["x"]]))
    # With Python callables: a callable after Duplicate gets both columns; Concatenate joins a callable's two.
    mixed = dataset(rows_path).map([transforms.Duplicate(), lambda a, b: a * 10 + b], input_columns=["x"],
                                   output_columns=["x11"])
    pair = dataset(rows_path).map([lambda a: (a, a + 1), transforms.Concatenate()], input_columns=["x"],
                                  output_columns=["x2"])
    for r, p, s in zip(mixed.create_dict_iterator(output_numpy=True), pair.create_dict_iterator(output_numpy=True),
                       source_rows(rows_path)):
        np.testing.assert_array_equal(r["x11"], s["x"] * 11)
        np.testing.assert_array_equal(p["x2"], np.concatenate([s["x"], s["x"] + 1]))
    with pytest.raises(ValueError, match="Concatenate: input .* is int32; every input must have the first input's"):
        list(dataset(rows_path).map(transforms.Concatenate(), input_columns=["f", "x"], output_columns=["fx"]))
